/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The triggered engine's ofi backend: a program of the engine
 * (coll_hiercoll_trig.h, plain data) becomes libfabric triggered work, so
 * that on a NIC with FI_TRIGGER nothing on the host runs between arming
 * and completion.  MPI-free (libfabric only): unit-tested in one process
 * with one fabric per simulated rank (test/ofi/check_ofi_trig.c).
 *
 * The provider is found by CAPABILITY (FI_TRIGGER with FI_TAGGED, FI_RMA
 * and FI_ATOMIC on a reliable-datagram endpoint), never by name: Slingshot's
 * cxi and Omni-Path's psm2 in hardware, sockets in its progress thread.
 *
 * Per armed port and packet index p:
 *   COUNTER   one libfabric counter per template counter; a packet lands
 *             in its slot through a tagged receive posted at arm time
 *             (tag = channel, seq, counter, slot; the provider keeps a
 *             packet that comes before its receive, as the engine's MPQ
 *             does) whose completion adds one to the counter; the
 *             caller's inputs are copied into their slots and counted by
 *             the host at arm time.
 *   CHAIN     a STEP counter; descriptor j of the chain is deferred work
 *             triggered when the step counter reaches the number of
 *             operations before it (the first: the watched counter at the
 *             chain's threshold), each operation completing into the step
 *             counter, so descriptors run in order:
 *               LOAD/STORE/DELIVER  an RMA write to this process;
 *               REDUCE              one atomic per operand slot, in slot
 *                                   order (work = work op slot): the
 *                                   engine's fixed order, bitwise the
 *                                   same results;
 *               SEND                one tagged send per target;
 *               ADD                 a deferred CNTR_ADD (and one on the
 *                                   step counter).
 *   DONE      one counter per port; the port is done when it reached the
 *             program's threshold and every chain has run to its end.
 *
 * Limits: a provider has a bounded number of counters (domain cntr_cnt)
 * and, on real NICs, of triggered operations; hcf_needs() counts what a
 * program takes, and the glue declines a call (to the next backend or
 * algorithm) that does not fit the per-port budget.
 */
#ifndef MCA_COLL_HIERCOLL_OFI_TRIG_H
#define MCA_COLL_HIERCOLL_OFI_TRIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll_hiercoll_trig.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HCF_NAME_MAX 64 /* bytes of an endpoint name we carry */
#define HCF_PORTS 4     /* ports in flight per fabric the budgets assume */

typedef struct hcf_fabric hcf_fabric_t;
typedef struct hcf_chan hcf_chan_t;
typedef struct hcf_port hcf_port_t;

/* What a program takes from the provider. */
typedef struct hcf_needs {
    int counters; /* libfabric counters */
    int ops;      /* triggered operations (deferred work) */
} hcf_needs_t;

/* Open a fabric, domain and endpoint on the first provider that offers
 * the capabilities.  max_triggered: the most triggered operations the
 * NIC holds (0: no limit beyond the provider's own).  On failure returns
 * NULL and writes one line into why. */
hcf_fabric_t *hcf_open(int max_triggered, char *why, size_t whylen);
/* The provider hcf_open would take, without opening anything: 0 and its
 * name, or -1 when there is none. */
int hcf_probe(char *name, size_t len);
/* Whether a provider runs triggered work in software, in its own progress
 * threads (sockets), rather than on a NIC (cxi, psm2...). */
bool hcf_software_triggers(const char *provider);
void hcf_close(hcf_fabric_t *f);
const char *hcf_provider(const hcf_fabric_t *f);
/* This endpoint's name (len: bytes, at most HCF_NAME_MAX). */
int hcf_name(const hcf_fabric_t *f, void *name, size_t *len);
/* Per-port budget (counters, operations) every program must fit in. */
hcf_needs_t hcf_budget(const hcf_fabric_t *f);

/* What a program needs; 0 when every (op, type) of it has a native
 * atomic on this provider, -1 otherwise. */
int hcf_needs(const hcf_fabric_t *f, const hct_prog_t *p, hcf_needs_t *n);
int hcf_fits(const hcf_fabric_t *f, const hct_prog_t *p);

/* A peer's endpoint name into the address vector (its address). */
int hcf_av_insert(hcf_fabric_t *f, const void *name, uint64_t *addr);
/* A channel over addresses from hcf_av_insert (addrs[rank]: this one's). */
hcf_chan_t *hcf_chan_open_addrs(hcf_fabric_t *f, uint16_t id, int size, int rank,
                                const uint64_t *addrs);
/* A channel: names[r] (stride bytes apart) is rank r's endpoint name. */
hcf_chan_t *hcf_chan_open(hcf_fabric_t *f, uint16_t id, int size, int rank, const void *names,
                          size_t stride);
void hcf_chan_close(hcf_chan_t *c);

/* Arm a program (as hct_arm): NULL when the program does not fit now (too
 * many ports in flight) or an operation failed (why says which). */
hcf_port_t *hcf_arm(hcf_chan_t *c, uint16_t seq, const hct_prog_t *prog, const void *input,
                    void *output, char *why, size_t whylen);
int hcf_port_done(const hcf_port_t *p);
/* Release a done port (its counters go back to the pool). */
void hcf_disarm(hcf_port_t *p);

/* The port's counters in one line (diagnostics). */
void hcf_port_dump(const hcf_port_t *p, char *buf, size_t len);

typedef struct hcf_stats {
    uint64_t armed, ops, counters_max, declined;
} hcf_stats_t;
const hcf_stats_t *hcf_stats(const hcf_fabric_t *f);

#ifdef __cplusplus
}
#endif

#endif /* MCA_COLL_HIERCOLL_OFI_TRIG_H */
