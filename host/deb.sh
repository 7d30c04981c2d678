#!/bin/sh
# Host side: make deb: gpiolat's Debian packages, built with Debian's own tools (debhelper,
# dh-dkms, dpkg-buildpackage; debian/) in a root of the release the packages are for.
# Usage: host/deb.sh OUTDIR [DEBARCH...]   (DEBARCH: amd64 armhf arm64; default all three)
#
# The packages are for Debian 13 (trixie): they are built in a root of that release,
# out/roots/trixie-deb (host/rootfs.sh), against its libraries, so that dh_shlibdeps names its
# packages (libbpf1 1.5, libgpiod3, libtracefs1, libjson-c5); built on Debian 12 they would need
# libgpiod2, which Debian 13 does not have. amd64 natively, armhf and arm64 cross-built
# (dpkg-buildpackage -a: crossbuild-essential-ARCH, the -dev packages of that architecture installed
# in the root with multiarch, apt-get build-dep -a). That root's apt reads the release's main suite
# only (its point release: host/rootfs.sh --main-only), not -updates and -security: with multiarch a
# Multi-Arch: same library must be the same version on every architecture, and a foreign
# architecture's -security index that fails to download (a mirror mid-sync: trixie-security's armhf
# and arm64 on 2026-11-26) leaves the host's updated library without its foreign twin (libzstd1
# 1.5.7+dfsg-1+deb13u1 against armhf's 1.5.7+dfsg-1: build-dep cannot install). The main suite's
# indexes are signed and consistent across architectures. Each architecture builds from a copy of
# the tree in OUTDIR/build/DEBARCH/gpiolat-VERSION (dpkg-buildpackage writes beside its source
# folder);
# the first architecture's build (-b) makes the architecture-independent gpiolat-toggle-dkms too,
# the others' (-B) only gpiolat: so DEBARCH armhf alone makes both packages a board needs
# (dpkg-buildpackage -b -a armhf: gpiolat cross-built, the -dkms package as it is everywhere).
# What a call builds replaces what an earlier one left in OUTDIR (no stale package). lintian (the
# root's) checks each build's .changes; its output goes to OUTDIR/lintian-DEBARCH.txt, and an
# error stops the build. The packages land in OUTDIR.
set -eu

out=${1:?usage: host/deb.sh OUTDIR [amd64|armhf|arm64]...}
shift
[ $# -gt 0 ] || set -- amd64 armhf arm64
here=$(cd "$(dirname "$0")" && pwd)
proj=$(dirname "$here")
root=$proj/out/roots/trixie-deb
for a in "$@"; do
	case $a in
	amd64 | armhf | arm64) ;;
	*) echo "host/deb.sh: unknown architecture '$a' (amd64, armhf, arm64)" >&2; exit 2 ;;
	esac
