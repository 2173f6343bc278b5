/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_bench: OSU-style latency of one collective, hiercoll against other
 * coll components, side by side in ONE job.
 *
 * Every contender gets its own duplicate of MPI_COMM_WORLD whose info key
 * "ompi_comm_coll_preference" puts that component on top (hiercoll for the
 * first, e.g. "tuned" for the second), so they run on the same processes,
 * the same placement and the same moment.  Sizes are swept; for each size
 * the contenders are timed in alternating trials (A B C A B C ...) to cancel
 * drift, each trial runs `iters` calls after a warm-up, and the latency of
 * a trial is the slowest rank's average per call.  The median trial is
 * reported with the ratio t(other)/t(hiercoll): above 1, hiercoll is faster.
 * Before timing, each contender's result is compared byte for byte with
 * hiercoll's.
 *
 *   mpirun -np 8 hc_bench --coll allreduce --against tuned,basic \
 *          --min 8 --max 1M --csv out.csv --png out.png
 *
 * Options:
 *   --coll NAME        bcast reduce allreduce barrier gather gatherv scatter
 *                      scatterv allgather allgatherv alltoall alltoallv
 *                      alltoallw (MPI_BYTE for every peer)
 *                      reduce_scatter reduce_scatter_block scan exscan
 *                      neighbor_allgather neighbor_alltoall (on a periodic
 *                      ring: every contender's communicator duplicates one
 *                      MPI_Cart_create of MPI_COMM_WORLD)
 *                      dup: a communicator's life: MPI_Comm_dup of the
 *                      contender's, 3 x (8-byte allreduce, bcast, barrier),
 *                      MPI_Comm_free (what a set-up costs a short-lived
 *                      communicator; no data: one row, as barrier;
 *                      blocking calls, with --nonblocking too)
 *                      comms: many communicators' lives: 16 duplicates of
 *                      the contender's alive at once, 1000 8-byte
 *                      allreduces on each in turn, then freed (what
 *                      set-ups cost communicators of a middling life, each
 *                      new where the others are; one row, as dup)
 *   --against LIST     components to compare with (tuned, basic, han, libnbc,
 *                      ...; "linear" means basic; Open MPI 6.0: xhc, acoll,
 *                      whose MCA parameters hc_bench sets, see peer_params);
 *                      each gets tuned below it and hiercoll excluded from
 *                      its communicator (and from the job's others: hiercoll's
 *                      priority 0, see peer_params); "default" is Open MPI's default
 *                      stack less hiercoll (preference "^hiercoll": han,
 *                      tuned... as Open MPI selects them); han declines a
 *                      communicator on one node (test/fake-nodes.sh)
 *   --min B --max B    bytes per rank (powers of two between; default 8..1M)
 *   --sizes L          bytes per rank, a comma-separated list instead (e.g. 8,48;
 *                      with --report too); sizes take K, M, G suffixes, at most
 *                      1G; barrier moves no data: one row (0 bytes), whatever
 *                      the sizes
 *   --iters N          calls per trial (default: scaled with the size)
 *   --trials N         trials per contender and size (default 7)
 *   --stat min|median  each contender's median trial (the default), or its
 *                      fastest (min: on a machine that others load, the
 *                      trials their bursts did not hit; say so with the figures)
 *   --root R           root of rooted collectives (default 0)
 *   --layout L         blocks of the v-collectives: "contiguous" (rank order,
 *                      back to back: the default) or "reversed" (descending
 *                      rank order: no two neighbours' blocks adjacent)
 *   --nonblocking      the i-form followed by MPI_Wait
 *   --info K=V         an info key for hiercoll's communicator (repeatable),
 *                      e.g. hiercoll_allreduce_algorithm=rhrd
 *   --variant L:K=V,.. one more hiercoll contender named L, whose communicator
 *                      takes these info keys (repeatable), e.g.
 *                      ucx-kary4:hiercoll_allreduce_algorithm=offload,
 *                      hiercoll_offload_backend=ucx,hiercoll_offload_tree=kary,
 *                      hiercoll_offload_radix=4
 *   --overlap          allreduce/reduce only: per contender, the nonblocking
 *                      call's latency t_call, then MPI_I<coll> + a compute
 *                      loop of about 2 t_call (no MPI call) + MPI_Wait:
 *                      overlap = 1 - (t_total - t_compute) / t_call
 *   --csv FILE         size,contender,latency_us,ratio rows
 *   --png FILE         a plot of the latencies (gnuplot)
 *   --report LIST      the administrator's table (see below): for each
 *                      collective of LIST (e.g. bcast,reduce,allreduce,barrier)
 *                      and each size, hiercoll with auto against the same
 *                      stack without hiercoll
 *   --algos LIST       with --report of one collective: hiercoll's algorithms
 *                      to time (one communicator each, info key
 *                      hiercoll_<coll>_algorithm), instead of auto
 *   --trial-ms T       with --report: milliseconds per trial (default 2)
 *   --control          with --report: also a second communicator without
 *                      hiercoll, timed and compared like hiercoll's (row
 *                      "control"): the ratios an idle difference gets on
 *                      this machine now, i.e. its noise
 *   --floor            with --report, barrier and allreduce, every rank on
 *                      one node: also the bare flag exchange through a
 *                      shared window (MPI_Win_allocate_shared; no MPI call
 *                      per exchange), timed in the same alternation (column
 *                      "floor"): each rank writes its own 64-byte line (the
 *                      allreduce's data, up to 48 bytes, beside the flag) and
 *                      waits for every other rank's, then sums the lines in
 *                      rank order.  No shared-memory barrier or allreduce
 *                      that waits for every rank's line can run a loop
 *                      faster, so its ratio (t(without) / t(floor), column
 *                      "ceiling") is the most any of them could gain here,
 *                      now; not part of the geometric means.  Larger
 *                      allreduces print "-"; with ranks on several nodes or
 *                      more ranks than cores, one line says there is none
 *   --help             this text
 *   --traffic K        no timing: make K calls of the collective at --min
 *                      bytes on the communicator of the LAST contender only
 *                      (hiercoll's when there is no --against) and print the
 *                      rank -> host map; contrib/hc_traffic.sh runs this under
 *                      Open MPI's pml monitoring with K calls and with none,
 *                      and subtracts, to count exactly what the calls sent.
 *
 * Report mode (--report): two duplicates of MPI_COMM_WORLD, one with
 * hiercoll on top ("ompi_comm_coll_preference=hiercoll", its auto choice)
 * and one with "ompi_comm_coll_preference=^hiercoll" (the stack as it is
 * without hiercoll).  Each trial times enough calls to last --trial-ms
 * (counted once per size, then fixed), the two communicators alternate
 * (A B, B A, ...), and per size the ratio is the median over the trials of
 * t(without) / t(hiercoll), each ratio from the two trials run back to
 * back (so that a load that comes and goes hits both): above 1, hiercoll
 * is faster.  It prints one line per size (median latencies, the ratio)
 * and then, per collective, the geometric mean of the ratios over the
 * sizes and the worst size.  --csv writes coll,np,bytes,candidate,
 * latency_us,ratio rows (contrib/hc_tune reads them).
 */
#include <math.h>
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXC 20

typedef struct contender {
    char name[32];
    MPI_Comm comm;
    double lat[64]; /* per size, microseconds */
    double ratio;   /* report mode: median of t(without) / t(this) over trial pairs */
    int ok[64];     /* result equal to hiercoll's */
    int floor;      /* report mode: the bare flag exchange (--floor), no communicator */
} contender_t;

typedef struct bench {
    const char *coll;
    const char *named; /* the --coll `kind` was resolved for (call) */
    int kind;
    int nonblocking, root, trials, iters_fixed, traffic;
    int reversed; /* --layout reversed */
    long min, max;
    int rank, size;
    /* buffers */
    char *sbuf, *rbuf, *check;
    int *counts, *displs;
    MPI_Datatype *types; /* alltoallw: MPI_BYTE for every peer */
    size_t cap;
} bench_t;

static void die(const char *msg)
{
    fprintf(stderr, "hc_bench: %s\n", msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static int is_reduction(const char *c)
{
    return !strcmp(c, "reduce") || !strcmp(c, "allreduce") || !strcmp(c, "reduce_scatter")
           || !strcmp(c, "reduce_scatter_block") || !strcmp(c, "scan") || !strcmp(c, "exscan");
}

/* Elements per rank for `bytes`: doubles for reductions, bytes otherwise. */
static int elems(const bench_t *b, long bytes)
{
    return is_reduction(b->coll) ? (int) (bytes / 8) : (int) bytes;
}

/* One call of the collective on comm.  The four timed most often at
 * small sizes are told apart without a string compare per call (a chain
 * of them cost tens of nanoseconds a call, on every stack alike: more
 * than a short bcast takes). */
enum { K_OTHER, K_BCAST, K_BARRIER, K_REDUCE, K_ALLREDUCE, K_DUP, K_COMMS };
#define HCB_COMMS 16       /* comms: communicators alive at once */
#define HCB_COMMS_CALLS 1000 /* comms: allreduces on each */

/* Collectives that move no data: one row (0 bytes). */
static int no_data(const char *c)
{
    return !strcmp(c, "barrier") || !strcmp(c, "dup") || !strcmp(c, "comms");
}
/* The info a contender's communicator was made with (an attribute of it),
 * for the duplicates of dup and comms: Open MPI 5.0's MPI_Comm_get_info
 * leaves ompi_comm_coll_preference out, so duplicates made with it took
 * the default stack, hiercoll included, on every contender. */
static int info_key = MPI_KEYVAL_INVALID;

static int info_delete(MPI_Comm comm, int key, void *val, void *extra)
{
    (void) comm;
    (void) key;
    (void) extra;
    MPI_Info_free((MPI_Info *) val);
    free(val);
    return MPI_SUCCESS;
}

static void info_keep(MPI_Comm comm, MPI_Info info)
{
    MPI_Info *kept = malloc(sizeof(*kept));
    if (NULL == kept) {
        return;
    }
    if (MPI_KEYVAL_INVALID == info_key) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, info_delete, &info_key, NULL);
    }
    MPI_Info_dup(info, kept);
    MPI_Comm_set_attr(comm, info_key, kept);
}

static void info_of(MPI_Comm comm, MPI_Info *info)
{
    MPI_Info *kept = NULL;
    int found = 0;
    if (MPI_KEYVAL_INVALID != info_key) {
        MPI_Comm_get_attr(comm, info_key, &kept, &found);
    }
    if (found) {
        MPI_Info_dup(*kept, info);
    } else {
        MPI_Comm_get_info(comm, info);
    }
}

static void call(bench_t *b, MPI_Comm comm, long bytes)
{
    if (b->named != b->coll) {
        const char *c = b->coll;
        b->kind = !strcmp(c, "bcast")       ? K_BCAST
                  : !strcmp(c, "barrier")   ? K_BARRIER
                  : !strcmp(c, "reduce")    ? K_REDUCE
                  : !strcmp(c, "allreduce") ? K_ALLREDUCE
                  : !strcmp(c, "dup")       ? K_DUP
                  : !strcmp(c, "comms")     ? K_COMMS
                                            : K_OTHER;
        b->named = b->coll;
    }
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Request *q = b->nonblocking ? &rq : NULL;
    char *s = b->sbuf, *r = b->rbuf;
#define GO(blocking, nonblocking) ((void) (q ? (nonblocking) : (blocking)))
    switch (b->kind) {
    case K_BCAST:
        GO(MPI_Bcast(r, (int) bytes, MPI_BYTE, b->root, comm),
           MPI_Ibcast(r, (int) bytes, MPI_BYTE, b->root, comm, q));
        break;
    case K_BARRIER:
        GO(MPI_Barrier(comm), MPI_Ibarrier(comm, q));
        break;
    case K_REDUCE:
        GO(MPI_Reduce(s, r, (int) (bytes / 8), MPI_DOUBLE, MPI_SUM, b->root, comm),
           MPI_Ireduce(s, r, (int) (bytes / 8), MPI_DOUBLE, MPI_SUM, b->root, comm, q));
        break;
    case K_ALLREDUCE:
        GO(MPI_Allreduce(s, r, (int) (bytes / 8), MPI_DOUBLE, MPI_SUM, comm),
           MPI_Iallreduce(s, r, (int) (bytes / 8), MPI_DOUBLE, MPI_SUM, comm, q));
        break;
    case K_DUP: { /* (with the contender's info: its stack; a plain dup
                   * drops ompi_comm_coll_preference in 4.1) */
        MPI_Comm d;
        MPI_Info info;
        double x = 1, y = 0;
        info_of(comm, &info);
        MPI_Comm_dup_with_info(comm, info, &d);
        MPI_Info_free(&info);
        for (int i = 0; i < 3; ++i) {
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d);
            MPI_Bcast(&y, 1, MPI_DOUBLE, 0, d);
            MPI_Barrier(d);
        }
        MPI_Comm_free(&d);
        break;
    }
    case K_COMMS: { /* (blocking calls, with --nonblocking too) */
        MPI_Comm d[HCB_COMMS];
        MPI_Info info;
        double x = 1, y = 0;
        info_of(comm, &info);
        for (int k = 0; k < HCB_COMMS; ++k) {
            MPI_Comm_dup_with_info(comm, info, &d[k]);
        }
        MPI_Info_free(&info);
        for (int k = 0; k < HCB_COMMS; ++k) {
            for (int i = 0; i < HCB_COMMS_CALLS; ++i) {
                MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, d[k]);
            }
        }
        for (int k = 0; k < HCB_COMMS; ++k) {
            MPI_Comm_free(&d[k]);
        }
        break;
    }
    default:
        break;
    }
    if (K_OTHER != b->kind) {
        if (q) {
            MPI_Wait(q, MPI_STATUS_IGNORE);
        }
        return;
    }
    int n = elems(b, bytes), p = b->size;
    const char *c = b->coll;
    if (!strcmp(c, "scan")) {
        GO(MPI_Scan(s, r, n, MPI_DOUBLE, MPI_SUM, comm),
           MPI_Iscan(s, r, n, MPI_DOUBLE, MPI_SUM, comm, q));
    } else if (!strcmp(c, "exscan")) {
        GO(MPI_Exscan(s, r, n, MPI_DOUBLE, MPI_SUM, comm),
           MPI_Iexscan(s, r, n, MPI_DOUBLE, MPI_SUM, comm, q));
    } else if (!strcmp(c, "reduce_scatter_block")) {
        GO(MPI_Reduce_scatter_block(s, r, n, MPI_DOUBLE, MPI_SUM, comm),
           MPI_Ireduce_scatter_block(s, r, n, MPI_DOUBLE, MPI_SUM, comm, q));
    } else if (!strcmp(c, "reduce_scatter")) {
        for (int i = 0; i < p; ++i) {
            b->counts[i] = n;
        }
        GO(MPI_Reduce_scatter(s, r, b->counts, MPI_DOUBLE, MPI_SUM, comm),
           MPI_Ireduce_scatter(s, r, b->counts, MPI_DOUBLE, MPI_SUM, comm, q));
    } else if (!strcmp(c, "gather")) {
        GO(MPI_Gather(s, n, MPI_BYTE, r, n, MPI_BYTE, b->root, comm),
           MPI_Igather(s, n, MPI_BYTE, r, n, MPI_BYTE, b->root, comm, q));
    } else if (!strcmp(c, "scatter")) {
        GO(MPI_Scatter(s, n, MPI_BYTE, r, n, MPI_BYTE, b->root, comm),
           MPI_Iscatter(s, n, MPI_BYTE, r, n, MPI_BYTE, b->root, comm, q));
    } else if (!strcmp(c, "allgather")) {
        GO(MPI_Allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm),
           MPI_Iallgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q));
    } else if (!strcmp(c, "alltoall")) {
        GO(MPI_Alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm),
           MPI_Ialltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q));
    } else if (!strcmp(c, "neighbor_allgather")) {
        GO(MPI_Neighbor_allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm),
           MPI_Ineighbor_allgather(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q));
    } else if (!strcmp(c, "neighbor_alltoall")) {
        GO(MPI_Neighbor_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm),
           MPI_Ineighbor_alltoall(s, n, MPI_BYTE, r, n, MPI_BYTE, comm, q));
    } else if (!strcmp(c, "gatherv") || !strcmp(c, "scatterv") || !strcmp(c, "allgatherv")
               || !strcmp(c, "alltoallv") || !strcmp(c, "alltoallw")) {
        for (int i = 0; i < p; ++i) {
            b->counts[i] = n;
            b->displs[i] = (b->reversed ? p - 1 - i : i) * n;
        }
        if (!strcmp(c, "gatherv")) {
            GO(MPI_Gatherv(s, n, MPI_BYTE, r, b->counts, b->displs, MPI_BYTE, b->root, comm),
               MPI_Igatherv(s, n, MPI_BYTE, r, b->counts, b->displs, MPI_BYTE, b->root, comm, q));
        } else if (!strcmp(c, "scatterv")) {
            GO(MPI_Scatterv(s, b->counts, b->displs, MPI_BYTE, r, n, MPI_BYTE, b->root, comm),
               MPI_Iscatterv(s, b->counts, b->displs, MPI_BYTE, r, n, MPI_BYTE, b->root, comm, q));
        } else if (!strcmp(c, "allgatherv")) {
            GO(MPI_Allgatherv(s, n, MPI_BYTE, r, b->counts, b->displs, MPI_BYTE, comm),
               MPI_Iallgatherv(s, n, MPI_BYTE, r, b->counts, b->displs, MPI_BYTE, comm, q));
        } else if (!strcmp(c, "alltoallw")) { /* byte displacements: the same with MPI_BYTE */
            GO(MPI_Alltoallw(s, b->counts, b->displs, b->types, r, b->counts, b->displs,
                             b->types, comm),
               MPI_Ialltoallw(s, b->counts, b->displs, b->types, r, b->counts, b->displs,
                              b->types, comm, q));
        } else {
            GO(MPI_Alltoallv(s, b->counts, b->displs, MPI_BYTE, r, b->counts, b->displs, MPI_BYTE,
                             comm),
               MPI_Ialltoallv(s, b->counts, b->displs, MPI_BYTE, r, b->counts, b->displs,
                              MPI_BYTE, comm, q));
        }
    } else {
        die("unknown --coll");
    }
