/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: a call's instance.  Its datatypes (the generated tree; the
 * receive side's type: the same, its packed twin, a shorter type of the
 * same signature received more times, or a longer one fewer), its count,
 * root and groups, and for ANY rank of the case its arguments (counts,
 * displacements, per-block types, MPI_IN_PLACE) and the bounds of its
 * buffers, filled from that rank's own random stream exactly as that rank
 * fills them: so every process knows every other's inputs, and the serial
 * reference (hc_fuzz_ref.c) needs no communication.
 */
#include "hc_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Aint) == sizeof(long), "MPI_Aint is a long here");

/* ------------------------------------------------------------------ */
/* types                                                                */
/* ------------------------------------------------------------------ */

static void map_extents(MPI_Datatype t, hf_map_t *m)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    m->size = size;
    m->lb = lb;
    m->ext = ext;
    m->tlb = tlb;
    m->text = text;
}

/* Open MPI 5.0.7 loses data sending some types whose scalars sit at
 * addresses that are not a multiple of their size (2-byte ones at odd
 * addresses past its eager limit; floats and ints too, in its
 * intercommunicator scatter and gather: point to point, hiercoll's plans
 * and every component alike; known issues): with 5.0 a type with such a
 * scalar (at such a displacement, or with an extent that moves the next
 * element's there) outside a contiguous run is drawn again */
static bool misaligned_scalars(const hf_map_t *m)
{
#if HC_OMPI_5
    bool contiguous = m->text == m->size && m->ext == m->size;
    for (long i = 0; i < m->n && !contiguous; ++i) {
        long a = hf_basics[m->basic[i]].size;
        while (a > 8) {
            a /= 2;
        }
        if (a >= 2 && (0 != m->disp[i] % a || 0 != m->ext % a)) {
            return true;
        }
    }
#else
    (void) m;
#endif
    return false;
}

void hf_types_make(const hf_case_t *cs, hf_types_t *ty, int fam)
{
    memset(ty, 0, sizeof(*ty));
    hf_rng_t r = hf_stream(cs->type_seed, 3);
    hf_tree_gen(&ty->tree, &r, cs->type_max, cs->pick_basic >= 0 ? 0 : cs->type_depth,
                cs->pick_basic, cs->shape, cs->gen);
    for (int again = 0;
         again < 8 && cs->gen >= 2
         && misaligned_scalars(&ty->tree.node[cs->subtype < ty->tree.n ? cs->subtype : 0].map);
         ++again) {
        hf_tree_free(&ty->tree);
        hf_tree_gen(&ty->tree, &r, cs->type_max, again < 7 ? cs->type_depth : 0,
                    again < 7 ? cs->pick_basic : 6 /* MPI_INT */, cs->shape, cs->gen);
    }
    int k = cs->subtype < ty->tree.n ? cs->subtype : 0;
    ty->T = ty->tree.node[k].t;
    ty->mt = &ty->tree.node[k].map;
    ty->P = ty->W = ty->X = MPI_DATATYPE_NULL;
    ty->ks = ty->kr = 1;
    if (cs->gen < 2 && hf_is_reduction(cs->coll) && MD_BLOCKING != cs->mode
        && (0 != ty->mt->tlb || 0 != ty->mt->lb)) {
        /* Open MPI 4.1.4's libnbc (the layer below's nonblocking
         * reductions) corrupts the heap for a datatype whose (true) lower
         * bound is not 0 (hc_fuzz --case 0x54d81856817919ef at np 3): in
         * generation 1 the same data, moved to start at 0 */
        const hf_map_t *m = ty->mt;
        MPI_Datatype s1;
        int one = 1;
        MPI_Aint d = (MPI_Aint) -m->tlb;
        MPI_Type_create_struct(1, &one, &d, &ty->T, &s1);
        MPI_Type_create_resized(s1, 0, (MPI_Aint) m->ext, &ty->W);
        MPI_Type_free(&s1);
        MPI_Type_commit(&ty->W);
        hf_map_t *w = &ty->wmap;
        *w = *m;
        w->disp = hf_alloc(sizeof(long) * (size_t) (m->n ? m->n : 1));
        w->basic = hf_alloc((size_t) (m->n ? m->n : 1));
        for (long i = 0; i < m->n; ++i) {
            w->disp[i] = m->disp[i] - m->tlb;
            w->basic[i] = m->basic[i];
        }
        w->lb = w->tlb = 0;
        ty->T = ty->W;
        ty->mt = w;
    }
    if (cs->packed && !hf_is_reduction(cs->coll)) {
        ty->P = hf_packed_twin(ty->mt, &ty->pmap);
    }
    ty->mp = MPI_DATATYPE_NULL != ty->P ? &ty->pmap : ty->mt;
    hf_tree_describe(&ty->tree, k, ty->desc, sizeof(ty->desc));
    if (MPI_DATATYPE_NULL != ty->W) {
        size_t l = strlen(ty->desc);
        snprintf(ty->desc + l, sizeof(ty->desc) - l, " moved to lb 0");
    }
    /* the receive side: a shorter or a longer type of the same signature */
    MPI_Datatype R = MPI_DATATYPE_NULL != ty->P ? ty->P : ty->T;
    const hf_map_t *mr = ty->mp;
    if (RS_SPLIT == cs->rshape && mr->n > 1) {
        long p = hf_map_period(mr);
        if (p < mr->n) {
            ty->X = hf_packed_prefix(mr, p, &ty->xmap);
            if (MPI_DATATYPE_NULL != ty->X) {
                ty->kr = (int) (mr->n / p);
            }
        }
    } else if (RS_MERGE == cs->rshape && mr->size > 0) {
        hf_rng_t rr = hf_stream(cs->type_seed, 4);
        int k2 = 2 + (int) hf_below(&rr, 3);
        MPI_Type_contiguous(k2, R, &ty->X);
        MPI_Type_commit(&ty->X);
        hf_map_repeat(mr, k2, &ty->xmap);
        map_extents(ty->X, &ty->xmap);
        ty->ks = k2;
    }
    if (MPI_DATATYPE_NULL != ty->X) {
        size_t l = strlen(ty->desc);
        snprintf(ty->desc + l, sizeof(ty->desc) - l, "; received as %s (counts x%d/x%d)",
                 ty->kr > 1 ? "its repeating part" : "contiguous runs of it", ty->ks, ty->kr);
        ty->P = ty->X;
        ty->mp = &ty->xmap;
    }
}

