/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The slot walker: for MPI_COMM_WORLD, a dup of it, MPI_COMM_SELF, a
 * Cartesian communicator and (with --inter) an intercommunicator made by
 * MPI_Intercomm_create from a split, walk EVERY function pointer of the
 * communicator's collective table (Open MPI 4.1's
 * mca_coll_base_comm_coll_t: blocking, nonblocking, persistent,
 * neighborhood in the three modes, and reduce_local) and name the
 * component that serves each slot ("hiercoll>basic": hiercoll's entry point,
 * with basic's function below it for the calls hiercoll passes on;
 * "hiercoll": hiercoll's plans only, nothing below).  Any empty slot fails, except the ones
 * MPI does not define on intercommunicators (scan and exscan in every
 * mode), which Open MPI itself leaves empty there.  Rank 0 prints one
 * table, a row per slot and a column per communicator.
 *
 * Built with Open MPI's internal headers, like the component (the table's
 * layout has no ABI promise: the test is compiled against the headers of
 * the Open MPI it runs on).
 *
 * Usage: t_slots [--inter]
 */
#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "coll_hiercoll_compat.h"
#include "ompi/communicator/communicator.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/mca/coll/coll.h"

typedef struct slot {
    const char *name;
    size_t fn, module; /* in the communicator's table */
    size_t module_fn;  /* in a module */
    bool intra_only;   /* MPI defines it on intracommunicators only */
    bool optional;     /* no coll list must fill it (Open MPI 5.0's agree) */
} slot_t;

