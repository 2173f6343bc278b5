/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered-operation engine and its ALU.  MPI-free: see
 * coll_hiercoll_trig.h for the model.  The engine takes no lock; the
 * glue serializes hct_arm / hct_deliver / hct_disarm of one engine.
 */
#include "coll_hiercoll_trig.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* ALU                                                                  */
/* ------------------------------------------------------------------ */

size_t hct_type_size(hct_type_t t)
{
    static const size_t sz[HCT_NTYPE] = {
        [HCT_INT8] = 1,
        [HCT_UINT8] = 1,
        [HCT_INT16] = 2,
        [HCT_UINT16] = 2,
        [HCT_INT32] = 4,
        [HCT_UINT32] = 4,
        [HCT_INT64] = 8,
        [HCT_UINT64] = 8,
        [HCT_FLOAT] = sizeof(float),
        [HCT_DOUBLE] = sizeof(double),
        [HCT_LONG_DOUBLE] = sizeof(long double),
        [HCT_BOOL] = sizeof(_Bool),
    };
    return (unsigned) t < HCT_NTYPE ? sz[t] : 0;
}

static bool is_float(hct_type_t t)
{
    return HCT_FLOAT == t || HCT_DOUBLE == t || HCT_LONG_DOUBLE == t;
}

int hct_alu_supports(hct_op_t op, hct_type_t t)
{
    if ((unsigned) t >= HCT_NTYPE || (unsigned) op >= HCT_NOP) {
        return 0;
    }
    if (HCT_BOOL == t) { /* MPI: logical ops only on C_BOOL */
        return HCT_LAND == op || HCT_LOR == op || HCT_LXOR == op;
    }
    if (is_float(t)) { /* MPI: no bitwise or logical ops on floating types */
        return HCT_SUM == op || HCT_MAX == op || HCT_MIN == op;
    }
    return 1;
}

#define ALU_LOOP(T, EXPR)                                                                          \
    do {                                                                                           \
        T *d_ = (T *) dst;                                                                         \
        const T *s_ = (const T *) src;                                                             \
        for (size_t i_ = 0; i_ < count; ++i_) {                                                    \
            T a = d_[i_], b = s_[i_];                                                              \
            d_[i_] = (T) (EXPR);                                                                   \
        }                                                                                          \
    } while (0)

/* SUM, MAX and MIN: every type; the logical ops: integers and bool;
 * the bitwise ops: integers.  Unsupported pairs do nothing (callers ask
 * hct_alu_supports first). */
#define ALU_SUM_MAX_MIN(T)                                                                         \
    case HCT_SUM:                                                                                  \
        ALU_LOOP(T, a + b);                                                                        \
        break;                                                                                     \
    case HCT_MAX:                                                                                  \
        ALU_LOOP(T, a > b ? a : b);                                                                \
        break;                                                                                     \
    case HCT_MIN:                                                                                  \
        ALU_LOOP(T, a < b ? a : b);                                                                \
        break;

#define ALU_INT(T)                                                                                 \
    switch (op) {                                                                                  \
        ALU_SUM_MAX_MIN(T)                                                                         \
    case HCT_LAND:                                                                                 \
        ALU_LOOP(T, a && b);                                                                       \
        break;                                                                                     \
    case HCT_LOR:                                                                                  \
        ALU_LOOP(T, a || b);                                                                       \
        break;                                                                                     \
    case HCT_LXOR:                                                                                 \
        ALU_LOOP(T, !a != !b);                                                                     \
        break;                                                                                     \
    case HCT_BAND:                                                                                 \
        ALU_LOOP(T, a & b);                                                                        \
        break;                                                                                     \
    case HCT_BOR:                                                                                  \
        ALU_LOOP(T, a | b);                                                                        \
        break;                                                                                     \
    case HCT_BXOR:                                                                                 \
        ALU_LOOP(T, a ^ b);                                                                        \
        break;                                                                                     \
    default:                                                                                       \
        break;                                                                                     \
    }

