/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: operations (built from a call, stepped),
 * the channels' queues, requests (nonblocking, persistent) and progress.
 *
 * DATA PATHS.  Inline in the flag line (<= HC_SHM_INLINE bytes); cells of
 * C bytes per (slot, rank) plus a result cell per slot; messages longer
 * than a cell are pipelined in chunks, one sequence number per chunk
 * (op_init chooses; the families' files run them).
 *
 * STATE MACHINES.  Every operation is start + progress (returns when it
 * would wait): blocking = start, then progress and wait until done;
 * nonblocking = a request the progress callback advances; persistent = a
 * request restarted on its own channel.  A channel runs its operations in
 * order (a FIFO), so one rank never interleaves two operations' lines.
 */
#include "coll_hiercoll_shm_internal.h"

static bool op_step_(hc_shm_op_t *o)
{
    if (PATH_LONG == o->path) {
        return hc_shm_run_long(o);
    }
    switch (o->coll) {
    case HC_BARRIER:
        return hc_shm_run_barrier(o);
    case HC_BCAST:
        return hc_shm_run_bcast(o);
    case HC_GATHERV:
    case HC_SCATTERV:
        return hc_shm_run_vmove(o);
    default:
        switch (o->path) {
        case PATH_MOVE:
            return hc_shm_run_move(o);
        case PATH_RSCAT:
            return hc_shm_run_rscat(o);
        case PATH_SLICE:
            return hc_shm_run_slice(o);
        case PATH_CMA:
            return hc_shm_run_red_cma(o);
        case PATH_CMA_ROOT:
            return hc_shm_run_red_root_cma(o);
        case PATH_TREE:
            return hc_shm_run_tree(o);
        default:
            return PATH_INLINE == o->path && !o->ch->s->flat ? hc_shm_run_fold_grouped(o)
                                                             : hc_shm_run_fold(o);
        }
    }
}

static inline bool op_step(hc_shm_op_t *o)
{
    if (OPAL_LIKELY(NULL == o->ch->s->st)) {
        return op_step_(o);
    }
    hc_shm_stepping = o; /* (its single copy counted: hc_shm_count_cma) */
    bool done = op_step_(o);
    hc_shm_stepping = NULL;
    return done;
}

static char *base_of(const void *buf, ompi_datatype_t *dt)
{
    if (ompi_datatype_is_predefined(dt)) {
        return (char *) buf;
    }
    ptrdiff_t lb, ext;
    ompi_datatype_get_true_extent(dt, &lb, &ext);
    return (char *) buf + lb;
}

/* Sequence numbers an operation of these arguments consumes (1 for
 * barrier, the chunk count otherwise; 0: nothing to do). */
int hc_shm_op_init(hc_shm_op_t *o, hc_shm_chan_t *ch, const hc_call_t *c)
{
    hc_shm_t *sh = ch->s;
    o->next = NULL;
    o->req = NULL;
    o->ch = ch;
    o->path = PATH_INLINE;
    o->count = o->esize = o->m = o->chunk = 0;
    o->dt = NULL;
    o->op = NULL;
    o->src = NULL;
    o->dst = NULL;
    o->packed = false;
    o->c = NULL;
    o->tmp = NULL;
    o->scratch = NULL;
    o->hot = false; /* (hc_shm_op_ring) */
    o->row = ch->row;
    o->mask = ch->mask;
    o->wait_on = NULL;
    o->wait_val = 0;
    o->nchunks = 0;
    o->coll = c->coll;
    o->root = c->root;
    switch (c->coll) {
    case HC_BARRIER:
        o->nchunks = 1;
        break;
    case HC_BCAST:
        o->m = (size_t) c->rcount * c->rsize;
        o->dt = c->rtype;
        if (0 == o->m) {
            return 0;
        }
        o->path = o->m <= HC_SHM_INLINE ? PATH_INLINE : PATH_CELLS;
        o->chunk = PATH_INLINE == o->path ? HC_SHM_INLINE : sh->cell;
        o->nchunks = (int) ((o->m + o->chunk - 1) / o->chunk);
        if (sh->cma && o->m >= mca_coll_hiercoll_params.shm_cma_min) {
            o->path = PATH_CMA; /* the readers copy straight from the root's memory */
            o->chunk = o->m;
            o->nchunks = 1;
        }
        if (contiguous(c->rtype, (size_t) c->rcount)) {
            o->src = o->dst = base_of(c->rbuf, c->rtype);
        } else {
            o->packed = true;
        }
        break;
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
    case HC_GATHER:
    case HC_SCATTER: {
        size_t most = 0;
        for (int q = 0; q < sh->n; ++q) {
            size_t b = hc_shm_block_bytes(c, q);
            most = b > most ? b : most;
        }
        o->c = c;
        o->path = PATH_MOVE;
        o->chunk = sh->cell;
        o->nchunks = (int) ((most + o->chunk - 1) / o->chunk);
        if (0 == most) {
            return 0;
        }
        break;
    }
    case HC_GATHERV:
    case HC_SCATTERV: {
        /* never 0 (a non-root cannot know that every block is empty):
         * the root's count, a non-root's first (hc_shm_run_vmove takes the rest) */
        size_t most = 0;
        for (int q = 0; sh->me == c->root && q < sh->n; ++q) {
            size_t b = q == c->root ? 0 : hc_shm_block_bytes(c, q);
            most = b > most ? b : most;
        }
        o->c = c;
        o->path = PATH_MOVE;
        o->chunk = sh->cell;
        o->nchunks = most > 0 ? hc_shm_chunks_of(most, o->chunk) : 1;
        break;
    }
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_REDUCE_SCATTER: {
        size_t total = 0;
        o->mine0 = o->mine1 = 0;
        for (int q = 0; q < sh->n; ++q) {
            size_t cq = HC_REDUCE_SCATTER == c->coll ? (size_t) c->rcounts[q] : (size_t) c->rcount;
            if (q == sh->me) {
                o->mine0 = total;
                o->mine1 = total + cq;
            }
            total += cq;
        }
        o->c = c;
        o->count = total;
        o->esize = c->rsize;
        o->m = total * o->esize;
        o->dt = c->rtype;
        o->op = c->op;
        if (0 == o->m) {
            return 0;
        }
        o->path = PATH_RSCAT;
        o->chunk = sh->cell / o->esize * o->esize;
        o->nchunks = (int) ((o->m + o->chunk - 1) / o->chunk);
        o->src = base_of(c->in_place ? c->rbuf : c->sbuf, c->rtype);
        o->dst = base_of(c->rbuf, c->rtype);
        break;
    }
    default: /* reduce, allreduce */
        o->count = (size_t) c->rcount;
        o->esize = c->rsize;
        o->m = o->count * o->esize;
        o->dt = c->rtype;
        o->op = c->op;
        if (0 == o->m) {
            return 0;
        }
        if (o->m <= HC_SHM_INLINE || (HC_REDUCE == c->coll && red_lines(sh, o->m, o->esize))) {
            o->path = PATH_INLINE;
        } else if (sh->n <= mca_coll_hiercoll_params.shm_fold_ranks
                   || (o->m <= sh->cell
                       && o->m * (HC_REDUCE == c->coll ? 1 : (size_t) sh->n)
                              <= mca_coll_hiercoll_params.shm_fold_max)) {
            o->path = PATH_FOLD;
        } else {
            o->path = PATH_SLICE;
        }
        o->chunk = PATH_INLINE != o->path ? sh->cell / o->esize * o->esize
                   : o->m <= HC_SHM_INLINE ? o->m : HC_SHM_INLINE / o->esize * o->esize;
        o->nchunks = (int) ((o->m + o->chunk - 1) / o->chunk);
        /* Folded whole by CMA (few ranks; an allreduce below
         * HC_SHM_ROOT_MAX): every rank (allreduce) or the root (reduce)
         * reads the other inputs straight from their owners and folds
         * them; in place, an allreduce only at two ranks (each reads the
         * other's input into a buffer before anyone overwrites one).  Else
         * slice-parallel. */
        bool whole =
            sh->n <= mca_coll_hiercoll_params.shm_fold_ranks
            && (HC_REDUCE == c->coll || (o->m < HC_SHM_ROOT_MAX && (!c->in_place || 2 == sh->n)));
        size_t cma_from = mca_coll_hiercoll_params.shm_cma_min;
        if (HC_ALLREDUCE == c->coll && whole) {
            /* np 2: each rank copies once instead of twice (into its cell,
             * out of the other's), faster from 8 KiB and as fast at 4 KiB
             * (docs/design/shm-cma.md) */
            cma_from /= 2;
        }
        if (sh->cma && o->m >= cma_from) {
            o->path = whole ? PATH_CMA_ROOT : PATH_CMA;
            o->chunk = o->m;
            o->nchunks = 1;
        } else if (!sh->flat && PATH_INLINE != o->path) {
            o->path = PATH_TREE; /* (through the hierarchy, in cells) */
        }
        o->src = base_of(c->in_place ? c->rbuf : c->sbuf, c->rtype);
        o->dst = base_of(c->rbuf, c->rtype);
        if (HC_REDUCE == c->coll && sh->me != c->root) {
            o->dst = NULL; /* insignificant */
        }
        break;
    }
    /* long bcasts and reductions through the long cells (one sequence
     * number: their chunks have their own); never what a lean call may
     * have begun on another rank (a reduce in flag lines) */
    if (OPAL_UNLIKELY(o->m > HC_SHM_INLINE && 0 != o->nchunks && PATH_INLINE != o->path)
        && (HC_BCAST == c->coll || HC_REDUCE == c->coll || HC_ALLREDUCE == c->coll)
        && (HC_SHM_LONG_ON == sh->module->shm_long
            || (HC_SHM_LONG_AUTO == sh->module->shm_long && sh->n >= 4 && sh->n <= 7))
        && hc_shm_long_takes(o, c)) {
        o->path = PATH_LONG;
        o->chunk = o->m;
        o->nchunks = 1;
        o->mine0 = o->mine1 = 0;
    }
    if (OPAL_UNLIKELY(NULL != sh->st) && 0 != o->nchunks) {
        sh->st->ops[c->coll]++;
    }
    return o->nchunks;
}

/* An initialized operation's rows: a flat barrier's or an allreduce's in
 * the line (every rank reads every line before it goes on) are the hot
 * rows, numbered apart (see SYNCHRONIZATION); the others the slots. */
void hc_shm_op_ring(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    o->hot = ch->s->flat
             && (HC_BARRIER == o->coll || (HC_ALLREDUCE == o->coll && PATH_INLINE == o->path));
    o->row = o->hot ? ch->hot : ch->row;
    o->mask = o->hot ? HC_SHM_HOT - 1 : ch->mask;
    o->mbase = ch->seq;
}

/* Begin: take the sequence numbers; the packing convertor of a bcast. */
static void op_begin(hc_shm_op_t *o, void *ubuf, int ucount)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_op_ring(o);
    if (o->hot) { /* (one number: an allreduce in the line is one chunk) */
        o->s0 = ch->hseq++;
    } else {
        o->s0 = ch->seq;
        ch->seq += (uint64_t) o->nchunks;
    }
    o->j = o->ph = o->i = 0;
    o->finished = false;
    o->error = OMPI_SUCCESS;
    if (o->packed) { /* (a bcast of a non-contiguous type: hc_shm_dt_stream) */
        o->ubuf = ubuf;
        o->ucount = (size_t) ucount;
    }
}

