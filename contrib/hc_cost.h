/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost: the planners' cost model (no MPI).  Each capability adds a
 * subcommand in its own file (hc_cost_<name>.c) and one line to the table
 * in hc_cost.c.
 */
#ifndef HC_COST_H
#define HC_COST_H

#include "coll_hiercoll_plan.h"
#include "hiercoll_sim.h"

typedef struct hc_cost_opts {
    int *ns;          /* process counts (--n 2-16,1000,32768) */
    int nn;
    long long bytes;  /* --bytes: message or vector size */
    int root;         /* --root */
    sim_model_t model;/* --model alpha,o,beta,gamma,delta (seconds) */
    int per_rank;     /* --per-rank: one line per rank */
    const char *extra;/* --extra: subcommand-specific */
} hc_cost_opts_t;

/* Parse the common options; returns 0 or prints usage and returns -1. */
int hc_cost_parse(int argc, char **argv, hc_cost_opts_t *o);

/* Build all plans with fn, run the simulator without data tracking and
 * return it (NULL after printing the error). */
sim_t *hc_cost_run(int n, sim_planner_fn fn, void *arg, const sim_model_t *model);

/* One summary row: n, rounds, messages, bytes, time. */
void hc_cost_header(const char *what);
void hc_cost_row(const char *what, int n, const sim_t *s);

/* Subcommands (argc, argv after the subcommand's name). */
int hc_cost_gatherv(int argc, char **argv);
int hc_cost_rhrd(int argc, char **argv);
int hc_cost_offload(int argc, char **argv);
int hc_cost_shm(int argc, char **argv); /* (hc_cost_shm.c: the node level's model) */

#endif
