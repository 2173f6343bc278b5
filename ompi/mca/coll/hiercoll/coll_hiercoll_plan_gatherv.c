/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Tree gatherv and scatterv with message chains (after Sun et al., "A
 * Gatherv optimization method for large-scale concurrency", Computer
 * Engineering & Science 2022(9)).  MPI-free: see coll_hiercoll_plan.h.
 *
 * Gatherv: a leaf sends its block to its parent; an inner node packs its
 * own block and receives its children's subtrees into one byte scratch
 * buffer (TMP0, in relative rank order, i.e. in src_list order) and sends
 * it up in one message; the root receives child by child, one round
 * each, and copies what arrived packed out of TMP0 in the same round, so
 * that communication and copies interleave and one child's worth of
 * scratch serves every round.  Between the root and a child the data
 * travels as message chains (hcp_vchains): a continuous chain lands in
 * the receive buffer at its displacement, a non-continuous one arrives
 * packed ("receive once, copy each").  Sender and root derive the chains
 * from the same counts and displacements, so no chain is ever described
 * on the wire.
 *
 * Scatterv is the mirror image on the same tree and chains: the root
 * packs a child's non-continuous chains, sends every chain of it
 * (continuous ones straight from its send buffer) and, once they have
 * gone, packs the next child's, so that packing and sending alternate;
 * inner nodes receive their subtree's data and pass each child its part.
 */
#include "coll_hiercoll_plan.h"

#include <stdlib.h>

#define MAX_CHILDREN 64

/* ------------------------------------------------------------------ */
/* src_list and chains                                                  */
/* ------------------------------------------------------------------ */

void hcp_vtree_src_list(int n, int root, int v, const int *counts, const int *displs,
                        hcp_vblock_t *blk)
{
    int sub = hcp_binomial_subtree(n, v);
    for (int k = 0; k < sub; ++k) {
        int r = (int) (((int64_t) v + k + root) % n);
        blk[k].count = counts[r];
        blk[k].displ = displs[r];
    }
}

/* Do blocks a and b lie back to back in the root's buffer? */
static bool continuous(const hcp_vblock_t *a, const hcp_vblock_t *b)
{
    return (int64_t) a->displ + a->count == (int64_t) b->displ;
}

static void emit(hcp_vchain_t *out, int *nch, int first, int end, int nblocks, bool cont)
{
    out[*nch].first = first;
    out[*nch].end = end;
    out[*nch].direct = cont || 1 == nblocks;
    ++*nch;
}

int hcp_vchains(const hcp_vblock_t *blk, int k, hcp_vchain_t *out)
{
    int nch = 0;
    int start = -1, pre = -1; /* the open chain's first block, the previous block */
    int nblocks = 0;          /* non-empty blocks in the open chain */
    bool cont = false;        /* is the open chain continuous */

    for (int cur = 0; cur < k; ++cur) {
        if (0 == blk[cur].count) {
            continue;
        }
        if (pre < 0) {
            start = cur;
        } else if (continuous(&blk[pre], &blk[cur])) {
            if (!cont) { /* close the chain before pre; pre starts a continuous one */
                if (start < pre) {
                    emit(out, &nch, start, pre, nblocks - 1, false);
                }
                start = pre;
                nblocks = 1;
                cont = true;
            }
        } else if (cont) { /* close the continuous chain after pre; cur starts anew */
            emit(out, &nch, start, cur, nblocks, true);
            start = cur;
            nblocks = 0;
            cont = false;
        }
        ++nblocks;
        pre = cur;
    }
    if (pre >= 0) {
        emit(out, &nch, start, k, nblocks, cont);
    }
    return nch;
}

/* ------------------------------------------------------------------ */
/* One node of the tree                                                 */
/* ------------------------------------------------------------------ */

typedef struct vtree {
    int n, root, v, sub;
    const hcp_vblock_t *blk; /* src_list: blk[d] is relative rank v + d */
    size_t usize;
    int64_t *off;          /* off[d]: blk[d]'s byte offset packed; off[sub]: all */
    hcp_vchain_t *chains;  /* room for the chains of one child (or of v) */
    int children[MAX_CHILDREN]; /* local indices, in increasing subtree size */
    int nchildren;
} vtree_t;

