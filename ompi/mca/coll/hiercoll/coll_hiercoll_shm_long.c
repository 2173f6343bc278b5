/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: long messages through the levels' cells
 * (coll_hiercoll_shm_long; the design, the model that chose it and its
 * counts: docs/design/shm-long.md).
 *
 * LONG CELLS.  At a communicator's first blocking call that takes them
 * (collective, agreed like the region's set-up), every process carves
 * an AREA from its own arena: a header (a region's, so that its arena
 * takes it back once every process has left it), a done line and K slots
 * (coll_hiercoll_shm_long_slots), each a control line, a cell of C bytes
 * (coll_hiercoll_shm_long_chunk) and one part per digit of the hierarchy
 * (below).  Every process maps every other's arena (once per process
 * pair, as a region's owner's).  A long call is one operation of channel
 * 0 (one sequence number, in order with the others) that moves its message
 * in chunks of C bytes numbered per communicator (lg->next), chunk c in
 * slot c mod K of every area: a writer waits before it reuses a slot until
 * each process that reads its area (ITS READERS: its groups' members, the
 * top's ranks, its partners of the reduce-scatter) says on its done line
 * that it has finished chunk c - K.  Control words are single-writer,
 * stored with release, read with acquire and compared with >= (CW).  No
 * user buffer is read by another process: a process returns once it has
 * its own result, without waiting for its readers (no system call; a
 * bcast's root returns once its last chunk is in its cell).
 *
 * BCAST: down the hierarchy, every chunk at every level at once.  The root
 * copies a chunk into its cell; a top rank copies it from the root's cell,
 * every other rank from its leader's; a rank that leads a group below copies
 * it into its own cell first (then into its buffer), so its members read
 * it there.  A flat region: every rank from the root's cell.
 *
 * REDUCE, ALLREDUCE: a reduce-scatter through the levels, then an
 * allgather back (the hierarchy regular: every group of a level of the same
 * size, every level's runs the same; the flat region is one level).  Rank
 * r has digits d_0 .. d_{D-1} (its place in its group at each level, the
 * top last; r = sum d_k stride_k).  A chunk of cnt elements is cut in n
 * slices (slice_of); rank r's part at digit k, P_k(r), is the run of
 * n / stride_{k+1} slices from sum_{i <= k} d_i n / stride_{i+1} (P_{-1}:
 * the chunk; P_{D-1}: one slice).  Step 0: every rank copies its input
 * chunk into its cell.  RS_k: r folds P_k(r) of its level-k group's members'
 * P_{k-1} (the cells at k = 0, area k - 1 after; they differ from r in
 * digit k only, so their P_{k-1} is r's) in MPI rank order, x_{m-1} first,
 * x_j op acc down to j = 0, into its area k.  After RS_{D-1} each slice is
 * folded over every rank, by groups of groups: the association of the
 * levels' other algorithms, the same on every rank and in every run, and
 * rank order for non-commutative ops.  AG_k, k = D-1 .. 0: r copies its
 * group's members' final P_k into its area k - 1 (at k = 0, its output),
 * which then holds the final P_{k-1}(r).  A reduce's rank takes part in
 * AG_k only where its digits from k up are the root's (at AG_0, the root
 * alone).  Per rank and chunk: C in, about C (1 + 1/m_0 + ...) folded,
 * about C out; each buffer read by at most a group's size - 1.
 */
#include "coll_hiercoll_shm_internal.h"

#define HC_LONG_MAGIC 0x68635f6c6f6e6731ull /* "hc_long1" */
#define HC_LONG_ESIZE 64                    /* the largest element a reduction folds here */
#define HC_LONG_MAXD (HC_SHM_MAXLV + 1)     /* digits: the levels and the top */
#define CW(c, ph) ((uint64_t) (c) << 5 | (uint64_t) (ph))

/* The control line of a slot: words written by its owner. */
enum {
    W_RS,  /* CW(c, 0): chunk c in the cell; CW(c, 1 + k): area k holds RS_k's fold */
    W_AG,  /* CW(c, D - k): area k holds the final P_k (k < D - 1) */
    W_REG, /* (coll_hiercoll_stats) readers of the cell, then of area k at W_REG + 1 + k */
};

struct hc_shm_long {
    int state; /* HC_SHM_UNSET, _READY, _FAILED */
    size_t chunk;          /* C */
    int k;                 /* slots */
    size_t cellb;          /* the cell's bytes in a slot (C, in lines) */
    size_t aoff[HC_LONG_MAXD]; /* area k's offset in a slot, after the control line and cell */
    size_t slot, len, off; /* a slot's bytes; my area's bytes and offset in my arena */
    char **at;   /* [n] every rank's area as mapped here */
    char **map;  /* [n] the mapping it is in (hc_shm_unmap_peer) */
    uint64_t next;    /* the next chunk's number (from 1) */
    uint64_t free_to; /* my slots are free for chunks up to this */
    int *rd, nrd;     /* my readers */
    bool lanes;       /* reductions: the hierarchy is regular (or flat) */
    int nd;           /* digits */
    int rad[HC_LONG_MAXD], dig[HC_LONG_MAXD], stride[HC_LONG_MAXD + 1];
};

static inline char *area_of(const hc_shm_long_t *lg, int r)
{
    return lg->at[r];
}

static inline uint64_t *done_of(const hc_shm_long_t *lg, int r)
{
    return (uint64_t *) (area_of(lg, r) + sizeof(hc_shm_hdr_t));
}

static inline uint64_t *ctl_of(const hc_shm_long_t *lg, int r, uint64_t c)
{
    return (uint64_t *) (area_of(lg, r) + sizeof(hc_shm_hdr_t) + HC_SHM_LINE
                         + (size_t) (c % (uint64_t) lg->k) * lg->slot);
}

static inline char *cell_at(const hc_shm_long_t *lg, int r, uint64_t c)
{
    return (char *) ctl_of(lg, r, c) + HC_SHM_LINE;
}

static inline char *part_at(const hc_shm_long_t *lg, int r, uint64_t c, int k)
{
    return cell_at(lg, r, c) + lg->cellb + lg->aoff[k];
}

/* ------------------------------------------------------------------ */
/* The hierarchy's digits                                               */
/* ------------------------------------------------------------------ */

/* The ranks and radices of a regular hierarchy (every group of a level
 * the same size, consecutive: r = sum d_k stride_k); a flat region is one
 * digit of n.  False: not regular (the bcast still runs; the reductions
 * take the other paths). */
static bool digits_of(const hc_shm_t *sh, hc_shm_long_t *lg)
{
    int n = sh->n;
    lg->stride[0] = 1;
    if (sh->flat) {
        lg->nd = 1;
        lg->rad[0] = n;
        lg->stride[1] = n;
        lg->dig[0] = sh->me;
        return true;
    }
    lg->nd = sh->nlv + 1;
    for (int k = 0; k < sh->nlv; ++k) {
        const int *u = sh->up + (size_t) k * (size_t) n;
        int m = 0;
        for (int r = 0; r < n; ++r) {
            m += 0 == u[r];
        }
        lg->rad[k] = m;
        lg->stride[k + 1] = lg->stride[k] * m;
    }
    lg->rad[sh->nlv] = sh->ntop;
    lg->stride[lg->nd] = lg->stride[sh->nlv] * sh->ntop;
    if (lg->stride[lg->nd] != n) {
        return false;
    }
    /* every level's ranks are the multiples of its stride, each led by the
     * multiple of the next stride below it; the top's, those of the last */
    for (int k = 0; k < sh->nlv; ++k) {
        const int *u = sh->up + (size_t) k * (size_t) n;
        for (int r = 0; r < n; ++r) {
            int want = 0 == r % lg->stride[k] ? r - r % lg->stride[k + 1] : -1;
            if (lg->rad[k] < 2 || u[r] != want) {
                return false;
            }
        }
    }
    for (int i = 0; i < sh->ntop; ++i) {
        if (sh->top[i] != i * lg->stride[sh->nlv]) {
            return false;
        }
    }
    for (int k = 0; k < lg->nd; ++k) {
        lg->dig[k] = sh->me / lg->stride[k] % lg->rad[k];
    }
    return true;
}

/* Rank r's leader, whose cell a bcast's r reads (the top's ranks read the
 * root's; flat: the root). */
static int bcast_src(const hc_shm_t *sh, int r, int root)
{
    if (sh->flat) {
        return root;
    }
    for (int k = 0; k < sh->nlv; ++k) {
        int u = sh->up[(size_t) k * (size_t) sh->n + (size_t) r];
        if (u != r) {
            return u; /* (a member at level k: its leader there) */
        }
    }
    return root; /* (a top rank) */
}

/* My readers: the ranks whose bcast source I may be (my groups' members,
 * the top's ranks: any rank may be a root), and my partners of the
 * reduce-scatter (a flat region: every rank). */
static bool readers_of(const hc_shm_t *sh, hc_shm_long_t *lg)
{
    int n = sh->n, me = sh->me;
    lg->rd = malloc(sizeof(int) * (size_t) n);
    if (NULL == lg->rd) {
        return false;
    }
    lg->nrd = 0;
    for (int q = 0; q < n; ++q) {
        bool reads = q != me && sh->flat;
        if (q != me && !sh->flat) {
            bool top = false;
            for (int i = 0; i < sh->ntop; ++i) {
                top |= sh->top[i] == q;
            }
            reads = top || bcast_src(sh, q, -1) == me;
            /* (partners: the same digits but one) */
            for (int k = 0; lg->lanes && k < lg->nd && !reads; ++k) {
                int d = q / lg->stride[k] % lg->rad[k];
                reads = q - d * lg->stride[k] == me - lg->dig[k] * lg->stride[k];
            }
        }
        if (reads) {
            lg->rd[lg->nrd++] = q;
        }
    }
    return true;
}

/* Slice i's first element of a chunk of cnt elements of esize bytes cut in
 * n slices (as the slice-parallel folds cut it: whole elements, 64 bytes
 * apart where the size allows); i = n: cnt. */
static size_t slice_lo(size_t cnt, size_t esize, int n, int i)
{
    size_t q = (cnt + (size_t) n - 1) / (size_t) n;
    size_t al = esize < 64 && 0 == 64 % esize ? 64 / esize : 1;
    q = (q + al - 1) / al * al;
    size_t lo = (size_t) i * q;
    return lo < cnt ? lo : cnt;
}

/* The elements [*lo, *hi) of P_k of the rank whose digits up to k are
 * dig[0 .. k] (k = -1: the chunk). */
static void part_range(const hc_shm_long_t *lg, const int *dig, int k, size_t cnt, size_t esize,
                       size_t *lo, size_t *hi)
{
    int n = lg->stride[lg->nd], b = 0;
    for (int i = 0; i <= k; ++i) {
        b += dig[i] * (n / lg->stride[i + 1]);
    }
    int span = k < 0 ? n : n / lg->stride[k + 1];
    *lo = slice_lo(cnt, esize, n, b);
    *hi = slice_lo(cnt, esize, n, b + span);
}

/* ------------------------------------------------------------------ */
/* Set-up and leave                                                     */
/* ------------------------------------------------------------------ */

static void long_free(hc_shm_t *sh)
{
    hc_shm_long_t *lg = sh->lg;
    free(lg->at);
    free(lg->map);
    free(lg->rd);
    free(lg);
    sh->lg = NULL;
}

/* The layout: the cell, then part k of at most the bytes of its slices
 * (n / stride_{k+1} of them, each at most C / n + 128 bytes: whole
 * elements of at most HC_LONG_ESIZE bytes, 64 bytes apart), in lines. */
static void lay_out(hc_shm_long_t *lg)
{
    const size_t line = HC_SHM_LINE;
    int n = lg->stride[lg->nd];
    lg->cellb = (lg->chunk + line - 1) / line * line;
    size_t at = 0;
    for (int k = 0; k < lg->nd; ++k) {
        size_t span = (size_t) (n / lg->stride[k + 1]);
        size_t b = span * (lg->chunk / (size_t) n + 2 * HC_LONG_ESIZE);
        b = b < lg->chunk ? b : lg->chunk;
        lg->aoff[k] = at;
        at += lg->lanes ? (b + line - 1) / line * line : 0;
    }
    lg->slot = line + lg->cellb + at;
    lg->len = sizeof(hc_shm_hdr_t) + line + (size_t) lg->k * lg->slot;
    lg->len = (lg->len + 4095) & ~(size_t) 4095;
}

typedef struct {
    int64_t pid, fd, off; /* my arena, my area in it (-1: none) */
} hc_long_peer_t;

/* Collective (a blocking call's, alike on every rank): every rank's area,
 * mapped everywhere, agreed (the layer below's allgather and allreduce); a
 * failure anywhere leaves the long cells off on every rank. */
static void long_setup(hc_shm_t *sh)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    mca_coll_hiercoll_module_t *m = sh->module;
    mca_coll_base_comm_coll_t *p = &m->prev;
    hc_shm_long_t *lg = sh->lg;
    int n = sh->n;
    lg->state = HC_SHM_FAILED; /* (meanwhile: calls of the layer below that come back) */
    if (NULL == p->coll_allgather || NULL == p->coll_allreduce) {
        return;
    }
    lg->chunk = c->shm_long_chunk;
    lg->k = c->shm_long_slots;
    lg->lanes = digits_of(sh, lg);
    if (!lg->lanes) { /* (the bcast's digits are not used) */
        lg->nd = sh->flat ? 1 : sh->nlv + 1;
    }
    lay_out(lg);
    lg->at = calloc((size_t) n, sizeof(char *));
    lg->map = calloc((size_t) n, sizeof(char *));
    hc_long_peer_t *peers = malloc(sizeof(*peers) * (size_t) n);
    int ok = NULL != lg->at && NULL != lg->map && NULL != peers && readers_of(sh, lg);
    if (!hc_shm_g.tried) {
        hc_shm_arena_create();
    }
    size_t off = ok && hc_shm_g.ok && !hc_shm_fault("long") ? hc_shm_arena_get(lg->len)
                                                            : (size_t) -1;
    hc_long_peer_t mine = {getpid(), hc_shm_g.fd, (size_t) -1 == off ? -1 : (int64_t) off};
    if ((size_t) -1 != off) {
        /* the header (arena_reclaim's: every rank detaches), the done line and
         * the control lines zeroed, "nothing yet" */
        char *a = hc_shm_g.base + off;
        memset(a, 0, sizeof(hc_shm_hdr_t) + HC_SHM_LINE);
        for (int i = 0; i < lg->k; ++i) {
            memset(a + sizeof(hc_shm_hdr_t) + HC_SHM_LINE + (size_t) i * lg->slot, 0,
                   HC_SHM_LINE);
        }
        hc_shm_hdr_t *h = (hc_shm_hdr_t *) a;
        h->n = (uint32_t) n;
        h->size = lg->len;
        st_rel(&h->magic, HC_LONG_MAGIC);
        lg->off = off;
    }
    int rc = NULL != peers ? p->coll_allgather(&mine, sizeof(mine), MPI_BYTE, peers, sizeof(mine),
                                               MPI_BYTE, sh->comm, p->coll_allgather_module)
                           : OMPI_ERR_OUT_OF_RESOURCE;
    ok = ok && OMPI_SUCCESS == rc;
    for (int r = 0; ok && r < n; ++r) {
        size_t size = 0;
        if (peers[r].off < 0) {
            ok = 0;
            break;
        }
        lg->map[r] = hc_shm_map_peer((pid_t) peers[r].pid, (int) peers[r].fd, &size);
        ok = NULL != lg->map[r] && (size_t) peers[r].off + lg->len <= size;
        if (ok) {
            lg->at[r] = lg->map[r] + peers[r].off;
            ok = HC_LONG_MAGIC == ld_acq(&((hc_shm_hdr_t *) lg->at[r])->magic);
        }
    }
    int all = 0;
    rc = OMPI_SUCCESS == rc ? p->coll_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, sh->comm,
                                                p->coll_allreduce_module)
                            : rc;
    free(peers);
    if (OMPI_SUCCESS == rc && all) {
        lg->next = 1;
        lg->free_to = (uint64_t) lg->k; /* (every done line says 0) */
        lg->state = HC_SHM_READY;
        if (0 == sh->me) {
            mca_coll_hiercoll_log(1, "%s: shm: long cells: %d slots of %zu bytes in every "
                                  "process's arena (%zu bytes each), chunks of %zu bytes; "
                                  "reductions %s", sh->comm->c_name, lg->k, lg->slot, lg->len,
                                  lg->chunk,
                                  lg->lanes ? "through the levels" : "elsewhere (the "
                                                                     "hierarchy is not regular)");
        }
        return;
    }
    /* (nobody uses any area: mine goes back at once) */
    for (int r = 0; NULL != lg->map && r < n; ++r) {
        if (NULL != lg->map[r] && r != sh->me) {
            hc_shm_unmap_peer(lg->map[r], false);
        }
        lg->map[r] = lg->at[r] = NULL;
    }
    if ((size_t) -1 != off) {
        hc_shm_arena_put(off, lg->len);
    }
    lg->state = HC_SHM_FAILED;
    if (0 == sh->me) {
        mca_coll_hiercoll_log(1, "%s: shm: a rank could not carve or map the long cells "
                              "(coll_hiercoll_shm_arena_size, coll_hiercoll_shm_fault); long "
                              "messages take the level's other paths", sh->comm->c_name);
    }
}

/* The module goes: every rank detaches from every area it mapped; an
 * area's owner has its arena take it back once all have (as a region). */
void hc_shm_long_leave(hc_shm_t *sh)
{
    hc_shm_long_t *lg = sh->lg;
    if (NULL == lg) {
        return;
    }
    if (HC_SHM_READY == lg->state) {
        for (int r = 0; r < sh->n; ++r) {
            __atomic_fetch_add(&((hc_shm_hdr_t *) lg->at[r])->detached, 1, __ATOMIC_ACQ_REL);
            if (r != sh->me) {
                hc_shm_unmap_peer(lg->map[r], false);
            }
        }
        hc_shm_arena_pending(lg->off, lg->len);
    }
    long_free(sh);
}

/* ------------------------------------------------------------------ */
/* Whether a call takes them                                            */
/* ------------------------------------------------------------------ */

/* Auto's share (docs/design/shm-long.md): on 4 to 7 processes (past
 * them auto leaves long data to the layer below, coll_hiercoll_shm_wide_ranks;
 * on 2 and 3, single copy was faster here or may be), where the model has
 * the long cells faster than the single copy at every cost of a system
 * call and a page it was given (this machine's, the 16-core VM's, a bare
 * metal's): a bcast from coll_hiercoll_shm_cma_min (1.9 to 9.6 times), a
 * reduce or allreduce of less than twice it (16 to 32 KiB: 1.04 to 8.2
 * times; from 32 KiB a reduction's margin depends on the machine, 0.79
 * to 3.3).  Timed on no machine with more than 2 cores. */
static bool auto_takes(const hc_shm_t *sh, const hc_shm_op_t *o)
{
    size_t from = mca_coll_hiercoll_params.shm_cma_min;
    return sh->cma && 0 != from && sh->n >= 4 && sh->n <= 7 && o->m >= from
           && (HC_BCAST == o->coll || o->m < 2 * from);
}

/* Does operation o (initialized by hc_shm_op_init from c, not yet begun)
 * go through the long cells?  The answer is the same on every rank: the
 * bytes, collective, datatype's size and channel are (MPI), and so is the
 * state of the long cells (set up by a blocking call, agreed). */
bool hc_shm_long_takes(hc_shm_op_t *o, const hc_call_t *c)
{
    mca_coll_hiercoll_params_t *cc = &mca_coll_hiercoll_params;
    hc_shm_t *sh = o->ch->s;
    int mode = sh->module->shm_long; /* (the parameter, or the info key hiercoll_shm_long) */
    if (HC_SHM_LONG_OFF == mode || o->ch != &sh->ch[0]
        || (HC_SHM_LONG_ON == mode ? o->m < cc->shm_long_min : !auto_takes(sh, o))) {
        return false;
    }
    bool red = HC_BCAST != o->coll;
    if (red && (o->esize > HC_LONG_ESIZE || 0 == o->esize)) {
        return false;
    }
    if (NULL == sh->lg) {
        if (HC_BLOCKING != c->mode || NULL == (sh->lg = calloc(1, sizeof(*sh->lg)))) {
            return false; /* (alike: a nonblocking call or a persistent init sets nothing up) */
        }
    }
    if (HC_SHM_UNSET == sh->lg->state) {
        if (HC_BLOCKING != c->mode) {
            return false;
        }
        long_setup(sh);
        if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
            mca_coll_hiercoll_hooks.shm_settled(sh->module);
        }
    }
    return HC_SHM_READY == sh->lg->state && (!red || sh->lg->lanes);
}

