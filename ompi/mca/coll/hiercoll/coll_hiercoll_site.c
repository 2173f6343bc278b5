/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The site file: hiercoll's own defaults for its MCA parameters, in
 * <sysconfdir>/hiercoll-mca-params.conf (Debian: /etc/openmpi, the
 * package's conffile), so that a site can turn hiercoll off, tune it or
 * name its rules file without editing Open MPI's openmpi-mca-params.conf,
 * which belongs to Open MPI's package.  Open MPI reads only that one file
 * (and the user's ~/.openmpi/mca-params.conf), so the component reads its
 * own, before it registers its parameters.
 *
 * Its lines are "coll_hiercoll_NAME = VALUE" ('#' starts a comment), as in
 * Open MPI's parameter files.  A value there replaces the parameter's
 * built-in default; everything that sets the parameter in Open MPI's way
 * (mpirun --mca, OMPI_MCA_coll_hiercoll_NAME, ~/.openmpi/mca-params.conf,
 * openmpi-mca-params.conf) still wins over it.  coll_hiercoll_site_file
 * (set in one of those ways) names another file; empty: none.  A line that
 * is not such an assignment, or names no parameter of hiercoll, is one
 * "hiercoll: ERROR:" line (help-coll-hiercoll.txt, "bad-site-file"), and
 * is ignored.
 */
#include "ompi_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "opal/mca/installdirs/installdirs.h"

#include "coll_hiercoll.h"

#define HC_SITE_PREFIX "coll_hiercoll_"
#define HC_SITE_MAX 64

static struct {
    char *name; /* without the prefix */
    char *value;
    int line;
    bool used;
} site[HC_SITE_MAX];
static int nsite;
static char *site_file;      /* the variable's storage */
static char site_default[1024];

static char *trim(char *s)
{
    while (isspace((unsigned char) *s)) {
        ++s;
    }
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char) e[-1])) {
        *--e = '\0';
    }
    return s;
}

void mca_coll_hiercoll_site_load(const mca_base_component_t *self)
{
    mca_coll_hiercoll_site_free();
    snprintf(site_default, sizeof(site_default), "%s/hiercoll-mca-params.conf",
             NULL != opal_install_dirs.sysconfdir ? opal_install_dirs.sysconfdir : "/etc");
    site_file = site_default;
    (void) mca_base_component_var_register(
        self, "site_file",
        "The site's file of defaults for hiercoll's parameters (lines \"coll_hiercoll_NAME = "
        "VALUE\", as in openmpi-mca-params.conf, which wins over it, as do mpirun --mca and "
        "the environment). A missing file is no error; empty: none",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_3, MCA_BASE_VAR_SCOPE_READONLY,
        &site_file);
    if (NULL == site_file || '\0' == site_file[0]) {
        return;
    }
    FILE *f = fopen(site_file, "r");
    if (NULL == f) {
        if (ENOENT != errno) {
            mca_coll_hiercoll_error_in(HC_ERR_SITE,
                                       "coll_hiercoll_site_file=\"%s\": %s; using the built-in "
                                       "defaults", site_file, strerror(errno));
        }
        return;
    }
    char buf[2048];
    for (int line = 1; NULL != fgets(buf, sizeof(buf), f); ++line) {
        char *hash = strchr(buf, '#');
        if (NULL != hash) {
            *hash = '\0';
        }
        char *s = trim(buf);
        if ('\0' == *s) {
            continue;
        }
        char *eq = strchr(s, '=');
        if (NULL != eq) {
            *eq = '\0';
        }
        char *name = trim(s);
        if (NULL == eq || 0 != strncmp(name, HC_SITE_PREFIX, strlen(HC_SITE_PREFIX)) ||
            '\0' == name[strlen(HC_SITE_PREFIX)]) {
            mca_coll_hiercoll_error_in(HC_ERR_SITE,
                                       "%s: line %d: not \"coll_hiercoll_NAME = VALUE\"; ignored",
                                       site_file, line);
            continue;
        }
        if (HC_SITE_MAX == nsite) {
            mca_coll_hiercoll_error_in(HC_ERR_SITE, "%s: line %d: more than %d settings; ignored",
                                       site_file, line, HC_SITE_MAX);
            continue;
        }
        /* A later line for the same parameter wins, as in Open MPI's files. */
        int k = 0;
        while (k < nsite && 0 != strcmp(site[k].name, name + strlen(HC_SITE_PREFIX))) {
            ++k;
        }
        if (k == nsite) {
            site[k].name = strdup(name + strlen(HC_SITE_PREFIX));
            ++nsite;
        } else {
            free(site[k].value);
        }
        site[k].value = strdup(trim(eq + 1));
        site[k].line = line;
        site[k].used = false;
    }
    fclose(f);
}

const char *mca_coll_hiercoll_site_value(const char *name)
{
    for (int k = 0; k < nsite; ++k) {
        if (NULL != site[k].name && NULL != site[k].value && 0 == strcmp(site[k].name, name)) {
            site[k].used = true;
            return site[k].value;
        }
    }
    return NULL;
}

void mca_coll_hiercoll_site_bool(const char *name, bool *storage)
{
    const char *v = mca_coll_hiercoll_site_value(name);
    if (NULL == v) {
        return;
    }
    if (0 != mca_coll_hiercoll_parse_bool(v, storage)) {
        mca_coll_hiercoll_error_in(HC_ERR_SITE,
                                   "%s: coll_hiercoll_%s = \"%s\" is not true or false; ignored",
                                   site_file, name, v);
    }
}

void mca_coll_hiercoll_site_check(void)
{
    for (int k = 0; k < nsite; ++k) {
        if (!site[k].used) {
            mca_coll_hiercoll_error_in(HC_ERR_SITE,
                                       "%s: line %d: coll_hiercoll_%s is no parameter of hiercoll "
                                       "(ompi_info --param coll hiercoll --level 9); ignored",
                                       site_file, site[k].line, site[k].name);
        }
    }
}

void mca_coll_hiercoll_site_free(void)
{
    for (int k = 0; k < nsite; ++k) {
        free(site[k].name);
        free(site[k].value);
        site[k].name = site[k].value = NULL;
    }
    nsite = 0;
}
