/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The MPI-free side of the decomposition: parsing criteria (and rejecting
 * bad ones with a reason), grouping ranks into parts with their leaders
 * for every process count to 2,000 and samples to 32,768 under block,
 * round-robin, random and degenerate keys, packed layouts, and the
 * four-step all-to-all, whose every byte is moved here through the
 * leaders' copies and a simulated bridge and must arrive where MPI says.
 */
#include <limits.h>
#include <string.h>

#include "coll_hiercoll_plan_decomp.h"
#include "unit_common.h"

#define EXPECT_EQ(x, y)                                                                            \
    EXPECT((int64_t) (x) == (int64_t) (y), "%s is %lld, want %s = %lld", #x, (long long) (x), #y,  \
           (long long) (y))

/* ------------------------------------------------------------------ */
/* Criteria                                                             */
/* ------------------------------------------------------------------ */

START_TEST(criteria_parse)
{
    hcp_criterion_t c;
    char why[256];
    static const struct {
        const char *s;
        hcp_crit_kind_t kind;
    } good[] = {
        {"none", HCP_CRIT_NONE},         {"node", HCP_CRIT_LEVEL},
        {"socket", HCP_CRIT_LEVEL},      {"numa", HCP_CRIT_LEVEL},
        {"l3", HCP_CRIT_LEVEL},          {"hwthread", HCP_CRIT_LEVEL},
        {"block:1", HCP_CRIT_BLOCK},     {"block:4", HCP_CRIT_BLOCK},
        {"list:0", HCP_CRIT_LIST},       {"list:0-3,4-5", HCP_CRIT_LIST},
        {"list:0+2,1+3", HCP_CRIT_LIST}, {"list:4-5,0-1+6,2-3", HCP_CRIT_LIST},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); ++i) {
        why[0] = '\0';
        ck_assert_msg(0 == hcp_criterion_parse(good[i].s, &c, why, sizeof(why)), "%s: %s",
                      good[i].s, why);
        ck_assert_int_eq(c.kind, good[i].kind);
        hcp_criterion_fini(&c);
    }
    ck_assert_int_eq(0, hcp_criterion_parse("socket", &c, why, sizeof(why)));
    ck_assert_int_eq(c.level, HCP_LEVEL_SOCKET);
    ck_assert_int_eq(0, hcp_criterion_parse("block:12", &c, why, sizeof(why)));
    ck_assert_int_eq(c.block, 12);
    ck_assert_int_eq(0, hcp_criterion_parse("list:4-5,0-1+6,2-3", &c, why, sizeof(why)));
    ck_assert_int_eq(c.nranks, 7);
    static const int want[7] = {1, 1, 2, 2, 0, 0, 1};
    for (int r = 0; r < 7; ++r) {
        ck_assert_int_eq(c.part_of[r], want[r]);
    }
    hcp_criterion_fini(&c);

    static const char *bad[] = {"",         "bogus",          "Node",         "block:",
                                "block:0",  "block:-2",       "block:3x",     "block:99999999999",
                                "list:",    "list:a",         "list:0-3,3-5", "list:0-2,4",
                                "list:3-1", "list:0;1",       "list:0,,1",    "list:0-1+",
                                "list:1-2", "list:0-99999999"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
        why[0] = '\0';
        ck_assert_msg(0 != hcp_criterion_parse(bad[i], &c, why, sizeof(why)), "\"%s\" accepted",
                      bad[i]);
        ck_assert_msg(strlen(why) > 10, "\"%s\": no reason given", bad[i]);
        ck_assert_int_eq(c.kind, HCP_CRIT_NONE);
        ck_assert_ptr_null(c.part_of);
    }
}
END_TEST

START_TEST(criteria_keys)
{
    hcp_criterion_t c;
    char why[256];
    int keys[8];
    ck_assert_int_eq(0, hcp_criterion_parse("block:3", &c, why, sizeof(why)));
    ck_assert_int_eq(1, hcp_criterion_keys(&c, 8, keys));
    for (int r = 0; r < 8; ++r) {
        ck_assert_int_eq(keys[r], r / 3);
    }
    ck_assert_int_eq(0, hcp_criterion_parse("list:0+3,1-2", &c, why, sizeof(why)));
    ck_assert_int_eq(1, hcp_criterion_keys(&c, 4, keys));
    ck_assert_int_eq(keys[0], keys[3]);
    ck_assert_int_eq(keys[1], keys[2]);
    ck_assert_int_ne(keys[0], keys[1]);
    ck_assert_int_eq(-1, hcp_criterion_keys(&c, 5, keys)); /* another size */
    ck_assert_int_eq(-1, hcp_criterion_keys(&c, 3, keys));
    hcp_criterion_fini(&c);
    ck_assert_int_eq(0, hcp_criterion_parse("node", &c, why, sizeof(why)));
    ck_assert_int_eq(0, hcp_criterion_keys(&c, 8, keys)); /* the runtime decides */
    ck_assert_int_eq(0, hcp_criterion_parse("none", &c, why, sizeof(why)));
    ck_assert_int_eq(-1, hcp_criterion_keys(&c, 8, keys));
}
END_TEST

/* ------------------------------------------------------------------ */
/* Parts                                                                */
/* ------------------------------------------------------------------ */

enum { K_BLOCK, K_ROUND_ROBIN, K_RANDOM, K_ONE, K_SINGLETONS, K_UNEVEN, K_NKINDS };