/* The src_list's byte offsets are computed once: they size the scratch
 * buffers and give every message's offset and length. */
static int vtree_init(vtree_t *t, int n, int rank, int root, const hcp_vblock_t *blk,
                      size_t usize)
{
    t->n = n;
    t->root = root;
    t->v = (rank - root + n) % n;
    t->sub = hcp_binomial_subtree(n, t->v);
    t->blk = blk;
    t->usize = usize;
    t->nchildren = hcp_binomial_children(n, t->v, t->children, MAX_CHILDREN);
    for (int i = 0; i < t->nchildren; ++i) {
        t->children[i] -= t->v;
    }
    t->off = malloc(sizeof(*t->off) * ((size_t) t->sub + 1));
    t->chains = NULL;
    if (NULL == t->off) {
        return -1;
    }
    t->off[0] = 0;
    for (int d = 0; d < t->sub; ++d) {
        t->off[d + 1] = t->off[d] + (int64_t) blk[d].count * (int64_t) usize;
    }
    /* chains are only formed between the root and its children */
    if (0 == t->v || 0 == hcp_binomial_parent(t->v)) {
        t->chains = malloc(sizeof(*t->chains) * (size_t) t->sub);
        if (NULL == t->chains) {
            free(t->off);
            return -1;
        }
    }
    return 0;
}

static void vtree_fini(vtree_t *t)
{
    free(t->off);
    free(t->chains);
}

/* Absolute rank of local index d (relative rank v + d). */
static int rank_of(const vtree_t *t, int d)
{
    return (int) (((int64_t) t->v + d + t->root) % t->n);
}

/* Bytes of blocks [d, e) of the src_list. */
static int64_t span(const vtree_t *t, int d, int e)
{
    return t->off[e] - t->off[d];
}

/* End (local index) of the subtree of local index d. */
static int subtree_end(const vtree_t *t, int d)
{
    return d + hcp_binomial_subtree(t->n, t->v + d);
}

static int parent_of(const vtree_t *t)
{
    return (hcp_binomial_parent(t->v) + t->root) % t->n;
}

static void xfer(hcp_plan_t *p, int kind, int peer, int buf, int64_t off, int64_t count)
{
    if (HCP_SEND == kind) {
        hcp_send(p, peer, buf, off, count);
    } else {
        hcp_recv(p, peer, buf, off, count);
    }
}

/* Chains of the subtree of local index d (a child of the root, or the
 * node itself at d = 0). */
static int chains_of(vtree_t *t, int d)
{
    return hcp_vchains(t->blk + d, subtree_end(t, d) - d, t->chains);
}

/* Bytes of a child's non-continuous chains (packed in the root's TMP0). */
static int64_t packed_bytes(const vtree_t *t, int d, int nch)
{
    int64_t bytes = 0;
    for (int i = 0; i < nch; ++i) {
        if (!t->chains[i].direct) {
            bytes += span(t, d + t->chains[i].first, d + t->chains[i].end);
        }
    }
    return bytes;
}

/* The root's side of one chain of the child at local index d: a direct
 * chain is a range of the user buffer ubuf at its first block; a packed
 * one is the next range of TMP0 (*packed advances). */
static void root_chain(hcp_plan_t *p, const vtree_t *t, int d, const hcp_vchain_t *c,
                       int ubuf, int64_t *packed, int kind)
{
    int64_t bytes = span(t, d + c->first, d + c->end);
    int peer = rank_of(t, d);
    int buf = c->direct ? ubuf : HCP_TMP0;
    int64_t off = c->direct ? t->blk[d + c->first].displ : *packed;
    int64_t count = c->direct ? bytes / (int64_t) t->usize : bytes;
    xfer(p, kind, peer, buf, off, count);
    if (!c->direct) {
        *packed += bytes;
    }
}

/* Copies between the root's user buffer and TMP0 for the packed chains
 * of the child at local index d: unpack (gatherv) or pack (scatterv). */
