#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# MPI_Init + MPI_Finalize wall time under mpirun: the stack
# without hiercoll, with hiercoll (offload unused) and with the offload
# forced (allreduce_algorithm=offload, backend auto: it loads the ofi and
# UCX plugins, hence libfabric, PSM and libucp).  The program calls
# MPI_Init, one 1-int MPI_Allreduce (the call the forced offload opens its
# transports for) and MPI_Finalize.  Timed: the whole mpirun (wall), and
# inside rank 0, from before MPI_Init to after MPI_Finalize (less noisy
# on a loaded machine: no launch).  The three variants alternate, TRIALS times, per
# np; the tables give the medians and their ratios to the stack without
# hiercoll.
#
#   contrib/hc_init_time.sh [--np "1 2 8"] [--trials 7] [--component-dir DIR]
#                           [--mpirun PATH]
#
# --component-dir: where mca_coll_hiercoll.so (and hiercoll/, its transport
# plugins) is, ahead of Open MPI's own directory, e.g. a build tree's
# _build/test/_components (staged by make check); default: where Open MPI
# finds components already (an installed hiercoll).
set -eu
nps="1 2 8"
trials=7
compdir=""
mpirun=mpirun
while [ $# -gt 0 ]; do
    case "$1" in
    --np) nps=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --component-dir) compdir=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    *) echo "hc_init_time.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
bindir=$(dirname "$(command -v "$mpirun")")
mpicc=$bindir/mpicc
ompi_info=$bindir/ompi_info
work=$(mktemp -d /tmp/hc_init_time.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/init.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv)
{
    int one = 1, n = 0, rank;
    double t0 = now();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    if (0 == rank) {
        printf("%.6f\n", now() - t0);
    }
    return 0;
}
EOF
"$mpicc" -O2 -o "$work/init" "$work/init.c"

if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
case $("$ompi_info" --version 2>/dev/null | sed -n 's/^Open MPI v\([0-9]*\).*/\1/p') in
5) OVER=(--map-by :OVERSUBSCRIBE) ;;
*) OVER=(--oversubscribe) ;;
esac
if [ -n "$compdir" ]; then
    sys=$("$ompi_info" --path pkglibdir 2>/dev/null | sed -n 's/.*Pkglibdir: *//p')
    export OMPI_MCA_mca_base_component_path=$compdir:$sys
fi
variants=(without with forced)
args_without=(--mca coll ^hiercoll)
args_with=()
args_forced=(--mca coll_hiercoll_allreduce_algorithm offload)

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

echo "# $(uname -n), $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# Open MPI $("$ompi_info" --version | sed -n 's/^Open MPI v//p'), $trials alternations"
for np in $nps; do
    for t in $(seq "$trials"); do
        for v in "${variants[@]}"; do
            eval "a=(\"\${args_$v[@]+\"\${args_$v[@]}\"}\")"
            t0=$(now)
            "$mpirun" "${OVER[@]}" -np "$np" "${a[@]+"${a[@]}"}" "$work/init" >"$work/out" 2>&1 ||
                { echo "hc_init_time.sh: np $np $v failed:" >&2; cat "$work/out" >&2; exit 1; }
            t1=$(now)
            echo "$t1 - $t0" | bc -l >>"$work/$np.$v"
            tail -1 "$work/out" >>"$work/$np.$v.in"
        done
    done
done
table() { # file suffix, title
    echo "$2"
    printf '%-4s %14s %14s %14s %12s %12s\n' np "without (s)" "with (s)" "forced (s)" \
        with/without forced/without
    for np in $nps; do
        a=$(median <"$work/$np.without$1")
        b=$(median <"$work/$np.with$1")
        c=$(median <"$work/$np.forced$1")
        printf '%-4s %14.3f %14.3f %14.3f %12.3f %12.3f\n' "$np" "$a" "$b" "$c" \
            "$(echo "$b / $a" | bc -l)" "$(echo "$c / $a" | bc -l)"
    done
}
table "" "mpirun wall time, medians:"
table ".in" "MPI_Init to MPI_Finalize inside rank 0, medians:"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
