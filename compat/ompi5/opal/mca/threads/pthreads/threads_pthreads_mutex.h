/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll stand-in for Open MPI 5.0's
 * opal/mca/threads/pthreads/threads_pthreads_mutex.h, which
 * opal/mca/threads/mutex.h includes (MCA_threads_mutex_base_include_HEADER)
 * before it lays out opal_mutex_t.  See threads_pthreads.h here for why
 * and when it is used.
 *
 * The layout this header decides is opal_mutex_t's m_lock (a
 * pthread_mutex_t) and opal_cond_t (a pthread_cond_t); hiercoll's ABI
 * self-check compares opal_mutex_t (and the communicator that embeds one)
 * with the running libmpi's, and declines with one line on a mismatch.
 * The operations are the plain POSIX ones; in a debug build of Open MPI
 * (OPAL_ENABLE_DEBUG) they also assert success, as Open MPI's do.
 */
#ifndef HIERCOLL_COMPAT_THREADS_PTHREADS_MUTEX_H
#define HIERCOLL_COMPAT_THREADS_PTHREADS_MUTEX_H

#include "opal_config.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "opal/class/opal_object.h"
#include "opal/constants.h"

BEGIN_C_DECLS

typedef pthread_mutex_t opal_thread_internal_mutex_t;
typedef pthread_cond_t opal_thread_internal_cond_t;

#define OPAL_THREAD_INTERNAL_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
#define OPAL_THREAD_INTERNAL_COND_INITIALIZER PTHREAD_COND_INITIALIZER
#if defined(PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP)
#define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP
#elif defined(PTHREAD_RECURSIVE_MUTEX_INITIALIZER)
#define OPAL_THREAD_INTERNAL_RECURSIVE_MUTEX_INITIALIZER PTHREAD_RECURSIVE_MUTEX_INITIALIZER
#endif

#if OPAL_ENABLE_DEBUG
#define HC_COMPAT_PTHREAD_OK(call)                                                                 \
    do {                                                                                           \
        int hc_compat_rc_ = (call);                                                                \
        assert(0 == hc_compat_rc_);                                                                \
        (void) hc_compat_rc_;                                                                      \
    } while (0)
#else
#define HC_COMPAT_PTHREAD_OK(call) ((void) (call))
#endif

static inline int opal_thread_internal_mutex_init(opal_thread_internal_mutex_t *p_mutex,
                                                  bool recursive)
{
    int rc;
    if (!recursive) {
        rc = pthread_mutex_init(p_mutex, NULL);
    } else {
        pthread_mutexattr_t attr;
        if (0 != pthread_mutexattr_init(&attr)) {
            return OPAL_ERR_IN_ERRNO;
        }
        rc = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
        if (0 == rc) {
            rc = pthread_mutex_init(p_mutex, &attr);
        }
        pthread_mutexattr_destroy(&attr);
    }
    return 0 == rc ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_mutex_lock(opal_thread_internal_mutex_t *p_mutex)
{
    HC_COMPAT_PTHREAD_OK(pthread_mutex_lock(p_mutex));
}

/* 0 when taken, 1 when another thread holds it. */
static inline int opal_thread_internal_mutex_trylock(opal_thread_internal_mutex_t *p_mutex)
{
    return 0 == pthread_mutex_trylock(p_mutex) ? 0 : 1;
}

static inline void opal_thread_internal_mutex_unlock(opal_thread_internal_mutex_t *p_mutex)
{
    HC_COMPAT_PTHREAD_OK(pthread_mutex_unlock(p_mutex));
}

static inline void opal_thread_internal_mutex_destroy(opal_thread_internal_mutex_t *p_mutex)
{
    HC_COMPAT_PTHREAD_OK(pthread_mutex_destroy(p_mutex));
}

static inline int opal_thread_internal_cond_init(opal_thread_internal_cond_t *p_cond)
{
    return 0 == pthread_cond_init(p_cond, NULL) ? OPAL_SUCCESS : OPAL_ERR_IN_ERRNO;
}

static inline void opal_thread_internal_cond_wait(opal_thread_internal_cond_t *p_cond,
                                                  opal_thread_internal_mutex_t *p_mutex)
{
    HC_COMPAT_PTHREAD_OK(pthread_cond_wait(p_cond, p_mutex));
}

static inline void opal_thread_internal_cond_broadcast(opal_thread_internal_cond_t *p_cond)
{
    HC_COMPAT_PTHREAD_OK(pthread_cond_broadcast(p_cond));
}

static inline void opal_thread_internal_cond_signal(opal_thread_internal_cond_t *p_cond)
{
    HC_COMPAT_PTHREAD_OK(pthread_cond_signal(p_cond));
}

static inline void opal_thread_internal_cond_destroy(opal_thread_internal_cond_t *p_cond)
{
    HC_COMPAT_PTHREAD_OK(pthread_cond_destroy(p_cond));
}

END_C_DECLS

#endif /* HIERCOLL_COMPAT_THREADS_PTHREADS_MUTEX_H */