/* Channels: operations in order. */
static void chan_push(hc_shm_chan_t *ch, hc_shm_op_t *o)
{
    o->next = NULL;
    if (NULL == ch->tail) {
        ch->head = ch->tail = o;
    } else {
        ch->tail->next = o;
        ch->tail = o;
    }
}

static void chan_pop(hc_shm_chan_t *ch)
{
    ch->head = ch->head->next;
    if (NULL == ch->head) {
        ch->tail = NULL;
    }
}

static int shm_progress(void);

static void busy_add(hc_shm_chan_t *ch)
{
    if (ch->busy) {
        return;
    }
    if (hc_shm_g.nbusy == hc_shm_g.capbusy) {
        int cap = hc_shm_g.capbusy ? 2 * hc_shm_g.capbusy : 16;
        hc_shm_chan_t **b = realloc(hc_shm_g.busy, sizeof(*b) * (size_t) cap);
        if (NULL == b) {
            return; /* the blocking waits still advance it */
        }
        hc_shm_g.busy = b;
        hc_shm_g.capbusy = cap;
    }
    hc_shm_g.busy[hc_shm_g.nbusy++] = ch;
    ch->busy = true;
    if (!hc_shm_g.progress_registered) {
        hc_shm_g.progress_registered = true;
        opal_progress_register(shm_progress);
    }
}

