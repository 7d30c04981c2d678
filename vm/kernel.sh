#!/bin/sh
# Host side: fetch Debian's kernel for the emulated target, without installing it as the host
# kernel. Usage: vm/kernel.sh KERNEL ARCH DIR
#   KERNEL: std, rt (Debian 12's 6.1), 6.12, 6.12-rt (Debian 12's 6.12)
#   ARCH:   x86_64 (amd64), arm (armhf: armmp, rt-armmp), arm64 (arm64, rt-arm64)
#
# The ABI (e.g. 6.1.0-56) is discovered from the linux-image-* metapackage every time: it changes
# with security updates. The image is downloaded with apt-get download, extracted with dpkg-deb,
# its modules indexed with depmod -b, and the matching headers package installed (to build
# kmod/ for it; a foreign architecture's extracted into DIR/headers instead). Writes
# DIR/release (the kernel release string), DIR/package (the image package, naming the ABI),
# DIR/arch and DIR/build (the headers' build folder) when all of that is in place; a second run
# with the same ABI does nothing. A foreign architecture is added to dpkg (dpkg
# --add-architecture) when missing.
#
# When the metapackage's version cannot be downloaded (an index out of sync: apt reports a size
# or hash mismatch, seen for armhf's security index), the newest other version of the same
# metapackage that apt knows (the main archive's) is taken instead, and said.
set -eu

usage="usage: vm/kernel.sh std|rt|6.12|6.12-rt x86_64|arm|arm64 DIR"
kernel=${1:?$usage}
arch=${2:?$usage}
dir=${3:?$usage}

case $arch in
x86_64) deb=amd64 flavour=amd64 ;;
arm) deb=armhf flavour=armmp ;;
arm64) deb=arm64 flavour=arm64 ;;
*) echo "vm/kernel.sh: unknown architecture '$arch' (x86_64, arm or arm64)" >&2; exit 2 ;;
esac
case $kernel in
std) meta=linux-image-$flavour ;;
rt) meta=linux-image-rt-$flavour ;;
6.12) meta=linux-image-6.12-$flavour ;;
6.12-rt) meta=linux-image-6.12-rt-$flavour ;;
*) echo "vm/kernel.sh: unknown kernel '$kernel' (std, rt, 6.12 or 6.12-rt)" >&2; exit 2 ;;
esac
native=$(dpkg --print-architecture)
if [ "$deb" = "$native" ]; then
	q=
else
	q=:$deb
	if ! dpkg --print-foreign-architectures | grep -qx "$deb"; then
		dpkg --add-architecture "$deb"
		apt-get update -qq >/dev/null 2>&1 || true
	fi
fi

# versions: the metapackage's versions apt knows, newest first; dep VERSION: its image package
versions() {
	apt-cache madison "$meta$q" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		awk '!seen[$0]++'
}
dep() {
	apt-cache show "$meta$q=$1" 2>/dev/null |
		sed -n 's/^Depends: .*\(linux-image-[0-9][^ ,]*\).*$/\1/p' | head -n 1
}
vers=$(versions)
if [ -z "$vers" ]; then
	# a machine whose package lists were never fetched
	apt-get update -qq >/dev/null 2>&1 || true
	vers=$(versions)
fi
if [ -z "$vers" ]; then
	echo "vm/kernel.sh: cannot resolve $meta$q (run 'apt-get update' first?)" >&2
	exit 1
fi

mkdir -p "$dir"
tried=
for v in $vers; do
	pkg=$(dep "$v")
	[ -n "$pkg" ] || continue
	release=${pkg#linux-image-}
	if [ -f "$dir/release" ] && [ "$(cat "$dir/release")" = "$release" ] &&
		[ -f "$dir/build" ] && [ -d "$(cat "$dir/build")/" ]; then
		exit 0
	fi
	rm -rf "$dir/deb"
	mkdir -p "$dir/deb"
	# apt-get download drops privileges to _apt: give it a directory it may write
	chmod 777 "$dir/deb"
	if (cd "$dir/deb" && apt-get download -qq "$pkg$q" 2>../download.log) &&
		ls "$dir"/deb/"$pkg"_*.deb >/dev/null 2>&1; then
		break
	fi
	echo "vm/kernel.sh: $pkg$q ($meta $v) cannot be downloaded:" \
		"$(grep -v 'unsandboxed' "$dir/download.log" | head -n 1)" >&2
	tried="$tried $pkg"
	pkg=
done
if [ -z "$pkg" ]; then
	echo "vm/kernel.sh: no version of $meta$q could be downloaded (tried:$tried)" >&2
	exit 1
fi
[ -z "$tried" ] || echo "vm/kernel.sh: took $pkg$q instead (the newest one apt could fetch)" >&2
headers=linux-headers-$release

echo "  KERNEL  $pkg$q (emulated target, $kernel, $arch)"
if [ -z "$q" ]; then
	if [ ! -d "/usr/src/$headers" ]; then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
			"$headers" >/dev/null
	fi
	build=/lib/modules/$release/build
else
	# A foreign architecture's headers package depends on that architecture's gcc, which apt
	# would install in place of the host's: its files are extracted into DIR/headers instead
	# (with the -common package it includes), and run the host's linux-kbuild (the same
	# series; Multi-Arch: foreign), with the cross compiler (the top Makefile's
	# CROSS_COMPILE).
	common=$(apt-cache show "$headers$q" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',' '\n' | sed -n 's/^ *\(linux-headers-[^ ]*-common[^ ]*\).*/\1/p')
	(cd "$dir/deb" && apt-get download -qq "$headers$q" $common 2>../download.log) || {
		echo "vm/kernel.sh: cannot download $headers$q $common:" \
			"$(grep -v 'unsandboxed' "$dir/download.log" | head -n 1)" >&2
		exit 1
	}
	rm -rf "$dir/headers"
	for d in "$dir"/deb/linux-headers-*.deb; do
		dpkg-deb -x "$d" "$dir/headers"
	done
	# the host's kbuild for "scripts -> ../../lib/linux-kbuild-6.1/scripts" and "tools"
	find "$dir/headers" -type l -lname '../../lib/linux-kbuild-*' | while read -r l; do
		ln -sfn "/usr/lib/$(readlink "$l" | sed 's|^\.\./\.\./lib/||')" "$l"
	done
	# "include /usr/src/linux-headers-...-common/Makefile": the extracted one
	sed -i "s|^include /usr/src/|include $(cd "$dir" && pwd)/headers/usr/src/|" \
		"$dir/headers/usr/src/$headers/Makefile"
	build=$(cd "$dir" && pwd)/headers/usr/src/$headers
fi
rm -rf "$dir/root"
mkdir -p "$dir/root"
dpkg-deb -x "$dir"/deb/"$pkg"_*.deb "$dir/root"
rm -rf "$dir/deb"
depmod -b "$dir/root" "$release"
rm -f "$dir/vmlinuz"
ln -s "root/boot/vmlinuz-$release" "$dir/vmlinuz"
echo "$pkg$q" >"$dir/package"
echo "$build" >"$dir/build"
echo "$arch" >"$dir/arch"
echo "$release" >"$dir/release"