/* Keys of the layouts a job meets: by slot (blocks), round-robin, random
 * placement, everything on one node, one process per node, and uneven
 * nodes (sizes 1, 2, 3, ... in turn). */
static void make_keys(int kind, int n, int m, uint64_t *seed, int *keys)
{
    int node = 0, left = 1;
    for (int r = 0; r < n; ++r) {
        switch (kind) {
        case K_BLOCK:
            keys[r] = r / m;
            break;
        case K_ROUND_ROBIN:
            keys[r] = r % m;
            break;
        case K_RANDOM:
            keys[r] = (int) (unit_rand(seed) % (uint64_t) m) * 7 - 3;
            break;
        case K_ONE:
            keys[r] = 42;
            break;
        case K_SINGLETONS:
            keys[r] = n - r;
            break;
        default:
            if (0 == left--) {
                ++node;
                left = node;
            }
            keys[r] = node;
            break;
        }
    }
}

static void check_decomp(const hcp_decomp_t *d, int n, const int *keys)
{
    EXPECT_EQ(d->n, n);
    EXPECT_EQ(d->start[0], 0);
    EXPECT_EQ(d->start[d->nparts], n);
    bool contiguous = true;
    int max = 0;
    for (int p = 0; p < d->nparts; ++p) {
        EXPECT(hcp_part_size(d, p) > 0, "part %d is empty", p);
        if (hcp_part_size(d, p) > max) {
            max = hcp_part_size(d, p);
        }
        if (p > 0) { /* parts in order of their leaders */
            EXPECT(hcp_leader(d, p - 1) < hcp_leader(d, p), "parts %d, %d out of order", p - 1, p);
        }
        for (int x = d->start[p]; x < d->start[p + 1]; ++x) {
            int r = d->member[x];
            EXPECT_EQ(d->part[r], p);
            EXPECT_EQ(d->index[r], x - d->start[p]);
            EXPECT_EQ(keys[r], keys[hcp_leader(d, p)]);
            if (x > d->start[p]) { /* members in rank order, leader lowest */
                EXPECT(d->member[x - 1] < r, "part %d: members out of order", p);
                contiguous = contiguous && d->member[x - 1] + 1 == r;
            }
        }
    }
    for (int r = 0; r < n; ++r) {
        EXPECT_EQ(d->member[hcp_pos(d, r)], r);
    }
    /* equal keys share a part: no two parts have the same key */
    for (int p = 1; p < d->nparts; ++p) {
        for (int q = 0; q < p && d->nparts <= 64; ++q) {
            EXPECT(keys[hcp_leader(d, p)] != keys[hcp_leader(d, q)], "parts %d, %d share a key", q,
                   p);
        }
    }
    EXPECT_EQ(d->contiguous, contiguous);
    EXPECT_EQ(d->max_size, max);
}

static void build_and_check(int kind, int n, int m, uint64_t *seed)
{
    int *keys = malloc(sizeof(int) * (size_t) n);
    hcp_decomp_t d;
    make_keys(kind, n, m, seed, keys);
    EXPECT_EQ(0, hcp_decomp_build(&d, n, keys));
    check_decomp(&d, n, keys);
    if (K_ONE == kind) {
        EXPECT_EQ(d.nparts, 1);
    }
    if (K_SINGLETONS == kind) {
        EXPECT_EQ(d.nparts, n);
    }
    if (K_BLOCK == kind || K_ONE == kind || K_SINGLETONS == kind || K_UNEVEN == kind) {
        EXPECT(d.contiguous, "n %d kind %d: not contiguous", n, kind);
    }
    if (K_ROUND_ROBIN == kind && m > 1 && n > m) {
        EXPECT(!d.contiguous, "n %d: round-robin contiguous", n);
        EXPECT_EQ(d.nparts, m);
    }
    hcp_decomp_fini(&d);
    free(keys);
}

/* The shared-memory level's groups: runs of equal keys, cut at the cap. */
START_TEST(shm_group_runs)
{
    const int keys[8] = {0, 0, 0, 3, 3, 3, 3, 0};
    int lead[8];
    ck_assert_int_eq(3, hcp_runs(8, keys, 4, lead));
    const int want[8] = {0, 0, 0, 3, 3, 3, 3, 7};
    for (int r = 0; r < 8; ++r) {
        ck_assert_int_eq(lead[r], want[r]);
    }
    ck_assert_int_eq(5, hcp_runs(8, keys, 2, lead)); /* 0-1, 2, 3-4, 5-6, 7 */
    const int want2[8] = {0, 0, 2, 3, 3, 5, 5, 7};
    for (int r = 0; r < 8; ++r) {
        ck_assert_int_eq(lead[r], want2[r]);
    }
    const int same[7] = {0};
    ck_assert_int_eq(3, hcp_runs(7, same, 3, lead)); /* blocks: 0-2, 3-5, 6 */
    ck_assert_int_eq(lead[5], 3);
    ck_assert_int_eq(lead[6], 6);
    const int alt[4] = {0, 1, 0, 1};
    ck_assert_int_eq(4, hcp_runs(4, alt, 8, lead));
    ck_assert_int_eq(1, hcp_runs(1, alt, 1, lead));
    ck_assert_int_eq(lead[0], 0);
}
END_TEST

