#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# hc_scale_check.sh: the many-core check of the shared-memory node level
# (docs/design/node-hierarchy-model.md).  On a machine with 8 or more cores, in a few minutes:
#   1. the machine's topology (lscpu, hwloc or /sys): cores, packages,
#      NUMA domains, L3 domains;
#   2. the shm correctness subset of test/run-tests.sh at np = cores,
#      bound to cores: t_colls with the shm level forced (serial
#      references), t_shm (non-commutative op exact, bitwise determinism,
#      dup/free cycles), two levels (groups of 4, and the default groups by
#      L3), persistent requests, single copy (CMA), auto; the stress
#      program (t_stress: mixed collectives with random sleeps, buffers
#      overwritten after each return, 2 slots, every slot reuse checked)
#      for --stress-seconds through the hierarchy of groups of 4;
#   3. hc_bench --report bcast,reduce,allreduce,barrier at np 4, 8 and 16
#      (at most the cores), bound to cores, every size from 8 B to 8 MiB:
#      hiercoll against the same stack without hiercoll in one job, with
#      auto as it is, then (bcast, reduce, allreduce) with the long cells
#      wherever the level runs (coll_hiercoll_shm_long on,
#      coll_hiercoll_shm_wide_ranks 0: the design auto does not take from 8
#      processes until such a table says so); CSV (and PNG: gnuplot, else
#      python3 with matplotlib, else none, said so) under --out;
#   4. hc_bench --coll C --against tuned (bcast, reduce, allreduce) at the
#      same nps, hiercoll auto beside the long cells (a variant), and with
#      an Open MPI 6.0 install and a hiercoll built against it (--ompi6,
#      --build6) against tuned, xhc and acoll of that install;
#   5. the costs the node level's model takes (docs/design/shm-long.md):
#      hc_cma_probe (a process_vm_readv call, a page, a second reader) and
#      hc_pingpong (a line between two cores) on the first and the last
#      core.
# It ends with "N passed, N failed[, N skipped]" and exits non-zero on any
# failure.  It needs only mpirun (Open MPI 4.1 or 5.0) and the programs of
# a hiercoll build (no make, no compiler, no network): --list-files prints
# the build's files it uses, relative to --build, so that they can be
# copied into another root (a chroot) with their paths.
#
# Options:
#   --build DIR         a hiercoll build directory (default: ../_build from
#                       this script, else the current directory)
#   --mpirun PATH       mpirun (default: mpirun in PATH)
#   --out DIR           where logs, CSV and PNG go (default $OUT, else
#                       ./scale-out)
#   --time-budget S     seconds in all (default 540); no step starts that
#                       the budget cannot hold (skipped, counted, said)
#   --stress-seconds S  how long t_stress runs (default 60)
#   --np N              the correctness subset's np (default: the cores)
#   --bench-nps LIST    the benchmark's nps (default 4,8,16, capped at the
#                       cores)
#   --max BYTES         the benchmark's largest size (default 8M)
#   --ompi6 DIR         an Open MPI 6.0 install (DIR/bin/mpirun): step 4 also
#                       against its xhc and acoll
#   --build6 DIR        a hiercoll build against that install (its component
#                       and hc_bench; default DIR of --build with "-ompi6")
#   --allow-oversubscribe  more ranks than cores (testing on a small
#                       machine: binding overloads cores, ranks yield)
#   --only REGEX        the steps whose names match
#   --dry-run           print the topology and the steps, run nothing
#   --list-files        print the build's files this script uses, and exit
#   --help
#
# Example (in a root with Open MPI's runtime):
#   contrib/hc_scale_check.sh --build /opt/hiercoll-build --out /tmp/scale-out
# The long cells' timing alone (steps 3's bench-long, 4 and 5), in a
# second call when the first one's budget did not reach them:
#   contrib/hc_scale_check.sh --build B --ompi6 /opt/ompi6 --time-budget 540 \
#       --only 'bench-long|against|cma-probe|pingpong'

set -u

here=$(cd "$(dirname "$0")" && pwd)
build=""
mpirun=mpirun
out=${OUT:-./scale-out}
budget=540
stress_seconds=60
np=""
bench_nps="4,8,16"
bench_max=8M
ompi6=""
build6=""
oversub=no
only=""
dry=no
list_files=no

