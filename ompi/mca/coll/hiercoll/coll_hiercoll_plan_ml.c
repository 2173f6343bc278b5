/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Multi-leader decomposition, MPI-free: the model that chooses between
 * one leader per part and every carrier of a part, the bridges'
 * algorithm, and every rank's whole plan of a decomposed collective, for
 * the simulator (the MPI side runs the same pieces on sub-communicators:
 * coll_hiercoll_decomp_ml.c).  See coll_hiercoll_plan_decomp.h and
 * docs/design/multi-leader.md.
 */
#include "coll_hiercoll_plan_decomp.h"

#include <stdlib.h>
#include <string.h>

const char *const hcp_ml_coll_names[HCP_ML_NCOLL] = {"allreduce", "reduce", "bcast", "allgather",
                                                     "reduce_scatter"};
const char *const hcp_lane_names[HCP_LANE_N] = {"ordered", "ring", "rhrd", "chain", "binomial"};

/* A cluster of today: 1.5 us between nodes, 0.3 us per message at each
 * end, 50 ns per message through the node's NIC, a process sends 10 GB/s
 * and the node 25 GB/s (200 Gb/s), 0.5 us per node-level step, 8 GB/s
 * copied and 4 GB/s reduced by one process. */
const hcp_ml_model_t hcp_ml_model_default = {.alpha = 1.5e-6,
                                             .o = 0.3e-6,
                                             .o_nic = 50e-9,
                                             .proc_bw = 10e9,
                                             .nic_bw = 25e9,
                                             .node_alpha = 0.5e-6,
                                             .node_bw = 8e9,
                                             .reduce_bw = 4e9};

/* ------------------------------------------------------------------ */
/* The model                                                            */
/* ------------------------------------------------------------------ */

static int lg(int n)
{
    return n <= 1 ? 0 : hcp_ceil_log2(n);
}

/* Seconds per byte of one of k lanes through a node's network. */
static double per_byte(const hcp_ml_model_t *m, int k)
{
    double proc = 1 / m->proc_bw, nic = k / m->nic_bw;
    return proc > nic ? proc : nic;
}

/* A step between nodes while k lanes run at once. */
static double step(const hcp_ml_model_t *m, int k)
{
    return m->alpha + m->o + (k - 1) * m->o_nic;
}

/* The best number of segments of a chain of n over `bytes`: the S that
 * minimizes (n - 2 + S)(a + bytes B / S), sqrt((n - 2) bytes B / a),
 * within [1, 256] (no libm in the component). */
static int chain_segs(const hcp_ml_model_t *m, int n, int k, int64_t bytes)
{
    if (n <= 2 || bytes <= 0) {
        return 1;
    }
    double want = (n - 2) * (double) bytes * per_byte(m, k) / step(m, k);
    int s = 1;
    while (s < 256 && (double) (s + 1) * (s + 1) <= want) {
        ++s;
    }
    return s;
}

/* One bridge of n parts moving `bytes`, k of them at once. */
static double bridge_time(const hcp_ml_model_t *m, hcp_ml_coll_t coll, hcp_lane_t algo, int n,
                          int k, int64_t bytes, int segs)
{
    const double L = (double) bytes, B = per_byte(m, k), g = 1 / m->reduce_bw, a = step(m, k);
    const double f = (double) (n - 1) / n;
    if (n <= 1) {
        return 0;
    }
    switch (coll) {
    case HCP_ML_ALLREDUCE:
        if (HCP_LANE_RING == algo) {
            return 2 * (n - 1) * a + 2 * f * L * B + f * L * g;
        } else {
            int N = hcp_pof2_floor(n), r = n - N;
            double sent = r > 0 ? (1.5 + (double) (N - 2) / N) * L : 2 * f * L;
            return (2 * lg(N) + (r > 0 ? 3 : 0)) * a + sent * B + f * L * g;
        }
    case HCP_ML_BCAST:
        if (HCP_LANE_CHAIN == algo) {
            return (n - 2 + segs) * (a + L / segs * B);
        }
        return lg(n) * (a + L * B);
    case HCP_ML_REDUCE:
        if (HCP_LANE_CHAIN == algo) {
            return (n - 2 + segs) * (a + L / segs * (B + g));
        }
        return lg(n) * (a + L * (B + g));
    case HCP_ML_ALLGATHER:
        return (n - 1) * a + f * L * B;
    default: /* reduce_scatter */
        if (HCP_LANE_CHAIN == algo) {
            /* one chain per part the lane's piece meets, all at once */
            int chains = 1 + (n + k - 1) / k;
            return (n - 2 + segs) * (a + (chains - 1) * m->o + L / segs * (B + g));
        }
        return (n - 1) * a + f * L * (B + g);
    }
}

