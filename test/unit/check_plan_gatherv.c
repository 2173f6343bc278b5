/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Tree gatherv/scatterv with message chains (coll_hiercoll_plan_gatherv.c):
 * chains against an independent reference of the paper's rules, src_lists
 * and the tree for process counts up to 32,768 with random layouts (zeros,
 * gaps, shuffled displacements), every root at small n, byte-exact results
 * through the simulator (the same bytes as the linear plan, gaps left
 * alone), stage 0's records, and the root's partners, messages, copies and
 * rounds against the model and against linear.
 */
#include "unit_common.h"

#include <string.h>

/* ------------------------------------------------------------------ */
/* Layouts                                                              */
/* ------------------------------------------------------------------ */

typedef enum {
    L_CONTIG,   /* rank order, back to back: one continuous chain per child */
    L_RUNS,     /* runs of consecutive ranks back to back, runs shuffled, gaps */
    L_SHUFFLED, /* every block somewhere else, gaps: no chain continuous */
    L_REVERSED, /* descending: never continuous */
    L_SPARSE,   /* mostly empty blocks */
    L_NKINDS
} lkind_t;

static const char *lname[L_NKINDS] = {"contiguous", "runs", "shuffled", "reversed", "sparse"};

typedef struct layout {
    int n;
    int *counts, *displs;
    int64_t span; /* units */
} layout_t;