void hf_types_free(hf_types_t *ty)
{
    if (MPI_DATATYPE_NULL != ty->X) {
        if (ty->P == ty->X) {
            ty->P = MPI_DATATYPE_NULL;
        }
        MPI_Type_free(&ty->X);
        hf_map_free(&ty->xmap);
    }
    if (MPI_DATATYPE_NULL != ty->P) {
        MPI_Type_free(&ty->P);
    }
    hf_map_free(&ty->pmap);
    if (MPI_DATATYPE_NULL != ty->W) {
        MPI_Type_free(&ty->W);
        hf_map_free(&ty->wmap);
    }
    hf_tree_free(&ty->tree);
}

/* ------------------------------------------------------------------ */
/* counts                                                               */
/* ------------------------------------------------------------------ */

long hf_draw_count(const hf_case_t *cs, long size, long blocks, long ext)
{
    if (cs->count >= 0) {
        return cs->count;
    }
    hf_rng_t r = hf_stream(cs->count_raw, 7);
    long s = size > 0 ? size : 1, c = 0;
    long d = (long) hf_below(&r, 3) - 1;
    switch (cs->count_class) {
    case 0: c = 0; break;
    case 1: c = 1; break;
    case 2: c = 2 + (long) hf_below(&r, 15); break;
    case 3: c = 112 / s + d; break;                                   /* the flag line */
    case 4: c = (1 + (long) hf_below(&r, 4)) * 8192 / s + d; break;   /* cells */
    case 5: c = (hf_chance(&r, 50) ? 16384 : 32768) / s + d; break;   /* single copy */
    case 6: c = (1L << hf_below(&r, 18)) / s + (long) hf_below(&r, 5); break;
    default: c = (1L << (18 + hf_below(&r, 4))) / s + d; break;      /* 256 KiB .. 2 MiB */
    }
    if (c < 0) c = 0;
    long per = blocks > 0 ? blocks : 1, e = ext > 0 ? ext : 1;
    if (c * per * e > HF_BUF_MAX) {
        c = HF_BUF_MAX / (per * e);
    }
    return c;
}

/* the v-count of rank j (of n) for base count c */
static int vcount(const hf_case_t *cs, int j, int n, long c, uint64_t salt)
{
    hf_rng_t r = hf_stream(cs->vseed ^ salt, (uint64_t) j);
    switch (cs->vpattern) {
    case 0: return (int) c;
    case 1: return (int) (c * (j + 1) / n);
    case 2: return (int) hf_below(&r, (uint64_t) c + 1);
    case 3: return (j % 2) ? (int) c : 0;
    default:
        return j == (int) (cs->root_raw % (uint64_t) n) ? (int) c : (hf_chance(&r, 30) ? 1 : 0);
    }
}

/* the alltoallv/w count from i to j (symmetric in place) */
static int pcount(const hf_case_t *cs, int i, int j, int n, long c, bool in_place)
{
    if (in_place && i > j) {
        int t = i;
        i = j;
        j = t;
    }
    int k = vcount(cs, i * n + j, n * n, c, 0x77);
    /* (in place, never 0: Open MPI 4.1.4's libnbc in-place ialltoallv/w
     * desynchronises its tags when a rank receives nothing, known issues) */
    return in_place && k < 1 ? 1 : k;
}

/* alltoallw: whether the pair (i -> j) uses the receive side's type on side s */
static bool wpacked(const hf_case_t *cs, int i, int j, int s, bool in_place)
{
    if (in_place) {
        return false;
    }
    hf_rng_t r = hf_stream(cs->vseed ^ 0x99, (uint64_t) (i * 4096 + j * 2 + s));
    return cs->packed && hf_chance(&r, 50);
}

