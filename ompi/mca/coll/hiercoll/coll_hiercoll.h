/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * hiercoll: shared types of the component.
 *
 * Layers, top to bottom:
 *   entry points (coll_hiercoll_entry.c)  one per collective and mode,
 *       turn the MPI arguments into an hc_call_t and dispatch it;
 *   selection (coll_hiercoll_select.c)     per communicator (MCA parameters,
 *       info keys, what the previous components provide) and per call
 *       (sizes, op, datatype) picks an algorithm or the fallback;
 *   algorithms (coll_hiercoll_algos.c and one file per capability) bind a
 *       call to an MPI-free planner (coll_hiercoll_plan*.c) or run it
 *       directly (decomposition);
 *   executor (coll_hiercoll_exec.c)         runs any plan over the PML,
 *       blocking or as a nonblocking or persistent request.
 */
#ifndef MCA_COLL_HIERCOLL_EXPORT_H
#define MCA_COLL_HIERCOLL_EXPORT_H

#include "ompi_config.h"

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/base/base.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"
#include "opal/class/opal_list.h"

#include "coll_hiercoll_compat.h"

#include "coll_hiercoll_plan.h"
#include "coll_hiercoll_plan_decomp.h"
#include "coll_hiercoll_rules.h"

BEGIN_C_DECLS

/* ------------------------------------------------------------------ */
/* Collectives and modes                                                */
/* ------------------------------------------------------------------ */

typedef enum hc_coll {
    HC_ALLGATHER,
    HC_ALLGATHERV,
    HC_ALLREDUCE,
    HC_ALLTOALL,
    HC_ALLTOALLV,
    HC_ALLTOALLW,
    HC_BARRIER,
    HC_BCAST,
    HC_EXSCAN,
    HC_GATHER,
    HC_GATHERV,
    HC_REDUCE,
    HC_REDUCE_SCATTER_BLOCK,
    HC_REDUCE_SCATTER,
    HC_SCAN,
    HC_SCATTER,
    HC_SCATTERV,
    /* neighborhood collectives (coll_hiercoll_neighbor.c) */
    HC_NEIGHBOR_ALLGATHER,
    HC_NEIGHBOR_ALLGATHERV,
    HC_NEIGHBOR_ALLTOALL,
    HC_NEIGHBOR_ALLTOALLV,
    HC_NEIGHBOR_ALLTOALLW,
    HC_NCOLL
} hc_coll_t;

typedef enum hc_mode {
    HC_BLOCKING,
    HC_NONBLOCKING,
    HC_PERSISTENT,
    HC_NMODE
} hc_mode_t;

/* Algorithm choices besides the named ones. */
#define HC_ALGO_AUTO (-1)
#define HC_ALGO_FALLBACK (-2)

/* ------------------------------------------------------------------ */
/* One call                                                             */
/* ------------------------------------------------------------------ */

typedef struct mca_coll_hiercoll_module_t mca_coll_hiercoll_module_t;

typedef struct hc_call {
    hc_coll_t coll;
    hc_mode_t mode;
    /* the MPI arguments (unused ones zero) */
    const void *sbuf;
    void *rbuf;
    int scount, rcount;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    ompi_datatype_t *stype, *rtype;
    ompi_datatype_t *const *stypes, *const *rtypes;
    const MPI_Aint *sadispls, *radispls; /* neighbor_alltoallw's byte displacements */
    ompi_op_t *op;
    int root;
    /* derived */
    ompi_communicator_t *comm;
    mca_coll_hiercoll_module_t *module;
    int rank, size;
    bool in_place;      /* MPI_IN_PLACE where this rank's role allows it */
    size_t ssize, rsize;/* signature bytes of one stype / rtype element;
                         * reductions keep their one datatype in rtype */
    const hcp_rule_t *rule; /* the selection rule that chose (verbose) */
    bool sc_sel;            /* blocking allreduce: the results' history chose the shortcut */
    bool no_fast;           /* the fast path must not remember this call (shm admission) */
} hc_call_t;

/* ------------------------------------------------------------------ */
/* Algorithms                                                           */
/* ------------------------------------------------------------------ */

