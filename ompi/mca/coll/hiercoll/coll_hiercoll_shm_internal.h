/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The shared-memory node level's own types and hot helpers, shared by its
 * files (coll_hiercoll_shm*.c; the map is in coll_hiercoll_shm.c): the
 * region's lines, channels and operations, the flag loads and stores,
 * the waits, the folds of a few predefined types.  The helpers are static
 * inline here so that every file's hot paths inline them as the one file
 * did; what the files share otherwise is declared at the end of the types,
 * hidden (HC_SHM_HIDDEN: inside the component only, called directly).
 *
 * SYNCHRONIZATION.  A region has CHANNELS: channel 0 carries blocking and
 * nonblocking calls, one channel per persistent request (in init order;
 * never reused after a free: no rank knows when the others free theirs).
 * A channel numbers its operations with a 64-bit sequence s (every rank
 * counts alike); operation s uses slot s mod K.  Each rank writes only
 * its own lines, 128 bytes apart: flag[slot][rank] {seq, inline data} and
 * done[rank] (the last operation it finished reading).  Flags carry
 * FV(s, phase) = 8 s + phase, stored with release and read with acquire,
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
 * every few calls, crossed faster than 64 (docs/design/shm-hot-rows.md).
 */
#ifndef MCA_COLL_HIERCOLL_SHM_INTERNAL_H
#define MCA_COLL_HIERCOLL_SHM_INTERNAL_H

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

/* What the level's files share: inside the component only. */
#define HC_SHM_HIDDEN __attribute__((visibility("hidden")))

#define HC_SHM_LINE 128

/* Hot rows: a channel's flat barriers and allreduces in the line (every
 * rank reads every line) have HC_SHM_HOT rows of their own, numbered
 * apart (see SYNCHRONIZATION). */
#define HC_SHM_HOT 4
#define HC_SHM_INLINE (HC_SHM_LINE - 16)
#define HC_SHM_MAGIC 0x68635f73686d3031ull /* "hc_shm01" */
#define HC_SHM_MAXCH 17                    /* channel 0 + up to 16 persistent */
#define FV(s, ph) (((uint64_t) (s) << 3) | (uint64_t) (ph))
#define FV_SEQ(v) ((v) >> 3) /* (8 phases: the levels' up to HC_SHM_MAXLV + 3) */

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

typedef struct { size_t off, len; } hc_ext_t;
typedef struct { pid_t pid; int fd; char *base; size_t size; int refs; } hc_map_t;

typedef struct { size_t off, len; } hc_pend_t;

/* Per-process state: the arena, peers' mappings, regions pending,
 * the channels that progress advances (coll_hiercoll_shm_arena.c). */
typedef struct {
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
} hc_shm_proc_t;
extern HC_SHM_HIDDEN hc_shm_proc_t hc_shm_g;

typedef struct hc_shm_op hc_shm_op_t;
typedef struct hc_shm_long hc_shm_long_t; /* the long cells (coll_hiercoll_shm_long.c) */

/* TOPOLOGY (coll_hiercoll_shm_group.c).  The levels a rank's place is told
 * by, from the top; a synthetic topology (coll_hiercoll_shm_topology) gives
 * each level's span in PUs, rank r on PU r mod total. */
enum { HC_TOPO_PACK, HC_TOPO_NUMA, HC_TOPO_L3, HC_TOPO_L2, HC_TOPO_CORE, HC_TOPO_PU, HC_TOPO_NLV };
typedef struct {
    int total;               /* PUs (0: no synthetic topology, the real locality) */
    int span[HC_TOPO_NLV];   /* PUs under one object of each level */
    bool given[HC_TOPO_NLV]; /* the level is in the string */
} hc_shm_topo_t;
extern HC_SHM_HIDDEN hc_shm_topo_t hc_shm_topo;

/* LINE TRAFFIC (coll_hiercoll_stats): per collective, the operations and
 * the lines this rank read that another rank wrote (flag and done lines,
 * each once per wait that saw it), by the distance between the two
 * (same L3, same NUMA, same package, across packages); and the lines of
 * cells it read that another rank wrote (bytes / HC_SHM_LINE, rounded up,
 * per read). */
