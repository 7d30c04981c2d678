#!/bin/sh
# Host side: build the emulated target's initramfs.
# Usage: vm/initramfs.sh KERNELDIR OUTPUT.cpio.gz
#
# It holds only busybox (static), vm/init and the virtio + 9p modules of the target kernel (the
# ones its modules.dep names, in its order);
# everything else the target runs comes from the host's root, mounted read-only over 9p.
set -eu

kdir=${1:?usage: vm/initramfs.sh KERNELDIR OUTPUT}
out=${2:?usage: vm/initramfs.sh KERNELDIR OUTPUT}
here=$(cd "$(dirname "$0")" && pwd)
release=$(cat "$kdir/release")
mods="$kdir/root/lib/modules/$release"
arch=$(cat "$kdir/arch" 2>/dev/null || echo x86_64)
if [ "$arch" = x86_64 ]; then
	busybox=$(command -v busybox || true)
else
	# the architecture's own static busybox (host/sysroot.sh: Debian's busybox-static, whose
	# package puts it in /bin (Debian 12) or /usr/bin (Debian 13, merged /usr): where it is)
	sysroot=$(dirname "$here")/out/sysroot/$arch
	busybox=$sysroot/bin/busybox
	[ -f "$busybox" ] || busybox=$sysroot/usr/bin/busybox
fi

if [ ! -f "$busybox" ] || ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
	echo "vm/initramfs.sh: needs a static busybox (Debian package busybox-static)" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/modules" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/newroot"
cp "$busybox" "$tmp/bin/busybox"
for applet in sh mount umount insmod mkdir cat echo sleep poweroff stty chroot grep sed tail \
	sync dmesg ln ls; do
	ln -s busybox "$tmp/bin/$applet"
done
# What the kernel's modules.dep says the 9p root over virtio needs, in an order that loads
# (vm/modorder.sh); the transport is PCI on x86_64, MMIO on ARM's virt machine.
case $arch in
x86_64) transport=virtio_pci ;;
*) transport=virtio_mmio ;;
esac
n=0
for f in $(sh "$here/modorder.sh" "$mods" $transport virtio_console 9pnet_virtio 9p); do
	n=$((n + 1))
	m=$(basename "$f")
	m=${m%%.ko*}
	dst=$tmp/modules/$(printf %02d $n)-$m.ko
	case $f in
	*.xz) xz -dc "$mods/$f" >"$dst" ;;
	*.zst) zstd -qdc "$mods/$f" >"$dst" ;;
	*.gz) gzip -dc "$mods/$f" >"$dst" ;;
	*) cp "$mods/$f" "$dst" ;;
	esac
done
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
