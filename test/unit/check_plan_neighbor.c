/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Neighborhood collectives (coll_hiercoll_plan_neighbor.c) through the
 * simulator: every rank of rings, Cartesian grids and tori (dimensions of
 * size 1 and 2, periodic or not), symmetric graphs with repeated edges and
 * random directed graphs with asymmetric in and out degrees.  The
 * reference says where each send block must land by MPI's rules, worked
 * out here independently of the planner: Cartesian blocks by direction
 * (what goes to the positive neighbor lands in its negative block), graph
 * blocks by the order of repeated pairs.
 */
#include <string.h>

#include "coll_hiercoll_plan_neighbor.h"
#include "unit_common.h"

#define BLOCK_SHIFT 1000000LL

typedef struct topo {
    int n;
    bool cart;
    int *indeg, *outdeg;
    int **src, **dst;
    int **tblk; /* rank r's send block j lands in block tblk[r][j] of dst[r][j] */
} topo_t;

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n > 0 ? n : 1, size > 0 ? size : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

static topo_t *topo_new(int n, bool cart)
{
    topo_t *t = xcalloc(1, sizeof(*t));
    t->n = n;
    t->cart = cart;
    t->indeg = xcalloc((size_t) n, sizeof(int));
    t->outdeg = xcalloc((size_t) n, sizeof(int));
    t->src = xcalloc((size_t) n, sizeof(int *));
    t->dst = xcalloc((size_t) n, sizeof(int *));
    t->tblk = xcalloc((size_t) n, sizeof(int *));
    return t;
}

static void topo_free(topo_t *t)
{
    for (int r = 0; r < t->n; ++r) {
        free(t->src[r]);
        free(t->dst[r]);
        free(t->tblk[r]);
    }
    free(t->indeg);
    free(t->outdeg);
    free(t->src);
    free(t->dst);
    free(t->tblk);
    free(t);
}

/* Where every send block lands, and a check that every receive block with
 * a process is fed exactly once by that process. */
static void topo_targets(topo_t *t)
{
    int n = t->n;
    int **fed = xcalloc((size_t) n, sizeof(int *));
    for (int r = 0; r < n; ++r) {
        fed[r] = xcalloc((size_t) t->indeg[r], sizeof(int));
        t->tblk[r] = xcalloc((size_t) t->outdeg[r], sizeof(int));
    }
    for (int r = 0; r < n; ++r) {
        for (int j = 0; j < t->outdeg[r]; ++j) {
            int s = t->dst[r][j], blk = -1;
            if (s < 0) {
                t->tblk[r][j] = -1;
                continue;
            }
            if (t->cart) {
                blk = j ^ 1; /* positive (2d+1) lands in negative (2d) */
            } else {
                int k = 0; /* the k-th time s is a destination of r... */
                for (int jj = 0; jj < j; ++jj) {
                    k += t->dst[r][jj] == s;
                }
                for (int i = 0; i < t->indeg[s] && blk < 0; ++i) {
                    if (t->src[s][i] == r && 0 == k--) { /* ...its k-th source r */
                        blk = i;
                    }
                }
            }
            ck_assert_msg(blk >= 0 && blk < t->indeg[s] && t->src[s][blk] == r,
                          "topology: %d's block %d has no receive at %d", r, j, s);
            fed[s][blk]++;
            t->tblk[r][j] = blk;
        }
    }
    for (int r = 0; r < n; ++r) {
        for (int i = 0; i < t->indeg[r]; ++i) {
            ck_assert_int_eq(fed[r][i], t->src[r][i] >= 0 ? 1 : 0);
        }
        free(fed[r]);
    }
    free(fed);
}

