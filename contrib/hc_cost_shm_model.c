/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The node level's cost model (hc_cost shm).  MPI-free, no
 * planner: it counts who waits for whose cache line, at which distance,
 * and the bytes each link carries, for three designs:
 *
 *   flat     every rank reads every other rank's line (barrier, allreduce
 *            in the line), a root's line read by all (bcast), a root that
 *            reads every line (reduce); long data: every reader copies from
 *            the root (bcast), every rank folds every copy (up to
 *            coll_hiercoll_shm_fold_max, 4 KiB) or its slice of every
 *            rank's input, then copies the result (slice-parallel)
 *   two      today's coll_hiercoll_shm.c: groups of up to
 *            coll_hiercoll_shm_group_size (8) consecutive ranks that share
 *            an L3 (coll_hiercoll_shm_group_level), for barrier and the
 *            reductions in the line: a leader reads its members' lines,
 *            then EVERY rank reads EVERY leader's line ("the leaders'
 *            second phase to all", run_barrier); bcast and long data as
 *            flat
 *   n-level  levels from the topology that split the ranks (L3, NUMA,
 *            package, node), each group cut at 8 like today's; a leader per
 *            group; data up (a leader reads its members' lines; long data
 *            folded slice-parallel inside each group), the top group's
 *            lines read by each other (barrier, allreduce: flat among at
 *            most 8) and down (members read their leader's line); long
 *            data in pipelined chunks of 16 KiB so that every level works
 *            at once
 *
 * Model of one line transfer.  A line written at core w and read by a core
 * at distance d costs lat[d] (published core-to-core latencies, see the
 * node tables below).  CONTENTION: a line read by several cores at once
 * is served partly in turn: the last of its readers has it after
 *     lat[dmax] + contention * (lat[dmax] * (q - 1) + lat[L3] * (r - 1))
 * where q is the number of L3 domains the readers are in (one transfer
 * into each, serialized at the line's home) and r the most readers in one
 * L3 domain (served from there).  A core that reads m lines written
 * elsewhere has them in flight `mlp` at a time: max of the lines' costs
 * plus (m - 1) x (their mean latency) / mlp.
 *
 * Long data.  A core copies lines homed at distance d at bw[d] GB/s; the
 * bytes into one L3 domain from outside share link_l3 (AMD: the CCD's
 * link), the bytes from one package to the other link_pkg; a stage takes
 * the longest of its cores' copies and its links' loads.  A pipeline of k
 * chunks through stages t_1..t_s takes sum(t_i) + (k - 1) max(t_i).
 * Single copy (process_vm_readv, today's long reductions and bcasts from
 * 16 KiB) costs `HCS_SYSCALL_NS` per call on top of the copy.
 */
#include "hc_cost_shm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HCS_FANIN 8           /* today's coll_hiercoll_shm_group_size, and the n-level's cut */
#define HCS_INLINE 112        /* HC_SHM_INLINE: data in the flag line */
#define HCS_FOLD_MAX 4096     /* coll_hiercoll_shm_fold_max: every rank folds every copy */
#define HCS_CMA_MIN 16384     /* coll_hiercoll_shm_cma_min: single copy from here */
#define HCS_PIECE (128 << 10) /* HC_SHM_PIECE: a single-copy bcast's piece */
#define HCS_CHUNK (16 << 10)  /* the n-level pipeline's chunk (xhc's default chunk_size) */
#define HCS_SYSCALL_NS 700.0  /* one process_vm_readv call (the short model's; see HCS_SYS_NS) */
/* Single copy and the PML, calibrated on this project's VM (2-core Xeon,
 * KVM; hc_cma_probe, docs/design/shm-long.md): a process_vm_readv call,
 * its page walk and pinning per 4 KiB page beyond the copy, a further
 * reader of the same page at once (x the line latency between them: two
 * atomic updates of the page's count, each a line coming and going), and
 * ob1's rendezvous of a long message over vader (RGET, FIN). */
#define HCS_SYS_NS 410.0
#define HCS_PAGE_NS 90.0
#define HCS_PIN 4.0
#define HCS_RNDV_NS 1500.0

const char *const hcs_design_names[HCS_NDESIGN] = {"flat", "two-level", "n-level"};
const char *const hcs_coll_names[HCS_NCOLL] = {"barrier", "bcast", "reduce", "allreduce"};

/* The modelled nodes.  Sources (docs/design/node-hierarchy-model.md has
 * the full list and how each figure was read):
 *  [C2C]  Chips and Cheese, "Core to Core Latency Data on Large Systems",
 *         2023-11-07,
 * https://chipsandcheese.com/2023/11/07/core-to-core-latency-data-on-large-systems/ [ATM]
 * AnandTech, "AMD 3rd Gen EPYC Milan Review", 2021-03-15, page "Topology, Memory Subsystem &
 * Latency", https://www.anandtech.com/show/16529/amd-epyc-milan-review/4 [ATR]  AnandTech, "AMD
 * Rome Second Generation EPYC Review", 2019, "Memory Subsystem: Latency",
 *         https://www.anandtech.com/show/14694/amd-rome-epyc-2nd-gen/7
 *  [JPS]  J. Prahman, "Sapphire Rapids core-to-core latency" (m7i.48xlarge),
 *         https://jprahman.substack.com/p/sapphire-rapids-core-to-core-latency
 *  [XHC]  G. Katevenis, M. Ploumidis, M. Marazakis, "A framework for
 *         hierarchical single-copy MPI collectives on multicore nodes",
 *         IEEE CLUSTER 2022 (xhc's design: levels, chunked pipelining)
 *  [MCC]  J. McCalpin, STREAM, https://www.cs.virginia.edu/stream/ (the
 *         memory bandwidths the per-core figures are bounded by)
 *  [SOSP] T. David, R. Guerraoui, V. Trigonakis, "Everything You Always
 *         Wanted to Know About Synchronization but Were Afraid to Ask",
 *         SOSP 2013 (loads of one line by many cores serialize at its home)
 * lat[]: [C2C] Genoa/Milan and Sapphire Rapids two-socket heat maps, [ATM]
 * for Milan's in-CCX/cross-CCD/cross-socket bands, [JPS] for SPR's
 * in-socket spread; rounded.  bw[], links: single-core copy rates and the
 * fabric links' published widths (AMD: 32 B/clk CCD read at ~2 GHz
 * FCLK; xGMI and UPI: x16 links), rounded down to what a copy loop gets.
 * contention and mlp: assumptions (stated in the design note). */
const hcs_node_t hcs_epyc = {
    .name = "epyc-2x64",
    .pkgs = 2, .numa_per_pkg = 1, .l3_per_numa = 8, .cores_per_l3 = 8, /* NPS1, 8 CCD of 8 */
    .lat = {25.0, 110.0, 110.0, 200.0}, /* (NPS1: the package is one NUMA domain) */
    .bw = {30.0, 20.0, 20.0, 12.0},
    .link_l3 = 60.0, .link_pkg = 100.0,
    .contention = 0.25, .mlp = 8.0, .fold_gbs = 20.0,
    .bw_own = 40.0, .sys_ns = HCS_SYS_NS, .page_ns = HCS_PAGE_NS, .pin = HCS_PIN,
    .rndv_ns = HCS_RNDV_NS,
};
const hcs_node_t hcs_xeon = {
    .name = "xeon-2x56",
    .pkgs = 2,
    .numa_per_pkg = 2,
    .l3_per_numa = 1,
    .cores_per_l3 = 28, /* SNC2: an LLC share per NUMA */
    .lat = {55.0, 55.0, 80.0, 150.0},
    .bw = {20.0, 20.0, 16.0, 10.0},
    .link_l3 = 200.0,
    .link_pkg = 80.0,
    .contention = 0.25,
    .mlp = 8.0,
    .fold_gbs = 20.0,
    .bw_own = 40.0,
    .sys_ns = HCS_SYS_NS,
    .page_ns = HCS_PAGE_NS,
    .pin = HCS_PIN,
    .rndv_ns = HCS_RNDV_NS,
};
/* The 16-core Xeon VM of the one many-core run (docs/design/node-hierarchy-model.md:
 * one socket, one L3; a line crossed in 0.065-0.080 us one way there,
 * hc_pingpong); its copy rate is the Xeon's above.  No probe ran there:
 * its process_vm_readv call (1.5 us) and page (250 ns) are fitted to that
 * run (docs/design/shm-long.md), 3.7 and 2.8 times this project's VM's. */
const hcs_node_t hcs_xeon16 = {
    .name = "xeon16-vm",
    .pkgs = 1,
    .numa_per_pkg = 1,
    .l3_per_numa = 1,
    .cores_per_l3 = 16,
    .lat = {75.0, 75.0, 75.0, 75.0},
    .bw = {20.0, 20.0, 20.0, 20.0},
    .link_l3 = 200.0,
    .link_pkg = 80.0,
    .contention = 0.25,
    .mlp = 8.0,
    .fold_gbs = 20.0,
    .bw_own = 40.0,
    .sys_ns = 1500.0,
    .page_ns = 250.0,
    .pin = HCS_PIN,
    .rndv_ns = HCS_RNDV_NS,
};

/* ------------------------------------------------------------------ */
/* Placement: rank r on core r                                         */
/* ------------------------------------------------------------------ */

static int cores_of(const hcs_node_t *m)
{
    return m->pkgs * m->numa_per_pkg * m->l3_per_numa * m->cores_per_l3;
}
/* (past the cores: the second hardware threads, rank r on PU r, Linux's
 * numbering: PU p on core p mod cores) */
static int l3_of(const hcs_node_t *m, int r)
{
    return (r % cores_of(m)) / m->cores_per_l3;
}
static int numa_of(const hcs_node_t *m, int r)
{
    return l3_of(m, r) / m->l3_per_numa;
}
static int pkg_of(const hcs_node_t *m, int r)
{
    return numa_of(m, r) / m->numa_per_pkg;
}

int hcs_distance(const hcs_node_t *m, int a, int b)
{
    if (l3_of(m, a) == l3_of(m, b)) {
        return HCS_L3;
    }
    if (numa_of(m, a) == numa_of(m, b)) {
        return HCS_NUMA;
    }
    return pkg_of(m, a) == pkg_of(m, b) ? HCS_PKG : HCS_NODE;
}

/* The last reader of writer w's line, read at once by readers[0..nr). */
static double line_to(const hcs_node_t *m, int w, const int *readers, int nr)
{
    if (nr <= 0) {
        return 0;
    }
    int dmax = 0, q = 0, rmax = 0;
    int *seen = calloc((size_t) cores_of(m) / (size_t) m->cores_per_l3 + 1, sizeof(int));
    for (int i = 0; i < nr; ++i) {
        int d = hcs_distance(m, w, readers[i]), l = l3_of(m, readers[i]);
        dmax = d > dmax ? d : dmax;
        if (0 == seen[l]++) {
            ++q;
        }
        rmax = seen[l] > rmax ? seen[l] : rmax;
    }
    free(seen);
    return m->lat[dmax] + m->contention * (m->lat[dmax] * (q - 1) + m->lat[HCS_L3] * (rmax - 1));
}

/* Reader r reads the lines of writers[0..nw) (each also read by `others`
 * other cores at once: 0, or every rank); each line's cost from line_to
 * with its readers. */
static double lines_from(const hcs_node_t *m, int r, const int *writers, int nw, const int *all,
                         int nall)
{
    double worst = 0, sum = 0;
    int *rd = malloc(sizeof(int) * (size_t) (nall > 0 ? nall : 1));
    int k = 0;
    for (int j = 0; j < nw; ++j) {
        int w = writers[j];
        if (w == r) {
            continue;
        }
        double t;
        if (nall > 0) { /* (the line's readers: every rank of `all` but its writer) */
            int nr = 0;
            for (int i = 0; i < nall; ++i) {
                if (all[i] != w) {
                    rd[nr++] = all[i];
                }
            }
            t = line_to(m, w, rd, nr);
        } else {
            t = m->lat[hcs_distance(m, w, r)];
        }
        worst = t > worst ? t : worst;
        sum += m->lat[hcs_distance(m, w, r)];
        ++k;
    }
    free(rd);
    return k ? worst + (k - 1) * (sum / k) / m->mlp : 0;
}

/* ------------------------------------------------------------------ */
/* Groups                                                               */
/* ------------------------------------------------------------------ */

typedef hcs_grp_t grp_t;
typedef hcs_lvl_t lvl_t;
typedef hcs_tree_t tree_t;

static int key_of(const hcs_node_t *m, int what, int r)
{
    switch (what) {
    case 0: return l3_of(m, r);
    case 1: return numa_of(m, r);
    case 2: return pkg_of(m, r);
    default: return 0;
    }
}

/* Runs of set[0..n) with one key, cut at `cut`; the groups' first ranks
 * lead.  Returns the number of groups. */
static int runs(const hcs_node_t *m, const int *set, int n, int what, int cut, grp_t *out)
{
    int ng = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && j - i < cut && key_of(m, what, set[j]) == key_of(m, what, set[i])) {
            ++j;
        }
        out[ng].lead = set[i];
        out[ng].n = j - i;
        out[ng].ranks = malloc(sizeof(int) * (size_t) (j - i));
        memcpy(out[ng].ranks, set + i, sizeof(int) * (size_t) (j - i));
        ++ng;
        i = j;
    }
    return ng;
}