/* Staged plans: when a plan's later part depends on data its earlier part
 * receives (e.g. counts broadcast before a tree gatherv), the algorithm
 * describes stages; the executor builds stage k's plan once stage k-1 has
 * completed, in every mode (persistent requests start again at stage 0). */
#define HC_NO_MORE_STAGES 1
/* A request algorithm's start: the call is not mine after all (decided
 * alike on every rank, e.g. a shared-memory set-up that failed on one of
 * them); select again.  Its usable must now answer no. */
#define HC_DECLINED 2
struct hc_bind;
typedef struct hc_stages {
    void *ctx;
    int nstages; /* at most this many stages (one tag is reserved for each) */
    /* Build stage k's plan (resetting `plan`) and bind what it needs beyond
     * the user's buffers (*bind arrives with them bound, and may be
     * rebound).  Returns OMPI_SUCCESS, HC_NO_MORE_STAGES, or an error. */
    int (*build)(void *ctx, int k, hcp_plan_t *plan, struct hc_bind *bind);
    void (*release)(void *ctx); /* frees ctx; may be NULL */
} hc_stages_t;

typedef struct hc_algo {
    const char *name;
    const char *summary;
    /* Plan-based algorithms build this rank's plan (the executor runs it in
     * every mode); returns OMPI_SUCCESS or an error. */
    int (*plan)(hcp_plan_t *plan, const hc_call_t *call);
    /* Direct algorithms run a blocking call themselves. */
    int (*run)(hc_call_t *call);
    /* Can it serve this call?  NULL: always.  Must answer the same on every
     * rank of the communicator (it may only look at arguments that MPI
     * requires to agree). */
    bool (*usable)(const hc_call_t *call);
    /* Staged algorithms (instead of plan): describe the stages of this
     * call; the context must copy what it needs from the call. */
    int (*stages)(const hc_call_t *call, hc_stages_t *out);
    /* Algorithms with both a plan and stages: does this call take the
     * stages?  NULL: always.  Same answer on every rank. */
    bool (*staged)(const hc_call_t *call);
    /* Request algorithms (triggered offload, coll_hiercoll_offload.c): run
     * the call in every mode themselves (blocking: request NULL, info
     * NULL); `usable` decides which calls they take. */
    int (*start)(hc_call_t *call, ompi_request_t **request, struct ompi_info_t *info);
} hc_algo_t;

typedef struct hc_coll_desc {
    const char *name;       /* "bcast" */
    const hc_algo_t *algos; /* terminated by a NULL name */
    /* auto: the algorithm for this call, or NULL for the fallback */
    const hc_algo_t *(*auto_pick)(const hc_call_t *call);
    const char *auto_rule;  /* for the parameter's description */
    /* What auto does on this communicator in this mode, e.g.
     * "=binomial<=524288B,->tuned" (verbose output). */
    void (*describe)(const mca_coll_hiercoll_module_t *m, hc_coll_t coll, hc_mode_t mode,
                     char *buf, size_t len);
} hc_coll_desc_t;

extern const hc_coll_desc_t mca_coll_hiercoll_colls[HC_NCOLL];

/* 0 for "conservative", 1 for "aggressive", -1 for anything else. */
int mca_coll_hiercoll_gatherv_level_of(const char *s);

/* Index of an algorithm name for a collective, or HC_ALGO_AUTO /
 * HC_ALGO_FALLBACK for "auto" / "fallback", or -3 when unknown. */
int mca_coll_hiercoll_algo_index(hc_coll_t coll, const char *name);

/* ------------------------------------------------------------------ */
/* Statistics                                                           */
/* ------------------------------------------------------------------ */

typedef struct hc_stats {
    uint64_t calls[HC_NCOLL];     /* run by hiercoll */
    uint64_t fallbacks[HC_NCOLL]; /* passed to the previous component */
    uint64_t msgs, bytes_sent, bytes_copied, bytes_reduced;
    /* short-circuit: calls run with early exit engaged, calls that
     * returned early, requests completed after their call returned */
    uint64_t sc_engaged, sc_early, sc_late_reqs;
} hc_stats_t;

/* ------------------------------------------------------------------ */
/* Module                                                               */
/* ------------------------------------------------------------------ */