/* A Cartesian grid, ranks in row-major order (the last dimension fastest). */
static topo_t *topo_cart(int ndims, const int *dims, const bool *periods)
{
    int n = 1;
    for (int d = 0; d < ndims; ++d) {
        n *= dims[d];
    }
    topo_t *t = topo_new(n, true);
    for (int r = 0; r < n; ++r) {
        t->indeg[r] = t->outdeg[r] = 2 * ndims;
        t->src[r] = xcalloc((size_t) (2 * ndims), sizeof(int));
        t->dst[r] = xcalloc((size_t) (2 * ndims), sizeof(int));
        int stride = n;
        for (int d = 0; d < ndims; ++d) {
            stride /= dims[d];
            int c = (r / stride) % dims[d];
            for (int dir = 0; dir < 2; ++dir) {
                int nc = c + (dir ? 1 : -1), peer = -1;
                if (periods[d] || (nc >= 0 && nc < dims[d])) {
                    nc = (nc + dims[d]) % dims[d];
                    peer = r + (nc - c) * stride;
                }
                t->src[r][2 * d + dir] = t->dst[r][2 * d + dir] = peer;
            }
        }
    }
    topo_targets(t);
    return t;
}

/* A random directed graph: out-degrees 0..maxdeg, repeated edges and
 * self-loops allowed; each rank's sources in a random order (the order of
 * repeated pairs kept, as MPI matches them). */
static topo_t *topo_random(int n, int maxdeg, uint64_t *seed, bool symmetric)
{
    topo_t *t = topo_new(n, false);
    int cap = n * (maxdeg + 1) * 2 + 1;
    int *from = xcalloc((size_t) cap, sizeof(int)), *to = xcalloc((size_t) cap, sizeof(int));
    int ne = 0;
    for (int r = 0; r < n; ++r) {
        int deg = (int) (unit_rand(seed) % (uint64_t) (maxdeg + 1));
        for (int e = 0; e < deg; ++e) {
            int s = (int) (unit_rand(seed) % (uint64_t) n);
            if (symmetric && s < r) {
                continue; /* added from the other side */
            }
            from[ne] = r;
            to[ne++] = s;
            if (symmetric && s != r) {
                from[ne] = s;
                to[ne++] = r;
            }
        }
    }
    /* shuffle the edges: each rank's lists follow this order */
    for (int e = ne - 1; e > 0; --e) {
        int k = (int) (unit_rand(seed) % (uint64_t) (e + 1));
        int f = from[e], g = to[e];
        from[e] = from[k];
        to[e] = to[k];
        from[k] = f;
        to[k] = g;
    }
    for (int e = 0; e < ne; ++e) {
        t->outdeg[from[e]]++;
        t->indeg[to[e]]++;
    }
    for (int r = 0; r < n; ++r) {
        t->src[r] = xcalloc((size_t) t->indeg[r], sizeof(int));
        t->dst[r] = xcalloc((size_t) t->outdeg[r], sizeof(int));
        t->indeg[r] = t->outdeg[r] = 0;
    }
    for (int e = 0; e < ne; ++e) {
        t->dst[from[e]][t->outdeg[from[e]]++] = to[e];
        t->src[to[e]][t->indeg[to[e]]++] = from[e];
    }
    if (symmetric) { /* a graph topology: one list, sources = destinations */
        for (int r = 0; r < n; ++r) {
            ck_assert_int_eq(t->indeg[r], t->outdeg[r]);
            /* pairs (r, s) and (s, r) were added together, so the lists
             * can be the same for both roles only after sorting by peer */
            for (int a = 1; a < t->indeg[r]; ++a) {
                for (int b = a; b > 0 && t->dst[r][b - 1] > t->dst[r][b]; --b) {
                    int x = t->dst[r][b];
                    t->dst[r][b] = t->dst[r][b - 1];
                    t->dst[r][b - 1] = x;
                }
            }
            memcpy(t->src[r], t->dst[r], sizeof(int) * (size_t) t->indeg[r]);
        }
    }
    free(from);
    free(to);
    topo_targets(t);
    return t;
}

/* ------------------------------------------------------------------ */
/* Layouts and the plans                                                */
/* ------------------------------------------------------------------ */

enum { K_ALLGATHER, K_ALLGATHERV, K_ALLTOALL, K_ALLTOALLV, K_ALLTOALLW, K_N };
static const char *kname[K_N] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

typedef struct layout {
    const topo_t *t;
    int kind;
    int scount, rcount; /* regular kinds */
    int **sc, **sd, **rc, **rd; /* per rank and block; allgatherv: sc[r][0] */
    size_t **ssz, **rsz;        /* alltoallw: signature bytes per element */
} layout_t;

