#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# contrib/hc_bench over its option combinations, briefly (one trial of two
# calls), every rank under glibc's heap checks (libc_malloc_debug's
# MALLOC_CHECK_=3, and MALLOC_PERTURB_ so that memory read before it is
# written holds garbage): every --coll, several --sizes lists (0, odd,
# beyond the default --max), --min/--max, --against, --variant, --info,
# --nonblocking, --layout, --root, --csv, --png, --overlap, --traffic,
# --report with --algos, --control and --floor, np 1 and 2 (a ring of one and of two
# for the neighborhood collectives), and bad options (one line, exit 2).
# Every good run must exit 0 without "RESULT DIFFERS" (hc_bench checks each
# contender's result against hiercoll's before it times anything).
#
# Usage: hc-bench-options.sh HC_BENCH OUTDIR MPIRUN [mpirun options...]
# Prints "hc-bench-options: N runs, N failed" last; exits 1 on a failure.

set -u
bench=$1 out=$2
shift 2
mpi=("$@")
mkdir -p "$out"
debug=
for d in /lib/*/libc_malloc_debug.so.0 /usr/lib/*/libc_malloc_debug.so.0; do
    [ -e "$d" ] && debug=$d && break
done
# (through env, not mpirun -x: the same on ORTE's mpirun and PRRTE's)
heap=(env MALLOC_CHECK_=3 MALLOC_PERTURB_=165)
[ -n "$debug" ] && heap+=(LD_PRELOAD="$debug")
[ -z "$debug" ] && echo "hc-bench-options: no libc_malloc_debug.so.0: glibc's default checks only"

runs=0 failed=0
quick=(--trials 1 --iters 2)
# ok NP ARGS...: a good combination
ok() {
    local np=$1 rc
    shift
    runs=$((runs + 1))
    timeout -k 5 120 "${mpi[@]}" -np "$np" "${heap[@]}" "$bench" "$@" >"$out/run.log" 2>&1
    rc=$?
    if [ $rc -ne 0 ] || grep -q "RESULT DIFFERS" "$out/run.log"; then
        failed=$((failed + 1))
        echo "FAILED (exit $rc): np $np hc_bench $*"
        tail -n 15 "$out/run.log" | sed 's/^/    /'
    else
        echo "ok: np $np hc_bench $*"
    fi
}
# has NP REGEX ARGS...: a good combination whose output matches REGEX
has() {
    local np=$1 re=$2
    shift 2
    ok "$np" "$@"
    if ! grep -qE -- "$re" "$out/run.log"; then
        failed=$((failed + 1))
        echo "FAILED (no /$re/ in its output): np $np hc_bench $*"
        tail -n 15 "$out/run.log" | sed 's/^/    /'
    fi
}
# bad NP REGEX ARGS...: refused with exit 2 and a line matching REGEX
bad() {
    local np=$1 re=$2 rc
    shift 2
    runs=$((runs + 1))
    timeout -k 5 60 "${mpi[@]}" -np "$np" "${heap[@]}" "$bench" "$@" >"$out/run.log" 2>&1
    rc=$?
    if [ $rc -eq 0 ] || ! grep -qE -- "$re" "$out/run.log" || grep -qE "free\(\)|corrupt|Segmentation" "$out/run.log"; then
        failed=$((failed + 1))
        echo "FAILED (exit $rc, want a refusal /$re/): np $np hc_bench $*"
        tail -n 15 "$out/run.log" | sed 's/^/    /'
    else
        echo "ok (refused): np $np hc_bench $*"
    fi
}

COLLS="bcast reduce allreduce barrier gather gatherv scatter scatterv allgather allgatherv
       alltoall alltoallv alltoallw reduce_scatter reduce_scatter_block scan exscan neighbor_allgather
       neighbor_alltoall dup comms"
# every collective (and dup: a communicator's life; comms: 16 alive at once): a --sizes list (0,
# odd, 2 MiB beyond the default --max)
for c in $COLLS; do
    ok 3 --coll "$c" --sizes 0,13,2M "${quick[@]}"
done
# the report of all of them at once (the sweep, --control, --csv)
ok 3 --report "$(echo $COLLS | tr ' ' ,)" --min 0 --max 64 --trials 1 --trial-ms 0.2 --control \
    --csv "$out/report.csv"
ok 2 --report allreduce --algos recursive_doubling,rhrd,rabenseifner,decomp,shortcut,linear \
    --min 8 --max 16 --trials 1 --trial-ms 0.2 --info hiercoll_decomp_criterion=block:1
