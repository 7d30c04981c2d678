#!/bin/sh
# Host side: the user space of a target that runs another Debian release's root (vm/kernel.sh
# writes KERNELDIR/userspace, naming that root: Debian 13's 6.12 targets run out/roots/trixie on
# x86_64, out/roots/trixie-armhf and -arm64 on ARM; testing's out/roots/testing, testing-ARCH).
# Usage: vm/userspace.sh KERNELDIR
#
# x86_64: in that root (host/inroot.sh) what the target runs is installed (sh host/deps.sh
# --target: the build's packages with bpftrace, the libgpiod tools, rt-tests, rtla, stress-ng,
# and ply where the release packages it),
# then gpiolat, utoggle, mmtoggle and toggle.sh are built there, with that release's compiler
# and libraries (clang 19, libbpf 1.5, bpftool 7.5, libgpiod 2), into out/ROOTNAME/bin.
#
# ARM: the root is of the target's architecture, made once by host/rootfs.sh --arch
# (debootstrap, its second stage under qemu-user), with what the target runs and the libraries
# gpiolat links (sh host/deps.sh --root: bpftrace, ply, gpiod, rt-tests, rtla, strace, python3,
# the -dev packages; no compiler). gpiolat and the togglers are cross-built for it in the
# release's x86_64 root (vm/kernel.sh's KERNELDIR/buildroot: the same release's clang, bpftool
# and cross gcc), with the target's root as the sysroot: measured on 2026-11-26 (2 cores, loaded
# by other builds), the whole build took 60 s wall so; natively in the root under qemu-user it
# had built 31 of its 68 objects after 390 s. A kernel without BTF of its own (armmp) gets
# host/btf.sh's minimal BTF beside that gpiolat (KERNELDIR/vmlinux.min.btf).
#
# KERNELDIR/bindir names the binaries' folder, which the target copies into its RAM and binds
# over out/bin (vm/init). Prints the user space. A target without KERNELDIR/userspace: on the
# host's root (x86_64), the static build of make dist (out/static/bin) is its folder; on the
# initramfs (ARM), none (vm/run binds out/ARCH/bin). Cheap when all is current: a dpkg-query and
# a make that finds nothing to do.
set -eu

kdir=${1:?usage: vm/userspace.sh KERNELDIR}
here=$(cd "$(dirname "$0")" && pwd)
proj=$(dirname "$here")
if [ ! -f "$kdir/userspace" ]; then
	# an x86_64 target on the host's root runs make dist's static gpiolat, utoggle and mmtoggle
	# (out/static/bin, what a board is given), which vm/init copies into the target's RAM: a
	# start over 9p of the host's dynamically linked build cost 68 ms of the host's time under
	# icount (the loader mapping its eight libraries over 9p), the static one from RAM 3.5 ms
	# (std, 50 runs of gpiolat --version, 2026-11-29). An ARM target on the initramfs has its
	# own static build (vm/run); a board's (KERNEL=native) runs what is installed.
	case $(cat "$kdir/arch" 2>/dev/null || echo x86_64)-$(basename "$kdir") in
	x86_64-*-native | arm*) rm -f "$kdir/bindir" ;;
	*)
		sbin=out/static/bin
		(cd "$proj" && make -s OUT=out/static STATIC=1 "$sbin/gpiolat" "$sbin/utoggle" "$sbin/mmtoggle" \
			"$sbin/toggle.sh") >&2 || {
			echo "vm/userspace.sh: building the static gpiolat and togglers failed" >&2
			exit 1
		}
		echo "$proj/$sbin" >"$kdir/bindir.new"
		mv "$kdir/bindir.new" "$kdir/bindir"
		;;
	esac
	exit 0
fi
root=$(cat "$kdir/userspace")
name=$(basename "$root")
out=out/$name
inroot() { sh "$proj/host/inroot.sh" "$root" "$@"; }

