/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The nonblocking and persistent forms of the 17 collectives many at a
 * time (decomposed over parts and leaders as one request whose
 * stages progress in Open MPI's progress).  Every call has its own
 * buffers and data; every result is compared byte for byte with a serial
 * reference computed here.
 *
 *   reverse   per collective, N nonblocking calls (default 50) started in
 *             order on one communicator and completed in REVERSE order
 *             (MPI_Wait from the last to the first);
 *   two       the same, the calls alternating between the communicator
 *             and a dup of it;
 *   freed     the same on the communicator and a dup that is freed
 *             (MPI_Comm_free) while its calls are in flight (with
 *             --free-in-flight or --expect-decomp: Open MPI 4.1.4's
 *             libnbc does not keep a freed communicator alive for its
 *             pending requests and crashes, hiercoll's requests retain it;
 *             reductions then take MPI_SUM only, which every
 *             decomposition serves);
 *   mixed     N calls of all the collectives in turn, on two communicators
 *             (one freed in flight, as above);
 *   persist   per collective, 4 persistent requests initialized in one
 *             order, started in another on every rank (rotated by the
 *             round, reversed on odd ranks), restarted ROUNDS times with
 *             new data; then one request of every collective, started
 *             with MPI_Startall on a permuted array every other round.
 *
 * The calls vary with their number k: every root (k mod np), MPI_IN_PLACE
 * where MPI allows it (every other round of roots), MPI_INT or a vector
 * (ints 0 and 2 of 3: non-contiguous) for the data movement, per-peer
 * types (int, vector, resized) for alltoallw, counts 0 to 3 and 257,
 * uneven counts with zeros for the v forms (blocks in reverse rank order,
 * with gaps that must stay untouched), and for the reductions MPI_SUM on
 * ints or the 2x2 matrix product, a non-commutative user op (a
 * decomposition over interleaved parts declines it: results stay exact).
 *
 * --expect-decomp: hiercoll decomposes these calls, its
 * requests retain their communicator: the freed cases run.  (Whether they
 * were decomposed, run-tests.sh reads from verbose 2; how often they cross
 * between parts, contrib/hc_traffic.sh -F counts from the pml monitoring's
 * files: Open MPI 4.1.4 leaves its MPI_T counters unregistered.)
 *
 * Usage: t_dnb [--only COLL[,COLL...]] [--count N] [--rounds R]
 *              [--free-in-flight] [--expect-decomp]
 * Prints "t_dnb: np N: C checks, F failed".
 */
#include "t_common.h"

enum { C_BCAST, C_REDUCE, C_ALLREDUCE, C_BARRIER, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV,
       C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE_SCATTER,
       C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN, C_N };
static const char *const coll_name[C_N] = {
    "bcast", "reduce", "allreduce", "barrier", "gather", "gatherv", "scatter", "scatterv",
    "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw", "reduce_scatter",
    "reduce_scatter_block", "scan", "exscan"};

static const char *only;
static int commutative_only; /* reductions take MPI_SUM only */
static MPI_Datatype mat_t; /* 4 int64_t: one 2x2 matrix */
static MPI_Op mat_op;

/* the block from rank i to rank j carries signature ints from j * BIG */
#define BIG 1000000L

static int is_reduction(int c)
{
    return C_REDUCE == c || C_ALLREDUCE == c || C_REDUCE_SCATTER == c
           || C_REDUCE_SCATTER_BLOCK == c || C_SCAN == c || C_EXSCAN == c;
}

static int is_rooted(int c)
{
    return C_BCAST == c || C_REDUCE == c || C_GATHER == c || C_GATHERV == c || C_SCATTER == c
           || C_SCATTERV == c;
}

/* ------------------------------------------------------------------ */
/* Reductions: MPI_SUM on ints or the matrix product                    */
/* ------------------------------------------------------------------ */

static int elem_bytes(int mat)
{
    return mat ? 4 * (int) sizeof(int64_t) : (int) sizeof(int);
}

static void r_input(int mat, void *e, int rank, long i, int salt)
{
    if (mat) {
        mat_of(rank, (int) i, salt, e);
    } else {
        *(int *) e = tc_val(rank, i, salt);
    }
}

/* element i reduced over ranks lo..hi in rank order */
static void r_fold(int mat, void *out, int lo, int hi, long i, int salt)
{
    int64_t x[4];
    int one = 1;
    r_input(mat, out, lo, i, salt);
    for (int r = lo + 1; r <= hi; ++r) {
        r_input(mat, x, r, i, salt);
        if (mat) {
            matmul(out, x, &one, NULL); /* x = acc * x */
            memcpy(out, x, sizeof(x));
        } else {
            *(int *) out += *(int *) x;
        }
    }
}

/* ------------------------------------------------------------------ */
/* One call: its layout, buffers, data and serial reference             */
/* ------------------------------------------------------------------ */

typedef struct dcall {
    int coll, k, root, inplace, mat, rank, n, salt;
    MPI_Comm comm;
    const ttype_t *t;
    long cnt;               /* elements per rank (the base of the v layouts) */
    int *sb, *rb, *exp;     /* send, receive, expected receive buffer */
    long sints, rints;      /* ints in sb and rb */
    long check;             /* ints of rb to compare (0: nothing here) */
    int *scs, *sds, *rcs, *rds; /* v counts and displacements */
    MPI_Datatype *sts, *rts;
    const ttype_t **pt;     /* alltoallw: the type of each peer */
} dcall_t;

/* uneven counts with zeros, blocks in reverse rank order with one-element
 * gaps; returns the span in elements */
static long v_layout(int n, long cnt, int k, int *cs, int *ds)
{
    long pos = 0;
    for (int i = n - 1; i >= 0; --i) {
        cs[i] = 0 == (i + k) % 3 ? 0 : (int) (cnt + (i * 5 + k) % 4);
        ds[i] = (int) pos;
        pos += cs[i] + 1;
    }
    return pos;
}

/* alltoallv/w: elements from rank i to rank j (in place: symmetric, none 0) */
static int a2a_len(const dcall_t *d, int i, int j)
{
    if (d->inplace) {
        return 1 + (i + j + d->k) % 3;
    }
    return (int) (((i * 3 + j * 5 + d->k) % 3) * (d->cnt + 1));
}

static void dc_setup(dcall_t *d, int coll, int k, MPI_Comm comm)
{
    static const ttype_t *w_types[3] = {&T_INT, &T_VEC, &T_RES};
    memset(d, 0, sizeof(*d));
    d->coll = coll;
    d->k = k;
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->n);
    int n = d->n, me = d->rank;
    d->root = k % n;
    d->inplace = (k / n) % 2;
    d->mat = commutative_only ? 0 : (k / 2) % 2;
    d->t = 1 == k % 3 ? &T_VEC : &T_INT;
    d->cnt = 6 == k % 7 ? 257 : k % 4;
    if (C_ALLTOALLV == coll || C_ALLTOALLW == coll) {
        d->inplace = k % 2; /* (not tied to the root) */
    }
    const ttype_t *t = d->t;
    long cnt = d->cnt, eb = elem_bytes(d->mat) / (long) sizeof(int), total = 0;
    int ip_here = d->inplace && (!is_rooted(coll) || me == d->root);
    d->scs = tc_alloc(n), d->sds = tc_alloc(n), d->rcs = tc_alloc(n), d->rds = tc_alloc(n);
    switch (coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        d->rints = d->check = tc_span(t, cnt);
        break;
    case C_GATHER: case C_ALLGATHER:
        d->sints = tc_span(t, cnt);
        d->rints = tc_span(t, n * cnt);
        d->check = C_ALLGATHER == coll || me == d->root ? d->rints : 0;
        break;
    case C_GATHERV: case C_ALLGATHERV:
        d->rints = tc_span(t, v_layout(n, cnt, k, d->rcs, d->rds));
        d->sints = tc_span(t, d->rcs[me]);
        d->check = C_ALLGATHERV == coll || me == d->root ? d->rints : 0;
        break;
    case C_SCATTER:
        d->sints = tc_span(t, n * cnt);
        d->rints = tc_span(t, cnt);
        d->check = ip_here ? 0 : d->rints;
        break;
    case C_SCATTERV:
        d->sints = tc_span(t, v_layout(n, cnt, k, d->scs, d->sds));
        d->rints = tc_span(t, d->scs[me]);
        d->check = ip_here ? 0 : d->rints;
        break;
    case C_ALLTOALL:
        d->sints = d->rints = d->check = tc_span(t, n * cnt);
        break;
    case C_ALLTOALLV: case C_ALLTOALLW: {
        /* send blocks in reverse peer order, receive blocks in order, gaps
         * (alltoallw's displacements are bytes, the others' elements) */
        int w = C_ALLTOALLW == coll;
        long spos = 0, rpos = 0, gap = w ? 1 : t->ext;
        if (w) {
            d->sts = malloc(sizeof(MPI_Datatype) * n);
            d->rts = malloc(sizeof(MPI_Datatype) * n);
            d->pt = malloc(sizeof(ttype_t *) * n);
        }
        for (int j = 0; j < n; ++j) {
            const ttype_t *pj = w ? w_types[(me + j + k) % 3] : t;
            if (w) {
                d->pt[j] = pj, d->sts[j] = d->rts[j] = pj->t;
            }
            rpos += j % 2 * gap;
            d->rcs[j] = a2a_len(d, j, me);
            d->rds[j] = (int) (w ? rpos * (long) sizeof(int) : rpos / pj->ext);
            rpos += tc_span(pj, d->rcs[j]);
        }
        for (int j = n - 1; j >= 0; --j) {
            const ttype_t *pj = w ? d->pt[j] : t;
            d->scs[j] = a2a_len(d, me, j);
            d->sds[j] = (int) (w ? spos * (long) sizeof(int) : spos / pj->ext);
            spos += tc_span(pj, d->scs[j]) + gap;
        }
        d->sints = spos;
        d->rints = d->check = rpos;
        break;
    }
    case C_REDUCE: case C_ALLREDUCE: case C_SCAN: case C_EXSCAN:
        d->sints = d->rints = cnt * eb;
        d->check = C_ALLREDUCE == coll || C_SCAN == coll || (C_REDUCE == coll && me == d->root)
                           || (C_EXSCAN == coll && me > 0)
                       ? d->rints : 0;
        break;
    case C_REDUCE_SCATTER: case C_REDUCE_SCATTER_BLOCK:
        for (int i = 0; i < n; ++i) {
            d->rcs[i] = C_REDUCE_SCATTER_BLOCK == coll ? (int) cnt
                                                       : (int) ((i * 3 + 1 + k) % 4 + cnt / 2);
            total += d->rcs[i];
        }
        d->sints = total * eb;
        d->rints = d->inplace ? d->sints : d->rcs[me] * eb; /* in place: the input is here */
        d->check = d->rcs[me] * eb;
        break;
    }
    d->sb = tc_alloc(d->sints);
    d->rb = tc_alloc(d->rints);
    d->exp = tc_alloc(d->rints);
}

