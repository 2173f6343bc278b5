/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The layer below: where each (collective, mode) lives in Open MPI's
 * tables, the module's saved and retained copy of the layer below, the
 * calls passed on to it with unchanged arguments, and handing a slot
 * back to it.  Calls nothing of hiercoll's.
 */
#include "ompi_config.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/request/request.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_below.h"

/* ------------------------------------------------------------------ */
/* The previous layer's slots                                           */
/* ------------------------------------------------------------------ */

/* Where each (collective, mode) lives in Open MPI's tables: the function
 * and module of a communicator's table (and of hiercoll's saved copy of the
 * layer below), and the function of a module.  The one place that knows. */
typedef struct slot {
    size_t fn, module, own;
} slot_t;

#define SLOT(f)                                                                                    \
    {                                                                                              \
        offsetof(mca_coll_base_comm_coll_t, coll_##f),                                             \
            offsetof(mca_coll_base_comm_coll_t, coll_##f##_module),                                \
            offsetof(mca_coll_base_module_t, coll_##f)                                             \
    }
#define SLOTS(f)                                                                                   \
    {                                                                                              \
        SLOT(f), SLOT(i##f), SLOT(f##_init)                                                        \
    }

static const slot_t slots[HC_NCOLL][HC_NMODE] = {
    [HC_ALLGATHER] = SLOTS(allgather),
    [HC_ALLGATHERV] = SLOTS(allgatherv),
    [HC_ALLREDUCE] = SLOTS(allreduce),
    [HC_ALLTOALL] = SLOTS(alltoall),
    [HC_ALLTOALLV] = SLOTS(alltoallv),
    [HC_ALLTOALLW] = SLOTS(alltoallw),
    [HC_BARRIER] = SLOTS(barrier),
    [HC_BCAST] = SLOTS(bcast),
    [HC_EXSCAN] = SLOTS(exscan),
    [HC_GATHER] = SLOTS(gather),
    [HC_GATHERV] = SLOTS(gatherv),
    [HC_REDUCE] = SLOTS(reduce),
    [HC_REDUCE_SCATTER_BLOCK] = SLOTS(reduce_scatter_block),
    [HC_REDUCE_SCATTER] = SLOTS(reduce_scatter),
    [HC_SCAN] = SLOTS(scan),
    [HC_SCATTER] = SLOTS(scatter),
    [HC_SCATTERV] = SLOTS(scatterv),
    [HC_NEIGHBOR_ALLGATHER] = SLOTS(neighbor_allgather),
    [HC_NEIGHBOR_ALLGATHERV] = SLOTS(neighbor_allgatherv),
    [HC_NEIGHBOR_ALLTOALL] = SLOTS(neighbor_alltoall),
    [HC_NEIGHBOR_ALLTOALLV] = SLOTS(neighbor_alltoallv),
    [HC_NEIGHBOR_ALLTOALLW] = SLOTS(neighbor_alltoallw),
};

void **mca_coll_hiercoll_slot_fn(hc_comm_coll_t *t, hc_coll_t coll, hc_mode_t mode)
{
    return (void **) ((char *) t + slots[coll][mode].fn);
}

mca_coll_base_module_t **mca_coll_hiercoll_slot_module(hc_comm_coll_t *t, hc_coll_t coll,
                                                       hc_mode_t mode)
{
    return (mca_coll_base_module_t **) ((char *) t + slots[coll][mode].module);
}

void **mca_coll_hiercoll_module_fn(mca_coll_base_module_t *mod, hc_coll_t coll, hc_mode_t mode)
{
    return (void **) ((char *) mod + slots[coll][mode].own);
}

static void *slot_fn(hc_comm_coll_t *t, hc_coll_t coll, hc_mode_t mode)
{
    return *mca_coll_hiercoll_slot_fn(t, coll, mode);
}

bool mca_coll_hiercoll_has_fallback(const mca_coll_hiercoll_module_t *m, hc_coll_t coll,
                                    hc_mode_t mode)
{
    return NULL != slot_fn((hc_comm_coll_t *) &m->prev, coll, mode);
}

/* ------------------------------------------------------------------ */
/* What the layer below gets wrong                                      */
/* ------------------------------------------------------------------ */

/* Algorithms of the layer below that write outside the scratch they
 * allocate when the datatype's true lower bound is not 0: they allocate
 * the span of the data but receive into its start, not into its start
 * minus the true lower bound.  tuned's ring and segmented ring allreduce
 * (Open MPI 4.1.4 and 5.0.7, coll_base_allreduce.c; chosen by tuned's
 * fixed rules for commutative ops from 8 bytes on 2-3 ranks and in other
 * ranges), and libnbc's reduce by reduce-scatter and gather (its ireduce
 * and reduce_init, commutative ops on more than 2 ranks).  A type whose
 * true lower bound is positive writes that many bytes past the block (the
 * heap corrupted: "free(): invalid next size"), a negative one before it. */
bool mca_coll_hiercoll_below_lb_unsafe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                       hc_mode_t md)
{
    const char *below = m->prev_name[k][md];
    if (NULL == below) {
        return false;
    }
    if (HC_ALLREDUCE == k && HC_BLOCKING == md) {
        return 0 == strcmp(below, "tuned");
    }
    if (HC_REDUCE == k && HC_BLOCKING != md) {
        return 0 == strcmp(below, "libnbc");
    }
    return false;
}

bool mca_coll_hiercoll_below_misplaces_dt(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                          hc_mode_t md, ompi_datatype_t *dt, ompi_op_t *op,
                                          int size)
{
    if (!mca_coll_hiercoll_below_lb_unsafe(m, k, md)) {
        return false;
    }
    ptrdiff_t tlb = 0, text = 0;
    ompi_datatype_get_true_extent(dt, &tlb, &text);
    if (0 == tlb || NULL == op || !ompi_op_is_commute(op)) {
        return false; /* (the non-commutative ops go to other algorithms) */
    }
    return HC_ALLREDUCE == k || size > 2;
}

bool mca_coll_hiercoll_below_misplaces(const hc_call_t *c)
{
    return mca_coll_hiercoll_below_misplaces_dt(c->module, c->coll, c->mode, c->rtype, c->op,
                                                c->size);
}

bool mca_coll_hiercoll_hand_back_slot(mca_coll_hiercoll_module_t *m, hc_coll_t coll, hc_mode_t mode)
{
    hc_comm_coll_t *t = m->comm->c_coll;
    mca_coll_base_module_t **mod = mca_coll_hiercoll_slot_module(t, coll, mode);
    mca_coll_base_module_t *ours = *mod,
                           *below = *mca_coll_hiercoll_slot_module(&m->prev, coll, mode);
    void *fn = slot_fn(&m->prev, coll, mode);
    if (ours != &m->super || NULL == fn || NULL == below) {
        return false; /* (another component sits above hiercoll here, or nothing below) */
    }
    *mca_coll_hiercoll_slot_fn(t, coll, mode) = fn;
    *mod = below;
    if (HC_COLL_SELECTION_INSTALLS) {
        /* 4.1, 5.0: one reference per slot, as the selection keeps them
         * and han's fallback moves them; unselect later disables and
         * releases whichever module the slot holds.  (6.0 keeps one per
         * module, whatever the slots hold.) */
        OBJ_RETAIN(below);
        OBJ_RELEASE(ours);
    }
    return true;
}

/* The name of the component that owns a module, from the communicator's
 * list of enabled modules. */
static const char *component_of(ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    mca_coll_base_avail_coll_t *item;
    if (NULL == comm->c_coll->module_list) {
        return "?";
    }
    OPAL_LIST_FOREACH(item, comm->c_coll->module_list, mca_coll_base_avail_coll_t) {
        if (item->ac_module == module) {
            return item->ac_component_name;
        }
    }
    return "?";
}

void mca_coll_hiercoll_save_prev(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    m->prev = *comm->c_coll;
    for (int k = 0; k < HC_NCOLL; ++k) {
        for (int md = 0; md < HC_NMODE; ++md) {
            mca_coll_base_module_t *mod =
                *mca_coll_hiercoll_slot_module(&m->prev, (hc_coll_t) k, (hc_mode_t) md);
            if (NULL != slot_fn(&m->prev, (hc_coll_t) k, (hc_mode_t) md) && NULL != mod) {
                OBJ_RETAIN(mod);
                m->prev_name[k][md] = component_of(comm, mod);
            } else {
                *mca_coll_hiercoll_slot_module(&m->prev, (hc_coll_t) k, (hc_mode_t) md) = NULL;
                m->prev_name[k][md] = NULL;
            }
        }
    }
}

void mca_coll_hiercoll_install(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    if (HC_COLL_SELECTION_INSTALLS) {
        return; /* (the selection copies the module's functions itself) */
    }
    for (int k = 0; k < HC_NCOLL; ++k) {
        for (int md = 0; md < HC_NMODE; ++md) {
            void *own = *mca_coll_hiercoll_module_fn(&m->super, (hc_coll_t) k, (hc_mode_t) md);
            if (NULL != own) {
                *mca_coll_hiercoll_slot_fn(comm->c_coll, (hc_coll_t) k, (hc_mode_t) md) = own;
                *mca_coll_hiercoll_slot_module(comm->c_coll, (hc_coll_t) k, (hc_mode_t) md) =
                    &m->super;
            }
        }
    }
}

void mca_coll_hiercoll_uninstall(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    for (int k = 0; k < HC_NCOLL; ++k) {
        for (int md = 0; md < HC_NMODE; ++md) {
            mca_coll_base_module_t **mod =
                mca_coll_hiercoll_slot_module(comm->c_coll, (hc_coll_t) k, (hc_mode_t) md);
            if (*mod == &m->super) {
                /* (a slot handed back, or taken by a component above that
                 * has put back what it found, holds its owner already) */
                *mca_coll_hiercoll_slot_fn(comm->c_coll, (hc_coll_t) k, (hc_mode_t) md) =
                    slot_fn(&m->prev, (hc_coll_t) k, (hc_mode_t) md);
                *mod = *mca_coll_hiercoll_slot_module(&m->prev, (hc_coll_t) k, (hc_mode_t) md);
            }
        }
    }
}

void mca_coll_hiercoll_release_prev(mca_coll_hiercoll_module_t *m)
{
    for (int k = 0; k < HC_NCOLL; ++k) {
        for (int md = 0; md < HC_NMODE; ++md) {
            mca_coll_base_module_t **mod =
                mca_coll_hiercoll_slot_module(&m->prev, (hc_coll_t) k, (hc_mode_t) md);
            if (NULL != *mod) {
                OBJ_RELEASE(*mod);
                *mod = NULL;
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* The layer below's requests: their communicator kept alive            */
/* ------------------------------------------------------------------ */

/* Open MPI 4.1's libnbc does not retain the communicator of its
 * nonblocking and persistent requests: a communicator freed while they
 * are in flight (as MPI allows) is destroyed under them, and their
 * progress, or the next MPI_Start, reads freed memory.  hiercoll's own
 * requests retain theirs; those it passes to the layer below get the
 * same: the communicator retained until the request is freed (the
 * request's req_free wrapped, and put back before it runs). */
typedef struct {
    ompi_request_t *req;
    ompi_request_free_fn_t free;
    ompi_communicator_t *comm;
} kept_t;

static kept_t *kept;
static size_t nkept, capkept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static int kept_free(ompi_request_t **r)
{
    ompi_request_t *req = *r;
    kept_t e = {NULL, NULL, NULL};
    pthread_mutex_lock(&kept_lock);
    for (size_t i = nkept; i-- > 0;) {
        if (kept[i].req == req) {
            e = kept[i];
            kept[i] = kept[--nkept];
            break;
        }
    }
    pthread_mutex_unlock(&kept_lock);
    if (NULL == e.free) {
        return OMPI_ERR_NOT_FOUND; /* (never: only requests kept get this function) */
    }
    req->req_free = e.free;
    int rc = e.free(r);
    OBJ_RELEASE(e.comm);
    return rc;
}

static void keep(ompi_request_t *req, ompi_communicator_t *comm)
{
    if (NULL == req || &ompi_request_null.request == req || &ompi_request_empty == req
        || NULL == req->req_free) {
        return; /* (nothing in flight: the layer below's static requests) */
    }
    pthread_mutex_lock(&kept_lock);
    if (nkept == capkept) {
        size_t cap = capkept ? 2 * capkept : 64;
        kept_t *v = realloc(kept, cap * sizeof(*v));
        if (NULL == v) {
            pthread_mutex_unlock(&kept_lock);
            return; /* (the request runs as it would without hiercoll) */
        }
        kept = v;
        capkept = cap;
    }
    OBJ_RETAIN(comm);
    kept[nkept++] = (kept_t){req, req->req_free, comm};
    req->req_free = kept_free;
    pthread_mutex_unlock(&kept_lock);
}

int mca_coll_hiercoll_keep_comm(int rc, ompi_request_t **req, ompi_communicator_t *comm)
{
    if (OMPI_SUCCESS == rc && NULL != req) {
        keep(*req, comm);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* Fallback: the layer below's function, unchanged arguments         */
/* ------------------------------------------------------------------ */

static int call_below(hc_call_t *c, ompi_request_t **req, struct ompi_info_t *info);

int mca_coll_hiercoll_fallback(hc_call_t *c, ompi_request_t **req, struct ompi_info_t *info)
{
    int rc = call_below(c, req, info);
    if (OMPI_SUCCESS == rc && HC_BLOCKING != c->mode && NULL != req) {
        keep(*req, c->comm);
    }
    return rc;
}

static int call_below(hc_call_t *c, ompi_request_t **req, struct ompi_info_t *info)
{
    mca_coll_base_comm_coll_t *p = &c->module->prev;
    ompi_communicator_t *comm = c->comm;
    mca_coll_base_module_t *mod = *mca_coll_hiercoll_slot_module(p, c->coll, c->mode);
    if (NULL == slot_fn(p, c->coll, c->mode)) {
        return OMPI_ERR_NOT_SUPPORTED; /* nothing below, and no plan of hiercoll's fits */
    }

#define CALL3(name, ...)                                                                           \
    switch (c->mode) {                                                                             \
    case HC_BLOCKING:                                                                              \
        return p->coll_##name(__VA_ARGS__, comm, mod);                                             \
    case HC_NONBLOCKING:                                                                           \
        return p->coll_i##name(__VA_ARGS__, comm, req, mod);                                       \
    default:                                                                                       \
        return p->coll_##name##_init(__VA_ARGS__, comm, info, req, mod);                           \
    }

    switch (c->coll) {
    case HC_ALLGATHER:
        CALL3(allgather, c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype);
    case HC_ALLGATHERV:
        CALL3(allgatherv, c->sbuf, c->scount, c->stype, c->rbuf, HC_COUNTS(c->rcounts),
              HC_DISPS(c->rdispls), c->rtype);
    case HC_ALLREDUCE:
        CALL3(allreduce, c->sbuf, c->rbuf, c->rcount, c->rtype, c->op);
    case HC_ALLTOALL:
        CALL3(alltoall, c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype);
    case HC_ALLTOALLV:
        CALL3(alltoallv, c->sbuf, HC_COUNTS(c->scounts), HC_DISPS(c->sdispls), c->stype, c->rbuf,
              HC_COUNTS(c->rcounts), HC_DISPS(c->rdispls), c->rtype);
    case HC_ALLTOALLW:
        CALL3(alltoallw, c->sbuf, HC_COUNTS(c->scounts), HC_DISPS(c->sdispls), c->stypes, c->rbuf,
              HC_COUNTS(c->rcounts), HC_DISPS(c->rdispls), c->rtypes);
    case HC_BARRIER:
        switch (c->mode) {
        case HC_BLOCKING:
            return p->coll_barrier(comm, mod);
        case HC_NONBLOCKING:
            return p->coll_ibarrier(comm, req, mod);
        default:
            return p->coll_barrier_init(comm, info, req, mod);
        }
    case HC_BCAST:
        CALL3(bcast, c->rbuf, c->rcount, c->rtype, c->root);
    case HC_EXSCAN:
        CALL3(exscan, c->sbuf, c->rbuf, c->rcount, c->rtype, c->op);
    case HC_GATHER:
        CALL3(gather, c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root);
    case HC_GATHERV:
        CALL3(gatherv, c->sbuf, c->scount, c->stype, c->rbuf, HC_COUNTS(c->rcounts),
              HC_DISPS(c->rdispls), c->rtype, c->root);
    case HC_REDUCE:
        CALL3(reduce, c->sbuf, c->rbuf, c->rcount, c->rtype, c->op, c->root);
    case HC_REDUCE_SCATTER_BLOCK:
        CALL3(reduce_scatter_block, c->sbuf, c->rbuf, c->rcount, c->rtype, c->op);
    case HC_REDUCE_SCATTER:
        CALL3(reduce_scatter, c->sbuf, c->rbuf, HC_COUNTS(c->rcounts), c->rtype, c->op);
    case HC_SCAN:
        CALL3(scan, c->sbuf, c->rbuf, c->rcount, c->rtype, c->op);
    case HC_SCATTER:
        CALL3(scatter, c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype, c->root);
    case HC_SCATTERV:
        CALL3(scatterv, c->sbuf, HC_COUNTS(c->scounts), HC_DISPS(c->sdispls), c->stype, c->rbuf,
              c->rcount, c->rtype, c->root);
    case HC_NEIGHBOR_ALLGATHER:
        CALL3(neighbor_allgather, c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype);
    case HC_NEIGHBOR_ALLGATHERV:
        CALL3(neighbor_allgatherv, c->sbuf, c->scount, c->stype, c->rbuf, HC_COUNTS(c->rcounts),
              HC_DISPS(c->rdispls), c->rtype);
    case HC_NEIGHBOR_ALLTOALL:
        CALL3(neighbor_alltoall, c->sbuf, c->scount, c->stype, c->rbuf, c->rcount, c->rtype);
    case HC_NEIGHBOR_ALLTOALLV:
        CALL3(neighbor_alltoallv, c->sbuf, HC_COUNTS(c->scounts), HC_DISPS(c->sdispls), c->stype,
              c->rbuf, HC_COUNTS(c->rcounts), HC_DISPS(c->rdispls), c->rtype);
    case HC_NEIGHBOR_ALLTOALLW:
        CALL3(neighbor_alltoallw, c->sbuf, HC_COUNTS(c->scounts), HC_ADISPS(c->sadispls), c->stypes,
              c->rbuf, HC_COUNTS(c->rcounts), HC_ADISPS(c->radispls), c->rtypes);
    default:
        return OMPI_ERR_NOT_SUPPORTED;
    }
#undef CALL3
}
