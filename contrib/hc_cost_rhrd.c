/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost rhrd: large-vector allreduce (or reduce) by recursive halving and
 * doubling, the patented non-power-of-two scheme (hiercoll's "rhrd")
 * against the classic one ("rabenseifner", Open MPI tuned's algorithm 6),
 * per process count: rounds, the most bytes any rank sends and reduces, the
 * critical path in messages and the modelled time, each beside its formula.
 *
 *   hc_cost rhrd --n 2-16,24,1000 --bytes 8388608 [--root R] [--per-rank]
 *                [--extra reduce]
 *
 * Doubles (8 bytes) are reduced.  With N the largest power of two <= n,
 * r = n - N, L the vector's bytes, a the latency, b the time per byte sent
 * and c per byte reduced (the --model's alpha, beta and gamma), the
 * critical paths are (n > N; for n = N both are plain RHRD,
 * 2 log N a + 2 (N-1)/N L b + (N-1)/N L c, and reduce the same):
 *
 *   allreduce classic  (3 + 2 log N) a + (2 + 2 (N-1)/N) L b + (1/2 + (N-1)/N) L c
 *             patent   (2 + 2 log N) a + (2 + (N-2)/N) L b   + (1/2 + (N-1)/N) L c
 *   reduce    classic  (2 + 2 log N) a + (1 + 2 (N-1)/N) L b + (1/2 + (N-1)/N) L c
 *             patent   (1 + 2 log N) a + (3/2 + (N-2)/N) L b + (1/2 + (N-1)/N) L c
 *
 * and the most bytes a rank sends (allreduce): classic (3/2 + 2 (N-1)/N) L,
 * patent (3/2 + (N-2)/N) L; reduce: classic L + (N-1)/N L (r = 1: L/2
 * less), patent L + (N-2)/(2N) L.  The classic scheme's first two formulas are the
 * patent's own (US 11/669,600); the others follow from the schedules.
 */
#include "hc_cost.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ESIZE 8

typedef struct rarg {
    int n, root;
    int64_t count;
    bool all, classic;
} rarg_t;

static int rplan(hcp_plan_t *p, int rank, void *arg)
{
    const rarg_t *a = arg;
    if (a->all) {
        return a->classic ? hcp_allreduce_rabenseifner(p, a->n, rank, a->count, ESIZE, false)
                          : hcp_allreduce_rhrd(p, a->n, rank, a->count, ESIZE, false);
    }
    return a->classic ? hcp_reduce_rabenseifner(p, a->n, rank, a->root, a->count, ESIZE, false)
                      : hcp_reduce_rhrd(p, a->n, rank, a->root, a->count, ESIZE, false);
}

/* The formulas above, as multiples of a (alpha), L b, L c and L. */
typedef struct formula {
    double alphas, sent_path, reduced_path, max_sent;
} formula_t;

static formula_t formula(int n, bool all, bool classic)
{
    int N = hcp_pof2_floor(n), lg = hcp_ceil_log2(N);
    double f = (double) (N - 1) / N, g = (double) (N - 2) / N;
    formula_t x = {2.0 * lg, 2 * f, f, all ? 2 * f : 1.0};
    if (1 == n) {
        return (formula_t){0, 0, 0, 0};
    }
    if (N == n) {
        /* reduce: the half-vector partner of the root sends it L/2 more */
        x.max_sent = all ? 2 * f : (classic ? f + 0.5 : 1 + g / 2);
        return x;
    }
    x.reduced_path = 0.5 + f;
    if (all) {
        x.alphas = classic ? 3 + 2.0 * lg : 2 + 2.0 * lg;
        x.sent_path = classic ? 2 + 2 * f : 2 + g;
        x.max_sent = classic ? 1.5 + 2 * f : 1.5 + g;
    } else {
        x.alphas = classic ? 2 + 2.0 * lg : 1 + 2.0 * lg;
        x.sent_path = classic ? 1 + 2 * f : 1.5 + g;
        /* classic: group index 1 sends L/2 in the gather, and is a kept S0
         * rank (L/2 more in the pre-step) when r >= 2 */
        x.max_sent = classic ? (n - N >= 2 ? 1 + f : 0.5 + f) : 1 + g / 2;
    }
    return x;
}

static double formula_time(const formula_t *x, double L, const sim_model_t *m)
{
    return x->alphas * m->alpha + x->sent_path * L * m->beta + x->reduced_path * L * m->gamma;
}

/* Simulate one scheme; *depth is the critical path in messages. */
static sim_t *simulate(rarg_t *a, const sim_model_t *model, int *depth)
{
    static const sim_model_t latency_only = {.alpha = 1.0};
    sim_t *s = hc_cost_run(a->n, rplan, a, &latency_only);
    if (NULL == s) {
        return NULL;
    }
    *depth = (int) sim_summarize(s).t_end;
    if (0 != sim_run(s, model)) {
        fprintf(stderr, "n=%d: %s\n", a->n, sim_error(s));
        sim_free(s);
        return NULL;
    }
    return s;
}

static void per_rank(int n, int root, const sim_t *pat, const sim_t *cls)
{
    int r = n - hcp_pof2_floor(n);
    for (int rank = 0; rank < n; ++rank) {
        int v = (rank - root + n) % n;
        const sim_stats_t *p = sim_stats(pat, rank), *c = sim_stats(cls, rank);
        const char *crole = v >= 2 * r ? "unpaired" : (v % 2 ? "dropped" : "kept");
        printf("%7d %6d %-9s %6d %12lld %12lld %12lld   %-9s %6d %12lld %12lld %12lld\n", n,
               rank, hcp_rhrd_role(n, v), p->rounds, (long long) p->bytes_sent,
               (long long) p->bytes_recv, (long long) p->bytes_reduced, crole, c->rounds,
               (long long) c->bytes_sent, (long long) c->bytes_recv,
               (long long) c->bytes_reduced);
    }
}

static void summary(int n, double L, const sim_model_t *model, bool all, const sim_t *s[2],
                    const int depth[2])
{
    printf("%7d %6d %5d", n, hcp_pof2_floor(n), n - hcp_pof2_floor(n));
    for (int k = 0; k < 2; ++k) {
        sim_summary_t m = sim_summarize(s[k]);
        formula_t x = L > 0 ? formula(n, all, 1 == k) : (formula_t){0, 0, 0, 0};
        printf(" | %6d %5d %5.0f %12lld %12.0f %12lld %9.1f %9.1f", m.max_rounds, depth[k],
               x.alphas, (long long) m.max_bytes_sent, x.max_sent * L,
               (long long) m.max_bytes_reduced, m.t_end * 1e6, formula_time(&x, L, model) * 1e6);
    }
    sim_summary_t p = sim_summarize(s[0]), c = sim_summarize(s[1]);
    printf(" | %6.3f %6.3f\n", c.max_bytes_sent ? (double) p.max_bytes_sent / c.max_bytes_sent : 1,
           c.t_end > 0 ? p.t_end / c.t_end : 1);
}

int hc_cost_rhrd(int argc, char **argv)
{
    hc_cost_opts_t o;
    if (hc_cost_parse(argc, argv, &o)) {
        return 1;
    }
    bool all = NULL == o.extra || 0 != strcmp(o.extra, "reduce");
    int64_t count = o.bytes / ESIZE;
    double L = (double) (count * ESIZE);
    printf("# %s of %lld bytes of doubles; rhrd: the patented scheme, classic: Rabenseifner's "
           "(Open MPI tuned's algorithm 6)\n",
           all ? "allreduce" : "reduce", (long long) L);
    if (o.per_rank) {
        printf("%7s %6s %-9s %6s %12s %12s %12s   %-9s %6s %12s %12s %12s\n", "n", "rank",
               "rhrd", "rounds", "sent", "recv", "reduced", "classic", "rounds", "sent", "recv",
               "reduced");
    } else {
        printf("# per scheme: the most rounds of a rank, the critical path in messages, the most "
               "bytes a rank sends, the most it reduces, the time (us); (f): the formula\n");
        printf("%7s %6s %5s", "", "", "");
        for (int k = 0; k < 2; ++k) {
            printf(" | %-77s", 0 == k ? "rhrd (patent)" : "rabenseifner (classic)");
        }
        printf(" | rhrd/classic\n%7s %6s %5s", "n", "N", "r");
        for (int k = 0; k < 2; ++k) {
            printf(" | %6s %5s %5s %12s %12s %12s %9s %9s", "rounds", "path", "(f)", "max_sent",
                   "(f)", "max_reduced", "time", "(f)");
        }
        printf(" | %6s %6s\n", "sent", "time");
    }
    for (int i = 0; i < o.nn; ++i) {
        int n = o.ns[i], depth[2];
        const sim_t *s[2];
        sim_t *own[2] = {NULL, NULL};
        for (int k = 0; k < 2; ++k) {
            rarg_t a = {n, o.root % n, count, all, 1 == k};
            own[k] = simulate(&a, &o.model, &depth[k]);
            s[k] = own[k];
        }
        if (NULL == own[0] || NULL == own[1]) {
            sim_free(own[0]);
            sim_free(own[1]);
            free(o.ns);
            return 1;
        }
        if (o.per_rank) {
            per_rank(n, o.root % n, s[0], s[1]);
        } else {
            summary(n, L, &o.model, all, s, depth);
        }
        sim_free(own[0]);
        sim_free(own[1]);
    }
    free(o.ns);
    return 0;
}
