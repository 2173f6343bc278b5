/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition's own types and helpers, shared by its rooms
 * (coll_hiercoll_decomp*.c; the map is in coll_hiercoll_decomp.c): the
 * decomposition of a communicator, a decomposed call (hc_dx_t) and the
 * macros its programs are written with, the pieces' helpers.  What the
 * rooms share is declared at the end, hidden (HC_DX_HIDDEN: inside the
 * component only).
 */
#ifndef MCA_COLL_HIERCOLL_DECOMP_INTERNAL_H
#define MCA_COLL_HIERCOLL_DECOMP_INTERNAL_H

#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "ompi/group/group.h"
#include "ompi/info/info.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/info.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_below.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_shm.h"

#define HC_DX_HIDDEN __attribute__((visibility("hidden")))
#define HC_DX_ML_SUBS 16 /* cached layouts of k = 2, 4, 8, ... carriers */

struct hc_decomp {
    bool ready; /* parts and bridge exist: decomposition serves calls */
    hcp_decomp_t lay;
    ompi_communicator_t *part;   /* my part */
    ompi_communicator_t *bridge; /* the leaders; NULL on the others */
    int p, np;                   /* my part and its size */
    uint64_t calls[HC_NCOLL];    /* decomposed calls (statistics) */
    /* nonblocking calls that may still start pieces, in start order (the
     * issue queue: see "A decomposed call" below) */
    struct hc_dx *qhead, *qtail;
    /* multi-leader (coll_hiercoll_decomp_ml.c): the lanes, made by the
     * first blocking call that wants them, alike on every rank */
    struct {
        bool tried, made;
        int k;                       /* carriers a part at most (the parameter's) */
        hcp_ml_t fam;                /* the lanes made */
        hcp_ml_t sub[HC_DX_ML_SUBS]; /* equal parts: the first k of them (k = 2, 4, ...) */
        ompi_communicator_t **lane;  /* [fam.nlanes] mine, else NULL; lane 0 is the bridge */
        uint64_t calls[HC_NCOLL];    /* multi-leader calls (statistics) */
    } ml;
};
typedef struct hc_decomp hc_decomp_t;

/* ------------------------------------------------------------------ */
/* A decomposed call: one program per collective, three ways to run it  */
/* ------------------------------------------------------------------ */

/*
 * Each collective's PROGRAM (run_* below) is a sequence of pieces: a
 * collective of a sub-communicator (DX_SUB: the part's or the bridge's),
 * a message inside the part (hc_dx_p2p), local work (packing, folding).
 * The same program serves every mode; how a piece runs is the call's KIND:
 *
 *   DX_BLOCK  blocking: each piece is the sub-communicator's blocking
 *             collective, in order (DX_WAIT never waits);
 *   DX_NB     nonblocking: each piece is started as the sub-communicator's
 *             nonblocking collective, and DX_WAIT returns to the progress
 *             engine until the pieces started so far are done: the
 *             program resumes there (a stackless coroutine: every value
 *             kept across a DX_WAIT lives in hc_dx_t);
 *   DX_INIT   a persistent call's init: the program runs once moving no
 *             data (DX_DATA is false), creating each piece as the
 *             sub-communicator's PERSISTENT collective (and persistent
 *             messages), with the buffers and layouts it keeps;
 *   DX_START  each MPI_Start: the program runs as DX_NB, starting the
 *             pieces created at init in the same order.
 *
 * Matching.  The pieces of a sub-communicator must start in the same
 * order on all its ranks.  Persistent pieces are matched by their
 * sub-communicator in creation order, and creation happens in the
 * parent's init order.  Nonblocking calls start their pieces while they
 * progress, so each decomposition keeps an ISSUE QUEUE: calls in the
 * order they started on the parent (the same on every rank), and only
 * the oldest call still issuing may start pieces (it leaves the queue
 * after its last one, hc_dx_issued).  A blocking call or a persistent init
 * on the parent first lets the queue drain (its pieces, or the tags and
 * channels their creation reserves, would otherwise overtake those of
 * earlier calls on some ranks).  Messages inside a part use the
 * collective's fixed tag (nonblocking: ordered by the queue) or, for a
 * persistent call, a tag it reserved at init.
 *
 * No piece is set up inside progress: the parts and the bridge, and the
 * part's shared-memory region, are made at the decomposition's creation
 * (a blocking call's selection); everything a piece starts is the
 * nonblocking start of a sub-communicator collective.
 */

#define PACKED (&ompi_mpi_packed.dt)

enum { DX_BLOCK, DX_NB, DX_INIT, DX_START };
#define DX_NSUB 4   /* pieces in flight at once */
#define DX_NPERS 12 /* a persistent call's pieces */
#define DX_NMEM 6
#define DX_NINTS 4

/* What the leader of an all-to-all knows of the pairs' bytes: its
 * members' counts, each member's row (bytes to every rank) then column
 * (bytes from every rank); NULL for alltoall, where every pair moves
 * `block`. */
typedef struct a2a_ctx {
    const hc_decomp_t *d;
    const int *counts; /* [part size][2 n] */
    int n;
    int64_t block;
} a2a_ctx_t;