# the floor (the bare flag exchange): timed for barrier and allreduce up to 48 bytes
# ("-" beyond), refused in one line with more ranks than cores
has 2 "^ +32 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x +[0-9.]+x +[0-9.]+x" --report \
    allreduce,barrier,bcast --min 8 --max 64 --trials 1 --trial-ms 0.2 --floor --control
has 2 "^ +64 +[0-9.]+ +[0-9.]+ +- " --report allreduce --min 64 --max 64 --trials 1 \
    --trial-ms 0.2 --floor
has 3 "^# --floor: more ranks than cores" --report barrier --trials 1 --trial-ms 0.2 --floor
# the report at given sizes (the demo's side-by-side: contrib/run-demo.sh)
has 2 "^ +1048576 +[0-9.]+ +[0-9.]+ +[0-9.]+x" --report allreduce,barrier,reduce --sizes 8,1M \
    --trials 1 --trial-ms 0.2
# the combination, and barrier with every sizing option
ok 3 --coll barrier --sizes 8,1024 "${quick[@]}"
ok 3 --coll barrier --min 8 --max 1K --nonblocking "${quick[@]}"
ok 1 --coll barrier --sizes 1M "${quick[@]}"
# contenders, modes, layouts, roots, outputs
ok 4 --coll allreduce --sizes 8,48,1K --against tuned,basic,default,linear --nonblocking \
    "${quick[@]}" --csv "$out/a.csv" --png "$out/a.png"
ok 4 --coll gatherv --min 1 --max 4K --layout reversed --root 3 "${quick[@]}"
ok 4 --coll scatterv --sizes 7 --layout contiguous --root 2 --nonblocking "${quick[@]}"
ok 3 --coll bcast --sizes 3,5000 --info hiercoll_bcast_algorithm=linear \
    --variant bin:hiercoll_bcast_algorithm=binomial --variant lin:hiercoll_bcast_algorithm=linear \
    "${quick[@]}"
ok 3 --coll alltoallv --sizes 100 --layout reversed --nonblocking --against basic "${quick[@]}"
ok 2 --coll allreduce --overlap --sizes 8,48 --trials 1 --iters 2
ok 2 --coll reduce --overlap --sizes 0,1K --trials 1 --iters 2 --root 1
ok 3 --coll allreduce --traffic 3 --sizes 4K,8
ok 3 --coll bcast --traffic 0 --min 64
# one and two processes: a ring of one and of two for the neighborhood
# ones (blocking: libnbc's nonblocking forms, which the other contenders
# get, misplace blocks on periodic dimensions of size 1 or 2, Open MPI
# 4.1.4; docs/known-issues.md), nonblocking on a ring of three
for c in neighbor_allgather neighbor_alltoall alltoall reduce_scatter; do
    ok 1 --coll "$c" --sizes 0,24,100K "${quick[@]}"
    ok 2 --coll "$c" --sizes 24 "${quick[@]}"
    ok 3 --coll "$c" --sizes 24 --nonblocking "${quick[@]}"
done
# refused: one line, exit 2, nothing corrupted
bad 2 "unknown option --bogus" --bogus
bad 2 "--sizes wants bytes" --coll bcast --sizes 8,banana
bad 2 "--sizes wants bytes" --coll bcast --sizes 2G
bad 2 "--min and --max want bytes" --coll bcast --min -5
bad 2 "no size to time" --coll bcast --min 1K --max 8
bad 2 "--sizes wants bytes" --report bcast --sizes 8,banana
bad 2 "--root, --trials" --coll reduce --root 7
bad 2 "--root, --trials" --coll reduce --trials 65
bad 2 "unknown --coll" --coll reduce_everything --sizes 8
# Open MPI 6.0's xhc and acoll (hc_bench sets their parameters); an
# earlier Open MPI has neither: refused, not tuned timed under their names
case ${HIERCOLL_OMPI_SERIES:-4.1} in
6.*)
    ok 2 --coll allreduce --sizes 8,8K --against xhc,acoll "${quick[@]}"
    ok 2 --coll bcast --sizes 8,64K --against xhc,acoll --nonblocking "${quick[@]}"
    ;;
*) bad 2 "Open MPI 6.0's components" --coll bcast --sizes 8 --against tuned,xhc ;;
esac
echo "hc-bench-options: $runs runs, $failed failed"
[ $failed -eq 0 ]
