/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The offload's UCX agent transport: a software NIC.
 *
 * The component's OWN UCP context and worker (never pml/ucx's), created at
 * the first offloaded call that asks for it.  An AGENT thread owns the
 * worker: it progresses it and, inside the active-message handler, hands
 * every packet to the triggered engine, which fires the armed chains there
 * (their sends leave from the handler; a handler never progresses the
 * worker).  The calling thread arms, sends what its arm fired (a leaf's
 * first packet) and waits (while it waits it may also progress the
 * worker: coll_hiercoll_offload_wait_progress).  When idle the agent
 * sleeps on the worker's event fd, so it does not take a core from the
 * application.  The worker is SERIALIZED under a mutex of ours (U.wlock).
 *
 * Endpoints: one table per process keyed by ompi_proc_t, reused by every
 * communicator.  A communicator's first offloaded call exchanges worker
 * addresses through the saved previous module's allgather (lazily: Open
 * MPI 4.1's endpoint slots are all taken and init_query runs after the
 * modex), then agrees through its allreduce that every rank is ready, so
 * every rank takes the same transport.
 */
#include "ompi_config.h"

#include <poll.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include <ucp/api/ucp.h>

#include "ompi/proc/proc.h"
#include "opal/util/output.h"
#include "opal/util/proc.h"

#include "coll_hiercoll_offload_transport.h"

/* What the component gives this plugin (ucx_init). */
static const hc_ol_services_t *S;

#define HC_AM_ID 17
/* Empty progress calls before the agent sleeps on the worker's event fd
 * (woken by arriving packets or a caller's arm), when the node has a core
 * to spare for every process's agent; none where it has not (agent_place):
 * there a spinning agent takes the core the application computes on, and
 * one that sleeps at once is woken when a packet arrives. */
#define SPIN_IDLE 200

/* What a channel's user pointer is: the endpoints of its ranks. */
typedef struct ucx_chan {
    ucp_ep_h *eps;
    int size;
} ucx_chan_t;

/* On the wire: the sender's rank in the channel, then the packet. */
typedef struct wire {
    int32_t src;
    int32_t pad;
    hct_pkt_t pkt;
} wire_t;

typedef struct out {
    ucp_ep_h ep;
    wire_t *w;
} out_t;

static struct {
    bool tried, up;
    ucp_context_h ctx;
    ucp_worker_h worker;
    /* Every use of the worker holds this lock (the worker is SERIALIZED).
     * Not UCX's own MULTI mode: its lock spins, and the agent and a caller
     * share a core where there is none to spare, so a caller spinning on
     * a preempted agent's lock spun out its whole time slice. */
    pthread_mutex_t wlock;
    int efd;
    pthread_t agent;
    volatile int stop;
    /* A caller waiting in a loop drives the worker itself and leases it
     * until this time (monotonic ns), renewed at every turn of its loop;
     * meanwhile the agent is parked where no packet wakes it (a thread
     * woken on a shared core is a context switch per packet).  A caller
     * that leaves MPI simply stops renewing: the agent is back within a
     * lease, and nothing a caller holds waits longer than that. */
    volatile int64_t lease_end;
    pthread_mutex_t park_lock;
    pthread_cond_t park_cv;
    int spin; /* SPIN_IDLE, or 0 on a node without a spare core */
    hc_ol_engine_t eng;
    hc_ol_peers_t peers;      /* endpoints (val: the ucp_ep_h) */
    pthread_mutex_t out_lock; /* the outbox: packets the caller's arm fired */
    out_t *out;
    volatile int nout;
    int capout;
} U;

/* How long a caller's turn of its waiting loop keeps the agent parked. */
#define HC_UCX_LEASE_NS 30000

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Packets                                                              */
/* ------------------------------------------------------------------ */

static void sent(void *request, ucs_status_t status, void *user_data)
{
    (void) request;
    (void) status;
    free(user_data);
}

/* Send from the agent's thread (inside the AM handler, or draining the
 * outbox), or from a caller draining the outbox its arm filled.  Returns
 * 1 when the send is still in flight (someone must progress the worker),
 * 0 when it completed in place, -1 on error. */
