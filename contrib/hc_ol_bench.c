/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_ol_bench: latency and OVERLAP of the triggered offload, per backend,
 * against tuned and libnbc, side by side in ONE job.
 *
 * Contenders are duplicates of MPI_COMM_WORLD: hiercoll's "offload"
 * algorithm on each backend (info keys hiercoll_<coll>_algorithm=offload
 * and hiercoll_offload_backend=ofi|ucx|progress), tuned and libnbc (with
 * hiercoll excluded).  For each collective (allreduce of 8 and 48 bytes,
 * and whatever else --colls names) and contender, in alternating trials
 * (A B C ... A B C ...), medians of:
 *   t_call  blocking latency (slowest rank's mean per call);
 *   t_nb    the nonblocking form and MPI_Wait back to back;
 *   overlap the nonblocking call, then a compute loop of about 2 * t_nb
 *           (--factor F: F * t_nb) that makes no MPI call, then MPI_Wait:
 *           overlap = 1 - (t_total - t_compute) / t_nb
 *           (1: the call ran entirely during the compute; libnbc ~0);
 *   t_post  in those overlap trials, the nonblocking call itself (the
 *           slowest rank's mean): what the call costs the caller however
 *           the rest is hidden, so overlap <= 1 - t_post / t_nb.
 * Results are checked against tuned's before timing.
 *   mpirun -np 4 hc_ol_bench [--iters N] [--trials N] [--colls allreduce,bcast,barrier]
 *                            [--contenders offload-ucx,offload-progress,offload-ofi]
 * (--contenders: the offload contenders to time; tuned and libnbc always run.)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ALLREDUCE, BCAST, BARRIER };

typedef struct {
    const char *name, *pref, *backend;
    MPI_Comm comm;
} contender_t;

static volatile double sink;

static void compute(double secs)
{
    double t0 = MPI_Wtime(), x = 1.0;
    while (MPI_Wtime() - t0 < secs) {
        for (int i = 0; i < 200; ++i) {
            x = x * 1.0000001 + 1e-9;
        }
    }
    sink = x;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static MPI_Comm make(const contender_t *c, const char *coll)
{
    MPI_Info info;
    MPI_Comm comm;
    char key[64];
    MPI_Info_create(&info);
    MPI_Info_set(info, "ompi_comm_coll_preference", c->pref);
    if (c->backend) {
        snprintf(key, sizeof(key), "hiercoll_%s_algorithm", coll);
        MPI_Info_set(info, key, "offload");
        MPI_Info_set(info, "hiercoll_offload_backend", c->backend);
    }
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    return comm;
}

static void call(int coll, int nb, MPI_Comm comm, double *in, double *out, int count,
                 MPI_Request *req)
{
    switch (coll) {
    case ALLREDUCE:
        if (nb) {
            MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm, req);
        } else {
            MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, comm);
        }
        break;
    case BCAST:
        if (nb) {
            MPI_Ibcast(out, count, MPI_DOUBLE, 0, comm, req);
        } else {
            MPI_Bcast(out, count, MPI_DOUBLE, 0, comm);
        }
        break;
    default:
        if (nb) {
            MPI_Ibarrier(comm, req);
        } else {
            MPI_Barrier(comm);
        }
    }
}

/* mode 0: blocking; 1: nonblocking + wait; 2: nonblocking + compute(c) + wait
 * (*post: the slowest rank's mean time in the nonblocking call) */
static double trial(int coll, int mode, MPI_Comm comm, double *in, double *out, int count,
                    int iters, double c, double *post)
{
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), tp = 0;
    for (int i = 0; i < iters; ++i) {
        double t1 = MPI_Wtime();
        call(coll, mode > 0, comm, in, out, count, &req);
        tp += MPI_Wtime() - t1;
        if (2 == mode) {
            compute(c);
        }
        if (mode > 0) {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    }
    double t[2] = {(MPI_Wtime() - t0) / iters, tp / iters}, tmax[2];
    MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (NULL != post) {
        *post = tmax[1];
    }
    return tmax[0];
}

