/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_fuzz: running a case (hc_fuzz_run.c) and the counts per dimension.
 */
#ifndef HC_FUZZ_RUN_H
#define HC_FUZZ_RUN_H

#include "hc_fuzz.h"

/* what one process found */
typedef struct {
    int bad;                  /* 0: all equal; 2: a guard byte was written too */
    char what[2048];
    char desc[2048];          /* the case as this process ran it */
} hf_verdict_t;

typedef struct {
    long cases, calls, batch, freed, threads, negstride;
    long coll[C_N], mode[MD_N], fam[FAM_N], topo[TOPO_N], cp[CP_N], rshape[RS_N], crit[CR_N];
    long tkind[TN_N], basic[64], op[OP_N];
    char algo_name[24][32];
    long algo[24];
    int nalgo;
} hf_stats_t;

extern hf_stats_t hf_stats;
/* which run of the case is under way (for a crash or a hang) */
extern const char *volatile hf_run_side;

/* runs the case: every rank of world calls */
void hf_run(const hf_case_t *cs, const hf_ovr_t *o, hf_verdict_t *v);

#endif
