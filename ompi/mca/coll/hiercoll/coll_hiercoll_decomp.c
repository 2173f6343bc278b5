/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Decomposition (S. I. Sapronov's method): a communicator is split once
 * into disjoint PARTS (by node, a hardware level, blocks of ranks or an
 * explicit list: coll_hiercoll_decomp_criterion) plus a BRIDGE holding
 * one LEADER of each part, and every blocking collective runs in pieces
 * on them with the collectives of the components below hiercoll, the
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
#include "ompi/mca/pml/pml.h"
#include "opal/util/info.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_below.h"

struct hc_decomp {
    bool ready; /* parts and bridge exist: decomposition serves calls */
    hcp_decomp_t lay;
    ompi_communicator_t *part;   /* my part */
    ompi_communicator_t *bridge; /* the leaders; NULL on the others */
    int p, np;                   /* my part and its size */
    uint64_t calls[HC_NCOLL];    /* decomposed calls (statistics) */
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
    /* Finalize releases the communicators left over in cid order: one with
     * a lower cid than its parent would go first, and the parent's
     * teardown would free it again.  Open MPI's extra retain (the one it
     * uses for an intercommunicator's local communicator) keeps it alive
     * until ompi_comm_free drops both references. */
    if (OMPI_COMM_CID_IS_LOWER(*out, comm)) {
        OMPI_COMM_SET_EXTRA_RETAIN(*out);
        OBJ_RETAIN(*out);
    }
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
        ompi_comm_free(c);
        *c = NULL;
    }
}

