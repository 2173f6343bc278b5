/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered offload inside Open MPI: the "offload"
 * algorithms of allreduce and reduce in every mode, and the host-progress
 * transport.  See coll_hiercoll_offload.h and coll_hiercoll_trig.h.
 *
 * A call builds this rank's program (hct_plan_*; blocking calls reuse the
 * last one of the communicator), arms it on the communicator's channel
 * (port = the call's sequence number, the same on every rank: blocking and
 * nonblocking calls count 0..0xBFFF, a persistent request keeps the id it
 * got at init, 0xC000 + 256 * id, plus a start count), and waits for the
 * port's DONE counter.  The calling thread only arms and waits: chains
 * fire in the UCX agent's thread, or inside Open MPI's progress for the
 * progress transport, whose packets are 128-byte PML messages on the
 * communicator received by a few always-posted receives.
 */
#include "ompi_config.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/mca/pml/pml.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/datatype/opal_convertor.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_offload.h"
#include "coll_hiercoll_trig_bcast.h"

/* The progress transport's tag, in the range no Open MPI component in
 * this build uses (hcoll's). */
#define HC_OL_TAG (HC_COLL_TAG_BOTTOM + 4242)
#define HC_OL_NRECV 8
#define HC_OL_PERSISTENT 0xC000
/* Persistent requests one communicator's ports tell apart at a time: the
 * ports above HC_OL_PERSISTENT are a slot (6 bits) and a start count
 * (8 bits). */
#define HC_OL_NPERS 64

struct hc_ol_req;

typedef struct hc_offload {
    mca_coll_hiercoll_module_t *m;
    ompi_communicator_t *comm;
    int kind;                 /* HC_OL_UCX, _PROGRESS or _OFI; 0: not opened; -1: failed */
    int backend, tree, radix; /* the parameters, or the communicator's info keys */
    hcf_chan_t *fchan;        /* ofi: the channel (calls that do not fit use chan) */
    bool prog_ofi;            /* blocking: the cached program fits the ofi budget */
    hc_ol_engine_t *eng;
    hct_chan_t *chan;
    uint16_t seq;                         /* next blocking/nonblocking port */
    int npersistent;                      /* persistent requests initialized */
    struct hc_ol_req *plive[HC_OL_NPERS]; /* the persistent requests alive, by slot */
    int pslot; /* once npersistent >= HC_OL_NPERS: the slot agreed for the next init */
    int pnext; /* persistent inits that found no slot and took the next algorithm */
    /* blocking calls: the last program and its key */
    hct_prog_t prog;
    bool prog_valid;
    int key_root, key_coll;
    size_t key_count;
    hct_op_t key_op;
    hct_type_t key_type;
    /* progress transport: receives always posted */
    ompi_request_t *rreq[HC_OL_NRECV];
    hct_pkt_t rbuf[HC_OL_NRECV];
    opal_list_item_t item; /* in ol.progress_chans */
} hc_offload_t;

/* A nonblocking or persistent offloaded call. */
/* A bcast's bytes.  Ranks may pass different datatypes of one signature
 * (a predefined type at the root, a derived one elsewhere), so whether the
 * offload serves a bcast must not depend on the datatype (it did: a root
 * with MPI_LONG ran it while a rank with a struct of one MPI_LONG took the
 * next algorithm, and both waited for ever; hc_fuzz --case
 * 0xb08eab7579baae1f at np 2).  The engine moves bytes: a datatype whose
 * layout is contiguous is read or written in place from its true lower
 * bound; any other goes through a staging buffer, packed by the root
 * before it arms, unpacked by the others once the call is done. */
typedef struct {
    char *buf;           /* NULL: no staging */
    void *user;          /* the caller's buffer */
    ompi_datatype_t *dt; /* retained while staged */
    size_t count, bytes;
    bool root;
} hc_ol_stage_t;

typedef struct hc_ol_req {
    /* (an nbc request: Open MPI's nonblocking bindings retain derived
     * datatypes in its fields, ompi_coll_base_retain_datatypes) */
    ompi_coll_base_nbc_request_t super;
    hc_offload_t *ol;
    mca_coll_hiercoll_module_t *m;
    ompi_communicator_t *comm;
    hct_prog_t prog;
    const void *input;
    void *output;
    hct_port_t *port;
    hcf_port_t *fport; /* ofi: the armed port instead of port */
    bool ofi;          /* ofi: the program fits the budget */
    uint16_t pbase, gen;
    int pslot; /* persistent: its slot in ol->plive */
    bool persistent, active;
    opal_list_item_t item; /* in ol.active */
    hc_ol_stage_t stage;   /* bcast of a non-contiguous datatype */
} hc_ol_req_t;

/* A send of the progress transport in flight.  Each is allocated once and
 * never moves (the packet is the send's buffer while the PML holds it);
 * the table of them may grow. */
typedef struct send_slot {
    ompi_request_t *req;
    hct_pkt_t pkt;
} send_slot_t;

static struct {
    hc_ol_engine_t prog; /* the progress transport's engine */
    opal_list_t active;  /* hc_ol_req_t in flight */
    opal_list_t chans;   /* hc_offload_t on the progress transport */
    bool lists_up, progress_registered;
    volatile int32_t nactive;
    send_slot_t **slots;
    int nslots, slots_busy;
    bool in_progress, reaping;
    /* the plugins' tables, once a communicator opened on them */
    const hc_ol_transport_t *ucx, *ofi;
} ol;

#define ITEM_OF(p, type, field) ((type *) ((char *) (p) -offsetof(type, field)))

