/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered engine's ofi backend: programs become libfabric deferred
 * work (see coll_hiercoll_ofi_trig.h).  MPI-free.
 */
#include "coll_hiercoll_ofi_trig.h"

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/fi_trigger.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hcf_fabric {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cntr *txc, *rxc; /* bound to the endpoint (some providers need them) */
    char name[HCF_NAME_MAX];
    size_t namelen;
    int max_triggered;
    int cntr_limit; /* counters the pool may create */
    struct fid_cntr **pool;
    int nfree, ncreated;
    uint64_t next_key;
    hcf_stats_t stats;
};

struct hcf_chan {
    hcf_fabric_t *f;
    uint16_t id;
    int size, rank;
    fi_addr_t *addr;
};

/* One deferred operation with the arguments it points to (they must live
 * until it has run). */
typedef struct hcf_dw {
    struct fi_deferred_work w;
    union {
        struct fi_op_tagged tagged;
        struct fi_op_rma rma;
        struct fi_op_atomic atomic;
        struct fi_op_cntr cntr;
    } op;
    union {
        struct iovec iov;
        struct fi_ioc ioc;
    } l;
    union {
        struct fi_rma_iov iov;
        struct fi_rma_ioc ioc;
    } r;
    void *desc;
} hcf_dw_t;

struct hcf_port {
    hcf_chan_t *c;
    const hct_prog_t *prog;
    uint16_t seq;
    int nctr_all, nstep;
    struct fid_cntr **ctr;  /* [npkt * nctr] */
    struct fid_cntr **step; /* [npkt * nchains] */
    uint64_t *step_total;
    struct fid_cntr *done;
    unsigned char *mem;
    size_t block; /* bytes per packet index: slots, then works */
    size_t *slot_off;
    size_t work_off;
    struct fid_mr *mr, *omr;
    uint64_t mem_raddr, out_raddr, mem_key, out_key;
    unsigned char *out;
    hcf_dw_t *dw;
    int ndw, capdw;
};

static void say(char *why, size_t len, const char *fmt, ...)
{
    if (why != NULL && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
}

/* ------------------------------------------------------------------ */
/* Fabric                                                               */
/* ------------------------------------------------------------------ */

/* The providers that offer what the backend needs (fi_getinfo's rc). */
static int getinfo(struct fi_info **info)
{
    struct fi_info *hints = fi_allocinfo();
    if (hints == NULL) {
        return -FI_ENOMEM;
    }
    hints->caps = FI_TAGGED | FI_RMA | FI_ATOMIC | FI_TRIGGER;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY
                                  | FI_MR_LOCAL;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    int rc = fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, info);
    fi_freeinfo(hints);
    return rc;
}

int hcf_probe(char *name, size_t len)
{
    struct fi_info *info = NULL;
    int rc = getinfo(&info);
    if (rc != 0 || info == NULL) {
        return -1;
    }
    snprintf(name, len, "%s", info->fabric_attr->prov_name);
    fi_freeinfo(info);
    return 0;
}

bool hcf_software_triggers(const char *provider)
{
    return 0 == strcmp(provider, "sockets");
}

