/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll stand-in for Open MPI 5.0's
 * opal/mca/threads/pthreads/threads_pthreads.h.
 *
 * Debian 13's libopenmpi-dev (5.0.7) installs opal/mca/threads/*.h, and
 * opal_config.h names the pthreads implementation headers they include
 * (MCA_threads_*_include_HEADER), but it does not install those headers.
 * configure adds compat/ompi5 after the installed headers (-idirafter)
 * only when they are missing and no --with-ompi-source was given.
 *
 * What this file declares is libopen-pal's: the yield hook that
 * opal_thread_yield() calls, set by the pthreads component at init.
 * Everything the stand-ins lay out in memory is a POSIX threads type
 * (pthread_mutex_t, pthread_cond_t, pthread_key_t), fixed by the C
 * library's ABI; the Open MPI structures built on them (opal_mutex_t,
 * and through it the communicator) are compared with the running
 * libmpi's by hiercoll's ABI self-check (HC_ABI_CHECKS).
 */
#ifndef HIERCOLL_COMPAT_THREADS_PTHREADS_H
#define HIERCOLL_COMPAT_THREADS_PTHREADS_H

#include "opal/mca/threads/thread.h"

#include <stdint.h>
#include <time.h>

typedef void(opal_threads_pthreads_yield_fn_t)(void);

OPAL_DECLSPEC int opal_threads_pthreads_yield_init(const mca_base_component_t *component);

/* libopen-pal's: sched_yield or nanosleep, as opal_thread_yield_strategy says. */
OPAL_DECLSPEC extern opal_threads_pthreads_yield_fn_t *opal_threads_pthreads_yield_fn;

#endif /* HIERCOLL_COMPAT_THREADS_PTHREADS_H */