static void dc_free(dcall_t *d)
{
    free(d->sb), free(d->rb), free(d->exp);
    free(d->scs), free(d->sds), free(d->rcs), free(d->rds);
    free(d->sts), free(d->rts), free(d->pt);
}

/* New data (salt) in the same buffers, and its serial reference. */
static void dc_fill(dcall_t *d, int salt)
{
    int n = d->n, me = d->rank, coll = d->coll, root = d->root;
    const ttype_t *t = d->t;
    long cnt = d->cnt;
    int ip_here = d->inplace && (!is_rooted(coll) || me == root);
    d->salt = salt;
    for (long i = 0; i < d->sints; ++i) {
        d->sb[i] = SENTINEL;
    }
    for (long i = 0; i < d->rints; ++i) {
        d->rb[i] = d->exp[i] = SENTINEL;
    }
    switch (coll) {
    case C_BARRIER:
        break;
    case C_BCAST:
        tc_fill(d->exp, t, 0, cnt, root, 0, salt);
        if (me == root) {
            tc_fill(d->rb, t, 0, cnt, root, 0, salt);
        }
        break;
    case C_GATHER: case C_ALLGATHER: case C_GATHERV: case C_ALLGATHERV: {
        int v = C_GATHERV == coll || C_ALLGATHERV == coll;
        for (int i = 0; i < n; ++i) {
            long di = v ? d->rds[i] : i * cnt, ci = v ? d->rcs[i] : cnt;
            tc_fill(d->exp, t, di, ci, i, 0, salt);
            if (i == me) {
                tc_fill(ip_here ? d->rb : d->sb, t, ip_here ? di : 0, ci, me, 0, salt);
            }
        }
        break;
    }
    case C_SCATTER: case C_SCATTERV: {
        int v = C_SCATTERV == coll;
        for (int i = 0; i < n && me == root; ++i) {
            tc_fill(d->sb, t, v ? d->sds[i] : i * cnt, v ? d->scs[i] : cnt, i, 0, salt);
        }
        tc_fill(d->exp, t, 0, v ? d->scs[me] : cnt, me, 0, salt);
        break;
    }
    case C_ALLTOALL: case C_ALLTOALLV: case C_ALLTOALLW: {
        int v = C_ALLTOALL != coll, w = C_ALLTOALLW == coll;
        for (int j = 0; j < n; ++j) {
            const ttype_t *pj = w ? d->pt[j] : t;
            long sd = v ? (w ? d->sds[j] / (long) sizeof(int) : d->sds[j] * pj->ext)
                        : tc_span(t, j * cnt);
            long rd = v ? (w ? d->rds[j] / (long) sizeof(int) : d->rds[j] * pj->ext)
                        : tc_span(t, j * cnt);
            long sc = v ? d->scs[j] : cnt, rc = v ? d->rcs[j] : cnt;
            tc_fill(d->exp + rd, pj, 0, rc, j, me * BIG, salt);
            /* in place: what goes to j sits where j's block comes in */
            tc_fill(d->inplace ? d->rb + rd : d->sb + sd, pj, 0, d->inplace ? rc : sc, me,
                    j * BIG, salt);
        }
        break;
    }
    case C_REDUCE: case C_ALLREDUCE: case C_SCAN: case C_EXSCAN: {
        char *in = (char *) (ip_here ? d->rb : d->sb), *ex = (char *) d->exp;
        int eb = elem_bytes(d->mat);
        int hi = C_SCAN == coll ? me : C_EXSCAN == coll ? me - 1 : n - 1;
        for (long i = 0; i < cnt; ++i) {
            r_input(d->mat, in + i * eb, me, i, salt);
            if (hi >= 0) {
                r_fold(d->mat, ex + i * eb, 0, hi, i, salt);
            }
        }
        break;
    }
    case C_REDUCE_SCATTER: case C_REDUCE_SCATTER_BLOCK: {
        char *in = (char *) (d->inplace ? d->rb : d->sb), *ex = (char *) d->exp;
        int eb = elem_bytes(d->mat);
        long total = 0, off = 0;
        for (int i = 0; i < n; ++i) {
            off += i < me ? d->rcs[i] : 0;
            total += d->rcs[i];
        }
        for (long i = 0; i < total; ++i) {
            r_input(d->mat, in + i * eb, me, i, salt);
        }
        for (long i = 0; i < d->rcs[me]; ++i) {
            r_fold(d->mat, ex + i * eb, 0, n - 1, off + i, salt);
        }
        break;
    }
    }
}

