/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll stand-in for Open MPI 5.0's
 * opal/mca/threads/pthreads/threads_pthreads_threads.h, which
 * opal/mca/threads/threads.h includes (MCA_threads_base_include_HEADER).
 * See threads_pthreads.h here for why and when it is used.
 */
#ifndef HIERCOLL_COMPAT_THREADS_PTHREADS_THREADS_H
#define HIERCOLL_COMPAT_THREADS_PTHREADS_THREADS_H

#include <pthread.h>
#include <signal.h>

#include "opal/mca/threads/pthreads/threads_pthreads.h"
#include "opal/mca/threads/threads.h"

/* The pthreads component does not yield when idle unless told. */
#define OPAL_THREAD_YIELD_WHEN_IDLE_DEFAULT false

/* threads.h declares it; the pthreads component defines it through its hook. */
static inline void opal_thread_yield(void)
{
    opal_threads_pthreads_yield_fn();
}

#endif /* HIERCOLL_COMPAT_THREADS_PTHREADS_THREADS_H */
