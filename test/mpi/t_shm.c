/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level beyond what t_colls checks:
 *   matrix    a non-commutative user op (2x2 integer matrix product) in
 *             allreduce and reduce at every root, every mode, against the
 *             product in MPI rank order computed serially; lengths across
 *             the inline, cell and pipelined paths;
 *   determ    allreduce of doubles (sums that depend on the order) gives
 *             the same bits on every rank and in every repetition, equal
 *             to the serial fold x0 + (x1 + (... + x[n-1]));
 *   redlines  reduce of doubles and of int16s past one flag line (the lean
 *             reduce in several lines: 113-448 bytes) and around its
 *             ends, at every root, in place or not, a few times in a row
 *             (the non-roots run ahead): the bits of the serial fold;
 *   cycles N  N times: dup, allreduce, bcast, barrier, free; the number of
 *             lines of /proc/self/maps and of our files in the backing
 *             directory must not grow after the first few cycles (with
 *             --cycle-bytes B, each cycle's dup also runs an allreduce,
 *             a reduce and a bcast of B bytes of doubles, checked: long messages'
 *             cells, carved in every process's arena, must come back);
 *   inflight  many nonblocking calls in flight on two communicators, one
 *             freed while its requests run, completed in reverse order;
 *   vinflight igatherv and iscatterv (every root, irregular counts, zeros,
 *             blocks over many cells) in flight among other nonblocking
 *             calls and a blocking one, one rank late: their non-roots
 *             learn the chunk count from the root after later calls were
 *             queued behind them.
 *   holes     gather(v), scatter(v), allgather(v) of datatypes with holes
 *             (MPI_SHORT_INT, a struct of char, double and int, a resized
 *             vector with a negative lower bound) over several cells, so
 *             that chunk edges cut derived and predefined elements: every
 *             byte of the receive buffer, gaps included, equal to the same
 *             call on a twin communicator that runs the layer below (info
 *             hiercoll_<coll>_algorithm=fallback), both from one sentinel;
 *   bigelem   allreduce, reduce and reduce_scatter_block of elements
 *             larger than a cell (MPI_Type_vector(n, 1, 1, MPI_INT), a
 *             commutative user op; n to 8192) against the serial sum;
 *   lbred     allreduce, reduce and reduce_scatter(_block) of a type whose
 *             data starts at its lower bound 7 or -2 (two unsigned shorts:
 *             an affine map, composed: a non-commutative user op), every
 *             byte around the receive buffer against a twin communicator
 *             on the layer below (the op takes MPI buffers: the bound had
 *             been added twice);
 *   reuse N   (--reuse N, alone) N rounds on one communicator, each: three
 *             persistent requests (allreduce, bcast at a rotating root,
 *             barrier) started three times in rank-rotated orders, checked,
 *             freed, then a blocking barrier or allreduce (they alternate);
 *             every third round the odd ranks free theirs only after that
 *             call, so it cannot agree their channels free and the next
 *             round's inits take other algorithms (the run's verbose lines
 *             count the channels taken back: 15 in 8 rounds);
 *   errors    (--errors, alone) under MPI_ERRORS_RETURN, three times each
 *             with other values: a bcast of 1.2 MB from rank 0, an
 *             allreduce of 3000 ints and a reduce of them to rank 0; every
 *             rank either returns an error or has the right bytes (run
 *             with coll_hiercoll_shm_fault on one rank: the error must
 *             reach whoever depends on it); rank 0 prints, per call, the
 *             ranks that returned an error;
 *   clobber   (--clobber-arrays, alone) iallgatherv, igatherv, iscatterv
 *             and ireduce_scatter whose count and displacement arrays the
 *             caller overwrites right after the call returns (as mpi4py
 *             3.1.4's Iallgatherv frees them), 20 times each at every
 *             root: the results right (the level keeps its own copy);
 * Prints "t_shm: np N: C checks, F failed".
 * Usage: t_shm [--cycles N] [--cycle-bytes B] [--backing DIR] [--any-order] [--kill RANK]
 *              [--reuse N] [--errors] [--clobber-arrays]
 *   --any-order: the fold order is not checked (a fallback folded)
 *   --kill RANK: that rank dies by SIGKILL after setting regions up
 *   --stall S: the last rank comes S seconds late to an allreduce (watchdog)
 */
#include "t_common.h"

#include <dirent.h>
#include <stddef.h>
#include <signal.h>
#include <unistd.h>
#include <stdint.h>

static int rank, np;
static int any_order; /* --any-order: another component may have folded */

static void test_matrix(MPI_Comm comm)
{
    MPI_Datatype mat;
    MPI_Op op;
    MPI_Type_contiguous(4, MPI_INT64_T, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &op);
    const int lens[] = {1, 3, 9, 300, 1000};
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); ++li) {
        int n = lens[li];
        int64_t *x = malloc(sizeof(int64_t) * 4 * n), *y = malloc(sizeof(int64_t) * 4 * n);
        int64_t *want = malloc(sizeof(int64_t) * 4 * n), *t = malloc(sizeof(int64_t) * 4 * n);
        for (int m = 0; m < M_COUNT; ++m) {
            for (int root = -1; root < np; ++root) { /* -1: allreduce */
                for (int inplace = 0; inplace < 2; ++inplace) {
                    int salt = m * 100 + root * 10 + inplace + n;
                    /* serial: x0 * (x1 * (... * x[np-1])) */
                    for (int i = 0; i < n; ++i) {
                        mat_of(np - 1, i, salt, &want[4 * i]);
                    }
                    for (int r = np - 2; r >= 0; --r) {
                        for (int i = 0; i < n; ++i) {
                            mat_of(r, i, salt, &t[4 * i]);
                        }
                        int len = n;
                        matmul(t, want, &len, NULL);
                    }
                    for (int i = 0; i < n; ++i) {
                        mat_of(rank, i, salt, &x[4 * i]);
                    }
                    memcpy(y, x, sizeof(int64_t) * 4 * n);
                    int mine = root < 0 || root == rank;
                    const void *sb = inplace && mine ? MPI_IN_PLACE : x;
                    MPI_Request rq;
                    tc_at("matrix %s len %d root %d inplace %d", mode_name[m], n, root, inplace);
                    if (root < 0) {
                        if (M_BLOCKING == m) {
                            MPI_Allreduce(sb, y, n, mat, op, comm);
                        } else if (M_NONBLOCKING == m) {
                            MPI_Iallreduce(sb, y, n, mat, op, comm, &rq);
                            MPI_Wait(&rq, MPI_STATUS_IGNORE);
                        } else {
                            MPIX_Allreduce_init(sb, y, n, mat, op, comm, MPI_INFO_NULL, &rq);
                            MPI_Start(&rq);
                            MPI_Wait(&rq, MPI_STATUS_IGNORE);
                            MPI_Request_free(&rq);
                        }
                    } else {
                        if (M_BLOCKING == m) {
                            MPI_Reduce(sb, y, n, mat, op, root, comm);
                        } else if (M_NONBLOCKING == m) {
                            MPI_Ireduce(sb, y, n, mat, op, root, comm, &rq);
                            MPI_Wait(&rq, MPI_STATUS_IGNORE);
                        } else {
                            MPIX_Reduce_init(sb, y, n, mat, op, root, comm, MPI_INFO_NULL, &rq);
                            MPI_Start(&rq);
                            MPI_Wait(&rq, MPI_STATUS_IGNORE);
                            MPI_Request_free(&rq);
                        }
                    }
                    if (mine) {
                        tc_checks++;
                        if (0 != memcmp(y, want, sizeof(int64_t) * 4 * n)) {
                            tc_failures++;
                            printf("FAIL [rank %d] %s: the product differs from the serial one\n",
                                   rank, tc_where);
                        }
                    }
                }
            }
        }
        free(x), free(y), free(want), free(t);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
}

