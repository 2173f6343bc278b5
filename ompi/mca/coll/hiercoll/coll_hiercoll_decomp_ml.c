/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition's multi-leader programs: every carrier of a part moves a
 * share across parts.  The plan is MPI-free (coll_hiercoll_plan_decomp.h,
 * "Multi-leader"): carrier i of a part of c carriers owns the slice
 * [i/c, (i+1)/c) of the vector, the LANES (sub-communicators of one
 * carrier per part, made by decomp.c) move the pieces between parts, all
 * at once:
 *
 *   allreduce       part reduce_scatter of the slices; each lane
 *                   allreduces its piece; part allgatherv
 *   reduce          part reduce_scatter; each lane reduces its piece to
 *                   the root's part; the root's part gathers the slices
 *   bcast           the root scatters the slices in its part; each lane
 *                   broadcasts its piece from the root's part; every
 *                   part allgathers the slices
 *   allgather(v)    part allgatherv of the members' blocks (packed);
 *                   each lane allgathers its fraction of every part's
 *                   packed blocks into the carriers' rows; part
 *                   allgatherv of the rows; each rank copies them into
 *                   place (and unpacks)
 *   reduce_scatter  (parts runs of ranks) part reduce_scatter of the
 *   (_block)        slices; each lane reduce-scatters its piece by
 *                   parts; the part's carriers hand each member its
 *                   block (alltoallv)
 *
 * A lane's piece is hiercoll's own plan (ring or RHRD allreduce, chain or
 * binomial bcast and reduce, ring allgatherv and reduce-scatter: as the
 * model picks, hcp_ml_lane_algo) run by the executor on the lane, in the
 * call's mode; a non-commutative op's piece is the lane's collective of
 * the components below, which keeps the rank order (the lanes join the
 * parts in part order, and the parts are runs of ranks then).
 */
#include "coll_hiercoll_decomp_internal.h"

static hcp_ml_model_t model_of(void)
{
    hcp_ml_model_t m = hcp_ml_model_default;
    m.proc_bw = (double) mca_coll_hiercoll_params.decomp_proc_bw;
    m.nic_bw = (double) mca_coll_hiercoll_params.decomp_nic_bw;
    return m;
}

static bool ml_coll(hc_coll_t coll, hcp_ml_coll_t *mc)
{
    switch (coll) {
    case HC_ALLREDUCE:
        *mc = HCP_ML_ALLREDUCE;
        return true;
    case HC_REDUCE:
        *mc = HCP_ML_REDUCE;
        return true;
    case HC_BCAST:
        *mc = HCP_ML_BCAST;
        return true;
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
        *mc = HCP_ML_ALLGATHER;
        return true;
    case HC_REDUCE_SCATTER:
    case HC_REDUCE_SCATTER_BLOCK:
        *mc = HCP_ML_REDUCE_SCATTER;
        return true;
    default:
        return false;
    }
}

/* The bytes the model weighs: the vector, allgather's whole result. */
static int64_t ml_bytes(const hc_call_t *c)
{
    int64_t total = 0;
    switch (c->coll) {
    case HC_ALLGATHER:
        return (int64_t) c->rcount * (int64_t) c->rsize * c->size;
    case HC_ALLGATHERV:
        for (int r = 0; r < c->size; ++r) {
            total += (int64_t) c->rcounts[r] * (int64_t) c->rsize;
        }
        return total;
    case HC_REDUCE_SCATTER:
    case HC_REDUCE_SCATTER_BLOCK:
        return hc_dx_sum_counts(c) * (int64_t) c->rsize;
    default:
        return (int64_t) c->rcount * (int64_t) c->rsize;
    }
}

