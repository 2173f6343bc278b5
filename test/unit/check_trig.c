/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered-operation engine and its allreduce/reduce programs (seed
 * 003), run by the event-driven simulation of all ranks' engines
 * (sim/hiercoll_trig_sim.h): K in {2, 4, 8}, K-nomial and K-ary, every
 * process count from 1 to 1,000 and samples up to 32,768, random roots,
 * random packet arrival orders and arming times.  Checked: results equal
 * a serial reference computed here (integers: the plain sum; floats: the
 * tree's fixed operand order, and bitwise identical across arrival
 * orders), every packet consumed (nothing left in any MPQ or backlog),
 * no MPQ overflow under credits, and the packet counts and depth of the
 * published design's model: allreduce 2(n-1) packets per packet index and depth twice
 * the tree's height, reduce n-1 and the height.
 */
#include <string.h>

#include "coll_hiercoll_trig.h"
#include "hiercoll_trig_sim.h"
#include "unit_common.h"

#define EXPECT1(c) EXPECT(c, "%s:%d: %s", __FILE__, __LINE__, #c)

static const int radices[] = {2, 4, 8};
static const hct_shape_t shapes[] = {HCT_KNOMIAL, HCT_KARY};

/* ------------------------------------------------------------------ */
/* Trees                                                                */
/* ------------------------------------------------------------------ */

START_TEST(test_trees)
{
    static int ch[64], seen[2048], depth[2048];
    for (int si = 0; si < 2; ++si) {
        for (int ki = 0; ki < 3; ++ki) {
            int k = radices[ki];
            for (int n = 1; n <= 2000; ++n) {
                memset(seen, 0, sizeof(seen));
                int height = 0;
                depth[0] = 0;
                for (int v = 0; v < n; ++v) {
                    int nc = hct_tree_children(shapes[si], k, n, v, ch, 64);
                    for (int i = 0; i < nc; ++i) {
                        EXPECT1((ch[i]) > (v));
                        EXPECT1(i == 0 || ch[i] > ch[i - 1]);
                        EXPECT1((hct_tree_parent(shapes[si], k, n, ch[i])) == (v));
                        seen[ch[i]]++;
                    }
                    int d = v > 0 ? depth[hct_tree_parent(shapes[si], k, n, v)] + 1 : 0;
                    depth[v] = d;
                    height = d > height ? d : height;
                    if (HCT_KARY == shapes[si]) {
                        EXPECT1((nc) <= (k));
                    }
                }
                for (int v = 1; v < n; ++v) {
                    EXPECT1((seen[v]) == (1)); /* a spanning tree */
                }
                EXPECT(height == hct_tree_height(shapes[si], k, n),
                       "shape %d k %d n %d: height %d, model %d", si, k, n, height,
                       hct_tree_height(shapes[si], k, n));
            }
        }
    }
}
END_TEST

/* The "auto" tree: one level up to 8 ranks (at most 7 ALU operands at the
 * root), then the Tianhe measurements' choices; what is set is kept. */
START_TEST(test_tree_auto)
{
    static const struct {
        int reduce, n, shape, k;
    } want[] = {{0, 2, HCT_KNOMIAL, 8},  {0, 8, HCT_KNOMIAL, 8},   {1, 8, HCT_KNOMIAL, 8},
                {0, 9, HCT_KNOMIAL, 2},  {0, 64, HCT_KNOMIAL, 2},  {0, 65, HCT_KNOMIAL, 4},
                {0, 32768, HCT_KNOMIAL, 4}, {1, 9, HCT_KARY, 8},   {1, 128, HCT_KARY, 8}};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); ++i) {
        int s = -1, k = 0;
        hct_tree_auto(want[i].reduce, want[i].n, &s, &k);
        EXPECT(s == want[i].shape && k == want[i].k, "reduce %d n %d: shape %d K %d",
               want[i].reduce, want[i].n, s, k);
    }
    for (int n = 1; n <= 8; ++n) { /* one level, the root's operands fit the ALU */
        int s = -1, k = 0, ch[64];
        hct_tree_auto(n & 1, n, &s, &k);
        EXPECT1(hct_tree_height((hct_shape_t) s, k, n) <= 1);
        EXPECT1(hct_tree_children((hct_shape_t) s, k, n, 0, ch, 64) + 1 <= 8);
    }
    int s = HCT_KARY, k = 0;
    hct_tree_auto(0, 100, &s, &k);
    EXPECT1(HCT_KARY == s && 4 == k);
    s = -1, k = 2;
    hct_tree_auto(1, 100, &s, &k);
    EXPECT1(HCT_KARY == s && 2 == k);
}
END_TEST