static hcp_neighbors_t nb_of(const topo_t *t, int rank)
{
    hcp_neighbors_t nb = {.indeg = t->indeg[rank],
                          .outdeg = t->outdeg[rank],
                          .sources = t->src[rank],
                          .dests = t->dst[rank],
                          .cart = t->cart};
    return nb;
}

static int plan_neighbor(hcp_plan_t *p, int rank, void *arg)
{
    layout_t *l = arg;
    hcp_neighbors_t nb = nb_of(l->t, rank);
    switch (l->kind) {
    case K_ALLGATHER:
        return hcp_neighbor_allgatherv(p, &nb, l->scount, 4, NULL, NULL, l->rcount, 4);
    case K_ALLGATHERV:
        return hcp_neighbor_allgatherv(p, &nb, l->sc[rank][0], 4, l->rc[rank], l->rd[rank], 0, 4);
    case K_ALLTOALL:
        return hcp_neighbor_alltoallv(p, &nb, NULL, NULL, l->scount, 4, NULL, NULL, l->rcount, 4);
    case K_ALLTOALLV:
        return hcp_neighbor_alltoallv(p, &nb, l->sc[rank], l->sd[rank], 0, 4, l->rc[rank],
                                      l->rd[rank], 0, 4);
    default: {
        int od = nb.outdeg, id = nb.indeg;
        ptrdiff_t *sd = xcalloc((size_t) od, sizeof(ptrdiff_t));
        ptrdiff_t *rd = xcalloc((size_t) id, sizeof(ptrdiff_t));
        for (int j = 0; j < od; ++j) {
            sd[j] = l->sd[rank][j]; /* bytes: the simulator's unit here */
        }
        for (int i = 0; i < id; ++i) {
            rd[i] = l->rd[rank][i];
        }
        int rc = hcp_neighbor_alltoallw(p, &nb, l->sc[rank], sd, l->ssz[rank], l->rc[rank], rd,
                                        l->rsz[rank]);
        free(sd);
        free(rd);
        return rc;
    }
    }
}

/* Random non-overlapping displacements for counts c[0..k), in a random
 * order with gaps; returns the span. */
static int place_blocks(const int *c, int *d, int k, uint64_t *seed)
{
    int *order = xcalloc((size_t) k, sizeof(int)), pos = 0;
    for (int i = 0; i < k; ++i) {
        order[i] = i;
    }
    for (int i = k - 1; i > 0; --i) {
        int x = (int) (unit_rand(seed) % (uint64_t) (i + 1)), y = order[i];
        order[i] = order[x];
        order[x] = y;
    }
    for (int i = 0; i < k; ++i) {
        d[order[i]] = pos;
        pos += c[order[i]] + (int) (unit_rand(seed) % 3);
    }
    free(order);
    return pos;
}

