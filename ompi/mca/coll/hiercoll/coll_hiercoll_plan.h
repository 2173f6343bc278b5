/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Plans: what one rank does in a collective, as data.
 *
 * This header and the planners (coll_hiercoll_plan*.c) use no MPI and no
 * Open MPI header, so that they can be unit-tested and costed at tens of
 * thousands of ranks without a single process being started.
 *
 * A plan is a sequence of ROUNDS.  A round is a set of sends and receives
 * that are posted together, followed by local operations (copies and
 * reductions) that run, in order, once every send and receive of the round
 * has completed.  The executor (coll_hiercoll_exec.c) runs any plan over
 * the PML, blocking or as a nonblocking/persistent request.
 *
 * Every operation refers to a range of one of a handful of BUFFERS: the
 * user's send and receive buffers and up to three scratch buffers that the
 * executor allocates.  Offsets and counts are in the buffer's UNITS: one
 * element of the datatype the buffer is bound to (send type, receive type,
 * the reduction type), or one byte for packed scratch.  unit_size[] gives
 * the bytes of type signature per unit, which is all the simulator and the
 * cost model need.
 */
#ifndef MCA_COLL_HIERCOLL_PLAN_H
#define MCA_COLL_HIERCOLL_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hcp_buf {
    HCP_SBUF = 0, /* the user's send buffer (read only) */
    HCP_RBUF = 1, /* the user's receive buffer */
    HCP_TMP0 = 2, /* scratch buffers, allocated by the executor */
    HCP_TMP1 = 3,
    HCP_TMP2 = 4,
    HCP_NBUF = 5
} hcp_buf_t;

typedef enum hcp_kind {
    HCP_SEND = 0,
    HCP_RECV = 1,
    HCP_COPY = 2,   /* buf[off, +count) <- sbuf[soff, +scount] (same signature) */
    HCP_REDUCE = 3  /* buf[off, +count) = sbuf[soff, +count) (op) buf[off, +count) */
} hcp_kind_t;

/* What the units of a scratch buffer are. */
typedef enum hcp_unit {
    HCP_UNIT_NONE = 0,
    HCP_UNIT_STYPE, /* elements of the send datatype */
    HCP_UNIT_RTYPE, /* elements of the receive (or reduction) datatype */
    HCP_UNIT_BYTE   /* packed bytes */
} hcp_unit_t;

typedef struct hcp_op {
    uint8_t kind;  /* hcp_kind_t */
    uint8_t buf;   /* SEND: source; RECV, COPY, REDUCE: target */
    uint8_t sbuf;  /* COPY, REDUCE: source */
    uint8_t local; /* SEND, RECV on an intercommunicator: 1 when the peer is a rank of
                    * the own group, 0 when it is one of the remote group (always 0 on an
                    * intracommunicator) */
    uint8_t flags; /* HCP_F_* */
    int32_t peer;  /* SEND, RECV: the peer; COPY: the own rank (per-peer types) */
    int64_t off;   /* in units of buf */
    int64_t count; /* in units of buf */
    int64_t soff;  /* COPY, REDUCE: in units of sbuf; SEND, RECV of a buffer with
                    * one datatype per block (neighbor alltoallw): the block */
    int64_t scount;/* COPY: in units of sbuf; REDUCE: equal to count */
} hcp_op_t;

/* hcp_op_t.flags: the op carries the RUNNING RESULT of a reduction (see
 * the short-circuit section): a SEND's payload, a RECV's payload, or a
 * REDUCE's target once it has run, is a partial result of the whole
 * vector, so an absorbing value in it decides the final result. */
#define HCP_F_RUNNING 0x1

typedef struct hcp_plan {
    hcp_op_t *ops;
    int nops, ops_cap;
    int *round_end;            /* round k is ops[round_end[k-1] .. round_end[k]) */
    int nrounds, rounds_cap;
    int open_start;            /* first op of the round being built */
    int max_comm;              /* most sends+receives in one round */
    hcp_unit_t unit[HCP_NBUF]; /* scratch buffers' units (SBUF: STYPE, RBUF: RTYPE) */
    int64_t tmp_units[HCP_NBUF]; /* scratch sizes, in units */
    size_t unit_size[HCP_NBUF];  /* bytes of type signature per unit */
    bool oom;                  /* an allocation failed while building */
    /* Early exit (coll_hiercoll_plan_shortcut.c): sc_count > 0 when every
     * send carries the running result of sc_count units (HCP_F_RUNNING),
     * so that a rank whose running result is decided may send the decided
     * value on all its remaining sends and return.  sc_in: the buffer of
     * the rank's input ([0, sc_count)); sc_out: RBUF[0, sc_count) is this
     * rank's result; sc_force: run early exit whatever the history says. */
    int64_t sc_count;
    uint8_t sc_in;
    bool sc_out, sc_force;
} hcp_plan_t;

