/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Every collective MPI defines on intercommunicators (all but scan and
 * exscan), blocking, nonblocking and persistent (started twice, with new
 * data), on two intercommunicators made by MPI_Intercomm_create from
 * splits of MPI_COMM_WORLD: groups of different sizes (about a third and
 * two thirds), and a group of one process against the rest.  Rooted
 * collectives run with every kind of root: MPI_ROOT at each rank of
 * either group, MPI_PROC_NULL at the others of its group, the root's rank
 * at the remote group.  Results come from the remote group and are
 * compared byte for byte with serial references (gaps of derived
 * datatypes and of displacements must stay untouched); reductions also
 * run a non-commutative user op.  Finally MPI_Intercomm_merge (which uses
 * the intercommunicator's collectives) must give the expected order.
 *
 * Usage: t_inter [--quick]
 */
#include <stdbool.h>

#include "t_common.h"

static int quick;

typedef struct icomm {
    MPI_Comm comm;
    const char *name;
    int g, lr; /* my group (0 or 1), my rank in it */
    int n[2];  /* group sizes */
    int *w[2]; /* world ranks of each group, by group rank */
} icomm_t;

#define NL(ic) ((ic)->n[(ic)->g])
#define NR(ic) ((ic)->n[!(ic)->g])
#define RW(ic, j) ((ic)->w[!(ic)->g][j]) /* world rank of remote rank j */

static void run_mode(int m, int rep, MPI_Request *rq)
{
    if (M_NONBLOCKING == m) {
        MPI_Wait(rq, MPI_STATUS_IGNORE);
    } else if (M_PERSISTENT == m) {
        (void) rep;
        MPI_Start(rq);
        MPI_Wait(rq, MPI_STATUS_IGNORE);
    }
}

/* Call one collective in mode m: blocking form B, nonblocking NB, init I
 * (the persistent request is created at rep 0 only). */
#define COLL(m, rep, rq, B, NB, I)                                                                 \
    do {                                                                                           \
        if (M_BLOCKING == (m)) {                                                                   \
            B;                                                                                     \
        } else if (M_NONBLOCKING == (m)) {                                                         \
            NB;                                                                                    \
        } else if (0 == (rep)) {                                                                   \
            I;                                                                                     \
        }                                                                                          \
        run_mode((m), (rep), &(rq));                                                               \
    } while (0)

#define REPS(m) (M_PERSISTENT == (m) ? 2 : 1)
#define DONE(m, rq)                                                                                \
    do {                                                                                           \
        if (M_PERSISTENT == (m)) {                                                                 \
            MPI_Request_free(&(rq));                                                               \
        }                                                                                          \
    } while (0)

/* The root argument of rank (g, lr) when the root is rank r of group rg. */
static int root_arg(const icomm_t *ic, int rg, int r)
{
    if (ic->g == rg) {
        return ic->lr == r ? MPI_ROOT : MPI_PROC_NULL;
    }
    return r;
}

/* ------------------------------------------------------------------ */
/* Non-commutative op: affine maps x -> a x + b (mod P), composed in order */
/* ------------------------------------------------------------------ */

#define P 65521
static void affine(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void) t;
    int *x = in, *y = inout;
    for (int i = 0; i < *len; ++i) {
        /* y = x then y: a = ax * ay, b = ay * bx + by */
        long a = (long) x[2 * i] * y[2 * i] % P;
        long b = ((long) y[2 * i] * x[2 * i + 1] + y[2 * i + 1]) % P;
        y[2 * i] = (int) a;
        y[2 * i + 1] = (int) b;
    }
}
static MPI_Op OP_AFFINE;
static MPI_Datatype T_AFF; /* two ints */

static void aff_val(int w, int i, int salt, int *out)
{
    out[0] = 1 + (tc_val(w, 2 * i, salt) + 1000) % (P - 1);
    out[1] = (tc_val(w, 2 * i + 1, salt) + 1000) % P;
}

/* ------------------------------------------------------------------ */

