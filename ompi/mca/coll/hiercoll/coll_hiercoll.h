/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll: the shared types of the component (every layer of the MPI
 * side may include this header) and the leaf every layer may call
 * (coll_hiercoll_params.c: the parameters' storage and the process's
 * shared state, the log, the number parser, the collectives' names).
 *
 * The MPI side is in layers; each file calls only the layers below it and
 * includes only their headers (HACKING.md, "Layers"; contrib/check-layers.sh
 * checks both).  Top to bottom:
 *   component   coll_hiercoll_component.c   (MCA register/open/close/query)
 *   module      coll_hiercoll_module.[ch]    per-communicator set-up
 *   entry       coll_hiercoll_entry.[ch]     the entry points
 *   selection   coll_hiercoll_select.[ch], coll_hiercoll_fast.[ch]
 *   algorithms  coll_hiercoll_algos.[ch]     the tables and auto policies
 *   capabilities coll_hiercoll_caps.h: decomp, gatherv, inter, neighbor,
 *               offload (and its transports)
 *   executor    coll_hiercoll_exec.[ch]
 *   services    coll_hiercoll_below.[ch] (the layer below),
 *               coll_hiercoll_shortcut.[ch] (absorbing values, history)
 *   leaf        coll_hiercoll_params.c (this header), coll_hiercoll_hooks.h
 *   MPI-free    planners, plan IR, rules, triggered engine
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

/* A collective's algorithms (coll_hiercoll_algos.c); its name is
 * mca_coll_hiercoll_coll_names[k]. */
typedef struct hc_coll_desc {
    const hc_algo_t *algos; /* terminated by a NULL name */
    /* auto: the algorithm for this call, or NULL for the fallback */
    const hc_algo_t *(*auto_pick)(const hc_call_t *call);
    const char *auto_rule;  /* for the parameter's description */
    /* What auto does on this communicator in this mode, e.g.
     * "=binomial<=524288B,->tuned" (verbose output). */
    void (*describe)(const mca_coll_hiercoll_module_t *m, hc_coll_t coll, hc_mode_t mode,
                     char *buf, size_t len);
} hc_coll_desc_t;

/* ------------------------------------------------------------------ */
/* Statistics                                                           */
/* ------------------------------------------------------------------ */

typedef struct hc_stats {
    uint64_t calls[HC_NCOLL];     /* run by hiercoll */
    uint64_t fallbacks[HC_NCOLL]; /* passed to the layer below */
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
    bool shm_demote;            /* coll_hiercoll_shm_demote, or info key hiercoll_shm_demote */
    bool shm_lean;              /* coll_hiercoll_shm_lean, or info key hiercoll_shm_lean */
    int shm_long;               /* coll_hiercoll_shm_long, or info key hiercoll_shm_long */
    /* selection rules and the fast path (coll_hiercoll_fast.c) */
    hcp_rule_t rules[HC_NCOLL][HC_MAX_RULES]; /* those for this size, by bytes */
    int nrules[HC_NCOLL];
    bool fast_ok;                    /* may blocking calls take the fast path? */
    bool fast_whole_ok;              /* fast_ok on this communicator if it stays whole */
    hc_fast_t fast[HC_NCOLL];        /* the last blocking call's plan, bound */
    struct hc_offload *offload; /* triggered offload state, created lazily */
    struct hc_shm *shm;         /* shared-memory node level (coll_hiercoll_shm.c) */
};
OBJ_CLASS_DECLARATION(mca_coll_hiercoll_module_t);

/* ------------------------------------------------------------------ */
/* Parameters and the process's shared state (coll_hiercoll_params.c)  */
/* ------------------------------------------------------------------ */

/* The kinds of errors found before the first communicator: each is one
 * topic of help-coll-hiercoll.txt (mca_coll_hiercoll_param_errors_report). */
enum { HC_ERR_PARAM, HC_ERR_SITE, HC_ERR_RULES, HC_NERR };

/* Registered by coll_hiercoll_component.c; every layer reads them. */
/* The shared-memory level's most grouping levels (coll_hiercoll_shm_levels):
 * a flag line's phase has 3 bits, and an operation up and down the levels
 * takes up to the levels + 3 of them (coll_hiercoll_shm_group.c). */
#define HC_SHM_MAXLV 5

typedef struct mca_coll_hiercoll_params_t {
    int priority;
    int verbose;
    bool stats;
    char *algorithm_param[HC_NCOLL]; /* the raw MCA strings */
    int algorithm[HC_NCOLL];         /* parsed */
    /* errors found in the parameters, the site file and the rules file
     * (HC_ERR_*), reported once at the first communicator (by world rank
     * 0), one message of help-coll-hiercoll.txt per kind */
    char *param_errors[HC_NERR];
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
    bool shm_enable, shm_oversubscribed, shm_demote, shm_lean;
    char *shm_backing, *shm_fault, *shm_group_level;
    int shm_group_by; /* shm_group_level parsed: an hcp_level_t, or -1 ("none") */
    char *shm_topology; /* a synthetic topology (hwloc's syntax; "": the real locality) */
    size_t shm_arena_size, shm_cell_size, shm_chan_bytes, shm_auto_max, shm_fold_max, shm_cma_min;
    size_t shm_reduce_min;
    int shm_slots, shm_persistent, shm_min_calls, shm_spin, shm_watchdog, shm_fold_ranks;
    int shm_group_size, shm_place, shm_place_after, shm_wide_ranks;
    /* shm_levels parsed: "auto" (the group level, numa, socket where
     * they split the ranks, more than shm_group_size of them), "flat", or
     * a list from the bottom (hcp_level_t) */
    char *shm_levels;
    int shm_levels_mode; /* HC_LEVELS_* */
    int shm_nlv, shm_lv_by[HC_SHM_MAXLV];
    /* long messages through the levels' cells (coll_hiercoll_shm_long.c) */
    char *shm_long_param;
    int shm_long; /* HC_SHM_LONG_* */
    size_t shm_long_min, shm_long_chunk;
    int shm_long_slots;
    /* the node level's safety: its atomics as built (read-only), the
     * debug cross-check of slot reuse */
    char *shm_atomics;
    bool shm_debug_reuse;
} mca_coll_hiercoll_params_t;

enum { HC_SHM_LONG_OFF, HC_SHM_LONG_AUTO, HC_SHM_LONG_ON };

enum { HC_LEVELS_AUTO, HC_LEVELS_FLAT, HC_LEVELS_LIST };

extern mca_coll_hiercoll_params_t mca_coll_hiercoll_params;

/* The collectives' names ("bcast"), as MCA parameters and info keys
 * spell them. */
extern const char *const mca_coll_hiercoll_coll_names[HC_NCOLL];

/* Print through opal_output when the verbosity is at least `level`. */
void mca_coll_hiercoll_log(int level, const char *fmt, ...)
    __opal_attribute_format__(__printf__, 2, 3);
/* A decimal integer (optional K, M, G binary suffix) within [lo, hi]: 0 and
 * *out, or -1 for anything else (negative where lo >= 0, garbage, empty).
 * Numeric MCA parameters are registered with reg_number() in
 * coll_hiercoll_component.c, which uses it; so should numeric info keys. */
int mca_coll_hiercoll_parse_number(const char *s, long long lo, long long hi, long long *out);
/* "1", "true", "yes" or "0", "false", "no" (any case) into *out: 0, or -1 for
 * anything else (*out untouched). */
int mca_coll_hiercoll_parse_bool(const char *v, bool *out);
/* The site file of parameter defaults (coll_hiercoll_site.c). */
void mca_coll_hiercoll_site_load(const mca_base_component_t *self);
const char *mca_coll_hiercoll_site_value(const char *name);
void mca_coll_hiercoll_site_bool(const char *name, bool *storage);
void mca_coll_hiercoll_site_check(void);
void mca_coll_hiercoll_site_free(void);
/* The largest byte count a size parameter takes. */
#define HC_MAX_BYTES ((long long) 1 << 50)
/* Record an error in a parameter's value (reported once, with the value
 * taken instead after a semicolon), in the site file or in the rules
 * file. */
void mca_coll_hiercoll_param_error(const char *fmt, ...)
    __opal_attribute_format__(__printf__, 1, 2);
void mca_coll_hiercoll_error_in(int kind, const char *fmt, ...)
    __opal_attribute_format__(__printf__, 2, 3);
/* Show the errors recorded so far (world rank 0, once). */
void mca_coll_hiercoll_param_errors_report(ompi_communicator_t *comm);

/*
 * What a user reads: a message (topic) of help-coll-hiercoll.txt, with at
 * least one argument after the topic.  Through Open MPI's show_help where
 * it finds the file, else from the copy of the file built into the
 * component (coll_hiercoll_help.h), so that a user never reads "Sorry!
 * You were supposed to get help about..." in its place.  Where Open MPI
 * looks for help files, and how it delivers a message, differ by series
 * (HC_SHOW_HELP_READS_FILES, HC_SHOW_HELP: coll_hiercoll_compat.h).
 */
#define HC_HELP_FILE "help-coll-hiercoll.txt"
#define mca_coll_hiercoll_show_help(topic, ...)                                                   \
    (mca_coll_hiercoll_help_found() ? HC_SHOW_HELP(HC_HELP_FILE, (topic), __VA_ARGS__)            \
                                    : mca_coll_hiercoll_help_builtin((topic), __VA_ARGS__))
bool mca_coll_hiercoll_help_found(void);
void mca_coll_hiercoll_help_builtin(const char *topic, ...);
/* A topic whose one argument is a string (the transport plugins' way). */
void mca_coll_hiercoll_show_help_text(const char *topic, const char *text);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_EXPORT_H */
