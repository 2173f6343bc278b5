/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: set-up and agreement (the region's
 * set-up, the CMA probe, the flag-line placement, timed now or later, and
 * remembered).
 *
 * ADMISSION AND AGREEMENT.  Under auto a communicator's first
 * coll_hiercoll_shm_min_calls eligible calls run elsewhere (short-lived
 * communicators never allocate); the next one sets up, collectively,
 * through the layer below: allgather of (pid, fd, free bytes), the owner
 * allocates and broadcasts where, everyone maps and checks a cookie, and
 * an allreduce(MIN) of every rank's success decides for all: on failure
 * every rank falls back, with one verbose line.  A fault can be injected
 * on one rank at each step (coll_hiercoll_shm_fault).
 */
#include "coll_hiercoll_shm_internal.h"

/* What a peer reads with process_vm_readv at set-up (the CMA probe). */
static uint64_t cma_cookie;

/* May my right neighbour read me, and I my left?  A real read of the
 * neighbour's cookie (ptrace rules, seccomp, namespaces all show here). */
static int cma_probe(const hc_shm_peer_t *peers, int n, int me)
{
    if (hc_shm_fault("cma")) {
        return 0;
    }
    int q = (me + 1) % n;
    uint64_t v = 0;
    int err = hc_shm_cma_read((pid_t) peers[q].pid, &v, peers[q].cookie_at, sizeof(v));
    if (0 != err) {
        mca_coll_hiercoll_log(1, "shm: world rank %d cannot read pid %d with process_vm_readv: "
                              "%s; no single copy", hc_shm_world_rank(), (int) peers[q].pid,
                              strerror(err));
        return 0;
    }
    return v == (HC_SHM_MAGIC ^ (uint64_t) peers[q].pid) ? 1 : 0;
}

/* Flag-line placement.  The time a line takes to cross between two cores
 * depends on its address (on a mesh, on the last-level cache slice that
 * homes it), and stays the same within a process, run after run
 * (docs/design/shm-flag-line-placement.md).  Channel 0 (the blocking and nonblocking calls)
 * has `place` candidate rows of flag lines for each of its kf slots.  Every
 * rank times a short exchange on each row (a barrier's pattern: write my
 * line, wait for the others'), the slowest rank's time per row is agreed
 * (the layer below's allreduce), and every rank keeps the same kf fastest
 * rows, in address order.  The exchange writes 1, 2, 3 in turn and a rank
 * waits until the others' lines no longer hold the value before (none
 * runs more than one exchange ahead), so the lines end below FV(1, 0),
 * which the engine reads as "nothing yet" whatever its numbers.
 * The timing costs far more than a call and gains a little on each, so
 * it waits until a communicator has shown it lives long
 * (hc_shm_place_later; docs/design/shm-placement-deferred.md). */
#define HC_PLACE_EXCH 8       /* exchanges per timing of a row */
#define HC_PLACE_BUDGET 0.025 /* s: a peer without a core to itself (rank 0 stops the timing) */

typedef struct {
    uint32_t cost; /* ns per exchange, the slowest rank's */
    int row;
} hc_place_t;

static int by_cost(const void *a, const void *b) /* (then by row: the same on every rank) */
{
    const hc_place_t *x = a, *y = b;
    if (x->cost != y->cost) {
        return x->cost < y->cost ? -1 : 1;
    }
    return x->row < y->row ? -1 : x->row > y->row;
}

