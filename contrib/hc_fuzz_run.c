/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: running a case.  A case is one UNIT (one call repeated, or a
 * batch of calls in flight on one communicator), or THREADS: several
 * threads (MPI_THREAD_MULTIPLE), each with a communicator of its own,
 * each running a few units at once with the others.  A unit's calls run
 * on a duplicate of the case's communicator (a split of world, an
 * intercommunicator, a topology) whose info keys force hiercoll's
 * algorithm and decomposition criterion; every byte of every buffer is
 * then compared with the reference: by default the serial one
 * (hc_fuzz_ref.c), or the same calls on a twin communicator (--ref basic:
 * coll/basic's linear algorithms, blocking; --ref below: the layer below
 * hiercoll, same mode).
 *
 * A batch: its calls are issued in order (blocking ones run where they
 * stand, nonblocking ones started, persistent ones initialised), the
 * persistent ones started by MPI_Startall in an order of each rank's own,
 * the communicator freed with them in flight when the case says so, then
 * completed by MPI_Wait, Waitall, Testall, Waitany, Waitsome or Test in an
 * order of each rank's own; persistent calls restarted as often as drawn.
 */
#include "hc_fuzz.h"
#include "hc_fuzz_run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* counts per dimension                                                 */
/* ------------------------------------------------------------------ */

hf_stats_t hf_stats;
const char *volatile hf_run_side = "set-up";
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static void count_call(const hf_inst_t *x)
{
    pthread_mutex_lock(&stats_lock);
    hf_stats_t *S = &hf_stats;
    const hf_case_t *c = &x->cs;
    S->calls++;
    S->coll[c->coll]++;
    S->mode[c->mode]++;
    S->fam[x->fam]++;
    if (FAM_NEIGHBOR == x->fam && x->topo) {
        S->topo[x->topo->kind]++;
    }
    if (c->op >= 0) {
        S->op[c->op]++;
    }
    int rs = MPI_DATATYPE_NULL == x->ty.X ? RS_SAME : x->ty.kr > 1 ? RS_SPLIT : RS_MERGE;
    S->rshape[rs]++;
    const hf_tree_t *tr = &x->ty.tree;
    int k0 = c->subtype < tr->n ? c->subtype : 0;
    unsigned kinds = hf_tree_kinds(tr, k0);
    bool neg = false;
    unsigned long long basics = 0;
    for (int k = 0; k < tr->n; ++k) {
        const hf_node_t *nd = &tr->node[k];
        if (!hf_tree_below(tr, k, k0)) {
            continue;
        }
        neg |= (TN_VECTOR == nd->kind || TN_HVECTOR == nd->kind) && nd->stride < 0;
        if (TN_PRED == nd->kind) {
            basics |= 1ull << nd->basic;
        }
    }
    for (int t = 0; t < TN_N; ++t) {
        S->tkind[t] += (kinds >> t) & 1;
    }
    S->negstride += neg;
    for (int b = 0; b < hf_nbasics && b < 64; ++b) {
        S->basic[b] += (basics >> b) & 1;
    }
    int i;
    for (i = 0; i < S->nalgo && strcmp(S->algo_name[i], c->algo); ++i) {
    }
    if (i == S->nalgo && i < 24) {
        snprintf(S->algo_name[S->nalgo++], 32, "%s", c->algo);
    }
    if (i < 24) {
        S->algo[i]++;
    }
    pthread_mutex_unlock(&stats_lock);
}

/* ------------------------------------------------------------------ */
/* communicators                                                        */
/* ------------------------------------------------------------------ */

/* the case's base communicator (collective over world); MPI_COMM_NULL
 * where this rank is not in it */
static MPI_Comm base_comm(const hf_case_t *cs)
{
    int me = hf_opt.rank, n = hf_opt.np, color = 0, key = me;
    switch (cs->comm) {
    case CM_WORLD: return MPI_COMM_WORLD;
    case CM_REVERSED: key = n - 1 - me; break;
    case CM_SUBSET: {
        uint64_t m = cs->mask & ((n >= 64) ? ~0ull : ((1ull << n) - 1));
        if (0 == m) m = 1;
        color = (m >> me) & 1 ? 0 : MPI_UNDEFINED;
        key = cs->key_rev ? n - 1 - me : me;
        break;
    }
    case CM_PARITY: color = me % 2; break;
    case CM_ONE: color = me; break;
    default: color = me < cs->prefix ? 0 : MPI_UNDEFINED; break;
    }
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &c);
    return c;
}