/* The n-level hierarchy (hcp_levels): 64 ranks on 2 packages x 2 NUMA
 * nodes x 4 L3 x 4 cores, candidates l3, numa, socket; then what an
 * interleaving mapping, one object per rank and caps do. */
static int key_of(int r, int span)
{
    return r / span * span; /* (the lowest rank in the object) */
}

START_TEST(shm_levels)
{
    enum { N = 64 };
    int keys[3 * N], up[5 * N], used[5], top[N], ntop, why[3];
    for (int r = 0; r < N; ++r) {
        keys[r] = key_of(r, 4);          /* l3 */
        keys[N + r] = key_of(r, 16);     /* numa */
        keys[2 * N + r] = key_of(r, 32); /* socket */
    }
    ck_assert_int_eq(3, hcp_levels(N, 3, keys, 8, 5, up, used, top, &ntop, why));
    ck_assert_int_eq(2, ntop);
    ck_assert_int_eq(0, top[0]);
    ck_assert_int_eq(32, top[1]);
    for (int r = 0; r < N; ++r) {
        ck_assert_int_eq(up[r], key_of(r, 4));
        ck_assert_int_eq(up[N + r], r % 4 ? -1 : key_of(r, 16));
        ck_assert_int_eq(up[2 * N + r], r % 16 ? -1 : key_of(r, 32));
    }
    for (int c = 0; c < 3; ++c) {
        ck_assert_int_eq(used[c], c);
        ck_assert_int_eq(why[c], HCP_LV_KEPT);
    }
    /* interleaved over 2 sockets (rank r on socket r % 2): every level's
     * runs are of one rank; none kept, runs of 8 consecutive ranks */
    for (int r = 0; r < N; ++r) {
        keys[r] = keys[N + r] = keys[2 * N + r] = r % 2;
    }
    ck_assert_int_eq(1, hcp_levels(N, 3, keys, 8, 5, up, used, top, &ntop, why));
    ck_assert_int_eq(8, ntop);
    ck_assert_int_eq(-1, used[0]);
    ck_assert_int_eq(HCP_LV_NONE_MERGED, why[0]);
    ck_assert_int_eq(up[13], 8);
    /* runs of two on average (pairs, then singles): short, left out */
    for (int r = 0; r < 12; ++r) {
        keys[r] = r < 6 ? r / 2 * 2 : r;
    }
    ck_assert_int_eq(1, hcp_levels(12, 1, keys, 4, 5, up, used, top, &ntop, why));
    ck_assert_int_eq(HCP_LV_SHORT_RUNS, why[0]);
    ck_assert_int_eq(3, ntop); /* (runs of 4 consecutive ranks) */
    /* one object: runs cut at the cap, then runs of the cap above, while
     * more than the cap remain (64 ranks, fan-in 4: 16 groups, 4 above
     * them, a top of 4) */
    for (int r = 0; r < N; ++r) {
        keys[r] = 0;
    }
    ck_assert_int_eq(2, hcp_levels(N, 1, keys, 4, 5, up, used, top, &ntop, why));
    ck_assert_int_eq(0, used[0]);
    ck_assert_int_eq(-1, used[1]);
    ck_assert_int_eq(4, ntop);
    ck_assert_int_eq(up[N + 20], 16);
    ck_assert_int_eq(up[N + 21], -1);
    ck_assert_int_eq(48, top[3]);
    /* at most maxlv levels; few ranks: none */
    ck_assert_int_eq(1, hcp_levels(N, 1, keys, 4, 1, up, used, top, &ntop, why));
    ck_assert_int_eq(16, ntop);
    ck_assert_int_eq(0, hcp_levels(4, 1, keys, 4, 5, up, used, top, &ntop, why));
    ck_assert_int_eq(HCP_LV_ALL_MERGED, why[0]);
    ck_assert_int_eq(4, ntop);
}
END_TEST

