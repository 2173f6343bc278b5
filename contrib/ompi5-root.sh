#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# Build, test and inspect hiercoll against Open MPI 5.0 (Debian 13, trixie)
# inside a Debian 13 root made with mmdebstrap from Debian's archive.
#
#   contrib/ompi5-root.sh [root|build|check|src|ompi_info|shell|all]...
#
#   root       make the root if it does not exist (reused otherwise)
#   build      copy the source into the root, autogen + configure + make
#   check      build, then 'make check' (the whole suite) inside the root
#   src        unpack trixie's Open MPI source (apt-get source) in the root;
#              'build' then configures --with-ompi-source (optional: without
#              it configure uses hiercoll's stand-ins, compat/ompi5)
#   ompi_info  list hiercoll and its parameters with the root's ompi_info
#   shell      a shell inside the root, in the build directory
#   run CMD    (alone) copy the source into the root and run CMD there, in it
#              (e.g. contrib/check-intree.sh --ompi5 runs the in-tree check)
#   all        root + check (the default; what 'make check-ompi5' runs)
#
# Environment:
#   HIERCOLL_OMPI5_ROOT   the root (default /var/cache/hiercoll/trixie-root)
#   HIERCOLL_DEBIAN_MIRROR  Debian archive (default: the one this machine's
#                         apt sources name, contrib/apt-archive.sh)
#   HIERCOLL_TESTS        passed through: a subset of the MPI tests
#   MAKEFLAGS / HC_JOBS   parallel make inside the root (default -j2)
#
# Needs root (chroot, mount, unshare).  The source is copied (git ls-files
# plus the working tree's changes) to $ROOT/src/hiercoll; the build
# directory is $ROOT/src/hiercoll/_build.  /proc, /dev, /dev/pts, /dev/shm
# and /sys are bound into the root in a private mount namespace per command.
set -eu

ROOT=${HIERCOLL_OMPI5_ROOT:-/var/cache/hiercoll/trixie-root}
SUITE=trixie
JOBS=${HC_JOBS:--j2}
SRC=$(cd "$(dirname "$0")/.." && pwd)

# What the root needs: Open MPI 5.0 and the build/test dependencies of
# contrib/install-deps.sh, plus dpkg-dev and debhelper (apt-get source,
# the Debian package of contrib/deb-test.sh).
PACKAGES="libopenmpi-dev openmpi-bin libpmix-dev libucx-dev ucx-utils libfabric-dev libhwloc-dev hwloc
check build-essential autoconf automake libtool pkg-config procps util-linux
ca-certificates dpkg-dev debhelper git"

say() { echo "ompi5-root: $*" >&2; }

[ "$(id -u)" = 0 ] || { say "needs root (mmdebstrap, chroot, mount)"; exit 77; }

make_root() {
    if [ -x "$ROOT/usr/bin/mpicc" ] && [ -f "$ROOT/.hiercoll-root-ok" ]; then
        say "reusing $ROOT ($(cat "$ROOT/.hiercoll-root-ok"))"
        return 0
    fi
    command -v mmdebstrap >/dev/null || { say "mmdebstrap not installed"; exit 1; }
    MIRROR=$(sh "$SRC/contrib/apt-archive.sh") || exit 1
    say "creating $ROOT from $MIRROR $SUITE (minutes)"
    mkdir -p "$(dirname "$ROOT")"
    rm -rf "$ROOT.tmp"
    # shellcheck disable=SC2086
    mmdebstrap --mode=root --variant=apt --format=directory \
        --include="$(echo $PACKAGES | tr ' ' ',')" \
        --aptopt='Acquire::Retries "3"' \
        --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-exclude=/usr/share/man/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' \
        "$SUITE" "$ROOT.tmp" \
        "deb $MIRROR $SUITE main" "deb-src $MIRROR $SUITE main"
    ver=$(chroot "$ROOT.tmp" dpkg-query -W -f='${Version}' libopenmpi-dev)
    echo "Debian $SUITE, libopenmpi-dev $ver, made $(date -u +%FT%TZ)" >"$ROOT.tmp/.hiercoll-root-ok"
    rm -rf "$ROOT"
    mv "$ROOT.tmp" "$ROOT"
    say "made $ROOT: $(cat "$ROOT/.hiercoll-root-ok")"
}

# Every command runs in a mount namespace of its own (unshare --mount):
# /proc, /sys, /dev, /dev/pts and /dev/shm are bound into the root there
# and vanish with it, so runs side by side never unmount each other's.
# As root, with what Open MPI 5.0 (PRRTE) and 4.1 (ORTE) need to run as root.
in_root() {
    cp -L /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
    unshare --mount --propagation private /bin/sh -c '
        for d in proc sys dev dev/pts dev/shm; do
            mkdir -p "$0/$d" && mount --bind "/$d" "$0/$d" || exit 1
        done
        exec chroot "$0" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
            HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            HIERCOLL_TESTS="$2" HC_JOBS="$3" /bin/sh -c "$1"' "$ROOT" "$1" "${HIERCOLL_TESTS:-}" "$JOBS"
}

