/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost decomp: multi-leader against single-leader decomposition (and
 * the flat plans), across nodes.
 *
 *   hc_cost decomp [--shapes 512x64,256x128] [--bytes B] [--colls allreduce,bcast,...]
 *                  [--check] [--csv]
 *   hc_cost decomp --crossover [--ppn 2,4,...] [--nodes 2,4,...] [--ml-model a,o,o_nic,
 *                  proc_bw,nic_bw,node_alpha,node_bw,reduce_bw]
 *
 * The first form builds every rank's plan of each collective on NODES x
 * PPN ranks (parts: the nodes) with every carrier of a node (k = PPN),
 * with one leader per node (k = 1), and flat (allreduce: RHRD and ring;
 * bcast: binomial and chain), runs them all in the simulator and prints
 * per plan: rounds, the most bytes a rank sends, the most bytes a rank
 * sends to other nodes, the bytes crossing nodes in all (in vectors L,
 * beside the bound: allreduce 2(N-1)L, bcast and reduce (N-1)L, allgather
 * and reduce_scatter (N-1)/N L per node... see the design note),
 * messages, and the model's time.  --check also tracks every byte (the
 * result exact on every rank; allgather to 4,096 ranks: its n^2 pieces).
 *
 * The second form prints the model's crossover: the smallest vector at
 * which every carrier of a node (or the model's best k) beats one leader,
 * per node count and processes per node, and the k it picks at 64 MiB.
 * The model and its parameters: coll_hiercoll_plan_ml.c and
 * docs/design/multi-leader.md.
 */
#include "hc_cost.h"

#include "coll_hiercoll_plan_decomp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ESIZE 4

typedef struct darg {
    hcp_ml_args_t a;
    int flat; /* 0: decomposed; 1: RHRD, 2: ring, 3: binomial, 4: chain */
    int n, segs;
} darg_t;

static int dplan(hcp_plan_t *p, int rank, void *arg)
{
    const darg_t *x = arg;
    const hcp_ml_args_t *a = &x->a;
    switch (x->flat) {
    case 1:
        return hcp_allreduce_rhrd(p, x->n, rank, a->count, ESIZE, false);
    case 2:
        return hcp_allreduce_ring(p, x->n, rank, a->count, ESIZE, false);
    case 3:
        return hcp_bcast_binomial(p, x->n, rank, a->root, a->count, ESIZE);
    case 4:
        return hcp_bcast_chain(p, x->n, rank, a->root, a->count, ESIZE, x->segs);
    default:
        return hcp_ml_plan(p, rank, a);
    }
}

static int64_t d_sbuf(int rank, void *arg)
{
    const darg_t *x = arg;
    (void) rank;
    return HCP_ML_REDUCE_SCATTER == x->a.coll ? x->a.count * x->n : x->a.count;
}

static int64_t d_rbuf(int rank, void *arg)
{
    const darg_t *x = arg;
    switch (x->a.coll) {
    case HCP_ML_REDUCE:
        return rank == x->a.root ? x->a.count : 0;
    case HCP_ML_ALLGATHER:
        return x->a.count * x->n;
    default:
        return x->a.count;
    }
}

/* The exact result on every rank (--check). */
static const char *check(sim_t *s, const darg_t *x)
{
    const int n = x->n;
    const int64_t b = x->a.count * ESIZE;
    const sim_val_t all = sim_range_of(0, n - 1);
    for (int r = 0; r < n; ++r) {
        const char *why = NULL;
        switch (x->a.coll) {
        case HCP_ML_ALLREDUCE:
            why = sim_expect(s, r, HCP_RBUF, 0, b, all, false);
            break;
        case HCP_ML_REDUCE:
            why = r == x->a.root ? sim_expect(s, r, HCP_RBUF, 0, b, all, false) : NULL;
            break;
        case HCP_ML_BCAST:
            why = sim_expect(s, r, HCP_RBUF, 0, b, sim_input(x->a.root), false);
            break;
        case HCP_ML_ALLGATHER:
            for (int q = 0; q < n && NULL == why; q += 1 + n / 64) {
                why =
                    sim_expect(s, r, HCP_RBUF, q * b, b, sim_shifted(sim_input(q), -q * b), false);
            }
            break;
        default:
            why = sim_expect(s, r, HCP_RBUF, 0, b, sim_shifted(all, r * b), false);
            break;
        }
        if (NULL != why) {
            return why;
        }
    }
    return NULL;
}

/* Bytes crossing nodes in all, for the bound: allreduce 2(N-1) L, bcast
 * and reduce (N-1) L, allgather (N-1) L (L the whole result),
 * reduce_scatter (N-1)/N... per vector L: (N-1) L / N x N = (N-1) L. */
static double bound(hcp_ml_coll_t c, int N)
{
    return HCP_ML_ALLREDUCE == c ? 2.0 * (N - 1) : (double) (N - 1);
}

static void row(const char *shape, hcp_ml_coll_t c, const char *plan, const darg_t *x,
                const hcp_decomp_t *d, bool do_check, bool csv, double t_model)
{
    /* (an allgather's result is n pieces on each of n ranks: n^2 symbols,
     * past memory at thousands of ranks; it is checked to 4,096) */
    do_check = do_check && !(HCP_ML_ALLGATHER == c && x->n > 4096);
    sim_t *s = sim_new(x->n, do_check);
    if (NULL == s || 0 != sim_plan_all(s, dplan, (void *) x, d_sbuf, d_rbuf)) {
        fprintf(stderr, "%s %s %s: %s\n", shape, hcp_ml_coll_names[c], plan,
                s ? sim_error(s) : "out of memory");
        sim_free(s);
        return;
    }
    if (do_check) {
        for (int r = 0; r < x->n; ++r) {
            int buf = HCP_ML_BCAST == c ? (r == x->a.root ? HCP_RBUF : -1) : HCP_SBUF;
            if (buf >= 0) {
                sim_set(s, r, buf, 0, d_sbuf(r, (void *) x) * ESIZE, sim_input(r));
            }
        }
    }
    /* latency only: the completion time is the critical path in steps */
    static const sim_model_t depth = {.alpha = 1.0};
    if (0 != sim_run(s, &depth)) {
        fprintf(stderr, "%s %s %s: %s\n", shape, hcp_ml_coll_names[c], plan, sim_error(s));
        sim_free(s);
        return;
    }
    const char *why = do_check ? check(s, x) : NULL;
    const double L =
        (double) (HCP_ML_ALLGATHER == c || HCP_ML_REDUCE_SCATTER == c ? x->a.count * x->n * ESIZE
                                                                      : x->a.count * ESIZE);
    int64_t cross = 0, most = 0;
    for (int r = 0; r < x->n; ++r) {
        int64_t b = hcp_ml_crossing(sim_plan(s, r), d, r);
        cross += b;
        most = b > most ? b : most;
    }
    sim_summary_t m = sim_summarize(s);
    const char *exact = do_check ? (NULL == why ? "yes" : "NO") : "-";
    if (csv) {
        printf("%s,%s,%s,%d,%.0f,%lld,%.6f,%.6f,%.4f,%.1f,%lld,%.1f,%s\n", shape,
               hcp_ml_coll_names[c], plan, m.max_rounds, m.t_end, (long long) m.max_bytes_sent,
               m.max_bytes_sent / L, most / L, cross / L, bound(c, d->nparts),
               (long long) m.total_msgs, t_model * 1e6, exact);
    } else {
        char tm[32] = "-";
        if (t_model > 0) {
            snprintf(tm, sizeof(tm), "%.1f", t_model * 1e6);
        }
        printf("%-9s %-14s %-22s %7d %7.0f %10.4f %10.4f %10.1f %8.0f %11lld %10s %5s\n", shape,
               hcp_ml_coll_names[c], plan, m.max_rounds, m.t_end, m.max_bytes_sent / L, most / L,
               cross / L, bound(c, d->nparts), (long long) m.total_msgs, tm, exact);
    }
    if (NULL != why) {
        fprintf(stderr, "%s %s %s: not exact: %s\n", shape, hcp_ml_coll_names[c], plan, why);
    }
    sim_free(s);
}

static int table(int nshapes, int (*shapes)[2], int64_t bytes, unsigned colls, bool do_check,
                 bool csv, const hcp_ml_model_t *model)
{
    if (csv) {
        printf("shape,coll,plan,rounds,steps,max_bytes_sent,max_sent_L,max_crossing_L,crossing_L,"
               "bound_L,messages,model_us,exact\n");
    } else {
        printf("# %lld-byte vectors (allgather, reduce_scatter: the whole result/vector); sent "
               "and crossing in vectors L\n",
               (long long) bytes);
        printf("# rounds: the most a rank has; steps: the critical path (dependent messages)\n");
        printf("%-9s %-14s %-22s %7s %7s %10s %10s %10s %8s %11s %10s %5s\n", "shape", "coll",
               "plan", "rounds", "steps", "max_sent", "max_cross", "crossing", "bound", "messages",
               "model_us", "exact");
    }
    for (int s = 0; s < nshapes; ++s) {
        const int N = shapes[s][0], ppn = shapes[s][1], n = N * ppn;
        char shape[32];
        snprintf(shape, sizeof(shape), "%dx%d", N, ppn);
        int *keys = malloc(sizeof(int) * (size_t) n);
        hcp_decomp_t d;
        for (int r = 0; NULL != keys && r < n; ++r) {
            keys[r] = r / ppn;
        }
        if (NULL == keys || 0 != hcp_decomp_build(&d, n, keys)) {
            free(keys);
            return 1;
        }
        free(keys);
        for (int c = 0; c < HCP_ML_NCOLL; ++c) {
            if (!(colls & (1u << c))) {
                continue;
            }
            if (HCP_ML_ALLGATHER == c && n > 4096) {
                /* (every rank copies each carrier's row piece by piece
                 * into place: ppn x nodes copies a rank, 10^9 ops past
                 * memory here) */
                printf("%-9s %-14s (not simulated past 4,096 ranks: ppn x nodes copies a rank)\n",
                       shape, hcp_ml_coll_names[c]);
                continue;
            }
            const bool whole = HCP_ML_ALLGATHER == c || HCP_ML_REDUCE_SCATTER == c;
            const int64_t count = whole ? (bytes / ESIZE + n - 1) / n : bytes / ESIZE;
            const int64_t L = whole ? count * n * ESIZE : count * ESIZE;
            for (int k = ppn; k >= 1; k = k > 1 ? 1 : 0) {
                hcp_ml_t ml;
                if (0 != hcp_ml_build(&ml, &d, k, 4)) {
                    return 1;
                }
                int segs;
                int64_t lane = HCP_ML_ALLGATHER == c ? L / k : count * ESIZE / k;
                hcp_lane_t algo = hcp_ml_lane_algo(model, (hcp_ml_coll_t) c, N, k, lane, &segs);
                darg_t x = {
                    {(hcp_ml_coll_t) c, &d, &ml, count, ESIZE, n / 2 + 1, true, false, algo, segs},
                    0,
                    n,
                    segs};
                char plan[64];
                snprintf(plan, sizeof(plan), "%s k=%d %s", k > 1 ? "multi" : "single", k,
                         hcp_lane_names[algo]);
                row(shape, (hcp_ml_coll_t) c, plan, &x, &d, do_check, csv,
                    hcp_ml_time(model, (hcp_ml_coll_t) c, N, ppn, k, L));
                hcp_ml_fini(&ml);
            }
            for (int f = 1; f <= 4 && (HCP_ML_ALLREDUCE == c || HCP_ML_BCAST == c); ++f) {
                if ((HCP_ML_ALLREDUCE == c) != (f <= 2)) {
                    continue;
                }
                static const char *names[] = {"", "flat rhrd", "flat ring", "flat binomial",
                                              "flat chain"};
                int segs = 4 == f ? 64 : 1;
                darg_t x = {{(hcp_ml_coll_t) c, &d, NULL, count, ESIZE, n / 2 + 1, true, false,
                             HCP_LANE_RING, segs},
                            f,
                            n,
                            segs};
                /* a flat ring or chain past 1,024 ranks is 2(n-1) or
                 * n-2+segs steps of every rank: its figures are its
                 * formula's, not simulated (ranks by node: the ring
                 * crosses nodes at N edges, the chain at N-1) */
                if ((2 == f || 4 == f) && n > 1024) {
                    double steps = 2 == f ? 2.0 * (n - 1) : n - 2 + segs;
                    double sent = 2 == f ? 2.0 * (n - 1) / n : 1.0;
                    double crossing = (2 == f ? N : N - 1) * sent;
                    char plan[64];
                    snprintf(plan, sizeof(plan), "%s (formula)", names[f]);
                    if (csv) {
                        printf("%s,%s,%s,%.0f,%.0f,%.0f,%.6f,%.6f,%.4f,%.1f,,,-\n", shape,
                               hcp_ml_coll_names[c], plan, steps, steps, sent * L, sent, sent,
                               crossing, bound(c, N));
                    } else {
                        printf("%-9s %-14s %-22s %7.0f %7.0f %10.4f %10.4f %10.1f %8.0f %11s %10s "
                               "%5s\n",
                               shape, hcp_ml_coll_names[c], plan, steps, steps, sent, sent,
                               crossing, bound(c, N), "-", "-", "-");
                    }
                    continue;
                }
                row(shape, (hcp_ml_coll_t) c, names[f], &x, &d, do_check, csv, 0);
            }
        }
        hcp_decomp_fini(&d);
    }
    return 0;
}

/* The smallest vector (bytes, to 1/64 of a power of two) from which the
 * model picks more than one carrier, 0 when it never does up to 1 GiB. */
static int64_t crossover(const hcp_ml_model_t *m, hcp_ml_coll_t c, int N, int ppn, bool any_k)
{
    int64_t lo = 0, hi = 0;
    for (int64_t b = 64; b <= ((int64_t) 1 << 30); b *= 2) {
        if (hcp_ml_pick(m, c, N, ppn, ppn, any_k, b) > 1) {
            hi = b;
            break;
        }
        lo = b;
    }
    if (0 == hi) {
        return 0;
    }
    while (hi - lo > 1 && hi - lo > (hi >> 6)) {
        int64_t mid = lo + (hi - lo) / 2;
        if (hcp_ml_pick(m, c, N, ppn, ppn, any_k, mid) > 1) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return hi;
}

static void human(char *buf, size_t len, int64_t b)
{
    if (0 == b) {
        snprintf(buf, len, "never");
    } else if (b >= (1 << 20)) {
        snprintf(buf, len, "%.1fM", b / 1048576.0);
    } else if (b >= 1024) {
        snprintf(buf, len, "%.1fK", b / 1024.0);
    } else {
        snprintf(buf, len, "%lld", (long long) b);
    }
}

static int crossovers(const hcp_ml_model_t *m, const int *ppns, int nppn, const int *nodes,
                      int nnodes, unsigned colls)
{
    printf("# model: alpha %.2g s, o %.2g s, o_nic %.2g s, proc_bw %.3g B/s, nic_bw %.3g B/s, "
           "node_alpha %.2g s, node_bw %.3g B/s, reduce_bw %.3g B/s\n",
           m->alpha, m->o, m->o_nic, m->proc_bw, m->nic_bw, m->node_alpha, m->node_bw,
           m->reduce_bw);
    printf("# smallest vector (bytes) from which more carriers than one leader pay: every "
           "carrier (k = ppn) / the model's best k (auto); k picked at 64M\n");
    for (int c = 0; c < HCP_ML_NCOLL; ++c) {
        if (!(colls & (1u << c))) {
            continue;
        }
        printf("%-14s %5s", hcp_ml_coll_names[c], "ppn");
        for (int i = 0; i < nnodes; ++i) {
            char h[32];
            snprintf(h, sizeof(h), "N=%d", nodes[i]);
            printf(" %22s", h);
        }
        printf("\n");
        for (int j = 0; j < nppn; ++j) {
            printf("%-14s %5d", "", ppns[j]);
            for (int i = 0; i < nnodes; ++i) {
                char all[32], best[32], cell[64];
                human(all, sizeof(all), crossover(m, (hcp_ml_coll_t) c, nodes[i], ppns[j], false));
                human(best, sizeof(best), crossover(m, (hcp_ml_coll_t) c, nodes[i], ppns[j], true));
                int k = hcp_ml_pick(m, (hcp_ml_coll_t) c, nodes[i], ppns[j], ppns[j], true,
                                    (int64_t) 64 << 20);
                snprintf(cell, sizeof(cell), "%s/%s k%d", all, best, k);
                printf(" %22s", cell);
            }
            printf("\n");
        }
    }
    return 0;
}

static int list_of(const char *s, int *out, int max)
{
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save)) {
        out[n++] = atoi(t);
    }
    free(copy);
    return n;
}