/* The inputs that determine a plan of a call with regular arguments (no
 * per-rank count or displacement arrays): planners are pure functions of
 * them, so a plan built for one call serves every call with the same key. */
typedef struct hc_plan_key {
    const hc_algo_t *algo;
    int root, scount, rcount;
    size_t ssize, rsize;
    bool in_place, commutative;
} hc_plan_key_t;

typedef struct hc_plan_cache {
    hc_plan_key_t key;
    bool valid;
    hcp_plan_t plan;
} hc_plan_cache_t;

/* The fast path of a small blocking call (coll_hiercoll_fast.c): the
 * arguments of the last call of a collective that had a predefined
 * datatype and op, the plan it ran (an entry of the plan cache) and its
 * binding, or that it was passed on; a call with the same arguments skips
 * selection, planning and binding. */
#define HC_MAX_RULES 12
typedef struct hc_bind hc_bind_t;
struct hc_bind {
    char *base[HCP_NBUF];
    ompi_datatype_t *type[HCP_NBUF];
    ptrdiff_t step[HCP_NBUF];          /* bytes per unit of offset */
    size_t size[HCP_NBUF];             /* signature bytes per unit */
    ompi_datatype_t *const *ptypes[2]; /* per-peer types of SBUF, RBUF */
    bool ptypes_per_block;  /* ptypes indexed by the op's block (its soff), not its peer */
    ompi_op_t *op;
};
typedef struct hc_fast {
    /* What a call tests and what a passed-on call needs, in the first 64
     * bytes (one or two cache lines: the fast path touches nothing else).
     * The module's scratch moving invalidates every entry (run_blocking). */
    bool valid;
    bool in_place;
    /* a blocking allreduce whose results feed the short-circuit history,
     * and what that history said when the call was selected */
    bool sc_watch, sc_sel;
    int count, root;
    /* blocking calls of this collective still to pass on in a row before
     * its slot goes back to the layer below (mca_coll_hiercoll_hand_back) */
    uint32_t left;
    ompi_datatype_t *dtype;
    ompi_op_t *op;
    const hcp_plan_t *plan;             /* NULL: the call was passed on */
    void *prev_fn;                      /* then: the layer below's function */
    mca_coll_base_module_t *prev_module;
    int tag;
    hc_bind_t bind;
} hc_fast_t;

struct mca_coll_hiercoll_module_t {
    mca_coll_base_module_t super;
    ompi_communicator_t *comm;
    /* The layer below: every slot as it was before hiercoll's enable, with
     * the modules retained until this module goes. */
    mca_coll_base_comm_coll_t prev;
    const char *prev_name[HC_NCOLL][HC_NMODE]; /* component names, or NULL */
    /* Per-communicator choice: HC_ALGO_AUTO, HC_ALGO_FALLBACK or an index. */
    int choice[HC_NCOLL];
    /* gatherv/scatterv level (issue: tree gatherv): 0 conservative,
     * 1 aggressive, per communicator */
    int gatherv_level;
    hcp_plan_t plan;   /* reused by blocking calls */
    hc_plan_cache_t cache[HC_NCOLL]; /* last plan of each collective (blocking) */
    void *scratch;     /* reused by blocking calls */
    size_t scratch_size;
    hc_stats_t stats;
    bool enabled;
    struct hc_decomp *decomp; /* decomposition state, created lazily */
    /* the decomposition criterion: the component's, or decomp_own from
     * the info key hiercoll_decomp_criterion */
    const hcp_criterion_t *decomp_crit;
    hcp_criterion_t decomp_own;
    struct hc_sc_hist *sc_hist; /* short-circuit history, created lazily */
    int sc_decider;             /* info key hiercoll_shortcut_decider, or -1 */
    /* selection rules and the fast path (coll_hiercoll_fast.c) */
    hcp_rule_t rules[HC_NCOLL][HC_MAX_RULES]; /* those for this size, by bytes */
    int nrules[HC_NCOLL];
    bool fast_ok;                    /* may blocking calls take the fast path? */
    hc_fast_t fast[HC_NCOLL];        /* the last blocking call's plan, bound */
    struct hc_offload *offload; /* triggered offload state, created lazily */
    struct hc_shm *shm;         /* shared-memory node level (coll_hiercoll_shm.c) */
};
OBJ_CLASS_DECLARATION(mca_coll_hiercoll_module_t);

