/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Plan building, validation and the tree helpers shared by the planners.
 * MPI-free: see coll_hiercoll_plan.h.
 */
#include "coll_hiercoll_plan.h"

#include <stdlib.h>
#include <string.h>

void hcp_init(hcp_plan_t *p)
{
    memset(p, 0, sizeof(*p));
}

void hcp_fini(hcp_plan_t *p)
{
    free(p->ops);
    free(p->round_end);
    memset(p, 0, sizeof(*p));
}

void hcp_reset(hcp_plan_t *p, size_t ssize, size_t rsize)
{
    p->nops = 0;
    p->nrounds = 0;
    p->open_start = 0;
    p->max_comm = 0;
    p->oom = false;
    p->sc_count = 0;
    p->sc_in = HCP_SBUF;
    p->sc_out = p->sc_force = false;
    for (int b = 0; b < HCP_NBUF; ++b) {
        p->unit[b] = HCP_UNIT_NONE;
        p->tmp_units[b] = 0;
        p->unit_size[b] = 0;
    }
    p->unit[HCP_SBUF] = HCP_UNIT_STYPE;
    p->unit[HCP_RBUF] = HCP_UNIT_RTYPE;
    p->unit_size[HCP_SBUF] = ssize;
    p->unit_size[HCP_RBUF] = rsize;
}

void hcp_scratch(hcp_plan_t *p, int buf, hcp_unit_t unit, int64_t units)
{
    p->unit[buf] = unit;
    switch (unit) {
    case HCP_UNIT_STYPE: p->unit_size[buf] = p->unit_size[HCP_SBUF]; break;
    case HCP_UNIT_RTYPE: p->unit_size[buf] = p->unit_size[HCP_RBUF]; break;
    default: p->unit_size[buf] = 1; break;
    }
    if (units > p->tmp_units[buf]) {
        p->tmp_units[buf] = units;
    }
}

static hcp_op_t *push(hcp_plan_t *p)
{
    if (p->nops == p->ops_cap) {
        int cap = p->ops_cap ? 2 * p->ops_cap : 16;
        hcp_op_t *ops = realloc(p->ops, (size_t) cap * sizeof(*ops));
        if (NULL == ops) {
            p->oom = true;
            return NULL;
        }
        p->ops = ops;
        p->ops_cap = cap;
    }
    hcp_op_t *op = &p->ops[p->nops++];
    memset(op, 0, sizeof(*op));
    op->peer = -1;
    return op;
}

void hcp_end_round(hcp_plan_t *p)
{
    if (p->nops == p->open_start) {
        return;
    }
    if (p->nrounds == p->rounds_cap) {
        int cap = p->rounds_cap ? 2 * p->rounds_cap : 8;
        int *re = realloc(p->round_end, (size_t) cap * sizeof(*re));
        if (NULL == re) {
            p->oom = true;
            return;
        }
        p->round_end = re;
        p->rounds_cap = cap;
    }
    int ncomm = 0;
    for (int i = p->open_start; i < p->nops; ++i) {
        ncomm += hcp_is_comm(&p->ops[i]);
    }
    if (ncomm > p->max_comm) {
        p->max_comm = ncomm;
    }
    p->round_end[p->nrounds++] = p->nops;
    p->open_start = p->nops;
}

static void comm_op(hcp_plan_t *p, int kind, int peer, int buf, int64_t off,
                    int64_t count)
{
    hcp_op_t *op = push(p);
    if (NULL == op) {
        return;
    }
    op->kind = (uint8_t) kind;
    op->peer = peer;
    op->buf = (uint8_t) buf;
    op->off = off;
    op->count = count;
}

void hcp_send(hcp_plan_t *p, int peer, int buf, int64_t off, int64_t count)
{
    comm_op(p, HCP_SEND, peer, buf, off, count);
}

void hcp_recv(hcp_plan_t *p, int peer, int buf, int64_t off, int64_t count)
{
    comm_op(p, HCP_RECV, peer, buf, off, count);
}

