#!/bin/sh
# Host side: build the emulated target's initramfs.
# Usage: vm/initramfs.sh KERNELDIR OUTPUT.cpio.gz
#
# It holds only busybox (static), vm/init and the virtio + 9p modules of the target kernel;
# everything else the target runs comes from the host's root, mounted read-only over 9p.
set -eu

kdir=${1:?usage: vm/initramfs.sh KERNELDIR OUTPUT}
out=${2:?usage: vm/initramfs.sh KERNELDIR OUTPUT}
here=$(cd "$(dirname "$0")" && pwd)
release=$(cat "$kdir/release")
mods="$kdir/root/lib/modules/$release"
busybox=$(command -v busybox || true)

if [ -z "$busybox" ] || ! file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
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
# Load order that satisfies the dependencies (see modules.dep of the target kernel).
n=0
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci \
	virtio_console 9pnet 9pnet_virtio netfs fscache 9p; do
	f=$(find "$mods/kernel" -name "$m.ko" -o -name "$m.ko.xz" | head -n 1)
	if [ -z "$f" ]; then
		# built into this kernel
		continue
	fi
	n=$((n + 1))
	case $f in
	*.xz) xz -dc "$f" >"$tmp/modules/$(printf %02d $n)-$m.ko" ;;
	*) cp "$f" "$tmp/modules/$(printf %02d $n)-$m.ko" ;;
	esac
done
cp "$here/init" "$tmp/init"
chmod 755 "$tmp/init"
(cd "$tmp" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
