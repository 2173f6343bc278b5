/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level: memory.  The process's arena, peers'
 * mappings, a region's layout, single copy (CMA) between processes.
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
 */
#include "coll_hiercoll_shm_internal.h"

hc_shm_proc_t hc_shm_g = {.fd = -1};

int hc_shm_world_rank(void)
{
    return ompi_comm_rank(&ompi_mpi_comm_world.comm);
}

/* coll_hiercoll_shm_fault: "STEP:RANK" (world rank) fails that step. */
bool hc_shm_fault(const char *step)
{
    const char *f = mca_coll_hiercoll_params.shm_fault;
    if (NULL == f || '\0' == *f) {
        return false;
    }
    size_t n = strlen(step);
    if (0 != strncmp(f, step, n) || ':' != f[n]) {
        return false;
    }
    return atoi(f + n + 1) == hc_shm_world_rank();
}

uint64_t hc_shm_random64(void)
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

void hc_shm_arena_create(void)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    hc_shm_g.tried = true;
    size_t size = prm->shm_arena_size;
    char path[4096];
    int fd = -1;
    int err = 0;
    const char *step = "create";
    if (hc_shm_fault("create")) {
        err = EACCES;
    } else {
        for (int tries = 0; tries < 8 && fd < 0; ++tries) {
            snprintf(path, sizeof(path), "%s/hc.%u.%d.%016llx", prm->shm_backing,
                     (unsigned) getuid(), (int) getpid(), (unsigned long long) hc_shm_random64());
            fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
            err = fd < 0 ? errno : 0;
            if (fd < 0 && EEXIST != err) {
                break;
            }
        }
    }
    if (fd >= 0) {
        step = "reserve";
        err = hc_shm_fault("reserve") ? ENOSPC : posix_fallocate(fd, 0, (off_t) size);
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
                hc_shm_g.base = p;
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
                              hc_shm_world_rank(), step, prm->shm_backing, strerror(err));
        return;
    }
    hc_shm_g.fd = fd;
    hc_shm_g.size = size;
    hc_shm_g.ok = true;
    hc_shm_g.free = malloc(sizeof(*hc_shm_g.free) * 8);
    if (NULL == hc_shm_g.free) {
        hc_shm_g.ok = false;
        return;
    }
    hc_shm_g.capfree = 8;
    hc_shm_g.nfree = 1;
    hc_shm_g.free[0] = (hc_ext_t){0, size};
}

/* Regions whose members have all left go back to the free list. */
void hc_shm_arena_put(size_t off, size_t len)
{
    int i = 0;
    while (i < hc_shm_g.nfree && hc_shm_g.free[i].off < off) {
        ++i;
    }
    if (hc_shm_g.nfree == hc_shm_g.capfree) {
        hc_ext_t *f = realloc(hc_shm_g.free, sizeof(*f) * (size_t) hc_shm_g.capfree * 2);
        if (NULL == f) {
            return; /* leaks the extent; never corrupts */
        }
        hc_shm_g.free = f;
        hc_shm_g.capfree *= 2;
    }
    memmove(&hc_shm_g.free[i + 1], &hc_shm_g.free[i],
            sizeof(*hc_shm_g.free) * (size_t) (hc_shm_g.nfree - i));
    hc_shm_g.free[i] = (hc_ext_t){off, len};
    hc_shm_g.nfree++;
    if (i + 1 < hc_shm_g.nfree
        && hc_shm_g.free[i].off + hc_shm_g.free[i].len == hc_shm_g.free[i + 1].off) {
        hc_shm_g.free[i].len += hc_shm_g.free[i + 1].len;
        memmove(&hc_shm_g.free[i + 1], &hc_shm_g.free[i + 2],
                sizeof(*hc_shm_g.free) * (size_t) (hc_shm_g.nfree - i - 2));
        hc_shm_g.nfree--;
    }
    if (i > 0 && hc_shm_g.free[i - 1].off + hc_shm_g.free[i - 1].len == hc_shm_g.free[i].off) {
        hc_shm_g.free[i - 1].len += hc_shm_g.free[i].len;
        memmove(&hc_shm_g.free[i], &hc_shm_g.free[i + 1],
                sizeof(*hc_shm_g.free) * (size_t) (hc_shm_g.nfree - i - 1));
        hc_shm_g.nfree--;
    }
}

