/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The foundation's planners, run by the symbolic simulator for every
 * process count from 1 to 1,000 and samples up to 32,768: each result
 * byte carries each rank's contribution exactly once (in rank order for
 * non-commutative reductions), and messages, rounds and depth equal the
 * algorithm's model.
 */
#include "unit_common.h"

typedef struct targs {
    int n, root;
    int64_t count;
    size_t esize;
    bool commutative, in_place;
} targs_t;

/* Depth of a binomial tree of n in the latency-only model: the most set
 * bits of any relative rank below n, i.e. floor(log2 n). */
static int floor_log2(int n)
{
    int k = 0;
    while (n > 1) {
        n >>= 1;
        ++k;
    }
    return k;
}

static int64_t none(int rank, void *arg)
{
    (void) rank;
    (void) arg;
    return -1;
}

static int64_t count_units(int rank, void *arg)
{
    (void) rank;
    return ((targs_t *) arg)->count;
}

/* ------------------------------------------------------------------ */
/* bcast                                                                */
/* ------------------------------------------------------------------ */

static int plan_bcast(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_bcast_binomial(p, a->n, rank, a->root, a->count, a->esize);
}

static int plan_bcast_linear(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_bcast_linear(p, a->n, rank, a->root, a->count, a->esize);
}

static void check_bcast(int n, int root, int64_t count, sim_planner_fn fn,
                        bool binomial)
{
    targs_t a = {.n = n, .root = root, .count = count, .esize = 8};
    int64_t bytes = count * 8;
    sim_t *s = sim_new(n, true);
    UNIT_PLAN(s, fn, &a, none, count_units);
    sim_set(s, root, HCP_RBUF, 0, bytes, sim_input(root));
    UNIT_RUN(s, &unit_depth_model, "bcast n=%d root=%d", n, root);
    for (int r = 0; r < n; ++r) {
        UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, sim_input(root), false,
                    "bcast n=%d root=%d", n, root);
    }
    sim_summary_t m = sim_summarize(s);
    int64_t want_msgs = bytes > 0 ? n - 1 : 0;
    ck_assert_int_eq(m.total_msgs, want_msgs);
    ck_assert_int_eq(m.total_bytes, want_msgs * bytes);
    if (bytes > 0 && binomial) {
        ck_assert_int_eq(sim_stats(s, root)->msgs_sent, hcp_ceil_log2(n));
        ck_assert_int_eq((int) m.t_end, floor_log2(n));
        ck_assert_int_le(m.max_rounds, 2);
    }
    sim_free(s);
}

START_TEST(bcast_every_n)
{
    for (int n = 1; n <= 1000; ++n) {
        check_bcast(n, 0, 3, plan_bcast, true);
        check_bcast(n, n - 1, 1, plan_bcast, true);
        check_bcast(n, n / 3, 5, plan_bcast, true);
    }
    check_bcast(7, 3, 0, plan_bcast, true);
}
END_TEST

START_TEST(bcast_every_root)
{
    for (int n = 1; n <= 40; ++n) {
        for (int root = 0; root < n; ++root) {
            check_bcast(n, root, 2, plan_bcast, true);
            check_bcast(n, root, 2, plan_bcast_linear, false);
        }
    }
}
END_TEST

