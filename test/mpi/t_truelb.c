/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Reductions of datatypes whose true lower bound is not 0, by a
 * commutative user op: blocking allreduce (Open MPI's tuned runs it by
 * its ring on 2 and 3 ranks at these sizes) and nonblocking and
 * persistent reduce (libnbc's reduce-scatter + gather on 3 ranks or
 * more).  Those algorithms of Open MPI 4.1.4 and 5.0.7 receive into
 * scratch allocated for the data's span without its true lower bound, and
 * write past it (or before it): under glibc's heap checks (MALLOC_CHECK_=3
 * with libc_malloc_debug) the job without hiercoll aborts at the scratch's
 * free.  hiercoll keeps such calls from them (coll_hiercoll_below.c).
 * Every result is compared with a serial reference; the user buffers are
 * allocated to their exact span and freed after every call.
 *
 * Usage: t_truelb [--only allreduce|reduce] [--iters N]
 */
#include "t_common.h"

/* the datatypes: data bytes of one element at these offsets */
typedef struct {
    const char *name;
    MPI_Datatype t;
    int count;
    int nbytes;
    long *off;      /* offsets of the data bytes from the element's origin */
    MPI_Aint ext, tlb, text;
} tt_t;

static tt_t types[2];
static tt_t *cur; /* what the op is applied to */

/* byte-wise sum mod 256 of the data bytes: commutative, exact */
static void op_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (long k = 0; k < *len; ++k) {
        unsigned char *x = (unsigned char *) in + k * cur->ext;
        unsigned char *y = (unsigned char *) inout + k * cur->ext;
        for (int i = 0; i < cur->nbytes; ++i) {
            y[cur->off[i]] = (unsigned char) (y[cur->off[i]] + x[cur->off[i]]);
        }
    }
}

/* the shape: contig(1971, struct(BYTE@8, UNSIGNED_CHAR@15,
 * SIGNED_CHAR@16)), true lower bound 8; and a struct of two ints at -12
 * and -4 resized to lb -16: true lower bound -12 */
static void make_types(void)
{
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {8, 15, 16};
    MPI_Datatype ts[3] = {MPI_BYTE, MPI_UNSIGNED_CHAR, MPI_SIGNED_CHAR}, s, r;
    MPI_Type_create_struct(3, bl, d, ts, &s);
    MPI_Type_contiguous(1971, s, &types[0].t);
    MPI_Type_free(&s);
    types[0].name = "contig(1971,struct(BYTE@8,UCHAR@15,SCHAR@16))";
    types[0].count = 3;
    int bl2[2] = {1, 1};
    MPI_Aint d2[2] = {-12, -4};
    MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, bl2, d2, t2, &s);
    MPI_Type_create_resized(s, -16, 16, &r);
    MPI_Type_free(&s);
    MPI_Type_contiguous(300, r, &types[1].t);
    MPI_Type_free(&r);
    types[1].name = "contig(300,resized(lb -16,struct(INT@-12,INT@-4)))";
    types[1].count = 7;
    for (int k = 0; k < 2; ++k) {
        tt_t *t = &types[k];
        MPI_Type_commit(&t->t);
        MPI_Aint lb;
        MPI_Type_get_extent(t->t, &lb, &t->ext);
        MPI_Type_get_true_extent(t->t, &t->tlb, &t->text);
        /* the data bytes: pack a pattern of offsets and read them back */
        int size;
        MPI_Type_size(t->t, &size);
        t->nbytes = size;
        t->off = malloc(sizeof(long) * (size_t) size);
        long span = (long) t->text;
        unsigned char *pk = malloc((size_t) size), *mark = malloc((size_t) span);
        memset(mark, 0, (size_t) span);
        /* bytes the type covers: unpack 0xff into a zeroed element */
        memset(pk, 0xff, (size_t) size);
        int pos = 0;
        MPI_Unpack(pk, size, &pos, mark - t->tlb, 1, t->t, MPI_COMM_SELF);
        int n = 0;
        for (long i = 0; i < span && n < size; ++i) {
            if (mark[i]) {
                t->off[n++] = i + t->tlb;
            }
        }
        t->nbytes = n;
        free(pk);
        free(mark);
    }
}