/* Start the call: blocking (done when this returns), nonblocking, or
 * persistent (initialized, not started). */
static void dc_start(dcall_t *d, int mode, MPI_Request *rq)
{
    MPI_Comm comm = d->comm;
    int root = d->root, c = (int) d->cnt, p = M_PERSISTENT == mode;
    int ip_here = d->inplace && (!is_rooted(d->coll) || d->rank == root);
    MPI_Datatype t = d->t->t, rt = d->mat ? mat_t : MPI_INT;
    MPI_Op op = d->mat ? mat_op : MPI_SUM;
    void *sb = ip_here ? MPI_IN_PLACE : d->sb, *rb = d->rb;
    MPI_Info ni = MPI_INFO_NULL;
    int rc = MPI_SUCCESS;
/* the blocking, nonblocking and persistent call of the same arguments */
#define GO(B, I, P, ...)                                                                           \
    rc = M_BLOCKING == mode ? B(__VA_ARGS__) : p ? P(__VA_ARGS__, ni, rq) : I(__VA_ARGS__, rq)
    switch (d->coll) {
    case C_BARRIER:
        GO(MPI_Barrier, MPI_Ibarrier, MPIX_Barrier_init, comm);
        break;
    case C_BCAST:
        GO(MPI_Bcast, MPI_Ibcast, MPIX_Bcast_init, rb, c, t, root, comm);
        break;
    case C_GATHER:
        GO(MPI_Gather, MPI_Igather, MPIX_Gather_init, sb, c, t, rb, c, t, root, comm);
        break;
    case C_GATHERV:
        GO(MPI_Gatherv, MPI_Igatherv, MPIX_Gatherv_init, sb, d->rcs[d->rank], t, rb, d->rcs,
           d->rds, t, root, comm);
        break;
    case C_SCATTER:
        GO(MPI_Scatter, MPI_Iscatter, MPIX_Scatter_init, d->sb, c, t, ip_here ? MPI_IN_PLACE : rb,
           c, t, root, comm);
        break;
    case C_SCATTERV:
        GO(MPI_Scatterv, MPI_Iscatterv, MPIX_Scatterv_init, d->sb, d->scs, d->sds, t,
           ip_here ? MPI_IN_PLACE : rb, d->scs[d->rank], t, root, comm);
        break;
    case C_ALLGATHER:
        GO(MPI_Allgather, MPI_Iallgather, MPIX_Allgather_init, sb, c, t, rb, c, t, comm);
        break;
    case C_ALLGATHERV:
        GO(MPI_Allgatherv, MPI_Iallgatherv, MPIX_Allgatherv_init, sb, d->rcs[d->rank], t, rb,
           d->rcs, d->rds, t, comm);
        break;
    case C_ALLTOALL:
        GO(MPI_Alltoall, MPI_Ialltoall, MPIX_Alltoall_init, sb, c, t, rb, c, t, comm);
        break;
    case C_ALLTOALLV:
        GO(MPI_Alltoallv, MPI_Ialltoallv, MPIX_Alltoallv_init, sb, d->scs, d->sds, t, rb, d->rcs,
           d->rds, t, comm);
        break;
    case C_ALLTOALLW:
        GO(MPI_Alltoallw, MPI_Ialltoallw, MPIX_Alltoallw_init, sb, d->scs, d->sds, d->sts, rb,
           d->rcs, d->rds, d->rts, comm);
        break;
    case C_REDUCE:
        GO(MPI_Reduce, MPI_Ireduce, MPIX_Reduce_init, sb, rb, c, rt, op, root, comm);
        break;
    case C_ALLREDUCE:
        GO(MPI_Allreduce, MPI_Iallreduce, MPIX_Allreduce_init, sb, rb, c, rt, op, comm);
        break;
    case C_SCAN:
        GO(MPI_Scan, MPI_Iscan, MPIX_Scan_init, sb, rb, c, rt, op, comm);
        break;
    case C_EXSCAN:
        GO(MPI_Exscan, MPI_Iexscan, MPIX_Exscan_init, sb, rb, c, rt, op, comm);
        break;
    case C_REDUCE_SCATTER:
        GO(MPI_Reduce_scatter, MPI_Ireduce_scatter, MPIX_Reduce_scatter_init, sb, rb, d->rcs, rt,
           op, comm);
        break;
    case C_REDUCE_SCATTER_BLOCK:
        GO(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block, MPIX_Reduce_scatter_block_init, sb,
           rb, c, rt, op, comm);
        break;
    }
#undef GO
    tc_expect(MPI_SUCCESS == rc, "%s %s: error %d", coll_name[d->coll], mode_name[mode], rc);
}

