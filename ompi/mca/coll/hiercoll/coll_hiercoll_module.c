/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The module: one per communicator hiercoll accepts.  It keeps the layer
 * below it (every collective slot as the lower-priority components left
 * it) and the per-communicator choices.
 */
#include "ompi_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "opal/util/output.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_module.h"
#include "coll_hiercoll_entry.h"
#include "coll_hiercoll_select.h"
#include "coll_hiercoll_fast.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_shortcut.h"
#include "coll_hiercoll_shm.h"

static void module_construct(mca_coll_hiercoll_module_t *m)
{
    memset(&m->prev, 0, sizeof(m->prev));
    memset(m->prev_name, 0, sizeof(m->prev_name));
    memset(&m->stats, 0, sizeof(m->stats));
    for (int k = 0; k < HC_NCOLL; ++k) {
        m->choice[k] = HC_ALGO_AUTO;
    }
    m->comm = NULL;
    m->gatherv_level = 0;
    m->enabled = false;
    m->shm = NULL;
    m->decomp = NULL;
    m->offload = NULL;
    m->decomp_crit = &mca_coll_hiercoll_params.decomp;
    memset(&m->decomp_own, 0, sizeof(m->decomp_own));
    m->decomp_own.kind = HCP_CRIT_NONE;
    m->scratch = NULL;
    m->scratch_size = 0;
    m->sc_hist = NULL;
    m->sc_decider = -1;
    hcp_init(&m->plan);
    /* (every entry invalid, its plan as hcp_init leaves it: one pass over
     * the array, where a communicator's life counts) */
    memset(m->cache, 0, sizeof(m->cache));
}

static void print_stats(mca_coll_hiercoll_module_t *m)
{
    uint64_t calls = 0, fallbacks = 0;
    char per[1024] = "";
    for (int k = 0; k < HC_NCOLL; ++k) {
        calls += m->stats.calls[k];
        fallbacks += m->stats.fallbacks[k];
        if (m->stats.calls[k] > 0 && strlen(per) < sizeof(per) - 64) {
            snprintf(per + strlen(per), sizeof(per) - strlen(per), " %s:%llu",
                     mca_coll_hiercoll_coll_names[k], (unsigned long long) m->stats.calls[k]);
        }
    }
    opal_output(0,
                "hiercoll: stats comm %s cid %d rank %d/%d: calls %llu (passed on %llu), "
                "messages %llu, bytes sent %llu, bytes copied %llu, bytes reduced %llu;%s",
                m->comm->c_name, hc_comm_cid(m->comm), ompi_comm_rank(m->comm),
                ompi_comm_size(m->comm), (unsigned long long) calls,
                (unsigned long long) fallbacks, (unsigned long long) m->stats.msgs,
                (unsigned long long) m->stats.bytes_sent,
                (unsigned long long) m->stats.bytes_copied,
                (unsigned long long) m->stats.bytes_reduced, per);
    if (m->stats.sc_engaged > 0) {
        opal_output(0,
                    "hiercoll: shortcut comm %s rank %d/%d: engaged %llu, decided %llu (returned "
                    "at once), requests completed after their call %llu",
                    m->comm->c_name, ompi_comm_rank(m->comm), ompi_comm_size(m->comm),
                    (unsigned long long) m->stats.sc_engaged,
                    (unsigned long long) m->stats.sc_early,
                    (unsigned long long) m->stats.sc_late_reqs);
    }
}

static void module_destruct(mca_coll_hiercoll_module_t *m)
{
    if (NULL != m->comm && 0 != mca_coll_hiercoll_params.nleftovers) {
        /* early exits' requests on it; MPI_COMM_WORLD's module goes in
         * MPI_Finalize while the PML still runs (Open MPI 4.1 has no later
         * hook that does): the last chance for every communicator's, also
         * those of communicators that their own requests keep alive */
        mca_coll_hiercoll_sc_sweep(m->comm, m->comm == &ompi_mpi_comm_world.comm);
    }
    if (m->enabled && mca_coll_hiercoll_params.stats && NULL != m->comm) {
        print_stats(m);
    }
    mca_coll_hiercoll_sc_free(m);
    mca_coll_hiercoll_decomp_free(m);
    mca_coll_hiercoll_offload_free(m);
    mca_coll_hiercoll_shm_free(m);
    hcp_criterion_fini(&m->decomp_own);
    mca_coll_hiercoll_release_prev(m);
    hcp_fini(&m->plan);
    for (int k = 0; k < HC_NCOLL; ++k) {
        if (NULL != m->cache[k].plan.ops || NULL != m->cache[k].plan.round_end) {
            hcp_fini(&m->cache[k].plan); /* (a plan never built holds nothing) */
        }
    }
    free(m->scratch);
}

