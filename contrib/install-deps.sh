#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Install what hiercoll needs on Debian 12 (bookworm), from Debian's archive.
# (mmdebstrap: the Debian 13 root of "make check-ompi5", Open MPI 5.0;
# debhelper and lintian: the Debian package, "make check-deb"; python3-mpi4py
# and dpkg-dev: mpi4py's test suite, "make check-mpi4py".)
set -e
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
    build-essential autoconf automake libtool pkg-config \
    libopenmpi-dev openmpi-bin libucx-dev ucx-utils libfabric-dev libfabric-bin libhwloc-dev hwloc \
    check gnuplot-nox util-linux procps python3-mpi4py dpkg-dev \
    mmdebstrap debian-archive-keyring debhelper lintian