static void dc_check(const dcall_t *d, const char *what)
{
    tc_at("%s: %s k=%d root=%d inplace=%d %s%s count=%ld salt=%d", what, coll_name[d->coll], d->k,
          d->root, d->inplace, is_reduction(d->coll) ? (d->mat ? "matrix" : "int-sum") : d->t->name,
          C_ALLTOALLW == d->coll ? "(per-peer types)" : "", d->cnt, d->salt);
    if (C_BARRIER == d->coll) {
        tc_checks++; /* (it completed) */
    } else if (d->check > 0) {
        tc_expect_ints(d->rb, d->exp, d->check, "result");
    }
}

static int want(int c)
{
    return tc_listed(only, coll_name[c]);
}

/* ------------------------------------------------------------------ */
/* Nonblocking: many in flight, completed in reverse                    */
/* ------------------------------------------------------------------ */

/* `count` calls of `coll` (-1: all the collectives in turn) on `a`,
 * alternating with `*b` when b is given; `*b` freed while they run when
 * `free_b`.  Waits from the last to the first, then checks them all. */
static void nb_reverse(MPI_Comm a, MPI_Comm *b, int free_b, int coll, int count, const char *what)
{
    dcall_t *d = calloc((size_t) count, sizeof(*d));
    MPI_Request *rq = calloc((size_t) count, sizeof(*rq));
    int k0 = 0;
    for (int k = 0; k < count; ++k) {
        int c = coll;
        while (c < 0) { /* all the collectives in turn, the wanted ones */
            c = want(k0 % C_N) ? k0 % C_N : -1;
            ++k0;
        }
        dc_setup(&d[k], c, k, NULL != b && k % 2 ? *b : a);
        dc_fill(&d[k], 100 + k);
        dc_start(&d[k], M_NONBLOCKING, &rq[k]);
    }
    if (free_b) {
        MPI_Comm_free(b);
    }
    for (int k = count - 1; k >= 0; --k) {
        MPI_Wait(&rq[k], MPI_STATUS_IGNORE);
    }
    for (int k = 0; k < count; ++k) {
        dc_check(&d[k], what);
        dc_free(&d[k]);
    }
    free(d);
    free(rq);
}

