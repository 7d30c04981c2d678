#!/bin/sh
# Host side: install every Debian package gpiolat needs, on a fresh Debian 12 or 13 machine.
# Fast when all is there already (one dpkg-query). Needs root (or sudo).
# Usage: sh host/deps.sh [--build|--target]
#   --build  only the host build (loader, togglers, BPF objects) and the host tests that need no
#            target: no emulator, cross compilers, browser or load tools (the Debian 13 root of
#            tests/host/test_debian13.py)
#   --target the build's packages and what the tests run inside an x86_64 target whose root is
#            another release's (vm/userspace.sh: Debian 13's 6.12 targets): the load and RT tools
#   --root   what runs in an ARM target's own root (vm/userspace.sh: Debian 13's armhf and arm64
#            targets), and the libraries gpiolat is cross-built against there (that root is the
#            sysroot): no compiler (it would run under qemu-user)
# ply (the talk's tool) is installed, on the host and in a target's root, where the release
# packages it: where apt has a candidate for it (Debian 13 and testing do, Debian 12 does not).
# Where it has none, nothing is missing.
set -eu

build="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libtracefs-dev libtraceevent-dev libjson-c-dev libgpiod-dev gpiod kmod file dwarves
bpftrace strace gnuplot-nox python3 python3-pytest python3-pytest-xdist clang-format groff-base man-db"
rest="qemu-system-x86 busybox-static cpio gzip xz-utils rt-tests rtla stress-ng chromium
qemu-system-arm libglib2.0-dev gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu
libc6-dev-armhf-cross libc6-dev-arm64-cross debootstrap qemu-user-static binfmt-support gpg gpg-agent zstd"
target="rt-tests rtla stress-ng"
root="libc6-dev libbpf-dev libelf-dev zlib1g-dev libtracefs-dev libtraceevent-dev libjson-c-dev
libgpiod-dev gpiod kmod bpftool bpftrace strace python3 rt-tests rtla stress-ng"
# installed where apt has a candidate for them, and not missing where it has none
optional="ply"
# --list first: the packages the rest installs, printed (the optional ones where apt has a
# candidate), nothing installed (vm/userspace.sh asks host/rootfs.sh for them: a root's
# packages are its content cache's key)
list=
[ "${1:-}" != --list ] || { list=1; shift; }
case ${1:-} in
--build) pkgs=$build ;;
--target) pkgs="$build $target" ;;
--root) pkgs=$root ;;
"") pkgs="$build $rest" ;;
*) echo "usage: sh host/deps.sh [--list] [--build|--target|--root]" >&2; exit 2 ;;
esac
# candidate P: apt can install P (its lists have a version of it)
candidate() {
	c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}
if [ -n "$list" ]; then
	for p in $pkgs $optional; do
		case " $optional " in *" $p "*) [ "${1:-}" != --build ] && candidate "$p" || continue ;; esac
		echo "$p"
	done
	exit 0
fi
# the ARM targets' own packages (kernels, headers, static libraries, busybox) are fetched with
# apt-get download and extracted into out/ (vm/kernel.sh, host/sysroot.sh), never installed:
# dpkg only needs to know the architectures
[ -n "${1:-}" ] || for a in armhf arm64; do
	if ! dpkg --print-foreign-architectures | grep -qx $a; then
		[ "$(id -u)" = 0 ] && dpkg --add-architecture $a || sudo dpkg --add-architecture $a
	fi
done

[ "${1:-}" = --build ] || pkgs="$pkgs $optional"
installed() {
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true)" = installed ]
}
missing=
for p in $pkgs; do
	installed "$p" && continue
	case " $optional " in
	*" $p "*) candidate "$p" || continue ;;
	esac
	missing="$missing $p"
done
[ -z "$missing" ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# an index a mirror caught mid-sync fails to serve is gone without, and said (host/apt.sh);
# the install says it if a package is then missing
$sudo sh "$(dirname "$0")/apt.sh" update
# the lists are fresh now: an optional package that has a candidate only now (a machine whose
# lists were empty) is installed too
for p in $optional; do
	case " $pkgs " in *" $p "*) ;; *) continue ;; esac
	case " $missing " in *" $p "*) continue ;; esac
	installed "$p" || ! candidate "$p" || missing="$missing $p"
done
echo "  DEPS    installing:$missing"
# shellcheck disable=SC2086
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