/* Does RHRD keep every rank within 1.15 x the ring's (2(n-1)/n) bytes?
 * Where n is a power of two, or 3 (3/2 against 4/3). */
static bool rhrd_balanced(int n)
{
    int N = hcp_pof2_floor(n);
    return N == n || 3 == n;
}

hcp_lane_t hcp_ml_lane_algo(const hcp_ml_model_t *m, hcp_ml_coll_t coll, int n, int k,
                            int64_t bytes, int *segs)
{
    /* several carriers: only algorithms that keep every rank to its share
     * (a binomial tree's root sends its lane log2(n) times) */
    const bool balanced = k > 1;
    *segs = 1;
    switch (coll) {
    case HCP_ML_ALLREDUCE:
        if (balanced && !rhrd_balanced(n)) {
            return HCP_LANE_RING;
        }
        return bridge_time(m, coll, HCP_LANE_RING, n, k, bytes, 1)
                       < bridge_time(m, coll, HCP_LANE_RHRD, n, k, bytes, 1)
                   ? HCP_LANE_RING
                   : HCP_LANE_RHRD;
    case HCP_ML_BCAST:
    case HCP_ML_REDUCE:
        *segs = chain_segs(m, n, k, bytes);
        if (balanced
            || bridge_time(m, coll, HCP_LANE_CHAIN, n, k, bytes, *segs)
                   < bridge_time(m, coll, HCP_LANE_BINOMIAL, n, k, bytes, 1)) {
            return HCP_LANE_CHAIN;
        }
        *segs = 1;
        return HCP_LANE_BINOMIAL;
    case HCP_ML_REDUCE_SCATTER:
        /* several carriers: a lane's piece meets one or a few parts'
         * blocks, which a ring would move a whole hop a step: a chain to
         * each of them, pipelined */
        if (balanced) {
            *segs = chain_segs(m, n, k, bytes);
            return HCP_LANE_CHAIN;
        }
        return HCP_LANE_RING;
    default:
        return HCP_LANE_RING;
    }
}

double hcp_ml_time(const hcp_ml_model_t *m, hcp_ml_coll_t coll, int N, int ppn, int k,
                   int64_t bytes)
{
    const double L = (double) bytes, bn = 1 / m->node_bw, g = 1 / m->reduce_bw, an = m->node_alpha;
    const double reduce = lg(ppn) * an + L * (bn + g), bcast = an + L * bn;
    /* (the node level's steps wait for the same processes alike: a
     * reduce-scatter as long as a reduce, an allgather as a bcast) */
    const double rs = lg(ppn) * an + (double) (ppn - 1) / k * L * (bn + g), ag = an + L * bn;
    int segs;
    k = k < 1 ? 1 : k > ppn ? ppn : k;
    int64_t lane = (bytes + k - 1) / k;
    hcp_lane_t algo = hcp_ml_lane_algo(m, coll, N, k, lane, &segs);
    double bridge = bridge_time(m, coll, algo, N, k, lane, segs);
    if (ppn <= 1) {
        return bridge;
    }
    switch (coll) {
    case HCP_ML_ALLREDUCE:
        return 1 == k ? reduce + bridge + bcast : rs + bridge + ag;
    case HCP_ML_BCAST: /* (multi: the root's part first scatters the slices) */
        return 1 == k ? bridge + bcast : an + L / k * bn + bridge + ag;
    case HCP_ML_REDUCE:
        return 1 == k ? reduce + bridge : rs + bridge + an + L * bn;
    case HCP_ML_ALLGATHER: /* bytes: the whole result */
        return 1 == k ? an + L / N * bn + bridge + bcast : an + L / N * bn + bridge + ag + L * bn;
    default: /* reduce_scatter: bytes the whole vector */
        return 1 == k ? reduce + bridge + an + L / N * bn : rs + bridge + an + L / N * bn;
    }
}