/* one communicator's worth of calls */
typedef struct {
    hf_case_t cs;             /* the template (call 0 of a batch) */
    int fam, n, me;
    int *world;
    MPI_Comm comm;            /* the family's: the base, an intercommunicator, a topology */
    bool own_comm;
    hf_topo_t *topo;
    hf_groups_t grp;
    char err[256];
} hf_where_t;

static void where_make(hf_where_t *w, const hf_case_t *cs, MPI_Comm base)
{
    memset(w, 0, sizeof(*w));
    w->cs = *cs;
    w->comm = base;
    MPI_Comm_size(base, &w->n);
    MPI_Comm_rank(base, &w->me);
    w->world = hf_alloc(sizeof(int) * (size_t) w->n);
    MPI_Group gb, gw;
    MPI_Comm_group(base, &gb);
    MPI_Comm_group(MPI_COMM_WORLD, &gw);
    int *all = hf_alloc(sizeof(int) * (size_t) w->n);
    for (int i = 0; i < w->n; ++i) {
        all[i] = i;
    }
    MPI_Group_translate_ranks(gb, w->n, all, gw, w->world);
    free(all);
    MPI_Group_free(&gb);
    MPI_Group_free(&gw);
    w->fam = cs->fam;
    if (FAM_INTER == w->fam && w->n < 2) {
        w->fam = FAM_INTRA; /* (one process has no two groups) */
    }
    if (FAM_INTER == w->fam) {
        hf_groups_make(&w->grp, w->n, cs->mask, cs->key_rev);
        w->comm = hf_inter_comm(&w->grp, base);
        w->own_comm = true;
    } else if (FAM_NEIGHBOR == w->fam) {
        w->topo = hf_topo_make(cs->topo, w->n, cs->topo_seed);
        w->comm = hf_topo_comm(w->topo, base, w->err, sizeof(w->err));
        w->own_comm = true;
    }
}

static void where_free(hf_where_t *w)
{
    if (w->own_comm) {
        MPI_Comm_free(&w->comm);
    }
    if (FAM_INTER == w->fam) {
        hf_groups_free(&w->grp);
    }
    hf_topo_free(w->topo);
    free(w->world);
    memset(w, 0, sizeof(*w));
}

static void info_key(int coll, char *key, size_t len)
{
    int n = snprintf(key, len, "hiercoll_%s_algorithm", hf_coll_names[coll]);
    if (n >= MPI_MAX_INFO_KEY) {
        snprintf(key, len, "hiercoll_%s", hf_coll_names[coll]);
    }
}

/* the tested communicator's keys: each call's algorithm, the criterion */
static MPI_Info info_tested(const hf_where_t *w, const hf_inst_t *calls, int n)
{
    MPI_Info info;
    MPI_Info_create(&info);
    char key[MPI_MAX_INFO_KEY + 8];
    bool shm = false, barrier = false;
    for (int i = 0; i < n; ++i) {
        const hf_case_t *c = &calls[i].cs;
        barrier |= C_BARRIER == c->coll;
        if (0 != strcmp(c->algo, "auto")) {
            info_key(c->coll, key, sizeof(key));
            MPI_Info_set(info, key, c->algo);
        }
        shm |= 0 == strcmp(c->algo, "shm");
    }
    if (shm && !barrier) {
        info_key(C_BARRIER, key, sizeof(key));
        MPI_Info_set(info, key, "shm"); /* (the warm-up barrier sets the level up) */
    }
    if (w->cs.gen >= 2) {
        /* one-process communicators too get hiercoll, not coll/self above
         * it (whose copies, ompi_datatype_sndrcv, lose a message's tail
         * for some datatypes in Open MPI 4.1.4: known issues) */
        MPI_Info_set(info, "ompi_comm_coll_preference", "^self");
    }
    if (CR_JOB != w->cs.crit && FAM_INTER != w->fam) {
        char val[1024];
        hf_crit_value(w->cs.crit, w->cs.crit_seed, w->n, val, sizeof(val));
        MPI_Info_set(info, "hiercoll_decomp_criterion", val);
    }
    return info;
}

