/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Decomposition of a communicator, MPI-free: the criteria that split it,
 * the parts and their leaders, and where each rank's data sits when it is
 * packed part by part on its way between parts.
 *
 * A communicator of n ranks is split into PARTS (by node, a hardware
 * level, blocks of consecutive ranks or an explicit list).  Parts are
 * numbered by their lowest rank, a part's members are in rank order, and
 * its LEADER is its lowest rank, so part p is also the rank of its leader
 * on the BRIDGE (the communicator of the leaders, in rank order).  Data
 * that crosses parts travels packed in DECOMPOSITION ORDER: part 0's
 * members, then part 1's, and so on.
 *
 * Like the planners, this uses no MPI, so that it can be unit-tested
 * (test/unit/check_plan_decomp.c); coll_hiercoll_decomp.c runs it over
 * Open MPI.
 */
#ifndef MCA_COLL_HIERCOLL_PLAN_DECOMP_H
#define MCA_COLL_HIERCOLL_PLAN_DECOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Criteria                                                             */
/* ------------------------------------------------------------------ */

typedef enum hcp_crit_kind {
    HCP_CRIT_NONE,  /* "none": no decomposition */
    HCP_CRIT_LEVEL, /* the processes sharing a node or a hardware level */
    HCP_CRIT_BLOCK, /* "block:K": ranks [0, K), [K, 2K), ... */
    HCP_CRIT_LIST   /* "list:0-3,4+6,5+7": explicit parts */
} hcp_crit_kind_t;

/* Hardware levels, broadest first ("node" is the shared memory domain). */
typedef enum hcp_level {
    HCP_LEVEL_NODE,
    HCP_LEVEL_BOARD,
    HCP_LEVEL_NUMA,
    HCP_LEVEL_SOCKET,
    HCP_LEVEL_L3,
    HCP_LEVEL_L2,
    HCP_LEVEL_L1,
    HCP_LEVEL_CORE,
    HCP_LEVEL_HWTHREAD,
    HCP_NLEVELS
} hcp_level_t;

extern const char *const hcp_level_names[HCP_NLEVELS];

typedef struct hcp_criterion {
    hcp_crit_kind_t kind;
    hcp_level_t level; /* LEVEL */
    int block;         /* BLOCK: ranks per part */
    int nranks;        /* LIST: the list names ranks 0 .. nranks-1 */
    int *part_of;      /* LIST: [nranks] the part of each rank */
} hcp_criterion_t;

/* Parse a criterion: "none", a level name, "block:K" (K >= 1) or
 * "list:PART,PART,..." where a PART is one or more rank ranges joined by
 * '+' ("0-3", "4+6", "0-1+8-9") and the parts cover ranks 0..N-1 exactly
 * once.  Returns 0, or -1 with a one-line reason in why (c is then
 * "none").  Free with hcp_criterion_fini. */
int hcp_criterion_parse(const char *s, hcp_criterion_t *c, char *why, size_t whylen);
void hcp_criterion_fini(hcp_criterion_t *c);

/* The part key of every rank of an n-rank communicator, when the
 * criterion alone decides it (block and list): returns 1 with keys[n]
 * filled (ranks with equal keys share a part), 0 when the runtime must
 * tell (levels), -1 when the criterion does not apply to n ranks (none,
 * or a list of another size). */
int hcp_criterion_keys(const hcp_criterion_t *c, int n, int *keys);

/* ------------------------------------------------------------------ */
/* Parts                                                                */
/* ------------------------------------------------------------------ */

typedef struct hcp_decomp {
    int n, nparts;
    int *part;       /* [n] part of each rank */
    int *index;      /* [n] index of each rank within its part */
    int *start;      /* [nparts + 1] part p is member[start[p] .. start[p+1]) */
    int *member;     /* [n] ranks in decomposition order */
    bool contiguous; /* every part is a run of consecutive ranks */
    int max_size;    /* members of the largest part */
} hcp_decomp_t;

/* The shared-memory level's groups: runs of consecutive ranks with equal
 * keys, cut every `cap` ranks (cap >= 1).  lead[r] is the first rank of
 * r's group; returns the number of groups. */
int hcp_runs(int n, const int *keys, int cap, int *lead);

