/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level (docs/node-level.md):
 * collectives of a communicator whose processes share a node exchange
 * data through a region of shared memory instead of the PML.
 *
 * Capability layer: called by the algorithm tables (the "shm" algorithm of
 * barrier, bcast, reduce and allreduce, every mode) and by selection
 * (auto); it calls the layer below's collectives (setup agreement only),
 * Open MPI's progress and the parameters/log leaf.  See HACKING.md,
 * "Shared-memory node level", for the protocol.
 */
#ifndef MCA_COLL_HIERCOLL_SHM_H
#define MCA_COLL_HIERCOLL_SHM_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* The "shm" algorithms: usable answers alike on every rank (communicator
 * on one node, setup not failed, datatype and op it can fold, a
 * persistent channel left); start runs every mode. */
bool mca_coll_hiercoll_shm_usable(const hc_call_t *c);
int mca_coll_hiercoll_shm_start(hc_call_t *c, ompi_request_t **request,
                                struct ompi_info_t *info);
/* auto's question (selection, before the rules): does the engine serve
 * this call?  Counts the calls toward admission
 * (coll_hiercoll_shm_min_calls); a call counted that way must not be
 * remembered by the fast path (it sets c->no_fast).  The same answer on
 * every rank. */
bool mca_coll_hiercoll_shm_wants(const hc_call_t *c);
/* The fast path's mark of a blocking call that shm ran (hc_fast_t.plan):
 * a hit then calls mca_coll_hiercoll_shm_fast. */
extern const hcp_plan_t mca_coll_hiercoll_shm_mark;
/* Could shm serve blocking calls of this communicator at all?  (At enable:
 * the slot then stays hiercoll's whatever the rules say.) */
bool mca_coll_hiercoll_shm_claims(const mca_coll_hiercoll_module_t *m, hc_coll_t k);
/* Whether auto may still run some calls of k on the level on this
 * communicator (it claims k and its set-up has not failed): the same
 * answer on every rank. */
bool mca_coll_hiercoll_shm_may_take(const mca_coll_hiercoll_module_t *m, hc_coll_t k);
/* A nonblocking or persistent call that the level would take but cannot
 * yet (no blocking call has set it up), where hiercoll's plans are not
 * faster than the layer below on one node (barrier, bcast, reductions of
 * some lengths): auto passes it to the layer below. */
bool mca_coll_hiercoll_shm_defers(const hc_call_t *c);
/* The same for a nonblocking call of k of `bytes`, before building it
 * (entry points). */
bool mca_coll_hiercoll_shm_defers_nb(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                     size_t bytes);
/* A blocking call with the arguments of the last one that shm ran (the
 * fast path's hit). */
int mca_coll_hiercoll_shm_fast(mca_coll_hiercoll_module_t *m, hc_fast_t *f, hc_coll_t k,
                               const void *sbuf, void *rbuf);
/* Set up the region of a decomposition's part at once (collective). */
void mca_coll_hiercoll_shm_prepare(ompi_communicator_t *comm);
/* coll_hiercoll_shm_topology parsed (at the component's open): 0, or an
 * error said in why (the real locality is used then). */
int mca_coll_hiercoll_shm_topology_parse(const char *synthetic, char *why, size_t whylen);
/* Module set-up / tear-down, component close. */
/* Whether this build's 64-bit atomics are lock-free (coll_hiercoll_atomic.h):
 * the node level is off where they are not. */
bool mca_coll_hiercoll_shm_atomics_ok(void);
void mca_coll_hiercoll_shm_enable(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm);
void mca_coll_hiercoll_shm_free(mca_coll_hiercoll_module_t *m);
void mca_coll_hiercoll_shm_fini(void);
END_C_DECLS

#endif