hcf_fabric_t *hcf_open(int max_triggered, char *why, size_t whylen)
{
    struct fi_info *info = NULL;
    hcf_fabric_t *f = NULL;
    int rc = getinfo(&info);
    if (rc != 0 || info == NULL) {
        say(why, whylen, "no libfabric provider offers FI_TRIGGER with tagged messages, RMA "
                         "and atomics (fi_getinfo: %s)",
            fi_strerror(-rc));
        return NULL;
    }
    f = calloc(1, sizeof(*f));
    if (f == NULL) {
        fi_freeinfo(info);
        say(why, whylen, "out of memory");
        return NULL;
    }
    f->info = info;
    f->max_triggered = max_triggered;
    f->next_key = 0x4843u << 16;
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    const char *step = "fi_fabric";
    if ((rc = fi_fabric(info->fabric_attr, &f->fabric, NULL)) != 0
        || (step = "fi_domain", rc = fi_domain(f->fabric, info, &f->domain, NULL)) != 0
        || (step = "fi_av_open", rc = fi_av_open(f->domain, &av_attr, &f->av, NULL)) != 0
        || (step = "fi_endpoint", rc = fi_endpoint(f->domain, info, &f->ep, NULL)) != 0
        || (step = "fi_cntr_open", rc = fi_cntr_open(f->domain, &ca, &f->txc, NULL)) != 0
        || (rc = fi_cntr_open(f->domain, &ca, &f->rxc, NULL)) != 0
        || (step = "fi_ep_bind", rc = fi_ep_bind(f->ep, &f->av->fid, 0)) != 0
        || (rc = fi_ep_bind(f->ep, &f->txc->fid, FI_SEND | FI_WRITE | FI_READ)) != 0
        || (rc = fi_ep_bind(f->ep, &f->rxc->fid, FI_RECV)) != 0
        || (step = "fi_enable", rc = fi_enable(f->ep)) != 0) {
        say(why, whylen, "provider %s: %s: %s", info->fabric_attr->prov_name, step,
            fi_strerror(-rc));
        hcf_close(f);
        return NULL;
    }
    f->namelen = sizeof(f->name);
    if ((rc = fi_getname(&f->ep->fid, f->name, &f->namelen)) != 0) {
        say(why, whylen, "provider %s: fi_getname: %s (name longer than %d bytes?)",
            info->fabric_attr->prov_name, fi_strerror(-rc), HCF_NAME_MAX);
        hcf_close(f);
        return NULL;
    }
    /* the provider's counters, less the endpoint's two */
    f->cntr_limit = info->domain_attr->cntr_cnt > 2 ? (int) info->domain_attr->cntr_cnt - 2 : 0;
    if (f->cntr_limit > 4096) {
        f->cntr_limit = 4096;
    }
    f->pool = calloc((size_t) f->cntr_limit + 1, sizeof(*f->pool));
    if (f->pool == NULL) {
        say(why, whylen, "out of memory");
        hcf_close(f);
        return NULL;
    }
    return f;
}

void hcf_close(hcf_fabric_t *f)
{
    if (f == NULL) {
        return;
    }
    for (int i = 0; i < f->nfree; ++i) {
        fi_close(&f->pool[i]->fid);
    }
    if (f->ep) {
        fi_close(&f->ep->fid);
    }
    if (f->txc) {
        fi_close(&f->txc->fid);
    }
    if (f->rxc) {
        fi_close(&f->rxc->fid);
    }
    if (f->av) {
        fi_close(&f->av->fid);
    }
    if (f->domain) {
        fi_close(&f->domain->fid);
    }
    if (f->fabric) {
        fi_close(&f->fabric->fid);
    }
    fi_freeinfo(f->info);
    free(f->pool);
    free(f);
}

const char *hcf_provider(const hcf_fabric_t *f)
{
    return f->info->fabric_attr->prov_name;
}

int hcf_name(const hcf_fabric_t *f, void *name, size_t *len)
{
    if (*len < f->namelen) {
        return -1;
    }
    memcpy(name, f->name, f->namelen);
    *len = f->namelen;
    return 0;
}

const hcf_stats_t *hcf_stats(const hcf_fabric_t *f)
{
    return &f->stats;
}

hcf_needs_t hcf_budget(const hcf_fabric_t *f)
{
    hcf_needs_t b;
    b.counters = f->cntr_limit / HCF_PORTS;
    b.ops = f->max_triggered > 0 ? f->max_triggered / HCF_PORTS : 1 << 20;
    return b;
}

/* ------------------------------------------------------------------ */
/* Programs: what they need                                             */
/* ------------------------------------------------------------------ */

static enum fi_datatype fi_type_of(hct_type_t t)
{
    switch (t) {
    case HCT_INT8: return FI_INT8;
    case HCT_UINT8: return FI_UINT8;
    case HCT_INT16: return FI_INT16;
    case HCT_UINT16: return FI_UINT16;
    case HCT_INT32: return FI_INT32;
    case HCT_UINT32: return FI_UINT32;
    case HCT_INT64: return FI_INT64;
    case HCT_UINT64: return FI_UINT64;
    case HCT_FLOAT: return FI_FLOAT;
    case HCT_DOUBLE: return FI_DOUBLE;
    case HCT_LONG_DOUBLE: return FI_LONG_DOUBLE;
    case HCT_BOOL: return FI_UINT8;
    default: return FI_DATATYPE_LAST;
    }
}

