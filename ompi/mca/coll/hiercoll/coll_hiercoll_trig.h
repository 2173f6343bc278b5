/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll's triggered-operation engine: MPI-free
 * (docs/design/offload-engine.md; measured: docs/offload.md).
 *
 * The engine plays a NIC with triggered operations, in software.  Its
 * primitives are data, so planners describe a collective once and every
 * backend (host progress over the PML, a UCX agent thread, libfabric
 * FI_TRIGGER) carries the same program.
 *
 * ---- Objects ------------------------------------------------------------
 *
 * ENGINE (hct_engine_t): one per process, the "NIC".  It owns the bounded
 *   packet queue (MPQ: packets held before their program is armed) and the
 *   channels.
 * CHANNEL (hct_chan_t): one per communicator that offloads, id 0..65535,
 *   the same id on every member (the glue uses the context id), with the
 *   member count, this process's rank, and per-peer credits.
 * PORT: one armed program (one collective call) on a channel, named by a
 *   16-bit sequence number that every member gives the same call (the
 *   glue numbers calls per communicator; persistent requests keep theirs).
 *   (chan, seq) is the virtual port a packet is addressed to.
 * PACKET (hct_pkt_t): HCT_PKT_BYTES = 128 bytes: an 8-byte header
 *   (chan, seq, ctr, slot, kind) and 120 bytes of payload.  A vector longer
 *   than one payload travels as several packets ("packet index" p), each
 *   with its own counters: a port has HCT_NCTR_PKT counters per packet
 *   index plus one port-wide DONE counter.
 * COUNTER: counts events (packets landing on it, local puts, ADDs).  Each
 *   counter of an armed port has operand SLOTS (120 bytes each): a packet's
 *   payload lands in the slot its header names, so the ALU can combine the
 *   operands in a FIXED slot order whatever the arrival order (results are
 *   bitwise identical on every run, floats included).
 * CHAIN (hct_chain_t): a threshold on one counter and a sequence of
 *   descriptors run, in order, when the counter reaches the threshold
 *   (once).  A chain whose threshold is already met when it is armed runs
 *   at once.  Several chains may watch one counter.
 * DESCRIPTOR (hct_desc_t), run on the chain's 120-byte WORK payload:
 *   LOAD    work = slot s of counter c
 *   REDUCE  work = work (op) slot s (op) slot s+1 ... (ALU: at most
 *           HCT_ALU_MAX = 7 operands per descriptor, work included when
 *           `acc` is set; longer sums are several REDUCEs, still in slot
 *           order)
 *   STORE   slot s of counter c = work ("replace payload"), no count
 *   SEND    work to each target of a list: (rank, ctr, slot) on the same
 *           port of that rank (rank == own rank is a loopback)
 *   DELIVER work -> the caller's output vector at this packet's offset
 *   ADD     counter c += n (may fire c's chains; DONE tells the caller)
 *
 * ---- Programs -------------------------------------------------------------
 *
 * A planner (hct_plan_*) fills an hct_prog_t: a TEMPLATE for one packet
 * index (counters 0..nctr-1, chains, descriptors, send targets) plus the
 * vector's geometry (element type, op, count, bytes per element).  Arming
 * (hct_arm) instantiates the template for each packet index p, puts the
 * caller's input into the slots the program names (`inputs`: a local put
 * counts like a packet), and runs every chain already due.  Counter index
 * HCT_CTR_DONE in a descriptor means the port-wide DONE counter; the call
 * is complete when DONE reaches prog->done_threshold (hct_port_done()).
 *
 * ---- Packets that come early, credits, the MPQ --------------------------
 *
 * A packet whose port is not armed yet (or whose channel does not exist
 * yet) is counted and KEPT in the MPQ; arming replays it.  A packet for an
 * armed port is consumed at once (its payload moves into its slot).  The
 * MPQ is bounded (hct_engine_config_t.mpq_packets); software keeps it from
 * overflowing with CREDITS: a sender may have at most `credits` packets
 * outstanding (not yet consumed) at each (channel, peer); the receiver
 * returns credits with an HCT_KIND_CREDIT packet once half of them are
 * consumed.  Packets without a credit wait in the sender's backlog.  An
 * overflow is never silent: it is counted (hct_stats_t.mpq_overflow) and
 * the packet is still kept.
 *
 * ---- What a BACKEND must do --------------------------------------------------
 *
 * 1. Carry packets: implement hct_backend_t.send(ctx, chan, rank, pkt):
 *    deliver the 128 bytes to the engine of process `rank` of channel
 *    `chan` (chan->user is the glue's per-channel pointer, e.g. its
 *    communicator or endpoint table), together with the sender's rank.  It
 *    may be called from inside hct_deliver()/hct_arm() (a chain firing);
 *    it must not call back into the engine.  The packet may be reused
 *    when send returns (copy it or send it eagerly).
 * 2. Deliver: when a packet arrives, call hct_deliver(engine, src_rank,
 *    pkt) (under the engine's lock if several threads use the engine;
 *    the engine itself takes no lock).  Chains fire inside this call.
 * 3. Let the caller arm and wait: hct_arm() from the calling thread (under
 *    the same lock), then poll hct_port_done() (or be told by the glue).
 *    A host-progress backend runs 2. inside Open MPI's progress; an agent
 *    backend runs it in its own thread (a software NIC).  A hardware
 *    backend (FI_TRIGGER) may translate a program's chains into deferred
 *    work instead of running this engine: the program is plain data.
 * 4. Retire: hct_disarm() once hct_port_done().  Packets waiting for
 *    credits are the engine's (copies), so a reduce non-root is done as
 *    soon as its chain has run; hct_engine_backlog() tells when the
 *    engine may be freed.
 */
