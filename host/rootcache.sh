# Host side, sourced by host/rootfs.sh (its $dir, $release, $rarch, $archs, $here, $script and
# root_sources, which sets $sources: the root's sources.list lines, written by rootfs.sh only):
# a root of host/rootfs.sh in the content cache (host/cache.sh).
#
# Key: the bytes of rootfs.sh, this file, apt.sh, binfmt.sh, inroot.sh and the debootstrap
# script, host/cache.sh's format, debootstrap's version, the release, the root's architecture and its
# foreign ones, every package asked of the root so far (DIR/.rootfs-asked), and the versions apt
# resolves for them, with the priority-required set and apt (what debootstrap --variant=minbase
# installs), from an empty dpkg status: `apt-get install -s` of this machine's apt, on the
# indexes of the root's suites (the root's own sources.list lines: the same suites the root's
# apt reads, and their names in the key) of the root's architecture (CACHE/apt/RELEASE-ARCH@SUITES:
# fetched with host/apt.sh, refreshed when a day old or when the lines changed). The key changes
# when a script, a suite, a version or a package asked changes, never by a release's name alone.
#
# A root is stored after it was made or packages were installed in it, when nothing else had
# changed it since it was made, taken or stored (DIR/.rootfs-cached: a listing of its files'
# names, sizes, mtimes and modes, hashed; left out of it: its apt lists and caches, /tmp,
# resolv.conf, the project's mount point, the empty lib/modules/RELEASE folders and
# etc/apt/gpiolat-* that vm/kernel.sh adds). Such a root is replaced by the cache's root for its
# new key (carried over: those lists, folders and files); a root changed otherwise (a test
# installed into it, a build left files) is neither replaced nor stored.

rc_clean=
rc_key=

rc_arch() { if [ -n "$rarch" ]; then echo "$rarch"; else dpkg --print-architecture; fi; }

# rc_fp: the root's listing hashed (what DIR/.rootfs-cached holds)
rc_fp() {
	top=$(cd "$here/.." && pwd)
	(cd "$dir" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./tmp -o -path ./var/tmp \
		-o -path './var/lib/apt/lists*' -o -path ./var/cache/apt -o -path ./root/.cache \
		-o -path ./etc/resolv.conf -o -path './etc/apt/gpiolat-*' -o -path ./.rootfs-cached \
		-o -path ./.rootfs-asked \) -prune -o -type d -printf '%P d %m\n' \
		-o -printf '%P %y %s %T@ %m\n') | LC_ALL=C sort |
		awk -v top="$top/" '$2 == "d" && (index(top, "/" $1 "/") == 1 ||
			$1 ~ /^(usr\/)?lib\/modules(\/[^\/]+)?$/) { next } { print }' | sha256sum | cut -c1-64
}

# rc_asked PACKAGE...: every package and foreign architecture asked of the root, with these
rc_asked() {
	{
		[ ! -f "$dir/.rootfs-asked" ] || cat "$dir/.rootfs-asked"
		for a in $archs; do echo "arch $a"; done
		for p in "$@"; do echo "pkg $p"; done
	} | LC_ALL=C sort -u
}

# rc_suites: the suites of $sources, on one line
rc_suites() {
	printf '%s\n' "$sources" | sed 's/ \[[^]]*\]//' |
		awk '$1 == "deb" { printf "%s%s", n++ ? " " : "", $3 } END { print "" }'
}

# rc_resolve ASKED: the versions apt resolves for them on the root's suites' indexes today, of
# the root's architecture and of each foreign one a package asked names (NAME:ARCH): a foreign
# architecture asked for alone (vm/kernel.sh's, to download that architecture's kernel) changes
# nothing apt installs, and its indexes are not read: apt takes a suite's indexes all or none,
# so one of them mid-sync (trixie-security's armhf, 2026-11-28) took the suite's native index
# with it, and a package only that suite has (a security update's linux-kbuild) went unresolved
rc_resolve() {
	arch=$(rc_arch)
	foreign=$(echo "$1" | sed -n 's/^pkg [^:]*:\(.*\)$/\1/p' | grep -vx "$arch" | sort -u | tr '\n' ' ')
	a=$cache/apt/$release-$arch$(for f in $foreign; do printf -- '-%s' "$f"; done)
	a=$a@$(rc_suites | tr ' ' '+')
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/parts"
	(
		flock 7
		printf '%s\n' "$sources" >"$a/sources.list.new"
		[ -f "$a/status" ] || : >"$a/status"
		{
			echo "Dir::Etc::SourceList \"$a/sources.list\"; Dir::Etc::SourceParts \"$a/parts\";"
			echo "Dir::State::Lists \"$a/lists\"; Dir::State::status \"$a/status\";"
			echo "Dir::Cache \"$a/cache\"; Dir::Etc::Preferences \"/dev/null\";"
			echo "Dir::Etc::PreferencesParts \"$a/parts\"; Acquire::Languages \"none\";"
			echo "APT::Architecture \"$arch\"; APT::Architectures { \"$arch\"; $(for f in $foreign; do printf '"%s"; ' "$f"; done)};"
			echo 'Acquire::Check-Valid-Until "false"; APT::Install-Recommends "false";'
		} >"$a/apt.conf.new"
		# (rewritten only when changed: apt keeps its parsed cache while they are as they were;
		# changed lines (another mirror) are updated at once)
		changed=
		for f in sources.list apt.conf; do
			if cmp -s "$a/$f.new" "$a/$f"; then rm "$a/$f.new"; else mv "$a/$f.new" "$a/$f"; changed=1; fi
		done
		if [ -n "$changed" ] || [ -z "$(find "$a/lists" -maxdepth 1 -name '*_InRelease' -mmin -1440 2>/dev/null)" ]; then
			APT_CONFIG=$a/apt.conf sh "$here/apt.sh" update "the cache's apt of $release $arch" >&2
		fi
	) 7>"$a.lock" || return 1
	pkgs=$(echo "$1" | sed -n 's/^pkg //p')
	# (its parsed cache kept: -o, as a host's apt.conf.d may turn it off)
	# shellcheck disable=SC2086
	APT_CONFIG=$a/apt.conf apt-get -o Dir::Cache::pkgcache="$a/cache/pkgcache.bin" \
		-o Dir::Cache::srcpkgcache="$a/cache/srcpkgcache.bin" install -s -qq '?and(?priority(required),?architecture(native))' apt $pkgs >"$a.sim.$$" 2>&1 || true
	if grep '^E: ' "$a.sim.$$" || ! grep -q '^Inst ' "$a.sim.$$"; then
		rm -f "$a.sim.$$"
		return 1
	fi
	sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*\[\([a-z0-9]*\)\]).*/\1 \2 \3/p' "$a.sim.$$" | LC_ALL=C sort
	rm -f "$a.sim.$$"
}

