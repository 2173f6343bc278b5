/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Every collective, blocking, nonblocking and persistent (twice, with new
 * data, to check that a restart re-executes), on MPI_COMM_WORLD, a dup, a
 * split with reordered ranks and MPI_COMM_SELF, with predefined and
 * derived datatypes (gaps included: they must stay untouched), mixed
 * send/receive types of one signature, counts 0, 1, odd and large,
 * MPI_IN_PLACE, every root, irregular counts and displacements, and
 * commutative, non-commutative and user-defined ops.  Every result is
 * compared byte for byte with a serial reference computed here.
 *
 * Usage: t_colls [--quick] [--only NAME[,NAME...]] [--info KEY=VALUE]
 *                [--root-only-args] [--every-algorithm [--decomp CRITERION]]
 *   --info: the dup communicator is created with this info key
 *   --root-only-args: in gather(v) and scatter(v), non-roots pass NULL
 *       and MPI_DATATYPE_NULL for what MPI reads at the root only
 *   --every-algorithm: after MPI_COMM_WORLD (auto), one ROUND per
 *       algorithm name hiercoll knows (read from its MCA parameters'
 *       descriptions through MPI_T, "fallback" first): communicators whose
 *       info keys force every collective that has it to that algorithm
 *       (a dup of MPI_COMM_WORLD, the reversed split, a dup of
 *       MPI_COMM_SELF) run the tests of those collectives; one mpirun
 *       covers every (collective, algorithm, mode)
 *   --decomp: the rounds' dup decomposes by this criterion, their split
 *       by block:2 (info key hiercoll_decomp_criterion)
 */
#include "t_common.h"

static int quick;
static const char *only;
static char *info_key, *info_val;
static int root_only_args;
/* --every-algorithm: the collectives of the running round (NULL: all), and
 * whether every rank must pass the same datatype (see run_round) */
static const char *round_set;
static int round_same_types;

static int want(const char *name)
{
    return tc_listed(only, name) && tc_listed(round_set, name);
}

/* ------------------------------------------------------------------ */
/* The three forms of each collective                                   */
/* ------------------------------------------------------------------ */

static void finish(int m, MPI_Request *rq)
{
    if (M_PERSISTENT == m) {
        MPI_Start(rq);
    }
    MPI_Wait(rq, MPI_STATUS_IGNORE);
}

#define INIT(call)                                                                                 \
    do {                                                                                           \
        if (first) {                                                                               \
            call;                                                                                  \
        }                                                                                          \
    } while (0)

