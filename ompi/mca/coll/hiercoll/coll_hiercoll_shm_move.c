/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: the moves' state machines (gather,
 * scatter, allgather(v), gatherv, scatterv; reduce_scatter(_block)'s
 * blocks).
 *
 * Messages longer than a cell are pipelined in chunks, one sequence number
 * per chunk (gatherv, scatterv: the root sends the count in its first
 * line, and the non-roots take the rest of their numbers then, run_vmove).
 */
#include "coll_hiercoll_shm_internal.h"

/* A convertor of `count` elements of `dt` at `base`, at stream position
 * `pos` (a predefined element's start: see dt_stream). */
static void dt_conv(opal_convertor_t *cv, const void *base, ompi_datatype_t *dt, size_t count,
                    size_t pos, bool send)
{
    OBJ_CONSTRUCT(cv, opal_convertor_t);
    if (send) {
        opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dt->super, count, base,
                                                 0, cv);
    } else {
        opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dt->super, count,
                                                 (void *) base, 0, cv);
    }
    if (0 != pos) {
        opal_convertor_set_position(cv, &pos);
    }
}

/* Stream bytes [lo, hi) (both predefined elements' starts) packed into
 * or unpacked from `buf`; every byte (each call moves what it can). */
static void dt_move(const void *base, ompi_datatype_t *dt, size_t count, size_t lo, size_t hi,
                    char *buf, bool pack)
{
    opal_convertor_t cv;
    dt_conv(&cv, base, dt, count, lo, pack);
    size_t done = 0;
    while (lo + done < hi) {
        struct iovec iov = {.iov_base = buf + done, .iov_len = hi - lo - done};
        uint32_t n = 1;
        size_t max = hi - lo - done;
        if (pack) {
            (void) opal_convertor_pack(&cv, &iov, &n, &max);
        } else {
            (void) opal_convertor_unpack(&cv, &iov, &n, &max);
        }
        if (0 == max) {
            break;
        }
        done += max;
    }
    OBJ_DESTRUCT(&cv);
}

/* The start of the predefined element that holds stream byte x (or x
 * itself at the end): where a sending convertor set to x stands.  A
 * fresh convertor each time: Open MPI 4.1.4's set_position of a sending
 * convertor already set back once goes on from a stack that does not
 * match its position (a vector of MPI_SHORT_INT, set to 8192, 8256, then
 * 16384: SIGFPE; hc_fuzz --case 0x0471830c4d7fdcc2 --count 152, np 2). */
static size_t dt_floor(const void *base, ompi_datatype_t *dt, size_t count, size_t x,
                       size_t total)
{
    size_t pos = x < total ? x : total;
    if (0 != pos && pos < total) {
        opal_convertor_t probe;
        dt_conv(&probe, base, dt, count, pos, true); /* (pos: where it stands) */
        pos = (size_t) probe.bConverted;
        OBJ_DESTRUCT(&probe);
    }
    return pos;
}

/* Bytes [lo, hi) of the stream (predefined elements' starts) around the
 * part [off, off + len) that is ours to move: through a bounce, the rest
 * packed from the user's buffer and written back as it was. */
static void dt_edge(const void *base, ompi_datatype_t *dt, size_t count, size_t lo, size_t hi,
                    size_t off, size_t len, char *buf, bool pack)
{
    char small[512];
    char *tmp = hi - lo <= sizeof(small) ? small : malloc(hi - lo);
    if (NULL == tmp) {
        return;
    }
    size_t a = off > lo ? off : lo, b = off + len < hi ? off + len : hi;
    dt_move(base, dt, count, lo, hi, tmp, true);
    if (pack) {
        memcpy(buf + (a - off), tmp + (a - lo), b - a);
    } else {
        memcpy(tmp + (a - lo), buf + (a - off), b - a);
        dt_move(base, dt, count, lo, hi, tmp, false);
    }
    if (tmp != small) {
        free(tmp);
    }
}

/* Bytes [off, off + len) of `count` elements of `dt` at `base`, as a
 * contiguous stream: packed into `buf`, or unpacked from it.  A chunk's
 * edges fall anywhere in the stream: inside a derived element, inside a
 * predefined one (a cell of 8 KiB is 1365 MPI_SHORT_INTs and 2 bytes of
 * the next one's int).  Open MPI's convertors neither start a pack nor
 * finish an unpack inside a predefined element, so a convertor here
 * starts and stops only at their starts: the whole elements in the
 * middle go straight, the one or two cut by an edge through a bounce
 * (dt_edge).  A predefined element is at most 32 bytes, so the element
 * after byte x starts at or before x + 32 (dt_floor of x + 64 is past x). */
