#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# mpi4py-check.sh (make check-mpi4py): mpi4py's own test suite, as Open
# MPI's CI runs it (test/runtests.py under mpirun at np 1-5), against the
# component of a hiercoll build, under several stacks:
#   default  Open MPI's default coll selection, hiercoll among it
#   short    --mca coll hiercoll,basic
#   shm      hiercoll,basic with every collective of the shared-memory node
#            level forced to it (set up at the first call; 2 slots; every
#            slot reuse checked against the done lines); mpi4py asks for
#            MPI_THREAD_MULTIPLE, where the node level is off by design, so
#            this one runs with runtests.py --thread-level serialized
#   decomp   the default stack with every collective forced to
#            decomposition into parts of 2 consecutive ranks (block:2)
#   without  the default stack without hiercoll (--mca coll ^hiercoll): the
#            reference for triage, not in the default list
# The tests come from Debian's source package of the installed
# python3-mpi4py (apt-get source, with a deb-src line of this machine's
# archive, into BUILD/mpi4py; nothing of mpi4py is kept in the project), or
# from MPI4PY_SRC (a directory with mpi4py's test/runtests.py of the same
# version).  They run with Debian's /usr/bin/python3 and its installed
# mpi4py.  Where the source cannot be had, the check says so and is
# skipped (exit 0; MPI4PY_REQUIRED=1 makes that a failure).
#
# Left out, each for a reason that is not hiercoll's (shown failing
# without it, or not about collectives): see EXCLUDE below.
#
# Usage: contrib/mpi4py-check.sh [--build DIR] [--np "1 2 3 4 5"]
#            [--configs "default short shm decomp"] [--timeout S]
# Prints a table (np x configuration: tests run, passed, failed, skipped),
# then "check-mpi4py: N runs passed, N failed"; exits 1 on a failure.

set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(pwd)
nps="1 2 3 4 5"
configs="default short shm decomp"
tmo=900
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --np) nps=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --timeout) tmo=$2; shift 2 ;;
    *) echo "mpi4py-check: unknown option $1" >&2; exit 2 ;;
    esac
done

# Tests left out of every run, with why (runtests.py's --exclude, by module).
#   test_spawn, test_dynproc: process management (ORTE's spawn, PMIx's
#   publish and lookup, connect and accept), not collectives, and too slow:
#   test_spawn alone took 640 to 940 s at np 1 here, its spawns hanging now
#   and then until PMIx's lookup timed out (MPI_ERR_UNKNOWN from Spawn).
#   Not yet traced to one side: TestSpawnSelf at np 1 (150-200 s limits,
#   load average 30-110) hung in 4 of 5 tries under the default stack, with
#   hiercoll as of these checks (3 of 4) and as it was before them (1 of 1),
#   and in 2 of 5 without hiercoll; each of its tests passes alone under both.
EXCLUDE=(test_spawn test_dynproc)

py=/usr/bin/python3
skip() {
    echo "check-mpi4py: skipped: $*"
    [ "${MPI4PY_REQUIRED:-0}" = 1 ] && exit 1
    exit 0
}
"$py" -c 'import mpi4py' 2>/dev/null || skip "$py has no mpi4py (Debian: apt-get install python3-mpi4py)"
pyver=$("$py" -c 'import mpi4py; print(mpi4py.__version__)')

# ---------------------------------------------------------------------------
# The tests: MPI4PY_SRC, or Debian's source package of the installed one
# ---------------------------------------------------------------------------
work=$build/mpi4py
mkdir -p "$work"
src=${MPI4PY_SRC:-}
if [ -z "$src" ]; then
    srcpkg=$(dpkg-query -W -f='${source:Package} ${source:Version}' python3-mpi4py 2>/dev/null)
    name=${srcpkg% *} ver=${srcpkg#* }
    [ -n "$name" ] && [ -n "$ver" ] || skip "python3-mpi4py is not a Debian package here"
    src=$work/src-$ver
    if [ ! -f "$src/test/runtests.py" ]; then
        # (a private apt configuration: a deb-src line of this machine's
        # archive, lists and cache under BUILD/mpi4py; the system's is untouched)
        apt=$work/apt
        mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$work/dl"
        uri=$("$here/apt-archive.sh" 2>/dev/null) || skip "no Debian archive in apt's sources"
        codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
        echo "deb-src $uri $codename main" >"$apt/sources.list"
        O=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -q)
        apt-get "${O[@]}" update >"$work/apt.log" 2>&1 || skip "apt-get update failed ($work/apt.log)"
        if ! (cd "$work/dl" && apt-get "${O[@]}" source --download-only "$name=$ver") \
            >>"$work/apt.log" 2>&1; then
            skip "apt-get source $name=$ver failed: $(grep -m1 -E '^E:' "$work/apt.log")" \
                "(MPI4PY_SRC=DIR runs mpi4py $pyver's test/ from elsewhere)"
        fi
        rm -rf "$src"
        dpkg-source -x "$work/dl/${name}_${ver#*:}.dsc" "$src" >>"$work/apt.log" 2>&1 ||
            skip "dpkg-source -x failed ($work/apt.log)"
    fi
fi
[ -f "$src/test/runtests.py" ] || skip "$src has no test/runtests.py"

