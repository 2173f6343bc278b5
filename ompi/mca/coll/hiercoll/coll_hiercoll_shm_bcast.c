/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: the barrier's and the bcast's state
 * machines.
 *
 * A bcast with a non-contiguous datatype packs and unpacks with the
 * convertor per chunk (ranks may use different datatypes of one
 * signature).  Single copy (CMA, from coll_hiercoll_shm_cma_min): a
 * bcast's readers read the root's buffer, and from 32 KiB the root writes
 * one n-th into each reader meanwhile.  A reader that runs behind its
 * writer prefetches the writer's next lines.
 */
#include "coll_hiercoll_shm_internal.h"

/* The bytes [off, off+len) of a bcast's message: out of the root's buffer
 * into `to`, or from `from` into a receiver's buffer. */
static void bcast_get(hc_shm_op_t *o, size_t off, size_t len, char *to)
{
    if (!o->packed) {
        memcpy(to, o->src + off, len);
    } else {
        hc_shm_dt_stream(o->ubuf, o->dt, o->ucount, off, len, to, true);
    }
}

/* (A packed message goes chunk by chunk at its place, cut only at whole
 * predefined elements, as the movements do (hc_shm_dt_stream): one
 * convertor kept from chunk to chunk packed short of a chunk's end when
 * it fell inside a predefined element (the rest of the cell stale), and
 * its unpack left such bytes unwritten: hc_fuzz --case 0x213b80f4f2b5149d
 * --comm prefix:2 --mode blocking --root 0 --count 482, an MPI_UNSIGNED
 * across the 8 KiB cell edge.) */
static void bcast_put(hc_shm_op_t *o, size_t off, size_t len, const char *from)
{
    if (!o->packed) {
        memcpy(o->dst + off, from, len);
        return;
    }
    hc_shm_dt_stream(o->ubuf, o->dt, o->ucount, off, len, (char *) from, false);
}

/* Flat: every rank writes its line and reads everyone's.  Otherwise up
 * the hierarchy (each leader reads its group's lines), the top's lines at
 * the top, and down (each rank its leader's). */
bool hc_shm_run_barrier(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    uint64_t s = o->s0;
    if (0 == o->ph) {
        if (!o->hot && !slot_free(ch, s, false)) {
            return false;
        }
        if (agrees(o)) {
            offer_freed(ch->s, line_of(o, s, ch->s->me), s);
        }
        publish(o, line_of(o, s, ch->s->me), FV(s, 0));
        o->ph = 1;
        o->lv = 0;
    }
    if (ch->s->flat) {
        if (!all_flags(o, s, FV(s, 0))) {
            return false;
        }
        if (agrees(o) && 0 != ch->s->poffered) {
            hc_shm_agree_freed(ch->s, line_of(o, s, 0));
        }
        if (!o->hot) { /* (the done lines count the channel's numbers) */
            finish_reading(ch, s);
        }
        return true;
    }
    if (1 == o->ph) {
        if (!hc_shm_up(o, s, NULL)) {
            return false;
        }
        o->ph = 2;
    }
    if (2 == o->ph) {
        if (sh->upl < 0 && !some_flags(o, s, FV(s, sh->nlv), 0, sh->ntop, 1, sh->top)) {
            return false;
        }
        o->ph = 3;
    }
    return hc_shm_down(o, s, NULL);
}

/* One verbose line per process when a write into a reader fails. */
static void push_failed(const hc_shm_t *sh, int r, int err)
{
    static bool said;
    if (!said) {
        said = true;
        mca_coll_hiercoll_log(1, "shm: %s rank %d cannot write into rank %d with "
                              "process_vm_writev: %s; the readers read those parts themselves",
                              sh->comm->c_name, sh->me, r, strerror(err));
    }
}

/* The part [lo, hi) of an m-byte bcast that the root writes into reader
 * q's buffer (q's place among the readers, of n - 1): one n-th, so that
 * the root and every reader each copy (n - 1) m / n bytes; page-aligned. */
static void push_part(size_t m, int n, int q, size_t *lo, size_t *hi)
{
    size_t part = (m / (size_t) n) & ~(size_t) 4095;
    *lo = (size_t) q * part;
    *hi = *lo + part;
}

