/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * t_large: Open MPI 6.0's large counts (the MPI 4.0 _c bindings).
 *   - MPI_Allreduce_c and MPI_Reduce_c of 2^31 + 192 signed chars (sum,
 *     in place): more elements than an int holds, which hiercoll runs as
 *     its own reductions in pieces; every element checked against the
 *     sum of the ranks' values computed here;
 *   - MPI_Bcast_c of the same bytes (more than INT_MAX bytes: the layer
 *     below), checked byte for byte;
 *   - MPI_Allgatherv_c and MPI_Alltoallv_c with small counts (64-bit
 *     arrays: the layer below) and MPI_Allreduce_c of a small count
 *     (hiercoll's), against serial references.
 * The large part needs about 2.2 GB per rank: with less memory available
 * (or --small) only the small part runs, and it says so.  Where Open MPI
 * has no _c bindings (4.1, 5.0) it prints "skipped".
 *   t_large [--small]  -> "t_large: np N: C checks, F failures"
 */
#include "t_common.h"

#include <unistd.h>

#if HC_MPI_LARGE_COUNT

static signed char val(size_t i, int rank)
{
    return (signed char) ((int) ((i * 2654435761u + (size_t) rank * 40503u) >> 7) % 5 - 2);
}

static void check_sum(const signed char *got, size_t n, int np, const char *what)
{
    tc_checks++;
    for (size_t i = 0; i < n; ++i) {
        int want = 0;
        for (int r = 0; r < np; ++r) {
            want += val(i, r);
        }
        if (got[i] != (signed char) want) {
            tc_failures++;
            printf("FAIL [rank %d] %s: element %zu is %d, want %d\n", tc_world_rank, what, i,
                   got[i], want);
            return;
        }
    }
}

static void large_part(int rank, int np)
{
    const MPI_Count n = ((MPI_Count) 1 << 31) + 192;
    signed char *buf = malloc((size_t) n);
    if (NULL == buf) {
        tc_failures++;
        printf("FAIL [rank %d] no memory for %lld bytes\n", rank, (long long) n);
        return;
    }
    for (size_t i = 0; i < (size_t) n; ++i) {
        buf[i] = val(i, rank);
    }
    tc_at("allreduce_c %lld", (long long) n);
    MPI_Allreduce_c(MPI_IN_PLACE, buf, n, MPI_SIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    check_sum(buf, (size_t) n, np, "allreduce_c");

    for (size_t i = 0; i < (size_t) n; ++i) {
        buf[i] = val(i, rank);
    }
    tc_at("reduce_c %lld", (long long) n);
    MPI_Reduce_c(0 == rank ? MPI_IN_PLACE : buf, 0 == rank ? buf : NULL, n, MPI_SIGNED_CHAR,
                 MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        check_sum(buf, (size_t) n, np, "reduce_c");
    }

    for (size_t i = 0; i < (size_t) n; ++i) {
        buf[i] = 0 == rank ? val(i, 7) : 0;
    }
    tc_at("bcast_c %lld", (long long) n);
    MPI_Bcast_c(buf, n, MPI_SIGNED_CHAR, 0, MPI_COMM_WORLD);
    tc_checks++;
    for (size_t i = 0; i < (size_t) n; ++i) {
        if (buf[i] != val(i, 7)) {
            tc_failures++;
            printf("FAIL [rank %d] bcast_c: byte %zu is %d, want %d\n", rank, i, buf[i], val(i, 7));
            break;
        }
    }
    free(buf);
}

static void small_part(int rank, int np)
{
    enum { K = 5 };
    MPI_Count *counts = malloc(sizeof(MPI_Count) * (size_t) np);
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * (size_t) np);
    int *mine = malloc(sizeof(int) * K), *all = malloc(sizeof(int) * (size_t) (K * np)),
        *want = malloc(sizeof(int) * (size_t) (K * np));
    for (int r = 0; r < np; ++r) {
        counts[r] = K;
        displs[r] = (MPI_Aint) (K * (np - 1 - r)); /* reversed blocks */
        for (int k = 0; k < K; ++k) {
            want[K * (np - 1 - r) + k] = 1000 * r + k;
        }
    }
    for (int k = 0; k < K; ++k) {
        mine[k] = 1000 * rank + k;
    }
    tc_at("allgatherv_c");
    MPI_Allgatherv_c(mine, K, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
    tc_expect_ints(all, want, K * np, "allgatherv_c");

    /* alltoallv_c: block k of rank r to rank s is 100 * r + s + k */
    int *sb = malloc(sizeof(int) * (size_t) (K * np)),
        *rb = malloc(sizeof(int) * (size_t) (K * np));
    for (int s = 0; s < np; ++s) {
        displs[s] = (MPI_Aint) (K * s);
        for (int k = 0; k < K; ++k) {
            sb[K * s + k] = 100 * rank + s + k;
            want[K * s + k] = 100 * s + rank + k;
        }
    }
    tc_at("alltoallv_c");
    MPI_Alltoallv_c(sb, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, MPI_COMM_WORLD);
    tc_expect_ints(rb, want, K * np, "alltoallv_c");

    tc_at("allreduce_c small");
    int sum[K];
    MPI_Allreduce_c(mine, sum, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < K; ++k) {
        want[k] = 1000 * (np * (np - 1) / 2) + np * k;
    }
    tc_expect_ints(sum, want, K, "allreduce_c small");
    free(counts), free(displs), free(mine), free(all), free(want), free(sb), free(rb);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int small = argc > 1 && 0 == strcmp(argv[1], "--small");
    /* the large part on every rank or on none: rank 0 judges the node's
     * memory (every rank on one node, as the suite runs it) */
    int go = 0;
    if (0 == rank && !small) {
        double avail = (double) sysconf(_SC_AVPHYS_PAGES) * (double) sysconf(_SC_PAGESIZE);
        go = avail > 1.3 * (double) np * (double) ((1u << 31) + 192u);
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    small_part(rank, np);
    if (go) {
        large_part(rank, np);
    } else if (0 == rank) {
        printf("t_large: large part not run (%s)\n", small ? "--small" : "too little memory");
    }
    long f = tc_failures, c = tc_checks, ft = 0, ct = 0;
    MPI_Reduce(&f, &ft, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&c, &ct, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("t_large: np %d: %ld checks, %ld failures\n", np, ct, ft);
    }
    MPI_Finalize();
    return ft ? 1 : 0;
}

#else

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    if (0 == tc_world_rank) {
        printf("t_large: skipped (no MPI 4.0 large-count bindings in Open MPI %d.%d)\n",
               OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION);
    }
    MPI_Finalize();
    return 0;
}

#endif
