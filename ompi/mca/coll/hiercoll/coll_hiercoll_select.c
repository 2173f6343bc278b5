/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Selection: which algorithm serves a call, and dispatch: the layer below
 * (coll_hiercoll_below.c), a plan, stages, a direct or a request
 * algorithm.  Under auto, mca_coll_hiercoll_select asks in this order:
 * decomposition, the shared-memory node level, the short-circuit, the
 * selection rules, the collective's auto_pick.  docs/using.md lists the
 * same order; test docs-selection checks it against this file's calls.
 */
#include "ompi_config.h"

#include <stddef.h>
#include <string.h>

#include "opal/util/output.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_select.h"
#include "coll_hiercoll_fast.h"
#include "coll_hiercoll_algos.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_shortcut.h"
#include "coll_hiercoll_shm.h"

static const char *mode_prefix[HC_NMODE] = {"", "i", ""};
static const char *mode_suffix[HC_NMODE] = {"", "", "_init"};

/* ------------------------------------------------------------------ */
/* Names                                                                */
/* ------------------------------------------------------------------ */

int mca_coll_hiercoll_algo_index(hc_coll_t coll, const char *name)
{
    if (NULL == name || 0 == strcmp(name, "auto") || 0 == strcmp(name, "")) {
        return HC_ALGO_AUTO;
    }
    if (0 == strcmp(name, "fallback")) {
        return HC_ALGO_FALLBACK;
    }
    int i = 0;
    for (const hc_algo_t *a = mca_coll_hiercoll_colls[coll].algos; a && a->name; ++a, ++i) {
        if (0 == strcmp(a->name, name)) {
            return i;
        }
    }
    return -3;
}

int mca_coll_hiercoll_gatherv_level_of(const char *s)
{
    if (NULL == s || 0 == strcmp(s, "conservative")) {
        return 0;
    }
    if (0 == strcmp(s, "aggressive")) {
        return 1;
    }
    return -1;
}

/* ------------------------------------------------------------------ */
/* Calls                                                                */
/* ------------------------------------------------------------------ */

static bool is_reduction(hc_coll_t coll)
{
    return HC_ALLREDUCE == coll || HC_REDUCE == coll || HC_REDUCE_SCATTER == coll
           || HC_REDUCE_SCATTER_BLOCK == coll || HC_SCAN == coll || HC_EXSCAN == coll;
}

static size_t sig_size(ompi_datatype_t *t)
{
    size_t s = 0;
    if (NULL != t) {
        ompi_datatype_type_size(t, &s);
    }
    return s;
}

void mca_coll_hiercoll_call_init(hc_call_t *c, ompi_communicator_t *comm,
                                 mca_coll_base_module_t *module)
{
    c->comm = comm;
    c->module = (mca_coll_hiercoll_module_t *) module;
    c->rank = ompi_comm_rank(comm);
    c->size = ompi_comm_size(comm);
    c->in_place = false;

    switch (c->coll) {
    case HC_GATHER:
    case HC_GATHERV:
    case HC_REDUCE:
        /* MPI_IN_PLACE is the root's sendbuf */
        c->in_place = (c->rank == c->root && MPI_IN_PLACE == c->sbuf);
        break;
    case HC_SCATTER:
    case HC_SCATTERV:
        /* ... and the root's recvbuf */
        c->in_place = (c->rank == c->root && MPI_IN_PLACE == c->rbuf);
        break;
    case HC_NEIGHBOR_ALLGATHER:
    case HC_NEIGHBOR_ALLGATHERV:
    case HC_NEIGHBOR_ALLTOALL:
    case HC_NEIGHBOR_ALLTOALLV:
    case HC_NEIGHBOR_ALLTOALLW:
        break; /* MPI has no in-place neighborhood collectives */
    default:
        c->in_place = (MPI_IN_PLACE == c->sbuf);
        break;
    }
    if (OMPI_COMM_IS_INTER(comm)) {
        c->in_place = false; /* MPI_IN_PLACE does not exist there (MPI checks it) */
    }
    if (c->in_place && (HC_GATHER == c->coll || HC_GATHERV == c->coll)) {
        c->stype = c->rtype; /* the root's own block is a receive block */
        c->scount = HC_GATHER == c->coll ? c->rcount : c->rcounts[c->rank];
    }
    if (c->in_place && (HC_SCATTER == c->coll || HC_SCATTERV == c->coll)) {
        c->rtype = c->stype;
        c->rcount = HC_SCATTER == c->coll ? c->scount : c->scounts[c->rank];
    }
    if (c->in_place
        && (HC_ALLGATHER == c->coll || HC_ALLGATHERV == c->coll || HC_ALLTOALL == c->coll
            || HC_ALLTOALLV == c->coll)) {
        c->stype = c->rtype;
    }
    if (is_reduction(c->coll)) {
        c->stype = c->rtype; /* reductions carry one datatype, kept as rtype */
    }
    c->ssize = sig_size(c->stype);
    c->rsize = sig_size(c->rtype);
}