/* ------------------------------------------------------------------ */
/* Parameters                                                           */
/* ------------------------------------------------------------------ */

/* hct_shape_t, -1 for auto, -2 for neither */
static int tree_of(const char *t)
{
    return 0 == strcmp(t, "knomial") ? HCT_KNOMIAL
           : 0 == strcmp(t, "kary")  ? HCT_KARY
           : 0 == strcmp(t, "auto")  ? -1
                                     : -2;
}

void mca_coll_hiercoll_offload_params(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    const char *b = prm->offload_backend_param ? prm->offload_backend_param : "auto";
    if (0 == strcmp(b, "auto")) {
        prm->offload_backend = HC_OL_AUTO;
    } else if (0 == strcmp(b, "ucx")) {
        prm->offload_backend = HC_OL_UCX;
    } else if (0 == strcmp(b, "progress")) {
        prm->offload_backend = HC_OL_PROGRESS;
    } else if (0 == strcmp(b, "ofi")) {
        prm->offload_backend = HC_OL_OFI;
    } else {
        mca_coll_hiercoll_param_error("coll_hiercoll_offload_backend=\"%s\" is not one of ofi, "
                                      "ucx, progress, auto; using auto",
                                      b);
        prm->offload_backend = HC_OL_AUTO;
    }
    const char *t = prm->offload_tree_param ? prm->offload_tree_param : "auto";
    prm->offload_tree = tree_of(t);
    if (-2 == prm->offload_tree) {
        mca_coll_hiercoll_param_error("coll_hiercoll_offload_tree=\"%s\" is not knomial, kary or "
                                      "auto; using auto",
                                      t);
        prm->offload_tree = -1;
    }
    if (0 != prm->offload_radix && 2 != prm->offload_radix && 4 != prm->offload_radix
        && 8 != prm->offload_radix) {
        mca_coll_hiercoll_param_error("coll_hiercoll_offload_radix=%d is not 2, 4, 8 or 0 (auto); "
                                      "using 0",
                                      prm->offload_radix);
        prm->offload_radix = 0;
    }
}

/* The communicator's info keys hiercoll_offload_backend, _tree, _radix
 * (read at its first offloaded call; every rank must pass the same). */
static void read_info(hc_offload_t *o)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    o->backend = prm->offload_backend;
    o->tree = prm->offload_tree;
    o->radix = prm->offload_radix;
    opal_info_t *info = o->comm->super.s_info;
    char val[64];
    int flag = 0;
    if (NULL == info) {
        return;
    }
    if (OPAL_SUCCESS == hc_info_get(info, "hiercoll_offload_backend", val, sizeof(val), &flag)
        && flag) {
        o->backend = 0 == strcmp(val, "ucx")        ? HC_OL_UCX
                     : 0 == strcmp(val, "progress") ? HC_OL_PROGRESS
                     : 0 == strcmp(val, "ofi")      ? HC_OL_OFI
                                                    : HC_OL_AUTO;
    }
    if (OPAL_SUCCESS == hc_info_get(info, "hiercoll_offload_tree", val, sizeof(val), &flag)
        && flag) {
        int s = tree_of(val);
        o->tree = -2 == s ? o->tree : s;
    }
    if (OPAL_SUCCESS == hc_info_get(info, "hiercoll_offload_radix", val, sizeof(val), &flag)
        && flag) {
        int k = 0 == strcmp(val, "auto") ? 0 : atoi(val);
        o->radix = (0 == k || 2 == k || 4 == k || 8 == k) ? k : o->radix;
    }
}

static void log_trees(const hc_offload_t *o, int n)
{
    static const char *names[] = {"knomial", "kary"};
    if (0 != ompi_comm_rank(o->comm)) {
        return;
    }
    int as = o->tree, ak = o->radix, rs = o->tree, rk = o->radix;
    hct_tree_auto(0, n, &as, &ak);
    hct_tree_auto(1, n, &rs, &rk);
    mca_coll_hiercoll_log(1,
                          "%s: offload trees at np %d%s: allreduce, bcast, barrier %s K=%d; "
                          "reduce %s K=%d",
                          o->comm->c_name, n, o->tree < 0 || o->radix <= 0 ? " (auto)" : "",
                          names[as], ak, names[rs], rk);
}

/* ------------------------------------------------------------------ */
/* What the ALU takes                                                   */
/* ------------------------------------------------------------------ */

static int op_of(ompi_op_t *op)
{
    static const struct {
        ompi_predefined_op_t *op;
        hct_op_t h;
    } ops[] = {
        {&ompi_mpi_op_sum, HCT_SUM},   {&ompi_mpi_op_max, HCT_MAX},   {&ompi_mpi_op_min, HCT_MIN},
        {&ompi_mpi_op_land, HCT_LAND}, {&ompi_mpi_op_band, HCT_BAND}, {&ompi_mpi_op_lor, HCT_LOR},
        {&ompi_mpi_op_bor, HCT_BOR},   {&ompi_mpi_op_lxor, HCT_LXOR}, {&ompi_mpi_op_bxor, HCT_BXOR},
    };
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); ++i) {
        if (op == &ops[i].op->op) {
            return ops[i].h;
        }
    }
    return -1; /* MAXLOC/MINLOC, PROD, REPLACE, user ops */
}

