/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz's datatypes and values: the generator of datatype trees (every
 * node an MPI type and its flattened element map, checked against
 * MPI_Pack), packed twins of the same signature, data fit for each op, the
 * user ops, which apply per scalar of the element map (so they serve any
 * derived type):
 *   commutative:     y = x + y (mod 2^bits of each 8-byte piece of the
 *                    scalar, as an integer)
 *   non-commutative: each 8-byte piece's two halves (a, b) are an affine
 *                    map t -> (a|1) t + b; x o y composes them:
 *                    ((ax|1)(ay|1), (ax|1) by + bx) mod 2^(bits/2),
 *                    associative, not commutative, exact in any grouping;
 * and the serial reference's own predefined ops (on packed elements).
 */
#include "hc_fuzz.h"

#include <complex.h>
#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { short v; int i; } s_short_int;
typedef struct { int v; int i; } s_2int;
typedef struct { long v; int i; } s_long_int;
typedef struct { float v; int i; } s_float_int;
typedef struct { double v; int i; } s_double_int;
typedef struct { long double v; int i; } s_ldouble_int;

/* bytes of a long double that hold its value (x86's 80 bits in 16) */
#if 64 == LDBL_MANT_DIG
#define LD_VALUE 10
#elif 53 == LDBL_MANT_DIG
#define LD_VALUE 8
#else
#define LD_VALUE ((int) sizeof(long double))
#endif

enum { B_CHAR, B_SCHAR, B_UCHAR, B_BYTE, B_SHORT, B_USHORT, B_INT, B_UNSIGNED, B_LONG, B_ULONG,
       B_LLONG, B_INT8, B_UINT16, B_INT32, B_UINT64, B_FLOAT, B_DOUBLE, B_BOOL, B_SHORT_INT,
       B_2INT, B_LONG_INT, B_FLOAT_INT, B_DOUBLE_INT,
       /* generation 2 */
       B_LDOUBLE, B_FCOMPLEX, B_DCOMPLEX, B_LDCOMPLEX, B_LDOUBLE_INT, B_N };

#define SC(n, k, s) {MPI_DATATYPE_NULL, n, k, s, s, {0}, {0}, s}
#define PAIR(n, T, a, b)                                                                           \
    {                                                                                              \
        MPI_DATATYPE_NULL, n, BK_PAIR, 0, (int) sizeof(T), {a, b}, {0, (int) offsetof(T, i)}, 0    \
    }
hf_basic_t hf_basics[B_N] = {
    [B_CHAR] = SC("MPI_CHAR", BK_CHAR, 1),
    [B_SCHAR] = SC("MPI_SIGNED_CHAR", BK_INT_S, 1),
    [B_UCHAR] = SC("MPI_UNSIGNED_CHAR", BK_INT_U, 1),
    [B_BYTE] = SC("MPI_BYTE", BK_BYTE, 1),
    [B_SHORT] = SC("MPI_SHORT", BK_INT_S, 2),
    [B_USHORT] = SC("MPI_UNSIGNED_SHORT", BK_INT_U, 2),
    [B_INT] = SC("MPI_INT", BK_INT_S, 4),
    [B_UNSIGNED] = SC("MPI_UNSIGNED", BK_INT_U, 4),
    [B_LONG] = SC("MPI_LONG", BK_INT_S, 8),
    [B_ULONG] = SC("MPI_UNSIGNED_LONG", BK_INT_U, 8),
    [B_LLONG] = SC("MPI_LONG_LONG", BK_INT_S, 8),
    [B_INT8] = SC("MPI_INT8_T", BK_INT_S, 1),
    [B_UINT16] = SC("MPI_UINT16_T", BK_INT_U, 2),
    [B_INT32] = SC("MPI_INT32_T", BK_INT_S, 4),
    [B_UINT64] = SC("MPI_UINT64_T", BK_INT_U, 8),
    [B_FLOAT] = SC("MPI_FLOAT", BK_FLOAT, 4),
    [B_DOUBLE] = SC("MPI_DOUBLE", BK_FLOAT, 8),
    [B_BOOL] = SC("MPI_C_BOOL", BK_BOOL, 1),
    [B_SHORT_INT] = PAIR("MPI_SHORT_INT", s_short_int, B_SHORT, B_INT),
    [B_2INT] = PAIR("MPI_2INT", s_2int, B_INT, B_INT),
    [B_LONG_INT] = PAIR("MPI_LONG_INT", s_long_int, B_LONG, B_INT),
    [B_FLOAT_INT] = PAIR("MPI_FLOAT_INT", s_float_int, B_FLOAT, B_INT),
    [B_DOUBLE_INT] = PAIR("MPI_DOUBLE_INT", s_double_int, B_DOUBLE, B_INT),
    [B_LDOUBLE] = SC("MPI_LONG_DOUBLE", BK_FLOAT, (int) sizeof(long double)),
    [B_FCOMPLEX] = SC("MPI_C_FLOAT_COMPLEX", BK_COMPLEX, 8),
    [B_DCOMPLEX] = SC("MPI_C_DOUBLE_COMPLEX", BK_COMPLEX, 16),
    [B_LDCOMPLEX] = SC("MPI_C_LONG_DOUBLE_COMPLEX", BK_COMPLEX, 2 * (int) sizeof(long double)),
    [B_LDOUBLE_INT] = PAIR("MPI_LONG_DOUBLE_INT", s_ldouble_int, B_LDOUBLE, B_INT),
};
#undef SC
#undef PAIR
const int hf_nbasics = B_N;