# ---------------------------------------------------------------------------
# Open MPI, the component as built (as make check stages it)
# ---------------------------------------------------------------------------
ompi_info=$(dirname "$(command -v mpirun)")/ompi_info
series=$("$ompi_info" --version 2>/dev/null | sed -n 's/^Open MPI v\([0-9]*\.[0-9]*\).*/\1/p')
"$here/../test/run-tests.sh" --top-builddir "$build" --stage-only >/dev/null ||
    { echo "check-mpi4py: no component in $build (make first)" >&2; exit 2; }
syscomp=$("$ompi_info" --path pkglibdir 2>/dev/null | sed -n 's/.*Pkglibdir: *//p')
export OMPI_MCA_mca_base_component_path=$build/test/_components:$syscomp
case $series in
5.* | 6.*) OVER=(--map-by :OVERSUBSCRIBE) ;;
*) OVER=(--oversubscribe) ;;
esac
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

SHM=()
for c in allreduce reduce bcast barrier allgather allgatherv gather gatherv scatter scatterv \
    reduce_scatter_block reduce_scatter; do
    SHM+=(--mca "coll_hiercoll_${c}_algorithm" shm)
done
DECOMP=(--mca coll_hiercoll_decomp_criterion block:2)
for c in allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast exscan gather \
    gatherv reduce reduce_scatter_block reduce_scatter scan scatter scatterv; do
    DECOMP+=(--mca "coll_hiercoll_${c}_algorithm" decomp)
done
config_args() {
    RA=()
    case $1 in
    default) CA=() ;;
    short) CA=(--mca coll hiercoll,basic) ;;
    shm) CA=(--mca coll hiercoll,basic --mca coll_hiercoll_shm_min_calls 0
             --mca coll_hiercoll_shm_slots 2 --mca coll_hiercoll_shm_debug_reuse 1 "${SHM[@]}")
         RA=(--thread-level serialized) ;;
    decomp) CA=("${DECOMP[@]}") ;;
    without) CA=(--mca coll ^hiercoll) ;;
    *) echo "mpi4py-check: unknown configuration $1" >&2; exit 2 ;;
    esac
}
EX=()
for e in "${EXCLUDE[@]}"; do EX+=(--exclude "$e"); done

echo "# check-mpi4py: mpi4py $pyver's test suite ($src/test), Open MPI ${series:-?}, $py"
echo "# left out: ${EXCLUDE[*]} (see contrib/mpi4py-check.sh)"
logs=$work/logs
mkdir -p "$logs"
ok=0 bad=0 rows=""
t0=$SECONDS
for np in $nps; do
    for cfg in $configs; do
        config_args "$cfg"
        log=$logs/np$np-$cfg
        rm -f "$log".*
        t1=$SECONDS
        # (each rank's unittest output in a file of its own: they interleave)
        (cd "$src" && timeout -k 10 "$tmo" mpirun "${OVER[@]}" -np "$np" "${CA[@]}" \
            sh -c 'l=$1; shift; exec "$@" >"$l.${OMPI_COMM_WORLD_RANK:-0}" 2>&1' sh "$log" \
            "$py" test/runtests.py --no-builddir "${RA[@]+"${RA[@]}"}" "${EX[@]}") \
            >"$log.mpirun" 2>&1
        rc=$?
        # rank 0's counts; failures: the most of any rank
        run=$(sed -n 's/^.*Ran \([0-9]*\) tests\? in.*/\1/p' "$log.0" 2>/dev/null | tail -1)
        skipped=$(grep -oE 'skipped=[0-9]+' "$log.0" 2>/dev/null | tail -1 | cut -d= -f2)
        failed=0
        for f in "$log".[0-9]*; do
            [ -f "$f" ] || continue
            n=$(grep -E '^(OK|FAILED)' "$f" | tail -1 | grep -oE '(failures|errors)=[0-9]+' |
                cut -d= -f2 | awk '{ s += $1 } END { print s + 0 }')
            [ "$n" -gt "$failed" ] && failed=$n
        done
        run=${run:-0} skipped=${skipped:-0}
        passed=$((run - failed - skipped))
        verdict=ok
        if [ $rc -ne 0 ] || [ "$run" = 0 ] || [ "$failed" -gt 0 ]; then
            verdict="FAILED (exit $rc)"
            [ $rc -eq 124 ] && verdict="FAILED (timed out after ${tmo}s)"
            bad=$((bad + 1))
        else
            ok=$((ok + 1))
        fi
        row=$(printf '| %2d | %-8s | %5d | %6d | %6d | %7d | %4ds | %s |' "$np" "$cfg" "$run" \
            "$passed" "$failed" "$skipped" $((SECONDS - t1)) "$verdict")
        echo "$row"
        rows="$rows$row"$'\n'
        if [ "$verdict" != ok ]; then
            grep -hE '^(FAIL|ERROR):' "$log".[0-9]* 2>/dev/null | sort | uniq -c | head -20 |
                sed 's/^/    /'
            tail -n 5 "$log.mpirun" | sed 's/^/    /'
        fi
    done
done
echo
echo "| np | config   | tests | passed | failed | skipped | time | verdict |"
echo "|----|----------|-------|--------|--------|---------|------|---------|"
printf '%s' "$rows"
echo "check-mpi4py: $ok runs passed, $bad failed ($((SECONDS - t0)) s; logs in $logs)"
[ $bad -eq 0 ]
