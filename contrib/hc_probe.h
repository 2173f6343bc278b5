/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_probe.h: what the stand-alone probes (hc_pingpong, hc_cma_probe)
 * share: a monotonic clock in seconds, and pinning the calling process to
 * one CPU.
 */

#ifndef HC_PROBE_H
#define HC_PROBE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <time.h>

static inline double hcp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* Pin the calling process to cpu (nothing where cpu < 0); a failure is
 * said on stderr, prefixed with prog, and the probe runs unpinned. */
static inline void hcp_pin(int cpu, const char *prog)
{
    if (cpu < 0) {
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (0 != sched_setaffinity(0, sizeof(set), &set)) {
        fprintf(stderr, "%s: sched_setaffinity(%d): ", prog, cpu);
        perror("");
    }
}

#endif /* HC_PROBE_H */
