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
 * one of the 17 collectives, or on a topology one of the 5 neighborhood
 * collectives, in its blocking, nonblocking or persistent form; a
 * datatype from a generator (hc_fuzz_types.c: the predefined ones with
 * MPI_LONG_DOUBLE, the C complex types and the pair types, contiguous,
 * vector and hvector with negative strides too, indexed, hindexed,
 * indexed_block, hindexed_block with blocks listed out of memory order,
 * subarray and darray in C and Fortran order, struct with holes and
 * negative displacements, resized with negative lower bounds and extents
 * beyond the data, dup; elements of 1 B to 64 KiB), and on the receive
 * side the same type, a packed one of the same signature (not where the
 * layer below's copy to it loses the end: hf_below_copy_loses), its
 * repeating part received more times, or runs of it received fewer;
 * counts (0, 1, small, around the flag line's 112 bytes, the 8 KiB cells
 * and their multiples, the single-copy threshold, large); roots;
 * MPI_IN_PLACE where MPI allows it; v-counts uneven, with zeros, blocks in
 * rank order or reversed with gaps; predefined ops on fitting types (MINLOC and MAXLOC
 * on the pair types) and user ops, commutative or not (exact in any
 * grouping); the communicator (MPI_COMM_WORLD's dup, a reversed split, a
 * subset, two halves at once, one rank each; an intercommunicator between
 * two groups of it; a Cartesian grid, a graph or a distributed graph over
 * it); its decomposition criterion (info key: block:K, a list of uneven
 * parts, node, none); hiercoll's algorithm: auto or one it offers, forced
 * by the info key hiercoll_<coll>_algorithm on a duplicate
 * (MPI_Comm_dup_with_info); up to 6 calls in flight on it, completed by
 * MPI_Wait/Waitall/Testall/Waitany/Waitsome/Test in each rank's own
 * order, persistent ones started by MPI_Startall in each rank's own order
 * and restarted, the communicator freed with them in flight; and with
 * --threads, threads each running such calls on a communicator of its own
 * at once (MPI_THREAD_MULTIPLE).
 *
 * The reference (--ref serial, the default) is computed in each process
 * from every rank's inputs by MPI's definitions (hc_fuzz_ref.c): no
 * library's collective, so no upstream bug, stands in it.  --ref basic
 * runs the same calls blocking on a twin communicator whose stack is
 * coll/basic's linear algorithms (info key ompi_comm_coll_preference),
 * --ref below on the layer below hiercoll in the case's mode: third
 * opinions for triage.  Every byte of every buffer is compared (a random
 * sentinel everywhere, holes and 64 guard bytes around every buffer
 * included), with the return codes.
 *
 * Before each case rank 0 prints one line that reproduces it (and every
 * rank writes it to its log file with --log DIR); a mismatch prints the
 * ranks, buffers and byte offsets that differ, then shrinks the case
 * (fewer ranks, blocking, one repetition, no MPI_IN_PLACE, one call of a
 * batch alone, the communicator kept, the plain receive type, the job's
 * criterion, a sub-type, fewer elements) re-running it in-process, and
 * prints the smallest failing line.  A watchdog thread prints the line and
 * aborts the job when a case runs past --timeout seconds; a fatal signal
 * prints it too.
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
 *   --gen G           what a seed draws: 1, the first dimensions only (the
 *                     cases found before the others existed), 2 (default)
 *   --coll LIST       draw only these collectives (comma separated)
 *   --algo LIST       draw only these algorithms ("auto" included)
 *   --dim LIST        every case has these dimensions where it can: inter,
 *                     neighbor, batch, freed, threads, rshape, crit
 *   --no-dim LIST     ... and never these
 *   --threads         MPI_THREAD_MULTIPLE, and cases with threads
 *   --ref R           serial (default), basic or below
 *   --timeout SEC     the watchdog's limit per case (default 120)
 *   --hang-wait SEC   on a hang, wait this long before aborting (to attach gdb)
 *   --np N            the job must have N processes (reproducer lines say it)
 *   --log DIR         every rank keeps its current case line in DIR
 *   --no-shrink       report a mismatch without shrinking it
 *   --verbose         a description of every case
 *   overrides (what shrinking prints): --count N --subtype K --comm KIND
 *   (world, reversed, subset, parity, one, prefix:K) --mode M (blocking,
 *   nonblocking, persistent) --reps N --in-place 0|1 --root R --packed 0|1
 *   --warm 0|1 --batch N --pick I (call I of the batch alone) --freed 0|1
 *   --rshape 0|1|2 --crit 0..4 --completion 0..5
 * Exit code 0 when every case matched, 1 on a mismatch, 2 on bad usage.
 */
#include "hc_fuzz.h"
#include "hc_fuzz_run.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct {
    uint64_t run_seed;
    long cases, first;
    double time_limit, timeout;
    int hang_wait;
    bool one_case, verbose, shrink;
    uint64_t case_seed;
    char coll_arg[256], algo_arg[256], dim_arg[128], nodim_arg[128];
    char log_dir[512];
    int log_fd;
    MPI_Comm ctl;             /* control: world, every key "fallback" */
    char mca[1024];           /* --mca options of the job (for the lines) */
} G;

