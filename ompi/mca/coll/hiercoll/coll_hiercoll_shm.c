/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * The shared-memory node level: barrier, bcast, reduce, allreduce,
 * allgather(v), gather(v), scatter(v) and reduce_scatter(_block) of a
 * communicator whose processes share a node, through shared memory.
 *
 * MEMORY.  Each process that uses the level creates ONE arena: a file in
 * coll_hiercoll_shm_backing (default /dev/shm), O_CREAT|O_EXCL, mode 0600,
 * a name with 64 random bits, reserved whole with posix_fallocate (ENOSPC
 * then, never SIGBUS later) and unlinked at once: no name ever stays in
 * the file system, whatever happens to the process.  Peers open it through
 * /proc/<pid>/fd/<fd>, which the kernel allows only to processes that may
 * ptrace the owner (same user, same job in practice).  A communicator's
 * REGION is carved from the arena of one member, the owner (the most free
 * space, ties to the lowest rank), so files and mappings are bounded by
 * the number of processes on the node, not by the number of communicators.
 * The owner reclaims a region once every member has left it (a counter in
 * the region's header).
 *
 * ADMISSION AND AGREEMENT.  Under auto a communicator's first
 * coll_hiercoll_shm_min_calls eligible calls run elsewhere (short-lived
 * communicators never allocate); the next one sets up, collectively,
 * through the layer below: allgather of (pid, fd, free bytes), the owner
 * allocates and broadcasts where, everyone maps and checks a cookie, and
 * an allreduce(MIN) of every rank's success decides for all: on failure
 * every rank falls back, with one verbose line.  A fault can be injected
 * on one rank at each step (coll_hiercoll_shm_fault).
 *
 * SYNCHRONIZATION.  A region has CHANNELS: channel 0 carries blocking and
 * nonblocking calls, one channel per persistent request (in init order;
 * never reused after a free: no rank knows when the others free theirs).
 * A channel numbers its operations with a 64-bit sequence s (every rank
 * counts alike); operation s uses slot s mod K.  Each rank writes only
 * its own lines, 128 bytes apart: flag[slot][rank] {seq, inline data} and
 * done[rank] (the last operation it finished reading).  Flags carry
 * FV(s, phase) = 4 s + phase, stored with release and read with acquire,
 * compared with >= (never equality, never 32 bits).  Before a rank writes
 * slot k for operation s it checks that every rank is done with s - K
 * (a cached minimum, rarely re-read), so writers run up to K operations
 * ahead of slow readers, and a bcast root returns without waiting.
 * HOT ROWS.  A flat region's barriers and allreduces in the line, which
 * no rank finishes before it has read every rank's line, are numbered by
 * a count of their own (hseq) and use HC_SHM_HOT rows of their own: a
 * rank writes hot row h mod HC_SHM_HOT again for h + HC_SHM_HOT only
 * after it has read every rank's line of h + 1, which each rank wrote
 * once it had finished h, so they need no slot check and no done line.
 * Placement gives them the fastest rows, and a few rows, each reused
 * every few calls, crossed faster than 64 (np 2, a loop of barriers:
 * 0.110-0.116 us against 0.118-0.124).
 *
 * DATA PATHS.  Inline in the flag line (<= HC_SHM_INLINE bytes); cells of
 * C bytes per (slot, rank) plus a result cell per slot; messages longer
 * than a cell are pipelined in chunks, one sequence number per chunk
 * (gatherv, scatterv: the root sends the count in its first line, and the
 * non-roots take the rest of their numbers then, run_vmove).
 * Reductions fold in MPI rank order (acc = x[n-1]; acc = x[i] op acc for
 * i = n-2..0), so non-commutative user ops are exact and every result is
 * bitwise the same on every rank and every run: small vectors are folded
 * by every rank (allreduce) or the root (reduce) from the published
 * copies; longer ones slice-parallel (each rank folds its slice of every
 * rank's chunk into the result cell, then everyone copies the chunk out).
 * A bcast with a non-contiguous datatype packs and unpacks with the
 * convertor per chunk (ranks may use different datatypes of one
 * signature); reductions take contiguous datatypes.  Single copy (CMA,
 * from coll_hiercoll_shm_cma_min): a bcast's readers read the root's
 * buffer, and from 32 KiB the root writes one n-th into each reader
 * meanwhile; a reduction's ranks fold their slices from every input.
 * A fold takes its own rank's part from its input, never from the line it
 * has just published (that read waits for the line's ownership), and a
 * reader that runs behind its writer prefetches the writer's next lines.
 *
 * WAITING.  coll_hiercoll_shm_spin polls with `pause`, then Open MPI's
 * progress at every poll, and sched_yield when the node is oversubscribed
 * or mpi_yield_when_idle is set; coll_hiercoll_shm_watchdog seconds of
 * waiting print which rank, line and value a wait is stuck on.
 *
 * STATE MACHINES.  Every operation is start + progress (returns when it
 * would wait): blocking = start, then progress and wait until done;
 * nonblocking = a request the progress callback advances; persistent = a
 * request restarted on its own channel.  A channel runs its operations in
 * order (a FIFO), so one rank never interleaves two operations' lines.
 * A short blocking barrier, bcast or reduce on an idle channel may go
 * straight at the lines (lean(), from the fast path), writing what the
 * engine would.
 */
#include "ompi_config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/random.h>
#endif

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/proc/proc.h"
#include "ompi/runtime/mpiruntime.h"
#include "opal/datatype/opal_convertor.h"
#include "opal/mca/hwloc/hwloc-internal.h"
#include "opal/runtime/opal_progress.h"

#include "coll_hiercoll.h"
#include "coll_hiercoll_exec.h"
#include "coll_hiercoll_hooks.h"
#include "coll_hiercoll_shm.h"

#define HC_SHM_LINE 128
/* Hot rows: a channel's flat barriers and allreduces in the line (every
 * rank reads every line) have HC_SHM_HOT rows of their own, numbered
 * apart (see SYNCHRONIZATION). */
#define HC_SHM_HOT 4
#define HC_SHM_INLINE (HC_SHM_LINE - 16)
#define HC_SHM_MAGIC 0x68635f73686d3031ull /* "hc_shm01" */
#define HC_SHM_MAXCH 17                    /* channel 0 + up to 16 persistent */
#define FV(s, ph) (((uint64_t) (s) << 2) | (uint64_t) (ph))

typedef struct hc_line {
    uint64_t seq;
    uint64_t aux;
    unsigned char data[HC_SHM_INLINE];
} __attribute__((aligned(HC_SHM_LINE))) hc_line_t;

typedef struct hc_shm_hdr {
    uint64_t magic;
    uint64_t cookie;   /* random, sent with the region's offset */
    uint64_t detached; /* members that left (atomic); the owner reclaims at n */
    uint32_t n, k, nch, place;
    uint64_t cell, size;
    uint64_t stop; /* place_rows past its time: 1 + the exchange every rank stops after */
} __attribute__((aligned(HC_SHM_LINE))) hc_shm_hdr_t;

static inline uint64_t ld_acq(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void st_rel(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

/* ------------------------------------------------------------------ */
/* Per-process state: the arena, peers' mappings, pending regions       */
/* ------------------------------------------------------------------ */

typedef struct { size_t off, len; } hc_ext_t;
typedef struct { pid_t pid; int fd; char *base; size_t size; int refs; } hc_map_t;
typedef struct { size_t off, len; } hc_pend_t;

static struct {
    bool tried, ok;
    int fd;
    char *base;
    size_t size;
    hc_ext_t *free; /* sorted by offset, coalesced */
    int nfree, capfree;
    hc_pend_t *pend; /* regions whose members may still be inside */
    int npend, cappend;
    hc_map_t *maps;
    int nmaps, capmaps;
    /* progress: channels with queued operations */
    struct hc_shm_chan **busy;
    int nbusy, capbusy;
    bool progress_registered;
    bool in_progress;
    int ncpus;
} g = {.fd = -1};

static int world_rank(void)
{
    return ompi_comm_rank(&ompi_mpi_comm_world.comm);
}

/* coll_hiercoll_shm_fault: "STEP:RANK" (world rank) fails that step. */
static bool fault(const char *step)
{
    const char *f = mca_coll_hiercoll_params.shm_fault;
    if (NULL == f || '\0' == *f) {
        return false;
    }
    size_t n = strlen(step);
    if (0 != strncmp(f, step, n) || ':' != f[n]) {
        return false;
    }
    return atoi(f + n + 1) == world_rank();
}

static uint64_t random64(void)
{
    uint64_t v = 0;
#if defined(__linux__)
    if (sizeof(v) == getrandom(&v, sizeof(v), GRND_NONBLOCK)) {
        return v;
    }
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t) ts.tv_nsec << 20) ^ (uint64_t) ts.tv_sec ^ ((uint64_t) getpid() << 40)
           ^ (uintptr_t) &v;
}

static void arena_create(void)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    g.tried = true;
    size_t size = c->shm_arena_size;
    char path[4096];
    int fd = -1;
    int err = 0;
    const char *step = "create";
    if (fault("create")) {
        err = EACCES;
    } else {
        for (int tries = 0; tries < 8 && fd < 0; ++tries) {
            snprintf(path, sizeof(path), "%s/hc.%u.%d.%016llx", c->shm_backing, (unsigned) getuid(),
                     (int) getpid(), (unsigned long long) random64());
            fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
            err = fd < 0 ? errno : 0;
            if (fd < 0 && EEXIST != err) {
                break;
            }
        }
    }
    if (fd >= 0) {
        step = "reserve";
        err = fault("reserve") ? ENOSPC : posix_fallocate(fd, 0, (off_t) size);
        (void) unlink(path); /* no name stays behind, whatever happens next */
        if (0 == err) {
            step = "map";
            void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
            if (MAP_FAILED == p) {
                err = errno;
            } else {
#ifdef MADV_DONTFORK
                (void) madvise(p, size, MADV_DONTFORK);
#endif
                g.base = p;
            }
        }
        if (0 != err) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        mca_coll_hiercoll_log(1, "shm: no arena on world rank %d (%s %s/hc.*: %s); this process "
                              "owns no region (it may still use others')",
                              world_rank(), step, c->shm_backing, strerror(err));
        return;
    }
    g.fd = fd;
    g.size = size;
    g.ok = true;
    g.free = malloc(sizeof(*g.free) * 8);
    if (NULL == g.free) {
        g.ok = false;
        return;
    }
    g.capfree = 8;
    g.nfree = 1;
    g.free[0] = (hc_ext_t){0, size};
}

/* Regions whose members have all left go back to the free list. */
static void arena_put(size_t off, size_t len)
{
    int i = 0;
    while (i < g.nfree && g.free[i].off < off) {
        ++i;
    }
    if (g.nfree == g.capfree) {
        hc_ext_t *f = realloc(g.free, sizeof(*f) * (size_t) g.capfree * 2);
        if (NULL == f) {
            return; /* leaks the extent; never corrupts */
        }
        g.free = f;
        g.capfree *= 2;
    }
    memmove(&g.free[i + 1], &g.free[i], sizeof(*g.free) * (size_t) (g.nfree - i));
    g.free[i] = (hc_ext_t){off, len};
    g.nfree++;
    if (i + 1 < g.nfree && g.free[i].off + g.free[i].len == g.free[i + 1].off) {
        g.free[i].len += g.free[i + 1].len;
        memmove(&g.free[i + 1], &g.free[i + 2], sizeof(*g.free) * (size_t) (g.nfree - i - 2));
        g.nfree--;
    }
    if (i > 0 && g.free[i - 1].off + g.free[i - 1].len == g.free[i].off) {
        g.free[i - 1].len += g.free[i].len;
        memmove(&g.free[i], &g.free[i + 1], sizeof(*g.free) * (size_t) (g.nfree - i - 1));
        g.nfree--;
    }
}

static void arena_reclaim(void)
{
    for (int i = 0; i < g.npend;) {
        hc_shm_hdr_t *h = (hc_shm_hdr_t *) (g.base + g.pend[i].off);
        if (ld_acq(&h->detached) >= h->n) {
            h->magic = 0;
            arena_put(g.pend[i].off, g.pend[i].len);
            g.pend[i] = g.pend[--g.npend];
        } else {
            ++i;
        }
    }
}

static size_t arena_largest(void)
{
    if (!g.ok) {
        return 0;
    }
    arena_reclaim();
    size_t best = 0;
    for (int i = 0; i < g.nfree; ++i) {
        best = g.free[i].len > best ? g.free[i].len : best;
    }
    return best;
}

/* First fit; returns the offset or (size_t) -1. */
static size_t arena_get(size_t len)
{
    arena_reclaim();
    for (int i = 0; i < g.nfree; ++i) {
        if (g.free[i].len >= len) {
            size_t off = g.free[i].off;
            g.free[i].off += len;
            g.free[i].len -= len;
            if (0 == g.free[i].len) {
                memmove(&g.free[i], &g.free[i + 1], sizeof(*g.free) * (size_t) (g.nfree - i - 1));
                g.nfree--;
            }
            return off;
        }
    }
    return (size_t) -1;
}

static void arena_pending(size_t off, size_t len)
{
    if (g.npend == g.cappend) {
        int cap = g.cappend ? 2 * g.cappend : 8;
        hc_pend_t *p = realloc(g.pend, sizeof(*p) * (size_t) cap);
        if (NULL == p) {
            return;
        }
        g.pend = p;
        g.cappend = cap;
    }
    g.pend[g.npend++] = (hc_pend_t){off, len};
    arena_reclaim();
}

/* A peer's arena, mapped once per process and counted. */
static char *map_peer(pid_t pid, int fd, size_t *size)
{
    if (pid == getpid()) {
        *size = g.size;
        return g.ok ? g.base : NULL;
    }
    for (int i = 0; i < g.nmaps; ++i) {
        if (g.maps[i].pid == pid && g.maps[i].fd == fd) {
            g.maps[i].refs++;
            *size = g.maps[i].size;
            return g.maps[i].base;
        }
    }
    if (fault("attach")) {
        return NULL;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int) pid, fd);
    int pfd = open(path, O_RDWR | O_CLOEXEC);
    if (pfd < 0) {
        mca_coll_hiercoll_log(1, "shm: world rank %d cannot open %s: %s", world_rank(), path,
                              strerror(errno));
        return NULL;
    }
    struct stat st;
    char *p = MAP_FAILED;
    if (0 == fstat(pfd, &st) && st.st_size > 0 && st.st_uid == getuid()) {
        p = mmap(NULL, (size_t) st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
    }
    close(pfd); /* the mapping keeps the file */
    if (MAP_FAILED == p) {
        return NULL;
    }
#ifdef MADV_DONTFORK
    (void) madvise(p, (size_t) st.st_size, MADV_DONTFORK);
#endif
    if (g.nmaps == g.capmaps) {
        int cap = g.capmaps ? 2 * g.capmaps : 8;
        hc_map_t *m = realloc(g.maps, sizeof(*m) * (size_t) cap);
        if (NULL == m) {
            munmap(p, (size_t) st.st_size);
            return NULL;
        }
        g.maps = m;
        g.capmaps = cap;
    }
    g.maps[g.nmaps++] = (hc_map_t){pid, fd, p, (size_t) st.st_size, 1};
    *size = (size_t) st.st_size;
    return p;
}

/* A peer's arena no region of ours uses any more stays mapped for the
 * next (a communicator made and freed again and again: mapping, first
 * touches and unmapping with its TLB flush took about 10 of the 17 us of
 * a set-up at np 2), at most HC_IDLE_MAPS of them (the number of
 * processes on the node bounds them anyway, unless processes come and
 * go); drop: unmap it now (its header did not check out). */
#define HC_IDLE_MAPS 16
static void unmap_peer(char *base, bool drop)
{
    int idle = 0;
    for (int i = 0; i < g.nmaps; ++i) {
        idle += 0 == g.maps[i].refs;
    }
    for (int i = 0; i < g.nmaps; ++i) {
        if (g.maps[i].base == base && 0 == --g.maps[i].refs && (drop || idle >= HC_IDLE_MAPS)) {
            munmap(base, g.maps[i].size);
            g.maps[i] = g.maps[--g.nmaps];
            return;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Per-communicator state                                               */
/* ------------------------------------------------------------------ */

typedef struct hc_shm_op hc_shm_op_t;
typedef struct hc_shm_chan {
    struct hc_shm *s;
    hc_line_t **row; /* [kf]: slot i's n flag lines (see place_rows) */
    hc_line_t **hot; /* [HC_SHM_HOT] (row + kf): the hot rows (flat regions) */
    uint64_t mask;   /* kf - 1 */
    hc_line_t *flag; /* [rows][n]: kf + hot_of rows, channel 0's x place */
    hc_line_t *done; /* [n] */
    char *cells;     /* [K][n] cells */
    char *res;       /* [K] result cells */
    uint64_t seq;      /* next operation's sequence number */
    uint64_t hseq;     /* next hot operation's (its own count) */
    uint64_t done_min; /* every rank is done with operations before this + 1 */
    hc_shm_op_t *head, *tail;
    bool busy; /* in g.busy */
} hc_shm_chan_t;

enum { HC_SHM_UNSET = 0, HC_SHM_READY = 1, HC_SHM_FAILED = -1, HC_SHM_NEVER = -2 };

typedef struct hc_shm {
    int state;
    int n, me;
    int calls; /* eligible calls before admission (auto) */
    int k, kf; /* slots of cells, of flag lines (kf a power of two) */
    int place;   /* channel 0's candidate rows per flag slot (place_rows) */
    hc_line_t **rows; /* [nch][kf + HC_SHM_HOT] the channels' row tables */
    size_t cell;
    int nch, npers;
    /* Persistent channels given back (bit c - 1: channel c; see
     * agree_freed): whose request this process has freed; what it
     * offered in its last agreeing call; freed on every rank (agreed);
     * inits that took one back */
    uint32_t pfreed, poffered, pagreed;
    int ptaken;
    char *map;   /* the owner's arena as mapped here */
    hc_shm_hdr_t *hdr;
    bool owner;
    size_t off, len;
    bool yield;
    bool cma;   /* every rank may read every other's memory (probed, agreed) */
    bool demote; /* publish() demotes its line (coll_hiercoll_shm_demote, info key) */
    bool lean;   /* short blocking calls may go straight (lean(); coll_hiercoll_shm_lean) */
    bool flat;   /* no groups (n <= coll_hiercoll_shm_group_size) */
    bool part;  /* a decomposition's part (mca_coll_hiercoll_shm_prepare) */
    pid_t *pids;
    int *lead;    /* [n] the first rank of each rank's group (grouped algorithms) */
    int *leaders; /* [ngroups] the groups' first ranks, ascending */
    int ngroups;
    ompi_communicator_t *comm;
    hc_shm_chan_t ch[HC_SHM_MAXCH];
    /* PLACEMENT DEFERRED: the hot number from which its agreeing calls
     * offer the timing (UINT64_MAX: none), every rank's offer seen (time
     * the rows after this call), its place (memo_key) */
    uint64_t pwant;
    bool pnow;
    uint64_t pkey;
    mca_coll_hiercoll_module_t *module; /* (place_later's calls of the layer below) */
} hc_shm_t;

/* Operation s's flag line of rank r (kf slots of flag lines), its cell
 * and its result cell (k slots of cells). */
static inline hc_line_t *flag_of(hc_shm_chan_t *ch, uint64_t s, int r)
{
    return ch->row[s & ch->mask] + r;
}
static inline char *cell_of(hc_shm_chan_t *ch, uint64_t s, int r)
{
    return ch->cells
           + ((size_t) (s % (uint64_t) ch->s->k) * (size_t) ch->s->n + (size_t) r) * ch->s->cell;
}
static inline char *res_of(hc_shm_chan_t *ch, uint64_t s)
{
    return ch->res + (size_t) (s % (uint64_t) ch->s->k) * ch->s->cell;
}

static size_t chan_bytes(int n, int rows, int k, size_t cell)
{
    return (size_t) rows * n * HC_SHM_LINE + (size_t) n * HC_SHM_LINE + (size_t) k * n * cell
           + (size_t) k * cell;
}

/* Rows of flag lines of channel i (channel 0 has place candidates per
 * slot) and the region's bytes. */
static int hot_of(const hc_shm_t *s) /* (groups: no operation is hot, see op_ring) */
{
    return s->flat ? HC_SHM_HOT : 0;
}
static int rows_of(const hc_shm_t *s, int i)
{
    return (s->kf + hot_of(s)) * (0 == i ? s->place : 1);
}

static size_t region_bytes(const hc_shm_t *s)
{
    size_t len = sizeof(hc_shm_hdr_t);
    for (int i = 0; i < s->nch; ++i) {
        len += chan_bytes(s->n, rows_of(s, i), s->k, s->cell);
    }
    return (len + 4095) & ~(size_t) 4095;
}

/* Flag-line slots: as many as small back-to-back calls use to run ahead
 * (a bcast root, a reduce's non-roots) within about 2048 lines a channel,
 * never fewer than the cell slots; a power of two (a mask, not a
 * division, finds a line: it is on every poll). */
static int flag_slots(int n, int k)
{
    int kf = 2048 / n;
    kf = kf > 64 ? 64 : kf;
    int p = 1;
    while (p < k || 2 * p <= kf) {
        p *= 2;
    }
    return p;
}

static size_t cell_for(int n, int k)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    size_t cell = c->shm_cell_size;
    size_t cap = c->shm_chan_bytes / ((size_t) k * (size_t) (n + 1));
    if (cell > cap) {
        cell = cap;
    }
    cell &= ~(size_t) (HC_SHM_LINE - 1);
    return cell < 1024 ? 1024 : cell;
}

static void lay_out(hc_shm_t *s, char *region)
{
    char *p = region + sizeof(hc_shm_hdr_t);
    for (int i = 0; i < s->nch; ++i) {
        hc_shm_chan_t *ch = &s->ch[i];
        memset(ch, 0, sizeof(*ch));
        ch->s = s;
        ch->flag = (hc_line_t *) p;
        ch->row = s->rows + (size_t) i * (size_t) (s->kf + HC_SHM_HOT);
        ch->hot = ch->row + s->kf;
        ch->mask = (uint64_t) s->kf - 1;
        for (int j = 0; j < s->kf + HC_SHM_HOT; ++j) { /* (place_rows may choose others) */
            ch->row[j] = j < s->kf + hot_of(s) ? ch->flag + (size_t) j * s->n : NULL;
        }
        ch->done = ch->flag + (size_t) rows_of(s, i) * s->n;
        ch->cells = (char *) (ch->done + s->n);
        ch->res = ch->cells + (size_t) s->k * s->n * s->cell;
        ch->seq = ch->hseq = 1; /* flags and done lines start at 0: "nothing yet" */
        ch->done_min = 0;
        p += chan_bytes(s->n, rows_of(s, i), s->k, s->cell);
    }
}

/* A new region's header, flag and done lines zeroed, "nothing yet", as
 * lay_out finds them (the cells are written before they are read;
 * zeroing the whole region, 460 KiB at np 2, took 5-7 us of each set-up;
 * the arena's pages were allocated by posix_fallocate). */
static void zero_control(hc_shm_t *s, char *region)
{
    memset(region, 0, sizeof(hc_shm_hdr_t));
    lay_out(s, region);
    for (int i = 0; i < s->nch; ++i) {
        memset(s->ch[i].flag, 0, (size_t) ((char *) s->ch[i].cells - (char *) s->ch[i].flag));
    }
}

/* Waits yield the core?  Asked when the level is set up and when auto
 * chooses, not once at the module's enable: MPI_COMM_WORLD's comes before
 * MPI_Init sets mpi_yield_when_idle. */
static inline bool oversubscribed(const hc_shm_t *sh)
{
    return opal_progress_yield_when_idle || sh->n > g.ncpus;
}

/* Polls of a wait before Open MPI's progress and yield. */
static uint32_t spin_of(const hc_shm_t *sh)
{
    uint32_t spin = (uint32_t) mca_coll_hiercoll_params.shm_spin;
    /* oversubscribed, the rank we wait for may need this core: spin less */
    return sh->yield ? spin / 32 + 1 : spin;
}

static bool all_local(ompi_communicator_t *comm)
{
    int n = ompi_comm_size(comm), me = ompi_comm_rank(comm);
    for (int r = 0; r < n; ++r) {
        if (r == me) {
            continue;
        }
        ompi_proc_t *p = ompi_comm_peer_lookup(comm, r);
        if (NULL == p || !OPAL_PROC_ON_LOCAL_NODE(p->super.proc_flags)) {
            return false;
        }
    }
    return true;
}

void mca_coll_hiercoll_shm_enable(mca_coll_hiercoll_module_t *m, ompi_communicator_t *comm)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    m->shm = NULL;
    /* (MPI_THREAD_MULTIPLE: the per-process state, arena and progress
     * list, has no lock; MPICH's release_gather stays off there too) */
    if (!c->shm_enable || ompi_mpi_thread_multiple || OMPI_COMM_IS_INTER(comm)
        || ompi_comm_size(comm) < 2 || !all_local(comm)) {
        return;
    }
    hc_shm_t *s = calloc(1, sizeof(*s));
    if (NULL == s) {
        return;
    }
    s->n = ompi_comm_size(comm);
    s->me = ompi_comm_rank(comm);
    s->comm = comm; /* not retained: the module lives as long */
    s->module = m;
    if (0 == g.ncpus) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        g.ncpus = n > 0 ? (int) n : 1;
    }
    m->shm = s; /* (yield: set_up) */
}

static void region_leave(hc_shm_t *s)
{
    if (HC_SHM_READY != s->state) {
        return;
    }
    __atomic_fetch_add(&s->hdr->detached, 1, __ATOMIC_ACQ_REL);
    if (s->owner) {
        arena_pending(s->off, s->len);
    } else {
        unmap_peer(s->map, false);
    }
    s->state = HC_SHM_NEVER;
}

void mca_coll_hiercoll_shm_free(mca_coll_hiercoll_module_t *m)
{
    hc_shm_t *s = m->shm;
    if (NULL == s) {
        return;
    }
    /* (requests keep the module: its channels are idle, but a blocking
     * wait may have emptied one that the progress list still holds) */
    for (int i = 0; i < g.nbusy;) {
        if (g.busy[i]->s == s) {
            g.busy[i] = g.busy[--g.nbusy];
        } else {
            ++i;
        }
    }
    region_leave(s);
    free(s->pids);
    free(s->rows);
    free(s->lead);
    free(s->leaders);
    free(s);
    m->shm = NULL;
}

void mca_coll_hiercoll_shm_fini(void)
{
    for (int i = 0; i < g.nmaps; ++i) {
        munmap(g.maps[i].base, g.maps[i].size);
    }
    free(g.maps);
    if (g.ok) {
        munmap(g.base, g.size);
        close(g.fd);
    }
    free(g.free);
    free(g.pend);
    free(g.busy);
    memset(&g, 0, sizeof(g));
    g.fd = -1;
}

/* ------------------------------------------------------------------ */
/* Set-up: collective, agreed through the layer below                   */
/* ------------------------------------------------------------------ */

typedef struct {
    int64_t pid, fd, free;
    uint64_t cookie_at; /* the CMA probe: where this process keeps `cma_cookie` */
    int64_t key;        /* my group key (coll_hiercoll_shm_group_level, my_key) */
} hc_shm_peer_t;

/* My key for hardware level `by` (an hcp_level_t) on comm: the lowest
 * rank that shares my object of that level (Open MPI's locality of each
 * peer, from the bindings; an unbound process shares none with another).
 * Allgathered, the keys are the same table on every rank. */
static int64_t my_key(ompi_communicator_t *comm, int by)
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
static bool group_ranks(hc_shm_t *s, const hc_shm_peer_t *peers, char *how, size_t howlen)
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

/* What a peer reads with process_vm_readv at set-up (the CMA probe). */
static uint64_t cma_cookie;

/* len bytes between `local` here and `remote` in process pid (CMA): read
 * (remote to local) or written (local to remote); 0 or an errno. */
static int cma_move(pid_t pid, void *local, uint64_t remote, size_t len, bool write)
{
    while (len > 0) {
        struct iovec l = {.iov_base = local, .iov_len = len};
        struct iovec r = {.iov_base = (void *) (uintptr_t) remote, .iov_len = len};
        ssize_t moved = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                              : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (moved < 0) {
            if (EINTR == errno) {
                continue;
            }
            return errno;
        }
        if (0 == moved) {
            return EFAULT;
        }
        local = (char *) local + moved;
        remote += (uint64_t) moved;
        len -= (size_t) moved;
    }
    return 0;
}

static int cma_read(pid_t pid, void *to, uint64_t from, size_t len)
{
    return cma_move(pid, to, from, len, false);
}

/* May my right neighbour read me, and I my left?  A real read of the
 * neighbour's cookie (ptrace rules, seccomp, namespaces all show here). */
static int cma_probe(const hc_shm_peer_t *peers, int n, int me)
{
    if (fault("cma")) {
        return 0;
    }
    int q = (me + 1) % n;
    uint64_t v = 0;
    int err = cma_read((pid_t) peers[q].pid, &v, peers[q].cookie_at, sizeof(v));
    if (0 != err) {
        mca_coll_hiercoll_log(1, "shm: world rank %d cannot read pid %d with process_vm_readv: "
                              "%s; no single copy", world_rank(), (int) peers[q].pid,
                              strerror(err));
        return 0;
    }
    return v == (HC_SHM_MAGIC ^ (uint64_t) peers[q].pid) ? 1 : 0;
}

/* Flag-line placement.  The time a line takes to cross between two cores
 * depends on its address (on a mesh, on the last-level cache slice that
 * homes it): on this project's VM, two processes exchanging a pair of
 * lines took 0.105 to 0.152 us by the lines' address, the same within a
 * process run after run.  Channel 0 (the blocking and nonblocking calls)
 * has `place` candidate rows of flag lines for each of its kf slots.  Every
 * rank times a short exchange on each row (a barrier's pattern: write my
 * line, wait for the others'), the slowest rank's time per row is agreed
 * (the layer below's allreduce), and every rank keeps the same kf fastest
 * rows, in address order.  The exchange writes 1, 2, 3 in turn and a rank
 * waits until the others' lines no longer hold the value before (none
 * runs more than one exchange ahead), so the lines end below FV(1, 0),
 * which the engine reads as "nothing yet" whatever its numbers.
 * The timing (1.2 ms at np 2) waits until a communicator has shown it
 * lives long (place_later): it gains 0.01-0.02 us a call. */
#define HC_PLACE_EXCH 8       /* exchanges per timing of a row */
#define HC_PLACE_BUDGET 0.025 /* s: a peer without a core to itself (rank 0 stops the timing) */
static inline void demote(const void *p, size_t len);
static double now(void);

typedef struct {
    uint32_t cost; /* ns per exchange, the slowest rank's */
    int row;
} hc_place_t;

static int by_cost(const void *a, const void *b) /* (then by row: the same on every rank) */
{
    const hc_place_t *x = a, *y = b;
    if (x->cost != y->cost) {
        return x->cost < y->cost ? -1 : 1;
    }
    return x->row < y->row ? -1 : x->row > y->row;
}

static int by_row(const void *a, const void *b)
{
    const hc_place_t *x = a, *y = b;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The fastest of reps timings of HC_PLACE_EXCH exchanges on row j, in ns
 * per exchange; *e counts the row's exchanges, *g all of place_rows' (the
 * same on every rank).  Past the deadline, rank 0 writes the number of
 * its next exchange (+ 1) into the header's stop before its value of that
 * exchange; each rank looks after each exchange, so every rank stops
 * after that one (a rank done with the exchange before may see stop
 * already: it goes on to that one), and says so in *stop. */
static uint32_t place_time(hc_shm_t *s, int j, int reps, int *e, uint64_t *g, double deadline,
                           bool *stop)
{
    hc_line_t *row = s->ch[0].flag + (size_t) j * s->n;
    double best = 1e9;
    for (int rep = 0; rep < reps; ++rep) {
        double a = now();
        if (0 == s->me && a > deadline) {
            st_rel(&s->hdr->stop, *g + 1);
        }
        for (int x = 0; x < HC_PLACE_EXCH; ++x, ++*e) {
            uint64_t v = (uint64_t) (*e % 3) + 1, prev = 0 == *e ? 0 : (uint64_t) ((*e - 1) % 3) + 1;
            st_rel(&row[s->me].seq, v);
            if (s->demote) {
                demote(&row[s->me], HC_SHM_LINE);
            }
            for (int r = 0; r < s->n; ++r) {
                while (r != s->me && ld_acq(&row[r].seq) == prev) {
                    cpu_relax();
                }
            }
            uint64_t at = ld_acq(&s->hdr->stop), done = (*g)++; /* (stop: before rank 0's
                                                                  * value, just read) */
            if (0 != at && at - 1 <= done) {
                *stop = true;
                return UINT32_MAX;
            }
        }
        double t = now() - a;
        best = t < best ? t : best;
    }
    double ns = best * 1e9 / HC_PLACE_EXCH;
    return ns < 1e9 ? (uint32_t) ns + 1 : UINT32_MAX;
}

/* pl[0, m) timed as cost[0, m) here: agree the slowest rank's costs (the
 * layer below's allreduce(MAX) into cost[m, 2m)), then order pl by them. */
static int place_rank(hc_shm_t *s, mca_coll_base_comm_coll_t *p, uint32_t *cost, hc_place_t *pl,
                      int m)
{
    int rc = p->coll_allreduce(cost, cost + m, m, MPI_UINT32_T, MPI_MAX, s->comm,
                               p->coll_allreduce_module);
    for (int j = 0; OMPI_SUCCESS == rc && j < m; ++j) {
        pl[j].cost = cost[m + j];
    }
    if (OMPI_SUCCESS == rc) {
        qsort(pl, (size_t) m, sizeof(*pl), by_cost);
    }
    return rc;
}

/* Channels given rows by placement: as many as channel 0's candidates
 * fill, kf + HC_SHM_HOT each (only flat regions are placed: they have hot
 * rows). */
#define HC_PLACE_SET (16 * (64 + HC_SHM_HOT)) /* the most rows it sets (place <= 16, kf <= 64) */
static int place_sets(const hc_shm_t *s)
{
    int per = s->kf + HC_SHM_HOT, nset = 0;
    while (nset < s->nch && (nset + 1) * per <= rows_of(s, 0)) {
        ++nset;
    }
    return nset;
}

/* Channel c < nset's row table (its kf slots, then its hot rows) from
 * channel 0's candidate rows idx[c (kf + HC_SHM_HOT) + j]: place_rows'
 * choice, or one remembered (set_up). */
static void rows_set(hc_shm_t *s, const uint16_t *idx, int nset)
{
    int per = s->kf + HC_SHM_HOT;
    for (int c = 0; c < nset; ++c) {
        for (int j = 0; j < per; ++j) {
            s->ch[c].row[j] = s->ch[0].flag + (size_t) idx[c * per + j] * s->n;
        }
    }
}

/* cost: 2 x rows words; pl: rows; idx: HC_PLACE_SET.  Two rounds: every
 * row timed once, then the fastest 2 (kf + HC_SHM_HOT) three times each.
 * Channel 0 keeps the HC_SHM_HOT fastest as its hot rows and the kf next
 * as its slots; the persistent channels take the next HC_SHM_HOT + kf
 * each while there are rows (place_sets).  *placed: idx holds the rows
 * set (not when the timing stopped). */
static int place_rows(hc_shm_t *s, mca_coll_base_comm_coll_t *p, uint32_t *cost, hc_place_t *pl,
                      uint16_t *idx, bool *placed)
{
    int per = s->kf + HC_SHM_HOT, rows = rows_of(s, 0), m = 2 * per < rows ? 2 * per : rows;
    double t0 = now(), all = 0, hot = 0, kept = 0;
    double deadline = t0 + (fault("budget") ? 0 : HC_PLACE_BUDGET); /* (rank 0's) */
    int rc;
    /* (once stopped, the rows left count as slowest and the allreduces
     * still run: the set-up sends the same messages whatever the timing,
     * so pml monitoring's differences of two jobs cancel it) */
    bool stop = false; /* (the same on every rank: see place_time) */
    uint64_t g = 0;
    for (int j = 0; j < rows; ++j) {
        int e = 0;
        pl[j].row = j;
        cost[j] = stop ? UINT32_MAX : place_time(s, j, 1, &e, &g, deadline, &stop);
    }
    rc = place_rank(s, p, cost, pl, rows);
    for (int j = 0; OMPI_SUCCESS == rc && j < rows; ++j) {
        all += pl[j].cost;
    }
    for (int j = 0; j < m; ++j) {
        int e = HC_PLACE_EXCH; /* (the row's first round) */
        cost[j] = stop || OMPI_SUCCESS != rc ? UINT32_MAX
                                              : place_time(s, pl[j].row, 3, &e, &g, deadline, &stop);
    }
    rc = OMPI_SUCCESS == rc ? place_rank(s, p, cost, pl, m) : rc;
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    *placed = !stop;
    if (stop) { /* (rows in address order: lay_out's) */
        if (0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: timing the rows of flag lines took over %.0f ms "
                                  "(a process without a core of its own?); channel 0 keeps "
                                  "them in address order", s->comm->c_name,
                                  HC_PLACE_BUDGET * 1e3);
        }
        return OMPI_SUCCESS;
    }
    for (int j = 0; j < per; ++j) {
        *(j < HC_SHM_HOT ? &hot : &kept) += pl[j].cost;
    }
    int nset = place_sets(s);
    for (int c = 0; c < nset; ++c) {
        /* (pl: the hot rows, then the slots; each part in address order) */
        hc_place_t *sel = pl + (size_t) c * (size_t) per;
        qsort(sel, HC_SHM_HOT, sizeof(*sel), by_row);
        qsort(sel + HC_SHM_HOT, (size_t) s->kf, sizeof(*sel), by_row);
        for (int j = 0; j < per; ++j) {
            idx[c * per + (j < HC_SHM_HOT ? s->kf + j : j - HC_SHM_HOT)] = (uint16_t) sel[j].row;
        }
    }
    rows_set(s, idx, nset);
    if (0 == s->me) {
        mca_coll_hiercoll_log(1, "%s: shm: channel 0 keeps the fastest %d of %d rows of flag "
                              "lines as its hot rows and the next %d as its slots (an exchange "
                              "%.0f and %.0f ns against %.0f over all rows; timed in %.2f ms), "
                              "%d persistent channels the next", s->comm->c_name, HC_SHM_HOT,
                              rows, s->kf, hot / HC_SHM_HOT, kept / s->kf, all / rows,
                              (now() - t0) * 1e3, nset - 1);
    }
    return OMPI_SUCCESS;
}

/* PLACEMENT REMEMBERED.  A communicator whose region is where an earlier
 * one's was (the same owner and offset, the same processes in the same
 * rank order, the same layout) would time the same lines between the same
 * processes: it takes the rows that timing kept (1.2 ms saved at np 2 on
 * each dup of a program that makes many), where every rank remembers
 * them, alike: the set-up's allreduce agrees that every rank has an
 * entry and that the entries' hashes are equal (the MIN of h and of ~h,
 * ~h's MIN being ~(the MAX of h)), so rows of different timings are never
 * mixed; else the rows are timed again and remembered anew.  A few
 * entries, replaced in turn. */
#define HC_MEMO 8
static struct {
    uint64_t key;
    int32_t sum; /* the rows' hash (>= 0) */
    uint16_t row[HC_PLACE_SET]; /* place_rows' idx (place_sets channels) */
} memo[HC_MEMO];
static unsigned memo_next;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 29);
}

