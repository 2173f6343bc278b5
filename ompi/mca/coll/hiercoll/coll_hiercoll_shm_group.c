/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: the hierarchy.  Each rank's keys of the
 * hardware levels (coll_hiercoll_shm_levels, _group_level), the levels and
 * groups of the hierarchy's algorithms (runs of consecutive ranks, led by
 * their first: hcp_levels), the synthetic topology and the line counts.
 */
#include "coll_hiercoll_shm_internal.h"

/* My key for hardware level `by` (an hcp_level_t) on comm: the lowest
 * rank that shares my object of that level (Open MPI's locality of each
 * peer, from the bindings; an unbound process shares none with another).
 * Allgathered, the keys are the same table on every rank. */
int64_t hc_shm_my_key(ompi_communicator_t *comm, int by)
{
    static const uint16_t flag[HCP_NLEVELS] = {
        [HCP_LEVEL_NUMA] = OPAL_PROC_ON_NUMA,         [HCP_LEVEL_SOCKET] = OPAL_PROC_ON_SOCKET,
        [HCP_LEVEL_L3] = OPAL_PROC_ON_L3CACHE,        [HCP_LEVEL_L2] = OPAL_PROC_ON_L2CACHE,
        [HCP_LEVEL_L1] = OPAL_PROC_ON_L1CACHE,        [HCP_LEVEL_CORE] = OPAL_PROC_ON_CORE,
        [HCP_LEVEL_HWTHREAD] = OPAL_PROC_ON_HWTHREAD};
    int me = ompi_comm_rank(comm);
    if (by < 0 || by >= HCP_NLEVELS || 0 == flag[by]) {
        return 0; /* none, the node, the board: one object */
    }
    for (int r = 0; r < me; ++r) {
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        if (NULL != p && flag[by] == (p->super.proc_flags & flag[by])) {
            return r;
        }
    }
    return me;
}

/* The candidate levels of the hierarchy, from the bottom (hcp_level_t;
 * coll_hiercoll_shm_levels): auto's are the group level, numa and socket
 * (those above it; none where the group level is "none": runs of
 * consecutive ranks).  Returns their number. */
int hc_shm_levels_of(int *by)
{
    const mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    if (HC_LEVELS_LIST == prm->shm_levels_mode) {
        memcpy(by, prm->shm_lv_by, sizeof(int) * (size_t) prm->shm_nlv);
        return prm->shm_nlv;
    }
    int n = 0;
    if (HC_LEVELS_AUTO != prm->shm_levels_mode || prm->shm_group_by < 0) {
        return 0;
    }
    by[n++] = prm->shm_group_by;
    /* (numa and socket where they are above the group level) */
    static const int above[] = {HCP_LEVEL_NUMA, HCP_LEVEL_SOCKET};
    for (int i = 0; i < 2; ++i) {
        bool higher = prm->shm_group_by > HCP_LEVEL_SOCKET
                      || (HCP_LEVEL_NUMA == prm->shm_group_by && HCP_LEVEL_SOCKET == above[i]);
        if (higher) {
            by[n++] = above[i];
        }
    }
    return n;
}

/* Flat (every rank reads every line), decided from the parameters and
 * the process count alone: the region's layout follows from it, before
 * the ranks' places are known. */
bool hc_shm_flat_for(int n)
{
    const mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    return HC_LEVELS_FLAT == prm->shm_levels_mode
           || (HC_LEVELS_AUTO == prm->shm_levels_mode && n <= prm->shm_group_size);
}

/* The hierarchy (not flat) from every rank's keys of the candidate levels
 * (hcp_levels: runs of consecutive ranks at each level, so the folds keep
 * MPI's order; the same table on every rank, the keys were allgathered),
 * and my part of it.  `how`: the levels and their groups, for the
 * verbose line.  False: no memory. */