/* the line that runs this case again */
static void repro_line(const hf_case_t *cs, const hf_ovr_t *o, char *buf, size_t len)
{
    int w = snprintf(buf, len, "mpirun -np %d%s%s hc_fuzz --np %d --case 0x%016llx", hf_opt.np,
#if HC_OMPI_5
                     " --map-by :OVERSUBSCRIBE",
#else
                     " --oversubscribe",
#endif
                     G.mca, hf_opt.np, (unsigned long long) cs->seed);
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (w >= 0 && (size_t) w < len) {                                                          \
            w += snprintf(buf + w, len - (size_t) w, __VA_ARGS__);                                 \
        }                                                                                          \
    } while (0)
    if (HF_GEN != cs->gen) ADD(" --gen %d", cs->gen);
    if (hf_opt.threads_ok) ADD(" --threads");
    if (HF_REF_SERIAL != hf_opt.ref)
        ADD(" --ref %s", HF_REF_BASIC == hf_opt.ref ? "basic" : "below");
    if (G.coll_arg[0]) ADD(" --coll %s", G.coll_arg);
    if (G.algo_arg[0]) ADD(" --algo %s", G.algo_arg);
    if (G.dim_arg[0]) ADD(" --dim %s", G.dim_arg);
    if (G.nodim_arg[0]) ADD(" --no-dim %s", G.nodim_arg);
    if (o->comm >= 0) {
        if (CM_PREFIX == o->comm) {
            ADD(" --comm prefix:%d", o->prefix);
        } else {
            ADD(" --comm %s", hf_comm_names[o->comm]);
        }
    }
    if (o->mode >= 0) ADD(" --mode %s", hf_mode_names[o->mode]);
    if (o->reps >= 0) ADD(" --reps %d", o->reps);
    if (o->in_place >= 0) ADD(" --in-place %d", o->in_place);
    if (o->root >= 0) ADD(" --root %d", o->root);
    if (o->packed >= 0) ADD(" --packed %d", o->packed);
    if (o->warm >= 0) ADD(" --warm %d", o->warm);
    if (o->batch >= 0) ADD(" --batch %d", o->batch);
    if (o->pick >= 0) ADD(" --pick %d", o->pick);
    if (o->freed >= 0) ADD(" --freed %d", o->freed);
    if (o->threads >= 0) ADD(" --threads-n %d", o->threads);
    if (o->rshape >= 0) ADD(" --rshape %d", o->rshape);
    if (o->crit >= 0) ADD(" --crit %d", o->crit);
    if (o->completion >= 0) ADD(" --completion %d", o->completion);
    if (o->subtype >= 0) ADD(" --subtype %d", o->subtype);
    if (o->count >= 0) ADD(" --count %ld", o->count);
#undef ADD
}

/* ------------------------------------------------------------------ */
/* watchdog, fatal signals, the log                                    */
/* ------------------------------------------------------------------ */

