#!/bin/sh
# Run hc_demo on 4 processes with the component built in this tree, with
# hiercoll's verbose line (what it chose for every collective) and its
# statistics (what it sent) switched on.  Usage: contrib/run-demo.sh [BUILDDIR]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
so=$build/ompi/mca/coll/hiercoll/.libs/mca_coll_hiercoll.so
[ -f "$so" ] || { echo "build first: $so is missing" >&2; exit 1; }
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$so" "$stage/"
sys=$(ompi_info --path pkglibdir | sed 's/.*Pkglibdir: *//')
export OMPI_MCA_mca_base_component_path="$stage:$sys"
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "== ompi_info sees the component:"
ompi_info | grep "MCA coll: hiercoll"
echo "== mpirun -np 4 --mca coll hiercoll,basic,libnbc hc_demo (verbose 1, stats on)"
mpirun --oversubscribe -np 4 --mca btl self,vader --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_stats 1 "$build/contrib/hc_demo" 2>&1 |
    grep -v "MPI_COMM_SELF"
