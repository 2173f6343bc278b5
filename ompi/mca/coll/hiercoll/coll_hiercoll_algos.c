/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The algorithms of every collective: what each one is called, which
 * planner serves it, when it applies, and what "auto" picks.
 *
 * Adapters below turn a call (MPI arguments) into a planner's plain
 * arguments; the planners themselves are MPI-free.
 */
#include "ompi_config.h"

#include <string.h>

#include "coll_hiercoll.h"
#include "coll_hiercoll_algos.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_shortcut.h"
#include "coll_hiercoll_shm.h"

#define PLANNED(expr) (0 == (expr) ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE)

/* ------------------------------------------------------------------ */
/* Decomposition (coll_hiercoll_decomp.c): an algorithm of every        */
/* collective, run directly (blocking calls only)                       */
/* ------------------------------------------------------------------ */

#define DECOMP(text)                                                                               \
    {                                                                                              \
        .name = "decomp", .summary = "decomposition by coll_hiercoll_decomp_criterion: " text,     \
        .start = mca_coll_hiercoll_decomp_start, .usable = mca_coll_hiercoll_decomp_usable         \
    }

/* The shared-memory node level (coll_hiercoll_shm.c): every mode, on a
 * communicator whose processes share a node (docs/node-level.md; its
 * engine and decisions: docs/design/shm-engine.md, docs/design/shm-*.md). */
#define SHM(text)                                                                                  \
    {                                                                                              \
        .name = "shm", .summary = "shared-memory node level: " text,                               \
        .usable = mca_coll_hiercoll_shm_usable, .start = mca_coll_hiercoll_shm_start               \
    }

/*
 * Where auto decomposes: calls on a communicator that splits into several
 * parts, some of more than one process, in every mode (a nonblocking or
 * persistent call runs the same pieces as its blocking form, started
 * from progress).  Measured with
 * contrib/hc_bench against tuned and han on 4 fake nodes x 4 processes
 * (test/fake-nodes.sh: TCP between the nodes, 16 processes on 2 cores),
 * placed by slot and round-robin:
 *   bcast, reduce, allreduce, barrier, reduce_scatter(_block): any size;
 *   allgather(v): any size when the parts are runs of ranks (the result
 *     then needs no unpacking), else up to DECOMP_ALLGATHER_MAX in all;
 *   alltoall: blocks up to DECOMP_ALLTOALL_MAX (beyond, the copies through
 *     the leaders cost more than the messages saved);
 *   gather: blocks up to DECOMP_ROOTED_MAX; scatter: the same when the
 *     parts interleave ranks (by slot, flat trees already keep to nodes);
 *   never gatherv and scatterv (a count exchange comes first), alltoallv
 *     and alltoallw (no rank knows every size), scan and exscan (the flat
 *     chain pipelines where the leaders' allgather cannot).
 */
#define DECOMP_ALLGATHER_MAX (64 * 1024)
#define DECOMP_ALLTOALL_MAX 1024
#define DECOMP_ROOTED_MAX 256

static bool decomp_in_auto(hc_coll_t coll)
{
    switch (coll) {
    case HC_GATHERV:
    case HC_SCATTERV:
    case HC_ALLTOALLV:
    case HC_ALLTOALLW:
    case HC_SCAN:
    case HC_EXSCAN:
    case HC_NEIGHBOR_ALLGATHER:
    case HC_NEIGHBOR_ALLGATHERV:
    case HC_NEIGHBOR_ALLTOALL:
    case HC_NEIGHBOR_ALLTOALLV:
    case HC_NEIGHBOR_ALLTOALLW:
        return false;
    default:
        return true;
    }
}

static size_t allgather_bytes(const hc_call_t *c)
{
    size_t total = 0;
    for (int r = 0; r < c->size; ++r) {
        total += (size_t) (HC_ALLGATHERV == c->coll ? c->rcounts[r] : c->rcount) * c->rsize;
    }
    return total;
}

/* (what the rules above ask about is known alike on every rank: in-place
 * roots' counts are set from their other side by call_init) */
static bool decomp_pays(const hc_call_t *c)
{
    if (!decomp_in_auto(c->coll)) {
        return false;
    }
    const hcp_decomp_t *lay = mca_coll_hiercoll_decomp_layout(c);
    if (NULL == lay || lay->nparts == c->size || !mca_coll_hiercoll_decomp_usable(c)) {
        return false;
    }
    switch (c->coll) {
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
        return lay->contiguous || allgather_bytes(c) <= DECOMP_ALLGATHER_MAX;
    case HC_ALLTOALL:
        return (size_t) c->rcount * c->rsize <= DECOMP_ALLTOALL_MAX;
    case HC_GATHER:
        return (size_t) c->scount * c->ssize <= DECOMP_ROOTED_MAX;
    case HC_SCATTER:
        return !lay->contiguous && (size_t) c->rcount * c->rsize <= DECOMP_ROOTED_MAX;
    default:
        return true;
    }
}

