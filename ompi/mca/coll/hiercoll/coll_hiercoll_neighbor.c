/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Neighborhood collectives on Cartesian, graph and distributed-graph
 * communicators: this rank's neighbor lists, read from the communicator's
 * topology at each call (Open MPI attaches the topology after the
 * collective components are chosen), and the adapters from a call to the
 * MPI-free planners (coll_hiercoll_plan_neighbor.c), which the executor
 * runs in every mode.
 */
#include "ompi_config.h"

#include <string.h>

#include "ompi/mca/topo/base/base.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_plan_neighbor.h"

#define PLANNED(expr) (0 == (expr) ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE)

/* This rank's sources and destinations in MPI's order (Cartesian: per
 * dimension the negative, then the positive neighbor, MPI_PROC_NULL at a
 * non-periodic border).  *mem holds the lists; the caller frees it. */
static int neighbors_of(ompi_communicator_t *comm, hcp_neighbors_t *nb, int **mem)
{
    int indeg = 0, outdeg = 0, rank = ompi_comm_rank(comm);
    memset(nb, 0, sizeof(*nb));
    *mem = NULL;
    if (!OMPI_COMM_IS_TOPO(comm) || NULL == comm->c_topo
        || OMPI_SUCCESS != mca_topo_base_neighbor_count(comm, &indeg, &outdeg)) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    int *lists = malloc(sizeof(int) * ((size_t) indeg + (size_t) outdeg + 1));
    if (NULL == lists) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int *sources = lists, *dests = lists + indeg, rc = OMPI_SUCCESS;
    if (OMPI_COMM_IS_CART(comm)) {
        for (int d = 0; d < comm->c_topo->mtc.cart->ndims && OMPI_SUCCESS == rc; ++d) {
            rc = mca_topo_base_cart_shift(comm, d, 1, &sources[2 * d], &sources[2 * d + 1]);
            dests[2 * d] = sources[2 * d];
            dests[2 * d + 1] = sources[2 * d + 1];
        }
        nb->cart = true;
    } else if (OMPI_COMM_IS_GRAPH(comm)) {
        rc = mca_topo_base_graph_neighbors(comm, rank, indeg, sources);
        memcpy(dests, sources, sizeof(int) * (size_t) indeg);
    } else {
        const mca_topo_base_comm_dist_graph_2_2_0_t *dg = comm->c_topo->mtc.dist_graph;
        memcpy(sources, dg->in, sizeof(int) * (size_t) indeg);
        memcpy(dests, dg->out, sizeof(int) * (size_t) outdeg);
    }
    if (OMPI_SUCCESS != rc) {
        free(lists);
        return rc;
    }
    nb->indeg = indeg;
    nb->outdeg = outdeg;
    nb->sources = sources;
    nb->dests = dests;
    *mem = lists;
    return OMPI_SUCCESS;
}

/* Plans of the five collectives (the arrays of a regular call are NULL). */
static int neighbor_plan(hcp_plan_t *p, const hc_call_t *c)
{
    hcp_neighbors_t nb;
    int *mem;
    int rc = neighbors_of(c->comm, &nb, &mem);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    switch (c->coll) {
    case HC_NEIGHBOR_ALLGATHER:
    case HC_NEIGHBOR_ALLGATHERV:
        rc = PLANNED(hcp_neighbor_allgatherv(p, &nb, c->scount, c->ssize, c->rcounts, c->rdispls,
                                             c->rcount, c->rsize));
        break;
    case HC_NEIGHBOR_ALLTOALL:
    case HC_NEIGHBOR_ALLTOALLV:
        rc = PLANNED(hcp_neighbor_alltoallv(p, &nb, c->scounts, c->sdispls, c->scount, c->ssize,
                                            c->rcounts, c->rdispls, c->rcount, c->rsize));
        break;
    default: {
        size_t *sizes = malloc(sizeof(size_t) * ((size_t) nb.indeg + (size_t) nb.outdeg + 1));
        if (NULL == sizes) {
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            break;
        }
        for (int j = 0; j < nb.outdeg; ++j) {
            ompi_datatype_type_size(c->stypes[j], &sizes[j]);
        }
        for (int i = 0; i < nb.indeg; ++i) {
            ompi_datatype_type_size(c->rtypes[i], &sizes[nb.outdeg + i]);
        }
        rc = PLANNED(hcp_neighbor_alltoallw(p, &nb, c->scounts, c->sadispls, sizes, c->rcounts,
                                            c->radispls, sizes + nb.outdeg));
        free(sizes);
        break;
    }
    }
    free(mem);
    return rc;
}

/* Only communicators with a topology (MPI's argument checks ensure it;
 * the answer is the same on every rank). */
static bool has_topology(const hc_call_t *c)
{
    return OMPI_COMM_IS_TOPO(c->comm) && NULL != c->comm->c_topo;
}

/* Does a process appear as both neighbors of a dimension (periodic, of
 * size 1 or 2)?  Then the blocks of the pair must match by direction. */
static bool cart_repeats(ompi_communicator_t *comm)
{
    if (!OMPI_COMM_IS_CART(comm) || NULL == comm->c_topo) {
        return false;
    }
    const mca_topo_base_comm_cart_2_2_0_t *cart = comm->c_topo->mtc.cart;
    for (int d = 0; d < cart->ndims; ++d) {
        if (cart->periods[d] && cart->dims[d] <= 2) {
            return true;
        }
    }
    return false;
}

static bool exchanges(hc_coll_t k)
{
    return HC_NEIGHBOR_ALLTOALL == k || HC_NEIGHBOR_ALLTOALLV == k || HC_NEIGHBOR_ALLTOALLW == k;
}

/* auto: the layer below, except nonblocking and persistent
 * alltoall(v,w) on Cartesian communicators that repeat a neighbor, where
 * Open MPI 4.1.4's libnbc (which provides those forms) posts a pair's
 * blocks in list order, so that each lands in the other direction's block
 * (or fails with MPI_ERR_TRUNCATE); coll/basic's blocking forms match
 * them by direction, as hiercoll's plan does.  The topology is the same
 * on every rank. */
const hc_algo_t *mca_coll_hiercoll_neighbor_auto(const hc_call_t *c)
{
    if (HC_BLOCKING != c->mode && exchanges(c->coll) && cart_repeats(c->comm)) {
        return &mca_coll_hiercoll_neighbor_algos[0];
    }
    return NULL;
}

void mca_coll_hiercoll_neighbor_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                         hc_mode_t md, char *buf, size_t len)
{
    const char *prev = m->prev_name[k][md];
    if (NULL == prev) {
        snprintf(buf, len, "=%s", mca_coll_hiercoll_neighbor_algos[0].name);
    } else if (HC_BLOCKING != md && exchanges(k)) {
        snprintf(buf, len, "=%s(cart,periodic<=2),->%s", mca_coll_hiercoll_neighbor_algos[0].name,
                 prev);
    } else {
        snprintf(buf, len, "->%s", prev);
    }
}

/* One table serves the five collectives (the plan looks at c->coll). */
const hc_algo_t mca_coll_hiercoll_neighbor_algos[] = {
    {.name = "linear",
     .summary = "every block to its neighbor at once, in MPI's order",
     .plan = neighbor_plan,
     .usable = has_topology},
    {.name = NULL},
};
