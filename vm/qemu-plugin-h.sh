#!/bin/sh
# Host side: qemu's plugin header (include/qemu/qemu-plugin.h) from Debian's source package of
# the qemu installed here, for vm/pl061-observer.c (the observer plugin; never a copy in the tree).
#
#   sh vm/qemu-plugin-h.sh DIR     DIR/qemu-plugin.h and DIR/version (the source version)
#
# The source package's version is the installed qemu-system-arm's (dpkg), so the header is the
# plugin API this qemu checks at -plugin time. apt fetches it with a configuration of its own
# under DIR/apt: deb-src lines for the host's own deb entries (apt-get indextargets), its own
# lists and cache; the host's sources and lists stay as they were. Only the header is
# extracted; a Debian patch that touches it stops the build (it would not be upstream's
# header). The tarballs are dropped once the header is out (DIR/version: the cache key).
set -eu

dir=${1:?usage: vm/qemu-plugin-h.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-arm 2>/dev/null) || {
	echo "qemu-plugin-h: qemu-system-arm is not installed (make deps)" >&2
	exit 1
}
src=$(dpkg-query -W -f '${source:Package}' qemu-system-arm)
if [ -s "$dir/qemu-plugin.h" ] && [ "$(cat "$dir/version" 2>/dev/null)" = "$src $ver" ]; then
	exit 0
fi
rm -rf "$dir/apt" "$dir/src"
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/apt/parts" "$dir/src"
# the host's archive and suites, as deb-src
apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Created-By: Packages' |
	sort -u | sed 's/^/deb-src [signed-by=\/usr\/share\/keyrings\/debian-archive-keyring.gpg] /' \
	>"$dir/apt/sources.list"
[ -s "$dir/apt/sources.list" ] || {
	echo "qemu-plugin-h: apt knows no deb entries to take sources from" >&2
	exit 1
}
a=$(cd "$dir/apt" && pwd)
# this apt's own configuration (APT_CONFIG: host/apt.sh and every apt call below read it)
cat >"$a/apt.conf" <<EOF
Dir::Etc::SourceList "$a/sources.list";
Dir::Etc::SourceParts "$a/parts";
Dir::State::Lists "$a/lists";
Dir::Cache "$a";
APT::Sandbox::User "root";
EOF
export APT_CONFIG="$a/apt.conf"
# Debian's mirror may be mid-sync: an index that fails to download is gone without and named
# (host/apt.sh), the Sources indexes that came are used
sh "$here/../host/apt.sh" update "qemu's source indexes ($a)" >"$a/update.log" 2>&1 || {
	echo "qemu-plugin-h: apt-get update of the source indexes failed: $(tail -n 1 "$a/update.log")" >&2
	exit 1
}
# the installed version's source, else (it left the archive: a host not upgraded, an update
# since) the archive's source of the same upstream version: the same plugin API, and a Debian
# patch of the header is refused below either way
have=$(apt-cache -q showsrc "$src" 2>/dev/null | sed -n 's/^Version: //p' | sort -u)
want=$ver
if ! printf '%s\n' "$have" | grep -qx "$ver"; then
	want=$(printf '%s\n' "$have" | grep -F "${ver%-*}-" | head -n 1)
	if [ -z "$want" ]; then
		echo "qemu-plugin-h: no source of $src ${ver%-*} in the archive's indexes" \
			"(it has: $(echo $have); apt: $a/update.log)" >&2
		exit 1
	fi
	echo "qemu-plugin-h: $src $ver's source is not in the archive: $want's (the same upstream)" >&2
fi
set -- -q
(cd "$dir/src" && apt-get "$@" source --download-only "$src=$want" >"$a/source.log" 2>&1) || {
	echo "qemu-plugin-h: apt-get source --download-only $src=$want failed ($a/source.log)" >&2
	exit 1
}
orig=$(ls "$dir/src/"*.orig.tar.*)
deb=$(ls "$dir/src/"*.debian.tar.*)
if tar -xOf "$deb" --wildcards '*/patches/*' | grep -q 'include/qemu/qemu-plugin\.h'; then
	echo "qemu-plugin-h: Debian's patches of $src $ver change qemu-plugin.h" >&2
	exit 1
fi
tar -xf "$orig" -C "$dir/src" --wildcards '*/include/qemu/qemu-plugin.h'
h=$(find "$dir/src" -path '*/include/qemu/qemu-plugin.h')
grep -q '^#define QEMU_PLUGIN_VERSION [0-9]' "$h" || {
	echo "qemu-plugin-h: $h has no QEMU_PLUGIN_VERSION" >&2
	exit 1
}
cp "$h" "$dir/qemu-plugin.h.new" && mv "$dir/qemu-plugin.h.new" "$dir/qemu-plugin.h"
echo "$src $ver" >"$dir/version"
rm -rf "$dir/apt" "$dir/src"