int hc_dx_ml_want(const hc_dx_t *x, const char **why)
{
    const hc_call_t *c = &x->c;
    const hc_decomp_t *d = x->d;
    const int leaders = mca_coll_hiercoll_params.decomp_leaders;
    hcp_ml_coll_t mc;
    *why = NULL;
    if (!ml_coll(c->coll, &mc)) {
        return 1;
    }
    if (1 == leaders) {
        *why = "coll_hiercoll_decomp_leaders 1";
        return 1;
    }
    if (d->lay.max_size < 2) {
        *why = "parts of one process";
        return 1;
    }
    if (HCP_ML_REDUCE_SCATTER == mc && !d->lay.contiguous) {
        /* a part's blocks are not one run of the vector */
        *why = "parts interleave ranks";
        return 1;
    }
    if (HC_LEADERS_AUTO != leaders) {
        return leaders < d->lay.max_size ? leaders : d->lay.max_size;
    }
    /* auto: the model, over the lanes made (or that would be: every
     * carrier of every part); with parts of one size any k of 2, 4, ... */
    int least = d->lay.n, most = d->lay.max_size;
    for (int q = 0; q < d->lay.nparts; ++q) {
        least = hcp_part_size(&d->lay, q) < least ? hcp_part_size(&d->lay, q) : least;
    }
    int kmax = most;
    bool any = least == most;
    if (d->ml.made && d->ml.fam.uniform) { /* (equal parts, or too many lanes: evened) */
        kmax = d->ml.fam.carriers[0];
        any = true;
    }
    const hcp_ml_model_t m = model_of();
    int k = hcp_ml_pick(&m, mc, d->lay.nparts, most, kmax, any, ml_bytes(c));
    if (1 == k) {
        *why = "below the model's crossover";
    }
    return k;
}

/* The lanes of k carriers a part: all of them, or (parts of one size)
 * the first k, cached. */
static const hcp_ml_t *layout(hc_decomp_t *d, int k)
{
    hcp_ml_t *fam = &d->ml.fam;
    if (!fam->uniform || k >= fam->carriers[0]) {
        return fam;
    }
    int at = 0;
    while ((2 << at) < k && at < HC_DX_ML_SUBS - 1) {
        ++at;
    }
    hcp_ml_t *sub = &d->ml.sub[at];
    if (NULL == sub->carriers && 0 != hcp_ml_build(sub, &d->lay, 2 << at, DX_NSUB)) {
        hcp_ml_fini(sub);
        return NULL;
    }
    return sub;
}

void hc_dx_ml_set(hc_dx_t *x, int k)
{
    hc_decomp_t *d = x->d;
    const hc_call_t *c = &x->c;
    hcp_ml_coll_t mc;
    x->ml = NULL;
    if (k <= 1 || !d->ml.made || !ml_coll(c->coll, &mc) || NULL == (x->ml = layout(d, k))) {
        return;
    }
    x->me = hcp_ml_carrier(x->ml, &d->lay, c->rank);
    x->nl = hcp_ml_lanes_of(x->ml, d->p, x->me, &x->first);
    /* (alike on every rank: the most carriers of a part, not mine) */
    int carriers = 1;
    for (int q = 0; q < d->lay.nparts; ++q) {
        carriers = x->ml->carriers[q] > carriers ? x->ml->carriers[q] : carriers;
    }
    int64_t lane = (ml_bytes(c) + carriers - 1) / carriers;
    const hcp_ml_model_t m = model_of();
    x->lane = hcp_ml_lane_algo(&m, mc, d->lay.nparts, carriers, lane, &x->segs);
    if (NULL != c->op && !ompi_op_is_commute(c->op)) {
        x->lane = HCP_LANE_ORDERED;
    }
}

void hc_dx_ml_free(hc_decomp_t *d)
{
    for (int j = 1; NULL != d->ml.lane && j < d->ml.fam.nlanes; ++j) {
        if (NULL != d->ml.lane[j]) {
            hc_subcomm_free(&d->ml.lane[j]);
        }
    }
    free(d->ml.lane);
    d->ml.lane = NULL;
    hcp_ml_fini(&d->ml.fam);
    for (int i = 0; i < HC_DX_ML_SUBS; ++i) {
        hcp_ml_fini(&d->ml.sub[i]);
    }
}

/* ------------------------------------------------------------------ */
/* A lane's piece                                                       */
/* ------------------------------------------------------------------ */

