/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The RHRD planners (the patented non-power-of-two scheme and the classic
 * one), run by the symbolic simulator: allreduce at every process count
 * from 1 to 2,048, reduce to 1,024 (every root to 40), samples up to
 * 32,768 (the classic scheme to 256 and at the samples).  Every result
 * element carries each rank's contribution exactly once, no rank without
 * a result touches the receive buffer, and where the vector splits into
 * equal blocks the per-rank bytes, messages and rounds and the critical
 * path equal the patent's cost model (docs/rhrd.md), written out here
 * independently of the planner.
 */
#include <string.h>

#include "unit_common.h"

typedef struct targs {
    int n, root;
    int64_t count;
    size_t esize;
    bool in_place, all, classic;
} targs_t;

static int plan_rhrd(hcp_plan_t *p, int rank, void *arg)
{
    const targs_t *a = arg;
    if (a->all) {
        return a->classic
                   ? hcp_allreduce_rabenseifner(p, a->n, rank, a->count, a->esize, a->in_place)
                   : hcp_allreduce_rhrd(p, a->n, rank, a->count, a->esize, a->in_place);
    }
    bool ip = a->in_place && rank == a->root;
    return a->classic ? hcp_reduce_rabenseifner(p, a->n, rank, a->root, a->count, a->esize, ip)
                      : hcp_reduce_rhrd(p, a->n, rank, a->root, a->count, a->esize, ip);
}

static bool has_result(const targs_t *a, int rank)
{
    return a->all || rank == a->root;
}

/* The user buffers' sizes: an in-place root has no send buffer, a rank
 * without a result no receive buffer. */
static int64_t sbuf_units(int rank, void *arg)
{
    const targs_t *a = arg;
    return a->in_place && has_result(a, rank) ? 0 : a->count;
}

static int64_t rbuf_units(int rank, void *arg)
{
    const targs_t *a = arg;
    return has_result(a, rank) ? a->count : 0;
}

/* ------------------------------------------------------------------ */
/* The cost model, from the spec (not from the planner)                 */
/* ------------------------------------------------------------------ */

typedef struct cost {
    int64_t sent, recv; /* bytes */
    int msgs, rounds;
} cost_t;

/* The role of virtual rank v in the patented scheme: S0 = v < 2r in pairs;
 * receiver pairs are the even-numbered ones, senders the odd-numbered;
 * for odd r the last S0 pair is (Y, X) and v = 2r is Z. */
static char spec_role(int n, int v)
{
    int r = n - hcp_pof2_floor(n);
    if (v < 2 * r) {
        if (1 == r % 2 && v / 2 == r - 1) {
            return 0 == v % 2 ? 'Y' : 'X';
        }
        return 0 == (v / 2) % 2 ? 'R' : 'S';
    }
    return 1 == r % 2 && v == 2 * r ? 'Z' : 'P';
}

/* Allreduce of L bytes, blocks of L/N all non-empty.  D = 2 (N/2 - 1) L/N
 * is what recursive halving plus doubling send within a half-group. */
static cost_t allreduce_cost(int n, int v, int64_t L, bool classic)
{
    int N = hcp_pof2_floor(n), r = n - N, lg = hcp_ceil_log2(N / 2);
    int64_t D = L - 2 * L / N;
    cost_t c;
    if (classic) {
        int64_t full = 2 * (L - L / N); /* RHRD over all N */
        if (v >= 2 * r) {
            return (cost_t){full, full, 2 * (lg + 1), 2 * (lg + 1)};
        }
        if (1 == v % 2) { /* dropped: half, reduced half; result back */
            return (cost_t){L, L / 2 + L, 2, 3};
        }
        return (cost_t){L / 2 + full + L, L + full, 1 + 2 * (lg + 1) + 1, 3 + 2 * (lg + 1)};
    }
    switch (spec_role(n, v)) {
    case 'R': /* + its sender's half; returns it, and exchanges */
    case 'Y':
        c = (cost_t){3 * L / 2 + D, 3 * L / 2 + D, 3 + 2 * lg, 3 + 2 * lg};
        break;
    case 'S': /* half to partner, partial to receiver; result half to partner */
    case 'X':
        c = (cost_t){3 * L / 2, 3 * L / 2, 3, 4};
        break;
    default: /* pairs and Z (H0 to Y, H1 from X) */
        c = (cost_t){L + D, L + D, 2 + 2 * lg, 2 + 2 * lg};
        break;
    }
    return c;
}

/* Reduce: the whole job's bytes, the most any rank sends, and what the
 * root receives.  Recursive halving sends (M-1) blocks per survivor, the
 * gather log2(M) * M/2 blocks per group of M, then H1 goes to the root. */
