#!/bin/sh
#
# Copyright (c) 2026 The hiercoll authors.
# $COPYRIGHT$
#
# Additional copyrights may follow
#
# $HEADER$
#
# The Debian package, built and tested the way a site installs it
# (make check-deb; as root):
#
#   1. build it (dpkg-buildpackage -us -uc -b) from a clean copy of this
#      tree on the host (Debian 12: Open MPI 4.1) and in the Debian 13 root
#      of contrib/ompi5-root.sh (Open MPI 5.0); lintian on both (an error
#      fails the test);
#   2. for each: a FRESH minimal root of that release (mmdebstrap --variant
#      apt, unpacked from a cached tarball), where "apt-get install
#      ./openmpi-coll-hiercoll_*.deb" resolves every dependency from the
#      archive; there ompi_info lists hiercoll and its parameters, hc_demo
#      says "all results right" with hiercoll selected without any --mca
#      (priority 40), a bad parameter gives its message from the help file
#      installed in Open MPI's pkgdatadir, the conffile
#      /etc/openmpi/hiercoll-mca-params.conf turns hiercoll off, then
#      loads a rules file hc_tune wrote, and "apt-get purge" leaves no file
#      of the package behind.
#
#   contrib/deb-test.sh [build] [test] [all]      (default: all)
#
# Environment:
#   HIERCOLL_OMPI5_ROOT     the Debian 13 root (as contrib/ompi5-root.sh)
#   HIERCOLL_DEB_CACHE      cached base roots (tarballs) and apt archives,
#                           and the built packages (debs/SUITE/); default
#                           /var/cache/hiercoll
#   HIERCOLL_DEBIAN_MIRROR  the archive (default: this machine's apt
#                           sources, contrib/apt-archive.sh)
#   HIERCOLL_DEB_SUITES     default "bookworm trixie"
#
# The base roots are made once (a minute or two each) and kept as
# tarballs, with the .debs apt downloaded (bound into each fresh root's
# /var/cache/apt/archives); a base older than 30 days is made again.
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${HIERCOLL_DEB_CACHE:-/var/cache/hiercoll}
SUITES=${HIERCOLL_DEB_SUITES:-bookworm trixie}
OUT=$CACHE/debs
PKG=openmpi-coll-hiercoll

