/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered offload's ofi backend inside Open MPI: the
 * process's own libfabric fabric, domain and endpoint (provider found by
 * capability, coll_hiercoll_ofi_trig.c), wired up lazily at a
 * communicator's first offloaded call through the saved previous module's
 * allgather (Open MPI 4.1's per-process endpoint slots are all taken), one
 * endpoint table per process keyed by ompi_proc_t and reused by every
 * communicator.  Programs are armed as deferred work; the caller only arms
 * and reads the port's DONE counter.
 */
#include "ompi_config.h"

#include <string.h>

#include "opal/runtime/opal_progress.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_offload_transport.h"
#include "coll_hiercoll_ofi_trig.h"

/* What the component gives this plugin (ofi_init). */
static const hc_ol_services_t *S;

static struct {
    hcf_fabric_t *f;
    bool tried;
    char why[256];
    hc_ol_peers_t peers; /* addresses in the fabric's address vector */
} F;

/* What each rank tells the others at wire-up. */
typedef struct {
    int32_t ok;
    uint32_t namelen;
    char prov[32];
    char name[HCF_NAME_MAX];
} ofi_card_t;

static int fabric_up(void)
{
    if (!F.tried) {
        F.tried = true;
        F.f = hcf_open(S->ofi_max_triggered, F.why, sizeof(F.why));
    }
    return NULL != F.f ? OMPI_SUCCESS : OMPI_ERR_NOT_AVAILABLE;
}

static int ofi_open(mca_coll_hiercoll_module_t *m, hcf_chan_t **chan, bool automatic)
{
    ompi_communicator_t *comm = m->comm;
    mca_coll_base_comm_coll_t *p = &m->prev;
    int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    if (NULL == p->coll_allgather) {
        S->log(1, "%s: offload: no previous allgather to wire up ofi", comm->c_name);
        return OMPI_ERR_NOT_AVAILABLE; /* the same on every rank */
    }
    ofi_card_t mine, *all = calloc((size_t) n, sizeof(ofi_card_t));
    memset(&mine, 0, sizeof(mine));
    /* auto takes ofi only where a NIC runs the triggered work: soft names
     * the provider (the open one, or the one that would open) otherwise */
    char soft[32] = "";
    if (automatic) {
        if (NULL != F.f) {
            snprintf(soft, sizeof(soft), "%s", hcf_provider(F.f));
        } else {
            (void) hcf_probe(soft, sizeof(soft)); /* (none: stays "") */
        }
        soft[0] = hcf_software_triggers(soft) ? soft[0] : '\0';
    }
    mine.ok = NULL != all && '\0' == soft[0] && OMPI_SUCCESS == fabric_up();
    if (mine.ok) {
        size_t len = sizeof(mine.name);
        mine.ok = 0 == hcf_name(F.f, mine.name, &len);
        mine.namelen = (uint32_t) len;
        snprintf(mine.prov, sizeof(mine.prov), "%s", hcf_provider(F.f));
    }
    /* 1: who has a provider with triggers (the same one), and the names */
    int rc = NULL == all ? OMPI_ERR_OUT_OF_RESOURCE
                         : p->coll_allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine),
                                             MPI_BYTE, comm, p->coll_allgather_module);
    int all_ok = OMPI_SUCCESS == rc, bad = -1;
    for (int r = 0; all_ok && r < n; ++r) {
        all_ok = all[r].ok && 0 == strncmp(all[r].prov, all[0].prov, sizeof(all[r].prov));
        bad = all_ok ? -1 : r;
    }
    if (!all_ok) {
        if (0 == me && '\0' != soft[0]) {
            S->log(1,
                   "%s: offload backend auto: not ofi (the %s provider runs "
                   "triggered work in software, in its progress threads)",
                   comm->c_name, soft);
        } else if (0 == me) {
            S->log(1, "%s: offload: no ofi backend (%s%s%s)", comm->c_name,
                   bad == 0 || bad < 0 ? "" : "a rank lacks it",
                   bad == 0 || bad < 0 ? "" : "; here: ", NULL != F.f ? hcf_provider(F.f) : F.why);
        }
        free(all);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    /* 2: endpoints of the peers this process does not know yet */
    int made = 1;
    for (int r = 0; made && r < n; ++r) {
        ompi_proc_t *proc = ompi_comm_peer_lookup(comm, r);
        uint64_t a;
        if (!S->peers_find(&F.peers, proc, &a)) {
            made = 0 == hcf_av_insert(F.f, all[r].name, &a)
                   && OMPI_SUCCESS == S->peers_add(&F.peers, proc, a);
        }
    }
    free(all);
    /* 3: every rank has its endpoints */
    if (!S->agree(m, made, &rc)) {
        S->log(1, "%s: offload: ofi endpoints failed (rc %d, here %d)", comm->c_name, rc, made);
        return OMPI_ERR_NOT_AVAILABLE;
    }
    uint64_t *addrs = malloc((size_t) n * sizeof(*addrs));
    for (int r = 0; NULL != addrs && r < n; ++r) {
        (void) S->peers_find(&F.peers, ompi_comm_peer_lookup(comm, r), &addrs[r]);
    }
    *chan =
        NULL == addrs ? NULL : hcf_chan_open_addrs(F.f, (uint16_t) hc_comm_cid(comm), n, me, addrs);
    free(addrs);
    if (NULL == *chan) {
        return OMPI_ERR_OUT_OF_RESOURCE; /* local, after agreement: the call fails */
    }
    hcf_needs_t b = hcf_budget(F.f);
    S->log(1,
           "%s: offload on ofi (provider %s, FI_TRIGGER deferred work; "
           "%d counters and %d triggered ops per port; %d endpoints in the "
           "process table)",
           comm->c_name, hcf_provider(F.f), b.counters, b.ops, F.peers.n);
    return OMPI_SUCCESS;
}

