#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# hiercoll's test suite (run by "make check"): the planners' Check tests,
# then MPI tests under mpirun against the component built in this tree.
# Every test has a timeout; each test's output is kept in test/logs/.
# Ends with "N passed, N failed" and exits non-zero on any failure.
#
# Options: --top-builddir DIR --mpirun PATH --have-check yes|no
#          --only REGEX (run the tests whose names match)
#          --list (print the test names)
#          --stage-only (copy the component where the tests load it; exit)

set -u

top_builddir=$(pwd)/..
mpirun=mpirun
have_check=yes
only=""
list=no
stage_only=no
while [ $# -gt 0 ]; do
    case "$1" in
    --top-builddir) top_builddir=$2; shift 2 ;;
    --mpirun) mpirun=$2; shift 2 ;;
    --have-check) have_check=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --list) list=yes; shift ;;
    --stage-only) stage_only=yes; shift ;;
    *) echo "run-tests.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -n "${HIERCOLL_TESTS:-}" ] && only=$HIERCOLL_TESTS

testdir=$top_builddir/test
logdir=$testdir/logs

# The component as built here, ahead of Open MPI's own directory.
so=$top_builddir/ompi/mca/coll/hiercoll/.libs/mca_coll_hiercoll.so
stage=$testdir/_components
if [ "$list" = no ]; then
    mkdir -p "$logdir" "$stage"
    if [ ! -f "$so" ]; then
        echo "run-tests.sh: $so is missing: build first (make)" >&2
        exit 2
    fi
    # (a new file renamed over the old: a run beside this one in the same
    # build keeps the copy it mapped; cp over it truncated that copy under
    # its processes, which died of SIGBUS)
    cp -f "$so" "$stage/.new.$$" && mv -f "$stage/.new.$$" "$stage/$(basename "$so")"
    # its help file beside it, where the component looks when Open MPI's own
    # directory has none (opal_show_help_add_dir)
    help=$(cd "$(dirname "$0")/.." && pwd)/ompi/mca/coll/hiercoll/help-coll-hiercoll.txt
    cp -f "$help" "$stage/.help.$$" && mv -f "$stage/.help.$$" "$stage/$(basename "$help")"
    # the offload's transport plugins, where an installed component has them
    rm -rf "$stage/hiercoll.new.$$"
    for p in "$(dirname "$so")"/hiercoll_*.so; do
        [ -f "$p" ] || continue
        mkdir -p "$stage/hiercoll.new.$$"
        cp -f "$p" "$stage/hiercoll.new.$$/"
    done
    rm -rf "$stage/hiercoll.old.$$"
    [ -d "$stage/hiercoll" ] && mv "$stage/hiercoll" "$stage/hiercoll.old.$$"
    [ -d "$stage/hiercoll.new.$$" ] && mv "$stage/hiercoll.new.$$" "$stage/hiercoll"
    rm -rf "$stage/hiercoll.old.$$"
fi
[ "$stage_only" = yes ] && { echo "run-tests.sh: staged in $stage"; exit 0; }
ompi_info=$(dirname "$(command -v "$mpirun" || echo /usr/bin/mpirun)")/ompi_info
# The scripts the tests run (the demo, the docs' commands) call mpirun and
# ompi_info by name: those of the Open MPI configured, first on PATH (an
# Open MPI built by hand, e.g. 6.0 in /opt/ompi6, beside the system's)
PATH=$(dirname "$ompi_info"):$PATH
syscomp=$("$ompi_info" --path pkglibdir 2>/dev/null | sed -n 's/.*Pkglibdir: *//p')
cpath=$stage:$syscomp
export OMPI_MCA_mca_base_component_path=$cpath

# What differs between Open MPI 4.1 (ORTE's mpirun) and 5.0 (PRRTE's
# prterun) for these tests, in this one place: the shared-memory BTL
# (vader, renamed sm in 5.0), oversubscription and mapping by slot or by
# node (ORTE options in 4.1, one --map-by directive in 5.0), running as root (PRRTE has its own
# variables), the coll API version ompi_info prints, the component under
# hiercoll in the default stack (han in 5.0), new communicators' names,
# the number of slots in a communicator's collective table, and show_help's
# aggregation (5.0's runtime prints the first message of each help topic
# in a job and drops the later ones, whatever their text: a test that looks
# for a later message of a topic turns it off with HELP_EVERY).
ompi_series=$("$ompi_info" --version 2>/dev/null | sed -n 's/^Open MPI v\([0-9]*\.[0-9]*\).*/\1/p')
case $ompi_series in
6.*)
    # 6.0 (built by hand, not packaged): PRRTE as in 5.0; coll API 3.0.0,
    # whose table always has agree and iagree
    SM_BTL=sm
    OVERSUBSCRIBE=(--map-by :OVERSUBSCRIBE)
    BY_SLOT=(--map-by slot:OVERSUBSCRIBE)
    BY_NODE=(--map-by node:OVERSUBSCRIBE)
    DEFAULT_BELOW=han # priority 35 as in 5.0; declines single-node communicators
    COMM_NAME="MPI COMM"
    # han 6.0 (without hiercoll too, fake nodes 3,3): blocking gather of
    # int sent, vector received still wrong (5.0.7's bug); gatherv, which
    # han serves from 6.0 on, wrong with resized datatypes; allgather right
    DEFAULT_STACK_BROKEN="gather|gatherv"
    COLL_SLOTS="(67|69)"
    COLL_API=3.0.0
    HELP_EVERY=(--mca opal_base_help_aggregate 0)
    ;;
5.*)
    SM_BTL=sm
    OVERSUBSCRIBE=(--map-by :OVERSUBSCRIBE)
    BY_SLOT=(--map-by slot:OVERSUBSCRIBE)
    BY_NODE=(--map-by node:OVERSUBSCRIBE)
    DEFAULT_BELOW=han # on several nodes; han declines single-node communicators
    COMM_NAME="MPI COMM" # how Open MPI names a new communicator ("... DUP FROM 0")
    # han 5.0.7's blocking gather and allgather deliver wrong data when the
    # send and receive datatypes differ (int vs vector), without hiercoll too
    DEFAULT_STACK_BROKEN="gather|allgather"
    COLL_SLOTS="(67|69)" # the collective table; 69 with ULFM's agree and iagree
    COLL_API=2.4.0
    HELP_EVERY=(--mca opal_base_help_aggregate 0)
    ;;
*)
    SM_BTL=vader
    OVERSUBSCRIBE=(--oversubscribe --mca rmaps_base_oversubscribe 1)
    BY_SLOT=("${OVERSUBSCRIBE[@]}")
    BY_NODE=(--map-by node "${OVERSUBSCRIBE[@]}")
    DEFAULT_BELOW=tuned # han's priority is 0
    COMM_NAME="MPI COMMUNICATOR"
    DEFAULT_STACK_BROKEN=none
    COLL_SLOTS=67
    COLL_API=2.0.0
    HELP_EVERY=() # hiercoll prints its messages itself on 4.1
    ;;
esac
export HIERCOLL_SM_BTL=$SM_BTL HIERCOLL_OMPI_SERIES=${ompi_series:-4.1}
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# One machine, possibly two cores: shared memory only, yield when idle.
MPI=("$mpirun" "${OVERSUBSCRIBE[@]}" --mca btl self,$SM_BTL --mca pml ob1
     --mca mpi_yield_when_idle 1)

passed=0
failed=0
failed_names=""
EXPECT=()       # regexes that must appear in the output
EXPECT_ONCE=()  # regexes that must appear exactly once
REJECT=()       # regexes that must not appear

selected() {
    [ -z "$only" ] || [[ "$1" =~ $only ]]
}

# run NAME TIMEOUT COMMAND...
run() {
    local name=$1 t=$2
    shift 2
    if ! selected "$name"; then
        EXPECT=(); EXPECT_ONCE=(); REJECT=()
        return
    fi
    if [ "$list" = yes ]; then
        echo "$name"
        EXPECT=(); EXPECT_ONCE=(); REJECT=()
        return
    fi
    local log=$logdir/$name.log
    local t0=$SECONDS
    # A fresh TMPDIR per test: mpirun's session directory is named after its
    # pid, and a run killed at its time limit leaves its directory behind; once
    # the pids wrap (pid_max 32768 on a CI machine), PRRTE 5.0 refuses to start
    # in a directory that exists ("prte_session_dir failed ... Exists").
    local tmp
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/hct.XXXXXX") || exit 1
    TMPDIR=$tmp timeout -k 10 "$t" "$@" >"$log" 2>&1
    local rc=$?
    rm -rf "$tmp"
    local why=""
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        why="timed out after ${t}s"
    elif [ $rc -ne 0 ]; then
        why="exit code $rc"
    fi
    local re n
    # a message of help-coll-hiercoll.txt that show_help could not find
    grep -q "You were supposed to get help about" "$log" &&
        why="${why:+$why; }a help message was not found (show_help's \"Sorry!\")"
    for re in "${EXPECT[@]+"${EXPECT[@]}"}"; do
        grep -qE -- "$re" "$log" || why="${why:+$why; }missing /$re/"
    done
    for re in "${EXPECT_ONCE[@]+"${EXPECT_ONCE[@]}"}"; do
        n=$(grep -cE -- "$re" "$log")
        [ "$n" = 1 ] || why="${why:+$why; }/$re/ seen $n times, want once"
    done
    for re in "${REJECT[@]+"${REJECT[@]}"}"; do
        grep -qE -- "$re" "$log" && why="${why:+$why; }unexpected /$re/"
    done
    EXPECT=(); EXPECT_ONCE=(); REJECT=()
    if [ -z "$why" ]; then
        passed=$((passed + 1))
        printf 'PASS: %-40s %4ds\n' "$name" $((SECONDS - t0))
    else
        failed=$((failed + 1))
        failed_names="$failed_names $name"
        printf 'FAIL: %-40s %4ds  %s\n' "$name" $((SECONDS - t0)) "$why"
        echo "----- last lines of $log"
        tail -n 25 "$log" | sed 's/^/    /'
        echo "-----"
    fi
}

# ---------------------------------------------------------------------------
# Planners (no MPI)
# ---------------------------------------------------------------------------
if [ "$have_check" = yes ]; then
    for t in "$testdir"/unit/check_*; do
        [ -x "$t" ] || continue
        case "$t" in *.c|*.o) continue ;; esac
        # the ofi backend's test needs a provider with FI_TRIGGER (sockets here)
        if [ "$(basename "$t")" = check_ofi_trig ] && ! fi_info -c FI_TRIGGER >/dev/null 2>&1; then
            echo "SKIP: unit-check_ofi_trig (no libfabric provider offers FI_TRIGGER)"
            continue
        fi
        EXPECT=("Checks: [0-9]+, Failures: 0, Errors: 0")
        run "unit-$(basename "$t")" 900 "$t"
    done
fi

# ---------------------------------------------------------------------------
# The MPI side's layers (HACKING.md): no circle of calls among the
# component's object files, calls and includes only go down; and the check
# fails on an injected upward call
# ---------------------------------------------------------------------------
layers=$(cd "$(dirname "$0")/.." && pwd)/contrib/check-layers.sh
layers_args=("$(dirname "$layers")/../ompi/mca/coll/hiercoll" "$top_builddir/ompi/mca/coll/hiercoll")
EXPECT=("check-layers: [0-9]+ files, [0-9]+ edges, no circle")
run "layers" 120 "$layers" "${layers_args[@]}"
EXPECT=("coll_hiercoll_exec \(layer 3\) calls coll_hiercoll_select" "a circle of calls among: .*exec")
run "layers-upward-call-fails" 120 bash -c '! "$0" "$@" --inject coll_hiercoll_exec:coll_hiercoll_select' \
    "$layers" "${layers_args[@]}"
# staging the component again (another run of this suite in this build)
# puts a new file in place: the DSO a running job has mapped stays whole
EXPECT=("staged: replaced")
run "stage-replaces-dso" 60 bash -c 'i=$(stat -c %i "$1/mca_coll_hiercoll.so") &&
    bash "$0" --top-builddir "$2" --mpirun "$3" --stage-only &&
    j=$(stat -c %i "$1/mca_coll_hiercoll.so") &&
    if [ "$i" != "$j" ]; then echo "staged: replaced (inode $i -> $j)";
    else echo "staged: rewritten in place (inode $i)"; fi' "$0" "$stage" "$top_builddir" "$mpirun"

# ---------------------------------------------------------------------------
# Collectives against serial references
# ---------------------------------------------------------------------------
colls=$testdir/mpi/t_colls
comms=$testdir/mpi/t_comms
OK='t_colls: np [0-9]+: [0-9]+ checks, 0 failed'
ALL_COLLS="allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast exscan
           gather gatherv reduce reduce_scatter_block reduce_scatter scan scatter scatterv"
# the collectives whose auto decomposes small calls on interleaved parts,
# and those it never decomposes (coll_hiercoll_algos.c)
DECOMP_AUTO="allgather allgatherv allreduce alltoall barrier bcast gather reduce
             reduce_scatter_block reduce_scatter scatter"
DECOMP_NEVER="alltoallv|alltoallw|exscan|gatherv|scan|scatterv"

# Every collective forced to a hiercoll algorithm (args: bcast reduce
# barrier allreduce [gatherv/scatterv] choices; the others take their
# first algorithm).
forced() {
    local args=() c a
    for c in $ALL_COLLS; do
        case $c in
        bcast) a=$1 ;; reduce) a=$2 ;; barrier) a=$3 ;; allreduce) a=$4 ;;
        gatherv|scatterv) a=${5:-linear} ;;
        reduce_scatter|reduce_scatter_block) a=basic ;;
        *) a=linear ;;
        esac
        args+=(--mca "coll_hiercoll_${c}_algorithm" "$a")
    done
    echo "${args[@]}"
}

# What the statistics of a run forced to hiercoll's algorithms must show:
# calls run by hiercoll on MPI_COMM_WORLD, none passed on anywhere.
ALL_RAN='hiercoll: stats comm MPI_COMM_WORLD .*calls [1-9][0-9]* \(passed on 0\)'
NONE_PASSED='passed on [1-9]'

# hiercoll with coll/basic only: hiercoll's own plans serve every
# nonblocking and persistent call.
for np in 1 2 3 4 5 6 7 8; do
    EXPECT=("$OK")
    run "colls-auto-basic-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic "$colls"
done
# hiercoll above basic and libnbc: auto choices, the rest falls back.
for np in 3 6; do
    EXPECT=("$OK")
    run "colls-auto-libnbc-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc "$colls"
done
# Every collective run by a hiercoll plan in every mode: the statistics
# must show that nothing was passed on.
for np in 2 5 8; do
    EXPECT=("$OK" "$ALL_RAN")
    REJECT=("$NONE_PASSED")
    run "colls-forced-trees-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_stats 1 $(forced binomial binomial dissemination recursive_doubling) \
        "$colls"
done
for np in 3 4 7; do
    EXPECT=("$OK" "$ALL_RAN")
    REJECT=("$NONE_PASSED")
    run "colls-forced-linear-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_stats 1 $(forced linear linear linear recursive_doubling) "$colls"
done
# Tree gatherv and scatterv at both levels, every other collective forced
# too (nothing may be passed on).  At the conservative level non-roots pass
# NULL and MPI_DATATYPE_NULL for what MPI reads at the root only.
for level in conservative aggressive; do
    bare=()
    [ $level = conservative ] && bare=(--root-only-args)
    for np in 1 2 3 4 5 6 7 8 16; do
        EXPECT=("$OK" "$ALL_RAN.* gatherv:[1-9][0-9]* .*scatterv:[1-9]")
        REJECT=("$NONE_PASSED")
        run "gatherv-tree-$level-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
            --mca coll_hiercoll_stats 1 --mca coll_hiercoll_gatherv_level $level \
            $(forced binomial binomial dissemination recursive_doubling tree) \
            "$colls" --only gatherv,scatterv "${bare[@]}"
    done
done
# The level per communicator: t_colls' dup takes the info key
# hiercoll_gatherv_level=aggressive, MPI_COMM_WORLD keeps the MCA default;
# auto runs the tree from 2 processes here.
EXPECT=("$OK"
        "hiercoll: MPI_COMM_WORLD \(cid 0, np 4\)  gatherv=tree\(conservative\)"
        "hiercoll: MPI_COMM_WORLD \(cid 0, np 4\)  scatterv=tree\(conservative\)"
        "hiercoll: $COMM_NAME [0-9]+ DUP FROM 0 \(cid [0-9]+, np 4\)  gatherv=tree\(aggressive\)"
        "hiercoll: $COMM_NAME [0-9]+ DUP FROM 0 \(cid [0-9]+, np 4\)  scatterv=tree\(aggressive\)"
        "hiercoll: stats comm $COMM_NAME [0-9]+ DUP FROM 0 cid [0-9]+ rank 0/4: calls [1-9][0-9]* \(passed on 0\).* gatherv:[1-9][0-9]* .*scatterv:[1-9]")
run "gatherv-level-info-key-np4" 300 "${MPI[@]}" -np 4 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_stats 1 --mca coll_hiercoll_gatherv_tree_min 2 \
    "$colls" --only gatherv,scatterv --info hiercoll_gatherv_level=aggressive
# Pair types whose data is one run in a larger extent (MPI_LONG_INT,
# MPI_DOUBLE_INT, MPI_LONG_DOUBLE_INT) at the counts whose bytes pass
# 64 KiB inside the last element, sent and received as the type, a packed
# and a wide twin: gather, scatter, gatherv and scatterv forced to linear,
# then gatherv and scatterv to the tree, whose root packs and unpacks the
# chains of blocks in reverse rank order (t_pairs, against serial
# references).  Open MPI's own local copies lose the end of some of them:
# the stack without hiercoll fails this test.
for np in 4 7; do
    EXPECT=("t_pairs: np $np: [0-9]+ checks, 0 failed"
            "hiercoll: stats comm t_pairs linear cid [0-9]+ rank 0/$np: calls [1-9][0-9]* \(passed on 0\).* gather:[1-9][0-9]* gatherv:[1-9][0-9]* scatter:[1-9][0-9]* scatterv:[1-9]"
            "hiercoll: stats comm t_pairs tree cid [0-9]+ rank 0/$np: calls [1-9][0-9]* \(passed on 0\).* gatherv:[1-9][0-9]* scatterv:[1-9]")
    REJECT=("$NONE_PASSED")
    run "pairs-64k-edges-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_stats 1 "$testdir/mpi/t_pairs"
done

# allreduce and reduce forced to one algorithm (args: ALGORITHM NP...):
# t_colls checks every mode, count, root, in place, datatype and op (the
# non-commutative ones take the ordered plans); verbose 2 names the
# algorithm of each call; nothing may be passed on.
forced_reductions() {
    local alg=$1 np c
    shift
    for np in "$@"; do
        for c in allreduce reduce; do
            EXPECT=("$OK" "$ALL_RAN"
                    ": $c = $alg \(blocking" ": i$c = $alg \(nonblocking"
                    ": ${c}_init = $alg \(persistent")
            REJECT=("$NONE_PASSED")
            run "colls-$alg-$c-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
                --mca coll_hiercoll_stats 1 --mca coll_hiercoll_verbose 2 \
                $(forced binomial $alg dissemination $alg) "$colls" --only $c
        done
    done
}
forced_reductions rhrd 1 2 3 4 5 6 7 8 12
forced_reductions rabenseifner 3 6   # the classic scheme, for comparison
# ---------------------------------------------------------------------------
# Triggered offload: allreduce and reduce forced to "offload" on
# each transport.  t_colls checks every mode, count, root, in place, type
# and op (what the ALU cannot do goes to the next algorithm); t_offload
# several communicators in flight (one freed), runs of reduces at every
# root, float bits, persistent restarts.  Verbose 2 proves offload ran.
# ---------------------------------------------------------------------------
offload=$testdir/mpi/t_offload
OL_OK='t_offload: np [0-9]+: [0-9]+ checks, 0 failed'
OL=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_allreduce_algorithm offload
    --mca coll_hiercoll_reduce_algorithm offload)
OL_RAN=(": allreduce = offload \(blocking" ": iallreduce = offload \(nonblocking"
        ": allreduce_init = offload \(persistent" ": reduce = offload \(blocking"
        ": ireduce = offload \(nonblocking" ": reduce_init = offload \(persistent")
for backend in progress ucx; do
    for np in 1 2 3 4 5 6 7 8; do
        EXPECT=("$OK" "${OL_RAN[@]}")
        [ $backend = ucx ] && [ $np -gt 1 ] && EXPECT+=("MPI_COMM_WORLD: offload on the UCX agent")
        run "offload-$backend-colls-np$np" 600 "${MPI[@]}" -np $np "${OL[@]}" \
            --mca coll_hiercoll_offload_backend $backend --mca coll_hiercoll_verbose 2 \
            "$colls" --only allreduce,reduce --quick
    done
    for np in 2 5; do
        EXPECT=("$OL_OK")
        run "offload-$backend-t_offload-np$np" 600 "${MPI[@]}" -np $np "${OL[@]}" \
            --mca coll_hiercoll_offload_backend $backend "$offload"
    done
    # every tree shape and radix at a size where they all differ (the
    # transports carry the same programs: the UCX agent takes two of them)
    for tree in knomial kary; do
        for k in 2 4 8; do
            [ $backend = ucx ] && [ $tree$k != knomial4 ] && [ $tree$k != kary8 ] && continue
            EXPECT=("$OL_OK" "offload on the .*")
            run "offload-$backend-$tree$k-np7" 600 "${MPI[@]}" -np 7 "${OL[@]}" \
                --mca coll_hiercoll_offload_backend $backend --mca coll_hiercoll_verbose 1 \
                --mca coll_hiercoll_offload_tree $tree --mca coll_hiercoll_offload_radix $k \
                "$offload"
        done
    done
done
# More persistent requests alive than the offload's 64 port slots
# (t_offload's many_persistent: 70 alive after 2 freed, then 20 freed and
# re-initialized): 6 inits take the next algorithm, the 20 re-inits the
# freed slots.
EXPECT=("$OL_OK")
EXPECT_ONCE=("persistent init takes the next algorithm \(1 so far\)"
             "persistent init takes the next algorithm \(6 so far\)")
