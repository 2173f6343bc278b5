/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll stand-in for Open MPI 5.0's
 * opal/mca/threads/pthreads/threads_pthreads_tsd.h, which
 * opal/mca/threads/tsd.h includes (MCA_threads_tsd_base_include_HEADER).
 * hiercoll itself does not include tsd.h; the stand-in keeps every header
 * opal_config.h names present.  See threads_pthreads.h here.
 */
#ifndef HIERCOLL_COMPAT_THREADS_PTHREADS_TSD_H
#define HIERCOLL_COMPAT_THREADS_PTHREADS_TSD_H

#include <pthread.h>
#include <signal.h>

#include "opal/constants.h"

/* A thread-specific data key is a POSIX key. */
typedef pthread_key_t opal_tsd_key_t;

static inline int opal_tsd_key_delete(opal_tsd_key_t key)
{
    return 0 == pthread_key_delete(key) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_set(opal_tsd_key_t key, void *value)
{
    return 0 == pthread_setspecific(key, value) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline int opal_tsd_get(opal_tsd_key_t key, void **valuep)
{
    *valuep = pthread_getspecific(key);
    return OPAL_SUCCESS;
}

#endif /* HIERCOLL_COMPAT_THREADS_PTHREADS_TSD_H */