usage() {
    sed -n '/^# Options:/,/^# Example/p' "$0" | sed 's/^# \{0,1\}//' | sed '$d'
}
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --time-budget) budget=$2; shift 2 ;;
    --stress-seconds) stress_seconds=$2; shift 2 ;;
    --np) np=$2; shift 2 ;;
    --bench-nps) bench_nps=$2; shift 2 ;;
    --max) bench_max=$2; shift 2 ;;
    --ompi6) ompi6=$2; shift 2 ;;
    --build6) build6=$2; shift 2 ;;
    --allow-oversubscribe) oversub=yes; shift ;;
    --only) only=$2; shift 2 ;;
    --dry-run) dry=yes; shift ;;
    --list-files) list_files=yes; shift ;;
    --help|-h) usage; exit 0 ;;
    *) echo "hc_scale_check: unknown option $1 (--help)" >&2; exit 2 ;;
    esac
done
case $budget in ''|*[!0-9]*) echo "hc_scale_check: --time-budget wants seconds" >&2; exit 2 ;; esac
if [ -z "$build" ]; then
    if [ -d "$here/../_build/test/mpi" ]; then build=$here/../_build; else build=.; fi
fi
build=$(cd "$build" 2>/dev/null && pwd) || { echo "hc_scale_check: no directory --build" >&2; exit 2; }

# ---------------------------------------------------------------------------
# The build's files: the component, the MPI tests, hc_bench.  A program
# that libtool wrapped (a shell script in place of the binary) is run from
# .libs/, where the real binary is; a plain binary as it is.
# ---------------------------------------------------------------------------
COMPONENT=ompi/mca/coll/hiercoll/.libs/mca_coll_hiercoll.so
PROGRAMS="test/mpi/t_colls test/mpi/t_shm test/mpi/t_persist test/mpi/t_stress contrib/hc_bench
          contrib/hc_cma_probe contrib/hc_pingpong"

is_elf() {
    [ -f "$1" ] && [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ]
}
# real_prog REL: the path (relative to the build) of the binary to run
real_prog() {
    local rel=$1 d b
    d=$(dirname "$rel") b=$(basename "$rel")
    if is_elf "$build/$rel"; then
        echo "$rel"
    elif is_elf "$build/$d/.libs/$b"; then
        echo "$d/.libs/$b"
    elif is_elf "$build/$d/.libs/lt-$b"; then
        echo "$d/.libs/lt-$b"
    else
        echo "$rel" # (missing: said below)
    fi
}
if [ "$list_files" = yes ]; then
    echo "$COMPONENT"
    for p in "$build"/ompi/mca/coll/hiercoll/.libs/hiercoll_*.so; do
        [ -f "$p" ] && echo "${p#"$build"/}"
    done
    for p in $PROGRAMS; do
        real_prog "$p"
    done
    exit 0
fi

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
logdir=$out/logs
mkdir -p "$logdir"
T0=$SECONDS

echo "# hc_scale_check: $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(uname -n), build $build"
echo "# out $out, budget ${budget}s"

# ---------------------------------------------------------------------------
# Topology
# ---------------------------------------------------------------------------
echo "## topology"
if command -v lscpu >/dev/null 2>&1; then
    lscpu 2>/dev/null | grep -E '^(Architecture|CPU\(s\)|On-line CPU|Model name|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\)|NUMA node\(s\)|L2 cache|L3 cache|NUMA node[0-9]+ CPU)' |
        sed 's/^/  /'
else
    echo "  (no lscpu)"
fi
allowed=$(nproc 2>/dev/null || echo 1)
cores=""
if command -v hwloc-calc >/dev/null 2>&1; then
    cores=$(hwloc-calc --number-of core all 2>/dev/null)
fi
if command -v hwloc-ls >/dev/null 2>&1; then
    n=$(hwloc-ls --only core 2>/dev/null | wc -l)
    echo "  hwloc-ls --only core: $n cores"
    [ -z "$cores" ] && [ "$n" -gt 0 ] && cores=$n
    for t in package numanode l3cache; do
        echo "  hwloc-ls --only $t: $(hwloc-ls --only $t 2>/dev/null | wc -l)"
    done
elif command -v lstopo-no-graphics >/dev/null 2>&1; then
    lstopo-no-graphics --no-io -s 2>/dev/null | sed -n '1,12p' | sed 's/^/  /'
