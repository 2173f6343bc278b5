#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# hc_traffic.sh: exactly what a collective sends, per call, for hiercoll and
# the components it is compared with, from Open MPI's pml monitoring.
#
# For every contender it runs hc_bench twice under the monitoring
# (--mca pml_monitoring_enable 2): once with K calls of the collective,
# once with none.
# Everything else in the two jobs is the same, so the difference, divided
# by K, is the traffic of one call: messages and bytes each rank sent to
# each peer.  From it: the largest number of bytes any rank sent, messages
# in all, the receive partners of the root and of the busiest rank, and the
# messages and bytes that crossed nodes (ranks on different hosts).
#
#   contrib/hc_traffic.sh -n 8 [-k 4] [-w 1] [-b path/to/hc_bench] \
#       [-m "--mca coll_hiercoll_allreduce_algorithm rhrd ..."] \
#       [-l "test/fake-nodes.sh --slots 4,4"] \
#       -- --coll allreduce --min 8M --against tuned [--root R] [--info K=V]
#
# Arguments after "--" go to hc_bench (sizes: --min only; one size a run).
# -m adds mpirun arguments (MCA parameters, --hostfile, ...); -l runs the
# jobs with another launcher than mpirun (e.g. over fake nodes); -w W
# makes both jobs W calls longer, so that what a contender does once, at
# its first call (building sub-communicators), cancels out too.  Keep
# "monitoring" in any --mca coll list (Open MPI 4.1.4 crashes at finalize
# otherwise).  Prints one table row per contender; -c FILE appends CSV.

set -u
np=4
calls=4
warm=0
bench=$(dirname "$0")/hc_bench
[ -x "$bench" ] || bench=$(command -v hc_bench || echo hc_bench)
margs=""
launcher=mpirun
csv=""
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -k) calls=$2; shift 2 ;;
    -w) warm=$2; shift 2 ;;
    -b) bench=$2; shift 2 ;;
    -m) margs=$2; shift 2 ;;
    -l) launcher=$2; shift 2 ;;
    -c) csv=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "hc_traffic.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
bargs=("$@")

# the contenders: hiercoll, then every name of --against
against=""
coll=allreduce
bytes=8
root=0
rest=()
i=0
while [ $i -lt ${#bargs[@]} ]; do
    a=${bargs[$i]}
    v=${bargs[$((i + 1))]:-}
    case "$a" in
    --against) against=$v; i=$((i + 2)); continue ;;
    --coll) coll=$v ;;
    --min) bytes=$v ;;
    --root) root=$v ;;
    esac
    rest+=("$a")
    i=$((i + 1))
done
contenders="hiercoll ${against//,/ }"

if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
work=$(mktemp -d /tmp/hc_traffic.XXXXXX)
trap 'rm -rf "$work"' EXIT

run() { # run CONTENDER K PREFIX
    local c=$1 k=$2 prefix=$3 pick=()
    [ "$c" != hiercoll ] && pick=(--against "$c")
    # shellcheck disable=SC2086
    $launcher --oversubscribe -np "$np" $margs \
        --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
        --mca pml_monitoring_filename "$prefix" \
        "$bench" "${rest[@]}" "${pick[@]}" --traffic "$k" >"$prefix.out" 2>&1 || {
        echo "hc_traffic.sh: the $c run failed:" >&2
        tail -20 "$prefix.out" >&2
        exit 1
    }
}

printf '# %s, %s bytes per rank, np %d, root %d: per call (%d calls minus none, after %d)\n' \
    "$coll" "$bytes" "$np" "$root" "$calls" "$warm"
printf '%-10s %10s %14s %14s %14s %9s %9s %11s %14s\n' contender msgs bytes max_bytes_rank \
    max_msgs_rank root_prt max_prt xnode_msgs xnode_bytes
[ -n "$csv" ] && [ ! -s "$csv" ] &&
    echo "coll,np,bytes,contender,msgs,bytes_total,max_bytes_sent,max_msgs_sent,root_recv_partners,max_recv_partners,msgs_crossing_nodes,bytes_crossing_nodes" >"$csv"

for c in $contenders; do
    run "$c" $((warm + calls)) "$work/$c.k"
    run "$c" "$warm" "$work/$c.0"
    # lines "I|E <src> <dst> <bytes> bytes <msgs> msgs sent": internal
    # (collective) and external, for the monitoring files persistent sends
    # (coll/basic's linear alltoallv, under hiercoll's decomposition) as
    # external; the difference of the two runs cancels everything else
    awk -v k="$calls" -v root="$root" -v name="$c" -v np="$np" -v csv="$csv" \
        -v coll="$coll" -v size="$bytes" '
        FNR == 1 { run = (FILENAME ~ /\.k\./) ? 1 : (FILENAME ~ /\.0\./ ? -1 : 0) }
        /^# host / && FILENAME ~ /\.k\.out$/ { host[$3] = $4; next }
        ($1 == "I" || $1 == "E") && run != 0 { b[$2, $3] += run * $4; m[$2, $3] += run * $6 }
        END {
            for (i = 0; i < np; ++i) {
                rb = 0; rm = 0
                for (j = 0; j < np; ++j) {
                    bij = b[i, j] / k; mij = m[i, j] / k
                    rb += bij; rm += mij; tb += bij; tm += mij
                    if (mij > 0) partners[j]++
                    if (host[i] != host[j]) { xm += mij; xb += bij }
                }
                if (rb > maxb) maxb = rb
                if (rm > maxm) maxm = rm
            }
            for (j = 0; j < np; ++j) if (partners[j] > maxp) maxp = partners[j]
            printf "%-10s %10.1f %14.0f %14.0f %14.1f %9d %9d %11.1f %14.0f\n", name, tm, tb, maxb,
                   maxm, partners[root], maxp, xm, xb
            if (csv != "")
                printf "%s,%d,%s,%s,%.1f,%.0f,%.0f,%.1f,%d,%d,%.1f,%.0f\n", coll, np, size, name,
                       tm, tb, maxb, maxm, partners[root], maxp, xm, xb >> csv
        }' "$work/$c.k.out" "$work"/"$c".k.*.prof "$work"/"$c".0.*.prof
done