int hcp_ml_pick(const hcp_ml_model_t *m, hcp_ml_coll_t coll, int N, int ppn, int kmax, bool any_k,
                int64_t bytes)
{
    int best = 1;
    double t = hcp_ml_time(m, coll, N, ppn, 1, bytes);
    /* 2, 4, 8, ... and kmax (any_k), or kmax alone */
    for (int k = any_k ? 2 : kmax; k > 1 && k <= kmax; k = k == kmax      ? 0
                                                           : 2 * k < kmax ? 2 * k
                                                                          : kmax) {
        double tk = hcp_ml_time(m, coll, N, ppn, k, bytes);
        if (tk < t) {
            t = tk;
            best = k;
        }
    }
    return best;
}

/* ------------------------------------------------------------------ */
/* Every rank's whole plan (for the simulator)                          */
/* ------------------------------------------------------------------ */

/* How a stage's sub-plan lands in the whole plan: its user buffers and
 * their shifts, scratch TMP0/TMP1 as they are (stages are sequential),
 * TMP2 the whole plan's own (slices, packed data). */
typedef struct land {
    uint8_t map[HCP_NBUF];
    int64_t shift[HCP_NBUF];
} land_t;

static land_t land(int sbuf, int64_t sshift, int rbuf, int64_t rshift)
{
    land_t l = {{(uint8_t) sbuf, (uint8_t) rbuf, HCP_TMP0, HCP_TMP1, HCP_TMP2}, {0}};
    l.shift[HCP_SBUF] = sshift;
    l.shift[HCP_RBUF] = rshift;
    return l;
}

typedef struct ctx {
    const hcp_ml_args_t *a;
    const hcp_decomp_t *d;
    const hcp_ml_t *ml;
    hcp_plan_t *p, sub;
    int rank, part, idx, np, *peers; /* my part, my index in it, its size, its ranks */
    int *lane_peers;                 /* [nparts] */
    int64_t *c64;                    /* scratch counts [2 * max(n, nparts) + 2] */
    int *ci;                         /* scratch counts (int) [2 * n + 2] */
    int rc;
} ctx_t;

static void append(ctx_t *x, const land_t *l, const int *peers)
{
    if (0 == x->rc) {
        hcp_append_at(x->p, &x->sub, l->map, l->shift, peers);
    }
}

static void got(ctx_t *x, int rc)
{
    x->rc = 0 != x->rc ? x->rc : rc;
}

/* Members of lane j, in part order. */
static const int *lane_members(ctx_t *x, int j)
{
    for (int q = 0; q < x->d->nparts; ++q) {
        x->lane_peers[q] =
            NULL != x->ml ? x->ml->member[(size_t) j * x->d->nparts + q] : hcp_leader(x->d, q);
    }
    return x->lane_peers;
}

/* The carriers' slices of my part (int arrays for the linear planners):
 * counts in ci[0, np), displacements in ci[np, 2 np). */
static void part_slices(ctx_t *x, int64_t count)
{
    for (int k = 0; k < x->np; ++k) {
        int64_t lo, len = hcp_ml_slice(x->ml, x->part, k, count, &lo);
        x->ci[k] = (int) len;
        x->ci[x->np + k] = (int) lo;
        x->c64[k] = len;
    }
}

