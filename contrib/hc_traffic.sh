#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
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
# its first call (building sub-communicators), cancels out too.  Over fake
# nodes under Open MPI 5.0, give the mapping (-m "--map-by
# slot:OVERSUBSCRIBE"): with the --oversubscribe this script passes alone,
# its launcher put every rank on the first node.  Keep
# "monitoring" in any --mca coll list (Open MPI 4.1.4 crashes at finalize
# otherwise).  Prints one table row per contender; -c FILE appends CSV.
#
# Parts and forms (does a nonblocking call cross between parts
# more often than the blocking one?):
#   -P CRIT   the crossing columns count messages between the parts of
#             CRIT: block:K (ranks K at a time), list:A+B,C+D... (unlisted
#             ranks alone), or node (the hosts: the default)
#   -F        both forms: per collective and contender, the messages
#             between parts of one blocking and one nonblocking call
#             (hc_bench --nonblocking) side by side, and the messages in all
#             (-w defaults to 1 here: what the first call builds cancels)
#   -C LIST   the collectives of -F (comma-separated; default --coll's)
#   -e        with -F: exit 1 when a hiercoll nonblocking call crosses
#             between parts more often than its blocking form
#
#   contrib/hc_traffic.sh -n 6 -F -P block:3 -C allreduce,bcast \
#       -m "--mca coll hiercoll,tuned,libnbc,basic,monitoring \
#           --mca coll_hiercoll_decomp_criterion block:3" -- --min 8 --against libnbc

set -u
np=4
calls=4
warm=""
bench=$(dirname "$0")/hc_bench
[ -x "$bench" ] || bench=$(command -v hc_bench || echo hc_bench)
margs=""
launcher=mpirun
csv=""
parts=node
forms=no
colls=""
expect=no
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -k) calls=$2; shift 2 ;;
    -w) warm=$2; shift 2 ;;
    -b) bench=$2; shift 2 ;;
    -m) margs=$2; shift 2 ;;
    -l) launcher=$2; shift 2 ;;
    -c) csv=$2; shift 2 ;;
    -P) parts=$2; shift 2 ;;
    -F) forms=yes; shift ;;
    -C) colls=$2; shift 2 ;;
    -e) expect=yes; shift ;;
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
    --coll) coll=$v; i=$((i + 2)); continue ;;
    --min) bytes=$v ;;
    --root) root=$v ;;
    esac
    rest+=("$a")
    i=$((i + 1))
done
contenders="hiercoll ${against//,/ }"
case $parts in
node|block:[1-9]*|list:[0-9]*) ;;
*) echo "hc_traffic.sh: -P wants node, block:K or list:A+B,C..." >&2; exit 2 ;;
esac
[ -z "$colls" ] && colls=$coll
# -F: one call first by default (the parts' sub-communicators are built then)
[ -z "$warm" ] && { [ "$forms" = yes ] && warm=1 || warm=0; }

if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
work=$(mktemp -d /tmp/hc_traffic.XXXXXX)
trap 'rm -rf "$work"' EXIT

run() { # run CONTENDER K PREFIX [COLL [--nonblocking]]
    local c=$1 k=$2 prefix=$3 cl=${4:-$coll} pick=()
    [ "$c" != hiercoll ] && pick=(--against "$c")
    [ -n "${5:-}" ] && pick+=("$5")
    # shellcheck disable=SC2086
    $launcher --oversubscribe -np "$np" $margs \
        --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
        --mca pml_monitoring_filename "$prefix" \
        "$bench" --coll "$cl" "${rest[@]}" "${pick[@]}" --traffic "$k" >"$prefix.out" 2>&1 || {
        echo "hc_traffic.sh: the $c run failed:" >&2
        tail -20 "$prefix.out" >&2
        exit 1
    }
}