bool hc_shm_group_ranks(hc_shm_t *s, const hc_shm_peer_t *peers, char *how, size_t howlen)
{
    int n = s->n, by[HC_SHM_MAXLV], nc = hc_shm_levels_of(by);
    int *keys = malloc(sizeof(int) * (size_t) n * (size_t) (nc > 0 ? nc : 1));
    int used[HC_SHM_MAXLV], why[HC_SHM_MAXLV];
    s->up = malloc(sizeof(int) * (size_t) n * HC_SHM_MAXLV);
    s->top = malloc(sizeof(int) * (size_t) n);
    s->mem = malloc(sizeof(int) * (size_t) n * HC_SHM_MAXLV);
    if (NULL == keys || NULL == s->up || NULL == s->top || NULL == s->mem) {
        free(keys);
        return false;
    }
    for (int c = 0; c < nc; ++c) {
        for (int r = 0; r < n; ++r) {
            keys[c * n + r] = (int) peers[r].key[c];
        }
    }
    s->nlv = hcp_levels(n, nc, keys, mca_coll_hiercoll_params.shm_group_size, HC_SHM_MAXLV,
                        s->up, used, s->top, &s->ntop, why);
    free(keys);
    if (s->nlv < 0) {
        return false;
    }
    /* my highest level, my leader there, my groups' ranks below it */
    int me = s->me, at = 0;
    s->hi = s->nlv;
    s->upl = -1;
    for (int k = 0; k < s->nlv; ++k) {
        const int *u = s->up + (size_t) k * (size_t) n;
        if (s->hi < s->nlv) {
            continue;
        }
        if (u[me] != me) {
            s->hi = k;
            s->upl = u[me];
            continue;
        }
        s->mat[k] = at;
        s->mnum[k] = 0;
        for (int r = me; r < n && (r == me || u[r] == me || u[r] < 0); ++r) {
            if (u[r] == me) {
                s->mem[at++] = r;
                s->mnum[k]++;
            }
        }
    }
    /* the verbose line: each level, its groups and their sizes */
    int hat = snprintf(how, howlen, "%d level%s", s->nlv, 1 == s->nlv ? "" : "s");
    for (int k = 0; k < s->nlv && hat < (int) howlen; ++k) {
        const int *u = s->up + (size_t) k * (size_t) n;
        int groups = 0, lo = n, hiz = 0;
        for (int r = 0; r < n; ++r) {
            if (u[r] != r) {
                continue;
            }
            int sz = 0;
            for (int q = r; q < n; ++q) {
                sz += u[q] == r;
            }
            ++groups;
            lo = sz < lo ? sz : lo;
            hiz = sz > hiz ? sz : hiz;
        }
        hat +=
            snprintf(how + hat, howlen - (size_t) hat, "%s %s %d groups of %d", 0 == k ? ":" : ",",
                     used[k] < 0 ? "ranks" : hcp_level_names[by[used[k]]], groups, lo);
        if (hiz != lo && hat < (int) howlen) {
            hat += snprintf(how + hat, howlen - (size_t) hat, "-%d", hiz);
        }
    }
    if (hat < (int) howlen) {
        hat += snprintf(how + hat, howlen - (size_t) hat, "%s top %d", s->nlv ? ";" : ":", s->ntop);
    }
    /* the candidates left out, and why (short runs: an interleaving
     * mapping, whose groups would reorder the folds) */
    static const char *const whys[] = {"", "one rank each", "all in one", "short runs", ""};
    for (int c = 0, said = 0; c < nc && hat < (int) howlen; ++c) {
        if (HCP_LV_KEPT != why[c] && HCP_LV_UNTRIED != why[c]) {
            hat += snprintf(how + hat, howlen - (size_t) hat, "%s%s (%s)",
                            said++ ? ", " : "; left out: ", hcp_level_names[by[c]], whys[why[c]]);
        }
    }
    return true;
}

/* THE HIERARCHY's up and down (not flat; levels: hc_shm_group_ranks).
 * Operation s's phases in a rank's line: FV(s, k) once its subtree below
 * level k is in (k = 0: itself; a reduction's value of the subtree in
 * the line), and FV(s, nlv + 1), released (an allreduce's result in the
 * line, or a top rank's cell). */
static inline uint64_t rel_of(const hc_shm_t *sh, uint64_t s)
{
    return FV(s, sh->nlv + 1);
}

/* Up: at each level k below my highest, wait for my group's other ranks
 * to have their subtrees in (FV(s, k)); `in` (a reduction's) folds them,
 * then I say mine is (FV(s, k + 1)).  False: not yet (o->lv resumes). */