/* ---------------------------------------------------------------- */
/* Determinism: the same bits everywhere, every time                 */
/* ---------------------------------------------------------------- */

static double val(int r, int i, int rep)
{
    return 1.0 / (1.0 + r * 3.0 + i * 0.37) * (i % 3 ? 1e-9 : 1e9) + rep * 0.0;
}

static void test_determinism(MPI_Comm comm)
{
    const int lens[] = {1, 7, 500, 20000};
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); ++li) {
        int n = lens[li];
        double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
        double *first = malloc(sizeof(double) * n), *all = malloc(sizeof(double) * n * np);
        double *want = malloc(sizeof(double) * n);
        for (int i = 0; i < n; ++i) {
            want[i] = val(np - 1, i, 0);
            for (int r = np - 2; r >= 0; --r) {
                want[i] = val(r, i, 0) + want[i];
            }
            x[i] = val(rank, i, 0);
        }
        for (int rep = 0; rep < 20; ++rep) {
            tc_at("determinism len %d rep %d", n, rep);
            MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, comm);
            if (0 == rep) {
                memcpy(first, y, sizeof(double) * n);
                tc_checks++;
                if (!any_order && 0 != memcmp(y, want, sizeof(double) * n)) {
                    tc_failures++;
                    printf("FAIL [rank %d] %s: not the bits of the rank-order fold\n", rank,
                           tc_where);
                }
            } else {
                tc_checks++;
                if (0 != memcmp(y, first, sizeof(double) * n)) {
                    tc_failures++;
                    printf("FAIL [rank %d] %s: other bits than the first time\n", rank, tc_where);
                }
            }
        }
        MPI_Allgather(first, n, MPI_DOUBLE, all, n, MPI_DOUBLE, comm);
        for (int r = 0; r < np; ++r) {
            tc_checks++;
            if (0 != memcmp(all + (size_t) r * n, first, sizeof(double) * n)) {
                tc_failures++;
                printf("FAIL [rank %d] determinism len %d: rank %d has other bits\n", rank, n, r);
            }
        }
        free(x), free(y), free(first), free(all), free(want);
    }
}

/* y[0, n) is not want's bits (--any-order: not within 1e-12 of them). */
static int not_fold(const double *y, const double *want, int n)
{
    for (int i = 0; i < n; ++i) {
        double d = y[i] - want[i], w = want[i];
        d = d < 0 ? -d : d;
        w = w < 0 ? -w : w;
        if (any_order ? d > 1e-12 * w : 0 != memcmp(&y[i], &want[i], sizeof(double))) {
            return 1;
        }
    }
    return 0;
}

/* Reduces of a few flag lines: doubles (the fold's order shows in the
 * bits) and int16s (28 elements a line: the last line partly filled). */
