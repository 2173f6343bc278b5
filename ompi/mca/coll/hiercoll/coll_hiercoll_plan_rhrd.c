/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Large-vector reduce and allreduce by recursive halving and recursive
 * doubling (RHRD) for any process count.  MPI-free: see
 * coll_hiercoll_plan.h.
 *
 * n = N + r processes, N the largest power of two <= n.  The vector is cut
 * into N blocks of whole elements (block b starts at element count*b/N, so
 * blocks may be empty); half H0 is blocks [0, N/2), H1 blocks [N/2, N).
 * Ranks are VIRTUAL, v = (rank - root) mod n, so that the root of a reduce
 * is v = 0 (allreduce: root 0, v = rank).  The op must be commutative.
 *
 * The scheme of US patent application 11/669,600 (Bin Jia, IBM, 2007):
 * S0 = v < 2r, in pairs (2i, 2i+1), S1 = the others.  Of the S0 pairs the
 * even-numbered ones are RECEIVERS and the odd-numbered ones SENDERS; when
 * r is odd the last S0 pair is (Y, X) instead and the first process of S1
 * is Z.  The remaining S1 processes pair up.
 *
 *   1. Every pair exchanges halves; its lower member reduces H0, the upper
 *      one H1.  Z has no pair: it gives its H0 to Y and reduces its H1 with
 *      X's partial H1 (the one X sends in step 2).
 *   2. Merge: each sender hands its partial half to the receiver two ranks
 *      below, which holds the same half, and drops out; X hands its H1 to Z,
 *      Y absorbs Z's H0.  Now exactly N survivors remain, N/2 with a partial
 *      H0 and N/2 with a partial H1, and no data was forwarded twice.
 *   3. Each half-group of N/2 survivors runs recursive halving on its half,
 *      then recursive doubling (allreduce) or a binomial gather to its
 *      index 0 (reduce: the root, v = 0, always survives (a receiver, Y
 *      when r = 1, a pair of S1 when r = 0), is index 0 of the H0 group
 *      and receives H1 from index 0 of the H1 group: one message).
 *   4. Allreduce: every survivor returns its complete half to the rank it
 *      absorbed (receivers to senders, Y to Z, Z to X) while pairs exchange
 *      halves, using both directions of each link; senders and X pass the
 *      half they got back on to their pair partner.
 *
 * The classic scheme (Rabenseifner's, as Open MPI tuned's
 * redscat_allgather): the first 2r ranks exchange halves in pairs, the
 * odd one sends its reduced half to the even one and drops out; the N
 * survivors run RHRD on the whole vector; allreduce sends the result back
 * to the dropped ranks.
 */
#include "coll_hiercoll_plan.h"

#define MAX_STEPS 32

/* One planning call. */
typedef struct rh {
    hcp_plan_t *p;
    int n, root, r;
    int nblocks; /* N */
    int64_t count;
    bool classic;
    int in;           /* this rank's input: SBUF, or RBUF in place */
    int acc;          /* where it reduces: RBUF, or TMP1 when it gets no result */
    int64_t acc_base; /* element at acc[0] (TMP1 may hold only a half) */
    int64_t tmp_base; /* element at TMP0[0], where contributions arrive */
} rh_t;

/* What a rank does in the patent's scheme (virtual ranks, -1: nobody). */
typedef struct role {
    const char *name;
    int h;       /* the half it reduces from step 1 on */
    int partner; /* the other member of its pair (Z has none) */
    int feeds;   /* the rank that absorbs a half of this one's data */
    int absorbs; /* the rank whose half this one absorbs */
    int g;       /* its index in the group of half h; -1 once it drops out */
} role_t;

/* A power-of-two group running recursive halving over `size` blocks. */
typedef struct group {
    int size, block0, h;
    int me; /* this rank's index */
} group_t;

static int64_t block_start(const rh_t *c, int b)
{
    return c->count * b / c->nblocks;
}

static int64_t offset_in(const rh_t *c, int buf, int64_t elem)
{
    if (HCP_TMP0 == buf) {
        return elem - c->tmp_base;
    }
    return buf == c->acc ? elem - c->acc_base : elem;
}

/* Send or receive the elements of blocks [b0, b1) to or from virtual rank v;
 * empty ranges are no message (both sides compute the same range). */
static void xfer(const rh_t *c, int kind, int v, int buf, int b0, int b1)
{
    int64_t lo = block_start(c, b0), len = block_start(c, b1) - lo;
    if (len <= 0) {
        return;
    }
    int rank = (v + c->root) % c->n;
    if (HCP_SEND == kind) {
        hcp_send(c->p, rank, buf, offset_in(c, buf, lo), len);
    } else {
        hcp_recv(c->p, rank, buf, offset_in(c, buf, lo), len);
    }
}

