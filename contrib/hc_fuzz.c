/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: a differential fuzzer of hiercoll's collectives.
 *
 * Every case is drawn from a 64-bit case seed (run seed + case index):
 * one of the 17 collectives in its blocking, nonblocking or persistent
 * form; a datatype from a generator (hc_fuzz_types.c: predefined ones,
 * pair types with holes, contiguous, vector, hvector, indexed, struct with
 * holes and negative displacements, resized with negative lower bounds and
 * extents beyond the data, dup; elements of 1 B to 64 KiB), and on the
 * receive side the same type or a packed one of the same signature (not
 * where the layer below's copy to it loses the end: below_cuts); counts
 * (0, 1, small, around the flag line's 112 bytes, the 8 KiB cells and
 * their multiples, the single-copy threshold, large); roots;
 * MPI_IN_PLACE where MPI allows it; v-counts uneven, with zeros, blocks in
 * rank order or reversed with gaps; predefined ops on fitting types and
 * user ops, commutative or not (exact in any grouping); the communicator
 * (MPI_COMM_WORLD's dup, a reversed split, a subset, two halves at once,
 * one rank each); and hiercoll's algorithm: auto or one it offers for the
 * collective, forced by the info key hiercoll_<coll>_algorithm on a
 * duplicate (MPI_Comm_dup_with_info).  The same calls run on a TWIN
 * duplicate whose keys say "fallback" (the layer below hiercoll), from the
 * same initial bytes (a random sentinel everywhere, holes and guard bytes
 * around every buffer included), and every byte of every buffer is
 * compared, with the return codes.
 *
 * Before each case rank 0 prints one line that reproduces it (and every
 * rank writes it to its log file with --log DIR); a mismatch prints the
 * ranks, buffers and byte offsets that differ, then shrinks the case
 * (fewer ranks, blocking, one repetition, no MPI_IN_PLACE, a sub-type,
 * fewer elements) re-running it in-process, and prints the smallest
 * failing line.  A watchdog thread prints the line and aborts the job when
 * a case runs past --timeout seconds; a fatal signal prints it too.
 *
 *   mpirun -np 3 hc_fuzz --seed 42 --cases 500
 *   mpirun -np 2 hc_fuzz --np 2 --case 0x1234abcd         (one case)
 *
 * Options:
 *   --seed S|random   the run seed (random: drawn and printed)
 *   --cases N         cases to run (default 200; with --time: at most)
 *   --first I         begin at case I of the run seed (a failure that needs
 *                     the cases before it: --first I-k --cases k+1)
 *   --time SECONDS    stop starting cases after this long (still passes)
 *   --case X          run the one case of seed X (with the options below)
 *   --coll LIST       draw only these collectives (comma separated)
 *   --algo LIST       draw only these algorithms ("auto" included)
 *   --timeout SEC     the watchdog's limit per case (default 120)
 *   --np N            the job must have N processes (reproducer lines say it)
 *   --log DIR         every rank keeps its current case line in DIR
 *   --no-shrink       report a mismatch without shrinking it
 *   --verbose         a description of every case
 *   overrides (what shrinking prints): --count N --subtype K --comm KIND
 *   (world, reversed, subset, parity, one, prefix:K) --mode M (blocking,
 *   nonblocking, persistent) --reps N --in-place 0|1 --root R --packed 0|1
 *   --warm 0|1
 * Exit code 0 when every case matched, 1 on a mismatch, 2 on bad usage.
 */
#include "hc_fuzz.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *coll_names[C_N] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw",
    "barrier", "bcast", "exscan", "gather", "gatherv", "reduce", "reduce_scatter_block",
    "reduce_scatter", "scan", "scatter", "scatterv"};

/* hiercoll's algorithms per collective (coll_hiercoll_algos.c's tables) */
static const char *coll_algos[C_N] = {
    [C_ALLGATHER] = "linear decomp shm",
    [C_ALLGATHERV] = "linear decomp shm",
    [C_ALLREDUCE] = "recursive_doubling rhrd rabenseifner decomp shortcut offload shm",
    [C_ALLTOALL] = "linear decomp",
    [C_ALLTOALLV] = "linear decomp",
    [C_ALLTOALLW] = "linear decomp",
    [C_BARRIER] = "linear dissemination decomp offload shm",
    [C_BCAST] = "linear binomial decomp offload shm",
    [C_EXSCAN] = "linear decomp",
    [C_GATHER] = "linear decomp shm",
    [C_GATHERV] = "linear tree decomp shm",
    [C_REDUCE] = "linear binomial rhrd rabenseifner decomp shortcut offload shm",
    [C_REDUCE_SCATTER_BLOCK] = "basic decomp shm",
    [C_REDUCE_SCATTER] = "basic decomp shm",
    [C_SCAN] = "linear decomp",
    [C_SCATTER] = "linear decomp shm",
    [C_SCATTERV] = "linear tree decomp shm",
};

enum { MD_BLOCKING, MD_NONBLOCKING, MD_PERSISTENT, MD_N };
static const char *mode_names[MD_N] = {"blocking", "nonblocking", "persistent"};
enum { CM_WORLD, CM_REVERSED, CM_SUBSET, CM_PARITY, CM_ONE, CM_PREFIX, CM_N };
static const char *comm_names[CM_N] = {"world", "reversed", "subset", "parity", "one", "prefix"};

#define HF_GUARD 64
#define HF_BUF_MAX (6L << 20) /* bytes of one buffer, at most */

static bool is_reduction(int c)
{
    return C_ALLREDUCE == c || C_REDUCE == c || C_REDUCE_SCATTER == c
           || C_REDUCE_SCATTER_BLOCK == c || C_SCAN == c || C_EXSCAN == c;
}

static bool is_rooted(int c)
{
    return C_BCAST == c || C_REDUCE == c || C_GATHER == c || C_GATHERV == c || C_SCATTER == c
           || C_SCATTERV == c;
}

/* ------------------------------------------------------------------ */
/* a case                                                               */
/* ------------------------------------------------------------------ */

typedef struct {
    uint64_t seed;
    int coll, mode, comm, prefix;
    char algo[32];
    uint64_t mask;            /* subset */
    int key_rev;              /* subset: reversed order */
    uint64_t root_raw;
    int op, pick_basic;       /* op: -1 for none */
    uint64_t type_seed;
    long type_max;
    int type_depth, subtype, shape;
    int count_class;
    uint64_t count_raw;
    long count;               /* -1: from the class */
    int in_place, reps, warm, packed;
    int vpattern, vorder;
    uint64_t vseed;
    int root;                 /* -1: from root_raw */
} hf_case_t;

/* overrides from the command line or the shrinker: -1 (comm: -1) = as drawn */
typedef struct {
    long count;
    int subtype, comm, prefix, mode, reps, in_place, root, packed, warm;
} hf_ovr_t;

static const hf_ovr_t no_ovr = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1};

static struct {
    int np, rank;
    uint64_t run_seed;
    long cases, first;
    double time_limit, timeout;
    bool one_case, verbose, shrink;
    uint64_t case_seed;
    unsigned coll_mask;       /* 0: every collective */
    char algo_list[256];      /* "" : every algorithm; else ",a,b," */
    char coll_arg[256], algo_arg[256];
    char log_dir[512];
    int log_fd;
    MPI_Comm ctl;             /* control: world, every key "fallback" */
    char mca[1024];           /* --mca options of the job (for the lines) */
} G;

static bool algo_allowed(const char *a)
{
    if ('\0' == G.algo_list[0]) {
        return true;
    }
    char k[40];
    snprintf(k, sizeof(k), ",%s,", a);
    return NULL != strstr(G.algo_list, k);
}

