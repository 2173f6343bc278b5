/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost offload: the triggered offload's allreduce modelled by the event
 * simulation of all ranks' engines (sim/hiercoll_trig_sim.h): every packet
 * takes one hop of alpha and phi of its receiver's time (an engine handles
 * one packet at a time, as a NIC's trigger unit does).  alpha and phi are
 * fitted (least squares) to the published 4-nomial measurements on
 * Tianhe's NIC (48 bytes: 24.94 / 31.21 / 38.42 us at 64 / 128 / 256
 * nodes); a recursive-doubling allreduce costs ceil(log2 n) rounds (two
 * more when n is not a power of two) of a host round trip alpha_rd fitted
 * to their MPICH 3.3.2 figures (34.22 / 45.23 / 58.73 us).  Printed per n:
 * the modelled latency of each tree shape and K, recursive doubling, and
 * those measurements where they exist.
 *
 *   hc_cost offload [--n 16,64,128,256,1024,32768] [--bytes 48] [--extra reduce]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_hiercoll_trig.h"
#include "hc_cost.h"
#include "hiercoll_trig_sim.h"

static const int tianhe_n[3] = {64, 128, 256};
static const double tianhe_offload[3] = {24.94, 31.21, 38.42}; /* 4-nomial */
static const double tianhe_mpich[3] = {34.22, 45.23, 58.73};

/* The finish time of one call at n ranks (time units of hop and fire). */
static double model(int n, hct_shape_t s, int k, int all, size_t count, double hop, double fire)
{
    hct_prog_t *progs = calloc((size_t) n, sizeof(*progs));
    const hct_prog_t **pp = calloc((size_t) n, sizeof(*pp));
    const void **ins = calloc((size_t) n, sizeof(*ins));
    double t = -1;
    if (NULL != progs && NULL != pp && NULL != ins) {
        int ok = 1;
        for (int r = 0; r < n && ok; ++r) {
            hct_prog_init(&progs[r]);
            ok = 0
                 == (all ? hct_plan_allreduce(&progs[r], s, k, n, r, 0, HCT_SUM, HCT_DOUBLE, count)
                         : hct_plan_reduce(&progs[r], s, k, n, r, 0, HCT_SUM, HCT_DOUBLE, count));
            pp[r] = &progs[r];
        }
        sim_trig_cfg_t cfg = {
            .seed = 1, .credits = 64, .mpq = 1 << 20, .ncalls = 1, .hop = hop, .fire = fire};
        sim_trig_result_t res;
        if (ok && 0 == sim_trig_run(n, pp, ins, NULL, &cfg, &res) && 0 == res.incomplete) {
            t = res.finish;
        }
        for (int r = 0; r < n; ++r) {
            hct_prog_fini(&progs[r]);
        }
    }
    free(progs);
    free(pp);
    free(ins);
    return t;
}

static int rd_rounds(int n)
{
    int r = 0;
    while ((1 << r) < n) {
        ++r;
    }
    return r + ((n & (n - 1)) ? 2 : 0);
}

int hc_cost_offload(int argc, char **argv)
{
    hc_cost_opts_t o;
    if (hc_cost_parse(argc, argv, &o)) {
        return 1;
    }
    int all = NULL == o.extra || 0 != strcmp(o.extra, "reduce");
    size_t count = (size_t) (o.bytes > 0 ? o.bytes : 48) / 8;
    /* fit alpha, phi: T = alpha D + phi F on Tianhe's three points */
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0, rr = 0, rb = 0;
    for (int i = 0; i < 3; ++i) {
        double d = model(tianhe_n[i], HCT_KNOMIAL, 4, 1, 6, 1, 0);
        double f = model(tianhe_n[i], HCT_KNOMIAL, 4, 1, 6, 0, 1);
        a11 += d * d, a12 += d * f, a22 += f * f;
        b1 += d * tianhe_offload[i], b2 += f * tianhe_offload[i];
        rr += (double) rd_rounds(tianhe_n[i]) * rd_rounds(tianhe_n[i]);
        rb += rd_rounds(tianhe_n[i]) * tianhe_mpich[i];
    }
    double det = a11 * a22 - a12 * a12;
    double alpha = det != 0 ? (b1 * a22 - b2 * a12) / det : b1 / a11;
    double phi = det != 0 ? (a11 * b2 - a12 * b1) / det : 0;
    if (phi < 0) { /* keep the model physical: non-negative least squares */
        phi = 0;
        alpha = b1 / a11;
    } else if (alpha < 0) {
        alpha = 0;
        phi = b2 / a22;
    }
    double alpha_rd = rb / rr;
    printf("# hc_cost offload: %s of %zu doubles; alpha %.3f us per hop, phi %.3f us per packet "
           "received "
           "(fitted to Tianhe's 4-nomial allreduce), recursive doubling %.3f us per round "
           "(fitted to Tianhe's MPICH)\n",
           all ? "allreduce" : "reduce", count, alpha, phi, alpha_rd);
    printf("%7s", "n");
    static const char *sh[2] = {"knomial", "kary"};
    for (int s = 0; s < 2; ++s) {
        for (int k = 2; k <= 8; k *= 2) {
            char h[32];
            snprintf(h, sizeof(h), "%s%d", sh[s], k);
            printf(" %9s", h);
        }
    }
    printf(" %9s %9s %9s %10s\n", "rec_dbl", "th_4nom", "th_mpich", "pkts/call");
    for (int i = 0; i < o.nn; ++i) {
        int n = o.ns[i];
        printf("%7d", n);
        for (int s = 0; s < 2; ++s) {
            for (int k = 2; k <= 8; k *= 2) {
                printf(" %9.2f", model(n, (hct_shape_t) s, k, all, count, alpha, phi));
            }
        }
        if (all) {
            printf(" %9.2f", alpha_rd * rd_rounds(n));
        } else {
            printf(" %9s", "-");
        }
        int si = -1;
        for (int j = 0; j < 3; ++j) {
            si = tianhe_n[j] == n ? j : si;
        }
        if (si >= 0 && all) {
            printf(" %9.2f %9.2f", tianhe_offload[si], tianhe_mpich[si]);
        } else {
            printf(" %9s %9s", "-", "-");
        }
        printf(" %10ld\n", (all ? 2L : 1L) * (n - 1)
                               * (long) ((count * 8 + 119) / 120 ? (count * 8 + 119) / 120 : 1));
    }
    free(o.ns);
    return 0;
}
