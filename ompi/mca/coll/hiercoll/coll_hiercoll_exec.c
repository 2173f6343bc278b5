/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The executor: runs any plan over the PML.
 *
 * Blocking: round by round, post the round's sends and receives, wait for
 * them, run its local copies and reductions.
 *
 * Nonblocking and persistent: the same rounds, advanced by
 * mca_coll_hiercoll_progress(), which Open MPI's progress engine calls:
 * when the current round's transfers have completed the request runs its
 * local operations and posts the next round.  Tags come from the
 * communicator's nonblocking tag space (shared with libnbc and adapt), so
 * that concurrent collectives never match each other's messages: a
 * blocking or nonblocking call reserves its tag (a staged call one per
 * stage) when it starts, a persistent request when it is CREATED.
 * (Blocking calls on intercommunicators take fixed tags instead: see
 * coll_hiercoll_inter.c.)  On an intercommunicator, the ops a plan marks
 * local go to the own group through its local communicator, with a tag
 * reserved there.
 *
 * Why persistent requests reserve at creation: MPI 4.0 (6.13) matches
 * persistent collectives in the order they were initialized, and lets
 * ranks start them in any order.  Every rank initializes them in the same
 * order, so each request gets the same tag(s) on every rank, and messages
 * of different requests never match, whatever order they are started in.
 * Every execution of a request reuses its tags, as libnbc does.  That is
 * safe because MPI matches messages of one (communicator, source, tag) in
 * the order they were sent and receives in the order they were posted, and
 * a request cannot be restarted before it has completed locally: all of an
 * execution's receives are posted before any of the next execution's, and
 * all of a sender's messages of one execution are sent before any of the
 * next, so the i-th receive from a peer with that tag matches the i-th
 * message (plans post the same messages between a pair in every
 * execution).  An early message of execution k+1 (its sender finished k
 * first) waits unexpected until the receiver's execution k+1 posts its
 * receive.  The tag space wraps around after about 2^30 tags, as
 * for libnbc: a request that lives across a whole wrap could meet a newer
 * reservation of its tag.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "opal/datatype/opal_convertor.h"
#include "opal/runtime/opal_progress.h"
#include "opal/util/output.h"
#include "ompi/mca/coll/base/coll_tags.h"
#include "ompi/mca/pml/pml.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_hooks.h"
#include "coll_hiercoll_shortcut.h"

/* ------------------------------------------------------------------ */
/* Binding buffers                                                      */
/* ------------------------------------------------------------------ */

void mca_coll_hiercoll_bind_buffer(hc_bind_t *b, int buf, const void *base, ompi_datatype_t *type)
{
    ptrdiff_t lb, ext;
    size_t size = 0;
    b->base[buf] = (char *) base;
    b->type[buf] = type;
    ompi_datatype_get_extent(type, &lb, &ext);
    ompi_datatype_type_size(type, &size);
    b->step[buf] = ext;
    b->size[buf] = size;
}

void mca_coll_hiercoll_bind(const hc_call_t *c, hc_bind_t *b)
{
    memset(b, 0, sizeof(*b));
    ompi_datatype_t *byte = &ompi_mpi_byte.dt;
    ompi_datatype_t *st = NULL != c->stype ? c->stype : byte;
    ompi_datatype_t *rt = NULL != c->rtype ? c->rtype : byte;
    /* (an in-place scatter's sendbuf is real: only MPI_IN_PLACE is not) */
    mca_coll_hiercoll_bind_buffer(b, HCP_SBUF, MPI_IN_PLACE == c->sbuf ? NULL : c->sbuf, st);
    mca_coll_hiercoll_bind_buffer(b, HCP_RBUF, MPI_IN_PLACE == c->rbuf ? NULL : c->rbuf, rt);
    if (HC_ALLTOALLW == c->coll) {
        /* per-peer datatypes, byte displacements */
        b->ptypes[HCP_SBUF] = c->in_place ? NULL : c->stypes;
        b->ptypes[HCP_RBUF] = c->rtypes;
        b->step[HCP_SBUF] = b->step[HCP_RBUF] = 1;
    }
    if (HC_NEIGHBOR_ALLTOALLW == c->coll) {
        /* per-block datatypes, byte displacements */
        b->ptypes[HCP_SBUF] = c->stypes;
        b->ptypes[HCP_RBUF] = c->rtypes;
        b->ptypes_per_block = true;
        b->step[HCP_SBUF] = b->step[HCP_RBUF] = 1;
    }
    b->op = c->op;
}

static inline ompi_datatype_t *type_of(const hc_bind_t *b, int buf, int peer)
{
    if (buf <= HCP_RBUF && NULL != b->ptypes[buf]) {
        return b->ptypes[buf][peer];
    }
    return b->type[buf];
}

/* The index into ptypes of an op's range: its peer, or its block. */
static inline int type_index(const hc_bind_t *b, const hcp_op_t *op)
{
    return b->ptypes_per_block && hcp_is_comm(op) ? (int) op->soff : op->peer;
}

static inline char *addr_of(const hc_bind_t *b, int buf, int64_t off)
{
    return b->base[buf] + off * b->step[buf];
}

static inline size_t bytes_of(const hc_bind_t *b, int buf, int peer, int64_t count)
{
    if (buf <= HCP_RBUF && NULL != b->ptypes[buf]) {
        size_t s = 0;
        ompi_datatype_type_size(b->ptypes[buf][peer], &s);
        return s * (size_t) count;
    }
    return b->size[buf] * (size_t) count;
}

/* Lay the plan's scratch buffers out in one block, growing *mem (of *cap
 * bytes) when it is too small, and bind them. */