static int wire_send(ucp_ep_h ep, wire_t *w)
{
    ucp_request_param_t prm;
    memset(&prm, 0, sizeof(prm));
    prm.op_attr_mask =
        UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_FLAGS;
    prm.cb.send = sent;
    prm.user_data = w;
    prm.flags = UCP_AM_SEND_FLAG_EAGER;
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, HC_AM_ID, NULL, 0, w, sizeof(*w), &prm);
    if (NULL == r) {
        free(w); /* completed in place */
    } else if (UCS_PTR_IS_ERR(r)) {
        free(w);
        return -1;
    } else {
        ucp_request_free(r); /* `sent` frees w on completion */
        return 1;
    }
    return 0;
}

/* The engine's backend.  Chains fired by the caller's arm (a leaf's first
 * packet) are not sent while the caller holds the engine's lock: the
 * agent may be inside the AM handler, holding the worker and waiting for
 * that lock.  They go to the outbox, which the caller sends once it has
 * let the lock go (ucx_post) and the agent drains. */
static int ucx_send(void *ctx, hct_chan_t *chan, int rank, const hct_pkt_t *pkt)
{
    (void) ctx;
    ucx_chan_t *uc = S->chan_user(chan);
    if (rank < 0 || rank >= uc->size || NULL == uc->eps[rank]) {
        return -1;
    }
    wire_t *w = malloc(sizeof(*w));
    if (NULL == w) {
        return -1;
    }
    w->src = S->chan_rank(chan);
    w->pad = 0;
    w->pkt = *pkt;
    if (pthread_equal(pthread_self(), U.agent)) {
        return wire_send(uc->eps[rank], w) < 0 ? -1 : 0;
    }
    pthread_mutex_lock(&U.out_lock);
    if (U.nout == U.capout) {
        int c = U.capout ? 2 * U.capout : 64;
        out_t *o = realloc(U.out, (size_t) c * sizeof(*o));
        if (NULL == o) {
            pthread_mutex_unlock(&U.out_lock);
            free(w);
            return -1;
        }
        U.out = o;
        U.capout = c;
    }
    U.out[U.nout].ep = uc->eps[rank];
    U.out[U.nout].w = w;
    U.nout++;
    pthread_mutex_unlock(&U.out_lock);
    return 0;
}

/* Send the outbox (under U.wlock).  Returns how many sends left and, when
 * pending is not NULL, adds how many of them are still in flight. */
static int drain_outbox(int *pending)
{
    if (0 == U.nout) {
        return 0;
    }
    pthread_mutex_lock(&U.out_lock);
    int n = U.nout;
    out_t *o = U.out;
    U.out = NULL;
    U.nout = U.capout = 0;
    pthread_mutex_unlock(&U.out_lock);
    for (int i = 0; i < n; ++i) {
        int rc = wire_send(o[i].ep, o[i].w);
        if (NULL != pending) {
            *pending += rc > 0;
        }
    }
    free(o);
    return n;
}

