/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz's datatypes and values: the generator of datatype trees (every
 * node an MPI type and its flattened element map), packed twins of the
 * same signature, data fit for each op, and the user ops, which apply per
 * scalar of the element map (so they serve any derived type):
 *   commutative:     y = x + y (mod 2^bits of the scalar, as an integer)
 *   non-commutative: the scalar's two halves (a, b) are an affine map
 *                    t -> (a|1) t + b; x o y composes them:
 *                    ((ax|1)(ay|1), (ax|1) by + bx) mod 2^(bits/2),
 *                    associative, not commutative, exact in any grouping.
 */
#include "hc_fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { short v; int i; } s_short_int;
typedef struct { int v; int i; } s_2int;
typedef struct { long v; int i; } s_long_int;
typedef struct { float v; int i; } s_float_int;
typedef struct { double v; int i; } s_double_int;

enum { B_CHAR, B_SCHAR, B_UCHAR, B_BYTE, B_SHORT, B_USHORT, B_INT, B_UNSIGNED, B_LONG, B_ULONG,
       B_LLONG, B_INT8, B_UINT16, B_INT32, B_UINT64, B_FLOAT, B_DOUBLE, B_BOOL, B_SHORT_INT,
       B_2INT, B_LONG_INT, B_FLOAT_INT, B_DOUBLE_INT, B_N };

hf_basic_t hf_basics[B_N] = {
    [B_CHAR] = {MPI_DATATYPE_NULL, "MPI_CHAR", BK_CHAR, 1, 1, {0}, {0}},
    [B_SCHAR] = {MPI_DATATYPE_NULL, "MPI_SIGNED_CHAR", BK_INT_S, 1, 1, {0}, {0}},
    [B_UCHAR] = {MPI_DATATYPE_NULL, "MPI_UNSIGNED_CHAR", BK_INT_U, 1, 1, {0}, {0}},
    [B_BYTE] = {MPI_DATATYPE_NULL, "MPI_BYTE", BK_BYTE, 1, 1, {0}, {0}},
    [B_SHORT] = {MPI_DATATYPE_NULL, "MPI_SHORT", BK_INT_S, 2, 2, {0}, {0}},
    [B_USHORT] = {MPI_DATATYPE_NULL, "MPI_UNSIGNED_SHORT", BK_INT_U, 2, 2, {0}, {0}},
    [B_INT] = {MPI_DATATYPE_NULL, "MPI_INT", BK_INT_S, 4, 4, {0}, {0}},
    [B_UNSIGNED] = {MPI_DATATYPE_NULL, "MPI_UNSIGNED", BK_INT_U, 4, 4, {0}, {0}},
    [B_LONG] = {MPI_DATATYPE_NULL, "MPI_LONG", BK_INT_S, 8, 8, {0}, {0}},
    [B_ULONG] = {MPI_DATATYPE_NULL, "MPI_UNSIGNED_LONG", BK_INT_U, 8, 8, {0}, {0}},
    [B_LLONG] = {MPI_DATATYPE_NULL, "MPI_LONG_LONG", BK_INT_S, 8, 8, {0}, {0}},
    [B_INT8] = {MPI_DATATYPE_NULL, "MPI_INT8_T", BK_INT_S, 1, 1, {0}, {0}},
    [B_UINT16] = {MPI_DATATYPE_NULL, "MPI_UINT16_T", BK_INT_U, 2, 2, {0}, {0}},
    [B_INT32] = {MPI_DATATYPE_NULL, "MPI_INT32_T", BK_INT_S, 4, 4, {0}, {0}},
    [B_UINT64] = {MPI_DATATYPE_NULL, "MPI_UINT64_T", BK_INT_U, 8, 8, {0}, {0}},
    [B_FLOAT] = {MPI_DATATYPE_NULL, "MPI_FLOAT", BK_FLOAT, 4, 4, {0}, {0}},
    [B_DOUBLE] = {MPI_DATATYPE_NULL, "MPI_DOUBLE", BK_FLOAT, 8, 8, {0}, {0}},
    [B_BOOL] = {MPI_DATATYPE_NULL, "MPI_C_BOOL", BK_BOOL, 1, 1, {0}, {0}},
    [B_SHORT_INT] = {MPI_DATATYPE_NULL, "MPI_SHORT_INT", BK_PAIR, 6, (int) sizeof(s_short_int),
                     {B_SHORT, B_INT}, {0, (int) offsetof(s_short_int, i)}},
    [B_2INT] = {MPI_DATATYPE_NULL, "MPI_2INT", BK_PAIR, 8, (int) sizeof(s_2int), {B_INT, B_INT},
                {0, (int) offsetof(s_2int, i)}},
    [B_LONG_INT] = {MPI_DATATYPE_NULL, "MPI_LONG_INT", BK_PAIR, 12, (int) sizeof(s_long_int),
                    {B_LONG, B_INT}, {0, (int) offsetof(s_long_int, i)}},
    [B_FLOAT_INT] = {MPI_DATATYPE_NULL, "MPI_FLOAT_INT", BK_PAIR, 8, (int) sizeof(s_float_int),
                     {B_FLOAT, B_INT}, {0, (int) offsetof(s_float_int, i)}},
    [B_DOUBLE_INT] = {MPI_DATATYPE_NULL, "MPI_DOUBLE_INT", BK_PAIR, 12,
                      (int) sizeof(s_double_int), {B_DOUBLE, B_INT},
                      {0, (int) offsetof(s_double_int, i)}},
};
const int hf_nbasics = B_N;

