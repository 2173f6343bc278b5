/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Triggered-operation programs of bcast and barrier, for every
 * backend of the engine (coll_hiercoll_trig.h).  MPI-free.
 */
#ifndef MCA_COLL_HIERCOLL_TRIG_BCAST_H
#define MCA_COLL_HIERCOLL_TRIG_BCAST_H

#include "coll_hiercoll_trig.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bcast of `bytes` bytes from root down a K-nomial or K-ary tree (k in
 * 2..8), as coll/portals4 and MPICH's triggered bcast: one counter DOWN
 * (slot 0) per packet; the root's input is put there at arm time, every
 * other rank's comes from its parent; DOWN >= 1: LOAD, DELIVER (not at the
 * root: its buffer is the input), SEND to every child, DONE.  A vector
 * longer than one payload is SEGMENTED into 120-byte packets, each with
 * its own counter and chain, so the segments are PIPELINED down the tree
 * (a segment moves on as soon as it arrived, whatever its neighbours). */
int hct_plan_bcast(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, size_t bytes);

/* Barrier: a triggered zero-byte allreduce (MPICH's Aurora branch runs
 * barrier so): the arrivals climb the tree, the release comes down. */
int hct_plan_barrier(hct_prog_t *p, hct_shape_t s, int k, int n, int rank);

#ifdef __cplusplus
}
#endif

#endif /* MCA_COLL_HIERCOLL_TRIG_BCAST_H */
