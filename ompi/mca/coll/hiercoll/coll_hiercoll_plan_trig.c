/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Triggered-operation programs: allreduce and reduce on
 * K-nomial and K-ary trees, everything armed up front, the leaves start
 * the cascade.  MPI-free: see coll_hiercoll_trig.h.
 *
 * Per packet index, counter UP (slot 0: this rank's input, slot 1 + i:
 * child i's partial result) and, for allreduce, DOWN (slot 0: the result).
 *   root   UP >= 1 + children: reduce the slots in order; allreduce: STORE
 *          the result into its own DOWN and ADD one there (the published design's
 *          "reduce packet to itself"); reduce: DELIVER, DONE.
 *   inner  UP >= 1 + children: reduce, SEND to the parent's UP slot.
 *   leaf   UP >= 1 (its own input, put at arm time): fires at once.
 *   all    DOWN >= 1: LOAD, DELIVER, SEND to every child's DOWN, DONE.
 */
#include "coll_hiercoll_trig.h"

#include <stdbool.h>

enum { UP = 0, DOWN = 1 };

int hct_tree_parent(hct_shape_t s, int k, int n, int v)
{
    (void) n;
    if (v <= 0) {
        return -1;
    }
    if (HCT_KARY == s) {
        return (v - 1) / k;
    }
    int m = 1;
    while (0 == (v / m) % k) {
        m *= k;
    }
    return v - ((v / m) % k) * m;
}

int hct_tree_children(hct_shape_t s, int k, int n, int v, int *children, int max)
{
    int nc = 0;
    if (HCT_KARY == s) {
        for (int i = 1; i <= k; ++i) {
            long c = (long) v * k + i;
            if (c >= n) {
                break;
            }
            if (nc < max) {
                children[nc] = (int) c;
            }
            ++nc;
        }
        return nc;
    }
    /* K-nomial: v + i * m, i < k, for every power m of k below the weight
     * of v's lowest nonzero digit (any m for the root) */
    long w = 1;
    while (v > 0 && 0 == (v / w) % k) {
        w *= k;
    }
    for (long m = 1; m < n && (0 == v || m < w); m *= k) {
        for (int i = 1; i < k; ++i) {
            long c = v + i * m;
            if (c >= n) {
                return nc;
            }
            if (nc < max) {
                children[nc] = (int) c;
            }
            ++nc;
        }
    }
    return nc;
}

void hct_tree_auto(int reduce, int n, int *shape, int *k)
{
    bool flat = n <= 8;
    if (*shape < 0) {
        *shape = reduce && !flat ? HCT_KARY : HCT_KNOMIAL;
    }
    if (*k <= 0) {
        *k = flat || reduce ? 8 : n <= 64 ? 2 : 4;
    }
}

int hct_tree_height(hct_shape_t s, int k, int n)
{
    if (n <= 1) {
        return 0;
    }
    if (HCT_KARY == s) {
        int h = 0;
        long total = 1, width = 1;
        while (total < n) {
            width *= k;
            total += width;
            ++h;
        }
        return h;
    }
    /* the most nonzero base-k digits of a number below n */
    int dig[40], nd = 0;
    for (int x = n - 1; x > 0; x /= k) {
        dig[nd++] = x % k;
    }
    int best = 0, above = 0;
    for (int i = nd - 1; i >= 0; --i) {
        if (dig[i] > 0) { /* lower digit i, fill below with k-1 */
            int c = above + (dig[i] > 1 ? 1 : 0) + i;
            best = c > best ? c : best;
            above++;
        }
    }
    return above > best ? above : best; /* n - 1 itself */
}

/* The position of relative rank v among its parent's children. */
static int child_index(hct_shape_t s, int k, int v)
{
    if (HCT_KARY == s) {
        return (v - 1) % k;
    }
    int m = 1, j = 0;
    while (0 == (v / m) % k) {
        m *= k;
        ++j;
    }
    return j * (k - 1) + (v / m) % k - 1;
}

#define MAX_CHILDREN 256

static int plan_tree(hct_prog_t *p, bool all, hct_shape_t s, int k, int n, int rank, int root,
                     hct_op_t op, hct_type_t type, size_t count)
{
    if (k < 2 || n < 1 || rank < 0 || rank >= n || root < 0 || root >= n) {
        return -1;
    }
    hct_prog_reset(p, op, type, count);
    int v = (rank - root + n) % n;
    int ch[MAX_CHILDREN];
    int nc = hct_tree_children(s, k, n, v, ch, MAX_CHILDREN);
    int parent = hct_tree_parent(s, k, n, v);
    if (nc > MAX_CHILDREN || nc + 1 > 255) {
        return -1;
    }
    int rc = 0;
    rc |= hct_prog_counter(p, 1 + nc) < 0;
    if (all) {
        rc |= hct_prog_counter(p, 1) < 0;
    }
    rc |= hct_prog_input(p, UP, 0) < 0;

    /* targets: the parent's UP slot, then every child's DOWN */
    int t_parent = -1, t_children = -1;
    if (parent >= 0) {
        t_parent = hct_prog_target(p, (parent + root) % n, UP, 1 + child_index(s, k, v));
        rc |= t_parent < 0;
    }
    for (int i = 0; all && i < nc; ++i) {
        int t = hct_prog_target(p, (ch[i] + root) % n, DOWN, 0);
        if (0 == i) {
            t_children = t;
        }
        rc |= t < 0;
    }

    /* UP: everything below has arrived (and the own input) */
    rc |= hct_prog_chain(p, UP, 1 + nc) < 0;
    rc |= hct_prog_reduce_slots(p, UP, 0, 1 + nc) < 0;
    if (parent >= 0) {
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_SEND, .first = t_parent, .n = 1}) < 0;
    } else if (all) {
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_STORE, .ctr = DOWN, .slot = 0}) < 0;
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_ADD, .ctr = DOWN, .n = 1}) < 0;
    } else {
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_DELIVER}) < 0;
    }
    if (!all) {
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_ADD, .ctr = HCT_CTR_DONE, .n = 1}) < 0;
    } else {
        /* DOWN: the result came (from the parent, or the root's own STORE) */
        rc |= hct_prog_chain(p, DOWN, 1) < 0;
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_LOAD, .ctr = DOWN, .slot = 0}) < 0;
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_DELIVER}) < 0;
        if (nc > 0) {
            rc |= hct_prog_desc(
                      p, (hct_desc_t){.op = HCT_D_SEND, .first = t_children, .n = (uint16_t) nc})
                  < 0;
        }
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_ADD, .ctr = HCT_CTR_DONE, .n = 1}) < 0;
    }
    p->done_threshold = (uint32_t) p->npkt;
    int h = hct_tree_height(s, k, n);
    p->depth = all ? 2 * h : h;
    p->sends_per_pkt = (parent >= 0 ? 1 : 0) + (all ? nc : 0);
    return rc ? -1 : 0;
}

int hct_plan_allreduce(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, hct_op_t op,
                       hct_type_t type, size_t count)
{
    return plan_tree(p, true, s, k, n, rank, root, op, type, count);
}

int hct_plan_reduce(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, hct_op_t op,
                    hct_type_t type, size_t count)
{
    return plan_tree(p, false, s, k, n, rank, root, op, type, count);
}
