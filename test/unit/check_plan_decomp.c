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
    EXPECT((int64_t) (x) == (int64_t) (y), "%s is %lld, want %s = %lld", #x, (long long) (x), #y, \
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
        {"none", HCP_CRIT_NONE},       {"node", HCP_CRIT_LEVEL},
        {"socket", HCP_CRIT_LEVEL},    {"numa", HCP_CRIT_LEVEL},
        {"l3", HCP_CRIT_LEVEL},        {"hwthread", HCP_CRIT_LEVEL},
        {"block:1", HCP_CRIT_BLOCK},   {"block:4", HCP_CRIT_BLOCK},
        {"list:0", HCP_CRIT_LIST},     {"list:0-3,4-5", HCP_CRIT_LIST},
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

    static const char *bad[] = {"",         "bogus",      "Node",        "block:",
                                "block:0",  "block:-2",   "block:3x",    "block:99999999999",
                                "list:",    "list:a",     "list:0-3,3-5", "list:0-2,4",
                                "list:3-1", "list:0;1",   "list:0,,1",   "list:0-1+",
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
        case K_BLOCK: keys[r] = r / m; break;
        case K_ROUND_ROBIN: keys[r] = r % m; break;
        case K_RANDOM: keys[r] = (int) (unit_rand(seed) % (uint64_t) m) * 7 - 3; break;
        case K_ONE: keys[r] = 42; break;
        case K_SINGLETONS: keys[r] = n - r; break;
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
    int64_t *b; /* [n][n] */
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
                                  "n %d: byte %lld of %d's block for %d is wrong", n,
                                  (long long) e, i, j);
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
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return unit_run(suite());
}
