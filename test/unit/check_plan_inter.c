/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The intercommunicator planners, run by the simulator as two groups (of
 * every pair of sizes from 1x1 to 64x64, to 40x40 for the all-to-all
 * ones, and samples up to 1000x3), every kind of root at small sizes,
 * commutative and not, random counts (zero included) and gapped
 * layouts: every result byte comes
 * from the right rank of the REMOTE group, exactly once, in rank order
 * for non-commutative reductions; the barrier holds everybody until the
 * last process of either group arrives; messages between the groups are
 * counted against the algorithms' model.
 */
#include "unit_common.h"

enum {
    I_BARRIER,
    I_BCAST,
    I_ALLREDUCE,
    I_REDUCE,
    I_REDUCE_SCATTER,
    I_GATHERV,
    I_SCATTERV,
    I_ALLGATHER,
    I_ALLGATHERV,
    I_ALLTOALLV,
    I_ALLTOALLW,
    I_N
};

#define ES 4 /* element size in bytes */

typedef struct iargs {
    int coll, na, nb;
    int rootg, root; /* the root's group (0: A, 1: B) and rank in it */
    bool commutative;
    int64_t cnt[2];       /* per group: count (bcast, reductions), send count (others) */
    int *rc[2], *dsp[2];  /* per group: rcounts/displs over the REMOTE group's ranks
                           * (gatherv/allgatherv), or over the own ranks (reduce_scatter) */
    int *sc[2], *sdsp[2]; /* alltoallv: per group, send counts/displs over the remote ranks
                           * (the same for every rank of the group) */
} iargs_t;

static int group_of(const iargs_t *a, int r)
{
    return r >= a->na;
}

static int plan(hcp_plan_t *p, int r, void *arg)
{
    iargs_t *a = arg;
    int g = group_of(a, r), lr = g ? r - a->na : r;
    int nl = g ? a->nb : a->na, nr = g ? a->na : a->nb;
    int root = g == a->rootg ? (lr == a->root ? HCP_INTER_ROOT : HCP_INTER_NONE) : a->root;
    int64_t c = a->cnt[g], rcnt = a->cnt[!g];
    switch (a->coll) {
    case I_BARRIER:
        return hcp_inter_barrier(p, nl, nr, lr);
    case I_BCAST:
        return hcp_inter_bcast(p, nl, nr, lr, root, a->cnt[0], ES);
    case I_ALLREDUCE:
        return hcp_inter_allreduce(p, nl, nr, lr, c, ES, a->commutative);
    case I_REDUCE:
        return hcp_inter_reduce(p, nl, nr, lr, root, c, ES, a->commutative);
    case I_REDUCE_SCATTER:
        return hcp_inter_reduce_scatter(p, nl, nr, lr, a->rc[g], 0, ES, a->commutative);
    case I_GATHERV:
        return hcp_inter_gatherv(p, nl, nr, lr, root, a->rc[!g][lr], ES, a->rc[g], a->dsp[g], 0,
                                 ES);
    case I_SCATTERV:
        return hcp_inter_scatterv(p, nl, nr, lr, root, a->rc[g], a->dsp[g], 0, ES, a->rc[!g][lr],
                                  ES);
    case I_ALLGATHER:
        return hcp_inter_allgather(p, nl, nr, lr, c, ES, rcnt, ES);
    case I_ALLGATHERV:
        return hcp_inter_allgatherv(p, nl, nr, lr, a->rc[!g][lr], ES, a->rc[g], a->dsp[g], ES);
    case I_ALLTOALLV:
        /* rank lr of group g receives sc[!g][lr] from every remote rank */
        {
            int *rc = malloc(sizeof(int) * (size_t) nr), *rd = malloc(sizeof(int) * (size_t) nr);
            int64_t off = 0;
            for (int j = 0; j < nr; ++j) {
                rc[j] = a->sc[!g][lr];
                rd[j] = (int) off;
                off += rc[j] + 1;
            }
            int rcode =
                hcp_inter_alltoallv(p, nl, nr, lr, a->sc[g], a->sdsp[g], 0, ES, rc, rd, 0, ES);
            free(rc);
            free(rd);
            return rcode;
        }
    default: {
        /* alltoallw: bytes as the element of every peer */
        size_t *one = malloc(sizeof(size_t) * (size_t) nr);
        int *rc = malloc(sizeof(int) * (size_t) nr), *rd = malloc(sizeof(int) * (size_t) nr);
        int64_t off = 0;
        for (int j = 0; j < nr; ++j) {
            one[j] = 1;
            rc[j] = a->sc[!g][lr] * ES;
            rd[j] = (int) off;
            off += rc[j] + ES;
        }
        int *scb = malloc(sizeof(int) * (size_t) nr), *sdb = malloc(sizeof(int) * (size_t) nr);
        for (int j = 0; j < nr; ++j) {
            scb[j] = a->sc[g][j] * ES;
            sdb[j] = a->sdsp[g][j] * ES;
        }
        int rcode = hcp_inter_alltoallw(p, nl, nr, lr, scb, sdb, one, rc, rd, one);
        free(one), free(rc), free(rd), free(scb), free(sdb);
        return rcode;
    }
    }
}

