#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# hc_ml_counts.sh: the bytes of long collectives between fake nodes, per
# call, from pml monitoring (contrib/hc_traffic.sh): hiercoll with every
# process of a node carrying a share (coll_hiercoll_decomp_leaders all),
# with one leader per node (leaders 1), and the components given with -a
# (tuned, han...), against the bounds:
#
#   allreduce  2 (N-1) L crossing nodes in all; a rank at most
#              2 (N-1)/N x L / (processes of its node)
#   bcast      (N-1) L in all; a rank at most L / (processes of its node)
#   (reduce (N-1) L in all, L / ppn a rank; allgather and reduce_scatter
#   are printed without a bound)
#
# One row per (nodes, collective, size, contender): the bytes crossing
# nodes in all and the most one rank sent across, each as a ratio to its
# bound, and "ok" where both are at most -r (1.15).  Exit 1 when a
# multi-leader row is not ok (with -e).  The decomposition runs by node
# (fake nodes: test/fake-nodes.sh) and is forced for the collective.
#
#   contrib/hc_ml_counts.sh [-b hc_bench] [-s "4,4 3,3,3 4,4,4,4 3,3,2"]
#       [-z "64K 1M 8M"] [-c "allreduce bcast"] [-a tuned] [-r 1.15] [-e]
#       [-m "extra mpirun arguments"] [-l launcher] [-k calls]
#       [-C coll-list]   (the --mca coll list; han's: add han to it)
#
# Times on fake nodes (TCP on one host) mean nothing; these are bytes.

set -u
here=$(dirname "$(readlink -f "$0")")
bench=$here/hc_bench
[ -x "$bench" ] || bench=$(command -v hc_bench || echo hc_bench)
shapes="4,4 3,3,3 4,4,4,4 3,3,2"
sizes="64K 1M 8M"
colls="allreduce bcast"
against=tuned
ratio=1.15
strict=no
margs=""
launcher="$here/../test/fake-nodes.sh"
calls=2
collist=hiercoll,tuned,libnbc,basic,monitoring
while [ $# -gt 0 ]; do
    case "$1" in
    -b) bench=$2; shift 2 ;;
    -s) shapes=$2; shift 2 ;;
    -z) sizes=$2; shift 2 ;;
    -c) colls=$2; shift 2 ;;
    -a) against=$2; shift 2 ;;
    -r) ratio=$2; shift 2 ;;
    -e) strict=yes; shift ;;
    -m) margs=$2; shift 2 ;;
    -l) launcher=$2; shift 2 ;;
    -k) calls=$2; shift 2 ;;
    -C) collist=$2; shift 2 ;;
    *) echo "hc_ml_counts.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
bytes_of() { # 64K -> 65536
    echo "$1" | awk '{ v = $1 + 0; s = substr($1, length($1)); if (s == "K") v *= 1024;
                       if (s == "M") v *= 1048576; if (s == "G") v *= 1073741824; print v }'
}
printf '%-10s %-10s %6s %-10s %14s %9s %14s %9s %s\n' nodes coll bytes contender crossing \
    x_bound max_rank x_share ok
bad=0
for shape in $shapes; do
    np=$(echo "$shape" | tr , '\n' | awk '{ s += $1 } END { print s }')
    N=$(echo "$shape" | tr , '\n' | wc -l)
    for coll in $colls; do
        for z in $sizes; do
            L=$(bytes_of "$z")
            for lead in all 1; do
                name=hiercoll-ml
                [ "$lead" = 1 ] && name=hiercoll-1
                ag=()
                [ "$lead" = all ] && [ -n "$against" ] && ag=(--against "$against")
                # shellcheck disable=SC2086
                out=$("$here/hc_traffic.sh" -n "$np" -k "$calls" -w 1 -b "$bench" \
                    -l "$launcher --slots $shape" \
                    -m "--mca coll $collist --mca coll_hiercoll_${coll}_algorithm decomp --mca coll_hiercoll_decomp_leaders $lead --mca mpi_yield_when_idle 1 $margs" \
                    -- --coll "$coll" --min "$z" --max "$z" "${ag[@]}")
                echo "$out" | grep -q '^hiercoll ' || { echo "$out" >&2; exit 1; }
                echo "$out" | awk -v name="$name" -v shape="$shape" -v coll="$coll" -v z="$z" \
                    -v L="$L" -v N="$N" -v r="$ratio" -v strict="$strict" '
                    $1 ~ /^(hiercoll|tuned|han|basic|libnbc|adapt|acoll|xhc)$/ && NF >= 11 {
                        who = $1 == "hiercoll" ? name : $1
                        if (coll == "allreduce") { bound = 2 * (N - 1) * L; share = 2 * (N - 1) / N * L }
                        else if (coll == "bcast" || coll == "reduce") { bound = (N - 1) * L; share = L }
                        else { bound = 0; share = 0 }
                        xb = bound > 0 ? $9 / bound : 0; xs = share > 0 ? $11 / share : 0
                        ok = bound > 0 && xb <= r && xs <= r ? "ok" : (bound > 0 ? "over" : "-")
                        printf "%-10s %-10s %6s %-10s %14.0f %9.3f %14.0f %9.3f %s\n", shape, coll, z,
                               who, $9, xb, $10, xs, ok
                        if (who == "hiercoll-ml" && ok != "ok") exit 3
                    }'
                [ $? = 3 ] && bad=1
            done
        done
    done
done
[ "$strict" = yes ] && [ $bad = 1 ] && { echo "hc_ml_counts.sh: a multi-leader row over the bounds"; exit 1; }
exit 0
