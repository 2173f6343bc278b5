/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Triggered bcast and barrier programs through the event simulation of all
 * ranks' engines (sim/hiercoll_trig_sim.h): every n to 300 and samples to
 * 32,768, K 2/4/8, both shapes, several roots, segmented vectors, random
 * packet orders and late arming.  Every rank ends with the root's bytes,
 * every packet is consumed, and the packet counts and depth equal the
 * model: bcast (n - 1) packets per segment, depth the tree's height;
 * barrier 2 (n - 1) packets, depth twice the height.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_hiercoll_trig_bcast.h"
#include "hiercoll_trig_sim.h"

static void bcast_case(int n, hct_shape_t s, int k, int root, size_t bytes, int jitter,
                       uint64_t seed)
{
    hct_prog_t *prog = calloc((size_t) n, sizeof(*prog));
    const hct_prog_t **pp = calloc((size_t) n, sizeof(*pp));
    unsigned char *in = malloc(bytes + 1), *out = malloc((size_t) n * (bytes + 1));
    const void **ins = calloc((size_t) n, sizeof(*ins));
    void **outs = calloc((size_t) n, sizeof(*outs));
    for (size_t i = 0; i < bytes; ++i) {
        in[i] = (unsigned char) (i * 7 + (size_t) root * 13 + 1);
    }
    memset(out, 0xee, (size_t) n * (bytes + 1));
    for (int r = 0; r < n; ++r) {
        hct_prog_init(&prog[r]);
        ck_assert_int_eq(hct_plan_bcast(&prog[r], s, k, n, r, root, bytes), 0);
        pp[r] = &prog[r];
        ins[r] = r == root ? in : NULL;
        outs[r] = out + (size_t) r * (bytes + 1);
    }
    sim_trig_cfg_t cfg = {.seed = seed, .jitter = jitter, .late_arm = jitter, .credits = 16,
                          .mpq = 1 << 20, .ncalls = 1, .hop = 1.0};
    sim_trig_result_t res;
    ck_assert_int_eq(sim_trig_run(n, pp, ins, outs, &cfg, &res), 0);
    ck_assert_msg(0 == res.incomplete && 0 == res.leftover && 0 == res.errors
                      && 0 == res.overflow,
                  "bcast n %d k %d shape %d root %d bytes %zu: incomplete %d leftover %d", n, k,
                  s, root, bytes, res.incomplete, res.leftover);
    ck_assert_uint_eq(res.data_pkts, (uint64_t) (n - 1) * (uint64_t) prog[0].npkt);
    if (0 == jitter) {
        ck_assert_msg((int) res.finish == hct_tree_height(s, k, n),
                      "bcast n %d k %d: finish %g, height %d", n, k, res.finish,
                      hct_tree_height(s, k, n));
    }
    for (int r = 0; r < n; ++r) {
        unsigned char *o = out + (size_t) r * (bytes + 1);
        if (r != root) {
            ck_assert_msg(0 == memcmp(o, in, bytes), "bcast n %d k %d shape %d root %d bytes "
                          "%zu: rank %d differs", n, k, s, root, bytes, r);
        }
        ck_assert_msg(o[bytes] == 0xee, "rank %d wrote past its buffer", r);
        hct_prog_fini(&prog[r]);
    }
    free(prog);
    free(pp);
    free(in);
    free(out);
    free(ins);
    free(outs);
}

static void barrier_case(int n, hct_shape_t s, int k, int jitter, uint64_t seed)
{
    hct_prog_t *prog = calloc((size_t) n, sizeof(*prog));
    const hct_prog_t **pp = calloc((size_t) n, sizeof(*pp));
    for (int r = 0; r < n; ++r) {
        hct_prog_init(&prog[r]);
        ck_assert_int_eq(hct_plan_barrier(&prog[r], s, k, n, r), 0);
        pp[r] = &prog[r];
    }
    sim_trig_cfg_t cfg = {.seed = seed, .jitter = jitter, .late_arm = jitter, .credits = 16,
                          .mpq = 1 << 20, .ncalls = 3, .hop = 1.0};
    sim_trig_result_t res;
    const void **ins = calloc((size_t) n, sizeof(*ins));
    void **outs = calloc((size_t) n * 3, sizeof(*outs));
    ck_assert_int_eq(sim_trig_run(n, pp, ins, outs, &cfg, &res), 0);
    free(ins);
    free(outs);
    ck_assert_msg(0 == res.incomplete && 0 == res.leftover && 0 == res.errors,
                  "barrier n %d k %d: incomplete %d leftover %d", n, k, res.incomplete,
                  res.leftover);
    ck_assert_uint_eq(res.data_pkts, 3 * 2 * (uint64_t) (n - 1));
    if (0 == jitter) {
        ck_assert_msg((int) res.finish == 3 * 2 * hct_tree_height(s, k, n),
                      "barrier n %d k %d: finish %g", n, k, res.finish);
    }
    for (int r = 0; r < n; ++r) {
        hct_prog_fini(&prog[r]);
    }
    free(prog);
    free(pp);
}

START_TEST(test_bcast_small)
{
    static const size_t bytes[] = {0, 1, 48, 120, 121, 1000};
    for (int n = 1; n <= 300; ++n) {
        for (int k = 2; k <= 8; k *= 2) {
            for (int sh = 0; sh < 2; ++sh) {
                size_t b = bytes[(size_t) (n + k + sh) % 6];
                int roots[3] = {0, n - 1, n / 2};
                for (int i = 0; i < (n <= 40 ? 3 : 1); ++i) {
                    bcast_case(n, (hct_shape_t) sh, k, roots[i], b, 0, (uint64_t) n);
                    if (n <= 64) {
                        bcast_case(n, (hct_shape_t) sh, k, roots[i], b, 4, (uint64_t) n * 7 + 1);
                    }
                }
            }
        }
    }
    for (int n = 1; n <= 12; ++n) { /* every root, segmented */
        for (int root = 0; root < n; ++root) {
            bcast_case(n, HCT_KARY, 2, root, 500, 3, (uint64_t) root + 11);
        }
    }
}
END_TEST

START_TEST(test_bcast_big)
{
    static const int sizes[] = {1000, 1023, 4096, 12345, 32768};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) {
        int k = 2 << (i % 3);
        bcast_case(sizes[i], (hct_shape_t) (i % 2), k, sizes[i] / 3, 48, 0, 5);
    }
}
END_TEST

START_TEST(test_barrier)
{
    for (int n = 1; n <= 300; ++n) {
        for (int k = 2; k <= 8; k *= 2) {
            barrier_case(n, (hct_shape_t) (n % 2), k, 0, (uint64_t) n);
            if (n <= 64) {
                barrier_case(n, (hct_shape_t) ((n + 1) % 2), k, 5, (uint64_t) n + 3);
            }
        }
    }
    barrier_case(32768, HCT_KNOMIAL, 4, 0, 9);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trig_bcast");
    TCase *tc = tcase_create("trig_bcast");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_bcast_small);
    tcase_add_test(tc, test_bcast_big);
    tcase_add_test(tc, test_barrier);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
