/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Persistent collectives match in INITIALIZATION order (MPI 4.0, 6.13).
 *
 * Every rank initializes the same persistent collectives in the same
 * order (two bcasts from different roots, a barrier, two allreduces, a
 * gatherv with irregular counts, a scatter), then starts them in an order
 * of its own: rotated by its rank, reversed on odd ranks, one by one with
 * MPI_Start or all at once with MPI_Startall on a permuted array, with a
 * nonblocking allreduce called in the middle (nonblocking calls still
 * match in call order).  Each round waits, compares every result byte for
 * byte with a serial reference, and restarts everything with new data.
 * The bcasts share a datatype and nearly a count, so a message matched by
 * the wrong request arrives as wrong data or MPI_ERR_TRUNCATE (reported,
 * the communicator returns errors).
 *
 * The same on an intercommunicator (bcasts both ways, an allreduce, a
 * barrier, a gather).
 *
 * Usage: t_persist [ROUNDS]   (default 6)
 */
#include "t_common.h"

enum { P_BCAST0, P_BARRIER, P_ALLRED_SUM, P_GATHERV, P_BCAST1, P_ALLRED_MAX, P_SCATTER, P_N };

static int gv_count(int r)
{
    return (r * 5 + 3) % 7; /* 0 for some ranks */
}

