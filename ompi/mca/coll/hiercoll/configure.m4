# -*- shell-script -*-
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Inside an Open MPI source tree: always buildable (it needs nothing but
# Open MPI itself).  Out of tree the project's configure.ac does this job.
#
# MCA_ompi_coll_hiercoll_CONFIG([action-if-can-compile],
#                               [action-if-cant-compile])
AC_DEFUN([MCA_ompi_coll_hiercoll_CONFIG],[
    AC_CONFIG_FILES([ompi/mca/coll/hiercoll/Makefile])
    # Open MPI's own tree provides every include path and links the
    # component into (or against) libmpi itself.
    HIERCOLL_LIBADD=
    # (Open MPI 6.0 compiles the help files of its tree, this component's
    # help-coll-hiercoll.txt included, into its library)
    HIERCOLL_CPPFLAGS=-DHIERCOLL_IN_OMPI_TREE=1
    AC_SUBST([HIERCOLL_LIBADD])
    AC_SUBST([HIERCOLL_CPPFLAGS])
    HIERCOLL_UCX_LIBS=
    HIERCOLL_OFI_LIBS=
    AC_SUBST([HIERCOLL_UCX_LIBS])
    AC_SUBST([HIERCOLL_OFI_LIBS])
    # the offload's UCX agent and ofi backend (plugins) are built out of
    # tree only
    AM_CONDITIONAL([HIERCOLL_HAVE_UCX], [false])
    AM_CONDITIONAL([HIERCOLL_HAVE_OFI], [false])
    $1
])dnl
