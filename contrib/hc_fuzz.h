/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: the differential fuzzer's shared declarations.
 *   hc_fuzz.c        the driver: options, the run of cases, shrinking, the
 *                    watchdog, the counts per dimension
 *   hc_fuzz_draw.c   a case from its seed (every dimension)
 *   hc_fuzz_run.c    running a case: communicators, calls in flight,
 *                    threads, the comparison
 *   hc_fuzz_layout.c every rank's arguments and buffers of a call
 *   hc_fuzz_ref.c    the serial reference: what MPI says every buffer
 *                    holds afterwards, computed from every rank's inputs
 *   hc_fuzz_comm.c   intercommunicators, topologies (every rank's neighbor
 *                    lists), decomposition criteria
 *   hc_fuzz_types.c  the datatype generator, element maps, values, ops
 *   hc_fuzz_calls.c  the 22 collectives in their three forms
 */
#ifndef HC_FUZZ_H
#define HC_FUZZ_H

#include <mpi.h>
/* MPI_*_init on 4.1 as on 5.0 */
#define HIERCOLL_COMPAT_MPI_ONLY
#include "coll_hiercoll_compat.h"
#include <stdbool.h>
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

void *hf_alloc(size_t bytes); /* malloc or abort the job */

/* ---- generations: what a case seed draws ----
 * 1: the fuzzer's first dimensions (a case line of it says --gen 1 and
 *    draws exactly what it drew then);
 * 2: every dimension (the default). */
#define HF_GEN 2

/* ---- basic (predefined) types ---- */
enum { BK_INT_S, BK_INT_U, BK_FLOAT, BK_BYTE, BK_CHAR, BK_BOOL, BK_PAIR, BK_COMPLEX };

typedef struct {
    MPI_Datatype t; /* (set by hf_types_init: the handles are no constants) */
    const char *name;
    int kind;
    int size;      /* bytes of data */
    int extent;    /* bytes */
    int comp[2];   /* pairs: the basic indexes of the two parts */
    int off[2];    /* pairs: their offsets */
    int value;     /* bytes an arithmetic result defines (long double: 10 of 16 on x86) */
} hf_basic_t;

extern hf_basic_t hf_basics[];
void hf_types_init(void);
extern const int hf_nbasics;
#define HF_NBASICS_GEN1 23 /* generation 1 draws among the first 23 */
int hf_nbasics_of(int gen);
/* whether point to point moves every byte of basic b (0 for long doubles
 * with Open MPI 5.0: only their value bytes) */
int hf_basic_moves_whole(int b);

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
enum { TN_PRED, TN_CONTIG, TN_VECTOR, TN_HVECTOR, TN_INDEXED, TN_STRUCT, TN_RESIZED, TN_DUP,
       /* generation 2 */
       TN_HINDEXED, TN_INDEXED_BLOCK, TN_HINDEXED_BLOCK, TN_SUBARRAY, TN_DARRAY, TN_N };
extern const char *hf_tn_names[TN_N];

#define HF_MAX_NODES 24
#define HF_MAX_FIELDS 4

typedef struct {
    int kind, basic, parent;
    int kids[HF_MAX_FIELDS], nkids;
    int count, blocklen;
    long stride;                  /* vector: elements; hvector: bytes (negative too) */
    int bl[HF_MAX_FIELDS];        /* indexed/struct block lengths */
    long disp[HF_MAX_FIELDS];     /* indexed: elements; hindexed, struct: bytes */
    long rlb, rext;               /* resized */
    /* subarray: sizes, subsizes, starts; darray: gsizes, distribs, dargs,
     * psizes, and its process rank */
    int nd, order, prank;
    int a[3], b[3], c[3], d[3];
    MPI_Datatype t;
    hf_map_t map;
} hf_node_t;

typedef struct {
    hf_node_t node[HF_MAX_NODES];
    int n;
    int gen;
} hf_tree_t;

/* Draw a tree whose root carries at most max_size data bytes (>= 1);
 * pick_basic >= 0: that predefined type alone; shape 1: a contiguous
 * element of about max_size bytes (contig or vector of stride 1). */
void hf_tree_gen(hf_tree_t *tr, hf_rng_t *r, long max_size, int depth, int pick_basic, int shape,
                 int gen);