/* the twin's: the layer below hiercoll, or coll/basic alone */
static MPI_Info info_twin(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (HF_REF_BASIC == hf_opt.ref) {
        /* Open MPI 4.1 and 5.0 read this key when they choose a new
         * communicator's components: none of these, so coll/basic (libnbc
         * for the nonblocking forms, which the twin does not call) */
        MPI_Info_set(info, "ompi_comm_coll_preference",
                     "^hiercoll,tuned,han,adapt,sm,hcoll,ucc,acoll,xhc,cuda,accelerator,ftagree");
        return info;
    }
    char key[MPI_MAX_INFO_KEY + 8];
    for (int c = 0; c < C_N; ++c) {
        info_key(c, key, sizeof(key));
        MPI_Info_set(info, key, "fallback");
    }
    return info;
}

/* ------------------------------------------------------------------ */
/* comparison                                                           */
/* ------------------------------------------------------------------ */

/* a floating-point zero of z value bytes (float 4, double 8, x87 long
 * double 10): its sign bit cleared */
static void plus_zero(unsigned char *p, int z)
{
    int sign = 4 == z ? 3 : 8 == z ? 7 : 9;
    for (int i = 0; i < z && i <= sign; ++i) {
        if (p[i] & (i == sign ? 0x7f : 0xff)) {
            return;
        }
    }
    p[sign] &= 0x7f;
}

/* predefined-op results: the bytes a long double's value leaves undefined
 * are taken from the run, and a floating-point zero's sign is not
 * compared (a complex product's zero parts take the sign of the order of
 * its terms, which MPI leaves to the algorithm) */
static void mask_results(hbuf_t *b, const hf_map_t *m)
{
    if (b->res_count <= 0 || NULL == b->reg[0]) {
        return;
    }
    for (long k = 0; k < b->res_count; ++k) {
        for (long i = 0; i < m->n; ++i) {
            unsigned char mark[64];
            const hf_basic_t *bt = &hf_basics[m->basic[i]];
            int z = bt->size;
            long off = b->res_disp + k * m->ext + m->disp[i] - b->lo + HF_GUARD;
            if (off < 0 || (size_t) (off + z) > b->size) {
                continue;
            }
            if (BK_FLOAT == bt->kind || BK_COMPLEX == bt->kind) {
                int parts = BK_COMPLEX == bt->kind ? 2 : 1, h = z / parts;
                int val = (int) sizeof(long double) == h ? (16 == h ? 10 : h) : h;
                for (int q = 0; q < parts; ++q) {
                    plus_zero(b->reg[0] + off + q * h, val);
                    plus_zero(b->reg[1] + off + q * h, val);
                }
            }
            if (!hf_value_mask(m->basic[i], mark, (int) sizeof(mark))) {
                continue;
            }
            for (int j = 0; j < z; ++j) {
                if (!mark[j]) {
                    b->reg[1][off + j] = b->reg[0][off + j];
                }
            }
        }
    }
}