static const hc_algo_t *decomp_algo(hc_coll_t coll)
{
    for (const hc_algo_t *a = mca_coll_hiercoll_colls[coll].algos; a->name; ++a) {
        if (mca_coll_hiercoll_decomp_start == a->start) {
            return a;
        }
    }
    return NULL;
}

const hc_algo_t *mca_coll_hiercoll_decomp_auto(const hc_call_t *c)
{
    return decomp_pays(c) ? decomp_algo(c->coll) : NULL;
}

const hc_algo_t *mca_coll_hiercoll_shm_auto(const hc_call_t *c)
{
    if (!mca_coll_hiercoll_shm_wants(c)) {
        return NULL;
    }
    for (const hc_algo_t *a = mca_coll_hiercoll_colls[c->coll].algos; a->name; ++a) {
        if (mca_coll_hiercoll_shm_start == a->start) {
            return a;
        }
    }
    return NULL;
}

size_t mca_coll_hiercoll_decomp_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                         hc_mode_t md, char *buf, size_t len)
{
    char crit[64], rule[64] = "";
    (void) md; /* every mode alike */
    if (!decomp_in_auto(k) || NULL == mca_coll_hiercoll_decomp_criterion(m, crit, sizeof(crit))) {
        return 0;
    }
    if (HC_ALLGATHER == k || HC_ALLGATHERV == k) {
        snprintf(rule, sizeof(rule), "(runs of ranks|<=%dB)", DECOMP_ALLGATHER_MAX);
    } else if (HC_ALLTOALL == k || HC_GATHER == k) {
        snprintf(rule, sizeof(rule), "<=%dB",
                 HC_ALLTOALL == k ? DECOMP_ALLTOALL_MAX : DECOMP_ROOTED_MAX);
    } else if (HC_SCATTER == k) {
        snprintf(rule, sizeof(rule), "(interleaved,<=%dB)", DECOMP_ROOTED_MAX);
    }
    int w = snprintf(buf, len, "=decomp[%s]%s,", crit, rule);
    return w > 0 && (size_t) w < len ? (size_t) w : 0;
}

/* Verbose descriptions of auto: "=alg" runs hiercoll's algorithm, "->comp"
 * passes the call to the layer below. */
static void describe_fallback(const mca_coll_hiercoll_module_t *m, hc_coll_t k, hc_mode_t md,
                              char *buf, size_t len)
{
    if (NULL != m->prev_name[k][md]) {
        snprintf(buf, len, "->%s", m->prev_name[k][md]);
    } else {
        snprintf(buf, len, "=%s", mca_coll_hiercoll_colls[k].algos[0].name);
    }
}

/* A describe function whose text is a format of constants and parameters. */
#define DESCRIBE(fn, ...)                                                                          \
    static void fn(const mca_coll_hiercoll_module_t *m, hc_coll_t k, hc_mode_t md, char *buf,      \
                   size_t len)                                                                     \
    {                                                                                              \
        (void) m;                                                                                  \
        (void) k;                                                                                  \
        (void) md;                                                                                 \
        snprintf(buf, len, __VA_ARGS__);                                                           \
    }

/* auto is always the named algorithm */
#define DESCRIBE_FIXED(fn, text) DESCRIBE(fn, "=%s", text)

/* auto runs `small` below the component's parameter `min` (bytes), rhrd
 * from there on (for commutative ops) */
#define DESCRIBE_RHRD(fn, small, min)                                                              \
    DESCRIBE(fn, "=%s<%zuB,rhrd", small, mca_coll_hiercoll_params.min)

static bool commutative(const hc_call_t *c)
{
    return ompi_op_is_commute(c->op);
}

/* ------------------------------------------------------------------ */
/* bcast                                                                */
/* ------------------------------------------------------------------ */

static int bcast_binomial(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_bcast_binomial(p, c->size, c->rank, c->root, c->rcount, c->rsize));
}

static int bcast_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_bcast_linear(p, c->size, c->rank, c->root, c->rcount, c->rsize));
}

