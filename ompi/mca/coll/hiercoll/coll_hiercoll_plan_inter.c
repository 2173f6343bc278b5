/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Planners of the intercommunicator collectives.  MPI-free: see
 * coll_hiercoll_plan.h.
 *
 * Two groups, each with a leader (its rank 0).  What one group sends the
 * other travels once between the leaders where the collective allows it
 * (bcast, barrier, reductions, allgather), and the work inside a group
 * runs the foundation's intracommunicator planners, appended with their
 * transfers marked local (hcp_append); the personalized collectives
 * (gather(v), scatter(v), allgatherv, alltoall(v,w)) go straight between
 * the ranks that own the data.
 */
#include "coll_hiercoll_plan.h"

#include <stdlib.h>

static inline int64_t at(const int *displs, int i, int64_t block)
{
    return NULL != displs ? displs[i] : (int64_t) i * block;
}

static inline int64_t cnt(const int *counts, int i, int64_t block)
{
    return NULL != counts ? counts[i] : block;
}

/* Buffer renamings for hcp_append. */
static const uint8_t same[HCP_NBUF] = {HCP_SBUF, HCP_RBUF, HCP_TMP0, HCP_TMP1, HCP_TMP2};
/* a reduction's result (RBUF) into TMP1 */
static const uint8_t rbuf_to_tmp1[HCP_NBUF] = {HCP_SBUF, HCP_TMP1, HCP_TMP0, HCP_TMP1, HCP_TMP2};
/* a gather's result into TMP0 (the gather uses no scratch) */
static const uint8_t rbuf_to_tmp0[HCP_NBUF] = {HCP_SBUF, HCP_TMP0, HCP_TMP0, HCP_TMP1, HCP_TMP2};
/* a scatter from TMP2 */
static const uint8_t sbuf_from_tmp2[HCP_NBUF] = {HCP_TMP2, HCP_RBUF, HCP_TMP0, HCP_TMP1, HCP_TMP2};

/* Append an intracommunicator plan built by `built` (its return code)
 * in sub, as local transfers. */
static int append_local(hcp_plan_t *p, hcp_plan_t *sub, int built, const uint8_t *map)
{
    if (0 != built) {
        p->oom = true;
        return -1;
    }
    hcp_append(p, sub, map, true);
    return 0;
}

/* The root's group of a bcast (the root sends to remote rank 0) or a
 * reduce (the root receives from it): true when this rank's plan is
 * complete (its group's other ranks and empty calls do nothing). */
