/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The foundation's planners: binomial bcast and reduce, recursive-doubling
 * allreduce, dissemination barrier, and linear plans for the remaining
 * collectives (so that every nonblocking and persistent slot has a plan
 * even when no other component provides one).  MPI-free.
 */
#include "coll_hiercoll_plan.h"

#define MAX_CHILDREN 64

static inline int rel(int rank, int root, int n)
{
    return (rank - root + n) % n;
}

static inline int absr(int v, int root, int n)
{
    return (v + root) % n;
}

static inline int64_t at(const int *displs, int i, int64_t block)
{
    return NULL != displs ? displs[i] : (int64_t) i * block;
}

static inline int64_t cnt(const int *counts, int i, int64_t block)
{
    return NULL != counts ? counts[i] : block;
}

/* ------------------------------------------------------------------ */
/* Bcast                                                                */
/* ------------------------------------------------------------------ */

int hcp_bcast_binomial(hcp_plan_t *p, int n, int rank, int root,
                       int64_t count, size_t esize)
{
    int children[MAX_CHILDREN];
    hcp_reset(p, esize, esize);
    if (n <= 1 || 0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    int v = rel(rank, root, n);
    if (0 != v) {
        hcp_recv(p, absr(hcp_binomial_parent(v), root, n), HCP_RBUF, 0, count);
        hcp_end_round(p);
    }
    /* Largest subtree first: it has the longest way to go. */
    int k = hcp_binomial_children(n, v, children, MAX_CHILDREN);
    for (int i = k - 1; i >= 0; --i) {
        hcp_send(p, absr(children[i], root, n), HCP_RBUF, 0, count);
    }
    return hcp_finish(p);
}

int hcp_bcast_linear(hcp_plan_t *p, int n, int rank, int root, int64_t count,
                     size_t esize)
{
    hcp_reset(p, esize, esize);
    if (n <= 1 || 0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    if (rank == root) {
        for (int i = 1; i < n; ++i) {
            hcp_send(p, absr(i, root, n), HCP_RBUF, 0, count);
        }
    } else {
        hcp_recv(p, root, HCP_RBUF, 0, count);
    }
    return hcp_finish(p);
}

/* ------------------------------------------------------------------ */
/* Reduce                                                               */
/* ------------------------------------------------------------------ */

/*
 * Binomial reduction of `count` elements read from in_buf[0..count) into
 * out_buf[0..count) at `root`.  Every node folds, left to right, its own
 * input and its children's subtree results (children in increasing
 * relative rank), so with the tree rooted at rank 0 the result is in exact
 * rank order; non-commutative reductions to another root are therefore
 * done at rank 0 and forwarded.  Uses TMP0 for the children's partials.
 */
static void reduce_tree(hcp_plan_t *p, int n, int rank, int root,
                        int64_t count, bool commutative, int in_buf,
                        int out_buf)
{
    int children[MAX_CHILDREN];
    int troot = commutative ? root : 0;
    int v = rel(rank, troot, n);
    int k = hcp_binomial_children(n, v, children, MAX_CHILDREN);
    int acc = in_buf;
    int64_t acc_off = 0;
    bool result_here = (rank == troot);

    if (k > 0) {
        /* Receive every child at once; the last (largest) child of the
         * root goes straight into the output when that is not the input. */
        bool last_direct = result_here && rank == root && out_buf != in_buf;
        if (k > 1 || !last_direct) {
            hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, (int64_t) (k - last_direct) * count);
        }
        for (int i = 0; i < k; ++i) {
            bool direct = last_direct && i == k - 1;
            hcp_recv(p, absr(children[i], troot, n),
                     direct ? out_buf : HCP_TMP0,
                     direct ? 0 : (int64_t) i * count, count);
        }
        for (int i = 0; i < k; ++i) {
            bool direct = last_direct && i == k - 1;
            int dst = direct ? out_buf : HCP_TMP0;
            int64_t doff = direct ? 0 : (int64_t) i * count;
            hcp_reduce(p, dst, doff, acc, acc_off, count); /* dst = acc (op) dst */
            acc = dst;
            acc_off = doff;
        }
    }
    if (!result_here) {
        hcp_end_round(p);
        hcp_send(p, absr(hcp_binomial_parent(v), troot, n), acc, acc_off,
                 count);
    } else if (rank == root) {
        if (acc != out_buf || acc_off != 0) {
            hcp_copy1(p, out_buf, 0, acc, acc_off, count);
        }
    } else {
        /* Ordered result computed at rank 0 for another root. */
        hcp_end_round(p);
        hcp_send(p, root, acc, acc_off, count);
    }
    if (rank == root && !result_here) {
        hcp_end_round(p);
        hcp_recv(p, troot, out_buf, 0, count);
    }
}

int hcp_reduce_binomial(hcp_plan_t *p, int n, int rank, int root,
                        int64_t count, size_t esize, bool commutative,
                        bool in_place)
{
    hcp_reset(p, esize, esize);
    if (0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    int in_buf = (rank == root && in_place) ? HCP_RBUF : HCP_SBUF;
    if (1 == n) {
        if (in_buf != HCP_RBUF) {
            hcp_copy1(p, HCP_RBUF, 0, in_buf, 0, count);
        }
        return hcp_finish(p);
    }
    reduce_tree(p, n, rank, root, count, commutative, in_buf, HCP_RBUF);
    return hcp_finish(p);
}

int hcp_reduce_linear(hcp_plan_t *p, int n, int rank, int root, int64_t count,
                      size_t esize, bool in_place)
{
    hcp_reset(p, esize, esize);
    if (0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    int in_buf = (rank == root && in_place) ? HCP_RBUF : HCP_SBUF;
    if (rank != root) {
        hcp_send(p, root, HCP_SBUF, 0, count);
        return hcp_finish(p);
    }
    /* acc (TMP1) = x[n-1]; then acc = x[i] (op) acc for i = n-2 .. 0. */
    hcp_scratch(p, HCP_TMP1, HCP_UNIT_RTYPE, count);
    if (n - 1 == root) {
        hcp_copy1(p, HCP_TMP1, 0, in_buf, 0, count);
    } else {
        hcp_recv(p, n - 1, HCP_TMP1, 0, count);
    }
    hcp_end_round(p);
    for (int i = n - 2; i >= 0; --i) {
        if (i == root) {
            hcp_reduce(p, HCP_TMP1, 0, in_buf, 0, count);
        } else {
            hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, count);
            hcp_recv(p, i, HCP_TMP0, 0, count);
            hcp_reduce(p, HCP_TMP1, 0, HCP_TMP0, 0, count);
        }
        hcp_end_round(p);
    }
    hcp_copy1(p, HCP_RBUF, 0, HCP_TMP1, 0, count);
    return hcp_finish(p);
}

/* ------------------------------------------------------------------ */
/* Allreduce                                                            */
/* ------------------------------------------------------------------ */

int hcp_allreduce_recursive_doubling(hcp_plan_t *p, int n, int rank,
                                     int64_t count, size_t esize,
                                     bool commutative, bool in_place)
{
    hcp_reset(p, esize, esize);
    if (0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    if (!in_place) {
        hcp_copy1(p, HCP_RBUF, 0, HCP_SBUF, 0, count);
        hcp_end_round(p);
    }
    if (1 == n) {
        return hcp_finish(p);
    }
    hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, count);

    int pof2 = hcp_pof2_floor(n);
    int extra = n - pof2;
    int newrank;

    /* Pre-step: the first 2*extra ranks pair up; the even one hands its
     * input to the odd one and sits out until the post-step. */
    if (rank < 2 * extra) {
        if (0 == rank % 2) {
            hcp_send(p, rank + 1, HCP_RBUF, 0, count);
            hcp_end_round(p);
            newrank = -1;
        } else {
            hcp_recv(p, rank - 1, HCP_TMP0, 0, count);
            hcp_reduce(p, HCP_RBUF, 0, HCP_TMP0, 0, count); /* x[r-1] (op) x[r] */
            hcp_end_round(p);
            newrank = rank / 2;
        }
    } else {
        newrank = rank - extra;
    }

    if (newrank >= 0) {
        int cur = HCP_RBUF, other = HCP_TMP0;
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int nr = newrank ^ mask;
            int peer = nr < extra ? 2 * nr + 1 : nr + extra;
            hcp_send(p, peer, cur, 0, count);
            hcp_recv(p, peer, other, 0, count);
            if (commutative || peer < rank) {
                hcp_reduce(p, cur, 0, other, 0, count); /* theirs (op) mine */
            } else {
                hcp_reduce(p, other, 0, cur, 0, count); /* mine (op) theirs */
                int t = cur;
                cur = other;
                other = t;
            }
            hcp_end_round(p);
        }
        if (cur != HCP_RBUF) {
            hcp_copy1(p, HCP_RBUF, 0, cur, 0, count);
            hcp_end_round(p);
        }
    }

    if (rank < 2 * extra) {
        if (0 == rank % 2) {
            hcp_recv(p, rank + 1, HCP_RBUF, 0, count);
        } else {
            hcp_send(p, rank - 1, HCP_RBUF, 0, count);
        }
    }
    return hcp_finish(p);
}

/* ------------------------------------------------------------------ */
/* Barrier                                                              */
/* ------------------------------------------------------------------ */

int hcp_barrier_dissemination(hcp_plan_t *p, int n, int rank)
{
    hcp_reset(p, 1, 1);
    for (int k = 1; k < n; k <<= 1) {
        hcp_send(p, (rank + k) % n, HCP_RBUF, 0, 0);
        hcp_recv(p, (rank - k + n) % n, HCP_RBUF, 0, 0);
        hcp_end_round(p);
    }
    return hcp_finish(p);
}

int hcp_barrier_linear(hcp_plan_t *p, int n, int rank)
{
    hcp_reset(p, 1, 1);
    if (n <= 1) {
        return hcp_finish(p);
    }
    if (0 == rank) {
        for (int i = 1; i < n; ++i) {
            hcp_recv(p, i, HCP_RBUF, 0, 0);
        }
        hcp_end_round(p);
        for (int i = 1; i < n; ++i) {
            hcp_send(p, i, HCP_RBUF, 0, 0);
        }
    } else {
        hcp_send(p, 0, HCP_RBUF, 0, 0);
        hcp_end_round(p);
        hcp_recv(p, 0, HCP_RBUF, 0, 0);
    }
    return hcp_finish(p);
}

/* ------------------------------------------------------------------ */
/* Gather, scatter, allgather, alltoall (linear)                        */
/* ------------------------------------------------------------------ */

int hcp_gatherv_linear(hcp_plan_t *p, int n, int rank, int root,
                       int64_t scount, size_t ssize, const int *rcounts,
                       const int *displs, int64_t rcount, size_t rsize,
                       bool in_place)
{
    hcp_reset(p, ssize, rsize);
    if (rank != root) {
        if (scount * (int64_t) ssize > 0) {
            hcp_send(p, root, HCP_SBUF, 0, scount);
        }
        return hcp_finish(p);
    }
    for (int i = 1; i < n; ++i) {
        int src = absr(i, root, n);
        int64_t c = cnt(rcounts, src, rcount);
        if (c * (int64_t) rsize > 0) {
            hcp_recv(p, src, HCP_RBUF, at(displs, src, rcount), c);
        }
    }
    if (!in_place) {
        hcp_copy(p, HCP_RBUF, at(displs, root, rcount), cnt(rcounts, root, rcount),
                 HCP_SBUF, 0, scount);
    }
    return hcp_finish(p);
}

int hcp_scatterv_linear(hcp_plan_t *p, int n, int rank, int root,
                        const int *scounts, const int *displs, int64_t scount,
                        size_t ssize, int64_t rcount, size_t rsize,
                        bool in_place)
{
    hcp_reset(p, ssize, rsize);
    if (rank != root) {
        if (rcount * (int64_t) rsize > 0) {
            hcp_recv(p, root, HCP_RBUF, 0, rcount);
        }
        return hcp_finish(p);
    }
    for (int i = 1; i < n; ++i) {
        int dst = absr(i, root, n);
        int64_t c = cnt(scounts, dst, scount);
        if (c * (int64_t) ssize > 0) {
            hcp_send(p, dst, HCP_SBUF, at(displs, dst, scount), c);
        }
    }
    if (!in_place) {
        hcp_copy(p, HCP_RBUF, 0, rcount, HCP_SBUF, at(displs, root, scount),
                 cnt(scounts, root, scount));
    }
    return hcp_finish(p);
}

int hcp_allgatherv_linear(hcp_plan_t *p, int n, int rank, int64_t scount,
                          size_t ssize, const int *rcounts, const int *displs,
                          int64_t rcount, size_t rsize, bool in_place)
{
    hcp_reset(p, ssize, rsize);
    int64_t my_off = at(displs, rank, rcount), my_cnt = cnt(rcounts, rank, rcount);
    for (int i = 1; i < n; ++i) {
        int to = (rank + i) % n, from = (rank - i + n) % n;
        if (my_cnt * (int64_t) rsize > 0) {
            if (in_place) {
                hcp_send(p, to, HCP_RBUF, my_off, my_cnt);
            } else {
                hcp_send(p, to, HCP_SBUF, 0, scount);
            }
        }
        int64_t c = cnt(rcounts, from, rcount);
        if (c * (int64_t) rsize > 0) {
            hcp_recv(p, from, HCP_RBUF, at(displs, from, rcount), c);
        }
    }
    if (!in_place) {
        hcp_copy(p, HCP_RBUF, my_off, my_cnt, HCP_SBUF, 0, scount);
    }
    return hcp_finish(p);
}

int hcp_alltoallv_linear(hcp_plan_t *p, int n, int rank, const int *scounts,
                         const int *sdispls, int64_t scount, size_t ssize,
                         const int *rcounts, const int *rdispls,
                         int64_t rcount, size_t rsize, bool in_place)
{
    hcp_reset(p, ssize, rsize);
    int src_buf = HCP_SBUF;
    int64_t shift = 0; /* in place: scratch unit 0 is receive-buffer unit `shift` */
    if (in_place) {
        /* Send from a copy of the receive buffer's outgoing blocks, which
         * span units [lo, end) of it (displacements may be negative: the
         * scratch begins at the lowest, hc_fuzz --case 0x45b53be0fe6fb887
         * at np 4 wrote below it) */
        int64_t end = 0, lo = 0;
        bool any = false;
        for (int j = 0; j < n; ++j) {
            if (j == rank || cnt(rcounts, j, rcount) <= 0) {
                continue;
            }
            int64_t d = at(rdispls, j, rcount), e = d + cnt(rcounts, j, rcount);
            if (!any || d < lo) {
                lo = d;
            }
            if (!any || e > end) {
                end = e;
            }
            any = true;
        }
        shift = lo;
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, end - lo);
        for (int j = 0; j < n; ++j) {
            if (j != rank && cnt(rcounts, j, rcount) > 0) {
                hcp_copy1(p, HCP_TMP0, at(rdispls, j, rcount) - shift, HCP_RBUF,
                          at(rdispls, j, rcount), cnt(rcounts, j, rcount));
            }
        }
        hcp_end_round(p);
        src_buf = HCP_TMP0;
        scounts = rcounts;
        sdispls = rdispls;
        scount = rcount;
        ssize = rsize;
    }
    for (int i = 1; i < n; ++i) {
        int to = (rank + i) % n, from = (rank - i + n) % n;
        int64_t sc = cnt(scounts, to, scount), rc = cnt(rcounts, from, rcount);
        if (sc * (int64_t) ssize > 0) {
            hcp_send(p, to, src_buf, at(sdispls, to, scount) - shift, sc);
        }
        if (rc * (int64_t) rsize > 0) {
            hcp_recv(p, from, HCP_RBUF, at(rdispls, from, rcount), rc);
        }
    }
    if (!in_place) {
        hcp_copy(p, HCP_RBUF, at(rdispls, rank, rcount), cnt(rcounts, rank, rcount),
                 HCP_SBUF, at(sdispls, rank, scount), cnt(scounts, rank, scount));
    }
    return hcp_finish(p);
}

