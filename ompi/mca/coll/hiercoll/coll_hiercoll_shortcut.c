/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Short-circuit reductions, the MPI side (docs/short-circuit.md):
 * which (op, datatype) pairs have an absorbing value (the table itself is
 * MPI-free, coll_hiercoll_plan_shortcut.c), the per-(communicator, op,
 * datatype) history that decides whether a call engages early exit.  The
 * requests that calls which returned early leave behind are the
 * executor's (mca_coll_hiercoll_sc_sweep in coll_hiercoll_exec.c).
 *
 * The executor (coll_hiercoll_exec.c, "Early exit") asks
 * mca_coll_hiercoll_sc_engage for every run of a marked plan.  Engagement
 * only saves scans: every rank sends the plan's messages either way, so
 * ranks may differ in it.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/mca/op/op.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_shortcut.h"

/* ------------------------------------------------------------------ */
/* (op, datatype) -> absorbing value                                    */
/* ------------------------------------------------------------------ */

/* Open MPI 4.1 reduces MPI_UNSIGNED_LONG as a signed long, 5.0 as an
 * unsigned one: ask its own MIN once which it does (min(1, all ones) is
 * all ones when signed), so the extremes match whichever library runs. */
static hcp_sc_class_t unsigned_long_class(void)
{
    static int cls = -1;
    if (cls < 0) {
        unsigned long in = ~0UL, inout = 1;
        ompi_op_reduce(&ompi_mpi_op_min.op, &in, &inout, 1, &ompi_mpi_unsigned_long.dt);
        cls = 1 == inout ? HCP_SC_UNSIGNED : HCP_SC_SIGNED;
    }
    return (hcp_sc_class_t) cls;
}

bool mca_coll_hiercoll_sc_kind(ompi_op_t *op, ompi_datatype_t *dt, hcp_sc_kind_t *k)
{
    if (NULL == op || NULL == dt || !ompi_op_is_intrinsic(op) || !ompi_datatype_is_predefined(dt)
        || dt->id < 0 || dt->id >= OMPI_DATATYPE_MAX_PREDEFINED) {
        return false;
    }
    int base = ompi_op_ddt_map[dt->id];
    if (base < 0 || NULL == op->o_func.intrinsic.fns[base]) {
        return false; /* Open MPI does not reduce this pair */
    }
    hcp_sc_op_t sop;
    switch (op->op_type) {
    case OMPI_OP_LAND:
        sop = HCP_SC_LAND;
        break;
    case OMPI_OP_LOR:
        sop = HCP_SC_LOR;
        break;
    case OMPI_OP_BAND:
        sop = HCP_SC_BAND;
        break;
    case OMPI_OP_BOR:
        sop = HCP_SC_BOR;
        break;
    case OMPI_OP_MAX:
        sop = HCP_SC_MAX;
        break;
    case OMPI_OP_MIN:
        sop = HCP_SC_MIN;
        break;
    case OMPI_OP_PROD:
        sop = HCP_SC_PROD;
        break;
    default:
        return false; /* SUM, XOR, MAXLOC/MINLOC, REPLACE: no absorbing value */
    }
    hcp_sc_class_t cls;
    switch (base) {
    case OMPI_OP_BASE_TYPE_INT8_T:
    case OMPI_OP_BASE_TYPE_INT16_T:
    case OMPI_OP_BASE_TYPE_INT32_T:
    case OMPI_OP_BASE_TYPE_INT64_T:
    case OMPI_OP_BASE_TYPE_LONG:
    case OMPI_OP_BASE_TYPE_INTEGER:
    case OMPI_OP_BASE_TYPE_INTEGER1:
    case OMPI_OP_BASE_TYPE_INTEGER2:
    case OMPI_OP_BASE_TYPE_INTEGER4:
    case OMPI_OP_BASE_TYPE_INTEGER8:
    case OMPI_OP_BASE_TYPE_INTEGER16:
        cls = HCP_SC_SIGNED;
        break;
    case OMPI_OP_BASE_TYPE_UINT8_T:
    case OMPI_OP_BASE_TYPE_UINT16_T:
    case OMPI_OP_BASE_TYPE_UINT32_T:
    case OMPI_OP_BASE_TYPE_UINT64_T:
        cls = HCP_SC_UNSIGNED;
        break;
    case OMPI_OP_BASE_TYPE_UNSIGNED_LONG:
        cls = unsigned_long_class();
        break;
    case OMPI_OP_BASE_TYPE_BOOL:
    case OMPI_OP_BASE_TYPE_LOGICAL:
        cls = HCP_SC_BOOL;
        break;
    case OMPI_OP_BASE_TYPE_BYTE:
        cls = HCP_SC_BYTE;
        break;
    default:
        return false; /* floating point, complex, pairs, wchar */
    }
    size_t size = 0;
    ptrdiff_t lb, ext;
    ompi_datatype_type_size(dt, &size);
    ompi_datatype_get_extent(dt, &lb, &ext);
    if (0 != lb || (size_t) ext != size) {
        return false;
    }
    return hcp_sc_kind(k, sop, cls, (int) size);
}