/* ------------------------------------------------------------------ */
/* Building plans                                                      */
/* ------------------------------------------------------------------ */

void hcp_init(hcp_plan_t *p);
void hcp_fini(hcp_plan_t *p);
/* Empty the plan (keeping its memory) for element sizes ssize (send
 * type) and rsize (receive/reduction type), in bytes of signature. */
void hcp_reset(hcp_plan_t *p, size_t ssize, size_t rsize);
/* Ask for a scratch buffer of at least `units` units. */
void hcp_scratch(hcp_plan_t *p, int buf, hcp_unit_t unit, int64_t units);
/* Close the round being built (a no-op when it is empty). */
void hcp_end_round(hcp_plan_t *p);
void hcp_send(hcp_plan_t *p, int peer, int buf, int64_t off, int64_t count);
void hcp_recv(hcp_plan_t *p, int peer, int buf, int64_t off, int64_t count);
void hcp_copy(hcp_plan_t *p, int dbuf, int64_t doff, int64_t dcount,
              int sbuf, int64_t soff, int64_t scount);
/* COPY within one unit system (both counts equal). */
void hcp_copy1(hcp_plan_t *p, int dbuf, int64_t doff, int sbuf, int64_t soff,
               int64_t count);
void hcp_reduce(hcp_plan_t *p, int dbuf, int64_t doff, int sbuf, int64_t soff,
                int64_t count);
/* Close the last round; returns 0, or -1 when memory ran out. */
int hcp_finish(hcp_plan_t *p);

static inline int hcp_round_begin(const hcp_plan_t *p, int r)
{
    return 0 == r ? 0 : p->round_end[r - 1];
}
static inline bool hcp_is_comm(const hcp_op_t *op)
{
    return HCP_SEND == op->kind || HCP_RECV == op->kind;
}
static inline int64_t hcp_bytes(const hcp_plan_t *p, int buf, int64_t units)
{
    return units * (int64_t) p->unit_size[buf];
}

/* Check a finished plan: buffers and ranges in bounds (sbuf_units and
 * rbuf_units bound the user buffers; -1 skips that bound), peers in
 * [0, n), no receive overlapping another access in the same round.
 * Returns NULL when it is sound, else a static description. */
const char *hcp_validate(const hcp_plan_t *p, int n, int64_t sbuf_units,
                         int64_t rbuf_units);
/* The same for a plan of an intercommunicator: peers of local ops in
 * [0, nlocal), the others in [0, nremote). */
const char *hcp_validate_inter(const hcp_plan_t *p, int nlocal, int nremote,
                               int64_t sbuf_units, int64_t rbuf_units);
/* Append the rounds of the finished plan `src` to `dst` (whose open round
 * is closed first), its buffer b renamed map[b], its transfers marked
 * `local` when that is set.  A scratch buffer of src takes its units and
 * size to the buffer it is renamed to; the caller declares a scratch
 * buffer that src's SBUF or RBUF is renamed to.  Lets an
 * intercommunicator planner run an intracommunicator planner inside its
 * own group. */
void hcp_append(hcp_plan_t *dst, const hcp_plan_t *src, const uint8_t map[HCP_NBUF],
                bool local);


/* ------------------------------------------------------------------ */
/* Trees (shared by the planners)                                      */
/* ------------------------------------------------------------------ */

/* Binomial tree on relative ranks v = (rank - root) mod n: the parent of v
 * is v with its lowest set bit cleared, its children are v + 2^k for every
 * 2^k below that bit (and below n - v). */
int hcp_binomial_parent(int v);                       /* -1 for v == 0 */
/* Children of v in increasing subtree size; returns how many. */
int hcp_binomial_children(int n, int v, int *children, int max);
/* Number of relative ranks in the subtree of v: min(lowbit(v), n - v). */
int hcp_binomial_subtree(int n, int v);
/* Largest power of two <= n (n >= 1). */
int hcp_pof2_floor(int n);
int hcp_ceil_log2(int n);

/* ------------------------------------------------------------------ */
/* Planners of the foundation (coll_hiercoll_plan_basic.c)             */
/* Each returns 0, or -1 (out of memory) with the plan in an undefined  */
/* state.  `esize` is the size in bytes of one element's signature.     */
/* ------------------------------------------------------------------ */