/* The bridge's piece of a reduction, in place on `buf` at `shift`. */
static void lane_reduction(ctx_t *x, int j, int64_t count, int buf, int64_t shift, int root)
{
    const hcp_ml_args_t *a = x->a;
    const int nq = x->d->nparts, me = x->part;
    const land_t l = land(buf, shift, buf, shift);
    int rc = 0;
    if (HCP_ML_ALLREDUCE == a->coll) {
        rc = !a->commutative
                 ? hcp_allreduce_recursive_doubling(&x->sub, nq, me, count, a->esize, false, true)
             : HCP_LANE_RING == a->lane
                 ? hcp_allreduce_ring(&x->sub, nq, me, count, a->esize, true)
                 : hcp_allreduce_rhrd(&x->sub, nq, me, count, a->esize, true);
    } else {
        rc = !a->commutative
                 ? hcp_reduce_binomial(&x->sub, nq, me, root, count, a->esize, false, true)
             : HCP_LANE_CHAIN == a->lane
                 ? hcp_reduce_chain(&x->sub, nq, me, root, count, a->esize, a->segs, true)
                 : hcp_reduce_binomial(&x->sub, nq, me, root, count, a->esize, true, true);
    }
    got(x, rc);
    append(x, &l, lane_members(x, j));
}

/* allreduce, reduce: the carriers' slices reduced in the part (one
 * leader: a binomial reduce), each lane's piece across the parts, then
 * the part allgathers (bcast) the result, or the root's part gathers it. */
static void plan_reduction(ctx_t *x)
{
    const hcp_ml_args_t *a = x->a;
    const bool all = HCP_ML_ALLREDUCE == a->coll, root = x->rank == a->root;
    const int rp = all ? 0 : x->d->part[a->root], rk = all ? 0 : x->d->index[a->root];
    const int64_t n = a->count;
    const bool in_place = a->in_place && (all || root);
    const int in = in_place ? HCP_RBUF : HCP_SBUF;
    const int c = x->ml->carriers[x->part], me = hcp_ml_carrier(x->ml, x->d, x->rank);
    int64_t lo, len = hcp_ml_slice(x->ml, x->part, me, n, &lo);
    /* where the carrier's slice is: allreduce in RBUF at its place, reduce
     * in TMP2 */
    const int sb = all ? HCP_RBUF : HCP_TMP2;
    const int64_t sshift = all ? 0 : -lo;
    part_slices(x, n);
    if (1 == c) {
        land_t l = land(in, 0, sb, sshift);
        if (!all && 0 == x->idx) {
            hcp_scratch(x->p, HCP_TMP2, HCP_UNIT_RTYPE, n);
        }
        got(x, hcp_reduce_binomial(&x->sub, x->np, x->idx, 0, n, a->esize, a->commutative,
                                   in_place && 0 == x->idx && all));
        append(x, &l, x->peers);
    } else {
        land_t l = land(in, 0, sb, sshift);
        if (!all && len > 0) {
            hcp_scratch(x->p, HCP_TMP2, HCP_UNIT_RTYPE, len);
        }
        got(x, hcp_reduce_scatter_linear(&x->sub, x->np, x->idx, x->c64, a->esize, false));
        append(x, &l, x->peers);
    }
    int first, nl = hcp_ml_lanes_of(x->ml, x->part, me, &first);
    for (int j = first; j < first + nl; ++j) {
        int64_t llo, llen = hcp_ml_lane(x->ml, j, n, &llo);
        lane_reduction(x, j, llen, sb, llo + sshift, rp);
    }
    if (all && 1 == c) {
        land_t l = land(HCP_RBUF, 0, HCP_RBUF, 0);
        got(x, hcp_bcast_binomial(&x->sub, x->np, x->idx, 0, n, a->esize));
        append(x, &l, x->peers);
    } else if (all) {
        land_t l = land(HCP_RBUF, 0, HCP_RBUF, 0);
        got(x, hcp_allgatherv_linear(&x->sub, x->np, x->idx, len, a->esize, x->ci, x->ci + x->np, 0,
                                     a->esize, true));
        append(x, &l, x->peers);
    } else if (x->part == rp && 1 == c) {
        /* the leader hands the part's result to the root */
        if (rk != 0 && 0 == x->idx) {
            hcp_send(x->p, x->peers[rk], HCP_TMP2, 0, n);
        } else if (rk != 0 && root) {
            hcp_recv(x->p, x->peers[0], HCP_RBUF, 0, n);
        } else if (root) {
            hcp_copy1(x->p, HCP_RBUF, 0, HCP_TMP2, 0, n);
        }
        hcp_end_round(x->p);
    } else if (x->part == rp) {
        land_t l = land(HCP_TMP2, 0, HCP_RBUF, 0);
        got(x, hcp_gatherv_linear(&x->sub, x->np, x->idx, rk, len, a->esize, x->ci, x->ci + x->np,
                                  0, a->esize, false));
        append(x, &l, x->peers);
    }
}