static const hc_algo_t bcast_algos[] = {
    {.name = "linear", .summary = "the root sends to every rank", .plan = bcast_linear},
    {.name = "binomial", .summary = "binomial tree, largest subtree first", .plan = bcast_binomial},
    DECOMP("root to the leaders over the bridge, then every part from its leader"),
    {.name = "offload",
     .summary = "triggered offload: the root's bytes down a K-nomial or K-ary tree "
                "armed up front, in 120-byte segments pipelined independently; predefined types",
     .usable = mca_coll_hiercoll_offload_usable,
     .start = mca_coll_hiercoll_offload_start},
    SHM("the root's bytes inline in its flag line (<= 112 B) or pipelined through its cells; "
        "any datatype (packed per chunk)"),
    {.name = NULL},
};

static void describe_bcast(const mca_coll_hiercoll_module_t *m, hc_coll_t k, hc_mode_t md,
                           char *buf, size_t len)
{
    if (NULL != m->prev_name[k][md]) {
        snprintf(buf, len, "=binomial<=%zuB,->%s", mca_coll_hiercoll_params.bcast_binomial_max,
                 m->prev_name[k][md]);
    } else {
        snprintf(buf, len, "=binomial");
    }
}

static const hc_algo_t *bcast_auto(const hc_call_t *c)
{
    size_t bytes = (size_t) c->rcount * c->rsize;
    if (bytes <= mca_coll_hiercoll_params.bcast_binomial_max
        || !mca_coll_hiercoll_has_fallback(c->module, c->coll, c->mode)) {
        return &bcast_algos[1];
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* reduce, allreduce                                                    */
/* ------------------------------------------------------------------ */

static int reduce_binomial(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_reduce_binomial(p, c->size, c->rank, c->root, c->rcount, c->rsize,
                                       commutative(c), c->in_place));
}

static int reduce_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(
        hcp_reduce_linear(p, c->size, c->rank, c->root, c->rcount, c->rsize, c->in_place));
}

/* RHRD reorders the reduction: commutative ops only (the others keep
 * their exact order through the trees). */
static bool rhrd_usable(const hc_call_t *c)
{
    return commutative(c);
}

/* auto: RHRD from `min` bytes of vector on. */
static bool rhrd_wanted(const hc_call_t *c, size_t min)
{
    return commutative(c) && (size_t) c->rcount * c->rsize >= min;
}

static int reduce_rhrd(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_reduce_rhrd(p, c->size, c->rank, c->root, c->rcount, c->rsize, c->in_place));
}

static int reduce_rabenseifner(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(
        hcp_reduce_rabenseifner(p, c->size, c->rank, c->root, c->rcount, c->rsize, c->in_place));
}

/* Triggered offload (coll_hiercoll_offload.c): every mode, its own usable. */
#define OFFLOAD(sum)                                                                               \
    {                                                                                              \
        .name = "offload", .summary = sum, .usable = mca_coll_hiercoll_offload_usable,             \
        .start = mca_coll_hiercoll_offload_start                                                   \
    }

/* Short-circuit (coll_hiercoll_shortcut.c): the plain plan, marked for
 * early exit when the vector is small enough to travel eagerly (decided
 * ranks leave receives posted, and Open MPI's ob1 cannot cancel them). */
static bool shortcut_fits(const hc_call_t *c)
{
    return commutative(c) && (size_t) c->rcount * c->rsize <= mca_coll_hiercoll_params.shortcut_max;
}

/* auto: a reduction whose (op, datatype) has an absorbing value (the
 * executor's history then decides, per call and rank, whether to look). */
static bool shortcut_wanted(const hc_call_t *c)
{
    hcp_sc_kind_t k;
    return mca_coll_hiercoll_shortcut_claims(c->coll) && c->size > 1 && shortcut_fits(c)
           && mca_coll_hiercoll_sc_kind(c->op, c->rtype, &k);
}

bool mca_coll_hiercoll_shortcut_claims(hc_coll_t k)
{
    /* (not the threshold: ranks may differ in it, and selection must agree) */
    return (HC_ALLREDUCE == k || HC_REDUCE == k) && mca_coll_hiercoll_params.shortcut_max > 0;
}

/* The table's "shortcut" entry. */
static const hc_algo_t *shortcut_of(const hc_algo_t *algos)
{
    while (NULL != algos->name && 0 != strcmp(algos->name, "shortcut")) {
        ++algos;
    }
    return algos;
}

static bool shortcut_forced(const hc_call_t *c, const hc_algo_t *algos, const hc_algo_t *a)
{
    return c->module->choice[c->coll] == (int) (a - algos);
}