static int type_of(ompi_datatype_t *dt)
{
    if (NULL == dt || !ompi_datatype_is_predefined(dt) || dt->id >= OMPI_DATATYPE_MAX_PREDEFINED) {
        return -1;
    }
    size_t size;
    ompi_datatype_type_size(dt, &size);
    int id = ompi_op_ddt_map[dt->id];
    int sgn;
    switch (id) {
    case OMPI_OP_BASE_TYPE_INT8_T:
        return HCT_INT8;
    case OMPI_OP_BASE_TYPE_UINT8_T:
        return HCT_UINT8;
    case OMPI_OP_BASE_TYPE_INT16_T:
        return HCT_INT16;
    case OMPI_OP_BASE_TYPE_UINT16_T:
        return HCT_UINT16;
    case OMPI_OP_BASE_TYPE_INT32_T:
        return HCT_INT32;
    case OMPI_OP_BASE_TYPE_UINT32_T:
        return HCT_UINT32;
    case OMPI_OP_BASE_TYPE_INT64_T:
        return HCT_INT64;
    case OMPI_OP_BASE_TYPE_UINT64_T:
        return HCT_UINT64;
    case OMPI_OP_BASE_TYPE_LONG:
        sgn = 1;
        break;
    case OMPI_OP_BASE_TYPE_UNSIGNED_LONG:
        sgn = 0;
        break;
    case OMPI_OP_BASE_TYPE_FLOAT:
        return sizeof(float) == size ? HCT_FLOAT : -1;
    case OMPI_OP_BASE_TYPE_DOUBLE:
        return sizeof(double) == size ? HCT_DOUBLE : -1;
    case OMPI_OP_BASE_TYPE_LONG_DOUBLE:
        return sizeof(long double) == size ? HCT_LONG_DOUBLE : -1;
    case OMPI_OP_BASE_TYPE_BOOL:
        return sizeof(_Bool) == size ? HCT_BOOL : -1;
    default:
        return -1; /* Fortran, complex, pair types, byte, wchar */
    }
    if (8 == size) {
        return sgn ? HCT_INT64 : HCT_UINT64;
    }
    return 4 == size ? (sgn ? HCT_INT32 : HCT_UINT32) : -1;
}

static bool persistent_slot(const hc_call_t *c);

static bool usable(const hc_call_t *c)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    if ((HC_ALLREDUCE != c->coll && HC_REDUCE != c->coll && HC_BCAST != c->coll
         && HC_BARRIER != c->coll)
        || OMPI_COMM_IS_INTER(c->comm)) {
        return false;
    }
    /* Not under MPI_THREAD_MULTIPLE (asked alike on every rank): the
     * process-wide state (active list, send slots, progress flag) has no
     * lock, and a communicator's first call opens its channel with
     * blocking collectives, which deadlock there when that call comes from
     * inside progress (Open MPI's context-id iallreduce of a split or dup
     * of the communicator: the nested wait never progresses) */
    if (ompi_mpi_thread_multiple) {
        return false;
    }
    if (NULL != c->module->offload && 0 == c->module->offload->kind) {
        return false; /* opening: the wire-up's own collectives */
    }
    if (HC_BARRIER == c->coll) {
        return hc_comm_cid(c->comm) <= 0xffff && c->size <= 0xffff;
    }
    /* bcast: bytes of any datatype (hc_ol_stage_t).  The answer must be the
     * same on every rank: it depends on the bytes only, which a bcast's
     * ranks agree on whatever datatypes they pass. */
    if (HC_BCAST == c->coll) {
        size_t es = 0;
        if (NULL == c->rtype) {
            return false;
        }
        ompi_datatype_type_size(c->rtype, &es);
        size_t bytes = (size_t) c->rcount * es;
        return c->rcount >= 0 && bytes <= prm->offload_max_bytes
               && (bytes + HCT_PAYLOAD - 1) / HCT_PAYLOAD < 0xffff && hc_comm_cid(c->comm) <= 0xffff
               && c->size <= 0xffff;
    }
    int op = op_of(c->op), type = type_of(c->rtype);
    if (op < 0 || type < 0 || !hct_alu_supports((hct_op_t) op, (hct_type_t) type)) {
        return false;
    }
    size_t bytes = (size_t) c->rcount * hct_type_size((hct_type_t) type);
    size_t per = HCT_PAYLOAD / hct_type_size((hct_type_t) type);
    /* packet counters must fit the header's 16 bits, channels the cid */
    return c->rcount >= 0 && bytes <= prm->offload_max_bytes
           && ((size_t) c->rcount + per - 1) / per * 2 < 0xffff && hc_comm_cid(c->comm) <= 0xffff
           && c->size <= 0xffff;
}

/* A persistent init's slot.  The n-th init on a communicator takes slot n
 * while n < HC_OL_NPERS: the same on every rank, for persistent
 * collectives are initialized in the same order everywhere.  After that,
 * a slot free on every rank, agreed as the AND of each rank's free slots
 * (a request's slot is free on a rank once that rank freed it, and then
 * every packet to that rank for it has arrived).  With none free the init
 * takes the next algorithm, never a port another request still uses. */
static bool persistent_slot(const hc_call_t *c)
{
    hc_offload_t *o = c->module->offload;
    if (HC_PERSISTENT != c->mode || NULL == o || o->npersistent < HC_OL_NPERS) {
        return true;
    }
    uint64_t mine = 0;
    for (int i = 0; i < HC_OL_NPERS; ++i) {
        mine |= NULL == o->plive[i] ? (uint64_t) 1 << i : 0;
    }
    int rc;
    uint64_t all = mca_coll_hiercoll_offload_agree(c->module, mine, &rc);
    if (0 == all) {
        if (0 == c->rank) {
            mca_coll_hiercoll_log(1,
                                  "%s: offload: %d persistent offloaded requests alive; this "
                                  "persistent init takes the next algorithm (%d so far)",
                                  c->comm->c_name, HC_OL_NPERS, ++o->pnext);
        }
        return false;
    }
    o->pslot = __builtin_ctzll(all);
    return true;
}