/* ------------------------------------------------------------------ */
/* Selection                                                            */
/* ------------------------------------------------------------------ */

static bool fits(const hc_algo_t *a, const hc_call_t *c)
{
    if (NULL != a->run && HC_BLOCKING != c->mode) {
        return false; /* direct algorithms are blocking only */
    }
    return NULL == a->usable || a->usable(c);
}

/* What hiercoll runs when it must (no fallback): the first algorithm of
 * the collective that fits (c NULL: that is not a direct one), normally
 * its linear plan. */
static const hc_algo_t *last_resort(hc_coll_t coll, const hc_call_t *c)
{
    for (const hc_algo_t *a = mca_coll_hiercoll_colls[coll].algos; a->name; ++a) {
        if (NULL == a->run && NULL == a->start
            && (NULL == c || NULL == a->usable || a->usable(c))) {
            return a;
        }
    }
    return NULL;
}

/* Where the selection hands a call to the layer below: NULL, or, for a
 * call the layer below would run with an algorithm that writes outside
 * its scratch (a datatype whose true lower bound is not 0: tuned's ring
 * allreduce, libnbc's ireduce; coll_hiercoll_below.c), hiercoll's own
 * algorithm as auto would pick it. */
static const hc_algo_t *to_below(const hc_call_t *c)
{
    if (!mca_coll_hiercoll_below_misplaces(c)) {
        return NULL;
    }
    const hc_algo_t *own = mca_coll_hiercoll_colls[c->coll].auto_pick(c);
    ((hc_call_t *) c)->rule = NULL;
    return NULL != own && fits(own, c) ? own : last_resort(c->coll, c);
}

