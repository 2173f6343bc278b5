/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: the differential fuzzer's shared declarations (hc_fuzz.c: the
 * driver, cases, runs, comparison, shrinking; hc_fuzz_types.c: the
 * datatype generator, element maps, data values and the user ops).
 */
#ifndef HC_FUZZ_H
#define HC_FUZZ_H

#include <mpi.h>
/* MPI_*_init on 4.1 as on 5.0 */
#define HIERCOLL_COMPAT_MPI_ONLY
#include "coll_hiercoll_compat.h"
#include <stddef.h>
#include <stdint.h>

/* ---- random numbers: splitmix64, one stream per purpose ---- */
typedef struct {
    uint64_t s;
} hf_rng_t;

static inline uint64_t hf_mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t hf_next(hf_rng_t *r)
{
    r->s += 0x9e3779b97f4a7c15ull;
    return hf_mix(r->s);
}

/* uniform in [0, n) (n > 0) */
static inline uint64_t hf_below(hf_rng_t *r, uint64_t n)
{
    return n ? hf_next(r) % n : 0;
}

/* true with probability pct/100 */
static inline int hf_chance(hf_rng_t *r, int pct)
{
    return (int) hf_below(r, 100) < pct;
}

static inline hf_rng_t hf_stream(uint64_t seed, uint64_t purpose)
{
    hf_rng_t r = {hf_mix(seed ^ hf_mix(purpose + 0x51ed270b27aa5b1dull))};
    return r;
}

/* ---- basic (predefined) types ---- */
enum { BK_INT_S, BK_INT_U, BK_FLOAT, BK_BYTE, BK_CHAR, BK_BOOL, BK_PAIR };

typedef struct {
    MPI_Datatype t; /* (set by hf_types_init: the handles are no constants) */
    const char *name;
    int kind;
    int size;      /* bytes of data */
    int extent;    /* bytes */
    int comp[2];   /* pairs: the basic indexes of the two parts */
    int off[2];    /* pairs: their offsets */
} hf_basic_t;

extern hf_basic_t hf_basics[];
void hf_types_init(void);
extern const int hf_nbasics;

/* ---- one element of a datatype, flattened: scalars in typemap order ---- */
typedef struct {
    long n;         /* scalars */
    long *disp;     /* byte displacement of each (from the element's origin) */
    unsigned char *basic; /* index into hf_basics (never a pair) */
    long size;      /* bytes of data (MPI_Type_size) */
    long lb, ext;   /* MPI_Type_get_extent */
    long tlb, text; /* MPI_Type_get_true_extent */
} hf_map_t;

/* ---- generated datatypes: a tree, every node an MPI type ---- */
enum { TN_PRED, TN_CONTIG, TN_VECTOR, TN_HVECTOR, TN_INDEXED, TN_STRUCT, TN_RESIZED, TN_DUP };

#define HF_MAX_NODES 24
#define HF_MAX_FIELDS 4

typedef struct {
    int kind, basic, parent;
    int kids[HF_MAX_FIELDS], nkids;
    int count, blocklen;
    long stride;                  /* vector: elements; hvector: bytes */
    int bl[HF_MAX_FIELDS];        /* indexed/struct block lengths */
    long disp[HF_MAX_FIELDS];     /* indexed: elements; struct: bytes */
    long rlb, rext;               /* resized */
    MPI_Datatype t;
    hf_map_t map;
} hf_node_t;

typedef struct {
    hf_node_t node[HF_MAX_NODES];
    int n;
} hf_tree_t;

/* Draw a tree whose root carries at most max_size data bytes (>= 1);
 * pick_basic >= 0: that predefined type alone; shape 1: a contiguous
 * element of about max_size bytes (contig or vector of stride 1). */
void hf_tree_gen(hf_tree_t *tr, hf_rng_t *r, long max_size, int depth, int pick_basic, int shape);
void hf_tree_free(hf_tree_t *tr);
/* a one-line description of node k ("vector(3x2/5,MPI_INT)") */
void hf_tree_describe(const hf_tree_t *tr, int k, char *buf, size_t len);
/* node k is k0 or below it */
int hf_tree_below(const hf_tree_t *tr, int k, int k0);

/* A type of the same signature as m with its data packed (no holes, lb
 * 0): a struct of runs; MPI_DATATYPE_NULL where the runs are too many. */
MPI_Datatype hf_packed_twin(const hf_map_t *m, hf_map_t *out);
void hf_map_free(hf_map_t *m);

/* ---- reductions ---- */
enum {
    OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_LAND, OP_LOR, OP_LXOR, OP_BAND, OP_BOR, OP_BXOR,
    OP_MINLOC, OP_MAXLOC, OP_USER_COMM, OP_USER_NONCOMM, OP_N
};
extern const char *hf_op_names[OP_N];
MPI_Op hf_op_handle(int op);
/* whether the predefined op applies to basic b */
int hf_op_fits(int op, int b);
void hf_ops_init(void);
void hf_ops_fini(void);
/* the element maps the user ops look up (the case's types) */
void hf_user_types(MPI_Datatype t, const hf_map_t *m);
extern long hf_user_op_unknown; /* calls with a datatype not registered */

/* Fill count elements of map m at buf (origin of element 0) with values
 * fit for op (random bytes for the user ops and for no op: -1). */
void hf_fill_values(char *buf, const hf_map_t *m, long count, int op, hf_rng_t *r);
/* fill n bytes with a pattern */
void hf_fill_bytes(unsigned char *p, size_t n, hf_rng_t *r);
/* what byte off (from an element origin at 0) of m is: a scalar or a hole */
void hf_where(const hf_map_t *m, long off, char *buf, size_t len);

/* ---- the collectives (hc_fuzz_calls.c) ---- */
enum { C_ALLGATHER, C_ALLGATHERV, C_ALLREDUCE, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_BARRIER,
       C_BCAST, C_EXSCAN, C_GATHER, C_GATHERV, C_REDUCE, C_REDUCE_SCATTER_BLOCK,
       C_REDUCE_SCATTER, C_SCAN, C_SCATTER, C_SCATTERV, C_N };


typedef struct {
    void *sb, *rb;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Datatype *stypes, *rtypes;
    int root;
    MPI_Op op;
} hf_call_t;

/* one call of collective coll in each form (the arguments in a) */
int hf_call_blocking(int coll, hf_call_t *a, MPI_Comm c);
int hf_call_nonblocking(int coll, hf_call_t *a, MPI_Comm c, MPI_Request *q);
int hf_call_init(int coll, hf_call_t *a, MPI_Comm c, MPI_Request *q);

#endif
