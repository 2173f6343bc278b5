/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: barrier, bcast, reduce, allreduce,
 * allgather(v), gather(v), scatter(v) and reduce_scatter(_block) of a
 * communicator whose processes share a node, through shared memory.  This
 * file holds its public entry points (enable, free, usable, start,
 * prepare, auto's questions, the lean calls and the fast path's replay);
 * the engine is in the files beside it:
 *
 *   coll_hiercoll_shm_internal.h  types, hot helpers, SYNCHRONIZATION
 *   coll_hiercoll_shm_arena.c     MEMORY: the arena, mappings, layout, CMA
 *   coll_hiercoll_shm_setup.c     ADMISSION AND AGREEMENT, placement
 *   coll_hiercoll_shm_lines.c     flag lines' slow parts, WAITING
 *   coll_hiercoll_shm_group.c     the hierarchy (levels, groups, up and down)
 *   coll_hiercoll_shm_op.c        operations, channels, requests, progress
 *   coll_hiercoll_shm_bcast.c     barrier and bcast state machines
 *   coll_hiercoll_shm_reduce.c    reduce and allreduce state machines
 *   coll_hiercoll_shm_move.c      gather(v), scatter(v), allgather(v),
 *                                 reduce_scatter(_block) state machines
 *   coll_hiercoll_shm_long.c      LONG CELLS: long bcasts, reduces and
 *                                 allreduces through every process's cells
 *
 * Calls go down: this file calls op, setup and long (its cells' leave);
 * op the families (move uses reduce's folds; long's set-up is its own) and
 * setup; the families group, lines and arena;
 * setup group, lines and arena (contrib/check-layers.sh: no circle).
 *
 * A short blocking barrier, bcast or reduce on an idle channel may go
 * straight at the lines (lean(), from the fast path), writing what the
 * engine would.
 */
#include "coll_hiercoll_shm_internal.h"
#include "coll_hiercoll_atomic.h"

/* 64-bit atomics lock-free, as compiled (coll_hiercoll_atomic.h); the
 * environment's HIERCOLL_TEST_ATOMIC64=0 pretends they are not (the test
 * suite's way to the path where they are not). */
bool mca_coll_hiercoll_shm_atomics_ok(void)
{
    static int ok = -1;
    if (ok < 0) {
        const char *t = getenv("HIERCOLL_TEST_ATOMIC64");
        ok = HC_ATOMIC64_LOCK_FREE && !(NULL != t && 0 == strcmp(t, "0"));
    }
    return 1 == ok;
}

static bool all_local(ompi_communicator_t *comm)
{
    int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    for (int r = 0; r < n; ++r) {
        if (r == me) {
            continue;
        }
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        if (NULL == p || !OPAL_PROC_ON_LOCAL_NODE(p->super.proc_flags)) {
            return false;
        }
    }
    return true;
}

void mca_coll_hiercoll_shm_enable(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    m->shm = NULL;
    /* (MPI_THREAD_MULTIPLE: the per-process state, arena and progress
     * list, has no lock; MPICH's release_gather stays off there too) */
    if (!prm->shm_enable || ompi_mpi_thread_multiple || OMPI_COMM_IS_INTER(comm)
        || ompi_comm_size(comm) < 2 || !all_local(comm)) {
        return;
    }
    if (!mca_coll_hiercoll_shm_atomics_ok()) {
        static bool said;
        if (!said && 0 == hc_shm_world_rank()) {
            mca_coll_hiercoll_log(1, "shm: 64-bit atomics are not lock-free on this target "
                                  "(coll_hiercoll_shm_atomics): the shared-memory node level "
                                  "is off");
        }
        said = true;
        return;
    }
    hc_shm_t *s = calloc(1, sizeof(*s));
    if (NULL == s) {
        return;
    }
    s->n = ompi_comm_size(comm);
    s->me = ompi_comm_rank(comm);
    s->comm = comm; /* not retained: the module lives as long */
    s->module = m;
    if (0 == hc_shm_g.ncpus) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        hc_shm_g.ncpus = n > 0 ? (int) n : 1;
    }
    m->shm = s; /* (yield: set_up) */
}