static void tree_free(tree_t *t)
{
    for (int i = 0; i < t->nl; ++i) {
        for (int g = 0; g < t->l[i].ng; ++g) {
            free(t->l[i].g[g].ranks);
        }
        free(t->l[i].g);
    }
    t->nl = 0;
}

/* The n-level tree on ranks 0..n-1 (cut 8 at every level); two = 1:
 * today's groups (one level by L3, cut 8) and the leaders' flat top. */
static void tree_build_cut(const hcs_node_t *m, int n, int two, int fanin, tree_t *t);

static void tree_build(const hcs_node_t *m, int n, int two, tree_t *t)
{
    tree_build_cut(m, n, two, HCS_FANIN, t);
}

/* (the same with groups cut at `fanin`; 0: not cut) */
static void tree_build_cut(const hcs_node_t *m, int n, int two, int fanin, tree_t *t)
{
    static const char *names[] = {"l3", "numa", "package", "node"};
    int *set = malloc(sizeof(int) * (size_t) n), ns = n;
    for (int i = 0; i < n; ++i) {
        set[i] = i;
    }
    t->nl = 0;
    for (int what = 0; ns > 1 && t->nl < 8; what = what < 3 ? what + 1 : 3) {
        grp_t *g = malloc(sizeof(grp_t) * (size_t) ns);
        int cut = (two && what > 0) || fanin <= 0 ? ns : fanin;
        int ng = runs(m, set, ns, what, cut, g);
        if (ng == ns) { /* (splits nothing: every group one rank) */
            for (int i = 0; i < ng; ++i) {
                free(g[i].ranks);
            }
            free(g);
            if (3 == what && cut >= ns) {
                break;
            }
            continue;
        }
        lvl_t *l = &t->l[t->nl++];
        l->ng = ng;
        l->g = g;
        l->dist = 0;
        for (int i = 0; i < ng; ++i) {
            for (int j = 0; j < g[i].n; ++j) {
                int d = hcs_distance(m, g[i].lead, g[i].ranks[j]);
                l->dist = d > l->dist ? d : l->dist;
            }
        }
        snprintf(l->name, sizeof(l->name), "%s", names[what]);
        for (int i = 0; i < ng; ++i) {
            set[i] = g[i].lead;
        }
        ns = ng;
        if (two && t->nl == 2) {
            break;
        }
        if (two && t->nl == 1) {
            what = 2; /* (today: the leaders, all of them, in one flat group) */
        }
    }
    free(set);
}