static void t_bcast(icomm_t *ic, int m)
{
    const int count = 5; /* of T_VEC: 2 ints in 3 */
    int *b = tc_alloc(tc_span(&T_VEC, count)), *want = tc_alloc(tc_span(&T_VEC, count));
    for (int rg = 0; rg < 2; ++rg) {
        for (int r = 0; r < ic->n[rg]; ++r) {
            int root = root_arg(ic, rg, r), rw = ic->w[rg][r];
            MPI_Request rq = MPI_REQUEST_NULL;
            for (int rep = 0; rep < REPS(m); ++rep) {
                tc_at("%s: bcast %s root %d:%d rep %d", ic->name, mode_name[m], rg, r, rep);
                for (long i = 0; i < tc_span(&T_VEC, count); ++i) {
                    b[i] = want[i] = SENTINEL;
                }
                if (MPI_ROOT == root) {
                    tc_fill(b, &T_VEC, 0, count, rw, 0, rep);
                }
                if (ic->g != rg) {
                    tc_fill(want, &T_VEC, 0, count, rw, 0, rep);
                } else if (MPI_ROOT == root) {
                    tc_fill(want, &T_VEC, 0, count, rw, 0, rep);
                }
                COLL(m, rep, rq, MPI_Bcast(b, count, T_VEC.t, root, ic->comm),
                     MPI_Ibcast(b, count, T_VEC.t, root, ic->comm, &rq),
                     MPIX_Bcast_init(b, count, T_VEC.t, root, ic->comm, MPI_INFO_NULL, &rq));
                tc_expect_ints(b, want, tc_span(&T_VEC, count), "bcast buffer");
            }
            DONE(m, rq);
        }
    }
    free(b), free(want);
}

static void t_barrier(icomm_t *ic, int m)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int rep = 0; rep < REPS(m); ++rep) {
        tc_at("%s: barrier %s rep %d", ic->name, mode_name[m], rep);
        COLL(m, rep, rq, MPI_Barrier(ic->comm), MPI_Ibarrier(ic->comm, &rq),
             MPIX_Barrier_init(ic->comm, MPI_INFO_NULL, &rq));
        tc_expect(1, "barrier returned");
    }
    DONE(m, rq);
}

/* The remote group's reduction of element i (sum, or the affine op). */
static int sum_remote(const icomm_t *ic, long i, int salt)
{
    int s = 0;
    for (int j = 0; j < NR(ic); ++j) {
        s += tc_val(RW(ic, j), i, salt);
    }
    return s;
}

static void aff_remote(const icomm_t *ic, int i, int salt, int *out)
{
    aff_val(RW(ic, 0), i, salt, out);
    for (int j = 1; j < NR(ic); ++j) {
        int x[2];
        aff_val(RW(ic, j), i, salt, x);
        int len = 1;
        int acc[2] = {out[0], out[1]};
        /* acc op x: x = acc then x */
        affine(acc, x, &len, NULL);
        out[0] = x[0];
        out[1] = x[1];
    }
}