static void arena_reclaim(void)
{
    for (int i = 0; i < hc_shm_g.npend;) {
        hc_shm_hdr_t *h = (hc_shm_hdr_t *) (hc_shm_g.base + hc_shm_g.pend[i].off);
        if (ld_acq(&h->detached) >= h->n) {
            h->magic = 0;
            hc_shm_arena_put(hc_shm_g.pend[i].off, hc_shm_g.pend[i].len);
            hc_shm_g.pend[i] = hc_shm_g.pend[--hc_shm_g.npend];
        } else {
            ++i;
        }
    }
}

size_t hc_shm_arena_largest(void)
{
    if (!hc_shm_g.ok) {
        return 0;
    }
    arena_reclaim();
    size_t best = 0;
    for (int i = 0; i < hc_shm_g.nfree; ++i) {
        best = hc_shm_g.free[i].len > best ? hc_shm_g.free[i].len : best;
    }
    return best;
}

/* First fit; returns the offset or (size_t) -1. */
size_t hc_shm_arena_get(size_t len)
{
    arena_reclaim();
    for (int i = 0; i < hc_shm_g.nfree; ++i) {
        if (hc_shm_g.free[i].len >= len) {
            size_t off = hc_shm_g.free[i].off;
            hc_shm_g.free[i].off += len;
            hc_shm_g.free[i].len -= len;
            if (0 == hc_shm_g.free[i].len) {
                memmove(&hc_shm_g.free[i], &hc_shm_g.free[i + 1],
                        sizeof(*hc_shm_g.free) * (size_t) (hc_shm_g.nfree - i - 1));
                hc_shm_g.nfree--;
            }
            return off;
        }
    }
    return (size_t) -1;
}

static void arena_pending(size_t off, size_t len)
{
    if (hc_shm_g.npend == hc_shm_g.cappend) {
        int cap = hc_shm_g.cappend ? 2 * hc_shm_g.cappend : 8;
        hc_pend_t *p = realloc(hc_shm_g.pend, sizeof(*p) * (size_t) cap);
        if (NULL == p) {
            return;
        }
        hc_shm_g.pend = p;
        hc_shm_g.cappend = cap;
    }
    hc_shm_g.pend[hc_shm_g.npend++] = (hc_pend_t){off, len};
    arena_reclaim();
}

/* A peer's arena, mapped once per process and counted. */
/* A carved extent whose readers may still be inside (its header a
 * region's: arena_reclaim takes it back once `detached` reaches n). */
void hc_shm_arena_pending(size_t off, size_t len)
{
    arena_pending(off, len);
}