static void req_complete(hc_shm_req_t *r)
{
    r->active = false;
    r->super.super.req_status.MPI_ERROR = r->op.error;
    ompi_request_complete(&r->super.super, true);
}

static int chan_advance(hc_shm_chan_t *ch)
{
    int n = 0;
    while (NULL != ch->head) {
        hc_shm_op_t *o = ch->head;
        if (!op_step(o)) {
            break;
        }
        o->finished = true;
        chan_pop(ch);
        ++n;
        if (NULL != o->req) {
            req_complete(o->req);
        }
    }
    return n;
}

static int shm_progress(void)
{
    if (hc_shm_g.in_progress || 0 == hc_shm_g.nbusy) {
        return 0;
    }
    hc_shm_g.in_progress = true;
    int done = 0;
    for (int i = 0; i < hc_shm_g.nbusy;) {
        hc_shm_chan_t *ch = hc_shm_g.busy[i];
        done += chan_advance(ch);
        if (NULL == ch->head) {
            ch->busy = false;
            hc_shm_g.busy[i] = hc_shm_g.busy[--hc_shm_g.nbusy];
        } else {
            ++i;
        }
    }
    hc_shm_g.in_progress = false;
    return done;
}

/* Queue an operation on its channel and advance the channel once. */
static void enqueue(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    chan_push(ch, o);
    if (ch->head == o && op_step(o)) {
        o->finished = true;
        chan_pop(ch);
        if (NULL != o->req) {
            req_complete(o->req);
        }
        return;
    }
    if (NULL != o->req) {
        busy_add(ch);
    }
}

