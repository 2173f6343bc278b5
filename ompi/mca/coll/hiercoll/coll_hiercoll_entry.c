/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Entry points: every collective, the five neighborhood collectives
 * included, in its blocking, nonblocking and persistent form.  Each one
 * only records its arguments in an hc_call_t and hands it to
 * mca_coll_hiercoll_dispatch(), which picks hiercoll's algorithm or the
 * previous component.
 */
#include "ompi_config.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_entry.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_select.h"
#include "coll_hiercoll_fast.h"
#include "coll_hiercoll_shm.h"

static int run(hc_call_t c, ompi_communicator_t *comm, mca_coll_base_module_t *module,
               ompi_request_t **request, struct ompi_info_t *info)
{
    mca_coll_hiercoll_call_init(&c, comm, module);
    return mca_coll_hiercoll_dispatch(&c, request, info);
}

/* Open MPI 6.0's large counts (HC_LARGE_COUNTS): a call that hiercoll's
 * algorithms cannot take with int counts and int arrays goes to the layer
 * below with its own arguments.  What each entry point tests is answered
 * alike on every rank: a reduction's count (the same datatype everywhere),
 * a data movement's bytes per block (HC_WIDE_BYTES; its counts may differ
 * by rank), a v-collective's arrays' width (64-bit elements: the _c
 * bindings; ranks that mix the _c and int bindings of one v-collective
 * would disagree, see README).  Blocking allreduce and reduce run as
 * hiercoll's own reductions in pieces instead (*_chunks). */
#define HC_PASS_WIDE(cond, slot, ...)                                                              \
    do {                                                                                           \
        if (HC_LARGE_COUNTS && OPAL_UNLIKELY(cond)) {                                              \
            mca_coll_hiercoll_module_t *m_ = HC_MODULE(module);                                    \
            if (NULL == m_->prev.coll_##slot) {                                                    \
                return OMPI_ERR_NOT_SUPPORTED;                                                     \
            }                                                                                      \
            return m_->prev.coll_##slot(__VA_ARGS__, m_->prev.coll_##slot##_module);               \
        }                                                                                          \
    } while (0)

/* A reduction's pieces: at most HC_CHUNK_MAX elements each, in order
 * (every rank has the same count, so the same pieces). */
#define HC_CHUNK_MAX ((hc_count_t) (INT_MAX & ~63))

static int hc_allreduce(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                        ompi_op_t *op, ompi_communicator_t *comm, mca_coll_base_module_t *module);
static int hc_reduce(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                     ompi_op_t *op, int root, ompi_communicator_t *comm,
                     mca_coll_base_module_t *module);

static const void *piece_in(const void *sbuf, hc_count_t off, ptrdiff_t ext)
{
    return MPI_IN_PLACE == sbuf || NULL == sbuf ? sbuf
                                                : (const char *) sbuf + (ptrdiff_t) off * ext;
}

static void *piece_out(void *rbuf, hc_count_t off, ptrdiff_t ext)
{
    return NULL == rbuf ? NULL : (char *) rbuf + (ptrdiff_t) off * ext;
}

