/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The rings and chains (coll_hiercoll_plan_ring.c) through the
 * simulator, process counts to 120 and 1,025: results
 * exact (the linear reduce-scatter in rank order), blocks of every size
 * down to empty ones, every root of the chains to 20, in place or not;
 * and each rank sends what it must once: a ring reduce-scatter (or its
 * chains, one per block) or allgather every block but one, the ring allreduce 2(n-1)/n of the
 * vector within the blocks' rounding, a chain the vector (its last rank
 * nothing), in n-1, 2(n-1) and n-2+segments steps.
 */
#include "unit_common.h"

typedef struct rargs {
    int n, root, which, segs;
    int64_t count;
    const int64_t *counts, *displs;
    bool in_place;
} rargs_t;

enum { RS_RING, RS_LINEAR, RS_CHAINS, AG_RING, AR_RING, BC_CHAIN, RD_CHAIN };

static int plan(hcp_plan_t *p, int rank, void *arg)
{
    const rargs_t *a = arg;
    switch (a->which) {
    case RS_RING:
        return hcp_reduce_scatter_ring(p, a->n, rank, a->counts, 4, a->in_place);
    case RS_LINEAR:
        return hcp_reduce_scatter_linear(p, a->n, rank, a->counts, 4, a->in_place);
    case RS_CHAINS:
        return hcp_reduce_scatter_chains(p, a->n, rank, a->counts, 4, a->segs, a->in_place);
    case AG_RING:
        return hcp_allgatherv_ring(p, a->n, rank, a->counts, a->displs, 4);
    case AR_RING:
        return hcp_allreduce_ring(p, a->n, rank, a->count, 4, a->in_place);
    case BC_CHAIN:
        return hcp_bcast_chain(p, a->n, rank, a->root, a->count, 4, a->segs);
    default:
        return hcp_reduce_chain(p, a->n, rank, a->root, a->count, 4, a->segs,
                                a->in_place && rank == a->root);
    }
}

static sim_t *run(const rargs_t *a, int64_t total)
{
    sim_t *s = sim_new(a->n, true);
    UNIT_PLAN(s, plan, (void *) a, NULL, NULL);
    for (int r = 0; r < a->n; ++r) {
        switch (a->which) {
        case AG_RING:
            sim_set(s, r, HCP_RBUF, a->displs[r] * 4, a->counts[r] * 4,
                    sim_shifted(sim_input(r), -a->displs[r] * 4));
            break;
        case BC_CHAIN:
            if (r == a->root) {
                sim_set(s, r, HCP_RBUF, 0, total * 4, sim_input(r));
            }
            break;
        case RD_CHAIN:
            sim_set(s, r, a->in_place && r == a->root ? HCP_RBUF : HCP_SBUF, 0, total * 4,
                    sim_input(r));
            break;
        default:
            sim_set(s, r, a->in_place ? HCP_RBUF : HCP_SBUF, 0, total * 4, sim_input(r));
        }
    }
    UNIT_RUN(s, NULL, "plan %d n %d", a->which, a->n);
    return s;
}

static void check_blocks(int n, uint64_t *seed)
{
    int64_t *counts = malloc(sizeof(int64_t) * (size_t) n);
    int64_t *displs = malloc(sizeof(int64_t) * (size_t) n);
    int64_t total = 0;
    for (int b = 0; b < n; ++b) {
        counts[b] = (int64_t) (unit_rand(seed) % 4); /* empty blocks too */
        displs[b] = total;
        total += counts[b];
    }
    for (int which = RS_RING; which <= AG_RING; ++which) {
        for (int ip = 0; ip < 2; ++ip) {
            rargs_t a = {
                .n = n, .which = which, .counts = counts, .displs = displs, .in_place = ip};
            sim_t *s = run(&a, total);
            for (int r = 0; r < n; ++r) {
                const sim_stats_t *st = sim_stats(s, r);
                if (AG_RING == which) {
                    for (int b = 0; b < n; ++b) {
                        UNIT_EXPECT(s, r, HCP_RBUF, displs[b] * 4, counts[b] * 4,
                                    sim_shifted(sim_input(b), -displs[b] * 4), false,
                                    "allgatherv ring n %d rank %d block %d", n, r, b);
                    }
                    EXPECT(st->bytes_sent == 4 * (total - counts[(r + 1) % n]),
                           "allgatherv ring n %d rank %d sends %lld", n, r,
                           (long long) st->bytes_sent);
                } else {
                    /* (the block in its place: the bytes' own positions) */
                    UNIT_EXPECT(s, r, HCP_RBUF, displs[r] * 4, counts[r] * 4,
                                sim_range_of(0, n - 1), RS_LINEAR == which,
                                "reduce_scatter %d n %d rank %d", which, n, r);
                    EXPECT(st->bytes_sent == 4 * (total - counts[r]),
                           "reduce_scatter n %d rank %d sends %lld", n, r,
                           (long long) st->bytes_sent);
                }
                if (RS_RING == which || AG_RING == which) {
                    EXPECT(st->rounds <= n - 1 + 1, "n %d: %d rounds", n, st->rounds);
                } else if (RS_CHAINS == which) {
                    EXPECT(st->rounds <= n - 1 + a.segs + 1, "n %d: %d rounds", n, st->rounds);
                }
            }
            sim_free(s);
            if (AG_RING == which) {
                break; /* (always in place) */
            }
        }
    }
    free(counts);
    free(displs);
}