/* ------------------------------------------------------------------ */
/* The operations                                                       */
/* ------------------------------------------------------------------ */

/* Wait (without blocking) until word w reaches v. */
static inline bool reached(hc_shm_op_t *o, const uint64_t *w, uint64_t v)
{
    if (ld_acq(w) < v) {
        o->wait_on = w;
        o->wait_val = v;
        return false;
    }
    return true;
}

/* My slot of chunk c is free: every reader has finished chunk c - K. */
static bool slot_ready(hc_shm_op_t *o, hc_shm_long_t *lg, uint64_t c)
{
    if (c <= lg->free_to) {
        return true;
    }
    uint64_t mn = UINT64_MAX;
    for (int i = 0; i < lg->nrd; ++i) {
        uint64_t d = ld_acq(done_of(lg, lg->rd[i]));
        if (d + (uint64_t) lg->k < c) {
            o->wait_on = done_of(lg, lg->rd[i]);
            o->wait_val = c - (uint64_t) lg->k;
            return false;
        }
        mn = d < mn ? d : mn;
    }
    lg->free_to = (UINT64_MAX == mn ? c : mn) + (uint64_t) lg->k;
    return true;
}

static inline void count_read(const hc_shm_op_t *o, hc_shm_long_t *lg, int r, uint64_t c, int word,
                              uint64_t key, size_t bytes)
{
    if (OPAL_UNLIKELY(NULL != o->ch->s->st)) {
        hc_shm_count_bytes(o, r, bytes);
        if (r != o->ch->s->me) {
            hc_shm_count_readers(o, ctl_of(lg, r, c) + word, key);
        }
    }
}