static void reduce_cost(int n, int64_t L, bool classic, int64_t *total, int64_t *max_sent,
                        int64_t *root_recv)
{
    int N = hcp_pof2_floor(n), r = n - N;
    int64_t B = L / N;
    if (classic) {
        /* pairs: two halves and a reduced half */
        *total = 3 * r * L / 2 + (N - 1) * L + (int64_t) hcp_ceil_log2(N) * L / 2;
        /* index 1 of the group (in S0 when r >= 2) sends half the vector */
        *max_sent = (r >= 2 ? L / 2 : 0) + (N - 1) * B + L / 2;
        if (*max_sent < L) {
            *max_sent = L;
        }
        *root_recv = (r > 0 ? L / 2 + L / 2 : 0) + 2 * (N - 1) * B;
        return;
    }
    int M = N / 2;
    *total = (N + r) * L / 2 + r * L / 2 + (M - 1) * L + (int64_t) hcp_ceil_log2(M) * L / 2 + L / 2;
    *max_sent = L + (M - 1) * B;
    *root_recv = L / 2 + (r > 0 ? L / 2 : 0) + 2 * (M - 1) * B + L / 2;
}

/* Messages on the critical path (latency-only model). */
static int depth(int n, bool all, bool classic)
{
    int N = hcp_pof2_floor(n), lg = hcp_ceil_log2(N);
    bool odd = n > N;
    if (1 == n) {
        return 0;
    }
    if (classic) {
        return 2 * lg + (odd ? (all ? 3 : 2) : 0);
    }
    return 2 * lg + (odd ? (all ? 2 : 1) : 0);
}

/* ------------------------------------------------------------------ */

/* Plan and simulate one case; data tracked only when `track`. */
static void check(const targs_t *a, bool track)
{
    int n = a->n;
    int64_t bytes = a->count * (int64_t) a->esize;
    const char *what = a->all ? "allreduce" : "reduce";
    sim_t *s = sim_new(n, track);
    UNIT_PLAN(s, plan_rhrd, (void *) a, sbuf_units, rbuf_units);
    for (int r = 0; track && r < n; ++r) {
        int buf = a->in_place && has_result(a, r) ? HCP_RBUF : HCP_SBUF;
        sim_set(s, r, buf, 0, bytes, sim_input(r));
    }
    UNIT_RUN(s, &unit_depth_model, "%s n=%d", what, n);
    sim_val_t want = sim_range_of(0, n - 1);
    for (int r = 0; track && r < n; ++r) {
        if (has_result(a, r)) {
            UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, want, false,
                        "%s%s n=%d root=%d count=%lld inplace=%d", a->classic ? "classic " : "",
                        what, n, a->root, (long long) a->count, a->in_place);
        }
    }
    sim_summary_t m = sim_summarize(s);
    int N = hcp_pof2_floor(n);
    if (0 == bytes || 1 == n) {
        ck_assert_int_eq(m.total_msgs, 0);
    } else if (0 == a->count % N) {
        /* every block non-empty: the model is exact */
        ck_assert_int_eq((int) m.t_end, depth(n, a->all, a->classic));
        if (a->all) {
            for (int r = 0; r < n; ++r) {
                cost_t want = allreduce_cost(n, r, bytes, a->classic);
                const sim_stats_t *st = sim_stats(s, r);
                ck_assert_msg(st->bytes_sent == want.sent && st->bytes_recv == want.recv
                                  && st->msgs_sent == want.msgs && st->rounds == want.rounds,
                              "%sallreduce n=%d rank %d (%c): sent %lld recv %lld msgs %lld "
                              "rounds %d, model %lld %lld %d %d",
                              a->classic ? "classic " : "", n, r, spec_role(n, r),
                              (long long) st->bytes_sent, (long long) st->bytes_recv,
                              (long long) st->msgs_sent, st->rounds, (long long) want.sent,
                              (long long) want.recv, want.msgs, want.rounds);
            }
            /* both schemes move 2 (n-1) L in all, the classic r L/2 more */
            ck_assert_int_eq(m.total_bytes,
                             2 * (n - 1) * bytes + (a->classic ? (n - N) * bytes / 2 : 0));
        } else {
            int64_t total, max_sent, root_recv;
            reduce_cost(n, bytes, a->classic, &total, &max_sent, &root_recv);
            ck_assert_int_eq(m.total_bytes, total);
            ck_assert_int_eq(m.max_bytes_sent, n > 1 ? max_sent : 0);
            ck_assert_int_eq(sim_stats(s, a->root)->bytes_recv, n > 1 ? root_recv : 0);
        }
    }
    sim_free(s);
}

