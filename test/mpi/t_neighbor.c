/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The five neighborhood collectives, blocking, nonblocking and persistent
 * (started twice, with new data), on Cartesian communicators (a ring, a
 * line, 2-D grids with a dimension of size 1 and of size 2, periodic and
 * not, a 3-D grid), a graph with repeated edges and self-loops, and a
 * distributed graph with asymmetric in and out degrees (zero included).
 * Every receive buffer is compared, byte for byte and gaps included, with
 * a serial reference computed here from the same neighbor lists, by MPI's
 * rules: Cartesian blocks by direction (what a rank sends to its positive
 * neighbor lands in that neighbor's negative block, MPI 4.0), repeated
 * graph edges in the order of the lists, MPI_PROC_NULL blocks untouched.
 * Datatypes with gaps, mixed send and receive types of one signature,
 * zero and odd counts, per-block types and byte displacements
 * (alltoallw).
 *
 * Usage: t_neighbor [--only NAME[,NAME...]] [--info KEY=VALUE]...
 *   --only: allgather, allgatherv, alltoall, alltoallv, alltoallw
 *   --info: every topology communicator is a dup of the one created,
 *       with these info keys (e.g. hiercoll_neighbor_alltoall=linear)
 */
#include <stdbool.h>

#include "t_common.h"

enum { N_ALLGATHER, N_ALLGATHERV, N_ALLTOALL, N_ALLTOALLV, N_ALLTOALLW, N_COUNT };
static const char *nname[N_COUNT] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                     "alltoallw"};
static const char *only;
static MPI_Info comm_info = MPI_INFO_NULL;

static int want(const char *name)
{
    return tc_listed(only, name);
}

/* ------------------------------------------------------------------ */
/* Topologies: every rank's lists, computed here for every rank          */
/* ------------------------------------------------------------------ */

typedef struct topo {
    char name[96];
    MPI_Comm comm;
    bool cart;
    int n;
    int *indeg, *outdeg;
    int **src, **dst; /* every rank's sources and destinations */
} topo_t;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (NULL == p) {
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static topo_t *topo_alloc(int n, const char *name)
{
    topo_t *t = xmalloc(sizeof(*t));
    memset(t, 0, sizeof(*t));
    snprintf(t->name, sizeof(t->name), "%s", name);
    t->n = n;
    t->indeg = xmalloc(sizeof(int) * (size_t) n);
    t->outdeg = xmalloc(sizeof(int) * (size_t) n);
    t->src = xmalloc(sizeof(int *) * (size_t) n);
    t->dst = xmalloc(sizeof(int *) * (size_t) n);
    return t;
}

static void topo_free(topo_t *t)
{
    for (int r = 0; r < t->n; ++r) {
        free(t->src[r]);
        free(t->dst[r]);
    }
    free(t->indeg);
    free(t->outdeg);
    free(t->src);
    free(t->dst);
    MPI_Comm_free(&t->comm);
    free(t);
}

/* The lists MPI reports must be the ones computed here. */
static void check_lists(const topo_t *t)
{
    int rank, indeg = 0, outdeg = 0, weighted;
    MPI_Comm_rank(t->comm, &rank);
    tc_at("%s: neighbor lists", t->name);
    int *s = xmalloc(sizeof(int) * (size_t) (t->indeg[rank] + 1));
    int *d = xmalloc(sizeof(int) * (size_t) (t->outdeg[rank] + 1));
    int kind;
    MPI_Topo_test(t->comm, &kind);
    if (MPI_CART == kind) {
        int nd;
        MPI_Cartdim_get(t->comm, &nd);
        indeg = outdeg = 2 * nd;
        for (int k = 0; k < nd && 2 * k < t->indeg[rank]; ++k) {
            MPI_Cart_shift(t->comm, k, 1, &s[2 * k], &s[2 * k + 1]);
            d[2 * k] = s[2 * k];
            d[2 * k + 1] = s[2 * k + 1];
        }
    } else if (MPI_GRAPH == kind) {
        MPI_Graph_neighbors_count(t->comm, rank, &indeg);
        outdeg = indeg;
        MPI_Graph_neighbors(t->comm, rank, t->indeg[rank], s);
        memcpy(d, s, sizeof(int) * (size_t) t->indeg[rank]);
    } else {
        MPI_Dist_graph_neighbors_count(t->comm, &indeg, &outdeg, &weighted);
        int *w = xmalloc(sizeof(int) * (size_t) (t->indeg[rank] + t->outdeg[rank] + 1));
        MPI_Dist_graph_neighbors(t->comm, t->indeg[rank], s, w, t->outdeg[rank], d, w);
        free(w);
    }
    tc_expect(indeg == t->indeg[rank] && outdeg == t->outdeg[rank], "degrees %d/%d, want %d/%d",
              indeg, outdeg, t->indeg[rank], t->outdeg[rank]);
    tc_expect_ints(s, t->src[rank], t->indeg[rank], "sources");
    tc_expect_ints(d, t->dst[rank], t->outdeg[rank], "destinations");
    free(s);
    free(d);
}

/* A Cartesian grid (reorder off: ranks row-major, the last dimension
 * fastest). */
static topo_t *topo_cart(int n, int ndims, const int *dims, const int *periods)
{
    char name[96];
    int len = snprintf(name, sizeof(name), "cart");
    for (int k = 0; k < ndims; ++k) {
        len += snprintf(name + len, sizeof(name) - (size_t) len, "%s%d%s", k ? "x" : " ", dims[k],
                        periods[k] ? "p" : "");
    }
    topo_t *t = topo_alloc(n, name);
    t->cart = true;
    for (int r = 0; r < n; ++r) {
        t->indeg[r] = t->outdeg[r] = 2 * ndims;
        t->src[r] = xmalloc(sizeof(int) * (size_t) (2 * ndims));
        t->dst[r] = xmalloc(sizeof(int) * (size_t) (2 * ndims));
        int stride = n;
        for (int k = 0; k < ndims; ++k) {
            stride /= dims[k];
            int c = (r / stride) % dims[k];
            for (int dir = 0; dir < 2; ++dir) {
                int nc = c + (dir ? 1 : -1), peer = MPI_PROC_NULL;
                if (periods[k] || (nc >= 0 && nc < dims[k])) {
                    nc = (nc + dims[k]) % dims[k];
                    peer = r + (nc - c) * stride;
                }
                t->src[r][2 * k + dir] = t->dst[r][2 * k + dir] = peer;
            }
        }
    }
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &t->comm);
    return t;
}