/* Random counts over n entries that add up to total (some 0), laid out
 * in reverse rank order with random gaps when displs is wanted. */
static void split(uint64_t *st, int n, int64_t total, int *counts, int *displs, bool gaps)
{
    int64_t left = total, off = 0;
    for (int i = 0; i < n; ++i) {
        int64_t c = i == n - 1 ? left : (int64_t) (unit_rand(st) % (uint64_t) (2 * total / n + 2));
        c = c > left ? left : c;
        counts[i] = (int) c;
        left -= c;
    }
    for (int i = n - 1; i >= 0; --i) {
        displs[i] = (int) off;
        off += counts[i] + (gaps ? (int64_t) (unit_rand(st) % 3) : 0);
    }
}

static int g_rank(const iargs_t *a, int g, int lr)
{
    return g ? a->na + lr : lr;
}

/* Rank r's RBUF holds remote rank j's input as block j of its own layout
 * (rc, dsp of its group), gaps aside. */
static void expect_blocks(sim_t *s, const iargs_t *a, int r, const char *what)
{
    int g = group_of(a, r), nr = g ? a->na : a->nb;
    for (int j = 0; j < nr; ++j) {
        int64_t d = (int64_t) a->dsp[g][j] * ES;
        if (a->rc[g][j] > 0) {
            UNIT_EXPECT(s, r, HCP_RBUF, d, (int64_t) a->rc[g][j] * ES,
                        sim_shifted(sim_input(g_rank(a, !g, j)), -d), false, "%s r%d from %d", what,
                        r, j);
        }
    }
}

