/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Rings and chains: the bandwidth-optimal plans.  Every rank sends each
 * byte it must send once: a ring reduce-scatter or allgather sends
 * (n-1)/n of the vector per rank, a pipelined chain bcast or reduce the
 * vector once per rank.  They run the bridges of multi-leader
 * decomposition (coll_hiercoll_decomp_ml.c) and the flat comparison in
 * the simulator; the linear reduce-scatter is the node level's step in
 * the simulated multi-leader plans (each rank folds its own slice of
 * every input, in rank order, as the shared-memory level does).
 * MPI-free: see coll_hiercoll_plan.h.
 */
#include "coll_hiercoll_plan.h"

#include <stdlib.h>

static inline int rel(int rank, int root, int n)
{
    return (rank - root + n) % n;
}

static inline int absr(int v, int root, int n)
{
    return (v + root) % n;
}

/* Segment k of S over count units: [seg_at(k), seg_at(k + 1)). */
static inline int64_t seg_at(int64_t count, int k, int S)
{
    return count * k / S;
}

/* The ring's steps over blocks of RBUF: counts[b] units at displs[b].
 * Reduce-scatter: at step s rank r sends block (r-s-1) and folds block
 * (r-s-2) from r-1 into its own; after n-1 steps block r holds every
 * rank's contribution.  TMP0 holds what arrives. */
static void rs_ring(hcp_plan_t *p, int n, int rank, const int64_t *counts, const int64_t *displs)
{
    int next = (rank + 1) % n, prev = (rank - 1 + n) % n;
    for (int s = 0; s < n - 1; ++s) {
        int out = ((rank - s - 1) % n + n) % n, in = ((rank - s - 2) % n + n) % n;
        if (counts[out] > 0) {
            hcp_send(p, next, HCP_RBUF, displs[out], counts[out]);
        }
        if (counts[in] > 0) {
            hcp_recv(p, prev, HCP_TMP0, 0, counts[in]);
            hcp_reduce(p, HCP_RBUF, displs[in], HCP_TMP0, 0, counts[in]);
        }
        hcp_end_round(p);
    }
}

/* Allgather: at step s rank r sends block (r-s) and receives block
 * (r-s-1) from r-1, in place. */
static void ag_ring(hcp_plan_t *p, int n, int rank, const int64_t *counts, const int64_t *displs)
{
    int next = (rank + 1) % n, prev = (rank - 1 + n) % n;
    for (int s = 0; s < n - 1; ++s) {
        int out = ((rank - s) % n + n) % n, in = ((rank - s - 1) % n + n) % n;
        if (counts[out] > 0) {
            hcp_send(p, next, HCP_RBUF, displs[out], counts[out]);
        }
        if (counts[in] > 0) {
            hcp_recv(p, prev, HCP_RBUF, displs[in], counts[in]);
        }
        hcp_end_round(p);
    }
}

static int64_t max_of(int n, const int64_t *counts)
{
    int64_t m = 0;
    for (int b = 0; b < n; ++b) {
        m = counts[b] > m ? counts[b] : m;
    }
    return m;
}

static int64_t *prefix(int n, const int64_t *counts)
{
    int64_t *d = malloc(sizeof(int64_t) * (size_t) (n + 1));
    if (NULL != d) {
        d[0] = 0;
        for (int b = 0; b < n; ++b) {
            d[b + 1] = d[b] + counts[b];
        }
    }
    return d;
}

/* What the ring and the chains begin with: the plan reset, the blocks'
 * displacements (NULL if out of memory), and the input copied into the
 * receive buffer where the folds happen (unless in place). */
static int64_t *begin_folds(hcp_plan_t *p, int n, const int64_t *counts, size_t esize,
                            bool in_place)
{
    hcp_reset(p, esize, esize);
    int64_t *displs = prefix(n, counts);
    if (NULL != displs && !in_place && displs[n] > 0) {
        hcp_copy1(p, HCP_RBUF, 0, HCP_SBUF, 0, displs[n]);
        hcp_end_round(p);
    }
    return displs;
}

