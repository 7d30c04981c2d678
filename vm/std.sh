#!/bin/sh
# Host side: what KERNEL=std means on this host, said at the start of `make test` (tests/run.sh)
# and `make bpf-histograms`. Usage: vm/std.sh [ARCH...] (default: x86_64 arm arm64)
#
# std (and rt, its PREEMPT_RT flavour) is the host release's own kernel: the linux-image-FLAVOUR
# metapackage of the host's apt (vm/kernel.sh), on the host's own user space (x86_64: the host's
# root over 9p; arm, arm64: an initramfs of the release's static busybox and gpiolat cross-built
# against the release's libraries, host/sysroot.sh). So std is Debian 12's 6.1 on a Debian 12
# host and Debian 13's 6.12 on a Debian 13 host (docs/targets.md): the version said here is the
# one apt offers now (vm/kernel.sh takes it, or the newest older one when it cannot be fetched).
# Reads apt only: fetches and changes nothing (but apt's parsed cache, host/apt.sh cacheopts).
set -eu

os=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release 2>/dev/null)
native=$(dpkg --print-architecture)
echo "  STD     this host: ${os:-unknown release} ($native); KERNEL=std is its release's kernel"
[ $# -gt 0 ] || set -- x86_64 arm arm64
# ARCH DEB META per line, then apt asked once for every candidate (each apt-cache call reads
# every list: seconds on a loaded machine)
rows=$(for arch in "$@"; do
	case $arch in
	x86_64) deb=amd64 flavour=amd64 ;;
	arm) deb=armhf flavour=armmp ;;
	arm64) deb=arm64 flavour=arm64 ;;
	*) echo "vm/std.sh: unknown architecture '$arch' (x86_64, arm or arm64)" >&2; exit 2 ;;
	esac
	q=
	[ "$deb" = "$native" ] || q=:$deb
	echo "$arch $deb linux-image-$flavour$q"
done) || exit 2
# shellcheck disable=SC2046
show=$(apt-cache $(sh "$(dirname "$0")/../host/apt.sh" cacheopts) show --no-all-versions $(echo "$rows" | cut -d' ' -f3) 2>/dev/null || true)
echo "$rows" | while read -r arch deb meta; do
	if [ "$deb" = "$native" ]; then
		user="this host's user space (${os:-its root})"
	else
		user="an initramfs: the release's busybox-static and gpiolat cross-built against its $deb libraries"
	fi
	# the candidate's paragraph: its version and the image package it depends on
	set -- $(echo "$show" | awk -v p="${meta%%:*}" -v a="$deb" '
		/^Package: / { ok = ($2 == p) } /^Version: / { v = $2 } /^Architecture: / { ok = ok && ($2 == a) }
		ok && /^Depends: / && match($0, /linux-image-[0-9][^ ,]*/) { print v, substr($0, RSTART, RLENGTH); exit }')
	if [ $# -ne 2 ]; then
		echo "  STD     $arch: apt offers no $meta yet (sh host/deps.sh, apt-get update)"
		continue
	fi
	v=$1 image=$2
	q=
	case $meta in *:*) q=:${meta#*:} ;; esac
	echo "  STD     $arch: $image$q ($meta $v), on $user"
done