done
version=$(sed -n '1s/^gpiolat (\([^)]*\)).*/\1/p' "$proj/debian/changelog")
[ -n "$version" ] || { echo "host/deb.sh: no version in debian/changelog" >&2; exit 1; }
mkdir -p "$out/build"
out=$(cd "$out" && pwd)
case $out/ in
"$proj"/*) ;;
*) echo "host/deb.sh: OUTDIR must be inside $proj (the root sees only that)" >&2; exit 2 ;;
esac

# the root (made once) with the build's tools, asked of host/rootfs.sh (a root's packages are
# its content cache's key: a clean clone takes it from the cache, 5 to 8 s, where apt installed
# them, about 45 s): the same ask whatever architectures a call builds (the cross compilers
# of armhf and arm64, both foreign architectures), so that every call (make test's two halves, in
# either order) finds the same root. Then the build-deps of each call's architectures
# (apt-get build-dep, below), installed with the indexes the root has, refreshed first only when
# something is missing from them (a mirror mid-sync may fail some indexes, a foreign
# architecture's most often: the ones there are are used, and apt says which package it then
# cannot find)
hostarch=$(dpkg --print-architecture)
tools="build-essential debhelper dh-dkms lintian fakeroot"
foreign=
for a in armhf arm64; do
	[ "$a" = "$hostarch" ] && continue
	tools="$tools crossbuild-essential-$a"
	foreign="$foreign -a $a"
done
# shellcheck disable=SC2086
sh "$here/rootfs.sh" --main-only $foreign trixie "$root" $tools || {
	echo "host/deb.sh: cannot make $root with the build's tools:$foreign $tools" >&2
	exit 1
}
inroot() { sh "$here/inroot.sh" "$root" "$@"; }
rootapt() { flock "$root.lock" sh "$here/inroot.sh" "$root" env DEBIAN_FRONTEND=noninteractive "$@"; }
# the update every package step shares: an index a mirror mid-sync fails to serve is gone
# without and named (host/apt.sh)
update() { rootapt sh "$here/apt.sh" update "$root" || exit 1; }
native=$(chroot "$root" dpkg --print-architecture)
# an architecture host/rootfs.sh does not add (amd64 on an ARM machine): added here, with its
# cross compiler, installed by apt
need=
for a in "$@"; do
	[ "$a" = "$native" ] && continue
	if ! chroot "$root" dpkg --print-foreign-architectures | grep -qx "$a"; then
		chroot "$root" dpkg --add-architecture "$a"
		update
	fi
	s=$(chroot "$root" dpkg-query -W -f='${db:Status-Status}' "crossbuild-essential-$a" 2>/dev/null || true)
	[ "$s" = installed ] || need="$need crossbuild-essential-$a"
done
if [ -n "$need" ]; then
	echo "  DEB     installing in $root:$need"
	# shellcheck disable=SC2086
	rootapt apt-get install -y -qq $need >"$out/build/apt-install.log" 2>&1 || {
		update
		rootapt apt-get install -y -qq $need >"$out/build/apt-install.log" 2>&1
	} || {
		echo "host/deb.sh: cannot install$need in $root: $(grep '^E:' "$out/build/apt-install.log" | head -n 1)" >&2
		exit 1
	}
fi

for a in "$@"; do
	b=$out/build/$a
	src=$b/gpiolat-$version
	rm -rf "$b"
	mkdir -p "$src"
	# the tree as it is (tracked and new files, not what .gitignore names: out/)
	(cd "$proj" && git ls-files -z -co --exclude-standard | tar --null -T - -cf -) |
		tar -xf - -C "$src"
	aopt=
	[ "$a" = "$native" ] || aopt="-a $a"
	if [ "$a" = "$1" ]; then
		what=-b
		rm -f "$out"/gpiolat-toggle-dkms_*_all.deb
	else
		what=-B
	fi
	rm -f "$out"/gpiolat_*_"$a".deb "$out/lintian-$a.txt"
	echo "  DEB     $a (Debian 13, in $root)"
	# shellcheck disable=SC2086
	(cd "$src" && rootapt apt-get build-dep -y -qq $aopt ./) >"$b/build-dep.log" 2>&1 || {
		update
		# shellcheck disable=SC2086
		(cd "$src" && rootapt apt-get build-dep -y -qq $aopt ./) >"$b/build-dep.log" 2>&1
	} || {
		echo "host/deb.sh: apt-get build-dep $aopt in $root failed: $(grep '^E:' "$b/build-dep.log" | head -n 2) (log: $b/build-dep.log)" >&2
		exit 1
	}
	# shellcheck disable=SC2086
	(cd "$src" && inroot env DEB_BUILD_OPTIONS="parallel=2" dpkg-buildpackage -us -uc $what $aopt) \
		>"$b/build.log" 2>&1 || {
		tail -n 30 "$b/build.log"
		echo "host/deb.sh: dpkg-buildpackage $what $aopt failed (log: $b/build.log)" >&2
		exit 1
	}
	changes=$(ls "$b"/gpiolat_"$version"_"$a".changes)
	inroot lintian --tag-display-limit 0 "$changes" >"$out/lintian-$a.txt" 2>&1 || true
	sed 's/^/  LINTIAN /' "$out/lintian-$a.txt"
	if grep -q '^E: ' "$out/lintian-$a.txt"; then
		echo "host/deb.sh: lintian found errors in the $a build" >&2
		exit 1
	fi
	# (the -dbgsym packages stay in the build folder)
	for f in "$b"/*.deb; do
		case $f in *-dbgsym_*) continue ;; esac
		cp "$f" "$out/"
		echo "  DEB     $out/$(basename "$f") ($(wc -c <"$f") bytes)"
	done
done
