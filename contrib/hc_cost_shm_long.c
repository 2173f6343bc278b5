/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost shm --long: the bandwidth side of the node level's model.  The
 * critical path of a bcast, reduce or allreduce of 16 KiB to 8 MiB, and
 * what each rank copies, calls and serves, for five designs:
 *
 *   flat   the single copy of the 16-core run: a bcast's n - 1 readers
 *          read the root's buffer at once (process_vm_readv) while the
 *          root writes one n-th into each (_writev, from 32 KiB); a
 *          reduction slice-parallel, each rank reading its slice of every
 *          input, then (allreduce) every result slice: 2 (n - 1) calls
 *   today  the engine before the long cells: past the group size a bcast's
 *          pieces of 256 KiB go down the levels (each rank reads its
 *          leader's buffer, a leader read by its groups' members at once);
 *          reductions as flat
 *   long   the long cells (coll_hiercoll_shm_long.c): chunks of C bytes
 *          (64 KiB) down the levels' cells (bcast), a reduce-scatter
 *          through the levels and an allgather back (reductions); no call
 *   tuned  Open MPI 4.1's fixed rules (coll_tuned_decision_fixed.c, read
 *          for each size and process count) over ob1 and vader: every
 *          message past 4 KiB a rendezvous and one process_vm_readv by its
 *          receiver (RGET); no segmentation (the rules pass segsize 0)
 *   xhc    Open MPI 6.0's xhc without XPMEM, its copy-in-copy-out limits
 *          raised: 16 KiB chunks through its levels' buffers (bcast:
 *          numa, socket; reductions: l3, numa, socket; groups not cut), a
 *          group's members folding the chunk's parts, its leaders not
 *
 * Costs.  A core copies lines homed at distance d at bw[d] (its own
 * cache's at bw_own); a fold runs at fold_gbs.  A process_vm_readv of b
 * bytes that r readers make of the same pages at once: sys_ns + pages (b)
 * x (page_ns + (r - 1) pin lat[d]) + b / bw[d] (each read pins and unpins
 * every page, two atomic updates of its count that concurrent readers take
 * in turn: Chakraborty, Subramoni, Panda, CLUSTER 2017, measured that
 * contention; page_ns and sys_ns from hc_cma_probe).  A message past 4 KiB
 * costs rndv_ns more.  A pipeline of k chunks through stages of per-core
 * work W and links of load B per chunk takes fill + (k - 1) max(W, B /
 * link); fill = one chunk through every stage with its flags.  Links: the
 * bytes into and out of one L3 domain from outside it (link_l3), from one
 * package to the other (link_pkg).
 */
#include "hc_cost_shm.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HCL_PAGE 4096.0
#define HCL_EAGER 4096      /* vader's eager limit */
#define HCL_PUSH_MIN 32768  /* HC_SHM_PUSH_MIN */
#define HCL_PIECE 131072.0  /* HC_SHM_PIECE: a slice's read */
#define HCL_TREE_PIECE 262144.0 /* HC_SHM_TREE_PIECE */
#define HCL_CHUNK 65536     /* coll_hiercoll_shm_long_chunk */
#define HCL_XHC_CHUNK 16384 /* xhc's chunk_size */
#define HCL_FANIN 8         /* coll_hiercoll_shm_group_size */
#define HCL_STEP_NS 100.0   /* a step's own work: a call, a loop, a flag stored */

const char *const hcl_design_names[HCL_NDESIGN] = {"flat", "today", "long", "tuned", "xhc"};

/* Back-to-back calls (hc_bench's and OSU's loops): a design whose ranks
 * need not wait for every other rank each call (a root that runs ahead, a
 * rank that goes once its part is read) takes its busiest rank's time per
 * call, not the critical path; 0 (--latency): one call alone. */
int hcl_loop = 1;

/* The share of the other readers of a reduction's result slices that pin
 * the same page at once (fitted: the 16-core run's 1 MiB allreduce; see
 * docs/design/shm-long.md). */
double hcl_stagger = 0.05;

enum { B_, R_, A_ }; /* (bcast, reduce, allreduce: HCS_BCAST.. mapped) */

static int kind_of(int coll)
{
    return HCS_BCAST == coll ? B_ : HCS_REDUCE == coll ? R_ : A_;
}

static double pages(double b)
{
    return ceil(b / HCL_PAGE);
}

static int dist(const hcs_node_t *m, int a, int b)
{
    return hcs_distance(m, a, b);
}

/* One process_vm_readv of b bytes at distance d, r readers of the same
 * pages at once (the page count line bouncing at distance dr). */
static double cma(const hcs_node_t *m, double b, int d, double r, int dr)
{
    if (b <= 0) {
        return 0;
    }
    r = r < 1 ? 1 : r;
    return m->sys_ns + pages(b) * (m->page_ns + (r - 1) * m->pin * m->lat[dr]) + b / m->bw[d];
}

static double fold(const hcs_node_t *m, double b)
{
    return b / m->fold_gbs;
}

/* One message of b bytes over ob1/vader, its receiver at distance d, r
 * receivers reading the sender's buffer at once. */
static double msg(const hcs_node_t *m, double b, int d, double r)
{
    if (b <= HCL_EAGER) { /* (eager: copied in and out of vader's fifo) */
        return 300.0 + 2 * m->lat[d] + 2 * b / m->bw[d];
    }
    return m->rndv_ns + cma(m, b, d, r, d);
}

static int ilog(int n, int radix)
{
    int l = 0;
    for (long p = 1; p < n; p *= radix) {
        ++l;
    }
    return l;
}

static int dmax_from(const hcs_node_t *m, int w, int n)
{
    int d = 0;
    for (int r = 0; r < n; ++r) {
        int x = r == w ? 0 : dist(m, w, r);
        d = x > d ? x : d;
    }
    return d;
}

/* ------------------------------------------------------------------ */
/* flat: the single copy the 16-core run measured                       */
/* ------------------------------------------------------------------ */

static double flat_time(const hcs_node_t *m, int k, int n, double S)
{
    int *all = malloc(sizeof(int) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        all[i] = i;
    }
    int dm = dmax_from(m, 0, n);
    double t;
    if (B_ == k) {
        double part = S >= HCL_PUSH_MIN ? floor(S / n / HCL_PAGE) * HCL_PAGE : 0;
        double r = part > 0 ? n - 2 : n - 1; /* (a part pushed into one reader: the rest read it) */
        double reader = cma(m, S - part, dm, r, dm) + (part > 0 ? m->sys_ns : 0);
        double root = (n - 1) * (part > 0 ? m->sys_ns + pages(part) * m->page_ns + part / m->bw[dm]
                                          : 0);
        t = (reader > root ? reader : root) + 2 * m->lat[dm]
            + hcs_lines_from(m, 0, all, n, NULL, 0); /* (the root waits for every done line) */
    } else {
        double slice = S / n;
        /* readers of one page at once: the neighbouring slices' */
        double rp = slice < HCL_PAGE ? HCL_PAGE / slice : 1;
        rp = rp > n - 1 ? n - 1 : rp;
        double worst = 0;
        for (int r = 0; r < n; ++r) {
            double t1 = 0, t2 = 0;
            for (int q = 0; q < n; ++q) {
                if (q == r) {
                    continue;
                }
                int d = dist(m, q, r);
                double calls = ceil(slice / HCL_PIECE);
                t1 += (calls - 1) * m->sys_ns + cma(m, slice, d, rp, dm);
                if (A_ == k) {
                    /* every rank reads every result slice, n - 1 readers of
                     * each, but in calls of a slice each that the readers
                     * make at their own pace: of the others, the share
                     * hcl_stagger pin a page at once (a star's one call of
                     * the whole message pins every page at once: there, all
                     * of them) */
                    t2 += cma(m, slice, d, 1 + (n - 2) * hcl_stagger, dm);
                } else if (0 == r) {
                    t2 += cma(m, slice, d, 1, d);
                }
            }
            t1 += fold(m, slice * (n - 1));
            worst = t1 + t2 > worst ? t1 + t2 : worst;
        }
        double sync = hcs_all_read_all(m, all, n);
        t = 2 * sync + worst + hcs_lines_from(m, 0, all, n, NULL, 0);
    }
    free(all);
    return t;
}

/* ------------------------------------------------------------------ */
/* today: a bcast's pieces down the levels by single copy               */
/* ------------------------------------------------------------------ */

/* The readers of rank w's buffer (or cell) at once in a bcast down tree t
 * from root 0: its members at every level it leads, and the top's other
 * ranks where it is the root. */
static int tree_readers(const hcs_tree_t *t, int w)
{
    int r = 0;
    for (int i = 0; i < t->nl; ++i) {
        for (int g = 0; g < t->l[i].ng; ++g) {
            if (t->l[i].g[g].lead == w) {
                r += t->l[i].g[g].n - 1;
            }
        }
    }
    return r;
}

static double today_time(const hcs_node_t *m, int k, int n, double S)
{
    if (B_ != k || n <= HCL_FANIN) {
        return flat_time(m, k, n, S);
    }
    hcs_tree_t t;
    hcs_tree_build(m, n, HCL_FANIN, &t);
    double piece = S < HCL_TREE_PIECE ? S : HCL_TREE_PIECE, sum = 0, mx = 0;
    for (int i = t.nl - 1; i >= 0; --i) { /* (top down) */
        double st = 0;
        for (int g = 0; g < t.l[i].ng; ++g) {
            const hcs_grp_t *gr = &t.l[i].g[g];
            int r = tree_readers(&t, gr->lead);
            for (int j = 1; j < gr->n; ++j) {
                int d = dist(m, gr->lead, gr->ranks[j]);
                double x = cma(m, piece, d, r, t.l[i].dist) + m->lat[d];
                st = x > st ? x : st;
            }
        }
        sum += st;
        mx = st > mx ? st : mx;
    }
    hcs_tree_free(&t);
    return sum + (ceil(S / piece) - 1) * mx;
}

/* ------------------------------------------------------------------ */
/* long: the long cells                                                 */
/* ------------------------------------------------------------------ */

/* Link loads of one stage: reader[i] copies b[i] bytes from src[i]; the
 * bytes in and out of each L3 domain and across the packages, as time on
 * their links (an L3 domain takes a line from outside once for all its
 * readers: counted once per source and reading domain). */
static double links(const hcs_node_t *m, const int *rd, const int *src, const double *b, int nc)
{
    int nl3 = hcs_cores(m) / m->cores_per_l3 + 1;
    double *in = calloc((size_t) nl3, sizeof(double)), *out = calloc((size_t) nl3, sizeof(double));
    double pk[2] = {0, 0}, worst = 0;
    for (int i = 0; i < nc; ++i) {
        int lr = hcs_l3_of(m, rd[i]), ls = hcs_l3_of(m, src[i]);
        bool first = true; /* (the domain has it already from this source) */
        for (int j = 0; j < i; ++j) {
            first &= !(src[j] == src[i] && hcs_l3_of(m, rd[j]) == lr && b[j] == b[i]);
        }
        if (lr == ls || !first) {
            continue;
        }
        in[lr] += b[i];
        out[ls] += b[i];
        if (hcs_pkg_of(m, rd[i]) != hcs_pkg_of(m, src[i])) {
            pk[hcs_pkg_of(m, rd[i]) & 1] += b[i];
        }
    }
    for (int l = 0; l < nl3; ++l) {
        double x = (in[l] > out[l] ? in[l] : out[l]) / m->link_l3;
        worst = x > worst ? x : worst;
    }
    for (int p = 0; p < 2; ++p) {
        worst = pk[p] / m->link_pkg > worst ? pk[p] / m->link_pkg : worst;
    }
    free(in);
    free(out);
    return worst;
}

/* A pipelined bcast down tree t in chunks of c (the long cells with cut
 * 8; xhc's levels with its chunk, cut 0): per chunk, a member copies from
 * its leader's cell, a leader first into its own cell then into its
 * buffer.  Returns the time for S bytes. */
static double tree_bcast(const hcs_node_t *m, const hcs_tree_t *t, int n, double S, double c,
                         int overlap)
{
    double kch = ceil(S / c), fill = 0, work = 0;
    int *rd = malloc(sizeof(int) * (size_t) n), *src = malloc(sizeof(int) * (size_t) n);
    double *b = malloc(sizeof(double) * (size_t) n), *per = calloc((size_t) n, sizeof(double));
    int nc = 0;
    per[0] = c / m->bw_own; /* (the root copies in) */
    for (int i = t->nl - 1; i >= 0; --i) {
        double st = 0, sync = 0;
        for (int g = 0; g < t->l[i].ng; ++g) {
            const hcs_grp_t *gr = &t->l[i].g[g];
            for (int j = 1; j < gr->n; ++j) {
                int q = gr->ranks[j], d = dist(m, gr->lead, q);
                /* (q leads below: into its cell, then its buffer; and the
                 * chunk's flag line comes from its leader's cache) */
                bool lead = tree_readers(t, q) > 0;
                double x = c / m->bw[d] + (lead ? c / m->bw_own : 0) + m->lat[d] + HCL_STEP_NS;
                per[q] += x;
                st = x > st ? x : st;
                rd[nc] = q, src[nc] = gr->lead, b[nc++] = c;
            }
            double y = hcs_line_to(m, gr->lead, gr->ranks + 1, gr->n - 1);
            sync = y > sync ? y : sync;
        }
        fill += st + sync;
    }
    for (int r = 0; r < n; ++r) {
        work = per[r] > work ? per[r] : work;
    }
    double lk = links(m, rd, src, b, nc);
    free(rd), free(src), free(b), free(per);
    if (overlap && hcl_loop) { /* (the root runs ahead: a call's chunks follow the last's) */
        return kch * (work > lk ? work : lk);
    }
    return fill + c / m->bw_own + (kch - 1) * (work > lk ? work : lk);
}

/* The digits of the long reductions from tree t: the levels' group sizes
 * (the largest of each), the top; the distance at each digit. */
static int digits(const hcs_node_t *m, const hcs_tree_t *t, int *rad, int *dd)
{
    int nd = 0;
    for (int i = 0; i < t->nl; ++i) {
        int mx = 0;
        for (int g = 0; g < t->l[i].ng; ++g) {
            mx = t->l[i].g[g].n > mx ? t->l[i].g[g].n : mx;
        }
        if (mx > 1) {
            rad[nd] = mx;
            dd[nd++] = t->l[i].dist;
        }
    }
    (void) m;
    return nd;
}

/* The long reductions: per chunk and rank, c in, then per digit k the
 * partners' (m_k - 1) parts of c / (m_0 .. m_k) read and m_k folded
 * (RS), and as much read back and its own part copied (AG). */
static double long_reduce(const hcs_node_t *m, const hcs_tree_t *t, int n, double S, double c,
                          int k)
{
    int rad[8], dd[8], nd = digits(m, t, rad, dd);
    double kch = ceil(S / c), work = c / m->bw_own, sync = 0, prod = 1, cross = 0, l3in = 0;
    for (int i = 0; i < nd; ++i) {
        prod *= rad[i];
        double part = c / prod, rd = (rad[i] - 1) * part / m->bw[dd[i]];
        work += rd + fold(m, rad[i] * part);      /* RS_i */
        work += rd + part / m->bw_own;            /* AG_i */
        /* (each step of a chunk waits for its partners' flag lines) */
        double f = m->lat[dd[i]] + (rad[i] - 2 > 0 ? (rad[i] - 2) * m->lat[dd[i]] / m->mlp : 0);
        sync += 2 * (f + HCL_STEP_NS);
        /* (per rank: what it reads from outside its L3, and across packages) */
        if (HCS_L3 != dd[i]) {
            l3in += 2 * (rad[i] - 1) * part;
        }
        if (HCS_NODE == dd[i]) {
            cross += 2 * (rad[i] - 1) * part;
        }
    }
    /* (a reduce: only the root's path gathers; its work is the same) */
    int inl3 = n < m->cores_per_l3 ? n : m->cores_per_l3;
    int inpk = n < hcs_cores(m) / m->pkgs ? n : hcs_cores(m) / m->pkgs;
    double lk = l3in * inl3 / m->link_l3;
    double lp = cross * inpk / 2 / m->link_pkg;
    lk = lp > lk ? lp : lk;
    work += sync; /* (a rank takes its chunks in turn: every chunk waits) */
    if (R_ == k && hcl_loop) { /* (the other ranks go once their parts are read) */
        return kch * (work > lk ? work : lk);
    }
    return work + (kch - 1) * (work > lk ? work : lk);
}

static double long_time(const hcs_node_t *m, int k, int n, double S, double c)
{
    hcs_tree_t t;
    hcs_tree_build(m, n, HCL_FANIN, &t);
    if (S < c) {
        c = S;
    }
    double x = B_ == k ? tree_bcast(m, &t, n, S, c, 1) : long_reduce(m, &t, n, S, c, k);
    hcs_tree_free(&t);
    return x;
}

/* ------------------------------------------------------------------ */
/* tuned (Open MPI 4.1's fixed rules, commutative ops)                  */
/* ------------------------------------------------------------------ */

static int tuned_bcast_alg(int n, double S)
{
    if (n < 4) {
        return S < 32768 ? 1 : S < 131072 ? 5 : S < 262144 ? 2
             : S < 524288 ? 1 : S < 1048576 ? 6 : 5;
    }
    if (n < 8) {
        return S < 8192 ? 6 : S < 1048576 ? 1 : 2;
    }
    if (n < 16) {
        return S < 16384 ? 5 : S < 32768 ? 6 : 1;
    }
    if (n < 32) {
        return S < 1048576 ? 6 : 8;
    }
    if (n < 128) {
        return 7;
    }
    if (n < 256) {
        return S < 32768 ? 1 : S < 65536 ? 5 : 7;
    }
    return S < 32768 ? 4 : 7;
}

static int tuned_reduce_alg(int n, double S)
{
    if (n < 4) {
        return S < 262144 ? 1 : S < 524288 ? 3 : S < 1048576 ? 2 : 3;
    }
    if (n < 8) {
        return S < 65536 ? 2 : S < 262144 ? 5 : S < 524288 ? 1 : S < 1048576 ? 5 : 1;
    }
    return 5;
}

static int tuned_allreduce_alg(int n, double S)
{
    if (n < 64) {
        return 6;
    }
    if (n < 128) {
        return S < 262144 ? 3 : 6;
    }
    if (n < 256) {
        return S < 131072 ? 2 : S < 262144 ? 3 : 6;
    }
    return 6;
}

static double tuned_bcast(const hcs_node_t *m, int n, double S)
{
    int alg = tuned_bcast_alg(n, S), dm = dmax_from(m, 0, n);
    double t = 0, tl = 0;
    switch (alg) {
    case 1: /* linear: n - 1 readers of the root's buffer at once */
        return m->rndv_ns + cma(m, S, dm, n - 1, dm) + (n - 1) * 200.0;
    case 2: /* chain, one segment: n - 1 hops; in a loop a middle rank's
             * receive and its successor's read of it */
        if (hcl_loop) {
            return 2 * msg(m, S, dm, 1);
        }
        for (int r = 1; r < n; ++r) {
            t += msg(m, S, dist(m, r - 1, r), 1);
        }
        return t;
    case 4:
    case 5: /* binary tree: two readers of each buffer */
        return (hcl_loop ? 2 : ilog(n + 1, 2)) * msg(m, S, dm, 2);
    case 6: { /* binomial: the root's children read at once, then theirs */
        int L = ilog(n, 2);
        for (int h = 0; h < L; ++h) {
            double x = msg(m, S, dist(m, 0, n >> (h + 1)), L - h);
            t += x;
            /* (in a loop: the busiest rank, the root's children's reads, or a
             * child's receive and its own children's) */
            tl = h > 0 ? (msg(m, S, dm, 1) + x > tl ? msg(m, S, dm, 1) + x : tl) : x;
        }
        return hcl_loop ? tl : t;
    }
    case 7: { /* knomial, radix 4 */
        int L = ilog(n, 4);
        for (int h = 0; h < L; ++h) {
            int step = 1;
            for (int i = 0; i < L - 1 - h; ++i) {
                step *= 4;
            }
            double x = msg(m, S, dist(m, 0, step), 3 * (L - h));
            t += x;
            tl = h > 0 ? (msg(m, S, dm, 1) + x > tl ? msg(m, S, dm, 1) + x : tl) : x;
        }
        return hcl_loop ? tl : t;
    }
    default: { /* scatter (binomial) and allgather (recursive doubling) */
        int L = ilog(n, 2);
        for (int h = 0; h < L; ++h) {
            t += msg(m, S / (2 << h), dist(m, 0, n >> (h + 1)), 1);
        }
        for (int i = 0; i < L; ++i) {
            t += msg(m, S * (1 << i) / n, dist(m, 0, 1 << i), 1);
        }
        return t;
    }
    }
}

static double tuned_reduce(const hcs_node_t *m, int n, double S)
{
    int alg = tuned_reduce_alg(n, S);
    double t = 0;
    if (5 == alg) { /* binomial: a receive and a fold per level */
        int L = ilog(n, 2);
        for (int h = 0; h < L; ++h) {
            t += msg(m, S, dist(m, 0, 1 << h), 1) + fold(m, S);
        }
        return t;
    }
    /* linear, chain, pipeline (one segment): n - 1 receives and folds in
     * turn; in a loop, a chain's middle rank receives, folds and is read */
    if (1 != alg && hcl_loop) {
        return 2 * msg(m, S, dmax_from(m, 0, n), 1) + fold(m, S);
    }
    for (int r = 1; r < n; ++r) {
        t += msg(m, S, dist(m, 1 == alg ? 0 : r - 1, r), 1) + fold(m, S);
    }
    return t;
}

/* A step of pairwise exchanges: every rank sends b to rank ^ 2^i; its
 * links' load (each L3 domain's ranks all send out, n/2 across the
 * packages each way). */
static double exch(const hcs_node_t *m, int n, double b, int i)
{
    int d = dist(m, 0, 1 << i);
    double t = msg(m, b, d, 1), lk = 0;
    if (HCS_L3 != d) {
        int inl3 = n < m->cores_per_l3 ? n : m->cores_per_l3;
        lk = inl3 * b / m->link_l3;
    }
    if (HCS_NODE == d) {
        double x = n / 2.0 * b / m->link_pkg;
        lk = x > lk ? x : lk;
    }
    return t > lk ? t : lk;
}

static double tuned_allreduce(const hcs_node_t *m, int n, double S)
{
    int alg = tuned_allreduce_alg(n, S), L = ilog(n, 2);
    double t = 0;
    if (2 == alg) {
        return tuned_reduce(m, n, S) + tuned_bcast(m, n, S);
    }
    for (int i = 0; i < L; ++i) {
        if (3 == alg) { /* recursive doubling: the whole vector each step */
            t += exch(m, n, S, i) + fold(m, S);
        } else { /* Rabenseifner: halving, then doubling */
            double b = S / (2 << i);
            t += 2 * exch(m, n, b, i) + fold(m, b);
        }
    }
    return t;
}

/* ------------------------------------------------------------------ */
/* xhc, copy-in-copy-out                                                */
/* ------------------------------------------------------------------ */

/* xhc's levels: runs of every rank (not cut) by l3 (its reductions'),
 * numa, package, then the top; a level kept where it merges some ranks. */
static void xtree(const hcs_node_t *m, int n, int with_l3, hcs_tree_t *t)
{
    static const char *names[] = {"l3", "numa", "package", "node"};
    int *set = malloc(sizeof(int) * (size_t) n), ns = n;
    for (int i = 0; i < n; ++i) {
        set[i] = i;
    }
    t->nl = 0;
    for (int what = with_l3 ? 0 : 1; what <= 3 && ns > 1; ++what) {
        hcs_grp_t *g = malloc(sizeof(hcs_grp_t) * (size_t) ns);
        int ng = 0;
        for (int i = 0; i < ns;) {
            int j = i;
            int key = 0 == what ? hcs_l3_of(m, set[i])
                    : 1 == what ? hcs_l3_of(m, set[i]) / m->l3_per_numa
                    : 2 == what ? hcs_pkg_of(m, set[i]) : 0;
            while (j < ns) {
                int kj = 0 == what ? hcs_l3_of(m, set[j])
                       : 1 == what ? hcs_l3_of(m, set[j]) / m->l3_per_numa
                       : 2 == what ? hcs_pkg_of(m, set[j]) : 0;
                if (kj != key) {
                    break;
                }
                ++j;
            }
            g[ng].lead = set[i];
            g[ng].n = j - i;
            g[ng].ranks = malloc(sizeof(int) * (size_t) (j - i));
            memcpy(g[ng].ranks, set + i, sizeof(int) * (size_t) (j - i));
            ++ng;
            i = j;
        }
        if (ng == ns) {
            for (int i = 0; i < ng; ++i) {
                free(g[i].ranks);
            }
            free(g);
            continue;
        }
        hcs_lvl_t *l = &t->l[t->nl++];
        l->ng = ng;
        l->g = g;
        l->dist = 0;
        for (int i = 0; i < ng; ++i) {
            for (int j = 0; j < g[i].n; ++j) {
                int d = dist(m, g[i].lead, g[i].ranks[j]);
                l->dist = d > l->dist ? d : l->dist;
            }
            set[i] = g[i].lead;
        }
        snprintf(l->name, sizeof(l->name), "%s", names[what]);
        ns = ng;
    }
    free(set);
}

static double xhc_time(const hcs_node_t *m, int k, int n, double S)
{
    hcs_tree_t t;
    double c = S < HCL_XHC_CHUNK ? S : HCL_XHC_CHUNK, kch = ceil(S / c);
    if (B_ == k) { /* numa, socket */
        xtree(m, n, 0, &t);
        double x = tree_bcast(m, &t, n, S, c, 0); /* (its leaders wait for every ack) */
        hcs_tree_free(&t);
        return x;
    }
    /* up: at each level (l3, numa, socket), the members but the leader
     * fold the chunk's parts of every member's buffer; an allreduce's
     * result goes down by xhc's bcast (the chunks pipelined through both) */
    xtree(m, n, 1, &t);
    double fill = c / m->bw_own, stmax = 0;
    for (int i = 0; i < t.nl; ++i) {
        int mx = 0;
        for (int g = 0; g < t.l[i].ng; ++g) {
            mx = t.l[i].g[g].n > mx ? t.l[i].g[g].n : mx;
        }
        int w = mx > 2 ? mx - 1 : 1;
        int d = t.l[i].dist;
        double part = c / w;
        double st = mx * part / m->bw[d] + fold(m, mx * part) + m->lat[d]
                    + (mx - 1) * m->lat[d] / m->mlp;
        fill += st;
        stmax = st > stmax ? st : stmax;
    }
    hcs_tree_free(&t);
    double work = c / m->bw_own + stmax, down = 0;
    if (A_ == k) {
        xtree(m, n, 0, &t);
        down = tree_bcast(m, &t, n, c, c, 0); /* (one chunk down) */
        hcs_tree_free(&t);
        work += c / m->bw[HCS_NUMA] + c / m->bw_own;
    }
    return fill + down + (kch - 1) * work;
}

double hcl_time(const hcs_node_t *m, int design, int coll, int n, size_t bytes, size_t chunk)
{
    if (n < 2 || n > 2 * hcs_cores(m) || design < 0 || design >= HCL_NDESIGN
        || HCS_BARRIER == coll) {
        return -1;
    }
    int k = kind_of(coll);
    double S = (double) bytes, c = chunk ? (double) chunk : HCL_CHUNK;
    switch (design) {
    case HCL_FLAT: return flat_time(m, k, n, S);
    case HCL_TODAY: return today_time(m, k, n, S);
    case HCL_LONG: return long_time(m, k, n, S, c);
    case HCL_TUNED:
        return B_ == k ? tuned_bcast(m, n, S) : R_ == k ? tuned_reduce(m, n, S)
                                                        : tuned_allreduce(m, n, S);
    default: return xhc_time(m, k, n, S);
    }
}

/* ------------------------------------------------------------------ */
/* Counts                                                               */
/* ------------------------------------------------------------------ */

void hcl_counts(const hcs_node_t *m, int design, int coll, int n, size_t bytes, hcl_counts_t *c)
{
    int k = kind_of(coll);
    double S = (double) bytes;
    hcs_tree_t t;
    memset(c, 0, sizeof(*c));
    int far = m->pkgs > 1 ? n - hcs_cores(m) / m->pkgs : 0; /* ranks on the other package */
    far = far < 0 ? 0 : far;
    if (HCL_FLAT == design || (HCL_TODAY == design && (B_ != k || n <= HCL_FANIN))) {
        if (B_ == k) {
            c->bytes_mean = S * (n - 1) / n;
            c->bytes_max = S;
            c->bytes_far = S * far / n;
            c->calls_max = S >= HCL_PUSH_MIN ? n - 1 : 1;
            c->readers_max = n - 1;
        } else {
            double per = S * (n - 1) / n; /* my slice of every input */
            double out = A_ == k ? per : 0;
            c->bytes_mean = per + (A_ == k ? per : per / n);
            c->bytes_max = per + (A_ == k ? per : per);
            c->bytes_far = (per + out) * (double) far / n * 2 * (n - far) / n;
            c->calls_max = (n - 1) * ceil(S / n / HCL_PIECE) + (n - 1);
            c->readers_max = n - 1;
        }
        return;
    }
    if (HCL_TODAY == design || HCL_LONG == design) {
        hcs_tree_build(m, n, HCL_FANIN, &t);
        if (B_ == k) {
            int leaders = 0, rmax = 0;
            for (int r = 0; r < n; ++r) {
                int x = tree_readers(&t, r);
                leaders += x > 0 && r != 0;
                rmax = x > rmax ? x : rmax;
            }
            c->readers_max = rmax;
            if (HCL_TODAY == design) {
                c->bytes_mean = S * (n - 1) / n;
                c->bytes_max = S;
                c->calls_max = ceil(S / HCL_TREE_PIECE);
            } else { /* (the root's copy in, every other rank's out, the leaders' twice) */
                c->bytes_mean = S * (n + leaders) / n;
                c->bytes_max = 2 * S;
            }
            c->bytes_far = S * (m->pkgs > 1 && n > hcs_cores(m) / m->pkgs ? 1.0 / n : 0);
        } else {
            /* every rank: its input in, (m_k - 1) parts of S / stride_{k+1}
             * read at RS_k; at AG_k as much read back and its own part
             * copied, by every rank of an allreduce, by stride_k / n of a
             * reduce's (those whose digits from k up are the root's) */
            int rad[8], dd[8], nd = digits(m, &t, rad, dd);
            double b = S, ag = 0, agr = 0, prod = 1, fb = 0, rmax = 0;
            for (int i = 0; i < nd; ++i) {
                double below = prod;
                prod *= rad[i];
                b += (rad[i] - 1) * S / prod;
                ag += rad[i] * S / prod;
                agr += below / n * rad[i] * S / prod;
                fb += HCS_NODE == dd[i] ? (1 + (A_ == k ? 1 : below / n)) * (rad[i] - 1) * S / prod
                                        : 0;
                rmax = rad[i] - 1 > rmax ? rad[i] - 1 : rmax;
            }
            c->bytes_mean = b + (A_ == k ? ag : agr);
            c->bytes_max = b + ag;
            c->bytes_far = fb;
            c->readers_max = rmax;
        }
        hcs_tree_free(&t);
        return;
    }
    if (HCL_TUNED == design) {
        int L = ilog(n, 2);
        if (B_ == k) {
            int alg = tuned_bcast_alg(n, S);
            c->bytes_mean = S * (n - 1) / n;
            c->bytes_max = 8 == alg ? 2 * S : S;
            c->calls_max = 8 == alg ? 2 * L : 1;
            c->readers_max = 1 == alg ? n - 1 : 7 == alg ? 3 * ilog(n, 4) : 6 == alg ? L : 2;
        } else if (R_ == k) {
            int alg = tuned_reduce_alg(n, S);
            c->bytes_max = 5 == alg ? L * S : 1 == alg ? (n - 1) * S : S;
            c->bytes_mean = S * (n - 1) / n;
            c->calls_max = 5 == alg ? L : 1 == alg ? n - 1 : 1;
            c->readers_max = 1;
        } else {
            int alg = tuned_allreduce_alg(n, S);
            double b = 3 == alg ? L * S : 2 * S * (n - 1) / n;
            c->bytes_mean = c->bytes_max = b;
            c->calls_max = 3 == alg ? L : 2 * L;
            c->readers_max = 1;
        }
        c->bytes_far = c->bytes_mean * far / (n > 0 ? n : 1) / 2;
        return;
    }
    /* xhc: its bcast's levels numa, socket (a reduction's result goes
     * down them too), groups not cut */
    xtree(m, n, 0, &t);
    int rmax = 0, leaders = 0;
    for (int r = 0; r < n; ++r) {
        int x = tree_readers(&t, r);
        leaders += x > 0 && r != 0;
        rmax = x > rmax ? x : rmax;
    }
    c->readers_max = rmax;
    if (B_ == k) {
        c->bytes_mean = S * (n + leaders) / n;
        c->bytes_max = 2 * S;
    } else { /* in, a level's fold of every member's part, the result down */
        c->bytes_mean = S + S + (A_ == k ? S * (n + leaders) / n : 0);
        c->bytes_max = S + S + (A_ == k ? 2 * S : 0);
    }
    c->bytes_far = S * (m->pkgs > 1 && n > hcs_cores(m) / m->pkgs ? 1.0 / n : 0);
    hcs_tree_free(&t);
}

/* ------------------------------------------------------------------ */
/* Tables                                                               */
/* ------------------------------------------------------------------ */

static size_t lsizes[16] = {16384, 65536, 262144, 1048576, 4194304, 8388608};
static size_t NLS = 6;

/* --bytes LIST instead of the sizes above */
void hcl_set_sizes(const size_t *b, int nb)
{
    NLS = 0;
    for (int i = 0; i < nb && i < 16; ++i) {
        lsizes[NLS++] = b[i];
    }
}

int hc_cost_shm_long(const hcs_node_t *const *nodes, int nnode, const int *ns, int nn, int csv,
                     size_t chunk)
{
    static const int colls[] = {HCS_BCAST, HCS_REDUCE, HCS_ALLREDUCE};
    if (csv) {
        printf("node,coll,bytes,n,design,time_us\n");
    }
    for (int x = 0; x < nnode; ++x) {
        const hcs_node_t *m = nodes[x];
        if (!csv) {
            printf("# %s: long data, critical path in us (design / tuned: below 1, faster than "
                   "tuned); single copy: call %.0f ns, page %.0f ns, a further reader of a page "
                   "%.0f x the line; rendezvous %.0f ns; long cells of %zu bytes\n",
                   m->name, m->sys_ns, m->page_ns, m->pin, m->rndv_ns,
                   chunk ? chunk : (size_t) HCL_CHUNK);
            printf("%-10s %8s %5s %10s %10s %10s %10s %10s  %s\n", "coll", "bytes", "n", "flat",
                   "today", "long", "tuned", "xhc", "long/tuned, long/xhc, long/today");
        }
        for (int ci = 0; ci < 3; ++ci) {
            for (size_t z = 0; z < NLS; ++z) {
                for (int i = 0; i < nn; ++i) {
                    double tt[HCL_NDESIGN];
                    for (int d = 0; d < HCL_NDESIGN; ++d) {
                        tt[d] = hcl_time(m, d, colls[ci], ns[i], lsizes[z], chunk) / 1000.0;
                    }
                    if (tt[0] < 0) {
                        continue;
                    }
                    if (csv) {
                        for (int d = 0; d < HCL_NDESIGN; ++d) {
                            printf("%s,%s,%zu,%d,%s,%.3f\n", m->name, hcs_coll_names[colls[ci]],
                                   lsizes[z], ns[i], hcl_design_names[d], tt[d]);
                        }
                        continue;
                    }
                    printf("%-10s %8zu %5d %10.1f %10.1f %10.1f %10.1f %10.1f  %.2f %.2f %.2f\n",
                           hcs_coll_names[colls[ci]], lsizes[z], ns[i], tt[0], tt[1], tt[2], tt[3],
                           tt[4], tt[2] / tt[3], tt[2] / tt[4], tt[2] / tt[1]);
                }
            }
        }
        if (!csv && x + 1 < nnode) {
            printf("\n");
        }
    }
    return 0;
}

/* The 16-core run (docs/design/node-hierarchy-model.md): t(tuned) /
 * t(hiercoll) measured there for the single copy of that day (flat),
 * against the model's. */
static const struct {
    int coll, n;
    size_t bytes;
    double lo, hi; /* measured (the runs' range) */
} runs16[] = {
    {HCS_BCAST, 4, 1048576, 1.05, 1.18},   {HCS_REDUCE, 4, 16384, 0.71, 0.79},
    {HCS_ALLREDUCE, 4, 262144, 0.76, 0.76}, {HCS_ALLREDUCE, 4, 524288, 0.95, 0.95},
    {HCS_BCAST, 8, 1048576, 0.76, 0.91},   {HCS_REDUCE, 8, 16384, 0.41, 0.42},
    {HCS_ALLREDUCE, 8, 16384, 0.52, 0.54}, {HCS_BCAST, 16, 16384, 0.45, 0.45},
    {HCS_BCAST, 16, 1048576, 0.25, 0.28},  {HCS_REDUCE, 16, 16384, 0.27, 0.32},
    {HCS_REDUCE, 16, 1048576, 3.40, 3.40}, {HCS_ALLREDUCE, 16, 16384, 0.32, 0.32},
    {HCS_ALLREDUCE, 16, 1048576, 0.93, 0.93},
};

int hc_cost_shm_reproduce(const hcs_node_t *m, int csv)
{
    int n = (int) (sizeof(runs16) / sizeof(runs16[0])), agree = 0;
    double lsum = 0;
    if (csv) {
        printf("coll,n,bytes,measured_lo,measured_hi,model,flat_us,tuned_us\n");
    } else {
        printf("# %s: the 16-core run, t(tuned) / t(hiercoll's single copy), measured against "
               "the model\n%-10s %3s %8s %14s %8s %10s %10s\n", m->name, "coll", "n", "bytes",
               "measured", "model", "flat_us", "tuned_us");
    }
    for (int i = 0; i < n; ++i) {
        double f = hcl_time(m, HCL_FLAT, runs16[i].coll, runs16[i].n, runs16[i].bytes, 0);
        double t = hcl_time(m, HCL_TUNED, runs16[i].coll, runs16[i].n, runs16[i].bytes, 0);
        double r = t / f, mid = sqrt(runs16[i].lo * runs16[i].hi);
        agree += (r < 1) == (mid < 1);
        lsum += fabs(log(r / mid));
        if (csv) {
            printf("%s,%d,%zu,%.2f,%.2f,%.2f,%.1f,%.1f\n", hcs_coll_names[runs16[i].coll],
                   runs16[i].n, runs16[i].bytes, runs16[i].lo, runs16[i].hi, r, f / 1e3, t / 1e3);
        } else {
            printf("%-10s %3d %8zu %6.2f-%-6.2f %8.2f %10.1f %10.1f\n",
                   hcs_coll_names[runs16[i].coll], runs16[i].n, runs16[i].bytes, runs16[i].lo,
                   runs16[i].hi, r, f / 1e3, t / 1e3);
        }
    }
    if (!csv) {
        printf("# %d of %d on the measured side of 1; the model's ratio within a factor %.2f of "
               "the measured on average (geometric)\n", agree, n, exp(lsum / n));
    }
    return agree == n ? 0 : 1;
}

/* The counts table: 64 ranks on pack:2 numa:2 l3:4 core:4 (the suite's
 * synthetic topology), 1 MiB, per rank and call, in units of the message
 * (L). */
void hcl_counts_table(int csv)
{
    hcs_node_t sy = hcs_xeon;
    sy.name = "pack:2 numa:2 l3:4 core:4";
    sy.pkgs = 2, sy.numa_per_pkg = 2, sy.l3_per_numa = 4, sy.cores_per_l3 = 4;
    static const int colls[] = {HCS_BCAST, HCS_REDUCE, HCS_ALLREDUCE};
    const double L = 1048576;
    if (csv) {
        printf("coll,design,bytes_mean_L,bytes_max_L,bytes_across_L,calls_max,readers_max\n");
    } else {
        printf("# counts per rank and call, 64 ranks on %s, 1 MiB (L): bytes copied (mean, most "
               "of one rank, across packages), system calls (most), readers of one buffer "
               "(most)\n%-10s %-6s %8s %8s %8s %8s %8s\n", sy.name, "coll", "design", "mean",
               "max", "across", "calls", "readers");
    }
    for (int ci = 0; ci < 3; ++ci) {
        for (int d = 0; d < HCL_NDESIGN; ++d) {
            hcl_counts_t c;
            hcl_counts(&sy, d, colls[ci], 64, (size_t) L, &c);
            if (csv) {
                printf("%s,%s,%.3f,%.3f,%.4f,%.0f,%.0f\n", hcs_coll_names[colls[ci]],
                       hcl_design_names[d], c.bytes_mean / L, c.bytes_max / L, c.bytes_far / L,
                       c.calls_max, c.readers_max);
            } else {
                printf("%-10s %-6s %8.3f %8.3f %8.4f %8.0f %8.0f\n", hcs_coll_names[colls[ci]],
                       hcl_design_names[d], c.bytes_mean / L, c.bytes_max / L, c.bytes_far / L,
                       c.calls_max, c.readers_max);
            }
        }
    }
}