void mca_coll_hiercoll_shm_free(mca_coll_hiercoll_module_t *m)
{
    hc_shm_t *s = m->shm;
    if (NULL == s) {
        return;
    }
    /* (requests keep the module: its channels are idle, but a blocking
     * wait may have emptied one that the progress list still holds) */
    for (int i = 0; i < hc_shm_g.nbusy;) {
        if (hc_shm_g.busy[i]->s == s) {
            hc_shm_g.busy[i] = hc_shm_g.busy[--hc_shm_g.nbusy];
        } else {
            ++i;
        }
    }
    if (NULL != s->st) {
        if (HC_SHM_READY == s->state) {
            hc_shm_stats_print(s);
        }
        free(s->st->dist);
        free(s->st->reg);
        free(s->st);
    }
    hc_shm_long_leave(s);
    hc_shm_region_leave(s);
    free(s->pids);
    free(s->rows);
    free(s->up);
    free(s->top);
    free(s->mem);
    free(s);
    m->shm = NULL;
}

void mca_coll_hiercoll_shm_fini(void)
{
    for (int i = 0; i < hc_shm_g.nmaps; ++i) {
        munmap(hc_shm_g.maps[i].base, hc_shm_g.maps[i].size);
    }
    free(hc_shm_g.maps);
    if (hc_shm_g.ok) {
        munmap(hc_shm_g.base, hc_shm_g.size);
        close(hc_shm_g.fd);
    }
    free(hc_shm_g.free);
    free(hc_shm_g.pend);
    free(hc_shm_g.busy);
    memset(&hc_shm_g, 0, sizeof(hc_shm_g));
    hc_shm_g.fd = -1;
}

static bool served(hc_coll_t k)
{
    switch (k) {
    case HC_BARRIER:
    case HC_BCAST:
    case HC_REDUCE:
    case HC_ALLREDUCE:
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
    case HC_GATHER:
    case HC_SCATTER:
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_REDUCE_SCATTER:
    case HC_GATHERV:
    case HC_SCATTERV:
        return true;
    default:
        return false;
    }
}

static bool is_reduction(hc_coll_t k)
{
    return HC_REDUCE == k || HC_ALLREDUCE == k || HC_REDUCE_SCATTER_BLOCK == k
           || HC_REDUCE_SCATTER == k;
}

bool mca_coll_hiercoll_shm_usable(const hc_call_t *c)
{
    const hc_shm_t *sh = c->module->shm;
    if (NULL == sh || sh->state < HC_SHM_UNSET || !served(c->coll)) {
        return false;
    }
    /* set-up is collective: a nonblocking call or a persistent init is
     * local (it must not wait for the other ranks to arrive), so only a
     * blocking call sets up; the others use a region that exists (the
     * same calls came first everywhere: so is the answer) */
    if (HC_BLOCKING != c->mode && HC_SHM_READY != sh->state) {
        return false;
    }
    if (HC_PERSISTENT == c->mode && sh->npers >= mca_coll_hiercoll_params.shm_persistent
        && 0 == sh->pagreed) {
        return false; /* inits are in the same order everywhere: so is this */
    }
    if (is_reduction(c->coll)) {
        /* the same datatype on every rank (MPI): so is the answer.  An
         * element is folded whole, so it must fit a cell (a chunk is whole
         * elements); the cell follows from the process count and the
         * parameters, alike everywhere, before the set-up too */
        size_t cell = HC_SHM_READY == sh->state
                          ? sh->cell
                          : hc_shm_cell_for(sh->n, mca_coll_hiercoll_params.shm_slots);
        return contiguous(c->rtype, 2) && c->rsize > 0 && c->rsize <= cell;
    }
    return true;
}

