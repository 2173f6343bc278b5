/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The component: its MCA parameters (all registered here, one static
 * function per capability), the check of Open MPI's internal structures,
 * and the nonblocking progress hook.
 */
#include "ompi_config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "opal/util/output.h"
#include "ompi/group/group.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_module.h"
#include "coll_hiercoll_select.h"
#include "coll_hiercoll_fast.h"
#include "coll_hiercoll_algos.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_hooks.h"
#include "coll_hiercoll_offload.h"
#include "coll_hiercoll_shm.h"

static int hiercoll_register(void);
static int hiercoll_open(void);
static int hiercoll_close(void);
static int hiercoll_init_query(bool enable_progress_threads, bool enable_mpi_threads);

/* The MCA component: only what Open MPI reads.  The parameters' storage
 * and the process's shared state are mca_coll_hiercoll_params
 * (coll_hiercoll_params.c, the leaf every layer may reach). */
HC_COMPONENT_DECLSPEC hc_coll_component_t mca_coll_hiercoll_component = {
    .collm_version = {
        HC_COLL_BASE_VERSION,
        .mca_component_name = "hiercoll",
        MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
        .mca_open_component = hiercoll_open,
        .mca_close_component = hiercoll_close,
        .mca_register_component_params = hiercoll_register,
    },
    .collm_data = {
        MCA_BASE_METADATA_PARAM_NONE
    },
    .collm_init_query = hiercoll_init_query,
    .collm_comm_query = mca_coll_hiercoll_comm_query,
};

/* ------------------------------------------------------------------ */
/* Parameters                                                           */
/* ------------------------------------------------------------------ */

static const mca_base_component_t *self(void)
{
    return &mca_coll_hiercoll_component.collm_version;
}

/* Every parameter's default may come from the site file (coll_hiercoll_site.c). */
static void reg_string(const char *name, const char *desc, int level, char **storage)
{
    const char *site = mca_coll_hiercoll_site_value(name);
    if (NULL != site) {
        *storage = (char *) site;
    }
    (void) mca_base_component_var_register(self(), name, desc, MCA_BASE_VAR_TYPE_STRING,
                                           NULL, 0, 0, level, MCA_BASE_VAR_SCOPE_READONLY,
                                           storage);
}

static void reg_bool(const char *name, const char *desc, int level, bool *storage)
{
    mca_coll_hiercoll_site_bool(name, storage);
    (void) mca_base_component_var_register(self(), name, desc, MCA_BASE_VAR_TYPE_BOOL, NULL, 0,
                                           0, level, MCA_BASE_VAR_SCOPE_READONLY, storage);
}

/*
 * THE way to register a numeric parameter of hiercoll (priorities, sizes,
 * thresholds, counts): every one goes through here, so that every one is
 * checked alike.  Open MPI 4.1's own integer variables take "banana" as 0
 * and "-5" as 18446744073709551611 without a word, so the variable is
 * registered as a string (ompi_info shows the number as its value and the
 * range in the description) and parsed by mca_coll_hiercoll_parse_number:
 * a decimal integer, optionally with a K, M or G (binary) suffix, within
 * [lo, hi].  Anything else gives one "hiercoll: ERROR:" line and the
 * default.  `storage` is an int (HC_NUM_INT) or a size_t (HC_NUM_SIZE).
 */
#define HC_MAX_NUMBERS 48
typedef enum { HC_NUM_INT, HC_NUM_SIZE } hc_num_kind_t;

static void reg_number(const char *name, const char *desc, int level, hc_num_kind_t kind,
                       void *storage, long long dflt, long long lo, long long hi)
{
    static char *raw[HC_MAX_NUMBERS];
    static char dflt_text[HC_MAX_NUMBERS][24];
    static char full_desc[HC_MAX_NUMBERS][1536];
    static int n;
    long long v = dflt;
    if (n == HC_MAX_NUMBERS) { /* a programming error: raise HC_MAX_NUMBERS */
        mca_coll_hiercoll_param_error("coll_hiercoll_%s: too many numeric parameters", name);
    } else {
        snprintf(dflt_text[n], sizeof(dflt_text[n]), "%lld", dflt);
        snprintf(full_desc[n], sizeof(full_desc[n]), "%s (an integer in [%lld, %lld]%s; "
                 "default %lld)", desc, lo, hi, HC_NUM_SIZE == kind ? ", K, M, G suffixes" : "",
                 dflt);
        raw[n] = dflt_text[n];
        const char *site = mca_coll_hiercoll_site_value(name);
        if (NULL != site) {
            raw[n] = (char *) site;
        }
        (void) mca_base_component_var_register(self(), name, full_desc[n],
                                               MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, level,
                                               MCA_BASE_VAR_SCOPE_READONLY, &raw[n]);
        if (0 != mca_coll_hiercoll_parse_number(raw[n], lo, hi, &v)) {
            mca_coll_hiercoll_param_error("coll_hiercoll_%s=\"%s\" is not an integer in "
                                          "[%lld, %lld]; using %lld",
                                          name, NULL != raw[n] ? raw[n] : "", lo, hi, dflt);
            v = dflt;
        }
        ++n;
    }
    if (HC_NUM_INT == kind) {
        *(int *) storage = (int) v;
    } else {
        *(size_t *) storage = (size_t) v;
    }
}