static enum fi_op fi_op_of(hct_op_t op)
{
    switch (op) {
    case HCT_SUM: return FI_SUM;
    case HCT_MAX: return FI_MAX;
    case HCT_MIN: return FI_MIN;
    case HCT_LAND: return FI_LAND;
    case HCT_BAND: return FI_BAND;
    case HCT_LOR: return FI_LOR;
    case HCT_BOR: return FI_BOR;
    case HCT_LXOR: return FI_LXOR;
    case HCT_BXOR: return FI_BXOR;
    default: return FI_ATOMIC_OP_LAST;
    }
}

/* Bytes packet index i carries. */
static size_t pkt_bytes(const hct_prog_t *p, int i)
{
    size_t first = (size_t) i * p->per_pkt;
    if (first >= p->count) {
        return 0;
    }
    size_t n = p->count - first < p->per_pkt ? p->count - first : p->per_pkt;
    return n * p->esize;
}

static bool is_input(const hct_prog_t *p, int c, int s)
{
    for (int i = 0; i < p->ninputs; ++i) {
        if (p->inputs[i].ctr == c && p->inputs[i].slot == s) {
            return true;
        }
    }
    return false;
}

/* A slot is filled by a packet when a chain reads it and neither an
 * input nor a STORE writes it. */
static bool is_received(const hct_prog_t *p, int c, int s)
{
    bool read = false;
    if (is_input(p, c, s)) {
        return false;
    }
    for (int i = 0; i < p->ndescs; ++i) {
        const hct_desc_t *d = &p->descs[i];
        if (d->ctr != c) {
            continue;
        }
        if (HCT_D_STORE == d->op && d->slot == s) {
            return false;
        }
        if (HCT_D_LOAD == d->op && d->slot == s) {
            read = true;
        }
        if (HCT_D_REDUCE == d->op && s >= d->slot && s < d->slot + d->n) {
            read = true;
        }
    }
    return read;
}

/* Operations of one descriptor (and step increments it makes). */
static int desc_ops(const hct_desc_t *d)
{
    switch (d->op) {
    case HCT_D_REDUCE: return d->n > 0 ? d->n : 1;
    case HCT_D_SEND: return d->n > 0 ? d->n : 1;
    default: return 1;
    }
}

int hcf_needs(const hcf_fabric_t *f, const hct_prog_t *p, hcf_needs_t *n)
{
    int recvs = 0, ops = 0;
    bool reduces = false;
    for (int c = 0; c < p->nctr; ++c) {
        for (int s = 0; s < p->nslots[c]; ++s) {
            recvs += is_received(p, c, s);
        }
    }
    for (int i = 0; i < p->ndescs; ++i) {
        ops += desc_ops(&p->descs[i]);
        reduces |= HCT_D_REDUCE == p->descs[i].op && p->descs[i].n > (p->descs[i].acc ? 0 : 1);
    }
    n->counters = p->npkt * (p->nctr + p->nchains) + 1;
    n->ops = p->npkt * (recvs + ops);
    if (reduces && p->count > 0) {
        size_t cnt = 0;
        enum fi_datatype dt = fi_type_of(p->type);
        enum fi_op op = fi_op_of(p->op);
        if (dt == FI_DATATYPE_LAST || op == FI_ATOMIC_OP_LAST
            || fi_atomicvalid(f->ep, dt, op, &cnt) != 0 || cnt < p->per_pkt) {
            return -1;
        }
    }
    return 0;
}

int hcf_fits(const hcf_fabric_t *f, const hct_prog_t *p)
{
    hcf_needs_t n, b = hcf_budget(f);
    return hcf_needs(f, p, &n) == 0 && n.counters <= b.counters && n.ops <= b.ops;
}

/* ------------------------------------------------------------------ */
/* Channels                                                             */
/* ------------------------------------------------------------------ */

int hcf_av_insert(hcf_fabric_t *f, const void *name, uint64_t *addr)
{
    fi_addr_t a;
    if (fi_av_insert(f->av, name, 1, &a, 0, NULL) != 1) {
        return -1;
    }
    *addr = (uint64_t) a;
    return 0;
}