int hcp_alltoallw_linear(hcp_plan_t *p, int n, int rank, const int *scounts,
                         const int *sdispls, const size_t *ssizes,
                         const int *rcounts, const int *rdispls,
                         const size_t *rsizes, bool in_place)
{
    /* unit_size is meaningless for per-peer types; 1 keeps byte counts. */
    hcp_reset(p, 1, 1);
    if (in_place) {
        /* Pack the outgoing blocks, in the order they will be sent. */
        int64_t total = 0;
        for (int i = 1; i < n; ++i) {
            int j = (rank + i) % n;
            total += (int64_t) rcounts[j] * (int64_t) rsizes[j];
        }
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_BYTE, total);
        total = 0;
        for (int i = 1; i < n; ++i) {
            int j = (rank + i) % n;
            int64_t bytes = (int64_t) rcounts[j] * (int64_t) rsizes[j];
            if (bytes > 0) {
                hcp_copy(p, HCP_TMP0, total, bytes, HCP_RBUF, rdispls[j], rcounts[j]);
                p->ops[p->nops - 1].peer = j;
                total += bytes;
            }
        }
        hcp_end_round(p);
    }
    int64_t packed = 0;
    for (int i = 1; i < n; ++i) {
        int to = (rank + i) % n, from = (rank - i + n) % n;
        if (in_place) {
            int64_t bytes = (int64_t) rcounts[to] * (int64_t) rsizes[to];
            if (bytes > 0) {
                hcp_send(p, to, HCP_TMP0, packed, bytes);
                packed += bytes;
            }
        } else if ((int64_t) scounts[to] * (int64_t) ssizes[to] > 0) {
            hcp_send(p, to, HCP_SBUF, sdispls[to], scounts[to]);
        }
        if ((int64_t) rcounts[from] * (int64_t) rsizes[from] > 0) {
            hcp_recv(p, from, HCP_RBUF, rdispls[from], rcounts[from]);
        }
    }
    if (!in_place) {
        hcp_copy(p, HCP_RBUF, rdispls[rank], rcounts[rank], HCP_SBUF,
                 sdispls[rank], scounts[rank]);
        p->ops[p->nops - 1].peer = rank;
    }
    return hcp_finish(p);
}

