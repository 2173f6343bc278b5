/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered offload (algorithm "offload" of allreduce and reduce, run
 * with coll_hiercoll_{allreduce,reduce}_algorithm=offload): what t_colls
 * does not stress.
 *   - several communicators with calls in flight at once (three dups and a
 *     reversed split), one freed while its nonblocking call still runs;
 *   - long runs of back-to-back reduces, where leaves finish at once and
 *     run ahead of their parents (early packets, credits), at every root;
 *   - multi-packet vectors (up to the 16 KiB default), MPI_IN_PLACE;
 *   - floats: the same bits on every repetition and every rank (the ALU
 *     combines in a fixed slot order), and exact sums of integer values;
 *   - persistent requests started many times, interleaved with blocking
 *     calls on the same communicator;
 *   - more persistent requests alive at once than the offload's 64 port
 *     slots (the rest take the next algorithm), started all at once in a
 *     different order on every rank, then some freed in a different order
 *     on every rank and new ones initialized into the freed slots.
 * Every integer result is compared with a serial reference.
 */
#include <stdbool.h>

#include "t_common.h"

static void ref_sum(int n, long count, int salt, long long *want)
{
    for (long i = 0; i < count; ++i) {
        want[i] = 0;
        for (int r = 0; r < n; ++r) {
            want[i] += tc_val(r, i, salt);
        }
    }
}

static void fill(long long *v, int rank, long count, int salt)
{
    for (long i = 0; i < count; ++i) {
        v[i] = tc_val(rank, i, salt);
    }
}

static void expect_ll(const long long *got, const long long *want, long count, const char *what)
{
    int ok = 1;
    long bad = 0;
    for (long i = 0; i < count && ok; ++i) {
        if (got[i] != want[i]) {
            ok = 0;
            bad = i;
        }
    }
    tc_expect(ok, "%s: element %ld is %lld, want %lld", what, bad, ok ? 0 : got[bad],
              ok ? 0 : want[bad]);
}

/* Several communicators at once; one freed while its call runs. */
static void many_comms(void)
{
    enum { NC = 4, COUNT = 37 };
    MPI_Comm comms[NC];
    MPI_Request rq[NC];
    long long in[NC][COUNT], out[NC][COUNT], want[COUNT];
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int c = 0; c < NC - 1; ++c) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);
    }
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[NC - 1]);
    for (int round = 0; round < 20; ++round) {
        for (int c = 0; c < NC; ++c) {
            int r;
            MPI_Comm_rank(comms[c], &r);
            fill(in[c], r, COUNT, round * NC + c);
            MPI_Iallreduce(in[c], out[c], COUNT, MPI_LONG_LONG, MPI_SUM, comms[c], &rq[c]);
        }
        MPI_Waitall(NC, rq, MPI_STATUSES_IGNORE);
        for (int c = 0; c < NC; ++c) {
            tc_at("many_comms round %d comm %d", round, c);
            ref_sum(wsize, COUNT, round * NC + c, want);
            expect_ll(out[c], want, COUNT, "iallreduce");
        }
    }
    /* free comms[0] while its call runs; the others go on */
    int r0;
    MPI_Comm_rank(comms[0], &r0);
    fill(in[0], r0, COUNT, 999);
    MPI_Iallreduce(in[0], out[0], COUNT, MPI_LONG_LONG, MPI_SUM, comms[0], &rq[0]);
    MPI_Comm_free(&comms[0]);
    for (int c = 1; c < NC; ++c) {
        int r;
        MPI_Comm_rank(comms[c], &r);
        fill(in[c], r, COUNT, 1000 + c);
        MPI_Allreduce(in[c], out[c], COUNT, MPI_LONG_LONG, MPI_SUM, comms[c]);
        tc_at("after free, comm %d", c);
        ref_sum(wsize, COUNT, 1000 + c, want);
        expect_ll(out[c], want, COUNT, "allreduce");
    }
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    tc_at("freed comm");
    ref_sum(wsize, COUNT, 999, want);
    expect_ll(out[0], want, COUNT, "iallreduce on a freed communicator");
    for (int c = 1; c < NC; ++c) {
        MPI_Comm_free(&comms[c]);
    }
}

/* Back-to-back reduces at every root, blocking and nonblocking, counts of
 * one and several packets, in place at the root. */
static void reduce_runs(void)
{
    static const long counts[] = {1, 15, 16, 100, 2048};
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long long *in = malloc(2048 * sizeof(long long)), *out = malloc(2048 * sizeof(long long)),
              *want = malloc(2048 * sizeof(long long));
    for (int ci = 0; ci < 5; ++ci) {
        long count = counts[ci];
        for (int root = 0; root < n; ++root) {
            for (int it = 0; it < 12; ++it) {
                int salt = ci * 1000 + root * 50 + it;
                int inplace = (it % 3 == 2) && rank == root;
                fill(inplace ? out : in, rank, count, salt);
                if (it % 2) {
                    MPI_Request rq;
                    MPI_Ireduce(inplace ? MPI_IN_PLACE : in, out, (int) count, MPI_LONG_LONG,
                                MPI_SUM, root, MPI_COMM_WORLD, &rq);
                    MPI_Wait(&rq, MPI_STATUS_IGNORE);
                } else {
                    MPI_Reduce(inplace ? MPI_IN_PLACE : in, out, (int) count, MPI_LONG_LONG,
                               MPI_SUM, root, MPI_COMM_WORLD);
                }
                if (rank == root) {
                    tc_at("reduce count %ld root %d it %d%s", count, root, it,
                          inplace ? " in place" : "");
                    ref_sum(n, count, salt, want);
                    expect_ll(out, want, count, "reduce");
                }
            }
        }
    }
    free(in);
    free(out);
    free(want);
}