hcf_chan_t *hcf_chan_open_addrs(hcf_fabric_t *f, uint16_t id, int size, int rank,
                                const uint64_t *addrs)
{
    hcf_chan_t *c = calloc(1, sizeof(*c));
    if (c == NULL || (c->addr = calloc((size_t) size, sizeof(fi_addr_t))) == NULL) {
        free(c);
        return NULL;
    }
    c->f = f;
    c->id = id;
    c->size = size;
    c->rank = rank;
    for (int r = 0; r < size; ++r) {
        c->addr[r] = (fi_addr_t) addrs[r];
    }
    return c;
}

hcf_chan_t *hcf_chan_open(hcf_fabric_t *f, uint16_t id, int size, int rank, const void *names,
                          size_t stride)
{
    uint64_t *a = calloc((size_t) size + 1, sizeof(*a));
    hcf_chan_t *c = NULL;
    int r = 0;
    for (; a != NULL && r < size; ++r) {
        if (hcf_av_insert(f, (const char *) names + (size_t) r * stride, &a[r]) != 0) {
            break;
        }
    }
    if (a != NULL && r == size) {
        c = hcf_chan_open_addrs(f, id, size, rank, a);
    }
    free(a);
    return c;
}

void hcf_chan_close(hcf_chan_t *c)
{
    if (c != NULL) {
        free(c->addr);
        free(c);
    }
}

/* ------------------------------------------------------------------ */
/* Ports                                                                */
/* ------------------------------------------------------------------ */

static struct fid_cntr *cntr_get(hcf_fabric_t *f)
{
    struct fid_cntr *c = NULL;
    if (f->nfree > 0) {
        c = f->pool[--f->nfree];
    } else if (f->ncreated < f->cntr_limit) {
        struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
        if (fi_cntr_open(f->domain, &ca, &c, NULL) != 0) {
            return NULL;
        }
        f->ncreated++;
    } else {
        return NULL;
    }
    fi_cntr_set(c, 0);
    return c;
}

static void cntr_put(hcf_fabric_t *f, struct fid_cntr *c)
{
    if (c != NULL) {
        f->pool[f->nfree++] = c;
    }
}

static uint64_t tag_of(uint16_t chan, uint16_t seq, int ctr, int slot)
{
    return ((uint64_t) chan << 48) | ((uint64_t) seq << 32) | ((uint64_t) (ctr & 0xffffff) << 8)
           | (uint64_t) (slot & 0xff);
}

static unsigned char *slot_at(hcf_port_t *pt, int i, int c, int s)
{
    return pt->mem + (size_t) i * pt->block + pt->slot_off[c] + (size_t) s * HCT_PAYLOAD;
}

static unsigned char *work_at(hcf_port_t *pt, int i, int ch)
{
    return pt->mem + (size_t) i * pt->block + pt->work_off + (size_t) ch * HCT_PAYLOAD;
}

static uint64_t raddr_mem(hcf_port_t *pt, const void *ptr)
{
    return pt->mem_raddr + (uint64_t) ((const unsigned char *) ptr - pt->mem);
}

/* Queue one deferred operation; its context is the work's own. */
static int queue(hcf_port_t *pt, hcf_dw_t *d, struct fid_cntr *trig, uint64_t thr,
                 struct fid_cntr *done)
{
    d->w.threshold = thr;
    d->w.triggering_cntr = trig;
    d->w.completion_cntr = done;
    switch (d->w.op_type) {
    case FI_OP_TSEND:
    case FI_OP_TRECV:
        d->op.tagged.msg.context = &d->w.context;
        d->w.op.tagged = &d->op.tagged;
        break;
    case FI_OP_WRITE:
        d->op.rma.msg.context = &d->w.context;
        d->w.op.rma = &d->op.rma;
        break;
    case FI_OP_ATOMIC:
        d->op.atomic.msg.context = &d->w.context;
        d->w.op.atomic = &d->op.atomic;
        break;
    default:
        d->w.op.cntr = &d->op.cntr;
        break;
    }
    pt->c->f->stats.ops++;
    return fi_control(&pt->c->f->domain->fid, FI_QUEUE_WORK, &d->w);
}