/* the element map of each basic type (pairs: their two parts) */
static hf_map_t basic_map[B_N];

void hf_types_init(void)
{
    MPI_Datatype t[B_N] = {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT,
                           MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
                           MPI_LONG_LONG, MPI_INT8_T, MPI_UINT16_T, MPI_INT32_T, MPI_UINT64_T,
                           MPI_FLOAT, MPI_DOUBLE, MPI_C_BOOL, MPI_SHORT_INT, MPI_2INT,
                           MPI_LONG_INT, MPI_FLOAT_INT, MPI_DOUBLE_INT};
    for (int b = 0; b < B_N; ++b) {
        hf_basic_t *bt = &hf_basics[b];
        bt->t = t[b];
        hf_map_t *m = &basic_map[b];
        m->n = BK_PAIR == bt->kind ? 2 : 1;
        m->disp = calloc(2, sizeof(long));
        m->basic = calloc(2, 1);
        if (BK_PAIR == bt->kind) {
            for (int j = 0; j < 2; ++j) {
                m->disp[j] = bt->off[j];
                m->basic[j] = (unsigned char) bt->comp[j];
            }
        } else {
            m->basic[0] = (unsigned char) b;
        }
        int size;
        MPI_Aint lb, ext, tlb, text;
        MPI_Type_size(bt->t, &size);
        MPI_Type_get_extent(bt->t, &lb, &ext);
        MPI_Type_get_true_extent(bt->t, &tlb, &text);
        m->size = size;
        m->lb = lb;
        m->ext = ext;
        m->tlb = tlb;
        m->text = text;
        bt->size = size;
        bt->extent = (int) ext;
    }
}

void hf_map_free(hf_map_t *m)
{
    free(m->disp);
    free(m->basic);
    memset(m, 0, sizeof(*m));
}

