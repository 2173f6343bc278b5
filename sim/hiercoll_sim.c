/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Symbolic simulator for hiercoll plans: see hiercoll_sim.h.
 */
#include "hiercoll_sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const sim_model_t sim_model_default = {
    .alpha = 1.5e-6, .o = 0.3e-6, .beta = 1e-10, .gamma = 2.5e-10, .delta = 1e-10};

/* ------------------------------------------------------------------ */
/* Symbols                                                              */
/* ------------------------------------------------------------------ */

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

sim_val_t sim_input(int rank)
{
    sim_val_t v = {.cnt = 1,
                   .h1 = splitmix((uint64_t) rank * 2 + 1),
                   .h2 = splitmix(((uint64_t) rank << 32) ^ 0x5bd1e995ULL),
                   .lo = rank,
                   .hi = rank,
                   .shift = 0};
    return v;
}

sim_val_t sim_decided(void)
{
    sim_val_t v = {.cnt = 1, .lo = -1, .hi = -1, .dec = true};
    return v;
}

sim_val_t sim_combine(sim_val_t l, sim_val_t r)
{
    if (l.dec || r.dec) {
        sim_val_t d = sim_decided();
        return d;
    }
    sim_val_t v = {.cnt = l.cnt + r.cnt, .h1 = l.h1 + r.h1, .h2 = l.h2 + r.h2,
                   .lo = -1, .hi = -1, .shift = r.shift};
    if (l.lo >= 0 && r.lo >= 0 && l.hi + 1 == r.lo) {
        v.lo = l.lo;
        v.hi = r.hi;
    }
    return v;
}

sim_val_t sim_range_of(int lo, int hi)
{
    sim_val_t v = sim_input(lo);
    for (int r = lo + 1; r <= hi; ++r) {
        v = sim_combine(v, sim_input(r));
    }
    return v;
}

sim_val_t sim_shifted(sim_val_t v, int64_t shift)
{
    v.shift = shift;
    return v;
}

static bool same_val(const sim_val_t *a, const sim_val_t *b)
{
    return a->cnt == b->cnt && a->h1 == b->h1 && a->h2 == b->h2 && a->lo == b->lo
           && a->hi == b->hi && a->shift == b->shift && a->dec == b->dec;
}

/* ------------------------------------------------------------------ */
/* Segment lists: the symbolic content of one buffer                   */
/* ------------------------------------------------------------------ */

typedef struct seg {
    int64_t off, len;
    sim_val_t v;
} seg_t;

typedef struct segbuf {
    seg_t *s;
    int n, cap;
} segbuf_t;

typedef struct segvec {
    seg_t *s;
    int n, cap;
} segvec_t;

static void vec_push(segvec_t *v, int64_t off, int64_t len, const sim_val_t *val)
{
    if (len <= 0) {
        return;
    }
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->s = realloc(v->s, (size_t) v->cap * sizeof(seg_t));
        if (NULL == v->s) {
            abort();
        }
    }
    v->s[v->n].off = off;
    v->s[v->n].len = len;
    v->s[v->n].v = *val;
    v->n++;
}

/* First segment that ends after off. */
static int seg_find(const segbuf_t *b, int64_t off)
{
    int lo = 0, hi = b->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (b->s[mid].off + b->s[mid].len <= off) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Pieces covering [off, off+len), undefined gaps included (cnt 0). */
static void seg_read(const segbuf_t *b, int64_t off, int64_t len, segvec_t *out)
{
    static const sim_val_t undef = {.lo = -1, .hi = -1};
    int64_t pos = off, end = off + len;
    out->n = 0;
    for (int i = seg_find(b, off); i < b->n && pos < end; ++i) {
        const seg_t *g = &b->s[i];
        if (g->off >= end) {
            break;
        }
        if (g->off > pos) {
            vec_push(out, pos, g->off - pos, &undef);
            pos = g->off;
        }
        int64_t e = g->off + g->len < end ? g->off + g->len : end;
        vec_push(out, pos, e - pos, &g->v);
        pos = e;
    }
    if (pos < end) {
        vec_push(out, pos, end - pos, &undef);
    }
}

/* Replace [off, off+len) by the pieces (positions inside the range, in
 * order, covering it; undefined pieces leave holes). */
static void seg_write(segbuf_t *b, int64_t off, int64_t len, const segvec_t *in,
                      segvec_t *scratch)
{
    int64_t end = off + len;
    int i = seg_find(b, off);
    int j = i;
    while (j < b->n && b->s[j].off < end) {
        ++j;
    }
    /* segments [i, j) intersect the range */
    scratch->n = 0;
    if (i < j && b->s[i].off < off) {
        vec_push(scratch, b->s[i].off, off - b->s[i].off, &b->s[i].v);
    }
    for (int k = 0; k < in->n; ++k) {
        if (in->s[k].v.cnt > 0) {
            vec_push(scratch, in->s[k].off, in->s[k].len, &in->s[k].v);
        }
    }
    if (i < j && b->s[j - 1].off + b->s[j - 1].len > end) {
        const seg_t *g = &b->s[j - 1];
        vec_push(scratch, end, g->off + g->len - end, &g->v);
    }
    /* merge adjacent equal pieces (also with the neighbours outside) */
    int first = i, last = j; /* replace b->s[first, last) */
    if (first > 0 && scratch->n > 0) {
        seg_t *l = &b->s[first - 1];
        if (l->off + l->len == scratch->s[0].off && same_val(&l->v, &scratch->s[0].v)) {
            scratch->s[0].off = l->off;
            scratch->s[0].len += l->len;
            --first;
        }
    }
    if (last < b->n && scratch->n > 0) {
        seg_t *r = &b->s[last];
        seg_t *t = &scratch->s[scratch->n - 1];
        if (t->off + t->len == r->off && same_val(&t->v, &r->v)) {
            t->len += r->len;
            ++last;
        }
    }
    int m = 0;
    for (int k = 0; k < scratch->n; ++k) {
        if (m > 0) {
            seg_t *p = &scratch->s[m - 1];
            if (p->off + p->len == scratch->s[k].off && same_val(&p->v, &scratch->s[k].v)) {
                p->len += scratch->s[k].len;
                continue;
            }
        }
        scratch->s[m++] = scratch->s[k];
    }
    int newn = b->n - (last - first) + m;
    if (newn > b->cap) {
        b->cap = newn > 2 * b->cap ? newn : 2 * b->cap;
        b->s = realloc(b->s, (size_t) b->cap * sizeof(seg_t));
        if (NULL == b->s) {
            abort();
        }
    }
    memmove(&b->s[first + m], &b->s[last], (size_t) (b->n - last) * sizeof(seg_t));
    memcpy(&b->s[first], scratch->s, (size_t) m * sizeof(seg_t));
    b->n = newn;
}

/* ------------------------------------------------------------------ */
/* Matching queues per (source, destination)                           */
/* ------------------------------------------------------------------ */

typedef struct posted {
    int rank, op;      /* the rank that posted it and the op index */
    double arrival;    /* sends: modelled arrival time at the receiver */
} posted_t;

typedef struct pairq {
    uint64_t key;      /* (src << 32 | dst) + 1; 0: empty slot */
    int kind;          /* HCP_SEND or HCP_RECV: what the queue holds */
    posted_t *q;
    int head, n, cap;
} pairq_t;

struct sim {
    int n;
    bool track;
    hcp_plan_t *plans;
    segbuf_t *bufs; /* n * HCP_NBUF */
    int *round, *pending;
    double *clock, *t_post, *nic_free, *round_send_done;
    double **arrivals;
    int *narrivals, *arr_cap;
    sim_stats_t *st;
    pairq_t *tab;
    size_t tab_cap, tab_used;
    int *ready;
    int nready;
    segvec_t va, vb, vc;
    sim_model_t model;
    double *start; /* per-rank start times, NULL: all 0 */
    int na;        /* an intercommunicator's first group: ranks [0, na); 0: none */
    char err[512];
};

static void fail(sim_t *s, const char *fmt, ...)
{
    if (s->err[0]) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof(s->err), fmt, ap);
    va_end(ap);
}