REJECT=("persistent init takes the next algorithm \(7 so far\)")
run "offload-persistent-slots-np3" 600 "${MPI[@]}" -np 3 "${OL[@]}" --mca coll_hiercoll_verbose 1 \
    --mca coll_hiercoll_offload_backend progress "$offload"
# The auto tree (the default): one level at 7 ranks; a tree given with the
# radix left to auto keeps the tree.
EXPECT=("$OL_OK" "offload trees at np 7 \(auto\): allreduce, bcast, barrier knomial K=8; reduce knomial K=8")
run "offload-progress-auto-np7" 600 "${MPI[@]}" -np 7 "${OL[@]}" --mca coll_hiercoll_verbose 1 \
    --mca coll_hiercoll_offload_backend progress "$offload"
EXPECT=("$OL_OK" "offload trees at np 7 \(auto\): allreduce, bcast, barrier kary K=8; reduce kary K=8")
run "offload-progress-kary-auto-np7" 600 "${MPI[@]}" -np 7 "${OL[@]}" --mca coll_hiercoll_verbose 1 \
    --mca coll_hiercoll_offload_backend progress --mca coll_hiercoll_offload_tree kary "$offload"
# The auto backend: ofi only where a NIC runs the triggers (never the
# sockets provider's threads), the UCX agent only where every node has a
# core to spare per agent, else the progress transport.
EXPECT=("$OL_OK")
if [ "$(nproc)" -lt 6 ]; then
    EXPECT+=("MPI_COMM_WORLD: offload backend auto: not the UCX agent \(no core to spare: $(nproc) cores for 3 processes")
    REJECT=("offload on the UCX agent")
fi
if [ -x "$testdir/ofi/t_fi_trigger" ] \
    && [ "$(fi_info -c FI_TRIGGER 2>/dev/null | grep 'provider:' | sort -u)" = "provider: sockets" ]; then
    EXPECT+=("MPI_COMM_WORLD: offload backend auto: not ofi \(the sockets provider runs triggered work in software")
    REJECT+=("offload on ofi")
fi
run "offload-auto-backend-np3" 600 "${MPI[@]}" -np 3 "${OL[@]}" --mca coll_hiercoll_verbose 1 \
    "$offload"
# Small credits: senders throttled, nothing lost; bad values: one line each.
EXPECT=("$OL_OK")
run "offload-credits2-np6" 600 "${MPI[@]}" -np 6 "${OL[@]}" --mca coll_hiercoll_offload_credits 2 \
    --mca coll_hiercoll_offload_backend progress "$offload"
EXPECT=("$OL_OK" "coll_hiercoll_offload_radix=3 is not 2, 4, 8 or 0 \(auto\); using 0"
        'coll_hiercoll_offload_tree="ring" is not knomial, kary or auto; using auto'
        'coll_hiercoll_offload_backend="ib" is not one of ofi, ucx, progress, auto; using auto')
run "offload-bad-params-np3" 300 "${MPI[@]}" -np 3 "${OL[@]}" --mca coll_hiercoll_offload_radix 3 \
    --mca coll_hiercoll_offload_tree ring --mca coll_hiercoll_offload_backend ib "$offload"


# Short-circuit reductions: t_colls' reductions through the
# shortcut algorithms (its sums, user ops and non-commutative ops run them
# plain), then t_shortcut: every (op, datatype) with an absorbing value
# against Open MPI's op functions, forced and under auto, ranks differing
# in engagement, and 110,000 early-exiting calls with the communicator
# freed at once.
forced_reductions shortcut 2 3 5 8
sc=$testdir/mpi/t_shortcut
SC_OK='t_shortcut: np [0-9]+: [0-9]+ checks, 0 failed'
SC_RAN='hiercoll: shortcut comm MPI_COMM_WORLD rank [0-9]+/[0-9]+: engaged [1-9][0-9]*, decided [1-9]'
for np in 1 2 3 4 5 7 8; do
    EXPECT=("$SC_OK")
    [ $np -gt 1 ] && EXPECT+=("$SC_RAN")
    REJECT=("in flight at finalize")
    run "shortcut-forced-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic \
        --mca coll_hiercoll_stats 1 --mca coll_hiercoll_allreduce_algorithm shortcut \
        --mca coll_hiercoll_reduce_algorithm shortcut "$sc"
done
EXPECT=("$SC_OK" "$SC_RAN" "allreduce(\(rules:[^)]*\))?=shortcut\(absorbing")
run "shortcut-auto-np6" 600 "${MPI[@]}" -np 6 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_stats 1 --mca coll_hiercoll_verbose 1 "$sc" --quick
# Engagement is per rank: ranks 0-2 always look, ranks 3-5 never; every
# rank still sends the same messages, so the results stay exact.
EXPECT=("$SC_OK" "shortcut comm MPI_COMM_WORLD rank [0-2]/6: engaged [1-9]")
REJECT=("shortcut comm MPI_COMM_WORLD rank [3-5]/6: engaged")
# (the threshold per rank from the rank's environment: 5.0's prterun
# crashes on the MPMD form "-np 3 env ... : -np 3 env ...")
run "shortcut-mixed-engagement-np6" 600 "${MPI[@]}" -np 6 --mca coll hiercoll,basic \
    --mca coll_hiercoll_stats 1 sh -c 'r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}
        if [ "$r" -lt 3 ]; then t=0; else t=101; fi
        OMPI_MCA_coll_hiercoll_shortcut_threshold=$t exec "$0" --quick' "$sc"
# a bad threshold: one line, the default kept, nothing lost
EXPECT=("$SC_OK" "$SC_RAN")
EXPECT_ONCE=('hiercoll: ERROR: coll_hiercoll_shortcut_threshold="500" is not an integer in \[0, 101\]; using 10')
run "shortcut-bad-threshold-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic \
    --mca coll_hiercoll_stats 1 --mca coll_hiercoll_shortcut_threshold 500 "$sc" --quick
EXPECT=("$SC_OK" "clean: 110000 calls.* 0 posted, 0 unexpected")
REJECT=("in flight at finalize")
run "shortcut-clean-np4" 120 "${MPI[@]}" -np 4 --mca coll hiercoll,basic \
    --mca coll_hiercoll_stats 1 "$sc" --clean 100000
# Everything forced to the fallback: hiercoll only passes calls on.
fb=()
for c in $ALL_COLLS; do fb+=(--mca "coll_hiercoll_${c}_algorithm" fallback); done
EXPECT=("$OK" "hiercoll: stats comm MPI_COMM_WORLD .*calls 0 \(passed on [1-9]")
REJECT=("calls [1-9][0-9]* \(passed")
run "colls-fallback-tuned-np4" 600 "${MPI[@]}" -np 4 --mca coll hiercoll,tuned,basic,libnbc,self \
    --mca coll_hiercoll_stats 1 "${fb[@]}" "$colls" --quick

# Persistent collectives match in initialization order: ranks start them
# in different orders and restart them (t_persist); on top of the full
# stack hiercoll's algorithms are forced (the tree gatherv staged, at the
# conservative level) and must run everything.
persist=$testdir/mpi/t_persist
POK='t_persist: np [0-9]+: [0-9]+ checks, 0 failed'
for np in 2 3 5 8; do
    EXPECT=("$POK")
    run "persist-order-basic-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic "$persist"
done
for np in 3 4; do
    EXPECT=("$POK" "$ALL_RAN" ": gatherv_init = tree \\(persistent")
    REJECT=("$NONE_PASSED")
    run "persist-order-forced-np$np" 300 "${MPI[@]}" -np $np \
        --mca coll hiercoll,tuned,basic,libnbc,inter --mca coll_hiercoll_stats 1 \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_gatherv_level conservative \
        $(forced binomial binomial dissemination recursive_doubling tree) "$persist"
done

# Intercommunicators (t_inter): every collective in every mode between
# groups of different sizes and between one process and the rest, every
# kind of root.  Under hiercoll,basic hiercoll serves the nonblocking and
# persistent slots and basic's broken blocking ones (scatter crashes, the
# reductions are out of order); on the full stack the layer below runs
# what it has, and with coll_hiercoll_inter_own hiercoll runs everything.
inter=$testdir/mpi/t_inter
IOK='t_inter: np [0-9]+: [0-9]+ checks, 0 failed'
INTER_RAN='hiercoll: stats comm inter (third|one) .*calls [1-9][0-9]* \(passed on 0\)'
INTER_PASSED='hiercoll: stats comm inter (third|one) .*passed on [1-9]'
for np in 2 3 5 8; do
    EXPECT=("$IOK")
    [ $np = 5 ] && EXPECT+=(": ibcast = inter:leaders \\(intercommunicator, np [0-9]\\+[0-9]\\)"
                            ": bcast -> basic" ": scatter = inter:direct" ": reduce = inter:leaders"
                            ": alltoallw_init = inter:direct")
    run "inter-basic-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic \
        $([ $np = 5 ] && echo --mca coll_hiercoll_verbose 2) "$inter"
done
for np in 3 5; do
    EXPECT=("$IOK")
    [ $np = 5 ] && EXPECT+=(": ibcast -> libnbc" ": bcast -> inter" ": allgather_init -> libnbc")
    run "inter-stack-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,tuned,basic,libnbc,inter \
        $([ $np = 5 ] && echo --mca coll_hiercoll_verbose 2) "$inter"
done
for np in 2 3 5 8; do
    EXPECT=("$IOK" "${INTER_RAN/(third|one)/third}" "${INTER_RAN/(third|one)/one}")
    REJECT=("$INTER_PASSED")
    run "inter-own-stack-np$np" 300 "${MPI[@]}" -np $np \
        --mca coll hiercoll,tuned,basic,libnbc,inter --mca coll_hiercoll_inter_own 1 \
        --mca coll_hiercoll_stats 1 "$inter"
done

# ---------------------------------------------------------------------------
# Decomposition: parts and a leaders' bridge
# ---------------------------------------------------------------------------
decomp=()
for c in $ALL_COLLS; do decomp+=(--mca "coll_hiercoll_${c}_algorithm" decomp); done
# The statistics of MPI_COMM_WORLD's rank 0 list every collective as
# decomposed (args: np, collectives; nonblocking and persistent calls keep
# their algorithms).
expect_decomposed() {
    local np=$1 c
    shift
    for c in "$@"; do
        EXPECT+=("hiercoll: decomp comm MPI_COMM_WORLD rank 0/$np: .*decomposed:.* $c:[1-9]")
    done
}
DSTATS=(--mca coll_hiercoll_stats 1 --mca coll_hiercoll_verbose 1)

# Explicit parts on this node: contiguous blocks (a part of one process),
# and interleaved lists (non-commutative reductions then fall back).
EXPECT=("$OK" "MPI_COMM_WORLD: decomposition by block:4: 2 parts \(sizes 4,3; leaders 0,4\), contiguous")
expect_decomposed 7 $ALL_COLLS
run "decomp-block4-np7" 600 "${MPI[@]}" -np 7 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_decomp_criterion block:4 "${decomp[@]}" "${DSTATS[@]}" "$colls"
EXPECT=("$OK" "decomposition by block:2: 3 parts \(sizes 2,2,1; leaders 0,2,4\)")
expect_decomposed 5 $ALL_COLLS
run "decomp-block2-tuned-np5" 600 "${MPI[@]}" -np 5 --mca coll hiercoll,tuned,basic,libnbc \
    --mca coll_hiercoll_decomp_criterion block:2 "${decomp[@]}" "${DSTATS[@]}" "$colls" --quick
EXPECT=("$OK" "decomposition by list: 3 parts \(sizes 2,3,1; leaders 0,1,2\), interleaved")
expect_decomposed 6 $ALL_COLLS
run "decomp-list-np6" 600 "${MPI[@]}" -np 6 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_decomp_criterion list:0+3,1+4+5,2 "${decomp[@]}" "${DSTATS[@]}" "$colls"
# A communicator's info key chooses its own criterion (a bad one is
# reported and ignored); the parent's default leaves it whole.  (t_comms
# sets a bad bcast algorithm on another communicator first: the same
# help topic.)
EXPECT=("t_comms: np 3: [0-9]+ checks, 0 failed"
        "hiercoll: decomp comm .*DUP FROM 0 rank 0/3: part 0 of 2 .*decomposed: allreduce:1"
        'info key hiercoll_decomp_criterion="block:0" on .*: block:K wants')
REJECT=("decomp comm MPI_COMM_WORLD")
run "decomp-info-key-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,tuned,basic,libnbc \
    --mca coll_hiercoll_stats 1 "${HELP_EVERY[@]}" "$comms" 3

# Under "hiercoll,basic" the layer below leaves the nonblocking slots to
# hiercoll, and Open MPI makes no sub-communicator without it: one line,
# no decomposition (no Open MPI error for every communicator), results exact.
EXPECT=("t_comms: np 4: [0-9]+ checks, 0 failed"
        "MPI_COMM_WORLD: decomposition by block:3: not decomposed: the layer below leaves collective slots empty")
REJECT=("none of them said" "decomp comm MPI_COMM_WORLD")
run "decomp-basic-declines-np4" 120 "${MPI[@]}" -np 4 --mca coll hiercoll,basic \
    --mca coll_hiercoll_decomp_criterion block:3 --mca coll_hiercoll_allreduce_algorithm decomp \
    "${DSTATS[@]}" "$comms" 3

# Open MPI's default stack (no --mca coll: self, sm, tuned, libnbc, han
# present) with every collective decomposed, parts of 3,3,3,1 processes:
# the one-process part's sub-communicator is coll/self's, whose alltoallw
# took alltoallw's byte displacements for elements (the own block was lost
# and buffers overrun before decomposition copied that block itself).
EXPECT=("$OK" "MPI_COMM_WORLD: decomposition by block:3: 4 parts \(sizes 3,3,3,1; leaders 0,3,6,9\)")
expect_decomposed 10 $ALL_COLLS
run "decomp-block3-default-np10" 600 "${MPI[@]}" -np 10 \
    --mca coll_hiercoll_decomp_criterion block:3 "${decomp[@]}" "${DSTATS[@]}" "$colls" --quick

# Multi-leader decomposition: every process of a part carries a share of
# allreduce, reduce, bcast, allgather(v) and reduce_scatter(_block)
# (coll_hiercoll_decomp_leaders all; t_colls: every mode, datatype, root,
# in place, commutative, non-commutative and user ops): parts of 4,4 (a
# lane per local rank), 3,3,2 (four lanes: cuts 1/3, 1/2, 2/3), 2,2,1 with
# at most 2 carriers, and interleaved 2,3,1 (non-commutative reductions and
# reduce_scatter keep one leader there); the statistics show they ran.
ML_COLLS="allreduce reduce bcast allgather allgatherv reduce_scatter reduce_scatter_block"
ml_decomp=()
for c in $ML_COLLS; do ml_decomp+=(--mca "coll_hiercoll_${c}_algorithm" decomp); done
expect_ml() { # np collectives...
    local np=$1 c
    shift
    for c in "$@"; do
        EXPECT+=("hiercoll: decomp comm MPI_COMM_WORLD rank 0/$np: .*multi-leader:.* $c:[1-9]")
    done
}
ml_run() { # name np criterion leaders lanes-line collectives-with-ml [launcher...]
    local name=$1 np=$2 crit=$3 lead=$4 lanes=$5 mlc=$6
    shift 6
    EXPECT=("$OK" "MPI_COMM_WORLD: multi-leader: $lanes")
    expect_ml "$np" $mlc
    run "$name" 600 "$@" -np "$np" --mca coll_hiercoll_decomp_criterion "$crit" \
        --mca coll_hiercoll_decomp_leaders "$lead" "${ml_decomp[@]}" "${DSTATS[@]}" "$colls" --quick \
        --only "$(echo $ML_COLLS | tr ' ' ,)"
}
ml_run decomp-ml-block4-np8 8 block:4 all "4 lanes, carriers a part 4,4 " "$ML_COLLS" "${MPI[@]}"
ml_run decomp-ml-block3-np8 8 block:3 all "4 lanes, carriers a part 3,3,2 " "$ML_COLLS" "${MPI[@]}"
ml_run decomp-ml-block2-leaders2-np5 5 block:2 2 "2 lanes, carriers a part 2,2,1 " "$ML_COLLS" \
    "${MPI[@]}"
ml_run decomp-ml-list-np6 6 list:0+3,1+4+5,2 all "4 lanes, carriers a part 2,3,1 " \
    "allreduce reduce bcast allgather allgatherv" "${MPI[@]}"
# auto: one leader for short vectors, several carriers past the model's
# crossover (a 1 MiB allreduce on 4,4: t_colls' large counts), the choice
# said at verbose 2
EXPECT=("$OK" "decomposed allreduce of [0-9]+: multi-leader" "decomposed allreduce of [0-9]+: one leader a part \(below the model's crossover\)")
run "decomp-ml-auto-np8" 600 "${MPI[@]}" -np 8 --mca coll_hiercoll_decomp_criterion block:4 \
    --mca coll_hiercoll_allreduce_algorithm decomp --mca coll_hiercoll_verbose 2 "$colls" \
    --only allreduce
# a bad value: one line, auto kept
EXPECT=("t_comms: np 4: [0-9]+ checks, 0 failed")
EXPECT_ONCE=("hiercoll: ERROR: coll_hiercoll_decomp_leaders=\"banana\": want auto, all or a number >= 1; using auto")
run "params-decomp-leaders-banana" 120 "${MPI[@]}" -np 4 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_decomp_criterion block:2 --mca coll_hiercoll_decomp_leaders banana \
    --mca coll_hiercoll_allreduce_algorithm decomp "$comms" 20

# Every collective under every algorithm it can be forced to, in every
# mode: t_colls --every-algorithm runs, after MPI_COMM_WORLD under auto,
# one round per algorithm name (read from hiercoll's parameters, fallback
# first): communicators whose info keys force it on every collective that
# has it (a dup decomposing by --decomp, the reversed split by block:2, a
# dup of MPI_COMM_SELF).  On the default stack and the short ones, with
# uneven parts and a part of one process that is not rank 0; the
# statistics show the forced algorithms ran (stats turn the fast path off,
# so two runs have them and the others not).
# (args: name np stack|- criterion stats|- [t_colls args])
every_algorithm() {
    local name=$1 np=$2 stack=$3 crit=$4 stats=$5 c
    shift 5
    local args=()
    [ "$stack" != - ] && args=(--mca coll "$stack")
    EXPECT=("$OK" "t_colls: round decomp: .*alltoallw=decomp" "t_colls: round fallback: "
            "t_colls: round offload: ")
    REJECT=("names no algorithm" "ERROR")
    if [ "$stats" = stats ]; then
        args+=(--mca coll_hiercoll_stats 1)
        for c in $ALL_COLLS; do
            EXPECT+=("hiercoll: decomp comm every-algorithm decomp dup rank 0/$np: .*decomposed:.* $c:[1-9]")
        done
        EXPECT+=("hiercoll: stats comm every-algorithm fallback dup cid [0-9]+ rank 0/$np: calls 0 \(passed on [1-9]"
                 "hiercoll: stats comm every-algorithm linear dup cid [0-9]+ rank 0/$np: calls [1-9][0-9]* \(passed on 0\)"
                 "hiercoll: stats comm every-algorithm tree dup cid [0-9]+ rank 0/$np: calls [1-9][0-9]* \(passed on 0\).* gatherv:[1-9][0-9]* scatterv:[1-9]")
    fi
    run "$name" 600 "${MPI[@]}" -np "$np" "${args[@]}" --mca coll_hiercoll_decomp_criterion "$crit" \
        "$colls" --quick --every-algorithm --decomp "$crit" "$@"
}
every_algorithm every-algorithm-default-block3-np4 4 - block:3 stats
every_algorithm every-algorithm-default-block3-np7 7 - block:3 stats
every_algorithm every-algorithm-default-list-np5 5 - list:0+1,2,3+4 -
every_algorithm every-algorithm-default-block1-np3 3 - block:1 - # (every part one process)
every_algorithm every-algorithm-libnbc-block3-np7 7 hiercoll,basic,libnbc block:3 -
every_algorithm every-algorithm-tuned-list-np5 5 hiercoll,tuned,basic,libnbc list:0+1,2,3+4 -
every_algorithm every-algorithm-tuned-block3-np4 4 hiercoll,tuned,basic,libnbc block:3 -

# The nonblocking and persistent forms decomposed: t_dnb, every
# collective forced to decomp, 50 calls in flight completed in reverse, on
# two communicators, persistent requests started in different orders and
# restarted, against serial references, on the default stack and the short
# one.  With --expect-decomp (hiercoll decomposes these forms) the
# freed-in-flight cases run too, and verbose 2 must show every
# nonblocking form, and every persistent one but the four whose layout
# needs counts an init cannot learn, decomposed, over parts of these sizes.
# (args: name np stack|- criterion|node sizes -|--expect-decomp launcher...)
dnb=$testdir/mpi/t_dnb
DNB_OK='t_dnb: np [0-9]+: [0-9]+ checks, 0 failed'
DNB_PERSISTENT_FLAT="gatherv|scatterv|alltoallv|alltoallw"
dnb_decomp() {
    local name=$1 np=$2 stack=$3 crit=$4 sizes=$5 expect=$6 args=() more=() c
    shift 6
    [ "$stack" != - ] && args+=(--mca coll "$stack")
    [ "$crit" != node ] && args+=(--mca coll_hiercoll_decomp_criterion "$crit")
    EXPECT=("$DNB_OK")
    if [ "$expect" = --expect-decomp ]; then
        more=(--expect-decomp)
        EXPECT+=("MPI_COMM_WORLD: decomposition by ${crit%%:*}[^ ]*: [0-9]+ parts \(sizes $sizes;")
        for c in $ALL_COLLS; do
            EXPECT+=(": i$c = decomp \(nonblocking")
            [[ $c =~ ^($DNB_PERSISTENT_FLAT)$ ]] || EXPECT+=(": ${c}_init = decomp \(persistent")
        done
    fi
    run "$name" 300 "$@" -np "$np" "${args[@]}" "${decomp[@]}" --mca coll_hiercoll_verbose 2 \
        "$dnb" "${more[@]}"
}
for st in - hiercoll,tuned,libnbc,basic; do
    sn=default
    [ "$st" != - ] && sn=tuned
    dnb_decomp "dnb-$sn-block3-np6" 6 "$st" block:3 3,3 --expect-decomp "${MPI[@]}"
    dnb_decomp "dnb-$sn-block3-np7" 7 "$st" block:3 3,3,1 --expect-decomp "${MPI[@]}"
    dnb_decomp "dnb-$sn-list-np5" 5 "$st" list:0+2,1+3+4 2,3 --expect-decomp "${MPI[@]}" # interleaved
