/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Event-driven simulation of all ranks' triggered engines: see
 * hiercoll_trig_sim.h.
 */
#include "hiercoll_trig_sim.h"

#include <stdlib.h>
#include <string.h>

typedef struct ev {
    double t;
    uint64_t tie;
    int dst, src; /* src < 0: an ARM event of rank dst */
    int pkt;      /* index in the packet pool */
} ev_t;

typedef struct simst {
    int n;
    const sim_trig_cfg_t *cfg;
    uint64_t rng;
    double now;
    ev_t *heap;
    size_t nheap, cap;
    int oom;
    hct_pkt_t *pool; /* packets in flight; free ones chained through ctr */
    int *free_next, free_head, npool;
    double *busy; /* per rank: time its engine is busy until (fire cost) */
} simst_t;

static uint64_t rnd(simst_t *s)
{
    uint64_t x = (s->rng += 0x9e3779b97f4a7c15ULL);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static int before(const ev_t *a, const ev_t *b)
{
    return a->t < b->t || (a->t == b->t && a->tie < b->tie);
}

static void push(simst_t *s, const ev_t *e)
{
    if (s->nheap == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 1024;
        ev_t *h = realloc(s->heap, c * sizeof(*h));
        if (NULL == h) {
            s->oom = 1;
            return;
        }
        s->heap = h;
        s->cap = c;
    }
    size_t i = s->nheap++;
    while (i > 0 && before(e, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = *e;
}

static void pop(simst_t *s, ev_t *out)
{
    *out = s->heap[0];
    ev_t last = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        const ev_t *best = &last;
        if (l < s->nheap && before(&s->heap[l], best)) {
            m = l;
            best = &s->heap[l];
        }
        if (l + 1 < s->nheap && before(&s->heap[l + 1], best)) {
            m = l + 1;
        }
        if (m == i) {
            break;
        }
        s->heap[i] = s->heap[m];
        i = m;
    }
    if (s->nheap > 0) {
        s->heap[i] = last;
    }
}

static int be_send(void *ctx, hct_chan_t *chan, int rank, const hct_pkt_t *pkt)
{
    simst_t *s = ctx;
    ev_t e;
    int src = hct_chan_rank(chan);
    double start = s->now > s->busy[src] ? s->now : s->busy[src];
    e.t = start + s->cfg->hop
          + (s->cfg->jitter > 0 ? (double) (rnd(s) % (unsigned) s->cfg->jitter) : 0);
    e.tie = rnd(s);
    e.dst = rank;
    e.src = src;
    if (s->free_head < 0) {
        int c = s->npool ? 2 * s->npool : 1024;
        hct_pkt_t *p = realloc(s->pool, (size_t) c * sizeof(*p));
        int *f = realloc(s->free_next, (size_t) c * sizeof(*f));
        if (NULL != p) {
            s->pool = p;
        }
        if (NULL != f) {
            s->free_next = f;
        }
        if (NULL == p || NULL == f) {
            s->oom = 1;
            return 0;
        }
        for (int i = s->npool; i < c; ++i) {
            s->free_next[i] = i + 1 < c ? i + 1 : -1;
        }
        s->free_head = s->npool;
        s->npool = c;
    }
    e.pkt = s->free_head;
    s->free_head = s->free_next[e.pkt];
    s->pool[e.pkt] = *pkt;
    push(s, &e);
    return 0;
}

static void arm_later(simst_t *s, int r)
{
    ev_t e;
    memset(&e, 0, sizeof(e));
    e.t = s->now + (s->cfg->late_arm > 0 ? (double) (rnd(s) % (unsigned) s->cfg->late_arm) : 0);
    e.tie = rnd(s);
    e.dst = r;
    e.src = -1;
    push(s, &e);
}

int sim_trig_run(int n, const hct_prog_t *const *progs, const void *const *inputs,
                 void *const *outputs, const sim_trig_cfg_t *cfg, sim_trig_result_t *res)
{
    simst_t s;
    memset(&s, 0, sizeof(s));
    memset(res, 0, sizeof(*res));
    s.n = n;
    s.cfg = cfg;
    s.rng = cfg->seed;
    s.free_head = -1;
    int ncalls = cfg->ncalls > 0 ? cfg->ncalls : 1;
    hct_engine_t **eng = calloc((size_t) n, sizeof(*eng));
    hct_chan_t **chan = calloc((size_t) n, sizeof(*chan));
    hct_port_t **port = calloc((size_t) n, sizeof(*port));
    int *call = calloc((size_t) n, sizeof(*call));
    s.busy = calloc((size_t) n, sizeof(*s.busy));
    int rc = 0;
    if (!eng || !chan || !port || !call || !s.busy) {
        rc = -1;
        goto out;
    }
    hct_engine_config_t ec = {.mpq_packets = cfg->mpq, .credits = cfg->credits};
    hct_backend_t be = {.ctx = &s, .send = be_send};
    for (int r = 0; r < n; ++r) {
        eng[r] = hct_engine_new(&ec, &be);
        chan[r] = eng[r] ? hct_chan_open(eng[r], 7, n, r, NULL) : NULL;
        if (NULL == chan[r]) {
            rc = -1;
            goto out;
        }
        arm_later(&s, r);
    }
    int left = n;
    while (s.nheap > 0 && !s.oom) {
        ev_t e;
        pop(&s, &e);
        int r = e.dst;
        if (cfg->fire > 0 && e.src >= 0 && s.busy[r] > e.t) {
            e.t = s.busy[r]; /* the engine handles one packet at a time */
            push(&s, &e);
            continue;
        }
        s.now = e.t;
        if (cfg->fire > 0 && e.src >= 0) {
            s.busy[r] = s.now + cfg->fire;
        }
        if (e.src < 0) {
            port[r] = hct_arm(chan[r], (uint16_t) call[r], progs[r], inputs[r],
                              outputs ? outputs[(size_t) call[r] * n + r] : NULL);
            if (NULL == port[r]) {
                rc = -1;
                goto out;
            }
        } else {
            hct_pkt_t pkt = s.pool[e.pkt];
            s.free_next[e.pkt] = s.free_head;
            s.free_head = e.pkt;
            hct_deliver(eng[r], e.src, &pkt);
        }
        if (NULL != port[r] && hct_port_done(port[r])) {
            double t = s.now > s.busy[r] ? s.now : s.busy[r];
            if (t > res->finish) {
                res->finish = t;
            }
            hct_disarm(port[r]);
            port[r] = NULL;
            if (++call[r] < ncalls) {
                arm_later(&s, r);
            } else {
                --left;
            }
        }
    }
    if (s.oom) {
        rc = -1;
    }
    res->incomplete = left;
    for (int r = 0; r < n; ++r) {
        const hct_stats_t *st = hct_engine_stats(eng[r]);
        res->data_pkts += st->pkts_out;
        res->credit_pkts += st->credits_out;
        res->early += st->early;
        res->overflow += st->mpq_overflow;
        res->errors += st->send_errors;
        res->mpq_max = st->mpq_max > res->mpq_max ? st->mpq_max : res->mpq_max;
        res->backlog_max = st->backlog_max > res->backlog_max ? st->backlog_max : res->backlog_max;
        res->leftover += hct_engine_mpq(eng[r]) + hct_engine_backlog(eng[r]);
    }
out:
    for (int r = 0; eng && r < n; ++r) {
        hct_engine_free(eng[r]);
    }
    free(eng);
    free(chan);
    free(port);
    free(call);
    free(s.busy);
    free(s.heap);
    free(s.pool);
    free(s.free_next);
    return rc;
}