enum { HC_DIST_L3, HC_DIST_NUMA, HC_DIST_PACK, HC_DIST_FAR, HC_NDIST };
#define HC_DIST_OWN HC_NDIST /* bytes[][HC_DIST_OWN]: copies inside my own memory */
/* BYTES AND SYSTEM CALLS (coll_hiercoll_stats; coll_hiercoll_shm_group.c):
 * the bytes this rank copied (or folded) out of another rank's memory by
 * distance, and inside its own (a cell it fills from its buffer, or
 * empties into it); its process_vm_readv/writev calls; and the most ranks
 * that read one of its buffers' contents between their writing and their
 * reuse (any of them may read at once: a star of n - 1 readers, or a
 * tree's few), counted where the reads happen (single copy; the long
 * cells, coll_hiercoll_shm_long.c). */
typedef struct {
    uint64_t ops[HC_NCOLL];
    uint64_t lines[HC_NCOLL][HC_NDIST];
    uint64_t cells[HC_NCOLL][HC_NDIST]; /* cells' lines (HC_SHM_LINE bytes, rounded up) */
    uint64_t bytes[HC_NCOLL][HC_NDIST + 1];
    uint64_t cma[HC_NCOLL];     /* process_vm_readv/writev calls */
    uint64_t readers[HC_NCOLL]; /* the most readers of one buffer's contents */
    uint64_t *reg;              /* [n] the (operation, phase) last registered with each rank */
    uint8_t *dist; /* [n] my distance to each rank */
} hc_shm_stats_t;

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
    bool debug_reuse; /* slot_free rechecks the done lines (coll_hiercoll_shm_debug_reuse) */
    int place;   /* channel 0's candidate rows per flag slot (place_rows) */
    hc_line_t **rows; /* [nch][kf + HC_SHM_HOT] the channels' row tables */
    size_t cell;
    int nch, npers;
    /* Persistent channels given back (bit c - 1: channel c; see
     * hc_shm_agree_freed): whose request this process has freed; what it
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
    /* THE HIERARCHY (not flat; coll_hiercoll_shm_group.c): nlv grouping
     * levels (0: one group of every rank); at level k, runs of level k's
     * ranks, led by their first, whose leaders are level k + 1's ranks;
     * above the last, the top */
    int nlv;
    int hi;  /* my highest level: I am a member of a group at it, not its leader (nlv: the top) */
    int upl; /* my leader at level hi (-1: I am at the top) */
    int *mem; /* my groups' ranks at the levels I lead (k < hi), ascending, me first */
    int mat[HC_SHM_MAXLV], mnum[HC_SHM_MAXLV]; /* level k's: mem[mat[k] .. mat[k] + mnum[k]) */
    int *top; /* [ntop] the top's ranks, ascending */
    int ntop;
    int *up;  /* [nlv][n] each rank's leader at each level (-1: not among its ranks) */
    ompi_communicator_t *comm;
    hc_shm_chan_t ch[HC_SHM_MAXCH];
    /* PLACEMENT DEFERRED: the hot number from which its agreeing calls
     * offer the timing (UINT64_MAX: none), every rank's offer seen (time
     * the rows after this call), its place (memo_key) */
    uint64_t pwant;
    bool pnow;
    uint64_t pkey;
    mca_coll_hiercoll_module_t *module; /* (hc_shm_place_later's calls of the layer below) */
    hc_shm_stats_t *st; /* the line counts (coll_hiercoll_stats), else NULL */
    hc_shm_long_t *lg;  /* the long cells (set up by the first call that takes them) */
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

/* Rows of flag lines of channel i (channel 0 has place candidates per
 * slot) and the region's bytes. */
static inline int hot_of(const hc_shm_t *s) /* (groups: no operation is hot, see hc_shm_op_ring) */
{
    return s->flat ? HC_SHM_HOT : 0;
}

static inline int rows_of(const hc_shm_t *s, int i)
{
    return (s->kf + hot_of(s)) * (0 == i ? s->place : 1);
}

/* Waits yield the core?  Asked when the level is set up and when auto
 * chooses, not once at the module's enable: MPI_COMM_WORLD's comes before
 * MPI_Init sets mpi_yield_when_idle. */
static inline bool oversubscribed(const hc_shm_t *sh)
{
    return opal_progress_yield_when_idle || sh->n > hc_shm_g.ncpus;
}

/* Polls of a wait before Open MPI's progress and yield. */
static inline uint32_t spin_of(const hc_shm_t *sh)
{
    uint32_t spin = (uint32_t) mca_coll_hiercoll_params.shm_spin;
    /* oversubscribed, the rank we wait for may need this core: spin less */
    return sh->yield ? spin / 32 + 1 : spin;
}