static uint64_t memo_key(const hc_shm_t *s, const hc_shm_peer_t *peers, int owner, uint64_t off)
{
    uint64_t h = mix(mix(mix(0, (uint64_t) peers[owner].pid), off), s->len);
    h = mix(mix(mix(mix(h, (uint64_t) s->n), (uint64_t) s->kf), (uint64_t) s->place),
            (uint64_t) s->nch);
    for (int r = 0; r < s->n; ++r) {
        h = mix(h, (uint64_t) peers[r].pid);
    }
    return 0 == h ? 1 : h; /* (0: an empty entry) */
}

static int32_t memo_sum(const uint16_t *row, int n)
{
    uint64_t h = 0;
    for (int i = 0; i < n; ++i) {
        h = mix(h, row[i]);
    }
    return (int32_t) (h & 0x7fffffff);
}

static int memo_find(uint64_t key)
{
    for (int i = 0; i < HC_MEMO; ++i) {
        if (memo[i].key == key) {
            return i;
        }
    }
    return -1;
}

/* place_rows' idx, remembered under key (coll_hiercoll_shm_fault=
 * memo:RANK: that rank remembers others, as if its entry came from
 * another timing). */
static void memo_store(const hc_shm_t *s, uint64_t key, const uint16_t *idx)
{
    int n = place_sets(s) * (s->kf + HC_SHM_HOT);
    int i = memo_find(key);
    if (i < 0) {
        i = (int) (memo_next++ % HC_MEMO);
    }
    memcpy(memo[i].row, idx, sizeof(*idx) * (size_t) n);
    if (fault("memo") && n > 1) {
        uint16_t t = memo[i].row[0];
        memo[i].row[0] = memo[i].row[1];
        memo[i].row[1] = t;
    }
    memo[i].key = key;
    memo[i].sum = memo_sum(memo[i].row, n);
}

