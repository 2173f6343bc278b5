/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The algorithm tables and auto policies (coll_hiercoll_algos.c).  Layer:
 * algorithms, between the selection (which reads the tables) and the
 * capabilities (which the tables name).
 */
#ifndef MCA_COLL_HIERCOLL_ALGOS_H
#define MCA_COLL_HIERCOLL_ALGOS_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* The collectives' algorithms, auto policies and verbose descriptions. */
extern const hc_coll_desc_t mca_coll_hiercoll_colls[HC_NCOLL];

/* auto's first question, before each collective's own policy: the
 * collective's "decomp" algorithm when decomposition pays for this call,
 * else NULL (coll_hiercoll_algos.c, with the measured thresholds). */
const hc_algo_t *mca_coll_hiercoll_decomp_auto(const hc_call_t *c);
/* auto's next question: the collective's "shm" algorithm when the
 * shared-memory node level serves this call (coll_hiercoll_shm.c), else
 * NULL. */
const hc_algo_t *mca_coll_hiercoll_shm_auto(const hc_call_t *c);
/* Verbose: "=decomp[criterion]<rule>," ahead of what auto does otherwise,
 * when the communicator may split; returns the characters written. */
size_t mca_coll_hiercoll_decomp_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                         hc_mode_t md, char *buf, size_t len);

/* auto (coll_hiercoll_algos.c): the shortcut algorithm of an allreduce or
 * reduce whose (op, datatype) has an absorbing value and whose vector fits
 * coll_hiercoll_shortcut_max (0 turns auto's shortcut off), asked before
 * the selection rules (blocking calls: only an allreduce whose results'
 * history sc_selects it); NULL otherwise.  shortcut_upgrade: what auto
 * chose otherwise, or its marked twin when that is the plain algorithm the
 * shortcut marks (the same messages).  shortcut_claims: may it claim calls
 * of collective k at all (then the collective stays entered whatever the
 * rules say)?  shortcut_watch: does a blocking allreduce of this call feed
 * the results' history? */
const hc_algo_t *mca_coll_hiercoll_shortcut_auto(const hc_call_t *c);
const hc_algo_t *mca_coll_hiercoll_shortcut_upgrade(const hc_call_t *c, const hc_algo_t *a);
bool mca_coll_hiercoll_shortcut_claims(hc_coll_t k);
bool mca_coll_hiercoll_shortcut_watch(const hc_call_t *c);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_ALGOS_H */