/* Open MPI makes a communicator only where its components fill every
 * collective slot, and the bridge (the parts too, with the shared-memory
 * level off) leaves hiercoll out: the components below it must fill them (under "hiercoll,basic" the
 * nonblocking and persistent ones are hiercoll's alone).  The same answer
 * on every rank: the components are. */
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
            mca_coll_hiercoll_log(1, "%s: decomposition by %s: not decomposed: the components "
                                  "below hiercoll leave collective slots empty (no libnbc?), and "
                                  "Open MPI makes no sub-communicator without hiercoll then",
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

/* The decomposition of the call's communicator, created at the first call
 * that asks; NULL when it does not apply, or while it is being built. */
static hc_decomp_t *decomp_of(const hc_call_t *c)
{
    if (NULL == c->module->decomp) {
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
    return fits_int(c, d);
}

const hcp_decomp_t *mca_coll_hiercoll_decomp_layout(const hc_call_t *c)
{
    const hc_decomp_t *d = decomp_of(c);
    return NULL != d ? &d->lay : NULL;
}

/* ------------------------------------------------------------------ */
/* Pieces                                                               */
/* ------------------------------------------------------------------ */

/* A collective of the components below hiercoll, on a sub-communicator. */
#define SUB(comm, coll, ...)                                                                       \
    ((comm)->c_coll->coll_##coll(__VA_ARGS__, (comm), (comm)->c_coll->coll_##coll##_module))

#define PACKED (&ompi_mpi_packed.dt)

static bool leads(const hc_decomp_t *d)
{
    return NULL != d->bridge;
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

static int part_send(const hc_decomp_t *d, int to, const void *buf, size_t count,
                     ompi_datatype_t *type, int tag)
{
    return mca_pml.pml_send(buf, count, type, to, tag, MCA_PML_BASE_SEND_STANDARD, d->part);
}

static int part_recv(const hc_decomp_t *d, int from, void *buf, size_t count,
                     ompi_datatype_t *type, int tag)
{
    return mca_pml.pml_recv(buf, count, type, from, tag, d->part, MPI_STATUS_IGNORE);
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
            rc = unpack ? ompi_datatype_sndrcv(packed + at, (int32_t) bytes, PACKED, buf, count, type)
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
 * displacements (mc[part size] each), and the total.  Regular blocks are
 * `mine` bytes everywhere; v forms gather each member's own. */
static int member_shares(const hc_decomp_t *d, bool v, int64_t mine, int *mc, int64_t *total)
{
    int b = (int) mine, rc = OMPI_SUCCESS;
    for (int k = 0; k < d->np && !v; ++k) {
        mc[k] = b;
    }
    if (v) {
        rc = SUB(d->part, gather, &b, 1, MPI_INT, mc, 1, MPI_INT, 0);
    }
    if (OMPI_SUCCESS == rc && leads(d) && (*total = hcp_prefix(d->np, mc, mc + d->np)) < 0) {
        rc = OMPI_ERR_VALUE_OUT_OF_BOUNDS;
    }
    return rc;
}

/* Rooted collectives: what each part moves over the bridge (pc[nparts]
 * bytes, then displacements; the root's part moves nothing), at the root
 * and at its leader.  The root knows its blocks; a leader computes
 * regular blocks of `mine` bytes itself, and hears v forms' shares from
 * a root that does not lead.  `direct`: the displacements are the blocks'
 * own in the root's buffer.  *total: the packed bytes, when not direct. */
static int bridge_shares(const hc_call_t *c, const hc_decomp_t *d, const blocks_t *b,
                         size_t unit, bool v, bool direct, int64_t mine, int *pc, int64_t *total)
{
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    int rc = OMPI_SUCCESS;
    if (c->rank == c->root) {
        *total = hcp_pack_layout(&d->lay, b->counts, b->count, unit, direct ? -1 : rp, NULL, pc,
                                 pc + nq);
        pc[rp] = 0;
        if (v && 0 != rk) {
            rc = part_send(d, 0, pc, (size_t) 2 * nq, MPI_INT, MCA_COLL_BASE_TAG_GATHERV);
        }
    } else if (d->p == rp && leads(d)) {
        if (v) {
            rc = part_recv(d, rk, pc, (size_t) 2 * nq, MPI_INT, MCA_COLL_BASE_TAG_GATHERV);
        } else {
            hcp_pack_layout(&d->lay, NULL, 1, (size_t) mine, rp, NULL, pc, pc + nq);
        }
        *total = (int64_t) pc[nq - 1] + pc[2 * nq - 1];
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* One to all                                                           */
/* ------------------------------------------------------------------ */

static int run_bcast(hc_call_t *c, hc_decomp_t *d)
{
    const int rp = d->lay.part[c->root], rk = local(d, c->root), tag = MCA_COLL_BASE_TAG_BCAST;
    int rc = OMPI_SUCCESS;
    /* a root that does not lead its part hands the data to its leader */
    if (d->p == rp && 0 != rk && c->rank == c->root) {
        rc = part_send(d, 0, c->rbuf, (size_t) c->rcount, c->rtype, tag);
    } else if (d->p == rp && 0 != rk && leads(d)) {
        rc = part_recv(d, rk, c->rbuf, (size_t) c->rcount, c->rtype, tag);
    }
    if (OMPI_SUCCESS == rc && leads(d)) {
        rc = SUB(d->bridge, bcast, c->rbuf, c->rcount, c->rtype, rp);
    }
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->part, bcast, c->rbuf, c->rcount, c->rtype, d->p == rp ? rk : 0);
    }
    return rc;
}

/* scatter, scatterv: the root packs the blocks of the other parts and its
 * leader scatters them over the bridge; every part then scatters from its
 * leader, the root's part from the root's own buffer. */
static int run_scatter(hc_call_t *c, hc_decomp_t *d)
{
    const bool v = HC_SCATTERV == c->coll, root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    const int tag = MCA_COLL_BASE_TAG_GATHERV;
    const blocks_t sblocks = {(char *) c->sbuf, v ? c->scounts : NULL, v ? c->sdispls : NULL,
                              c->scount, c->stype, NULL};
    /* a leading root scatters over the bridge straight from its buffer */
    const bool direct = root && 0 == rk && packed_view(d, &sblocks);
    void *mine = c->in_place ? MPI_IN_PLACE : c->rbuf;
    int *pc = ints(2 * nq), *mc = ints(2 * d->np), rc = OMPI_ERR_OUT_OF_RESOURCE;
    char *xmem = NULL, *ymem = NULL, *x = direct ? (char *) c->sbuf : NULL, *y = NULL;
    int64_t xbytes = 0, ybytes = 0;
    if (NULL == pc || NULL == mc) {
        goto out;
    }
    rc = bridge_shares(c, d, &sblocks, c->ssize, v, direct, (int64_t) c->rcount * c->rsize, pc,
                       &xbytes);
    if (OMPI_SUCCESS == rc && d->p != rp) {
        rc = member_shares(d, v, (int64_t) c->rcount * c->rsize, mc, &ybytes);
    }
    /* the root packs the other parts' blocks, for its leader when it does
     * not lead */
    if (OMPI_SUCCESS == rc && !direct && (root || (d->p == rp && leads(d)))) {
        x = scratch(PACKED, xbytes, &xmem);
        rc = NULL == x ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS == rc && root && !direct) {
        rc = pack_blocks(d, &sblocks, rp, -1, x, false);
    }
    if (OMPI_SUCCESS == rc && 0 != rk && root) {
        rc = part_send(d, 0, x, (size_t) xbytes, PACKED, tag);
    } else if (OMPI_SUCCESS == rc && 0 != rk && d->p == rp && leads(d)) {
        rc = part_recv(d, rk, x, (size_t) xbytes, PACKED, tag);
    }
    if (OMPI_SUCCESS == rc && leads(d)) {
        y = scratch(PACKED, ybytes, &ymem);
        rc = NULL == y ? OMPI_ERR_OUT_OF_RESOURCE
                       : SUB(d->bridge, scatterv, x, pc, pc + nq, PACKED, y, (int) ybytes, PACKED,
                             rp);
    }
    if (OMPI_SUCCESS != rc) {
        goto out;
    }
    if (d->p != rp) {
        rc = SUB(d->part, scatterv, y, mc, mc + d->np, PACKED, mine, c->rcount, c->rtype, 0);
    } else {
        if (root) {
            member_blocks(d, &sblocks, mc, mc + d->np);
        }
        rc = SUB(d->part, scatterv, c->sbuf, mc, mc + d->np, c->stype, mine, c->rcount, c->rtype,
                 rk);
    }
out:
    free(pc);
    free(mc);
    free(xmem);
    free(ymem);
    return rc;
}

/* ------------------------------------------------------------------ */
/* All to one                                                           */
/* ------------------------------------------------------------------ */

static int run_reduce(hc_call_t *c, hc_decomp_t *d)
{
    const bool root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), tag = MCA_COLL_BASE_TAG_REDUCE;
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    int rc;
    if (!leads(d)) {
        rc = SUB(d->part, reduce, in, NULL, c->rcount, c->rtype, c->op, 0);
        if (OMPI_SUCCESS == rc && root) {
            rc = part_recv(d, 0, c->rbuf, (size_t) c->rcount, c->rtype, tag);
        }
        return rc;
    }
    /* the part's result: at the root when it leads, else in scratch */
    char *mem = NULL, *acc = root ? c->rbuf : scratch(c->rtype, c->rcount, &mem);
    if (NULL == acc) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    rc = SUB(d->part, reduce, c->in_place ? MPI_IN_PLACE : c->sbuf, acc, c->rcount, c->rtype,
             c->op, 0);
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->bridge, reduce, d->p == rp ? MPI_IN_PLACE : acc, d->p == rp ? acc : NULL,
                 c->rcount, c->rtype, c->op, rp);
    }
    if (OMPI_SUCCESS == rc && d->p == rp && !root) {
        rc = part_send(d, rk, acc, (size_t) c->rcount, c->rtype, tag);
    }
    free(mem);
    return rc;
}

/* gather, gatherv: the root's part gathers straight into the root's
 * buffer; the others pack at their leaders, whose bridge gatherv brings
 * everything to the root's leader, which hands it to the root. */
static int run_gather(hc_call_t *c, hc_decomp_t *d)
{
    const bool v = HC_GATHERV == c->coll, root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    const int tag = MCA_COLL_BASE_TAG_GATHERV;
    const blocks_t rblocks = {c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                              c->rtype, NULL};
    /* a leading root takes the bridge's blocks straight into its buffer */
    const bool direct = root && 0 == rk && packed_view(d, &rblocks);
    const void *mine = c->in_place ? MPI_IN_PLACE : c->sbuf;
    const int64_t my_bytes = (int64_t) c->scount * (int64_t) c->ssize;
    int *pc = ints(2 * nq), *mc = ints(2 * d->np), rc = OMPI_ERR_OUT_OF_RESOURCE;
    char *xmem = NULL, *ymem = NULL, *x = direct ? c->rbuf : NULL, *y = NULL;
    int64_t xbytes = 0, ybytes = 0;
    if (NULL == pc || NULL == mc) {
        goto out;
    }
    rc = bridge_shares(c, d, &rblocks, c->rsize, v, direct, my_bytes, pc, &xbytes);
    if (OMPI_SUCCESS == rc && d->p == rp) {
        if (root) {
            member_blocks(d, &rblocks, mc, mc + d->np);
        }
        rc = SUB(d->part, gatherv, mine, c->scount, c->stype, c->rbuf, mc, mc + d->np, c->rtype,
                 rk);
    } else if (OMPI_SUCCESS == rc) {
        rc = member_shares(d, v, my_bytes, mc, &ybytes);
        if (OMPI_SUCCESS == rc) {
            y = scratch(PACKED, ybytes, &ymem);
            rc = NULL == y ? OMPI_ERR_OUT_OF_RESOURCE
                           : SUB(d->part, gatherv, mine, c->scount, c->stype, y, mc, mc + d->np,
                                 PACKED, 0);
        }
    }
    if (OMPI_SUCCESS == rc && NULL == x && (leads(d) || root)) {
        x = scratch(PACKED, xbytes, &xmem);
        rc = NULL == x ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    }
    if (OMPI_SUCCESS == rc && leads(d)) {
        rc = SUB(d->bridge, gatherv, d->p == rp ? x : y, d->p == rp ? 0 : (int) ybytes, PACKED, x,
                 pc, pc + nq, PACKED, rp);
    }
    /* the root's leader hands the other parts' blocks to the root */
    if (OMPI_SUCCESS == rc && 0 != rk && d->p == rp && leads(d)) {
        rc = part_send(d, rk, x, (size_t) xbytes, PACKED, tag);
    } else if (OMPI_SUCCESS == rc && 0 != rk && root) {
        rc = part_recv(d, 0, x, (size_t) xbytes, PACKED, tag);
    }
    if (OMPI_SUCCESS == rc && root && !direct) {
        rc = pack_blocks(d, &rblocks, rp, -1, x, true);
    }
out:
    free(pc);
    free(mc);
    free(xmem);
    free(ymem);
    return rc;
}

/* ------------------------------------------------------------------ */
/* All to all: compositions                                             */
/* ------------------------------------------------------------------ */

static int run_allreduce(hc_call_t *c, hc_decomp_t *d)
{
    int rc;
    if (leads(d)) {
        rc = SUB(d->part, reduce, c->in_place ? MPI_IN_PLACE : c->sbuf, c->rbuf, c->rcount,
                 c->rtype, c->op, 0);
        if (OMPI_SUCCESS == rc) {
            rc = SUB(d->bridge, allreduce, MPI_IN_PLACE, c->rbuf, c->rcount, c->rtype, c->op);
        }
    } else {
        rc = SUB(d->part, reduce, c->in_place ? c->rbuf : c->sbuf, NULL, c->rcount, c->rtype,
                 c->op, 0);
    }
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->part, bcast, c->rbuf, c->rcount, c->rtype, 0);
    }
    return rc;
}