void hc_shm_dt_stream(const void *base, ompi_datatype_t *dt, size_t count, size_t off, size_t len,
                      char *buf, bool pack)
{
    if (0 == len) {
        return;
    }
    if (ompi_datatype_is_contiguous_memory_layout(dt, (int32_t) count)) {
        ptrdiff_t lb, ext;
        ompi_datatype_get_true_extent(dt, &lb, &ext);
        char *p = (char *) base + lb + off;
        if (pack) {
            memcpy(buf, p, len);
        } else {
            memcpy(p, buf, len);
        }
        return;
    }
    size_t total = count * dt->super.size, end = off + len;
    size_t p = dt_floor(base, dt, count, off, total);                        /* <= off */
    size_t p2 = p == off ? off : dt_floor(base, dt, count, off + 64, total); /* > off */
    size_t q = dt_floor(base, dt, count, end, total);                        /* <= end */
    size_t r = q == end ? end : dt_floor(base, dt, count, end + 64, total);  /* > end */
    if (p2 >= q) { /* one stretch with the cut elements */
        if (p == off && r == end) {
            dt_move(base, dt, count, off, end, buf, pack);
        } else {
            dt_edge(base, dt, count, p, r, off, len, buf, pack);
        }
        return;
    }
    if (p < off) {
        dt_edge(base, dt, count, p, p2, off, len, buf, pack);
    }
    dt_move(base, dt, count, p2, q, buf + (p2 - off), pack);
    if (q < end) {
        dt_edge(base, dt, count, q, r, off, len, buf, pack);
    }
}

static ptrdiff_t extent_of(ompi_datatype_t *dt)
{
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dt, &lb, &ext);
    return ext;
}

/* Rank q's block of a movement collective as the user lays it out:
 * where (the receive side at the root, or everyone's for allgather), and
 * its bytes (what every rank agrees on). */
typedef struct { char *base; ompi_datatype_t *dt; size_t count; } hc_blk_t;

static hc_blk_t block_of(const hc_call_t *c, int q)
{
    hc_blk_t b = {NULL, c->rtype, (size_t) c->rcount};
    switch (c->coll) {
    case HC_ALLGATHERV:
        b.count = (size_t) c->rcounts[q];
        b.base = (char *) c->rbuf + (ptrdiff_t) c->rdispls[q] * extent_of(c->rtype);
        break;
    case HC_GATHERV: /* the root's receive blocks */
        b.count = (size_t) c->rcounts[q];
        b.base = (char *) c->rbuf + (ptrdiff_t) c->rdispls[q] * extent_of(c->rtype);
        break;
    case HC_SCATTER: /* the root's send blocks */
        b.dt = c->stype;
        b.count = (size_t) c->scount;
        b.base = (char *) c->sbuf + (ptrdiff_t) q * (ptrdiff_t) c->scount * extent_of(c->stype);
        break;
    case HC_SCATTERV:
        b.dt = c->stype;
        b.count = (size_t) c->scounts[q];
        b.base = (char *) c->sbuf + (ptrdiff_t) c->sdispls[q] * extent_of(c->stype);
        break;
    default: /* allgather, gather (the root's receive blocks) */
        b.base = (char *) c->rbuf + (ptrdiff_t) q * (ptrdiff_t) c->rcount * extent_of(c->rtype);
        break;
    }
    return b;
}

size_t hc_shm_block_bytes(const hc_call_t *c, int q)
{
    switch (c->coll) {
    case HC_ALLGATHERV:
        return (size_t) c->rcounts[q] * c->rsize;
    case HC_GATHER:
        return (size_t) c->scount * c->ssize; /* (an in-place root's scount is its rcount) */
    case HC_SCATTER:
        return (size_t) c->rcount * c->rsize; /* (an in-place root's rcount is its scount) */
    case HC_GATHERV: /* the root knows every block, a non-root its own */
        return q == c->rank ? (size_t) c->scount * c->ssize : (size_t) c->rcounts[q] * c->rsize;
    case HC_SCATTERV:
        return q == c->rank ? (size_t) c->rcount * c->rsize : (size_t) c->scounts[q] * c->ssize;
    default:
        return (size_t) c->rcount * c->rsize;
    }
}

static inline size_t clip(size_t total, size_t off, size_t chunk)
{
    return total <= off ? 0 : (total - off < chunk ? total - off : chunk);
}

/* This rank's own block where it needs no shared memory: allgather(v)
 * and gather(v) copy their input into their block, scatter(v)'s root its
 * block into its output (nothing in place). */