static void test_red_lines(MPI_Comm comm)
{
    const int lens[] = {14, 15, 28, 29, 42, 55, 56, 57, 200, 224, 225};
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); ++li) {
        int n = lens[li];
        double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
        double *want = malloc(sizeof(double) * n);
        int16_t *a = malloc(sizeof(int16_t) * n), *b = malloc(sizeof(int16_t) * n);
        int16_t *wa = malloc(sizeof(int16_t) * n);
        for (int root = 0; root < np; ++root) {
            for (int inplace = 0; inplace < 2; ++inplace) {
                int mine = root == rank;
                /* (4 calls alike in a row: the fast path takes the last 3) */
                for (int t = 0; t < 8; ++t) {
                    int salt = root * 7 + inplace * 3 + t, dbl = t < 4;
                    for (int i = 0; i < n; ++i) {
                        want[i] = val(np - 1, i + salt, 0);
                        wa[i] = (int16_t) ((np - 1) * 5 + i + salt);
                        for (int r = np - 2; r >= 0; --r) {
                            want[i] = val(r, i + salt, 0) + want[i];
                            wa[i] = (int16_t) (wa[i] + r * 5 + i + salt);
                        }
                        x[i] = y[i] = val(rank, i + salt, 0);
                        a[i] = b[i] = (int16_t) (rank * 5 + i + salt);
                    }
                    tc_at("redlines len %d root %d inplace %d %s %d", n, root, inplace,
                          dbl ? "double" : "int16", t);
                    if (dbl) {
                        MPI_Reduce(inplace && mine ? MPI_IN_PLACE : x, y, n, MPI_DOUBLE, MPI_SUM,
                                   root, comm);
                    } else {
                        MPI_Reduce(inplace && mine ? MPI_IN_PLACE : a, b, n, MPI_INT16_T, MPI_SUM,
                                   root, comm);
                    }
                    if (!mine) {
                        continue;
                    }
                    tc_checks++;
                    if (dbl ? not_fold(y, want, n) : 0 != memcmp(b, wa, sizeof(int16_t) * n)) {
                        tc_failures++;
                        printf("FAIL [rank %d] %s: not the serial fold's values\n", rank, tc_where);
                    }
                }
            }
        }
        free(x), free(y), free(want), free(a), free(b), free(wa);
    }
}

/* Long reduces (single copy where CMA works: at 2 ranks folded by the
 * root alone at every length, from 1 MiB too; slice-parallel on more
 * ranks): every root, in place or not, the bits of the rank-order fold. */
static void test_red_long(MPI_Comm comm)
{
    const int lens[] = {131072, 131075, 300001};
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); ++li) {
        int n = lens[li];
        double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
        double *want = malloc(sizeof(double) * n);
        for (int root = 0; root < np; ++root) {
            for (int inplace = 0; inplace < 2; ++inplace) {
                int mine = root == rank, salt = root * 7 + inplace * 3;
                for (int i = 0; i < n; ++i) {
                    want[i] = val(np - 1, i + salt, 0);
                    for (int r = np - 2; r >= 0; --r) {
                        want[i] = val(r, i + salt, 0) + want[i];
                    }
                    x[i] = y[i] = val(rank, i + salt, 0);
                }
                tc_at("redlong len %d root %d inplace %d", n, root, inplace);
                MPI_Reduce(inplace && mine ? MPI_IN_PLACE : x, y, n, MPI_DOUBLE, MPI_SUM, root,
                           comm);
                if (!mine) {
                    continue;
                }
                tc_checks++;
                if (not_fold(y, want, n)) {
                    tc_failures++;
                    printf("FAIL [rank %d] %s: not the serial fold's values\n", rank, tc_where);
                }
            }
        }
        free(x), free(y), free(want);
    }
}

/* ---------------------------------------------------------------- */
/* Many communicators: maps and files stay flat                       */
/* ---------------------------------------------------------------- */

static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, c;
    if (NULL == f) {
        return -1;
    }
    while (EOF != (c = fgetc(f))) {
        n += '\n' == c;
    }
    fclose(f);
    return n;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    if (NULL == d) {
        return -1;
    }
    for (struct dirent *e; NULL != (e = readdir(d));) {
        n += 0 == strncmp(e->d_name, "hc.", 3);
    }
    closedir(d);
    return n;
}

static int cycle_bytes; /* --cycle-bytes */

/* An allreduce, a reduce and a bcast of cycle_bytes bytes of doubles on
 * d (the reduce's and the bcast's root rotating). */
static void cycle_long(MPI_Comm d, int i)
{
    int cnt = cycle_bytes / (int) sizeof(double), root = i % np;
    double *a = malloc(sizeof(double) * (size_t) (cnt > 0 ? cnt : 1));
    double *b = malloc(sizeof(double) * (size_t) (cnt > 0 ? cnt : 1));
    double *c = malloc(sizeof(double) * (size_t) (cnt > 0 ? cnt : 1));
    for (int j = 0; j < cnt; ++j) {
        a[j] = rank + j % 7;
        c[j] = -1;
    }
    MPI_Allreduce(a, b, cnt, MPI_DOUBLE, MPI_SUM, d);
    MPI_Reduce(a, c, cnt, MPI_DOUBLE, MPI_SUM, (root + 1) % np, d);
    for (int j = 0; j < cnt; ++j) {
        a[j] = rank == root ? j : -1;
    }
    MPI_Bcast(a, cnt, MPI_DOUBLE, root, d);
    int bad = 0;
    for (int j = 0; j < cnt; ++j) {
        double sum = (double) np * (np - 1) / 2 + (double) np * (j % 7);
        bad += b[j] != sum || a[j] != j || (rank == (root + 1) % np && c[j] != sum);
    }
    tc_checks++;
    if (bad) {
        tc_failures++;
        printf("FAIL [rank %d] cycle %d: %d elements of %d bytes wrong\n", rank, i, bad,
               cycle_bytes);
    }
    free(a);
    free(b);
    free(c);
}

static void test_cycles(MPI_Comm comm, int cycles, const char *backing)
{
    int maps0 = 0, files0 = 0, maps = 0, files = 0;
    for (int i = 0; i < cycles; ++i) {
        MPI_Comm d;
        MPI_Comm_dup(comm, &d);
        int v = rank + i, s = 0;
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, d);
        if (cycle_bytes > 0) {
            cycle_long(d, i);
        }
        MPI_Bcast(&s, 1, MPI_INT, i % np, d);
        MPI_Barrier(d);
        tc_checks++;
        if (s != np * (np - 1) / 2 + np * i) {
            tc_failures++;
            printf("FAIL [rank %d] cycle %d: sum %d\n", rank, i, s);
        }
        MPI_Comm_free(&d);
        if (10 == i) {
            maps0 = count_lines("/proc/self/maps");
            files0 = count_files(backing);
        }
    }
    maps = count_lines("/proc/self/maps");
    files = count_files(backing);
    tc_checks++;
    if (cycles > 10 && (maps > maps0 + 4 || files > files0)) {
        tc_failures++;
        printf("FAIL [rank %d] %d cycles: /proc/self/maps %d -> %d lines, %s %d -> %d files\n",
               rank, cycles, maps0, maps, backing, files0, files);
    }
    if (0 == rank) {
        printf("t_shm: %d cycles: /proc/self/maps %d -> %d lines, hc.* files in %s %d -> %d\n",
               cycles, maps0, maps, backing, files0, files);
    }
}