START_TEST(ring_blocks)
{
    uint64_t seed = 17;
    for (int n = 1; n <= 120; ++n) {
        check_blocks(n, &seed);
    }
    check_blocks(1025, &seed);
}
END_TEST

START_TEST(ring_allreduce)
{
    static const int64_t counts[] = {0, 1, 5, 64, 1000};
    for (int n = 1; n <= 150; n += 1 + n / 20) {
        for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
            for (int ip = 0; ip < 2; ++ip) {
                rargs_t a = {.n = n, .which = AR_RING, .count = counts[c], .in_place = ip};
                sim_t *s = run(&a, counts[c]);
                int64_t most = (counts[c] + n - 1) / n; /* the largest block */
                for (int r = 0; r < n; ++r) {
                    UNIT_EXPECT(s, r, HCP_RBUF, 0, counts[c] * 4, sim_range_of(0, n - 1), false,
                                "allreduce ring n %d rank %d", n, r);
                    EXPECT(sim_stats(s, r)->bytes_sent
                               <= 4 * 2 * (counts[c] - counts[c] / n) + 8 * most,
                           "allreduce ring n %d sends %lld", n,
                           (long long) sim_stats(s, r)->bytes_sent);
                    EXPECT(sim_stats(s, r)->rounds <= 2 * (n - 1) + 1, "n %d rounds %d", n,
                           sim_stats(s, r)->rounds);
                }
                sim_free(s);
            }
        }
    }
}
END_TEST

START_TEST(chains)
{
    static const int64_t counts[] = {1, 3, 40};
    for (int n = 1; n <= 40; ++n) {
        for (int root = 0; root < n && root < 20; root += 1 + root) {
            for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); ++c) {
                for (int segs = 1; segs <= 5; segs += 2) {
                    for (int which = BC_CHAIN; which <= RD_CHAIN; ++which) {
                        rargs_t a = {.n = n,
                                     .root = root,
                                     .which = which,
                                     .segs = segs,
                                     .count = counts[c],
                                     .in_place = segs > 1};
                        sim_t *s = run(&a, counts[c]);
                        for (int r = 0; r < n; ++r) {
                            const sim_stats_t *st = sim_stats(s, r);
                            int v = (r - root + n) % n;
                            if (BC_CHAIN == which) {
                                UNIT_EXPECT(s, r, HCP_RBUF, 0, counts[c] * 4, sim_input(root),
                                            false, "bcast chain n %d rank %d", n, r);
                                EXPECT(st->bytes_sent == (v == n - 1 ? 0 : 4 * counts[c]),
                                       "bcast chain n %d rank %d", n, r);
                            } else {
                                if (r == root) {
                                    UNIT_EXPECT(s, r, HCP_RBUF, 0, counts[c] * 4,
                                                sim_range_of(0, n - 1), false,
                                                "reduce chain n %d root %d", n, r);
                                }
                                EXPECT(st->bytes_sent == (0 == v ? 0 : 4 * counts[c]),
                                       "reduce chain n %d rank %d", n, r);
                            }
                            int S = segs > counts[c] ? (int) counts[c] : segs;
                            EXPECT(st->rounds <= (n > 1 ? n - 2 + S : 0) + 1,
                                   "chain n %d: %d rounds", n, st->rounds);
                        }
                        sim_free(s);
                    }
                }
            }
        }
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan_ring");
    TCase *tc = tcase_create("rings");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ring_blocks);
    tcase_add_test(tc, ring_allreduce);
    tcase_add_test(tc, chains);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return unit_run(suite());
}