/* acc[blocks b0..b1) = src (op) acc */
static void fold(const rh_t *c, int src, int b0, int b1)
{
    int64_t lo = block_start(c, b0), len = block_start(c, b1) - lo;
    if (len > 0) {
        hcp_reduce(c->p, c->acc, offset_in(c, c->acc, lo), src, offset_in(c, src, lo), len);
    }
}

static int half_lo(const rh_t *c, int h)
{
    return h * c->nblocks / 2;
}

static int half_hi(const rh_t *c, int h)
{
    return (h + 1) * c->nblocks / 2;
}

/* Give in[blocks g0..g1) to give_to; make acc[k0..k1) the own input
 * reduced with what take_from sends for those blocks (received straight
 * into acc when the input is elsewhere, else through TMP0). */
static void contribute(const rh_t *c, int give_to, int g0, int g1, int take_from, int k0, int k1)
{
    int dst = c->in == c->acc ? HCP_TMP0 : c->acc;
    xfer(c, HCP_SEND, give_to, c->in, g0, g1);
    xfer(c, HCP_RECV, take_from, dst, k0, k1);
    fold(c, dst == c->acc ? c->in : HCP_TMP0, k0, k1);
    hcp_end_round(c->p);
}

/* Step 1: give away the other half, reduce half h. */
static void pairwise(const rh_t *c, int h, int give_to, int take_from)
{
    contribute(c, give_to, half_lo(c, 1 - h), half_hi(c, 1 - h), take_from, half_lo(c, h),
               half_hi(c, h));
}

/* ------------------------------------------------------------------ */
/* Recursive halving, doubling and gather within a group                */
/* ------------------------------------------------------------------ */

/* Virtual rank of index g of a group. */
static int member(const rh_t *c, const group_t *gr, int g)
{
    int r = c->r;
    if (c->classic) {
        return g < r ? 2 * g : g + r; /* the even ranks of S0, then S1 */
    }
    /* receivers' (and Y's) lower members, then S1's lower members (H0);
     * receivers' upper members, then Z and S1's upper members (H1) */
    if (0 == gr->h) {
        return g < (r + 1) / 2 ? 4 * g : 2 * g + r;
    }
    return g < r / 2 ? 4 * g + 1 : 2 * g + r + 1;
}

/* win[k] = [lo, hi) the blocks the member holds before halving step k:
 * step k splits them with index me ^ 2^k, the one with bit k clear keeping
 * the lower half.  Returns the number of steps. */
static int windows(const group_t *gr, int lo[], int hi[])
{
    int k = 0;
    lo[0] = gr->block0;
    hi[0] = gr->block0 + gr->size;
    for (int m = 1; m < gr->size; m <<= 1, ++k) {
        int mid = (lo[k] + hi[k]) / 2;
        bool upper = 0 != (gr->me & m);
        lo[k + 1] = upper ? mid : lo[k];
        hi[k + 1] = upper ? hi[k] : mid;
    }
    return k;
}

/* The part of win[k] that the peer of step k keeps. */
static void peer_part(const int lo[], const int hi[], int k, int *b0, int *b1)
{
    bool upper = lo[k + 1] != lo[k];
    *b0 = upper ? lo[k] : hi[k + 1];
    *b1 = upper ? lo[k + 1] : hi[k];
}

/* fresh: acc holds nothing yet, the first step starts from the input. */
static void halving(const rh_t *c, const group_t *gr, bool fresh)
{
    int lo[MAX_STEPS], hi[MAX_STEPS], b0, b1;
    int steps = windows(gr, lo, hi);
    for (int k = 0; k < steps; ++k) {
        int peer = member(c, gr, gr->me ^ (1 << k));
        peer_part(lo, hi, k, &b0, &b1);
        if (0 == k && fresh) {
            contribute(c, peer, b0, b1, peer, lo[1], hi[1]);
            continue;
        }
        xfer(c, HCP_SEND, peer, c->acc, b0, b1);
        xfer(c, HCP_RECV, peer, HCP_TMP0, lo[k + 1], hi[k + 1]);
        fold(c, HCP_TMP0, lo[k + 1], hi[k + 1]);
        hcp_end_round(c->p);
    }
}

/* Allgather: the halving steps in reverse, every member ends with all. */
static void doubling(const rh_t *c, const group_t *gr)
{
    int lo[MAX_STEPS], hi[MAX_STEPS], b0, b1;
    for (int k = windows(gr, lo, hi) - 1; k >= 0; --k) {
        int peer = member(c, gr, gr->me ^ (1 << k));
        peer_part(lo, hi, k, &b0, &b1);
        xfer(c, HCP_SEND, peer, c->acc, lo[k + 1], hi[k + 1]);
        xfer(c, HCP_RECV, peer, c->acc, b0, b1);
        hcp_end_round(c->p);
    }
}