/* allreduce (root_kind < 0) or reduce to every kind of root */
static void t_reduce(icomm_t *ic, int m, bool all)
{
    const int count = 6;
    int sb[2 * count], rb[2 * count], want[2 * count];
    for (int aff = 0; aff < 2; ++aff) {
        MPI_Datatype t = aff ? T_AFF : MPI_INT;
        MPI_Op op = aff ? OP_AFFINE : MPI_SUM;
        int ints = aff ? 2 : 1;
        for (int rg = 0; rg < (all ? 1 : 2); ++rg) {
            for (int r = 0; r < (all ? 1 : ic->n[rg]); ++r) {
                int root = all ? 0 : root_arg(ic, rg, r);
                MPI_Request rq = MPI_REQUEST_NULL;
                for (int rep = 0; rep < REPS(m); ++rep) {
                    tc_at("%s: %s %s %s root %d:%d rep %d", ic->name, all ? "allreduce" : "reduce",
                          aff ? "affine" : "sum", mode_name[m], rg, r, rep);
                    int w = ic->w[ic->g][ic->lr];
                    for (int i = 0; i < count; ++i) {
                        if (aff) {
                            aff_val(w, i, rep, &sb[2 * i]);
                        } else {
                            sb[i] = tc_val(w, i, rep);
                        }
                    }
                    for (int i = 0; i < 2 * count; ++i) {
                        rb[i] = want[i] = SENTINEL;
                    }
                    bool gets = all || MPI_ROOT == root;
                    for (int i = 0; i < count && gets; ++i) {
                        if (aff) {
                            aff_remote(ic, i, rep, &want[2 * i]);
                        } else {
                            want[i] = sum_remote(ic, i, rep);
                        }
                    }
                    if (all) {
                        COLL(m, rep, rq, MPI_Allreduce(sb, rb, count, t, op, ic->comm),
                             MPI_Iallreduce(sb, rb, count, t, op, ic->comm, &rq),
                             MPIX_Allreduce_init(sb, rb, count, t, op, ic->comm, MPI_INFO_NULL,
                                                 &rq));
                    } else {
                        COLL(m, rep, rq, MPI_Reduce(sb, rb, count, t, op, root, ic->comm),
                             MPI_Ireduce(sb, rb, count, t, op, root, ic->comm, &rq),
                             MPIX_Reduce_init(sb, rb, count, t, op, root, ic->comm, MPI_INFO_NULL,
                                              &rq));
                    }
                    tc_expect_ints(rb, want, (long) count * ints, "result");
                }
                DONE(m, rq);
            }
        }
    }
}

/* reduce_scatter_block (block) and reduce_scatter with irregular counts */
static int rs_count(const icomm_t *ic, int g, int i, int total)
{
    int n = ic->n[g], left = total;
    for (int k = 0; k < n; ++k) {
        int c = k == n - 1 ? left : (k * 7 + 3 + g) % (2 * total / n + 1);
        c = c > left ? left : c;
        if (k == i) {
            return c;
        }
        left -= c;
    }
    return 0;
}

static void t_reduce_scatter(icomm_t *ic, int m, bool block)
{
    int total = 2 * ic->n[0] * ic->n[1]; /* the same for both groups */
    int *sb = tc_alloc(total), *rb = tc_alloc(total + 1), *want = tc_alloc(total + 1);
    int *rcounts = tc_alloc(NL(ic));
    int d = 0;
    for (int i = 0; i < NL(ic); ++i) {
        rcounts[i] = block ? total / NL(ic) : rs_count(ic, ic->g, i, total);
        d += i < ic->lr ? rcounts[i] : 0;
    }
    int mine = rcounts[ic->lr];
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int rep = 0; rep < REPS(m); ++rep) {
        tc_at("%s: reduce_scatter%s %s rep %d", ic->name, block ? "_block" : "", mode_name[m], rep);
        for (int i = 0; i < total; ++i) {
            sb[i] = tc_val(ic->w[ic->g][ic->lr], i, rep);
        }
        for (int i = 0; i <= total; ++i) {
            rb[i] = want[i] = SENTINEL;
        }
        for (int i = 0; i < mine; ++i) {
            want[i] = sum_remote(ic, d + i, rep);
        }
        if (block) {
            COLL(m, rep, rq, MPI_Reduce_scatter_block(sb, rb, mine, MPI_INT, MPI_SUM, ic->comm),
                 MPI_Ireduce_scatter_block(sb, rb, mine, MPI_INT, MPI_SUM, ic->comm, &rq),
                 MPIX_Reduce_scatter_block_init(sb, rb, mine, MPI_INT, MPI_SUM, ic->comm,
                                                MPI_INFO_NULL, &rq));
        } else {
            COLL(m, rep, rq, MPI_Reduce_scatter(sb, rb, rcounts, MPI_INT, MPI_SUM, ic->comm),
                 MPI_Ireduce_scatter(sb, rb, rcounts, MPI_INT, MPI_SUM, ic->comm, &rq),
                 MPIX_Reduce_scatter_init(sb, rb, rcounts, MPI_INT, MPI_SUM, ic->comm,
                                          MPI_INFO_NULL, &rq));
        }
        tc_expect_ints(rb, want, total + 1, "block");
    }
    DONE(m, rq);
    free(sb), free(rb), free(want), free(rcounts);
}