static int set_up(mca_coll_hiercoll_module_t *m)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    hc_shm_t *s = m->shm;
    ompi_communicator_t *comm = s->comm;
    mca_coll_base_comm_coll_t *p = &m->prev;
    s->state = HC_SHM_FAILED;
    if (NULL == p->coll_allgather || NULL == p->coll_bcast || NULL == p->coll_allreduce) {
        return OMPI_SUCCESS;
    }
    s->yield = oversubscribed(s);
    s->k = c->shm_slots;
    s->kf = flag_slots(s->n, s->k);
    s->cell = cell_for(s->n, s->k);
    s->demote = m->shm_demote;
    s->lean = m->shm_lean;
    s->flat = s->n <= mca_coll_hiercoll_params.shm_group_size;
    s->nch = 1 + c->shm_persistent;
    /* (measured on 2 processes only; a row of more is slower to time, and
     * place 8 at 8 processes would add 476 KiB to the region) */
    s->place = s->flat && s->n <= 4 && !s->yield && !s->part ? c->shm_place : 1;
    s->pwant = UINT64_MAX;
    s->pnow = false;
    s->len = region_bytes(s);
    free(s->rows);
    s->rows = malloc(sizeof(*s->rows) * (size_t) s->nch * (size_t) (s->kf + HC_SHM_HOT));
    if (NULL == s->rows) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (!g.tried) {
        arena_create();
    }
    hc_shm_peer_t *peers = calloc((size_t) s->n, sizeof(*peers));
    if (NULL == peers) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (0 == cma_cookie) {
#if defined(PR_SET_PTRACER) && defined(PR_SET_PTRACER_ANY)
        (void) prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama scope 1 */
#endif
        cma_cookie = HC_SHM_MAGIC ^ (uint64_t) getpid();
    }
    hc_shm_peer_t mine = {getpid(), g.fd, (int64_t) arena_largest(), (uintptr_t) &cma_cookie,
                          my_key(comm, c->shm_group_by)};
    int rc = p->coll_allgather(&mine, sizeof(mine), MPI_BYTE, peers, sizeof(mine), MPI_BYTE,
                               comm, p->coll_allgather_module);
    if (OMPI_SUCCESS != rc) {
        free(peers);
        return rc;
    }
    int owner = -1;
    for (int r = 0; r < s->n; ++r) {
        if (peers[r].free >= (int64_t) s->len && (owner < 0 || peers[r].free > peers[owner].free)) {
            owner = r;
        }
    }
    uint64_t where[2] = {(uint64_t) -1, 0}; /* offset, cookie */
    if (owner < 0) {
        mca_coll_hiercoll_log(1, "%s: shm: no process has %zu bytes free in its arena "
                              "(coll_hiercoll_shm_arena_size); the layer below serves",
                              comm->c_name, s->len);
        free(peers);
        return OMPI_SUCCESS; /* every rank saw the same table */
    }
    s->owner = owner == s->me;
    if (s->owner) {
        size_t off = fault("alloc") ? (size_t) -1 : arena_get(s->len);
        if ((size_t) -1 != off) {
            hc_shm_hdr_t *h = (hc_shm_hdr_t *) (g.base + off);
            zero_control(s, (char *) h);
            h->n = (uint32_t) s->n;
            h->k = (uint32_t) s->k;
            h->nch = (uint32_t) s->nch;
            h->place = (uint32_t) s->place;
            h->cell = s->cell;
            h->size = s->len;
            h->cookie = random64();
            st_rel(&h->magic, HC_SHM_MAGIC);
            where[0] = off;
            where[1] = h->cookie;
        }
    }
    rc = p->coll_bcast(where, 2, MPI_UINT64_T, owner, comm, p->coll_bcast_module);
    if (OMPI_SUCCESS != rc) {
        free(peers);
        return rc;
    }
    if ((uint64_t) -1 == where[0]) {
        free(peers);
        mca_coll_hiercoll_log(1, "%s: shm: rank %d could not carve a region of %zu bytes; the "
                              "layer below serves", comm->c_name, owner, s->len);
        return OMPI_SUCCESS;
    }
    size_t msize = 0;
    char *map = map_peer((pid_t) peers[owner].pid, (int) peers[owner].fd, &msize);
    int ok = NULL != map && where[0] + s->len <= msize;
    hc_shm_hdr_t *h = ok ? (hc_shm_hdr_t *) (map + where[0]) : NULL;
    ok = ok && HC_SHM_MAGIC == ld_acq(&h->magic) && h->cookie == where[1];
    if (ok && (h->n != (uint32_t) s->n || h->k != (uint32_t) s->k || h->nch != (uint32_t) s->nch
               || h->place != (uint32_t) s->place || h->cell != s->cell || h->size != s->len)) {
        mca_coll_hiercoll_log(1, "shm: world rank %d's parameters (coll_hiercoll_shm_slots, "
                              "_persistent, _place, _cell_size, _chan_bytes) lay the region out "
                              "otherwise than rank %d's", world_rank(), owner);
        ok = 0;
    }
    char how[96] = "";
    ok = ok && group_ranks(s, peers, how, sizeof(how));
    /* (timing the rows of flag lines needs every rank on a core of its own:
     * place > 1) */
    uint64_t key = s->place > 1 ? memo_key(s, peers, owner, where[0]) : 0;
    int hit = 0 != key ? memo_find(key) : -1;
    int32_t sum = hit >= 0 ? memo[hit].sum : 0;
    /* ok, single copy, timing, remembered rows (see memo_key) */
    int mine2[6] = {ok, c->shm_cma_min > 0 ? cma_probe(peers, s->n, s->me) : 0,
                    s->place > 1 && !fault("place"), hit >= 0, sum, ~sum};
    int both[6] = {0, 0, 0, 0, 0, 0};
    rc = p->coll_allreduce(mine2, both, 6, MPI_INT, MPI_MIN, comm, p->coll_allreduce_module);
    int all = OMPI_SUCCESS == rc ? both[0] : 0;
    bool same = both[2] && both[3] && both[4] == ~both[5]; /* (every rank's, alike) */
    s->cma = OMPI_SUCCESS == rc && both[1];
    if (s->cma) {
        s->pids = malloc(sizeof(*s->pids) * (size_t) s->n);
        s->cma = NULL != s->pids;
        for (int r = 0; s->cma && r < s->n; ++r) {
            s->pids[r] = (pid_t) peers[r].pid;
        }
    }
    free(peers);
    if (all) {
        s->hdr = h;
        lay_out(s, (char *) h);
        if (same) {
            rows_set(s, memo[hit].row, place_sets(s));
            if (0 == s->me) {
                mca_coll_hiercoll_log(1, "%s: shm: channel 0 keeps the rows of flag lines timed "
                                      "for an earlier communicator in the same place",
                                      comm->c_name);
            }
        } else if (both[2]) {
            if (both[3] && 0 == s->me) {
                mca_coll_hiercoll_log(1, "%s: shm: the ranks remember other rows of flag lines "
                                      "for this place; timing them again", comm->c_name);
            }
            /* (later: place_later) */
            s->pkey = key;
            s->pwant = 1 + (uint64_t) c->shm_place_after; /* (hot numbers from 1) */
        } else if (s->place > 1 && 0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: a rank cannot time the rows of flag lines (see "
                                  "coll_hiercoll_shm_fault); channel 0 keeps them in address "
                                  "order", comm->c_name);
        }
    }
    if (!all) {
        if (NULL != map && !s->owner) {
            unmap_peer(map, !ok);
        }
        if (s->owner) {
            arena_put(where[0], s->len);
        }
        if (0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: a rank could not attach the region (see the line "
                                  "above, or coll_hiercoll_shm_fault); every rank uses the "
                                  "layer below", comm->c_name);
        }
        return OMPI_SUCCESS == rc ? OMPI_SUCCESS : rc;
    }
    s->map = map;
    s->off = where[0];
    s->hdr = h;
    s->state = HC_SHM_READY;
    if (0 == s->me) {
        char cma[64] = "no single copy";
        if (s->cma) {
            snprintf(cma, sizeof(cma), "single copy (CMA) from %zu bytes", c->shm_cma_min);
        }
        char groups[160] = "";
        if (s->n > c->shm_group_size) {
            int at = snprintf(groups, sizeof(groups), ", %d groups by %s (sizes ", s->ngroups, how);
            for (int i = 0; i < s->ngroups && at < (int) sizeof(groups) - 16; ++i) {
                int end = i + 1 < s->ngroups ? s->leaders[i + 1] : s->n;
                at += snprintf(groups + at, sizeof(groups) - (size_t) at, "%s%d", i ? "," : "",
                               end - s->leaders[i]);
            }
            snprintf(groups + at, sizeof(groups) - (size_t) at, ")");
        }
        mca_coll_hiercoll_log(1, "%s: shm: %d processes, region of %zu bytes in rank %d's arena "
                              "(%d slots, cells of %zu bytes, %d channels), %s%s%s",
                              comm->c_name, s->n, s->len, owner, s->k, s->cell, s->nch, cma,
                              groups, s->demote ? "" : ", lines not demoted");
    }
    return OMPI_SUCCESS;
}

/* Set the region up (collective), then have the fast path forget what it
 * remembered before (see the hook). */
static int setup(mca_coll_hiercoll_module_t *m)
{
    int rc = set_up(m);
    if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
        mca_coll_hiercoll_hooks.shm_settled(m);
    }
    return rc;
}

/* PLACEMENT DEFERRED.  A region whose rows are to be timed times them
 * after the first agreeing call (a blocking flat barrier or allreduce in
 * the line: see agrees) numbered pwant or later on channel 0, that is
 * coll_hiercoll_shm_place_after hot numbers after its set-up: like the
 * persistent channels given back, each rank offers it in its line's aux
 * (HC_PLACE_BIT: offer_freed), and where every rank's line offers it
 * every rank sees so at the same call (agree_freed: pnow) and times right
 * after it, before it returns (lean; the engine's run_alone and
 * run_blocking_op).  Nothing is on the path of a short bcast or reduce (a
 * test at the entry of every blocking call made the 8-byte reduce 0.026
 * -> 0.028 us a call).  The fast path's entries, forgotten, are learnt
 * again (the layer below's allreduce may call the communicator's reduce
 * and bcast, never its barrier or allreduce: the calling entry's fields
 * stay).  A decomposition's parts, whose calls may come from inside
 * progress, are not placed.  The layer below's allreduce agrees that
 * every rank's channels are idle (each has finished every operation, and
 * so read every line it was to read; else again HC_PLACE_RETRY hot
 * numbers later); each rank then clears its line of every
 * candidate row, a second allreduce orders that before anyone's timing,
 * and place_rows times and sets the rows (it ends with an allreduce, so
 * no rank writes the new rows before every rank has finished timing).
 * The rows end below FV(1, 0), so the channels go on with their numbers;
 * their done lines are untouched.  Meanwhile the region says FAILED and
 * the fast path forgets what it remembered: the layer below's calls may
 * come back to hiercoll's (coll/basic's allreduce is a reduce and a
 * bcast of the communicator), which must then run elsewhere, as during
 * the set-up. */
#define HC_PLACE_RETRY 1024
static void place_timed(mca_coll_hiercoll_module_t *m);
static __attribute__((cold)) void place_later(mca_coll_hiercoll_module_t *m)
{
    hc_shm_t *s = m->shm;
    s->pnow = false;
    s->pwant = UINT64_MAX; /* (a failed allreduce: the rows stay as they are) */
    s->state = HC_SHM_FAILED;
    if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
        mca_coll_hiercoll_hooks.shm_settled(m);
    }
    place_timed(m);
    s->state = HC_SHM_READY;
    if (NULL != mca_coll_hiercoll_hooks.shm_settled) {
        mca_coll_hiercoll_hooks.shm_settled(m);
    }
}

static void place_timed(mca_coll_hiercoll_module_t *m)
{
    hc_shm_t *s = m->shm;
    mca_coll_base_comm_coll_t *p = &m->prev;
    int idle = !fault("idle"), all = 0;
    for (int i = 0; i < s->nch; ++i) {
        idle &= NULL == s->ch[i].head;
    }
    int rc = p->coll_allreduce(&idle, &all, 1, MPI_INT, MPI_MIN, s->comm,
                               p->coll_allreduce_module);
    if (OMPI_SUCCESS == rc && !all) {
        s->pwant = s->ch[0].hseq + HC_PLACE_RETRY;
        if (0 == s->me) {
            mca_coll_hiercoll_log(1, "%s: shm: a rank has calls in flight; the rows of flag "
                                  "lines are timed %d barriers and allreduces later",
                                  s->comm->c_name, HC_PLACE_RETRY);
        }
        return;
    }
    if (OMPI_SUCCESS != rc) {
        return;
    }
    int rows = rows_of(s, 0);
    for (int j = 0; j < rows; ++j) {
        st_rel(&s->ch[0].flag[(size_t) j * (size_t) s->n + (size_t) s->me].seq, 0);
    }
    uint32_t *cost = malloc(sizeof(*cost) * 2 * (size_t) rows);
    hc_place_t *pl = malloc(sizeof(*pl) * (size_t) rows);
    uint16_t *idx = malloc(sizeof(*idx) * HC_PLACE_SET);
    int ok = NULL != cost && NULL != pl && NULL != idx;
    rc = p->coll_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, s->comm, p->coll_allreduce_module);
    if (OMPI_SUCCESS == rc && all) {
        bool placed = false;
        rc = place_rows(s, p, cost, pl, idx, &placed);
        if (OMPI_SUCCESS == rc && placed) {
            memo_store(s, s->pkey, idx);
        }
    }
    free(cost);
    free(pl);
    free(idx);
}

/* ------------------------------------------------------------------ */
/* Operations                                                           */
/* ------------------------------------------------------------------ */

enum { PATH_INLINE, PATH_CELLS, PATH_FOLD, PATH_SLICE, PATH_MOVE, PATH_RSCAT, PATH_CMA,
       PATH_CMA_ROOT };

struct hc_shm_op {
    hc_shm_op_t *next;
    hc_shm_chan_t *ch;
    struct hc_shm_req *req; /* NULL: a blocking call waits for it */
    hc_coll_t coll;
    int path;
    int root;
    size_t count;  /* elements (reductions) */
    size_t esize;  /* bytes per element (reductions) */
    size_t m;      /* bytes of the whole message */
    size_t chunk;  /* bytes per chunk */
    ompi_datatype_t *dt;
    ompi_op_t *op;
    const char *src; /* contiguous input (reductions, contiguous bcast root) */
    char *dst;       /* contiguous output */
    bool packed;     /* bcast through the convertor */
    const hc_call_t *c; /* movement and reduce-scatter: the call's arguments */
    int grp;            /* barrier, inline reductions: groups of grp ranks (0: flat) */
    char *tmp;          /* CMA: a packed copy (root) or landing buffer (reader) */
    char *scratch;      /* CMA reductions: two pieces (a peer's, my input's) */
    size_t mine0, mine1; /* reduce-scatter: my block's elements */
    opal_convertor_t conv;
    /* progress */
    uint64_t s0;
    hc_line_t **row; /* its slots' rows: the channel's, or its hot rows (hot) */
    uint64_t mask;
    bool hot;
    uint64_t mbase; /* hot: the channel's next sequence number at its begin */
    int nchunks, j, ph, i;
    bool finished;
    int error;
    /* the watchdog */
    uint64_t wait_val;
    const uint64_t *wait_on;
};

/* Operation s's flag line of rank r (its rows: see op_ring). */
static inline hc_line_t *line_of(const hc_shm_op_t *o, uint64_t s, int r)
{
    return o->row[s & o->mask] + r;
}

/* Every rank done with operation s - K?  (Before writing slot s mod K:
 * K the flag slots, or the cell slots where the operation writes cells.) */
static bool slot_wait(hc_shm_chan_t *ch, uint64_t s, int k)
{
    uint64_t mn = UINT64_MAX;
    for (int r = 0; r < ch->s->n; ++r) {
        uint64_t d = ld_acq(&ch->done[r].seq);
        mn = d < mn ? d : mn;
    }
    ch->done_min = mn;
    return mn + (uint64_t) k >= s;
}

/* (the test inline: it is on every short call's path, and almost always
 * passes without reading a done line) */
static inline bool slot_free(hc_shm_chan_t *ch, uint64_t s, bool cells)
{
    int k = cells ? ch->s->k : ch->s->kf;
    return s <= (uint64_t) k || ch->done_min + (uint64_t) k >= s || slot_wait(ch, s, k);
}

/* Push [p, p + len) out of this core's caches into the shared last-level
 * cache, where its readers take it without a snoop of this core (CLDEMOTE,
 * 0F 1C /0, sits in the reserved-NOP space: a NOP on processors without
 * it).  Measured on this project's VM (Xeon with CLDEMOTE), two processes
 * exchanging lines: 8 bytes 137-150 ns -> 124-132, a 1 KiB cell each
 * way 552 -> 450, 2 KiB 920 -> 793. */