/* ------------------------------------------------------------------ */
/* One simulated collective                                             */
/* ------------------------------------------------------------------ */

typedef struct job {
    int n, k, root;
    hct_shape_t shape;
    bool all;
    size_t count;
    hct_type_t type;
    hct_op_t op;
    hct_prog_t *progs;
    const hct_prog_t **pp;
    unsigned char *in, *out;
    const void **ins;
    void **outs;
    int ncalls;
} job_t;

static void job_init(job_t *j, int n, int k, hct_shape_t shape, bool all, int root, size_t count,
                     hct_type_t type, hct_op_t op, int ncalls)
{
    memset(j, 0, sizeof(*j));
    j->n = n;
    j->k = k;
    j->shape = shape;
    j->all = all;
    j->root = root;
    j->count = count;
    j->type = type;
    j->op = op;
    j->ncalls = ncalls;
    size_t bytes = count * hct_type_size(type);
    j->progs = calloc((size_t) n, sizeof(*j->progs));
    j->pp = calloc((size_t) n, sizeof(*j->pp));
    j->in = calloc((size_t) n, bytes + 1);
    j->out = calloc((size_t) n * (size_t) ncalls, bytes + 1);
    j->ins = calloc((size_t) n, sizeof(*j->ins));
    j->outs = calloc((size_t) n * (size_t) ncalls, sizeof(*j->outs));
    EXPECT1(j->progs && j->pp && j->in && j->out && j->ins && j->outs);
    for (int r = 0; r < n; ++r) {
        hct_prog_init(&j->progs[r]);
        int rc = all ? hct_plan_allreduce(&j->progs[r], shape, k, n, r, root, op, type, count)
                     : hct_plan_reduce(&j->progs[r], shape, k, n, r, root, op, type, count);
        EXPECT1((rc) == (0));
        j->pp[r] = &j->progs[r];
        j->ins[r] = j->in + (size_t) r * (bytes + 1);
    }
    for (int c = 0; c < ncalls; ++c) {
        for (int r = 0; r < n; ++r) {
            j->outs[(size_t) c * n + r] = j->out + ((size_t) c * n + r) * (bytes + 1);
        }
    }
}

static void job_fini(job_t *j)
{
    for (int r = 0; r < j->n; ++r) {
        hct_prog_fini(&j->progs[r]);
    }
    free(j->progs);
    free(j->pp);
    free(j->in);
    free(j->out);
    free(j->ins);
    free(j->outs);
}

static unsigned char *in_of(job_t *j, int r)
{
    return (unsigned char *) j->ins[r];
}

static unsigned char *out_of(job_t *j, int c, int r)
{
    return j->outs[(size_t) c * j->n + r];
}

static void run(job_t *j, const sim_trig_cfg_t *cfg, sim_trig_result_t *res)
{
    memset(j->out, 0xee, (size_t) j->n * j->ncalls * (j->count * hct_type_size(j->type) + 1));
    EXPECT1(
        (sim_trig_run(j->n, j->pp, (const void *const *) j->ins, (void *const *) j->outs, cfg, res))
        == (0));
    EXPECT(0 == res->incomplete && 0 == res->leftover && 0 == res->errors && 0 == res->overflow,
           "n %d k %d shape %d all %d root %d count %zu: incomplete %d leftover %d "
           "errors %llu overflow %llu",
           j->n, j->k, (int) j->shape, (int) j->all, j->root, j->count, res->incomplete,
           res->leftover, (unsigned long long) res->errors, (unsigned long long) res->overflow);
}

/* The packet counts of the model, all ranks, all calls. */
static void check_model(job_t *j, const sim_trig_result_t *res)
{
    uint64_t npkt = (uint64_t) j->progs[0].npkt;
    uint64_t want = (j->all ? 2u : 1u) * (uint64_t) (j->n - 1) * npkt * (uint64_t) j->ncalls;
    EXPECT(res->data_pkts == want, "n %d k %d: %llu packets, model %llu", j->n, j->k,
           (unsigned long long) res->data_pkts, (unsigned long long) want);
    uint64_t per_rank = 0;
    for (int r = 0; r < j->n; ++r) {
        per_rank += (uint64_t) j->progs[r].sends_per_pkt;
    }
    EXPECT1(per_rank * npkt * (uint64_t) j->ncalls == want);
}

/* Maximum children of any node (for the MPQ bound credits guarantee). */
static int max_children(job_t *j)
{
    static int ch[1];
    int m = 0;
    for (int v = 0; v < j->n; ++v) {
        int nc = hct_tree_children(j->shape, j->k, j->n, v, ch, 0);
        m = nc > m ? nc : m;
    }
    return m;
}

