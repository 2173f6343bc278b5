/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Short-circuit reductions, the MPI side (coll_hiercoll_shortcut.c):
 * (op, datatype) -> absorbing value, and the history that decides whether
 * a run engages early exit.  Layer: services, below the executor (which
 * asks it for every run of a marked plan).
 */
#ifndef MCA_COLL_HIERCOLL_SHORTCUT_H
#define MCA_COLL_HIERCOLL_SHORTCUT_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* The absorbing value of a predefined (op, datatype), as Open MPI's op
 * functions compute it; false when there is none. */
bool mca_coll_hiercoll_sc_kind(ompi_op_t *op, ompi_datatype_t *dt, hcp_sc_kind_t *k);
/* Engage early exit for a run of a marked plan?  Fills *k and *hist (the
 * history entry of (communicator, op, datatype), for sc_record). */
bool mca_coll_hiercoll_sc_engage(mca_coll_hiercoll_module_t *m, const hcp_plan_t *p,
                                 const hc_bind_t *b, hcp_sc_kind_t *k, struct hc_sc_hist **hist);
/* After a run: was this rank's result (or, without one, its input)
 * decided, and did it return early (from = the rank whose value decided
 * it, itself for its input, or -1). */
void mca_coll_hiercoll_sc_record(struct hc_sc_hist *h, bool decided, int from);
void mca_coll_hiercoll_sc_free(mca_coll_hiercoll_module_t *m);
/* Selection by the history of RESULTS: an allreduce's result is the same
 * on every rank, so is its history (sc_observe records the result of a
 * blocking allreduce that ran elsewhere, e.g. in the layer below), and
 * sc_selects (the decided rate at least coll_hiercoll_shortcut_threshold)
 * answers alike on every rank whose threshold is the job's. */
bool mca_coll_hiercoll_sc_selects(mca_coll_hiercoll_module_t *m, ompi_op_t *op,
                                  ompi_datatype_t *dt);
void mca_coll_hiercoll_sc_observe(mca_coll_hiercoll_module_t *m, ompi_op_t *op, ompi_datatype_t *dt,
                                  const void *result, int count);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_SHORTCUT_H */