static int by_row(const void *a, const void *b)
{
    const hc_place_t *x = a, *y = b;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The fastest of reps timings of HC_PLACE_EXCH exchanges on row j, in ns
 * per exchange; *e counts the row's exchanges, *g all of place_rows' (the
 * same on every rank).  Past the deadline, rank 0 writes the number of
 * its next exchange (+ 1) into the header's stop before its value of that
 * exchange; each rank looks after each exchange, so every rank stops
 * after that one (a rank done with the exchange before may see stop
 * already: it goes on to that one), and says so in *stop. */
static uint32_t place_time(hc_shm_t *s, int j, int reps, int *e, uint64_t *g, double deadline,
                           bool *stop)
{
    hc_line_t *row = s->ch[0].flag + (size_t) j * s->n;
    double best = 1e9;
    for (int rep = 0; rep < reps; ++rep) {
        double a = hc_shm_now();
        if (0 == s->me && a > deadline) {
            st_rel(&s->hdr->stop, *g + 1);
        }
        for (int x = 0; x < HC_PLACE_EXCH; ++x, ++*e) {
            uint64_t v = (uint64_t) (*e % 3) + 1,
                     prev = 0 == *e ? 0 : (uint64_t) ((*e - 1) % 3) + 1;
            st_rel(&row[s->me].seq, v);
            if (s->demote) {
                demote(&row[s->me], HC_SHM_LINE);
            }
            for (int r = 0; r < s->n; ++r) {
                while (r != s->me && ld_acq(&row[r].seq) == prev) {
                    cpu_relax();
                }
            }
            uint64_t at = ld_acq(&s->hdr->stop), done = (*g)++; /* (stop: before rank 0's
                                                                  * value, just read) */
            if (0 != at && at - 1 <= done) {
                *stop = true;
                return UINT32_MAX;
            }
        }
        double t = hc_shm_now() - a;
        best = t < best ? t : best;
    }
    double ns = best * 1e9 / HC_PLACE_EXCH;
    return ns < 1e9 ? (uint32_t) ns + 1 : UINT32_MAX;
}

/* pl[0, m) timed as cost[0, m) here: agree the slowest rank's costs (the
 * layer below's allreduce(MAX) into cost[m, 2m)), then order pl by them. */
static int place_rank(hc_shm_t *s, mca_coll_base_comm_coll_t *p, uint32_t *cost, hc_place_t *pl,
                      int m)
{
    int rc = p->coll_allreduce(cost, cost + m, m, MPI_UINT32_T, MPI_MAX, s->comm,
                               p->coll_allreduce_module);
    for (int j = 0; OMPI_SUCCESS == rc && j < m; ++j) {
        pl[j].cost = cost[m + j];
    }
    if (OMPI_SUCCESS == rc) {
        qsort(pl, (size_t) m, sizeof(*pl), by_cost);
    }
    return rc;
}

/* Channels given rows by placement: as many as channel 0's candidates
 * fill, kf + HC_SHM_HOT each (only flat regions are placed: they have hot
 * rows). */
#define HC_PLACE_SET (16 * (64 + HC_SHM_HOT)) /* the most rows it sets (place <= 16, kf <= 64) */

static int place_sets(const hc_shm_t *s)
{
    int per = s->kf + HC_SHM_HOT, nset = 0;
    while (nset < s->nch && (nset + 1) * per <= rows_of(s, 0)) {
        ++nset;
    }
    return nset;
}

/* Channel c < nset's row table (its kf slots, then its hot rows) from
 * channel 0's candidate rows idx[c (kf + HC_SHM_HOT) + j]: place_rows'
 * choice, or one remembered (set_up). */
static void rows_set(hc_shm_t *s, const uint16_t *idx, int nset)
{
    int per = s->kf + HC_SHM_HOT;
    for (int c = 0; c < nset; ++c) {
        for (int j = 0; j < per; ++j) {
            s->ch[c].row[j] = s->ch[0].flag + (size_t) idx[c * per + j] * s->n;
        }
    }
}

/* cost: 2 x rows words; pl: rows; idx: HC_PLACE_SET.  Two rounds: every
 * row timed once, then the fastest 2 (kf + HC_SHM_HOT) three times each.
 * Channel 0 keeps the HC_SHM_HOT fastest as its hot rows and the kf next
 * as its slots; the persistent channels take the next HC_SHM_HOT + kf
 * each while there are rows (place_sets).  *placed: idx holds the rows
 * set (not when the timing stopped). */
static int place_rows(hc_shm_t *s, mca_coll_base_comm_coll_t *p, uint32_t *cost, hc_place_t *pl,
                      uint16_t *idx, bool *placed)
{
    int per = s->kf + HC_SHM_HOT, rows = rows_of(s, 0), m = 2 * per < rows ? 2 * per : rows;
    double t0 = hc_shm_now(), all = 0, hot = 0, kept = 0;
    double deadline = t0 + (hc_shm_fault("budget") ? 0 : HC_PLACE_BUDGET); /* (rank 0's) */
    int rc;
    /* (once stopped, the rows left count as slowest and the allreduces
     * still run: the set-up sends the same messages whatever the timing,
     * so pml monitoring's differences of two jobs cancel it) */
    bool stop = false; /* (the same on every rank: see place_time) */
    uint64_t g = 0;
    for (int j = 0; j < rows; ++j) {
        int e = 0;
        pl[j].row = j;
        cost[j] = stop ? UINT32_MAX : place_time(s, j, 1, &e, &g, deadline, &stop);
    }
    rc = place_rank(s, p, cost, pl, rows);
    for (int j = 0; OMPI_SUCCESS == rc && j < rows; ++j) {
        all += pl[j].cost;
    }
    for (int j = 0; j < m; ++j) {
        int e = HC_PLACE_EXCH; /* (the row's first round) */
        cost[j] = stop || OMPI_SUCCESS != rc ? UINT32_MAX
                                             : place_time(s, pl[j].row, 3, &e, &g, deadline, &stop);
    }
    rc = OMPI_SUCCESS == rc ? place_rank(s, p, cost, pl, m) : rc;
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *placed = !stop;
    if (stop) { /* (rows in address order: hc_shm_lay_out's) */
        if (0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: timing the rows of flag lines took over %.0f ms "
                                  "(a process without a core of its own?); channel 0 keeps "
                                  "them in address order", s->comm->c_name,
                                  HC_PLACE_BUDGET * 1e3);
        }
        return OMPI_SUCCESS;
    }
    for (int j = 0; j < per; ++j) {
        *(j < HC_SHM_HOT ? &hot : &kept) += pl[j].cost;
    }
    int nset = place_sets(s);
    for (int c = 0; c < nset; ++c) {
        /* (pl: the hot rows, then the slots; each part in address order) */
        hc_place_t *sel = pl + (size_t) c * (size_t) per;
        qsort(sel, HC_SHM_HOT, sizeof(*sel), by_row);
        qsort(sel + HC_SHM_HOT, (size_t) s->kf, sizeof(*sel), by_row);
        for (int j = 0; j < per; ++j) {
            idx[c * per + (j < HC_SHM_HOT ? s->kf + j : j - HC_SHM_HOT)] = (uint16_t) sel[j].row;
        }
    }
    rows_set(s, idx, nset);
    if (0 == s->me) {
        mca_coll_hiercoll_log(1, "%s: shm: channel 0 keeps the fastest %d of %d rows of flag "
                              "lines as its hot rows and the next %d as its slots (an exchange "
                              "%.0f and %.0f ns against %.0f over all rows; timed in %.2f ms), "
                              "%d persistent channels the next", s->comm->c_name, HC_SHM_HOT,
                              rows, s->kf, hot / HC_SHM_HOT, kept / s->kf, all / rows,
                              (hc_shm_now() - t0) * 1e3, nset - 1);
    }
    return OMPI_SUCCESS;
}