/* ---------------------------------------------------------------- */
/* Many in flight, one communicator freed while they run              */
/* ---------------------------------------------------------------- */

static void test_inflight(MPI_Comm comm)
{
    enum { N = 50 };
    MPI_Comm a, b;
    MPI_Comm_dup(comm, &a);
    MPI_Comm_dup(comm, &b);
    MPI_Request rq[2 * N];
    int in[2 * N], out[2 * N];
    for (int i = 0; i < N; ++i) {
        in[i] = rank * 1000 + i;
        in[N + i] = rank * 7 + i;
        MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, a, &rq[i]);
        out[N + i] = i % np == rank ? in[N + i] : -1;
        MPI_Ibcast(&out[N + i], 1, MPI_INT, i % np, b, &rq[N + i]);
    }
    MPI_Comm_free(&a);
    for (int i = 2 * N - 1; i >= 0; --i) {
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < N; ++i) {
        int sum = 1000 * np * (np - 1) / 2 + np * i;
        int bc = (i % np) * 7 + i;
        tc_at("inflight %d", i);
        tc_expect_ints(&out[i], &sum, 1, "iallreduce");
        tc_expect_ints(&out[N + i], &bc, 1, "ibcast");
    }
    MPI_Comm_free(&b);
}

/* ---------------------------------------------------------------- */
/* gatherv and scatterv in flight among other calls                   */
/* ---------------------------------------------------------------- */

static int vcount(int r, int i)
{
    static const int base[] = {0, 1, 37, 3000, 5};
    return (r * 2 + i) % 3 * base[i % 5];
}

static void test_vinflight(MPI_Comm comm)
{
    enum { N = 30 };
    MPI_Comm a;
    MPI_Comm_dup(comm, &a);
    MPI_Request rq[3 * N];
    int *cnts[N], *dsp[N], *in[N], *out[N], sum[N], one[N], total[N];
    int ab_in = rank + 1, ab_out = 0;
    if (rank == np - 1) {
        usleep(50000); /* the others queue calls behind their first ones */
    }
    for (int i = 0; i < N; ++i) {
        int root = i / 2 % np, v = i % 2; /* gatherv, scatterv */
        cnts[i] = tc_alloc(np);
        dsp[i] = tc_alloc(np);
        total[i] = 0;
        for (int r = 0; r < np; ++r) {
            cnts[i][r] = vcount(r, i);
            dsp[i][r] = total[i] + (r + i) % 2; /* gaps */
            total[i] = dsp[i][r] + cnts[i][r];
        }
        int mine = cnts[i][rank], big = total[i] > 0 ? total[i] : 1;
        in[i] = tc_alloc(v && rank == root ? big : (mine > 0 ? mine : 1));
        out[i] = tc_alloc(!v && rank == root ? big : (mine > 0 ? mine : 1));
        if (v) { /* scatterv: the root's blocks */
            for (int r = 0; rank == root && r < np; ++r) {
                for (int k = 0; k < cnts[i][r]; ++k) {
                    in[i][dsp[i][r] + k] = tc_val(r, k, i);
                }
            }
            for (int k = 0; k < mine; ++k) {
                out[i][k] = SENTINEL;
            }
            MPI_Iscatterv(in[i], cnts[i], dsp[i], MPI_INT, out[i], mine, MPI_INT, root, a,
                          &rq[3 * i]);
        } else {
            for (int k = 0; k < mine; ++k) {
                in[i][k] = tc_val(rank, k, i);
            }
            for (int k = 0; rank == root && k < total[i]; ++k) {
                out[i][k] = SENTINEL;
            }
            MPI_Igatherv(in[i], mine, MPI_INT, out[i], cnts[i], dsp[i], MPI_INT, root, a,
                         &rq[3 * i]);
        }
        one[i] = rank * 11 + i;
        MPI_Iallreduce(MPI_IN_PLACE, &one[i], 1, MPI_INT, MPI_SUM, a, &rq[3 * i + 1]);
        sum[i] = i % np == rank ? 5 * i : SENTINEL;
        MPI_Ibcast(&sum[i], 1, MPI_INT, i % np, a, &rq[3 * i + 2]);
        if (N / 2 == i) { /* a blocking call behind all of them */
            MPI_Allreduce(&ab_in, &ab_out, 1, MPI_INT, MPI_SUM, a);
        }
    }
    for (int i = 3 * N - 1; i >= 0; --i) {
        MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    }
    int ab_want = np * (np + 1) / 2;
    tc_at("vinflight allreduce");
    tc_expect_ints(&ab_out, &ab_want, 1, "allreduce");
    for (int i = 0; i < N; ++i) {
        int root = i / 2 % np, v = i % 2, mine = cnts[i][rank];
        int *want = tc_alloc(total[i] > mine ? total[i] : (mine > 0 ? mine : 1));
        tc_at("vinflight %s %d root %d", v ? "iscatterv" : "igatherv", i, root);
        if (v) {
            for (int k = 0; k < mine; ++k) {
                want[k] = tc_val(rank, k, i);
            }
            tc_expect_ints(out[i], want, mine, "recvbuf");
        } else if (rank == root) {
            for (int k = 0; k < total[i]; ++k) {
                want[k] = SENTINEL;
            }
            for (int r = 0; r < np; ++r) {
                for (int k = 0; k < cnts[i][r]; ++k) {
                    want[dsp[i][r] + k] = tc_val(r, k, i);
                }
            }
            tc_expect_ints(out[i], want, total[i], "recvbuf");
        }
        int s1 = 11 * np * (np - 1) / 2 + np * i, b = 5 * i;
        tc_expect_ints(&one[i], &s1, 1, "iallreduce");
        tc_expect_ints(&sum[i], &b, 1, "ibcast");
        free(want);
        free(cnts[i]);
        free(dsp[i]);
        free(in[i]);
        free(out[i]);
    }
    MPI_Comm_free(&a);
}