static void compare(hbuf_t *b, int nb, int rc0, int rc1, long unknown, const hf_map_t *mres,
                    hf_verdict_t *v)
{
    int w = (int) strlen(v->what);
#define SAY(...)                                                                                   \
    do {                                                                                           \
        if ((size_t) w < sizeof(v->what)) {                                                        \
            w += snprintf(v->what + w, sizeof(v->what) - (size_t) w, __VA_ARGS__);                 \
        }                                                                                          \
    } while (0)
    if (rc0 != rc1) {
        v->bad = v->bad > 1 ? v->bad : 1;
        SAY("return code %d (hiercoll) against %d (reference); ", rc0, rc1);
    }
    if (unknown) {
        v->bad = v->bad > 1 ? v->bad : 1;
        SAY("the user op was called %ld times with a datatype that is neither the case's nor "
            "predefined; ", unknown);
    }
    for (int i = 0; i < nb; ++i) {
        if (NULL == b[i].reg[0]) {
            continue;
        }
        if (b[i].undef_tail && b[i].defined < b[i].hi) {
            /* (what MPI leaves undefined: from the defined part's end, or
             * the buffer's beginning when nothing is defined) */
            long d = b[i].defined > b[i].lo ? b[i].defined : b[i].lo;
            size_t from = (size_t) (d - b[i].lo) + HF_GUARD;
            size_t to = (size_t) (b[i].hi - b[i].lo) + HF_GUARD;
            memcpy(b[i].reg[0] + from, b[i].reg[1] + from, to - from);
        }
        mask_results(&b[i], mres);
        if (b[i].skip || 0 == memcmp(b[i].reg[0], b[i].reg[1], b[i].size)) {
            continue;
        }
        size_t first = (size_t) -1, last = 0, ndiff = 0;
        for (size_t k = 0; k < b[i].size; ++k) {
            if (b[i].reg[0][k] != b[i].reg[1][k]) {
                if ((size_t) -1 == first) first = k;
                last = k;
                ndiff++;
            }
        }
        long off = (long) first - HF_GUARD + b[i].lo; /* from the origin */
        char where[200] = "";
        long lastoff = (long) last - HF_GUARD + b[i].lo;
        bool wild = off < b[i].lo || lastoff >= b[i].hi;
        if (off < b[i].lo || off >= b[i].hi) {
            snprintf(where, sizeof(where), "a guard byte outside every block");
        } else if (b[i].map && b[i].map->ext > 0) {
            const hf_map_t *m = b[i].map;
            long rel = off - m->tlb, k = rel >= 0 ? rel / m->ext : -((-rel + m->ext - 1) / m->ext);
            char s[160];
            hf_where(m, off - k * m->ext, s, sizeof(s));
            snprintf(where, sizeof(where), "element %ld: %s", k, s);
        }
        v->bad = wild ? 2 : (v->bad > 1 ? v->bad : 1);
        SAY("%s buffer: %zu of %zu bytes differ, first at offset %ld (%s): 0x%02x (hiercoll) vs "
            "0x%02x (reference), last at offset %ld; ",
            b[i].name, ndiff, b[i].size - 2 * HF_GUARD, off, where, b[i].reg[0][first],
            b[i].reg[1][first], lastoff);
    }
#undef SAY
}

/* ------------------------------------------------------------------ */
/* running calls                                                        */
/* ------------------------------------------------------------------ */

static hf_call_t args_of(hf_inst_t *x, int side)
{
    hf_rank_t *k = hf_rank(x, x->me);
    hf_call_t a = k->a;
    if (MPI_IN_PLACE != a.sb) a.sb = k->b[0].org[side];
    if (MPI_IN_PLACE != a.rb) a.rb = k->b[1].org[side];
    if (C_BCAST == x->cs.coll) a.rb = k->b[1].org[side];
    return a;
}

/* one call reps times in its mode, alone on the communicator; the first
 * error code */