int hcs_levels(const hcs_node_t *m, int n, char *buf, size_t len)
{
    tree_t t;
    tree_build(m, n, 0, &t);
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < t.nl && at < len; ++i) {
        int mx = 0;
        for (int g = 0; g < t.l[i].ng; ++g) {
            mx = t.l[i].g[g].n > mx ? t.l[i].g[g].n : mx;
        }
        at += (size_t) snprintf(buf + at, len - at, "%s%s(%dx%d)", i ? "," : "", t.l[i].name,
                                t.l[i].ng, mx);
    }
    int nl = t.nl;
    tree_free(&t);
    return nl;
}

/* What the long-data model shares (hc_cost_shm.h). */
void hcs_tree_build(const hcs_node_t *m, int n, int cut, hcs_tree_t *t)
{
    tree_build_cut(m, n, 0, cut, t);
}
void hcs_tree_free(hcs_tree_t *t)
{
    tree_free(t);
}
int hcs_cores(const hcs_node_t *m)
{
    return cores_of(m);
}
int hcs_l3_of(const hcs_node_t *m, int r)
{
    return l3_of(m, r);
}
int hcs_pkg_of(const hcs_node_t *m, int r)
{
    return pkg_of(m, r);
}
double hcs_line_to(const hcs_node_t *m, int w, const int *readers, int nr)
{
    return line_to(m, w, readers, nr);
}
double hcs_lines_from(const hcs_node_t *m, int r, const int *writers, int nw, const int *all,
                      int nall)
{
    return lines_from(m, r, writers, nw, all, nall);
}

