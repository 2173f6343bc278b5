/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz's communicators beyond splits and dups: intercommunicators
 * (two groups of a base communicator, of any sizes), topologies with every
 * rank's neighbor lists computed here (Cartesian grids of up to 3
 * dimensions with sizes 1 and 2 and periodic ones, symmetric graphs with
 * repeated edges and self-loops, distributed graphs with repeated and
 * asymmetric edges, weighted or not, degrees 0 included), and the
 * decomposition criteria a communicator's info key may name.
 */
#include "hc_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* topologies                                                           */
/* ------------------------------------------------------------------ */

static hf_topo_t *topo_alloc(int kind, int n)
{
    hf_topo_t *t = hf_alloc(sizeof(*t));
    memset(t, 0, sizeof(*t));
    t->kind = kind;
    t->n = n;
    t->indeg = hf_alloc(sizeof(int) * (size_t) n);
    t->outdeg = hf_alloc(sizeof(int) * (size_t) n);
    t->src = hf_alloc(sizeof(int *) * (size_t) n);
    t->dst = hf_alloc(sizeof(int *) * (size_t) n);
    memset(t->src, 0, sizeof(int *) * (size_t) n);
    memset(t->dst, 0, sizeof(int *) * (size_t) n);
    return t;
}

void hf_topo_free(hf_topo_t *t)
{
    if (NULL == t) {
        return;
    }
    for (int r = 0; r < t->n; ++r) {
        free(t->src[r]);
        free(t->dst[r]);
        if (t->weights_in) {
            free(t->weights_in[r]);
            free(t->weights_out[r]);
        }
    }
    free(t->weights_in);
    free(t->weights_out);
    free(t->indeg);
    free(t->outdeg);
    free(t->src);
    free(t->dst);
    free(t);
}