OBJ_CLASS_INSTANCE(mca_coll_hiercoll_module_t, mca_coll_base_module_t, module_construct,
                   module_destruct);

const char *mca_coll_hiercoll_info_key(hc_coll_t k, char *buf, size_t len)
{
    int w = snprintf(buf, len, "hiercoll_%s_algorithm", mca_coll_hiercoll_coll_names[k]);
    if (w < 0 || w >= OPAL_MAX_INFO_KEY || (size_t) w >= len) {
        snprintf(buf, len, "hiercoll_%s", mca_coll_hiercoll_coll_names[k]);
    }
    return buf;
}

/* Per-communicator overrides by info keys "hiercoll_<coll>_algorithm",
 * "hiercoll_gatherv_level", "hiercoll_decomp_criterion"...; the bad values
 * of a communicator's keys are one message (help-coll-hiercoll.txt,
 * "bad-info-key") from its rank 0, and are ignored. */
typedef struct {
    char text[2048];
} hc_bad_keys_t;

static void bad_key(hc_bad_keys_t *b, const char *fmt, ...)
    __opal_attribute_format__(__printf__, 2, 3);
static void bad_key(hc_bad_keys_t *b, const char *fmt, ...)
{
    size_t len = strlen(b->text);
    va_list ap;
    va_start(ap, fmt);
    len += (size_t) snprintf(b->text + len, sizeof(b->text) - len, "hiercoll: ERROR: info key ");
    if (len < sizeof(b->text)) {
        len += (size_t) vsnprintf(b->text + len, sizeof(b->text) - len, fmt, ap);
    }
    if (len < sizeof(b->text)) {
        snprintf(b->text + len, sizeof(b->text) - len, "\n");
    }
    va_end(ap);
}

/* A boolean info key: true or false sets *to; anything else is a bad key
 * and leaves the MCA choice. */
static void info_bool(opal_info_t *info, ompi_communicator_t *comm, const char *key, bool *to,
                      hc_bad_keys_t *bad)
{
    char val[64];
    int flag = 0;
    if (OPAL_SUCCESS == hc_info_get(info, key, val, sizeof(val), &flag) && flag
        && 0 != mca_coll_hiercoll_parse_bool(val, to)) {
        bad_key(bad, "%s=\"%s\" on %s is neither true nor false; keeping the MCA choice", key,
                val, comm->c_name);
    }
}

static void read_info(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    opal_info_t *info = comm->super.s_info;
    /* (every key read here begins "hiercoll_"; a communicator's info
     * rarely has one, and asking for each of them cost about a tenth of a
     * dup with hiercoll) */
    if (NULL == info || !hc_info_has_prefix(info, "hiercoll_")) {
        return;
    }
    char key[OPAL_MAX_INFO_KEY + 1], val[OPAL_MAX_INFO_VAL + 1];
    int flag = 0;
    hc_bad_keys_t bad = {.text = ""};
    for (int k = 0; k < HC_NCOLL; ++k) {
        mca_coll_hiercoll_info_key((hc_coll_t) k, key, sizeof(key));
        if (OPAL_SUCCESS == hc_info_get(info, key, val, sizeof(val), &flag) && flag) {
            int idx = mca_coll_hiercoll_algo_index((hc_coll_t) k, val);
            if (idx < HC_ALGO_FALLBACK) {
                bad_key(&bad, "%s=\"%s\" on %s names no algorithm of %s; keeping the MCA choice",
                        key, val, comm->c_name, mca_coll_hiercoll_coll_names[k]);
            } else {
                m->choice[k] = idx;
            }
        }
    }
    if (OPAL_SUCCESS == hc_info_get(info, "hiercoll_gatherv_level", val, sizeof(val), &flag)
        && flag) {
        int level = mca_coll_hiercoll_gatherv_level_of(val);
        if (level < 0) {
            bad_key(&bad, "hiercoll_gatherv_level=\"%s\" on %s is neither \"conservative\" nor "
                    "\"aggressive\"; keeping the MCA choice", val, comm->c_name);
        } else {
            m->gatherv_level = level;
        }
    }
    if (OPAL_SUCCESS
            == hc_info_get(info, "hiercoll_decomp_criterion", val, sizeof(val), &flag)
        && flag) {
        char why[256];
        if (0 == hcp_criterion_parse(val, &m->decomp_own, why, sizeof(why))) {
            m->decomp_crit = &m->decomp_own;
        } else {
            bad_key(&bad, "hiercoll_decomp_criterion=\"%s\" on %s: %s; keeping the MCA choice",
                    val, comm->c_name, why);
        }
    }
    /* short-circuit reduce: the rank that usually decides, placed next to
     * the root (every rank must pass the same value) */
    if (OPAL_SUCCESS
            == hc_info_get(info, "hiercoll_shortcut_decider", val, sizeof(val), &flag)
        && flag) {
        char *end;
        long d = strtol(val, &end, 10);
        if (end == val || '\0' != *end || d < 0 || d >= ompi_comm_size(comm)) {
            bad_key(&bad, "hiercoll_shortcut_decider=\"%s\" on %s is no rank of it; no "
                    "decider placed", val, comm->c_name);
        } else {
            m->sc_decider = (int) d;
        }
    }
    info_bool(info, comm, "hiercoll_shm_demote", &m->shm_demote, &bad);
    info_bool(info, comm, "hiercoll_shm_lean", &m->shm_lean, &bad);
    /* long messages through the long cells (every rank must pass the same) */
    if (OPAL_SUCCESS == hc_info_get(info, "hiercoll_shm_long", val, sizeof(val), &flag) && flag) {
        if (0 == strcmp(val, "on")) {
            m->shm_long = HC_SHM_LONG_ON;
        } else if (0 == strcmp(val, "off")) {
            m->shm_long = HC_SHM_LONG_OFF;
        } else if (0 == strcmp(val, "auto")) {
            m->shm_long = HC_SHM_LONG_AUTO;
        } else {
            bad_key(&bad, "hiercoll_shm_long=\"%s\" on %s is not auto, on or off; keeping the "
                    "MCA choice", val, comm->c_name);
        }
    }
    if ('\0' != bad.text[0] && 0 == ompi_comm_rank(comm)) {
        mca_coll_hiercoll_show_help("bad-info-key", bad.text);
    }
}

