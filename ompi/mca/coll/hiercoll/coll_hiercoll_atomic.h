/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Whether this target's 64-bit atomics are lock-free, decided when the
 * component is compiled (MPI-free: configure and the test suite compile
 * it alone).  The shared-memory node level's lines, flag values and the
 * bcast's byte counts are 64-bit words that one process writes and others
 * read at once; where the compiler implements their atomics with a lock
 * (libatomic's, private to each process), a read in another process can
 * tear, so the node level is built off there (coll_hiercoll_shm.c;
 * ompi_info's coll_hiercoll_shm_atomics says which).
 *
 * HC_ATOMIC64_LOCK_FREE is 1 where GCC's and clang's predefined
 * __GCC_ATOMIC_LLONG_LOCK_FREE (C11's ATOMIC_LLONG_LOCK_FREE) is 2,
 * "always lock-free", for an 8-byte type; 0 otherwise ("sometimes", or a
 * compiler that does not say).  -DHC_ATOMIC64_LOCK_FREE=0 builds the node
 * level off on purpose.
 */
#ifndef MCA_COLL_HIERCOLL_ATOMIC_H
#define MCA_COLL_HIERCOLL_ATOMIC_H

#ifndef HC_ATOMIC64_LOCK_FREE
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && 2 == __GCC_ATOMIC_LLONG_LOCK_FREE \
    && defined(__SIZEOF_LONG_LONG__) && 8 == __SIZEOF_LONG_LONG__
#define HC_ATOMIC64_LOCK_FREE 1
#else
#define HC_ATOMIC64_LOCK_FREE 0
#endif
#endif

#if HC_ATOMIC64_LOCK_FREE && defined(__GNUC__)
/* (the macro and the builtin the atomics themselves use must agree) */
_Static_assert(__atomic_always_lock_free(8, 0), "HC_ATOMIC64_LOCK_FREE is 1 but 8-byte atomics "
                                                "are not always lock-free on this target");
#endif

#endif /* MCA_COLL_HIERCOLL_ATOMIC_H */
