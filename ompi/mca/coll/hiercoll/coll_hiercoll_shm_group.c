/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The shared-memory node level: the hierarchy.  Each rank's key for a
 * hardware level (coll_hiercoll_shm_group_level), the groups of the grouped
 * algorithms (more than coll_hiercoll_shm_group_size ranks: runs of
 * consecutive ranks, led by their first) and their leaders' lines.
 */
#include "coll_hiercoll_shm_internal.h"

/* My key for hardware level `by` (an hcp_level_t) on comm: the lowest
 * rank that shares my object of that level (Open MPI's locality of each
 * peer, from the bindings; an unbound process shares none with another).
 * Allgathered, the keys are the same table on every rank. */
int64_t hc_shm_my_key(ompi_communicator_t *comm, int by)
{
    static const uint16_t flag[HCP_NLEVELS] = {
        [HCP_LEVEL_NUMA] = OPAL_PROC_ON_NUMA,         [HCP_LEVEL_SOCKET] = OPAL_PROC_ON_SOCKET,
        [HCP_LEVEL_L3] = OPAL_PROC_ON_L3CACHE,        [HCP_LEVEL_L2] = OPAL_PROC_ON_L2CACHE,
        [HCP_LEVEL_L1] = OPAL_PROC_ON_L1CACHE,        [HCP_LEVEL_CORE] = OPAL_PROC_ON_CORE,
        [HCP_LEVEL_HWTHREAD] = OPAL_PROC_ON_HWTHREAD};
    int me = ompi_comm_rank(comm);
    if (by < 0 || by >= HCP_NLEVELS || 0 == flag[by]) {
        return 0; /* none, the node, the board: one object */
    }
    for (int r = 0; r < me; ++r) {
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        if (NULL != p && flag[by] == (p->super.proc_flags & flag[by])) {
            return r;
        }
    }
    return me;
}

/* The groups of the grouped algorithms (more than coll_hiercoll_shm_group_size
 * ranks): runs of consecutive ranks that share the level's object, cut at
 * the group size; consecutive ranks only where the runs are two ranks or
 * fewer on average (a round-robin mapping, unbound processes).  The same
 * table on every rank (the keys were allgathered).  False: no memory. */
bool hc_shm_group_ranks(hc_shm_t *s, const hc_shm_peer_t *peers, char *how, size_t howlen)
{
    int n = s->n, cap = mca_coll_hiercoll_params.shm_group_size;
    int by = mca_coll_hiercoll_params.shm_group_by;
    int *keys = malloc(sizeof(int) * (size_t) n);
    s->lead = malloc(sizeof(int) * (size_t) n);
    if (NULL == keys || NULL == s->lead) {
        free(keys);
        return false;
    }
    for (int r = 0; r < n; ++r) {
        keys[r] = (int) peers[r].key;
    }
    int ng = hcp_runs(n, keys, cap, s->lead);
    if (by < 0 || 2 * ng > n + 1) {
        memset(keys, 0, sizeof(int) * (size_t) n);
        ng = hcp_runs(n, keys, cap, s->lead);
        snprintf(how, howlen, "consecutive ranks%s",
                 by < 0 ? "" : " (the level's runs were short)");
    } else {
        snprintf(how, howlen, "%s", hcp_level_names[by]);
    }
    free(keys);
    s->leaders = malloc(sizeof(int) * (size_t) ng);
    if (NULL == s->leaders) {
        return false;
    }
    s->ngroups = 0;
    for (int r = 0; r < n; ++r) {
        if (s->lead[r] == r) {
            s->leaders[s->ngroups++] = r;
        }
    }
    return true;
}

/* The same for the groups' first ranks (phase v of their lines). */
bool hc_shm_leader_flags(hc_shm_op_t *o, uint64_t s, uint64_t v)
{
    return some_flags(o, s, v, 0, o->ch->s->ngroups, 1, o->ch->s->leaders);
}

/* The groups (set up with the region: runs of consecutive ranks, see
 * hc_shm_group_ranks), led by their first: my group's first rank and size. */
void hc_shm_my_group(const hc_shm_op_t *o, int *lead, int *size)
{
    const hc_shm_t *sh = o->ch->s;
    int r = sh->me;
    *lead = sh->lead[r];
    while (r + 1 < sh->n && sh->lead[r + 1] == *lead) {
        ++r;
    }
    *size = r + 1 - *lead;
}