#undef GO
    if (q) {
        MPI_Wait(q, MPI_STATUS_IGNORE);
    }
}

/* Bytes of the receive buffer a rank's result occupies. */
static size_t result_bytes(const bench_t *b, long bytes)
{
    const char *c = b->coll;
    size_t p = (size_t) b->size, n = (size_t) bytes;
    if (no_data(c)) {
        return 0;
    }
    if ((!strcmp(c, "gather") || !strcmp(c, "gatherv") || !strcmp(c, "reduce"))
        && b->rank != b->root) {
        return 0;
    }
    if (!strcmp(c, "gather") || !strcmp(c, "gatherv") || !strcmp(c, "allgather")
        || !strcmp(c, "allgatherv") || !strcmp(c, "alltoall") || !strcmp(c, "alltoallv")
        || !strcmp(c, "alltoallw")) {
        return p * n;
    }
    if (!strncmp(c, "neighbor_", 9)) {
        return 2 * n; /* the ring's two neighbors */
    }
    if (!strcmp(c, "reduce_scatter") || !strcmp(c, "reduce_scatter_block")) {
        return n / 8 * 8;
    }
    if (!strcmp(c, "exscan") && 0 == b->rank) {
        return 0;
    }
    return is_reduction(c) ? n / 8 * 8 : n;
}

