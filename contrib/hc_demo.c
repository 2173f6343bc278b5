/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_demo: a few collectives, each checked against the value it must have.
 * Run it with hiercoll's verbose and statistics switches on to see what the
 * component chose for every collective and what it sent (run-demo.sh).
 */
#include <mpi.h>
#define HIERCOLL_COMPAT_MPI_ONLY /* MPI_*_init / MPIX_*_init on 4.1 and 5.0 */
#include "coll_hiercoll_compat.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures, quiet; /* quiet (--quiet): print nothing */

static void report(const char *what, int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    failures += !all;
    if (0 == rank && !quiet) {
        printf("  %-52s %s\n", what, all ? "ok" : "WRONG");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    quiet = argc > 1 && 0 == strcmp(argv[1], "--quiet");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (0 == rank && !quiet) {
        printf("hiercoll demo on %d processes\n", size);
    }

    /* allreduce: the sum of 1..size, in 1000 doubles */
    enum { N = 1000 };
    double x[N], y[N];
    for (int i = 0; i < N; ++i) {
        x[i] = rank + 1 + i;
    }
    MPI_Allreduce(x, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int ok = 1;
    for (int i = 0; i < N; ++i) {
        ok &= y[i] == size * (size + 1) / 2.0 + (double) i * size;
    }
    report("MPI_Allreduce, 1000 doubles, sum", ok);

    /* bcast from the last rank */
    char msg[64] = "";
    if (rank == size - 1) {
        snprintf(msg, sizeof(msg), "hello from rank %d", size - 1);
    }
    MPI_Bcast(msg, sizeof(msg), MPI_CHAR, size - 1, MPI_COMM_WORLD);
    char want[64];
    snprintf(want, sizeof(want), "hello from rank %d", size - 1);
    report("MPI_Bcast, 64 bytes from the last rank", 0 == strcmp(msg, want));

    /* reduce to rank 0: the maximum */
    int v = (rank * 37) % 11, mx = -1, expect = 0;
    for (int r = 0; r < size; ++r) {
        expect = (r * 37) % 11 > expect ? (r * 37) % 11 : expect;
    }
    MPI_Reduce(&v, &mx, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    report("MPI_Reduce to rank 0, max", 0 != rank || mx == expect);

    /* nonblocking, overlapped with local work */
    MPI_Request rq;
    double s = rank, t = 0;
    MPI_Iallreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq);
    volatile double busy = 0;
    for (int i = 0; i < 100000; ++i) {
        busy += i;
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    report("MPI_Iallreduce with local work in between", t == size * (size - 1) / 2.0);

    /* persistent: started three times with new data */
    MPIX_Allreduce_init(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq);
    ok = 1;
    for (int k = 1; k <= 3; ++k) {
        s = rank * k;
        MPI_Start(&rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        ok &= t == k * size * (size - 1) / 2.0;
    }
    MPI_Request_free(&rq);
    report("persistent MPIX_Allreduce_init, started 3 times", ok);

    /* gatherv: rank r sends r+1 ints, the root lays them out in reverse */
    int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size), total = 0;
    for (int r = size - 1; r >= 0; --r) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    int *mine = malloc(sizeof(int) * (rank + 1)), *all = malloc(sizeof(int) * total);
    for (int i = 0; i <= rank; ++i) {
        mine[i] = rank * 100 + i;
    }
    MPI_Gatherv(mine, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    ok = 1;
    for (int r = 0; 0 == rank && r < size; ++r) {
        for (int i = 0; i <= r; ++i) {
            ok &= all[displs[r] + i] == r * 100 + i;
        }
    }
    report("MPI_Gatherv, irregular, reversed layout", ok);

    MPI_Barrier(MPI_COMM_WORLD);
    report("MPI_Barrier", 1);

    free(counts);
    free(displs);
    free(mine);
    free(all);
    if (0 == rank && !quiet) {
        printf("%s\n", failures ? "demo FAILED" : "all results right");
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