START_TEST(parts_every_n)
{
    uint64_t seed = 1;
    for (int n = 1; n <= 2000; ++n) {
        for (int kind = 0; kind < K_NKINDS; ++kind) {
            build_and_check(kind, n, 1 + n % 7, &seed);
            build_and_check(kind, n, 4, &seed);
        }
    }
    for (int i = 0; i < UNIT_NBIG; ++i) {
        for (int kind = 0; kind < K_NKINDS; ++kind) {
            build_and_check(kind, unit_big_sizes[i], 16, &seed);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Packed layouts                                                       */
/* ------------------------------------------------------------------ */

START_TEST(pack_layouts)
{
    uint64_t seed = 7;
    for (int n = 1; n <= 300; ++n) {
        int *keys = malloc(sizeof(int) * (size_t) n), *counts = malloc(sizeof(int) * (size_t) n);
        int64_t *off = malloc(sizeof(int64_t) * (size_t) n);
        hcp_decomp_t d;
        make_keys(n % K_NKINDS, n, 1 + n % 5, &seed, keys);
        EXPECT_EQ(0, hcp_decomp_build(&d, n, keys));
        int *pc = malloc(sizeof(int) * (size_t) d.nparts),
            *pd = malloc(sizeof(int) * (size_t) d.nparts);
        for (int r = 0; r < n; ++r) {
            counts[r] = (int) (unit_rand(&seed) % 5);
        }
        for (int skip = -1; skip < d.nparts; ++skip) {
            int64_t total = hcp_pack_layout(&d, counts, 0, 3, skip, off, pc, pd);
            int64_t at = 0;
            for (int x = 0; x < n; ++x) { /* blocks back to back in decomposition order */
                int r = d.member[x];
                if (d.part[r] == skip) {
                    EXPECT_EQ(off[r], -1);
                    continue;
                }
                EXPECT_EQ(off[r], at);
                at += 3 * counts[r];
            }
            EXPECT_EQ(total, at);
            int64_t before = 0;
            for (int p = 0; p < d.nparts; ++p) {
                int64_t sum = 0;
                for (int x = d.start[p]; x < d.start[p + 1] && p != skip; ++x) {
                    sum += 3 * counts[d.member[x]];
                }
                EXPECT_EQ(pc[p], sum);
                EXPECT_EQ(pd[p], before);
                before += sum;
            }
            /* uniform blocks */
            EXPECT_EQ(hcp_pack_layout(&d, NULL, 5, 2, skip, NULL, pc, pd),
                      10 * (n - (skip < 0 ? 0 : hcp_part_size(&d, skip))));
        }
        /* blocks past INT_MAX are refused, not wrapped */
        EXPECT_EQ(hcp_pack_layout(&d, NULL, INT_MAX / 2 + 1, 2, -1, NULL, pc, pd), -1);
        hcp_decomp_fini(&d);
        free(keys);
        free(counts);
        free(off);
        free(pc);
        free(pd);
    }
    int c3[3] = {INT_MAX, 1, 1}, d3[3];
    EXPECT_EQ(hcp_prefix(2, c3, d3), (int64_t) INT_MAX + 1);
    EXPECT_EQ(hcp_prefix(3, c3, d3), -1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* All-to-all in four steps                                             */
/* ------------------------------------------------------------------ */

typedef struct pairs {
    int n;
    int64_t *b;        /* [n][n] */
    int asked_outside; /* pairs asked for with neither rank in the part */
    int part;
    const hcp_decomp_t *d;
} pairs_t;

static int64_t pair_bytes(int i, int j, void *ctx)
{
    pairs_t *pr = ctx;
    if (pr->d->part[i] != pr->part && pr->d->part[j] != pr->part) {
        pr->asked_outside++;
    }
    return pr->b[(size_t) i * (size_t) pr->n + (size_t) j];
}

/* the byte k of rank i's block for rank j */
static uint8_t block_byte(int i, int j, int64_t k)
{
    return (uint8_t) (i * 131 + j * 31 + k * 7 + 1);
}

static void apply(uint8_t *dst, const uint8_t *src, const hcp_copy_t *c, int nc)
{
    for (int k = 0; k < nc; ++k) {
        memcpy(dst + c[k].dst, src + c[k].src, (size_t) c[k].len);
    }
}

/* Every rank's blocks for the other parts go through its leader, the
 * bridge and the receiver's leader; check that each arrives intact. */
static void run_a2a(const hcp_decomp_t *d, int64_t *b)
{
    int n = d->n, nq = d->nparts;
    pairs_t pr = {n, b, 0, 0, d};
    hcp_a2a_t *a = calloc((size_t) nq, sizeof(hcp_a2a_t));
    uint8_t **S = calloc((size_t) nq, sizeof(uint8_t *)),
            **R = calloc((size_t) nq, sizeof(uint8_t *));
    for (int p = 0; p < nq; ++p) {
        pr.part = p;
        EXPECT_EQ(0, hcp_a2a_layout(&a[p], d, p, pair_bytes, &pr));
        EXPECT_EQ(pr.asked_outside, 0);
        /* 1. members pack their rows, the leader gathers them */
        uint8_t *G = malloc((size_t) a[p].gbytes + 1);
        for (int k = 0; k < hcp_part_size(d, p); ++k) {
            int i = d->member[d->start[p] + k];
            int64_t at = a[p].gdispl[k];
            for (int x = 0; x < n; ++x) {
                int j = d->member[x];
                for (int64_t e = 0; d->part[j] != p && e < b[(size_t) i * n + j]; ++e) {
                    G[at++] = block_byte(i, j, e);
                }
            }
            EXPECT_EQ(at - a[p].gdispl[k], a[p].gcount[k]);
        }
        /* 3. into the bridge send buffer */
        S[p] = malloc((size_t) a[p].sbytes + 1);
        apply(S[p], G, a[p].out, a[p].nout);
        free(G);
        R[p] = malloc((size_t) a[p].rbytes + 1);
        EXPECT_EQ(a[p].scount[p], 0);
        EXPECT_EQ(a[p].rcount[p], 0);
    }
    /* the bridge's alltoallv */
    for (int p = 0; p < nq; ++p) {
        for (int q = 0; q < nq; ++q) {
            EXPECT_EQ(a[p].scount[q], a[q].rcount[p]);
            memcpy(R[q] + a[q].rdispl[p], S[p] + a[p].sdispl[q], (size_t) a[p].scount[q]);
        }
    }
    /* 4. the leaders scatter; every member unpacks in decomposition order */
    for (int q = 0; q < nq; ++q) {
        uint8_t *O = malloc((size_t) a[q].obytes + 1);
        apply(O, R[q], a[q].in, a[q].nin);
        for (int k = 0; k < hcp_part_size(d, q); ++k) {
            int j = d->member[d->start[q] + k];
            int64_t at = a[q].odispl[k];
            for (int x = 0; x < n; ++x) {
                int i = d->member[x];
                for (int64_t e = 0; d->part[i] != q && e < b[(size_t) i * n + j]; ++e, ++at) {
                    EXPECT(O[at] == block_byte(i, j, e),
                           "n %d: byte %lld of %d's block for %d is wrong", n, (long long) e, i, j);
                }
            }
            EXPECT_EQ(at - a[q].odispl[k], a[q].ocount[k]);
        }
        free(O);
    }
    for (int p = 0; p < nq; ++p) {
        hcp_a2a_fini(&a[p]);
        free(S[p]);
        free(R[p]);
    }
    free(a);
    free(S);
    free(R);
}

START_TEST(alltoall_four_steps)
{
    uint64_t seed = 11;
    for (int n = 1; n <= 90; ++n) {
        for (int kind = 0; kind < K_NKINDS; ++kind) {
            int *keys = malloc(sizeof(int) * (size_t) n);
            int64_t *b = malloc(sizeof(int64_t) * (size_t) n * (size_t) n);
            hcp_decomp_t d;
            make_keys(kind, n, 1 + (n + kind) % 6, &seed, keys);
            EXPECT_EQ(0, hcp_decomp_build(&d, n, keys));
            for (int v = 0; v < 3; ++v) { /* uniform, random with zeros, sparse */
                for (int i = 0; i < n * n; ++i) {
                    uint64_t x = unit_rand(&seed);
                    b[i] = 0 == v ? 3 : 1 == v ? (int64_t) (x % 6) : (x % 5 ? 0 : 9);
                }
                run_a2a(&d, b);
            }
            hcp_decomp_fini(&d);
            free(keys);
            free(b);
        }
    }
}
END_TEST

START_TEST(alltoall_too_big)
{
    int keys[4] = {0, 0, 1, 1};
    int64_t b[16];
    hcp_decomp_t d;
    hcp_a2a_t a;
    EXPECT_EQ(0, hcp_decomp_build(&d, 4, keys));
    for (int i = 0; i < 16; ++i) {
        b[i] = INT_MAX / 3;
    }
    pairs_t pr = {4, b, 0, 0, &d};
    EXPECT_EQ(-1, hcp_a2a_layout(&a, &d, 0, pair_bytes, &pr));
    hcp_a2a_fini(&a);
    hcp_decomp_fini(&d);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Multi-leader: lanes, slices, and every rank's plan in the simulator  */
/* ------------------------------------------------------------------ */

static void build_keys(hcp_decomp_t *d, int n, const int *keys)
{
    EXPECT_EQ(0, hcp_decomp_build(d, n, keys));
}

/* Parts of the given sizes, as runs of ranks. */
static void sized_parts(hcp_decomp_t *d, int nq, const int *sizes)
{
    int n = 0, keys[4096];
    for (int q = 0; q < nq; ++q) {
        for (int k = 0; k < sizes[q]; ++k) {
            keys[n++] = q;
        }
    }
    build_keys(d, n, keys);
}

/* Nodes of 3, 3 and 2: the cuts 1/3, 1/2, 2/3 make four lanes; the
 * carriers of the part of two are in two lanes each. */
START_TEST(ml_lanes_332)
{
    static const int sizes[3] = {3, 3, 2};
    static const int want_member[4][3] = {{0, 3, 6}, {1, 4, 6}, {1, 4, 7}, {2, 5, 7}};
    hcp_decomp_t d;
    hcp_ml_t ml;
    sized_parts(&d, 3, sizes);
    EXPECT_EQ(0, hcp_ml_build(&ml, &d, 8, 4));
    EXPECT_EQ(ml.nlanes, 4);
    EXPECT_EQ(ml.max_lanes, 2);
    EXPECT(!ml.uniform, "3,3,2 is not uniform");
    for (int j = 0; j < 4; ++j) {
        for (int q = 0; q < 3; ++q) {
            EXPECT_EQ(ml.member[j * 3 + q], want_member[j][q]);
        }
    }
    int first;
    EXPECT_EQ(hcp_ml_lanes_of(&ml, 0, 1, &first), 2);
    EXPECT_EQ(first, 1);
    EXPECT_EQ(hcp_ml_lanes_of(&ml, 2, 0, &first), 2);
    EXPECT_EQ(first, 0);
    EXPECT_EQ(hcp_ml_lanes_of(&ml, 2, 1, &first), 2);
    EXPECT_EQ(first, 2);
    /* 12 units: slices 4,4,4 and 6,6; lanes 4,2,2,4 */
    int64_t lo;
    EXPECT_EQ(hcp_ml_lane(&ml, 1, 12, &lo), 2);
    EXPECT_EQ(lo, 4);
    EXPECT_EQ(hcp_ml_slice(&ml, 2, 1, 12, &lo), 6);
    EXPECT_EQ(lo, 6);
    hcp_ml_fini(&ml);
    /* at most one lane a carrier: every part gets two carriers */
    EXPECT_EQ(0, hcp_ml_build(&ml, &d, 8, 1));
    EXPECT(ml.uniform, "fallback not uniform");
    EXPECT_EQ(ml.nlanes, 2);
    EXPECT_EQ(ml.carriers[0], 2);
    hcp_ml_fini(&ml);
    hcp_decomp_fini(&d);
}
END_TEST

/* For any layout, k and count: the lanes tile the vector in order, each
 * carrier's slice is exactly the union of its lanes, the slices of a part
 * tile the vector, a lane has one carrier of every part (the one whose
 * slice holds it), and uniform lanes are carrier j of every part. */
static void check_ml(const hcp_decomp_t *d, int k, int max_lanes)
{
    hcp_ml_t ml;
    EXPECT_EQ(0, hcp_ml_build(&ml, d, k, max_lanes));
    EXPECT(ml.uniform || ml.max_lanes <= max_lanes, "n %d k %d: %d lanes on a carrier", d->n, k,
           ml.max_lanes);
    EXPECT(0 == ml.num[0] && ml.num[ml.nlanes] == ml.den[ml.nlanes], "cuts not 0 to 1");
    for (int q = 0; q < d->nparts; ++q) {
        int c = ml.carriers[q], s = hcp_part_size(d, q);
        EXPECT(c >= 1 && c <= s && c <= (k < 1 ? 1 : k), "part %d: %d carriers", q, c);
        EXPECT(!ml.uniform || c == ml.carriers[0], "uniform with %d and %d", c, ml.carriers[0]);
    }
    static const int64_t counts[] = {0, 1, 2, 3, 5, 7, 12, 13, 64, 100, 1000003};
    for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ++ci) {
        const int64_t count = counts[ci];
        int64_t at = 0, lo;
        for (int j = 0; j < ml.nlanes; ++j) {
            int64_t len = hcp_ml_lane(&ml, j, count, &lo);
            EXPECT(lo == at && len >= 0, "lane %d of %lld at %lld", j, (long long) count,
                   (long long) lo);
            at += len;
            for (int q = 0; q < d->nparts; ++q) {
                int r = ml.member[j * d->nparts + q], i = hcp_ml_carrier(&ml, d, r), first;
                EXPECT(d->part[r] == q && i >= 0, "lane %d: rank %d in part %d", j, r, q);
                int nl = hcp_ml_lanes_of(&ml, q, i, &first);
                EXPECT(j >= first && j < first + nl, "lane %d not among %d's", j, r);
                if (ml.uniform) {
                    EXPECT_EQ(i, j);
                }
            }
        }
        EXPECT_EQ(at, count);
        for (int q = 0; q < d->nparts; ++q) {
            int64_t pat = 0;
            for (int i = 0; i < hcp_part_size(d, q); ++i) {
                int first, nl = hcp_ml_lanes_of(&ml, q, i, &first);
                int64_t slen = hcp_ml_slice(&ml, q, i, count, &lo);
                if (i >= ml.carriers[q]) {
                    EXPECT(0 == nl && 0 == slen, "non-carrier %d of part %d", i, q);
                    continue;
                }
                EXPECT(lo == pat, "slice %d of part %d at %lld", i, q, (long long) lo);
                pat += slen;
                int64_t llo, sum = 0;
                for (int j = first; j < first + nl; ++j) {
                    int64_t l = hcp_ml_lane(&ml, j, count, &llo);
                    EXPECT(j > first || llo == lo, "part %d carrier %d: first lane", q, i);
                    sum += l;
                }
                EXPECT_EQ(sum, slen);
            }
            EXPECT_EQ(pat, count);
        }
    }
    hcp_ml_fini(&ml);
}

START_TEST(ml_lanes_every_layout)
{
    uint64_t seed = 5;
    for (int n = 1; n <= 260; ++n) {
        for (int kind = 0; kind < K_NKINDS; ++kind) {
            int *keys = malloc(sizeof(int) * (size_t) n);
            hcp_decomp_t d;
            make_keys(kind, n, 1 + n % 7, &seed, keys);
            build_keys(&d, n, keys);
            static const int ks[] = {1, 2, 3, 4, 8, 1 << 20};
            for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); ++i) {
                check_ml(&d, ks[i], 1 + n % 4);
            }
            hcp_decomp_fini(&d);
            free(keys);
        }
    }
    /* the scale of the simulated tables */
    static const int shapes[][2] = {{512, 64}, {256, 128}};
    for (int s = 0; s < 2; ++s) {
        int nq = shapes[s][0], *sizes = malloc(sizeof(int) * (size_t) nq);
        for (int q = 0; q < nq; ++q) {
            sizes[q] = shapes[s][1];
        }
        int n = nq * shapes[s][1], *keys = malloc(sizeof(int) * (size_t) n);
        for (int r = 0; r < n; ++r) {
            keys[r] = r / shapes[s][1];
        }
        hcp_decomp_t d;
        build_keys(&d, n, keys);
        check_ml(&d, 1 << 20, 4);
        hcp_decomp_fini(&d);
        free(keys);
        free(sizes);
    }
}
END_TEST

typedef struct mlsim {
    hcp_ml_args_t a;
    int n;
} mlsim_t;

static int plan_ml(hcp_plan_t *p, int rank, void *arg)
{
    return hcp_ml_plan(p, rank, &((mlsim_t *) arg)->a);
}

static int64_t ml_sbuf(int rank, void *arg)
{
    const mlsim_t *m = arg;
    (void) rank;
    return HCP_ML_REDUCE_SCATTER == m->a.coll ? m->a.count * m->n : m->a.count;
}

static int64_t ml_rbuf(int rank, void *arg)
{
    const mlsim_t *m = arg;
    switch (m->a.coll) {
    case HCP_ML_REDUCE:
        return rank == m->a.root ? m->a.count : 0;
    case HCP_ML_ALLGATHER:
        return m->a.count * m->n;
    case HCP_ML_REDUCE_SCATTER:
        return m->a.in_place ? m->a.count * m->n : m->a.count;
    default:
        return m->a.count;
    }
}

/* Run one collective decomposed with k carriers per part (1: one leader)
 * and check every result byte; returns the simulator (the caller frees
 * it) for the costs. */
static sim_t *run_ml(const hcp_decomp_t *d, const hcp_ml_t *ml, hcp_ml_coll_t coll, int64_t count,
                     int root, bool commutative, bool in_place, hcp_lane_t lane, bool track)
{
    const int n = d->n;
    const size_t e = 4;
    mlsim_t m = {{coll, d, ml, count, e, root, commutative, in_place, lane, 3}, n};
    sim_t *s = sim_new(n, track);
    UNIT_PLAN(s, plan_ml, &m, ml_sbuf, ml_rbuf);
    const bool ip = in_place && HCP_ML_ALLGATHER != coll;
    if (HCP_ML_BCAST == coll) {
        sim_set(s, root, HCP_RBUF, 0, count * (int64_t) e, sim_input(root));
    } else if (track) {
        for (int r = 0; r < n; ++r) {
            int buf = ip && (HCP_ML_REDUCE != coll || r == root) ? HCP_RBUF : HCP_SBUF;
            sim_set(s, r, buf, 0, ml_sbuf(r, &m) * (int64_t) e, sim_input(r));
        }
    }
    UNIT_RUN(s, NULL, "%s n %d parts %d count %lld", hcp_ml_coll_names[coll], n, d->nparts,
             (long long) count);
    if (!track) {
        return s;
    }
    const int64_t bytes = count * (int64_t) e;
    const sim_val_t all = sim_range_of(0, n - 1);
    for (int r = 0; r < n; ++r) {
        switch (coll) {
        case HCP_ML_ALLREDUCE:
            UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, all, !commutative, "allreduce n %d rank %d", n,
                        r);
            break;
        case HCP_ML_REDUCE:
            if (r == root) {
                UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, all, !commutative, "reduce n %d root %d", n,
                            r);
            }
            break;
        case HCP_ML_BCAST:
            UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, sim_input(root), false, "bcast n %d rank %d", n,
                        r);
            break;
        case HCP_ML_ALLGATHER:
            for (int b = 0; b < n; ++b) {
                UNIT_EXPECT(s, r, HCP_RBUF, b * bytes, bytes, sim_shifted(sim_input(b), -b * bytes),
                            false, "allgather n %d rank %d block %d", n, r, b);
            }
            break;
        default:
            UNIT_EXPECT(s, r, HCP_RBUF, 0, bytes, sim_shifted(all, r * bytes), !commutative,
                        "reduce_scatter n %d rank %d", n, r);
            break;
        }
    }
    return s;
}

