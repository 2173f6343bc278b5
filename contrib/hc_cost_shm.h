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
} hcs_node_t;

/* The designs and the collectives the model counts. */
enum { HCS_FLAT = 0, HCS_TWO = 1, HCS_NLEVEL = 2, HCS_NDESIGN = 3 };
enum { HCS_BARRIER = 0, HCS_BCAST = 1, HCS_REDUCE = 2, HCS_ALLREDUCE = 3, HCS_NCOLL = 4 };

extern const hcs_node_t hcs_epyc, hcs_xeon;
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

#endif