/* The chunks of a long bcast down the levels. */
static bool run_bcast(hc_shm_op_t *o, hc_shm_long_t *lg)
{
    hc_shm_t *sh = o->ch->s;
    int me = sh->me, src = bcast_src(sh, me, o->root);
    bool root = me == o->root, lead = !root && !sh->flat && sh->hi > 0;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        uint64_t c = o->mine0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * lg->chunk, len = o->m - off < lg->chunk ? o->m - off
                                                                             : lg->chunk;
        uint64_t *mine = ctl_of(lg, me, c);
        if (root) {
            if (!slot_ready(o, lg, c)) {
                return false;
            }
            char *cell = cell_at(lg, me, c);
            if (o->packed) {
                hc_shm_dt_stream(o->ubuf, o->dt, o->ucount, off, len, cell, true);
            } else {
                memcpy(cell, o->src + off, len);
            }
            HC_SHM_BYTES(o, me, len);
            st_rel(mine + W_RS, CW(c, 1));
            st_rel(done_of(lg, me), c);
            continue;
        }
        if (0 == o->ph) {
            if ((lead && !slot_ready(o, lg, c))
                || !reached(o, ctl_of(lg, src, c) + W_RS, CW(c, 1))) {
                return false;
            }
            const char *from = cell_at(lg, src, c);
            count_read(o, lg, src, c, W_REG, c, len);
            if (lead) { /* into my cell first: my members read it there */
                memcpy(cell_at(lg, me, c), from, len);
                st_rel(mine + W_RS, CW(c, 1));
                from = cell_at(lg, me, c);
                HC_SHM_BYTES(o, me, len);
            }
            if (o->packed) {
                hc_shm_dt_stream(o->ubuf, o->dt, o->ucount, off, len, (char *) from, false);
            } else {
                memcpy(o->dst + off, from, len);
            }
            st_rel(done_of(lg, me), c);
        }
    }
    return true;
}