bool hc_shm_up(hc_shm_op_t *o, uint64_t s, void (*in)(hc_shm_op_t *, uint64_t, int))
{
    hc_shm_t *sh = o->ch->s;
    for (; o->lv < sh->hi; ++o->lv) {
        int k = o->lv;
        if (!some_flags(o, s, FV(s, k), sh->mat[k] + 1, sh->mnum[k] - 1, 1, sh->mem)) {
            return false;
        }
        if (NULL != in) {
            in(o, s, k);
        }
        publish(o, line_of(o, s, sh->me), FV(s, k + 1));
    }
    return true;
}

/* Down: my leader's release (FV(s, nlv + 1)); `out` takes what it
 * carries; then mine, where I lead a group below.  At the top, nothing to
 * wait for.  False: not yet. */
bool hc_shm_down(hc_shm_op_t *o, uint64_t s, void (*out)(hc_shm_op_t *, uint64_t, int))
{
    return hc_shm_down_at(o, s, out, rel_of(o->ch->s, s));
}

/* (the same with the release at `rel`: a reduction in cells releases at
 * FV(s, nlv + 2), after its top's second round) */
bool hc_shm_down_at(hc_shm_op_t *o, uint64_t s, void (*out)(hc_shm_op_t *, uint64_t, int),
                    uint64_t rel)
{
    hc_shm_t *sh = o->ch->s;
    if (sh->upl >= 0) {
        if (!one_flag(o, line_of(o, s, sh->upl), rel)) {
            return false;
        }
        if (NULL != out) {
            out(o, s, sh->upl);
        }
    }
    if (sh->hi > 0) {
        publish(o, line_of(o, s, sh->me), rel);
    }
    /* every rank has begun s (see all_flags) */
    all_begun(o->ch, s);
    finish_reading(o->ch, s);
    return true;
}

/* SYNTHETIC TOPOLOGY (coll_hiercoll_shm_topology): levels from the top,
 * each NAME:ARITY, in hwloc's synthetic syntax ("pack:2 numa:2 l3:4
 * core:4"); world rank w sits on PU w mod total, so the object of level
 * lv that holds it is (w mod total) / span[lv].  A level left out spans,
 * for a package or a NUMA node, what the level above it spans (the
 * machine at the top: hwloc puts a NUMA node there), for a cache or a
 * core, what the level below it spans (no two PUs share it). */
hc_shm_topo_t hc_shm_topo;

static const struct {
    const char *name;
    int lv;
} topo_names[] = {{"pack", HC_TOPO_PACK}, {"package", HC_TOPO_PACK}, {"socket", HC_TOPO_PACK},
                  {"numa", HC_TOPO_NUMA}, {"node", HC_TOPO_NUMA},    {"numanode", HC_TOPO_NUMA},
                  {"l3", HC_TOPO_L3},     {"l3cache", HC_TOPO_L3},   {"l2", HC_TOPO_L2},
                  {"l2cache", HC_TOPO_L2}, {"core", HC_TOPO_CORE},   {"pu", HC_TOPO_PU}};
static const char *const topo_level_names[HC_TOPO_NLV] = {"package", "numa", "l3", "l2", "core",
                                                          "pu"};