/* ------------------------------------------------------------------ */
/* int64 sums: exact against the plain sum                              */
/* ------------------------------------------------------------------ */

static void fill_int64(job_t *j, uint64_t seed)
{
    for (int r = 0; r < j->n; ++r) {
        int64_t *x = (int64_t *) in_of(j, r);
        for (size_t i = 0; i < j->count; ++i) {
            x[i] = (int64_t) (unit_rand(&seed) % 2000001) - 1000000;
        }
    }
}

static void check_int64_sum(job_t *j)
{
    for (size_t i = 0; i < j->count; ++i) {
        int64_t want = 0;
        for (int r = 0; r < j->n; ++r) {
            want += ((int64_t *) in_of(j, r))[i];
        }
        for (int c = 0; c < j->ncalls; ++c) {
            for (int r = 0; r < j->n; ++r) {
                if (!j->all && r != j->root) {
                    /* no DELIVER: the output stays untouched */
                    EXPECT1((out_of(j, c, r)[0]) == (0xee));
                    continue;
                }
                int64_t got;
                memcpy(&got, out_of(j, c, r) + i * 8, 8);
                EXPECT(got == want, "n %d k %d shape %d all %d root %d: rank %d [%zu] %lld != %lld",
                       j->n, j->k, (int) j->shape, (int) j->all, j->root, r, i, (long long) got,
                       (long long) want);
            }
        }
    }
}

/* Every K and shape, allreduce and reduce, a random root: with unit hops
 * and every rank armed at once (arrivals in random order among equal
 * times) exact, consumed, the model's counts and depth; every `jitter_every`
 * n also with random delays and late arms (early packets, credits). */
static void sweep(int nmin, int nmax, int step, size_t count, int jitter_every)
{
    uint64_t seed = 12345;
    for (int n = nmin; n <= nmax; n += step) {
        for (int si = 0; si < 2; ++si) {
            for (int ki = 0; ki < 3; ++ki) {
                for (int all = 0; all < 2; ++all) {
                    job_t j;
                    int root = (int) (unit_rand(&seed) % (uint64_t) n);
                    job_init(&j, n, radices[ki], shapes[si], all, root, count, HCT_INT64, HCT_SUM,
                             1);
                    fill_int64(&j, seed);
                    sim_trig_cfg_t cfg = {
                        .seed = unit_rand(&seed), .credits = 4, .ncalls = 1, .hop = 1};
                    cfg.mpq = cfg.credits * (max_children(&j) + 1);
                    sim_trig_result_t res;
                    if (1 == j.progs[0].npkt) {
                        run(&j, &cfg, &res);
                        check_int64_sum(&j);
                        check_model(&j, &res);
                        EXPECT(res.finish == (double) j.progs[0].depth,
                               "n %d k %d shape %d all %d: depth %g, model %d", n, radices[ki], si,
                               all, res.finish, j.progs[0].depth);
                    }
                    if (1 != j.progs[0].npkt || 0 == n % jitter_every) {
                        cfg.jitter = 3;
                        cfg.late_arm = 4;
                        run(&j, &cfg, &res);
                        check_int64_sum(&j);
                        check_model(&j, &res);
                    }
                    job_fini(&j);
                }
            }
        }
    }
}

START_TEST(test_every_n)
{
    sweep(1, 1000, 1, 6, 4); /* 48 bytes: one packet, the size of the Tianhe measurements */
}
END_TEST

START_TEST(test_packets)
{
    /* several packets per vector, odd counts, the zero count */
    static const size_t counts[] = {0, 1, 15, 16, 29, 31, 100};
    for (int c = 0; c < 7; ++c) {
        sweep(1, 70, 3, counts[c], 1);
    }
}
END_TEST