# per_call CONTENDER COLL [--nonblocking]: the two runs, then one line:
# msgs bytes max_bytes_rank max_msgs_rank root_partners max_partners
# crossing_msgs crossing_bytes (crossing: between the parts of -P)
per_call() {
    local c=$1 cl=$2 nb=${3:-} tag=$1.$2${3:+.nb}
    run "$c" $((warm + calls)) "$work/$tag.k" "$cl" $nb
    run "$c" "$warm" "$work/$tag.0" "$cl" $nb
    # lines "I|E <src> <dst> <bytes> bytes <msgs> msgs sent": internal
    # (collective) and external, for the monitoring files persistent sends
    # (coll/basic's linear alltoallv, under hiercoll's decomposition) as
    # external; the difference of the two runs cancels everything else
    awk -v k="$calls" -v root="$root" -v np="$np" -v parts="$parts" '
        FNR == 1 { run = (FILENAME ~ /\.k\./) ? 1 : (FILENAME ~ /\.0\./ ? -1 : 0) }
        /^# host / && FILENAME ~ /\.k\.out$/ { host[$3] = $4; next }
        ($1 == "I" || $1 == "E") && run != 0 { b[$2, $3] += run * $4; m[$2, $3] += run * $6 }
        END {
            for (i = 0; i < np; ++i) part[i] = host[i]
            if (parts ~ /^block:/) {
                for (i = 0; i < np; ++i) part[i] = int(i / (substr(parts, 7) + 0))
            } else if (parts ~ /^list:/) {
                for (i = 0; i < np; ++i) part[i] = "alone" i
                np_ = split(substr(parts, 6), ps, ",")
                for (q = 1; q <= np_; ++q) {
                    nm = split(ps[q], mm, "+")
                    for (z = 1; z <= nm; ++z) part[mm[z] + 0] = q
                }
            }
            for (i = 0; i < np; ++i) {
                rb = 0; rm = 0
                for (j = 0; j < np; ++j) {
                    bij = b[i, j] / k; mij = m[i, j] / k
                    rb += bij; rm += mij; tb += bij; tm += mij
                    if (mij > 0) partners[j]++
                    if (part[i] != part[j]) { xm += mij; xb += bij }
                }
                if (rb > maxb) maxb = rb
                if (rm > maxm) maxm = rm
            }
            for (j = 0; j < np; ++j) if (partners[j] > maxp) maxp = partners[j]
            printf "%.1f %.0f %.0f %.1f %d %d %.1f %.0f\n", tm, tb, maxb, maxm, partners[root] + 0,
                   maxp + 0, xm, xb
        }' "$work/$tag.k.out" "$work/$tag".k.*.prof "$work/$tag".0.*.prof
}

if [ "$forms" = yes ]; then
    printf '# %s bytes per rank, np %d, root %d: messages per call between the parts of %s (%d calls minus none, after %d)\n' \
        "$bytes" "$np" "$root" "$parts" "$calls" "$warm"
    printf '%-22s %-10s %12s %12s %12s %12s\n' collective contender xpart_blocking xpart_nonblock \
        msgs_blocking msgs_nonblock
    [ -n "$csv" ] && [ ! -s "$csv" ] &&
        echo "coll,np,bytes,parts,contender,crossing_msgs_blocking,crossing_msgs_nonblocking,msgs_blocking,msgs_nonblocking" >"$csv"
    worse=""
    for cl in ${colls//,/ }; do
        for c in $contenders; do
            read -r mb _ _ _ _ _ xb _ < <(per_call "$c" "$cl") || exit 1
            read -r mn _ _ _ _ _ xn _ < <(per_call "$c" "$cl" --nonblocking) || exit 1
            printf '%-22s %-10s %12s %12s %12s %12s\n' "$cl" "$c" "$xb" "$xn" "$mb" "$mn"
            [ -n "$csv" ] && echo "$cl,$np,$bytes,$parts,$c,$xb,$xn,$mb,$mn" >>"$csv"
            if [ "$c" = hiercoll ] && awk -v n="$xn" -v b="$xb" 'BEGIN { exit !(n > b) }'; then
                worse="$worse $cl"
            fi
        done
    done
    if [ -n "$worse" ]; then
        echo "# hiercoll's nonblocking form crosses between parts more often than the blocking one:$worse"
        [ "$expect" = yes ] && exit 1
    fi
    exit 0
fi

printf '# %s, %s bytes per rank, np %d, root %d: per call (%d calls minus none, after %d)\n' \
    "$coll" "$bytes" "$np" "$root" "$calls" "$warm"
[ "$parts" != node ] && echo "# crossing: between the parts of $parts"
printf '%-10s %10s %14s %14s %14s %9s %9s %11s %14s\n' contender msgs bytes max_bytes_rank \
    max_msgs_rank root_prt max_prt xnode_msgs xnode_bytes
[ -n "$csv" ] && [ ! -s "$csv" ] &&
    echo "coll,np,bytes,contender,msgs,bytes_total,max_bytes_sent,max_msgs_sent,root_recv_partners,max_recv_partners,msgs_crossing_nodes,bytes_crossing_nodes" >"$csv"

for c in $contenders; do
    read -r tm tb maxb maxm rp mp xm xb < <(per_call "$c" "$coll") || exit 1
    printf '%-10s %10.1f %14.0f %14.0f %14.1f %9d %9d %11.1f %14.0f\n' "$c" "$tm" "$tb" "$maxb" \
        "$maxm" "$rp" "$mp" "$xm" "$xb"
    [ -n "$csv" ] && printf '%s,%d,%s,%s,%.1f,%.0f,%.0f,%.1f,%d,%d,%.1f,%.0f\n' "$coll" "$np" \
        "$bytes" "$c" "$tm" "$tb" "$maxb" "$maxm" "$rp" "$mp" "$xm" "$xb" >>"$csv"
done
