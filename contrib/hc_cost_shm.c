/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cost shm: the node level's model (hc_cost_shm_model.c) as tables:
 * the critical path of barrier, bcast, reduce, allreduce (8 B, 4 KiB,
 * 1 MiB) for flat, today's two levels and an n-level hierarchy at 32, 64,
 * 128, 256 ranks on the modelled nodes, and the shared memory per
 * communicator of hiercoll, xhc and acoll at 64, 128, 256 ranks.
 *
 *   hc_cost shm [--node epyc|xeon|xeon16|all] [--n 32,64,128,256] [--csv]
 *               [--l3-ns NS] [--contention F] [--mlp M]
 *               [--long [--chunk BYTES] [--bytes B,B..] [--latency]] [--reproduce]
 *               [--counts]
 *               [--sys-ns NS] [--page-ns NS] [--pin F] [--rndv-ns NS]
 *
 * --long: the bandwidth side, bcast, reduce, allreduce of 16 KiB to 8
 * MiB by design (hc_cost_shm_long.c; default n 16,64,128,256): the time
 * per call of back-to-back calls, as hc_bench measures (--latency: one
 * call alone);
 * --reproduce: the 16-core run against the model (xeon16); --counts: per
 * rank and call, bytes, system calls and readers of one buffer at 64
 * ranks on pack:2 numa:2 l3:4 core:4, 1 MiB (the suite's synthetic
 * topology; the engine's counters give the same for flat, today, long);
 * --sys-ns, --page-ns, --pin, --rndv-ns replace the single copy's and the
 * PML's costs (hc_cma_probe's figures on the machine at hand).
 * --l3-ns replaces the same-L3 line latency (e.g. hc_pingpong's one-way
 * figure on the machine at hand), --contention and --mlp the model's two
 * assumptions (see hc_cost_shm_model.c).
 */
#include "hc_cost.h"
#include "hc_cost_shm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {8, 4096, 1 << 20};

static void node_line(const hcs_node_t *m, int csv)
{
    if (csv) {
        return;
    }
    printf("# %s: %d packages x %d NUMA x %d L3 x %d cores; line latency ns (same L3, same "
           "NUMA, same package, other package) %.0f %.0f %.0f %.0f; copy GB/s %.0f %.0f %.0f "
           "%.0f; links GB/s: into an L3 %.0f, across packages %.0f; contention %.2f, mlp %.0f\n",
           m->name, m->pkgs, m->numa_per_pkg, m->l3_per_numa, m->cores_per_l3, m->lat[0],
           m->lat[1], m->lat[2], m->lat[3], m->bw[0], m->bw[1], m->bw[2], m->bw[3], m->link_l3,
           m->link_pkg, m->contention, m->mlp);
}

static void times(const hcs_node_t *m, const int *ns, int nn, int csv)
{
    node_line(m, csv);
    if (!csv) {
        for (int i = 0; i < nn; ++i) {
            char lv[256];
            hcs_levels(m, ns[i], lv, sizeof(lv));
            printf("#   n-level at %d ranks: %s\n", ns[i], lv);
        }
        printf("%-10s %8s %5s %11s %11s %11s %10s %10s\n", "coll", "bytes", "n", "flat_us",
               "two_us", "nlevel_us", "flat/nlev", "two/nlev");
    }
    for (int c = 0; c < HCS_NCOLL; ++c) {
        for (int z = 0; z < 3; ++z) {
            size_t b = HCS_BARRIER == c ? 0 : sizes[z];
            if (HCS_BARRIER == c && z > 0) {
                break;
            }
            for (int i = 0; i < nn; ++i) {
                double t[HCS_NDESIGN];
                for (int d = 0; d < HCS_NDESIGN; ++d) {
                    t[d] = hcs_time(m, d, c, ns[i], b) / 1000.0;
                }
                if (csv && t[0] < 0) { /* (more ranks than threads: no row) */
                    continue;
                } else if (csv) {
                    for (int d = 0; d < HCS_NDESIGN; ++d) {
                        printf("%s,%s,%zu,%d,%s,%.4f\n", m->name, hcs_coll_names[c], b, ns[i],
                               hcs_design_names[d], t[d]);
                    }
                } else if (t[0] < 0) {
                    printf("%-10s %8zu %5d   (more ranks than the node has threads)\n",
                           hcs_coll_names[c], b, ns[i]);
                } else {
                    printf("%-10s %8zu %5d %11.3f %11.3f %11.3f %9.2fx %9.2fx\n",
                           hcs_coll_names[c], b, ns[i], t[0], t[1], t[2], t[0] / t[2],
                           t[1] / t[2]);
                }
            }
        }
    }
}

