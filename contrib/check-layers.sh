#!/bin/bash
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# check-layers.sh: the MPI side of hiercoll stays in layers (HACKING.md,
# "Layers").  Fails when
#   - two object files call each other in a circle (from the symbols each
#     defines and uses, nm; tsort finds the circle),
#   - a file calls a file of a layer above its own,
#   - a source file includes a header of a layer above its own,
#   - a file or header of the component has no layer in the table below.
# "make check" runs it (test "layers"); by hand, after a build:
#   contrib/check-layers.sh SRCDIR/ompi/mca/coll/hiercoll BUILD/ompi/mca/coll/hiercoll
# --inject A:B adds a call from A to B (names without .c), to see it fail.

set -u

src=${1:?usage: check-layers.sh SRCDIR OBJDIR [--inject FROM:TO]}
obj=${2:?usage: check-layers.sh SRCDIR OBJDIR [--inject FROM:TO]}
inject=""
[ "${3:-}" = --inject ] && inject=${4:?--inject FROM:TO}

# The layers, bottom (0) to top: a file may call and include only files
# and headers of its own layer or below.  A new file gets a line here.
layer_of() {
    case $1 in
    # 10 component: MCA register/open/close/query; fills the hooks
    coll_hiercoll_component) echo 10 ;;
    # 9 module: per-communicator set-up (query, enable, info keys, end)
    coll_hiercoll_module) echo 9 ;;
    # 8 entry points
    coll_hiercoll_entry) echo 8 ;;
    # 7-6 selection: dispatch above the rules, fast path and hand-back
    coll_hiercoll_select) echo 7 ;;
    coll_hiercoll_fast) echo 6 ;;
    # 5 algorithm tables and auto policies
    coll_hiercoll_algos) echo 5 ;;
    # 4 capabilities (and the offload's transports' loader); the transport
    # plugins (offload_ucx, ofi) link no symbol of the component (test
    # lazylibs-plugins-self-contained), so they sit here too
    coll_hiercoll_caps | coll_hiercoll_decomp | coll_hiercoll_gatherv | coll_hiercoll_inter | \
        coll_hiercoll_neighbor | coll_hiercoll_offload | coll_hiercoll_offload_transport | \
        coll_hiercoll_offload_ucx | coll_hiercoll_ofi) echo 4 ;;
    # 4 the shared-memory level, in files (coll_hiercoll_shm.c's map; no
    # circle among them): entry points; operations, channels, requests; the
    # families' state machines; set-up and placement; the hierarchy; flag
    # lines and waiting; memory; the shared types and hot helpers
    coll_hiercoll_shm | coll_hiercoll_shm_op | coll_hiercoll_shm_bcast | coll_hiercoll_shm_reduce | \
        coll_hiercoll_shm_move | coll_hiercoll_shm_long | coll_hiercoll_shm_setup | \
        coll_hiercoll_shm_group | \
        coll_hiercoll_shm_lines | coll_hiercoll_shm_arena | coll_hiercoll_shm_internal) echo 4 ;;
    # 3 executor
    coll_hiercoll_exec) echo 3 ;;
    # 2 services: the layer below (Open MPI's tables), the early-exit history,
    # the site file
    coll_hiercoll_below | coll_hiercoll_shortcut | coll_hiercoll_site) echo 2 ;;
    # 1 leaf: shared types, parameters' storage, log, names, hooks table
    coll_hiercoll | coll_hiercoll_params | coll_hiercoll_hooks) echo 1 ;;
    # 0 MPI-free: planners, plan IR, rules, triggered engine, compat
    coll_hiercoll_plan* | coll_hiercoll_rules* | coll_hiercoll_trig* | coll_hiercoll_ofi_trig | \
        coll_hiercoll_compat | coll_hiercoll_atomic) echo 0 ;;
    *) echo "" ;;
    esac
}

# Known circles, allowed for now: lines "CALLER CALLEE" of calls not
# counted (none: keep it that way).
allowed=""

fail=0
complain() {
    echo "check-layers: $*"
    fail=1
}

objs=$(ls "$obj"/.libs/coll_hiercoll*.o 2>/dev/null || ls "$obj"/coll_hiercoll*.o 2>/dev/null)
[ -n "$objs" ] || { echo "check-layers: no object files under $obj (build first)"; exit 2; }

# Edges "CALLER CALLEE" between object files, from nm: a file that uses a
# symbol another one defines calls it.
edges=$(for o in $objs; do
    f=$(basename "$o" .o)
    f=${f#libmca_coll_hiercoll_la-}
    f=${f#mca_coll_hiercoll_la-}
    nm -P "$o" | awk -v f="$f" '$2 == "U" { print "U", f, $1 } $2 ~ /^[TDBRGSCV]$/ { print "D", f, $1 }'
done | awk '$1 == "D" { def[$3] = $2; next } { use[NR] = $2 " " $3 }
            END { for (i in use) { split(use[i], u, " "); d = def[u[2]];
                                   if (d != "" && d != u[1]) print u[1], d } }' | sort -u)
if [ -n "$inject" ]; then
    edges=$(printf '%s\n%s\n' "$edges" "${inject%%:*} ${inject#*:}")
fi
nfiles=$(echo "$objs" | wc -w)
nedges=$(echo "$edges" | grep -c .)

# Every file and header has a layer.
for f in $objs "$src"/coll_hiercoll*.[ch]; do
    n=$(basename "$f")
    n=${n%.[cho]}
    [ -n "$(layer_of "$n")" ] || complain "$n has no layer: add it to layer_of in $0"
done

# Calls go down (or stay in the layer), except the allowed ones.
counted=$(echo "$edges" | grep -vxF -f <(echo "$allowed"))
while read -r a b; do
    [ -n "$a" ] || continue
    la=$(layer_of "$a") lb=$(layer_of "$b")
    if [ -n "$la" ] && [ -n "$lb" ] && [ "$lb" -gt "$la" ]; then
        complain "$a (layer $la) calls $b (layer $lb), a layer above it"
    fi
done <<<"$counted"

# No circle: tsort orders the files or names a loop.
if ! order=$(echo "$counted" | tsort 2>/tmp/check-layers.$$); then
    complain "a circle of calls among: $(grep -v 'input contains a loop' /tmp/check-layers.$$ |
                                         sed 's/^tsort: //' | sort -u | tr '\n' ' ')"
fi
rm -f /tmp/check-layers.$$

# Includes go down (or stay in the layer).
for f in "$src"/coll_hiercoll*.[ch]; do
    n=$(basename "$f")
    n=${n%.[ch]}
    lf=$(layer_of "$n")
    [ -n "$lf" ] || continue
    for h in $(sed -n 's/^#include "\(coll_hiercoll[a-z0-9_]*\)\.h".*/\1/p' "$f"); do
        lh=$(layer_of "$h")
        if [ -n "$lh" ] && [ "$lh" -gt "$lf" ]; then
            complain "$(basename "$f") (layer $lf) includes $h.h (layer $lh), a layer above it"
        fi
    done
done

if [ $fail -eq 0 ]; then
    echo "call order (callers first): $(echo "$order" | tr '\n' ' ')"
    for l in 10 9 8 7 6 5 4 3 2 1 0; do
        in=""
        for o in $objs; do
            n=$(basename "$o" .o)
            [ "$(layer_of "$n")" = $l ] && in="$in ${n#coll_hiercoll_}"
        done
        [ -z "$in" ] || echo "  layer $l:$in"
    done
    echo "check-layers: $nfiles files, $nedges edges, no circle, calls and includes go down"
fi
exit $fail