/* A blocking operation alone on its channel, begun: step it to its end
 * (`polls`: how many its caller has spun already). */
void hc_shm_run_alone(hc_shm_op_t *o, uint32_t polls)
{
    if (!op_step(o)) {
        hc_wait_t w;
        wait_init(o->ch->s, &w);
        w.polls = polls;
        do {
            wait_step(o->ch->s, &w, o);
        } while (!op_step(o));
    }
    if (OPAL_UNLIKELY(o->ch->s->pnow)) { /* (an agreeing call: PLACEMENT DEFERRED) */
        hc_shm_place_later(o->ch->s->module);
    }
}

/* A blocking operation: alone on its channel, the fastest way; behind
 * requests, it waits its turn advancing them. */
int hc_shm_run_blocking_op(hc_shm_op_t *o, const hc_call_t *c)
{
    hc_shm_chan_t *ch = o->ch;
    op_begin(o, c->rbuf, c->rcount);
    if (NULL == ch->head) {
        hc_shm_run_alone(o, 0);
    } else {
        chan_push(ch, o);
        hc_wait_t w;
        wait_init(ch->s, &w);
        while (chan_advance(ch), !o->finished) {
            wait_once(ch->s, &w, o);
        }
        if (OPAL_UNLIKELY(ch->s->pnow)) {
            hc_shm_place_later(ch->s->module);
        }
    }
    return o->error;
}

int hc_shm_req_free(ompi_request_t **rp)
{
    hc_shm_req_t *r = (hc_shm_req_t *) *rp;
    if (r->active) {
        return MPI_ERR_REQUEST;
    }
    if (r->persistent && NULL != r->m->shm) { /* offered at the next agreeing call */
        r->m->shm->pfreed |= 1u << (r->chan - 1);
    }

    OBJ_RELEASE(r->m);
    OBJ_RELEASE(r->comm);
    mca_coll_hiercoll_req_unmake(&r->super);
    free(r->arrays);
    free(r);
    *rp = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

void hc_shm_req_begin(hc_shm_req_t *r)
{
    hc_shm_t *sh = r->m->shm;
    mca_coll_hiercoll_req_arm(&r->super.super);
    r->active = true;
    if (0 == hc_shm_op_init(&r->op, &sh->ch[r->chan], &r->call)) {
        r->active = false;
        ompi_request_complete(&r->super.super, true);
        return;
    }
    r->op.req = r;
    op_begin(&r->op, r->call.rbuf, r->call.rcount);
    enqueue(&r->op);
}

int hc_shm_req_start(size_t count, ompi_request_t **reqs)
{
    for (size_t i = 0; i < count; ++i) {
        hc_shm_req_t *r = (hc_shm_req_t *) reqs[i];
        if (r->active) {
            return MPI_ERR_REQUEST;
        }
        hc_shm_req_begin(r);
    }
    return OMPI_SUCCESS;
}