/* A graph: r+1, (r itself when even), r-1, r+1, r-1: every pair repeated,
 * symmetric as MPI_Graph_create's neighborhood collectives need. */
static topo_t *topo_graph(int n)
{
    topo_t *t = topo_alloc(n, "graph");
    int *index = xmalloc(sizeof(int) * (size_t) n), *edges = xmalloc(sizeof(int) * 5 * (size_t) n);
    int ne = 0;
    for (int r = 0; r < n; ++r) {
        int nb[5], k = 0;
        nb[k++] = (r + 1) % n;
        if (0 == r % 2) {
            nb[k++] = r;
        }
        nb[k++] = (r - 1 + n) % n;
        nb[k++] = (r + 1) % n;
        nb[k++] = (r - 1 + n) % n;
        t->indeg[r] = t->outdeg[r] = k;
        t->src[r] = xmalloc(sizeof(int) * (size_t) k);
        t->dst[r] = xmalloc(sizeof(int) * (size_t) k);
        memcpy(t->src[r], nb, sizeof(int) * (size_t) k);
        memcpy(t->dst[r], nb, sizeof(int) * (size_t) k);
        memcpy(edges + ne, nb, sizeof(int) * (size_t) k);
        ne += k;
        index[r] = ne;
    }
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &t->comm);
    free(index);
    free(edges);
    return t;
}

/* A distributed graph: rank q sends to q % 4 destinations (none from
 * multiples of 4): q+1, 3q+2, q+1 (a repeated edge); sources listed by
 * descending sender, so in and out degrees and orders all differ. */
static int dg_dest(int n, int q, int k)
{
    return 1 == k ? (3 * q + 2) % n : (q + 1) % n;
}