else
    # /sys: packages, cores, NUMA nodes, L3 domains among the CPUs online
    sysc=/sys/devices/system/cpu
    n=$(cat $sysc/cpu[0-9]*/topology/physical_package_id 2>/dev/null | sort -u | wc -l)
    c=$(for d in $sysc/cpu[0-9]*/topology; do
            echo "$(cat "$d/physical_package_id" 2>/dev/null):$(cat "$d/core_id" 2>/dev/null)"
        done | sort -u | wc -l)
    numa=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
    l3=$(cat $sysc/cpu[0-9]*/cache/index3/shared_cpu_list 2>/dev/null | sort -u | wc -l)
    echo "  (no hwloc tools) /sys: $n packages, $c cores, $numa NUMA nodes, $l3 L3 domains"
    [ "$c" -gt 0 ] && cores=$c
fi
[ -z "$cores" ] || [ "$cores" -le 0 ] 2>/dev/null && cores=$allowed
# this process may run on fewer CPUs than the machine has (a cpuset)
[ "$allowed" -lt "$cores" ] && cores=$allowed
echo "  cores usable here: $cores (nproc $allowed)"
[ -z "$np" ] && np=$cores
if [ "$cores" -lt 8 ]; then
    echo "  note: fewer than 8 cores: this is a test of the script, not the many-core check"
fi
if [ "$np" -gt "$cores" ] && [ "$oversub" = no ]; then
    echo "hc_scale_check: --np $np > $cores cores (--allow-oversubscribe to test)" >&2
    exit 2
fi
for d in /dev/shm /proc/self/maps; do
    [ -e "$d" ] || echo "  WARNING: $d is missing (the shm level and t_shm need it)"
done
[ -w /dev/shm ] || echo "  WARNING: /dev/shm is not writable: the shm level cannot set up"

# ---------------------------------------------------------------------------
# Open MPI: which series, the component's path, options
# ---------------------------------------------------------------------------
mpirun_path=$(command -v "$mpirun" 2>/dev/null)
if [ -z "$mpirun_path" ] && [ "$dry" = no ]; then
    echo "hc_scale_check: no mpirun ($mpirun)" >&2
    exit 2
fi
ompi_info=$(dirname "${mpirun_path:-/usr/bin/mpirun}")/ompi_info
series=$("$ompi_info" --version 2>/dev/null | sed -n 's/^Open MPI v\([0-9]*\.[0-9]*\).*/\1/p')
syscomp=$("$ompi_info" --path pkglibdir 2>/dev/null | sed -n 's/.*Pkglibdir: *//p')
if [ -z "$syscomp" ]; then # (no ompi_info: Debian's places)
    for d in /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3 /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi5 \
             /usr/lib64/openmpi/lib/openmpi /usr/lib/openmpi/lib/openmpi3; do
        [ -d "$d" ] && syscomp=$d && break
    done
fi
case $series in
5.*) SM_BTL=sm
     OVER=(--map-by core:OVERSUBSCRIBE --bind-to core:overload-allowed)
     BIND=(--map-by core --bind-to core) ;;
*)   SM_BTL=vader
     OVER=(--map-by core --bind-to core:overload-allowed --oversubscribe)
     BIND=(--map-by core --bind-to core) ;;
esac
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "## Open MPI ${series:-unknown} ($mpirun_path), components: ${syscomp:-unknown}"

# The component as built, staged ahead of Open MPI's own directory.
stage=$out/_components
if [ "$dry" = no ]; then
    if [ ! -f "$build/$COMPONENT" ]; then
        echo "hc_scale_check: $build/$COMPONENT is missing (--build: a hiercoll build)" >&2
        exit 2
    fi
    rm -rf "$stage"
    mkdir -p "$stage"
    cp -f "$build/$COMPONENT" "$stage/"
    for p in "$build"/ompi/mca/coll/hiercoll/.libs/hiercoll_*.so; do
        [ -f "$p" ] || continue
        mkdir -p "$stage/hiercoll"
        cp -f "$p" "$stage/hiercoll/"
    done
fi
export OMPI_MCA_mca_base_component_path=$stage${syscomp:+:$syscomp}

declare -A PROG
missing=""
for p in $PROGRAMS; do
    r=$(real_prog "$p")
    PROG[$(basename "$p")]=$build/$r
    is_elf "$build/$r" || missing="$missing $r"
