#!/bin/sh
# Host side: one archive to copy to a board: make dist [ARCH=arm|arm64|x86_64].
# Usage: host/dist.sh ARCH BINDIR OUTPUT.tar.gz
#
# BINDIR holds the static gpiolat, utoggle and mmtoggle for ARCH, toggle.sh (and RELEASE.btf
# for a kernel without BTF of its own, which gpiolat finds beside itself). The archive has them
# in bin/, toggle.ko for each Debian kernel of ARCH made here (kmod/RELEASE/toggle.ko) and the
# module's sources (kmod/: build it on the board against its own headers), ply/, study/, and a
# README.md made of docs/board.md (without its title), with the size of each binary.
set -eu

arch=${1:?usage: host/dist.sh ARCH BINDIR OUTPUT}
bindir=${2:?usage: host/dist.sh ARCH BINDIR OUTPUT}
out=${3:?usage: host/dist.sh ARCH BINDIR OUTPUT}
proj=$(cd "$(dirname "$0")/.." && pwd)
name=gpiolat-$arch

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/$name
mkdir -p "$d/bin" "$d/kmod"
cp "$bindir/gpiolat" "$bindir/utoggle" "$bindir/mmtoggle" "$bindir/toggle.sh" "$d/bin/"
for b in "$bindir"/*.btf; do
	[ -e "$b" ] && cp "$b" "$d/bin/"
done
cp "$proj"/kmod/*.c "$proj"/kmod/*.h "$proj/kmod/Kbuild" "$d/kmod/"
for k in "$proj/out/target/$arch"-*; do
	[ -f "$k/toggle.ko" ] || continue
	mkdir -p "$d/kmod/$(cat "$k/release")"
	cp "$k/toggle.ko" "$d/kmod/$(cat "$k/release")/"
done
cp -r "$proj/ply" "$proj/study" "$d/"
{
	echo "# gpiolat for $arch"
	echo
	echo "Static binaries (no library needed on the board), built from gpiolat" \
		"$(sed -n '1s/^gpiolat (\([^)]*\)).*/\1/p' "$proj/debian/changelog") ($(cd "$proj" &&
		git describe --always --dirty 2>/dev/null || echo 'no git')):"
	echo
	for f in "$d"/bin/* "$d"/kmod/*/toggle.ko; do
		[ -e "$f" ] || continue
		echo "- \`${f#"$d"/}\`: $(wc -c <"$f") bytes"
	done
	echo
	# docs/board.md, its title made a section of this README
	sed '1s/^# .*/## On a board/' "$proj/docs/board.md"
} >"$d/README.md"
mkdir -p "$(dirname "$out")"
tar -C "$tmp" -czf "$out.tmp" "$name"
mv "$out.tmp" "$out"
echo "  DIST    $out ($(wc -c <"$out") bytes)"