static topo_t *topo_dist_graph(int n)
{
    topo_t *t = topo_alloc(n, "dist_graph");
    for (int r = 0; r < n; ++r) {
        t->outdeg[r] = r % 4;
        t->dst[r] = xmalloc(sizeof(int) * 4);
        for (int k = 0; k < t->outdeg[r]; ++k) {
            t->dst[r][k] = dg_dest(n, r, k);
        }
        t->indeg[r] = 0;
        t->src[r] = xmalloc(sizeof(int) * (size_t) (3 * n + 1));
    }
    for (int q = n - 1; q >= 0; --q) {
        for (int k = 0; k < q % 4; ++k) {
            int s = dg_dest(n, q, k);
            t->src[s][t->indeg[s]++] = q;
        }
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* weights (all 1) play no part in neighborhood collectives */
    int *w = xmalloc(sizeof(int) * (size_t) (t->indeg[rank] + t->outdeg[rank] + 1));
    for (int k = 0; k < t->indeg[rank] + t->outdeg[rank]; ++k) {
        w[k] = 1;
    }
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, t->indeg[rank], t->src[rank], w,
                                   t->outdeg[rank], t->dst[rank], w + t->indeg[rank],
                                   MPI_INFO_NULL, 0, &t->comm);
    free(w);
    return t;
}

/* Which block of its sender feeds receive block i of rank r: the sender
 * is src[r][i] (MPI_PROC_NULL: none, -1 returned).  Cartesian: the
 * opposite direction; graphs: the k-th occurrence of the pair in both
 * lists. */
static int sender_block(const topo_t *t, int r, int i)
{
    int q = t->src[r][i];
    if (q < 0) {
        return -1;
    }
    if (t->cart) {
        return i ^ 1;
    }
    int k = 0;
    for (int ii = 0; ii < i; ++ii) {
        k += t->src[r][ii] == q;
    }
    for (int j = 0; j < t->outdeg[q]; ++j) {
        if (t->dst[q][j] == r && 0 == k--) {
            return j;
        }
    }
    return -2; /* the topology is inconsistent */
}

/* ------------------------------------------------------------------ */
/* Layouts: counts, displacements and types of every rank's blocks       */
/* ------------------------------------------------------------------ */

static const ttype_t *types3[3] = {&T_INT, &T_VEC, &T_PAIR};

typedef struct pair_types {
    const ttype_t *s, *r;
} pair_types_t;

/* Elements rank q sends in its block j (v and w variants; 0 to 3). */
static int vcount(int q, int j)
{
    return (q * 3 + j * 5) % 4;
}

/* alltoallw: the send type of block j of q, and the receive type of a
 * block of `sig` ints (the first of the three that divides it). */
static const ttype_t *wstype(int q, int j)
{
    return types3[(q + j) % 3];
}

static const ttype_t *wrtype(int r, int i, long sig)
{
    const ttype_t *t = types3[(r + 2 * i) % 3];
    return 0 == sig % t->ints ? t : &T_INT;
}

typedef struct layout {
    int coll, count; /* count: the regular collectives' elements */
    pair_types_t ty;
    /* this rank */
    int *scounts, *rcounts, *sdispls, *rdispls; /* v: in elements */
    MPI_Aint *sbytes, *rbytes;                  /* w: byte displacements */
    MPI_Datatype *stypes, *rtypes;
    long sspan, rspan; /* ints */
} layout_t;

/* Signature ints of block j sent by q. */
static long sent_ints(const layout_t *l, int q, int j)
{
    switch (l->coll) {
    case N_ALLGATHER:
    case N_ALLTOALL:
        return (long) l->count * l->ty.s->ints;
    case N_ALLGATHERV:
        return (long) vcount(q, 0) * l->ty.s->ints;
    case N_ALLTOALLV:
        return (long) vcount(q, j) * l->ty.s->ints;
    default:
        return (long) vcount(q, j) * wstype(q, j)->ints;
    }
}

/* The receive type of this rank's block i (w: per block). */
static const ttype_t *rtype_of(const topo_t *t, const layout_t *l, int r, int i)
{
    if (N_ALLTOALLW != l->coll) {
        return l->ty.r;
    }
    int j = sender_block(t, r, i);
    long sig = j >= 0 ? sent_ints(l, t->src[r][i], j) : (long) (i % 3);
    return wrtype(r, i, sig);
}

