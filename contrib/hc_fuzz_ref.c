/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz's serial reference: what MPI says every receive buffer holds
 * after a call, computed in each process from every rank's arguments and
 * inputs (hc_fuzz_layout.c knows them all) by MPI's definitions alone:
 * data moved scalar by scalar from the sender's typemap into the
 * receiver's (so holes stay as they were), reductions folded in rank
 * order with the fuzzer's own user ops and its own predefined ops
 * (hc_fuzz_types.c), MPI_IN_PLACE, intercommunicators (each group gets
 * the other's data), topologies (Cartesian blocks by direction, repeated
 * graph edges in the order of the lists, MPI_PROC_NULL blocks untouched).
 * No MPI call moves data here: no collective of any library is the
 * reference.
 *
 * Every transfer reads its source before any result is written (a call's
 * inputs are its buffers before it), so MPI_IN_PLACE needs no copies.
 * Only this process' results are computed, unless a repeated in-place
 * call feeds every rank's results into its next inputs.
 */
#include "hc_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int dst, buf;
    long disp, count;
    const hf_map_t *m;
    unsigned char *data;
} wr_t;

typedef struct {
    hf_inst_t *x;
    bool all;          /* every rank's results (else this process' only) */
    wr_t *w;
    int nw, cap;
} sim_t;

static bool wanted(const sim_t *s, int dst)
{
    return s->all || dst == s->x->me;
}