done
if [ -n "$missing" ] && [ "$dry" = no ]; then
    echo "hc_scale_check: missing from the build:$missing" >&2
    exit 2
fi

# mpi NP: mpirun bound to cores (overloading them only with --allow-oversubscribe)
mpi() {
    local n=$1
    if [ "$n" -gt "$cores" ]; then
        MPI=("$mpirun" "${OVER[@]}" --mca mpi_yield_when_idle 1)
    else
        MPI=("$mpirun" "${BIND[@]}")
    fi
    MPI+=(--mca btl self,$SM_BTL --mca pml ob1 -np "$n")
}

# ---------------------------------------------------------------------------
# Steps: run NAME SECONDS COMMAND... with EXPECT (regexes the log must
# hold) and REJECT (must not); the budget decides whether a step starts.
# ---------------------------------------------------------------------------
passed=0 failed=0 skipped=0 failed_names="" skipped_names=""
EXPECT=() REJECT=()
RESERVE=10 # seconds kept for the plots and the summary

step() {
    local name=$1 t=$2
    shift 2
    if [ -n "$only" ] && ! [[ "$name" =~ $only ]]; then
        EXPECT=() REJECT=()
        return 1
    fi
    if [ "$dry" = yes ]; then
        printf 'STEP: %-32s (up to %ds) %s\n' "$name" "$t" "$*"
        EXPECT=() REJECT=()
        return 1
    fi
    local left=$((budget - (SECONDS - T0) - RESERVE))
    # a step starts only with half its time limit (and 20 s) left; it is
    # then cut at what is left
    if [ "$left" -lt 20 ] || [ "$left" -lt $((t / 2)) ]; then
        skipped=$((skipped + 1))
        skipped_names="$skipped_names $name"
        printf 'SKIP: %-32s (%ds of the budget left)\n' "$name" "$left"
        EXPECT=() REJECT=()
        return 1
    fi
    [ "$t" -gt "$left" ] && t=$left
    local log=$logdir/$name.log t1=$SECONDS tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/hcs.XXXXXX") || exit 1
    echo "\$ $*" >"$log"
    TMPDIR=$tmp timeout -k 10 "$t" "$@" >>"$log" 2>&1
    local rc=$? why="" re
    rm -rf "$tmp"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        why="timed out after ${t}s"
    elif [ $rc -ne 0 ]; then
        why="exit code $rc"
    fi
    for re in "${EXPECT[@]+"${EXPECT[@]}"}"; do
        grep -qE -- "$re" "$log" || why="${why:+$why; }missing /$re/"
    done
    for re in "${REJECT[@]+"${REJECT[@]}"}"; do
        grep -qE -- "$re" "$log" && why="${why:+$why; }unexpected /$re/"
    done
    EXPECT=() REJECT=()
    if [ -z "$why" ]; then
        passed=$((passed + 1))
        printf 'PASS: %-32s %4ds\n' "$name" $((SECONDS - t1))
        return 0
    fi
    failed=$((failed + 1))
    failed_names="$failed_names $name"
    printf 'FAIL: %-32s %4ds  %s\n' "$name" $((SECONDS - t1)) "$why"
    tail -n 15 "$log" | sed 's/^/    /'
    return 1
}

echo "## correctness: the shm level at np $np (bound to cores$([ "$np" -gt "$cores" ] && echo ', oversubscribed'))"
colls=${PROG[t_colls]} shm=${PROG[t_shm]} persist=${PROG[t_persist]} hcb=${PROG[hc_bench]}
stress=${PROG[t_stress]}
OK='t_colls: np [0-9]+: [0-9]+ checks, 0 failed'
SHM_OK='t_shm: np [0-9]+: [0-9]+ checks, 0 failed'
SHM_COLLS="allreduce reduce bcast barrier allgather allgatherv gather gatherv scatter scatterv
           reduce_scatter_block reduce_scatter"
SHM_ONLY=$(echo $SHM_COLLS | tr ' ' ,)
SHM=()
SHM_RAN=()
for c in $SHM_COLLS; do
    SHM+=(--mca coll_hiercoll_${c}_algorithm shm)
    SHM_RAN+=(": $c = shm \(blocking")