/* Irregular per-rank counts (some 0) and gapped, reversed displacements. */
static int vcount(int g, int lr)
{
    return (lr * 5 + 2 + g) % 4;
}
static void vlayout(const icomm_t *ic, int g, int *counts, int *displs, int *span)
{
    int off = 0;
    for (int j = ic->n[g] - 1; j >= 0; --j) {
        counts[j] = vcount(g, j);
        displs[j] = off;
        off += counts[j] + 1;
    }
    *span = off;
}

/* gather(v) and scatter(v) with every kind of root */
static void t_rooted(icomm_t *ic, int m, bool gather, bool v)
{
    const int blk = 3;
    int maxn = ic->n[0] > ic->n[1] ? ic->n[0] : ic->n[1];
    int *counts = tc_alloc(maxn), *displs = tc_alloc(maxn), span = 0;
    int *big = tc_alloc((long) (blk + 4) * maxn + 8), *want = tc_alloc((long) (blk + 4) * maxn + 8);
    int small[8], swant[8];
    for (int rg = 0; rg < 2; ++rg) {
        /* counts over the NON-root group's ranks */
        int og = !rg, on = ic->n[og];
        if (v) {
            vlayout(ic, og, counts, displs, &span);
        } else {
            for (int j = 0; j < on; ++j) {
                counts[j] = blk;
                displs[j] = j * blk;
            }
            span = blk * on;
        }
        for (int r = 0; r < ic->n[rg]; ++r) {
            int root = root_arg(ic, rg, r), rw = ic->w[rg][r];
            MPI_Request rq = MPI_REQUEST_NULL;
            int mycount = ic->g == og ? counts[ic->lr] : 0;
            for (int rep = 0; rep < REPS(m); ++rep) {
                tc_at("%s: %s%s %s root %d:%d rep %d", ic->name, gather ? "gather" : "scatter",
                      v ? "v" : "", mode_name[m], rg, r, rep);
                for (int i = 0; i < span + 1; ++i) {
                    big[i] = want[i] = SENTINEL;
                }
                for (int i = 0; i < 8; ++i) {
                    small[i] = swant[i] = SENTINEL;
                }
                int me = ic->w[ic->g][ic->lr];
                if (gather) {
                    for (int i = 0; i < mycount; ++i) {
                        small[i] = tc_val(me, i, rep);
                    }
                    if (MPI_ROOT == root) {
                        for (int j = 0; j < on; ++j) {
                            for (int i = 0; i < counts[j]; ++i) {
                                want[displs[j] + i] = tc_val(ic->w[og][j], i, rep);
                            }
                        }
                    }
                } else {
                    if (MPI_ROOT == root) {
                        for (int i = 0; i < span; ++i) {
                            big[i] = want[i] = tc_val(rw, i, rep);
                        }
                    }
                    for (int i = 0; i < mycount && ic->g == og; ++i) {
                        swant[i] = tc_val(rw, displs[ic->lr] + i, rep);
                    }
                }
                if (gather && !v) {
                    COLL(m, rep, rq,
                         MPI_Gather(small, mycount, MPI_INT, big, blk, MPI_INT, root, ic->comm),
                         MPI_Igather(small, mycount, MPI_INT, big, blk, MPI_INT, root, ic->comm,
                                     &rq),
                         MPIX_Gather_init(small, mycount, MPI_INT, big, blk, MPI_INT, root,
                                          ic->comm, MPI_INFO_NULL, &rq));
                } else if (gather) {
                    COLL(m, rep, rq,
                         MPI_Gatherv(small, mycount, MPI_INT, big, counts, displs, MPI_INT, root,
                                     ic->comm),
                         MPI_Igatherv(small, mycount, MPI_INT, big, counts, displs, MPI_INT, root,
                                      ic->comm, &rq),
                         MPIX_Gatherv_init(small, mycount, MPI_INT, big, counts, displs, MPI_INT,
                                           root, ic->comm, MPI_INFO_NULL, &rq));
                } else if (!v) {
                    COLL(m, rep, rq,
                         MPI_Scatter(big, blk, MPI_INT, small, mycount, MPI_INT, root, ic->comm),
                         MPI_Iscatter(big, blk, MPI_INT, small, mycount, MPI_INT, root, ic->comm,
                                      &rq),
                         MPIX_Scatter_init(big, blk, MPI_INT, small, mycount, MPI_INT, root,
                                           ic->comm, MPI_INFO_NULL, &rq));
                } else {
                    COLL(m, rep, rq,
                         MPI_Scatterv(big, counts, displs, MPI_INT, small, mycount, MPI_INT, root,
                                      ic->comm),
                         MPI_Iscatterv(big, counts, displs, MPI_INT, small, mycount, MPI_INT, root,
                                       ic->comm, &rq),
                         MPIX_Scatterv_init(big, counts, displs, MPI_INT, small, mycount, MPI_INT,
                                            root, ic->comm, MPI_INFO_NULL, &rq));
                }
                tc_expect_ints(big, want, span + 1, "root's buffer");
                if (!gather) {
                    tc_expect_ints(small, swant, 8, "received block");
                }
            }
            DONE(m, rq);
        }
    }
    free(counts), free(displs), free(big), free(want);
}