/* From this size on the root writes parts of a CMA bcast (faster from 32
 * KiB; at 16 KiB waiting for the readers' addresses cost more than the
 * copy saved; the figures: docs/design/shm-cma.md). */
#define HC_SHM_PUSH_MIN (32 * 1024)

/* A long bcast by CMA.  The root publishes where its bytes are (its
 * buffer, or a packed copy); each reader publishes where it wants them
 * (its contiguous buffer; 0: it takes them itself, through a landing copy
 * where its datatype is not contiguous).  The root writes one n-th of the
 * message straight into every reader that asked (process_vm_writev) while
 * each reader reads the rest (process_vm_readv): two cores copy at once
 * where one did.  The root then publishes phase 1 (with a byte that says
 * whether a write failed: then the readers read those parts too) and
 * returns once every reader is done. */
static bool run_bcast_cma(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    uint64_t s = o->s0;
    int me = sh->me, root = o->root;
    hc_line_t *l = line_of(o, s, root);
    bool push = o->m >= HC_SHM_PUSH_MIN; /* (the same on every rank) */
    if (me == root) {
        if (0 == o->ph) {
            if (!slot_free(ch, s, false)) {
                return false;
            }
            const char *from = o->src;
            if (o->packed) {
                o->tmp = malloc(o->m);
                if (NULL != o->tmp) {
                    bcast_get(o, 0, o->m, o->tmp);
                }
                from = o->tmp; /* NULL: the readers fail alike */
            }
            l->aux = (uint64_t) (uintptr_t) from;
            l->data[0] = 0;
            publish(o, l, push ? FV(s, 0) : FV(s, 1)); /* (no writes: done already) */
            o->ph = push ? 1 : 2;
        }
        if (1 == o->ph) {
            for (; o->i < sh->n; ++o->i) {
                if (o->i == root) {
                    continue;
                }
                hc_line_t *r = line_of(o, s, o->i);
                if (!one_flag(o, r, FV(s, 0))) {
                    return false;
                }
                size_t lo, hi;
                push_part(o->m, sh->n, o->i - (o->i > root), &lo, &hi);
                const char *from = (const char *) (uintptr_t) l->aux;
                if (0 != r->aux && NULL != from && lo < hi) {
                    int err = hc_shm_fault("push") ? EPERM
                                                   : hc_shm_cma_write(sh->pids[o->i], r->aux + lo,
                                                                      from + lo, hi - lo);
                    if (0 != err) {
                        l->data[0] = 1; /* the readers read their parts themselves */
                        push_failed(sh, o->i, err);
                    }
                }
            }
            o->i = 0;
            publish(o, l, FV(s, 1));
            o->ph = 2;
        }
        if (!hc_shm_others_done(o, s, root)) {
            return false;
        }
        free(o->tmp);
        o->tmp = NULL;
        finish_reading(ch, s);
        return true;
    }
    size_t lo = 0, hi = 0; /* my part that the root writes (none: packed) */
    if (push && !o->packed) {
        push_part(o->m, sh->n, me - (me > root), &lo, &hi);
    }
    if (!push && 0 == o->ph) {
        o->ph = 1;
    }
    if (0 == o->ph) {
        if (!slot_free(ch, s, false)) {
            return false;
        }
        hc_line_t *mine = line_of(o, s, me);
        mine->aux = o->packed ? 0 : (uint64_t) (uintptr_t) o->dst;
        publish(o, mine, FV(s, 0));
        o->ph = 1;
    }
    if (1 == o->ph) {
        if (!one_flag(o, l, FV(s, 0))) {
            return false;
        }
        uint64_t from = l->aux;
        char *to = o->packed ? (o->tmp = malloc(o->m)) : o->dst;
        int err = 0 == from || NULL == to ? ENOMEM : hc_shm_cma_read(sh->pids[root], to, from, lo);
        if (0 == err) {
            err = hc_shm_cma_read(sh->pids[root], to + hi, from + hi, o->m - hi);
        }
        o->error = err; /* (an errno until phase 2) */
        o->ph = 2;
    }
    if (!one_flag(o, l, FV(s, 1))) {
        return false;
    }
    int err = o->error;
    if (0 == err && 0 != l->data[0] && lo < hi) {
        err = hc_shm_cma_read(sh->pids[root], o->dst + lo, l->aux + lo, hi - lo);
    }
    if (0 == err && o->packed) {
        bcast_put(o, 0, o->m, o->tmp);
    }
    o->error = OMPI_SUCCESS;
    if (0 != err) {
        mca_coll_hiercoll_show_help("single-copy-read-failed", sh->comm->c_name, sh->me, o->m,
                                    root, strerror(err));
        o->error = OMPI_ERROR;
    }
    free(o->tmp);
    o->tmp = NULL;
    finish_reading(ch, s);
    return true;
}