static void fatal(const hf_inst_t *x, const char *what)
{
    fprintf(stderr, "hc_fuzz: reference: %s (%s)\n", what, x->desc);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static void push(sim_t *s, int dst, int buf, long disp, long count, const hf_map_t *m,
                 unsigned char *data)
{
    if (s->nw == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        wr_t *nw = hf_alloc(sizeof(wr_t) * (size_t) s->cap);
        if (s->nw) {
            memcpy(nw, s->w, sizeof(wr_t) * (size_t) s->nw);
        }
        free(s->w);
        s->w = nw;
    }
    s->w[s->nw++] = (wr_t){dst, buf, disp, count, m, data};
}

/* the map of a type handle of the call */
static const hf_map_t *map_of(const hf_inst_t *x, MPI_Datatype t)
{
    if (t == x->ty.T) {
        return x->ty.mt;
    }
    if (MPI_DATATYPE_NULL != x->ty.P && t == x->ty.P) {
        return x->ty.mp;
    }
    fatal(x, "a datatype of the call is neither the case's nor its receive type");
    return NULL;
}

/* scount elements of sm at byte sdisp of rank src's buffer sbuf go to
 * rcount elements of rm at byte rdisp of rank dst's receive buffer */
static void mv(sim_t *s, int src, int sbuf, long sdisp, long scount, const hf_map_t *sm, int dst,
               long rdisp, long rcount, const hf_map_t *rm)
{
    if (!wanted(s, dst)) {
        return;
    }
    long bytes = scount * sm->size;
    if (bytes != rcount * rm->size) {
        char why[200];
        snprintf(why, sizeof(why), "rank %d sends %ld bytes, rank %d receives %ld", src, bytes,
                 dst, rcount * rm->size);
        fatal(s->x, why);
    }
    if (0 == bytes) {
        return;
    }
    hf_rank_t *S = hf_rank(s->x, src);
    unsigned char *data = hf_alloc((size_t) bytes);
    hf_pack(S->b[sbuf].org[1] + sdisp, scount, sm, data);
    push(s, dst, 1, rdisp, rcount, rm, data);
}

/* rank j's reduction input, packed */
static unsigned char *input(sim_t *s, int j, long count)
{
    hf_rank_t *k = hf_rank(s->x, j);
    const hf_map_t *m = s->x->ty.mt;
    unsigned char *p = hf_alloc((size_t) (count * m->size) + 1);
    hf_pack(k->b[k->inbuf].org[1], count, m, p);
    return p;
}

/* acc = acc (op) in, in rank order: acc holds the lower ranks' fold */
static void fold(const hf_inst_t *x, unsigned char *acc, const unsigned char *in, long count,
                 unsigned char *tmp)
{
    long bytes = count * x->ty.mt->size;
    memcpy(tmp, in, (size_t) bytes);
    hf_reduce_packed(x->cs.op, x->ty.mt, acc, tmp, count); /* tmp = acc o in */
    memcpy(acc, tmp, (size_t) bytes);
}

/* the fold of the ranks listed, count elements each (NULL when none) */
static unsigned char *fold_list(sim_t *s, const int *ranks, int nr, long count)
{
    if (nr <= 0) {
        return NULL;
    }
    long bytes = count * s->x->ty.mt->size;
    unsigned char *acc = input(s, ranks[0], count), *tmp = hf_alloc((size_t) bytes + 1);
    for (int i = 1; i < nr; ++i) {
        unsigned char *in = input(s, ranks[i], count);
        fold(s->x, acc, in, count, tmp);
        free(in);
    }
    free(tmp);
    return acc;
}

static void result(sim_t *s, int dst, long disp, long count, const unsigned char *acc)
{
    if (!wanted(s, dst) || count <= 0) {
        return;
    }
    const hf_map_t *m = s->x->ty.mt;
    unsigned char *d = hf_alloc((size_t) (count * m->size));
    memcpy(d, acc, (size_t) (count * m->size));
    push(s, dst, 1, disp, count, m, d);
    if (dst == s->x->me && s->x->cs.op < OP_USER_COMM) {
        /* predefined ops: a long double's padding is the op's own */
        hbuf_t *b = &hf_rank(s->x, dst)->b[1];
        b->res_disp = disp;
        b->res_count = count;
    }
}

static bool ip_send(const hf_call_t *a)
{
    return MPI_IN_PLACE == a->sb;
}

static void sim_intra(sim_t *s)
{
    hf_inst_t *x = s->x;
    int n = x->n, root = x->root;
    const hf_map_t *mt = x->ty.mt, *mr = x->ty.mp;
#define A(j) (&hf_rank(x, j)->a)
    switch (x->cs.coll) {
    case C_BARRIER: break;
    case C_BCAST:
        for (int r = 0; r < n; ++r) {
            if (r != root && wanted(s, r)) {
                mv(s, root, 1, 0, A(root)->rcount, map_of(x, A(root)->rtype), r, 0, A(r)->rcount,
                   map_of(x, A(r)->rtype));
            }
        }
        break;
    case C_GATHER:
        if (wanted(s, root)) {
            const hf_call_t *ar = A(root);
            for (int j = 0; j < n; ++j) {
                if (j == root && ip_send(ar)) {
                    continue;
                }
                mv(s, j, 0, 0, A(j)->scount, mt, root, (long) j * ar->rcount * mr->ext, ar->rcount,
                   mr);
            }
        }
        break;
    case C_SCATTER:
        for (int j = 0; j < n; ++j) {
            if (!wanted(s, j) || (j == root && MPI_IN_PLACE == A(root)->rb)) {
                continue;
            }
            const hf_call_t *ar = A(root);
            mv(s, root, 0, (long) j * ar->scount * mt->ext, ar->scount, mt, j, 0, A(j)->rcount, mr);
        }
        break;
    case C_ALLGATHER:
    case C_ALLGATHERV:
        for (int r = 0; r < n; ++r) {
            if (!wanted(s, r)) {
                continue;
            }
            const hf_call_t *ar = A(r);
            bool v = C_ALLGATHERV == x->cs.coll;
            for (int j = 0; j < n; ++j) {
                if (j == r && ip_send(ar)) {
                    continue;
                }
                const hf_call_t *aj = A(j);
                long rd = v ? (long) ar->rdispls[j] * mr->ext : (long) j * ar->rcount * mr->ext;
                long rc = v ? ar->rcounts[j] : ar->rcount;
                if (ip_send(aj)) {
                    long sd = v ? (long) aj->rdispls[j] * mr->ext : (long) j * aj->rcount * mr->ext;
                    long sc = v ? aj->rcounts[j] : aj->rcount;
                    mv(s, j, 1, sd, sc, mr, r, rd, rc, mr);
                } else {
                    mv(s, j, 0, 0, aj->scount, mt, r, rd, rc, mr);
                }
            }
        }
        break;
    case C_ALLTOALL:
        for (int r = 0; r < n; ++r) {
            if (!wanted(s, r)) {
                continue;
            }
            const hf_call_t *ar = A(r);
            for (int j = 0; j < n; ++j) {
                const hf_call_t *aj = A(j);
                if (ip_send(aj)) {
                    mv(s, j, 1, (long) r * aj->rcount * mr->ext, aj->rcount, mr, r,
                       (long) j * ar->rcount * mr->ext, ar->rcount, mr);
                } else {
                    mv(s, j, 0, (long) r * aj->scount * mt->ext, aj->scount, mt, r,
                       (long) j * ar->rcount * mr->ext, ar->rcount, mr);
                }
            }
        }
        break;
    case C_GATHERV:
        if (wanted(s, root)) {
            const hf_call_t *ar = A(root);
            for (int j = 0; j < n; ++j) {
                if (j == root && ip_send(ar)) {
                    continue;
                }
                mv(s, j, 0, 0, A(j)->scount, mt, root, (long) ar->rdispls[j] * mr->ext,
                   ar->rcounts[j], mr);
            }
        }
        break;
    case C_SCATTERV:
        for (int j = 0; j < n; ++j) {
            if (!wanted(s, j) || (j == root && MPI_IN_PLACE == A(root)->rb)) {
                continue;
            }
            const hf_call_t *ar = A(root);
            mv(s, root, 0, (long) ar->sdispls[j] * mt->ext, ar->scounts[j], mt, j, 0, A(j)->rcount,
               mr);
        }
        break;
    case C_ALLTOALLV:
    case C_ALLTOALLW: {
        bool w = C_ALLTOALLW == x->cs.coll;
        for (int r = 0; r < n; ++r) {
            if (!wanted(s, r)) {
                continue;
            }
            const hf_call_t *ar = A(r);
            for (int j = 0; j < n; ++j) {
                const hf_call_t *aj = A(j);
                const hf_map_t *rm = w ? map_of(x, ar->rtypes[j]) : mr;
                long rd = w ? ar->rdispls[j] : (long) ar->rdispls[j] * rm->ext;
                if (ip_send(aj)) {
                    const hf_map_t *sm = w ? map_of(x, aj->rtypes[r]) : mr;
                    long sd = w ? aj->rdispls[r] : (long) aj->rdispls[r] * sm->ext;
                    mv(s, j, 1, sd, aj->rcounts[r], sm, r, rd, ar->rcounts[j], rm);
                } else {
                    const hf_map_t *sm = w ? map_of(x, aj->stypes[r]) : mt;
                    long sd = w ? aj->sdispls[r] : (long) aj->sdispls[r] * sm->ext;
                    mv(s, j, 0, sd, aj->scounts[r], sm, r, rd, ar->rcounts[j], rm);
                }
            }
        }
        break;
    }
    case C_ALLREDUCE:
    case C_REDUCE:
    case C_SCAN:
    case C_EXSCAN: {
        long c = x->c, bytes = c * mt->size;
        int coll = x->cs.coll;
        if (C_ALLREDUCE == coll || C_REDUCE == coll) {
            bool any = false;
            for (int r = 0; r < n; ++r) {
                any |= wanted(s, r) && (C_ALLREDUCE == coll || r == root);
            }
            if (!any) {
                break;
            }
            int *all = hf_alloc(sizeof(int) * (size_t) n);
            for (int j = 0; j < n; ++j) {
                all[j] = j;
            }
            unsigned char *acc = fold_list(s, all, n, c);
            for (int r = 0; r < n; ++r) {
                if (C_ALLREDUCE == coll || r == root) {
                    result(s, r, 0, c, acc);
                }
            }
            free(acc);
            free(all);
            break;
        }
        /* prefixes: rank r's input read before r's result is written */
        unsigned char *acc = NULL, *tmp = hf_alloc((size_t) bytes + 1);
        for (int r = 0; r < n; ++r) {
            unsigned char *in = input(s, r, c);
            if (C_EXSCAN == coll && r > 0) {
                result(s, r, 0, c, acc);
            }
            if (NULL == acc) {
                acc = in;
            } else {
                fold(x, acc, in, c, tmp);
                free(in);
            }
            if (C_SCAN == coll) {
                result(s, r, 0, c, acc);
            }
        }
        free(acc);
        free(tmp);
        break;
    }
    case C_REDUCE_SCATTER_BLOCK:
    case C_REDUCE_SCATTER: {
        const hf_call_t *a0 = A(0);
        long tot = 0;
        for (int j = 0; j < n; ++j) {
            tot += a0->rcounts[j];
        }
        int *all = hf_alloc(sizeof(int) * (size_t) n);
        for (int j = 0; j < n; ++j) {
            all[j] = j;
        }
        unsigned char *acc = fold_list(s, all, n, tot);
        long off = 0;
        for (int r = 0; r < n; ++r) {
            result(s, r, 0, a0->rcounts[r], acc + off * mt->size);
            off += a0->rcounts[r];
        }
        free(acc);
        free(all);
        break;
    }
    default: break;
    }
#undef A
}

static void sim_inter(sim_t *s)
{
    hf_inst_t *x = s->x;
    const hf_groups_t *G = &x->grp;
    const hf_map_t *mt = x->ty.mt, *mr = x->ty.mp;
    int rootidx = G->member[x->root_grp][x->root];
#define A(j) (&hf_rank(x, j)->a)
    int coll = x->cs.coll;
    for (int i = 0; i < x->n; ++i) {
        if (!wanted(s, i)) {
            continue;
        }
        int g = G->grp[i], l = G->lrank[i], o = 1 - g, nr = G->ng[o];
        const int *remote = G->member[o];
        const hf_call_t *ai = A(i);
        bool is_root = i == rootidx, other = g != x->root_grp;
        switch (coll) {
        case C_BCAST:
            if (other) {
                const hf_call_t *ar = A(rootidx);
                mv(s, rootidx, 1, 0, ar->rcount, map_of(x, ar->rtype), i, 0, ai->rcount,
                   map_of(x, ai->rtype));
            }
            break;
        case C_GATHER:
        case C_GATHERV:
            if (is_root) {
                for (int j = 0; j < nr; ++j) {
                    const hf_call_t *aj = A(remote[j]);
                    long rd = C_GATHER == coll ? (long) j * ai->rcount * mr->ext
                                               : (long) ai->rdispls[j] * mr->ext;
                    long rc = C_GATHER == coll ? ai->rcount : ai->rcounts[j];
                    mv(s, remote[j], 0, 0, aj->scount, mt, i, rd, rc, mr);
                }
            }
            break;
        case C_SCATTER:
        case C_SCATTERV:
            if (other) {
                const hf_call_t *ar = A(rootidx);
                long sd = C_SCATTER == coll ? (long) l * ar->scount * mt->ext
                                            : (long) ar->sdispls[l] * mt->ext;
                long sc = C_SCATTER == coll ? ar->scount : ar->scounts[l];
                mv(s, rootidx, 0, sd, sc, mt, i, 0, ai->rcount, mr);
            }
            break;
        case C_ALLGATHER:
        case C_ALLGATHERV:
            for (int j = 0; j < nr; ++j) {
                const hf_call_t *aj = A(remote[j]);
                long rd = C_ALLGATHER == coll ? (long) j * ai->rcount * mr->ext
                                              : (long) ai->rdispls[j] * mr->ext;
                long rc = C_ALLGATHER == coll ? ai->rcount : ai->rcounts[j];
                mv(s, remote[j], 0, 0, aj->scount, mt, i, rd, rc, mr);
            }
            break;
        case C_ALLTOALL:
            for (int j = 0; j < nr; ++j) {
                const hf_call_t *aj = A(remote[j]);
                mv(s, remote[j], 0, (long) l * aj->scount * mt->ext, aj->scount, mt, i,
                   (long) j * ai->rcount * mr->ext, ai->rcount, mr);
            }
            break;
        case C_ALLTOALLV:
        case C_ALLTOALLW: {
            bool w = C_ALLTOALLW == coll;
            for (int j = 0; j < nr; ++j) {
                const hf_call_t *aj = A(remote[j]);
                const hf_map_t *sm = w ? map_of(x, aj->stypes[l]) : mt;
                const hf_map_t *rm = w ? map_of(x, ai->rtypes[j]) : mr;
                long sd = w ? aj->sdispls[l] : (long) aj->sdispls[l] * sm->ext;
                long rd = w ? ai->rdispls[j] : (long) ai->rdispls[j] * rm->ext;
                mv(s, remote[j], 0, sd, aj->scounts[l], sm, i, rd, ai->rcounts[j], rm);
            }
            break;
        }
        case C_ALLREDUCE:
        case C_REDUCE:
            if (C_ALLREDUCE == coll || is_root) {
                long c = x->c;
                unsigned char *acc = fold_list(s, remote, nr, c);
                if (acc) {
                    result(s, i, 0, c, acc);
                }
                free(acc);
            }
            break;
        case C_REDUCE_SCATTER_BLOCK:
        case C_REDUCE_SCATTER: {
            /* the other group's fold of the whole vector, cut among this group */
            long tot = hf_rank(x, remote[0])->in_elems, off = 0;
            unsigned char *acc = fold_list(s, remote, nr, tot);
            if (C_REDUCE_SCATTER_BLOCK == coll) {
                off = (long) l * ai->rcount;
                result(s, i, 0, ai->rcount, acc ? acc + off * mt->size : NULL);
            } else {
                for (int q = 0; q < l; ++q) {
                    off += ai->rcounts[q];
                }
                result(s, i, 0, ai->rcounts[l], acc ? acc + off * mt->size : NULL);
            }
            free(acc);
            break;
        }
        default: break;
        }
    }
#undef A
}

static void sim_neighbor(sim_t *s)
{
    hf_inst_t *x = s->x;
    const hf_topo_t *t = x->topo;
    const hf_map_t *mt = x->ty.mt, *mr = x->ty.mp;
    int coll = x->cs.coll;
    for (int r = 0; r < x->n; ++r) {
        if (!wanted(s, r)) {
            continue;
        }
        const hf_call_t *ar = &hf_rank(x, r)->a;
        for (int k = 0; k < t->indeg[r]; ++k) {
            int q = t->src[r][k], e = hf_topo_sender_block(t, r, k);
            if (q < 0) {
                continue; /* MPI_PROC_NULL: the block stays as it was */
            }
            if (e < 0) {
                fatal(x, "the topology's lists are inconsistent");
            }
            const hf_call_t *aq = &hf_rank(x, q)->a;
            switch (coll) {
            case C_NB_ALLGATHER:
                mv(s, q, 0, 0, aq->scount, mt, r, (long) k * ar->rcount * mr->ext, ar->rcount, mr);
                break;
            case C_NB_ALLGATHERV:
                mv(s, q, 0, 0, aq->scount, mt, r, (long) ar->rdispls[k] * mr->ext, ar->rcounts[k],
                   mr);
                break;
            case C_NB_ALLTOALL:
                mv(s, q, 0, (long) e * aq->scount * mt->ext, aq->scount, mt, r,
                   (long) k * ar->rcount * mr->ext, ar->rcount, mr);
                break;
            case C_NB_ALLTOALLV:
                mv(s, q, 0, (long) aq->sdispls[e] * mt->ext, aq->scounts[e], mt, r,
                   (long) ar->rdispls[k] * mr->ext, ar->rcounts[k], mr);
                break;
            default: {
                const hf_map_t *sm = map_of(x, aq->stypes[e]), *rm = map_of(x, ar->rtypes[k]);
                mv(s, q, 0, aq->sdispls_a[e], aq->scounts[e], sm, r, ar->rdispls_a[k],
                   ar->rcounts[k], rm);
                break;
            }
            }
        }
    }
}

static void sim_once(hf_inst_t *x, bool all)
{
    sim_t s = {x, all, NULL, 0, 0};
    switch (x->fam) {
    case FAM_INTER: sim_inter(&s); break;
    case FAM_NEIGHBOR: sim_neighbor(&s); break;
    default: sim_intra(&s); break;
    }
    for (int i = 0; i < s.nw; ++i) {
        wr_t *w = &s.w[i];
        hf_unpack(hf_rank(x, w->dst)->b[w->buf].org[1] + w->disp, w->count, w->m, w->data);
        free(w->data);
    }
    free(s.w);
}

void hf_reference(hf_inst_t *x)
{
    if (x->me < 0) {
        return;
    }
    (void) hf_rank(x, x->me);
    /* a repeated in-place call reads every rank's last results */
    bool all = x->in_place && x->reps > 1;
    int times = all ? x->reps : 1;
    for (int t = 0; t < times; ++t) {
        sim_once(x, all);
    }
}