static void memory(const hcs_node_t *const *nodes, int nnode, int csv)
{
    static const int mn[] = {64, 128, 256};
    if (csv) {
        for (int i = 0; i < 3; ++i) {
            printf("memory,hiercoll,%d,%zu\n", mn[i], hcs_mem_hiercoll(mn[i]));
            for (int k = 0; k < nnode; ++k) {
                printf("memory,xhc-%s,%d,%zu\n", nodes[k]->name, mn[i],
                       hcs_mem_xhc(nodes[k], mn[i]));
                printf("memory,acoll-%s,%d,%zu\n", nodes[k]->name, mn[i],
                       hcs_mem_acoll(nodes[k], mn[i]));
            }
        }
        return;
    }
    printf("\n# shared memory per communicator (KiB, all its segments on the node)\n%5s %10s",
           "n", "hiercoll");
    for (int k = 0; k < nnode; ++k) {
        printf(" %16s %16s", "xhc", "acoll");
    }
    printf("\n%5s %10s", "", "");
    for (int k = 0; k < nnode; ++k) {
        printf(" %16s %16s", nodes[k]->name, nodes[k]->name);
    }
    printf("\n");
    for (int i = 0; i < 3; ++i) {
        printf("%5d %10zu", mn[i], hcs_mem_hiercoll(mn[i]) >> 10);
        for (int k = 0; k < nnode; ++k) {
            printf(" %16zu %16zu", hcs_mem_xhc(nodes[k], mn[i]) >> 10,
                   hcs_mem_acoll(nodes[k], mn[i]) >> 10);
        }
        printf("\n");
    }
}