/* Every collective, exact, over block, uneven, interleaved and random
 * layouts, one leader and k carriers, counts below the part sizes and not
 * dividing them, every root to a few, in place, ordered ops in rank
 * order where the parts are runs of ranks. */
START_TEST(ml_plans_exact)
{
    uint64_t seed = 3;
    for (int n = 1; n <= 30; ++n) {
        for (int kind = 0; kind < K_NKINDS; ++kind) {
            int keys[64];
            hcp_decomp_t d;
            make_keys(kind, n, 1 + (n + kind) % 5, &seed, keys);
            build_keys(&d, n, keys);
            static const int ks[] = {1, 2, 3, 1 << 20};
            for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ++ki) {
                hcp_ml_t ml;
                EXPECT_EQ(0, hcp_ml_build(&ml, &d, ks[ki], 2 + n % 3));
                const int64_t counts[] = {1, 3 + n % 4, 17 + n};
                for (int c = 0; c < HCP_ML_NCOLL; ++c) {
                    for (size_t x = 0; x < sizeof(counts) / sizeof(counts[0]); ++x) {
                        int64_t count = HCP_ML_ALLGATHER == c || HCP_ML_REDUCE_SCATTER == c
                                            ? counts[x] % 5 + 1
                                            : counts[x];
                        int root = (int) ((x * 7 + ki) % (size_t) n);
                        for (int mode = 0; mode < 4; ++mode) {
                            bool commutative = mode & 1, in_place = mode & 2;
                            if ((!commutative && !d.contiguous)
                                || (HCP_ML_REDUCE_SCATTER == c && !d.contiguous)
                                || (!commutative && (HCP_ML_BCAST == c || HCP_ML_ALLGATHER == c))) {
                                continue;
                            }
                            hcp_lane_t lane = (hcp_lane_t) (1 + (x + mode) % 4);
                            sim_free(run_ml(&d, &ml, (hcp_ml_coll_t) c, count, root, commutative,
                                            in_place, lane, true));
                        }
                    }
                }
                hcp_ml_fini(&ml);
            }
            hcp_decomp_fini(&d);
        }
    }
}
END_TEST