static int place_scratch(const hcp_plan_t *p, hc_bind_t *b, void **mem, size_t *cap)
{
    if (0 == (p->tmp_units[HCP_TMP0] | p->tmp_units[HCP_TMP1] | p->tmp_units[HCP_TMP2])) {
        return OMPI_SUCCESS;
    }
    size_t off[HCP_NBUF] = {0}, total = 0;
    ptrdiff_t tlb[HCP_NBUF] = {0};
    for (int buf = HCP_TMP0; buf < HCP_NBUF; ++buf) {
        if (p->tmp_units[buf] <= 0) {
            continue;
        }
        ompi_datatype_t *t;
        switch (p->unit[buf]) {
        case HCP_UNIT_STYPE: t = b->type[HCP_SBUF]; break;
        case HCP_UNIT_RTYPE: t = b->type[HCP_RBUF]; break;
        default: t = &ompi_mpi_byte.dt; break;
        }
        ptrdiff_t lb, ext, true_ext;
        ompi_datatype_get_extent(t, &lb, &ext);
        ompi_datatype_get_true_extent(t, &tlb[buf], &true_ext);
        size_t span = (size_t) true_ext + (size_t) (p->tmp_units[buf] - 1) * (size_t) ext;
        mca_coll_hiercoll_bind_buffer(b, buf, NULL, t);
        off[buf] = total;
        total += (span + 63) & ~(size_t) 63;
    }
    if (total > *cap) {
        void *grown = realloc(*mem, total);
        if (NULL == grown) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        *mem = grown;
        *cap = total;
    }
    for (int buf = HCP_TMP0; buf < HCP_NBUF; ++buf) {
        if (p->tmp_units[buf] > 0) {
            b->base[buf] = (char *) *mem + off[buf] - tlb[buf];
        }
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Rounds                                                               */
/* ------------------------------------------------------------------ */

/* Tags of the own group's communicator: an intercommunicator's plans
 * send the ops marked local on its local communicator, with a tag of that
 * communicator's own nonblocking tag space (other collectives that run on
 * it, coll/inter's for one, reserve theirs there too). */
static int local_tag(ompi_communicator_t *comm)
{
    return OMPI_COMM_IS_INTER(comm) ? ompi_coll_base_nbc_reserve_tags(comm->c_local_comm, 1) : 0;
}

/* Post round r: its receives first (so that no message of the round
 * arrives unexpected), then its sends; *nreq counts the requests.  With
 * block_last the last send is a blocking send instead (one request fewer:
 * a sendrecv when the round is an exchange), and a round that only
 * receives one message receives it blocking. */
static int post_round(mca_coll_hiercoll_module_t *m, ompi_communicator_t *icomm,
                      const hcp_plan_t *p, const hc_bind_t *b, int r, int itag, int ltag,
                      ompi_request_t **reqs, int *nreq, bool block_last)
{
    int rc = OMPI_SUCCESS, begin = hcp_round_begin(p, r), end = p->round_end[r];
    int last_send = -1, nrecv = 0;
    for (int i = begin; i < end; ++i) {
        if (HCP_SEND == p->ops[i].kind) {
            last_send = i;
        }
        nrecv += HCP_RECV == p->ops[i].kind;
    }
    bool block_recv = block_last && last_send < 0 && 1 == nrecv;
    *nreq = 0;
    for (int i = begin; i < end && OMPI_SUCCESS == rc; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_RECV != op->kind) {
            continue;
        }
        ompi_communicator_t *comm = op->local ? icomm->c_local_comm : icomm;
        int tag = op->local ? ltag : itag;
        void *addr = addr_of(b, op->buf, op->off);
        ompi_datatype_t *t = type_of(b, op->buf, type_index(b, op));
        if (block_recv) {
            rc = mca_pml.pml_recv(addr, (size_t) op->count, t, op->peer, tag, comm,
                                  MPI_STATUS_IGNORE);
        } else {
            rc = mca_pml.pml_irecv(addr, (size_t) op->count, t, op->peer, tag, comm,
                                   &reqs[*nreq]);
            *nreq += OMPI_SUCCESS == rc;
        }
    }
    for (int i = begin; i < end && OMPI_SUCCESS == rc; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_SEND != op->kind) {
            continue;
        }
        ompi_communicator_t *comm = op->local ? icomm->c_local_comm : icomm;
        int tag = op->local ? ltag : itag;
        void *addr = addr_of(b, op->buf, op->off);
        ompi_datatype_t *t = type_of(b, op->buf, type_index(b, op));
        if (block_last && i == last_send) {
            rc = mca_pml.pml_send(addr, (size_t) op->count, t, op->peer, tag,
                                  MCA_PML_BASE_SEND_STANDARD, comm);
        } else {
            rc = mca_pml.pml_isend(addr, (size_t) op->count, t, op->peer, tag,
                                   MCA_PML_BASE_SEND_STANDARD, comm, &reqs[*nreq]);
            *nreq += OMPI_SUCCESS == rc;
        }
        m->stats.msgs++;
        m->stats.bytes_sent += bytes_of(b, op->buf, type_index(b, op), op->count);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* Copies between two datatypes                                         */
/* ------------------------------------------------------------------ */

static void dt_prepare(opal_convertor_t *cv, ompi_datatype_t *dt, size_t count, const void *buf,
                       bool send)
{
    OBJ_CONSTRUCT(cv, opal_convertor_t);
    if (send) {
        opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dt->super, count, buf,
                                                 0, cv);
    } else {
        opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dt->super, count,
                                                 (void *) buf, 0, cv);
    }
}

/* Up to len bytes of cv's stream packed into (unpacked from) buf; the
 * bytes moved, as the convertor counts them (max_data: never the iovecs
 * it says it filled, see mca_coll_hiercoll_dt_copy). */
static size_t dt_pass(opal_convertor_t *cv, char *buf, size_t len, bool pack)
{
    size_t done = 0;
    while (done < len) {
        struct iovec iov = {.iov_base = buf + done, .iov_len = len - done};
        uint32_t n = 1;
        size_t max = len - done;
        if (pack) {
            (void) opal_convertor_pack(cv, &iov, &n, &max);
        } else {
            (void) opal_convertor_unpack(cv, &iov, &n, &max);
        }
        if (0 == max) {
            break;
        }
        done += max;
    }
    return done;
}

/* Where the data of `count` elements of a contiguous layout begins. */
static char *dt_data(ompi_datatype_t *dt, const void *buf)
{
    ptrdiff_t tlb, text;
    ompi_datatype_get_true_extent(dt, &tlb, &text);
    return (char *) buf + tlb;
}

/* Not ompi_datatype_sndrcv: between two datatypes neither of which is
 * MPI_PACKED, it packs into a 64 KiB bounce and unpacks the iovecs the
 * pack says it filled.  Open MPI's pack of a datatype whose data is
 * contiguous but whose extent is larger (MPI_LONG_INT and MPI_DOUBLE_INT:
 * 12 bytes in 16; MPI_LONG_DOUBLE_INT) fills the bytes but reports no
 * iovec when it ends by finishing an element that its previous call cut:
 * the unpack skips them, and 5462 MPI_LONG_INTs (65,544 bytes) copied to
 * bytes lose their last 8.  Here a side of contiguous layout is itself
 * the buffer the other side packs into or unpacks from (one pass, no
 * cut), and a bounce passes on what the convertors count they moved. */