/* The piece a CMA bcast's rank reads at once through the hierarchy, and
 * says it has (the next level reads behind it). */
#define HC_SHM_TREE_PIECE (256 * 1024)

static int bcast_source(const hc_shm_t *sh, int root);

/* The ranks that read my buffer in a CMA bcast through the hierarchy: my
 * groups' other ranks where I lead, and the top's other ranks if I am
 * the root (the root itself reads nothing). */
static bool cma_children_done(hc_shm_op_t *o, uint64_t s)
{
    hc_shm_t *sh = o->ch->s;
    /* (my groups' ranks at every level I lead are mem[0 .. nmem)) */
    int nmem = sh->hi > 0 ? sh->mat[sh->hi - 1] + sh->mnum[sh->hi - 1] : 0;
    int ntop = sh->me == o->root ? sh->ntop : 0;
    for (; o->i < nmem + ntop; ++o->i) {
        int r = o->i < nmem ? sh->mem[o->i] : sh->top[o->i - nmem];
        if (r != sh->me && r != o->root && !one_flag(o, line_of(o, s, r), FV(s, 1))) {
            return false;
        }
    }
    o->i = 0;
    return true;
}

/* A long bcast by CMA through the hierarchy: the top's ranks read the
 * root's buffer, every other rank its leader's, piece by piece as the one
 * it reads from says it has them (a count in its line), so the pieces go
 * down every level at once; a rank that others read publishes where its
 * bytes are (its buffer, or a packed copy) and returns once they have
 * read them all (FV(s, 1) in their lines).
 * ERRORS DOWN THE LEVELS: a rank whose bytes are bad (a read that failed,
 * no buffer) says so in its line's second word, set before the count that
 * covers them is released; a reader that sees it (after the count, with
 * acquire) fails too and says so to its own readers, so every rank below
 * a failed one returns an error, never a buffer it did not get. */
static inline uint64_t *tree_have(hc_line_t *l)
{
    return (uint64_t *) l->data;
}

static inline uint64_t *tree_bad(hc_line_t *l)
{
    return (uint64_t *) l->data + 1;
}

