/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition, MPI-free: criteria, parts and leaders, packed layouts
 * (see coll_hiercoll_plan_decomp.h).
 */
#include "coll_hiercoll_plan_decomp.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hcp_level_names[HCP_NLEVELS] = {
    [HCP_LEVEL_NODE] = "node", [HCP_LEVEL_BOARD] = "board", [HCP_LEVEL_NUMA] = "numa",
    [HCP_LEVEL_SOCKET] = "socket", [HCP_LEVEL_L3] = "l3", [HCP_LEVEL_L2] = "l2",
    [HCP_LEVEL_L1] = "l1", [HCP_LEVEL_CORE] = "core", [HCP_LEVEL_HWTHREAD] = "hwthread",
};

/* Lists beyond this many ranks are surely typing errors. */
#define HCP_LIST_MAX_RANKS (1 << 24)

/* ------------------------------------------------------------------ */
/* Criteria                                                             */
/* ------------------------------------------------------------------ */

/* A non-negative decimal at *s, advancing *s; -1 when there is none. */
static long parse_number(const char **s)
{
    if (**s < '0' || **s > '9') {
        return -1;
    }
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (0 != errno || v > INT_MAX) {
        return -1;
    }
    *s = end;
    return v;
}

/* Parse the rank ranges of "list:..." into part_of[] (grown as needed);
 * returns 0 or -1 with why. */
static int parse_list(const char *s, hcp_criterion_t *c, char *why, size_t whylen)
{
    int cap = 0, part = 0;
    const char *at = s;
    for (;;) {
        long lo = parse_number(&at), hi = lo;
        if ('-' == *at) {
            ++at;
            hi = parse_number(&at);
        }
        if (lo < 0 || hi < lo || hi >= HCP_LIST_MAX_RANKS) {
            snprintf(why, whylen, "bad rank range at \"%s\" (want N or N-M, N <= M)", s + (at - s));
            return -1;
        }
        if (hi >= cap) {
            int ncap = (int) hi + 1 > 2 * cap ? (int) hi + 1 : 2 * cap;
            int *grown = realloc(c->part_of, sizeof(int) * (size_t) ncap);
            if (NULL == grown) {
                snprintf(why, whylen, "out of memory");
                return -1;
            }
            for (int r = cap; r < ncap; ++r) {
                grown[r] = -1;
            }
            c->part_of = grown;
            cap = ncap;
        }
        for (long r = lo; r <= hi; ++r) {
            if (c->part_of[r] >= 0) {
                snprintf(why, whylen, "rank %ld is in two parts", r);
                return -1;
            }
            c->part_of[r] = part;
        }
        if (hi + 1 > c->nranks) {
            c->nranks = (int) hi + 1;
        }
        if ('+' == *at) {
            ++at;
        } else if (',' == *at) {
            ++at;
            ++part;
        } else if ('\0' == *at) {
            break;
        } else {
            snprintf(why, whylen, "unexpected \"%c\" (parts are separated by ',', ranges within "
                                  "a part joined by '+')", *at);
            return -1;
        }
    }
    for (int r = 0; r < c->nranks; ++r) {
        if (c->part_of[r] < 0) {
            snprintf(why, whylen, "rank %d is in no part (the parts must cover 0-%d)", r,
                     c->nranks - 1);
            return -1;
        }
    }
    return 0;
}

static int parse(const char *s, hcp_criterion_t *c, char *why, size_t whylen)
{
    if (0 == strcmp(s, "none")) {
        return 0;
    }
    for (int l = 0; l < HCP_NLEVELS; ++l) {
        if (0 == strcmp(s, hcp_level_names[l])) {
            c->kind = HCP_CRIT_LEVEL;
            c->level = (hcp_level_t) l;
            return 0;
        }
    }
    if (0 == strncmp(s, "block:", 6)) {
        const char *at = s + 6;
        long k = parse_number(&at);
        if (k < 1 || '\0' != *at) {
            snprintf(why, whylen, "block:K wants a whole number K >= 1");
            return -1;
        }
        c->kind = HCP_CRIT_BLOCK;
        c->block = (int) k;
        return 0;
    }
    if (0 == strncmp(s, "list:", 5)) {
        c->kind = HCP_CRIT_LIST;
        return parse_list(s + 5, c, why, whylen);
    }
    snprintf(why, whylen, "unknown criterion (one of: none, node, board, numa, socket, l3, l2, "
                          "l1, core, hwthread, block:K, list:0-3,4-7,...)");
    return -1;
}

