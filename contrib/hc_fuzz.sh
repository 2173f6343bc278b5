#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# hc_fuzz.sh: runs one hc_fuzz job and, when it fails, names the case to
# run again.  hc_fuzz prints every case's reproducer line before running it
# (rank 0) and the shrunk one after a mismatch; a crash or a hang (its
# watchdog, or this script's own limit) leaves the line of the case that
# was running as the job's last "case" line, which this script repeats.
#
#   hc_fuzz.sh [-t SECONDS] mpirun [mpirun options] hc_fuzz [hc_fuzz options]
#
# -t: stop the job after SECONDS (default: none), then report as for a
# crash.  The exit code is the job's (124 when -t stopped it).
set -u
limit=""
if [ "${1:-}" = -t ]; then
    limit=$2
    shift 2
fi
if [ $# -eq 0 ]; then
    echo "usage: hc_fuzz.sh [-t SECONDS] mpirun [options] hc_fuzz [options]" >&2
    exit 2
fi
out=$(mktemp "${TMPDIR:-/tmp}/hc_fuzz_out.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
if [ -n "$limit" ]; then
    timeout -k 10 "$limit" "$@" 2>&1 | tee "$out"
else
    "$@" 2>&1 | tee "$out"
fi
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
    why="exit code $rc"
    [ "$rc" = 124 ] && why="stopped after ${limit}s"
    echo "hc_fuzz.sh: the job failed ($why)"
    grep -E "^hc_fuzz: (smallest failing case|HANG|rank [0-9]+: fatal signal)" "$out" |
        sed 's/^hc_fuzz: /hc_fuzz.sh: /' | sort -u
    last=$(grep -E '^hc_fuzz: case [0-9]+: ' "$out" | tail -n 1 | sed 's/^hc_fuzz: case [0-9]*: //')
    [ -n "$last" ] && echo "hc_fuzz.sh: the last case started (its reproducer): $last"
fi
exit "$rc"
