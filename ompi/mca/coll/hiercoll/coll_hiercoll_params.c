/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The leaf of the MPI side: the parameters' storage and the process's
 * shared state (mca_coll_hiercoll_params), the log, the number parser,
 * the parameter errors and the help messages (help-coll-hiercoll.txt),
 * the collectives' names, and the hooks table
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

#include <dlfcn.h>
#include <unistd.h>

#include "opal/mca/installdirs/installdirs.h"
#include "opal/util/output.h"
#include "opal/util/printf.h"

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

/* An error of one kind (HC_ERR_*): a line "hiercoll: ERROR: ..." added to
 * the kind's message. */
static void error_add(int kind, const char *fmt, va_list ap)
{
    static const char head[] = "hiercoll: ERROR: ";
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    char line[1024];
    vsnprintf(line, sizeof(line), fmt, ap);
    size_t old = NULL != prm->param_errors[kind] ? strlen(prm->param_errors[kind]) : 0;
    char *all = realloc(prm->param_errors[kind], old + strlen(head) + strlen(line) + 2);
    if (NULL == all) {
        return;
    }
    snprintf(all + old, strlen(head) + strlen(line) + 2, "%s%s\n", head, line);
    prm->param_errors[kind] = all;
}

void mca_coll_hiercoll_param_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_add(HC_ERR_PARAM, fmt, ap);
    va_end(ap);
}

void mca_coll_hiercoll_error_in(int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    error_add(kind, fmt, ap);
    va_end(ap);
}

void mca_coll_hiercoll_param_errors_report(ompi_communicator_t *comm)
{
    static const char *const topic[HC_NERR] = {
        [HC_ERR_PARAM] = "bad-parameter-value",
        [HC_ERR_SITE] = "bad-site-file",
        [HC_ERR_RULES] = "bad-rules-file",
    };
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    if (prm->param_errors_reported) {
        return;
    }
    prm->param_errors_reported = true;
    if (comm != &ompi_mpi_comm_world.comm || 0 != ompi_comm_rank(comm)) {
        return;
    }
    for (int k = 0; k < HC_NERR; ++k) {
        if (NULL != prm->param_errors[k]) {
            mca_coll_hiercoll_show_help(topic[k], prm->param_errors[k]);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Help messages (help-coll-hiercoll.txt)                               */
/* ------------------------------------------------------------------ */

/* The help file as built: hc_help_text, generated from
 * help-coll-hiercoll.txt by the Makefile. */
#include "coll_hiercoll_help.h"

#ifndef HC_HELPDIR
#define HC_HELPDIR "" /* where "make install" puts the help file (the Makefile says) */
#endif

#if HC_SHOW_HELP_READS_FILES
/* 1: DIR holds this build's help file, 0: none, -1: another version of it
 * (an older hiercoll installed there), whose topics may differ. */
static int help_in(const char *dir)
{
    char path[OPAL_PATH_MAX];
    if (NULL == dir || '\0' == dir[0]) {
        return 0;
    }
    snprintf(path, sizeof(path), "%s/%s", dir, HC_HELP_FILE);
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        return 0;
    }
    size_t n = sizeof(hc_help_text) - 1;
    char *text = malloc(n + 1);
    bool same = NULL != text && n == fread(text, 1, n + 1, f) && 0 == memcmp(text, hc_help_text, n);
    free(text);
    fclose(f);
    return same ? 1 : -1;
}
#endif

/* Does Open MPI's show_help find this build's help file?  4.1 and 5.0: in
 * Open MPI's own directory, where hiercoll is installed with Open MPI's
 * prefix and by the Debian package, which show_help reads first; else in
 * hiercoll's install directory (another --prefix) or beside the
 * component's DSO (the build tree's copy, which make check stages there),
 * added to show_help's directories. */
static bool help_look(void)
{
#if HC_SHOW_HELP_READS_FILES
    int own = help_in(opal_install_dirs.opaldatadir);
    if (0 != own) {
        return 1 == own;
    }
    char dso[OPAL_PATH_MAX] = "";
    Dl_info di;
    if (0 != dladdr((void *) help_look, &di) && NULL != di.dli_fname) {
        snprintf(dso, sizeof(dso), "%s", di.dli_fname);
        char *slash = strrchr(dso, '/');
        *(NULL != slash ? slash : dso) = '\0';
    }
    const char *dirs[] = {HC_HELPDIR, dso};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); ++i) {
        if (1 == help_in(dirs[i])) {
            opal_show_help_add_dir(dirs[i]);
            return true;
        }
    }
    return false;
#elif defined(HIERCOLL_IN_OMPI_TREE)
    return true; /* compiled into Open MPI with its own help files */
#else
    return false;
#endif
}

bool mca_coll_hiercoll_help_found(void)
{
    static int found; /* 0: not looked for yet, 1: found, -1: not */
    if (0 == found) {
        found = help_look() ? 1 : -1;
    }
    return 1 == found;
}

/* The topic from the built-in copy, framed as show_help frames it. */
void mca_coll_hiercoll_help_builtin(const char *topic, ...)
{
    static const char dashes[] = "------------------------------------------------------------"
                                 "--------------\n";
    char head[128];
    snprintf(head, sizeof(head), "[%s]\n", topic);
    const char *at = strstr(hc_help_text, head);
    if (NULL == at) { /* (test docs-help: every topic the code names is in the file) */
        opal_output(0, "hiercoll: %s", topic);
        return;
    }
    at += strlen(head);
    size_t len = 0, cap = strlen(at) + 2 * sizeof(dashes) + 1;
    char *fmt = malloc(cap);
    if (NULL == fmt) {
        return;
    }
    len += (size_t) snprintf(fmt, cap, "%s", dashes);
    for (const char *l = at; '\0' != *l && '[' != *l;) {
        const char *e = strchr(l, '\n');
        size_t n = NULL != e ? (size_t) (e - l) + 1 : strlen(l);
        if ('#' != *l) { /* (a comment) */
            memcpy(fmt + len, l, n);
            len += n;
        }
        l += n;
    }
    snprintf(fmt + len, cap - len, "%s", dashes);
    char *msg = NULL;
    va_list ap;
    va_start(ap, topic);
    if (0 <= opal_vasprintf(&msg, fmt, ap)) {
        opal_output(0, "%s", msg);
        free(msg);
    }
    va_end(ap);
    free(fmt);
}

void mca_coll_hiercoll_show_help_text(const char *topic, const char *text)
{
    mca_coll_hiercoll_show_help(topic, text);
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
