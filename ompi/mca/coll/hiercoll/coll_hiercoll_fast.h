/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The fast path's test, inlined into the blocking entry points of bcast,
 * reduce, allreduce and barrier (coll_hiercoll_fast.c explains it): a hit
 * calls the layer below directly (a tail call: no frame of hiercoll's
 * own) or runs the remembered plan; a miss goes to the entry point's
 * out-of-line slow path.  The test reads one 64-byte block of the module.
 * And the rules per communicator, the fast path's records and the
 * hand-back (coll_hiercoll_fast.c).  Layer: selection, below
 * coll_hiercoll_select.c and above the algorithm tables.
 */
#ifndef MCA_COLL_HIERCOLL_FAST_H
#define MCA_COLL_HIERCOLL_FAST_H

#include "coll_hiercoll.h"
#include "coll_hiercoll_shm.h"

BEGIN_C_DECLS

/* Load the rules (built-in, then coll_hiercoll_rules_file) at open. */
void mca_coll_hiercoll_rules_open(void);
void mca_coll_hiercoll_rules_close(void);
/* At enable: this communicator's rules, whether blocking calls may take
 * the fast path, and which blocking slots the layer below keeps (a
 * collective the rules always pass on never enters hiercoll). */
void mca_coll_hiercoll_fast_enable(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm);
/* The rule that covers a blocking call under auto, or NULL. */
const hcp_rule_t *mca_coll_hiercoll_rule_of(const hc_call_t *c);
/* Verbose: "(rules:0-1023B->tuned;else)" ahead of auto's description, or
 * (*whole) the whole description when the rules pass every size on;
 * returns the characters written. */
size_t mca_coll_hiercoll_rules_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                        hc_mode_t md, char *buf, size_t len, bool *whole);
/* After a blocking call ran `plan` (a plan cache entry) bound as b, or was
 * passed on (plan NULL): remember it for the fast path when the call
 * allows. */
void mca_coll_hiercoll_fast_fill(const hc_call_t *c, const hcp_plan_t *plan, const hc_bind_t *b);
/* A fast-path hit that runs hiercoll's remembered plan (or, for a watched
 * allreduce, passes on and records): bind the buffers and run. */
int mca_coll_hiercoll_fast_run(mca_coll_hiercoll_module_t *m, hc_fast_t *f, hc_coll_t k,
                               const void *sbuf, void *rbuf);
/* Forget every remembered call (the module's scratch moved). */
void mca_coll_hiercoll_fast_forget(mca_coll_hiercoll_module_t *m);
/* A blocking call of k was passed on (passed true) or hiercoll ran it. */
void mca_coll_hiercoll_fast_count(mca_coll_hiercoll_module_t *m, hc_coll_t k, bool passed);
/* coll_hiercoll_hand_back_after blocking calls of k in a row were passed
 * on: give k's blocking slot back to the layer below. */
void mca_coll_hiercoll_hand_back(mca_coll_hiercoll_module_t *m, hc_coll_t k);

/* The remembered call of collective k when these arguments match it; else
 * NULL. */
static inline hc_fast_t *hc_fast_hit(mca_coll_base_module_t *module, hc_coll_t k, const void *sbuf,
                                     hc_count_t count, ompi_datatype_t *dtype, ompi_op_t *op,
                                     int root)
{
    hc_fast_t *f = &((mca_coll_hiercoll_module_t *) module)->fast[k];
    if (OPAL_LIKELY(f->valid && (hc_count_t) f->count == count && f->dtype == dtype && f->op == op
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
 * A hit of the shared-memory level (not an allreduce that feeds the
 * short-circuit history) goes straight to it, as fast_run would, a call
 * less (docs/design/fast-path.md); one that
 * runs hiercoll's plan, or a watched allreduce, runs through
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
            if (&mca_coll_hiercoll_shm_mark == (f)->plan                                           \
                && (HC_ALLREDUCE != k || !(f)->sc_watch)) {                                        \
                int n_ = mca_coll_hiercoll_params.hand_back_after;                                 \
                (f)->left = n_ > 0 ? (uint32_t) n_ : UINT32_MAX;                                   \
                return mca_coll_hiercoll_shm_fast(HC_MODULE(module), f, k, sbuf, rbuf);            \
            }                                                                                      \
            return mca_coll_hiercoll_fast_run(HC_MODULE(module), f, k, sbuf, rbuf);                \
        }                                                                                          \
    } while (0)

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_FAST_H */