/* The agent's AM handler: the NIC receiving a packet. */
static ucs_status_t on_packet(void *arg, const void *header, size_t header_length, void *data,
                              size_t length, const ucp_am_recv_param_t *param)
{
    (void) arg;
    (void) header;
    (void) header_length;
    if (length != sizeof(wire_t) || (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        return UCS_OK;
    }
    wire_t w;
    memcpy(&w, data, sizeof(w));
    pthread_mutex_lock(&U.eng.lock);
    S->deliver(U.eng.e, w.src, &w.pkt);
    pthread_mutex_unlock(&U.eng.lock);
    return UCS_OK;
}

/* Whether the node has a core to spare for every process's agent: online
 * cores at least twice the node's processes. */
static bool spare_core(long *cores, long *procs)
{
    *cores = sysconf(_SC_NPROCESSORS_ONLN);
    *procs = (long) opal_process_info.num_local_peers + 1;
    return *cores >= 2 * *procs;
}

/* The agent's place: where the node has a core to spare, it leaves the
 * process's binding for the whole node, so that the kernel puts it on an
 * idle core, and spins a little before sleeping; elsewhere it keeps the
 * binding and sleeps at once (a spinning agent would take the core the
 * application computes on).  Returns the spin count. */
static int agent_place(void)
{
    long cores, procs;
    if (!spare_core(&cores, &procs)) {
        return 0;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (long i = 0; i < cores && i < CPU_SETSIZE; ++i) {
        CPU_SET((int) i, &set);
    }
    (void) pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    return SPIN_IDLE;
}

static void *agent_main(void *arg)
{
    (void) arg;
    int idle = 0;
    U.spin = agent_place();
    while (!U.stop) {
        int64_t end = U.lease_end;
        if (now_ns() < end) { /* leave the worker and the core to the caller */
            struct timespec ts = {.tv_sec = end / 1000000000, .tv_nsec = end % 1000000000};
            pthread_mutex_lock(&U.park_lock);
            if (!U.stop) {
                (void) pthread_cond_timedwait(&U.park_cv, &U.park_lock, &ts);
            }
            pthread_mutex_unlock(&U.park_lock);
            continue;
        }
        pthread_mutex_lock(&U.wlock);
        int did = drain_outbox(NULL);
        did += (int) ucp_worker_progress(U.worker);
        ucs_status_t st = did || ++idle < U.spin ? UCS_ERR_BUSY : ucp_worker_arm(U.worker);
        pthread_mutex_unlock(&U.wlock);
        if (did) {
            idle = 0;
            continue;
        }
        if (idle < U.spin) {
            continue;
        }
        if (UCS_OK == st && 0 == U.nout) {
            struct pollfd pfd = {.fd = U.efd, .events = POLLIN};
            (void) poll(&pfd, 1, 100);
        }
        idle = 0;
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Process-wide set-up                                                  */
/* ------------------------------------------------------------------ */

static const char *why = "not tried";

static int global_up(void)
{
    if (U.tried) {
        return U.up ? OMPI_SUCCESS : OMPI_ERR_NOT_AVAILABLE;
    }
    U.tried = true;
    ucp_config_t *cfg;
    if (UCS_OK != ucp_config_read("HIERCOLL", NULL, &cfg)) {
        why = "ucp_config_read failed";
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ucp_params_t p;
    memset(&p, 0, sizeof(p));
    p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED;
    p.features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP;
    p.mt_workers_shared = 1;
    ucs_status_t st = ucp_init(&p, cfg, &U.ctx);
    ucp_config_release(cfg);
    if (UCS_OK != st) {
        why = "ucp_init failed";
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof(wp));
    wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
    wp.thread_mode = UCS_THREAD_MODE_SERIALIZED; /* under U.wlock */
    if (UCS_OK != ucp_worker_create(U.ctx, &wp, &U.worker)) {
        why = "ucp_worker_create failed";
        ucp_cleanup(U.ctx);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    if (UCS_OK != ucp_worker_get_efd(U.worker, &U.efd)) {
        why = "no wake-up fd";
        ucp_worker_destroy(U.worker);
        ucp_cleanup(U.ctx);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ucp_am_handler_param_t hp;
    memset(&hp, 0, sizeof(hp));
    hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB
                    | UCP_AM_HANDLER_PARAM_FIELD_ARG;
    hp.id = HC_AM_ID;
    hp.cb = on_packet;
    hp.arg = NULL;
    if (UCS_OK != ucp_worker_set_am_recv_handler(U.worker, &hp)) {
        why = "ucp_worker_set_am_recv_handler failed";
        ucp_worker_destroy(U.worker);
        ucp_cleanup(U.ctx);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    hct_engine_config_t ec = {.mpq_packets = S->mpq, .credits = S->credits};
    hct_backend_t be = {.ctx = NULL, .send = ucx_send};
    U.eng.e = S->engine_new(&ec, &be);
    pthread_mutex_init(&U.eng.lock, NULL);
    pthread_mutex_init(&U.out_lock, NULL);
    pthread_mutex_init(&U.wlock, NULL);
    pthread_mutex_init(&U.park_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* (now_ns's clock) */
    pthread_cond_init(&U.park_cv, &ca);
    pthread_condattr_destroy(&ca);
    U.spin = 0; /* (the agent sets it: agent_place) */
    U.lease_end = 0;
    U.eng.up = NULL != U.eng.e;
    U.stop = 0;
    if (!U.eng.up || 0 != pthread_create(&U.agent, NULL, agent_main, NULL)) {
        why = "no agent thread";
        S->engine_free(U.eng.e);
        U.eng.up = false;
        ucp_worker_destroy(U.worker);
        ucp_cleanup(U.ctx);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    U.up = true;
    return OMPI_SUCCESS;
}

static void release_address(ucp_address_t *addr)
{
    if (NULL != addr) {
        pthread_mutex_lock(&U.wlock);
        ucp_worker_release_address(U.worker, addr);
        pthread_mutex_unlock(&U.wlock);
    }
}

static ucp_ep_h ep_of(ompi_proc_t *proc)
{
    uint64_t v;
    return S->peers_find(&U.peers, proc, &v) ? (ucp_ep_h) (uintptr_t) v : NULL;
}

static int ep_add(ompi_proc_t *proc, const void *addr)
{
    ucp_ep_params_t ep;
    memset(&ep, 0, sizeof(ep));
    ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
    ep.address = addr;
    ucp_ep_h h;
    pthread_mutex_lock(&U.wlock);
    ucs_status_t st = ucp_ep_create(U.worker, &ep, &h);
    pthread_mutex_unlock(&U.wlock);
    if (UCS_OK != st) {
        return OMPI_ERROR;
    }
    return S->peers_add(&U.peers, proc, (uint64_t) (uintptr_t) h);
}

/* ------------------------------------------------------------------ */
/* Channels                                                             */
/* ------------------------------------------------------------------ */

static int ucx_open(mca_coll_hiercoll_module_t *m, hct_chan_t **chan, hc_ol_engine_t **eng,
                    bool automatic)
{
    ompi_communicator_t *comm = m->comm;
    mca_coll_base_comm_coll_t *p = &m->prev;
    int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    if (NULL == p->coll_allgather) {
        S->log(1, "%s: offload: no previous allgather to wire up UCX", comm->c_name);
        return OMPI_ERR_NOT_AVAILABLE; /* the same on every rank */
    }
    /* auto takes the agent only where it can spin on a core of its own:
     * where it shares the application's, waking it costs the sender more
     * than the progress transport's whole call (docs/offload.md) */
    long cores, procs;
    bool spare = !automatic || spare_core(&cores, &procs);
    if (!spare && 0 == me) {
        S->log(1,
               "%s: offload backend auto: not the UCX agent (no core to spare: "
               "%ld cores for %ld processes on this node)",
               comm->c_name, cores, procs);
    }
    int ok = spare && OMPI_SUCCESS == global_up();
    ucp_address_t *addr = NULL;
    size_t alen = 0;
    if (ok) {
        pthread_mutex_lock(&U.wlock);
        ok = UCS_OK == ucp_worker_get_address(U.worker, &addr, &alen);
        pthread_mutex_unlock(&U.wlock);
        why = ok ? why : "ucp_worker_get_address failed";
    }
    if (!ok && spare) {
        S->log(1, "%s: offload: UCX on rank %d: %s", comm->c_name, me, why);
    }
    /* 1: who is ready, how long the addresses are, who needs them */
    int need = ok && S->peers_missing(&U.peers, comm);
    int mine[3] = {ok, (int) alen, need}, *all = malloc(3 * (size_t) n * sizeof(int));
    int rc = NULL == all ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
    if (OMPI_SUCCESS == rc) {
        rc = p->coll_allgather(mine, 3, MPI_INT, all, 3, MPI_INT, comm, p->coll_allgather_module);
    }
    int all_ok = OMPI_SUCCESS == rc, maxlen = 0, anyneed = 0;
    for (int r = 0; all_ok && r < n; ++r) {
        all_ok &= all[3 * r];
        maxlen = all[3 * r + 1] > maxlen ? all[3 * r + 1] : maxlen;
        anyneed |= all[3 * r + 2];
    }
    free(all);
    if (!all_ok) {
        S->log(1, "%s: offload: UCX not ready on every rank (rc %d)", comm->c_name, rc);
        release_address(addr);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    /* 2: the addresses (only when some rank lacks an endpoint) */
    int made = 1;
    if (anyneed) {
        char *buf = calloc((size_t) n + 1, (size_t) maxlen);
        char *one = calloc(1, (size_t) maxlen);
        made = NULL != buf && NULL != one;
        if (made) {
            memcpy(one, addr, alen);
            made = OMPI_SUCCESS
                   == p->coll_allgather(one, maxlen, MPI_BYTE, buf, maxlen, MPI_BYTE, comm,
                                        p->coll_allgather_module);
        }
        for (int r = 0; made && r < n; ++r) {
            ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
            if (r != me && NULL == ep_of(proc)) {
                made = OMPI_SUCCESS == ep_add(proc, buf + (size_t) r * maxlen);
            }
        }
        free(buf);
        free(one);
    }
    release_address(addr);
    /* 3: every rank has its endpoints */
    if (!S->agree(m, made, &rc)) {
        S->log(1, "%s: offload: UCX endpoints failed (rc %d, here %d)", comm->c_name, rc, made);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    ucx_chan_t *uc = calloc(1, sizeof(*uc));
    if (NULL == uc || NULL == (uc->eps = calloc((size_t) n, sizeof(*uc->eps)))) {
        free(uc);
        return OMPI_ERR_OUT_OF_RESOURCE; /* local, after agreement: the call fails */
    }
    uc->size = n;
    for (int r = 0; r < n; ++r) {
        uc->eps[r] = r == me ? NULL : ep_of(ompi_comm_peer_lookup(comm, r));
    }
    pthread_mutex_lock(&U.eng.lock);
    *chan = S->chan_open(U.eng.e, (uint16_t) hc_comm_cid(comm), n, me, uc);
    pthread_mutex_unlock(&U.eng.lock);
    if (NULL == *chan) {
        free(uc->eps);
        free(uc);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *eng = &U.eng;
    S->log(1,
           "%s: offload on the UCX agent (own worker, %d endpoints in the "
           "process table)",
           comm->c_name, U.peers.n);
    return OMPI_SUCCESS;
}

/* The caller takes the worker's lock as the agent does, and the AM
 * handler takes the engine's lock inside it: the same order as the
 * agent's, and the caller holds no engine lock here.  A blocking lock: if
 * the agent holds the worker, the caller sleeps and the agent finishes. */
static int ucx_help(void)
{
    if (!U.up) {
        return 0;
    }
    U.lease_end = now_ns() + HC_UCX_LEASE_NS; /* the agent steps back meanwhile */
    pthread_mutex_lock(&U.wlock);
    int n = drain_outbox(NULL);
    n += (int) ucp_worker_progress(U.worker);
    pthread_mutex_unlock(&U.wlock);
    return n;
}

static void ucx_post(void)
{
    if (!U.up || 0 == U.nout) {
        return;
    }
    pthread_mutex_lock(&U.wlock);
    int pending = 0;
    (void) drain_outbox(&pending);
    pthread_mutex_unlock(&U.wlock);
    if (pending > 0) {
        ucp_worker_signal(U.worker); /* the agent completes them */
    }
}

static void ucx_close(hct_chan_t *chan)
{
    pthread_mutex_lock(&U.eng.lock);
    ucx_chan_t *uc = S->chan_user(chan);
    S->chan_close(chan);
    pthread_mutex_unlock(&U.eng.lock);
    free(uc->eps);
    free(uc);
}

static void ucx_fini(void)
{
    if (!U.up) {
        return;
    }
    pthread_mutex_lock(&U.park_lock);
    U.stop = 1;
    pthread_cond_signal(&U.park_cv);
    pthread_mutex_unlock(&U.park_lock);
    ucp_worker_signal(U.worker);
    pthread_join(U.agent, NULL); /* the worker is this thread's alone now */
    pthread_cond_destroy(&U.park_cv);
    pthread_mutex_destroy(&U.park_lock);
    for (int i = 0; i < U.peers.n; ++i) {
        ucp_request_param_t prm;
        memset(&prm, 0, sizeof(prm));
        prm.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
        prm.flags = UCP_EP_CLOSE_FLAG_FORCE;
        ucs_status_ptr_t r = ucp_ep_close_nbx((ucp_ep_h) (uintptr_t) U.peers.v[i].val, &prm);
        while (UCS_PTR_IS_PTR(r) && UCS_INPROGRESS == ucp_request_check_status(r)) {
            ucp_worker_progress(U.worker);
        }
        if (UCS_PTR_IS_PTR(r)) {
            ucp_request_free(r);
        }
    }
    S->peers_fini(&U.peers);
    S->engine_free(U.eng.e);
    U.eng.up = false;
    pthread_mutex_destroy(&U.eng.lock);
    for (int i = 0; i < U.nout; ++i) {
        free(U.out[i].w); /* never sent: the job is ending */
    }
    free(U.out);
    U.out = NULL;
    U.nout = U.capout = 0;
    pthread_mutex_destroy(&U.out_lock);
    pthread_mutex_destroy(&U.wlock);
    ucp_worker_destroy(U.worker);
    ucp_cleanup(U.ctx);
    U.up = false;
}

static int ucx_init(const hc_ol_services_t *svc)
{
    S = hc_ol_services_check(svc);
    return NULL != S ? 0 : -1;
}

HC_OL_EXPORT const hc_ol_transport_t hiercoll_offload_transport = {
    .abi = HC_OL_TRANSPORT_ABI,
    .size = sizeof(hc_ol_transport_t),
    .name = "ucx",
    .init = ucx_init,
    .fini = ucx_fini,
    .ucx_open = ucx_open,
    .ucx_close = ucx_close,
    .ucx_post = ucx_post,
    .ucx_help = ucx_help,
};
