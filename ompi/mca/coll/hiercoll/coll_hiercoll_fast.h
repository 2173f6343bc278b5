/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The fast path's test, inlined into the blocking entry points of bcast,
 * reduce, allreduce and barrier (coll_hiercoll_fast.c explains it): a hit
 * calls the layer below directly (a tail call: no frame of hiercoll's
 * own) or runs the remembered plan; a miss goes to the entry point's
 * out-of-line slow path.  The test reads one 64-byte block of the module.
 */
#ifndef MCA_COLL_HIERCOLL_FAST_H
#define MCA_COLL_HIERCOLL_FAST_H

#include "coll_hiercoll.h"

/* The remembered call of collective k when these arguments match it; else
 * NULL. */
static inline hc_fast_t *hc_fast_hit(mca_coll_base_module_t *module, hc_coll_t k,
                                     const void *sbuf, int count, ompi_datatype_t *dtype,
                                     ompi_op_t *op, int root)
{
    hc_fast_t *f = &((mca_coll_hiercoll_module_t *) module)->fast[k];
    if (OPAL_LIKELY(f->valid && f->count == count && f->dtype == dtype && f->op == op
                    && f->root == root && f->in_place == (MPI_IN_PLACE == sbuf))) {
        return f;
    }
    return NULL;
}

/* A hit passed on: the layer below's function of `coll`, remembered in f,
 * with the collective's own arguments (comm last). */
#define HC_FAST_PASS(f, coll, ...)                                                                 \
    ((__typeof__(((mca_coll_base_comm_coll_t *) 0)->coll_##coll))(f)->prev_fn)(__VA_ARGS__,      \
                                                                              (f)->prev_module)
#define HC_MODULE(module) ((mca_coll_hiercoll_module_t *) (module))

/* A blocking entry point's fast path, f being hc_fast_hit's answer.  A hit
 * that passes on (`pass`) calls the layer below directly and counts toward
 * the hand-back: the call that uses the count up takes the slow path
 * instead (`slow`), whose dispatch counts it last and hands the slot back.
 * A hit that runs hiercoll's plan, or a watched allreduce, runs through
 * mca_coll_hiercoll_fast_run.  A miss falls through to what follows. */
#define HC_FAST_ENTRY(module, k, f, pass, slow, sbuf, rbuf, coll, ...)                             \
    do {                                                                                           \
        if (OPAL_LIKELY(NULL != (f))) {                                                            \
            if (OPAL_LIKELY(pass)) {                                                               \
                if (OPAL_UNLIKELY(0 == --(f)->left)) {                                             \
                    (f)->left = 1;                                                                 \
                    return slow;                                                                   \
                }                                                                                  \
                return HC_FAST_PASS(f, coll, __VA_ARGS__);                                         \
            }                                                                                      \
            return mca_coll_hiercoll_fast_run(HC_MODULE(module), f, k, sbuf, rbuf);                \
        }                                                                                          \
    } while (0)

#endif