/* Takes part in AG_k: an allreduce's every rank; a reduce's ranks whose
 * digits from k up are the root's. */
static bool gathers(const hc_shm_op_t *o, const hc_shm_long_t *lg, int k)
{
    if (HC_ALLREDUCE == o->coll) {
        return true;
    }
    for (int i = k; i < lg->nd; ++i) {
        if (o->root / lg->stride[i] % lg->rad[i] != lg->dig[i]) {
            return false;
        }
    }
    return true;
}

/* The chunks of a long reduce or allreduce: RS through the digits, then
 * AG back (see the top of the file).  Phases of a chunk: 0 its input into
 * my cell; 1 RS_lv; 2 AG_lv; then my done line. */
static bool run_reduction(hc_shm_op_t *o, hc_shm_long_t *lg)
{
    hc_shm_t *sh = o->ch->s;
    int me = sh->me, nd = lg->nd;
    size_t es = o->esize, per = lg->chunk / es;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        uint64_t c = o->mine0 + (uint64_t) o->j;
        size_t e0 = (size_t) o->j * per, cnt = o->count - e0 < per ? o->count - e0 : per;
        const char *in = o->src + e0 * es;
        uint64_t *mine = ctl_of(lg, me, c);
        if (0 == o->ph) {
            if (!slot_ready(o, lg, c)) {
                return false;
            }
            memcpy(cell_at(lg, me, c), in, cnt * es);
            HC_SHM_BYTES(o, me, cnt * es);
            st_rel(mine + W_RS, CW(c, 0));
            o->ph = 1;
            o->lv = 0;
            o->i = 0;
        }
        for (; 1 == o->ph && o->lv < nd; ++o->lv, o->i = 0) {
            int k = o->lv, m = lg->rad[k], st = lg->stride[k];
            for (; o->i < m; ++o->i) { /* (every member's P_{k-1} there) */
                int q = me + (o->i - lg->dig[k]) * st;
                if (q != me && !reached(o, ctl_of(lg, q, c) + W_RS, CW(c, k))) {
                    return false;
                }
            }
            size_t plo, phi, lo, hi; /* P_{k-1} (theirs and mine), P_k (mine) */
            part_range(lg, lg->dig, k - 1, cnt, es, &plo, &phi);
            part_range(lg, lg->dig, k, cnt, es, &lo, &hi);
            char *acc = part_at(lg, me, c, k);
            size_t at = (lo - plo) * es, len = (hi - lo) * es;
            for (int j = m - 1; j >= 0 && len > 0; --j) {
                int q = me + (j - lg->dig[k]) * st;
                const char *x;
                if (q == me) { /* (mine: my input, or my area k - 1) */
                    x = 0 == k ? in + at : part_at(lg, me, c, k - 1) + at;
                } else {
                    x = (0 == k ? cell_at(lg, q, c) : part_at(lg, q, c, k - 1)) + at;
                    count_read(o, lg, q, c, W_REG + k, 2 * c, len); /* (k = 0: the cell) */
                }
                if (j == m - 1) {
                    memcpy(acc, x, len);
                } else {
                    op_apply(o->op, o->dt, x, acc, hi - lo);
                }
            }
            st_rel(mine + W_RS, CW(c, 1 + k));
        }
        if (1 == o->ph) {
            o->ph = 2;
            o->lv = nd - 1;
            o->i = 0;
        }
        for (; 2 == o->ph && o->lv >= 0; --o->lv, o->i = 0) {
            int k = o->lv, m = lg->rad[k], st = lg->stride[k];
            if (!gathers(o, lg, k)) {
                continue;
            }
            size_t plo, phi; /* P_{k-1}: mine, to be assembled */
            part_range(lg, lg->dig, k - 1, cnt, es, &plo, &phi);
            char *to = 0 == k ? o->dst + e0 * es : part_at(lg, me, c, k - 1);
            int dq[HC_LONG_MAXD];
            memcpy(dq, lg->dig, sizeof(dq));
            for (; o->i < m; ++o->i) {
                int q = me + (o->i - lg->dig[k]) * st;
                /* (its final P_k: RS's at the top, else AG_{k+1}'s) */
                if (q != me
                    && !reached(o, ctl_of(lg, q, c) + (k == nd - 1 ? W_RS : W_AG),
                                k == nd - 1 ? CW(c, nd) : CW(c, nd - k))) {
                    return false;
                }
                size_t lo, hi;
                dq[k] = o->i;
                part_range(lg, dq, k, cnt, es, &lo, &hi);
                if (hi > lo) {
                    memcpy(to + (lo - plo) * es, part_at(lg, q, c, k), (hi - lo) * es);
                    if (q == me) {
                        HC_SHM_BYTES(o, me, (hi - lo) * es);
                    } else {
                        count_read(o, lg, q, c, W_REG + 1 + k, 2 * c + 1, (hi - lo) * es);
                    }
                }
            }
            if (k > 0) {
                st_rel(mine + W_AG, CW(c, nd - (k - 1)));
            }
        }
        o->ph = 3;
        st_rel(done_of(lg, me), c);
    }
    return true;
}

bool hc_shm_run_long(hc_shm_op_t *o)
{
    hc_shm_t *sh = o->ch->s;
    hc_shm_long_t *lg = sh->lg;
    if (0 == o->mine1) { /* its chunks' numbers: at its first step, in channel order */
        o->mine1 = 1;
        o->mine0 = lg->next;
        if (HC_BCAST == o->coll) {
            o->nchunks = (int) ((o->m + lg->chunk - 1) / lg->chunk);
        } else {
            size_t per = lg->chunk / o->esize;
            o->nchunks = (int) ((o->count + per - 1) / per);
        }
        lg->next += (uint64_t) o->nchunks;
        o->j = o->ph = 0;
    }
    bool done = HC_BCAST == o->coll ? run_bcast(o, lg) : run_reduction(o, lg);
    if (done) {
        finish_reading(o->ch, o->s0);
    }
    return done;
}