static pairq_t *pair_get(sim_t *s, int src, int dst)
{
    uint64_t key = (((uint64_t) (uint32_t) src << 32) | (uint32_t) dst) + 1;
    if (2 * (s->tab_used + 1) > s->tab_cap) {
        size_t ncap = s->tab_cap ? 2 * s->tab_cap : 1024;
        pairq_t *nt = calloc(ncap, sizeof(pairq_t));
        if (NULL == nt) {
            abort();
        }
        for (size_t i = 0; i < s->tab_cap; ++i) {
            if (s->tab[i].key) {
                size_t h = splitmix(s->tab[i].key) & (ncap - 1);
                while (nt[h].key) {
                    h = (h + 1) & (ncap - 1);
                }
                nt[h] = s->tab[i];
            }
        }
        free(s->tab);
        s->tab = nt;
        s->tab_cap = ncap;
    }
    size_t h = splitmix(key) & (s->tab_cap - 1);
    while (s->tab[h].key && s->tab[h].key != key) {
        h = (h + 1) & (s->tab_cap - 1);
    }
    if (!s->tab[h].key) {
        s->tab[h].key = key;
        s->tab_used++;
    }
    return &s->tab[h];
}

static void q_push(pairq_t *q, int kind, posted_t p)
{
    if (0 == q->n) {
        q->head = 0;
        q->kind = kind;
    }
    if (q->head + q->n == q->cap) {
        if (q->head > 0) {
            memmove(q->q, q->q + q->head, (size_t) q->n * sizeof(posted_t));
            q->head = 0;
        } else {
            q->cap = q->cap ? 2 * q->cap : 4;
            q->q = realloc(q->q, (size_t) q->cap * sizeof(posted_t));
            if (NULL == q->q) {
                abort();
            }
        }
    }
    q->q[q->head + q->n++] = p;
}

static posted_t q_pop(pairq_t *q)
{
    posted_t p = q->q[q->head++];
    q->n--;
    return p;
}

/* ------------------------------------------------------------------ */

sim_t *sim_new(int n, bool track_data)
{
    sim_t *s = calloc(1, sizeof(*s));
    if (NULL == s) {
        return NULL;
    }
    s->n = n;
    s->track = track_data;
    s->plans = calloc((size_t) n, sizeof(hcp_plan_t));
    s->bufs = calloc((size_t) n * HCP_NBUF, sizeof(segbuf_t));
    s->round = calloc((size_t) n, sizeof(int));
    s->pending = calloc((size_t) n, sizeof(int));
    s->clock = calloc((size_t) n, sizeof(double));
    s->t_post = calloc((size_t) n, sizeof(double));
    s->nic_free = calloc((size_t) n, sizeof(double));
    s->round_send_done = calloc((size_t) n, sizeof(double));
    s->arrivals = calloc((size_t) n, sizeof(double *));
    s->narrivals = calloc((size_t) n, sizeof(int));
    s->arr_cap = calloc((size_t) n, sizeof(int));
    s->st = calloc((size_t) n, sizeof(sim_stats_t));
    s->ready = calloc((size_t) n, sizeof(int));
    if (!s->plans || !s->bufs || !s->round || !s->pending || !s->clock || !s->t_post
        || !s->nic_free || !s->round_send_done || !s->arrivals || !s->narrivals
        || !s->arr_cap || !s->st || !s->ready) {
        sim_free(s);
        return NULL;
    }
    for (int r = 0; r < n; ++r) {
        hcp_init(&s->plans[r]);
    }
    s->model = sim_model_default;
    return s;
}

