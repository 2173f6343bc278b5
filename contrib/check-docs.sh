#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# The documentation against the component (make check, tests "docs-*"):
#   check-docs.sh params SRCDIR [OMPI_INFO]   docs/parameters.md is what
#       contrib/hc_params_doc.sh writes for the component built here
#   check-docs.sh what-runs SRCDIR BUILDDIR   docs/what-runs.md is what
#       contrib/hc_whatruns.sh writes for the component built here
#   check-docs.sh selection SRCDIR            the selection order listed in
#       docs/using.md is the order of mca_coll_hiercoll_select's questions
#   check-docs.sh help SRCDIR                 every topic of
#       help-coll-hiercoll.txt is used by the code and explained in
#       docs/troubleshooting.md, and every topic the code names is there
#   check-docs.sh commands SRCDIR BUILDDIR    every command block of the
#       README, HACKING, docs/ and the component's README: a block says
#       its language, and an "sh" block is "sh checked" (each line runs
#       from a directory that looks like the source tree with the build in
#       _build, and must exit 0 within 120 s; ./app is a small MPI
#       program) or "sh skip: REASON"
#   check-docs.sh style SRCDIR                sentences of at most 60 words
#       and paragraphs or list items of at most 12 lines, outside tables
#       and code, in the same files; HACKING.md at most 600 lines
#   check-docs.sh ci SRCDIR                   the README's two commands and
#       .ci/run are in step: the test command is a line of .ci/run, and the
#       demo command builds the same way
set -u
what=$1 src=$(cd "$2" && pwd)
# the pages whose prose and commands are checked
pages() {
    for f in "$src/README.md" "$src/HACKING.md" "$src"/docs/*.md "$src"/docs/design/*.md \
        "$src/ompi/mca/coll/hiercoll/README.md"; do
        [ -f "$f" ] && echo "$f"
    done
}
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
    # ./app, the program of the docs' mpirun lines
    printf '#!/bin/sh\nexec "%s/contrib/hc_demo" --quiet\n' "$build" >"$tree/app"
    chmod +x "$tree/app"
    # every block says its language; an sh block is checked or says why not
    # shellcheck disable=SC2046
    awk '
    /^[ \t]*```/ {
        if (!on) {
            on = 1; tag = $0; sub(/^[ \t]*```/, "", tag)
            if (tag == "") { printf "%s:%d: a block without its language (sh, text...)\n", FILENAME, FNR; bad = 1 }
            else if (tag ~ /^sh/ && tag !~ /^sh checked$/ && tag !~ /^sh skip: ..../) {
                printf "%s:%d: an sh block neither \"sh checked\" nor \"sh skip: REASON\"\n", FILENAME, FNR; bad = 1
            }
            if (tag ~ /^sh skip: /) { sub(/^sh skip: /, "", tag); skips = skips sprintf("  %s:%d: %s\n", FILENAME, FNR, tag); ++nskip }
        } else on = 0
    }
    END { printf "%s", skips; printf "check-docs: %d blocks not run (reasons above)\n", nskip; exit bad }
    ' $(pages) >"$tree/.tags"
    st=$?
    sed "s|$src/||" "$tree/.tags"
    [ $st = 0 ] || { echo "check-docs: blocks without their tags"; exit 1; }
    # the checked blocks' lines, continuation lines joined, comments and
    # blank lines out
    awk '/^[ \t]*```sh checked/ { on = 1; next } /^[ \t]*```/ { on = 0 } on' $(pages) |
        sed 's/^[[:space:]]*//; s/[[:space:]]*#.*$//' |
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
what-runs)
    new=$(mktemp)
    trap 'rm -f "$new"' EXIT
    "$src/contrib/hc_whatruns.sh" "$3" >"$new" || exit 1
    if diff -u "$src/docs/what-runs.md" "$new"; then
        echo "check-docs: docs/what-runs.md is in step with the component"
    else
        echo "check-docs: docs/what-runs.md is out of step: run contrib/hc_whatruns.sh BUILDDIR > docs/what-runs.md"
        exit 1
    fi
    ;;
selection)
    # the questions of mca_coll_hiercoll_select, in order, and the list in
    # docs/using.md between its two markers
    steps='mca_coll_hiercoll_[a-z_]*_auto|mca_coll_hiercoll_rule_of|auto_pick'
    code=$(awk '/^const hc_algo_t \*mca_coll_hiercoll_select\(/ { on = 1 } on && /^}/ { on = 0 } on' \
        "$src/ompi/mca/coll/hiercoll/coll_hiercoll_select.c" | grep -oE "($steps)\(" |
        tr -d '(' | awk '!seen[$0]++' | tr '\n' ' ')
    doc=$(awk '/<!-- selection order/ { on = 1; next } /<!-- end of the selection order -->/ { on = 0 } on' \
        "$src/docs/using.md" | grep -oE "\`($steps)\`" | tr -d '`' | awk '!seen[$0]++' | tr '\n' ' ')
    echo "code: $code"
    echo "docs: $doc"
    if [ -n "$code" ] && [ "$code" = "$doc" ]; then
        echo "check-docs: docs/using.md gives the selection order of coll_hiercoll_select.c"
    else
        echo "check-docs: docs/using.md's selection order differs from mca_coll_hiercoll_select's"
        exit 1
    fi
    ;;