static void layout_make(const topo_t *t, layout_t *l, int rank)
{
    int od = t->outdeg[rank], id = t->indeg[rank];
    l->scounts = xmalloc(sizeof(int) * (size_t) (od + 1));
    l->sdispls = xmalloc(sizeof(int) * (size_t) (od + 1));
    l->rcounts = xmalloc(sizeof(int) * (size_t) (id + 1));
    l->rdispls = xmalloc(sizeof(int) * (size_t) (id + 1));
    l->sbytes = xmalloc(sizeof(MPI_Aint) * (size_t) (od + 1));
    l->rbytes = xmalloc(sizeof(MPI_Aint) * (size_t) (id + 1));
    l->stypes = xmalloc(sizeof(MPI_Datatype) * (size_t) (od + 1));
    l->rtypes = xmalloc(sizeof(MPI_Datatype) * (size_t) (id + 1));
    /* send blocks, last block first, one element's gap after each */
    long pos = 0;
    for (int j = od - 1; j >= 0; --j) {
        const ttype_t *st = N_ALLTOALLW == l->coll ? wstype(rank, j) : l->ty.s;
        l->scounts[j] = (int) (sent_ints(l, rank, j) / st->ints);
        l->stypes[j] = st->t;
        l->sdispls[j] = (int) (pos / st->ext); /* v: elements of the one type */
        l->sbytes[j] = (MPI_Aint) pos * (MPI_Aint) sizeof(int);
        pos += tc_span(st, l->scounts[j]) + st->ext;
        if (N_ALLTOALLW != l->coll) {
            pos = (pos + st->ext - 1) / st->ext * st->ext; /* whole elements */
        }
    }
    l->sspan = N_ALLGATHER == l->coll || N_ALLGATHERV == l->coll
                   ? tc_span(l->ty.s, (long) sent_ints(l, rank, 0) / l->ty.s->ints)
                   : pos;
    /* receive blocks: first block first, gaps of one element */
    pos = 0;
    for (int i = 0; i < id; ++i) {
        const ttype_t *rt = rtype_of(t, l, rank, i);
        int j = sender_block(t, rank, i);
        long sig = j >= 0 ? sent_ints(l, t->src[rank][i], j) : (long) (i % 3) * rt->ints;
        if (N_ALLGATHER == l->coll || N_ALLTOALL == l->coll) {
            sig = (long) l->count * rt->ints;
        }
        l->rcounts[i] = (int) (sig / rt->ints);
        l->rtypes[i] = rt->t;
        l->rdispls[i] = (int) (pos / rt->ext);
        l->rbytes[i] = (MPI_Aint) pos * (MPI_Aint) sizeof(int);
        pos += tc_span(rt, l->rcounts[i]) + rt->ext;
        if (N_ALLTOALLW != l->coll) {
            pos = (pos + rt->ext - 1) / rt->ext * rt->ext;
        }
    }
    l->rspan = pos;
    if (N_ALLGATHER == l->coll || N_ALLTOALL == l->coll) { /* regular: contiguous blocks */
        l->rspan = tc_span(l->ty.r, (long) l->count * id);
        for (int i = 0; i < id; ++i) {
            l->rdispls[i] = i * l->count;
        }
        if (N_ALLTOALL == l->coll) {
            l->sspan = tc_span(l->ty.s, (long) l->count * od);
            for (int j = 0; j < od; ++j) {
                l->sdispls[j] = j * l->count;
            }
        }
    }
}

static void layout_free(layout_t *l)
{
    free(l->scounts);
    free(l->sdispls);
    free(l->rcounts);
    free(l->rdispls);
    free(l->sbytes);
    free(l->rbytes);
    free(l->stypes);
    free(l->rtypes);
}

/* Where block b's elements start, in ints. */
static long sstart(const layout_t *l, int j)
{
    if (N_ALLTOALLW == l->coll) {
        return (long) (l->sbytes[j] / (MPI_Aint) sizeof(int));
    }
    return N_ALLGATHER == l->coll || N_ALLGATHERV == l->coll ? 0
                                                             : (long) l->sdispls[j] * l->ty.s->ext;
}

static long rstart(const layout_t *l, int i)
{
    if (N_ALLTOALLW == l->coll) {
        return (long) (l->rbytes[i] / (MPI_Aint) sizeof(int));
    }
    return (long) l->rdispls[i] * l->ty.r->ext;
}

/* ------------------------------------------------------------------ */
/* One collective in one mode, checked                                  */
/* ------------------------------------------------------------------ */