static void check_all(int n, int root, int64_t count, bool all, bool classic, bool in_place,
                      bool track)
{
    targs_t a = {.n = n, .root = root, .count = count, .esize = 8, .in_place = in_place,
                 .all = all, .classic = classic};
    check(&a, track);
}

/* The counts the issue names, for n processes. */
static void counts_of(int n, int64_t out[6])
{
    out[0] = 0;
    out[1] = 1;
    out[2] = n - 1;
    out[3] = n;
    out[4] = 2 * (int64_t) n + 1;
    out[5] = 1000003; /* large and prime */
}

/* Every n: alternately a count that splits into equal non-empty blocks
 * (the cost model is then exact) and one that does not. */
static int64_t sweep_count(int n)
{
    return n % 4 < 2 ? 4 * (int64_t) hcp_pof2_floor(n) : 2 * (int64_t) n + 1;
}

START_TEST(allreduce_every_n)
{
    for (int n = 1; n <= 2048; ++n) {
        check_all(n, 0, sweep_count(n), true, false, n % 2, true);
        if (n <= 256) {
            check_all(n, 0, sweep_count(n), true, true, n % 3 == 0, true);
        }
    }
}
END_TEST

START_TEST(allreduce_counts)
{
    int64_t counts[6];
    for (int n = 1; n <= 64; ++n) {
        counts_of(n, counts);
        for (int i = 0; i < 6; ++i) {
            for (int mode = 0; mode < 4; ++mode) {
                check_all(n, 0, counts[i], true, mode & 1, mode & 2, true);
            }
        }
    }
}
END_TEST

/* Samples to 32,768: one of the counts in turn, and the exact
 * model of either scheme. */
static void big_samples(bool all)
{
    int64_t counts[6];
    for (int i = 0; i < UNIT_NBIG; ++i) {
        int n = unit_big_sizes[i], root = all ? 0 : (n / 5 + i) % n;
        counts_of(n, counts);
        check_all(n, root, counts[1 + i % 5], all, false, i % 2, true);
        check_all(n, root, 4 * hcp_pof2_floor(n), all, i % 2, false, false);
    }
}

START_TEST(allreduce_large)
{
    big_samples(true);
}
END_TEST

START_TEST(reduce_every_root)
{
    int64_t counts[6];
    for (int n = 1; n <= 40; ++n) {
        counts_of(n, counts);
        for (int root = 0; root < n; ++root) {
            for (int i = 0; i < 5; ++i) {
                check_all(n, root, counts[i], false, false, (root + i) % 2, true);
                check_all(n, root, counts[i], false, true, (root + i + 1) % 2, true);
            }
            check_all(n, root, 2 * hcp_pof2_floor(n), false, false, false, false);
            check_all(n, root, 2 * hcp_pof2_floor(n), false, true, false, false);
        }
    }
}
END_TEST

START_TEST(reduce_every_n)
{
    for (int n = 1; n <= 1024; ++n) {
        check_all(n, (n * 7) / 11, sweep_count(n), false, false, n % 2, true);
        if (n <= 256) {
            check_all(n, n / 3, sweep_count(n), false, true, n % 3 == 0, true);
        }
    }
}
END_TEST

START_TEST(reduce_large)
{
    big_samples(false);
}
END_TEST

/* Elements of a derived type (12 bytes) are never split. */
START_TEST(odd_element_size)
{
    for (int n = 1; n <= 40; ++n) {
        targs_t a = {.n = n, .root = n / 2, .count = 3 * n + 2, .esize = 12, .all = true};
        check(&a, true);
        a.all = false;
        check(&a, true);
    }
}
END_TEST

/* The roles the planner reports are the spec's. */
START_TEST(roles)
{
    for (int n = 1; n <= 600; ++n) {
        for (int v = 0; v < n; ++v) {
            const char *got = hcp_rhrd_role(n, v);
            char want = spec_role(n, v);
            ck_assert_msg(want == (0 == strcmp(got, "pair")       ? 'P'
                                   : 0 == strcmp(got, "receiver") ? 'R'
                                   : 0 == strcmp(got, "sender")   ? 'S'
                                                                  : got[0]),
                          "n=%d v=%d: role %s, spec %c", n, v, got, want);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan_rhrd");
    TCase *tc = tcase_create("rhrd");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, allreduce_every_n);
    tcase_add_test(tc, allreduce_counts);
    tcase_add_test(tc, allreduce_large);
    tcase_add_test(tc, reduce_every_root);
    tcase_add_test(tc, reduce_every_n);
    tcase_add_test(tc, reduce_large);
    tcase_add_test(tc, odd_element_size);
    tcase_add_test(tc, roles);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
