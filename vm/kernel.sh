#!/bin/sh
# Host side: fetch Debian's kernel for the emulated target, without installing it as the host
# kernel. Usage: vm/kernel.sh FLAVOUR DIR   (FLAVOUR: std or rt)
#
# The ABI (e.g. 6.1.0-56) is discovered from the linux-image-* metapackage every time: it changes
# with security updates. The image is downloaded with apt-get download, extracted with dpkg-deb,
# its modules indexed with depmod -b, and the matching headers package installed (to build
# kmod/ for it). Writes DIR/release (the kernel release string) when all of that is in place;
# a second run with the same ABI does nothing.
set -eu

flavour=${1:?usage: vm/kernel.sh std|rt DIR}
dir=${2:?usage: vm/kernel.sh std|rt DIR}

case $flavour in
std) meta=linux-image-amd64 ;;
rt) meta=linux-image-rt-amd64 ;;
*) echo "vm/kernel.sh: unknown kernel flavour '$flavour' (std or rt)" >&2; exit 2 ;;
esac

resolve() {
	apt-cache depends "$meta" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' |
		head -n 1
}
pkg=$(resolve)
if [ -z "$pkg" ]; then
	# a machine whose package lists were never fetched
	apt-get update -qq >/dev/null 2>&1 || true
	pkg=$(resolve)
fi
if [ -z "$pkg" ]; then
	echo "vm/kernel.sh: cannot resolve $meta (run 'apt-get update' first?)" >&2
	exit 1
fi
release=${pkg#linux-image-}
headers=linux-headers-$release

if [ -f "$dir/release" ] && [ "$(cat "$dir/release")" = "$release" ] &&
	[ -d "/usr/src/$headers" ]; then
	exit 0
fi

echo "  KERNEL  $pkg (emulated target, $flavour)"
if [ ! -d "/usr/src/$headers" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$headers" >/dev/null
fi

rm -rf "$dir"
mkdir -p "$dir/deb" "$dir/root"
# apt-get download drops privileges to _apt: give it a directory it may write
chmod 777 "$dir/deb"
if ! (cd "$dir/deb" && apt-get download -qq "$pkg" 2>../download.log) ||
	! ls "$dir"/deb/"$pkg"_*.deb >/dev/null 2>&1; then
	echo "vm/kernel.sh: cannot download $pkg:" \
		"$(grep -v 'unsandboxed' "$dir/download.log" | head -n 1)" >&2
	exit 1
fi
dpkg-deb -x "$dir"/deb/"$pkg"_*.deb "$dir/root"
rm -rf "$dir/deb"
depmod -b "$dir/root" "$release"
ln -s "root/boot/vmlinuz-$release" "$dir/vmlinuz"
echo "$release" >"$dir/release"
