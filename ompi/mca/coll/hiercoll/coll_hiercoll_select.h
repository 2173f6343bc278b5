/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Selection and dispatch (coll_hiercoll_select.c).  Layer: selection,
 * above the fast path (coll_hiercoll_fast.h); called by the entry points
 * and the module.
 */
#ifndef MCA_COLL_HIERCOLL_SELECT_H
#define MCA_COLL_HIERCOLL_SELECT_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* Fill the derived fields of a call whose MPI arguments are set. */
void mca_coll_hiercoll_call_init(hc_call_t *c, ompi_communicator_t *comm,
                                 mca_coll_base_module_t *module);
/* The algorithm for a call, or NULL to fall back. */
const hc_algo_t *mca_coll_hiercoll_select(const hc_call_t *c);
/* Run a call: select, then the fallback, a plan or a direct algorithm. */
int mca_coll_hiercoll_dispatch(hc_call_t *c, ompi_request_t **request, struct ompi_info_t *info);
/* Verbose 1: per communicator, a header line and one line per collective
 * naming its choice in each mode. */
void mca_coll_hiercoll_describe(mca_coll_hiercoll_module_t *m);
/* Index of an algorithm name for a collective, or HC_ALGO_AUTO /
 * HC_ALGO_FALLBACK for "auto" / "fallback", or -3 when unknown. */
int mca_coll_hiercoll_algo_index(hc_coll_t coll, const char *name);
/* 0 for "conservative", 1 for "aggressive", -1 for anything else. */
int mca_coll_hiercoll_gatherv_level_of(const char *s);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_SELECT_H */
