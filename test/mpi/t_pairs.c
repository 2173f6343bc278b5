/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * t_pairs: the pair types whose data is contiguous but whose extent is
 * larger (MPI_LONG_INT, MPI_DOUBLE_INT: 12 bytes in 16; MPI_LONG_DOUBLE_INT)
 * in gather, scatter, gatherv and scatterv, at the counts whose bytes
 * pass a multiple of 64 KiB inside the last element (where Open MPI's
 * ompi_datatype_sndrcv loses the end of a copy) and one count below.
 * The send and receive types are, in turn, the pair type, a packed twin
 * (the same fields, extent = size) and a wide one (extent twice the
 * pair's): every local copy between two of them (the root's own block;
 * the tree's packing and unpacking) and every message between them.
 * gatherv and scatterv place the blocks in reverse rank order, so the
 * tree's root packs and unpacks its children's chains, and its inner
 * nodes pack their own block.
 * Round "linear" forces linear on all four; round "tree" forces the tree
 * on gatherv and scatterv (info keys, on a dup named "t_pairs ROUND").
 * Every byte of every buffer, gaps and 64 guard bytes included, is
 * compared with a serial reference.
 *   t_pairs -> "t_pairs: np N: C checks, F failed"
 */
#include "t_common.h"

#define GUARD 64
#define FILL 0xa5

typedef struct layout {
    const char *name;
    MPI_Datatype t;
    MPI_Aint ext; /* bytes between elements; the data is bytes [0, size) */
} layout_t;

static int size_of(const layout_t *l)
{
    int s;
    MPI_Type_size(l->t, &s);
    return s;
}

/* Byte b of rank r's block: never FILL for long. */
static unsigned char val(int r, long b, int salt)
{
    return (unsigned char) ((r * 131 + b * 7 + (b >> 8) * 13 + salt * 29) % 251);
}

/* Rank r's block of `count` elements of l at element displacement d. */
static void put_block(unsigned char *buf, const layout_t *l, long d, long count, int r, int salt)
{
    int s = size_of(l);
    for (long i = 0; i < count; ++i) {
        unsigned char *e = buf + (d + i) * l->ext;
        for (int k = 0; k < s; ++k) {
            e[k] = val(r, i * s + k, salt);
        }
    }
}

static unsigned char *alloc_fill(size_t bytes)
{
    unsigned char *b = malloc(bytes + GUARD);
    if (NULL == b) {
        fprintf(stderr, "out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(b, FILL, bytes + GUARD);
    return b;
}

static void expect_bytes(const unsigned char *got, const unsigned char *want, size_t bytes,
                         const char *what)
{
    tc_checks++;
    for (size_t i = 0; i < bytes + GUARD; ++i) {
        if (got[i] != want[i]) {
            tc_failures++;
            if (tc_failures <= 20) {
                printf("FAIL [rank %d] %s: %s: byte %zu of %zu is 0x%02x, want 0x%02x\n",
                       tc_world_rank, tc_where, what, i, bytes, got[i], want[i]);
            }
            return;
        }
    }
}

enum { GATHER, SCATTER, GATHERV, SCATTERV, NCOLL };
static const char *coll_name[NCOLL] = {"gather", "scatter", "gatherv", "scatterv"};

/* One call: `count` elements per rank, sent as s, received as r. */
static void one(MPI_Comm comm, int coll, const layout_t *s, const layout_t *r, long count,
                int root, int salt)
{
    int rank, n;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &n);
    int v = GATHERV == coll || SCATTERV == coll, gathering = GATHER == coll || GATHERV == coll;
    const layout_t *many = gathering ? r : s, *own = gathering ? s : r;
    int *counts = malloc(sizeof(int) * (size_t) n), *displs = malloc(sizeof(int) * (size_t) n);
    for (int i = 0; i < n; ++i) {
        counts[i] = (int) count;
        displs[i] = (int) ((v ? n - 1 - i : i) * count); /* v: reverse rank order */
    }
    size_t many_bytes = (size_t) (n * count * many->ext), own_bytes = (size_t) (count * own->ext);
    unsigned char *mb = alloc_fill(many_bytes), *ob = alloc_fill(own_bytes);
    unsigned char *mw = alloc_fill(many_bytes), *ow = alloc_fill(own_bytes);
    tc_at("%s %s->%s count=%ld root=%d", coll_name[coll], s->name, r->name, count, root);
    if (gathering) {
        put_block(ob, own, 0, count, rank, salt);
        memcpy(ow, ob, own_bytes + GUARD);
        if (rank == root) {
            for (int i = 0; i < n; ++i) {
                put_block(mw, many, displs[i], count, i, salt);
            }
        }
    } else {
        if (rank == root) {
            for (int i = 0; i < n; ++i) {
                put_block(mb, many, displs[i], count, i, salt);
            }
            memcpy(mw, mb, many_bytes + GUARD);
        }
        put_block(ow, own, 0, count, rank, salt);
    }
    int rc;
    switch (coll) {
    case GATHER:
        rc = MPI_Gather(ob, (int) count, s->t, mb, (int) count, r->t, root, comm);
        break;
    case SCATTER:
        rc = MPI_Scatter(mb, (int) count, s->t, ob, (int) count, r->t, root, comm);
        break;
    case GATHERV:
        rc = MPI_Gatherv(ob, (int) count, s->t, mb, counts, displs, r->t, root, comm);
        break;
    default:
        rc = MPI_Scatterv(mb, counts, displs, s->t, ob, (int) count, r->t, root, comm);
        break;
    }
    tc_expect(MPI_SUCCESS == rc, "returned %d", rc);
    expect_bytes(mb, mw, many_bytes, gathering ? "receive buffer" : "send buffer");
    expect_bytes(ob, ow, own_bytes, gathering ? "send buffer" : "receive buffer");
    free(mb);
    free(ob);
    free(mw);
    free(ow);
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    tc_init(&argc, &argv);
    struct {
        const char *name;
        MPI_Datatype pair, first;
    } pairs[] = {{"long_int", MPI_LONG_INT, MPI_LONG},
                 {"double_int", MPI_DOUBLE_INT, MPI_DOUBLE},
                 {"long_double_int", MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE}};
    const char *rounds[] = {"linear", "tree"};
    for (int ri = 0; ri < 2; ++ri) {
        MPI_Info info;
        MPI_Info_create(&info);
        for (int c = 0; c < NCOLL; ++c) {
            char key[64];
            snprintf(key, sizeof(key), "hiercoll_%s_algorithm", coll_name[c]);
            MPI_Info_set(info, key, c >= GATHERV ? rounds[ri] : "linear");
        }
        MPI_Comm comm;
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &comm);
        MPI_Info_free(&info);
        char cname[64];
        snprintf(cname, sizeof(cname), "t_pairs %s", rounds[ri]);
        MPI_Comm_set_name(comm, cname);
        int n;
        MPI_Comm_size(comm, &n);
        for (int pi = 0; pi < 3; ++pi) {
            layout_t l[3];
            MPI_Aint lb, ext, tlb, text;
            MPI_Type_get_extent(pairs[pi].pair, &lb, &ext);
            MPI_Type_get_true_extent(pairs[pi].pair, &tlb, &text);
            l[0] = (layout_t){pairs[pi].name, pairs[pi].pair, ext};
            int size = size_of(&l[0]);
            tc_at("%s", pairs[pi].name);
            tc_expect(0 == lb && 0 == tlb && text == size && ext > size,
                      "not contiguous data with a gap: size %d, true %ld+%ld, extent %ld", size,
                      (long) tlb, (long) text, (long) ext);
            int fsize;
            MPI_Type_size(pairs[pi].first, &fsize);
            int blen[2] = {1, 1};
            MPI_Aint disp[2] = {0, fsize};
            MPI_Datatype types[2] = {pairs[pi].first, MPI_INT}, st, packed, wide;
            MPI_Type_create_struct(2, blen, disp, types, &st);
            MPI_Type_create_resized(st, 0, size, &packed);
            MPI_Type_free(&st);
            MPI_Type_commit(&packed);
            MPI_Type_create_resized(pairs[pi].pair, 0, 2 * ext, &wide);
            MPI_Type_commit(&wide);
            l[1] = (layout_t){"packed", packed, size};
            l[2] = (layout_t){"wide", wide, 2 * ext};
            /* (send, receive): the pair type against each, both ways */
            const int combos[5][2] = {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {2, 0}};
            /* the last element cut at 64 KiB and at 128 KiB; one below */
            long cut1 = (65536 + size - 1) / size, cut2 = (2 * 65536 + size - 1) / size;
            const long counts[3] = {cut1, cut2, cut1 - 1};
            for (int ci = 0; ci < 3; ++ci) {
                for (int k = 0; k < 5; ++k) {
                    for (int c = 0; c < NCOLL; ++c) {
                        if (1 == ri && c < GATHERV) {
                            continue; /* (the tree is gatherv's and scatterv's) */
                        }
                        one(comm, c, &l[combos[k][0]], &l[combos[k][1]], counts[ci],
                            (ci + k) % n, 1 + ci * 10 + k);
                    }
                }
            }
            MPI_Type_free(&packed);
            MPI_Type_free(&wide);
        }
        MPI_Comm_free(&comm);
    }
    return tc_finish("t_pairs");
}