void sim_free(sim_t *s)
{
    if (NULL == s) {
        return;
    }
    for (int r = 0; s->plans && r < s->n; ++r) {
        hcp_fini(&s->plans[r]);
    }
    for (int i = 0; s->bufs && i < s->n * HCP_NBUF; ++i) {
        free(s->bufs[i].s);
    }
    for (int r = 0; s->arrivals && r < s->n; ++r) {
        free(s->arrivals[r]);
    }
    for (size_t i = 0; i < s->tab_cap; ++i) {
        free(s->tab[i].q);
    }
    free(s->tab);
    free(s->plans);
    free(s->bufs);
    free(s->round);
    free(s->pending);
    free(s->clock);
    free(s->t_post);
    free(s->nic_free);
    free(s->round_send_done);
    free(s->arrivals);
    free(s->narrivals);
    free(s->arr_cap);
    free(s->st);
    free(s->ready);
    free(s->start);
    free(s->va.s);
    free(s->vb.s);
    free(s->vc.s);
    free(s);
}

int sim_size(const sim_t *s)
{
    return s->n;
}

hcp_plan_t *sim_plan(sim_t *s, int rank)
{
    return &s->plans[rank];
}

const char *sim_error(const sim_t *s)
{
    return s->err[0] ? s->err : NULL;
}

const sim_stats_t *sim_stats(const sim_t *s, int rank)
{
    return &s->st[rank];
}

void sim_set_groups(sim_t *s, int na)
{
    s->na = na;
}

/* The simulator's rank of an op's peer: on an intercommunicator, a local
 * peer is in the own group, the others in the other one. */
static int peer_of(const sim_t *s, int rank, const hcp_op_t *op)
{
    if (0 == s->na) {
        return op->peer;
    }
    bool in_first = (rank < s->na) == (bool) op->local; /* the peer's group */
    return op->peer + (in_first ? 0 : s->na);
}

int sim_plan_all(sim_t *s, sim_planner_fn fn, void *arg,
                 int64_t (*sbuf_units)(int rank, void *arg),
                 int64_t (*rbuf_units)(int rank, void *arg))
{
    for (int r = 0; r < s->n; ++r) {
        if (0 != fn(&s->plans[r], r, arg)) {
            fail(s, "rank %d: planner failed", r);
            return -1;
        }
        int own = s->n, other = s->n;
        if (s->na > 0) {
            own = r < s->na ? s->na : s->n - s->na;
            other = s->n - own;
        }
        const char *why = hcp_validate_inter(&s->plans[r], own, other,
                                             sbuf_units ? sbuf_units(r, arg) : -1,
                                             rbuf_units ? rbuf_units(r, arg) : -1);
        if (NULL != why) {
            fail(s, "rank %d: invalid plan: %s", r, why);
            return -1;
        }
    }
    return 0;
}

void sim_set_start(sim_t *s, int rank, double t)
{
    if (NULL == s->start) {
        s->start = calloc((size_t) s->n, sizeof(double));
        if (NULL == s->start) {
            abort();
        }
    }
    s->start[rank] = t;
}

static segbuf_t *bufof(sim_t *s, int rank, int buf)
{
    return &s->bufs[(size_t) rank * HCP_NBUF + buf];
}

void sim_set(sim_t *s, int rank, int buf, int64_t off, int64_t len, sim_val_t v)
{
    segvec_t one = {0};
    vec_push(&one, off, len, &v);
    seg_write(bufof(s, rank, buf), off, len, &one, &s->vc);
    free(one.s);
}

/* bytes of a range of a plan's buffer */
static int64_t range_bytes(const hcp_plan_t *p, int buf, int64_t units)
{
    return hcp_bytes(p, buf, units);
}

/* dst[doff, +len) <- src[soff, +len) (bytes), symbols shifted */
static void move_bytes(sim_t *s, int srank, int sbuf, int64_t soff, int drank,
                       int dbuf, int64_t doff, int64_t len)
{
    if (!s->track || len <= 0) {
        return;
    }
    seg_read(bufof(s, srank, sbuf), soff, len, &s->va);
    for (int k = 0; k < s->va.n; ++k) {
        seg_t *g = &s->va.s[k];
        g->off = g->off - soff + doff;
        if (g->v.cnt > 0 && !g->v.dec) {
            g->v.shift += soff - doff;
        }
    }
    seg_write(bufof(s, drank, dbuf), doff, len, &s->va, &s->vc);
}

static void reduce_bytes(sim_t *s, int rank, int dbuf, int64_t doff, int sbuf,
                         int64_t soff, int64_t len)
{
    if (!s->track || len <= 0) {
        return;
    }
    seg_read(bufof(s, rank, sbuf), soff, len, &s->va);
    seg_read(bufof(s, rank, dbuf), doff, len, &s->vb);
    segvec_t out = {0};
    int i = 0, j = 0;
    int64_t t = 0; /* relative position */
    while (t < len) {
        seg_t *a = &s->va.s[i], *b = &s->vb.s[j];
        int64_t ae = a->off - soff + a->len, be = b->off - doff + b->len;
        int64_t e = ae < be ? ae : be;
        if (0 == a->v.cnt || 0 == b->v.cnt) {
            fail(s, "rank %d: reduce reads undefined data (%s at byte %lld)", rank,
                 0 == a->v.cnt ? "source" : "target", (long long) t);
            free(out.s);
            return;
        }
        if (!a->v.dec && !b->v.dec && a->v.shift + soff != b->v.shift + doff) {
            fail(s, "rank %d: reduce combines different elements (bytes %lld and %lld)",
                 rank, (long long) (soff + t + a->v.shift), (long long) (doff + t + b->v.shift));
            free(out.s);
            return;
        }
        sim_val_t v = sim_combine(a->v, b->v);
        vec_push(&out, doff + t, e - t, &v);
        t = e;
        if (ae == e) {
            ++i;
        }
        if (be == e) {
            ++j;
        }
    }
    seg_write(bufof(s, rank, dbuf), doff, len, &out, &s->vc);
    free(out.s);
}