/* Gather to index 0: the halving steps in reverse; at step k the members
 * whose highest index bit is k hand what they hold to index me - 2^k. */
static void gather(const rh_t *c, const group_t *gr)
{
    int lo[MAX_STEPS], hi[MAX_STEPS], b0, b1;
    for (int k = windows(gr, lo, hi) - 1; k >= 0; --k) {
        int peer = member(c, gr, gr->me ^ (1 << k));
        if (1 == gr->me >> k) {
            xfer(c, HCP_SEND, peer, c->acc, lo[k + 1], hi[k + 1]);
            hcp_end_round(c->p);
            return;
        }
        if (0 == gr->me >> k) {
            peer_part(lo, hi, k, &b0, &b1);
            xfer(c, HCP_RECV, peer, c->acc, b0, b1);
            hcp_end_round(c->p);
        }
    }
}

/* ------------------------------------------------------------------ */
/* The patent's scheme                                                  */
/* ------------------------------------------------------------------ */

static role_t patent_role(int n, int v)
{
    int r = n - hcp_pof2_floor(n);
    role_t x = {"pair", 0, -1, -1, -1, -1};
    if (v < 2 * r) {
        x.h = v % 2;
        x.partner = v ^ 1;
        if (1 == r % 2 && v / 2 == r - 1) {
            x.name = 0 == x.h ? "Y" : "X";
            x.absorbs = 0 == x.h ? 2 * r : -1;
            x.feeds = 0 == x.h ? -1 : 2 * r;
            x.g = 0 == x.h ? (r - 1) / 2 : -1;
        } else if (0 == (v / 2) % 2) {
            x.name = "receiver";
            x.absorbs = v + 2;
            x.g = v / 4;
        } else {
            x.name = "sender";
            x.feeds = v - 2;
        }
    } else if (1 == r % 2 && v == 2 * r) {
        x.name = "Z";
        x.h = 1;
        x.feeds = 2 * r - 2;   /* Y: gets Z's input H0 */
        x.absorbs = 2 * r - 1; /* X */
        x.g = (r - 1) / 2;
    } else {
        x.h = (v - 2 * r - r % 2) % 2;
        x.partner = 0 == x.h ? v + 1 : v - 1;
        x.g = (v - r - x.h) / 2;
    }
    return x;
}

const char *hcp_rhrd_role(int n, int vrank)
{
    return patent_role(n, vrank).name;
}

/* Step 4 of the allreduce: everybody gets the half it lacks. */
static void spread(const rh_t *c, const role_t *x)
{
    int mine0 = half_lo(c, x->h), mine1 = half_hi(c, x->h);
    int other0 = half_lo(c, 1 - x->h), other1 = half_hi(c, 1 - x->h);
    if (x->g < 0) {
        /* a sender or X: its half comes back from the absorber, then the
         * pair exchanges (senders' partners are senders too) */
        xfer(c, HCP_RECV, x->feeds, c->acc, mine0, mine1);
        hcp_end_round(c->p);
        xfer(c, HCP_SEND, x->partner, c->acc, mine0, mine1);
        xfer(c, HCP_RECV, x->partner, c->acc, other0, other1);
        return;
    }
    if (x->absorbs >= 0) {
        xfer(c, HCP_SEND, x->absorbs, c->acc, mine0, mine1);
    }
    if (x->partner >= 0) {
        xfer(c, HCP_SEND, x->partner, c->acc, mine0, mine1);
        xfer(c, HCP_RECV, x->partner, c->acc, other0, other1);
    } else {
        xfer(c, HCP_RECV, x->feeds, c->acc, other0, other1); /* Z: H0 from Y */
    }
}