static layout_t *layout_new(const topo_t *t, int kind, uint64_t *seed)
{
    int n = t->n;
    layout_t *l = xcalloc(1, sizeof(*l));
    l->t = t;
    l->kind = kind;
    l->scount = l->rcount = 1 + (int) (unit_rand(seed) % 3);
    if (0 == unit_rand(seed) % 5) {
        l->scount = l->rcount = 0;
    }
    if (K_ALLGATHER == kind || K_ALLTOALL == kind) {
        return l;
    }
    l->sc = xcalloc((size_t) n, sizeof(int *));
    l->sd = xcalloc((size_t) n, sizeof(int *));
    l->rc = xcalloc((size_t) n, sizeof(int *));
    l->rd = xcalloc((size_t) n, sizeof(int *));
    l->ssz = xcalloc((size_t) n, sizeof(size_t *));
    l->rsz = xcalloc((size_t) n, sizeof(size_t *));
    for (int r = 0; r < n; ++r) {
        int od = t->outdeg[r], id = t->indeg[r];
        l->sc[r] = xcalloc((size_t) od + 1, sizeof(int));
        l->sd[r] = xcalloc((size_t) od + 1, sizeof(int));
        l->rc[r] = xcalloc((size_t) id, sizeof(int));
        l->rd[r] = xcalloc((size_t) id, sizeof(int));
        l->ssz[r] = xcalloc((size_t) od, sizeof(size_t));
        l->rsz[r] = xcalloc((size_t) id, sizeof(size_t));
        for (int i = 0; i < id; ++i) {
            l->rc[r][i] = (int) (unit_rand(seed) % 4); /* no process: any count */
            l->rsz[r][i] = 1;
        }
    }
    for (int r = 0; r < n; ++r) {
        if (K_ALLGATHERV == kind) {
            l->sc[r][0] = (int) (unit_rand(seed) % 4);
        }
        for (int j = 0; j < t->outdeg[r]; ++j) {
            l->sc[r][j] = K_ALLGATHERV == kind ? l->sc[r][0] : (int) (unit_rand(seed) % 4);
            l->ssz[r][j] = 0 == unit_rand(seed) % 7 ? 0 : 1; /* a type of no bytes */
            int s = t->dst[r][j];
            if (s >= 0) {
                l->rc[s][t->tblk[r][j]] = l->sc[r][j];
                l->rsz[s][t->tblk[r][j]] = l->ssz[r][j];
            }
        }
    }
    for (int r = 0; r < n; ++r) {
        if (K_ALLGATHERV != kind) {
            place_blocks(l->sc[r], l->sd[r], t->outdeg[r], seed);
        }
        place_blocks(l->rc[r], l->rd[r], t->indeg[r], seed);
    }
    return l;
}

static void layout_free(layout_t *l)
{
    for (int r = 0; l->sc && r < l->t->n; ++r) {
        free(l->sc[r]);
        free(l->sd[r]);
        free(l->rc[r]);
        free(l->rd[r]);
        free(l->ssz[r]);
        free(l->rsz[r]);
    }
    free(l->sc);
    free(l->sd);
    free(l->rc);
    free(l->rd);
    free(l->ssz);
    free(l->rsz);
    free(l);
}

/* Bytes per element in the simulator: ints, except alltoallw's bytes. */
static int64_t esz(const layout_t *l)
{
    return K_ALLTOALLW == l->kind ? 1 : 4;
}

/* Send block j of rank r: element offset, elements, bytes. */
static void sblock(const layout_t *l, int r, int j, int64_t *off, int64_t *cnt, int64_t *bytes)
{
    switch (l->kind) {
    case K_ALLGATHER:
        *off = 0, *cnt = l->scount;
        break;
    case K_ALLGATHERV:
        *off = 0, *cnt = l->sc[r][0];
        break;
    case K_ALLTOALL:
        *off = (int64_t) j * l->scount, *cnt = l->scount;
        break;
    default:
        *off = l->sd[r][j], *cnt = l->sc[r][j];
        break;
    }
    *bytes = *cnt * esz(l) * (K_ALLTOALLW == l->kind ? (int64_t) l->ssz[r][j] : 1);
}

static void rblock(const layout_t *l, int r, int i, int64_t *off, int64_t *cnt)
{
    if (K_ALLGATHER == l->kind || K_ALLTOALL == l->kind) {
        *off = (int64_t) i * l->rcount, *cnt = l->rcount;
    } else {
        *off = l->rd[r][i], *cnt = l->rc[r][i];
    }
}

static bool gathers(const layout_t *l)
{
    return K_ALLGATHER == l->kind || K_ALLGATHERV == l->kind;
}

/* Run one layout on every rank and check every receive block: the block
 * sent to it, byte for byte, or untouched when no process (or no byte)
 * feeds it.  Also checks the messages each rank sends. */