static void push_ready(sim_t *s, int rank)
{
    s->ready[s->nready++] = rank;
}

static void add_arrival(sim_t *s, int rank, double t)
{
    if (s->narrivals[rank] == s->arr_cap[rank]) {
        s->arr_cap[rank] = s->arr_cap[rank] ? 2 * s->arr_cap[rank] : 8;
        s->arrivals[rank] = realloc(s->arrivals[rank], (size_t) s->arr_cap[rank] * sizeof(double));
        if (NULL == s->arrivals[rank]) {
            abort();
        }
    }
    s->arrivals[rank][s->narrivals[rank]++] = t;
}

static void match(sim_t *s, posted_t snd, posted_t rcv)
{
    const hcp_op_t *so = &s->plans[snd.rank].ops[snd.op];
    const hcp_op_t *ro = &s->plans[rcv.rank].ops[rcv.op];
    int64_t sb = range_bytes(&s->plans[snd.rank], so->buf, so->count);
    int64_t rb = range_bytes(&s->plans[rcv.rank], ro->buf, ro->count);
    if (sb != rb) {
        fail(s, "message %d -> %d: %lld bytes sent, %lld expected", snd.rank, rcv.rank,
             (long long) sb, (long long) rb);
        return;
    }
    move_bytes(s, snd.rank, so->buf, hcp_bytes(&s->plans[snd.rank], so->buf, so->off),
               rcv.rank, ro->buf, hcp_bytes(&s->plans[rcv.rank], ro->buf, ro->off), sb);
    s->st[snd.rank].msgs_sent++;
    s->st[snd.rank].bytes_sent += sb;
    s->st[rcv.rank].msgs_recv++;
    s->st[rcv.rank].bytes_recv += rb;
    add_arrival(s, rcv.rank, snd.arrival);
    if (0 == --s->pending[snd.rank]) {
        push_ready(s, snd.rank);
    }
    if (0 == --s->pending[rcv.rank]) {
        push_ready(s, rcv.rank);
    }
}

static void post_round(sim_t *s, int rank)
{
    const hcp_plan_t *p = &s->plans[rank];
    if (s->round[rank] >= p->nrounds) {
        return;
    }
    int r = s->round[rank];
    int b = hcp_round_begin(p, r), e = p->round_end[r];
    double t0 = s->clock[rank];
    s->t_post[rank] = t0;
    s->narrivals[rank] = 0;
    s->round_send_done[rank] = t0;
    int ncomm = 0;
    for (int i = b; i < e; ++i) {
        ncomm += hcp_is_comm(&p->ops[i]);
    }
    s->pending[rank] = ncomm + 1; /* +1 until everything is posted */
    double nic = t0 > s->nic_free[rank] ? t0 : s->nic_free[rank];
    for (int i = b; i < e && !s->err[0]; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_SEND == op->kind) {
            int64_t bytes = range_bytes(p, op->buf, op->count);
            double depart = nic;
            nic = depart + s->model.o + s->model.beta * (double) bytes;
            posted_t me = {rank, i, nic + s->model.alpha};
            pairq_t *q = pair_get(s, rank, peer_of(s, rank, op));
            if (q->n > 0 && HCP_RECV == q->kind) {
                match(s, me, q_pop(q));
            } else {
                q_push(q, HCP_SEND, me);
            }
        } else if (HCP_RECV == op->kind) {
            posted_t me = {rank, i, 0};
            pairq_t *q = pair_get(s, peer_of(s, rank, op), rank);
            if (q->n > 0 && HCP_SEND == q->kind) {
                match(s, q_pop(q), me);
            } else {
                q_push(q, HCP_RECV, me);
            }
        }
    }
    s->nic_free[rank] = nic;
    s->round_send_done[rank] = nic;
    if (0 == --s->pending[rank]) {
        push_ready(s, rank);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void complete_round(sim_t *s, int rank)
{
    const hcp_plan_t *p = &s->plans[rank];
    int r = s->round[rank];
    int b = hcp_round_begin(p, r), e = p->round_end[r];
    qsort(s->arrivals[rank], (size_t) s->narrivals[rank], sizeof(double), cmp_double);
    double t = s->t_post[rank];
    for (int k = 0; k < s->narrivals[rank]; ++k) {
        double a = s->arrivals[rank][k];
        t = (t > a ? t : a) + s->model.o;
    }
    if (s->round_send_done[rank] > t) {
        t = s->round_send_done[rank];
    }
    for (int i = b; i < e && !s->err[0]; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_COPY == op->kind) {
            int64_t bytes = range_bytes(p, op->buf, op->count);
            int64_t doff = hcp_bytes(p, op->buf, op->off);
            int64_t soff = hcp_bytes(p, op->sbuf, op->soff);
            if (op->buf == op->sbuf && doff == soff) {
                continue; /* in place */
            }
            move_bytes(s, rank, op->sbuf, soff, rank, op->buf, doff, bytes);
            s->st[rank].bytes_copied += bytes;
            t += s->model.delta * (double) bytes;
        } else if (HCP_REDUCE == op->kind) {
            int64_t bytes = range_bytes(p, op->buf, op->count);
            reduce_bytes(s, rank, op->buf, hcp_bytes(p, op->buf, op->off), op->sbuf,
                         hcp_bytes(p, op->sbuf, op->soff), bytes);
            s->st[rank].bytes_reduced += bytes;
            t += s->model.gamma * (double) bytes;
        }
    }
    s->clock[rank] = t;
    s->round[rank]++;
    s->st[rank].rounds++;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return x < y ? -1 : x > y;
}