/* ------------------------------------------------------------------ */
/* Short data (in the line)                                            */
/* ------------------------------------------------------------------ */

/* Up one level: each leader reads its members' lines (one reader each). */
static double level_up(const hcs_node_t *m, const lvl_t *l)
{
    double worst = 0;
    for (int g = 0; g < l->ng; ++g) {
        double t = lines_from(m, l->g[g].lead, l->g[g].ranks, l->g[g].n, NULL, 0);
        worst = t > worst ? t : worst;
    }
    return worst;
}

/* Down one level: the members read their leader's line at once. */
static double level_down(const hcs_node_t *m, const lvl_t *l)
{
    double worst = 0;
    for (int g = 0; g < l->ng; ++g) {
        double t = line_to(m, l->g[g].lead, l->g[g].ranks + 1, l->g[g].n - 1);
        worst = t > worst ? t : worst;
    }
    return worst;
}

/* Every rank of set reads every other's line (flat barrier pattern):
 * lines_from(m, set[i], set, n, set, n) for every i, each line's cost
 * (the same for all its readers) counted once. */
static double all_read_all(const hcs_node_t *m, const int *set, int n)
{
    double *lc = malloc(sizeof(double) * (size_t) n), worst = 0;
    int *rd = malloc(sizeof(int) * (size_t) n);
    for (int j = 0; j < n; ++j) {
        int nr = 0;
        for (int i = 0; i < n; ++i) {
            if (i != j) {
                rd[nr++] = set[i];
            }
        }
        lc[j] = line_to(m, set[j], rd, nr);
    }
    for (int i = 0; i < n; ++i) {
        double w = 0, sum = 0;
        for (int j = 0; j < n; ++j) {
            if (j != i) {
                w = lc[j] > w ? lc[j] : w;
                sum += m->lat[hcs_distance(m, set[j], set[i])];
            }
        }
        double t = n > 1 ? w + (n - 2) * (sum / (n - 1)) / m->mlp : 0;
        worst = t > worst ? t : worst;
    }
    free(lc);
    free(rd);
    return worst;
}