/* A nonblocking v-collective's counts and displacements, copied into its
 * request: the level reads them while the operation runs, after the call
 * has returned, where Open MPI's libnbc read them at the call.  MPI says
 * they belong to the operation until it completes; mpi4py 3.1.4's
 * Iallgatherv (unlike its other nonblocking collectives) releases them
 * when the call returns, and the level then read freed memory (its
 * test_cco_nb_vec crashed).  Persistent requests keep the caller's: they
 * must stay valid for the request's life.  False: no memory. */
static bool keep_arrays(hc_shm_req_t *r)
{
    hc_call_t *c = &r->call;
    const int **a[4] = {&c->scounts, &c->sdispls, &c->rcounts, &c->rdispls};
    bool root = c->rank == c->root, want[4] = {false, false, false, false};
    switch (c->coll) {
    case HC_ALLGATHERV: want[2] = want[3] = true; break;
    case HC_GATHERV: want[2] = want[3] = root; break;
    case HC_SCATTERV: want[0] = want[1] = root; break;
    case HC_REDUCE_SCATTER: want[2] = true; break;
    default: return true;
    }
    size_t n = (size_t) c->size, k = 0;
    r->arrays = malloc(sizeof(int) * 4 * (n > 0 ? n : 1));
    if (NULL == r->arrays) {
        return false;
    }
    for (int i = 0; i < 4; ++i) {
        if (want[i] && NULL != *a[i]) {
            memcpy(r->arrays + k, *a[i], sizeof(int) * n);
            *a[i] = r->arrays + k;
            k += n;
        }
    }
    return true;
}

