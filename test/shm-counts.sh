#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# shm-counts.sh: the node level's counts (coll_hiercoll_stats' "shm bytes"
# lines, one per rank) of one collective in a log, per rank and call, in
# units of the message L, and checks against bounds:
#
#   shm-counts.sh LOG COLL L CALLS [--mean-at-most X] [--max-at-most X]
#                 [--readers-at-most R] [--calls-at-most C]
#
# CALLS: the calls of COLL made with L bytes (the others the program made,
# short ones, are a few bytes each and counted in: they do not change the
# figures printed with two decimals).  Prints
#   counts COLL: RANKS ranks, per call: bytes mean X L (own O l3 A numa B
#   package C across D), most of one rank Y L, cma calls at most C, readers
#   at most R
# and "counts: ok" or "counts: FAIL ..." for each bound; exits 1 on a
# failed bound or no line.
set -u
log=$1 coll=$2 L=$3 calls=$4
shift 4
args=("$@")
awk -v coll="$coll" -v L="$L" -v calls="$calls" -v args="${args[*]+"${args[*]}"}" '
/hiercoll: shm bytes comm/ {
    n = split($0, parts, ";")
    for (i = 1; i <= n; ++i) {
        if (parts[i] !~ (" " coll ": [0-9]+ ops")) continue
        split(parts[i], w, " ")
        for (j = 1; j <= length(w); ++j) {
            if (w[j] == "own") own = w[j + 1]
            if (w[j] == "l3") l3 = w[j + 1]
            if (w[j] == "numa") numa = w[j + 1]
            if (w[j] == "package") pk = w[j + 1]
            if (w[j] == "across") ac = w[j + 1]
            if (w[j] == "calls") cm = w[j + 1]
            if (w[j] == "most") rd = w[j + 1]
        }
        tot = own + l3 + numa + pk + ac
        ranks++
        s_own += own; s_l3 += l3; s_numa += numa; s_pk += pk; s_ac += ac; s_tot += tot
        if (tot + 0 > m_tot + 0) m_tot = tot
        if (cm + 0 > m_cm + 0) m_cm = cm
        if (rd + 0 > m_rd + 0) m_rd = rd
    }
}
END {
    if (ranks == 0) { print "counts " coll ": no line"; exit 1 }
    u = L * calls * ranks
    printf "counts %s: %d ranks, per call: bytes mean %.3f L (own %.3f l3 %.3f numa %.3f package %.3f across %.4f), most of one rank %.3f L, cma calls at most %.0f, readers at most %d\n",
        coll, ranks, s_tot / u, s_own / u, s_l3 / u, s_numa / u, s_pk / u, s_ac / u,
        m_tot / (L * calls), m_cm / calls, m_rd
    bad = 0
    na = split(args, a, " ")
    for (i = 1; i < na; i += 2) {
        v = a[i + 1] + 0
        if (a[i] == "--mean-at-most") { x = s_tot / u; what = "bytes mean" }
        else if (a[i] == "--max-at-most") { x = m_tot / (L * calls); what = "bytes of one rank" }
        else if (a[i] == "--readers-at-most") { x = m_rd; what = "readers" }
        else if (a[i] == "--calls-at-most") { x = m_cm / calls; what = "cma calls a call" }
        else { print "counts: unknown bound " a[i]; bad = 1; continue }
        if (x > v + 1e-9) { printf "counts: FAIL %s %.3f > %s\n", what, x, a[i + 1]; bad = 1 }
        else printf "counts: ok %s %.3f <= %s\n", what, x, a[i + 1]
    }
    exit bad
}' "$log"