/* blocks of the count in the largest buffer */
static long case_blocks(const hf_inst_t *x)
{
    int c = x->cs.coll;
    if (hf_is_neighbor(c)) {
        int most = 1;
        for (int i = 0; x->topo && i < x->topo->n; ++i) {
            most = x->topo->indeg[i] > most ? x->topo->indeg[i] : most;
            most = x->topo->outdeg[i] > most ? x->topo->outdeg[i] : most;
        }
        return most;
    }
    switch (c) {
    case C_ALLGATHER: case C_ALLGATHERV: case C_ALLTOALL: case C_ALLTOALLV: case C_ALLTOALLW:
    case C_GATHER: case C_GATHERV: case C_SCATTER: case C_SCATTERV: case C_REDUCE_SCATTER_BLOCK:
    case C_REDUCE_SCATTER:
        return hf_opt.np;
    default:
        return 1;
    }
}

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void hf_inst_init(hf_inst_t *x, const hf_case_t *cs, int fam, int n, int me, int *world,
                  const hf_topo_t *topo)
{
    memset(x, 0, sizeof(*x));
    x->cs = *cs;
    x->fam = fam;
    x->n = n;
    x->me = me;
    x->world = world;
    x->topo = topo;
    hf_types_make(&x->cs, &x->ty, fam);
    const hf_case_t *c = &x->cs;
    if (FAM_INTER == fam) {
        hf_groups_make(&x->grp, n, c->mask, c->key_rev);
        x->root_grp = (int) (c->root_raw & 1);
        x->root = (int) ((c->root_raw >> 1) % (uint64_t) x->grp.ng[x->root_grp]);
        if (c->root >= 0) {
            x->root = c->root < x->grp.ng[x->root_grp] ? c->root : x->grp.ng[x->root_grp] - 1;
        }
    } else {
        x->root = c->root >= 0 ? c->root : (n > 0 ? (int) (c->root_raw % (uint64_t) n) : 0);
        if (x->root >= n && n > 0) {
            x->root = n - 1;
        }
    }
    const hf_map_t *mt = x->ty.mt, *mp = x->ty.mp;
    long ext = mt->ext > mp->ext ? mt->ext : mp->ext;
    x->c = hf_draw_count(c, mt->size, case_blocks(x), ext);
    if (x->ty.ks > 1 && c->count < 0) {
        x->c /= x->ty.ks; /* (a merged receive type: the same bytes as drawn) */
    }
    if (C_BARRIER == c->coll) {
        x->c = 0;
    }
    bool inplace_legal = C_BCAST != c->coll && C_BARRIER != c->coll && FAM_INTRA == fam;
    x->in_place = c->in_place && inplace_legal;
    x->reps = c->reps;
    if (x->in_place && (C_REDUCE_SCATTER == c->coll || C_REDUCE_SCATTER_BLOCK == c->coll
                        || C_EXSCAN == c->coll)) {
        /* what MPI leaves undefined (the input's tail; exscan's rank 0)
         * would be the next repetition's input */
        x->reps = 1;
    }
    x->cg[0] = x->cg[1] = x->c;
    if (FAM_INTER == fam && (C_ALLGATHER == c->coll || C_ALLGATHERV == c->coll
                             || C_ALLTOALL == c->coll || C_ALLTOALLV == c->coll
                             || C_ALLTOALLW == c->coll) && (c->vseed & 2)) {
        x->cg[1] = x->c - x->c / 3; /* (the groups send different counts) */
    }
    x->rk = hf_alloc(sizeof(hf_rank_t) * (size_t) (n > 0 ? n : 1));
    memset(x->rk, 0, sizeof(hf_rank_t) * (size_t) (n > 0 ? n : 1));
    int w = snprintf(x->desc, sizeof(x->desc), "%s %s %s algo=%s comm=%s%s", hf_fam_names[fam],
                     hf_coll_names[c->coll], hf_mode_names[c->mode], c->algo,
                     hf_comm_names[c->comm], CM_PREFIX == c->comm ? ":k" : "");
#define ADD(...)                                                                                   \
    do {                                                                                           \
        if (w >= 0 && (size_t) w < sizeof(x->desc)) {                                              \
            w += snprintf(x->desc + w, sizeof(x->desc) - (size_t) w, __VA_ARGS__);                 \
        }                                                                                          \
    } while (0)
    if (FAM_INTER == fam) {
        ADD(" groups=%d+%d root=%d of group %d", x->grp.ng[0], x->grp.ng[1], x->root, x->root_grp);
    } else {
        ADD(" np=%d root=%d", n, x->root);
    }
    if (FAM_NEIGHBOR == fam && topo) {
        ADD(" topo=%s", topo->desc);
    }
    ADD(" count=%ld%s%s%s reps=%d%s type=%s", x->c, x->in_place ? " in_place" : "",
        c->op >= 0 ? " op=" : "", c->op >= 0 ? hf_op_names[c->op] : "", x->reps,
        MPI_DATATYPE_NULL != x->ty.P && MPI_DATATYPE_NULL == x->ty.X ? " recv=packed" : "",
        x->ty.desc);
#undef ADD
}

void hf_inst_free(hf_inst_t *x)
{
    for (int i = 0; x->rk && i < x->n; ++i) {
        hf_rank_t *k = &x->rk[i];
        for (int b = 0; b < 2; ++b) {
            free(k->b[b].reg[0]);
            free(k->b[b].reg[1]);
        }
        free(k->a.scounts);
        free(k->a.sdispls_a);
        free(k->a.stypes);
    }
    free(x->rk);
    if (FAM_INTER == x->fam) {
        hf_groups_free(&x->grp);
    }
    hf_types_free(&x->ty);
    memset(x, 0, sizeof(*x));
}

/* ------------------------------------------------------------------ */
/* layouts                                                              */
/* ------------------------------------------------------------------ */

static void buf_block(hbuf_t *b, long disp, long cnt, const hf_map_t *m)
{
    if (cnt <= 0) {
        return;
    }
    long lo = disp + m->tlb, hi = disp + (cnt - 1) * m->ext + m->tlb + m->text;
    if (lo < b->lo) b->lo = lo;
    if (hi > b->hi) b->hi = hi;
    if (NULL == b->map) b->map = m;
}

/* blocks placed one after the other in `order` (0: in index order, 1:
 * reversed) with gaps; displacements in units of `unit` bytes (an extent,
 * or 1); returns them in disp[] (units) */
