/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost: prints what hiercoll's plans cost, per process count: rounds,
 * messages, bytes sent, received, reduced and copied, receive partners and
 * a modelled time (LogGP-like, see sim/hiercoll_sim.h), computed by the
 * symbolic simulator over every rank's plan.  No MPI involved.
 *
 *   hc_cost list
 *   hc_cost basic --n 2-64,1000,32768 --bytes 8
 */
#include "hc_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hc_cost_parse(int argc, char **argv, hc_cost_opts_t *o)
{
    memset(o, 0, sizeof(*o));
    o->bytes = 8;
    o->root = 0;
    o->model = sim_model_default;
    const char *ns = "2-16";
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (0 == strcmp(a, "--n") && v) {
            ns = v, ++i;
        } else if (0 == strcmp(a, "--bytes") && v) {
            o->bytes = atoll(v), ++i;
        } else if (0 == strcmp(a, "--root") && v) {
            o->root = atoi(v), ++i;
        } else if (0 == strcmp(a, "--per-rank")) {
            o->per_rank = 1;
        } else if (0 == strcmp(a, "--extra") && v) {
            o->extra = v, ++i;
        } else if (0 == strcmp(a, "--model") && v) {
            if (5 != sscanf(v, "%lf,%lf,%lf,%lf,%lf", &o->model.alpha, &o->model.o,
                            &o->model.beta, &o->model.gamma, &o->model.delta)) {
                fprintf(stderr, "--model wants alpha,o,beta,gamma,delta (seconds)\n");
                return -1;
            }
            ++i;
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return -1;
        }
    }
    /* "2-16,1000,32768" */
    char *copy = strdup(ns), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int lo, hi;
        if (2 == sscanf(tok, "%d-%d", &lo, &hi)) {
        } else if (1 == sscanf(tok, "%d", &lo)) {
            hi = lo;
        } else {
            fprintf(stderr, "bad --n element %s\n", tok);
            free(copy);
            return -1;
        }
        for (int n = lo; n <= hi; ++n) {
            o->ns = realloc(o->ns, sizeof(int) * (size_t) (o->nn + 1));
            o->ns[o->nn++] = n;
        }
    }
    free(copy);
    return 0;
}

sim_t *hc_cost_run(int n, sim_planner_fn fn, void *arg, const sim_model_t *model)
{
    sim_t *s = sim_new(n, false);
    if (NULL == s || 0 != sim_plan_all(s, fn, arg, NULL, NULL) || 0 != sim_run(s, model)) {
        fprintf(stderr, "n=%d: %s\n", n, s ? sim_error(s) : "out of memory");
        sim_free(s);
        return NULL;
    }
    return s;
}

void hc_cost_header(const char *what)
{
    printf("%-28s %7s %6s %10s %9s %14s %14s %14s %9s %12s\n", what, "n", "rounds", "messages",
           "max_msgs", "max_bytes_sent", "max_bytes_recv", "max_reduced", "partners", "time_us");
}

void hc_cost_row(const char *what, int n, const sim_t *s)
{
    sim_summary_t m = sim_summarize(s);
    printf("%-28s %7d %6d %10lld %9lld %14lld %14lld %14lld %9d %12.2f\n", what, n, m.max_rounds,
           (long long) m.total_msgs, (long long) m.max_msgs_sent, (long long) m.max_bytes_sent,
           (long long) m.max_bytes_recv, (long long) m.max_bytes_reduced, m.max_recv_partners,
           m.t_end * 1e6);
}

/* ------------------------------------------------------------------ */
/* basic: the foundation's plans                                        */
/* ------------------------------------------------------------------ */

typedef struct basic_arg {
    int n, root, which;
    int64_t count;
} basic_arg_t;

static int basic_plan(hcp_plan_t *p, int rank, void *arg)
{
    basic_arg_t *a = arg;
    switch (a->which) {
    case 0: return hcp_bcast_binomial(p, a->n, rank, a->root, a->count, 1);
    case 1: return hcp_reduce_binomial(p, a->n, rank, a->root, a->count, 1, true, false);
    case 2: return hcp_allreduce_recursive_doubling(p, a->n, rank, a->count, 1, true, false);
    case 3: return hcp_barrier_dissemination(p, a->n, rank);
    case 4: return hcp_bcast_linear(p, a->n, rank, a->root, a->count, 1);
    default: return hcp_gatherv_linear(p, a->n, rank, a->root, a->count, 1, NULL, NULL,
                                       a->count, 1, false);
    }
}

static int cost_basic(int argc, char **argv)
{
    static const char *names[] = {"bcast-binomial", "reduce-binomial",
                                  "allreduce-recursive-doubling", "barrier-dissemination",
                                  "bcast-linear", "gather-linear"};
    hc_cost_opts_t o;
    if (hc_cost_parse(argc, argv, &o)) {
        return 1;
    }
    hc_cost_header("plan");
    for (int w = 0; w < 6; ++w) {
        for (int i = 0; i < o.nn; ++i) {
            basic_arg_t a = {o.ns[i], o.root % o.ns[i], w, o.bytes};
            sim_t *s = hc_cost_run(o.ns[i], basic_plan, &a, &o.model);
            if (NULL == s) {
                return 1;
            }
            hc_cost_row(names[w], o.ns[i], s);
            sim_free(s);
        }
    }
    free(o.ns);
    return 0;
}

/* ------------------------------------------------------------------ */

typedef struct cmd {
    const char *name, *help;
    int (*run)(int argc, char **argv);
} cmd_t;

static const cmd_t cmds[] = {
    {"basic", "the foundation's plans (bcast, reduce, allreduce, barrier, linear)", cost_basic},
    {"gatherv", "tree gatherv/scatterv with message chains against linear", hc_cost_gatherv},
    {"rhrd", "allreduce/reduce: the patented non-power-of-two RHRD against the classic",
     hc_cost_rhrd},
    {"offload", "triggered offload allreduce/reduce: trees and K against the Tianhe "
                "measurements and recursive doubling", hc_cost_offload},
    {"shm", "the node level: critical path of barrier, bcast, reduce, allreduce for flat, "
            "two-level and n-level on many-core nodes; shared memory per communicator",
     hc_cost_shm},
    /* capabilities add their subcommands here */
    {NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
    if (argc >= 2) {
        for (const cmd_t *c = cmds; c->name; ++c) {
            if (0 == strcmp(argv[1], c->name)) {
                return c->run(argc - 2, argv + 2);
            }
        }
    }
    printf("usage: hc_cost COMMAND [--n 2-16,1000] [--bytes B] [--root R] [--per-rank]\n"
           "               [--model alpha,o,beta,gamma,delta] [--extra ...]\ncommands:\n");
    for (const cmd_t *c = cmds; c->name; ++c) {
        printf("  %-10s %s\n", c->name, c->help);
    }
    return argc >= 2 && 0 != strcmp(argv[1], "list");
}