typedef struct hc_dx hc_dx_t;
struct hc_dx {
    hc_call_t c;
    hc_decomp_t *d;
    int kind, pc, rc, ptag;
    bool queued;
    hc_dx_t *qnext;               /* the decomposition's issue queue */
    ompi_request_t *sub[DX_NSUB]; /* pieces in flight */
    int nsub;
    ompi_request_t *ps[DX_NPERS]; /* a persistent call's pieces */
    int nps, ips;
    /* the program's state across its waits */
    char *mem[DX_NMEM], *at[DX_NMEM];
    int *iv[DX_NINTS], *counts, one;
    int64_t *off;
    ompi_datatype_t **types;
    char *x, *y, *acc, *all, *o, *in, *g, *s, *r, *lo;
    int64_t xbytes, ybytes, total, obytes, ibytes, base;
    bool direct, laid;
    char token;
    hcp_a2a_t a;
    a2a_ctx_t ctx;
    /* multi-leader (coll_hiercoll_decomp_ml.c): the call's lanes (NULL:
     * one leader a part), the lanes' algorithm, my carrier index, my
     * slice and my lanes; the plan of a lane's piece being handed on */
    const hcp_ml_t *ml;
    hcp_lane_t lane;
    int segs, me, first, nl;
    int64_t slo, slen;
    hcp_plan_t lp;
};

/* A nonblocking or persistent call: the user's request. */
typedef struct hc_dreq {
    ompi_coll_base_nbc_request_t super;
    hc_dx_t x;
    mca_coll_hiercoll_module_t *m;
    ompi_communicator_t *comm;
    struct hc_dreq *anext; /* calls in flight (progress) */
    bool active;
} hc_dreq_t;

#define DX_DATA(x) (OMPI_SUCCESS == (x)->rc && DX_INIT != (x)->kind)
#define DX_BEGIN(x)                                                                                \
    switch ((x)->pc) {                                                                             \
    case 0:;
#define DX_END(x)                                                                                  \
    }                                                                                              \
    hc_dx_issued(x);                                                                               \
    (x)->pc = 0;                                                                                   \
    return true