done
# multi-leader: many calls in flight, persistent ones started in other orders (t_dnb),
# multi-leader forced on 3,3,1
EXPECT=("$DNB_OK" "MPI_COMM_WORLD: multi-leader: 3 lanes, carriers a part 3,3,1 ")
expect_ml 7 $ML_COLLS
run "dnb-ml-block3-np7" 300 "${MPI[@]}" -np 7 --mca coll_hiercoll_decomp_criterion block:3 \
    --mca coll_hiercoll_decomp_leaders all "${decomp[@]}" "${DSTATS[@]}" "$testdir/mpi/t_dnb" \
    --expect-decomp
# Messages between the parts per call, blocking and nonblocking side by
# side (contrib/hc_traffic.sh -F, pml monitoring, every collective forced
# to decomp, 8 bytes, parts 3,3); with -e a nonblocking call that
# crosses more often than its blocking form fails.
traffic=$(dirname "$(readlink -f "$0")")/../contrib/hc_traffic.sh
if [ -x "$top_builddir/contrib/hc_bench" ] || [ "$list" = yes ]; then
    EXPECT=()
    for c in $ALL_COLLS; do
        EXPECT+=("^$c +hiercoll +[0-9.]+ +[0-9.]+ ")
    done
    run "traffic-dnb-block3-np6" 600 "$traffic" -n 6 -l "$mpirun" -b "$top_builddir/contrib/hc_bench" \
        -F -e -P block:3 -C "$(echo $ALL_COLLS | tr ' ' ,)" \
        -m "--mca btl self,$SM_BTL --mca mpi_yield_when_idle 1 ${decomp[*]} --mca coll_hiercoll_decomp_criterion block:3" \
        -- --min 8
fi
# hiercoll's own plans (coll/basic below: nothing to decompose) keep a
# freed communicator alive for their requests
EXPECT=("$DNB_OK")
run "dnb-basic-free-in-flight-np5" 300 "${MPI[@]}" -np 5 --mca coll hiercoll,basic "$dnb" \
    --free-in-flight
# Separate nodes: Open MPI daemons under fake host names (fake-nodes.sh),
# TCP between them, shared memory inside; by slot and round-robin.
fake=("$(dirname "$(readlink -f "$0")")/fake-nodes.sh" --mpirun "$mpirun")
if [ "$list" = no ] && ! why=$("${fake[@]}" --probe 2>&1); then
    echo "SKIP: decomp-fakenodes-*: $why (the block: and list: runs above cover the algorithms)"
else
    FAKE=("${BY_SLOT[@]}" --mca mpi_yield_when_idle 1)
    FAKE_BY_NODE=("${BY_NODE[@]}" --mca mpi_yield_when_idle 1)
    EXPECT=("$OK" "decomposition by node: 3 parts \(sizes 3,1,2; leaders 0,3,4\), contiguous")
    expect_decomposed 6 $ALL_COLLS
    run "decomp-fakenodes-byslot-np6" 600 "${fake[@]}" --slots 3,1,2 -np 6 "${FAKE[@]}" \
        --mca coll hiercoll,basic,libnbc "${decomp[@]}" "${DSTATS[@]}" "$colls"
    # (round-robin over uneven nodes that never fill early: Open MPI 5.0's
    # PRRTE maps round-robin past a full node's slots, 4.1's ORTE skips it)
    EXPECT=("$OK" "decomposition by node: 3 parts \(sizes 3,3,2; leaders 0,1,2\), interleaved")
    expect_decomposed 8 $ALL_COLLS
    run "decomp-fakenodes-roundrobin-np8" 600 "${fake[@]}" --slots 3,3,2 -np 8 \
        "${FAKE_BY_NODE[@]}" --mca coll hiercoll,tuned,basic,libnbc "${decomp[@]}" "${DSTATS[@]}" \
        "$colls" --quick
    EXPECT=("$OK" "decomposition by node: 3 parts \(sizes 1,1,1; leaders 0,1,2\)")
    expect_decomposed 3 $ALL_COLLS
    run "decomp-fakenodes-onepernode-np3" 600 "${fake[@]}" --slots 1,1,1 -np 3 "${FAKE[@]}" \
        --mca coll hiercoll,tuned,basic,libnbc "${decomp[@]}" "${DSTATS[@]}" "$colls" --quick
    # one process per node under auto: nothing to decompose, so the fast
    # path and the hand-back apply as on one node (5.0: han below)
    EXPECT=("t_fast: np 3: [0-9]+ checks, 0 failed"
            "hiercoll: .*: (bcast|reduce|allreduce|barrier) goes back to [a-z]+ after 2 blocking calls")
    run "handback-fakenodes-onepernode-np3" 600 "${fake[@]}" --slots 1,1,1 -np 3 "${FAKE[@]}" \
        --mca coll hiercoll,tuned,basic,libnbc --mca coll_hiercoll_verbose 1 \
        --mca coll_hiercoll_hand_back_after 2 "$testdir/mpi/t_fast" 100
    # communicators come and go (their parts and bridges with them), one is
    # left to MPI_Finalize; the world's own parts are built inside the
    # first MPI_Comm_split's allgather
    EXPECT=("t_comms: np 6: [0-9]+ checks, 0 failed"
            "hiercoll: decomp comm .*DUP FROM 0 rank 0/6: part 0 of 2 .*decomposed: allreduce:1"
            "hiercoll: decomp comm .*SPLIT FROM 0 rank 0/3: part 0 of 2 .*decomposed: allreduce:1"
            "hiercoll: decomp comm MPI_COMM_WORLD rank 0/6: part 0 of 2 .*decomposed: allgather:")
    run "decomp-fakenodes-comms-np6" 600 "${fake[@]}" --slots 3,3 -np 6 "${FAKE[@]}" --mca coll hiercoll,tuned,basic,libnbc --mca coll_hiercoll_stats 1 \
        "$comms" 300
    # auto decomposes where it pays
    EXPECT=("$OK" "decomposition by node: 2 parts \(sizes 4,4; leaders 0,1\), interleaved")
    expect_decomposed 8 $DECOMP_AUTO
    REJECT=("decomp comm MPI_COMM_WORLD .*decomposed:.* ($DECOMP_NEVER):")
    run "decomp-fakenodes-auto-np8" 600 "${fake[@]}" --slots 4,4 -np 8 \
        "${FAKE_BY_NODE[@]}" --mca coll hiercoll,tuned,basic,libnbc "${DSTATS[@]}" "$colls" --quick
    # Open MPI's default stack (no --mca coll list) under hiercoll, on
    # several nodes, where Open MPI 5.0 puts han below it: the calls auto
    # leaves alone go to that layer ($DEFAULT_BELOW), whose modules hiercoll
    # keeps; a communicator with ompi_comm_coll_preference=^hiercoll (t_colls
    # --info) runs without it.
    EXPECT=("$OK" "hiercoll: MPI_COMM_WORLD \(cid 0, np 6\).* bcast=[^ ]*->$DEFAULT_BELOW"
            "hiercoll: stats comm MPI_COMM_WORLD .*passed on [1-9]")
    REJECT=("hiercoll: (stats comm )?$COMM_NAME [0-9]+ DUP FROM 0 ")
    run "default-stack-fakenodes-np6" 600 "${fake[@]}" --slots 3,3 -np 6 "${FAKE[@]}" \
        --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_stats 1 "$colls" --quick \
        --info ompi_comm_coll_preference=^hiercoll \
        --only "$(echo $ALL_COLLS | tr ' ' '\n' | grep -vxE "$DEFAULT_STACK_BROKEN" | paste -sd,)"
    # t_dnb (above) on three nodes of 3, 3, 2 processes, the node criterion
    dnb_decomp dnb-default-fakenodes-np8 8 - node 3,3,2 --expect-decomp "${fake[@]}" --slots 3,3,2 "${FAKE[@]}"
    dnb_decomp dnb-tuned-fakenodes-np8 8 hiercoll,tuned,libnbc,basic node 3,3,2 --expect-decomp \
        "${fake[@]}" --slots 3,3,2 "${FAKE[@]}"
    # multi-leader between fake nodes of 3, 3 and 2 processes (the node
    # criterion), every mode; then its bytes (pml monitoring, 64 KiB,
    # allreduce and bcast): crossing the nodes at most 1.15 x the bound in
    # all, no rank more than 1.15 x its share (contrib/hc_ml_counts.sh -e;
    # one leader per node beside it, over its share by the node's size)
    ml_run decomp-ml-fakenodes-np8 8 node all "4 lanes, carriers a part 3,3,2 " "$ML_COLLS" \
        "${fake[@]}" --slots 3,3,2 "${FAKE[@]}"
    EXPECT=("^3,3,2 +allreduce +64K +hiercoll-ml .* ok\$" "^3,3,2 +bcast +64K +hiercoll-ml .* ok\$"
            "^3,3,2 +allreduce +64K +hiercoll-1 .* over\$")
    run "traffic-ml-fakenodes-332" 600 "$(dirname "$traffic")/hc_ml_counts.sh" -e -a "" \
        -b "$top_builddir/contrib/hc_bench" -s 3,3,2 -z 64K -c "allreduce bcast" -k 1 \
        -m "${BY_SLOT[*]}"
    # two nodes of two (a core each: the parts run on shared memory): pml
    # monitoring sees only the leaders' messages between the nodes in an
    # 8-byte allreduce, reduce and bcast (every message crosses nodes), with
    # coll/monitoring in the stack too (above hiercoll in the slots)
    leaders_only() {
        for c in allreduce reduce bcast; do
            "$traffic" -n 4 -k 8 -w 1 -b "$top_builddir/contrib/hc_bench" \
                -l "${fake[*]} --slots 2,2" \
                -m "$FAKE_MAP --mca coll hiercoll,tuned,libnbc,basic,monitoring --mca mpi_yield_when_idle 0" \
                -- --coll $c --min 8 |
                awk -v c=$c '{ print } $1 == "hiercoll" && $2 > 0 && $2 == $8 { print "leaders only: " c }'
        done
    }
    export -f leaders_only
    export traffic top_builddir
    export FAKE_LAUNCHER="${fake[*]}" FAKE_MAP="${BY_SLOT[*]}"
    # (the mapping by slot: with hc_traffic.sh's --oversubscribe alone,
    # Open MPI 5.0's launcher put all four ranks on the first fake node)
    EXPECT=("leaders only: allreduce" "leaders only: reduce" "leaders only: bcast")
    run "traffic-fakenodes-leaders-only-np4" 600 bash -c 'fake=($FAKE_LAUNCHER); leaders_only'
    # hc_bench --against han: han's own sub-communicators (its levels) run
    # without hiercoll (hc_bench sets hiercoll's priority to 0 for the job;
    # at 40 hiercoll sat on top of them and its calls were timed as han's:
    # per-call lines of "... SPLIT FROM N"); hiercoll's communicator still
    # has it on top
    EXPECT=("han/hc" "^ +65536 +[0-9.]+ +[0-9.]+ +[0-9.]+"
            "hiercoll: $COMM_NAME [0-9]+ DUP FROM 0: bcast .*\(blocking, np 4\)")
    REJECT=("SPLIT FROM [0-9]+: [a-z_]+ .*\((blocking|nonblocking|persistent), np")
    run "bench-against-han-fakenodes-np4" 600 "${fake[@]}" --slots 2,2 -np 4 "${FAKE[@]}" \
        --mca coll_hiercoll_verbose 2 "$top_builddir/contrib/hc_bench" --coll bcast \
        --against han --sizes 8,64K --trials 1 --iters 3
fi

# ---------------------------------------------------------------------------
# Communicators
# ---------------------------------------------------------------------------
for np in 1 4 7; do
    EXPECT=("t_comms: np $np: [0-9]+ checks, 0 failed")
    run "comms-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic "$comms" 1000
done
EXPECT=("t_comms: np 3: [0-9]+ checks, 0 failed")
run "comms-libnbc-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc "$comms" 1000

# ---------------------------------------------------------------------------
# Neighborhood collectives (t_neighbor: every one in every mode on rings,
# lines, grids with dimensions of size 1 and 2, a graph and a distributed
# graph, against serial references)
# ---------------------------------------------------------------------------
neighbor=$testdir/mpi/t_neighbor
NOK='t_neighbor: np [0-9]+: [0-9]+ checks, 0 failed'
NEIGHBOR_COLLS="neighbor_allgather neighbor_allgatherv neighbor_alltoall neighbor_alltoallv
                neighbor_alltoallw"
NEIGHBOR_RAN="hiercoll: stats comm .*neighbor_allgather:[1-9][0-9]* neighbor_allgatherv:[1-9][0-9]* neighbor_alltoall:[1-9][0-9]* neighbor_alltoallv:[1-9][0-9]* neighbor_alltoallw:[1-9]"
# hiercoll with coll/basic only: basic's blocking forms, hiercoll's plans
# for the nonblocking and persistent ones (basic has none)
for np in 1 2 3 4 5 6 7 8; do
    EXPECT=("$NOK" "$NEIGHBOR_RAN")
    run "neighbor-basic-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic \
        --mca coll_hiercoll_stats 1 "$neighbor"
done
# The whole stack: libnbc fills the nonblocking and persistent slots below
# hiercoll; auto passes calls on except where libnbc misplaces blocks
# (periodic dimensions of size 1 or 2), and forced plans run every call
EXPECT=("$NOK")
run "neighbor-auto-libnbc-np4" 300 "${MPI[@]}" -np 4 --mca coll hiercoll,tuned,basic,libnbc,inter \
    "$neighbor"
nforced=()
for c in $NEIGHBOR_COLLS; do nforced+=(--mca "coll_hiercoll_${c}_algorithm" linear); done
for np in 2 5 8; do
    EXPECT=("$NOK" "$NEIGHBOR_RAN")
    REJECT=("$NONE_PASSED")
    run "neighbor-forced-libnbc-np$np" 300 "${MPI[@]}" -np $np \
        --mca coll hiercoll,tuned,basic,libnbc,inter --mca coll_hiercoll_stats 1 "${nforced[@]}" \
        "$neighbor"
done
# ... or chosen per communicator by info keys (hiercoll_<coll>: the longer
# hiercoll_<coll>_algorithm exceeds MPI_MAX_INFO_KEY)
ninfo=()
for c in $NEIGHBOR_COLLS; do ninfo+=(--info "hiercoll_$c=linear"); done
EXPECT=("$NOK" "$NEIGHBOR_RAN")
REJECT=("$NONE_PASSED")
run "neighbor-info-keys-libnbc-np4" 300 "${MPI[@]}" -np 4 \
    --mca coll hiercoll,tuned,basic,libnbc,inter --mca coll_hiercoll_stats 1 "$neighbor" \
    "${ninfo[@]}"
# ... and on Open MPI's default stack, forced and under auto (forcing
# "fallback" would hand periodic dimensions of size 1 or 2 to libnbc's
# misplacing nonblocking forms: see the auto rule)
EXPECT=("$NOK" "$NEIGHBOR_RAN")
REJECT=("$NONE_PASSED")
run "neighbor-info-keys-default-np5" 300 "${MPI[@]}" -np 5 --mca coll_hiercoll_stats 1 "$neighbor" \
    "${ninfo[@]}"
EXPECT=("$NOK")
run "neighbor-auto-default-np4" 300 "${MPI[@]}" -np 4 "$neighbor"

# ---------------------------------------------------------------------------
# The slot walker: every function pointer of a communicator's collective
# table, on MPI_COMM_WORLD, a dup, MPI_COMM_SELF, a Cartesian communicator
# and (--inter) an intercommunicator; none may be empty
# ---------------------------------------------------------------------------
slots=$testdir/mpi/t_slots
SOK="t_slots: np 3: [0-9]+ communicators, $COLL_SLOTS slots each, 0 failures"
EXPECT=("$SOK" "\| ineighbor_alltoallw \| hiercoll \| hiercoll \| hiercoll \| hiercoll \|"
        "\| neighbor_alltoallw \| hiercoll>basic \|" "\| iallreduce \| hiercoll \|")
run "slots-basic-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic "$slots"
EXPECT=("$SOK" "\| ineighbor_allgather \| hiercoll>libnbc( \| hiercoll>libnbc)* \|")
run "slots-libnbc-inter-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,tuned,basic,libnbc,inter \
    "$slots" --inter
# The intercommunicator under hiercoll,basic: hiercoll's
# intercommunicator plans fill what basic leaves empty
EXPECT=("$SOK" "\| iallreduce \| hiercoll \| hiercoll \| hiercoll \| hiercoll \| hiercoll \|"
        "\| bcast_init \| hiercoll \| hiercoll \| hiercoll \| hiercoll \| hiercoll \|")
run "slots-basic-inter-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic "$slots" --inter

# ---------------------------------------------------------------------------
# Parameters: bad values get one clear line and the default, nothing lost
# ---------------------------------------------------------------------------
EXPECT_ONCE=('hiercoll: ERROR: coll_hiercoll_bcast_algorithm="bogus" is not an algorithm of bcast'
             'hiercoll: ERROR: coll_hiercoll_verbose="7" is not an integer in \[0, 2\]; using 0'
             'hiercoll: ERROR: coll_hiercoll_priority="300" is not an integer in \[-1, 100\]; using 40'
             'hiercoll: ERROR: coll_hiercoll_gatherv_level="silly"'
             'hiercoll: ERROR: coll_hiercoll_gatherv_tree_min="0" is not an integer in \[1, '
             'hiercoll: ERROR: info key hiercoll_bcast_algorithm="no_such_algorithm"'
             'hiercoll cannot use the values above')
EXPECT=("t_comms: np 3: [0-9]+ checks, 0 failed" "A communicator's info key has a value hiercoll cannot use")
run "params-bad-values" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_bcast_algorithm bogus --mca coll_hiercoll_verbose 7 \
    --mca coll_hiercoll_priority 300 --mca coll_hiercoll_gatherv_level silly \
    --mca coll_hiercoll_gatherv_tree_min 0 "$comms" 20

# The messages read the same where Open MPI's show_help cannot find this
# build's help-coll-hiercoll.txt: the component alone in a directory (no
# file beside it), or beside another version of the file (an older
# hiercoll installed there): the copy built into the component, never
# show_help's "Sorry!" (run() rejects that in every test)
if [ "$list" = no ]; then
    rm -rf "$testdir/help-alone" "$testdir/help-other"
    mkdir -p "$testdir/help-alone" "$testdir/help-other"
    cp "$stage/mca_coll_hiercoll.so" "$testdir/help-alone/"
    cp "$stage/mca_coll_hiercoll.so" "$testdir/help-other/"
    sed 's/hiercoll cannot use the values above/(another version)/' \
        "$stage/help-coll-hiercoll.txt" >"$testdir/help-other/help-coll-hiercoll.txt"
fi
for where in alone other; do
    EXPECT_ONCE=('hiercoll: ERROR: coll_hiercoll_verbose="7" is not an integer in \[0, 2\]; using 0'
                 'hiercoll cannot use the values above')
    EXPECT=("t_colls: np 2: [0-9]+ checks, 0 failed")
    run "help-messages-$where" 120 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
        --mca mca_base_component_path "$testdir/help-$where:$syscomp" \
        --mca coll_hiercoll_verbose 7 "$colls" --quick --only bcast
done

# Every numeric parameter with a negative, a garbage and an out-of-range
# value (three runs): one error line each, the default kept (registered
# through reg_number(); a new numeric parameter belongs in this list)
# ---------------------------------------------------------------------------
# Shared-memory node level: the collectives of SHM_COLLS
# forced to "shm"; t_colls checks every mode, count, root, in place,
# datatype and op against serial references (what shm declines, e.g. a
# reduction on a non-contiguous type, goes to the next algorithm), on the
# short stack and on the default one; t_shm a non-commutative op exact at
# every root, bitwise determinism, many requests in flight on a freed
# communicator, and dup/collective/free cycles with /proc/self/maps and the
# backing directory flat.  Then failures injected on ONE rank, a backing
# directory that cannot hold an arena, a rank killed (nothing left in
# /dev/shm), and auto (shm on a node with a core per process, not when
# oversubscribed).
# ---------------------------------------------------------------------------
shm=$testdir/mpi/t_shm
SHM_OK='t_shm: np [0-9]+: [0-9]+ checks, 0 failed'
SHM=()
SHM_COLLS="allreduce reduce bcast barrier allgather allgatherv gather gatherv scatter scatterv
           reduce_scatter_block reduce_scatter"
SHM_ONLY=$(echo $SHM_COLLS | tr ' ' ,)
for c in $SHM_COLLS; do
    SHM+=(--mca coll_hiercoll_${c}_algorithm shm)
done
SHM_RAN=()
for c in $SHM_COLLS; do
    SHM_RAN+=(": $c = shm \(blocking")
    [ $c = barrier ] || SHM_RAN+=(": i$c = shm \(nonblocking")
done
for np in 2 3 4 5 8; do
    EXPECT=("$OK" "${SHM_RAN[@]}")
    run "shm-colls-np$np" 900 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 "${SHM[@]}" "$colls" --only $SHM_ONLY
done
EXPECT=("$OK" "${SHM_RAN[@]}")
run "shm-colls-default-stack-np3" 900 "${MPI[@]}" -np 3 --mca coll_hiercoll_verbose 2 "${SHM[@]}" \
    "$colls" --only $SHM_ONLY
# reductions folded whole on more than two ranks (coll_hiercoll_shm_fold_ranks):
# a long allreduce by every rank reading every other input by CMA (in place:
# slice-parallel), a reduce by its root
EXPECT=("$OK" ": allreduce = shm \(blocking" ": reduce = shm \(blocking")
run "shm-fold-ranks4-np3" 600 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_fold_ranks 4 "${SHM[@]}" "$colls" \
    --only allreduce,reduce
