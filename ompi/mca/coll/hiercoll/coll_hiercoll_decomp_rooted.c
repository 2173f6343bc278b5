/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition's programs of the rooted collectives: one to all (bcast,
 * scatter(v)) and all to one (reduce, gather(v)).
 */
#include "coll_hiercoll_decomp_internal.h"

/* ------------------------------------------------------------------ */
/* One to all                                                           */
/* ------------------------------------------------------------------ */

bool hc_dx_run_bcast(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), tag = MCA_COLL_BASE_TAG_BCAST;
    DX_BEGIN(x);
    /* a root that does not lead its part hands the data to its leader */
    if (d->p == rp && 0 != rk && c->rank == c->root) {
        hc_dx_p2p(x, true, 0, c->rbuf, c->rcount, c->rtype, tag);
    } else if (d->p == rp && 0 != rk && leads(d)) {
        hc_dx_p2p(x, false, rk, c->rbuf, c->rcount, c->rtype, tag);
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
bool hc_dx_run_scatter(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_SCATTERV == c->coll, root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    const int tag = MCA_COLL_BASE_TAG_GATHERV;
    const blocks_t sblocks = {
        (char *) c->sbuf, v ? c->scounts : NULL, v ? c->sdispls : NULL, c->scount, c->stype, NULL};
    void *mine = c->in_place ? MPI_IN_PLACE : c->rbuf;
    int *pc = x->iv[0], *mc = x->iv[1];
    DX_BEGIN(x);
    /* a leading root scatters over the bridge straight from its buffer */
    x->direct = root && 0 == rk && hc_dx_packed_view(d, &sblocks);
    x->x = x->direct ? (char *) c->sbuf : NULL;
    pc = hc_dx_ints(x, 0, 2 * nq);
    mc = hc_dx_ints(x, 1, 2 * d->np);
    hc_dx_bridge_shares(x, &sblocks, c->ssize, v, (int64_t) c->rcount * c->rsize, pc);
    DX_WAIT(x);
    hc_dx_bridge_total(x, pc);
    if (d->p != rp) {
        hc_dx_member_shares(x, v, (int64_t) c->rcount * c->rsize, mc);
    }
    DX_WAIT(x);
    if (d->p != rp) {
        hc_dx_member_total(x, mc);
    }
    /* the root packs the other parts' blocks, for its leader when it does
     * not lead */
    if (!x->direct && (root || (d->p == rp && leads(d)))) {
        x->x = hc_dx_scratch(x, 0, PACKED, x->xbytes);
    }
    if (DX_DATA(x) && root && !x->direct) {
        x->rc = hc_dx_pack_blocks(d, &sblocks, rp, -1, x->x, false);
    }
    if (0 != rk && root) {
        hc_dx_p2p(x, true, 0, x->x, x->xbytes, PACKED, tag);
    } else if (0 != rk && d->p == rp && leads(d)) {
        hc_dx_p2p(x, false, rk, x->x, x->xbytes, PACKED, tag);
    }
    DX_WAIT(x);
    if (leads(d)) {
        x->y = hc_dx_scratch(x, 1, PACKED, x->ybytes);
        DX_SUB(x, d->bridge, scatterv, x->x, HC_COUNTS(pc), HC_DISPS(pc + nq), PACKED, x->y,
               (int) x->ybytes, PACKED, rp);
    }
    DX_WAIT(x);
    if (d->p != rp) {
        DX_SUB(x, d->part, scatterv, x->y, HC_COUNTS(mc), HC_DISPS(mc + d->np), PACKED, mine,
               c->rcount, c->rtype, 0);
    } else {
        if (root) {
            hc_dx_member_blocks(d, &sblocks, mc, mc + d->np);
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

bool hc_dx_run_reduce(hc_dx_t *x)
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
            hc_dx_p2p(x, false, 0, c->rbuf, c->rcount, c->rtype, tag);
        }
    } else {
        /* the part's result: at the root when it leads, else in scratch */
        x->acc = root ? c->rbuf : hc_dx_scratch(x, 0, c->rtype, c->rcount);
        DX_SUB(x, d->part, reduce, c->in_place ? MPI_IN_PLACE : c->sbuf, x->acc, c->rcount,
               c->rtype, c->op, 0);
        DX_WAIT(x);
        DX_SUB(x, d->bridge, reduce, d->p == rp ? MPI_IN_PLACE : x->acc, d->p == rp ? x->acc : NULL,
               c->rcount, c->rtype, c->op, rp);
        DX_WAIT(x);
        if (d->p == rp && !root) {
            hc_dx_p2p(x, true, rk, x->acc, c->rcount, c->rtype, tag);
        }
    }
    DX_LAST(x);
    DX_END(x);
}

/* gather, gatherv: the root's part gathers straight into the root's
 * buffer; the others pack at their leaders, whose bridge gatherv brings
 * everything to the root's leader, which hands it to the root. */
bool hc_dx_run_gather(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_GATHERV == c->coll, root = c->rank == c->root;
    const int rp = d->lay.part[c->root], rk = local(d, c->root), nq = d->lay.nparts;
    const int tag = MCA_COLL_BASE_TAG_GATHERV;
    const blocks_t rblocks = {
        c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount, c->rtype, NULL};
    const void *mine = c->in_place ? MPI_IN_PLACE : c->sbuf;
    const int64_t my_bytes = (int64_t) c->scount * (int64_t) c->ssize;
    int *pc = x->iv[0], *mc = x->iv[1];
    DX_BEGIN(x);
    /* a leading root takes the bridge's blocks straight into its buffer */
    x->direct = root && 0 == rk && hc_dx_packed_view(d, &rblocks);
    x->x = x->direct ? c->rbuf : NULL;
    pc = hc_dx_ints(x, 0, 2 * nq);
    mc = hc_dx_ints(x, 1, 2 * d->np);
    hc_dx_bridge_shares(x, &rblocks, c->rsize, v, my_bytes, pc);
    DX_WAIT(x);
    hc_dx_bridge_total(x, pc);
    if (d->p == rp) {
        if (root) {
            hc_dx_member_blocks(d, &rblocks, mc, mc + d->np);
        }
        DX_SUB(x, d->part, gatherv, mine, c->scount, c->stype, c->rbuf, HC_COUNTS(mc),
               HC_DISPS(mc + d->np), c->rtype, rk);
    } else {
        hc_dx_member_shares(x, v, my_bytes, mc);
        DX_WAIT(x);
        hc_dx_member_total(x, mc);
        x->y = hc_dx_scratch(x, 1, PACKED, x->ybytes);
        DX_SUB(x, d->part, gatherv, mine, c->scount, c->stype, x->y, HC_COUNTS(mc),
               HC_DISPS(mc + d->np), PACKED, 0);
    }
    DX_WAIT(x);
    if (NULL == x->x && (leads(d) || root)) {
        x->x = hc_dx_scratch(x, 0, PACKED, x->xbytes);
    }
    if (leads(d)) {
        DX_SUB(x, d->bridge, gatherv, d->p == rp ? x->x : x->y, d->p == rp ? 0 : (int) x->ybytes,
               PACKED, x->x, HC_COUNTS(pc), HC_DISPS(pc + nq), PACKED, rp);
    }
    DX_WAIT(x);
    /* the root's leader hands the other parts' blocks to the root */
    if (0 != rk && d->p == rp && leads(d)) {
        hc_dx_p2p(x, true, rk, x->x, x->xbytes, PACKED, tag);
    } else if (0 != rk && root) {
        hc_dx_p2p(x, false, 0, x->x, x->xbytes, PACKED, tag);
    }
    DX_LAST(x);
    if (DX_DATA(x) && root && !x->direct) {
        x->rc = hc_dx_pack_blocks(d, &rblocks, rp, -1, x->x, true);
    }
    DX_END(x);
}