/* bcast: the root scatters the carriers' slices in its part (one leader:
 * hands the data to it), the lanes broadcast their pieces from the
 * root's part, every part allgathers its carriers' slices (one leader:
 * every part broadcasts, the root's from the root). */
static void plan_bcast(ctx_t *x)
{
    const hcp_ml_args_t *a = x->a;
    const int rp = x->d->part[a->root], rk = x->d->index[a->root];
    const int64_t n = a->count;
    const int c = x->ml->carriers[x->part], me = hcp_ml_carrier(x->ml, x->d, x->rank);
    const land_t l = land(HCP_RBUF, 0, HCP_RBUF, 0);
    int64_t lo, len = hcp_ml_slice(x->ml, x->part, me, n, &lo);
    part_slices(x, n);
    if (x->part == rp && 1 == c) {
        if (0 != rk && x->rank == a->root) {
            hcp_send(x->p, x->peers[0], HCP_RBUF, 0, n);
        } else if (0 != rk && 0 == x->idx) {
            hcp_recv(x->p, x->peers[rk], HCP_RBUF, 0, n);
        }
        hcp_end_round(x->p);
    } else if (x->part == rp) {
        /* (the root's own slice stays where it is) */
        land_t ls = land(HCP_RBUF, 0, HCP_RBUF, lo);
        got(x, hcp_scatterv_linear(&x->sub, x->np, x->idx, rk, x->ci, x->ci + x->np, 0, a->esize,
                                   len, a->esize, x->rank == a->root));
        append(x, &ls, x->peers);
    }
    int first, nl = hcp_ml_lanes_of(x->ml, x->part, me, &first);
    for (int j = first; j < first + nl; ++j) {
        int64_t llo, llen = hcp_ml_lane(x->ml, j, n, &llo);
        const land_t ll = land(HCP_RBUF, llo, HCP_RBUF, llo);
        got(x, HCP_LANE_CHAIN == a->lane
                   ? hcp_bcast_chain(&x->sub, x->d->nparts, x->part, rp, llen, a->esize, a->segs)
                   : hcp_bcast_binomial(&x->sub, x->d->nparts, x->part, rp, llen, a->esize));
        append(x, &ll, lane_members(x, j));
    }
    if (1 == c) { /* (the root's part from the root, as decomposition does) */
        got(x, hcp_bcast_binomial(&x->sub, x->np, x->idx, x->part == rp ? rk : 0, n, a->esize));
        append(x, &l, x->peers);
    } else {
        got(x, hcp_allgatherv_linear(&x->sub, x->np, x->idx, len, a->esize, x->ci, x->ci + x->np, 0,
                                     a->esize, true));
        append(x, &l, x->peers);
    }
}

/* allgather (regular blocks of `count`): every part allgathers its
 * blocks, packed in decomposition order in the result (TMP2, or RBUF
 * when parts are runs of ranks); carrier i of part p carries the
 * fraction [i/c_p, (i+1)/c_p) of every part's packed blocks: each lane
 * allgathers its piece of every part into the carrier's row (TMP2 past
 * the result, rows of my part's carriers back to back), the part
 * allgathers the rows, and each rank copies them into place.  One
 * leader: part gather, bridge allgather, part bcast. */
