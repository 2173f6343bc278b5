/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_pingpong: the physical floor of an on-node collective.  Two processes
 * (fork) bounce one 64-byte line through a shared page: each waits until
 * the line holds its turn's number (acquire load), then writes the next
 * (release store).  One-way latency = round-trip time / 2, the median of
 * several trials.  The shared-memory allreduce of 8 bytes at 2 processes
 * needs at least one such one-way transfer (each rank reads the other's
 * line), so its latency over this number says how close it runs to the
 * machine.
 *
 * --exchange times the pattern of a 2-process allreduce or barrier on
 * lines of their own instead: each process writes its own line (128 bytes
 * apart) with the exchange's number and waits until the other's line
 * holds it; time per exchange.  The two transfers overlap, so it is the
 * floor of hiercoll's shared-memory barrier and allreduce at 2 processes
 * (each rank writes only its own lines).
 *
 *   hc_pingpong [--iters N] [--trials T] [--cpus A,B] [--exchange]
 *
 * Without --cpus the two processes run unbound (as mpirun binds them to
 * cores 0 and 1 with --bind-to core, --cpus 0,1 does the same here).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hc_probe.h"

typedef struct {
    uint64_t turn;
    char pad[56];
} __attribute__((aligned(64))) line_t;

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Side `me` (0 or 1) of n round trips starting at turn `base`. */
static void bounce(line_t *l, int me, uint64_t base, long n)
{
    for (long i = 0; i < n; ++i) {
        uint64_t mine = base + 2 * (uint64_t) i + (uint64_t) me;
        while (__atomic_load_n(&l->turn, __ATOMIC_ACQUIRE) < mine) {
            relax();
        }
        __atomic_store_n(&l->turn, mine + 1, __ATOMIC_RELEASE);
    }
}

/* --exchange: side `me` of n exchanges from number `base` + 1 on. */
static void exchange(line_t *l, int me, uint64_t base, long n)
{
    for (long i = 1; i <= n; ++i) {
        uint64_t v = base + (uint64_t) i;
        __atomic_store_n(&l[2 * me].turn, v, __ATOMIC_RELEASE);
        while (__atomic_load_n(&l[2 * (1 - me)].turn, __ATOMIC_ACQUIRE) < v) {
            relax();
        }
    }
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    long iters = 200000;
    int trials = 7, cpu[2] = {-1, -1}, exch = 0;
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = atol(argv[++i]);
        } else if (0 == strcmp(argv[i], "--trials") && i + 1 < argc) {
            trials = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--exchange")) {
            exch = 1;
        } else if (0 == strcmp(argv[i], "--cpus") && i + 1 < argc) {
            if (2 != sscanf(argv[++i], "%d,%d", &cpu[0], &cpu[1])) {
                fprintf(stderr, "hc_pingpong: --cpus A,B\n");
                return 2;
            }
        } else {
            fprintf(stderr, "usage: hc_pingpong [--iters N] [--trials T] [--cpus A,B] "
                            "[--exchange]\n");
            return 2;
        }
    }
    if (iters < 1 || trials < 1 || trials > 99) {
        fprintf(stderr, "hc_pingpong: --iters >= 1, --trials 1..99\n");
        return 2;
    }
    line_t *l = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (MAP_FAILED == l) {
        perror("hc_pingpong: mmap");
        return 1;
    }
    memset(l, 0, 4096);
    pid_t child = fork();
    if (child < 0) {
        perror("hc_pingpong: fork");
        return 1;
    }
    int me = 0 == child ? 1 : 0;
    hcp_pin(cpu[me], "hc_pingpong");
    uint64_t base = 0;
    double t[99];
    if (exch) {
        exchange(l, me, base, iters / 10 + 1); /* warm up */
        base += (uint64_t) (iters / 10 + 1);
        for (int k = 0; k < trials; ++k) {
            double t0 = hcp_now();
            exchange(l, me, base, iters);
            t[k] = (hcp_now() - t0) / (double) iters;
            base += (uint64_t) iters;
        }
    } else {
        bounce(l, me, base, iters / 10 + 1); /* warm up */
        base += 2 * (uint64_t) (iters / 10 + 1);
        for (int k = 0; k < trials; ++k) {
            double t0 = hcp_now();
            bounce(l, me, base, iters);
            t[k] = (hcp_now() - t0) / (2.0 * (double) iters);
            base += 2 * (uint64_t) iters;
        }
    }
    if (1 == me) {
        _exit(0);
    }
    waitpid(child, NULL, 0);
    qsort(t, (size_t) trials, sizeof(t[0]), cmp);
    if (exch) {
        printf("hc_pingpong: exchange of two processes' own lines (each writes its line, waits "
               "for the other's): %.4f us (median of %d trials of %ld exchanges; min %.4f, max "
               "%.4f)\n",
               t[trials / 2] * 1e6, trials, iters, t[0] * 1e6, t[trials - 1] * 1e6);
    } else {
        printf("hc_pingpong: one-way latency of a 64-byte line between two processes: %.4f us "
               "(median of %d trials of %ld round trips; min %.4f, max %.4f)\n",
               t[trials / 2] * 1e6, trials, iters, t[0] * 1e6, t[trials - 1] * 1e6);
    }
    return 0;
}