/* Run one case and check every rank's result. */
static void run_case(iargs_t *a)
{
    int n = a->na + a->nb;
    sim_t *s = sim_new(n, true);
    sim_set_groups(s, a->na);
    char what[96];
    snprintf(what, sizeof(what), "coll %d %dx%d root %d:%d", a->coll, a->na, a->nb, a->rootg,
             a->root);
    UNIT_PLAN(s, plan, a, NULL, NULL);
    for (int r = 0; r < n; ++r) {
        if (I_BCAST != a->coll) {
            sim_set(s, r, HCP_SBUF, 0, 1 << 20, sim_input(r));
        }
    }
    if (I_BCAST == a->coll) {
        int root = g_rank(a, a->rootg, a->root);
        sim_set(s, root, HCP_RBUF, 0, a->cnt[0] * ES, sim_input(root));
    }
    int late = n / 2;
    if (I_BARRIER == a->coll) {
        sim_set_start(s, late, 1000.0);
    }
    UNIT_RUN(s, &unit_depth_model, "%s", what);
    for (int r = 0; r < n; ++r) {
        int g = group_of(a, r), lr = g ? r - a->na : r, nr = g ? a->na : a->nb;
        int rg = !g; /* the remote group */
        sim_val_t all_remote = sim_range_of(g_rank(a, rg, 0), g_rank(a, rg, nr - 1));
        switch (a->coll) {
        case I_BARRIER:
            ck_assert_msg(sim_stats(s, r)->t_end >= 1000.0, "%s: rank %d left early", what, r);
            break;
        case I_BCAST:
            if (g != a->rootg && a->cnt[0] > 0) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, a->cnt[0] * ES,
                            sim_input(g_rank(a, a->rootg, a->root)), false, "%s r%d", what, r);
            }
            break;
        case I_ALLREDUCE:
            if (a->cnt[g] > 0) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, a->cnt[g] * ES, all_remote, !a->commutative,
                            "%s r%d", what, r);
            }
            break;
        case I_REDUCE:
            if (g == a->rootg && lr == a->root && a->cnt[g] > 0) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, a->cnt[g] * ES, all_remote, !a->commutative,
                            "%s r%d", what, r);
            }
            break;
        case I_REDUCE_SCATTER: {
            int64_t d = 0;
            for (int i = 0; i < lr; ++i) {
                d += a->rc[g][i];
            }
            if (a->rc[g][lr] > 0) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, (int64_t) a->rc[g][lr] * ES,
                            sim_shifted(all_remote, d * ES), !a->commutative, "%s r%d", what, r);
            }
            break;
        }
        case I_GATHERV:
            if (g == a->rootg && lr == a->root) {
                expect_blocks(s, a, r, what);
            }
            break;
        case I_SCATTERV:
            if (g != a->rootg && a->rc[rg][lr] > 0) {
                UNIT_EXPECT(
                    s, r, HCP_RBUF, 0, (int64_t) a->rc[rg][lr] * ES,
                    sim_shifted(sim_input(g_rank(a, rg, a->root)), (int64_t) a->dsp[rg][lr] * ES),
                    false, "%s r%d", what, r);
            }
            break;
        case I_ALLGATHER: {
            int64_t blk = a->cnt[rg] * ES;
            for (int j = 0; j < nr && blk > 0; ++j) {
                UNIT_EXPECT(s, r, HCP_RBUF, j * blk, blk,
                            sim_shifted(sim_input(g_rank(a, rg, j)), -j * blk), false,
                            "%s r%d from %d", what, r, j);
            }
            break;
        }
        case I_ALLGATHERV:
            expect_blocks(s, a, r, what);
            break;
        default: { /* alltoallv, alltoallw: block j from remote j's block lr */
            int64_t off = 0, c = a->sc[rg][lr], gap = 1; /* the receivers' layout (plan()) */
            for (int j = 0; j < nr; ++j) {
                if (c > 0) {
                    UNIT_EXPECT(s, r, HCP_RBUF, off * ES, c * ES,
                                sim_shifted(sim_input(g_rank(a, rg, j)),
                                            ((int64_t) a->sdsp[rg][lr] - off) * ES),
                                false, "%s r%d from %d", what, r, j);
                }
                off += c + gap;
            }
            break;
        }
        }
    }
    /* messages between the groups: one each way for the leader-based
     * collectives (when there is data) */
    sim_summary_t m = sim_summarize(s);
    if (I_ALLREDUCE == a->coll && a->cnt[0] > 0) {
        ck_assert_int_eq(m.total_msgs, (a->na - 1) * 2 + (a->nb - 1) * 2 + 2);
    }
    if (I_BCAST == a->coll && a->cnt[0] > 0) {
        ck_assert_int_eq(m.total_msgs, (a->rootg ? a->na : a->nb));
    }
    if (I_BARRIER == a->coll || (I_ALLGATHER == a->coll && a->cnt[0] > 0 && a->cnt[1] > 0)) {
        /* fan in (gather), the leaders' exchange, fan out (bcast) */
        ck_assert_int_eq(m.total_msgs, 2 * (a->na - 1) + 2 * (a->nb - 1) + 2);
    }
    if (I_ALLREDUCE == a->coll || I_BCAST == a->coll) {
        /* the data crosses between the groups once each way (bcast: once) */
        ck_assert_int_le(m.max_bytes_sent,
                         ((int64_t) (a->na > a->nb ? a->na : a->nb) + 2) * a->cnt[0] * ES);
    }
    sim_free(s);
}

