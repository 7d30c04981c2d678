#!/bin/sh
# Host side: a Debian root of another release (e.g. trixie, testing), made once with debootstrap
# and kept, with the packages asked for installed in it.
# Usage: host/rootfs.sh [-a ARCH]... [--arch ARCH] [--main-only] RELEASE DIR [PACKAGE...]
#   -a ARCH   a foreign architecture (armhf, arm64) added to the root's dpkg, so that apt-get
#             download and the cross compilers work there; a PACKAGE named NAME:ARCH adds it too
#   --arch ARCH  a root of that architecture (armhf, arm64; the ARM targets' user space):
#             debootstrap --foreign, its second stage and everything after run under qemu-user
#             (host/binfmt.sh)
#   --main-only  a root made now reads the release's main suite only (its point release), not
#             the -updates and -security the mirror has (host/deb.sh: with multiarch a library
#             must be one version on every architecture, which a foreign architecture's
#             -security index mid-sync would break)
# RELEASE: a suite or codename the mirror has (its Release file, signed by the keyring's keys,
# fetched: host/apt.sh suites), never one of a list of names; one it has not: one line, exit 2.
#
# The root is made once: DIR/.rootfs-done is written last, so a root cut short is made anew and
# a second call with everything there does only a few dpkg-query calls. Callers of one DIR take
# turns (flock on DIR.lock). Commands run in the root with host/inroot.sh DIR CMD...
#
# An index past its Valid-Until (testing's Release file outlives it when testing is not
# refreshed) is still used: debootstrap 1.0.128 does not look at Valid-Until, and the root's apt
# has Acquire::Check-Valid-Until off. Signatures are checked as always, with the host's
# debian-archive-keyring (bookworm's holds the 12 and 13 archive keys that sign trixie and
# forky). The suite, codename and date of the index used are printed.
#
# The root's suites (its /etc/apt/sources.list, written here only, when the root is made) are
# the release's, and its -updates and -security where the mirror has them, by what apt says
# (host/apt.sh suites: their Release files fetched, signatures checked, Codename read), never by
# the release's name. ROOTFS_KEYRING: the keys (default Debian's archive keyring).
# DIR/.rootfs-sources says how they were chosen (suites, or main-only); a root made otherwise than this call asks
# (--main-only or not), or made before that file was written with other lines than the mirror's
# suites give now (an older host/rootfs.sh chose them by the release's name), is made anew, and
# said: its sources are never left stale silently. One made before with the same lines is kept.
#
# The mirrors (ROOTFS_MIRROR, ROOTFS_SECURITY_MIRROR: else the host's, by what its apt says: the
# site of an index whose Release file apt fetched says Label: Debian, or Debian-Security; else
# deb.debian.org's), never by the names of the host's suites.
set -eu

usage() {
	echo "usage: host/rootfs.sh [-a ARCH]... [--arch ARCH] [--main-only] RELEASE DIR [PACKAGE...]" >&2
	exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
archs=
rarch=
mainonly=
while [ $# -gt 0 ]; do
	case $1 in
	--arch) [ $# -ge 2 ] || usage; rarch=$2; shift 2 ;;
	-a) [ $# -ge 2 ] || usage; archs="$archs $2"; shift 2 ;;
	--main-only) mainonly=1; shift ;;
	-a*) archs="$archs ${1#-a}"; shift ;;
	--) shift; break ;;
	-*) echo "host/rootfs.sh: unknown option '$1'" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || usage
release=$1
dir=$2
shift 2
# (the mirror says whether it has the release, below: here only what a suite's name can be)
case $release in
"" | [a-z0-9]*[!a-z0-9.+-]* | [!a-z0-9]*)
	echo "host/rootfs.sh: '$release' is not a Debian suite's or codename's name" >&2
	exit 2
	;;
esac
for p in "$@"; do
	case $p in
	*:armhf | *:arm64) archs="$archs ${p##*:}" ;;
	*:*) echo "host/rootfs.sh: architecture of '$p' not known here (armhf, arm64)" >&2; exit 2 ;;
	esac
done
for a in $archs $rarch; do
	case $a in
	armhf | arm64) ;;
	*) echo "host/rootfs.sh: unknown architecture '$a' (armhf, arm64)" >&2; exit 2 ;;
	esac