/* Bcast of count elements in RBUF from root, binomial tree. */
int hcp_bcast_binomial(hcp_plan_t *p, int n, int rank, int root,
                       int64_t count, size_t esize);
/* Bcast, linear: the root sends to every rank. */
int hcp_bcast_linear(hcp_plan_t *p, int n, int rank, int root,
                     int64_t count, size_t esize);
/* Reduce of SBUF into RBUF at root, binomial tree.  Results are in exact
 * rank order when !commutative (reduced at rank 0, then sent to root).
 * With in_place the root's input is RBUF (and SBUF is not used there). */
int hcp_reduce_binomial(hcp_plan_t *p, int n, int rank, int root,
                        int64_t count, size_t esize, bool commutative,
                        bool in_place);
/* Reduce, linear at the root, in rank order (any op). */
int hcp_reduce_linear(hcp_plan_t *p, int n, int rank, int root,
                      int64_t count, size_t esize, bool in_place);
/* Allreduce by recursive doubling for any n (pairwise pre/post step for
 * the ranks above the largest power of two), in exact rank order when
 * !commutative.  in_place: the input is RBUF. */
int hcp_allreduce_recursive_doubling(hcp_plan_t *p, int n, int rank,
                                     int64_t count, size_t esize,
                                     bool commutative, bool in_place);
/* Barrier, dissemination: ceil(log2 n) rounds of one zero-byte send and
 * receive. */
int hcp_barrier_dissemination(hcp_plan_t *p, int n, int rank);
/* Barrier, linear: everybody to 0, 0 to everybody. */
int hcp_barrier_linear(hcp_plan_t *p, int n, int rank);

/* Linear plans for the irregular and all-to-all collectives.  Counts are
 * in units of the buffer's own type; rcounts/displs index RBUF (gatherv,
 * allgatherv), scounts/sdispls SBUF (scatterv); NULL arrays mean regular
 * blocks of rcount/scount at rank * count. */
int hcp_gatherv_linear(hcp_plan_t *p, int n, int rank, int root,
                       int64_t scount, size_t ssize, const int *rcounts,
                       const int *displs, int64_t rcount, size_t rsize,
                       bool in_place);
int hcp_scatterv_linear(hcp_plan_t *p, int n, int rank, int root,
                        const int *scounts, const int *displs, int64_t scount,
                        size_t ssize, int64_t rcount, size_t rsize,
                        bool in_place);
/* Allgather(v), every rank sends its block to every other (one round);
 * in_place: the own block is already in RBUF. */
int hcp_allgatherv_linear(hcp_plan_t *p, int n, int rank, int64_t scount,
                          size_t ssize, const int *rcounts, const int *displs,
                          int64_t rcount, size_t rsize, bool in_place);
/* Alltoall(v): SBUF block j goes to rank j's RBUF block `rank`.  Arrays
 * NULL: regular blocks.  in_place: RBUF is both (copied to scratch first). */
int hcp_alltoallv_linear(hcp_plan_t *p, int n, int rank,
                         const int *scounts, const int *sdispls,
                         int64_t scount, size_t ssize, const int *rcounts,
                         const int *rdispls, int64_t rcount, size_t rsize,
                         bool in_place);
/* Alltoallw: SBUF and RBUF are bound to one datatype PER PEER, so the
 * executor takes the datatype of every op's range from the op's peer (a
 * COPY of the own block names the own rank), and offsets are BYTE
 * displacements while counts are in that peer's elements.  ssizes/rsizes
 * give each peer's element signature size.  in_place: RBUF is both; each
 * block is packed into byte scratch before it is overwritten. */
int hcp_alltoallw_linear(hcp_plan_t *p, int n, int rank,
                         const int *scounts, const int *sdispls,
                         const size_t *ssizes, const int *rcounts,
                         const int *rdispls, const size_t *rsizes,
                         bool in_place);
/* Inclusive (exclusive) scan, linear chain, exact order. */
int hcp_scan_linear(hcp_plan_t *p, int n, int rank, int64_t count,
                    size_t esize, bool exclusive, bool in_place);
/* Reduce-scatter: ordered binomial reduce to rank 0 into scratch, then a
 * linear scatterv of the blocks rcounts (NULL: regular rcount). */
int hcp_reduce_scatter_basic(hcp_plan_t *p, int n, int rank,
                             const int *rcounts, int64_t rcount,
                             size_t esize, bool commutative, bool in_place);