static void fill(bench_t *b, long bytes)
{
    size_t total = (size_t) bytes * (size_t) b->size;
    double *d = (double *) b->sbuf;
    if (is_reduction(b->coll)) {
        for (size_t i = 0; i < total / 8; ++i) {
            d[i] = (double) ((b->rank * 31 + (int) i) % 97);
        }
    } else {
        for (size_t i = 0; i < total; ++i) {
            b->sbuf[i] = (char) (b->rank * 13 + (int) i);
        }
    }
    memset(b->rbuf, 0, total);
    if (!strcmp(b->coll, "bcast") && b->rank == b->root) {
        memcpy(b->rbuf, b->sbuf, (size_t) bytes);
    }
}

static void floor_call(bench_t *b, long bytes);

/* One call on comm, or (floor) one bare flag exchange (--floor). */
static inline void one(bench_t *b, MPI_Comm comm, long bytes, int floor)
{
    if (floor) {
        floor_call(b, bytes);
    } else {
        call(b, comm, bytes);
    }
}

/* Microseconds per call (the slowest rank's average) of `iters` calls
 * after two to warm up. */
static double trial_of(bench_t *b, MPI_Comm comm, long bytes, int iters, int floor)
{
    for (int i = 0; i < 2; ++i) {
        one(b, comm, bytes, floor); /* warm up */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
        one(b, comm, bytes, floor);
    }
    t = (MPI_Wtime() - t) / iters;
    double tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax * 1e6;
}

static double trial(bench_t *b, MPI_Comm comm, long bytes, int iters)
{
    return trial_of(b, comm, bytes, iters, 0);
}

/* --floor: the bare flag exchange (see the header), through lines in a
 * window of the node's shared memory: two per rank, by the parity of the
 * exchange's number (a rank writes line s mod 2 again for s + 2 only once
 * every rank has begun s + 1, so done reading it for s), each holding
 * the flag (the number) and up to HCB_FLOOR_DATA bytes. */
#define HCB_FLOOR_DATA 48
typedef struct floor_line {
    uint64_t seq;
    uint64_t pad;
    double data[HCB_FLOOR_DATA / 8];
} __attribute__((aligned(64))) floor_line_t;

static MPI_Win floor_win = MPI_WIN_NULL;
static floor_line_t **floor_lines; /* every rank's two lines, mapped here */
static uint64_t floor_seq;

static inline void floor_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/* The lines, where every rank of the job shares this node and has a core
 * of its own (a spinning floor of more ranks than cores measures the
 * scheduler); else NULL, with why, on every rank alike. */
static const char *floor_open(bench_t *b)
{
    MPI_Comm node;
    int nn, why[2], all[2];
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nn);
    why[0] = nn != b->size;
    why[1] = nn > sysconf(_SC_NPROCESSORS_ONLN);
    MPI_Allreduce(why, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all[0] || all[1]) {
        MPI_Comm_free(&node);
        return all[0] ? "not every rank shares this node" : "more ranks than cores on this node";
    }
    char *mine;
    /* (three lines' room: two aligned to a line wherever the segment starts) */
    MPI_Win_allocate_shared((MPI_Aint) (3 * sizeof(floor_line_t)), 1, MPI_INFO_NULL, node, &mine,
                            &floor_win);
    MPI_Comm_free(&node);
    floor_lines = malloc(sizeof(*floor_lines) * (size_t) b->size);
    if (NULL == floor_lines) {
        die("out of memory");
    }
    for (int r = 0; r < b->size; ++r) {
        MPI_Aint sz;
        int du;
        char *base;
        MPI_Win_shared_query(floor_win, r, &sz, &du, &base);
        floor_lines[r] = (floor_line_t *) (((uintptr_t) base + 63) & ~(uintptr_t) 63);
    }
    memset(floor_lines[b->rank], 0, 2 * sizeof(floor_line_t));
    MPI_Win_lock_all(MPI_MODE_NOCHECK, floor_win);
    MPI_Win_sync(floor_win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(floor_win);
    return NULL;
}