static void place(int n, const int *cnt, const hf_map_t *const *maps, long unit, int order,
                  uint64_t gseed, long *disp)
{
    long end = 0; /* bytes */
    for (int i = 0; i < n; ++i) {
        int j = order ? n - 1 - i : i;
        const hf_map_t *m = maps[j];
        hf_rng_t r = hf_stream(gseed, (uint64_t) j);
        long gap = hf_chance(&r, 50) ? 0 : (long) hf_below(&r, 3);
        /* data begins at d * unit + tlb >= end */
        long need = end - m->tlb;
        long d = need >= 0 ? (need + unit - 1) / unit : -((-need) / unit);
        d += gap;
        disp[j] = d;
        if (cnt[j] > 0) {
            end = d * unit + (cnt[j] - 1) * m->ext + m->tlb + m->text;
        }
    }
}

static void place_int(int n, const int *cnt, const hf_map_t *const *maps, long unit, int order,
                      uint64_t gseed, int *disp)
{
    long *d = hf_alloc(sizeof(long) * (size_t) (n + 1));
    place(n, cnt, maps, unit, order, gseed, d);
    for (int i = 0; i < n; ++i) {
        disp[i] = (int) d[i];
    }
    free(d);
}

/* the arrays of a rank's call: 4 int arrays and 2 type arrays of nb
 * entries, 2 MPI_Aint arrays */
static void alloc_arrays(hf_rank_t *k, int nb)
{
    hf_call_t *a = &k->a;
    int *arr = hf_alloc(sizeof(int) * (size_t) (nb * 4 + 4));
    memset(arr, 0, sizeof(int) * (size_t) (nb * 4 + 4));
    MPI_Datatype *tys = hf_alloc(sizeof(MPI_Datatype) * (size_t) (nb * 2 + 2));
    memset(tys, 0, sizeof(MPI_Datatype) * (size_t) (nb * 2 + 2));
    MPI_Aint *ai = hf_alloc(sizeof(MPI_Aint) * (size_t) (nb * 2 + 2));
    memset(ai, 0, sizeof(MPI_Aint) * (size_t) (nb * 2 + 2));
    a->scounts = arr;
    a->sdispls = arr + nb;
    a->rcounts = arr + 2 * nb;
    a->rdispls = arr + 3 * nb;
    a->stypes = tys;
    a->rtypes = tys + nb;
    a->sdispls_a = ai;
    a->rdispls_a = ai + nb;
    k->nint = nb;
}

/* the count of `base` elements in the units of map m (send side x ks,
 * receive side x kr: one signature) */
static long units(const hf_inst_t *x, const hf_map_t *m, long base)
{
    return base * (m == x->ty.mt ? x->ty.ks : x->ty.kr);
}