static void run_layout(const topo_t *t, int kind, uint64_t *seed, const char *what)
{
    int n = t->n;
    layout_t *l = layout_new(t, kind, seed);
    sim_t *s = sim_new(n, true);
    UNIT_PLAN(s, plan_neighbor, l, NULL, NULL);
    sim_val_t blank = sim_input(n + 7);
    int64_t e = esz(l);
    for (int r = 0; r < n; ++r) {
        sim_set(s, r, HCP_RBUF, 0, 1 << 20, blank);
        for (int j = 0; j < (gathers(l) ? 1 : t->outdeg[r]); ++j) {
            int64_t off, cnt, bytes;
            sblock(l, r, j, &off, &cnt, &bytes);
            sim_set(s, r, HCP_SBUF, off * e, cnt * e,
                    sim_shifted(sim_input(r), j * BLOCK_SHIFT - off * e));
        }
    }
    UNIT_RUN(s, NULL, "%s %s n=%d", kname[kind], what, n);
    /* expected messages: one per destination with bytes */
    for (int r = 0; r < n; ++r) {
        int64_t msgs = 0, sent = 0;
        for (int j = 0; j < t->outdeg[r]; ++j) {
            int64_t off, cnt, bytes;
            sblock(l, r, j, &off, &cnt, &bytes);
            if (t->dst[r][j] >= 0 && bytes > 0) {
                msgs++;
                sent += bytes;
            }
        }
        ck_assert_msg(sim_stats(s, r)->msgs_sent == msgs && sim_stats(s, r)->bytes_sent == sent,
                      "%s %s n=%d rank %d: %lld msgs %lld bytes, want %lld %lld", kname[kind],
                      what, n, r, (long long) sim_stats(s, r)->msgs_sent,
                      (long long) sim_stats(s, r)->bytes_sent, (long long) msgs, (long long) sent);
        ck_assert_int_le(sim_stats(s, r)->rounds, 1);
    }
    /* every receive block: what its sender sent, or untouched */
    bool **fed = xcalloc((size_t) n, sizeof(bool *));
    for (int r = 0; r < n; ++r) {
        fed[r] = xcalloc((size_t) t->indeg[r], sizeof(bool));
    }
    for (int q = 0; q < n; ++q) {
        for (int j = 0; j < t->outdeg[q]; ++j) {
            int r = t->dst[q][j], i = t->tblk[q][j];
            int64_t soff, scnt, bytes, roff, rcnt;
            sblock(l, q, j, &soff, &scnt, &bytes);
            if (r < 0 || 0 == bytes) {
                continue;
            }
            rblock(l, r, i, &roff, &rcnt);
            fed[r][i] = true;
            int64_t sj = gathers(l) ? 0 : j;
            UNIT_EXPECT(s, r, HCP_RBUF, roff * e, rcnt * e,
                        sim_shifted(sim_input(q), sj * BLOCK_SHIFT - roff * e), false,
                        "%s %s n=%d: rank %d block %d from %d's block %d", kname[kind], what, n,
                        r, i, q, j);
        }
    }
    for (int r = 0; r < n; ++r) {
        for (int i = 0; i < t->indeg[r]; ++i) {
            int64_t roff, rcnt;
            rblock(l, r, i, &roff, &rcnt);
            if (!fed[r][i] && rcnt > 0) {
                UNIT_EXPECT(s, r, HCP_RBUF, roff * e, rcnt * e, blank, false,
                            "%s %s n=%d: rank %d block %d (no message) was written", kname[kind],
                            what, n, r, i);
            }
        }
        free(fed[r]);
    }
    free(fed);
    sim_free(s);
    layout_free(l);
}

static void run_all_kinds(const topo_t *t, uint64_t *seed, const char *what)
{
    for (int k = 0; k < K_N; ++k) {
        run_layout(t, k, seed, what);
    }
}

/* ------------------------------------------------------------------ */
/* Tests                                                                */
/* ------------------------------------------------------------------ */

/* Rings and lines: periodic or not, 1 to 40 ranks (1 and 2 repeat a
 * neighbor). */
START_TEST(rings)
{
    uint64_t seed = 11;
    for (int n = 1; n <= 40; ++n) {
        for (int per = 0; per < 2; ++per) {
            bool p = per;
            topo_t *t = topo_cart(1, &n, &p);
            char what[64];
            snprintf(what, sizeof(what), "%s", per ? "ring" : "line");
            run_all_kinds(t, &seed, what);
            topo_free(t);
        }
    }
}
END_TEST

/* 2-D and 3-D grids with dimensions of size 1 and 2, every mix of
 * periodic dimensions. */
