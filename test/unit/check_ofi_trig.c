/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The ofi backend of the triggered engine without MPI: n simulated ranks
 * in this process, each with its own libfabric fabric, domain and
 * endpoint on the provider found by capability (FI_TRIGGER), run the
 * engine's programs as deferred work.  Every result must equal, BYTE FOR
 * BYTE, the engine's own (the event simulation of all ranks' engines),
 * floats included: both combine the operands in the same fixed slot
 * order.  Skips (exit 77) when no provider offers FI_TRIGGER.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_hiercoll_ofi_trig.h"
#include "coll_hiercoll_trig.h"
#include "coll_hiercoll_trig_bcast.h"
#include "hiercoll_trig_sim.h"

#define MAXN 8

static hcf_fabric_t *fab[MAXN];
static hcf_chan_t *chan[MAXN];
static uint16_t chan_id = 7;

typedef int (*planner_t)(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root,
                         hct_op_t op, hct_type_t type, size_t count);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Channels of n ranks over the n fabrics (a new id each time). */
static void open_chans(int n)
{
    char names[MAXN][HCF_NAME_MAX];
    for (int r = 0; r < n; ++r) {
        size_t len = HCF_NAME_MAX;
        memset(names[r], 0, HCF_NAME_MAX);
        ck_assert_int_eq(hcf_name(fab[r], names[r], &len), 0);
    }
    chan_id++;
    for (int r = 0; r < n; ++r) {
        chan[r] = hcf_chan_open(fab[r], chan_id, n, r, names, HCF_NAME_MAX);
        ck_assert_ptr_nonnull(chan[r]);
    }
}

static void close_chans(int n)
{
    for (int r = 0; r < n; ++r) {
        hcf_chan_close(chan[r]);
    }
}

static void fill(void *buf, hct_type_t t, size_t count, int rank, uint64_t salt)
{
    unsigned char *b = buf;
    size_t es = hct_type_size(t);
    for (size_t i = 0; i < count; ++i) {
        uint64_t x = (salt + 977 * rank + 31 * i) * 0x9e3779b97f4a7c15ULL;
        x ^= x >> 29;
        switch (t) {
        case HCT_DOUBLE: {
            double d = (double) (int64_t) (x % 2000001) / 7.0 - 1e5;
            memcpy(b + i * es, &d, es);
            break;
        }
        case HCT_FLOAT: {
            float f = (float) ((double) (x % 20001) / 3.0);
            memcpy(b + i * es, &f, es);
            break;
        }
        default:
            memcpy(b + i * es, &x, es);
            break;
        }
    }
}

/* Run one call on n ranks through ofi and through the engine; compare the
 * outputs of every rank (reduce 0), the root (1) or all but the root (2). */
static void one(planner_t plan, int reduce, hct_shape_t s, int k, int n, int root, hct_op_t op,
                hct_type_t t, size_t count)
{
    hct_prog_t prog[MAXN];
    const hct_prog_t *pp[MAXN];
    size_t bytes = count * hct_type_size(t);
    unsigned char *in[MAXN], *out[MAXN], *ref[MAXN];
    hcf_port_t *port[MAXN];
    char why[256];

    for (int r = 0; r < n; ++r) {
        hct_prog_init(&prog[r]);
        ck_assert_int_eq(plan(&prog[r], s, k, n, r, root, op, t, count), 0);
        pp[r] = &prog[r];
        in[r] = malloc(bytes + 1);
        out[r] = malloc(bytes + 1);
        ref[r] = malloc(bytes + 1);
        fill(in[r], t, count, r, count * 13 + k);
        memset(out[r], 0xee, bytes + 1);
        memset(ref[r], 0xee, bytes + 1);
    }
    sim_trig_cfg_t cfg = {.seed = 1, .credits = 8, .mpq = 1024, .ncalls = 1, .hop = 1.0};
    sim_trig_result_t res;
    ck_assert_int_eq(sim_trig_run(n, pp, (const void *const *) in, (void *const *) ref, &cfg,
                                  &res),
                     0);
    ck_assert_int_eq(res.incomplete, 0);

    /* arm from the last rank down: packets come before their ports */
    for (int r = n - 1; r >= 0; --r) {
        ck_assert_msg(hcf_fits(fab[r], &prog[r]), "n %d k %d count %zu: does not fit", n, k,
                      count);
        port[r] = hcf_arm(chan[r], (uint16_t) (count + 3 * k), &prog[r], in[r], out[r], why,
                          sizeof(why));
        ck_assert_msg(port[r] != NULL, "arm: %s", why);
    }
    double t0 = now();
    if (getenv("CHECK_OFI_VERBOSE")) {
        fprintf(stderr, "n %d k %d shape %d root %d op %d type %d count %zu\n", n, k, s, root,
                op, t, count);
    }
    for (int r = 0; r < n; ++r) {
        int d;
        while (0 == (d = hcf_port_done(port[r]))) {
            if (now() - t0 >= 20) {
                for (int q = 0; q < n; ++q) {
                    hcf_port_dump(port[q], why, sizeof(why));
                    fprintf(stderr, "rank %d: %s\n", q, why);
                }
            }
            ck_assert_msg(now() - t0 < 20, "n %d k %d shape %d root %d count %zu: rank %d not "
                          "done",
                          n, k, s, root, count, r);
            usleep(50);
        }
        ck_assert_msg(d == 1, "rank %d: error", r);
    }
    for (int r = 0; r < n; ++r) {
        hcf_disarm(port[r]);
        if (0 == reduce || (1 == reduce && r == root) || (2 == reduce && r != root)) {
            ck_assert_msg(0 == memcmp(out[r], ref[r], bytes),
                          "n %d k %d shape %d root %d op %d type %d count %zu: rank %d differs "
                          "from the engine",
                          n, k, s, root, op, t, count, r);
        }
        ck_assert_msg(out[r][bytes] == 0xee, "rank %d wrote past its output", r);
        hct_prog_fini(&prog[r]);
        free(in[r]);
        free(out[r]);
        free(ref[r]);
    }
}