#define HC_SHM_DEMOTE_MAX 1024 /* longest cell demoted */
static inline void demote(const void *p, size_t len)
{
#if defined(__x86_64__)
    const char *a = (const char *) ((uintptr_t) p & ~(uintptr_t) 63), *e = (const char *) p + len;
    for (; a < e; a += 64) {
        __asm__ volatile(".byte 0x0f, 0x1c, 0x07" : : "D"(a) : "memory");
    }
#else
    (void) p;
    (void) len;
#endif
}

/* A reader that runs behind a writer (a bcast's, a reduce root's): ask
 * for the writer's next line now, so that its crossing overlaps the
 * return to the application and the next call. */
static inline void prefetch_line(const hc_line_t *l)
{
    __builtin_prefetch(l, 0, 3);
    __builtin_prefetch((const char *) l + 64, 0, 3);
}

static inline void finish_reading(hc_shm_chan_t *ch, uint64_t s)
{
    st_rel(&ch->done[ch->s->me].seq, s);
}

/* Rank r's lines of operation s, for a reader of a short message that
 * runs behind r (a bcast's receiver, a reduce's root): its flag line, and
 * up to 1 KiB of its cell where the message takes cells. */
static void prefetch_next(const hc_shm_op_t *o, uint64_t s, int r)
{
    if (o->m > 1024) {
        return;
    }
    prefetch_line(line_of(o, s, r));
    for (size_t b = 0; PATH_INLINE != o->path && b < o->m; b += HC_SHM_LINE) {
        prefetch_line((const hc_line_t *) (cell_of(o->ch, s, r) + b));
    }
}

/* Wait (without blocking) until every rank's flag of slot reaches v,
 * starting at op->i. */
static bool all_flags(hc_shm_op_t *o, uint64_t s, uint64_t v)
{
    hc_shm_chan_t *ch = o->ch;
    for (; o->i < ch->s->n; ++o->i) {
        hc_line_t *l = line_of(o, s, o->i);
        /* (my own flag: every caller has published phase v already, or, a
         * reduce's root, has nothing to publish) */
        if (o->i != ch->s->me && ld_acq(&l->seq) < v) {
            o->wait_on = &l->seq;
            o->wait_val = v;
            return false;
        }
    }
    o->i = 0;
    /* every rank has begun operation v >> 2, so each finished the ones
     * before it (a channel runs them in order): slot_free need not read
     * the done lines for those (a hot operation: those numbered before
     * mbase) */
    uint64_t begun = o->hot ? o->mbase : v >> 2;
    if (begun - 1 > ch->done_min) {
        ch->done_min = begun - 1;
    }
    return true;
}

static bool one_flag(hc_shm_op_t *o, hc_line_t *l, uint64_t v)
{
    if (ld_acq(&l->seq) < v) {
        o->wait_on = &l->seq;
        o->wait_val = v;
        return false;
    }
    return true;
}

/* Phase v of my line (with whatever was written into it and the cells
 * before): visible, and out of my core's caches for its readers; not a
 * bcast's line whose payload stays in its first 64 bytes (the root runs
 * ahead of its readers and the demotion is on its path: 0.94-0.98x).
 * (Deciding that once in op_init, in a field of the operation, made the
 * 64-byte bcast 0.7-0.8x at np 2 in three runs: the inline test stays.) */
static inline void publish(const hc_shm_op_t *o, hc_line_t *l, uint64_t v)
{
    st_rel(&l->seq, v);
    if (o->ch->s->demote && (HC_BCAST != o->coll || o->m > HC_SHM_LINE / 2 - 16)) {
        demote(l, HC_SHM_LINE);
    }
}

/* The bytes [off, off+len) of a bcast's message: out of the root's buffer
 * into `to`, or from `from` into a receiver's buffer. */
static void bcast_get(hc_shm_op_t *o, size_t off, size_t len, char *to)
{
    if (!o->packed) {
        memcpy(to, o->src + off, len);
    } else {
        struct iovec iov = {.iov_base = to, .iov_len = len};
        uint32_t n = 1;
        size_t max = len;
        (void) opal_convertor_pack(&o->conv, &iov, &n, &max);
    }
}

static void bcast_put(hc_shm_op_t *o, size_t off, size_t len, const char *from)
{
    if (!o->packed) {
        memcpy(o->dst + off, from, len);
        return;
    }
    struct iovec iov = {.iov_base = (void *) from, .iov_len = len};
    uint32_t n = 1;
    size_t max = len;
    (void) opal_convertor_unpack(&o->conv, &iov, &n, &max);
}

/* Wait (without blocking) until the flags of slot of ranks first,
 * first + stride, ... (count of them), or list[first + i], reach v,
 * resuming at o->i. */
static bool some_flags(hc_shm_op_t *o, uint64_t s, uint64_t v, int first, int count, int stride,
                       const int *list)
{
    for (; o->i < count; ++o->i) {
        int r = NULL != list ? list[first + o->i] : first + o->i * stride;
        hc_line_t *l = line_of(o, s, r);
        if (ld_acq(&l->seq) < v) {
            o->wait_on = &l->seq;
            o->wait_val = v;
            return false;
        }
    }
    o->i = 0;
    return true;
}

/* The same for the groups' first ranks (phase v of their lines). */
static bool leader_flags(hc_shm_op_t *o, uint64_t s, uint64_t v)
{
    return some_flags(o, s, v, 0, o->ch->s->ngroups, 1, o->ch->s->leaders);
}

/* The groups (set up with the region: runs of consecutive ranks, see
 * group_ranks), led by their first: my group's first rank and size. */
static void my_group(const hc_shm_op_t *o, int *lead, int *size)
{
    const hc_shm_t *sh = o->ch->s;
    int r = sh->me;
    *lead = sh->lead[r];
    while (r + 1 < sh->n && sh->lead[r + 1] == *lead) {
        ++r;
    }
    *size = r + 1 - *lead;
}

/* PERSISTENT CHANNELS GIVEN BACK.  A persistent request keeps its channel
 * until freed; MPI_Request_free is local, and an init may not wait for
 * the other ranks, so no init can learn alone that every rank has freed a
 * channel's request.  The blocking calls that read every rank's flag
 * line (a flat barrier, an allreduce in the line: `agrees`) carry it:
 * each rank writes, in its line's aux, the channels whose request it has
 * freed (its requests are then inactive: their operations are done on
 * this rank), and after reading every line it takes the AND as agreed.
 * Every rank calls the same blocking collectives and persistent inits in
 * the same order, so every rank agrees the same channels at the same
 * call, and an init after it takes the lowest agreed channel back, alike
 * everywhere.  Nonblocking and persistent calls carry nothing (their
 * completion, hence what a rank has read, is not ordered with its later
 * inits). */
static inline bool agrees(const hc_shm_op_t *o)
{
    return NULL == o->req && o->hot; /* (a flat barrier, an allreduce in the line: op_ring) */
}

/* Before publishing line l of agreeing call s (its hot number): what I
 * offer (and the timing of the rows where it is due: PLACEMENT DEFERRED). */
#define HC_PLACE_BIT (1u << 31) /* (bit c - 1: channel c <= 16) */
static inline void offer_freed(hc_shm_t *sh, hc_line_t *l, uint64_t s)
{
    sh->poffered = sh->pfreed | (s >= sh->pwant ? HC_PLACE_BIT : 0u);
    l->aux = sh->poffered;
}

/* After reading every rank's line of an operation (row: its slot's lines,
 * phase 0, acquired): the channels every rank offered are agreed; the
 * timing where every rank offered it. */
static void agree_freed(hc_shm_t *sh, const hc_line_t *row)
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

/* Flat: every rank writes its line and reads everyone's.  Grouped: the
 * members' lines go to their leader, the leaders' second phase to all. */
static bool run_barrier(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    uint64_t s = o->s0;
    if (0 == o->ph) {
        if (!o->hot && !slot_free(ch, s, false)) {
            return false;
        }
        if (agrees(o)) {
            offer_freed(ch->s, line_of(o, s, ch->s->me), s);
        }
        publish(o, line_of(o, s, ch->s->me), FV(s, 0));
        o->ph = 1;
    }
    if (0 == o->grp) {
        if (!all_flags(o, s, FV(s, 0))) {
            return false;
        }
        if (agrees(o) && 0 != ch->s->poffered) {
            agree_freed(ch->s, line_of(o, s, 0));
        }
        if (!o->hot) { /* (the done lines count the channel's numbers) */
            finish_reading(ch, s);
        }
        return true;
    }
    int lead, size;
    my_group(o, &lead, &size);
    if (1 == o->ph) {
        if (lead == ch->s->me) {
            if (!some_flags(o, s, FV(s, 0), lead + 1, size - 1, 1, NULL)) {
                return false;
            }
            publish(o, line_of(o, s, lead), FV(s, 1));
        }
        o->ph = 2;
    }
    if (!leader_flags(o, s, FV(s, 1))) {
        return false;
    }
    if (s - 1 > ch->done_min) { /* every rank has begun s (see all_flags) */
        ch->done_min = s - 1;
    }
    finish_reading(ch, s);
    return true;
}

/* Everyone but `skip` done with operation s. */
static bool others_done(hc_shm_op_t *o, uint64_t s, int skip)
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
    return true;
}

static bool one_done(hc_shm_op_t *o, uint64_t s, int r)
{
    uint64_t *d = &o->ch->done[r].seq;
    if (ld_acq(d) < s) {
        o->wait_on = d;
        o->wait_val = s;
        return false;
    }
    return true;
}

static int cma_write(pid_t pid, uint64_t to, const void *from, size_t len)
{
    return cma_move(pid, (void *) from, to, len, true);
}

/* One verbose line per process when a write into a reader fails. */
static void push_failed(const hc_shm_t *sh, int r, int err)
{
    static bool said;
    if (!said) {
        said = true;
        mca_coll_hiercoll_log(1, "shm: %s rank %d cannot write into rank %d with "
                              "process_vm_writev: %s; the readers read those parts themselves",
                              sh->comm->c_name, sh->me, r, strerror(err));
    }
}

/* The part [lo, hi) of an m-byte bcast that the root writes into reader
 * q's buffer (q's place among the readers, of n - 1): one n-th, so that
 * the root and every reader each copy (n - 1) m / n bytes; page-aligned. */
static void push_part(size_t m, int n, int q, size_t *lo, size_t *hi)
{
    size_t part = (m / (size_t) n) & ~(size_t) 4095;
    *lo = (size_t) q * part;
    *hi = *lo + part;
}

/* From this size on the root writes parts of a CMA bcast (measured at
 * np 2: 1.4 to 3 times faster from 32 KiB to 8 MiB; at 16 KiB waiting
 * for the readers' addresses cost more than the copy saved). */
#define HC_SHM_PUSH_MIN (32 * 1024)

/* A long bcast by CMA.  The root publishes where its bytes are (its
 * buffer, or a packed copy); each reader publishes where it wants them
 * (its contiguous buffer; 0: it takes them itself, through a landing copy
 * where its datatype is not contiguous).  The root writes one n-th of the
 * message straight into every reader that asked (process_vm_writev) while
 * each reader reads the rest (process_vm_readv): two cores copy at once
 * where one did.  The root then publishes phase 1 (with a byte that says
 * whether a write failed: then the readers read those parts too) and
 * returns once every reader is done. */
static bool run_bcast_cma(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    uint64_t s = o->s0;
    int me = sh->me, root = o->root;
    hc_line_t *l = line_of(o, s, root);
    bool push = o->m >= HC_SHM_PUSH_MIN; /* (the same on every rank) */
    if (me == root) {
        if (0 == o->ph) {
            if (!slot_free(ch, s, false)) {
                return false;
            }
            const char *from = o->src;
            if (o->packed) {
                o->tmp = malloc(o->m);
                if (NULL != o->tmp) {
                    bcast_get(o, 0, o->m, o->tmp);
                }
                from = o->tmp; /* NULL: the readers fail alike */
            }
            l->aux = (uint64_t) (uintptr_t) from;
            l->data[0] = 0;
            publish(o, l, push ? FV(s, 0) : FV(s, 1)); /* (no writes: done already) */
            o->ph = push ? 1 : 2;
        }
        if (1 == o->ph) {
            for (; o->i < sh->n; ++o->i) {
                if (o->i == root) {
                    continue;
                }
                hc_line_t *r = line_of(o, s, o->i);
                if (!one_flag(o, r, FV(s, 0))) {
                    return false;
                }
                size_t lo, hi;
                push_part(o->m, sh->n, o->i - (o->i > root), &lo, &hi);
                const char *from = (const char *) (uintptr_t) l->aux;
                if (0 != r->aux && NULL != from && lo < hi) {
                    int err = fault("push") ? EPERM
                                            : cma_write(sh->pids[o->i], r->aux + lo, from + lo,
                                                        hi - lo);
                    if (0 != err) {
                        l->data[0] = 1; /* the readers read their parts themselves */
                        push_failed(sh, o->i, err);
                    }
                }
            }
            o->i = 0;
            publish(o, l, FV(s, 1));
            o->ph = 2;
        }
        if (!others_done(o, s, root)) {
            return false;
        }
        free(o->tmp);
        o->tmp = NULL;
        finish_reading(ch, s);
        return true;
    }
    size_t lo = 0, hi = 0; /* my part that the root writes (none: packed) */
    if (push && !o->packed) {
        push_part(o->m, sh->n, me - (me > root), &lo, &hi);
    }
    if (!push && 0 == o->ph) {
        o->ph = 1;
    }
    if (0 == o->ph) {
        if (!slot_free(ch, s, false)) {
            return false;
        }
        hc_line_t *mine = line_of(o, s, me);
        mine->aux = o->packed ? 0 : (uint64_t) (uintptr_t) o->dst;
        publish(o, mine, FV(s, 0));
        o->ph = 1;
    }
    if (1 == o->ph) {
        if (!one_flag(o, l, FV(s, 0))) {
            return false;
        }
        uint64_t from = l->aux;
        char *to = o->packed ? (o->tmp = malloc(o->m)) : o->dst;
        int err = 0 == from || NULL == to ? ENOMEM : cma_read(sh->pids[root], to, from, lo);
        if (0 == err) {
            err = cma_read(sh->pids[root], to + hi, from + hi, o->m - hi);
        }
        o->error = err; /* (an errno until phase 2) */
        o->ph = 2;
    }
    if (!one_flag(o, l, FV(s, 1))) {
        return false;
    }
    int err = o->error;
    if (0 == err && 0 != l->data[0] && lo < hi) {
        err = cma_read(sh->pids[root], o->dst + lo, l->aux + lo, hi - lo);
    }
    if (0 == err && o->packed) {
        bcast_put(o, 0, o->m, o->tmp);
    }
    o->error = OMPI_SUCCESS;
    if (0 != err) {
        opal_output(0, "hiercoll: shm: %s rank %d: process_vm_readv of %zu bytes from rank %d: %s",
                    sh->comm->c_name, sh->me, o->m, root, strerror(err));
        o->error = OMPI_ERROR;
    }
    free(o->tmp);
    o->tmp = NULL;
    finish_reading(ch, s);
    return true;
}

static bool run_bcast(hc_shm_op_t *o)
{
    if (PATH_CMA == o->path) {
        return run_bcast_cma(o);
    }
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    bool root = sh->me == o->root;
    for (; o->j < o->nchunks; ++o->j) {
        uint64_t s = o->s0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * o->chunk;
        size_t len = o->m - off < o->chunk ? o->m - off : o->chunk;
        hc_line_t *l = line_of(o, s, o->root);
        char *buf = PATH_INLINE == o->path ? (char *) l->data : cell_of(ch, s, o->root);
        if (root) {
            if (!slot_free(ch, s, PATH_INLINE != o->path)) {
                return false;
            }
            bcast_get(o, off, len, buf);
            publish(o, l, FV(s, 0));
            finish_reading(ch, s);
        } else {
            if (!one_flag(o, l, FV(s, 0))) {
                return false;
            }
            bcast_put(o, off, len, buf);
            finish_reading(ch, s);
            prefetch_next(o, s + 1, o->root);
        }
    }
    return true;
}

/* Fold [e0, e1) elements of every rank's published chunk in MPI rank
 * order into `acc`: acc = x[n-1]; acc = x[i] op acc for i = n-2..0. */
/* acc = x op acc for MPI_SUM of the commonest types, short vectors: Open
 * MPI's op modules cost tens of nanoseconds a call there (IEEE addition is
 * commutative, so the bits are those of the op module's). */
#define HC_SUM_LOOP(T)                                                                             \
    do {                                                                                           \
        const T *a = (const T *) x;                                                                \
        T *b = (T *) acc;                                                                          \
        for (size_t i = 0; i < cnt; ++i) {                                                         \
            b[i] = a[i] + b[i];                                                                    \
        }                                                                                          \
    } while (0)

/* acc = x op acc for cnt elements whose data starts at x and acc.  An op
 * takes MPI buffers, whose data starts at their true lower bound: a
 * derived type's (not 0: a struct whose first byte is at 7, or at -2) is
 * taken back off, as the layer below passes them (it had been added
 * twice: bytes before or past the element written). */
static void op_apply(ompi_op_t *op, ompi_datatype_t *dt, const char *x, char *acc, size_t cnt)
{
    ptrdiff_t lb = 0, ext;
    if (!ompi_datatype_is_predefined(dt)) {
        ompi_datatype_get_true_extent(dt, &lb, &ext);
    }
    ompi_op_reduce(op, (void *) (x - lb), acc - lb, (int) cnt, dt);
}

static inline void reduce_with(ompi_op_t *op, ompi_datatype_t *dt, const char *x, char *acc,
                               size_t cnt)
{
#define HC_SUM_CASE(T, DT)                                                                         \
    if (&DT.dt == dt) {                                                                         \
        HC_SUM_LOOP(T);                                                                            \
        return;                                                                                    \
    }
    if (cnt <= 16 && &ompi_mpi_op_sum.op == op) {
        HC_SUM_CASE(double, ompi_mpi_double)
        HC_SUM_CASE(float, ompi_mpi_float)
        HC_SUM_CASE(int, ompi_mpi_int)
        HC_SUM_CASE(long, ompi_mpi_long)
    }
#undef HC_SUM_CASE
    op_apply(op, dt, x, acc, cnt);
}

static inline void reduce_into(const hc_shm_op_t *o, const char *x, char *acc, size_t cnt)
{
    reduce_with(o->op, o->dt, x, acc, cnt);
}

/* Ranks first + i * stride, or list[first + i] (i < count), in order.
 * `mine`: my own contribution to the chunk (its element 0), or NULL: my
 * line or cell.  Reading back the line I have just published costs about
 * one line crossing here (its ownership is still on the way), so a fold
 * takes my part from my input where it is still intact. */
static void fold_ranks(hc_shm_op_t *o, uint64_t s, int first, int count, int stride,
                       const int *list, size_t e0, size_t e1, char *acc, const char *mine)
{
    hc_shm_chan_t *ch = o->ch;
    size_t cnt = e1 - e0, b0 = e0 * o->esize;
    if (0 == cnt) {
        return;
    }
    for (int i = count - 1; i >= 0; --i) {
        int r = NULL != list ? list[first + i] : first + i * stride;
        const char *x;
        if (NULL != mine && r == ch->s->me) {
            x = mine;
        } else if (PATH_INLINE == o->path) {
            x = (const char *) line_of(o, s, r)->data;
        } else {
            x = cell_of(ch, s, r);
        }
        x += b0;
        if (i == count - 1) {
            memcpy(acc, x, cnt * o->esize);
        } else {
            reduce_into(o, x, acc, cnt);
        }
    }
}

static void fold(hc_shm_op_t *o, uint64_t s, size_t e0, size_t e1, char *acc, const char *mine)
{
    fold_ranks(o, s, 0, o->ch->s->n, 1, NULL, e0, e1, acc, mine);
}

