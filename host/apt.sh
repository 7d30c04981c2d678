#!/bin/sh
# Host side (also in a root made by host/rootfs.sh, through host/inroot.sh): the apt steps that
# every package step shares (host/deps.sh, host/rootfs.sh, host/sysroot.sh, vm/kernel.sh).
# Usage: sh host/apt.sh update [WHERE]
#        sh host/apt.sh pick ARCH PACKAGE...
#        sh host/apt.sh suites [--main-only] RELEASE MIRROR SECURITY-MIRROR KEYRING [WHERE]
#        sh host/apt.sh cache-in CACHE, cache-out CACHE
#        sh host/apt.sh cacheopts
# The apt asked is the caller's (its APT_CONFIG, or the root it runs in).
#
# update: apt-get update that a mirror caught mid-sync does not stop. An index that fails to
#   download ("File has unexpected size ... Mirror sync in progress?", a hash mismatch, a
#   repository without a Release file) is gone without: apt keeps using the lists that did
#   download (and the older copy of that one, if it had one), and each index gone without is
#   named on stderr, from apt's own "Failed to fetch" and "E:" lines, with WHERE (default: this
#   machine's apt). A failed update is tried once more after APT_RETRY_S seconds (default 10: a
#   network error may be over by then), unless its only errors were indexes mid-sync;
#   a held lock is waited for (apt 2.6's update does not wait for the lists lock by itself).
#   Status 1 only when apt failed for another reason (a broken sources entry, a lock held for
#   600 s): a package that no downloaded index provides fails later, in the step that asks for it.
# pick: for each PACKAGE, what apt-get download fetches for ARCH, as NAME=VERSION on stdout, by
#   what apt says: PACKAGE:ARCH when apt has a candidate of that architecture, else PACKAGE when
#   apt's candidate is Architecture: all (one package for every architecture, e.g. Debian 13's
#   linux-libc-dev). A package apt knows neither way: one line on stderr, status 1.
# suites [--main-only] RELEASE MIRROR SECURITY-MIRROR KEYRING [WHERE]: the sources.list lines
#   of a root of RELEASE (host/rootfs.sh writes them), by what the mirror has, never by the
#   release's name: RELEASE on MIRROR, and RELEASE-updates (on MIRROR) and RELEASE-security (on
#   SECURITY-MIRROR) when apt fetches a Release file for them whose signature KEYRING verifies
#   and whose Codename is RELEASE's own Codename (its signed Release file's: trixie, or forky for
#   testing) with -updates or -security (--main-only: RELEASE's line alone, only its Release
#   file fetched). An apt of its own fetches the Release files only (the sources option
#   target=none: no index, about 1.5 s), through update above (a mirror mid-sync is tried
#   twice). Each suite left out is said on stderr, with why (no Release file, not signed,
#   another Codename), and the suites taken (WHERE: the root). RELEASE itself without a Release
#   file KEYRING verifies: one line on stderr, nothing on stdout, status 2 when the mirror has
#   none (apt: "does not have a Release file": no such release there), else 1 (not signed by
#   KEYRING, the mirror not reached).
# cache-in CACHE: before an apt-get download into the current folder: reads that download's
#   `apt-get download --print-uris` lines on stdin, and copies here each file CACHE holds under
#   the name apt gives with the SHA256 apt names (apt-get download then takes it as it is: it
#   checks the hash again and fetches only what is missing). Content shared between trees or
#   machines that download the same packages (tests/host/test_debian13_targets.py).
# cache-out CACHE: after it, each .deb of the current folder that CACHE lacks, copied there.
# cacheopts: the options (-o ...) that give the host's apt a parsed cache of its indexes where its
#   configuration keeps none (Dir::Cache::pkgcache "": Debian's container images, docker-clean):
#   there every apt-cache or apt-get call parses every index anew, 1.6 s of CPU on this machine
#   against 0.03 s with a cache (2026-11-29), and a target's build makes 5 to 10 such calls.
#   The cache is the tree's out/apt-host/ (apt checks it against the indexes and dpkg's status at
#   each call, and makes it anew when they changed; it writes it whole, then renames it). Nothing
#   where apt keeps its own cache, under another apt than the host's (APT_CONFIG set: that apt's
#   indexes are not the host's, its cache is its own), or where the tree's path has a blank.
set -eu

usage() {
	echo "usage: sh host/apt.sh update [WHERE] | pick ARCH PACKAGE... | suites [--main-only] RELEASE MIRROR SECURITY-MIRROR KEYRING [WHERE] | cache-in CACHE | cache-out CACHE | cacheopts" >&2
	exit 2
}