static void floor_close(void)
{
    if (MPI_WIN_NULL != floor_win) {
        MPI_Win_unlock_all(floor_win);
        MPI_Win_free(&floor_win);
        free(floor_lines);
    }
}

/* One exchange: my line (the data, then the flag), every other rank's
 * flag, then the sum of every line's data in rank order (the allreduce of
 * bytes/8 doubles; the barrier: none).  After 1000 polls it yields: an
 * oversubscribed job must let the rank it waits for run. */
static void floor_call(bench_t *b, long bytes)
{
    uint64_t s = ++floor_seq;
    size_t n = (size_t) bytes / 8;
    floor_line_t *l = &floor_lines[b->rank][s & 1];
    if (0 != n) {
        memcpy(l->data, b->sbuf, n * 8);
    }
    __atomic_store_n(&l->seq, s, __ATOMIC_RELEASE);
    for (int r = 0; r < b->size; ++r) {
        unsigned polls = 0;
        while (r != b->rank && __atomic_load_n(&floor_lines[r][s & 1].seq, __ATOMIC_ACQUIRE) < s) {
            if (++polls < 1000) {
                floor_relax();
            } else {
                sched_yield();
            }
        }
    }
    if (0 != n) {
        double *out = (double *) b->rbuf;
        const double *my = (const double *) b->sbuf;
        for (size_t i = 0; i < n; ++i) {
            double acc = 0 == b->rank ? my[i] : floor_lines[0][s & 1].data[i];
            for (int r = 1; r < b->size; ++r) {
                acc += r == b->rank ? my[i] : floor_lines[r][s & 1].data[i];
            }
            out[i] = acc;
        }
    }
}

/* --overlap: a compute loop of `work` steps (no MPI call). */
static volatile double sink;
static void compute(long work)
{
    double x = 1.0;
    for (long i = 0; i < work; ++i) {
        x = x * 1.0000001 + 1e-9;
    }
    sink = x;
}

/* Average seconds (slowest rank) of `iters` rounds of: start the
 * nonblocking collective (start != 0), compute `work` steps, wait. */
static double overlap_round(bench_t *b, MPI_Comm comm, long bytes, int iters, long work,
                            int start)
{
    int n = elems(b, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
        MPI_Request rq = MPI_REQUEST_NULL;
        if (start && !strcmp(b->coll, "reduce")) {
            MPI_Ireduce(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM, b->root, comm, &rq);
        } else if (start) {
            MPI_Iallreduce(b->sbuf, b->rbuf, n, MPI_DOUBLE, MPI_SUM, comm, &rq);
        }
        compute(work);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    t = (MPI_Wtime() - t) / iters;
    double tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

/* --stat min: each contender's fastest trial instead of the median (a
 * machine others load: the trials a burst of their work did not hit) */
static int stat_min;

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *) x, c = *(const double *) y;
    return a < c ? -1 : a > c;
}

/* Bytes with an optional K, M or G suffix; -1 for anything else or more
 * than 1G (a rank's buffers hold a block for every rank). */
static long parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s) {
        return -1;
    }
    switch (*end) {
    case 'k': case 'K': v *= 1024, ++end; break;
    case 'm': case 'M': v *= 1024 * 1024, ++end; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024, ++end; break;
    default: break;
    }
    return '\0' != *end || !(v >= 0) || v > 1024.0 * 1024 * 1024 ? -1 : (long) v;
}

/* What contenders duplicate: MPI_COMM_WORLD, or a periodic ring for the
 * neighborhood collectives. */
static MPI_Comm base_comm = MPI_COMM_NULL;

/* base_comm for collective `coll` (a ring made here: free_base frees it). */
static void set_base(const char *coll, int size)
{
    base_comm = MPI_COMM_WORLD;
    if (!strncmp(coll, "neighbor_", 9)) {
        int dims[1] = {size}, periods[1] = {1};
        MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &base_comm);
    }
}

static void free_base(void)
{
    if (MPI_COMM_WORLD != base_comm) {
        MPI_Comm_free(&base_comm);
    }
    base_comm = MPI_COMM_NULL;
}

static MPI_Comm contender_comm(const char *pref, char **infos, int ninfo)
{
    MPI_Info info;
    MPI_Comm c;
    MPI_Info_create(&info);
    MPI_Info_set(info, "ompi_comm_coll_preference", pref);
    for (int i = 0; i < ninfo; ++i) {
        char kv[512];
        snprintf(kv, sizeof(kv), "%s", infos[i]);
        char *eq = strchr(kv, '=');
        if (NULL == eq) {
            die("--info wants KEY=VALUE");
        }
        *eq = 0;
        MPI_Info_set(info, kv, eq + 1);
    }
    MPI_Comm_dup_with_info(base_comm, info, &c);
    info_keep(c, info);
    MPI_Info_free(&info);
    /* one blocking call before any timing: hiercoll makes a communicator's
     * parts (decomposition) and its shared-memory region at a blocking
     * call, never in a nonblocking one or a persistent init */
    MPI_Barrier(c);
    return c;
}

/* Buffers for sizes up to b->max per rank: a block for every rank, and
 * at least two (the ring's two neighbours, also at one process). */
static void alloc_buffers(bench_t *b)
{
    b->cap = (size_t) (b->max > 8 ? b->max : 8) * (size_t) (b->size > 2 ? b->size : 2);
    b->sbuf = malloc(b->cap);
    b->rbuf = malloc(b->cap);
    b->check = malloc(b->cap);
    b->counts = malloc(sizeof(int) * (size_t) b->size);
    b->displs = malloc(sizeof(int) * (size_t) b->size);
    b->types = malloc(sizeof(MPI_Datatype) * (size_t) b->size);
    if (!b->sbuf || !b->rbuf || !b->check || !b->counts || !b->displs || !b->types) {
        die("out of memory");
    }
    for (int i = 0; i < b->size; ++i) {
        b->types[i] = MPI_BYTE;
    }
}

/* ------------------------------------------------------------------ */
/* Report mode                                                          */
/* ------------------------------------------------------------------ */

static void usage(void)
{
    printf("usage: mpirun -np N hc_bench [--coll NAME] [--against LIST] [--min B] [--max B]\n"
           "         [--iters N] [--trials N] [--root R] [--layout contiguous|reversed]\n"
           "         [--nonblocking] [--info K=V]... [--csv FILE] [--png FILE] [--traffic K]\n"
           "         [--sizes B,B...] [--variant LABEL:K=V,K=V]... [--overlap]\n"
           "         [--stat min|median]\n"
           "       mpirun -np N hc_bench --report bcast,reduce,allreduce,barrier [--min B]\n"
           "         [--max B] [--sizes B,B...] [--trials N] [--trial-ms T] [--algos A,B]\n"
           "         [--control]\n"
           "         [--csv FILE]\n"
           "\n"
           "Latency of collectives, hiercoll against other stacks, side by side in one job\n"
           "(alternating trials, medians; ratio = t(other) / t(hiercoll), above 1: hiercoll\n"
           "is faster).  --report prints, per collective, the ratio against the same stack\n"
           "without hiercoll for every size from --min to --max (powers of two), their\n"
           "geometric mean and the worst size; --control adds the same for a second\n"
           "communicator without hiercoll (the noise).  Sizes take K, M, G suffixes.\n"
           "--algos (one collective) times the named hiercoll algorithms instead of auto.\n"
           "The options are described in the header of contrib/hc_bench.c.\n");
}