static void lay_intra(hf_inst_t *x, int me, hf_rank_t *k)
{
    const hf_case_t *cs = &x->cs;
    int n = x->n, root = x->root;
    long c = x->c;
    hbuf_t *b = k->b;
    hf_call_t *a = &k->a;
    alloc_arrays(k, n);
    const hf_map_t **maps = hf_alloc(sizeof(*maps) * (size_t) (n + 1));
    a->root = root;
    MPI_Datatype T = x->ty.T, R = MPI_DATATYPE_NULL != x->ty.P ? x->ty.P : x->ty.T;
    const hf_map_t *mt = x->ty.mt, *mr = x->ty.mp;
    long cS = units(x, mt, c), cR = units(x, mr, c);
    a->stype = T;
    a->rtype = R;
    a->scount = (int) cS;
    a->rcount = (int) cR;
    bool is_root = me == root, in_place = x->in_place;
    switch (cs->coll) {
    case C_BARRIER: break;
    case C_BCAST:
        a->rtype = is_root ? T : R;
        a->rcount = (int) (is_root ? cS : cR);
        buf_block(&b[1], 0, a->rcount, is_root ? mt : mr);
        break;
    case C_ALLREDUCE: case C_SCAN: case C_EXSCAN: case C_REDUCE: {
        bool ip = in_place && (C_REDUCE != cs->coll || is_root);
        a->rtype = T;
        a->rcount = (int) c;
        if (!ip) buf_block(&b[0], 0, c, mt);
        buf_block(&b[1], 0, c, mt);
        k->in_elems = c;
        k->inbuf = ip ? 1 : 0;
        if (ip) a->sb = MPI_IN_PLACE;
        b[1].skip = C_EXSCAN == cs->coll && 0 == me; /* (undefined there) */
        break;
    }
    case C_REDUCE_SCATTER_BLOCK: case C_REDUCE_SCATTER: {
        a->rtype = T;
        a->rcount = (int) c;
        long tot = 0;
        for (int j = 0; j < n; ++j) {
            a->rcounts[j] = C_REDUCE_SCATTER == cs->coll ? vcount(cs, j, n, c, 0) : (int) c;
            tot += a->rcounts[j];
        }
        if (in_place) {
            buf_block(&b[1], 0, tot, mt);
            k->inbuf = 1;
            a->sb = MPI_IN_PLACE;
            /* (MPI defines the first rcounts[me] elements only: the rest
             * of the input may serve as scratch) */
            b[1].undef_tail = true;
            b[1].defined = a->rcounts[me] > 0
                               ? (a->rcounts[me] - 1) * mt->ext + mt->tlb + mt->text
                               : mt->tlb;
        } else {
            buf_block(&b[0], 0, tot, mt);
            buf_block(&b[1], 0, a->rcounts[me], mt);
        }
        k->in_elems = tot;
        break;
    }
    case C_GATHER: case C_SCATTER: case C_ALLGATHER: case C_ALLTOALL: {
        bool gathering = C_SCATTER != cs->coll;
        bool ip = in_place && (C_ALLGATHER == cs->coll || C_ALLTOALL == cs->coll || is_root);
        hbuf_t *many = gathering ? &b[1] : &b[0], *one = gathering ? &b[0] : &b[1];
        const hf_map_t *mm = gathering ? mr : mt, *mo = gathering ? mt : mr;
        if (ip && C_SCATTER == cs->coll) {
            a->rb = MPI_IN_PLACE;
        } else if (ip) {
            a->sb = MPI_IN_PLACE;
        }
        if (ip && C_ALLTOALL == cs->coll) {
            mm = mr;
        }
        buf_block(many, 0, units(x, mm, c) * n, mm); /* (non-roots: kept intact) */
        if (!ip) {
            buf_block(one, 0, units(x, mo, C_ALLTOALL == cs->coll ? c * n : c), mo);
        }
        break;
    }
    case C_GATHERV: case C_ALLGATHERV: case C_SCATTERV: {
        bool gathering = C_SCATTERV != cs->coll;
        bool ip = in_place && (C_ALLGATHERV == cs->coll || is_root);
        int *cnt = gathering ? a->rcounts : a->scounts, *dsp = gathering ? a->rdispls : a->sdispls;
        const hf_map_t *mm = gathering ? mr : mt, *mo = gathering ? mt : mr;
        for (int j = 0; j < n; ++j) {
            cnt[j] = (int) units(x, mm, vcount(cs, j, n, c, 0));
            maps[j] = mm;
        }
        place_int(n, cnt, maps, mm->ext, cs->vorder, cs->vseed, dsp);
        hbuf_t *many = gathering ? &b[1] : &b[0], *one = gathering ? &b[0] : &b[1];
        for (int j = 0; j < n; ++j) {
            buf_block(many, (long) dsp[j] * mm->ext, cnt[j], mm);
        }
        long mine = units(x, mo, vcount(cs, me, n, c, 0));
        if (gathering) {
            a->scount = (int) mine;
        } else {
            a->rcount = (int) mine;
        }
        if (ip) {
            if (gathering) a->sb = MPI_IN_PLACE; else a->rb = MPI_IN_PLACE;
        } else {
            buf_block(one, 0, mine, mo);
        }
        break;
    }
    case C_ALLTOALLV: case C_ALLTOALLW: {
        bool w = C_ALLTOALLW == cs->coll;
        for (int j = 0; j < n; ++j) {
            a->scounts[j] = pcount(cs, me, j, n, c, in_place); /* (in place: ignored) */
        }
        for (int s = 0; s < 2; ++s) {
            if (0 == s && in_place) {
                continue;
            }
            int *cnt = s ? a->rcounts : a->scounts, *dsp = s ? a->rdispls : a->sdispls;
            for (int j = 0; j < n; ++j) {
                bool pk =
                    w ? (s ? wpacked(cs, j, me, 1, in_place) : wpacked(cs, me, j, 0, in_place))
                      : (s && !in_place);
                maps[j] = pk ? mr : mt;
                if (w) {
                    (s ? a->rtypes : a->stypes)[j] = pk ? R : T;
                }
            }
            if (!w && in_place) {
                for (int j = 0; j < n; ++j) maps[j] = mr;
            }
            for (int j = 0; j < n; ++j) {
                int base =
                    s ? pcount(cs, j, me, n, c, in_place) : pcount(cs, me, j, n, c, in_place);
                cnt[j] = (int) units(x, maps[j], base);
            }
            place_int(n, cnt, maps, w ? 1 : maps[0]->ext, cs->vorder ^ s, cs->vseed + (uint64_t) s,
                      dsp);
            if (w && 1 == n) {
                /* Open MPI 4.1's coll/self (the layer below on one process)
                 * takes alltoallw's byte displacements for elements and
                 * overruns: only 0 is safe there */
                dsp[0] = 0;
            }
            for (int j = 0; j < n; ++j) {
                buf_block(&b[s], (long) dsp[j] * (w ? 1 : maps[j]->ext), cnt[j], maps[j]);
            }
        }
        if (in_place) {
            a->sb = MPI_IN_PLACE;
            if (!w) a->rtype = R;
        }
        break;
    }
    default: break;
    }
    free(maps);
}

/* intercommunicators: no MPI_IN_PLACE; roots by MPI_ROOT / MPI_PROC_NULL;
 * every count of group g sent is x->cg[g] based */