# line demotion off (coll_hiercoll_shm_demote; an info key per
# communicator, a bad one is one line and the MCA choice): the same results
EXPECT=("$OK" "${SHM_RAN[@]}")
EXPECT_ONCE=('hiercoll: ERROR: info key hiercoll_shm_demote="maybe" on .* is neither true nor false; keeping the MCA choice')
REJECT=("shm: 3 processes, .* bytes$")
run "shm-demote-off-np3" 600 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_demote 0 "${SHM[@]}" "$colls" \
    --only $SHM_ONLY --info hiercoll_shm_demote=maybe
EXPECT=("$OK" "${SHM_RAN[@]}")
EXPECT+=("MPI_COMM_WORLD: shm: 2 processes, .* bytes$" "shm: 2 processes, .*, lines not demoted")
run "shm-demote-info-np2" 600 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 "${SHM[@]}" "$colls" --only $SHM_ONLY \
    --info hiercoll_shm_demote=false
for np in 1 2 3 5 8; do
    EXPECT=("$SHM_OK" "t_shm: 300 cycles: /proc/self/maps ([0-9]+) -> \1 lines, hc.* files in /dev/shm 0 -> 0")
    run "shm-t_shm-np$np" 600 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_shm_min_calls 0 "${SHM[@]}" "$shm" --cycles 300
done
# The hierarchy's runs below check every slot reuse against the done lines
# (coll_hiercoll_shm_debug_reuse: an abort where the cached "every rank has
# finished" ran ahead of them); a cache that starts ahead on one rank (fault
# ahead:1) shows the check fires
DEBUG_REUSE=(--mca coll_hiercoll_shm_debug_reuse 1)
EXPECT=("hiercoll: shm debug reuse: MPI_COMM_WORLD rank 1 \(world 1\), channel 0: operation [0-9]+ would reuse slot [0-9]+ of [0-9]+, the cache saying every rank has finished operation 1099511627776, but rank [0-9]+'s done line says [0-9]+: the cached minimum ran ahead")
run "shm-debug-reuse-fires-np3" 120 bash -c '! "$@"' _ "${MPI[@]}" -np 3 \
    --mca coll hiercoll,basic,libnbc "${DEBUG_REUSE[@]}" --mca coll_hiercoll_shm_fault ahead:1 \
    "${SHM[@]}" "$shm" --cycles 2
# two levels (groups of 2 and 3 consecutive ranks and their leaders) for
# barrier and inline reductions: the same serial references, the
# non-commutative product exact (groups are runs of ranks)
for g in 2 3; do
    EXPECT=("$OK" ": allreduce = shm \(blocking" ": barrier = shm \(blocking")
    run "shm-groups$g-colls-np7" 600 "${MPI[@]}" -np 7 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_group_size $g "${SHM[@]}" \
        "${DEBUG_REUSE[@]}" "$colls" \
        --only allreduce,reduce,barrier
    EXPECT=("$SHM_OK")
    run "shm-groups$g-t_shm-np8" 600 "${MPI[@]}" -np 8 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_shm_group_size $g "${SHM[@]}" "${DEBUG_REUSE[@]}" "$shm" --cycles 20 \
        --any-order
done
# groups past 10 ranks (3 groups of 4): the matrix
# product exact whatever the grouping (t_common.h's matmul stays in
# [0, P); before, its representatives differed from 11 ranks on: the
# suite grouped 8 ranks at most, the 16-core check showed it)
EXPECT=("$SHM_OK")
run "shm-groups4-t_shm-np12" 900 "${MPI[@]}" -np 12 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_shm_group_size 4 "${SHM[@]}" "${DEBUG_REUSE[@]}" "$shm" --cycles 5 \
    --any-order
# groups from the bindings (coll_hiercoll_shm_group_level): a rankfile puts
# ranks 0-2 and 7 on core 0, 3-6 on core 1, so groups by core are the runs
# 0-2, 3-6, 7 (sizes 3,4,1: not blocks of the group size); bound round
# robin, the runs are of one rank: consecutive ranks instead; a bad value:
# one error line, consecutive ranks
# (mpirun's own mapping differs between 4.1 and 5.0: rankfiles say it;
# 5.0's --map-by rankfile:file= takes no '.' or '-' in the name)
rf_blocks=$(mktemp /tmp/hcrankfileXXXXXX)
rf_alternate=$(mktemp /tmp/hcrankfileXXXXXX)
for r in 0 1 2 3 4 5 6 7; do
    case $r in 3|4|5|6) slot=1 ;; *) slot=0 ;; esac
    echo "rank $r=$(hostname) slot=$slot" >>"$rf_blocks"
    echo "rank $r=$(hostname) slot=$((r % 2))" >>"$rf_alternate"
done
MPI_RF=("$mpirun" --mca btl self,$SM_BTL --mca pml ob1 --mca mpi_yield_when_idle 1
        --bind-to core:overload-allowed)
rankfile() {
    case "${ompi_series:-4.1}" in
        4*) echo "--oversubscribe --rankfile $1" ;;
        *) echo "--map-by rankfile:file=$1:OVERSUBSCRIBE" ;;
    esac
}
GROUPS_BY=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 2
           --mca coll_hiercoll_shm_group_size 4 "${DEBUG_REUSE[@]}")
EXPECT=("$SHM_OK" "8 processes, .*, hierarchy 1 level: core 3 groups of 1-4; top 3; left out: numa \(all in one\), socket \(all in one\)")
run "shm-groups-core-t_shm-np8" 600 "${MPI_RF[@]}" -np 8 $(rankfile "$rf_blocks") \
    "${GROUPS_BY[@]}" --mca coll_hiercoll_shm_group_level core "${SHM[@]}" "$shm" --cycles 20 \
    --any-order
EXPECT=("$OK" "8 processes, .*, hierarchy 1 level: core 3 groups of 1-4; top 3" ": allreduce = shm \(blocking")
run "shm-groups-core-colls-np8" 600 "${MPI_RF[@]}" -np 8 $(rankfile "$rf_blocks") \
    "${GROUPS_BY[@]}" --mca coll_hiercoll_shm_group_level core "${SHM[@]}" "$colls" \
    --only allreduce,reduce,barrier
EXPECT=("$SHM_OK" "8 processes, .*, hierarchy 1 level: numa 2 groups of 4; top 2; left out: core \(one rank each\)")
run "shm-groups-round-robin-np8" 600 "${MPI_RF[@]}" -np 8 $(rankfile "$rf_alternate") \
    "${GROUPS_BY[@]}" --mca coll_hiercoll_shm_group_level core "${SHM[@]}" "$shm" --cycles 20 \
    --any-order
EXPECT=("$SHM_OK" "8 processes, .*, hierarchy 1 level: ranks 2 groups of 4; top 2")
EXPECT_ONCE=('hiercoll: ERROR: coll_hiercoll_shm_group_level="block:2": a hardware level or "none"')
run "shm-groups-bad-level-np8" 600 "${MPI_RF[@]}" -np 8 $(rankfile "$rf_blocks") \
    "${GROUPS_BY[@]}" --mca coll_hiercoll_shm_group_level block:2 "${SHM[@]}" "$shm" --cycles 20 \
    --any-order
rm -f "$rf_blocks" "$rf_alternate"
# a synthetic topology (coll_hiercoll_shm_topology, hwloc's syntax; world
# rank r on PU r) instead of the bindings: groups by L3 of 2 cores at np 8
# (group size 4), the same serial references; a bad string: one error
# line, the real locality
EXPECT=("$SHM_OK" "8 processes, .*, hierarchy 2 levels: l3 4 groups of 2, numa 2 groups of 2; top 2; left out: socket \(one rank each\), topology \"pack:2 l3:2 core:2\" \(objects among the ranks: package 2 numa 2 l3 4 l2 8 core 8\)")
run "shm-topology-groups-l3-t_shm-np8" 600 "${MPI[@]}" -np 8 "${GROUPS_BY[@]}" \
    --mca coll_hiercoll_shm_topology "pack:2 l3:2 core:2" "${SHM[@]}" "$shm" --cycles 20 \
    --any-order
EXPECT=("$SHM_OK" "8 processes, .*, hierarchy 1 level: ranks 2 groups of 4; top 2$")
EXPECT_ONCE=('hiercoll: ERROR: coll_hiercoll_shm_topology="pack:2 cache:3": "cache" is no level')
run "shm-topology-bad-np8" 600 "${MPI[@]}" -np 8 "${GROUPS_BY[@]}" \
    --mca coll_hiercoll_shm_group_level none --mca coll_hiercoll_shm_topology "pack:2 cache:3" \
    "${SHM[@]}" "$shm" --cycles 5 --any-order
# the n-level hierarchy (coll_hiercoll_shm_levels): levels from a synthetic
# topology that split the ranks, up and down them for barrier, bcast (lines
# and cells, the chunks through forwarders) and inline reductions; the same
# serial references, the non-commutative product exact (runs of ranks at
# every level), every shm collective on top (t_shm) at 13, 16 and 32 ranks;
# uneven groups; a list of levels; flat past the group size
LV=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 1 "${DEBUG_REUSE[@]}")
EXPECT=("$SHM_OK" "16 processes, .*, hierarchy 3 levels: l3 8 groups of 2, numa 4 groups of 2, socket 2 groups of 2; top 2, topology")
run "shm-levels-t_shm-np16" 600 "${MPI[@]}" -np 16 "${LV[@]}" \
    --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" "${SHM[@]}" "$shm" --cycles 2 \
    --any-order
EXPECT=("$SHM_OK" "32 processes, .*, hierarchy 3 levels: l3 8 groups of 4, numa 4 groups of 2, socket 2 groups of 2; top 2, topology")
run "shm-levels-t_shm-np32" 900 "${MPI[@]}" -np 32 "${LV[@]}" \
    --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:4" "${SHM[@]}" "$shm" --cycles 1 \
    --any-order
EXPECT=("$OK" "13 processes, .*, hierarchy 3 levels: l3 7 groups of 1-2, numa 4 groups of 1-2, socket 2 groups of 2; top 2")
run "shm-levels-colls-np13" 600 "${MPI[@]}" -np 13 "${LV[@]}" \
    --mca coll_hiercoll_shm_group_size 2 --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" \
    "${SHM[@]}" "$colls" --only allreduce,reduce,barrier,bcast
# single copy from 8 bytes: a bcast's pieces down the levels (each rank
# reads its leader's buffer as the leader says it has them)
EXPECT=("$OK" "13 processes, .*single copy \(CMA\) from 8 bytes, hierarchy 3 levels")
run "shm-levels-cma-bcast-np13" 600 "${MPI[@]}" -np 13 "${LV[@]}" \
    --mca coll_hiercoll_shm_group_size 2 --mca coll_hiercoll_shm_cma_min 8 \
    --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" "${SHM[@]}" "$colls" --only bcast
# without single copy every length goes through the cells, reductions
# through the hierarchy chunk by chunk
EXPECT=("$SHM_OK" "13 processes, .*no single copy, hierarchy 3 levels")
run "shm-levels-nocma-t_shm-np13" 600 "${MPI[@]}" -np 13 "${LV[@]}" \
    --mca coll_hiercoll_shm_group_size 2 --mca coll_hiercoll_shm_cma_min 0 \
    --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" "${SHM[@]}" "$shm" --cycles 1 \
    --any-order
EXPECT=("$SHM_OK" "11 processes, .*, hierarchy 2 levels: l3 6 groups of 1-2, socket 3 groups of 1-3; top 3, topology")
run "shm-levels-list-t_shm-np11" 600 "${MPI[@]}" -np 11 "${LV[@]}" \
    --mca coll_hiercoll_shm_levels l3,socket --mca coll_hiercoll_shm_group_size 3 \
    --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" "${SHM[@]}" "$shm" --cycles 2 \
    --any-order
EXPECT=("$SHM_OK" "12 processes, region of [0-9]+ bytes in rank [0-9]+'s arena \([^)]*\), [^,]*$")
run "shm-levels-flat-t_shm-np12" 600 "${MPI[@]}" -np 12 "${LV[@]}" \
    --mca coll_hiercoll_shm_levels flat "${SHM[@]}" "$shm" --cycles 2 --any-order
EXPECT=("$SHM_OK")
EXPECT_ONCE=('hiercoll: ERROR: coll_hiercoll_shm_levels="l3,board": a level is numa, socket, l3, l2, l1, core or hwthread; auto')
run "shm-levels-bad-np9" 600 "${MPI[@]}" -np 9 "${LV[@]}" \
    --mca coll_hiercoll_shm_levels l3,board "${SHM[@]}" "$shm" --cycles 1 --any-order
# errors down the levels (2 levels at np 9: l3 runs of 2, their leaders in
# runs by package; the top 0, 4, 8): world rank 4, which forwards to 5, 6
# and (through 6) 7, fails its single-copy reads of a bcast (fault
# treeread): 4-7 return an error, nobody MPI_SUCCESS with bytes it did not
# get; rank 4 finds no scratch for its folds of a reduction in cells
# (fault treefold): every rank of an allreduce, and a reduce's root,
# return an error, nobody a stale fold
LV_FAULT=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 1 "${DEBUG_REUSE[@]}"
          --mca coll_hiercoll_shm_group_size 4 --mca coll_hiercoll_shm_topology "pack:2 l3:2 core:2")
EXPECT=("t_shm: np 9: 81 checks, 0 failed" "9 processes, .*hierarchy 2 levels: l3 5 groups of 1-2, numa 3 groups of 1-2; top 3")
for it in 0 1 2; do
    EXPECT+=("t_shm: errors: bcast $it: error on ranks 4,5,6,7; wrong data on ranks none")
done
run "shm-levels-fault-treeread-4-np9" 300 "${MPI[@]}" -np 9 "${LV_FAULT[@]}" \
    --mca coll_hiercoll_shm_cma_min 8 --mca coll_hiercoll_shm_fault treeread:4 "${SHM[@]}" \
    "$shm" --errors
EXPECT=("t_shm: np 9: 81 checks, 0 failed" "9 processes, .*no single copy, hierarchy 2 levels")
for it in 0 1 2; do
    EXPECT+=("t_shm: errors: allreduce $it: error on ranks 0,1,2,3,4,5,6,7,8; wrong data on ranks none"
             "t_shm: errors: reduce $it: error on ranks 0,4; wrong data on ranks none")
done
run "shm-levels-fault-treefold-4-np9" 300 "${MPI[@]}" -np 9 "${LV_FAULT[@]}" \
    --mca coll_hiercoll_shm_cma_min 0 --mca coll_hiercoll_shm_fault treefold:4 "${SHM[@]}" \
    "$shm" --errors
# ... and flat, a single-copy reduction's slice folded by one rank whose
# reads fail (fault cmaslice): whoever reads that slice (every rank of an
# allreduce, a reduce's root) returns an error, none a wrong slice
EXPECT=("t_shm: np 3: 27 checks, 0 failed" "single copy \(CMA\) from 8 bytes")
for it in 0 1 2; do
    EXPECT+=("t_shm: errors: allreduce $it: error on ranks 0,1,2; wrong data on ranks none"
             "t_shm: errors: reduce $it: error on ranks 0,1; wrong data on ranks none")
done
run "shm-fault-cmaslice-1-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_cma_min 8 \
    --mca coll_hiercoll_shm_fault cmaslice:1 "${SHM[@]}" "$shm" --errors
# one hierarchy for all: ranks 0-3 build theirs by l3, 4-7 by socket (per
# rank environments; the region's layout is the same): the set-up agrees
# a digest of every rank's hierarchy and paths, finds them different, and
# every rank uses the layer below (before: a hang in the first call)
EXPECT=("$SHM_OK" "MPI_COMM_WORLD: shm: the ranks built different hierarchies .*; rank 0's: 1 level: l3 4 groups of 2; top 4; every rank uses the layer below")
REJECT=("shm: [0-9]+ processes, region of")
run "shm-levels-differ-np8" 120 "${MPI[@]}" -np 8 "${LV_FAULT[@]}" "${SHM[@]}" \
    sh -c 'case $OMPI_COMM_WORLD_RANK in [0-3]) export OMPI_MCA_coll_hiercoll_shm_levels=l3 ;;
    *) export OMPI_MCA_coll_hiercoll_shm_levels=socket ;; esac; exec "$@"' sh "$shm" --cycles 2 \
    --any-order
# 64-bit atomics lock-free, decided when the component is compiled
# (coll_hiercoll_atomic.h): yes on this target, no for a 32-bit x86 without
# cmpxchg8b (i486: gcc's atomics take libatomic's lock there), where the
# node level is built off.  Then that path (HIERCOLL_TEST_ATOMIC64=0
# pretends it): ompi_info says so, one verbose line, no region, results
# right
hcdir=$(cd "$(dirname "$0")/.." && pwd)/ompi/mca/coll/hiercoll
EXPECT=("atomics: this target: lock-free")
[ "$(uname -m)" = x86_64 ] && EXPECT+=("atomics: i486: not lock-free")
run "shm-atomics-compile" 60 sh -c 'p="#include \"coll_hiercoll_atomic.h\"
_Static_assert(HC_ATOMIC64_LOCK_FREE == WANT, \"HC_ATOMIC64_LOCK_FREE\");"
    echo "$p" | cc -fsyntax-only -DWANT=1 -I"$1" -x c - || exit 1
    echo "atomics: this target: lock-free"
    if echo "int x;" | cc -m32 -march=i486 -fsyntax-only -x c - 2>/dev/null; then
        echo "$p" | cc -m32 -march=i486 -fsyntax-only -DWANT=0 -I"$1" -x c - || exit 1
        echo "atomics: i486: not lock-free"
    fi' sh "$hcdir"
EXPECT=('"coll_hiercoll_shm_atomics" \(current value: "lock-free"'
        '"coll_hiercoll_shm_atomics" \(current value: "not lock-free \(the shared-memory node level is off\)"')
run "shm-atomics-ompi-info" 60 sh -c '"$1" --param coll hiercoll --level 9;
    HIERCOLL_TEST_ATOMIC64=0 "$1" --param coll hiercoll --level 9' sh "$ompi_info"
EXPECT=("$SHM_OK")
EXPECT_ONCE=("shm: 64-bit atomics are not lock-free on this target \(coll_hiercoll_shm_atomics\): the shared-memory node level is off")
REJECT=("shm: [0-9]+ processes, region of")
run "shm-atomics-off-np3" 300 "${MPI[@]}" -np 3 -x HIERCOLL_TEST_ATOMIC64=0 \
    --mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 1 "${SHM[@]}" "$shm" --cycles 5 \
    --any-order
# the stress program (t_stress): mixed bcasts (a rotating root; line, cells
# in chunks, single copy), allreduces and reduces (a non-commutative
# matrix product over many chunks and by single copy, int64 sums in the
# line; in place or not), barriers and three nonblocking calls in flight,
# every payload encoding (iteration, rank); random sleeps on random ranks
# and leaders; buffers and inputs overwritten right after each return; 2
# slots; every slot reuse checked against the done lines.  Flat at np 4
# (the lean calls, the hot rows), then 2, 3 and 4 levels below the top at
# np 8, 16, 32 (a level at least halves the leaders and the top holds at
# most the group size, 2: np 8 has at most 2)
STRESS=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_slots 2
        "${DEBUG_REUSE[@]}" "${SHM[@]}")
