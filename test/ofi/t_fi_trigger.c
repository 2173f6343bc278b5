/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * t_fi_trigger: proves, without MPI, that the libfabric provider found by
 * CAPABILITY (FI_TRIGGER with FI_MSG, FI_RMA and FI_ATOMIC on a reliable
 * datagram endpoint) fires what hiercoll's ofi backend relies on, between
 * two processes (a fork) over the provider's own transport:
 *
 *   1. a triggered send: armed at threshold 2 of a counter, it must not
 *      leave after one increment and must arrive after the second;
 *   2. a triggered atomic (SUM into the peer's registered memory, counted
 *      there by an FI_REMOTE_WRITE counter bound to the region);
 *   3. a chain of deferred work (fi_control FI_QUEUE_WORK) that the PEER's
 *      packet starts and no host call advances: an RMA write arriving at A
 *      bumps A's region counter, which fires a CNTR_ADD, which fires a
 *      local atomic (a fixed-order combine step), which fires an RMA write
 *      of the result back to B.  A's host thread only sleeps meanwhile.
 *
 * Exit 0 when all pass, 1 on a failure, 77 (skip) when no provider offers
 * FI_TRIGGER (FI_PROVIDER may name one that does not: that is the point).
 */

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_trigger.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        int rc_ = (int) (call);                                                             \
        if (rc_ < 0) {                                                                      \
            fprintf(stderr, "t_fi_trigger[%s]: %s failed: %s\n", who, #call,                \
                    fi_strerror(-rc_));                                                     \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static const char *who = "?";

/* What one side advertises to the other. */
typedef struct {
    char addr[64];
    size_t addrlen;
    uint64_t mem_addr; /* remote address of mem[] (0 when offsets) */
    uint64_t mem_key;
} card_t;

typedef struct {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_cntr *tx;   /* local completions of sends, writes, atomics */
    struct fid_cntr *rx;   /* receives completed */
    struct fid_cntr *rma;  /* remote writes/atomics into mem[] */
    struct fid_cntr *trig; /* host-driven trigger */
    struct fid_cntr *step; /* chain step */
    struct fid_cntr *done; /* deferred work completed (sockets needs one) */
    struct fid_mr *mr;
    int64_t mem[8];
    char rbuf[64];
    fi_addr_t peer;
    card_t peer_card;
} side_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Wait for a counter to reach a value without driving it: the provider's
 * own progress (or hardware) must get it there.  Returns 0 on success. */
static int await(struct fid_cntr *c, uint64_t v, double secs)
{
    double t0 = now();
    while (fi_cntr_read(c) < v) {
        if (now() - t0 > secs) {
            return -1;
        }
        usleep(200);
    }
    return 0;
}

static struct fi_info *find_provider(void)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    hints->caps = FI_MSG | FI_RMA | FI_ATOMIC | FI_TRIGGER | FI_RMA_EVENT;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY
                                  | FI_MR_LOCAL;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    if (fi_getinfo(FI_VERSION(1, 10), NULL, NULL, 0, hints, &info) != 0) {
        info = NULL;
    }
    fi_freeinfo(hints);
    return info;
}

static void open_side(side_t *s, struct fi_info *info)
{
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cntr_attr ca = {.events = FI_CNTR_EVENTS_COMP};
    s->info = info;
    CHECK(fi_fabric(info->fabric_attr, &s->fabric, NULL));
    CHECK(fi_domain(s->fabric, info, &s->domain, NULL));
    CHECK(fi_av_open(s->domain, &av_attr, &s->av, NULL));
    CHECK(fi_endpoint(s->domain, info, &s->ep, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->tx, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->rx, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->rma, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->trig, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->step, NULL));
    CHECK(fi_cntr_open(s->domain, &ca, &s->done, NULL));
    CHECK(fi_ep_bind(s->ep, &s->av->fid, 0));
    CHECK(fi_ep_bind(s->ep, &s->tx->fid, FI_SEND | FI_WRITE));
    CHECK(fi_ep_bind(s->ep, &s->rx->fid, FI_RECV));
    CHECK(fi_enable(s->ep));
    memset(s->mem, 0, sizeof(s->mem));
    CHECK(fi_mr_reg(s->domain, s->mem, sizeof(s->mem),
                    FI_REMOTE_WRITE | FI_REMOTE_READ | FI_WRITE | FI_READ, 0, 0x5eed,
                    (info->domain_attr->mr_mode & FI_MR_RMA_EVENT) ? FI_RMA_EVENT : 0, &s->mr,
                    NULL));
    CHECK(fi_mr_bind(s->mr, &s->rma->fid, FI_REMOTE_WRITE));
    if (info->domain_attr->mr_mode & FI_MR_RMA_EVENT) {
        CHECK(fi_mr_enable(s->mr));
    }
}