static void test_reuse(MPI_Comm world, int rounds)
{
    enum { NR = 3, C = 5 };
    MPI_Comm comm;
    MPI_Comm_dup(world, &comm);
    MPI_Barrier(comm); /* sets the level up (an init only uses a region that exists) */
    for (int round = 0; round < rounds; ++round) {
        int a[C], b[C], bc[C + 2], one = 1, all = 0, root = round % np;
        MPI_Request rq[NR];
        MPI_Allreduce_init(a, b, C, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq[0]);
        MPI_Bcast_init(bc, C + 2, MPI_INT, root, comm, MPI_INFO_NULL, &rq[1]);
        MPI_Barrier_init(comm, MPI_INFO_NULL, &rq[2]);
        for (int t = 0; t < 3; ++t) {
            for (int i = 0; i < C; ++i) {
                a[i] = rank * 100 + i + round + t;
                b[i] = -1;
            }
            for (int i = 0; i < C + 2; ++i) {
                bc[i] = rank == root ? round * 1000 + t * 10 + i : -1;
            }
            for (int j = 0; j < NR; ++j) {
                MPI_Start(&rq[(j + rank + t) % NR]);
            }
            MPI_Waitall(NR, rq, MPI_STATUSES_IGNORE);
            tc_at("reuse round %d start %d", round, t);
            for (int i = 0; i < C; ++i) {
                int want = 100 * np * (np - 1) / 2 + np * (i + round + t);
                tc_expect(b[i] == want, "allreduce [%d] %d, want %d", i, b[i], want);
            }
            for (int i = 0; i < C + 2; ++i) {
                int want = round * 1000 + t * 10 + i;
                tc_expect(bc[i] == want, "bcast [%d] %d, want %d", i, bc[i], want);
            }
        }
        int late = 1 == round % 3 && 1 == rank % 2;
        for (int j = 0; !late && j < NR; ++j) {
            MPI_Request_free(&rq[j]);
        }
        if (round % 2) {
            MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, comm);
            tc_expect(all == np, "allreduce after round %d: %d, want %d", round, all, np);
        } else {
            MPI_Barrier(comm);
        }
        for (int j = 0; late && j < NR; ++j) {
            MPI_Request_free(&rq[j]);
        }
    }
    MPI_Comm_free(&comm);
}

/* ------------------------------------------------------------------ */
/* holes: chunk edges inside derived and predefined elements            */

static MPI_Datatype holes_type(int which)
{
    MPI_Datatype t, v;
    switch (which) {
    case 0:
        return MPI_SHORT_INT; /* short, 2 bytes of padding, int */
    case 1: {
        struct cdi { char c; double d; int i; };
        int bl[3] = {1, 1, 1};
        MPI_Aint disp[3] = {offsetof(struct cdi, c), offsetof(struct cdi, d),
                            offsetof(struct cdi, i)};
        MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
        MPI_Type_create_struct(3, bl, disp, ty, &v);
        MPI_Type_create_resized(v, 0, sizeof(struct cdi), &t);
        MPI_Type_free(&v);
        break;
    }
    default: /* 3 shorts 4 apart, lower bound -4, extent 16 */
        MPI_Type_vector(3, 1, 2, MPI_SHORT, &v);
        MPI_Type_create_resized(v, -4, 16, &t);
        MPI_Type_free(&v);
        break;
    }
    MPI_Type_commit(&t);
    return t;
}

static void holes_fill(unsigned char *b, size_t bytes, int salt)
{
    for (size_t i = 0; i < bytes; ++i) {
        b[i] = (unsigned char) (i * 131 + (size_t) salt * 7 + (i >> 8));
    }
}

/* One collective on comm (shm) and twin (the layer below), every byte
 * of the receive buffers compared. */