/* allgather (regular, a different count per group) and allgatherv */
static void t_allgather(icomm_t *ic, int m, bool v)
{
    int nr = NR(ic), og = !ic->g;
    int *counts = tc_alloc(nr), *displs = tc_alloc(nr), span;
    int scount = v ? vcount(ic->g, ic->lr) : 2 + ic->g;
    if (v) {
        vlayout(ic, og, counts, displs, &span);
    } else {
        for (int j = 0; j < nr; ++j) {
            counts[j] = 2 + og;
            displs[j] = j * (2 + og);
        }
        span = nr * (2 + og);
    }
    int sb[8], *rb = tc_alloc(span + 1), *want = tc_alloc(span + 1);
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int rep = 0; rep < REPS(m); ++rep) {
        tc_at("%s: allgather%s %s rep %d", ic->name, v ? "v" : "", mode_name[m], rep);
        for (int i = 0; i < scount; ++i) {
            sb[i] = tc_val(ic->w[ic->g][ic->lr], i, rep);
        }
        for (int i = 0; i <= span; ++i) {
            rb[i] = want[i] = SENTINEL;
        }
        for (int j = 0; j < nr; ++j) {
            for (int i = 0; i < counts[j]; ++i) {
                want[displs[j] + i] = tc_val(RW(ic, j), i, rep);
            }
        }
        if (v) {
            COLL(m, rep, rq,
                 MPI_Allgatherv(sb, scount, MPI_INT, rb, counts, displs, MPI_INT, ic->comm),
                 MPI_Iallgatherv(sb, scount, MPI_INT, rb, counts, displs, MPI_INT, ic->comm, &rq),
                 MPIX_Allgatherv_init(sb, scount, MPI_INT, rb, counts, displs, MPI_INT, ic->comm,
                                      MPI_INFO_NULL, &rq));
        } else {
            COLL(m, rep, rq, MPI_Allgather(sb, scount, MPI_INT, rb, 2 + og, MPI_INT, ic->comm),
                 MPI_Iallgather(sb, scount, MPI_INT, rb, 2 + og, MPI_INT, ic->comm, &rq),
                 MPIX_Allgather_init(sb, scount, MPI_INT, rb, 2 + og, MPI_INT, ic->comm,
                                     MPI_INFO_NULL, &rq));
        }
        tc_expect_ints(rb, want, span + 1, "received blocks");
    }
    DONE(m, rq);
    free(counts), free(displs), free(rb), free(want);
}