help)
    help=$src/ompi/mca/coll/hiercoll/help-coll-hiercoll.txt
    page=$src/docs/troubleshooting.md
    bad=0
    topics=$(sed -n 's/^\[\(.*\)\]$/\1/p' "$help")
    used=$(cat "$src"/ompi/mca/coll/hiercoll/*.c | tr -d '\n' |
        grep -oE '(show_help|show_help_text)\([[:space:]]*"[^"]*"' | sed 's/.*"\(.*\)"/\1/' | sort -u)
    # (the kinds of parameter errors are a table of topics)
    used="$used $(grep -ohE '\[HC_ERR_[A-Z]+\] = "[^"]*"' "$src"/ompi/mca/coll/hiercoll/*.c |
        sed 's/.*"\(.*\)"/\1/')"
    for t in $used; do
        echo "$topics" | grep -qxF "$t" ||
            { echo "check-docs: the code names topic \"$t\", which help-coll-hiercoll.txt lacks"; bad=1; }
    done
    for t in $topics; do
        echo "$used" | tr ' ' '\n' | grep -qxF "$t" ||
            { echo "check-docs: topic \"$t\" of help-coll-hiercoll.txt is used nowhere"; bad=1; }
        grep -qE "^#+ .*\`$t\`" "$page" ||
            { echo "check-docs: docs/troubleshooting.md has no heading for topic \`$t\`"; bad=1; }
        # its first line, up to the first conversion, is quoted there
        first=$(awk -v t="[$t]" '$0 == t { getline; print; exit }' "$help" | sed 's/%.*//')
        [ -z "$first" ] || grep -qF -- "$first" "$page" ||
            { echo "check-docs: docs/troubleshooting.md does not quote \"$first\" (topic $t)"; bad=1; }
    done
    [ $bad = 0 ] && echo "check-docs: $(echo "$topics" | wc -w) topics of help-coll-hiercoll.txt, each used and explained"
    exit $bad
    ;;
style)
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    # shellcheck disable=SC2046
    awk '
    function flush(   text, n, i, w, words) {
        if (plines == 0) return
        ++np
        if (plines > maxp) maxp = plines
        if (plines > 12) { printf "%s:%d: a paragraph of %d lines (at most 12)\n", pfile, pstart, plines; ++bad }
        text = ptext
        gsub(/\]\([^)]*\)/, "]", text)
        gsub(/e\.g\./, "eg", text); gsub(/i\.e\./, "ie", text); gsub(/etc\./, "etc", text)
        gsub(/ vs\./, " vs", text); gsub(/cf\./, "cf", text)
        n = split(text, w, /[ \t]+/)
        words = 0
        for (i = 1; i <= n; ++i) {
            if (w[i] == "") continue
            if (w[i] ~ /^([-*+]|[0-9]+\.)$/ && words == 0) continue
            ++words
            if (w[i] ~ /[.!?][)"\047*_`]*$/) { sentence(words); words = 0 }
        }
        if (words > 0) sentence(words)
        plines = 0; ptext = ""
    }
    function sentence(k) {
        s[++ns] = k
        if (k > 30) ++over30
        if (k > 60) { printf "%s:%d: a sentence of %d words (at most 60)\n", pfile, pstart, k; ++bad }
    }
    FNR == 1 { flush(); code = 0; comment = 0 }
    /^[ \t]*```/ { flush(); code = !code; next }
    code { next }
    /<!--/ { flush(); if ($0 !~ /-->/) comment = 1; next }
    comment { if ($0 ~ /-->/) comment = 0; next }
    /^[ \t]*$/ || /^[ \t]*\|/ || /^#/ { flush(); next }
    /^[ \t]*([-*+]|[0-9]+\.)[ \t]/ { flush() }
    { if (plines == 0) { pstart = FNR; pfile = FILENAME }; ++plines; ptext = ptext " " $0 }
    END {
        flush()
        for (i = 1; i <= ns; ++i) for (j = i + 1; j <= ns; ++j) if (s[j] < s[i]) { t = s[i]; s[i] = s[j]; s[j] = t }
        printf "check-docs: %d sentences, median %d words, %d%% over 30 words, longest %d; %d paragraphs, longest %d lines\n", \
            ns, s[int((ns + 1) / 2)], 100 * over30 / (ns ? ns : 1), s[ns], np, maxp
        exit bad > 0
    }' $(pages) >"$out"
    st=$?
    sed "s|$src/||" "$out"
    [ $st = 0 ] || { echo "check-docs: sentences or paragraphs too long (above)"; exit 1; }
    hl=$(wc -l <"$src/HACKING.md")
    [ "$hl" -le 600 ] || { echo "check-docs: HACKING.md has $hl lines (at most 600: it is a map)"; exit 1; }
    echo "check-docs: every sentence at most 60 words, every paragraph at most 12 lines; HACKING.md $hl lines"
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
    echo "usage: check-docs.sh params SRCDIR [OMPI_INFO] | what-runs SRCDIR BUILDDIR |" \
        "selection SRCDIR | help SRCDIR | commands SRCDIR BUILDDIR | style SRCDIR | ci SRCDIR" >&2
    exit 2
    ;;
esac