/* ------------------------------------------------------------------ */
/* Component                                                            */
/* ------------------------------------------------------------------ */

typedef struct mca_coll_hiercoll_component_t {
    hc_coll_component_t super;
    int priority;
    int verbose;
    bool stats;
    char *algorithm_param[HC_NCOLL]; /* the raw MCA strings */
    int algorithm[HC_NCOLL];         /* parsed */
    /* errors found in the parameters, reported once at the first
     * communicator (by world rank 0) */
    char *param_errors;
    bool param_errors_reported;
    /* false when the running libmpi's internal structures differ from the
     * ones hiercoll was compiled against */
    bool abi_ok;
    /* nonblocking and persistent requests in flight */
    opal_list_t active;
    opal_mutex_t lock;
    volatile int32_t nactive;
    bool progress_registered;
    bool in_progress;
    uint32_t idle_polls; /* progress calls with nothing to do, in a row */
    /* capability parameters */
    size_t allreduce_rhrd_min;   /* bytes from which auto uses RHRD */
    size_t reduce_rhrd_min;
    size_t bcast_binomial_max;   /* bytes up to which auto uses binomial bcast */
    char *gatherv_level_param;
    int gatherv_level;
    int gatherv_tree_min;        /* processes from which auto uses the tree */
    char *decomp_criterion;
    hcp_criterion_t decomp;      /* decomp_criterion, parsed */
    int shortcut_threshold;      /* % of decided results from which auto engages */
    size_t shortcut_max;         /* bytes up to which reductions may exit early */
    struct hc_leftover *leftovers; /* requests of calls that returned early */
    volatile int32_t nleftovers;
    bool inter_own;              /* intercommunicators: own plans for every slot */
    char *rules_file;            /* coll_hiercoll_rules_file */
    int hand_back_after;         /* calls passed on in a row (0: never) */
    hcp_rules_t rules;           /* the rules in force */
    /* triggered offload (coll_hiercoll_offload.c) */
    char *offload_backend_param, *offload_tree_param;
    int offload_backend;         /* HC_OL_* */
    int offload_tree;            /* hct_shape_t, -1: auto */
    int offload_radix;           /* 0: auto */
    size_t offload_max_bytes;
    int offload_credits, offload_mpq;
    int offload_ofi_max_triggered; /* ofi backend: the NIC's triggered-op limit (0: none) */
    char *offload_ofi_built;       /* read-only: was the ofi backend built */
    bool offload_wait_progress;  /* a waiting caller helps the UCX agent */
    /* shared-memory node level (coll_hiercoll_shm.c) */
    bool shm_enable, shm_oversubscribed;
    char *shm_backing, *shm_fault;
    size_t shm_arena_size, shm_cell_size, shm_chan_bytes, shm_auto_max, shm_fold_max, shm_cma_min;
    int shm_slots, shm_persistent, shm_min_calls, shm_spin, shm_watchdog, shm_fold_ranks;
    int shm_group_size;
} mca_coll_hiercoll_component_t;

HC_COMPONENT_DECLSPEC extern mca_coll_hiercoll_component_t mca_coll_hiercoll_component;

/* Print through opal_output when the verbosity is at least `level`. */
void mca_coll_hiercoll_log(int level, const char *fmt, ...)
    __opal_attribute_format__(__printf__, 2, 3);
/* A decimal integer (optional K, M, G binary suffix) within [lo, hi]: 0 and
 * *out, or -1 for anything else (negative where lo >= 0, garbage, empty).
 * Numeric MCA parameters are registered with reg_number() in
 * coll_hiercoll_component.c, which uses it; so should numeric info keys. */