/* Run x->lp (built unless the call only starts what its init made) on
 * the lane, in the call's kind: a piece like DX_SUB's. */
static void dx_plan(hc_dx_t *x, ompi_communicator_t *comm, hc_bind_t *b, int built)
{
    mca_coll_hiercoll_module_t *m = x->c.module;
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    if (0 != built) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        return;
    }
    switch (x->kind) {
    case DX_BLOCK:
        x->rc = mca_coll_hiercoll_exec_blocking(m, comm, &x->lp, b,
                                                mca_coll_hiercoll_blocking_tag(x->c.coll));
        break;
    case DX_NB:
        x->rc = mca_coll_hiercoll_exec_request(m, comm, &x->lp, b, false, &x->sub[x->nsub]);
        x->nsub += OMPI_SUCCESS == x->rc;
        break;
    case DX_INIT:
        if (hc_dx_room(x)) {
            x->rc = mca_coll_hiercoll_exec_request(m, comm, &x->lp, b, true, &x->ps[x->nps]);
            x->nps += OMPI_SUCCESS == x->rc;
        }
        break;
    default:
        hc_dx_start(x);
    }
}

/* Does this run build plans?  (A persistent call's starts only start.) */
static bool builds(const hc_dx_t *x)
{
    return OMPI_SUCCESS == x->rc && DX_START != x->kind;
}

static void bind_at(hc_bind_t *b, char *at, ompi_datatype_t *type, ompi_op_t *op)
{
    memset(b, 0, sizeof(*b));
    mca_coll_hiercoll_bind_buffer(b, HCP_SBUF, at, type);
    mca_coll_hiercoll_bind_buffer(b, HCP_RBUF, at, type);
    b->op = op;
}

/* Lane j's piece of a reduction or bcast, in place at `at` (len units of
 * the call's type); rp: the root's part, the root of the lane. */
static void lane_piece(hc_dx_t *x, int j, char *at, int64_t len, int rp)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    ompi_communicator_t *lane = d->ml.lane[j];
    const int n = d->lay.nparts, me = d->p;
    const size_t es = HC_BCAST == c->coll ? 1 : c->rsize; /* (bcast: bytes) */
    int built = 0;
    hc_bind_t b;
    if (0 == len) { /* (the same on the whole lane: nothing to move) */
        return;
    }
    if (HCP_LANE_ORDERED == x->lane) { /* the components below: rank order */
        if (HC_ALLREDUCE == c->coll) {
            DX_SUB(x, lane, allreduce, MPI_IN_PLACE, at, (int) len, c->rtype, c->op);
        } else {
            DX_SUB(x, lane, reduce, me == rp ? MPI_IN_PLACE : at, me == rp ? at : NULL, (int) len,
                   c->rtype, c->op, rp);
        }
        return;
    }
    if (builds(x)) {
        switch (c->coll) {
        case HC_ALLREDUCE:
            built = HCP_LANE_RING == x->lane ? hcp_allreduce_ring(&x->lp, n, me, len, es, true)
                                             : hcp_allreduce_rhrd(&x->lp, n, me, len, es, true);
            break;
        case HC_REDUCE:
            built = HCP_LANE_CHAIN == x->lane
                        ? hcp_reduce_chain(&x->lp, n, me, rp, len, es, x->segs, true)
                        : hcp_reduce_binomial(&x->lp, n, me, rp, len, es, true, true);
            break;
        default:
            built = HCP_LANE_CHAIN == x->lane ? hcp_bcast_chain(&x->lp, n, me, rp, len, es, x->segs)
                                              : hcp_bcast_binomial(&x->lp, n, me, rp, len, es);
            break;
        }
    }
    bind_at(&b, at, HC_BCAST == c->coll ? PACKED : c->rtype, c->op);
    dx_plan(x, lane, &b, built);
}

/* Every lane of mine, started at once (no wait between them: a carrier
 * in several lanes goes through them in lane order, blocking; every
 * carrier alike, so none waits on another in a circle). */