void hf_tree_free(hf_tree_t *tr);
/* a one-line description of node k ("vector(3x2/5,MPI_INT)") */
void hf_tree_describe(const hf_tree_t *tr, int k, char *buf, size_t len);
/* node k is k0 or below it */
int hf_tree_below(const hf_tree_t *tr, int k, int k0);
/* the kinds of nodes in the subtree of k (bit per TN_*) */
unsigned hf_tree_kinds(const hf_tree_t *tr, int k);

/* A type of the same signature as m with its data packed (no holes, lb
 * 0): a struct of runs; MPI_DATATYPE_NULL where the runs are too many. */
MPI_Datatype hf_packed_twin(const hf_map_t *m, hf_map_t *out);
/* A packed type of the first `scalars` scalars of m (a predefined type
 * where that is one scalar) */
MPI_Datatype hf_packed_prefix(const hf_map_t *m, long scalars, hf_map_t *out);
/* The shortest p dividing m->n with m's basic sequence p-periodic */
long hf_map_period(const hf_map_t *m);
/* count copies of m, one after the other at its extent */
void hf_map_repeat(const hf_map_t *m, long count, hf_map_t *out);
void hf_map_free(hf_map_t *m);

/* the scalars of count elements at org (element k at org + k * ext),
 * packed one after the other; and back */
void hf_pack(const char *org, long count, const hf_map_t *m, unsigned char *out);
void hf_unpack(char *org, long count, const hf_map_t *m, const unsigned char *in);

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
/* the element maps the user ops look up (every case's types, every
 * thread's: registered while the case runs) */
void hf_user_types_add(MPI_Datatype t, const hf_map_t *m);
void hf_user_types_remove(MPI_Datatype t, const hf_map_t *m);
long hf_user_op_unknown(void); /* calls with a datatype not registered, so far */
/* the reference's reductions on packed scalars: inout = in (op) inout,
 * count elements of map m (predefined ops: m is a predefined type's) */
void hf_reduce_packed(int op, const hf_map_t *m, const unsigned char *in, unsigned char *inout,
                      long count);
/* Bytes of one packed element of basic b an op result leaves undefined
 * (long double padding): mark[i] = 1 where byte i of the element is defined */
int hf_value_mask(int basic, unsigned char *mark, int len);

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
       C_REDUCE_SCATTER, C_SCAN, C_SCATTER, C_SCATTERV,
       /* generation 2: on topologies */
       C_NB_ALLGATHER, C_NB_ALLGATHERV, C_NB_ALLTOALL, C_NB_ALLTOALLV, C_NB_ALLTOALLW, C_N };
#define HF_NCOLL_GEN1 17
extern const char *hf_coll_names[C_N];

typedef struct {
    void *sb, *rb;
    int scount, rcount;
    MPI_Datatype stype, rtype;
    int *scounts, *sdispls, *rcounts, *rdispls;
    MPI_Aint *sdispls_a, *rdispls_a; /* neighbor_alltoallw: byte displacements */
    MPI_Datatype *stypes, *rtypes;
    int root;
    MPI_Op op;
} hf_call_t;

/* one call of collective coll in each form (the arguments in a) */
int hf_call_blocking(int coll, hf_call_t *a, MPI_Comm c);
int hf_call_nonblocking(int coll, hf_call_t *a, MPI_Comm c, MPI_Request *q);
int hf_call_init(int coll, hf_call_t *a, MPI_Comm c, MPI_Request *q);

/* ------------------------------------------------------------------ */
/* cases                                                                */
/* ------------------------------------------------------------------ */

enum { FAM_INTRA, FAM_INTER, FAM_NEIGHBOR, FAM_N };
enum { MD_BLOCKING, MD_NONBLOCKING, MD_PERSISTENT, MD_N };
enum { CM_WORLD, CM_REVERSED, CM_SUBSET, CM_PARITY, CM_ONE, CM_PREFIX, CM_N };
enum { TOPO_CART, TOPO_GRAPH, TOPO_DIST, TOPO_N };
/* how the calls of a batch complete */
enum { CP_WAIT, CP_WAITALL, CP_TESTALL, CP_WAITANY, CP_WAITSOME, CP_TEST, CP_N };
/* the receive side's type: the send type (or its packed twin), a shorter
 * type of the same signature received more times, or a longer one fewer */