static int exec_one(hf_inst_t *x, hf_call_t *a, MPI_Comm c, int mode)
{
    int rc = MPI_SUCCESS, coll = x->cs.coll;
    MPI_Request q = MPI_REQUEST_NULL;
    if (MD_PERSISTENT == mode) {
        rc = hf_call_init(coll, a, c, &q);
        for (int i = 0; i < x->reps && MPI_SUCCESS == rc; ++i) {
            rc = MPI_Start(&q);
            if (MPI_SUCCESS == rc) {
                rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        }
        if (MPI_REQUEST_NULL != q) {
            MPI_Request_free(&q);
        }
        return rc;
    }
    for (int i = 0; i < x->reps && MPI_SUCCESS == rc; ++i) {
        if (MD_BLOCKING == mode) {
            rc = hf_call_blocking(coll, a, c);
        } else {
            rc = hf_call_nonblocking(coll, a, c, &q);
            if (MPI_SUCCESS == rc) {
                rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        }
    }
    return rc;
}

/* complete the n requests of q[] listed in idx[] (this rank's order) */
static int complete(MPI_Request *q, const int *idx, int n, int how, int *rc)
{
    MPI_Request *l = hf_alloc(sizeof(MPI_Request) * (size_t) (n + 1));
    MPI_Status *st = hf_alloc(sizeof(MPI_Status) * (size_t) (n + 1));
    int *out = hf_alloc(sizeof(int) * (size_t) (n + 1));
    for (int i = 0; i < n; ++i) {
        l[i] = q[idx[i]];
    }
    int err = MPI_SUCCESS;
    switch (how) {
    case CP_WAITALL:
        err = MPI_Waitall(n, l, st);
        break;
    case CP_TESTALL: {
        int flag = 0;
        while (!flag && MPI_SUCCESS == err) {
            err = MPI_Testall(n, l, &flag, st);
        }
        break;
    }
    case CP_WAITANY:
        for (int done = 0; done < n && MPI_SUCCESS == err; ++done) {
            int which;
            err = MPI_Waitany(n, l, &which, MPI_STATUS_IGNORE);
            if (MPI_UNDEFINED == which) {
                break;
            }
        }
        break;
    case CP_WAITSOME: {
        int left = n;
        while (left > 0 && MPI_SUCCESS == err) {
            int k = 0;
            err = MPI_Waitsome(n, l, &k, out, st);
            if (MPI_UNDEFINED == k) {
                break;
            }
            left -= k;
        }
        break;
    }
    case CP_TEST: {
        int left = n;
        bool *done = hf_alloc(sizeof(bool) * (size_t) (n + 1));
        memset(done, 0, sizeof(bool) * (size_t) (n + 1));
        while (left > 0 && MPI_SUCCESS == err) {
            for (int i = 0; i < n && MPI_SUCCESS == err; ++i) {
                int flag = 0;
                if (done[i]) {
                    continue;
                }
                err = MPI_Test(&l[i], &flag, MPI_STATUS_IGNORE);
                if (flag) {
                    done[i] = true;
                    left--;
                }
            }
        }
        free(done);
        break;
    }
    default:
        for (int i = 0; i < n && MPI_SUCCESS == err; ++i) {
            err = MPI_Wait(&l[i], MPI_STATUS_IGNORE);
        }
        break;
    }
    if (MPI_ERR_IN_STATUS == err && (CP_WAITALL == how || CP_TESTALL == how)) {
        for (int i = 0; i < n; ++i) {
            if (MPI_SUCCESS != st[i].MPI_ERROR && MPI_SUCCESS == rc[idx[i]]) {
                rc[idx[i]] = st[i].MPI_ERROR;
            }
        }
    } else if (MPI_SUCCESS != err) {
        for (int i = 0; i < n; ++i) {
            if (MPI_SUCCESS == rc[idx[i]]) {
                rc[idx[i]] = err;
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        q[idx[i]] = l[i];
    }
    free(l);
    free(st);
    free(out);
    return err;
}

/* a permutation of the n items listed in idx (this rank's own) */
static void permute(int *idx, int n, hf_rng_t *r)
{
    for (int i = n - 1; i > 0; --i) {
        int j = (int) hf_below(r, (uint64_t) i + 1), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

/* a batch: the calls in flight together on tc (which it may free) */
static void exec_batch(hf_inst_t *x, int n, MPI_Comm *tc, const hf_case_t *top, int *rc)
{
    MPI_Request q[HF_MAX_BATCH];
    hf_call_t a[HF_MAX_BATCH];
    int pers[HF_MAX_BATCH], np = 0, act[HF_MAX_BATCH], na = 0;
    hf_rng_t r = hf_stream(top->seed ^ 0x0dd5ull, (uint64_t) hf_opt.rank);
    for (int i = 0; i < n; ++i) {
        q[i] = MPI_REQUEST_NULL;
        rc[i] = MPI_SUCCESS;
        a[i] = args_of(&x[i], 0);
        switch (x[i].cs.mode) {
        case MD_BLOCKING: rc[i] = hf_call_blocking(x[i].cs.coll, &a[i], *tc); break;
        case MD_NONBLOCKING:
            rc[i] = hf_call_nonblocking(x[i].cs.coll, &a[i], *tc, &q[i]);
            if (MPI_SUCCESS == rc[i]) act[na++] = i;
            break;
        default:
            rc[i] = hf_call_init(x[i].cs.coll, &a[i], *tc, &q[i]);
            if (MPI_SUCCESS == rc[i]) pers[np++] = i;
            break;
        }
    }
    if (top->freed) {
        MPI_Comm_free(tc);
    }
    int most = 0;
    for (int i = 0; i < np; ++i) {
        most = x[pers[i]].reps > most ? x[pers[i]].reps : most;
    }
    for (int rep = 0; rep < (most > 0 ? most : 1); ++rep) {
        /* the persistent calls due again, started in this rank's order */
        int st[HF_MAX_BATCH], ns = 0;
        for (int i = 0; i < np; ++i) {
            if (x[pers[i]].reps > rep) st[ns++] = pers[i];
        }
        permute(st, ns, &r);
        if (ns > 0) {
            MPI_Request sq[HF_MAX_BATCH];
            for (int i = 0; i < ns; ++i) {
                sq[i] = q[st[i]];
            }
            int e = MPI_Startall(ns, sq);
            for (int i = 0; i < ns; ++i) {
                if (MPI_SUCCESS != e && MPI_SUCCESS == rc[st[i]]) rc[st[i]] = e;
                act[na++] = st[i];
            }
        }
        permute(act, na, &r);
        complete(q, act, na, top->completion, rc);
        na = 0;
    }
    for (int i = 0; i < np; ++i) {
        if (MPI_REQUEST_NULL != q[pers[i]]) {
            MPI_Request_free(&q[pers[i]]);
        }
    }
}

/* one unit: its calls (drawn from cs), run on w's communicator, compared */
static void run_unit(hf_where_t *w, const hf_case_t *cs, const hf_ovr_t *o, hf_verdict_t *v)
{
    int pick = NULL != o ? o->pick : -1;
    int n = pick >= 0 ? 1 : cs->batch > 0 ? cs->batch : 1;
    hf_inst_t *x = hf_alloc(sizeof(hf_inst_t) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        hf_case_t c = *cs;
        int which = pick >= 0 ? pick : i;
        if (which > 0) {
            hf_draw_sub(cs, which, &c);
            if (NULL != o) {
                hf_apply_ovr(&c, o);
            }
        }
        c.batch = 1;
        if ((n > 1 || cs->freed) && MD_PERSISTENT != c.mode) {
            c.reps = 1; /* (a batch runs its blocking and nonblocking calls once) */
        }
        if (FAM_INTER == w->fam && cs->freed && MD_BLOCKING != c.mode) {
            /* an intercommunicator freed in flight (by --freed 1 only):
             * hiercoll's own plans (Open MPI 4.1.4's libnbc reads the local
             * communicator that MPI_Comm_free has already freed: known
             * issues) */
            hf_own_algo(c.coll, c.algo, sizeof(c.algo));
        }
        for (int j = 0; j < i; ++j) {
            /* one algorithm per collective on a communicator */
            if (x[j].cs.coll == c.coll) {
                snprintf(c.algo, sizeof(c.algo), "%s", x[j].cs.algo);
            }
        }
        hf_inst_init(&x[i], &c, w->fam, w->n, w->me, w->world, w->topo);
        count_call(&x[i]);
    }
    for (int i = 0; i < n; ++i) {
        if (HF_REF_SERIAL == hf_opt.ref && hf_below_copy_loses(&x[i])) {
            /* hiercoll's own plan for this collective: the layer below's
             * local copy would lose the tail of this rank's own block
             * (upstream, known issues; hiercoll's copies cut at elements) */
            char own[32];
            hf_own_algo(x[i].cs.coll, own, sizeof(own));
            for (int j = 0; j < n; ++j) {
                if (x[j].cs.coll == x[i].cs.coll && 0 != strcmp(x[j].cs.algo, own)) {
                    snprintf(x[j].cs.algo, sizeof(x[j].cs.algo), "%s", own);
                    size_t l = strlen(x[j].desc);
                    snprintf(x[j].desc + l, sizeof(x[j].desc) - l,
                             " (algo %s: the layer below's copy would lose a tail)", own);
                }
            }
        }
    }
    if (hf_opt.verbose && 0 == w->me) {
        for (int i = 0; i < n; ++i) {
            fprintf(stderr, "hc_fuzz:   call %d of %d%s%s: %s\n", i, n,
                    cs->freed ? ", freed in flight" : "", n > 1 ? ", completed by " : "",
                    n > 1 ? hf_cp_names[cs->completion] : "");
            fprintf(stderr, "hc_fuzz:     %s\n", x[i].desc);
        }
        fflush(stderr);
    }
    if (w->err[0]) {
        v->bad = 1;
        snprintf(v->what, sizeof(v->what), "%s; ", w->err);
    }
    MPI_Info it = info_tested(w, x, n);
    MPI_Comm tc;
    MPI_Comm_dup_with_info(w->comm, it, &tc);
    MPI_Info_free(&it);
    MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
    long unknown0 = hf_user_op_unknown();
    for (int i = 0; i < n; ++i) {
        (void) hf_rank(&x[i], w->me);
        hf_user_types_add(x[i].ty.T, x[i].ty.mt);
        if (MPI_DATATYPE_NULL != x[i].ty.P) {
            hf_user_types_add(x[i].ty.P, x[i].ty.mp);
        }
    }
    int rc[HF_MAX_BATCH], rref[HF_MAX_BATCH];
    for (int i = 0; i < n; ++i) {
        rref[i] = MPI_SUCCESS;
    }
    if (HF_REF_SERIAL == hf_opt.ref) {
        for (int i = 0; i < n; ++i) {
            hf_reference(&x[i]);
        }
    } else {
        /* the twin, one call at a time: blocking on coll/basic */
        MPI_Info fi = info_twin();
        MPI_Comm fc;
        MPI_Comm_dup_with_info(w->comm, fi, &fc);
        MPI_Info_free(&fi);
        MPI_Comm_set_errhandler(fc, MPI_ERRORS_RETURN);
        hf_run_side = "the reference (twin) run";
        for (int i = 0; i < n; ++i) {
            hf_call_t a = args_of(&x[i], 1);
            if (x[i].cs.warm) {
                MPI_Barrier(fc);
            }
            rref[i] = exec_one(&x[i], &a, fc,
                               HF_REF_BASIC == hf_opt.ref ? MD_BLOCKING : x[i].cs.mode);
        }
        MPI_Comm_free(&fc);
    }
    hf_run_side = "hiercoll's run";
    if (1 == n && !cs->freed) {
        hf_call_t a = args_of(&x[0], 0);
        if (x[0].cs.warm) {
            MPI_Barrier(tc);
        }
        rc[0] = exec_one(&x[0], &a, tc, x[0].cs.mode);
    } else {
        exec_batch(x, n, &tc, cs, rc);
    }
    hf_run_side = "set-up";
    if (MPI_COMM_NULL != tc) {
        MPI_Comm_free(&tc);
    }
    long unknown = hf_user_op_unknown() - unknown0;
    for (int i = 0; i < n; ++i) {
        hf_verdict_t vi = {0, "", ""};
        hf_rank_t *k = hf_rank(&x[i], w->me);
        compare(k->b, 2, rc[i], rref[i], unknown, x[i].ty.mt, &vi);
        unknown = 0;
        if (vi.bad) {
            if (vi.bad > v->bad) {
                v->bad = vi.bad;
            }
            size_t l = strlen(v->what);
            snprintf(v->what + l, sizeof(v->what) - l, "%s", vi.what);
            if (n > 1) {
                l = strlen(v->what);
                snprintf(v->what + l, sizeof(v->what) - l, "(call %d of %d: %s %s) ", i, n,
                         hf_coll_names[x[i].cs.coll], hf_mode_names[x[i].cs.mode]);
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        hf_user_types_remove(x[i].ty.T, x[i].ty.mt);
        if (MPI_DATATYPE_NULL != x[i].ty.P) {
            hf_user_types_remove(x[i].ty.P, x[i].ty.mp);
        }
        if (0 == i) {
            snprintf(v->desc, sizeof(v->desc), "%s", x[0].desc);
        }
        if (n > 1) {
            size_t l = strlen(v->desc);
            if (0 == i) {
                snprintf(v->desc + l, sizeof(v->desc) - l, " | batch of %d, %s%s", n,
                         hf_cp_names[cs->completion], cs->freed ? ", freed in flight" : "");
            } else {
                snprintf(v->desc + l, sizeof(v->desc) - l, " | %s %s count=%ld algo=%s",
                         hf_coll_names[x[i].cs.coll], hf_mode_names[x[i].cs.mode], x[i].c,
                         x[i].cs.algo);
            }
        } else if (cs->freed) {
            size_t l = strlen(v->desc);
            snprintf(v->desc + l, sizeof(v->desc) - l, " | freed in flight");
        }
        hf_inst_free(&x[i]);
    }
    free(x);
}

/* ------------------------------------------------------------------ */
/* threads                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    hf_where_t where;
    hf_case_t tmpl;
    bool member;
    MPI_Comm base;
    int units;
    hf_verdict_t v;
    pthread_t th;
} hf_thread_t;

static void *thread_main(void *arg)
{
    hf_thread_t *t = arg;
    for (int u = 0; u < t->units; ++u) {
        hf_case_t c;
        hf_draw_sub(&t->tmpl, 1000 + u, &c);
        hf_verdict_t v = {0, "", ""};
        run_unit(&t->where, &c, NULL, &v);
        if (v.bad) {
            if (v.bad > t->v.bad) {
                t->v.bad = v.bad;
            }
            size_t l = strlen(t->v.what);
            snprintf(t->v.what + l, sizeof(t->v.what) - l, "unit %d (%s): %s", u, v.desc, v.what);
        }
    }
    return NULL;
}

static void run_threads(const hf_case_t *cs, hf_verdict_t *v)
{
    int nt = cs->threads;
    hf_thread_t *t = hf_alloc(sizeof(hf_thread_t) * (size_t) nt);
    memset(t, 0, sizeof(hf_thread_t) * (size_t) nt);
    /* communicators made here, in order (collective over world) */
    for (int i = 0; i < nt; ++i) {
        hf_draw_case(&t[i].tmpl, hf_mix(cs->seed ^ hf_mix(0x7ead0000ull + (uint64_t) i)), cs->gen);
        t[i].tmpl.threads = 0;
        t[i].tmpl.batch = 1;
        hf_rng_t r = hf_stream(cs->seed, 200 + (uint64_t) i);
        t[i].units = 1 + (int) hf_below(&r, 3);
        t[i].base = base_comm(&t[i].tmpl);
        if (MPI_COMM_WORLD == t[i].base) {
            /* a communicator of the thread's own: each thread's units dup
             * theirs, and two threads must not call one communicator's
             * collectives at once */
            MPI_Comm_dup(MPI_COMM_WORLD, &t[i].base);
        }
        t[i].member = MPI_COMM_NULL != t[i].base;
        if (t[i].member) {
            where_make(&t[i].where, &t[i].tmpl, t[i].base);
        }
    }
    for (int i = 0; i < nt; ++i) {
        if (t[i].member) {
            pthread_create(&t[i].th, NULL, thread_main, &t[i]);
        }
    }
    int w = snprintf(v->desc, sizeof(v->desc), "%d threads:", nt);
    for (int i = 0; i < nt; ++i) {
        if (t[i].member) {
            pthread_join(t[i].th, NULL);
            where_free(&t[i].where);
            MPI_Comm_free(&t[i].base);
        }
        if (t[i].v.bad) {
            v->bad = t[i].v.bad > v->bad ? t[i].v.bad : v->bad;
            size_t l = strlen(v->what);
            snprintf(v->what + l, sizeof(v->what) - l, "thread %d: %s", i, t[i].v.what);
        }
        if ((size_t) w < sizeof(v->desc)) {
            w += snprintf(v->desc + w, sizeof(v->desc) - (size_t) w, " %d units on %s %s%s",
                          t[i].units, hf_fam_names[t[i].tmpl.fam], hf_comm_names[t[i].tmpl.comm],
                          i + 1 < nt ? ";" : "");
        }
    }
    pthread_mutex_lock(&stats_lock);
    hf_stats.threads++;
    pthread_mutex_unlock(&stats_lock);
    free(t);
}

/* ------------------------------------------------------------------ */
/* a case                                                               */
/* ------------------------------------------------------------------ */

void hf_run(const hf_case_t *cs, const hf_ovr_t *o, hf_verdict_t *v)
{
    memset(v, 0, sizeof(*v));
    hf_stats.cases++;
    if (cs->threads > 1 && hf_opt.threads_ok) {
        run_threads(cs, v);
        return;
    }
    MPI_Comm base = base_comm(cs);
    if (MPI_COMM_NULL != base) {
        hf_where_t w;
        where_make(&w, cs, base);
        run_unit(&w, cs, o, v);
        where_free(&w);
        if (MPI_COMM_WORLD != base) {
            MPI_Comm_free(&base);
        }
    } else {
        snprintf(v->desc, sizeof(v->desc), "(not in the case's communicator)");
    }
    int n = cs->batch > 1 ? cs->batch : 1;
    if (n > 1) {
        hf_stats.batch++;
        hf_stats.cp[cs->completion]++;
    }
    hf_stats.freed += cs->freed;
    hf_stats.crit[cs->crit]++;
}