/* An inline reduction in groups: every rank publishes; each leader folds
 * its group (rank order) and publishes the group's value in its line;
 * every rank (allreduce) or the root (reduce) folds the groups' values in
 * group order.  Groups are runs of ranks, so the order is MPI's. */
static bool run_fold_grouped(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    uint64_t s = o->s0;
    int lead, size;
    my_group(o, &lead, &size);
    bool leader = lead == sh->me, folds = HC_ALLREDUCE == o->coll || sh->me == o->root;
    if (0 == o->ph) {
        if (!slot_free(ch, s, false)) {
            return false;
        }
        hc_line_t *l = line_of(o, s, sh->me);
        memcpy(l->data, o->src, o->m);
        publish(o, l, FV(s, 0));
        o->ph = 1;
    }
    if (1 == o->ph) {
        if (leader) {
            unsigned char acc[HC_SHM_INLINE];
            if (!some_flags(o, s, FV(s, 0), lead, size, 1, NULL)) {
                return false;
            }
            fold_ranks(o, s, lead, size, 1, NULL, 0, o->count, (char *) acc, o->src);
            hc_line_t *l = line_of(o, s, lead);
            memcpy(l->data, acc, o->m); /* (nobody reads my own value any more) */
            publish(o, l, FV(s, 1));
        }
        o->ph = 2;
    }
    if (folds) {
        if (!leader_flags(o, s, FV(s, 1))) {
            return false;
        }
        fold_ranks(o, s, 0, sh->ngroups, 1, sh->leaders, 0, o->count, o->dst, NULL);
        if (s - 1 > ch->done_min) {
            ch->done_min = s - 1;
        }
    }
    finish_reading(ch, s);
    return true;
}

/* Chunk j of a reduction's vector: its sequence number, slot, first
 * element and element count. */
typedef struct {
    uint64_t s;
    size_t e0, cnt;
} hc_chunk_t;

static hc_chunk_t chunk_of(const hc_shm_op_t *o)
{
    size_t per = o->chunk / o->esize;
    hc_chunk_t k;
    k.s = o->s0 + (uint64_t) o->j;
    k.e0 = (size_t) o->j * per;
    k.cnt = o->count - k.e0 < per ? o->count - k.e0 : per;
    return k;
}

/* My contribution to chunk k where a fold into [acc, acc + the chunk) may
 * read it: my input, unless the call is in place (the fold overwrites it
 * first); then a copy in `tmp` for an inline chunk, else NULL (my cell). */
static const char *mine_of(const hc_shm_op_t *o, const hc_chunk_t *k, void *tmp)
{
    const char *x = o->src + k->e0 * o->esize;
    if (o->src != o->dst) {
        return x;
    }
    if (PATH_INLINE != o->path) {
        return NULL;
    }
    memcpy(tmp, x, k->cnt * o->esize);
    return tmp;
}

/* Phase 0 of a reduction's chunk: once its slot is free, my elements of
 * it into my line (inline) or my cell, published.  False: not yet. */
static bool publish_chunk(hc_shm_op_t *o, const hc_chunk_t *k)
{
    if (0 != o->ph) {
        return true;
    }
    hc_shm_chan_t *ch = o->ch;
    int me = ch->s->me;
    if (!o->hot && !slot_free(ch, k->s, PATH_INLINE != o->path)) {
        return false;
    }
    hc_line_t *l = line_of(o, k->s, me);
    char *to = PATH_INLINE == o->path ? (char *) l->data : cell_of(ch, k->s, me);
    memcpy(to, o->src + k->e0 * o->esize, k->cnt * o->esize);
    if (ch->s->demote && HC_ALLREDUCE == o->coll && PATH_INLINE != o->path
        && k->cnt * o->esize <= HC_SHM_DEMOTE_MAX) {
        demote(to, k->cnt * o->esize);
    }
    if (agrees(o)) {
        offer_freed(ch->s, l, k->s);
    }
    publish(o, l, FV(k->s, 0));
    o->ph = 1;
    return true;
}

/* Reductions folded whole: every rank publishes its vector chunk by chunk
 * (inline or a cell); every rank (allreduce) or the root (reduce) folds
 * each chunk of all of them straight into its output. */
static bool run_fold(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    int me = ch->s->me;
    bool folds = HC_ALLREDUCE == o->coll || me == o->root;
    /* a reduce's root publishes nothing where it folds from its input:
     * nobody else reads its chunk */
    bool silent = HC_REDUCE == o->coll && folds
                  && (o->src != o->dst || PATH_INLINE == o->path);
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t k = chunk_of(o);
        if (!silent && !publish_chunk(o, &k)) {
            return false;
        }
        if (folds) {
            if (!all_flags(o, k.s, FV(k.s, 0))) {
                return false;
            }
            if (agrees(o) && 0 != ch->s->poffered) {
                agree_freed(ch->s, line_of(o, k.s, 0));
            }
            uint64_t tmp[HC_SHM_INLINE / 8 + 1];
            fold(o, k.s, 0, k.cnt, o->dst + k.e0 * o->esize, mine_of(o, &k, tmp));
        }
        if (!o->hot) {
            finish_reading(ch, k.s);
        }
        if (silent) {
            /* the root runs behind its members: their next lines now (of
             * a next call like this one) */
            for (int r = 0; r < ch->s->n && r < 8; ++r) {
                if (r == me) {
                    continue;
                }
                prefetch_next(o, k.s + 1, r);
            }
        }
    }
    return true;
}

#define HC_SHM_PIECE (128 * 1024)
/* Below this an allreduce on few ranks is folded whole by every rank; from
 * it slice-parallel (2 MiB: 236 against 320 us).  A reduce on few ranks is
 * folded by its root alone at every length: measured at np 2, 1.0 to 1.16
 * times the layer below's from 16 KiB, where slice-parallel folds were 0.4
 * to 0.65.  From 1 MiB the slices had won on the first machine (1.16 at 1
 * MiB, 1.43 from 2 MiB, the root alone 0.99 and 1.22), but on a second
 * (AMD EPYC, 2 cores) they ran 0.85 to 1.11 and, in a slow state of it,
 * 0.30 to 0.40 (1 to 4 MiB), where the root alone ran 0.98 to 1.04 in
 * every job (1 to 16 MiB, 2 jobs each, alternating builds): the layer
 * below's pattern, never far from it. */
#define HC_SHM_ROOT_MAX (1024 * 1024) /* bytes a CMA allreduce folds whole (stays in L2) */

/* Rank r's slice [lo, hi) of `total` elements of esize bytes split over
 * n ranks: whole elements, 64 bytes apart where the size allows. */
static void slice_of(size_t total, size_t esize, int n, int r, size_t *lo, size_t *hi)
{
    size_t q = (total + (size_t) n - 1) / (size_t) n;
    size_t al = esize < 64 && 0 == 64 % esize ? 64 / esize : 1;
    q = (q + al - 1) / al * al;
    *lo = (size_t) r * q < total ? (size_t) r * q : total;
    *hi = *lo + q < total ? *lo + q : total;
}

static void red_slice(const hc_shm_op_t *o, int r, size_t *lo, size_t *hi)
{
    slice_of(o->count, o->esize, o->ch->s->n, r, lo, hi);
}

/* Where rank r's input of CMA reduction s is (the first word of the data
 * of its flag line). */
static uint64_t input_of(const hc_shm_op_t *o, uint64_t s, int r)
{
    uint64_t at;
    memcpy(&at, line_of(o, s, r)->data, sizeof(at));
    return at;
}

/* One piece of a CMA reduction: elements [a, a + cnt) of every rank's
 * input folded in rank order into acc, the first step read straight into
 * it, my own part from my input (copied first where acc is my input, in
 * place), and the last rank under a predefined commutative op starting
 * from the rank before it read into acc (x[n-1] op x[n-2] has the bits of
 * x[n-2] op x[n-1], and a copy is saved).  *reads counts the reads from
 * other ranks; when it reaches `total` their inputs are no longer needed,
 * and a reduce's root lets them go (finish_reading) before its last fold. */
static void cma_piece(hc_shm_op_t *o, uint64_t s, size_t a, size_t cnt, char *acc, size_t *reads,
                      size_t total)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    int me = sh->me, n = sh->n;
    size_t len = cnt * o->esize, off = a * o->esize;
    const char *mine = o->src + off;
    if (mine == acc && me != n - 1) { /* in place: the first step overwrites it */
        memcpy(o->scratch + HC_SHM_PIECE, mine, len);
        mine = o->scratch + HC_SHM_PIECE;
    }
    bool swap = me == n - 1 && n > 1 && mine != acc && ompi_op_is_intrinsic(o->op)
                && ompi_op_is_commute(o->op);
    for (int r = n - 1; r >= 0; --r) {
        if (swap && r == n - 2) {
            continue; /* (read first, below) */
        }
        const char *x = mine;
        int from = swap && r == n - 1 ? n - 2 : r;
        if (from != me) {
            char *to = r == n - 1 ? acc : o->scratch;
            if (0 != cma_read(sh->pids[from], to, input_of(o, s, from) + off, len)) {
                o->error = OMPI_ERROR;
            }
            if (++*reads == total) {
                finish_reading(ch, s);
            }
            x = to;
        }
        if (r == n - 1 && x != acc) {
            memcpy(acc, x, len);
        }
        if (swap && r == n - 1) {
            x = mine;
        } else if (r == n - 1) {
            continue;
        }
        op_apply(o->op, o->dt, x, acc, cnt);
    }
}

/* Long reductions by CMA: one copy of each input, no cells.  Every rank
 * publishes where its input and its slice's result are; folds its slice
 * of every rank's input (rank order, a piece at a time, reading the others
 * with process_vm_readv) into its result; then every rank (allreduce) or
 * the root (reduce) reads the other slices' results; nobody returns while
 * another may still read its memory. */
static bool run_red_cma(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    int me = sh->me, n = sh->n;
    uint64_t s = o->s0;
    bool all = HC_ALLREDUCE == o->coll, root = me == o->root;
    size_t lo, hi;
    red_slice(o, me, &lo, &hi);
    if (0 == o->ph) {
        if (!slot_free(ch, s, false)) {
            return false;
        }
        /* my slice's result: in my output, or (a reduce's non-root) a buffer */
        char *res = all || root ? o->dst + lo * o->esize : NULL;
        if (NULL == res && hi > lo) {
            res = o->tmp = malloc((hi - lo) * o->esize);
        }
        o->scratch = malloc(2 * HC_SHM_PIECE);
        hc_line_t *l = line_of(o, s, me);
        uint64_t where[2] = {(uintptr_t) o->src, (uintptr_t) res};
        memcpy(l->data, where, sizeof(where));
        publish(o, l, FV(s, 0));
        o->ph = 1;
    }
    if (1 == o->ph) {
        if (!all_flags(o, s, FV(s, 0))) {
            return false;
        }
        uint64_t where[2];
        memcpy(where, line_of(o, s, me)->data, sizeof(where));
        char *res = (char *) (uintptr_t) where[1];
        size_t per = HC_SHM_PIECE / o->esize;
        size_t reads = 0;
        for (size_t a = lo; a < hi && NULL != o->scratch && NULL != res; a += per) {
            size_t cnt = hi - a < per ? hi - a : per;
            cma_piece(o, s, a, cnt, res + (a - lo) * o->esize, &reads, SIZE_MAX);
        }
        if (NULL == o->scratch || (NULL == res && hi > lo)) {
            o->error = OMPI_ERR_OUT_OF_RESOURCE;
        }
        publish(o, line_of(o, s, me), FV(s, 1));
        o->ph = 2;
    }
    if (2 == o->ph) {
        if (all || root) {
            if (!all_flags(o, s, FV(s, 1))) {
                return false;
            }
            for (int r = 0; r < n; ++r) {
                size_t rlo, rhi;
                red_slice(o, r, &rlo, &rhi);
                if (r == me || rhi == rlo) {
                    continue;
                }
                uint64_t where[2];
                memcpy(where, line_of(o, s, r)->data, sizeof(where));
                if (0 != cma_read(sh->pids[r], o->dst + rlo * o->esize, where[1],
                                  (rhi - rlo) * o->esize)) {
                    o->error = OMPI_ERROR;
                }
            }
        }
        finish_reading(ch, s);
        o->ph = 3;
    }
    /* who may still read my memory: everyone (allreduce), the root (a
     * reduce's non-roots); a reduce's root saw everyone's slice done */
    if (all ? !others_done(o, s, me) : !root && !one_done(o, s, o->root)) {
        return false;
    }
    if (o->error != OMPI_SUCCESS) {
        opal_output(0, "hiercoll: shm: %s rank %d: single-copy %s of %zu bytes failed",
                    sh->comm->c_name, me, all ? "allreduce" : "reduce", o->m);
    }
    free(o->tmp);
    free(o->scratch);
    o->tmp = o->scratch = NULL;
    return true;
}

/* A long reduction on few ranks by CMA, folded whole: every rank that
 * others read publishes where its input is; the root (reduce) or every
 * rank (allreduce) folds piece by piece in rank order, reading each other
 * input straight from its owner (the first step straight into its
 * output), then says so on its done line; nobody returns while another
 * may still read its input.  Per call a folding rank copies each other
 * input once, a reduce's non-roots nothing: the pattern of the layer
 * below's linear reduce with single copy, without its messages.  At np 2
 * an allreduce so took 1.4-1.6 us at 8 KiB (cells: 1.9-2.1), 8 us at
 * 128 KiB (slice-parallel: 17.5-18.3) and 32-35 at 512 KiB (47-49); from
 * HC_SHM_ROOT_MAX the slices win (2 MiB: 236 against 320). */
static void red_root_pieces(hc_shm_op_t *o);

static bool run_red_root_cma(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    int me = sh->me, n = sh->n;
    uint64_t s = o->s0;
    bool all = HC_ALLREDUCE == o->coll, folds = all || me == o->root;
    if (0 == o->ph) {
        /* (a reduce's root publishes nothing: nobody reads its input) */
        if (all || !folds) {
            if (!slot_free(ch, s, false)) {
                return false;
            }
            hc_line_t *l = line_of(o, s, me);
            uint64_t at = (uintptr_t) o->src;
            memcpy(l->data, &at, sizeof(at)); /* (input_of) */
            publish(o, l, FV(s, 0));
        }
        o->ph = 1;
    }
    if (!folds) {
        if (!one_done(o, s, o->root)) {
            return false;
        }
        finish_reading(ch, s);
        return true;
    }
    bool commute = ompi_op_is_intrinsic(o->op) && ompi_op_is_commute(o->op);
    if (1 == o->ph) {
        if (!all_flags(o, s, FV(s, 0))) {
            return false;
        }
        bool in_place = o->src == o->dst;
        if (2 == n && (in_place ? all : (0 == me || commute))) {
            /* two ranks: the other input read whole, straight into the
             * output (an allreduce in place: into a buffer, as the other
             * still reads mine), the other rank released, then one fold:
             * x0 op x1, or x1 op x0 under a predefined commutative op (the
             * same bits); in place once the other has read mine (below) */
            char *to = in_place ? (o->tmp = malloc(o->m)) : o->dst;
            if (NULL == to || 0 != cma_read(sh->pids[1 - me], to, input_of(o, s, 1 - me), o->m)) {
                o->error = OMPI_ERROR;
            }
            finish_reading(ch, s);
            if (!in_place) {
                op_apply(o->op, o->dt, o->src, o->dst, o->count);
            }
        } else {
            red_root_pieces(o);
        }
        o->ph = 2;
    }
    /* an allreduce's input may still be read by the others */
    if (all && !others_done(o, s, me)) {
        return false;
    }
    if (NULL != o->tmp) {
        if (1 == me || commute) { /* x0 op x1 into x1; x1 op x0 (the same bits) */
            op_apply(o->op, o->dt, o->tmp, o->dst, o->count);
        } else { /* x0 op x1, then over x0 */
            op_apply(o->op, o->dt, o->dst, o->tmp, o->count);
            memcpy(o->dst, o->tmp, o->m);
        }
        free(o->tmp);
        o->tmp = NULL;
    }
    if (o->error != OMPI_SUCCESS) {
        opal_output(0, "hiercoll: shm: %s rank %d: single-copy %s of %zu bytes failed",
                    sh->comm->c_name, me, all ? "allreduce" : "reduce", o->m);
    }
    return true;
}

/* The root's folds of run_red_root_cma, a piece at a time. */
static void red_root_pieces(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    int n = ch->s->n;
    uint64_t s = o->s0;
    o->scratch = malloc(2 * HC_SHM_PIECE);
    size_t per = HC_SHM_PIECE / o->esize;
    /* the non-roots may go once their inputs are read: before the last
     * fold, which then overlaps their next call */
    size_t reads = 0, total = (o->count + per - 1) / per * (size_t) (n - 1);
    for (size_t a = 0; a < o->count && NULL != o->scratch; a += per) {
        size_t cnt = o->count - a < per ? o->count - a : per;
        cma_piece(o, s, a, cnt, o->dst + a * o->esize, &reads, total);
    }
    if (NULL == o->scratch) {
        o->error = OMPI_ERR_OUT_OF_RESOURCE;
    }
    free(o->scratch);
    o->scratch = NULL;
    finish_reading(ch, s); /* (again, or the first time without scratch) */
}

/* Longer reductions, chunk by chunk: publish the chunk in a cell; fold my
 * slice of every rank's chunk into the result cell; copy the chunk out. */
static bool run_slice(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t k = chunk_of(o);
        if (!publish_chunk(o, &k)) {
            return false;
        }
        if (1 == o->ph) {
            if (!all_flags(o, k.s, FV(k.s, 0))) {
                return false;
            }
            size_t lo, hi;
            slice_of(k.cnt, o->esize, sh->n, sh->me, &lo, &hi);
            fold(o, k.s, lo, hi, res_of(ch, k.s) + lo * o->esize, o->src + k.e0 * o->esize);
            publish(o, line_of(o, k.s, sh->me), FV(k.s, 1));
            o->ph = 2;
        }
        if (HC_REDUCE == o->coll && sh->me != o->root) {
            finish_reading(ch, k.s);
            continue;
        }
        if (!all_flags(o, k.s, FV(k.s, 1))) {
            return false;
        }
        memcpy(o->dst + k.e0 * o->esize, res_of(ch, k.s), k.cnt * o->esize);
        finish_reading(ch, k.s);
    }
    return true;
}

/* A convertor of `count` elements of `dt` at `base`, at stream position
 * `pos` (a predefined element's start: see dt_stream). */
static void dt_conv(opal_convertor_t *cv, const void *base, ompi_datatype_t *dt, size_t count,
                    size_t pos, bool send)
{
    OBJ_CONSTRUCT(cv, opal_convertor_t);
    if (send) {
        opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &dt->super, count, base,
                                                 0, cv);
    } else {
        opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &dt->super, count,
                                                 (void *) base, 0, cv);
    }
    if (0 != pos) {
        opal_convertor_set_position(cv, &pos);
    }
}

/* Stream bytes [lo, hi) (both predefined elements' starts) packed into
 * or unpacked from `buf`; every byte (each call moves what it can). */