static char cur_line[2048];
static volatile double wd_deadline; /* 0: off */

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
                             "reproduce: %s\n", hf_opt.rank, G.timeout, hf_run_side, cur_line);
            if (write(2, msg, (size_t) n)) {
            }
            if (G.hang_wait > 0) {
                sleep((unsigned) G.hang_wait); /* (time to attach a debugger) */
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
                     hf_opt.rank, sig, hf_run_side, cur_line);
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
/* one case, shrinking                                                  */
/* ------------------------------------------------------------------ */

/* Run the case (every rank of world calls); returns 1 where any rank saw
 * a difference, 2 where a guard byte was written (all ranks return the
 * same). quiet: no lines but the mismatches' (shrinking prints its own). */
static int run_case(const hf_case_t *cs0, const hf_ovr_t *o, long index, bool quiet)
{
    hf_case_t cs = *cs0;
    hf_apply_ovr(&cs, o);
    char line[2048];
    repro_line(&cs, o, line, sizeof(line));
    snprintf(cur_line, sizeof(cur_line), "%s", line);
    log_line(line);
    wd_deadline = now() + G.timeout;
    if (0 == hf_opt.rank && !quiet) {
        if (index >= 0) {
            fprintf(stderr, "hc_fuzz: case %ld: %s\n", index, line);
        } else {
            fprintf(stderr, "hc_fuzz: the smallest failing case again: %s\n", line);
        }
        fflush(stderr);
    }
    hf_verdict_t v;
    hf_run(&cs, o, &v);
    int bad = v.bad, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, G.ctl);
    wd_deadline = 0;
    if (v.bad && !quiet) {
        fprintf(stderr, "hc_fuzz: MISMATCH rank %d: %s\nhc_fuzz:   (rank %d: %s)\n", hf_opt.rank,
                v.what, hf_opt.rank, v.desc);
        fflush(stderr);
    }
    if (any && 0 == hf_opt.rank && !quiet) {
        fprintf(stderr, "hc_fuzz: case failed: %s\nhc_fuzz:   (%s)\n", line, v.desc);
        fflush(stderr);
    }
    return any;
}

/* the count the case draws for its call 0 (for bisection) */
static long drawn_count(const hf_case_t *eff)
{
    if (eff->count >= 0) {
        return eff->count;
    }
    /* (the instance computes it on a communicator: world's ranks are enough
     * to lay out one rank) */
    int *world = hf_alloc(sizeof(int) * (size_t) hf_opt.np);
    for (int i = 0; i < hf_opt.np; ++i) {
        world[i] = i;
    }
    hf_inst_t x;
    hf_inst_init(&x, eff, FAM_NEIGHBOR == eff->fam ? FAM_INTRA : eff->fam, hf_opt.np, -1, world,
                 NULL);
    long c = x.c * x.ty.ks;
    hf_inst_free(&x);
    free(world);
    return c;
}

/* Smaller failing cases, greedily: fewer ranks, simpler calls, a
 * sub-type, fewer elements; each candidate re-run in-process. */