const hc_algo_t *mca_coll_hiercoll_select(const hc_call_t *c)
{
    const hc_coll_desc_t *d = &mca_coll_hiercoll_colls[c->coll];
    int choice = c->module->choice[c->coll];
    bool can_fall_back = mca_coll_hiercoll_has_fallback(c->module, c->coll, c->mode);
    const hc_algo_t *a = NULL;

    if (HC_ALGO_FALLBACK == choice && can_fall_back) {
        return NULL;
    }
    if (choice >= 0 && fits(&d->algos[choice], c)) {
        return &d->algos[choice];
    }
    /* One process: every plan is a local copy at most.  (Passing these on
     * can also crash: Open MPI 4.1.4's linear exscan, coll/basic's, sends
     * to rank 1 on a one-process communicator.)  This holds as well when
     * the chosen algorithm declines the call. */
    if (1 == c->size) {
        return last_resort(c->coll, c);
    }
    if (HC_ALGO_AUTO == choice || choice >= 0) {
        a = mca_coll_hiercoll_decomp_auto(c);
        if (NULL == a) { /* the shared-memory node level, before the rules (measured
                          * against the layer below on one node) */
            a = mca_coll_hiercoll_shm_auto(c);
            if (NULL == a && can_fall_back && mca_coll_hiercoll_shm_defers(c)) {
                return to_below(c);
            }
        }
        if (NULL == a) { /* short-circuit reductions before the rules (measured
                          * on ops without absorbing values) */
            a = mca_coll_hiercoll_shortcut_auto(c);
        }
        /* the selection rules (coll_hiercoll_fast.c); the call records the
         * rule that decided, for verbose output */
        const hcp_rule_t *rule = NULL == a ? mca_coll_hiercoll_rule_of(c) : NULL;
        if (NULL != rule && HCP_RULE_FALLBACK == rule->algo && can_fall_back) {
            ((hc_call_t *) c)->rule = rule;
            return to_below(c);
        }
        if (NULL != rule && rule->algo >= 0 && fits(&d->algos[rule->algo], c)) {
            ((hc_call_t *) c)->rule = rule;
            return mca_coll_hiercoll_shortcut_upgrade(c, &d->algos[rule->algo]);
        }
        if (NULL == a) {
            a = d->auto_pick(c);
        }
        if (NULL != a && !fits(a, c)) {
            a = NULL;
        }
    }
    if (NULL == a && !can_fall_back) {
        a = last_resort(c->coll, c);
    }
    return NULL != a ? a : to_below(c);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                             */
/* ------------------------------------------------------------------ */

static const char *mode_name[HC_NMODE] = {"blocking", "nonblocking", "persistent"};

/* The plan of a blocking call: from the cache when the call has regular
 * arguments and the same key as the last one of its collective. */
static int blocking_plan(const hc_algo_t *a, const hc_call_t *c, hcp_plan_t **plan)
{
    mca_coll_hiercoll_module_t *m = c->module;
    if (NULL != c->scounts || NULL != c->rcounts || NULL != c->sdispls || NULL != c->rdispls) {
        *plan = &m->plan;
        return a->plan(&m->plan, c);
    }
    hc_plan_cache_t *e = &m->cache[c->coll];
    hc_plan_key_t key;
    memset(&key, 0, sizeof(key)); /* the key is compared bytewise */
    key.algo = a;
    key.root = c->root;
    key.scount = c->scount;
    key.rcount = c->rcount;
    key.ssize = c->ssize;
    key.rsize = c->rsize;
    key.in_place = c->in_place;
    key.commutative = NULL != c->op && ompi_op_is_commute(c->op);
    *plan = &e->plan;
    if (e->valid && 0 == memcmp(&key, &e->key, sizeof(key))) {
        return OMPI_SUCCESS;
    }
    e->valid = false;
    int rc = a->plan(&e->plan, c);
    if (OMPI_SUCCESS == rc) {
        e->key = key;
        e->valid = true;
    }
    return rc;
}

int mca_coll_hiercoll_dispatch(hc_call_t *c, ompi_request_t **request, struct ompi_info_t *info)
{
    if (OMPI_COMM_IS_INTER(c->comm)) {
        return mca_coll_hiercoll_inter_dispatch(c, request, info);
    }
    mca_coll_hiercoll_module_t *m = c->module;
    const hc_algo_t *a = mca_coll_hiercoll_select(c);
    int rc;

    if (HC_BLOCKING == c->mode) {
        m->fast[c->coll].valid = false; /* the plan cache entry may change */
    }
    if (mca_coll_hiercoll_params.verbose >= 2 && 0 == c->rank) {
        char why[160] = "auto";
        if (NULL != c->rule) {
            char ranges[96];
            hcp_rule_ranges(c->rule, ranges, sizeof(ranges));
            snprintf(why, sizeof(why), "rule %.48s:%d %s", mca_coll_hiercoll_params.rules.source,
                     c->rule->line, ranges);
        } else if (HC_ALGO_AUTO != m->choice[c->coll]) {
            snprintf(why, sizeof(why), "%s", HC_ALGO_FALLBACK == m->choice[c->coll] ? "fallback"
                                             : "forced");
        }
        if (NULL == a) {
            mca_coll_hiercoll_log(2, "%s: %s%s%s -> %s (%s, np %d) by %s", c->comm->c_name,
                                  mode_prefix[c->mode], mca_coll_hiercoll_coll_names[c->coll],
                                  mode_suffix[c->mode], m->prev_name[c->coll][c->mode],
                                  mode_name[c->mode], c->size, why);
        } else {
            mca_coll_hiercoll_log(2, "%s: %s%s%s = %s (%s, np %d) by %s", c->comm->c_name,
                                  mode_prefix[c->mode], mca_coll_hiercoll_coll_names[c->coll],
                                  mode_suffix[c->mode], a->name, mode_name[c->mode], c->size, why);
        }
    }
    if (HC_BLOCKING == c->mode) {
        bool passed = NULL == a && !mca_coll_hiercoll_shortcut_watch(c);
        mca_coll_hiercoll_fast_count(m, c->coll, passed);
    }
    if (NULL == a) {
        m->stats.fallbacks[c->coll]++;
        if (HC_BLOCKING != c->mode) {
            return mca_coll_hiercoll_fallback(c, request, info);
        }
        if (OPAL_LIKELY(!mca_coll_hiercoll_shortcut_watch(c))) {
            mca_coll_hiercoll_fast_fill(c, NULL, NULL);
            return mca_coll_hiercoll_fallback(c, request, info);
        }
        /* the layer below's result feeds the short-circuit history */
        rc = mca_coll_hiercoll_fallback(c, request, info);
        if (OMPI_SUCCESS == rc) {
            mca_coll_hiercoll_sc_observe(m, c->op, c->rtype, c->rbuf, c->rcount);
            mca_coll_hiercoll_fast_fill(c, NULL, NULL);
        }
        return rc;
    }
    m->stats.calls[c->coll]++;
    if (NULL != a->run) {
        return a->run(c);
    }
    if (NULL != a->start) {
        rc = a->start(c, request, info);
        if (HC_DECLINED == rc) { /* alike on every rank: select again */
            m->stats.calls[c->coll]--;
            return mca_coll_hiercoll_dispatch(c, request, info);
        }
        if (OMPI_SUCCESS == rc && HC_BLOCKING == c->mode
            && mca_coll_hiercoll_shm_start == a->start) {
            mca_coll_hiercoll_fast_fill(c, &mca_coll_hiercoll_shm_mark, NULL);
        }
        return rc;
    }

    hc_bind_t b;
    mca_coll_hiercoll_bind(c, &b);
    if (NULL != a->stages && (NULL == a->staged || a->staged(c))) {
        hc_stages_t st;
        rc = a->stages(c, &st);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        return mca_coll_hiercoll_exec_staged(m, c->comm, &st, &b, c->mode, request);
    }
    if (HC_BLOCKING == c->mode) {
        hcp_plan_t *plan;
        rc = blocking_plan(a, c, &plan);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        rc = mca_coll_hiercoll_exec_blocking(m, c->comm, plan, &b,
                                             mca_coll_hiercoll_blocking_tag(c->coll));
        if (OMPI_SUCCESS == rc) {
            mca_coll_hiercoll_fast_fill(c, plan, &b);
        }
        return rc;
    }
    hcp_plan_t plan;
    hcp_init(&plan);
    rc = a->plan(&plan, c);
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_hiercoll_exec_request(m, c->comm, &plan, &b, HC_PERSISTENT == c->mode,
                                            request);
    }
    hcp_fini(&plan);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Verbose: a header line per communicator, then one line per collective */
/* ------------------------------------------------------------------ */

void mca_coll_hiercoll_describe(mca_coll_hiercoll_module_t *m)
{
    char head[256];
    snprintf(head, sizeof(head), "%s (cid %d, np %d)", m->comm->c_name, hc_comm_cid(m->comm),
             ompi_comm_size(m->comm));
    mca_coll_hiercoll_log(1, "%s [=alg: hiercoll runs alg, ->comp: passed to comp; "
                             "blocking|nonblocking|persistent]:", head);
    for (int k = 0; k < HC_NCOLL; ++k) {
        const hc_coll_desc_t *d = &mca_coll_hiercoll_colls[k];
        char what[HC_NMODE][400];
        for (int md = 0; md < HC_NMODE; ++md) {
            const char *fb = m->prev_name[k][md];
            int choice = m->choice[k];
            if (HC_ALGO_FALLBACK == choice && NULL != fb) {
                snprintf(what[md], sizeof(what[md]), "->%s", fb);
            } else if (choice >= 0 && (NULL == d->algos[choice].run || HC_BLOCKING == md)) {
                snprintf(what[md], sizeof(what[md]), "=%s", d->algos[choice].name);
            } else if (1 == ompi_comm_size(m->comm)) { /* as mca_coll_hiercoll_select() */
                snprintf(what[md], sizeof(what[md]), "=%s", last_resort((hc_coll_t) k, NULL)->name);
            } else {
                size_t pre = mca_coll_hiercoll_decomp_describe(m, (hc_coll_t) k, (hc_mode_t) md,
                                                               what[md], sizeof(what[md]));
                size_t after_shm = 0;
                /* the shared-memory node level: auto's question after
                 * decomposition (from its admission, coll_hiercoll_shm_min_calls) */
                if (HC_ALGO_AUTO == choice && mca_coll_hiercoll_shm_claims(m, (hc_coll_t) k)) {
                    char lim[32] = "";
                    if (HC_BARRIER != k) {
                        snprintf(lim, sizeof(lim), "<=%zuB", mca_coll_hiercoll_params.shm_auto_max);
                    }
                    pre +=
                        (size_t) snprintf(what[md] + pre, sizeof(what[md]) - pre, "=shm%s,", lim);
                    after_shm = pre;
                }
                bool whole;
                pre += mca_coll_hiercoll_rules_describe(m, (hc_coll_t) k, (hc_mode_t) md,
                                                        what[md] + pre, sizeof(what[md]) - pre,
                                                        &whole);
                if (!whole) {
                    d->describe(m, (hc_coll_t) k, (hc_mode_t) md, what[md] + pre,
                                sizeof(what[md]) - pre);
                }
                if (after_shm > 0 && '=' == what[md][after_shm]) { /* "=shm,binomial" */
                    memmove(what[md] + after_shm, what[md] + after_shm + 1,
                            strlen(what[md] + after_shm));
                }
            }
        }
        if (0 == strcmp(what[0], what[1]) && 0 == strcmp(what[1], what[2])) {
            mca_coll_hiercoll_log(1, "%s  %s%s", head, mca_coll_hiercoll_coll_names[k], what[0]);
        } else {
            mca_coll_hiercoll_log(1, "%s  %s%s|%s|%s", head, mca_coll_hiercoll_coll_names[k],
                                  what[0], what[1], what[2]);
        }
    }
}