static void dt_move(const void *base, ompi_datatype_t *dt, size_t count, size_t lo, size_t hi,
                    char *buf, bool pack)
{
    opal_convertor_t cv;
    dt_conv(&cv, base, dt, count, lo, pack);
    size_t done = 0;
    while (lo + done < hi) {
        struct iovec iov = {.iov_base = buf + done, .iov_len = hi - lo - done};
        uint32_t n = 1;
        size_t max = hi - lo - done;
        if (pack) {
            (void) opal_convertor_pack(&cv, &iov, &n, &max);
        } else {
            (void) opal_convertor_unpack(&cv, &iov, &n, &max);
        }
        if (0 == max) {
            break;
        }
        done += max;
    }
    OBJ_DESTRUCT(&cv);
}

/* The start of the predefined element that holds stream byte x (or x
 * itself at the end): where a sending convertor set to x stands. */
static size_t dt_floor(opal_convertor_t *probe, size_t x, size_t total)
{
    size_t pos = x < total ? x : total;
    if (0 != pos && pos < total) {
        opal_convertor_set_position(probe, &pos);
    }
    return pos;
}

/* Bytes [lo, hi) of the stream (predefined elements' starts) around the
 * part [off, off + len) that is ours to move: through a bounce, the rest
 * packed from the user's buffer and written back as it was. */
static void dt_edge(const void *base, ompi_datatype_t *dt, size_t count, size_t lo, size_t hi,
                    size_t off, size_t len, char *buf, bool pack)
{
    char small[512];
    char *tmp = hi - lo <= sizeof(small) ? small : malloc(hi - lo);
    if (NULL == tmp) {
        return;
    }
    size_t a = off > lo ? off : lo, b = off + len < hi ? off + len : hi;
    dt_move(base, dt, count, lo, hi, tmp, true);
    if (pack) {
        memcpy(buf + (a - off), tmp + (a - lo), b - a);
    } else {
        memcpy(tmp + (a - lo), buf + (a - off), b - a);
        dt_move(base, dt, count, lo, hi, tmp, false);
    }
    if (tmp != small) {
        free(tmp);
    }
}

/* Bytes [off, off + len) of `count` elements of `dt` at `base`, as a
 * contiguous stream: packed into `buf`, or unpacked from it.  A chunk's
 * edges fall anywhere in the stream: inside a derived element, inside a
 * predefined one (a cell of 8 KiB is 1365 MPI_SHORT_INTs and 2 bytes of
 * the next one's int).  Open MPI's convertors neither start a pack nor
 * finish an unpack inside a predefined element, so a convertor here
 * starts and stops only at their starts: the whole elements in the
 * middle go straight, the one or two cut by an edge through a bounce
 * (dt_edge).  A predefined element is at most 32 bytes, so the element
 * after byte x starts at or before x + 32 (dt_floor of x + 64 is past x). */
static void dt_stream(const void *base, ompi_datatype_t *dt, size_t count, size_t off, size_t len,
                      char *buf, bool pack)
{
    if (0 == len) {
        return;
    }
    if (ompi_datatype_is_contiguous_memory_layout(dt, (int32_t) count)) {
        ptrdiff_t lb, ext;
        ompi_datatype_get_true_extent(dt, &lb, &ext);
        char *p = (char *) base + lb + off;
        if (pack) {
            memcpy(buf, p, len);
        } else {
            memcpy(p, buf, len);
        }
        return;
    }
    size_t total = count * dt->super.size, end = off + len;
    opal_convertor_t probe;
    dt_conv(&probe, base, dt, count, 0, true);
    size_t p = dt_floor(&probe, off, total);                        /* <= off */
    size_t p2 = p == off ? off : dt_floor(&probe, off + 64, total); /* > off */
    size_t q = dt_floor(&probe, end, total);                        /* <= end */
    size_t r = q == end ? end : dt_floor(&probe, end + 64, total);  /* > end */
    OBJ_DESTRUCT(&probe);
    if (p2 >= q) { /* one stretch with the cut elements */
        if (p == off && r == end) {
            dt_move(base, dt, count, off, end, buf, pack);
        } else {
            dt_edge(base, dt, count, p, r, off, len, buf, pack);
        }
        return;
    }
    if (p < off) {
        dt_edge(base, dt, count, p, p2, off, len, buf, pack);
    }
    dt_move(base, dt, count, p2, q, buf + (p2 - off), pack);
    if (q < end) {
        dt_edge(base, dt, count, q, r, off, len, buf, pack);
    }
}

static ptrdiff_t extent_of(ompi_datatype_t *dt)
{
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dt, &lb, &ext);
    return ext;
}

/* Rank q's block of a movement collective as the user lays it out:
 * where (the receive side at the root, or everyone's for allgather), and
 * its bytes (what every rank agrees on). */
typedef struct { char *base; ompi_datatype_t *dt; size_t count; } hc_blk_t;

static hc_blk_t block_of(const hc_call_t *c, int q)
{
    hc_blk_t b = {NULL, c->rtype, (size_t) c->rcount};
    switch (c->coll) {
    case HC_ALLGATHERV:
        b.count = (size_t) c->rcounts[q];
        b.base = (char *) c->rbuf + (ptrdiff_t) c->rdispls[q] * extent_of(c->rtype);
        break;
    case HC_GATHERV: /* the root's receive blocks */
        b.count = (size_t) c->rcounts[q];
        b.base = (char *) c->rbuf + (ptrdiff_t) c->rdispls[q] * extent_of(c->rtype);
        break;
    case HC_SCATTER: /* the root's send blocks */
        b.dt = c->stype;
        b.count = (size_t) c->scount;
        b.base = (char *) c->sbuf + (ptrdiff_t) q * (ptrdiff_t) c->scount * extent_of(c->stype);
        break;
    case HC_SCATTERV:
        b.dt = c->stype;
        b.count = (size_t) c->scounts[q];
        b.base = (char *) c->sbuf + (ptrdiff_t) c->sdispls[q] * extent_of(c->stype);
        break;
    default: /* allgather, gather (the root's receive blocks) */
        b.base = (char *) c->rbuf + (ptrdiff_t) q * (ptrdiff_t) c->rcount * extent_of(c->rtype);
        break;
    }
    return b;
}

static size_t block_bytes(const hc_call_t *c, int q)
{
    switch (c->coll) {
    case HC_ALLGATHERV:
        return (size_t) c->rcounts[q] * c->rsize;
    case HC_GATHER:
        return (size_t) c->scount * c->ssize; /* (an in-place root's scount is its rcount) */
    case HC_SCATTER:
        return (size_t) c->rcount * c->rsize; /* (an in-place root's rcount is its scount) */
    case HC_GATHERV: /* the root knows every block, a non-root its own */
        return q == c->rank ? (size_t) c->scount * c->ssize : (size_t) c->rcounts[q] * c->rsize;
    case HC_SCATTERV:
        return q == c->rank ? (size_t) c->rcount * c->rsize : (size_t) c->scounts[q] * c->ssize;
    default:
        return (size_t) c->rcount * c->rsize;
    }
}

static inline size_t clip(size_t total, size_t off, size_t chunk)
{
    return total <= off ? 0 : (total - off < chunk ? total - off : chunk);
}

/* This rank's own block where it needs no shared memory: allgather(v)
 * and gather(v) copy their input into their block, scatter(v)'s root its
 * block into its output (nothing in place). */
static void own_block(hc_shm_op_t *o)
{
    const hc_call_t *c = o->c;
    int me = o->ch->s->me;
    if (c->in_place) {
        return;
    }
    if (HC_SCATTER == c->coll || HC_SCATTERV == c->coll) {
        if (me == c->root) {
            hc_blk_t b = block_of(c, me);
            (void) ompi_datatype_sndrcv(b.base, (int32_t) b.count, b.dt, c->rbuf, c->rcount,
                                        c->rtype);
        }
        return;
    }
    if ((HC_GATHER == c->coll || HC_GATHERV == c->coll) && me != c->root) {
        return;
    }
    hc_blk_t b = block_of(c, me);
    (void) ompi_datatype_sndrcv(c->sbuf, c->scount, c->stype, b.base, (int32_t) b.count, b.dt);
}

/* allgather(v), gather, scatter: chunk j of every block through the
 * cells of slot (s0 + j) mod K; a block's bytes [j C, (j+1) C). */
static bool run_move(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    const hc_call_t *c = o->c;
    int me = sh->me, n = sh->n;
    bool rooted = HC_GATHER == c->coll || HC_SCATTER == c->coll;
    bool root = rooted && me == c->root;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        uint64_t s = o->s0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * o->chunk;
        if (0 == o->ph) {
            if (0 == o->j) {
                own_block(o);
            }
            if (!slot_free(ch, s, true)) {
                return false;
            }
            if (HC_SCATTER == c->coll) {
                if (root) {
                    for (int q = 0; q < n; ++q) {
                        if (q != me) {
                            hc_blk_t b = block_of(c, q);
                            dt_stream(b.base, b.dt, b.count, off,
                                      clip(block_bytes(c, q), off, o->chunk), cell_of(ch, s, q),
                                      true);
                        }
                    }
                }
            } else if (!root) { /* allgather(v), gather's non-roots: my block */
                size_t len = clip(block_bytes(c, me), off, o->chunk);
                if (c->in_place) { /* allgather(v): my block is in place */
                    hc_blk_t b = block_of(c, me);
                    dt_stream(b.base, b.dt, b.count, off, len, cell_of(ch, s, me), true);
                } else {
                    dt_stream(c->sbuf, c->stype, (size_t) c->scount, off, len,
                              cell_of(ch, s, me), true);
                }
            }
            publish(o, line_of(o, s, me), FV(s, 0));
            o->ph = 1;
        }
        if (HC_SCATTER == c->coll) {
            if (!root) {
                if (!one_flag(o, line_of(o, s, c->root), FV(s, 0))) {
                    return false;
                }
                dt_stream(c->rbuf, c->rtype, (size_t) c->rcount, off,
                          clip(block_bytes(c, me), off, o->chunk), cell_of(ch, s, me), false);
            }
        } else if (!rooted || root) {
            if (!all_flags(o, s, FV(s, 0))) {
                return false;
            }
            for (int q = 0; q < n; ++q) {
                if (q != me) {
                    hc_blk_t b = block_of(c, q);
                    dt_stream(b.base, b.dt, b.count, off, clip(block_bytes(c, q), off, o->chunk),
                              cell_of(ch, s, q), false);
                }
            }
        }
        finish_reading(ch, s);
    }
    return true;
}

static int chunks_of(size_t bytes, size_t chunk)
{
    return (int) ((bytes + chunk - 1) / chunk);
}

/* A non-root of gatherv or scatterv learnt the operation's chunk count
 * from the root: it took one sequence number at begin and takes the rest
 * now, moving along those of the operations queued behind it (none of
 * which has begun: a channel runs its head only). */
static void take_chunks(hc_shm_op_t *o, int total)
{
    if (total <= o->nchunks) {
        return;
    }
    uint64_t d = (uint64_t) (total - o->nchunks);
    o->nchunks = total;
    o->ch->seq += d;
    for (hc_shm_op_t *p = o->next; NULL != p; p = p->next) {
        *(p->hot ? &p->mbase : &p->s0) += d;
    }
}

/* gatherv, scatterv: as run_move, but only the root knows every block.
 * The operation takes one sequence number per chunk of the largest
 * block, at least one: the root knows how many at init and writes the
 * count in the `aux` of its chunk-0 line, which every non-root reads
 * before it says it is done with that chunk (so the line cannot be
 * reused before).  A rank's block takes its first chunks; the root waits
 * for (gatherv) or fills (scatterv) the cells of the blocks that have
 * bytes in a chunk, a non-root moves its own chunks, then says it is done
 * with the last one. */
static bool run_vmove(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    hc_shm_t *sh = ch->s;
    const hc_call_t *c = o->c;
    int me = sh->me, n = sh->n, root = c->root;
    bool gat = HC_GATHERV == c->coll;
    if (me == root) {
        for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
            uint64_t s = o->s0 + (uint64_t) o->j;
            size_t off = (size_t) o->j * o->chunk;
            if (0 == o->ph) {
                if (!slot_free(ch, s, !gat)) { /* (gatherv's root writes its line only) */
                    return false;
                }
                if (0 == o->j) {
                    own_block(o);
                }
                for (int q = 0; !gat && q < n; ++q) {
                    size_t len = clip(block_bytes(c, q), off, o->chunk);
                    if (q != me && len > 0) {
                        hc_blk_t b = block_of(c, q);
                        dt_stream(b.base, b.dt, b.count, off, len, cell_of(ch, s, q), true);
                    }
                }
                hc_line_t *l = line_of(o, s, me);
                l->aux = (uint64_t) o->nchunks;
                publish(o, l, FV(s, 0));
                o->ph = 1;
            }
            for (; gat && o->i < n; ++o->i) {
                size_t len = clip(block_bytes(c, o->i), off, o->chunk);
                if (o->i == me || 0 == len) {
                    continue;
                }
                if (!one_flag(o, line_of(o, s, o->i), FV(s, 0))) {
                    return false;
                }
                hc_blk_t b = block_of(c, o->i);
                dt_stream(b.base, b.dt, b.count, off, len, cell_of(ch, s, o->i), false);
            }
            o->i = 0;
            finish_reading(ch, s);
        }
        return true;
    }
    size_t mine = block_bytes(c, me);
    int last = chunks_of(mine, o->chunk);
    last = last > 1 ? last : 1; /* chunk 0 has the root's count */
    for (; o->j < last; ++o->j, o->ph = 0) {
        uint64_t s = o->s0 + (uint64_t) o->j;
        size_t off = (size_t) o->j * o->chunk;
        size_t len = clip(mine, off, o->chunk);
        if (gat && 0 == o->ph) {
            if (len > 0) {
                if (!slot_free(ch, s, true)) {
                    return false;
                }
                dt_stream(c->sbuf, c->stype, (size_t) c->scount, off, len, cell_of(ch, s, me),
                          true);
                publish(o, line_of(o, s, me), FV(s, 0));
            }
            o->ph = 1;
        }
        if (0 == o->j || !gat) {
            hc_line_t *r = line_of(o, s, root);
            if (!one_flag(o, r, FV(s, 0))) {
                return false;
            }
            if (0 == o->j) {
                take_chunks(o, (int) r->aux);
            }
            if (!gat) {
                dt_stream(c->rbuf, c->rtype, (size_t) c->rcount, off, len, cell_of(ch, s, me),
                          false);
            }
        }
        finish_reading(ch, s);
    }
    finish_reading(ch, o->s0 + (uint64_t) o->nchunks - 1);
    return true;
}

/* reduce_scatter(_block): chunk j of every rank's whole vector through its
 * cell; each rank folds, in rank order, the part of the chunk that lies in
 * its own block straight into its output. */
static bool run_rscat(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    for (; o->j < o->nchunks; ++o->j, o->ph = 0) {
        hc_chunk_t k = chunk_of(o);
        if (!publish_chunk(o, &k) || !all_flags(o, k.s, FV(k.s, 0))) {
            return false;
        }
        size_t lo = k.e0 > o->mine0 ? k.e0 : o->mine0;
        size_t hi = k.e0 + k.cnt < o->mine1 ? k.e0 + k.cnt : o->mine1;
        if (lo < hi) {
            fold(o, k.s, lo - k.e0, hi - k.e0, o->dst + (lo - o->mine0) * o->esize,
                 o->src == o->dst ? NULL : o->src + k.e0 * o->esize);
        }
        finish_reading(ch, k.s);
    }
    return true;
}

static bool op_step(hc_shm_op_t *o)
{
    switch (o->coll) {
    case HC_BARRIER:
        return run_barrier(o);
    case HC_BCAST:
        return run_bcast(o);
    case HC_GATHERV:
    case HC_SCATTERV:
        return run_vmove(o);
    default:
        switch (o->path) {
        case PATH_MOVE:
            return run_move(o);
        case PATH_RSCAT:
            return run_rscat(o);
        case PATH_SLICE:
            return run_slice(o);
        case PATH_CMA:
            return run_red_cma(o);
        case PATH_CMA_ROOT:
            return run_red_root_cma(o);
        default:
            return PATH_INLINE == o->path && 0 != o->grp ? run_fold_grouped(o) : run_fold(o);
        }
    }
}

/* ------------------------------------------------------------------ */
/* Building an operation from a call                                    */
/* ------------------------------------------------------------------ */

static bool contiguous(ompi_datatype_t *dt, size_t count)
{
    return ompi_datatype_is_contiguous_memory_layout(dt, (int32_t) (count > 1 ? 2 : 1));
}

static char *base_of(const void *buf, ompi_datatype_t *dt)
{
    if (ompi_datatype_is_predefined(dt)) {
        return (char *) buf;
    }
    ptrdiff_t lb, ext;
    ompi_datatype_get_true_extent(dt, &lb, &ext);
    return (char *) buf + lb;
}

/* A flat region's reduce of m bytes (elements of esize) past one flag
 * line goes in the flag lines all the same, in chunks of whole elements
 * (up to HC_SHM_RED_LINES of them): the non-roots publish and go on, as
 * in one line, where cells would hold them to the cell slots (np 2, 128
 * and 256 bytes: 0.16-0.19 us through the cells, tuned's 0.12-0.19). */
#define HC_SHM_RED_LINES 4
static inline bool red_lines(const hc_shm_t *sh, size_t m, size_t esize)
{
    size_t per = 0 != esize ? HC_SHM_INLINE / esize * esize : 0;
    /* (flat, known before the set-up: auto asks then) */
    return sh->n <= mca_coll_hiercoll_params.shm_group_size && 0 != per
           && m <= HC_SHM_RED_LINES * per;
}

/* Sequence numbers an operation of these arguments consumes (1 for
 * barrier, the chunk count otherwise; 0: nothing to do). */