static void lanes(hc_dx_t *x, char *slice, ptrdiff_t ext, int64_t count, int rp)
{
    for (int j = x->first; j < x->first + x->nl && OMPI_SUCCESS == x->rc; ++j) {
        int64_t lo, len = hcp_ml_lane(x->ml, j, count, &lo);
        lane_piece(x, j, slice + (lo - x->slo) * ext, len, rp);
    }
}

/* The slices of my part's carriers (counts, then displacements, in
 * units; 0 for the others) and mine. */
static int *slices(hc_dx_t *x, int64_t count)
{
    hc_decomp_t *d = x->d;
    int *sc = hc_dx_ints(x, 0, 2 * d->np);
    for (int k = 0; OMPI_SUCCESS == x->rc && k < d->np; ++k) {
        int64_t lo, len = hcp_ml_slice(x->ml, d->p, k, count, &lo);
        sc[k] = (int) len;
        sc[d->np + k] = (int) lo;
    }
    x->slen = hcp_ml_slice(x->ml, d->p, x->me, count, &x->slo);
    return sc;
}

static ptrdiff_t extent(ompi_datatype_t *type)
{
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(type, &lb, &ext);
    return ext;
}

/* ------------------------------------------------------------------ */
/* allreduce, reduce                                                    */
/* ------------------------------------------------------------------ */

