/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Triggered-operation programs of bcast and barrier: see
 * coll_hiercoll_trig_bcast.h.  MPI-free.
 */
#include "coll_hiercoll_trig_bcast.h"

#define MAX_CHILDREN 256

int hct_plan_bcast(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, size_t bytes)
{
    if (k < 2 || n < 1 || rank < 0 || rank >= n || root < 0 || root >= n) {
        return -1;
    }
    if (0 != hct_prog_reset(p, HCT_NOP, HCT_UINT8, bytes)) {
        return -1;
    }
    int v = (rank - root + n) % n;
    int ch[MAX_CHILDREN];
    int nc = hct_tree_children(s, k, n, v, ch, MAX_CHILDREN);
    if (nc > MAX_CHILDREN) {
        return -1;
    }
    int rc = hct_prog_counter(p, 1) < 0; /* DOWN = 0 */
    if (0 == v) {
        rc |= hct_prog_input(p, 0, 0) < 0;
    }
    int first = -1;
    for (int i = 0; i < nc; ++i) {
        int t = hct_prog_target(p, (ch[i] + root) % n, 0, 0);
        first = 0 == i ? t : first;
        rc |= t < 0;
    }
    rc |= hct_prog_chain(p, 0, 1) < 0;
    rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_LOAD, .ctr = 0, .slot = 0}) < 0;
    if (0 != v) {
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_DELIVER}) < 0;
    }
    if (nc > 0) {
        rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_SEND, .first = first, .n = (uint16_t) nc})
              < 0;
    }
    rc |= hct_prog_desc(p, (hct_desc_t){.op = HCT_D_ADD, .ctr = HCT_CTR_DONE, .n = 1}) < 0;
    p->done_threshold = (uint32_t) p->npkt;
    p->depth = hct_tree_height(s, k, n);
    p->sends_per_pkt = nc;
    return rc ? -1 : 0;
}

int hct_plan_barrier(hct_prog_t *p, hct_shape_t s, int k, int n, int rank)
{
    return hct_plan_allreduce(p, s, k, n, rank, 0, HCT_SUM, HCT_UINT8, 0);
}