static double fold_ns(const hcs_node_t *m, int nvec, size_t bytes)
{
    return (double) nvec * (double) bytes / m->fold_gbs; /* (GB/s = bytes/ns) */
}

static double short_time(const hcs_node_t *m, int design, int coll, int n, size_t bytes)
{
    int *all = malloc(sizeof(int) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        all[i] = i;
    }
    double t = 0;
    tree_t tr = {0};
    int fold = HCS_REDUCE == coll || HCS_ALLREDUCE == coll;
    if (HCS_FLAT == design || (HCS_TWO == design && (n <= HCS_FANIN || HCS_BCAST == coll))) {
        switch (coll) {
        case HCS_BARRIER:
        case HCS_ALLREDUCE: t = all_read_all(m, all, n); break;
        case HCS_BCAST: t = line_to(m, 0, all + 1, n - 1); break;
        default: t = lines_from(m, 0, all, n, NULL, 0); break;
        }
        t += fold ? fold_ns(m, n, bytes) : 0;
    } else if (HCS_TWO == design) {
        tree_build(m, n, 1, &tr);
        t = level_up(m, &tr.l[0]) + (fold ? fold_ns(m, HCS_FANIN, bytes) : 0);
        const lvl_t *top = &tr.l[tr.nl - 1];
        int *leaders = top->g[0].ranks, nlead = top->g[0].n;
        if (tr.nl < 2) { /* (one group: its leader alone on top) */
            leaders = all, nlead = 1;
        }
        if (HCS_REDUCE == coll) { /* the root reads the leaders' lines */
            t += lines_from(m, 0, leaders, nlead, NULL, 0);
        } else { /* every rank reads every leader's line */
            double worst = 0;
            for (int i = 0; i < n; ++i) {
                double x = lines_from(m, i, leaders, nlead, all, n);
                worst = x > worst ? x : worst;
            }
            t += worst;
        }
        t += fold ? fold_ns(m, nlead, bytes) : 0;
    } else { /* up the levels below the top, the top group flat, down */
        tree_build(m, n, 0, &tr);
        for (int i = 0; i < tr.nl; ++i) {
            const lvl_t *l = &tr.l[i];
            int top = i == tr.nl - 1;
            if (top && (HCS_BARRIER == coll || HCS_ALLREDUCE == coll)) {
                t += all_read_all(m, l->g[0].ranks, l->g[0].n); /* (one group on top) */
            } else {
                if (HCS_BCAST != coll) {
                    t += level_up(m, l);
                }
                if (HCS_REDUCE != coll) {
                    t += level_down(m, l);
                }
            }
            if (HCS_BARRIER != coll && HCS_BCAST != coll) {
                t += fold_ns(m, l->g[0].n, bytes);
            }
        }
    }
    tree_free(&tr);
    free(all);
    return t;
}