done
SHORT=(--mca coll hiercoll,basic,libnbc)

# every shm collective against serial references (every mode, count, root,
# datatype, op; in place)
mpi "$np"
EXPECT=("$OK" "${SHM_RAN[@]}" ": iallreduce = shm \(nonblocking")
step "shm-colls-np$np" 240 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 "${SHM[@]}" \
    "$colls" --only "$SHM_ONLY"
# a non-commutative op exact at every root, bitwise determinism, requests in
# flight on a freed communicator, dup/collective/free cycles (maps and
# /dev/shm flat)
# (past coll_hiercoll_shm_group_size ranks, 8, the region folds in groups:
# in rank order, (x0..x7)(x8..), so a double sum has other bits than the
# serial x0 + (x1 + ...): --any-order leaves those bitwise checks out; the
# non-commutative matrix product stays exact and checked)
ANY=()
[ "$np" -gt 8 ] && ANY=(--any-order)
EXPECT=("$SHM_OK" "t_shm: 100 cycles: /proc/self/maps ([0-9]+) -> \1 lines, hc.* files in /dev/shm 0 -> 0")
step "shm-t_shm-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_shm_min_calls 0 "${SHM[@]}" \
    "$shm" --cycles 100 "${ANY[@]}"
# two levels: groups of 4 consecutive ranks and their leaders (barrier,
# inline reductions), then the default groups (by L3, up to 8)
if [ "$np" -gt 4 ]; then
    EXPECT=("$OK" ": allreduce = shm \(blocking" ": barrier = shm \(blocking" "[0-9]+ groups by")
    step "shm-groups4-colls-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 \
        --mca coll_hiercoll_shm_group_size 4 "${SHM[@]}" "$colls" --only allreduce,reduce,barrier
    EXPECT=("$SHM_OK")
    step "shm-groups4-t_shm-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_shm_group_size 4 \
        "${SHM[@]}" "$shm" --cycles 20 --any-order
fi
# groups of 3: the last one short unless 3 divides np
if [ "$np" -gt 3 ]; then
    EXPECT=("$OK" ": allreduce = shm \(blocking" ": reduce = shm \(blocking" "[0-9]+ groups by")
    step "shm-groups3-colls-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 \
        --mca coll_hiercoll_shm_group_size 3 "${SHM[@]}" "$colls" --only allreduce,reduce,barrier
fi
if [ "$np" -gt 8 ]; then
    EXPECT=("$OK" ": allreduce = shm \(blocking" "$np processes, .*[0-9]+ groups by")
    step "shm-groups-default-colls-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 \
        "${SHM[@]}" "$colls" --only allreduce,reduce,barrier
fi
# persistent requests, each on a channel of its own (on shm where a
# region is flat: up to coll_hiercoll_shm_group_size ranks, 8; past that
# the inits go to other algorithms, still against serial references).  4
# channels: the suite's 16 make a region past the default 4 MiB arena
# from 6 ranks (17 channels), and the inits go elsewhere
EXPECT=("t_persist: np $np: [0-9]+ checks, 0 failed")
[ "$np" -le 8 ] && EXPECT+=("_init = shm \(persistent")
step "shm-persist-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 \
    --mca coll_hiercoll_shm_persistent 4 "${SHM[@]}" "$persist"
if [ "$np" -gt 8 ]; then
    mpi 8
    EXPECT=("t_persist: np 8: [0-9]+ checks, 0 failed" "_init = shm \(persistent")
    step "shm-persist-np8" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 \
        --mca coll_hiercoll_shm_persistent 4 "${SHM[@]}" "$persist"
    mpi "$np"
fi
# single copy (CMA) from 8 bytes: bcast and reductions
EXPECT=("$OK" ": bcast = shm \(blocking" ": allreduce = shm \(blocking" "single copy \(CMA\) from 8 bytes")
step "shm-cma-np$np" 180 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 2 \
    --mca coll_hiercoll_shm_cma_min 8 "${SHM[@]}" "$colls" --only bcast,allreduce,reduce
# the long cells (coll_hiercoll_shm_long on) at every length from 113 bytes
# in chunks of 4 KiB: every shm bcast, reduce, allreduce against serial
# references, and t_shm's checks
LONGC=(--mca coll_hiercoll_shm_long on --mca coll_hiercoll_shm_long_min 113
       --mca coll_hiercoll_shm_long_chunk 4K)