int mca_coll_hiercoll_dt_copy(const void *src, size_t scount, ompi_datatype_t *sdt, void *dst,
                              size_t rcount, ompi_datatype_t *rdt)
{
    size_t ssize = 0, rsize = 0;
    ompi_datatype_type_size(sdt, &ssize);
    ompi_datatype_type_size(rdt, &rsize);
    size_t have = ssize * scount, room = rsize * rcount, total = have < room ? have : room;
    int rc = have > room ? MPI_ERR_TRUNCATE : OMPI_SUCCESS;
    if (0 == total) {
        return rc;
    }
    opal_convertor_t in, out;
    size_t moved;
    if (ompi_datatype_is_contiguous_memory_layout(rdt, rcount)) {
        dt_prepare(&in, sdt, scount, src, true);
        moved = dt_pass(&in, dt_data(rdt, dst), total, true);
        OBJ_DESTRUCT(&in);
    } else if (ompi_datatype_is_contiguous_memory_layout(sdt, scount)) {
        dt_prepare(&out, rdt, rcount, dst, false);
        moved = dt_pass(&out, dt_data(sdt, src), total, false);
        OBJ_DESTRUCT(&out);
    } else {
        /* through a bounce; what an unpack leaves (a predefined element
         * cut by the bounce's end) moves to the front for the next pass */
        size_t cap = total < 65536 ? total : 65536, held = 0, packed = 0;
        char *bounce = malloc(cap);
        if (NULL == bounce) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        dt_prepare(&in, sdt, scount, src, true);
        dt_prepare(&out, rdt, rcount, dst, false);
        moved = 0;
        while (moved < total) {
            size_t want = cap - held < total - packed ? cap - held : total - packed;
            size_t got = 0 == want ? 0 : dt_pass(&in, bounce + held, want, true);
            packed += got;
            held += got;
            size_t put = dt_pass(&out, bounce, held, false);
            if (0 == got && 0 == put) {
                break;
            }
            moved += put;
            held -= put;
            memmove(bounce, bounce + put, held);
        }
        OBJ_DESTRUCT(&in);
        OBJ_DESTRUCT(&out);
        free(bounce);
    }
    /* (a truncated copy may stop short of a predefined element) */
    return moved == total || MPI_ERR_TRUNCATE == rc ? rc : OMPI_ERROR;
}

static int copy(const hc_bind_t *b, const hcp_op_t *op, hc_stats_t *st)
{
    char *dst = addr_of(b, op->buf, op->off), *src = addr_of(b, op->sbuf, op->soff);
    ompi_datatype_t *dt = type_of(b, op->buf, op->peer), *sdt = type_of(b, op->sbuf, op->peer);
    if (dst == src && dt == sdt && op->count == op->scount) {
        return OMPI_SUCCESS; /* MPI_IN_PLACE */
    }
    st->bytes_copied += bytes_of(b, op->buf, op->peer, op->count);
    if (dt == sdt && op->count == op->scount) {
        return ompi_datatype_copy_content_same_ddt(dt, (size_t) op->count, dst, src);
    }
    return mca_coll_hiercoll_dt_copy(src, (size_t) op->scount, sdt, dst, (size_t) op->count, dt);
}

static int local_ops(mca_coll_hiercoll_module_t *m, const hcp_plan_t *p,
                     const hc_bind_t *b, int r)
{
    for (int i = hcp_round_begin(p, r); i < p->round_end[r]; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_COPY == op->kind) {
            int rc = copy(b, op, &m->stats);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        } else if (HCP_REDUCE == op->kind) {
            ompi_op_reduce(b->op, addr_of(b, op->sbuf, op->soff), addr_of(b, op->buf, op->off),
                           (size_t) op->count, b->type[op->buf]);
            m->stats.bytes_reduced += bytes_of(b, op->buf, -1, op->count);
        }
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Early exit (short-circuit reductions)                                */
/* (design and history: docs/design/early-exit.md)                     */
/* ------------------------------------------------------------------ */

/*
 * A plan marked by hcp_sc_mark (coll_hiercoll_plan_shortcut.c) may run
 * with EARLY EXIT.  Every receive of the plan is posted at the start, each
 * into a landing slot of its own, and copied to its target when its round
 * completes; sends out of the user's buffers go out of copies.  As soon
 * as the running result is decided -- the rank's input, a reduce's result,
 * or ANY receive that has completed, whatever its round -- the rank writes
 * the decided value as its result, sends it on every send it has not
 * posted yet, and returns.  The requests still in flight, and the memory
 * they use, are left to mca_coll_hiercoll_sc_sweep.  Every rank sends
 * exactly the plan's messages, so no receive waits for a message that
 * never comes, and ranks need not agree on whether they engage.
 */
/* Requests (and the memory they use) of a call that returned early,
 * listed in mca_coll_hiercoll_params.leftovers.  `mem` is freed with them. */
typedef struct hc_leftover {
    struct hc_leftover *next;
    ompi_communicator_t *comm; /* not retained: the PML requests retain it */
    int nreqs;
    ompi_request_t **reqs; /* MPI_REQUEST_NULL once freed */
    void *mem[2];
} hc_leftover_t;
static void sc_leave(hc_leftover_t *lo);

typedef struct hc_early {
    const hcp_plan_t *p;
    hc_bind_t bind; /* the user's buffers; TMP bound to this run's memory */
    hcp_sc_kind_t kind;
    struct hc_sc_hist *hist;
    hc_leftover_t *lo; /* one request slot per op, and the memory */
    char **land;       /* per op: landing slot (RECV), copy (SEND from the user) */
    bool *seen;        /* per op: its completed receive was looked at */
    char *decided;     /* sc_count elements of the decided value */
    int round, posted, from;
    bool done; /* decided and returned */
} hc_early_t;

/* Bytes of memory `count` units of `t` span, and where unit 0 starts. */
static size_t span_of(ompi_datatype_t *t, int64_t count, ptrdiff_t *lb)
{
    ptrdiff_t l, ext, true_ext;
    ompi_datatype_get_extent(t, &l, &ext);
    ompi_datatype_get_true_extent(t, lb, &true_ext);
    return count > 0 ? (size_t) true_ext + (size_t) (count - 1) * (size_t) ext : 0;
}

static int early_sends(hc_early_t *e, mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                       int tag, int r, bool decided)
{
    const hcp_plan_t *p = e->p;
    int rc = OMPI_SUCCESS;
    for (int i = hcp_round_begin(p, r); i < p->round_end[r] && OMPI_SUCCESS == rc; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_SEND != op->kind) {
            continue;
        }
        ompi_datatype_t *t = type_of(&e->bind, op->buf, type_index(&e->bind, op));
        char *addr = addr_of(&e->bind, op->buf, op->off);
        if (decided) {
            addr = e->decided;
        } else if (NULL != e->land[i]) { /* the user may reuse the buffer once we return */
            rc = ompi_datatype_copy_content_same_ddt(t, (size_t) op->count, e->land[i], addr);
            addr = e->land[i];
        }
        if (OMPI_SUCCESS == rc) {
            rc = mca_pml.pml_isend(addr, (size_t) op->count, t, op->peer, tag,
                                   MCA_PML_BASE_SEND_STANDARD, comm, &e->lo->reqs[i]);
        }
        m->stats.msgs++;
        m->stats.bytes_sent += bytes_of(&e->bind, op->buf, type_index(&e->bind, op), op->count);
    }
    return rc;
}