static void shuffle(int *v, int n, uint64_t *seed)
{
    for (int i = n - 1; i > 0; --i) {
        int j = (int) (unit_rand(seed) % (uint64_t) (i + 1));
        int t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static layout_t make_layout(int n, lkind_t kind, uint64_t seed)
{
    layout_t l = {.n = n};
    l.counts = malloc(sizeof(int) * (size_t) n);
    l.displs = malloc(sizeof(int) * (size_t) n);
    int *order = malloc(sizeof(int) * (size_t) n);
    int *runs = malloc(sizeof(int) * ((size_t) n + 1)); /* run starts */
    int nruns = 0;
    for (int i = 0; i < n; ++i) {
        uint64_t r = unit_rand(&seed);
        l.counts[i] = L_SPARSE == kind ? (0 == r % 9 ? 1 + (int) (r % 3) : 0) : (int) (r % 4);
        order[i] = L_REVERSED == kind ? n - 1 - i : i;
    }
    /* cut rank order into runs; runs are laid out in shuffled order */
    for (int i = 0; i < n;) {
        runs[nruns++] = i;
        i += L_CONTIG == kind ? n : L_RUNS == kind ? 1 + (int) (unit_rand(&seed) % 8) : 1;
    }
    runs[nruns] = n;
    int *perm = malloc(sizeof(int) * (size_t) nruns);
    for (int k = 0; k < nruns; ++k) {
        perm[k] = k;
    }
    if (L_RUNS == kind || L_SHUFFLED == kind || L_SPARSE == kind) {
        shuffle(perm, nruns, &seed);
    }
    int64_t pos = 0;
    for (int k = 0; k < nruns; ++k) {
        if (L_CONTIG != kind) {
            pos += (int64_t) (unit_rand(&seed) % 3); /* a gap, sometimes */
        }
        for (int i = runs[perm[k]]; i < runs[perm[k] + 1]; ++i) {
            l.displs[order[i]] = (int) pos;
            pos += l.counts[order[i]];
        }
    }
    l.span = pos;
    free(order);
    free(runs);
    free(perm);
    return l;
}

static void free_layout(layout_t *l)
{
    free(l->counts);
    free(l->displs);
}

/* ------------------------------------------------------------------ */
/* Chains                                                               */
/* ------------------------------------------------------------------ */

/* An independent reading of the four rules: the continuous chains are
 * exactly the maximal runs (two blocks or more) of non-empty blocks that
 * lie back to back; the non-empty blocks between two such runs form one
 * non-continuous chain.  Chains as (first, last) non-empty blocks. */
typedef struct ref_chain {
    int first, last;
    bool direct;
} ref_chain_t;

static int ref_chains(const hcp_vblock_t *blk, int k, ref_chain_t *out)
{
    int *m = malloc(sizeof(int) * ((size_t) k + 1)), nm = 0, nch = 0;
    for (int i = 0; i < k; ++i) {
        if (blk[i].count > 0) {
            m[nm++] = i;
        }
    }
    int i = 0;
    while (i < nm) {
        int j = i;
        while (j + 1 < nm
               && (int64_t) blk[m[j]].displ + blk[m[j]].count == blk[m[j + 1]].displ) {
            ++j;
        }
        if (j > i) { /* a run: continuous */
            out[nch++] = (ref_chain_t){m[i], m[j], true};
            i = j + 1;
            continue;
        }
        /* a stretch of blocks outside runs, up to the next run's start */
        j = i;
        while (j + 1 < nm
               && !(j + 2 < nm
                    && (int64_t) blk[m[j + 1]].displ + blk[m[j + 1]].count
                           == blk[m[j + 2]].displ)) {
            ++j;
        }
        out[nch++] = (ref_chain_t){m[i], m[j], i == j};
        i = j + 1;
    }
    free(m);
    return nch;
}

/* hcp_vchains against the reference; the chains also tile the blocks
 * from the first non-empty one to the end. */
static void check_chains(const hcp_vblock_t *blk, int k, const char *what)
{
    hcp_vchain_t *got = malloc(sizeof(*got) * ((size_t) k + 1));
    ref_chain_t *want = malloc(sizeof(*want) * ((size_t) k + 1));
    int ng = hcp_vchains(blk, k, got), nw = ref_chains(blk, k, want);
    ck_assert_msg(ng == nw, "%s: %d chains, want %d", what, ng, nw);
    for (int c = 0; c < ng; ++c) {
        int last = got[c].end - 1;
        while (last > got[c].first && 0 == blk[last].count) {
            --last;
        }
        ck_assert_msg(got[c].first == want[c].first && last == want[c].last
                          && got[c].direct == want[c].direct,
                      "%s: chain %d is [%d..%d]%s, want [%d..%d]%s", what, c, got[c].first, last,
                      got[c].direct ? " direct" : "", want[c].first, want[c].last,
                      want[c].direct ? " direct" : "");
        ck_assert_int_eq(got[c].end, c + 1 < ng ? got[c + 1].first : k);
    }
    free(got);
    free(want);
}

/* Blocks from (count, displ) pairs. */
static int blocks(hcp_vblock_t *b, const int *cd, int k)
{
    for (int i = 0; i < k; ++i) {
        b[i].count = cd[2 * i];
        b[i].displ = cd[2 * i + 1];
    }
    return k;
}

START_TEST(chains_by_the_rules)
{
    hcp_vblock_t b[16];
    hcp_vchain_t c[16];
    /* a b c d, all back to back: one continuous chain */
    int all[] = {2, 0, 1, 2, 3, 3, 1, 6};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, all, 4), c), 1);
    ck_assert(c[0].direct && 0 == c[0].first && 4 == c[0].end);
    /* none back to back: one non-continuous chain */
    int none[] = {1, 9, 1, 0, 1, 5, 1, 2};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, none, 4), c), 1);
    ck_assert(!c[0].direct && 0 == c[0].first && 4 == c[0].end);
    /* rule 2: a | b c d  (a not before b; b c d back to back): a alone
     * (a chain of one, taken directly), then the continuous chain at b */
    int r2[] = {1, 20, 2, 0, 1, 2, 1, 3};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, r2, 4), c), 2);
    ck_assert(0 == c[0].first && 1 == c[0].end && c[0].direct);
    ck_assert(1 == c[1].first && 4 == c[1].end && c[1].direct);
    /* rule 2 after rule 3: a b | c d: the non-continuous chain a b closes
     * before c, which starts the continuous chain c d */
    int r23[] = {1, 20, 1, 10, 2, 0, 1, 2};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, r23, 4), c), 2);
    ck_assert(0 == c[0].first && 2 == c[0].end && !c[0].direct);
    ck_assert(2 == c[1].first && 4 == c[1].end && c[1].direct);
    /* rule 4 then rule 3: a b | c d e (a b back to back, c d e not) */
    int r4[] = {1, 0, 1, 1, 1, 9, 1, 7, 1, 5};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, r4, 5), c), 2);
    ck_assert(0 == c[0].first && 2 == c[0].end && c[0].direct);
    ck_assert(2 == c[1].first && 5 == c[1].end && !c[1].direct);
    /* two runs in a row: a b | c d */
    int rr[] = {1, 0, 1, 1, 1, 9, 1, 10};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, rr, 4), c), 2);
    ck_assert(c[0].direct && c[1].direct && 2 == c[1].first);
    /* empty blocks neither join nor split: a (0 at 50) b stays one run */
    int z[] = {0, 7, 2, 0, 0, 50, 1, 2, 0, 3};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, z, 5), c), 1);
    ck_assert(c[0].direct && 1 == c[0].first && 5 == c[0].end);
    /* nothing at all */
    int e[] = {0, 0, 0, 4};
    ck_assert_int_eq(hcp_vchains(b, blocks(b, e, 2), c), 0);
    check_chains(b, blocks(b, r23, 4), "r23");
    check_chains(b, blocks(b, r4, 5), "r4");
    check_chains(b, blocks(b, z, 5), "z");
}
END_TEST

