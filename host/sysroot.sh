#!/bin/sh
# Host side: a sysroot of Debian's packages of a foreign architecture, to cross-build the static
# gpiolat and utoggle for it, and its static busybox (the ARM targets' userland).
# Usage: host/sysroot.sh arm|arm64 DIR
#
# The packages are fetched with apt-get download and extracted with dpkg-deb into DIR, never
# installed (a foreign -dev package installed would have to match the host's version to the
# last digit; this keeps the host as it is). DIR/.done names what was extracted; a second run
# with the same package versions does nothing.
set -eu

arch=${1:?usage: host/sysroot.sh arm|arm64 DIR}
dir=${2:?usage: host/sysroot.sh arm|arm64 DIR}
case $arch in
arm) deb=armhf ;;
arm64) deb=arm64 ;;
*) echo "host/sysroot.sh: unknown architecture '$arch' (arm or arm64)" >&2; exit 2 ;;
esac
if ! dpkg --print-foreign-architectures | grep -qx "$deb"; then
	dpkg --add-architecture "$deb"
	apt-get update -qq >/dev/null 2>&1 || true
fi

pkgs="libbpf-dev libelf-dev zlib1g-dev libtracefs-dev libtraceevent-dev libjson-c-dev
	libgpiod-dev linux-libc-dev busybox-static"
want=
for p in $pkgs; do
	v=$(apt-cache policy "$p:$deb" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	if [ -z "$v" ] || [ "$v" = "(none)" ]; then
		echo "host/sysroot.sh: apt knows no $p:$deb (run 'apt-get update' first?)" >&2
		exit 1
	fi
	want="$want $p:$deb=$v"
done
if [ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$want" ]; then
	exit 0
fi

echo "  SYSROOT $dir ($deb:$want)"
rm -rf "$dir"
mkdir -p "$dir/.deb"
chmod 777 "$dir/.deb"
# shellcheck disable=SC2086
(cd "$dir/.deb" && apt-get download -qq $want 2>download.log) || {
	echo "host/sysroot.sh: cannot download:" \
		"$(grep -v unsandboxed "$dir/.deb/download.log" | head -n 1)" >&2
	exit 1
}
for d in "$dir"/.deb/*.deb; do
	dpkg-deb -x "$d" "$dir"
done
rm -rf "$dir/.deb"
echo "$want" >"$dir/.done"