int mca_coll_hiercoll_parse_number(const char *s, long long lo, long long hi, long long *out);
/* The site file of parameter defaults (coll_hiercoll_site.c). */
void mca_coll_hiercoll_site_load(const mca_base_component_t *self);
const char *mca_coll_hiercoll_site_value(const char *name);
void mca_coll_hiercoll_site_bool(const char *name, bool *storage);
void mca_coll_hiercoll_site_check(void);
void mca_coll_hiercoll_site_free(void);
/* The largest byte count a size parameter takes. */
#define HC_MAX_BYTES ((long long) 1 << 50)
/* Record a parameter error (reported once, with the default taken). */
void mca_coll_hiercoll_param_error(const char *fmt, ...)
    __opal_attribute_format__(__printf__, 1, 2);

/* The info key that chooses a collective's algorithm on a communicator:
 * "hiercoll_<coll>_algorithm", or "hiercoll_<coll>" where that is longer
 * than MPI allows (MPI_MAX_INFO_KEY: reduce_scatter_block and the
 * neighborhood collectives). */
const char *mca_coll_hiercoll_info_key(hc_coll_t k, char *buf, size_t len);

int mca_coll_hiercoll_init_query(bool enable_progress_threads,
                                 bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_hiercoll_comm_query(ompi_communicator_t *comm,
                                                     int *priority);

/* ------------------------------------------------------------------ */
/* Selection and fallback (coll_hiercoll_select.c)                      */
/* ------------------------------------------------------------------ */

/* Fill the derived fields of a call whose MPI arguments are set. */
void mca_coll_hiercoll_call_init(hc_call_t *c, ompi_communicator_t *comm,
                                 mca_coll_base_module_t *module);
/* Does the previous layer provide this slot? */
bool mca_coll_hiercoll_has_fallback(const mca_coll_hiercoll_module_t *m,
                                    hc_coll_t coll, hc_mode_t mode);
/* The algorithm for a call, or NULL to fall back. */
const hc_algo_t *mca_coll_hiercoll_select(const hc_call_t *c);
/* Run a call: select, then the fallback, a plan or a direct algorithm. */
int mca_coll_hiercoll_dispatch(hc_call_t *c, ompi_request_t **request,
                               struct ompi_info_t *info);
/* Call the previous layer's function for this call. */
int mca_coll_hiercoll_fallback(hc_call_t *c, ompi_request_t **request,
                               struct ompi_info_t *info);
/* Slot (coll, mode) of a communicator's collective table (or of the
 * module's saved copy of the layer below): its function and module; and
 * a module's own function for it. */
void **mca_coll_hiercoll_slot_fn(hc_comm_coll_t *t, hc_coll_t coll, hc_mode_t mode);
mca_coll_base_module_t **mca_coll_hiercoll_slot_module(hc_comm_coll_t *t, hc_coll_t coll,
                                                       hc_mode_t mode);
void **mca_coll_hiercoll_module_fn(mca_coll_base_module_t *mod, hc_coll_t coll, hc_mode_t mode);
/* Give slot (coll, mode) of the module's communicator back to the layer
 * below, when the slot still holds this module: the slot then calls the
 * layer below directly.  Returns whether it did. */
bool mca_coll_hiercoll_hand_back_slot(mca_coll_hiercoll_module_t *m, hc_coll_t coll,
                                      hc_mode_t mode);
/* Save, retain and release the previous layer. */
void mca_coll_hiercoll_save_prev(mca_coll_hiercoll_module_t *m,
                                 ompi_communicator_t *comm);
void mca_coll_hiercoll_release_prev(mca_coll_hiercoll_module_t *m);
/* One line per communicator naming every collective's choice. */
void mca_coll_hiercoll_describe(mca_coll_hiercoll_module_t *m);

/* ------------------------------------------------------------------ */
/* Executor (coll_hiercoll_exec.c)                                      */
/* ------------------------------------------------------------------ */

/* What the plan's buffers are in memory for one call: hc_bind_t, above. */
/* Bind one of a plan's buffers to memory of a datatype. */
void mca_coll_hiercoll_bind_buffer(hc_bind_t *b, int buf, const void *base,
                                   ompi_datatype_t *type);

/* Bind a call's user buffers (SBUF, RBUF) for its plan. */
void mca_coll_hiercoll_bind(const hc_call_t *c, hc_bind_t *b);
/* Run a blocking plan with a fixed tag (mca_coll_hiercoll_blocking_tag). */
int mca_coll_hiercoll_exec_blocking(mca_coll_hiercoll_module_t *m,
                                    ompi_communicator_t *comm,
                                    const hcp_plan_t *plan, hc_bind_t *b, int tag);
/* The same once the plan's scratch is bound (the fast path). */
int mca_coll_hiercoll_exec_rounds(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                  const hcp_plan_t *p, const hc_bind_t *b, int tag);
/* Start a plan as a request; the request takes the plan's memory (the
 * caller's plan is left empty). */
int mca_coll_hiercoll_exec_request(mca_coll_hiercoll_module_t *m,
                                   ompi_communicator_t *comm,
                                   hcp_plan_t *plan, const hc_bind_t *b,
                                   bool persistent, ompi_request_t **request);
/* Run a staged call, blocking or as a request (mode); takes ownership of
 * the stages' context. */
int mca_coll_hiercoll_exec_staged(mca_coll_hiercoll_module_t *m,
                                  ompi_communicator_t *comm,
                                  const hc_stages_t *stages, const hc_bind_t *b,
                                  hc_mode_t mode, ompi_request_t **request);
int mca_coll_hiercoll_progress(void);
/* Under the component's lock: something in flight needs the progress
 * callback.  The callback takes itself off Open MPI's progress loop after
 * a while with nothing to do (a registered callback costs every wait of
 * the process, on every communicator). */
void mca_coll_hiercoll_progress_need(void);

/* ------------------------------------------------------------------ */
/* Tree gatherv and scatterv (coll_hiercoll_gatherv.c)                  */
/* ------------------------------------------------------------------ */

/* The aggressive level: one plan from the rank's own arguments. */
int mca_coll_hiercoll_vtree_plan(hcp_plan_t *plan, const hc_call_t *call);
/* The conservative level: stage 0 brings every rank the root's header
 * and its subtree's part of the layout, stage 1 is the tree. */
int mca_coll_hiercoll_vtree_stages(const hc_call_t *call, hc_stages_t *out);
bool mca_coll_hiercoll_vtree_staged(const hc_call_t *call);

/* ------------------------------------------------------------------ */
/* Neighborhood collectives (coll_hiercoll_neighbor.c)                  */
/* ------------------------------------------------------------------ */

/* The algorithms of the five neighborhood collectives (one table). */
extern const hc_algo_t mca_coll_hiercoll_neighbor_algos[];
/* Their auto policy and its verbose description. */
const hc_algo_t *mca_coll_hiercoll_neighbor_auto(const hc_call_t *c);
void mca_coll_hiercoll_neighbor_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                         hc_mode_t md, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* Decomposition (coll_hiercoll_decomp.c)                               */
/* ------------------------------------------------------------------ */

struct hc_decomp;
void mca_coll_hiercoll_decomp_free(mca_coll_hiercoll_module_t *m);
/* Can decomposition serve this blocking call?  The communicator must
 * split into several parts (created at the first call that asks, which
 * is collective: the selection of a call asks on every rank alike), parts
 * must be runs of ranks for reductions whose order matters, and the
 * counts passed on must fit an int. */
bool mca_coll_hiercoll_decomp_usable(const hc_call_t *c);
/* The parts of the call's communicator, for auto's rules (created as by
 * mca_coll_hiercoll_decomp_usable), or NULL when it is not decomposed. */
const hcp_decomp_t *mca_coll_hiercoll_decomp_layout(const hc_call_t *c);
/* The criterion that would split this communicator, for verbose output
 * ("node", "block:4"...), or NULL when it surely stays whole. */
const char *mca_coll_hiercoll_decomp_criterion(const mca_coll_hiercoll_module_t *m, char *buf,
                                               size_t len);
/* auto's first question, before each collective's own policy: the
 * collective's "decomp" algorithm when decomposition pays for this call,
 * else NULL (coll_hiercoll_algos.c, with the measured thresholds). */
const hc_algo_t *mca_coll_hiercoll_decomp_auto(const hc_call_t *c);
/* auto's next question: the collective's "shm" algorithm when the
 * shared-memory node level serves this call (coll_hiercoll_shm.c), else
 * NULL. */
const hc_algo_t *mca_coll_hiercoll_shm_auto(const hc_call_t *c);
/* Verbose: "=decomp[criterion]<rule>," ahead of what auto does otherwise,
 * when the communicator may split; returns the characters written. */
size_t mca_coll_hiercoll_decomp_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                         hc_mode_t md, char *buf, size_t len);
/* Run a blocking call decomposed (the "decomp" algorithms' run). */
int mca_coll_hiercoll_decomp_run(hc_call_t *c);

