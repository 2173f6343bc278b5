/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * An event-driven simulation of all ranks' triggered-operation engines
 * (coll_hiercoll_trig.h), MPI-free.  Every rank has its own engine and
 * channel; its backend puts each packet on a global event queue that
 * delivers it one hop later (plus a random jitter when asked), ties broken
 * at random, so packets arrive in random orders and before their ports
 * are armed.  Ranks arm their ports at random times too, one call after
 * the other (a rank arms call j + 1 once call j is done locally, so
 * reduce leaves run ahead of their parents: the credits' case).
 *
 * With no jitter and every rank arming at time 0, the finish time is the
 * depth of the longest chain of hops (the programs' model depth).
 */
#ifndef HIERCOLL_TRIG_SIM_H
#define HIERCOLL_TRIG_SIM_H

#include "coll_hiercoll_trig.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sim_trig_cfg {
    uint64_t seed;
    int jitter;   /* extra delay per packet: random in [0, jitter) hops */
    int late_arm; /* ranks arm each call after a random delay in [0, late_arm) */
    int credits;  /* the engines' credits and MPQ bound */
    int mpq;
    int ncalls;  /* calls one after the other on one channel (seq 0, 1, ...) */
    double hop;  /* time of one hop (1.0 for depth) */
    double fire; /* time an engine spends on each packet it receives, one
                  * packet at a time (0 for depth): a serial NIC */
} sim_trig_cfg_t;

typedef struct sim_trig_result {
    double finish;      /* when the last rank completed its last call */
    uint64_t data_pkts; /* data packets sent, all ranks */
    uint64_t credit_pkts;
    uint64_t early, mpq_max, overflow, backlog_max, errors;
    int leftover;   /* packets still in MPQs or backlogs at the end */
    int incomplete; /* calls not done on some rank (deadlock) */
} sim_trig_result_t;

/* progs[r]: rank r's program (for every call); inputs[r]: its input;
 * outputs[c * n + r]: its output of call c (or NULL).  Returns 0, or -1
 * when memory ran out or arming failed. */
int sim_trig_run(int n, const hct_prog_t *const *progs, const void *const *inputs,
                 void *const *outputs, const sim_trig_cfg_t *cfg, sim_trig_result_t *res);

#ifdef __cplusplus
}
#endif

#endif /* HIERCOLL_TRIG_SIM_H */