static void lay_inter(hf_inst_t *x, int me, hf_rank_t *k)
{
    const hf_case_t *cs = &x->cs;
    const hf_groups_t *G = &x->grp;
    int g = G->grp[me], l = G->lrank[me], nl = G->ng[g], nr = G->ng[1 - g];
    hbuf_t *b = k->b;
    hf_call_t *a = &k->a;
    int nb = nl > nr ? nl : nr;
    alloc_arrays(k, nb);
    const hf_map_t **maps = hf_alloc(sizeof(*maps) * (size_t) (nb + 1));
    MPI_Datatype T = x->ty.T, R = MPI_DATATYPE_NULL != x->ty.P ? x->ty.P : x->ty.T;
    const hf_map_t *mt = x->ty.mt, *mr = x->ty.mp;
    long c = x->c, mine = x->cg[g], theirs = x->cg[1 - g];
    bool in_root_grp = g == x->root_grp, is_root = in_root_grp && l == x->root;
    a->root = in_root_grp ? (is_root ? MPI_ROOT : MPI_PROC_NULL) : x->root;
    a->stype = T;
    a->rtype = R;
    a->scount = (int) units(x, mt, c);
    a->rcount = (int) units(x, mr, c);
    /* salts: what group g's rank l sends to the other group's rank j */
    uint64_t sg = 0x1000u * (uint64_t) (g + 1), so = 0x1000u * (uint64_t) (2 - g);
    switch (cs->coll) {
    case C_BARRIER: break;
    case C_BCAST:
        if (is_root) {
            a->rtype = T;
            a->rcount = (int) units(x, mt, c);
            buf_block(&b[1], 0, a->rcount, mt);
        } else if (!in_root_grp) {
            buf_block(&b[1], 0, a->rcount, mr);
        }
        /* (an MPI_PROC_NULL rank passes a count all the same: Open MPI
         * 4.1.4's MPI_Ibcast returns at a count of 0 before the
         * component reserves its tag, and the group's tags diverge) */
        break;
    case C_GATHER:
        if (is_root) {
            buf_block(&b[1], 0, a->rcount * (long) nr, mr);
        } else if (!in_root_grp) {
            buf_block(&b[0], 0, a->scount, mt);
        }
        break;
    case C_SCATTER:
        if (is_root) {
            buf_block(&b[0], 0, a->scount * (long) nr, mt);
        } else if (!in_root_grp) {
            buf_block(&b[1], 0, a->rcount, mr);
        }
        break;
    case C_GATHERV: case C_SCATTERV: {
        bool gathering = C_GATHERV == cs->coll;
        const hf_map_t *mm = gathering ? mr : mt, *mo = gathering ? mt : mr;
        if (is_root) {
            int *cnt = gathering ? a->rcounts : a->scounts,
                *dsp = gathering ? a->rdispls : a->sdispls;
            for (int j = 0; j < nr; ++j) {
                cnt[j] = (int) units(x, mm, vcount(cs, j, nr, c, 0));
                maps[j] = mm;
            }
            place_int(nr, cnt, maps, mm->ext, cs->vorder, cs->vseed, dsp);
            for (int j = 0; j < nr; ++j) {
                buf_block(gathering ? &b[1] : &b[0], (long) dsp[j] * mm->ext, cnt[j], mm);
            }
        } else if (!in_root_grp) {
            long v = units(x, mo, vcount(cs, l, nl, c, 0));
            if (gathering) {
                a->scount = (int) v;
                buf_block(&b[0], 0, v, mo);
            } else {
                a->rcount = (int) v;
                buf_block(&b[1], 0, v, mo);
            }
        }
        break;
    }
    case C_ALLGATHER:
        a->scount = (int) units(x, mt, mine);
        a->rcount = (int) units(x, mr, theirs);
        buf_block(&b[0], 0, a->scount, mt);
        buf_block(&b[1], 0, a->rcount * (long) nr, mr);
        break;
    case C_ALLGATHERV:
        a->scount = (int) units(x, mt, vcount(cs, l, nl, mine, sg));
        buf_block(&b[0], 0, a->scount, mt);
        for (int j = 0; j < nr; ++j) {
            a->rcounts[j] = (int) units(x, mr, vcount(cs, j, nr, theirs, so));
            maps[j] = mr;
        }
        place_int(nr, a->rcounts, maps, mr->ext, cs->vorder, cs->vseed, a->rdispls);
        for (int j = 0; j < nr; ++j) {
            buf_block(&b[1], (long) a->rdispls[j] * mr->ext, a->rcounts[j], mr);
        }
        break;
    case C_ALLTOALL:
        a->scount = (int) units(x, mt, mine);
        a->rcount = (int) units(x, mr, theirs);
        buf_block(&b[0], 0, a->scount * (long) nr, mt);
        buf_block(&b[1], 0, a->rcount * (long) nr, mr);
        break;
    case C_ALLTOALLV: case C_ALLTOALLW: {
        bool w = C_ALLTOALLW == cs->coll;
        for (int s = 0; s < 2; ++s) {
            int *cnt = s ? a->rcounts : a->scounts, *dsp = s ? a->rdispls : a->sdispls;
            for (int j = 0; j < nr; ++j) {
                /* sender (group, local rank) -> receiver's local rank */
                int sgp = s ? 1 - g : g, sl = s ? j : l, rl = s ? l : j;
                bool pk = w ? wpacked(cs, sgp * 1024 + sl, rl, s, false) : 1 == s;
                maps[j] = pk ? mr : mt;
                if (w) {
                    (s ? a->rtypes : a->stypes)[j] = pk ? R : T;
                }
                long base =
                    vcount(cs, sl * 64 + rl, 4096, x->cg[sgp], 0x2000u * (uint64_t) (sgp + 1));
                cnt[j] = (int) units(x, maps[j], base);
            }
            place_int(nr, cnt, maps, w ? 1 : maps[0]->ext, cs->vorder ^ s, cs->vseed + (uint64_t) s,
                      dsp);
            for (int j = 0; j < nr; ++j) {
                buf_block(&b[s], (long) dsp[j] * (w ? 1 : maps[j]->ext), cnt[j], maps[j]);
            }
        }
        break;
    }
    case C_ALLREDUCE:
        a->rtype = T;
        a->rcount = (int) c;
        buf_block(&b[0], 0, c, mt);
        buf_block(&b[1], 0, c, mt);
        k->in_elems = c;
        break;
    case C_REDUCE:
        a->rtype = T;
        a->rcount = (int) c;
        if (is_root) {
            buf_block(&b[1], 0, c, mt);
        } else if (!in_root_grp) {
            buf_block(&b[0], 0, c, mt);
            k->in_elems = c;
        }
        break;
    case C_REDUCE_SCATTER_BLOCK: {
        /* both groups reduce tot elements: tot divisible by both sizes */
        long L = (long) G->ng[0] / gcd(G->ng[0], G->ng[1]) * G->ng[1];
        long tot = L * (c / L);
        a->rtype = T;
        a->rcount = (int) (tot / nl);
        buf_block(&b[0], 0, tot, mt);
        buf_block(&b[1], 0, a->rcount, mt);
        k->in_elems = tot;
        break;
    }
    case C_REDUCE_SCATTER: {
        /* tot = c in both groups, cut among the local ranks */
        a->rtype = T;
        long left = c;
        for (int j = 0; j < nl; ++j) {
            hf_rng_t r = hf_stream(cs->vseed ^ sg, (uint64_t) j);
            long v = j + 1 == nl ? left : (long) hf_below(&r, (uint64_t) left + 1);
            a->rcounts[j] = (int) v;
            left -= v;
        }
        buf_block(&b[0], 0, c, mt);
        buf_block(&b[1], 0, a->rcounts[l], mt);
        k->in_elems = c;
        break;
    }
    default: break;
    }
    free(maps);
}