static card_t my_card(side_t *s)
{
    card_t c;
    memset(&c, 0, sizeof(c));
    c.addrlen = sizeof(c.addr);
    CHECK(fi_getname(&s->ep->fid, c.addr, &c.addrlen));
    c.mem_addr = (s->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uintptr_t) s->mem : 0;
    c.mem_key = fi_mr_key(s->mr);
    return c;
}

/* A deferred-work element; they must live until fired. */
typedef struct {
    struct fi_deferred_work w;
    union {
        struct fi_op_msg msg;
        struct fi_op_rma rma;
        struct fi_op_atomic atomic;
        struct fi_op_cntr cntr;
    } op;
    struct iovec iov;
    struct fi_ioc ioc;
    struct fi_rma_iov riov;
    struct fi_rma_ioc rioc;
    void *desc;
} dwork_t;

static void queue(side_t *s, dwork_t *d, struct fid_cntr *trig, uint64_t thr)
{
    d->w.threshold = thr;
    d->w.triggering_cntr = trig;
    if (d->w.completion_cntr == NULL) {
        d->w.completion_cntr = s->done;
    }
    /* The operation's context is the work's own (sockets requires it). */
    switch (d->w.op_type) {
    case FI_OP_ATOMIC:
        d->op.atomic.msg.context = &d->w.context;
        break;
    case FI_OP_WRITE:
        d->op.rma.msg.context = &d->w.context;
        break;
    case FI_OP_SEND:
        d->op.msg.msg.context = &d->w.context;
        break;
    default:
        break;
    }
    CHECK(fi_control(&s->domain->fid, FI_QUEUE_WORK, &d->w));
}

/* Deferred: add v to counter c when trig reaches thr. */
static void dw_cntr_add(side_t *s, dwork_t *d, struct fid_cntr *trig, uint64_t thr,
                        struct fid_cntr *c, uint64_t v)
{
    memset(d, 0, sizeof(*d));
    d->w.op_type = FI_OP_CNTR_ADD;
    d->op.cntr.cntr = c;
    d->op.cntr.value = v;
    d->w.op.cntr = &d->op.cntr;
    queue(s, d, trig, thr);
}

/* Deferred: atomic SUM of n int64 at local buf into (dest, raddr). */
static void dw_atomic(side_t *s, dwork_t *d, struct fid_cntr *trig, uint64_t thr,
                      struct fid_cntr *done, fi_addr_t dest, uint64_t raddr, uint64_t key,
                      int64_t *buf, size_t n)
{
    memset(d, 0, sizeof(*d));
    d->w.op_type = FI_OP_ATOMIC;
    d->w.completion_cntr = done;
    d->ioc.addr = buf;
    d->ioc.count = n;
    d->desc = fi_mr_desc(s->mr);
    d->rioc.addr = raddr;
    d->rioc.count = n;
    d->rioc.key = key;
    d->op.atomic.ep = s->ep;
    d->op.atomic.msg.msg_iov = &d->ioc;
    d->op.atomic.msg.desc = &d->desc;
    d->op.atomic.msg.iov_count = 1;
    d->op.atomic.msg.addr = dest;
    d->op.atomic.msg.rma_iov = &d->rioc;
    d->op.atomic.msg.rma_iov_count = 1;
    d->op.atomic.msg.datatype = FI_INT64;
    d->op.atomic.msg.op = FI_SUM;
    d->w.op.atomic = &d->op.atomic;
    queue(s, d, trig, thr);
}