static int count_distinct(int *v, int n)
{
    if (0 == n) {
        return 0;
    }
    qsort(v, (size_t) n, sizeof(int), cmp_int);
    int d = 1;
    for (int i = 1; i < n; ++i) {
        d += v[i] != v[i - 1];
    }
    return d;
}

int sim_run(sim_t *s, const sim_model_t *model)
{
    if (NULL != model) {
        s->model = *model;
    }
    for (int r = 0; r < s->n; ++r) {
        s->round[r] = 0;
        s->clock[r] = s->start ? s->start[r] : 0;
        s->nic_free[r] = 0;
        memset(&s->st[r], 0, sizeof(sim_stats_t));
    }
    s->nready = 0;
    for (int r = 0; r < s->n && !s->err[0]; ++r) {
        post_round(s, r);
    }
    while (s->nready > 0 && !s->err[0]) {
        int rank = s->ready[--s->nready];
        complete_round(s, rank);
        post_round(s, rank);
    }
    if (s->err[0]) {
        return -1;
    }
    for (int r = 0; r < s->n; ++r) {
        if (s->round[r] < s->plans[r].nrounds) {
            int pending_peer = -1;
            const hcp_plan_t *p = &s->plans[r];
            for (int i = hcp_round_begin(p, s->round[r]); i < p->round_end[s->round[r]]; ++i) {
                if (hcp_is_comm(&p->ops[i])) {
                    pending_peer = peer_of(s, r, &p->ops[i]);
                    break;
                }
            }
            fail(s, "deadlock: rank %d stuck in round %d of %d (waiting on rank %d among others)",
                 r, s->round[r], p->nrounds, pending_peer);
            return -1;
        }
    }
    /* partners and completion */
    int *peers = NULL;
    int cap = 0;
    for (int r = 0; r < s->n; ++r) {
        const hcp_plan_t *p = &s->plans[r];
        for (int kind = HCP_SEND; kind <= HCP_RECV; ++kind) {
            int k = 0;
            for (int i = 0; i < p->nops; ++i) {
                if (p->ops[i].kind != kind) {
                    continue;
                }
                if (k == cap) {
                    cap = cap ? 2 * cap : 64;
                    peers = realloc(peers, (size_t) cap * sizeof(int));
                    if (NULL == peers) {
                        abort();
                    }
                }
                peers[k++] = peer_of(s, r, &p->ops[i]);
            }
            int d = count_distinct(peers, k);
            if (HCP_SEND == kind) {
                s->st[r].send_partners = d;
            } else {
                s->st[r].recv_partners = d;
            }
        }
        s->st[r].t_end = s->clock[r];
    }
    free(peers);
    for (size_t i = 0; i < s->tab_cap; ++i) {
        if (s->tab[i].key && s->tab[i].n > 0) {
            posted_t p = s->tab[i].q[s->tab[i].head];
            fail(s, "unmatched %s posted by rank %d",
                 HCP_SEND == s->tab[i].kind ? "send" : "receive", p.rank);
            return -1;
        }
    }
    return 0;
}

const char *sim_expect(sim_t *s, int rank, int buf, int64_t off, int64_t len,
                       sim_val_t want, bool ordered)
{
    static char msg[256];
    if (!s->track) {
        return NULL;
    }
    seg_read(bufof(s, rank, buf), off, len, &s->va);
    for (int k = 0; k < s->va.n; ++k) {
        const seg_t *g = &s->va.s[k];
        const char *what = NULL;
        if (0 == g->v.cnt) {
            what = "undefined";
        } else if (g->v.dec != want.dec) {
            what = want.dec ? "not the decided value" : "decided, but no rank decided";
        } else if (want.dec) {
            continue;
        } else if (g->v.cnt != want.cnt) {
            what = "wrong number of contributions";
        } else if (g->v.h1 != want.h1 || g->v.h2 != want.h2) {
            what = "wrong contributions";
        } else if (g->v.shift != want.shift) {
            what = "data from the wrong position";
        } else if (ordered && (g->v.lo != want.lo || g->v.hi != want.hi)) {
            what = "combined out of rank order";
        }
        if (NULL != what) {
            snprintf(msg, sizeof(msg),
                     "rank %d buf %d bytes [%lld,+%lld): %s (have %u contributions [%d..%d] shift "
                     "%lld, want %u [%d..%d] shift %lld)",
                     rank, buf, (long long) g->off, (long long) g->len, what, g->v.cnt, g->v.lo,
                     g->v.hi, (long long) g->v.shift, want.cnt, want.lo, want.hi,
                     (long long) want.shift);
            return msg;
        }
    }
    return NULL;
}

