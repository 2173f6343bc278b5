/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The layer below (coll_hiercoll_below.c): Open MPI's collective tables,
 * the module's saved copy of the layer below, calls passed on to it.
 * Layer: services (calls nothing of hiercoll's but the leaf).
 */
#ifndef MCA_COLL_HIERCOLL_BELOW_H
#define MCA_COLL_HIERCOLL_BELOW_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* A nonblocking or persistent request the layer below made (rc its return
 * code): its communicator kept alive until it is freed (libnbc does not
 * retain it).  Returns rc.  mca_coll_hiercoll_fallback does it itself. */
int mca_coll_hiercoll_keep_comm(int rc, ompi_request_t **req, ompi_communicator_t *comm);
/* Call the layer below's function for this call. */
int mca_coll_hiercoll_fallback(hc_call_t *c, ompi_request_t **request, struct ompi_info_t *info);
/* Slot (coll, mode) of a communicator's collective table (or of the
 * module's saved copy of the layer below): its function and module; and
 * a module's own function for it. */
void **mca_coll_hiercoll_slot_fn(hc_comm_coll_t *t, hc_coll_t coll, hc_mode_t mode);
mca_coll_base_module_t **mca_coll_hiercoll_slot_module(hc_comm_coll_t *t, hc_coll_t coll,
                                                       hc_mode_t mode);
void **mca_coll_hiercoll_module_fn(mca_coll_base_module_t *mod, hc_coll_t coll, hc_mode_t mode);
/* Give slot (coll, mode) of the module's communicator back to the layer
 * below, when the slot still holds this module: the slot then calls the
 * layer below directly.  Returns whether it did. */
bool mca_coll_hiercoll_hand_back_slot(mca_coll_hiercoll_module_t *m, hc_coll_t coll,
                                      hc_mode_t mode);
/* Open MPI 6.0 (HC_COLL_SELECTION_INSTALLS 0): put the module's own
 * functions into the communicator's table (enable, after save_prev), and
 * put back the saved layer below where a slot still holds the module
 * (disable).  No-ops where the selection installs (4.1, 5.0): uninstall
 * is never called there. */
void mca_coll_hiercoll_install(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm);
void mca_coll_hiercoll_uninstall(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm);
/* Save, retain and release the layer below. */
void mca_coll_hiercoll_save_prev(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm);
void mca_coll_hiercoll_release_prev(mca_coll_hiercoll_module_t *m);
/* Whether the layer below's algorithms for slot (k, md) may write outside
 * their scratch for a datatype whose true lower bound is not 0 (tuned's
 * ring allreduce, libnbc's ireduce), and whether this call would. */
bool mca_coll_hiercoll_below_lb_unsafe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                       hc_mode_t md);
bool mca_coll_hiercoll_below_misplaces(const hc_call_t *c);
bool mca_coll_hiercoll_below_misplaces_dt(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                          hc_mode_t md, ompi_datatype_t *dt, ompi_op_t *op,
                                          int size);
/* Does the layer below provide this slot? */
bool mca_coll_hiercoll_has_fallback(const mca_coll_hiercoll_module_t *m, hc_coll_t coll,
                                    hc_mode_t mode);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_BELOW_H */