static void own_block(hc_shm_op_t *o)
{
    const hc_call_t *c = o->c;
    int me = o->ch->s->me;
    if (c->in_place) {
        return;
    }
    if (HC_SCATTER == c->coll || HC_SCATTERV == c->coll) {
        if (me == c->root) {
            hc_blk_t b = block_of(c, me);
            (void) ompi_datatype_sndrcv(b.base, (int32_t) b.count, b.dt, c->rbuf, c->rcount,
                                        c->rtype);
        }
        return;
    }
    if ((HC_GATHER == c->coll || HC_GATHERV == c->coll) && me != c->root) {
        return;
    }
    hc_blk_t b = block_of(c, me);
    (void) ompi_datatype_sndrcv(c->sbuf, c->scount, c->stype, b.base, (int32_t) b.count, b.dt);
}

/* allgather(v), gather, scatter: chunk j of every block through the
 * cells of slot (s0 + j) mod K; a block's bytes [j C, (j+1) C). */
bool hc_shm_run_move(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    const hc_call_t *c = o->c;
    int me = sh->me, n = sh->n;
    bool rooted = HC_GATHER == c->coll || HC_SCATTER == c->coll;
    bool root = rooted && me == c->root;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        uint64_t s = o->s0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * o->chunk;
        if (0 == o->ph) {
            if (0 == o->j) {
                own_block(o);
            }
            if (!slot_free(ch, s, true)) {
                return false;
            }
            if (HC_SCATTER == c->coll) {
                if (root) {
                    for (int q = 0; q < n; ++q) {
                        if (q != me) {
                            hc_blk_t b = block_of(c, q);
                            hc_shm_dt_stream(b.base, b.dt, b.count, off,
                                             clip(hc_shm_block_bytes(c, q), off, o->chunk),
                                             cell_of(ch, s, q), true);
                        }
                    }
                }
            } else if (!root) { /* allgather(v), gather's non-roots: my block */
                size_t len = clip(hc_shm_block_bytes(c, me), off, o->chunk);
                if (c->in_place) { /* allgather(v): my block is in place */
                    hc_blk_t b = block_of(c, me);
                    hc_shm_dt_stream(b.base, b.dt, b.count, off, len, cell_of(ch, s, me), true);
                } else {
                    hc_shm_dt_stream(c->sbuf, c->stype, (size_t) c->scount, off, len,
                              cell_of(ch, s, me), true);
                }
            }
            publish(o, line_of(o, s, me), FV(s, 0));
            o->ph = 1;
        }
        if (HC_SCATTER == c->coll) {
            if (!root) {
                if (!one_flag(o, line_of(o, s, c->root), FV(s, 0))) {
                    return false;
                }
                hc_shm_dt_stream(c->rbuf, c->rtype, (size_t) c->rcount, off,
                                 clip(hc_shm_block_bytes(c, me), off, o->chunk), cell_of(ch, s, me),
                                 false);
                HC_SHM_CELL_READ(o, c->root, clip(hc_shm_block_bytes(c, me), off, o->chunk));
            }
        } else if (!rooted || root) {
            if (!all_flags(o, s, FV(s, 0))) {
                return false;
            }
            for (int q = 0; q < n; ++q) {
                if (q != me) {
                    hc_blk_t b = block_of(c, q);
                    hc_shm_dt_stream(b.base, b.dt, b.count, off,
                                     clip(hc_shm_block_bytes(c, q), off, o->chunk),
                                     cell_of(ch, s, q), false);
                    HC_SHM_CELL_READ(o, q, clip(hc_shm_block_bytes(c, q), off, o->chunk));
                }
            }
        }
        finish_reading(ch, s);
    }
    return true;
}

int hc_shm_chunks_of(size_t bytes, size_t chunk)
{
    return (int) ((bytes + chunk - 1) / chunk);
}

/* A non-root of gatherv or scatterv learnt the operation's chunk count
 * from the root: it took one sequence number at begin and takes the rest
 * now, moving along those of the operations queued behind it (none of
 * which has begun: a channel runs its head only). */
static void take_chunks(hc_shm_op_t *o, int total)
{
    if (total <= o->nchunks) {
        return;
    }
    uint64_t d = (uint64_t) (total - o->nchunks);
    o->nchunks = total;
    o->ch->seq += d;
    for (hc_shm_op_t *p = o->next; NULL != p; p = p->next) {
        *(p->hot ? &p->mbase : &p->s0) += d;
    }
}

