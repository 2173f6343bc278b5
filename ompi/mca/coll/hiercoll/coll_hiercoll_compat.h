/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll on Open MPI 4.1.x, 5.0.x and 6.0.x: the ONE place that knows
 * what differs between them.  Everything else in the project (component,
 * tests, contrib) is written once, against the names below; a difference
 * found later goes here, not into an #if elsewhere.  configure.ac accepts
 * 4.1, 5.0 and 6.0 and compiles this header once (its "which Open MPI"
 * check).
 *
 * Two parts:
 *
 *   1. MPI programs (test/mpi, contrib): only <mpi.h>.  The MPI 4.0
 *      persistent collectives are standard MPI_*_init in 5.0 and the
 *      MPIX_*_init of the pcollreq extension in 4.1; both spellings work
 *      on both.  Define HIERCOLL_COMPAT_MPI_ONLY before including it.
 *
 *   2. The component: Open MPI's internal headers.
 *      - coll framework versions: component 2.0.0 (4.1) / 2.4.0 (5.0) /
 *        3.0.0 (6.0) (hc_coll_component_t, HC_COLL_BASE_VERSION); the
 *        module type is mca_coll_base_module_t in all three (2.3.0 /
 *        2.4.0 / 3.0.0: 5.0 adds agree/iagree and moves reduce_local and
 *        disable, 6.0 adds revoke_local);
 *      - how the selection treats a module that keeps the layer below
 *        (HC_COLL_* below): in 4.1 and 5.0.x coll_base_comm_select()
 *        calls a module's enable before it copies that module's functions
 *        into comm->c_coll (so enable sees the layer below and saves it,
 *        retaining those modules, as han does), and unselect calls the
 *        disable of a slot's module once per slot it holds; in 6.0 the
 *        selection copies nothing: enable saves the layer below and
 *        installs the module's own slots, and unselect calls each
 *        module's disable once, in reverse order, to restore them;
 *      - counts (6.0: size_t; v-collectives take tagged count and
 *        displacement arrays, ompi/util/count_disp_array.h): hc_count_t,
 *        hc_counts_t, hc_disps_t, hc_adisps_t and their accessors, so that
 *        the entry points and the calls to the layer below are written
 *        once; hiercoll's own algorithms take int counts (HC_FITS_INT);
 *      - sub-communicators that outlive their parent's order in
 *        MPI_Finalize (HC_SUBCOMM_HOLD / hc_subcomm_free);
 *      - the lowest collective tag (HC_COLL_TAG_BOTTOM: 4.1/5.0 name it
 *        after coll/hcoll, gone in 6.0);
 *      - headers that moved (mutexes, the runtime);
 *      - the info API (5.0: opal_cstring_t), the communicator id (5.0:
 *        extended cid; the local index prints as 4.1's c_contextid did);
 *      - coll/base: ompi_coll_base_nbc_request_t's retained objects and
 *        ompi_coll_base_retain_datatypes_w (5.0: use_topo argument);
 *      - the structures the ABI self-check compares (HC_ABI_CHECKS);
 *      - where show_help finds help-coll-hiercoll.txt and how it
 *        delivers a message (HC_SHOW_HELP_READS_FILES, HC_SHOW_HELP).
 */
#ifndef MCA_COLL_HIERCOLL_COMPAT_H
#define MCA_COLL_HIERCOLL_COMPAT_H

#include <mpi.h>

#if !defined(OMPI_MAJOR_VERSION) || OMPI_MAJOR_VERSION < 4                                         \
    || (OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION < 1)                                         \
    || (OMPI_MAJOR_VERSION == 6 && OMPI_MINOR_VERSION > 0) || OMPI_MAJOR_VERSION > 6
#error "hiercoll supports Open MPI 4.1.x, 5.0.x and 6.0.x"
#endif

/* 41, 50 or 60: the series, for messages and the few places that must
 * say it.  HC_OMPI_5: 5.0 or later; HC_OMPI_6: 6.0. */
#define HC_OMPI_SERIES (OMPI_MAJOR_VERSION * 10 + OMPI_MINOR_VERSION)
#define HC_OMPI_5 (OMPI_MAJOR_VERSION >= 5)
#define HC_OMPI_6 (OMPI_MAJOR_VERSION >= 6)

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

/* The MPI 4.0 large-count bindings (MPI_Allreduce_c ...): Open MPI 6.0. */
#define HC_MPI_LARGE_COUNT (OMPI_MAJOR_VERSION >= 6)

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

#include <limits.h>
#include <stdbool.h>
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
#if HC_OMPI_6
typedef mca_coll_base_component_3_0_0_t hc_coll_component_t;
#define HC_COLL_BASE_VERSION MCA_COLL_BASE_VERSION_3_0_0
#define HC_COLL_API_VERSION "3.0.0"
#elif HC_OMPI_5
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

/* A module's enable and disable hooks (same signatures in 4.1, 5.0 and
 * 6.0).  enable(module, comm) runs while comm->c_coll still holds the
 * layer below (HC_COLL_ENABLE_SEES_PREVIOUS): save and retain it there.
 * 4.1 and 5.0: the selection then installs the module's non-NULL function
 * pointers itself and keeps a reference per slot
 * (HC_COLL_SELECTION_INSTALLS 1); unselect may call disable once per slot
 * the module holds, so hiercoll sets none (uninstall_fn is dropped).
 * 6.0: enable installs the module's own slots (as MCA_COLL_INSTALL_API
 * does) and the base keeps one reference per module, not per slot;
 * unselect calls each module's disable once, in the reverse order of the
 * enables, and it must put back the slots it still holds
 * (HC_COLL_SELECTION_INSTALLS 0; uninstall_fn is the disable). */
#define HC_COLL_ENABLE_SEES_PREVIOUS 1
#if HC_OMPI_6
#define HC_COLL_SELECTION_INSTALLS 0
#define HC_MODULE_SET_HOOKS(mod, enable_fn, uninstall_fn)                                          \
    do {                                                                                           \
        (mod)->coll_module_enable = (enable_fn);                                                   \
        (mod)->coll_module_disable = (uninstall_fn);                                               \
    } while (0)
#else
#define HC_COLL_SELECTION_INSTALLS 1
#define HC_MODULE_SET_HOOKS(mod, enable_fn, uninstall_fn)                                          \
    do {                                                                                           \
        (mod)->coll_module_enable = (enable_fn);                                                   \
        (mod)->coll_module_disable = NULL;                                                         \
        (void) (uninstall_fn);                                                                     \
    } while (0)
#endif

/* Counts.  hc_count_t: a collective's count as the slots take it (int in
 * 4.1 and 5.0, size_t in 6.0).  hc_counts_t / hc_disps_t: a v-collective's
 * count and displacement arrays as the slots take them (const int * in
 * 4.1 and 5.0; 6.0's tagged arrays, int or 64-bit elements); hc_adisps_t:
 * neighbor_alltoallw's byte displacements (const MPI_Aint *; 6.0: a
 * displacement array).  hiercoll's own algorithms take int counts and int
 * arrays:
 *   HC_LARGE_COUNTS      1 where slots take counts wider than int (6.0)
 *   HC_FITS_INT(n)       a count hiercoll's algorithms can take as int
 *   HC_INT(n)            n as int (INT_MAX at most: a larger count that
 *                        hiercoll takes moves nothing, a size-0 type)
 *   HC_WIDE_BYTES(n, dt) n elements of dt are more than INT_MAX bytes: a
 *                        test every rank of a data-movement collective
 *                        answers alike (its counts may differ, its bytes
 *                        match), unlike a test of the count
 *   HC_COUNTS_INT(a)     the int elements of a, or NULL when it has 64-bit
 *                        ones (also HC_DISPS_INT)
 *   HC_ADISPS_PTR(a)     the MPI_Aint elements of a, or NULL when it has
 *                        int ones
 *   HC_COUNTS_WIDE(a), HC_DISPS_WIDE(a), HC_ADISPS_WIDE(a)
 *                        a has elements of the other width than hiercoll
 *                        takes (64-bit counts or displacements; int byte
 *                        displacements): the call goes to the layer below
 *   HC_COUNTS(p), HC_DISPS(p), HC_ADISPS(p)
 *                        int / MPI_Aint arrays as the slots take them (for
 *                        calls to the layer below)
 * Every int-array accessor passes NULL through. */
#if HC_OMPI_6
#include "ompi/util/count_disp_array.h"
typedef size_t hc_count_t;
typedef ompi_count_array_t hc_counts_t;
typedef ompi_disp_array_t hc_disps_t;
typedef ompi_disp_array_t hc_adisps_t;
#define HC_FITS_INT(n) ((size_t) (n) <= (size_t) INT_MAX)
static inline const int *hc_counts_int(hc_counts_t a)
{
    return ompi_count_array_is_64bit(a) ? NULL : (const int *) ompi_count_array_ptr(a);
}
static inline const int *hc_disps_int(hc_disps_t a)
{
    return ompi_disp_array_is_64bit(a) ? NULL : (const int *) ompi_disp_array_ptr(a);
}
static inline const MPI_Aint *hc_adisps_ptr(hc_adisps_t a)
{
    return ompi_disp_array_is_64bit(a) || NULL == ompi_disp_array_ptr(a)
               ? (const MPI_Aint *) ompi_disp_array_ptr(a)
               : NULL;
}
#define HC_COUNTS_INT(a) hc_counts_int(a)
#define HC_DISPS_INT(a) hc_disps_int(a)
#define HC_ADISPS_PTR(a) hc_adisps_ptr(a)
#define HC_COUNTS_WIDE(a) ompi_count_array_is_64bit(a)
#define HC_DISPS_WIDE(a) ompi_disp_array_is_64bit(a)
#define HC_ADISPS_WIDE(a) (NULL != ompi_disp_array_ptr(a) && !ompi_disp_array_is_64bit(a))
#define HC_COUNTS(p) ompi_count_array_create(p)
#define HC_DISPS(p) ompi_disp_array_create(p)
#define HC_ADISPS(p) ompi_disp_array_create_c((const ptrdiff_t *) (p))
#define HC_LARGE_COUNTS 1
#define HC_INT(n) ((int) ((size_t) (n) > (size_t) INT_MAX ? (size_t) INT_MAX : (size_t) (n)))
#define HC_WIDE_BYTES(n, dt) ((size_t) (n) * (dt)->super.size > (size_t) INT_MAX)
#else
typedef int hc_count_t;
typedef const int *hc_counts_t;
typedef const int *hc_disps_t;
typedef const MPI_Aint *hc_adisps_t;
#define HC_FITS_INT(n) ((void) (n), true)
#define HC_COUNTS_INT(a) (a)
#define HC_DISPS_INT(a) (a)
#define HC_ADISPS_PTR(a) (a)
#define HC_COUNTS_WIDE(a) ((void) (a), false)
#define HC_DISPS_WIDE(a) ((void) (a), false)
#define HC_ADISPS_WIDE(a) ((void) (a), false)
#define HC_COUNTS(p) (p)
#define HC_DISPS(p) (p)
#define HC_ADISPS(p) (p)
#define HC_LARGE_COUNTS 0
#define HC_INT(n) (n)
#define HC_WIDE_BYTES(n, dt) ((void) (n), (void) (dt), false)
#endif

/* The lowest tag of the collective range, below which nothing of Open
 * MPI's lives (4.1 and 5.0 name it after coll/hcoll's block, gone with
 * coll/hcoll in 6.0, where the neighborhood block ends higher). */
#if HC_OMPI_6
#define HC_COLL_TAG_BOTTOM (-1 * INT_MAX)
#else
#define HC_COLL_TAG_BOTTOM MCA_COLL_BASE_TAG_HCOLL_END
#endif

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

/* A sub-communicator hiercoll creates and frees itself (decomposition
 * parts and bridges): MPI_Finalize releases the communicators left over
 * in index order, so one with a lower index than its parent would go
 * first and the parent's teardown would free it again.  4.1 and 5.0:
 * Open MPI's extra retain (the one it uses for an intercommunicator's
 * local communicator: ompi_comm_free then drops both references), taken
 * where the child's cid is lower.  6.0 has neither OMPI_COMM_CID_IS_LOWER
 * nor OMPI_COMM_SET_EXTRA_RETAIN; its finalize releases each leftover once
 * and leaves the rest to its owners (as for c_local_comm): hiercoll holds
 * one reference of its own on every sub-communicator, and hc_subcomm_free
 * frees the communicator where finalize has not yet released it, then
 * drops that reference. */
static inline void hc_subcomm_hold(ompi_communicator_t *sub, ompi_communicator_t *parent)
{
#if HC_OMPI_6
    (void) parent;
    OBJ_RETAIN(sub);
#else
    if (OMPI_COMM_CID_IS_LOWER(sub, parent)) {
        OMPI_COMM_SET_EXTRA_RETAIN(sub);
        OBJ_RETAIN(sub);
    }
#endif
}
static inline void hc_subcomm_free(ompi_communicator_t **sub)
{
#if HC_OMPI_6
    ompi_communicator_t *c = *sub;
    if (((opal_object_t *) c)->obj_reference_count > 1) {
        ompi_comm_free(sub);
    }
    OBJ_RELEASE(c);
    *sub = NULL;
#else
    ompi_comm_free(sub);
#endif
}

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
#if HC_OMPI_6
/* 6.0's module gained revoke_local (as did the per-communicator table,
 * mca_coll_base_comm_coll_t, which is no class: the module's size and the
 * selection's list item stand for the framework's layout). */
#define HC_ABI_CHECKS(X)                                                                           \
    HC_ABI_CHECKS_COMMON(X)                                                                        \
    X("opal_cstring_t", opal_cstring_t_class, opal_cstring_t)                                      \
    X("opal_mutex_t", opal_mutex_t_class, opal_mutex_t)                                            \
    X("mca_coll_base_avail_coll_t", mca_coll_base_avail_coll_t_class, mca_coll_base_avail_coll_t)
#elif HC_OMPI_5
#define HC_ABI_CHECKS(X)                                                                          \
    HC_ABI_CHECKS_COMMON(X)                                                                      \
    X("opal_cstring_t", opal_cstring_t_class, opal_cstring_t)                                    \
    X("opal_mutex_t", opal_mutex_t_class, opal_mutex_t)
#else
#define HC_ABI_CHECKS(X) HC_ABI_CHECKS_COMMON(X)
#endif

/* Open MPI's show_help and hiercoll's help file.  Where show_help looks:
 * 4.1 and 5.0 read help files at run time, from their own pkgdatadir
 * (where configure and the Debian package install
 * help-coll-hiercoll.txt), then from each directory that
 * opal_show_help_add_dir() added (HC_SHOW_HELP_READS_FILES 1).  6.0
 * compiles the help files of its source tree into libopen-pal and reads
 * no file (opal_show_help_add_dir() is kept, but no longer searched):
 * only a component built inside that tree (HIERCOLL_IN_OMPI_TREE, from
 * configure.m4) has its messages there; out of tree hiercoll prints them
 * from its own copy.
 * How it delivers (HC_SHOW_HELP): 5.0 and 6.0 hand a message to PMIx,
 * whose runtime prints one copy however many processes send it, and only
 * the first message of a topic in a job, whatever its text (unless
 * opal_base_help_aggregate is 0).  4.1's
 * opal_show_help in an application process sends it through the PMIx log
 * to the node's daemon, whose handler forwards it to mpirun from the PMIx
 * thread, beside the daemon's own event thread (pmix_server_log_fn in
 * 4.1.4 and up to the v4.1.x branch): messages sent while other traffic
 * runs (at MPI_Init, or from several processes at once) arrive corrupted
 * or not at all ("ORTE_ERROR_LOG: Data unpack would read past end of
 * buffer" from mpirun).  On 4.1 hiercoll renders the message from the
 * file with opal_show_help_string and prints it itself. */
#include <stdlib.h>

#include "opal/util/output.h"
#include "opal/util/show_help.h"
#if HC_OMPI_6
#define HC_SHOW_HELP_READS_FILES 0
#else
#define HC_SHOW_HELP_READS_FILES 1
#endif
#if HC_OMPI_5
#define HC_SHOW_HELP(file, topic, ...) ((void) opal_show_help((file), (topic), 1, __VA_ARGS__))
#else
#define HC_SHOW_HELP(file, topic, ...)                                                            \
    hc_show_help_print(opal_show_help_string((file), (topic), 1, __VA_ARGS__))
static inline void hc_show_help_print(char *text)
{
    if (NULL != text) {
        opal_output(0, "%s", text);
        free(text);
    }
}
#endif

#endif /* !HIERCOLL_COMPAT_MPI_ONLY */

#endif /* MCA_COLL_HIERCOLL_COMPAT_H */