/* Decided: the result, then the decided value on every send not posted. */
static int early_decide(hc_early_t *e, mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                        int tag, int from)
{
    const hcp_plan_t *p = e->p;
    int rc = OMPI_SUCCESS;
    e->done = true;
    e->from = from;
    m->stats.sc_early++;
    if (p->sc_out) {
        hcp_sc_fill(&e->kind, e->bind.base[HCP_RBUF], p->sc_count);
    }
    for (int r = e->posted + 1; r < p->nrounds && OMPI_SUCCESS == rc; ++r) {
        rc = early_sends(e, m, comm, tag, r, true);
    }
    e->posted = p->nrounds - 1;
    return rc;
}

static int early_begin(hc_early_t *e, mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                       const hcp_plan_t *p, const hc_bind_t *b, int tag)
{
    e->lo = NULL;
    e->p = p;
    e->bind = *b;
    e->round = 0;
    e->posted = -1;
    e->from = -1;
    e->done = false;
    m->stats.sc_engaged++;
    if (0 != mca_coll_hiercoll_params.nleftovers) {
        mca_coll_hiercoll_sc_sweep(NULL, false);
    }
    /* the plan's scratch first (it binds the TMP buffers' types) */
    void *tmp = NULL;
    size_t cap = 0;
    int rc = place_scratch(p, &e->bind, &tmp, &cap);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    /* one block: the leftover record, per-op slots, then the data */
    size_t n = (size_t) p->nops,
           head = sizeof(hc_leftover_t)
                  + n * (sizeof(ompi_request_t *) + sizeof(char *) + sizeof(bool));
    head = (head + 63) & ~(size_t) 63;
    size_t total = head, off[p->nops > 0 ? p->nops : 1];
    ptrdiff_t lb[p->nops > 0 ? p->nops : 1], dlb;
    for (int i = 0; i < p->nops; ++i) {
        const hcp_op_t *op = &p->ops[i];
        off[i] = 0;
        if (HCP_RECV == op->kind || (HCP_SEND == op->kind && op->buf <= HCP_RBUF)) {
            off[i] = total;
            total +=
                (span_of(type_of(&e->bind, op->buf, type_index(&e->bind, op)), op->count, &lb[i])
                 + 63)
                & ~(size_t) 63;
        }
    }
    size_t doff = total;
    total += span_of(b->type[HCP_RBUF], p->sc_count, &dlb);
    char *mem = malloc(total);
    if (NULL == mem) {
        free(tmp);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    e->lo = (hc_leftover_t *) mem;
    e->lo->next = NULL;
    e->lo->comm = comm;
    e->lo->nreqs = p->nops;
    e->lo->reqs = (ompi_request_t **) (mem + sizeof(hc_leftover_t));
    e->land = (char **) (e->lo->reqs + n);
    e->seen = (bool *) (e->land + n);
    e->lo->mem[0] = mem;
    e->lo->mem[1] = tmp;
    e->decided = mem + doff - dlb;
    for (int i = 0; i < p->nops; ++i) {
        e->lo->reqs[i] = MPI_REQUEST_NULL;
        e->land[i] = 0 != off[i] ? mem + off[i] - lb[i] : NULL;
        e->seen[i] = false;
    }
    hcp_sc_fill(&e->kind, e->decided, p->sc_count);
    for (int i = 0; i < p->nops && OMPI_SUCCESS == rc; ++i) {
        const hcp_op_t *op = &p->ops[i];
        if (HCP_RECV == op->kind) {
            rc = mca_pml.pml_irecv(e->land[i], (size_t) op->count,
                                   type_of(&e->bind, op->buf, type_index(&e->bind, op)), op->peer,
                                   tag, comm, &e->lo->reqs[i]);
        }
    }
    if (OMPI_SUCCESS == rc && hcp_sc_decided(&e->kind, b->base[p->sc_in], p->sc_count)) {
        rc = early_decide(e, m, comm, tag, ompi_comm_rank(comm));
    }
    return rc;
}

/* Advance without waiting; true once decided or through the last round. */
static bool early_advance(hc_early_t *e, mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                          int tag, int *error)
{
    const hcp_plan_t *p = e->p;
    ompi_request_t **reqs = e->lo->reqs;
    while (!e->done && OMPI_SUCCESS == *error) {
        /* any receive in, whatever its round, may decide */
        for (int i = 0; i < p->nops; ++i) {
            const hcp_op_t *op = &p->ops[i];
            if (HCP_RECV != op->kind || e->seen[i] || !REQUEST_COMPLETE(reqs[i])) {
                continue;
            }
            e->seen[i] = true;
            if ((op->flags & HCP_F_RUNNING) && hcp_sc_decided(&e->kind, e->land[i], op->count)) {
                *error = early_decide(e, m, comm, tag, op->peer);
                return true;
            }
        }
        int r = e->round;
        if (e->posted < r) {
            e->posted = r;
            *error = early_sends(e, m, comm, tag, r, false);
            continue;
        }
        for (int i = hcp_round_begin(p, r); i < p->round_end[r]; ++i) {
            if (!REQUEST_COMPLETE(reqs[i])) {
                return false;
            }
        }
        int last = -1;
        for (int i = hcp_round_begin(p, r); i < p->round_end[r] && OMPI_SUCCESS == *error; ++i) {
            const hcp_op_t *op = &p->ops[i];
            if (HCP_RECV == op->kind) {
                *error = ompi_datatype_copy_content_same_ddt(
                    type_of(&e->bind, op->buf, type_index(&e->bind, op)), (size_t) op->count,
                    addr_of(&e->bind, op->buf, op->off), e->land[i]);
            } else if (HCP_REDUCE == op->kind && (op->flags & HCP_F_RUNNING)) {
                last = i;
            }
        }
        if (OMPI_SUCCESS == *error) {
            *error = local_ops(m, p, &e->bind, r);
        }
        if (last >= 0 && OMPI_SUCCESS == *error
            && hcp_sc_decided(&e->kind, addr_of(&e->bind, p->ops[last].buf, p->ops[last].off),
                              p->sc_count)) {
            *error = early_decide(e, m, comm, tag, -1);
            return true;
        }
        if (++e->round >= p->nrounds) {
            return true;
        }
    }
    return true;
}

/* After the run: history, then the requests: freed when complete, else
 * left to the sweep with the memory.  Returns the run's error. */
static int early_finish(hc_early_t *e, mca_coll_hiercoll_module_t *m, int error)
{
    const hcp_plan_t *p = e->p;
    bool decided =
        e->done || (p->sc_out && hcp_sc_decided(&e->kind, e->bind.base[HCP_RBUF], p->sc_count));
    mca_coll_hiercoll_sc_record(e->hist, decided, e->from);
    int pending = 0;
    for (int i = 0; i < e->lo->nreqs; ++i) {
        ompi_request_t **r = &e->lo->reqs[i];
        if (MPI_REQUEST_NULL == *r) {
            continue;
        }
        if (REQUEST_COMPLETE(*r)) {
            if (OMPI_SUCCESS == error && !e->done) {
                error = (*r)->req_status.MPI_ERROR;
            }
            ompi_request_free(r);
        } else {
            ++pending;
        }
    }
    if (0 == pending) {
        free(e->lo->mem[1]);
        free(e->lo->mem[0]);
    } else {
        m->stats.sc_late_reqs += (uint64_t) pending;
        sc_leave(e->lo);
    }
    e->lo = NULL;
    return error;
}

/* A plain run of a marked plan still feeds the history. */
static void early_record_plain(struct hc_sc_hist *h, const hcp_sc_kind_t *k, const hcp_plan_t *p,
                               const hc_bind_t *b)
{
    const char *buf = p->sc_out ? b->base[HCP_RBUF] : b->base[p->sc_in];
    mca_coll_hiercoll_sc_record(h, hcp_sc_decided(k, buf, p->sc_count), -1);
}

/* ------------------------------------------------------------------ */
/* Blocking                                                             */
/* ------------------------------------------------------------------ */

/* Run a plan whose scratch is bound to completion with one tag (the fast
 * path's entry: nothing here looks at datatypes or selection).  Blocking
 * calls use a fixed tag, on an intercommunicator for its local
 * communicator too. */
static int early_blocking(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                          const hcp_plan_t *p, const hc_bind_t *b, int tag);
static int plain_rounds(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                        const hcp_plan_t *p, const hc_bind_t *b, int tag);

int mca_coll_hiercoll_exec_rounds(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                  const hcp_plan_t *p, const hc_bind_t *b, int tag)
{
    if (OPAL_UNLIKELY(p->sc_count > 0)) { /* a plan marked for early exit */
        return early_blocking(m, comm, p, b, tag);
    }
    return plain_rounds(m, comm, p, b, tag);
}

/* The plain round loop of a blocking run. */
static int plain_rounds(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                        const hcp_plan_t *p, const hc_bind_t *b, int tag)
{
    int rc = OMPI_SUCCESS;
    ompi_request_t *stack[16], **reqs = stack;
    if (p->max_comm > 16) {
        reqs = malloc(sizeof(*reqs) * (size_t) p->max_comm);
        if (NULL == reqs) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    for (int r = 0; r < p->nrounds && OMPI_SUCCESS == rc; ++r) {
        int nreq = 0;
        rc = post_round(m, comm, p, b, r, tag, tag, reqs, &nreq, true);
        if (nreq > 0) {
            int wrc = ompi_request_wait_all(nreq, reqs, MPI_STATUSES_IGNORE);
            if (OMPI_SUCCESS == rc) {
                rc = wrc;
            }
        }
        if (OMPI_SUCCESS == rc) {
            rc = local_ops(m, p, b, r);
        }
    }
    if (reqs != stack) {
        free(reqs);
    }
    return rc;
}

/* Run a plan to completion with one tag. */
static int run_blocking(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                        const hcp_plan_t *p, hc_bind_t *b, int tag)
{
    /* blocking calls reuse the module's scratch (collectives on one
     * communicator never run concurrently in blocking form) */
    void *was = m->scratch;
    int rc = place_scratch(p, b, &m->scratch, &m->scratch_size);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (was != m->scratch && NULL != mca_coll_hiercoll_hooks.scratch_moved) {
        /* remembered bindings (the fast path's) point into the old one */
        mca_coll_hiercoll_hooks.scratch_moved(m);
    }
    return mca_coll_hiercoll_exec_rounds(m, comm, p, b, tag);
}

int mca_coll_hiercoll_exec_blocking(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                    const hcp_plan_t *p, hc_bind_t *b, int tag)
{
    return run_blocking(m, comm, p, b, tag);
}

/* A blocking run of a marked plan: early exit when the run engages (its
 * own memory, spinning the progress engine), else the plain rounds, whose
 * result still feeds the history. */
static int early_blocking(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                          const hcp_plan_t *p, const hc_bind_t *b, int tag)
{
    hc_early_t e;
    if (!mca_coll_hiercoll_sc_engage(m, p, b, &e.kind, &e.hist)) {
        int rc = plain_rounds(m, comm, p, b, tag);
        if (NULL != e.hist && OMPI_SUCCESS == rc) {
            early_record_plain(e.hist, &e.kind, p, b);
        }
        return rc;
    }
    int rc = early_begin(&e, m, comm, p, b, tag);
    if (NULL == e.lo) {
        return rc;
    }
    while (OMPI_SUCCESS == rc && !early_advance(&e, m, comm, tag, &rc)) {
        opal_progress();
    }
    return early_finish(&e, m, rc);
}

/* ------------------------------------------------------------------ */
/* Requests                                                             */
/* ------------------------------------------------------------------ */

typedef struct mca_coll_hiercoll_request_t {
    ompi_coll_base_nbc_request_t super;
    mca_coll_hiercoll_module_t *module;
    ompi_communicator_t *comm;
    hcp_plan_t plan;
    hc_bind_t bind;      /* of the current plan */
    void *scratch;
    size_t scratch_size;
    ompi_request_t **reqs;
    int reqs_cap;
    int nreqs;
    int round;
    int tag;
    int ltag; /* intercommunicators: the tag on the local communicator */
    int error;
    /* staged calls */
    bool staged;
    hc_stages_t stages;
    int stage;
    hc_bind_t user_bind; /* the user's buffers, every stage starts from them */
    /* marked plans: early exit engaged (early_on), or a plain run that
     * still feeds the history (early.hist set) */
    hc_early_t early;
    bool early_on;
} mca_coll_hiercoll_request_t;

static int request_free(ompi_request_t **ompi_req);
static int request_start(size_t count, ompi_request_t **requests);

static void request_construct(mca_coll_hiercoll_request_t *req)
{
    req->super.super.req_type = OMPI_REQUEST_COLL;
    req->super.super.req_free = request_free;
    req->super.super.req_cancel = mca_coll_hiercoll_req_cancel;
    req->super.super.req_start = request_start;
    req->module = NULL;
    req->comm = NULL;
    hcp_init(&req->plan);
    req->scratch = NULL;
    req->scratch_size = 0;
    req->reqs = NULL;
    req->reqs_cap = 0;
    req->nreqs = 0;
    req->staged = false;
    memset(&req->stages, 0, sizeof(req->stages));
    req->early_on = false;
    req->early.hist = NULL;
}

static OBJ_CLASS_INSTANCE(mca_coll_hiercoll_request_t, ompi_coll_base_nbc_request_t,
                          request_construct, NULL);

static int request_free(ompi_request_t **ompi_req)
{
    mca_coll_hiercoll_request_t *req = (mca_coll_hiercoll_request_t *) *ompi_req;
    if (!REQUEST_COMPLETE(&req->super.super)) {
        return MPI_ERR_REQUEST;
    }
    if (req->staged && NULL != req->stages.release) {
        req->stages.release(req->stages.ctx);
    }
    hcp_fini(&req->plan);
    free(req->scratch);
    free(req->reqs);
    if (NULL != req->module) {
        OBJ_RELEASE(req->module);
    }
    if (NULL != req->comm) {
        OBJ_RELEASE(req->comm);
    }
    OMPI_REQUEST_FINI(&req->super.super);
    OBJ_RELEASE(req);
    *ompi_req = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

int mca_coll_hiercoll_req_cancel(ompi_request_t *req, int complete)
{
    (void) req;
    (void) complete;
    return MPI_ERR_REQUEST; /* collectives cannot be cancelled */
}

void mca_coll_hiercoll_req_make(ompi_coll_base_nbc_request_t *r, ompi_communicator_t *comm,
                                bool persistent, ompi_request_free_fn_t free_fn,
                                ompi_request_start_fn_t start_fn)
{
    OBJ_CONSTRUCT(r, ompi_coll_base_nbc_request_t);
    OMPI_REQUEST_INIT(&r->super, persistent);
    r->super.req_type = OMPI_REQUEST_COLL;
    r->super.req_free = free_fn;
    r->super.req_cancel = mca_coll_hiercoll_req_cancel;
    r->super.req_start = start_fn;
    r->super.req_mpi_object.comm = comm;
}

void mca_coll_hiercoll_req_arm(ompi_request_t *r)
{
    r->req_state = OMPI_REQUEST_ACTIVE;
    r->req_complete = REQUEST_PENDING;
    r->req_status.MPI_ERROR = OMPI_SUCCESS;
}

void mca_coll_hiercoll_req_unmake(ompi_coll_base_nbc_request_t *r)
{
    OMPI_REQUEST_FINI(&r->super);
    OBJ_DESTRUCT(r);
}

/* Scratch and request slots for the current plan. */
static int prepare_plan(mca_coll_hiercoll_request_t *req)
{
    int rc = place_scratch(&req->plan, &req->bind, &req->scratch, &req->scratch_size);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (req->plan.max_comm > req->reqs_cap) {
        ompi_request_t **r = realloc(req->reqs, sizeof(*r) * (size_t) req->plan.max_comm);
        if (NULL == r) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        req->reqs = r;
        req->reqs_cap = req->plan.max_comm;
    }
    return OMPI_SUCCESS;
}

/* Build stage k of a staged request; HC_NO_MORE_STAGES when it is done. */
static int build_stage(mca_coll_hiercoll_request_t *req, int k)
{
    if (k >= req->stages.nstages) {
        return HC_NO_MORE_STAGES;
    }
    req->stage = k;
    req->bind = req->user_bind;
    int rc = req->stages.build(req->stages.ctx, k, &req->plan, &req->bind);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    req->round = -1;
    return prepare_plan(req);
}

/* Advance a request as far as it goes without waiting.  Returns true once
 * its last round (of its last stage) is done. */
static bool advance(mca_coll_hiercoll_request_t *req)
{
    if (req->early_on) {
        return early_advance(&req->early, req->module, req->comm, req->tag, &req->error);
    }
    for (;;) {
        for (int i = 0; i < req->nreqs; ++i) {
            if (!REQUEST_COMPLETE(req->reqs[i])) {
                return false;
            }
        }
        for (int i = 0; i < req->nreqs; ++i) {
            if (OMPI_SUCCESS != req->reqs[i]->req_status.MPI_ERROR && OMPI_SUCCESS == req->error) {
                req->error = req->reqs[i]->req_status.MPI_ERROR;
            }
            ompi_request_free(&req->reqs[i]);
        }
        req->nreqs = 0;
        if (req->round >= 0 && OMPI_SUCCESS == req->error) {
            req->error = local_ops(req->module, &req->plan, &req->bind, req->round);
        }
        req->round++;
        if (OMPI_SUCCESS != req->error) {
            return true;
        }
        if (req->round >= req->plan.nrounds) {
            if (!req->staged) {
                return true;
            }
            int rc = build_stage(req, req->stage + 1);
            if (HC_NO_MORE_STAGES == rc) {
                return true;
            }
            if (OMPI_SUCCESS != rc) {
                req->error = rc;
                return true;
            }
            continue; /* round -1 of the new stage: post its round 0 */
        }
        req->error = post_round(req->module, req->comm, &req->plan, &req->bind, req->round,
                                req->tag - (req->staged ? req->stage : 0), req->ltag,
                                req->reqs, &req->nreqs, false);
        if (OMPI_SUCCESS != req->error && 0 == req->nreqs) {
            return true;
        }
    }
}

static void complete(mca_coll_hiercoll_request_t *req)
{
    if (req->early_on) {
        req->error = early_finish(&req->early, req->module, req->error);
        req->early_on = false;
    } else if (NULL != req->early.hist && OMPI_SUCCESS == req->error) {
        early_record_plain(req->early.hist, &req->early.kind, &req->plan, &req->bind);
    }
    if (!req->super.super.req_persistent) {
        free(req->scratch);
        req->scratch = NULL;
        req->scratch_size = 0;
    }
    req->super.super.req_status.MPI_ERROR = req->error;
    ompi_request_complete(&req->super.super, true);
}

/* The tags of one execution (staged: one per stage, tag - k for stage k). */
static void reserve_tags(mca_coll_hiercoll_request_t *req)
{
    req->tag = ompi_coll_base_nbc_reserve_tags(req->comm, req->staged ? req->stages.nstages : 1);
    req->ltag = local_tag(req->comm);
}

/* Begin an execution: round -1 done, post round 0.  Nonblocking requests
 * reserve their tag(s) now; persistent ones have theirs since creation. */
static void begin(mca_coll_hiercoll_request_t *req)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    if (!req->super.super.req_persistent) {
        reserve_tags(req);
    }
    req->round = -1;
    req->nreqs = 0;
    req->error = OMPI_SUCCESS;
    mca_coll_hiercoll_req_arm(&req->super.super);
    if (req->staged) {
        int rc = build_stage(req, 0);
        if (OMPI_SUCCESS != rc) {
            req->error = HC_NO_MORE_STAGES == rc ? OMPI_SUCCESS : rc;
            complete(req);
            return;
        }
    }
    req->early.hist = NULL;
    if (!req->staged && req->plan.sc_count > 0
        && mca_coll_hiercoll_sc_engage(req->module, &req->plan, &req->bind, &req->early.kind,
                                       &req->early.hist)) {
        req->error = early_begin(&req->early, req->module, req->comm, &req->plan, &req->bind,
                                 req->tag);
        req->early_on = NULL != req->early.lo;
    }
    if (OMPI_SUCCESS != req->error || advance(req)) {
        complete(req);
        return;
    }
    OPAL_THREAD_LOCK(&prm->lock);
    mca_coll_hiercoll_progress_need();
    opal_list_append(&prm->active, &req->super.super.super.super);
    prm->nactive++;
    OPAL_THREAD_UNLOCK(&prm->lock);
}

/* ------------------------------------------------------------------ */
/* Requests left behind by calls that returned early                    */
/* ------------------------------------------------------------------ */

static bool sweeping; /* under mca_coll_hiercoll_params.lock */

static void sc_leave(hc_leftover_t *lo)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    OPAL_THREAD_LOCK(&prm->lock);
    lo->next = prm->leftovers;
    prm->leftovers = lo;
    prm->nleftovers++;
    mca_coll_hiercoll_progress_need();
    OPAL_THREAD_UNLOCK(&prm->lock);
}

void mca_coll_hiercoll_sc_sweep(ompi_communicator_t *comm, bool all)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    OPAL_THREAD_LOCK(&prm->lock);
    if (sweeping) { /* freeing a request may free a communicator, and so on */
        OPAL_THREAD_UNLOCK(&prm->lock);
        return;
    }
    sweeping = true;
    hc_leftover_t *mine = prm->leftovers, *keep = NULL;
    prm->leftovers = NULL;
    OPAL_THREAD_UNLOCK(&prm->lock);

    int freed = 0;
    while (NULL != mine) {
        hc_leftover_t *lo = mine;
        mine = lo->next;
        int left = 0;
        for (int i = 0; i < lo->nreqs; ++i) {
            ompi_request_t **r = &lo->reqs[i];
            if (MPI_REQUEST_NULL == *r) {
                continue;
            }
            if (all || comm == lo->comm) {
                (void) ompi_request_wait(r, MPI_STATUS_IGNORE);
            } else if (REQUEST_COMPLETE(*r)) {
                ompi_request_free(r);
            } else {
                ++left;
            }
        }
        if (left > 0) {
            lo->next = keep;
            keep = lo;
        } else {
            free(lo->mem[1]);
            free(lo->mem[0]);
            ++freed;
        }
    }

    OPAL_THREAD_LOCK(&prm->lock);
    while (NULL != keep) {
        hc_leftover_t *lo = keep;
        keep = lo->next;
        lo->next = prm->leftovers;
        prm->leftovers = lo;
    }
    prm->nleftovers -= freed;
    sweeping = false;
    OPAL_THREAD_UNLOCK(&prm->lock);
}