bool mca_coll_hiercoll_offload_usable(const hc_call_t *c)
{
    return usable(c) && persistent_slot(c);
}

/* ------------------------------------------------------------------ */
/* The progress transport                                               */
/* ------------------------------------------------------------------ */

static void post_recv(hc_offload_t *o, int i)
{
    o->rreq[i] = NULL;
    (void) MCA_PML_CALL(irecv(&o->rbuf[i], sizeof(hct_pkt_t), MPI_BYTE, MPI_ANY_SOURCE, HC_OL_TAG,
                              o->comm, &o->rreq[i]));
}

static int progress_send(void *ctx, hct_chan_t *chan, int rank, const hct_pkt_t *pkt)
{
    (void) ctx;
    hc_offload_t *o = hct_chan_user(chan);
    int i = 0;
    for (; i < ol.nslots && NULL != ol.slots[i]->req; ++i) {
    }
    if (i == ol.nslots) {
        int n = ol.nslots ? 2 * ol.nslots : 64;
        send_slot_t **t = realloc(ol.slots, (size_t) n * sizeof(*t));
        if (NULL == t) {
            return -1;
        }
        ol.slots = t;
        for (; ol.nslots < n; ++ol.nslots) {
            if (NULL == (t[ol.nslots] = calloc(1, sizeof(send_slot_t)))) {
                return -1;
            }
        }
    }
    send_slot_t *sl = ol.slots[i];
    sl->pkt = *pkt;
    int rc = MCA_PML_CALL(isend(&sl->pkt, sizeof(hct_pkt_t), MPI_BYTE, rank, HC_OL_TAG,
                                MCA_PML_BASE_SEND_STANDARD, o->comm, &sl->req));
    if (OMPI_SUCCESS != rc) {
        sl->req = NULL;
        return -1;
    }
    ol.slots_busy++;
    return 0;
}

/* Not re-entered: a wait here runs Open MPI's progress, whose callback
 * reaps too, and would free the request being waited on.  A slot stays
 * taken (req set) until its wait returns, so no new send reuses its
 * packet meanwhile. */
static void reap_sends(bool wait)
{
    if (ol.reaping) {
        return;
    }
    ol.reaping = true;
    for (int i = 0; i < ol.nslots && ol.slots_busy > 0; ++i) {
        send_slot_t *sl = ol.slots[i]; /* (the table may grow during a wait) */
        if (NULL != sl->req && (wait || REQUEST_COMPLETE(sl->req))) {
            ompi_request_t *r = sl->req;
            if (wait) {
                ompi_request_wait(&r, MPI_STATUS_IGNORE);
            } else {
                ompi_request_free(&r);
            }
            sl->req = NULL;
            ol.slots_busy--;
        }
    }
    ol.reaping = false;
}