static int op_init(hc_shm_op_t *o, hc_shm_chan_t *ch, const hc_call_t *c)
{
    hc_shm_t *sh = ch->s;
    o->next = NULL;
    o->req = NULL;
    o->ch = ch;
    o->path = PATH_INLINE;
    o->count = o->esize = o->m = o->chunk = 0;
    o->dt = NULL;
    o->op = NULL;
    o->src = NULL;
    o->dst = NULL;
    o->packed = false;
    o->c = NULL;
    o->tmp = NULL;
    o->scratch = NULL;
    o->grp = sh->flat ? 0 : mca_coll_hiercoll_params.shm_group_size;
    o->hot = false; /* (op_ring) */
    o->row = ch->row;
    o->mask = ch->mask;
    o->wait_on = NULL;
    o->wait_val = 0;
    o->nchunks = 0;
    o->coll = c->coll;
    o->root = c->root;
    switch (c->coll) {
    case HC_BARRIER:
        o->nchunks = 1;
        break;
    case HC_BCAST:
        o->m = (size_t) c->rcount * c->rsize;
        o->dt = c->rtype;
        if (0 == o->m) {
            return 0;
        }
        o->path = o->m <= HC_SHM_INLINE ? PATH_INLINE : PATH_CELLS;
        o->chunk = PATH_INLINE == o->path ? HC_SHM_INLINE : sh->cell;
        o->nchunks = (int) ((o->m + o->chunk - 1) / o->chunk);
        if (sh->cma && o->m >= mca_coll_hiercoll_params.shm_cma_min) {
            o->path = PATH_CMA; /* the readers copy straight from the root's memory */
            o->chunk = o->m;
            o->nchunks = 1;
        }
        if (contiguous(c->rtype, (size_t) c->rcount)) {
            o->src = o->dst = base_of(c->rbuf, c->rtype);
        } else {
            o->packed = true;
        }
        break;
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
    case HC_GATHER:
    case HC_SCATTER: {
        size_t most = 0;
        for (int q = 0; q < sh->n; ++q) {
            size_t b = block_bytes(c, q);
            most = b > most ? b : most;
        }
        o->c = c;
        o->path = PATH_MOVE;
        o->chunk = sh->cell;
        o->nchunks = (int) ((most + o->chunk - 1) / o->chunk);
        if (0 == most) {
            return 0;
        }
        break;
    }
    case HC_GATHERV:
    case HC_SCATTERV: {
        /* never 0 (a non-root cannot know that every block is empty):
         * the root's count, a non-root's first (run_vmove takes the rest) */
        size_t most = 0;
        for (int q = 0; sh->me == c->root && q < sh->n; ++q) {
            size_t b = q == c->root ? 0 : block_bytes(c, q);
            most = b > most ? b : most;
        }
        o->c = c;
        o->path = PATH_MOVE;
        o->chunk = sh->cell;
        o->nchunks = most > 0 ? chunks_of(most, o->chunk) : 1;
        break;
    }
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_REDUCE_SCATTER: {
        size_t total = 0;
        o->mine0 = o->mine1 = 0;
        for (int q = 0; q < sh->n; ++q) {
            size_t cq = HC_REDUCE_SCATTER == c->coll ? (size_t) c->rcounts[q] : (size_t) c->rcount;
            if (q == sh->me) {
                o->mine0 = total;
                o->mine1 = total + cq;
            }
            total += cq;
        }
        o->c = c;
        o->count = total;
        o->esize = c->rsize;
        o->m = total * o->esize;
        o->dt = c->rtype;
        o->op = c->op;
        if (0 == o->m) {
            return 0;
        }
        o->path = PATH_RSCAT;
        o->chunk = sh->cell / o->esize * o->esize;
        o->nchunks = (int) ((o->m + o->chunk - 1) / o->chunk);
        o->src = base_of(c->in_place ? c->rbuf : c->sbuf, c->rtype);
        o->dst = base_of(c->rbuf, c->rtype);
        break;
    }
    default: /* reduce, allreduce */
        o->count = (size_t) c->rcount;
        o->esize = c->rsize;
        o->m = o->count * o->esize;
        o->dt = c->rtype;
        o->op = c->op;
        if (0 == o->m) {
            return 0;
        }
        if (o->m <= HC_SHM_INLINE || (HC_REDUCE == c->coll && red_lines(sh, o->m, o->esize))) {
            o->path = PATH_INLINE;
        } else if (sh->n <= mca_coll_hiercoll_params.shm_fold_ranks
                   || (o->m <= sh->cell
                       && o->m * (HC_REDUCE == c->coll ? 1 : (size_t) sh->n)
                              <= mca_coll_hiercoll_params.shm_fold_max)) {
            o->path = PATH_FOLD;
        } else {
            o->path = PATH_SLICE;
        }
        o->chunk = PATH_INLINE != o->path ? sh->cell / o->esize * o->esize
                   : o->m <= HC_SHM_INLINE ? o->m : HC_SHM_INLINE / o->esize * o->esize;
        o->nchunks = (int) ((o->m + o->chunk - 1) / o->chunk);
        /* Folded whole by CMA (few ranks; an allreduce below
         * HC_SHM_ROOT_MAX): every rank (allreduce) or the root (reduce)
         * reads the other inputs straight from their owners and folds
         * them; in place, an allreduce only at two ranks (each reads the
         * other's input into a buffer before anyone overwrites one).  Else
         * slice-parallel. */
        bool whole =
            sh->n <= mca_coll_hiercoll_params.shm_fold_ranks
            && (HC_REDUCE == c->coll || (o->m < HC_SHM_ROOT_MAX && (!c->in_place || 2 == sh->n)));
        size_t cma_from = mca_coll_hiercoll_params.shm_cma_min;
        if (HC_ALLREDUCE == c->coll && whole) {
            /* np 2: each rank copies once instead of twice (into its cell,
             * out of the other's): 8 KiB 1.44-1.61 us against 1.85-2.11
             * from the cells, even at 4 KiB (1.27-1.31 against 1.17-1.35) */
            cma_from /= 2;
        }
        if (sh->cma && o->m >= cma_from) {
            o->path = whole ? PATH_CMA_ROOT : PATH_CMA;
            o->chunk = o->m;
            o->nchunks = 1;
        }
        o->src = base_of(c->in_place ? c->rbuf : c->sbuf, c->rtype);
        o->dst = base_of(c->rbuf, c->rtype);
        if (HC_REDUCE == c->coll && sh->me != c->root) {
            o->dst = NULL; /* insignificant */
        }
        break;
    }
    return o->nchunks;
}

/* An initialized operation's rows: a flat barrier's or an allreduce's in
 * the line (every rank reads every line before it goes on) are the hot
 * rows, numbered apart (see SYNCHRONIZATION); the others the slots. */
static void op_ring(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    o->hot = 0 == o->grp
             && (HC_BARRIER == o->coll || (HC_ALLREDUCE == o->coll && PATH_INLINE == o->path));
    o->row = o->hot ? ch->hot : ch->row;
    o->mask = o->hot ? HC_SHM_HOT - 1 : ch->mask;
    o->mbase = ch->seq;
}

/* Begin: take the sequence numbers; the packing convertor of a bcast. */
static void op_begin(hc_shm_op_t *o, void *ubuf, int ucount)
{
    hc_shm_chan_t *ch = o->ch;
    op_ring(o);
    if (o->hot) { /* (one number: an allreduce in the line is one chunk) */
        o->s0 = ch->hseq++;
    } else {
        o->s0 = ch->seq;
        ch->seq += (uint64_t) o->nchunks;
    }
    o->j = o->ph = o->i = 0;
    o->finished = false;
    o->error = OMPI_SUCCESS;
    if (o->packed) {
        OBJ_CONSTRUCT(&o->conv, opal_convertor_t);
        if (ch->s->me == o->root) {
            opal_convertor_copy_and_prepare_for_send(ompi_mpi_local_convertor, &o->dt->super,
                                                     (size_t) ucount, ubuf, 0, &o->conv);
        } else {
            opal_convertor_copy_and_prepare_for_recv(ompi_mpi_local_convertor, &o->dt->super,
                                                     (size_t) ucount, ubuf, 0, &o->conv);
        }
    }
}

static void op_end(hc_shm_op_t *o)
{
    if (o->packed) {
        OBJ_DESTRUCT(&o->conv);
    }
}

/* ------------------------------------------------------------------ */
/* Channels: operations in order                                        */
/* ------------------------------------------------------------------ */

static void chan_push(hc_shm_chan_t *ch, hc_shm_op_t *o)
{
    o->next = NULL;
    if (NULL == ch->tail) {
        ch->head = ch->tail = o;
    } else {
        ch->tail->next = o;
        ch->tail = o;
    }
}

static void chan_pop(hc_shm_chan_t *ch)
{
    ch->head = ch->head->next;
    if (NULL == ch->head) {
        ch->tail = NULL;
    }
}


/* How a blocking wait waits: poll, then progress, then yield. */
typedef struct {
    uint32_t polls, spin;
    double since;
    bool warned;
} hc_wait_t;

static void wait_init(const hc_shm_t *sh, hc_wait_t *w)
{
    w->spin = spin_of(sh);
    w->polls = 0;
    w->since = 0;
    w->warned = false;
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

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void wait_slow(hc_shm_t *sh, hc_wait_t *w, const hc_shm_op_t *o)
{
    mca_coll_hiercoll_params_t *c = &mca_coll_hiercoll_params;
    opal_progress();
    if (sh->yield) {
        sched_yield();
    }
    /* the clock from the first slow poll, then every 1024th, or every
     * one when yielding: a yield on a loaded node can take milliseconds,
     * and 1024 of them outlast the wait (load 10-20: no line in 4 s) */
    if (c->shm_watchdog > 0 && (0 == w->since || sh->yield || 0 == (w->polls & 1023))) {
        double t = now();
        if (0 == w->since) {
            w->since = t;
        } else if (!w->warned && t - w->since > c->shm_watchdog && NULL != o) {
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
                        sh->comm->c_name, sh->me, world_rank(), t - w->since,
                        coll_name(o->coll), (unsigned long long) o->s0, o->j,
                        o->ph, line, slot, rank,
                        (unsigned long long) o->wait_val,
                        (unsigned long long) (NULL == o->wait_on ? 0 : ld_acq(o->wait_on)));
        }
    }
}

/* One poll's wait: `pause` while spinning, then the slow turn. */
static inline void wait_once(hc_shm_t *sh, hc_wait_t *w, const hc_shm_op_t *o)
{
    if (OPAL_LIKELY(++w->polls < w->spin)) {
        /* (polling without `pause` was slower here: the poller's reads
         * delay the writer's taking the line) */
        cpu_relax();
        return;
    }
    wait_slow(sh, w, o);
}

/* Wait before stepping o again: while spinning, on the very word its step
 * stopped at (a step recomputes where its lines are; this poll does not). */
static inline void wait_step(hc_shm_t *sh, hc_wait_t *w, const hc_shm_op_t *o)
{
    do {
        wait_once(sh, w, o);
    } while (NULL != o->wait_on && w->polls < w->spin && ld_acq(o->wait_on) < o->wait_val);
}

/* ------------------------------------------------------------------ */
/* Requests (nonblocking, persistent)                                   */
/* ------------------------------------------------------------------ */

typedef struct hc_shm_req {
    /* (the MPI layer retains a nonblocking call's datatypes in the nbc
     * request's fields after ompi_request_t) */
    ompi_coll_base_nbc_request_t super;
    hc_shm_op_t op;
    mca_coll_hiercoll_module_t *m;
    ompi_communicator_t *comm;
    hc_call_t call; /* persistent: restarted from it */
    int chan;
    bool persistent, active;
} hc_shm_req_t;

static int shm_progress(void);

static void busy_add(hc_shm_chan_t *ch)
{
    if (ch->busy) {
        return;
    }
    if (g.nbusy == g.capbusy) {
        int cap = g.capbusy ? 2 * g.capbusy : 16;
        hc_shm_chan_t **b = realloc(g.busy, sizeof(*b) * (size_t) cap);
        if (NULL == b) {
            return; /* the blocking waits still advance it */
        }
        g.busy = b;
        g.capbusy = cap;
    }
    g.busy[g.nbusy++] = ch;
    ch->busy = true;
    if (!g.progress_registered) {
        g.progress_registered = true;
        opal_progress_register(shm_progress);
    }
}

static void req_complete(hc_shm_req_t *r)
{
    op_end(&r->op);
    r->active = false;
    r->super.super.req_status.MPI_ERROR = r->op.error;
    ompi_request_complete(&r->super.super, true);
}


static int chan_advance(hc_shm_chan_t *ch)
{
    int n = 0;
    while (NULL != ch->head) {
        hc_shm_op_t *o = ch->head;
        if (!op_step(o)) {
            break;
        }
        o->finished = true;
        chan_pop(ch);
        ++n;
        if (NULL != o->req) {
            req_complete(o->req);
        }
    }
    return n;
}

static int shm_progress(void)
{
    if (g.in_progress || 0 == g.nbusy) {
        return 0;
    }
    g.in_progress = true;
    int done = 0;
    for (int i = 0; i < g.nbusy;) {
        hc_shm_chan_t *ch = g.busy[i];
        done += chan_advance(ch);
        if (NULL == ch->head) {
            ch->busy = false;
            g.busy[i] = g.busy[--g.nbusy];
        } else {
            ++i;
        }
    }
    g.in_progress = false;
    return done;
}

/* Queue an operation on its channel and advance the channel once. */
static void enqueue(hc_shm_op_t *o)
{
    hc_shm_chan_t *ch = o->ch;
    chan_push(ch, o);
    if (ch->head == o && op_step(o)) {
        o->finished = true;
        chan_pop(ch);
        if (NULL != o->req) {
            req_complete(o->req);
        }
        return;
    }
    if (NULL != o->req) {
        busy_add(ch);
    }
}

/* A blocking operation alone on its channel, begun: step it to its end
 * (`polls`: how many its caller has spun already). */
static void run_alone(hc_shm_op_t *o, uint32_t polls)
{
    if (!op_step(o)) {
        hc_wait_t w;
        wait_init(o->ch->s, &w);
        w.polls = polls;
        do {
            wait_step(o->ch->s, &w, o);
        } while (!op_step(o));
    }
    if (OPAL_UNLIKELY(o->ch->s->pnow)) { /* (an agreeing call: PLACEMENT DEFERRED) */
        place_later(o->ch->s->module);
    }
}

/* A blocking operation: alone on its channel, the fastest way; behind
 * requests, it waits its turn advancing them. */
static int run_blocking_op(hc_shm_op_t *o, const hc_call_t *c)
{
    hc_shm_chan_t *ch = o->ch;
    op_begin(o, c->rbuf, c->rcount);
    if (NULL == ch->head) {
        run_alone(o, 0);
    } else {
        chan_push(ch, o);
        hc_wait_t w;
        wait_init(ch->s, &w);
        while (chan_advance(ch), !o->finished) {
            wait_once(ch->s, &w, o);
        }
        if (OPAL_UNLIKELY(ch->s->pnow)) {
            place_later(ch->s->module);
        }
    }
    op_end(o);
    return o->error;
}

static int req_free(ompi_request_t **rp)
{
    hc_shm_req_t *r = (hc_shm_req_t *) *rp;
    if (r->active) {
        return MPI_ERR_REQUEST;
    }
    if (r->persistent && NULL != r->m->shm) { /* offered at the next agreeing call */
        r->m->shm->pfreed |= 1u << (r->chan - 1);
    }

    OBJ_RELEASE(r->m);
    OBJ_RELEASE(r->comm);
    OMPI_REQUEST_FINI(&r->super.super);
    OBJ_DESTRUCT(&r->super);
    free(r);
    *rp = MPI_REQUEST_NULL;
    return OMPI_SUCCESS;
}

static void req_begin(hc_shm_req_t *r)
{
    hc_shm_t *sh = r->m->shm;
    r->super.super.req_state = OMPI_REQUEST_ACTIVE;
    r->super.super.req_complete = REQUEST_PENDING;
    r->super.super.req_status.MPI_ERROR = OMPI_SUCCESS;
    r->active = true;
    if (0 == op_init(&r->op, &sh->ch[r->chan], &r->call)) {
        r->active = false;
        ompi_request_complete(&r->super.super, true);
        return;
    }
    r->op.req = r;
    op_begin(&r->op, r->call.rbuf, r->call.rcount);
    enqueue(&r->op);
}