static void holes_one(MPI_Comm comm, MPI_Comm twin, MPI_Datatype t, int coll, int count, int root)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    int *cnt = malloc(sizeof(int) * (size_t) np), *dsp = malloc(sizeof(int) * (size_t) np);
    int total = 0;
    for (int q = 0; q < np; ++q) { /* uneven, a zero where there are 3 or more */
        cnt[q] = coll < 3 ? count : (np > 2 && q == 1 ? 0 : count + 517 * q);
        dsp[q] = total + (q & 1);
        total = dsp[q] + cnt[q];
    }
    /* (a scatter's root sends every block: the whole span) */
    size_t pad = 64, sbytes = (size_t) (total + count + 517 * np + 2) * (size_t) ext + 2 * pad;
    size_t rbytes = (size_t) (total + 2) * (size_t) ext + 2 * pad;
    unsigned char *sb = malloc(sbytes), *r1 = malloc(rbytes), *r2 = malloc(rbytes);
    holes_fill(sb, sbytes, rank + 1);
    memset(r1, 0xa5, rbytes);
    memset(r2, 0xa5, rbytes);
    char *s0 = (char *) sb + pad - lb, *a = (char *) r1 + pad - lb, *b = (char *) r2 + pad - lb;
    const char *name[] = {"gather", "scatter", "allgather", "gatherv", "scatterv", "allgatherv"};
    tc_at("holes %s count %d extent %ld root %d", name[coll], count, (long) ext, root);
    for (int pass = 0; pass < 2; ++pass) {
        MPI_Comm c = pass ? twin : comm;
        char *rb = pass ? b : a;
        switch (coll) {
        case 0: MPI_Gather(s0, count, t, rb, count, t, root, c); break;
        case 1: MPI_Scatter(s0, count, t, rb, count, t, root, c); break;
        case 2: MPI_Allgather(s0, count, t, rb, count, t, c); break;
        case 3: MPI_Gatherv(s0, cnt[rank], t, rb, cnt, dsp, t, root, c); break;
        case 4: MPI_Scatterv(s0, cnt, dsp, t, rb, cnt[rank], t, root, c); break;
        default: MPI_Allgatherv(s0, cnt[rank], t, rb, cnt, dsp, t, c); break;
        }
    }
    size_t at = 0;
    while (at < rbytes && r1[at] == r2[at]) {
        ++at;
    }
    tc_expect(at == rbytes, "holes: %s of %d elements (extent %ld) at root %d: byte %zu differs",
              name[coll], count, (long) ext, root, at - pad);
    free(sb);
    free(r1);
    free(r2);
    free(cnt);
    free(dsp);
}

static void test_holes(MPI_Comm comm)
{
    const char *colls[] = {"gather", "scatter", "allgather", "gatherv", "scatterv", "allgatherv"};
    MPI_Info info;
    MPI_Info_create(&info);
    for (int k = 0; k < 6; ++k) {
        char key[64];
        snprintf(key, sizeof(key), "hiercoll_%s_algorithm", colls[k]);
        MPI_Info_set(info, key, "fallback");
    }
    MPI_Comm twin;
    MPI_Comm_dup_with_info(comm, info, &twin);
    MPI_Info_free(&info);
    const int counts[] = {1000, 1366, 3001, 5000};
    for (int which = 0; which < 3; ++which) {
        MPI_Datatype t = holes_type(which);
        for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); ++i) {
            for (int coll = 0; coll < 6; ++coll) {
                holes_one(comm, twin, t, coll, counts[i],
                          (int) ((i + (size_t) coll) % (size_t) np));
            }
        }
        if (0 != which) {
            MPI_Type_free(&t);
        }
    }
    MPI_Comm_free(&twin);
}

/* ------------------------------------------------------------------ */
/* bigelem: elements larger than a cell                                 */

static void sum_ints(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int sz;
    MPI_Type_size(*dt, &sz);
    long n = (long) *len * (sz / (int) sizeof(int));
    for (long i = 0; i < n; ++i) {
        ((int *) inout)[i] += ((const int *) in)[i];
    }
}

static void test_bigelem(MPI_Comm comm)
{
    MPI_Op op;
    MPI_Op_create(sum_ints, 1, &op);
    for (int n = 1024; n <= 8192; n *= 2) {
        MPI_Datatype v;
        MPI_Type_vector(n, 1, 1, MPI_INT, &v);
        MPI_Type_commit(&v);
        int cnt = np; /* reduce_scatter_block: one element each */
        int *x = malloc(sizeof(int) * (size_t) n * (size_t) cnt);
        int *y = malloc(sizeof(int) * (size_t) n * (size_t) cnt);
        for (long i = 0; i < (long) n * cnt; ++i) {
            x[i] = (int) (i % 1000) + rank;
        }
        int bad = 0, want0 = np * (np - 1) / 2;
        tc_at("bigelem %d ints", n);
        MPI_Allreduce(x, y, cnt, v, op, comm);
        for (long i = 0; i < (long) n * cnt; ++i) {
            bad += y[i] != np * (int) (i % 1000) + want0;
        }
        memset(y, 0, sizeof(int) * (size_t) n * (size_t) cnt);
        MPI_Reduce(x, y, cnt, v, op, np - 1, comm);
        for (long i = 0; rank == np - 1 && i < (long) n * cnt; ++i) {
            bad += y[i] != np * (int) (i % 1000) + want0;
        }
        MPI_Reduce_scatter_block(x, y, 1, v, op, comm);
        for (long i = 0; i < n; ++i) {
            bad += y[i] != np * (int) ((rank * (long) n + i) % 1000) + want0;
        }
        tc_expect(0 == bad, "bigelem: elements of %d ints: %d wrong", n, bad);
        MPI_Type_free(&v);
        free(x);
        free(y);
    }
    MPI_Op_free(&op);
}

/* ------------------------------------------------------------------ */
/* lbred: reductions of types whose data starts at a non-zero bound     */

static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    /* (a1, b1) o (a2, b2) = (a1 a2, a1 b2 + b1) mod 2^16 at the type's data */
    MPI_Aint lb, ext;
    MPI_Type_get_true_extent(*dt, &lb, &ext);
    const unsigned short *x = (const unsigned short *) ((const char *) in + lb);
    unsigned short *y = (unsigned short *) ((char *) inout + lb);
    for (int i = 0; i < *len; ++i, x += 2, y += 2) {
        unsigned short a = (unsigned short) (x[0] * y[0]),
                       b = (unsigned short) (x[0] * y[1] + x[1]);
        y[0] = a;
        y[1] = b;
    }
}