int hcp_criterion_parse(const char *s, hcp_criterion_t *c, char *why, size_t whylen)
{
    memset(c, 0, sizeof(*c));
    c->kind = HCP_CRIT_NONE;
    if (NULL == s) {
        s = "none";
    }
    if (0 != parse(s, c, why, whylen)) {
        hcp_criterion_fini(c);
        return -1;
    }
    return 0;
}

void hcp_criterion_fini(hcp_criterion_t *c)
{
    free(c->part_of);
    memset(c, 0, sizeof(*c));
    c->kind = HCP_CRIT_NONE;
}

int hcp_criterion_keys(const hcp_criterion_t *c, int n, int *keys)
{
    switch (c->kind) {
    case HCP_CRIT_BLOCK:
        for (int r = 0; r < n; ++r) {
            keys[r] = r / c->block;
        }
        return 1;
    case HCP_CRIT_LIST:
        if (c->nranks != n) {
            return -1;
        }
        memcpy(keys, c->part_of, sizeof(int) * (size_t) n);
        return 1;
    case HCP_CRIT_LEVEL:
        return 0;
    default:
        return -1;
    }
}

/* ------------------------------------------------------------------ */
/* Parts                                                                */
/* ------------------------------------------------------------------ */

typedef struct keyed {
    int key, rank;
} keyed_t;

static int by_key_then_rank(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->key != y->key) {
        return x->key < y->key ? -1 : 1;
    }
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

int hcp_decomp_build(hcp_decomp_t *d, int n, const int *keys)
{
    memset(d, 0, sizeof(*d));
    d->n = n;
    keyed_t *kr = malloc(sizeof(keyed_t) * (size_t) n);
    int *leader_of = malloc(sizeof(int) * (size_t) n);
    d->part = malloc(sizeof(int) * (size_t) n);
    d->index = malloc(sizeof(int) * (size_t) n);
    d->member = malloc(sizeof(int) * (size_t) n);
    d->start = calloc((size_t) n + 1, sizeof(int));
    if (NULL == kr || NULL == leader_of || NULL == d->part || NULL == d->index
        || NULL == d->member || NULL == d->start) {
        free(kr);
        free(leader_of);
        hcp_decomp_fini(d);
        return -1;
    }
    /* The lowest rank of each key's group leads it. */
    for (int r = 0; r < n; ++r) {
        kr[r] = (keyed_t){keys[r], r};
    }
    qsort(kr, (size_t) n, sizeof(keyed_t), by_key_then_rank);
    for (int i = 0; i < n; ++i) {
        bool first = 0 == i || kr[i].key != kr[i - 1].key;
        leader_of[kr[i].rank] = first ? kr[i].rank : leader_of[kr[i - 1].rank];
    }
    free(kr);
    /* Parts are numbered by their leaders' ranks; members fill in in rank
     * order. */
    for (int r = 0; r < n; ++r) {
        if (leader_of[r] == r) {
            d->part[r] = d->nparts++;
        } else {
            d->part[r] = d->part[leader_of[r]];
        }
        d->index[r] = d->start[d->part[r] + 1]++;
    }
    free(leader_of);
    d->contiguous = true;
    for (int p = 0; p < d->nparts; ++p) {
        if (d->start[p + 1] > d->max_size) {
            d->max_size = d->start[p + 1];
        }
        d->start[p + 1] += d->start[p];
    }
    for (int r = 0; r < n; ++r) {
        d->member[hcp_pos(d, r)] = r;
        if (hcp_pos(d, r) != r) {
            d->contiguous = false;
        }
    }
    return 0;
}