/* ------------------------------------------------------------------ */
/* Scan, exscan                                                         */
/* ------------------------------------------------------------------ */

int hcp_scan_linear(hcp_plan_t *p, int n, int rank, int64_t count,
                    size_t esize, bool exclusive, bool in_place)
{
    hcp_reset(p, esize, esize);
    if (0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    int in_buf = in_place ? HCP_RBUF : HCP_SBUF;
    if (!exclusive) {
        /* RBUF = prefix(r-1) (op) x[r], passed on to r+1. */
        if (!in_place) {
            hcp_copy1(p, HCP_RBUF, 0, HCP_SBUF, 0, count);
        }
        if (rank > 0) {
            hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, count);
            hcp_recv(p, rank - 1, HCP_TMP0, 0, count);
            hcp_reduce(p, HCP_RBUF, 0, HCP_TMP0, 0, count);
        }
        hcp_end_round(p);
        if (rank < n - 1) {
            hcp_send(p, rank + 1, HCP_RBUF, 0, count);
        }
        return hcp_finish(p);
    }
    /* Exclusive: RBUF = prefix(r-1); rank r passes prefix(r-1) (op) x[r]. */
    if (0 == rank) {
        if (n > 1) {
            hcp_send(p, 1, in_buf, 0, count);
        }
        return hcp_finish(p);
    }
    int pre = in_place ? HCP_TMP0 : HCP_RBUF;
    if (in_place) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, count);
    }
    hcp_recv(p, rank - 1, pre, 0, count);
    if (rank < n - 1) {
        hcp_scratch(p, HCP_TMP1, HCP_UNIT_RTYPE, count);
        hcp_copy1(p, HCP_TMP1, 0, in_buf, 0, count);
        hcp_reduce(p, HCP_TMP1, 0, pre, 0, count);
    }
    if (in_place) {
        hcp_copy1(p, HCP_RBUF, 0, HCP_TMP0, 0, count);
    }
    hcp_end_round(p);
    if (rank < n - 1) {
        hcp_send(p, rank + 1, HCP_TMP1, 0, count);
    }
    return hcp_finish(p);
}