/* Calls per trial so that one trial lasts about `ms` on comm (rank 0's
 * count, the same on every rank). */
static int calibrate(bench_t *b, MPI_Comm comm, long bytes, double ms)
{
    int n = 1;
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < n; ++i) {
            call(b, comm, bytes);
        }
        t = MPI_Wtime() - t;
        double tmax;
        MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (tmax * 1e3 >= ms / 4 || n >= 1 << 20) {
            long want = (long) ((double) n * ms / fmax(tmax * 1e3, 1e-6));
            return (int) fmax(3, fmin((double) (1 << 22), (double) want));
        }
        n *= 4;
    }
}

static int report(bench_t *b, const char *list, const char *algos, double trial_ms, char **infos,
                  int ninfo, const char *csv, int control, int floor, const long *given, int ngiven)
{
    char colls[512], alist[512];
    snprintf(colls, sizeof(colls), "%s", list);
    snprintf(alist, sizeof(alist), "%s", algos ? algos : "");
    char *cname[32], *aname[MAXC - 1];
    int ncoll = 0, nalg = 0;
    char *save = NULL;
    for (char *t = strtok_r(colls, ",", &save); t && ncoll < 32; t = strtok_r(NULL, ",", &save)) {
        cname[ncoll++] = t;
    }
    /* (the candidates: fallback, the algorithms, the control: MAXC) */
    for (char *t = strtok_r(alist, ",", &save); t && nalg < MAXC - 2;
         t = strtok_r(NULL, ",", &save)) {
        aname[nalg++] = t;
    }
    if (0 == ncoll || (nalg > 0 && ncoll != 1)) {
        die("--report wants a list of collectives (--algos: exactly one)");
    }
    FILE *out = NULL;
    if (0 == b->rank && csv) {
        out = fopen(csv, "w");
        if (NULL == out) {
            die("cannot write the --csv file");
        }
        fprintf(out, "coll,np,bytes,candidate,latency_us,ratio\n");
    }
    /* [0]: hiercoll's best candidate, [1]: the control (without against
     * without: the machine's noise) */
    double gmean[2][32], worst[2][32];
    long worst_at[2][32];
    int all_ok = 1;
    if (0 == b->rank) {
        printf("# hc_bench report, np %d, %d trials per size (median), ratio = t(without "
               "hiercoll) / t(hiercoll)\n",
               b->size, b->trials);
    }
    const char *no_floor = floor ? floor_open(b) : NULL;
    if (NULL != no_floor) {
        if (0 == b->rank) {
            printf("# --floor: %s: no floor\n", no_floor);
        }
        floor = 0;
    }
    for (int ci = 0; ci < ncoll; ++ci) {
        b->coll = cname[ci];
        set_base(b->coll, b->size); /* (the neighborhood ones: a ring) */
        /* candidate 0: the stack without hiercoll; then hiercoll's auto, or
         * each of --algos */
        int nc = 0;
        contender_t *cs = calloc(MAXC, sizeof(contender_t));
        snprintf(cs[nc].name, sizeof(cs[nc].name), "fallback");
        cs[nc++].comm = contender_comm("^hiercoll", NULL, 0);
        if (0 == nalg) {
            snprintf(cs[nc].name, sizeof(cs[nc].name), "auto");
            cs[nc++].comm = contender_comm("hiercoll", infos, ninfo);
        }
        for (int a = 0; a < nalg; ++a) {
            char *kv[17], key[128];
            snprintf(key, sizeof(key), "hiercoll_%s_algorithm=%s", b->coll, aname[a]);
            for (int i = 0; i < ninfo; ++i) {
                kv[i] = infos[i];
            }
            kv[ninfo] = key;
            snprintf(cs[nc].name, sizeof(cs[nc].name), "%s", aname[a]);
            cs[nc++].comm = contender_comm("hiercoll", kv, ninfo + 1);
        }
        if (floor && (!strcmp(b->coll, "barrier") || !strcmp(b->coll, "allreduce"))) {
            snprintf(cs[nc].name, sizeof(cs[nc].name), "floor"); /* (before the control:
                                                                  * the control is last) */
            cs[nc].floor = 1;
            cs[nc++].comm = MPI_COMM_NULL;
        }
        if (control) {
            snprintf(cs[nc].name, sizeof(cs[nc].name), "control");
            cs[nc++].comm = contender_comm("^hiercoll", NULL, 0);
        }
        long lo = b->min, hi = b->max;
        if (no_data(b->coll)) {
            lo = hi = 0;
        } else if (is_reduction(b->coll) && lo < 8) {
            lo = 8;
        }
        /* the sizes: --min to --max by powers of two, or --sizes */
        long sweep[64];
        int nsweep = 0;
        for (int i = 0; i < ngiven && 0 != hi && nsweep < 64; ++i) {
            sweep[nsweep++] = is_reduction(b->coll) && given[i] < 8 ? 8 : given[i];
        }
        const int swept = 0 == nsweep;
        for (long bytes = lo; swept && bytes <= hi && nsweep < 64; bytes = bytes ? bytes * 2 : 1) {
            sweep[nsweep++] = bytes;
            if (0 == hi) {
                break;
            }
        }
        if (ngiven > 0 && 0 != hi) {
            lo = sweep[0];
        }
        double logsum[2] = {0, 0};
        int nsz = 0;
        worst[0][ci] = worst[1][ci] = 1e300;
        worst_at[0][ci] = worst_at[1][ci] = lo;
        if (0 == b->rank) {
            printf("## %s\n%10s", b->coll, "bytes");
            for (int c = 0; c < nc; ++c) {
                printf(" %12s", c ? cs[c].name : "without_us");
            }
            for (int c = 1; c < nc; ++c) {
                printf(" %12s", cs[c].floor ? "ceiling" : "ratio");
            }
            printf("\n");
        }
        for (int si = 0; si < nsweep; ++si) {
            long bytes = sweep[si];
            size_t rb = result_bytes(b, bytes);
            for (int c = 0; c < nc; ++c) {
                if (cs[c].floor) { /* (no result to compare: it sums plain doubles) */
                    cs[c].ok[0] = 1;
                    continue;
                }
                fill(b, bytes);
                call(b, cs[c].comm, bytes);
                if (0 == c) {
                    memcpy(b->check, b->rbuf, rb);
                }
                int ok = 0 == memcmp(b->check, b->rbuf, rb), all;
                MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
                cs[c].ok[0] = all;
                all_ok &= all;
            }
            int iters = b->iters_fixed > 0 ? b->iters_fixed
                                           : calibrate(b, cs[0].comm, bytes, trial_ms);
            double t[MAXC][64];
            for (int k = 0; k < b->trials; ++k) {
                for (int j = 0; j < nc; ++j) {
                    int c = k % 2 ? nc - 1 - j : j; /* A B, B A, ... */
                    t[c][k] = !cs[c].floor || bytes <= HCB_FLOOR_DATA
                                  ? trial_of(b, cs[c].comm, bytes, iters, cs[c].floor)
                                  : -1; /* (no floor: "-") */
                }
            }
            /* per candidate: the median over trials of t(without) / t(it),
             * each pair of trials run back to back (a load that comes and
             * goes hits both); latencies: medians */
            double pr[MAXC][64], ratio[2] = {0, 1};
            for (int c = 0; c < nc; ++c) {
                for (int k = 0; k < b->trials; ++k) {
                    pr[c][k] = t[c][k] > 0 ? t[0][k] / t[c][k] : -1;
                }
                qsort(pr[c], (size_t) b->trials, sizeof(double), cmp_double);
                cs[c].ratio = pr[c][b->trials / 2];
                qsort(t[c], (size_t) b->trials, sizeof(double), cmp_double);
                cs[c].lat[0] = t[c][stat_min ? 0 : b->trials / 2];
                if (stat_min) { /* (the fastest trials' ratio; t[0] sorted first) */
                    cs[c].ratio = t[c][0] > 0 ? t[0][0] / t[c][0] : -1;
                }
                if (control && c == nc - 1) {
                    ratio[1] = cs[c].ratio;
                } else if (c > 0 && !cs[c].floor) {
                    ratio[0] = fmax(ratio[0], cs[c].ratio);
                }
            }
            ++nsz;
            for (int i = 0; i < 2; ++i) {
                logsum[i] += log(ratio[i]);
                if (ratio[i] < worst[i][ci]) {
                    worst[i][ci] = ratio[i];
                    worst_at[i][ci] = bytes;
                }
            }
            if (0 == b->rank) {
                printf("%10ld", bytes);
                for (int c = 0; c < nc; ++c) {
                    if (cs[c].lat[0] > 0) {
                        printf(" %12.3f", cs[c].lat[0]);
                    } else {
                        printf(" %12s", "-");
                    }
                }
                for (int c = 1; c < nc; ++c) {
                    if (cs[c].ratio > 0) {
                        printf(" %11.3fx", cs[c].ratio);
                    } else {
                        printf(" %12s", "-");
                    }
                }
                for (int c = 1; c < nc; ++c) {
                    if (!cs[c].ok[0]) {
                        printf("  RESULT DIFFERS: %s", cs[c].name);
                    }
                }
                printf("\n");
                fflush(stdout);
                for (int c = 0; c < nc && out; ++c) {
                    if (cs[c].lat[0] <= 0) {
                        continue;
                    }
                    fprintf(out, "%s,%d,%ld,%s,%.4f,%.4f\n", b->coll, b->size, bytes,
                            cs[c].name, cs[c].lat[0], cs[c].ratio);
                }
            }
        }
        gmean[0][ci] = exp(logsum[0] / nsz);
        gmean[1][ci] = exp(logsum[1] / nsz);
        for (int c = 0; c < nc; ++c) {
            if (MPI_COMM_NULL != cs[c].comm) {
                MPI_Comm_free(&cs[c].comm);
            }
        }
        free(cs);
        free_base();
    }
    if (0 == b->rank) {
        printf("\n| np |");
        for (int ci = 0; ci < ncoll; ++ci) {
            printf(" %s |", cname[ci]);
        }
        printf("\n|---|");
        for (int ci = 0; ci < ncoll; ++ci) {
            printf("---|");
        }
        for (int i = 0; i <= control; ++i) {
            printf(i ? "\n| %d control |" : "\n| %d |", b->size);
            for (int ci = 0; ci < ncoll; ++ci) {
                if (no_data(cname[ci])) {
                    printf(" %.2f |", gmean[i][ci]);
                } else {
                    printf(" %.2f (worst %.2f at %ld B) |", gmean[i][ci], worst[i][ci],
                           worst_at[i][ci]);
                }
            }
        }
        printf("\n");
        if (out) {
            fclose(out);
        }
    }
    floor_close();
    return all_ok;
}