int mca_coll_hiercoll_shm_topology_parse(const char *str, char *why, size_t whylen)
{
    hc_shm_topo_t t;
    long arity[HC_TOPO_NLV];
    memset(&t, 0, sizeof(t));
    memset(&hc_shm_topo, 0, sizeof(hc_shm_topo));
    if (NULL == str) {
        return 0;
    }
    const char *p = str;
    int last = -1;
    while (*p) {
        while (' ' == *p || '\t' == *p) {
            ++p;
        }
        if ('\0' == *p) {
            break;
        }
        size_t len = strcspn(p, ": \t");
        int lv = -1;
        for (size_t i = 0; i < sizeof(topo_names) / sizeof(topo_names[0]); ++i) {
            if (strlen(topo_names[i].name) == len && 0 == strncasecmp(p, topo_names[i].name, len)) {
                lv = topo_names[i].lv;
            }
        }
        if (lv < 0) {
            snprintf(why, whylen, "\"%.*s\" is no level (pack, numa, l3, l2, core, pu)", (int) len,
                     p);
            return -1;
        }
        if (lv <= last) {
            snprintf(why, whylen, "%s comes after a level below it, or twice",
                     topo_level_names[lv]);
            return -1;
        }
        p += len;
        char *end = NULL;
        long a = ':' == *p ? strtol(p + 1, &end, 10) : -1;
        if (a < 1 || a > 65536 || (' ' != *end && '\t' != *end && '\0' != *end)) {
            snprintf(why, whylen, "%s wants :ARITY, a number from 1 to 65536",
                     topo_level_names[lv]);
            return -1;
        }
        p = end;
        t.given[lv] = true;
        arity[lv] = a;
        last = lv;
    }
    if (last < 0) {
        return 0; /* empty: the real locality */
    }
    long total = 1;
    for (int lv = 0; lv < HC_TOPO_NLV; ++lv) {
        total *= t.given[lv] ? arity[lv] : 1;
        if (total > (1L << 24)) {
            snprintf(why, whylen, "more than %d PUs", 1 << 24);
            return -1;
        }
    }
    /* span: the PUs under one object, the product of the arities below */
    for (int lv = HC_TOPO_NLV - 1; lv >= 0; --lv) {
        long below = 1;
        for (int x = lv + 1; x < HC_TOPO_NLV; ++x) {
            below *= t.given[x] ? arity[x] : 1;
        }
        t.span[lv] = (int) below;
    }
    /* a cache or a core left out: as the level below; a package or NUMA
     * node: as the level above (or the machine) */
    for (int lv = HC_TOPO_PU - 1; lv >= HC_TOPO_L3; --lv) {
        if (!t.given[lv]) {
            t.span[lv] = t.span[lv + 1];
        }
    }
    /* (top down) */
    for (int lv = HC_TOPO_PACK; lv <= HC_TOPO_NUMA; ++lv) {
        if (!t.given[lv]) {
            t.span[lv] = 0 == lv ? (int) total : t.span[lv - 1];
        }
    }
    t.total = (int) total;
    hc_shm_topo = t;
    return 0;
}

/* The object of level lv (an HC_TOPO_*) that holds world rank w. */
int hc_shm_topo_id(int lv, int w)
{
    return (w % hc_shm_topo.total) / hc_shm_topo.span[lv];
}

/* An hcp_level_t's level of the synthetic topology (-1: one object, the
 * node or the board). */
static int topo_level_of(int by)
{
    switch (by) {
    case HCP_LEVEL_SOCKET: return HC_TOPO_PACK;
    case HCP_LEVEL_NUMA: return HC_TOPO_NUMA;
    case HCP_LEVEL_L3: return HC_TOPO_L3;
    case HCP_LEVEL_L2: return HC_TOPO_L2;
    case HCP_LEVEL_L1:
    case HCP_LEVEL_CORE: return HC_TOPO_CORE;
    case HCP_LEVEL_HWTHREAD: return HC_TOPO_PU;
    default: return -1;
    }
}

/* Every rank's keys of the candidate levels by[0 .. nc) (peers[r].key)
 * from the synthetic topology and the world ranks allgathered: the same
 * table on every rank, as the keys of the bindings are (hc_shm_my_key). */
void hc_shm_topo_keys(hc_shm_peer_t *peers, int n, const int *by, int nc)
{
    for (int c = 0; c < nc; ++c) {
        int lv = topo_level_of(by[c]);
        for (int r = 0; r < n; ++r) {
            peers[r].key[c] = 0;
            if (lv < 0) {
                continue;
            }
            int id = hc_shm_topo_id(lv, (int) peers[r].wrank);
            for (int q = 0; q <= r; ++q) {
                if (hc_shm_topo_id(lv, (int) peers[q].wrank) == id) {
                    peers[r].key[c] = q;
                    break;
                }
            }
        }
    }
}

/* The levels, in a verbose line: the synthetic topology's, with the
 * number of objects of each level among the ranks (the levels that split
 * them); nothing with the real locality (the line as it was). */
int hc_shm_topo_describe(const hc_shm_t *s, const hc_shm_peer_t *peers, char *buf, size_t len)
{
    if (0 == hc_shm_topo.total) {
        return 0;
    }
    int at = snprintf(buf, len, ", topology \"%s\" (objects among the ranks:",
                      mca_coll_hiercoll_params.shm_topology);
    for (int lv = 0; lv < HC_TOPO_NLV - 1 && at < (int) len; ++lv) {
        int objs = 0;
        for (int r = 0; r < s->n; ++r) {
            int id = hc_shm_topo_id(lv, (int) peers[r].wrank), seen = 0;
            for (int q = 0; q < r && !seen; ++q) {
                seen = hc_shm_topo_id(lv, (int) peers[q].wrank) == id;
            }
            objs += !seen;
        }
        at += snprintf(buf + at, len - (size_t) at, " %s %d", topo_level_names[lv], objs);
    }
    if (at < (int) len) {
        at += snprintf(buf + at, len - (size_t) at, ")");
    }
    return at;
}

