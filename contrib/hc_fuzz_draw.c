/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: a case from its 64-bit seed.  Generation 1 draws exactly what
 * the fuzzer's first version drew (stream 1: the collective, mode,
 * communicator, root, op, datatype, counts, in place, repetitions); 
 * generation 2 draws from stream 1 the same way (among 22 collectives and
 * 28 predefined types) and from stream 2 the dimensions added since: the
 * family (intra, inter, neighbor), the topology, calls in flight on the
 * communicator and how they complete, a communicator freed with requests
 * in flight, threads, the receive side's type and count, and the
 * decomposition criterion.
 */
#include "hc_fuzz.h"

#include <stdio.h>
#include <string.h>

const char *hf_fam_names[FAM_N] = {"intra", "inter", "neighbor"};
const char *hf_mode_names[MD_N] = {"blocking", "nonblocking", "persistent"};
const char *hf_comm_names[CM_N] = {"world", "reversed", "subset", "parity", "one", "prefix"};
const char *hf_topo_names[TOPO_N] = {"cart", "graph", "dist_graph"};
const char *hf_cp_names[CP_N] = {"wait", "waitall", "testall", "waitany", "waitsome", "test"};
const char *hf_rs_names[RS_N] = {"same", "split", "merge"};
const char *hf_cr_names[CR_N] = {"job", "block", "list", "none", "node"};
const char *hf_dim_names[HF_DIM_N] = {"inter", "neighbor", "batch", "freed", "threads", "rshape",
                                      "crit"};
const hf_ovr_t hf_no_ovr = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
hf_opts_t hf_opt;

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
    [C_NB_ALLGATHER] = "linear",
    [C_NB_ALLGATHERV] = "linear",
    [C_NB_ALLTOALL] = "linear",
    [C_NB_ALLTOALLV] = "linear",
    [C_NB_ALLTOALLW] = "linear",
};

bool hf_is_reduction(int c)
{
    return C_ALLREDUCE == c || C_REDUCE == c || C_REDUCE_SCATTER == c
           || C_REDUCE_SCATTER_BLOCK == c || C_SCAN == c || C_EXSCAN == c;
}

bool hf_is_rooted(int c)
{
    return C_BCAST == c || C_REDUCE == c || C_GATHER == c || C_GATHERV == c || C_SCATTER == c
           || C_SCATTERV == c;
}

bool hf_is_neighbor(int c)
{
    return c >= C_NB_ALLGATHER;
}

/* the collectives of a family */
static bool in_family(int c, int fam)
{
    switch (fam) {
    case FAM_INTRA: return c < HF_NCOLL_GEN1;
    case FAM_INTER: return c < HF_NCOLL_GEN1 && C_SCAN != c && C_EXSCAN != c;
    default: return hf_is_neighbor(c);
    }
}

static bool algo_allowed(const char *a)
{
    if ('\0' == hf_opt.algo_list[0]) {
        return true;
    }
    char k[40];
    snprintf(k, sizeof(k), ",%s,", a);
    return NULL != strstr(hf_opt.algo_list, k);
}

/* auto and the table's algorithms; on an intercommunicator any name
 * forces hiercoll's own plan: the table's first one stands for it */
int hf_algo_choices(int coll, int fam, char out[][32], int most)
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
        if (FAM_INTER == fam) {
            break;
        }
    }
    return n;
}

const char *hf_own_algo(int coll, char *buf, size_t len)
{
    snprintf(buf, len, "%s", coll_algos[coll]);
    char *sp = strchr(buf, ' ');
    if (NULL != sp) {
        *sp = '\0';
    }
    return buf;
}

static bool coll_ok(int c)
{
    return 0 == hf_opt.coll_mask || (hf_opt.coll_mask & (1ull << c));
}

static bool dim_on(int d)
{
    return hf_opt.dims_on & (1u << d);
}

static bool dim_off(int d)
{
    return hf_opt.dims_off & (1u << d);
}

/* whether family fam has a collective the options allow */
static bool family_ok(int fam)
{
    char ch[16][32];
    for (int c = 0; c < C_N; ++c) {
        if (in_family(c, fam) && coll_ok(c) && hf_algo_choices(c, fam, ch, 16) > 0) {
            return true;
        }
    }
    return false;
}