say() { echo "deb-test: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }

[ "$(id -u)" = 0 ] || { say "needs root (dpkg-buildpackage, mmdebstrap, chroot)"; exit 77; }
for t in dpkg-buildpackage dh mmdebstrap lintian; do
    command -v $t >/dev/null || fail "$t is not installed (contrib/install-deps.sh installs it)"
done

# A clean copy of the source: the tracked and untracked, not ignored files
# (no build products, no _build).
copy_tree() {
    mkdir -p "$1"
    (cd "$SRC" && { git ls-files -z --cached --others --exclude-standard 2>/dev/null ||
        find . -path ./_build -prune -o -path ./.git -prune -o -type f -print0; }) |
        (cd "$SRC" && xargs -0 cp --parents -p -t "$1")
    [ -f "$1/debian/rules" ] || fail "copying the source to $1"
}

build_host() {
    suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
    work=$(mktemp -d /var/tmp/hiercoll-deb.XXXXXX)
    copy_tree "$work/hiercoll"
    say "$suite: dpkg-buildpackage -us -uc -b (log: $work/build.log)"
    (cd "$work/hiercoll" && dpkg-buildpackage -us -uc -b >"$work/build.log" 2>&1) ||
        { tail -30 "$work/build.log"; fail "$suite: the package did not build"; }
    mkdir -p "$OUT/$suite"
    rm -f "$OUT/$suite"/*.deb
    mv "$work"/*.deb "$OUT/$suite/"
    rm -rf "$work"
}

build_trixie() {
    root=${HIERCOLL_OMPI5_ROOT:-/var/cache/hiercoll/trixie-root}
    say "trixie: dpkg-buildpackage -us -uc -b in $root (log: $root/src/deb/build.log)"
    # debhelper: a root made before ompi5-root.sh listed it gets it now.
    sh "$SRC/contrib/ompi5-root.sh" run '
        command -v dh >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -q --no-install-recommends debhelper; } >/dev/null
        rm -rf /src/deb && mkdir -p /src/deb/hiercoll &&
        tar -C /src/hiercoll --exclude=./_build -cf - . | tar -C /src/deb/hiercoll -xf - &&
        cd /src/deb/hiercoll && dpkg-buildpackage -us -uc -b >../build.log 2>&1 ||
        { tail -30 ../build.log; exit 1; }' || fail "trixie: the package did not build"
    mkdir -p "$OUT/trixie"
    rm -f "$OUT/trixie"/*.deb
    cp "$root"/src/deb/*.deb "$OUT/trixie/"
}

lint() {
    for deb in "$OUT/$1/${PKG}_"*.deb; do
        say "$1: lintian $(basename "$deb")"
        lintian -I --pedantic "$deb" 2>&1 | grep -v '^running with root privileges' | tee "$OUT/$1/lintian.txt" || true
        ! grep -q '^E:' "$OUT/$1/lintian.txt" || fail "$1: lintian reports errors"
        [ -s "$OUT/$1/lintian.txt" ] || say "$1: lintian: nothing to report"
    done
}

# The base root of a release: mmdebstrap's apt variant (apt, dpkg and
# the essential packages), from this machine's archive, cached.
base_root() {
    tarball=$CACHE/base-$1.tar
    if [ -f "$tarball" ] && [ -n "$(find "$tarball" -mtime -30)" ]; then
        return 0
    fi
    mirror=$(sh "$SRC/contrib/apt-archive.sh") || exit 1
    say "$1: making the base root $tarball from $mirror (once)"
    mkdir -p "$CACHE"
    mmdebstrap --mode=root --variant=apt --format=tar --aptopt='Acquire::Retries "3"' \
        "$1" "$tarball.tmp" "deb $mirror $1 main" >"$CACHE/base-$1.log" 2>&1 ||
        { tail -20 "$CACHE/base-$1.log"; fail "$1: mmdebstrap"; }
    mv "$tarball.tmp" "$tarball"
}

# Run a script in the fresh root $1 as root, in a mount namespace of its
# own (/proc, /sys, /dev, /dev/shm bound, apt's archive cache too).
in_fresh() {
    cp -L /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
    mkdir -p "$CACHE/apt-$3/partial"
    unshare --mount --propagation private /bin/sh -c '
        for d in proc sys dev dev/pts dev/shm; do
            mkdir -p "$0/$d" && mount --bind "/$d" "$0/$d" || exit 1
        done
        mount --bind "$2" "$0/var/cache/apt/archives" || exit 1
        exec chroot "$0" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin \
            HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            PRTE_ALLOW_RUN_AS_ROOT=1 PRTE_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
            /bin/sh -c "$1"' "$1" "$2" "$CACHE/apt-$3"
}

# What runs inside the fresh root (sh; the .deb is in /tmp).
TEST_SCRIPT='set -eu
pkg='$PKG'
conf=/etc/openmpi/hiercoll-mca-params.conf
ok() { echo "  ok: $*"; }
no() { echo "  FAILED: $*"; exit 1; }
mpi() { mpirun --oversubscribe "$@" 2>&1; }

echo "== apt-get install ./$(basename /tmp/${pkg}_*.deb)"
apt-get update -q >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; no "apt-get update"; }
apt-get install -y -q /tmp/${pkg}_*.deb >/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; no "apt-get install"; }
ok "installed $(dpkg-query -W -f="\${Package} \${Version}" $pkg) and $(($(grep -c "^Setting up" /tmp/apt.log) - 1)) packages from the archive, $(dpkg-query -W -f="\${Package} \${Version}" openmpi-bin) among them"
dpkg-query -L $pkg >/tmp/pkg.files

echo "== ompi_info"
dir=$(ompi_info --path pkglibdir 2>/dev/null | sed -n "s/.*Pkglibdir: *//p")
[ -f "$dir/mca_coll_hiercoll.so" ] && ok "component in ompi_info --path pkglibdir: $dir" || no "no $dir/mca_coll_hiercoll.so"
ompi_info 2>/dev/null | grep "MCA coll: hiercoll" || no "ompi_info does not list hiercoll"
params=$(ompi_info --param coll hiercoll --level 9 --parsable 2>/dev/null)
n=$(echo "$params" | grep -c ":param:coll_hiercoll_[a-z_0-9]*:value:" || true)
[ "$n" -ge 20 ] && ok "ompi_info --param coll hiercoll --level 9: $n parameters" || no "$n parameters"
echo "$params" | grep -q ":coll_hiercoll_priority:value:40$" && ok "priority 40" || no "priority is not 40"
echo "$params" | grep -q ":coll_hiercoll_site_file:value:$conf$" && ok "site file $conf" || no "site file"
data=$(ompi_info --path pkgdatadir 2>/dev/null | sed -n "s/.*Pkgdatadir: *//p")
grep -qx "$data/help-coll-hiercoll.txt" /tmp/pkg.files && [ -f "$data/help-coll-hiercoll.txt" ] &&
    ok "help-coll-hiercoll.txt in ompi_info --path pkgdatadir: $data" || no "no help-coll-hiercoll.txt in $data"
for p in hc_bench hc_tune hc_cost hc_demo; do
    [ -x /usr/bin/$p ] && [ -f /usr/share/man/man1/$p.1.gz ] || no "$p or its man page"
done
ok "hc_bench hc_tune hc_cost hc_demo in /usr/bin, with man pages"
[ -f /usr/share/doc/$pkg/README.md.gz ] && [ -f /usr/share/doc/$pkg/HACKING.md.gz ] && ok "README and HACKING" || no "docs"
[ -f /usr/share/man/man7/hiercoll.7.gz ] && [ -d /usr/share/doc/$pkg/docs ] && ok "man 7 hiercoll and the manual (docs/)" ||
    no "man 7 hiercoll or docs/"
dpkg-query -W -f="\${Conffiles}\n" $pkg | grep -q " $conf " && ok "$conf is a conffile" || no "$conf is no conffile"
hc_cost basic --n 4 >/dev/null && ok "hc_cost runs" || no "hc_cost"

echo "== mpirun -np 4 hc_demo (no --mca; OMPI_MCA_coll_hiercoll_verbose=1 shows who runs)"
out=$(OMPI_MCA_coll_hiercoll_verbose=1 mpi -np 4 hc_demo) || { echo "$out"; no "hc_demo"; }
echo "$out" | grep "all results right" || { echo "$out"; no "hc_demo"; }
if echo "$out" | grep -q "hiercoll: MPI_COMM_WORLD (cid"; then
    ok "hiercoll runs MPI_COMM_WORLD by default"
elif mpi -np 1 printenv OMPI_MCA_mca_base_component_path | grep -q "/pmix"; then
    # Debian 13: pmix-mca-params.conf sets mca_base_component_path (PMIx
    # plugins), and mpirun passes it on to every process as Open MPI'"'"'s
    # own: no component of Open MPI'"'"'s directory loads in an mpirun job.
    echo "  known Debian 13 issue: mpirun gives every process OMPI_MCA_mca_base_component_path=$(mpi -np 1 printenv OMPI_MCA_mca_base_component_path)"
    echo "  (from PMIx'"'"'s pmix-mca-params.conf): the runs below set OMPI_MCA_mca_base_component_path=$dir"
    export OMPI_MCA_mca_base_component_path=$dir
    out=$(OMPI_MCA_coll_hiercoll_verbose=1 mpi -np 4 hc_demo) || { echo "$out"; no "hc_demo"; }
    echo "$out" | grep -q "all results right" || { echo "$out"; no "hc_demo"; }
    echo "$out" | grep -q "hiercoll: MPI_COMM_WORLD (cid" && ok "all results right, hiercoll runs MPI_COMM_WORLD (no --mca)" ||
        { echo "$out"; no "hiercoll was not selected"; }
else
    echo "$out"; no "hiercoll was not selected"
fi

echo "== a bad parameter: hiercoll'"'"'s message, through Open MPI'"'"'s show_help"
out=$(mpi -np 2 --mca coll_hiercoll_verbose 7 hc_demo) || { echo "$out"; no "hc_demo"; }
echo "$out" | grep -q "all results right" || { echo "$out"; no "hc_demo with a bad parameter"; }
! echo "$out" | grep -q "You were supposed to get help" || { echo "$out"; no "show_help did not find the topic"; }
echo "$out" | grep -q "hiercoll cannot use the values above" || { echo "$out"; no "no explanation"; }
echo "$out" | grep "hiercoll: ERROR: coll_hiercoll_verbose=" | sed "s/^/  /"
ok "the message and its explanation (help-coll-hiercoll.txt, topic bad-parameter-value)"

echo "== the conffile turns hiercoll off (coll_hiercoll_priority = -1)"
cp $conf /tmp/conf.orig
echo "coll_hiercoll_priority = -1" >>$conf
ompi_info --param coll hiercoll --level 9 --parsable 2>/dev/null | grep -q ":coll_hiercoll_priority:value:-1$" &&
    ok "ompi_info: priority -1" || no "ompi_info does not show priority -1"
out=$(OMPI_MCA_coll_hiercoll_verbose=1 mpi -np 4 hc_demo) || { echo "$out"; no "hc_demo"; }
echo "$out" | grep -q "all results right" || { echo "$out"; no "hc_demo without hiercoll"; }
! echo "$out" | grep -q "hiercoll: MPI_COMM_WORLD (cid" && ok "all results right, hiercoll runs nothing" ||
    { echo "$out"; no "hiercoll still selected"; }
out=$(OMPI_MCA_coll_hiercoll_verbose=1 OMPI_MCA_coll_hiercoll_priority=40 mpi -np 4 hc_demo) || no "hc_demo"
echo "$out" | grep -q "hiercoll: MPI_COMM_WORLD (cid" && ok "the environment still wins over the conffile" ||
    { echo "$out"; no "OMPI_MCA_coll_hiercoll_priority=40 did not turn it on"; }

echo "== the conffile names the rules file hc_tune wrote"
cp /tmp/conf.orig $conf
hc_tune -n 2 --colls allreduce --min 8 --max 8K --trials 3 --runs 1 -o /etc/openmpi/hiercoll.rules >/tmp/tune.log 2>&1 ||
    { cat /tmp/tune.log; no "hc_tune"; }
head -1 /etc/openmpi/hiercoll.rules | grep -q "^hiercoll-rules 1" || no "hc_tune wrote no rules"
grep "^allreduce" /etc/openmpi/hiercoll.rules
echo "coll_hiercoll_rules_file = /etc/openmpi/hiercoll.rules" >>$conf
out=$(OMPI_MCA_coll_hiercoll_verbose=2 mpi -np 2 hc_demo) || { echo "$out"; no "hc_demo"; }
echo "$out" | grep -q "all results right" || { echo "$out"; no "hc_demo with the rules"; }
echo "$out" | grep -m1 "by rule /etc/openmpi/hiercoll.rules:" | sed "s/^\[[^]]*\] /  /" ||
    { echo "$out" | grep hiercoll | head; no "the rules file was not used"; }
ok "all results right, allreduce chosen by the site rules"
rm -f /etc/openmpi/hiercoll.rules

echo "== apt-get purge $pkg"
apt-get purge -y -q $pkg >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; no "apt-get purge"; }
dpkg-query -W -f="\${db:Status-Abbrev}" $pkg 2>/dev/null | grep -q "^ii" && no "still installed"
left=0
while read -r f; do
    [ "$f" != /. ] || continue
    if [ -d "$f" ] && [ ! -L "$f" ]; then
        # a directory may stay when another package owns it
        dpkg-query -S "$f" >/dev/null 2>&1 || { echo "  left: $f/"; left=1; }
    elif [ -e "$f" ] || [ -L "$f" ]; then
        echo "  left: $f"; left=1
    fi
