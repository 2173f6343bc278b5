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
 *   hc_cost shm [--node epyc|xeon|all] [--n 32,64,128,256] [--csv]
 *               [--l3-ns NS] [--contention F] [--mlp M]
 *
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
    const char *which = "all", *nlist = "32,64,128,256";
    int csv = 0;
    double l3 = 0, cont = -1, mlp = 0;
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
        } else {
            fprintf(stderr, "hc_cost shm: unknown option %s\nusage: hc_cost shm [--node "
                            "epyc|xeon|all] [--n 32,64,128,256] [--csv] [--l3-ns NS] "
                            "[--contention F] [--mlp M]\n", a);
            return 1;
        }
    }
    if (l3 < 0 || (cont != -1 && cont < 0) || mlp < 0 || (mlp > 0 && mlp < 1)) {
        fprintf(stderr, "hc_cost shm: --l3-ns, --contention want >= 0, --mlp >= 1\n");
        return 1;
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
    hcs_node_t nodes[2] = {hcs_epyc, hcs_xeon};
    const hcs_node_t *picked[2];
    int np = 0;
    for (int k = 0; k < 2; ++k) {
        if (0 == strcmp(which, "all") || 0 == strncmp(which, nodes[k].name, strlen(which))) {
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
        fprintf(stderr, "hc_cost shm: --node epyc, xeon or all\n");
        return 1;
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