typedef struct {
    int64_t pid, fd, free;
    uint64_t cookie_at; /* the CMA probe: where this process keeps `cma_cookie` */
    int64_t key[HC_SHM_MAXLV]; /* my keys of the candidate levels (hc_shm_levels_of) */
    int64_t wrank;      /* my rank in MPI_COMM_WORLD (the synthetic topology's PU) */
} hc_shm_peer_t;

enum { PATH_INLINE, PATH_CELLS, PATH_FOLD, PATH_SLICE, PATH_MOVE, PATH_RSCAT, PATH_CMA,
       PATH_CMA_ROOT, PATH_TREE, PATH_LONG };

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
    int lv;             /* through the hierarchy: the level it is at (hc_shm_up) */
    unsigned char acc[HC_SHM_INLINE]; /* ... an inline reduction's value of my subtree */
    char *tmp;          /* CMA: a packed copy (root) or landing buffer (reader) */
    char *scratch;      /* CMA reductions: two pieces (a peer's, my input's) */
    size_t mine0, mine1; /* reduce-scatter: my block's elements */
    void *ubuf;    /* packed: the user's buffer and count (a receiver unpacks */
    size_t ucount; /* each chunk at its place: hc_shm_dt_stream) */
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

/* Chunk j of a reduction's vector: its sequence number, slot, first
 * element and element count. */
typedef struct {
    uint64_t s;
    size_t e0, cnt;
} hc_chunk_t;

/* How a blocking wait waits: poll, then progress, then yield. */
typedef struct {
    uint32_t polls, spin;
    double since;
    bool warned;
} hc_wait_t;

typedef struct hc_shm_req {
    /* (the MPI layer retains a nonblocking call's datatypes in the nbc
     * request's fields after ompi_request_t) */
    ompi_coll_base_nbc_request_t super;
    hc_shm_op_t op;
    mca_coll_hiercoll_module_t *m;
    ompi_communicator_t *comm;
    hc_call_t call; /* persistent: restarted from it */
    int *arrays;    /* nonblocking: the call's counts and displacements, copied */
    int chan;
    bool persistent, active;
} hc_shm_req_t;

/* Shared between the files of the level (hidden: inside the component). */
/* coll_hiercoll_shm_arena.c */
HC_SHM_HIDDEN int hc_shm_world_rank(void);
HC_SHM_HIDDEN void hc_shm_dt_stream(const void *base, ompi_datatype_t *dt, size_t count,
                                    size_t off, size_t len, char *buf, bool pack);
HC_SHM_HIDDEN bool hc_shm_fault(const char *step);
HC_SHM_HIDDEN uint64_t hc_shm_random64(void);
HC_SHM_HIDDEN void hc_shm_arena_create(void);
HC_SHM_HIDDEN void hc_shm_arena_put(size_t off, size_t len);
HC_SHM_HIDDEN void hc_shm_arena_pending(size_t off, size_t len);
HC_SHM_HIDDEN size_t hc_shm_arena_largest(void);
HC_SHM_HIDDEN size_t hc_shm_arena_get(size_t len);
HC_SHM_HIDDEN char *hc_shm_map_peer(pid_t pid, int fd, size_t *size);
HC_SHM_HIDDEN void hc_shm_unmap_peer(char *base, bool drop);
HC_SHM_HIDDEN size_t hc_shm_region_bytes(const hc_shm_t *s);
HC_SHM_HIDDEN int hc_shm_flag_slots(int n, int k);
HC_SHM_HIDDEN size_t hc_shm_cell_for(int n, int k);
HC_SHM_HIDDEN void hc_shm_lay_out(hc_shm_t *s, char *region);
HC_SHM_HIDDEN void hc_shm_zero_control(hc_shm_t *s, char *region);
HC_SHM_HIDDEN void hc_shm_region_leave(hc_shm_t *s);
HC_SHM_HIDDEN int hc_shm_cma_read(pid_t pid, void *to, uint64_t from, size_t len);
HC_SHM_HIDDEN int hc_shm_cma_write(pid_t pid, uint64_t to, const void *from, size_t len);
/* coll_hiercoll_shm_lines.c */
HC_SHM_HIDDEN void hc_shm_agree_freed(hc_shm_t *sh, const hc_line_t *row);
HC_SHM_HIDDEN bool hc_shm_others_done(hc_shm_op_t *o, uint64_t s, int skip);
HC_SHM_HIDDEN bool hc_shm_one_done(hc_shm_op_t *o, uint64_t s, int r);
HC_SHM_HIDDEN double hc_shm_now(void);
HC_SHM_HIDDEN void hc_shm_wait_slow(hc_shm_t *sh, hc_wait_t *w, const hc_shm_op_t *o);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_reuse_check(const hc_shm_chan_t *ch, uint64_t s,
                                                          int k);