static void shrink(const hf_case_t *cs, const hf_ovr_t *start)
{
    hf_ovr_t cur = *start, best = *start;
    int tries = 0, most = 60;
    double t0 = now();
    hf_case_t eff = *cs;
    hf_apply_ovr(&eff, &cur);
    if (0 == hf_opt.rank) {
        fprintf(stderr, "hc_fuzz: shrinking...\n");
    }
    if (eff.threads > 1) {
        if (0 == hf_opt.rank) {
            fprintf(stderr, "hc_fuzz: (a case with threads is not shrunk: its line above "
                            "reproduces it)\n");
        }
        return;
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
        hf_apply_ovr(&eff, &cur);
        /* one call of a batch alone */
        if (eff.batch > 1 && cur.pick < 0) {
            for (int i = 0; i < eff.batch && !improved; ++i) {
                TRY((t_.pick = i, t_.freed = 0));
            }
            if (!improved) {
                for (int k = eff.batch - 1; k >= 1 && !improved; --k) {
                    TRY(t_.batch = k);
                }
            }
        }
        if (!improved && eff.freed) TRY(t_.freed = 0);
        /* fewer ranks: prefixes of world */
        int members = hf_opt.np;
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
        if (!improved && RS_SAME != eff.rshape) TRY(t_.rshape = RS_SAME);
        if (!improved && CR_JOB != eff.crit) TRY(t_.crit = CR_JOB);
        if (!improved && 0 != eff.root && hf_is_rooted(eff.coll)) TRY(t_.root = 0);
        if (!improved && C_BARRIER != eff.coll && eff.batch <= 1) {
            /* a sub-type: a node below the current one */
            hf_types_t ty;
            hf_types_make(&eff, &ty, eff.fam);
            int ntree = ty.tree.n, curk = eff.subtype;
            hf_tree_t *copy = hf_alloc(sizeof(*copy));
            *copy = ty.tree;
            for (int k = curk + 1; k < ntree && !improved; ++k) {
                if (hf_tree_below(copy, k, curk)) {
                    TRY(t_.subtype = k);
                }
            }
            free(copy);
            hf_types_free(&ty);
            /* fewer elements: 1, then bisection between a passing count
             * and a failing one */
            long c0 = drawn_count(&eff);
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
    if (0 == hf_opt.rank) {
        char line[2048];
        hf_case_t fin = *cs;
        hf_apply_ovr(&fin, &best);
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
    if (0 == hf_opt.rank) {
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

/* a comma separated list of names into a bit mask; -1 on an unknown one */
static long long mask_of(const char *const *names, int n, const char *list)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", list);
    long long m = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = index_of(names, n, t);
        if (k < 0) {
            return -1;
        }
        m |= 1ll << k;
    }
    return m;
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

static void print_counts(void)
{
    const hf_stats_t *S = &hf_stats;
    fprintf(stderr, "hc_fuzz: per collective:");
    for (int c = 0; c < C_N; ++c) {
        if (S->coll[c]) fprintf(stderr, " %s:%ld", hf_coll_names[c], S->coll[c]);
    }
    fprintf(stderr, "\nhc_fuzz: per algorithm:");
    for (int k = 0; k < S->nalgo; ++k) {
        fprintf(stderr, " %s:%ld", S->algo_name[k], S->algo[k]);
    }
    fprintf(stderr, "\nhc_fuzz: per mode:");
    for (int k = 0; k < MD_N; ++k) {
        fprintf(stderr, " %s:%ld", hf_mode_names[k], S->mode[k]);
    }
    fprintf(stderr, "\nhc_fuzz: per dimension (calls): intra:%ld inter:%ld neighbor:%ld (cart:%ld "
                    "graph:%ld dist_graph:%ld) recv-split:%ld recv-merge:%ld",
            S->fam[FAM_INTRA], S->fam[FAM_INTER], S->fam[FAM_NEIGHBOR], S->topo[TOPO_CART],
            S->topo[TOPO_GRAPH], S->topo[TOPO_DIST], S->rshape[RS_SPLIT], S->rshape[RS_MERGE]);
    fprintf(stderr, "\nhc_fuzz: per dimension (cases): batch:%ld (", S->batch);
    for (int k = 0; k < CP_N; ++k) {
        fprintf(stderr, "%s%s:%ld", k ? " " : "", hf_cp_names[k], S->cp[k]);
    }
    fprintf(stderr, ") freed:%ld threads:%ld criterion", S->freed, S->threads);
    for (int k = 1; k < CR_N; ++k) {
        fprintf(stderr, " %s:%ld", hf_cr_names[k], S->crit[k]);
    }
    fprintf(stderr, "\nhc_fuzz: per type (calls): negative-stride:%ld", S->negstride);
    for (int t = 1; t < TN_N; ++t) {
        fprintf(stderr, " %s:%ld", hf_tn_names[t], S->tkind[t]);
    }
    for (int b = HF_NBASICS_GEN1; b < hf_nbasics; ++b) {
        fprintf(stderr, " %s:%ld", hf_basics[b].name, S->basic[b]);
    }
    fprintf(stderr, "\nhc_fuzz: per op (calls):");
    for (int k = 0; k < OP_N; ++k) {
        fprintf(stderr, " %s:%ld", hf_op_names[k], S->op[k]);
    }
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    bool threads = false;
    for (int i = 1; i < argc; ++i) {
        threads |= 0 == strcmp(argv[i], "--threads");
    }
    if (threads) {
        int provided = MPI_THREAD_SINGLE;
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        hf_opt.threads_ok = MPI_THREAD_MULTIPLE == provided;
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &hf_opt.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &hf_opt.np);
    hf_types_init();
    hf_ops_init();
    G.cases = -1;
    G.timeout = 120;
    G.shrink = true;
    G.log_fd = -1;
    hf_opt.gen = HF_GEN;
    hf_ovr_t ovr = hf_no_ovr;
    bool random_seed = false, seed_given = false;
    int want_np = -1;
    if (threads && !hf_opt.threads_ok) {
        return usage("--threads: MPI_THREAD_MULTIPLE is not provided");
    }
    for (int i = 1; i < argc; ++i) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (0 == strcmp(o, "--verbose")) {
            G.verbose = hf_opt.verbose = true;
            takes = false;
        } else if (0 == strcmp(o, "--no-shrink")) {
            G.shrink = false;
            takes = false;
        } else if (0 == strcmp(o, "--threads")) {
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
        } else if (0 == strcmp(o, "--hang-wait")) {
            G.hang_wait = atoi(v);
        } else if (0 == strcmp(o, "--case")) {
            G.one_case = true;
            G.case_seed = strtoull(v, NULL, 0);
        } else if (0 == strcmp(o, "--gen")) {
            hf_opt.gen = atoi(v);
            if (hf_opt.gen < 1 || hf_opt.gen > HF_GEN) {
                return usage("--gen: 1 or 2");
            }
        } else if (0 == strcmp(o, "--np")) {
            want_np = atoi(v);
        } else if (0 == strcmp(o, "--log")) {
            snprintf(G.log_dir, sizeof(G.log_dir), "%s", v);
        } else if (0 == strcmp(o, "--coll")) {
            snprintf(G.coll_arg, sizeof(G.coll_arg), "%s", v);
            long long m = mask_of(hf_coll_names, C_N, v);
            if (m < 0) {
                return usage("--coll: no such collective");
            }
            hf_opt.coll_mask = (unsigned long long) m;
        } else if (0 == strcmp(o, "--algo")) {
            snprintf(G.algo_arg, sizeof(G.algo_arg), "%s", v);
            snprintf(hf_opt.algo_list, sizeof(hf_opt.algo_list), ",%s,", v);
        } else if (0 == strcmp(o, "--dim") || 0 == strcmp(o, "--no-dim")) {
            long long m = mask_of(hf_dim_names, HF_DIM_N, v);
            if (m < 0) {
                return usage("--dim: inter, neighbor, batch, freed, threads, rshape, crit");
            }
            if (0 == strcmp(o, "--dim")) {
                hf_opt.dims_on = (unsigned) m;
                snprintf(G.dim_arg, sizeof(G.dim_arg), "%s", v);
            } else {
                hf_opt.dims_off = (unsigned) m;
                snprintf(G.nodim_arg, sizeof(G.nodim_arg), "%s", v);
            }
        } else if (0 == strcmp(o, "--ref")) {
            hf_opt.ref = 0 == strcmp(v, "serial") ? HF_REF_SERIAL
                         : 0 == strcmp(v, "basic") ? HF_REF_BASIC
                         : 0 == strcmp(v, "below") ? HF_REF_BELOW : -1;
            if (hf_opt.ref < 0) {
                return usage("--ref: serial, basic or below");
            }
        } else if (0 == strcmp(o, "--count")) {
            ovr.count = atol(v);
        } else if (0 == strcmp(o, "--subtype")) {
            ovr.subtype = atoi(v);
        } else if (0 == strcmp(o, "--comm")) {
            if (0 == strncmp(v, "prefix:", 7)) {
                ovr.comm = CM_PREFIX;
                ovr.prefix = atoi(v + 7);
            } else if ((ovr.comm = index_of(hf_comm_names, CM_N, v)) < 0) {
                return usage("--comm: world, reversed, subset, parity, one or prefix:K");
            }
        } else if (0 == strcmp(o, "--mode")) {
            if ((ovr.mode = index_of(hf_mode_names, MD_N, v)) < 0) {
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
        } else if (0 == strcmp(o, "--batch")) {
            ovr.batch = atoi(v);
        } else if (0 == strcmp(o, "--pick")) {
            ovr.pick = atoi(v);
        } else if (0 == strcmp(o, "--freed")) {
            ovr.freed = atoi(v);
        } else if (0 == strcmp(o, "--threads-n")) {
            ovr.threads = atoi(v);
        } else if (0 == strcmp(o, "--rshape")) {
            ovr.rshape = atoi(v);
        } else if (0 == strcmp(o, "--crit")) {
            ovr.crit = atoi(v);
        } else if (0 == strcmp(o, "--completion")) {
            ovr.completion = atoi(v);
        } else {
            return usage("unknown option");
        }
        if (takes) {
            ++i;
        }
    }
    if (want_np > 0 && want_np != hf_opt.np) {
        return usage("--np differs from the job's size: the case depends on it");
    }
    if (hf_opt.coll_mask || hf_opt.algo_list[0]) {
        bool any = false;
        char ch[16][32];
        for (int c = 0; c < C_N; ++c) {
            if ((!hf_opt.coll_mask || (hf_opt.coll_mask & (1ull << c)))
                && (c < HF_NCOLL_GEN1 || hf_opt.gen >= 2)
                && hf_algo_choices(c, hf_is_neighbor(c) ? FAM_NEIGHBOR : FAM_INTRA, ch, 16) > 0) {
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
        snprintf(path, sizeof(path), "%s/hc_fuzz.rank%d.case", G.log_dir, hf_opt.rank);
        G.log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    {
        MPI_Info info;
        MPI_Info_create(&info);
        char key[MPI_MAX_INFO_KEY + 8];
        for (int c = 0; c < C_N; ++c) {
            int w = snprintf(key, sizeof(key), "hiercoll_%s_algorithm", hf_coll_names[c]);
            if (w >= MPI_MAX_INFO_KEY) {
                snprintf(key, sizeof(key), "hiercoll_%s", hf_coll_names[c]);
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

    if (0 == hf_opt.rank) {
        if (G.one_case) {
            fprintf(stderr, "hc_fuzz: np %d, one case 0x%016llx\n", hf_opt.np,
                    (unsigned long long) G.case_seed);
        } else {
            char lim[64] = "";
            if (G.time_limit > 0) {
                snprintf(lim, sizeof(lim), " or %.0f s", G.time_limit);
            }
            fprintf(stderr, "hc_fuzz: np %d, run seed %llu (--seed %llu), %ld cases%s\n", hf_opt.np,
                    (unsigned long long) G.run_seed, (unsigned long long) G.run_seed, G.cases, lim);
        }
        fflush(stderr);
    }
    double t0 = now();
    long failed = 0, ran = 0;
    for (long i = G.first; i < G.first + G.cases; ++i) {
        int stop = 0;
        if (0 == hf_opt.rank && G.time_limit > 0 && now() - t0 >= G.time_limit) {
            stop = 1;
        }
        MPI_Bcast(&stop, 1, MPI_INT, 0, G.ctl);
        if (stop) {
            if (0 == hf_opt.rank) {
                fprintf(stderr, "hc_fuzz: --time %.0f s reached after %ld cases\n", G.time_limit,
                        i);
            }
            break;
        }
        uint64_t seed = G.one_case ? G.case_seed : hf_mix(G.run_seed + hf_mix((uint64_t) i));
        hf_case_t cs;
        hf_draw_case(&cs, seed, hf_opt.gen);
        int verdict = run_case(&cs, &ovr, i, false);
        ran++;
        if (verdict) {
            failed++;
            if (G.shrink) {
                shrink(&cs, &ovr);
            }
        }
        if (verdict > 1) {
            if (0 == hf_opt.rank) {
                fprintf(stderr, "hc_fuzz: stopping: the case wrote outside its buffers (guard "
                                "bytes), the heap may be corrupt and later cases unreliable\n");
            }
            break;
        }
    }
    double dt = now() - t0;
    if (0 == hf_opt.rank) {
        print_counts();
        fprintf(stderr,
                "hc_fuzz: np %d seed %llu: %ld cases, %ld mismatches, %.1f s, %.0f cases/minute\n",
                hf_opt.np, (unsigned long long) G.run_seed, ran, failed, dt,
                dt > 0 ? 60.0 * (double) ran / dt : 0.0);
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