static void post(int m, bool first, MPI_Request *rq, const topo_t *t, const layout_t *l,
                 const int *sb, int *rb)
{
    MPI_Comm c = t->comm;
    MPI_Datatype st = l->ty.s->t, rt = l->ty.r->t;
    int sc = l->count, rc = l->count;
    if (N_ALLGATHERV == l->coll) {
        sc = (int) (l->sspan / l->ty.s->ext);
    }
    if (M_BLOCKING == m) {
        switch (l->coll) {
        case N_ALLGATHER: MPI_Neighbor_allgather(sb, sc, st, rb, rc, rt, c); break;
        case N_ALLGATHERV:
            MPI_Neighbor_allgatherv(sb, sc, st, rb, l->rcounts, l->rdispls, rt, c);
            break;
        case N_ALLTOALL: MPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, c); break;
        case N_ALLTOALLV:
            MPI_Neighbor_alltoallv(sb, l->scounts, l->sdispls, st, rb, l->rcounts, l->rdispls, rt,
                                   c);
            break;
        default:
            MPI_Neighbor_alltoallw(sb, l->scounts, l->sbytes, l->stypes, rb, l->rcounts, l->rbytes,
                                   l->rtypes, c);
            break;
        }
        return;
    }
    if (M_NONBLOCKING == m) {
        switch (l->coll) {
        case N_ALLGATHER: MPI_Ineighbor_allgather(sb, sc, st, rb, rc, rt, c, rq); break;
        case N_ALLGATHERV:
            MPI_Ineighbor_allgatherv(sb, sc, st, rb, l->rcounts, l->rdispls, rt, c, rq);
            break;
        case N_ALLTOALL: MPI_Ineighbor_alltoall(sb, sc, st, rb, rc, rt, c, rq); break;
        case N_ALLTOALLV:
            MPI_Ineighbor_alltoallv(sb, l->scounts, l->sdispls, st, rb, l->rcounts, l->rdispls, rt,
                                    c, rq);
            break;
        default:
            MPI_Ineighbor_alltoallw(sb, l->scounts, l->sbytes, l->stypes, rb, l->rcounts,
                                    l->rbytes, l->rtypes, c, rq);
            break;
        }
    } else if (first) {
        MPI_Info in = MPI_INFO_NULL;
        switch (l->coll) {
        case N_ALLGATHER: MPIX_Neighbor_allgather_init(sb, sc, st, rb, rc, rt, c, in, rq); break;
        case N_ALLGATHERV:
            MPIX_Neighbor_allgatherv_init(sb, sc, st, rb, l->rcounts, l->rdispls, rt, c, in, rq);
            break;
        case N_ALLTOALL: MPIX_Neighbor_alltoall_init(sb, sc, st, rb, rc, rt, c, in, rq); break;
        case N_ALLTOALLV:
            MPIX_Neighbor_alltoallv_init(sb, l->scounts, l->sdispls, st, rb, l->rcounts,
                                         l->rdispls, rt, c, in, rq);
            break;
        default:
            MPIX_Neighbor_alltoallw_init(sb, l->scounts, l->sbytes, l->stypes, rb, l->rcounts,
                                         l->rbytes, l->rtypes, c, in, rq);
            break;
        }
    }
    if (M_PERSISTENT == m) {
        MPI_Start(rq);
    }
    MPI_Wait(rq, MPI_STATUS_IGNORE);
}

/* The send buffer of rank q for a layout (run `salt`): block j holds
 * signature ints (j, 0..) of q. */
static void fill_send(const topo_t *t, const layout_t *l, int q, int salt, int *sb)
{
    bool gather = N_ALLGATHER == l->coll || N_ALLGATHERV == l->coll;
    for (int j = 0; j < (gather ? 1 : t->outdeg[q]); ++j) {
        const ttype_t *st = N_ALLTOALLW == l->coll ? wstype(q, j) : l->ty.s;
        long ints = sent_ints(l, q, j);
        tc_fill(sb + sstart(l, j), st, 0, ints / st->ints, q, (long) j * 1000, salt);
    }
}

/* The reference receive buffer of rank r: block i holds what its sender
 * put in the block that feeds it; everything else stays SENTINEL. */
static void reference(const topo_t *t, const layout_t *l, int r, int salt, int *want)
{
    bool gather = N_ALLGATHER == l->coll || N_ALLGATHERV == l->coll;
    for (int i = 0; i < t->indeg[r]; ++i) {
        int j = sender_block(t, r, i), q = t->src[r][i];
        if (j < 0) {
            tc_expect(-1 == j, "sender_block of block %d: the test's topology is inconsistent", i);
            continue;
        }
        const ttype_t *rt = rtype_of(t, l, r, i);
        long ints = sent_ints(l, q, j);
        tc_fill(want + rstart(l, i), rt, 0, ints / rt->ints, q, gather ? 0 : (long) j * 1000,
                salt);
    }
}