static void plan_allgather(ctx_t *x)
{
    const hcp_ml_args_t *a = x->a;
    const hcp_decomp_t *d = x->d;
    const int nq = d->nparts, c = x->ml->carriers[x->part], me = hcp_ml_carrier(x->ml, d, x->rank);
    const int64_t b = a->count, T = b * d->n;
    const int all = d->contiguous ? HCP_RBUF : HCP_TMP2;
    int64_t *D = x->c64, *P = x->c64 + nq; /* parts' packed units and offsets */
    for (int q = 0; q < nq; ++q) {
        D[q] = b * hcp_part_size(d, q);
        P[q] = b * d->start[q];
    }
    /* 1. the part's blocks, packed at P[part] */
    for (int k = 0; k < x->np; ++k) {
        x->ci[k] = (int) b;
        x->ci[x->np + k] = (int) (b * k);
    }
    land_t l1 = land(HCP_SBUF, 0, all, P[x->part]);
    if (1 == c) {
        got(x, hcp_gatherv_linear(&x->sub, x->np, x->idx, 0, b, a->esize, x->ci, x->ci + x->np, b,
                                  a->esize, false));
    } else {
        got(x, hcp_allgatherv_linear(&x->sub, x->np, x->idx, b, a->esize, x->ci, x->ci + x->np, b,
                                     a->esize, false));
    }
    append(x, &l1, x->peers);
    /* 2. my row: for each part q its piece of fraction me (at row[q]) */
    int64_t row_at = 0, row_len = 0;
    int64_t *row = malloc(sizeof(int64_t) * (size_t) (3 * nq + 1));
    if (NULL == row) {
        x->rc = -1;
        return;
    }
    int64_t *cnt = row + nq, *dsp = row + 2 * nq;
    const int64_t base = d->contiguous ? 0 : T; /* rows in TMP2 from here */
    if (me >= 0) {
        for (int k = 0; k < me; ++k) { /* the rows of the carriers before me */
            for (int q = 0; q < nq; ++q) {
                row_at += hcp_ml_at(D[q], k + 1, c) - hcp_ml_at(D[q], k, c);
            }
        }
        for (int q = 0; q < nq; ++q) {
            row[q] = row_len;
            row_len += hcp_ml_at(D[q], me + 1, c) - hcp_ml_at(D[q], me, c);
        }
    }
    int first, nl = hcp_ml_lanes_of(x->ml, x->part, me, &first);
    const int rows = HCP_TMP2;
    hcp_scratch(x->p, HCP_TMP2, HCP_UNIT_RTYPE, base + row_at + row_len + 1);
    for (int j = first; j < first + nl; ++j) {
        for (int q = 0; q < nq; ++q) {
            int64_t f0 = hcp_ml_at(D[q], x->ml->num[j], x->ml->den[j]);
            cnt[q] = hcp_ml_at(D[q], x->ml->num[j + 1], x->ml->den[j + 1]) - f0;
            dsp[q] = row[q] + f0 - hcp_ml_at(D[q], me, c);
        }
        /* my own piece into my row, then the ring */
        if (cnt[x->part] > 0) {
            hcp_copy1(x->p, rows, base + row_at + dsp[x->part], all,
                      P[x->part] + hcp_ml_at(D[x->part], x->ml->num[j], x->ml->den[j]),
                      cnt[x->part]);
            hcp_end_round(x->p);
        }
        land_t ll = land(rows, base + row_at, rows, base + row_at);
        got(x, hcp_allgatherv_ring(&x->sub, nq, x->part, cnt, dsp, a->esize));
        append(x, &ll, lane_members(x, j));
    }
    /* 3. the rows to every member of the part (one leader: its row is
     * the whole), and into place */
    int64_t at = 0;
    for (int k = 0; k < x->np; ++k) {
        int64_t len = 0;
        for (int q = 0; k < c && q < nq; ++q) {
            len += hcp_ml_at(D[q], k + 1, c) - hcp_ml_at(D[q], k, c);
        }
        x->ci[k] = (int) len;
        x->ci[x->np + k] = (int) at;
        at += len;
    }
    if (1 != c) {
        hcp_scratch(x->p, HCP_TMP2, HCP_UNIT_RTYPE, base + at + 1);
        land_t l3 = land(rows, base, rows, base);
        got(x, hcp_allgatherv_linear(&x->sub, x->np, x->idx, row_len, a->esize, x->ci,
                                     x->ci + x->np, 0, a->esize, true));
        append(x, &l3, x->peers);
    }
    for (int k = 0; k < c && (1 != c || 0 == me); ++k) {
        int64_t in_row = 0;
        for (int q = 0; q < nq; ++q) {
            int64_t f0 = hcp_ml_at(D[q], k, c), len = hcp_ml_at(D[q], k + 1, c) - f0;
            if (q != x->part && len > 0) {
                hcp_copy1(x->p, all, P[q] + f0, rows, base + x->ci[x->np + k] + in_row, len);
            }
            in_row += len;
        }
    }
    hcp_end_round(x->p);
    if (1 == c) {
        land_t l3 = land(all, 0, all, 0);
        got(x, hcp_bcast_binomial(&x->sub, x->np, x->idx, 0, T, a->esize));
        append(x, &l3, x->peers);
    }
    /* 4. unpack: rank r's block from its place in decomposition order */
    for (int r = 0; !d->contiguous && r < d->n; ++r) {
        hcp_copy1(x->p, HCP_RBUF, b * r, HCP_TMP2, b * hcp_pos(d, r), b);
    }
    hcp_end_round(x->p);
    free(row);
}

