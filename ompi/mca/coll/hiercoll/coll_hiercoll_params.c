/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The leaf of the MPI side: the parameters' storage and the process's
 * shared state (mca_coll_hiercoll_params), the log, the number parser
 * and the parameter errors, the collectives' names, and the hooks table
 * (coll_hiercoll_hooks.h).  Every layer may call it; it calls nothing of
 * hiercoll's MPI side (only the MPI-free number parser of the rules).
 * coll_hiercoll_component.c registers the parameters into this storage.
 */
#include "ompi_config.h"

#include <ctype.h>
#include <strings.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opal/util/output.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_hooks.h"

mca_coll_hiercoll_params_t mca_coll_hiercoll_params = {
    .priority = 40,
    .abi_ok = true,
};

hc_hooks_t mca_coll_hiercoll_hooks;

const char *const mca_coll_hiercoll_coll_names[HC_NCOLL] = {
    [HC_ALLGATHER] = "allgather",
    [HC_ALLGATHERV] = "allgatherv",
    [HC_ALLREDUCE] = "allreduce",
    [HC_ALLTOALL] = "alltoall",
    [HC_ALLTOALLV] = "alltoallv",
    [HC_ALLTOALLW] = "alltoallw",
    [HC_BARRIER] = "barrier",
    [HC_BCAST] = "bcast",
    [HC_EXSCAN] = "exscan",
    [HC_GATHER] = "gather",
    [HC_GATHERV] = "gatherv",
    [HC_REDUCE] = "reduce",
    [HC_REDUCE_SCATTER_BLOCK] = "reduce_scatter_block",
    [HC_REDUCE_SCATTER] = "reduce_scatter",
    [HC_SCAN] = "scan",
    [HC_SCATTER] = "scatter",
    [HC_SCATTERV] = "scatterv",
    [HC_NEIGHBOR_ALLGATHER] = "neighbor_allgather",
    [HC_NEIGHBOR_ALLGATHERV] = "neighbor_allgatherv",
    [HC_NEIGHBOR_ALLTOALL] = "neighbor_alltoall",
    [HC_NEIGHBOR_ALLTOALLV] = "neighbor_alltoallv",
    [HC_NEIGHBOR_ALLTOALLW] = "neighbor_alltoallw",
};

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

void mca_coll_hiercoll_log(int level, const char *fmt, ...)
{
    if (mca_coll_hiercoll_params.verbose < level) {
        return;
    }
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    opal_output(0, "hiercoll: %s", buf);
}

void mca_coll_hiercoll_param_error(const char *fmt, ...)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    size_t old = c->param_errors ? strlen(c->param_errors) : 0;
    char *all = realloc(c->param_errors, old + strlen(line) + 2);
    if (NULL == all) {
        return;
    }
    memcpy(all + old, line, strlen(line) + 1);
    strcat(all, "\n");
    c->param_errors = all;
}

/* ------------------------------------------------------------------ */
/* Numbers and booleans                                                 */
/* ------------------------------------------------------------------ */

int mca_coll_hiercoll_parse_bool(const char *v, bool *out)
{
    if (NULL == v) {
        return -1;
    }
    if (0 == strcmp(v, "1") || 0 == strcasecmp(v, "true") || 0 == strcasecmp(v, "yes")) {
        *out = true;
    } else if (0 == strcmp(v, "0") || 0 == strcasecmp(v, "false") || 0 == strcasecmp(v, "no")) {
        *out = false;
    } else {
        return -1;
    }
    return 0;
}

int mca_coll_hiercoll_parse_number(const char *s, long long lo, long long hi, long long *out)
{
    const char *end;
    uint64_t mag;
    if (NULL == s) {
        return -1;
    }
    while (isspace((unsigned char) *s)) {
        ++s;
    }
    bool neg = '-' == *s;
    if (0 != hcp_parse_u64(s + neg, &end, &mag) || mag > (uint64_t) LLONG_MAX) {
        return -1; /* empty, garbage, "+5", "- 5", too large... */
    }
    while (isspace((unsigned char) *end)) {
        ++end;
    }
    long long v = neg ? -(long long) mag : (long long) mag;
    if ('\0' != *end || v < lo || v > hi) {
        return -1;
    }
    *out = v;
    return 0;
}