/* inherit: the family and communicator of a batch's or thread's case */
static void draw(hf_case_t *cs, uint64_t seed, int gen, const hf_case_t *inherit)
{
    memset(cs, 0, sizeof(*cs));
    cs->seed = seed;
    cs->gen = gen;
    hf_rng_t r = hf_stream(seed, 1), r2 = hf_stream(seed, 2);
    int fam = FAM_INTRA;
    if (gen >= 2) {
        if (NULL != inherit) {
            fam = inherit->fam;
        } else {
            int w = (int) hf_below(&r2, 100);
            fam = w < 70 ? FAM_INTRA : w < 85 ? FAM_INTER : FAM_NEIGHBOR;
            if (dim_on(HF_DIM_INTER)) fam = FAM_INTER;
            if (dim_on(HF_DIM_NEIGHBOR)) fam = FAM_NEIGHBOR;
            if ((FAM_INTER == fam && dim_off(HF_DIM_INTER))
                || (FAM_NEIGHBOR == fam && dim_off(HF_DIM_NEIGHBOR)) || !family_ok(fam)) {
                fam = FAM_INTRA;
            }
            if (!family_ok(fam)) {
                fam = family_ok(FAM_NEIGHBOR) ? FAM_NEIGHBOR : FAM_INTER;
            }
        }
    }
    cs->fam = fam;
    char choices[16][32];
    int nch = 0;
    int ncoll = gen >= 2 ? C_N : HF_NCOLL_GEN1;
    for (int tries = 0; tries < 1000; ++tries) {
        cs->coll = (int) hf_below(&r, (uint64_t) ncoll);
        if (!coll_ok(cs->coll) || !in_family(cs->coll, fam)) {
            continue;
        }
        nch = hf_algo_choices(cs->coll, fam, choices, 16);
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
    int nb = hf_nbasics_of(gen);
    uint64_t opraw = hf_next(&r), bas = hf_next(&r);
    if (hf_is_reduction(cs->coll)) {
        int k = (int) (opraw % 100);
        if (k < 45) {
            /* a predefined op on a predefined type it fits */
            cs->op = (int) ((opraw >> 8) % (OP_MAXLOC + 1));
            int fit[64], nf = 0;
            for (int b = 0; b < nb; ++b) {
                if (hf_op_fits(cs->op, b)) {
                    fit[nf++] = b;
                }
            }
            cs->pick_basic = fit[bas % (uint64_t) nf];
        } else {
            cs->op = k < 72 ? OP_USER_COMM : OP_USER_NONCOMM;
        }
    } else if (hf_chance(&r, 15)) {
        cs->pick_basic = (int) (bas % (uint64_t) nb);
        if (!hf_basic_moves_whole(cs->pick_basic)) {
            cs->pick_basic = (int) (bas % 16); /* (a basic type of the first 16) */
        }
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
    if (gen < 2) {
        cs->batch = 1;
        return;
    }
    /* ---- generation 2: stream 2 ---- */
    cs->topo = (int) hf_below(&r2, TOPO_N);
    cs->topo_seed = hf_next(&r2);
    w = (int) hf_below(&r2, 100);
    cs->rshape = w < 20 ? RS_SPLIT : w < 35 ? RS_MERGE : RS_SAME;
    if (hf_is_reduction(cs->coll) || C_BARRIER == cs->coll || dim_off(HF_DIM_RSHAPE)) {
        cs->rshape = RS_SAME; /* (reductions: one type and count on every rank) */
    } else if (dim_on(HF_DIM_RSHAPE) && RS_SAME == cs->rshape) {
        cs->rshape = hf_chance(&r2, 50) ? RS_SPLIT : RS_MERGE;
    }
    w = (int) hf_below(&r2, 100);
    cs->crit = w < 45 ? CR_JOB : w < 62 ? CR_BLOCK : w < 80 ? CR_LIST : w < 90 ? CR_NONE : CR_NODE;
    cs->crit_seed = hf_next(&r2);
    if (dim_off(HF_DIM_CRIT) || FAM_INTER == fam) {
        cs->crit = CR_JOB;
    } else if (dim_on(HF_DIM_CRIT) && CR_JOB == cs->crit) {
        cs->crit = CR_LIST;
    }
    cs->batch = 1;
    w = (int) hf_below(&r2, 100);
    if ((w < 15 || dim_on(HF_DIM_BATCH)) && !dim_off(HF_DIM_BATCH)) {
        cs->batch = 2 + (int) hf_below(&r2, HF_MAX_BATCH - 1);
    }
    cs->completion = (int) hf_below(&r2, CP_N);
    w = (int) hf_below(&r2, 100);
    /* (an intercommunicator is never freed in flight: Open MPI 4.1.4 and
     * 5.0.7 destroy one whose context id is lower than its parent's at
     * MPI_Comm_free, whatever holds a reference to it: known issues) */
    bool can_free = (cs->batch > 1 || MD_BLOCKING != cs->mode) && FAM_INTER != fam;
    cs->freed = can_free && !dim_off(HF_DIM_FREED)
                && (dim_on(HF_DIM_FREED) || w < (cs->batch > 1 ? 30 : 8));
    w = (int) hf_below(&r2, 100);
    cs->threads = 0;
    if (hf_opt.threads_ok && NULL == inherit && !dim_off(HF_DIM_THREADS)
        && (dim_on(HF_DIM_THREADS) || w < 20)) {
        cs->threads = 2 + (int) hf_below(&r2, HF_MAX_THREADS - 1);
    }
    if (NULL != inherit) {
        cs->comm = inherit->comm;
        cs->prefix = inherit->prefix;
        cs->mask = inherit->mask;
        cs->key_rev = inherit->key_rev;
        cs->topo = inherit->topo;
        cs->topo_seed = inherit->topo_seed;
        cs->crit = inherit->crit;
        cs->crit_seed = inherit->crit_seed;
    }
}

void hf_draw_case(hf_case_t *cs, uint64_t seed, int gen)
{
    draw(cs, seed, gen, NULL);
}

void hf_draw_sub(const hf_case_t *top, int i, hf_case_t *out)
{
    draw(out, hf_mix(top->seed ^ hf_mix(0x5ab0000ull + (uint64_t) i)), top->gen, top);
    out->threads = 0;
    if (i < 1000) {
        /* a call of a batch: once, except persistent ones (restarted) */
        out->batch = 1;
        out->freed = 0;
        if (MD_PERSISTENT != out->mode) {
            out->reps = 1;
        }
        out->warm = 0;
    }
}

void hf_apply_ovr(hf_case_t *cs, const hf_ovr_t *o)
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
    if (o->batch >= 0 && cs->batch > o->batch) cs->batch = o->batch > 0 ? o->batch : 1;
    if (o->rshape >= 0) cs->rshape = o->rshape;
    if (o->crit >= 0) cs->crit = o->crit;
    if (o->freed >= 0) cs->freed = o->freed;
    if (o->threads >= 0) cs->threads = o->threads;
    if (o->completion >= 0) cs->completion = o->completion;
}