/* Floats: identical bits on every repetition and rank. */
static void float_bits(void)
{
    enum { COUNT = 61 };
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double in[COUNT], out[COUNT], first[COUNT], all[COUNT];
    for (int i = 0; i < COUNT; ++i) {
        in[i] = (rank % 2 ? 1e-9 : 1e9) * (1.0 + 0.1 * i + 0.01 * rank) / 3.0;
    }
    for (int it = 0; it < 50; ++it) {
        MPI_Allreduce(in, out, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (0 == it) {
            memcpy(first, out, sizeof(out));
        }
        tc_at("float_bits it %d", it);
        tc_expect(0 == memcmp(first, out, sizeof(out)), "allreduce bits changed");
    }
    /* every rank has the root's bits (checked through point-to-point) */
    if (0 == rank) {
        for (int r = 1; r < n; ++r) {
            MPI_Send(first, COUNT, MPI_DOUBLE, r, 5, MPI_COMM_WORLD);
        }
    } else {
        MPI_Recv(all, COUNT, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        tc_expect(0 == memcmp(first, all, sizeof(all)), "ranks differ");
    }
}

/* Persistent requests started many times, between blocking calls. */
static void persistent(void)
{
    enum { COUNT = 20 };
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    long long a[COUNT], b[COUNT], x[COUNT], y[COUNT], want[COUNT];
    MPI_Request ra, rr;
    MPIX_Allreduce_init(a, b, COUNT, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ra);
    MPIX_Reduce_init(a, x, COUNT, MPI_LONG_LONG, MPI_SUM, n - 1, MPI_COMM_WORLD, MPI_INFO_NULL,
                     &rr);
    for (int it = 0; it < 100; ++it) {
        fill(a, rank, COUNT, it);
        MPI_Start(&ra);
        MPI_Wait(&ra, MPI_STATUS_IGNORE);
        tc_at("persistent allreduce it %d", it);
        ref_sum(n, COUNT, it, want);
        expect_ll(b, want, COUNT, "allreduce_init");
        MPI_Start(&rr);
        MPI_Wait(&rr, MPI_STATUS_IGNORE);
        if (rank == n - 1) {
            expect_ll(x, want, COUNT, "reduce_init");
        }
        MPI_Allreduce(a, y, COUNT, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        expect_ll(y, want, COUNT, "allreduce between starts");
    }
    MPI_Request_free(&ra);
    MPI_Request_free(&rr);
}

/* 70 persistent requests alive at once (allreduce, and reduce at every
 * root), all started together in a rank-dependent order; after two rounds
 * 20 of them freed, in a rank-dependent order, and re-initialized as
 * allreduces (into the slots just freed). */
static void init_one(int i, bool all, int n, long long *in, long long *out, MPI_Request *rq)
{
    enum { COUNT = 3 };
    if (all) {
        MPIX_Allreduce_init(in, out, COUNT, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                            rq);
    } else {
        MPIX_Reduce_init(in, out, COUNT, MPI_LONG_LONG, MPI_SUM, i / 2 % n, MPI_COMM_WORLD,
                         MPI_INFO_NULL, rq);
    }
}

static void many_persistent(void)
{
    enum { NREQ = 70, NFREE = 20, COUNT = 3 };
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    static long long in[NREQ][COUNT], out[NREQ][COUNT], want[COUNT];
    bool all[NREQ];
    MPI_Request rq[NREQ];
    for (int i = 0; i < NREQ; ++i) {
        all[i] = i % 2;
        init_one(i, all[i], n, in[i], out[i], &rq[i]);
    }
    for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < NREQ; ++i) {
            fill(in[i], rank, COUNT, 7 * i + round);
            memset(out[i], 0xff, sizeof(out[i]));
        }
        for (int j = 0; j < NREQ; ++j) { /* forwards, backwards, from the middle */
            int i = 0 == rank % 3 ? j : 1 == rank % 3 ? NREQ - 1 - j : (j + NREQ / 2) % NREQ;
            MPI_Start(&rq[i]);
        }
        MPI_Waitall(NREQ, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < NREQ; ++i) {
            tc_at("many persistent: round %d request %d", round, i);
            ref_sum(n, COUNT, 7 * i + round, want);
            if (all[i] || i / 2 % n == rank) {
                expect_ll(out[i], want, COUNT, all[i] ? "allreduce_init" : "reduce_init");
            }
        }
        if (1 == round) {
            for (int j = 0; j < NFREE; ++j) {
                int k = rank % 2 ? NFREE - 1 - j : j;
                MPI_Request_free(&rq[3 * k]);
            }
            for (int k = 0; k < NFREE; ++k) {
                all[3 * k] = true;
                init_one(3 * k, true, n, in[3 * k], out[3 * k], &rq[3 * k]);
            }
        }
    }
    for (int i = 0; i < NREQ; ++i) {
        MPI_Request_free(&rq[i]);
    }
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    many_comms();
    reduce_runs();
    float_bits();
    persistent();
    many_persistent();
    return tc_finish("t_offload");
}
