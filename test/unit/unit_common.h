/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Helpers shared by the planners' Check tests.
 */
#ifndef HIERCOLL_UNIT_COMMON_H
#define HIERCOLL_UNIT_COMMON_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll_hiercoll_plan.h"
#include "hiercoll_sim.h"

/* Latency-only model: the modelled completion time is the depth of the
 * longest chain of dependent messages. */
static const sim_model_t unit_depth_model = {.alpha = 1.0, .o = 0, .beta = 0,
                                             .gamma = 0, .delta = 0};

/* Check's ck_assert_* records a mark point (a write to a pipe) even when
 * it holds; these only call into Check when they fail, for inner loops. */
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            ck_abort_msg(__VA_ARGS__);                                                             \
        }                                                                                          \
    } while (0)

/* Build every rank's plan, then fail the test with the simulator's reason. */
#define UNIT_PLAN(s, fn, arg, sb, rb)                                             \
    ck_assert_msg(0 == sim_plan_all((s), (fn), (arg), (sb), (rb)), "%s",          \
                  sim_error(s))

#define UNIT_RUN(s, model, fmt, ...)                                              \
    ck_assert_msg(0 == sim_run((s), (model)), fmt ": %s", __VA_ARGS__,            \
                  sim_error(s))

#define UNIT_EXPECT(s, rank, buf, off, len, want, ordered, fmt, ...)              \
    do {                                                                          \
        const char *why_ = sim_expect((s), (rank), (buf), (off), (len), (want),   \
                                      (ordered));                                 \
        ck_assert_msg(NULL == why_, fmt ": %s", __VA_ARGS__, why_);               \
    } while (0)

/* Every rank's buffer [0, bytes) holds its own input. */
static inline void unit_inputs(sim_t *s, int buf, int64_t bytes)
{
    for (int r = 0; r < sim_size(s); ++r) {
        sim_set(s, r, buf, 0, bytes, sim_input(r));
    }
}

/* Deterministic pseudo-random numbers for layouts. */
static inline uint64_t unit_rand(uint64_t *state)
{
    uint64_t x = (*state += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Sizes every test sweeps: 1..max every one, then samples up to 32768. */
static const int unit_big_sizes[] = {1023, 1024, 1025, 2047, 3000, 4096, 5000, 8191,
                                     12345, 16384, 20000, 32767, 32768};
#define UNIT_NBIG ((int) (sizeof(unit_big_sizes) / sizeof(unit_big_sizes[0])))

/* Run a suite; the exit status of a test program. */
static inline int unit_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* HIERCOLL_UNIT_COMMON_H */