int main(int argc, char **argv)
{
    int iters = 200, trials = 7, rank, np;
    double factor = 2.0;
    const char *colls = "allreduce,bcast,barrier", *only = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--trials") && i + 1 < argc) {
            trials = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--colls") && i + 1 < argc) {
            colls = argv[++i];
        } else if (!strcmp(argv[i], "--factor") && i + 1 < argc) {
            factor = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--contenders") && i + 1 < argc) {
            only = argv[++i];
        }
    }
    contender_t cs[] = {
        {"offload-ofi", "hiercoll,basic,libnbc", "ofi", MPI_COMM_NULL},
        {"offload-ucx", "hiercoll,basic,libnbc", "ucx", MPI_COMM_NULL},
        {"offload-progress", "hiercoll,basic,libnbc", "progress", MPI_COMM_NULL},
        {"tuned", "tuned,libnbc,basic,^hiercoll", NULL, MPI_COMM_NULL},
        {"libnbc", "libnbc,basic,tuned,^hiercoll", NULL, MPI_COMM_NULL},
    };
    int nc = (int) (sizeof(cs) / sizeof(cs[0]));
    if (NULL != only) { /* keep the named offload contenders, then tuned and libnbc */
        int n = 0;
        for (int c = 0; c < nc; ++c) {
            if (NULL == cs[c].backend || NULL != strstr(only, cs[c].name)) {
                cs[n++] = cs[c];
            }
        }
        nc = n;
    }
    static const struct {
        const char *name;
        int coll, count;
    } cases[] = {{"allreduce", ALLREDUCE, 1}, {"allreduce", ALLREDUCE, 6}, {"bcast", BCAST, 6},
                 {"barrier", BARRIER, 0}};
    double in[64], out[64], ref[64];
    double *med = calloc((size_t) nc * 4, sizeof(double)), *t = malloc(sizeof(double) * trials);
    double (*all)[4][64] = calloc((size_t) nc, sizeof(*all));
    if (0 == rank) {
        printf("hc_ol_bench: np %d, %d iterations per trial, medians of %d alternating trials "
               "(compute %.3g x t_nb)\n%-10s %5s %-17s %10s %10s %8s %10s %8s\n",
               np, iters, trials, factor, "coll", "bytes", "contender", "t_call_us", "t_nb_us",
               "overlap", "t_post_us", "ratio");
    }
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) {
        if (!strstr(colls, cases[k].name)) {
            continue;
        }
        int coll = cases[k].coll, count = cases[k].count;
        for (int c = 0; c < nc; ++c) {
            cs[c].comm = make(&cs[c], cases[k].name);
        }
        /* check against tuned */
        for (int i = 0; i < 64; ++i) {
            in[i] = rank * 3 + i * 0.5;
        }
        for (int c = nc - 2, j = 0; j < nc; ++j, c = (c + 1) % nc) {
            memcpy(out, in, sizeof(out));
            call(coll, 0, cs[c].comm, in, out, count, NULL);
            if (0 == j) {
                memcpy(ref, out, sizeof(ref)); /* tuned's */
            } else if (memcmp(out, ref, (size_t) count * sizeof(double))) {
                fprintf(stderr, "hc_ol_bench: %s differs from tuned on rank %d\n", cs[c].name,
                        rank);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        for (int mode = 0; mode < 2; ++mode) {
            for (int c = 0; c < nc; ++c) {
                trial(coll, mode, cs[c].comm, in, out, count, iters / 10 + 1, 0, NULL);
            }
            for (int tr = 0; tr < trials; ++tr) {
                for (int c = 0; c < nc; ++c) {
                    all[c][mode][tr] =
                        trial(coll, mode, cs[c].comm, in, out, count, iters, 0, NULL);
                }
            }
        }
        for (int c = 0; c < nc; ++c) {
            for (int mode = 0; mode < 2; ++mode) {
                memcpy(t, all[c][mode], sizeof(double) * trials);
                qsort(t, trials, sizeof(double), cmp);
                med[c * 4 + mode] = t[trials / 2];
            }
        }
        /* overlap: compute for 2 * t_nb of each contender */
        for (int tr = 0; tr < trials; ++tr) {
            for (int c = 0; c < nc; ++c) {
                double tc = factor * med[c * 4 + 1];
                double tt = trial(coll, 2, cs[c].comm, in, out, count, iters, tc, &all[c][3][tr]);
                all[c][2][tr] = 1.0 - (tt - tc) / med[c * 4 + 1];
            }
        }
        for (int c = 0; c < nc; ++c) {
            for (int m = 2; m < 4; ++m) {
                memcpy(t, all[c][m], sizeof(double) * trials);
                qsort(t, trials, sizeof(double), cmp);
                med[c * 4 + m] = t[trials / 2];
            }
        }
        if (0 == rank) {
            for (int c = 0; c < nc; ++c) {
                printf("%-10s %5d %-17s %10.2f %10.2f %8.2f %10.2f %8.2f\n", cases[k].name,
                       count * 8, cs[c].name, med[c * 4] * 1e6, med[c * 4 + 1] * 1e6,
                       med[c * 4 + 2], med[c * 4 + 3] * 1e6, med[(nc - 2) * 4] / med[c * 4]);
            }
        }
        for (int c = 0; c < nc; ++c) {
            MPI_Comm_free(&cs[c].comm);
        }
    }
    if (0 == rank) {
        printf("ratio: t_call(tuned) / t_call(contender); above 1: faster than tuned\n");
    }
    free(med);
    free(t);
    free(all);
    MPI_Finalize();
    return 0;
}
