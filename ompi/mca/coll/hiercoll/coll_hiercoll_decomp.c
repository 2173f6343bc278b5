/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition (S. I. Sapronov's method): a communicator is split once
 * into disjoint PARTS (by node, a hardware level, blocks of ranks or an
 * explicit list: coll_hiercoll_decomp_criterion) plus a BRIDGE holding
 * one LEADER of each part, and every blocking collective runs in pieces
 * on them with the collectives of the layer below, the
 * parts in parallel.  Only the bridge crosses parts (nodes), so far fewer
 * slow transfers happen; inside a part the fast ones (shared memory) do.
 *
 * The partition, the packed layouts of data crossing parts and the
 * all-to-all bookkeeping are MPI-free (coll_hiercoll_plan_decomp.c); this
 * file creates the sub-communicators and runs the pieces:
 *
 *   one to all    bcast, scatter(v): root -> leaders on the bridge, then
 *                 every part from its leader (the root's part from the
 *                 root itself);
 *   all to one    reduce, gather(v): every part to its leader (the root's
 *                 gather to the root itself), then the bridge to the
 *                 root's leader, which hands the result to the root;
 *   all to all 1  allreduce = part reduce + bridge allreduce + part bcast;
 *                 reduce_scatter(_block) = part reduce + bridge
 *                 reduce_scatter (allreduce when parts interleave) + part
 *                 scatterv; allgather(v) = part gather + bridge allgatherv
 *                 + part bcast;
 *   all to all 2  alltoall(v,w): members' outgoing blocks gathered by the
 *                 leaders, blocks that stay exchanged inside the part,
 *                 alltoallv of the leaders, leaders scatter what arrived;
 *   barrier       part barrier, bridge barrier, part bcast of a token;
 *   partial       scan, exscan: every input reaches every leader (part
 *   reduction     gather + bridge allgatherv), each leader folds them in
 *                 rank order and scatters its members' results: exact MPI
 *                 order for any op and any placement.
 *
 * Data crossing parts travels packed (MPI_PACKED, in decomposition order)
 * so that ranks may use different datatypes of one signature; a user
 * buffer is only ever read or written with the user's own datatype.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/group/group.h"
#include "ompi/info/info.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/info.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_shm.h"

struct hc_decomp {
    bool ready; /* parts and bridge exist: decomposition serves calls */
    hcp_decomp_t lay;
    ompi_communicator_t *part;   /* my part */
    ompi_communicator_t *bridge; /* the leaders; NULL on the others */
    int p, np;                   /* my part and its size */
    uint64_t calls[HC_NCOLL];    /* decomposed calls (statistics) */
    /* nonblocking calls that may still start pieces, in start order (the
     * issue queue: see "A decomposed call" below) */
    struct hc_dx *qhead, *qtail;
};
typedef struct hc_decomp hc_decomp_t;

/* ------------------------------------------------------------------ */
/* Sub-communicators                                                    */
/* ------------------------------------------------------------------ */

static const int split_type[HCP_NLEVELS] = {
    [HCP_LEVEL_NODE] = MPI_COMM_TYPE_SHARED,     [HCP_LEVEL_BOARD] = OMPI_COMM_TYPE_BOARD,
    [HCP_LEVEL_NUMA] = OMPI_COMM_TYPE_NUMA,      [HCP_LEVEL_SOCKET] = OMPI_COMM_TYPE_SOCKET,
    [HCP_LEVEL_L3] = OMPI_COMM_TYPE_L3CACHE,     [HCP_LEVEL_L2] = OMPI_COMM_TYPE_L2CACHE,
    [HCP_LEVEL_L1] = OMPI_COMM_TYPE_L1CACHE,     [HCP_LEVEL_CORE] = OMPI_COMM_TYPE_CORE,
    [HCP_LEVEL_HWTHREAD] = OMPI_COMM_TYPE_HWTHREAD,
};

/* Does the criterion leave comm whole, as far as this rank can tell
 * without communicating?  (The answer is the same on every rank.) */
static bool stays_whole(const hcp_criterion_t *crit, ompi_communicator_t *comm)
{
    int n = ompi_comm_size(comm);
    switch (crit->kind) {
    case HCP_CRIT_LEVEL:
        return HCP_LEVEL_NODE == crit->level
               && ompi_group_count_local_peers(comm->c_local_group) == n;
    case HCP_CRIT_BLOCK:
        return crit->block >= n;
    case HCP_CRIT_LIST:
        return crit->nranks != n;
    default:
        return true;
    }
}

static const char *crit_name(const hcp_criterion_t *crit, char *buf, size_t len)
{
    if (HCP_CRIT_BLOCK == crit->kind) {
        snprintf(buf, len, "block:%d", crit->block);
    } else {
        snprintf(buf, len, "%s", HCP_CRIT_LIST == crit->kind ? "list"
                                 : HCP_CRIT_LEVEL == crit->kind ? hcp_level_names[crit->level]
                                                                : "none");
    }
    return buf;
}

const char *mca_coll_hiercoll_decomp_criterion(const mca_coll_hiercoll_module_t *m, char *buf,
                                               size_t len)
{
    const hcp_criterion_t *crit = m->decomp_crit;
    return stays_whole(crit, m->comm) ? NULL : crit_name(crit, buf, len);
}

/* A sub-communicator of comm, never decomposed again: split by color, or
 * by a hardware level when level >= 0.  The bridge's collectives are the
 * components' below hiercoll (hiercoll excluded); a part keeps hiercoll,
 * without decomposition, where the shared-memory node level is on: its
 * auto then runs the part's stages through shared memory (non-leaders
 * never touch the PML) and passes the rest to the same components. */
static int subcomm(ompi_communicator_t *comm, int level, int color, const char *what,
                   ompi_communicator_t **out)
{
    opal_info_t info;
    OBJ_CONSTRUCT(&info, opal_info_t);
    if (0 == strcmp(what, "part") && mca_coll_hiercoll_params.shm_enable) {
        opal_info_set(&info, "hiercoll_decomp_criterion", "none");
    } else {
        opal_info_set(&info, "ompi_comm_coll_preference", "^hiercoll");
    }
    int rc = level >= 0
                 ? ompi_comm_split_type(comm, split_type[level], ompi_comm_rank(comm), &info, out)
                 : ompi_comm_split_with_info(comm, color, ompi_comm_rank(comm), &info, out, false);
    OBJ_DESTRUCT(&info);
    if (OMPI_SUCCESS != rc || MPI_COMM_NULL == *out) {
        *out = NULL;
        return rc;
    }
    char name[MPI_MAX_OBJECT_NAME];
    snprintf(name, sizeof(name), "hiercoll %s of %.40s", what, comm->c_name);
    ompi_comm_set_name(*out, name);
    /* Finalize releases the communicators left over in index order: one
     * with a lower index than its parent would go first, and the parent's
     * teardown would free it again (hc_subcomm_hold: what keeps it alive
     * until release() frees it). */
    hc_subcomm_hold(*out, comm);
    return OMPI_SUCCESS;
}

/* Every rank's part key under a hardware level: the parent rank of the
 * lowest rank sharing it, gathered from every rank.  Creates the part. */
static int level_keys(hc_decomp_t *d, ompi_communicator_t *comm, hcp_level_t level, int *keys)
{
    int zero = 0, rank = ompi_comm_rank(comm);
    int rc = subcomm(comm, (int) level, 0, "part", &d->part);
    if (OMPI_SUCCESS == rc) {
        rc = ompi_group_translate_ranks(d->part->c_local_group, 1, &zero, comm->c_local_group,
                                        &keys[rank]);
    }
    if (OMPI_SUCCESS == rc) {
        rc = comm->c_coll->coll_allgather(MPI_IN_PLACE, 1, MPI_INT, keys, 1, MPI_INT, comm,
                                          comm->c_coll->coll_allgather_module);
    }
    return rc;
}

/* One line (verbose 1, the communicator's rank 0) describing the parts. */
static void describe_parts(const hc_decomp_t *d, ompi_communicator_t *comm, const char *crit)
{
    if (mca_coll_hiercoll_params.verbose < 1 || 0 != ompi_comm_rank(comm)) {
        return;
    }
    char sizes[256] = "", leaders[256] = "";
    for (int p = 0; p < d->lay.nparts && strlen(leaders) < sizeof(leaders) - 16; ++p) {
        snprintf(sizes + strlen(sizes), sizeof(sizes) - strlen(sizes), "%s%d", p ? "," : "",
                 hcp_part_size(&d->lay, p));
        snprintf(leaders + strlen(leaders), sizeof(leaders) - strlen(leaders), "%s%d",
                 p ? "," : "", hcp_leader(&d->lay, p));
    }
    mca_coll_hiercoll_log(1, "%s: decomposition by %s: %d parts (sizes %s; leaders %s), %s",
                          comm->c_name, crit, d->lay.nparts, sizes, leaders,
                          d->lay.contiguous ? "contiguous" : "interleaved");
}

static void release(ompi_communicator_t **c)
{
    if (NULL != *c) {
        hc_subcomm_free(c);
        *c = NULL;
    }
}

/* Open MPI makes a communicator only where its components fill every
 * collective slot, and the bridge (the parts too, with the shared-memory
 * level off) leaves hiercoll out: the components below it must fill them (under "hiercoll,basic"
 * the nonblocking and persistent ones are hiercoll's alone).  The same answer on every rank: the
 * components are. */
static bool below_fills_every_slot(const mca_coll_hiercoll_module_t *m)
{
    for (int k = 0; k <= HC_SCATTERV; ++k) {
        for (int md = 0; md < HC_NMODE; ++md) {
            if (!mca_coll_hiercoll_has_fallback(m, (hc_coll_t) k, (hc_mode_t) md)) {
                return false;
            }
        }
    }
    return true;
}

/* Build the parts and the bridge (collective over comm: every rank gets
 * here at the same call, since the question comes from the selection of
 * the same collective, which asks it the same way everywhere).  The
 * module holds the state, not ready, from the start: the collectives on
 * comm that building needs see no decomposition and go elsewhere. */
static void create(mca_coll_hiercoll_module_t *m)
{
    ompi_communicator_t *comm = m->comm;
    int n = ompi_comm_size(comm), rank = ompi_comm_rank(comm);
    const hcp_criterion_t *crit = m->decomp_crit;
    hc_decomp_t *d = calloc(1, sizeof(*d));
    int *keys = malloc(sizeof(int) * (size_t) n);
    m->decomp = d;
    if (NULL == d || NULL == keys || stays_whole(crit, comm)) {
        goto done;
    }
    if (!below_fills_every_slot(m)) {
        if (0 == rank) {
            char name[64];
            mca_coll_hiercoll_log(1, "%s: decomposition by %s: not decomposed: the layer below "
                                  "leaves collective slots empty (no libnbc?), and Open MPI "
                                  "makes no sub-communicator without hiercoll then",
                                  comm->c_name, crit_name(crit, name, sizeof(name)));
        }
        goto done;
    }
    int decided = hcp_criterion_keys(crit, n, keys);
    if ((0 == decided && OMPI_SUCCESS != level_keys(d, comm, crit->level, keys))
        || 0 != hcp_decomp_build(&d->lay, n, keys)) {
        goto done;
    }
    char name[64];
    crit_name(crit, name, sizeof(name));
    if (1 == d->lay.nparts || n == d->lay.nparts) {
        /* nothing to decompose (one part, or one process per part: auto
         * never decomposes then), on every rank alike (the keys were
         * gathered): the communicator's choices depend on the call's
         * arguments alone, as a whole one's (the fast path's and the
         * hand-back's: what fast_enable found for a whole one) */
        m->fast_ok = m->fast_whole_ok;
    }
    if (1 == d->lay.nparts) {
        if (0 == rank) {
            mca_coll_hiercoll_log(1, "%s: decomposition by %s: one part, not decomposed",
                                  comm->c_name, name);
        }
        release(&d->part);
        goto done;
    }
    d->p = d->lay.part[rank];
    d->np = hcp_part_size(&d->lay, d->p);
    if ((1 == decided && OMPI_SUCCESS != subcomm(comm, -1, d->p, "part", &d->part))
        || OMPI_SUCCESS != subcomm(comm, -1, 0 == d->lay.index[rank] ? 0 : MPI_UNDEFINED,
                                   "bridge", &d->bridge)
        || NULL == d->part) {
        goto done;
    }
    /* both are in rank order, as the layout */
    assert(ompi_comm_rank(d->part) == d->lay.index[rank] && ompi_comm_size(d->part) == d->np);
    /* the part's shared-memory region now, while every rank is here: a
     * nonblocking call's pieces start inside progress, where no set-up
     * may run */
    mca_coll_hiercoll_shm_prepare(d->part);
    d->ready = true;
    describe_parts(d, comm, name);
done:
    free(keys);
}

/* Called by the module's destructor, i.e. from inside the parent's coll
 * teardown: freeing a communicator is local, so this is safe there. */
void mca_coll_hiercoll_decomp_free(mca_coll_hiercoll_module_t *m)
{
    hc_decomp_t *d = m->decomp;
    if (NULL == d) {
        return;
    }
    if (d->ready && mca_coll_hiercoll_params.stats) {
        char per[1024] = "";
        for (int k = 0; k < HC_NCOLL && strlen(per) < sizeof(per) - 64; ++k) {
            if (d->calls[k] > 0) {
                snprintf(per + strlen(per), sizeof(per) - strlen(per), " %s:%llu",
                         mca_coll_hiercoll_coll_names[k], (unsigned long long) d->calls[k]);
            }
        }
        opal_output(0, "hiercoll: decomp comm %s rank %d/%d: part %d of %d (size %d%s); "
                    "decomposed:%s",
                    m->comm->c_name, ompi_comm_rank(m->comm), ompi_comm_size(m->comm), d->p,
                    d->lay.nparts, d->np, NULL != d->bridge ? ", leader" : "", per);
    }
    release(&d->part);
    release(&d->bridge);
    hcp_decomp_fini(&d->lay);
    free(d);
    m->decomp = NULL;
}

/* The decomposition of the call's communicator, created at the first
 * blocking call that asks; NULL when it does not apply, or while it is
 * being built.  A nonblocking call or a persistent init is local (it must
 * not wait for other ranks to arrive), so it never creates one: it
 * decomposes where a blocking call made the parts (the same calls came
 * first on every rank, so the answer is the same everywhere). */
static hc_decomp_t *decomp_of(const hc_call_t *c)
{
    if (NULL == c->module->decomp && HC_BLOCKING == c->mode) {
        create(c->module);
    }
    hc_decomp_t *d = c->module->decomp;
    return NULL != d && d->ready ? d : NULL;
}

static bool ordered_reduction(hc_coll_t coll)
{
    return HC_REDUCE == coll || HC_ALLREDUCE == coll || HC_REDUCE_SCATTER == coll
           || HC_REDUCE_SCATTER_BLOCK == coll;
}

static int64_t sum_counts(const hc_call_t *c)
{
    int64_t total = 0;
    for (int r = 0; r < c->size; ++r) {
        total += HC_REDUCE_SCATTER == c->coll ? c->rcounts[r] : c->rcount;
    }
    return total;
}

/* Would a count the pieces pass on overflow an int?  (Only what every
 * rank knows can be asked: the answer must be the same everywhere.) */
static bool fits_int(const hc_call_t *c, const hc_decomp_t *d)
{
    switch (c->coll) {
    case HC_REDUCE_SCATTER:
    case HC_REDUCE_SCATTER_BLOCK:
        return sum_counts(c) <= INT_MAX;
    case HC_SCAN:
    case HC_EXSCAN:
        return (int64_t) c->size * c->rcount <= INT_MAX;
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
    {
        int64_t total = hcp_pack_layout(&d->lay, HC_ALLGATHERV == c->coll ? c->rcounts : NULL,
                                        c->rcount, c->rsize, -1, NULL, NULL, NULL);
        return total >= 0 && total <= INT_MAX;
    }
    case HC_GATHER: /* (an in-place root's scount is its rcount) */
        return (int64_t) c->scount * (int64_t) c->ssize * c->size <= INT_MAX;
    case HC_SCATTER:
        return (int64_t) c->rcount * (int64_t) c->rsize * c->size <= INT_MAX;
    case HC_ALLTOALL: /* a leader's buffers hold its members' blocks for everybody */
        return (int64_t) c->rcount * (int64_t) c->rsize * c->size * d->lay.max_size <= INT_MAX;
    default:
        return true;
    }
}

bool mca_coll_hiercoll_decomp_usable(const hc_call_t *c)
{
    const hc_decomp_t *d = decomp_of(c);
    if (NULL == d) {
        return false;
    }
    /* parts that interleave ranks would reorder a non-commutative op
     * (scan and exscan fold every input in rank order themselves) */
    if (ordered_reduction(c->coll) && !ompi_op_is_commute(c->op) && !d->lay.contiguous) {
        return false;
    }
    /* the calls in flight and the issue queues are per process, without
     * locks: under MPI_THREAD_MULTIPLE (asked alike on every rank) only
     * blocking calls decompose */
    if (HC_BLOCKING != c->mode && ompi_mpi_thread_multiple) {
        return false;
    }
    /* a persistent call makes its pieces at init, where it may not
     * communicate: the v forms whose leaders must first learn their
     * members' counts stay whole */
    if (HC_PERSISTENT == c->mode
        && (HC_GATHERV == c->coll || HC_SCATTERV == c->coll || HC_ALLTOALLV == c->coll
            || HC_ALLTOALLW == c->coll)) {
        return false;
    }
    return fits_int(c, d);
}

const hcp_decomp_t *mca_coll_hiercoll_decomp_layout(const hc_call_t *c)
{
    const hc_decomp_t *d = decomp_of(c);
    return NULL != d ? &d->lay : NULL;
}

/* ------------------------------------------------------------------ */
/* A decomposed call: one program per collective, three ways to run it  */
/* ------------------------------------------------------------------ */

/*
 * Each collective's PROGRAM (run_* below) is a sequence of pieces: a
 * collective of a sub-communicator (DX_SUB: the part's or the bridge's),
 * a message inside the part (dx_p2p), local work (packing, folding).
 * The same program serves every mode; how a piece runs is the call's KIND:
 *
 *   DX_BLOCK  blocking: each piece is the sub-communicator's blocking
 *             collective, in order (DX_WAIT never waits);
 *   DX_NB     nonblocking: each piece is started as the sub-communicator's
 *             nonblocking collective, and DX_WAIT returns to the progress
 *             engine until the pieces started so far are done: the
 *             program resumes there (a stackless coroutine: every value
 *             kept across a DX_WAIT lives in hc_dx_t);
 *   DX_INIT   a persistent call's init: the program runs once moving no
 *             data (DX_DATA is false), creating each piece as the
 *             sub-communicator's PERSISTENT collective (and persistent
 *             messages), with the buffers and layouts it keeps;
 *   DX_START  each MPI_Start: the program runs as DX_NB, starting the
 *             pieces created at init in the same order.
 *
 * Matching.  The pieces of a sub-communicator must start in the same
 * order on all its ranks.  Persistent pieces are matched by their
 * sub-communicator in creation order, and creation happens in the
 * parent's init order.  Nonblocking calls start their pieces while they
 * progress, so each decomposition keeps an ISSUE QUEUE: calls in the
 * order they started on the parent (the same on every rank), and only
 * the oldest call still issuing may start pieces (it leaves the queue
 * after its last one, dx_issued).  A blocking call or a persistent init
 * on the parent first lets the queue drain (its pieces, or the tags and
 * channels their creation reserves, would otherwise overtake those of
 * earlier calls on some ranks).  Messages inside a part use the
 * collective's fixed tag (nonblocking: ordered by the queue) or, for a
 * persistent call, a tag it reserved at init.
 *
 * No piece is set up inside progress: the parts and the bridge, and the
 * part's shared-memory region, are made at the decomposition's creation
 * (a blocking call's selection); everything a piece starts is the
 * nonblocking start of a sub-communicator collective.
 */

/* A collective of the layer below, on a sub-communicator. */
#define SUB(comm, coll, ...)                                                                       \
    ((comm)->c_coll->coll_##coll(__VA_ARGS__, (comm), (comm)->c_coll->coll_##coll##_module))

#define PACKED (&ompi_mpi_packed.dt)

enum { DX_BLOCK, DX_NB, DX_INIT, DX_START };
#define DX_NSUB 4   /* pieces in flight at once */
#define DX_NPERS 12 /* a persistent call's pieces */
#define DX_NMEM 6
#define DX_NINTS 4

/* What the leader of an all-to-all knows of the pairs' bytes: its
 * members' counts, each member's row (bytes to every rank) then column
 * (bytes from every rank); NULL for alltoall, where every pair moves
 * `block`. */
typedef struct a2a_ctx {
    const hc_decomp_t *d;
    const int *counts; /* [part size][2 n] */
    int n;
    int64_t block;
} a2a_ctx_t;

typedef struct hc_dx hc_dx_t;
struct hc_dx {
    hc_call_t c;
    hc_decomp_t *d;
    int kind, pc, rc, ptag;
    bool queued;
    hc_dx_t *qnext;                /* the decomposition's issue queue */
    ompi_request_t *sub[DX_NSUB];  /* pieces in flight */
    int nsub;
    ompi_request_t *ps[DX_NPERS];  /* a persistent call's pieces */
    int nps, ips;
    /* the program's state across its waits */
    char *mem[DX_NMEM], *at[DX_NMEM];
    int *iv[DX_NINTS], *counts, one;
    int64_t *off;
    ompi_datatype_t **types;
    char *x, *y, *acc, *all, *o, *in, *g, *s, *r, *lo;
    int64_t xbytes, ybytes, total, obytes, ibytes, base;
    bool direct, laid;
    char token;
    hcp_a2a_t a;
    a2a_ctx_t ctx;
};

/* A nonblocking or persistent call: the user's request. */
typedef struct hc_dreq {
    ompi_coll_base_nbc_request_t super;
    hc_dx_t x;
    mca_coll_hiercoll_module_t *m;
    ompi_communicator_t *comm;
    struct hc_dreq *anext; /* calls in flight (progress) */
    bool active;
} hc_dreq_t;

#define DX_DATA(x) (OMPI_SUCCESS == (x)->rc && DX_INIT != (x)->kind)
#define DX_BEGIN(x)                                                                                \
    switch ((x)->pc) {                                                                             \
    case 0:;
#define DX_END(x)                                                                                  \
    }                                                                                              \
    dx_issued(x);                                                                                  \
    (x)->pc = 0;                                                                                   \
    return true
/* Resume here once the pieces started so far are done. */
#define DX_WAIT(x)                                                                                 \
    do {                                                                                           \
        (x)->pc = __LINE__;                                                                        \
        __attribute__((fallthrough));                                                              \
    case __LINE__:                                                                                 \
        if (!dx_done(x)) {                                                                         \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* The call has started its last pieces: let the next call in the issue
 * queue start its own, and resume once these are done. */
#define DX_LAST(x)                                                                                 \
    do {                                                                                           \
        dx_issued(x);                                                                              \
        DX_WAIT(x);                                                                                \
    } while (0)
#define DX_INFO (&ompi_mpi_info_null.info)

/* One piece: sub-communicator comm's collective `coll`, in the call's kind. */
#define DX_SUB(x, comm, coll, ...)                                                                 \
    do {                                                                                           \
        if (OMPI_SUCCESS != (x)->rc) {                                                             \
        } else if (DX_BLOCK == (x)->kind) {                                                        \
            (x)->rc = (comm)->c_coll->coll_##coll(__VA_ARGS__, (comm),                             \
                                                  (comm)->c_coll->coll_##coll##_module);           \
        } else if (DX_NB == (x)->kind) {                                                           \
            (x)->rc = (comm)->c_coll->coll_i##coll(__VA_ARGS__, (comm), &(x)->sub[(x)->nsub],      \
                                                   (comm)->c_coll->coll_i##coll##_module);         \
            (x)->nsub += OMPI_SUCCESS == (x)->rc;                                                  \
        } else if (DX_INIT == (x)->kind && dx_room(x)) {                                           \
            (x)->rc = (comm)->c_coll->coll_##coll##_init(                                          \
                __VA_ARGS__, (comm), DX_INFO, &(x)->ps[(x)->nps],                                  \
                (comm)->c_coll->coll_##coll##_init_module);                                        \
            (x)->nps += OMPI_SUCCESS == (x)->rc;                                                   \
        } else if (DX_START == (x)->kind) {                                                        \
            dx_start(x);                                                                           \
        }                                                                                          \
    } while (0)
#define DX_BARRIER(x, comm)                                                                        \
    do {                                                                                           \
        if (OMPI_SUCCESS != (x)->rc) {                                                             \
        } else if (DX_BLOCK == (x)->kind) {                                                        \
            (x)->rc = (comm)->c_coll->coll_barrier((comm), (comm)->c_coll->coll_barrier_module);   \
        } else if (DX_NB == (x)->kind) {                                                           \
            (x)->rc = (comm)->c_coll->coll_ibarrier((comm), &(x)->sub[(x)->nsub],                  \
                                                    (comm)->c_coll->coll_ibarrier_module);         \
            (x)->nsub += OMPI_SUCCESS == (x)->rc;                                                  \
        } else if (DX_INIT == (x)->kind && dx_room(x)) {                                           \
            (x)->rc = (comm)->c_coll->coll_barrier_init((comm), DX_INFO, &(x)->ps[(x)->nps],       \
                                                        (comm)->c_coll->coll_barrier_init_module); \
            (x)->nps += OMPI_SUCCESS == (x)->rc;                                                   \
        } else if (DX_START == (x)->kind) {                                                        \
            dx_start(x);                                                                           \
        }                                                                                          \
    } while (0)

static bool dx_room(hc_dx_t *x)
{
    if (x->nps < DX_NPERS) {
        return true;
    }
    x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    return false;
}

/* Start the next of a persistent call's pieces. */
static void dx_start(hc_dx_t *x)
{
    ompi_request_t *req = x->ps[x->ips++];
    if (OMPI_REQUEST_NOOP == req->req_type) { /* as MPI_Start: nothing to move */
        req->req_state = OMPI_REQUEST_ACTIVE;
        return;
    }
    x->rc = req->req_start(1, &req);
    if (OMPI_SUCCESS == x->rc) {
        x->sub[x->nsub++] = req;
    }
}

/* Are the pieces started so far done?  (Then the nonblocking ones are
 * freed; a persistent call's stay for the next start.) */
static bool dx_done(hc_dx_t *x)
{
    for (int i = 0; i < x->nsub; ++i) {
        if (!REQUEST_COMPLETE(x->sub[i])) {
            return false;
        }
    }
    for (int i = 0; i < x->nsub; ++i) {
        if (OMPI_SUCCESS == x->rc) {
            x->rc = x->sub[i]->req_status.MPI_ERROR;
        }
        if (DX_NB == x->kind) {
            ompi_request_free(&x->sub[i]);
        }
    }
    x->nsub = 0;
    return true;
}

/* The call started its last piece: the next call in the queue may start
 * its own. */
static void dx_issued(hc_dx_t *x)
{
    if (x->queued) {
        assert(x->d->qhead == x);
        x->d->qhead = x->qnext;
        if (NULL == x->d->qhead) {
            x->d->qtail = NULL;
        }
        x->queued = false;
    }
}

/* Let the nonblocking calls started earlier start all their pieces. */
static void dx_drain(hc_decomp_t *d)
{
    while (NULL != d->qhead) {
        opal_progress();
    }
}

static bool leads(const hc_decomp_t *d)
{
    return NULL != d->bridge;
}

/* A message inside the part (to or from part rank peer). */
static void dx_p2p(hc_dx_t *x, bool send, int peer, void *buf, int64_t count,
                   ompi_datatype_t *type, int tag)
{
    ompi_communicator_t *comm = x->d->part;
    const mca_pml_base_send_mode_t std = MCA_PML_BASE_SEND_STANDARD;
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    switch (x->kind) {
    case DX_BLOCK:
        x->rc = send ? MCA_PML_CALL(send(buf, (size_t) count, type, peer, tag, std, comm))
                     : MCA_PML_CALL(recv(buf, (size_t) count, type, peer, tag, comm,
                                         MPI_STATUS_IGNORE));
        break;
    case DX_NB:
        x->rc = send ? MCA_PML_CALL(isend(buf, (size_t) count, type, peer, tag, std, comm,
                                          &x->sub[x->nsub]))
                     : MCA_PML_CALL(irecv(buf, (size_t) count, type, peer, tag, comm,
                                          &x->sub[x->nsub]));
        x->nsub += OMPI_SUCCESS == x->rc;
        break;
    case DX_INIT:
        if (dx_room(x)) {
            x->rc = send ? MCA_PML_CALL(isend_init(buf, (size_t) count, type, peer, x->ptag, std,
                                                   comm, &x->ps[x->nps]))
                         : MCA_PML_CALL(irecv_init(buf, (size_t) count, type, peer, x->ptag,
                                                   comm, &x->ps[x->nps]));
            x->nps += OMPI_SUCCESS == x->rc;
        }
        break;
    default:
        dx_start(x);
    }
}

/* Rank r's index in its part. */
static int local(const hc_decomp_t *d, int r)
{
    return d->lay.index[r];
}

/* The rank of my part's k-th member. */
static int member(const hc_decomp_t *d, int k)
{
    return d->lay.member[d->lay.start[d->p] + k];
}

/* Scratch for count elements of type (bytes when type is PACKED):
 * returns where element 0 goes, *mem is what to free. */
static char *scratch(ompi_datatype_t *type, int64_t count, char **mem)
{
    ptrdiff_t gap = 0;
    size_t span = opal_datatype_span(&type->super, (size_t) count, &gap);
    *mem = malloc(span > 0 ? span : 1);
    return NULL != *mem ? *mem - gap : NULL;
}

static int *ints(int n)
{
    return malloc(sizeof(int) * (size_t) (n > 0 ? n : 1));
}

/* The call's scratch number `slot` (a persistent call's is made once, at
 * init, and kept); NULL sets the call's error. */
static char *dx_scratch(hc_dx_t *x, int slot, ompi_datatype_t *type, int64_t count)
{
    if (NULL == x->mem[slot]) {
        x->at[slot] = scratch(type, count, &x->mem[slot]);
    }
    if (NULL == x->mem[slot] && OMPI_SUCCESS == x->rc) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    return x->at[slot];
}

static int *dx_ints(hc_dx_t *x, int slot, int n)
{
    if (NULL == x->iv[slot]) {
        x->iv[slot] = ints(n);
    }
    if (NULL == x->iv[slot] && OMPI_SUCCESS == x->rc) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    return x->iv[slot];
}

static int64_t *dx_offsets(hc_dx_t *x, int n)
{
    if (NULL == x->off) {
        x->off = malloc(sizeof(int64_t) * (size_t) (n > 0 ? n : 1));
    }
    if (NULL == x->off && OMPI_SUCCESS == x->rc) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    return x->off;
}

static void dx_free_mem(hc_dx_t *x)
{
    for (int i = 0; i < DX_NMEM; ++i) {
        free(x->mem[i]);
        x->mem[i] = x->at[i] = NULL;
    }
    for (int i = 0; i < DX_NINTS; ++i) {
        free(x->iv[i]);
        x->iv[i] = NULL;
    }
    free(x->off);
    free(x->counts);
    free(x->types);
    x->off = NULL;
    x->counts = NULL;
    x->types = NULL;
    if (x->laid) {
        hcp_a2a_fini(&x->a);
        x->laid = false;
    }
}

/* The per-rank blocks of a user buffer: rank r's block is counts[r]
 * elements (count when counts is NULL) of types[r] (type) at displs[r]
 * elements (r * count), or at displs[r] bytes with per-rank types. */
typedef struct blocks {
    char *base;
    const int *counts, *displs;
    int count;
    ompi_datatype_t *type;
    ompi_datatype_t *const *types;
} blocks_t;

static void block_of(const blocks_t *b, int r, char **at, int *count, ompi_datatype_t **type)
{
    ptrdiff_t lb = 0, ext = 0;
    *count = NULL != b->counts ? b->counts[r] : b->count;
    if (NULL != b->types) {
        *type = b->types[r];
        *at = b->base + b->displs[r];
        return;
    }
    ompi_datatype_get_extent(b->type, &lb, &ext);
    *type = b->type;
    *at = b->base + (NULL != b->displs ? (ptrdiff_t) b->displs[r] : (ptrdiff_t) r * b->count) * ext;
}

static int64_t block_bytes(const blocks_t *b, int r)
{
    char *at;
    int count;
    ompi_datatype_t *type;
    size_t size = 0;
    block_of(b, r, &at, &count, &type);
    ompi_datatype_type_size(type, &size);
    return (int64_t) count * (int64_t) size;
}

/* Pack (unpack) the blocks of every rank outside part `skip`, in
 * decomposition order, into (from) packed memory; rank `except`'s block
 * keeps its room but is not touched. */
static int pack_blocks(const hc_decomp_t *d, const blocks_t *b, int skip, int except, char *packed,
                       bool unpack)
{
    int64_t at = 0;
    for (int x = 0; x < d->lay.n; ++x) {
        int r = d->lay.member[x], count, rc = OMPI_SUCCESS;
        if (d->lay.part[r] == skip) {
            continue;
        }
        char *buf;
        ompi_datatype_t *type;
        int64_t bytes = block_bytes(b, r);
        block_of(b, r, &buf, &count, &type);
        if (r != except && bytes > 0) {
            rc = unpack
                     ? ompi_datatype_sndrcv(packed + at, (int32_t) bytes, PACKED, buf, count, type)
                     : ompi_datatype_sndrcv(buf, count, type, packed + at, (int32_t) bytes, PACKED);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        at += bytes;
    }
    return OMPI_SUCCESS;
}

/* Counts and displacements (elements) of my part's members' blocks. */
static void member_blocks(const hc_decomp_t *d, const blocks_t *b, int *counts, int *displs)
{
    for (int k = 0; k < d->np; ++k) {
        int r = member(d, k);
        counts[k] = NULL != b->counts ? b->counts[r] : b->count;
        displs[k] = NULL != b->displs ? b->displs[r] : r * b->count;
    }
}

/* Is the user's buffer already the packed layout of these blocks, so
 * that pieces can land in it or leave from it directly?  Parts must be
 * runs of ranks (decomposition order is then rank order) and the blocks
 * back to back in rank order, of a type whose packed form is its memory. */
static bool packed_view(const hc_decomp_t *d, const blocks_t *b)
{
    ptrdiff_t tlb, text;
    if (!d->lay.contiguous || NULL != b->types
        || !ompi_datatype_is_contiguous_memory_layout(b->type, 2)) {
        return false;
    }
    ompi_datatype_get_true_extent(b->type, &tlb, &text);
    for (int r = 0, at = 0; r < d->lay.n && NULL != b->displs; ++r) {
        if (b->displs[r] != at) {
            return false;
        }
        at += b->counts[r];
    }
    return 0 == tlb;
}

/* A leader's view of its members' packed blocks: counts and
 * displacements (mc[part size] each), and the total (x->ybytes).
 * Regular blocks are `mine` bytes everywhere; v forms gather each
 * member's own (member_shares, DX_WAIT, member_total). */
static void member_shares(hc_dx_t *x, bool v, int64_t mine, int *mc)
{
    const hc_decomp_t *d = x->d;
    x->one = (int) mine;
    for (int k = 0; k < d->np && !v; ++k) {
        mc[k] = x->one;
    }
    if (v) {
        DX_SUB(x, d->part, gather, &x->one, 1, MPI_INT, mc, 1, MPI_INT, 0);
    }
}

static void member_total(hc_dx_t *x, int *mc)
{
    const hc_decomp_t *d = x->d;
    if (OMPI_SUCCESS == x->rc && leads(d)
        && (x->ybytes = hcp_prefix(d->np, mc, mc + d->np)) < 0) {
        x->rc = OMPI_ERR_VALUE_OUT_OF_BOUNDS;
    }
}

/* Rooted collectives: what each part moves over the bridge (pc[nparts]
 * bytes, then displacements; the root's part moves nothing), at the root
 * and at its leader.  The root knows its blocks; a leader computes
 * regular blocks of `mine` bytes itself, and hears v forms' shares from
 * a root that does not lead (bridge_shares, DX_WAIT, bridge_total).
 * x->direct: the displacements are the blocks' own in the root's
 * buffer.  x->xbytes: the packed bytes, when not direct. */
static void bridge_shares(hc_dx_t *x, const blocks_t *b, size_t unit, bool v, int64_t mine,
                          int *pc)
{
    const hc_call_t *c = &x->c;
    const hc_decomp_t *d = x->d;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    if (c->rank == c->root) {
        x->xbytes = hcp_pack_layout(&d->lay, b->counts, b->count, unit, x->direct ? -1 : rp, NULL,
                                    pc, pc + nq);
        pc[rp] = 0;
        if (v && 0 != rk) {
            dx_p2p(x, true, 0, pc, 2 * nq, MPI_INT, MCA_COLL_BASE_TAG_GATHERV);
        }
    } else if (d->p == rp && leads(d)) {
        if (v) {
            dx_p2p(x, false, rk, pc, 2 * nq, MPI_INT, MCA_COLL_BASE_TAG_GATHERV);
        } else {
            hcp_pack_layout(&d->lay, NULL, 1, (size_t) mine, rp, NULL, pc, pc + nq);
        }
    }
}

static void bridge_total(hc_dx_t *x, const int *pc)
{
    const hc_decomp_t *d = x->d;
    const int rp = d->lay.part[x->c.root], nq = d->lay.nparts;
    if (x->c.rank != x->c.root && d->p == rp && leads(d)) {
        x->xbytes = (int64_t) pc[nq - 1] + pc[2 * nq - 1];
    }
}

/* ------------------------------------------------------------------ */
/* One to all                                                           */
/* ------------------------------------------------------------------ */

static bool run_bcast(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), tag = MCA_COLL_BASE_TAG_BCAST;
    DX_BEGIN(x);
    /* a root that does not lead its part hands the data to its leader */
    if (d->p == rp && 0 != rk && c->rank == c->root) {
        dx_p2p(x, true, 0, c->rbuf, c->rcount, c->rtype, tag);
    } else if (d->p == rp && 0 != rk && leads(d)) {
        dx_p2p(x, false, rk, c->rbuf, c->rcount, c->rtype, tag);
    }
    DX_WAIT(x);
    if (leads(d)) {
        DX_SUB(x, d->bridge, bcast, c->rbuf, c->rcount, c->rtype, rp);
    }
    DX_WAIT(x);
    DX_SUB(x, d->part, bcast, c->rbuf, c->rcount, c->rtype, d->p == rp ? rk : 0);
    DX_LAST(x);
    DX_END(x);
}

/* scatter, scatterv: the root packs the blocks of the other parts and its
 * leader scatters them over the bridge; every part then scatters from its
 * leader, the root's part from the root's own buffer. */
static bool run_scatter(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_SCATTERV == c->coll, root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    const int tag = MCA_COLL_BASE_TAG_GATHERV;
    const blocks_t sblocks = {(char *) c->sbuf, v ? c->scounts : NULL, v ? c->sdispls : NULL,
                              c->scount, c->stype, NULL};
    void *mine = c->in_place ? MPI_IN_PLACE : c->rbuf;
    int *pc = x->iv[0], *mc = x->iv[1];
    DX_BEGIN(x);
    /* a leading root scatters over the bridge straight from its buffer */
    x->direct = root && 0 == rk && packed_view(d, &sblocks);
    x->x = x->direct ? (char *) c->sbuf : NULL;
    pc = dx_ints(x, 0, 2 * nq);
    mc = dx_ints(x, 1, 2 * d->np);
    bridge_shares(x, &sblocks, c->ssize, v, (int64_t) c->rcount * c->rsize, pc);
    DX_WAIT(x);
    bridge_total(x, pc);
    if (d->p != rp) {
        member_shares(x, v, (int64_t) c->rcount * c->rsize, mc);
    }
    DX_WAIT(x);
    if (d->p != rp) {
        member_total(x, mc);
    }
    /* the root packs the other parts' blocks, for its leader when it does
     * not lead */
    if (!x->direct && (root || (d->p == rp && leads(d)))) {
        x->x = dx_scratch(x, 0, PACKED, x->xbytes);
    }
    if (DX_DATA(x) && root && !x->direct) {
        x->rc = pack_blocks(d, &sblocks, rp, -1, x->x, false);
    }
    if (0 != rk && root) {
        dx_p2p(x, true, 0, x->x, x->xbytes, PACKED, tag);
    } else if (0 != rk && d->p == rp && leads(d)) {
        dx_p2p(x, false, rk, x->x, x->xbytes, PACKED, tag);
    }
    DX_WAIT(x);
    if (leads(d)) {
        x->y = dx_scratch(x, 1, PACKED, x->ybytes);
        DX_SUB(x, d->bridge, scatterv, x->x, HC_COUNTS(pc), HC_DISPS(pc + nq), PACKED, x->y,
               (int) x->ybytes, PACKED, rp);
    }
    DX_WAIT(x);
    if (d->p != rp) {
        DX_SUB(x, d->part, scatterv, x->y, HC_COUNTS(mc), HC_DISPS(mc + d->np), PACKED, mine,
               c->rcount, c->rtype, 0);
    } else {
        if (root) {
            member_blocks(d, &sblocks, mc, mc + d->np);
        }
        DX_SUB(x, d->part, scatterv, c->sbuf, HC_COUNTS(mc), HC_DISPS(mc + d->np), c->stype, mine,
               c->rcount, c->rtype, rk);
    }
    DX_LAST(x);
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* All to one                                                           */
/* ------------------------------------------------------------------ */

static bool run_reduce(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), tag = MCA_COLL_BASE_TAG_REDUCE;
    DX_BEGIN(x);
    if (!leads(d)) {
        DX_SUB(x, d->part, reduce, c->in_place ? c->rbuf : c->sbuf, NULL, c->rcount, c->rtype,
               c->op, 0);
        DX_WAIT(x);
        if (root) {
            dx_p2p(x, false, 0, c->rbuf, c->rcount, c->rtype, tag);
        }
    } else {
        /* the part's result: at the root when it leads, else in scratch */
        x->acc = root ? c->rbuf : dx_scratch(x, 0, c->rtype, c->rcount);
        DX_SUB(x, d->part, reduce, c->in_place ? MPI_IN_PLACE : c->sbuf, x->acc, c->rcount,
               c->rtype, c->op, 0);
        DX_WAIT(x);
        DX_SUB(x, d->bridge, reduce, d->p == rp ? MPI_IN_PLACE : x->acc,
               d->p == rp ? x->acc : NULL, c->rcount, c->rtype, c->op, rp);
        DX_WAIT(x);
        if (d->p == rp && !root) {
            dx_p2p(x, true, rk, x->acc, c->rcount, c->rtype, tag);
        }
    }
    DX_LAST(x);
    DX_END(x);
}

/* gather, gatherv: the root's part gathers straight into the root's
 * buffer; the others pack at their leaders, whose bridge gatherv brings
 * everything to the root's leader, which hands it to the root. */
static bool run_gather(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_GATHERV == c->coll, root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    const int tag = MCA_COLL_BASE_TAG_GATHERV;
    const blocks_t rblocks = {c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                              c->rtype, NULL};
    const void *mine = c->in_place ? MPI_IN_PLACE : c->sbuf;
    const int64_t my_bytes = (int64_t) c->scount * (int64_t) c->ssize;
    int *pc = x->iv[0], *mc = x->iv[1];
    DX_BEGIN(x);
    /* a leading root takes the bridge's blocks straight into its buffer */
    x->direct = root && 0 == rk && packed_view(d, &rblocks);
    x->x = x->direct ? c->rbuf : NULL;
    pc = dx_ints(x, 0, 2 * nq);
    mc = dx_ints(x, 1, 2 * d->np);
    bridge_shares(x, &rblocks, c->rsize, v, my_bytes, pc);
    DX_WAIT(x);
    bridge_total(x, pc);
    if (d->p == rp) {
        if (root) {
            member_blocks(d, &rblocks, mc, mc + d->np);
        }
        DX_SUB(x, d->part, gatherv, mine, c->scount, c->stype, c->rbuf, HC_COUNTS(mc),
               HC_DISPS(mc + d->np), c->rtype, rk);
    } else {
        member_shares(x, v, my_bytes, mc);
        DX_WAIT(x);
        member_total(x, mc);
        x->y = dx_scratch(x, 1, PACKED, x->ybytes);
        DX_SUB(x, d->part, gatherv, mine, c->scount, c->stype, x->y, HC_COUNTS(mc),
               HC_DISPS(mc + d->np), PACKED, 0);
    }
    DX_WAIT(x);
    if (NULL == x->x && (leads(d) || root)) {
        x->x = dx_scratch(x, 0, PACKED, x->xbytes);
    }
    if (leads(d)) {
        DX_SUB(x, d->bridge, gatherv, d->p == rp ? x->x : x->y, d->p == rp ? 0 : (int) x->ybytes,
               PACKED, x->x, HC_COUNTS(pc), HC_DISPS(pc + nq), PACKED, rp);
    }
    DX_WAIT(x);
    /* the root's leader hands the other parts' blocks to the root */
    if (0 != rk && d->p == rp && leads(d)) {
        dx_p2p(x, true, rk, x->x, x->xbytes, PACKED, tag);
    } else if (0 != rk && root) {
        dx_p2p(x, false, 0, x->x, x->xbytes, PACKED, tag);
    }
    DX_LAST(x);
    if (DX_DATA(x) && root && !x->direct) {
        x->rc = pack_blocks(d, &rblocks, rp, -1, x->x, true);
    }
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* All to all: compositions                                             */
/* ------------------------------------------------------------------ */

static bool run_allreduce(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    DX_BEGIN(x);
    if (leads(d)) {
        DX_SUB(x, d->part, reduce, c->in_place ? MPI_IN_PLACE : c->sbuf, c->rbuf, c->rcount,
               c->rtype, c->op, 0);
        DX_WAIT(x);
        DX_SUB(x, d->bridge, allreduce, MPI_IN_PLACE, c->rbuf, c->rcount, c->rtype, c->op);
    } else {
        DX_SUB(x, d->part, reduce, c->in_place ? c->rbuf : c->sbuf, NULL, c->rcount, c->rtype,
               c->op, 0);
    }
    DX_WAIT(x);
    DX_SUB(x, d->part, bcast, c->rbuf, c->rcount, c->rtype, 0);
    DX_LAST(x);
    DX_END(x);
}

/* reduce_scatter(_block): the parts reduce the whole vector to their
 * leaders; the leaders reduce-scatter it by parts when parts are runs of
 * ranks (each part's blocks are then one run of the vector), else
 * allreduce it; each leader scatters its members' blocks. */
static bool run_reduce_scatter(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool block = HC_REDUCE_SCATTER_BLOCK == c->coll;
    const int nq = d->lay.nparts, mine = block ? c->rcount : c->rcounts[c->rank];
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    const int64_t total = sum_counts(c);
    int *pc = x->iv[0], *mc = x->iv[1];
    int64_t *off = x->off;
    DX_BEGIN(x);
    if (!leads(d)) {
        DX_SUB(x, d->part, reduce, in, NULL, (int) total, c->rtype, c->op, 0);
        DX_WAIT(x);
        DX_SUB(x, d->part, scatterv, NULL, HC_COUNTS(NULL), HC_DISPS(NULL), c->rtype, c->rbuf, mine,
               c->rtype, 0);
    } else {
        pc = dx_ints(x, 0, nq);
        mc = dx_ints(x, 1, 2 * d->np);
        off = dx_offsets(x, c->size);
        x->acc = dx_scratch(x, 0, c->rtype, total);
        if (OMPI_SUCCESS == x->rc) {
            /* where each rank's block sits in the vector (rank order) */
            for (int r = 0, at = 0; r < c->size; ++r) {
                off[r] = at;
                at += block ? c->rcount : c->rcounts[r];
            }
        }
        DX_SUB(x, d->part, reduce, in, x->acc, (int) total, c->rtype, c->op, 0);
        DX_WAIT(x);
        x->base = 0;
        if (d->lay.contiguous && OMPI_SUCCESS == x->rc) {
            for (int q = 0; q < nq; ++q) {
                int last = hcp_leader(&d->lay, q) + hcp_part_size(&d->lay, q);
                pc[q] = (int) ((last < c->size ? off[last] : total) - off[hcp_leader(&d->lay, q)]);
            }
            x->base = off[member(d, 0)];
            DX_SUB(x, d->bridge, reduce_scatter, MPI_IN_PLACE, x->acc, HC_COUNTS(pc), c->rtype,
                   c->op);
        } else {
            DX_SUB(x, d->bridge, allreduce, MPI_IN_PLACE, x->acc, (int) total, c->rtype, c->op);
        }
        DX_WAIT(x);
        for (int k = 0; k < d->np && OMPI_SUCCESS == x->rc; ++k) {
            mc[k] = block ? c->rcount : c->rcounts[member(d, k)];
            mc[d->np + k] = (int) (off[member(d, k)] - x->base);
        }
        DX_SUB(x, d->part, scatterv, x->acc, HC_COUNTS(mc), HC_DISPS(mc + d->np), c->rtype, c->rbuf,
               mine, c->rtype, 0);
    }
    DX_LAST(x);
    DX_END(x);
}

/* allgather(v): every part gathers its blocks, packed, at its leader; the
 * leaders allgatherv them; every part broadcasts the whole, and every
 * rank unpacks it into its own buffer. */
static bool run_allgather(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_ALLGATHERV == c->coll;
    const int nq = d->lay.nparts;
    const blocks_t rblocks = {c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                              c->rtype, NULL};
    int *pc = x->iv[0], *mc = x->iv[1];
    int64_t *off = x->off;
    DX_BEGIN(x);
    pc = dx_ints(x, 0, 2 * nq);
    mc = dx_ints(x, 1, 2 * d->np);
    off = dx_offsets(x, c->size);
    if (OMPI_SUCCESS == x->rc) {
        x->total = hcp_pack_layout(&d->lay, rblocks.counts, c->rcount, c->rsize, -1, off, pc,
                                   pc + nq);
        /* the receive buffer is the packed result itself when it can be */
        x->direct = packed_view(d, &rblocks);
        x->all = x->direct ? c->rbuf : dx_scratch(x, 0, PACKED, x->total);
    }
    if (OMPI_SUCCESS == x->rc) {
        /* my block: in my receive buffer when in place (where a leader's
         * already is in a direct result) */
        char *at = (char *) c->sbuf;
        int count = c->scount;
        ompi_datatype_t *type = c->stype;
        if (c->in_place && x->direct && leads(d)) {
            at = MPI_IN_PLACE;
        } else if (c->in_place) {
            block_of(&rblocks, c->rank, &at, &count, &type);
        }
        for (int k = 0; k < d->np; ++k) {
            mc[k] = (int) block_bytes(&rblocks, member(d, k));
            mc[d->np + k] = (int) (off[member(d, k)] - off[member(d, 0)]);
        }
        DX_SUB(x, d->part, gatherv, at, count, type, x->all + pc[nq + d->p], HC_COUNTS(mc),
               HC_DISPS(mc + d->np), PACKED, 0);
    }
    DX_WAIT(x);
    if (leads(d)) {
        DX_SUB(x, d->bridge, allgatherv, MPI_IN_PLACE, 0, PACKED, x->all, HC_COUNTS(pc),
               HC_DISPS(pc + nq), PACKED);
    }
    DX_WAIT(x);
    DX_SUB(x, d->part, bcast, x->all, (int) x->total, PACKED, 0);
    DX_LAST(x);
    if (DX_DATA(x) && !x->direct) {
        x->rc = pack_blocks(d, &rblocks, -1, c->in_place ? c->rank : -1, x->all, true);
    }
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* All to all: four steps                                               */
/* ------------------------------------------------------------------ */

static int64_t pair_bytes(int i, int j, void *arg)
{
    const a2a_ctx_t *a = arg;
    if (NULL == a->counts) {
        return a->block;
    }
    if (a->d->lay.part[i] == a->d->p) {
        return a->counts[(size_t) local(a->d, i) * 2 * a->n + j];
    }
    return a->counts[(size_t) local(a->d, j) * 2 * a->n + a->n + i];
}

static void apply(char *dst, const char *src, const hcp_copy_t *copies, int n)
{
    for (int k = 0; k < n; ++k) {
        memcpy(dst + copies[k].dst, src + copies[k].src, (size_t) copies[k].len);
    }
}

/* The members exchange the blocks that stay in the part.  A part of one
 * process only moves its own block, here: the layer below on a
 * one-process communicator is coll/self in Open MPI's default stack, and
 * its alltoallw (4.1.4 and 5.0.7) scales alltoallw's BYTE displacements
 * by the datatype's extent, reading and writing past the buffers
 * whenever the own block is not at displacement 0. */
static void exchange_inside(hc_dx_t *x, const blocks_t *sb, const blocks_t *rb)
{
    const hc_call_t *c = &x->c;
    const hc_decomp_t *d = x->d;
    const int np = d->np;
    if (1 == np) {
        char *from, *to;
        int scount, rcount;
        ompi_datatype_t *stype, *rtype;
        if (!c->in_place && DX_DATA(x)) { /* (in place: the block is where it belongs) */
            block_of(sb, c->rank, &from, &scount, &stype);
            block_of(rb, c->rank, &to, &rcount, &rtype);
            x->rc = mca_coll_hiercoll_dt_copy(from, (size_t) scount, stype, to, (size_t) rcount,
                                              rtype);
        }
        return;
    }
    int *sc = dx_ints(x, 3, 4 * np);
    if (NULL != rb->types && NULL == x->types
        && NULL == (x->types = malloc(sizeof(*x->types) * 2 * (size_t) np))) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    int *sd = sc + np, *rcn = sc + 2 * np, *rd = sc + 3 * np;
    member_blocks(d, sb, sc, sd);
    member_blocks(d, rb, rcn, rd);
    const void *sbuf = c->in_place ? MPI_IN_PLACE : c->sbuf;
    if (NULL == rb->types) {
        DX_SUB(x, d->part, alltoallv, sbuf, HC_COUNTS(sc), HC_DISPS(sd), sb->type, c->rbuf,
               HC_COUNTS(rcn), HC_DISPS(rd), rb->type);
    } else {
        for (int k = 0; k < np; ++k) {
            x->types[k] = c->in_place ? rb->types[member(d, k)] : sb->types[member(d, k)];
            x->types[np + k] = rb->types[member(d, k)];
        }
        DX_SUB(x, d->part, alltoallw, sbuf, HC_COUNTS(sc), HC_DISPS(sd), x->types, c->rbuf,
               HC_COUNTS(rcn), HC_DISPS(rd), x->types + np);
    }
}

/* alltoall(v,w):
 *   1. every member packs, in decomposition order, its blocks for the
 *      ranks outside its part, and its leader gathers them (G), regroups
 *      them by destination part (S) and exchanges them with the other
 *      leaders (R), then regroups what arrived by member (lo);
 *   2. the members exchange the blocks that stay in the part;
 *   3. every leader scatters what arrived for its members, who unpack it.
 * (v, w: first the leader learns its members' rows and columns.) */
static bool run_alltoall(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool w = HC_ALLTOALLW == c->coll, v = HC_ALLTOALLV == c->coll || w;
    const int n = c->size, np = d->np;
    const blocks_t rb = {c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                         c->rtype, w ? c->rtypes : NULL};
    blocks_t sb = {(char *) c->sbuf, v ? c->scounts : NULL, v ? c->sdispls : NULL, c->scount,
                   c->stype, w ? c->stypes : NULL};
    if (c->in_place) { /* the receive buffer holds what is sent */
        sb = rb;
    }
    hcp_a2a_t *a = &x->a;
    DX_BEGIN(x);
    x->ctx = (a2a_ctx_t){d, NULL, n, (int64_t) c->rcount * (int64_t) c->rsize};
    if (v) {
        int *mine = dx_ints(x, 2, 2 * n);
        if (leads(d) && NULL == (x->counts = malloc(sizeof(int) * 2 * (size_t) n * (size_t) np))) {
            x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        }
        for (int r = 0; r < n && OMPI_SUCCESS == x->rc; ++r) {
            mine[r] = (int) block_bytes(&sb, r);
            mine[n + r] = (int) block_bytes(&rb, r);
        }
        DX_SUB(x, d->part, gather, mine, 2 * n, MPI_INT, x->counts, 2 * n, MPI_INT, 0);
        x->ctx.counts = x->counts;
    }
    DX_WAIT(x);
    /* 1. pack what leaves the part, before anything lands in place */
    x->obytes = x->ibytes = 0;
    for (int r = 0; r < n; ++r) {
        if (d->lay.part[r] != d->p) {
            x->obytes += block_bytes(&sb, r);
            x->ibytes += block_bytes(&rb, r);
        }
    }
    x->o = dx_scratch(x, 0, PACKED, x->obytes);
    x->in = dx_scratch(x, 1, PACKED, x->ibytes);
    if (DX_DATA(x)) {
        x->rc = pack_blocks(d, &sb, d->p, -1, x->o, false);
    }
    if (leads(d) && !x->laid && OMPI_SUCCESS == x->rc) {
        x->laid = true;
        if (0 != hcp_a2a_layout(a, &d->lay, d->p, pair_bytes, &x->ctx)) {
            x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    if (leads(d) && OMPI_SUCCESS == x->rc) {
        x->g = dx_scratch(x, 2, PACKED, a->gbytes);
        x->s = dx_scratch(x, 3, PACKED, a->sbytes);
        x->r = dx_scratch(x, 4, PACKED, a->rbytes);
        x->lo = dx_scratch(x, 5, PACKED, a->obytes);
    }
    if (leads(d)) {
        DX_SUB(x, d->part, gatherv, x->o, (int) x->obytes, PACKED, x->g, HC_COUNTS(a->gcount),
               HC_DISPS(a->gdispl), PACKED, 0);
        DX_WAIT(x);
        if (DX_DATA(x)) {
            apply(x->s, x->g, a->out, a->nout);
        }
        DX_SUB(x, d->bridge, alltoallv, x->s, HC_COUNTS(a->scount), HC_DISPS(a->sdispl), PACKED,
               x->r, HC_COUNTS(a->rcount), HC_DISPS(a->rdispl), PACKED);
        DX_WAIT(x);
        if (DX_DATA(x)) {
            apply(x->lo, x->r, a->in, a->nin);
        }
    } else {
        DX_SUB(x, d->part, gatherv, x->o, (int) x->obytes, PACKED, NULL, HC_COUNTS(NULL),
               HC_DISPS(NULL), PACKED, 0);
        DX_WAIT(x);
    }
    /* 2. the blocks that stay */
    exchange_inside(x, &sb, &rb);
    DX_WAIT(x);
    /* 3. every leader scatters what arrived for its members */
    DX_SUB(x, d->part, scatterv, x->lo, HC_COUNTS(a->ocount), HC_DISPS(a->odispl), PACKED, x->in,
           (int) x->ibytes, PACKED, 0);
    DX_LAST(x);
    if (DX_DATA(x)) {
        x->rc = pack_blocks(d, &rb, d->p, -1, x->in, true);
    }
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* Barrier, partial reductions                                          */
/* ------------------------------------------------------------------ */

static bool run_barrier(hc_dx_t *x)
{
    hc_decomp_t *d = x->d;
    DX_BEGIN(x);
    DX_BARRIER(x, d->part);
    DX_WAIT(x);
    if (leads(d)) {
        DX_BARRIER(x, d->bridge);
    }
    DX_WAIT(x);
    /* released only once every part has arrived */
    x->token = 0;
    DX_SUB(x, d->part, bcast, &x->token, 1, MPI_BYTE, 0);
    DX_LAST(x);
    DX_END(x);
}

/* scan, exscan: every leader gets every input, in decomposition order,
 * folds them in rank order in place (input r becomes the reduction of
 * inputs 0..r) as far as its part needs, and scatters its members'
 * results. */
static bool run_scan(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool ex = HC_EXSCAN == c->coll;
    const int count = c->rcount, mine = ex && 0 == c->rank ? 0 : count, nq = d->lay.nparts;
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(c->rtype, &lb, &ext);
    const ptrdiff_t stride = ext * count;
    int *pc = x->iv[0], *mc = x->iv[1];
    DX_BEGIN(x);
    if (!leads(d)) {
        DX_SUB(x, d->part, gather, in, count, c->rtype, NULL, 0, c->rtype, 0);
        DX_WAIT(x);
        DX_SUB(x, d->part, scatterv, NULL, HC_COUNTS(NULL), HC_DISPS(NULL), c->rtype, c->rbuf, mine,
               c->rtype, 0);
    } else {
        pc = dx_ints(x, 0, 2 * nq);
        mc = dx_ints(x, 1, 2 * d->np);
        x->all = dx_scratch(x, 0, c->rtype, (int64_t) c->size * count);
        for (int q = 0; q < nq && OMPI_SUCCESS == x->rc; ++q) {
            pc[q] = hcp_part_size(&d->lay, q) * count;
            pc[nq + q] = d->lay.start[q] * count;
        }
        DX_SUB(x, d->part, gather, in, count, c->rtype, x->all + pc[nq + d->p] * ext, count,
               c->rtype, 0);
        DX_WAIT(x);
        DX_SUB(x, d->bridge, allgatherv, MPI_IN_PLACE, 0, c->rtype, x->all, HC_COUNTS(pc),
               HC_DISPS(pc + nq), c->rtype);
        DX_WAIT(x);
        for (int r = 1; DX_DATA(x) && r <= member(d, d->np - 1); ++r) {
            ompi_op_reduce(c->op, x->all + hcp_pos(&d->lay, r - 1) * stride,
                           x->all + hcp_pos(&d->lay, r) * stride, (size_t) count, c->rtype);
        }
        for (int k = 0; k < d->np && OMPI_SUCCESS == x->rc; ++k) {
            int r = member(d, k), from = ex ? r - 1 : r;
            mc[k] = from < 0 ? 0 : count;
            mc[d->np + k] = from < 0 ? 0 : hcp_pos(&d->lay, from) * count;
        }
        DX_SUB(x, d->part, scatterv, x->all, HC_COUNTS(mc), HC_DISPS(mc + d->np), c->rtype, c->rbuf,
               mine, c->rtype, 0);
    }
    DX_LAST(x);
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* Entry: blocking calls, requests, progress                            */
/* ------------------------------------------------------------------ */

/* The program of every collective (v forms and their regular twins share). */
static bool (*const programs[HC_NCOLL])(hc_dx_t *x) = {
    [HC_BCAST] = run_bcast,
    [HC_SCATTER] = run_scatter,
    [HC_SCATTERV] = run_scatter,
    [HC_REDUCE] = run_reduce,
    [HC_GATHER] = run_gather,
    [HC_GATHERV] = run_gather,
    [HC_ALLREDUCE] = run_allreduce,
    [HC_REDUCE_SCATTER] = run_reduce_scatter,
    [HC_REDUCE_SCATTER_BLOCK] = run_reduce_scatter,
    [HC_ALLGATHER] = run_allgather,
    [HC_ALLGATHERV] = run_allgather,
    [HC_ALLTOALL] = run_alltoall,
    [HC_ALLTOALLV] = run_alltoall,
    [HC_ALLTOALLW] = run_alltoall,
    [HC_BARRIER] = run_barrier,
    [HC_SCAN] = run_scan,
    [HC_EXSCAN] = run_scan,
};

/* Run the call's program as far as it goes (a nonblocking call not at
 * the head of its issue queue waits for its turn); true when finished. */
static bool dx_advance(hc_dx_t *x)
{
    if (x->queued && x->d->qhead != x) {
        return false;
    }
    return programs[x->c.coll](x);
}

/* A blocking call: the program runs through, each piece blocking. */
static int run_blocking(hc_call_t *c)
{
    hc_decomp_t *d = c->module->decomp; /* made by usable() */
    hc_dx_t x;
    memset(&x, 0, sizeof(x));
    x.c = *c;
    x.d = d;
    x.kind = DX_BLOCK;
    d->calls[c->coll]++;
    dx_drain(d);
    programs[c->coll](&x);
    dx_free_mem(&x);
    return x.rc;
}

/* The calls in flight, in start order, and the progress callback. */
static struct {
    hc_dreq_t *head;
    bool registered, in_progress;
    unsigned idle;
} dxg;

static int dx_progress(void)
{
    if (dxg.in_progress) {
        return 0;
    }
    if (NULL == dxg.head) {
        /* nothing in flight for a while: leave Open MPI's progress loop */
        if (dxg.registered && ++dxg.idle > 4096) {
            dxg.registered = false;
            opal_progress_unregister(dx_progress);
        }
        return 0;
    }
    int done = 0;
    dxg.in_progress = true;
    for (hc_dreq_t **pp = &dxg.head; NULL != *pp;) {
        hc_dreq_t *r = *pp;
        const int pc = r->x.pc;
        if (!dx_advance(&r->x)) {
            /* a call that moved on to its next pieces counts as an event:
             * Open MPI's progress yields the processor after a pass
             * without any (mpi_yield_when_idle) */
            done += pc != r->x.pc;
            pp = &r->anext;
            continue;
        }
        *pp = r->anext;
        r->active = false;
        if (DX_NB == r->x.kind) {
            dx_free_mem(&r->x); /* a persistent call keeps its scratch */
        }
        r->super.super.req_status.MPI_ERROR = r->x.rc;
        ompi_request_complete(&r->super.super, true);
        ++done;
    }
    dxg.in_progress = false;
    return done;
}

static void dx_begin(hc_dreq_t *r)
{
    hc_dx_t *x = &r->x;
    hc_decomp_t *d = x->d;
    mca_coll_hiercoll_req_arm(&r->super.super);
    x->rc = OMPI_SUCCESS;
    x->pc = 0;
    x->ips = 0;
    d->calls[x->c.coll]++;
    if (DX_NB == x->kind) { /* its turn in the issue queue */
        x->qnext = NULL;
        x->queued = true;
        if (NULL == d->qtail) {
            d->qhead = x;
        } else {
            d->qtail->qnext = x;
        }
        d->qtail = x;
    }
    r->active = true;
    r->anext = NULL;
    hc_dreq_t **pp = &dxg.head;
    while (NULL != *pp) {
        pp = &(*pp)->anext;
    }
    *pp = r;
    dxg.idle = 0;
    if (!dxg.registered) {
        dxg.registered = true;
        opal_progress_register(dx_progress);
    }
    /* As far as it goes now: pieces that complete at once (a part of one
     * process, members whose data is already there) move the call on to
     * the pieces that cross parts before the application computes, which
     * then travel without another MPI call.  Stops after two passes of
     * Open MPI's progress in which the call did not move on. */
    dx_progress();
    for (int i = 0, idle = 0; i < 16 && r->active && idle < 2; ++i) {
        const int pc = x->pc;
        opal_progress();
        idle = pc == x->pc ? idle + 1 : 0;
    }
}

static int dx_req_start(size_t count, ompi_request_t **reqs)
{
    for (size_t i = 0; i < count; ++i) {
        hc_dreq_t *r = (hc_dreq_t *) reqs[i];
        if (r->active) {
            return MPI_ERR_REQUEST;
        }
        dx_begin(r);
    }
    return OMPI_SUCCESS;
}

static int dx_req_free(ompi_request_t **rp)
{
    hc_dreq_t *r = (hc_dreq_t *) *rp;
    if (r->active) {
        return MPI_ERR_REQUEST;
    }
    for (int i = 0; i < r->x.nps; ++i) {
        ompi_request_free(&r->x.ps[i]);
    }
    dx_free_mem(&r->x);
    OBJ_RELEASE(r->m);
    OBJ_RELEASE(r->comm);
    mca_coll_hiercoll_req_unmake(&r->super);
    free(r);
    *rp = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

int mca_coll_hiercoll_decomp_start(hc_call_t *c, ompi_request_t **request, struct ompi_info_t *info)
{
    (void) info;
    if (HC_BLOCKING == c->mode) {
        return run_blocking(c);
    }
    hc_decomp_t *d = c->module->decomp; /* made by usable() */
    const bool persistent = HC_PERSISTENT == c->mode;
    hc_dreq_t *r = calloc(1, sizeof(*r));
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    mca_coll_hiercoll_req_make(&r->super, c->comm, persistent, dx_req_free, dx_req_start);
    r->m = c->module;
    r->comm = c->comm;
    OBJ_RETAIN(r->m);
    OBJ_RETAIN(r->comm);
    r->x.c = *c;
    r->x.d = d;
    *request = &r->super.super;
    if (!persistent) {
        r->x.kind = DX_NB;
        dx_begin(r);
        return OMPI_SUCCESS;
    }
    /* create the pieces now, in the parent's init order: after the
     * nonblocking calls started earlier have created theirs */
    dx_drain(d);
    r->x.kind = DX_INIT;
    r->x.ptag = ompi_coll_base_nbc_reserve_tags(d->part, 1);
    programs[c->coll](&r->x);
    r->x.kind = DX_START;
    if (OMPI_SUCCESS != r->x.rc) {
        int rc = r->x.rc;
        dx_req_free(request);
        *request = MPI_REQUEST_NULL;
        return rc;
    }
    r->super.super.req_state = OMPI_REQUEST_INACTIVE;
    r->super.super.req_complete = REQUEST_COMPLETED;
    return OMPI_SUCCESS;
}

void mca_coll_hiercoll_decomp_fini(void)
{
    if (dxg.registered) {
        dxg.registered = false;
        opal_progress_unregister(dx_progress);
    }
}