bool hc_dx_run_ml_reduction(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool all = HC_ALLREDUCE == c->coll, root = c->rank == c->root;
    const int rp = all ? 0 : d->lay.part[c->root], rk = all ? 0 : local(d, c->root), np = d->np;
    const ptrdiff_t ext = extent(c->rtype);
    int *sc = x->iv[0];
    DX_BEGIN(x);
    sc = slices(x, c->rcount);
    /* my slice: an allreduce's in the result at its place (in place: in
     * scratch, the input is there), a reduce's in scratch */
    x->acc = all && !c->in_place ? (char *) c->rbuf + x->slo * ext
                                 : hc_dx_scratch(x, 0, c->rtype, x->slen);
    DX_SUB(x, d->part, reduce_scatter, c->in_place && (all || root) ? c->rbuf : c->sbuf, x->acc,
           HC_COUNTS(sc), c->rtype, c->op);
    DX_WAIT(x);
    lanes(x, x->acc, ext, c->rcount, rp);
    DX_WAIT(x);
    if (all) {
        DX_SUB(x, d->part, allgatherv, c->in_place ? x->acc : MPI_IN_PLACE, (int) x->slen, c->rtype,
               c->rbuf, HC_COUNTS(sc), HC_DISPS(sc + np), c->rtype);
    } else if (d->p == rp) {
        DX_SUB(x, d->part, gatherv, x->acc, (int) x->slen, c->rtype, root ? c->rbuf : NULL,
               HC_COUNTS(sc), HC_DISPS(sc + np), c->rtype, rk);
    }
    DX_LAST(x);
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* bcast                                                                */
/* ------------------------------------------------------------------ */

/* The ranks may pass different datatypes of one signature: the slices
 * are bytes of it, in the receive buffer where its type lays them out as
 * packed (else packed into scratch at the root, unpacked elsewhere). */
bool hc_dx_run_ml_bcast(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), np = d->np;
    const bool root = c->rank == c->root;
    int *sc = x->iv[0];
    DX_BEGIN(x);
    x->total = (int64_t) c->rcount * (int64_t) c->rsize;
    sc = slices(x, x->total);
    {
        ptrdiff_t tlb, text;
        ompi_datatype_get_true_extent(c->rtype, &tlb, &text);
        x->direct = 0 == tlb && ompi_datatype_is_contiguous_memory_layout(c->rtype, c->rcount);
    }
    x->all = x->direct ? c->rbuf : hc_dx_scratch(x, 0, PACKED, x->total);
    if (DX_DATA(x) && root && !x->direct) {
        x->rc =
            ompi_datatype_sndrcv(c->rbuf, c->rcount, c->rtype, x->all, (int32_t) x->total, PACKED);
    }
    if (d->p == rp) { /* (the root's own slice stays where it is) */
        DX_SUB(x, d->part, scatterv, x->all, HC_COUNTS(sc), HC_DISPS(sc + np), PACKED,
               root ? MPI_IN_PLACE : x->all + x->slo, (int) x->slen, PACKED, rk);
    }
    DX_WAIT(x);
    lanes(x, x->all + x->slo, 1, x->total, rp);
    DX_WAIT(x);
    DX_SUB(x, d->part, allgatherv, MPI_IN_PLACE, 0, PACKED, x->all, HC_COUNTS(sc),
           HC_DISPS(sc + np), PACKED);
    DX_LAST(x);
    if (DX_DATA(x) && !root && !x->direct) {
        x->rc =
            ompi_datatype_sndrcv(x->all, (int32_t) x->total, PACKED, c->rbuf, c->rcount, c->rtype);
    }
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* allgather(v)                                                         */
/* ------------------------------------------------------------------ */

/* Carrier k's row: for every part q its fraction [k/cp, (k+1)/cp) of
 * q's packed blocks (pc[q] bytes), q after q.  Returns the row's bytes;
 * at[q] (when not NULL): where q's piece starts in it. */
static int64_t row_of(const hc_dx_t *x, const int *pc, int k, int64_t *at)
{
    const int nq = x->d->lay.nparts, cp = x->ml->carriers[x->d->p];
    int64_t len = 0;
    for (int q = 0; k < cp && q < nq; ++q) {
        if (NULL != at) {
            at[q] = len;
        }
        len += hcp_ml_at(pc[q], k + 1, cp) - hcp_ml_at(pc[q], k, cp);
    }
    return len;
}

/* Lane j's allgather into my row: every part's piece of fraction j. */
static void lane_allgather(hc_dx_t *x, int j, const int *pc)
{
    hc_decomp_t *d = x->d;
    const int nq = d->lay.nparts, cp = x->ml->carriers[d->p], me = x->me;
    const int *rows = x->iv[2];
    char *row = x->y + rows[d->np + me];
    int built = 0;
    hc_bind_t b;
    int64_t *cnt = malloc(sizeof(int64_t) * 3 * (size_t) nq);
    if (NULL == cnt) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        return;
    }
    int64_t *dsp = cnt + nq, *at = cnt + 2 * nq, sum = 0;
    row_of(x, pc, me, at);
    for (int q = 0; q < nq; ++q) {
        int64_t f0 = hcp_ml_at(pc[q], x->ml->num[j], x->ml->den[j]);
        cnt[q] = hcp_ml_at(pc[q], x->ml->num[j + 1], x->ml->den[j + 1]) - f0;
        dsp[q] = at[q] + f0 - hcp_ml_at(pc[q], me, cp);
        if (q == d->p && DX_DATA(x) && cnt[q] > 0) { /* my part's piece, into place */
            memcpy(row + dsp[q], x->all + pc[nq + q] + f0, (size_t) cnt[q]);
        }
        sum += cnt[q];
    }
    if (0 == sum) { /* (the same on the whole lane) */
        free(cnt);
        return;
    }
    if (builds(x)) {
        built = hcp_allgatherv_ring(&x->lp, nq, d->p, cnt, dsp, 1);
    }
    free(cnt);
    bind_at(&b, row, PACKED, NULL);
    dx_plan(x, d->ml.lane[j], &b, built);
}