static void root_copies(hcp_plan_t *p, const vtree_t *t, int d, int nch, int ubuf, bool unpack)
{
    int64_t packed = 0;
    for (int i = 0; i < nch; ++i) {
        const hcp_vchain_t *c = &t->chains[i];
        if (c->direct) {
            continue;
        }
        for (int j = d + c->first; j < d + c->end; ++j) {
            int64_t bytes = span(t, j, j + 1);
            if (0 == bytes) {
                continue;
            }
            if (unpack) {
                hcp_copy(p, ubuf, t->blk[j].displ, t->blk[j].count, HCP_TMP0, packed, bytes);
            } else {
                hcp_copy(p, HCP_TMP0, packed, bytes, ubuf, t->blk[j].displ, t->blk[j].count);
            }
            packed += bytes;
        }
    }
}

/* Between a non-root node (d = 0) and its parent: chains when the parent
 * is the root, otherwise the whole packed subtree in one message. */
static void to_parent(hcp_plan_t *p, vtree_t *t, int kind)
{
    if (0 != hcp_binomial_parent(t->v)) {
        if (span(t, 0, t->sub) > 0) {
            xfer(p, kind, parent_of(t), HCP_TMP0, 0, span(t, 0, t->sub));
        }
        return;
    }
    int nch = chains_of(t, 0);
    for (int i = 0; i < nch; ++i) {
        const hcp_vchain_t *c = &t->chains[i];
        xfer(p, kind, parent_of(t), HCP_TMP0, t->off[c->first], span(t, c->first, c->end));
    }
}

/* ------------------------------------------------------------------ */
/* Gatherv                                                              */
/* ------------------------------------------------------------------ */

static void gather_root(hcp_plan_t *p, vtree_t *t, int64_t scount, bool in_place)
{
    if (!in_place && t->blk[0].count > 0) {
        hcp_copy(p, HCP_RBUF, t->blk[0].displ, t->blk[0].count, HCP_SBUF, 0, scount);
    }
    /* smallest subtree first: it is ready first */
    for (int i = 0; i < t->nchildren; ++i) {
        int d = t->children[i];
        int nch = chains_of(t, d);
        int64_t packed = 0;
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_BYTE, packed_bytes(t, d, nch));
        for (int k = 0; k < nch; ++k) {
            root_chain(p, t, d, &t->chains[k], HCP_RBUF, &packed, HCP_RECV);
        }
        root_copies(p, t, d, nch, HCP_RBUF, true);
        hcp_end_round(p);
    }
}

static void gather_node(hcp_plan_t *p, vtree_t *t, int64_t scount)
{
    if (1 == t->sub) { /* a leaf: its block as it is */
        if (span(t, 0, 1) > 0) {
            hcp_send(p, parent_of(t), HCP_SBUF, 0, scount);
        }
        return;
    }
    hcp_scratch(p, HCP_TMP0, HCP_UNIT_BYTE, span(t, 0, t->sub));
    for (int i = 0; i < t->nchildren; ++i) {
        int d = t->children[i], e = subtree_end(t, d);
        if (span(t, d, e) > 0) {
            hcp_recv(p, rank_of(t, d), HCP_TMP0, t->off[d], span(t, d, e));
        }
    }
    if (span(t, 0, 1) > 0) {
        hcp_copy(p, HCP_TMP0, 0, span(t, 0, 1), HCP_SBUF, 0, scount);
    }
    hcp_end_round(p);
    to_parent(p, t, HCP_SEND);
}

/* ------------------------------------------------------------------ */
/* Scatterv                                                             */
/* ------------------------------------------------------------------ */

static void scatter_root(hcp_plan_t *p, vtree_t *t, int64_t rcount, bool in_place)
{
    /* largest subtree first: it has the longest way to go.  A child's
     * chains are packed in the round before the one that sends them, right
     * after the previous child's chains have gone (one child's worth of
     * scratch serves them all). */
    for (int i = t->nchildren - 1; i >= 0; --i) {
        int d = t->children[i];
        int nch = chains_of(t, d);
        int64_t packed = 0;
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_BYTE, packed_bytes(t, d, nch));
        root_copies(p, t, d, nch, HCP_SBUF, false);
        hcp_end_round(p);
        for (int k = 0; k < nch; ++k) {
            root_chain(p, t, d, &t->chains[k], HCP_SBUF, &packed, HCP_SEND);
        }
    }
    if (!in_place && t->blk[0].count > 0) {
        hcp_copy(p, HCP_RBUF, 0, rcount, HCP_SBUF, t->blk[0].displ, t->blk[0].count);
    }
}