int hcp_reduce_scatter_ring(hcp_plan_t *p, int n, int rank, const int64_t *counts, size_t esize,
                            bool in_place)
{
    int64_t *displs = begin_folds(p, n, counts, esize, in_place);
    if (NULL == displs) {
        return -1;
    }
    if (max_of(n, counts) > 0) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, max_of(n, counts));
    }
    rs_ring(p, n, rank, counts, displs);
    free(displs);
    return hcp_finish(p);
}

int hcp_allgatherv_ring(hcp_plan_t *p, int n, int rank, const int64_t *counts,
                        const int64_t *displs, size_t esize)
{
    hcp_reset(p, esize, esize);
    ag_ring(p, n, rank, counts, displs);
    return hcp_finish(p);
}

int hcp_allreduce_ring(hcp_plan_t *p, int n, int rank, int64_t count, size_t esize, bool in_place)
{
    hcp_reset(p, esize, esize);
    int64_t *counts = malloc(sizeof(int64_t) * (size_t) (2 * n + 1));
    if (NULL == counts) {
        return -1;
    }
    int64_t *displs = counts + n;
    for (int b = 0; b <= n; ++b) {
        displs[b] = seg_at(count, b, n);
    }
    for (int b = 0; b < n; ++b) {
        counts[b] = displs[b + 1] - displs[b];
    }
    if (!in_place && count > 0) {
        hcp_copy1(p, HCP_RBUF, 0, HCP_SBUF, 0, count);
        hcp_end_round(p);
    }
    if (max_of(n, counts) > 0) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, max_of(n, counts));
    }
    rs_ring(p, n, rank, counts, displs);
    ag_ring(p, n, rank, counts, displs);
    free(counts);
    return hcp_finish(p);
}

/* The number of segments of a chain: at least 1, at most count. */
static int segments(int64_t count, int segs)
{
    int64_t S = segs < 1 ? 1 : segs;
    return (int) (S > count ? (count > 0 ? count : 1) : S);
}

int hcp_bcast_chain(hcp_plan_t *p, int n, int rank, int root, int64_t count, size_t esize, int segs)
{
    hcp_reset(p, esize, esize);
    if (n <= 1 || 0 == count) {
        return hcp_finish(p);
    }
    const int S = segments(count, segs), v = rel(rank, root, n);
    /* relative rank v receives segment k in step k + v - 1 and passes it
     * on in the next */
    for (int t = 0; t < n - 2 + S; ++t) {
        int in = t - (v - 1), out = t - v;
        if (v >= 1 && in >= 0 && in < S) {
            hcp_recv(p, absr(v - 1, root, n), HCP_RBUF, seg_at(count, in, S),
                     seg_at(count, in + 1, S) - seg_at(count, in, S));
        }
        if (v <= n - 2 && out >= 0 && out < S) {
            hcp_send(p, absr(v + 1, root, n), HCP_RBUF, seg_at(count, out, S),
                     seg_at(count, out + 1, S) - seg_at(count, out, S));
        }
        hcp_end_round(p);
    }
    return hcp_finish(p);
}

int hcp_reduce_chain(hcp_plan_t *p, int n, int rank, int root, int64_t count, size_t esize,
                     int segs, bool in_place)
{
    hcp_reset(p, esize, esize);
    const int v = rel(rank, root, n), in_buf = in_place ? HCP_RBUF : HCP_SBUF;
    if (0 == v && !in_place && count > 0) {
        hcp_copy1(p, HCP_RBUF, 0, HCP_SBUF, 0, count);
        hcp_end_round(p);
    }
    if (n <= 1 || 0 == count) {
        return hcp_finish(p);
    }
    const int S = segments(count, segs), w = n - 1 - v; /* w: steps from the chain's far end */
    if (w > 0) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, count);
    }
    /* the rank w steps from the end receives the running result of
     * segment k from its neighbour in step k + w - 1, folds its own input
     * in, and passes it on in step k + w (the far end sends its input) */
    for (int t = 0; t < w + S; ++t) {
        int in = t - w + 1, out = t - w;
        if (v >= 1 && out >= 0 && out < S) {
            hcp_send(p, absr(v - 1, root, n), 0 == w ? in_buf : HCP_TMP0, seg_at(count, out, S),
                     seg_at(count, out + 1, S) - seg_at(count, out, S));
        }
        if (w >= 1 && in >= 0 && in < S) {
            int64_t at = seg_at(count, in, S), len = seg_at(count, in + 1, S) - at;
            hcp_recv(p, absr(v + 1, root, n), HCP_TMP0, at, len);
            if (0 == v) {
                hcp_reduce(p, HCP_RBUF, at, HCP_TMP0, at, len);
            } else {
                hcp_reduce(p, HCP_TMP0, at, in_buf, at, len);
            }
        }
        hcp_end_round(p);
    }
    return hcp_finish(p);
}