int hf_basic_moves_whole(int b)
{
#if HC_OMPI_5
    /* Open MPI 5.0.7 packs a long double's value and not its padding
     * (MPI_Pack's bytes 10 to 15 of each differ from the buffer's), and
     * packs the C complex types wrong in some hindexed layouts (blocks at
     * 0 and 24 bytes: the second element taken from byte 16; known
     * issues): there these types are drawn only as a reduction's whole
     * type, whose results' padding is not compared */
    return B_LDOUBLE != b && B_LDCOMPLEX != b && B_LDOUBLE_INT != b && B_FCOMPLEX != b
           && B_DCOMPLEX != b;
#else
    (void) b;
    return 1;
#endif
}

int hf_nbasics_of(int gen)
{
    return gen <= 1 ? HF_NBASICS_GEN1 : B_N;
}

const char *hf_tn_names[TN_N] = {"predefined", "contig", "vector", "hvector", "indexed", "struct",
                                 "resized", "dup", "hindexed", "indexed_block",
                                 "hindexed_block", "subarray", "darray"};

void *hf_alloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (NULL == p) {
        fprintf(stderr, "hc_fuzz: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* the element map of each basic type (pairs: their two parts) */
static hf_map_t basic_map[B_N];

void hf_types_init(void)
{
    MPI_Datatype t[B_N] = {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT,
                           MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG,
                           MPI_LONG_LONG, MPI_INT8_T, MPI_UINT16_T, MPI_INT32_T, MPI_UINT64_T,
                           MPI_FLOAT, MPI_DOUBLE, MPI_C_BOOL, MPI_SHORT_INT, MPI_2INT,
                           MPI_LONG_INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_DOUBLE,
                           MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX,
                           MPI_LONG_DOUBLE_INT};
    hf_basics[B_LDOUBLE].value = LD_VALUE;
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
    m->disp = hf_alloc(sizeof(long) * (size_t) (n ? n : 1));
    m->basic = hf_alloc((size_t) (n ? n : 1));
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

void hf_pack(const char *org, long count, const hf_map_t *m, unsigned char *out)
{
    for (long k = 0; k < count; ++k) {
        const char *e = org + k * m->ext;
        for (long i = 0; i < m->n; ++i) {
            int z = hf_basics[m->basic[i]].size;
            memcpy(out, e + m->disp[i], (size_t) z);
            out += z;
        }
    }
}

void hf_unpack(char *org, long count, const hf_map_t *m, const unsigned char *in)
{
    for (long k = 0; k < count; ++k) {
        char *e = org + k * m->ext;
        for (long i = 0; i < m->n; ++i) {
            int z = hf_basics[m->basic[i]].size;
            memcpy(e + m->disp[i], in, (size_t) z);
            in += z;
        }
    }
}

static int describe(const hf_tree_t *tr, int k, char *buf, size_t len);

/* The map against MPI itself: one element packed by MPI_Pack from a
 * pattern must be the map's scalars in order (a generator that got a
 * constructor's typemap wrong would blame hiercoll for it). */
static void map_check_pack(MPI_Datatype t, const hf_map_t *m, const char *what)
{
    if (m->size <= 0 || m->text <= 0) {
        return;
    }
    size_t span = (size_t) m->text;
    unsigned char *src = hf_alloc(span), *mine = hf_alloc((size_t) m->size),
                  *theirs = hf_alloc((size_t) m->size);
    for (size_t i = 0; i < span; ++i) {
        src[i] = (unsigned char) (i * 131u + (i >> 8) * 7u + 1u);
    }
    const char *org = (const char *) src - m->tlb;
    hf_pack(org, 1, m, mine);
    int pos = 0;
    MPI_Pack(org, 1, t, theirs, (int) m->size, &pos, MPI_COMM_SELF);
    if (pos != m->size || 0 != memcmp(mine, theirs, (size_t) m->size)) {
        long k = 0;
        while (k < m->size && mine[k] == theirs[k]) {
            ++k;
        }
        fprintf(stderr, "hc_fuzz: generator: the map of %s differs from MPI_Pack's (%d of %ld "
                        "bytes packed; first difference at packed byte %ld)\n",
                what, pos, m->size, k);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(src);
    free(mine);
    free(theirs);
}

/* MPI's extents of node k's type into its map; the map must lie inside
 * the true extent, and the generator's invariant hold: lb <= true lb and
 * lb + extent >= true ub (count elements of it never overlap) */
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
            describe(tr, k, d, sizeof(d));
            fprintf(stderr,
                    "hc_fuzz: generator: scalar %ld at %ld outside the true extent %ld+%ld: %s\n",
                    i, m->disp[i], (long) tlb, (long) text, d);
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
    if (tr->gen >= 2 && TN_PRED != nd->kind) {
        describe(tr, k, d, sizeof(d));
        map_check_pack(nd->t, m, d);
    }
}

static int pick_pred(hf_rng_t *r, long max, int gen)
{
    int nb = hf_nbasics_of(gen);
    for (int tries = 0; tries < 64; ++tries) {
        int b = (int) hf_below(r, (uint64_t) nb);
        /* (MPI_C_LONG_DOUBLE_COMPLEX only as a whole type, never inside a
         * derived one: Open MPI 4.1.4 unpacks an element of it that a
         * fragment splits through 16-byte buffers, known issues) */
        if (hf_basics[b].size <= max && B_LDCOMPLEX != b && hf_basic_moves_whole(b)) {
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

/* a struct's bounds widened over its data where a field's explicit
 * bounds (resized; subarray and darray's extents) leave data outside */
static void widen(hf_node_t *nd)
{
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

/* a random order of n items */
static void shuffle(hf_rng_t *r, int *p, int n)
{
    for (int i = 0; i < n; ++i) {
        p[i] = i;
    }
    for (int i = n - 1; i > 0; --i) {
        int j = (int) hf_below(r, (uint64_t) i + 1), t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

/* linear index of idx[] in an array of sizes[] (C: the last dimension
 * fastest; Fortran: the first) */
static long linear(int nd, const int *sizes, const int *idx, int order_c)
{
    long l = 0;
    if (order_c) {
        for (int d = 0; d < nd; ++d) {
            l = l * sizes[d] + idx[d];
        }
    } else {
        for (int d = nd - 1; d >= 0; --d) {
            l = l * sizes[d] + idx[d];
        }
    }
    return l;
}

/* the elements of a subarray or darray: per dimension a list of indices
 * (in increasing order); the typemap walks them, the last dimension
 * fastest (C) or the first (Fortran) */
static void grid_map(hf_map_t *m, const hf_map_t *ch, int nd, const int *sizes, int **lists,
                     const int *lens, int order_c)
{
    long total = 1;
    for (int d = 0; d < nd; ++d) {
        total *= lens[d];
    }
    map_alloc(m, total * ch->n);
    long at = 0;
    int pos[3] = {0, 0, 0}, idx[3];
    for (long e = 0; e < total; ++e) {
        for (int d = 0; d < nd; ++d) {
            idx[d] = lists[d][pos[d]];
        }
        map_put(m, &at, ch, linear(nd, sizes, idx, order_c) * ch->ext);
        /* next position: the fastest dimension first */
        for (int s = 0; s < nd; ++s) {
            int d = order_c ? nd - 1 - s : s;
            if (++pos[d] < lens[d]) {
                break;
            }
            pos[d] = 0;
        }
    }
}

static int gen_node(hf_tree_t *tr, hf_rng_t *r, long max, int depth, int parent, int pick);

/* generation 2's constructors with blocks: hindexed (bytes), indexed
 * and indexed_block (elements), hindexed_block (bytes); blocks placed one
 * after the other in memory, listed in a random order */
static void gen_blocks(hf_tree_t *tr, int k, hf_rng_t *r, long max, int depth)
{
    hf_node_t *nd = &tr->node[k];
    int nb = 1 + (int) hf_below(r, HF_MAX_FIELDS);
    long per = max / (nb * 2) > 0 ? max / (nb * 2) : 1;
    int c = gen_node(tr, r, per, depth - 1, k, -1);
    nd = &tr->node[k];
    const hf_node_t *ch = &tr->node[c];
    nd->kids[0] = c;
    nd->nkids = 1;
    nd->count = nb;
    bool bytes = TN_HINDEXED == nd->kind || TN_HINDEXED_BLOCK == nd->kind;
    bool same = TN_INDEXED_BLOCK == nd->kind || TN_HINDEXED_BLOCK == nd->kind;
    long E = ch->map.ext;
    int bl0 = 1 + (int) hf_below(r, 3);
    if ((long) nb * bl0 * ch->map.size > max) {
        bl0 = 1;
    }
    int order[HF_MAX_FIELDS];
    shuffle(r, order, nb);
    /* slot s holds block order[s]; slots ascend in memory */
    long end = (long) hf_below(r, 33) - 16, tot = 0;
    int bls[HF_MAX_FIELDS], di[HF_MAX_FIELDS];
    MPI_Aint da[HF_MAX_FIELDS];
    for (int s = 0; s < nb; ++s) {
        int b = order[s];
        int bl = same ? bl0 : (int) hf_below(r, 3) + (hf_chance(r, 85) ? 1 : 0);
        if ((tot + bl) * ch->map.size > max && !same) {
            bl = 0;
        }
        long d;
        if (bytes) {
            /* data of the block from d + tlb to d + (bl-1)E + tlb + text */
            d = end - ch->map.tlb + (hf_chance(r, 50) ? 0 : (long) hf_below(r, 9));
            if (bl > 0) {
                end = d + (bl - 1) * E + ch->map.tlb + ch->map.text;
            }
        } else {
            /* in whole extents: the first multiple of E whose data begins at or after end */
            long need = end - ch->map.tlb;
            d = need >= 0 ? (need + E - 1) / E : -((-need) / E);
            d += (long) hf_below(r, 2);
            if (bl > 0) {
                end = (d + bl - 1) * E + ch->map.tlb + ch->map.text;
            }
        }
        nd->bl[b] = bl;
        nd->disp[b] = d;
        tot += bl;
    }
    if (0 == tot) {
        nd->bl[0] = 1; /* (every other block is empty: nothing to overlap) */
        tot = 1;
    }
    for (int b = 0; b < nb; ++b) {
        bls[b] = nd->bl[b];
        di[b] = (int) nd->disp[b];
        da[b] = (MPI_Aint) nd->disp[b];
    }
    switch (nd->kind) {
    case TN_INDEXED: MPI_Type_indexed(nb, bls, di, ch->t, &nd->t); break;
    case TN_HINDEXED: MPI_Type_create_hindexed(nb, bls, da, ch->t, &nd->t); break;
    case TN_INDEXED_BLOCK: MPI_Type_create_indexed_block(nb, bl0, di, ch->t, &nd->t); break;
    default: MPI_Type_create_hindexed_block(nb, bl0, da, ch->t, &nd->t); break;
    }
    hf_map_t *m = &nd->map;
    map_alloc(m, tot * ch->map.n);
    long at = 0;
    for (int b = 0; b < nb; ++b) {
        for (long j = 0; j < nd->bl[b]; ++j) {
            long shift = bytes ? nd->disp[b] + j * E : (nd->disp[b] + j) * E;
            map_put(m, &at, &ch->map, shift);
        }
    }
}

/* generation 2: subarray and darray of up to 3 dimensions */
static void gen_grid(hf_tree_t *tr, int k, hf_rng_t *r, long max, int depth)
{
    hf_node_t *nd = &tr->node[k];
    int dims = 1 + (int) hf_below(r, 3);
    int order_c = hf_chance(r, 50);
    nd->nd = dims;
    nd->order = order_c;
    int lens[3], *lists[3];
    long elems = 1;
    if (TN_SUBARRAY == nd->kind) {
        for (int d = 0; d < dims; ++d) {
            nd->a[d] = 1 + (int) hf_below(r, 6);
            nd->b[d] = 1 + (int) hf_below(r, (uint64_t) nd->a[d]);
            nd->c[d] = (int) hf_below(r, (uint64_t) (nd->a[d] - nd->b[d] + 1));
            lens[d] = nd->b[d];
            lists[d] = hf_alloc(sizeof(int) * (size_t) lens[d]);
            for (int i = 0; i < lens[d]; ++i) {
                lists[d][i] = nd->c[d] + i;
            }
            elems *= lens[d];
        }
    } else {
        /* darray: a process grid of psizes (row-major), this element's
         * process at coordinates that own at least one index each */
        int coord[3];
        nd->prank = 0;
        int P = 1;
        for (int d = 0; d < dims; ++d) {
            int g = 1 + (int) hf_below(r, 8), p = 1 + (int) hf_below(r, 3);
            int w = (int) hf_below(r, 3);
            int dist = 0 == w ? MPI_DISTRIBUTE_BLOCK : 1 == w ? MPI_DISTRIBUTE_CYCLIC
                                                               : MPI_DISTRIBUTE_NONE;
            if (MPI_DISTRIBUTE_NONE == dist) {
                p = 1;
            }
            int darg = MPI_DISTRIBUTE_DFLT_DARG, b;
            if (MPI_DISTRIBUTE_BLOCK == dist) {
                b = (g + p - 1) / p;
                if (hf_chance(r, 40)) {
                    darg = b + (int) hf_below(r, 2);
                    b = darg;
                }
            } else if (MPI_DISTRIBUTE_CYCLIC == dist) {
                b = 1;
                if (hf_chance(r, 60)) {
                    darg = 1 + (int) hf_below(r, 3);
                    b = darg;
                }
            } else {
                b = g;
            }
            /* coordinates that own something: c * b < g */
            int owners = (g + b - 1) / b;
            if (owners > p) {
                owners = p;
            }
            coord[d] = (int) hf_below(r, (uint64_t) owners);
            nd->a[d] = g;
            nd->b[d] = dist;
            nd->c[d] = darg;
            nd->d[d] = p;
            lists[d] = hf_alloc(sizeof(int) * (size_t) g);
            lens[d] = 0;
            if (MPI_DISTRIBUTE_CYCLIC == dist) {
                for (int s = coord[d] * b; s < g; s += p * b) {
                    for (int i = s; i < s + b && i < g; ++i) {
                        lists[d][lens[d]++] = i;
                    }
                }
            } else {
                for (int i = coord[d] * b; i < (coord[d] + 1) * b && i < g; ++i) {
                    lists[d][lens[d]++] = i;
                }
            }
            elems *= lens[d];
            P *= p;
        }
        for (int d = 0; d < dims; ++d) {
            nd->prank = nd->prank * nd->d[d] + coord[d];
        }
        nd->count = P;
    }
    long per = max / (elems > 0 ? elems : 1);
    int c = gen_node(tr, r, per > 0 ? per : 1, depth - 1, k, -1);
    nd = &tr->node[k];
    const hf_node_t *ch = &tr->node[c];
    nd->kids[0] = c;
    nd->nkids = 1;
    int ord = order_c ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    if (TN_SUBARRAY == nd->kind) {
        MPI_Type_create_subarray(dims, nd->a, nd->b, nd->c, ord, ch->t, &nd->t);
    } else {
        MPI_Type_create_darray(nd->count, nd->prank, dims, nd->a, nd->b, nd->c, nd->d, ord, ch->t,
                               &nd->t);
    }
    widen(nd);
    grid_map(&nd->map, &ch->map, dims, nd->a, lists, lens, order_c);
    for (int d = 0; d < dims; ++d) {
        free(lists[d]);
    }
}

static int gen_node(hf_tree_t *tr, hf_rng_t *r, long max, int depth, int parent, int pick)
{
    int k = tr->n++;
    hf_node_t *nd = &tr->node[k];
    memset(nd, 0, sizeof(*nd));
    nd->parent = parent;
    nd->t = MPI_DATATYPE_NULL;
    int w = (int) hf_below(r, 100);
    bool leaf = pick >= 0 || depth <= 0 || tr->n > HF_MAX_NODES - HF_MAX_FIELDS - 2 || max < 2;
    if (tr->gen <= 1) {
        nd->kind = leaf || w < 25 ? TN_PRED : w < 37 ? TN_CONTIG : w < 52 ? TN_VECTOR
                   : w < 62 ? TN_HVECTOR : w < 72 ? TN_INDEXED : w < 86 ? TN_STRUCT
                   : w < 95 ? TN_RESIZED : TN_DUP;
    } else {
        nd->kind = leaf || w < 22 ? TN_PRED : w < 30 ? TN_CONTIG : w < 40 ? TN_VECTOR
                   : w < 46 ? TN_HVECTOR : w < 52 ? TN_INDEXED : w < 58 ? TN_HINDEXED
                   : w < 63 ? TN_INDEXED_BLOCK : w < 67 ? TN_HINDEXED_BLOCK
                   : w < 73 ? TN_SUBARRAY : w < 78 ? TN_DARRAY : w < 90 ? TN_STRUCT
                   : w < 97 ? TN_RESIZED : TN_DUP;
    }
    if (TN_STRUCT == nd->kind && tr->n + HF_MAX_FIELDS > HF_MAX_NODES - 1) {
        nd->kind = TN_PRED;
    }
    hf_map_t *m = &nd->map;
    switch (nd->kind) {
    case TN_PRED: {
        nd->basic = pick >= 0 ? pick : pick_pred(r, max, tr->gen);
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
        int c = gen_node(tr, r, max / (cnt * bl) > 0 ? max / (cnt * bl) : 1, depth - 1, k, -1);
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
        /* generation 2: a quarter of the strides negative */
        bool neg = tr->gen >= 2 && TN_CONTIG != nd->kind && hf_chance(r, 25);
        if (TN_CONTIG == nd->kind) {
            MPI_Type_contiguous((int) cnt, ch->t, &nd->t);
            for (long i = 0; i < cnt; ++i) {
                map_put(m, &at, &ch->map, i * E);
            }
        } else if (TN_VECTOR == nd->kind) {
            nd->stride = bl + (long) hf_below(r, 3);
            if (neg) {
                nd->stride = -nd->stride;
                if (-1 == nd->stride * E) {
                    /* (Open MPI 4.1.4 takes a byte stride of -1 for "the
                     * default extent", +1: known issues) */
                    nd->stride = -2;
                }
            }
            MPI_Type_vector((int) cnt, (int) bl, (int) nd->stride, ch->t, &nd->t);
            for (long i = 0; i < cnt; ++i) {
                for (long j = 0; j < bl; ++j) {
                    map_put(m, &at, &ch->map, (i * nd->stride + j) * E);
                }
            }
        } else {
            nd->stride = bl * E + (hf_chance(r, 50) ? 0 : (long) hf_below(r, 13));
            if (neg) {
                nd->stride = -1 == -nd->stride ? -2 : -nd->stride; /* (as above) */
            }
            MPI_Type_create_hvector((int) cnt, (int) bl, (MPI_Aint) nd->stride, ch->t, &nd->t);
            for (long i = 0; i < cnt; ++i) {
                for (long j = 0; j < bl; ++j) {
                    map_put(m, &at, &ch->map, i * nd->stride + j * E);
                }
            }
        }
        break;
    }
    case TN_INDEXED:
        if (tr->gen >= 2) {
            gen_blocks(tr, k, r, max, depth);
            nd = &tr->node[k];
            break;
        } else {
            int nb = 1 + (int) hf_below(r, HF_MAX_FIELDS);
            long per = max / (nb * 2) > 0 ? max / (nb * 2) : 1;
            int c = gen_node(tr, r, per, depth - 1, k, -1);
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
        }
        break;
    case TN_HINDEXED:
    case TN_INDEXED_BLOCK:
    case TN_HINDEXED_BLOCK:
        gen_blocks(tr, k, r, max, depth);
        nd = &tr->node[k];
        break;
    case TN_SUBARRAY:
    case TN_DARRAY:
        gen_grid(tr, k, r, max, depth);
        nd = &tr->node[k];
        break;
    case TN_STRUCT: {
        int nf = 1 + (int) hf_below(r, HF_MAX_FIELDS - 1);
        long left = max, end = 0, tot = 0;
        int bls[HF_MAX_FIELDS];
        MPI_Aint dsp[HF_MAX_FIELDS];
        MPI_Datatype tys[HF_MAX_FIELDS];
        for (int i = 0; i < nf; ++i) {
            long share = left / (nf - i) > 0 ? left / (nf - i) : 1;
            int c = gen_node(tr, r, share, depth - 1, k, -1);
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
        widen(nd);
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
        int c = gen_node(tr, r, max, depth - 1, k, -1);
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

void hf_tree_gen(hf_tree_t *tr, hf_rng_t *r, long max_size, int depth, int pick_basic, int shape,
                 int gen)
{
    tr->n = 0;
    tr->gen = gen;
    if (1 != shape) {
        gen_node(tr, r, max_size < 1 ? 1 : max_size, depth, -1, pick_basic);
        return;
    }
    /* a contiguous element of max_size bytes or just under: contig(k, b)
     * or vector(k, 1, 1, b) of a basic type without holes */
    hf_node_t *nd = &tr->node[tr->n++];
    memset(nd, 0, sizeof(*nd));
    nd->parent = -1;
    int b;
    do {
        b = pick_pred(r, max_size, gen);
    } while (BK_PAIR == hf_basics[b].kind || hf_basics[b].size != hf_basics[b].extent);
    int c = gen_node(tr, r, 1, 0, 0, b);
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

unsigned hf_tree_kinds(const hf_tree_t *tr, int k0)
{
    unsigned bits = 0;
    for (int k = 0; k < tr->n; ++k) {
        if (hf_tree_below(tr, k, k0)) {
            bits |= 1u << tr->node[k].kind;
        }
    }
    return bits;
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
    case TN_HINDEXED:
    case TN_INDEXED_BLOCK:
    case TN_HINDEXED_BLOCK: {
        bool bytes = TN_HINDEXED == nd->kind || TN_HINDEXED_BLOCK == nd->kind;
        OUT("%s(", hf_tn_names[nd->kind]);
        for (int i = 0; i < nd->count; ++i) {
            OUT("%d@%ld%s,", nd->bl[i], nd->disp[i], bytes ? "B" : "");
        }
        KID(0);
        OUT(")");
        break;
    }
    case TN_SUBARRAY:
    case TN_DARRAY:
        OUT("%s(%s", hf_tn_names[nd->kind], nd->order ? "C" : "F");
        for (int d = 0; d < nd->nd; ++d) {
            if (TN_SUBARRAY == nd->kind) {
                OUT(",%d:%d+%d", nd->a[d], nd->c[d], nd->b[d]);
            } else {
                OUT(",%d:%s/%d/%d", nd->a[d],
                    MPI_DISTRIBUTE_BLOCK == nd->b[d] ? "block"
                    : MPI_DISTRIBUTE_CYCLIC == nd->b[d] ? "cyclic" : "none",
                    nd->c[d], nd->d[d]);
            }
        }
        if (TN_DARRAY == nd->kind) {
            OUT(",rank %d of %d", nd->prank, nd->count);
        }
        OUT(",");
        KID(0);
        OUT(")");
        if (nd->rext) {
            OUT("~resized(lb %ld,ext %ld)", nd->rlb, nd->rext);
        }
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

/* a packed struct of the first `scalars` scalars of m, runs of one basic
 * type each */
static MPI_Datatype packed_runs(const hf_map_t *m, long scalars, hf_map_t *out)
{
    memset(out, 0, sizeof(*out));
    long runs = 0;
    for (long i = 0; i < scalars; ++i) {
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
    map_alloc(out, scalars);
    long at = -1, off = 0;
    for (long i = 0; i < scalars; ++i) {
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

MPI_Datatype hf_packed_twin(const hf_map_t *m, hf_map_t *out)
{
    return packed_runs(m, m->n, out);
}

MPI_Datatype hf_packed_prefix(const hf_map_t *m, long scalars, hf_map_t *out)
{
    MPI_Datatype t = packed_runs(m, scalars, out);
    if (MPI_DATATYPE_NULL != t) {
        map_check_pack(t, out, "a packed prefix");
    }
    return t;
}

long hf_map_period(const hf_map_t *m)
{
    for (long p = 1; p < m->n; ++p) {
        if (0 != m->n % p) {
            continue;
        }
        long i = p;
        while (i < m->n && m->basic[i] == m->basic[i - p]) {
            ++i;
        }
        if (i == m->n) {
            return p;
        }
    }
    return m->n;
}

void hf_map_repeat(const hf_map_t *m, long count, hf_map_t *out)
{
    map_alloc(out, m->n * count);
    long at = 0;
    for (long k = 0; k < count; ++k) {
        map_put(out, &at, m, k * m->ext);
    }
    out->size = m->size * count;
}

/* ------------------------------------------------------------------ */
/* ops                                                                 */
/* ------------------------------------------------------------------ */

const char *hf_op_names[OP_N] = {"MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN", "MPI_LAND",
                                 "MPI_LOR", "MPI_LXOR", "MPI_BAND", "MPI_BOR", "MPI_BXOR",
                                 "MPI_MINLOC", "MPI_MAXLOC", "user-commutative",
                                 "user-noncommutative"};
static MPI_Op user_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};

/* The types the user ops may meet: every running case's (several at once
 * under threads; a request's op may run in any thread's MPI call). */
#define HF_NREG 256
static struct {
    MPI_Datatype t;
    const hf_map_t *m;
} reg[HF_NREG];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static long unknown_calls;

void hf_user_types_add(MPI_Datatype t, const hf_map_t *m)
{
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < HF_NREG; ++i) {
        if (NULL == reg[i].m) {
            reg[i].t = t;
            reg[i].m = m;
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
}

/* (by type and map: threads may hold one predefined type at once, each
 * with a map of its own that goes with its case) */
void hf_user_types_remove(MPI_Datatype t, const hf_map_t *m)
{
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < HF_NREG; ++i) {
        if (m == reg[i].m && reg[i].t == t) {
            reg[i].m = NULL;
            break;
        }
    }
    pthread_mutex_unlock(&reg_lock);
}

long hf_user_op_unknown(void)
{
    return __atomic_load_n(&unknown_calls, __ATOMIC_RELAXED);
}

static const hf_map_t *lookup(MPI_Datatype t)
{
    const hf_map_t *m = NULL;
    pthread_mutex_lock(&reg_lock);
    for (int i = 0; i < HF_NREG && NULL == m; ++i) {
        if (NULL != reg[i].m && reg[i].t == t) {
            m = reg[i].m;
        }
    }
    pthread_mutex_unlock(&reg_lock);
    for (int b = 0; b < B_N && NULL == m; ++b) {
        if (hf_basics[b].t == t) {
            m = &basic_map[b];
        }
    }
    return m;
}

/* one scalar of z bytes: in pieces of up to 8 */
static inline void scalar_op(const unsigned char *x, unsigned char *y, int z, int noncomm)
{
    for (int o = 0; o < z; o += 8) {
        int p = z - o < 8 ? z - o : 8;
        uint64_t a = 0, b = 0;
        memcpy(&a, x + o, (size_t) p);
        memcpy(&b, y + o, (size_t) p);
        if (!noncomm) {
            b = a + b;
        } else {
            int h = 4 * p;
            uint64_t mask = (h >= 64) ? ~0ull : ((1ull << h) - 1);
            uint64_t ax = ((a >> h) & mask) | 1, bx = a & mask;
            uint64_t ay = ((b >> h) & mask) | 1, by = b & mask;
            b = (((ax * ay) & mask) << h) | ((ax * by + bx) & mask);
        }
        memcpy(y + o, &b, (size_t) p);
    }
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt, int noncomm)
{
    const hf_map_t *m = lookup(*dt);
    if (NULL == m) {
        __atomic_add_fetch(&unknown_calls, 1, __ATOMIC_RELAXED);
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
        return BK_INT_S == k || BK_INT_U == k || BK_FLOAT == k || BK_COMPLEX == k;
    case OP_MAX:
    case OP_MIN:
        /* (Open MPI 4.1.4's own MAX and MIN compare MPI_UNSIGNED_LONG as
         * signed: 0x7000000000000002 is its max of that and
         * 0xf000000000000001, so hiercoll, which calls them, cannot be
         * right there; MPI_UINT64_T and MPI_UNSIGNED_LONG_LONG are) */
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

/* ---- the reference's predefined ops, on packed elements ---- */

static int64_t get_s(const unsigned char *p, int z)
{
    switch (z) {
    case 1: { int8_t v; memcpy(&v, p, 1); return v; }
    case 2: { int16_t v; memcpy(&v, p, 2); return v; }
    case 4: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static uint64_t get_u(const unsigned char *p, int z)
{
    uint64_t v = 0;
    memcpy(&v, p, (size_t) z);
    return v;
}

static void put_u(unsigned char *p, int z, uint64_t v)
{
    memcpy(p, &v, (size_t) z); /* (little endian: the low bytes) */
}

static void put_ld(unsigned char *p, long double v)
{
    memcpy(p, &v, LD_VALUE); /* (the padding stays: undefined in a result) */
}

static long double get_f(const unsigned char *p, int z)
{
    if (4 == z) { float f; memcpy(&f, p, 4); return f; }
    if (8 == z) { double d; memcpy(&d, p, 8); return d; }
    long double l; memcpy(&l, p, sizeof(l)); return l;
}

static void put_f(unsigned char *p, int z, long double v)
{
    if (4 == z) { float f = (float) v; memcpy(p, &f, 4); }
    else if (8 == z) { double d = (double) v; memcpy(p, &d, 8); }
    else put_ld(p, v);
}

/* one scalar (not a pair): y = x op y */
static void pre_scalar(int op, int b, const unsigned char *x, unsigned char *y)
{
    const hf_basic_t *bt = &hf_basics[b];
    int z = bt->size;
    if (BK_FLOAT == bt->kind) {
        long double a = get_f(x, z), c = get_f(y, z), r = c;
        switch (op) {
        case OP_SUM: r = a + c; break;
        case OP_PROD: r = a * c; break;
        case OP_MAX: r = a > c ? a : c; break;
        case OP_MIN: r = a < c ? a : c; break;
        }
        put_f(y, z, r);
        return;
    }
    if (BK_COMPLEX == bt->kind) {
        int h = z / 2;
        long double ar = get_f(x, h), ai = get_f(x + h, h), cr = get_f(y, h), ci = get_f(y + h, h);
        long double rr, ri;
        if (OP_SUM == op) {
            rr = ar + cr;
            ri = ai + ci;
        } else {
            rr = ar * cr - ai * ci;
            ri = ar * ci + ai * cr;
        }
        put_f(y, h, rr);
        put_f(y + h, h, ri);
        return;
    }
    bool sgn = BK_INT_S == bt->kind;
    uint64_t a = get_u(x, z), c = get_u(y, z), r = c;
    switch (op) {
    case OP_SUM: r = a + c; break;
    case OP_PROD: r = a * c; break;
    case OP_MAX: r = sgn ? (get_s(x, z) > get_s(y, z) ? a : c) : (a > c ? a : c); break;
    case OP_MIN: r = sgn ? (get_s(x, z) < get_s(y, z) ? a : c) : (a < c ? a : c); break;
    case OP_LAND: r = (0 != a) && (0 != c); break;
    case OP_LOR: r = (0 != a) || (0 != c); break;
    case OP_LXOR: r = (0 != a) != (0 != c); break;
    case OP_BAND: r = a & c; break;
    case OP_BOR: r = a | c; break;
    case OP_BXOR: r = a ^ c; break;
    }
    put_u(y, z, r);
}

/* MINLOC/MAXLOC on a packed pair (value then int index) */
static void pre_pair(int op, int b, const unsigned char *x, unsigned char *y)
{
    const hf_basic_t *bt = &hf_basics[b];
    const hf_basic_t *vt = &hf_basics[bt->comp[0]];
    int z = vt->size;
    int32_t xi, yi;
    memcpy(&xi, x + z, 4);
    memcpy(&yi, y + z, 4);
    int cmp; /* x against y */
    if (BK_FLOAT == vt->kind) {
        long double a = get_f(x, z), c = get_f(y, z);
        cmp = a < c ? -1 : a > c ? 1 : 0;
    } else {
        int64_t a = get_s(x, z), c = get_s(y, z);
        cmp = a < c ? -1 : a > c ? 1 : 0;
    }
    bool take = OP_MINLOC == op ? cmp < 0 : cmp > 0;
    if (take) {
        memcpy(y, x, (size_t) z + 4);
    } else if (0 == cmp && xi < yi) {
        memcpy(y + z, &xi, 4);
    }
}

void hf_reduce_packed(int op, const hf_map_t *m, const unsigned char *in, unsigned char *inout,
                      long count)
{
    if (op >= OP_USER_COMM) {
        int noncomm = OP_USER_NONCOMM == op;
        for (long k = 0; k < count; ++k) {
            for (long i = 0; i < m->n; ++i) {
                int z = hf_basics[m->basic[i]].size;
                scalar_op(in, inout, z, noncomm);
                in += z;
                inout += z;
            }
        }
        return;
    }
    /* a predefined type: one scalar, or a pair of two */
    int b = m->basic[0];
    if (2 == m->n) {
        for (int p = HF_NBASICS_GEN1 - 5; p < B_N; ++p) {
            if (BK_PAIR == hf_basics[p].kind && hf_basics[p].comp[0] == m->basic[0]
                && hf_basics[p].comp[1] == m->basic[1]) {
                b = p;
                break;
            }
        }
        for (long k = 0; k < count; ++k) {
            pre_pair(op, b, in, inout);
            in += m->size;
            inout += m->size;
        }
        return;
    }
    int z = hf_basics[b].size;
    for (long k = 0; k < count; ++k) {
        pre_scalar(op, b, in, inout);
        in += z;
        inout += z;
    }
}

int hf_value_mask(int b, unsigned char *mark, int len)
{
    int z = hf_basics[b].size, undef = 0;
    for (int i = 0; i < len && i < z; ++i) {
        mark[i] = 1;
    }
    if (B_LDOUBLE == b || B_LDCOMPLEX == b) {
        int part = (int) sizeof(long double);
        for (int i = 0; i < z && i < len; ++i) {
            if (i % part >= LD_VALUE) {
                mark[i] = 0;
                undef = 1;
            }
        }
    }
    return undef;
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

void hf_fill_values(char *buf, const hf_map_t *m, long count, int op, hf_rng_t *r)
{
    for (long k = 0; k < count; ++k) {
        for (long i = 0; i < m->n; ++i) {
            unsigned char *p = (unsigned char *) buf + k * m->ext + m->disp[i];
            int b = m->basic[i], z = hf_basics[b].size, kind = hf_basics[b].kind;
            if (op < 0 || op >= OP_USER_COMM) {
                hf_fill_bytes(p, (size_t) z, r);
            } else if (BK_COMPLEX == kind && OP_PROD == op) {
                /* 1, i, -1 or -i: every product exact in any order (a
                 * product of Gaussian integers outgrows the mantissa) */
                int u = (int) hf_below(r, 4), h = z / 2;
                (void) hf_below(r, 4); /* (the draws of the other ops) */
                put_f(p, h, (long double) (0 == u ? 1 : 2 == u ? -1 : 0));
                put_f(p + h, h, (long double) (1 == u ? 1 : 3 == u ? -1 : 0));
            } else if (BK_FLOAT == kind || BK_COMPLEX == kind) {
                /* small integers: every sum, product, max exact in any order */
                int parts = BK_COMPLEX == kind ? 2 : 1, h = z / parts;
                for (int q = 0; q < parts; ++q) {
                    long double v = OP_PROD == op ? (long double) ((int) hf_below(r, 4) - 2)
                                                  : (long double) ((int) hf_below(r, 9) - 4);
                    if (OP_PROD == op && 0 == v && 1 == parts) {
                        v = 1;
                    }
                    put_f(p + q * h, h, v);
                }
            } else if (BK_BOOL == kind) {
                *p = (unsigned char) hf_below(r, 2);
            } else if (OP_MINLOC == op || OP_MAXLOC == op) {
                put_u(p, z, (uint64_t) ((int64_t) hf_below(r, 7) - 3)); /* ties */
            } else if (OP_LAND == op || OP_LOR == op || OP_LXOR == op) {
                put_u(p, z, hf_chance(r, 40) ? 0 : hf_next(r));
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
