/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered offload inside Open MPI: what the glue
 * (coll_hiercoll_offload.c) and its transports share.
 *
 * One triggered engine (coll_hiercoll_trig.h) per transport and process:
 *   progress  packets travel over the PML (tagged 128-byte messages on the
 *             communicator); chains fire inside Open MPI's progress;
 *   ucx       the component's own UCP context and worker; an agent thread
 *             owns the worker, receives packets as active messages and
 *             fires chains from the AM handler (coll_hiercoll_offload_ucx.c);
 *   ofi       FI_TRIGGER deferred work (coll_hiercoll_ofi.c), with a
 *             progress channel for what does not fit the provider.
 * ucx and ofi are plugins loaded on first use (coll_hiercoll_offload_transport.h).
 * A communicator gets a channel on one of them at its first offloaded call
 * (collective: every rank makes that call), chosen the same on every rank.
 */
#ifndef MCA_COLL_HIERCOLL_OFFLOAD_H
#define MCA_COLL_HIERCOLL_OFFLOAD_H

#include <pthread.h>

#include "coll_hiercoll.h"
#include "coll_hiercoll_trig.h"
#include "coll_hiercoll_ofi_trig.h"
#include "coll_hiercoll_offload_transport.h"

BEGIN_C_DECLS

enum { HC_OL_AUTO = 0, HC_OL_UCX = 1, HC_OL_PROGRESS = 2, HC_OL_OFI = 3 };

/* The offload's agreements (wire-up, persistent slots): the AND of every
 * rank's `mine`, the same on every rank; 0 when the exchange failed.  An
 * allgather of the layer below (its allreduce may come back to hiercoll).
 * *rc: the allgather's return code. */
uint64_t mca_coll_hiercoll_offload_agree(mca_coll_hiercoll_module_t *m, uint64_t mine, int *rc);

/* The transports loaded from plugins (coll_hiercoll_offload_transport.h). */
enum { HC_OL_T_UCX = 0, HC_OL_T_OFI = 1, HC_OL_T_N };
/* Collective over the module's communicator (one agreement through
 * m->prev's allgather, when transport t was built): transport t's table,
 * its plugin loaded on this process's first call, or NULL on every rank
 * when some rank could not load it (one verbose line: why). */
const hc_ol_transport_t *mca_coll_hiercoll_transport_agreed(mca_coll_hiercoll_module_t *m, int t);
/* Transport t's table if this process loaded it, else NULL. */
const hc_ol_transport_t *mca_coll_hiercoll_transport_loaded(int t);
/* ompi_info: the transports built, and whether each loads (component
 * registration). */
void mca_coll_hiercoll_transport_register(const mca_base_component_t *self);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_OFFLOAD_H */