/* PLACEMENT REMEMBERED.  A communicator whose region is where an earlier
 * one's was (the same owner and offset, the same processes in the same
 * rank order, the same layout) would time the same lines between the same
 * processes: it takes the rows that timing kept (a timing saved on each
 * dup of a program that makes many), where every rank remembers
 * them, alike: the set-up's allreduce agrees that every rank has an
 * entry and that the entries' hashes are equal (the MIN of h and of ~h,
 * ~h's MIN being ~(the MAX of h)), so rows of different timings are never
 * mixed; else the rows are timed again and remembered anew.  A few
 * entries, replaced in turn. */
#define HC_MEMO 8

static struct {
    uint64_t key;
    int32_t sum; /* the rows' hash (>= 0) */
    uint16_t row[HC_PLACE_SET]; /* place_rows' idx (place_sets channels) */
} memo[HC_MEMO];

static unsigned memo_next;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

static uint64_t memo_key(const hc_shm_t *s, const hc_shm_peer_t *peers, int owner, uint64_t off)
{
    uint64_t h = mix(mix(mix(0, (uint64_t) peers[owner].pid), off), s->len);
    h = mix(mix(mix(mix(h, (uint64_t) s->n), (uint64_t) s->kf), (uint64_t) s->place),
            (uint64_t) s->nch);
    for (int r = 0; r < s->n; ++r) {
        h = mix(h, (uint64_t) peers[r].pid);
    }
    return 0 == h ? 1 : h; /* (0: an empty entry) */
}