/* ------------------------------------------------------------------ */
/* Long data                                                            */
/* ------------------------------------------------------------------ */

/* One stage of copies: readers[i] copies bytes[i] from src[i] (a rank).
 * The longest copy, or the most loaded link. */
static double stage(const hcs_node_t *m, int n, const int *readers, const int *src,
                    const double *bytes, int nc)
{
    int nl3 = cores_of(m) / m->cores_per_l3;
    double *into = calloc((size_t) nl3, sizeof(double)), *per = calloc((size_t) n, sizeof(double));
    double cross[2] = {0, 0}, worst = 0;
    for (int i = 0; i < nc; ++i) {
        int d = hcs_distance(m, src[i], readers[i]);
        per[readers[i]] += bytes[i] / m->bw[d];
        if (d != HCS_L3) {
            into[l3_of(m, readers[i])] += bytes[i];
        }
        if (HCS_NODE == d) {
            cross[pkg_of(m, readers[i]) & 1] += bytes[i];
        }
    }
    for (int i = 0; i < n; ++i) {
        worst = per[i] > worst ? per[i] : worst;
    }
    for (int l = 0; l < nl3; ++l) {
        worst = into[l] / m->link_l3 > worst ? into[l] / m->link_l3 : worst;
    }
    for (int p = 0; p < 2; ++p) {
        worst = cross[p] / m->link_pkg > worst ? cross[p] / m->link_pkg : worst;
    }
    free(into);
    free(per);
    return worst;
}

/* hiercoll's cell at n ranks (cell_for: the default 8 KiB, at most
 * 256 KiB / (4 (n + 1)), multiple of 128, at least 1 KiB). */
static size_t cell_of(int n)
{
    size_t cap = (256u << 10) / (4u * (size_t) (n + 1)), cell = 8u << 10;
    cell = cell > cap ? cap : cell;
    cell &= ~(size_t) 127;
    return cell < 1024 ? 1024 : cell;
}

/* Flat (and today's) long data. */
static double flat_long(const hcs_node_t *m, int coll, int n, size_t S)
{
    int np = n * n;
    int *rd = malloc(sizeof(int) * (size_t) np), *sr = malloc(sizeof(int) * (size_t) np);
    double *by = malloc(sizeof(double) * (size_t) np);
    int *all = malloc(sizeof(int) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        all[i] = i;
    }
    /* (op_init: single copy from 16 KiB, one chunk; else chunks of a cell) */
    int cma = S >= HCS_CMA_MIN;
    size_t chunk = cma ? S : cell_of(n);
    double k = ceil((double) S / (double) chunk), t = 0, sync;
    int nc = 0;
    if (HCS_BCAST == coll) { /* every reader copies from the root (or its cells) */
        for (int i = 1; i < n; ++i) {
            rd[nc] = i, sr[nc] = 0, by[nc++] = (double) S;
        }
        t = stage(m, n, rd, sr, by, nc) + (cma ? 0 : (double) S / m->bw[HCS_L3]);
        sync = line_to(m, 0, all + 1, n - 1); /* (the root runs ahead: one flag's latency) */
        t += sync + (cma ? (double) ((S + HCS_PIECE - 1) / HCS_PIECE) * HCS_SYSCALL_NS : 0);
    } else if (!cma && S <= cell_of(n)
               && S * (HCS_ALLREDUCE == coll ? (size_t) n : 1) <= HCS_FOLD_MAX) {
        /* every rank (the root) folds every copy (op_init's PATH_FOLD) */
        int readers = HCS_ALLREDUCE == coll ? n : 1;
        for (int i = 0; i < readers; ++i) {
            for (int j = 0; j < n; ++j) {
                if (j != i) {
                    rd[nc] = i, sr[nc] = j, by[nc++] = (double) S;
                }
            }
        }
        t = (double) S / m->bw[HCS_L3] + stage(m, n, rd, sr, by, nc) + fold_ns(m, n, S);
        sync = HCS_ALLREDUCE == coll ? all_read_all(m, all, n) : lines_from(m, 0, all, n, NULL, 0);
        t += k * sync;
    } else { /* slice-parallel: my slice of every input, then the result's slices */
        double slice = (double) S / n;
        for (int i = 0; i < n; ++i) {
            for (int j = 0; j < n; ++j) {
                if (j != i) {
                    rd[nc] = i, sr[nc] = j, by[nc++] = slice;
                }
            }
        }
        double s1 = stage(m, n, rd, sr, by, nc) + fold_ns(m, n, (size_t) slice);
        nc = 0;
        for (int i = 0; i < (HCS_ALLREDUCE == coll ? n : 1); ++i) {
            for (int j = 0; j < n; ++j) {
                if (j != i) {
                    rd[nc] = i, sr[nc] = j, by[nc++] = slice;
                }
            }
        }
        double s2 = stage(m, n, rd, sr, by, nc);
        sync =
            all_read_all(m, all, n)
            + (HCS_ALLREDUCE == coll ? all_read_all(m, all, n) : lines_from(m, 0, all, n, NULL, 0));
        t = s1 + s2 + k * sync + (cma ? 2.0 * (n - 1) * HCS_SYSCALL_NS : 0);
    }
    free(rd), free(sr), free(by), free(all);
    return t;
}

