#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Print the Debian archive this machine's apt uses (its URI, e.g. the one
# in /etc/apt/sources.list.d/debian.sources), so that the roots made by
# contrib/ompi5-root.sh and contrib/deb-test.sh come from the same place
# and no host name is written in the project.
#
#   contrib/apt-archive.sh        prints the URI, or fails with one line
#
# HIERCOLL_DEBIAN_MIRROR, when set, wins.  Otherwise: the repository apt
# knows as Origin/Label "Debian" for a release without a suffix (not
# -security, -updates, -backports), from apt-get indextargets (after an
# apt-get update); else the first such line in sources.list, *.list or
# *.sources (deb822) whose suite is this machine's codename.
set -eu
if [ -n "${HIERCOLL_DEBIAN_MIRROR:-}" ]; then
    echo "$HIERCOLL_DEBIAN_MIRROR"
    exit 0
fi
uri=$(apt-get indextargets --format '$(ORIGIN) $(LABEL) $(RELEASE) $(REPO_URI)' 2>/dev/null |
    awk '$1 == "Debian" && $2 == "Debian" && $3 !~ /-/ { print $4; exit }')
if [ -z "$uri" ]; then
    codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        case $f in
        *.sources)
            uri=$(awk -v want="$codename" '
                function flush() { if (deb && hit && u != "") { print u; exit } deb = hit = 0; u = "" }
                /^[ \t]*$/ { flush(); next }
                /^[ \t]*#/ { next }
                tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
                tolower($1) == "uris:" { u = $2 }
                tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == want) hit = 1 }
                END { flush() }' "$f") ;;
        *)
            uri=$(awk -v want="$codename" '
                $1 == "deb" { i = 2; if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                              if ($(i + 1) == want) { print $i; exit } }' "$f") ;;
        esac
        [ -z "$uri" ] || break
    done
fi
[ -n "$uri" ] || {
    echo "apt-archive: no Debian archive found in this machine's apt sources; set HIERCOLL_DEBIAN_MIRROR" >&2
    exit 1
}
echo "${uri%/}"
