/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Intercommunicators: which slots hiercoll serves itself, and the glue
 * from a call to the intercommunicator planners (coll_hiercoll_plan_inter.c).
 *
 * A slot goes to the layer below when that fills it (coll/inter's
 * blocking collectives, coll/basic's, libnbc's nonblocking and persistent
 * ones), unless coll_hiercoll_inter_own is set or the collective's
 * algorithm parameter says so (any named algorithm: hiercoll's plan;
 * "fallback": the layer below).  Every other slot runs hiercoll's plan on
 * the one executor; so are the blocking ones coll/basic gets wrong in
 * Open MPI 4.1.4 (see broken_below()).  Scan, exscan and the neighborhood
 * collectives do not exist on intercommunicators (MPI's argument checks
 * refuse them).
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_hiercoll.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_below.h"

/* Blocking calls use the tag Open MPI names for their collective. */
_Static_assert(MCA_COLL_BASE_TAG_ALLGATHER - HC_BCAST == MCA_COLL_BASE_TAG_BCAST
                   && MCA_COLL_BASE_TAG_ALLGATHER - HC_SCATTERV == MCA_COLL_BASE_TAG_SCATTERV,
               "hc_coll_t follows the order of Open MPI's blocking collective tags");

static const char *mode_tag[HC_NMODE][2] = {{"", ""}, {"i", ""}, {"", "_init"}};

/* The plan of each collective on an intercommunicator, as verbose names
 * it: "leaders" when the groups meet through their rank 0, "direct" when
 * every rank talks to the remote ranks it has data for. */
static const char *algo_name(hc_coll_t k)
{
    switch (k) {
    case HC_GATHER:
    case HC_GATHERV:
    case HC_SCATTER:
    case HC_SCATTERV:
    case HC_ALLGATHERV:
    case HC_ALLTOALL:
    case HC_ALLTOALLV:
    case HC_ALLTOALLW:
        return "direct";
    case HC_BARRIER:
    case HC_BCAST:
    case HC_ALLREDUCE:
    case HC_REDUCE:
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_REDUCE_SCATTER:
    case HC_ALLGATHER:
        return "leaders";
    default:
        return NULL; /* scan, exscan, neighborhood: not defined on intercommunicators */
    }
}

/* The layer below's blocking intercommunicator collectives that are
 * broken in 4.1.4.  coll/basic: scatter crashes (it waits on requests past
 * the end of its array), and the reductions combine the remote group's
 * contributions in reverse rank order (wrong for non-commutative ops).
 * coll/inter: scatterv's leader takes the root's send counts for counts of
 * its own receive type, so a receive type of another size than the root's
 * send type (the same signature, as MPI allows) fails with MPI_ERR_TRUNCATE
 * or scatters the wrong blocks. */
static bool broken_below(const mca_coll_hiercoll_module_t *m, hc_coll_t k, hc_mode_t md)
{
    const char *below = m->prev_name[k][md];
    if (HC_BLOCKING != md || NULL == below) {
        return false;
    }
    if (0 == strcmp(below, "inter")) {
        return HC_SCATTERV == k;
    }
    if (0 != strcmp(below, "basic")) {
        return false;
    }
    return HC_SCATTER == k || HC_ALLREDUCE == k || HC_REDUCE == k || HC_REDUCE_SCATTER == k
           || HC_REDUCE_SCATTER_BLOCK == k;
}

/* Does hiercoll run this slot itself? */
static bool serves(const mca_coll_hiercoll_module_t *m, hc_coll_t k, hc_mode_t md)
{
    if (NULL == algo_name(k)) {
        return false;
    }
    if (!mca_coll_hiercoll_has_fallback(m, k, md)) {
        return true;
    }
    if (HC_ALGO_FALLBACK == m->choice[k]) {
        return false;
    }
    return mca_coll_hiercoll_params.inter_own || m->choice[k] >= 0 || broken_below(m, k, md);
}

/* Open MPI leaves intercommunicators unnamed */
static const char *name_of(const ompi_communicator_t *comm)
{
    return '\0' != comm->c_name[0] ? comm->c_name : "intercommunicator";
}

static int root_of(const hc_call_t *c)
{
    if (MPI_ROOT == c->root) {
        return HCP_INTER_ROOT;
    }
    return MPI_PROC_NULL == c->root ? HCP_INTER_NONE : c->root;
}