static const hc_algo_t reduce_algos[];
static int reduce_shortcut(hcp_plan_t *p, const hc_call_t *c)
{
    if (!shortcut_fits(c)) {
        return reduce_binomial(p, c);
    }
    int rc = PLANNED(hcp_reduce_shortcut(p, c->size, c->rank, c->root, c->rcount, c->rsize,
                                         c->in_place, c->module->sc_decider));
    p->sc_force = shortcut_forced(c, reduce_algos, shortcut_of(reduce_algos));
    return rc;
}

static const hc_algo_t reduce_algos[] = {
    {.name = "linear",
     .summary = "the root receives from every rank and reduces in rank order",
     .plan = reduce_linear},
    {.name = "binomial",
     .summary = "binomial tree; non-commutative ops reduced in rank order at rank 0",
     .plan = reduce_binomial},
    {.name = "rhrd",
     .summary = "recursive halving, then a gather to the root, any process count (patented S0/S1 "
                "non-power-of-two scheme); commutative ops",
     .plan = reduce_rhrd,
     .usable = rhrd_usable},
    {.name = "rabenseifner",
     .summary = "recursive halving and gather after a pairwise pre-step that drops n - 2^k ranks "
                "(the classic scheme); commutative ops",
     .plan = reduce_rabenseifner,
     .usable = rhrd_usable},
    DECOMP("every part to its leader, then the leaders to the root over the bridge"),
    {.name = "shortcut",
     .summary = "binomial tree that exits early on absorbing values (LAND/LOR/BAND/BOR/MIN/MAX/"
                "PROD on integer and logical types, up to coll_hiercoll_shortcut_max bytes; "
                "beyond, the plain tree)",
     .plan = reduce_shortcut},
    OFFLOAD("triggered offload: chains armed up front on a K-nomial or K-ary tree, "
            "fired by the transport's agent or progress; the ALU's predefined ops and types"),
    SHM("contributions inline or in cells, folded in rank order by the root (small) or "
        "slice-parallel by every rank (longer, pipelined); contiguous datatypes, any op"),
    {.name = NULL},
};

#define DESCRIBE_SHORTCUT(fn, small, min)                                                          \
    DESCRIBE(fn, "=shortcut(absorbing,<=%zuB,engaged>=%d%%)|%s<%zuB,rhrd",                         \
             mca_coll_hiercoll_params.shortcut_max, mca_coll_hiercoll_params.shortcut_threshold,   \
             small, mca_coll_hiercoll_params.min)

DESCRIBE_SHORTCUT(describe_reduce, "binomial", reduce_rhrd_min)

static const hc_algo_t *reduce_auto(const hc_call_t *c)
{
    if (rhrd_wanted(c, mca_coll_hiercoll_params.reduce_rhrd_min)) {
        return &reduce_algos[2];
    }
    return shortcut_wanted(c) ? shortcut_of(reduce_algos) : &reduce_algos[1];
}

static int allreduce_recursive_doubling(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_allreduce_recursive_doubling(p, c->size, c->rank, c->rcount, c->rsize,
                                                    commutative(c), c->in_place));
}

static int allreduce_rhrd(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_allreduce_rhrd(p, c->size, c->rank, c->rcount, c->rsize, c->in_place));
}

static int allreduce_rabenseifner(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(
        hcp_allreduce_rabenseifner(p, c->size, c->rank, c->rcount, c->rsize, c->in_place));
}

static const hc_algo_t allreduce_algos[];
static int allreduce_shortcut(hcp_plan_t *p, const hc_call_t *c)
{
    if (!shortcut_fits(c)) {
        return allreduce_recursive_doubling(p, c);
    }
    int rc = PLANNED(hcp_allreduce_shortcut(p, c->size, c->rank, c->rcount, c->rsize, c->in_place));
    p->sc_force = shortcut_forced(c, allreduce_algos, shortcut_of(allreduce_algos));
    return rc;
}

