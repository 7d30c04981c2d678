#!/bin/sh
# Host side: install every Debian package gpiolat needs, on a fresh Debian 12 machine.
# Fast when all is there already (one dpkg-query). Needs root (or sudo).
set -eu

pkgs="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
libtracefs-dev libtraceevent-dev libjson-c-dev libgpiod-dev gpiod
qemu-system-x86 busybox-static kmod cpio gzip xz-utils file dwarves
bpftrace strace gnuplot-nox python3 python3-pytest clang-format"

missing=
for p in $pkgs; do
	s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$s" = installed ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
echo "  DEPS    installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
