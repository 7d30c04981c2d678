#!/bin/sh
# Host side: the content cache of built targets, outside the tree, shared by every clone and
# lane of this machine: Debian roots with their packages (host/rootfs.sh), kernel packages
# and depmod's index of their modules (vm/kernel.sh), minimal BTF's whole-kernel BTF
# (host/btf.sh), sysroots (host/sysroot.sh).
# What depends on the project's own C sources (gpiolat, the module, the togglers) is never in it.
#
# Where: $GPIOLAT_CACHE, else $XDG_CACHE_HOME/gpiolat, else ~/.cache/gpiolat; GPIOLAT_CACHE=
# (set and empty) turns it off (every step builds as before). Bounded by GPIOLAT_CACHE_MAX
# (default 40G; K, M, G suffixes): after each put the least recently used entries go.
#
# Usage: sh host/cache.sh dir                  the cache's folder (nothing, status 1: off)
#        sh host/cache.sh key FILE... <TEXT    the key: SHA256 of this cache's format, each
#                                              FILE's name and bytes, and TEXT (the other
#                                              inputs, as the caller says)
#        sh host/cache.sh get KIND KEY DEST    the entry into DEST (which must not exist);
#                                              status 1 when there is none or it is corrupt
#        sh host/cache.sh put KIND KEY SRC [INPUTS]   SRC (a folder) stored as the entry; INPUTS
#                                              a file of the key's inputs, kept beside it
#        sh host/cache.sh info | clean
#
# An entry is KIND/KEY/ with data.tar.zst (the folder, owners, modes, links and xattrs kept:
# a copy, never a hard link into the cache) and manifest (its SHA256 and size, written last).
# It is made in tmp/ and renamed into place, so it is whole or absent; get extracts into
# DEST.part, renamed to DEST when zstd's own check of the content (the XXH64 of every byte, which
# zstd writes by default and checks as it decompresses) and tar both succeeded; a corrupt entry is
# removed. (get checked the manifest's SHA256 first until 2026-11-29: a second read of the whole
# archive, 2.6 s of CPU for a 750 MB root, about 15 times in a clean clone's make test.) Readers
# and writers hold a shared lock on .lock; eviction and clean an exclusive one.
set -eu

usage() {
	echo "usage: sh host/cache.sh dir | key FILE... | get KIND KEY DEST | put KIND KEY SRC [INPUTS] | info | clean" >&2
	exit 2
}

# the cache's folder, or nothing when it is off
cachedir() {
	if [ "${GPIOLAT_CACHE+set}" = set ]; then
		echo "$GPIOLAT_CACHE"
	else
		echo "${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/gpiolat"
	fi
}
c=$(cachedir)
# (its entries are zstd archives: without zstd it is off, and a put says why; host/deps.sh
# installs zstd, which a fresh Debian 13 minbase machine lacks)
nozstd=
if [ -n "$c" ] && ! command -v zstd >/dev/null 2>&1; then
	c=
	nozstd=1
fi

bytes() { # 40G -> bytes
	echo "$1" | awk '/^[0-9]+[KMGT]?$/ { n = $0 + 0; u = substr($0, length($0));
		m = u == "K" ? 1024 : u == "M" ? 1048576 : u == "G" ? 1073741824 : u == "T" ? 1099511627776 : 1
		printf "%.0f\n", n * m; ok = 1 } END { exit !ok }'
}

key() {
	for f in "$@"; do
		[ -f "$f" ] || { echo "host/cache.sh: key: no file $f" >&2; exit 2; }
	done
	{
		# the format of an entry (data.tar.zst, manifest): a new one, a new number
		echo "gpiolat-cache 1"
		for f in "$@"; do
			echo "file $(basename "$f") $(sha256sum <"$f" | cut -d' ' -f1)"
		done
		cat
	} | sha256sum | cut -c1-32
}

checkname() {
	case $1 in
	"" | *[!A-Za-z0-9._-]*) echo "host/cache.sh: bad name '$1'" >&2; exit 2 ;;
	esac
}

# lock MODE: this shell's fd 8 on .lock (-s shared, -x exclusive)
lock() {
	mkdir -p "$c/tmp"
	exec 8>"$c/.lock"
	flock "$1" 8
}

get() {
	kind=$1 k=$2 dest=$3
	checkname "$kind"
	checkname "$k"
	[ -n "$c" ] || return 1
	e=$c/$kind/$k
	[ -f "$e/manifest" ] || return 1
	[ ! -e "$dest" ] || { echo "host/cache.sh: get: $dest exists" >&2; exit 2; }
	lock -s
	[ -f "$e/manifest" ] || return 1
	rm -rf "$dest.part" "$dest.zstd"
	mkdir -p "$dest.part"
	# (zstd's status through a file: a POSIX pipe gives only tar's)
	bad=
	{ zstd -dc -q "$e/data.tar.zst" || : >"$dest.zstd"; } |
		tar -x --numeric-owner --xattrs --xattrs-include='*' -p -C "$dest.part" || bad=1
	[ ! -e "$dest.zstd" ] || bad=1
	if [ -n "$bad" ]; then
		rm -rf "$dest.part"
		if [ -e "$dest.zstd" ]; then
			rm -f "$dest.zstd"
			echo "  CACHE   $kind/$k: corrupt (zstd's check of its content failed): removed, built anew" >&2
			rm -rf "$e"
		else
			echo "  CACHE   $kind/$k: cannot be extracted: built anew" >&2
		fi
		return 1
	fi
	mv "$dest.part" "$dest"
	touch "$e/used"
}