static int module_enable(mca_coll_base_module_t *module, ompi_communicator_t *comm)
{
    mca_coll_hiercoll_module_t *m = (mca_coll_hiercoll_module_t *) module;
    m->comm = comm;
    for (int k = 0; k < HC_NCOLL; ++k) {
        m->choice[k] = mca_coll_hiercoll_params.algorithm[k];
    }
    m->gatherv_level = mca_coll_hiercoll_params.gatherv_level;
    m->shm_demote = mca_coll_hiercoll_params.shm_demote;
    m->shm_lean = mca_coll_hiercoll_params.shm_lean;
    m->shm_long = mca_coll_hiercoll_params.shm_long;
    read_info(m, comm);
    mca_coll_hiercoll_save_prev(m, comm);
    mca_coll_hiercoll_shm_enable(m, comm);
    mca_coll_hiercoll_fast_enable(m, comm);
    /* (6.0: the slots as fast_enable left the module's functions: one it
     * cleared stays with the layer below, as 4.1's selection leaves it) */
    mca_coll_hiercoll_install(m, comm);
    m->enabled = true;
    if (mca_coll_hiercoll_params.verbose >= 1 && 0 == ompi_comm_rank(comm)) {
        if (OMPI_COMM_IS_INTER(comm)) {
            mca_coll_hiercoll_inter_describe(m);
        } else {
            mca_coll_hiercoll_describe(m);
        }
    }
    return OMPI_SUCCESS;
}

/* Open MPI 6.0's disable (called once, before the components below are
 * disabled): the slots that still hold the module go back to the layer
 * below.  4.1 and 5.0 set none (HC_MODULE_SET_HOOKS). */
static int module_disable(mca_coll_base_module_t *module, ompi_communicator_t *comm)
{
    mca_coll_hiercoll_uninstall((mca_coll_hiercoll_module_t *) module, comm);
    return OMPI_SUCCESS;
}

mca_coll_base_module_t *mca_coll_hiercoll_comm_query(ompi_communicator_t *comm, int *priority)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;

    mca_coll_hiercoll_param_errors_report(comm);
    if (!prm->abi_ok || prm->priority < 0) {
        return NULL;
    }
    /* Intercommunicators get a module too: it passes calls to the layer
     * below where that fills the slot and runs hiercoll's intercommunicator
     * plans in the others (coll_hiercoll_inter.c).  hiercoll's own
     * sub-communicators are created with the info key
     * ompi_comm_coll_preference="^hiercoll", which keeps this function
     * from even being asked about them. */
    mca_coll_hiercoll_module_t *m = OBJ_NEW(mca_coll_hiercoll_module_t);
    if (NULL == m) {
        return NULL;
    }
    *priority = prm->priority;
    if (OMPI_COMM_IS_INTER(comm) && prm->priority < 100) {
        /* coll/inter asks for the same default priority (40): one more
         * keeps hiercoll above it, so that what runs where is hiercoll's
         * choice (coll_hiercoll_inter_own) and shows in its statistics */
        *priority = prm->priority + 1;
    }
    HC_MODULE_SET_HOOKS(&m->super, module_enable, module_disable);
    mca_coll_hiercoll_set_entry_points(&m->super);
    return &m->super;
}