static void test_lbred(MPI_Comm comm)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hiercoll_allreduce_algorithm", "fallback");
    MPI_Info_set(info, "hiercoll_reduce_algorithm", "fallback");
    MPI_Info_set(info, "hiercoll_reduce_scatter_block",
                 "fallback"); /* (the key past 36 characters) */
    MPI_Info_set(info, "hiercoll_reduce_scatter_algorithm", "fallback");
    MPI_Comm twin;
    MPI_Comm_dup_with_info(comm, info, &twin);
    MPI_Info_free(&info);
    MPI_Op op;
    MPI_Op_create(affine, 0, &op);
    const int at[] = {7, -2};
    const int counts[] = {1, 3, 50, 3000};
    for (int ti = 0; ti < 2; ++ti) {
        int bl = 2;
        MPI_Aint disp = at[ti];
        MPI_Datatype us = MPI_UNSIGNED_SHORT, t;
        MPI_Type_create_struct(1, &bl, &disp, &us, &t);
        MPI_Type_commit(&t);
        for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
            int count = counts[ci];
            for (int coll = 0; coll < 4; ++coll) {
                int total = coll >= 2 ? count * np : count; /* (the send side) */
                size_t pad = 64, bytes = (size_t) total * 4 + 2 * pad;
                unsigned char *sb = malloc(bytes), *r1 = malloc(bytes), *r2 = malloc(bytes);
                int *rcounts = malloc(sizeof(int) * (size_t) np);
                for (int q = 0; q < np; ++q) {
                    rcounts[q] = count;
                }
                holes_fill(sb, bytes, rank + 3);
                char *s0 = (char *) sb + pad - at[ti];
                const char *name[] = {"allreduce", "reduce", "reduce_scatter_block",
                                      "reduce_scatter"};
                tc_at("lbred %s count %d lb %d", name[coll], count, at[ti]);
                memset(r1, 0xa5, bytes);
                memset(r2, 0xa5, bytes);
                for (int pass = 0; pass < 2; ++pass) {
                    MPI_Comm c = pass ? twin : comm;
                    char *rb = (char *) (pass ? r2 : r1) + pad - at[ti];
                    switch (coll) {
                    case 0: MPI_Allreduce(s0, rb, count, t, op, c); break;
                    case 1: MPI_Reduce(s0, rb, count, t, op, np - 1, c); break;
                    case 2: MPI_Reduce_scatter_block(s0, rb, count, t, op, c); break;
                    default: MPI_Reduce_scatter(s0, rb, rcounts, t, op, c); break;
                    }
                }
                size_t i = 0;
                while (i < bytes && r1[i] == r2[i]) {
                    ++i;
                }
                tc_expect(i == bytes, "lbred: %s of %d at lower bound %d: byte %zd differs",
                          name[coll], count, at[ti], (ssize_t) i - (ssize_t) pad);
                free(sb);
                free(r1);
                free(r2);
                free(rcounts);
            }
        }
        MPI_Type_free(&t);
    }
    MPI_Op_free(&op);
    MPI_Comm_free(&twin);
}

/* ------------------------------------------------------------------ */
/* clobber: arrays overwritten after a nonblocking v-collective returns  */

static void clobber(int *a, int n)
{
    for (int i = 0; i < n; ++i) {
        a[i] = 1 << 28; /* (a displacement or count far outside any buffer) */
    }
}

static void test_clobber(MPI_Comm comm)
{
    int *cnt = malloc(sizeof(int) * (size_t) np), *dsp = malloc(sizeof(int) * (size_t) np);
    int *sb = malloc(sizeof(int) * 64 * (size_t) np), *rb = malloc(sizeof(int) * 64 * (size_t) np);
    MPI_Barrier(comm); /* (a blocking call sets the level up) */
    for (int it = 0; it < 20; ++it) {
        for (int root = 0; root < np; ++root) {
            for (int coll = 0; coll < 4; ++coll) {
                int total = 0;
                for (int q = 0; q < np; ++q) {
                    cnt[q] = 1 + (q + it + root) % 7;
                    dsp[q] = total + q; /* (a gap of q ints before block q) */
                    total = dsp[q] + cnt[q];
                }
                for (int i = 0; i < 64 * np; ++i) {
                    sb[i] = (coll == 2 ? root : rank) * 1000 + i + it;
                    rb[i] = -1;
                }
                MPI_Request rq;
                tc_at("clobber coll %d root %d it %d", coll, root, it);
                switch (coll) {
                case 0:
                    MPI_Iallgatherv(sb, cnt[rank], MPI_INT, rb, cnt, dsp, MPI_INT, comm, &rq);
                    break;
                case 1:
                    MPI_Igatherv(sb, cnt[rank], MPI_INT, rb, cnt, dsp, MPI_INT, root, comm, &rq);
                    break;
                case 2:
                    MPI_Iscatterv(sb, cnt, dsp, MPI_INT, rb, cnt[rank], MPI_INT, root, comm, &rq);
                    break;
                default:
                    MPI_Ireduce_scatter(sb, rb, cnt, MPI_INT, MPI_SUM, comm, &rq);
                    break;
                }
                int want0 = cnt[rank], off0 = dsp[rank], before = 0;
                for (int q = 0; q < rank; ++q) {
                    before += cnt[q];
                }
                int *c2 = malloc(sizeof(int) * (size_t) np);
                int *d2 = malloc(sizeof(int) * (size_t) np);
                memcpy(c2, cnt, sizeof(int) * (size_t) np);
                memcpy(d2, dsp, sizeof(int) * (size_t) np);
                clobber(cnt, np);
                clobber(dsp, np);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                int bad = 0;
                if (0 == coll || (1 == coll && rank == root)) { /* block q from rank q */
                    for (int q = 0; q < np; ++q) {
                        for (int i = 0; i < c2[q]; ++i) {
                            bad += rb[d2[q] + i] != q * 1000 + i + it;
                        }
                        bad += q > 0 && rb[d2[q] - 1] != -1; /* (the gap untouched) */
                    }
                } else if (2 == coll) { /* my block of the root's */
                    for (int i = 0; i < want0; ++i) {
                        bad += rb[i] != root * 1000 + off0 + i + it;
                    }
                    bad += rb[want0] != -1;
                } else if (3 == coll) { /* my block of the sum */
                    for (int i = 0; i < want0; ++i) {
                        bad += rb[i] != (np * (np - 1) / 2) * 1000 + np * (before + i + it);
                    }
                }
                tc_expect(0 == bad, "clobber: %d wrong ints", bad);
                free(c2);
                free(d2);
            }
        }
    }
    free(cnt);
    free(dsp);
    free(sb);
    free(rb);
}