void mca_coll_hiercoll_exec_fini(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    if (0 != prm->nleftovers) { /* (the PML is gone: only the memory can go) */
        mca_coll_hiercoll_show_help("early-exit-in-flight", (int) prm->nleftovers);
        while (NULL != prm->leftovers) {
            hc_leftover_t *lo = prm->leftovers;
            prm->leftovers = lo->next;
            free(lo->mem[1]);
            free(lo->mem[0]);
        }
    }
    if (prm->progress_registered) {
        opal_progress_unregister(mca_coll_hiercoll_progress);
        prm->progress_registered = false;
    }
}

/* Progress calls with nothing in flight before the callback leaves the
 * progress loop (a few hundred microseconds of waiting). */
#define HC_PROGRESS_IDLE_POLLS (1u << 14)

void mca_coll_hiercoll_progress_need(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    prm->idle_polls = 0;
    if (!prm->progress_registered) {
        prm->progress_registered = true;
        opal_progress_register(mca_coll_hiercoll_progress);
    }
}

/* Nothing in flight for a while: leave the progress loop (safe from inside
 * it: Open MPI's loop at worst skips the next callback once). */
static void progress_idle(mca_coll_hiercoll_params_t *prm)
{
    if (++prm->idle_polls < HC_PROGRESS_IDLE_POLLS) {
        return;
    }
    OPAL_THREAD_LOCK(&prm->lock);
    if (0 == prm->nactive && 0 == prm->nleftovers && prm->progress_registered
        && !prm->in_progress) {
        prm->progress_registered = false;
        opal_progress_unregister(mca_coll_hiercoll_progress);
    }
    prm->idle_polls = 0;
    OPAL_THREAD_UNLOCK(&prm->lock);
}

