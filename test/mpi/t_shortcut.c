/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Short-circuit allreduce and reduce against Open MPI's own op functions.
 *
 * Default: every (op, datatype) pair with an absorbing value and a few
 * without one, counts 0 to past coll_hiercoll_shortcut_max, in place and
 * not, every root, blocking, nonblocking and persistent, with inputs where
 * no rank, some ranks, every rank or only single elements are decided.
 * The reference is MPI_Reduce_local (Open MPI's op functions) over every
 * rank's input (each rank computes all inputs), compared byte for byte;
 * the bytes past the result must stay untouched, and the user's buffers
 * are overwritten the moment a call returns (early exits must not read or
 * write them later).  Then again (quick) on a duplicate whose info key
 * hiercoll_shortcut_decider relabels the reduce tree.
 *
 * --clean N: N allreduce(MPI_LAND) calls of one int with random deciders on
 * a duplicate of MPI_COMM_WORLD, MPI_Comm_free at once, then a new
 * communicator (it takes the freed one's context id and tags again) runs
 * checked allreduces: a message of an early exit that met no receive would
 * be matched there and break them.
 */
#include <stdbool.h>
#include <stdint.h>

#include "t_common.h"

typedef struct pair {
    const char *name;
    MPI_Op op;
    MPI_Datatype t;
    int size;
    bool logical; /* values 0/1 (C bool) */
} pair_t;

static pair_t pairs[64];
static int npairs;

static void add(const char *name, MPI_Op op, MPI_Datatype t, bool logical)
{
    int size = 0;
    MPI_Type_size(t, &size);
    if (size <= 0) {
        /* a Fortran type of an Open MPI built without Fortran (the
         * hand-built 6.0, --disable-mpi-fortran): MPI_INTEGER and
         * MPI_LOGICAL have size MPI_UNDEFINED and no op takes them */
        return;
    }
    pairs[npairs++] = (pair_t){name, op, t, size, logical};
}

static void make_pairs(void)
{
    struct {
        const char *n;
        MPI_Datatype t;
    } ints[] = {{"int8", MPI_INT8_T},
                {"uint8", MPI_UINT8_T},
                {"int16", MPI_INT16_T},
                {"uint16", MPI_UINT16_T},
                {"int", MPI_INT},
                {"unsigned", MPI_UNSIGNED},
                {"int64", MPI_INT64_T},
                {"uint64", MPI_UINT64_T},
                {"long", MPI_LONG},
                {"ulong", MPI_UNSIGNED_LONG},
                {"longlong", MPI_LONG_LONG},
                {"short", MPI_SHORT},
                {"integer", MPI_INTEGER}};
    MPI_Op ops[] = {MPI_LAND, MPI_LOR, MPI_BAND, MPI_BOR, MPI_MAX, MPI_MIN, MPI_PROD};
    const char *opn[] = {"land", "lor", "band", "bor", "max", "min", "prod"};
    int pick[] = {0, 1, 4, 6, 7, 9, 12}; /* a spread of types for every op */
    for (int o = 0; o < 7; ++o) {
        for (unsigned i = 0; i < sizeof(pick) / sizeof(pick[0]); ++i) {
            int k = (pick[i] + o) % (int) (sizeof(ints) / sizeof(ints[0]));
            if (o < 2 && MPI_INTEGER == ints[k].t) {
                continue; /* logical ops take C integers and logicals only */
            }
            static char names[64][32];
            snprintf(names[npairs], sizeof(names[0]), "%s-%s", opn[o], ints[k].n);
            add(names[npairs], ops[o], ints[k].t, false);
        }
    }
    add("land-cbool", MPI_LAND, MPI_C_BOOL, true);
    add("lor-cbool", MPI_LOR, MPI_C_BOOL, true);
    add("lor-logical", MPI_LOR, MPI_LOGICAL, false);
    add("band-byte", MPI_BAND, MPI_BYTE, false);
    add("bor-byte", MPI_BOR, MPI_BYTE, false);
    /* no absorbing value: the plain algorithm, exactly */
    add("sum-int", MPI_SUM, MPI_INT, false);
    add("bxor-int64", MPI_BXOR, MPI_INT64_T, false);
    add("max-double", MPI_MAX, MPI_DOUBLE, false);
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The absorbing pattern of an element (if the pair has one): 0 for LAND,
 * BAND, PROD; all ones for BOR; the extremes for MAX/MIN (signed types:
 * 0x7f.. / 0x80..; unsigned: ff.. / 00; Open MPI reduces MPI_UNSIGNED_LONG
 * as a signed long); a nonzero value for LOR. */
static void absorbing(const pair_t *p, unsigned char *e, uint64_t salt)
{
    int s = p->size;
    bool uns =
        MPI_UINT8_T == p->t || MPI_UINT16_T == p->t || MPI_UNSIGNED == p->t || MPI_UINT64_T == p->t;
    memset(e, 0, (size_t) s);
    if (MPI_BOR == p->op) {
        memset(e, 0xff, (size_t) s);
    } else if (MPI_LOR == p->op) {
        e[0] = p->logical ? 1 : (unsigned char) (1 + salt % 200);
    } else if (MPI_MAX == p->op || MPI_MIN == p->op) {
        if (uns) {
            memset(e, MPI_MAX == p->op ? 0xff : 0, (size_t) s);
        } else {
            memset(e, MPI_MAX == p->op ? 0xff : 0, (size_t) s);
            e[s - 1] = MPI_MAX == p->op ? 0x7f : 0x80; /* little endian */
        }
    }
}

/* Rank r's input of call `it`: kind 0 none decided, 1 some ranks, 2 every
 * rank, 3 single elements. */
static void input(const pair_t *p, int r, int it, int kind, int n, long count, unsigned char *buf)
{
    for (long i = 0; i < count; ++i) {
        unsigned char *e = buf + i * p->size;
        uint64_t h = mix(((uint64_t) it << 40) ^ ((uint64_t) r << 20) ^ (uint64_t) i);
        for (int b = 0; b < p->size; ++b) {
            e[b] = (unsigned char) (h >> (8 * (b % 8)));
        }
        if (p->logical) {
            e[0] = (unsigned char) (h & 1);
        }
        if (MPI_DOUBLE == p->t) {
            double d = (double) (int) (h % 2001) - 1000;
            memcpy(e, &d, 8);
        }
        if (MPI_LAND == p->op || MPI_PROD == p->op || MPI_BAND == p->op) {
            if (0 == memcmp(e, "\0\0\0\0\0\0\0\0", (size_t) p->size)) {
                e[0] = 1; /* undecided unless chosen */
            }
        }
        if (MPI_LOR == p->op && kind != 0) {
            memset(e, 0, (size_t) p->size); /* LOR: zeros unless chosen */
        }
        bool dec = false;
        uint64_t c = mix(h ^ 0x1234);
        switch (kind) {
        case 1:
            dec = (mix((uint64_t) it * 977 + (uint64_t) r) % (uint64_t) n) < 2;
            break;
        case 2:
            dec = true;
            break;
        case 3:
            dec = (c % (uint64_t) (n + 1)) == 0;
            break;
        default:
            break;
        }
        if (dec && MPI_DOUBLE != p->t) { /* (no NaN: its MAX depends on the order) */
            absorbing(p, e, c);
        }
    }
}

static void start_call(bool all, int mode, const void *sb, void *rb, long count, const pair_t *p,
                       int root, MPI_Comm comm, MPI_Request *rq)
{
    if (M_BLOCKING == mode) {
        if (all) {
            MPI_Allreduce(sb, rb, (int) count, p->t, p->op, comm);
        } else {
            MPI_Reduce(sb, rb, (int) count, p->t, p->op, root, comm);
        }
        *rq = MPI_REQUEST_NULL;
    } else if (M_NONBLOCKING == mode) {
        if (all) {
            MPI_Iallreduce(sb, rb, (int) count, p->t, p->op, comm, rq);
        } else {
            MPI_Ireduce(sb, rb, (int) count, p->t, p->op, root, comm, rq);
        }
    } else {
        MPI_Info info = MPI_INFO_NULL;
        if (all) {
            MPIX_Allreduce_init(sb, rb, (int) count, p->t, p->op, comm, info, rq);
        } else {
            MPIX_Reduce_init(sb, rb, (int) count, p->t, p->op, root, comm, info, rq);
        }
        MPI_Start(rq);
    }
}

static void check_all(MPI_Comm comm, bool quick)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    long counts[] = {0, 1, 3, 17, 300};
    int ncounts = quick ? 3 : 5;
    int it = 0;
    for (int pi = 0; pi < npairs; ++pi) {
        const pair_t *p = &pairs[pi];
        for (int ci = 0; ci < ncounts; ++ci) {
            long count = counts[ci];
            size_t bytes = (size_t) count * (size_t) p->size;
            unsigned char *in = malloc(bytes + 16), *out = malloc(bytes + 16),
                          *ref = malloc(bytes + 16), *tmp = malloc(bytes + 16);
            for (int kind = 0; kind < 4; ++kind) {
                for (int mode = 0; mode < M_COUNT; ++mode) {
                    for (int all = 0; all < 2; ++all) {
                        for (int ip = 0; ip < 2; ++ip) {
                            int root = (it * 7 + kind) % n;
                            ++it;
                            tc_at("%s count %ld kind %d %s %s%s root %d", p->name, count, kind,
                                  mode_name[mode], all ? "allreduce" : "reduce",
                                  ip ? " in place" : "", root);
                            /* reference: rank order, Open MPI's op functions */
                            input(p, n - 1, it, kind, n, count, ref);
                            for (int r = n - 2; r >= 0; --r) {
                                input(p, r, it, kind, n, count, tmp);
                                MPI_Reduce_local(tmp, ref, (int) count, p->t, p->op);
                            }
                            bool has = all || rank == root;
                            bool inplace = ip && has;
                            input(p, rank, it, kind, n, count, inplace ? out : in);
                            memset(out + (inplace ? bytes : 0), 0xa5, inplace ? 16 : bytes + 16);
                            MPI_Request rq;
                            start_call(all, mode, inplace ? MPI_IN_PLACE : in, out, count, p, root,
                                       comm, &rq);
                            if (M_BLOCKING != mode) {
                                MPI_Wait(&rq, MPI_STATUS_IGNORE);
                                if (M_PERSISTENT == mode) {
                                    MPI_Request_free(&rq);
                                }
                            }
                            /* the buffers are the user's again at once */
                            unsigned char keep[16];
                            memcpy(keep, out + bytes, 16);
                            bool ok = true;
                            if (has) {
                                ok = 0 == memcmp(out, ref, bytes);
                            }
                            unsigned char guard[16];
                            memset(guard, 0xa5, 16);
                            tc_expect(ok, "result differs from MPI_Reduce_local");
                            tc_expect(0 == memcmp(keep, guard, 16), "bytes past the result");
                            memset(in, 0x5a, bytes);
                            memset(out, 0x5a, bytes + 16);
                        }
                    }
                }
            }
            free(in);
            free(out);
            free(ref);
            free(tmp);
        }
    }
    /* everything left in flight must not touch the buffers freed above */
    MPI_Barrier(comm);
}

/* ob1's queues of a communicator (MPI_T): unexpected messages and posted
 * receives, summed over the peers; -1 when the variables are missing. */
static long ob1_queue(MPI_Comm comm, const char *name)
{
    int idx, count, n;
    MPI_Comm_size(comm, &n);
    if (MPI_SUCCESS != MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_SIZE, &idx)) {
        return -1;
    }
    MPI_T_pvar_session ses;
    MPI_T_pvar_handle h;
    MPI_T_pvar_session_create(&ses);
    MPI_T_pvar_handle_alloc(ses, idx, &comm, &h, &count);
    unsigned *v = calloc((size_t) count, sizeof(unsigned));
    MPI_T_pvar_read(ses, h, v);
    long sum = 0;
    for (int i = 0; i < count; ++i) {
        sum += v[i];
    }
    free(v);
    MPI_T_pvar_handle_free(ses, &h);
    MPI_T_pvar_session_free(&ses);
    return sum;
}

/* Allreduce(MPI_LAND) of one flag per rank, a quarter of them 0. */
static long land_calls(MPI_Comm c, long calls, long salt)
{
    int rank, n;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &n);
    long decided = 0;
    for (long i = 0; i < calls; ++i) {
        uint64_t h = mix((uint64_t) (i + salt));
        int any0 = 0;
        for (int r = 0; r < n; ++r) {
            any0 |= 0 == (mix(h + (uint64_t) r) & 3);
        }
        int mine = 0 != (mix(h + (uint64_t) rank) & 3), res = -1;
        MPI_Allreduce(&mine, &res, 1, MPI_INT, MPI_LAND, c);
        decided += any0;
        if (res != !any0) {
            tc_at("call %ld", i);
            tc_expect(0, "LAND gave %d, want %d", res, !any0);
            break;
        }
    }
    return decided;
}

