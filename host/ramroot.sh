#!/bin/sh
# Host side: the study's root in RAM for one target as an initramfs part, made once and cached.
# Usage: host/ramroot.sh KERNEL ARCH   (the target built); prints the archive's path.
#
# The root holds what study/rt.sh runs (sh, the tools, their libraries, gpiolat and its BTF,
# utoggle, toggle.ko, the script itself), as the target's root has them: the target makes it
# (a boot of its own, study/rt.sh with RT_RAMROOT_EXPORT: ldd there finds the libraries as they
# load there, on ARM too) and host/cpio.py packs it (the same bytes from the same files), in
# out/ramroot/ARCH-KERNEL-KEY.cpio.gz. KEY is the sha256 of what goes in: the kernel's release
# and toggle.ko, study/rt.sh, host/cpio.py, gpiolat, utoggle and the BTF the target runs, and
# the target root's package list (var/lib/dpkg/status), and this script: a change of any makes a
# new one. The archive records its target: ramroot/.gpiolat-target, "ARCH-KERNEL RELEASE" (the
# first member below ramroot/: vm/run reads it and refuses another target's root, which would
# boot and fail inside the guest: another architecture's programs, another kernel's toggle.ko).
# vm/run VM_RAMROOT=that file boots with it (docs/rt.md "A boot with nothing from the host's
# clock"). The older archives of the target are removed.
set -eu
cd "$(dirname "$0")/.."
kernel=${1:?usage: host/ramroot.sh KERNEL ARCH}
arch=${2:?usage: host/ramroot.sh KERNEL ARCH}
kdir=out/target/$arch-$kernel
[ -f "$kdir/release" ] && [ -f "$kdir/toggle.ko" ] || {
	echo "host/ramroot.sh: $kdir is not built (make target KERNEL=$kernel ARCH=$arch)" >&2
	exit 1
}
release=$(cat "$kdir/release")
root=/
# the binaries the target runs (vm/run: its bindir, bound over out/bin; on the host's root make
# dist's static build since 2026-11-29), which its export copies
bindir=out/bin
[ ! -f "$kdir/bindir" ] || bindir=$(cat "$kdir/bindir")
if [ -f "$kdir/userspace" ]; then
	root=$(cat "$kdir/userspace")
elif [ "$arch" != "$(uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')" ]; then
	echo "host/ramroot.sh: $arch-$kernel runs the busybox initramfs: no root to copy" >&2
	exit 1
fi
key=$(for f in "$kdir/release" "$kdir/toggle.ko" study/rt.sh host/cpio.py host/ramroot.sh \
	"$bindir/gpiolat" "$bindir/utoggle" "$bindir/$release.btf" "$root/var/lib/dpkg/status"; do
	if [ -f "$f" ]; then sha256sum <"$f"; else echo "none $f"; fi
done | sha256sum | cut -c1-16)
mkdir -p out/ramroot
cpio=$PWD/out/ramroot/$arch-$kernel-$key.cpio.gz
# one maker a target at a time (a second caller waits, then finds the archive made)
exec 9>"out/ramroot/$arch-$kernel.lock"
flock 9
if [ ! -f "$cpio" ]; then
	tree=out/ramroot/$arch-$kernel-$key.tree
	rm -rf "$tree"
	echo "host/ramroot.sh: the study's root for $arch-$kernel, made by the target (one boot)" >&2
	KERNEL=$kernel ARCH=$arch TIMING=icount VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-900} \
		vm/run env RT_RAMROOT=1 RT_RAMROOT_EXPORT="$PWD/$tree" sh study/rt.sh "$PWD/$tree.x" \
		</dev/null >&2 || {
		echo "host/ramroot.sh: the target could not make the root for $arch-$kernel" >&2
		rm -rf "$tree" "$tree.x"
		exit 1
	}
	rm -rf "$tree.x"
	printf '%s\n' "$arch-$kernel $release" >"$tree/.gpiolat-target"
	python3 host/cpio.py "$cpio" ramroot "$tree" || {
		echo "host/ramroot.sh: packing the root of $arch-$kernel failed (host/cpio.py, above)" >&2
		rm -rf "$tree"
		exit 1
	}
	# then this target's older archives (KEY: 16 hex digits; not arm-6.12-rt's for arm-6.12)
	h='[0-9a-f]'
	for f in out/ramroot/"$arch-$kernel"-$h$h$h$h$h$h$h$h$h$h$h$h$h$h$h$h.cpio.gz; do
		[ "$PWD/$f" = "$cpio" ] || rm -f "$f"
	done
	echo "host/ramroot.sh: $cpio ($(du -sm "$tree" | cut -f1) MB unpacked)" >&2
	rm -rf "$tree"
fi
echo "$cpio"