cacheopts() {
	[ -z "${APT_CONFIG:-}" ] || return 0
	_pc=
	eval "$(apt-config shell _pc Dir::Cache::pkgcache 2>/dev/null)"
	[ -z "$_pc" ] || return 0
	_d=$(cd "$(dirname "$0")/.." && pwd)/out/apt-host
	case $_d in *[[:space:]]*) return 0 ;; esac
	mkdir -p "$_d" 2>/dev/null || return 0
	echo "-o Dir::Cache::pkgcache=$_d/pkgcache.bin -o Dir::Cache::srcpkgcache=$_d/srcpkgcache.bin"
}

# paragraphs PKG...: "PACKAGE ARCHITECTURE VERSION" of each PKG's candidate (apt-cache show
# --no-all-versions: one apt call for all, each call reads every list)
paragraphs() {
	# shellcheck disable=SC2046
	apt-cache $(cacheopts) show --no-all-versions "$@" 2>/dev/null | awk '/^Package: / { p = $2 }
		/^Version: / { v = $2 } /^Architecture: / { a = $2 } /^$/ { if (p != "") print p, a, v; p = "" }
		END { if (p != "") print p, a, v }'
}

pick() {
	arch=$1
	shift
	own=$(paragraphs $(for p in "$@"; do echo "$p:$arch"; done))
	rest=
	for p in "$@"; do
		echo "$own" | awk -v p="$p" -v a="$arch" '$1 == p && $2 == a { found = 1 } END { exit !found }' ||
			rest="$rest $p"
	done
	# shellcheck disable=SC2086
	[ -z "$rest" ] || other=$(paragraphs $rest)
	for p in "$@"; do
		line=$(echo "$own" | awk -v p="$p" -v a="$arch" '$1 == p && $2 == a { print; exit }')
		[ -n "$line" ] || line=$(echo "${other:-}" | awk -v p="$p" '$1 == p { print; exit }')
		set -- $line
		if [ $# -eq 3 ] && [ "$2" = "$arch" ]; then
			echo "$p:$arch=$3"
		elif [ $# -eq 3 ] && [ "$2" = all ]; then
			echo "$p=$3"
		else
			echo "host/apt.sh: apt knows no $p for $arch${2:+ (only $2)}" >&2
			return 1
		fi
	done
}

# try: one apt-get update, its stderr in $err; a held lists lock waited for, 600 s at most
try() {
	_t=0
	while ! apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>"$err"; do
		if grep -q 'Could not get lock' "$err" && [ $_t -lt 600 ]; then
			sleep 5
			_t=$((_t + 5))
			continue
		fi
		return 1
	done
}

update() {
	where=${1:-this machine\'s apt}
	err=$(mktemp)
	ok=
	# a failure tried again after APT_RETRY_S, unless every error was a file the mirror served
	# that does not match its signed index (a mirror mid-sync: that lasts minutes to hours, so
	# going without it at once is what a second try would also end in; with it, apt's summary
	# line and the fetches it gave up beside it, which name no reason)
	if try; then
		ok=1
	elif grep '^[EW]: ' "$err" | grep -v -e 'Mirror sync in progress?' -e 'Hash Sum mismatch' \
		-e '^[EW]: Some index files failed to download' -e '^E: Failed to fetch [^ ]* *$' |
		grep -q . &&
		sleep "${APT_RETRY_S:-10}" && try; then
		ok=1
	fi
	# what apt went without (also when it exits 0 with warnings): "E: Failed to fetch URL
	# REASON [IP: ...]" (W: for a source it could not reach), and "E: The repository 'URL SUITE
	# Release' does not have a Release file."
	gone=$(sed -n -e 's/^[EW]: Failed to fetch \([^ ]*\)  *\(.*\)$/\1: \2/p' \
		-e "s/^E: \(The repository '.*\)$/\1/p" "$err" | sed 's/ *\[IP: [^]]*\]$//; s/: $//')
	# any other error: apt could not update at all
	other=$(grep '^E: ' "$err" | grep -v -e '^E: Failed to fetch ' -e "^E: The repository '" \
		-e '^E: Some index files failed to download' | head -n 1)
	rm -f "$err"
	if [ -z "$ok" ] && [ -n "$other" ]; then
		echo "host/apt.sh: apt-get update failed ($where): ${other#E: }" >&2
		return 1
	fi
	echo "$gone" | while IFS= read -r line; do
		[ -z "$line" ] ||
			echo "  APT     went without $line ($where: the indexes that downloaded are used)" >&2
	done
}

suites() {
	only=
	if [ "$1" = --main-only ]; then
		only=1
		shift
	fi
	release=$1 main=$2 security=$3 keyring=$4 swhere=${5:-$1}
	p=$(mktemp -d)
	mkdir -p "$p/lists/partial" "$p/cache/archives/partial" "$p/parts"
	for s in "$main $release" "$main $release-updates" "$security $release-security"; do
		echo "deb [signed-by=$keyring target=none] $s main"
		[ -z "$only" ] || break
	done >"$p/sources.list"
	{
		echo "Dir::Etc::SourceList \"$p/sources.list\"; Dir::Etc::SourceParts \"$p/parts\";"
		echo "Dir::State::Lists \"$p/lists\"; Dir::State::status \"/dev/null\";"
		echo "Dir::Cache \"$p/cache\"; Dir::Etc::Preferences \"/dev/null\";"
		echo "Dir::Etc::PreferencesParts \"$p/parts\"; Acquire::Languages \"none\";"
		echo 'Acquire::Check-Valid-Until "false"; APT::Sandbox::User "root";'
	} >"$p/apt.conf"
	APT_CONFIG=$p/apt.conf update "the mirror's suites of $release" 2>"$p/err" || cat "$p/err" >&2
	# codename SUITE: the Codename of SUITE's Release file apt fetched and verified, if any
	codename() {
		sed -n 's/^Codename: //p' "$p"/lists/*_dists_"$1"_InRelease "$p"/lists/*_dists_"$1"_Release \
			2>/dev/null | head -n 1
	}
	code=$(codename "$release")
	if [ -z "$code" ]; then
		# (apt's line about the release's own Release file: absent, or not signed by KEYRING)
		why=$(grep -F " $release " "$p/err" | head -n 1 |
			sed 's/^ *APT *went without //; s/ (the mirror.s suites .*$//')
		st=1
		case $why in *"does not have a Release file"*) st=2 ;; esac
		echo "host/apt.sh: $main has no release '$release' whose Release file $keyring verifies (${why:-apt fetched none})" >&2
		rm -rf "$p"
		return $st
	fi
	echo "deb $main $release main"
	taken=$release
	for s in updates security; do
		[ -z "$only" ] || break
		m=$main
		[ $s = updates ] || m=$security
		c=$(codename "$release-$s")
		if [ "$c" = "$code-$s" ]; then
			echo "deb $m $release-$s main"
			taken="$taken $release-$s"
			continue
		fi
		why=$(grep -F " $release-$s " "$p/err" | head -n 1 |
			sed 's/^ *APT *went without //; s/ (the mirror.s suites .*$//')
		[ -z "$c" ] || why="its Release file's Codename is $c, not $code-$s"
		echo "  APT     $swhere: suite $release-$s left out (${why:-apt fetched no signed Release file of it from $m})" >&2
	done
	echo "  APT     $swhere: suites $taken (their Release files signed, Codename $code${only:+; the main suite only, as asked})" >&2
	rm -rf "$p"
}

cache_in() {
	while read -r _uri _file _size _hash; do
		_h=${_hash#SHA256:}
		[ "$_h" != "$_hash" ] && [ -f "$1/$_file" ] && [ ! -e "$_file" ] || continue
		echo "$_h  $1/$_file" | sha256sum -c --quiet - >/dev/null 2>&1 || continue
		cp "$1/$_file" "$_file.tmp" && mv "$_file.tmp" "$_file"
	done
}

cache_out() {
	for _f in *.deb; do
		[ -f "$_f" ] && [ ! -e "$1/$_f" ] || continue
		cp "$_f" "$1/.$_f.$$" && mv "$1/.$_f.$$" "$1/$_f"
	done
}

[ $# -ge 1 ] || usage
case $1 in
cache-in | cache-out)
	[ $# -eq 2 ] && [ -d "$2" ] || usage
	if [ "$1" = cache-in ]; then cache_in "$2"; else cache_out "$2"; fi
	;;
update)
	[ $# -le 2 ] || usage
	shift
	update "$@"
	;;
suites)
	shift
	o=0
	[ "${1:-}" != --main-only ] || o=1
	[ $# -ge $((4 + o)) ] && [ $# -le $((5 + o)) ] || usage
	suites "$@"
	;;
pick)
	[ $# -ge 3 ] || usage
	shift
	pick "$@"
	;;
cacheopts)
	[ $# -eq 1 ] || usage
	cacheopts
	;;
*) usage ;;
esac