void hcp_decomp_fini(hcp_decomp_t *d)
{
    free(d->part);
    free(d->index);
    free(d->start);
    free(d->member);
    memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------ */
/* Packed layouts                                                       */
/* ------------------------------------------------------------------ */

/* The count and displacement of the range [begin, end) of a buffer, if
 * both fit an int (the MPI calls that move them take ints). */
static bool int_range(int64_t begin, int64_t end, int *count, int *displ)
{
    if (end - begin > INT_MAX || begin > INT_MAX) {
        return false;
    }
    *count = (int) (end - begin);
    *displ = (int) begin;
    return true;
}

int64_t hcp_pack_layout(const hcp_decomp_t *d, const int *counts, int64_t count, size_t unit,
                        int skip, int64_t *off, int *pcount, int *pdispl)
{
    int64_t total = 0;
    for (int p = 0; p < d->nparts; ++p) {
        int64_t begin = total;
        for (int x = d->start[p]; x < d->start[p + 1]; ++x) {
            int r = d->member[x];
            if (p == skip) {
                if (NULL != off) {
                    off[r] = -1;
                }
                continue;
            }
            if (NULL != off) {
                off[r] = total;
            }
            total += (NULL != counts ? counts[r] : count) * (int64_t) unit;
        }
        int c, at;
        if (!int_range(begin, total, &c, &at)) {
            return -1;
        }
        if (NULL != pcount) {
            pcount[p] = c;
            pdispl[p] = at;
        }
    }
    return total;
}

int64_t hcp_prefix(int k, const int *counts, int *displs)
{
    int64_t total = 0;
    for (int i = 0; i < k; ++i) {
        if (total > INT_MAX) {
            return -1;
        }
        displs[i] = (int) total;
        total += counts[i];
    }
    return total;
}

/* ------------------------------------------------------------------ */
/* All-to-all in four steps                                             */
/* ------------------------------------------------------------------ */

void hcp_a2a_fini(hcp_a2a_t *a)
{
    free(a->gcount);
    free(a->scount);
    free(a->ocount);
    free(a->out);
    free(a->in);
    memset(a, 0, sizeof(*a));
}

/* Fill counts, displacements and the copies of the leader of part p.
 *
 * The bridge message from part p to part q holds, for each member i of p
 * in order, i's blocks for the members of q in order: a slice of i's
 * packed row in G, so `out` has one copy per (member, part).  On the
 * receiving side a member's block from sender i sits inside i's slice, so
 * `in` has one copy per received block.  Prefix sums keep it O(n * part
 * size): rowp[k][q] is what member k sends to parts before q (the own
 * part excluded), colp[y][k] what the y-th outside sender sends to
 * members before k, slice[y] where its slice starts in R. */
int hcp_a2a_layout(hcp_a2a_t *a, const hcp_decomp_t *d, int p, hcp_pair_bytes_t bytes, void *ctx)
{
    const int np = hcp_part_size(d, p), nq = d->nparts, nout = d->n - np;
    const int *mine = d->member + d->start[p];
    memset(a, 0, sizeof(*a));
    a->gcount = malloc(sizeof(int) * 2 * (size_t) np);
    a->ocount = malloc(sizeof(int) * 2 * (size_t) np);
    a->scount = malloc(sizeof(int) * 4 * (size_t) nq);
    a->out = malloc(sizeof(hcp_copy_t) * (size_t) np * (size_t) nq);
    a->in = malloc(sizeof(hcp_copy_t) * ((size_t) np * (size_t) nout + 1));
    int64_t *rowp = malloc(sizeof(int64_t) * (size_t) np * (size_t) (nq + 1));
    int64_t *colp = malloc(sizeof(int64_t) * ((size_t) nout * (size_t) (np + 1) + 1));
    int64_t *slice = malloc(sizeof(int64_t) * ((size_t) nout + 1));
    int rc = -1;
    if (NULL == a->gcount || NULL == a->ocount || NULL == a->scount || NULL == a->out
        || NULL == a->in || NULL == rowp || NULL == colp || NULL == slice) {
        goto done;
    }
    a->gdispl = a->gcount + np;
    a->odispl = a->ocount + np;
    a->sdispl = a->scount + nq;
    a->rcount = a->scount + 2 * nq;
    a->rdispl = a->scount + 3 * nq;

    /* G: member k's row, its blocks for the other parts in order */
    for (int k = 0; k < np; ++k) {
        int64_t *row = rowp + (size_t) k * (size_t) (nq + 1);
        row[0] = 0;
        for (int q = 0; q < nq; ++q) {
            row[q + 1] = row[q];
            for (int x = d->start[q]; q != p && x < d->start[q + 1]; ++x) {
                row[q + 1] += bytes(mine[k], d->member[x], ctx);
            }
        }
        if (row[nq] > INT_MAX) {
            goto done;
        }
        a->gcount[k] = (int) row[nq];
    }
    if ((a->gbytes = hcp_prefix(np, a->gcount, a->gdispl)) < 0) {
        goto done;
    }
    /* S: to each part, member-major slices of the rows */
    int64_t at = 0;
    for (int q = 0; q < nq; ++q) {
        int64_t begin = at;
        for (int k = 0; k < np; ++k) {
            const int64_t *row = rowp + (size_t) k * (size_t) (nq + 1);
            int64_t len = row[q + 1] - row[q];
            if (len > 0) {
                a->out[a->nout++] = (hcp_copy_t){a->gdispl[k] + row[q], at, len};
            }
            at += len;
        }
        if (!int_range(begin, at, &a->scount[q], &a->sdispl[q])) {
            goto done;
        }
    }
    a->sbytes = at;
    /* R: from each other part, its members' slices for my members */
    at = 0;
    for (int q = 0, y = 0; q < nq; ++q) {
        int64_t begin = at;
        for (int x = d->start[q]; q != p && x < d->start[q + 1]; ++x, ++y) {
            int64_t *col = colp + (size_t) y * (size_t) (np + 1);
            col[0] = 0;
            for (int k = 0; k < np; ++k) {
                col[k + 1] = col[k] + bytes(d->member[x], mine[k], ctx);
            }
            slice[y] = at;
            at += col[np];
        }
        if (!int_range(begin, at, &a->rcount[q], &a->rdispl[q])) {
            goto done;
        }
    }
    a->rbytes = at;
    /* O: for each member, its blocks from outside in decomposition order */
    at = 0;
    for (int k = 0; k < np; ++k) {
        int64_t begin = at;
        for (int y = 0; y < nout; ++y) {
            const int64_t *col = colp + (size_t) y * (size_t) (np + 1);
            int64_t len = col[k + 1] - col[k];
            if (len > 0) {
                a->in[a->nin++] = (hcp_copy_t){slice[y] + col[k], at, len};
            }
            at += len;
        }
        if (at - begin > INT_MAX) {
            goto done;
        }
        a->ocount[k] = (int) (at - begin);
    }
    if ((a->obytes = hcp_prefix(np, a->ocount, a->odispl)) < 0) {
        goto done;
    }
    rc = 0;
done:
    free(rowp);
    free(colp);
    free(slice);
    return rc;
}

int hcp_runs(int n, const int *keys, int cap, int *lead)
{
    int groups = 0;
    for (int r = 0; r < n; ++r) {
        if (0 == r || keys[r] != keys[r - 1] || r - lead[r - 1] >= cap) {
            lead[r] = r;
            ++groups;
        } else {
            lead[r] = lead[r - 1];
        }
    }
    return groups;
}

int hcp_levels(int n, int ncand, const int *keys, int cap, int maxlv, int *up, int *used,
               int *top, int *ntop, int *why)
{
    int *kk = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));
    int *lead = malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));
    int nl = 0, np = n, c = 0;
    if (NULL == kk || NULL == lead) {
        free(kk);
        free(lead);
        return -1;
    }
    for (int r = 0; r < n; ++r) {
        top[r] = r; /* (level nl's ranks, ascending) */
    }
    for (int i = 0; NULL != why && i < ncand; ++i) {
        why[i] = HCP_LV_UNTRIED;
    }
    while (nl < maxlv && np > 1 && (c < ncand || np > cap)) {
        bool hw = c < ncand;
        for (int i = 0; i < np; ++i) {
            kk[i] = hw ? keys[(size_t) c * (size_t) n + (size_t) top[i]] : 0;
        }
        int ng = hcp_runs(np, kk, hw ? cap : (cap > 1 ? cap : 2), lead);
        if (hw) {
            int w = ng == np ? HCP_LV_NONE_MERGED
                    : 1 == ng ? HCP_LV_ALL_MERGED
                    : 2 * ng > np + 1 ? HCP_LV_SHORT_RUNS : HCP_LV_KEPT;
            if (NULL != why) {
                why[c] = w;
            }
            ++c;
            if (HCP_LV_KEPT != w) {
                continue; /* merges none, or all (the top), or short runs */
            }
        }
        for (int r = 0; r < n; ++r) {
            up[(size_t) nl * (size_t) n + (size_t) r] = -1;
        }
        for (int i = 0; i < np; ++i) {
            up[(size_t) nl * (size_t) n + (size_t) top[i]] = top[lead[i]];
        }
        int g = 0;
        for (int i = 0; i < np; ++i) {
            if (lead[i] == i) {
                top[g++] = top[i]; /* (g <= i) */
            }
        }
        used[nl++] = hw ? c - 1 : -1;
        np = g;
    }
    *ntop = np;
    free(kk);
    free(lead);
    return nl;
}