/* ------------------------------------------------------------------ */
/* src_list and the tree, up to 32,768 processes                        */
/* ------------------------------------------------------------------ */

/* Every node's src_list is its subtree in relative order, made of its own
 * block and its children's src_lists; the chains between the root and
 * its children agree with the reference. */
static void check_tree(const layout_t *l, int root, const char *what)
{
    int n = l->n;
    hcp_vblock_t *all = malloc(sizeof(*all) * (size_t) n);
    hcp_vtree_src_list(n, root, 0, l->counts, l->displs, all);
    int kids[64];
    int64_t covered = 0;
    for (int v = 0; v < n; ++v) {
        int sub = hcp_binomial_subtree(n, v);
        hcp_vblock_t *blk = malloc(sizeof(*blk) * (size_t) sub);
        hcp_vtree_src_list(n, root, v, l->counts, l->displs, blk);
        ck_assert_int_eq(blk[0].count, l->counts[(v + root) % n]);
        ck_assert_int_eq(blk[0].displ, l->displs[(v + root) % n]);
        ck_assert_msg(0 == memcmp(blk, all + v, sizeof(*blk) * (size_t) sub),
                      "%s: src_list of %d is not its slice of the root's", what, v);
        int k = hcp_binomial_children(n, v, kids, 64), total = 1;
        for (int i = 0; i < k; ++i) {
            ck_assert_int_eq(hcp_binomial_parent(kids[i]), v);
            ck_assert_int_eq(kids[i], v + total); /* children tile the subtree */
            total += hcp_binomial_subtree(n, kids[i]);
        }
        ck_assert_int_eq(total, sub);
        if (0 == v) {
            ck_assert_int_eq(k, hcp_ceil_log2(n));
        } else if (0 == hcp_binomial_parent(v)) {
            check_chains(blk, sub, what);
            covered += sub;
        }
        free(blk);
    }
    ck_assert_int_eq(covered, n - 1); /* the root's children cover everybody else */
    free(all);
}