START_TEST(bcast_large)
{
    for (int i = 0; i < UNIT_NBIG; ++i) {
        int n = unit_big_sizes[i];
        check_bcast(n, n / 2 + 1, 4, plan_bcast, true);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* reduce                                                               */
/* ------------------------------------------------------------------ */

static int plan_reduce(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_reduce_binomial(p, a->n, rank, a->root, a->count, a->esize,
                               a->commutative, a->in_place);
}

static int plan_reduce_linear(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_reduce_linear(p, a->n, rank, a->root, a->count, a->esize,
                             a->in_place);
}

static void check_reduce(int n, int root, int64_t count, bool commutative,
                         bool in_place, sim_planner_fn fn, bool binomial)
{
    targs_t a = {.n = n, .root = root, .count = count, .esize = 4,
                 .commutative = commutative, .in_place = in_place};
    int64_t bytes = count * 4;
    sim_t *s = sim_new(n, true);
    UNIT_PLAN(s, fn, &a, count_units, count_units);
    unit_inputs(s, HCP_SBUF, bytes);
    if (in_place) {
        sim_set(s, root, HCP_SBUF, 0, bytes, (sim_val_t){0, 0, 0, -1, -1, 0});
        sim_set(s, root, HCP_RBUF, 0, bytes, sim_input(root));
    }
    UNIT_RUN(s, &unit_depth_model, "reduce n=%d root=%d comm=%d", n, root, commutative);
    UNIT_EXPECT(s, root, HCP_RBUF, 0, bytes, sim_range_of(0, n - 1), !commutative,
                "reduce n=%d root=%d comm=%d inplace=%d", n, root, commutative, in_place);
    sim_summary_t m = sim_summarize(s);
    if (bytes > 0 && binomial) {
        int extra = (!commutative && 0 != root) ? 1 : 0;
        ck_assert_int_eq(m.total_msgs, n - 1 + extra);
        ck_assert_int_eq((int) m.t_end, floor_log2(n) + extra);
        int kids[64];
        int want_recv = (commutative || 0 == root)
                            ? hcp_ceil_log2(n)
                            : hcp_binomial_children(n, root, kids, 64) + 1;
        ck_assert_int_eq(sim_stats(s, root)->msgs_recv, want_recv);
        /* every rank reduces each child's subtree once */
        ck_assert_int_le(m.max_bytes_reduced, (int64_t) hcp_ceil_log2(n) * bytes);
    }
    sim_free(s);
}

START_TEST(reduce_every_n)
{
    for (int n = 1; n <= 1000; ++n) {
        check_reduce(n, 0, 3, true, false, plan_reduce, true);
        check_reduce(n, n - 1, 2, false, false, plan_reduce, true);
        check_reduce(n, n / 2, 1, true, true, plan_reduce, true);
        check_reduce(n, (n * 2) / 3, 7, false, true, plan_reduce, true);
    }
}
END_TEST

START_TEST(reduce_every_root)
{
    for (int n = 1; n <= 33; ++n) {
        for (int root = 0; root < n; ++root) {
            for (int c = 0; c < 2; ++c) {
                check_reduce(n, root, 2, c, root % 2, plan_reduce, true);
                check_reduce(n, root, 2, c, !(root % 2), plan_reduce_linear, false);
            }
        }
    }
    check_reduce(9, 4, 0, true, false, plan_reduce, true);
}
END_TEST

START_TEST(reduce_large)
{
    for (int i = 0; i < UNIT_NBIG; ++i) {
        int n = unit_big_sizes[i];
        check_reduce(n, n / 3, 3, true, false, plan_reduce, true);
        check_reduce(n, n - 2, 2, false, true, plan_reduce, true);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* allreduce                                                            */
/* ------------------------------------------------------------------ */

static int plan_allreduce(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_allreduce_recursive_doubling(p, a->n, rank, a->count, a->esize,
                                            a->commutative, a->in_place);
}

static void check_allreduce(int n, int64_t count, bool commutative, bool in_place)
{
    targs_t a = {.n = n, .count = count, .esize = 8, .commutative = commutative,
                 .in_place = in_place};
    int64_t bytes = count * 8;
    sim_t *s = sim_new(n, true);
    UNIT_PLAN(s, plan_allreduce, &a, count_units, count_units);
    unit_inputs(s, in_place ? HCP_RBUF : HCP_SBUF, bytes);
    UNIT_RUN(s, &unit_depth_model, "allreduce n=%d", n);
    sim_val_t want = sim_range_of(0, n - 1);
    for (int r = 0; r < n; ++r) {
        UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, want, !commutative,
                    "allreduce n=%d comm=%d inplace=%d", n, commutative, in_place);
    }
    if (bytes > 0) {
        sim_summary_t m = sim_summarize(s);
        int pof2 = hcp_pof2_floor(n), lg = hcp_ceil_log2(pof2), extra = n - pof2;
        ck_assert_int_eq(m.total_msgs, (int64_t) pof2 * lg + 2 * extra);
        /* the post-step may overlap the last exchange: lg+1 or lg+2 */
        ck_assert_int_ge((int) m.t_end, lg + (extra > 0 ? 1 : 0));
        ck_assert_int_le((int) m.t_end, lg + (extra > 0 ? 2 : 0));
        ck_assert_int_eq(m.max_msgs_sent, lg + (extra > 0 ? 1 : 0));
        if (commutative) {
            ck_assert_int_eq(m.max_rounds, !in_place + lg + (extra > 0 ? 2 : 0));
        }
    }
    sim_free(s);
}

START_TEST(allreduce_every_n)
{
    for (int n = 1; n <= 1000; ++n) {
        check_allreduce(n, 2, true, false);
        check_allreduce(n, 1, false, n % 2);
    }
    check_allreduce(6, 0, true, false);
}
END_TEST

START_TEST(allreduce_large)
{
    for (int i = 0; i < UNIT_NBIG; ++i) {
        check_allreduce(unit_big_sizes[i], 3, false, false);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* barrier: nobody leaves before the last one arrives                   */
/* ------------------------------------------------------------------ */

static int plan_barrier(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_barrier_dissemination(p, a->n, rank);
}

static int plan_barrier_linear(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_barrier_linear(p, a->n, rank);
}

static void check_barrier(int n, int late, sim_planner_fn fn, bool dissemination)
{
    targs_t a = {.n = n};
    sim_t *s = sim_new(n, false);
    UNIT_PLAN(s, fn, &a, none, none);
    sim_set_start(s, late, 1000.0);
    UNIT_RUN(s, &unit_depth_model, "barrier n=%d", n);
    for (int r = 0; r < n; ++r) {
        ck_assert_msg(sim_stats(s, r)->t_end >= 1000.0,
                      "barrier n=%d: rank %d left before rank %d arrived", n, r, late);
    }
    if (dissemination) {
        sim_summary_t m = sim_summarize(s);
        ck_assert_int_eq(m.total_msgs, (int64_t) n * hcp_ceil_log2(n));
        ck_assert_int_eq(m.max_rounds, hcp_ceil_log2(n));
    }
    sim_free(s);
}

START_TEST(barrier_every_n)
{
    for (int n = 1; n <= 1000; ++n) {
        check_barrier(n, n - 1, plan_barrier, true);
        check_barrier(n, n / 2, plan_barrier, true);
        if (n <= 200) {
            for (int late = 0; late < n; late += 1 + n / 7) {
                check_barrier(n, late, plan_barrier, true);
                check_barrier(n, late, plan_barrier_linear, false);
            }
        }
    }
    for (int i = 0; i < UNIT_NBIG; ++i) {
        check_barrier(unit_big_sizes[i], unit_big_sizes[i] / 3, plan_barrier, true);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* the linear plans: gatherv, scatterv, allgatherv, alltoallv, scans    */
/* ------------------------------------------------------------------ */

typedef struct vargs {
    int n, root;
    int *counts, *displs;   /* per rank, in units of rsize */
    int *rcounts2, *rdispls2;
    size_t ssize, rsize;
    bool in_place;
} vargs_t;

/* A layout with zeros, gaps and displacements in a shuffled order. */
static int64_t make_layout(int n, int *counts, int *displs, uint64_t *seed)
{
    int *order = malloc(sizeof(int) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        order[i] = i;
        counts[i] = (int) (unit_rand(seed) % 4);
    }
    for (int i = n - 1; i > 0; --i) {
        int j = (int) (unit_rand(seed) % (uint64_t) (i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    int64_t pos = 0;
    for (int k = 0; k < n; ++k) {
        int i = order[k];
        pos += (int64_t) (unit_rand(seed) % 2); /* a gap */
        displs[i] = (int) pos;
        pos += counts[i];
    }
    free(order);
    return pos;
}

static int plan_gatherv(hcp_plan_t *p, int rank, void *arg)
{
    vargs_t *a = arg;
    /* sender's count in its own units: the same bytes as the root expects */
    int64_t scount = (int64_t) a->counts[rank] * (int64_t) a->rsize / (int64_t) a->ssize;
    return hcp_gatherv_linear(p, a->n, rank, a->root, scount, a->ssize, a->counts,
                              a->displs, 0, a->rsize, a->in_place && rank == a->root);
}

static int plan_scatterv(hcp_plan_t *p, int rank, void *arg)
{
    vargs_t *a = arg;
    int64_t rcount = (int64_t) a->counts[rank] * (int64_t) a->rsize / (int64_t) a->ssize;
    return hcp_scatterv_linear(p, a->n, rank, a->root, a->counts, a->displs, 0,
                               a->rsize, rcount, a->ssize, a->in_place && rank == a->root);
}

static int plan_allgatherv(hcp_plan_t *p, int rank, void *arg)
{
    vargs_t *a = arg;
    int64_t scount = (int64_t) a->counts[rank] * (int64_t) a->rsize / (int64_t) a->ssize;
    return hcp_allgatherv_linear(p, a->n, rank, scount, a->ssize, a->counts, a->displs,
                                 0, a->rsize, a->in_place);
}

START_TEST(gather_scatter_layouts)
{
    uint64_t seed = 42;
    for (int n = 1; n <= 48; ++n) {
        int *counts = malloc(sizeof(int) * (size_t) n), *displs = malloc(sizeof(int) * (size_t) n);
        for (int trial = 0; trial < 3; ++trial) {
            make_layout(n, counts, displs, &seed);
            for (int root = 0; root < n; root += 1 + n / 5) {
                for (int ip = 0; ip < 2; ++ip) {
                    /* gatherv: rsize 4 at the root, ssize 2 (twice the elements) */
                    vargs_t a = {.n = n, .root = root, .counts = counts, .displs = displs,
                                 .ssize = 2, .rsize = 4, .in_place = ip};
                    sim_t *s = sim_new(n, true);
                    UNIT_PLAN(s, plan_gatherv, &a, NULL, NULL);
                    for (int r = 0; r < n; ++r) {
                        int64_t bytes = (int64_t) counts[r] * 4;
                        if (ip && r == root) {
                            sim_set(s, r, HCP_RBUF, displs[r] * 4LL, bytes,
                                    sim_shifted(sim_input(r), -displs[r] * 4LL));
                        } else {
                            sim_set(s, r, HCP_SBUF, 0, bytes, sim_input(r));
                        }
                    }
                    UNIT_RUN(s, NULL, "gatherv n=%d root=%d", n, root);
                    for (int r = 0; r < n; ++r) {
                        UNIT_EXPECT(s, root, HCP_RBUF, displs[r] * 4LL, counts[r] * 4LL,
                                    sim_shifted(sim_input(r), -displs[r] * 4LL), false,
                                    "gatherv n=%d root=%d block %d", n, root, r);
                    }
                    sim_free(s);

                    /* scatterv: the root's blocks at displs go to their ranks */
                    s = sim_new(n, true);
                    UNIT_PLAN(s, plan_scatterv, &a, NULL, NULL);
                    for (int r = 0; r < n; ++r) {
                        sim_set(s, root, HCP_SBUF, displs[r] * 4LL, counts[r] * 4LL,
                                sim_shifted(sim_input(r), -displs[r] * 4LL));
                    }
                    UNIT_RUN(s, NULL, "scatterv n=%d root=%d", n, root);
                    for (int r = 0; r < n; ++r) {
                        if (ip && r == root) {
                            continue; /* the root's block stays in its send buffer */
                        }
                        UNIT_EXPECT(s, r, HCP_RBUF, 0, counts[r] * 4LL, sim_input(r), false,
                                    "scatterv n=%d root=%d rank %d", n, root, r);
                    }
                    sim_free(s);
                }
            }
            for (int ip = 0; ip < 2; ++ip) {
                vargs_t a = {.n = n, .counts = counts, .displs = displs, .ssize = 4,
                             .rsize = 4, .in_place = ip};
                sim_t *s = sim_new(n, true);
                UNIT_PLAN(s, plan_allgatherv, &a, NULL, NULL);
                for (int r = 0; r < n; ++r) {
                    if (ip) {
                        sim_set(s, r, HCP_RBUF, displs[r] * 4LL, counts[r] * 4LL,
                                sim_shifted(sim_input(r), -displs[r] * 4LL));
                    } else {
                        sim_set(s, r, HCP_SBUF, 0, counts[r] * 4LL, sim_input(r));
                    }
                }
                UNIT_RUN(s, NULL, "allgatherv n=%d", n);
                for (int r = 0; r < n; ++r) {
                    for (int b = 0; b < n; ++b) {
                        UNIT_EXPECT(s, r, HCP_RBUF, displs[b] * 4LL, counts[b] * 4LL,
                                    sim_shifted(sim_input(b), -displs[b] * 4LL), false,
                                    "allgatherv n=%d at %d block %d", n, r, b);
                    }
                }
                sim_free(s);
            }
        }
        free(counts);
        free(displs);
    }
}
END_TEST

/* alltoallv: rank i's block for j has length len(i, j); all ranks agree */
typedef struct a2a {
    int n;
    int **sc, **sd, **rc, **rd;
    bool in_place;
} a2a_t;

static int plan_alltoallv(hcp_plan_t *p, int rank, void *arg)
{
    a2a_t *a = arg;
    return hcp_alltoallv_linear(p, a->n, rank, a->sc[rank], a->sd[rank], 0, 4,
                                a->rc[rank], a->rd[rank], 0, 4, a->in_place);
}

static int plan_alltoallw(hcp_plan_t *p, int rank, void *arg)
{
    a2a_t *a = arg;
    size_t *sz = malloc(sizeof(size_t) * (size_t) a->n);
    int *sdb = malloc(sizeof(int) * (size_t) a->n), *rdb = malloc(sizeof(int) * (size_t) a->n);
    for (int j = 0; j < a->n; ++j) {
        sz[j] = 4;
        sdb[j] = a->sd[rank][j] * 4; /* byte displacements */
        rdb[j] = a->rd[rank][j] * 4;
    }
    int rc = hcp_alltoallw_linear(p, a->n, rank, a->sc[rank], sdb, sz, a->rc[rank], rdb,
                                  sz, a->in_place);
    /* The simulator's units are bytes here: turn counts into bytes. */
    for (int i = 0; i < p->nops; ++i) {
        hcp_op_t *op = &p->ops[i];
        if (op->buf != HCP_TMP0) {
            op->count *= 4;
        }
        if (HCP_COPY == op->kind && op->sbuf != HCP_TMP0) {
            op->scount *= 4;
        }
    }
    free(sz);
    free(sdb);
    free(rdb);
    return rc;
}

START_TEST(alltoall_layouts)
{
    uint64_t seed = 7;
    for (int n = 1; n <= 24; ++n) {
        for (int mode = 0; mode < 3; ++mode) { /* v, v in place, w */
            bool in_place = 1 == mode;
            a2a_t a = {.n = n, .in_place = in_place};
            a.sc = calloc((size_t) n, sizeof(int *));
            a.sd = calloc((size_t) n, sizeof(int *));
            a.rc = calloc((size_t) n, sizeof(int *));
            a.rd = calloc((size_t) n, sizeof(int *));
            int *len = malloc(sizeof(int) * (size_t) n * (size_t) n);
            for (int i = 0; i < n * n; ++i) {
                len[i] = (int) (unit_rand(&seed) % 3);
            }
            for (int i = 0; i < n; ++i) {
                a.sc[i] = malloc(sizeof(int) * (size_t) n);
                a.sd[i] = malloc(sizeof(int) * (size_t) n);
                a.rc[i] = malloc(sizeof(int) * (size_t) n);
                a.rd[i] = malloc(sizeof(int) * (size_t) n);
                for (int j = 0; j < n; ++j) {
                    a.sc[i][j] = len[i * n + j];
                    a.rc[i][j] = len[j * n + i];
                }
                make_layout(n, a.rc[i], a.rd[i], &seed); /* random order/gaps... */
                for (int j = 0; j < n; ++j) {
                    a.rc[i][j] = len[j * n + i]; /* ...but the agreed lengths */
                }
                /* displacements must not overlap: lay out after the fact */
                int64_t pos = 0;
                for (int j = 0; j < n; ++j) {
                    a.rd[i][j] = (int) pos;
                    pos += a.rc[i][j] + (int) (unit_rand(&seed) % 2);
                }
                if (in_place) {
                    for (int j = 0; j < n; ++j) {
                        a.sc[i][j] = a.rc[i][j];
                        a.sd[i][j] = a.rd[i][j];
                    }
                } else {
                    pos = 0;
                    for (int j = n - 1; j >= 0; --j) {
                        a.sd[i][j] = (int) pos;
                        pos += a.sc[i][j];
                    }
                }
            }
            /* in place needs sc[i][j] == rc[i][j]: symmetric lengths */
            if (in_place) {
                for (int i = 0; i < n; ++i) {
                    for (int j = 0; j < n; ++j) {
                        a.sc[i][j] = a.rc[i][j] = len[i * n + j] = len[j * n + i] =
                            i < j ? len[i * n + j] : len[j * n + i];
                    }
                }
                for (int i = 0; i < n; ++i) {
                    int64_t pos = 0;
                    for (int j = 0; j < n; ++j) {
                        a.rd[i][j] = a.sd[i][j] = (int) pos;
                        pos += a.rc[i][j] + 1;
                    }
                }
            }
            sim_t *s = sim_new(n, true);
            UNIT_PLAN(s, 2 == mode ? plan_alltoallw : plan_alltoallv, &a, NULL, NULL);
            /* block i->j is original bytes [0, len) of a symbol of i shifted by j */
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < n; ++j) {
                    int64_t off = a.sd[i][j] * 4LL;
                    sim_val_t v = sim_shifted(sim_input(i), (int64_t) j * 1000000 - off);
                    sim_set(s, i, in_place ? HCP_RBUF : HCP_SBUF, off, a.sc[i][j] * 4LL, v);
                }
            }
            UNIT_RUN(s, NULL, "alltoall n=%d mode=%d", n, mode);
            for (int i = 0; i < n; ++i) {
                for (int j = 0; j < n; ++j) {
                    int64_t off = a.rd[i][j] * 4LL;
                    sim_val_t want = sim_shifted(sim_input(j), (int64_t) i * 1000000 - off);
                    UNIT_EXPECT(s, i, HCP_RBUF, off, a.rc[i][j] * 4LL, want, false,
                                "alltoall n=%d mode=%d at %d from %d", n, mode, i, j);
                }
            }
            sim_free(s);
            for (int i = 0; i < n; ++i) {
                free(a.sc[i]);
                free(a.sd[i]);
                free(a.rc[i]);
                free(a.rd[i]);
            }
            free(a.sc);
            free(a.sd);
            free(a.rc);
            free(a.rd);
            free(len);
        }
    }
}
END_TEST

static int plan_scan(hcp_plan_t *p, int rank, void *arg)
{
    targs_t *a = arg;
    return hcp_scan_linear(p, a->n, rank, a->count, a->esize, a->root, a->in_place);
}

START_TEST(scan_exscan)
{
    for (int n = 1; n <= 300; ++n) {
        for (int ex = 0; ex < 2; ++ex) {
            for (int ip = 0; ip < 2; ++ip) {
                targs_t a = {.n = n, .root = ex, .count = 3, .esize = 8, .in_place = ip};
                sim_t *s = sim_new(n, true);
                UNIT_PLAN(s, plan_scan, &a, count_units, count_units);
                unit_inputs(s, ip ? HCP_RBUF : HCP_SBUF, 24);
                UNIT_RUN(s, NULL, "scan n=%d ex=%d", n, ex);
                for (int r = ex; r < n; ++r) {
                    UNIT_EXPECT(s, r, HCP_RBUF, 0, 24, sim_range_of(0, ex ? r - 1 : r), true,
                                "scan n=%d ex=%d ip=%d rank %d", n, ex, ip, r);
                }
                sim_free(s);
            }
        }
    }
}
END_TEST

typedef struct rsargs {
    int n;
    int *rcounts;
    bool commutative, in_place;
} rsargs_t;

static int plan_reduce_scatter(hcp_plan_t *p, int rank, void *arg)
{
    rsargs_t *a = arg;
    return hcp_reduce_scatter_basic(p, a->n, rank, a->rcounts, 0, 8, a->commutative,
                                    a->in_place);
}

START_TEST(reduce_scatter)
{
    uint64_t seed = 99;
    for (int n = 1; n <= 200; ++n) {
        int *rc = malloc(sizeof(int) * (size_t) n);
        int64_t total = 0;
        for (int i = 0; i < n; ++i) {
            rc[i] = (int) (unit_rand(&seed) % 3);
            total += rc[i];
        }
        for (int mode = 0; mode < 4; ++mode) {
            rsargs_t a = {.n = n, .rcounts = rc, .commutative = mode & 1, .in_place = mode & 2};
            sim_t *s = sim_new(n, true);
            UNIT_PLAN(s, plan_reduce_scatter, &a, NULL, NULL);
            unit_inputs(s, a.in_place ? HCP_RBUF : HCP_SBUF, total * 8);
            UNIT_RUN(s, NULL, "reduce_scatter n=%d", n);
            int64_t off = 0;
            for (int r = 0; r < n; ++r) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, rc[r] * 8LL,
                            sim_shifted(sim_range_of(0, n - 1), off * 8), !a.commutative,
                            "reduce_scatter n=%d mode=%d rank %d", n, mode, r);
                off += rc[r];
            }
            sim_free(s);
        }
        free(rc);
    }
}
END_TEST

/* A planner bug must not go unnoticed: the simulator catches a plan that
 * reads what never arrived, a size mismatch and a deadlock. */
static int plan_broken(hcp_plan_t *p, int rank, void *arg)
{
    int kind = *(int *) arg;
    hcp_reset(p, 4, 4);
    if (0 == kind) { /* deadlock: both receive first */
        hcp_recv(p, 1 - rank, HCP_RBUF, 0, 1);
        hcp_end_round(p);
        hcp_send(p, 1 - rank, HCP_RBUF, 0, 1);
    } else if (1 == kind) { /* sizes disagree */
        if (0 == rank) {
            hcp_send(p, 1, HCP_RBUF, 0, 2);
        } else {
            hcp_recv(p, 0, HCP_RBUF, 0, 1);
        }
    } else { /* a reduction with nothing received */
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, 1);
        hcp_reduce(p, HCP_RBUF, 0, HCP_TMP0, 0, 1);
    }
    return hcp_finish(p);
}

START_TEST(simulator_catches_bugs)
{
    for (int kind = 0; kind < 3; ++kind) {
        sim_t *s = sim_new(2, true);
        UNIT_PLAN(s, plan_broken, &kind, NULL, NULL);
        unit_inputs(s, HCP_RBUF, 4);
        ck_assert_int_eq(sim_run(s, NULL), -1);
        ck_assert_ptr_nonnull(sim_error(s));
        sim_free(s);
    }
    /* and a wrong result is reported */
    sim_t *s = sim_new(3, true);
    targs_t a = {.n = 3, .count = 1, .esize = 8, .commutative = true};
    UNIT_PLAN(s, plan_allreduce, &a, count_units, count_units);
    unit_inputs(s, HCP_SBUF, 8);
    UNIT_RUN(s, NULL, "n=%d", 3);
    ck_assert_ptr_nonnull(sim_expect(s, 0, HCP_RBUF, 0, 8, sim_range_of(0, 1), false));
    ck_assert_ptr_null(sim_expect(s, 0, HCP_RBUF, 0, 8, sim_range_of(0, 2), false));
    sim_free(s);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan_basic");
    TCase *tc = tcase_create("planners");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, bcast_every_n);
    tcase_add_test(tc, bcast_every_root);
    tcase_add_test(tc, bcast_large);
    tcase_add_test(tc, reduce_every_n);
    tcase_add_test(tc, reduce_every_root);
    tcase_add_test(tc, reduce_large);
    tcase_add_test(tc, allreduce_every_n);
    tcase_add_test(tc, allreduce_large);
    tcase_add_test(tc, barrier_every_n);
    tcase_add_test(tc, gather_scatter_layouts);
    tcase_add_test(tc, alltoall_layouts);
    tcase_add_test(tc, scan_exscan);
    tcase_add_test(tc, reduce_scatter);
    tcase_add_test(tc, simulator_catches_bugs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return unit_run(suite());
}
