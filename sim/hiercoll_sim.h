/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * A symbolic simulator for hiercoll plans (MPI-free).
 *
 * It runs the plans of all n ranks together: sends and receives match in
 * FIFO order per (source, destination) pair, as MPI's non-overtaking rule
 * makes them match within one collective, rounds complete when all their
 * transfers have matched, and local copies and reductions run after them.
 * Instead of values it moves SYMBOLS: every byte range carries how many
 * inputs were combined into it, two independent sums of the contributing
 * ranks' random hashes, the rank interval it covers when it was combined
 * in order, and which byte of the original inputs it is.  A result is
 * right when every byte carries each expected contribution exactly once
 * (count and both hash sums match), from the right byte, in the right
 * order where the op is not commutative.
 *
 * The simulator also reports deadlocks, mismatched message sizes and
 * writes to undefined data, and costs every rank: messages and bytes sent
 * and received, bytes copied and reduced, rounds, distinct receive
 * partners, and a modelled completion time (a LogGP-like model: latency
 * alpha, per-message overhead o at each end, per-byte beta on the wire,
 * gamma per reduced byte, delta per copied byte).
 */
#ifndef HIERCOLL_SIM_H
#define HIERCOLL_SIM_H

#include "coll_hiercoll_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_val {
    uint32_t cnt;   /* inputs combined (0: undefined) */
    uint64_t h1, h2;/* sums of the inputs' hashes */
    int32_t lo, hi; /* ordered rank interval [lo, hi], or -1 when unordered */
    int64_t shift;  /* original byte index = position + shift */
    bool dec;       /* the DECIDED value of a short-circuit reduction: it
                     * absorbs whatever it is combined with */
} sim_val_t;

typedef struct sim_stats {
    int64_t msgs_sent, bytes_sent, msgs_recv, bytes_recv;
    int64_t bytes_copied, bytes_reduced;
    int rounds;
    int recv_partners; /* distinct ranks this rank received from */
    int send_partners;
    double t_end;      /* modelled completion time, seconds */
    bool early;        /* sim_run_early: returned early (decided) */
} sim_stats_t;

typedef struct sim_model {
    double alpha; /* latency, s */
    double o;     /* per-message overhead at each end, s */
    double beta;  /* s per byte on the wire */
    double gamma; /* s per byte reduced */
    double delta; /* s per byte copied */
} sim_model_t;

typedef struct sim sim_t;

/* Builds the plan of `rank` (the plan is reset by the planner). */
typedef int (*sim_planner_fn)(hcp_plan_t *plan, int rank, void *arg);

/* A model close to a cluster of today: 1.5 us latency, 0.3 us overhead,
 * 10 GB/s links, 4 GB/s reduction, 10 GB/s copies. */
extern const sim_model_t sim_model_default;

sim_t *sim_new(int n, bool track_data);
void sim_free(sim_t *s);
int sim_size(const sim_t *s);
/* Make the simulator an intercommunicator: ranks [0, na) are one group,
 * [na, n) the other; a plan's peers are ranks of the own group (ops marked
 * local) or of the other group, numbered from 0 in each. */
void sim_set_groups(sim_t *s, int na);
/* Build and validate every rank's plan; sbuf_units/rbuf_units(rank) bound
 * the user buffers (NULL: unchecked).  Returns 0 or -1 (see sim_error). */
int sim_plan_all(sim_t *s, sim_planner_fn fn, void *arg,
                 int64_t (*sbuf_units)(int rank, void *arg),
                 int64_t (*rbuf_units)(int rank, void *arg));
hcp_plan_t *sim_plan(sim_t *s, int rank);

/* Symbols. */
sim_val_t sim_input(int rank);                   /* rank's original input */
sim_val_t sim_combine(sim_val_t left, sim_val_t right); /* left (op) right */
/* All ranks lo..hi combined in order. */
sim_val_t sim_range_of(int lo, int hi);
sim_val_t sim_shifted(sim_val_t v, int64_t shift);

/* Set bytes [off, off+len) of a rank's buffer to v: byte at position x
 * is then original byte x + v.shift of the inputs v combines. */
void sim_set(sim_t *s, int rank, int buf, int64_t off, int64_t len,
             sim_val_t v);

/* Let a rank start late (modelled seconds), e.g. to check that a barrier
 * holds everybody until the last one arrives. */
void sim_set_start(sim_t *s, int rank, double t);

/* Run.  Returns 0, or -1 with sim_error() saying why. */
int sim_run(sim_t *s, const sim_model_t *model);
const char *sim_error(const sim_t *s);

/* Early exit (plans marked by hcp_sc_mark).  sim_decided() is the symbol
 * of the decided value: a rank whose input holds it is a DECIDER, and a
 * combination with it gives it again.  sim_run_early runs the plans as
 * the executor does with early exit engaged on every rank: every receive
 * is posted at the rank's start, into a landing slot of its own, and lands
 * in its target when its round completes; a rank becomes decided when its
 * input, a reduce's result or ANY arrived running-result message is
 * decided (events at one instant: decided arrivals first); then it sends
 * the decided value on every send it has not posted, writes the decided
 * value as its result (plan->sc_out) and returns (t_end, early).  Its
 * receives still match later messages: at the end every send must have
 * met its receive.  An event simulation in time; the costs are as in
 * sim_run, except that the copies out of landing slots are free.
 * Returns 0, or -1 with sim_error() saying why. */
sim_val_t sim_decided(void);
int sim_run_early(sim_t *s, const sim_model_t *model);

/* Check bytes [off, off+len) of a rank's buffer hold `want` (with the same
 * absolute shift convention as sim_set).  ordered: also compare the rank
 * interval.  Returns NULL or a description of the first mismatch. */
const char *sim_expect(sim_t *s, int rank, int buf, int64_t off, int64_t len,
                       sim_val_t want, bool ordered);

const sim_stats_t *sim_stats(const sim_t *s, int rank);
/* Aggregates over ranks. */
typedef struct sim_summary {
    int64_t total_msgs, total_bytes;
    int64_t max_msgs_sent, max_bytes_sent, max_bytes_recv, max_msgs_recv;
    int64_t max_bytes_reduced, max_bytes_copied;
    int max_rounds, max_recv_partners;
    double t_end; /* the last rank's modelled completion */
} sim_summary_t;
sim_summary_t sim_summarize(const sim_t *s);

#ifdef __cplusplus
}
#endif

#endif /* HIERCOLL_SIM_H */