static void run_one(const topo_t *t, int coll, int m, pair_types_t ty, int count)
{
    int rank;
    MPI_Comm_rank(t->comm, &rank);
    MPI_Request rq = MPI_REQUEST_NULL;
    int runs = M_PERSISTENT == m ? 2 : 1;
    layout_t l = {.coll = coll, .count = count, .ty = ty};
    /* one layout for both runs (a persistent request's arguments are
     * fixed); the second run sends other values */
    layout_make(t, &l, rank);
    int *sb = tc_alloc(l.sspan), *rb = tc_alloc(l.rspan), *want = tc_alloc(l.rspan);
    for (int run = 0; run < runs; ++run) {
        int salt = 1 + run * 17;
        tc_at("%s: neighbor_%s %s %s->%s count %d run %d", t->name, nname[coll], mode_name[m],
              ty.s->name, ty.r->name, count, run);
        for (long k = 0; k < l.sspan; ++k) {
            sb[k] = SENTINEL;
        }
        for (long k = 0; k < l.rspan; ++k) {
            rb[k] = want[k] = SENTINEL;
        }
        fill_send(t, &l, rank, salt, sb);
        post(m, 0 == run, &rq, t, &l, sb, rb);
        reference(t, &l, rank, salt, want);
        tc_expect_ints(rb, want, l.rspan, "receive buffer");
    }
    if (M_PERSISTENT == m) {
        MPI_Request_free(&rq);
    }
    free(sb);
    free(rb);
    free(want);
    layout_free(&l);
}

static void run_topology(topo_t *t)
{
    if (MPI_INFO_NULL != comm_info) { /* the topology goes with the dup */
        MPI_Comm with_info;
        MPI_Comm_dup_with_info(t->comm, comm_info, &with_info);
        MPI_Comm_free(&t->comm);
        t->comm = with_info;
    }
    static const pair_types_t pairs[] = {{&T_INT, &T_INT}, {&T_VEC, &T_PAIR}, {&T_PAIR, &T_VEC}};
    static const int counts[] = {1, 3, 0};
    check_lists(t);
    for (int coll = 0; coll < N_COUNT; ++coll) {
        if (!want(nname[coll])) {
            continue;
        }
        for (int m = 0; m < M_COUNT; ++m) {
            for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); ++p) {
                if (N_ALLTOALLW == coll && p > 0) {
                    break; /* per-block types of their own */
                }
                int c = counts[p % 3];
                run_one(t, coll, m, pairs[p], c);
            }
        }
    }
    topo_free(t);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--only") && i + 1 < argc) {
            only = argv[++i];
        } else if (0 == strcmp(argv[i], "--info") && i + 1 < argc && strchr(argv[i + 1], '=')) {
            char *kv = argv[++i], *eq = strchr(kv, '=');
            *eq = '\0';
            if (MPI_INFO_NULL == comm_info) {
                MPI_Info_create(&comm_info);
            }
            MPI_Info_set(comm_info, kv, eq + 1);
        }
    }
    tc_types_init();
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const int per[3] = {1, 1, 1}, nonper[3] = {0, 0, 0}, mixed[3] = {1, 0, 1};
    int d1[1] = {n}, d2[2] = {1, n}, d3[2] = {2, n / 2}, d4[3] = {2, 1, n / 2};
    run_topology(topo_cart(n, 1, d1, per));    /* ring */
    run_topology(topo_cart(n, 1, d1, nonper)); /* line */
    run_topology(topo_cart(n, 2, d2, per));    /* size 1, periodic: itself twice */
    run_topology(topo_cart(n, 2, d2, mixed));
    if (0 == n % 2) {
        run_topology(topo_cart(n, 2, d3, per)); /* size 2, periodic: one neighbor twice */
        run_topology(topo_cart(n, 2, d3, mixed + 1));
        run_topology(topo_cart(n, 3, d4, mixed));
    }
    run_topology(topo_graph(n));
    run_topology(topo_dist_graph(n));
    tc_types_free();
    if (MPI_INFO_NULL != comm_info) {
        MPI_Info_free(&comm_info);
    }
    return tc_finish("t_neighbor");
}