int mca_coll_hiercoll_shm_start(hc_call_t *c, ompi_request_t **request, struct ompi_info_t *info)
{
    (void) info;
    mca_coll_hiercoll_module_t *m = c->module;
    hc_shm_t *sh = m->shm;
    if (HC_SHM_UNSET == sh->state) {
        int rc = hc_shm_setup(m);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (HC_SHM_READY != sh->state) {
        /* set-up failed on some rank, so on every rank: usable now says
         * no everywhere, and the caller selects again */
        return HC_DECLINED;
    }
    if (HC_BLOCKING == c->mode) {
        hc_shm_op_t o;
        if (0 == hc_shm_op_init(&o, &sh->ch[0], c)) {
            return OMPI_SUCCESS;
        }
        return hc_shm_run_blocking_op(&o, c);
    }
    hc_shm_req_t *r = calloc(1, sizeof(*r));
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    bool persistent = HC_PERSISTENT == c->mode;
    r->call = *c;
    if (!persistent && !keep_arrays(r)) {
        free(r);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    mca_coll_hiercoll_req_make(&r->super, c->comm, persistent, hc_shm_req_free, hc_shm_req_start);
    r->m = m;
    r->comm = c->comm;
    OBJ_RETAIN(m);
    OBJ_RETAIN(c->comm);
    r->persistent = persistent;
    *request = &r->super.super;
    if (persistent) {
        /* init order: the same channel on every rank, a new one or the
         * lowest agreed free (hc_shm_agree_freed) */
        if (sh->npers < mca_coll_hiercoll_params.shm_persistent) {
            r->chan = 1 + sh->npers++;
        } else {
            int b = __builtin_ctz(sh->pagreed);
            sh->pagreed &= ~(1u << b);
            sh->pfreed &= ~(1u << b);
            r->chan = 1 + b;
            if (0 == sh->me) {
                mca_coll_hiercoll_log(1, "%s: shm: a persistent init takes channel %d back "
                                         "(freed on every rank; %d taken back so far)",
                                      c->comm->c_name, r->chan, ++sh->ptaken);
            }
        }
        r->super.super.req_state = OMPI_REQUEST_INACTIVE;
        r->super.super.req_complete = REQUEST_COMPLETED;
        return OMPI_SUCCESS;
    }
    r->chan = 0;
    hc_shm_req_begin(r);
    return OMPI_SUCCESS;
}

/* Set up the region of comm (a decomposition's part) now, if hiercoll
 * serves comm with the shared-memory level: collective over comm, called
 * by all its ranks alike (set-up must not wait for a call that may come
 * from inside progress). */
void mca_coll_hiercoll_shm_prepare(ompi_communicator_t *comm)
{
    /* hiercoll's module among the communicator's enabled ones (not
     * through a slot: a component above it, e.g. coll/monitoring, may
     * hold them all) */
    mca_coll_base_avail_coll_t *item;
    if (NULL == comm->c_coll->module_list || NULL == mca_coll_hiercoll_hooks.module_class) {
        return;
    }
    OPAL_LIST_FOREACH(item, comm->c_coll->module_list, mca_coll_base_avail_coll_t) {
        mca_coll_hiercoll_module_t *m = (mca_coll_hiercoll_module_t *) item->ac_module;
        if (NULL == m || mca_coll_hiercoll_hooks.module_class != m->super.super.obj_class) {
            continue;
        }
        if (NULL != m->shm && HC_SHM_UNSET == m->shm->state) {
            m->shm->part = true;
            (void) hc_shm_setup(m);
        }
        return;
    }
}

/* What auto runs on it: the collectives measured against the layer below
 * (README, "Shared-memory node level"); the others when forced. */
static bool auto_served(hc_coll_t k)
{
    return HC_BARRIER == k || HC_BCAST == k || HC_REDUCE == k || HC_ALLREDUCE == k;
}

bool mca_coll_hiercoll_shm_claims(const mca_coll_hiercoll_module_t *m, hc_coll_t k)
{
    const hc_shm_t *sh = m->shm;
    return NULL != sh && auto_served(k)
           && (!oversubscribed(sh) || mca_coll_hiercoll_params.shm_oversubscribed);
}

bool mca_coll_hiercoll_shm_may_take(const mca_coll_hiercoll_module_t *m, hc_coll_t k)
{
    return mca_coll_hiercoll_shm_claims(m, k) && m->shm->state >= HC_SHM_UNSET;
}

/* Nonblocking and persistent calls before set-up (no blocking call has set
 * the level up): below 64 KiB hiercoll's plans were not faster than
 * libnbc's, and the short ones slower on one machine, so the call goes to
 * the layer below (the figures: docs/design/shm-auto-and-reduce-lines.md). */
bool mca_coll_hiercoll_shm_defers_nb(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                     size_t bytes)
{
    /* (auto only: a forced algorithm, even one that does not fit a call,
     * asks for hiercoll's plans) */
    if (HC_ALGO_AUTO != m->choice[k] || !mca_coll_hiercoll_shm_may_take(m, k)
        || HC_SHM_UNSET != m->shm->state) {
        return false;
    }
    switch (k) {
    case HC_BARRIER:
    case HC_BCAST: return true;
    case HC_ALLREDUCE:
    case HC_REDUCE: return bytes < 64 * 1024;
    default: return false;
    }
}

bool mca_coll_hiercoll_shm_defers(const hc_call_t *c)
{
    return HC_BLOCKING != c->mode
           && mca_coll_hiercoll_shm_defers_nb(c->module, c->coll,
                                              (size_t) c->rcount * c->rsize);
}

/* Auto on many ranks: long data by single copy (n readers of one buffer,
 * slice-parallel folds of 2 (n - 1) reads a rank) lost to the layer below
 * on a 16-core machine at 8 and 16 processes (bcast and allreduce from 16
 * KiB, reduce from 16 to 128 KiB; the figures:
 * docs/design/node-hierarchy-model.md).  From coll_hiercoll_shm_wide_ranks
 * processes auto leaves those to the layer below. */
#define HC_SHM_WIDE_REDUCE_MAX (128 * 1024)

static bool wide_declines(const hc_shm_t *sh, hc_coll_t k, size_t bytes)
{
    const mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    if (0 == prm->shm_wide_ranks || sh->n < prm->shm_wide_ranks || 0 == prm->shm_cma_min
        || bytes < prm->shm_cma_min) {
        return false;
    }
    return HC_BCAST == k || HC_ALLREDUCE == k
           || (HC_REDUCE == k && bytes <= HC_SHM_WIDE_REDUCE_MAX);
}

bool mca_coll_hiercoll_shm_wants(const hc_call_t *c)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    hc_shm_t *sh = c->module->shm;
    if (!mca_coll_hiercoll_shm_claims(c->module, c->coll) || sh->state < HC_SHM_UNSET) {
        return false;
    }
    size_t bytes = HC_BARRIER == c->coll ? 0 : (size_t) c->rcount * c->rsize;
    /* (a decomposition's part takes short reduces too: its non-leaders
     * stay off the PML; and so do blocking ones that fit the flag line
     * where the fast path may take them to a lean call) */
    if (bytes > prm->shm_auto_max || wide_declines(sh, c->coll, bytes)
        || (HC_REDUCE == c->coll && bytes < prm->shm_reduce_min && !sh->part
            && !(HC_BLOCKING == c->mode && c->module->fast_ok
                 && (bytes <= HC_SHM_INLINE || red_lines(sh, bytes, c->rsize))))
        || !mca_coll_hiercoll_shm_usable(c)) {
        return false;
    }
    if (HC_SHM_UNSET == sh->state && sh->calls < prm->shm_min_calls) {
        sh->calls++; /* every rank counts the same calls */
        ((hc_call_t *) c)->no_fast = true; /* the next one must ask again */
        return false;
    }
    return true;
}

const hcp_plan_t mca_coll_hiercoll_shm_mark;

/* LEAN CALLS.  A blocking barrier or allreduce of a flat region (no
 * groups), or a bcast or reduce, of one predefined contiguous type short
 * enough for the flag line, on an idle channel 0, goes straight at the
 * lines: no call nor operation is built where nothing waits.  That halves
 * a short call's own cost (the figures: docs/design/shm-lean-calls.md;
 * the allreduce gains only with copy_short).  It writes exactly what
 * the engine's step would, with the same sequence number; where it must
 * wait, the engine takes over the operation (LEAN_WAIT: a barrier or an
 * allreduce that has published its line and spun coll_hiercoll_shm_spin
 * polls) or the whole call (LEAN_NO: nothing done; a bcast's reader or a
 * reduce's root whose lines are not all there yet). */
enum { LEAN_NO, LEAN_WAIT, LEAN_DONE };

/* A lean call's copy of m <= HC_SHM_INLINE bytes.  Up to `most` bytes:
 * two fixed-size moves that overlap where m is not their size (as libc
 * does inside its memcpy), without the call; beyond, libc's.  libc's two
 * calls were most of a short fold's cost.  Moves by 32 for 33 to 64 bytes
 * made the allreduce faster but the bcast and reduce slower, so only the
 * allreduce takes them (most 64; copy_short: 32; the figures:
 * docs/design/shm-lean-calls.md). */
static inline void copy_moves(void *to, const void *from, size_t m, size_t most)
{
    char *t = (char *) to;
    const char *f = (const char *) from;
#define HC_MOVE2(W)                                                                                \
    do {                                                                                           \
        char a_[W], b_[W];                                                                         \
        __builtin_memcpy(a_, f, W);                                                                \
        __builtin_memcpy(b_, f + m - W, W);                                                        \
        __builtin_memcpy(t, a_, W);                                                                \
        __builtin_memcpy(t + m - W, b_, W);                                                        \
    } while (0)
    if (m > most) {
        memcpy(t, f, m);
    } else if (m > 32) {
        HC_MOVE2(32);
    } else if (m >= 16) {
        HC_MOVE2(16);
    } else if (m >= 8) {
        HC_MOVE2(8);
    } else if (m >= 4) {
        HC_MOVE2(4);
    } else if (m >= 2) {
        HC_MOVE2(2);
    } else if (1 == m) {
        *t = *f;
    }
#undef HC_MOVE2
}

static inline void copy_short(void *to, const void *from, size_t m)
{
    copy_moves(to, from, m, 32);
}

/* m bytes of f's type: where the engine would carry them in the flag
 * line (hc_shm_op_init: not single copy), and lean may copy them (a predefined
 * contiguous type). */
static inline bool lean_inline(const hc_shm_t *sh, const hc_fast_t *f, size_t m)
{
    return 0 != m && m <= HC_SHM_INLINE
           && !(sh->cma && m >= mca_coll_hiercoll_params.shm_cma_min)
           && ompi_datatype_is_predefined(f->dtype) && contiguous(f->dtype, (size_t) f->count);
}

/* A lean reduce's root done with numbers s .. last: every rank has begun
 * s (see all_flags); its done line; the others' next lines, of a next
 * call like this one (prefetch_next). */
static inline void lean_root_done(hc_shm_chan_t *ch, uint64_t s, uint64_t last)
{
    const hc_shm_t *sh = ch->s;
    all_begun(ch, s);
    finish_reading(ch, last);
    for (int r = 0; r < sh->n && r < 8; ++r) {
        if (r != sh->me) {
            prefetch_line(flag_of(ch, last + 1, r));
        }
    }
}

/* A lean reduce in several flag lines (red_lines; the engine numbers and
 * lays them out alike, hc_shm_op_init): chunk j of the message in line s + j.
 * A non-root publishes them all once the last one's slot is free; the
 * root folds once every rank's are there (else LEAN_NO: the engine). */
static __attribute__((noinline)) int lean_reduce_lines(hc_shm_t *sh, hc_shm_chan_t *ch,
                                                       hc_fast_t *f, const void *sbuf,
                                                       void *rbuf, size_t m)
{
    size_t esize = f->dtype->super.size;
    if (0 == m || (sh->cma && m >= mca_coll_hiercoll_params.shm_cma_min)
        || !red_lines(sh, m, esize) || !ompi_datatype_is_predefined(f->dtype)
        || !contiguous(f->dtype, (size_t) f->count)) {
        return LEAN_NO;
    }
    size_t per = HC_SHM_INLINE / esize * esize;
    uint64_t s = ch->seq, nch = (m + per - 1) / per, last = s + nch - 1;
    const char *src = f->in_place ? (const char *) rbuf : (const char *) sbuf;
    if (sh->me != f->root) {
        if (!slot_free(ch, last, false)) { /* (and so every line before it) */
            return LEAN_NO;
        }
        ch->seq = last + 1;
        for (uint64_t j = 0; j < nch; ++j) {
            size_t b = (size_t) j * per, len = m - b < per ? m - b : per;
            hc_line_t *l = flag_of(ch, s + j, sh->me);
            memcpy(l->data, src + b, len);
            st_rel(&l->seq, FV(s + j, 0));
            if (sh->demote) {
                demote(l, HC_SHM_LINE);
            }
        }
        finish_reading(ch, last);
        return LEAN_DONE;
    }
    for (int r = 0; r < sh->n; ++r) {
        for (uint64_t j = 0; r != sh->me && j < nch; ++j) {
            uint64_t t = last - j; /* (the last line first: the one most often missing) */
            if (ld_acq(&flag_of(ch, t, r)->seq) < FV(t, 0)) {
                return LEAN_NO;
            }
        }
    }
    ch->seq = last + 1;
    for (uint64_t j = 0; j < nch; ++j) {
        size_t b = (size_t) j * per, len = m - b < per ? m - b : per;
        uint64_t mine[HC_SHM_INLINE / 8];
        const char *my = src + b;
        char *out = (char *) rbuf + b;
        if (f->in_place) { /* (the fold writes my input's chunk first) */
            memcpy(mine, my, len);
            my = (const char *) mine;
        }
        for (int r = sh->n - 1; r >= 0; --r) {
            const char *x = r == sh->me ? my : (const char *) flag_of(ch, s + j, r)->data;
            if (r == sh->n - 1) {
                memcpy(out, x, len);
            } else {
                reduce_with(f->op, f->dtype, x, out, len / esize);
            }
        }
    }
    lean_root_done(ch, s, last);
    return LEAN_DONE;
}

static int lean(hc_shm_t *sh, hc_shm_chan_t *ch, hc_fast_t *f, hc_coll_t k, const void *sbuf,
                void *rbuf, uint32_t *polls)
{
    uint64_t s = ch->seq;
    hc_line_t *l;
    if (HC_BCAST == k) {
        /* (through one cell it was slower than the engine from 128 bytes
         * to 4 KiB: the lean bcast stays in the flag line) */
        size_t m = (size_t) f->count * f->dtype->super.size;
        if (!sh->flat || !lean_inline(sh, f, m)) { /* (the hierarchy: hc_shm_run_bcast) */
            return LEAN_NO;
        }
        l = flag_of(ch, s, f->root);
        if (sh->me == f->root) {
            if (!slot_free(ch, s, false)) {
                return LEAN_NO;
            }
            ch->seq = s + 1;
            copy_short(l->data, rbuf, m);
            st_rel(&l->seq, FV(s, 0));
            if (sh->demote && m > HC_SHM_LINE / 2 - 16) { /* (see publish) */
                demote(l, HC_SHM_LINE);
            }
            finish_reading(ch, s);
            return LEAN_DONE;
        }
        if (ld_acq(&l->seq) < FV(s, 0)) {
            return LEAN_NO;
        }
        ch->seq = s + 1;
        copy_short(rbuf, l->data, m);
        finish_reading(ch, s);
        prefetch_line(flag_of(ch, s + 1, f->root));
        return LEAN_DONE;
    }
    if (HC_REDUCE == k) {
        /* the non-roots publish and go on; the root folds once every line
         * is there (it publishes nothing: LEAN_NO leaves it all to the
         * engine) */
        size_t m = (size_t) f->count * f->dtype->super.size;
        if (!sh->flat || !lean_inline(sh, f, m)) { /* (groups: hc_shm_run_fold_grouped; several
                                                     * lines: lean_reduce_lines) */
            return LEAN_NO;
        }
        const char *src = f->in_place ? (const char *) rbuf : (const char *) sbuf;
        if (sh->me != f->root) {
            if (!slot_free(ch, s, false)) {
                return LEAN_NO;
            }
            ch->seq = s + 1;
            l = flag_of(ch, s, sh->me);
            copy_short(l->data, src, m);
            st_rel(&l->seq, FV(s, 0));
            if (sh->demote) {
                demote(l, HC_SHM_LINE);
            }
            finish_reading(ch, s);
            return LEAN_DONE;
        }
        for (int r = 0; r < sh->n; ++r) {
            if (r != sh->me && ld_acq(&flag_of(ch, s, r)->seq) < FV(s, 0)) {
                return LEAN_NO;
            }
        }
        ch->seq = s + 1;
        uint64_t mine[HC_SHM_INLINE / 8];
        if (f->in_place) {
            copy_short(mine, src, m);
            src = (const char *) mine;
        }
        for (int r = sh->n - 1; r >= 0; --r) {
            const char *x = r == sh->me ? src : (const char *) flag_of(ch, s, r)->data;
            if (r == sh->n - 1) {
                copy_short(rbuf, x, m);
            } else {
                reduce_with(f->op, f->dtype, x, rbuf, (size_t) f->count);
            }
        }
        lean_root_done(ch, s, s);
        return LEAN_DONE;
    }
    /* a barrier or an allreduce (flat): publish, then every other line */
    size_t m = 0;
    const char *src = NULL;
    if (HC_ALLREDUCE == k) {
        m = (size_t) f->count * f->dtype->super.size;
        /* (hc_shm_op_init takes single copy for an allreduce from half of
         * shm_cma_min: never lean there) */
        if (!lean_inline(sh, f, m) || (sh->cma && m >= mca_coll_hiercoll_params.shm_cma_min / 2)) {
            return LEAN_NO;
        }
        src = f->in_place ? (const char *) rbuf : (const char *) sbuf;
    }
    if (!sh->flat) {
        return LEAN_NO;
    }
    /* (the hot rows: hc_shm_op_ring's; no slot to wait for, see SYNCHRONIZATION) */
    s = ch->hseq++;
    hc_line_t *row = ch->hot[s & (HC_SHM_HOT - 1)];
    l = row + sh->me;
    if (0 != m) {
        copy_moves(l->data, src, m, 64);
    }
    offer_freed(sh, l, s); /* (the engine's agrees(): a flat barrier, an inline allreduce) */
    st_rel(&l->seq, FV(s, 0));
    if (sh->demote) {
        demote(l, HC_SHM_LINE);
    }
    /* spin as the engine's wait would (then it takes over: progress,
     * yield, the watchdog) */
    uint32_t spin = spin_of(sh);
    for (int r = 0; r < sh->n; ++r) {
        while (r != sh->me && ld_acq(&row[r].seq) < FV(s, 0)) {
            if (++*polls >= spin) {
                return LEAN_WAIT;
            }
            cpu_relax();
        }
    }
    if (0 != sh->poffered) {
        hc_shm_agree_freed(sh, row);
    }
    if (0 != m) { /* fold in rank order, as fold() (mine from my input) */
        uint64_t mine[HC_SHM_INLINE / 8];
        if (f->in_place) {
            copy_moves(mine, src, m, 64);
            src = (const char *) mine;
        }
        for (int r = sh->n - 1; r >= 0; --r) {
            const char *x = r == sh->me ? src : (const char *) row[r].data;
            if (r == sh->n - 1) {
                copy_moves(rbuf, x, m, 64);
            } else {
                reduce_with(f->op, f->dtype, x, rbuf, (size_t) f->count);
            }
        }
    }
    /* every rank has begun this one: each finished every operation
     * numbered before (the channel is idle here; see all_flags) */
    if (ch->seq - 1 > ch->done_min) {
        ch->done_min = ch->seq - 1;
    }
    if (OPAL_UNLIKELY(sh->pnow)) {
        hc_shm_place_later(sh->module);
    }
    return LEAN_DONE;
}

int mca_coll_hiercoll_shm_fast(mca_coll_hiercoll_module_t *m, hc_fast_t *f, hc_coll_t k,
                               const void *sbuf, void *rbuf)
{
    hc_shm_t *sh = m->shm;
    hc_shm_chan_t *ch = &sh->ch[0];
    int lean_rc = LEAN_NO;
    uint32_t polls = 0;
    if (NULL == ch->head && sh->lean) {
        lean_rc = lean(sh, ch, f, k, sbuf, rbuf, &polls);
        if (LEAN_DONE == lean_rc) {
            return OMPI_SUCCESS;
        }
        /* (a reduce past one line: out of lean's way, whose one-line
         * reduce was slower with the test in it) */
        if (HC_REDUCE == k && (size_t) f->count * f->dtype->super.size > HC_SHM_INLINE
            && LEAN_DONE == lean_reduce_lines(sh, ch, f, sbuf, rbuf,
                                              (size_t) f->count * f->dtype->super.size)) {
            return OMPI_SUCCESS;
        }
    }
    hc_call_t c;
    c.coll = k;
    c.mode = HC_BLOCKING;
    c.sbuf = sbuf;
    c.rbuf = rbuf;
    c.rcount = f->count;
    c.rtype = f->dtype;
    c.op = f->op;
    c.root = f->root;
    c.in_place = f->in_place;
    c.rsize = 0;
    if (NULL != f->dtype) {
        ompi_datatype_type_size(f->dtype, &c.rsize);
    }
    hc_shm_op_t o;
    if (0 == hc_shm_op_init(&o, ch, &c)) {
        return OMPI_SUCCESS;
    }
    if (LEAN_WAIT == lean_rc) { /* begun and published (op_begin's work, ph 1) */
        hc_shm_op_ring(&o); /* (hot: lean's barriers and allreduces are) */
        o.s0 = ch->hseq - 1;
        o.j = o.i = 0;
        o.ph = 1;
        o.finished = false;
        o.error = OMPI_SUCCESS;
        hc_shm_run_alone(&o, polls);
        return o.error;
    }
    return hc_shm_run_blocking_op(&o, &c);
}