/* Parse the per-collective algorithm parameters. */
static void parse_algorithms(mca_coll_hiercoll_params_t *prm)
{
    for (int k = 0; k < HC_NCOLL; ++k) {
        const char *s = prm->algorithm_param[k];
        int idx = mca_coll_hiercoll_algo_index((hc_coll_t) k, s ? s : "auto");
        if (idx < HC_ALGO_FALLBACK) {
            char names[512] = "auto, fallback";
            for (const hc_algo_t *a = mca_coll_hiercoll_colls[k].algos; a && a->name; ++a) {
                strncat(names, ", ", sizeof(names) - strlen(names) - 1);
                strncat(names, a->name, sizeof(names) - strlen(names) - 1);
            }
            mca_coll_hiercoll_param_error("coll_hiercoll_%s_algorithm=\"%s\" is not an algorithm "
                                          "of %s (one of: %s); using auto",
                                          mca_coll_hiercoll_coll_names[k], s,
                                          mca_coll_hiercoll_coll_names[k], names);
            idx = HC_ALGO_AUTO;
        }
        prm->algorithm[k] = idx;
    }
}

/* The node level's long messages through the levels' cells
 * (coll_hiercoll_shm_long.c; docs/design/shm-long.md). */
static void register_shm_long(mca_coll_hiercoll_params_t *prm)
{
    prm->shm_long_param = "auto";
    reg_string("shm_long",
               "Shared-memory node level: long bcasts, reduces and allreduces (from "
               "coll_hiercoll_shm_long_min bytes) through cells of every process in pipelined "
               "chunks (coll_hiercoll_shm_long_chunk), a bcast down the hierarchy's levels, "
               "a reduction as a reduce-scatter through the levels followed by an allgather "
               "back (no system call, at most a group's size of readers of one buffer; the "
               "reductions on regular hierarchies and datatypes of at most 64 bytes). \"on\": "
               "wherever the level runs such a call (forced with the algorithm \"shm\", or "
               "by auto); \"off\": never; \"auto\": on 4 to 7 processes where the node "
               "level's model has them faster than single copy at any machine's costs (a bcast "
               "from coll_hiercoll_shm_cma_min, a reduce or allreduce of less than twice it), "
               "not yet timed on more than 2 cores",
               OPAL_INFO_LVL_5, &prm->shm_long_param);
    if (0 == strcmp(prm->shm_long_param, "on")) {
        prm->shm_long = HC_SHM_LONG_ON;
    } else if (0 == strcmp(prm->shm_long_param, "off")) {
        prm->shm_long = HC_SHM_LONG_OFF;
    } else {
        if (0 != strcmp(prm->shm_long_param, "auto")) {
            mca_coll_hiercoll_param_error("coll_hiercoll_shm_long=\"%s\": auto, on or off; "
                                          "using auto", prm->shm_long_param);
        }
        prm->shm_long = HC_SHM_LONG_AUTO;
    }
    reg_number("shm_long_min",
               "Shared-memory node level: the smallest bcast, reduce or allreduce that "
               "coll_hiercoll_shm_long \"on\" takes through the long cells",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shm_long_min, 16 << 10, 1, 1LL << 40);
    reg_number("shm_long_chunk",
               "Shared-memory node level: bytes of one long cell, the pipeline's chunk "
               "(coll_hiercoll_shm_long); each process of a communicator that uses them "
               "takes coll_hiercoll_shm_long_slots cells and about as much again for the "
               "reductions' slices from its own arena (coll_hiercoll_shm_arena_size)",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shm_long_chunk, 64 << 10, 4 << 10, 16 << 20);
    reg_number("shm_long_slots",
               "Shared-memory node level: long cells per process, the chunks a writer may run "
               "ahead of the slowest process that reads it (coll_hiercoll_shm_long)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_long_slots, 4, 2, 64);
}

/* The shared-memory node level's safety: whether it is built at all (its
 * 64-bit atomics lock-free), and a debug cross-check of its slot reuse. */
static void register_shm_safety(mca_coll_hiercoll_params_t *prm)
{
    prm->shm_atomics = mca_coll_hiercoll_shm_atomics_ok()
                         ? "lock-free"
                         : "not lock-free (the shared-memory node level is off)";
    (void) mca_base_component_var_register(
        self(), "shm_atomics",
        "Whether this build's 64-bit atomics are lock-free, as the shared-memory node level "
        "needs (its lines are 64-bit words that processes write and read at once; where the "
        "compiler takes a lock for them, a process-private one, a read can tear): "
        "\"lock-free\", or \"not lock-free\" and the node level is off (decided at compile "
        "time)",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_CONSTANT, &prm->shm_atomics);
    prm->shm_debug_reuse = false;
    reg_bool("shm_debug_reuse",
             "Shared-memory node level, debugging: before a process writes a slot again on its "
             "cached word that every process has finished with the slot's last operation (a "
             "minimum of the done lines, also advanced by inference from the flag lines), it "
             "reads every done line, and aborts with a message where the cache was ahead of "
             "them (a slot still read would be overwritten); costs n line reads per reuse",
             OPAL_INFO_LVL_9, &prm->shm_debug_reuse);
}

/* The component: its priority, what it prints. */
static void register_component(mca_coll_hiercoll_params_t *prm)
{
    reg_number("priority",
               "Priority of the hiercoll coll component (-1 disables it). With the "
               "default, hiercoll sits above tuned (30) and basic (10), so that "
               "\"--mca coll hiercoll,basic,...\" uses it without another flag. On the "
               "intracommunicators it accepts hiercoll fills every collective slot but "
               "reduce_local (blocking, nonblocking, persistent, and the neighborhood "
               "collectives in the three modes) and runs its own plans where no "
               "lower-priority component has the slot (under \"hiercoll,basic\": every "
               "nonblocking and persistent collective). On intercommunicators it asks for "
               "this priority plus one (above coll/inter), passes the slots the layer below "
               "fills and runs its own plans for the others (under \"hiercoll,basic\": "
               "every nonblocking and persistent one, and the blocking scatter, allreduce, "
               "reduce and reduce_scatter(_block), which basic gets wrong there)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->priority, 40, -1, 100);

    reg_number("verbose",
               "0: quiet; 1: per communicator, a header line and one line per collective naming, "
               "for each mode, the algorithm hiercoll uses or the component it falls back to; 2: "
               "also one line "
               "per call (printed by rank 0 of the communicator) naming the rule or setting "
               "that chose",
               OPAL_INFO_LVL_5, HC_NUM_INT, &prm->verbose, 0, 0, 2);

    prm->stats = false;
    reg_bool("stats",
             "Print, per communicator and rank when the communicator is freed, the calls hiercoll "
             "ran and passed on, the messages and bytes it sent, and the bytes it copied and "
             "reduced locally",
             OPAL_INFO_LVL_5, &prm->stats);
}

/* Each collective's algorithm (coll_hiercoll_<coll>_algorithm), parsed. */
static void register_algorithms(mca_coll_hiercoll_params_t *prm)
{
    static char descs[HC_NCOLL][4096];
    static char names[HC_NCOLL][64];

    for (int k = 0; k < HC_NCOLL; ++k) {
        const hc_coll_desc_t *d = &mca_coll_hiercoll_colls[k];
        char list[3072] = "";
        for (const hc_algo_t *a = d->algos; a && a->name; ++a) {
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s\"%s\" (%s)",
                     list[0] ? ", " : "", a->name, a->summary);
        }
        char key[OPAL_MAX_INFO_KEY + 1];
        snprintf(names[k], sizeof(names[k]), "%s_algorithm", mca_coll_hiercoll_coll_names[k]);
        snprintf(descs[k], sizeof(descs[k]),
                 "Algorithm of %s and its nonblocking and persistent forms: \"auto\" (%s), "
                 "\"fallback\" (always the layer below), or one of: %s. "
                 "A communicator info key \"%s\" overrides it per communicator",
                 mca_coll_hiercoll_coll_names[k], d->auto_rule, list,
                 mca_coll_hiercoll_info_key((hc_coll_t) k, key, sizeof(key)));
        prm->algorithm_param[k] = "auto";
        reg_string(names[k], descs[k], OPAL_INFO_LVL_5, &prm->algorithm_param[k]);
    }
    parse_algorithms(prm);
}

/* The foundation's algorithms (coll_hiercoll_plan_basic.c). */
static void register_basic(mca_coll_hiercoll_params_t *prm)
{
    reg_number("bcast_binomial_max",
               "auto bcast: the largest message (bytes) broadcast by hiercoll's binomial tree; "
               "larger ones go to the layer below (its pipelined algorithms), or stay "
               "binomial when there is none",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->bcast_binomial_max, 512 * 1024, 0, HC_MAX_BYTES);
}

/* RHRD reductions (coll_hiercoll_plan_rhrd.c). */
static void register_rhrd(mca_coll_hiercoll_params_t *prm)
{
    /* Defaults: where RHRD overtook the small-message plans in hc_bench at
     * 4 to 8 processes on shared memory (docs/rhrd.md). */
    reg_number("allreduce_rhrd_min",
               "auto allreduce: the smallest vector (bytes) reduced with the RHRD scheme "
               "(recursive halving and doubling, non-power-of-two S0/S1 split) when the op is "
               "commutative; below it, and for other ops, recursive doubling",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->allreduce_rhrd_min, 64 * 1024, 0, HC_MAX_BYTES);
    reg_number("reduce_rhrd_min",
               "auto reduce: the smallest vector (bytes) reduced with the RHRD scheme when the "
               "op is commutative; below it, and for other ops, the binomial tree",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->reduce_rhrd_min, 512 * 1024, 0, HC_MAX_BYTES);
}

/* Short-circuit reductions (coll_hiercoll_shortcut.c; the measurements
 * behind the defaults: docs/short-circuit.md). */
static void register_shortcut(mca_coll_hiercoll_params_t *prm)
{
    reg_number("shortcut_threshold",
               "auto allreduce/reduce with an op and datatype that have an absorbing value "
               "(LAND, LOR, BAND, BOR, MIN, MAX, PROD on integer and logical types): look for it "
               "(early exit) when at least this percentage of the last 32 such calls on the "
               "communicator had a decided result (0: always; 101: never). Ranks may differ: "
               "every rank sends the same messages either way",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shortcut_threshold, 10, 0, 101);
    reg_number("shortcut_max",
               "The largest vector (bytes) of an allreduce/reduce that may exit early (the "
               "messages must go eagerly: a rank that returned early leaves receives posted); "
               "larger ones run the plain algorithm",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shortcut_max, 2048, 0, 64 * 1024);
}

/* Tree gatherv and scatterv (coll_hiercoll_gatherv.c), the level parsed. */
static void register_gatherv(mca_coll_hiercoll_params_t *prm)
{
    prm->gatherv_level_param = "conservative";
    reg_string("gatherv_level",
               "Tree gatherv/scatterv level: \"conservative\" (standard conforming: the root "
               "first broadcasts the counts and displacements the tree needs) or "
               "\"aggressive\" (no broadcast: the application asserts that every rank passes "
               "valid recvcounts/displs, resp. sendcounts/displs). A communicator info key "
               "\"hiercoll_gatherv_level\" overrides it per communicator",
               OPAL_INFO_LVL_5, &prm->gatherv_level_param);

    reg_number("gatherv_tree_min",
               "auto gatherv/scatterv: the smallest communicator (processes) on which hiercoll "
               "runs its binomial tree with message chains; smaller ones go to the layer below "
               "(its linear algorithm), or to hiercoll's linear one when there is "
               "none. The default is a little past where the cost model (hc_cost gatherv) has "
               "the conservative level overtake linear for small blocks (about 80); the "
               "aggressive level overtakes it from about 32",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->gatherv_tree_min, 128, 1, INT_MAX);
    prm->gatherv_level = mca_coll_hiercoll_gatherv_level_of(prm->gatherv_level_param);
    if (prm->gatherv_level < 0) {
        mca_coll_hiercoll_param_error("coll_hiercoll_gatherv_level=\"%s\" is neither "
                                      "\"conservative\" nor \"aggressive\"; using conservative",
                                      prm->gatherv_level_param);
        prm->gatherv_level = 0;
    }
}

/* The selection rules and the hand-back (coll_hiercoll_fast.c). */
static void register_selection(mca_coll_hiercoll_params_t *prm)
{
    prm->rules_file = "";
    reg_string("rules_file",
               "A selection rules file (docs/tuning.md, \"Rules file format\"; contrib/hc_tune "
               "writes one): per collective, communicator size and message size, which of "
               "hiercoll's algorithms runs a blocking call under auto, or \"fallback\" for the "
               "layer below. Empty: the built-in rules, measured on the project's "
               "machine. A bad file gives one error line and the built-in rules",
               OPAL_INFO_LVL_5, &prm->rules_file);

    reg_number("hand_back_after",
               "A blocking collective that hiercoll passed on to the layer below this many "
               "times in a row on a communicator (its rules or auto chose the layer below, "
               "the call fed no short-circuit history) goes back to that component: the "
               "communicator's slot then calls it directly, at no cost, for the communicator's "
               "life (not with verbose 2, stats, or a decomposed communicator). 0: never",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->hand_back_after, 1000, 0, INT_MAX);
}

/* Intercommunicators (coll_hiercoll_inter.c). */
static void register_inter(mca_coll_hiercoll_params_t *prm)
{
    prm->inter_own = false;
    reg_bool("inter_own",
             "Intercommunicators: run hiercoll's own plans for every collective (true), or only "
             "for the slots that the layer below leaves empty, and for coll/basic's blocking "
             "scatter, which crashes in Open MPI 4.1.4 (false, the default: the others go to the "
             "layer below, e.g. coll/inter)",
             OPAL_INFO_LVL_6, &prm->inter_own);
}

/* Decomposition (coll_hiercoll_decomp.c). */
static void register_decomp(mca_coll_hiercoll_params_t *prm)
{
    prm->decomp_criterion = "node";
    reg_string("decomp_criterion",
               "How the decomposition algorithms (\"decomp\") split a communicator into parts "
               "and a bridge of one leader per part: \"node\" (shared memory domain), a hardware "
               "level (\"board\", \"numa\", \"socket\", \"l3\", \"l2\", \"l1\", \"core\", "
               "\"hwthread\"), \"block:K\" (consecutive ranks in parts of K), "
               "\"list:0-3,4-5,...\" (explicit parts covering ranks 0..N-1 of communicators of "
               "N ranks; ranges within a part joined by '+', e.g. \"list:0+2,1+3\") or \"none\" "
               "(no decomposition). A communicator info key \"hiercoll_decomp_criterion\" "
               "overrides it per communicator",
               OPAL_INFO_LVL_5, &prm->decomp_criterion);
}

/* The triggered offload and its transports (coll_hiercoll_offload*.c). */
static void register_offload(mca_coll_hiercoll_params_t *prm)
{
    prm->offload_backend_param = "auto";
    reg_string("offload_backend",
               "Transport of the triggered offload (algorithm \"offload\" of allreduce and "
               "reduce): \"ucx\" (the component's own UCP worker driven by an agent thread "
               "that fires the armed chains, so the calling thread only arms and waits), "
               "\"progress\" (packets over the PML, chains fired inside Open MPI's progress, "
               "for machines with no core to spare), \"ofi\" (libfabric FI_TRIGGER deferred "
               "work on a provider that offers triggered operations: cxi, psm2, sockets; no "
               "host thread between arming and completion) or \"auto\" (ofi where every rank "
               "of the communicator has an FI_TRIGGER provider that runs triggers on a NIC, not "
               "sockets; else ucx where every node has a core to spare per agent and UCX works "
               "on every rank; else progress)",
               OPAL_INFO_LVL_5, &prm->offload_backend_param);
    prm->offload_tree_param = "auto";
    reg_string("offload_tree",
               "Tree of the triggered offload: \"knomial\", \"kary\" or \"auto\" (chosen per "
               "collective and communicator size: one level up to 8 ranks; beyond, K-nomial for "
               "allreduce, bcast and barrier, K-ary for reduce)",
               OPAL_INFO_LVL_5, &prm->offload_tree_param);
    reg_number("offload_radix",
               "K of the offload's K-nomial or K-ary tree: 2, 4 or 8; 0: auto (8 up to 8 ranks; "
               "beyond, allreduce, bcast and barrier 2 up to 64 ranks and 4 above, reduce 8)",
               OPAL_INFO_LVL_5, HC_NUM_INT, &prm->offload_radix, 0, 0, 8);
    reg_number("offload_max_bytes",
               "The longest vector (bytes) the offload takes (it travels as 120-byte packets, "
               "each with its own counters); longer ones go to the next algorithm",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->offload_max_bytes, 16384, 0, 1 << 20);
    reg_number("offload_credits",
               "Offload flow control: packets a process may have outstanding at each peer of a "
               "communicator before the peer consumes them (keeps the packet queue bounded; at "
               "most 255, so a sender is never a persistent request's 256 starts ahead, where "
               "its port number repeats)",
               OPAL_INFO_LVL_9, HC_NUM_INT, &prm->offload_credits, 64, 2, 255);
    reg_number("offload_mpq",
               "Offload: bound of each process's packet queue (packets kept before their call "
               "is armed); exceeding it is counted, never silent",
               OPAL_INFO_LVL_9, HC_NUM_INT, &prm->offload_mpq, 65536, 16, INT_MAX);
    reg_number("offload_ofi_max_triggered",
               "ofi backend: the most triggered operations the NIC holds (e.g. cxi's limit); a "
               "quarter of it is each call's budget and calls that need more run on the "
               "progress transport (0: only the provider's counter limit)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->offload_ofi_max_triggered, 0, 0, INT_MAX);
#if HIERCOLL_HAVE_OFI
    prm->offload_ofi_built = "yes";
#else
    prm->offload_ofi_built = "no";
#endif
    (void) mca_base_component_var_register(
        self(), "offload_ofi_built",
        "Whether this build has the offload's ofi backend (libfabric FI_TRIGGER): \"yes\" or "
        "\"no\" (configure found no libfabric, or --without-libfabric)",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0,
        MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_CONSTANT,
        &prm->offload_ofi_built);
    mca_coll_hiercoll_transport_register(self()); /* the transports' plugins */

    prm->offload_wait_progress = true;
    reg_bool("offload_wait_progress",
             "UCX offload: a caller blocked in a wait (MPI_Allreduce, MPI_Wait...) also progresses "
             "the agent's worker, so that no hop waits for the agent thread to be scheduled (on an "
             "oversubscribed machine that hand-off costs a time slice); false: the agent alone "
             "fires the chains and the caller only arms and waits. Calls that run while the "
             "caller computes are the agent's either way",
             OPAL_INFO_LVL_6, &prm->offload_wait_progress);
    mca_coll_hiercoll_offload_params();
}

/* The shared-memory node level (coll_hiercoll_shm*.c). */
static void register_shm(mca_coll_hiercoll_params_t *prm)
{
    prm->shm_enable = true;
    reg_bool("shm_enable",
             "Shared-memory node level: collectives of a communicator whose processes share a node "
             "(barrier, bcast, reduce, allreduce, every mode) through shared memory; false: never "
             "(the algorithm \"shm\" is then not usable either)",
             OPAL_INFO_LVL_4, &prm->shm_enable);
    prm->shm_oversubscribed = false;
    reg_bool("shm_oversubscribed",
             "Shared-memory node level: may auto choose it where the node is oversubscribed (more "
             "processes in the communicator than online cores, or mpi_yield_when_idle)? Waits then "
             "yield the core after coll_hiercoll_shm_spin polls. Forced (algorithm \"shm\") it "
             "runs there either way",
             OPAL_INFO_LVL_5, &prm->shm_oversubscribed);
    prm->shm_demote = true;
    reg_bool("shm_demote",
             "Shared-memory node level: a writer demotes the lines it has just published (flag "
             "lines, cells) from its core's caches to the shared last-level cache (x86 CLDEMOTE, "
             "a NOP on processors without it), so that readers take them there instead of from "
             "the writer's core",
             OPAL_INFO_LVL_6, &prm->shm_demote);
    prm->shm_lean = true;
    reg_bool("shm_lean",
             "Shared-memory node level: a blocking barrier, and a blocking bcast or reduce of "
             "one predefined contiguous type that fits the flag line, go straight at the lines "
             "(the engine builds an operation only where the call must wait)",
             OPAL_INFO_LVL_6, &prm->shm_lean);
    prm->shm_backing = "/dev/shm";
    reg_string("shm_backing",
               "Shared-memory node level: the directory of each process's arena file (created "
               "mode 0600 with O_EXCL under a random name, reserved whole with posix_fallocate, "
               "and unlinked at once: peers open it through /proc/<pid>/fd)",
               OPAL_INFO_LVL_5, &prm->shm_backing);
    prm->shm_fault = "";
    reg_string("shm_fault",
               "Shared-memory node level, testing: \"STEP:RANK\" makes world rank RANK fail "
               "STEP of the set-up (create, reserve, alloc, attach; cma: the single-copy probe, "
               "which only turns single copy off; place: the timing of the rows of flag lines, "
               "which only keeps them in address order; budget:0, rank 0 finds that timing past "
               "its time; memo: that rank remembers other rows than the others for a place, "
               "which only has them timed again; idle: that rank says it has calls in flight "
               "whenever the deferred timing asks, which only puts it off; long: the long "
               "cells, which only sends long messages the level's other ways); every rank must "
               "then agree.  \"push:RANK\": "
               "that rank's writes into the readers of a long bcast fail (the readers then read "
               "those parts themselves); \"treeread:RANK\": its reads in a single-copy bcast "
               "through the levels fail (every rank below it returns an error); "
               "\"treefold:RANK\": it finds no scratch for a reduction in cells through the "
               "levels (every rank of an allreduce, a reduce's root, returns an error); "
               "\"cmaslice:RANK\": its reads of the inputs in a single-copy reduction fail (every "
               "rank that reads its slice, each of an allreduce, a reduce's root, returns an "
               "error); \"ahead:RANK\": its cached word that every rank has finished an operation "
               "starts far ahead of the done lines (coll_hiercoll_shm_debug_reuse aborts)",
               OPAL_INFO_LVL_9, &prm->shm_fault);
    reg_number("shm_arena_size",
               "Shared-memory node level: bytes of each process's arena, from which the regions "
               "of the communicators it owns are carved (a communicator that finds no room "
               "anywhere uses the layer below, on every rank)",
               OPAL_INFO_LVL_5, HC_NUM_SIZE, &prm->shm_arena_size, 4 << 20, 64 << 10, 1LL << 30);
    reg_number("shm_cell_size",
               "Shared-memory node level: bytes of a data cell (one per slot and process; "
               "longer messages are pipelined in chunks of a cell), at most "
               "coll_hiercoll_shm_chan_bytes / (slots x (processes + 1))",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shm_cell_size, 8 << 10, 1 << 10, 1 << 20);
    reg_number("shm_chan_bytes",
               "Shared-memory node level: the most bytes of cells per channel of a region",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shm_chan_bytes, 256 << 10, 16 << 10, 64LL << 20);
    reg_number("shm_slots",
               "Shared-memory node level: operations a process may run ahead of the slowest "
               "reader of a communicator (K slots of flag lines and cells)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_slots, 4, 2, 64);
    reg_number("shm_place",
               "Shared-memory node level: where a communicator of at most 4 processes, each with "
               "a core of its own, sets its region up, it times this many candidate rows of flag "
               "lines for each of channel 0's slots (a short exchange on each) and keeps the "
               "fastest: a line's latency between two cores depends on its address (the "
               "last-level cache slice that homes it). 1: no timing, the rows in address order",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_place, 8, 1, 16);
    reg_number("shm_place_after",
               "Shared-memory node level: barriers and allreduces of up to 112 bytes (blocking "
               "or not) a communicator runs on it before it times its rows of flag lines "
               "(coll_hiercoll_shm_place), right after the next blocking one, where no rank has "
               "a call in flight on it: the timing costs far more than a call and gains little "
               "on each, so only communicators that live long pay it (0: after the first "
               "blocking one)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_place_after, 10000, 0, 1 << 30);
    reg_number("shm_persistent",
               "Shared-memory node level: persistent requests per communicator that run on it "
               "at a time (each has a channel of its own, in initialization order; a freed "
               "request's channel is taken back once a blocking barrier or short allreduce has "
               "shown every rank freed it; inits that find none use the other algorithms)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_persistent, 2, 0, 16);
    reg_number("shm_min_calls",
               "Shared-memory node level: calls of a communicator that auto runs elsewhere "
               "before it sets up shared memory (short-lived communicators never allocate: a "
               "set-up costs what tens of calls gain)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_min_calls, 16, 0, 1000000);
    reg_number("shm_spin",
               "Shared-memory node level: polls of a waiting process before it calls Open MPI's "
               "progress at every poll (oversubscribed: a 32nd of them, then progress and "
               "sched_yield at every poll)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_spin, 2000, 1, 1000000000);
    reg_number("shm_watchdog",
               "Shared-memory node level, debugging: seconds a wait may last before the process "
               "prints which rank, line and value it waits for (0: never)",
               OPAL_INFO_LVL_9, HC_NUM_INT, &prm->shm_watchdog, 0, 0, 86400);
    reg_number("shm_auto_max",
               "Shared-memory node level: the longest message (bytes) auto runs on it",
               OPAL_INFO_LVL_5, HC_NUM_SIZE, &prm->shm_auto_max, 16 << 20, 0, 1LL << 40);
    reg_number("shm_reduce_min",
               "Shared-memory node level: the shortest reduce (bytes) auto runs on it; shorter "
               "ones go to the layer below, whose one eager message per process was as fast "
               "there, except blocking ones of up to 112 bytes where the fast path is on (the "
               "lean reduce), and of up to 448 bytes on at most coll_hiercoll_shm_group_size "
               "processes (the lean reduce in up to 4 flag lines)",
               OPAL_INFO_LVL_5, HC_NUM_SIZE, &prm->shm_reduce_min, 512, 0, 1LL << 40);
    reg_number("shm_fold_max",
               "Shared-memory node level: reductions whose vector times the ranks that fold it "
               "is at most this many bytes are folded whole by every rank (allreduce) or the "
               "root (reduce); longer ones slice-parallel",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shm_fold_max, 4096, 0, 1 << 20);
    reg_number("shm_cma_min",
               "Shared-memory node level: bcasts, allreduces and reduces of at least this many "
               "bytes copy straight from the other processes' memory (process_vm_readv, one "
               "copy instead of two, no per-chunk synchronization), where every rank may read "
               "every other (probed with a real read at set-up and agreed); allreduces on up "
               "to coll_hiercoll_shm_fold_ranks processes from half of it; 0: never",
               OPAL_INFO_LVL_6, HC_NUM_SIZE, &prm->shm_cma_min, 16 << 10, 0, 1LL << 40);
    reg_number("shm_group_size",
               "Shared-memory node level: on communicators of more processes than this, barrier, "
               "bcast up to coll_hiercoll_shm_cma_min and reductions of at most 112 bytes go "
               "through the hierarchy (coll_hiercoll_shm_levels), each level's groups cut at "
               "this many ranks (each process reads a few lines per level instead of n); the "
               "order stays MPI's",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_group_size, 8, 2, 1 << 20);
    prm->shm_group_level = "l3";
    reg_string("shm_group_level",
               "Shared-memory node level: the hierarchy's lowest level under auto "
               "(coll_hiercoll_shm_levels): runs of consecutive ranks that share this hardware "
               "level (\"numa\", \"socket\", \"l3\", \"l2\", \"l1\", \"core\", "
               "\"hwthread\"; hwloc, from each process's binding), cut every "
               "coll_hiercoll_shm_group_size ranks; \"none\": runs of consecutive ranks only. "
               "Unbound processes, or runs of one or two ranks on average (a round-robin "
               "mapping), leave the level out",
               OPAL_INFO_LVL_6, &prm->shm_group_level);
    reg_number("shm_wide_ranks",
               "Shared-memory node level: on communicators of at least this many processes, "
               "auto leaves to the layer below the bcasts and allreduces from "
               "coll_hiercoll_shm_cma_min bytes, and the reduces from it to 128 KiB (on 16 "
               "cores, single copy's readers of one buffer and slice-parallel folds were slower "
               "than the layer below there); 0: never",
               OPAL_INFO_LVL_5, HC_NUM_INT, &prm->shm_wide_ranks, 8, 0, 1 << 20);
    prm->shm_levels = "auto";
    reg_string("shm_levels",
               "Shared-memory node level: the hierarchy of barrier, bcast (in the flag line and "
               "the cells) and reductions of at most 112 bytes.  \"auto\": on more than "
               "coll_hiercoll_shm_group_size processes, the levels among "
               "coll_hiercoll_shm_group_level, \"numa\" and \"socket\" that split the ranks "
               "into runs of consecutive ones (the order of the folds stays MPI's), each level's "
               "groups cut every coll_hiercoll_shm_group_size ranks; then runs of that many "
               "leaders while more remain.  \"flat\": none (every rank reads every line).  A "
               "list from the bottom (\"l3,numa,socket\"): those levels, at any size.  At most "
               "5 levels; the verbose line names them",
               OPAL_INFO_LVL_5, &prm->shm_levels);
    prm->shm_topology = "";
    reg_string("shm_topology",
               "Shared-memory node level, testing and what-if runs: a synthetic topology in "
               "hwloc's syntax, levels from the top with their arity (\"pack:2 numa:2 l3:4 "
               "core:4\"; pack/package/socket, numa/node, l3, l2, core, pu), world rank r on its "
               "r-th PU (modulo their number): the hierarchy's levels (coll_hiercoll_shm_levels) "
               "and the distances of the line counts (coll_hiercoll_stats) come from it instead "
               "of each process's binding.  Empty: the real locality",
               OPAL_INFO_LVL_9, &prm->shm_topology);
    reg_number("shm_fold_ranks",
               "Shared-memory node level: communicators of up to this many processes fold "
               "reductions whole at every length (one synchronization per chunk instead of two; "
               "each rank reads every rank's chunk)",
               OPAL_INFO_LVL_6, HC_NUM_INT, &prm->shm_fold_ranks, 2, 0, 1024);
}

/*
 * Every MCA parameter, registered by capability: one static function per
 * capability above, called here in the order ompi_info lists them (and
 * docs/parameters.md).  A new capability adds its own function and one
 * line below.
 */
static int hiercoll_register(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;

    mca_coll_hiercoll_site_load(self()); /* (the defaults the site file sets) */
    register_component(prm);
    register_algorithms(prm);
    register_basic(prm);
    register_rhrd(prm);
    register_shortcut(prm);
    register_gatherv(prm);
    register_selection(prm);
    register_inter(prm);
    register_decomp(prm);
    register_offload(prm);
    register_shm(prm);
    register_shm_long(prm);
    register_shm_safety(prm);
    /* (after every parameter: a site file's line that none took is an error) */
    mca_coll_hiercoll_site_check();
    return OMPI_SUCCESS;
}

/* coll_hiercoll_shm_group_level: a hardware level (an hcp_level_t) or
 * "none" (-1); anything else is an error, and "none". */
static int shm_group_parse(const char *v)
{
    hcp_criterion_t crit;
    char why[256];
    int by = -1;
    if (0 != hcp_criterion_parse(v, &crit, why, sizeof(why))) {
        mca_coll_hiercoll_param_error("coll_hiercoll_shm_group_level=\"%s\": %s; groups of "
                                      "consecutive ranks", v, why);
        return -1;
    }
    if (HCP_CRIT_LEVEL == crit.kind) {
        by = (int) crit.level;
    } else if (HCP_CRIT_NONE != crit.kind) {
        mca_coll_hiercoll_param_error("coll_hiercoll_shm_group_level=\"%s\": a hardware level "
                                      "or \"none\" (coll_hiercoll_shm_group_size sets the size); "
                                      "groups of consecutive ranks", v);
    }
    hcp_criterion_fini(&crit);
    return by;
}

/* coll_hiercoll_shm_levels: "auto", "flat" or a list of hardware levels
 * from the bottom; an error: auto. */
static void shm_levels_parse(mca_coll_hiercoll_params_t *prm)
{
    const char *v = NULL != prm->shm_levels ? prm->shm_levels : "auto";
    prm->shm_levels_mode = HC_LEVELS_AUTO;
    prm->shm_nlv = 0;
    if (0 == strcmp(v, "auto") || '\0' == v[0]) {
        return;
    }
    if (0 == strcmp(v, "flat")) {
        prm->shm_levels_mode = HC_LEVELS_FLAT;
        return;
    }
    char *copy = strdup(v), *save = NULL;
    int n = 0;
    const char *bad = NULL;
    for (char *t = strtok_r(copy, ", ", &save); NULL != copy && NULL != t;
         t = strtok_r(NULL, ", ", &save)) {
        int lv = -1;
        for (int i = HCP_LEVEL_NUMA; i < HCP_NLEVELS; ++i) {
            if (0 == strcmp(t, hcp_level_names[i])) {
                lv = i;
            }
        }
        if (0 == strcmp(t, "package") || 0 == strcmp(t, "pack")) {
            lv = HCP_LEVEL_SOCKET;
        }
        if (lv < 0 || n == HC_SHM_MAXLV) {
            bad = lv < 0 ? "a level is numa, socket, l3, l2, l1, core or hwthread"
                         : "at most 5 levels";
            break;
        }
        prm->shm_lv_by[n++] = lv;
    }
    free(copy);
    if (NULL != bad || 0 == n) {
        mca_coll_hiercoll_param_error("coll_hiercoll_shm_levels=\"%s\": %s; auto", v,
                                      NULL != bad ? bad : "no level");
        return;
    }
    prm->shm_levels_mode = HC_LEVELS_LIST;
    prm->shm_nlv = n;
}

static int hiercoll_open(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    char why[256];
    if (0 != hcp_criterion_parse(prm->decomp_criterion, &prm->decomp, why, sizeof(why))) {
        mca_coll_hiercoll_param_error("coll_hiercoll_decomp_criterion=\"%s\": %s; decomposition "
                                      "off", prm->decomp_criterion, why);
    }
    prm->shm_group_by = shm_group_parse(prm->shm_group_level);
    shm_levels_parse(prm);
    if (0 != mca_coll_hiercoll_shm_topology_parse(prm->shm_topology, why, sizeof(why))) {
        mca_coll_hiercoll_param_error("coll_hiercoll_shm_topology=\"%s\": %s; the real locality",
                                      prm->shm_topology, why);
    }
    mca_coll_hiercoll_rules_open();
    /* the hooks through which lower layers reach up (coll_hiercoll_hooks.h) */
    mca_coll_hiercoll_hooks.scratch_moved = mca_coll_hiercoll_fast_forget;
    mca_coll_hiercoll_hooks.shm_settled = mca_coll_hiercoll_fast_forget;
    mca_coll_hiercoll_hooks.module_class = OBJ_CLASS(mca_coll_hiercoll_module_t);
    OBJ_CONSTRUCT(&prm->active, opal_list_t);
    OBJ_CONSTRUCT(&prm->lock, opal_mutex_t);
    prm->nactive = 0;
    prm->progress_registered = false;
    prm->in_progress = false;
    prm->idle_polls = 0;
    prm->leftovers = NULL;
    prm->nleftovers = 0;
    return OMPI_SUCCESS;
}

static int hiercoll_close(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    mca_coll_hiercoll_exec_fini();
    mca_coll_hiercoll_offload_fini();
    mca_coll_hiercoll_decomp_fini();
    mca_coll_hiercoll_shm_fini();
    OBJ_DESTRUCT(&prm->active);
    OBJ_DESTRUCT(&prm->lock);
    hcp_criterion_fini(&prm->decomp);
    mca_coll_hiercoll_rules_close();
    mca_coll_hiercoll_site_free();
    for (int k = 0; k < HC_NERR; ++k) {
        free(prm->param_errors[k]);
        prm->param_errors[k] = NULL;
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Open MPI's internal structures                                       */
/* ------------------------------------------------------------------ */

/*
 * hiercoll reads and embeds Open MPI structures that carry no ABI promise.
 * Every one of them is an OPAL class whose descriptor, compiled into the
 * running libmpi, records the size libmpi was built with: compare it with
 * the size this component was compiled with and decline on a mismatch.
 * The list, for 4.1 and 5.0, is HC_ABI_CHECKS (coll_hiercoll_compat.h);
 * a component built against one series and loaded into the other (both
 * ship libmpi.so.40) fails it on the communicator's size.
 * HIERCOLL_TEST_ABI_MISMATCH=1 in the environment pretends a mismatch
 * of the first structure, =NAME (e.g. opal_mutex_t) of that one (for the
 * test suite).
 */
static bool abi_check(void)
{
    static const struct {
        const char *name;
        const opal_class_t *cls;
        size_t compiled;
    } checks[] = {
#define HC_ABI_ENTRY(name, cls, type) {name, &cls, sizeof(type)},
        HC_ABI_CHECKS(HC_ABI_ENTRY)
#undef HC_ABI_ENTRY
    };
    const char *fake = getenv("HIERCOLL_TEST_ABI_MISMATCH");
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); ++i) {
        size_t running = checks[i].cls->cls_sizeof;
        if (NULL != fake
            && ((0 == i && 0 == strcmp(fake, "1")) || 0 == strcmp(fake, checks[i].name))) {
            running += 8;
        }
        if (running != checks[i].compiled) {
            if (0 == OMPI_PROC_MY_NAME->vpid) {
                mca_coll_hiercoll_show_help("abi-mismatch", checks[i].name, running,
                                            checks[i].compiled);
            }
            return false;
        }
    }
    return true;
}

static int hiercoll_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void) enable_progress_threads;
    (void) enable_mpi_threads;
    mca_coll_hiercoll_params.abi_ok = abi_check();
    return mca_coll_hiercoll_params.abi_ok ? OMPI_SUCCESS : OMPI_ERR_NOT_SUPPORTED;
}