START_TEST(test_big)
{
    static const int big[] = {1023, 1025, 4096, 12345, 32767, 32768};
    for (int b = 0; b < 6; ++b) {
        sweep(big[b], big[b], 1, 6, 4096);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Floats: a fixed operand order, whatever the arrival order            */
/* ------------------------------------------------------------------ */

/* The tree's sum in the programs' order: own input, then each child's. */
static double tree_sum(job_t *j, int v, size_t i)
{
    static int ch[2][256];
    int buf[256];
    (void) ch;
    int nc = hct_tree_children(j->shape, j->k, j->n, v, buf, 256);
    double acc;
    memcpy(&acc, in_of(j, (v + j->root) % j->n) + i * 8, 8);
    for (int c = 0; c < nc; ++c) {
        acc = acc + tree_sum(j, buf[c], i);
    }
    return acc;
}

START_TEST(test_float_order)
{
    uint64_t seed = 99;
    static const int ns[] = {3, 7, 33, 100, 257, 1000};
    for (int ni = 0; ni < 6; ++ni) {
        for (int si = 0; si < 2; ++si) {
            for (int ki = 0; ki < 3; ++ki) {
                int n = ns[ni];
                job_t j;
                job_init(&j, n, radices[ki], shapes[si], true, n / 3, 37, HCT_DOUBLE, HCT_SUM, 1);
                for (int r = 0; r < n; ++r) {
                    double *x = (double *) in_of(&j, r);
                    for (size_t i = 0; i < j.count; ++i) {
                        /* magnitudes apart: association changes the bits */
                        x[i] = ((double) (unit_rand(&seed) % 1000000) - 5e5) * (r % 3 ? 1e-7 : 1e9);
                    }
                }
                size_t bytes = j.count * 8;
                unsigned char *first = malloc((size_t) n * bytes);
                for (int trial = 0; trial < 4; ++trial) {
                    sim_trig_cfg_t cfg = {.seed = unit_rand(&seed),
                                          .jitter = 5,
                                          .late_arm = 6,
                                          .credits = 2,
                                          .ncalls = 1,
                                          .hop = 1};
                    cfg.mpq = cfg.credits * (max_children(&j) + 1);
                    sim_trig_result_t res;
                    run(&j, &cfg, &res);
                    for (int r = 0; r < n; ++r) {
                        if (0 == trial) {
                            memcpy(first + (size_t) r * bytes, out_of(&j, 0, r), bytes);
                        } else {
                            EXPECT1(0
                                    == memcmp(first + (size_t) r * bytes, out_of(&j, 0, r), bytes));
                        }
                    }
                }
                for (size_t i = 0; i < j.count; ++i) {
                    double want = tree_sum(&j, 0, i), got;
                    memcpy(&got, first + i * 8, 8);
                    EXPECT1(0 == memcmp(&got, &want, 8));
                }
                free(first);
                job_fini(&j);
            }
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Back-to-back calls: early packets and credits                        */
/* ------------------------------------------------------------------ */

START_TEST(test_calls_credits)
{
    uint64_t seed = 7;
    for (int n = 2; n <= 120; n += 7) {
        for (int si = 0; si < 2; ++si) {
            for (int ki = 0; ki < 3; ++ki) {
                for (int all = 0; all < 2; ++all) {
                    job_t j;
                    job_init(&j, n, radices[ki], shapes[si], all, (int) (unit_rand(&seed) % n), 47,
                             HCT_INT64, HCT_SUM, 5);
                    fill_int64(&j, seed);
                    sim_trig_cfg_t cfg = {.seed = unit_rand(&seed),
                                          .jitter = 4,
                                          .late_arm = 30,
                                          .credits = 2,
                                          .ncalls = 5,
                                          .hop = 1};
                    cfg.mpq = cfg.credits * (max_children(&j) + 1);
                    sim_trig_result_t res;
                    run(&j, &cfg, &res);
                    check_int64_sum(&j);
                    check_model(&j, &res);
                    EXPECT1((res.mpq_max) <= (cfg.mpq));
                    job_fini(&j);
                }
            }
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* The ALU: every op on every type it takes                              */
/* ------------------------------------------------------------------ */

static int64_t ref_int(hct_op_t op, int64_t a, int64_t b)
{
    switch (op) {
    case HCT_SUM:
        return a + b;
    case HCT_MAX:
        return a > b ? a : b;
    case HCT_MIN:
        return a < b ? a : b;
    case HCT_LAND:
        return (a != 0) && (b != 0);
    case HCT_LOR:
        return (a != 0) || (b != 0);
    case HCT_LXOR:
        return (a != 0) != (b != 0);
    case HCT_BAND:
        return a & b;
    case HCT_BOR:
        return a | b;
    case HCT_BXOR:
        return a ^ b;
    default:
        return 0;
    }
}

/* An element of any ALU type, as an integer (the test's values are small). */
static int64_t as_int(hct_type_t t, const unsigned char *p)
{
    switch (t) {
    case HCT_INT8:
    case HCT_UINT8:
        return *(const int8_t *) p;
    case HCT_INT16:
    case HCT_UINT16:
        return *(const int16_t *) p;
    case HCT_INT32:
    case HCT_UINT32:
        return *(const int32_t *) p;
    case HCT_INT64:
    case HCT_UINT64:
        return *(const int64_t *) p;
    case HCT_FLOAT:
        return (int64_t) * (const float *) p;
    case HCT_DOUBLE:
        return (int64_t) * (const double *) p;
    case HCT_LONG_DOUBLE:
        return (int64_t) * (const long double *) p;
    case HCT_BOOL:
        return *(const _Bool *) p;
    default:
        return 0;
    }
}

START_TEST(test_alu)
{
    uint64_t seed = 3;
    for (int t = 0; t < HCT_NTYPE; ++t) {
        for (int op = 0; op < HCT_NOP; ++op) {
            if (!hct_alu_supports((hct_op_t) op, (hct_type_t) t)) {
                EXPECT1(t >= HCT_FLOAT); /* integers take every op */
                continue;
            }
            int n = 13;
            job_t j;
            job_init(&j, n, 2, HCT_KARY, true, 5, 33, (hct_type_t) t, (hct_op_t) op, 1);
            size_t es = hct_type_size((hct_type_t) t);
            /* small values so that sums do not overflow any type */
            for (int r = 0; r < n; ++r) {
                for (size_t i = 0; i < j.count; ++i) {
                    int64_t v = (int64_t) (unit_rand(&seed) % 9);
                    if (t == HCT_BOOL) {
                        v &= 1;
                    }
                    unsigned char *p = in_of(&j, r) + i * es;
                    switch (t) {
                    case HCT_INT8:
                    case HCT_UINT8:
                        *(int8_t *) p = (int8_t) v;
                        break;
                    case HCT_INT16:
                    case HCT_UINT16:
                        *(int16_t *) p = (int16_t) v;
                        break;
                    case HCT_INT32:
                    case HCT_UINT32:
                        *(int32_t *) p = (int32_t) v;
                        break;
                    case HCT_INT64:
                    case HCT_UINT64:
                        *(int64_t *) p = v;
                        break;
                    case HCT_FLOAT:
                        *(float *) p = (float) v;
                        break;
                    case HCT_DOUBLE:
                        *(double *) p = (double) v;
                        break;
                    case HCT_LONG_DOUBLE:
                        *(long double *) p = (long double) v;
                        break;
                    case HCT_BOOL:
                        *(_Bool *) p = (_Bool) v;
                        break;
                    }
                }
            }
            sim_trig_cfg_t cfg = {
                .seed = 1, .jitter = 2, .credits = 4, .mpq = 64, .ncalls = 1, .hop = 1};
            sim_trig_result_t res;
            run(&j, &cfg, &res);
            for (size_t i = 0; i < j.count; ++i) {
                int64_t want = 0;
                for (int r = 0; r < n; ++r) {
                    unsigned char *p = in_of(&j, r) + i * es;
                    int64_t v = as_int((hct_type_t) t, p);
                    want = 0 == r ? v : ref_int((hct_op_t) op, want, v);
                }
                for (int r = 0; r < n; ++r) {
                    unsigned char *p = out_of(&j, 0, r) + i * es;
                    int64_t got = as_int((hct_type_t) t, p);
                    EXPECT(got == want, "type %d op %d [%zu]: %lld != %lld", t, op, i,
                           (long long) got, (long long) want);
                }
            }
            job_fini(&j);
        }
    }
}
END_TEST

/* Bad arguments are refused, not planned. */
START_TEST(test_refuse)
{
    hct_prog_t p;
    hct_prog_init(&p);
    EXPECT1((hct_plan_allreduce(&p, HCT_KARY, 1, 4, 0, 0, HCT_SUM, HCT_INT32, 1)) < (0));
    EXPECT1((hct_plan_allreduce(&p, HCT_KARY, 2, 4, 4, 0, HCT_SUM, HCT_INT32, 1)) < (0));
    EXPECT1((hct_plan_reduce(&p, HCT_KNOMIAL, 2, 4, 0, -1, HCT_SUM, HCT_INT32, 1)) < (0));
    EXPECT1(!hct_alu_supports(HCT_BAND, HCT_DOUBLE));
    EXPECT1(!hct_alu_supports(HCT_SUM, HCT_BOOL));
    hct_prog_fini(&p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("trig");
    struct {
        const char *name;
        const TTest *test;
    } cases[] = {{"trees", test_trees},
                 {"tree_auto", test_tree_auto},
                 {"refuse", test_refuse},
                 {"alu", test_alu},
                 {"float_order", test_float_order},
                 {"calls_credits", test_calls_credits},
                 {"packets", test_packets},
                 {"every_n", test_every_n},
                 {"big", test_big}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
        TCase *tc = tcase_create(cases[i].name);
        tcase_set_timeout(tc, 300);
        tcase_add_test(tc, cases[i].test);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    return unit_run(suite());
}