/* --clean N */
static void clean(long calls)
{
    int rank, prov;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_T_init_thread(MPI_THREAD_SINGLE, &prov);
    /* a tenth of the calls, then quiet: every receive an early exit left
     * posted has met its message, and no message waits unexpected */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    long d1 = land_calls(c, calls / 10, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    long posted = -1, unexp = -1;
    double t0 = MPI_Wtime();
    do {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, c, &flag, MPI_STATUS_IGNORE); /* progress */
        posted = ob1_queue(c, "pml_ob1_posted_recvq_length");
        unexp = ob1_queue(c, "pml_ob1_unexpected_msgq_length");
    } while ((posted > 0 || unexp > 0) && MPI_Wtime() - t0 < 20);
    tc_at("quiet after %ld calls", calls / 10);
    tc_expect(0 == posted && 0 == unexp, "ob1 queues: %ld receives posted, %ld messages unexpected",
              posted, unexp);
    MPI_Comm_free(&c);
    /* then all the calls, and the communicator freed at once, early
     * exits in flight; MPI_Finalize must complete */
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    long d2 = land_calls(c, calls, 1000003);
    MPI_Comm_free(&c);
    MPI_T_finalize();
    if (0 == rank) {
        printf("t_shortcut: clean: %ld calls, %ld decided; queues after the first %ld: %ld "
               "posted, %ld unexpected\n",
               calls + calls / 10, d1 + d2, calls / 10, posted, unexp);
    }
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    make_pairs();
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        if (0 == strcmp(argv[i], "--clean") && i + 1 < argc) {
            clean(atol(argv[++i]));
            return tc_finish("t_shortcut");
        }
        if (0 == strcmp(argv[i], "--quick")) {
            quick = true;
        }
    }
    check_all(MPI_COMM_WORLD, quick);
    /* the reduce tree relabelled: a decider named by the info key sits
     * next to the root */
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    char d[16];
    snprintf(d, sizeof(d), "%d", n - 1);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "hiercoll_shortcut_decider", d);
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    check_all(c, true);
    MPI_Comm_free(&c);
    return tc_finish("t_shortcut");
}