static void scatter_node(hcp_plan_t *p, vtree_t *t, int64_t rcount)
{
    if (1 == t->sub) {
        if (span(t, 0, 1) > 0) {
            hcp_recv(p, parent_of(t), HCP_RBUF, 0, rcount);
        }
        return;
    }
    hcp_scratch(p, HCP_TMP0, HCP_UNIT_BYTE, span(t, 0, t->sub));
    to_parent(p, t, HCP_RECV);
    hcp_end_round(p);
    for (int i = t->nchildren - 1; i >= 0; --i) {
        int d = t->children[i], e = subtree_end(t, d);
        if (span(t, d, e) > 0) {
            hcp_send(p, rank_of(t, d), HCP_TMP0, t->off[d], span(t, d, e));
        }
    }
    /* own block last: the children's data goes out first */
    if (span(t, 0, 1) > 0) {
        hcp_copy(p, HCP_RBUF, 0, rcount, HCP_TMP0, 0, span(t, 0, 1));
    }
}

/* ------------------------------------------------------------------ */
/* Either tree                                                          */
/* ------------------------------------------------------------------ */

/* own: this rank's block in its own elements (gatherv: sent, scatterv:
 * received); the plan has been reset for the collective's element sizes. */
static int plan_tree(hcp_plan_t *p, int n, int rank, int root, const hcp_vblock_t *blk,
                     size_t usize, int64_t own, bool in_place, bool scatter)
{
    vtree_t t;
    if (0 == usize) {
        return hcp_finish(p); /* nothing to move */
    }
    if (0 != vtree_init(&t, n, rank, root, blk, usize)) {
        return -1;
    }
    if (0 == t.v) {
        (scatter ? scatter_root : gather_root)(p, &t, own, in_place);
    } else {
        (scatter ? scatter_node : gather_node)(p, &t, own);
    }
    vtree_fini(&t);
    return hcp_finish(p);
}

int hcp_gatherv_tree(hcp_plan_t *p, int n, int rank, int root, const hcp_vblock_t *blk,
                     size_t usize, int64_t scount, size_t ssize, bool in_place)
{
    hcp_reset(p, ssize, usize);
    return plan_tree(p, n, rank, root, blk, usize, scount, in_place, false);
}

int hcp_scatterv_tree(hcp_plan_t *p, int n, int rank, int root, const hcp_vblock_t *blk,
                      size_t usize, int64_t rcount, size_t rsize, bool in_place)
{
    hcp_reset(p, usize, rsize);
    return plan_tree(p, n, rank, root, blk, usize, rcount, in_place, true);
}

/* ------------------------------------------------------------------ */
/* Stage 0: header and src_lists down the tree                          */
/* ------------------------------------------------------------------ */

int hcp_vtree_meta(hcp_plan_t *p, int n, int rank, int root, int64_t hdr, int64_t rec,
                   size_t esize)
{
    int children[MAX_CHILDREN];
    hcp_reset(p, esize, esize);
    int v = (rank - root + n) % n, sub = hcp_binomial_subtree(n, v);
    if (1 == sub) { /* a leaf knows its own block: nothing to wait for */
        return hcp_finish(p);
    }
    if (0 != v) {
        int parent = (hcp_binomial_parent(v) + root) % n;
        hcp_recv(p, parent, HCP_RBUF, 0, hdr);
        hcp_recv(p, parent, HCP_RBUF, hdr, rec * sub);
        hcp_end_round(p);
    }
    int k = hcp_binomial_children(n, v, children, MAX_CHILDREN);
    for (int i = k - 1; i >= 0; --i) {
        int c = (children[i] + root) % n, d = children[i] - v;
        int csub = hcp_binomial_subtree(n, children[i]);
        if (csub > 1) {
            hcp_send(p, c, HCP_RBUF, 0, hdr);
            hcp_send(p, c, HCP_RBUF, hdr + rec * d, rec * csub);
        }
    }
    return hcp_finish(p);
}
