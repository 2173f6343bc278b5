/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Helpers for the MPI tests: deterministic data, typed buffers with gaps,
 * failure reporting, the three call modes.
 */
#ifndef HIERCOLL_T_COMMON_H
#define HIERCOLL_T_COMMON_H

#include <mpi.h>
/* MPI_*_init on 4.1 as on 5.0 (and MPIX_*_init on both) */
#define HIERCOLL_COMPAT_MPI_ONLY
#include "coll_hiercoll_compat.h"
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENTINEL (-77777)

enum { M_BLOCKING, M_NONBLOCKING, M_PERSISTENT, M_COUNT };
static const char *mode_name[M_COUNT] = {"blocking", "nonblocking", "persistent"};

static long tc_checks, tc_failures;
static char tc_where[512]; /* what is being tested, for messages */
static int tc_world_rank;

static void tc_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &tc_world_rank);
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static void tc_at(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tc_where, sizeof(tc_where), fmt, ap);
    va_end(ap);
    if (getenv("T_TRACE")) {
        printf("[rank %d] %s\n", tc_world_rank, tc_where);
    }
}

/* Compare n ints; report the first difference. */
static int tc_expect_ints(const int *got, const int *want, long n, const char *what)
{
    tc_checks++;
    for (long i = 0; i < n; ++i) {
        if (got[i] != want[i]) {
            tc_failures++;
            if (tc_failures <= 20) {
                printf("FAIL [rank %d] %s: %s: int %ld is %d, want %d\n", tc_world_rank, tc_where,
                       what, i, got[i], want[i]);
            }
            return 0;
        }
    }
    return 1;
}

static void tc_expect(int cond, const char *fmt, ...)
{
    tc_checks++;
    if (!cond) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        tc_failures++;
        if (tc_failures <= 20) {
            printf("FAIL [rank %d] %s: %s\n", tc_world_rank, tc_where, msg);
        }
    }
}

