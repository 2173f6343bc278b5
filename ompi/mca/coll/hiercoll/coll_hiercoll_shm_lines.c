/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: flag lines and waiting (the slow parts;
 * the hot ones, the slot test and the done lines' minimum among them, are
 * static inline in coll_hiercoll_shm_internal.h): the persistent channels
 * agreed free, the waits for done lines, the waits' slow turn and the
 * watchdog.
 *
 * WAITING.  coll_hiercoll_shm_spin polls with `pause`, then Open MPI's
 * progress at every poll, and sched_yield when the node is oversubscribed
 * or mpi_yield_when_idle is set; coll_hiercoll_shm_watchdog seconds of
 * waiting print which rank, line and value a wait is stuck on.
 */
#include "coll_hiercoll_shm_internal.h"

/* After reading every rank's line of an operation (row: its slot's lines,
 * phase 0, acquired): the channels every rank offered are agreed; the
 * timing where every rank offered it. */
void hc_shm_agree_freed(hc_shm_t *sh, const hc_line_t *row)
{
    uint64_t all = sh->poffered;
    for (int r = 0; 0 != all && r < sh->n; ++r) {
        if (r != sh->me) {
            all &= __atomic_load_n(&row[r].aux, __ATOMIC_RELAXED);
        }
    }
    sh->pagreed |= (uint32_t) all & ~HC_PLACE_BIT;
    if (0 != (all & HC_PLACE_BIT)) {
        sh->pnow = true;
    }
}

/* Everyone but `skip` done with operation s. */
bool hc_shm_others_done(hc_shm_op_t *o, uint64_t s, int skip)
{
    hc_shm_chan_t *ch = o->ch;
    for (; o->i < ch->s->n; ++o->i) {
        if (o->i != skip && ld_acq(&ch->done[o->i].seq) < s) {
            o->wait_on = &ch->done[o->i].seq;
            o->wait_val = s;
            return false;
        }
    }
    o->i = 0;
    for (int r = 0; OPAL_UNLIKELY(NULL != ch->s->st) && r < ch->s->n; ++r) {
        if (r != skip) { /* (done lines count as lines) */
            hc_shm_count(o, r, 1, 1, NULL);
        }
    }
    return true;
}

bool hc_shm_one_done(hc_shm_op_t *o, uint64_t s, int r)
{
    uint64_t *d = &o->ch->done[r].seq;
    if (ld_acq(d) < s) {
        o->wait_on = d;
        o->wait_val = s;
        return false;
    }
    if (OPAL_UNLIKELY(NULL != o->ch->s->st)) {
        hc_shm_count(o, r, 1, 1, NULL);
    }
    return true;
}

/* DEBUG REUSE (coll_hiercoll_shm_debug_reuse).  slot_free let operation s
 * write slot s mod k on the cached word that every rank has finished
 * operation done_min; every rank's done line must say at least that
 * (done lines only grow, and the cache is their minimum as read, or an
 * inference from lines that each rank published after its done line).  A
 * line below it: the cache was ahead, and a rank may still be reading the
 * slot about to be overwritten.  Abort, saying where. */
void hc_shm_reuse_check(const hc_shm_chan_t *ch, uint64_t s, int k)
{
    const hc_shm_t *sh = ch->s;
    for (int r = 0; r < sh->n; ++r) {
        uint64_t d = ld_acq(&ch->done[r].seq);
        if (d >= ch->done_min) {
            continue;
        }
        opal_output(0, "hiercoll: shm debug reuse: %s rank %d (world %d), channel %d: operation "
                    "%llu would reuse slot %llu of %d, the cache saying every rank has finished "
                    "operation %llu, but rank %d's done line says %llu: the cached minimum ran "
                    "ahead of the done lines (a slot still read would be overwritten); aborting",
                    sh->comm->c_name, sh->me, hc_shm_world_rank(), (int) (ch - sh->ch),
                    (unsigned long long) s, (unsigned long long) (s % (uint64_t) k), k,
                    (unsigned long long) ch->done_min, r, (unsigned long long) d);
        ompi_mpi_abort(&ompi_mpi_comm_world.comm, 1);
    }
}

/* The collectives it serves, by name (the watchdog). */
static const char *coll_name(hc_coll_t k)
{
    switch (k) {
    case HC_BARRIER: return "barrier";
    case HC_BCAST: return "bcast";
    case HC_REDUCE: return "reduce";
    case HC_ALLREDUCE: return "allreduce";
    case HC_ALLGATHER: return "allgather";
    case HC_ALLGATHERV: return "allgatherv";
    case HC_GATHER: return "gather";
    case HC_SCATTER: return "scatter";
    case HC_REDUCE_SCATTER_BLOCK: return "reduce_scatter_block";
    case HC_REDUCE_SCATTER: return "reduce_scatter";
    default: return "?";
    }
}

double hc_shm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

void hc_shm_wait_slow(hc_shm_t *sh, hc_wait_t *w, const hc_shm_op_t *o)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    opal_progress();
    if (sh->yield) {
        sched_yield();
    }
    /* the clock from the first slow poll, then every 1024th, or every
     * one when yielding: a yield on a loaded node can take milliseconds,
     * and 1024 of them outlast the wait (the watchdog then said nothing) */
    if (prm->shm_watchdog > 0 && (0 == w->since || sh->yield || 0 == (w->polls & 1023))) {
        double t = hc_shm_now();
        if (0 == w->since) {
            w->since = t;
        } else if (!w->warned && t - w->since > prm->shm_watchdog && NULL != o) {
            w->warned = true;
            const hc_shm_chan_t *ch = o->ch;
            /* the line from the region's first flag line; a flag line's
             * slot (the hot rows: kf + i) and rank (place_rows may have
             * moved the rows), a done line's rank */
            const hc_line_t *at = (const hc_line_t *) o->wait_on;
            long line = NULL == at ? -1 : (long) (at - sh->ch[0].flag), slot = -1, rank = -1;
            for (int j = 0; NULL != at && j < sh->kf + hot_of(sh); ++j) {
                if (at >= ch->row[j] && at < ch->row[j] + sh->n) {
                    slot = j;
                    rank = (long) (at - ch->row[j]);
                }
            }
            if (NULL != at && slot < 0 && at >= ch->done && at < ch->done + sh->n) {
                rank = (long) (at - ch->done);
            }
            opal_output(0, "hiercoll: shm watchdog: %s rank %d (world %d) has waited %.0f s in "
                        "%s seq %llu chunk %d phase %d on line %ld (slot %ld, rank %ld) for "
                        "value >= %llu, sees %llu",
                        sh->comm->c_name, sh->me, hc_shm_world_rank(), t - w->since,
                        coll_name(o->coll), (unsigned long long) o->s0, o->j,
                        o->ph, line, slot, rank,
                        (unsigned long long) o->wait_val,
                        (unsigned long long) (NULL == o->wait_on ? 0 : ld_acq(o->wait_on)));
        }
    }
}
