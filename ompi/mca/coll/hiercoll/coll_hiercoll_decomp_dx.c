/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition's pieces: how a program's piece runs in the call's kind
 * (persistent pieces started, pieces done, the issue queue), messages
 * inside the part, the call's scratch, and the helpers that lay out user
 * blocks for the packed data crossing parts.  See
 * coll_hiercoll_decomp_internal.h ("A decomposed call").
 */
#include "coll_hiercoll_decomp_internal.h"

bool hc_dx_room(hc_dx_t *x)
{
    if (x->nps < DX_NPERS) {
        return true;
    }
    x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    return false;
}

/* Start the next of a persistent call's pieces. */
void hc_dx_start(hc_dx_t *x)
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
bool hc_dx_done(hc_dx_t *x)
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
void hc_dx_issued(hc_dx_t *x)
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
void hc_dx_drain(hc_decomp_t *d)
{
    while (NULL != d->qhead) {
        opal_progress();
    }
}

/* A message inside the part (to or from part rank peer). */
void hc_dx_p2p(hc_dx_t *x, bool send, int peer, void *buf, int64_t count, ompi_datatype_t *type,
               int tag)
{
    ompi_communicator_t *comm = x->d->part;
    const mca_pml_base_send_mode_t std = MCA_PML_BASE_SEND_STANDARD;
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    switch (x->kind) {
    case DX_BLOCK:
        x->rc =
            send
                ? MCA_PML_CALL(send(buf, (size_t) count, type, peer, tag, std, comm))
                : MCA_PML_CALL(recv(buf, (size_t) count, type, peer, tag, comm, MPI_STATUS_IGNORE));
        break;
    case DX_NB:
        x->rc =
            send
                ? MCA_PML_CALL(
                    isend(buf, (size_t) count, type, peer, tag, std, comm, &x->sub[x->nsub]))
                : MCA_PML_CALL(irecv(buf, (size_t) count, type, peer, tag, comm, &x->sub[x->nsub]));
        x->nsub += OMPI_SUCCESS == x->rc;
        break;
    case DX_INIT:
        if (hc_dx_room(x)) {
            x->rc = send ? MCA_PML_CALL(isend_init(buf, (size_t) count, type, peer, x->ptag, std,
                                                   comm, &x->ps[x->nps]))
                         : MCA_PML_CALL(irecv_init(buf, (size_t) count, type, peer, x->ptag, comm,
                                                   &x->ps[x->nps]));
            x->nps += OMPI_SUCCESS == x->rc;
        }
        break;
    default:
        hc_dx_start(x);
    }
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
char *hc_dx_scratch(hc_dx_t *x, int slot, ompi_datatype_t *type, int64_t count)
{
    if (NULL == x->mem[slot]) {
        x->at[slot] = scratch(type, count, &x->mem[slot]);
    }
    if (NULL == x->mem[slot] && OMPI_SUCCESS == x->rc) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    return x->at[slot];
}

int *hc_dx_ints(hc_dx_t *x, int slot, int n)
{
    if (NULL == x->iv[slot]) {
        x->iv[slot] = ints(n);
    }
    if (NULL == x->iv[slot] && OMPI_SUCCESS == x->rc) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    return x->iv[slot];
}

int64_t *hc_dx_offsets(hc_dx_t *x, int n)
{
    if (NULL == x->off) {
        x->off = malloc(sizeof(int64_t) * (size_t) (n > 0 ? n : 1));
    }
    if (NULL == x->off && OMPI_SUCCESS == x->rc) {
        x->rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    return x->off;
}

void hc_dx_free_mem(hc_dx_t *x)
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
    hcp_fini(&x->lp);
}

void hc_dx_block_of(const blocks_t *b, int r, char **at, int *count, ompi_datatype_t **type)
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

int64_t hc_dx_block_bytes(const blocks_t *b, int r)
{
    char *at;
    int count;
    ompi_datatype_t *type;
    size_t size = 0;
    hc_dx_block_of(b, r, &at, &count, &type);
    ompi_datatype_type_size(type, &size);
    return (int64_t) count * (int64_t) size;
}

/* Pack (unpack) the blocks of every rank outside part `skip`, in
 * decomposition order, into (from) packed memory; rank `except`'s block
 * keeps its room but is not touched. */
int hc_dx_pack_blocks(const hc_decomp_t *d, const blocks_t *b, int skip, int except, char *packed,
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
        int64_t bytes = hc_dx_block_bytes(b, r);
        hc_dx_block_of(b, r, &buf, &count, &type);
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
void hc_dx_member_blocks(const hc_decomp_t *d, const blocks_t *b, int *counts, int *displs)
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
bool hc_dx_packed_view(const hc_decomp_t *d, const blocks_t *b)
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

/* An allgather's result, packed in part order: its layout (off: every
 * rank's offset; pc: every part's count and displacement), its total
 * (x->total), and where it lands (x->all): the receive buffer itself
 * where that is the packed layout (x->direct), else scratch slot 0. */
void hc_dx_packed_result(hc_dx_t *x, const blocks_t *rblocks, int64_t *off, int *pc)
{
    const hc_decomp_t *d = x->d;
    const hc_call_t *c = &x->c;
    const int nq = d->lay.nparts;
    if (OMPI_SUCCESS != x->rc) {
        return;
    }
    x->total = hcp_pack_layout(&d->lay, rblocks->counts, c->rcount, c->rsize, -1, off, pc, pc + nq);
    x->direct = hc_dx_packed_view(d, rblocks);
    x->all = x->direct ? c->rbuf : hc_dx_scratch(x, 0, PACKED, x->total);
}

/* A leader's view of its members' packed blocks: counts and
 * displacements (mc[part size] each), and the total (x->ybytes).
 * Regular blocks are `mine` bytes everywhere; v forms gather each
 * member's own (hc_dx_member_shares, DX_WAIT, hc_dx_member_total). */
void hc_dx_member_shares(hc_dx_t *x, bool v, int64_t mine, int *mc)
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

void hc_dx_member_total(hc_dx_t *x, int *mc)
{
    const hc_decomp_t *d = x->d;
    if (OMPI_SUCCESS == x->rc && leads(d) && (x->ybytes = hcp_prefix(d->np, mc, mc + d->np)) < 0) {
        x->rc = OMPI_ERR_VALUE_OUT_OF_BOUNDS;
    }
}

/* Rooted collectives: what each part moves over the bridge (pc[nparts]
 * bytes, then displacements; the root's part moves nothing), at the root
 * and at its leader.  The root knows its blocks; a leader computes
 * regular blocks of `mine` bytes itself, and hears v forms' shares from
 * a root that does not lead (hc_dx_bridge_shares, DX_WAIT, hc_dx_bridge_total).
 * x->direct: the displacements are the blocks' own in the root's
 * buffer.  x->xbytes: the packed bytes, when not direct. */
void hc_dx_bridge_shares(hc_dx_t *x, const blocks_t *b, size_t unit, bool v, int64_t mine, int *pc)
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
            hc_dx_p2p(x, true, 0, pc, 2 * nq, MPI_INT, MCA_COLL_BASE_TAG_GATHERV);
        }
    } else if (d->p == rp && leads(d)) {
        if (v) {
            hc_dx_p2p(x, false, rk, pc, 2 * nq, MPI_INT, MCA_COLL_BASE_TAG_GATHERV);
        } else {
            hcp_pack_layout(&d->lay, NULL, 1, (size_t) mine, rp, NULL, pc, pc + nq);
        }
    }
}

void hc_dx_bridge_total(hc_dx_t *x, const int *pc)
{
    const hc_decomp_t *d = x->d;
    const int rp = d->lay.part[x->c.root], nq = d->lay.nparts;
    if (x->c.rank != x->c.root && d->p == rp && leads(d)) {
        x->xbytes = (int64_t) pc[nq - 1] + pc[2 * nq - 1];
    }
}

/* The elements of a reduce_scatter(_block)'s vector. */
int64_t hc_dx_sum_counts(const hc_call_t *c)
{
    int64_t total = 0;
    for (int r = 0; r < c->size; ++r) {
        total += HC_REDUCE_SCATTER == c->coll ? c->rcounts[r] : c->rcount;
    }
    return total;
}
