/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition's programs of the collectives without a root: the
 * compositions (allreduce, reduce_scatter(_block), allgather(v)), the
 * four-step all-to-all (alltoall(v,w)), barrier, and the partial
 * reductions (scan, exscan).
 */
#include "coll_hiercoll_decomp_internal.h"

/* ------------------------------------------------------------------ */
/* All to all: compositions                                             */
/* ------------------------------------------------------------------ */

bool hc_dx_run_allreduce(hc_dx_t *x)
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
bool hc_dx_run_reduce_scatter(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool block = HC_REDUCE_SCATTER_BLOCK == c->coll;
    const int nq = d->lay.nparts, mine = block ? c->rcount : c->rcounts[c->rank];
    const void *in = c->in_place ? c->rbuf : c->sbuf;
    const int64_t total = hc_dx_sum_counts(c);
    int *pc = x->iv[0], *mc = x->iv[1];
    int64_t *off = x->off;
    DX_BEGIN(x);
    if (!leads(d)) {
        DX_SUB(x, d->part, reduce, in, NULL, (int) total, c->rtype, c->op, 0);
        DX_WAIT(x);
        DX_SUB(x, d->part, scatterv, NULL, HC_COUNTS(NULL), HC_DISPS(NULL), c->rtype, c->rbuf, mine,
               c->rtype, 0);
    } else {
        pc = hc_dx_ints(x, 0, nq);
        mc = hc_dx_ints(x, 1, 2 * d->np);
        off = hc_dx_offsets(x, c->size);
        x->acc = hc_dx_scratch(x, 0, c->rtype, total);
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
bool hc_dx_run_allgather(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool v = HC_ALLGATHERV == c->coll;
    const int nq = d->lay.nparts;
    const blocks_t rblocks = {
        c->rbuf, v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount, c->rtype, NULL};
    int *pc = x->iv[0], *mc = x->iv[1];
    int64_t *off = x->off;
    DX_BEGIN(x);
    pc = hc_dx_ints(x, 0, 2 * nq);
    mc = hc_dx_ints(x, 1, 2 * d->np);
    off = hc_dx_offsets(x, c->size);
    hc_dx_packed_result(x, &rblocks, off, pc);
    if (OMPI_SUCCESS == x->rc) {
        /* my block: in my receive buffer when in place (where a leader's
         * already is in a direct result) */
        char *at = (char *) c->sbuf;
        int count = c->scount;
        ompi_datatype_t *type = c->stype;
        if (c->in_place && x->direct && leads(d)) {
            at = MPI_IN_PLACE;
        } else if (c->in_place) {
            hc_dx_block_of(&rblocks, c->rank, &at, &count, &type);
        }
        for (int k = 0; k < d->np; ++k) {
            mc[k] = (int) hc_dx_block_bytes(&rblocks, member(d, k));
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
        x->rc = hc_dx_pack_blocks(d, &rblocks, -1, c->in_place ? c->rank : -1, x->all, true);
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
            hc_dx_block_of(sb, c->rank, &from, &scount, &stype);
            hc_dx_block_of(rb, c->rank, &to, &rcount, &rtype);
            x->rc =
                mca_coll_hiercoll_dt_copy(from, (size_t) scount, stype, to, (size_t) rcount, rtype);
        }
        return;
    }
    int *sc = hc_dx_ints(x, 3, 4 * np);
    if (NULL != rb->types && NULL == x->types
        && NULL == (x->types = malloc(sizeof(*x->types) * 2 * (size_t) np))) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    int *sd = sc + np, *rcn = sc + 2 * np, *rd = sc + 3 * np;
    hc_dx_member_blocks(d, sb, sc, sd);
    hc_dx_member_blocks(d, rb, rcn, rd);
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
bool hc_dx_run_alltoall(hc_dx_t *x)
{
    hc_call_t *c = &x->c;
    hc_decomp_t *d = x->d;
    const bool w = HC_ALLTOALLW == c->coll, v = HC_ALLTOALLV == c->coll || w;
    const int n = c->size, np = d->np;
    const blocks_t rb = {c->rbuf,  v ? c->rcounts : NULL, v ? c->rdispls : NULL, c->rcount,
                         c->rtype, w ? c->rtypes : NULL};
    blocks_t sb = {(char *) c->sbuf, v ? c->scounts : NULL, v ? c->sdispls : NULL, c->scount,
                   c->stype,         w ? c->stypes : NULL};
    if (c->in_place) { /* the receive buffer holds what is sent */
        sb = rb;
    }
    hcp_a2a_t *a = &x->a;
    DX_BEGIN(x);
    x->ctx = (a2a_ctx_t){d, NULL, n, (int64_t) c->rcount * (int64_t) c->rsize};
    if (v) {
        int *mine = hc_dx_ints(x, 2, 2 * n);
        if (leads(d) && NULL == (x->counts = malloc(sizeof(int) * 2 * (size_t) n * (size_t) np))) {
            x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        }
        for (int r = 0; r < n && OMPI_SUCCESS == x->rc; ++r) {
            mine[r] = (int) hc_dx_block_bytes(&sb, r);
            mine[n + r] = (int) hc_dx_block_bytes(&rb, r);
        }
        DX_SUB(x, d->part, gather, mine, 2 * n, MPI_INT, x->counts, 2 * n, MPI_INT, 0);
        x->ctx.counts = x->counts;
    }
    DX_WAIT(x);
    /* 1. pack what leaves the part, before anything lands in place */
    x->obytes = x->ibytes = 0;
    for (int r = 0; r < n; ++r) {
        if (d->lay.part[r] != d->p) {
            x->obytes += hc_dx_block_bytes(&sb, r);
            x->ibytes += hc_dx_block_bytes(&rb, r);
        }
    }
    x->o = hc_dx_scratch(x, 0, PACKED, x->obytes);
    x->in = hc_dx_scratch(x, 1, PACKED, x->ibytes);
    if (DX_DATA(x)) {
        x->rc = hc_dx_pack_blocks(d, &sb, d->p, -1, x->o, false);
    }
    if (leads(d) && !x->laid && OMPI_SUCCESS == x->rc) {
        x->laid = true;
        if (0 != hcp_a2a_layout(a, &d->lay, d->p, pair_bytes, &x->ctx)) {
            x->rc = OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    if (leads(d) && OMPI_SUCCESS == x->rc) {
        x->g = hc_dx_scratch(x, 2, PACKED, a->gbytes);
        x->s = hc_dx_scratch(x, 3, PACKED, a->sbytes);
        x->r = hc_dx_scratch(x, 4, PACKED, a->rbytes);
        x->lo = hc_dx_scratch(x, 5, PACKED, a->obytes);
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
        x->rc = hc_dx_pack_blocks(d, &rb, d->p, -1, x->in, true);
    }
    DX_END(x);
}

/* ------------------------------------------------------------------ */
/* Barrier, partial reductions                                          */
/* ------------------------------------------------------------------ */

bool hc_dx_run_barrier(hc_dx_t *x)
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
bool hc_dx_run_scan(hc_dx_t *x)
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
        pc = hc_dx_ints(x, 0, 2 * nq);
        mc = hc_dx_ints(x, 1, 2 * d->np);
        x->all = hc_dx_scratch(x, 0, c->rtype, (int64_t) c->size * count);
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