int mca_coll_hiercoll_progress(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    mca_coll_hiercoll_request_t *req, *next;
    int done = 0;
    if (0 != prm->nleftovers) {
        mca_coll_hiercoll_sc_sweep(NULL, false);
    }
    if (0 == prm->nactive) {
        if (0 == prm->nleftovers) {
            progress_idle(prm);
        }
        return 0;
    }
    OPAL_THREAD_LOCK(&prm->lock);
    if (prm->in_progress) { /* called from inside our own progress */
        OPAL_THREAD_UNLOCK(&prm->lock);
        return 0;
    }
    prm->in_progress = true;
    OPAL_LIST_FOREACH_SAFE (req, next, &prm->active, mca_coll_hiercoll_request_t) {
        /* The PML may run progress callbacks while we post: not under our lock. */
        OPAL_THREAD_UNLOCK(&prm->lock);
        bool finished = advance(req);
        OPAL_THREAD_LOCK(&prm->lock);
        if (finished) {
            opal_list_remove_item(&prm->active, &req->super.super.super.super);
            prm->nactive--;
            OPAL_THREAD_UNLOCK(&prm->lock);
            complete(req);
            OPAL_THREAD_LOCK(&prm->lock);
            ++done;
        }
    }
    prm->in_progress = false;
    OPAL_THREAD_UNLOCK(&prm->lock);
    return done;
}

