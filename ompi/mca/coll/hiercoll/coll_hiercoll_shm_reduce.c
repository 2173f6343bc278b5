/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: the reductions' state machines (reduce,
 * allreduce; the folds of reduce_scatter's blocks).
 *
 * Reductions fold in MPI rank order (acc = x[n-1]; acc = x[i] op acc for
 * i = n-2..0), so non-commutative user ops are exact and every result is
 * bitwise the same on every rank and every run: small vectors are folded
 * by every rank (allreduce) or the root (reduce) from the published
 * copies; longer ones slice-parallel (each rank folds its slice of every
 * rank's chunk into the result cell, then everyone copies the chunk out).
 * Reductions take contiguous datatypes.  Single copy (CMA): a reduction's
 * ranks fold their slices from every input.  A fold takes its own rank's
 * part from its input, never from the line it has just published (that
 * read waits for the line's ownership).
 */
#include "coll_hiercoll_shm_internal.h"

/* Ranks first + i * stride, or list[first + i] (i < count), in order.
 * `mine`: my own contribution to the chunk (its element 0), or NULL: my
 * line or cell.  Reading back the line I have just published costs about
 * one line crossing here (its ownership is still on the way), so a fold
 * takes my part from my input where it is still intact. */
static void fold_ranks(hc_shm_op_t *o, uint64_t s, int first, int count, int stride,
                       const int *list, size_t e0, size_t e1, char *acc, const char *mine)
{
    hc_shm_chan_t *ch = o->ch;
    size_t cnt = e1 - e0, b0 = e0 * o->esize;
    if (0 == cnt) {
        return;
    }
    for (int i = count - 1; i >= 0; --i) {
        int r = NULL != list ? list[first + i] : first + i * stride;
        const char *x;
        if (NULL != mine && r == ch->s->me) {
            x = mine;
        } else if (PATH_INLINE == o->path) {
            x = (const char *) line_of(o, s, r)->data;
        } else {
            x = cell_of(ch, s, r);
            HC_SHM_CELL_READ(o, r, cnt * o->esize);
        }
        x += b0;
        if (i == count - 1) {
            memcpy(acc, x, cnt * o->esize);
        } else {
            reduce_into(o, x, acc, cnt);
        }
    }
}

void hc_shm_fold(hc_shm_op_t *o, uint64_t s, size_t e0, size_t e1, char *acc, const char *mine)
{
    fold_ranks(o, s, 0, o->ch->s->n, 1, NULL, e0, e1, acc, mine);
}

/* An inline reduction through the hierarchy (hc_shm_up, hc_shm_down):
 * every rank publishes its input; at each level a leader folds its
 * group's values (rank order: the groups are runs of ranks, so each value
 * is a run's, and the order MPI's) and publishes its subtree's in its
 * line.  A reduce's root then folds the top's values; an allreduce's top
 * ranks each fold them and release the result down the levels: into
 * their cells (another top rank may still be reading their line's value;
 * the cell's slot is free once every rank is done with s - K), below the
 * top in the lines. */
static void fold_in(hc_shm_op_t *o, uint64_t s, int k)
{
    const hc_shm_t *sh = o->ch->s;
    unsigned char acc[HC_SHM_INLINE];
    fold_ranks(o, s, sh->mat[k], sh->mnum[k], 1, sh->mem, 0, o->count, (char *) acc,
               0 == k ? o->src : (const char *) o->acc);
    memcpy(o->acc, acc, o->m);
    memcpy(line_of(o, s, sh->me)->data, acc, o->m);
}

static void result_out(hc_shm_op_t *o, uint64_t s, int from)
{
    const hc_shm_t *sh = o->ch->s;
    /* (my leader at the top, a leader at the last level: its cell) */
    if (sh->up[(size_t) (sh->nlv - 1) * (size_t) sh->n + (size_t) from] == from) {
        memcpy(o->dst, cell_of(o->ch, s, from), o->m);
        HC_SHM_CELL_READ(o, from, o->m);
    } else {
        memcpy(o->dst, line_of(o, s, from)->data, o->m);
    }
    if (sh->hi > 0) {
        memcpy(line_of(o, s, sh->me)->data, o->dst, o->m);
    }
}

bool hc_shm_run_fold_grouped(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    uint64_t s = o->s0;
    bool top = sh->upl < 0, all = HC_ALLREDUCE == o->coll;
    if (0 == o->ph) {
        /* (a top rank's cell takes an allreduce's result) */
        if (!slot_free(ch, s, all && top && sh->nlv > 0)) {
            return false;
        }
        hc_line_t *l = line_of(o, s, sh->me);
        memcpy(l->data, o->src, o->m);
        if (0 == sh->hi) {
            memcpy(o->acc, o->src, o->m);
        }
        publish(o, l, FV(s, 0));
        o->ph = 1;
        o->lv = 0;
    }
    if (1 == o->ph) {
        if (!hc_shm_up(o, s, fold_in)) {
            return false;
        }
        o->ph = 2;
    }
    /* the top's values: every top rank's (allreduce), the root's (reduce) */
    if (2 == o->ph && (all ? top : sh->me == o->root)) {
        if (!some_flags(o, s, FV(s, sh->nlv), 0, sh->ntop, 1, sh->top)) {
            return false;
        }
        o->ph = 3;
    }
    if (!all) { /* reduce: the root folds the top's values */
        if (sh->me == o->root) {
            fold_ranks(o, s, 0, sh->ntop, 1, sh->top, 0, o->count, o->dst,
                       top ? (const char *) o->acc : NULL);
            all_begun(ch, s);
        }
        finish_reading(ch, s);
        return true;
    }
    if (top && 3 == o->ph) {
        unsigned char res[HC_SHM_INLINE];
        fold_ranks(o, s, 0, sh->ntop, 1, sh->top, 0, o->count, (char *) res,
                   (const char *) o->acc);
        memcpy(o->dst, res, o->m);
        if (sh->nlv > 0) {
            memcpy(cell_of(ch, s, sh->me), res, o->m);
        }
        o->ph = 4;
    }
    return hc_shm_down(o, s, top ? NULL : result_out);
}

hc_chunk_t hc_shm_chunk_of(const hc_shm_op_t *o)
{
    size_t per = o->chunk / o->esize;
    hc_chunk_t k;
    k.s = o->s0 + (uint64_t) o->j;
    k.e0 = (size_t) o->j * per;
    k.cnt = o->count - k.e0 < per ? o->count - k.e0 : per;
    return k;
}

/* A reduction in cells through the hierarchy (PATH_TREE: not flat,
 * longer than the line, short of single copy), chunk by chunk, each
 * chunk its own sequence number: as in the line (hc_shm_run_fold_grouped),
 * with each rank's chunk, and its subtree's fold, in its cell.  An
 * allreduce's top ranks fold the top's cells, say so (FV(s, nlv + 1)),
 * and once every top rank has, take the result into their cells and
 * release it (FV(s, nlv + 2)); below the top, a leader's cell takes the
 * result once its leader has released (it read the leader's fold first).
 * A chunk's way up one rank overlaps the next chunk's at the levels
 * below.
 * ERRORS UP AND DOWN: a rank that could not fold (no scratch) says so in
 * its line's aux (tree_bad: set before each phase it publishes, never
 * cleared within the operation); whoever reads its line or cell after
 * that phase fails too and says so in its own: up to the top, across it
 * (every top rank reads every other's), down to every rank of an
 * allreduce; a reduce's root. */
static inline void tree_bad(hc_shm_op_t *o, uint64_t s, int r)
{
    if (0 != __atomic_load_n(&line_of(o, s, r)->aux, __ATOMIC_RELAXED)
        && OMPI_SUCCESS == o->error) {
        const hc_shm_t *sh = o->ch->s;
        mca_coll_hiercoll_log(1, "shm: %s rank %d: rank %d failed in a %s through the levels; "
                              "the call returns an error", sh->comm->c_name, sh->me, r,
                              HC_ALLREDUCE == o->coll ? "allreduce" : "reduce");
        o->error = OMPI_ERROR;
    }
}

static inline void tree_say(hc_shm_op_t *o, uint64_t s)
{
    __atomic_store_n(&line_of(o, s, o->ch->s->me)->aux, OMPI_SUCCESS != o->error,
                     __ATOMIC_RELAXED);
}

static void tree_in(hc_shm_op_t *o, uint64_t s, int k)
{
    const hc_shm_t *sh = o->ch->s;
    hc_chunk_t kk = hc_shm_chunk_of(o);
    const char *mine = 0 == k ? o->src + kk.e0 * o->esize : cell_of(o->ch, s, sh->me);
    for (int i = 1; i < sh->mnum[k]; ++i) {
        tree_bad(o, s, sh->mem[sh->mat[k] + i]);
    }
    if (NULL != o->tmp) {
        fold_ranks(o, s, sh->mat[k], sh->mnum[k], 1, sh->mem, 0, kk.cnt, o->tmp, mine);
        memcpy(cell_of(o->ch, s, sh->me), o->tmp, kk.cnt * o->esize);
    }
    tree_say(o, s); /* (hc_shm_up publishes FV(s, k + 1) next) */
}

static void tree_out(hc_shm_op_t *o, uint64_t s, int from)
{
    const hc_shm_t *sh = o->ch->s;
    hc_chunk_t kk = hc_shm_chunk_of(o);
    size_t len = kk.cnt * o->esize;
    char *out = o->dst + kk.e0 * o->esize;
    tree_bad(o, s, from);
    memcpy(out, cell_of(o->ch, s, from), len);
    HC_SHM_CELL_READ(o, from, len);
    if (sh->hi > 0) {
        memcpy(cell_of(o->ch, s, sh->me), out, len);
        tree_say(o, s); /* (hc_shm_down_at releases next) */
    }
}

/* The top's ranks' lines of chunk s read (FV(s, nlv)): their failures. */
static void tree_top_bad(hc_shm_op_t *o, uint64_t s)
{
    const hc_shm_t *sh = o->ch->s;
    for (int i = 0; i < sh->ntop; ++i) {
        if (sh->top[i] != sh->me) {
            tree_bad(o, s, sh->top[i]);
        }
    }
}

bool hc_shm_run_tree(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    bool top = sh->upl < 0, all = HC_ALLREDUCE == o->coll, root = sh->me == o->root;
    if (NULL == o->tmp && 0 == o->j && 0 == o->ph && (sh->hi > 0 || top)) {
        /* (a leader folds its groups into it; a top rank the top, where
         * it may fold straight into its output unless that is its input) */
        o->tmp = hc_shm_fault("treefold") ? NULL : malloc(o->chunk);
        if (NULL == o->tmp && (sh->hi > 0 || o->src == o->dst)) {
            mca_coll_hiercoll_log(1, "shm: %s rank %d: no scratch of %zu bytes for a %s through "
                                  "the levels; the call returns an error (%s)", sh->comm->c_name,
                                  sh->me, o->chunk, all ? "allreduce" : "reduce",
                                  all ? "on every rank" : "here and at the root");
            o->error = OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t kk = hc_shm_chunk_of(o);
        uint64_t s = kk.s;
        size_t len = kk.cnt * o->esize;
        if (0 == o->ph) {
            if (!slot_free(ch, s, true)) {
                return false;
            }
            if (0 == sh->hi) { /* (a leader's own chunk goes into its fold) */
                memcpy(cell_of(ch, s, sh->me), o->src + kk.e0 * o->esize, len);
            }
            tree_say(o, s);
            publish(o, line_of(o, s, sh->me), FV(s, 0));
            o->ph = 1;
            o->lv = 0;
        }
        if (1 == o->ph) {
            if (!hc_shm_up(o, s, tree_in)) {
                return false;
            }
            o->ph = 2;
        }
        if (!all) { /* reduce: the root folds the top's cells */
            if (root) {
                if (!some_flags(o, s, FV(s, sh->nlv), 0, sh->ntop, 1, sh->top)) {
                    return false;
                }
                tree_top_bad(o, s);
                fold_ranks(o, s, 0, sh->ntop, 1, sh->top, 0, kk.cnt, o->dst + kk.e0 * o->esize,
                           top && 0 == sh->hi ? o->src + kk.e0 * o->esize : NULL);
                all_begun(ch, s);
            }
            finish_reading(ch, s);
            continue;
        }
        if (top && 2 == o->ph) {
            if (!some_flags(o, s, FV(s, sh->nlv), 0, sh->ntop, 1, sh->top)) {
                return false;
            }
            tree_top_bad(o, s);
            char *out = o->dst + kk.e0 * o->esize;
            fold_ranks(o, s, 0, sh->ntop, 1, sh->top, 0, kk.cnt, NULL != o->tmp ? o->tmp : out,
                       0 == sh->hi ? o->src + kk.e0 * o->esize : NULL);
            if (NULL != o->tmp) {
                memcpy(out, o->tmp, len);
            }
            if (0 == sh->nlv) { /* (nobody below) */
                all_begun(ch, s);
                finish_reading(ch, s);
                continue;
            }
            tree_say(o, s); /* (what every top rank then reads; my members at the release) */
            publish(o, line_of(o, s, sh->me), FV(s, sh->nlv + 1));
            o->ph = 3;
        }
        if (top && 3 == o->ph) {
            /* (every top rank has read my cell's fold: it may take the result) */
            if (!some_flags(o, s, FV(s, sh->nlv + 1), 0, sh->ntop, 1, sh->top)) {
                return false;
            }
            memcpy(cell_of(ch, s, sh->me), o->dst + kk.e0 * o->esize, len);
            o->ph = 4;
        }
        if (!hc_shm_down_at(o, s, top ? NULL : tree_out, FV(s, sh->nlv + 2))) {
            return false;
        }
    }
    free(o->tmp);
    o->tmp = NULL;
    return true;
}

/* My contribution to chunk k where a fold into [acc, acc + the chunk) may
 * read it: my input, unless the call is in place (the fold overwrites it
 * first); then a copy in `tmp` for an inline chunk, else NULL (my cell). */
static const char *mine_of(const hc_shm_op_t *o, const hc_chunk_t *k, void *tmp)
{
    const char *x = o->src + k->e0 * o->esize;
    if (o->src != o->dst) {
        return x;
    }
    if (PATH_INLINE != o->path) {
        return NULL;
    }
    memcpy(tmp, x, k->cnt * o->esize);
    return tmp;
}

/* Phase 0 of a reduction's chunk: once its slot is free, my elements of
 * it into my line (inline) or my cell, published.  False: not yet. */
bool hc_shm_publish_chunk(hc_shm_op_t *o, const hc_chunk_t *k)
{
    if (0 != o->ph) {
        return true;
    }
    hc_shm_chan_t *ch = o->ch;
    int me = ch->s->me;
    if (!o->hot && !slot_free(ch, k->s, PATH_INLINE != o->path)) {
        return false;
    }
    hc_line_t *l = line_of(o, k->s, me);
    char *to = PATH_INLINE == o->path ? (char *) l->data : cell_of(ch, k->s, me);
    memcpy(to, o->src + k->e0 * o->esize, k->cnt * o->esize);
    if (ch->s->demote && HC_ALLREDUCE == o->coll && PATH_INLINE != o->path
        && k->cnt * o->esize <= HC_SHM_DEMOTE_MAX) {
        demote(to, k->cnt * o->esize);
    }
    if (agrees(o)) {
        offer_freed(ch->s, l, k->s);
    }
    publish(o, l, FV(k->s, 0));
    o->ph = 1;
    return true;
}

/* Reductions folded whole: every rank publishes its vector chunk by chunk
 * (inline or a cell); every rank (allreduce) or the root (reduce) folds
 * each chunk of all of them straight into its output. */
bool hc_shm_run_fold(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    int me = ch->s->me;
    bool folds = HC_ALLREDUCE == o->coll || me == o->root;
    /* a reduce's root publishes nothing where it folds from its input:
     * nobody else reads its chunk */
    bool silent = HC_REDUCE == o->coll && folds
                  && (o->src != o->dst || PATH_INLINE == o->path);
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t k = hc_shm_chunk_of(o);
        if (!silent && !hc_shm_publish_chunk(o, &k)) {
            return false;
        }
        if (folds) {
            if (!all_flags(o, k.s, FV(k.s, 0))) {
                return false;
            }
            if (agrees(o) && 0 != ch->s->poffered) {
                hc_shm_agree_freed(ch->s, line_of(o, k.s, 0));
            }
            uint64_t tmp[HC_SHM_INLINE / 8 + 1];
            hc_shm_fold(o, k.s, 0, k.cnt, o->dst + k.e0 * o->esize, mine_of(o, &k, tmp));
        }
        if (!o->hot) {
            finish_reading(ch, k.s);
        }
        if (silent) {
            /* the root runs behind its members: their next lines now (of
             * a next call like this one) */
            for (int r = 0; r < ch->s->n && r < 8; ++r) {
                if (r == me) {
                    continue;
                }
                prefetch_next(o, k.s + 1, r);
            }
        }
    }
    return true;
}

#define HC_SHM_PIECE (128 * 1024)

/* Rank r's slice [lo, hi) of `total` elements of esize bytes split over
 * n ranks: whole elements, 64 bytes apart where the size allows. */
static void slice_of(size_t total, size_t esize, int n, int r, size_t *lo, size_t *hi)
{
    size_t q = (total + (size_t) n - 1) / (size_t) n;
    size_t al = esize < 64 && 0 == 64 % esize ? 64 / esize : 1;
    q = (q + al - 1) / al * al;
    *lo = (size_t) r * q < total ? (size_t) r * q : total;
    *hi = *lo + q < total ? *lo + q : total;
}

static void red_slice(const hc_shm_op_t *o, int r, size_t *lo, size_t *hi)
{
    slice_of(o->count, o->esize, o->ch->s->n, r, lo, hi);
}

/* Where rank r's input of CMA reduction s is (the first word of the data
 * of its flag line). */
static uint64_t input_of(const hc_shm_op_t *o, uint64_t s, int r)
{
    uint64_t at;
    memcpy(&at, line_of(o, s, r)->data, sizeof(at));
    return at;
}

/* One piece of a CMA reduction: elements [a, a + cnt) of every rank's
 * input folded in rank order into acc, the first step read straight into
 * it, my own part from my input (copied first where acc is my input, in
 * place), and the last rank under a predefined commutative op starting
 * from the rank before it read into acc (x[n-1] op x[n-2] has the bits of
 * x[n-2] op x[n-1], and a copy is saved).  *reads counts the reads from
 * other ranks; when it reaches `total` their inputs are no longer needed,
 * and a reduce's root lets them go (finish_reading) before its last fold. */
static void cma_piece(hc_shm_op_t *o, uint64_t s, size_t a, size_t cnt, char *acc, size_t *reads,
                      size_t total)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    int me = sh->me, n = sh->n;
    size_t len = cnt * o->esize, off = a * o->esize;
    const char *mine = o->src + off;
    if (mine == acc && me != n - 1) { /* in place: the first step overwrites it */
        memcpy(o->scratch + HC_SHM_PIECE, mine, len);
        mine = o->scratch + HC_SHM_PIECE;
    }
    bool swap = me == n - 1 && n > 1 && mine != acc && ompi_op_is_intrinsic(o->op)
                && ompi_op_is_commute(o->op);
    for (int r = n - 1; r >= 0; --r) {
        if (swap && r == n - 2) {
            continue; /* (read first, below) */
        }
        const char *x = mine;
        int from = swap && r == n - 1 ? n - 2 : r;
        if (from != me) {
            char *to = r == n - 1 ? acc : o->scratch;
            if (hc_shm_fault("cmaslice")
                || 0 != hc_shm_cma_read(sh->pids[from], to, input_of(o, s, from) + off, len)) {
                o->error = OMPI_ERROR;
            }
            if (++*reads == total) {
                finish_reading(ch, s);
            }
            x = to;
        }
        if (r == n - 1 && x != acc) {
            memcpy(acc, x, len);
        }
        if (swap && r == n - 1) {
            x = mine;
        } else if (r == n - 1) {
            continue;
        }
        op_apply(o->op, o->dt, x, acc, cnt);
    }
}

/* Long reductions by CMA: one copy of each input, no cells.  Every rank
 * publishes where its input and its slice's result are; folds its slice
 * of every rank's input (rank order, a piece at a time, reading the others
 * with process_vm_readv) into its result; then every rank (allreduce) or
 * the root (reduce) reads the other slices' results; nobody returns while
 * another may still read its memory.  A rank whose slice is bad (a read
 * failed, no memory) says so in its line's third word before it says its
 * slice is done (FV(s, 1)); whoever reads that slice fails too. */
static inline uint64_t *slice_bad(hc_line_t *l)
{
    return (uint64_t *) l->data + 2;
}

bool hc_shm_run_red_cma(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    int me = sh->me, n = sh->n;
    uint64_t s = o->s0;
    bool all = HC_ALLREDUCE == o->coll, root = me == o->root;
    size_t lo, hi;
    red_slice(o, me, &lo, &hi);
    if (0 == o->ph) {
        if (!slot_free(ch, s, false)) {
            return false;
        }
        /* my slice's result: in my output, or (a reduce's non-root) a buffer */
        char *res = all || root ? o->dst + lo * o->esize : NULL;
        if (NULL == res && hi > lo) {
            res = o->tmp = malloc((hi - lo) * o->esize);
        }
        o->scratch = malloc(2 * HC_SHM_PIECE);
        hc_line_t *l = line_of(o, s, me);
        uint64_t where[2] = {(uintptr_t) o->src, (uintptr_t) res};
        memcpy(l->data, where, sizeof(where));
        publish(o, l, FV(s, 0));
        o->ph = 1;
    }
    if (1 == o->ph) {
        if (!all_flags(o, s, FV(s, 0))) {
            return false;
        }
        uint64_t where[2];
        memcpy(where, line_of(o, s, me)->data, sizeof(where));
        char *res = (char *) (uintptr_t) where[1];
        size_t per = HC_SHM_PIECE / o->esize;
        size_t reads = 0;
        for (size_t a = lo; a < hi && NULL != o->scratch && NULL != res; a += per) {
            size_t cnt = hi - a < per ? hi - a : per;
            cma_piece(o, s, a, cnt, res + (a - lo) * o->esize, &reads, SIZE_MAX);
        }
        if (NULL == o->scratch || (NULL == res && hi > lo)) {
            o->error = OMPI_ERR_OUT_OF_RESOURCE;
        }
        *slice_bad(line_of(o, s, me)) = OMPI_SUCCESS != o->error;
        publish(o, line_of(o, s, me), FV(s, 1));
        o->ph = 2;
    }
    if (2 == o->ph) {
        if (all || root) {
            if (!all_flags(o, s, FV(s, 1))) {
                return false;
            }
            for (int r = 0; r < n; ++r) {
                size_t rlo, rhi;
                red_slice(o, r, &rlo, &rhi);
                if (r == me || rhi == rlo) {
                    continue;
                }
                uint64_t where[2];
                memcpy(where, line_of(o, s, r)->data, sizeof(where));
                if (0 != hc_shm_cma_read(sh->pids[r], o->dst + rlo * o->esize, where[1],
                                  (rhi - rlo) * o->esize)) {
                    o->error = OMPI_ERROR;
                }
                if (0 != *slice_bad(line_of(o, s, r)) && OMPI_SUCCESS == o->error) {
                    mca_coll_hiercoll_log(1, "shm: %s rank %d: rank %d's slice of a single-copy "
                                          "%s failed; the call returns an error",
                                          sh->comm->c_name, me, r, all ? "allreduce" : "reduce");
                    o->error = OMPI_ERROR;
                }
            }
        }
        finish_reading(ch, s);
        o->ph = 3;
    }
    /* who may still read my memory: everyone (allreduce), the root (a
     * reduce's non-roots); a reduce's root saw everyone's slice done */
    if (all ? !hc_shm_others_done(o, s, me) : !root && !hc_shm_one_done(o, s, o->root)) {
        return false;
    }
    if (o->error != OMPI_SUCCESS) {
        mca_coll_hiercoll_show_help("single-copy-reduction-failed", sh->comm->c_name, me,
                                    all ? "allreduce" : "reduce", o->m);
    }
    free(o->tmp);
    free(o->scratch);
    o->tmp = o->scratch = NULL;
    return true;
}

/* A long reduction on few ranks by CMA, folded whole: every rank that
 * others read publishes where its input is; the root (reduce) or every
 * rank (allreduce) folds piece by piece in rank order, reading each other
 * input straight from its owner (the first step straight into its
 * output), then says so on its done line; nobody returns while another
 * may still read its input.  Per call a folding rank copies each other
 * input once, a reduce's non-roots nothing: the pattern of the layer
 * below's linear reduce with single copy, without its messages.  At np 2
 * it beats the cells and the slice-parallel folds up to HC_SHM_ROOT_MAX,
 * where the slices win (docs/design/shm-cma.md). */
static void red_root_pieces(hc_shm_op_t *o);

bool hc_shm_run_red_root_cma(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    int me = sh->me, n = sh->n;
    uint64_t s = o->s0;
    bool all = HC_ALLREDUCE == o->coll, folds = all || me == o->root;
    if (0 == o->ph) {
        /* (a reduce's root publishes nothing: nobody reads its input) */
        if (all || !folds) {
            if (!slot_free(ch, s, false)) {
                return false;
            }
            hc_line_t *l = line_of(o, s, me);
            uint64_t at = (uintptr_t) o->src;
            memcpy(l->data, &at, sizeof(at)); /* (input_of) */
            publish(o, l, FV(s, 0));
        }
        o->ph = 1;
    }
    if (!folds) {
        if (!hc_shm_one_done(o, s, o->root)) {
            return false;
        }
        finish_reading(ch, s);
        return true;
    }
    bool commute = ompi_op_is_intrinsic(o->op) && ompi_op_is_commute(o->op);
    if (1 == o->ph) {
        if (!all_flags(o, s, FV(s, 0))) {
            return false;
        }
        bool in_place = o->src == o->dst;
        if (2 == n && (in_place ? all : (0 == me || commute))) {
            /* two ranks: the other input read whole, straight into the
             * output (an allreduce in place: into a buffer, as the other
             * still reads mine), the other rank released, then one fold:
             * x0 op x1, or x1 op x0 under a predefined commutative op (the
             * same bits); in place once the other has read mine (below) */
            char *to = in_place ? (o->tmp = malloc(o->m)) : o->dst;
            if (NULL == to
                || 0 != hc_shm_cma_read(sh->pids[1 - me], to, input_of(o, s, 1 - me), o->m)) {
                o->error = OMPI_ERROR;
            }
            finish_reading(ch, s);
            if (!in_place) {
                op_apply(o->op, o->dt, o->src, o->dst, o->count);
            }
        } else {
            red_root_pieces(o);
        }
        o->ph = 2;
    }
    /* an allreduce's input may still be read by the others */
    if (all && !hc_shm_others_done(o, s, me)) {
        return false;
    }
    if (NULL != o->tmp) {
        if (1 == me || commute) { /* x0 op x1 into x1; x1 op x0 (the same bits) */
            op_apply(o->op, o->dt, o->tmp, o->dst, o->count);
        } else { /* x0 op x1, then over x0 */
            op_apply(o->op, o->dt, o->dst, o->tmp, o->count);
            memcpy(o->dst, o->tmp, o->m);
        }
        free(o->tmp);
        o->tmp = NULL;
    }
    if (o->error != OMPI_SUCCESS) {
        mca_coll_hiercoll_show_help("single-copy-reduction-failed", sh->comm->c_name, me,
                                    all ? "allreduce" : "reduce", o->m);
    }
    return true;
}

/* The root's folds of hc_shm_run_red_root_cma, a piece at a time. */
static void red_root_pieces(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    int n = ch->s->n;
    uint64_t s = o->s0;
    o->scratch = malloc(2 * HC_SHM_PIECE);
    size_t per = HC_SHM_PIECE / o->esize;
    /* the non-roots may go once their inputs are read: before the last
     * fold, which then overlaps their next call */
    size_t reads = 0, total = (o->count + per - 1) / per * (size_t) (n - 1);
    for (size_t a = 0; a < o->count && NULL != o->scratch; a += per) {
        size_t cnt = o->count - a < per ? o->count - a : per;
        cma_piece(o, s, a, cnt, o->dst + a * o->esize, &reads, total);
    }
    if (NULL == o->scratch) {
        o->error = OMPI_ERR_OUT_OF_RESOURCE;
    }
    free(o->scratch);
    o->scratch = NULL;
    finish_reading(ch, s); /* (again, or the first time without scratch) */
}

/* Longer reductions, chunk by chunk: publish the chunk in a cell; fold my
 * slice of every rank's chunk into the result cell; copy the chunk out. */
bool hc_shm_run_slice(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t k = hc_shm_chunk_of(o);
        if (!hc_shm_publish_chunk(o, &k)) {
            return false;
        }
        if (1 == o->ph) {
            if (!all_flags(o, k.s, FV(k.s, 0))) {
                return false;
            }
            size_t lo, hi;
            slice_of(k.cnt, o->esize, sh->n, sh->me, &lo, &hi);
            hc_shm_fold(o, k.s, lo, hi, res_of(ch, k.s) + lo * o->esize, o->src + k.e0 * o->esize);
            publish(o, line_of(o, k.s, sh->me), FV(k.s, 1));
            o->ph = 2;
        }
        if (HC_REDUCE == o->coll && sh->me != o->root) {
            finish_reading(ch, k.s);
            continue;
        }
        if (!all_flags(o, k.s, FV(k.s, 1))) {
            return false;
        }
        memcpy(o->dst + k.e0 * o->esize, res_of(ch, k.s), k.cnt * o->esize);
        for (int q = 0; OPAL_UNLIKELY(NULL != sh->st) && q < sh->n; ++q) {
            size_t lo, hi; /* (rank q folded slice q of the result cell) */
            slice_of(k.cnt, o->esize, sh->n, q, &lo, &hi);
            HC_SHM_CELL_READ(o, q, (hi - lo) * o->esize);
        }
        finish_reading(ch, k.s);
    }
    return true;
}