/* ------------------------------------------------------------------ */
/* Short-circuit reductions (coll_hiercoll_shortcut.c)                  */
/* ------------------------------------------------------------------ */

/* The absorbing value of a predefined (op, datatype), as Open MPI's op
 * functions compute it; false when there is none. */
bool mca_coll_hiercoll_sc_kind(ompi_op_t *op, ompi_datatype_t *dt, hcp_sc_kind_t *k);
/* Engage early exit for a run of a marked plan?  Fills *k and *hist (the
 * history entry of (communicator, op, datatype), for sc_record). */
bool mca_coll_hiercoll_sc_engage(mca_coll_hiercoll_module_t *m, const hcp_plan_t *p,
                                 const hc_bind_t *b, hcp_sc_kind_t *k, struct hc_sc_hist **hist);
/* After a run: was this rank's result (or, without one, its input)
 * decided, and did it return early (from = the rank whose value decided
 * it, itself for its input, or -1). */
void mca_coll_hiercoll_sc_record(struct hc_sc_hist *h, bool decided, int from);
void mca_coll_hiercoll_sc_free(mca_coll_hiercoll_module_t *m);
/* Selection by the history of RESULTS: an allreduce's result is the same
 * on every rank, so is its history (sc_observe records the result of a
 * blocking allreduce that ran elsewhere, e.g. in the layer below), and
 * sc_selects (the decided rate at least coll_hiercoll_shortcut_threshold)
 * answers alike on every rank whose threshold is the job's. */
