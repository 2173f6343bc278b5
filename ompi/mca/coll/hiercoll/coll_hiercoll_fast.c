/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Where measured slower, the layer below: selection rules and the fast path
 * (docs/tuning.md; why entries are forgotten: docs/design/fast-path.md).
 *
 * Rules (coll_hiercoll_rules.c parses them) say, per collective,
 * communicator size and message size, whether a blocking call under auto
 * runs one of hiercoll's algorithms or passes on.  At enable each
 * communicator keeps the rules of its size; a collective whose rules pass
 * EVERY size on (and that nothing else may claim: auto, no decomposition,
 * no per-call output) is not even entered: hiercoll leaves the layer
 * below's function in the communicator's slot.
 *
 * The fast path: a blocking bcast, reduce, allreduce or barrier with the
 * same arguments (count, predefined datatype and op, root, in-place) as
 * the previous call of that collective on the communicator reuses that
 * call's selection, plan and binding (only the buffers change), or calls
 * the layer below directly when that call was passed on.  Every
 * blocking plan runs with the collective's fixed tag, whichever path it
 * took (blocking collectives on one communicator are ordered, as
 * coll/base's blocking algorithms assume), so ranks that take different
 * paths for the same call still match.
 */
#include "ompi_config.h"

#include <string.h>

#include "opal/util/output.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_algos.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_shortcut.h"
#include "coll_hiercoll_fast.h"
#include "coll_hiercoll_shm.h"

/* ------------------------------------------------------------------ */
/* Loading the rules                                                    */
/* ------------------------------------------------------------------ */

static const char *algo_names[HC_NCOLL][16];
static const char *const *algo_lists[HC_NCOLL];

static void names(hcp_rules_names_t *n)
{
    for (int k = 0; k < HC_NCOLL; ++k) {
        const hc_coll_desc_t *d = &mca_coll_hiercoll_colls[k];
        int i = 0;
        for (const hc_algo_t *a = d->algos; a->name && i < 15; ++a) {
            algo_names[k][i++] = a->name;
        }
        algo_names[k][i] = NULL;
        algo_lists[k] = algo_names[k];
    }
    n->ncoll = HC_NCOLL;
    n->coll = mca_coll_hiercoll_coll_names;
    n->algos = algo_lists;
}

void mca_coll_hiercoll_rules_open(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    hcp_rules_names_t n;
    char why[512];
    names(&n);
    if (NULL != prm->rules_file && '\0' != prm->rules_file[0]) {
        if (0 == hcp_rules_load(prm->rules_file, &n, &prm->rules, why, sizeof(why))) {
            return;
        }
        mca_coll_hiercoll_error_in(HC_ERR_RULES,
                                   "coll_hiercoll_rules_file=\"%s\": %s; using the built-in rules",
                                   prm->rules_file, why);
    }
    if (0 != hcp_rules_parse(hcp_rules_builtin, &n, "built-in", &prm->rules, why, sizeof(why))) {
        mca_coll_hiercoll_error_in(HC_ERR_RULES, "the built-in rules: %s; using none", why);
    }
}

void mca_coll_hiercoll_rules_close(void)
{
    hcp_rules_fini(&mca_coll_hiercoll_params.rules);
}

/* ------------------------------------------------------------------ */
/* Per communicator                                                     */
/* ------------------------------------------------------------------ */

/* The module's blocking function of a collective.  Leaving it NULL at
 * enable leaves the layer below's function in the communicator's slot:
 * coll/base copies only the non-NULL functions of a module, after its
 * enable.  The neighborhood collectives stay entered (NULL here): Open MPI
 * attaches a topology after choosing the components. */
static void **blocking_fn(mca_coll_base_module_t *mod, hc_coll_t k)
{
    return k < HC_NEIGHBOR_ALLGATHER ? mca_coll_hiercoll_module_fn(mod, k, HC_BLOCKING) : NULL;
}

/* The count of passed-on calls in a row that hands a collective back. */
static uint32_t hand_back_budget(void)
{
    int n = mca_coll_hiercoll_params.hand_back_after;
    return n > 0 ? (uint32_t) n : UINT32_MAX;
}

void mca_coll_hiercoll_fast_enable(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    int np = ompi_comm_size(comm);
    char crit[64];
    /* decomposition's auto looks at the call: only a communicator that
     * surely stays whole has a choice that depends on the arguments alone */
    bool whole = NULL == mca_coll_hiercoll_decomp_criterion(m, crit, sizeof(crit));
    /* what fast_ok is on a communicator that stays whole; the
     * decomposition sets fast_ok to it when it finds nothing to decompose */
    m->fast_whole_ok = prm->verbose < 2 && !prm->stats && np > 1 && !OMPI_COMM_IS_INTER(comm);
    m->fast_ok = whole && m->fast_whole_ok;
    memset(m->fast, 0, sizeof(m->fast));
    for (int k = 0; k < HC_NCOLL; ++k) {
        m->fast[k].left = hand_back_budget();
    }
    if (OMPI_COMM_IS_INTER(comm)) {
        /* intercommunicators: coll_hiercoll_inter.c decides, no rules */
        m->fast_ok = false;
        memset(m->nrules, 0, sizeof(m->nrules));
        return;
    }
    for (int k = 0; k < HC_NCOLL; ++k) {
        m->nrules[k] = HC_ALGO_AUTO == m->choice[k] && np > 1
                           ? hcp_rules_for(&prm->rules, k, np, m->prev_name[k][HC_BLOCKING],
                                           m->rules[k], HC_MAX_RULES)
                           : 0;
        void **fn = blocking_fn(&m->super, (hc_coll_t) k);
        if (m->fast_ok && m->nrules[k] > 0 && NULL != fn
            && hcp_rules_always(m->rules[k], m->nrules[k], HCP_RULE_FALLBACK)
            && !mca_coll_hiercoll_shortcut_claims((hc_coll_t) k)
            && !mca_coll_hiercoll_shm_claims(m, (hc_coll_t) k)
            && mca_coll_hiercoll_has_fallback(m, (hc_coll_t) k, HC_BLOCKING)
            && !mca_coll_hiercoll_below_lb_unsafe(m, (hc_coll_t) k, HC_BLOCKING)) {
            /* (a collective whose layer below mishandles some datatypes
             * stays entered: select() serves those calls itself) */
            *fn = NULL;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Per call                                                             */
/* ------------------------------------------------------------------ */

/* The message size rules compare: bytes every rank agrees on. */
static uint64_t call_bytes(const hc_call_t *c)
{
    switch (c->coll) {
    case HC_GATHER: /* (an in-place root's scount is its rcount: call_init) */
        return (uint64_t) c->scount * c->ssize;
    case HC_BCAST:
    case HC_REDUCE:
    case HC_ALLREDUCE:
    case HC_SCAN:
    case HC_EXSCAN:
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_ALLGATHER:
    case HC_ALLTOALL:
    case HC_SCATTER:
        return (uint64_t) c->rcount * c->rsize;
    default: /* barrier; per-rank counts: only bytes=* rules are meaningful */
        return 0;
    }
}

const hcp_rule_t *mca_coll_hiercoll_rule_of(const hc_call_t *c)
{
    const mca_coll_hiercoll_module_t *m = c->module;
    if (HC_BLOCKING != c->mode || 0 == m->nrules[c->coll]) {
        return NULL;
    }
    return hcp_rules_match(m->rules[c->coll], m->nrules[c->coll], call_bytes(c));
}

size_t mca_coll_hiercoll_rules_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                        hc_mode_t md, char *buf, size_t len, bool *whole)
{
    *whole = false;
    if (HC_BLOCKING != md || 0 == m->nrules[k] || len < 2) {
        return 0;
    }
    if (hcp_rules_always(m->rules[k], m->nrules[k], HCP_RULE_FALLBACK)) {
        *whole = true;
        void **fn = blocking_fn((mca_coll_base_module_t *) &m->super, k);
        bool entered = NULL == fn || NULL != *fn;
        int w = snprintf(buf, len, "->%s(rules: every size%s)", m->prev_name[k][md],
                         entered ? "" : ", not entered");
        return w > 0 && (size_t) w < len ? (size_t) w : 0;
    }
    size_t w = (size_t) snprintf(buf, len, "(rules:");
    for (int i = 0; i < m->nrules[k] && w < len; ++i) {
        const hcp_rule_t *r = &m->rules[k][i];
        const char *what = HCP_RULE_FALLBACK == r->algo ? m->prev_name[k][md]
                           : HCP_RULE_AUTO == r->algo
                               ? "auto"
                               : mca_coll_hiercoll_colls[k].algos[r->algo].name;
        char hi[32] = "";
        if (UINT64_MAX != r->b_hi) {
            snprintf(hi, sizeof(hi), "%llu", (unsigned long long) r->b_hi);
        }
        w += (size_t) snprintf(buf + w, len - w, "%s%llu-%sB%s%s", i ? "," : "",
                               (unsigned long long) r->b_lo, hi,
                               HCP_RULE_FALLBACK == r->algo ? "->" : "=", what ? what : "?");
    }
    if (w < len) {
        w += (size_t) snprintf(buf + w, len - w, ";else)");
    }
    return w < len ? w : 0;
}

void mca_coll_hiercoll_fast_fill(const hc_call_t *c, const hcp_plan_t *plan, const hc_bind_t *b)
{
    mca_coll_hiercoll_module_t *m = c->module;
    hc_fast_t *f = &m->fast[c->coll];
    switch (c->coll) {
    case HC_BCAST:
    case HC_REDUCE:
    case HC_ALLREDUCE:
    case HC_BARRIER:
        break;
    default:
        return;
    }
    if (!m->fast_ok || c->no_fast
        || (NULL != plan && plan != &m->cache[c->coll].plan && plan != &mca_coll_hiercoll_shm_mark)
        || (NULL != c->rtype && !ompi_datatype_is_predefined(c->rtype))
        || (NULL != c->op && !ompi_op_is_intrinsic(c->op))) {
        return;
    }
    f->prev_fn = *mca_coll_hiercoll_slot_fn(&m->prev, c->coll, HC_BLOCKING);
    f->prev_module = *mca_coll_hiercoll_slot_module(&m->prev, c->coll, HC_BLOCKING);
    if (NULL == plan && NULL == f->prev_fn) {
        return;
    }
    f->dtype = c->rtype;
    f->op = c->op;
    f->count = c->rcount;
    f->root = c->root;
    f->in_place = MPI_IN_PLACE == c->sbuf;
    f->tag = mca_coll_hiercoll_blocking_tag(c->coll);
    if (NULL != b) {
        f->bind = *b;
    }
    f->plan = plan;
    f->sc_watch = mca_coll_hiercoll_shortcut_watch(c);
    f->sc_sel = c->sc_sel;
    /* remembered only while the history would select the same */
    f->valid = !f->sc_watch || mca_coll_hiercoll_sc_selects(m, c->op, c->rtype) == c->sc_sel;
}

/* ------------------------------------------------------------------ */
/* Handing a collective back to the layer below                         */
/* ------------------------------------------------------------------ */

void mca_coll_hiercoll_fast_count(mca_coll_hiercoll_module_t *m, hc_coll_t k, bool passed)
{
    hc_fast_t *f = &m->fast[k];
    if (!passed) {
        f->left = hand_back_budget();
    } else if (0 == --f->left) {
        mca_coll_hiercoll_hand_back(m, k);
    }
}

void mca_coll_hiercoll_hand_back(mca_coll_hiercoll_module_t *m, hc_coll_t k)
{
    m->fast[k].left = hand_back_budget(); /* (tried again that much later) */
    /* only where every call's choice depends on its arguments alone and
     * nothing is printed or counted per call (fast_ok) */
    if (!m->fast_ok || 0 == mca_coll_hiercoll_params.hand_back_after) {
        return;
    }
    /* nor where the shared-memory level may take other sizes of it (it
     * passes short reduces on: coll_hiercoll_shm_reduce_min) */
    if (mca_coll_hiercoll_shm_may_take(m, k)) {
        return;
    }
    /* nor where the layer below mishandles some datatypes (select()) */
    if (mca_coll_hiercoll_below_lb_unsafe(m, k, HC_BLOCKING)) {
        return;
    }
    bool ok = NULL != blocking_fn(&m->super, k)
              && mca_coll_hiercoll_hand_back_slot(m, k, HC_BLOCKING);
    if (ok) {
        m->fast[k].valid = false;
        if (0 == ompi_comm_rank(m->comm)) {
            mca_coll_hiercoll_log(1,
                                  "%s: %s goes back to %s after %d blocking calls in a row "
                                  "passed on to it",
                                  m->comm->c_name, mca_coll_hiercoll_coll_names[k],
                                  m->prev_name[k][HC_BLOCKING] ? m->prev_name[k][HC_BLOCKING]
                                                               : "the layer below",
                                  mca_coll_hiercoll_params.hand_back_after);
        }
    }
}

void mca_coll_hiercoll_fast_forget(mca_coll_hiercoll_module_t *m)
{
    for (int k = 0; k < HC_NCOLL; ++k) {
        m->fast[k].valid = false;
    }
}

/* After a fast-path allreduce that feeds the short-circuit history: record
 * a result the layer below computed, and forget the remembered call when
 * the history now selects differently. */
static void sc_after(mca_coll_hiercoll_module_t *m, hc_fast_t *f, const void *rbuf)
{
    if (NULL == f->plan) { /* (a marked plan records its own result) */
        mca_coll_hiercoll_sc_observe(m, f->op, f->dtype, rbuf, f->count);
    }
    if (mca_coll_hiercoll_sc_selects(m, f->op, f->dtype) != f->sc_sel) {
        f->valid = false;
    }
}

int mca_coll_hiercoll_fast_run(mca_coll_hiercoll_module_t *m, hc_fast_t *f, hc_coll_t k,
                               const void *sbuf, void *rbuf)
{
    int rc;
    f->left = hand_back_budget(); /* (a call hiercoll runs or watches) */
    if (&mca_coll_hiercoll_shm_mark == f->plan) {
        rc = mca_coll_hiercoll_shm_fast(m, f, k, sbuf, rbuf);
    } else if (NULL != f->plan) {
        f->bind.base[HCP_SBUF] = f->in_place ? NULL : (char *) sbuf;
        f->bind.base[HCP_RBUF] = MPI_IN_PLACE == rbuf ? NULL : (char *) rbuf;
        rc = mca_coll_hiercoll_exec_rounds(m, m->comm, f->plan, &f->bind, f->tag);
    } else if (HC_ALLREDUCE == k) { /* a watched allreduce passed on */
        rc = HC_FAST_PASS(f, allreduce, sbuf, rbuf, f->count, f->dtype, f->op, m->comm);
    } else { /* (hits that pass on call the layer below themselves) */
        return OMPI_ERR_NOT_SUPPORTED;
    }
    if (HC_ALLREDUCE == k && f->sc_watch && OMPI_SUCCESS == rc) {
        sc_after(m, f, rbuf);
    }
    return rc;
}