static void run_comm(MPI_Comm comm, const char *cname, int rounds)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    /* a blocking call first: hiercoll sets up what is collective (the
     * shared-memory region, a decomposition's parts) there, never in an
     * init, which must not wait for the other ranks */
    MPI_Barrier(comm);
    const int nb0 = 37, nb1 = 36, nar = 50, nsc = 3;
    const int root0 = 0, root1 = n - 1, gvroot = n / 2, scroot = (n + 1) / 3;
    int *b0 = tc_alloc(nb0), *b1 = tc_alloc(nb1);
    int *ar_in = tc_alloc(nar), *ar_sum = tc_alloc(nar), *ar_max = tc_alloc(nar);
    int *rcounts = tc_alloc(n), *displs = tc_alloc(n), total = 0;
    for (int r = 0; r < n; ++r) {
        rcounts[r] = gv_count(r);
        displs[r] = total; /* a one-int gap after every block */
        total += rcounts[r] + 1;
    }
    int *gv_in = tc_alloc(gv_count(rank)), *gv_out = tc_alloc(total);
    int *sc_in = tc_alloc((long) nsc * n), *sc_out = tc_alloc(nsc);
    int *nb_in = tc_alloc(5), *nb_out = tc_alloc(5);
    MPI_Request rq[P_N];
    MPIX_Bcast_init(b0, nb0, MPI_INT, root0, comm, MPI_INFO_NULL, &rq[P_BCAST0]);
    MPIX_Barrier_init(comm, MPI_INFO_NULL, &rq[P_BARRIER]);
    MPIX_Allreduce_init(ar_in, ar_sum, nar, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL,
                        &rq[P_ALLRED_SUM]);
    MPIX_Gatherv_init(gv_in, gv_count(rank), MPI_INT, gv_out, rcounts, displs, MPI_INT, gvroot,
                      comm, MPI_INFO_NULL, &rq[P_GATHERV]);
    MPIX_Bcast_init(b1, nb1, MPI_INT, root1, comm, MPI_INFO_NULL, &rq[P_BCAST1]);
    MPIX_Allreduce_init(ar_in, ar_max, nar, MPI_INT, MPI_MAX, comm, MPI_INFO_NULL,
                        &rq[P_ALLRED_MAX]);
    MPIX_Scatter_init(sc_in, nsc, MPI_INT, sc_out, nsc, MPI_INT, scroot, comm, MPI_INFO_NULL,
                      &rq[P_SCATTER]);

    for (int it = 0; it < rounds; ++it) {
        tc_at("%s: persistent round %d", cname, it);
        /* new data every round; receive buffers reset */
        for (int i = 0; i < nb0; ++i) {
            b0[i] = rank == root0 ? tc_val(root0, i, 10 + it) : SENTINEL;
        }
        for (int i = 0; i < nb1; ++i) {
            b1[i] = rank == root1 ? tc_val(root1, i, 20 + it) : SENTINEL;
        }
        for (int i = 0; i < nar; ++i) {
            ar_in[i] = tc_val(rank, i, 30 + it);
            ar_sum[i] = ar_max[i] = SENTINEL;
        }
        for (int i = 0; i < gv_count(rank); ++i) {
            gv_in[i] = tc_val(rank, i, 40 + it);
        }
        for (int i = 0; i < total; ++i) {
            gv_out[i] = SENTINEL;
        }
        for (int i = 0; i < nsc * n; ++i) {
            sc_in[i] = rank == scroot ? tc_val(scroot, i, 50 + it) : SENTINEL;
        }
        for (int i = 0; i < nsc; ++i) {
            sc_out[i] = SENTINEL;
        }
        for (int i = 0; i < 5; ++i) {
            nb_in[i] = tc_val(rank, i, 60 + it);
            nb_out[i] = SENTINEL;
        }

        /* this rank's start order */
        int order[P_N];
        for (int k = 0; k < P_N; ++k) {
            int j = (k + rank + it) % P_N;
            order[k] = rank % 2 ? P_N - 1 - j : j;
        }
        int rc = MPI_SUCCESS, nbrc = MPI_SUCCESS;
        MPI_Request nbrq = MPI_REQUEST_NULL;
        if (it % 2) {
            MPI_Request perm[P_N];
            for (int k = 0; k < P_N; ++k) {
                perm[k] = rq[order[k]];
            }
            rc = MPI_Startall(P_N, perm); /* the handles stay the same */
            nbrc = MPI_Iallreduce(nb_in, nb_out, 5, MPI_INT, MPI_SUM, comm, &nbrq);
        } else {
            for (int k = 0; k < P_N && MPI_SUCCESS == rc; ++k) {
                rc = MPI_Start(&rq[order[k]]);
                if (k == P_N / 2) {
                    nbrc = MPI_Iallreduce(nb_in, nb_out, 5, MPI_INT, MPI_SUM, comm, &nbrq);
                }
            }
        }
        tc_expect(MPI_SUCCESS == rc && MPI_SUCCESS == nbrc, "start: error %d / %d", rc, nbrc);
        MPI_Status st[P_N];
        rc = MPI_Waitall(P_N, rq, st);
        if (MPI_SUCCESS == nbrc) {
            MPI_Wait(&nbrq, MPI_STATUS_IGNORE);
        }
        tc_expect(MPI_SUCCESS == rc, "MPI_Waitall: error %d", rc);
        if (MPI_ERR_IN_STATUS == rc) {
            for (int k = 0; k < P_N; ++k) {
                tc_expect(MPI_SUCCESS == st[k].MPI_ERROR, "request %d: error %d", k,
                          st[k].MPI_ERROR);
            }
        }
        for (int k = 0; k < P_N; ++k) {
            tc_expect(MPI_REQUEST_NULL != rq[k], "request %d freed by the wait", k);
        }

        /* serial references */
        int *want = tc_alloc(nar > total ? (nar > nsc * n ? nar : nsc * n) : total);
        for (int i = 0; i < nb0; ++i) {
            want[i] = tc_val(root0, i, 10 + it);
        }
        tc_expect_ints(b0, want, nb0, "bcast from 0");
        for (int i = 0; i < nb1; ++i) {
            want[i] = tc_val(root1, i, 20 + it);
        }
        tc_expect_ints(b1, want, nb1, "bcast from n-1");
        for (int i = 0; i < nar; ++i) {
            int s = 0, m = tc_val(0, i, 30 + it);
            for (int r = 0; r < n; ++r) {
                s += tc_val(r, i, 30 + it);
                m = tc_val(r, i, 30 + it) > m ? tc_val(r, i, 30 + it) : m;
            }
            want[i] = s;
            ar_in[i] = m; /* (the input is no longer needed) */
        }
        tc_expect_ints(ar_sum, want, nar, "allreduce sum");
        tc_expect_ints(ar_max, ar_in, nar, "allreduce max");
        if (rank == gvroot) {
            for (int r = 0; r < n; ++r) {
                for (int i = 0; i < rcounts[r]; ++i) {
                    want[displs[r] + i] = tc_val(r, i, 40 + it);
                }
                want[displs[r] + rcounts[r]] = SENTINEL;
            }
            tc_expect_ints(gv_out, want, total, "gatherv at its root");
        }
        for (int i = 0; i < nsc; ++i) {
            want[i] = tc_val(scroot, rank * nsc + i, 50 + it);
        }
        tc_expect_ints(sc_out, want, nsc, "scatter");
        for (int i = 0; i < 5; ++i) {
            want[i] = 0;
            for (int r = 0; r < n; ++r) {
                want[i] += tc_val(r, i, 60 + it);
            }
        }
        tc_expect_ints(nb_out, want, 5, "iallreduce between the starts");
        free(want);
    }
    for (int k = 0; k < P_N; ++k) {
        MPI_Request_free(&rq[k]);
    }
    free(b0), free(b1), free(ar_in), free(ar_sum), free(ar_max), free(rcounts), free(displs);
    free(gv_in), free(gv_out), free(sc_in), free(sc_out), free(nb_in), free(nb_out);
}