START_TEST(tree_and_src_lists)
{
    for (int n = 1; n <= 300; ++n) {
        for (int kind = 0; kind < L_NKINDS; ++kind) {
            layout_t l = make_layout(n, kind, (uint64_t) n * 31 + kind);
            check_tree(&l, (n * 7 + kind) % n, lname[kind]);
            free_layout(&l);
        }
    }
    for (int i = 0; i < UNIT_NBIG; ++i) {
        int n = unit_big_sizes[i];
        layout_t l = make_layout(n, i % L_NKINDS, (uint64_t) n);
        check_tree(&l, n / 3, lname[i % L_NKINDS]);
        free_layout(&l);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Plans through the simulator                                          */
/* ------------------------------------------------------------------ */

/* gatherv: senders have ssize-byte elements, the root usize-byte ones;
 * scatterv: the root's blocks are usize-byte elements, receivers get
 * ssize-byte ones. */
typedef struct vargs {
    const layout_t *l;
    int root;
    size_t ssize, usize;
    bool in_place, tree, scatter;
} vargs_t;

static int64_t own_count(const vargs_t *a, int rank)
{
    return (int64_t) a->l->counts[rank] * (int64_t) a->usize / (int64_t) a->ssize;
}

static int plan_v(hcp_plan_t *p, int rank, void *arg)
{
    const vargs_t *a = arg;
    int n = a->l->n;
    bool ip = a->in_place && rank == a->root;
    const int *cnt = a->l->counts, *dsp = a->l->displs;
    if (!a->tree) {
        return a->scatter ? hcp_scatterv_linear(p, n, rank, a->root, cnt, dsp, 0, a->usize,
                                                own_count(a, rank), a->ssize, ip)
                          : hcp_gatherv_linear(p, n, rank, a->root, own_count(a, rank), a->ssize,
                                               cnt, dsp, 0, a->usize, ip);
    }
    int v = (rank - a->root + n) % n;
    hcp_vblock_t *blk = malloc(sizeof(*blk) * (size_t) hcp_binomial_subtree(n, v));
    hcp_vtree_src_list(n, a->root, v, cnt, dsp, blk);
    int rc = a->scatter ? hcp_scatterv_tree(p, n, rank, a->root, blk, a->usize,
                                            own_count(a, rank), a->ssize, ip)
                        : hcp_gatherv_tree(p, n, rank, a->root, blk, a->usize,
                                           own_count(a, rank), a->ssize, ip);
    free(blk);
    return rc;
}

/* The root's buffer's units: its layout's span. */
static int64_t root_units(int rank, void *arg)
{
    const vargs_t *a = arg;
    return rank == a->root ? a->l->span : -1;
}

static int64_t own_units(int rank, void *arg)
{
    return own_count(arg, rank);
}

typedef struct range {
    int64_t off, len;
} range_t;

static int cmp_range(const void *x, const void *y)
{
    const range_t *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* A symbol for what the root's buffer holds before: gaps must keep it. */
static sim_val_t background(int n)
{
    return sim_input(n + 1);
}

/* Run one gatherv or scatterv through the simulator and check every
 * byte: each block where it belongs, the root's gaps untouched. */
static sim_t *run_v(const vargs_t *a, const char *what)
{
    const layout_t *l = a->l;
    int n = l->n, root = a->root;
    int64_t us = (int64_t) a->usize;
    sim_t *s = sim_new(n, true);
    if (a->scatter) {
        UNIT_PLAN(s, plan_v, (void *) a, root_units, own_units);
    } else {
        UNIT_PLAN(s, plan_v, (void *) a, own_units, root_units);
    }
    int ubuf = a->scatter ? HCP_SBUF : HCP_RBUF;  /* the root's laid-out buffer */
    int obuf = a->scatter ? HCP_RBUF : HCP_SBUF;  /* everybody's own block */
    sim_set(s, root, ubuf, 0, l->span * us, background(n));
    for (int r = 0; r < n; ++r) {
        sim_val_t mine = sim_shifted(sim_input(r), -l->displs[r] * us);
        if (a->scatter || (a->in_place && r == root)) {
            sim_set(s, root, ubuf, l->displs[r] * us, l->counts[r] * us, mine);
        } else {
            sim_set(s, r, obuf, 0, l->counts[r] * us, sim_input(r));
        }
    }
    UNIT_RUN(s, NULL, "%s n=%d root=%d", what, n, root);
    if (a->scatter) {
        for (int r = 0; r < n; ++r) {
            if (!(a->in_place && r == root)) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, l->counts[r] * us, sim_input(r), false,
                            "%s n=%d root=%d rank %d", what, n, root, r);
            }
        }
        return s;
    }
    /* gatherv: the blocks, and the background everywhere else */
    range_t *blocks = malloc(sizeof(*blocks) * (size_t) n);
    for (int r = 0; r < n; ++r) {
        UNIT_EXPECT(s, root, HCP_RBUF, l->displs[r] * us, l->counts[r] * us,
                    sim_shifted(sim_input(r), -l->displs[r] * us), false,
                    "%s n=%d root=%d block %d", what, n, root, r);
        blocks[r] = (range_t){l->displs[r], l->counts[r]};
    }
    qsort(blocks, (size_t) n, sizeof(*blocks), cmp_range);
    int64_t pos = 0;
    for (int k = 0; k < n; ++k) {
        if (blocks[k].off > pos) {
            UNIT_EXPECT(s, root, HCP_RBUF, pos * us, (blocks[k].off - pos) * us, background(n),
                        false, "%s n=%d root=%d gap", what, n, root);
        }
        if (blocks[k].off + blocks[k].len > pos) {
            pos = blocks[k].off + blocks[k].len;
        }
    }
    free(blocks);
    return s;
}

/* The same without data, for costs only. */
static sim_t *cost_v(const vargs_t *a)
{
    sim_t *s = sim_new(a->l->n, false);
    UNIT_PLAN(s, plan_v, (void *) a, NULL, NULL);
    UNIT_RUN(s, NULL, "n=%d", a->l->n);
    return s;
}

/* What the model says about the root: its children with data are its
 * partners, each chain is one message, it copies its own block and the
 * packed chains, one round per child; its scratch holds one child's
 * packed chains, never more than the paper's bound (everything but the
 * root's and its direct leaves' blocks).  Inner nodes hold their
 * subtree. */
typedef struct model {
    int partners, msgs, rounds_max;
    int64_t copied, scratch, paper_scratch;
} model_t;

static model_t tree_model(const vargs_t *a)
{
    const layout_t *l = a->l;
    int n = l->n, kids[64];
    int64_t us = (int64_t) a->usize;
    model_t m = {0};
    hcp_vblock_t *all = malloc(sizeof(*all) * (size_t) n);
    ref_chain_t *ch = malloc(sizeof(*ch) * (size_t) n);
    hcp_vtree_src_list(n, a->root, 0, l->counts, l->displs, all);
    int k = hcp_binomial_children(n, 0, kids, 64);
    for (int i = 0; i < k; ++i) {
        int sub = hcp_binomial_subtree(n, kids[i]), nch = ref_chains(all + kids[i], sub, ch);
        int64_t packed = 0, bytes = 0;
        for (int c = 0; c < nch; ++c) {
            for (int j = ch[c].first; j <= ch[c].last && !ch[c].direct; ++j) {
                packed += all[kids[i] + j].count * us;
            }
        }
        for (int j = 0; j < sub; ++j) {
            bytes += all[kids[i] + j].count * us;
        }
        m.partners += nch > 0;
        m.msgs += nch;
        m.copied += packed;
        m.scratch = packed > m.scratch ? packed : m.scratch;
        m.paper_scratch += sub > 1 ? bytes : 0;
    }
    m.rounds_max = k > 0 ? k : 1; /* n = 1: the own block's copy */
    if (!a->in_place) {
        m.copied += all[0].count * us;
    }
    free(all);
    free(ch);
    return m;
}

static void check_costs(sim_t *s, const vargs_t *a, const char *what)
{
    int n = a->l->n, root = a->root;
    model_t m = tree_model(a);
    const sim_stats_t *st = sim_stats(s, root);
    const hcp_plan_t *rp = sim_plan(s, root);
    int64_t partners = a->scatter ? st->send_partners : st->recv_partners;
    int64_t msgs = a->scatter ? st->msgs_sent : st->msgs_recv;
    ck_assert_msg(partners == m.partners && msgs == m.msgs && st->bytes_copied == m.copied,
                  "%s n=%d root=%d: partners %lld msgs %lld copied %lld, model %d %d %lld", what,
                  n, root, (long long) partners, (long long) msgs, (long long) st->bytes_copied,
                  m.partners, m.msgs, (long long) m.copied);
    ck_assert_int_le(st->rounds, m.rounds_max + (a->scatter ? 1 : 0));
    ck_assert_int_le(partners, hcp_ceil_log2(n));
    ck_assert_int_eq(rp->tmp_units[HCP_TMP0], m.scratch);
    ck_assert_int_le(m.scratch, m.paper_scratch);
    for (int r = 0; r < n; ++r) {
        int v = (r - root + n) % n;
        if (0 == v || 1 == hcp_binomial_subtree(n, v)) {
            continue;
        }
        int64_t bytes = 0;
        for (int j = 0; j < hcp_binomial_subtree(n, v); ++j) {
            bytes += a->l->counts[(v + j + root) % n] * (int64_t) a->usize;
        }
        ck_assert_int_eq(sim_plan(s, r)->tmp_units[HCP_TMP0], bytes);
        ck_assert_int_le(sim_stats(s, r)->rounds, 2);
    }
}

/* gatherv and scatterv, the tree (and linear, to the same bytes), in
 * place or not */
static void check_both(const layout_t *l, int root, bool in_place, bool linear_too)
{
    for (int sc = 0; sc < 2; ++sc) {
        for (int tree = !linear_too; tree < 2; ++tree) {
            vargs_t a = {.l = l, .root = root, .ssize = 2, .usize = 4, .in_place = in_place,
                         .tree = tree, .scatter = sc};
            const char *what = sc ? (tree ? "scatterv tree" : "scatterv linear")
                                  : (tree ? "gatherv tree" : "gatherv linear");
            sim_t *s = run_v(&a, what);
            if (tree) {
                check_costs(s, &a, what);
            }
            sim_free(s);
        }
    }
}

START_TEST(every_root)
{
    for (int n = 1; n <= 34; ++n) {
        for (int kind = 0; kind < L_NKINDS; ++kind) {
            layout_t l = make_layout(n, kind, (uint64_t) (n * 101 + kind));
            for (int root = 0; root < n; ++root) {
                check_both(&l, root, (root + kind) % 2, true);
            }
            free_layout(&l);
        }
    }
}
END_TEST

START_TEST(every_n)
{
    for (int n = 35; n <= 1100; ++n) {
        lkind_t kind = n % L_NKINDS;
        layout_t l = make_layout(n, kind, (uint64_t) n);
        check_both(&l, (n * 5) % n, n % 2, false);
        free_layout(&l);
    }
}
END_TEST

START_TEST(large)
{
    for (int i = 0; i < UNIT_NBIG; ++i) {
        int n = unit_big_sizes[i];
        layout_t l = make_layout(n, L_RUNS, (uint64_t) n);
        for (int sc = 0; sc < 2; ++sc) {
            vargs_t a = {.l = &l, .root = n - 1, .ssize = 2, .usize = 4, .tree = true,
                         .scatter = sc};
            sim_t *s = run_v(&a, sc ? "scatterv tree" : "gatherv tree");
            check_costs(s, &a, sc ? "scatterv tree" : "gatherv tree");
            sim_free(s);
        }
        free_layout(&l);
    }
}
END_TEST

/* Zero-sized elements move nothing, counts or not. */
START_TEST(zero_size_elements)
{
    layout_t l = make_layout(9, L_RUNS, 5);
    for (int sc = 0; sc < 2; ++sc) {
        for (int r = 0; r < 9; ++r) {
            hcp_plan_t p;
            hcp_init(&p);
            hcp_vblock_t blk[9];
            hcp_vtree_src_list(9, 4, (r + 5) % 9, l.counts, l.displs, blk);
            ck_assert_int_eq(sc ? hcp_scatterv_tree(&p, 9, r, 4, blk, 0, 0, 0, false)
                                : hcp_gatherv_tree(&p, 9, r, 4, blk, 0, 0, 0, false),
                             0);
            ck_assert_int_eq(p.nrounds, 0);
            hcp_fini(&p);
        }
    }
    free_layout(&l);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Stage 0: header and src_lists down the tree                          */
/* ------------------------------------------------------------------ */

typedef struct margs {
    int n, root;
} margs_t;

enum { HDR = 2, REC = 2 }; /* ints, as the component sends them */

static int plan_meta(hcp_plan_t *p, int rank, void *arg)
{
    margs_t *a = arg;
    return hcp_vtree_meta(p, a->n, rank, a->root, HDR, REC, 4);
}

static int64_t meta_units(int rank, void *arg)
{
    margs_t *a = arg;
    int v = (rank - a->root + a->n) % a->n;
    return HDR + REC * (int64_t) hcp_binomial_subtree(a->n, v);
}

static void check_meta(int n, int root)
{
    margs_t a = {n, root};
    sim_t *s = sim_new(n, true);
    UNIT_PLAN(s, plan_meta, &a, NULL, meta_units);
    sim_set(s, root, HCP_RBUF, 0, meta_units(root, &a) * 4, sim_input(root));
    UNIT_RUN(s, &unit_depth_model, "meta n=%d", n);
    int64_t inner = 0, root_bytes = 0;
    for (int r = 0; r < n; ++r) {
        int v = (r - root + n) % n, sub = hcp_binomial_subtree(n, v);
        if (0 == v || 1 == sub) {
            ck_assert_int_eq(sim_stats(s, r)->msgs_recv, 0); /* leaves take no part */
            continue;
        }
        UNIT_EXPECT(s, r, HCP_RBUF, 0, HDR * 4, sim_input(root), false, "header n=%d at %d", n,
                    r);
        /* this rank's records are the root's, from relative rank v on */
        UNIT_EXPECT(s, r, HCP_RBUF, HDR * 4, REC * 4 * (int64_t) sub,
                    sim_shifted(sim_input(root), REC * 4 * (int64_t) v), false,
                    "records n=%d at %d", n, r);
        ++inner;
        if (0 == hcp_binomial_parent(v)) {
            root_bytes += (HDR + REC * (int64_t) sub) * 4;
        }
    }
    /* two messages per edge to an inner node; the root sends its inner
     * children their subtrees' records */
    sim_summary_t m = sim_summarize(s);
    ck_assert_int_eq(m.total_msgs, 2 * inner);
    ck_assert_int_eq(sim_stats(s, root)->bytes_sent, root_bytes);
    ck_assert_int_le((int) m.t_end, hcp_ceil_log2(n));
    sim_free(s);
}

START_TEST(stage0_meta)
{
    for (int n = 1; n <= 600; ++n) {
        check_meta(n, (n * 3) % n);
    }
    for (int n = 1; n <= 20; ++n) {
        for (int root = 0; root < n; ++root) {
            check_meta(n, root);
        }
    }
    for (int i = 0; i < UNIT_NBIG; ++i) {
        check_meta(unit_big_sizes[i], unit_big_sizes[i] / 2);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Against linear: the report                                           */
/* ------------------------------------------------------------------ */

START_TEST(versus_linear)
{
    static const int ns[] = {16, 1024, 32768};
    printf("%-8s %-11s %6s | %-30s | %-30s\n", "", "", "", "root: partners msgs copied rounds",
           "");
    for (int sc = 0; sc < 2; ++sc) {
        for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); ++i) {
            for (int kind = 0; kind < L_NKINDS; ++kind) {
                int n = ns[i];
                layout_t l = make_layout(n, kind, 77);
                sim_summary_t sum[2];
                const sim_stats_t *st[2];
                sim_t *s[2];
                for (int tree = 0; tree < 2; ++tree) {
                    vargs_t a = {.l = &l, .root = 0, .ssize = 4, .usize = 4, .in_place = true,
                                 .tree = tree, .scatter = sc};
                    s[tree] = cost_v(&a);
                    st[tree] = sim_stats(s[tree], 0);
                    sum[tree] = sim_summarize(s[tree]);
                }
                printf("%-8s %-11s %6d | linear %5d %5lld %8lld %3d | tree %3d %5lld %8lld %3d | "
                       "modelled %.1fx\n",
                       sc ? "scatterv" : "gatherv", lname[kind], n,
                       sc ? st[0]->send_partners : st[0]->recv_partners,
                       (long long) (sc ? st[0]->msgs_sent : st[0]->msgs_recv),
                       (long long) st[0]->bytes_copied, st[0]->rounds,
                       sc ? st[1]->send_partners : st[1]->recv_partners,
                       (long long) (sc ? st[1]->msgs_sent : st[1]->msgs_recv),
                       (long long) st[1]->bytes_copied, st[1]->rounds,
                       sum[0].t_end / sum[1].t_end);
                /* the root talks to log2 n partners instead of n - 1 */
                int with_data = 0;
                for (int r = 1; r < n; ++r) {
                    with_data += l.counts[r] > 0;
                }
                ck_assert_int_eq(sc ? st[0]->send_partners : st[0]->recv_partners, with_data);
                ck_assert_int_le(sc ? st[1]->send_partners : st[1]->recv_partners,
                                 hcp_ceil_log2(n));
                if (L_CONTIG == kind) { /* one continuous chain per child: no copy */
                    ck_assert_int_eq(st[1]->bytes_copied, 0);
                    ck_assert_int_eq(sc ? st[1]->msgs_sent : st[1]->msgs_recv,
                                     sc ? st[1]->send_partners : st[1]->recv_partners);
                }
                sim_free(s[0]);
                sim_free(s[1]);
                free_layout(&l);
            }
        }
    }
}
END_TEST

/* The validator's race check (a sweep over each round's sorted ranges,
 * needed for linear plans at 32,768 ranks) still catches every race. */
static int plan_race(hcp_plan_t *p, int rank, void *arg)
{
    int kind = *(int *) arg;
    (void) rank;
    hcp_reset(p, 4, 4);
    hcp_recv(p, 1, HCP_RBUF, 10, 5);
    hcp_send(p, 1, HCP_RBUF, 0, 3);
    switch (kind) {
    case 0: hcp_recv(p, 1, HCP_RBUF, 14, 2); break;  /* receive inside a receive's end */
    case 1: hcp_send(p, 1, HCP_RBUF, 2, 9); break;   /* send over a receive */
    case 2: hcp_recv(p, 1, HCP_RBUF, 1, 1); break;   /* receive inside a send */
    case 3: hcp_send(p, 1, HCP_RBUF, 1, 1); break;   /* sends may overlap */
    default: hcp_recv(p, 1, HCP_TMP0, 10, 5); break; /* other buffer */
    }
    hcp_scratch(p, HCP_TMP0, HCP_UNIT_RTYPE, 20);
    return hcp_finish(p);
}

START_TEST(validator_races)
{
    for (int kind = 0; kind < 5; ++kind) {
        hcp_plan_t p;
        hcp_init(&p);
        ck_assert_int_eq(plan_race(&p, 0, &kind), 0);
        const char *why = hcp_validate(&p, 2, -1, -1);
        ck_assert_msg((kind < 3) == (NULL != why), "case %d: %s", kind, why ? why : "sound");
        hcp_fini(&p);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan_gatherv");
    TCase *tc = tcase_create("tree");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, chains_by_the_rules);
    tcase_add_test(tc, tree_and_src_lists);
    tcase_add_test(tc, every_root);
    tcase_add_test(tc, every_n);
    tcase_add_test(tc, large);
    tcase_add_test(tc, zero_size_elements);
    tcase_add_test(tc, stage0_meta);
    tcase_add_test(tc, versus_linear);
    tcase_add_test(tc, validator_races);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return unit_run(suite());
}