#ifndef MCA_COLL_HIERCOLL_TRIG_H
#define MCA_COLL_HIERCOLL_TRIG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Packets                                                              */
/* ------------------------------------------------------------------ */

#define HCT_PKT_BYTES 128
#define HCT_PAYLOAD 120
#define HCT_ALU_MAX 7 /* operands one REDUCE descriptor combines */

enum { HCT_KIND_DATA = 0, HCT_KIND_CREDIT = 1 };

typedef struct hct_hdr {
    uint16_t chan; /* channel (communicator) id */
    uint16_t seq;  /* port on the channel (the call) */
    uint16_t ctr;  /* counter of the port (absolute: p * nctr + template counter) */
    uint8_t slot;  /* operand slot; CREDIT: unused */
    uint8_t kind;  /* HCT_KIND_*; CREDIT packets carry the count in ctr */
} hct_hdr_t;

typedef struct hct_pkt {
    hct_hdr_t hdr;
    unsigned char payload[HCT_PAYLOAD];
} hct_pkt_t;

/* ------------------------------------------------------------------ */
/* The ALU                                                              */
/* ------------------------------------------------------------------ */

typedef enum hct_op {
    HCT_SUM,
    HCT_MAX,
    HCT_MIN,
    HCT_LAND,
    HCT_BAND,
    HCT_LOR,
    HCT_BOR,
    HCT_LXOR,
    HCT_BXOR,
    HCT_NOP
} hct_op_t;

typedef enum hct_type {
    HCT_INT8,
    HCT_UINT8,
    HCT_INT16,
    HCT_UINT16,
    HCT_INT32,
    HCT_UINT32,
    HCT_INT64,
    HCT_UINT64,
    HCT_FLOAT,
    HCT_DOUBLE,
    HCT_LONG_DOUBLE,
    HCT_BOOL,
    HCT_NTYPE
} hct_type_t;

/* Bytes of one element of a type. */
size_t hct_type_size(hct_type_t t);
/* Is (op, type) something the ALU does?  (Bitwise ops on floats are not.) */
int hct_alu_supports(hct_op_t op, hct_type_t t);
/* dst[i] = dst[i] (op) src[i] for count elements. */
void hct_alu(hct_op_t op, hct_type_t t, void *dst, const void *src, size_t count);

/* ------------------------------------------------------------------ */
/* Programs (the IR)                                                    */
/* ------------------------------------------------------------------ */

enum {
    HCT_D_LOAD,    /* work = slot(ctr, slot) */
    HCT_D_REDUCE,  /* work = [work op] slot(ctr, slot) op ... (n slots) */
    HCT_D_STORE,   /* slot(ctr, slot) = work */
    HCT_D_SEND,    /* work -> targets[first .. first + n) */
    HCT_D_DELIVER, /* work -> output vector */
    HCT_D_ADD      /* counter(ctr) += n */
};