static hcf_dw_t *dw_new(hcf_port_t *pt, enum fi_op_type t)
{
    if (pt->ndw >= pt->capdw) {
        return NULL;
    }
    hcf_dw_t *d = &pt->dw[pt->ndw++];
    memset(d, 0, sizeof(*d));
    d->w.op_type = t;
    return d;
}

static int q_cntr_add(hcf_port_t *pt, struct fid_cntr *trig, uint64_t thr, struct fid_cntr *c,
                      uint64_t v)
{
    hcf_dw_t *d = dw_new(pt, FI_OP_CNTR_ADD);
    if (d == NULL) {
        return -FI_ENOMEM;
    }
    d->op.cntr.cntr = c;
    d->op.cntr.value = v;
    return queue(pt, d, trig, thr, NULL);
}

/* An RMA write of len bytes from src (in mem) to this process's dst
 * (in mem, or the output vector when out). */
static int q_local_write(hcf_port_t *pt, struct fid_cntr *trig, uint64_t thr,
                         struct fid_cntr *step, const void *src, void *dst, bool out, size_t len)
{
    hcf_chan_t *c = pt->c;
    hcf_dw_t *d = dw_new(pt, FI_OP_WRITE);
    if (d == NULL) {
        return -FI_ENOMEM;
    }
    d->l.iov.iov_base = (void *) src;
    d->l.iov.iov_len = len;
    d->desc = fi_mr_desc(pt->mr);
    d->r.iov.addr = out ? pt->out_raddr + (uint64_t) ((unsigned char *) dst - pt->out)
                        : raddr_mem(pt, dst);
    d->r.iov.len = len;
    d->r.iov.key = out ? pt->out_key : pt->mem_key;
    d->op.rma.ep = c->f->ep;
    d->op.rma.msg.msg_iov = &d->l.iov;
    d->op.rma.msg.desc = &d->desc;
    d->op.rma.msg.iov_count = 1;
    d->op.rma.msg.addr = c->addr[c->rank];
    d->op.rma.msg.rma_iov = &d->r.iov;
    d->op.rma.msg.rma_iov_count = 1;
    return queue(pt, d, trig, thr, step);
}

/* dst (op)= src, count elements, both in mem, through this process. */
static int q_local_atomic(hcf_port_t *pt, struct fid_cntr *trig, uint64_t thr,
                          struct fid_cntr *step, const void *src, void *dst, size_t count)
{
    hcf_chan_t *c = pt->c;
    hcf_dw_t *d = dw_new(pt, FI_OP_ATOMIC);
    if (d == NULL) {
        return -FI_ENOMEM;
    }
    d->l.ioc.addr = (void *) src;
    d->l.ioc.count = count;
    d->desc = fi_mr_desc(pt->mr);
    d->r.ioc.addr = raddr_mem(pt, dst);
    d->r.ioc.count = count;
    d->r.ioc.key = pt->mem_key;
    d->op.atomic.ep = c->f->ep;
    d->op.atomic.msg.msg_iov = &d->l.ioc;
    d->op.atomic.msg.desc = &d->desc;
    d->op.atomic.msg.iov_count = 1;
    d->op.atomic.msg.addr = c->addr[c->rank];
    d->op.atomic.msg.rma_iov = &d->r.ioc;
    d->op.atomic.msg.rma_iov_count = 1;
    d->op.atomic.msg.datatype = fi_type_of(pt->prog->type);
    d->op.atomic.msg.op = fi_op_of(pt->prog->op);
    return queue(pt, d, trig, thr, step);
}

static int q_tagged(hcf_port_t *pt, enum fi_op_type t, struct fid_cntr *trig, uint64_t thr,
                    struct fid_cntr *done, void *buf, size_t len, fi_addr_t peer, uint64_t tag)
{
    hcf_dw_t *d = dw_new(pt, t);
    if (d == NULL) {
        return -FI_ENOMEM;
    }
    d->l.iov.iov_base = buf;
    d->l.iov.iov_len = len;
    d->desc = fi_mr_desc(pt->mr);
    d->op.tagged.ep = pt->c->f->ep;
    d->op.tagged.msg.msg_iov = &d->l.iov;
    d->op.tagged.msg.desc = &d->desc;
    d->op.tagged.msg.iov_count = 1;
    d->op.tagged.msg.addr = peer;
    d->op.tagged.msg.tag = tag;
    return queue(pt, d, trig, thr, done);
}

