#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# The documentation against the build (make check, tests "docs-*"):
#   check-docs.sh params SRCDIR [OMPI_INFO]   docs/parameters.md is what
#       contrib/hc_params_doc.sh writes for the component built here
#   check-docs.sh commands SRCDIR BUILDDIR    runs every line of the fenced
#       blocks tagged "sh checked" in README.md and docs/*.md (the cheap
#       commands: ompi_info, hc_cost, --help of the programs...), from a
#       directory that looks like the source tree with the build in _build
#       (as in the README's two commands); each must exit 0 within 120 s
#   check-docs.sh ci SRCDIR                   the README's two commands and
#       .ci/run are in step: the test command is a line of .ci/run, and the
#       demo command builds the same way
set -u
what=$1 src=$(cd "$2" && pwd)
case $what in
params)
    new=$(mktemp)
    trap 'rm -f "$new"' EXIT
    "$src/contrib/hc_params_doc.sh" "${3:-ompi_info}" >"$new" || exit 1
    if diff -u "$src/docs/parameters.md" "$new"; then
        echo "check-docs: docs/parameters.md is in step with the component"
    else
        echo "check-docs: docs/parameters.md is out of step: run contrib/hc_params_doc.sh > docs/parameters.md"
        exit 1
    fi
    ;;
commands)
    build=$(cd "$3" && pwd)
    tree=$(mktemp -d)
    trap 'rm -rf "$tree"' EXIT
    for f in "$src"/* "$src"/.ci; do
        [ "$(basename "$f")" = _build ] || ln -s "$f" "$tree/$(basename "$f")"
    done
    ln -s "$build" "$tree/_build"
    # the blocks' lines, continuation lines joined, comments and blank lines out
    awk '/^```sh checked/ { on = 1; next } /^```/ { on = 0 } on' \
        "$src/README.md" "$src"/docs/*.md | sed 's/[[:space:]]*#.*$//' |
        awk '/\\$/ { sub(/\\$/, ""); acc = acc $0; next } { print acc $0; acc = "" }' |
        grep -v '^[[:space:]]*$' >"$tree/.commands"
    n=0 bad=0
    while IFS= read -r cmd; do
        n=$((n + 1))
        if (cd "$tree" && timeout 120 sh -c "$cmd" >"$tree/.out" 2>&1 </dev/null); then
            echo "ok: $cmd"
        else
            bad=$((bad + 1))
            echo "FAILED: $cmd"
            tail -n 5 "$tree/.out" | sed 's/^/    /'
        fi
    done <"$tree/.commands"
    echo "check-docs: $n commands, $bad failed"
    [ "$n" -gt 0 ] && [ "$bad" = 0 ]
    ;;
ci)
    cmds=$(grep '^contrib/install-deps.sh && ' "$src/README.md")
    test_cmd=$(echo "$cmds" | grep ' && make check$')
    demo_cmd=$(echo "$cmds" | grep ' && \.\./contrib/run-demo\.sh \.$')
    [ "$(echo "$cmds" | wc -l)" = 2 ] && [ -n "$test_cmd" ] && [ -n "$demo_cmd" ] ||
        { echo "check-docs: the README's two commands are not found"; exit 1; }
    grep -qxF "$test_cmd" "$src/.ci/run" ||
        { echo "check-docs: .ci/run does not run the README's test command: $test_cmd"; exit 1; }
    [ "${demo_cmd% && ../contrib/run-demo.sh .}" = "${test_cmd% && make check}" ] ||
        { echo "check-docs: the README's demo command builds otherwise than its test command"; exit 1; }
    echo "check-docs: the README's two commands and .ci/run are in step"
    ;;
*)
    echo "usage: check-docs.sh params SRCDIR [OMPI_INFO] | commands SRCDIR BUILDDIR | ci SRCDIR" >&2
    exit 2
    ;;
esac