/* coll_hiercoll_shm_group.c */
HC_SHM_HIDDEN int64_t hc_shm_my_key(ompi_communicator_t *comm, int by);
HC_SHM_HIDDEN bool hc_shm_group_ranks(hc_shm_t *s, const hc_shm_peer_t *peers, char *how,
                                      size_t howlen);
HC_SHM_HIDDEN bool hc_shm_up(hc_shm_op_t *o, uint64_t s, void (*in)(hc_shm_op_t *, uint64_t, int));
HC_SHM_HIDDEN bool hc_shm_down(hc_shm_op_t *o, uint64_t s,
                               void (*out)(hc_shm_op_t *, uint64_t, int));
HC_SHM_HIDDEN bool hc_shm_down_at(hc_shm_op_t *o, uint64_t s,
                                  void (*out)(hc_shm_op_t *, uint64_t, int), uint64_t rel);
HC_SHM_HIDDEN int hc_shm_levels_of(int *by);
HC_SHM_HIDDEN bool hc_shm_flat_for(int n);
HC_SHM_HIDDEN int hc_shm_topo_id(int lv, int r);
HC_SHM_HIDDEN void hc_shm_topo_keys(hc_shm_peer_t *peers, int n, const int *by, int nc);
HC_SHM_HIDDEN int hc_shm_topo_describe(const hc_shm_t *s, const hc_shm_peer_t *peers, char *buf,
                                       size_t len);
HC_SHM_HIDDEN bool hc_shm_stats_init(hc_shm_t *s, const hc_shm_peer_t *peers);
HC_SHM_HIDDEN void hc_shm_stats_print(const hc_shm_t *s);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_count(const hc_shm_op_t *o, int first, int count,
                                                     int stride, const int *list);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_count_cell(const hc_shm_op_t *o, int r,
                                                          size_t bytes);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_count_bytes(const hc_shm_op_t *o, int r,
                                                           size_t bytes);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_count_cma(pid_t pid, size_t bytes, bool read);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_count_readers(const hc_shm_op_t *o,
                                                             uint64_t *word, uint64_t key);
/* The operation being stepped (op_step; its single copy is counted in
 * hc_shm_cma_read and _write), with coll_hiercoll_stats; else NULL. */
extern HC_SHM_HIDDEN const hc_shm_op_t *hc_shm_stepping;
/* Bytes copied by o out of rank r's memory (r: me, inside my own). */
#define HC_SHM_BYTES(o, r, bytes)                                                                  \
    do {                                                                                           \
        if (OPAL_UNLIKELY(NULL != (o)->ch->s->st)) {                                               \
            hc_shm_count_bytes((o), (r), (bytes));                                                 \
        }                                                                                          \
    } while (0)
/* Rank r's cell of `bytes` read (counted with coll_hiercoll_stats). */
#define HC_SHM_CELL_READ(o, r, bytes)                                                              \
    do {                                                                                           \
        if (OPAL_UNLIKELY(NULL != (o)->ch->s->st)) {                                               \
            hc_shm_count_cell((o), (r), (bytes));                                                  \
        }                                                                                          \
    } while (0)
