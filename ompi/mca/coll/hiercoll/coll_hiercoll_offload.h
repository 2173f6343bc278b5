/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The triggered offload inside Open MPI (seed 003): what the glue
 * (coll_hiercoll_offload.c) and its transports share.
 *
 * One triggered engine (coll_hiercoll_trig.h) per transport and process:
 *   progress  packets travel over the PML (tagged 128-byte messages on the
 *             communicator); chains fire inside Open MPI's progress;
 *   ucx       the component's own UCP context and worker; an agent thread
 *             owns the worker, receives packets as active messages and
 *             fires chains from the AM handler (coll_hiercoll_offload_ucx.c).
 * A communicator gets a channel on one of them at its first offloaded call
 * (collective: every rank makes that call), chosen the same on every rank.
 */
#ifndef MCA_COLL_HIERCOLL_OFFLOAD_H
#define MCA_COLL_HIERCOLL_OFFLOAD_H

#include <pthread.h>

#include "coll_hiercoll.h"
#include "coll_hiercoll_trig.h"
#include "coll_hiercoll_ofi_trig.h"

BEGIN_C_DECLS

enum { HC_OL_AUTO = 0, HC_OL_UCX = 1, HC_OL_PROGRESS = 2, HC_OL_OFI = 3 };

/* A transport's engine with the lock that serializes it. */
typedef struct hc_ol_engine {
    hct_engine_t *e;
    pthread_mutex_t lock;
    bool up;
} hc_ol_engine_t;

/* The peers a transport of the process has endpoints for (the UCX
 * agent's endpoints, the ofi backend's addresses), keyed by process and
 * reused by every communicator; a process stays retained while listed. */
typedef struct hc_ol_peer {
    ompi_proc_t *proc;
    uint64_t val; /* the transport's endpoint or address */
} hc_ol_peer_t;
typedef struct hc_ol_peers {
    hc_ol_peer_t *v;
    int n, cap;
} hc_ol_peers_t;
bool mca_coll_hiercoll_peers_find(const hc_ol_peers_t *t, ompi_proc_t *proc, uint64_t *val);
int mca_coll_hiercoll_peers_add(hc_ol_peers_t *t, ompi_proc_t *proc, uint64_t val);
/* Release every process and empty the table (close the values first). */
void mca_coll_hiercoll_peers_fini(hc_ol_peers_t *t);
/* Does some rank of the module's communicator lack an entry for a peer? */
bool mca_coll_hiercoll_peers_missing(const hc_ol_peers_t *t, ompi_communicator_t *comm);
/* The offload's agreements (wire-up, persistent slots): the AND of every
 * rank's `mine`, the same on every rank; 0 when the exchange failed.  An
 * allgather of the layer below (its allreduce may come back to hiercoll).
 * *rc: the allgather's return code. */
uint64_t mca_coll_hiercoll_offload_agree(mca_coll_hiercoll_module_t *m, uint64_t mine, int *rc);

#if HIERCOLL_HAVE_UCX
/* Open a channel for the module's communicator on the UCX agent's engine
 * (collective: wires up through m->prev's allgather on the first call).
 * Every rank returns the same verdict; on failure the caller uses the
 * progress transport. */
int mca_coll_hiercoll_ucx_open(mca_coll_hiercoll_module_t *m, hct_chan_t **chan,
                               hc_ol_engine_t **eng, bool automatic);
void mca_coll_hiercoll_ucx_close(hct_chan_t *chan);
/* A port was armed: the caller sends what the arm fired itself (a leaf's
 * first packet leaves at once; waking the agent for it would cost a
 * thread hand-off on a busy core) and wakes the agent only for sends
 * still in flight. */
void mca_coll_hiercoll_ucx_post(void);
/* A caller blocked in a wait lends its core to the agent's worker
 * (coll_hiercoll_offload_wait_progress): no thread hand-off per hop.
 * Each call progresses the worker and parks the agent for a short lease
 * (a caller that stops calling gives the worker back when it runs out). */
int mca_coll_hiercoll_ucx_help(void);
void mca_coll_hiercoll_ucx_fini(void);
#endif

#if HIERCOLL_HAVE_OFI
/* The ofi backend (coll_hiercoll_ofi.c): programs as FI_TRIGGER deferred
 * work.  open: collective, through m->prev's allgather; every rank returns
 * the same verdict.  fits: does a program (planned for the ROOT, so every
 * rank decides alike) fit the provider's per-port budget; calls that do
 * not run on the progress transport.  finished: 1 done (disarmed), 0 not
 * yet, -1 failed. */
int mca_coll_hiercoll_ofi_open(mca_coll_hiercoll_module_t *m, hcf_chan_t **chan, bool automatic);
bool mca_coll_hiercoll_ofi_fits(hcf_chan_t *chan, const hct_prog_t *bound);
hcf_port_t *mca_coll_hiercoll_ofi_arm(hcf_chan_t *chan, uint16_t seq, const hct_prog_t *prog,
                                      const void *in, void *out);
int mca_coll_hiercoll_ofi_finished(hcf_port_t *port);
void mca_coll_hiercoll_ofi_close(hcf_chan_t *chan);
void mca_coll_hiercoll_ofi_fini(void);
#endif

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_OFFLOAD_H */