enum { RS_SAME, RS_SPLIT, RS_MERGE, RS_N };
/* the communicator's decomposition criterion (info key) */
enum { CR_JOB, CR_BLOCK, CR_LIST, CR_NONE, CR_NODE, CR_N };

extern const char *hf_fam_names[FAM_N], *hf_mode_names[MD_N], *hf_comm_names[CM_N],
    *hf_topo_names[TOPO_N], *hf_cp_names[CP_N], *hf_rs_names[RS_N], *hf_cr_names[CR_N];

#define HF_MAX_BATCH 6
#define HF_MAX_THREADS 4

/* one call, from its seed */
typedef struct {
    uint64_t seed;
    int gen;
    int coll, mode, comm, prefix;
    char algo[32];
    uint64_t mask;            /* subset; intercommunicator: the groups */
    int key_rev;              /* subset: reversed order */
    uint64_t root_raw;
    int op, pick_basic;       /* op: -1 for none */
    uint64_t type_seed;
    long type_max;
    int type_depth, subtype, shape;
    int count_class;
    uint64_t count_raw;
    long count;               /* -1: from the class */
    int in_place, reps, warm, packed;
    int vpattern, vorder;
    uint64_t vseed;
    int root;                 /* -1: from root_raw */
    /* generation 2 */
    int fam, topo;
    uint64_t topo_seed;
    int rshape, crit;
    uint64_t crit_seed;
    int batch, completion, freed, threads;
} hf_case_t;

/* overrides from the command line or the shrinker: -1 = as drawn */
typedef struct {
    long count;
    int subtype, comm, prefix, mode, reps, in_place, root, packed, warm;
    int batch, rshape, crit, freed, threads, completion, pick;
} hf_ovr_t;
extern const hf_ovr_t hf_no_ovr;

/* the options that shape every case (hc_fuzz.c) */
typedef struct {
    int np, rank, gen;
    unsigned long long coll_mask;  /* 0: every collective */
    char algo_list[256];           /* "": every algorithm; else ",a,b," */
    unsigned dims_on, dims_off;    /* dimensions forced on / off (bit per HF_DIM_*) */
    bool threads_ok;               /* MPI_THREAD_MULTIPLE given */
    int ref;                       /* HF_REF_* */
    bool verbose;                  /* describe every call before it runs */
} hf_opts_t;
extern hf_opts_t hf_opt;

enum { HF_REF_SERIAL, HF_REF_BASIC, HF_REF_BELOW };

/* the dimensions a case may add to a call (counted per case) */
enum { HF_DIM_INTER, HF_DIM_NEIGHBOR, HF_DIM_BATCH, HF_DIM_FREED, HF_DIM_THREADS, HF_DIM_RSHAPE,
       HF_DIM_CRIT, HF_DIM_N };
extern const char *hf_dim_names[HF_DIM_N];

void hf_draw_case(hf_case_t *cs, uint64_t seed, int gen);
/* call i of a batch or thread's sequence (inherits the family and the
 * communicator) */