/* gatherv, scatterv: as hc_shm_run_move, but only the root knows every block.
 * The operation takes one sequence number per chunk of the largest
 * block, at least one: the root knows how many at init and writes the
 * count in the `aux` of its chunk-0 line, which every non-root reads
 * before it says it is done with that chunk (so the line cannot be
 * reused before).  A rank's block takes its first chunks; the root waits
 * for (gatherv) or fills (scatterv) the cells of the blocks that have
 * bytes in a chunk, a non-root moves its own chunks, then says it is done
 * with the last one. */
bool hc_shm_run_vmove(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    const hc_call_t *c = o->c;
    int me = sh->me, n = sh->n, root = c->root;
    bool gat = HC_GATHERV == c->coll;
    if (me == root) {
        for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
            uint64_t s = o->s0 + (uint64_t) o->j;
            size_t off = (size_t) o->j * o->chunk;
            if (0 == o->ph) {
                if (!slot_free(ch, s, !gat)) { /* (gatherv's root writes its line only) */
                    return false;
                }
                if (0 == o->j) {
                    own_block(o);
                }
                for (int q = 0; !gat && q < n; ++q) {
                    size_t len = clip(hc_shm_block_bytes(c, q), off, o->chunk);
                    if (q != me && len > 0) {
                        hc_blk_t b = block_of(c, q);
                        hc_shm_dt_stream(b.base, b.dt, b.count, off, len, cell_of(ch, s, q), true);
                    }
                }
                hc_line_t *l = line_of(o, s, me);
                l->aux = (uint64_t) o->nchunks;
                publish(o, l, FV(s, 0));
                o->ph = 1;
            }
            for (; gat && o->i < n; ++o->i) {
                size_t len = clip(hc_shm_block_bytes(c, o->i), off, o->chunk);
                if (o->i == me || 0 == len) {
                    continue;
                }
                if (!one_flag(o, line_of(o, s, o->i), FV(s, 0))) {
                    return false;
                }
                hc_blk_t b = block_of(c, o->i);
                hc_shm_dt_stream(b.base, b.dt, b.count, off, len, cell_of(ch, s, o->i), false);
                HC_SHM_CELL_READ(o, o->i, len);
            }
            o->i = 0;
            finish_reading(ch, s);
        }
        return true;
    }
    size_t mine = hc_shm_block_bytes(c, me);
    int last = hc_shm_chunks_of(mine, o->chunk);
    last = last > 1 ? last : 1; /* chunk 0 has the root's count */
    for (; o->j < last; ++o->j, o->ph = 0) {
        uint64_t s = o->s0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * o->chunk;
        size_t len = clip(mine, off, o->chunk);
        if (gat && 0 == o->ph) {
            if (len > 0) {
                if (!slot_free(ch, s, true)) {
                    return false;
                }
                hc_shm_dt_stream(c->sbuf, c->stype, (size_t) c->scount, off, len,
                                 cell_of(ch, s, me), true);
                publish(o, line_of(o, s, me), FV(s, 0));
            }
            o->ph = 1;
        }
        if (0 == o->j || !gat) {
            hc_line_t *r = line_of(o, s, root);
            if (!one_flag(o, r, FV(s, 0))) {
                return false;
            }
            if (0 == o->j) {
                take_chunks(o, (int) r->aux);
            }
            if (!gat) {
                hc_shm_dt_stream(c->rbuf, c->rtype, (size_t) c->rcount, off, len,
                                 cell_of(ch, s, me), false);
                HC_SHM_CELL_READ(o, root, len);
            }
        }
        finish_reading(ch, s);
    }
    finish_reading(ch, o->s0 + (uint64_t) o->nchunks - 1);
    return true;
}

/* reduce_scatter(_block): chunk j of every rank's whole vector through its
 * cell; each rank folds, in rank order, the part of the chunk that lies in
 * its own block straight into its output. */
bool hc_shm_run_rscat(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t k = hc_shm_chunk_of(o);
        if (!hc_shm_publish_chunk(o, &k) || !all_flags(o, k.s, FV(k.s, 0))) {
            return false;
        }
        size_t lo = k.e0 > o->mine0 ? k.e0 : o->mine0;
        size_t hi = k.e0 + k.cnt < o->mine1 ? k.e0 + k.cnt : o->mine1;
        if (lo < hi) {
            hc_shm_fold(o, k.s, lo - k.e0, hi - k.e0, o->dst + (lo - o->mine0) * o->esize,
                 o->src == o->dst ? NULL : o->src + k.e0 * o->esize);
        }
        finish_reading(ch, k.s);
    }
    return true;
}