/* the count rank q sends on its out-edge e (neighbor v and w) */
static int ecount(const hf_inst_t *x, int q, int e)
{
    const hf_case_t *cs = &x->cs;
    hf_rng_t r = hf_stream(cs->vseed ^ 0xe0, (uint64_t) (q * 4096 + e));
    long c = x->c;
    switch (cs->vpattern) {
    case 0: return (int) c;
    case 1: return (int) (c * (e % 4 + 1) / 4);
    case 2: return (int) hf_below(&r, (uint64_t) c + 1);
    case 3: return (e % 2) ? (int) c : 0;
    default: return hf_chance(&r, 30) ? (int) c : (hf_chance(&r, 50) ? 1 : 0);
    }
}

static void lay_neighbor(hf_inst_t *x, int me, hf_rank_t *k)
{
    const hf_case_t *cs = &x->cs;
    const hf_topo_t *t = x->topo;
    int id = t->indeg[me], od = t->outdeg[me];
    int nb = (id > od ? id : od) + 1;
    hbuf_t *b = k->b;
    hf_call_t *a = &k->a;
    alloc_arrays(k, nb);
    const hf_map_t **maps = hf_alloc(sizeof(*maps) * (size_t) (nb + 1));
    MPI_Datatype T = x->ty.T, R = MPI_DATATYPE_NULL != x->ty.P ? x->ty.P : x->ty.T;
    const hf_map_t *mt = x->ty.mt, *mr = x->ty.mp;
    long c = x->c;
    a->stype = T;
    a->rtype = R;
    a->scount = (int) units(x, mt, c);
    a->rcount = (int) units(x, mr, c);
    switch (cs->coll) {
    case C_NB_ALLGATHER:
        buf_block(&b[0], 0, a->scount, mt);
        buf_block(&b[1], 0, a->rcount * (long) id, mr);
        break;
    case C_NB_ALLTOALL:
        buf_block(&b[0], 0, a->scount * (long) od, mt);
        buf_block(&b[1], 0, a->rcount * (long) id, mr);
        break;
    case C_NB_ALLGATHERV:
        a->scount = (int) units(x, mt, vcount(cs, me, x->n, c, 0));
        buf_block(&b[0], 0, a->scount, mt);
        for (int i = 0; i < id; ++i) {
            int q = t->src[me][i];
            a->rcounts[i] = (int) units(x, mr, vcount(cs, q >= 0 ? q : me, x->n, c, 0));
            maps[i] = mr;
        }
        place_int(id, a->rcounts, maps, mr->ext, cs->vorder, cs->vseed, a->rdispls);
        for (int i = 0; i < id; ++i) {
            buf_block(&b[1], (long) a->rdispls[i] * mr->ext, a->rcounts[i], mr);
        }
        break;
    case C_NB_ALLTOALLV: case C_NB_ALLTOALLW: {
        bool w = C_NB_ALLTOALLW == cs->coll;
        for (int s = 0; s < 2; ++s) {
            int deg = s ? id : od;
            int *cnt = s ? a->rcounts : a->scounts;
            for (int i = 0; i < deg; ++i) {
                long base;
                if (s) {
                    int q = t->src[me][i], e = hf_topo_sender_block(t, me, i);
                    base = q >= 0 ? ecount(x, q, e) : ecount(x, me, 1000 + i);
                } else {
                    base = ecount(x, me, i);
                }
                bool pk = w ? wpacked(cs, me, i, s, false) : 1 == s;
                maps[i] = pk ? mr : mt;
                if (w) {
                    (s ? a->rtypes : a->stypes)[i] = pk ? R : T;
                }
                cnt[i] = (int) units(x, maps[i], base);
            }
            if (w) {
                place(deg, cnt, maps, 1, cs->vorder ^ s, cs->vseed + (uint64_t) s,
                      s ? (long *) a->rdispls_a : (long *) a->sdispls_a);
            } else {
                place_int(deg, cnt, maps, deg > 0 ? maps[0]->ext : 1, cs->vorder ^ s,
                          cs->vseed + (uint64_t) s, s ? a->rdispls : a->sdispls);
            }
            for (int i = 0; i < deg; ++i) {
                long d = w ? (long) (s ? a->rdispls_a : a->sdispls_a)[i]
                           : (long) (s ? a->rdispls : a->sdispls)[i] * maps[i]->ext;
                buf_block(&b[s], d, cnt[i], maps[i]);
            }
        }
        break;
    }
    default: break;
    }
    free(maps);
}