# rc_keyof PACKAGE...: the key (in $rc_key, its inputs in $dir.cache-inputs); status 1 when
# the cache is off or apt cannot resolve them (the root is then made as without a cache)
rc_keyof() {
	cache=$(sh "$here/cache.sh" dir) || return 1
	root_sources
	asked=$(rc_asked "$@")
	if ! resolved=$(rc_resolve "$asked"); then
		echo "  ROOTFS  $dir: not cached (apt cannot resolve what it is asked: $(echo "$resolved" |
			grep '^E:' | head -n 1))" >&2
		return 1
	fi
	{
		echo "release $release"
		echo "suites $(rc_suites)"
		echo "root-arch $(rc_arch)"
		echo "debootstrap $(dpkg-query -W -f='${Version}' debootstrap 2>/dev/null)"
		echo "$asked"
		echo "$resolved" | sed 's/^/resolved /'
	} >"$dir.cache-inputs"
	rc_key=$(sh "$here/cache.sh" key "$here/rootfs.sh" "$here/rootcache.sh" "$here/apt.sh" \
		"$here/binfmt.sh" "$here/inroot.sh" "$script" <"$dir.cache-inputs")
}

# rc_get PACKAGE...: the root from the cache (status 0), for a new root or a clean one
rc_get() {
	rc_clean=
	if [ -f "$dir/.rootfs-done" ]; then
		[ -f "$dir/.rootfs-cached" ] && [ "$(cat "$dir/.rootfs-cached")" = "$(rc_fp)" ] || return 1
	fi
	rc_clean=1
	rc_keyof "$@" || return 1
	rm -rf "$dir.new"
	sh "$here/cache.sh" get roots "$rc_key" "$dir.new" || return 1
	if [ -f "$dir/.rootfs-done" ]; then
		# what others add to a clean root, carried over: the newer apt lists, vm/kernel.sh's
		# apt of a foreign architecture, the empty module folders the targets bind to
		newest() { find "$1/var/lib/apt/lists" -maxdepth 1 -name '*_InRelease' -printf '%T@\n' 2>/dev/null | sort -n | tail -n 1; }
		if [ "$(printf '%s\n%s\n' "$(newest "$dir")" "$(newest "$dir.new")" | sort -n | tail -n 1)" = "$(newest "$dir")" ]; then
			for l in "$dir"/var/lib/apt/lists*; do
				[ -d "$l" ] || continue
				rm -rf "$dir.new/var/lib/apt/${l##*/}"
				mv "$l" "$dir.new/var/lib/apt/"
			done
		fi
		for f in "$dir"/etc/apt/gpiolat-*; do
			[ ! -e "$f" ] || cp -a "$f" "$dir.new/etc/apt/"
		done
		for m in "$dir"/lib/modules/*/; do
			[ ! -d "$m" ] || mkdir -p "$dir.new/lib/modules/$(basename "$m")"
		done
		# (the old root removed behind, niced: measured on 2 loaded cores, removing a 1.4 GB
		# root took 70 s, taking one from the cache 13 s)
		mv "$dir" "$dir.old.$$"
		mv "$dir.new" "$dir"
		(nice -n 19 ionice -c 3 rm -rf "$dir.old.$$" </dev/null >/dev/null 2>&1 &)
	else
		rm -rf "$dir"
		mv "$dir.new" "$dir"
	fi
	rc_asked "$@" >"$dir/.rootfs-asked.new"
	mv "$dir/.rootfs-asked.new" "$dir/.rootfs-asked"
	rc_fp >"$dir/.rootfs-cached"
	echo "  ROOTFS  $dir: from the cache (roots/$rc_key)"
}

# rc_mark PACKAGE...: what was asked recorded; a root that was clean before stays clean
# (DIR/.rootfs-cached anew), one that was not stays not; status 1 then
rc_mark() {
	rc_asked "$@" >"$dir/.rootfs-asked.new"
	mv "$dir/.rootfs-asked.new" "$dir/.rootfs-asked"
	if [ "$rc_clean" != 1 ]; then
		rm -f "$dir/.rootfs-cached"
		return 1
	fi
	rc_fp >"$dir/.rootfs-cached"
}

# rc_put PACKAGE...: after a successful install (or debootstrap), the root stored when clean
rc_put() {
	rc_mark "$@" || return 0
	rc_keyof || return 0
	echo "  ROOTFS  $dir: stored in the cache (roots/$rc_key)"
	sh "$here/cache.sh" put roots "$rc_key" "$dir" "$dir.cache-inputs" || return 0
	rc_fp >"$dir/.rootfs-cached"
}