void hf_draw_sub(const hf_case_t *top, int i, hf_case_t *out);
void hf_apply_ovr(hf_case_t *cs, const hf_ovr_t *o);
bool hf_is_reduction(int c);
bool hf_is_rooted(int c);
bool hf_is_neighbor(int c);
/* what hiercoll's info key may name for coll in family fam */
int hf_algo_choices(int coll, int fam, char out[][32], int most);
/* hiercoll's own plan of coll (its table's first algorithm) */
const char *hf_own_algo(int coll, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* communicators and topologies (hc_fuzz_comm.c)                       */
/* ------------------------------------------------------------------ */

typedef struct {
    int kind, n;
    int nd, dims[3], periods[3];
    int *indeg, *outdeg;
    int **src, **dst;       /* every rank's lists (cart: MPI_PROC_NULL at borders) */
    int **weights_in, **weights_out; /* dist graph: NULL when unweighted */
    char desc[128];
} hf_topo_t;

/* every rank's lists for topo kind on n ranks, from the seed */
hf_topo_t *hf_topo_make(int kind, int n, uint64_t seed);
void hf_topo_free(hf_topo_t *t);
/* the topology communicator over base (collective); checks MPI's lists */
MPI_Comm hf_topo_comm(const hf_topo_t *t, MPI_Comm base, char *err, size_t errlen);
/* which send block of its sender feeds receive block i of rank r (-1:
 * MPI_PROC_NULL) */
int hf_topo_sender_block(const hf_topo_t *t, int r, int i);

/* an intercommunicator's groups: of the n ranks of base, grp[i] and the
 * local rank lrank[i]; ng[2] */
typedef struct {
    int n, ng[2];
    int *grp, *lrank;
    int *member[2]; /* member[g][l]: the base rank */
} hf_groups_t;
void hf_groups_make(hf_groups_t *g, int n, uint64_t mask, int key_rev);
void hf_groups_free(hf_groups_t *g);
MPI_Comm hf_inter_comm(const hf_groups_t *g, MPI_Comm base);

/* the criterion's value for an n-rank communicator ("" for CR_JOB) */
void hf_crit_value(int crit, uint64_t seed, int n, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* a call's instance: every rank's arguments and buffers                */
/* ------------------------------------------------------------------ */

#define HF_GUARD 64
#define HF_BUF_MAX (6L << 20) /* bytes of one buffer, at most */

typedef struct {
    const char *name;
    long lo, hi;              /* bytes used, from the origin */
    size_t size;
    unsigned char *reg[2];    /* [0] what the run gives, [1] the reference */
    char *org[2];
    const hf_map_t *map;      /* for messages */
    bool skip;                /* not compared (exscan's rank 0) */
    bool undef_tail;          /* bytes from `defined` to hi are undefined */
    long defined;
    long res_disp, res_count; /* predefined-op results: elements whose padding is undefined */
} hbuf_t;

typedef struct {
    hf_call_t a;              /* its arguments (arrays owned) */
    hbuf_t b[2];              /* send, receive */
    long in_elems;            /* reductions: elements of input */
    int inbuf;                /* ... in b[0] or b[1] (in place) */
    bool laid, filled;
    int nint;                 /* ints in a's arrays */
} hf_rank_t;

typedef struct {
    hf_tree_t tree;
    MPI_Datatype T, P;        /* the type; the receive side's (or T) */
    MPI_Datatype W;           /* generation 1: T moved to lb 0 (nonblocking reductions) */
    MPI_Datatype X;           /* the receive side's type when made here (split, merge) */
    hf_map_t pmap, wmap, xmap;
    const hf_map_t *mt, *mp;
    int ks, kr;               /* counts: send side x ks, receive side x kr */
    char desc[1024];
} hf_types_t;

typedef struct {
    hf_case_t cs;             /* effective (overrides applied) */
    hf_types_t ty;
    int fam;                  /* the family run (an intercommunicator needs 2 ranks) */
    int n, me;                /* ranks of the case (both groups); this process' index, -1 */
    int *world;               /* world rank of each index */
    hf_groups_t grp;          /* FAM_INTER */
    const hf_topo_t *topo;    /* FAM_NEIGHBOR */
    int root, root_grp;       /* inter: the root's group and its local rank */
    long c;                   /* the base count */
    long cg[2];               /* inter: each group's */
    bool in_place;
    int reps;
    hf_rank_t *rk;            /* per index, laid out when needed */
    char desc[1600];
} hf_inst_t;

/* the instance of call cs on n ranks (me: this process' index, -1 when
 * not in; world: every index's world rank, kept) */
void hf_inst_init(hf_inst_t *x, const hf_case_t *cs, int fam, int n, int me, int *world,
                  const hf_topo_t *topo);
void hf_inst_free(hf_inst_t *x);
/* rank i's arguments and buffer bounds; its buffers filled (from its
 * world rank's stream, as the run fills them) */
hf_rank_t *hf_rank(hf_inst_t *x, int i);
/* ... its arguments and buffer bounds only (nothing filled) */
hf_rank_t *hf_rank_args(hf_inst_t *x, int i);
/* whether the layer below's local copy of some rank's own block would lose
 * its tail (Open MPI 4.1.4's ompi_datatype_sndrcv, known issues) */
bool hf_below_copy_loses(hf_inst_t *x);
/* the reference: every rank's buffers (reg[1]) after reps calls */
void hf_reference(hf_inst_t *x);
long hf_draw_count(const hf_case_t *cs, long size, long blocks, long ext);

void hf_types_make(const hf_case_t *cs, hf_types_t *ty, int fam);
void hf_types_free(hf_types_t *ty);

#endif