int hcp_reduce_scatter_chains(hcp_plan_t *p, int n, int rank, const int64_t *counts, size_t esize,
                              int segs, bool in_place)
{
    int64_t *displs = begin_folds(p, n, counts, esize, in_place);
    if (NULL == displs) {
        return -1;
    }
    if (n > 1 && displs[n] > 0) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, displs[n]);
    }
    /* block b's chain: b+1 (its far end), b+2, ..., b-1, b; step t of
     * every chain at once (each rank sends to rank-1 for all of them, in
     * block order, and rank-1 receives in that order: they match) */
    int most = 1;
    for (int b = 0; b < n; ++b) {
        most = counts[b] > 0 && segments(counts[b], segs) > most ? segments(counts[b], segs) : most;
    }
    for (int t = 0; n > 1 && t < n - 1 + most; ++t) {
        for (int b = 0; b < n; ++b) {
            if (0 == counts[b]) {
                continue;
            }
            const int S = segments(counts[b], segs), v = rel(rank, b, n), w = n - 1 - v;
            const int out = t - w, in = t - w + 1;
            if (v >= 1 && out >= 0 && out < S) {
                int64_t at = displs[b] + seg_at(counts[b], out, S);
                hcp_send(p, absr(v - 1, b, n), 0 == w ? HCP_RBUF : HCP_TMP0, at,
                         seg_at(counts[b], out + 1, S) - seg_at(counts[b], out, S));
            }
            if (w >= 1 && in >= 0 && in < S) {
                int64_t at = displs[b] + seg_at(counts[b], in, S);
                int64_t len = seg_at(counts[b], in + 1, S) - seg_at(counts[b], in, S);
                hcp_recv(p, absr(v + 1, b, n), HCP_TMP0, at, len);
                if (0 == v) {
                    hcp_reduce(p, HCP_RBUF, at, HCP_TMP0, at, len);
                } else {
                    hcp_reduce(p, HCP_TMP0, at, HCP_RBUF, at, len);
                }
            }
        }
        hcp_end_round(p);
    }
    free(displs);
    return hcp_finish(p);
}

int hcp_reduce_scatter_linear(hcp_plan_t *p, int n, int rank, const int64_t *counts, size_t esize,
                              bool in_place)
{
    hcp_reset(p, esize, esize);
    int64_t *displs = prefix(n, counts);
    if (NULL == displs) {
        return -1;
    }
    const int64_t mine = counts[rank], at = displs[rank];
    const int in_buf = in_place ? HCP_RBUF : HCP_SBUF;
    for (int j = 0; j < n; ++j) {
        if (j != rank && counts[j] > 0) {
            hcp_send(p, j, in_buf, displs[j], counts[j]);
        }
    }
    if (mine > 0) {
        /* TMP0 slot j: rank j's block (mine too: the result overwrites it) */
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, (int64_t) n * mine);
        for (int j = 0; j < n; ++j) {
            if (j != rank) {
                hcp_recv(p, j, HCP_TMP0, (int64_t) j * mine, mine);
            }
        }
        hcp_copy1(p, HCP_TMP0, (int64_t) rank * mine, in_buf, at, mine);
        /* x_0 op (x_1 op (... op x_{n-1})): rank order for any op */
        hcp_copy1(p, HCP_RBUF, at, HCP_TMP0, (int64_t) (n - 1) * mine, mine);
        for (int j = n - 2; j >= 0; --j) {
            hcp_reduce(p, HCP_RBUF, at, HCP_TMP0, (int64_t) j * mine, mine);
        }
    }
    free(displs);
    return hcp_finish(p);
}