static void patent(const rh_t *c, const role_t *x, int v, bool all)
{
    group_t gr = {c->nblocks / 2, half_lo(c, x->h), x->h, x->g};
    int mine0 = gr.block0, mine1 = gr.block0 + gr.size;

    /* step 1 (Z gives to Y and takes from X instead of a partner) */
    if (x->partner >= 0) {
        pairwise(c, x->h, x->partner, x->partner);
    } else {
        pairwise(c, x->h, x->feeds, x->absorbs);
    }
    /* step 2 */
    if (x->g < 0) {
        xfer(c, HCP_SEND, x->feeds, c->acc, mine0, mine1);
        hcp_end_round(c->p);
        if (all) {
            spread(c, x);
        }
        return;
    }
    if (x->absorbs >= 0 && x->partner >= 0) {
        xfer(c, HCP_RECV, x->absorbs, HCP_TMP0, mine0, mine1);
        fold(c, HCP_TMP0, mine0, mine1);
        hcp_end_round(c->p);
    }
    /* step 3 */
    halving(c, &gr, false);
    if (all) {
        doubling(c, &gr);
        spread(c, x);
        return;
    }
    gather(c, &gr);
    /* the root (v = 0, index 0 of the H0 group) gets H1 from index 0 of
     * the H1 group */
    group_t h1 = {gr.size, half_lo(c, 1), 1, 0};
    if (1 == x->h && 0 == x->g) {
        xfer(c, HCP_SEND, 0, c->acc, mine0, mine1);
    } else if (0 == v) {
        xfer(c, HCP_RECV, member(c, &h1, 0), c->acc, half_lo(c, 1), half_hi(c, 1));
    }
}

/* ------------------------------------------------------------------ */
/* The classic scheme                                                   */
/* ------------------------------------------------------------------ */

static void classic(const rh_t *c, int v, bool all)
{
    int r = c->r, N = c->nblocks;
    bool paired = v < 2 * r, dropped = paired && 1 == v % 2;
    group_t gr = {N, 0, 0, paired ? v / 2 : v - r};

    if (paired) {
        pairwise(c, v % 2, v ^ 1, v ^ 1);
        /* the odd one's reduced H1 completes the even one's vector */
        xfer(c, dropped ? HCP_SEND : HCP_RECV, v ^ 1, c->acc, half_lo(c, 1), N);
        hcp_end_round(c->p);
    }
    if (!dropped) {
        halving(c, &gr, !paired);
        if (all) {
            doubling(c, &gr);
        } else {
            gather(c, &gr);
        }
    }
    if (all && paired) {
        xfer(c, dropped ? HCP_RECV : HCP_SEND, v ^ 1, c->acc, 0, N);
    }
}

/* ------------------------------------------------------------------ */

static int plan(hcp_plan_t *p, int n, int rank, int root, int64_t count, size_t esize,
                bool in_place, bool all, bool is_classic)
{
    hcp_reset(p, esize, esize);
    if (0 == count * (int64_t) esize) {
        return hcp_finish(p);
    }
    bool result_here = all || rank == root;
    rh_t c = {.p = p, .n = n, .root = root, .count = count, .classic = is_classic};
    c.in = in_place && result_here ? HCP_RBUF : HCP_SBUF;
    c.acc = result_here ? HCP_RBUF : HCP_TMP1;
    if (1 == n) {
        if (c.in != HCP_RBUF) {
            hcp_copy1(p, HCP_RBUF, 0, c.in, 0, count);
        }
        return hcp_finish(p);
    }
    c.nblocks = hcp_pof2_floor(n);
    c.r = n - c.nblocks;
    int v = (rank - root + n) % n;

    /* The elements a rank reduces, the size of its scratch: its own half
     * in the patent's scheme, the whole vector in the classic one. */
    role_t x = patent_role(n, v);
    int64_t lo = 0, hi = count;
    if (!is_classic) {
        lo = block_start(&c, half_lo(&c, x.h));
        hi = block_start(&c, half_hi(&c, x.h));
    }
    c.tmp_base = lo;
    if (hi > lo) {
        hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, hi - lo);
    }
    if (HCP_TMP1 == c.acc) {
        c.acc_base = lo;
        hcp_scratch(p, HCP_TMP1, HCP_UNIT_RTYPE, hi - lo);
    }
    if (is_classic) {
        classic(&c, v, all);
    } else {
        patent(&c, &x, v, all);
    }
    return hcp_finish(p);
}

int hcp_allreduce_rhrd(hcp_plan_t *p, int n, int rank, int64_t count, size_t esize,
                       bool in_place)
{
    return plan(p, n, rank, 0, count, esize, in_place, true, false);
}

int hcp_reduce_rhrd(hcp_plan_t *p, int n, int rank, int root, int64_t count, size_t esize,
                    bool in_place)
{
    return plan(p, n, rank, root, count, esize, in_place, false, false);
}

int hcp_allreduce_rabenseifner(hcp_plan_t *p, int n, int rank, int64_t count, size_t esize,
                               bool in_place)
{
    return plan(p, n, rank, 0, count, esize, in_place, true, true);
}

int hcp_reduce_rabenseifner(hcp_plan_t *p, int n, int rank, int root, int64_t count,
                            size_t esize, bool in_place)
{
    return plan(p, n, rank, root, count, esize, in_place, false, true);
}