/* n-level long data: pipelined chunks through the levels' stages, up
 * (slice-parallel fold inside each group) and/or down (members copy
 * from their leader). */
static double nlevel_long(const hcs_node_t *m, int coll, int n, size_t S)
{
    tree_t tr;
    tree_build(m, n, 0, &tr);
    size_t C = S < HCS_CHUNK ? S : HCS_CHUNK;
    double k = ceil((double) S / (double) C), sum = 0, mx = 0;
    int *rd = malloc(sizeof(int) * (size_t) n * HCS_FANIN),
        *sr = malloc(sizeof(int) * (size_t) n * HCS_FANIN);
    double *by = malloc(sizeof(double) * (size_t) n * HCS_FANIN);
    for (int pass = 0; pass < 2; ++pass) {
        int up = 0 == pass;
        if ((up && HCS_BCAST == coll) || (!up && HCS_REDUCE == coll) || HCS_BARRIER == coll) {
            continue;
        }
        for (int i = 0; i < tr.nl; ++i) {
            const lvl_t *l = &tr.l[i];
            int nc = 0;
            for (int g = 0; g < l->ng; ++g) {
                const grp_t *gr = &l->g[g];
                for (int a = 0; a < gr->n; ++a) {
                    for (int b = 0; b < gr->n; ++b) {
                        if (up && a != b) { /* member a folds its slice of b's chunk */
                            rd[nc] = gr->ranks[a], sr[nc] = gr->ranks[b];
                            by[nc++] = (double) C / gr->n;
                        } else if (!up && 0 == a && b > 0) { /* b copies from the leader */
                            rd[nc] = gr->ranks[b], sr[nc] = gr->lead, by[nc++] = (double) C;
                        }
                    }
                }
            }
            double t = stage(m, n, rd, sr, by, nc) + (up ? fold_ns(m, 1, C) : 0)
                       + (up ? level_up(m, l) : level_down(m, l));
            sum += t;
            mx = t > mx ? t : mx;
        }
    }
    free(rd), free(sr), free(by);
    tree_free(&tr);
    return sum + (k - 1) * mx;
}

double hcs_time(const hcs_node_t *m, int design, int coll, int n, size_t bytes)
{
    if (n < 1 || n > 2 * cores_of(m) || design < 0 || design >= HCS_NDESIGN || coll < 0
        || coll >= HCS_NCOLL) {
        return -1;
    }
    if (1 == n) {
        return 0;
    }
    if (HCS_BARRIER == coll || bytes <= HCS_INLINE) {
        return short_time(m, design, coll, n, HCS_BARRIER == coll ? 0 : bytes);
    }
    return HCS_NLEVEL == design ? nlevel_long(m, coll, n, bytes) : flat_long(m, coll, n, bytes);
}

/* ------------------------------------------------------------------ */
/* Memory per communicator                                              */
/* ------------------------------------------------------------------ */