sim_summary_t sim_summarize(const sim_t *s)
{
    sim_summary_t m;
    memset(&m, 0, sizeof(m));
    for (int r = 0; r < s->n; ++r) {
        const sim_stats_t *t = &s->st[r];
        m.total_msgs += t->msgs_sent;
        m.total_bytes += t->bytes_sent;
#define MAXV(f, v) if ((v) > m.f) m.f = (v)
        MAXV(max_msgs_sent, t->msgs_sent);
        MAXV(max_msgs_recv, t->msgs_recv);
        MAXV(max_bytes_sent, t->bytes_sent);
        MAXV(max_bytes_recv, t->bytes_recv);
        MAXV(max_bytes_reduced, t->bytes_reduced);
        MAXV(max_bytes_copied, t->bytes_copied);
        MAXV(max_rounds, t->rounds);
        MAXV(max_recv_partners, t->recv_partners);
        MAXV(t_end, t->t_end);
#undef MAXV
    }
    return m;
}

/* ------------------------------------------------------------------ */
/* Early exit: an event simulation in time                             */
/* ------------------------------------------------------------------ */

typedef struct early_msg {
    int src, sop; /* sender and its send op */
    int dst, rop; /* receiver and its receive op */
    double arrival;
    bool posted, arrived, dec;
    segvec_t data; /* payload, positions relative to the range start */
} early_msg_t;

typedef struct early_ev {
    double t;
    int dec_first; /* at one instant: decided payloads (0), starts (1), others (2) */
    int64_t seq;
    int msg; /* a message, or -1 - rank: the rank starts */
} early_ev_t;

typedef struct early {
    early_msg_t *msgs;
    int nmsgs;
    int *of_op;  /* per rank: base index into op_msg */
    int *op_msg; /* message of (rank, op), -1 for local ops */
    early_ev_t *heap;
    int nheap, heap_cap;
    int64_t seq;
    bool *done, *started;
    int *pending; /* receives of the current round not yet arrived */
    int *posted;  /* the last round whose sends are posted */
} early_t;

static bool ev_less(const early_ev_t *a, const early_ev_t *b)
{
    if (a->t != b->t) {
        return a->t < b->t;
    }
    if (a->dec_first != b->dec_first) {
        return a->dec_first < b->dec_first;
    }
    return a->seq < b->seq;
}

static void ev_push(early_t *e, early_ev_t ev)
{
    if (e->nheap == e->heap_cap) {
        e->heap_cap = e->heap_cap ? 2 * e->heap_cap : 64;
        e->heap = realloc(e->heap, (size_t) e->heap_cap * sizeof(*e->heap));
        if (NULL == e->heap) {
            abort();
        }
    }
    int i = e->nheap++;
    ev.seq = e->seq++;
    while (i > 0 && ev_less(&ev, &e->heap[(i - 1) / 2])) {
        e->heap[i] = e->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->heap[i] = ev;
}

static early_ev_t ev_pop(early_t *e)
{
    early_ev_t top = e->heap[0], last = e->heap[--e->nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= e->nheap) {
            break;
        }
        if (c + 1 < e->nheap && ev_less(&e->heap[c + 1], &e->heap[c])) {
            ++c;
        }
        if (!ev_less(&e->heap[c], &last)) {
            break;
        }
        e->heap[i] = e->heap[c];
        i = c;
    }
    if (e->nheap > 0) {
        e->heap[i] = last;
    }
    return top;
}

/* Is [off, off+len) of a rank's buffer decided in every byte? */
static bool range_decided(sim_t *s, int rank, int buf, int64_t off, int64_t len)
{
    seg_read(bufof(s, rank, buf), off, len, &s->va);
    for (int k = 0; k < s->va.n; ++k) {
        if (0 == s->va.s[k].v.cnt || !s->va.s[k].v.dec) {
            return false;
        }
    }
    return s->va.n > 0;
}

/* Post a send: its payload is the source range now, or the decided value. */
static void early_send(sim_t *s, early_t *e, int rank, int i, bool decided)
{
    const hcp_plan_t *p = &s->plans[rank];
    const hcp_op_t *op = &p->ops[i];
    early_msg_t *m = &e->msgs[e->op_msg[e->of_op[rank] + i]];
    int64_t bytes = range_bytes(p, op->buf, op->count);
    double depart = s->clock[rank] > s->nic_free[rank] ? s->clock[rank] : s->nic_free[rank];
    s->nic_free[rank] = depart + s->model.o + s->model.beta * (double) bytes;
    m->arrival = s->nic_free[rank] + s->model.alpha;
    m->posted = true;
    s->st[rank].msgs_sent++;
    s->st[rank].bytes_sent += bytes;
    m->data.n = 0;
    if (s->track) {
        if (decided) {
            sim_val_t d = sim_decided();
            vec_push(&m->data, 0, bytes, &d);
        } else {
            int64_t soff = hcp_bytes(p, op->buf, op->off);
            seg_read(bufof(s, rank, op->buf), soff, bytes, &s->va);
            for (int k = 0; k < s->va.n; ++k) {
                seg_t g = s->va.s[k];
                if (g.v.cnt > 0 && !g.v.dec) {
                    g.v.shift += soff;
                }
                vec_push(&m->data, g.off - soff, g.len, &g.v);
            }
        }
    }
    bool all_dec = m->data.n > 0;
    for (int k = 0; k < m->data.n; ++k) {
        all_dec = all_dec && m->data.s[k].v.dec;
    }
    m->dec = all_dec;
    early_ev_t ev = {.t = m->arrival, .dec_first = all_dec ? 0 : 2, .msg = (int) (m - e->msgs)};
    ev_push(e, ev);
}

static void early_decide(sim_t *s, early_t *e, int rank)
{
    const hcp_plan_t *p = &s->plans[rank];
    e->done[rank] = true;
    s->st[rank].early = true;
    int first = e->posted[rank] < 0 ? 0 : p->round_end[e->posted[rank]];
    for (int i = first; i < p->nops; ++i) {
        if (HCP_SEND == p->ops[i].kind) {
            early_send(s, e, rank, i, true);
        }
    }
    if (p->sc_out && s->track) {
        sim_set(s, rank, HCP_RBUF, 0, hcp_bytes(p, HCP_RBUF, p->sc_count), sim_decided());
    }
    s->st[rank].t_end = s->clock[rank];
}

