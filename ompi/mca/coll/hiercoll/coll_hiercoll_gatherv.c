/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Tree gatherv and scatterv: the MPI side of the planners in
 * coll_hiercoll_plan_gatherv.c.
 *
 * The tree needs, at every rank, the counts (and for the root's children
 * the displacements) of its subtree, which MPI makes significant at the
 * root only.  Two levels (coll_hiercoll_gatherv_level, info key
 * hiercoll_gatherv_level):
 *
 *   aggressive    the application asserts that every rank passes the
 *                 root's counts, displacements and datatype: each rank
 *                 takes its src_list from its own arguments, one plan;
 *   conservative  (standard conforming, the default) two stages: the
 *                 root sends down the tree a header (the signature size of
 *                 its datatype) and to every inner child the records
 *                 (count, displacement) of that child's subtree, which
 *                 passes on its inner children's parts (hcp_vtree_meta);
 *                 stage 1 is the tree built from them.  A leaf only sends
 *                 or receives its own block, which its own arguments give:
 *                 it has nothing to wait for and starts the tree at once.
 */
#include "ompi_config.h"

#include <stdlib.h>

#include "coll_hiercoll.h"
#include "coll_hiercoll_caps.h"
#include "coll_hiercoll_exec.h"

/* Stage 0's buffer: a header, then the src_list's records. */
enum { HDR_USIZE, HDR_INTS };
#define REC_INTS ((int64_t) (sizeof(hcp_vblock_t) / sizeof(int32_t)))

static bool is_scatter(const hc_call_t *c)
{
    return HC_SCATTERV == c->coll;
}

/* The root's per-rank arrays, and its datatype's signature size. */
static const int *root_counts(const hc_call_t *c)
{
    return is_scatter(c) ? c->scounts : c->rcounts;
}

static const int *root_displs(const hc_call_t *c)
{
    return is_scatter(c) ? c->sdispls : c->rdispls;
}

static size_t root_usize(const hc_call_t *c)
{
    return is_scatter(c) ? c->ssize : c->rsize;
}

/* This rank's own block: what it sends (gatherv) or receives (scatterv). */
static int own_count(const hc_call_t *c)
{
    return is_scatter(c) ? c->rcount : c->scount;
}

static size_t own_size(const hc_call_t *c)
{
    return is_scatter(c) ? c->rsize : c->ssize;
}

static int relative(const hc_call_t *c)
{
    return (c->rank - c->root + c->size) % c->size;
}

/* The tree for this rank from its src_list. */
static int tree_plan(hcp_plan_t *p, const hc_call_t *c, const hcp_vblock_t *blk, size_t usize)
{
    int rc = (is_scatter(c) ? hcp_scatterv_tree : hcp_gatherv_tree)(
        p, c->size, c->rank, c->root, blk, usize, own_count(c), own_size(c), c->in_place);
    return 0 == rc ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

int mca_coll_hiercoll_vtree_plan(hcp_plan_t *p, const hc_call_t *c)
{
    int v = relative(c);
    hcp_vblock_t *blk = malloc(sizeof(*blk) * (size_t) hcp_binomial_subtree(c->size, v));
    if (NULL == blk) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    hcp_vtree_src_list(c->size, c->root, v, root_counts(c), root_displs(c), blk);
    int rc = tree_plan(p, c, blk, root_usize(c));
    free(blk);
    return rc;
}

bool mca_coll_hiercoll_vtree_staged(const hc_call_t *c)
{
    return 0 == c->module->gatherv_level;
}

/* ------------------------------------------------------------------ */
/* The conservative level's stages                                      */
/* ------------------------------------------------------------------ */

typedef struct vtree_ctx {
    hc_call_t call;
    int32_t *meta; /* header, then the src_list (the root's from the start) */
} vtree_ctx_t;

static int build(void *arg, int k, hcp_plan_t *p, hc_bind_t *b)
{
    vtree_ctx_t *x = arg;
    const hc_call_t *c = &x->call;
    switch (k) {
    case 0:
        mca_coll_hiercoll_bind_buffer(b, HCP_RBUF, x->meta, &ompi_mpi_int32_t.dt);
        return 0 == hcp_vtree_meta(p, c->size, c->rank, c->root, HDR_INTS, REC_INTS,
                                   sizeof(int32_t))
                   ? OMPI_SUCCESS
                   : OMPI_ERR_OUT_OF_RESOURCE;
    case 1:
        return tree_plan(p, c, (const hcp_vblock_t *) (x->meta + HDR_INTS),
                         (size_t) x->meta[HDR_USIZE]);
    default:
        return HC_NO_MORE_STAGES;
    }
}

static void release(void *arg)
{
    vtree_ctx_t *x = arg;
    free(x->meta);
    free(x);
}

int mca_coll_hiercoll_vtree_stages(const hc_call_t *c, hc_stages_t *out)
{
    int sub = hcp_binomial_subtree(c->size, relative(c));
    vtree_ctx_t *x = malloc(sizeof(*x));
    int32_t *meta = malloc(sizeof(int32_t) * (size_t) (HDR_INTS + REC_INTS * sub));
    if (NULL == x || NULL == meta) {
        free(x);
        free(meta);
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    x->call = *c;
    x->meta = meta;
    /* once, also for every start of a persistent request */
    if (c->rank == c->root) {
        meta[HDR_USIZE] = (int32_t) root_usize(c);
        hcp_vtree_src_list(c->size, c->root, 0, root_counts(c), root_displs(c),
                           (hcp_vblock_t *) (meta + HDR_INTS));
    } else if (1 == sub) { /* a leaf: its own block, in its own elements */
        hcp_vblock_t *own = (hcp_vblock_t *) (meta + HDR_INTS);
        meta[HDR_USIZE] = (int32_t) own_size(c);
        own->count = own_count(c);
        own->displ = 0;
    }
    *out = (hc_stages_t){.ctx = x, .nstages = 2, .build = build, .release = release};
    return OMPI_SUCCESS;
}