/* LINE TRAFFIC: my distance to every rank, from the synthetic topology or
 * Open MPI's locality of each peer (relative to me: an unbound process
 * shares nothing below the node with another, so its lines count as
 * across packages). */
bool hc_shm_stats_init(hc_shm_t *s, const hc_shm_peer_t *peers)
{
    s->st = calloc(1, sizeof(*s->st));
    if (NULL == s->st || NULL == (s->st->dist = calloc((size_t) s->n, 1))
        || NULL == (s->st->reg = calloc((size_t) s->n, sizeof(uint64_t)))) {
        if (NULL != s->st) {
            free(s->st->dist);
        }
        free(s->st);
        s->st = NULL;
        return false;
    }
    for (int r = 0; r < s->n; ++r) {
        int d = HC_DIST_FAR;
        if (0 != hc_shm_topo.total) {
            int w = (int) peers[r].wrank, me = (int) peers[s->me].wrank;
            d = hc_shm_topo_id(HC_TOPO_L3, w) == hc_shm_topo_id(HC_TOPO_L3, me)       ? HC_DIST_L3
                : hc_shm_topo_id(HC_TOPO_NUMA, w) == hc_shm_topo_id(HC_TOPO_NUMA, me) ? HC_DIST_NUMA
                : hc_shm_topo_id(HC_TOPO_PACK, w) == hc_shm_topo_id(HC_TOPO_PACK, me) ? HC_DIST_PACK
                                                                                      : HC_DIST_FAR;
        } else if (r != s->me) {
            ompi_proc_t *p = ompi_comm_peer_lookup(s->comm, r);
            uint16_t f = NULL != p ? p->super.proc_flags : 0;
            d = OPAL_PROC_ON_L3CACHE == (f & OPAL_PROC_ON_L3CACHE) ? HC_DIST_L3
                : OPAL_PROC_ON_NUMA == (f & OPAL_PROC_ON_NUMA)     ? HC_DIST_NUMA
                : OPAL_PROC_ON_SOCKET == (f & OPAL_PROC_ON_SOCKET) ? HC_DIST_PACK
                                                                   : HC_DIST_FAR;
        }
        s->st->dist[r] = (uint8_t) d;
    }
    return true;
}

/* Operation o has read the lines of ranks first, first + stride, ...
 * (count of them), or list[first + i]: count those of other ranks. */
void hc_shm_count(const hc_shm_op_t *o, int first, int count, int stride, const int *list)
{
    hc_shm_t *sh = o->ch->s;
    for (int i = 0; i < count; ++i) {
        int r = NULL != list ? list[first + i] : first + i * stride;
        if (r >= 0 && r < sh->n && r != sh->me) {
            sh->st->lines[o->coll][sh->st->dist[r]]++;
        }
    }
}

/* Operation o has read `bytes` of rank r's cell (its lines, and the
 * bytes moved). */
void hc_shm_count_cell(const hc_shm_op_t *o, int r, size_t bytes)
{
    hc_shm_t *sh = o->ch->s;
    if (r >= 0 && r < sh->n && r != sh->me && 0 != bytes) {
        sh->st->cells[o->coll][sh->st->dist[r]] += (bytes + HC_SHM_LINE - 1) / HC_SHM_LINE;
        sh->st->bytes[o->coll][sh->st->dist[r]] += bytes;
    }
}

/* Operation o has copied `bytes` out of rank r's memory (r = me, or < 0:
 * inside my own). */
void hc_shm_count_bytes(const hc_shm_op_t *o, int r, size_t bytes)
{
    hc_shm_t *sh = o->ch->s;
    int d = r >= 0 && r < sh->n && r != sh->me ? sh->st->dist[r] : HC_DIST_OWN;
    sh->st->bytes[o->coll][d] += bytes;
}

/* The operation being stepped (op_step), with coll_hiercoll_stats. */
const hc_shm_op_t *hc_shm_stepping;