/* Deferred: RMA write of len bytes at local buf into (dest, raddr). */
static void dw_write(side_t *s, dwork_t *d, struct fid_cntr *trig, uint64_t thr,
                     struct fid_cntr *done, fi_addr_t dest, uint64_t raddr, uint64_t key,
                     void *buf, size_t len)
{
    memset(d, 0, sizeof(*d));
    d->w.op_type = FI_OP_WRITE;
    d->w.completion_cntr = done;
    d->iov.iov_base = buf;
    d->iov.iov_len = len;
    d->desc = fi_mr_desc(s->mr);
    d->riov.addr = raddr;
    d->riov.len = len;
    d->riov.key = key;
    d->op.rma.ep = s->ep;
    d->op.rma.msg.msg_iov = &d->iov;
    d->op.rma.msg.desc = &d->desc;
    d->op.rma.msg.iov_count = 1;
    d->op.rma.msg.addr = dest;
    d->op.rma.msg.rma_iov = &d->riov;
    d->op.rma.msg.rma_iov_count = 1;
    d->w.op.rma = &d->op.rma;
    queue(s, d, trig, thr);
}

static size_t off(int i)
{
    return (size_t) i * sizeof(int64_t);
}

/* The two roles; pipes carry the cards and a few go-aheads. */
static int role_a(side_t *s, int sock)
{
    static const char msg[] = "triggered hello";
    struct fi_triggered_context tctx;
    dwork_t chain[3];
    char go;
    uint64_t raddr;

    /* 1: triggered send at threshold 2 of trig. */
    memset(&tctx, 0, sizeof(tctx));
    tctx.event_type = FI_TRIGGER_THRESHOLD;
    tctx.trigger.threshold.cntr = s->trig;
    tctx.trigger.threshold.threshold = 2;
    {
        /* A triggered operation is any operation with FI_TRIGGER in its
         * flags and a fi_triggered_context as its context. */
        struct iovec iov = {.iov_base = (void *) msg, .iov_len = sizeof(msg)};
        struct fi_msg m = {.msg_iov = &iov, .iov_count = 1, .addr = s->peer, .context = &tctx};
        CHECK(fi_sendmsg(s->ep, &m, FI_TRIGGER));
    }
    CHECK(fi_cntr_add(s->trig, 1));
    usleep(100000);
    if (fi_cntr_read(s->tx) != 0) {
        fprintf(stderr, "t_fi_trigger[A]: triggered send left below its threshold\n");
        return 1;
    }
    CHECK(fi_cntr_add(s->trig, 1));
    if (await(s->tx, 1, 10) != 0) {
        fprintf(stderr, "t_fi_trigger[A]: triggered send did not complete\n");
        return 1;
    }

    /* 2: triggered atomic SUM of mem[0..1] into B's mem[0..1] at trig 3. */
    s->mem[0] = 40;
    s->mem[1] = -7;
    raddr = s->peer_card.mem_addr;
    {
        dwork_t d;
        dw_atomic(s, &d, s->trig, 3, NULL, s->peer, raddr, s->peer_card.mem_key, &s->mem[0], 2);
        CHECK(fi_cntr_add(s->trig, 1));
        if (await(s->done, 1, 10) != 0) {
            fprintf(stderr, "t_fi_trigger[A]: triggered atomic did not complete\n");
            return 1;
        }
    }

    /* 3: the chain, armed before B's packet: (a) when B's write lands in
     * mem[2] (rma counter 1), add 1 to step; (b) at step 1, atomically add
     * mem[3] (= 100) into our own mem[2] (a fixed-order combine step, to
     * ourselves), completing into step; (c) at step 2, write mem[2] back to
     * B's mem[4]. */
    s->mem[2] = 0;
    s->mem[3] = 100;
    {
        fi_addr_t self;
        card_t mine = my_card(s);
        CHECK(fi_av_insert(s->av, mine.addr, 1, &self, 0, NULL) == 1 ? 0 : -FI_EOTHER);
        dw_cntr_add(s, &chain[0], s->rma, 1, s->step, 1);
        dw_atomic(s, &chain[1], s->step, 1, s->step, self, mine.mem_addr + off(2),
                  mine.mem_key, &s->mem[3], 1);
        dw_write(s, &chain[2], s->step, 2, NULL, s->peer, raddr + off(4),
                 s->peer_card.mem_key, &s->mem[2], sizeof(int64_t));
    }
    go = 'c';
    if (write(sock, &go, 1) != 1) {
        return 1;
    }
    /* The host only sleeps now; B waits for the answer. */
    if (read(sock, &go, 1) != 1 || go != 'k') {
        fprintf(stderr, "t_fi_trigger[A]: B reports the chain failed\n");
        return 1;
    }
    printf("t_fi_trigger: provider %s: triggered send, triggered atomic and a "
           "3-step deferred chain fired\n",
           s->info->fabric_attr->prov_name);
    return 0;
}