STRESS_LV=(--mca coll_hiercoll_shm_group_size 2
           --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:4")
stress=$testdir/mpi/t_stress
EXPECT=("t_stress: np 4: 1000 iterations, [0-9]+ checks, 0 failed" "shm: 4 processes, region of .*\(2 slots")
run "stress-flat-np4" 300 "${MPI[@]}" -np 4 "${STRESS[@]}" "$stress" --iters 1000 --seed 1
EXPECT=("t_stress: np 8: 1000 iterations, [0-9]+ checks, 0 failed" "shm: 8 processes, .*\(2 slots.*hierarchy 2 levels: l3 4 groups of 2, numa 2 groups of 2; top 2")
run "stress-levels2-np8" 300 "${MPI[@]}" -np 8 "${STRESS[@]}" "${STRESS_LV[@]}" "$stress" \
    --iters 1000 --seed 2
EXPECT=("t_stress: np 16: 300 iterations, [0-9]+ checks, 0 failed" "shm: 16 processes, .*hierarchy 3 levels: l3 8 groups of 2, numa 4 groups of 2, socket 2 groups of 2; top 2")
run "stress-levels3-np16" 300 "${MPI[@]}" -np 16 "${STRESS[@]}" "${STRESS_LV[@]}" "$stress" \
    --iters 300 --seed 3
EXPECT=("t_stress: np 16: 200 iterations, [0-9]+ checks, 0 failed" "shm: 16 processes, .*no single copy, hierarchy 3 levels")
run "stress-levels3-nocma-np16" 300 "${MPI[@]}" -np 16 "${STRESS[@]}" "${STRESS_LV[@]}" \
    --mca coll_hiercoll_shm_cma_min 0 "$stress" --iters 200 --seed 4
EXPECT=("t_stress: np 32: 100 iterations, [0-9]+ checks, 0 failed" "shm: 32 processes, .*hierarchy 4 levels: l3 16 groups of 2, numa 8 groups of 2, socket 4 groups of 2, ranks 2 groups of 2; top 2")
run "stress-levels4-np32" 300 "${MPI[@]}" -np 32 "${STRESS[@]}" "${STRESS_LV[@]}" "$stress" \
    --iters 100 --seed 5
# the same through the long cells (from 113 bytes, chunks of 4 KiB, so
# the stress program's long bcasts and reductions take many chunks): flat
# at np 4, two levels at np 8
LONG_ON=(--mca coll_hiercoll_shm_long on --mca coll_hiercoll_shm_long_min 113
         --mca coll_hiercoll_shm_long_chunk 4K)
EXPECT=("t_stress: np 4: 400 iterations, [0-9]+ checks, 0 failed" "shm: long cells: ")
run "stress-long-flat-np4" 300 "${MPI[@]}" -np 4 "${STRESS[@]}" "${LONG_ON[@]}" "$stress" \
    --iters 400 --seed 6
EXPECT=("t_stress: np 8: 400 iterations, [0-9]+ checks, 0 failed" "shm: long cells: ")
run "stress-long-levels2-np8" 300 "${MPI[@]}" -np 8 "${STRESS[@]}" "${STRESS_LV[@]}" \
    "${LONG_ON[@]}" "$stress" --iters 400 --seed 7
# line traffic counted (coll_hiercoll_stats; flag and done lines, and the
# lines of cells): 100 8-byte allreduces at np 8
# on 2 packages x 2 NUMA nodes x 2 L3 of one core.  Flat, every rank reads
# the 7 others' flag lines each call (1 in its NUMA node, 2 more in its
# package, 4 across packages).  In a level by package (groups of 4, led
# by ranks 0 and 4, the top) a leader reads its 3 members' lines and the
# other leader's, a member its leader's result (in the leader's cell: a
# cell line): 2 lines across packages per call instead of 32 (the two
# levels before had every rank read both leaders' lines: 8)
if [ -x "$top_builddir/contrib/hc_bench" ] || [ "$list" = yes ]; then
    LINES_BY=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 1
              --mca coll_hiercoll_stats 1 --mca coll_hiercoll_shm_min_calls 0
              --mca coll_hiercoll_allreduce_algorithm shm
              --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:1")
    LINES_RAN="shm: 8 processes, .*topology \"pack:2 numa:2 l3:2 core:1\" \(objects among the ranks: package 2 numa 4 l3 8"
    EXPECT=("$LINES_RAN")
    for r in 0 1 2 3 4 5 6 7; do
        EXPECT+=("shm lines comm .* rank $r/8: allreduce: 100 ops, lines l3 0 numa 100 package 200 across 400, cell lines l3 0 numa 0 package 0 across 0;$")
    done
    run "shm-lines-flat-allreduce-np8" 600 "${MPI[@]}" -np 8 "${LINES_BY[@]}" \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 8 --max 8 --traffic 100
    EXPECT=("$LINES_RAN" "hierarchy 1 level: socket 2 groups of 4; top 2")
    for r in 0 1 2 3 4 5 6 7; do
        case $r in
        0|4) want="numa 100 package 200 across 100, cell lines l3 0 numa 0 package 0 across 0" ;;
        1|5) want="numa 100 package 0 across 0, cell lines l3 0 numa 100 package 0 across 0" ;;
        *) want="numa 0 package 100 across 0, cell lines l3 0 numa 0 package 100 across 0" ;;
        esac
        EXPECT+=("shm lines comm .* rank $r/8: allreduce: 100 ops, lines l3 0 $want;$")
    done
    run "shm-lines-groups-allreduce-np8" 600 "${MPI[@]}" -np 8 "${LINES_BY[@]}" \
        --mca coll_hiercoll_shm_group_size 4 --mca coll_hiercoll_shm_group_level socket \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 8 --max 8 --traffic 100
    # 64 ranks on 2 packages x 2 NUMA x 4 L3 x 4 cores, 100 8-byte
    # allreduces through the hierarchy (auto: l3, numa, socket; top 0 and
    # 32): a leader reads its group's 3 other lines per level, a member its
    # leader's release; 2 lines across packages per call in all (flat: 2048,
    # the two levels before: 512).  Rank 0 leads at every level, 1 is a
    # member in its L3, 4 leads its L3 and is a member in its NUMA node, 16
    # leads its NUMA node and is a member in its package (their cells: the
    # top's result)
    EXPECT=("shm: 64 processes, .*hierarchy 3 levels: l3 16 groups of 4, numa 4 groups of 4, socket 2 groups of 2; top 2")
    EXPECT+=("shm lines comm .* rank 0/64: allreduce: 100 ops, lines l3 300 numa 300 package 100 across 100, cell lines l3 0 numa 0 package 0 across 0;$")
    EXPECT+=("shm lines comm .* rank 1/64: allreduce: 100 ops, lines l3 100 numa 0 package 0 across 0, cell lines l3 100 numa 0 package 0 across 0;$")
    EXPECT+=("shm lines comm .* rank 4/64: allreduce: 100 ops, lines l3 300 numa 100 package 0 across 0, cell lines l3 0 numa 100 package 0 across 0;$")
    EXPECT+=("shm lines comm .* rank 16/64: allreduce: 100 ops, lines l3 300 numa 300 package 100 across 0, cell lines l3 0 numa 0 package 100 across 0;$")
    EXPECT+=("shm lines comm .* rank 63/64: allreduce: 100 ops, lines l3 100 numa 0 package 0 across 0, cell lines l3 0 numa 0 package 0 across 0;$")
    run "shm-lines-levels-allreduce-np64" 900 "${MPI[@]}" -np 64 \
        "${LINES_BY[@]/l3:2 core:1/l3:4 core:4}" \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 8 --max 8 --traffic 100
    # 4 KiB allreduces through the hierarchy in cells (1 KiB at 64 ranks: 4
    # chunks, each up, across the top twice, down): 8 lines of a cell per
    # chunk and group member read (the two levels before, flat: 4096 cell
    # lines across packages per call; here 64)
    EXPECT=("shm: 64 processes, .*hierarchy 3 levels")
    EXPECT+=("shm lines comm .* rank 0/64: allreduce: 100 ops, lines l3 1200 numa 1200 package 400 across 800, cell lines l3 9600 numa 9600 package 3200 across 3200;$")
    EXPECT+=("shm lines comm .* rank 1/64: allreduce: 100 ops, lines l3 400 numa 0 package 0 across 0, cell lines l3 3200 numa 0 package 0 across 0;$")
    EXPECT+=("shm lines comm .* rank 16/64: allreduce: 100 ops, lines l3 1200 numa 1200 package 400 across 0, cell lines l3 9600 numa 9600 package 3200 across 0;$")
    run "shm-lines-levels-allreduce-4k-np64" 900 "${MPI[@]}" -np 64 \
        "${LINES_BY[@]/l3:2 core:1/l3:4 core:4}" \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 4096 --max 4096 --traffic 100
    # a 4 KiB bcast from rank 0 goes through its cell: each reader reads
    # the root's flag line and the 32 lines of its cell, at its distance
    EXPECT=("$LINES_RAN")
    for r in 1 2 3 4 5 6 7; do
        case $r in
        1) want="numa 100 package 0 across 0, cell lines l3 0 numa 3200 package 0 across 0" ;;
        2|3) want="numa 0 package 100 across 0, cell lines l3 0 numa 0 package 3200 across 0" ;;
        *) want="numa 0 package 0 across 100, cell lines l3 0 numa 0 package 0 across 3200" ;;
        esac
        EXPECT+=("shm lines comm .* rank $r/8: bcast: 100 ops, lines l3 0 $want;$")
    done
    EXPECT+=("shm lines comm .* rank 0/8: bcast: 100 ops, lines l3 0 numa 0 package 0 across 0, cell lines l3 0 numa 0 package 0 across 0;$")
    run "shm-lines-flat-bcast-4k-np8" 600 "${MPI[@]}" -np 8 \
        "${LINES_BY[@]/allreduce_algorithm/bcast_algorithm}" \
        "$top_builddir/contrib/hc_bench" --coll bcast --min 4096 --max 4096 --traffic 100
fi
# long messages through the levels' cells (coll_hiercoll_shm_long "on";
# docs/design/shm-long.md).  Every shm bcast, reduce and allreduce
# against serial references, every length from 113 bytes in chunks of 4
# KiB (several chunks, every digit): a flat region (np 5), a regular
# hierarchy (np 16, digits 2 2 2 2: the reductions through the levels),
# an irregular one (np 13: the bcast down the levels, the reductions on
# the level's other paths); 300 dup/allreduce/bcast/free cycles of 64 KiB
# (the cells come back to their arenas: none fails to carve, the maps flat)
LONG=(--mca coll_hiercoll_shm_long on --mca coll_hiercoll_shm_long_min 113
      --mca coll_hiercoll_shm_long_chunk 4K)
LONG_BY=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_verbose 1 "${SHM[@]}" "${LONG[@]}")
EXPECT=("$OK" "shm: long cells: .*reductions through the levels")
run "shm-long-colls-np5" 600 "${MPI[@]}" -np 5 "${LONG_BY[@]}" "$colls" --only bcast,reduce,allreduce
EXPECT=("$OK" "16 processes, .*hierarchy 3 levels: l3 8 groups of 2"
        "shm: long cells: .*reductions through the levels")
run "shm-long-levels-colls-np16" 900 "${MPI[@]}" -np 16 "${LONG_BY[@]}" \
    --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" "$colls" --only bcast,reduce,allreduce
EXPECT=("$OK" "13 processes, .*hierarchy 3 levels" "shm: long cells: .*reductions elsewhere")
run "shm-long-levels-colls-np13" 600 "${MPI[@]}" -np 13 "${LONG_BY[@]}" \
    --mca coll_hiercoll_shm_group_size 2 --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" \
    "$colls" --only bcast,reduce,allreduce
EXPECT=("$SHM_OK" "t_shm: 300 cycles: /proc/self/maps ([0-9]+) -> \\1 lines")
REJECT=("could not carve or map the long cells")
run "shm-long-cycles-np4" 600 "${MPI[@]}" -np 4 "${LONG_BY[@]}" "$shm" --cycles 300 --cycle-bytes 65536
# one rank that cannot carve its cells: every rank takes the other paths
# (one line a communicator), the same results
EXPECT=("$SHM_OK")
EXPECT_ONCE=("MPI_COMM_WORLD: shm: a rank could not carve or map the long cells")
REJECT=("shm: long cells: ")
run "shm-long-fault-np3" 600 "${MPI[@]}" -np 3 "${LONG_BY[@]}" --mca coll_hiercoll_shm_fault long:1 \
    "$shm" --cycles 20 --cycle-bytes 65536
# ... counted (coll_hiercoll_stats; test/shm-counts.sh, per rank and call
# in units of the message L): at 64 ranks on pack:2 numa:2 l3:4 core:4, a
# bcast of 1 MiB copies at most 1.25 L a rank (1.234: the leaders twice)
# and no cell is read by more than 8 ranks (the root's: its 3 + 3 + 1
# members and the other top rank); an allreduce moves at most 4 L a rank
# (3.33: in, the slices folded, out); no process_vm_readv, at 16 ranks as
# at 64 (the single copy before: 2 (n - 1) calls a rank)
if [ -x "$top_builddir/contrib/hc_bench" ] || [ "$list" = yes ]; then
    counts=$(cd "$(dirname "$0")" && pwd)/shm-counts.sh
    LONG_LINES=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_stats 1
                --mca coll_hiercoll_shm_min_calls 0 --mca coll_hiercoll_shm_long on
                --mca coll_hiercoll_bcast_algorithm shm --mca coll_hiercoll_allreduce_algorithm shm)
    # (the job's output, then its counts against the bounds)
    counted() {
        local out=$1 coll=$2 L=$3 calls=$4
        shift 4
        local i=1
        while [ "${!i}" != -- ]; do i=$((i + 1)); done
        "${@:1:i-1}" >"$out" 2>&1
        local rc=$?
        cat "$out"
        [ $rc -eq 0 ] && bash "$counts" "$out" "$coll" "$L" "$calls" "${@:i+1}"
    }
    export -f counted
    EXPECT=("counts bcast: 64 ranks" "counts: ok bytes mean" "counts: ok readers" "counts: ok cma calls")
    REJECT=("counts: FAIL")
    run "shm-long-counts-bcast-np64" 900 bash -c 'counts=$0; counted "$@"' "$counts" \
        "$logdir/shm-long-counts-bcast-np64.out" bcast 1048576 2 "${MPI[@]}" -np 64 "${LONG_LINES[@]}" \
        --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:4 core:4" \
        "$top_builddir/contrib/hc_bench" --coll bcast --min 1M --max 1M --traffic 2 \
        -- --mean-at-most 1.25 --readers-at-most 8 --calls-at-most 0
    EXPECT=("counts allreduce: 64 ranks" "counts: ok bytes mean" "counts: ok bytes of one rank"
            "counts: ok cma calls")
    REJECT=("counts: FAIL")
    run "shm-long-counts-allreduce-np64" 900 bash -c 'counts=$0; counted "$@"' "$counts" \
        "$logdir/shm-long-counts-allreduce-np64.out" allreduce 1048576 2 "${MPI[@]}" -np 64 "${LONG_LINES[@]}" \
        --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:4 core:4" \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 1M --max 1M --traffic 2 \
        -- --mean-at-most 4 --max-at-most 4 --calls-at-most 0
    EXPECT=("counts allreduce: 16 ranks" "counts: ok cma calls")
    REJECT=("counts: FAIL")
    run "shm-long-counts-allreduce-np16" 600 bash -c 'counts=$0; counted "$@"' "$counts" \
        "$logdir/shm-long-counts-allreduce-np16.out" allreduce 1048576 2 "${MPI[@]}" -np 16 "${LONG_LINES[@]}" \
        --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 1M --max 1M --traffic 2 \
        -- --mean-at-most 4 --calls-at-most 0
    # auto (every process a core, as on a real node: coll_hiercoll_shm_oversubscribed):
    # the long cells for a bcast of 1 MiB and a reduce of 16 KiB on 4
    # processes (no system call); single copy for a bcast on 2 and a reduce
    # of 64 KiB on 4 (the model's margin there depends on the machine)
    AUTO_LINES=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_stats 1
                --mca coll_hiercoll_shm_min_calls 0 --mca coll_hiercoll_shm_oversubscribed 1)
    for c in "bcast 4 1M 1048576 -" "bcast 2 1M 1048576 FAIL" "reduce 4 16K 16384 -" \
             "reduce 4 64K 65536 FAIL"; do
        set -- $c
        if [ "$5" = FAIL ]; then
            EXPECT=("counts $1: $2 ranks" "counts: FAIL cma calls a call")
            not="!"
        else
            EXPECT=("counts $1: $2 ranks" "counts: ok cma calls a call 0.000 <= 0")
            not=""
        fi
        run "shm-long-auto-$1-$3-np$2" 300 bash -c 'counts=$0; '"$not"' counted "$@"' "$counts" \
            "$logdir/shm-long-auto-$1-$3-np$2.out" "$1" "$4" 2 "${MPI[@]}" -np "$2" "${AUTO_LINES[@]}" \
            "$top_builddir/contrib/hc_bench" --coll "$1" --min "$3" --max "$3" --traffic 2 \
            -- --calls-at-most 0
    done
    # (and the counts can fail: the single copy before, at 16 ranks, 30
    # process_vm_readv calls a rank and 15 readers of one buffer)
    EXPECT=("counts allreduce: 16 ranks" "counts: FAIL cma calls a call 30.000 > 0"
            "counts: FAIL readers 15.000 > 8")
    run "shm-long-counts-flat-fails-np16" 600 bash -c 'counts=$0; ! counted "$@"' "$counts" \
        "$logdir/shm-long-counts-flat-fails-np16.out" allreduce 1048576 2 "${MPI[@]}" -np 16 \
        "${LONG_LINES[@]/on/off}" --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:2" \
        "$top_builddir/contrib/hc_bench" --coll allreduce --min 1M --max 1M --traffic 2 \
        -- --readers-at-most 8 --calls-at-most 0
fi
# persistent requests on shm (a channel each, in init order) started in
# different orders on different ranks and restarted (t_persist)
for np in 3 5; do
    EXPECT=("t_persist: np $np: [0-9]+ checks, 0 failed" "_init = shm \(persistent")
    run "shm-persist-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_persistent 16 "${SHM[@]}" \
        "$testdir/mpi/t_persist"
done
# persistent channels given back: 8 rounds of three persistent requests
# (3 channels) on one communicator, freed before the blocking barrier or
# allreduce that closes the round, except every third round on odd ranks
# (after it: that call cannot agree them free, and the next round's inits
# take other algorithms on every rank): 15 inits take a channel back, no
# more (np 2 with a core each: the closing calls go lean; np 3, 5: the
# engine, oversubscribed)
REUSE=(--mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_persistent 3
       --mca coll_hiercoll_allreduce_algorithm shm --mca coll_hiercoll_bcast_algorithm shm
       --mca coll_hiercoll_barrier_algorithm shm)
EXPECT=("$SHM_OK" "shm: a persistent init takes channel 3 back \(freed on every rank; 15 taken back so far\)")
REJECT=("16 taken back")
run "shm-persist-reuse-np2" 120 "$mpirun" "${OVERSUBSCRIBE[@]}" --mca btl self,$SM_BTL \
    --mca pml ob1 --mca mpi_yield_when_idle 0 -np 2 --mca coll hiercoll,basic,libnbc "${REUSE[@]}" \
    "$shm" --reuse 8
for np in 3 5; do
    EXPECT=("$SHM_OK" "shm: a persistent init takes channel 3 back \(freed on every rank; 15 taken back so far\)")
    REJECT=("16 taken back")
    run "shm-persist-reuse-np$np" 120 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        "${REUSE[@]}" "$shm" --reuse 8
done
# persistent gatherv and scatterv on shm (t_colls: every root, in place,
# zero counts; the first coll_hiercoll_shm_persistent inits of each
# communicator take channels): the non-roots learn the chunk count from the
# root at every start
for np in 2 3 5 8; do
    EXPECT=("$OK" ": gatherv_init = shm \(persistent" ": scatterv_init = shm \(persistent")
    run "shm-v-persistent-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_persistent 8 "${SHM[@]}" "$colls" \
        --only gatherv,scatterv
done
# ... and their non-roots never read the root's arguments (NULL there)
EXPECT=("$OK" ": gatherv = shm \(blocking" ": iscatterv = shm \(nonblocking")
run "shm-v-root-only-args-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 "${SHM[@]}" "$colls" --only gather,gatherv,scatter,scatterv \
    --root-only-args
# nonblocking gatherv, scatterv, allgatherv and reduce_scatter whose count
# and displacement arrays the caller overwrites once the call returns (as
# mpi4py 3.1.4's Iallgatherv frees them): the level runs from its own copy
EXPECT=("t_shm: np 3: 720 checks, 0 failed" ": iallgatherv = shm \(nonblocking" ": iscatterv = shm \(nonblocking")
run "shm-nb-arrays-clobbered-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 "${SHM[@]}" "$shm" --clobber-arrays
# a failure on one rank: every rank falls back (no region is ever set up:
# rank 0's line after the agreement never appears), no hang
SHM_SET_UP='shm: [0-9]+ processes, region of'
for f in attach:1 alloc:0 attach:2; do
    EXPECT=("$SHM_OK" "shm: .*(could not attach|could not carve)")
    REJECT=("$SHM_SET_UP")
    run "shm-fault-${f/:/-}-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_fault $f "${SHM[@]}" "$shm" \
        --cycles 20 --any-order
done
# single copy (CMA) for every bcast longer than 8 bytes; the probe failing
# on one rank turns single copy off on every rank (shm itself stays)
for np in 2 5; do
    EXPECT=("$OK" ": bcast = shm \(blocking" "single copy \(CMA\) from 8 bytes")
    REJECT=("no single copy")
    run "shm-cma-bcast-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_cma_min 8 "${SHM[@]}" "$colls" \
        --only bcast
done
# long reductions by single copy (every length from 8 bytes here): each
# rank folds its slice straight from the others' inputs, same bits
for np in 2 5; do
    EXPECT=("$OK" ": allreduce = shm \(blocking" ": reduce = shm \(blocking" "single copy \(CMA\) from 8 bytes")
    run "shm-cma-reductions-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_cma_min 8 "${SHM[@]}" "$colls" \
        --only allreduce,reduce
    EXPECT=("$SHM_OK")
    run "shm-cma-t_shm-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_shm_cma_min 8 "${SHM[@]}" "$shm" --cycles 20
done
EXPECT=("$OK" ": bcast = shm \(blocking" "shm: 3 processes, .*, no single copy")
REJECT=("single copy \(CMA\)")
run "shm-fault-cma-2-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_cma_min 8 --mca coll_hiercoll_shm_fault cma:2 \
    "${SHM[@]}" "$colls" --only bcast
# Flag-line placement (coll_hiercoll_shm_place, default 8): at np 2 with
# a core each, channel 0 keeps the fastest 4 of 544 rows as its hot rows
# (barriers, allreduces in the line) and the next 64 as its slots (the
# persistent channels the next 68 each), and t_shm stays exact on them
# (every collective, persistent requests too).  The timing comes after a
# blocking barrier or allreduce in the line once coll_hiercoll_shm_place_after
# of them have run (here 0: the first; 8: in the middle of t_shm's calls on
# MPI_COMM_WORLD, the dups of --cycles too short-lived to time theirs;
# the default 10000: none of t_shm's communicators, and hc_bench's, which
# runs longer, does).  A rank that cannot time them (fault place) or rank
# 0 past its time (budget:0): address order on every rank, still exact.
# A rank whose parameters lay the region out otherwise (place 2 on rank
# 1, through its environment: Open MPI 5.0.7's mpirun crashes on an MPMD
# command line here): one line, the layer below on every rank, exact.
# The 20 dups of --cycles come where earlier ones were: they take the
# rows remembered (MEMO); a rank that remembers other rows (fault memo)
# makes every rank time them again, each time.
MEMO='shm: channel 0 keeps the rows of flag lines timed for an earlier communicator in the same place'
PLACED='shm: channel 0 keeps the fastest 4 of 544 rows of flag lines as its hot rows and the next 64 as its slots .*, 2 persistent channels the next'
TIMING='shm: (channel 0 keeps|a rank cannot time|timing the rows|the ranks remember)'
MPI_CORE=("$mpirun" --mca btl self,$SM_BTL --mca pml ob1 --mca mpi_yield_when_idle 0)
EXPECT=("$SHM_OK" "$PLACED" "$SHM_SET_UP" "$MEMO")
run "shm-place-np2" 300 "${MPI_CORE[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_place_after 0 "${SHM[@]}" "$shm" \
    --cycles 20
EXPECT=("$SHM_OK" "MPI_COMM_WORLD: $PLACED" "$SHM_SET_UP")
REJECT=("DUP FROM [0-9]+: $TIMING" "$MEMO")
run "shm-place-after-8-np2" 300 "${MPI_CORE[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_place_after 8 "${SHM[@]}" "$shm" \
    --cycles 20
