/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz's calls: each of the 17 collectives and the 5 neighborhood
 * collectives in its blocking, nonblocking and persistent form, from one
 * set of arguments.
 */
#include "hc_fuzz.h"

const char *hf_coll_names[C_N] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw", "barrier",
    "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter_block",
    "reduce_scatter", "scan", "scatter", "scatterv", "neighbor_allgather",
    "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"};

int hf_call_blocking(int coll, hf_call_t *a, MPI_Comm c)
{
    switch (coll) {
    case C_ALLGATHER:
        return MPI_Allgather(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c);
    case C_ALLGATHERV:
        return MPI_Allgatherv(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls, a->rtype,
                              c);
    case C_ALLREDUCE: return MPI_Allreduce(a->sb, a->rb, a->rcount, a->rtype, a->op, c);
    case C_ALLTOALL: return MPI_Alltoall(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c);
    case C_ALLTOALLV:
        return MPI_Alltoallv(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcounts, a->rdispls,
                             a->rtype, c);
    case C_ALLTOALLW:
        return MPI_Alltoallw(a->sb, a->scounts, a->sdispls, a->stypes, a->rb, a->rcounts,
                             a->rdispls, a->rtypes, c);
    case C_BARRIER: return MPI_Barrier(c);
    case C_BCAST: return MPI_Bcast(a->rb, a->rcount, a->rtype, a->root, c);
    case C_EXSCAN: return MPI_Exscan(a->sb, a->rb, a->rcount, a->rtype, a->op, c);
    case C_GATHER:
        return MPI_Gather(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, a->root, c);
    case C_GATHERV:
        return MPI_Gatherv(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls, a->rtype,
                           a->root, c);
    case C_REDUCE: return MPI_Reduce(a->sb, a->rb, a->rcount, a->rtype, a->op, a->root, c);
    case C_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block(a->sb, a->rb, a->rcount, a->rtype, a->op, c);
    case C_REDUCE_SCATTER: return MPI_Reduce_scatter(a->sb, a->rb, a->rcounts, a->rtype, a->op, c);
    case C_SCAN: return MPI_Scan(a->sb, a->rb, a->rcount, a->rtype, a->op, c);
    case C_SCATTER:
        return MPI_Scatter(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, a->root, c);
    case C_NB_ALLGATHER:
        return MPI_Neighbor_allgather(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c);
    case C_NB_ALLGATHERV:
        return MPI_Neighbor_allgatherv(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls,
                                       a->rtype, c);
    case C_NB_ALLTOALL:
        return MPI_Neighbor_alltoall(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c);
    case C_NB_ALLTOALLV:
        return MPI_Neighbor_alltoallv(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcounts,
                                      a->rdispls, a->rtype, c);
    case C_NB_ALLTOALLW:
        return MPI_Neighbor_alltoallw(a->sb, a->scounts, a->sdispls_a, a->stypes, a->rb, a->rcounts,
                                      a->rdispls_a, a->rtypes, c);
    default:
        return MPI_Scatterv(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcount, a->rtype,
                            a->root, c);
    }
}

int hf_call_nonblocking(int coll, hf_call_t *a, MPI_Comm c, MPI_Request *q)
{
    switch (coll) {
    case C_ALLGATHER:
        return MPI_Iallgather(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c, q);
    case C_ALLGATHERV:
        return MPI_Iallgatherv(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls, a->rtype,
                               c, q);
    case C_ALLREDUCE: return MPI_Iallreduce(a->sb, a->rb, a->rcount, a->rtype, a->op, c, q);
    case C_ALLTOALL:
        return MPI_Ialltoall(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c, q);
    case C_ALLTOALLV:
        return MPI_Ialltoallv(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcounts,
                              a->rdispls, a->rtype, c, q);
    case C_ALLTOALLW:
        return MPI_Ialltoallw(a->sb, a->scounts, a->sdispls, a->stypes, a->rb, a->rcounts,
                              a->rdispls, a->rtypes, c, q);
    case C_BARRIER: return MPI_Ibarrier(c, q);
    case C_BCAST: return MPI_Ibcast(a->rb, a->rcount, a->rtype, a->root, c, q);
    case C_EXSCAN: return MPI_Iexscan(a->sb, a->rb, a->rcount, a->rtype, a->op, c, q);
    case C_GATHER:
        return MPI_Igather(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, a->root, c, q);
    case C_GATHERV:
        return MPI_Igatherv(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls, a->rtype,
                            a->root, c, q);
    case C_REDUCE: return MPI_Ireduce(a->sb, a->rb, a->rcount, a->rtype, a->op, a->root, c, q);
    case C_REDUCE_SCATTER_BLOCK:
        return MPI_Ireduce_scatter_block(a->sb, a->rb, a->rcount, a->rtype, a->op, c, q);
    case C_REDUCE_SCATTER:
        return MPI_Ireduce_scatter(a->sb, a->rb, a->rcounts, a->rtype, a->op, c, q);
    case C_SCAN: return MPI_Iscan(a->sb, a->rb, a->rcount, a->rtype, a->op, c, q);
    case C_SCATTER:
        return MPI_Iscatter(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, a->root, c, q);
    case C_NB_ALLGATHER:
        return MPI_Ineighbor_allgather(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c,
                                       q);
    case C_NB_ALLGATHERV:
        return MPI_Ineighbor_allgatherv(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls,
                                        a->rtype, c, q);
    case C_NB_ALLTOALL:
        return MPI_Ineighbor_alltoall(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c, q);
    case C_NB_ALLTOALLV:
        return MPI_Ineighbor_alltoallv(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcounts,
                                       a->rdispls, a->rtype, c, q);
    case C_NB_ALLTOALLW:
        return MPI_Ineighbor_alltoallw(a->sb, a->scounts, a->sdispls_a, a->stypes, a->rb,
                                       a->rcounts, a->rdispls_a, a->rtypes, c, q);
    default:
        return MPI_Iscatterv(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcount, a->rtype,
                             a->root, c, q);
    }
}