static const hc_algo_t allreduce_algos[] = {
    {.name = "recursive_doubling",
     .summary = "recursive doubling, any process count (pairwise pre/post step), exact order",
     .plan = allreduce_recursive_doubling},
    {.name = "rhrd",
     .summary =
         "recursive halving and doubling, any process count (patented S0/S1 non-power-of-two "
         "scheme); commutative ops",
     .plan = allreduce_rhrd,
     .usable = rhrd_usable},
    {.name = "rabenseifner",
     .summary =
         "recursive halving and doubling after a pairwise pre-step that drops n - 2^k ranks, "
         "which get the result at the end (the classic scheme, Open MPI tuned's algorithm 6); "
         "commutative ops",
     .plan = allreduce_rabenseifner,
     .usable = rhrd_usable},
    DECOMP("part reduce, bridge allreduce, part bcast"),
    {.name = "shortcut",
     .summary = "recursive doubling that exits early on absorbing values (LAND/LOR/BAND/BOR/MIN/"
                "MAX/PROD on integer and logical types, up to coll_hiercoll_shortcut_max bytes; "
                "beyond, plain recursive doubling)",
     .plan = allreduce_shortcut},
    OFFLOAD("triggered offload: reduce up and result down a K-nomial or K-ary tree "
            "armed up front, fired by the transport's agent or progress; the ALU's predefined "
            "ops and types"),
    SHM("contributions inline or in cells, folded in rank order by every rank (small) or "
        "slice-parallel then copied out (longer, pipelined); contiguous datatypes, any op"),
    {.name = NULL},
};

DESCRIBE_SHORTCUT(describe_allreduce, "recursive_doubling", allreduce_rhrd_min)

static const hc_algo_t *allreduce_auto(const hc_call_t *c)
{
    if (rhrd_wanted(c, mca_coll_hiercoll_params.allreduce_rhrd_min)) {
        return &allreduce_algos[1];
    }
    return shortcut_wanted(c) ? shortcut_of(allreduce_algos) : &allreduce_algos[0];
}

/* ------------------------------------------------------------------ */
/* barrier                                                              */
/* ------------------------------------------------------------------ */

static int barrier_dissemination(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_barrier_dissemination(p, c->size, c->rank));
}

static int barrier_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_barrier_linear(p, c->size, c->rank));
}

static const hc_algo_t barrier_algos[] = {
    {.name = "linear",
     .summary = "everybody to rank 0, rank 0 to everybody",
     .plan = barrier_linear},
    {.name = "dissemination",
     .summary = "ceil(log2 n) rounds of one zero-byte exchange",
     .plan = barrier_dissemination},
    DECOMP("part barrier, bridge barrier, part bcast of a token"),
    OFFLOAD("triggered offload: a zero-byte allreduce armed up front, arrivals up "
            "a K-nomial or K-ary tree and the release down"),
    SHM("every rank writes its flag line and reads everyone's"),
    {.name = NULL},
};

DESCRIBE_FIXED(describe_barrier, "dissemination")

static const hc_algo_t *barrier_auto(const hc_call_t *c)
{
    return &barrier_algos[1];
}

/* ------------------------------------------------------------------ */
/* gather, gatherv, scatter, scatterv                                   */
/* ------------------------------------------------------------------ */

static int gather_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_gatherv_linear(p, c->size, c->rank, c->root, c->scount, c->ssize, NULL, NULL,
                                      c->rcount, c->rsize, c->in_place));
}

static int gatherv_linear(hcp_plan_t *p, const hc_call_t *c)
{
    bool root = c->rank == c->root;
    return PLANNED(hcp_gatherv_linear(p, c->size, c->rank, c->root, c->scount, c->ssize,
                                      root ? c->rcounts : NULL, root ? c->rdispls : NULL, 0,
                                      c->rsize, c->in_place));
}

static int scatter_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_scatterv_linear(p, c->size, c->rank, c->root, NULL, NULL, c->scount,
                                       c->ssize, c->rcount, c->rsize, c->in_place));
}

static int scatterv_linear(hcp_plan_t *p, const hc_call_t *c)
{
    bool root = c->rank == c->root;
    return PLANNED(hcp_scatterv_linear(p, c->size, c->rank, c->root, root ? c->scounts : NULL,
                                       root ? c->sdispls : NULL, 0, c->ssize, c->rcount, c->rsize,
                                       c->in_place));
}

static const hc_algo_t gather_algos[] = {
    {.name = "linear", .summary = "the root receives from every rank", .plan = gather_linear},
    DECOMP("every part to its leader, then the leaders to the root over the bridge"),
    SHM("every block through its owner's cells, the root copies them out; any datatypes"),
    {.name = NULL},
};
#define VTREE_ALGO(what)                                                                           \
    {                                                                                              \
        .name = "tree",                                                                            \
        .summary =                                                                                 \
            "binomial tree with message chains, " what " (level: coll_hiercoll_gatherv_level)",    \
        .plan = mca_coll_hiercoll_vtree_plan, .stages = mca_coll_hiercoll_vtree_stages,            \
        .staged = mca_coll_hiercoll_vtree_staged                                                   \
    }

