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
here=$(cd "$(dirname "$0")" && pwd)
if ! dpkg --print-foreign-architectures | grep -qx "$deb"; then
	dpkg --add-architecture "$deb"
	sh "$here/apt.sh" update
fi

# each package as apt has it: PKG:ARCH, or PKG when it is one package for every architecture
# (Architecture: all, e.g. Debian 13's linux-libc-dev, whose asm headers are per triplet);
# lists never fetched (or without that architecture yet) are fetched once
# the host's apt with a cache of its parsed indexes where it keeps none (host/apt.sh cacheopts)
aptc=$(sh "$here/apt.sh" cacheopts)
pkgs="libbpf-dev libelf-dev zlib1g-dev libtracefs-dev libtraceevent-dev libjson-c-dev
	libgpiod-dev linux-libc-dev busybox-static"
# shellcheck disable=SC2086
sh "$here/apt.sh" pick "$deb" $pkgs >/dev/null 2>&1 || sh "$here/apt.sh" update
# and the -dev packages those depend on, as apt says, until none is new (a static link needs
# their archives: Debian 13's libelf-dev depends on libzstd-dev), but the C library's (the
# cross compiler's)
while :; do
	# shellcheck disable=SC2046
	new=$(apt-cache $aptc show --no-all-versions $(for p in $pkgs; do echo "$p:$deb"; done) 2>/dev/null |
		sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/^ *//; s/|.*//; s/[ (].*//; s/:any$//' |
		grep -e '-dev$' | grep -v -x -e libc6-dev -e libc-dev -e linux-libc-dev |
		sort -u | while read -r p; do
			case " $(echo $pkgs) " in *" $p "*) ;; *) echo "$p" ;; esac
		done)
	[ -n "$new" ] || break
	pkgs=$(echo $pkgs $new)
done
# shellcheck disable=SC2086
want=$(sh "$here/apt.sh" pick "$deb" $pkgs) || exit 1
# shellcheck disable=SC2086
want=" $(echo $want)"
if [ -f "$dir/.done" ] && [ "$(cat "$dir/.done")" = "$want" ]; then
	exit 0
fi

# the content cache (host/cache.sh): keyed by these scripts' bytes and the versions apt picked
key=$(printf 'arch %s\nwant%s\n' "$deb" "$want" |
	sh "$here/cache.sh" key "$here/sysroot.sh" "$here/apt.sh")
rm -rf "$dir.cached"
if sh "$here/cache.sh" get sysroots "$key" "$dir.cached"; then
	rm -rf "$dir"
	mv "$dir.cached" "$dir"
	echo "  SYSROOT $dir ($deb:$want): from the cache (sysroots/$key)"
	exit 0
fi
echo "  SYSROOT $dir ($deb:$want)"
rm -rf "$dir"
mkdir -p "$dir/.deb"
chmod 777 "$dir/.deb"
# shellcheck disable=SC2086
(cd "$dir/.deb" && apt-get $aptc download -qq $want 2>download.log) || {
	echo "host/sysroot.sh: cannot download:" \
		"$(grep -v unsandboxed "$dir/.deb/download.log" | head -n 1)" >&2
	exit 1
}
for d in "$dir"/.deb/*.deb; do
	dpkg-deb -x "$d" "$dir"
done
rm -rf "$dir/.deb"
echo "$want" >"$dir/.done"
sh "$here/cache.sh" put sysroots "$key" "$dir" || true