static bool root_group_done(hcp_plan_t *p, int root, int64_t count, size_t esize, bool root_sends)
{
    if (0 == count * (int64_t) esize || HCP_INTER_NONE == root) {
        return true;
    }
    if (HCP_INTER_ROOT == root) {
        (root_sends ? hcp_send : hcp_recv)(p, 0, HCP_RBUF, 0, count);
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ */

int hcp_inter_barrier(hcp_plan_t *p, int nl, int nr, int rank)
{
    (void) nr;
    hcp_reset(p, 1, 1);
    int children[32];
    int k = hcp_binomial_children(nl, rank, children, 32);
    /* fan in */
    for (int i = 0; i < k; ++i) {
        hcp_recv(p, children[i], HCP_RBUF, 0, 0);
        p->ops[p->nops - 1].local = 1;
    }
    hcp_end_round(p);
    if (rank > 0) {
        hcp_send(p, hcp_binomial_parent(rank), HCP_RBUF, 0, 0);
        p->ops[p->nops - 1].local = 1;
        hcp_end_round(p);
        hcp_recv(p, hcp_binomial_parent(rank), HCP_RBUF, 0, 0);
        p->ops[p->nops - 1].local = 1;
    } else {
        /* both groups have arrived once the leaders have heard each other */
        hcp_recv(p, 0, HCP_RBUF, 0, 0);
        hcp_send(p, 0, HCP_RBUF, 0, 0);
    }
    hcp_end_round(p);
    /* fan out */
    for (int i = 0; i < k; ++i) {
        hcp_send(p, children[i], HCP_RBUF, 0, 0);
        p->ops[p->nops - 1].local = 1;
    }
    return hcp_finish(p);
}

int hcp_inter_bcast(hcp_plan_t *p, int nl, int nr, int rank, int root, int64_t count, size_t esize)
{
    (void) nr;
    hcp_reset(p, esize, esize);
    if (root_group_done(p, root, count, esize, true)) {
        return hcp_finish(p);
    }
    if (0 == rank) {
        hcp_recv(p, root, HCP_RBUF, 0, count);
    }
    hcp_plan_t sub;
    hcp_init(&sub);
    int rc = append_local(p, &sub, hcp_bcast_binomial(&sub, nl, rank, 0, count, esize), same);
    hcp_fini(&sub);
    return 0 == rc ? hcp_finish(p) : -1;
}

/* This group's inputs reduced at its rank 0: returns the buffer that holds
 * them there (SBUF for a group of one, else TMP1), -1 out of memory. */
static int reduce_to_leader(hcp_plan_t *p, int nl, int rank, int64_t count, size_t esize,
                            bool commutative)
{
    if (1 == nl) {
        return HCP_SBUF;
    }
    hcp_plan_t sub;
    hcp_init(&sub);
    hcp_scratch(p, HCP_TMP1, HCP_UNIT_RTYPE, rank ? 0 : count);
    int rc = append_local(p, &sub,
                          hcp_reduce_binomial(&sub, nl, rank, 0, count, esize, commutative, false),
                          rbuf_to_tmp1);
    hcp_fini(&sub);
    return 0 == rc ? HCP_TMP1 : -1;
}

int hcp_inter_allreduce(hcp_plan_t *p, int nl, int nr, int rank, int64_t count, size_t esize,
                        bool commutative)
{
    (void) nr;
    hcp_reset(p, esize, esize);
    if (0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    int acc = reduce_to_leader(p, nl, rank, count, esize, commutative);
    if (acc < 0) {
        return -1;
    }
    hcp_end_round(p);
    if (0 == rank) {
        hcp_recv(p, 0, HCP_RBUF, 0, count);
        hcp_send(p, 0, acc, 0, count);
    }
    hcp_plan_t sub;
    hcp_init(&sub);
    int rc = append_local(p, &sub, hcp_bcast_binomial(&sub, nl, rank, 0, count, esize), same);
    hcp_fini(&sub);
    return 0 == rc ? hcp_finish(p) : -1;
}

int hcp_inter_reduce(hcp_plan_t *p, int nl, int nr, int rank, int root, int64_t count, size_t esize,
                     bool commutative)
{
    (void) nr;
    hcp_reset(p, esize, esize);
    if (root_group_done(p, root, count, esize, false)) {
        return hcp_finish(p);
    }
    int acc = reduce_to_leader(p, nl, rank, count, esize, commutative);
    if (acc < 0) {
        return -1;
    }
    hcp_end_round(p);
    if (0 == rank) {
        hcp_send(p, root, acc, 0, count);
    }
    return hcp_finish(p);
}

int hcp_inter_reduce_scatter(hcp_plan_t *p, int nl, int nr, int rank, const int *rcounts,
                             int64_t rcount, size_t esize, bool commutative)
{
    (void) nr;
    hcp_reset(p, esize, esize);
    int *displs = NULL;
    int64_t total = 0;
    if (NULL != rcounts) {
        displs = malloc(sizeof(int) * (size_t) nl);
        if (NULL == displs) {
            return -1;
        }
    }
    for (int i = 0; i < nl; ++i) {
        if (NULL != displs) {
            displs[i] = (int) total;
        }
        total += cnt(rcounts, i, rcount);
    }
    if (0 == total * (int64_t) esize) {
        free(displs);
        return hcp_finish(p);
    }
    int acc = reduce_to_leader(p, nl, rank, total, esize, commutative);
    int rc = acc < 0 ? -1 : 0;
    if (0 == rc) {
        hcp_end_round(p);
        if (0 == rank) {
            hcp_scratch(p, HCP_TMP2, HCP_UNIT_RTYPE, total);
            hcp_recv(p, 0, HCP_TMP2, 0, total);
            hcp_send(p, 0, acc, 0, total);
        }
        hcp_plan_t sub;
        hcp_init(&sub);
        rc = append_local(p, &sub,
                          hcp_scatterv_linear(&sub, nl, rank, 0, rcounts, displs, rcount, esize,
                                              cnt(rcounts, rank, rcount), esize, false),
                          sbuf_from_tmp2);
        hcp_fini(&sub);
    }
    free(displs);
    return 0 == rc ? hcp_finish(p) : -1;
}

/* ------------------------------------------------------------------ */

/* The root's side of a gatherv (receive) or scatterv (send): a block per
 * remote rank, in RBUF or SBUF; the other side moves its own `own`
 * units. */
static int rooted(hcp_plan_t *p, int nr, int root, bool gather, const int *counts,
                  const int *displs, int64_t block, size_t bsize, int64_t own, size_t osize)
{
    if (HCP_INTER_ROOT == root) {
        for (int i = 0; i < nr; ++i) {
            int64_t c = cnt(counts, i, block);
            if (c * (int64_t) bsize > 0) {
                (gather ? hcp_recv : hcp_send)(p, i, gather ? HCP_RBUF : HCP_SBUF,
                                               at(displs, i, block), c);
            }
        }
    } else if (HCP_INTER_NONE != root && own * (int64_t) osize > 0) {
        (gather ? hcp_send : hcp_recv)(p, root, gather ? HCP_SBUF : HCP_RBUF, 0, own);
    }
    return hcp_finish(p);
}

int hcp_inter_gatherv(hcp_plan_t *p, int nl, int nr, int rank, int root, int64_t scount,
                      size_t ssize, const int *rcounts, const int *displs, int64_t rcount,
                      size_t rsize)
{
    (void) nl;
    (void) rank;
    hcp_reset(p, ssize, rsize);
    return rooted(p, nr, root, true, rcounts, displs, rcount, rsize, scount, ssize);
}

int hcp_inter_scatterv(hcp_plan_t *p, int nl, int nr, int rank, int root, const int *scounts,
                       const int *displs, int64_t scount, size_t ssize, int64_t rcount,
                       size_t rsize)
{
    (void) nl;
    (void) rank;
    hcp_reset(p, ssize, rsize);
    return rooted(p, nr, root, false, scounts, displs, scount, ssize, rcount, rsize);
}

int hcp_inter_allgather(hcp_plan_t *p, int nl, int nr, int rank, int64_t scount, size_t ssize,
                        int64_t rcount, size_t rsize)
{
    hcp_reset(p, ssize, rsize);
    int64_t out = (int64_t) nl * scount, in = (int64_t) nr * rcount;
    bool sends = out * (int64_t) ssize > 0, gets = in * (int64_t) rsize > 0;
    int blocks = HCP_SBUF; /* where the leader has the group's blocks */
    hcp_plan_t sub;
    hcp_init(&sub);
    int rc = 0;
    if (sends && nl > 1) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_STYPE, rank ? 0 : out);
        rc = append_local(
            p, &sub,
            hcp_gatherv_linear(&sub, nl, rank, 0, scount, ssize, NULL, NULL, scount, ssize, false),
            rbuf_to_tmp0);
        blocks = HCP_TMP0;
        hcp_end_round(p);
    }
    if (0 == rc && 0 == rank) {
        if (gets) {
            hcp_recv(p, 0, HCP_RBUF, 0, in);
        }
        if (sends) {
            hcp_send(p, 0, blocks, 0, out);
        }
    }
    if (0 == rc && gets) {
        rc = append_local(p, &sub, hcp_bcast_binomial(&sub, nl, rank, 0, in, rsize), same);
    }
    hcp_fini(&sub);
    return 0 == rc ? hcp_finish(p) : -1;
}

int hcp_inter_allgatherv(hcp_plan_t *p, int nl, int nr, int rank, int64_t scount, size_t ssize,
                         const int *rcounts, const int *displs, size_t rsize)
{
    (void) nl;
    (void) rank;
    hcp_reset(p, ssize, rsize);
    for (int i = 0; i < nr; ++i) {
        if ((int64_t) rcounts[i] * (int64_t) rsize > 0) {
            hcp_recv(p, i, HCP_RBUF, displs[i], rcounts[i]);
        }
    }
    for (int i = 0; i < nr && scount * (int64_t) ssize > 0; ++i) {
        hcp_send(p, (rank + i) % nr, HCP_SBUF, 0, scount);
    }
    return hcp_finish(p);
}

int hcp_inter_alltoallv(hcp_plan_t *p, int nl, int nr, int rank, const int *scounts,
                        const int *sdispls, int64_t scount, size_t ssize, const int *rcounts,
                        const int *rdispls, int64_t rcount, size_t rsize)
{
    (void) nl;
    hcp_reset(p, ssize, rsize);
    for (int i = 0; i < nr; ++i) {
        int64_t c = cnt(rcounts, i, rcount);
        if (c * (int64_t) rsize > 0) {
            hcp_recv(p, i, HCP_RBUF, at(rdispls, i, rcount), c);
        }
    }
    for (int k = 0; k < nr; ++k) {
        int i = (rank + k) % nr; /* spread the first messages over the receivers */
        int64_t c = cnt(scounts, i, scount);
        if (c * (int64_t) ssize > 0) {
            hcp_send(p, i, HCP_SBUF, at(sdispls, i, scount), c);
        }
    }
    return hcp_finish(p);
}

int hcp_inter_alltoallw(hcp_plan_t *p, int nl, int nr, int rank, const int *scounts,
                        const int *sdispls, const size_t *ssizes, const int *rcounts,
                        const int *rdispls, const size_t *rsizes)
{
    (void) nl;
    /* unit_size is meaningless for per-peer types; 1 keeps byte offsets */
    hcp_reset(p, 1, 1);
    for (int i = 0; i < nr; ++i) {
        if ((int64_t) rcounts[i] * (int64_t) rsizes[i] > 0) {
            hcp_recv(p, i, HCP_RBUF, rdispls[i], rcounts[i]);
        }
    }
    for (int k = 0; k < nr; ++k) {
        int i = (rank + k) % nr;
        if ((int64_t) scounts[i] * (int64_t) ssizes[i] > 0) {
            hcp_send(p, i, HCP_SBUF, sdispls[i], scounts[i]);
        }
    }
    return hcp_finish(p);
}