/* A step that moves nothing (a zero-byte write to this process): it only
 * completes into the step counter.  Never a CNTR_ADD on the step counter:
 * the counter that triggers the next step must not be bumped from inside
 * its own trigger processing (sockets holds the counter's lock there). */
static int q_noop(hcf_port_t *pt, struct fid_cntr *trig, uint64_t thr, struct fid_cntr *step,
                  unsigned char *work)
{
    return q_local_write(pt, trig, thr, step, work, work, false, 0);
}

/* Translate chain ch of packet index i. */
static int arm_chain(hcf_port_t *pt, int i, int ch)
{
    const hct_prog_t *p = pt->prog;
    const hct_chain_t *chain = &p->chains[ch];
    hcf_chan_t *c = pt->c;
    struct fid_cntr *step = pt->step[i * p->nchains + ch];
    struct fid_cntr *trig = pt->ctr[i * p->nctr + chain->ctr];
    uint64_t thr = chain->threshold, total = 0;
    size_t nb = pkt_bytes(p, i), cnt = nb / (p->esize ? p->esize : 1);
    unsigned char *work = work_at(pt, i, ch);
    int rc = 0;

    for (int j = chain->first; j < chain->first + chain->n && rc == 0; ++j) {
        const hct_desc_t *d = &p->descs[j];
        uint64_t before = total;
        switch (d->op) {
        case HCT_D_LOAD:
            rc = nb ? q_local_write(pt, trig, thr, step, slot_at(pt, i, d->ctr, d->slot), work,
                                    false, nb)
                    : q_noop(pt, trig, thr, step, work);
            total += 1;
            break;
        case HCT_D_STORE:
            rc = nb ? q_local_write(pt, trig, thr, step, work, slot_at(pt, i, d->ctr, d->slot),
                                    false, nb)
                    : q_noop(pt, trig, thr, step, work);
            total += 1;
            break;
        case HCT_D_DELIVER:
            rc = nb && pt->out ? q_local_write(pt, trig, thr, step, work,
                                               pt->out + (size_t) i * p->per_pkt * p->esize,
                                               true, nb)
                               : q_noop(pt, trig, thr, step, work);
            total += 1;
            break;
        case HCT_D_REDUCE:
            if (0 == nb || (0 == d->n)) {
                rc = q_noop(pt, trig, thr, step, work);
                total += 1;
                break;
            }
            /* one operand after the other, in slot order */
            for (int s = 0; s < d->n && rc == 0; ++s) {
                unsigned char *src = slot_at(pt, i, d->ctr, d->slot + s);
                rc = (0 == s && !d->acc) ? q_local_write(pt, trig, thr, step, src, work, false, nb)
                                         : q_local_atomic(pt, trig, thr, step, src, work, cnt);
                total += 1;
                trig = step;
                thr = total;
            }
            break;
        case HCT_D_SEND:
            for (int t = d->first; t < d->first + d->n && rc == 0; ++t) {
                const hct_target_t *tg = &p->targets[t];
                rc = q_tagged(pt, FI_OP_TSEND, trig, thr, step, work, nb, c->addr[tg->rank],
                              tag_of(c->id, pt->seq, i * p->nctr + tg->ctr, tg->slot));
                total += 1;
            }
            if (0 == d->n) {
                rc = q_noop(pt, trig, thr, step, work);
                total += 1;
            }
            break;
        case HCT_D_ADD:
            rc = q_cntr_add(pt, trig, thr,
                            HCT_CTR_DONE == d->ctr ? pt->done : pt->ctr[i * p->nctr + d->ctr],
                            d->n);
            /* no step: the add is done when it fires, so whatever follows
             * fires at the same threshold */
            break;
        default:
            return -FI_EINVAL;
        }
        (void) before;
        trig = step;
        thr = total;
    }
    pt->step_total[i * p->nchains + ch] = total;
    return rc;
}