/* ------------------------------------------------------------------ */
/* History                                                              */
/* ------------------------------------------------------------------ */

#define HC_SC_NHIST 8   /* (op, datatype) pairs remembered per communicator */
#define HC_SC_WINDOW 32 /* calls a rate is taken over */
#define HC_SC_LEARN 4   /* calls engaged before the rate counts */

typedef struct hc_sc_hist {
    ompi_op_t *op;
    ompi_datatype_t *dt;
    uint32_t bits; /* the last calls, newest in bit 0: 1 when decided */
    uint32_t n;    /* calls recorded, up to HC_SC_WINDOW */
    int from;      /* who decided this rank's last decided call (-1: a combination) */
    uint64_t used; /* for replacement */
} hc_sc_hist_t;

static uint64_t tick;

/* The history entry of (op, dt) on this communicator, created (replacing
 * the least recently used one) when `create`; NULL when there is none.
 * Every rank makes the same calls, so the entries are alike on all ranks. */
static hc_sc_hist_t *hist_of(mca_coll_hiercoll_module_t *m, ompi_op_t *op, ompi_datatype_t *dt,
                             bool create)
{
    if (NULL == m->sc_hist) {
        if (!create) {
            return NULL;
        }
        m->sc_hist = calloc(HC_SC_NHIST, sizeof(hc_sc_hist_t));
        if (NULL == m->sc_hist) {
            return NULL;
        }
    }
    hc_sc_hist_t *oldest = &m->sc_hist[0];
    for (int i = 0; i < HC_SC_NHIST; ++i) {
        hc_sc_hist_t *e = &m->sc_hist[i];
        if (e->op == op && e->dt == dt) {
            if (create) {
                e->used = ++tick;
            }
            return e;
        }
        if (e->used < oldest->used) {
            oldest = e;
        }
    }
    if (!create) {
        return NULL;
    }
    memset(oldest, 0, sizeof(*oldest));
    oldest->op = op;
    oldest->dt = dt;
    oldest->from = -1;
    oldest->used = ++tick;
    return oldest;
}

/* Is the rate of decided calls in h at least the threshold (once learnt)? */
static bool rate_high(const hc_sc_hist_t *h, bool learning)
{
    int thr = mca_coll_hiercoll_params.shortcut_threshold;
    if (thr > 100) {
        return false;
    }
    if (h->n < HC_SC_LEARN) {
        return learning;
    }
    uint32_t mask = h->n >= 32 ? ~(uint32_t) 0 : ((uint32_t) 1 << h->n) - 1;
    return (uint32_t) __builtin_popcount(h->bits & mask) * 100 >= (uint32_t) thr * h->n;
}

bool mca_coll_hiercoll_sc_engage(mca_coll_hiercoll_module_t *m, const hcp_plan_t *p,
                                 const hc_bind_t *b, hcp_sc_kind_t *k, hc_sc_hist_t **hist)
{
    *hist = NULL;
    if (!mca_coll_hiercoll_sc_kind(b->op, b->type[HCP_RBUF], k)) {
        return false;
    }
    hc_sc_hist_t *h = hist_of(m, b->op, b->type[HCP_RBUF], true);
    if (NULL == h) {
        return p->sc_force;
    }
    *hist = h;
    return p->sc_force || rate_high(h, true);
}

bool mca_coll_hiercoll_sc_selects(mca_coll_hiercoll_module_t *m, ompi_op_t *op,
                                  ompi_datatype_t *dt)
{
    const hc_sc_hist_t *h = hist_of(m, op, dt, false);
    return NULL != h && rate_high(h, false);
}

void mca_coll_hiercoll_sc_observe(mca_coll_hiercoll_module_t *m, ompi_op_t *op,
                                  ompi_datatype_t *dt, const void *result, int count)
{
    hcp_sc_kind_t k;
    if (count <= 0 || !mca_coll_hiercoll_sc_kind(op, dt, &k)) {
        return;
    }
    mca_coll_hiercoll_sc_record(hist_of(m, op, dt, true), hcp_sc_decided(&k, result, count), -1);
}

void mca_coll_hiercoll_sc_record(hc_sc_hist_t *h, bool decided, int from)
{
    if (NULL == h) {
        return;
    }
    h->bits = (h->bits << 1) | (decided ? 1u : 0u);
    if (h->n < HC_SC_WINDOW) {
        h->n++;
    }
    if (decided) {
        h->from = from;
    }
}

void mca_coll_hiercoll_sc_free(mca_coll_hiercoll_module_t *m)
{
    free(m->sc_hist);
    m->sc_hist = NULL;
}