static int role_b(side_t *s, int sock)
{
    char go;
    int64_t v = 23;
    struct fid_cntr *done = s->tx;
    /* 1: receive the triggered send. */
    CHECK(fi_recv(s->ep, s->rbuf, sizeof(s->rbuf), NULL, s->peer, NULL));
    if (await(s->rx, 1, 10) != 0 || strcmp(s->rbuf, "triggered hello") != 0) {
        fprintf(stderr, "t_fi_trigger[B]: triggered send not received\n");
        return 1;
    }
    /* 2: the triggered atomic. */
    if (await(s->rma, 1, 10) != 0 || s->mem[0] != 40 || s->mem[1] != -7) {
        fprintf(stderr, "t_fi_trigger[B]: triggered atomic: %" PRId64 " %" PRId64 "\n",
                s->mem[0], s->mem[1]);
        return 1;
    }
    /* 3: start A's chain with one write of 23 into A's mem[2]; expect 123
     * back in our mem[4]. */
    if (read(sock, &go, 1) != 1 || go != 'c') {
        return 1;
    }
    s->mem[5] = v;
    CHECK(fi_write(s->ep, &s->mem[5], sizeof(int64_t), fi_mr_desc(s->mr), s->peer,
                   s->peer_card.mem_addr + off(2), s->peer_card.mem_key, NULL));
    if (await(done, 1, 10) != 0 || await(s->rma, 2, 10) != 0 || s->mem[4] != 123) {
        fprintf(stderr, "t_fi_trigger[B]: chain result %" PRId64 " (expected 123)\n",
                s->mem[4]);
        go = 'f';
    } else {
        go = 'k';
    }
    if (write(sock, &go, 1) != 1) {
        return 1;
    }
    return go == 'k' ? 0 : 1;
}

int main(void)
{
    struct fi_info *info = find_provider();
    int sv[2], status = 0, rc;
    pid_t pid;
    side_t s;
    card_t mine;

    if (info == NULL) {
        printf("t_fi_trigger: SKIP: no libfabric provider offers FI_TRIGGER with "
               "FI_MSG|FI_RMA|FI_ATOMIC (FI_PROVIDER=%s)\n",
               getenv("FI_PROVIDER") ? getenv("FI_PROVIDER") : "unset");
        return 77;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        return 1;
    }
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
    }
    alarm(60); /* a provider that never fires must not hang the suite */
    who = pid == 0 ? "B" : "A";
    memset(&s, 0, sizeof(s));
    open_side(&s, info);
    mine = my_card(&s);
    {
        int fd = pid == 0 ? sv[1] : sv[0];
        if (write(fd, &mine, sizeof(mine)) != sizeof(mine)
            || read(fd, &s.peer_card, sizeof(s.peer_card)) != sizeof(s.peer_card)) {
            return 1;
        }
        CHECK(fi_av_insert(s.av, s.peer_card.addr, 1, &s.peer, 0, NULL) == 1 ? 0 : -FI_EOTHER);
        rc = pid == 0 ? role_b(&s, fd) : role_a(&s, fd);
    }
    if (pid == 0) {
        _exit(rc);
    }
    if (rc != 0) {
        kill(pid, SIGKILL);
    }
    waitpid(pid, &status, 0);
    if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
        rc = 1;
    }
    printf("t_fi_trigger: %s\n", rc == 0 ? "OK" : "FAILED");
    return rc;
}
