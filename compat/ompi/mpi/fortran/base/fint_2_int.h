/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll stand-in for Open MPI's ompi/mpi/fortran/base/fint_2_int.h.
 *
 * Debian's libopenmpi-dev ships ompi/op/op.h, which includes this header,
 * but not the header itself.  op.h only needs the scalar conversions
 * between MPI_Fint and int, which this file provides for the
 * configurations Open MPI supports (Fortran INTEGER no wider than int, or
 * wider, in which case the values are narrowed the way Open MPI does).
 * The configure script adds this directory to the include path only when
 * the real header is missing.
 */
#ifndef HIERCOLL_COMPAT_FINT_2_INT_H
#define HIERCOLL_COMPAT_FINT_2_INT_H

#include "ompi_config.h"

#if OMPI_SIZEOF_FORTRAN_INTEGER == SIZEOF_INT
#define OMPI_INT_2_FINT(a) (a)
#define OMPI_FINT_2_INT(a) (a)
#elif OMPI_SIZEOF_FORTRAN_INTEGER > SIZEOF_INT
#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#define OMPI_FINT_2_INT(a) ((int) (a))
#else
#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#define OMPI_FINT_2_INT(a) ((int) (a))
#endif

#endif /* HIERCOLL_COMPAT_FINT_2_INT_H */
