#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Run an Open MPI job on this one machine as if it were spread over
# several nodes: every "node" is an Open MPI daemon started (through
# plm/rsh, with this script as its rsh agent) under its own host name in
# a UTS namespace (unshare --uts).  Processes on different fake nodes see
# one another as remote, so they talk TCP over the loopback interface,
# while those on one fake node share memory (btl vader, sm in 5.0), as on a cluster.
#
# Usage:
#   fake-nodes.sh [--mpirun PATH] --slots 3,1,2 [mpirun arguments...]
#       runs mpirun with nodes fakenode1 (3 slots), fakenode2 (1 slot), ...;
#       processes fill the nodes by slot unless the arguments say
#       otherwise (--map-by node: round-robin).
#   fake-nodes.sh [--mpirun PATH] --probe
#       exits 0 when fake nodes work here, else says why and exits 1.
#
# Needs unshare --uts (root, or user namespaces).  As root, export
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (and, with Open MPI
# 5.0, PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1).

set -u
self=$(readlink -f "$0")

# As the rsh agent: "fake-nodes.sh --agent [options] HOST COMMAND..." runs
# COMMAND here, under HOST's name, as ssh would run it there.
if [ "${1:-}" = --agent ]; then
    shift
    while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
        shift
    done
    host=$1
    shift
    exec unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$host" "$*"
fi

mpirun=mpirun
slots=""
probe=no
while [ $# -gt 0 ]; do
    case "$1" in
    --mpirun) mpirun=$2; shift 2 ;;
    --slots) slots=$2; shift 2 ;;
    --probe) probe=yes; slots=1,1; shift ;;
    *) break ;;
    esac
done
if [ -z "$slots" ]; then
    echo "fake-nodes.sh: --slots N,N,... is required" >&2
    exit 2
fi
if ! unshare --uts true 2>/dev/null; then
    echo "fake-nodes.sh: fake nodes unavailable: 'unshare --uts' is not permitted here" >&2
    exit 1
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/fake-nodes.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
i=0
for s in ${slots//,/ }; do
    i=$((i + 1))
    echo "fakenode$i slots=$s" >>"$dir/hosts"
done

# The launcher's own options: ORTE's take --mca and call the remote
# launcher rsh (Open MPI 4.1), PRRTE's take --prtemca and call it ssh (5.0, 6.0;
# its out-of-band channel refuses loopback-only, so it picks its own); run-tests.sh exports the series and the shared-memory
# BTL's name (vader in 4.1, sm in 5.0).
case ${HIERCOLL_OMPI_SERIES:-4.1} in
5.* | 6.*) LAUNCH=(--prtemca plm ssh --prtemca plm_ssh_agent "$self --agent") ;;
*) LAUNCH=(--mca plm rsh --mca plm_rsh_agent "$self --agent" --mca oob_tcp_if_include lo) ;;
esac
run() {
    "${limit[@]}" "$mpirun" --hostfile "$dir/hosts" "${LAUNCH[@]}" \
        --mca btl "self,${HIERCOLL_SM_BTL:-vader},tcp" --mca btl_tcp_if_include lo "$@"
}

limit=()
if [ "$probe" = yes ]; then
    # A launch that never comes back (a daemon's call home lost on a loaded
    # machine) is an answer too: no fake nodes, rather than a suite that hangs.
    limit=(timeout -k 10 120)
    out=$(run -np 2 hostname 2>&1) || rc=$?
    if [ "${rc:-0}" = 124 ] || [ "${rc:-0}" = 137 ]; then
        echo "fake-nodes.sh: fake nodes unavailable: a two-node probe did not return in 120 s" >&2
        exit 1
    fi
    # (only the host names count: PRRTE may warn that setpgid failed)
    if [ "$(echo "$out" | grep -x "fakenode[0-9]*" | sort -u | tr "\n" " ")" != "fakenode1 fakenode2 " ]; then
        echo "fake-nodes.sh: fake nodes unavailable: a two-node probe printed:" >&2
        echo "$out" | head -n 5 | sed 's/^/    /' >&2
        exit 1
    fi
    exit 0
fi
run "$@"