/* the algorithms the case may draw for coll: auto and the table's; n */
static int algo_choices(int coll, char out[][32], int most)
{
    int n = 0;
    if (algo_allowed("auto")) {
        snprintf(out[n++], 32, "auto");
    }
    char list[128];
    snprintf(list, sizeof(list), "%s", coll_algos[coll]);
    char *save = NULL;
    for (char *a = strtok_r(list, " ", &save); a && n < most; a = strtok_r(NULL, " ", &save)) {
        if (algo_allowed(a)) {
            snprintf(out[n++], 32, "%s", a);
        }
    }
    return n;
}

static void draw_case(hf_case_t *cs, uint64_t seed)
{
    memset(cs, 0, sizeof(*cs));
    cs->seed = seed;
    hf_rng_t r = hf_stream(seed, 1);
    char choices[16][32];
    int nch = 0;
    for (int tries = 0; tries < 1000; ++tries) {
        cs->coll = (int) hf_below(&r, C_N);
        if (G.coll_mask && !(G.coll_mask & (1u << cs->coll))) {
            continue;
        }
        nch = algo_choices(cs->coll, choices, 16);
        if (nch > 0) {
            break;
        }
    }
    snprintf(cs->algo, sizeof(cs->algo), "%s", choices[hf_below(&r, (uint64_t) nch)]);
    int w = (int) hf_below(&r, 100);
    cs->mode = w < 50 ? MD_BLOCKING : w < 78 ? MD_NONBLOCKING : MD_PERSISTENT;
    w = (int) hf_below(&r, 100);
    cs->comm = w < 45   ? CM_WORLD
               : w < 62 ? CM_REVERSED
               : w < 77 ? CM_SUBSET
               : w < 90 ? CM_PARITY
                        : CM_ONE;
    cs->mask = hf_next(&r);
    cs->key_rev = hf_chance(&r, 50);
    cs->root_raw = hf_next(&r);
    cs->root = -1;
    cs->op = -1;
    cs->pick_basic = -1;
    uint64_t opraw = hf_next(&r), bas = hf_next(&r);
    if (is_reduction(cs->coll)) {
        int k = (int) (opraw % 100);
        if (k < 45) {
            /* a predefined op on a predefined type it fits */
            cs->op = (int) ((opraw >> 8) % (OP_MAXLOC + 1));
            int fit[64], nf = 0;
            for (int b = 0; b < hf_nbasics; ++b) {
                if (hf_op_fits(cs->op, b)) {
                    fit[nf++] = b;
                }
            }
            cs->pick_basic = fit[bas % (uint64_t) nf];
        } else {
            cs->op = k < 72 ? OP_USER_COMM : OP_USER_NONCOMM;
        }
    } else if (hf_chance(&r, 15)) {
        cs->pick_basic = (int) (bas % (uint64_t) hf_nbasics);
    }
    cs->type_seed = hf_next(&r);
    int sz = (int) hf_below(&r, 100);
    cs->type_max = sz < 45 ? 1 + (long) hf_below(&r, 64)
                           : 1L << (6 + hf_below(&r, 11)); /* 64 B .. 64 KiB */
    cs->type_depth = 1 + (int) hf_below(&r, 3);
    /* a user op's reductions: often one contiguous element (what the
     * shared-memory level folds), 1 B to 64 KiB */
    cs->shape = cs->op >= OP_USER_COMM && hf_chance(&r, 40) ? 1 : 0;
    cs->subtype = 0;
    w = (int) hf_below(&r, 100);
    cs->count_class = w < 6 ? 0 : w < 20 ? 1 : w < 40 ? 2 : w < 48 ? 3 : w < 68 ? 4 : w < 76 ? 5
                      : w < 92 ? 6 : 7;
    cs->count_raw = hf_next(&r);
    cs->count = -1;
    cs->in_place = hf_chance(&r, 30);
    w = (int) hf_below(&r, 100);
    cs->reps = w < 65 ? 1 : w < 88 ? 2 : 3;
    cs->warm = hf_chance(&r, 80);
    cs->packed = hf_chance(&r, 30);
    cs->vpattern = (int) hf_below(&r, 5);
    cs->vorder = (int) hf_below(&r, 2);
    cs->vseed = hf_next(&r);
}

static void apply_ovr(hf_case_t *cs, const hf_ovr_t *o)
{
    if (o->count >= 0) cs->count = o->count;
    if (o->subtype >= 0) cs->subtype = o->subtype;
    if (o->comm >= 0) {
        cs->comm = o->comm;
        cs->prefix = o->prefix;
    }
    if (o->mode >= 0) cs->mode = o->mode;
    if (o->reps >= 0) cs->reps = o->reps;
    if (o->in_place >= 0) cs->in_place = o->in_place;
    if (o->root >= 0) cs->root = o->root;
    if (o->packed >= 0) cs->packed = o->packed;
    if (o->warm >= 0) cs->warm = o->warm;
}

/* the line that runs this case again */
static void repro_line(const hf_case_t *cs, const hf_ovr_t *o, char *buf, size_t len)
{
    int w = snprintf(buf, len, "mpirun -np %d%s%s hc_fuzz --np %d --case 0x%016llx", G.np,
#if HC_OMPI_5
                     " --map-by :OVERSUBSCRIBE",
#else
                     " --oversubscribe",
#endif
                     G.mca, G.np, (unsigned long long) cs->seed);
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (w >= 0 && (size_t) w < len) {                                                          \
            w += snprintf(buf + w, len - (size_t) w, __VA_ARGS__);                                 \
        }                                                                                          \
    } while (0)
    if (G.coll_arg[0]) ADD(" --coll %s", G.coll_arg);
    if (G.algo_arg[0]) ADD(" --algo %s", G.algo_arg);
    if (o->comm >= 0) {
        if (CM_PREFIX == o->comm) {
            ADD(" --comm prefix:%d", o->prefix);
        } else {
            ADD(" --comm %s", comm_names[o->comm]);
        }
    }
    if (o->mode >= 0) ADD(" --mode %s", mode_names[o->mode]);
    if (o->reps >= 0) ADD(" --reps %d", o->reps);
    if (o->in_place >= 0) ADD(" --in-place %d", o->in_place);
    if (o->root >= 0) ADD(" --root %d", o->root);
    if (o->packed >= 0) ADD(" --packed %d", o->packed);
    if (o->warm >= 0) ADD(" --warm %d", o->warm);
    if (o->subtype >= 0) ADD(" --subtype %d", o->subtype);
    if (o->count >= 0) ADD(" --count %ld", o->count);
#undef ADD
}

/* ------------------------------------------------------------------ */
/* watchdog, fatal signals, the log                                    */
/* ------------------------------------------------------------------ */

