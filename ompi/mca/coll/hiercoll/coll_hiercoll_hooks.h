/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The hooks: the one way a layer of the MPI side reaches a layer above it
 * (HACKING.md, "Layers").  The lower layer declares what it needs here and
 * calls through mca_coll_hiercoll_hooks (storage in the leaf,
 * coll_hiercoll_params.c), testing for NULL; the upper layer fills its
 * entries (coll_hiercoll_component.c, at open, before any communicator).
 * Every other call goes down.
 */
#ifndef MCA_COLL_HIERCOLL_HOOKS_H
#define MCA_COLL_HIERCOLL_HOOKS_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

typedef struct hc_hooks {
    /* executor -> fast path: the module's scratch moved (a blocking run
     * needed more); the fast path's remembered bindings point into the old
     * one and must be forgotten (mca_coll_hiercoll_fast_forget). */
    void (*scratch_moved)(mca_coll_hiercoll_module_t *m);
    /* shared-memory level -> fast path: a region's set-up has ended
     * (ready or failed).  What the fast path remembered before, and of
     * the calls inside the set-up (the layer below may run them on the
     * communicator's own collectives, i.e. hiercoll's: basic's allgather
     * is a gather and a bcast), was decided as the level stood then and
     * must be forgotten (mca_coll_hiercoll_fast_forget): a rank that
     * still took a remembered bcast would not meet the others in shm. */
    void (*shm_settled)(mca_coll_hiercoll_module_t *m);
    /* capabilities -> module: hiercoll's module class, to tell a
     * communicator's hiercoll module among its slots' modules (the
     * shared-memory level preparing a decomposition's part). */
    opal_class_t *module_class;
} hc_hooks_t;

extern hc_hooks_t mca_coll_hiercoll_hooks;

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_HOOKS_H */