static bool ofi_fits(hcf_chan_t *chan, const hct_prog_t *bound)
{
    (void) chan;
    return NULL != F.f && hcf_fits(F.f, bound);
}

static hcf_port_t *ofi_arm(hcf_chan_t *chan, uint16_t seq, const hct_prog_t *prog, const void *in,
                           void *out)
{
    char why[256];
    hcf_port_t *port;
    /* counters come back as other ports retire (they finish on their own) */
    while (NULL == (port = hcf_arm(chan, seq, prog, in, out, why, sizeof(why)))
           && 0 == strncmp(why, "busy", 4)) {
        opal_progress();
    }
    if (NULL == port) {
        S->log(1, "offload: ofi: %s", why);
    }
    return port;
}

static int ofi_finished(hcf_port_t *port)
{
    int d = hcf_port_done(port);
    if (d > 0) {
        hcf_disarm(port);
    } else if (d < 0) {
        char buf[512];
        hcf_port_dump(port, buf, sizeof(buf));
        S->show_help_text("offload-failed", buf);
    }
    return d;
}

static void ofi_close(hcf_chan_t *chan)
{
    hcf_chan_close(chan);
}

static void ofi_fini(void)
{
    if (NULL != F.f) {
        const hcf_stats_t *st = hcf_stats(F.f);
        S->log(1,
               "offload: ofi (%s): %llu ports armed, %llu triggered "
               "operations, at most %llu counters at once",
               hcf_provider(F.f), (unsigned long long) st->armed, (unsigned long long) st->ops,
               (unsigned long long) st->counters_max);
    }
    S->peers_fini(&F.peers);
    hcf_close(F.f);
    F.f = NULL;
    F.tried = false;
}

static int ofi_init(const hc_ol_services_t *svc)
{
    S = hc_ol_services_check(svc);
    return NULL != S ? 0 : -1;
}

HC_OL_EXPORT const hc_ol_transport_t hiercoll_offload_transport = {
    .abi = HC_OL_TRANSPORT_ABI,
    .size = sizeof(hc_ol_transport_t),
    .name = "ofi",
    .init = ofi_init,
    .fini = ofi_fini,
    .ofi_open = ofi_open,
    .ofi_fits = ofi_fits,
    .ofi_arm = ofi_arm,
    .ofi_finished = ofi_finished,
    .ofi_close = ofi_close,
};
