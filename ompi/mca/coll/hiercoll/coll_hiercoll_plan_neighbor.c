/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Neighborhood collectives as plans (MPI-free): one round, every receive
 * in source order, then every send in the order that keeps repeated pairs
 * matched (coll_hiercoll_plan_neighbor.h).  Blocks without a process and
 * blocks of no bytes take no message (both ends agree: MPI requires equal
 * type signatures for each pair of blocks).
 */
#include "coll_hiercoll_plan_neighbor.h"

static inline int64_t count_at(const int *counts, int i, int64_t count)
{
    return NULL != counts ? counts[i] : count;
}

static inline int64_t displ_at(const int *displs, int i, int64_t count)
{
    return NULL != displs ? displs[i] : (int64_t) i * count;
}

/* Receive block i from sources[i] (arrays NULL: regular blocks of count
 * elements). */
static void recv_blocks(hcp_plan_t *p, const hcp_neighbors_t *nb, const int *counts,
                        const int *displs, int64_t count, size_t esize)
{
    for (int i = 0; i < nb->indeg; ++i) {
        int64_t c = count_at(counts, i, count);
        if (nb->sources[i] >= 0 && c * (int64_t) esize > 0) {
            hcp_recv(p, nb->sources[i], HCP_RBUF, displ_at(displs, i, count), c);
        }
    }
}

int hcp_neighbor_allgatherv(hcp_plan_t *p, const hcp_neighbors_t *nb, int64_t scount,
                            size_t ssize, const int *rcounts, const int *rdispls, int64_t rcount,
                            size_t rsize)
{
    hcp_reset(p, ssize, rsize);
    recv_blocks(p, nb, rcounts, rdispls, rcount, rsize);
    for (int k = 0; k < nb->outdeg && scount * (int64_t) ssize > 0; ++k) {
        int to = nb->dests[hcp_neighbor_send_block(nb, k)];
        if (to >= 0) {
            hcp_send(p, to, HCP_SBUF, 0, scount);
        }
    }
    return hcp_finish(p);
}

int hcp_neighbor_alltoallv(hcp_plan_t *p, const hcp_neighbors_t *nb, const int *scounts,
                           const int *sdispls, int64_t scount, size_t ssize, const int *rcounts,
                           const int *rdispls, int64_t rcount, size_t rsize)
{
    hcp_reset(p, ssize, rsize);
    recv_blocks(p, nb, rcounts, rdispls, rcount, rsize);
    for (int k = 0; k < nb->outdeg; ++k) {
        int j = hcp_neighbor_send_block(nb, k);
        int64_t c = count_at(scounts, j, scount);
        if (nb->dests[j] >= 0 && c * (int64_t) ssize > 0) {
            hcp_send(p, nb->dests[j], HCP_SBUF, displ_at(sdispls, j, scount), c);
        }
    }
    return hcp_finish(p);
}

/* A send or receive of block `blk`, which names its datatype. */
static void block_op(hcp_plan_t *p, bool send, int peer, int64_t off, int64_t count, int blk)
{
    int before = p->nops;
    if (send) {
        hcp_send(p, peer, HCP_SBUF, off, count);
    } else {
        hcp_recv(p, peer, HCP_RBUF, off, count);
    }
    if (p->nops > before) {
        p->ops[p->nops - 1].soff = blk;
    }
}

int hcp_neighbor_alltoallw(hcp_plan_t *p, const hcp_neighbors_t *nb, const int *scounts,
                           const ptrdiff_t *sdispls, const size_t *ssizes, const int *rcounts,
                           const ptrdiff_t *rdispls, const size_t *rsizes)
{
    hcp_reset(p, 1, 1);
    for (int i = 0; i < nb->indeg; ++i) {
        if (nb->sources[i] >= 0 && (int64_t) rcounts[i] * (int64_t) rsizes[i] > 0) {
            block_op(p, false, nb->sources[i], rdispls[i], rcounts[i], i);
        }
    }
    for (int k = 0; k < nb->outdeg; ++k) {
        int j = hcp_neighbor_send_block(nb, k);
        if (nb->dests[j] >= 0 && (int64_t) scounts[j] * (int64_t) ssizes[j] > 0) {
            block_op(p, true, nb->dests[j], sdispls[j], scounts[j], j);
        }
    }
    return hcp_finish(p);
}