/* ------------------------------------------------------------------ */
/* Tree gatherv and scatterv with message chains                        */
/* (coll_hiercoll_plan_gatherv.c)                                       */
/*                                                                      */
/* A binomial tree on relative ranks v = (rank - root) mod n.  Every    */
/* node works from its SRC_LIST: the blocks of its subtree, relative    */
/* ranks v .. v + hcp_binomial_subtree(n, v) - 1 in order, which is     */
/* also the order of the subtree's data packed in a non-root's scratch. */
/* Between the root and each of its children the data travels as       */
/* MESSAGE CHAINS: continuous chains land in (leave) the root's buffer  */
/* directly, the others travel packed and the root copies each block.   */
/* ------------------------------------------------------------------ */

/* One rank's block in the root's buffer: `count` units of the root's
 * datatype at displacement `displ` (in units of its extent). */
typedef struct hcp_vblock {
    int32_t count, displ;
} hcp_vblock_t;

/* A message chain: blocks [first, end) of a src_list (blocks[first] is
 * non-empty; empty blocks carry nothing and never join or split a chain).
 * `direct`: the root's buffer takes or gives it as it is (a continuous
 * chain, or a chain of one block); otherwise it travels packed. */
typedef struct hcp_vchain {
    int first, end;
    bool direct;
} hcp_vchain_t;

/* The src_list of relative rank v from the root's per-rank arrays (the
 * user's recvcounts/displs, indexed by rank): blk[k] is the block of
 * relative rank v + k, for k < hcp_binomial_subtree(n, v). */
void hcp_vtree_src_list(int n, int root, int v, const int *counts,
                        const int *displs, hcp_vblock_t *blk);
/* Split the blocks blk[0, k) into message chains, walking them in order
 * with the paper's four rules (pre: the previous non-empty block, cur:
 * this one, continuous when displ[pre] + count[pre] == displ[cur]):
 *   continuous,     pre's chain continuous: extend it;
 *   continuous,     pre's chain not:        close it before pre, start a
 *                                           continuous chain at pre;
 *   not continuous, pre's chain not:        extend it;
 *   not continuous, pre's chain continuous: close it after pre, start a
 *                                           new chain at cur.
 * A fresh chain of one block counts as not continuous.  `out` has room
 * for k chains; returns how many there are. */
int hcp_vchains(const hcp_vblock_t *blk, int k, hcp_vchain_t *out);

/* Gatherv on the tree.  blk: this rank's src_list; usize: signature
 * bytes per unit of the root's receive type (blocks are usize * count
 * bytes).  SBUF holds scount elements of ssize bytes; the root's RBUF is
 * the user's receive buffer (with in_place its own block is already
 * there).  Non-roots forward packed bytes in TMP0; the root receives
 * continuous chains straight into RBUF and the others into TMP0, copying
 * them out in the same round. */
int hcp_gatherv_tree(hcp_plan_t *p, int n, int rank, int root,
                     const hcp_vblock_t *blk, size_t usize, int64_t scount,
                     size_t ssize, bool in_place);
/* Scatterv on the tree, the mirror image: the root's SBUF holds the
 * blocks (usize bytes per unit), every rank receives rcount elements of
 * rsize bytes into RBUF (not the root with in_place). */
int hcp_scatterv_tree(hcp_plan_t *p, int n, int rank, int root,
                      const hcp_vblock_t *blk, size_t usize, int64_t rcount,
                      size_t rsize, bool in_place);
/* Stage 0 of the conservative level: the root's header and src_list
 * sent down the same tree.  RBUF (esize bytes per unit) holds hdr units
 * of header, then rec units per block of the src_list; every inner node
 * receives the header and its own subtree's records from its parent and
 * passes its inner children theirs, so no rank holds more than its
 * subtree.  Leaves take no part: their src_list is their own block. */
int hcp_vtree_meta(hcp_plan_t *p, int n, int rank, int root, int64_t hdr,
                   int64_t rec, size_t esize);

/* ------------------------------------------------------------------ */
/* RHRD: large-vector reduce and allreduce by recursive halving and    */
/* recursive doubling for any process count (coll_hiercoll_plan_rhrd.c) */
/* The op must be commutative.  in_place: the input is RBUF (reduce: at */
/* the root only).  Returns 0, or -1 when memory ran out.               */
/* ------------------------------------------------------------------ */