static void c_bcast(int m, int first, MPI_Request *rq, void *b, int c, MPI_Datatype t, int root,
                    MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Bcast(b, c, t, root, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ibcast(b, c, t, root, comm, rq);
    } else {
        INIT(MPIX_Bcast_init(b, c, t, root, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_gather(int m, int first, MPI_Request *rq, const void *sb, int sc, MPI_Datatype st,
                     void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Igather(sb, sc, st, rb, rc, rt, root, comm, rq);
    } else {
        INIT(MPIX_Gather_init(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_gatherv(int m, int first, MPI_Request *rq, const void *sb, int sc, MPI_Datatype st,
                      void *rb, const int *rcs, const int *ds, MPI_Datatype rt, int root,
                      MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Gatherv(sb, sc, st, rb, rcs, ds, rt, root, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Igatherv(sb, sc, st, rb, rcs, ds, rt, root, comm, rq);
    } else {
        INIT(MPIX_Gatherv_init(sb, sc, st, rb, rcs, ds, rt, root, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_scatter(int m, int first, MPI_Request *rq, const void *sb, int sc, MPI_Datatype st,
                      void *rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Scatter(sb, sc, st, rb, rc, rt, root, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Iscatter(sb, sc, st, rb, rc, rt, root, comm, rq);
    } else {
        INIT(MPIX_Scatter_init(sb, sc, st, rb, rc, rt, root, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_scatterv(int m, int first, MPI_Request *rq, const void *sb, const int *scs,
                       const int *ds, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                       int root, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Scatterv(sb, scs, ds, st, rb, rc, rt, root, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Iscatterv(sb, scs, ds, st, rb, rc, rt, root, comm, rq);
    } else {
        INIT(MPIX_Scatterv_init(sb, scs, ds, st, rb, rc, rt, root, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_allgather(int m, int first, MPI_Request *rq, const void *sb, int sc,
                        MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Allgather(sb, sc, st, rb, rc, rt, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Iallgather(sb, sc, st, rb, rc, rt, comm, rq);
    } else {
        INIT(MPIX_Allgather_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_allgatherv(int m, int first, MPI_Request *rq, const void *sb, int sc,
                         MPI_Datatype st, void *rb, const int *rcs, const int *ds,
                         MPI_Datatype rt, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Allgatherv(sb, sc, st, rb, rcs, ds, rt, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Iallgatherv(sb, sc, st, rb, rcs, ds, rt, comm, rq);
    } else {
        INIT(MPIX_Allgatherv_init(sb, sc, st, rb, rcs, ds, rt, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_alltoall(int m, int first, MPI_Request *rq, const void *sb, int sc, MPI_Datatype st,
                       void *rb, int rc, MPI_Datatype rt, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ialltoall(sb, sc, st, rb, rc, rt, comm, rq);
    } else {
        INIT(MPIX_Alltoall_init(sb, sc, st, rb, rc, rt, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_alltoallv(int m, int first, MPI_Request *rq, const void *sb, const int *scs,
                        const int *sds, MPI_Datatype st, void *rb, const int *rcs, const int *rds,
                        MPI_Datatype rt, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Alltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ialltoallv(sb, scs, sds, st, rb, rcs, rds, rt, comm, rq);
    } else {
        INIT(MPIX_Alltoallv_init(sb, scs, sds, st, rb, rcs, rds, rt, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_alltoallw(int m, int first, MPI_Request *rq, const void *sb, const int *scs,
                        const int *sds, const MPI_Datatype *sts, void *rb, const int *rcs,
                        const int *rds, const MPI_Datatype *rts, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Alltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ialltoallw(sb, scs, sds, sts, rb, rcs, rds, rts, comm, rq);
    } else {
        INIT(MPIX_Alltoallw_init(sb, scs, sds, sts, rb, rcs, rds, rts, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_reduce(int m, int first, MPI_Request *rq, const void *sb, void *rb, int c,
                     MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Reduce(sb, rb, c, t, op, root, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ireduce(sb, rb, c, t, op, root, comm, rq);
    } else {
        INIT(MPIX_Reduce_init(sb, rb, c, t, op, root, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_allreduce(int m, int first, MPI_Request *rq, const void *sb, void *rb, int c,
                        MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Allreduce(sb, rb, c, t, op, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Iallreduce(sb, rb, c, t, op, comm, rq);
    } else {
        INIT(MPIX_Allreduce_init(sb, rb, c, t, op, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_scan(int m, int first, MPI_Request *rq, int ex, const void *sb, void *rb, int c,
                   MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        ex ? MPI_Exscan(sb, rb, c, t, op, comm) : MPI_Scan(sb, rb, c, t, op, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        ex ? MPI_Iexscan(sb, rb, c, t, op, comm, rq) : MPI_Iscan(sb, rb, c, t, op, comm, rq);
    } else {
        INIT(ex ? MPIX_Exscan_init(sb, rb, c, t, op, comm, MPI_INFO_NULL, rq)
                : MPIX_Scan_init(sb, rb, c, t, op, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_reduce_scatter(int m, int first, MPI_Request *rq, const void *sb, void *rb,
                             const int *rcs, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Reduce_scatter(sb, rb, rcs, t, op, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ireduce_scatter(sb, rb, rcs, t, op, comm, rq);
    } else {
        INIT(MPIX_Reduce_scatter_init(sb, rb, rcs, t, op, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_reduce_scatter_block(int m, int first, MPI_Request *rq, const void *sb, void *rb,
                                   int rc, MPI_Datatype t, MPI_Op op, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Reduce_scatter_block(sb, rb, rc, t, op, comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ireduce_scatter_block(sb, rb, rc, t, op, comm, rq);
    } else {
        INIT(MPIX_Reduce_scatter_block_init(sb, rb, rc, t, op, comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

static void c_barrier(int m, int first, MPI_Request *rq, MPI_Comm comm)
{
    if (M_BLOCKING == m) {
        MPI_Barrier(comm);
        return;
    }
    if (M_NONBLOCKING == m) {
        MPI_Ibarrier(comm, rq);
    } else {
        INIT(MPIX_Barrier_init(comm, MPI_INFO_NULL, rq));
    }
    finish(m, rq);
}

/* mode loop: persistent runs twice with new data */
#define FOR_MODES(m, rep, salt)                                                                    \
    for (int m = 0; m < M_COUNT; ++m)                                                              \
        for (int rep = 0, salt = 1 + 10 * m; rep < (M_PERSISTENT == m ? 2 : 1); ++rep, ++salt)

#define DONE_MODE(m, rep, rq)                                                                      \
    do {                                                                                           \
        if (M_PERSISTENT == (m) && 1 == (rep)) {                                                   \
            MPI_Request_free(rq);                                                                  \
        }                                                                                          \
    } while (0)

/* ------------------------------------------------------------------ */
/* Data movement                                                        */
/* ------------------------------------------------------------------ */

#define NCOMBO 5
static const ttype_t *combo[NCOMBO][2];
static const long sig_lens[] = {0, 2, 7, 14, 1000, 40000};
#define NLENS ((int) (sizeof(sig_lens) / sizeof(sig_lens[0])))

/* a signature length L works for a type pair when both divide it */
static int len_ok(long L, const ttype_t *s, const ttype_t *r)
{
    if (quick && L > 1000) {
        return 0;
    }
    return 0 == L % s->ints && 0 == L % r->ints;
}

static void test_bcast(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    for (int ci = 0; ci < NCOMBO; ++ci) {
        const ttype_t *s = combo[ci][0], *r = combo[ci][1];
        if (round_same_types && s != r) {
            continue;
        }
        for (int li = 0; li < NLENS; ++li) {
            long L = sig_lens[li];
            if (!len_ok(L, s, r)) {
                continue;
            }
            for (int root = 0; root < n; ++root) {
                if (L > 14 && root != n - 1 && root != 0) {
                    continue; /* every root at small sizes */
                }
                const ttype_t *t = rank == root ? s : r;
                long cnt = L / t->ints;
                int *buf = tc_alloc(tc_span(t, cnt)), *exp = tc_alloc(tc_span(t, cnt));
                MPI_Request rq;
                FOR_MODES(m, rep, salt)
                {
                    tc_at("bcast %s %s %s->%s L=%ld root=%d", cname, mode_name[m], s->name,
                          r->name, L, root);
                    for (long i = 0; i < tc_span(t, cnt); ++i) {
                        buf[i] = exp[i] = SENTINEL;
                    }
                    tc_fill(exp, t, 0, cnt, root, 0, salt);
                    if (rank == root) {
                        tc_fill(buf, t, 0, cnt, root, 0, salt);
                    }
                    c_bcast(m, 0 == rep, &rq, buf, (int) cnt, t->t, root, comm);
                    tc_expect_ints(buf, exp, tc_span(t, cnt), "buffer");
                    DONE_MODE(m, rep, &rq);
                }
                free(buf);
                free(exp);
            }
        }
    }
}

/* irregular layout: counts (signature ints, multiples of `unit`), displs in
 * receive elements, in a shuffled order with gaps; returns the span in
 * elements */
static long layout(int n, long L, int unit, const ttype_t *r, int *sigs, int *cnts, int *displs,
                   int seed)
{
    long pos = 0;
    for (int k = 0; k < n; ++k) {
        int i = (int) (((long) k * 7 + seed) % n); /* a permutation when gcd(7, n) = 1 */
        if (0 == n % 7) {
            i = n - 1 - k;
        }
        long len = 0 == L ? 0 : (((long) i * 5 + seed) % 3) * L / 2;
        len -= len % unit;
        sigs[i] = (int) len;
        cnts[i] = (int) (len / r->ints);
        pos += (i + seed) % 2; /* gap */
        displs[i] = (int) pos;
        pos += cnts[i];
    }
    return pos;
}

static int lcm_ints(const ttype_t *a, const ttype_t *b)
{
    return a->ints == b->ints ? a->ints : a->ints * b->ints;
}

/* Blocks of L signature ints per rank, regular (rank order, no gaps) or
 * irregular (layout()); returns the span in receive elements. */
static long blocks(int n, long L, int irregular, const ttype_t *s, const ttype_t *r, int *sigs,
                   int *cnts, int *displs, int seed)
{
    if (irregular) {
        return layout(n, L, lcm_ints(s, r), r, sigs, cnts, displs, seed);
    }
    for (int i = 0; i < n; ++i) {
        sigs[i] = (int) L;
        cnts[i] = (int) (L / r->ints);
        displs[i] = (int) (i * (L / r->ints));
    }
    return n * (L / r->ints);
}

static void test_gather_scatter(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *sigs = malloc(sizeof(int) * n), *cnts = malloc(sizeof(int) * n),
        *ds = malloc(sizeof(int) * n);
    for (int ci = 0; ci < NCOMBO; ++ci) {
        const ttype_t *s = combo[ci][0], *r = combo[ci][1];
        for (int li = 0; li < NLENS; ++li) {
            long L = sig_lens[li];
            if (!len_ok(L, s, r)) {
                continue;
            }
            for (int root = 0; root < n; ++root) {
                if (L > 14 && root != n / 2) {
                    continue;
                }
                for (int v = 0; v < 2; ++v) { /* regular, irregular */
                    for (int ip = 0; ip < 2; ++ip) {
                        long span = blocks(n, L, v, s, r, sigs, cnts, ds, root + 1);
                        long myc = sigs[rank] / s->ints;
                        int *sb = tc_alloc(tc_span(s, myc));
                        int *rb = tc_alloc(tc_span(r, span)), *exp = tc_alloc(tc_span(r, span));
                        MPI_Request rq;
                        /* gather */
                        if (want(v ? "gatherv" : "gather")) {
                            FOR_MODES(m, rep, salt)
                            {
                                tc_at("%s %s %s %s->%s L=%ld root=%d inplace=%d",
                                      v ? "gatherv" : "gather", cname, mode_name[m], s->name,
                                      r->name, L, root, ip);
                                for (long i = 0; i < tc_span(r, span); ++i) {
                                    rb[i] = exp[i] = SENTINEL;
                                }
                                tc_fill(sb, s, 0, myc, rank, 0, salt);
                                for (int i = 0; i < n; ++i) {
                                    tc_fill(exp, r, ds[i], cnts[i], i, 0, salt);
                                }
                                int inplace = ip && rank == root;
                                if (inplace) {
                                    tc_fill(rb, r, ds[rank], cnts[rank], rank, 0, salt);
                                }
                                const void *sptr = inplace ? MPI_IN_PLACE : sb;
                                int bare = root_only_args && rank != root;
                                if (v) {
                                    c_gatherv(m, 0 == rep, &rq, sptr, (int) myc, s->t,
                                              bare ? NULL : rb, bare ? NULL : cnts,
                                              bare ? NULL : ds, bare ? MPI_DATATYPE_NULL : r->t,
                                              root, comm);
                                } else {
                                    c_gather(m, 0 == rep, &rq, sptr, (int) myc, s->t,
                                             bare ? NULL : rb, bare ? 0 : cnts[0],
                                             bare ? MPI_DATATYPE_NULL : r->t, root, comm);
                                }
                                if (rank == root) {
                                    tc_expect_ints(rb, exp, tc_span(r, span), "recvbuf");
                                }
                                DONE_MODE(m, rep, &rq);
                            }
                        }
                        /* scatter: the mirror (root's blocks in s, received as r) */
                        if (want(v ? "scatterv" : "scatter")) {
                            const ttype_t *ss = r, *rr = s; /* root side uses the layout's type */
                            long myr = sigs[rank] / rr->ints;
                            int *rbuf = tc_alloc(tc_span(rr, myr)),
                                *rexp = tc_alloc(tc_span(rr, myr));
                            FOR_MODES(m, rep, salt)
                            {
                                tc_at("%s %s %s %s->%s L=%ld root=%d inplace=%d",
                                      v ? "scatterv" : "scatter", cname, mode_name[m], ss->name,
                                      rr->name, L, root, ip);
                                for (long i = 0; i < tc_span(ss, span); ++i) {
                                    rb[i] = SENTINEL;
                                }
                                for (long i = 0; i < tc_span(rr, myr); ++i) {
                                    rbuf[i] = rexp[i] = SENTINEL;
                                }
                                if (rank == root) {
                                    for (int i = 0; i < n; ++i) {
                                        tc_fill(rb, ss, ds[i], cnts[i], i, 0, salt);
                                    }
                                }
                                int inplace = ip && rank == root;
                                tc_fill(rexp, rr, 0, myr, rank, 0, salt);
                                void *rptr = inplace ? MPI_IN_PLACE : rbuf;
                                int bare = root_only_args && rank != root;
                                MPI_Datatype st = bare ? MPI_DATATYPE_NULL : ss->t;
                                if (v) {
                                    c_scatterv(m, 0 == rep, &rq, bare ? NULL : rb,
                                               bare ? NULL : cnts, bare ? NULL : ds, st, rptr,
                                               (int) myr, rr->t, root, comm);
                                } else {
                                    c_scatter(m, 0 == rep, &rq, bare ? NULL : rb,
                                              bare ? 0 : cnts[0], st, rptr, (int) myr, rr->t,
                                              root, comm);
                                }
                                if (!inplace) {
                                    tc_expect_ints(rbuf, rexp, tc_span(rr, myr), "recvbuf");
                                }
                                DONE_MODE(m, rep, &rq);
                            }
                            free(rbuf);
                            free(rexp);
                        }
                        free(sb);
                        free(rb);
                        free(exp);
                    }
                }
            }
        }
    }
    free(sigs);
    free(cnts);
    free(ds);
}

static void test_allgather(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *sigs = malloc(sizeof(int) * n), *cnts = malloc(sizeof(int) * n),
        *ds = malloc(sizeof(int) * n);
    for (int ci = 0; ci < NCOMBO; ++ci) {
        const ttype_t *s = combo[ci][0], *r = combo[ci][1];
        for (int li = 0; li < NLENS; ++li) {
            long L = sig_lens[li];
            if (!len_ok(L, s, r)) {
                continue;
            }
            for (int v = 0; v < 2; ++v) {
                if (!want(v ? "allgatherv" : "allgather")) {
                    continue;
                }
                for (int ip = 0; ip < 2; ++ip) {
                    long span = blocks(n, L, v, s, r, sigs, cnts, ds, 3);
                    long myc = sigs[rank] / s->ints;
                    int *sb = tc_alloc(tc_span(s, myc)), *rb = tc_alloc(tc_span(r, span)),
                        *exp = tc_alloc(tc_span(r, span));
                    MPI_Request rq;
                    FOR_MODES(m, rep, salt)
                    {
                        tc_at("%s %s %s %s->%s L=%ld inplace=%d", v ? "allgatherv" : "allgather",
                              cname, mode_name[m], s->name, r->name, L, ip);
                        for (long i = 0; i < tc_span(r, span); ++i) {
                            rb[i] = exp[i] = SENTINEL;
                        }
                        tc_fill(sb, s, 0, myc, rank, 0, salt);
                        for (int i = 0; i < n; ++i) {
                            tc_fill(exp, r, ds[i], cnts[i], i, 0, salt);
                        }
                        if (ip) {
                            tc_fill(rb, r, ds[rank], cnts[rank], rank, 0, salt);
                        }
                        const void *sptr = ip ? MPI_IN_PLACE : sb;
                        if (v) {
                            c_allgatherv(m, 0 == rep, &rq, sptr, (int) myc, s->t, rb, cnts, ds,
                                         r->t, comm);
                        } else {
                            c_allgather(m, 0 == rep, &rq, sptr, (int) myc, s->t, rb, cnts[0],
                                        r->t, comm);
                        }
                        tc_expect_ints(rb, exp, tc_span(r, span), "recvbuf");
                        DONE_MODE(m, rep, &rq);
                    }
                    free(sb);
                    free(rb);
                    free(exp);
                }
            }
        }
    }
    free(sigs);
    free(cnts);
    free(ds);
}

/* alltoall(v,w): the block from i to j carries signature ints
 * [j * BIG, j * BIG + len(i, j)) of rank i */
#define BIG 1000000L

static long a2a_len(int i, int j, long L, int v, int sym)
{
    if (!v) {
        return L;
    }
    if (sym) {
        /* In place, lengths must agree both ways; none is 0, because Open
         * MPI 4.1.4's libnbc ialltoallv returns without reserving a tag when
         * a rank's in-place receive span is 0, which desynchronises every
         * later nonblocking collective on the communicator (an upstream
         * bug, docs/known-issues.md). */
        return (1 + (i + j) % 3) * L / 2 / 2 * 2;
    }
    if (i == j) {
        return L / 2 * 2; /* a rank's own block is never empty (L > 1) */
    }
    return ((i * 3 + j * 5) % 3) * L / 2 / 2 * 2; /* even, zeros included */
}

static void test_alltoall(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int *sc = malloc(sizeof(int) * n), *sd = malloc(sizeof(int) * n), *rc = malloc(sizeof(int) * n),
        *rd = malloc(sizeof(int) * n);
    MPI_Datatype *sts = malloc(sizeof(MPI_Datatype) * n), *rts = malloc(sizeof(MPI_Datatype) * n);
    for (int ci = 0; ci < NCOMBO; ++ci) {
        const ttype_t *s = combo[ci][0], *r = combo[ci][1];
        for (int li = 0; li < NLENS; ++li) {
            long L = sig_lens[li];
            if (!len_ok(L, s, r) || L > 1000) {
                continue;
            }
            for (int v = 0; v < 3; ++v) { /* alltoall, alltoallv, alltoallw */
                const char *name = 0 == v ? "alltoall" : 1 == v ? "alltoallv" : "alltoallw";
                if (!want(name) || (2 == v && 0 != ci)) {
                    continue;
                }
                for (int ip = 0; ip < 2; ++ip) {
                    if (ip && s != r) {
                        continue; /* in place: one type */
                    }
                    /* per peer types for alltoallw: int, vector, resized in
                     * turn (the same both ways of a pair, as in place needs) */
                    const ttype_t *pt[3] = {&T_INT, &T_VEC, &T_RES};
                    long spos = 0, rpos = 0;
                    for (int j = n - 1; j >= 0; --j) { /* send blocks in reverse order */
                        const ttype_t *t = 2 == v ? pt[(rank + j) % 3] : s;
                        sc[j] = (int) (a2a_len(rank, j, L, v, ip) / t->ints);
                        sd[j] = (int) (2 == v ? spos * (long) sizeof(int) : spos / t->ext);
                        spos += tc_span(t, sc[j]);
                        sts[j] = t->t;
                    }
                    for (int j = 0; j < n; ++j) {
                        const ttype_t *t = 2 == v ? pt[(rank + j) % 3] : r;
                        rpos += j % 2; /* gap */
                        if (2 != v) {
                            rpos = (rpos + t->ext - 1) / t->ext * t->ext;
                        }
                        rc[j] = (int) (a2a_len(j, rank, L, v, ip) / t->ints);
                        rd[j] = (int) (2 == v ? rpos * (long) sizeof(int) : rpos / t->ext);
                        rpos += tc_span(t, rc[j]);
                        rts[j] = t->t;
                    }
                    if (ip) { /* in place: the receive layout is the send layout */
                        for (int j = 0; j < n; ++j) {
                            sc[j] = rc[j];
                            sd[j] = rd[j];
                        }
                    }
                    if (0 == v) {
                        for (int j = 0; j < n; ++j) {
                            sd[j] = (int) (j * (L / s->ints));
                            rd[j] = (int) (j * (L / r->ints));
                        }
                        spos = tc_span(s, n * (L / s->ints));
                        rpos = tc_span(r, n * (L / r->ints));
                    }
                    int *sb = tc_alloc(spos), *rb = tc_alloc(rpos), *exp = tc_alloc(rpos);
                    MPI_Request rq;
                    FOR_MODES(m, rep, salt)
                    {
                        tc_at("%s %s %s %s->%s L=%ld inplace=%d", name, cname, mode_name[m],
                              s->name, r->name, L, ip);
                        for (long i = 0; i < rpos; ++i) {
                            rb[i] = exp[i] = SENTINEL;
                        }
                        for (int j = 0; j < n; ++j) {
                            const ttype_t *st = 2 == v ? pt[(rank + j) % 3] : s;
                            const ttype_t *rt = 2 == v ? pt[(rank + j) % 3] : r;
                            /* int offsets: alltoallw displacements are bytes */
                            long sint = 2 == v ? sd[j] / (long) sizeof(int) : sd[j] * st->ext;
                            long rint = 2 == v ? rd[j] / (long) sizeof(int) : rd[j] * rt->ext;
                            tc_fill((ip ? rb : sb) + sint, st, 0, sc[j], rank, j * BIG, salt);
                            tc_fill(exp + rint, rt, 0, rc[j], j, rank * BIG, salt);
                        }
                        const void *sptr = ip ? MPI_IN_PLACE : sb;
                        if (0 == v) {
                            c_alltoall(m, 0 == rep, &rq, sptr, (int) (L / s->ints), s->t, rb,
                                       (int) (L / r->ints), r->t, comm);
                        } else if (1 == v) {
                            c_alltoallv(m, 0 == rep, &rq, sptr, sc, sd, s->t, rb, rc, rd, r->t,
                                        comm);
                        } else {
                            c_alltoallw(m, 0 == rep, &rq, sptr, sc, sd, sts, rb, rc, rd, rts,
                                        comm);
                        }
                        tc_expect_ints(rb, exp, rpos, "recvbuf");
                        DONE_MODE(m, rep, &rq);
                    }
                    free(sb);
                    free(rb);
                    free(exp);
                }
            }
        }
    }
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(sts);
    free(rts);
}

/* ------------------------------------------------------------------ */
/* Reductions                                                           */
/* ------------------------------------------------------------------ */

typedef struct rop {
    const char *name;
    MPI_Op op;
    MPI_Datatype type;
    int bytes;    /* per element */
    int commutes;
    void (*input)(void *e, int rank, long i, int salt);
    void (*combine)(const void *a, void *b); /* b = a (op) b */
} rop_t;

static void in_int(void *e, int r, long i, int s)
{
    *(int *) e = tc_val(r, i, s);
}
static void in_dbl(void *e, int r, long i, int s)
{
    *(double *) e = tc_val(r, i, s);
}
static void in_pair(void *e, int r, long i, int s)
{
    ((int *) e)[0] = tc_val(r, 2 * i, s);
    ((int *) e)[1] = tc_val(r, 2 * i + 1, s);
}
static void in_affine(void *e, int r, long i, int s)
{
    ((unsigned *) e)[0] = 2u * (unsigned) tc_val(r, 2 * i, s) + 1u;
    ((unsigned *) e)[1] = (unsigned) tc_val(r, 2 * i + 1, s);
}
static void sum_int(const void *a, void *b)
{
    *(int *) b += *(const int *) a;
}
static void sum_dbl(const void *a, void *b)
{
    *(double *) b += *(const double *) a;
}
static void max_int(const void *a, void *b)
{
    if (*(const int *) a > *(int *) b) {
        *(int *) b = *(const int *) a;
    }
}
static void xor_int(const void *a, void *b)
{
    *(int *) b ^= *(const int *) a;
}
static void sum_pair(const void *a, void *b)
{
    sum_int(a, b);
    sum_int((const int *) a + 1, (int *) b + 1);
}
/* x -> m x + c: a then b is (ma mb, ca mb + cb) */
static void affine(const void *a, void *b)
{
    const unsigned *x = a;
    unsigned *y = b;
    unsigned m = x[0] * y[0], c = x[1] * y[0] + y[1];
    y[0] = m;
    y[1] = c;
}

static void user_xor(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (int i = 0; i < *len; ++i) {
        xor_int((int *) in + i, (int *) inout + i);
    }
}

static void user_pair_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (int i = 0; i < *len; ++i) {
        sum_pair((int *) in + 2 * i, (int *) inout + 2 * i);
    }
}

static void user_affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (int i = 0; i < *len; ++i) {
        affine((unsigned *) in + 2 * i, (unsigned *) inout + 2 * i);
    }
}

static rop_t rops[6];
static int nrops;

static void rops_init(void)
{
    MPI_Op x, a, ps;
    MPI_Op_create(user_xor, 1, &x);
    MPI_Op_create(user_affine, 0, &a);
    MPI_Op_create(user_pair_sum, 1, &ps);
    rops[0] = (rop_t){"int-sum", MPI_SUM, MPI_INT, 4, 1, in_int, sum_int};
    rops[1] = (rop_t){"double-sum", MPI_SUM, MPI_DOUBLE, 8, 1, in_dbl, sum_dbl};
    rops[2] = (rop_t){"int-max", MPI_MAX, MPI_INT, 4, 1, in_int, max_int};
    rops[3] = (rop_t){"int-userxor", x, MPI_INT, 4, 1, in_int, xor_int};
    rops[4] = (rop_t){"pair-affine(derived,noncommutative)", a, T_PAIR.t, 8, 0, in_affine,
                      affine};
    rops[5] = (rop_t){"pair-usersum(derived,commutative)", ps, T_PAIR.t, 8, 1, in_pair,
                      sum_pair};
    nrops = 6;
}

static void rops_free(void)
{
    MPI_Op_free(&rops[3].op);
    MPI_Op_free(&rops[4].op);
    MPI_Op_free(&rops[5].op);
}

/* result of ranks lo..hi over element i, in rank order */
static void fold(const rop_t *o, char *out, int lo, int hi, long i, int salt)
{
    char tmp[16];
    o->input(out, lo, i, salt);
    for (int r = lo + 1; r <= hi; ++r) {
        o->input(tmp, r, i, salt);
        /* acc = acc (op) x_r: combine(acc, x_r) computes x_r = acc (op) x_r */
        o->combine(out, tmp);
        memcpy(out, tmp, (size_t) o->bytes);
    }
}

static const long red_counts[] = {0, 1, 7, 1000, 30000};
#define NRC ((int) (sizeof(red_counts) / sizeof(red_counts[0])))

static int expect_bytes(const char *got, const char *exp, long bytes, const char *what)
{
    tc_checks++;
    if (0 == memcmp(got, exp, (size_t) bytes)) {
        return 1;
    }
    tc_checks--;
    return tc_expect_ints((const int *) got, (const int *) exp, bytes / 4, what);
}

static void test_reductions(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    for (int oi = 0; oi < nrops; ++oi) {
        const rop_t *o = &rops[oi];
        for (int ki = 0; ki < NRC; ++ki) {
            long cnt = red_counts[ki];
            if (quick && cnt > 1000) {
                continue;
            }
            long bytes = cnt * o->bytes;
            char *in = malloc((size_t) bytes + 16), *out = malloc((size_t) bytes + 16),
                 *exp = malloc((size_t) bytes + 16);
            MPI_Request rq;
            for (int ip = 0; ip < 2; ++ip) {
                /* allreduce */
                if (want("allreduce")) {
                    FOR_MODES(m, rep, salt)
                    {
                        tc_at("allreduce %s %s %s count=%ld inplace=%d", cname, mode_name[m],
                              o->name, cnt, ip);
                        for (long i = 0; i < cnt; ++i) {
                            o->input(in + i * o->bytes, rank, i, salt);
                            fold(o, exp + i * o->bytes, 0, n - 1, i, salt);
                        }
                        memcpy(out, ip ? in : exp, (size_t) bytes);
                        if (!ip) {
                            memset(out, 0x5a, (size_t) bytes);
                        }
                        c_allreduce(m, 0 == rep, &rq, ip ? MPI_IN_PLACE : in, out, (int) cnt,
                                    o->type, o->op, comm);
                        expect_bytes(out, exp, bytes, "result");
                        DONE_MODE(m, rep, &rq);
                    }
                }
                /* reduce, every root at small counts */
                for (int root = 0; root < n && want("reduce"); ++root) {
                    if (cnt > 7 && root != n - 1) {
                        continue;
                    }
                    FOR_MODES(m, rep, salt)
                    {
                        tc_at("reduce %s %s %s count=%ld root=%d inplace=%d", cname, mode_name[m],
                              o->name, cnt, root, ip);
                        for (long i = 0; i < cnt; ++i) {
                            o->input(in + i * o->bytes, rank, i, salt);
                            fold(o, exp + i * o->bytes, 0, n - 1, i, salt);
                        }
                        int inplace = ip && rank == root;
                        memset(out, 0x5a, (size_t) bytes);
                        if (inplace) {
                            memcpy(out, in, (size_t) bytes);
                        }
                        c_reduce(m, 0 == rep, &rq, inplace ? MPI_IN_PLACE : in, out, (int) cnt,
                                 o->type, o->op, root, comm);
                        if (rank == root) {
                            expect_bytes(out, exp, bytes, "result");
                        }
                        DONE_MODE(m, rep, &rq);
                    }
                }
                /* scan, exscan */
                for (int ex = 0; ex < 2; ++ex) {
                    if (!want(ex ? "exscan" : "scan")) {
                        continue;
                    }
                    FOR_MODES(m, rep, salt)
                    {
                        tc_at("%s %s %s %s count=%ld inplace=%d", ex ? "exscan" : "scan", cname,
                              mode_name[m], o->name, cnt, ip);
                        for (long i = 0; i < cnt; ++i) {
                            o->input(in + i * o->bytes, rank, i, salt);
                            if (rank - ex >= 0) {
                                fold(o, exp + i * o->bytes, 0, rank - ex, i, salt);
                            }
                        }
                        memset(out, 0x5a, (size_t) bytes);
                        if (ip) {
                            memcpy(out, in, (size_t) bytes);
                        }
                        c_scan(m, 0 == rep, &rq, ex, ip ? MPI_IN_PLACE : in, out, (int) cnt,
                               o->type, o->op, comm);
                        if (rank - ex >= 0) {
                            expect_bytes(out, exp, bytes, "result");
                        }
                        DONE_MODE(m, rep, &rq);
                    }
                }
            }
            free(in);
            free(out);
            free(exp);
        }
        /* reduce_scatter(_block): blocks of rcounts elements */
        for (int ki = 0; ki < NRC; ++ki) {
            long per = red_counts[ki];
            if (per > 1000) {
                continue;
            }
            int *rcs = malloc(sizeof(int) * n);
            for (int v = 0; v < 2; ++v) {
                if (!want(v ? "reduce_scatter" : "reduce_scatter_block")) {
                    continue;
                }
                long total = 0, myoff = 0;
                for (int i = 0; i < n; ++i) {
                    rcs[i] = (int) (v ? ((i * 3 + 1) % 4) * per / 2 : per);
                    if (i < rank) {
                        myoff += rcs[i];
                    }
                    total += rcs[i];
                }
                char *in = malloc((size_t) (total * o->bytes) + 16),
                     *out = malloc((size_t) (total * o->bytes) + 16),
                     *exp = malloc((size_t) (total * o->bytes) + 16);
                MPI_Request rq;
                for (int ip = 0; ip < 2; ++ip) {
                    FOR_MODES(m, rep, salt)
                    {
                        tc_at("%s %s %s %s per=%ld inplace=%d",
                              v ? "reduce_scatter" : "reduce_scatter_block", cname, mode_name[m],
                              o->name, per, ip);
                        for (long i = 0; i < total; ++i) {
                            o->input(in + i * o->bytes, rank, i, salt);
                        }
                        for (long i = 0; i < rcs[rank]; ++i) {
                            fold(o, exp + i * o->bytes, 0, n - 1, myoff + i, salt);
                        }
                        memset(out, 0x5a, (size_t) (total * o->bytes));
                        if (ip) {
                            memcpy(out, in, (size_t) (total * o->bytes));
                        }
                        if (v) {
                            c_reduce_scatter(m, 0 == rep, &rq, ip ? MPI_IN_PLACE : in, out, rcs,
                                             o->type, o->op, comm);
                        } else {
                            c_reduce_scatter_block(m, 0 == rep, &rq, ip ? MPI_IN_PLACE : in, out,
                                                   (int) per, o->type, o->op, comm);
                        }
                        expect_bytes(out, exp, rcs[rank] * (long) o->bytes, "result");
                        DONE_MODE(m, rep, &rq);
                    }
                }
                free(in);
                free(out);
                free(exp);
            }
            free(rcs);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Barrier, overlap                                                     */
/* ------------------------------------------------------------------ */

/* Nobody leaves a barrier before the last one has entered: every rank
 * bumps a shared-memory counter before it enters and reads it after. */
static void test_barrier(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nrank, nn;
    MPI_Comm_rank(node, &nrank);
    MPI_Comm_size(node, &nn);
    int *counter;
    MPI_Win win;
    MPI_Win_allocate_shared(0 == nrank ? sizeof(int) : 0, sizeof(int), MPI_INFO_NULL, node,
                            &counter, &win);
    MPI_Aint sz;
    int du;
    MPI_Win_shared_query(win, 0, &sz, &du, &counter);
    if (0 == nrank) {
        __atomic_store_n(counter, 0, __ATOMIC_SEQ_CST);
    }
    MPI_Barrier(node);
    MPI_Request rq;
    int k = 0;
    FOR_MODES(m, rep, salt)
    {
        (void) salt;
        tc_at("barrier %s %s", cname, mode_name[m]);
        ++k;
        if (rank == (k % n)) { /* a late arrival */
            double t = MPI_Wtime();
            while (MPI_Wtime() - t < 0.02) {
            }
        }
        __atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
        c_barrier(m, 0 == rep, &rq, comm);
        int seen = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
        /* only the node's ranks count; on one node that is everybody */
        tc_expect(seen >= k * nn, "left the barrier having seen %d of %d arrivals", seen, k * nn);
        c_barrier(M_BLOCKING, 1, &rq, comm); /* keep rounds apart */
        DONE_MODE(m, rep, &rq);
    }
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* Several nonblocking collectives in flight on one communicator, completed
 * in reverse order, with a blocking one in between: tags must keep them
 * apart. */
static void test_overlap(MPI_Comm comm, const char *cname)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    enum { K = 6, C = 513 };
    int in[K][C], out[K][C], bc[C], ex[C];
    MPI_Request rq[K + 1];
    tc_at("overlap %s", cname);
    for (int k = 0; k < K; ++k) {
        for (int i = 0; i < C; ++i) {
            in[k][i] = tc_val(rank, i, k);
        }
        MPI_Iallreduce(in[k], out[k], C, MPI_INT, MPI_SUM, comm, &rq[k]);
    }
    for (int i = 0; i < C; ++i) {
        bc[i] = rank == n - 1 ? tc_val(n - 1, i, 99) : 0;
    }
    MPI_Ibcast(bc, C, MPI_INT, n - 1, comm, &rq[K]);
    int blk = rank, sum = 0;
    MPI_Allreduce(&blk, &sum, 1, MPI_INT, MPI_SUM, comm);
    tc_expect(sum == n * (n - 1) / 2, "blocking allreduce in between gave %d", sum);
    for (int k = K; k >= 0; --k) {
        MPI_Wait(&rq[k], MPI_STATUS_IGNORE);
    }
    for (int k = 0; k < K; ++k) {
        for (int i = 0; i < C; ++i) {
            int e = 0;
            for (int r = 0; r < n; ++r) {
                e += tc_val(r, i, k);
            }
            ex[i] = e;
        }
        tc_expect_ints(out[k], ex, C, "iallreduce in flight");
    }
    for (int i = 0; i < C; ++i) {
        ex[i] = tc_val(n - 1, i, 99);
    }
    tc_expect_ints(bc, ex, C, "ibcast in flight");
}

static void test_comm(MPI_Comm comm, const char *cname)
{
    if (want("bcast")) {
        test_bcast(comm, cname);
    }
    test_gather_scatter(comm, cname);
    test_allgather(comm, cname);
    test_alltoall(comm, cname);
    test_reductions(comm, cname);
    if (want("barrier")) {
        test_barrier(comm, cname);
    }
    if (want("overlap")) {
        test_overlap(comm, cname);
    }
}

/* ------------------------------------------------------------------ */
/* Every algorithm: rounds of communicators forced by info keys         */
/* ------------------------------------------------------------------ */

static const char *const coll_names[] = {
    "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "alltoallw",
    "barrier", "bcast", "exscan", "gather", "gatherv", "reduce",
    "reduce_scatter_block", "reduce_scatter", "scan", "scatter", "scatterv"};
#define NCOLLS ((int) (sizeof(coll_names) / sizeof(coll_names[0])))
#define MAXALG 16

typedef struct coll_algs {
    char key[MPI_MAX_INFO_KEY + 1]; /* the communicator info key */
    int n;
    char name[MAXALG][32]; /* "fallback", then the parameter's "one of" */
} coll_algs_t;

static coll_algs_t algs[NCOLLS];

/* The description of coll_hiercoll_<coll>_algorithm: '... or one of:
 * "a" (what a does), "b" (...). A communicator info key "K" overrides it
 * per communicator'.  Fills the collective's names and key; 0 if found. */
static int parse_algs(const char *desc, coll_algs_t *a)
{
    const char *p = strstr(desc, "or one of: "), *k = strstr(desc, "info key \"");
    if (NULL == p || NULL == k) {
        return -1;
    }
    snprintf(a->name[0], sizeof(a->name[0]), "fallback");
    a->n = 1;
    for (p += strlen("or one of: "); '"' == *p && a->n < MAXALG;) {
        const char *e = strchr(p + 1, '"');
        if (NULL == e) {
            return -1;
        }
        snprintf(a->name[a->n++], sizeof(a->name[0]), "%.*s", (int) (e - p - 1), p + 1);
        p = e + 1;
        while (' ' == *p) {
            ++p;
        }
        for (int depth = 0; '(' == *p || depth > 0; ++p) { /* the summary */
            if ('\0' == *p) {
                return -1;
            }
            depth += '(' == *p ? 1 : ')' == *p ? -1 : 0;
            if (0 == depth) {
                ++p;
                break;
            }
        }
        p += ',' == *p ? 2 : 0;
    }
    k += strlen("info key \"");
    snprintf(a->key, sizeof(a->key), "%.*s", (int) strcspn(k, "\""), k);
    return a->n > 1 ? 0 : -1;
}

/* Every collective's algorithms, from hiercoll's MCA parameters (MPI_T
 * control variables): the test follows the algorithm tables by itself. */
static void read_algorithms(void)
{
    int provided, num, found = 0;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_T_cvar_get_num(&num);
    for (int i = 0; i < num; ++i) {
        char name[256], desc[8192];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        if (MPI_SUCCESS
            != MPI_T_cvar_get_info(i, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind, &scope)) {
            continue;
        }
        for (int c = 0; c < NCOLLS; ++c) {
            char want_name[96];
            snprintf(want_name, sizeof(want_name), "coll_hiercoll_%s_algorithm", coll_names[c]);
            if (0 == strcmp(name, want_name) && 0 == algs[c].n) {
                if (0 != parse_algs(desc, &algs[c])) {
                    fprintf(stderr, "t_colls: cannot read the algorithms of %s from: %s\n",
                            coll_names[c], desc);
                    MPI_Abort(MPI_COMM_WORLD, 2);
                }
                ++found;
            }
        }
    }
    MPI_T_finalize();
    if (found != NCOLLS) {
        fprintf(stderr, "t_colls: --every-algorithm: %d of %d coll_hiercoll_<coll>_algorithm "
                        "parameters found (is hiercoll loaded?)\n", found, NCOLLS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* One round: every collective that has algorithm `alg` forced to it on
 * new communicators, its tests run on them. */
static void run_round(const char *alg, const char *crit)
{
    char set[1024] = "", line[2048] = "";
    MPI_Info info;
    MPI_Info_create(&info);
    for (int c = 0; c < NCOLLS; ++c) {
        for (int k = 0; k < algs[c].n; ++k) {
            if (0 == strcmp(algs[c].name[k], alg)) {
                MPI_Info_set(info, algs[c].key, alg);
                snprintf(set + strlen(set), sizeof(set) - strlen(set), "%s%s", set[0] ? "," : "",
                         coll_names[c]);
                snprintf(line + strlen(line), sizeof(line) - strlen(line), " %s=%s",
                         coll_names[c], alg);
            }
        }
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (0 == rank) {
        printf("t_colls: round %s:%s\n", alg, line);
    }
    /* (overlap runs in the MPI_COMM_WORLD pass) */
    round_set = set;
    /* offload's bcast takes predefined types only and cannot see that the
     * ranks of one call pass different ones (a predefined type here, a
     * derived one there): forced, it needs the same type everywhere */
    round_same_types = 0 == strcmp(alg, "offload");
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm dup, split, self;
    if (NULL != crit) {
        MPI_Info_set(info, "hiercoll_decomp_criterion", crit);
    }
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup);
    snprintf(name, sizeof(name), "every-algorithm %s dup", alg);
    MPI_Comm_set_name(dup, name);
    test_comm(dup, name);
    if (NULL != crit) {
        MPI_Info_set(info, "hiercoll_decomp_criterion", "block:2");
    }
    /* the reversed split (info keys count where a communicator is made) */
    MPI_Comm tmp;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &tmp);
    MPI_Comm_dup_with_info(tmp, info, &split);
    MPI_Comm_free(&tmp);
    snprintf(name, sizeof(name), "every-algorithm %s split", alg);
    MPI_Comm_set_name(split, name);
    test_comm(split, name);
    /* one process: hiercoll serves it unless told to pass calls on, and
     * then the layer below is not ours to test (coll/basic's exscan sends
     * to rank 1 of a one-process communicator: Open MPI 4.1.4) */
    if (0 != strcmp(alg, "fallback")) {
        MPI_Comm_dup_with_info(MPI_COMM_SELF, info, &self);
        snprintf(name, sizeof(name), "every-algorithm %s self", alg);
        MPI_Comm_set_name(self, name);
        test_comm(self, name);
        MPI_Comm_free(&self);
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    MPI_Info_free(&info);
    round_set = NULL;
    round_same_types = 0;
}

/* Every algorithm name, in the order the tables list them, "fallback"
 * first: one round each. */
static void every_algorithm(const char *crit)
{
    char done[NCOLLS * MAXALG][32];
    int ndone = 0;
    read_algorithms();
    for (int c = 0; c < NCOLLS; ++c) {
        for (int k = 0; k < algs[c].n; ++k) {
            int seen = 0;
            for (int i = 0; i < ndone && !seen; ++i) {
                seen = 0 == strcmp(done[i], algs[c].name[k]);
            }
            if (!seen) {
                snprintf(done[ndone++], sizeof(done[0]), "%s", algs[c].name[k]);
                run_round(algs[c].name[k], crit);
            }
        }
    }
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    int every = 0;
    const char *crit = NULL;
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (0 == strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (0 == strcmp(argv[i], "--info") && i + 1 < argc && strchr(argv[i + 1], '=')) {
            info_key = argv[++i];
            info_val = strchr(info_key, '=');
            *info_val++ = '\0';
        } else if (0 == strcmp(argv[i], "--root-only-args")) {
            root_only_args = 1;
        } else if (0 == strcmp(argv[i], "--every-algorithm")) {
            every = 1;
        } else if (0 == strcmp(argv[i], "--decomp") && i + 1 < argc) {
            crit = argv[++i];
        }
    }
    tc_types_init();
    rops_init();
    combo[0][0] = &T_INT, combo[0][1] = &T_INT;
    combo[1][0] = &T_VEC, combo[1][1] = &T_VEC;
    combo[2][0] = &T_INT, combo[2][1] = &T_VEC;
    combo[3][0] = &T_PAIR, combo[3][1] = &T_INT;
    combo[4][0] = &T_RES, combo[4][1] = &T_RES;

    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    test_comm(MPI_COMM_WORLD, "world");
    if (every) {
        every_algorithm(crit);
        rops_free();
        tc_types_free();
        return tc_finish("t_colls");
    }

    MPI_Comm dup, split;
    MPI_Info info = MPI_INFO_NULL;
    if (NULL != info_key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, info_key, info_val);
    }
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup);
    if (MPI_INFO_NULL != info) {
        MPI_Info_free(&info);
    }
    test_comm(dup, "dup");
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &split); /* reversed order */
    test_comm(split, "split");
    if (!quick) {
        test_comm(MPI_COMM_SELF, "self");
    }
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    rops_free();
    tc_types_free();
    return tc_finish("t_colls");
}