/* Post round r's sends and count its receives still to come. */
static void early_post(sim_t *s, early_t *e, int rank)
{
    const hcp_plan_t *p = &s->plans[rank];
    int r = s->round[rank];
    e->pending[rank] = 0;
    e->posted[rank] = r;
    s->t_post[rank] = s->clock[rank];
    for (int i = hcp_round_begin(p, r); i < p->round_end[r]; ++i) {
        if (HCP_SEND == p->ops[i].kind) {
            early_send(s, e, rank, i, false);
        } else if (HCP_RECV == p->ops[i].kind) {
            early_msg_t *m = &e->msgs[e->op_msg[e->of_op[rank] + i]];
            if (!m->arrived) {
                e->pending[rank]++;
            } else if (m->arrival > s->clock[rank]) {
                s->clock[rank] = m->arrival;
            }
        }
    }
    s->round_send_done[rank] = s->nic_free[rank];
}

/* Complete rounds while their receives are in; decide when the running
 * result is decided. */
static void early_progress(sim_t *s, early_t *e, int rank)
{
    const hcp_plan_t *p = &s->plans[rank];
    while (!e->done[rank] && 0 == e->pending[rank] && !s->err[0]) {
        int r = s->round[rank];
        double t = s->clock[rank];
        if (s->round_send_done[rank] > t) {
            t = s->round_send_done[rank];
        }
        int last_reduce = -1;
        for (int i = hcp_round_begin(p, r); i < p->round_end[r] && !s->err[0]; ++i) {
            const hcp_op_t *op = &p->ops[i];
            int64_t bytes = range_bytes(p, op->buf, op->count);
            if (HCP_RECV == op->kind) {
                early_msg_t *m = &e->msgs[e->op_msg[e->of_op[rank] + i]];
                int64_t doff = hcp_bytes(p, op->buf, op->off);
                segvec_t *d = &m->data;
                for (int k = 0; k < d->n; ++k) {
                    d->s[k].off += doff;
                    if (d->s[k].v.cnt > 0 && !d->s[k].v.dec) {
                        d->s[k].v.shift -= doff;
                    }
                }
                if (s->track) {
                    seg_write(bufof(s, rank, op->buf), doff, bytes, d, &s->vc);
                }
            } else if (HCP_COPY == op->kind) {
                int64_t doff = hcp_bytes(p, op->buf, op->off);
                int64_t soff = hcp_bytes(p, op->sbuf, op->soff);
                if (op->buf != op->sbuf || doff != soff) {
                    move_bytes(s, rank, op->sbuf, soff, rank, op->buf, doff, bytes);
                    s->st[rank].bytes_copied += bytes;
                    t += s->model.delta * (double) bytes;
                }
            } else if (HCP_REDUCE == op->kind) {
                reduce_bytes(s, rank, op->buf, hcp_bytes(p, op->buf, op->off), op->sbuf,
                             hcp_bytes(p, op->sbuf, op->soff), bytes);
                s->st[rank].bytes_reduced += bytes;
                t += s->model.gamma * (double) bytes;
                if (op->flags & HCP_F_RUNNING) {
                    last_reduce = i;
                }
            }
        }
        s->clock[rank] = t;
        s->round[rank]++;
        s->st[rank].rounds++;
        if (last_reduce >= 0) {
            const hcp_op_t *op = &p->ops[last_reduce];
            if (range_decided(s, rank, op->buf, hcp_bytes(p, op->buf, op->off),
                              range_bytes(p, op->buf, op->count))) {
                early_decide(s, e, rank);
                return;
            }
        }
        if (s->round[rank] >= p->nrounds) {
            e->done[rank] = true;
            s->st[rank].t_end = t;
            return;
        }
        early_post(s, e, rank);
    }
}

static void early_free(early_t *e)
{
    for (int k = 0; k < e->nmsgs; ++k) {
        free(e->msgs[k].data.s);
    }
    free(e->msgs);
    free(e->of_op);
    free(e->op_msg);
    free(e->heap);
    free(e->done);
    free(e->started);
    free(e->pending);
    free(e->posted);
}

/* Pair every send with its receive: the k-th send from a to b in plan
 * order meets the k-th receive from a posted by b (all receives are
 * posted at once, in plan order, and sends go out in plan order). */
