/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The capabilities: what the algorithm tables and the selection call to
 * run a call beyond a plain plan.  Layer: capabilities (each may call the
 * executor, the services, the leaf and the MPI-free planners; none calls
 * the algorithm tables, the selection or anything above).  A new
 * capability (the shared-memory engine) gets a section here or a header
 * of its own at this level.
 */
#ifndef MCA_COLL_HIERCOLL_CAPS_H
#define MCA_COLL_HIERCOLL_CAPS_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* Tree gatherv and scatterv (coll_hiercoll_gatherv.c) */

/* The aggressive level: one plan from the rank's own arguments. */
int mca_coll_hiercoll_vtree_plan(hcp_plan_t *plan, const hc_call_t *call);
/* The conservative level: stage 0 brings every rank the root's header
 * and its subtree's part of the layout, stage 1 is the tree. */
int mca_coll_hiercoll_vtree_stages(const hc_call_t *call, hc_stages_t *out);
bool mca_coll_hiercoll_vtree_staged(const hc_call_t *call);

/* Neighborhood collectives (coll_hiercoll_neighbor.c) */

/* The algorithms of the five neighborhood collectives (one table). */
extern const hc_algo_t mca_coll_hiercoll_neighbor_algos[];
/* Their auto policy and its verbose description. */
const hc_algo_t *mca_coll_hiercoll_neighbor_auto(const hc_call_t *c);
void mca_coll_hiercoll_neighbor_describe(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                         hc_mode_t md, char *buf, size_t len);

/* Decomposition (coll_hiercoll_decomp.c) */

struct hc_decomp;
void mca_coll_hiercoll_decomp_free(mca_coll_hiercoll_module_t *m);
/* Can decomposition serve this blocking call?  The communicator must
 * split into several parts (created at the first call that asks, which
 * is collective: the selection of a call asks on every rank alike), parts
 * must be runs of ranks for reductions whose order matters, and the
 * counts passed on must fit an int. */
bool mca_coll_hiercoll_decomp_usable(const hc_call_t *c);
/* The parts of the call's communicator, for auto's rules (created as by
 * mca_coll_hiercoll_decomp_usable), or NULL when it is not decomposed. */
const hcp_decomp_t *mca_coll_hiercoll_decomp_layout(const hc_call_t *c);
/* The criterion that would split this communicator, for verbose output
 * ("node", "block:4"...), or NULL when it surely stays whole. */
const char *mca_coll_hiercoll_decomp_criterion(const mca_coll_hiercoll_module_t *m, char *buf,
                                               size_t len);
/* Run a call decomposed, in any mode (the "decomp" algorithms' start):
 * blocking runs it; nonblocking returns a request whose pieces progress
 * in Open MPI's progress; persistent creates the pieces once (persistent
 * collectives of the parts and the bridge) and starts them at each
 * MPI_Start. */
int mca_coll_hiercoll_decomp_start(hc_call_t *c, ompi_request_t **request,
                                   struct ompi_info_t *info);
/* At the component's close: off the progress loop. */
void mca_coll_hiercoll_decomp_fini(void);

/* Intercommunicators (coll_hiercoll_inter.c) */

/* Run a call on an intercommunicator: the layer below when it fills the
 * slot (see coll_hiercoll_inter_own), else hiercoll's intercommunicator
 * plan; never the intracommunicator algorithms or decomposition. */
int mca_coll_hiercoll_inter_dispatch(hc_call_t *c, ompi_request_t **request,
                                     struct ompi_info_t *info);
/* The verbose line of an intercommunicator. */
void mca_coll_hiercoll_inter_describe(mca_coll_hiercoll_module_t *m);

/* Triggered offload (coll_hiercoll_offload.c; what it shares with its
 * transports is coll_hiercoll_offload.h) */

/* The "offload" algorithms of allreduce and reduce: usable declines what
 * the engine's ALU cannot do; start runs every mode. */
bool mca_coll_hiercoll_offload_usable(const hc_call_t *c);
int mca_coll_hiercoll_offload_start(hc_call_t *c, ompi_request_t **request,
                                    struct ompi_info_t *info);
/* Parse the offload parameters (component registration). */
void mca_coll_hiercoll_offload_params(void);
void mca_coll_hiercoll_offload_free(mca_coll_hiercoll_module_t *m);
void mca_coll_hiercoll_offload_fini(void);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_CAPS_H */