/* reduce_scatter(_block): the parts reduce the whole vector to their
 * leaders; the leaders reduce-scatter it by parts when parts are runs of
 * ranks (each part's blocks are then one run of the vector), else
 * allreduce it; each leader scatters its members' blocks. */
static int run_reduce_scatter(hc_call_t *c, hc_decomp_t *d)
{
    const bool block = HC_REDUCE_SCATTER_BLOCK == c->coll;
    const int nq = d->lay.nparts, mine = block ? c->rcount : c->rcounts[c->rank];
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    const int64_t total = sum_counts(c);
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(c->rtype, &lb, &ext);
    if (!leads(d)) {
        int rc = SUB(d->part, reduce, in, NULL, (int) total, c->rtype, c->op, 0);
        return OMPI_SUCCESS != rc ? rc
                                  : SUB(d->part, scatterv, NULL, NULL, NULL, c->rtype, c->rbuf,
                                        mine, c->rtype, 0);
    }
    int *pc = ints(nq), *mc = ints(2 * d->np), rc = OMPI_SUCCESS;
    int64_t *off = malloc(sizeof(int64_t) * (size_t) c->size);
    char *mem = NULL, *acc = scratch(c->rtype, total, &mem);
    if (NULL == pc || NULL == mc || NULL == off || NULL == acc) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    /* where each rank's block sits in the vector (rank order) */
    for (int r = 0, at = 0; r < c->size; ++r) {
        off[r] = at;
        at += block ? c->rcount : c->rcounts[r];
    }
    rc = SUB(d->part, reduce, in, acc, (int) total, c->rtype, c->op, 0);
    int64_t base = 0;
    if (OMPI_SUCCESS == rc && d->lay.contiguous) {
        for (int q = 0; q < nq; ++q) {
            int last = hcp_leader(&d->lay, q) + hcp_part_size(&d->lay, q);
            pc[q] = (int) ((last < c->size ? off[last] : total) - off[hcp_leader(&d->lay, q)]);
        }
        base = off[member(d, 0)];
        rc = SUB(d->bridge, reduce_scatter, MPI_IN_PLACE, acc, pc, c->rtype, c->op);
    } else if (OMPI_SUCCESS == rc) {
        rc = SUB(d->bridge, allreduce, MPI_IN_PLACE, acc, (int) total, c->rtype, c->op);
    }
    for (int k = 0; k < d->np; ++k) {
        mc[k] = block ? c->rcount : c->rcounts[member(d, k)];
        mc[d->np + k] = (int) (off[member(d, k)] - base);
    }
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->part, scatterv, acc, mc, mc + d->np, c->rtype, c->rbuf, mine, c->rtype, 0);
    }