bool hc_dx_run_ml_allgather(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_ALLGATHERV == c->coll;
    const int nq = d->lay.nparts, np = d->np;
    const blocks_t rblocks = {
        c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount, c->rtype, NULL};
    int *pc = x->iv[0], *mc = x->iv[1], *rows = x->iv[2];
    int64_t *off = x->off;
    DX_BEGIN(x);
    pc = hc_dx_ints(x, 0, 2 * nq);
    mc = hc_dx_ints(x, 1, 2 * np);
    rows = hc_dx_ints(x, 2, 2 * np);
    off = hc_dx_offsets(x, c->size);
    hc_dx_packed_result(x, &rblocks, off, pc);
    if (OMPI_SUCCESS == x->rc) {
        /* 1. the part's blocks to every member, packed (my block from my
         * receive buffer when in place; where a direct result holds it
         * already, it stays) */
        char *at = (char *) c->sbuf;
        int count = c->scount;
        ompi_datatype_t *type = c->stype;
        if (c->in_place && x->direct) {
            at = MPI_IN_PLACE;
        } else if (c->in_place) {
            hc_dx_block_of(&rblocks, c->rank, &at, &count, &type);
        }
        for (int k = 0; k < np; ++k) {
            mc[k] = (int) hc_dx_block_bytes(&rblocks, member(d, k));
            mc[np + k] = (int) (off[member(d, k)] - off[member(d, 0)]);
        }
        DX_SUB(x, d->part, allgatherv, at, count, type, x->all + pc[nq + d->p], HC_COUNTS(mc),
               HC_DISPS(mc + np), PACKED);
    }
    DX_WAIT(x);
    /* 2. each lane's fraction of every part into my row (the rows of my
     * part's carriers back to back) */
    x->ybytes = 0;
    for (int k = 0; OMPI_SUCCESS == x->rc && k < np; ++k) {
        rows[k] = (int) row_of(x, pc, k, NULL);
        rows[np + k] = (int) x->ybytes;
        x->ybytes += rows[k];
    }
    x->y = hc_dx_scratch(x, 1, PACKED, x->ybytes);
    for (int j = x->first; j < x->first + x->nl && OMPI_SUCCESS == x->rc; ++j) {
        lane_allgather(x, j, pc);
    }
    DX_WAIT(x);
    /* 3. the rows to every member */
    DX_SUB(x, d->part, allgatherv, MPI_IN_PLACE, 0, PACKED, x->y, HC_COUNTS(rows),
           HC_DISPS(rows + np), PACKED);
    DX_LAST(x);
    /* into place, then unpacked where the result is not the packed form */
    for (int k = 0; DX_DATA(x) && k < x->ml->carriers[d->p]; ++k) {
        const int cp = x->ml->carriers[d->p];
        int64_t in_row = 0;
        for (int q = 0; q < nq; ++q) {
            int64_t f0 = hcp_ml_at(pc[q], k, cp), len = hcp_ml_at(pc[q], k + 1, cp) - f0;
            if (q != d->p && len > 0) {
                memcpy(x->all + pc[nq + q] + f0, x->y + rows[np + k] + in_row, (size_t) len);
            }
            in_row += len;
        }
    }
    if (DX_DATA(x) && !x->direct) {
        x->rc = hc_dx_pack_blocks(d, &rblocks, -1, c->in_place ? c->rank : -1, x->all, true);
    }
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* reduce_scatter(_block)                                               */
/* ------------------------------------------------------------------ */

/* Part q's blocks in the vector (parts are runs of ranks). */
static void part_range(const hc_dx_t *x, int q, int64_t total, int64_t *e0, int64_t *e1)
{
    const hcp_decomp_t *lay = &x->d->lay;
    *e0 = x->off[hcp_leader(lay, q)];
    *e1 = q + 1 < lay->nparts ? x->off[hcp_leader(lay, q + 1)] : total;
}

static int64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1, int64_t *at)
{
    *at = a0 > b0 ? a0 : b0;
    int64_t end = a1 < b1 ? a1 : b1;
    return end > *at ? end - *at : 0;
}

/* Lane j's reduce-scatter by parts of its piece of my slice; t: its
 * place among my lanes (counts kept for the components below). */