#define ALU_FLOAT(T)                                                                               \
    switch (op) {                                                                                  \
        ALU_SUM_MAX_MIN(T)                                                                         \
    default:                                                                                       \
        break;                                                                                     \
    }

void hct_alu(hct_op_t op, hct_type_t t, void *dst, const void *src, size_t count)
{
    switch (t) {
    case HCT_INT8:
        ALU_INT(int8_t) break;
    case HCT_UINT8:
        ALU_INT(uint8_t) break;
    case HCT_INT16:
        ALU_INT(int16_t) break;
    case HCT_UINT16:
        ALU_INT(uint16_t) break;
    case HCT_INT32:
        ALU_INT(int32_t) break;
    case HCT_UINT32:
        ALU_INT(uint32_t) break;
    case HCT_INT64:
        ALU_INT(int64_t) break;
    case HCT_UINT64:
        ALU_INT(uint64_t) break;
    case HCT_FLOAT:
        ALU_FLOAT(float) break;
    case HCT_DOUBLE:
        ALU_FLOAT(double) break;
    case HCT_LONG_DOUBLE:
        ALU_FLOAT(long double) break;
    case HCT_BOOL:
        switch (op) {
        case HCT_LAND:
            ALU_LOOP(_Bool, a && b);
            break;
        case HCT_LOR:
            ALU_LOOP(_Bool, a || b);
            break;
        case HCT_LXOR:
            ALU_LOOP(_Bool, a != b);
            break;
        default:
            break;
        }
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------ */
/* Programs                                                             */
/* ------------------------------------------------------------------ */

void hct_prog_init(hct_prog_t *p)
{
    memset(p, 0, sizeof(*p));
}

void hct_prog_fini(hct_prog_t *p)
{
    free(p->nslots);
    free(p->chains);
    free(p->descs);
    free(p->targets);
    free(p->inputs);
    memset(p, 0, sizeof(*p));
}

int hct_prog_reset(hct_prog_t *p, hct_op_t op, hct_type_t type, size_t count)
{
    p->nctr = p->nchains = p->ndescs = p->ntargets = p->ninputs = 0;
    p->op = op;
    p->type = type;
    p->count = count;
    p->esize = hct_type_size(type);
    if (0 == p->esize) {
        p->esize = 1;
    }
    p->per_pkt = HCT_PAYLOAD / p->esize;
    p->npkt = count ? (int) ((count + p->per_pkt - 1) / p->per_pkt) : 1;
    p->done_threshold = 0;
    p->depth = 0;
    p->sends_per_pkt = 0;
    return 0;
}

/* Grow an array of elements of size sz to hold one more. */
static int grow(void **arr, int *cap, int n, size_t sz)
{
    if (n < *cap) {
        return 0;
    }
    int c = *cap ? 2 * *cap : 8;
    void *a = realloc(*arr, (size_t) c * sz);
    if (NULL == a) {
        return -1;
    }
    *arr = a;
    *cap = c;
    return 0;
}

int hct_prog_counter(hct_prog_t *p, int nslots)
{
    if (grow((void **) &p->nslots, &p->cap_ctr, p->nctr, sizeof(*p->nslots))) {
        return -1;
    }
    p->nslots[p->nctr] = (uint16_t) nslots;
    return p->nctr++;
}

int hct_prog_chain(hct_prog_t *p, int ctr, int threshold)
{
    if (grow((void **) &p->chains, &p->cap_chains, p->nchains, sizeof(*p->chains))) {
        return -1;
    }
    hct_chain_t *c = &p->chains[p->nchains];
    c->ctr = (uint16_t) ctr;
    c->threshold = (uint16_t) threshold;
    c->first = p->ndescs;
    c->n = 0;
    return p->nchains++;
}

int hct_prog_desc(hct_prog_t *p, hct_desc_t d)
{
    if (0 == p->nchains || grow((void **) &p->descs, &p->cap_descs, p->ndescs, sizeof(*p->descs))) {
        return -1;
    }
    p->descs[p->ndescs] = d;
    p->chains[p->nchains - 1].n++;
    return p->ndescs++;
}

int hct_prog_target(hct_prog_t *p, int rank, int ctr, int slot)
{
    if (grow((void **) &p->targets, &p->cap_targets, p->ntargets, sizeof(*p->targets))) {
        return -1;
    }
    p->targets[p->ntargets] =
        (hct_target_t){.rank = rank, .ctr = (uint16_t) ctr, .slot = (uint8_t) slot};
    return p->ntargets++;
}

int hct_prog_input(hct_prog_t *p, int ctr, int slot)
{
    if (grow((void **) &p->inputs, &p->cap_inputs, p->ninputs, sizeof(*p->inputs))) {
        return -1;
    }
    p->inputs[p->ninputs] = (hct_input_t){.ctr = (uint16_t) ctr, .slot = (uint8_t) slot};
    return p->ninputs++;
}

int hct_prog_reduce_slots(hct_prog_t *p, int ctr, int slot, int n)
{
    int rc = 0;
    if (n <= 0) {
        return 0;
    }
    /* the first descriptor takes up to 7 slots, each later one the work
     * payload and up to 6 more: left to right, slot order */
    int take = n < HCT_ALU_MAX ? n : HCT_ALU_MAX;
    if (1 == take) {
        rc = hct_prog_desc(
            p, (hct_desc_t){.op = HCT_D_LOAD, .ctr = (uint16_t) ctr, .slot = (uint16_t) slot});
    } else {
        rc = hct_prog_desc(p, (hct_desc_t){.op = HCT_D_REDUCE,
                                           .ctr = (uint16_t) ctr,
                                           .slot = (uint16_t) slot,
                                           .n = (uint16_t) take});
    }
    for (int s = slot + take; rc >= 0 && s < slot + n; s += take) {
        take = slot + n - s < HCT_ALU_MAX - 1 ? slot + n - s : HCT_ALU_MAX - 1;
        rc = hct_prog_desc(p, (hct_desc_t){.op = HCT_D_REDUCE,
                                           .acc = 1,
                                           .ctr = (uint16_t) ctr,
                                           .slot = (uint16_t) s,
                                           .n = (uint16_t) take});
    }
    return rc < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* Engine state                                                         */
/* ------------------------------------------------------------------ */

typedef struct held {
    int src;
    hct_pkt_t pkt;
} held_t;

typedef struct waiting {
    int rank;
    hct_pkt_t pkt;
} waiting_t;

typedef struct peer {
    int rank;  /* -1: empty */
    int avail; /* credits to send to it */
    int owed;  /* its packets consumed, credits not yet returned */
} peer_t;

struct hct_port {
    hct_chan_t *chan;
    uint16_t seq;
    const hct_prog_t *prog;
    const unsigned char *input;
    unsigned char *output;
    uint32_t *ctr; /* [npkt * nctr] */
    uint32_t done;
    unsigned char *fired; /* [npkt * nchains] */
    size_t *slot_base;    /* [nctr]: first slot of each template counter */
    size_t slots_per_pkt;
    unsigned char *store; /* [npkt * slots_per_pkt * HCT_PAYLOAD] */
    hct_port_t *next;
};

struct hct_chan {
    hct_engine_t *e;
    uint16_t id;
    int size, rank;
    void *user;
    hct_port_t *ports;
    peer_t *peers; /* open addressing on rank */
    int npeers_cap, npeers;
    waiting_t *backlog;
    int nbacklog, cap_backlog;
    hct_chan_t *next;
};

struct hct_engine {
    hct_engine_config_t cfg;
    hct_backend_t be;
    hct_stats_t st;
    hct_chan_t *chans;
    held_t *mpq; /* early packets */
    int nmpq, cap_mpq;
    int nbacklog;
};

hct_engine_t *hct_engine_new(const hct_engine_config_t *cfg, const hct_backend_t *be)
{
    hct_engine_t *e = calloc(1, sizeof(*e));
    if (NULL == e) {
        return NULL;
    }
    e->cfg = *cfg;
    if (e->cfg.credits < 1) {
        e->cfg.credits = 1;
    }
    e->be = *be;
    return e;
}

void hct_engine_free(hct_engine_t *e)
{
    if (NULL == e) {
        return;
    }
    while (e->chans) {
        hct_chan_t *c = e->chans;
        while (c->ports) {
            hct_disarm(c->ports);
        }
        hct_chan_close(c);
    }
    free(e->mpq);
    free(e);
}

const hct_stats_t *hct_engine_stats(const hct_engine_t *e)
{
    return &e->st;
}

int hct_engine_mpq(const hct_engine_t *e)
{
    return e->nmpq;
}

int hct_engine_backlog(const hct_engine_t *e)
{
    return e->nbacklog;
}

/* ------------------------------------------------------------------ */
/* Channels and credits                                                 */
/* ------------------------------------------------------------------ */

hct_chan_t *hct_chan_open(hct_engine_t *e, uint16_t id, int size, int rank, void *user)
{
    for (hct_chan_t *c = e->chans; c; c = c->next) {
        if (c->id == id) {
            return NULL; /* taken */
        }
    }
    hct_chan_t *c = calloc(1, sizeof(*c));
    if (NULL == c) {
        return NULL;
    }
    c->e = e;
    c->id = id;
    c->size = size;
    c->rank = rank;
    c->user = user;
    c->next = e->chans;
    e->chans = c;
    return c;
}

void hct_chan_close(hct_chan_t *c)
{
    hct_engine_t *e = c->e;
    for (hct_chan_t **pp = &e->chans; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    e->nbacklog -= c->nbacklog;
    free(c->peers);
    free(c->backlog);
    free(c);
}

void *hct_chan_user(const hct_chan_t *c)
{
    return c->user;
}

int hct_chan_backlog(const hct_chan_t *c)
{
    return c->nbacklog;
}

int hct_chan_rank(const hct_chan_t *c)
{
    return c->rank;
}

uint16_t hct_chan_id(const hct_chan_t *c)
{
    return c->id;
}

static hct_chan_t *find_chan(hct_engine_t *e, uint16_t id)
{
    for (hct_chan_t *c = e->chans; c; c = c->next) {
        if (c->id == id) {
            return c;
        }
    }
    return NULL;
}

/* The credit record of a peer (created with full credits). */
static peer_t *peer_of(hct_chan_t *c, int rank)
{
    if (2 * (c->npeers + 1) > c->npeers_cap) {
        int cap = c->npeers_cap ? 2 * c->npeers_cap : 16;
        peer_t *np = malloc((size_t) cap * sizeof(*np));
        if (NULL == np) {
            return NULL;
        }
        for (int i = 0; i < cap; ++i) {
            np[i].rank = -1;
        }
        for (int i = 0; i < c->npeers_cap; ++i) {
            if (c->peers[i].rank >= 0) {
                unsigned h = (unsigned) c->peers[i].rank * 2654435761u % (unsigned) cap;
                while (np[h].rank >= 0) {
                    h = (h + 1) % (unsigned) cap;
                }
                np[h] = c->peers[i];
            }
        }
        free(c->peers);
        c->peers = np;
        c->npeers_cap = cap;
    }
    unsigned h = (unsigned) rank * 2654435761u % (unsigned) c->npeers_cap;
    while (c->peers[h].rank >= 0 && c->peers[h].rank != rank) {
        h = (h + 1) % (unsigned) c->npeers_cap;
    }
    if (c->peers[h].rank < 0) {
        c->peers[h] = (peer_t){.rank = rank, .avail = c->e->cfg.credits, .owed = 0};
        c->npeers++;
    }
    return &c->peers[h];
}

static void wire(hct_chan_t *c, int rank, const hct_pkt_t *pkt)
{
    hct_engine_t *e = c->e;
    if (HCT_KIND_CREDIT == pkt->hdr.kind) {
        e->st.credits_out++;
    } else {
        e->st.pkts_out++;
    }
    if (0 != e->be.send(e->be.ctx, c, rank, pkt)) {
        e->st.send_errors++;
    }
}

/* Send a data packet under credits (loopback needs none). */
static void send_data(hct_chan_t *c, int rank, const hct_pkt_t *pkt)
{
    hct_engine_t *e = c->e;
    if (rank == c->rank) {
        e->st.pkts_out++;
        hct_deliver(e, rank, pkt);
        return;
    }
    peer_t *pr = peer_of(c, rank);
    if (NULL != pr && pr->avail > 0) {
        pr->avail--;
        wire(c, rank, pkt);
        return;
    }
    if (0 != grow((void **) &c->backlog, &c->cap_backlog, c->nbacklog, sizeof(*c->backlog))) {
        e->st.send_errors++;
        return;
    }
    c->backlog[c->nbacklog].rank = rank;
    c->backlog[c->nbacklog].pkt = *pkt;
    c->nbacklog++;
    e->nbacklog++;
    if ((uint64_t) e->nbacklog > e->st.backlog_max) {
        e->st.backlog_max = (uint64_t) e->nbacklog;
    }
}

/* Credits came back: send what now may go, in order per peer. */
static void flush_backlog(hct_chan_t *c)
{
    int keep = 0;
    for (int i = 0; i < c->nbacklog; ++i) {
        peer_t *pr = peer_of(c, c->backlog[i].rank);
        if (NULL != pr && pr->avail > 0) {
            pr->avail--;
            wire(c, c->backlog[i].rank, &c->backlog[i].pkt);
        } else {
            c->backlog[keep++] = c->backlog[i];
        }
    }
    c->e->nbacklog -= c->nbacklog - keep;
    c->nbacklog = keep;
}

/* One packet of src consumed: return credits once half are owed. */
static void consumed(hct_chan_t *c, int src)
{
    if (src == c->rank) {
        return;
    }
    peer_t *pr = peer_of(c, src);
    if (NULL == pr) {
        return;
    }
    int half = c->e->cfg.credits / 2 > 0 ? c->e->cfg.credits / 2 : 1;
    if (++pr->owed >= half) {
        hct_pkt_t cp;
        memset(&cp, 0, sizeof(cp));
        cp.hdr.chan = c->id;
        cp.hdr.kind = HCT_KIND_CREDIT;
        cp.hdr.ctr = (uint16_t) pr->owed;
        pr->owed = 0;
        wire(c, src, &cp);
    }
}

/* ------------------------------------------------------------------ */
/* Ports and chains                                                     */
/* ------------------------------------------------------------------ */

static hct_port_t *find_port(hct_chan_t *c, uint16_t seq)
{
    for (hct_port_t *p = c->ports; p; p = p->next) {
        if (p->seq == seq) {
            return p;
        }
    }
    return NULL;
}

static unsigned char *slot_ptr(hct_port_t *pt, int pkt, int tctr, int slot)
{
    size_t s = pt->slot_base[tctr] + (size_t) slot;
    return pt->store + ((size_t) pkt * pt->slots_per_pkt + s) * HCT_PAYLOAD;
}

static size_t pkt_elems(const hct_prog_t *g, int pkt)
{
    size_t first = (size_t) pkt * g->per_pkt;
    if (first >= g->count) {
        return 0;
    }
    return g->count - first < g->per_pkt ? g->count - first : g->per_pkt;
}

static void count_up(hct_port_t *pt, int pkt, int tctr, uint32_t n);

static void run_chain(hct_port_t *pt, int pkt, const hct_chain_t *ch)
{
    const hct_prog_t *g = pt->prog;
    hct_chan_t *c = pt->chan;
    hct_engine_t *e = c->e;
    size_t elems = pkt_elems(g, pkt);
    size_t bytes = elems * g->esize;
    unsigned char work[HCT_PAYLOAD];
    memset(work, 0, sizeof(work));
    e->st.fired++;
    for (int i = 0; i < ch->n; ++i) {
        const hct_desc_t *d = &g->descs[ch->first + i];
        switch (d->op) {
        case HCT_D_LOAD:
            memcpy(work, slot_ptr(pt, pkt, d->ctr, d->slot), bytes);
            break;
        case HCT_D_REDUCE: {
            int s = d->slot;
            if (!d->acc) {
                memcpy(work, slot_ptr(pt, pkt, d->ctr, s), bytes);
                ++s;
            }
            for (; s < d->slot + d->n; ++s) {
                hct_alu(g->op, g->type, work, slot_ptr(pt, pkt, d->ctr, s), elems);
            }
            e->st.alu_ops++;
            break;
        }
        case HCT_D_STORE:
            memcpy(slot_ptr(pt, pkt, d->ctr, d->slot), work, bytes);
            break;
        case HCT_D_SEND:
            for (int t = d->first; t < d->first + d->n; ++t) {
                const hct_target_t *tg = &g->targets[t];
                hct_pkt_t out;
                out.hdr.chan = c->id;
                out.hdr.seq = pt->seq;
                out.hdr.ctr = (uint16_t) (pkt * g->nctr + tg->ctr);
                out.hdr.slot = tg->slot;
                out.hdr.kind = HCT_KIND_DATA;
                memcpy(out.payload, work, sizeof(work));
                send_data(c, tg->rank, &out);
            }
            break;
        case HCT_D_DELIVER:
            if (NULL != pt->output && bytes) {
                memcpy(pt->output + (size_t) pkt * g->per_pkt * g->esize, work, bytes);
            }
            break;
        case HCT_D_ADD:
            if (HCT_CTR_DONE == d->ctr) {
                pt->done += d->n;
            } else {
                count_up(pt, pkt, d->ctr, d->n);
            }
            break;
        default:
            break;
        }
    }
}

/* Run the chains of (pkt, tctr) that are due. */
static void fire_due(hct_port_t *pt, int pkt, int tctr)
{
    const hct_prog_t *g = pt->prog;
    uint32_t v = pt->ctr[(size_t) pkt * g->nctr + tctr];
    for (int k = 0; k < g->nchains; ++k) {
        const hct_chain_t *ch = &g->chains[k];
        unsigned char *f = &pt->fired[(size_t) pkt * g->nchains + k];
        if (ch->ctr == tctr && !*f && v >= ch->threshold) {
            *f = 1;
            run_chain(pt, pkt, ch);
        }
    }
}

static void count_up(hct_port_t *pt, int pkt, int tctr, uint32_t n)
{
    pt->ctr[(size_t) pkt * pt->prog->nctr + tctr] += n;
    fire_due(pt, pkt, tctr);
}

/* Land a data packet's payload in its slot and count it (no firing). */
static int land(hct_port_t *pt, const hct_pkt_t *pkt)
{
    const hct_prog_t *g = pt->prog;
    int abs = pkt->hdr.ctr;
    int p = abs / g->nctr, tctr = abs % g->nctr;
    if (p >= g->npkt || pkt->hdr.slot >= g->nslots[tctr]) {
        return -1;
    }
    memcpy(slot_ptr(pt, p, tctr, pkt->hdr.slot), pkt->payload, pkt_elems(g, p) * g->esize);
    pt->ctr[abs]++;
    return abs;
}

hct_port_t *hct_arm(hct_chan_t *c, uint16_t seq, const hct_prog_t *g, const void *input,
                    void *output)
{
    hct_engine_t *e = c->e;
    if (NULL != find_port(c, seq)) {
        return NULL;
    }
    hct_port_t *pt = calloc(1, sizeof(*pt));
    if (NULL == pt) {
        return NULL;
    }
    pt->chan = c;
    pt->seq = seq;
    pt->prog = g;
    pt->input = input;
    pt->output = output;
    pt->ctr = calloc((size_t) g->npkt * (size_t) g->nctr + 1, sizeof(*pt->ctr));
    pt->fired = calloc((size_t) g->npkt * (size_t) g->nchains + 1, 1);
    pt->slot_base = calloc((size_t) g->nctr + 1, sizeof(*pt->slot_base));
    for (int i = 0; NULL != pt->slot_base && i < g->nctr; ++i) {
        pt->slot_base[i] = pt->slots_per_pkt;
        pt->slots_per_pkt += g->nslots[i];
    }
    pt->store = malloc((size_t) g->npkt * pt->slots_per_pkt * HCT_PAYLOAD + 1);
    if (NULL == pt->ctr || NULL == pt->fired || NULL == pt->slot_base || NULL == pt->store) {
        free(pt->ctr);
        free(pt->fired);
        free(pt->slot_base);
        free(pt->store);
        free(pt);
        return NULL;
    }
    pt->next = c->ports;
    c->ports = pt;

    /* early packets of this port: consume them (counts, no firing yet) */
    int keep = 0;
    for (int i = 0; i < e->nmpq; ++i) {
        held_t *h = &e->mpq[i];
        if (h->pkt.hdr.chan == c->id && h->pkt.hdr.seq == seq) {
            if (land(pt, &h->pkt) < 0) {
                e->st.send_errors++;
            }
            consumed(c, h->src);
        } else {
            e->mpq[keep++] = *h;
        }
    }
    e->nmpq = keep;
    /* the caller's inputs: local puts */
    for (int p = 0; p < g->npkt; ++p) {
        size_t bytes = pkt_elems(g, p) * g->esize;
        for (int i = 0; i < g->ninputs; ++i) {
            const hct_input_t *in = &g->inputs[i];
            if (NULL != input && bytes) {
                memcpy(slot_ptr(pt, p, in->ctr, in->slot),
                       (const unsigned char *) input + (size_t) p * g->per_pkt * g->esize, bytes);
            }
            pt->ctr[(size_t) p * g->nctr + in->ctr]++;
        }
    }
    /* everything already due fires now: the leaves start the cascade */
    for (int p = 0; p < g->npkt; ++p) {
        for (int k = 0; k < g->nctr; ++k) {
            fire_due(pt, p, k);
        }
    }
    return pt;
}

int hct_port_done(const hct_port_t *p)
{
    return p->done >= p->prog->done_threshold;
}

void hct_disarm(hct_port_t *pt)
{
    hct_chan_t *c = pt->chan;
    for (hct_port_t **pp = &c->ports; *pp; pp = &(*pp)->next) {
        if (*pp == pt) {
            *pp = pt->next;
            break;
        }
    }
    free(pt->ctr);
    free(pt->fired);
    free(pt->slot_base);
    free(pt->store);
    free(pt);
}

/* ------------------------------------------------------------------ */
/* Delivery                                                             */
/* ------------------------------------------------------------------ */

static void keep_early(hct_engine_t *e, int src, const hct_pkt_t *pkt)
{
    if (0 != grow((void **) &e->mpq, &e->cap_mpq, e->nmpq, sizeof(*e->mpq))) {
        e->st.send_errors++;
        return;
    }
    e->mpq[e->nmpq].src = src;
    e->mpq[e->nmpq].pkt = *pkt;
    e->nmpq++;
    e->st.early++;
    if (e->nmpq > e->cfg.mpq_packets) {
        e->st.mpq_overflow++;
    }
    if ((uint64_t) e->nmpq > e->st.mpq_max) {
        e->st.mpq_max = (uint64_t) e->nmpq;
    }
}

void hct_deliver(hct_engine_t *e, int src, const hct_pkt_t *pkt)
{
    hct_chan_t *c = find_chan(e, pkt->hdr.chan);
    if (HCT_KIND_CREDIT == pkt->hdr.kind) {
        e->st.credits_in++;
        if (NULL != c) {
            peer_t *pr = peer_of(c, src);
            if (NULL != pr) {
                pr->avail += pkt->hdr.ctr;
            }
            flush_backlog(c);
        }
        return;
    }
    e->st.pkts_in++;
    hct_port_t *pt = NULL != c ? find_port(c, pkt->hdr.seq) : NULL;
    if (NULL == pt) {
        keep_early(e, src, pkt);
        return;
    }
    int abs = land(pt, pkt);
    consumed(c, src);
    if (abs < 0) {
        e->st.send_errors++;
        return;
    }
    fire_due(pt, abs / pt->prog->nctr, abs % pt->prog->nctr);
}
