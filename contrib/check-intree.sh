#!/bin/bash
# Check that ompi/mca/coll/hiercoll builds inside an Open MPI 4.1 source
# tree: copy the component into a copy of the tree, regenerate it with
# autogen.pl, configure, and build the component (several minutes).
#
#   contrib/check-intree.sh [OMPI_SOURCE_DIR]
#
# Without an argument it fetches Debian's source package (needs a deb-src
# line for bookworm main): apt-get source openmpi.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
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
(cd "$top" && git ls-files ompi/mca/coll/hiercoll | xargs -I{} cp {} "$tree/{}")
cd "$tree"
echo "== autogen.pl (log: $work/autogen.log)"
./autogen.pl --force --no-oshmem >"$work/autogen.log" 2>&1
echo "== configure (log: $work/configure.log)"
./configure --disable-mpi-fortran --disable-oshmem --without-ucx --without-verbs \
    --without-psm2 --without-libfabric >"$work/configure.log" 2>&1
grep -q "creating ompi/mca/coll/hiercoll/Makefile" config.log
echo "== make (log: $work/make.log)"
make -j2 -C opal/include >"$work/make.log" 2>&1
make -j2 -C ompi/include >>"$work/make.log" 2>&1
make -C ompi/mca/coll/hiercoll >>"$work/make.log" 2>&1
ls -l ompi/mca/coll/hiercoll/.libs/mca_coll_hiercoll.so
echo "hiercoll builds inside $src"
rm -rf "$work"
