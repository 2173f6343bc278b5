/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Short-circuit reductions: the absorbing values of the
 * predefined (op, integer/logical type) pairs, and the plans that carry
 * the running result on every message, so that the executor can let a
 * decided rank send the decided value on all its remaining sends and
 * return (see coll_hiercoll_exec.c, "Early exit").  MPI-free.
 *
 * Exactness: Open MPI computes LAND as a && b, LOR as a || b (1, whatever
 * the nonzero value was), BAND/BOR bitwise, MAX as a > b ? a : b, MIN as
 * a < b ? a : b and PROD as a * b, all in the element's C type.  So for
 * integers an element that is 0 decides LAND, BAND and PROD; a nonzero one
 * decides LOR (result 1); all bits set decides BOR; the type's highest
 * (lowest) value decides MAX (MIN).  Floating point never: a NaN elsewhere
 * changes MIN/MAX, 0 * inf is NaN and -0.0 differs from 0.0.
 */
#include "coll_hiercoll_plan.h"

#include <string.h>

/* Element e (size bytes) as an unsigned 64-bit number (no sign extension). */
static inline uint64_t load(const unsigned char *p, int size)
{
    switch (size) {
    case 1:
        return *p;
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

static inline void store(unsigned char *p, int size, uint64_t v)
{
    switch (size) {
    case 1:
        *p = (unsigned char) v;
        break;
    case 2: {
        uint16_t w = (uint16_t) v;
        memcpy(p, &w, 2);
        break;
    }
    case 4: {
        uint32_t w = (uint32_t) v;
        memcpy(p, &w, 4);
        break;
    }
    default:
        memcpy(p, &v, 8);
        break;
    }
}

bool hcp_sc_kind(hcp_sc_kind_t *k, hcp_sc_op_t op, hcp_sc_class_t cls, int size)
{
    memset(k, 0, sizeof(*k));
    if (1 != size && 2 != size && 4 != size && 8 != size) {
        return false;
    }
    uint64_t ones = 8 == size ? ~(uint64_t) 0 : ((uint64_t) 1 << (8 * size)) - 1;
    uint64_t top = (uint64_t) 1 << (8 * size - 1); /* the sign bit */
    uint64_t v;
    bool logical = HCP_SC_BOOL == cls, bits = HCP_SC_BYTE == cls;
    switch (op) {
    case HCP_SC_LAND:
        if (bits) {
            return false;
        }
        v = 0;
        break;
    case HCP_SC_LOR:
        if (bits) {
            return false;
        }
        v = 1;
        break;
    case HCP_SC_BAND:
    case HCP_SC_BOR:
        if (logical) {
            return false;
        }
        v = HCP_SC_BAND == op ? 0 : ones;
        break;
    case HCP_SC_MAX:
    case HCP_SC_MIN:
        if (logical || bits) {
            return false;
        }
        if (HCP_SC_SIGNED == cls) {
            v = HCP_SC_MAX == op ? top - 1 : top;
        } else {
            v = HCP_SC_MAX == op ? ones : 0;
        }
        break;
    case HCP_SC_PROD:
        if (logical || bits) {
            return false;
        }
        v = 0;
        break;
    default:
        return false;
    }
    k->op = op;
    k->cls = cls;
    k->size = size;
    store(k->decided, size, v);
    return true;
}

bool hcp_sc_decided(const hcp_sc_kind_t *k, const void *buf, int64_t count)
{
    const unsigned char *p = buf;
    int size = k->size;
    if (HCP_SC_LOR == k->op) { /* any nonzero element decides */
        for (int64_t i = 0; i < count; ++i, p += size) {
            if (0 == load(p, size)) {
                return false;
            }
        }
        return true;
    }
    uint64_t z = load(k->decided, size);
    for (int64_t i = 0; i < count; ++i, p += size) {
        if (load(p, size) != z) {
            return false;
        }
    }
    return true;
}

void hcp_sc_fill(const hcp_sc_kind_t *k, void *buf, int64_t count)
{
    unsigned char *p = buf;
    for (int64_t i = 0; i < count; ++i, p += k->size) {
        memcpy(p, k->decided, (size_t) k->size);
    }
}

/* ------------------------------------------------------------------ */
/* Plans                                                                */
/* ------------------------------------------------------------------ */

void hcp_sc_mark(hcp_plan_t *p, int64_t count, int in_buf, bool out)
{
    p->sc_count = 0;
    if (count <= 0) {
        return;
    }
    bool comm = false;
    for (int i = 0; i < p->nops; ++i) {
        hcp_op_t *op = &p->ops[i];
        bool whole = count == op->count; /* the whole vector, wherever it lies */
        if (HCP_SEND == op->kind && !whole) {
            for (int j = 0; j < i; ++j) {
                p->ops[j].flags &= (uint8_t) ~HCP_F_RUNNING;
            }
            return; /* a send of part of the vector: no early exit */
        }
        comm |= hcp_is_comm(op);
        if (whole && HCP_COPY != op->kind) {
            op->flags |= HCP_F_RUNNING;
        }
    }
    if (!comm) {
        return; /* one process: nothing to gain, and LOR must keep its value */
    }
    p->sc_count = count;
    p->sc_in = (uint8_t) in_buf;
    p->sc_out = out;
}

int hcp_allreduce_shortcut(hcp_plan_t *p, int n, int rank, int64_t count, size_t esize,
                           bool in_place)
{
    if (0 != hcp_allreduce_recursive_doubling(p, n, rank, count, esize, true, in_place)) {
        return -1;
    }
    hcp_sc_mark(p, count, in_place ? HCP_RBUF : HCP_SBUF, true);
    return 0;
}

int hcp_reduce_shortcut(hcp_plan_t *p, int n, int rank, int root, int64_t count, size_t esize,
                        bool in_place, int decider)
{
    /* The relabelling swaps the decider with the root's first child; it
     * is its own inverse, and the op is commutative, so any order of the
     * inputs gives the same result. */
    int first = (root + 1) % n, a = -1, b = -1;
    if (decider >= 0 && decider < n && decider != root && decider != first) {
        a = decider;
        b = first;
    }
#define SWAP(r) ((r) == a ? b : (r) == b ? a : (r))
    if (0 != hcp_reduce_binomial(p, n, SWAP(rank), root, count, esize, true, in_place)) {
        return -1;
    }
    for (int i = 0; i < p->nops && a >= 0; ++i) {
        if (hcp_is_comm(&p->ops[i])) {
            p->ops[i].peer = SWAP(p->ops[i].peer);
        }
    }
#undef SWAP
    hcp_sc_mark(p, count, rank == root && in_place ? HCP_RBUF : HCP_SBUF, rank == root);
    return 0;
}