/* One reader more of a buffer's contents, registered in `word` (a word of
 * the buffer owner's lines) under `key` (the operation and phase of those
 * contents): a different key starts the count again; the count reached
 * is the readers so far, the last one's the buffer's. */
void hc_shm_count_readers(const hc_shm_op_t *o, uint64_t *word, uint64_t key)
{
    hc_shm_stats_t *st = o->ch->s->st;
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED), nv;
    key &= (UINT64_C(1) << 48) - 1;
    do {
        nv = old >> 16 == key ? old + 1 : key << 16 | 1;
    } while (!__atomic_compare_exchange_n(word, &old, nv, false, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    if ((nv & 0xffff) > st->readers[o->coll]) {
        st->readers[o->coll] = nv & 0xffff;
    }
}

/* A process_vm_readv (read) or _writev of `bytes` with process pid, made
 * by the operation being stepped: the call, the bytes by distance, and,
 * for a read, one reader more of the target's buffer of this operation
 * and phase (registered once, in a word of the target's flag line of the
 * operation that no single-copy path uses). */
void hc_shm_count_cma(pid_t pid, size_t bytes, bool read)
{
    const hc_shm_op_t *o = hc_shm_stepping;
    hc_shm_t *sh = NULL != o ? o->ch->s : NULL;
    if (NULL == sh || NULL == sh->st || NULL == sh->pids) {
        return;
    }
    int r = 0;
    while (r < sh->n && sh->pids[r] != pid) {
        ++r;
    }
    if (r == sh->n) {
        return;
    }
    sh->st->cma[o->coll]++;
    sh->st->bytes[o->coll][sh->st->dist[r]] += bytes;
    uint64_t key = (o->s0 << 8 | (uint64_t) o->ph) + 1;
    if (read && sh->st->reg[r] != key) {
        sh->st->reg[r] = key;
        hc_line_t *l = line_of(o, o->s0, r);
        hc_shm_count_readers(o, (uint64_t *) (l->data + HC_SHM_INLINE - 8 * (1 + (o->ph & 1))),
                             key);
    }
}

/* At the module's end, with coll_hiercoll_stats: one line per rank. */
void hc_shm_stats_print(const hc_shm_t *s)
{
    char per[1024] = "";
    size_t at = 0;
    for (int k = 0; k < HC_NCOLL && at < sizeof(per) - 128; ++k) {
        const uint64_t *l = s->st->lines[k], *cl = s->st->cells[k];
        if (0 == s->st->ops[k]) {
            continue;
        }
        at += (size_t) snprintf(per + at, sizeof(per) - at,
                                " %s: %llu ops, lines l3 %llu numa %llu package %llu across %llu,"
                                " cell lines l3 %llu numa %llu package %llu across %llu;",
                                mca_coll_hiercoll_coll_names[k],
                                (unsigned long long) s->st->ops[k], (unsigned long long) l[0],
                                (unsigned long long) l[1], (unsigned long long) l[2],
                                (unsigned long long) l[3], (unsigned long long) cl[0],
                                (unsigned long long) cl[1], (unsigned long long) cl[2],
                                (unsigned long long) cl[3]);
    }
    opal_output(0, "hiercoll: shm lines comm %s rank %d/%d:%s", s->comm->c_name, s->me, s->n,
                at ? per : " no operation");
    /* the bytes copied, the system calls, the most readers of one buffer */
    at = 0;
    per[0] = '\0';
    for (int k = 0; k < HC_NCOLL && at < sizeof(per) - 160; ++k) {
        const uint64_t *b = s->st->bytes[k];
        if (0 == s->st->ops[k]) {
            continue;
        }
        at += (size_t) snprintf(per + at, sizeof(per) - at,
                                " %s: %llu ops, bytes own %llu l3 %llu numa %llu package %llu "
                                "across %llu, cma calls %llu, readers at most %llu;",
                                mca_coll_hiercoll_coll_names[k],
                                (unsigned long long) s->st->ops[k],
                                (unsigned long long) b[HC_DIST_OWN], (unsigned long long) b[0],
                                (unsigned long long) b[1], (unsigned long long) b[2],
                                (unsigned long long) b[3], (unsigned long long) s->st->cma[k],
                                (unsigned long long) s->st->readers[k]);
    }
    if (0 != at) {
        opal_output(0, "hiercoll: shm bytes comm %s rank %d/%d:%s", s->comm->c_name, s->me, s->n,
                    per);
    }
}