/* The same on an intercommunicator (the first third of MPI_COMM_WORLD
 * against the rest): a bcast from each group's rank 0, an allreduce, a
 * barrier and a gather to group 1's rank 0, initialized alike, started in
 * reverse on odd world ranks, restarted; results come from the remote
 * group. */
static void run_inter(int rounds)
{
    int wr, wn;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    if (wn < 2) {
        return;
    }
    int k = wn / 3 > 0 ? wn / 3 : 1, g = wr >= k, lr = g ? wr - k : wr;
    int nl = g ? wn - k : k, nr = wn - nl, rbase = g ? 0 : k; /* remote world ranks */
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, g, wr, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, g ? 0 : k, 9, &ic);
    MPI_Comm_free(&local);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    enum { B0, B1, AR, BAR, GA, NI };
    int b0[9], b1[8], ain[6], aout[6], gin[3], *gout = tc_alloc(3L * wn);
    /* b0: from group 0's rank 0 to group 1; b1: from group 1's rank 0 to group 0 */
    int r0 = 0 == g ? (0 == lr ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int r1 = 1 == g ? (0 == lr ? MPI_ROOT : MPI_PROC_NULL) : 0;
    int rg = 1 == g ? (0 == lr ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Request rq[NI];
    MPIX_Bcast_init(b0, 9, MPI_INT, r0, ic, MPI_INFO_NULL, &rq[B0]);
    MPIX_Bcast_init(b1, 8, MPI_INT, r1, ic, MPI_INFO_NULL, &rq[B1]);
    MPIX_Allreduce_init(ain, aout, 6, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &rq[AR]);
    MPIX_Barrier_init(ic, MPI_INFO_NULL, &rq[BAR]);
    MPIX_Gather_init(gin, 3, MPI_INT, gout, 3, MPI_INT, rg, ic, MPI_INFO_NULL, &rq[GA]);
    for (int it = 0; it < rounds; ++it) {
        tc_at("intercommunicator: persistent round %d", it);
        for (int i = 0; i < 9; ++i) {
            b0[i] = MPI_ROOT == r0 ? tc_val(wr, i, it) : SENTINEL;
            b1[i % 8] = MPI_ROOT == r1 ? tc_val(wr, i % 8, it + 50) : SENTINEL;
        }
        for (int i = 0; i < 6; ++i) {
            ain[i] = tc_val(wr, i, it + 100);
            aout[i] = SENTINEL;
        }
        for (int i = 0; i < 3; ++i) {
            gin[i] = tc_val(wr, i, it + 150);
        }
        for (int i = 0; i < 3 * wn; ++i) {
            gout[i] = SENTINEL;
        }
        int rc = MPI_SUCCESS;
        for (int j = 0; j < NI && MPI_SUCCESS == rc; ++j) {
            int x = (j + it) % NI;
            rc = MPI_Start(&rq[wr % 2 ? NI - 1 - x : x]);
        }
        tc_expect(MPI_SUCCESS == rc, "start: error %d", rc);
        rc = MPI_Waitall(NI, rq, MPI_STATUSES_IGNORE);
        tc_expect(MPI_SUCCESS == rc, "MPI_Waitall: error %d", rc);
        int want[9];
        if (1 == g) {
            for (int i = 0; i < 9; ++i) {
                want[i] = tc_val(0, i, it); /* group 0's rank 0 is world 0 */
            }
            tc_expect_ints(b0, want, 9, "bcast from group 0");
        } else {
            for (int i = 0; i < 8; ++i) {
                want[i] = tc_val(k, i, it + 50);
            }
            tc_expect_ints(b1, want, 8, "bcast from group 1");
        }
        for (int i = 0; i < 6; ++i) {
            want[i] = 0;
            for (int j = 0; j < nr; ++j) {
                want[i] += tc_val(rbase + j, i, it + 100);
            }
        }
        tc_expect_ints(aout, want, 6, "allreduce of the remote group");
        if (1 == g && 0 == lr) {
            int *gw = tc_alloc(3L * wn);
            for (int j = 0; j < nr; ++j) {
                for (int i = 0; i < 3; ++i) {
                    gw[3 * j + i] = tc_val(rbase + j, i, it + 150);
                }
            }
            tc_expect_ints(gout, gw, 3L * wn, "gather at group 1's rank 0");
            free(gw);
        }
    }
    (void) nl;
    for (int j = 0; j < NI; ++j) {
        MPI_Request_free(&rq[j]);
    }
    free(gout);
    MPI_Comm_free(&ic);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : 6;
    run_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD", rounds);
    /* a split with reversed ranks: other roots, other peers */
    int wr, wn;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    MPI_Comm_size(MPI_COMM_WORLD, &wn);
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, wn - wr, &rev);
    run_comm(rev, "reversed split", rounds);
    MPI_Comm_free(&rev);
    run_inter(rounds);
    return tc_finish("t_persist");
}