/* The patented non-power-of-two scheme (S0/S1 split, no data forwarded
 * twice).  With N the largest power of two <= n and L the vector, each
 * rank sends at most (3/2 + (N-2)/N) L for allreduce when n > N. */
int hcp_allreduce_rhrd(hcp_plan_t *p, int n, int rank, int64_t count, size_t esize,
                       bool in_place);
int hcp_reduce_rhrd(hcp_plan_t *p, int n, int rank, int root, int64_t count, size_t esize,
                    bool in_place);
/* The classic scheme (Rabenseifner's: r = n - N ranks drop out after a
 * pairwise pre-step and get the result back), for comparison. */
int hcp_allreduce_rabenseifner(hcp_plan_t *p, int n, int rank, int64_t count, size_t esize,
                               bool in_place);
int hcp_reduce_rabenseifner(hcp_plan_t *p, int n, int rank, int root, int64_t count,
                            size_t esize, bool in_place);
/* The role of virtual rank (rank - root) mod n in the patented scheme:
 * "pair", "receiver", "sender", "X", "Y" or "Z". */
const char *hcp_rhrd_role(int n, int vrank);

/* ------------------------------------------------------------------ */
/* Short-circuit reductions (coll_hiercoll_plan_shortcut.c)             */
/*                                                                      */
/* An ABSORBING value z of (op, element type): op(z, x) = z for every x,  */
/* byte for byte as Open MPI's op functions compute it.  A buffer is     */
/* DECIDED when every element is absorbing; then the final result is     */
/* the decided value (the canonical absorbing element) in every element. */
/* ------------------------------------------------------------------ */

typedef enum hcp_sc_op {
    HCP_SC_NONE = 0, /* no absorbing value: never short-circuited */
    HCP_SC_LAND,     /* 0 -> 0 */
    HCP_SC_LOR,      /* any nonzero -> 1 */
    HCP_SC_BAND,     /* 0 -> 0 */
    HCP_SC_BOR,      /* all bits set -> all bits set */
    HCP_SC_MAX,      /* the type's highest value */
    HCP_SC_MIN,      /* the type's lowest value */
    HCP_SC_PROD      /* 0 -> 0 */
} hcp_sc_op_t;

/* How Open MPI's op functions treat the bytes of one element. */
typedef enum hcp_sc_class {
    HCP_SC_SIGNED,   /* two's complement integer (C and Fortran integers;
                      * also MPI_UNSIGNED_LONG, which Open MPI 4.1
                      * reduces as a signed long) */
    HCP_SC_UNSIGNED, /* unsigned integer */
    HCP_SC_BOOL,     /* C bool / Fortran LOGICAL: logical ops only */
    HCP_SC_BYTE      /* MPI_BYTE: bitwise ops only */
} hcp_sc_class_t;

/* The absorbing test of one (op, class, size): NULL when there is none
 * (floating point, SUM, XOR, MAXLOC/MINLOC and user ops never reach
 * this).  `decided` receives the size bytes of the decided value. */
typedef struct hcp_sc_kind {
    hcp_sc_op_t op;
    hcp_sc_class_t cls;
    int size; /* bytes per element: 1, 2, 4 or 8 */
    unsigned char decided[8];
} hcp_sc_kind_t;

/* Fill *k for (op, cls, size); false when the pair has no absorbing value
 * (or the size is not 1, 2, 4 or 8). */
bool hcp_sc_kind(hcp_sc_kind_t *k, hcp_sc_op_t op, hcp_sc_class_t cls, int size);
/* Are all `count` elements at buf (packed, size bytes apart) absorbing? */
bool hcp_sc_decided(const hcp_sc_kind_t *k, const void *buf, int64_t count);
/* Write `count` copies of the decided value. */
void hcp_sc_fill(const hcp_sc_kind_t *k, void *buf, int64_t count);

/* Mark a finished plan of a reduction of `count` units for early exit:
 * every send, receive and reduce of the whole vector carries the running
 * result.  in_buf: where the rank's input lies; out: RBUF holds the
 * rank's result.  Leaves the plan unmarked when some send does not carry
 * the whole running result (then early exit could not send it). */
void hcp_sc_mark(hcp_plan_t *p, int64_t count, int in_buf, bool out);

/* Recursive-doubling allreduce (commutative ops), marked. */
int hcp_allreduce_shortcut(hcp_plan_t *p, int n, int rank, int64_t count,
                           size_t esize, bool in_place);
/* Binomial reduce (commutative ops), marked, on a tree where `decider`
 * (a rank, or -1) takes the place of the root's first child (relative
 * rank 1): its value reaches the root in one message.  Every rank must
 * pass the same decider. */