#define SLOT(f, intra)                                                                             \
    {                                                                                              \
        #f, offsetof(mca_coll_base_comm_coll_t, coll_##f),                                        \
            offsetof(mca_coll_base_comm_coll_t, coll_##f##_module),                                \
            offsetof(mca_coll_base_module_t, coll_##f), intra                                      \
    }

static const slot_t slots[] = {
    /* blocking, then nonblocking, then persistent (the table's order) */
    SLOT(allgather, false), SLOT(allgatherv, false), SLOT(allreduce, false),
    SLOT(alltoall, false), SLOT(alltoallv, false), SLOT(alltoallw, false), SLOT(barrier, false),
    SLOT(bcast, false), SLOT(exscan, true), SLOT(gather, false), SLOT(gatherv, false),
    SLOT(reduce, false), SLOT(reduce_scatter, false), SLOT(reduce_scatter_block, false),
    SLOT(scan, true), SLOT(scatter, false), SLOT(scatterv, false),
    SLOT(iallgather, false), SLOT(iallgatherv, false), SLOT(iallreduce, false),
    SLOT(ialltoall, false), SLOT(ialltoallv, false), SLOT(ialltoallw, false),
    SLOT(ibarrier, false), SLOT(ibcast, false), SLOT(iexscan, true), SLOT(igather, false),
    SLOT(igatherv, false), SLOT(ireduce, false), SLOT(ireduce_scatter, false),
    SLOT(ireduce_scatter_block, false), SLOT(iscan, true), SLOT(iscatter, false),
    SLOT(iscatterv, false),
    SLOT(allgather_init, false), SLOT(allgatherv_init, false), SLOT(allreduce_init, false),
    SLOT(alltoall_init, false), SLOT(alltoallv_init, false), SLOT(alltoallw_init, false),
    SLOT(barrier_init, false), SLOT(bcast_init, false), SLOT(exscan_init, true),
    SLOT(gather_init, false), SLOT(gatherv_init, false), SLOT(reduce_init, false),
    SLOT(reduce_scatter_init, false), SLOT(reduce_scatter_block_init, false),
    SLOT(scan_init, true), SLOT(scatter_init, false), SLOT(scatterv_init, false),
    /* neighborhood collectives, blocking, nonblocking, persistent (MPI
     * rejects them on intercommunicators, which have no topology) */
    SLOT(neighbor_allgather, true), SLOT(neighbor_allgatherv, true),
    SLOT(neighbor_alltoall, true), SLOT(neighbor_alltoallv, true),
    SLOT(neighbor_alltoallw, true),
    SLOT(ineighbor_allgather, true), SLOT(ineighbor_allgatherv, true),
    SLOT(ineighbor_alltoall, true), SLOT(ineighbor_alltoallv, true),
    SLOT(ineighbor_alltoallw, true),
    SLOT(neighbor_allgather_init, true), SLOT(neighbor_allgatherv_init, true),
    SLOT(neighbor_alltoall_init, true), SLOT(neighbor_alltoallv_init, true),
    SLOT(neighbor_alltoallw_init, true),
    SLOT(reduce_local, false),
    /* the slots only Open MPI 5.0 has (coll_hiercoll_compat.h): the
     * agreement of ULFM, which the selection does not require */
#define OPTIONAL_SLOT(f)                                                                           \
    {#f,                                                                                           \
     offsetof(mca_coll_base_comm_coll_t, coll_##f),                                                \
     offsetof(mca_coll_base_comm_coll_t, coll_##f##_module),                                       \
     offsetof(mca_coll_base_module_t, coll_##f),                                                   \
     false,                                                                                        \
     true},
    HC_COLL_OPTIONAL_SLOTS(OPTIONAL_SLOT)
};
#define NSLOTS ((int) (sizeof(slots) / sizeof(slots[0])))
#define MAXCOMMS 6

static char served[MAXCOMMS][NSLOTS][48];
static const char *comm_label[MAXCOMMS];
static int ncomms, failures, world_rank;

/* Who serves slot i: the component that owns its module, from the
 * communicator's list of enabled modules, and, when that component keeps
 * the layer below it (hiercoll), the highest-priority component below it
 * that provides the slot too: "hiercoll>basic" (hiercoll's auto may pass
 * calls on to basic) or "hiercoll" alone (only hiercoll's plans). */
static const char *serving(ompi_communicator_t *comm, mca_coll_base_module_t *module, int i,
                           char *buf, size_t len)
{
    mca_coll_base_avail_coll_t *item, *owner = NULL, *below = NULL;
    if (NULL == comm->c_coll || NULL == comm->c_coll->module_list) {
        return "?";
    }
    OPAL_LIST_FOREACH(item, comm->c_coll->module_list, mca_coll_base_avail_coll_t) {
        if (item->ac_module == module) {
            owner = item;
        }
    }
    if (NULL == owner) {
        return "?";
    }
    OPAL_LIST_FOREACH(item, comm->c_coll->module_list, mca_coll_base_avail_coll_t) {
        const char *m = (const char *) item->ac_module;
        if (item->ac_priority < owner->ac_priority
            && NULL != *(void *const *) (m + slots[i].module_fn)
            && (NULL == below || item->ac_priority > below->ac_priority)) {
            below = item;
        }
    }
    if (0 == strcmp(owner->ac_component_name, "hiercoll") && NULL != below) {
        snprintf(buf, len, "hiercoll>%s", below->ac_component_name);
    } else {
        snprintf(buf, len, "%s", owner->ac_component_name);
    }
    return buf;
}

static void walk(MPI_Comm c, const char *label)
{
    ompi_communicator_t *comm = (ompi_communicator_t *) c;
    bool inter = OMPI_COMM_IS_INTER(comm);
    int k = ncomms++;
    comm_label[k] = label;
    for (int i = 0; i < NSLOTS; ++i) {
        const char *base = (const char *) comm->c_coll;
        void *fn = *(void *const *) (base + slots[i].fn);
        mca_coll_base_module_t *mod = *(mca_coll_base_module_t *const *) (base + slots[i].module);
        if (NULL != fn) {
            const char *who = serving(comm, mod, i, served[k][i], sizeof(served[k][i]));
            if (who != served[k][i]) {
                snprintf(served[k][i], sizeof(served[k][i]), "%s", who);
            }
        } else if (inter && slots[i].intra_only) {
            snprintf(served[k][i], sizeof(served[k][i]), "(n/a: intra only)");
        } else if (slots[i].optional) {
            snprintf(served[k][i], sizeof(served[k][i]), "(none: optional)");
        } else {
            snprintf(served[k][i], sizeof(served[k][i]), "EMPTY");
            failures++;
            printf("FAIL [rank %d] %s: slot %s is empty\n", world_rank, label, slots[i].name);
        }
    }
}

int main(int argc, char **argv)
{
    bool with_inter = argc > 1 && 0 == strcmp(argv[1], "--inter");
    MPI_Init(&argc, &argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);

    MPI_Comm dup, cart, half = MPI_COMM_NULL, inter = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(n, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    walk(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    walk(dup, "dup");
    walk(MPI_COMM_SELF, "MPI_COMM_SELF");
    walk(cart, "cart");

    if (with_inter) {
        if (n < 2) {
            printf("t_slots: --inter needs 2 processes or more\n");
            failures++;
        } else {
            /* errors come back: a creation that fails is reported here */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int color = world_rank < (n + 1) / 2;
            MPI_Comm_split(MPI_COMM_WORLD, color, world_rank, &half);
            MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
            int remote = color ? (n + 1) / 2 : 0;
            int rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote, 77, &inter);
            if (MPI_SUCCESS != rc) {
                char msg[MPI_MAX_ERROR_STRING];
                int len = 0;
                MPI_Error_string(rc, msg, &len);
                printf("FAIL [rank %d] intercommunicator: MPI_Intercomm_create failed (%s): the "
                       "selected components leave an intercommunicator slot empty\n",
                       world_rank, msg);
                failures++;
            } else {
                walk(inter, "intercomm");
            }
        }
    }

    if (0 == world_rank) {
        printf("t_slots: every slot and the component serving it (np %d)\n", n);
        printf("| slot |");
        for (int k = 0; k < ncomms; ++k) {
            printf(" %s |", comm_label[k]);
        }
        printf("\n| --- |");
        for (int k = 0; k < ncomms; ++k) {
            printf(" --- |");
        }
        printf("\n");
        for (int i = 0; i < NSLOTS; ++i) {
            printf("| %s |", slots[i].name);
            for (int k = 0; k < ncomms; ++k) {
                printf(" %s |", served[k][i]);
            }
            printf("\n");
        }
    }
    /* point-to-point only from here: report every rank's failures */
    long total = failures;
    if (0 == world_rank) {
        for (int r = 1; r < n; ++r) {
            int f;
            MPI_Recv(&f, 1, MPI_INT, r, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += f;
        }
        printf("t_slots: np %d: %d communicators, %d slots each, %ld failures\n", n, ncomms, NSLOTS,
               total);
    } else {
        MPI_Send(&failures, 1, MPI_INT, 0, 999, MPI_COMM_WORLD);
    }
    if (MPI_COMM_NULL != inter) {
        MPI_Comm_free(&inter);
    }
    if (MPI_COMM_NULL != half) {
        MPI_Comm_free(&half);
    }
    MPI_Comm_free(&cart);
    MPI_Comm_free(&dup);
    MPI_Finalize();
    return total > 0 ? 1 : 0;
}