static int32_t memo_sum(const uint16_t *row, int n)
{
    uint64_t h = 0;
    for (int i = 0; i < n; ++i) {
        h = mix(h, row[i]);
    }
    return (int32_t) (h & 0x7fffffff);
}

static int memo_find(uint64_t key)
{
    for (int i = 0; i < HC_MEMO; ++i) {
        if (memo[i].key == key) {
            return i;
        }
    }
    return -1;
}

/* place_rows' idx, remembered under key (coll_hiercoll_shm_fault=
 * memo:RANK: that rank remembers others, as if its entry came from
 * another timing). */
static void memo_store(const hc_shm_t *s, uint64_t key, const uint16_t *idx)
{
    int n = place_sets(s) * (s->kf + HC_SHM_HOT);
    int i = memo_find(key);
    if (i < 0) {
        i = (int) (memo_next++ % HC_MEMO);
    }
    memcpy(memo[i].row, idx, sizeof(*idx) * (size_t) n);
    if (hc_shm_fault("memo") && n > 1) {
        uint16_t t = memo[i].row[0];
        memo[i].row[0] = memo[i].row[1];
        memo[i].row[1] = t;
    }
    memo[i].key = key;
    memo[i].sum = memo_sum(memo[i].row, n);
}

/* ONE HIERARCHY FOR ALL.  Each rank builds the hierarchy from its own
 * parameters (coll_hiercoll_shm_levels, _group_size, _group_level,
 * _topology) and its own view of the locality, and chooses an operation's
 * path from its own (coll_hiercoll_shm_cma_min, _fold_ranks, _fold_max;
 * _long, or the info key hiercoll_shm_long, _long_min, _long_chunk,
 * _long_slots):
 * an MPMD job or per-rank environments may give ranks different ones,
 * which lay the region out alike (the layout check passes) but wait for
 * lines no rank writes.  The set-up's allreduce agrees a digest of both,
 * in the style of the remembered rows (the MIN of h and of ~h): where
 * they differ, every rank uses the layer below.  A rank that failed
 * earlier offers a neutral pair (the others' decide; it fails anyway). */
static int32_t hier_digest(const hc_shm_t *s)
{
    const mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    uint64_t h = mix(mix(mix(mix(0, (uint64_t) s->flat), (uint64_t) prm->shm_cma_min),
                         (uint64_t) prm->shm_fold_ranks),
                     (uint64_t) prm->shm_fold_max);
    /* (the long cells: whether a call takes them, their layout) */
    h = mix(mix(mix(mix(h, (uint64_t) s->module->shm_long), (uint64_t) prm->shm_long_min),
                (uint64_t) prm->shm_long_chunk),
            (uint64_t) prm->shm_long_slots);
    if (!s->flat) {
        h = mix(mix(h, (uint64_t) s->nlv), (uint64_t) s->ntop);
        for (size_t i = 0; i < (size_t) s->nlv * (size_t) s->n; ++i) {
            h = mix(h, (uint64_t) (int64_t) s->up[i]);
        }
        for (int i = 0; i < s->ntop; ++i) {
            h = mix(h, (uint64_t) s->top[i]);
        }
    }
    return (int32_t) (h & 0x7fffffff);
}

