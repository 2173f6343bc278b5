/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * hiercoll on Open MPI 4.1.x and 5.0.x: the ONE place that knows what
 * differs between them.  Everything else in the project (component, tests,
 * contrib) is written once, against the names below; a difference found
 * later goes here, not into an #if elsewhere.  configure.ac accepts 4.1
 * and 5.0 and compiles this header once (its "which Open MPI" check).
 *
 * Two parts:
 *
 *   1. MPI programs (test/mpi, contrib): only <mpi.h>.  The MPI 4.0
 *      persistent collectives are standard MPI_*_init in 5.0 and the
 *      MPIX_*_init of the pcollreq extension in 4.1; both spellings work
 *      on both.  Define HIERCOLL_COMPAT_MPI_ONLY before including it.
 *
 *   2. The component: Open MPI's internal headers.
 *      - coll framework versions: component 2.0.0 (4.1) / 2.4.0 (5.0)
 *        (hc_coll_component_t, HC_COLL_BASE_VERSION); the module type is
 *        mca_coll_base_module_t in both (2.3.0 / 2.4.0: 5.0 adds
 *        agree/iagree and moves reduce_local and disable);
 *      - how the selection treats a module that keeps the previous layer
 *        (HC_COLL_* below): in 4.1 and 5.0.x coll_base_comm_select()
 *        calls a module's enable before it copies that module's functions
 *        into comm->c_coll (so enable sees the layer below and saves it,
 *        retaining those modules, as han does), and unselect calls the
 *        disable of a slot's module once per slot it holds;
 *      - headers that moved (mutexes, the runtime);
 *      - the info API (5.0: opal_cstring_t), the communicator id (5.0:
 *        extended cid; the local index prints as 4.1's c_contextid did);
 *      - coll/base: ompi_coll_base_nbc_request_t's retained objects and
 *        ompi_coll_base_retain_datatypes_w (5.0: use_topo argument);
 *      - the structures the ABI self-check compares (HC_ABI_CHECKS).
 */
#ifndef MCA_COLL_HIERCOLL_COMPAT_H
#define MCA_COLL_HIERCOLL_COMPAT_H

#include <mpi.h>

#if !defined(OMPI_MAJOR_VERSION) || OMPI_MAJOR_VERSION < 4                                       \
    || (OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION < 1) || OMPI_MAJOR_VERSION > 5
#error "hiercoll supports Open MPI 4.1.x and 5.0.x"
#endif

/* 41 or 50: the series, for messages and the few places that must say it. */
#define HC_OMPI_SERIES (OMPI_MAJOR_VERSION * 10 + OMPI_MINOR_VERSION)
#define HC_OMPI_5 (OMPI_MAJOR_VERSION >= 5)

/* ------------------------------------------------------------------ */
/* 1. MPI programs: the persistent collectives' names                   */
/* ------------------------------------------------------------------ */

#if HC_OMPI_5
/* Standard since MPI 4.0; code written with 4.1's names builds as is. */
#define MPIX_Allgather_init MPI_Allgather_init
#define MPIX_Allgatherv_init MPI_Allgatherv_init
#define MPIX_Allreduce_init MPI_Allreduce_init
#define MPIX_Alltoall_init MPI_Alltoall_init
#define MPIX_Alltoallv_init MPI_Alltoallv_init
#define MPIX_Alltoallw_init MPI_Alltoallw_init
#define MPIX_Barrier_init MPI_Barrier_init
#define MPIX_Bcast_init MPI_Bcast_init
#define MPIX_Exscan_init MPI_Exscan_init
#define MPIX_Gather_init MPI_Gather_init
#define MPIX_Gatherv_init MPI_Gatherv_init
#define MPIX_Reduce_init MPI_Reduce_init
#define MPIX_Reduce_scatter_init MPI_Reduce_scatter_init
#define MPIX_Reduce_scatter_block_init MPI_Reduce_scatter_block_init
#define MPIX_Scan_init MPI_Scan_init
#define MPIX_Scatter_init MPI_Scatter_init
#define MPIX_Scatterv_init MPI_Scatterv_init
#define MPIX_Neighbor_allgather_init MPI_Neighbor_allgather_init
#define MPIX_Neighbor_allgatherv_init MPI_Neighbor_allgatherv_init
#define MPIX_Neighbor_alltoall_init MPI_Neighbor_alltoall_init
#define MPIX_Neighbor_alltoallv_init MPI_Neighbor_alltoallv_init
#define MPIX_Neighbor_alltoallw_init MPI_Neighbor_alltoallw_init
#else
/* 4.1: the pcollreq extension; the standard names map onto it. */
#include <mpi-ext.h>
#define MPI_Allgather_init MPIX_Allgather_init
#define MPI_Allgatherv_init MPIX_Allgatherv_init
#define MPI_Allreduce_init MPIX_Allreduce_init
#define MPI_Alltoall_init MPIX_Alltoall_init
#define MPI_Alltoallv_init MPIX_Alltoallv_init
#define MPI_Alltoallw_init MPIX_Alltoallw_init
#define MPI_Barrier_init MPIX_Barrier_init
#define MPI_Bcast_init MPIX_Bcast_init
#define MPI_Exscan_init MPIX_Exscan_init
#define MPI_Gather_init MPIX_Gather_init
#define MPI_Gatherv_init MPIX_Gatherv_init
#define MPI_Reduce_init MPIX_Reduce_init
#define MPI_Reduce_scatter_init MPIX_Reduce_scatter_init
#define MPI_Reduce_scatter_block_init MPIX_Reduce_scatter_block_init
#define MPI_Scan_init MPIX_Scan_init
#define MPI_Scatter_init MPIX_Scatter_init
#define MPI_Scatterv_init MPIX_Scatterv_init
#define MPI_Neighbor_allgather_init MPIX_Neighbor_allgather_init
#define MPI_Neighbor_allgatherv_init MPIX_Neighbor_allgatherv_init
#define MPI_Neighbor_alltoall_init MPIX_Neighbor_alltoall_init
#define MPI_Neighbor_alltoallv_init MPIX_Neighbor_alltoallv_init
#define MPI_Neighbor_alltoallw_init MPIX_Neighbor_alltoallw_init
#endif

/* Seconds on a clock that every process of one host shares.  MPI_Wtime is
 * one in 4.1, but 5.0's counts from each process's start (its
 * MPI_WTIME_IS_GLOBAL is false), so tests that compare times taken on
 * different ranks use this. */
#include <time.h>
static inline double hc_host_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

#ifndef HIERCOLL_COMPAT_MPI_ONLY

/* ------------------------------------------------------------------ */
/* 2. The component                                                     */
/* ------------------------------------------------------------------ */

#include "ompi_config.h"

#include <string.h>

#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/mca/coll/coll.h"
#include "opal/util/info.h"

/* Headers that moved: the mutexes (opal/mca/threads in 5.0) and the
 * runtime (ORTE's rte framework in 4.1, ompi_rte over PMIx in 5.0; both
 * give OMPI_PROC_MY_NAME). */
#if HC_OMPI_5
#include "ompi/runtime/ompi_rte.h"
#include "opal/mca/threads/mutex.h"
#else
#include "ompi/mca/rte/rte.h"
#include "opal/threads/mutex.h"
#endif

/* The coll framework's versions. */
#if HC_OMPI_5
typedef mca_coll_base_component_2_4_0_t hc_coll_component_t;
#define HC_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_4_0
#define HC_COLL_API_VERSION "2.4.0"
#else
typedef mca_coll_base_component_2_0_0_t hc_coll_component_t;
#define HC_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_2_0_0
#define HC_COLL_API_VERSION "2.0.0"
#endif

/* The component structure's visibility (the .so is built with
 * -fvisibility=hidden): 4.1's OMPI_MODULE_DECLSPEC is OMPI_DECLSPEC in 5.0. */
#if HC_OMPI_5
#define HC_COMPONENT_DECLSPEC OMPI_DECLSPEC
#else
#define HC_COMPONENT_DECLSPEC OMPI_MODULE_DECLSPEC
#endif

/* A module's enable and disable hooks (same signatures in 4.1 and 5.0).
 * enable(module, comm) runs while comm->c_coll still holds the layer
 * below (HC_COLL_ENABLE_SEES_PREVIOUS): save and retain it there; the
 * selection then installs the module's non-NULL function pointers itself
 * (HC_COLL_SELECTION_INSTALLS).  disable(module, comm) may run once per
 * slot the module holds: it must be idempotent.  A later Open MPI whose
 * modules install and restore their own slots (6.0's
 * MCA_COLL_INSTALL_API) would set these to 0 and get install/uninstall
 * helpers here. */
#define HC_COLL_ENABLE_SEES_PREVIOUS 1
#define HC_COLL_SELECTION_INSTALLS 1
#define HC_MODULE_SET_HOOKS(mod, enable_fn, disable_fn)                                            \
    do {                                                                                           \
        (mod)->coll_module_enable = (enable_fn);                                                   \
        (mod)->coll_module_disable = (disable_fn);                                                 \
    } while (0)

/* The per-communicator table of the selected layer. */
typedef mca_coll_base_comm_coll_t hc_comm_coll_t;

/* Slots of that table that exist in one series only and that Open MPI's
 * selection does not require: 5.0's agreement (ULFM, when built with it;
 * coll/basic and coll/ftagree fill it, hiercoll leaves it to them).
 * X(name) for each. */
#if HC_OMPI_5 && OPAL_ENABLE_FT_MPI
#define HC_COLL_OPTIONAL_SLOTS(X) X(agree) X(iagree)
#else
#define HC_COLL_OPTIONAL_SLOTS(X)
#endif

/* Info keys: copy the value of `key` into val[len] (truncated, always
 * terminated); *flag tells whether it was set.  Returns OPAL_SUCCESS or an
 * error. */
static inline int hc_info_get(opal_info_t *info, const char *key, char *val, size_t len,
                              int *flag)
{
    *flag = 0;
    if (NULL == info || 0 == len) {
        return OPAL_ERR_BAD_PARAM;
    }
#if HC_OMPI_5
    opal_cstring_t *s = NULL;
    int rc = opal_info_get(info, key, &s, flag);
    if (OPAL_SUCCESS == rc && *flag && NULL != s) {
        size_t n = s->length < len - 1 ? s->length : len - 1;
        memcpy(val, s->string, n);
        val[n] = '\0';
    }
    if (NULL != s) {
        OBJ_RELEASE(s);
    }
    return rc;
#else
    return opal_info_get(info, key, (int) len - 1, val, flag);
#endif
}

/* Has info a key that begins with prefix?  (Where it cannot tell, yes:
 * the caller then asks for each key it knows.) */
static inline bool hc_info_has_prefix(opal_info_t *info, const char *prefix)
{
    int n = 0;
    if (NULL == info || OPAL_SUCCESS != opal_info_get_nkeys(info, &n)) {
        return NULL != info;
    }
    size_t pl = strlen(prefix);
    for (int i = 0; i < n; ++i) {
        bool hit;
#if HC_OMPI_5
        opal_cstring_t *k = NULL;
        if (OPAL_SUCCESS != opal_info_get_nthkey(info, i, &k) || NULL == k) {
            return true;
        }
        hit = 0 == strncmp(k->string, prefix, pl);
        OBJ_RELEASE(k);
#else
        char k[OPAL_MAX_INFO_KEY + 1];
        if (OPAL_SUCCESS != opal_info_get_nthkey(info, i, k)) {
            return true;
        }
        hit = 0 == strncmp(k, prefix, pl);
#endif
        if (hit) {
            return true;
        }
    }
    return false;
}

/* Set an info key (same in both; named here so that callers need not
 * know it changed nothing). */
#define hc_info_set(info, key, value) opal_info_set((info), (key), (value))

/* The communicator's local id, printed as "cid N". */
static inline int hc_comm_cid(const ompi_communicator_t *comm)
{
#if HC_OMPI_5
    return (int) ompi_comm_get_local_cid(comm);
#else
    return (int) comm->c_contextid;
#endif
}

/* coll/base's nonblocking request: the objects it retains (released
 * when it completes), and retaining a vector of datatypes. */
#if HC_OMPI_5
#define HC_NBC_REQ_OBJS(req) ((req)->data.refcounted.objs.objs)
#define hc_retain_datatypes_w(req, stypes, rtypes)                                                 \
    ompi_coll_base_retain_datatypes_w((req), (stypes), (rtypes), false)
#else
#define HC_NBC_REQ_OBJS(req) ((req)->data.objs.objs)
#define hc_retain_datatypes_w(req, stypes, rtypes)                                                 \
    ompi_coll_base_retain_datatypes_w((req), (stypes), (rtypes))
#endif

/* The structures hiercoll embeds or reads whose sizes the running libmpi
 * must match (each is an OPAL class; its descriptor records libmpi's
 * size).  X(name, class, type) for each; the self-check at init walks the
 * list.  Both series embed the same ones; 5.0 adds the info string and
 * the mutex, whose lock type comes from the threads implementation
 * headers (Debian 13 omits them: configure may use hiercoll's stand-ins,
 * compat/ompi5, and this compares what they laid out). */
#define HC_ABI_CHECKS_COMMON(X)                                                                   \
    X("ompi_communicator_t", ompi_communicator_t_class, ompi_communicator_t)                     \
    X("ompi_group_t", ompi_group_t_class, ompi_group_t)                                          \
    X("ompi_request_t", ompi_request_t_class, ompi_request_t)                                    \
    X("ompi_coll_base_nbc_request_t", ompi_coll_base_nbc_request_t_class,                        \
      ompi_coll_base_nbc_request_t)                                                              \
    X("ompi_datatype_t", ompi_datatype_t_class, ompi_datatype_t)                                 \
    X("ompi_op_t", ompi_op_t_class, ompi_op_t)                                                   \
    X("mca_coll_base_module_t", mca_coll_base_module_t_class, mca_coll_base_module_t)            \
    X("opal_info_t", opal_info_t_class, opal_info_t)
#if HC_OMPI_5
#define HC_ABI_CHECKS(X)                                                                          \
    HC_ABI_CHECKS_COMMON(X)                                                                      \
    X("opal_cstring_t", opal_cstring_t_class, opal_cstring_t)                                    \
    X("opal_mutex_t", opal_mutex_t_class, opal_mutex_t)
#else
#define HC_ABI_CHECKS(X) HC_ABI_CHECKS_COMMON(X)
#endif

#endif /* !HIERCOLL_COMPAT_MPI_ONLY */

#endif /* MCA_COLL_HIERCOLL_COMPAT_H */