EXPECT=("$OK" "shm: long cells: ")
step "shm-long-colls-np$np" 240 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 1 "${SHM[@]}" \
    "${LONGC[@]}" "$colls" --only bcast,reduce,allreduce
EXPECT=("$SHM_OK" "shm: long cells: ")
step "shm-long-t_shm-np$np" 240 "${MPI[@]}" "${SHORT[@]}" --mca coll_hiercoll_verbose 1 "${SHM[@]}" \
    "${LONGC[@]}" "$shm" --cycles 20 --cycle-bytes 65536 "${ANY[@]}"
# the stress program for --stress-seconds through the hierarchy (groups of
# 4 by the real L3, NUMA and packages; runs of leaders above): mixed
# collectives checked against serial references, random sleeps, buffers
# overwritten after each return, 2 slots, every slot reuse checked against
# the done lines (an abort if the cached minimum ran ahead)
EXPECT=("t_stress: np $np: [0-9]+ iterations, [0-9]+ checks, 0 failed")
REJECT=("shm debug reuse")
step "shm-stress-np$np" $((stress_seconds + 60)) "${MPI[@]}" "${SHORT[@]}" \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_group_size 4 \
    --mca coll_hiercoll_shm_slots 2 --mca coll_hiercoll_shm_debug_reuse 1 "${SHM[@]}" "$stress" \
    --seconds "$stress_seconds" --iters 0 --seed "$RANDOM$RANDOM"
# auto, the default stack: shm where every process has a core of its own
if [ "$np" -le "$cores" ]; then
    EXPECT=("$OK" ": allreduce = shm \(blocking, np $np\) by auto" ": barrier = shm \(blocking, np $np\) by auto")
else
    EXPECT=("$OK")
fi
step "shm-auto-np$np" 180 "${MPI[@]}" --mca coll_hiercoll_verbose 2 "$colls" \
    --only allreduce,reduce,bcast,barrier --quick

# ---------------------------------------------------------------------------
# hc_bench --report at np 4, 8, 16 (at most the cores)
# ---------------------------------------------------------------------------
echo "## hc_bench --report (hiercoll's auto against the same stack without hiercoll)"
csvs=()
nps=""
for bn in ${bench_nps//,/ }; do # (capped at the cores, each np once)
    [ "$bn" -gt "$cores" ] && [ "$oversub" = no ] && bn=$cores
    case " $nps " in *" $bn "*) ;; *) nps="$nps $bn" ;; esac
done
for bn in $nps; do
    mpi "$bn"
    csv=$out/bench-np$bn.csv
    EXPECT=("# hc_bench report, np $bn" "^## allreduce" "^## barrier")
    REJECT=("differ")
    if step "bench-np$bn" 150 "${MPI[@]}" "$hcb" --report bcast,reduce,allreduce,barrier \
        --max "$bench_max" --csv "$csv"; then
        csvs+=("$csv")
        sed -n '/^#\|^##\|ratio\|^ *[0-9]/p' "$logdir/bench-np$bn.log" | grep -v '^\$' |
            sed 's/^/  /' | head -100
    fi
done

# the long cells under auto at every np (coll_hiercoll_shm_long on and
# coll_hiercoll_shm_wide_ranks 0): the table that decides whether auto may
# take long data back from 8 processes (no size below 0.95, a geometric
# mean of 1.5 from 16 KiB)
echo "## hc_bench --report with the long cells (coll_hiercoll_shm_long on, coll_hiercoll_shm_wide_ranks 0)"
LONGA=(--mca coll_hiercoll_shm_long on --mca coll_hiercoll_shm_wide_ranks 0)
# bytes of a size such as 4K or 8M
to_bytes() {
    local v=${1%[KkMm]} m=1
    case $1 in *[Kk]) m=1024 ;; *[Mm]) m=1048576 ;; esac
    echo $((v * m))
}
long_nps=$nps
if [ "$(to_bytes "$bench_max")" -lt 16384 ]; then
    echo "  (none: --max $bench_max is below the long sizes, which start at 16K)"
    long_nps=""