START_TEST(test_allreduce)
{
    static const size_t counts[] = {0, 1, 6, 15, 16, 31, 47};
    for (int n = 1; n <= MAXN; ++n) {
        open_chans(n);
        for (int k = 2; k <= 8; k *= 2) {
            for (int sh = 0; sh < 2; ++sh) {
                for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
                    one(hct_plan_allreduce, 0, (hct_shape_t) sh, k, n, 0, HCT_SUM, HCT_DOUBLE,
                        counts[c]);
                }
            }
        }
        close_chans(n);
    }
}
END_TEST

START_TEST(test_ops_types)
{
    static const struct {
        hct_op_t op;
        hct_type_t t;
    } cases[] = {{HCT_SUM, HCT_INT32}, {HCT_MAX, HCT_INT64}, {HCT_MIN, HCT_FLOAT},
                 {HCT_BXOR, HCT_UINT8}, {HCT_BAND, HCT_UINT16}, {HCT_SUM, HCT_FLOAT},
                 {HCT_MAX, HCT_DOUBLE}, {HCT_BOR, HCT_UINT64}};
    for (int n = 3; n <= MAXN; n += 5) {
        open_chans(n);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
            one(hct_plan_allreduce, 0, HCT_KNOMIAL, 2, n, 0, cases[i].op, cases[i].t, 37);
        }
        close_chans(n);
    }
}
END_TEST

START_TEST(test_reduce_roots)
{
    for (int n = 1; n <= MAXN; n += 3) {
        open_chans(n);
        for (int root = 0; root < n; ++root) {
            one(hct_plan_reduce, 1, HCT_KARY, 2, n, root, HCT_SUM, HCT_DOUBLE, 20);
            one(hct_plan_allreduce, 0, HCT_KNOMIAL, 4, n, root, HCT_SUM, HCT_INT64, 3);
        }
        close_chans(n);
    }
}
END_TEST

/* bcast and barrier through the same path: planners with the ALU's shape */
static int plan_bcast(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, hct_op_t op,
                      hct_type_t type, size_t count)
{
    (void) op;
    (void) type;
    return hct_plan_bcast(p, s, k, n, rank, root, count);
}

static int plan_barrier(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root,
                        hct_op_t op, hct_type_t type, size_t count)
{
    (void) root;
    (void) op;
    (void) type;
    (void) count;
    return hct_plan_barrier(p, s, k, n, rank);
}

START_TEST(test_bcast_barrier)
{
    static const size_t bytes[] = {0, 1, 48, 121, 700};
    for (int n = 1; n <= MAXN; ++n) {
        open_chans(n);
        for (int k = 2; k <= 8; k *= 2) {
            for (size_t b = 0; b < sizeof(bytes) / sizeof(bytes[0]); ++b) {
                /* 2: the root's output is not compared (its buffer is the input) */
                one(plan_bcast, 2, (hct_shape_t) ((k + b) % 2), k, n, (int) (b % (size_t) n),
                    HCT_NOP, HCT_UINT8, bytes[b]);
            }
            one(plan_barrier, 0, (hct_shape_t) (k % 2), k, n, 0, HCT_SUM, HCT_UINT8, 0);
        }
        close_chans(n);
    }
}
END_TEST

START_TEST(test_budget)
{
    /* a vector far beyond the provider's counters does not fit, and says so */
    hct_prog_t p;
    hct_prog_init(&p);
    ck_assert_int_eq(hct_plan_allreduce(&p, HCT_KNOMIAL, 2, 4, 1, 0, HCT_SUM, HCT_DOUBLE, 100000),
                     0);
    ck_assert(!hcf_fits(fab[0], &p));
    hcf_needs_t need, b = hcf_budget(fab[0]);
    ck_assert_int_eq(hcf_needs(fab[0], &p, &need), 0);
    ck_assert_int_gt(need.counters, b.counters);
    hct_prog_fini(&p);
}
END_TEST

int main(void)
{
    char why[256];
    for (int r = 0; r < MAXN; ++r) {
        fab[r] = hcf_open(0, why, sizeof(why));
        if (fab[r] == NULL) {
            printf("check_ofi_trig: SKIP: %s\n", why);
            return 77;
        }
    }
    printf("check_ofi_trig: provider %s\n", hcf_provider(fab[0]));
    Suite *s = suite_create("ofi_trig");
    TCase *tc = tcase_create("ofi");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_allreduce);
    tcase_add_test(tc, test_ops_types);
    tcase_add_test(tc, test_reduce_roots);
    tcase_add_test(tc, test_bcast_barrier);
    tcase_add_test(tc, test_budget);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    for (int r = 0; r < MAXN; ++r) {
        hcf_close(fab[r]);
    }
    return failed ? 1 : 0;
}
