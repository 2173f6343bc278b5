/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_converge: the convergence test of an iterative solver, hiercoll
 * against another component side by side in ONE job (the short-circuit
 * reductions' benchmark, docs/short-circuit.md).
 *
 * Every iteration each rank contributes its `converged` flag to
 * MPI_Allreduce(MPI_LAND) of one int: a fraction F of the ranks is not
 * converged (holds 0; which ones rotates), and one rank per iteration
 * arrives D microseconds late (rotating), as ranks do in real solvers.
 * Iterations start together (a barrier of the other component on its own
 * communicator, then the late rank waits D); what is measured is the time
 * each rank spends inside MPI_Allreduce, averaged over ranks and
 * iterations.  hiercoll and the other component (each on a duplicate of
 * MPI_COMM_WORLD whose info key ompi_comm_coll_preference puts it on top,
 * the other with hiercoll excluded) run in alternating trials; the median
 * trial of each is reported with the ratio other/hiercoll (above 1:
 * hiercoll is faster).  Every result is checked.
 *
 *   mpirun -np 8 hc_converge --F 0,0.25,0.75 --D 0,50 --against tuned
 *
 * Options: --F LIST (default 0,0.25,0.75), --D LIST in us (default 0,50),
 * --iters N (default 2000), --trials N (default 5), --against COMP (default
 * tuned; "hiercoll:K=V" is hiercoll with an info key, e.g.
 * hiercoll:hiercoll_allreduce_algorithm=recursive_doubling), --info K=V (an
 * info key for hiercoll's communicator), --csv FILE.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *msg)
{
    fprintf(stderr, "hc_converge: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static MPI_Comm comm_with(const char *pref, const char *kv)
{
    MPI_Info info;
    MPI_Comm c;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ompi_comm_coll_preference", pref);
    if (NULL != kv) {
        char k[256];
        snprintf(k, sizeof(k), "%s", kv);
        char *eq = strchr(k, '=');
        if (NULL == eq) {
            die("--info wants KEY=VALUE");
        }
        *eq = 0;
        MPI_Info_set(info, k, eq + 1);
    }
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    return c;
}

static int parse_list(const char *s, double *v, int max)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", s);
    for (char *t = strtok(buf, ","); t && n < max; t = strtok(NULL, ",")) {
        v[n++] = atof(t);
    }
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* One trial: the mean time (us) ranks spend in the call; *bad counts
 * wrong results. */
static double trial(MPI_Comm c, MPI_Comm sync, int iters, double F, double D, int salt, long *bad)
{
    int rank, n;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &n);
    int holders = (int) (F * n + 0.5);
    double in_call = 0;
    for (int i = 0; i < iters; ++i) {
        int it = i + salt;
        /* not converged: `holders` ranks from a rotating start */
        int start = (int) ((unsigned) it * 2654435761u % (unsigned) n);
        int mine = 1;
        for (int j = 0; j < holders; ++j) {
            mine &= rank != (start + j) % n;
        }
        MPI_Barrier(sync);
        if (rank == it % n && D > 0) {
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < D * 1e-6) {
            }
        }
        int res = -1;
        double t0 = MPI_Wtime();
        MPI_Allreduce(&mine, &res, 1, MPI_INT, MPI_LAND, c);
        in_call += MPI_Wtime() - t0;
        *bad += res != (0 == holders);
    }
    double sum = 0;
    MPI_Allreduce(&in_call, &sum, 1, MPI_DOUBLE, MPI_SUM, sync);
    return sum / n / iters * 1e6;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    double Fs[8] = {0, 0.25, 0.75}, Ds[8] = {0, 50};
    int nF = 3, nD = 2, iters = 2000, trials = 5;
    const char *against = "tuned", *csv = NULL, *info = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (NULL == v) {
            die("every option takes a value");
        }
        if (!strcmp(a, "--F")) {
            nF = parse_list(v, Fs, 8);
        } else if (!strcmp(a, "--D")) {
            nD = parse_list(v, Ds, 8);
        } else if (!strcmp(a, "--iters")) {
            iters = atoi(v);
        } else if (!strcmp(a, "--trials")) {
            trials = atoi(v);
        } else if (!strcmp(a, "--against")) {
            against = v;
        } else if (!strcmp(a, "--csv")) {
            csv = v;
        } else if (!strcmp(a, "--info")) {
            info = v;
        } else {
            die("unknown option (see the header of contrib/hc_converge.c)");
        }
        ++i;
    }
    if (trials < 1 || trials > 64 || iters < 1) {
        die("--trials 1..64, --iters >= 1");
    }
    char pref[128];
    snprintf(pref, sizeof(pref), "%s,^hiercoll", against);
    MPI_Comm hc = comm_with("hiercoll", info), other, sync = comm_with("tuned,^hiercoll", NULL);
    if (0 == strncmp(against, "hiercoll:", 9)) { /* hiercoll with an info key */
        other = comm_with("hiercoll", against + 9);
    } else {
        other = comm_with(pref, NULL);
    }
    FILE *out = NULL;
    if (0 == rank && NULL != csv) {
        out = fopen(csv, "w");
        if (NULL == out) {
            die("cannot write the csv file");
        }
        fprintf(out, "np,F,D_us,hiercoll_us,%s_us,ratio\n", against);
    }
    if (0 == rank) {
        printf("# hc_converge: np %d, %d iterations x %d alternating trials, MPI_Allreduce("
               "MPI_LAND) of one int; mean us per rank in the call (median trial)\n",
               n, iters, trials);
        printf("%4s %5s %6s %12s %12s %8s\n", "np", "F", "D_us", "hiercoll", against, "ratio");
    }
    long bad = 0;
    int salt = 0;
    for (int fi = 0; fi < nF; ++fi) {
        for (int di = 0; di < nD; ++di) {
            double th[64], to[64];
            /* warm-up: both, and hiercoll's history */
            trial(hc, sync, iters / 10 + 1, Fs[fi], Ds[di], salt, &bad);
            trial(other, sync, iters / 10 + 1, Fs[fi], Ds[di], salt, &bad);
            for (int t = 0; t < trials; ++t) {
                salt += iters;
                th[t] = trial(hc, sync, iters, Fs[fi], Ds[di], salt, &bad);
                to[t] = trial(other, sync, iters, Fs[fi], Ds[di], salt, &bad);
            }
            qsort(th, (size_t) trials, sizeof(double), cmp_double);
            qsort(to, (size_t) trials, sizeof(double), cmp_double);
            double mh = th[trials / 2], mo = to[trials / 2];
            if (0 == rank) {
                printf("%4d %5.2f %6.0f %12.2f %12.2f %8.2f\n", n, Fs[fi], Ds[di], mh, mo, mo / mh);
                if (out) {
                    fprintf(out, "%d,%.2f,%.0f,%.3f,%.3f,%.3f\n", n, Fs[fi], Ds[di], mh, mo,
                            mo / mh);
                }
            }
        }
    }
    long allbad = 0;
    MPI_Reduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (0 == rank) {
        printf("# %ld wrong results\n", allbad);
        if (out) {
            fclose(out);
        }
    }
    MPI_Comm_free(&hc);
    MPI_Comm_free(&other);
    MPI_Comm_free(&sync);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