/* ------------------------------------------------------------------ */
/* Reduce-scatter                                                       */
/* ------------------------------------------------------------------ */

int hcp_reduce_scatter_basic(hcp_plan_t *p, int n, int rank,
                             const int *rcounts, int64_t rcount, size_t esize,
                             bool commutative, bool in_place)
{
    hcp_reset(p, esize, esize);
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
        total += cnt(rcounts, i, rcount);
    }
    if (0 == total * (int64_t) esize) {
        return hcp_finish(p);
    }
    int in_buf = in_place ? HCP_RBUF : HCP_SBUF;
    /* The full result lands in TMP1 at rank 0. */
    if (0 == rank) {
        hcp_scratch(p, HCP_TMP1, HCP_UNIT_RTYPE, total);
    }
    if (n > 1) {
        reduce_tree(p, n, rank, 0, total, commutative, in_buf, HCP_TMP1);
    } else {
        hcp_copy1(p, HCP_TMP1, 0, in_buf, 0, total);
    }
    hcp_end_round(p);
    if (0 == rank) {
        int64_t off = cnt(rcounts, 0, rcount);
        for (int i = 1; i < n; ++i) {
            int64_t c = cnt(rcounts, i, rcount);
            if (c > 0) {
                hcp_send(p, i, HCP_TMP1, off, c);
            }
            off += c;
        }
        if (cnt(rcounts, 0, rcount) > 0) {
            hcp_copy1(p, HCP_RBUF, 0, HCP_TMP1, 0, cnt(rcounts, 0, rcount));
        }
    } else if (cnt(rcounts, rank, rcount) > 0) {
        hcp_recv(p, 0, HCP_RBUF, 0, cnt(rcounts, rank, rcount));
    }
    return hcp_finish(p);
}
