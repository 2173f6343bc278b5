/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Neighborhood collectives, MPI-free: plans from a rank's neighbor lists.
 *
 * A rank's neighborhood is two lists in the topology's order: the SOURCES
 * it receives from (receive block i comes from sources[i]) and the
 * DESTINATIONS it sends to (send block j goes to dests[j]).  A process may
 * appear several times in a list (graphs with repeated edges, periodic
 * Cartesian dimensions of size 1 or 2); a negative entry is no process
 * (MPI_PROC_NULL at a non-periodic border): its block is skipped, and
 * keeps its place.
 *
 * Several messages between one pair in one call match in posting order
 * (MPI's non-overtaking rule; the executor and the simulator post in plan
 * order under one tag), so the order of a rank's sends to one destination
 * must be the order of that destination's receives from it:
 *   graphs and distributed graphs: the k-th occurrence of s in a rank's
 *     destinations is received by s's k-th occurrence of the rank in its
 *     sources (the lists' order; nothing to reorder);
 *   Cartesian topologies (MPI 4.0, mpi-forum/mpi-issues#153): blocks 2d
 *     and 2d+1 belong to the negative and positive neighbor of dimension
 *     d, and what a rank sends to its positive neighbor arrives in that
 *     neighbor's NEGATIVE block (and vice versa).  When one process is
 *     both neighbors, sends of a dimension go positive first while
 *     receives go negative first: the pairs then match in order.
 */
#ifndef MCA_COLL_HIERCOLL_PLAN_NEIGHBOR_H
#define MCA_COLL_HIERCOLL_PLAN_NEIGHBOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_hiercoll_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hcp_neighbors {
    int indeg, outdeg;
    const int *sources; /* indeg ranks (negative: no process) */
    const int *dests;   /* outdeg ranks (negative: no process) */
    /* Cartesian: indeg == outdeg == 2 * ndims, entries 2d and 2d+1 the
     * negative and positive neighbor of dimension d */
    bool cart;
} hcp_neighbors_t;

/* The destination block of this rank's k-th send (0 <= k < outdeg). */
static inline int hcp_neighbor_send_block(const hcp_neighbors_t *nb, int k)
{
    return nb->cart ? k ^ 1 : k;
}

/* Neighbor allgather(v): SBUF (scount elements of ssize bytes) to every
 * destination; receive block i (rcounts[i] elements at rdispls[i], or
 * rcount at i * rcount when the arrays are NULL) from sources[i].  One
 * round.  Returns 0, or -1 when memory ran out. */
int hcp_neighbor_allgatherv(hcp_plan_t *p, const hcp_neighbors_t *nb, int64_t scount,
                            size_t ssize, const int *rcounts, const int *rdispls, int64_t rcount,
                            size_t rsize);
/* Neighbor alltoall(v): send block j (scounts[j] at sdispls[j], or scount
 * at j * scount) to dests[j]; receive block i as above. */
int hcp_neighbor_alltoallv(hcp_plan_t *p, const hcp_neighbors_t *nb, const int *scounts,
                           const int *sdispls, int64_t scount, size_t ssize, const int *rcounts,
                           const int *rdispls, int64_t rcount, size_t rsize);
/* Neighbor alltoallw: one datatype PER BLOCK.  Offsets are byte
 * displacements, counts are in the block's elements (ssizes[j], rsizes[i]
 * signature bytes each), and every send and receive names its block in
 * `soff` (HCP_SEND/HCP_RECV ops of a buffer with per-block datatypes): the
 * executor takes the block's datatype from it.  Plans use unit size 1. */
int hcp_neighbor_alltoallw(hcp_plan_t *p, const hcp_neighbors_t *nb, const int *scounts,
                           const ptrdiff_t *sdispls, const size_t *ssizes, const int *rcounts,
                           const ptrdiff_t *rdispls, const size_t *rsizes);

#ifdef __cplusplus
}
#endif

#endif /* MCA_COLL_HIERCOLL_PLAN_NEIGHBOR_H */