static void lane_reduce_scatter(hc_dx_t *x, int j, int t, int64_t total)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const int nq = d->lay.nparts;
    const ptrdiff_t ext = extent(c->rtype);
    int64_t lo, len = hcp_ml_lane(x->ml, j, total, &lo), at, mine = 0, e0, e1;
    int built = 0;
    hc_bind_t b;
    int *lc = x->iv[2] + t * nq;
    int64_t *cnt = malloc(sizeof(int64_t) * (size_t) nq);
    if (NULL == cnt) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        return;
    }
    for (int q = 0; q < nq; ++q) {
        part_range(x, q, total, &e0, &e1);
        cnt[q] = overlap(lo, lo + len, e0, e1, &at);
        lc[q] = (int) cnt[q];
        mine = q == d->p ? at : mine;
    }
    char *piece = x->acc + (lo - x->slo) * ext;
    if (0 == len) {                           /* (the same on the whole lane) */
    } else if (HCP_LANE_ORDERED == x->lane) { /* the components below: rank order */
        DX_SUB(x, d->ml.lane[j], reduce_scatter, piece, x->r + (mine - x->slo) * ext, HC_COUNTS(lc),
               c->rtype, c->op);
    } else {
        if (builds(x)) {
            built = HCP_LANE_CHAIN == x->lane
                        ? hcp_reduce_scatter_chains(&x->lp, nq, d->p, cnt, c->rsize, x->segs, true)
                        : hcp_reduce_scatter_ring(&x->lp, nq, d->p, cnt, c->rsize, true);
        }
        bind_at(&b, piece, c->rtype, c->op);
        dx_plan(x, d->ml.lane[j], &b, built);
    }
    free(cnt);
}

bool hc_dx_run_ml_reduce_scatter(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool block = HC_REDUCE_SCATTER_BLOCK == c->coll;
    const int np = d->np, nq = d->lay.nparts;
    const int64_t total = hc_dx_sum_counts(c);
    int *sc = x->iv[0], *aa = x->iv[1];
    DX_BEGIN(x);
    sc = slices(x, total);
    aa = hc_dx_ints(x, 1, 4 * np);
    hc_dx_ints(x, 2, DX_NSUB * nq);
    x->off = hc_dx_offsets(x, c->size);
    for (int r = 0, at = 0; OMPI_SUCCESS == x->rc && r < c->size; ++r) {
        x->off[r] = at;
        at += block ? c->rcount : c->rcounts[r];
    }
    x->acc = hc_dx_scratch(x, 0, c->rtype, x->slen);
    x->r = HCP_LANE_ORDERED == x->lane ? hc_dx_scratch(x, 1, c->rtype, x->slen) : x->acc;
    DX_SUB(x, d->part, reduce_scatter, c->in_place ? c->rbuf : c->sbuf, x->acc, HC_COUNTS(sc),
           c->rtype, c->op);
    DX_WAIT(x);
    for (int t = 0; t < x->nl && OMPI_SUCCESS == x->rc; ++t) {
        lane_reduce_scatter(x, x->first + t, t, total);
    }
    DX_WAIT(x);
    /* each carrier hands each member of the part what it holds of its
     * block; each member takes its block from the carriers */
    if (OMPI_SUCCESS == x->rc) {
        int64_t e0, e1, at;
        part_range(x, d->p, total, &e0, &e1);
        for (int k = 0; k < np; ++k) {
            int r = member(d, k);
            int64_t b0 = x->off[r], b1 = b0 + (block ? c->rcount : c->rcounts[r]);
            aa[k] = (int) overlap(x->slo, x->slo + x->slen, b0, b1, &at);
            aa[np + k] = (int) (at - x->slo);
            int64_t klo, klen = hcp_ml_slice(x->ml, d->p, k, total, &klo);
            int64_t m0 = x->off[c->rank], m1 = m0 + (block ? c->rcount : c->rcounts[c->rank]);
            aa[2 * np + k] = (int) overlap(klo, klo + klen, m0, m1, &at);
            aa[3 * np + k] = (int) (at - m0);
        }
    }
    DX_SUB(x, d->part, alltoallv, x->r, HC_COUNTS(aa), HC_DISPS(aa + np), c->rtype, c->rbuf,
           HC_COUNTS(aa + 2 * np), HC_DISPS(aa + 3 * np), c->rtype);
    DX_LAST(x);
    DX_END(x);
}