static const hc_algo_t gatherv_algos[] = {
    {.name = "linear", .summary = "the root receives from every rank", .plan = gatherv_linear},
    VTREE_ALGO("the root receives from log2(n) ranks"),
    DECOMP("every part to its leader, then the leaders to the root over the bridge"),
    SHM("every block through its owner's cells, the root copies them out (it sends the chunk "
        "count inline); any datatypes"),
    {.name = NULL},
};
static const hc_algo_t scatter_algos[] = {
    {.name = "linear", .summary = "the root sends to every rank", .plan = scatter_linear},
    DECOMP("root to the leaders over the bridge, then every part from its leader"),
    SHM("the root writes every block into its reader's cell; any datatypes"),
    {.name = NULL},
};
static const hc_algo_t scatterv_algos[] = {
    {.name = "linear", .summary = "the root sends to every rank", .plan = scatterv_linear},
    VTREE_ALGO("the root sends to log2(n) ranks"),
    DECOMP("root to the leaders over the bridge, then every part from its leader"),
    SHM("the root writes every block into its reader's cell (and the chunk count inline); any "
        "datatypes"),
    {.name = NULL},
};

/* auto: the tree from coll_hiercoll_gatherv_tree_min processes (every
 * rank knows the size, none but the root the layout), else the layer
 * below, whose linear algorithm is faster on small communicators. */
static const hc_algo_t *vtree_auto(const hc_call_t *c, const hc_algo_t *algos)
{
    return c->size >= mca_coll_hiercoll_params.gatherv_tree_min ? &algos[1] : NULL;
}

static const hc_algo_t *gatherv_auto(const hc_call_t *c)
{
    return vtree_auto(c, gatherv_algos);
}

static const hc_algo_t *scatterv_auto(const hc_call_t *c)
{
    return vtree_auto(c, scatterv_algos);
}

static void describe_vtree(const mca_coll_hiercoll_module_t *m, hc_coll_t k, hc_mode_t md,
                           char *buf, size_t len)
{
    if (ompi_comm_size(m->comm) >= mca_coll_hiercoll_params.gatherv_tree_min) {
        snprintf(buf, len, "=tree(%s)", m->gatherv_level ? "aggressive" : "conservative");
    } else {
        describe_fallback(m, k, md, buf, len);
    }
}

#define VTREE_RULE                                                                                 \
    "tree from coll_hiercoll_gatherv_tree_min processes, at the communicator's "                   \
    "coll_hiercoll_gatherv_level; on fewer, the layer below"

/* ------------------------------------------------------------------ */
/* allgather(v), alltoall(v,w)                                          */
/* ------------------------------------------------------------------ */

static int allgather_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_allgatherv_linear(p, c->size, c->rank, c->scount, c->ssize, NULL, NULL,
                                         c->rcount, c->rsize, c->in_place));
}

static int allgatherv_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_allgatherv_linear(p, c->size, c->rank, c->scount, c->ssize, c->rcounts,
                                         c->rdispls, 0, c->rsize, c->in_place));
}

static int alltoall_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_alltoallv_linear(p, c->size, c->rank, NULL, NULL, c->scount, c->ssize, NULL,
                                        NULL, c->rcount, c->rsize, c->in_place));
}

static int alltoallv_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_alltoallv_linear(p, c->size, c->rank, c->scounts, c->sdispls, 0, c->ssize,
                                        c->rcounts, c->rdispls, 0, c->rsize, c->in_place));
}

static int alltoallw_linear(hcp_plan_t *p, const hc_call_t *c)
{
    size_t *ss = malloc(sizeof(size_t) * 2 * (size_t) c->size);
    if (NULL == ss) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    size_t *rs = ss + c->size;
    for (int j = 0; j < c->size; ++j) {
        ss[j] = 0;
        if (!c->in_place) {
            ompi_datatype_type_size(c->stypes[j], &ss[j]);
        }
        ompi_datatype_type_size(c->rtypes[j], &rs[j]);
    }
    int rc = hcp_alltoallw_linear(p, c->size, c->rank, c->scounts, c->sdispls, ss, c->rcounts,
                                  c->rdispls, rs, c->in_place);
    free(ss);
    return PLANNED(rc);
}