out:
    free(pc);
    free(mc);
    free(off);
    free(mem);
    return rc;
}

/* allgather(v): every part gathers its blocks, packed, at its leader; the
 * leaders allgatherv them; every part broadcasts the whole, and every
 * rank unpacks it into its own buffer. */
static int run_allgather(hc_call_t *c, hc_decomp_t *d)
{
    const bool v = HC_ALLGATHERV == c->coll;
    const int nq = d->lay.nparts;
    const blocks_t rblocks = {c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                              c->rtype, NULL};
    int *pc = ints(2 * nq), *mc = ints(2 * d->np), rc = OMPI_SUCCESS;
    int64_t *off = malloc(sizeof(int64_t) * (size_t) c->size);
    char *mem = NULL, *all = NULL;
    if (NULL == pc || NULL == mc || NULL == off) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    const int64_t total = hcp_pack_layout(&d->lay, rblocks.counts, c->rcount, c->rsize, -1, off,
                                          pc, pc + nq);
    /* the receive buffer is the packed result itself when it can be */
    const bool direct = packed_view(d, &rblocks);
    if (NULL == (all = direct ? c->rbuf : scratch(PACKED, total, &mem))) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
        goto out;
    }
    /* my block: in my receive buffer when in place (where a leader's
     * already is in a direct result) */
    char *at = (char *) c->sbuf;
    int count = c->scount;
    ompi_datatype_t *type = c->stype;
    if (c->in_place && direct && leads(d)) {
        at = MPI_IN_PLACE;
    } else if (c->in_place) {
        block_of(&rblocks, c->rank, &at, &count, &type);
    }
    for (int k = 0; k < d->np; ++k) {
        mc[k] = (int) block_bytes(&rblocks, member(d, k));
        mc[d->np + k] = (int) (off[member(d, k)] - off[member(d, 0)]);
    }
    rc = SUB(d->part, gatherv, at, count, type, all + pc[nq + d->p], mc, mc + d->np, PACKED, 0);
    if (OMPI_SUCCESS == rc && leads(d)) {
        rc = SUB(d->bridge, allgatherv, MPI_IN_PLACE, 0, PACKED, all, pc, pc + nq, PACKED);
    }
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->part, bcast, all, (int) total, PACKED, 0);
    }
    if (OMPI_SUCCESS == rc && !direct) {
        rc = pack_blocks(d, &rblocks, -1, c->in_place ? c->rank : -1, all, true);
    }
