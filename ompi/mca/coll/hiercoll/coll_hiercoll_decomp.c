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
 *
 * This file makes the parts and the bridge, says which calls decompose,
 * and runs a call's program in the call's mode (blocking calls, requests,
 * progress); the rest is in rooms beside it:
 *
 *   coll_hiercoll_decomp_internal.h  types, the program macros, "A
 *                                    decomposed call" (modes, matching)
 *   coll_hiercoll_decomp_dx.c        the pieces: how each runs in a mode,
 *                                    the issue queue, scratch, blocks
 *   coll_hiercoll_decomp_rooted.c    one to all, all to one
 *   coll_hiercoll_decomp_all.c       all to all, barrier, partial reductions
 *   coll_hiercoll_decomp_ml.c        multi-leader: every process of a part
 *                                    carries a share across parts (allreduce,
 *                                    reduce, bcast, allgather(v),
 *                                    reduce_scatter(_block)); its lanes are
 *                                    made here
 *
 * Calls go down: this file calls the programs, the programs the pieces.
 */
#include "coll_hiercoll_decomp_internal.h"

/* ------------------------------------------------------------------ */
/* Sub-communicators                                                    */
/* ------------------------------------------------------------------ */

static const int split_type[HCP_NLEVELS] = {
    [HCP_LEVEL_NODE] = MPI_COMM_TYPE_SHARED,        [HCP_LEVEL_BOARD] = OMPI_COMM_TYPE_BOARD,
    [HCP_LEVEL_NUMA] = OMPI_COMM_TYPE_NUMA,         [HCP_LEVEL_SOCKET] = OMPI_COMM_TYPE_SOCKET,
    [HCP_LEVEL_L3] = OMPI_COMM_TYPE_L3CACHE,        [HCP_LEVEL_L2] = OMPI_COMM_TYPE_L2CACHE,
    [HCP_LEVEL_L1] = OMPI_COMM_TYPE_L1CACHE,        [HCP_LEVEL_CORE] = OMPI_COMM_TYPE_CORE,
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
        snprintf(buf, len, "%s",
                 HCP_CRIT_LIST == crit->kind    ? "list"
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
static int subcomm_key(ompi_communicator_t *comm, int level, int color, int key, const char *what,
                       ompi_communicator_t **out)
{
    opal_info_t info;
    OBJ_CONSTRUCT(&info, opal_info_t);
    if (0 == strcmp(what, "part") && mca_coll_hiercoll_params.shm_enable) {
        opal_info_set(&info, "hiercoll_decomp_criterion", "none");
    } else {
        opal_info_set(&info, "ompi_comm_coll_preference", "^hiercoll");
    }
    int rc = level >= 0 ? ompi_comm_split_type(comm, split_type[level], key, &info, out)
                        : ompi_comm_split_with_info(comm, color, key, &info, out, false);
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

/* The same, members in their rank order in comm. */
static int subcomm(ompi_communicator_t *comm, int level, int color, const char *what,
                   ompi_communicator_t **out)
{
    return subcomm_key(comm, level, color, ompi_comm_rank(comm), what, out);
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
        snprintf(leaders + strlen(leaders), sizeof(leaders) - strlen(leaders), "%s%d", p ? "," : "",
                 hcp_leader(&d->lay, p));
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

static void make_lanes(hc_decomp_t *d, ompi_communicator_t *comm);

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
            mca_coll_hiercoll_log(1,
                                  "%s: decomposition by %s: not decomposed: the layer below "
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
        || OMPI_SUCCESS
               != subcomm(comm, -1, 0 == d->lay.index[rank] ? 0 : MPI_UNDEFINED, "bridge",
                          &d->bridge)
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
    /* multi-leader forced: its lanes now, for the nonblocking and
     * persistent calls too (auto makes them at the first blocking call
     * that wants them) */
    if (HC_LEADERS_AUTO != mca_coll_hiercoll_params.decomp_leaders
        && mca_coll_hiercoll_params.decomp_leaders > 1 && d->lay.max_size > 1) {
        make_lanes(d, comm);
    }
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
        char ml[1024] = "";
        for (int k = 0; k < HC_NCOLL && strlen(ml) < sizeof(ml) - 64; ++k) {
            if (d->ml.calls[k] > 0) {
                snprintf(ml + strlen(ml), sizeof(ml) - strlen(ml), " %s:%llu",
                         mca_coll_hiercoll_coll_names[k], (unsigned long long) d->ml.calls[k]);
            }
        }
        opal_output(0,
                    "hiercoll: decomp comm %s rank %d/%d: part %d of %d (size %d%s); "
                    "decomposed:%s%s%s",
                    m->comm->c_name, ompi_comm_rank(m->comm), ompi_comm_size(m->comm), d->p,
                    d->lay.nparts, d->np, NULL != d->bridge ? ", leader" : "", per,
                    '\0' != ml[0] ? "; multi-leader:" : "", ml);
    }
    hc_dx_ml_free(d);
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

/* Would a count the pieces pass on overflow an int?  (Only what every
 * rank knows can be asked: the answer must be the same everywhere.) */
static bool fits_int(const hc_call_t *c, const hc_decomp_t *d)
{
    switch (c->coll) {
    case HC_REDUCE_SCATTER:
    case HC_REDUCE_SCATTER_BLOCK:
        return hc_dx_sum_counts(c) <= INT_MAX;
    case HC_SCAN:
    case HC_EXSCAN:
        return (int64_t) c->size * c->rcount <= INT_MAX;
    case HC_ALLGATHER:
    case HC_ALLGATHERV: {
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
    /* a datatype whose true lower bound is not 0, reduced by a commutative
     * op: the pieces (reduces, the bridge's allreduce) go to the components
     * below hiercoll, whose ring allreduce and ireduce write outside their
     * scratch for it (coll_hiercoll_below.c); the call stays whole, where
     * hiercoll's selection keeps it from them */
    if ((HC_ALLREDUCE == c->coll || HC_REDUCE == c->coll || HC_REDUCE_SCATTER == c->coll
         || HC_REDUCE_SCATTER_BLOCK == c->coll)
        && ompi_op_is_commute(c->op)) {
        ptrdiff_t tlb = 0, text = 0;
        ompi_datatype_get_true_extent(c->rtype, &tlb, &text);
        if (0 != tlb) {
            return false;
        }
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
/* Multi-leader: the lanes, which program a call runs                   */
/* ------------------------------------------------------------------ */

/* Carriers a part at most: the parameter's number, or every process
 * (auto, all). */
static int family_k(const hc_decomp_t *d)
{
    int l = mca_coll_hiercoll_params.decomp_leaders;
    return HC_LEADERS_AUTO == l || l > d->lay.max_size ? d->lay.max_size : l;
}

/* The smallest vector from which the model picks more than one carrier,
 * for the verbose line (0: never, up to 1 GiB). */
static long long crossover(const hc_decomp_t *d, hcp_ml_coll_t mc)
{
    hcp_ml_model_t m = hcp_ml_model_default;
    m.proc_bw = (double) mca_coll_hiercoll_params.decomp_proc_bw;
    m.nic_bw = (double) mca_coll_hiercoll_params.decomp_nic_bw;
    for (long long b = 64; b <= (1LL << 30); b *= 2) {
        if (hcp_ml_pick(&m, mc, d->lay.nparts, d->lay.max_size, d->lay.max_size, true, b) > 1) {
            return b;
        }
    }
    return 0;
}

/* One line (verbose 1, rank 0) on the lanes made. */
static void describe_lanes(const hc_decomp_t *d, ompi_communicator_t *comm)
{
    if (mca_coll_hiercoll_params.verbose < 1 || 0 != ompi_comm_rank(comm)) {
        return;
    }
    const hcp_ml_t *f = &d->ml.fam;
    char carriers[128] = "", from[256] = "";
    for (int q = 0; q < f->nparts && strlen(carriers) < sizeof(carriers) - 16; ++q) {
        snprintf(carriers + strlen(carriers), sizeof(carriers) - strlen(carriers), "%s%d",
                 q ? "," : "", f->carriers[q]);
    }
    if (HC_LEADERS_AUTO == mca_coll_hiercoll_params.decomp_leaders) {
        snprintf(from, sizeof(from), "auto (the model), from:");
        for (int c = 0; c < HCP_ML_NCOLL; ++c) {
            long long b = crossover(d, (hcp_ml_coll_t) c);
            snprintf(from + strlen(from), sizeof(from) - strlen(from), " %s %lld%s",
                     hcp_ml_coll_names[c], b >= 1024 ? b / 1024 : b,
                     0 == b      ? " (never)"
                     : b >= 1024 ? "K"
                                 : "B");
        }
    } else {
        snprintf(from, sizeof(from), "forced (coll_hiercoll_decomp_leaders)");
    }
    mca_coll_hiercoll_log(1,
                          "%s: multi-leader: %d lanes, carriers a part %s (a carrier in at most "
                          "%d lanes); %s; non-commutative ops: the lanes' pieces by the components "
                          "below, in rank order; reduce_scatter on interleaved parts: one leader",
                          comm->c_name, f->nlanes, carriers, f->max_lanes, from);
}

/* Make the lanes (collective over comm: the first blocking call that
 * wants them, alike on every rank).  The collectives on comm that this
 * needs see no decomposition.  Members of a lane in part order. */
static void make_lanes(hc_decomp_t *d, ompi_communicator_t *comm)
{
    hcp_ml_t *f = &d->ml.fam;
    const int rank = ompi_comm_rank(comm);
    d->ml.tried = true;
    if (0 != hcp_ml_build(f, &d->lay, family_k(d), DX_NSUB)
        || NULL == (d->ml.lane = calloc((size_t) f->nlanes, sizeof(*d->ml.lane)))) {
        hcp_ml_fini(f);
        return;
    }
    int first, nl = hcp_ml_lanes_of(f, d->p, hcp_ml_carrier(f, &d->lay, rank), &first);
    bool ok = true;
    d->ready = false;
    /* lane j in split t = j mod max_lanes, with all its members (a
     * carrier's lanes are consecutive: at most one of them a split) */
    for (int t = 0; t < f->max_lanes; ++t) {
        int j = -1;
        for (int i = first; i < first + nl; ++i) {
            j = i % f->max_lanes == t ? i : j;
        }
        j = 0 == j ? -1 : j; /* lane 0 joins the leaders: the bridge */
        ompi_communicator_t *lane = NULL;
        ok = OMPI_SUCCESS == subcomm_key(comm, -1, j > 0 ? j : MPI_UNDEFINED, d->p, "lane", &lane)
             && ok;
        if (j > 0) {
            d->ml.lane[j] = lane;
            ok = ok && NULL != lane && ompi_comm_rank(lane) == d->p;
        }
    }
    d->ml.lane[0] = d->bridge;
    d->ready = true;
    d->ml.made = ok;
    if (ok) {
        describe_lanes(d, comm);
    }
}

/* The carriers of this call, the lanes made where it wants them (a
 * blocking call), the choice said at verbose 2. */
static void ml_prepare(hc_dx_t *x)
{
    hc_decomp_t *d = x->d;
    const hc_call_t *c = &x->c;
    const char *why = NULL;
    int k = hc_dx_ml_want(x, &why);
    if (k > 1 && !d->ml.tried && HC_BLOCKING == c->mode) {
        make_lanes(d, c->comm);
    }
    if (k > 1 && !d->ml.made) {
        why =
            d->ml.tried ? "its lanes could not be made" : "no blocking call has made its lanes yet";
    }
    hc_dx_ml_set(x, k);
    if (mca_coll_hiercoll_params.verbose >= 2 && 0 == c->rank && (k > 1 || NULL != why)) {
        if (NULL != x->ml) {
            mca_coll_hiercoll_log(2,
                                  "%s: decomposed %s of %d: multi-leader, %d carriers a part "
                                  "at most, %d lanes, their pieces %s",
                                  c->comm->c_name, mca_coll_hiercoll_coll_names[c->coll], c->rcount,
                                  k, x->ml->nlanes, hcp_lane_names[x->lane]);
        } else {
            mca_coll_hiercoll_log(2, "%s: decomposed %s of %d: one leader a part (%s)",
                                  c->comm->c_name, mca_coll_hiercoll_coll_names[c->coll], c->rcount,
                                  why);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Entry: blocking calls, requests, progress                            */
/* ------------------------------------------------------------------ */

/* The program of every collective (v forms and their regular twins share). */
static bool (*const programs[HC_NCOLL])(hc_dx_t *x) = {
    [HC_BCAST] = hc_dx_run_bcast,
    [HC_SCATTER] = hc_dx_run_scatter,
    [HC_SCATTERV] = hc_dx_run_scatter,
    [HC_REDUCE] = hc_dx_run_reduce,
    [HC_GATHER] = hc_dx_run_gather,
    [HC_GATHERV] = hc_dx_run_gather,
    [HC_ALLREDUCE] = hc_dx_run_allreduce,
    [HC_REDUCE_SCATTER] = hc_dx_run_reduce_scatter,
    [HC_REDUCE_SCATTER_BLOCK] = hc_dx_run_reduce_scatter,
    [HC_ALLGATHER] = hc_dx_run_allgather,
    [HC_ALLGATHERV] = hc_dx_run_allgather,
    [HC_ALLTOALL] = hc_dx_run_alltoall,
    [HC_ALLTOALLV] = hc_dx_run_alltoall,
    [HC_ALLTOALLW] = hc_dx_run_alltoall,
    [HC_BARRIER] = hc_dx_run_barrier,
    [HC_SCAN] = hc_dx_run_scan,
    [HC_EXSCAN] = hc_dx_run_scan,
};

/* The multi-leader programs (a call with its lanes: x->ml). */
static bool (*const ml_programs[HC_NCOLL])(hc_dx_t *x) = {
    [HC_BCAST] = hc_dx_run_ml_bcast,
    [HC_REDUCE] = hc_dx_run_ml_reduction,
    [HC_ALLREDUCE] = hc_dx_run_ml_reduction,
    [HC_REDUCE_SCATTER] = hc_dx_run_ml_reduce_scatter,
    [HC_REDUCE_SCATTER_BLOCK] = hc_dx_run_ml_reduce_scatter,
    [HC_ALLGATHER] = hc_dx_run_ml_allgather,
    [HC_ALLGATHERV] = hc_dx_run_ml_allgather,
};

static bool run_program(hc_dx_t *x)
{
    return (NULL != x->ml ? ml_programs : programs)[x->c.coll](x);
}

/* Run the call's program as far as it goes (a nonblocking call not at
 * the head of its issue queue waits for its turn); true when finished. */
static bool dx_advance(hc_dx_t *x)
{
    if (x->queued && x->d->qhead != x) {
        return false;
    }
    return run_program(x);
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
    hc_dx_drain(d);
    ml_prepare(&x);
    d->ml.calls[c->coll] += NULL != x.ml;
    run_program(&x);
    hc_dx_free_mem(&x);
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
            hc_dx_free_mem(&r->x); /* a persistent call keeps its scratch */
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
    d->ml.calls[x->c.coll] += NULL != x->ml;
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
    hc_dx_free_mem(&r->x);
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
    ml_prepare(&r->x);
    *request = &r->super.super;
    if (!persistent) {
        r->x.kind = DX_NB;
        dx_begin(r);
        return OMPI_SUCCESS;
    }
    /* create the pieces now, in the parent's init order: after the
     * nonblocking calls started earlier have created theirs */
    hc_dx_drain(d);
    r->x.kind = DX_INIT;
    r->x.ptag = ompi_coll_base_nbc_reserve_tags(d->part, 1);
    run_program(&r->x);
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
