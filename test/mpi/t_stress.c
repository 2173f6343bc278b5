/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Stress of the shared-memory node level under real parallelism: mixed
 * collectives in a loop on one communicator, drawn from a seed (every
 * rank draws the same sequence), each checked against a serial reference:
 *
 *   bcast     a rotating root; lengths in the flag line, through the
 *             cells in chunks, and past coll_hiercoll_shm_cma_min by
 *             single copy (through the levels: each rank reads its
 *             leader's buffer);
 *   allreduce a 2x2 matrix product (non-commutative, exact) over many
 *             cells' chunks and by single copy, and int64 sums in the
 *             line; in place or not;
 *   reduce    both, at a rotating root;
 *   barrier;
 *   inflight  an ibcast, an iallreduce and an ireduce in flight at once;
 *
 * Every payload encodes (iteration, rank, index), so a value read from a
 * slot an earlier operation left shows.  Before each operation some ranks
 * (and often a group's first rank, a leader) sleep a few microseconds, so
 * that fast ranks lap slow ones by as many slots as they may; right after
 * each return a rank overwrites what others might still be reading (a
 * bcast's buffer, at the root and at every forwarder; a reduction's input)
 * before it checks its own result.  Run it with few slots
 * (coll_hiercoll_shm_slots 2) and the debug cross-check of slot reuse
 * (coll_hiercoll_shm_debug_reuse 1).
 *
 * Usage: t_stress [--iters N] [--seconds S] [--seed X] [--delay US]
 *   --iters N    iterations (default 200); with --seconds, at most N
 *   --seconds S  stop after S seconds of rank 0's clock (checked every
 *                16 iterations, agreed by an allreduce); 0: no limit
 *   --seed X     the draw (default 1)
 *   --delay US   the longest sleep before an operation (default 200 us)
 * Prints per kind of operation how many ran, then
 * "t_stress: np N: I iterations, C checks, F failed"; exits 1 on a failure.
 */
#include "t_common.h"

#include <stdbool.h>
#include <time.h>
#include <unistd.h>

static int rank, np;
static uint64_t seed = 1;

enum { K_BCAST, K_ALLREDUCE, K_REDUCE, K_BARRIER, K_INFLIGHT, K_N };
static const char *kname[K_N] = {"bcast", "allreduce", "reduce", "barrier", "inflight"};
static long kcount[K_N];

/* splitmix64: the same draw on every rank for the same key */
static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t draw(long it, int op, int what)
{
    return mix64(seed ^ mix64(((uint64_t) it << 20) ^ ((uint64_t) op << 8) ^ (uint64_t) what));
}

/* The sleeps before operation `op` of iteration it: each rank with odd
 * 1/6, and the iteration's slow rank (a group's first rank every other
 * time: even, or a multiple of 4) with odd 1/2. */
static int max_delay = 200;

static void maybe_sleep(long it, int op)
{
    if (max_delay <= 0) {
        return;
    }
    uint64_t slow = draw(it, 63, 1) % (uint64_t) np;
    if (0 == draw(it, 63, 2) % 2) {
        slow &= ~(uint64_t) (draw(it, 63, 3) % 2 ? 3 : 1);
    }
    uint64_t d = draw(it, op, 1000 + rank);
    bool me = ((uint64_t) rank == slow && 0 == d % 2) || 0 == d % 6;
    if (me) {
        struct timespec ts = {0, (long) (1000 * (1 + (d >> 8) % (uint64_t) max_delay))};
        nanosleep(&ts, NULL);
    }
}

static long fails_said;

static void fail(long it, const char *what, long i, long long got, long long want)
{
    tc_failures++;
    if (fails_said++ < 20) {
        printf("FAIL [rank %d] iteration %ld %s: element %ld is %lld, want %lld\n", rank, it, what,
               i, got, want);
    }
}

/* ------------------------------------------------------------------ */

static uint64_t bval(long it, int root, long i)
{
    return ((uint64_t) it << 40) ^ ((uint64_t) root << 32) ^ (uint64_t) i ^ 0x5a5a000000000000ULL;
}

/* A bcast of n uint64 from root; then the bytes checked and overwritten
 * in one pass (a reader still reading mine would see the overwrite). */
static void do_bcast(MPI_Comm comm, long it, long n, int root, uint64_t *b)
{
    if (rank == root) {
        for (long i = 0; i < n; ++i) {
            b[i] = bval(it, root, i);
        }
    } else {
        memset(b, 0xee, sizeof(*b) * (size_t) n);
    }
    MPI_Bcast(b, (int) n, MPI_UINT64_T, root, comm);
    long bad = -1;
    uint64_t got = 0;
    for (long i = 0; i < n; ++i) {
        uint64_t want = bval(it, root, i);
        if (b[i] != want && bad < 0) {
            bad = i;
            got = b[i];
        }
        b[i] = ~want;
    }
    tc_checks++;
    if (bad >= 0) {
        char w[64];
        snprintf(w, sizeof(w), "bcast of %ld from %d", n, root);
        fail(it, w, bad, (long long) got, (long long) bval(it, root, bad));
    }
}

/* int64 sums: rank r's element i of iteration it */
static int64_t sval(long it, int r, long i)
{
    return ((int64_t) (it & 0xffff) << 40) + ((int64_t) r << 24) + i;
}

static int64_t ssum(long it, long i)
{
    return (int64_t) np * (((int64_t) (it & 0xffff) << 40) + i) + ((int64_t) np * (np - 1) / 2 << 24);
}

/* The matrix product's salt: the iteration, so that an earlier one's
 * values differ */
static int msalt(long it, int root)
{
    return (int) (it % 9973) * 3 + root + 1;
}

static void mat_want(long it, int root, long n, int64_t *want)
{
    int64_t t[4];
    int one = 1;
    for (long i = 0; i < n; ++i) {
        mat_of(np - 1, (int) i, msalt(it, root), &want[4 * i]);
        for (int r = np - 2; r >= 0; --r) {
            mat_of(r, (int) i, msalt(it, root), t);
            matmul(t, &want[4 * i], &one, NULL);
        }
    }
}

/* An allreduce (root < 0) or a reduce of n elements: the matrix product
 * (mat) or int64 sums; in place or not. */
static void do_reduction(MPI_Comm comm, MPI_Datatype mt, MPI_Op mop, long it, long n, int root,
                         bool mat, bool inplace, int64_t *x, int64_t *y, int64_t *want)
{
    int w = mat ? 4 : 1;
    bool mine = root < 0 || root == rank;
    int salt = msalt(it, root < 0 ? np : root);
    for (long i = 0; i < n; ++i) {
        if (mat) {
            mat_of(rank, (int) i, salt, &x[4 * i]);
        } else {
            x[i] = sval(it, rank, i);
        }
    }
    if (inplace && mine) {
        memcpy(y, x, sizeof(int64_t) * (size_t) (w * n));
    } else {
        memset(y, 0xee, sizeof(int64_t) * (size_t) (w * n));
    }
    const void *sb = inplace && mine ? MPI_IN_PLACE : x;
    MPI_Datatype dt = mat ? mt : MPI_INT64_T;
    MPI_Op op = mat ? mop : MPI_SUM;
    if (root < 0) {
        MPI_Allreduce(sb, y, (int) n, dt, op, comm);
    } else {
        MPI_Reduce(sb, y, (int) n, dt, op, root, comm);
    }
    /* my input overwritten at once (another rank may still read it) */
    memset(x, 0xdd, sizeof(int64_t) * (size_t) (w * n));
    if (!mine) {
        return;
    }
    tc_checks++;
    char what[96];
    snprintf(what, sizeof(what), "%s of %ld %s%s", root < 0 ? "allreduce" : "reduce", n,
             mat ? "matrices" : "int64", inplace ? " in place" : "");
    if (mat) {
        mat_want(it, root < 0 ? np : root, n, want);
        /* (mat_want's salt: msalt(it, root or np), as the inputs') */
        for (long i = 0; i < 4 * n; ++i) {
            if (y[i] != want[i]) {
                fail(it, what, i, (long long) y[i], (long long) want[i]);
                break;
            }
        }
    } else {
        for (long i = 0; i < n; ++i) {
            if (y[i] != ssum(it, i)) {
                fail(it, what, i, (long long) y[i], (long long) ssum(it, i));
                break;
            }
        }
    }
    memset(y, 0xcc, sizeof(int64_t) * (size_t) (w * n));
}

/* Three nonblocking calls in flight, completed together: an ibcast
 * through the cells, an iallreduce in the line, an ireduce of matrices. */
static void do_inflight(MPI_Comm comm, MPI_Datatype mt, MPI_Op mop, long it, uint64_t *b,
                        int64_t *x, int64_t *y, int64_t *want)
{
    long nb = 1 + (long) (draw(it, 40, 0) % 2000);
    int root = (int) (draw(it, 40, 1) % (uint64_t) np), rroot = (int) (draw(it, 40, 2) % (uint64_t) np);
    long nm = 1 + (long) (draw(it, 40, 3) % 200);
    int64_t s[8], r[8];
    int64_t *mx = x, *my = y;
    MPI_Request rq[3];
    for (long i = 0; i < nb; ++i) {
        b[i] = rank == root ? bval(it, root, i) : 0;
    }
    for (int i = 0; i < 8; ++i) {
        s[i] = sval(it, rank, i);
    }
    for (long i = 0; i < nm; ++i) {
        mat_of(rank, (int) i, msalt(it, rroot), &mx[4 * i]);
    }
    MPI_Ibcast(b, (int) nb, MPI_UINT64_T, root, comm, &rq[0]);
    MPI_Iallreduce(s, r, 8, MPI_INT64_T, MPI_SUM, comm, &rq[1]);
    MPI_Ireduce(mx, my, (int) nm, mt, mop, rroot, comm, &rq[2]);
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    memset(mx, 0xdd, sizeof(int64_t) * 4 * (size_t) nm);
    tc_checks += 2;
    for (long i = 0; i < nb; ++i) {
        if (b[i] != bval(it, root, i)) {
            fail(it, "ibcast", i, (long long) b[i], (long long) bval(it, root, i));
            break;
        }
    }
    for (int i = 0; i < 8; ++i) {
        if (r[i] != ssum(it, i)) {
            fail(it, "iallreduce", i, (long long) r[i], (long long) ssum(it, i));
            break;
        }
    }
    if (rank == rroot) {
        tc_checks++;
        mat_want(it, rroot, nm, want);
        for (long i = 0; i < 4 * nm; ++i) {
            if (my[i] != want[i]) {
                fail(it, "ireduce of matrices", i, (long long) my[i], (long long) want[i]);
                break;
            }
        }
    }
}

/* The lengths: uint64s of a bcast (the line, cells, single copy),
 * elements of a reduction (the line, cells, single copy) */
static long bcast_len(uint64_t d)
{
    switch (d % 4) {
    case 0: return 1 + (long) (d >> 8) % 14;                 /* the line */
    case 1: return 15 + (long) (d >> 8) % 1900;              /* cells, < 16 KiB */
    case 2: return 2048 + (long) (d >> 8) % 6000;            /* 16-64 KiB */
    default: return 16384 + (long) (d >> 8) % 100000;        /* 128 KiB - 0.9 MiB */
    }
}

static long red_len(uint64_t d, bool mat)
{
    if (!mat) {
        return 1 + (long) (d >> 8) % 14; /* the line */
    }
    switch (d % 3) {
    case 0: return 1 + (long) (d >> 8) % 3;     /* the line */
    case 1: return 4 + (long) (d >> 8) % 500;   /* cells, < 16 KiB */
    default: return 512 + (long) (d >> 8) % 3000; /* 16-112 KiB */
    }
}

int main(int argc, char **argv)
{
    long iters = 200;
    double seconds = 0;
    tc_init(&argc, &argv);
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atol(argv[++i]);
        } else if (0 == strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = atof(argv[++i]);
        } else if (0 == strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (0 == strcmp(argv[i], "--delay") && i + 1 < argc) {
            max_delay = atoi(argv[++i]);
        }
    }
    if (seconds > 0 && iters <= 0) {
        iters = 1L << 40;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Datatype mt;
    MPI_Type_contiguous(4, MPI_INT64_T, &mt);
    MPI_Type_commit(&mt);
    MPI_Op mop;
    MPI_Op_create(matmul, 0, &mop);
    const long bmax = 16384 + 100000, rmax = 512 + 3000;
    uint64_t *b = malloc(sizeof(*b) * (size_t) bmax);
    int64_t *x = malloc(sizeof(int64_t) * 4 * (size_t) rmax);
    int64_t *y = malloc(sizeof(int64_t) * 4 * (size_t) rmax);
    int64_t *want = malloc(sizeof(int64_t) * 4 * (size_t) rmax);
    double t0 = MPI_Wtime();
    long it = 0;
    for (; it < iters; ++it) {
        if (seconds > 0 && 0 == it % 16) { /* (rank 0's clock decides, for all) */
            int go = 0 == rank ? MPI_Wtime() - t0 < seconds : 1, all = 0;
            MPI_Allreduce(&go, &all, 1, MPI_INT, MPI_MIN, comm);
            if (!all) {
                break;
            }
        }
        int nops = 4 + (int) (draw(it, 0, 0) % 5);
        for (int op = 1; op <= nops; ++op) {
            uint64_t d = draw(it, op, 0);
            int kind = (int) (d % 16);
            kind = kind < 5 ? K_BCAST : kind < 9 ? K_ALLREDUCE : kind < 12 ? K_REDUCE
                   : kind < 14 ? K_BARRIER : K_INFLIGHT;
            int root = (int) ((uint64_t) (it + op) % (uint64_t) np); /* rotating */
            bool mat = 0 != (draw(it, op, 1) % 3), inplace = 0 == draw(it, op, 2) % 4;
            maybe_sleep(it, op);
            kcount[kind]++;
            switch (kind) {
            case K_BCAST:
                do_bcast(comm, it, bcast_len(draw(it, op, 3)), root, b);
                break;
            case K_ALLREDUCE:
                do_reduction(comm, mt, mop, it, red_len(draw(it, op, 3), mat), -1, mat, inplace,
                             x, y, want);
                break;
            case K_REDUCE:
                do_reduction(comm, mt, mop, it, red_len(draw(it, op, 3), mat), root, mat,
                             inplace, x, y, want);
                break;
            case K_BARRIER:
                MPI_Barrier(comm);
                break;
            default:
                do_inflight(comm, mt, mop, it, b, x, y, want);
                break;
            }
        }
    }
    double t = MPI_Wtime() - t0;
    long c = tc_checks, f = tc_failures, ct = 0, ft = 0;
    MPI_Reduce(&c, &ct, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&f, &ft, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("t_stress: seed %llu, %.1f s:", (unsigned long long) seed, t);
        for (int k = 0; k < K_N; ++k) {
            printf(" %s %ld", kname[k], kcount[k]);
        }
        printf("\nt_stress: np %d: %ld iterations, %ld checks, %ld failed\n", np, it, ct, ft);
    }
    free(b);
    free(x);
    free(y);
    free(want);
    MPI_Op_free(&mop);
    MPI_Type_free(&mt);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0 != ft;
}
