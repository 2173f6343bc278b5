/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Short-circuit reductions (docs/short-circuit.md).
 *
 * The absorbing-value table against Open MPI's op formulas, written out
 * here (a && b, a || b, a & b, a | b, a > b ? a : b, a < b ? a : b, a * b
 * in the element's C type), over every value of 8- and 16-bit elements and
 * samples of 32- and 64-bit ones.
 *
 * The marked plans (recursive-doubling allreduce, binomial reduce with the
 * decider relabelled next to the root) run by the simulator's early-exit
 * mode: every set of deciders for n <= 8 (every root for reduce), random
 * deciders for every n to 1,000 and at samples to 32,768, deciders of
 * single elements, late ranks.  Results are exact (the decided value when
 * some rank decided, else every contribution once), every message meets
 * its receive, deciders return at once, nobody returns later than the
 * plain algorithm, and the instant each rank returns equals the model
 * written here: with unit latency, popcount(rank ^ decider) for allreduce
 * on 2^k ranks, and the tree recursion below for reduce.
 */
#include <string.h>

#include "unit_common.h"

/* ------------------------------------------------------------------ */
/* The table                                                            */
/* ------------------------------------------------------------------ */

/* Open MPI's formula of op on two elements of a C type T. */
#define OMPI_OP(T, op, a, b)                                                                       \
    (HCP_SC_LAND == (op)   ? (T) ((a) && (b))                                                      \
     : HCP_SC_LOR == (op)  ? (T) ((a) || (b))                                                      \
     : HCP_SC_BAND == (op) ? (T) ((a) & (b))                                                       \
     : HCP_SC_BOR == (op)  ? (T) ((a) | (b))                                                       \
     : HCP_SC_MAX == (op)  ? (T) ((a) > (b) ? (a) : (b))                                           \
     : HCP_SC_MIN == (op)  ? (T) ((a) < (b) ? (a) : (b))                                           \
                           : (T) ((a) * (b)))

/* For every x: z (op) x and x (op) z equal the decided value whenever z is
 * absorbing by hcp_sc_decided, and hcp_sc_decided says z is absorbing
 * exactly when that holds for all x (checked on the sampled x). */
#define CHECK_TYPE(T, cls, op, nz, zs, nx, xs)                                                     \
    do {                                                                                           \
        hcp_sc_kind_t k;                                                                           \
        ck_assert(hcp_sc_kind(&k, (op), (cls), (int) sizeof(T)));                                  \
        T dv;                                                                                      \
        memcpy(&dv, k.decided, sizeof(T));                                                         \
        for (int64_t iz = 0; iz < (nz); ++iz) {                                                    \
            T z = (T) (zs)[iz];                                                                    \
            bool absorbing = true;                                                                 \
            for (int64_t ix = 0; ix < (nx) && absorbing; ++ix) {                                   \
                T x = (T) (xs)[ix];                                                                \
                T r1 = OMPI_OP(T, op, z, x), r2 = OMPI_OP(T, op, x, z);                            \
                absorbing = r1 == OMPI_OP(T, op, z, z) && r2 == r1;                                \
                if (hcp_sc_decided(&k, &z, 1)) {                                                   \
                    ck_assert_msg(r1 == dv && r2 == dv, "op %d size %zu: %lld (op) %lld", (op),    \
                                  sizeof(T), (long long) z, (long long) x);                        \
                }                                                                                  \
            }                                                                                      \
            if (absorbing && OMPI_OP(T, op, z, z) == dv) {                                         \
                ck_assert_msg(hcp_sc_decided(&k, &z, 1), "op %d size %zu: %lld is absorbing",      \
                              (op), sizeof(T), (long long) z);                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static int64_t samples[4096];
static int nsamples;

static void make_samples(int bits)
{
    uint64_t st = 42;
    nsamples = 0;
    uint64_t top = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
    uint64_t special[] = {0, 1, 2, top, top - 1, top >> 1, (top >> 1) + 1, (top >> 1) - 1};
    for (int i = 0; i < 8; ++i) {
        samples[nsamples++] = (int64_t) special[i];
    }
    while (nsamples < 4096) {
        samples[nsamples++] = (int64_t) (unit_rand(&st) & top);
    }
}

START_TEST(test_table)
{
    static int64_t all8[256], all16[65536 / 16];
    for (int i = 0; i < 256; ++i) {
        all8[i] = i;
    }
    for (int op = HCP_SC_LAND; op <= HCP_SC_PROD; ++op) {
        bool logical = HCP_SC_LAND == op || HCP_SC_LOR == op;
        bool bits = HCP_SC_BAND == op || HCP_SC_BOR == op;
        CHECK_TYPE(int8_t, HCP_SC_SIGNED, op, 256, all8, 256, all8);
        CHECK_TYPE(uint8_t, HCP_SC_UNSIGNED, op, 256, all8, 256, all8);
        for (int i = 0; i < 65536 / 16; ++i) {
            all16[i] = i * 16 + (i % 16); /* a spread of values */
        }
        all16[0] = 0;
        all16[1] = 0x7fff;
        all16[2] = 0x8000;
        all16[3] = 0xffff;
        all16[4] = 1;
        CHECK_TYPE(int16_t, HCP_SC_SIGNED, op, 4096, all16, 4096, all16);
        CHECK_TYPE(uint16_t, HCP_SC_UNSIGNED, op, 4096, all16, 4096, all16);
        make_samples(32);
        CHECK_TYPE(int32_t, HCP_SC_SIGNED, op, nsamples, samples, 512, samples);
        CHECK_TYPE(uint32_t, HCP_SC_UNSIGNED, op, nsamples, samples, 512, samples);
        make_samples(64);
        CHECK_TYPE(int64_t, HCP_SC_SIGNED, op, nsamples, samples, 512, samples);
        CHECK_TYPE(uint64_t, HCP_SC_UNSIGNED, op, nsamples, samples, 512, samples);
        /* C bool and Fortran LOGICAL: logical ops only; MPI_BYTE: bitwise */
        hcp_sc_kind_t k;
        ck_assert(logical == hcp_sc_kind(&k, (hcp_sc_op_t) op, HCP_SC_BOOL, 1));
        ck_assert(logical == hcp_sc_kind(&k, (hcp_sc_op_t) op, HCP_SC_BOOL, 4));
        ck_assert(bits == hcp_sc_kind(&k, (hcp_sc_op_t) op, HCP_SC_BYTE, 1));
        if (logical) {
            CHECK_TYPE(int32_t, HCP_SC_BOOL, op, 256, all8, 256, all8);
        }
        if (bits) {
            CHECK_TYPE(uint8_t, HCP_SC_BYTE, op, 256, all8, 256, all8);
        }
    }
    hcp_sc_kind_t k;
    ck_assert(!hcp_sc_kind(&k, HCP_SC_NONE, HCP_SC_SIGNED, 4));
    ck_assert(!hcp_sc_kind(&k, HCP_SC_MAX, HCP_SC_SIGNED, 16));
    ck_assert(!hcp_sc_kind(&k, HCP_SC_MAX, HCP_SC_SIGNED, 3));
    /* whole buffers: LOR is decided by any nonzero values, writes 1 */
    ck_assert(hcp_sc_kind(&k, HCP_SC_LOR, HCP_SC_SIGNED, 4));
    int32_t v[5] = {5, -1, 7, 1, 2};
    ck_assert(hcp_sc_decided(&k, v, 5));
    v[3] = 0;
    ck_assert(!hcp_sc_decided(&k, v, 5));
    ck_assert(hcp_sc_decided(&k, v, 3));
    hcp_sc_fill(&k, v, 5);
    for (int i = 0; i < 5; ++i) {
        ck_assert_int_eq(v[i], 1);
    }
    ck_assert(hcp_sc_kind(&k, HCP_SC_MIN, HCP_SC_SIGNED, 8));
    int64_t w[3];
    hcp_sc_fill(&k, w, 3);
    ck_assert(INT64_MIN == w[2] && hcp_sc_decided(&k, w, 3));
    w[1] = INT64_MIN + 1;
    ck_assert(!hcp_sc_decided(&k, w, 3));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Plans through the simulator                                          */
/* ------------------------------------------------------------------ */

typedef struct targs {
    int n, root, decider;
    int64_t count;
    size_t esize;
    bool in_place, all;
} targs_t;

static int plan_sc(hcp_plan_t *p, int rank, void *arg)
{
    const targs_t *a = arg;
    if (a->all) {
        return hcp_allreduce_shortcut(p, a->n, rank, a->count, a->esize, a->in_place);
    }
    return hcp_reduce_shortcut(p, a->n, rank, a->root, a->count, a->esize,
                               a->in_place && rank == a->root, a->decider);
}

static bool has_result(const targs_t *a, int rank)
{
    return a->all || rank == a->root;
}

static int in_buf(const targs_t *a, int rank)
{
    return a->in_place && has_result(a, rank) ? HCP_RBUF : HCP_SBUF;
}

/* Deciders: bit r of `set` (n <= 64), or the list. whole: the rank's
 * whole vector is decided; else element (r mod count) only. */
typedef struct deciders {
    int n;
    const int *list;
    int nlist;
    uint64_t set;
    bool use_set;
} deciders_t;

static bool is_decider(const deciders_t *d, int r)
{
    if (d->use_set) {
        return (d->set >> r) & 1;
    }
    for (int i = 0; i < d->nlist; ++i) {
        if (d->list[i] == r) {
            return true;
        }
    }
    return false;
}

/* Run the early-exit simulation (and the plain one for comparison);
 * check results; return the sim (the caller frees it) for more checks. */
static sim_t *run_case(targs_t *a, const deciders_t *d, const double *start, bool whole,
                       double *plain_end, bool plain_known)
{
    int64_t bytes = a->count * (int64_t) a->esize;
    /* the plain run: same plans, every contribution, no deciders */
    if (NULL != plain_end && !plain_known) {
        sim_t *p = sim_new(a->n, true);
        UNIT_PLAN(p, plan_sc, a, NULL, NULL);
        for (int r = 0; r < a->n; ++r) {
            sim_set(p, r, in_buf(a, r), 0, bytes, sim_input(r));
            if (NULL != start) {
                sim_set_start(p, r, start[r]);
            }
        }
        UNIT_RUN(p, &unit_depth_model, "plain n %d", a->n);
        for (int r = 0; r < a->n; ++r) {
            plain_end[r] = sim_stats(p, r)->t_end;
        }
        sim_free(p);
    }
    sim_t *s = sim_new(a->n, true);
    UNIT_PLAN(s, plan_sc, a, NULL, NULL);
    bool any = false;
    bool *elem_dec = calloc((size_t) (a->count > 0 ? a->count : 1), sizeof(bool));
    for (int r = 0; r < a->n; ++r) {
        sim_set(s, r, in_buf(a, r), 0, bytes, sim_input(r));
        if (NULL != start) {
            sim_set_start(s, r, start[r]);
        }
        if (is_decider(d, r) && bytes > 0) {
            any = true;
            if (whole) {
                sim_set(s, r, in_buf(a, r), 0, bytes, sim_decided());
                for (int64_t i = 0; i < a->count; ++i) {
                    elem_dec[i] = true;
                }
            } else {
                int64_t i = r % a->count;
                sim_set(s, r, in_buf(a, r), i * (int64_t) a->esize, (int64_t) a->esize,
                        sim_decided());
                elem_dec[i] = true;
            }
        }
    }
    ck_assert_msg(0 == sim_run_early(s, &unit_depth_model), "n %d root %d count %lld: %s", a->n,
                  a->root, (long long) a->count, sim_error(s));
    sim_val_t all = sim_range_of(0, a->n - 1);
    for (int r = 0; r < a->n && bytes > 0; ++r) {
        if (!has_result(a, r)) {
            continue;
        }
        for (int64_t i = 0; i < a->count; ++i) {
            sim_val_t want = elem_dec[i] ? sim_decided() : sim_shifted(all, 0);
            UNIT_EXPECT(s, r, HCP_RBUF, i * (int64_t) a->esize, (int64_t) a->esize, want, false,
                        "n %d root %d rank %d element %lld (any decider: %d)", a->n, a->root, r,
                        (long long) i, any);
        }
    }
    free(elem_dec);
    if (NULL != plain_end) {
        for (int r = 0; r < a->n; ++r) {
            ck_assert_msg(sim_stats(s, r)->t_end <= plain_end[r] + 1e-9,
                          "n %d: rank %d returns at %g, after the plain algorithm (%g)", a->n, r,
                          sim_stats(s, r)->t_end, plain_end[r]);
        }
    }
    return s;
}

static int popcount(unsigned x)
{
    return __builtin_popcount(x);
}

/* Allreduce, 2^k ranks, unit latency, all start together: a decider
 * returns at 0; another rank r when the decided value has come along
 * the bits of r ^ d, one message per bit (a decided rank sends on all its
 * remaining sends, and the remaining ones include the higher bits). */
static double model_allreduce(int n, int r, const deciders_t *d)
{
    int best = hcp_ceil_log2(n);
    for (int x = 0; x < (d->use_set ? n : d->nlist); ++x) {
        int dx = d->use_set ? x : d->list[x];
        if (is_decider(d, dx) && popcount((unsigned) (r ^ dx)) < best) {
            best = popcount((unsigned) (r ^ dx));
        }
    }
    return best;
}

/* Reduce on the binomial tree (after the relabelling): with unit
 * latency, a node sends when it is decided (a decider at 0, else one
 * after its first child's decided message) or when all its children's
 * messages are in, whichever comes first; a child's message is decided
 * when its subtree holds a decider.  Returns node v's send time. */
static double tree_send(int n, int v, const int *of_v, const deciders_t *d, bool *has_dec)
{
    int ch[64];
    int k = hcp_binomial_children(n, v, ch, 64);
    double plain = 0, dec = is_decider(d, of_v[v]) ? 0 : 1e30;
    *has_dec = is_decider(d, of_v[v]);
    for (int i = 0; i < k; ++i) {
        bool cd;
        double t = tree_send(n, ch[i], of_v, d, &cd) + 1;
        plain = t > plain ? t : plain;
        if (cd && t < dec) {
            dec = t;
        }
        *has_dec |= cd;
    }
    return dec < plain ? dec : plain;
}

static void sweep_deciders(targs_t *a, bool exact_model)
{
    int n = a->n;
    double plain[64];
    for (uint64_t set = 0; set < (1ULL << n); ++set) {
        deciders_t d = {.n = n, .set = set, .use_set = true};
        sim_t *s = run_case(a, &d, NULL, true, plain, set > 0);
        for (int r = 0; r < n; ++r) {
            const sim_stats_t *st = sim_stats(s, r);
            if (is_decider(&d, r)) {
                ck_assert_msg((st->early || 1 == n) && 0 == st->t_end,
                              "n %d: decider %d returns at %g", n, r, st->t_end);
            }
            if (!exact_model) {
                continue;
            }
            double want;
            if (a->all) {
                want = model_allreduce(n, r, &d);
            } else {
                int of_v[64];
                for (int v = 0; v < n; ++v) {
                    of_v[v] = (v + a->root) % n;
                }
                int first = (a->root + 1) % n, dd = a->decider;
                if (dd >= 0 && dd != a->root && dd != first) {
                    of_v[(dd - a->root + n) % n] = first;
                    of_v[1] = dd;
                }
                int v = 0;
                while (of_v[v] != r) {
                    ++v;
                }
                bool hd; /* (the root: the instant it would send) */
                want = tree_send(n, v, of_v, &d, &hd);
            }
            ck_assert_msg(st->t_end == want,
                          "%s n %d root %d deciders %llx: rank %d returns at %g, model %g",
                          a->all ? "allreduce" : "reduce", n, a->root, (unsigned long long) set, r,
                          st->t_end, want);
        }
        sim_free(s);
    }
}

START_TEST(test_allreduce_every_decider_set)
{
    for (int n = 1; n <= 8; ++n) {
        for (int ip = 0; ip < 2; ++ip) {
            targs_t a = {.n = n, .count = 3, .esize = 4, .in_place = ip, .all = true};
            sweep_deciders(&a, n == hcp_pof2_floor(n));
        }
    }
}
END_TEST

START_TEST(test_reduce_every_decider_set)
{
    for (int n = 1; n <= 7; ++n) {
        for (int root = 0; root < n; ++root) {
            for (int dd = -1; dd < n; dd += (n > 4 ? 3 : 1)) {
                targs_t a = {.n = n,
                             .root = root,
                             .decider = dd,
                             .count = 2,
                             .esize = 8,
                             .in_place = (root + dd) & 1,
                             .all = false};
                sweep_deciders(&a, true);
            }
        }
    }
}
END_TEST

/* Deciders of single elements: a vector is decided where its elements
 * are, partial results combine them. */
START_TEST(test_element_deciders)
{
    for (int n = 2; n <= 9; ++n) {
        for (uint64_t set = 1; set < (1ULL << n); set += 3) {
            targs_t a = {.n = n, .count = 3, .esize = 2, .all = true};
            deciders_t d = {.n = n, .set = set, .use_set = true};
            sim_free(run_case(&a, &d, NULL, false, NULL, false));
            a.all = false;
            a.root = (int) (set % (uint64_t) n);
            a.decider = -1;
            sim_free(run_case(&a, &d, NULL, false, NULL, false));
        }
    }
}
END_TEST

/* Random deciders at every n to 1,000 and at the samples to 32,768 (and
 * none at all: the plain result through the early-exit executor). */
static void random_case(int n, uint64_t *st)
{
    int list[3];
    int k = (int) (unit_rand(st) % 4);
    for (int i = 0; i < k; ++i) {
        list[i] = (int) (unit_rand(st) % (uint64_t) n);
    }
    deciders_t d = {.n = n, .list = list, .nlist = k};
    targs_t a = {.n = n,
                 .count = 1 + (int64_t) (unit_rand(st) % 3),
                 .esize = 4,
                 .in_place = unit_rand(st) & 1,
                 .all = true};
    double *plain = malloc(sizeof(double) * (size_t) n);
    sim_t *s = run_case(&a, &d, NULL, true, plain, false);
    if (n == hcp_pof2_floor(n)) {
        for (int r = 0; r < n; ++r) {
            ck_assert(sim_stats(s, r)->t_end == model_allreduce(n, r, &d));
        }
    }
    sim_free(s);
    a.all = false;
    a.root = (int) (unit_rand(st) % (uint64_t) n);
    a.decider = k > 0 ? list[0] : -1;
    s = run_case(&a, &d, NULL, true, plain, false);
    if (k > 0) { /* the relabelled decider is one message from the root */
        ck_assert_msg(sim_stats(s, a.root)->t_end <= (a.decider == a.root ? 0 : 1),
                      "n %d: root %d returns at %g", n, a.root, sim_stats(s, a.root)->t_end);
    }
    sim_free(s);
    free(plain);
}

START_TEST(test_every_n)
{
    uint64_t st = 7;
    for (int n = 1; n <= 1000; ++n) {
        random_case(n, &st);
    }
    for (int i = 0; i < UNIT_NBIG; ++i) {
        random_case(unit_big_sizes[i], &st);
    }
}
END_TEST

/* A late rank: the decider's value does not wait for it.  Reduce: the
 * root returns one message after the start (the decider sits next to
 * it).  Allreduce on 2^k ranks: the decider's partners return at 1 (a
 * rank whose remaining partners include the late one may still wait: every
 * rank sends exactly the plain algorithm's messages). */
START_TEST(test_late_rank)
{
    for (int n = 2; n <= 40; ++n) {
        double *start = calloc((size_t) n, sizeof(double));
        double *plain = malloc(sizeof(double) * (size_t) n);
        int late = n / 2, dec = (n / 2 + 1) % n;
        start[late] = 100;
        int list[1] = {dec};
        deciders_t d = {.n = n, .list = list, .nlist = 1};
        for (int all = 0; all < 2; ++all) {
            targs_t a = {.n = n, .root = 0, .decider = dec, .count = 2, .esize = 4, .all = all};
            sim_t *s = run_case(&a, &d, start, true, plain, false);
            ck_assert(0 == sim_stats(s, dec)->t_end);
            if (!all) {
                ck_assert_msg(sim_stats(s, 0)->t_end <= 1, "n %d: the root returns at %g", n,
                              sim_stats(s, 0)->t_end);
            } else if (n == hcp_pof2_floor(n)) {
                for (int bit = 1; bit < n; bit <<= 1) {
                    if ((dec ^ bit) != late) {
                        ck_assert(1 == sim_stats(s, dec ^ bit)->t_end);
                    }
                }
            }
            ck_assert(plain[0] >= 100);
            sim_free(s);
        }
        free(start);
        free(plain);
    }
}
END_TEST

/* Plans are marked only where every send carries the whole vector. */
START_TEST(test_marks)
{
    hcp_plan_t p;
    hcp_init(&p);
    ck_assert_int_eq(0, hcp_allreduce_shortcut(&p, 1, 0, 4, 4, false));
    ck_assert_int_eq(0, p.sc_count); /* one process: nothing to gain */
    ck_assert_int_eq(0, hcp_allreduce_shortcut(&p, 6, 1, 4, 4, false));
    ck_assert_int_eq(4, p.sc_count);
    ck_assert(p.sc_out && HCP_SBUF == p.sc_in);
    for (int i = 0; i < p.nops; ++i) {
        ck_assert(HCP_COPY == p.ops[i].kind || (p.ops[i].flags & HCP_F_RUNNING));
    }
    ck_assert_int_eq(0, hcp_reduce_shortcut(&p, 6, 3, 2, 4, 4, false, 5));
    ck_assert(!p.sc_out && p.sc_count == 4);
    /* a plan sending part of the vector is left unmarked */
    hcp_reduce_rhrd(&p, 6, 3, 2, 8, 4, false);
    hcp_sc_mark(&p, 8, HCP_SBUF, false);
    ck_assert_int_eq(0, p.sc_count);
    for (int i = 0; i < p.nops; ++i) {
        ck_assert(0 == p.ops[i].flags);
    }
    hcp_fini(&p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan_shortcut");
    TCase *tc = tcase_create("shortcut");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_table);
    tcase_add_test(tc, test_marks);
    tcase_add_test(tc, test_allreduce_every_decider_set);
    tcase_add_test(tc, test_reduce_every_decider_set);
    tcase_add_test(tc, test_element_deciders);
    tcase_add_test(tc, test_late_rank);
    tcase_add_test(tc, test_every_n);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