static void shuffle_ints(hf_rng_t *r, int *v, int n)
{
    for (int i = n - 1; i > 0; --i) {
        int j = (int) hf_below(r, (uint64_t) i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* A Cartesian grid: n factored into up to 3 dimensions (sizes 1 and 2
 * among them), periodic or not; ranks row-major (reorder off). */
static void cart_make(hf_topo_t *t, hf_rng_t *r)
{
    int n = t->n, nd = 1 + (int) hf_below(r, 3);
    int left = n;
    for (int d = 0; d < nd; ++d) {
        int f = left;
        if (d < nd - 1) {
            /* a divisor of what is left: 1 and 2 often */
            int divs[64], nv = 0;
            for (int k = 1; k <= left && nv < 64; ++k) {
                if (0 == left % k) {
                    divs[nv++] = k;
                }
            }
            f = divs[hf_below(r, (uint64_t) nv)];
        }
        t->dims[d] = f;
        left /= f;
        t->periods[d] = hf_chance(r, 50);
    }
    t->nd = nd;
    int w = snprintf(t->desc, sizeof(t->desc), "cart");
    for (int d = 0; d < nd; ++d) {
        w += snprintf(t->desc + w, sizeof(t->desc) - (size_t) w, "%s%d%s", d ? "x" : " ",
                      t->dims[d], t->periods[d] ? "p" : "");
    }
    for (int q = 0; q < n; ++q) {
        t->indeg[q] = t->outdeg[q] = 2 * nd;
        t->src[q] = hf_alloc(sizeof(int) * (size_t) (2 * nd));
        t->dst[q] = hf_alloc(sizeof(int) * (size_t) (2 * nd));
        int stride = n;
        for (int d = 0; d < nd; ++d) {
            stride /= t->dims[d];
            int c = (q / stride) % t->dims[d];
            for (int dir = 0; dir < 2; ++dir) {
                int nc = c + (dir ? 1 : -1), peer = MPI_PROC_NULL;
                if (t->periods[d] || (nc >= 0 && nc < t->dims[d])) {
                    nc = (nc + t->dims[d]) % t->dims[d];
                    peer = q + (nc - c) * stride;
                }
                t->src[q][2 * d + dir] = t->dst[q][2 * d + dir] = peer;
            }
        }
    }
}

/* A symmetric multigraph (MPI_Graph_create's neighborhood collectives
 * send to and receive from the same list): random undirected edges,
 * self-loops and repeats among them, each rank's list in a random order. */
static void graph_make(hf_topo_t *t, hf_rng_t *r)
{
    int n = t->n, ne = (int) hf_below(r, (uint64_t) (2 * n + 2));
    int *ea = hf_alloc(sizeof(int) * (size_t) (ne + 1)),
        *eb = hf_alloc(sizeof(int) * (size_t) (ne + 1));
    for (int q = 0; q < n; ++q) {
        t->indeg[q] = 0;
    }
    for (int e = 0; e < ne; ++e) {
        ea[e] = (int) hf_below(r, (uint64_t) n);
        eb[e] = hf_chance(r, 15) ? ea[e] : (int) hf_below(r, (uint64_t) n);
        t->indeg[ea[e]]++;
        if (ea[e] != eb[e]) {
            t->indeg[eb[e]]++;
        }
    }
    for (int q = 0; q < n; ++q) {
        t->outdeg[q] = t->indeg[q];
        t->src[q] = hf_alloc(sizeof(int) * (size_t) (t->indeg[q] + 1));
        t->dst[q] = hf_alloc(sizeof(int) * (size_t) (t->indeg[q] + 1));
        t->indeg[q] = 0;
    }
    for (int e = 0; e < ne; ++e) {
        t->src[ea[e]][t->indeg[ea[e]]++] = eb[e];
        if (ea[e] != eb[e]) {
            t->src[eb[e]][t->indeg[eb[e]]++] = ea[e];
        }
    }
    for (int q = 0; q < n; ++q) {
        shuffle_ints(r, t->src[q], t->indeg[q]);
        memcpy(t->dst[q], t->src[q], sizeof(int) * (size_t) t->indeg[q]);
    }
    snprintf(t->desc, sizeof(t->desc), "graph of %d edges", ne);
    free(ea);
    free(eb);
}

/* A distributed graph (adjacent): random directed edges, repeats and
 * self-loops among them, each rank's sources and destinations in random
 * orders; weighted or not. */
static void dist_make(hf_topo_t *t, hf_rng_t *r)
{
    int n = t->n, ne = (int) hf_below(r, (uint64_t) (3 * n + 2));
    int *ea = hf_alloc(sizeof(int) * (size_t) (ne + 1)),
        *eb = hf_alloc(sizeof(int) * (size_t) (ne + 1));
    for (int q = 0; q < n; ++q) {
        t->indeg[q] = t->outdeg[q] = 0;
    }
    for (int e = 0; e < ne; ++e) {
        ea[e] = (int) hf_below(r, (uint64_t) n);
        eb[e] = hf_chance(r, 10) ? ea[e] : (int) hf_below(r, (uint64_t) n);
        t->outdeg[ea[e]]++;
        t->indeg[eb[e]]++;
    }
    bool weighted = hf_chance(r, 50);
    if (weighted) {
        t->weights_in = hf_alloc(sizeof(int *) * (size_t) n);
        t->weights_out = hf_alloc(sizeof(int *) * (size_t) n);
    }
    for (int q = 0; q < n; ++q) {
        t->src[q] = hf_alloc(sizeof(int) * (size_t) (t->indeg[q] + 1));
        t->dst[q] = hf_alloc(sizeof(int) * (size_t) (t->outdeg[q] + 1));
        if (weighted) {
            t->weights_in[q] = hf_alloc(sizeof(int) * (size_t) (t->indeg[q] + 1));
            t->weights_out[q] = hf_alloc(sizeof(int) * (size_t) (t->outdeg[q] + 1));
            for (int k = 0; k < t->indeg[q]; ++k) {
                t->weights_in[q][k] = (int) hf_below(r, 5);
            }
            for (int k = 0; k < t->outdeg[q]; ++k) {
                t->weights_out[q][k] = (int) hf_below(r, 5);
            }
        }
        t->indeg[q] = t->outdeg[q] = 0;
    }
    for (int e = 0; e < ne; ++e) {
        t->dst[ea[e]][t->outdeg[ea[e]]++] = eb[e];
        t->src[eb[e]][t->indeg[eb[e]]++] = ea[e];
    }
    for (int q = 0; q < n; ++q) {
        shuffle_ints(r, t->src[q], t->indeg[q]);
        shuffle_ints(r, t->dst[q], t->outdeg[q]);
    }
    snprintf(t->desc, sizeof(t->desc), "dist_graph of %d edges%s", ne,
             weighted ? ", weighted" : "");
    free(ea);
    free(eb);
}

hf_topo_t *hf_topo_make(int kind, int n, uint64_t seed)
{
    hf_topo_t *t = topo_alloc(kind, n);
    hf_rng_t r = hf_stream(seed, 11);
    switch (kind) {
    case TOPO_CART: cart_make(t, &r); break;
    case TOPO_GRAPH: graph_make(t, &r); break;
    default: dist_make(t, &r); break;
    }
    return t;
}

int hf_topo_sender_block(const hf_topo_t *t, int r, int i)
{
    int q = t->src[r][i];
    if (q < 0) {
        return -1;
    }
    if (TOPO_CART == t->kind) {
        return i ^ 1; /* what q sent to its neighbor in the other direction */
    }
    int k = 0;
    for (int ii = 0; ii < i; ++ii) {
        k += t->src[r][ii] == q;
    }
    for (int j = 0; j < t->outdeg[q]; ++j) {
        if (t->dst[q][j] == r && 0 == k--) {
            return j;
        }
    }
    return -2; /* (inconsistent lists: the generator's bug) */
}

static bool same_ints(const int *a, const int *b, int n)
{
    return 0 == n || 0 == memcmp(a, b, sizeof(int) * (size_t) n);
}

MPI_Comm hf_topo_comm(const hf_topo_t *t, MPI_Comm base, char *err, size_t errlen)
{
    MPI_Comm c = MPI_COMM_NULL;
    int me;
    MPI_Comm_rank(base, &me);
    err[0] = '\0';
    if (TOPO_CART == t->kind) {
        MPI_Cart_create(base, t->nd, t->dims, t->periods, 0, &c);
    } else if (TOPO_GRAPH == t->kind) {
        int *index = hf_alloc(sizeof(int) * (size_t) t->n), ne = 0;
        for (int q = 0; q < t->n; ++q) {
            ne += t->indeg[q];
            index[q] = ne;
        }
        int *edges = hf_alloc(sizeof(int) * (size_t) (ne + 1));
        for (int q = 0, at = 0; q < t->n; ++q) {
            memcpy(edges + at, t->src[q], sizeof(int) * (size_t) t->indeg[q]);
            at += t->indeg[q];
        }
        MPI_Graph_create(base, t->n, index, edges, 0, &c);
        free(index);
        free(edges);
    } else {
        MPI_Dist_graph_create_adjacent(base, t->indeg[me], t->src[me],
                                       t->weights_in ? t->weights_in[me] : MPI_UNWEIGHTED,
                                       t->outdeg[me], t->dst[me],
                                       t->weights_out ? t->weights_out[me] : MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &c);
    }
    /* MPI's lists must be the ones computed here (the reference uses them) */
    int cap = t->indeg[me] + t->outdeg[me] + 8;
    int *s = hf_alloc(sizeof(int) * (size_t) cap), *d = hf_alloc(sizeof(int) * (size_t) cap);
    int *w = hf_alloc(sizeof(int) * (size_t) cap);
    int in = 0, out = 0, weighted = 0;
    if (TOPO_CART == t->kind) {
        in = out = 2 * t->nd;
        for (int k = 0; k < t->nd; ++k) {
            MPI_Cart_shift(c, k, 1, &s[2 * k], &s[2 * k + 1]);
            d[2 * k] = s[2 * k];
            d[2 * k + 1] = s[2 * k + 1];
        }
    } else if (TOPO_GRAPH == t->kind) {
        MPI_Graph_neighbors_count(c, me, &in);
        out = in;
        if (in <= cap) {
            MPI_Graph_neighbors(c, me, in, s);
            memcpy(d, s, sizeof(int) * (size_t) in);
        }
    } else {
        MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
        if (in == t->indeg[me] && out == t->outdeg[me]) {
            MPI_Dist_graph_neighbors(c, in, s, w, out, d, w + in);
        }
    }
    if (in != t->indeg[me] || out != t->outdeg[me] || !same_ints(s, t->src[me], in)
        || !same_ints(d, t->dst[me], out)) {
        snprintf(err, errlen, "MPI's neighbor lists of rank %d differ from the topology's (%s)",
                 me, t->desc);
    }
    free(s);
    free(d);
    free(w);
    return c;
}

/* ------------------------------------------------------------------ */
/* intercommunicators                                                   */
/* ------------------------------------------------------------------ */

void hf_groups_make(hf_groups_t *g, int n, uint64_t mask, int key_rev)
{
    memset(g, 0, sizeof(*g));
    g->n = n;
    g->grp = hf_alloc(sizeof(int) * (size_t) n);
    g->lrank = hf_alloc(sizeof(int) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        g->grp[i] = (int) ((mask >> (i % 64)) & 1);
    }
    int n1 = 0;
    for (int i = 0; i < n; ++i) {
        n1 += g->grp[i];
    }
    if (0 == n1) {
        g->grp[n - 1] = 1;
    } else if (n == n1) {
        g->grp[0] = 0;
    }
    for (int k = 0; k < 2; ++k) {
        g->member[k] = hf_alloc(sizeof(int) * (size_t) n);
        g->ng[k] = 0;
    }
    /* local ranks in base order, or reversed */
    for (int s = 0; s < n; ++s) {
        int i = key_rev ? n - 1 - s : s;
        int k = g->grp[i];
        g->lrank[i] = g->ng[k];
        g->member[k][g->ng[k]++] = i;
    }
}

void hf_groups_free(hf_groups_t *g)
{
    free(g->grp);
    free(g->lrank);
    free(g->member[0]);
    free(g->member[1]);
    memset(g, 0, sizeof(*g));
}

MPI_Comm hf_inter_comm(const hf_groups_t *g, MPI_Comm base)
{
    int me;
    MPI_Comm_rank(base, &me);
    MPI_Comm local, inter;
    MPI_Comm_split(base, g->grp[me], g->lrank[me], &local);
    int remote_leader = g->member[1 - g->grp[me]][0];
    MPI_Intercomm_create(local, 0, base, remote_leader, 7071, &inter);
    MPI_Comm_free(&local);
    return inter;
}

/* ------------------------------------------------------------------ */
/* decomposition criteria                                               */
/* ------------------------------------------------------------------ */

void hf_crit_value(int crit, uint64_t seed, int n, char *buf, size_t len)
{
    hf_rng_t r = hf_stream(seed, 13);
    buf[0] = '\0';
    switch (crit) {
    case CR_BLOCK:
        snprintf(buf, len, "block:%d", 1 + (int) hf_below(&r, (uint64_t) (n > 1 ? n : 1)));
        break;
    case CR_NONE: snprintf(buf, len, "none"); break;
    case CR_NODE: snprintf(buf, len, "node"); break;
    case CR_LIST: {
        /* a random partition of the n ranks into 1..n parts, listed with
         * '+' and ranges */
        int parts = 1 + (int) hf_below(&r, (uint64_t) n);
        int *of = hf_alloc(sizeof(int) * (size_t) n);
        for (int i = 0; i < n; ++i) {
            of[i] = i < parts ? i : (int) hf_below(&r, (uint64_t) parts);
        }
        /* (the first `parts` ranks seed each part; shuffle the seeds) */
        for (int i = parts - 1; i > 0; --i) {
            int j = (int) hf_below(&r, (uint64_t) i + 1), t = of[i];
            of[i] = of[j];
            of[j] = t;
        }
        int w = snprintf(buf, len, "list:");
        for (int p = 0; p < parts && (size_t) w < len; ++p) {
            bool first = true;
            for (int i = 0; i < n && (size_t) w < len; ++i) {
                if (of[i] != p) {
                    continue;
                }
                int j = i;
                while (j + 1 < n && of[j + 1] == p) {
                    ++j;
                }
                if (j > i + 1) {
                    w += snprintf(buf + w, len - (size_t) w, "%s%d-%d", first ? "" : "+", i, j);
                    i = j;
                } else {
                    w += snprintf(buf + w, len - (size_t) w, "%s%d", first ? "" : "+", i);
                }
                first = false;
            }
            if (p + 1 < parts && (size_t) w < len) {
                w += snprintf(buf + w, len - (size_t) w, ",");
            }
        }
        free(of);
        break;
    }
    default: break;
    }
}