bool mca_coll_hiercoll_sc_selects(mca_coll_hiercoll_module_t *m, ompi_op_t *op,
                                  ompi_datatype_t *dt);
void mca_coll_hiercoll_sc_observe(mca_coll_hiercoll_module_t *m, ompi_op_t *op,
                                  ompi_datatype_t *dt, const void *result, int count);
/* auto (coll_hiercoll_algos.c): the shortcut algorithm of an allreduce or
 * reduce whose (op, datatype) has an absorbing value and whose vector fits
 * coll_hiercoll_shortcut_max (0 turns auto's shortcut off), asked before
 * the selection rules (blocking calls: only an allreduce whose results'
 * history sc_selects it); NULL otherwise.  shortcut_upgrade: what auto
 * chose otherwise, or its marked twin when that is the plain algorithm the
 * shortcut marks (the same messages).  shortcut_claims: may it claim calls
 * of collective k at all (then the collective stays entered whatever the
 * rules say)?  shortcut_watch: does a blocking allreduce of this call feed
 * the results' history? */
const hc_algo_t *mca_coll_hiercoll_shortcut_auto(const hc_call_t *c);
const hc_algo_t *mca_coll_hiercoll_shortcut_upgrade(const hc_call_t *c, const hc_algo_t *a);
bool mca_coll_hiercoll_shortcut_claims(hc_coll_t k);
bool mca_coll_hiercoll_shortcut_watch(const hc_call_t *c);
/* Requests (and the memory they use) of a call that returned early:
 * completed later by the progress function, by the next call, or, for a
 * communicator going away, waited for.  `mem` is freed with them. */
typedef struct hc_leftover {
    struct hc_leftover *next;
    ompi_communicator_t *comm; /* not retained: the PML requests retain it */
    int nreqs;
    ompi_request_t **reqs; /* MPI_REQUEST_NULL once freed */
    void *mem[2];
} hc_leftover_t;
void mca_coll_hiercoll_sc_leave(hc_leftover_t *lo);
/* Free the leftovers that completed; wait for those of `comm` (NULL:
 * wait for none), or for every one when `all`. */
void mca_coll_hiercoll_sc_sweep(ompi_communicator_t *comm, bool all);

/* ------------------------------------------------------------------ */
/* Triggered offload (coll_hiercoll_offload.c)                          */
/* ------------------------------------------------------------------ */