void hcp_copy(hcp_plan_t *p, int dbuf, int64_t doff, int64_t dcount, int sbuf,
              int64_t soff, int64_t scount)
{
    hcp_op_t *op = push(p);
    if (NULL == op) {
        return;
    }
    op->kind = HCP_COPY;
    op->buf = (uint8_t) dbuf;
    op->off = doff;
    op->count = dcount;
    op->sbuf = (uint8_t) sbuf;
    op->soff = soff;
    op->scount = scount;
}

void hcp_copy1(hcp_plan_t *p, int dbuf, int64_t doff, int sbuf, int64_t soff,
               int64_t count)
{
    hcp_copy(p, dbuf, doff, count, sbuf, soff, count);
}

void hcp_reduce(hcp_plan_t *p, int dbuf, int64_t doff, int sbuf, int64_t soff,
                int64_t count)
{
    hcp_op_t *op = push(p);
    if (NULL == op) {
        return;
    }
    op->kind = HCP_REDUCE;
    op->buf = (uint8_t) dbuf;
    op->off = doff;
    op->count = count;
    op->sbuf = (uint8_t) sbuf;
    op->soff = soff;
    op->scount = count;
}

int hcp_finish(hcp_plan_t *p)
{
    hcp_end_round(p);
    return p->oom ? -1 : 0;
}

void hcp_append(hcp_plan_t *dst, const hcp_plan_t *src, const uint8_t map[HCP_NBUF],
                bool local)
{
    hcp_end_round(dst);
    for (int b = HCP_TMP0; b < HCP_NBUF; ++b) {
        if (src->tmp_units[b] > 0) {
            hcp_scratch(dst, map[b], src->unit[b], src->tmp_units[b]);
        }
    }
    for (int r = 0; r < src->nrounds; ++r) {
        for (int i = hcp_round_begin(src, r); i < src->round_end[r]; ++i) {
            hcp_op_t *op = push(dst);
            if (NULL == op) {
                return;
            }
            *op = src->ops[i];
            op->buf = map[op->buf];
            if (hcp_is_comm(op)) {
                op->local = local;
            } else {
                op->sbuf = map[op->sbuf];
            }
        }
        hcp_end_round(dst);
    }
    dst->oom |= src->oom;
}

/* ------------------------------------------------------------------ */

/* A transfer's range, for the overlap check of one round. */
typedef struct span {
    int64_t off, end;
    int buf;
    bool recv;
} span_t;