out:
    free(pc);
    free(mc);
    free(off);
    free(mem);
    return rc;
}

/* ------------------------------------------------------------------ */
/* All to all: four steps                                               */
/* ------------------------------------------------------------------ */

/* What the leader knows of the pairs' bytes: its members' counts, each
 * member's row (bytes to every rank) then column (bytes from every rank);
 * NULL for alltoall, where every pair moves `block`. */
typedef struct a2a_ctx {
    const hc_decomp_t *d;
    const int *counts; /* [part size][2 n] */
    int n;
    int64_t block;
} a2a_ctx_t;

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

/* The leader's steps: gather its members' outgoing blocks (G), regroup
 * them by destination part (S), exchange with the other leaders (R),
 * regroup what arrived by member (O); returns O for the scatter. */
static int leader_exchange(const hc_decomp_t *d, hcp_a2a_t *a, const char *out, int out_bytes,
                           char **omem)
{
    char *gmem = NULL, *smem = NULL, *rmem = NULL;
    char *g = scratch(PACKED, a->gbytes, &gmem), *s = scratch(PACKED, a->sbytes, &smem);
    char *r = scratch(PACKED, a->rbytes, &rmem), *o = scratch(PACKED, a->obytes, omem);
    int rc = OMPI_ERR_OUT_OF_RESOURCE;
    if (NULL != g && NULL != s && NULL != r && NULL != o) {
        rc = SUB(d->part, gatherv, out, out_bytes, PACKED, g, a->gcount, a->gdispl, PACKED, 0);
    }
    if (OMPI_SUCCESS == rc) {
        apply(s, g, a->out, a->nout);
        rc = SUB(d->bridge, alltoallv, s, a->scount, a->sdispl, PACKED, r, a->rcount, a->rdispl,
                 PACKED);
    }
    if (OMPI_SUCCESS == rc) {
        apply(o, r, a->in, a->nin);
    }
    free(gmem);
    free(smem);
    free(rmem);
    return rc;
}