/* reduce_scatter_block (parts runs of ranks): the carriers' slices
 * reduced in the part, each lane reduce-scatters its piece by parts (part
 * q's ranks' blocks), the part's carriers pass each member its block
 * (one leader: part reduce, bridge reduce-scatter, part scatter). */
static void plan_reduce_scatter(ctx_t *x)
{
    const hcp_ml_args_t *a = x->a;
    const hcp_decomp_t *d = x->d;
    const int nq = d->nparts, c = x->ml->carriers[x->part], me = hcp_ml_carrier(x->ml, d, x->rank);
    const int64_t b = a->count, V = b * d->n;
    const int in = a->in_place ? HCP_RBUF : HCP_SBUF;
    int64_t lo, len = hcp_ml_slice(x->ml, x->part, me, V, &lo);
    const int64_t e0 = b * d->start[x->part], e1 = b * d->start[x->part + 1];
    part_slices(x, V);
    if (len > 0) {
        hcp_scratch(x->p, HCP_TMP2, HCP_UNIT_RTYPE, len);
    }
    land_t l1 = land(in, 0, HCP_TMP2, -lo);
    if (1 == c) {
        hcp_scratch(x->p, HCP_TMP2, HCP_UNIT_RTYPE, 0 == x->idx ? V : 1);
        got(x, hcp_reduce_binomial(&x->sub, x->np, x->idx, 0, V, a->esize, a->commutative, false));
    } else {
        got(x, hcp_reduce_scatter_linear(&x->sub, x->np, x->idx, x->c64, a->esize, false));
    }
    append(x, &l1, x->peers);
    int64_t *cnt = x->c64 + x->np;
    int first, nl = hcp_ml_lanes_of(x->ml, x->part, me, &first);
    for (int j = first; j < first + nl; ++j) {
        int64_t llo, llen = hcp_ml_lane(x->ml, j, V, &llo), at = llo;
        for (int q = 0; q < nq; ++q) { /* lane j's units of part q's blocks */
            int64_t q1 = b * d->start[q + 1], end = q1 < llo + llen ? q1 : llo + llen;
            cnt[q] = end > at ? end - at : 0;
            at += cnt[q];
        }
        land_t ll = land(HCP_TMP2, llo - lo, HCP_TMP2, llo - lo);
        got(x, !a->commutative
                   ? hcp_reduce_scatter_linear(&x->sub, nq, x->part, cnt, a->esize, true)
               : HCP_LANE_CHAIN == a->lane
                   ? hcp_reduce_scatter_chains(&x->sub, nq, x->part, cnt, a->esize, a->segs, true)
                   : hcp_reduce_scatter_ring(&x->sub, nq, x->part, cnt, a->esize, true));
        append(x, &ll, lane_members(x, j));
    }
    /* carrier k holds [slice k] & [e0, e1) of the vector */
    int *sc = x->ci, *sd = x->ci + x->np, *rc = malloc(sizeof(int) * 2 * (size_t) x->np);
    if (NULL == rc) {
        x->rc = -1;
        return;
    }
    int *rd = rc + x->np;
    for (int k = 0; k < x->np; ++k) {
        int64_t mk0 = e0 + b * k, mk1 = mk0 + b; /* member k's block */
        int64_t s0 = lo > mk0 ? lo : mk0, s1 = lo + len < mk1 ? lo + len : mk1;
        sc[k] = (int) (s1 > s0 ? s1 - s0 : 0);
        sd[k] = (int) (s1 > s0 ? s0 - lo : 0);
        int64_t klo, klen = hcp_ml_slice(x->ml, x->part, k, V, &klo);
        int64_t m0 = e0 + b * x->idx, m1 = m0 + b; /* my block, from carrier k */
        int64_t r0 = klo > m0 ? klo : m0, r1 = klo + klen < m1 ? klo + klen : m1;
        rc[k] = (int) (r1 > r0 ? r1 - r0 : 0);
        rd[k] = (int) (r1 > r0 ? r0 - m0 : 0);
    }
    (void) e1;
    land_t l3 = land(HCP_TMP2, 0, HCP_RBUF, 0);
    got(x, hcp_alltoallv_linear(&x->sub, x->np, x->idx, sc, sd, 0, a->esize, rc, rd, 0, a->esize,
                                false));
    append(x, &l3, x->peers);
    free(rc);
}