/* ------------------------------------------------------------------ */
/* errors: every rank has the right bytes or returns an error           */

static void errors_report(const char *what, int err, int wrong)
{
    int mine[2] = {err, wrong}, *all = malloc(sizeof(int) * 2 * (size_t) np);
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    tc_expect(!wrong, "errors: %s: MPI_SUCCESS with wrong data", what);
    if (0 == rank) {
        char e[512] = "", w[512] = "";
        size_t ae = 0, aw = 0;
        for (int r = 0; r < np; ++r) {
            if (all[2 * r] && ae < sizeof(e) - 16) {
                ae += (size_t) snprintf(e + ae, sizeof(e) - ae, "%s%d", ae ? "," : "", r);
            }
            if (all[2 * r + 1] && aw < sizeof(w) - 16) {
                aw += (size_t) snprintf(w + aw, sizeof(w) - aw, "%s%d", aw ? "," : "", r);
            }
        }
        printf("t_shm: errors: %s: error on ranks %s; wrong data on ranks %s\n", what,
               ae ? e : "none", aw ? w : "none");
    }
    free(all);
}

static void test_errors(MPI_Comm parent)
{
    MPI_Comm comm;
    MPI_Comm_dup(parent, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    const int nb = 300000, nr = 3000;
    int *b = malloc(sizeof(int) * nb), *x = malloc(sizeof(int) * nr), *y = malloc(sizeof(int) * nr);
    char what[64];
    for (int it = 0; it < 3; ++it) {
        for (int i = 0; i < nb; ++i) {
            b[i] = 0 == rank ? it * 1000003 + i : -1;
        }
        int err = MPI_SUCCESS != MPI_Bcast(b, nb, MPI_INT, 0, comm), wrong = 0;
        for (int i = 0; i < nb; ++i) {
            wrong |= b[i] != it * 1000003 + i;
        }
        snprintf(what, sizeof(what), "bcast %d", it);
        errors_report(what, err, wrong && !err);
        for (int root = -1; root < 1; ++root) { /* -1: allreduce */
            for (int i = 0; i < nr; ++i) {
                x[i] = (rank + 1) * (it + 1) + i;
                y[i] = -1;
            }
            err = MPI_SUCCESS != (root < 0 ? MPI_Allreduce(x, y, nr, MPI_INT, MPI_SUM, comm)
                                           : MPI_Reduce(x, y, nr, MPI_INT, MPI_SUM, root, comm));
            wrong = 0;
            for (int i = 0; (root < 0 || root == rank) && i < nr; ++i) {
                wrong |= y[i] != (np * (np + 1) / 2) * (it + 1) + np * i;
            }
            snprintf(what, sizeof(what), "%s %d", root < 0 ? "allreduce" : "reduce", it);
            errors_report(what, err, wrong && !err);
        }
    }
    free(b);
    free(x);
    free(y);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int cycles = 200, kill_rank = -1, stall = 0, reuse = 0, errors = 0, clob = 0;
    const char *backing = "/dev/shm";
    tc_init(&argc, &argv);
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--cycles") && i + 1 < argc) {
            cycles = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--any-order")) {
            any_order = 1;
        } else if (0 == strcmp(argv[i], "--stall") && i + 1 < argc) {
            stall = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--kill") && i + 1 < argc) {
            kill_rank = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--errors")) {
            errors = 1;
        } else if (0 == strcmp(argv[i], "--clobber-arrays")) {
            clob = 1;
        } else if (0 == strcmp(argv[i], "--reuse") && i + 1 < argc) {
            reuse = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--backing") && i + 1 < argc) {
            backing = argv[++i];
        } else if (0 == strcmp(argv[i], "--cycle-bytes") && i + 1 < argc) {
            cycle_bytes = atoi(argv[++i]);
        }
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (stall > 0) { /* the last rank comes S seconds late to an allreduce */
        int v = 1, s = 0;
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == np - 1) {
            sleep((unsigned) stall);
        }
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        tc_checks++;
        tc_failures += s != np;
    }
    if (kill_rank >= 0) { /* regions set up, then one rank dies */
        test_cycles(MPI_COMM_WORLD, 3, backing);
        int v = 1, s = 0;
        MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank == kill_rank) {
            raise(SIGKILL);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (clob) {
        test_clobber(MPI_COMM_WORLD);
    } else if (errors) {
        test_errors(MPI_COMM_WORLD);
    } else if (reuse > 0) {
        test_reuse(MPI_COMM_WORLD, reuse);
    } else {
        test_matrix(MPI_COMM_WORLD);
        test_determinism(MPI_COMM_WORLD);
        test_red_lines(MPI_COMM_WORLD);
        test_red_long(MPI_COMM_WORLD);
        test_holes(MPI_COMM_WORLD);
        test_bigelem(MPI_COMM_WORLD);
        test_lbred(MPI_COMM_WORLD);
        test_inflight(MPI_COMM_WORLD);
        test_vinflight(MPI_COMM_WORLD);
        test_cycles(MPI_COMM_WORLD, cycles, backing);
    }
    long c = tc_checks, f = tc_failures, ct = 0, ft = 0;
    MPI_Reduce(&c, &ct, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&f, &ft, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("t_shm: np %d: %ld checks, %ld failed\n", np, ct, ft);
    }
    MPI_Finalize();
    return 0 != ft;
}