/* What crosses parts: multi-leader allreduce at most 2 (N-1)/N of the
 * vector out of a part in all and 2 (N-1)/N x L / c out of a carrier;
 * bcast (N-1) L in all and L / c a carrier (within a unit's rounding per
 * lane); with one leader the leader carries it all. */
START_TEST(ml_plans_crossing)
{
    static const int shapes[][4] = {{2, 4, 4, 0}, {3, 3, 3, 3}, {4, 4, 4, 4}, {3, 3, 2, 0}};
    static const int nqs[] = {2, 3, 4, 3};
    for (int s = 0; s < 4; ++s) {
        hcp_decomp_t d;
        sized_parts(&d, nqs[s], shapes[s] + (0 == s ? 1 : 0));
        const int N = d.nparts, n = d.n;
        const int64_t count = 65536, L = 4 * count;
        for (int k = 1; k <= 2; ++k) {
            hcp_ml_t ml;
            EXPECT_EQ(0, hcp_ml_build(&ml, &d, 1 == k ? 1 : 1 << 20, 4));
            for (int c = 0; c < 3; c += 2) { /* allreduce, bcast */
                hcp_lane_t lane = 0 == c ? HCP_LANE_RING : HCP_LANE_CHAIN;
                sim_t *sim =
                    run_ml(&d, &ml, (hcp_ml_coll_t) c, count, n - 1, true, false, lane, false);
                int64_t total = 0, most = 0;
                for (int r = 0; r < n; ++r) {
                    int64_t x = hcp_ml_crossing(sim_plan(sim, r), &d, r);
                    int64_t share = 0 == c ? 2 * (N - 1) * L / N : L;
                    share /= ml.carriers[d.part[r]];
                    EXPECT(x <= share + 64 * ml.nlanes, "%s %d parts rank %d sends %lld > %lld",
                           hcp_ml_coll_names[c], N, r, (long long) x, (long long) share);
                    total += x;
                    most = x > most ? x : most;
                }
                int64_t bound = 0 == c ? 2 * (N - 1) * L : (N - 1) * L;
                EXPECT(total <= bound + 64 * ml.nlanes * N, "%s %d parts: %lld > %lld",
                       hcp_ml_coll_names[c], N, (long long) total, (long long) bound);
                if (1 == k) {
                    EXPECT(most >= (0 == c ? 2 * (N - 1) * L / N : L), "one leader: %lld",
                           (long long) most);
                }
                sim_free(sim);
            }
            hcp_ml_fini(&ml);
        }
        hcp_decomp_fini(&d);
    }
}
END_TEST