static const hc_algo_t allgather_algos[] = {
    {.name = "linear",
     .summary = "every rank sends its block to every other",
     .plan = allgather_linear},
    DECOMP("part gather, bridge allgatherv, part bcast"),
    SHM("every block through its owner's cells, chunk by chunk; any datatypes"),
    {.name = NULL},
};
static const hc_algo_t allgatherv_algos[] = {
    {.name = "linear",
     .summary = "every rank sends its block to every other",
     .plan = allgatherv_linear},
    DECOMP("part gather, bridge allgatherv, part bcast"),
    SHM("every block through its owner's cells, chunk by chunk; any datatypes"),
    {.name = NULL},
};
static const hc_algo_t alltoall_algos[] = {
    {.name = "linear", .summary = "all pairs at once, staggered", .plan = alltoall_linear},
    DECOMP("leaders gather what leaves the part, parts exchange inside, leaders alltoallv, leaders "
           "scatter"),
    {.name = NULL},
};
static const hc_algo_t alltoallv_algos[] = {
    {.name = "linear", .summary = "all pairs at once, staggered", .plan = alltoallv_linear},
    DECOMP("leaders gather what leaves the part, parts exchange inside, leaders alltoallv, leaders "
           "scatter"),
    {.name = NULL},
};
static const hc_algo_t alltoallw_algos[] = {
    {.name = "linear", .summary = "all pairs at once, staggered", .plan = alltoallw_linear},
    DECOMP("leaders gather what leaves the part, parts exchange inside, leaders alltoallv, leaders "
           "scatter"),
    {.name = NULL},
};

/* ------------------------------------------------------------------ */
/* scan, exscan, reduce_scatter(_block)                                 */
/* ------------------------------------------------------------------ */

static int scan_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_scan_linear(p, c->size, c->rank, c->rcount, c->rsize, false, c->in_place));
}

static int exscan_linear(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_scan_linear(p, c->size, c->rank, c->rcount, c->rsize, true, c->in_place));
}

static int reduce_scatter_basic(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_reduce_scatter_basic(p, c->size, c->rank, c->rcounts, 0, c->rsize,
                                            commutative(c), c->in_place));
}

static int reduce_scatter_block_basic(hcp_plan_t *p, const hc_call_t *c)
{
    return PLANNED(hcp_reduce_scatter_basic(p, c->size, c->rank, NULL, c->rcount, c->rsize,
                                            commutative(c), c->in_place));
}

static const hc_algo_t scan_algos[] = {
    {.name = "linear", .summary = "a chain in rank order", .plan = scan_linear},
    DECOMP("inputs to every leader (part gather, bridge allgatherv), folded in rank order, part "
           "scatterv"),
    {.name = NULL},
};
static const hc_algo_t exscan_algos[] = {
    {.name = "linear", .summary = "a chain in rank order", .plan = exscan_linear},
    DECOMP("inputs to every leader (part gather, bridge allgatherv), folded in rank order, part "
           "scatterv"),
    {.name = NULL},
};
static const hc_algo_t reduce_scatter_algos[] = {
    {.name = "basic",
     .summary = "ordered binomial reduce to rank 0, then scatterv",
     .plan = reduce_scatter_basic},
    DECOMP("part reduce, bridge reduce_scatter (allreduce when parts interleave), part scatterv"),
    SHM("every vector through its cells chunk by chunk; each rank folds its own block in rank "
        "order; contiguous datatypes, any op"),
    {.name = NULL},
};
static const hc_algo_t reduce_scatter_block_algos[] = {
    {.name = "basic",
     .summary = "ordered binomial reduce to rank 0, then scatter",
     .plan = reduce_scatter_block_basic},
    DECOMP("part reduce, bridge reduce_scatter (allreduce when parts interleave), part scatterv"),
    SHM("every vector through its cells chunk by chunk; each rank folds its own block in rank "
        "order; contiguous datatypes, any op"),
    {.name = NULL},
};

/* auto for collectives where hiercoll's only better answer is
 * decomposition (asked before every auto policy, by the selection): fall
 * back (the executor still runs the linear plan when there is no layer
 * below). */
static const hc_algo_t *prefer_fallback(const hc_call_t *c)
{
    (void) c;
    return NULL;
}

#define FALLBACK_RULE "the layer below; hiercoll's plan only when there is none"

/* The neighborhood collectives (coll_hiercoll_neighbor.c): one table of
 * algorithms; coll/basic has only their blocking forms. */
#define NEIGHBOR(rule)                                                                             \
    mca_coll_hiercoll_neighbor_algos, mca_coll_hiercoll_neighbor_auto, rule,                       \
        mca_coll_hiercoll_neighbor_describe
#define NEIGHBOR_GATHER_RULE FALLBACK_RULE
#define NEIGHBOR_EXCHANGE_RULE                                                                     \
    "the layer below, except the nonblocking and persistent forms on Cartesian "          \
    "communicators with a periodic dimension of size 1 or 2 (Open MPI 4.1's libnbc puts their "  \
    "blocks in the wrong direction); hiercoll's plan when there is no layer below"