static void port_free(hcf_port_t *pt)
{
    hcf_fabric_t *f = pt->c->f;
    if (pt->ctr) {
        for (int j = 0; j < pt->nctr_all; ++j) {
            cntr_put(f, pt->ctr[j]);
        }
    }
    if (pt->step) {
        for (int j = 0; j < pt->nstep; ++j) {
            cntr_put(f, pt->step[j]);
        }
    }
    cntr_put(f, pt->done);
    if (pt->mr) {
        fi_close(&pt->mr->fid);
    }
    if (pt->omr) {
        fi_close(&pt->omr->fid);
    }
    free(pt->ctr);
    free(pt->step);
    free(pt->step_total);
    free(pt->slot_off);
    free(pt->mem);
    free(pt->dw);
    free(pt);
}

static int reg(hcf_port_t *pt, void *buf, size_t len, struct fid_mr **mr, uint64_t *raddr,
               uint64_t *key)
{
    hcf_fabric_t *f = pt->c->f;
    uint64_t mode = f->info->domain_attr->mr_mode;
    int rc = fi_mr_reg(f->domain, buf, len ? len : 1,
                       FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_SEND | FI_RECV,
                       0, f->next_key++, 0, mr, NULL);
    if (rc != 0) {
        return rc;
    }
    *raddr = (mode & FI_MR_VIRT_ADDR) ? (uint64_t) (uintptr_t) buf : 0;
    *key = fi_mr_key(*mr);
    return 0;
}

hcf_port_t *hcf_arm(hcf_chan_t *c, uint16_t seq, const hct_prog_t *p, const void *input,
                    void *output, char *why, size_t whylen)
{
    hcf_fabric_t *f = c->f;
    hcf_needs_t need;
    int rc = 0;
    if (hcf_needs(f, p, &need) != 0) {
        say(why, whylen, "provider %s has no atomic for this op and type", hcf_provider(f));
        f->stats.declined++;
        return NULL;
    }
    if (need.counters > f->nfree + (f->cntr_limit - f->ncreated)) {
        say(why, whylen, "busy: %d counters needed, %d free", need.counters,
            f->nfree + (f->cntr_limit - f->ncreated));
        return NULL;
    }
    hcf_port_t *pt = calloc(1, sizeof(*pt));
    if (pt == NULL) {
        say(why, whylen, "out of memory");
        return NULL;
    }
    pt->c = c;
    pt->prog = p;
    pt->seq = seq;
    pt->nctr_all = p->npkt * p->nctr;
    pt->nstep = p->npkt * p->nchains;
    pt->ctr = calloc((size_t) pt->nctr_all + 1, sizeof(*pt->ctr));
    pt->step = calloc((size_t) pt->nstep + 1, sizeof(*pt->step));
    pt->step_total = calloc((size_t) pt->nstep + 1, sizeof(*pt->step_total));
    pt->slot_off = calloc((size_t) p->nctr + 1, sizeof(*pt->slot_off));
    pt->capdw = need.ops;
    pt->dw = calloc((size_t) need.ops + 1, sizeof(*pt->dw));
    size_t off = 0;
    for (int j = 0; pt->slot_off && j < p->nctr; ++j) {
        pt->slot_off[j] = off;
        off += (size_t) p->nslots[j] * HCT_PAYLOAD;
    }
    pt->work_off = off;
    pt->block = off + (size_t) p->nchains * HCT_PAYLOAD;
    pt->mem = calloc((size_t) p->npkt * pt->block + 1, 1);
    if (!pt->ctr || !pt->step || !pt->step_total || !pt->slot_off || !pt->dw || !pt->mem) {
        say(why, whylen, "out of memory");
        port_free(pt);
        return NULL;
    }
    for (int j = 0; j < pt->nctr_all; ++j) {
        pt->ctr[j] = cntr_get(f);
    }
    for (int j = 0; j < pt->nstep; ++j) {
        pt->step[j] = cntr_get(f);
    }
    pt->done = cntr_get(f);
    if ((rc = reg(pt, pt->mem, (size_t) p->npkt * pt->block, &pt->mr, &pt->mem_raddr,
                  &pt->mem_key))
        != 0) {
        say(why, whylen, "fi_mr_reg: %s", fi_strerror(-rc));
        port_free(pt);
        return NULL;
    }
    if (output != NULL && p->count > 0) {
        pt->out = output;
        if ((rc = reg(pt, output, p->count * p->esize, &pt->omr, &pt->out_raddr, &pt->out_key))
            != 0) {
            say(why, whylen, "fi_mr_reg (output): %s", fi_strerror(-rc));
            port_free(pt);
            return NULL;
        }
    }
    /* inputs into their slots (counted below, once everything is armed) */
    for (int i = 0; i < p->npkt; ++i) {
        size_t nb = pkt_bytes(p, i);
        for (int j = 0; j < p->ninputs && nb > 0 && input != NULL; ++j) {
            memcpy(slot_at(pt, i, p->inputs[j].ctr, p->inputs[j].slot),
                   (const unsigned char *) input + (size_t) i * p->per_pkt * p->esize, nb);
        }
    }
    /* receives of the slots packets fill, then the chains */
    for (int i = 0; i < p->npkt && rc == 0; ++i) {
        for (int j = 0; j < p->nctr && rc == 0; ++j) {
            for (int s = 0; s < p->nslots[j] && rc == 0; ++s) {
                if (is_received(p, j, s)) {
                    rc = q_tagged(pt, FI_OP_TRECV, pt->done, 0, pt->ctr[i * p->nctr + j],
                                  slot_at(pt, i, j, s), HCT_PAYLOAD, FI_ADDR_UNSPEC,
                                  tag_of(c->id, seq, i * p->nctr + j, s));
                }
            }
        }
        for (int ch = 0; ch < p->nchains && rc == 0; ++ch) {
            rc = arm_chain(pt, i, ch);
        }
    }
    if (rc != 0) {
        /* queued work may already be running: the port cannot be freed */
        say(why, whylen, "fi_control(FI_QUEUE_WORK): %s", fi_strerror(-rc));
        return NULL;
    }
    for (int i = 0; i < p->npkt; ++i) {
        for (int j = 0; j < p->ninputs; ++j) {
            fi_cntr_add(pt->ctr[i * p->nctr + p->inputs[j].ctr], 1);
        }
    }
    f->stats.armed++;
    if ((uint64_t) (f->ncreated - f->nfree) > f->stats.counters_max) {
        f->stats.counters_max = (uint64_t) (f->ncreated - f->nfree);
    }
    return pt;
}

