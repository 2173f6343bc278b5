/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The fast path of small blocking calls (coll_hiercoll_fast.c): repeated
 * bcast, reduce, allreduce and barrier calls whose arguments match the
 * previous call of the collective reuse its plan and binding.  Checks,
 * against serial references, that
 *   - results stay right when only the buffers change (two buffer sets
 *     alternate), and when count, datatype, op, root or MPI_IN_PLACE
 *     change between calls (each change must leave the fast path);
 *   - ranks may take different paths for the same call: half of them pass
 *     a derived datatype (never fast) of the same signature as the others'
 *     predefined one, so their messages must match whatever path sent them;
 *   - nonblocking collectives in flight on the same communicator do not
 *     match the blocking calls' messages (the blocking tags are fixed);
 *     --no-inflight leaves them out (the shared-memory level's lean
 *     blocking calls go straight only where its channel is idle);
 *   - a rank late now and then (rank 0, at an allreduce and a barrier)
 *     makes the others wait past their spin (a lean call then hands its
 *     operation to the engine).
 *
 * Usage: t_fast [ITERATIONS] [--no-inflight] [--info KEY=VALUE]...  (info
 * keys for the tested communicator, e.g. hiercoll_bcast_algorithm=binomial)
 */
#include "t_common.h"

/* Keep this rank busy (not in MPI) for `seconds`. */
static void busy_for(double seconds)
{
    for (double until = hc_host_clock() + seconds; hc_host_clock() < until;) {
    }
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    int iters = 300, rank, np, inflight = 1;
    MPI_Info info;
    MPI_Info_create(&info);
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--info") && i + 1 < argc) {
            char kv[256];
            snprintf(kv, sizeof(kv), "%s", argv[++i]);
            char *eq = strchr(kv, '=');
            if (eq) {
                *eq = 0;
                MPI_Info_set(info, kv, eq + 1);
            }
        } else if (0 == strcmp(argv[i], "--no-inflight")) {
            inflight = 0;
        } else {
            iters = atoi(argv[i]);
        }
    }
    MPI_Comm comm;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
    MPI_Info_free(&info);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &np);

    MPI_Datatype pair; /* two ints: the signature of count 2 of MPI_INT */
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);

    enum { MAXC = 1024 };
    int *buf[2], *out[2], want[MAXC], nb_in = 0, nb_out = 0;
    for (int b = 0; b < 2; ++b) {
        buf[b] = malloc(sizeof(int) * MAXC);
        out[b] = malloc(sizeof(int) * MAXC);
    }
    static const int counts[] = {2, 2, 12, 1000, 2, 16, 8, 8}; /* 8 to 64 bytes, 4000 */
    for (int it = 0; it < iters; ++it) {
        int b = it % 2, count = counts[(it / 4) % 8], root = (it / 16) % np;
        int odd = rank % 2 && 0 == (it / 32) % 2; /* derived type on odd ranks */
        MPI_Op op = (it / 8) % 3 ? MPI_SUM : MPI_MAX;
        int in_place = 0 == (it / 64) % 2 && (it / 4) % 2;
        MPI_Request rq = MPI_REQUEST_NULL;
        /* a nonblocking allreduce in flight across the blocking calls */
        nb_in = rank + it;
        if (inflight) {
            MPI_Iallreduce(&nb_in, &nb_out, 1, MPI_INT, MPI_SUM, comm, &rq);
        }

        /* bcast */
        tc_at("iteration %d: bcast count %d root %d%s", it, count, root, odd ? " (pairs)" : "");
        for (int i = 0; i < count; ++i) {
            want[i] = tc_val(root, i, it);
            buf[b][i] = rank == root ? want[i] : SENTINEL;
        }
        if (odd && 0 == count % 2) {
            MPI_Bcast(buf[b], count / 2, pair, root, comm);
        } else {
            MPI_Bcast(buf[b], count, MPI_INT, root, comm);
        }
        tc_expect_ints(buf[b], want, count, "bcast result");

        /* allreduce */
        tc_at("iteration %d: allreduce count %d%s%s", it, count, in_place ? " in place" : "",
              op == MPI_MAX ? " max" : " sum");
        for (int i = 0; i < count; ++i) {
            want[i] = op == MPI_MAX ? -100000 : 0;
            for (int r = 0; r < np; ++r) {
                int v = tc_val(r, i, it);
                want[i] = op == MPI_MAX ? (v > want[i] ? v : want[i]) : want[i] + v;
            }
            buf[b][i] = tc_val(rank, i, it);
            out[b][i] = in_place ? buf[b][i] : SENTINEL;
        }
        if (0 == it % 50 && 0 == rank) { /* late now and then: the others wait long */
            busy_for(0.005);
        }
        MPI_Allreduce(in_place ? MPI_IN_PLACE : buf[b], out[b], count, MPI_INT, op, comm);
        tc_expect_ints(out[b], want, count, "allreduce result");

        /* reduce */
        tc_at("iteration %d: reduce count %d root %d%s", it, count, root,
              in_place ? " in place" : "");
        for (int i = 0; i < count; ++i) {
            buf[b][i] = tc_val(rank, i, it);
            out[b][i] = in_place && rank == root ? buf[b][i] : SENTINEL;
        }
        MPI_Reduce(in_place && rank == root ? MPI_IN_PLACE : buf[b], out[b], count, MPI_INT, op,
                   root, comm);
        if (rank == root) {
            tc_expect_ints(out[b], want, count, "reduce result");
        }

        /* barrier: nobody leaves before rank 0, late now and then, entered
         * (one host: hc_host_clock() is one clock for all ranks; Open MPI
         * 5.0's MPI_Wtime counts from each process's start) */
        tc_at("iteration %d: barrier", it);
        int late = 0 == it % 50;
        double entered = hc_host_clock();
        if (late && 0 == rank) {
            busy_for(0.01);
            entered = hc_host_clock();
        }
        MPI_Barrier(comm);
        double left = hc_host_clock();
        if (late) {
            if (0 == rank) {
                for (int r = 1; r < np; ++r) {
                    MPI_Send(&entered, 1, MPI_DOUBLE, r, 6, MPI_COMM_WORLD);
                }
            } else {
                MPI_Recv(&entered, 1, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            tc_expect(left >= entered, "barrier left %.6f s before rank 0 entered it",
                      entered - left);
        }

        if (inflight) {
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            tc_at("iteration %d: iallreduce in flight", it);
            tc_expect(nb_out == np * (np - 1) / 2 + np * it, "iallreduce: %d, want %d", nb_out,
                      np * (np - 1) / 2 + np * it);
        }
    }
    MPI_Type_free(&pair);
    MPI_Comm_free(&comm);
    for (int b = 0; b < 2; ++b) {
        free(buf[b]);
        free(out[b]);
    }
    return tc_finish("t_fast");
}