const hc_coll_desc_t mca_coll_hiercoll_colls[HC_NCOLL] = {
    [HC_ALLGATHER] = {allgather_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_ALLGATHERV] = {allgatherv_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_ALLREDUCE] = {allreduce_algos, allreduce_auto,
                      "rhrd from coll_hiercoll_allreduce_rhrd_min bytes on for commutative ops, "
                      "else shortcut for ops with absorbing values up to "
                      "coll_hiercoll_shortcut_max bytes, else recursive_doubling",
                      describe_allreduce},
    [HC_ALLTOALL] = {alltoall_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_ALLTOALLV] = {alltoallv_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_ALLTOALLW] = {alltoallw_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_BARRIER] = {barrier_algos, barrier_auto, "dissemination", describe_barrier},
    [HC_BCAST] = {bcast_algos, bcast_auto,
                  "binomial up to coll_hiercoll_bcast_binomial_max bytes, then the layer below",
                  describe_bcast},
    [HC_EXSCAN] = {exscan_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_GATHER] = {gather_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_GATHERV] = {gatherv_algos, gatherv_auto, VTREE_RULE, describe_vtree},
    [HC_REDUCE] = {reduce_algos, reduce_auto,
                   "rhrd from coll_hiercoll_reduce_rhrd_min bytes on for commutative ops, else "
                   "shortcut for ops with absorbing values up to coll_hiercoll_shortcut_max "
                   "bytes, else binomial",
                   describe_reduce},
    [HC_REDUCE_SCATTER_BLOCK] = {reduce_scatter_block_algos, prefer_fallback, FALLBACK_RULE,
                                 describe_fallback},
    [HC_REDUCE_SCATTER] = {reduce_scatter_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_SCAN] = {scan_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_SCATTER] = {scatter_algos, prefer_fallback, FALLBACK_RULE, describe_fallback},
    [HC_SCATTERV] = {scatterv_algos, scatterv_auto, VTREE_RULE, describe_vtree},
    [HC_NEIGHBOR_ALLGATHER] = {NEIGHBOR(NEIGHBOR_GATHER_RULE)},
    [HC_NEIGHBOR_ALLGATHERV] = {NEIGHBOR(NEIGHBOR_GATHER_RULE)},
    [HC_NEIGHBOR_ALLTOALL] = {NEIGHBOR(NEIGHBOR_EXCHANGE_RULE)},
    [HC_NEIGHBOR_ALLTOALLV] = {NEIGHBOR(NEIGHBOR_EXCHANGE_RULE)},
    [HC_NEIGHBOR_ALLTOALLW] = {NEIGHBOR(NEIGHBOR_EXCHANGE_RULE)},
};

bool mca_coll_hiercoll_shortcut_watch(const hc_call_t *c)
{
    return HC_ALLREDUCE == c->coll && HC_BLOCKING == c->mode
           && HC_ALGO_AUTO == c->module->choice[c->coll] && shortcut_wanted(c);
}

const hc_algo_t *mca_coll_hiercoll_shortcut_upgrade(const hc_call_t *c, const hc_algo_t *a)
{
    if (NULL == a || !shortcut_wanted(c)) {
        return a;
    }
    if (a == &allreduce_algos[0]) { /* recursive doubling */
        return shortcut_of(allreduce_algos);
    }
    if (a == &reduce_algos[1]) { /* binomial */
        return shortcut_of(reduce_algos);
    }
    return a;
}

const hc_algo_t *mca_coll_hiercoll_shortcut_auto(const hc_call_t *c)
{
    if ((HC_ALLREDUCE != c->coll && HC_REDUCE != c->coll) || !shortcut_wanted(c)) {
        return NULL;
    }
    /* Blocking calls follow the selection rules (measured without decided
     * values) unless the allreduce's results were decided often enough;
     * ranks must agree, so no rank-local history decides here. */
    if (HC_BLOCKING == c->mode) {
        if (HC_ALLREDUCE != c->coll) {
            return NULL;
        }
        ((hc_call_t *) c)->sc_sel = mca_coll_hiercoll_sc_selects(c->module, c->op, c->rtype);
        if (!c->sc_sel) {
            return NULL;
        }
    }
    size_t min = HC_ALLREDUCE == c->coll ? mca_coll_hiercoll_params.allreduce_rhrd_min
                                         : mca_coll_hiercoll_params.reduce_rhrd_min;
    if (rhrd_wanted(c, min)) {
        return NULL;
    }
    return HC_ALLREDUCE == c->coll ? shortcut_of(allreduce_algos) : shortcut_of(reduce_algos);
}
