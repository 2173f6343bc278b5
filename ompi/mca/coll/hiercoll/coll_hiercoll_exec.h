/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The executor (coll_hiercoll_exec.c): runs any plan over the PML,
 * blocking, nonblocking, persistent or staged; its progress callback; the
 * requests of calls that returned early.  Layer: executor (calls the
 * services below it, the leaf, and upward only through
 * coll_hiercoll_hooks.h).
 */
#ifndef MCA_COLL_HIERCOLL_EXEC_H
#define MCA_COLL_HIERCOLL_EXEC_H

#include "coll_hiercoll.h"

BEGIN_C_DECLS

/* What the plan's buffers are in memory for one call: hc_bind_t
 * (coll_hiercoll.h). */
/* Bind one of a plan's buffers to memory of a datatype. */
void mca_coll_hiercoll_bind_buffer(hc_bind_t *b, int buf, const void *base, ompi_datatype_t *type);

/* Bind a call's user buffers (SBUF, RBUF) for its plan. */
void mca_coll_hiercoll_bind(const hc_call_t *c, hc_bind_t *b);
/* Copy scount elements of sdt at src into rcount elements of rdt at dst
 * (the signatures agree up to the shorter one: MPI_ERR_TRUNCATE when the
 * source is longer).  Every local copy between two datatypes goes here,
 * not to ompi_datatype_sndrcv, which loses the end of some (see the
 * definition). */
int mca_coll_hiercoll_dt_copy(const void *src, size_t scount, ompi_datatype_t *sdt, void *dst,
                              size_t rcount, ompi_datatype_t *rdt);
/* Run a blocking plan with a fixed tag (mca_coll_hiercoll_blocking_tag). */
int mca_coll_hiercoll_exec_blocking(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                    const hcp_plan_t *plan, hc_bind_t *b, int tag);
/* The same once the plan's scratch is bound (the fast path). */
int mca_coll_hiercoll_exec_rounds(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                  const hcp_plan_t *p, const hc_bind_t *b, int tag);
/* Start a plan as a request; the request takes the plan's memory (the
 * caller's plan is left empty). */
int mca_coll_hiercoll_exec_request(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                   hcp_plan_t *plan, const hc_bind_t *b, bool persistent,
                                   ompi_request_t **request);
/* Run a staged call, blocking or as a request (mode); takes ownership of
 * the stages' context. */
int mca_coll_hiercoll_exec_staged(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                  const hc_stages_t *stages, const hc_bind_t *b, hc_mode_t mode,
                                  ompi_request_t **request);
int mca_coll_hiercoll_progress(void);
/* At the component's close: off the progress loop; the memory of early
 * exits' requests still in flight (the PML is gone) goes. */
void mca_coll_hiercoll_exec_fini(void);
/* Under mca_coll_hiercoll_params.lock: something in flight needs the progress
 * callback.  The callback takes itself off Open MPI's progress loop after
 * a while with nothing to do (a registered callback costs every wait of
 * the process, on every communicator). */
void mca_coll_hiercoll_progress_need(void);
/* The fixed tag of a blocking collective's messages (as coll/base's). */
int mca_coll_hiercoll_blocking_tag(hc_coll_t coll);

/* Early exit (short-circuit reductions): the requests of calls that
 * returned early are completed later by the progress function, by the
 * next call, or, for a communicator going away, waited for (this). */
/* Free the leftovers that completed; wait for those of `comm` (NULL:
 * wait for none), or for every one when `all`. */
void mca_coll_hiercoll_sc_sweep(ompi_communicator_t *comm, bool all);

/* A collective request's req_cancel: collectives cannot be cancelled. */
int mca_coll_hiercoll_req_cancel(ompi_request_t *req, int complete);

/* The request of a capability that keeps its own state behind an
 * ompi_coll_base_nbc_request_t (the shared-memory level, the offload, the
 * decomposition): made for a call on comm (a collective request with
 * these free and start functions), armed at each start, unmade in its
 * free (the caller releases what it retained and frees the memory). */
void mca_coll_hiercoll_req_make(ompi_coll_base_nbc_request_t *r, ompi_communicator_t *comm,
                                bool persistent, ompi_request_free_fn_t free_fn,
                                ompi_request_start_fn_t start_fn);
void mca_coll_hiercoll_req_arm(ompi_request_t *r);
void mca_coll_hiercoll_req_unmake(ompi_coll_base_nbc_request_t *r);

END_C_DECLS

#endif /* MCA_COLL_HIERCOLL_EXEC_H */
