/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost shm: the node level's cost model, MPI-free and
 * self-contained (no planner, no simulator): the critical path of barrier,
 * bcast, reduce and allreduce in cache-line transfers and bytes per link,
 * for the flat design, today's two levels and an n-level hierarchy, on
 * modelled many-core nodes; and the shared memory a communicator takes
 * (hiercoll's region, xhc's and acoll's segments).  See hc_cost_shm.c for
 * the model and docs/design/node-hierarchy-model.md for its inputs,
 * sources and tables.
 */
#ifndef HC_COST_SHM_H
#define HC_COST_SHM_H

#include <stddef.h>

/* Distances between two cores: same L3, same NUMA domain (other L3), same
 * package (other NUMA domain), other package. */
enum { HCS_L3 = 0, HCS_NUMA = 1, HCS_PKG = 2, HCS_NODE = 3, HCS_NDIST = 4 };

typedef struct hcs_node {
    const char *name;
    int pkgs, numa_per_pkg, l3_per_numa, cores_per_l3;
    double lat[HCS_NDIST]; /* ns: one line from its writer's cache to a reader */
    double bw[HCS_NDIST];  /* GB/s: one core copying lines homed at that distance */
    double link_l3;        /* GB/s into one L3 domain from outside it (AMD: a CCD's link) */
    double link_pkg;       /* GB/s from one package to the other, one direction */
    double contention;     /* c = contention x L: each further L3 domain reading one line */
    double mlp;            /* lines one core has in flight (independent reads) */
    double fold_gbs;       /* GB/s of one core's fold (sum of doubles) in cache */
    /* long data (hc_cost_shm_long.c) */
    double bw_own;   /* GB/s: one core copying its own cache's lines (a cell it just wrote) */
    double sys_ns;   /* one process_vm_readv/writev call (hc_cma_probe, here) */
    double page_ns;  /* its page walk and pinning per 4 KiB page, beyond the copy */
    double pin;      /* x lat[d]: a further reader of the same page at once (two atomic updates) */
    double rndv_ns;  /* the PML's rendezvous of one long message (ob1 over vader: RGET, FIN) */
} hcs_node_t;

/* The designs and the collectives the model counts. */
enum { HCS_FLAT = 0, HCS_TWO = 1, HCS_NLEVEL = 2, HCS_NDESIGN = 3 };
enum { HCS_BARRIER = 0, HCS_BCAST = 1, HCS_REDUCE = 2, HCS_ALLREDUCE = 3, HCS_NCOLL = 4 };

extern const hcs_node_t hcs_epyc, hcs_xeon, hcs_xeon16;
extern const char *const hcs_design_names[HCS_NDESIGN];
extern const char *const hcs_coll_names[HCS_NCOLL];

/* Distance between the cores of ranks a and b (rank r on core r, cores
 * numbered L3 by L3, NUMA by NUMA, package by package; past the cores,
 * rank r on the second hardware thread of core r - cores: SMT siblings
 * count as the same L3). */
int hcs_distance(const hcs_node_t *m, int a, int b);

/* The critical path in ns of one call of collective `coll` with `bytes`
 * per rank on n ranks (n <= twice the node's cores), by design; < 0: n
 * out of range. */
double hcs_time(const hcs_node_t *m, int design, int coll, int n, size_t bytes);

/* Levels of the n-level hierarchy on n ranks (the levels that split them)
 * and their names, e.g. "l3,numa,package" (buf of len bytes). */
int hcs_levels(const hcs_node_t *m, int n, char *buf, size_t len);

/* Shared memory per communicator of n local ranks, bytes: hiercoll's
 * region with the default parameters, xhc's segments (its four
 * collectives, default hierarchies), acoll's segments. */
size_t hcs_mem_hiercoll(int n);
size_t hcs_mem_xhc(const hcs_node_t *m, int n);
size_t hcs_mem_acoll(const hcs_node_t *m, int n);

/* The model's helpers the long-data model shares (hc_cost_shm_model.c). */
typedef struct { int lead, n, *ranks; } hcs_grp_t;
typedef struct { int ng, dist; hcs_grp_t *g; char name[16]; } hcs_lvl_t;
typedef struct { int nl; hcs_lvl_t l[8]; } hcs_tree_t;
/* The n-level tree on ranks 0..n-1, groups cut at `cut` (0: not cut, xhc's). */
void hcs_tree_build(const hcs_node_t *m, int n, int cut, hcs_tree_t *t);
void hcs_tree_free(hcs_tree_t *t);
int hcs_cores(const hcs_node_t *m);
int hcs_l3_of(const hcs_node_t *m, int r);
int hcs_pkg_of(const hcs_node_t *m, int r);
/* the last reader of writer w's line read at once by readers[0..nr) */
double hcs_line_to(const hcs_node_t *m, int w, const int *readers, int nr);
/* reader r reads the lines of writers[0..nw) (each read by `all` too) */
double hcs_lines_from(const hcs_node_t *m, int r, const int *writers, int nw, const int *all,
                      int nall);
double hcs_all_read_all(const hcs_node_t *m, const int *set, int n);

/* LONG DATA (hc_cost_shm_long.c): bcast, reduce, allreduce of 16 KiB to
 * 8 MiB by design: the flat single copy the 16-core run measured, the
 * engine's single copy before the long cells (a bcast's pieces down the
 * levels past the group size; reductions flat), the long cells, tuned
 * (Open MPI 4.1's fixed rules over ob1 and vader's CMA), xhc's
 * copy-in-copy-out (its limits raised: no XPMEM). */
enum { HCL_FLAT = 0, HCL_TODAY = 1, HCL_LONG = 2, HCL_TUNED = 3, HCL_XHC = 4, HCL_NDESIGN = 5 };
extern const char *const hcl_design_names[HCL_NDESIGN];
/* The critical path in ns (< 0: out of range); chunk: the long cells' (0:
 * the default, 64 KiB). */
double hcl_time(const hcs_node_t *m, int design, int coll, int n, size_t bytes, size_t chunk);
/* Per rank and call: bytes copied (mean and most of one rank; of them
 * across packages, mean), system calls (most), the most readers of one
 * buffer. */
typedef struct {
    double bytes_mean, bytes_max, bytes_far, calls_max, readers_max;
} hcl_counts_t;
void hcl_counts(const hcs_node_t *m, int design, int coll, int n, size_t bytes, hcl_counts_t *c);
int hc_cost_shm_long(const hcs_node_t *const *nodes, int nnode, const int *ns, int nn, int csv,
                     size_t chunk);
int hc_cost_shm_reproduce(const hcs_node_t *m, int csv);
void hcl_counts_table(int csv);
void hcl_set_sizes(const size_t *bytes, int nb); /* --long's sizes (default 16 KiB .. 8 MiB) */
extern int hcl_loop; /* 1: the time per call of back-to-back calls; 0: one call's critical path */
extern double hcl_stagger; /* readers of one result slice that pin a page at once (share) */

#endif