int hcf_port_done(const hcf_port_t *pt)
{
    if (fi_cntr_readerr(pt->done) > 0) {
        return -1;
    }
    if (fi_cntr_read(pt->done) < pt->prog->done_threshold) {
        return 0;
    }
    for (int j = 0; j < pt->nstep; ++j) {
        if (fi_cntr_readerr(pt->step[j]) > 0) {
            return -1;
        }
        if (fi_cntr_read(pt->step[j]) < pt->step_total[j]) {
            return 0;
        }
    }
    return 1;
}

void hcf_disarm(hcf_port_t *pt)
{
    if (pt != NULL) {
        port_free(pt);
    }
}

void hcf_port_dump(const hcf_port_t *pt, char *buf, size_t len)
{
    const hct_prog_t *p = pt->prog;
    size_t o = (size_t) snprintf(buf, len, "done %llu/%u;",
                                 (unsigned long long) fi_cntr_read(pt->done), p->done_threshold);
    for (int j = 0; j < pt->nctr_all && o < len; ++j) {
        o += (size_t) snprintf(buf + o, len - o, " ctr%d %llu(err %llu)", j,
                               (unsigned long long) fi_cntr_read(pt->ctr[j]),
                               (unsigned long long) fi_cntr_readerr(pt->ctr[j]));
    }
    for (int j = 0; j < pt->nstep && o < len; ++j) {
        o += (size_t) snprintf(buf + o, len - o, " step%d %llu/%llu(err %llu)", j,
                               (unsigned long long) fi_cntr_read(pt->step[j]),
                               (unsigned long long) pt->step_total[j],
                               (unsigned long long) fi_cntr_readerr(pt->step[j]));
    }
}
