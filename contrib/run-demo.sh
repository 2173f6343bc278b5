#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# The demo on one screen, with the component built in this tree, one process
# per core (mpirun's default: no oversubscription):
#   1. hc_demo: a few collectives in every mode, each checked;
#   2. what hiercoll runs for each collective (its verbose level 1, one line
#      per collective, condensed: collectives that run alike share a row);
#   3. a few calls timed against the same stack without hiercoll, in one job:
#      hc_bench --report at 8 B and 1 MiB (the administrator's measurement,
#      docs/measuring.md).
# Usage: contrib/run-demo.sh [BUILDDIR]
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
    export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "== ompi_info: $(ompi_info | grep "MCA coll: hiercoll" | sed 's/^ *//')"
# (the checks, then hiercoll's verbose lines from a second, quiet run: with
# Open MPI 5.0 a piece of a verbose line came out in the program's stdout
# under the suite, merged with the demo's first line)
mpirun "$build/contrib/hc_demo" >"$stage/out" 2>"$stage/err" ||
    { cat "$stage/out" "$stage/err"; exit 1; }
grep -v "hiercoll: " "$stage/out"
mpirun --mca coll_hiercoll_verbose 1 "$build/contrib/hc_demo" --quiet >"$stage/verbose" 2>&1 ||
    { cat "$stage/verbose"; exit 1; }
echo "== what hiercoll runs on MPI_COMM_WORLD (auto; sizes per rank; ->comp: passed to comp)"
awk '
function human(s,   n) {
    while (match(s, /[0-9]+B/)) {
        n = substr(s, RSTART, RLENGTH - 1) + 0
        n = n >= 1048576 && n % 1048576 == 0 ? n / 1048576 "M" : \
            n >= 1024 && n % 1024 == 0 ? n / 1024 "K" : n
        s = substr(s, 1, RSTART - 1) n substr(s, RSTART + RLENGTH)
    }
    return s
}
function tidy(s) {
    gsub(/\(rules:[^()]*;else\)/, "rules,", s)
    gsub(/\([^()]*\)/, "", s)
    gsub(/<=/, "\001", s); gsub(/->/, "\002", s); gsub(/=/, "", s)
    gsub(/\001/, "<=", s); gsub(/\002/, "->", s); gsub(/,/, ", ", s)
    return human(s)
}
/hiercoll: MPI_COMM_WORLD \(cid/ && !/\[=alg/ {
    sub(/.*\(cid [0-9]+, np [0-9]+\)  /, "")
    gsub(/%\)\|/, "%) or ")   # (the short-circuit description has a "|" of its own)
    match($0, /^[a-z_]+/); name = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
    n = split(rest, m, "|"); if (n == 1) { m[2] = m[1]; m[3] = m[1] }
    key = tidy(m[1]) "|" tidy(m[2]) (m[2] == m[3] ? "" : "|" tidy(m[3]))
    if (!(key in who)) order[++nk] = key
    who[key] = who[key] (who[key] ? " " : "") name
}
END {
    print "collective   blocking | nonblocking and persistent"
    for (i = 1; i <= nk; ++i) {
        w = who[order[i]]; v = order[i]; gsub(/\|/, " | ", v)
        if (length(w) > 12) { print w; w = "" }
        if (length(v) + 13 > 99) {
            n = split(order[i], m, "|")
            printf("%-12s %s\n%-12s | %s%s\n", w, m[1], "", m[2], (n > 2 ? " | " m[3] : ""))
        } else {
            printf "%-12s %s\n", w, v
        }
    }
}' "$stage/verbose"
echo "== the same calls without hiercoll (hc_bench --report: one job, alternating trials, medians)"
mpirun "$build/contrib/hc_bench" --report allreduce,bcast,reduce,barrier --sizes 8,1M \
    --trials 7 >"$stage/bench" 2>&1 || { cat "$stage/bench"; exit 1; }
# (the load average says how far to trust the times: the trials alternate,
# but a machine busy with other jobs spreads them)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?")
awk -v load="$load" '
/^# hc_bench report, np/ { np = $5; sub(/,/, "", np) }
/^## / { coll = $2 }
/^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x/ {
    if (!hdr++) printf "%-10s %8s %18s %15s %7s   (np %s, load %s)\n", "call", "bytes", \
        "without hiercoll", "with hiercoll", "ratio", np, load
    b = $1 >= 1048576 ? $1 / 1048576 " MiB" : $1 " B"
    printf "%-10s %8s %15.3f us %12.3f us %6.2fx\n", coll, b, $2, $3, $4
}
/RESULT DIFFERS/ { print; bad = 1 }
END { exit bad }' "$stage/bench"
