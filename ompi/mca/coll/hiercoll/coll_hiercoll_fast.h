/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The fast path's test, inlined into the blocking entry points of bcast,
 * reduce, allreduce and barrier (coll_hiercoll_fast.c explains it).
 */
#ifndef MCA_COLL_HIERCOLL_FAST_H
#define MCA_COLL_HIERCOLL_FAST_H

#include "coll_hiercoll.h"

/* The remembered call of collective k when these arguments match it, with
 * the buffers bound; else NULL. */
static inline const hc_fast_t *hc_fast_hit(mca_coll_base_module_t *module, hc_coll_t k,
                                           const void *sbuf, void *rbuf, int count,
                                           ompi_datatype_t *dtype, ompi_op_t *op, int root)
{
    mca_coll_hiercoll_module_t *m = (mca_coll_hiercoll_module_t *) module;
    hc_fast_t *f = &m->fast[k];
    if (OPAL_LIKELY(NULL != f->plan && f->count == count && f->dtype == dtype && f->op == op
                    && f->root == root && f->in_place == (MPI_IN_PLACE == sbuf)
                    && f->scratch == m->scratch)) {
        f->bind.base[HCP_SBUF] = f->in_place ? NULL : (char *) sbuf;
        f->bind.base[HCP_RBUF] = MPI_IN_PLACE == rbuf ? NULL : (char *) rbuf;
        return f;
    }
    return NULL;
}

#define HC_FAST_RUN(module, comm, f)                                                            \
    mca_coll_hiercoll_exec_rounds((mca_coll_hiercoll_module_t *) (module), (comm), (f)->plan,      \
                                  &(f)->bind, (f)->tag)

#endif
