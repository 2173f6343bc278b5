/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost gatherv: the tree gatherv (and scatterv) with message chains
 * against the linear algorithm, per process count: the root's partners,
 * messages, bytes copied and rounds, the modelled time (the conservative
 * level is stage 0 then the tree, each rank starting the tree when its own
 * stage 0 is done) and the speed-up over linear.
 *
 *   hc_cost gatherv --n 16,1024,32768 --bytes 8 [--extra LAYOUT[,scatterv]]
 *
 * LAYOUT: contiguous (blocks in rank order, back to back: the default),
 * reversed (in reverse rank order: no two blocks continuous), strided
 * (rank order with a gap after every block: no continuity either).
 */
#include "hc_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINEAR, AGGRESSIVE, CONSERVATIVE, NVARIANTS };
static const char *variant_name[NVARIANTS] = {"linear", "tree aggressive", "tree conservative"};

/* The paper's IMB speed-up of its conservative Gatherv over MPICH's
 * linear one at 32,768 processes, 8 B per rank. */
#define PAPER_SPEEDUP_8B 41068.0

typedef struct garg {
    int n, root, variant, stage;
    bool scatter;
    int *counts, *displs; /* per rank, bytes */
} garg_t;

static int gplan(hcp_plan_t *p, int rank, void *arg)
{
    garg_t *a = arg;
    int n = a->n, v = (rank - a->root + n) % n;
    int64_t own = a->counts[rank];
    if (LINEAR == a->variant) {
        return a->scatter ? hcp_scatterv_linear(p, n, rank, a->root, a->counts, a->displs, 0, 1,
                                                own, 1, false)
                          : hcp_gatherv_linear(p, n, rank, a->root, own, 1, a->counts, a->displs,
                                               0, 1, false);
    }
    if (CONSERVATIVE == a->variant && 0 == a->stage) { /* as the component sends it */
        return hcp_vtree_meta(p, n, rank, a->root, 1, 2, sizeof(int32_t));
    }
    hcp_vblock_t *blk = malloc(sizeof(*blk) * (size_t) hcp_binomial_subtree(n, v));
    if (NULL == blk) {
        return -1;
    }
    hcp_vtree_src_list(n, a->root, v, a->counts, a->displs, blk);
    int rc = a->scatter ? hcp_scatterv_tree(p, n, rank, a->root, blk, 1, own, 1, false)
                        : hcp_gatherv_tree(p, n, rank, a->root, blk, 1, own, 1, false);
    free(blk);
    return rc;
}

/* Run a variant; the conservative level's tree starts, at every rank,
 * when that rank's stage 0 is done. */
static sim_t *run_variant(garg_t *a, const sim_model_t *model)
{
    a->stage = 0;
    sim_t *s = hc_cost_run(a->n, gplan, a, model);
    if (NULL == s || CONSERVATIVE != a->variant) {
        return s;
    }
    sim_t *t = sim_new(a->n, false);
    a->stage = 1;
    if (NULL != t && 0 == sim_plan_all(t, gplan, a, NULL, NULL)) {
        for (int r = 0; r < a->n; ++r) {
            sim_set_start(t, r, sim_stats(s, r)->t_end);
        }
        if (0 == sim_run(t, model)) {
            sim_free(s);
            return t;
        }
    }
    fprintf(stderr, "n=%d: %s\n", a->n, t ? sim_error(t) : "out of memory");
    sim_free(s);
    sim_free(t);
    return NULL;
}

static int make_layout(garg_t *a, const char *layout, long long bytes)
{
    for (int r = 0; r < a->n; ++r) {
        a->counts[r] = (int) bytes;
        if (0 == strcmp(layout, "contiguous")) {
            a->displs[r] = (int) (r * bytes);
        } else if (0 == strcmp(layout, "reversed")) {
            a->displs[r] = (int) ((a->n - 1 - r) * bytes);
        } else if (0 == strcmp(layout, "strided")) {
            a->displs[r] = (int) (r * (bytes + 1));
        } else {
            fprintf(stderr, "unknown layout %s (contiguous, reversed, strided)\n", layout);
            return -1;
        }
    }
    return 0;
}

static void row(const garg_t *a, const sim_t *s, double t_linear)
{
    const sim_stats_t *st = sim_stats(s, a->root);
    sim_summary_t m = sim_summarize(s);
    double speedup = t_linear / m.t_end;
    printf("%-9s %-18s %7d %9d %9lld %12lld %7d %12.2f %9.1fx", a->scatter ? "scatterv" : "gatherv",
           variant_name[a->variant], a->n, a->scatter ? st->send_partners : st->recv_partners,
           (long long) (a->scatter ? st->msgs_sent : st->msgs_recv), (long long) st->bytes_copied,
           st->rounds, m.t_end * 1e6, speedup);
    if (CONSERVATIVE == a->variant && 32768 == a->n && 8 == a->counts[0]) {
        printf("  (paper, IMB on Sunway: %.0fx)", PAPER_SPEEDUP_8B);
    }
    printf("\n");
}

int hc_cost_gatherv(int argc, char **argv)
{
    hc_cost_opts_t o;
    if (hc_cost_parse(argc, argv, &o)) {
        return 1;
    }
    char layout[64] = "contiguous";
    bool scatter = false;
    if (NULL != o.extra) {
        snprintf(layout, sizeof(layout), "%s", o.extra);
        char *comma = strchr(layout, ',');
        if (NULL != comma) {
            *comma = '\0';
            scatter = 0 == strcmp(comma + 1, "scatterv");
        }
    }
    printf("# %lld B per rank, %s layout; root's partners, messages, bytes copied and rounds;\n"
           "# modelled time (alpha %.2g s, o %.2g s, beta %.2g s/B, delta %.2g s/B)\n",
           o.bytes, layout, o.model.alpha, o.model.o, o.model.beta, o.model.delta);
    printf("%-9s %-18s %7s %9s %9s %12s %7s %12s %10s\n", "", "algorithm", "n", "partners",
           "messages", "copied_B", "rounds", "time_us", "speed-up");
    int rc = 0;
    for (int i = 0; i < o.nn && 0 == rc; ++i) {
        int n = o.ns[i];
        garg_t a = {.n = n, .root = o.root % n, .scatter = scatter};
        a.counts = malloc(sizeof(int) * (size_t) n);
        a.displs = malloc(sizeof(int) * (size_t) n);
        rc = NULL == a.counts || NULL == a.displs ? -1 : make_layout(&a, layout, o.bytes);
        double t_linear = 0;
        for (a.variant = 0; a.variant < NVARIANTS && 0 == rc; ++a.variant) {
            sim_t *s = run_variant(&a, &o.model);
            if (NULL == s) {
                rc = -1;
                break;
            }
            if (LINEAR == a.variant) {
                t_linear = sim_summarize(s).t_end;
            }
            row(&a, s, t_linear);
            sim_free(s);
        }
        free(a.counts);
        free(a.displs);
    }
    free(o.ns);
    return 0 == rc ? 0 : 1;
}