static char cur_line[2048];
static volatile double wd_deadline; /* 0: off */
/* which run of the case is under way (for a crash or a hang) */
static const char *volatile cur_side = "set-up";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void *watchdog(void *arg)
{
    (void) arg;
    for (;;) {
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
        double d = wd_deadline;
        if (d > 0 && now() > d) {
            char msg[2300];
            int n = snprintf(msg, sizeof(msg),
                             "hc_fuzz: HANG: rank %d: the case ran past %.0f s (--timeout) in %s; "
                             "reproduce: %s\n", G.rank, G.timeout, cur_side, cur_line);
            if (write(2, msg, (size_t) n)) {
            }
            alarm(20); /* (should MPI_Abort not end the process) */
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    return NULL;
}

static void on_fatal(int sig)
{
    char msg[2300];
    int n = snprintf(msg, sizeof(msg), "hc_fuzz: rank %d: fatal signal %d in %s of the case: %s\n",
                     G.rank, sig, cur_side, cur_line);
    if (write(2, msg, (size_t) n)) {
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void log_line(const char *line)
{
    if (G.log_fd < 0) {
        return;
    }
    if (ftruncate(G.log_fd, 0) || pwrite(G.log_fd, line, strlen(line), 0) < 0
        || pwrite(G.log_fd, "\n", 1, (off_t) strlen(line)) < 0) {
        /* (a log that cannot be written loses nothing of the verdict) */
    }
}

/* ------------------------------------------------------------------ */
/* buffers                                                              */
/* ------------------------------------------------------------------ */

typedef struct {
    const char *name;
    long lo, hi;              /* bytes used, from the origin */
    size_t size;
    unsigned char *reg[2];    /* [0] hiercoll, [1] twin */
    char *org[2];
    const hf_map_t *map;      /* for messages */
    bool skip;                /* not compared (exscan's rank 0) */
    bool undef_tail;          /* bytes from `defined` to hi are undefined */
    long defined;
} hbuf_t;

static void buf_block(hbuf_t *b, long disp, long cnt, const hf_map_t *m)
{
    if (cnt <= 0) {
        return;
    }
    long lo = disp + m->tlb, hi = disp + (cnt - 1) * m->ext + m->tlb + m->text;
    if (lo < b->lo) b->lo = lo;
    if (hi > b->hi) b->hi = hi;
    if (NULL == b->map) b->map = m;
}

static void buf_alloc(hbuf_t *b, hf_rng_t *r)
{
    b->size = (size_t) (b->hi - b->lo) + 2 * HF_GUARD;
    for (int i = 0; i < 2; ++i) {
        b->reg[i] = malloc(b->size);
        if (NULL == b->reg[i]) {
            fprintf(stderr, "hc_fuzz: out of memory (%zu bytes)\n", b->size);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        b->org[i] = (char *) b->reg[i] + HF_GUARD - b->lo;
    }
    hf_fill_bytes(b->reg[0], b->size, r);
    memcpy(b->reg[1], b->reg[0], b->size);
}

static void buf_free(hbuf_t *b)
{
    free(b->reg[0]);
    free(b->reg[1]);
    memset(b, 0, sizeof(*b));
}

/* blocks placed one after the other in `order` (0: rank order, 1:
 * reversed) with gaps; displacements in units of `unit` bytes (an extent,
 * or 1); returns them in disp[] (units) */
static void place(int n, const int *cnt, const hf_map_t *const *maps, long unit, int order,
                  uint64_t gseed, int *disp)
{
    long end = 0; /* bytes */
    for (int i = 0; i < n; ++i) {
        int j = order ? n - 1 - i : i;
        const hf_map_t *m = maps[j];
        hf_rng_t r = hf_stream(gseed, (uint64_t) j);
        long gap = hf_chance(&r, 50) ? 0 : (long) hf_below(&r, 3);
        /* data begins at d * unit + tlb >= end */
        long need = end - m->tlb;
        long d = need >= 0 ? (need + unit - 1) / unit : -((-need) / unit);
        d += gap;
        disp[j] = (int) d;
        if (cnt[j] > 0) {
            end = d * unit + (cnt[j] - 1) * m->ext + m->tlb + m->text;
        }
    }
}

/* ------------------------------------------------------------------ */
/* one run: both communicators                                          */
/* ------------------------------------------------------------------ */

/* the call reps times in the case's mode; the first error code */
static int exec(const hf_case_t *cs, hf_call_t *a, MPI_Comm c)
{
    int rc = MPI_SUCCESS;
    MPI_Request q = MPI_REQUEST_NULL;
    if (MD_PERSISTENT == cs->mode) {
        rc = hf_call_init(cs->coll, a, c, &q);
        for (int i = 0; i < cs->reps && MPI_SUCCESS == rc; ++i) {
            rc = MPI_Start(&q);
            if (MPI_SUCCESS == rc) {
                rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        }
        if (MPI_REQUEST_NULL != q) {
            MPI_Request_free(&q);
        }
        return rc;
    }
    for (int i = 0; i < cs->reps && MPI_SUCCESS == rc; ++i) {
        if (MD_BLOCKING == cs->mode) {
            rc = hf_call_blocking(cs->coll, a, c);
        } else {
            rc = hf_call_nonblocking(cs->coll, a, c, &q);
            if (MPI_SUCCESS == rc) {
                rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        }
    }
    return rc;
}

/* the count of one block from the case's class and the element size */
static long draw_count(const hf_case_t *cs, long size, long blocks, long ext)
{
    if (cs->count >= 0) {
        return cs->count;
    }
    hf_rng_t r = hf_stream(cs->count_raw, 7);
    long s = size > 0 ? size : 1, c = 0;
    long d = (long) hf_below(&r, 3) - 1;
    switch (cs->count_class) {
    case 0: c = 0; break;
    case 1: c = 1; break;
    case 2: c = 2 + (long) hf_below(&r, 15); break;
    case 3: c = 112 / s + d; break;                                   /* the flag line */
    case 4: c = (1 + (long) hf_below(&r, 4)) * 8192 / s + d; break;   /* cells */
    case 5: c = (hf_chance(&r, 50) ? 16384 : 32768) / s + d; break;   /* single copy */
    case 6: c = (1L << hf_below(&r, 18)) / s + (long) hf_below(&r, 5); break;
    default: c = (1L << (18 + hf_below(&r, 4))) / s + d; break;      /* 256 KiB .. 2 MiB */
    }
    if (c < 0) c = 0;
    long per = blocks > 0 ? blocks : 1, e = ext > 0 ? ext : 1;
    if (c * per * e > HF_BUF_MAX) {
        c = HF_BUF_MAX / (per * e);
    }
    return c;
}

/* the v-count of rank j (of n) for base count c */
static int vcount(const hf_case_t *cs, int j, int n, long c, uint64_t salt)
{
    hf_rng_t r = hf_stream(cs->vseed ^ salt, (uint64_t) j);
    switch (cs->vpattern) {
    case 0: return (int) c;
    case 1: return (int) (c * (j + 1) / n);
    case 2: return (int) hf_below(&r, (uint64_t) c + 1);
    case 3: return (j % 2) ? (int) c : 0;
    default:
        return j == (int) (cs->root_raw % (uint64_t) n) ? (int) c : (hf_chance(&r, 30) ? 1 : 0);
    }
}

/* the alltoallv/w count from i to j (symmetric in place) */
static int pcount(const hf_case_t *cs, int i, int j, int n, long c)
{
    if (cs->in_place && i > j) {
        int t = i;
        i = j;
        j = t;
    }
    int k = vcount(cs, i * n + j, n * n, c, 0x77);
    /* (in place, never 0: Open MPI 4.1.4's libnbc in-place ialltoallv/w
     * desynchronises its tags when a rank receives nothing, README "Known
     * Open MPI 4.1.4 issues") */
    return cs->in_place && k < 1 ? 1 : k;
}

/* alltoallw: whether the pair (i -> j) uses the packed type on side s */
static bool wpacked(const hf_case_t *cs, int i, int j, int s)
{
    if (cs->in_place) {
        return false;
    }
    hf_rng_t r = hf_stream(cs->vseed ^ 0x99, (uint64_t) (i * 4096 + j * 2 + s));
    return cs->packed && hf_chance(&r, 50);
}

typedef struct {
    hf_tree_t tree;
    MPI_Datatype T, P;        /* the type; its packed twin (or T) */
    MPI_Datatype W;           /* T moved to lb 0 (nonblocking reductions) */
    hf_map_t pmap, wmap;
    const hf_map_t *mt, *mp;
    char desc[1024];
} types_t;

static void types_make(const hf_case_t *cs, types_t *ty)
{
    hf_rng_t r = hf_stream(cs->type_seed, 3);
    hf_tree_gen(&ty->tree, &r, cs->type_max, cs->pick_basic >= 0 ? 0 : cs->type_depth,
                cs->pick_basic, cs->shape);
    int k = cs->subtype < ty->tree.n ? cs->subtype : 0;
    ty->T = ty->tree.node[k].t;
    ty->mt = &ty->tree.node[k].map;
    ty->P = ty->W = MPI_DATATYPE_NULL;
    memset(&ty->pmap, 0, sizeof(ty->pmap));
    memset(&ty->wmap, 0, sizeof(ty->wmap));
    if (is_reduction(cs->coll) && MD_BLOCKING != cs->mode
        && (0 != ty->mt->tlb || 0 != ty->mt->lb)) {
        /* Open MPI 4.1.4's libnbc (the twin's nonblocking reductions)
         * corrupts the heap for a datatype whose (true) lower bound is not
         * 0 (hc_fuzz --case 0x54d81856817919ef at np 3 crashed in the twin, with
         * hiercoll off too): the same data, moved to start at 0 */
        const hf_map_t *m = ty->mt;
        MPI_Datatype s1;
        int one = 1;
        MPI_Aint d = (MPI_Aint) -m->tlb;
        MPI_Type_create_struct(1, &one, &d, &ty->T, &s1);
        MPI_Type_create_resized(s1, 0, (MPI_Aint) m->ext, &ty->W);
        MPI_Type_free(&s1);
        MPI_Type_commit(&ty->W);
        hf_map_t *w = &ty->wmap;
        *w = *m;
        w->disp = malloc(sizeof(long) * (size_t) (m->n ? m->n : 1));
        w->basic = malloc((size_t) (m->n ? m->n : 1));
        for (long i = 0; i < m->n; ++i) {
            w->disp[i] = m->disp[i] - m->tlb;
            w->basic[i] = m->basic[i];
        }
        w->lb = w->tlb = 0;
        ty->T = ty->W;
        ty->mt = w;
    }
    if (cs->packed && !is_reduction(cs->coll)) {
        ty->P = hf_packed_twin(ty->mt, &ty->pmap);
    }
    ty->mp = MPI_DATATYPE_NULL != ty->P ? &ty->pmap : ty->mt;
    hf_tree_describe(&ty->tree, k, ty->desc, sizeof(ty->desc));
    if (MPI_DATATYPE_NULL != ty->W) {
        size_t l = strlen(ty->desc);
        snprintf(ty->desc + l, sizeof(ty->desc) - l, " moved to lb 0");
    }
}

/* The layer below copies a rank's own block from the send type to the
 * receive type with ompi_datatype_sndrcv, which loses the end of a copy
 * (mca_coll_hiercoll_dt_copy in coll_hiercoll_exec.c) of more than one
 * element of a type whose data is one run but whose extent is larger
 * (MPI_LONG_INT: 12 bytes in 16) when a multiple of 64 KiB falls inside
 * the last element; hiercoll gets those right (t_pairs checks them
 * against a serial reference).  Would it lose the end of `count`
 * elements of m? */
static bool below_cuts(const hf_map_t *m, long count)
{
    if (count < 2 || m->ext == m->size || m->text != m->size || m->n < 1) {
        return false;
    }
    for (long i = 0; i + 1 < m->n; ++i) {
        if (m->disp[i + 1] != m->disp[i] + hf_basics[m->basic[i]].size) {
            return false; /* (not one run in typemap order) */
        }
    }
    long bytes = count * m->size, r = bytes % 65536;
    return bytes > 65536 && r > 0 && r < m->size;
}

/* Any count of the case (c, v-counts, alltoallv's pairs) that would. */
static bool case_cuts(const hf_case_t *cs, const hf_map_t *m, long c, int n)
{
    if (below_cuts(m, c)) {
        return true;
    }
    for (int j = 0; j < n; ++j) {
        if (below_cuts(m, vcount(cs, j, n, c, 0))) {
            return true;
        }
        for (int i = 0; i < n; ++i) {
            if (below_cuts(m, pcount(cs, i, j, n, c))) {
                return true;
            }
        }
    }
    return false;
}

/* No packed twin: the type both ways. */
static void types_drop_packed(types_t *ty)
{
    if (MPI_DATATYPE_NULL != ty->P) {
        MPI_Type_free(&ty->P);
        hf_map_free(&ty->pmap);
        ty->P = MPI_DATATYPE_NULL;
        ty->mp = ty->mt;
    }
}

static void types_free(types_t *ty)
{
    if (MPI_DATATYPE_NULL != ty->P) {
        MPI_Type_free(&ty->P);
        hf_map_free(&ty->pmap);
    }
    if (MPI_DATATYPE_NULL != ty->W) {
        MPI_Type_free(&ty->W);
        hf_map_free(&ty->wmap);
    }
    hf_tree_free(&ty->tree);
}

/* blocks of the count in the largest buffer */
static long case_blocks(int coll)
{
    switch (coll) {
    case C_ALLGATHER: case C_ALLGATHERV: case C_ALLTOALL: case C_ALLTOALLV: case C_ALLTOALLW:
    case C_GATHER: case C_GATHERV: case C_SCATTER: case C_SCATTERV: case C_REDUCE_SCATTER_BLOCK:
    case C_REDUCE_SCATTER:
        return G.np;
    default:
        return 1;
    }
}

/* what one rank found */
typedef struct {
    int bad;                  /* 0: all equal; 2: a guard byte was written too */
    char what[1024];
} verdict_t;

static void compare(hbuf_t *b, int nb, int rc0, int rc1, verdict_t *v)
{
    int w = 0;
    v->bad = 0;
    v->what[0] = '\0';
    if (rc0 != rc1) {
        v->bad = 1;
        w += snprintf(v->what + w, sizeof(v->what) - (size_t) w,
                      "return code %d (hiercoll) against %d (fallback); ", rc0, rc1);
    }
    if (hf_user_op_unknown) {
        v->bad = 1;
        w += snprintf(v->what + w, sizeof(v->what) - (size_t) w,
                      "the user op was called %ld times with a datatype that is neither the "
                      "case's nor predefined; ", hf_user_op_unknown);
    }
    for (int i = 0; i < nb; ++i) {
        if (NULL != b[i].reg[0] && b[i].undef_tail && b[i].defined < b[i].hi) {
            size_t from = (size_t) (b[i].defined - b[i].lo) + HF_GUARD;
            size_t to = (size_t) (b[i].hi - b[i].lo) + HF_GUARD;
            memcpy(b[i].reg[0] + from, b[i].reg[1] + from, to - from);
        }
        if (NULL == b[i].reg[0] || b[i].skip || 0 == memcmp(b[i].reg[0], b[i].reg[1], b[i].size)) {
            continue;
        }
        size_t first = (size_t) -1, last = 0, ndiff = 0;
        for (size_t k = 0; k < b[i].size; ++k) {
            if (b[i].reg[0][k] != b[i].reg[1][k]) {
                if ((size_t) -1 == first) first = k;
                last = k;
                ndiff++;
            }
        }
        long off = (long) first - HF_GUARD + b[i].lo; /* from the origin */
        char where[200] = "";
        long lastoff = (long) last - HF_GUARD + b[i].lo;
        bool wild = off < b[i].lo || lastoff >= b[i].hi;
        if (off < b[i].lo || off >= b[i].hi) {
            snprintf(where, sizeof(where), "a guard byte outside every block");
        } else if (b[i].map && b[i].map->ext > 0) {
            const hf_map_t *m = b[i].map;
            long rel = off - m->tlb, k = rel >= 0 ? rel / m->ext : -((-rel + m->ext - 1) / m->ext);
            char s[160];
            hf_where(m, off - k * m->ext, s, sizeof(s));
            snprintf(where, sizeof(where), "element %ld: %s", k, s);
        }
        v->bad = wild ? 2 : (v->bad > 1 ? v->bad : 1);
        if ((size_t) w < sizeof(v->what)) {
            w += snprintf(v->what + w, sizeof(v->what) - (size_t) w,
                          "%s buffer: %zu of %zu bytes differ, first at offset %ld (%s): "
                          "0x%02x (hiercoll) vs 0x%02x (fallback), last at offset %ld; ",
                          b[i].name, ndiff, b[i].size - 2 * HF_GUARD, off, where,
                          b[i].reg[0][first], b[i].reg[1][first],
                          (long) last - HF_GUARD + b[i].lo);
        }
    }
}

static MPI_Info info_for(const hf_case_t *cs, bool twin)
{
    MPI_Info info;
    MPI_Info_create(&info);
    char key[MPI_MAX_INFO_KEY + 8];
    for (int c = 0; c < C_N; ++c) {
        const char *val = NULL;
        if (twin) {
            val = "fallback";
        } else if (c == cs->coll && 0 != strcmp(cs->algo, "auto")) {
            val = cs->algo;
        } else if (C_BARRIER == c && 0 == strcmp(cs->algo, "shm")) {
            val = "shm"; /* (the warm-up barrier sets the level up) */
        }
        if (NULL == val) {
            continue;
        }
        int w = snprintf(key, sizeof(key), "hiercoll_%s_algorithm", coll_names[c]);
        if (w >= MPI_MAX_INFO_KEY) {
            snprintf(key, sizeof(key), "hiercoll_%s", coll_names[c]);
        }
        MPI_Info_set(info, key, val);
    }
    return info;
}

/* the case's base communicator (collective over world); MPI_COMM_NULL
 * where this rank is not in it */
static MPI_Comm base_comm(const hf_case_t *cs)
{
    int me = G.rank, n = G.np, color = 0, key = me;
    switch (cs->comm) {
    case CM_WORLD: return MPI_COMM_WORLD;
    case CM_REVERSED: key = n - 1 - me; break;
    case CM_SUBSET: {
        uint64_t m = cs->mask & ((n >= 64) ? ~0ull : ((1ull << n) - 1));
        if (0 == m) m = 1;
        color = (m >> me) & 1 ? 0 : MPI_UNDEFINED;
        key = cs->key_rev ? n - 1 - me : me;
        break;
    }
    case CM_PARITY: color = me % 2; break;
    case CM_ONE: color = me; break;
    default: color = me < cs->prefix ? 0 : MPI_UNDEFINED; break;
    }
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, color, key, &c);
    return c;
}

typedef struct {
    long cases, mismatches, skipped;
    long per_coll[C_N], per_mode[MD_N];
    char algo_name[24][32];
    long per_algo[24];
    int nalgo;
} stats_t;

static stats_t S;

static void count_case(const hf_case_t *cs)
{
    S.cases++;
    S.per_coll[cs->coll]++;
    S.per_mode[cs->mode]++;
    int i;
    for (i = 0; i < S.nalgo && strcmp(S.algo_name[i], cs->algo); ++i) {
    }
    if (i == S.nalgo && i < 24) {
        snprintf(S.algo_name[S.nalgo++], 32, "%s", cs->algo);
    }
    if (i < 24) {
        S.per_algo[i]++;
    }
}

/* Run the case (every rank of world calls); returns 1 where any rank saw
 * a difference (all ranks return the same). quiet: no lines but the
 * mismatches' (shrinking prints its own). */
static int run_case(const hf_case_t *cs0, const hf_ovr_t *o, long index, bool quiet)
{
    hf_case_t cs = *cs0;
    apply_ovr(&cs, o);
    char line[2048];
    repro_line(&cs, o, line, sizeof(line));
    types_t ty;
    types_make(&cs, &ty);
    snprintf(cur_line, sizeof(cur_line), "%s", line);
    log_line(line);
    wd_deadline = now() + G.timeout;
    MPI_Comm base = base_comm(&cs);
    verdict_t v = {0, ""};
    int n = 0, me = -1;
    char desc[1600] = "";
    if (MPI_COMM_NULL != base) {
        MPI_Comm_size(base, &n);
        MPI_Comm_rank(base, &me);
    }
    /* the description: from world rank 0's communicator */
    int root = cs.root >= 0 ? cs.root : (n > 0 ? (int) (cs.root_raw % (uint64_t) n) : 0);
    if (root >= n && n > 0) {
        root = n - 1;
    }
    const hf_map_t *mt = ty.mt, *mp = ty.mp;
    long blocks = case_blocks(cs.coll);
    long ext = mt->ext > mp->ext ? mt->ext : mp->ext;
    long c = draw_count(&cs, mt->size, blocks, ext);
    if (C_BARRIER == cs.coll) {
        c = 0;
    }
    if (MPI_DATATYPE_NULL != ty.P && case_cuts(&cs, mt, c, n)) {
        /* (the twin's own-block copies to the packed twin would lose the
         * last element's end: the layer below would be wrong) */
        types_drop_packed(&ty);
        mp = ty.mp;
    }
    bool inplace_legal = C_BCAST != cs.coll && C_BARRIER != cs.coll;
    bool in_place = cs.in_place && inplace_legal;
    if (in_place && (C_REDUCE_SCATTER == cs.coll || C_REDUCE_SCATTER_BLOCK == cs.coll
                     || C_EXSCAN == cs.coll)) {
        /* what MPI leaves undefined (the input's tail; exscan's rank 0)
         * would be the next repetition's input */
        cs.reps = 1;
    }
    snprintf(desc, sizeof(desc),
             "%s %s algo=%s comm=%s%s np=%d count=%ld root=%d%s%s%s reps=%d%s type=%s",
             coll_names[cs.coll], mode_names[cs.mode], cs.algo, comm_names[cs.comm],
             CM_PREFIX == cs.comm ? ":k" : "", n, c, root, in_place ? " in_place" : "",
             cs.op >= 0 ? " op=" : "", cs.op >= 0 ? hf_op_names[cs.op] : "", cs.reps,
             MPI_DATATYPE_NULL != ty.P ? " recv=packed" : "", ty.desc);
    if (0 == G.rank && !quiet) {
        if (index >= 0) {
            fprintf(stderr, "hc_fuzz: case %ld: %s\n", index, line);
        } else {
            fprintf(stderr, "hc_fuzz: the smallest failing case again: %s\n", line);
        }
        if (G.verbose) {
            fprintf(stderr, "hc_fuzz:   %s\n", desc);
        }
        fflush(stderr);
    }
    if (MPI_COMM_NULL != base) {
        MPI_Info it = info_for(&cs, false), if_ = info_for(&cs, true);
        MPI_Comm tc, fc;
        MPI_Comm_dup_with_info(base, it, &tc);
        MPI_Comm_dup_with_info(base, if_, &fc);
        MPI_Info_free(&it);
        MPI_Info_free(&if_);
        MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
        MPI_Comm_set_errhandler(fc, MPI_ERRORS_RETURN);
        hf_user_types(MPI_DATATYPE_NULL, NULL);
        hf_user_types(ty.T, mt);
        if (MPI_DATATYPE_NULL != ty.P) {
            hf_user_types(ty.P, mp);
        }
        hf_user_op_unknown = 0;

        /* the layout */
        hbuf_t b[2];
        memset(b, 0, sizeof(b));
        b[0].name = "send";
        b[1].name = "receive";
        hf_call_t a;
        memset(&a, 0, sizeof(a));
        int *arr = calloc((size_t) n * 4 + 4, sizeof(int));
        MPI_Datatype *tys = calloc((size_t) n * 2 + 2, sizeof(MPI_Datatype));
        const hf_map_t **maps = calloc((size_t) n + 1, sizeof(*maps));
        a.scounts = arr;
        a.sdispls = arr + n;
        a.rcounts = arr + 2 * n;
        a.rdispls = arr + 3 * n;
        a.stypes = tys;
        a.rtypes = tys + n;
        a.root = root;
        a.op = cs.op >= 0 ? hf_op_handle(cs.op) : MPI_OP_NULL;
        MPI_Datatype T = ty.T, R = ty.P != MPI_DATATYPE_NULL ? ty.P : ty.T;
        const hf_map_t *mr = mp;
        a.stype = T;
        a.rtype = R;
        a.scount = a.rcount = (int) c;
        bool is_root = me == root;
        long in_elems = 0; /* reductions: elements of input from the origin */
        hbuf_t *inbuf = &b[0];
        switch (cs.coll) {
        case C_BARRIER: break;
        case C_BCAST:
            a.rtype = is_root ? T : R;
            buf_block(&b[1], 0, c, is_root ? mt : mr);
            break;
        case C_ALLREDUCE: case C_SCAN: case C_EXSCAN: case C_REDUCE: {
            bool ip = in_place && (C_REDUCE != cs.coll || is_root);
            a.rtype = T;
            if (!ip) buf_block(&b[0], 0, c, mt);
            buf_block(&b[1], 0, c, mt);
            in_elems = c;
            inbuf = ip ? &b[1] : &b[0];
            if (ip) a.sb = MPI_IN_PLACE;
            b[1].skip = C_EXSCAN == cs.coll && 0 == me; /* (undefined there) */
            break;
        }
        case C_REDUCE_SCATTER_BLOCK: case C_REDUCE_SCATTER: {
            a.rtype = T;
            long tot = 0;
            for (int j = 0; j < n; ++j) {
                a.rcounts[j] = C_REDUCE_SCATTER == cs.coll ? vcount(&cs, j, n, c, 0) : (int) c;
                tot += a.rcounts[j];
            }
            if (in_place) {
                buf_block(&b[1], 0, tot, mt);
                inbuf = &b[1];
                a.sb = MPI_IN_PLACE;
                /* (MPI defines the first rcounts[me] elements only: the
                 * rest of the input may serve as scratch) */
                b[1].undef_tail = true;
                b[1].defined = a.rcounts[me] > 0
                                   ? (a.rcounts[me] - 1) * mt->ext + mt->tlb + mt->text
                                   : mt->tlb;
            } else {
                buf_block(&b[0], 0, tot, mt);
                buf_block(&b[1], 0, a.rcounts[me], mt);
            }
            in_elems = tot;
            break;
        }
        case C_GATHER: case C_SCATTER: case C_ALLGATHER: case C_ALLTOALL: {
            bool gathering = C_SCATTER != cs.coll;
            bool ip = in_place && (C_ALLGATHER == cs.coll || C_ALLTOALL == cs.coll || is_root);
            /* the many-block side */
            hbuf_t *many = gathering ? &b[1] : &b[0];
            hbuf_t *one = gathering ? &b[0] : &b[1];
            const hf_map_t *mm = gathering ? mr : mt, *mo = gathering ? mt : mr;
            if (ip && C_SCATTER == cs.coll) {
                a.rb = MPI_IN_PLACE;
            } else if (ip) {
                a.sb = MPI_IN_PLACE;
            }
            if (ip && C_ALLTOALL == cs.coll) {
                mm = mr;
            }
            bool many_here = C_ALLGATHER == cs.coll || C_ALLTOALL == cs.coll || is_root;
            buf_block(many, 0, many_here ? c * n : c * n, mm); /* (non-roots: kept intact) */
            if (!ip) {
                buf_block(one, 0, C_ALLTOALL == cs.coll ? c * n : c, mo);
            }
            break;
        }
        case C_GATHERV: case C_ALLGATHERV: case C_SCATTERV: {
            bool gathering = C_SCATTERV != cs.coll;
            bool ip = in_place && (C_ALLGATHERV == cs.coll || is_root);
            int *cnt = gathering ? a.rcounts : a.scounts, *dsp = gathering ? a.rdispls : a.sdispls;
            const hf_map_t *mm = gathering ? mr : mt, *mo = gathering ? mt : mr;
            for (int j = 0; j < n; ++j) {
                cnt[j] = vcount(&cs, j, n, c, 0);
                maps[j] = mm;
            }
            place(n, cnt, maps, mm->ext, cs.vorder, cs.vseed, dsp);
            hbuf_t *many = gathering ? &b[1] : &b[0], *one = gathering ? &b[0] : &b[1];
            for (int j = 0; j < n; ++j) {
                buf_block(many, (long) dsp[j] * mm->ext, cnt[j], mm);
            }
            if (gathering) {
                a.scount = cnt[me];
            } else {
                a.rcount = cnt[me];
            }
            if (ip) {
                if (gathering) a.sb = MPI_IN_PLACE; else a.rb = MPI_IN_PLACE;
            } else {
                buf_block(one, 0, cnt[me], mo);
            }
            break;
        }
        case C_ALLTOALLV: case C_ALLTOALLW: {
            bool w = C_ALLTOALLW == cs.coll;
            for (int j = 0; j < n; ++j) {
                a.scounts[j] = pcount(&cs, me, j, n, c);
                a.rcounts[j] = pcount(&cs, j, me, n, c);
            }
            for (int s = 0; s < 2; ++s) {
                if (0 == s && in_place) {
                    continue;
                }
                int *cnt = s ? a.rcounts : a.scounts, *dsp = s ? a.rdispls : a.sdispls;
                for (int j = 0; j < n; ++j) {
                    bool pk = w ? (s ? wpacked(&cs, j, me, 1) : wpacked(&cs, me, j, 0))
                                : (s && !in_place);
                    maps[j] = pk ? mr : mt;
                    if (w) {
                        (s ? a.rtypes : a.stypes)[j] = pk ? R : T;
                    }
                }
                if (!w && in_place) {
                    for (int j = 0; j < n; ++j) maps[j] = mr;
                }
                place(n, cnt, maps, w ? 1 : maps[0]->ext, cs.vorder ^ s, cs.vseed + (uint64_t) s,
                      dsp);
                if (w && 1 == n) {
                    /* Open MPI 4.1's coll/self (the layer below on one
                     * process) takes alltoallw's byte displacements for
                     * elements and overruns: only 0 is safe there */
                    dsp[0] = 0;
                }
                for (int j = 0; j < n; ++j) {
                    buf_block(&b[s], (long) dsp[j] * (w ? 1 : maps[j]->ext), cnt[j], maps[j]);
                }
            }
            if (in_place) {
                a.sb = MPI_IN_PLACE;
                if (!w) a.rtype = R;
            }
            break;
        }
        }
        /* buffers: the same random bytes in both; reductions' inputs
         * values fit for the op */
        hf_rng_t fr = hf_stream(cs.seed ^ 0x5eed, (uint64_t) G.rank);
        for (int i = 0; i < 2; ++i) {
            buf_alloc(&b[i], &fr);
        }
        if (is_reduction(cs.coll) && cs.op < OP_USER_COMM && in_elems > 0) {
            hf_fill_values(inbuf->org[0], mt, in_elems, cs.op, &fr);
            memcpy(inbuf->reg[1], inbuf->reg[0], inbuf->size);
        }
        int rc[2];
        for (int pass = 0; pass < 2; ++pass) {
            int side = 1 - pass; /* 1: twin (fallback) first, then 0: hiercoll */
            MPI_Comm cm = side ? fc : tc;
            hf_call_t x = a;
            if (MPI_IN_PLACE != a.sb) x.sb = b[0].org[side];
            if (MPI_IN_PLACE != a.rb) x.rb = b[1].org[side];
            if (C_BCAST == cs.coll) x.rb = b[1].org[side];
            cur_side = side ? "the fallback (twin) run" : "hiercoll's run";
            if (cs.warm) {
                MPI_Barrier(cm);
            }
            rc[side] = exec(&cs, &x, cm);
            cur_side = "set-up";
        }
        compare(b, 2, rc[0], rc[1], &v);
        for (int i = 0; i < 2; ++i) {
            buf_free(&b[i]);
        }
        free(arr);
        free(tys);
        free(maps);
        MPI_Comm_free(&tc);
        MPI_Comm_free(&fc);
        if (MPI_COMM_WORLD != base) {
            MPI_Comm_free(&base);
        }
    }
    int bad = v.bad, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, G.ctl);
    wd_deadline = 0;
    if (v.bad && !quiet) {
        fprintf(stderr,
                "hc_fuzz: MISMATCH rank %d (rank %d of %d in the case's communicator): %s\n",
                G.rank, me, n, v.what);
        fflush(stderr);
    }
    if (any && 0 == G.rank && !quiet) {
        fprintf(stderr, "hc_fuzz: case failed: %s\nhc_fuzz:   (%s)\n", line, desc);
        fflush(stderr);
    }
    types_free(&ty);
    return any;
}

/* Smaller failing cases, greedily: fewer ranks, simpler calls, a
 * sub-type, fewer elements; each candidate re-run in-process. */
static void shrink(const hf_case_t *cs, const hf_ovr_t *start)
{
    hf_ovr_t cur = *start, best = *start;
    int tries = 0, most = 60;
    double t0 = now();
    hf_case_t eff = *cs;
    apply_ovr(&eff, &cur);
    if (0 == G.rank) {
        fprintf(stderr, "hc_fuzz: shrinking...\n");
    }
#define TRY(mod)                                                                                   \
    do {                                                                                           \
        hf_ovr_t t_ = cur;                                                                         \
        mod;                                                                                       \
        if (tries++ < most && now() - t0 < 10 * G.timeout && run_case(cs, &t_, -1, true)) {        \
            cur = best = t_;                                                                       \
            improved = true;                                                                       \
        }                                                                                          \
    } while (0)
    bool improved = true;
    long count_done = -1;
    while (improved && tries < most) {
        improved = false;
        eff = *cs;
        apply_ovr(&eff, &cur);
        /* fewer ranks: prefixes of world */
        int members = G.np;
        if (CM_PREFIX == eff.comm) members = eff.prefix;
        for (int k = 1; k < members && !improved; ++k) {
            TRY((t_.comm = CM_PREFIX, t_.prefix = k));
        }
        if (!improved && CM_PREFIX != eff.comm && CM_WORLD != eff.comm) {
            TRY((t_.comm = CM_WORLD));
        }
        if (!improved && MD_BLOCKING != eff.mode) TRY(t_.mode = MD_BLOCKING);
        if (!improved && 1 != eff.reps) TRY(t_.reps = 1);
        if (!improved && eff.in_place) TRY(t_.in_place = 0);
        if (!improved && eff.packed) TRY(t_.packed = 0);
        if (!improved && 0 != eff.root && is_rooted(eff.coll)) TRY(t_.root = 0);
        if (!improved && C_BARRIER != eff.coll) {
            /* a sub-type: a node below the current one */
            types_t ty;
            types_make(&eff, &ty);
            int ntree = ty.tree.n, curk = eff.subtype;
            hf_tree_t copy = ty.tree;
            for (int k = curk + 1; k < ntree && !improved; ++k) {
                if (hf_tree_below(&copy, k, curk)) {
                    TRY(t_.subtype = k);
                }
            }
            /* fewer elements */
            long c0 = eff.count;
            if (c0 < 0) {
                c0 = draw_count(&eff, ty.mt->size, case_blocks(eff.coll),
                                ty.mt->ext > ty.mp->ext ? ty.mt->ext : ty.mp->ext);
            }
            types_free(&ty);
            /* 1, then bisection between a passing count and a failing one */
            if (c0 != count_done) {
                long lo = 0, hi = c0;
                while (hi - lo > 1 && tries < most && now() - t0 < 10 * G.timeout) {
                    long mid = hi > 1 && 0 == lo ? 1 : lo + (hi - lo) / 2;
                    hf_ovr_t t_ = cur;
                    t_.count = mid;
                    tries++;
                    if (run_case(cs, &t_, -1, true)) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                count_done = hi;
                if (hi < c0) {
                    cur.count = hi;
                    best = cur;
                    improved = true;
                }
            }
        }
    }
#undef TRY
    if (0 == G.rank) {
        char line[2048];
        hf_case_t fin = *cs;
        apply_ovr(&fin, &best);
        repro_line(&fin, &best, line, sizeof(line));
        fprintf(stderr, "hc_fuzz: smallest failing case (%d re-runs): %s\n", tries, line);
        fflush(stderr);
    }
    if (0 != memcmp(&best, start, sizeof(best))) {
        (void) run_case(cs, &best, -1, false); /* (its details) */
    }
}

/* ------------------------------------------------------------------ */
/* options, main                                                        */
/* ------------------------------------------------------------------ */

static int usage(const char *why)
{
    if (0 == G.rank) {
        fprintf(stderr, "hc_fuzz: %s (see the comment at the top of contrib/hc_fuzz.c)\n", why);
    }
    MPI_Finalize();
    return 2;
}

static int index_of(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; ++i) {
        if (0 == strcmp(names[i], s)) {
            return i;
        }
    }
    return -1;
}

/* the job's --mca options (Open MPI passes them as OMPI_MCA_* variables) */
static void mca_from_env(void)
{
    extern char **environ;
    int w = 0;
    G.mca[0] = '\0';
    for (char **e = environ; *e; ++e) {
        if (0 != strncmp(*e, "OMPI_MCA_", 9)) {
            continue;
        }
        const char *kv = *e + 9;
        if (strncmp(kv, "coll", 4) && strncmp(kv, "btl", 3) && strncmp(kv, "pml", 3)
            && strncmp(kv, "op=", 3) && strncmp(kv, "mpi_yield", 9)) {
            continue;
        }
        const char *eq = strchr(kv, '=');
        if (NULL == eq || (size_t) w >= sizeof(G.mca)) {
            continue;
        }
        w += snprintf(G.mca + w, sizeof(G.mca) - (size_t) w, " --mca %.*s %s", (int) (eq - kv), kv,
                      eq + 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &G.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &G.np);
    hf_types_init();
    hf_ops_init();
    G.cases = -1;
    G.timeout = 120;
    G.shrink = true;
    G.log_fd = -1;
    hf_ovr_t ovr = no_ovr;
    bool random_seed = false, seed_given = false;
    int want_np = -1;
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (0 == strcmp(o, "--verbose")) {
            G.verbose = true;
            takes = false;
        } else if (0 == strcmp(o, "--no-shrink")) {
            G.shrink = false;
            takes = false;
        } else if (NULL == v) {
            return usage("an option without its value");
        } else if (0 == strcmp(o, "--seed")) {
            seed_given = true;
            if (0 == strcmp(v, "random")) {
                random_seed = true;
            } else {
                G.run_seed = strtoull(v, NULL, 0);
            }
        } else if (0 == strcmp(o, "--first")) {
            G.first = atol(v);
        } else if (0 == strcmp(o, "--cases")) {
            G.cases = atol(v);
        } else if (0 == strcmp(o, "--time")) {
            G.time_limit = atof(v);
        } else if (0 == strcmp(o, "--timeout")) {
            G.timeout = atof(v);
        } else if (0 == strcmp(o, "--case")) {
            G.one_case = true;
            G.case_seed = strtoull(v, NULL, 0);
        } else if (0 == strcmp(o, "--np")) {
            want_np = atoi(v);
        } else if (0 == strcmp(o, "--log")) {
            snprintf(G.log_dir, sizeof(G.log_dir), "%s", v);
        } else if (0 == strcmp(o, "--coll")) {
            snprintf(G.coll_arg, sizeof(G.coll_arg), "%s", v);
            char list[256];
            snprintf(list, sizeof(list), "%s", v);
            char *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int k = index_of(coll_names, C_N, t);
                if (k < 0) {
                    return usage("--coll: no such collective");
                }
                G.coll_mask |= 1u << k;
            }
        } else if (0 == strcmp(o, "--algo")) {
            snprintf(G.algo_arg, sizeof(G.algo_arg), "%s", v);
            snprintf(G.algo_list, sizeof(G.algo_list), ",%s,", v);
        } else if (0 == strcmp(o, "--count")) {
            ovr.count = atol(v);
        } else if (0 == strcmp(o, "--subtype")) {
            ovr.subtype = atoi(v);
        } else if (0 == strcmp(o, "--comm")) {
            if (0 == strncmp(v, "prefix:", 7)) {
                ovr.comm = CM_PREFIX;
                ovr.prefix = atoi(v + 7);
            } else if ((ovr.comm = index_of(comm_names, CM_N, v)) < 0) {
                return usage("--comm: world, reversed, subset, parity, one or prefix:K");
            }
        } else if (0 == strcmp(o, "--mode")) {
            if ((ovr.mode = index_of(mode_names, MD_N, v)) < 0) {
                return usage("--mode: blocking, nonblocking or persistent");
            }
        } else if (0 == strcmp(o, "--reps")) {
            ovr.reps = atoi(v);
        } else if (0 == strcmp(o, "--in-place")) {
            ovr.in_place = atoi(v);
        } else if (0 == strcmp(o, "--root")) {
            ovr.root = atoi(v);
        } else if (0 == strcmp(o, "--packed")) {
            ovr.packed = atoi(v);
        } else if (0 == strcmp(o, "--warm")) {
            ovr.warm = atoi(v);
        } else {
            return usage("unknown option");
        }
        if (takes) {
            ++i;
        }
    }
    if (want_np > 0 && want_np != G.np) {
        return usage("--np differs from the job's size: the case depends on it");
    }
    if (G.coll_mask || G.algo_list[0]) {
        bool any = false;
        char ch[16][32];
        for (int c = 0; c < C_N; ++c) {
            if ((!G.coll_mask || (G.coll_mask & (1u << c))) && algo_choices(c, ch, 16) > 0) {
                any = true;
            }
        }
        if (!any) {
            return usage("--coll and --algo leave no case to draw");
        }
    }
    if (random_seed) {
        uint64_t s = hf_mix((uint64_t) time(NULL) ^ ((uint64_t) getpid() << 20) ^ (uint64_t) now());
        MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        G.run_seed = s;
    } else if (!seed_given) {
        G.run_seed = 1;
    }
    if (G.cases < 0) {
        G.cases = G.one_case ? 1 : 200;
    }
    mca_from_env();
    if (G.log_dir[0]) {
        char path[700];
        snprintf(path, sizeof(path), "%s/hc_fuzz.rank%d.case", G.log_dir, G.rank);
        G.log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    {
        MPI_Info info;
        MPI_Info_create(&info);
        char key[MPI_MAX_INFO_KEY + 8];
        for (int c = 0; c < C_N; ++c) {
            int w = snprintf(key, sizeof(key), "hiercoll_%s_algorithm", coll_names[c]);
            if (w >= MPI_MAX_INFO_KEY) {
                snprintf(key, sizeof(key), "hiercoll_%s", coll_names[c]);
            }
            MPI_Info_set(info, key, "fallback");
        }
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &G.ctl);
        MPI_Info_free(&info);
    }
    signal(SIGSEGV, on_fatal);
    signal(SIGFPE, on_fatal);
    signal(SIGBUS, on_fatal);
    signal(SIGILL, on_fatal);
    signal(SIGABRT, on_fatal);
    pthread_t wd;
    pthread_create(&wd, NULL, watchdog, NULL);
    pthread_detach(wd);

    if (0 == G.rank) {
        if (G.one_case) {
            fprintf(stderr, "hc_fuzz: np %d, one case 0x%016llx\n", G.np,
                    (unsigned long long) G.case_seed);
        } else {
            char lim[64] = "";
            if (G.time_limit > 0) {
                snprintf(lim, sizeof(lim), " or %.0f s", G.time_limit);
            }
            fprintf(stderr, "hc_fuzz: np %d, run seed %llu (--seed %llu), %ld cases%s\n", G.np,
                    (unsigned long long) G.run_seed, (unsigned long long) G.run_seed, G.cases, lim);
        }
        fflush(stderr);
    }
    double t0 = now();
    long failed = 0;
    for (long i = G.first; i < G.first + G.cases; ++i) {
        int stop = 0;
        if (0 == G.rank && G.time_limit > 0 && now() - t0 >= G.time_limit) {
            stop = 1;
        }
        MPI_Bcast(&stop, 1, MPI_INT, 0, G.ctl);
        if (stop) {
            if (0 == G.rank) {
                fprintf(stderr, "hc_fuzz: --time %.0f s reached after %ld cases\n", G.time_limit,
                        i);
            }
            break;
        }
        uint64_t seed = G.one_case ? G.case_seed : hf_mix(G.run_seed + hf_mix((uint64_t) i));
        hf_case_t cs;
        draw_case(&cs, seed);
        hf_case_t eff = cs;
        apply_ovr(&eff, &ovr);
        count_case(&eff);
        int verdict = run_case(&cs, &ovr, i, false);
        if (verdict) {
            failed++;
            S.mismatches++;
            if (G.shrink) {
                shrink(&cs, &ovr);
            }
        }
        if (verdict > 1) {
            if (0 == G.rank) {
                fprintf(stderr, "hc_fuzz: stopping: the case wrote outside its buffers (guard "
                                "bytes), the heap may be corrupt and later cases unreliable\n");
            }
            break;
        }
    }
    double dt = now() - t0;
    if (0 == G.rank) {
        fprintf(stderr, "hc_fuzz: per collective:");
        for (int c = 0; c < C_N; ++c) {
            fprintf(stderr, " %s:%ld", coll_names[c], S.per_coll[c]);
        }
        fprintf(stderr, "\nhc_fuzz: per algorithm:");
        for (int k = 0; k < S.nalgo; ++k) {
            fprintf(stderr, " %s:%ld", S.algo_name[k], S.per_algo[k]);
        }
        fprintf(stderr, "\nhc_fuzz: per mode:");
        for (int k = 0; k < MD_N; ++k) {
            fprintf(stderr, " %s:%ld", mode_names[k], S.per_mode[k]);
        }
        fprintf(stderr, "\n");
        fprintf(stderr,
                "hc_fuzz: np %d seed %llu: %ld cases, %ld mismatches, %.1f s, %.0f cases/minute\n",
                G.np, (unsigned long long) G.run_seed, S.cases, S.mismatches, dt,
                dt > 0 ? 60.0 * (double) S.cases / dt : 0.0);
        fflush(stderr);
    }
    MPI_Comm_free(&G.ctl);
    hf_ops_fini();
    if (G.log_fd >= 0) {
        close(G.log_fd);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
