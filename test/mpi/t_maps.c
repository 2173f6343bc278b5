/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Which libraries a process maps: libfabric, UCX and PSM must
 * not be in a process where hiercoll is loaded but the offload unused; the
 * offload's transport plugins bring them only when a communicator's
 * offload uses them.  Reads /proc/self/maps after MPI_Init, and again
 * after an allreduce on MPI_COMM_WORLD (checked against the serial sum).
 *
 *   t_maps none     hiercoll mapped; none of libfabric, libucp/uct/ucs,
 *                   libpsm*, hiercoll_{ucx,ofi}.so (after the allreduce too)
 *   t_maps control  the stack without hiercoll: prints the ones it maps
 *                   anyway ("t_maps: baseline: ..."; Debian 13's Open MPI
 *                   5.0 links libfabric, UCX and PSM into libopen-pal);
 *                   none then ignores those named in T_MAPS_BASELINE
 *                   (comma-separated), except the plugins
 *   t_maps ucx      after the allreduce (run with the offload forced on
 *                   ucx): hiercoll_ucx.so and libucp mapped
 *   t_maps ofi      after the allreduce (offload forced on ofi):
 *                   hiercoll_ofi.so and libfabric mapped
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const unwanted[] = {"libfabric.so",   "libucp.so", "libuct.so",
                                       "libucs.so",      "libpsm",    "hiercoll_ucx.so",
                                       "hiercoll_ofi.so"};
#define NUNWANTED (sizeof(unwanted) / sizeof(unwanted[0]))

/* Is a path containing `what` mapped?  (where: its path, when asked) */
static int mapped(const char *what, char *where, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    if (NULL == f) {
        fprintf(stderr, "t_maps: cannot read /proc/self/maps\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    while (!found && NULL != fgets(line, sizeof(line), f)) {
        char *p = strchr(line, '/');
        if (NULL != p && NULL != strstr(p, what)) {
            found = 1;
            if (NULL != where) {
                p[strcspn(p, "\n")] = '\0';
                snprintf(where, len, "%s", p);
            }
        }
    }
    fclose(f);
    return found;
}

static int in_baseline(const char *what)
{
    const char *b = getenv("T_MAPS_BASELINE");
    return NULL != b && NULL == strstr(what, "hiercoll") && NULL != strstr(b, what);
}

static int none_mapped(int rank, const char *when)
{
    int bad = 0;
    char where[4096];
    for (size_t i = 0; i < NUNWANTED; ++i) {
        if (!in_baseline(unwanted[i]) && mapped(unwanted[i], where, sizeof(where))) {
            printf("t_maps: rank %d: %s mapped %s (%s)\n", rank, unwanted[i], when, where);
            ++bad;
        }
    }
    return bad;
}

static int need(int rank, const char *what)
{
    if (mapped(what, NULL, 0)) {
        return 0;
    }
    printf("t_maps: rank %d: %s NOT mapped after the offloaded allreduce\n", rank, what);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "none";
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int none = 0 == strcmp(mode, "none"), control = 0 == strcmp(mode, "control");
    if (!none && !control && 0 != strcmp(mode, "ucx") && 0 != strcmp(mode, "ofi")) {
        if (0 == rank) {
            fprintf(stderr, "usage: t_maps none|control|ucx|ofi\n");
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (none && !mapped("mca_coll_hiercoll.so", NULL, 0)) {
        printf("t_maps: rank %d: mca_coll_hiercoll.so is not mapped: nothing tested\n", rank);
        ++bad;
    }
    if (control && 0 == rank) {
        char line[512] = "";
        for (size_t i = 0; i < NUNWANTED; ++i) {
            if (mapped(unwanted[i], NULL, 0)) {
                snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s",
                         '\0' == line[0] ? "" : ",", unwanted[i]);
            }
        }
        printf("t_maps: baseline: %s\n", '\0' == line[0] ? "none" : line);
    }
    if (none) {
        bad += none_mapped(rank, "after MPI_Init");
    }
    /* an allreduce on MPI_COMM_WORLD: the offload's, when forced */
    long in[3] = {rank, 2 * rank + 1, -rank}, out[3] = {0, 0, 0};
    long want[3] = {0, 0, 0};
    for (int r = 0; r < size; ++r) {
        want[0] += r;
        want[1] += 2 * r + 1;
        want[2] -= r;
    }
    MPI_Allreduce(in, out, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (0 != memcmp(out, want, sizeof(want))) {
        printf("t_maps: rank %d: allreduce gave %ld %ld %ld, want %ld %ld %ld\n", rank, out[0],
               out[1], out[2], want[0], want[1], want[2]);
        ++bad;
    }
    if (none) {
        bad += none_mapped(rank, "after an allreduce");
    } else if (control) {
        /* nothing more: the baseline is what it is */
    } else if (0 == strcmp(mode, "ucx")) {
        bad += need(rank, "hiercoll_ucx.so") + need(rank, "libucp.so");
    } else {
        bad += need(rank, "hiercoll_ofi.so") + need(rank, "libfabric.so");
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("t_maps: np %d: %s: %d failed\n", size, mode, all);
    }
    MPI_Finalize();
    return 0 == all ? 0 : 1;
}