/* The members exchange the blocks that stay in the part.  A part of one
 * process only moves its own block, here: the layer below on a
 * one-process communicator is coll/self in Open MPI's default stack, and
 * its alltoallw (4.1.4 and 5.0.7) scales alltoallw's BYTE displacements
 * by the datatype's extent, reading and writing past the buffers
 * whenever the own block is not at displacement 0. */
static int exchange_inside(hc_call_t *c, const hc_decomp_t *d, const blocks_t *sb,
                           const blocks_t *rb)
{
    const int np = d->np;
    if (1 == np) {
        char *from, *to;
        int scount, rcount;
        ompi_datatype_t *stype, *rtype;
        if (c->in_place) { /* the block is where it belongs */
            return OMPI_SUCCESS;
        }
        block_of(sb, c->rank, &from, &scount, &stype);
        block_of(rb, c->rank, &to, &rcount, &rtype);
        return ompi_datatype_sndrcv(from, scount, stype, to, rcount, rtype);
    }
    int *sc = ints(4 * np), rc = OMPI_ERR_OUT_OF_RESOURCE;
    ompi_datatype_t **types = NULL != rb->types ? malloc(sizeof(*types) * 2 * (size_t) np) : NULL;
    if (NULL == sc || (NULL != rb->types && NULL == types)) {
        goto out;
    }
    int *sd = sc + np, *rcn = sc + 2 * np, *rd = sc + 3 * np;
    member_blocks(d, sb, sc, sd);
    member_blocks(d, rb, rcn, rd);
    const void *sbuf = c->in_place ? MPI_IN_PLACE : c->sbuf;
    if (NULL == types) {
        rc = SUB(d->part, alltoallv, sbuf, sc, sd, sb->type, c->rbuf, rcn, rd, rb->type);
    } else {
        for (int k = 0; k < np; ++k) {
            types[k] = c->in_place ? rb->types[member(d, k)] : sb->types[member(d, k)];
            types[np + k] = rb->types[member(d, k)];
        }
        rc = SUB(d->part, alltoallw, sbuf, sc, sd, types, c->rbuf, rcn, rd, types + np);
    }
out:
    free(sc);
    free(types);
    return rc;
}

