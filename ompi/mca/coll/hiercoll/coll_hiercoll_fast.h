/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The fast path's test, inlined into the blocking entry points of bcast,
 * reduce, allreduce and barrier (coll_hiercoll_fast.c explains it): a hit
 * runs the remembered plan or calls the layer below directly.
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
    if (OPAL_LIKELY(f->valid && f->count == count && f->dtype == dtype && f->op == op
                    && f->root == root && f->in_place == (MPI_IN_PLACE == sbuf)
                    && f->scratch == m->scratch)) {
        f->bind.base[HCP_SBUF] = f->in_place ? NULL : (char *) sbuf;
        f->bind.base[HCP_RBUF] = MPI_IN_PLACE == rbuf ? NULL : (char *) rbuf;
        return f;
    }
    return NULL;
}

/* Run the remembered plan, or call the layer below's function of `coll`
 * with the arguments that follow (the collective's own, comm last). */
#define HC_FAST_RUN(module, f, coll, ...)                                                          \
    (NULL != (f)->plan ? mca_coll_hiercoll_exec_rounds(HC_MODULE(module), HC_MODULE(module)->comm, \
                                                       (f)->plan, &(f)->bind, (f)->tag)            \
                       : HC_MODULE(module)->prev.coll_##coll(                                      \
                           __VA_ARGS__, HC_MODULE(module)->prev.coll_##coll##_module))
#define HC_MODULE(module) ((mca_coll_hiercoll_module_t *) (module))

#endif
