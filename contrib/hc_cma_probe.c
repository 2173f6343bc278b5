/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hc_cma_probe: what single copy (process_vm_readv, CMA) costs on this
 * machine, for the node level's model (hc_cost shm --long; the inputs
 * --sys-ns, --page-ns, --pin-ns).  A target process (fork) holds a buffer
 * and sleeps; the probe reads it:
 *
 *   syscall   one process_vm_readv of 8 bytes: the call's fixed cost
 *   page      a read of S bytes against memcpy of the same S bytes out of
 *             a shared mapping the target touched: (t_cma - t_copy -
 *             syscall) / pages, the page walk and pinning per 4 KiB page
 *   contention (--readers 2, two cores for the readers) two readers read
 *             the same S bytes at once, against the same two reading
 *             disjoint halves of 2 S: the extra time per page a second
 *             reader of the same pages costs (each read pins and unpins
 *             every page: two atomic updates of its reference count that
 *             the readers take in turn)
 *
 * Each figure is the median of --trials trials, alternating the forms.
 *
 *   hc_cma_probe [--sizes 4K,64K,1M,8M] [--trials T] [--cpus A,B] [--readers 1|2]
 *
 * --cpus binds the first reader to A and the second (and the target) to B.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    volatile uint64_t addr; /* the target's buffer */
    volatile int quit;
    volatile uint64_t go, ready; /* the two readers' start */
    volatile uint64_t size, off;
    volatile double t2;          /* the second reader's time */
} ctl_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void pin(int cpu)
{
    if (cpu < 0) {
        return;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    (void) sched_setaffinity(0, sizeof(set), &set);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t) n, sizeof(*v), cmp);
    return v[n / 2];
}

static int cma(pid_t pid, void *to, uint64_t from, size_t len)
{
    while (len > 0) {
        struct iovec l = {to, len}, r = {(void *) (uintptr_t) from, len};
        ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got <= 0) {
            if (got < 0 && EINTR == errno) {
                continue;
            }
            return -1;
        }
        to = (char *) to + got;
        from += (uint64_t) got;
        len -= (size_t) got;
    }
    return 0;
}

static size_t parse_size(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    switch (*e) {
    case 'k': case 'K': v *= 1024; break;
    case 'm': case 'M': v *= 1024 * 1024; break;
    default: break;
    }
    return (size_t) v;
}

