#!/bin/sh
# Host side: a small BTF for a target kernel that has none of its own (Debian's armmp: no
# CONFIG_DEBUG_INFO_BTF, so no /sys/kernel/btf/vmlinux and no CO-RE).
# Usage: host/btf.sh KERNELDIR BINDIR BPF_OBJECT...
#
# From the kernel's -dbg package (its vmlinux with DWARF; downloaded, never installed), pahole
# encodes the whole BTF once (KERNELDIR/vmlinux.btf, kept: the package is 600 MB); then
# `bpftool gen min_core_btf` keeps only the types our BPF objects relocate against
# (KERNELDIR/vmlinux.min.btf), copied to BINDIR/RELEASE.btf, where gpiolat looks by itself
# (loader/core/btf_find.c). A kernel with its own BTF needs none: nothing is made, and that is said.
# Writes KERNELDIR/btf.stamp when done.
set -eu

kdir=${1:?usage: host/btf.sh KERNELDIR BINDIR BPF_OBJECT...}
bindir=${2:?usage: host/btf.sh KERNELDIR BINDIR BPF_OBJECT...}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
release=$(cat "$kdir/release")
if grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$(cat "$kdir/build")/.config"; then
	rm -f "$kdir/vmlinux.min.btf" "$bindir/$release.btf"
	touch "$kdir/btf.stamp"
	exit 0
fi

# the whole kernel's BTF in the content cache (host/cache.sh), keyed by this script's bytes, the
# kernel image's (KERNELDIR/vmlinuz: the build the -dbg package's DWARF describes) and pahole's
# version
root=$(cat "$kdir/buildroot" 2>/dev/null || true)
key=$({ echo "pahole $(${root:+sh "$here/inroot.sh" "$root"} pahole --version)"
	echo "vmlinuz $(sha256sum <"$kdir/vmlinuz" | cut -d' ' -f1)"; } |
	sh "$here/cache.sh" key "$here/btf.sh")
if [ ! -s "$kdir/vmlinux.btf" ]; then
	rm -rf "$kdir/btf.cached"
	if sh "$here/cache.sh" get btf "$key" "$kdir/btf.cached"; then
		mv "$kdir/btf.cached/vmlinux.btf" "$kdir/vmlinux.btf"
		rm -rf "$kdir/btf.cached"
		echo "  BTF     $kdir/vmlinux.btf: from the cache (btf/$key)"
	fi
fi
if [ ! -s "$kdir/vmlinux.btf" ]; then
	pkg=$(cat "$kdir/package") # linux-image-6.1.0-50-armmp:armhf
	dbg=${pkg%%:*}-dbg
	case $pkg in *:*) dbg=$dbg:${pkg#*:} ;; esac
	echo "  BTF     $dbg (about 600 MB, once): pahole"
	rm -rf "$kdir/dbg"
	mkdir -p "$kdir/dbg"
	chmod 777 "$kdir/dbg"
	# another release's kernel (vm/kernel.sh's KERNELDIR/buildroot): its root's apt (the one
	# vm/kernel.sh used), or the index vm/kernel.sh took unverified (KERNEL_UNVERIFIED=1), the
	# SHA256 it names checked
	idx=$root.unverified-${pkg#*:}.Packages
	# (KERNELDIR/aptconf: the root's apt of its own for the kernel's architecture, when the
	# index came under the release's other name)
	aptconf=$(cat "$kdir/aptconf" 2>/dev/null || true)
	if [ -n "$root" ] && [ -z "$aptconf" ] && [ "${KERNEL_UNVERIFIED:-0}" = 1 ] && [ -f "$idx" ]; then
		para=$(awk -v p="${dbg%%:*}" '/^Package: / { ok = ($2 == p) }
			/^$/ { if (ok) { print buf; exit } buf = ""; next } { buf = buf $0 "\n" }' "$idx")
		f=$(echo "$para" | sed -n 's/^Filename: //p')
		mirror=$(sed -n 's/^deb \([^ ]*\) .*/\1/p' "$root/etc/apt/sources.list" | head -n 1)
		get() {
			curl -fsS -o "$(basename "$f")" "$mirror/$f" &&
				echo "$(echo "$para" | sed -n 's/^SHA256: //p')  $(basename "$f")" |
				sha256sum -c --quiet -
		}
	else
		# by the root's apt or the host's; the file out/cache/deb has (when that folder exists)
		# taken from there, by name and SHA256 (host/apt.sh cache-in), what was fetched kept there
		_apt="apt-get $(sh "$here/apt.sh" cacheopts)"
		[ -z "$root" ] || _apt="sh $here/inroot.sh $root ${aptconf:+env APT_CONFIG=$aptconf} apt-get"
		debcache=$here/../out/cache/deb
		get() {
			[ ! -d "$debcache" ] || $_apt download --print-uris "$dbg" 2>/dev/null |
				sh "$here/apt.sh" cache-in "$debcache"
			$_apt download -qq "$dbg" || return 1
			[ ! -d "$debcache" ] || sh "$here/apt.sh" cache-out "$debcache"
		}
	fi
	(cd "$kdir/dbg" && get 2>download.log) || {
		echo "host/btf.sh: cannot download $dbg:" \
			"$(grep -v unsandboxed "$kdir/dbg/download.log" | head -n 1)" >&2
		exit 1
	}
	dpkg-deb --fsys-tarfile "$kdir"/dbg/*.deb |
		tar -x -C "$kdir/dbg" --wildcards "./usr/lib/debug/*vmlinux*"
	vmlinux=$(cd "$kdir/dbg" && ls usr/lib/debug/boot/vmlinux-"$release" \
		usr/lib/debug/lib/modules/"$release"/vmlinux 2>/dev/null | head -n 1)
	# that release's pahole (dwarves, in its root) for its kernel's DWARF
	${root:+sh "$here/inroot.sh" "$root"} pahole \
		--btf_encode_detached="$(cd "$kdir" && pwd)/vmlinux.btf.tmp" "$(cd "$kdir/dbg" && pwd)/$vmlinux"
	mv "$kdir/vmlinux.btf.tmp" "$kdir/vmlinux.btf"
	rm -rf "$kdir/dbg"
	mkdir -p "$kdir/dbg"
	cp "$kdir/vmlinux.btf" "$kdir/dbg/"
	sh "$here/cache.sh" put btf "$key" "$kdir/dbg" || true
	rm -rf "$kdir/dbg"
fi
bpftool gen min_core_btf "$kdir/vmlinux.btf" "$kdir/vmlinux.min.btf" "$@"
mkdir -p "$bindir"
cp "$kdir/vmlinux.min.btf" "$bindir/$release.btf"
echo "  BTF     $bindir/$release.btf ($(wc -c <"$kdir/vmlinux.min.btf") bytes; the whole" \
	"kernel's: $(wc -c <"$kdir/vmlinux.btf") bytes)"
touch "$kdir/btf.stamp"