/* a buffer of count elements, exactly its span (the origin returned) */
static char *span_alloc(const tt_t *t, int count, void **raw)
{
    size_t span = (size_t) ((count - 1) * t->ext + t->text);
    *raw = malloc(span);
    return (char *) *raw - t->tlb;
}

static void fill(const tt_t *t, char *org, int count, int rank, int salt)
{
    for (int k = 0; k < count; ++k) {
        for (int i = 0; i < t->nbytes; ++i) {
            org[k * t->ext + t->off[i]] = (char) (rank * 31 + k * 7 + i * 3 + salt);
        }
    }
}

/* the sum over every rank's input at byte i of element k */
static unsigned char want(const tt_t *t, int np, int k, int i, int salt)
{
    unsigned v = 0;
    for (int r = 0; r < np; ++r) {
        v += (unsigned char) (r * 31 + k * 7 + i * 3 + salt);
    }
    (void) t;
    return (unsigned char) v;
}

static void check(const tt_t *t, const char *org, int count, int np, int salt)
{
    int bad = -1;
    for (int k = 0; k < count && bad < 0; ++k) {
        for (int i = 0; i < t->nbytes; ++i) {
            if ((unsigned char) org[k * t->ext + t->off[i]] != want(t, np, k, i, salt)) {
                bad = k;
                break;
            }
        }
    }
    tc_expect(bad < 0, "element %d differs from the serial reference", bad);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    const char *only = NULL;
    int iters = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (0 == strcmp(argv[i], "--only")) {
            only = argv[i + 1];
        } else if (0 == strcmp(argv[i], "--iters")) {
            iters = atoi(argv[i + 1]);
        }
    }
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    make_types();
    MPI_Op op;
    MPI_Op_create(op_fn, 1, &op);
    for (int it = 0; it < iters; ++it) {
        for (int k = 0; k < 2; ++k) {
            tt_t *t = &types[k];
            cur = t;
            int salt = it * 5 + k;
            void *rs, *rr;
            if (tc_listed(only, "allreduce")) {
                tc_at("allreduce of %d %s [true lb %ld]", t->count, t->name, (long) t->tlb);
                char *s = span_alloc(t, t->count, &rs), *r = span_alloc(t, t->count, &rr);
                fill(t, s, t->count, rank, salt);
                MPI_Allreduce(s, r, t->count, t->t, op, MPI_COMM_WORLD);
                check(t, r, t->count, np, salt);
                free(rs);
                free(rr);
            }
            if (tc_listed(only, "reduce")) {
                for (int md = M_NONBLOCKING; md <= M_PERSISTENT; ++md) {
                    tc_at("%s reduce of %d %s [true lb %ld]", mode_name[md], t->count, t->name,
                          (long) t->tlb);
                    char *s = span_alloc(t, t->count, &rs), *r = span_alloc(t, t->count, &rr);
                    fill(t, s, t->count, rank, salt);
                    MPI_Request q;
                    if (M_NONBLOCKING == md) {
                        MPI_Ireduce(s, r, t->count, t->t, op, 0, MPI_COMM_WORLD, &q);
                        MPI_Wait(&q, MPI_STATUS_IGNORE);
                    } else {
                        MPI_Reduce_init(s, r, t->count, t->t, op, 0, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &q);
                        MPI_Start(&q);
                        MPI_Wait(&q, MPI_STATUS_IGNORE);
                        MPI_Request_free(&q);
                    }
                    if (0 == rank) {
                        check(t, r, t->count, np, salt);
                    }
                    free(rs);
                    free(rr);
                }
            }
        }
    }
    MPI_Op_free(&op);
    for (int k = 0; k < 2; ++k) {
        MPI_Type_free(&types[k].t);
        free(types[k].off);
    }
    return tc_finish("t_truelb");
}