/* hiercoll (coll_hiercoll_shm.c: set_up, region_bytes, chan_bytes,
 * flag_slots, cell_for) with the defaults: K = 4 slots
 * (coll_hiercoll_shm_slots), 3 channels (1 + coll_hiercoll_shm_persistent
 * 2), kf flag slots (2048 / n lines a channel, at most 64, a power of two,
 * at least K), a 128-byte flag line per (flag slot, rank) plus 4 hot rows
 * when flat (n <= 8), a done line per rank, a cell per (slot, rank) and a
 * result cell per slot; one 128-byte header; pages of 4 KiB. */
size_t hcs_mem_hiercoll(int n)
{
    const size_t line = 128, k = 4, nch = 3;
    int kf = 2048 / n;
    kf = kf > 64 ? 64 : kf;
    int p = 1;
    while (p < (int) k || 2 * p <= kf) {
        p *= 2;
    }
    size_t rows = (size_t) p + (n <= HCS_FANIN ? 4 : 0), cell = cell_of(n);
    size_t ch = rows * n * line + (size_t) n * line + k * n * cell + k * cell;
    return (line + nch * ch + 4095) & ~(size_t) 4095;
}

static size_t pages(size_t b)
{
    return (b + 4095) & ~(size_t) 4095;
}

/* xhc (open-mpi/ompi main, ompi/mca/coll/xhc/: coll_xhc_comm.c
 * mca_coll_xhc_comms_make, coll_xhc.h xhc_comm_ctrl_t/xhc_member_ctrl_t,
 * coll_xhc_component.c op_mca_default, coll_xhc.c xhc_alloc_bcast_cico):
 * per collective and per level, each group's leader creates one segment:
 * the comm ctrl (3 lines of 128 B), a member ctrl (2 lines) per member
 * and slice, and for reduce/allreduce a CICO buffer of cico_max (4 KiB)
 * per member and slice (reduce: 2 slices); bcast adds a 256-byte CICO
 * buffer per rank (a segment each).  Default hierarchies: bcast and
 * barrier "numa,socket", reduce and allreduce "l3,numa,socket", plus the
 * top level xhc adds over the last one's leaders.  Segments in pages. */
static size_t xhc_levels(const hcs_node_t *m, int n, int with_l3, size_t cico, int slices)
{
    int *set = malloc(sizeof(int) * (size_t) n), ns = n;
    for (int i = 0; i < n; ++i) {
        set[i] = i;
    }
    size_t total = 0;
    for (int what = with_l3 ? 0 : 1; what <= 3 && ns > 1; ++what) {
        grp_t *g = malloc(sizeof(grp_t) * (size_t) ns);
        int ng = runs(m, set, ns, what, ns, g); /* (xhc does not cut groups) */
        if (ng < ns) {
            for (int i = 0; i < ng; ++i) {
                total += pages(384 + (size_t) g[i].n * 256 * (size_t) slices
                               + (size_t) g[i].n * cico * (size_t) slices);
            }
        }
        for (int i = 0; i < ng; ++i) {
            set[i] = g[i].lead;
            free(g[i].ranks);
        }
        free(g);
        ns = ng;
    }
    free(set);
    return total;
}

size_t hcs_mem_xhc(const hcs_node_t *m, int n)
{
    return xhc_levels(m, n, 0, 0, 1) /* barrier */
           + xhc_levels(m, n, 0, 0, 1) + (size_t) n * pages(256) /* bcast, its CICO */
           + xhc_levels(m, n, 1, 4096, 2)  /* reduce */
           + xhc_levels(m, n, 1, 4096, 1); /* allreduce */
}

/* acoll (ompi/mca/coll/acoll/coll_acoll_utils.h, the shared-memory data's
 * set-up): each NUMA group's leader (l1_gp[0]) creates one segment of
 * LEADER_SHM_SIZE (16 KiB) + 2 x 64 B x n (its level-1 and level-2 sync
 * lines) + PER_RANK_SHM_SIZE (8 KiB) x n + 2 x 64 B x n (bcast and barrier
 * flags), n the communicator's size. */
size_t hcs_mem_acoll(const hcs_node_t *m, int n)
{
    int numa = 0, last = -1;
    for (int r = 0; r < n; ++r) {
        if (numa_of(m, r) != last) {
            last = numa_of(m, r), ++numa;
        }
    }
    return (size_t) numa * pages(16384 + (size_t) n * (64 * 2 + 8192 + 64 * 2));
}

double hcs_all_read_all(const hcs_node_t *m, const int *set, int n)
{
    return all_read_all(m, set, n);
}
