#!/bin/sh
# Host side: let this machine run programs of a foreign architecture (armhf, arm64) under
# qemu-user, so that a root of that architecture (host/rootfs.sh --arch) can be finished and used
# with chroot. Usage: host/binfmt.sh armhf|arm64 [DIR]
#
# The kernel's binfmt_misc hands such a program to Debian's qemu-user-static (qemu-arm-static,
# qemu-aarch64-static): binfmt_misc is mounted at /proc/sys/fs/binfmt_misc when it is not, and
# qemu-user-static's own handler (/usr/share/binfmts/qemu-arm, -aarch64: flags F and P, the
# interpreter opened here once, so that it works inside any chroot) is enabled with
# update-binfmts, as binfmt-support does at boot on a Debian machine with qemu-user-static
# installed. It is left enabled (the state such a machine is in; `update-binfmts --disable
# qemu-arm` undoes it). With DIR, the handler is then probed by running DIR's /bin/true in a
# chroot: only that result counts (a handler registered by someone else, without F, fails it).
set -eu

usage="usage: host/binfmt.sh armhf|arm64 [DIR]"
deb=${1:?$usage}
dir=${2:-}
case $deb in
armhf) name=qemu-arm ;;
arm64) name=qemu-aarch64 ;;
*) echo "host/binfmt.sh: unknown architecture '$deb' (armhf, arm64)" >&2; exit 2 ;;
esac
if [ "$(id -u)" != 0 ]; then
	echo "host/binfmt.sh: needs root (binfmt_misc)" >&2
	exit 1
fi
for c in update-binfmts "$name-static"; do
	command -v "$c" >/dev/null || {
		echo "host/binfmt.sh: no $c (sh host/deps.sh installs qemu-user-static, binfmt-support)" >&2
		exit 1
	}
done
b=/proc/sys/fs/binfmt_misc
if [ ! -e "$b/register" ]; then
	mount -t binfmt_misc binfmt_misc "$b" || {
		echo "host/binfmt.sh: cannot mount binfmt_misc at $b" >&2
		exit 1
	}
fi
if [ ! -e "$b/$name" ]; then
	# two callers at once (two roots): the second finds it enabled
	flock /run/gpiolat-binfmt.lock sh -c \
		"[ -e '$b/$name' ] || update-binfmts --enable '$name'" >/dev/null 2>&1 || true
fi
if [ ! -e "$b/$name" ] || [ "$(cat "$b/$name" | head -n 1)" != enabled ]; then
	echo "host/binfmt.sh: the $name handler of binfmt_misc is not enabled" \
		"(update-binfmts --enable $name)" >&2
	exit 1
fi
if [ -n "$dir" ] && ! chroot "$dir" /bin/true; then
	echo "host/binfmt.sh: $dir's /bin/true does not run under the $name handler" \
		"($(sed -n 's/^flags: //p' "$b/$name"): qemu-user-static's has F)" >&2
	exit 1
fi