/* coll_hiercoll_shm_setup.c */
HC_SHM_HIDDEN int hc_shm_setup(mca_coll_hiercoll_module_t *m);
HC_SHM_HIDDEN __attribute__((cold)) void hc_shm_place_later(mca_coll_hiercoll_module_t *m);
/* coll_hiercoll_shm_bcast.c */
HC_SHM_HIDDEN bool hc_shm_run_barrier(hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_run_bcast(hc_shm_op_t *o);
/* coll_hiercoll_shm_reduce.c */
HC_SHM_HIDDEN void hc_shm_fold(hc_shm_op_t *o, uint64_t s, size_t e0, size_t e1, char *acc,
                               const char *mine);
HC_SHM_HIDDEN bool hc_shm_run_fold_grouped(hc_shm_op_t *o);
HC_SHM_HIDDEN hc_chunk_t hc_shm_chunk_of(const hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_publish_chunk(hc_shm_op_t *o, const hc_chunk_t *k);
HC_SHM_HIDDEN bool hc_shm_run_fold(hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_run_red_cma(hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_run_red_root_cma(hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_run_slice(hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_run_tree(hc_shm_op_t *o);
/* coll_hiercoll_shm_move.c */
HC_SHM_HIDDEN size_t hc_shm_block_bytes(const hc_call_t *c, int q);
HC_SHM_HIDDEN bool hc_shm_run_move(hc_shm_op_t *o);
HC_SHM_HIDDEN int hc_shm_chunks_of(size_t bytes, size_t chunk);
HC_SHM_HIDDEN bool hc_shm_run_vmove(hc_shm_op_t *o);
HC_SHM_HIDDEN bool hc_shm_run_rscat(hc_shm_op_t *o);
/* coll_hiercoll_shm_long.c */
HC_SHM_HIDDEN bool hc_shm_long_takes(hc_shm_op_t *o, const hc_call_t *c);
HC_SHM_HIDDEN bool hc_shm_run_long(hc_shm_op_t *o);
HC_SHM_HIDDEN void hc_shm_long_leave(hc_shm_t *sh);
/* coll_hiercoll_shm_op.c */
HC_SHM_HIDDEN int hc_shm_op_init(hc_shm_op_t *o, hc_shm_chan_t *ch, const hc_call_t *c);
HC_SHM_HIDDEN void hc_shm_op_ring(hc_shm_op_t *o);
HC_SHM_HIDDEN void hc_shm_run_alone(hc_shm_op_t *o, uint32_t polls);
HC_SHM_HIDDEN int hc_shm_run_blocking_op(hc_shm_op_t *o, const hc_call_t *c);
HC_SHM_HIDDEN int hc_shm_req_free(ompi_request_t **rp);
HC_SHM_HIDDEN void hc_shm_req_begin(hc_shm_req_t *r);
HC_SHM_HIDDEN int hc_shm_req_start(size_t count, ompi_request_t **reqs);

/* Operation s's flag line of rank r (its rows: see hc_shm_op_ring). */
static inline hc_line_t *line_of(const hc_shm_op_t *o, uint64_t s, int r)
{
    return o->row[s & o->mask] + r;
}

/* Every rank done with operation s - K?  (Before writing slot s mod K:
 * K the flag slots, or the cell slots where the operation writes cells.) */
static inline bool slot_wait(hc_shm_chan_t *ch, uint64_t s, int k)
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
 * passes without reading a done line).  The cached minimum is also
 * advanced by inference (all_begun, all_flags, the lean calls: every rank
 * has begun s, so each finished what came before); under
 * coll_hiercoll_shm_debug_reuse every reuse it allows rechecks the done
 * lines (hc_shm_reuse_check: an abort where the cache was ahead). */
static inline bool slot_free(hc_shm_chan_t *ch, uint64_t s, bool cells)
{
    int k = cells ? ch->s->k : ch->s->kf;
    if (s <= (uint64_t) k) {
        return true;
    }
    if (ch->done_min + (uint64_t) k >= s) {
        if (OPAL_UNLIKELY(ch->s->debug_reuse)) {
            hc_shm_reuse_check(ch, s, k);
        }
        return true;
    }
    return slot_wait(ch, s, k);
}

/* Push [p, p + len) out of this core's caches into the shared last-level
 * cache, where its readers take it without a snoop of this core (CLDEMOTE,
 * 0F 1C /0, sits in the reserved-NOP space: a NOP on processors without
 * it).  Two processes exchanging lines did so faster with it on a Xeon
 * that has CLDEMOTE (docs/design/shm-line-demotion.md). */
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

/* Every rank has begun operation s, so each finished the ones before it
 * (a channel runs them in order): slot_free need not read their done
 * lines (see all_flags). */
static inline void all_begun(hc_shm_chan_t *ch, uint64_t s)
{
    if (s - 1 > ch->done_min) {
        ch->done_min = s - 1;
    }
}

static inline void finish_reading(hc_shm_chan_t *ch, uint64_t s)
{
    st_rel(&ch->done[ch->s->me].seq, s);
}

/* Rank r's lines of operation s, for a reader of a short message that
 * runs behind r (a bcast's receiver, a reduce's root): its flag line, and
 * up to 1 KiB of its cell where the message takes cells. */
static inline void prefetch_next(const hc_shm_op_t *o, uint64_t s, int r)
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
static inline bool all_flags(hc_shm_op_t *o, uint64_t s, uint64_t v)
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
    if (OPAL_UNLIKELY(NULL != ch->s->st)) {
        hc_shm_count(o, 0, ch->s->n, 1, NULL);
    }
    /* every rank has begun operation FV_SEQ(v), so each finished the ones
     * before it (a channel runs them in order): slot_free need not read
     * the done lines for those (a hot operation: those numbered before
     * mbase) */
    uint64_t begun = o->hot ? o->mbase : FV_SEQ(v);
    if (begun - 1 > ch->done_min) {
        ch->done_min = begun - 1;
    }
    return true;
}

static inline bool one_flag(hc_shm_op_t *o, hc_line_t *l, uint64_t v)
{
    if (ld_acq(&l->seq) < v) {
        o->wait_on = &l->seq;
        o->wait_val = v;
        return false;
    }
    if (OPAL_UNLIKELY(NULL != o->ch->s->st)) { /* (whose line: of operation FV_SEQ(v)'s row) */
        hc_shm_count(o, (int) (l - line_of(o, FV_SEQ(v), 0)), 1, 1, NULL);
    }
    return true;
}

/* Phase v of my line (with whatever was written into it and the cells
 * before): visible, and out of my core's caches for its readers; not a
 * bcast's line whose payload stays in its first 64 bytes (the root runs
 * ahead of its readers and the demotion is on its path: slower).
 * (Deciding that once in hc_shm_op_init, in a field of the operation, made
 * the 64-byte bcast slower still: the inline test stays;
 * docs/design/shm-line-demotion.md.) */
static inline void publish(const hc_shm_op_t *o, hc_line_t *l, uint64_t v)
{
    st_rel(&l->seq, v);
    if (o->ch->s->demote && (HC_BCAST != o->coll || o->m > HC_SHM_LINE / 2 - 16)) {
        demote(l, HC_SHM_LINE);
    }
}

/* Wait (without blocking) until the flags of slot of ranks first,
 * first + stride, ... (count of them), or list[first + i], reach v,
 * resuming at o->i. */
static inline bool some_flags(hc_shm_op_t *o, uint64_t s, uint64_t v, int first, int count,
                              int stride, const int *list)
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
    if (OPAL_UNLIKELY(NULL != o->ch->s->st)) {
        hc_shm_count(o, first, count, stride, list);
    }
    return true;
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
static inline void op_apply(ompi_op_t *op, ompi_datatype_t *dt, const char *x, char *acc,
                            size_t cnt)
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

/* Below this an allreduce on few ranks is folded whole by every rank; from
 * it slice-parallel, which is faster there.  A reduce on few ranks is
 * folded by its root alone at every length: slice-parallel folds lost to
 * the layer below from 16 KiB, and from 1 MiB, where they had won on one
 * machine, they lost on another, while the root alone stayed close to the
 * layer below on both (its pattern; the figures: docs/design/shm-cma.md). */
#define HC_SHM_ROOT_MAX (1024 * 1024) /* bytes a CMA allreduce folds whole (stays in L2) */

static inline bool contiguous(ompi_datatype_t *dt, size_t count)
{
    return ompi_datatype_is_contiguous_memory_layout(dt, (int32_t) (count > 1 ? 2 : 1));
}

/* A flat region's reduce of m bytes (elements of esize) past one flag
 * line goes in the flag lines all the same, in chunks of whole elements
 * (up to HC_SHM_RED_LINES of them): the non-roots publish and go on, as
 * in one line, where cells would hold them to the cell slots (through the
 * cells it was no faster than tuned; docs/design/shm-auto-and-reduce-lines.md). */
#define HC_SHM_RED_LINES 4

static inline bool red_lines(const hc_shm_t *sh, size_t m, size_t esize)
{
    size_t per = 0 != esize ? HC_SHM_INLINE / esize * esize : 0;
    /* (flat, known before the set-up: auto asks then) */
    return hc_shm_flat_for(sh->n) && 0 != per && m <= HC_SHM_RED_LINES * per;
}

static inline void wait_init(const hc_shm_t *sh, hc_wait_t *w)
{
    w->spin = spin_of(sh);
    w->polls = 0;
    w->since = 0;
    w->warned = false;
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
    hc_shm_wait_slow(sh, w, o);
}

/* Wait before stepping o again: while spinning, on the very word its step
 * stopped at (a step recomputes where its lines are; this poll does not). */
static inline void wait_step(hc_shm_t *sh, hc_wait_t *w, const hc_shm_op_t *o)
{
    do {
        wait_once(sh, w, o);
    } while (NULL != o->wait_on && w->polls < w->spin && ld_acq(o->wait_on) < o->wait_val);
}


#endif /* MCA_COLL_HIERCOLL_SHM_INTERNAL_H */