static int cmp_span(const void *x, const void *y)
{
    const span_t *a = x, *b = y;
    if (a->buf != b->buf) {
        return a->buf - b->buf;
    }
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Does a receive of round [b, e) overlap another transfer of it (the data
 * would race)?  Sorted by buffer and offset, a range overlaps an earlier
 * one exactly when it starts before the furthest end seen so far. */
static const char *round_races(const hcp_plan_t *p, int b, int e)
{
    span_t *v = malloc(sizeof(*v) * (size_t) (e - b + 1));
    int k = 0;
    const char *why = NULL;
    if (NULL == v) {
        return "out of memory while validating";
    }
    for (int i = b; i < e; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (hcp_is_comm(op) && op->count > 0) {
            v[k++] = (span_t){op->off, op->off + op->count, op->buf, HCP_RECV == op->kind};
        }
    }
    qsort(v, (size_t) k, sizeof(*v), cmp_span);
    int64_t end_any = INT64_MIN, end_recv = INT64_MIN; /* furthest ends in this buffer */
    for (int i = 0; i < k && NULL == why; ++i) {
        if (i > 0 && v[i].buf != v[i - 1].buf) {
            end_any = end_recv = INT64_MIN;
        }
        if (v[i].off < end_recv || (v[i].recv && v[i].off < end_any)) {
            why = "a receive overlaps another transfer of its round";
        }
        end_any = v[i].end > end_any ? v[i].end : end_any;
        if (v[i].recv && v[i].end > end_recv) {
            end_recv = v[i].end;
        }
    }
    free(v);
    return why;
}

static int64_t bound_of(const hcp_plan_t *p, int buf, int64_t sbuf_units,
                        int64_t rbuf_units)
{
    if (HCP_SBUF == buf) {
        return sbuf_units;
    }
    if (HCP_RBUF == buf) {
        return rbuf_units;
    }
    return p->tmp_units[buf];
}

static const char *check_range(const hcp_plan_t *p, int buf, int64_t off,
                               int64_t count, int64_t sbuf_units,
                               int64_t rbuf_units)
{
    if (buf < 0 || buf >= HCP_NBUF) {
        return "buffer id out of range";
    }
    if (off < 0 || count < 0) {
        return "negative offset or count";
    }
    if (buf >= HCP_TMP0 && count > 0 && HCP_UNIT_NONE == p->unit[buf]) {
        return "scratch buffer used but never declared";
    }
    int64_t bound = bound_of(p, buf, sbuf_units, rbuf_units);
    if (bound >= 0 && count > 0 && off + count > bound) {
        return "range beyond the end of its buffer";
    }
    return NULL;
}

const char *hcp_validate(const hcp_plan_t *p, int n, int64_t sbuf_units,
                         int64_t rbuf_units)
{
    return hcp_validate_inter(p, n, n, sbuf_units, rbuf_units);
}

const char *hcp_validate_inter(const hcp_plan_t *p, int nlocal, int nremote,
                               int64_t sbuf_units, int64_t rbuf_units)
{
    if (p->oom) {
        return "out of memory while building";
    }
    if (p->open_start != p->nops) {
        return "last round not closed (hcp_finish not called)";
    }
    for (int r = 0; r < p->nrounds; ++r) {
        int b = hcp_round_begin(p, r), e = p->round_end[r];
        if (b >= e) {
            return "empty round";
        }
        for (int i = b; i < e; ++i) {
            const hcp_op_t *op = &p->ops[i];
            const char *why;
            if (op->kind > HCP_REDUCE) {
                return "unknown op kind";
            }
            why = check_range(p, op->buf, op->off, op->count, sbuf_units,
                              rbuf_units);
            if (NULL != why) {
                return why;
            }
            if (hcp_is_comm(op)) {
                if (op->peer < 0 || op->peer >= (op->local ? nlocal : nremote)) {
                    return "peer out of range";
                }
                if (HCP_RECV == op->kind && HCP_SBUF == op->buf && op->count > 0) {
                    return "receive into the send buffer";
                }
                continue;
            }
            why = check_range(p, op->sbuf, op->soff, op->scount, sbuf_units,
                              rbuf_units);
            if (NULL != why) {
                return why;
            }
            if (HCP_SBUF == op->buf && op->count > 0) {
                return "local op writes the send buffer";
            }
            if (HCP_COPY == op->kind && hcp_bytes(p, op->buf, op->count)
                != hcp_bytes(p, op->sbuf, op->scount)) {
                return "copy between ranges of different signature sizes";
            }
            if (HCP_REDUCE == op->kind
                && (op->count != op->scount
                    || p->unit_size[op->buf] != p->unit_size[op->sbuf])) {
                return "reduce between ranges of different sizes";
            }
        }
        const char *why = round_races(p, b, e);
        if (NULL != why) {
            return why;
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Trees                                                                */
/* ------------------------------------------------------------------ */

int hcp_pof2_floor(int n)
{
    int p = 1;
    while (p <= n / 2) {
        p <<= 1;
    }
    return p;
}

int hcp_ceil_log2(int n)
{
    int k = 0;
    while ((1LL << k) < (long long) n) {
        ++k;
    }
    return k;
}

int hcp_binomial_parent(int v)
{
    return 0 == v ? -1 : (v & (v - 1));
}

int hcp_binomial_subtree(int n, int v)
{
    if (0 == v) {
        return n;
    }
    int low = v & -v;
    return low < n - v ? low : n - v;
}

int hcp_binomial_children(int n, int v, int *children, int max)
{
    int k = 0;
    for (long long mask = 1; mask < n; mask <<= 1) {
        if (v & mask) {
            break;
        }
        if (v + mask < n) {
            if (k < max) {
                children[k] = (int) (v + mask);
            }
            ++k;
        }
    }
    return k;
}