/* 32,768 ranks, 512 nodes of 64 and 256 of 128, every carrier: every
 * rank's allreduce plan runs in the simulator (exact at 512 x 64, every
 * byte tracked; at 256 x 128 matched and sized, 8.4 million messages),
 * each carrier sends its share across nodes, the parts the bound in all.
 * hc_cost decomp --check prints the whole table, every collective exact. */
START_TEST(ml_plans_32768)
{
    static const int shapes[][2] = {{512, 64}, {256, 128}};
    for (int s = 0; s < 2; ++s) {
        const int N = shapes[s][0], ppn = shapes[s][1], n = N * ppn;
        int *keys = malloc(sizeof(int) * (size_t) n);
        for (int r = 0; r < n; ++r) {
            keys[r] = r / ppn;
        }
        hcp_decomp_t d;
        build_keys(&d, n, keys);
        free(keys);
        hcp_ml_t ml;
        EXPECT_EQ(0, hcp_ml_build(&ml, &d, ppn, 4));
        EXPECT_EQ(ml.nlanes, ppn);
        const int64_t count = (int64_t) ppn * N * 4, L = 4 * count;
        for (int c = 0; c < 1; c += 2) {
            sim_t *sim = run_ml(&d, &ml, (hcp_ml_coll_t) c, count, n / 3, true, false,
                                0 == c ? HCP_LANE_RHRD : HCP_LANE_BINOMIAL, 0 == s);
            int64_t total = 0;
            for (int r = 0; r < n; ++r) {
                int64_t x = hcp_ml_crossing(sim_plan(sim, r), &d, r);
                total += x;
                /* allreduce: RHRD sends 2(N-1)/N of the lane; bcast: a
                 * binomial tree's root sends its lane log2(N) times */
                int64_t share = 0 == c ? 2 * (N - 1) * (L / ppn) / N : hcp_ceil_log2(N) * L / ppn;
                EXPECT(x <= share, "%dx%d %s: rank %d sends %lld > %lld", N, ppn,
                       hcp_ml_coll_names[c], r, (long long) x, (long long) share);
            }
            EXPECT_EQ(total, (0 == c ? 2 : 1) * (int64_t) (N - 1) * L);
            sim_free(sim);
        }
        hcp_ml_fini(&ml);
        hcp_decomp_fini(&d);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan_decomp");
    TCase *tc = tcase_create("decomposition");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, criteria_parse);
    tcase_add_test(tc, criteria_keys);
    tcase_add_test(tc, shm_group_runs);
    tcase_add_test(tc, parts_every_n);
    tcase_add_test(tc, pack_layouts);
    tcase_add_test(tc, alltoall_four_steps);
    tcase_add_test(tc, alltoall_too_big);
    tcase_add_test(tc, shm_levels);
    tcase_add_test(tc, ml_lanes_332);
    tcase_add_test(tc, ml_lanes_every_layout);
    tcase_add_test(tc, ml_plans_exact);
    tcase_add_test(tc, ml_plans_crossing);
    tcase_add_test(tc, ml_plans_32768);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return unit_run(suite());
}
