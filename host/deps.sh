#!/bin/sh
# Host side: install every Debian package gpiolat needs, on a fresh Debian 12 or 13 machine.
# Fast when all is there already (one dpkg-query). Needs root (or sudo).
# Usage: sh host/deps.sh [--build|--target|--root]
#   --build  only the host build (loader, togglers, BPF objects) and the host tests that need no
#            target: no emulator, cross compilers, browser or load tools (the Debian 13 root of
#            tests/host/test_debian13.py)
#   --target the build's packages and what the tests run inside an x86_64 target whose root is
#            another release's (vm/userspace.sh: Debian 13's 6.12 targets): the load and RT tools
#   --root   what runs in an ARM target's own root (vm/userspace.sh: Debian 13's armhf and arm64
#            targets), and the libraries gpiolat is cross-built against there (that root is the
#            sysroot): no compiler (it would run under qemu-user), ply where the release has it
set -eu

build="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libtracefs-dev libtraceevent-dev libjson-c-dev libgpiod-dev gpiod kmod file dwarves
bpftrace strace gnuplot-nox python3 python3-pytest clang-format groff-base man-db"
rest="qemu-system-x86 busybox-static cpio gzip xz-utils rt-tests rtla stress-ng chromium
qemu-system-arm gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu libc6-dev-armhf-cross
libc6-dev-arm64-cross debootstrap qemu-user-static binfmt-support"
target="rt-tests rtla stress-ng"
root="libc6-dev libbpf-dev libelf-dev zlib1g-dev libtracefs-dev libtraceevent-dev libjson-c-dev
libgpiod-dev gpiod kmod bpftool bpftrace strace python3 rt-tests rtla stress-ng"
case ${1:-} in
--build) pkgs=$build ;;
--target) pkgs="$build $target" ;;
--root) pkgs=$root ;;
"") pkgs="$build $rest" ;;
*) echo "usage: sh host/deps.sh [--build|--target|--root]" >&2; exit 2 ;;
esac
# the talk's ply in a target's root, where the release packages it (asked of apt after its update)
opt=
[ "${1:-}" != --root ] || opt=ply
# the ARM targets' own packages (kernels, headers, static libraries, busybox) are fetched with
# apt-get download and extracted into out/ (vm/kernel.sh, host/sysroot.sh), never installed:
# dpkg only needs to know the architectures
[ -n "${1:-}" ] || for a in armhf arm64; do
	if ! dpkg --print-foreign-architectures | grep -qx $a; then
		[ "$(id -u)" = 0 ] && dpkg --add-architecture $a || sudo dpkg --add-architecture $a
	fi
done

missing=
for p in $pkgs; do
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$s" = installed ] || missing="$missing $p"
done
optmissing=
for p in $opt; do
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$s" = installed ] || optmissing="$optmissing $p"
done
[ -z "$missing$optmissing" ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
echo "  DEPS    installing:$missing$optmissing"
export DEBIAN_FRONTEND=noninteractive
# an index a mirror caught mid-sync fails to serve is gone without, and said (host/apt.sh);
# the install says it if a package is then missing
$sudo sh "$(dirname "$0")/apt.sh" update
for p in $optmissing; do
	if [ -n "$(apt-cache policy "$p" 2>/dev/null | sed -n 's/^ *Candidate: //p' | grep -vx '(none)')" ]; then
		missing="$missing $p"
	else
		echo "  DEPS    $p: not packaged here (apt has no candidate)" >&2
	fi
done
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