static int early_match(sim_t *s, early_t *e)
{
    int total = 0;
    for (int r = 0; r < s->n; ++r) {
        e->of_op[r] = total;
        total += s->plans[r].nops;
    }
    e->op_msg = malloc(sizeof(int) * (size_t) (total + 1));
    e->msgs = calloc((size_t) total + 1, sizeof(early_msg_t));
    if (NULL == e->op_msg || NULL == e->msgs) {
        abort();
    }
    for (int k = 0; k < total; ++k) {
        e->op_msg[k] = -1;
    }
    /* receives first: a queue per (src, dst) of receive ops */
    for (int r = 0; r < s->n; ++r) {
        const hcp_plan_t *p = &s->plans[r];
        for (int i = 0; i < p->nops; ++i) {
            if (HCP_RECV == p->ops[i].kind) {
                posted_t me = {r, i, 0};
                q_push(pair_get(s, p->ops[i].peer, r), HCP_RECV, me);
            }
        }
    }
    for (int r = 0; r < s->n && !s->err[0]; ++r) {
        const hcp_plan_t *p = &s->plans[r];
        for (int i = 0; i < p->nops; ++i) {
            if (HCP_SEND != p->ops[i].kind) {
                continue;
            }
            pairq_t *q = pair_get(s, r, p->ops[i].peer);
            if (0 == q->n) {
                fail(s, "unmatched send posted by rank %d (op %d to %d)", r, i, p->ops[i].peer);
                return -1;
            }
            posted_t rcv = q_pop(q);
            const hcp_op_t *ro = &s->plans[rcv.rank].ops[rcv.op];
            int64_t sb = range_bytes(p, p->ops[i].buf, p->ops[i].count);
            int64_t rb = range_bytes(&s->plans[rcv.rank], ro->buf, ro->count);
            if (sb != rb) {
                fail(s, "message %d -> %d: %lld bytes sent, %lld expected", r, rcv.rank,
                     (long long) sb, (long long) rb);
                return -1;
            }
            early_msg_t *m = &e->msgs[e->nmsgs];
            m->src = r;
            m->sop = i;
            m->dst = rcv.rank;
            m->rop = rcv.op;
            e->op_msg[e->of_op[r] + i] = e->op_msg[e->of_op[rcv.rank] + rcv.op] = e->nmsgs++;
        }
    }
    for (size_t i = 0; i < s->tab_cap && !s->err[0]; ++i) {
        if (s->tab[i].key && s->tab[i].n > 0) {
            fail(s, "unmatched receive posted by rank %d", s->tab[i].q[s->tab[i].head].rank);
            s->tab[i].n = 0;
        }
    }
    return s->err[0] ? -1 : 0;
}

/* A rank starts: decided by its input or by a decided message that came
 * before it (matched as its receives are posted), else round 0. */
static void early_start(sim_t *s, early_t *e, int r)
{
    const hcp_plan_t *p = &s->plans[r];
    e->started[r] = true;
    if (0 == p->nrounds) {
        e->done[r] = true;
        s->st[r].t_end = s->clock[r];
        return;
    }
    bool dec =
        p->sc_count > 0 && range_decided(s, r, p->sc_in, 0, hcp_bytes(p, p->sc_in, p->sc_count));
    for (int i = 0; i < p->nops && !dec; ++i) {
        if (HCP_RECV == p->ops[i].kind && (p->ops[i].flags & HCP_F_RUNNING)) {
            const early_msg_t *m = &e->msgs[e->op_msg[e->of_op[r] + i]];
            dec = m->arrived && m->dec;
        }
    }
    if (dec) {
        early_decide(s, e, r);
        return;
    }
    early_post(s, e, r);
    early_progress(s, e, r);
}

int sim_run_early(sim_t *s, const sim_model_t *model)
{
    early_t e;
    memset(&e, 0, sizeof(e));
    if (NULL != model) {
        s->model = *model;
    }
    if (!s->track) {
        fail(s, "sim_run_early needs data tracking");
        return -1;
    }
    e.of_op = calloc((size_t) s->n, sizeof(int));
    e.done = calloc((size_t) s->n, sizeof(bool));
    e.started = calloc((size_t) s->n, sizeof(bool));
    e.pending = calloc((size_t) s->n, sizeof(int));
    e.posted = calloc((size_t) s->n, sizeof(int));
    if (!e.of_op || !e.done || !e.started || !e.pending || !e.posted) {
        abort();
    }
    for (int r = 0; r < s->n; ++r) {
        s->round[r] = 0;
        s->clock[r] = s->start ? s->start[r] : 0;
        s->nic_free[r] = 0;
        e.posted[r] = -1;
        memset(&s->st[r], 0, sizeof(sim_stats_t));
        early_ev_t ev = {.t = s->clock[r], .dec_first = 1, .msg = -1 - r};
        ev_push(&e, ev);
    }
    if (0 != early_match(s, &e)) {
        early_free(&e);
        return -1;
    }
    while (e.nheap > 0 && !s->err[0]) {
        early_ev_t ev = ev_pop(&e);
        if (ev.msg < 0) {
            early_start(s, &e, -1 - ev.msg);
            continue;
        }
        early_msg_t *m = &e.msgs[ev.msg];
        int r = m->dst;
        const hcp_plan_t *p = &s->plans[r];
        m->arrived = true;
        s->st[r].msgs_recv++;
        s->st[r].bytes_recv += range_bytes(p, p->ops[m->rop].buf, p->ops[m->rop].count);
        if (e.done[r] || !e.started[r]) {
            continue; /* completes into its landing slot later / sooner */
        }
        if (s->clock[r] < m->arrival) {
            s->clock[r] = m->arrival;
        }
        if (m->dec && (p->ops[m->rop].flags & HCP_F_RUNNING)) {
            early_decide(s, &e, r);
            continue;
        }
        if (m->rop >= hcp_round_begin(p, s->round[r]) && m->rop < p->round_end[s->round[r]]) {
            s->clock[r] += s->model.o;
            e.pending[r]--;
            early_progress(s, &e, r);
        }
    }
    for (int r = 0; r < s->n && !s->err[0]; ++r) {
        if (!e.done[r]) {
            fail(s, "deadlock: rank %d stuck in round %d of %d", r, s->round[r],
                 s->plans[r].nrounds);
        }
    }
    for (int k = 0; k < e.nmsgs && !s->err[0]; ++k) {
        if (!e.msgs[k].posted || !e.msgs[k].arrived) {
            fail(s, "message %d -> %d never %s", e.msgs[k].src, e.msgs[k].dst,
                 e.msgs[k].posted ? "arrived" : "sent");
        }
    }
    early_free(&e);
    return s->err[0] ? -1 : 0;
}