/* Ends the test: every rank reports, the exit code says. */
static int tc_finish(const char *name)
{
    long f = tc_failures, total = 0, checks = tc_checks, all_checks = 0;
    /* point-to-point only, so that a broken collective cannot hide failures */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (0 == rank) {
        total = f;
        all_checks = checks;
        for (int i = 1; i < size; ++i) {
            long v[2];
            MPI_Recv(v, 2, MPI_LONG, i, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            total += v[0];
            all_checks += v[1];
        }
        printf("%s: np %d: %ld checks, %ld failed\n", name, size, all_checks, total);
    } else {
        long v[2] = {f, checks};
        MPI_Send(v, 2, MPI_LONG, 0, 999, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return f > 0 ? 1 : 0;
}

/* Is `name` in the comma-separated `list`?  (NULL: every name is.) */
static int tc_listed(const char *list, const char *name)
{
    if (NULL == list) {
        return 1;
    }
    size_t len = strlen(name);
    for (const char *p = list; NULL != p; p = strchr(p, ',')) {
        p += ',' == *p;
        if (0 == strncmp(p, name, len) && (',' == p[len] || '\0' == p[len])) {
            return 1;
        }
    }
    return 0;
}

/* Deterministic small values: exact in double, distinct enough to catch
 * misplaced data. */
static inline int tc_val(int rank, long i, int salt)
{
    long v = ((long) (rank + 1) * 1000003L + i * 7919L + (long) salt * 104729L) % 2001L;
    return (int) v - 1000;
}

/* ------------------------------------------------------------------ */
/* Typed buffers: datatypes made of ints, possibly with gaps            */
/* ------------------------------------------------------------------ */

typedef struct ttype {
    const char *name;
    MPI_Datatype t;
    int ints;      /* data ints per element */
    int ext;       /* ints spanned per element (extent) */
    int offs[4];   /* where the data ints sit in an element */
} ttype_t;

static ttype_t T_INT, T_VEC, T_PAIR, T_RES;

static void tc_types_init(void)
{
    T_INT = (ttype_t){"int", MPI_INT, 1, 1, {0}};
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v); /* ints 0 and 2, extent 3 */
    MPI_Type_commit(&v);
    T_VEC = (ttype_t){"vector", v, 2, 3, {0, 2}};
    MPI_Datatype p;
    MPI_Type_contiguous(2, MPI_INT, &p);
    MPI_Type_commit(&p);
    T_PAIR = (ttype_t){"pair", p, 2, 2, {0, 1}};
    /* resized, lower bound below the data: one int at byte 4 of an element
     * whose extent is 3 ints and whose lower bound is -4 (the true lower
     * bound, 4, differs from lb: staging buffers must follow true bounds) */
    MPI_Datatype h, rs;
    int blen = 1;
    MPI_Aint disp = (MPI_Aint) sizeof(int);
    MPI_Type_create_hindexed(1, &blen, &disp, MPI_INT, &h);
    MPI_Type_create_resized(h, -(MPI_Aint) sizeof(int), 3 * (MPI_Aint) sizeof(int), &rs);
    MPI_Type_free(&h);
    MPI_Type_commit(&rs);
    T_RES = (ttype_t){"resized", rs, 1, 3, {1}};
}

static void tc_types_free(void)
{
    MPI_Type_free(&T_VEC.t);
    MPI_Type_free(&T_PAIR.t);
    MPI_Type_free(&T_RES.t);
}

/* ints spanned by `count` elements */
static inline long tc_span(const ttype_t *t, long count)
{
    return count * t->ext;
}

static int *tc_alloc(long ints)
{
    int *b = malloc(sizeof(int) * (size_t) (ints > 0 ? ints : 1));
    if (NULL == b) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < ints; ++i) {
        b[i] = SENTINEL;
    }
    return b;
}

/* Write signature ints [sig0, sig0 + count*ints) of (rank, salt) into the
 * elements of buf starting at element e0. */
static void tc_fill(int *buf, const ttype_t *t, long e0, long count, int rank, long sig0, int salt)
{
    for (long e = 0; e < count; ++e) {
        for (int k = 0; k < t->ints; ++k) {
            buf[(e0 + e) * t->ext + t->offs[k]] = tc_val(rank, sig0 + e * t->ints + k, salt);
        }
    }
}

/* ------------------------------------------------------------------ */
/* A non-commutative user op, exact in integers: the 2x2 matrix         */
/* product mod 2^31 - 1 (elements of 4 int64_t: inout = in * inout)     */
/* ------------------------------------------------------------------ */

static inline void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    const int64_t *a = in;
    int64_t *b = inout;
    /* over the integers mod the prime P, each entry kept in [0, P), so
     * that the product is exactly associative however a fold groups it:
     * a product (< 2^62) is reduced before the sum, and C's remainder of
     * a negative entry (a negative salt) is moved into [0, P).  (Without
     * both, a fold in groups differed from the serial one from 11 ranks:
     * the same residues, other representatives or an int64 overflow.) */
    const int64_t P = 2147483647;
    for (int i = 0; i < *len; ++i, a += 4, b += 4) {
#define HC_MOD(x) ((((x) % P) + P) % P)
        int64_t c0 = HC_MOD(HC_MOD(a[0] * b[0]) + HC_MOD(a[1] * b[2]));
        int64_t c1 = HC_MOD(HC_MOD(a[0] * b[1]) + HC_MOD(a[1] * b[3]));
        int64_t c2 = HC_MOD(HC_MOD(a[2] * b[0]) + HC_MOD(a[3] * b[2]));
        int64_t c3 = HC_MOD(HC_MOD(a[2] * b[1]) + HC_MOD(a[3] * b[3]));
#undef HC_MOD
        b[0] = c0, b[1] = c1, b[2] = c2, b[3] = c3;
    }
}

/* rank r's matrix number i */
static inline void mat_of(int r, int i, int salt, int64_t *m)
{
    m[0] = 1 + (r * 7 + i * 3 + salt) % 11;
    m[1] = (r * 5 + i + salt) % 13;
    m[2] = (r + i * 11 + salt) % 7;
    m[3] = 1 + (r * 3 + i * 5 + salt) % 17;
}

#endif /* HIERCOLL_T_COMMON_H */