EXPECT=("$SHM_OK" "$SHM_SET_UP")
REJECT=("$TIMING")
run "shm-place-after-default-np2" 300 "${MPI_CORE[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 "${SHM[@]}" "$shm" --cycles 20
if [ -x "$top_builddir/contrib/hc_bench" ] || [ "$list" = yes ]; then
    EXPECT=("DUP FROM [0-9]+: $PLACED")
    REJECT=("$MEMO")
    run "shm-place-after-bench-np2" 300 "${MPI_CORE[@]}" -np 2 \
        --mca coll hiercoll,tuned,basic,libnbc --mca coll_hiercoll_verbose 1 \
        "$top_builddir/contrib/hc_bench" --coll allreduce --against tuned --sizes 8 --trials 3 \
        --iters 5000
    # a rank with calls in flight whenever the timing asks (fault idle:1):
    # put off 1024 barriers and allreduces each time, every rank alike
    EXPECT=("DUP FROM [0-9]+: shm: a rank has calls in flight; the rows of flag lines are timed 1024 barriers and allreduces later")
    REJECT=("$TIMING")
    run "shm-fault-idle-1-np2" 300 "${MPI_CORE[@]}" -np 2 \
        --mca coll hiercoll,tuned,basic,libnbc --mca coll_hiercoll_verbose 1 \
        --mca coll_hiercoll_shm_place_after 0 --mca coll_hiercoll_shm_fault idle:1 \
        "$top_builddir/contrib/hc_bench" --coll allreduce --against tuned --sizes 8 --trials 3 \
        --iters 5000
fi
EXPECT=("$SHM_OK" "$PLACED" "$SHM_SET_UP"
        "shm: the ranks remember other rows of flag lines for this place; timing them again")
REJECT=("$MEMO")
run "shm-fault-memo-1-np2" 300 "${MPI_CORE[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_fault memo:1 \
    --mca coll_hiercoll_shm_place_after 0 "${SHM[@]}" "$shm" --cycles 20
for f in place:1 budget:0; do
    EXPECT=("$SHM_OK" "shm: (a rank cannot time the rows|timing the rows of flag lines took over)"
            "$SHM_SET_UP")
    REJECT=("$PLACED" "$MEMO")
    run "shm-fault-${f/:/-}-np2" 300 "${MPI_CORE[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_fault $f \
        --mca coll_hiercoll_shm_place_after 0 "${SHM[@]}" "$shm" --cycles 20
done
EXPECT=("$SHM_OK" "world rank 1's parameters .* lay the region out otherwise than rank 0's"
        "a rank could not attach the region")
REJECT=("$SHM_SET_UP")
run "shm-place-mismatch-np2" 300 "${MPI_CORE[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 "${SHM[@]}" sh -c '[ "${OMPI_COMM_WORLD_RANK:-}" = 1 ] &&
    export OMPI_MCA_coll_hiercoll_shm_place=2; exec "$@"' sh "$shm" --cycles 20
# (mpi_yield_when_idle, as MPI[@] sets it: no timing, address order)
EXPECT=("$SHM_OK" "$SHM_SET_UP")
REJECT=("$TIMING")
run "shm-place-yield-np2" 300 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 --mca coll_hiercoll_shm_place_after 0 "${SHM[@]}" "$shm" \
    --cycles 20
# a long bcast's root writes one n-th into each reader (from 32 KiB, the
# 40000-int bcasts of t_colls, every type pair); when those writes fail on
# the root (world rank 0, roots 0 and n - 1), the readers read the parts
for np in 2 4; do
    EXPECT=("$OK" ": bcast = shm \(blocking" "cannot write into rank [0-9]+ with process_vm_writev")
    run "shm-fault-push-0-np$np" 300 "${MPI[@]}" -np $np --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_fault push:0 "${SHM[@]}" "$colls" \
        --only bcast
done
# no arena on rank 0: another rank owns the regions, shm runs
EXPECT=("$SHM_OK" "shm: no arena on world rank 0" ": allreduce = shm \(blocking")
run "shm-fault-create-0-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_fault create:0 "${SHM[@]}" "$shm" \
    --cycles 20
# a backing directory where no arena fits: the layer below everywhere
small=$(mktemp -d "${TMPDIR:-/tmp}/hc-small.XXXXXX")
if [ "$(id -u)" = 0 ] && [ "$list" = no ] && mount -t tmpfs -o size=64k hcsmall "$small" 2>/dev/null; then
    EXPECT=("$SHM_OK" "shm: no arena on world rank 0 \(reserve .*No space left" "shm: no process has")
    REJECT=("$SHM_SET_UP")
    run "shm-backing-too-small-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_backing "$small" "${SHM[@]}" "$shm" \
        --cycles 20 --any-order --backing "$small"
    umount "$small"
else
    EXPECT=("$SHM_OK" "shm: no arena on world rank 0" "shm: no process has")
    REJECT=("$SHM_SET_UP")
    run "shm-backing-missing-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_shm_backing "$small/none" "${SHM[@]}" \
        "$shm" --cycles 20 --any-order
fi
rmdir "$small" 2>/dev/null
# one rank killed by SIGKILL once regions exist: nothing of ours stays in /dev/shm
EXPECT=("hc files before: ([0-9]+), after: \1$")
run "shm-killed-rank-leaves-nothing" 120 bash -c "b=\$(ls /dev/shm | grep -c '^hc\.'); \
    $(printf '%q ' "${MPI[@]}") -np 3 --mca coll hiercoll,basic,libnbc $(printf '%q ' "${SHM[@]}") \
    $(printf '%q' "$shm") --kill 1 >/dev/null 2>&1; \
    echo \"hc files before: \$b, after: \$(ls /dev/shm | grep -c '^hc\.')\""
# the watchdog names who waits, where, for what (the last rank comes late)
EXPECT=("$SHM_OK" "hiercoll: shm watchdog: MPI_COMM_WORLD rank 0 \(world 0\) has waited [0-9]+ s in allreduce seq [0-9]+ chunk 0 phase 1 on line [0-9]+ \(slot [0-9]+, rank 2\) for value >= [0-9]+, sees [0-9]+")
run "shm-watchdog-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_shm_watchdog 1 "${SHM[@]}" "$shm" --stall 4 --cycles 0
# auto: shm on 2 processes (a core each here), after the admission calls
# (Open MPI 5.0's launcher sets mpi_yield_when_idle for --map-by
# :OVERSUBSCRIBE, which auto reads as an oversubscribed node)
# (reduce from coll_hiercoll_shm_reduce_min bytes: t_colls' 4000-byte ones)
EXPECT=("$OK" ": allreduce = shm \(blocking, np 2\) by auto" ": bcast = shm \(blocking, np 2\) by auto"
        ": barrier = shm \(blocking, np 2\) by auto" ": iallreduce = shm \(nonblocking, np 2\) by auto"
        ": reduce = shm \(blocking, np 2\) by auto" ": reduce -> tuned \(blocking, np 2\)")
run "shm-auto-np2" 600 "$mpirun" "${OVERSUBSCRIBE[@]}" --mca btl self,$SM_BTL --mca pml ob1 \
    --mca mpi_yield_when_idle 0 -np 2 --mca coll_hiercoll_verbose 2 "$colls" \
    --only allreduce,reduce,bcast,barrier --quick

NUMERIC=(priority:40 verbose:0 bcast_binomial_max:524288 allreduce_rhrd_min:65536
         reduce_rhrd_min:524288 gatherv_tree_min:128 hand_back_after:1000 offload_radix:0
         offload_credits:64 shm_arena_size:4194304 shm_cell_size:8192 shm_chan_bytes:262144
         shm_slots:4 shm_persistent:2 shm_min_calls:16 shm_spin:2000 shm_watchdog:0
         shm_auto_max:16777216 shm_fold_max:4096 shm_fold_ranks:2
         shm_cma_min:16384 shm_group_size:8 shm_reduce_min:512
         decomp_proc_bandwidth:10000000000 decomp_nic_bandwidth:25000000000
         shm_long_min:16384 shm_long_chunk:65536 shm_long_slots:4)
for bad in -5 banana 99999999999999999999; do
    args=() EXPECT_ONCE=()
    for p in "${NUMERIC[@]}"; do
        args+=(--mca "coll_hiercoll_${p%%:*}" "$bad")
        EXPECT_ONCE+=("hiercoll: ERROR: coll_hiercoll_${p%%:*}=\"$bad\" is not an integer in .*; using ${p#*:}\$")
    done
    EXPECT=("t_colls: np 3: [0-9]+ checks, 0 failed")
    run "params-numeric-${bad:0:8}" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
        "${args[@]}" "$colls" --quick
done

# A bad decomposition criterion: one line, decomposition off, nothing lost
for crit in bogus block:0 list:0-1,3; do
    EXPECT=("t_comms: np 4: [0-9]+ checks, 0 failed")
    EXPECT_ONCE=("hiercoll: ERROR: coll_hiercoll_decomp_criterion=\"$crit\": .*; decomposition off")
    REJECT=("decomp comm MPI_COMM_WORLD" "MPI_COMM_WORLD: decomposition by")
    run "params-decomp-criterion-${crit//[:,]/_}" 120 "${MPI[@]}" -np 4 \
        --mca coll hiercoll,basic,libnbc --mca coll_hiercoll_decomp_criterion "$crit" \
        --mca coll_hiercoll_allreduce_algorithm decomp --mca coll_hiercoll_stats 1 \
        --mca coll_hiercoll_verbose 1 "$comms" 20
done

# ---------------------------------------------------------------------------
# Selection rules (coll_hiercoll_rules_file)
# ---------------------------------------------------------------------------
rdir=$testdir/rules
if [ "$list" = no ]; then
    mkdir -p "$rdir"
    cat >"$rdir/good" <<'RULES'
hiercoll-rules 1
# a rules file as contrib/hc_tune writes it
bcast np=2-4 bytes=0-99 fallback
bcast np=2-4 bytes=100- linear
reduce np=3 bytes=* binomial
allreduce np=* bytes=0-63 rhrd
allreduce np=* bytes=64- fallback:tuned
barrier np=* bytes=* fallback
end
RULES
    head -c 300 "$(command -v mpirun)" >"$rdir/garbage"
    grep -v '^end' "$rdir/good" >"$rdir/truncated"
    sed 's/^reduce /scatterx /' "$rdir/good" >"$rdir/unknown-collective"
    sed 's/ linear$/ pipelined/' "$rdir/good" >"$rdir/unknown-algorithm"
    sed 's/bytes=100- linear/bytes=50- linear/' "$rdir/good" >"$rdir/overlapping"
    : >"$rdir/empty"
fi
# A good file: verbose 2 names the rule of every call, auto's where none
# covers the call (allreduce on a non-commutative op: rhrd does not fit);
# (with verbose 2 every call enters hiercoll, to be named); verbose 1: barrier,
# passed on at every size, is left in the layer below's slot
EXPECT=("$OK" "bcast -> basic \(blocking, np 3\) by rule $rdir/good:3 np=2-4 bytes=0-99"
        "bcast = linear \(blocking, np 3\) by rule $rdir/good:4 np=2-4 bytes=100-"
        "reduce = binomial \(blocking, np 3\) by rule $rdir/good:5"
        "allreduce = rhrd \(blocking, np 3\) by rule $rdir/good:6"
        "allreduce = recursive_doubling \(blocking, np 3\) by auto"
        "ibcast = binomial \(nonblocking, np 3\) by auto"
        "barrier -> basic \(blocking, np 3\) by rule $rdir/good:8")
REJECT=("ERROR")
run "rules-file-good-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_rules_file "$rdir/good" --mca coll_hiercoll_verbose 2 "$colls" --quick
EXPECT=("$OK" "MPI_COMM_WORLD \(cid 0, np 3\).* barrier->basic\(rules: every size, not entered\)\|")
REJECT=("ERROR")
run "rules-file-not-entered-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_rules_file "$rdir/good" --mca coll_hiercoll_verbose 1 "$colls" --quick
# Bad files: one error line naming the problem, the built-in rules, nothing lost
for bad in garbage:"(not text|line 1: want the header)" truncated:"truncated: no \"end\" line" \
    unknown-collective:"line 5: unknown collective \"scatterx\"" \
    unknown-algorithm:"line 4: unknown algorithm \"pipelined\" of bcast" \
    overlapping:"line 4: overlaps line 3 \(bcast\)" empty:"empty" missing:"cannot open it"; do
    name=${bad%%:*}
    EXPECT=("t_comms: np 3: [0-9]+ checks, 0 failed")
    EXPECT_ONCE=("hiercoll: ERROR: coll_hiercoll_rules_file=\"$rdir/$name\": ${bad#*:}.*; using the built-in rules\$"
                 "hiercoll: ERROR: (coll_hiercoll_|/)" "hiercoll cannot read the selection rules named above")
    run "rules-file-$name" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
        --mca coll_hiercoll_rules_file "$rdir/$name" "$comms" 20
done

# The site file (coll_hiercoll_site_file; the Debian package's conffile
# /etc/openmpi/hiercoll-mca-params.conf): its values are the parameters'
# defaults, --mca still wins, a line that names no parameter is one error.
if [ "$list" = no ]; then
    cat >"$rdir/site.conf" <<'SITE'
# a site file
coll_hiercoll_allreduce_algorithm = rhrd   # a comment
coll_hiercoll_bcast_algorithm = binomial
coll_hiercoll_verbose = 1
coll_hiercoll_no_such_parameter = 1
SITE
fi
EXPECT=("t_comms: np 3: [0-9]+ checks, 0 failed" "MPI_COMM_WORLD \(cid 0, np 3\).* allreduce=rhrd"
        "MPI_COMM_WORLD \(cid 0, np 3\).* bcast=linear")
EXPECT_ONCE=("hiercoll: ERROR: $rdir/site.conf: line 5: coll_hiercoll_no_such_parameter is no parameter of hiercoll"
             "hiercoll: ERROR: (coll_hiercoll_|/)" "hiercoll ignores the lines above of its site file")
run "site-file-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_site_file "$rdir/site.conf" --mca coll_hiercoll_bcast_algorithm linear "$comms" 20
# the shared-memory level's parameters there too (they are registered
# after the others), booleans among them: "no" turns line demotion off,
# "maybe" is one error
if [ "$list" = no ]; then
    printf '%s\n' "coll_hiercoll_shm_demote = no" "coll_hiercoll_shm_oversubscribed = maybe" \
        "coll_hiercoll_shm_slots = 8" >"$rdir/site-bool.conf"
fi
EXPECT=("$OK" "MPI_COMM_WORLD: shm: 2 processes, .*\(8 slots, .*, lines not demoted")
EXPECT_ONCE=("hiercoll: ERROR: $rdir/site-bool.conf: coll_hiercoll_shm_oversubscribed = \"maybe\" is not true or false; ignored"
             "hiercoll: ERROR: (coll_hiercoll_|/)")
run "site-file-bool-np2" 120 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_site_file "$rdir/site-bool.conf" --mca coll_hiercoll_verbose 1 \
    --mca coll_hiercoll_allreduce_algorithm shm "$colls" --only allreduce --quick

# The fast path of repeated small blocking calls (t_fast): hiercoll's
# algorithms on every size (a rules file of no rules), forced ones through
# info keys, and the built-in rules over tuned (calls passed on and run
# interleaved)
fast=$testdir/mpi/t_fast
[ "$list" = no ] && printf 'hiercoll-rules 1\nend\n' >"$rdir/none"
EXPECT=("t_fast: np 3: [0-9]+ checks, 0 failed")
run "fast-hiercoll-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_rules_file "$rdir/none" "$fast" 300
EXPECT=("t_fast: np 5: [0-9]+ checks, 0 failed")
run "fast-forced-linear-np5" 300 "${MPI[@]}" -np 5 --mca coll hiercoll,basic,libnbc "$fast" 200 \
    --info hiercoll_bcast_algorithm=linear --info hiercoll_reduce_algorithm=linear \
    --info hiercoll_barrier_algorithm=linear --info hiercoll_allreduce_algorithm=rabenseifner
EXPECT=("t_fast: np 4: [0-9]+ checks, 0 failed")
run "fast-builtin-tuned-np4" 300 "${MPI[@]}" -np 4 --mca coll hiercoll,tuned,basic,libnbc \
    "$fast" 300
# ...with the shared-memory level chosen by auto at np 2 (a core each).  Its
# set-up runs the layer below, whose collectives may be hiercoll's own
# (basic's allgather is a gather and a bcast): the fast path must forget
# what it remembered then (it did not: rank 0 took a remembered binomial
# bcast while rank 1, with a derived type, went to the level, and both hung)
EXPECT=("t_fast: np 2: [0-9]+ checks, 0 failed" ": shm: 2 processes, region of")
run "fast-shm-auto-np2" 120 "$mpirun" "${OVERSUBSCRIBE[@]}" --mca btl self,$SM_BTL --mca pml ob1 \
    --mca mpi_yield_when_idle 0 -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_verbose 1 "$fast" 300
# lean blocking calls of the level (coll_hiercoll_shm_lean): a barrier and
# short bcasts, reduces and allreduces go straight at the lines where the
# channel is idle
# (--no-inflight), and hand their waits to the engine (np 3, oversubscribed,
# requests in flight); off by MCA, with a bad info key (one line): the same
SHM_FAST=(--info hiercoll_bcast_algorithm=shm --info hiercoll_barrier_algorithm=shm
          --info hiercoll_allreduce_algorithm=shm --info hiercoll_reduce_algorithm=shm)
EXPECT=("t_fast: np 2: [0-9]+ checks, 0 failed")
run "fast-shm-lean-np2" 300 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc "$fast" 300 \
    --no-inflight "${SHM_FAST[@]}"
EXPECT=("t_fast: np 3: [0-9]+ checks, 0 failed")
run "fast-shm-lean-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,basic,libnbc "$fast" 300 \
    "${SHM_FAST[@]}"
EXPECT=("t_fast: np 2: [0-9]+ checks, 0 failed")
EXPECT_ONCE=('hiercoll: ERROR: info key hiercoll_shm_lean="maybe" on .* is neither true nor false; keeping the MCA choice')
run "fast-shm-lean-off-np2" 300 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_shm_lean 0 "$fast" 300 --no-inflight "${SHM_FAST[@]}" \
    --info hiercoll_shm_lean=maybe
# ...and where the engine would not use the flag line for the call, lean
# calls step aside: single copy from 8 bytes (a bcast's readers and a
# reduce's root read the others' buffers), groups of 2 (a reduce in two
# levels)
EXPECT=("t_fast: np 2: [0-9]+ checks, 0 failed")
run "fast-shm-lean-cma-np2" 120 "${MPI[@]}" -np 2 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_shm_cma_min 8 "$fast" 300 --no-inflight "${SHM_FAST[@]}"
EXPECT=("t_fast: np 5: [0-9]+ checks, 0 failed")
run "fast-shm-lean-groups2-np5" 120 "${MPI[@]}" -np 5 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_shm_group_size 2 "$fast" 200 --no-inflight "${SHM_FAST[@]}"

# Hand-back: a blocking collective passed on N times in a row goes back to
# the layer below (its slot then calls it directly); results stay
# exact through the change, on many communicators, freed in flight too.
EXPECT=("t_fast: np 4: [0-9]+ checks, 0 failed"
        "hiercoll: .*: (reduce|allreduce) goes back to tuned after 3 blocking calls")
run "handback-fast-tuned-np4" 300 "${MPI[@]}" -np 4 --mca coll hiercoll,tuned,basic,libnbc \
    --mca coll_hiercoll_hand_back_after 3 --mca coll_hiercoll_verbose 1 "$fast" 300
EXPECT=("t_colls: np 5: [0-9]+ checks, 0 failed" "goes back to basic after 2 blocking calls")
run "handback-colls-basic-np5" 300 "${MPI[@]}" -np 5 --mca coll hiercoll,basic,libnbc \
    --mca coll_hiercoll_hand_back_after 2 --mca coll_hiercoll_verbose 1 "$colls" --quick
EXPECT=("t_comms: np 4: [0-9]+ checks, 0 failed" "goes back to tuned after 1 blocking calls")
run "handback-comms-tuned-np4" 300 "${MPI[@]}" -np 4 --mca coll hiercoll,tuned,basic,libnbc \
    --mca coll_hiercoll_hand_back_after 1 --mca coll_hiercoll_verbose 1 "$comms" 20
# ...but not where the shared-memory level may take other sizes: at np 2
# (a core each) short reduces pass on (coll_hiercoll_shm_reduce_min), and
# the longer ones after them still set up and run shm
EXPECT=("t_colls: np 2: [0-9]+ checks, 0 failed" ": shm: 2 processes, region of")
REJECT=("reduce goes back to")
run "handback-not-shm-reduce-np2" 300 "$mpirun" "${OVERSUBSCRIBE[@]}" --mca btl self,$SM_BTL \
    --mca pml ob1 --mca mpi_yield_when_idle 0 -np 2 --mca coll hiercoll,tuned,basic,libnbc \
    --mca coll_hiercoll_hand_back_after 2 --mca coll_hiercoll_verbose 1 "$colls" --only reduce \
    --quick
# never (0): no collective goes back
EXPECT=("t_fast: np 3: [0-9]+ checks, 0 failed")
REJECT=("goes back to")
run "handback-never-np3" 300 "${MPI[@]}" -np 3 --mca coll hiercoll,tuned,basic,libnbc \
    --mca coll_hiercoll_hand_back_after 0 --mca coll_hiercoll_verbose 1 "$fast" 100

# priority -1 disables hiercoll: the job runs on the other components
EXPECT=("t_comms: np 2: [0-9]+ checks, 0 failed")
REJECT=("hiercoll: stats")
run "params-disabled" 120 "${MPI[@]}" -np 2 --mca coll hiercoll,tuned,basic,libnbc,self \
    --mca coll_hiercoll_priority -1 --mca coll_hiercoll_stats 1 "$comms" 20 --no-free-in-flight

# verbose 1: per communicator a header line, then one line per collective
# naming its choice in each mode (22 collectives)
SC_AUTO='shortcut\(absorbing,<=[0-9]+B,engaged>=[0-9]+%\)'
W='hiercoll: MPI_COMM_WORLD \(cid 0, np 7\)'
EXPECT=("t_comms: np 7: [0-9]+ checks, 0 failed"
        "$W  allreduce(\(rules:[^)]*\))?=($SC_AUTO\|)?recursive_doubling<[0-9]+B,rhrd([ |]|$)"
        "$W  barrier=dissemination$" "$W  bcast(\(rules:[^)]*\))?=binomial"
        "$W  reduce(\(rules:[^)]*\))?=($SC_AUTO\|)?binomial<[0-9]+B,rhrd([ |]|$)"
        "$W  allgather->basic\(rules: every size, not entered\)\|=linear\|=linear$")