static int run_alltoall(hc_call_t *c, hc_decomp_t *d)
{
    const bool w = HC_ALLTOALLW == c->coll, v = HC_ALLTOALLV == c->coll || w;
    const int n = c->size, np = d->np;
    const blocks_t rb = {c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                         c->rtype, w ? c->rtypes : NULL};
    blocks_t sb = {(char *) c->sbuf, v ? c->scounts : NULL, v ? c->sdispls : NULL, c->scount,
                   c->stype, w ? c->stypes : NULL};
    if (c->in_place) { /* the receive buffer holds what is sent */
        sb = rb;
    }
    a2a_ctx_t ctx = {d, NULL, n, (int64_t) c->rcount * (int64_t) c->rsize};
    hcp_a2a_t a = {0};
    int *counts = NULL, rc = OMPI_SUCCESS;
    int64_t out_bytes = 0, in_bytes = 0;
    char *omem = NULL, *imem = NULL, *lmem = NULL, *o, *in;

    /* (v, w) the leader learns its members' rows and columns */
    if (v) {
        int *mine = ints(2 * n);
        counts = leads(d) ? malloc(sizeof(int) * 2 * (size_t) n * (size_t) np) : NULL;
        if (NULL == mine || (leads(d) && NULL == counts)) {
            free(mine);
            rc = OMPI_ERR_OUT_OF_RESOURCE;
            goto out;
        }
        for (int r = 0; r < n; ++r) {
            mine[r] = (int) block_bytes(&sb, r);
            mine[n + r] = (int) block_bytes(&rb, r);
        }
        rc = SUB(d->part, gather, mine, 2 * n, MPI_INT, counts, 2 * n, MPI_INT, 0);
        free(mine);
        ctx.counts = counts;
    }
    /* 1. pack what leaves the part, before anything lands in place */
    for (int r = 0; r < n; ++r) {
        if (d->lay.part[r] != d->p) {
            out_bytes += block_bytes(&sb, r);
            in_bytes += block_bytes(&rb, r);
        }
    }
    o = scratch(PACKED, out_bytes, &omem);
    in = scratch(PACKED, in_bytes, &imem);
    if (OMPI_SUCCESS == rc && (NULL == o || NULL == in)) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_SUCCESS == rc) {
        rc = pack_blocks(d, &sb, d->p, -1, o, false);
    }
    /* 1 and 3 at the leader, the gather's other side at the members */
    if (OMPI_SUCCESS == rc && leads(d)) {
        rc = 0 == hcp_a2a_layout(&a, &d->lay, d->p, pair_bytes, &ctx) ? OMPI_SUCCESS
                                                                       : OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_SUCCESS == rc && leads(d)) {
        rc = leader_exchange(d, &a, o, (int) out_bytes, &lmem);
    } else if (OMPI_SUCCESS == rc) {
        rc = SUB(d->part, gatherv, o, (int) out_bytes, PACKED, NULL, NULL, NULL, PACKED, 0);
    }
    /* 2. the blocks that stay */
    if (OMPI_SUCCESS == rc) {
        rc = exchange_inside(c, d, &sb, &rb);
    }
    /* 4. every leader scatters what arrived for its members */
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->part, scatterv, lmem, a.ocount, a.odispl, PACKED, in, (int) in_bytes, PACKED,
                 0);
    }
    if (OMPI_SUCCESS == rc) {
        rc = pack_blocks(d, &rb, d->p, -1, in, true);
    }