static int allreduce_chunks(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                            ompi_op_t *op, ompi_communicator_t *comm,
                            mca_coll_base_module_t *module)
{
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dtype, &lb, &ext);
    for (hc_count_t off = 0; off < count; off += HC_CHUNK_MAX) {
        hc_count_t n = count - off < HC_CHUNK_MAX ? count - off : HC_CHUNK_MAX;
        int rc = hc_allreduce(piece_in(sbuf, off, ext), piece_out(rbuf, off, ext), n, dtype, op,
                              comm, module);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

static int reduce_chunks(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                         ompi_op_t *op, int root, ompi_communicator_t *comm,
                         mca_coll_base_module_t *module)
{
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dtype, &lb, &ext);
    for (hc_count_t off = 0; off < count; off += HC_CHUNK_MAX) {
        hc_count_t n = count - off < HC_CHUNK_MAX ? count - off : HC_CHUNK_MAX;
        int rc = hc_reduce(piece_in(sbuf, off, ext), piece_out(rbuf, off, ext), n, dtype, op, root,
                           comm, module);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* The arguments of each collective, as an hc_call_t initializer. */
#define ALLGATHER_ARGS(md)                                                                         \
    ((hc_call_t){.coll = HC_ALLGATHER,                                                             \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scount = HC_INT(scount),                                                         \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(rcount),                                                         \
                 .rtype = rdtype})
#define ALLGATHERV_ARGS(md)                                                                        \
    ((hc_call_t){.coll = HC_ALLGATHERV,                                                            \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scount = HC_INT(scount),                                                         \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcounts = HC_COUNTS_INT(rcounts),                                                \
                 .rdispls = HC_DISPS_INT(disps),                                                   \
                 .rtype = rdtype})
#define ALLREDUCE_ARGS(md)                                                                         \
    ((hc_call_t){.coll = HC_ALLREDUCE,                                                             \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(count),                                                          \
                 .rtype = dtype,                                                                   \
                 .op = op})
#define ALLTOALL_ARGS(md)                                                                          \
    ((hc_call_t){.coll = HC_ALLTOALL,                                                              \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scount = HC_INT(scount),                                                         \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(rcount),                                                         \
                 .rtype = rdtype})
#define ALLTOALLV_ARGS(md)                                                                         \
    ((hc_call_t){.coll = HC_ALLTOALLV,                                                             \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scounts = HC_COUNTS_INT(scounts),                                                \
                 .sdispls = HC_DISPS_INT(sdisps),                                                  \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcounts = HC_COUNTS_INT(rcounts),                                                \
                 .rdispls = HC_DISPS_INT(rdisps),                                                  \
                 .rtype = rdtype})
#define ALLTOALLW_ARGS(md)                                                                         \
    ((hc_call_t){.coll = HC_ALLTOALLW,                                                             \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scounts = HC_COUNTS_INT(scounts),                                                \
                 .sdispls = HC_DISPS_INT(sdisps),                                                  \
                 .stypes = sdtypes,                                                                \
                 .rbuf = rbuf,                                                                     \
                 .rcounts = HC_COUNTS_INT(rcounts),                                                \
                 .rdispls = HC_DISPS_INT(rdisps),                                                  \
                 .rtypes = rdtypes})
#define BARRIER_ARGS(md) ((hc_call_t){.coll = HC_BARRIER, .mode = (md), .root = 0})
#define BCAST_ARGS(md)                                                                             \
    ((hc_call_t){.coll = HC_BCAST,                                                                 \
                 .mode = (md),                                                                     \
                 .rbuf = buff,                                                                     \
                 .rcount = HC_INT(count),                                                          \
                 .rtype = datatype,                                                                \
                 .root = root})
#define EXSCAN_ARGS(md)                                                                            \
    ((hc_call_t){.coll = HC_EXSCAN,                                                                \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(count),                                                          \
                 .rtype = dtype,                                                                   \
                 .op = op})
#define GATHER_ARGS(md)                                                                            \
    ((hc_call_t){.coll = HC_GATHER,                                                                \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scount = HC_INT(scount),                                                         \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(rcount),                                                         \
                 .rtype = rdtype,                                                                  \
                 .root = root})
#define GATHERV_ARGS(md)                                                                           \
    ((hc_call_t){.coll = HC_GATHERV,                                                               \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scount = HC_INT(scount),                                                         \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcounts = HC_COUNTS_INT(rcounts),                                                \
                 .rdispls = HC_DISPS_INT(disps),                                                   \
                 .rtype = rdtype,                                                                  \
                 .root = root})
#define REDUCE_ARGS(md)                                                                            \
    ((hc_call_t){.coll = HC_REDUCE,                                                                \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(count),                                                          \
                 .rtype = dtype,                                                                   \
                 .op = op,                                                                         \
                 .root = root})
#define REDUCE_SCATTER_BLOCK_ARGS(md)                                                              \
    ((hc_call_t){.coll = HC_REDUCE_SCATTER_BLOCK,                                                  \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(rcount),                                                         \
                 .rtype = dtype,                                                                   \
                 .op = op})
#define REDUCE_SCATTER_ARGS(md)                                                                    \
    ((hc_call_t){.coll = HC_REDUCE_SCATTER,                                                        \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .rbuf = rbuf,                                                                     \
                 .rcounts = HC_COUNTS_INT(rcounts),                                                \
                 .rtype = dtype,                                                                   \
                 .op = op})
#define SCAN_ARGS(md)                                                                              \
    ((hc_call_t){.coll = HC_SCAN,                                                                  \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(count),                                                          \
                 .rtype = dtype,                                                                   \
                 .op = op})
#define SCATTER_ARGS(md)                                                                           \
    ((hc_call_t){.coll = HC_SCATTER,                                                               \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scount = HC_INT(scount),                                                         \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(rcount),                                                         \
                 .rtype = rdtype,                                                                  \
                 .root = root})
#define SCATTERV_ARGS(md)                                                                          \
    ((hc_call_t){.coll = HC_SCATTERV,                                                              \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scounts = HC_COUNTS_INT(scounts),                                                \
                 .sdispls = HC_DISPS_INT(disps),                                                   \
                 .stype = sdtype,                                                                  \
                 .rbuf = rbuf,                                                                     \
                 .rcount = HC_INT(rcount),                                                         \
                 .rtype = rdtype,                                                                  \
                 .root = root})

/* allgather */
static int hc_allgather(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                        hc_count_t rcount, ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                        mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), allgather, sbuf, scount, sdtype, rbuf, rcount,
                 rdtype, comm);
    return run(ALLGATHER_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_iallgather(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                         hc_count_t rcount, ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                         ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), iallgather, sbuf, scount, sdtype, rbuf, rcount,
                 rdtype, comm, request);
    return run(ALLGATHER_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_allgather_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                             void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                             ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), allgather_init, sbuf, scount, sdtype, rbuf, rcount,
                 rdtype, comm, info, request);
    return run(ALLGATHER_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* allgatherv */
static int hc_allgatherv(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                         hc_counts_t rcounts, hc_disps_t disps, ompi_datatype_t *rdtype,
                         ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != sbuf && !HC_FITS_INT(scount)),
                 allgatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm);
    return run(ALLGATHERV_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_iallgatherv(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                          hc_counts_t rcounts, hc_disps_t disps, ompi_datatype_t *rdtype,
                          ompi_communicator_t *comm, ompi_request_t **request,
                          mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != sbuf && !HC_FITS_INT(scount)),
                 iallgatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm, request);
    return run(ALLGATHERV_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_allgatherv_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                              void *rbuf, hc_counts_t rcounts, hc_disps_t disps,
                              ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                              struct ompi_info_t *info, ompi_request_t **request,
                              mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != sbuf && !HC_FITS_INT(scount)),
                 allgatherv_init, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm, info,
                 request);
    return run(ALLGATHERV_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* allreduce */
static __opal_attribute_noinline__ int hc_allreduce_slow(const void *sbuf, void *rbuf,
                                                         hc_count_t count, ompi_datatype_t *dtype,
                                                         ompi_op_t *op, ompi_communicator_t *comm,
                                                         mca_coll_base_module_t *module)
{
    return run(ALLREDUCE_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_allreduce(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                        ompi_op_t *op, ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    if (HC_LARGE_COUNTS && OPAL_UNLIKELY(!HC_FITS_INT(count))) {
        return allreduce_chunks(sbuf, rbuf, count, dtype, op, comm, module);
    }
    hc_fast_t *f = hc_fast_hit(module, HC_ALLREDUCE, sbuf, count, dtype, op, 0);
    HC_FAST_ENTRY(module, HC_ALLREDUCE, f, NULL == f->plan && !f->sc_watch,
                  hc_allreduce_slow(sbuf, rbuf, count, dtype, op, comm, module), sbuf, rbuf,
                  allreduce, sbuf, rbuf, count, dtype, op, comm);
    return hc_allreduce_slow(sbuf, rbuf, count, dtype, op, comm, module);
}

/* A nonblocking barrier, bcast, or reduction of some lengths, that the
 * shared-memory level would take once a blocking call has set it up, goes
 * straight to the layer below until then (where nothing is printed or
 * counted per call: fast_ok); the slow path passes it on too
 * (mca_coll_hiercoll_shm_defers). */
#define HC_NB_DEFERS(module, k, slot, bytes)                                                       \
    (HC_MODULE(module)->fast_ok && NULL != HC_MODULE(module)->prev.slot                            \
     && mca_coll_hiercoll_shm_defers_nb(HC_MODULE(module), k, bytes))

static int hc_iallreduce(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                         ompi_op_t *op, ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), iallreduce, sbuf, rbuf, count, dtype, op, comm, request);
    if (HC_NB_DEFERS(module, HC_ALLREDUCE, coll_iallreduce,
                     (size_t) count * dtype->super.size)) {
        mca_coll_hiercoll_module_t *m = HC_MODULE(module);
        return mca_coll_hiercoll_keep_comm(m->prev.coll_iallreduce(sbuf, rbuf, count, dtype, op,
                                                                   comm, request,
                                                                   m->prev.coll_iallreduce_module),
                                           request, comm);
    }
    return run(ALLREDUCE_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_allreduce_init(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                             ompi_op_t *op, ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), allreduce_init, sbuf, rbuf, count, dtype, op, comm, info,
                 request);
    return run(ALLREDUCE_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* alltoall */
static int hc_alltoall(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                       hc_count_t rcount, ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                       mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), alltoall, sbuf, scount, sdtype, rbuf, rcount,
                 rdtype, comm);
    return run(ALLTOALL_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_ialltoall(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                        hc_count_t rcount, ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), ialltoall, sbuf, scount, sdtype, rbuf, rcount,
                 rdtype, comm, request);
    return run(ALLTOALL_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_alltoall_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                            void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                            ompi_communicator_t *comm, struct ompi_info_t *info,
                            ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), alltoall_init, sbuf, scount, sdtype, rbuf, rcount,
                 rdtype, comm, info, request);
    return run(ALLTOALL_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* alltoallv */
static int hc_alltoallv(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                        ompi_datatype_t *sdtype, void *rbuf, hc_counts_t rcounts, hc_disps_t rdisps,
                        ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                        mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 alltoallv, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype, comm);
    return run(ALLTOALLV_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_ialltoallv(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                         ompi_datatype_t *sdtype, void *rbuf, hc_counts_t rcounts,
                         hc_disps_t rdisps, ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                         ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 ialltoallv, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype, comm,
                 request);
    return run(ALLTOALLV_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_alltoallv_init(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                             ompi_datatype_t *sdtype, void *rbuf, hc_counts_t rcounts,
                             hc_disps_t rdisps, ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                             struct ompi_info_t *info, ompi_request_t **request,
                             mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 alltoallv_init, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype, comm,
                 info, request);
    return run(ALLTOALLV_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* alltoallw */
static int hc_alltoallw(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                        ompi_datatype_t *const *sdtypes, void *rbuf, hc_counts_t rcounts,
                        hc_disps_t rdisps, ompi_datatype_t *const *rdtypes,
                        ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 alltoallw, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps, rdtypes, comm);
    return run(ALLTOALLW_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_ialltoallw(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                         ompi_datatype_t *const *sdtypes, void *rbuf, hc_counts_t rcounts,
                         hc_disps_t rdisps, ompi_datatype_t *const *rdtypes,
                         ompi_communicator_t *comm, ompi_request_t **request,
                         mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 ialltoallw, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps, rdtypes, comm,
                 request);
    return run(ALLTOALLW_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_alltoallw_init(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                             ompi_datatype_t *const *sdtypes, void *rbuf, hc_counts_t rcounts,
                             hc_disps_t rdisps, ompi_datatype_t *const *rdtypes,
                             ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 alltoallw_init, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps, rdtypes,
                 comm, info, request);
    return run(ALLTOALLW_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* barrier */
static __opal_attribute_noinline__ int hc_barrier_slow(ompi_communicator_t *comm,
                                                       mca_coll_base_module_t *module)
{
    return run(BARRIER_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_barrier(ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    hc_fast_t *f = hc_fast_hit(module, HC_BARRIER, NULL, 0, NULL, NULL, 0);
    HC_FAST_ENTRY(module, HC_BARRIER, f, NULL == f->plan, hc_barrier_slow(comm, module), NULL,
                  NULL, barrier, comm);
    return hc_barrier_slow(comm, module);
}

static int hc_ibarrier(ompi_communicator_t *comm, ompi_request_t **request,
                       mca_coll_base_module_t *module)
{
    if (HC_NB_DEFERS(module, HC_BARRIER, coll_ibarrier, 0)) {
        mca_coll_hiercoll_module_t *m = HC_MODULE(module);
        return mca_coll_hiercoll_keep_comm(
            m->prev.coll_ibarrier(comm, request, m->prev.coll_ibarrier_module), request, comm);
    }
    return run(BARRIER_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_barrier_init(ompi_communicator_t *comm, struct ompi_info_t *info,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    return run(BARRIER_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* bcast */
static __opal_attribute_noinline__ int hc_bcast_slow(void *buff, hc_count_t count,
                                                     ompi_datatype_t *datatype, int root,
                                                     ompi_communicator_t *comm,
                                                     mca_coll_base_module_t *module)
{
    return run(BCAST_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_bcast(void *buff, hc_count_t count, ompi_datatype_t *datatype, int root,
                    ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(count, datatype), bcast, buff, count, datatype, root, comm);
    hc_fast_t *f = hc_fast_hit(module, HC_BCAST, NULL, count, datatype, NULL, root);
    HC_FAST_ENTRY(module, HC_BCAST, f, NULL == f->plan,
                  hc_bcast_slow(buff, count, datatype, root, comm, module), NULL, buff, bcast,
                  buff, count, datatype, root, comm);
    return hc_bcast_slow(buff, count, datatype, root, comm, module);
}

static int hc_ibcast(void *buff, hc_count_t count, ompi_datatype_t *datatype, int root,
                     ompi_communicator_t *comm, ompi_request_t **request,
                     mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(count, datatype), ibcast, buff, count, datatype, root, comm,
                 request);
    if (HC_NB_DEFERS(module, HC_BCAST, coll_ibcast, 0)) {
        mca_coll_hiercoll_module_t *m = HC_MODULE(module);
        return mca_coll_hiercoll_keep_comm(m->prev.coll_ibcast(buff, count, datatype, root, comm,
                                                               request, m->prev.coll_ibcast_module),
                                           request, comm);
    }
    return run(BCAST_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_bcast_init(void *buff, hc_count_t count, ompi_datatype_t *datatype, int root,
                         ompi_communicator_t *comm, struct ompi_info_t *info,
                         ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(count, datatype), bcast_init, buff, count, datatype, root, comm,
                 info, request);
    return run(BCAST_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* exscan */
static int hc_exscan(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                     ompi_op_t *op, ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), exscan, sbuf, rbuf, count, dtype, op, comm);
    return run(EXSCAN_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_iexscan(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                      ompi_op_t *op, ompi_communicator_t *comm, ompi_request_t **request,
                      mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), iexscan, sbuf, rbuf, count, dtype, op, comm, request);
    return run(EXSCAN_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_exscan_init(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                          ompi_op_t *op, ompi_communicator_t *comm, struct ompi_info_t *info,
                          ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), exscan_init, sbuf, rbuf, count, dtype, op, comm, info,
                 request);
    return run(EXSCAN_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* gather */
static int hc_gather(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                     hc_count_t rcount, ompi_datatype_t *rdtype, int root,
                     ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE((ompi_comm_rank(comm) == root ? HC_WIDE_BYTES(rcount, rdtype)
                                               : HC_WIDE_BYTES(scount, sdtype)),
                 gather, sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm);
    return run(GATHER_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_igather(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                      hc_count_t rcount, ompi_datatype_t *rdtype, int root,
                      ompi_communicator_t *comm, ompi_request_t **request,
                      mca_coll_base_module_t *module)
{
    HC_PASS_WIDE((ompi_comm_rank(comm) == root ? HC_WIDE_BYTES(rcount, rdtype)
                                               : HC_WIDE_BYTES(scount, sdtype)),
                 igather, sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm, request);
    return run(GATHER_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_gather_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                          hc_count_t rcount, ompi_datatype_t *rdtype, int root,
                          ompi_communicator_t *comm, struct ompi_info_t *info,
                          ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE((ompi_comm_rank(comm) == root ? HC_WIDE_BYTES(rcount, rdtype)
                                               : HC_WIDE_BYTES(scount, sdtype)),
                 gather_init, sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm, info,
                 request);
    return run(GATHER_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* gatherv */
static int hc_gatherv(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                      hc_counts_t rcounts, hc_disps_t disps, ompi_datatype_t *rdtype, int root,
                      ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != sbuf && !HC_FITS_INT(scount)),
                 gatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm);
    return run(GATHERV_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_igatherv(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                       hc_counts_t rcounts, hc_disps_t disps, ompi_datatype_t *rdtype, int root,
                       ompi_communicator_t *comm, ompi_request_t **request,
                       mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != sbuf && !HC_FITS_INT(scount)),
                 igatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm, request);
    return run(GATHERV_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_gatherv_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                           hc_counts_t rcounts, hc_disps_t disps, ompi_datatype_t *rdtype, int root,
                           ompi_communicator_t *comm, struct ompi_info_t *info,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != sbuf && !HC_FITS_INT(scount)),
                 gatherv_init, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, root, comm, info,
                 request);
    return run(GATHERV_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* reduce */
static __opal_attribute_noinline__ int
hc_reduce_slow(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
               ompi_op_t *op, int root, ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    return run(REDUCE_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_reduce(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                     ompi_op_t *op, int root, ompi_communicator_t *comm,
                     mca_coll_base_module_t *module)
{
    if (HC_LARGE_COUNTS && OPAL_UNLIKELY(!HC_FITS_INT(count))) {
        return reduce_chunks(sbuf, rbuf, count, dtype, op, root, comm, module);
    }
    hc_fast_t *f = hc_fast_hit(module, HC_REDUCE, sbuf, count, dtype, op, root);
    HC_FAST_ENTRY(module, HC_REDUCE, f, NULL == f->plan,
                  hc_reduce_slow(sbuf, rbuf, count, dtype, op, root, comm, module), sbuf, rbuf,
                  reduce, sbuf, rbuf, count, dtype, op, root, comm);
    return hc_reduce_slow(sbuf, rbuf, count, dtype, op, root, comm, module);
}

static int hc_ireduce(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                      ompi_op_t *op, int root, ompi_communicator_t *comm, ompi_request_t **request,
                      mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), ireduce, sbuf, rbuf, count, dtype, op, root, comm, request);
    if (HC_NB_DEFERS(module, HC_REDUCE, coll_ireduce, (size_t) count * dtype->super.size)
        && !mca_coll_hiercoll_below_misplaces_dt(HC_MODULE(module), HC_REDUCE, HC_NONBLOCKING,
                                                 dtype, op, ompi_comm_size(comm))) {
        mca_coll_hiercoll_module_t *m = HC_MODULE(module);
        return mca_coll_hiercoll_keep_comm(m->prev.coll_ireduce(sbuf, rbuf, count, dtype, op, root,
                                                                comm, request,
                                                                m->prev.coll_ireduce_module),
                                           request, comm);
    }
    return run(REDUCE_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_reduce_init(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                          ompi_op_t *op, int root, ompi_communicator_t *comm,
                          struct ompi_info_t *info, ompi_request_t **request,
                          mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), reduce_init, sbuf, rbuf, count, dtype, op, root, comm, info,
                 request);
    return run(REDUCE_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* reduce_scatter_block */
static int hc_reduce_scatter_block(const void *sbuf, void *rbuf, hc_count_t rcount,
                                   ompi_datatype_t *dtype, ompi_op_t *op, ompi_communicator_t *comm,
                                   mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(rcount), reduce_scatter_block, sbuf, rbuf, rcount, dtype, op, comm);
    return run(REDUCE_SCATTER_BLOCK_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_ireduce_scatter_block(const void *sbuf, void *rbuf, hc_count_t rcount,
                                    ompi_datatype_t *dtype, ompi_op_t *op,
                                    ompi_communicator_t *comm, ompi_request_t **request,
                                    mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(rcount), ireduce_scatter_block, sbuf, rbuf, rcount, dtype, op, comm,
                 request);
    return run(REDUCE_SCATTER_BLOCK_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_reduce_scatter_block_init(const void *sbuf, void *rbuf, hc_count_t rcount,
                                        ompi_datatype_t *dtype, ompi_op_t *op,
                                        ompi_communicator_t *comm, struct ompi_info_t *info,
                                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(rcount), reduce_scatter_block_init, sbuf, rbuf, rcount, dtype, op,
                 comm, info, request);
    return run(REDUCE_SCATTER_BLOCK_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* reduce_scatter */
static int hc_reduce_scatter(const void *sbuf, void *rbuf, hc_counts_t rcounts,
                             ompi_datatype_t *dtype, ompi_op_t *op, ompi_communicator_t *comm,
                             mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts), reduce_scatter, sbuf, rbuf, rcounts, dtype, op, comm);
    return run(REDUCE_SCATTER_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_ireduce_scatter(const void *sbuf, void *rbuf, hc_counts_t rcounts,
                              ompi_datatype_t *dtype, ompi_op_t *op, ompi_communicator_t *comm,
                              ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts), ireduce_scatter, sbuf, rbuf, rcounts, dtype, op, comm,
                 request);
    return run(REDUCE_SCATTER_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_reduce_scatter_init(const void *sbuf, void *rbuf, hc_counts_t rcounts,
                                  ompi_datatype_t *dtype, ompi_op_t *op, ompi_communicator_t *comm,
                                  struct ompi_info_t *info, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts), reduce_scatter_init, sbuf, rbuf, rcounts, dtype, op, comm,
                 info, request);
    return run(REDUCE_SCATTER_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* scan */
static int hc_scan(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                   ompi_op_t *op, ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), scan, sbuf, rbuf, count, dtype, op, comm);
    return run(SCAN_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_iscan(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                    ompi_op_t *op, ompi_communicator_t *comm, ompi_request_t **request,
                    mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), iscan, sbuf, rbuf, count, dtype, op, comm, request);
    return run(SCAN_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_scan_init(const void *sbuf, void *rbuf, hc_count_t count, ompi_datatype_t *dtype,
                        ompi_op_t *op, ompi_communicator_t *comm, struct ompi_info_t *info,
                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(!HC_FITS_INT(count), scan_init, sbuf, rbuf, count, dtype, op, comm, info, request);
    return run(SCAN_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* scatter */
static int hc_scatter(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                      hc_count_t rcount, ompi_datatype_t *rdtype, int root,
                      ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE((ompi_comm_rank(comm) == root ? HC_WIDE_BYTES(scount, sdtype)
                                               : HC_WIDE_BYTES(rcount, rdtype)),
                 scatter, sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm);
    return run(SCATTER_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_iscatter(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                       hc_count_t rcount, ompi_datatype_t *rdtype, int root,
                       ompi_communicator_t *comm, ompi_request_t **request,
                       mca_coll_base_module_t *module)
{
    HC_PASS_WIDE((ompi_comm_rank(comm) == root ? HC_WIDE_BYTES(scount, sdtype)
                                               : HC_WIDE_BYTES(rcount, rdtype)),
                 iscatter, sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm, request);
    return run(SCATTER_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_scatter_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype, void *rbuf,
                           hc_count_t rcount, ompi_datatype_t *rdtype, int root,
                           ompi_communicator_t *comm, struct ompi_info_t *info,
                           ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE((ompi_comm_rank(comm) == root ? HC_WIDE_BYTES(scount, sdtype)
                                               : HC_WIDE_BYTES(rcount, rdtype)),
                 scatter_init, sbuf, scount, sdtype, rbuf, rcount, rdtype, root, comm, info,
                 request);
    return run(SCATTER_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* scatterv */
static int hc_scatterv(const void *sbuf, hc_counts_t scounts, hc_disps_t disps,
                       ompi_datatype_t *sdtype, void *rbuf, hc_count_t rcount,
                       ompi_datatype_t *rdtype, int root, ompi_communicator_t *comm,
                       mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(scounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != rbuf && !HC_FITS_INT(rcount)),
                 scatterv, sbuf, scounts, disps, sdtype, rbuf, rcount, rdtype, root, comm);
    return run(SCATTERV_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_iscatterv(const void *sbuf, hc_counts_t scounts, hc_disps_t disps,
                        ompi_datatype_t *sdtype, void *rbuf, hc_count_t rcount,
                        ompi_datatype_t *rdtype, int root, ompi_communicator_t *comm,
                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(scounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != rbuf && !HC_FITS_INT(rcount)),
                 iscatterv, sbuf, scounts, disps, sdtype, rbuf, rcount, rdtype, root, comm,
                 request);
    return run(SCATTERV_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_scatterv_init(const void *sbuf, hc_counts_t scounts, hc_disps_t disps,
                            ompi_datatype_t *sdtype, void *rbuf, hc_count_t rcount,
                            ompi_datatype_t *rdtype, int root, ompi_communicator_t *comm,
                            struct ompi_info_t *info, ompi_request_t **request,
                            mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(scounts) || HC_DISPS_WIDE(disps)
                     || (MPI_IN_PLACE != rbuf && !HC_FITS_INT(rcount)),
                 scatterv_init, sbuf, scounts, disps, sdtype, rbuf, rcount, rdtype, root, comm,
                 info, request);
    return run(SCATTERV_ARGS(HC_PERSISTENT), comm, module, request, info);
}

/* ------------------------------------------------------------------ */
/* Neighborhood collectives: the arguments of their global namesakes    */
/* (alltoallw's displacements are MPI_Aint)                             */
/* ------------------------------------------------------------------ */

static int run_neighbor(hc_coll_t coll, hc_call_t c, ompi_communicator_t *comm,
                        mca_coll_base_module_t *module, ompi_request_t **request,
                        struct ompi_info_t *info)
{
    c.coll = coll;
    return run(c, comm, module, request, info);
}

#define NEIGHBOR_ALLTOALLW_ARGS(md)                                                                \
    ((hc_call_t){.coll = HC_NEIGHBOR_ALLTOALLW,                                                    \
                 .mode = (md),                                                                     \
                 .sbuf = sbuf,                                                                     \
                 .scounts = HC_COUNTS_INT(scounts),                                                \
                 .sadispls = HC_ADISPS_PTR(sdisps),                                                \
                 .stypes = sdtypes,                                                                \
                 .rbuf = rbuf,                                                                     \
                 .rcounts = HC_COUNTS_INT(rcounts),                                                \
                 .radispls = HC_ADISPS_PTR(rdisps),                                                \
                 .rtypes = rdtypes})

/* neighbor_allgather */
static int hc_neighbor_allgather(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                 void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                                 ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), neighbor_allgather, sbuf, scount, sdtype, rbuf,
                 rcount, rdtype, comm);
    return run_neighbor(HC_NEIGHBOR_ALLGATHER, ALLGATHER_ARGS(HC_BLOCKING), comm, module, NULL,
                        NULL);
}

static int hc_ineighbor_allgather(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                  void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                                  ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), ineighbor_allgather, sbuf, scount, sdtype, rbuf,
                 rcount, rdtype, comm, request);
    return run_neighbor(HC_NEIGHBOR_ALLGATHER, ALLGATHER_ARGS(HC_NONBLOCKING), comm, module,
                        request, NULL);
}

static int hc_neighbor_allgather_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                      void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                                      ompi_communicator_t *comm, struct ompi_info_t *info,
                                      ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), neighbor_allgather_init, sbuf, scount, sdtype, rbuf,
                 rcount, rdtype, comm, info, request);
    return run_neighbor(HC_NEIGHBOR_ALLGATHER, ALLGATHER_ARGS(HC_PERSISTENT), comm, module,
                        request, info);
}

/* neighbor_allgatherv */
static int hc_neighbor_allgatherv(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                  void *rbuf, hc_counts_t rcounts, hc_disps_t disps,
                                  ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                                  mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps) || !HC_FITS_INT(scount),
                 neighbor_allgatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm);
    return run_neighbor(HC_NEIGHBOR_ALLGATHERV, ALLGATHERV_ARGS(HC_BLOCKING), comm, module, NULL,
                        NULL);
}

static int hc_ineighbor_allgatherv(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                   void *rbuf, hc_counts_t rcounts, hc_disps_t disps,
                                   ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                                   ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps) || !HC_FITS_INT(scount),
                 ineighbor_allgatherv, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm,
                 request);
    return run_neighbor(HC_NEIGHBOR_ALLGATHERV, ALLGATHERV_ARGS(HC_NONBLOCKING), comm, module,
                        request, NULL);
}

static int hc_neighbor_allgatherv_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                       void *rbuf, hc_counts_t rcounts, hc_disps_t disps,
                                       ompi_datatype_t *rdtype, ompi_communicator_t *comm,
                                       struct ompi_info_t *info, ompi_request_t **request,
                                       mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(disps) || !HC_FITS_INT(scount),
                 neighbor_allgatherv_init, sbuf, scount, sdtype, rbuf, rcounts, disps, rdtype, comm,
                 info, request);
    return run_neighbor(HC_NEIGHBOR_ALLGATHERV, ALLGATHERV_ARGS(HC_PERSISTENT), comm, module,
                        request, info);
}

/* neighbor_alltoall */
static int hc_neighbor_alltoall(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                                ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), neighbor_alltoall, sbuf, scount, sdtype, rbuf,
                 rcount, rdtype, comm);
    return run_neighbor(HC_NEIGHBOR_ALLTOALL, ALLTOALL_ARGS(HC_BLOCKING), comm, module, NULL,
                        NULL);
}

static int hc_ineighbor_alltoall(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                 void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                                 ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), ineighbor_alltoall, sbuf, scount, sdtype, rbuf,
                 rcount, rdtype, comm, request);
    return run_neighbor(HC_NEIGHBOR_ALLTOALL, ALLTOALL_ARGS(HC_NONBLOCKING), comm, module,
                        request, NULL);
}

static int hc_neighbor_alltoall_init(const void *sbuf, hc_count_t scount, ompi_datatype_t *sdtype,
                                     void *rbuf, hc_count_t rcount, ompi_datatype_t *rdtype,
                                     ompi_communicator_t *comm, struct ompi_info_t *info,
                                     ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_WIDE_BYTES(rcount, rdtype), neighbor_alltoall_init, sbuf, scount, sdtype, rbuf,
                 rcount, rdtype, comm, info, request);
    return run_neighbor(HC_NEIGHBOR_ALLTOALL, ALLTOALL_ARGS(HC_PERSISTENT), comm, module,
                        request, info);
}

/* neighbor_alltoallv */
static int hc_neighbor_alltoallv(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                                 ompi_datatype_t *sdtype, void *rbuf, hc_counts_t rcounts,
                                 hc_disps_t rdisps, ompi_datatype_t *rdtype,
                                 ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 neighbor_alltoallv, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                 comm);
    return run_neighbor(HC_NEIGHBOR_ALLTOALLV, ALLTOALLV_ARGS(HC_BLOCKING), comm, module, NULL,
                        NULL);
}

static int hc_ineighbor_alltoallv(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                                  ompi_datatype_t *sdtype, void *rbuf, hc_counts_t rcounts,
                                  hc_disps_t rdisps, ompi_datatype_t *rdtype,
                                  ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 ineighbor_alltoallv, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps, rdtype,
                 comm, request);
    return run_neighbor(HC_NEIGHBOR_ALLTOALLV, ALLTOALLV_ARGS(HC_NONBLOCKING), comm, module,
                        request, NULL);
}

static int hc_neighbor_alltoallv_init(const void *sbuf, hc_counts_t scounts, hc_disps_t sdisps,
                                      ompi_datatype_t *sdtype, void *rbuf, hc_counts_t rcounts,
                                      hc_disps_t rdisps, ompi_datatype_t *rdtype,
                                      ompi_communicator_t *comm, struct ompi_info_t *info,
                                      ompi_request_t **request, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_DISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_DISPS_WIDE(sdisps),
                 neighbor_alltoallv_init, sbuf, scounts, sdisps, sdtype, rbuf, rcounts, rdisps,
                 rdtype, comm, info, request);
    return run_neighbor(HC_NEIGHBOR_ALLTOALLV, ALLTOALLV_ARGS(HC_PERSISTENT), comm, module,
                        request, info);
}

/* neighbor_alltoallw */
static int hc_neighbor_alltoallw(const void *sbuf, hc_counts_t scounts, hc_adisps_t sdisps,
                                 ompi_datatype_t *const *sdtypes, void *rbuf, hc_counts_t rcounts,
                                 hc_adisps_t rdisps, ompi_datatype_t *const *rdtypes,
                                 ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_ADISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_ADISPS_WIDE(sdisps),
                 neighbor_alltoallw, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps, rdtypes,
                 comm);
    return run(NEIGHBOR_ALLTOALLW_ARGS(HC_BLOCKING), comm, module, NULL, NULL);
}

static int hc_ineighbor_alltoallw(const void *sbuf, hc_counts_t scounts, hc_adisps_t sdisps,
                                  ompi_datatype_t *const *sdtypes, void *rbuf, hc_counts_t rcounts,
                                  hc_adisps_t rdisps, ompi_datatype_t *const *rdtypes,
                                  ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_ADISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_ADISPS_WIDE(sdisps),
                 ineighbor_alltoallw, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps,
                 rdtypes, comm, request);
    return run(NEIGHBOR_ALLTOALLW_ARGS(HC_NONBLOCKING), comm, module, request, NULL);
}

static int hc_neighbor_alltoallw_init(const void *sbuf, hc_counts_t scounts, hc_adisps_t sdisps,
                                      ompi_datatype_t *const *sdtypes, void *rbuf,
                                      hc_counts_t rcounts, hc_adisps_t rdisps,
                                      ompi_datatype_t *const *rdtypes, ompi_communicator_t *comm,
                                      struct ompi_info_t *info, ompi_request_t **request,
                                      mca_coll_base_module_t *module)
{
    HC_PASS_WIDE(HC_COUNTS_WIDE(rcounts) || HC_ADISPS_WIDE(rdisps) || HC_COUNTS_WIDE(scounts)
                     || HC_ADISPS_WIDE(sdisps),
                 neighbor_alltoallw_init, sbuf, scounts, sdisps, sdtypes, rbuf, rcounts, rdisps,
                 rdtypes, comm, info, request);
    return run(NEIGHBOR_ALLTOALLW_ARGS(HC_PERSISTENT), comm, module, request, info);
}

void mca_coll_hiercoll_set_entry_points(mca_coll_base_module_t *m)
{
    m->coll_allgather = hc_allgather;
    m->coll_iallgather = hc_iallgather;
    m->coll_allgather_init = hc_allgather_init;
    m->coll_allgatherv = hc_allgatherv;
    m->coll_iallgatherv = hc_iallgatherv;
    m->coll_allgatherv_init = hc_allgatherv_init;
    m->coll_allreduce = hc_allreduce;
    m->coll_iallreduce = hc_iallreduce;
    m->coll_allreduce_init = hc_allreduce_init;
    m->coll_alltoall = hc_alltoall;
    m->coll_ialltoall = hc_ialltoall;
    m->coll_alltoall_init = hc_alltoall_init;
    m->coll_alltoallv = hc_alltoallv;
    m->coll_ialltoallv = hc_ialltoallv;
    m->coll_alltoallv_init = hc_alltoallv_init;
    m->coll_alltoallw = hc_alltoallw;
    m->coll_ialltoallw = hc_ialltoallw;
    m->coll_alltoallw_init = hc_alltoallw_init;
    m->coll_barrier = hc_barrier;
    m->coll_ibarrier = hc_ibarrier;
    m->coll_barrier_init = hc_barrier_init;
    m->coll_bcast = hc_bcast;
    m->coll_ibcast = hc_ibcast;
    m->coll_bcast_init = hc_bcast_init;
    m->coll_exscan = hc_exscan;
    m->coll_iexscan = hc_iexscan;
    m->coll_exscan_init = hc_exscan_init;
    m->coll_gather = hc_gather;
    m->coll_igather = hc_igather;
    m->coll_gather_init = hc_gather_init;
    m->coll_gatherv = hc_gatherv;
    m->coll_igatherv = hc_igatherv;
    m->coll_gatherv_init = hc_gatherv_init;
    m->coll_reduce = hc_reduce;
    m->coll_ireduce = hc_ireduce;
    m->coll_reduce_init = hc_reduce_init;
    m->coll_reduce_scatter_block = hc_reduce_scatter_block;
    m->coll_ireduce_scatter_block = hc_ireduce_scatter_block;
    m->coll_reduce_scatter_block_init = hc_reduce_scatter_block_init;
    m->coll_reduce_scatter = hc_reduce_scatter;
    m->coll_ireduce_scatter = hc_ireduce_scatter;
    m->coll_reduce_scatter_init = hc_reduce_scatter_init;
    m->coll_scan = hc_scan;
    m->coll_iscan = hc_iscan;
    m->coll_scan_init = hc_scan_init;
    m->coll_scatter = hc_scatter;
    m->coll_iscatter = hc_iscatter;
    m->coll_scatter_init = hc_scatter_init;
    m->coll_scatterv = hc_scatterv;
    m->coll_iscatterv = hc_iscatterv;
    m->coll_scatterv_init = hc_scatterv_init;
    m->coll_neighbor_allgather = hc_neighbor_allgather;
    m->coll_ineighbor_allgather = hc_ineighbor_allgather;
    m->coll_neighbor_allgather_init = hc_neighbor_allgather_init;
    m->coll_neighbor_allgatherv = hc_neighbor_allgatherv;
    m->coll_ineighbor_allgatherv = hc_ineighbor_allgatherv;
    m->coll_neighbor_allgatherv_init = hc_neighbor_allgatherv_init;
    m->coll_neighbor_alltoall = hc_neighbor_alltoall;
    m->coll_ineighbor_alltoall = hc_ineighbor_alltoall;
    m->coll_neighbor_alltoall_init = hc_neighbor_alltoall_init;
    m->coll_neighbor_alltoallv = hc_neighbor_alltoallv;
    m->coll_ineighbor_alltoallv = hc_ineighbor_alltoallv;
    m->coll_neighbor_alltoallv_init = hc_neighbor_alltoallv_init;
    m->coll_neighbor_alltoallw = hc_neighbor_alltoallw;
    m->coll_ineighbor_alltoallw = hc_ineighbor_alltoallw;
    m->coll_neighbor_alltoallw_init = hc_neighbor_alltoallw_init;
}