int hcp_reduce_shortcut(hcp_plan_t *p, int n, int rank, int root,
                        int64_t count, size_t esize, bool in_place,
                        int decider);
/* Intercommunicators (coll_hiercoll_plan_inter.c)                      */
/*                                                                      */
/* A rank of a group of nl processes whose remote group has nr.  Ops    */
/* with `local` set address the own group (the executor sends them on   */
/* the intercommunicator's local communicator), the others the remote   */
/* group.  Results come from the remote group; MPI_IN_PLACE does not    */
/* exist.  Rooted collectives take `root` as HCP_INTER_ROOT (this rank  */
/* is the root), HCP_INTER_NONE (in the root's group, not the root) or  */
/* the root's rank in the remote group.  Counts and types are this      */
/* rank's own arguments; per-peer arrays are indexed by remote rank.    */
/* Each returns 0, or -1 when memory ran out.                           */
/* ------------------------------------------------------------------ */

#define HCP_INTER_ROOT (-1)
#define HCP_INTER_NONE (-2)

/* Fan in to the group's rank 0, the two leaders exchange a zero-byte
 * message, fan out. */
int hcp_inter_barrier(hcp_plan_t *p, int nl, int nr, int rank);
/* The root sends RBUF to remote rank 0, which passes it on down a
 * binomial tree of its group. */
int hcp_inter_bcast(hcp_plan_t *p, int nl, int nr, int rank, int root, int64_t count,
                    size_t esize);
/* Each group reduces its SBUF to its rank 0 (binomial, in rank order when
 * !commutative); allreduce: the leaders exchange their group's result
 * into RBUF and bcast it in the group; reduce: the remote group's leader
 * sends it to the root. */
int hcp_inter_allreduce(hcp_plan_t *p, int nl, int nr, int rank, int64_t count, size_t esize,
                        bool commutative);
int hcp_inter_reduce(hcp_plan_t *p, int nl, int nr, int rank, int root, int64_t count,
                     size_t esize, bool commutative);
/* Reduce-scatter: the groups reduce to their leaders (the vector of
 * sum(rcounts) elements, rcounts of the OWN group, NULL: nl blocks of
 * rcount), the leaders exchange, each leader scatters the remote
 * group's result in its own group. */
int hcp_inter_reduce_scatter(hcp_plan_t *p, int nl, int nr, int rank, const int *rcounts,
                             int64_t rcount, size_t esize, bool commutative);
/* Gather(v) / scatter(v): the root receives from (sends to) every remote
 * rank; rcounts/displs (scounts/displs) NULL: regular blocks. */
int hcp_inter_gatherv(hcp_plan_t *p, int nl, int nr, int rank, int root, int64_t scount,
                      size_t ssize, const int *rcounts, const int *displs, int64_t rcount,
                      size_t rsize);
int hcp_inter_scatterv(hcp_plan_t *p, int nl, int nr, int rank, int root, const int *scounts,
                       const int *displs, int64_t scount, size_t ssize, int64_t rcount,
                       size_t rsize);
/* Allgather: gather to the leader inside each group, the leaders exchange
 * the groups' blocks, bcast inside each group. */
int hcp_inter_allgather(hcp_plan_t *p, int nl, int nr, int rank, int64_t scount, size_t ssize,
                        int64_t rcount, size_t rsize);
/* Allgatherv, alltoall(v): every rank exchanges with every remote rank
 * in one round (arrays NULL: regular blocks). */
int hcp_inter_allgatherv(hcp_plan_t *p, int nl, int nr, int rank, int64_t scount, size_t ssize,
                         const int *rcounts, const int *displs, size_t rsize);
int hcp_inter_alltoallv(hcp_plan_t *p, int nl, int nr, int rank, const int *scounts,
                        const int *sdispls, int64_t scount, size_t ssize, const int *rcounts,
                        const int *rdispls, int64_t rcount, size_t rsize);
/* Alltoallw: per-peer types as hcp_alltoallw_linear (byte displacements,
 * counts in each peer's elements, ssizes/rsizes per remote rank). */
int hcp_inter_alltoallw(hcp_plan_t *p, int nl, int nr, int rank, const int *scounts,
                        const int *sdispls, const size_t *ssizes, const int *rcounts,
                        const int *rdispls, const size_t *rsizes);

#ifdef __cplusplus
}
#endif

#endif /* MCA_COLL_HIERCOLL_PLAN_H */