out:
    hcp_a2a_fini(&a);
    free(counts);
    free(omem);
    free(imem);
    free(lmem);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Barrier, partial reductions                                          */
/* ------------------------------------------------------------------ */

static int run_barrier(hc_call_t *c, hc_decomp_t *d)
{
    (void) c;
    char token = 0;
    int rc = d->part->c_coll->coll_barrier(d->part, d->part->c_coll->coll_barrier_module);
    if (OMPI_SUCCESS == rc && leads(d)) {
        rc = d->bridge->c_coll->coll_barrier(d->bridge, d->bridge->c_coll->coll_barrier_module);
    }
    /* released only once every part has arrived */
    return OMPI_SUCCESS != rc ? rc : SUB(d->part, bcast, &token, 1, MPI_BYTE, 0);
}

/* scan, exscan: every leader gets every input, in decomposition order,
 * folds them in rank order in place (input r becomes the reduction of
 * inputs 0..r) as far as its part needs, and scatters its members'
 * results. */
static int run_scan(hc_call_t *c, hc_decomp_t *d)
{
    const bool ex = HC_EXSCAN == c->coll;
    const int count = c->rcount, mine = ex && 0 == c->rank ? 0 : count, nq = d->lay.nparts;
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    if (!leads(d)) {
        int rc = SUB(d->part, gather, in, count, c->rtype, NULL, 0, c->rtype, 0);
        return OMPI_SUCCESS != rc ? rc
                                  : SUB(d->part, scatterv, NULL, NULL, NULL, c->rtype, c->rbuf,
                                        mine, c->rtype, 0);
    }
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(c->rtype, &lb, &ext);
    const ptrdiff_t stride = ext * count;
    int *pc = ints(2 * nq), *mc = ints(2 * d->np), rc = OMPI_ERR_OUT_OF_RESOURCE;
    char *mem = NULL, *all = scratch(c->rtype, (int64_t) c->size * count, &mem);
    if (NULL == pc || NULL == mc || NULL == all) {
        goto out;
    }
    for (int q = 0; q < nq; ++q) {
        pc[q] = hcp_part_size(&d->lay, q) * count;
        pc[nq + q] = d->lay.start[q] * count;
    }
    rc = SUB(d->part, gather, in, count, c->rtype, all + pc[nq + d->p] * ext, count, c->rtype, 0);
    if (OMPI_SUCCESS == rc) {
        rc = SUB(d->bridge, allgatherv, MPI_IN_PLACE, 0, c->rtype, all, pc, pc + nq, c->rtype);
    }
    if (OMPI_SUCCESS != rc) {
        goto out;
    }
    for (int r = 1; r <= member(d, d->np - 1); ++r) {
        ompi_op_reduce(c->op, all + hcp_pos(&d->lay, r - 1) * stride,
                       all + hcp_pos(&d->lay, r) * stride, (size_t) count, c->rtype);
    }
    for (int k = 0; k < d->np; ++k) {
        int r = member(d, k), from = ex ? r - 1 : r;
        mc[k] = from < 0 ? 0 : count;
        mc[d->np + k] = from < 0 ? 0 : hcp_pos(&d->lay, from) * count;
    }
    rc = SUB(d->part, scatterv, all, mc, mc + d->np, c->rtype, c->rbuf, mine, c->rtype, 0);
out:
    free(pc);
    free(mc);
    free(mem);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Entry                                                                */
/* ------------------------------------------------------------------ */

/* The pieces of every collective (v forms and their regular twins share). */
static int (*const runs[HC_NCOLL])(hc_call_t *c, hc_decomp_t *d) = {
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

int mca_coll_hiercoll_decomp_run(hc_call_t *c)
{
    hc_decomp_t *d = c->module->decomp; /* made by usable() */
    d->calls[c->coll]++;
    return runs[c->coll](c, d);
}