int hf_call_init(int coll, hf_call_t *a, MPI_Comm c, MPI_Request *q)
{
    MPI_Info i = MPI_INFO_NULL;
    switch (coll) {
    case C_ALLGATHER:
        return MPI_Allgather_init(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c, i, q);
    case C_ALLGATHERV:
        return MPI_Allgatherv_init(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls,
                                   a->rtype, c, i, q);
    case C_ALLREDUCE: return MPI_Allreduce_init(a->sb, a->rb, a->rcount, a->rtype, a->op, c, i, q);
    case C_ALLTOALL:
        return MPI_Alltoall_init(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c, i, q);
    case C_ALLTOALLV:
        return MPI_Alltoallv_init(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcounts,
                                  a->rdispls, a->rtype, c, i, q);
    case C_ALLTOALLW:
        return MPI_Alltoallw_init(a->sb, a->scounts, a->sdispls, a->stypes, a->rb, a->rcounts,
                                  a->rdispls, a->rtypes, c, i, q);
    case C_BARRIER: return MPI_Barrier_init(c, i, q);
    case C_BCAST: return MPI_Bcast_init(a->rb, a->rcount, a->rtype, a->root, c, i, q);
    case C_EXSCAN: return MPI_Exscan_init(a->sb, a->rb, a->rcount, a->rtype, a->op, c, i, q);
    case C_GATHER:
        return MPI_Gather_init(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, a->root, c,
                               i, q);
    case C_GATHERV:
        return MPI_Gatherv_init(a->sb, a->scount, a->stype, a->rb, a->rcounts, a->rdispls, a->rtype,
                                a->root, c, i, q);
    case C_REDUCE:
        return MPI_Reduce_init(a->sb, a->rb, a->rcount, a->rtype, a->op, a->root, c, i, q);
    case C_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block_init(a->sb, a->rb, a->rcount, a->rtype, a->op, c, i, q);
    case C_REDUCE_SCATTER:
        return MPI_Reduce_scatter_init(a->sb, a->rb, a->rcounts, a->rtype, a->op, c, i, q);
    case C_SCAN: return MPI_Scan_init(a->sb, a->rb, a->rcount, a->rtype, a->op, c, i, q);
    case C_SCATTER:
        return MPI_Scatter_init(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, a->root, c,
                                i, q);
    case C_NB_ALLGATHER:
        return MPI_Neighbor_allgather_init(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype,
                                           c, i, q);
    case C_NB_ALLGATHERV:
        return MPI_Neighbor_allgatherv_init(a->sb, a->scount, a->stype, a->rb, a->rcounts,
                                            a->rdispls, a->rtype, c, i, q);
    case C_NB_ALLTOALL:
        return MPI_Neighbor_alltoall_init(a->sb, a->scount, a->stype, a->rb, a->rcount, a->rtype, c,
                                          i, q);
    case C_NB_ALLTOALLV:
        return MPI_Neighbor_alltoallv_init(a->sb, a->scounts, a->sdispls, a->stype, a->rb,
                                           a->rcounts, a->rdispls, a->rtype, c, i, q);
    case C_NB_ALLTOALLW:
        return MPI_Neighbor_alltoallw_init(a->sb, a->scounts, a->sdispls_a, a->stypes, a->rb,
                                           a->rcounts, a->rdispls_a, a->rtypes, c, i, q);
    default:
        return MPI_Scatterv_init(a->sb, a->scounts, a->sdispls, a->stype, a->rb, a->rcount,
                                 a->rtype, a->root, c, i, q);
    }
}