START_TEST(tori)
{
    static const int shapes[][3] = {{1, 1, 0}, {1, 2, 0}, {2, 1, 0}, {2, 2, 0}, {1, 5, 0},
                                    {5, 1, 0}, {2, 3, 0}, {3, 2, 0}, {2, 4, 0}, {4, 4, 0},
                                    {3, 5, 0}, {1, 1, 1}, {2, 1, 3}, {2, 2, 2}, {1, 2, 1},
                                    {3, 1, 2}, {2, 3, 4}};
    uint64_t seed = 23;
    for (size_t sh = 0; sh < sizeof(shapes) / sizeof(shapes[0]); ++sh) {
        int ndims = shapes[sh][2] ? 3 : 2;
        for (int mask = 0; mask < (1 << ndims); ++mask) {
            bool per[3];
            char what[64];
            for (int d = 0; d < ndims; ++d) {
                per[d] = (mask >> d) & 1;
            }
            snprintf(what, sizeof(what), "grid %dx%dx%d periods %d", shapes[sh][0],
                     shapes[sh][1], shapes[sh][2], mask);
            topo_t *t = topo_cart(ndims, shapes[sh], per);
            run_all_kinds(t, &seed, what);
            topo_free(t);
        }
    }
}
END_TEST

/* Cartesian blocks go by direction: with 2 ranks on a periodic ring,
 * rank 0 sends block 1 (positive) into rank 1's block 0 (negative), which
 * plain posting order would get wrong. */
START_TEST(cart_direction)
{
    int two = 2;
    bool per = true;
    topo_t *t = topo_cart(1, &two, &per);
    ck_assert_int_eq(t->tblk[0][1], 0);
    ck_assert_int_eq(t->tblk[0][0], 1);
    hcp_plan_t p;
    hcp_init(&p);
    hcp_neighbors_t nb = nb_of(t, 0);
    ck_assert_int_eq(hcp_neighbor_alltoallv(&p, &nb, NULL, NULL, 1, 4, NULL, NULL, 1, 4), 0);
    /* receives: block 0 then 1; sends: block 1 (offset 1) then block 0 */
    ck_assert_int_eq(p.nops, 4);
    ck_assert_int_eq(p.ops[0].kind, HCP_RECV);
    ck_assert_int_eq(p.ops[0].off, 0);
    ck_assert_int_eq(p.ops[2].kind, HCP_SEND);
    ck_assert_int_eq(p.ops[2].off, 1);
    ck_assert_int_eq(p.ops[3].off, 0);
    hcp_fini(&p);
    topo_free(t);
}
END_TEST

/* Random directed graphs (distributed graphs): asymmetric in and out
 * degrees, repeated edges, self-loops; and symmetric graphs (graph
 * topologies) with repeated edges. */
START_TEST(graphs)
{
    uint64_t seed = 37;
    for (int n = 1; n <= 48; ++n) {
        for (int sym = 0; sym < 2; ++sym) {
            for (int rep = 0; rep < 2; ++rep) {
                topo_t *t = topo_random(n, 1 + (int) (unit_rand(&seed) % 6), &seed, sym);
                run_all_kinds(t, &seed, sym ? "graph" : "dist_graph");
                topo_free(t);
            }
        }
    }
}
END_TEST

/* Large: a 32x32x32 periodic torus (32,768 ranks, 6 neighbors each) and a
 * 2 x 16384 torus (the size-2 dimension repeats every neighbor). */
START_TEST(large)
{
    uint64_t seed = 41;
    static const int d3[3] = {32, 32, 32}, d2[2] = {2, 16384};
    static const bool p3[3] = {true, true, true}, p2[2] = {true, false};
    topo_t *t = topo_cart(3, d3, p3);
    run_layout(t, K_ALLTOALL, &seed, "torus 32^3");
    topo_free(t);
    t = topo_cart(2, d2, p2);
    run_layout(t, K_ALLGATHER, &seed, "grid 2x16384");
    topo_free(t);
    t = topo_random(4096, 8, &seed, false);
    run_layout(t, K_ALLTOALLV, &seed, "dist_graph 4096");
    topo_free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("plan_neighbor");
    TCase *tc = tcase_create("neighbor");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, cart_direction);
    tcase_add_test(tc, rings);
    tcase_add_test(tc, tori);
    tcase_add_test(tc, graphs);
    tcase_add_test(tc, large);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