done
if [ "$(id -u)" != 0 ]; then
	echo "host/rootfs.sh: needs root (debootstrap, chroot)" >&2
	exit 1
fi
command -v debootstrap >/dev/null || {
	echo "host/rootfs.sh: no debootstrap (sh host/deps.sh installs it)" >&2
	exit 1
}

# mirrors: $main and $security, the host's mirrors of the archives whose Release files say
# Label: Debian and Debian-Security, by what the host's apt says (apt-get indextargets: the site
# of each index it reads, with the Label of the Release file it fetched for it), whatever their
# suites are called; else deb.debian.org's. Asked once, and only where a root is made or its
# suites probed: apt-get indextargets takes about 1.3 s of CPU, and most calls find their root
# made (a target's build calls this script about 12 times).
main=
security=
mirrors() {
	[ -z "$main" ] || return 0
	_t=$(apt-get indextargets --format '$(LABEL)|$(SITE)' 2>/dev/null || true)
	_m() {
		printf '%s\n' "$_t" | awk -F'|' -v l="$1" '$1 == l && $2 != "" { print $2; exit }'
	}
	main=${ROOTFS_MIRROR:-$(_m Debian)}
	main=${main:-http://deb.debian.org/debian}
	security=${ROOTFS_SECURITY_MIRROR:-$(_m Debian-Security)}
	security=${security:-http://deb.debian.org/debian-security}
}
keyring=${ROOTFS_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
# how the root's sources are chosen (DIR/.rootfs-sources)
kind=suites
[ -z "$mainonly" ] || kind=main-only

# probe: $sources, the lines the mirror's suites of the release give now (host/apt.sh suites,
# about 1.5 s); status 2 when the mirror has no such release, 1 when it could not say (apt.sh's
# line on stderr)
sources=
probe() {
	mirrors
	sources=$(sh "$here/apt.sh" suites ${mainonly:+--main-only} "$release" "$main" "$security" \
		"$keyring" "$dir")
}
# root_sources: $sources, the root's sources.list lines (the root's and the content cache's apt
# that resolves its key read the same lines: host/rootcache.sh): a made root's own file, else
# the mirror's (probed once per call); no such release on the mirror: exit 2
root_sources() {
	if [ -f "$dir/.rootfs-done" ] && [ -s "$dir/etc/apt/sources.list" ]; then
		sources=$(cat "$dir/etc/apt/sources.list")
		return 0
	fi
	[ -z "$sources" ] || return 0
	st=0
	probe || st=$?
	[ $st -eq 0 ] || exit $st
}
# suites_of LINES: their suites, on one line
suites_of() {
	printf '%s\n' "$1" |
		awk '$1 == "deb" { printf "%s%s", n++ ? " " : "", $3 } END { print "" }'
}

# a root not made yet: the release checked on the mirror before anything is written
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
[ -f "$dir/.rootfs-done" ] || root_sources

mkdir -p "$(dirname "$dir")"
dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
exec 9>"$dir.lock"
flock 9

# what the root's apt reads: the release's suites, Valid-Until not checked, no recommends
indexinfo() { # the Release file the root's apt (or debootstrap) got for $release
	f=$(ls "$dir"/var/lib/apt/lists/*_dists_"${release}"_InRelease \
		"$dir"/var/lib/apt/lists/*_dists_"${release}"_Release 2>/dev/null | head -n 1)
	[ -n "$f" ] || return 0
	awk -F': ' '/^Suite:/ { s = $2 } /^Codename:/ { c = $2 } /^Version:/ { v = " " $2 }
		/^Date:/ { d = $2 } /^Valid-Until:/ { u = $2 } /^(MD5Sum|SHA256):/ { exit }
		END { printf "  ROOTFS  %s: index of suite %s (%s%s) dated %s%s\n", dir, s, c, v, d,
			u == "" ? "" : ", valid until " u }' dir="$dir" "$f"
	u=$(sed -n 's/^Valid-Until: //p' "$f" | head -n 1)
	if [ -n "$u" ] && [ "$(date -d "$u" +%s 2>/dev/null || echo 0)" -lt "$(date +%s)" ]; then
		echo "  ROOTFS  $dir: that index is past its Valid-Until: used as it is (signature checked)"
	fi
}

# ---- the content cache (host/cache.sh, host/rootcache.sh) -------------------------------------
# A root is taken from the cache when one with the same key is there: the bytes of the scripts
# that make it, the release, its architecture and foreign ones, every package ever asked of it,
# and the versions apt resolves for those (with the priority-required set debootstrap installs)
# from the release's index today. A root changed since (other than its apt lists and the
# folders the targets' modules bind to) is never replaced; one that was not changed is stored
# again after each install.
. "$here/rootcache.sh"
script=/usr/share/debootstrap/scripts/$release
[ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
made=

if [ -f "$dir/.rootfs-done" ] && [ "$(cut -d' ' -f1 "$dir/.rootfs-done")" != "$release" ]; then
	echo "host/rootfs.sh: $dir is a root of $(cut -d' ' -f1 "$dir/.rootfs-done"), not $release" >&2
	exit 1
fi
# a root whose sources are not what this call would write (DIR/.rootfs-sources: how they were
# chosen): made anew, said. One made before that file was written (its sources chosen by an
# older host/rootfs.sh, by the release's name) is kept when its lines are the mirror's suites'
# now, and marked (a clean root stays clean).
if [ -f "$dir/.rootfs-done" ] && [ "$(cat "$dir/.rootfs-sources" 2>/dev/null)" != "$kind" ]; then
	stale=
	had=$(cat "$dir/etc/apt/sources.list" 2>/dev/null || true)
	if [ -f "$dir/.rootfs-sources" ]; then
		stale="its sources were chosen as $(cat "$dir/.rootfs-sources"), this call asks $kind"
	elif probe; then
		if [ "$sources" = "$had" ]; then
			clean=
			[ ! -f "$dir/.rootfs-cached" ] || [ "$(cat "$dir/.rootfs-cached")" != "$(rc_fp)" ] || clean=1
			echo "$kind" >"$dir/.rootfs-sources"
			[ -z "$clean" ] || rc_fp >"$dir/.rootfs-cached"
			echo "  ROOTFS  $dir: made by an older host/rootfs.sh, its suites ($(suites_of "$had")) the mirror's now: kept"
		else
			stale="made by an older host/rootfs.sh, its suites ($(suites_of "$had")) are not the mirror's now ($(suites_of "$sources"))"
		fi
	else
		echo "  ROOTFS  $dir: made by an older host/rootfs.sh, its suites ($(suites_of "$had")) not checked (host/apt.sh suites could not say: the mirror not reached, unsigned, or without the release): kept as it is"
	fi
	if [ -n "$stale" ]; then
		if grep -q " $dir[/ ]" /proc/self/mountinfo; then
			echo "host/rootfs.sh: $dir: $stale, but something is mounted under it: not making it anew" >&2
			exit 1
		fi
		# (the mirror's suites now, before the old root goes: a release it has not stops here)
		[ -n "$sources" ] || probe || exit
		echo "  ROOTFS  $dir: $stale: made anew"
		# (the old root removed behind, niced, as host/rootcache.sh does)
		mv "$dir" "$dir.old.$$"
		(nice -n 19 ionice -c 3 rm -rf "$dir.old.$$" </dev/null >/dev/null 2>&1 &)
	fi
fi
if [ ! -f "$dir/.rootfs-done" ] && ! grep -q " $dir[/ ]" /proc/self/mountinfo; then
	rc_get "$@" || true
fi
if [ ! -f "$dir/.rootfs-done" ]; then
	if grep -q " $dir[/ ]" /proc/self/mountinfo; then
		echo "host/rootfs.sh: something is mounted under $dir: not removing it" >&2
		exit 1
	fi
	rm -rf "$dir"
	mirrors
	echo "  ROOTFS  $dir: debootstrap $release${rarch:+ $rarch} from $main ($(basename "$(readlink -f "$script")") script)"
	log=$dir.debootstrap.log
	# in a mount namespace of its own: the /proc and /sys it mounts in DIR go with it, even if
	# it is killed (its mounts made private: / must be a mount point, as on any machine; in a
	# chroot, bind its root onto itself first)
	if ! unshare --mount --propagation private debootstrap --variant=minbase --keyring="$keyring" \
		${rarch:+--arch=$rarch --foreign} "$release" "$dir" "$main" "$script" >"$log" 2>&1; then
		echo "host/rootfs.sh: debootstrap $release failed: $(grep -E '^E:|W: Failure|^unshare:' "$log" | tail -n 1) (log: $log)" >&2
		exit 1
	fi
	# a foreign root: its second stage (its own dpkg unpacking and configuring) under qemu-user
	if [ -n "$rarch" ]; then
		sh "$here/binfmt.sh" "$rarch"
		if ! unshare --mount --propagation private chroot "$dir" /debootstrap/debootstrap \
			--second-stage >>"$log" 2>&1; then
			echo "host/rootfs.sh: debootstrap's second stage ($rarch, under qemu-user) failed: $(grep -E '^E:|W: Failure' "$log" | tail -n 1) (log: $log)" >&2
			exit 1
		fi
	fi
	indexinfo
	root_sources
	printf '%s\n' "$sources" >"$dir/etc/apt/sources.list"
	# no daemon starts in the root (a package's postinst would otherwise try)
	printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
	chmod 755 "$dir/usr/sbin/policy-rc.d"
	echo "$kind" >"$dir/.rootfs-sources"
	echo "$release $main${rarch:+ $rarch}" >"$dir/.rootfs-done"
	made=1
	rc_clean=1
fi
# a foreign root runs under qemu-user: its handler enabled (and probed) on every call
[ -z "$rarch" ] || sh "$here/binfmt.sh" "$rarch" "$dir"

# the root's apt: an index past its Valid-Until used, no recommends, a locked dpkg waited for
# (two callers of one root: vm/kernel.sh and the tests); written each time (a root made by an
# older version gets it too)
conf='// host/rootfs.sh: an index past its Valid-Until (testing'"'"'s, when it is not refreshed)
// is still used; signatures are checked as always
Acquire::Check-Valid-Until "false";
APT::Install-Recommends "false";
Dpkg::Use-Pty "false";
DPkg::Lock::Timeout "600";'
if [ "$(cat "$dir/etc/apt/apt.conf.d/90gpiolat" 2>/dev/null)" != "$conf" ]; then
	printf '%s\n' "$conf" >"$dir/etc/apt/apt.conf.d/90gpiolat"
fi

# a build root never boots: no initramfs made when a kernel image comes in (Debian 13's
# linux-headers-* depend on their image), update-initramfs diverted to true once
if ! chroot "$dir" dpkg-divert --list /usr/sbin/update-initramfs | grep -q .; then
	chroot "$dir" dpkg-divert --local --rename --add /usr/sbin/update-initramfs >/dev/null
	ln -sf /bin/true "$dir/usr/sbin/update-initramfs"
fi

# the foreign architectures and packages asked for, installed when missing; what is missing
# is found before anything changes the root (a clean root must still be clean when the cache
# is asked for it, else it is never stored again: a foreign architecture added first made the
# Debian 13 root of every ARM 6.12 target unclean, and each build installed its packages anew)
missing_now() {
	newarchs=
	for a in $archs; do
		chroot "$dir" dpkg --print-foreign-architectures | grep -qx "$a" || newarchs="$newarchs $a"
	done
	missing=
	for p in "$@"; do
		s=$(chroot "$dir" dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
		[ "$s" = installed ] || missing="$missing $p"
	done
}
missing_now "$@"
if [ -z "$missing$newarchs" ]; then
	[ -z "$made" ] || rc_put "$@"
	exit 0
fi
# (the same root with these packages and architectures from the cache, when it has it:
# installing is then done)
if [ -z "$made" ] && rc_get "$@"; then
	missing_now "$@"
	[ -n "$missing$newarchs" ] || exit 0
fi
for a in $newarchs; do
	chroot "$dir" dpkg --add-architecture "$a"
done

# an index the mirror fails to serve (mid-sync) is gone without, and said (host/apt.sh); the
# install below says it if a package is then missing
sh "$here/inroot.sh" "$dir" sh "$here/apt.sh" update "$dir" || exit 1
indexinfo
if [ -z "$missing" ]; then
	# (only an architecture added: a clean root stays clean, with it among what was asked)
	rc_mark "$@"
	exit 0
fi
echo "  ROOTFS  $dir: installing$missing"
# shellcheck disable=SC2086
sh "$here/inroot.sh" "$dir" apt-get install -y -qq $missing >"$dir.apt.log" 2>&1 || {
	echo "host/rootfs.sh: installing$missing in $dir failed: $(grep '^E:' "$dir.apt.log" | head -n 1) (log: $dir.apt.log)" >&2
	exit 1
}
rc_put "$@"