/* alltoall (a count per group), alltoallv (irregular), alltoallw (the
 * same counts with byte displacements) */
static int a2a_count(int g, int lr, int j)
{
    return (lr + 2 * j + g) % 3; /* rank lr of group g to remote rank j */
}

static void t_alltoall(icomm_t *ic, int m, int kind)
{
    int nr = NR(ic), g = ic->g, og = !g;
    int *sc = tc_alloc(nr), *sd = tc_alloc(nr), *rc = tc_alloc(nr), *rd = tc_alloc(nr);
    MPI_Datatype *ts = malloc(sizeof(MPI_Datatype) * (size_t) nr);
    int soff = 0, roff = 0;
    for (int j = 0; j < nr; ++j) {
        sc[j] = 0 == kind ? 2 + g : a2a_count(g, ic->lr, j);
        rc[j] = 0 == kind ? 2 + og : a2a_count(og, j, ic->lr);
        sd[j] = soff;
        rd[j] = roff;
        soff += sc[j] + (0 == kind ? 0 : 1);
        roff += rc[j] + (0 == kind ? 0 : 2);
        ts[j] = MPI_INT;
    }
    int *sb = tc_alloc(soff + 1), *rb = tc_alloc(roff + 1), *want = tc_alloc(roff + 1);
    int *sdb = tc_alloc(nr), *rdb = tc_alloc(nr);
    for (int j = 0; j < nr; ++j) {
        sdb[j] = sd[j] * (int) sizeof(int);
        rdb[j] = rd[j] * (int) sizeof(int);
    }
    static const char *names[] = {"alltoall", "alltoallv", "alltoallw"};
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int rep = 0; rep < REPS(m); ++rep) {
        tc_at("%s: %s %s rep %d", ic->name, names[kind], mode_name[m], rep);
        int me = ic->w[g][ic->lr];
        for (int i = 0; i <= soff; ++i) {
            sb[i] = tc_val(me, i, rep);
        }
        for (int i = 0; i <= roff; ++i) {
            rb[i] = want[i] = SENTINEL;
        }
        for (int j = 0; j < nr; ++j) {
            /* remote j's block for me starts at its send displacement for me */
            int off = 0;
            for (int k = 0; k < ic->lr; ++k) {
                off += 0 == kind ? 2 + og : a2a_count(og, j, k) + 1;
            }
            for (int i = 0; i < rc[j]; ++i) {
                want[rd[j] + i] = tc_val(RW(ic, j), off + i, rep);
            }
        }
        if (0 == kind) {
            COLL(m, rep, rq, MPI_Alltoall(sb, 2 + g, MPI_INT, rb, 2 + og, MPI_INT, ic->comm),
                 MPI_Ialltoall(sb, 2 + g, MPI_INT, rb, 2 + og, MPI_INT, ic->comm, &rq),
                 MPIX_Alltoall_init(sb, 2 + g, MPI_INT, rb, 2 + og, MPI_INT, ic->comm,
                                    MPI_INFO_NULL, &rq));
        } else if (1 == kind) {
            COLL(m, rep, rq, MPI_Alltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic->comm),
                 MPI_Ialltoallv(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic->comm, &rq),
                 MPIX_Alltoallv_init(sb, sc, sd, MPI_INT, rb, rc, rd, MPI_INT, ic->comm,
                                     MPI_INFO_NULL, &rq));
        } else {
            COLL(m, rep, rq, MPI_Alltoallw(sb, sc, sdb, ts, rb, rc, rdb, ts, ic->comm),
                 MPI_Ialltoallw(sb, sc, sdb, ts, rb, rc, rdb, ts, ic->comm, &rq),
                 MPIX_Alltoallw_init(sb, sc, sdb, ts, rb, rc, rdb, ts, ic->comm, MPI_INFO_NULL,
                                     &rq));
        }
        tc_expect_ints(rb, want, roff + 1, "received blocks");
    }
    DONE(m, rq);
    free(sc), free(sd), free(rc), free(rd), free(ts), free(sb), free(rb), free(want);
    free(sdb), free(rdb);
}

