/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Communicators: 1,000 create/use/free cycles (dup and split, blocking,
 * nonblocking and persistent collectives on each), per-communicator info
 * keys that choose an algorithm, the fallback or a decomposition criterion
 * (and bad ones, which must be reported and ignored), a communicator
 * freed while a nonblocking collective on it is still in flight, and one
 * left for MPI_Finalize to free.
 *
 * Usage: t_comms [cycles] [--no-free-in-flight]
 * (Open MPI 4.1.4's libnbc does not keep a freed communicator alive for its
 * pending requests and crashes on the last case: skip it when hiercoll is
 * not the component serving the nonblocking collectives.)
 */
#include "t_common.h"

static void check_comm(MPI_Comm comm, int salt)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int in[3], out[3], bc[3], want[3] = {0, 0, 0};
    for (int i = 0; i < 3; ++i) {
        in[i] = tc_val(rank, i, salt);
        bc[i] = rank == n / 2 ? tc_val(n / 2, i, salt) : 0;
        for (int r = 0; r < n; ++r) {
            want[i] += tc_val(r, i, salt);
        }
    }
    MPI_Allreduce(in, out, 3, MPI_INT, MPI_SUM, comm);
    tc_expect_ints(out, want, 3, "allreduce");
    MPI_Request rq;
    MPI_Ibcast(bc, 3, MPI_INT, n / 2, comm, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < 3; ++i) {
        want[i] = tc_val(n / 2, i, salt);
    }
    tc_expect_ints(bc, want, 3, "ibcast");
    MPIX_Barrier_init(comm, MPI_INFO_NULL, &rq);
    MPI_Start(&rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Request_free(&rq);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    int cycles = argc > 1 ? atoi(argv[1]) : 1000;
    int free_in_flight = !(argc > 2 && 0 == strcmp(argv[2], "--no-free-in-flight"));
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    tc_at("create/free cycles");
    for (int c = 0; c < cycles; ++c) {
        MPI_Comm comm;
        if (c % 3 == 2) {
            MPI_Comm_split(MPI_COMM_WORLD, (rank + c) % 2, (c % 5) - rank, &comm);
        } else {
            MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        }
        check_comm(comm, c);
        MPI_Comm_free(&comm);
    }

    /* info keys: an algorithm per communicator, the fallback, a bad name */
    const char *keys[][2] = {
        {"hiercoll_bcast_algorithm", "linear"},
        {"hiercoll_allreduce_algorithm", "fallback"},
        {"hiercoll_barrier_algorithm", "linear"},
        {"hiercoll_bcast_algorithm", "no_such_algorithm"},
        {"hiercoll_decomp_criterion", "block:2"},
        {"hiercoll_decomp_criterion", "block:0"},
    };
    for (int k = 0; k < (int) (sizeof(keys) / sizeof(keys[0])); ++k) {
        tc_at("info %s=%s", keys[k][0], keys[k][1]);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, keys[k][0], keys[k][1]);
        MPI_Comm comm;
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
        MPI_Info_free(&info);
        check_comm(comm, 1000 + k);
        MPI_Comm_free(&comm);
    }

    /* freed with a collective in flight: the collective still completes */
    tc_at("free in flight");
    if (free_in_flight) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        int in = rank + 1, out = 0;
        MPI_Request rq;
        MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, comm, &rq);
        MPI_Comm_free(&comm);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        tc_expect(out == n * (n + 1) / 2, "iallreduce on a freed communicator gave %d", out);
    }

    /* left to MPI_Finalize, which releases communicators in cid order:
     * `kept` is decomposed (by its info key) after `hole` is freed, so its
     * parts take the lower cid that `hole` left */
    tc_at("left to finalize");
    MPI_Comm hole, kept;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hiercoll_decomp_criterion", "block:2");
    MPI_Comm_dup(MPI_COMM_WORLD, &hole);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &kept);
    MPI_Info_free(&info);
    MPI_Comm_free(&hole);
    check_comm(kept, 2000);
    return tc_finish("t_comms");
}