static bool run_bcast_cma_tree(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    uint64_t s = o->s0;
    bool root = sh->me == o->root, read = sh->hi > 0 || root; /* (others read mine) */
    hc_line_t *mine = line_of(o, s, sh->me);
    uint64_t *have = tree_have(mine);
    if (0 == o->ph) {
        if (!slot_free(ch, s, false)) {
            return false;
        }
        o->tmp = NULL;
        char *buf = o->dst;
        if (o->packed) {
            buf = o->tmp = malloc(o->m);
            if (NULL == buf) {
                o->error = OMPI_ERR_OUT_OF_RESOURCE;
            } else if (root) {
                bcast_get(o, 0, o->m, buf);
            }
        }
        if (read) {
            mine->aux = (uint64_t) (uintptr_t) buf;
            __atomic_store_n(tree_bad(mine), OMPI_SUCCESS != o->error, __ATOMIC_RELAXED);
            __atomic_store_n(have, root ? (uint64_t) o->m : 0, __ATOMIC_RELAXED);
            publish(o, mine, FV(s, 0));
        }
        o->mine0 = 0; /* (bytes read so far) */
        o->ph = root ? 3 : 1;
    }
    int src = bcast_source(sh, o->root);
    hc_line_t *l = line_of(o, s, src);
    if (1 == o->ph) {
        if (!one_flag(o, l, FV(s, 0))) {
            return false;
        }
        o->ph = 2;
    }
    if (2 == o->ph) {
        char *buf = o->packed ? o->tmp : o->dst;
        const uint64_t *there = tree_have(l);
        while (o->mine0 < o->m) {
            uint64_t ready = __atomic_load_n(there, __ATOMIC_ACQUIRE);
            if (ready <= (uint64_t) o->mine0) {
                o->wait_on = there;
                o->wait_val = (uint64_t) o->mine0 + 1;
                return false;
            }
            size_t len = (size_t) ready - o->mine0;
            len = len < HC_SHM_TREE_PIECE ? len : HC_SHM_TREE_PIECE;
            int err = NULL == buf || 0 == l->aux ? ENOMEM
                      : hc_shm_fault("treeread")
                          ? EFAULT
                          : hc_shm_cma_read(sh->pids[src], buf + o->mine0,
                                            l->aux + (uint64_t) o->mine0, len);
            if (0 != err && OMPI_SUCCESS == o->error) {
                mca_coll_hiercoll_show_help("single-copy-read-failed", sh->comm->c_name,
                                            sh->me, len, src, strerror(err));
                o->error = OMPI_ERROR;
            }
            /* (the bytes up to `ready` bad at the rank I read: set before it released them) */
            if (0 != __atomic_load_n(tree_bad(l), __ATOMIC_RELAXED) && OMPI_SUCCESS == o->error) {
                mca_coll_hiercoll_log(1, "shm: %s rank %d: rank %d, whose buffer it reads in a "
                                      "bcast through the levels, failed; the bcast returns an "
                                      "error", sh->comm->c_name, sh->me, src);
                o->error = OMPI_ERROR;
            }
            o->mine0 += len;
            if (read) {
                if (OMPI_SUCCESS != o->error) { /* (before the count that covers them) */
                    __atomic_store_n(tree_bad(mine), 1, __ATOMIC_RELAXED);
                }
                __atomic_store_n(have, (uint64_t) o->mine0, __ATOMIC_RELEASE);
            }
        }
        publish(o, mine, FV(s, 1)); /* (read it all) */
        o->ph = 3;
    }
    if (3 == o->ph) {
        if (read && !cma_children_done(o, s)) {
            return false;
        }
        if (o->packed && !root && NULL != o->tmp) {
            bcast_put(o, 0, o->m, o->tmp);
        }
        free(o->tmp);
        o->tmp = NULL;
        o->ph = 4;
    }
    finish_reading(ch, s);
    return true;
}

/* The rank whose line (and cell) a bcast's rank copies from: the root at
 * the top, else its leader (a forwarder once it has copied: hc_shm_run_bcast). */
static int bcast_source(const hc_shm_t *sh, int root)
{
    return sh->upl < 0 ? root : sh->upl;
}

bool hc_shm_run_bcast(hc_shm_op_t *o)
{
    if (PATH_CMA == o->path) {
        return o->ch->s->flat ? run_bcast_cma(o) : run_bcast_cma_tree(o);
    }
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    bool root = sh->me == o->root, cells = PATH_INLINE != o->path;
    /* Through the hierarchy, chunk by chunk: the top's ranks copy from the
     * root, every other rank from its leader, and a rank that leads a
     * group below (hi > 0) copies into its own line or cell first and
     * publishes it, so the chunks go down every level at once. */
    int src = sh->flat ? o->root : bcast_source(sh, o->root);
    bool fwd = !sh->flat && !root && sh->hi > 0;
    for (; o->j < o->nchunks; ++o->j) {
        uint64_t s = o->s0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * o->chunk;
        size_t len = o->m - off < o->chunk ? o->m - off : o->chunk;
        hc_line_t *l = line_of(o, s, root ? o->root : src);
        char *buf = !cells ? (char *) l->data : cell_of(ch, s, root ? o->root : src);
        if (root) {
            if (!slot_free(ch, s, cells)) {
                return false;
            }
            bcast_get(o, off, len, buf);
            publish(o, l, FV(s, 0));
            finish_reading(ch, s);
            continue;
        }
        if ((fwd && !slot_free(ch, s, cells)) || !one_flag(o, l, FV(s, 0))) {
            return false;
        }
        if (cells) {
            HC_SHM_CELL_READ(o, src, len);
        }
        if (fwd) {
            hc_line_t *mine = line_of(o, s, sh->me);
            char *to = !cells ? (char *) mine->data : cell_of(ch, s, sh->me);
            memcpy(to, buf, len);
            publish(o, mine, FV(s, 0));
            buf = to;
        }
        bcast_put(o, off, len, buf);
        finish_reading(ch, s);
        prefetch_next(o, s + 1, src);
    }
    return true;
}
