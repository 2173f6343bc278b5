/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The boundary between the component and the offload's transport plugins.
 * The UCX agent (coll_hiercoll_offload_ucx.c) and the ofi
 * backend (coll_hiercoll_ofi.c, coll_hiercoll_ofi_trig.c) are each a small
 * shared object linked against its library (hiercoll_ucx.so: libucp;
 * hiercoll_ofi.so: libfabric), installed in <component dir>/hiercoll/ (a
 * name Open MPI's component scan never loads) and dlopened
 * (RTLD_NOW | RTLD_LOCAL) by coll_hiercoll_offload_transport.c only when a
 * communicator's offload first asks for that transport.  So a process
 * that never runs the offload never maps libfabric, UCX or PSM.
 *
 * Two tables cross the boundary, both versioned by HC_OL_TRANSPORT_ABI and
 * their size (a stale plugin is refused with one verbose line):
 *   hc_ol_transport_t  what a plugin exports, as the one symbol
 *                      HC_OL_TRANSPORT_SYMBOL;
 *   hc_ol_services_t   what the component hands the plugin at init: the
 *                      offload's agreement, the process's peer tables,
 *                      the triggered engine, the log and the parameters.
 * A plugin has no undefined reference to the component; what it uses of
 * Open MPI itself (opal_progress, the communicator's inline accessors,
 * predefined datatypes) comes from libmpi, global in the process.
 */
#ifndef MCA_COLL_HIERCOLL_OFFLOAD_TRANSPORT_H
#define MCA_COLL_HIERCOLL_OFFLOAD_TRANSPORT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "coll_hiercoll.h"
#include "coll_hiercoll_ofi_trig.h"
#include "coll_hiercoll_trig.h"

BEGIN_C_DECLS

/* Bump when either table or a type they carry changes. */
#define HC_OL_TRANSPORT_ABI 2
#define HC_OL_TRANSPORT_SYMBOL "hiercoll_offload_transport"

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

/* What the component gives a plugin (valid for the process's life). */
typedef struct hc_ol_services {
    uint32_t abi;  /* HC_OL_TRANSPORT_ABI */
    uint32_t size; /* sizeof(hc_ol_services_t) */
    /* parameters */
    int mpq, credits;      /* the engine's (coll_hiercoll_offload_mpq, _credits) */
    int ofi_max_triggered; /* coll_hiercoll_offload_ofi_max_triggered */
    /* mca_coll_hiercoll_log */
    void (*log)(int level, const char *fmt, ...);
    /* mca_coll_hiercoll_show_help_text: a message of help-coll-hiercoll.txt
     * whose one argument is a string */
    void (*show_help_text)(const char *topic, const char *text);
    /* The AND of every rank's `mine` over the module's communicator (0 when
     * the exchange failed; *rc its return code): mca_coll_hiercoll_offload_agree. */
    uint64_t (*agree)(mca_coll_hiercoll_module_t *m, uint64_t mine, int *rc);
    /* peer tables */
    bool (*peers_find)(const hc_ol_peers_t *t, ompi_proc_t *proc, uint64_t *val);
    int (*peers_add)(hc_ol_peers_t *t, ompi_proc_t *proc, uint64_t val);
    void (*peers_fini)(hc_ol_peers_t *t); /* release every process, empty the table */
    bool (*peers_missing)(const hc_ol_peers_t *t, ompi_communicator_t *comm);
    /* the triggered engine (coll_hiercoll_trig.h) */
    hct_engine_t *(*engine_new)(const hct_engine_config_t *cfg, const hct_backend_t *be);
    void (*engine_free)(hct_engine_t *e);
    hct_chan_t *(*chan_open)(hct_engine_t *e, uint16_t id, int size, int rank, void *user);
    void (*chan_close)(hct_chan_t *c);
    void *(*chan_user)(const hct_chan_t *c);
    int (*chan_rank)(const hct_chan_t *c);
    void (*deliver)(hct_engine_t *e, int src, const hct_pkt_t *pkt);
} hc_ol_services_t;

/* What a plugin exports.  Only the members of its own transport are set
 * (the others are NULL).  Every open is collective over the module's
 * communicator (through m->prev's allgather) and returns the same verdict
 * on every rank; on failure the caller takes the next transport. */
typedef struct hc_ol_transport {
    uint32_t abi;     /* HC_OL_TRANSPORT_ABI */
    uint32_t size;    /* sizeof(hc_ol_transport_t) */
    const char *name; /* "ucx" or "ofi" */
    /* Once, right after loading: 0, or -1 when the services are not the
     * ones it was built for. */
    int (*init)(const hc_ol_services_t *svc);
    void (*fini)(void); /* MPI_Finalize: every channel is closed */

    /* ucx: the agent's engine.  post: after an arm, send what it fired
     * (the agent is woken only for sends still in flight).  help: a
     * caller blocked in a wait progresses the worker and parks the agent
     * for a short lease; returns the events progressed. */
    int (*ucx_open)(mca_coll_hiercoll_module_t *m, hct_chan_t **chan, hc_ol_engine_t **eng,
                    bool automatic);
    void (*ucx_close)(hct_chan_t *chan);
    void (*ucx_post)(void);
    int (*ucx_help)(void);

    /* ofi: programs as FI_TRIGGER deferred work.  fits: does a program
     * (planned for the ROOT, so every rank decides alike) fit the
     * provider's per-port budget.  finished: 1 done (disarmed), 0 not
     * yet, -1 failed. */
    int (*ofi_open)(mca_coll_hiercoll_module_t *m, hcf_chan_t **chan, bool automatic);
    bool (*ofi_fits)(hcf_chan_t *chan, const hct_prog_t *bound);
    hcf_port_t *(*ofi_arm)(hcf_chan_t *chan, uint16_t seq, const hct_prog_t *prog, const void *in,
                           void *out);
    int (*ofi_finished)(hcf_port_t *port);
    void (*ofi_close)(hcf_chan_t *chan);
} hc_ol_transport_t;

/* The plugin's export: `HC_OL_EXPORT const hc_ol_transport_t
 * hiercoll_offload_transport = {...};` (the component is built with
 * -fvisibility=hidden, and so are the plugins). */
#define HC_OL_EXPORT __attribute__((visibility("default")))

/* A plugin's init: the component's services, when their version and size
 * are the ones the plugin was built for; else NULL (it refuses to load). */
static inline const hc_ol_services_t *hc_ol_services_check(const hc_ol_services_t *svc)
{
    return HC_OL_TRANSPORT_ABI == svc->abi && sizeof(hc_ol_services_t) == svc->size ? svc : NULL;
}

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_OFFLOAD_TRANSPORT_H */