copy_source() {
    dst="$ROOT/src/hiercoll"
    mkdir -p "$dst"
    list=$(mktemp)
    # The tracked files and untracked, not ignored ones; the build dir stays.
    (cd "$SRC" && { git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
        find . -path ./_build -prune -o -type f -print0; }) >"$list"
    # The root's build directory may have been built since from another
    # copy of the source, into objects newer than this tree's files: a file
    # whose content differs is copied with the time of the copy, so that
    # make builds again what depends on it (with its own, older time make
    # kept the other tree's objects).  New inodes (--remove-destination): a
    # script running there keeps its own.
    (cd "$SRC" && xargs -0 sh -c 'for f; do
        [ -f "$f" ] && ! cmp -s "$f" "$0/$f" || continue
        mkdir -p "$0/$(dirname "$f")" && cp --remove-destination "$f" "$0/$f" || exit 1
        done' "$dst" <"$list") || { rm -f "$list"; say "copying the source failed"; exit 1; }
    # Files another copy left there that this tree has not, but for build
    # products (what this tree's .gitignore ignores): gone.
    if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
        tr '\0' '\n' <"$list" | sed 's|^\./||' | sort >"$list.want"
        (cd "$dst" && find . -path ./_build -prune -o -type f -print) | sed 's|^\./||' | sort |
            comm -23 - "$list.want" | git -C "$SRC" check-ignore -v -n --stdin |
            sed -n 's/^::\t//p' | (cd "$dst" && while IFS= read -r f; do rm -f "./$f"; done)
        rm -f "$list.want"
    fi
    rm -f "$list"
    [ -f "$dst/configure.ac" ] || { say "copying the source failed"; exit 1; }
}

# Debian 13's libopenmpi-dev lacks a few internal headers
# (opal/mca/threads/pthreads/*.h): configure uses hiercoll's stand-ins
# (compat/ompi5), or, once 'src' has unpacked the source package of the
# same version, given in the same command (... src build), that tree
# (--with-ompi-source).  A build directory configured the other way is
# configured again and cleaned; a configure older than configure.ac (a root
# that built an earlier tree) is generated again.
WITH_SOURCE=
build() {
    copy_source
    say "building hiercoll in $ROOT/src/hiercoll/_build${WITH_SOURCE:+ (--with-ompi-source)}"
    in_root 'cd /src/hiercoll && { { [ -x configure ] && [ configure -nt configure.ac ]; } || ./autogen.sh >/dev/null; } && mkdir -p _build && cd _build &&
        args=; [ -z "'"$WITH_SOURCE"'" ] || args="--with-ompi-source=$(ls -d /usr/src/ompi/openmpi-5*/ | head -1)"
        { { [ -f Makefile ] && [ "$(cat .hc-configure-args 2>/dev/null)" = "x$args" ]; } || {
            ../configure $args && { [ ! -f .hc-configure-args ] || make clean >/dev/null; } &&
            echo "x$args" >.hc-configure-args; }; } &&
        make $HC_JOBS'
}

check() {
    build
    say "make check inside $ROOT"
    in_root 'cd /src/hiercoll/_build && make $HC_JOBS check' ||
        { rc=$?; say "make check failed inside the root (logs: $ROOT/src/hiercoll/_build/test/logs)"; exit $rc; }
}

source_tree() {
    in_root 'mkdir -p /usr/src/ompi && cd /usr/src/ompi &&
        { ls -d openmpi-5*/ >/dev/null 2>&1 ||
          { apt-get update -q >/dev/null && apt-get source -q --download-only openmpi >/dev/null &&
            dpkg-source -x openmpi_*.dsc >/dev/null; }; } && ls -d /usr/src/ompi/openmpi-5*/'
}

[ $# -gt 0 ] || set -- all
if [ "$1" = run ]; then
    shift
    make_root && copy_source
    in_root "cd /src/hiercoll && $*"
    exit
fi
for step in "$@"; do
    case $step in
    root) make_root ;;
    build) make_root && build ;;
    check) make_root && check ;;
    src) make_root && source_tree && WITH_SOURCE=1 ;;
    ompi_info)
        make_root && build
        in_root 'OMPI_MCA_mca_base_component_path=/src/hiercoll/_build/ompi/mca/coll/hiercoll/.libs:$(ompi_info --path pkglibdir 2>/dev/null | sed -n "s/.*Pkglibdir: *//p") ompi_info --param coll hiercoll --level 9'
        ;;
    shell) make_root && in_root 'cd /src/hiercoll/_build 2>/dev/null; exec /bin/bash' ;;

    all) make_root && check ;;
    *) say "unknown step '$step'"; exit 2 ;;
    esac
done