int hc_cost_shm(int argc, char **argv)
{
    const char *which = "all", *nlist = NULL;
    int csv = 0, lng = 0, repro = 0, counts = 0;
    double l3 = 0, cont = -1, mlp = 0, sys = -1, page = -1, pinf = -1, rndv = -1;
    size_t chunk = 0;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (0 == strcmp(a, "--node") && v) {
            which = v, ++i;
        } else if (0 == strcmp(a, "--n") && v) {
            nlist = v, ++i;
        } else if (0 == strcmp(a, "--csv")) {
            csv = 1;
        } else if (0 == strcmp(a, "--l3-ns") && v) {
            l3 = atof(v), ++i;
        } else if (0 == strcmp(a, "--contention") && v) {
            cont = atof(v), ++i;
        } else if (0 == strcmp(a, "--mlp") && v) {
            mlp = atof(v), ++i;
        } else if (0 == strcmp(a, "--long")) {
            lng = 1;
        } else if (0 == strcmp(a, "--reproduce")) {
            repro = 1;
        } else if (0 == strcmp(a, "--counts")) {
            counts = 1;
        } else if (0 == strcmp(a, "--latency")) {
            hcl_loop = 0;
        } else if (0 == strcmp(a, "--stagger") && v) {
            hcl_stagger = atof(v), ++i;
        } else if (0 == strcmp(a, "--chunk") && v) {
            chunk = (size_t) atol(v), ++i;
        } else if (0 == strcmp(a, "--bytes") && v) {
            size_t b[16];
            int nb = 0;
            char *cp = strdup(v), *sv = NULL;
            for (char *t = strtok_r(cp, ",", &sv); t && nb < 16; t = strtok_r(NULL, ",", &sv)) {
                b[nb++] = (size_t) atol(t);
            }
            free(cp);
            hcl_set_sizes(b, nb);
            ++i;
        } else if (0 == strcmp(a, "--sys-ns") && v) {
            sys = atof(v), ++i;
        } else if (0 == strcmp(a, "--page-ns") && v) {
            page = atof(v), ++i;
        } else if (0 == strcmp(a, "--pin") && v) {
            pinf = atof(v), ++i;
        } else if (0 == strcmp(a, "--rndv-ns") && v) {
            rndv = atof(v), ++i;
        } else {
            fprintf(stderr, "hc_cost shm: unknown option %s\nusage: hc_cost shm [--node "
                            "epyc|xeon|xeon16|all] [--n 32,64,128,256] [--csv] [--l3-ns NS] "
                            "[--contention F] [--mlp M] [--long [--chunk BYTES]] [--reproduce] "
                            "[--counts] [--sys-ns NS] [--page-ns NS] [--pin F] "
                            "[--rndv-ns NS]\n", a);
            return 1;
        }
    }
    if (l3 < 0 || (cont != -1 && cont < 0) || mlp < 0 || (mlp > 0 && mlp < 1)) {
        fprintf(stderr, "hc_cost shm: --l3-ns, --contention want >= 0, --mlp >= 1\n");
        return 1;
    }
    if (NULL == nlist) {
        nlist = lng ? "16,64,128,256" : "32,64,128,256";
    }
    int ns[16], nn = 0;
    char *copy = strdup(nlist), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && nn < 16; t = strtok_r(NULL, ",", &save)) {
        ns[nn] = atoi(t);
        if (ns[nn] < 1) {
            fprintf(stderr, "hc_cost shm: bad --n element %s\n", t);
            free(copy);
            return 1;
        }
        ++nn;
    }
    free(copy);
    hcs_node_t nodes[3] = {hcs_epyc, hcs_xeon, hcs_xeon16};
    const hcs_node_t *picked[3];
    int np = 0;
    for (int k = 0; k < 3; ++k) {
        /* (all: the modelled nodes; the 16-core VM by name, --reproduce) */
        if ((0 == strcmp(which, "all") && (2 > k || lng))
            || 0 == strncmp(which, nodes[k].name, strlen(which))) {
            nodes[k].sys_ns = sys >= 0 ? sys : nodes[k].sys_ns;
            nodes[k].page_ns = page >= 0 ? page : nodes[k].page_ns;
            nodes[k].pin = pinf >= 0 ? pinf : nodes[k].pin;
            nodes[k].rndv_ns = rndv >= 0 ? rndv : nodes[k].rndv_ns;
            if (l3 > 0) {
                nodes[k].lat[HCS_L3] = l3;
            }
            if (cont >= 0) {
                nodes[k].contention = cont;
            }
            if (mlp > 0) {
                nodes[k].mlp = mlp;
            }
            picked[np++] = &nodes[k];
        }
    }
    if (0 == np) {
        fprintf(stderr, "hc_cost shm: --node epyc, xeon, xeon16 or all\n");
        return 1;
    }
    if (repro || counts || lng) {
        int rc = 0;
        if (repro) {
            hcs_node_t x = hcs_xeon16;
            for (int k = 0; k < np; ++k) { /* (its figures, with the options given) */
                if (picked[k]->pkgs == 1) {
                    x = *picked[k];
                }
            }
            x.sys_ns = sys >= 0 ? sys : x.sys_ns;
            x.page_ns = page >= 0 ? page : x.page_ns;
            x.pin = pinf >= 0 ? pinf : x.pin;
            x.rndv_ns = rndv >= 0 ? rndv : x.rndv_ns;
            rc |= hc_cost_shm_reproduce(&x, csv);
        }
        if (counts) {
            hcl_counts_table(csv);
        }
        if (lng) {
            rc |= hc_cost_shm_long(picked, np, ns, nn, csv, chunk);
        }
        return repro ? rc : 0;
    }
    if (csv) {
        printf("node,coll,bytes,n,design,time_us\n");
    }
    for (int k = 0; k < np; ++k) {
        times(picked[k], ns, nn, csv);
        if (!csv && k + 1 < np) {
            printf("\n");
        }
    }
    memory(picked, np, csv);
    return 0;
}
