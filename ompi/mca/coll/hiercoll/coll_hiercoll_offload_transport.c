/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The component's side of the offload's transport plugins (the
 * boundary is coll_hiercoll_offload_transport.h): finding and loading a
 * plugin on first use, the services it is given (the peer tables and the
 * offload's agreement live here), and what ompi_info says about them.
 * The engine and its transports: docs/design/offload-engine.md.
 *
 * A plugin is <dir>/hiercoll_<name>.so, dir being, in this order: the
 * parameter coll_hiercoll_offload_plugin_dir when set; else hiercoll/ next
 * to the component's own file (the install layout), then the component's
 * own directory (the build tree's .libs).
 */
#include "ompi_config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_offload.h"

static const char *const names[HC_OL_T_N] = {"ucx", "ofi"};
static const bool built[HC_OL_T_N] = {
#if HIERCOLL_HAVE_UCX
    [HC_OL_T_UCX] = true,
#endif
#if HIERCOLL_HAVE_OFI
    [HC_OL_T_OFI] = true,
#endif
};

static struct {
    const hc_ol_transport_t *t;
    bool tried;
} loaded[HC_OL_T_N];

static char *plugin_dir = NULL; /* coll_hiercoll_offload_plugin_dir */

/* ------------------------------------------------------------------ */
/* What the UCX and ofi transports share: peers and agreement           */
/* ------------------------------------------------------------------ */

static bool peers_find(const hc_ol_peers_t *t, ompi_proc_t *proc, uint64_t *val)
{
    for (int i = 0; i < t->n; ++i) {
        if (t->v[i].proc == proc) {
            *val = t->v[i].val;
            return true;
        }
    }
    return false;
}

static int peers_add(hc_ol_peers_t *t, ompi_proc_t *proc, uint64_t val)
{
    if (t->n == t->cap) {
        int c = t->cap ? 2 * t->cap : 64;
        hc_ol_peer_t *v = realloc(t->v, (size_t) c * sizeof(*v));
        if (NULL == v) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        t->v = v;
        t->cap = c;
    }
    OBJ_RETAIN(proc);
    t->v[t->n].proc = proc;
    t->v[t->n].val = val;
    t->n++;
    return OMPI_SUCCESS;
}

static void peers_fini(hc_ol_peers_t *t)
{
    for (int i = 0; i < t->n; ++i) {
        OBJ_RELEASE(t->v[i].proc);
    }
    free(t->v);
    t->v = NULL;
    t->n = t->cap = 0;
}

static bool peers_missing(const hc_ol_peers_t *t, ompi_communicator_t *comm)
{
    uint64_t v;
    for (int r = 0; r < ompi_comm_size(comm); ++r) {
        if (r != ompi_comm_rank(comm) && !peers_find(t, ompi_comm_peer_lookup(comm, r), &v)) {
            return true;
        }
    }
    return false;
}

uint64_t mca_coll_hiercoll_offload_agree(mca_coll_hiercoll_module_t *m, uint64_t mine, int *rc)
{
    mca_coll_base_comm_coll_t *p = &m->prev;
    int n = ompi_comm_size(m->comm);
    uint64_t *all = malloc((size_t) n * sizeof(*all)), every = 0;
    if (NULL == p->coll_allgather || NULL == all) {
        *rc = NULL == all ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_ERR_NOT_AVAILABLE;
    } else {
        *rc = p->coll_allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, m->comm,
                                p->coll_allgather_module);
    }
    if (OMPI_SUCCESS == *rc) {
        every = all[0];
        for (int r = 1; r < n; ++r) {
            every &= all[r];
        }
    }
    free(all);
    return every;
}

/* ------------------------------------------------------------------ */
/* Loading                                                              */
/* ------------------------------------------------------------------ */

static hc_ol_services_t services;

static void services_up(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    services = (hc_ol_services_t){
        .abi = HC_OL_TRANSPORT_ABI,
        .size = sizeof(hc_ol_services_t),
        .mpq = prm->offload_mpq,
        .credits = prm->offload_credits,
        .ofi_max_triggered = prm->offload_ofi_max_triggered,
        .log = mca_coll_hiercoll_log,
        .show_help_text = mca_coll_hiercoll_show_help_text,
        .agree = mca_coll_hiercoll_offload_agree,
        .peers_find = peers_find,
        .peers_add = peers_add,
        .peers_fini = peers_fini,
        .peers_missing = peers_missing,
        .engine_new = hct_engine_new,
        .engine_free = hct_engine_free,
        .chan_open = hct_chan_open,
        .chan_close = hct_chan_close,
        .chan_user = hct_chan_user,
        .chan_rank = hct_chan_rank,
        .deliver = hct_deliver,
    };
}

/* The plugin's candidate paths (up to 2) for transport t. */
static int candidates(int t, char paths[2][4096])
{
    if (NULL != plugin_dir && '\0' != plugin_dir[0]) {
        snprintf(paths[0], sizeof(paths[0]), "%s/hiercoll_%s.so", plugin_dir, names[t]);
        return 1;
    }
    Dl_info di;
    if (0 == dladdr((void *) candidates, &di) || NULL == di.dli_fname) {
        snprintf(paths[0], sizeof(paths[0]), "hiercoll_%s.so", names[t]); /* the loader's path */
        return 1;
    }
    const char *slash = strrchr(di.dli_fname, '/');
    int len = NULL == slash ? 1 : (int) (slash - di.dli_fname);
    const char *dir = NULL == slash ? "." : di.dli_fname;
    snprintf(paths[0], sizeof(paths[0]), "%.*s/hiercoll/hiercoll_%s.so", len, dir, names[t]);
    snprintf(paths[1], sizeof(paths[1]), "%.*s/hiercoll_%s.so", len, dir, names[t]);
    return 2;
}

/* Load transport t's plugin: its table, or NULL with the reason in why. */
static const hc_ol_transport_t *load(int t, char *why, size_t len, char *path, size_t plen)
{
    char paths[2][4096];
    int n = candidates(t, paths), i = 0;
    for (; i < n - 1 && 0 != access(paths[i], R_OK); ++i) {
    }
    snprintf(path, plen, "%s", paths[i]);
    void *h = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
    if (NULL == h) {
        const char *e = dlerror();
        snprintf(why, len, "%s", NULL != e ? e : "dlopen failed");
        return NULL;
    }
    const hc_ol_transport_t *tp = dlsym(h, HC_OL_TRANSPORT_SYMBOL);
    if (NULL == tp) {
        snprintf(why, len, "%s: no symbol %s", paths[i], HC_OL_TRANSPORT_SYMBOL);
    } else if (HC_OL_TRANSPORT_ABI != tp->abi || sizeof(hc_ol_transport_t) != tp->size) {
        snprintf(why, len,
                 "%s is a stale plugin (ABI %u, table of %u bytes; this component wants ABI "
                 "%d, %zu bytes): reinstall hiercoll",
                 paths[i], (unsigned) tp->abi, (unsigned) tp->size, HC_OL_TRANSPORT_ABI,
                 sizeof(hc_ol_transport_t));
        tp = NULL;
    } else if (NULL == tp->name || 0 != strcmp(tp->name, names[t])) {
        snprintf(why, len, "%s is not the %s transport", paths[i], names[t]);
        tp = NULL;
    }
    if (NULL == tp) {
        dlclose(h);
    }
    return tp; /* kept loaded for the process's life */
}

static const hc_ol_transport_t *transport(int t, ompi_communicator_t *comm)
{
    if (t < 0 || t >= HC_OL_T_N || !built[t]) {
        return NULL;
    }
    if (!loaded[t].tried) {
        char why[512] = "", path[4096] = "";
        loaded[t].tried = true;
        services_up();
        const hc_ol_transport_t *tp = load(t, why, sizeof(why), path, sizeof(path));
        if (NULL != tp && 0 != tp->init(&services)) {
            snprintf(why, sizeof(why), "%s refused this component's services (stale plugin)", path);
            tp = NULL;
        }
        loaded[t].t = tp;
        if (NULL == tp) {
            mca_coll_hiercoll_log(1, "%s: offload: the %s transport did not load on rank %d: %s",
                                  comm->c_name, names[t], ompi_comm_rank(comm), why);
        } else {
            mca_coll_hiercoll_log(2, "offload: loaded the %s transport from %s", names[t], path);
        }
    }
    return loaded[t].t;
}

const hc_ol_transport_t *mca_coll_hiercoll_transport_agreed(mca_coll_hiercoll_module_t *m, int t)
{
    const hc_ol_transport_t *tp = transport(t, m->comm);
    if (!built[t]) {
        return NULL; /* the same everywhere: one build */
    }
    int rc;
    int every = (int) mca_coll_hiercoll_offload_agree(m, NULL != tp, &rc);
    if (!every && NULL != tp && 0 == ompi_comm_rank(m->comm)) {
        mca_coll_hiercoll_log(1, "%s: offload: the %s transport did not load on every rank (rc %d)",
                              m->comm->c_name, names[t], rc);
    }
    return every ? tp : NULL;
}

const hc_ol_transport_t *mca_coll_hiercoll_transport_loaded(int t)
{
    return t >= 0 && t < HC_OL_T_N ? loaded[t].t : NULL;
}

/* ------------------------------------------------------------------ */
/* ompi_info                                                            */
/* ------------------------------------------------------------------ */

static char *built_list = NULL;
static int probe_var = 0;

/* coll_hiercoll_offload_transports_loadable's value as shown: each built
 * transport's plugin, loaded here and now (ompi_info at level 9 only:
 * never at MPI_Init). */
static int probe_sfv(mca_base_var_enum_t *self, const int value, char **out)
{
    (void) self;
    (void) value;
    if (NULL == out) {
        return OPAL_SUCCESS;
    }
    char buf[4096] = "";
    size_t at = 0;
    for (int t = 0; t < HC_OL_T_N; ++t) {
        char why[512] = "", path[4096] = "";
        if (!built[t]) {
            at += snprintf(buf + at, sizeof(buf) - at, "%s%s: not built", at ? "; " : "", names[t]);
        } else {
            services_up();
            const hc_ol_transport_t *tp = loaded[t].t;
            if (NULL == tp) {
                tp = load(t, why, sizeof(why), path, sizeof(path));
            }
            at += snprintf(buf + at, sizeof(buf) - at, "%s%s: %s%s%s", at ? "; " : "", names[t],
                           NULL != tp ? "loadable (" : "NOT loadable (", NULL != tp ? path : why,
                           ")");
        }
        at = at < sizeof(buf) ? at : sizeof(buf) - 1;
    }
    *out = strdup(buf);
    return NULL == *out ? OPAL_ERR_OUT_OF_RESOURCE : OPAL_SUCCESS;
}

void mca_coll_hiercoll_transport_register(const mca_base_component_t *self)
{
    char list[64] = "";
    for (int t = 0; t < HC_OL_T_N; ++t) {
        if (built[t]) {
            snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
                     '\0' == list[0] ? "" : ",", names[t]);
        }
    }
    free(built_list);
    built_list = strdup('\0' == list[0] ? "none" : list);
    (void) mca_base_component_var_register(
        self, "offload_transports_built",
        "The offload transports this build has as plugins, loaded only when a communicator's "
        "offload uses them (besides \"progress\", always there): \"ucx\", \"ofi\", both "
        "(comma-separated) or \"none\"; coll_hiercoll_offload_transports_loadable (level 9) "
        "says whether each loads here",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_3,
        MCA_BASE_VAR_SCOPE_CONSTANT, &built_list);
    plugin_dir = "";
    (void) mca_base_component_var_register(
        self, "offload_plugin_dir",
        "Directory of the offload's transport plugins (hiercoll_ucx.so, hiercoll_ofi.so); "
        "empty: hiercoll/ next to the component's own file, then the component's directory",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &plugin_dir);
    static const mca_base_var_enum_value_t vals[] = {{0, "read-only, probed when shown"},
                                                     {0, NULL}};
    mca_base_var_enum_t *e = NULL;
    if (OPAL_SUCCESS == mca_base_var_enum_create("hiercoll_offload_transports", vals, &e)) {
        e->string_from_value = probe_sfv; /* (dump: the default, its one value) */
    }
    probe_var = 0;
    (void) mca_base_component_var_register(
        self, "offload_transports_loadable",
        "Whether each built offload transport's plugin loads in this process (with its "
        "library: libucp, libfabric) and from where; finding out loads them, so it is done "
        "only when this level is shown",
        MCA_BASE_VAR_TYPE_INT, e, 0, MCA_BASE_VAR_FLAG_DEFAULT_ONLY, OPAL_INFO_LVL_9,
        MCA_BASE_VAR_SCOPE_CONSTANT, &probe_var);
    if (NULL != e) {
        OBJ_RELEASE(e);
    }
}