static int set_up(mca_coll_hiercoll_module_t *m)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    hc_shm_t *s = m->shm;
    ompi_communicator_t *comm = s->comm;
    mca_coll_base_comm_coll_t *p = &m->prev;
    s->state = HC_SHM_FAILED;
    if (NULL == p->coll_allgather || NULL == p->coll_bcast || NULL == p->coll_allreduce) {
        return OMPI_SUCCESS;
    }
    s->yield = oversubscribed(s);
    s->k = prm->shm_slots;
    s->kf = hc_shm_flag_slots(s->n, s->k);
    s->cell = hc_shm_cell_for(s->n, s->k);
    s->debug_reuse = prm->shm_debug_reuse;
    s->demote = m->shm_demote;
    s->lean = m->shm_lean;
    s->flat = hc_shm_flat_for(s->n);
    s->nch = 1 + prm->shm_persistent;
    /* (measured on 2 processes only; a row of more is slower to time, and
     * place 8 at 8 processes would add 476 KiB to the region) */
    s->place = s->flat && s->n <= 4 && !s->yield && !s->part ? prm->shm_place : 1;
    s->pwant = UINT64_MAX;
    s->pnow = false;
    s->len = hc_shm_region_bytes(s);
    free(s->rows);
    s->rows = malloc(sizeof(*s->rows) * (size_t) s->nch * (size_t) (s->kf + HC_SHM_HOT));
    if (NULL == s->rows) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (!hc_shm_g.tried) {
        hc_shm_arena_create();
    }
    hc_shm_peer_t *peers = calloc((size_t) s->n, sizeof(*peers));
    if (NULL == peers) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (0 == cma_cookie) {
#if defined(PR_SET_PTRACER) && defined(PR_SET_PTRACER_ANY)
        (void) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama scope 1 */
#endif
        cma_cookie = HC_SHM_MAGIC ^ (uint64_t) getpid();
    }
    hc_shm_peer_t mine = {
        getpid(), hc_shm_g.fd,        (int64_t) hc_shm_arena_largest(), (uintptr_t) &cma_cookie,
        {0},      hc_shm_world_rank()};
    int by[HC_SHM_MAXLV], nc = s->flat ? 0 : hc_shm_levels_of(by);
    for (int i = 0; i < nc; ++i) {
        mine.key[i] = hc_shm_my_key(comm, by[i]);
    }
    int rc = p->coll_allgather(&mine, sizeof(mine), MPI_BYTE, peers, sizeof(mine), MPI_BYTE,
                               comm, p->coll_allgather_module);
    if (OMPI_SUCCESS != rc) {
        free(peers);
        return rc;
    }
    if (0 != hc_shm_topo.total) { /* (the keys of the synthetic topology instead) */
        hc_shm_topo_keys(peers, s->n, by, nc);
    }
    int owner = -1;
    for (int r = 0; r < s->n; ++r) {
        if (peers[r].free >= (int64_t) s->len && (owner < 0 || peers[r].free > peers[owner].free)) {
            owner = r;
        }
    }
    uint64_t where[2] = {(uint64_t) -1, 0}; /* offset, cookie */
    if (owner < 0) {
        mca_coll_hiercoll_log(1, "%s: shm: no process has %zu bytes free in its arena "
                              "(coll_hiercoll_shm_arena_size); the layer below serves",
                              comm->c_name, s->len);
        free(peers);
        return OMPI_SUCCESS; /* every rank saw the same table */
    }
    s->owner = owner == s->me;
    if (s->owner) {
        size_t off = hc_shm_fault("alloc") ? (size_t) -1 : hc_shm_arena_get(s->len);
        if ((size_t) -1 != off) {
            hc_shm_hdr_t *h = (hc_shm_hdr_t *) (hc_shm_g.base + off);
            hc_shm_zero_control(s, (char *) h);
            h->n = (uint32_t) s->n;
            h->k = (uint32_t) s->k;
            h->nch = (uint32_t) s->nch;
            h->place = (uint32_t) s->place;
            h->cell = s->cell;
            h->size = s->len;
            h->cookie = hc_shm_random64();
            st_rel(&h->magic, HC_SHM_MAGIC);
            where[0] = off;
            where[1] = h->cookie;
        }
    }
    rc = p->coll_bcast(where, 2, MPI_UINT64_T, owner, comm, p->coll_bcast_module);
    if (OMPI_SUCCESS != rc) {
        free(peers);
        return rc;
    }
    if ((uint64_t) -1 == where[0]) {
        free(peers);
        mca_coll_hiercoll_log(1, "%s: shm: rank %d could not carve a region of %zu bytes; the "
                              "layer below serves", comm->c_name, owner, s->len);
        return OMPI_SUCCESS;
    }
    size_t msize = 0;
    char *map = hc_shm_map_peer((pid_t) peers[owner].pid, (int) peers[owner].fd, &msize);
    int ok = NULL != map && where[0] + s->len <= msize;
    hc_shm_hdr_t *h = ok ? (hc_shm_hdr_t *) (map + where[0]) : NULL;
    ok = ok && HC_SHM_MAGIC == ld_acq(&h->magic) && h->cookie == where[1];
    if (ok && (h->n != (uint32_t) s->n || h->k != (uint32_t) s->k || h->nch != (uint32_t) s->nch
               || h->place != (uint32_t) s->place || h->cell != s->cell || h->size != s->len)) {
        mca_coll_hiercoll_log(1, "shm: world rank %d's parameters (coll_hiercoll_shm_slots, "
                              "_persistent, _place, _cell_size, _chan_bytes) lay the region out "
                              "otherwise than rank %d's", hc_shm_world_rank(), owner);
        ok = 0;
    }
    char how[256] = "";
    ok = ok && (s->flat || hc_shm_group_ranks(s, peers, how, sizeof(how)));
    /* (timing the rows of flag lines needs every rank on a core of its own:
     * place > 1) */
    uint64_t key = s->place > 1 ? memo_key(s, peers, owner, where[0]) : 0;
    int hit = 0 != key ? memo_find(key) : -1;
    int32_t sum = hit >= 0 ? memo[hit].sum : 0;
    /* ok, single copy, timing, remembered rows (see memo_key), the
     * hierarchy and paths (hier_digest; neutral where not ok) */
    int32_t hd = ok ? hier_digest(s) : INT32_MAX;
    int mine2[8] = {ok, prm->shm_cma_min > 0 ? cma_probe(peers, s->n, s->me) : 0,
                    s->place > 1 && !hc_shm_fault("place"), hit >= 0, sum, ~sum, hd,
                    ok ? ~hd : ~0};
    int both[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    rc = p->coll_allreduce(mine2, both, 8, MPI_INT, MPI_MIN, comm, p->coll_allreduce_module);
    bool one_hier = both[6] == ~both[7];
    int all = OMPI_SUCCESS == rc && one_hier ? both[0] : 0;
    bool same = both[2] && both[3] && both[4] == ~both[5]; /* (every rank's, alike) */
    s->cma = OMPI_SUCCESS == rc && both[1];
    if (s->cma) {
        s->pids = malloc(sizeof(*s->pids) * (size_t) s->n);
        s->cma = NULL != s->pids;
        for (int r = 0; s->cma && r < s->n; ++r) {
            s->pids[r] = (pid_t) peers[r].pid;
        }
    }
    char topo[192] = "";
    if (all && 0 == s->me) {
        hc_shm_topo_describe(s, peers, topo, sizeof(topo));
    }
    if (all && mca_coll_hiercoll_params.stats && NULL == s->st) {
        (void) hc_shm_stats_init(s, peers); /* (no memory: not counted) */
    }
    free(peers);
    if (all) {
        s->hdr = h;
        hc_shm_lay_out(s, (char *) h);
        if (hc_shm_fault("ahead")) { /* (testing the debug cross-check: a cache ahead) */
            for (int i = 0; i < s->nch; ++i) {
                s->ch[i].done_min = (uint64_t) 1 << 40;
            }
        }
        if (same) {
            rows_set(s, memo[hit].row, place_sets(s));
            if (0 == s->me) {
                mca_coll_hiercoll_log(1, "%s: shm: channel 0 keeps the rows of flag lines timed "
                                      "for an earlier communicator in the same place",
                                      comm->c_name);
            }
        } else if (both[2]) {
            if (both[3] && 0 == s->me) {
                mca_coll_hiercoll_log(1, "%s: shm: the ranks remember other rows of flag lines "
                                      "for this place; timing them again", comm->c_name);
            }
            /* (later: hc_shm_place_later) */
            s->pkey = key;
            s->pwant = 1 + (uint64_t) prm->shm_place_after; /* (hot numbers from 1) */
        } else if (s->place > 1 && 0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: a rank cannot time the rows of flag lines (see "
                                  "coll_hiercoll_shm_fault); channel 0 keeps them in address "
                                  "order", comm->c_name);
        }
    }
    if (!all) {
        if (NULL != map && !s->owner) {
            hc_shm_unmap_peer(map, !ok);
        }
        if (s->owner) {
            hc_shm_arena_put(where[0], s->len);
        }
        if (0 == s->me && OMPI_SUCCESS == rc && both[0] && !one_hier) {
            mca_coll_hiercoll_log(1, "%s: shm: the ranks built different hierarchies or choose "
                                  "paths otherwise (coll_hiercoll_shm_levels, _group_size, "
                                  "_group_level, _topology, _cma_min, _fold_ranks or _fold_max "
                                  "differ between them, or their view of the locality); rank "
                                  "0's: %s; every rank uses the layer below", comm->c_name,
                                  s->flat ? "flat" : how);
        } else if (0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: a rank could not attach the region (see the line "
                                  "above, or coll_hiercoll_shm_fault); every rank uses the "
                                  "layer below", comm->c_name);
        }
        return OMPI_SUCCESS == rc ? OMPI_SUCCESS : rc;
    }
    s->map = map;
    s->off = where[0];
    s->hdr = h;
    s->state = HC_SHM_READY;
    if (0 == s->me) {
        char cma[64] = "no single copy";
        if (s->cma) {
            snprintf(cma, sizeof(cma), "single copy (CMA) from %zu bytes", prm->shm_cma_min);
        }
        char groups[300] = "";
        if (!s->flat) {
            snprintf(groups, sizeof(groups), ", hierarchy %s", how);
        }
        mca_coll_hiercoll_log(1, "%s: shm: %d processes, region of %zu bytes in rank %d's arena "
                              "(%d slots, cells of %zu bytes, %d channels), %s%s%s%s",
                              comm->c_name, s->n, s->len, owner, s->k, s->cell, s->nch, cma,
                              groups, s->demote ? "" : ", lines not demoted", topo);
    }
    return OMPI_SUCCESS;
}