int hcp_ml_plan(hcp_plan_t *p, int rank, const hcp_ml_args_t *a)
{
    const hcp_decomp_t *d = a->d;
    ctx_t x = {.a = a, .d = d, .ml = a->ml, .p = p, .rank = rank};
    hcp_reset(p, a->esize, a->esize);
    hcp_init(&x.sub);
    x.part = d->part[rank];
    x.idx = d->index[rank];
    x.np = hcp_part_size(d, x.part);
    x.peers = d->member + d->start[x.part];
    int big = d->n > d->nparts ? d->n : d->nparts;
    x.lane_peers = malloc(sizeof(int) * (size_t) d->nparts);
    x.c64 = malloc(sizeof(int64_t) * (2 * (size_t) big + 2));
    x.ci = malloc(sizeof(int) * (2 * (size_t) big + 2));
    if (NULL == x.lane_peers || NULL == x.c64 || NULL == x.ci) {
        x.rc = -1;
    } else if (HCP_ML_BCAST == a->coll) {
        plan_bcast(&x);
    } else if (HCP_ML_ALLGATHER == a->coll) {
        plan_allgather(&x);
    } else if (HCP_ML_REDUCE_SCATTER == a->coll) {
        plan_reduce_scatter(&x);
    } else {
        plan_reduction(&x);
    }
    free(x.lane_peers);
    free(x.c64);
    free(x.ci);
    hcp_fini(&x.sub);
    int rc = hcp_finish(p);
    return 0 != x.rc ? -1 : rc;
}

int64_t hcp_ml_crossing(const hcp_plan_t *p, const hcp_decomp_t *d, int rank)
{
    int64_t bytes = 0;
    for (int i = 0; i < p->nops; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_SEND == op->kind && d->part[op->peer] != d->part[rank]) {
            bytes += hcp_bytes(p, op->buf, op->count);
        }
    }
    return bytes;
}