fi
for bn in $long_nps; do
    mpi "$bn"
    EXPECT=("# hc_bench report, np $bn" "^## allreduce")
    REJECT=("differ")
    if step "bench-long-np$bn" 300 "${MPI[@]}" "${LONGA[@]}" "$hcb" --report bcast,reduce,allreduce \
        --min 16K --max "$bench_max" --csv "$out/bench-long-np$bn.csv"; then
        sed -n '/^#\|^##\|ratio\|^ *[0-9]/p' "$logdir/bench-long-np$bn.log" | grep -v '^\$' |
            sed 's/^/  /' | head -60
    fi
done
# against tuned, hiercoll's auto beside the long cells (a variant): one
# job per collective and np
echo "## hc_bench --against tuned, the long cells as a variant"
for bn in $nps; do
    mpi "$bn"
    for c in bcast reduce allreduce; do
        EXPECT=("# hc_bench $c")
        step "against-$c-np$bn" 200 "${MPI[@]}" "$hcb" --coll "$c" --against tuned \
            --variant "long:hiercoll_shm_long=on,hiercoll_${c}_algorithm=shm" --min 8 \
            --max "$bench_max" --csv "$out/against-$c-np$bn.csv" || true
    done
done
# ... and against Open MPI 6.0's xhc and acoll (its mpirun, a hiercoll built
# against it; hc_bench sets their parameters: peer_params)
if [ -n "$ompi6" ]; then
    [ -z "$build6" ] && build6=${build}-ompi6
    if [ -x "$ompi6/bin/mpirun" ] && [ -f "$build6/$COMPONENT" ]; then
        stage6=$out/_components6
        rm -rf "$stage6" && mkdir -p "$stage6" && cp -f "$build6/$COMPONENT" "$stage6/"
        hcb6=$build6/$(real_prog contrib/hc_bench)
        [ -x "$hcb6" ] || hcb6=$build6/contrib/hc_bench
        echo "## hc_bench --against tuned,xhc,acoll (Open MPI 6.0 in $ompi6)"
        for bn in $nps; do
            for c in bcast reduce allreduce; do
                EXPECT=("# hc_bench $c")
                step "against6-$c-np$bn" 300 env OMPI_MCA_mca_base_component_path="$stage6:$ompi6/lib/openmpi" \
                    PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                    "$ompi6/bin/mpirun" --map-by core --bind-to core -np "$bn" --mca btl self,sm \
                    "$hcb6" --coll "$c" --against tuned,xhc,acoll \
                    --variant "long:hiercoll_shm_long=on,hiercoll_${c}_algorithm=shm" --min 8 \
                    --max "$bench_max" --csv "$out/against6-$c-np$bn.csv" || true
            done
        done
    else
        echo "no Open MPI 6.0 run: $ompi6/bin/mpirun or $build6/$COMPONENT missing"
    fi
fi
# the model's costs on this machine (hc_cost shm --sys-ns, --page-ns; the
# line's latency: --l3-ns)
echo "## the costs the model takes (docs/design/shm-long.md)"
last=$((cores - 1))
probe=${PROG[hc_cma_probe]} pingpong=${PROG[hc_pingpong]}
EXPECT=("# calibration: syscall" "# contention: ")
step "cma-probe" 120 "$probe" --cpus "0,$last" --readers 2 --trials 11 || true
EXPECT=("one-way latency")
step "pingpong" 60 "$pingpong" --cpus "0,$last" --iters 50000 --trials 5 || true