done </tmp/pkg.files
for f in $conf $conf.dpkg-old $conf.dpkg-dist $conf.dpkg-new; do
    [ ! -e "$f" ] || { echo "  left: $f"; left=1; }
done
[ $left = 0 ] && ok "no file of the package is left ($(wc -l </tmp/pkg.files) paths checked)" || no "files left"
'

test_suite() {
    suite=$1
    deb=$(ls "$OUT/$suite/${PKG}_"*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || fail "$suite: no package in $OUT/$suite (build first)"
    base_root "$suite"
    r=$(mktemp -d /var/tmp/hiercoll-debroot.XXXXXX)
    tar -C "$r" -xf "$CACHE/base-$suite.tar"
    cp "$deb" "$r/tmp/"
    say "$suite: fresh root $r: install, test, purge $(basename "$deb")"
    rc=0
    in_fresh "$r" "$TEST_SCRIPT" "$suite" || rc=$?
    rm -rf "$r"
    [ $rc = 0 ] || fail "$suite: the package test"
    say "$suite: passed"
}

do_build() {
    for s in $SUITES; do
        case $s in
        trixie) build_trixie ;;
        *) build_host ;;
        esac
        lint "$s"
    done
}

do_test() {
    for s in $SUITES; do
        test_suite "$s"
    done
}

[ $# -gt 0 ] || set -- all
for step in "$@"; do
    case $step in
    build) do_build ;;
    test) do_test ;;
    all) do_build && do_test ;;
    *) say "unknown step '$step'"; exit 2 ;;
    esac
done