/* Resume here once the pieces started so far are done. */
#define DX_WAIT(x)                                                                                 \
    do {                                                                                           \
        (x)->pc = __LINE__;                                                                        \
        __attribute__((fallthrough));                                                              \
    case __LINE__:                                                                                 \
        if (!hc_dx_done(x)) {                                                                      \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

/* The call has started its last pieces: let the next call in the issue
 * queue start its own, and resume once these are done. */
#define DX_LAST(x)                                                                                 \
    do {                                                                                           \
        hc_dx_issued(x);                                                                           \
        DX_WAIT(x);                                                                                \
    } while (0)
#define DX_INFO (&ompi_mpi_info_null.info)

/* One piece: sub-communicator comm's collective `coll`, in the call's kind. */
#define DX_SUB(x, comm, coll, ...)                                                                 \
    do {                                                                                           \
        if (OMPI_SUCCESS != (x)->rc) {                                                             \
        } else if (DX_BLOCK == (x)->kind) {                                                        \
            (x)->rc = (comm)->c_coll->coll_##coll(__VA_ARGS__, (comm),                             \
                                                  (comm)->c_coll->coll_##coll##_module);           \
        } else if (DX_NB == (x)->kind) {                                                           \
            (x)->rc = (comm)->c_coll->coll_i##coll(__VA_ARGS__, (comm), &(x)->sub[(x)->nsub],      \
                                                   (comm)->c_coll->coll_i##coll##_module);         \
            (x)->nsub += OMPI_SUCCESS == (x)->rc;                                                  \
        } else if (DX_INIT == (x)->kind && hc_dx_room(x)) {                                        \
            (x)->rc = (comm)->c_coll->coll_##coll##_init(                                          \
                __VA_ARGS__, (comm), DX_INFO, &(x)->ps[(x)->nps],                                  \
                (comm)->c_coll->coll_##coll##_init_module);                                        \
            (x)->nps += OMPI_SUCCESS == (x)->rc;                                                   \
        } else if (DX_START == (x)->kind) {                                                        \
            hc_dx_start(x);                                                                        \
        }                                                                                          \
    } while (0)
#define DX_BARRIER(x, comm)                                                                        \
    do {                                                                                           \
        if (OMPI_SUCCESS != (x)->rc) {                                                             \
        } else if (DX_BLOCK == (x)->kind) {                                                        \
            (x)->rc = (comm)->c_coll->coll_barrier((comm), (comm)->c_coll->coll_barrier_module);   \
        } else if (DX_NB == (x)->kind) {                                                           \
            (x)->rc = (comm)->c_coll->coll_ibarrier((comm), &(x)->sub[(x)->nsub],                  \
                                                    (comm)->c_coll->coll_ibarrier_module);         \
            (x)->nsub += OMPI_SUCCESS == (x)->rc;                                                  \
        } else if (DX_INIT == (x)->kind && hc_dx_room(x)) {                                        \
            (x)->rc = (comm)->c_coll->coll_barrier_init((comm), DX_INFO, &(x)->ps[(x)->nps],       \
                                                        (comm)->c_coll->coll_barrier_init_module); \
            (x)->nps += OMPI_SUCCESS == (x)->rc;                                                   \
        } else if (DX_START == (x)->kind) {                                                        \
            hc_dx_start(x);                                                                        \
        }                                                                                          \
    } while (0)

/* The per-rank blocks of a user buffer: rank r's block is counts[r]
 * elements (count when counts is NULL) of types[r] (type) at displs[r]
 * elements (r * count), or at displs[r] bytes with per-rank types. */
typedef struct blocks {
    char *base;
    const int *counts, *displs;
    int count;
    ompi_datatype_t *type;
    ompi_datatype_t *const *types;
} blocks_t;

/* Does this rank lead its part (is it on the bridge)? */
static inline bool leads(const hc_decomp_t *d)
{
    return NULL != d->bridge;
}

/* Rank r's index in its part. */
static inline int local(const hc_decomp_t *d, int r)
{
    return d->lay.index[r];
}

/* The rank of my part's k-th member. */
static inline int member(const hc_decomp_t *d, int k)
{
    return d->lay.member[d->lay.start[d->p] + k];
}

/* ------------------------------------------------------------------ */
/* Shared by the rooms                                                  */
/* ------------------------------------------------------------------ */

/* The pieces (coll_hiercoll_decomp_dx.c) */
HC_DX_HIDDEN bool hc_dx_room(hc_dx_t *x);
HC_DX_HIDDEN void hc_dx_start(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_done(hc_dx_t *x);
HC_DX_HIDDEN void hc_dx_issued(hc_dx_t *x);
HC_DX_HIDDEN void hc_dx_drain(hc_decomp_t *d);
HC_DX_HIDDEN void hc_dx_p2p(hc_dx_t *x, bool send, int peer, void *buf, int64_t count,
                            ompi_datatype_t *type, int tag);
HC_DX_HIDDEN char *hc_dx_scratch(hc_dx_t *x, int slot, ompi_datatype_t *type, int64_t count);
HC_DX_HIDDEN int *hc_dx_ints(hc_dx_t *x, int slot, int n);
HC_DX_HIDDEN int64_t *hc_dx_offsets(hc_dx_t *x, int n);
HC_DX_HIDDEN void hc_dx_free_mem(hc_dx_t *x);
HC_DX_HIDDEN void hc_dx_block_of(const blocks_t *b, int r, char **at, int *count,
                                 ompi_datatype_t **type);
HC_DX_HIDDEN int64_t hc_dx_block_bytes(const blocks_t *b, int r);
HC_DX_HIDDEN int hc_dx_pack_blocks(const hc_decomp_t *d, const blocks_t *b, int skip, int except,
                                   char *packed, bool unpack);
HC_DX_HIDDEN void hc_dx_member_blocks(const hc_decomp_t *d, const blocks_t *b, int *counts,
                                      int *displs);
HC_DX_HIDDEN bool hc_dx_packed_view(const hc_decomp_t *d, const blocks_t *b);
HC_DX_HIDDEN void hc_dx_packed_result(hc_dx_t *x, const blocks_t *rblocks, int64_t *off, int *pc);
HC_DX_HIDDEN void hc_dx_member_shares(hc_dx_t *x, bool v, int64_t mine, int *mc);
HC_DX_HIDDEN void hc_dx_member_total(hc_dx_t *x, int *mc);
HC_DX_HIDDEN void hc_dx_bridge_shares(hc_dx_t *x, const blocks_t *b, size_t unit, bool v,
                                      int64_t mine, int *pc);
HC_DX_HIDDEN void hc_dx_bridge_total(hc_dx_t *x, const int *pc);
HC_DX_HIDDEN int64_t hc_dx_sum_counts(const hc_call_t *c);

/* The programs: one to all and all to one (coll_hiercoll_decomp_rooted.c) */
HC_DX_HIDDEN bool hc_dx_run_bcast(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_scatter(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_reduce(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_gather(hc_dx_t *x);
/* multi-leader (coll_hiercoll_decomp_ml.c): the carriers a call wants
 * (1: one leader; the same on every rank), then its lanes once made
 * (x->ml NULL when they are not), the programs, the lanes' free */
HC_DX_HIDDEN int hc_dx_ml_want(const hc_dx_t *x, const char **why);
HC_DX_HIDDEN void hc_dx_ml_set(hc_dx_t *x, int k);
HC_DX_HIDDEN bool hc_dx_run_ml_reduction(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_ml_bcast(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_ml_allgather(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_ml_reduce_scatter(hc_dx_t *x);
HC_DX_HIDDEN void hc_dx_ml_free(hc_decomp_t *d);
/* all to all, barrier, partial reductions (coll_hiercoll_decomp_all.c) */
HC_DX_HIDDEN bool hc_dx_run_allreduce(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_reduce_scatter(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_allgather(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_alltoall(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_barrier(hc_dx_t *x);
HC_DX_HIDDEN bool hc_dx_run_scan(hc_dx_t *x);

#endif /* MCA_COLL_HIERCOLL_DECOMP_INTERNAL_H */