/* The shared-memory level's hierarchy (coll_hiercoll_shm_levels).  keys
 * holds ncand candidate levels from the bottom, ncand * n keys (candidate
 * c's key of rank r at keys[c * n + r]: equal keys, the same object).
 * Level 0's ranks are all; a candidate becomes the next level where its
 * runs among that level's ranks (hcp_runs, cut every cap) merge some of
 * them but not all into one, and are not short (more than two ranks on
 * average, or an interleaving mapping would reorder the folds: skipped);
 * the level's leaders (each run's first) are the next level's ranks.
 * While more than cap ranks remain, runs of cap consecutive ones (used
 * -1).  At most maxlv levels.  up[k * n + r]: the leader of r's group at
 * level k, -1 where r is not among level k's ranks; used[k]: the
 * candidate of level k; top[0 .. *ntop): the ranks above the last level
 * (all ranks where none is kept); why[c] (where not NULL): what became of
 * candidate c (HCP_LV_*).  Returns the levels kept, -1: no memory. */
enum { HCP_LV_KEPT, HCP_LV_NONE_MERGED, HCP_LV_ALL_MERGED, HCP_LV_SHORT_RUNS, HCP_LV_UNTRIED };
int hcp_levels(int n, int ncand, const int *keys, int cap, int maxlv, int *up, int *used,
               int *top, int *ntop, int *why);

/* Group the n ranks by key (keys[r] equal: same part).  Returns 0, or -1
 * when memory ran out. */
int hcp_decomp_build(hcp_decomp_t *d, int n, const int *keys);
void hcp_decomp_fini(hcp_decomp_t *d);

static inline int hcp_part_size(const hcp_decomp_t *d, int p)
{
    return d->start[p + 1] - d->start[p];
}
static inline int hcp_leader(const hcp_decomp_t *d, int p)
{
    return d->member[d->start[p]];
}
/* Position of rank r in decomposition order. */
static inline int hcp_pos(const hcp_decomp_t *d, int r)
{
    return d->start[d->part[r]] + d->index[r];
}

/* ------------------------------------------------------------------ */
/* Packed layouts                                                       */
/* ------------------------------------------------------------------ */

/* One block per rank, packed in decomposition order, part `skip` left out
 * (-1: none); rank r's block is counts[r] * unit bytes (counts NULL:
 * count * unit).  Fills, where not NULL: off[n] each rank's offset (-1 in
 * the skipped part), pcount[nparts] and pdispl[nparts] each part's bytes
 * and offset.  Returns the total bytes, or -1 when a part's bytes or an
 * offset would not fit an int (the MPI calls that move them take ints). */
int64_t hcp_pack_layout(const hcp_decomp_t *d, const int *counts, int64_t count, size_t unit,
                        int skip, int64_t *off, int *pcount, int *pdispl);

/* displs[k] = counts[0] + ... + counts[k-1]; returns the total, or -1
 * past INT_MAX. */
int64_t hcp_prefix(int k, const int *counts, int *displs);

/* ------------------------------------------------------------------ */
/* All-to-all in four steps                                             */
/* ------------------------------------------------------------------ */

/* What rank i sends rank j, in bytes.  The leader of part p asks only for
 * pairs with i or j in p (it learns its members' counts, not others'). */
typedef int64_t (*hcp_pair_bytes_t)(int i, int j, void *ctx);

typedef struct hcp_copy {
    int64_t src, dst, len;
} hcp_copy_t;

/*
 * The leader's side of a decomposed all-to-all for part p:
 *   1. every member packs, in decomposition order, its blocks for the
 *      ranks outside p and the leader gathers them:
 *      gather buffer G, member k's bytes at gdispl[k], gcount[k] long;
 *   2. (the members exchange the blocks that stay in p directly);
 *   3. the leader copies `out` from G into the bridge send buffer S
 *      (for each other part q: its members' blocks for q, member-major)
 *      and the leaders exchange S and R by an alltoallv over the bridge:
 *      scount/sdispl, rcount/rdispl per part;
 *   4. the leader copies `in` from R into the scatter buffer O (for each
 *      member: what it receives from outside p, in decomposition order of
 *      the senders) and scatters O: member k's bytes at odispl[k].
 * Every count and displacement fits an int.
 */
typedef struct hcp_a2a {
    int *gcount, *gdispl; /* [part size] */
    int *scount, *sdispl; /* [nparts] */
    int *rcount, *rdispl; /* [nparts] */
    int *ocount, *odispl; /* [part size] */
    hcp_copy_t *out, *in;
    int nout, nin;
    int64_t gbytes, sbytes, rbytes, obytes;
} hcp_a2a_t;

/* Returns 0, or -1 (out of memory or a size past INT_MAX); free with
 * hcp_a2a_fini either way. */
int hcp_a2a_layout(hcp_a2a_t *a, const hcp_decomp_t *d, int p, hcp_pair_bytes_t bytes,
                   void *ctx);
void hcp_a2a_fini(hcp_a2a_t *a);

#ifdef __cplusplus
}
#endif

#endif /* MCA_COLL_HIERCOLL_PLAN_DECOMP_H */