int main(int argc, char **argv)
{
    size_t sizes[32];
    int nsz = 0, trials = 21, cpu[2] = {-1, -1}, readers = 1;
    const char *list = "4K,16K,64K,256K,1M,4M,8M";
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--sizes") && i + 1 < argc) {
            list = argv[++i];
        } else if (0 == strcmp(argv[i], "--trials") && i + 1 < argc) {
            trials = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--cpus") && i + 1 < argc) {
            if (2 != sscanf(argv[++i], "%d,%d", &cpu[0], &cpu[1])) {
                fprintf(stderr, "hc_cma_probe: --cpus A,B\n");
                return 2;
            }
        } else if (0 == strcmp(argv[i], "--readers") && i + 1 < argc) {
            readers = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: hc_cma_probe [--sizes 4K,64K,1M] [--trials T] [--cpus A,B] "
                            "[--readers 1|2]\n");
            return 2;
        }
    }
    char *copy = strdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && nsz < 32; t = strtok_r(NULL, ",", &save)) {
        sizes[nsz++] = parse_size(t);
    }
    free(copy);
    if (trials < 3 || readers < 1 || readers > 2 || 0 == nsz) {
        fprintf(stderr, "hc_cma_probe: --trials >= 3, --readers 1 or 2, some --sizes\n");
        return 2;
    }
    size_t most = 0;
    for (int i = 0; i < nsz; ++i) {
        most = sizes[i] > most ? sizes[i] : most;
    }
    most = (most + 4095) & ~(size_t) 4095;
    ctl_t *ctl = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* the shared copy source: the target touches it, the probe copies it */
    char *shared = mmap(NULL, most, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (MAP_FAILED == ctl || MAP_FAILED == shared) {
        perror("hc_cma_probe: mmap");
        return 1;
    }
    pid_t target = fork();
    if (0 == target) {
        pin(cpu[1]);
#if defined(PR_SET_PTRACER) && defined(PR_SET_PTRACER_ANY)
        (void) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* (the second reader) */
#endif
        char *buf = aligned_alloc(4096, 2 * most);
        memset(buf, 1, 2 * most);
        memset(shared, 1, most);
        __atomic_store_n(&ctl->addr, (uint64_t) (uintptr_t) buf, __ATOMIC_RELEASE);
        while (!ctl->quit) {
            usleep(1000); /* (asleep: the readers have the cores) */
        }
        _exit(0);
    }
    pin(cpu[0]);
    while (0 == __atomic_load_n(&ctl->addr, __ATOMIC_ACQUIRE)) {
        usleep(100);
    }
    uint64_t at = ctl->addr;
    char *mine = aligned_alloc(4096, most);
    memset(mine, 0, most);
    double *v = malloc(sizeof(double) * (size_t) trials * 2);
    char b8[8];
    /* the call's fixed cost */
    int reps = 2000;
    for (int t = 0; t < trials; ++t) {
        double a = now();
        for (int i = 0; i < reps; ++i) {
            if (0 != cma(target, b8, at, sizeof(b8))) {
                perror("hc_cma_probe: process_vm_readv");
                ctl->quit = 1;
                return 1;
            }
        }
        v[t] = (now() - a) / reps;
    }
    double sys = median(v, trials);
    printf("# hc_cma_probe: process_vm_readv of 8 bytes: %.3f us a call (median of %d trials)\n",
           sys * 1e6, trials);
    printf("%10s %12s %12s %12s %14s\n", "bytes", "cma_us", "memcpy_us", "cma_GB/s",
           "page_us_extra");
    double pagesum = 0, copygbs = 0;
    int pagen = 0;
    for (int s = 0; s < nsz; ++s) {
        size_t S = sizes[s];
        int it = S < 65536 ? 200 : S < 1048576 ? 20 : 4;
        double *vc = v, *vm = v + trials;
        for (int t = 0; t < trials; ++t) { /* (alternating) */
            double a = now();
            for (int i = 0; i < it; ++i) {
                (void) cma(target, mine, at, S);
            }
            vc[t] = (now() - a) / it;
            a = now();
            for (int i = 0; i < it; ++i) {
                memcpy(mine, shared, S);
                __asm__ volatile("" ::: "memory");
            }
            vm[t] = (now() - a) / it;
        }
        double tc = median(vc, trials), tm = median(vm, trials);
        double pages = (double) ((S + 4095) / 4096);
        double extra = (tc - tm - sys) / pages;
        printf("%10zu %12.3f %12.3f %12.2f %14.4f\n", S, tc * 1e6, tm * 1e6, S / tc / 1e9,
               extra * 1e6);
        if (S >= 65536) {
            pagesum += extra;
            copygbs += S / tm / 1e9;
            ++pagen;
        }
    }
    double page = pagen ? pagesum / pagen : 0;
    printf("# calibration: syscall %.0f ns, page %.0f ns beyond the copy (mean from 64 KiB), "
           "memcpy %.1f GB/s\n", sys * 1e9, page * 1e9, pagen ? copygbs / pagen : 0);
    if (2 == readers) {
        /* two readers at once: the same pages, then disjoint ones */
        pid_t second = fork();
        if (0 == second) {
            pin(cpu[1]);
            char *m2 = aligned_alloc(4096, most);
            memset(m2, 0, most);
            uint64_t seen = 0;
            for (;;) {
                uint64_t g;
                while ((g = __atomic_load_n(&ctl->go, __ATOMIC_ACQUIRE)) == seen) {
                    if (ctl->quit) {
                        _exit(0);
                    }
                }
                seen = g;
                size_t S = (size_t) ctl->size, off = (size_t) ctl->off;
                __atomic_add_fetch(&ctl->ready, 1, __ATOMIC_ACQ_REL);
                double a = now();
                (void) cma(target, m2, at + off, S);
                ctl->t2 = now() - a;
                __atomic_add_fetch(&ctl->ready, 1, __ATOMIC_ACQ_REL);
            }
        }
        printf("%10s %14s %14s %20s\n", "bytes", "same_us", "disjoint_us", "contention_us/page");
        double csum = 0;
        int cn = 0;
        uint64_t round = 0;
        for (int s = 0; s < nsz; ++s) {
            size_t S = sizes[s];
            if (S < 65536) {
                continue;
            }
            double *vs = v, *vd = v + trials;
            for (int t = 0; t < 2 * trials; ++t) {
                int disjoint = t & 1;
                uint64_t r0 = ctl->ready;
                ctl->size = S;
                ctl->off = disjoint ? S : 0;
                __atomic_store_n(&ctl->go, ++round, __ATOMIC_RELEASE);
                while (ctl->ready < r0 + 1) {
                }
                double a = now();
                (void) cma(target, mine, at, S);
                double t1 = now() - a;
                while (ctl->ready < r0 + 2) {
                }
                double tt = t1 > ctl->t2 ? t1 : ctl->t2;
                (disjoint ? vd : vs)[t / 2] = tt;
            }
            double ts = median(vs, trials), td = median(vd, trials);
            double pages = (double) (S / 4096);
            printf("%10zu %14.3f %14.3f %20.4f\n", S, ts * 1e6, td * 1e6,
                   (ts - td) / pages * 1e6);
            csum += (ts - td) / pages;
            ++cn;
        }
        printf("# contention: a second reader of the same pages costs %.0f ns a page more\n",
               cn ? csum / cn * 1e9 : 0);
        ctl->quit = 1;
        waitpid(second, NULL, 0);
    }
    ctl->quit = 1;
    waitpid(target, NULL, 0);
    return 0;
}