EXPECT_ONCE=("$W \[=alg: hiercoll runs alg, ->comp: passed to comp; blocking\|nonblocking\|persistent\]:$"
             "$W  neighbor_alltoallw[-=]" "$W  scan[-=]")
REJECT=("$W .{400}")
run "verbose-1" 120 "${MPI[@]}" -np 7 --mca coll hiercoll,basic --mca coll_hiercoll_verbose 1 \
    "$comms" 2
# The README's demo (contrib/run-demo.sh: one process per core): results
# checked, the table of what runs, the side-by-side against the stack
# without hiercoll; on one screen (at most 40 lines of at most 100 columns)
srcdir=$(cd "$(dirname "$0")/.." && pwd)
EXPECT=("^hiercoll demo on [0-9]+ processes$" "^all results right$" "^collective +blocking \| nonblocking and persistent$"
        "^allreduce +8 B +[0-9.]+ us +[0-9.]+ us +[0-9.]+x$" "^barrier +0 B " "^reduce +1 MiB "
        "^demo: [0-9]+ lines, at most [0-9]+ columns: on one screen$")
REJECT=("WRONG|FAILED|RESULT DIFFERS")
run "demo-one-screen" 300 bash -c 'out=$("$0" "$1") || { echo "$out"; exit 1; }; echo "$out"
    l=$(echo "$out" | wc -l); c=$(echo "$out" | awk "{ n = length(\$0) > n ? length(\$0) : n } END { print n }")
    echo "demo: $l lines, at most $c columns$([ "$l" -le 40 ] && [ "$c" -le 100 ] && echo ": on one screen")"' \
    "$srcdir/contrib/run-demo.sh" "$top_builddir"
# The documentation against the build: the parameters reference in step
# with the component (contrib/hc_params_doc.sh; written with 4.1's ompi_info,
# so checked there), and every line of the README's and docs' blocks tagged
# "sh checked" runs (contrib/check-docs.sh)
case $ompi_series in
5.*) selected docs-parameters && [ "$list" = no ] &&
         echo "SKIP: docs-parameters (docs/parameters.md is written with Open MPI 4.1's ompi_info)" ;;
*)
    EXPECT=("check-docs: docs/parameters.md is in step with the component")
    run "docs-parameters" 120 "$srcdir/contrib/check-docs.sh" params "$srcdir" "$ompi_info"
    ;;
esac
EXPECT=("check-docs: the README's two commands and .ci/run are in step")
run "docs-ci-in-step" 60 "$srcdir/contrib/check-docs.sh" ci "$srcdir"
EXPECT=("check-docs: [1-9][0-9]* commands, 0 failed")
run "docs-commands" 600 "$srcdir/contrib/check-docs.sh" commands "$srcdir" "$top_builddir"
# ... the table of what runs (contrib/hc_whatruns.sh; written with 4.1's
# stack below, so checked there), the selection order that docs/using.md
# lists against mca_coll_hiercoll_select's calls, and every topic of
# help-coll-hiercoll.txt used and explained in docs/troubleshooting.md
case $ompi_series in
5.* | 6.*) selected docs-what-runs && [ "$list" = no ] &&
         echo "SKIP: docs-what-runs (docs/what-runs.md is written with Open MPI 4.1's stack)" ;;
*)
    EXPECT=("check-docs: docs/what-runs.md is in step with the component")
    run "docs-what-runs" 120 "$srcdir/contrib/check-docs.sh" what-runs "$srcdir" "$top_builddir"
    ;;
esac
EXPECT=("check-docs: docs/using.md gives the selection order of coll_hiercoll_select.c")
run "docs-selection" 60 "$srcdir/contrib/check-docs.sh" selection "$srcdir"
EXPECT=("check-docs: [1-9][0-9]* topics of help-coll-hiercoll.txt, each used and explained")
run "docs-help" 60 "$srcdir/contrib/check-docs.sh" help "$srcdir"
# ... and sentences a reader follows in one breath: none over 60 words,
# no paragraph or list item over 12 lines (tables and code aside), in the
# README, HACKING (at most 600 lines: a map), docs/ and design/
EXPECT=("check-docs: every sentence at most 60 words, every paragraph at most 12 lines")
run "docs-style" 60 "$srcdir/contrib/check-docs.sh" style "$srcdir"
# verbose 2: one line per call
EXPECT=("t_comms: np 3: [0-9]+ checks, 0 failed"
        "hiercoll: .*: allreduce = recursive_doubling \(blocking, np 3\) by auto"
        "ibcast = binomial \(nonblocking, np 3\)"
        "barrier_init = dissemination \(persistent, np 3\)")
run "verbose-2" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic --mca coll_hiercoll_verbose 2 \
    "$comms" 1

# A libmpi whose internal structures differ: one warning, hiercoll
# declines, the collectives still run (on the other components).
EXPECT=("$OK")
EXPECT_ONCE=("hiercoll: WARNING: the running Open MPI's ompi_communicator_t is"
             "hiercoll was built against another Open MPI")
REJECT=("hiercoll: stats")
run "abi-mismatch-declines" 300 "${MPI[@]}" -np 3 -x HIERCOLL_TEST_ABI_MISMATCH=1 \
    --mca coll hiercoll,tuned,basic,libnbc,self --mca coll_hiercoll_stats 1 "$colls" --quick
# 5.0 and 6.0: the mutex, whose lock type the threads implementation
# headers decide (compat/ompi5's stand-ins where Debian 13 omits them).
if [ "$ompi_series" = 5.0 ] || [ "$ompi_series" = 6.0 ]; then
    EXPECT=("$OK")
    EXPECT_ONCE=("hiercoll: WARNING: the running Open MPI's opal_mutex_t is")
    REJECT=("hiercoll: stats")
    run "abi-mismatch-mutex" 120 "${MPI[@]}" -np 3 -x HIERCOLL_TEST_ABI_MISMATCH=opal_mutex_t \
        --mca coll hiercoll,tuned,basic,libnbc,self --mca coll_hiercoll_stats 1 "$colls" --quick \
        --only allreduce,bcast,barrier
fi
# Large counts (t_large; the MPI 4.0 _c bindings, Open MPI 6.0): an
# allreduce and a reduce of more than INT_MAX elements run as hiercoll's
# own reductions in pieces, each piece through hiercoll's selection like
# any call of its size (verbose 2: a line per call on rank 0; 6.0.0a1,
# np 2: the first allreduce piece rhrd, the 256-byte rest and the reduce
# pieces to tuned by the built-in rules): 3 allreduce lines (the small
# allreduce and two pieces) and 4 reduce lines (two pieces and the test's
# two counters); what hiercoll cannot take as int (a bcast of more than
# INT_MAX bytes, 64-bit count arrays) goes to the layer below; each
# checked against values computed serially.  About 2.2 GB per rank: where
# the machine has less memory, only the small part runs (and says so).
large=$testdir/mpi/t_large
if [ "$ompi_series" = 6.0 ]; then
    EXPECT=("t_large: np 2: [0-9]+ checks, 0 failures"
        "per-call lines: allreduce 3, reduce 4|t_large: large part not run")
    run "large-counts-np2" 900 bash -c 'out=$("$@" 2>&1); rc=$?; echo "$out"
        c() { echo "$out" | grep -cE "hiercoll: MPI_COMM_WORLD: $1 [-=]"; }
        echo "per-call lines: allreduce $(c allreduce), reduce $(c reduce)"; exit $rc' \
        _ "${MPI[@]}" -np 2 --mca coll hiercoll,tuned,basic,libnbc,self \
        --mca coll_hiercoll_verbose 2 "$large"
    EXPECT=("t_large: np 3: [0-9]+ checks, 0 failures")
    run "large-counts-small-np3" 120 "${MPI[@]}" -np 3 --mca coll hiercoll,basic "$large" --small
else
    EXPECT=("t_large: skipped")
    run "large-counts-skipped" 60 "${MPI[@]}" -np 2 "$large"
fi
# 6.0: the selection's list item (the coll framework's own layout:
# its per-communicator table is no class).
if [ "$ompi_series" = 6.0 ]; then
    EXPECT=("$OK")
    EXPECT_ONCE=("hiercoll: WARNING: the running Open MPI's mca_coll_base_avail_coll_t is")
    REJECT=("hiercoll: stats")
    run "abi-mismatch-avail" 120 "${MPI[@]}" -np 3 -x HIERCOLL_TEST_ABI_MISMATCH=mca_coll_base_avail_coll_t \
        --mca coll hiercoll,tuned,basic,libnbc,self --mca coll_hiercoll_stats 1 "$colls" --quick \
        --only allreduce,bcast,barrier
fi

# ---------------------------------------------------------------------------
# The offload's ofi backend (libfabric FI_TRIGGER deferred work), when built
# and a provider offers triggers (sockets here): the provider fires what the
# backend relies on; allreduce, reduce, bcast and barrier exact in every
# mode; without a provider that has triggers (FI_PROVIDER=tcp) one line per
# communicator and the next backend.  Then offloaded bcast and barrier on
# the other backends.
# ---------------------------------------------------------------------------
OL=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_allreduce_algorithm offload
    --mca coll_hiercoll_reduce_algorithm offload --mca coll_hiercoll_bcast_algorithm offload
    --mca coll_hiercoll_barrier_algorithm offload --mca coll_hiercoll_verbose 1)
if [ -x "$testdir/ofi/t_fi_trigger" ] && fi_info -c FI_TRIGGER >/dev/null 2>&1; then
    EXPECT=("t_fi_trigger: OK")
    run "ofi-fi-trigger" 120 "$testdir/ofi/t_fi_trigger"
    for np in 2 3 5; do
        EXPECT=("$OK" "MPI_COMM_WORLD: offload on ofi \(provider sockets"
                "MPI_COMM_WORLD \(cid 0, np $np\).* barrier=offload"
                "offload: ofi \(sockets\): [1-9][0-9]* ports armed")
        REJECT=("triggered operation failed")
        run "ofi-colls-np$np" 600 "${MPI[@]}" -np $np "${OL[@]}" \
            --mca coll_hiercoll_offload_backend ofi "$colls" --quick \
            --only allreduce,reduce,barrier
    done
    EXPECT=("t_offload: np 3: [0-9]+ checks, 0 failed" "offload on ofi \(provider sockets"
            "offload: ofi \(sockets\): [1-9][0-9]* ports armed")
    run "ofi-offload-np3" 600 "${MPI[@]}" -np 3 "${OL[@]}" --mca coll_hiercoll_offload_backend ofi \
        "$testdir/mpi/t_offload"
    # a provider without triggers: one line per communicator, the next backend
    EXPECT=("t_colls: np 3: [0-9]+ checks, 0 failed")
    EXPECT_ONCE=("MPI_COMM_WORLD: offload: no ofi backend \(no libfabric provider offers FI_TRIGGER")
    REJECT=("offload on ofi" "ports armed")
    run "ofi-fallback-tcp-np3" 300 "${MPI[@]}" -np 3 -x FI_PROVIDER=tcp "${OL[@]}" \
        --mca coll_hiercoll_offload_backend ofi "$colls" --quick --only allreduce
fi
for be in progress ucx; do
    EXPECT=("$OK" "MPI_COMM_WORLD \(cid 0, np 5\).* barrier=offload"
            "stats comm MPI_COMM_WORLD .* barrier:[1-9]")
    run "offload-barrier-$be-np5" 600 "${MPI[@]}" -np 5 "${OL[@]}" \
        --mca coll_hiercoll_offload_backend $be --mca coll_hiercoll_stats 1 "$colls" --quick \
        --only barrier
done
# offloaded bcast (predefined types: t_colls mixes datatypes of one signature
# across ranks, which the offload does not pack yet) on every backend,
# checked against tuned by the benchmark before it times anything
bench=$top_builddir/contrib/hc_ol_bench
if [ -x "$bench" ]; then
    EXPECT=("bcast .* offload-ofi " "bcast .* offload-ucx " "bcast .* offload-progress "
            "barrier .* offload-progress ")
    REJECT=("differs from tuned")
    run "offload-bcast-bench-np4" 300 "${MPI[@]}" -np 4 --mca coll hiercoll,tuned,basic,libnbc \
        "$bench" --iters 20 --trials 1 --colls bcast,barrier
fi
# contrib/hc_bench, how users measure, over its option combinations (every
# --coll, --sizes lists, --report, --against, ...: test/hc-bench-options.sh)
# briefly, under glibc's heap checks
hcb=$top_builddir/contrib/hc_bench
if [ -x "$hcb" ] || [ "$list" = yes ]; then
    EXPECT=("hc-bench-options: [0-9]+ runs, 0 failed")
    run "hc-bench-options" 900 "$(dirname "$(readlink -f "$0")")/hc-bench-options.sh" "$hcb" \
        "$logdir/hc-bench-options" "${MPI[@]}"
fi
# contrib/hc_cost (no MPI): the planners' subcommands as before, and shm,
# the node level's model (its properties: unit-check_cost_shm): the levels
# it picks, every row of its CSV, a bad option refused
hcc=$top_builddir/contrib/hc_cost
if [ -x "$hcc" ] || [ "$list" = yes ]; then
    EXPECT=("^bcast-binomial +4 " "^allreduce-recursive-doubling +4 " "^barrier-dissemination +4 ")
    run "hc-cost-basic" 60 "$hcc" basic --n 4
    EXPECT=("n-level at 128 ranks: l3\(16x8\),numa\(2x8\),node\(1x2\)"
            "^allreduce +8 +128 +[0-9.]+ +[0-9.]+ +[0-9.]+ " "^ +256 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$")
    run "hc-cost-shm" 60 "$hcc" shm
    # 10 (coll, size) x 3 designs at 4 counts (EPYC) and 3 (the Xeon's 224
    # threads hold no 256 ranks), then 3 x 5 memory rows
    EXPECT=("^225$")
    run "hc-cost-shm-csv" 60 bash -c '"$1" shm --csv | grep -cE "^(epyc|xeon|memory)"' _ "$hcc"
    EXPECT=("unknown option --bogus")
    run "hc-cost-shm-bad-option" 60 bash -c '! "$1" shm --bogus' _ "$hcc"
    # decomp: every rank's multi-leader, one-leader and flat plans of the
    # five collectives in the simulator, every byte checked, on 8 nodes x 4
    # and 3 x 5 (the 32,768-rank runs are the design note's); multi-leader
    # crosses with the bound, a rank at most its share (allreduce 8 x 4:
    # 2(N-1)/N / 4 = 0.4375 L); the model's crossover table
    EXPECT=("^8x4 +allreduce +multi k=4 [a-z]+ +[0-9]+ +[0-9]+ +1\.9375 +0\.4375 +14\.0 +14 .* yes$"
            "^3x5 +reduce_scatter +multi k=5 chain .* 2\.0 +2 .* yes$"
            "^8x4 +bcast +multi k=4 chain +[0-9]+ +[0-9]+ +[0-9.]+ +0\.2500 +7\.0 +7 .* yes$")
    REJECT=(" NO$" "not exact")
    run "hc-cost-decomp-check" 60 "$hcc" decomp --check --shapes 8x4,3x5 --bytes 65536
    EXPECT=("smallest vector .* more carriers than one leader pay" "^ +128 +[0-9.]+K/[0-9.]+K k128 ")
    run "hc-cost-decomp-crossover" 60 "$hcc" decomp --crossover
fi
# contrib/hc_scale_check.sh, the many-core check, here at np 2:
# its steps listed (--dry-run), a short run (t_shm and hc_bench --report
# up to 4 KiB; the CSV written), a budget too short for any step (each
# skipped, said, none run) and a build without the component (refused)
scale=$(dirname "$(readlink -f "$0")")/../contrib/hc_scale_check.sh
if [ -x "$hcb" ] || [ "$list" = yes ]; then
    EXPECT=("cores usable here: [0-9]+" "STEP: shm-colls-np2 " "STEP: shm-t_shm-np2 " "STEP: bench-np2 "
            "dry run: nothing run")
    REJECT=("STEP: shm-groups")
    run "scale-check-dry-run" 60 "$scale" --build "$top_builddir" --mpirun "$mpirun" --np 2 \
        --bench-nps 2 --allow-oversubscribe --out "$logdir/scale-dry" --dry-run
    EXPECT=("PASS: shm-t_shm-np2 " "PASS: shm-stress-np2 " "PASS: bench-np2 "
            "^3 passed, 0 failed$" "CSV: .*/hc_scale_bench.csv" "(PNG: |no PNG: )")
    rm -rf "$logdir/scale-np2"
    run "scale-check-np2" 300 env OUT="$logdir/scale-np2" \
        bash -c '"$@" && grep -q "^allreduce,2,4096,auto," "$OUT/hc_scale_bench.csv"' \
        _ "$scale" --build "$top_builddir" --mpirun "$mpirun" --np 2 --bench-nps 2 \
        --allow-oversubscribe --max 4K --only "shm-t_shm|shm-stress|bench" --time-budget 280 \
        --stress-seconds 5
    EXPECT=("SKIP: shm-colls-np2 +\(" "SKIP: bench-np2 " "^0 passed, 0 failed, [0-9]+ skipped$")
    REJECT=("PASS: |FAIL: ")
    run "scale-check-budget-skips" 60 "$scale" --build "$top_builddir" --mpirun "$mpirun" --np 2 \
        --bench-nps 2 --allow-oversubscribe --out "$logdir/scale-budget" --time-budget 5
    EXPECT=("mca_coll_hiercoll.so is missing")
    run "scale-check-no-component" 60 bash -c '! "$@"' _ "$scale" --build "$testdir/mpi" \
        --mpirun "$mpirun" --np 2 --out "$logdir/scale-none"
fi
# Nonblocking calls on a communicator that no blocking call has set the
# shared-memory level up on (hc_bench's timed one, np 2, a core each): where
# hiercoll's PML plans are not faster than libnbc (barrier, bcast, iallreduce
# and ireduce below 64 KiB) they pass on; the others stay
if [ -x "$hcb" ] || [ "$list" = yes ]; then
    for spec in barrier:0:-: bcast:8:-: allreduce:8,2048,32768:-: allreduce:65536,131072::- \
                reduce:8,512,16384:-: reduce:65536::-; do
        IFS=: read -r c sizes pass stay <<<"$spec"
        EXPECT=("DUP FROM [0-9]+: i$c (->|=) ")
        [ -n "$pass" ] && EXPECT+=("DUP FROM [0-9]+: i$c -> libnbc \(nonblocking, np 2\) by auto") \
            && REJECT=("DUP FROM [0-9]+: i$c = ")
        [ -n "$stay" ] && REJECT=("DUP FROM [0-9]+: i$c -> ")
        run "shm-nb-before-setup-$c-${sizes%%,*}-np2" 120 "$mpirun" "${OVERSUBSCRIBE[@]}" \
            --mca btl self,$SM_BTL --mca pml ob1 --mca mpi_yield_when_idle 0 -np 2 \
            --mca coll hiercoll,tuned,basic,libnbc --mca coll_hiercoll_verbose 2 "$hcb" \
            --coll $c --nonblocking --against libnbc --sizes $sizes --trials 1 --iters 3
    done
fi
# contrib/hc_overlap.sh (hc_bench --overlap, decomposed iallreduce against
# libnbc's), briefly: one line per size with both overlaps
if [ -x "$hcb" ] || [ "$list" = yes ]; then
    num="-?[0-9.]+"
    EXPECT=("^ +8 \| +$num +$num +$num \| +$num +$num +$num$" "^ +1024 \| +$num")
    run "hc-overlap-block2-np4" 300 "$(dirname "$(readlink -f "$0")")/../contrib/hc_overlap.sh" \
        -n 4 -c block:2 -s 8,1K -t 1 -i 20 -b "$hcb" -l "$mpirun" \
        -m "--mca btl self,$SM_BTL --mca mpi_yield_when_idle 1"
fi
EXPECT=("parameter \"coll_hiercoll_offload_ofi_max_triggered\""
        "informational \"coll_hiercoll_offload_ofi_built\" \(current value: \"(yes|no)\"")
run "ompi-info-ofi-built" 60 "$ompi_info" --param coll hiercoll --level 9

# ---------------------------------------------------------------------------
# The offload's UCX and ofi transports are plugins loaded on first use.
# t_maps reads /proc/self/maps after MPI_Init and after an
# allreduce: with hiercoll loaded and the offload unused (also with an
# offload backend set but no offloaded algorithm) no process maps
# libfabric, UCX or PSM beyond what the stack without hiercoll maps (the
# control: on Debian 12 nothing); with the offload forced, the
# transport's plugin and its library are there.  A plugin missing on ONE
# rank, or stale: every rank takes the same next transport.
# ---------------------------------------------------------------------------
maps=$testdir/mpi/t_maps
# The stack without hiercoll: what it maps anyway is not hiercoll's doing
# (Debian 12's 4.1: none; Debian 13's 5.0 links libfabric, UCX and PSM into
# libopen-pal, so there only the plugins themselves are checked).
EXPECT=("t_maps: np 2: control: 0 failed" "t_maps: baseline: ")
run "lazylibs-control-np2" 120 "${MPI[@]}" -np 2 --mca coll ^hiercoll "$maps" control
baseline=$(sed -n 's/^t_maps: baseline: //p' "$logdir/lazylibs-control-np2.log" 2>/dev/null)
[ "$baseline" = none ] && baseline=""
if [ -n "$baseline" ] && [ "$list" = no ] && selected lazylibs-control-np2; then
    echo "note: the stack without hiercoll maps $baseline; only the rest is checked"
fi
EXPECT=("t_maps: np 2: none: 0 failed")
run "lazylibs-unused-np2" 120 env T_MAPS_BASELINE="$baseline" "${MPI[@]}" -np 2 "$maps" none
EXPECT=("t_maps: np 3: none: 0 failed")
run "lazylibs-backend-set-unused-np3" 120 env T_MAPS_BASELINE="$baseline" "${MPI[@]}" -np 3 \
    --mca coll_hiercoll_verbose 2 --mca coll_hiercoll_offload_backend ofi "$maps" none
