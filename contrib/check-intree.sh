#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Check that ompi/mca/coll/hiercoll builds inside an Open MPI source tree:
# copy the component into a copy of the tree, regenerate it with
# autogen.pl (which must find the component), configure (which must run
# its configure.m4), and build the component (several minutes).
#
#   contrib/check-intree.sh [OMPI_SOURCE_DIR]
#       Open MPI 4.1 (the host's).  Without an argument it fetches Debian's
#       source package (needs a deb-src line for bookworm main).
#   contrib/check-intree.sh --ompi5
#       Open MPI 5.0.7 inside the Debian 13 root of contrib/ompi5-root.sh
#       (trixie's source package, unpacked there).
#
# Only what the component needs is built (opal/include, ompi/include and
# the component): building all of Open MPI 5.0 takes far longer on 2 cores.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --ompi5 ]; then
    "$top/contrib/ompi5-root.sh" src >/dev/null
    exec "$top/contrib/ompi5-root.sh" run \
        'contrib/check-intree.sh "$(ls -d /usr/src/ompi/openmpi-5*/ | head -1)"'
fi
work=$(mktemp -d /tmp/hiercoll-intree.XXXXXX)
src=${1:-}
if [ -z "$src" ]; then
    (cd "$work" && apt-get source -q openmpi >/dev/null)
    src=$(ls -d "$work"/openmpi-4.1*/ | head -1)
fi
tree=$work/tree
cp -r "$src" "$tree"
rm -rf "$tree/ompi/mca/coll/hiercoll"
mkdir -p "$tree/ompi/mca/coll/hiercoll"
(cd "$top" && { git ls-files ompi/mca/coll/hiercoll 2>/dev/null || ls -d ompi/mca/coll/hiercoll/*; } |
    xargs -I{} cp {} "$tree/{}")
cd "$tree"
version=$(sed -n 's/^major=//p' VERSION).$(sed -n 's/^minor=//p' VERSION)
t0=$SECONDS
echo "== Open MPI $version: autogen.pl (log: $work/autogen.log)"
case $version in
5.*)
    # the bundled PMIx, PRRTE, hwloc and libevent stay out (Debian's are
    # used), and so does ROMIO (not needed for a coll component)
    ./autogen.pl --force --no-3rdparty pmix,prrte,hwloc,libevent,romio >"$work/autogen.log" 2>&1
    extra=(--with-pmix=external --with-hwloc=external --with-libevent=external --without-prrte
           --disable-io-romio --disable-mpi-java --without-cuda --without-rocm --without-ofi
           --without-psm2)
    ;;
*)
    ./autogen.pl --force --no-oshmem >"$work/autogen.log" 2>&1
    extra=(--without-verbs --without-psm2 --without-libfabric)
    ;;
esac
grep -q "hiercoll" config/autogen_found_items.m4 ||
    { echo "autogen.pl did not find ompi/mca/coll/hiercoll" >&2; exit 1; }
echo "   $((SECONDS - t0)) s"
echo "== configure (log: $work/configure.log)"
./configure --disable-mpi-fortran --disable-oshmem --without-ucx "${extra[@]}" \
    >"$work/configure.log" 2>&1
grep -q "creating ompi/mca/coll/hiercoll/Makefile" config.log
grep -A1 "checking for MCA component coll:hiercoll compile mode" config.log | grep result
echo "   $((SECONDS - t0)) s"
echo "== make (log: $work/make.log)"
make -j2 -C opal/include >"$work/make.log" 2>&1
make -j2 -C ompi/include >>"$work/make.log" 2>&1
make -C ompi/mca/coll/hiercoll >>"$work/make.log" 2>&1
# a DSO (4.1's default) or a static library linked into libmpi (5.0's)
ls -l ompi/mca/coll/hiercoll/.libs/mca_coll_hiercoll.so ompi/mca/coll/hiercoll/libmca_coll_hiercoll.la \
    2>/dev/null | grep .
echo "   $((SECONDS - t0)) s"
echo "hiercoll builds inside $src (Open MPI $version)"
rm -rf "$work"