char *hc_shm_map_peer(pid_t pid, int fd, size_t *size)
{
    if (pid == getpid()) {
        *size = hc_shm_g.size;
        return hc_shm_g.ok ? hc_shm_g.base : NULL;
    }
    for (int i = 0; i < hc_shm_g.nmaps; ++i) {
        if (hc_shm_g.maps[i].pid == pid && hc_shm_g.maps[i].fd == fd) {
            hc_shm_g.maps[i].refs++;
            *size = hc_shm_g.maps[i].size;
            return hc_shm_g.maps[i].base;
        }
    }
    if (hc_shm_fault("attach")) {
        return NULL;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int) pid, fd);
    int pfd = open(path, O_RDWR | O_CLOEXEC);
    if (pfd < 0) {
        mca_coll_hiercoll_log(1, "shm: world rank %d cannot open %s: %s", hc_shm_world_rank(), path,
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
    if (hc_shm_g.nmaps == hc_shm_g.capmaps) {
        int cap = hc_shm_g.capmaps ? 2 * hc_shm_g.capmaps : 8;
        hc_map_t *m = realloc(hc_shm_g.maps, sizeof(*m) * (size_t) cap);
        if (NULL == m) {
            munmap(p, (size_t) st.st_size);
            return NULL;
        }
        hc_shm_g.maps = m;
        hc_shm_g.capmaps = cap;
    }
    hc_shm_g.maps[hc_shm_g.nmaps++] = (hc_map_t){pid, fd, p, (size_t) st.st_size, 1};
    *size = (size_t) st.st_size;
    return p;
}

/* A peer's arena no region of ours uses any more stays mapped for the
 * next (a communicator made and freed again and again: mapping, first
 * touches and unmapping with its TLB flush were most of a set-up's time;
 * docs/design/shm-placement-remembered.md), at most HC_IDLE_MAPS of them (the number of
 * processes on the node bounds them anyway, unless processes come and
 * go); drop: unmap it now (its header did not check out). */
#define HC_IDLE_MAPS 16

void hc_shm_unmap_peer(char *base, bool drop)
{
    int idle = 0;
    for (int i = 0; i < hc_shm_g.nmaps; ++i) {
        idle += 0 == hc_shm_g.maps[i].refs;
    }
    for (int i = 0; i < hc_shm_g.nmaps; ++i) {
        if (hc_shm_g.maps[i].base == base && 0 == --hc_shm_g.maps[i].refs
            && (drop || idle >= HC_IDLE_MAPS)) {
            munmap(base, hc_shm_g.maps[i].size);
            hc_shm_g.maps[i] = hc_shm_g.maps[--hc_shm_g.nmaps];
            return;
        }
    }
}

static size_t chan_bytes(int n, int rows, int k, size_t cell)
{
    return (size_t) rows * n * HC_SHM_LINE + (size_t) n * HC_SHM_LINE + (size_t) k * n * cell
           + (size_t) k * cell;
}

size_t hc_shm_region_bytes(const hc_shm_t *s)
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
int hc_shm_flag_slots(int n, int k)
{
    int kf = 2048 / n;
    kf = kf > 64 ? 64 : kf;
    int p = 1;
    while (p < k || 2 * p <= kf) {
        p *= 2;
    }
    return p;
}

size_t hc_shm_cell_for(int n, int k)
{
    mca_coll_hiercoll_params_t *prm = &mca_coll_hiercoll_params;
    size_t cell = prm->shm_cell_size;
    size_t cap = prm->shm_chan_bytes / ((size_t) k * (size_t) (n + 1));
    if (cell > cap) {
        cell = cap;
    }
    cell &= ~(size_t) (HC_SHM_LINE - 1);
    return cell < 1024 ? 1024 : cell;
}

void hc_shm_lay_out(hc_shm_t *s, char *region)
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
 * hc_shm_lay_out finds them (the cells are written before they are read;
 * zeroing the whole region took a good part of each set-up; the arena's
 * pages were allocated by posix_fallocate). */
void hc_shm_zero_control(hc_shm_t *s, char *region)
{
    memset(region, 0, sizeof(hc_shm_hdr_t));
    hc_shm_lay_out(s, region);
    for (int i = 0; i < s->nch; ++i) {
        memset(s->ch[i].flag, 0, (size_t) ((char *) s->ch[i].cells - (char *) s->ch[i].flag));
    }
}

void hc_shm_region_leave(hc_shm_t *s)
{
    if (HC_SHM_READY != s->state) {
        return;
    }
    __atomic_fetch_add(&s->hdr->detached, 1, __ATOMIC_ACQ_REL);
    if (s->owner) {
        arena_pending(s->off, s->len);
    } else {
        hc_shm_unmap_peer(s->map, false);
    }
    s->state = HC_SHM_NEVER;
}

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
        if (OPAL_UNLIKELY(NULL != hc_shm_stepping)) { /* (coll_hiercoll_stats) */
            hc_shm_count_cma(pid, (size_t) moved, !write);
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

int hc_shm_cma_read(pid_t pid, void *to, uint64_t from, size_t len)
{
    return cma_move(pid, to, from, len, false);
}

int hc_shm_cma_write(pid_t pid, uint64_t to, const void *from, size_t len)
{
    return cma_move(pid, (void *) from, to, len, true);
}
