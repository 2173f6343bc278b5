#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# hc_overlap.sh: how much of an MPI_Iallreduce overlaps a compute loop that
# makes no MPI call, hiercoll's (decomposition forced by default) against
# the same stack without hiercoll (libnbc for the nonblocking call), side
# by side, one line per size.
#
# One job of hc_bench --overlap (contrib/hc_bench.c) with two contenders:
# hiercoll's communicator (info keys hiercoll_allreduce_algorithm=ALG and
# hiercoll_decomp_criterion=CRIT) and a dup that puts libnbc, then tuned,
# on top and leaves hiercoll out.  Per size and contender: t_call
# (MPI_Iallreduce + MPI_Wait alone), t_compute (the loop alone, sized to
# about 2 t_call), t_total (MPI_Iallreduce, the loop, MPI_Wait), each the
# median of TRIALS alternating trials (hiercoll, libnbc, hiercoll, ...),
# each trial the slowest rank's average; overlap = 1 - (t_total -
# t_compute) / t_call (1: the call hid entirely behind the loop; 0: none).
#
#   contrib/hc_overlap.sh [-n NP] [-c CRIT] [-a ALG] [-s SIZES] [-t TRIALS]
#       [-i ITERS] [-b path/to/hc_bench] [-m "mpirun args"] [-l LAUNCHER]
#
#   -n NP      processes (default 6)
#   -c CRIT    decomposition criterion of hiercoll's communicator (default
#              block:3; "node" leaves the default criterion, for fake nodes)
#   -a ALG     hiercoll's allreduce algorithm (default decomp; "auto")
#   -s SIZES   bytes per rank, comma-separated, K/M suffixes (default 8,1K,64K,1M)
#   -t TRIALS  trials per size and contender (default 7); -i calls per trial
#   -l         launcher instead of mpirun, e.g. "test/fake-nodes.sh --slots 3,3"
#
# Prints hc_bench's lines, then the table: bytes, then for hiercoll and for
# libnbc t_call, t_total (microseconds) and the overlap.
set -u
np=6
crit=block:3
alg=decomp
sizes=8,1K,64K,1M
trials=7
iters=""
bench=$(dirname "$0")/hc_bench
[ -x "$bench" ] || bench=$(command -v hc_bench || echo hc_bench)
margs=""
launcher=mpirun
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -c) crit=$2; shift 2 ;;
    -a) alg=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -t) trials=$2; shift 2 ;;
    -i) iters=$2; shift 2 ;;
    -b) bench=$2; shift 2 ;;
    -m) margs=$2; shift 2 ;;
    -l) launcher=$2; shift 2 ;;
    *) echo "hc_overlap.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ "$(id -u)" = 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
info=(--info "hiercoll_allreduce_algorithm=$alg")
[ "$crit" != node ] && info+=(--info "hiercoll_decomp_criterion=$crit")
more=()
[ -n "$iters" ] && more=(--iters "$iters")
out=$(mktemp /tmp/hc_overlap.XXXXXX)
trap 'rm -f "$out"' EXIT
# shellcheck disable=SC2086
if ! $launcher --oversubscribe -np "$np" $margs "$bench" --coll allreduce --overlap \
    --sizes "$sizes" --trials "$trials" --against libnbc "${info[@]}" "${more[@]}" >"$out" 2>&1; then
    echo "hc_overlap.sh: hc_bench failed:" >&2
    tail -n 20 "$out" >&2
    exit 1
fi
grep '^#' "$out"
printf '# np %d, hiercoll: allreduce %s, criterion %s\n' "$np" "$alg" "$crit"
printf '%10s | %10s %10s %8s | %10s %10s %8s\n' bytes hc_call_us hc_total_us hc_ovl \
    nbc_call_us nbc_total_us nbc_ovl
# hc_bench's rows: bytes contender t_call t_compute t_total overlap
awk '$1 ~ /^[0-9]+$/ && NF == 6 {
        if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
        call[$1, $2] = $3; total[$1, $2] = $5; ovl[$1, $2] = $6
     }
     END {
        for (i = 1; i <= n; ++i) {
            b = order[i]
            printf "%10s | %10s %10s %8s | %10s %10s %8s\n", b, call[b, "hiercoll"],
                   total[b, "hiercoll"], ovl[b, "hiercoll"], call[b, "libnbc"],
                   total[b, "libnbc"], ovl[b, "libnbc"]
        }
     }' "$out"