/* Set the region up (collective), then have the fast path forget what it
 * remembered before (see the hook). */
int hc_shm_setup(mca_coll_hiercoll_module_t *m)
{
    int rc = set_up(m);
    if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
        mca_coll_hiercoll_hooks.shm_settled(m);
    }
    return rc;
}

/* PLACEMENT DEFERRED.  A region whose rows are to be timed times them
 * after the first agreeing call (a blocking flat barrier or allreduce in
 * the line: see agrees) numbered pwant or later on channel 0, that is
 * coll_hiercoll_shm_place_after hot numbers after its set-up: like the
 * persistent channels given back, each rank offers it in its line's aux
 * (HC_PLACE_BIT: offer_freed), and where every rank's line offers it
 * every rank sees so at the same call (hc_shm_agree_freed: pnow) and times right
 * after it, before it returns (lean; the engine's hc_shm_run_alone and
 * hc_shm_run_blocking_op).  Nothing is on the path of a short bcast or reduce (a
 * test at the entry of every blocking call made the 8-byte reduce slower;
 * docs/design/shm-placement-deferred.md).  The fast path's entries, forgotten, are learnt
 * again (the layer below's allreduce may call the communicator's reduce
 * and bcast, never its barrier or allreduce: the calling entry's fields
 * stay).  A decomposition's parts, whose calls may come from inside
 * progress, are not placed.  The layer below's allreduce agrees that
 * every rank's channels are idle (each has finished every operation, and
 * so read every line it was to read; else again HC_PLACE_RETRY hot
 * numbers later); each rank then clears its line of every
 * candidate row, a second allreduce orders that before anyone's timing,
 * and place_rows times and sets the rows (it ends with an allreduce, so
 * no rank writes the new rows before every rank has finished timing).
 * The rows end below FV(1, 0), so the channels go on with their numbers;
 * their done lines are untouched.  Meanwhile the region says FAILED and
 * the fast path forgets what it remembered: the layer below's calls may
 * come back to hiercoll's (coll/basic's allreduce is a reduce and a
 * bcast of the communicator), which must then run elsewhere, as during
 * the set-up. */