/* ------------------------------------------------------------------ */
/* Persistent: initialized in one order, started in others, restarted   */
/* ------------------------------------------------------------------ */

static void persist(MPI_Comm comm, int coll, int nreq, int rounds, const char *what)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    dcall_t *d = calloc((size_t) nreq, sizeof(*d));
    MPI_Request *rq = calloc((size_t) nreq, sizeof(*rq)),
                *perm = calloc((size_t) nreq, sizeof(*rq));
    int *order = calloc((size_t) nreq, sizeof(int));
    for (int i = 0, c0 = 0; i < nreq; ++i) {
        int c = coll;
        while (c < 0) {
            c = want(c0 % C_N) ? c0 % C_N : -1;
            ++c0;
        }
        /* variants far apart: other roots, in place or not, other types */
        dc_setup(&d[i], c, i * (n + 1) + (coll < 0 ? 0 : 3), comm);
        dc_start(&d[i], M_PERSISTENT, &rq[i]);
    }
    for (int it = 0; it < rounds; ++it) {
        for (int i = 0; i < nreq; ++i) {
            dc_fill(&d[i], 1000 + 10 * it + i);
        }
        for (int j = 0; j < nreq; ++j) {
            int x = (j + it) % nreq;
            order[j] = rank % 2 ? nreq - 1 - x : x;
            perm[j] = rq[order[j]];
        }
        int rc = MPI_SUCCESS;
        if (it % 2) {
            rc = MPI_Startall(nreq, perm); /* (the handles stay the same) */
        } else {
            for (int j = 0; j < nreq && MPI_SUCCESS == rc; ++j) {
                rc = MPI_Start(&rq[order[j]]);
            }
        }
        tc_at("%s: round %d started", what, it);
        tc_expect(MPI_SUCCESS == rc, "start: error %d", rc);
        if (it % 2) {
            rc = MPI_Waitall(nreq, rq, MPI_STATUSES_IGNORE);
        } else {
            for (int i = nreq - 1; i >= 0 && MPI_SUCCESS == rc; --i) {
                rc = MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
            }
        }
        tc_at("%s: round %d completed", what, it);
        tc_expect(MPI_SUCCESS == rc, "wait: error %d", rc);
        for (int i = 0; i < nreq; ++i) {
            dc_check(&d[i], what);
        }
    }
    for (int i = 0; i < nreq; ++i) {
        MPI_Request_free(&rq[i]);
        dc_free(&d[i]);
    }
    free(d), free(rq), free(perm), free(order);
}