static void buf_alloc(hbuf_t *b, hf_rng_t *r, bool both)
{
    b->size = (size_t) (b->hi - b->lo) + 2 * HF_GUARD;
    b->reg[1] = hf_alloc(b->size);
    b->org[1] = (char *) b->reg[1] + HF_GUARD - b->lo;
    hf_fill_bytes(b->reg[1], b->size, r);
    if (both) {
        b->reg[0] = hf_alloc(b->size);
        b->org[0] = (char *) b->reg[0] + HF_GUARD - b->lo;
        memcpy(b->reg[0], b->reg[1], b->size);
    }
}

hf_rank_t *hf_rank_args(hf_inst_t *x, int i)
{
    hf_rank_t *k = &x->rk[i];
    if (!k->laid) {
        k->b[0].name = "send";
        k->b[1].name = "receive";
        k->a.op = x->cs.op >= 0 ? hf_op_handle(x->cs.op) : MPI_OP_NULL;
        switch (x->fam) {
        case FAM_INTER: lay_inter(x, i, k); break;
        case FAM_NEIGHBOR: lay_neighbor(x, i, k); break;
        default: lay_intra(x, i, k); break;
        }
        k->laid = true;
    }
    return k;
}

hf_rank_t *hf_rank(hf_inst_t *x, int i)
{
    hf_rank_t *k = hf_rank_args(x, i);
    if (!k->filled) {
        /* the same random bytes as rank i's own run (its world rank's
         * stream); reductions' inputs values fit for the op */
        hf_rng_t fr = hf_stream(x->cs.seed ^ 0x5eed, (uint64_t) x->world[i]);
        bool mine = i == x->me;
        for (int j = 0; j < 2; ++j) {
            buf_alloc(&k->b[j], &fr, mine);
        }
        if (hf_is_reduction(x->cs.coll) && x->cs.op < OP_USER_COMM && k->in_elems > 0) {
            hbuf_t *in = &k->b[k->inbuf];
            hf_fill_values(in->org[1], x->ty.mt, k->in_elems, x->cs.op, &fr);
            if (mine) {
                memcpy(in->reg[0], in->reg[1], in->size);
            }
        }
        k->filled = true;
    }
    return k;
}

/* ------------------------------------------------------------------ */
/* the layer below's local copies                                       */
/* ------------------------------------------------------------------ */

/* Whether m's data is one contiguous run per element with a gap (what
 * Open MPI's convertor packs as "contiguous with gaps") */
static bool contig_with_gaps(const hf_map_t *m)
{
    if (m->size <= 0 || m->ext == m->size || m->text != m->size) {
        return false;
    }
    long at = m->tlb;
    for (long i = 0; i < m->n; ++i) {
        if (m->disp[i] != at) {
            return false;
        }
        at += hf_basics[m->basic[i]].size;
    }
    return true;
}

/* Open MPI 4.1.4's ompi_datatype_sndrcv (every local copy of coll/self,
 * coll/basic, tuned and libnbc between two datatypes) copies in 64 KiB
 * pieces; when the last piece is only the rest of an element of a
 * contiguous-with-gaps sending type that the piece before split, its pack
 * reports no iovec and that rest is never written (known issues).  Does
 * copying scount of ms into another type hit it? */
static bool sndrcv_loses(long scount, const hf_map_t *ms, bool same)
{
    long b = scount * ms->size, last = b % 65536;
    return !same && b > 65536 && last > 0 && last < ms->size && contig_with_gaps(ms);
}

bool hf_below_copy_loses(hf_inst_t *x)
{
    int c = x->cs.coll;
    if (FAM_INTRA != x->fam || MPI_DATATYPE_NULL == x->ty.P
        || !(C_GATHER == c || C_GATHERV == c || C_SCATTER == c || C_SCATTERV == c
             || C_ALLGATHER == c || C_ALLGATHERV == c || C_ALLTOALL == c || C_ALLTOALLV == c
             || C_ALLTOALLW == c)) {
        return false;
    }
    const hf_map_t *mt = x->ty.mt;
    if (!contig_with_gaps(mt)) {
        return false; /* (the sending side of every own block is T) */
    }
    for (int r = 0; r < x->n; ++r) {
        const hf_call_t *a = &hf_rank_args(x, r)->a;
        if (MPI_IN_PLACE == a->sb || MPI_IN_PLACE == a->rb) {
            continue;
        }
        long sc;
        bool same;
        switch (c) {
        case C_GATHERV: case C_ALLGATHERV:
            if (C_GATHERV == c && r != x->root) continue;
            sc = a->scount;
            same = false;
            break;
        case C_SCATTERV:
            if (r != x->root) continue;
            sc = a->scounts[r];
            same = false;
            break;
        case C_ALLTOALLV:
            sc = a->scounts[r];
            same = false;
            break;
        case C_ALLTOALLW:
            sc = a->scounts[r];
            same = a->stypes[r] == a->rtypes[r];
            break;
        case C_GATHER: case C_SCATTER:
            if (r != x->root) continue;
            /* fall through */
        default:
            sc = a->scount;
            same = false;
            break;
        }
        if (sndrcv_loses(sc, mt, same)) {
            return true;
        }
    }
    return false;
}