# ---------------------------------------------------------------------------
# CSV and PNG
# ---------------------------------------------------------------------------
all=$out/hc_scale_bench.csv
png=""
if [ "${#csvs[@]}" -gt 0 ]; then
    echo "coll,np,bytes,candidate,latency_us,ratio" >"$all"
    for f in "${csvs[@]}"; do
        sed 1d "$f" >>"$all"
    done
    # per collective and np: bytes, the median latencies without and with
    # hiercoll, the ratio (the "auto" rows carry it)
    dat=$out/plot
    rm -rf "$dat"
    mkdir -p "$dat"
    awk -F, -v d="$dat" 'NR > 1 {
        k = $1 "-np" $2
        if ($4 == "fallback") wo[k, $3] = $5
        if ($4 == "auto") { print $3, wo[k, $3], $5, $6 >> (d "/" k ".dat") }
    }' "$all"
    png=$out/hc_scale_bench.png
    if command -v gnuplot >/dev/null 2>&1; then
        {
            echo "set terminal pngcairo size 1400,1000 font ',10'"
            echo "set output '$png'"
            echo "set multiplot layout 2,2 title 'hiercoll against the stack without it (ratio > 1: hiercoll faster), bound to cores'"
            echo "set logscale x 2; set logscale y 2; set format x '%.0b%B'; set grid; set key top left"
            echo "set xlabel 'bytes per rank'; set ylabel 't(without) / t(hiercoll)'"
            for c in bcast reduce allreduce barrier; do
                plots=""
                for f in "$dat"/$c-np*.dat; do
                    [ -f "$f" ] || continue
                    n=${f##*-np}; n=${n%.dat}
                    if [ $c = barrier ]; then
                        plots="$plots${plots:+, }'$f' using ($n):4 with points pt 7 ps 2 title 'np $n'"
                    else
                        plots="$plots${plots:+, }'$f' using 1:4 with linespoints title 'np $n'"
                    fi
                done
                echo "set title '$c'"
                if [ $c = barrier ]; then
                    echo "unset logscale x; set format x '%g'; set xlabel 'np'; set xrange [0:$((cores > 16 ? cores + 2 : 18))]"
                fi
                [ -n "$plots" ] && echo "plot $plots, 1 with lines lc rgb 'gray' notitle"
            done
            echo "unset multiplot"
        } >"$dat/plot.gp"
        gnuplot "$dat/plot.gp" 2>"$logdir/gnuplot.log" || { echo "gnuplot failed (logs/gnuplot.log)"; png=""; }
    elif command -v python3 >/dev/null 2>&1 && python3 -c 'import matplotlib' 2>/dev/null; then
        python3 - "$dat" "$png" <<'EOF' 2>"$logdir/matplotlib.log" || { echo "matplotlib failed (logs/matplotlib.log)"; png=""; }
import glob, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d, png = sys.argv[1], sys.argv[2]
fig, axs = plt.subplots(2, 2, figsize=(14, 10))
for ax, c in zip(axs.flat, ["bcast", "reduce", "allreduce", "barrier"]):
    for f in sorted(glob.glob(os.path.join(d, c + "-np*.dat")), key=lambda p: int(p.split("-np")[1][:-4])):
        n = int(f.split("-np")[1][:-4])
        rows = [l.split() for l in open(f) if l.strip()]
        x = [float(r[0]) for r in rows]
        y = [float(r[3]) for r in rows]
        if c == "barrier":
            ax.plot([n] * len(y), y, "o", label="np %d" % n)
        else:
            ax.plot(x, y, "o-", label="np %d" % n)
    if c != "barrier":
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes per rank")
    else:
        ax.set_xlabel("np")
    ax.set_yscale("log", base=2)
    ax.axhline(1, color="gray")
    ax.set_title(c)
    ax.set_ylabel("t(without) / t(hiercoll)")
    ax.grid(True)
    ax.legend()
fig.suptitle("hiercoll against the stack without it (ratio > 1: hiercoll faster), bound to cores")
fig.savefig(png, dpi=100)
EOF
    else
        echo "no PNG: neither gnuplot nor python3 with matplotlib here (the CSV has the figures)"
        png=""
    fi
fi

echo ""
echo "## summary ($((SECONDS - T0))s of ${budget}s)"
[ -f "$all" ] && echo "CSV: $all (coll,np,bytes,candidate,latency_us,ratio; per np: $out/bench-np*.csv)"
[ -n "$png" ] && [ -f "$png" ] && echo "PNG: $png"
for f in "${csvs[@]+"${csvs[@]}"}"; do # (hc_bench's table: geometric means over the sizes)
    l=$logdir/$(basename "$f" .csv).log
    grep -q '^| np |' "$l" 2>/dev/null && [ -z "${said_head:-}" ] && grep -A1 '^| np |' "$l" && said_head=1
    grep '^| [0-9]' "$l" 2>/dev/null
done
echo "logs: $logdir"
[ $failed -gt 0 ] && echo "failed:$failed_names"
[ $skipped -gt 0 ] && echo "skipped (budget):$skipped_names"
if [ "$dry" = yes ]; then
    echo "dry run: nothing run"
    exit 0
fi
echo "$passed passed, $failed failed$([ $skipped -gt 0 ] && echo ", $skipped skipped")"
[ $failed -eq 0 ]