static int plan_call(hcp_plan_t *p, const hc_call_t *c)
{
    int nl = c->size, nr = ompi_comm_remote_size(c->comm), r = c->rank, rc;
    bool commutative = NULL != c->op && ompi_op_is_commute(c->op);
    switch (c->coll) {
    case HC_BARRIER:
        rc = hcp_inter_barrier(p, nl, nr, r);
        break;
    case HC_BCAST:
        rc = hcp_inter_bcast(p, nl, nr, r, root_of(c), c->rcount, c->rsize);
        break;
    case HC_ALLREDUCE:
        rc = hcp_inter_allreduce(p, nl, nr, r, c->rcount, c->rsize, commutative);
        break;
    case HC_REDUCE:
        rc = hcp_inter_reduce(p, nl, nr, r, root_of(c), c->rcount, c->rsize, commutative);
        break;
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_REDUCE_SCATTER:
        rc = hcp_inter_reduce_scatter(p, nl, nr, r, c->rcounts, c->rcount, c->rsize, commutative);
        break;
    case HC_GATHER:
    case HC_GATHERV:
        rc = hcp_inter_gatherv(p, nl, nr, r, root_of(c), c->scount, c->ssize, c->rcounts,
                               c->rdispls, c->rcount, c->rsize);
        break;
    case HC_SCATTER:
    case HC_SCATTERV:
        rc = hcp_inter_scatterv(p, nl, nr, r, root_of(c), c->scounts, c->sdispls, c->scount,
                                c->ssize, c->rcount, c->rsize);
        break;
    case HC_ALLGATHER:
        rc = hcp_inter_allgather(p, nl, nr, r, c->scount, c->ssize, c->rcount, c->rsize);
        break;
    case HC_ALLGATHERV:
        rc = hcp_inter_allgatherv(p, nl, nr, r, c->scount, c->ssize, c->rcounts, c->rdispls,
                                  c->rsize);
        break;
    case HC_ALLTOALL:
    case HC_ALLTOALLV:
        rc = hcp_inter_alltoallv(p, nl, nr, r, c->scounts, c->sdispls, c->scount, c->ssize,
                                 c->rcounts, c->rdispls, c->rcount, c->rsize);
        break;
    case HC_ALLTOALLW: {
        size_t *ss = malloc(sizeof(size_t) * 2 * (size_t) nr);
        if (NULL == ss) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        size_t *rs = ss + nr;
        for (int j = 0; j < nr; ++j) {
            ompi_datatype_type_size(c->stypes[j], &ss[j]);
            ompi_datatype_type_size(c->rtypes[j], &rs[j]);
        }
        rc = hcp_inter_alltoallw(p, nl, nr, r, c->scounts, c->sdispls, ss, c->rcounts, c->rdispls,
                                 rs);
        free(ss);
        break;
    }
    default:
        return OMPI_ERR_NOT_SUPPORTED;
    }
    return 0 == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

int mca_coll_hiercoll_inter_dispatch(hc_call_t *c, ompi_request_t **request,
                                     struct ompi_info_t *info)
{
    mca_coll_hiercoll_module_t *m = c->module;
    bool own = serves(m, c->coll, c->mode);
    if (mca_coll_hiercoll_params.verbose >= 2 && 0 == c->rank) {
        mca_coll_hiercoll_log(2, "%s: %s%s%s %s%s (intercommunicator, np %d+%d)", name_of(c->comm),
                              mode_tag[c->mode][0], mca_coll_hiercoll_coll_names[c->coll],
                              mode_tag[c->mode][1], own ? "= inter:" : "-> ",
                              own ? algo_name(c->coll) : m->prev_name[c->coll][c->mode], c->size,
                              ompi_comm_remote_size(c->comm));
    }
    if (!own) {
        if (!mca_coll_hiercoll_has_fallback(m, c->coll, c->mode)) {
            return OMPI_ERR_NOT_SUPPORTED;
        }
        m->stats.fallbacks[c->coll]++;
        return mca_coll_hiercoll_fallback(c, request, info);
    }
    m->stats.calls[c->coll]++;
    hc_bind_t b;
    mca_coll_hiercoll_bind(c, &b);
    if (HC_BLOCKING == c->mode) {
        /* Blocking calls take the collective's fixed tag: MPI's argument
         * checks skip a blocking call on ranks with nothing to do (e.g. an
         * MPI_PROC_NULL rank of a scatter with sendcount 0), so ranks may
         * not reserve tags alike.  Blocking collectives do not overlap, and
         * messages between two ranks with one tag match in order. */
        int rc = plan_call(&m->plan, c);
        return OMPI_SUCCESS == rc ? mca_coll_hiercoll_exec_blocking(
                   m, c->comm, &m->plan, &b, mca_coll_hiercoll_blocking_tag(c->coll))
                                  : rc;
    }
    hcp_plan_t plan;
    hcp_init(&plan);
    int rc = plan_call(&plan, c);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_hiercoll_exec_request(m, c->comm, &plan, &b, HC_PERSISTENT == c->mode,
                                            request);
    }
    hcp_fini(&plan);
    return rc;
}

void mca_coll_hiercoll_inter_describe(mca_coll_hiercoll_module_t *m)
{
    char head[256];
    snprintf(head, sizeof(head), "%s (cid %d, np %d+%d, intercommunicator)", name_of(m->comm),
             hc_comm_cid(m->comm), ompi_comm_size(m->comm), ompi_comm_remote_size(m->comm));
    mca_coll_hiercoll_log(1, "%s [=inter:alg: hiercoll runs its plan, ->comp: passed to comp; "
                             "blocking|nonblocking|persistent]:", head);
    for (int k = 0; k < HC_NCOLL; ++k) {
        if (NULL == algo_name((hc_coll_t) k)) {
            continue;
        }
        char what[HC_NMODE][64];
        for (int md = 0; md < HC_NMODE; ++md) {
            if (serves(m, (hc_coll_t) k, (hc_mode_t) md)) {
                snprintf(what[md], sizeof(what[md]), "=inter:%s", algo_name((hc_coll_t) k));
            } else {
                snprintf(what[md], sizeof(what[md]), "->%s", m->prev_name[k][md]);
            }
        }
        const char *name = mca_coll_hiercoll_coll_names[k];
        if (0 == strcmp(what[0], what[1]) && 0 == strcmp(what[1], what[2])) {
            mca_coll_hiercoll_log(1, "%s  %s%s", head, name, what[0]);
        } else {
            mca_coll_hiercoll_log(1, "%s  %s%s|%s|%s", head, name, what[0], what[1], what[2]);
        }
    }
}