#define HCT_CTR_DONE 0xffff /* the port-wide completion counter */

typedef struct hct_desc {
    uint8_t op;    /* HCT_D_* */
    uint8_t acc;   /* REDUCE: work is the first operand */
    uint16_t ctr;  /* template counter, or HCT_CTR_DONE (ADD) */
    uint16_t slot; /* first slot (LOAD/REDUCE/STORE) */
    uint16_t n;    /* REDUCE: slots; SEND: targets; ADD: increment */
    int first;     /* SEND: first target */
} hct_desc_t;

typedef struct hct_target {
    int rank;     /* channel rank */
    uint16_t ctr; /* template counter on that rank */
    uint8_t slot;
} hct_target_t;

typedef struct hct_chain {
    uint16_t ctr;       /* template counter watched */
    uint16_t threshold; /* fires once when the counter reaches it */
    int first, n;       /* descriptors */
} hct_chain_t;

/* A local put at arm time: the caller's input for this packet index goes
 * into slot(ctr, slot) and counts one on ctr. */
typedef struct hct_input {
    uint16_t ctr;
    uint8_t slot;
} hct_input_t;

typedef struct hct_prog {
    /* template for one packet index */
    int nctr;         /* counters per packet index */
    uint16_t *nslots; /* [nctr] operand slots of each counter */
    hct_chain_t *chains;
    int nchains;
    hct_desc_t *descs;
    int ndescs;
    hct_target_t *targets;
    int ntargets;
    hct_input_t *inputs;
    int ninputs;
    int cap_ctr, cap_chains, cap_descs, cap_targets, cap_inputs;
    /* the vector */
    hct_op_t op;
    hct_type_t type;
    size_t count;   /* elements */
    size_t esize;   /* bytes per element */
    size_t per_pkt; /* elements per packet (payload / esize) */
    int npkt;       /* packet indices: ceil(count / per_pkt), at least 1 */
    /* completion: DONE reaches this (npkt * per-packet ADDs to DONE) */
    uint32_t done_threshold;
    /* model figures the planner knows (tests compare them) */
    int depth;         /* hops on the critical path */
    int sends_per_pkt; /* packets this rank sends per packet index */
} hct_prog_t;

void hct_prog_init(hct_prog_t *p);
void hct_prog_fini(hct_prog_t *p);
/* Empty the template and set the vector (count 0 still has one packet). */
int hct_prog_reset(hct_prog_t *p, hct_op_t op, hct_type_t type, size_t count);
/* Builders; return the new item's index or -1 (no memory). */
int hct_prog_counter(hct_prog_t *p, int nslots);
int hct_prog_chain(hct_prog_t *p, int ctr, int threshold); /* descs follow */
int hct_prog_desc(hct_prog_t *p, hct_desc_t d);            /* into the last chain */
int hct_prog_target(hct_prog_t *p, int rank, int ctr, int slot);
int hct_prog_input(hct_prog_t *p, int ctr, int slot);
/* Helper: a REDUCE of slots [slot, slot + n) of ctr into work, as as many
 * descriptors as the 7-operand ALU needs (LOAD first when n > 0). */
int hct_prog_reduce_slots(hct_prog_t *p, int ctr, int slot, int n);

/* ------------------------------------------------------------------ */
/* Planners (coll_hiercoll_plan_trig.c)                                 */
/* ------------------------------------------------------------------ */

typedef enum hct_shape { HCT_KNOMIAL, HCT_KARY } hct_shape_t;

/* The tree on relative ranks v = (rank - root) mod n: parent (-1 at the
 * root) and children in increasing order (the fixed slot order). */
int hct_tree_parent(hct_shape_t s, int k, int n, int v);
int hct_tree_children(hct_shape_t s, int k, int n, int v, int *children, int max);
int hct_tree_height(hct_shape_t s, int k, int n);