static int request_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; ++i) {
        mca_coll_hiercoll_request_t *req = (mca_coll_hiercoll_request_t *) requests[i];
        if (OMPI_REQUEST_ACTIVE == req->super.super.req_state
            && !REQUEST_COMPLETE(&req->super.super)) {
            return MPI_ERR_REQUEST;
        }
        begin(req);
    }
    return OMPI_SUCCESS;
}

static mca_coll_hiercoll_request_t *new_request(mca_coll_hiercoll_module_t *m,
                                                ompi_communicator_t *comm, bool persistent)
{
    mca_coll_hiercoll_request_t *req = OBJ_NEW(mca_coll_hiercoll_request_t);
    if (NULL == req) {
        return NULL;
    }
    OMPI_REQUEST_INIT(&req->super.super, persistent);
    req->super.super.req_mpi_object.comm = comm;
    OBJ_RETAIN(comm);
    req->comm = comm;
    OBJ_RETAIN(m);
    req->module = m;
    return req;
}

int mca_coll_hiercoll_exec_request(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                   hcp_plan_t *plan, const hc_bind_t *b, bool persistent,
                                   ompi_request_t **request)
{
    mca_coll_hiercoll_request_t *req = new_request(m, comm, persistent);
    if (NULL == req) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->plan = *plan; /* take the plan's memory */
    hcp_init(plan);
    req->bind = *b;
    int rc = prepare_plan(req);
    if (OMPI_SUCCESS != rc) {
        req->super.super.req_complete = REQUEST_COMPLETED;
        ompi_request_t *r = &req->super.super;
        request_free(&r);
        return rc;
    }
    *request = &req->super.super;
    if (persistent) {
        reserve_tags(req); /* initialization order: see the top of this file */
    } else {
        begin(req);
    }
    return OMPI_SUCCESS;
}