/* The "offload" algorithms of allreduce and reduce: usable declines what
 * the engine's ALU cannot do; start runs every mode. */
bool mca_coll_hiercoll_offload_usable(const hc_call_t *c);
int mca_coll_hiercoll_offload_start(hc_call_t *c, ompi_request_t **request,
                                    struct ompi_info_t *info);
/* Parse the offload parameters (component registration). */
void mca_coll_hiercoll_offload_params(void);
void mca_coll_hiercoll_offload_free(mca_coll_hiercoll_module_t *m);
void mca_coll_hiercoll_offload_fini(void);

/* ------------------------------------------------------------------ */
/* Intercommunicators (coll_hiercoll_inter.c)                           */
/* ------------------------------------------------------------------ */

/* Run a call on an intercommunicator: the layer below when it fills the
 * slot (see coll_hiercoll_inter_own), else hiercoll's intercommunicator
 * plan; never the intracommunicator algorithms or decomposition. */
int mca_coll_hiercoll_inter_dispatch(hc_call_t *c, ompi_request_t **request,
                                     struct ompi_info_t *info);
/* The verbose line of an intercommunicator. */
void mca_coll_hiercoll_inter_describe(mca_coll_hiercoll_module_t *m);

/* ------------------------------------------------------------------ */
/* Selection rules and the fast path (coll_hiercoll_fast.c)             */
/* ------------------------------------------------------------------ */

/* Load the rules (built-in, then coll_hiercoll_rules_file) at open. */
void mca_coll_hiercoll_rules_open(void);
void mca_coll_hiercoll_rules_close(void);
/* At enable: this communicator's rules, whether blocking calls may take
 * the fast path, and which blocking slots the layer below keeps (a
 * collective the rules always pass on never enters hiercoll). */
void mca_coll_hiercoll_fast_enable(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm);
/* The decomposition found nothing to decompose (on every rank alike): the
 * fast path and the hand-back apply as on a communicator that stays whole. */
void mca_coll_hiercoll_fast_whole(mca_coll_hiercoll_module_t *m);
/* The rule that covers a blocking call under auto, or NULL. */
const hcp_rule_t *mca_coll_hiercoll_rule_of(const hc_call_t *c);
/* Verbose: "(rules:0-1023B->tuned;else)" ahead of auto's description, or
 * (*whole) the whole description when the rules pass every size on;
 * returns the characters written. */
size_t mca_coll_hiercoll_rules_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                        hc_mode_t md, char *buf, size_t len, bool *whole);
/* The fixed tag of a blocking collective's messages (as coll/base's). */
int mca_coll_hiercoll_blocking_tag(hc_coll_t coll);
/* After a blocking call ran `plan` (a plan cache entry) bound as b, or was
 * passed on (plan NULL): remember it for the fast path when the call
 * allows. */
void mca_coll_hiercoll_fast_fill(const hc_call_t *c, const hcp_plan_t *plan, const hc_bind_t *b);
/* A fast-path hit that runs hiercoll's remembered plan (or, for a watched
 * allreduce, passes on and records): bind the buffers and run. */
int mca_coll_hiercoll_fast_run(mca_coll_hiercoll_module_t *m, hc_fast_t *f, hc_coll_t k,
                               const void *sbuf, void *rbuf);
/* Forget every remembered call (the module's scratch moved). */
void mca_coll_hiercoll_fast_forget(mca_coll_hiercoll_module_t *m);
/* A blocking call of k was passed on (passed true) or hiercoll ran it. */
void mca_coll_hiercoll_fast_count(mca_coll_hiercoll_module_t *m, hc_coll_t k, bool passed);
/* coll_hiercoll_hand_back_after blocking calls of k in a row were passed
 * on: give k's blocking slot back to the layer below. */
void mca_coll_hiercoll_hand_back(mca_coll_hiercoll_module_t *m, hc_coll_t k);

/* ------------------------------------------------------------------ */
/* Entry points (coll_hiercoll_entry.c)                                 */
/* ------------------------------------------------------------------ */

void mca_coll_hiercoll_set_entry_points(mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_EXPORT_H */