/* A case with fresh layouts. */
static void one(int coll, int na, int nb, int rootg, int root, bool commutative, uint64_t *st)
{
    iargs_t a = {
        .coll = coll, .na = na, .nb = nb, .rootg = rootg, .root = root, .commutative = commutative};
    int64_t total = 1 + (int64_t) (unit_rand(st) % 40);
    for (int g = 0; g < 2; ++g) {
        int nl = g ? nb : na, nr = g ? na : nb;
        a.cnt[g] = (int64_t) (unit_rand(st) % 4);
        int len = nl > nr ? nl : nr;
        a.rc[g] = calloc((size_t) len, sizeof(int));
        a.dsp[g] = calloc((size_t) len, sizeof(int));
        a.sc[g] = calloc((size_t) len, sizeof(int));
        a.sdsp[g] = calloc((size_t) len, sizeof(int));
        if (I_REDUCE_SCATTER == coll) {
            split(st, nl, total, a.rc[g], a.dsp[g], false);
        } else {
            split(st, nr, total, a.rc[g], a.dsp[g], true);
        }
        for (int j = 0; j < nr; ++j) {
            a.sc[g][j] = (int) (unit_rand(st) % 3);
        }
    }
    for (int g = 0; g < 2; ++g) {
        int nr = g ? na : nb;
        int64_t off = 0;
        for (int j = 0; j < nr; ++j) {
            a.sdsp[g][j] = (int) off;
            off += a.sc[g][j] + 2;
        }
    }
    if (I_BCAST == coll) {
        a.cnt[1] = a.cnt[0];
    }
    if (I_ALLREDUCE == coll || I_REDUCE == coll) {
        a.cnt[1] = a.cnt[0] = 1 + a.cnt[0]; /* one count for both groups */
    }
    run_case(&a);
    for (int g = 0; g < 2; ++g) {
        free(a.rc[g]), free(a.dsp[g]), free(a.sc[g]), free(a.sdsp[g]);
    }
}

static void sweep(int coll, int max)
{
    uint64_t st = 12345 + (uint64_t) coll;
    for (int na = 1; na <= max; ++na) {
        for (int nb = 1; nb <= max; ++nb) {
            int rootg = (na + nb) % 2, nroot = rootg ? nb : na;
            one(coll, na, nb, rootg, (na * 7 + nb) % nroot, (na + nb) % 3 != 0, &st);
        }
    }
    const int big[][2] = {{1000, 3}, {3, 1000}, {257, 256}, {1, 700}};
    for (int k = 0; k < 4; ++k) {
        one(coll, big[k][0], big[k][1], k % 2, big[k][k % 2] - 1, k % 2, &st);
    }
}

START_TEST(t_barrier)
{
    sweep(I_BARRIER, 64);
}
END_TEST
START_TEST(t_bcast)
{
    sweep(I_BCAST, 64);
}
END_TEST
START_TEST(t_allreduce)
{
    sweep(I_ALLREDUCE, 64);
}
END_TEST
START_TEST(t_reduce)
{
    sweep(I_REDUCE, 64);
}
END_TEST
START_TEST(t_reduce_scatter)
{
    sweep(I_REDUCE_SCATTER, 64);
}
END_TEST
START_TEST(t_gatherv)
{
    sweep(I_GATHERV, 64);
}
END_TEST
START_TEST(t_scatterv)
{
    sweep(I_SCATTERV, 64);
}
END_TEST
START_TEST(t_allgather)
{
    sweep(I_ALLGATHER, 64);
}
END_TEST
START_TEST(t_allgatherv)
{
    sweep(I_ALLGATHERV, 40);
}
END_TEST
START_TEST(t_alltoallv)
{
    sweep(I_ALLTOALLV, 40);
}
END_TEST
START_TEST(t_alltoallw)
{
    sweep(I_ALLTOALLW, 40);
}
END_TEST

/* Every root of small groups, both commutativities, every collective. */
START_TEST(t_every_root)
{
    uint64_t st = 99;
    for (int coll = 0; coll < I_N; ++coll) {
        for (int na = 1; na <= 6; ++na) {
            for (int nb = 1; nb <= 6; ++nb) {
                for (int g = 0; g < 2; ++g) {
                    for (int root = 0; root < (g ? nb : na); ++root) {
                        one(coll, na, nb, g, root, root % 2, &st);
                    }
                }
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan_inter");
    TCase *tc = tcase_create("inter");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, t_barrier);
    tcase_add_test(tc, t_bcast);
    tcase_add_test(tc, t_allreduce);
    tcase_add_test(tc, t_reduce);
    tcase_add_test(tc, t_reduce_scatter);
    tcase_add_test(tc, t_gatherv);
    tcase_add_test(tc, t_scatterv);
    tcase_add_test(tc, t_allgather);
    tcase_add_test(tc, t_allgatherv);
    tcase_add_test(tc, t_alltoallv);
    tcase_add_test(tc, t_alltoallw);
    tcase_add_test(tc, t_every_root);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