static void map_alloc(hf_map_t *m, long n)
{
    m->n = n;
    m->disp = malloc(sizeof(long) * (size_t) (n ? n : 1));
    m->basic = malloc((size_t) (n ? n : 1));
    if (NULL == m->disp || NULL == m->basic) {
        fprintf(stderr, "hc_fuzz: out of memory (element map of %ld scalars)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* append child map c shifted by `shift` bytes at position *at of m */
static void map_put(hf_map_t *m, long *at, const hf_map_t *c, long shift)
{
    for (long i = 0; i < c->n; ++i) {
        m->disp[*at] = c->disp[i] + shift;
        m->basic[*at] = c->basic[i];
        ++*at;
    }
}

/* MPI's extents of node k's type into its map; the map must lie inside
 * the true extent, and the generator's invariant hold: lb <= true lb and
 * lb + extent >= true ub (count elements of it never overlap) */
static int describe(const hf_tree_t *tr, int k, char *buf, size_t len);

static void map_check(hf_tree_t *tr, int k)
{
    hf_node_t *nd = &tr->node[k];
    char d[512];
    hf_map_t *m = &nd->map;
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size(nd->t, &size);
    MPI_Type_get_extent(nd->t, &lb, &ext);
    MPI_Type_get_true_extent(nd->t, &tlb, &text);
    m->lb = lb;
    m->ext = ext;
    m->tlb = tlb;
    m->text = text;
    long sum = 0;
    for (long i = 0; i < m->n; ++i) {
        long z = hf_basics[m->basic[i]].size;
        sum += z;
        if (m->disp[i] < tlb || m->disp[i] + z > tlb + text) {
            fprintf(stderr,
                    "hc_fuzz: generator: scalar %ld at %ld outside the true extent %ld+%ld\n", i,
                    m->disp[i], (long) tlb, (long) text);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    m->size = size;
    if (sum != size || lb > tlb || lb + ext < tlb + text) {
        describe(tr, k, d, sizeof(d));
        fprintf(stderr, "hc_fuzz: generator: size %d (map %ld), lb %ld ext %ld, true %ld+%ld: %s\n",
                size, sum, (long) lb, (long) ext, (long) tlb, (long) text, d);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static int pick_pred(hf_rng_t *r, long max)
{
    for (int tries = 0; tries < 64; ++tries) {
        int b = (int) hf_below(r, B_N);
        if (hf_basics[b].size <= max) {
            return b;
        }
    }
    return hf_chance(r, 50) ? B_CHAR : B_BYTE;
}

/* a count in [1, most], spread over the orders of magnitude */
static long log_count(hf_rng_t *r, long most)
{
    if (most <= 1) {
        return 1;
    }
    int bits = 0;
    while ((1L << bits) < most && bits < 20) {
        ++bits;
    }
    long c = 1 + (long) hf_below(r, (uint64_t) 1 << hf_below(r, (uint64_t) bits + 1));
    return c > most ? most : c;
}

static int gen(hf_tree_t *tr, hf_rng_t *r, long max, int depth, int parent, int pick)
{
    int k = tr->n++;
    hf_node_t *nd = &tr->node[k];
    memset(nd, 0, sizeof(*nd));
    nd->parent = parent;
    nd->t = MPI_DATATYPE_NULL;
    int w = (int) hf_below(r, 100);
    bool leaf = pick >= 0 || depth <= 0 || tr->n > HF_MAX_NODES - HF_MAX_FIELDS - 2 || max < 2;
    if (leaf || w < 25) {
        nd->kind = TN_PRED;
    } else if (w < 37) {
        nd->kind = TN_CONTIG;
    } else if (w < 52) {
        nd->kind = TN_VECTOR;
    } else if (w < 62) {
        nd->kind = TN_HVECTOR;
    } else if (w < 72) {
        nd->kind = TN_INDEXED;
    } else if (w < 86) {
        nd->kind = TN_STRUCT;
    } else if (w < 95) {
        nd->kind = TN_RESIZED;
    } else {
        nd->kind = TN_DUP;
    }
    if (TN_STRUCT == nd->kind && tr->n + HF_MAX_FIELDS > HF_MAX_NODES - 1) {
        nd->kind = TN_PRED;
    }
    hf_map_t *m = &nd->map;
    switch (nd->kind) {
    case TN_PRED: {
        nd->basic = pick >= 0 ? pick : pick_pred(r, max);
        nd->t = hf_basics[nd->basic].t; /* (the handle itself: never freed) */
        const hf_map_t *b = &basic_map[nd->basic];
        map_alloc(m, b->n);
        long at = 0;
        map_put(m, &at, b, 0);
        break;
    }
    case TN_CONTIG:
    case TN_VECTOR:
    case TN_HVECTOR: {
        long cnt = log_count(r, max < 8192 ? max : 8192);
        long bl = TN_CONTIG == nd->kind ? 1 : 1 + (long) hf_below(r, 3);
        if (cnt * bl > max) {
            bl = 1;
        }
        int c = gen(tr, r, max / (cnt * bl) > 0 ? max / (cnt * bl) : 1, depth - 1, k, -1);
        nd = &tr->node[k];
        m = &nd->map;
        const hf_node_t *ch = &tr->node[c];
        nd->kids[0] = c;
        nd->nkids = 1;
        nd->count = (int) cnt;
        nd->blocklen = (int) bl;
        long E = ch->map.ext;
        map_alloc(m, cnt * bl * ch->map.n);
        long at = 0;
        if (TN_CONTIG == nd->kind) {
            MPI_Type_contiguous((int) cnt, ch->t, &nd->t);
            for (long i = 0; i < cnt; ++i) {
                map_put(m, &at, &ch->map, i * E);
            }
        } else if (TN_VECTOR == nd->kind) {
            nd->stride = bl + (long) hf_below(r, 3);
            MPI_Type_vector((int) cnt, (int) bl, (int) nd->stride, ch->t, &nd->t);
            for (long i = 0; i < cnt; ++i) {
                for (long j = 0; j < bl; ++j) {
                    map_put(m, &at, &ch->map, (i * nd->stride + j) * E);
                }
            }
        } else {
            nd->stride = bl * E + (hf_chance(r, 50) ? 0 : (long) hf_below(r, 13));
            MPI_Type_create_hvector((int) cnt, (int) bl, (MPI_Aint) nd->stride, ch->t, &nd->t);
            for (long i = 0; i < cnt; ++i) {
                for (long j = 0; j < bl; ++j) {
                    map_put(m, &at, &ch->map, i * nd->stride + j * E);
                }
            }
        }
        break;
    }
    case TN_INDEXED: {
        int nb = 1 + (int) hf_below(r, HF_MAX_FIELDS);
        long per = max / (nb * 2) > 0 ? max / (nb * 2) : 1;
        int c = gen(tr, r, per, depth - 1, k, -1);
        nd = &tr->node[k];
        m = &nd->map;
        const hf_node_t *ch = &tr->node[c];
        nd->kids[0] = c;
        nd->nkids = 1;
        nd->count = nb;
        long d = (long) hf_below(r, 5) - 2, tot = 0;
        int bls[HF_MAX_FIELDS], dsp[HF_MAX_FIELDS];
        for (int i = 0; i < nb; ++i) {
            nd->bl[i] = (int) hf_below(r, 3) + (hf_chance(r, 85) ? 1 : 0); /* some empty */
            if ((tot + nd->bl[i]) * ch->map.size > max) {
                nd->bl[i] = 0;
            }
            nd->disp[i] = d;
            bls[i] = nd->bl[i];
            dsp[i] = (int) d;
            tot += nd->bl[i];
            d += nd->bl[i] + (long) hf_below(r, 3);
        }
        if (0 == tot) {
            nd->bl[0] = bls[0] = 1;
            tot = 1;
        }
        MPI_Type_indexed(nb, bls, dsp, ch->t, &nd->t);
        map_alloc(m, tot * ch->map.n);
        long at = 0;
        for (int i = 0; i < nb; ++i) {
            for (long j = 0; j < nd->bl[i]; ++j) {
                map_put(m, &at, &ch->map, (nd->disp[i] + j) * ch->map.ext);
            }
        }
        break;
    }
    case TN_STRUCT: {
        int nf = 1 + (int) hf_below(r, HF_MAX_FIELDS - 1);
        long left = max, end = 0, tot = 0;
        int bls[HF_MAX_FIELDS];
        MPI_Aint dsp[HF_MAX_FIELDS];
        MPI_Datatype tys[HF_MAX_FIELDS];
        for (int i = 0; i < nf; ++i) {
            long share = left / (nf - i) > 0 ? left / (nf - i) : 1;
            int c = gen(tr, r, share, depth - 1, k, -1);
            nd = &tr->node[k];
            const hf_node_t *ch = &tr->node[c];
            nd->kids[i] = c;
            nd->bl[i] = (hf_chance(r, 70) || 2 * ch->map.size > share) ? 1 : 2;
            long gap = hf_chance(r, 40) ? 0 : (long) hf_below(r, 9);
            /* the field's data begins at disp + tlb, after the previous field's */
            long disp = 0 == i ? (long) hf_below(r, 17) - 8 - ch->map.tlb
                               : end + gap - ch->map.tlb;
            nd->disp[i] = disp;
            end = disp + (nd->bl[i] - 1) * ch->map.ext + ch->map.tlb + ch->map.text;
            left -= nd->bl[i] * ch->map.size;
            tot += nd->bl[i] * ch->map.n;
            bls[i] = nd->bl[i];
            dsp[i] = (MPI_Aint) disp;
            tys[i] = ch->t;
        }
        nd->nkids = nf;
        nd->count = nf;
        m = &nd->map;
        MPI_Type_create_struct(nf, bls, dsp, tys, &nd->t);
        {
            /* a field with explicit bounds (resized) sets the struct's
             * alone (MPI's sticky markers): widen them over the data */
            MPI_Aint lb, ext, tlb, text;
            MPI_Type_get_extent(nd->t, &lb, &ext);
            MPI_Type_get_true_extent(nd->t, &tlb, &text);
            if (lb > tlb || lb + ext < tlb + text) {
                MPI_Aint nlb = lb < tlb ? lb : tlb;
                MPI_Aint nub = lb + ext > tlb + text ? lb + ext : tlb + text;
                MPI_Datatype t2;
                MPI_Type_create_resized(nd->t, nlb, nub - nlb, &t2);
                MPI_Type_free(&nd->t);
                nd->t = t2;
                nd->rlb = nlb;
                nd->rext = nub - nlb;
            }
        }
        map_alloc(m, tot);
        long at = 0;
        for (int i = 0; i < nf; ++i) {
            const hf_node_t *ch = &tr->node[nd->kids[i]];
            for (long j = 0; j < nd->bl[i]; ++j) {
                map_put(m, &at, &ch->map, nd->disp[i] + j * ch->map.ext);
            }
        }
        break;
    }
    case TN_RESIZED:
    case TN_DUP: {
        int c = gen(tr, r, max, depth - 1, k, -1);
        nd = &tr->node[k];
        m = &nd->map;
        const hf_node_t *ch = &tr->node[c];
        nd->kids[0] = c;
        nd->nkids = 1;
        if (TN_RESIZED == nd->kind) {
            long a = hf_chance(r, 30) ? 0 : 1 + (long) hf_below(r, 24);
            long b = hf_chance(r, 30) ? 0 : 1 + (long) hf_below(r, 40);
            nd->rlb = ch->map.tlb - a;
            nd->rext = ch->map.tlb + ch->map.text - nd->rlb + b;
            MPI_Type_create_resized(ch->t, (MPI_Aint) nd->rlb, (MPI_Aint) nd->rext, &nd->t);
        } else {
            MPI_Type_dup(ch->t, &nd->t);
        }
        map_alloc(m, ch->map.n);
        long at = 0;
        map_put(m, &at, &ch->map, 0);
        break;
    }
    }
    if (TN_PRED != nd->kind) {
        MPI_Type_commit(&nd->t);
    }
    map_check(tr, k);
    return k;
}

void hf_tree_gen(hf_tree_t *tr, hf_rng_t *r, long max_size, int depth, int pick_basic, int shape)
{
    tr->n = 0;
    if (1 != shape) {
        gen(tr, r, max_size < 1 ? 1 : max_size, depth, -1, pick_basic);
        return;
    }
    /* a contiguous element of max_size bytes or just under: contig(k, b)
     * or vector(k, 1, 1, b) of a basic type without holes */
    hf_node_t *nd = &tr->node[tr->n++];
    memset(nd, 0, sizeof(*nd));
    nd->parent = -1;
    int b;
    do {
        b = pick_pred(r, max_size);
    } while (BK_PAIR == hf_basics[b].kind);
    int c = gen(tr, r, 1, 0, 0, b);
    nd = &tr->node[0];
    const hf_node_t *ch = &tr->node[c];
    long k = max_size / ch->map.size;
    if (k < 1) k = 1;
    nd->kind = hf_chance(r, 50) ? TN_CONTIG : TN_VECTOR;
    nd->kids[0] = c;
    nd->nkids = 1;
    nd->count = (int) k;
    nd->blocklen = 1;
    nd->stride = 1;
    if (TN_CONTIG == nd->kind) {
        MPI_Type_contiguous((int) k, ch->t, &nd->t);
    } else {
        MPI_Type_vector((int) k, 1, 1, ch->t, &nd->t);
    }
    map_alloc(&nd->map, k);
    long at = 0;
    for (long i = 0; i < k; ++i) {
        map_put(&nd->map, &at, &ch->map, i * ch->map.ext);
    }
    MPI_Type_commit(&nd->t);
    map_check(tr, 0);
}

void hf_tree_free(hf_tree_t *tr)
{
    for (int k = 0; k < tr->n; ++k) {
        if (MPI_DATATYPE_NULL != tr->node[k].t && TN_PRED != tr->node[k].kind) {
            MPI_Type_free(&tr->node[k].t);
        }
        hf_map_free(&tr->node[k].map);
    }
    tr->n = 0;
}

int hf_tree_below(const hf_tree_t *tr, int k, int k0)
{
    for (; k >= 0; k = tr->node[k].parent) {
        if (k == k0) {
            return 1;
        }
    }
    return 0;
}

static int describe(const hf_tree_t *tr, int k, char *buf, size_t len)
{
    const hf_node_t *nd = &tr->node[k];
    int w = 0;
#define OUT(...)                                                                                   \
    do {                                                                                           \
        if ((size_t) w < len) {                                                                    \
            w += snprintf(buf + w, len - (size_t) w, __VA_ARGS__);                                 \
        }                                                                                          \
    } while (0)
#define KID(i)                                                                                     \
    do {                                                                                           \
        if ((size_t) w < len) {                                                                    \
            w += describe(tr, nd->kids[i], buf + w, len - (size_t) w);                             \
        }                                                                                          \
    } while (0)
    switch (nd->kind) {
    case TN_PRED: OUT("%s", hf_basics[nd->basic].name); break;
    case TN_CONTIG: OUT("contig(%d,", nd->count); KID(0); OUT(")"); break;
    case TN_VECTOR:
        OUT("vector(%d,%d,%ld,", nd->count, nd->blocklen, nd->stride);
        KID(0);
        OUT(")");
        break;
    case TN_HVECTOR:
        OUT("hvector(%d,%d,%ldB,", nd->count, nd->blocklen, nd->stride);
        KID(0);
        OUT(")");
        break;
    case TN_INDEXED:
        OUT("indexed(");
        for (int i = 0; i < nd->count; ++i) {
            OUT("%d@%ld,", nd->bl[i], nd->disp[i]);
        }
        KID(0);
        OUT(")");
        break;
    case TN_STRUCT:
        OUT("struct(");
        for (int i = 0; i < nd->count; ++i) {
            OUT("%s%d@%ldB:", i ? "," : "", nd->bl[i], nd->disp[i]);
            KID(i);
        }
        OUT(")");
        if (nd->rext) {
            OUT("~resized(lb %ld,ext %ld)", nd->rlb, nd->rext);
        }
        break;
    case TN_RESIZED: OUT("resized(lb %ld,ext %ld,", nd->rlb, nd->rext); KID(0); OUT(")"); break;
    case TN_DUP: OUT("dup("); KID(0); OUT(")"); break;
    }
#undef OUT
#undef KID
    return w;
}

void hf_tree_describe(const hf_tree_t *tr, int k, char *buf, size_t len)
{
    buf[0] = '\0';
    int w = describe(tr, k, buf, len);
    const hf_map_t *m = &tr->node[k].map;
    if ((size_t) w < len) {
        snprintf(buf + w, len - (size_t) w, " [size %ld, lb %ld, extent %ld, true %ld+%ld]",
                 m->size, m->lb, m->ext, m->tlb, m->text);
    }
}

MPI_Datatype hf_packed_twin(const hf_map_t *m, hf_map_t *out)
{
    memset(out, 0, sizeof(*out));
    long runs = 0;
    for (long i = 0; i < m->n; ++i) {
        if (0 == i || m->basic[i] != m->basic[i - 1]) {
            ++runs;
        }
    }
    if (0 == runs || runs > 2048) {
        return MPI_DATATYPE_NULL;
    }
    int *bl = calloc((size_t) runs, sizeof(int));
    MPI_Aint *dsp = calloc((size_t) runs, sizeof(MPI_Aint));
    MPI_Datatype *ty = calloc((size_t) runs, sizeof(MPI_Datatype));
    map_alloc(out, m->n);
    long at = -1, off = 0;
    for (long i = 0; i < m->n; ++i) {
        if (0 == i || m->basic[i] != m->basic[i - 1]) {
            ++at;
            dsp[at] = off;
            ty[at] = hf_basics[m->basic[i]].t;
        }
        bl[at]++;
        out->disp[i] = off;
        out->basic[i] = m->basic[i];
        off += hf_basics[m->basic[i]].size;
    }
    MPI_Datatype t, tz;
    MPI_Type_create_struct((int) runs, bl, dsp, ty, &t);
    MPI_Type_create_resized(t, 0, off, &tz); /* (no alignment padding) */
    MPI_Type_free(&t);
    MPI_Type_commit(&tz);
    free(bl);
    free(dsp);
    free(ty);
    out->size = off;
    out->lb = 0;
    out->ext = off;
    out->tlb = 0;
    out->text = off;
    return tz;
}

/* ------------------------------------------------------------------ */
/* ops                                                                 */
/* ------------------------------------------------------------------ */

const char *hf_op_names[OP_N] = {"MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN", "MPI_LAND",
                                 "MPI_LOR", "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR",
                                 "MPI_MINLOC", "MPI_MAXLOC", "user-commutative",
                                 "user-noncommutative"};
static MPI_Op user_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};
long hf_user_op_unknown;

#define HF_NREG 4
static struct {
    MPI_Datatype t;
    const hf_map_t *m;
} reg[HF_NREG];

void hf_user_types(MPI_Datatype t, const hf_map_t *m)
{
    if (MPI_DATATYPE_NULL == t) {
        memset(reg, 0, sizeof(reg));
        return;
    }
    for (int i = 0; i < HF_NREG; ++i) {
        if (NULL == reg[i].m) {
            reg[i].t = t;
            reg[i].m = m;
            return;
        }
    }
}

static const hf_map_t *lookup(MPI_Datatype t)
{
    for (int i = 0; i < HF_NREG; ++i) {
        if (NULL != reg[i].m && reg[i].t == t) {
            return reg[i].m;
        }
    }
    for (int b = 0; b < B_N; ++b) {
        if (hf_basics[b].t == t) {
            return &basic_map[b];
        }
    }
    return NULL;
}

static inline void scalar_op(const unsigned char *x, unsigned char *y, int z, int noncomm)
{
    uint64_t a = 0, b = 0;
    memcpy(&a, x, (size_t) z);
    memcpy(&b, y, (size_t) z);
    if (!noncomm) {
        b = a + b;
    } else {
        int h = 4 * z;
        uint64_t mask = (h >= 64) ? ~0ull : ((1ull << h) - 1);
        uint64_t ax = ((a >> h) & mask) | 1, bx = a & mask;
        uint64_t ay = ((b >> h) & mask) | 1, by = b & mask;
        b = (((ax * ay) & mask) << h) | ((ax * by + bx) & mask);
    }
    memcpy(y, &b, (size_t) z);
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt, int noncomm)
{
    const hf_map_t *m = lookup(*dt);
    if (NULL == m) {
        hf_user_op_unknown++;
        return;
    }
    for (long k = 0; k < *len; ++k) {
        const unsigned char *x = (const unsigned char *) in + k * m->ext;
        unsigned char *y = (unsigned char *) inout + k * m->ext;
        for (long i = 0; i < m->n; ++i) {
            scalar_op(x + m->disp[i], y + m->disp[i], hf_basics[m->basic[i]].size, noncomm);
        }
    }
}

static void user_comm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_fn(in, inout, len, dt, 0);
}

static void user_noncomm(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_fn(in, inout, len, dt, 1);
}

void hf_ops_init(void)
{
    MPI_Op_create(user_comm, 1, &user_ops[0]);
    MPI_Op_create(user_noncomm, 0, &user_ops[1]);
}

void hf_ops_fini(void)
{
    MPI_Op_free(&user_ops[0]);
    MPI_Op_free(&user_ops[1]);
}

MPI_Op hf_op_handle(int op)
{
    switch (op) {
    case OP_SUM: return MPI_SUM;
    case OP_PROD: return MPI_PROD;
    case OP_MAX: return MPI_MAX;
    case OP_MIN: return MPI_MIN;
    case OP_LAND: return MPI_LAND;
    case OP_LOR: return MPI_LOR;
    case OP_LXOR: return MPI_LXOR;
    case OP_BAND: return MPI_BAND;
    case OP_BOR: return MPI_BOR;
    case OP_BXOR: return MPI_BXOR;
    case OP_MINLOC: return MPI_MINLOC;
    case OP_MAXLOC: return MPI_MAXLOC;
    case OP_USER_COMM: return user_ops[0];
    default: return user_ops[1];
    }
}

int hf_op_fits(int op, int b)
{
    int k = hf_basics[b].kind;
    switch (op) {
    case OP_SUM:
    case OP_PROD:
    case OP_MAX:
    case OP_MIN:
        /* (Open MPI 4.1.4's own MAX and MIN compare MPI_UNSIGNED_LONG as
         * signed: 0x7000000000000002 is its max of that and
         * 0xf000000000000001, so the stack below cannot be the reference
         * there; MPI_UINT64_T and MPI_UNSIGNED_LONG_LONG are right) */
        return (BK_INT_S == k || BK_INT_U == k || BK_FLOAT == k) && B_ULONG != b;
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR: return BK_INT_S == k || BK_INT_U == k || BK_BOOL == k;
    case OP_BAND:
    case OP_BOR:
    case OP_BXOR: return BK_INT_S == k || BK_INT_U == k || BK_BYTE == k;
    case OP_MINLOC:
    case OP_MAXLOC: return BK_PAIR == k;
    default: return 1;
    }
}

void hf_fill_bytes(unsigned char *p, size_t n, hf_rng_t *r)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = hf_next(r);
        memcpy(p + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = hf_next(r);
        memcpy(p + i, &v, n - i);
    }
}

static void put_int(unsigned char *p, int z, int64_t v)
{
    memcpy(p, &v, (size_t) z); /* (little endian: the low bytes) */
}

void hf_fill_values(char *buf, const hf_map_t *m, long count, int op, hf_rng_t *r)
{
    for (long k = 0; k < count; ++k) {
        for (long i = 0; i < m->n; ++i) {
            unsigned char *p = (unsigned char *) buf + k * m->ext + m->disp[i];
            int b = m->basic[i], z = hf_basics[b].size, kind = hf_basics[b].kind;
            if (op < 0 || op >= OP_USER_COMM) {
                hf_fill_bytes(p, (size_t) z, r);
            } else if (BK_FLOAT == kind) {
                /* small integers: every sum, product, max exact in any order */
                double v = OP_PROD == op ? (double) ((int) hf_below(r, 4) - 2)
                                         : (double) ((int) hf_below(r, 9) - 4);
                if (OP_PROD == op && 0 == v) {
                    v = 1;
                }
                if (4 == z) {
                    float f = (float) v;
                    memcpy(p, &f, 4);
                } else {
                    memcpy(p, &v, 8);
                }
            } else if (BK_BOOL == kind) {
                *p = (unsigned char) hf_below(r, 2);
            } else if (OP_MINLOC == op || OP_MAXLOC == op) {
                put_int(p, z, (int64_t) hf_below(r, 7) - 3); /* ties */
            } else if (OP_LAND == op || OP_LOR == op || OP_LXOR == op) {
                put_int(p, z, hf_chance(r, 40) ? 0 : (int64_t) hf_next(r));
            } else {
                hf_fill_bytes(p, (size_t) z, r);
            }
        }
    }
}

void hf_where(const hf_map_t *m, long off, char *buf, size_t len)
{
    for (long i = 0; i < m->n; ++i) {
        long z = hf_basics[m->basic[i]].size;
        if (off >= m->disp[i] && off < m->disp[i] + z) {
            snprintf(buf, len, "scalar %ld (%s at %ld, its byte %ld)", i,
                     hf_basics[m->basic[i]].name, m->disp[i], off - m->disp[i]);
            return;
        }
    }
    snprintf(buf, len, "a hole (no data of the type there)");
}