arch=$(cat "$kdir/arch" 2>/dev/null || echo x86_64)
bin=$out/bin
cd "$proj"
if [ "$arch" = x86_64 ]; then
	# the target's packages asked of host/rootfs.sh (a root's packages are its cache key), then
	# host/deps.sh's check
	sh host/rootfs.sh "$name" "$root" $(inroot sh host/deps.sh --list --target) >&2 &&
		inroot sh host/deps.sh --target >&2 || {
		echo "vm/userspace.sh: installing the target's packages in $root failed" >&2
		exit 1
	}
	# host/deps.sh ran (the Makefile's stamp for the build inside the root: make does not run
	# the full installer there)
	mkdir -p "$out" && touch "$out/.deps"
	inroot make -s OUT="$out" "$bin/gpiolat" "$bin/utoggle" "$bin/mmtoggle" "$bin/toggle.sh" >&2 || {
		echo "vm/userspace.sh: building gpiolat and the togglers in $root failed" >&2
		exit 1
	}
	tools="clang $(chroot "$root" dpkg-query -W -f='${Version}' clang 2>/dev/null | sed 's/^[0-9]*://; s/-[^-]*$//')"
else
	release=${name%-*}
	deb=${name##*-}
	sh host/rootfs.sh --arch "$deb" "$release" "$root" >&2
	sh host/rootfs.sh --arch "$deb" "$release" "$root" $(inroot sh host/deps.sh --list --root) >&2 &&
		inroot sh host/deps.sh --root >&2 || {
		echo "vm/userspace.sh: installing the target's packages in $root failed" >&2
		exit 1
	}
	# the kernel's modules are bound at /lib/modules/RELEASE of the root, which the target
	# mounts read-only (vm/init): the (empty) folder must exist
	mkdir -p "$root/lib/modules/$(cat "$kdir/release")"
	# the cross build, in the release's x86_64 root (vm/kernel.sh installed the cross gcc)
	broot=$(cat "$kdir/buildroot")
	sh host/rootfs.sh "$release" "$broot" make clang llvm bpftool pkg-config libbpf-dev >&2 || {
		echo "vm/userspace.sh: installing the cross build's packages in $broot failed" >&2
		exit 1
	}
	case $deb in
	armhf) cc=arm-linux-gnueabihf-gcc ;;
	arm64) cc=aarch64-linux-gnu-gcc ;;
	esac
	mkdir -p "$out" && touch "$out/.deps"
	# the Makefile's foreign-architecture build, against this root instead of host/sysroot.sh's
	# static sysroot: dynamically linked, with the root's libraries
	sh host/inroot.sh "$broot" make -s ARCH="$arch" OUT="$out" BUILD="$out/build" BIN="$bin" \
		SYSROOT="$root" SYSROOT_STAMP= STATIC= CC="$cc --sysroot=$root" \
		"$bin/gpiolat" "$bin/utoggle" "$bin/mmtoggle" "$bin/toggle.sh" >&2 || {
		echo "vm/userspace.sh: cross-building gpiolat and the togglers for $root in $broot failed" >&2
		exit 1
	}
	btf=$bin/$(cat "$kdir/release").btf
	if [ -f "$kdir/vmlinux.min.btf" ]; then
		cmp -s "$kdir/vmlinux.min.btf" "$btf" || cp "$kdir/vmlinux.min.btf" "$btf"
	else
		rm -f "$btf"
	fi
	tools="cross-built: $(chroot "$broot" "$cc" -dumpfullversion 2>/dev/null | sed 's/^/gcc /')"
fi
echo "$proj/$bin" >"$kdir/bindir.new"
mv "$kdir/bindir.new" "$kdir/bindir"
os=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' "$root/etc/os-release")
ver() {
	v=$(chroot "$root" dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null |
		sed -n 's/^installed \([0-9]*:\)\{0,1\}//p' | sed 's/-[^-]*$//')
	echo "${v:-none}"
}
echo "  USERSPC $os $(chroot "$root" dpkg --print-architecture) ($root): bpftrace $(ver bpftrace)," \
	"ply $(ver ply), libgpiod $(ver gpiod), libbpf $(ver libbpf-dev), $tools" >&2