# One rank ($0 of this wrapper) without plugins (a directory that has none);
# not mpirun's MPMD syntax, which PRRTE 5.0.7's prterun crashes on.
NO_PLUGINS_ON=(sh -c '[ "${OMPI_COMM_WORLD_RANK:-}" = "$0" ] &&
    export OMPI_MCA_coll_hiercoll_offload_plugin_dir=/nonexistent; exec "$@"')
# The plugins reference nothing of the component (only the services it
# passes them, and Open MPI's own symbols): nm lists their undefined ones.
plugins=("$stage"/hiercoll/hiercoll_*.so)
if [ -f "${plugins[0]}" ] && command -v nm >/dev/null; then
    EXPECT=(" U (opal|ompi)_")
    REJECT=(" U (mca_coll_hiercoll|hct_|hc_)")
    run "lazylibs-plugins-self-contained" 60 nm -D --undefined-only "${plugins[@]}"
fi
OLX=(--mca coll hiercoll,basic,libnbc --mca coll_hiercoll_allreduce_algorithm offload
     --mca coll_hiercoll_reduce_algorithm offload --mca coll_hiercoll_verbose 1)
if [ -f "$stage/hiercoll/hiercoll_ucx.so" ]; then
    EXPECT=("t_maps: np 2: ucx: 0 failed" "MPI_COMM_WORLD: offload on the UCX agent")
    run "lazylibs-ucx-loaded-np2" 120 "${MPI[@]}" -np 2 "${OLX[@]}" \
        --mca coll_hiercoll_offload_backend ucx "$maps" ucx
    EXPECT=("$OL_OK" "MPI_COMM_WORLD: offload: the ucx transport did not load on rank 0: "
            "MPI_COMM_WORLD: offload: UCX agent unavailable, using the progress transport")
    REJECT=("offload on the UCX agent")
    run "lazylibs-ucx-missing-rank0-np3" 300 "${MPI[@]}" -np 3 "${OLX[@]}" \
        --mca coll_hiercoll_offload_backend ucx "${NO_PLUGINS_ON[@]}" 0 "$offload"
    EXPECT=("$OL_OK" "MPI_COMM_WORLD: offload: the ucx transport did not load on every rank"
            "MPI_COMM_WORLD: offload: UCX agent unavailable, using the progress transport")
    REJECT=("offload on the UCX agent")
    run "lazylibs-ucx-missing-rank2-np3" 300 "${MPI[@]}" -np 3 "${OLX[@]}" \
        --mca coll_hiercoll_offload_backend ucx "${NO_PLUGINS_ON[@]}" 2 "$offload"
    # a stale plugin (another ABI): refused with one line, the next transport
    stale=$testdir/_stale_plugin
    mkdir -p "$stale"
    printf 'struct t { unsigned abi, size; const char *name; };\n%s\n' \
        'struct t hiercoll_offload_transport = {999, 16, "ucx"};' >"$stale/stale.c"
    if ${CC:-cc} -shared -fPIC -o "$stale/hiercoll_ucx.so" "$stale/stale.c" 2>/dev/null; then
        EXPECT=("$OL_OK" "is a stale plugin \(ABI 999, table of 16 bytes; this component wants ABI"
                "UCX agent unavailable, using the progress transport")
        REJECT=("offload on the UCX agent")
        run "lazylibs-ucx-stale-np2" 300 "${MPI[@]}" -np 2 "${OLX[@]}" \
            --mca coll_hiercoll_offload_backend ucx --mca coll_hiercoll_offload_plugin_dir "$stale" \
            "$offload"
    fi
fi
if [ -f "$stage/hiercoll/hiercoll_ofi.so" ]; then
    EXPECT=("t_maps: np 2: ofi: 0 failed")
    run "lazylibs-ofi-loaded-np2" 120 "${MPI[@]}" -np 2 "${OLX[@]}" \
        --mca coll_hiercoll_offload_backend ofi "$maps" ofi
    EXPECT=("$OL_OK" "MPI_COMM_WORLD: offload: the ofi transport did not load on rank 0: ")
    REJECT=("offload on ofi")
    run "lazylibs-ofi-missing-rank0-np3" 300 "${MPI[@]}" -np 3 "${OLX[@]}" \
        --mca coll_hiercoll_offload_backend ofi "${NO_PLUGINS_ON[@]}" 0 "$offload"
fi
# ompi_info: the transports built (level 3); whether each loads, found out
# by loading it, only at level 9
built_re="(ucx,ofi|ucx|ofi|none)"
EXPECT=("informational \"coll_hiercoll_offload_transports_built\" \(current value: \"$built_re\"")
REJECT=("offload_transports_loadable\" \(current value")
run "ompi-info-transports-level3" 60 "$ompi_info" --param coll hiercoll --level 3
EXPECT=("coll_hiercoll_offload_transports_loadable\" \(current value: \"ucx: (loadable|NOT loadable|not built).*ofi: (loadable|NOT loadable|not built)")
[ -f "$stage/hiercoll/hiercoll_ucx.so" ] && EXPECT+=("ucx: loadable \($stage/hiercoll/hiercoll_ucx.so\)")
run "ompi-info-transports-level9" 60 "$ompi_info" --param coll hiercoll --level 9

# ompi_info lists the component and every parameter, with descriptions
EXPECT=("MCA coll: hiercoll \\(MCA v2.1.0, API v$COLL_API, Component v")
run "ompi-info-lists-component" 60 "$ompi_info"
EXPECT=('parameter "coll_hiercoll_priority"' 'parameter "coll_hiercoll_verbose"'
        'parameter "coll_hiercoll_stats"' 'parameter "coll_hiercoll_allreduce_algorithm"'
        'parameter "coll_hiercoll_scatterv_algorithm"' 'parameter "coll_hiercoll_gatherv_tree_min"'
        'parameter "coll_hiercoll_neighbor_alltoallw_algorithm"'
        'fills every collective slot but reduce_local'
        'Algorithm of bcast and its nonblocking and persistent forms')
run "ompi-info-parameters" 60 "$ompi_info" --param coll hiercoll --level 9

# ---------------------------------------------------------------------------
# Reductions of datatypes whose true lower bound is not 0 (t_truelb), under
# glibc's heap checks: Open MPI's own tuned ring allreduce and libnbc's
# ireduce write past their scratch for them, and the job without hiercoll
# aborts at the scratch's free; hiercoll keeps those calls from them
# (coll_hiercoll_below.c), also where tuned is told to use its ring and
# where its rules hand every other allreduce to tuned (np 4)
# ---------------------------------------------------------------------------
truelb=$testdir/mpi/t_truelb
malloc_debug=
for d in /lib/*/libc_malloc_debug.so.0 /usr/lib/*/libc_malloc_debug.so.0; do
    [ -e "$d" ] && malloc_debug=$d && break
done
if [ -n "$malloc_debug" ] || [ "$list" = yes ]; then
    HEAP=(env MALLOC_CHECK_=3 MALLOC_PERTURB_=165 LD_PRELOAD="$malloc_debug")
    TRUELB_OK='t_truelb: np [0-9]+: [0-9]+ checks, 0 failed'
    # (Open MPI's own SIGABRT handler, run in a corrupt heap, can hang the
    # aborting process: signal 7 only, so that glibc's abort ends it.  On
    # 6.0 a handler still takes SIGABRT and hangs after its first line: the
    # stack alone's corruption is shown on 4.1 and 5.0)
    case "${ompi_series:-4.1}" in
    6.*)
        for c in allreduce-np2 ireduce-np3; do
            selected "truelb-stack-alone-corrupts-$c" && [ "$list" = no ] &&
                echo "SKIP: truelb-stack-alone-corrupts-$c (Open MPI 6.0's abort handler hangs in the corrupt heap)"
        done
        ;;
    *)
        EXPECT=("free\(\)")
        run "truelb-stack-alone-corrupts-allreduce-np2" 120 bash -c '! "$@"' - "${MPI[@]}" -np 2 \
            --mca coll ^hiercoll --mca opal_signal 7 "${HEAP[@]}" "$truelb" --only allreduce
        EXPECT=("free\(\)")
        run "truelb-stack-alone-corrupts-ireduce-np3" 120 bash -c '! "$@"' - "${MPI[@]}" -np 3 \
            --mca coll ^hiercoll --mca opal_signal 7 "${HEAP[@]}" "$truelb" --only reduce
        ;;
    esac
    for np in 2 3; do
        EXPECT=("$TRUELB_OK")
        REJECT=("free\(\)|signal")
        run "truelb-hiercoll-np$np" 120 "${MPI[@]}" -np $np "${HEAP[@]}" "$truelb"
    done
    # ... and where the shared-memory level, not yet set up, would pass a
    # nonblocking reduce straight to libnbc
    EXPECT=("$TRUELB_OK")
    REJECT=("free\\(\\)|signal")
    run "truelb-hiercoll-shm-deferred-np3" 120 "${MPI[@]}" -np 3 --mca coll_hiercoll_shm_oversubscribed 1 \
        --mca coll_hiercoll_shm_min_calls 0 "${HEAP[@]}" "$truelb" --only reduce
    EXPECT=("$TRUELB_OK")
    REJECT=("free\(\)|signal")
    run "truelb-hiercoll-tuned-ring-np4" 120 "${MPI[@]}" -np 4 --mca coll_tuned_use_dynamic_rules 1 \
        --mca coll_tuned_allreduce_algorithm 4 "${HEAP[@]}" "$truelb" --only allreduce
else
    echo "SKIP: truelb-* (no libc_malloc_debug.so.0 for glibc's heap checks)"
fi

# ---------------------------------------------------------------------------
# The differential fuzzer (contrib/hc_fuzz): cases drawn from
# FIXED run seeds (and one random seed, printed), each call run by hiercoll
# (auto or an algorithm forced by the communicator's info key) and by the
# layer below on a twin communicator, every byte compared.  Each run is
# bounded by its case count; --time only stops it early (it still passes),
# so the verdict never depends on the machine's speed.  A failure's log
# ends with the reproducer line (contrib/hc_fuzz.sh).  Shared memory as a
# many-core node would use it: auto may take it oversubscribed, and sets it
# up on a communicator's first call (the fuzzer's communicators are new).
# The reference is serial (no library's collective in it); the layer
# below's known bugs that hiercoll does not keep calls from are avoided by
# the fuzzer (docs/testing.md).  op/avx's MPI_SUM on 8- and 16-bit integers
# is wrong on AVX-512 CPUs for some lengths (known issues; hiercoll calls
# Open MPI's ops): off.
# ---------------------------------------------------------------------------
hcf=$top_builddir/contrib/hc_fuzz
fuzz_sh=$(dirname "$(readlink -f "$0")")/../contrib/hc_fuzz.sh
FUZZ_OK='hc_fuzz: np [0-9]+ seed [0-9]+: [0-9]+ cases, 0 mismatches'
FUZZ=(--mca coll_hiercoll_shm_oversubscribed 1 --mca coll_hiercoll_shm_min_calls 0 --mca op ^avx)
# (args: name np cases seed [mpirun options...] -- [hc_fuzz options...])
fuzz() {
    local name=$1 np=$2 cases=$3 seed=$4 mo=() fo=()
    shift 4
    while [ $# -gt 0 ] && [ "$1" != -- ]; do mo+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    fo=("$@")
    EXPECT=("$FUZZ_OK")
    REJECT=("MISMATCH|fatal signal|HANG")
    run "$name" 600 "$fuzz_sh" -t 560 "${MPI[@]}" -np "$np" "${FUZZ[@]}" "${mo[@]+"${mo[@]}"}" \
        "$hcf" --np "$np" --seed "$seed" --cases "$cases" --time 100 --timeout 120 \
        --log "$logdir" "${fo[@]+"${fo[@]}"}"
}
if [ -x "$hcf" ] || [ "$list" = yes ]; then
    fuzz fuzz-seed1-np2 2 700 1
    fuzz fuzz-seed2-np2 2 700 2
    fuzz fuzz-seed3-np3 3 500 3
    fuzz fuzz-seed4-np3 3 500 4
    fuzz fuzz-seed5-np5 5 300 5
    # parts of two consecutive ranks (decomp forced or chosen by auto)
    fuzz fuzz-seed6-block2-np4 4 400 6 --mca coll_hiercoll_decomp_criterion block:2
    # the hierarchy (a synthetic 2 x 2 x 2 topology, groups of 2: every
    # communicator of 3 or more ranks goes through levels)
    fuzz fuzz-seed7-levels-np8 8 300 7 --mca coll_hiercoll_shm_group_size 2 \
        --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:1"
    # ... and without single copy (every reduction's length in cells
    # through the levels)
    fuzz fuzz-seed8-levels-nocma-np8 8 300 8 --mca coll_hiercoll_shm_group_size 2 \
        --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:1" --mca coll_hiercoll_shm_cma_min 0
    # ... and single copy from 8 bytes (a bcast of any type through the levels)
    fuzz fuzz-seed9-levels-cma-np8 8 300 9 --mca coll_hiercoll_shm_group_size 2 \
        --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:1" --mca coll_hiercoll_shm_cma_min 8
    # every case of a run in one of the dimensions added with the serial
    # reference (generation 2; the seeds above draw them now and then):
    # intercommunicators of two groups of any sizes, the neighborhood
    # collectives on Cartesian grids and (distributed) graphs, up to 6
    # calls in flight completed in each rank's own order with the
    # communicator freed in flight, receive types of another count, uneven
    # decomposition criteria by info key (block:K, lists), and threads
    # (MPI_THREAD_MULTIPLE, a communicator each)
    fuzz fuzz-seed10-inter-np3 3 200 10 -- --dim inter
    fuzz fuzz-seed11-neighbor-np4 4 150 11 -- --dim neighbor
    fuzz fuzz-seed12-batch-freed-np3 3 200 12 -- --dim batch,freed
    fuzz fuzz-seed13-rshape-np2 2 400 13 -- --dim rshape
    fuzz fuzz-seed14-crit-np5 5 150 14 -- --dim crit
    fuzz fuzz-seed15-threads-np3 3 30 15 -- --threads --dim threads
    # fake nodes from the launcher (the default criterion, node: parts of
    # 3, 1 and 2), by slot
    if [ "$list" = yes ] || "${fake[@]}" --probe >/dev/null 2>&1; then
        EXPECT=("$FUZZ_OK")
        REJECT=("MISMATCH|fatal signal|HANG")
        run "fuzz-seed16-fakenodes-np6" 600 "$fuzz_sh" -t 560 "${fake[@]}" --slots 3,1,2 -np 6 \
            "${BY_SLOT[@]}" --mca mpi_yield_when_idle 1 "${FUZZ[@]}" "$hcf" --np 6 --seed 16 \
            --cases 100 --time 100 --timeout 120 --log "$logdir"
    fi
    # the long cells (every length from 113 bytes in 4 KiB chunks: the bcast
    # down the levels, the reduce-scatter and allgather through them; any
    # type, in place, roots, sub-communicators), and flat at their defaults
    fuzz fuzz-seed40-long-levels-np8 8 300 40 --mca coll_hiercoll_shm_long on \
        --mca coll_hiercoll_shm_long_min 113 --mca coll_hiercoll_shm_long_chunk 4K \
        --mca coll_hiercoll_shm_group_size 2 --mca coll_hiercoll_shm_topology "pack:2 numa:2 l3:2 core:1" \
        -- --coll bcast,reduce,allreduce --algo shm
    fuzz fuzz-seed41-long-np5 5 300 41 --mca coll_hiercoll_shm_long on -- --coll bcast,reduce,allreduce \
        --algo shm
    # multi-leader forced over parts of 3, 3 and 2 (and the fuzzer's subsets:
    # 3,3,1, 3,1...): its five collectives, decomposed or under auto
    ML_FUZZ="allreduce,reduce,bcast,allgather,allgatherv,reduce_scatter,reduce_scatter_block"
    fuzz fuzz-seed17-ml-block3-np8 8 300 17 --mca coll_hiercoll_decomp_criterion block:3 \
        --mca coll_hiercoll_decomp_leaders all -- --coll "$ML_FUZZ" --algo auto,decomp
    # the lanes' algorithm was chosen from the rank's own part: on parts of
    # 3, 3 and 1 the single process broadcast by a binomial tree, the others
    # by a chain (a persistent bcast of 2 longs on 7 ranks hung)
    EXPECT=("hc_fuzz: np 8 seed [0-9]+: 1 cases, 0 mismatches")
    REJECT=("MISMATCH|fatal signal|HANG")
    run "fuzz-regress-ml-bcast-lanes-np8" 300 "$fuzz_sh" -t 240 "${MPI[@]}" -np 8 "${FUZZ[@]}" \
        --mca coll_hiercoll_decomp_criterion block:3 --mca coll_hiercoll_decomp_leaders all \
        "$hcf" --np 8 --timeout 60 --case 0x7357e9245bf87e3b --gen 1 --coll "$ML_FUZZ" --algo decomp
    # one seed nobody chose: its number is in the log ("run seed N"), on
    # Open MPI 4.1 and 5.0 alike
    EXPECT_ONCE=("hc_fuzz: np 3, run seed [0-9]+ \(--seed [0-9]+\)")
    fuzz fuzz-random-np3 3 400 random
    # Regressions: the cases the fuzzer found, one line each (name|np|hc_fuzz
    # options; run again as printed, one case, shrunk where it could be)
    SHM_HOLES="gather,allgather,gatherv,scatter,allgatherv,scatterv"
    ALGOS_BUT_OFFLOAD="auto,linear,binomial,rhrd,rabenseifner,decomp,shortcut,shm,tree"
    ALGOS_BUT_OFFLOAD+=",recursive_doubling,dissemination,basic"
    while IFS='|' read -r -u 3 rname rnp rargs; do
        [ -n "$rname" ] || continue
        EXPECT=("hc_fuzz: np $rnp seed [0-9]+: 1 cases, 0 mismatches")
        REJECT=("MISMATCH|fatal signal|HANG")
        # shellcheck disable=SC2086 # (rargs: options, split on purpose)
        run "fuzz-regress-$rname" 300 "$fuzz_sh" -t 240 "${MPI[@]}" -np "$rnp" "${FUZZ[@]}" \
            "$hcf" --np "$rnp" --timeout 60 $rargs
    done 3<<REGRESSIONS
offload-bcast-mixed-types-np2|2|--case 0xb08eab7579baae1f --gen 1
offload-ibcast-mixed-types-np2|2|--case 0xb08eab7579baae1f --mode nonblocking --gen 1
offload-ibcast-short-int-np2|2|--case 0x5fc468e3fa43f985 --coll bcast --algo offload --mode nonblocking --packed 0 --gen 1
offload-ibcast-derived-np2|2|--case 0x57a2d2cef1214168 --coll bcast --algo offload --mode nonblocking --packed 0 --gen 1
shm-allreduce-element-16k-np2|2|--case 0xb9b9dc59300f9a27 --coll allreduce --algo auto,shm --gen 1
shm-allgatherv-short-int-np2|2|--case 0x75b9c2dcca87c529 --coll $SHM_HOLES --algo shm --reps 1 --count 2731 --gen 1
shm-bcast-unsigned-at-cell-edge-np3|3|--case 0x213b80f4f2b5149d --comm prefix:2 --mode blocking --root 0 --count 482 --gen 1
shm-scatterv-struct-holes-np2|2|--case 0xdf5f428916c18853 --algo $ALGOS_BUT_OFFLOAD --comm world --mode blocking --root 0 --packed 0 --count 632 --gen 1
shm-gather-struct-holes-np2|2|--case 0xf0574b24f43bd55f --algo $ALGOS_BUT_OFFLOAD --comm world --root 0 --subtype 1 --count 508 --gen 1
shm-reduce-scatter-block-element-32k-np2|2|--case 0x57bde277cdd72f2d --algo $ALGOS_BUT_OFFLOAD --gen 1
shm-reduce-scatter-block-lb7-np3|3|--case 0x3695cdca6b48f33c --comm prefix:2 --mode blocking --reps 1 --packed 0 --count 1 --gen 1
shm-reduce-scatter-lb2-np5|5|--case 0x03ad9dd22d17b9c6 --comm prefix:2 --mode blocking --reps 1 --in-place 0 --gen 1
shm-allreduce-lb-np3|3|--case 0x02c8f0f94ae053a3 --comm world --count 1 --gen 1
alltoallv-in-place-negative-displs-np4|4|--case 0x45b53be0fe6fb887 --count 1 --gen 1
shm-allgatherv-vector-short-int-np2|2|--case 0x0471830c4d7fdcc2 --comm world --count 152 --gen 1
freed-persistent-passed-to-libnbc-np3|3|--case 0x4acff19907b5ed39 --gen 2
freed-ireduce-deferred-to-libnbc-np2|2|--case 0xa2c8d89afac5dd75 --gen 2
freed-inter-persistent-reduce-np3|3|--case 0x0eeab5e99ad5cfba --gen 2 --freed 1
self-copy-darray-in-subarray-tail-np2|2|--case 0x7688e03ebc0a2130 --gen 2
inter-scatterv-merged-receive-type-np2|2|--case 0xdb69ca94e9247d44 --gen 2
inter-ireduce-scatter-local-tag-after-libnbc-np3|3|--case 0x86163c8d5bc59f00 --gen 2 --coll reduce_scatter,reduce_scatter_block --dim inter,batch
ireduce-negative-true-lb-deferred-np3|3|--case 0x2963932fe5df92c3 --gen 2 --no-dim inter,neighbor,batch,freed,rshape,crit
offload-threads-channel-opened-inside-progress-np3|3|--case 0x205c327220e6ee08 --gen 2 --threads --dim threads
threads-one-predefined-type-user-op-np3|3|--case 0xedb47fc0c534f230 --gen 2 --threads --dim threads
tree-scatterv-long-int-64k-np5|5|--case 0x217a38897b0991cb --comm prefix:4 --mode blocking --root 0 --packed 0 --count 5462 --gen 1
REGRESSIONS
fi

# ---------------------------------------------------------------------------
[ "$list" = yes ] && exit 0
echo ""
[ $failed -gt 0 ] && echo "failed:$failed_names (logs in $logdir)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