put() {
	kind=$1 k=$2 src=$3 inputs=${4:-}
	checkname "$kind"
	checkname "$k"
	if [ -n "$nozstd" ]; then
		echo "host/cache.sh: the cache is off: no zstd (sh host/deps.sh installs it)" >&2
	fi
	[ -n "$c" ] || return 0
	[ -d "$src" ] || { echo "host/cache.sh: put: no folder $src" >&2; exit 2; }
	lock -s
	e=$c/$kind/$k
	[ ! -f "$e/manifest" ] || return 0
	t=$(mktemp -d "$c/tmp/$kind-$k.XXXXXX")
	if ! tar -c --numeric-owner --xattrs --xattrs-include='*' -C "$src" . |
		zstd -q -T0 -1 -o "$t/data.tar.zst"; then
		rm -rf "$t"
		echo "host/cache.sh: put: cannot store $src" >&2
		return 1
	fi
	[ -z "$inputs" ] || cp "$inputs" "$t/inputs"
	{
		echo "sha256 $(cd "$t" && sha256sum data.tar.zst)"
		echo "size $(wc -c <"$t/data.tar.zst")"
		echo "from $src"
	} >"$t/manifest.tmp"
	mv "$t/manifest.tmp" "$t/manifest"
	touch "$t/used"
	mkdir -p "$c/$kind"
	# whole or absent: a concurrent writer of the same entry that renamed first wins
	mv -T "$t" "$e" 2>/dev/null || rm -rf "$t"
	exec 8>&-
	evict
}

# the least recently used entries go until the cache holds at most GPIOLAT_CACHE_MAX
evict() {
	max=$(bytes "${GPIOLAT_CACHE_MAX:-40G}") || {
		echo "host/cache.sh: GPIOLAT_CACHE_MAX=$GPIOLAT_CACHE_MAX: a size (40G, 500M)" >&2
		exit 2
	}
	lock -x
	# (tmp/: writers' unfinished entries older than a day are a killed writer's)
	find "$c/tmp" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
	total=0
	list=$(for m in "$c"/*/*/manifest; do
		[ -f "$m" ] || continue
		e=$(dirname "$m")
		echo "$(stat -c %Y "$e/used" 2>/dev/null || echo 0) $(sed -n 's/^size //p' "$m") $e"
	done | sort -n)
	total=$(echo "$list" | awk '{ s += $2 } END { printf "%.0f\n", s }')
	echo "$list" | while read -r _t size e; do
		[ -n "${e:-}" ] || continue
		[ "$total" -gt "$max" ] || break
		echo "  CACHE   evicted ${e#"$c"/} ($size bytes; the cache's bound $max bytes)" >&2
		rm -rf "$e"
		total=$((total - size))
	done
	exec 8>&-
}

info() {
	[ -z "$nozstd" ] || { echo "the cache is off: no zstd (sh host/deps.sh installs it)"; return 0; }
	[ -n "$c" ] || { echo "the cache is off (GPIOLAT_CACHE= is empty)"; return 0; }
	if [ ! -d "$c" ]; then
		echo "$c: empty"
		return 0
	fi
	echo "$c (bound: ${GPIOLAT_CACHE_MAX:-40G}, GPIOLAT_CACHE_MAX)"
	for m in "$c"/*/*/manifest; do
		[ -f "$m" ] || continue
		e=$(dirname "$m")
		printf '  %-60s %8s  used %s\n' "${e#"$c"/}" \
			"$(du -sh "$e" | cut -f1)" "$(date -u -r "$e/used" +%FT%TZ 2>/dev/null || echo -)"
	done
	[ ! -d "$c/deb" ] || printf '  %-60s %8s  (%s files)\n' "deb/ (packages by SHA256)" \
		"$(du -sh "$c/deb" | cut -f1)" "$(find "$c/deb" -name '*.deb' | wc -l)"
	echo "  total $(du -sh "$c" | cut -f1) ($(du -sb "$c" | cut -f1) bytes)"
}

clean() {
	[ -n "$c" ] || return 0
	[ -d "$c" ] || return 0
	lock -x
	echo "  CACHE   removing $c"
	find "$c" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
dir) [ -n "$c" ] && echo "$c" ;;
key) key "$@" ;;
get) [ $# -eq 3 ] || usage; get "$@" ;;
put) [ $# -ge 3 ] && [ $# -le 4 ] || usage; put "$@" ;;
info) info ;;
clean) clean ;;
*) usage ;;
esac