static unsigned colls_of(const char *s)
{
    unsigned m = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        for (int c = 0; c < HCP_ML_NCOLL; ++c) {
            if (0 == strcmp(t, hcp_ml_coll_names[c])) {
                m |= 1u << c;
            }
        }
    }
    free(copy);
    return m;
}

int hc_cost_decomp(int argc, char **argv)
{
    int shapes[16][2] = {{512, 64}, {256, 128}}, nshapes = 2;
    int ppns[16] = {2, 4, 8, 16, 32, 64, 128}, nppn = 7;
    int nodes[16] = {2, 4, 16, 64, 256, 512}, nnodes = 6;
    int64_t bytes = (int64_t) 16 << 20;
    unsigned colls = (1u << HCP_ML_NCOLL) - 1;
    bool do_check = false, csv = false, cross = false;
    hcp_ml_model_t m = hcp_ml_model_default;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (0 == strcmp(a, "--shapes") && v) {
            nshapes = 0;
            char *copy = strdup(v), *save = NULL;
            for (char *t = strtok_r(copy, ",", &save); t && nshapes < 16;
                 t = strtok_r(NULL, ",", &save)) {
                if (2 == sscanf(t, "%dx%d", &shapes[nshapes][0], &shapes[nshapes][1])
                    && shapes[nshapes][0] > 0 && shapes[nshapes][1] > 0) {
                    ++nshapes;
                }
            }
            free(copy);
            ++i;
        } else if (0 == strcmp(a, "--bytes") && v) {
            bytes = atoll(v), ++i;
        } else if (0 == strcmp(a, "--colls") && v) {
            colls = colls_of(v), ++i;
        } else if (0 == strcmp(a, "--ppn") && v) {
            nppn = list_of(v, ppns, 16), ++i;
        } else if (0 == strcmp(a, "--nodes") && v) {
            nnodes = list_of(v, nodes, 16), ++i;
        } else if (0 == strcmp(a, "--check")) {
            do_check = true;
        } else if (0 == strcmp(a, "--csv")) {
            csv = true;
        } else if (0 == strcmp(a, "--crossover")) {
            cross = true;
        } else if (0 == strcmp(a, "--ml-model") && v) {
            if (8
                != sscanf(v, "%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf", &m.alpha, &m.o, &m.o_nic,
                          &m.proc_bw, &m.nic_bw, &m.node_alpha, &m.node_bw, &m.reduce_bw)) {
                fprintf(stderr, "--ml-model wants alpha,o,o_nic,proc_bw,nic_bw,node_alpha,"
                                "node_bw,reduce_bw (seconds, bytes per second)\n");
                return 1;
            }
            ++i;
        } else {
            fprintf(stderr,
                    "hc_cost decomp: unknown option %s (see the top of "
                    "contrib/hc_cost_decomp.c)\n",
                    a);
            return 1;
        }
    }
    if (cross) {
        return crossovers(&m, ppns, nppn, nodes, nnodes, colls);
    }
    return table(nshapes, shapes, bytes, colls, do_check, csv, &m);
}