/* Peers that Open MPI 6.0 ships but leaves off by default, set up before
 * MPI_Init (their MCA parameters, unless the environment or the command
 * line sets them): xhc and acoll ask for priority 0 and so sit below
 * tuned; a contender's communicator puts them on top by its preference
 * anyway, but their comm_query must accept it.  acoll declines
 * communicators of fewer than 16 ranks (coll_acoll_comm_size_thresh).
 * xhc without XPMEM (no /dev/xpmem) moves data above its copy-in-copy-out
 * limit (4 KiB for reductions) by single-copy CMA, where its allreduce
 * fails here: copy-in-copy-out at every size instead (the largest size
 * of the run: --max, or the largest of --sizes).
 * With any --against, hiercoll's own priority is 0 for the job (unless set):
 * contenders that make sub-communicators of their own (han's levels,
 * acoll's subgroups) would otherwise get hiercoll (priority 40) on top of
 * those and time part of hiercoll under their names; hiercoll's
 * communicator still names it first (its preference), with the same stack
 * below it. */
static void peer_params(int argc, char **argv)
{
    const char *against = NULL;
    long max = 1 << 20, listed = -1;
    for (int i = 1; i + 1 < argc; ++i) {
        if (!strcmp(argv[i], "--against")) {
            against = argv[i + 1];
        } else if (!strcmp(argv[i], "--max")) {
            max = parse_size(argv[i + 1]);
        } else if (!strcmp(argv[i], "--sizes")) { /* (instead of the sweep: its largest) */
            char l[256], *sv = NULL;
            snprintf(l, sizeof(l), "%s", argv[i + 1]);
            for (char *t = strtok_r(l, ",", &sv); t; t = strtok_r(NULL, ",", &sv)) {
                long v = parse_size(t);
                listed = v > listed ? v : listed;
            }
        }
    }
    if (listed >= 0) {
        max = listed;
    }
    if (NULL == against) {
        return;
    }
    setenv("OMPI_MCA_coll_hiercoll_priority", "0", 0);
    char list[256], *save = NULL;
    snprintf(list, sizeof(list), "%s", against);
    for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "xhc")) {
            setenv("OMPI_MCA_coll_xhc_priority", "1", 0);
            if (0 != access("/dev/xpmem", F_OK)) {
                char v[32];
                snprintf(v, sizeof(v), "%ld", max > 4096 ? max : 4096);
                setenv("OMPI_MCA_coll_xhc_allreduce_cico_max", v, 0);
                setenv("OMPI_MCA_coll_xhc_reduce_cico_max", v, 0);
            }
        } else if (!strcmp(t, "acoll")) {
            setenv("OMPI_MCA_coll_acoll_priority", "1", 0);
            setenv("OMPI_MCA_coll_acoll_comm_size_thresh", "2", 0);
        }
    }
}