/* A dup of comm whose parts exist (see main). */
static void dup_with_parts(MPI_Comm comm, MPI_Comm *dup)
{
    MPI_Comm_dup(comm, dup);
    MPI_Barrier(*dup);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    int count = 50, rounds = 4, free_in_flight = 0;
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (0 == strcmp(argv[i], "--count") && i + 1 < argc) {
            count = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--expect-decomp")
                   || 0 == strcmp(argv[i], "--free-in-flight")) {
            free_in_flight = 1;
        } else {
            fprintf(stderr, "t_dnb: unknown argument %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    tc_types_init();
    MPI_Type_contiguous(4, MPI_INT64_T, &mat_t);
    MPI_Type_commit(&mat_t);
    MPI_Op_create(matmul, 0, &mat_op);

    MPI_Comm world = MPI_COMM_WORLD, dup;
    char what[64];
    /* hiercoll makes a communicator's parts at its first blocking
     * collective (a nonblocking call or a persistent init must not wait
     * for the other ranks): one barrier on every communicator first */
    MPI_Barrier(world);
    int nwant = 0;
    for (int c = 0; c < C_N; ++c) {
        nwant += want(c);
    }
    for (int c = 0; c < C_N; ++c) {
        if (!want(c)) {
            continue;
        }
        nb_reverse(world, NULL, 0, c, count, "reverse");
        dup_with_parts(world, &dup);
        nb_reverse(world, &dup, 0, c, count, "two communicators");
        nb_reverse(dup, &world, 0, c, count, "two communicators, the dup first");
        if (free_in_flight) {
            commutative_only = 1;
            nb_reverse(world, &dup, 1, c, count, "one freed in flight");
            commutative_only = 0;
            dup_with_parts(world, &dup);
        }
        snprintf(what, sizeof(what), "persistent %s", coll_name[c]);
        persist(dup, c, 4, rounds, what);
        MPI_Comm_free(&dup);
    }
    if (nwant > 0) {
        dup_with_parts(world, &dup);
        commutative_only = free_in_flight;
        nb_reverse(world, &dup, free_in_flight, -1, 3 * count, "mixed");
        commutative_only = 0;
        if (!free_in_flight) {
            MPI_Comm_free(&dup);
        }
        persist(world, -1, nwant, rounds, "persistent, every collective");
    }
    MPI_Op_free(&mat_op);
    MPI_Type_free(&mat_t);
    tc_types_free();
    return tc_finish("t_dnb");
}