/* The tree of an offload left to "auto" (*shape < 0, *k <= 0; what is
 * set stays), from measurements.  Up to 8 ranks, one level (K-nomial,
 * K = 8: every rank a child of the root, at most 7 ALU operands): hops
 * cost a thread hand-off in software, and the flat tree had the fewest
 * (hc_ol_bench at np 4 and 8; docs/design/offload-engine.md).  Beyond,
 * the published measurements on Tianhe's NIC: allreduce (and bcast,
 * barrier) best on the 2-nomial tree up to 64 nodes and the 4-nomial one
 * at 128 and 256; reduce better with a larger K, 8-ary best. */
void hct_tree_auto(int reduce, int n, int *shape, int *k);

/* Allreduce / reduce of count elements on a K-nomial or K-ary tree
 * (k in 2..8), the published design's two tree algorithms.  Template counters: 0 = UP
 * (slot 0: own input, slot 1 + i: child i's partial result), 1 = DOWN
 * (slot 0: the result).  Reduce: the root DELIVERs, others only send. */
int hct_plan_allreduce(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, hct_op_t op,
                       hct_type_t type, size_t count);
int hct_plan_reduce(hct_prog_t *p, hct_shape_t s, int k, int n, int rank, int root, hct_op_t op,
                    hct_type_t type, size_t count);

/* ------------------------------------------------------------------ */
/* The engine                                                           */
/* ------------------------------------------------------------------ */

typedef struct hct_engine hct_engine_t;
typedef struct hct_chan hct_chan_t;

typedef struct hct_backend {
    void *ctx;
    /* Carry pkt to rank `rank` of channel `chan` (see the header comment).
     * Returns 0, or nonzero for a transport error (counted, the packet is
     * lost: the glue then fails the call). */
    int (*send)(void *ctx, hct_chan_t *chan, int rank, const hct_pkt_t *pkt);
} hct_backend_t;

typedef struct hct_engine_config {
    int mpq_packets; /* bound of the packet queue (early packets) */
    int credits;     /* packets outstanding per (channel, peer) */
} hct_engine_config_t;

typedef struct hct_stats {
    uint64_t pkts_in, pkts_out, credits_in, credits_out;
    uint64_t early;        /* packets kept before their port was armed */
    uint64_t fired;        /* chains run */
    uint64_t alu_ops;      /* REDUCE descriptors run */
    uint64_t backlog_max;  /* most packets waiting for credits */
    uint64_t mpq_max;      /* most packets held in the MPQ */
    uint64_t mpq_overflow; /* packets beyond the bound (must stay 0) */
    uint64_t send_errors;
} hct_stats_t;

hct_engine_t *hct_engine_new(const hct_engine_config_t *cfg, const hct_backend_t *be);
void hct_engine_free(hct_engine_t *e);
const hct_stats_t *hct_engine_stats(const hct_engine_t *e);
/* Packets held in the MPQ and waiting in the backlog now. */
int hct_engine_mpq(const hct_engine_t *e);
int hct_engine_backlog(const hct_engine_t *e);

/* Channels: id agreed by all members; user: the backend's pointer. */
hct_chan_t *hct_chan_open(hct_engine_t *e, uint16_t id, int size, int rank, void *user);
void hct_chan_close(hct_chan_t *c); /* ports must be disarmed */
void *hct_chan_user(const hct_chan_t *c);
/* Packets of this channel waiting for credits: a call is complete for the
 * caller once its port is done AND this is 0 (senders are throttled to
 * `credits` packets ahead of their receivers). */
int hct_chan_backlog(const hct_chan_t *c);
int hct_chan_rank(const hct_chan_t *c);
uint16_t hct_chan_id(const hct_chan_t *c);

typedef struct hct_port hct_port_t;
/* Arm a program on port seq of a channel: input (count elements, may be
 * NULL when the program has no inputs), output (may be NULL when it has
 * no DELIVER).  The program must outlive the port.  Returns NULL when the
 * port is busy or memory runs out. */
hct_port_t *hct_arm(hct_chan_t *c, uint16_t seq, const hct_prog_t *prog, const void *input,
                    void *output);
int hct_port_done(const hct_port_t *p);
/* Forget an armed port (done or not: its packets then count as early). */
void hct_disarm(hct_port_t *p);

/* A packet arrived from rank src of its channel. */
void hct_deliver(hct_engine_t *e, int src, const hct_pkt_t *pkt);

#ifdef __cplusplus
}
#endif

#endif /* MCA_COLL_HIERCOLL_TRIG_H */