int main(int argc, char **argv)
{
    peer_params(argc, argv);
    MPI_Init(&argc, &argv);
    bench_t b = {.coll = "allreduce", .root = 0, .trials = 7, .min = 8, .max = 1 << 20,
                 .traffic = -1};
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.size);
    const char *against = NULL, *csv = NULL, *png = NULL, *report_list = NULL, *algos = NULL;
    double trial_ms = 2;
    int control = 0, floor = 0;
    char *infos[16], *variants[MAXC];
    int ninfo = 0, nvar = 0, overlap = 0;
    const char *size_list = NULL;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(a, "--coll")) {
            b.coll = v, ++i;
        } else if (!strcmp(a, "--against")) {
            against = v, ++i;
        } else if (!strcmp(a, "--min")) {
            b.min = parse_size(v), ++i;
        } else if (!strcmp(a, "--max")) {
            b.max = parse_size(v), ++i;
        } else if (!strcmp(a, "--iters")) {
            b.iters_fixed = atoi(v), ++i;
        } else if (!strcmp(a, "--trials")) {
            b.trials = atoi(v), ++i;
        } else if (!strcmp(a, "--root")) {
            b.root = atoi(v), ++i;
        } else if (!strcmp(a, "--layout") && (!strcmp(v, "contiguous") || !strcmp(v, "reversed"))) {
            b.reversed = !strcmp(v, "reversed"), ++i;
        } else if (!strcmp(a, "--nonblocking")) {
            b.nonblocking = 1;
        } else if (!strcmp(a, "--stat")) {
            if (strcmp(v, "min") && strcmp(v, "median")) {
                die("--stat: min or median");
            }
            stat_min = !strcmp(v, "min"), ++i;
        } else if (!strcmp(a, "--traffic")) {
            b.traffic = atoi(v), ++i;
        } else if (!strcmp(a, "--info") && ninfo < 16) {
            infos[ninfo++] = argv[++i];
        } else if (!strcmp(a, "--variant") && nvar < MAXC - 2) {
            variants[nvar++] = argv[++i];
        } else if (!strcmp(a, "--sizes")) {
            size_list = v, ++i;
        } else if (!strcmp(a, "--overlap")) {
            overlap = 1;
        } else if (!strcmp(a, "--csv")) {
            csv = v, ++i;
        } else if (!strcmp(a, "--png")) {
            png = v, ++i;
        } else if (!strcmp(a, "--report")) {
            report_list = v, ++i;
        } else if (!strcmp(a, "--algos")) {
            algos = v, ++i;
        } else if (!strcmp(a, "--control")) {
            control = 1;
        } else if (!strcmp(a, "--floor")) {
            floor = 1;
        } else if (!strcmp(a, "--trial-ms")) {
            trial_ms = atof(v), ++i;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (0 == b.rank) {
                usage();
            }
            MPI_Finalize();
            return 0;
        } else {
            if (0 == b.rank) {
                fprintf(stderr, "hc_bench: unknown option %s (try --help)\n", a);
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (b.root < 0 || b.root >= b.size || b.trials < 1 || b.trials > 64 || trial_ms <= 0) {
        die("--root, --trials (1-64) or --trial-ms out of range");
    }
    if (b.min < 0 || b.max < 0) {
        die("--min and --max want bytes (K, M, G suffixes; at most 1G)");
    }
    if (NULL != report_list) {
        long given[64];
        int ngiven = 0;
        if (NULL != size_list) { /* instead of the sweep; the largest sizes the buffers */
            char sl[512], *sv = NULL;
            snprintf(sl, sizeof(sl), "%s", size_list);
            b.max = 0;
            for (char *t = strtok_r(sl, ",", &sv); t && ngiven < 64; t = strtok_r(NULL, ",", &sv)) {
                if ((given[ngiven] = parse_size(t)) < 0) {
                    die("--sizes wants bytes (K, M, G suffixes; at most 1G), comma-separated");
                }
                b.max = given[ngiven] > b.max ? given[ngiven] : b.max;
                ++ngiven;
            }
            if (0 == ngiven) {
                die("--sizes: no size");
            }
        }
        alloc_buffers(&b);
        int ok = report(&b, report_list, algos, trial_ms, infos, ninfo, csv, control, floor, given,
                        ngiven);
        MPI_Finalize();
        return ok ? 0 : 1;
    }
    /* The sizes, before any buffer: the largest one sizes them.  barrier
     * moves no data (one row, whatever the sizes); --traffic times none
     * (one size: the first of --sizes, else --min). */
    long sizes[64];
    int ns = 0;
    if (no_data(b.coll)) {
        b.min = b.max = 0;
    } else if (is_reduction(b.coll) && b.min < 8) {
        b.min = 8;
    }
    if (no_data(b.coll)) {
        sizes[ns++] = 0;
    } else if (NULL != size_list) {
        char sl[512], *sv = NULL;
        snprintf(sl, sizeof(sl), "%s", size_list);
        for (char *t = strtok_r(sl, ",", &sv); t && ns < 64; t = strtok_r(NULL, ",", &sv)) {
            if ((sizes[ns++] = parse_size(t)) < 0) {
                die("--sizes wants bytes (K, M, G suffixes; at most 1G), comma-separated");
            }
        }
    } else {
        for (long s = b.min; s <= b.max && ns < 64; s = s ? s * 2 : 1) {
            sizes[ns++] = s;
        }
    }
    if (0 == ns) {
        die("no size to time (--min above --max, or an empty --sizes)");
    }
    if (b.traffic >= 0) {
        ns = 1;
    }
    b.max = 0;
    for (int i = 0; i < ns; ++i) {
        b.max = sizes[i] > b.max ? sizes[i] : b.max;
    }

    set_base(b.coll, b.size);
    /* contenders: hiercoll first */
    contender_t *cs = calloc(MAXC, sizeof(contender_t));
    int nc = 0;
    snprintf(cs[nc].name, sizeof(cs[nc].name), "hiercoll");
    cs[nc].comm = contender_comm("hiercoll", infos, ninfo);
    ++nc;
    for (int v = 0; v < nvar; ++v) {
        char spec[1024], *kv[16], *sv = NULL;
        int nkv = 0;
        snprintf(spec, sizeof(spec), "%s", variants[v]);
        char *colon = strchr(spec, ':');
        if (NULL == colon) {
            die("--variant wants LABEL:KEY=VALUE,...");
        }
        *colon = 0;
        for (char *t = strtok_r(colon + 1, ",", &sv); t && nkv < 16; t = strtok_r(NULL, ",", &sv)) {
            kv[nkv++] = t;
        }
        snprintf(cs[nc].name, sizeof(cs[nc].name), "%.31s", spec); /* (a label: cut) */
        cs[nc].comm = contender_comm("hiercoll", kv, nkv);
        ++nc;
    }
    char list[256];
    snprintf(list, sizeof(list), "%s", against ? against : (b.traffic >= 0 ? "" : "tuned"));
    char *save = NULL;
    for (char *t = strtok_r(list, ",", &save); t && nc < MAXC; t = strtok_r(NULL, ",", &save)) {
        const char *comp = !strcmp(t, "linear") ? "basic" : t;
        if ((!strcmp(t, "xhc") || !strcmp(t, "acoll")) && OMPI_MAJOR_VERSION < 6) {
            /* (the preference would name a component that is not there:
             * the row would time tuned under xhc's or acoll's name) */
            die("--against xhc, acoll: Open MPI 6.0's components; this hc_bench is built "
                "against an earlier Open MPI");
        }
        char pref[96];
        /* that component on top, tuned below it for what it lacks, and no
         * hiercoll anywhere (it would fill the slots the others leave) */
        snprintf(pref, sizeof(pref), "%s%s,^hiercoll", comp,
                 strcmp(comp, "tuned") && strcmp(comp, "basic") ? ",tuned" : "");
        if (!strcmp(t, "default")) { /* Open MPI's own stack as it is, less hiercoll */
            snprintf(pref, sizeof(pref), "^hiercoll");
        }
        snprintf(cs[nc].name, sizeof(cs[nc].name), "%s", t);
        cs[nc].comm = contender_comm(pref, NULL, 0);
        ++nc;
    }

    alloc_buffers(&b);

    if (b.traffic >= 0) {
        /* K calls on one communicator, nothing else that differs between
         * K and 0: the rest of the job's traffic cancels in the difference */
        char host[MPI_MAX_PROCESSOR_NAME] = "", *all = NULL;
        int len;
        MPI_Get_processor_name(host, &len);
        if (0 == b.rank) {
            all = malloc((size_t) b.size * MPI_MAX_PROCESSOR_NAME);
        }
        MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                   0, MPI_COMM_WORLD);
        if (0 == b.rank) {
            for (int i = 0; i < b.size; ++i) {
                printf("# host %d %s\n", i, all + (size_t) i * MPI_MAX_PROCESSOR_NAME);
            }
            free(all);
        }
        fill(&b, sizes[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < b.traffic; ++i) {
            call(&b, cs[nc - 1].comm, sizes[0]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int c = 0; c < nc; ++c) {
            MPI_Comm_free(&cs[c].comm);
        }
        free_base();
        MPI_Finalize();
        return 0;
    }

    if (overlap) {
        /* per size: t_call (nonblocking call + wait), then the overlap */
        if (!!strcmp(b.coll, "allreduce") && !!strcmp(b.coll, "reduce")) {
            die("--overlap: allreduce or reduce");
        }
        b.nonblocking = 1;
        if (0 == b.rank) {
            printf("# hc_bench --overlap %s, np %d, %d trials (median of each): t_call, "
                   "t_compute (about 2 t_call, no MPI call), t_total (start, compute, wait), "
                   "overlap = 1 - (t_total - t_compute) / t_call\n",
                   b.coll, b.size, b.trials);
            printf("%10s %-22s %10s %10s %10s %8s\n", "bytes", "contender", "t_call_us",
                   "t_comp_us", "t_total_us", "overlap");
        }
        /* steps of the compute loop per second: the fastest of several
         * short runs (a shared machine preempts the long ones) */
        double rate = 0;
        for (int k = 0; k < 20; ++k) {
            double t0 = MPI_Wtime();
            compute(200000);
            double r = 200000 / (MPI_Wtime() - t0);
            rate = r > rate ? r : rate;
        }
        MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        for (int si = 0; si < ns; ++si) {
            long bytes = sizes[si];
            int iters = b.iters_fixed > 0 ? b.iters_fixed : 200;
            fill(&b, bytes);
            double tc[MAXC][64], tp[MAXC][64], tt[MAXC][64];
            long work[MAXC];
            for (int c = 0; c < nc; ++c) {
                double x[64];
                for (int k = 0; k < b.trials; ++k) {
                    x[k] = trial(&b, cs[c].comm, bytes, iters);
                }
                qsort(x, (size_t) b.trials, sizeof(double), cmp_double);
                work[c] = (long) (2 * x[b.trials / 2] * 1e-6 * rate);
            }
            for (int k = 0; k < b.trials; ++k) {
                for (int c = 0; c < nc; ++c) {
                    tc[c][k] = trial(&b, cs[c].comm, bytes, iters);
                    tp[c][k] = 1e6 * overlap_round(&b, cs[c].comm, bytes, iters, work[c], 0);
                    tt[c][k] = 1e6 * overlap_round(&b, cs[c].comm, bytes, iters, work[c], 1);
                }
            }
            for (int c = 0; c < nc; ++c) {
                qsort(tc[c], (size_t) b.trials, sizeof(double), cmp_double);
                qsort(tp[c], (size_t) b.trials, sizeof(double), cmp_double);
                qsort(tt[c], (size_t) b.trials, sizeof(double), cmp_double);
                double call_ = tc[c][b.trials / 2], comp = tp[c][b.trials / 2],
                       tot = tt[c][b.trials / 2];
                if (0 == b.rank) {
                    printf("%10ld %-22s %10.2f %10.2f %10.2f %8.3f\n", bytes, cs[c].name, call_,
                           comp, tot, 1 - (tot - comp) / call_);
                }
            }
        }
        for (int c = 0; c < nc; ++c) {
            MPI_Comm_free(&cs[c].comm);
        }
        MPI_Finalize();
        return 0;
    }

    if (0 == b.rank) {
        printf("# hc_bench %s%s, np %d, %d trials (median), latency in us (slowest rank's "
               "average); ratio = t(other) / t(hiercoll)\n",
               b.coll, b.nonblocking ? " (nonblocking)" : "", b.size, b.trials);
        printf("%10s", "bytes");
        for (int c = 0; c < nc; ++c) {
            printf(" %12s", cs[c].name);
        }
        for (int c = 1; c < nc; ++c) {
            char h[48];
            snprintf(h, sizeof(h), "%s/hc", cs[c].name);
            printf(" %12s", h);
        }
        printf("\n");
    }

    int all_ok = 1;
    for (int si = 0; si < ns; ++si) {
        long bytes = sizes[si];
        size_t rb = result_bytes(&b, bytes);
        /* correctness first: every contender's result equals hiercoll's */
        for (int c = 0; c < nc; ++c) {
            fill(&b, bytes);
            call(&b, cs[c].comm, bytes);
            if (0 == c) {
                memcpy(b.check, b.rbuf, rb);
            }
            int ok = 0 == memcmp(b.check, b.rbuf, rb), all;
            MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            cs[c].ok[si] = all;
            all_ok &= all;
        }
        int iters = b.iters_fixed > 0
                        ? b.iters_fixed
                        : (int) fmax(5, fmin(1000, 2e7 / (double) ((bytes + 64) * b.size)));
        double t[MAXC][64];
        for (int k = 0; k < b.trials; ++k) {
            for (int c = 0; c < nc; ++c) {
                t[c][k] = trial(&b, cs[c].comm, bytes, iters);
            }
        }
        for (int c = 0; c < nc; ++c) {
            qsort(t[c], (size_t) b.trials, sizeof(double), cmp_double);
            cs[c].lat[si] = t[c][stat_min ? 0 : b.trials / 2];
        }
        if (0 == b.rank) {
            printf("%10ld", bytes);
            for (int c = 0; c < nc; ++c) {
                printf(" %12.2f", cs[c].lat[si]);
            }
            for (int c = 1; c < nc; ++c) {
                printf(" %11.2fx", cs[c].lat[si] / cs[0].lat[si]);
            }
            for (int c = 1; c < nc; ++c) {
                if (!cs[c].ok[si]) {
                    printf("  RESULT DIFFERS from %s", cs[c].name);
                }
            }
            printf("\n");
            fflush(stdout);
        }
    }

    if (0 == b.rank && csv) {
        FILE *f = fopen(csv, "w");
        if (f) {
            fprintf(f, "coll,np,bytes,contender,latency_us,ratio_vs_hiercoll,same_result\n");
            for (int si = 0; si < ns; ++si) {
                for (int c = 0; c < nc; ++c) {
                    fprintf(f, "%s%s,%d,%ld,%s,%.3f,%.4f,%d\n", b.coll,
                            b.nonblocking ? "-nb" : "", b.size, sizes[si], cs[c].name,
                            cs[c].lat[si], cs[c].lat[si] / cs[0].lat[si], cs[c].ok[si]);
                }
            }
            fclose(f);
        }
    }
    if (0 == b.rank && png && ns > 1) {
        /* gnuplot reads the data inline; where it is missing or dies early
         * the shell's pipe closes: no SIGPIPE, one line instead */
        void (*was)(int) = signal(SIGPIPE, SIG_IGN);
        FILE *g = popen("gnuplot 2>/dev/null", "w");
        if (NULL == g) {
            fprintf(stderr, "hc_bench: gnuplot not found, no PNG\n");
        } else {
            fprintf(g, "set terminal png size 900,600\nset output '%s'\n", png);
            fprintf(g, "set title 'MPI_%s%s, %d processes'\n", b.coll,
                    b.nonblocking ? " (nonblocking)" : "", b.size);
            fprintf(g, "set logscale xy 2\nset xlabel 'bytes per rank'\n"
                       "set ylabel 'latency (us)'\nset key left top\nset grid\n");
            fprintf(g, "plot");
            for (int c = 0; c < nc; ++c) {
                fprintf(g, "%s '-' using 1:2 with linespoints title '%s'", c ? "," : "",
                        cs[c].name);
            }
            fprintf(g, "\n");
            for (int c = 0; c < nc; ++c) {
                for (int si = 0; si < ns; ++si) {
                    fprintf(g, "%ld %f\n", sizes[si] ? sizes[si] : 1, cs[c].lat[si]);
                }
                fprintf(g, "e\n");
            }
            if (0 != pclose(g)) {
                fprintf(stderr, "hc_bench: gnuplot failed (or is missing), no PNG\n");
            }
        }
        signal(SIGPIPE, was);
    }
    for (int c = 0; c < nc; ++c) {
        MPI_Comm_free(&cs[c].comm);
    }
    free_base();
    free(cs);
    free(b.sbuf);
    free(b.rbuf);
    free(b.check);
    free(b.counts);
    free(b.displs);
    free(b.types);
    MPI_Finalize();
    return all_ok ? 0 : 1;
}