int mca_coll_hiercoll_exec_staged(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm,
                                  const hc_stages_t *stages, const hc_bind_t *b, hc_mode_t mode,
                                  ompi_request_t **request)
{
    if (HC_BLOCKING == mode) {
        int tag = ompi_coll_base_nbc_reserve_tags(comm, stages->nstages);
        int rc = OMPI_SUCCESS;
        for (int k = 0; k < stages->nstages && OMPI_SUCCESS == rc; ++k) {
            hc_bind_t bk = *b;
            rc = stages->build(stages->ctx, k, &m->plan, &bk);
            if (HC_NO_MORE_STAGES == rc) {
                rc = OMPI_SUCCESS;
                break;
            }
            if (OMPI_SUCCESS == rc) {
                rc = run_blocking(m, comm, &m->plan, &bk, tag - k);
            }
        }
        if (NULL != stages->release) {
            stages->release(stages->ctx);
        }
        return rc;
    }
    mca_coll_hiercoll_request_t *req = new_request(m, comm, HC_PERSISTENT == mode);
    if (NULL == req) {
        if (NULL != stages->release) {
            stages->release(stages->ctx);
        }
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    req->staged = true;
    req->stages = *stages;
    req->user_bind = *b;
    *request = &req->super.super;
    if (HC_PERSISTENT == mode) {
        reserve_tags(req); /* initialization order: see the top of this file */
    } else {
        begin(req);
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Fixed tags of blocking collectives                                  */
/* ------------------------------------------------------------------ */

int mca_coll_hiercoll_blocking_tag(hc_coll_t coll)
{
    static const int tags[HC_NCOLL] = {
        [HC_ALLGATHER] = MCA_COLL_BASE_TAG_ALLGATHER,
        [HC_ALLGATHERV] = MCA_COLL_BASE_TAG_ALLGATHERV,
        [HC_ALLREDUCE] = MCA_COLL_BASE_TAG_ALLREDUCE,
        [HC_ALLTOALL] = MCA_COLL_BASE_TAG_ALLTOALL,
        [HC_ALLTOALLV] = MCA_COLL_BASE_TAG_ALLTOALLV,
        [HC_ALLTOALLW] = MCA_COLL_BASE_TAG_ALLTOALLW,
        [HC_BARRIER] = MCA_COLL_BASE_TAG_BARRIER,
        [HC_BCAST] = MCA_COLL_BASE_TAG_BCAST,
        [HC_EXSCAN] = MCA_COLL_BASE_TAG_EXSCAN,
        [HC_GATHER] = MCA_COLL_BASE_TAG_GATHER,
        [HC_GATHERV] = MCA_COLL_BASE_TAG_GATHERV,
        [HC_REDUCE] = MCA_COLL_BASE_TAG_REDUCE,
        [HC_REDUCE_SCATTER_BLOCK] = MCA_COLL_BASE_TAG_REDUCE_SCATTER_BLOCK,
        [HC_REDUCE_SCATTER] = MCA_COLL_BASE_TAG_REDUCE_SCATTER,
        [HC_SCAN] = MCA_COLL_BASE_TAG_SCAN,
        [HC_SCATTER] = MCA_COLL_BASE_TAG_SCATTER,
        [HC_SCATTERV] = MCA_COLL_BASE_TAG_SCATTERV,
        /* (a neighborhood plan's messages between one pair match in posting
         * order under one tag: coll_hiercoll_plan_neighbor.c) */
        [HC_NEIGHBOR_ALLGATHER] = MCA_COLL_BASE_TAG_NEIGHBOR_BASE,
        [HC_NEIGHBOR_ALLGATHERV] = MCA_COLL_BASE_TAG_NEIGHBOR_BASE,
        [HC_NEIGHBOR_ALLTOALL] = MCA_COLL_BASE_TAG_NEIGHBOR_BASE,
        [HC_NEIGHBOR_ALLTOALLV] = MCA_COLL_BASE_TAG_NEIGHBOR_BASE,
        [HC_NEIGHBOR_ALLTOALLW] = MCA_COLL_BASE_TAG_NEIGHBOR_BASE,
    };
    return tags[coll];
}