/* Deliver what the posted receives got. */
static int poll_progress_chans(void)
{
    int n = 0;
    opal_list_item_t *it;
    for (it = opal_list_get_first(&ol.chans); it != opal_list_get_end(&ol.chans);
         it = opal_list_get_next(it)) {
        hc_offload_t *o = ITEM_OF(it, hc_offload_t, item);
        for (int i = 0; i < HC_OL_NRECV; ++i) {
            if (NULL == o->rreq[i] || !REQUEST_COMPLETE(o->rreq[i])) {
                continue;
            }
            int src = o->rreq[i]->req_status.MPI_SOURCE;
            hct_pkt_t pkt = o->rbuf[i];
            ompi_request_free(&o->rreq[i]);
            post_recv(o, i);
            pthread_mutex_lock(&ol.prog.lock);
            hct_deliver(ol.prog.e, src, &pkt);
            pthread_mutex_unlock(&ol.prog.lock);
            ++n;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Requests and progress                                                */
/* ------------------------------------------------------------------ */

static bool port_finished(hc_offload_t *o, hct_port_t *port)
{
    pthread_mutex_lock(&o->eng->lock);
    bool done = hct_port_done(port) && 0 == hct_chan_backlog(o->chan);
    if (done) {
        hct_disarm(port);
    }
    pthread_mutex_unlock(&o->eng->lock);
    return done;
}

static void stage_move(hc_ol_stage_t *st, bool pack);

static void complete_req(hc_ol_req_t *r)
{
    if (NULL != r->stage.buf && !r->stage.root
        && OMPI_SUCCESS == r->super.super.req_status.MPI_ERROR) {
        stage_move(&r->stage, false);
    }
    r->active = false;
    r->port = NULL;
    r->fport = NULL;
    ompi_request_complete(&r->super.super, true); /* MPI_ERROR: set at begin, or by req_finished */
}

/* Is a request's port done (and disarmed)?  An ofi port that failed
 * completes the request with an error. */
static bool req_finished(hc_ol_req_t *r)
{
#if HIERCOLL_HAVE_OFI
    if (NULL != r->fport) {
        int d = ol.ofi->ofi_finished(r->fport);
        if (d < 0) {
            r->super.super.req_status.MPI_ERROR = OMPI_ERROR;
        }
        return 0 != d;
    }
#endif
    return port_finished(r->ol, r->port);
}

#if HIERCOLL_HAVE_UCX
/* Whether the caller is in a waiting loop (MPI_Wait, or MPI_Test in a
 * tight loop): progress calls that follow each other within a few
 * microseconds, many times.  A single progress call (inside another MPI
 * call, or an MPI_Test between chunks of computation) leaves the agent
 * alone: the caller is about to go back to its computation. */
static bool waiting(void)
{
    static struct timespec last;
    static int streak;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long gap = (now.tv_sec - last.tv_sec) * 1000000000L + (now.tv_nsec - last.tv_nsec);
    last = now;
    streak = gap < 3000 ? streak + 1 : 0;
    return streak >= 8;
}
#endif

static int offload_progress(void)
{
    int n = 0;
    if (ol.in_progress) {
        return 0;
    }
    ol.in_progress = true;
    if (ol.slots_busy > 0) {
        reap_sends(false);
    }
    if (!opal_list_is_empty(&ol.chans)) {
        n += poll_progress_chans();
    }
#if HIERCOLL_HAVE_UCX
    if (ol.nactive > 0 && NULL != ol.ucx && mca_coll_hiercoll_params.offload_wait_progress
        && waiting()) {
        n += ol.ucx->ucx_help(); /* MPI_Wait on an offloaded request */
    }
#endif
    if (ol.nactive > 0) {
        opal_list_item_t *it, *next;
        for (it = opal_list_get_first(&ol.active); it != opal_list_get_end(&ol.active); it = next) {
            next = opal_list_get_next(it);
            hc_ol_req_t *r = ITEM_OF(it, hc_ol_req_t, item);
            if (req_finished(r)) {
                opal_list_remove_item(&ol.active, it);
                ol.nactive--;
                complete_req(r);
                ++n;
            }
        }
    }
    ol.in_progress = false;
    return n;
}

static void lists_up(void)
{
    if (!ol.lists_up) {
        OBJ_CONSTRUCT(&ol.active, opal_list_t);
        OBJ_CONSTRUCT(&ol.chans, opal_list_t);
        ol.lists_up = true;
    }
    if (!ol.progress_registered) {
        opal_progress_register(offload_progress);
        ol.progress_registered = true;
    }
}

/* ------------------------------------------------------------------ */
/* Channels                                                             */
/* ------------------------------------------------------------------ */

static int engine_up(hc_ol_engine_t *eng, hct_backend_t *be)
{
    if (eng->up) {
        return OMPI_SUCCESS;
    }
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    hct_engine_config_t cfg = {.mpq_packets = prm->offload_mpq, .credits = prm->offload_credits};
    eng->e = hct_engine_new(&cfg, be);
    if (NULL == eng->e) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    pthread_mutex_init(&eng->lock, NULL);
    eng->up = true;
    return OMPI_SUCCESS;
}

/* The communicator's offload state, its channel opened at the first call
 * (collective: every rank of the communicator makes that call). */
static hc_offload_t *offload_of(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    hc_offload_t *o = m->offload;
    if (NULL != o) {
        return o->kind > 0 ? o : NULL;
    }
    o = calloc(1, sizeof(*o));
    if (NULL == o) {
        return NULL;
    }
    m->offload = o;
    o->m = m;
    o->comm = comm;
    hct_prog_init(&o->prog);
    OBJ_CONSTRUCT(&o->item, opal_list_item_t);
    lists_up();
    read_info(o);
    log_trees(o, ompi_comm_size(comm));
    int want = o->backend;
    bool ofi = false;
#if HIERCOLL_HAVE_OFI
    /* ofi first where asked or auto; it keeps a progress channel for the
     * calls that do not fit the provider's budget */
    if ((HC_OL_OFI == want || HC_OL_AUTO == want) && ompi_comm_size(comm) > 1) {
        const hc_ol_transport_t *t = mca_coll_hiercoll_transport_agreed(m, HC_OL_T_OFI);
        ofi = NULL != t && OMPI_SUCCESS == t->ofi_open(m, &o->fchan, HC_OL_AUTO == want);
        ol.ofi = ofi ? t : ol.ofi;
    }
#else
    if (HC_OL_OFI == want && 0 == ompi_comm_rank(comm)) {
        mca_coll_hiercoll_log(1, "offload: built without libfabric, no ofi backend");
    }
#endif
#if HIERCOLL_HAVE_UCX
    if (!ofi && HC_OL_PROGRESS != want && ompi_comm_size(comm) > 1) {
        const hc_ol_transport_t *t = mca_coll_hiercoll_transport_agreed(m, HC_OL_T_UCX);
        if (NULL != t && OMPI_SUCCESS == t->ucx_open(m, &o->chan, &o->eng, HC_OL_AUTO == want)) {
            ol.ucx = t;
            o->kind = HC_OL_UCX;
            return o;
        }
        mca_coll_hiercoll_log(1,
                              "%s: offload: UCX agent unavailable, using the progress "
                              "transport",
                              comm->c_name);
    }
#else
    if (HC_OL_UCX == want && 0 == ompi_comm_rank(comm)) {
        mca_coll_hiercoll_log(1, "offload: built without UCX, using the progress transport");
    }
#endif
    hct_backend_t be = {.ctx = NULL, .send = progress_send};
    if (OMPI_SUCCESS != engine_up(&ol.prog, &be)) {
        o->kind = -1;
        return NULL;
    }
    pthread_mutex_lock(&ol.prog.lock);
    o->chan = hct_chan_open(ol.prog.e, (uint16_t) hc_comm_cid(comm), ompi_comm_size(comm),
                            ompi_comm_rank(comm), o);
    pthread_mutex_unlock(&ol.prog.lock);
    if (NULL == o->chan) {
        o->kind = -1;
        return NULL;
    }
    o->eng = &ol.prog;
    o->kind = ofi ? HC_OL_OFI : HC_OL_PROGRESS;
    for (int i = 0; i < HC_OL_NRECV; ++i) {
        post_recv(o, i);
    }
    opal_list_append(&ol.chans, &o->item);
    mca_coll_hiercoll_log(1, "%s: offload on the progress transport", comm->c_name);
    return o;
}

void mca_coll_hiercoll_offload_free(mca_coll_hiercoll_module_t *m)
{
    hc_offload_t *o = m->offload;
    if (NULL == o) {
        return;
    }
    m->offload = NULL;
#if HIERCOLL_HAVE_OFI
    if (HC_OL_OFI == o->kind) {
        ol.ofi->ofi_close(o->fchan);
    }
#endif
    if (HC_OL_PROGRESS == o->kind || HC_OL_OFI == o->kind) {
        opal_list_remove_item(&ol.chans, &o->item);
        for (int i = 0; i < HC_OL_NRECV; ++i) {
            if (NULL != o->rreq[i]) {
                ompi_request_cancel(o->rreq[i]);
                ompi_request_wait(&o->rreq[i], MPI_STATUS_IGNORE);
            }
        }
        reap_sends(true);
        pthread_mutex_lock(&ol.prog.lock);
        hct_chan_close(o->chan);
        pthread_mutex_unlock(&ol.prog.lock);
    }
#if HIERCOLL_HAVE_UCX
    if (HC_OL_UCX == o->kind) {
        ol.ucx->ucx_close(o->chan);
    }
#endif
    OBJ_DESTRUCT(&o->item);
    hct_prog_fini(&o->prog);
    free(o);
}

void mca_coll_hiercoll_offload_fini(void)
{
    if (NULL != mca_coll_hiercoll_transport_loaded(HC_OL_T_OFI)) {
        mca_coll_hiercoll_transport_loaded(HC_OL_T_OFI)->fini();
    }
    if (NULL != mca_coll_hiercoll_transport_loaded(HC_OL_T_UCX)) {
        mca_coll_hiercoll_transport_loaded(HC_OL_T_UCX)->fini();
    }
    if (ol.progress_registered) {
        opal_progress_unregister(offload_progress);
        ol.progress_registered = false;
    }
    if (ol.prog.up) {
        hct_engine_free(ol.prog.e);
        pthread_mutex_destroy(&ol.prog.lock);
        ol.prog.up = false;
    }
    if (ol.lists_up) {
        OBJ_DESTRUCT(&ol.active);
        OBJ_DESTRUCT(&ol.chans);
        ol.lists_up = false;
    }
    for (int i = 0; i < ol.nslots; ++i) {
        free(ol.slots[i]);
    }
    free(ol.slots);
    ol.slots = NULL;
    ol.nslots = ol.slots_busy = 0;
}

/* ------------------------------------------------------------------ */
/* Calls                                                                */
/* ------------------------------------------------------------------ */

static int plan_rank(const hc_offload_t *o, hct_prog_t *p, const hc_call_t *c, int rank)
{
    hct_op_t op = (hct_op_t) op_of(c->op);
    hct_type_t type = (hct_type_t) type_of(c->rtype);
    int shape = o->tree, k = o->radix;
    hct_tree_auto(HC_REDUCE == c->coll, c->size, &shape, &k);
    if (HC_BCAST == c->coll || HC_BARRIER == c->coll) {
        size_t es = 0;
        if (HC_BCAST == c->coll) {
            ompi_datatype_type_size(c->rtype, &es);
        }
        int rc = HC_BCAST == c->coll ? hct_plan_bcast(p, (hct_shape_t) shape, k, c->size, rank,
                                                      c->root, (size_t) c->rcount * es)
                                     : hct_plan_barrier(p, (hct_shape_t) shape, k, c->size, rank);
        return 0 == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
    }
    int rc = HC_ALLREDUCE == c->coll ? hct_plan_allreduce(p, (hct_shape_t) shape, k, c->size, rank,
                                                          0, op, type, (size_t) c->rcount)
                                     : hct_plan_reduce(p, (hct_shape_t) shape, k, c->size, rank,
                                                       c->root, op, type, (size_t) c->rcount);
    return 0 == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

static int plan(const hc_offload_t *o, hct_prog_t *p, const hc_call_t *c)
{
    return plan_rank(o, p, c, c->rank);
}

/* ofi: does this call fit the provider's budget?  Decided on the root's
 * program (the most children), so every rank gives the same answer. */
static bool ofi_fits(hc_offload_t *o, const hc_call_t *c)
{
#if HIERCOLL_HAVE_OFI
    if (HC_OL_OFI == o->kind) {
        hct_prog_t rp;
        hct_prog_init(&rp);
        bool fits =
            OMPI_SUCCESS
                == plan_rank(o, &rp, c, HC_REDUCE == c->coll || HC_BCAST == c->coll ? c->root : 0)
            && ol.ofi->ofi_fits(o->fchan, &rp);
        hct_prog_fini(&rp);
        if (!fits) {
            mca_coll_hiercoll_log(2,
                                  "%s: offload: %d elements do not fit the ofi budget: "
                                  "progress transport",
                                  c->comm->c_name, c->rcount);
        }
        return fits;
    }
#endif
    (void) o;
    (void) c;
    return false;
}

/* The input and output vectors of this rank. */
static void vectors(const hc_call_t *c, const void **in, void **out)
{
    bool result = HC_ALLREDUCE == c->coll || c->rank == c->root;
    *in = c->in_place ? c->rbuf : c->sbuf;
    *out = result ? c->rbuf : NULL;
    if (HC_BCAST == c->coll) { /* the root's buffer is the input, the others' the output */
        *in = c->rank == c->root ? c->rbuf : NULL;
        *out = c->rank == c->root ? NULL : c->rbuf;
    } else if (HC_BARRIER == c->coll) {
        *in = *out = NULL;
    }
}

/* The whole of a staged buffer through the convertor. */
static void stage_move(hc_ol_stage_t *st, bool pack)
{
    opal_convertor_t cv;
    OBJ_CONSTRUCT(&cv, opal_convertor_t);
    if (pack) {
        opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &st->dt->super,
                                                 st->count, st->user, 0, &cv);
    } else {
        opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &st->dt->super,
                                                 st->count, st->user, 0, &cv);
    }
    struct iovec iov = {.iov_base = st->buf, .iov_len = st->bytes};
    uint32_t n = 1;
    size_t max = st->bytes;
    if (pack) {
        (void) opal_convertor_pack(&cv, &iov, &n, &max);
    } else {
        (void) opal_convertor_unpack(&cv, &iov, &n, &max);
    }
    OBJ_DESTRUCT(&cv);
}

/* The vectors the engine reads and writes for this call: the caller's, or
 * (a bcast of a non-contiguous datatype) a staging buffer in st. */
static int stage_vectors(const hc_call_t *c, hc_ol_stage_t *st, const void **in, void **out)
{
    memset(st, 0, sizeof(*st));
    vectors(c, in, out);
    if (HC_BCAST != c->coll || c->rcount <= 0) {
        return OMPI_SUCCESS;
    }
    if (ompi_datatype_is_contiguous_memory_layout(c->rtype, c->rcount)) {
        ptrdiff_t lb = 0, ext = 0;
        ompi_datatype_get_true_extent(c->rtype, &lb, &ext);
        if (NULL != *in) {
            *in = (const char *) *in + lb;
        }
        if (NULL != *out) {
            *out = (char *) *out + lb;
        }
        return OMPI_SUCCESS;
    }
    size_t es = 0;
    ompi_datatype_type_size(c->rtype, &es);
    st->bytes = es * (size_t) c->rcount;
    st->buf = malloc(st->bytes ? st->bytes : 1);
    if (NULL == st->buf) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    st->user = c->rbuf;
    st->dt = c->rtype;
    OBJ_RETAIN(st->dt);
    st->count = (size_t) c->rcount;
    st->root = c->rank == c->root;
    if (st->root) {
        *in = st->buf;
    } else {
        *out = st->buf;
    }
    return OMPI_SUCCESS;
}

static void stage_fini(hc_ol_stage_t *st)
{
    if (NULL != st->buf) {
        free(st->buf);
        OBJ_RELEASE(st->dt);
        st->buf = NULL;
    }
}

/* post: send what the arm fired on the UCX worker (not when the caller
 * drives the worker itself right after). */
static hct_port_t *arm(hc_offload_t *o, uint16_t seq, const hct_prog_t *p, const void *in,
                       void *out, bool post)
{
    pthread_mutex_lock(&o->eng->lock);
    hct_port_t *port = hct_arm(o->chan, seq, p, in, out);
    pthread_mutex_unlock(&o->eng->lock);
#if HIERCOLL_HAVE_UCX
    if (HC_OL_UCX == o->kind && post) {
        ol.ucx->ucx_post();
    }
#else
    (void) post;
#endif
    return port;
}

static uint16_t next_seq(hc_offload_t *o)
{
    uint16_t s = o->seq;
    o->seq = (uint16_t) ((o->seq + 1) % HC_OL_PERSISTENT);
    return s;
}

static int run_armed(hc_offload_t *o, const void *in, void *out);

static int run_blocking(hc_offload_t *o, const hc_call_t *c)
{
    hct_op_t op = (hct_op_t) op_of(c->op);
    hct_type_t type = (hct_type_t) type_of(c->rtype);
    int root = HC_REDUCE == c->coll || HC_BCAST == c->coll ? c->root : 0;
    size_t es = 1; /* bcast: the key counts bytes (any predefined type) */
    if (HC_BCAST == c->coll) {
        ompi_datatype_type_size(c->rtype, &es);
    }
    size_t kcount = (size_t) c->rcount * es;
    if (!o->prog_valid || o->key_coll != (int) c->coll || o->key_root != root
        || o->key_count != kcount || o->key_op != op || o->key_type != type) {
        o->prog_valid = false;
        int rc = plan(o, &o->prog, c);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        o->prog_valid = true;
        o->prog_ofi = ofi_fits(o, c);
        o->key_coll = (int) c->coll;
        o->key_root = root;
        o->key_count = kcount;
        o->key_op = op;
        o->key_type = type;
    }
    const void *in;
    void *out;
    hc_ol_stage_t st;
    int src = stage_vectors(c, &st, &in, &out);
    if (OMPI_SUCCESS != src) {
        return src;
    }
    if (NULL != st.buf && st.root) {
        stage_move(&st, true);
    }
    int rc = run_armed(o, in, out);
    if (OMPI_SUCCESS == rc && NULL != st.buf && !st.root) {
        stage_move(&st, false);
    }
    stage_fini(&st);
    return rc;
}

/* A blocking call's program armed on in/out, waited for. */
static int run_armed(hc_offload_t *o, const void *in, void *out)
{
#if HIERCOLL_HAVE_OFI
    if (o->prog_ofi) {
        hcf_port_t *fp = ol.ofi->ofi_arm(o->fchan, next_seq(o), &o->prog, in, out);
        int d = 0;
        while (NULL != fp && 0 == (d = ol.ofi->ofi_finished(fp))) {
            opal_progress();
        }
        return NULL != fp && d > 0 ? OMPI_SUCCESS : OMPI_ERROR;
    }
#endif
    bool helps = mca_coll_hiercoll_params.offload_wait_progress;
#if HIERCOLL_HAVE_UCX
    if (HC_OL_UCX == o->kind && helps) {
        (void) ol.ucx->ucx_help(); /* park the agent before arming */
    }
#endif
    hct_port_t *port = arm(o, next_seq(o), &o->prog, in, out, !helps);
    if (NULL == port) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    while (!port_finished(o, port)) {
#if HIERCOLL_HAVE_UCX
        if (HC_OL_UCX == o->kind) {
            if (mca_coll_hiercoll_params.offload_wait_progress) {
                (void) ol.ucx->ucx_help();
            } else {
                sched_yield(); /* the agent fires the chains: let it run */
            }
        }
#endif
        opal_progress();
    }
    return OMPI_SUCCESS;
}

static int req_free(ompi_request_t **rp)
{
    hc_ol_req_t *r = (hc_ol_req_t *) *rp;
    if (r->active) {
        return MPI_ERR_REQUEST; /* freed while running: not allowed for collectives */
    }
    if (r->persistent && r->ol->plive[r->pslot] == r) {
        r->ol->plive[r->pslot] = NULL;
    }
    hct_prog_fini(&r->prog);
    stage_fini(&r->stage);
    OBJ_DESTRUCT(&r->item);
    OBJ_RELEASE(r->m);
    OBJ_RELEASE(r->comm);
    mca_coll_hiercoll_req_unmake(&r->super);
    free(r);
    *rp = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static int req_begin(hc_ol_req_t *r, uint16_t seq)
{
    mca_coll_hiercoll_req_arm(&r->super.super);
    if (NULL != r->stage.buf && r->stage.root) {
        stage_move(&r->stage, true); /* (at every start: the data may have changed) */
    }
#if HIERCOLL_HAVE_OFI
    if (r->ofi) {
        r->fport = ol.ofi->ofi_arm(r->ol->fchan, seq, &r->prog, r->input, r->output);
    } else
#endif
        r->port = arm(r->ol, seq, &r->prog, r->input, r->output, true);
    if (NULL == r->port && NULL == r->fport) {
        r->super.super.req_status.MPI_ERROR = OMPI_ERR_OUT_OF_RESOURCE;
        ompi_request_complete(&r->super.super, true);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    r->active = true;
    if (req_finished(r)) {
        complete_req(r);
        return OMPI_SUCCESS;
    }
    opal_list_append(&ol.active, &r->item);
    ol.nactive++;
    return OMPI_SUCCESS;
}

static int req_start(size_t count, ompi_request_t **reqs)
{
    for (size_t i = 0; i < count; ++i) {
        hc_ol_req_t *r = (hc_ol_req_t *) reqs[i];
        if (r->active) {
            return MPI_ERR_REQUEST;
        }
        uint16_t seq = (uint16_t) (r->pbase | (r->gen & 0xff));
        r->gen++;
        int rc = req_begin(r, seq);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_hiercoll_offload_start(hc_call_t *c, ompi_request_t **request,
                                    struct ompi_info_t *info)
{
    (void) info;
    hc_offload_t *o = offload_of(c->module, c->comm);
    if (NULL == o) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (HC_BLOCKING == c->mode) {
        return run_blocking(o, c);
    }
    hc_ol_req_t *r = calloc(1, sizeof(*r));
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OBJ_CONSTRUCT(&r->item, opal_list_item_t);
    bool persistent = HC_PERSISTENT == c->mode;
    mca_coll_hiercoll_req_make(&r->super, c->comm, persistent, req_free, req_start);
    r->ol = o;
    r->m = c->module;
    r->comm = c->comm;
    OBJ_RETAIN(r->m);
    OBJ_RETAIN(r->comm);
    r->persistent = persistent;
    hct_prog_init(&r->prog);
    int rc = stage_vectors(c, &r->stage, &r->input, &r->output);
    if (OMPI_SUCCESS == rc) {
        rc = plan(o, &r->prog, c);
    }
    r->ofi = OMPI_SUCCESS == rc && ofi_fits(o, c);
    if (OMPI_SUCCESS != rc) {
        ompi_request_t *rp = &r->super.super;
        req_free(&rp);
        return rc;
    }
    *request = &r->super.super;
    if (persistent) {
        /* fixed at init: persistent collectives match in init order */
        r->pslot = o->npersistent < HC_OL_NPERS ? o->npersistent : o->pslot;
        o->npersistent++;
        o->plive[r->pslot] = r;
        r->pbase = (uint16_t) (HC_OL_PERSISTENT | (r->pslot << 8));
        r->super.super.req_state = OMPI_REQUEST_INACTIVE;
        r->super.super.req_complete = REQUEST_COMPLETED;
        return OMPI_SUCCESS;
    }
    return req_begin(r, next_seq(o));
}
