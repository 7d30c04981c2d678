#!/bin/sh
# Host side: run a command in a root made by host/rootfs.sh, with /proc, /dev, /sys and the
# project folder (this tree) mounted in it, the project folder at the same path as outside.
# Usage: host/inroot.sh DIR CMD [ARG...]
#
# The mounts are made in a mount namespace of their own (unshare --mount, private propagation):
# the host's mount table never sees them, and they go with the namespace when its last process
# ends, on every exit path (success, failure, a signal, SIGKILL) without a trap to forget. The
# command starts in the same directory as the caller when that is inside the project folder (else
# in /), with a clean environment (PATH, HOME, LANG, TERM; pass more with env NAME=VALUE CMD).
# Its exit status is the command's.
set -eu

[ $# -ge 2 ] || {
	echo "usage: host/inroot.sh DIR CMD [ARG...]" >&2
	exit 2
}
dir=$1
shift
if [ ! -f "$dir/.rootfs-done" ]; then
	echo "host/inroot.sh: $dir is not a root made by host/rootfs.sh" >&2
	exit 2
fi
if [ "$(id -u)" != 0 ]; then
	echo "host/inroot.sh: needs root (unshare, chroot)" >&2
	exit 1
fi
dir=$(cd "$dir" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
cwd=$(pwd)
case $cwd/ in
"$top"/*) ;;
*) cwd=/ ;;
esac
mkdir -p "$dir$top"
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true

exec unshare --mount --propagation private /bin/sh -ec '
	dir=$1 top=$2 cwd=$3
	shift 3
	# the root a mount point of its own, as / is on a machine (a debootstrap run in it makes its
	# mounts private: unshare --propagation private fails where / is not a mount point)
	mount --bind "$dir" "$dir"
	mount -t proc proc "$dir/proc"
	mount --rbind /dev "$dir/dev"
	mount --rbind /sys "$dir/sys"
	mount --bind "$top" "$dir$top"
	exec chroot "$dir" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" /bin/sh -c "cd \"\$0\" || exit 1; exec \"\$@\"" "$cwd" "$@"
' inroot "$dir" "$top" "$cwd" "$@"