static int req_start(size_t count, ompi_request_t **reqs)
{
    for (size_t i = 0; i < count; ++i) {
        hc_shm_req_t *r = (hc_shm_req_t *) reqs[i];
        if (r->active) {
            return MPI_ERR_REQUEST;
        }
        req_begin(r);
    }
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* The algorithm: usable, start, auto                                   */
/* ------------------------------------------------------------------ */

static bool served(hc_coll_t k)
{
    switch (k) {
    case HC_BARRIER:
    case HC_BCAST:
    case HC_REDUCE:
    case HC_ALLREDUCE:
    case HC_ALLGATHER:
    case HC_ALLGATHERV:
    case HC_GATHER:
    case HC_SCATTER:
    case HC_REDUCE_SCATTER_BLOCK:
    case HC_REDUCE_SCATTER:
    case HC_GATHERV:
    case HC_SCATTERV:
        return true;
    default:
        return false;
    }
}

static bool is_reduction(hc_coll_t k)
{
    return HC_REDUCE == k || HC_ALLREDUCE == k || HC_REDUCE_SCATTER_BLOCK == k
           || HC_REDUCE_SCATTER == k;
}

bool mca_coll_hiercoll_shm_usable(const hc_call_t *c)
{
    const hc_shm_t *sh = c->module->shm;
    if (NULL == sh || sh->state < HC_SHM_UNSET || !served(c->coll)) {
        return false;
    }
    /* set-up is collective: a nonblocking call or a persistent init is
     * local (it must not wait for the other ranks to arrive), so only a
     * blocking call sets up; the others use a region that exists (the
     * same calls came first everywhere: so is the answer) */
    if (HC_BLOCKING != c->mode && HC_SHM_READY != sh->state) {
        return false;
    }
    if (HC_PERSISTENT == c->mode && sh->npers >= mca_coll_hiercoll_params.shm_persistent
        && 0 == sh->pagreed) {
        return false; /* inits are in the same order everywhere: so is this */
    }
    if (is_reduction(c->coll)) {
        /* the same datatype on every rank (MPI): so is the answer.  An
         * element is folded whole, so it must fit a cell (a chunk is whole
         * elements); the cell follows from the process count and the
         * parameters, alike everywhere, before the set-up too */
        size_t cell = HC_SHM_READY == sh->state ? sh->cell
                                                : cell_for(sh->n, mca_coll_hiercoll_params.shm_slots);
        return contiguous(c->rtype, 2) && c->rsize > 0 && c->rsize <= cell;
    }
    return true;
}

int mca_coll_hiercoll_shm_start(hc_call_t *c, ompi_request_t **request, struct ompi_info_t *info)
{
    (void) info;
    mca_coll_hiercoll_module_t *m = c->module;
    hc_shm_t *sh = m->shm;
    if (HC_SHM_UNSET == sh->state) {
        int rc = setup(m);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (HC_SHM_READY != sh->state) {
        /* set-up failed on some rank, so on every rank: usable now says
         * no everywhere, and the caller selects again */
        return HC_DECLINED;
    }
    if (HC_BLOCKING == c->mode) {
        hc_shm_op_t o;
        if (0 == op_init(&o, &sh->ch[0], c)) {
            return OMPI_SUCCESS;
        }
        return run_blocking_op(&o, c);
    }
    hc_shm_req_t *r = calloc(1, sizeof(*r));
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OBJ_CONSTRUCT(&r->super, ompi_coll_base_nbc_request_t);
    bool persistent = HC_PERSISTENT == c->mode;
    OMPI_REQUEST_INIT(&r->super.super, persistent);
    r->super.super.req_type = OMPI_REQUEST_COLL;
    r->super.super.req_free = req_free;
    r->super.super.req_cancel = mca_coll_hiercoll_req_cancel;
    r->super.super.req_start = req_start;
    r->super.super.req_mpi_object.comm = c->comm;
    r->m = m;
    r->comm = c->comm;
    OBJ_RETAIN(m);
    OBJ_RETAIN(c->comm);
    r->call = *c;
    r->persistent = persistent;
    *request = &r->super.super;
    if (persistent) {
        /* init order: the same channel on every rank, a new one or the
         * lowest agreed free (agree_freed) */
        if (sh->npers < mca_coll_hiercoll_params.shm_persistent) {
            r->chan = 1 + sh->npers++;
        } else {
            int b = __builtin_ctz(sh->pagreed);
            sh->pagreed &= ~(1u << b);
            sh->pfreed &= ~(1u << b);
            r->chan = 1 + b;
            if (0 == sh->me) {
                mca_coll_hiercoll_log(1, "%s: shm: a persistent init takes channel %d back "
                                         "(freed on every rank; %d taken back so far)",
                                      c->comm->c_name, r->chan, ++sh->ptaken);
            }
        }
        r->super.super.req_state = OMPI_REQUEST_INACTIVE;
        r->super.super.req_complete = REQUEST_COMPLETED;
        return OMPI_SUCCESS;
    }
    r->chan = 0;
    req_begin(r);
    return OMPI_SUCCESS;
}

/* Set up the region of comm (a decomposition's part) now, if hiercoll
 * serves comm with the shared-memory level: collective over comm, called
 * by all its ranks alike (set-up must not wait for a call that may come
 * from inside progress). */
void mca_coll_hiercoll_shm_prepare(ompi_communicator_t *comm)
{
    /* hiercoll's module among the communicator's enabled ones (not
     * through a slot: a component above it, e.g. coll/monitoring, may
     * hold them all) */
    mca_coll_base_avail_coll_t *item;
    if (NULL == comm->c_coll->module_list || NULL == mca_coll_hiercoll_hooks.module_class) {
        return;
    }
    OPAL_LIST_FOREACH(item, comm->c_coll->module_list, mca_coll_base_avail_coll_t) {
        mca_coll_hiercoll_module_t *m = (mca_coll_hiercoll_module_t *) item->ac_module;
        if (NULL == m || mca_coll_hiercoll_hooks.module_class != m->super.super.obj_class) {
            continue;
        }
        if (NULL != m->shm && HC_SHM_UNSET == m->shm->state) {
            m->shm->part = true;
            (void) setup(m);
        }
        return;
    }
}

/* What auto runs on it: the collectives measured against the layer below
 * (README, "Shared-memory node level"); the others when forced. */
static bool auto_served(hc_coll_t k)
{
    return HC_BARRIER == k || HC_BCAST == k || HC_REDUCE == k || HC_ALLREDUCE == k;
}

bool mca_coll_hiercoll_shm_claims(const mca_coll_hiercoll_module_t *m, hc_coll_t k)
{
    const hc_shm_t *sh = m->shm;
    return NULL != sh && auto_served(k)
           && (!oversubscribed(sh) || mca_coll_hiercoll_params.shm_oversubscribed);
}

bool mca_coll_hiercoll_shm_may_take(const mca_coll_hiercoll_module_t *m, hc_coll_t k)
{
    return mca_coll_hiercoll_shm_claims(m, k) && m->shm->state >= HC_SHM_UNSET;
}

/* Nonblocking and persistent calls before set-up (no blocking call has set
 * the level up), hiercoll's plans against libnbc at np 2 on one node:
 * ibarrier 0.77, ibcast 0.88 to 1.0; iallreduce 1.25-1.5 below 4 KiB,
 * 0.85-0.97 from 4 to 32 KiB, 1.44-2.0 from 64 KiB; ireduce 1.1-1.2 below
 * 512 bytes, 0.94-1.02 from 512 to 32 KiB, 2.0-3.2 from 64 KiB.  On a
 * second machine (AMD EPYC) the short ones lost: iallreduce 0.70-0.75 at
 * 8-64 bytes, 0.89-0.90 at 1 KiB; ireduce 0.58-0.95 below 1 KiB (and the
 * iallreduces of MPI_Comm_dup's context id on a parent not yet set up made
 * a communicator's life 0.70x).  Below 64 KiB the call goes to the layer
 * below. */
bool mca_coll_hiercoll_shm_defers_nb(const mca_coll_hiercoll_module_t *m, hc_coll_t k,
                                     size_t bytes)
{
    /* (auto only: a forced algorithm, even one that does not fit a call,
     * asks for hiercoll's plans) */
    if (HC_ALGO_AUTO != m->choice[k] || !mca_coll_hiercoll_shm_may_take(m, k)
        || HC_SHM_UNSET != m->shm->state) {
        return false;
    }
    switch (k) {
    case HC_BARRIER:
    case HC_BCAST: return true;
    case HC_ALLREDUCE:
    case HC_REDUCE: return bytes < 64 * 1024;
    default: return false;
    }
}

bool mca_coll_hiercoll_shm_defers(const hc_call_t *c)
{
    return HC_BLOCKING != c->mode
           && mca_coll_hiercoll_shm_defers_nb(c->module, c->coll,
                                              (size_t) c->rcount * c->rsize);
}

bool mca_coll_hiercoll_shm_wants(const hc_call_t *c)
{
    mca_coll_hiercoll_params_t *cc = &mca_coll_hiercoll_params;
    hc_shm_t *sh = c->module->shm;
    if (!mca_coll_hiercoll_shm_claims(c->module, c->coll) || sh->state < HC_SHM_UNSET) {
        return false;
    }
    size_t bytes = HC_BARRIER == c->coll ? 0 : (size_t) c->rcount * c->rsize;
    /* (a decomposition's part takes short reduces too: its non-leaders
     * stay off the PML; and so do blocking ones that fit the flag line
     * where the fast path may take them to a lean call) */
    if (bytes > cc->shm_auto_max
        || (HC_REDUCE == c->coll && bytes < cc->shm_reduce_min && !sh->part
            && !(HC_BLOCKING == c->mode && c->module->fast_ok
                 && (bytes <= HC_SHM_INLINE || red_lines(sh, bytes, c->rsize))))
        || !mca_coll_hiercoll_shm_usable(c)) {
        return false;
    }
    if (HC_SHM_UNSET == sh->state && sh->calls < cc->shm_min_calls) {
        sh->calls++; /* every rank counts the same calls */
        ((hc_call_t *) c)->no_fast = true; /* the next one must ask again */
        return false;
    }
    return true;
}

const hcp_plan_t mca_coll_hiercoll_shm_mark;

/* LEAN CALLS.  A blocking barrier or allreduce of a flat region (no
 * groups), or a bcast or reduce, of one predefined contiguous type short
 * enough for the flag line, on an idle channel 0, goes straight at the
 * lines: no call nor operation is built where nothing waits.  That halves
 * a short bcast's own cost (np 2, 8 bytes, a bare loop: 0.049-0.058 us a
 * call -> 0.023-0.030; a barrier 0.152 -> 0.12-0.13; a reduce 8-64 bytes
 * 2.3-3.8 times tuned's, where the engine's was 0.8-1.0; an allreduce
 * 8-32 bytes 0.172-0.198 -> 0.143-0.146, with copy_short: without it the
 * lean allreduce was no faster than the engine).  It writes exactly what
 * the engine's step would, with the same sequence number; where it must
 * wait, the engine takes over the operation (LEAN_WAIT: a barrier or an
 * allreduce that has published its line and spun coll_hiercoll_shm_spin
 * polls) or the whole call (LEAN_NO: nothing done; a bcast's reader or a
 * reduce's root whose lines are not all there yet). */
enum { LEAN_NO, LEAN_WAIT, LEAN_DONE };

/* A lean call's copy of m <= HC_SHM_INLINE bytes.  Up to `most` bytes:
 * two fixed-size moves that overlap where m is not their size (as libc
 * does inside its memcpy), without the call; beyond, libc's.  Measured at
 * np 2 (4 jobs alternating builds): the lean allreduce of 16-32 bytes
 * 0.143-0.145 us a call against 0.194-0.197 with memcpy (its two calls
 * were most of the fold's cost); bcast and reduce alike.  Moves by 32 for
 * 33 to 64 bytes: the 64-byte allreduce 0.180 against 0.201 us, but the
 * 64-byte bcast and reduce 0.072-0.088 against 0.035-0.040, so only the
 * allreduce takes them (most 64; copy_short: 32). */
static inline void copy_moves(void *to, const void *from, size_t m, size_t most)
{
    char *t = (char *) to;
    const char *f = (const char *) from;
#define HC_MOVE2(W)                                                                                \
    do {                                                                                           \
        char a_[W], b_[W];                                                                         \
        __builtin_memcpy(a_, f, W);                                                                \
        __builtin_memcpy(b_, f + m - W, W);                                                        \
        __builtin_memcpy(t, a_, W);                                                                \
        __builtin_memcpy(t + m - W, b_, W);                                                        \
    } while (0)
    if (m > most) {
        memcpy(t, f, m);
    } else if (m > 32) {
        HC_MOVE2(32);
    } else if (m >= 16) {
        HC_MOVE2(16);
    } else if (m >= 8) {
        HC_MOVE2(8);
    } else if (m >= 4) {
        HC_MOVE2(4);
    } else if (m >= 2) {
        HC_MOVE2(2);
    } else if (1 == m) {
        *t = *f;
    }
#undef HC_MOVE2
}

static inline void copy_short(void *to, const void *from, size_t m)
{
    copy_moves(to, from, m, 32);
}

/* m bytes of f's type: where the engine would carry them in the flag
 * line (op_init: not single copy), and lean may copy them (a predefined
 * contiguous type). */
static inline bool lean_inline(const hc_shm_t *sh, const hc_fast_t *f, size_t m)
{
    return 0 != m && m <= HC_SHM_INLINE
           && !(sh->cma && m >= mca_coll_hiercoll_params.shm_cma_min)
           && ompi_datatype_is_predefined(f->dtype) && contiguous(f->dtype, (size_t) f->count);
}

/* A lean reduce's root done with numbers s .. last: every rank has begun
 * s (see all_flags); its done line; the others' next lines, of a next
 * call like this one (prefetch_next). */
static inline void lean_root_done(hc_shm_chan_t *ch, uint64_t s, uint64_t last)
{
    const hc_shm_t *sh = ch->s;
    if (s - 1 > ch->done_min) {
        ch->done_min = s - 1;
    }
    finish_reading(ch, last);
    for (int r = 0; r < sh->n && r < 8; ++r) {
        if (r != sh->me) {
            prefetch_line(flag_of(ch, last + 1, r));
        }
    }
}

/* A lean reduce in several flag lines (red_lines; the engine numbers and
 * lays them out alike, op_init): chunk j of the message in line s + j.
 * A non-root publishes them all once the last one's slot is free; the
 * root folds once every rank's are there (else LEAN_NO: the engine). */
static __attribute__((noinline)) int lean_reduce_lines(hc_shm_t *sh, hc_shm_chan_t *ch,
                                                       hc_fast_t *f, const void *sbuf,
                                                       void *rbuf, size_t m)
{
    size_t esize = f->dtype->super.size;
    if (0 == m || (sh->cma && m >= mca_coll_hiercoll_params.shm_cma_min)
        || !red_lines(sh, m, esize) || !ompi_datatype_is_predefined(f->dtype)
        || !contiguous(f->dtype, (size_t) f->count)) {
        return LEAN_NO;
    }
    size_t per = HC_SHM_INLINE / esize * esize;
    uint64_t s = ch->seq, nch = (m + per - 1) / per, last = s + nch - 1;
    const char *src = f->in_place ? (const char *) rbuf : (const char *) sbuf;
    if (sh->me != f->root) {
        if (!slot_free(ch, last, false)) { /* (and so every line before it) */
            return LEAN_NO;
        }
        ch->seq = last + 1;
        for (uint64_t j = 0; j < nch; ++j) {
            size_t b = (size_t) j * per, len = m - b < per ? m - b : per;
            hc_line_t *l = flag_of(ch, s + j, sh->me);
            memcpy(l->data, src + b, len);
            st_rel(&l->seq, FV(s + j, 0));
            if (sh->demote) {
                demote(l, HC_SHM_LINE);
            }
        }
        finish_reading(ch, last);
        return LEAN_DONE;
    }
    for (int r = 0; r < sh->n; ++r) {
        for (uint64_t j = 0; r != sh->me && j < nch; ++j) {
            uint64_t t = last - j; /* (the last line first: the one most often missing) */
            if (ld_acq(&flag_of(ch, t, r)->seq) < FV(t, 0)) {
                return LEAN_NO;
            }
        }
    }
    ch->seq = last + 1;
    for (uint64_t j = 0; j < nch; ++j) {
        size_t b = (size_t) j * per, len = m - b < per ? m - b : per;
        uint64_t mine[HC_SHM_INLINE / 8];
        const char *my = src + b;
        char *out = (char *) rbuf + b;
        if (f->in_place) { /* (the fold writes my input's chunk first) */
            memcpy(mine, my, len);
            my = (const char *) mine;
        }
        for (int r = sh->n - 1; r >= 0; --r) {
            const char *x = r == sh->me ? my : (const char *) flag_of(ch, s + j, r)->data;
            if (r == sh->n - 1) {
                memcpy(out, x, len);
            } else {
                reduce_with(f->op, f->dtype, x, out, len / esize);
            }
        }
    }
    lean_root_done(ch, s, last);
    return LEAN_DONE;
}

static int lean(hc_shm_t *sh, hc_shm_chan_t *ch, hc_fast_t *f, hc_coll_t k, const void *sbuf,
                void *rbuf, uint32_t *polls)
{
    uint64_t s = ch->seq;
    hc_line_t *l;
    if (HC_BCAST == k) {
        /* (through one cell, measured 0.63-0.95x the engine's from 128
         * bytes to 4 KiB: the lean bcast stays in the flag line) */
        size_t m = (size_t) f->count * f->dtype->super.size;
        if (!lean_inline(sh, f, m)) {
            return LEAN_NO;
        }
        l = flag_of(ch, s, f->root);
        if (sh->me == f->root) {
            if (!slot_free(ch, s, false)) {
                return LEAN_NO;
            }
            ch->seq = s + 1;
            copy_short(l->data, rbuf, m);
            st_rel(&l->seq, FV(s, 0));
            if (sh->demote && m > HC_SHM_LINE / 2 - 16) { /* (see publish) */
                demote(l, HC_SHM_LINE);
            }
            finish_reading(ch, s);
            return LEAN_DONE;
        }
        if (ld_acq(&l->seq) < FV(s, 0)) {
            return LEAN_NO;
        }
        ch->seq = s + 1;
        copy_short(rbuf, l->data, m);
        finish_reading(ch, s);
        prefetch_line(flag_of(ch, s + 1, f->root));
        return LEAN_DONE;
    }
    if (HC_REDUCE == k) {
        /* the non-roots publish and go on; the root folds once every line
         * is there (it publishes nothing: LEAN_NO leaves it all to the
         * engine) */
        size_t m = (size_t) f->count * f->dtype->super.size;
        if (!sh->flat || !lean_inline(sh, f, m)) { /* (groups: run_fold_grouped; several
                                                     * lines: lean_reduce_lines) */
            return LEAN_NO;
        }
        const char *src = f->in_place ? (const char *) rbuf : (const char *) sbuf;
        if (sh->me != f->root) {
            if (!slot_free(ch, s, false)) {
                return LEAN_NO;
            }
            ch->seq = s + 1;
            l = flag_of(ch, s, sh->me);
            copy_short(l->data, src, m);
            st_rel(&l->seq, FV(s, 0));
            if (sh->demote) {
                demote(l, HC_SHM_LINE);
            }
            finish_reading(ch, s);
            return LEAN_DONE;
        }
        for (int r = 0; r < sh->n; ++r) {
            if (r != sh->me && ld_acq(&flag_of(ch, s, r)->seq) < FV(s, 0)) {
                return LEAN_NO;
            }
        }
        ch->seq = s + 1;
        uint64_t mine[HC_SHM_INLINE / 8];
        if (f->in_place) {
            copy_short(mine, src, m);
            src = (const char *) mine;
        }
        for (int r = sh->n - 1; r >= 0; --r) {
            const char *x = r == sh->me ? src : (const char *) flag_of(ch, s, r)->data;
            if (r == sh->n - 1) {
                copy_short(rbuf, x, m);
            } else {
                reduce_with(f->op, f->dtype, x, rbuf, (size_t) f->count);
            }
        }
        lean_root_done(ch, s, s);
        return LEAN_DONE;
    }
    /* a barrier or an allreduce (flat): publish, then every other line */
    size_t m = 0;
    const char *src = NULL;
    if (HC_ALLREDUCE == k) {
        m = (size_t) f->count * f->dtype->super.size;
        /* (op_init takes single copy for an allreduce from half of
         * shm_cma_min: never lean there) */
        if (!lean_inline(sh, f, m) || (sh->cma && m >= mca_coll_hiercoll_params.shm_cma_min / 2)) {
            return LEAN_NO;
        }
        src = f->in_place ? (const char *) rbuf : (const char *) sbuf;
    }
    if (!sh->flat) {
        return LEAN_NO;
    }
    /* (the hot rows: op_ring's; no slot to wait for, see SYNCHRONIZATION) */
    s = ch->hseq++;
    hc_line_t *row = ch->hot[s & (HC_SHM_HOT - 1)];
    l = row + sh->me;
    if (0 != m) {
        copy_moves(l->data, src, m, 64);
    }
    offer_freed(sh, l, s); /* (the engine's agrees(): a flat barrier, an inline allreduce) */
    st_rel(&l->seq, FV(s, 0));
    if (sh->demote) {
        demote(l, HC_SHM_LINE);
    }
    /* spin as the engine's wait would (then it takes over: progress,
     * yield, the watchdog) */
    uint32_t spin = spin_of(sh);
    for (int r = 0; r < sh->n; ++r) {
        while (r != sh->me && ld_acq(&row[r].seq) < FV(s, 0)) {
            if (++*polls >= spin) {
                return LEAN_WAIT;
            }
            cpu_relax();
        }
    }
    if (0 != sh->poffered) {
        agree_freed(sh, row);
    }
    if (0 != m) { /* fold in rank order, as fold() (mine from my input) */
        uint64_t mine[HC_SHM_INLINE / 8];
        if (f->in_place) {
            copy_moves(mine, src, m, 64);
            src = (const char *) mine;
        }
        for (int r = sh->n - 1; r >= 0; --r) {
            const char *x = r == sh->me ? src : (const char *) row[r].data;
            if (r == sh->n - 1) {
                copy_moves(rbuf, x, m, 64);
            } else {
                reduce_with(f->op, f->dtype, x, rbuf, (size_t) f->count);
            }
        }
    }
    /* every rank has begun this one: each finished every operation
     * numbered before (the channel is idle here; see all_flags) */
    if (ch->seq - 1 > ch->done_min) {
        ch->done_min = ch->seq - 1;
    }
    if (OPAL_UNLIKELY(sh->pnow)) {
        place_later(sh->module);
    }
    return LEAN_DONE;
}

int mca_coll_hiercoll_shm_fast(mca_coll_hiercoll_module_t *m, hc_fast_t *f, hc_coll_t k,
                               const void *sbuf, void *rbuf)
{
    hc_shm_t *sh = m->shm;
    hc_shm_chan_t *ch = &sh->ch[0];
    int lean_rc = LEAN_NO;
    uint32_t polls = 0;
    if (NULL == ch->head && sh->lean) {
        lean_rc = lean(sh, ch, f, k, sbuf, rbuf, &polls);
        if (LEAN_DONE == lean_rc) {
            return OMPI_SUCCESS;
        }
        /* (a reduce past one line: out of lean's way, whose one-line
         * reduce was 0.030 -> 0.032 us with the test in it) */
        if (HC_REDUCE == k && (size_t) f->count * f->dtype->super.size > HC_SHM_INLINE
            && LEAN_DONE == lean_reduce_lines(sh, ch, f, sbuf, rbuf,
                                              (size_t) f->count * f->dtype->super.size)) {
            return OMPI_SUCCESS;
        }
    }
    hc_call_t c;
    c.coll = k;
    c.mode = HC_BLOCKING;
    c.sbuf = sbuf;
    c.rbuf = rbuf;
    c.rcount = f->count;
    c.rtype = f->dtype;
    c.op = f->op;
    c.root = f->root;
    c.in_place = f->in_place;
    c.rsize = 0;
    if (NULL != f->dtype) {
        ompi_datatype_type_size(f->dtype, &c.rsize);
    }
    hc_shm_op_t o;
    if (0 == op_init(&o, ch, &c)) {
        return OMPI_SUCCESS;
    }
    if (LEAN_WAIT == lean_rc) { /* begun and published (op_begin's work, ph 1) */
        op_ring(&o); /* (hot: lean's barriers and allreduces are) */
        o.s0 = ch->hseq - 1;
        o.j = o.i = 0;
        o.ph = 1;
        o.finished = false;
        o.error = OMPI_SUCCESS;
        run_alone(&o, polls);
        return o.error;
    }
    return run_blocking_op(&o, &c);
}