/* ------------------------------------------------------------------ */

static void make(icomm_t *ic, const char *name, int first_size)
{
    int wr, wn;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    ic->name = name;
    ic->n[0] = first_size;
    ic->n[1] = wn - first_size;
    ic->g = wr >= first_size;
    ic->lr = ic->g ? wr - first_size : wr;
    for (int g = 0; g < 2; ++g) {
        ic->w[g] = tc_alloc(ic->n[g]);
        for (int i = 0; i < ic->n[g]; ++i) {
            ic->w[g][i] = (g ? first_size : 0) + i;
        }
    }
    MPI_Comm local;
    MPI_Comm_split(MPI_COMM_WORLD, ic->g, wr, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, ic->g ? 0 : first_size, 77, &ic->comm);
    MPI_Comm_free(&local);
    MPI_Comm_set_name(ic->comm, name); /* for hiercoll's statistics */
    int ln, rn, flag;
    MPI_Comm_test_inter(ic->comm, &flag);
    MPI_Comm_size(ic->comm, &ln);
    MPI_Comm_remote_size(ic->comm, &rn);
    tc_at("%s: creation", name);
    tc_expect(flag && ln == NL(ic) && rn == NR(ic), "intercommunicator of %d+%d", ln, rn);
}

static void merge_check(icomm_t *ic)
{
    /* the high group goes second */
    MPI_Comm merged;
    tc_at("%s: merge", ic->name);
    MPI_Intercomm_merge(ic->comm, ic->g, &merged);
    int r, n, wr, sum = 0, one;
    MPI_Comm_rank(merged, &r);
    MPI_Comm_size(merged, &n);
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    tc_expect(r == wr && n == ic->n[0] + ic->n[1], "merged rank %d of %d, want %d", r, n, wr);
    one = r;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    tc_expect(sum == n * (n - 1) / 2, "allreduce on the merged communicator: %d", sum);
    MPI_Comm_free(&merged);
}

static void run_all(icomm_t *ic)
{
    for (int m = 0; m < M_COUNT; ++m) {
        t_barrier(ic, m);
        t_bcast(ic, m);
        t_reduce(ic, m, true);
        t_reduce(ic, m, false);
        t_reduce_scatter(ic, m, true);
        t_reduce_scatter(ic, m, false);
        for (int g = 0; g < 2; ++g) {
            t_rooted(ic, m, g, false);
            t_rooted(ic, m, g, true);
            t_allgather(ic, m, g);
        }
        for (int k = 0; k < 3; ++k) {
            t_alltoall(ic, m, k);
        }
    }
    merge_check(ic);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    quick = argc > 1 && 0 == strcmp(argv[1], "--quick");
    tc_types_init();
    MPI_Type_contiguous(2, MPI_INT, &T_AFF);
    MPI_Type_commit(&T_AFF);
    MPI_Op_create(affine, 0, &OP_AFFINE);
    int wn;
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    if (wn < 2) {
        printf("t_inter: needs 2 processes or more\n");
        MPI_Finalize();
        return 1;
    }
    icomm_t a, b;
    /* groups of different sizes (a third and the rest), then one process
     * against the rest */
    make(&a, "inter third", wn / 3 > 0 ? wn / 3 : 1);
    run_all(&a);
    if (!quick) {
        make(&b, "inter one", 1);
        run_all(&b);
        MPI_Comm_free(&b.comm);
        free(b.w[0]), free(b.w[1]);
    }
    MPI_Comm_free(&a.comm);
    free(a.w[0]), free(a.w[1]);
    MPI_Op_free(&OP_AFFINE);
    MPI_Type_free(&T_AFF);
    tc_types_free();
    return tc_finish("t_inter");
}