#define HC_PLACE_RETRY 1024

static void place_timed(mca_coll_hiercoll_module_t *m);

__attribute__((cold)) void hc_shm_place_later(mca_coll_hiercoll_module_t *m)
{
    hc_shm_t *s = m->shm;
    s->pnow = false;
    s->pwant = UINT64_MAX; /* (a failed allreduce: the rows stay as they are) */
    s->state = HC_SHM_FAILED;
    if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
        mca_coll_hiercoll_hooks.shm_settled(m);
    }
    place_timed(m);
    s->state = HC_SHM_READY;
    if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
        mca_coll_hiercoll_hooks.shm_settled(m);
    }
}

static void place_timed(mca_coll_hiercoll_module_t *m)
{
    hc_shm_t *s = m->shm;
    mca_coll_base_comm_coll_t *p = &m->prev;
    int idle = !hc_shm_fault("idle"), all = 0;
    for (int i = 0; i < s->nch; ++i) {
        idle &= NULL == s->ch[i].head;
    }
    int rc = p->coll_allreduce(&idle, &all, 1, MPI_INT, MPI_MIN, s->comm,
                               p->coll_allreduce_module);
    if (OMPI_SUCCESS == rc && !all) {
        s->pwant = s->ch[0].hseq + HC_PLACE_RETRY;
        if (0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: a rank has calls in flight; the rows of flag "
                                  "lines are timed %d barriers and allreduces later",
                                  s->comm->c_name, HC_PLACE_RETRY);
        }
        return;
    }
    if (OMPI_SUCCESS != rc) {
        return;
    }
    int rows = rows_of(s, 0);
    for (int j = 0; j < rows; ++j) {
        st_rel(&s->ch[0].flag[(size_t) j * (size_t) s->n + (size_t) s->me].seq, 0);
    }
    uint32_t *cost = malloc(sizeof(*cost) * 2 * (size_t) rows);
    hc_place_t *pl = malloc(sizeof(*pl) * (size_t) rows);
    uint16_t *idx = malloc(sizeof(*idx) * HC_PLACE_SET);
    int ok = NULL != cost && NULL != pl && NULL != idx;
    rc = p->coll_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, s->comm, p->coll_allreduce_module);
    if (OMPI_SUCCESS == rc && all) {
        bool placed = false;
        rc = place_rows(s, p, cost, pl, idx, &placed);
        if (OMPI_SUCCESS == rc && placed) {
            memo_store(s, s->pkey, idx);
        }
    }
    free(cost);
    free(pl);
    free(idx);
}
