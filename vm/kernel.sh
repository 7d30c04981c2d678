#!/bin/sh
# Host side: fetch Debian's kernel for the emulated target, without installing it as the host
# kernel. Usage: vm/kernel.sh KERNEL ARCH DIR
#   KERNEL   x86_64 (amd64)            arm (armhf: armmp)           arm64 (arm64)
#   std      the host release's kernel (its apt's linux-image-FLAVOUR): Debian 12's 6.1 on a
#            Debian 12 host, Debian 13's 6.12 on a Debian 13 host (vm/std.sh says which)
#   rt       its PREEMPT_RT flavour (linux-image-rt-FLAVOUR)
#   6.12     Debian 13's 6.12          Debian 13's 6.12             Debian 13's 6.12
#   6.12-rt  Debian 13's 6.12 RT       Debian 13's 6.12 RT          Debian 13's 6.12 RT
#   testing  Debian testing's newest kernel (7.2 on 2026-11-23), on all three
#   testing-rt  its PREEMPT_RT flavour (amd64, arm64; testing has no rt-armmp)
# "6.12" is Debian 13's (trixie's linux-image-amd64, -rt-amd64, -armmp, -rt-armmp, -arm64,
# -rt-arm64: on ARM the BeagleBone class with PREEMPT_RT). The 6.12 and testing targets are
# whole systems of their release: they run its user space too, on x86_64 the root
# out/roots/trixie or out/roots/testing (vm/userspace.sh: its bpftrace, libgpiod 2 tools, and
# gpiolat and the togglers built there), on ARM a root of their own architecture,
# out/roots/trixie-armhf etc., where the release packages the tools for it;
# DIR/userspace names that root. std and rt on x86_64 run the host's root (on a Debian 13
# host: Debian 13's 6.12 on the host's Debian 13), on ARM the busybox initramfs.
#
# The ABI (e.g. 6.1.0-56) is discovered from the linux-image-* metapackage every time: it changes
# with security updates. std's and rt's kernels come from the host's apt; another release's from
# the apt of a root of that release (host/rootfs.sh: out/roots/trixie, out/roots/testing, made
# once), whose index is refreshed when older than a day. The image is downloaded with apt-get
# download, extracted with dpkg-deb, its modules indexed with depmod -b (that index from the
# content cache when the same packages were indexed by the same depmod), and the matching
# headers: the host release's installed on the host (to build kmod/ for it; a foreign architecture's
# extracted into DIR/headers instead); another release's always extracted into DIR/headers,
# with that release's linux-kbuild and compiler installed in its root: their programs are linked
# against that release's C library and do not run on Debian 12, so the module is built in the
# root (host/inroot.sh; DIR/buildroot names it, DIR/cc the compiler, e.g. gcc-16). Writes
# DIR/release (the kernel release string), DIR/package (the image package, naming the ABI),
# DIR/arch and DIR/build (the headers' build folder) when all of that is in place; a second run
# with the same ABI does nothing. A foreign architecture is added to dpkg (dpkg
# --add-architecture) when missing.
#
# Indexes out of date or out of sync:
# - An index that fails to download (a suite mid-sync: "File has unexpected size ... Mirror sync
#   in progress?") is gone without, and named, by every apt-get update here (host/apt.sh): the
#   kernel is taken from the indexes that did download.
# - testing's Release file can be past its Valid-Until (it was 17 days past it on 2026-11-23):
#   the root's apt does not check Valid-Until (signatures are checked as always); the index's
#   date is printed with the version.
# - When the metapackage's version cannot be downloaded (an index out of sync: apt reports a size
#   or hash mismatch, seen for armhf's security index), the newest other version of the same
#   metapackage that apt knows (the main archive's) is taken instead, and said.
# - When a release's index of a foreign architecture does not match its signed Release file at
#   all (seen for trixie's armhf on 2026-11-23: every armhf Packages file of trixie,
#   trixie-updates and trixie-security a different size than their InRelease says), apt cannot
#   use it. The mirror may still serve it as signed under the release's other name (trixie:
#   stable, stable-security; on 2026-11-23 the armhf files matched those InRelease files, dated
#   2026-09-12 and 2026-10-29, signed by Debian's 13 keys): that architecture then gets an apt of
#   its own in the root from those suites (their Codename checked), said with the version;
#   KERNELDIR/aptconf names it for host/btf.sh. When neither matches, this stops with that
#   said. KERNEL_UNVERIFIED=1 then takes the index as it is (and the packages it names, their
#   SHA256 checked against it only), saying so: nothing then authenticates what runs in the
#   target or builds its module.
set -eu

usage="usage: vm/kernel.sh std|rt|6.12|6.12-rt|testing|testing-rt x86_64|arm|arm64 DIR"
kernel=${1:?$usage}
arch=${2:?$usage}
dir=${3:?$usage}
here=$(cd "$(dirname "$0")" && pwd)
proj=$(dirname "$here")

case $arch in
x86_64) deb=amd64 flavour=amd64 ;;
arm) deb=armhf flavour=armmp ;;
arm64) deb=arm64 flavour=arm64 ;;
*) echo "vm/kernel.sh: unknown architecture '$arch' (x86_64, arm or arm64)" >&2; exit 2 ;;
esac
suite=
case $kernel in
std) meta=linux-image-$flavour ;;
rt) meta=linux-image-rt-$flavour ;;
6.12 | 6.12-rt)
	rt=${kernel#6.12}
	suite=trixie meta=linux-image${rt:+-rt}-$flavour
	;;
testing) suite=testing meta=linux-image-$flavour ;;
testing-rt) suite=testing meta=linux-image-rt-$flavour ;;
*)
	echo "vm/kernel.sh: unknown kernel '$kernel' (std, rt, 6.12, 6.12-rt, testing or testing-rt)" >&2
	exit 2
	;;
esac
native=$(dpkg --print-architecture)
# the host's apt-get install waits (at most 600 s) for another apt run's lock instead of failing
# at once (the host's apt is shared with other builds); every apt-get update is host/apt.sh's:
# it waits for the lists lock too, and goes without (and names) an index the mirror fails to
# serve
# (with a cache of its parsed indexes where the host's apt keeps none: host/apt.sh cacheopts)
aptc=$(sh "$proj/host/apt.sh" cacheopts)
# shellcheck disable=SC2086
hostapt() { apt-get -o DPkg::Lock::Timeout=600 $aptc "$@"; }
hostapt_update() { sh "$proj/host/apt.sh" update >&2; }
# rootapt_update [env APT_CONFIG=FILE]: the same in the root, one caller at a time
rootapt_update() {
	flock "$root.lock" sh "$proj/host/inroot.sh" "$root" "$@" sh "$proj/host/apt.sh" update \
		"$root${2:+ (${2#APT_CONFIG=})}" >&2
}
if [ "$deb" = "$native" ]; then
	q=
else
	q=:$deb
	if [ -z "$suite" ] && ! dpkg --print-foreign-architectures | grep -qx "$deb"; then
		dpkg --add-architecture "$deb"
		hostapt_update
	fi
fi

# In a root of another release: what its module build needs (the release's own compiler and
# cross compilers; linux-kbuild and gcc-N are added below, once the headers name them).
root=
unverified=
aptenv=
alias=
if [ -n "$suite" ]; then
	root=$proj/out/roots/$suite
	case $deb in
	armhf) cross=gcc-arm-linux-gnueabihf ;;
	arm64) cross=gcc-aarch64-linux-gnu ;;
	*) cross= ;;
	esac
	# shellcheck disable=SC2086
	sh "$proj/host/rootfs.sh" "$suite" "$root" make gcc libc6-dev kmod xz-utils $cross >&2
	lists=$root/var/lib/apt/lists
	alists=$root/var/lib/apt/lists-$deb
	# (an index taken unverified, or under the release's other name, today is not tried again
	# before tomorrow)
	if [ -n "$q" ] && { [ "${KERNEL_UNVERIFIED:-0}" != 1 ] ||
		[ -z "$(find "$root.unverified-$deb.Packages" -mmin -1440 2>/dev/null)" ]; } &&
		[ -z "$(find "$alists" -maxdepth 1 -name '*_InRelease' -mmin -1440 2>/dev/null)" ] &&
		{ sh "$proj/host/rootfs.sh" -a "$deb" "$suite" "$root" >&2 || true; } &&
		! ls "$lists"/*_dists_"${suite}"_main_binary-"${deb}"_Packages* >/dev/null 2>&1; then
		# apt went without that architecture's index (host/apt.sh said why): it is taken out of
		# the root's dpkg again (else every later apt-get update there tries it again)
		sh "$proj/host/inroot.sh" "$root" dpkg --remove-architecture "$deb"
	fi
	# a day-old index is refreshed (the metapackage follows security updates)
	if [ -z "$(find "$lists" -maxdepth 1 -name '*_InRelease' -mmin -1440 2>/dev/null)" ]; then
		rootapt_update || true
	fi
	# An index the release's name does not authenticate may be the one the mirror signed under
	# the release's other name (on 2026-11-23 this mirror served trixie's and trixie-security's
	# armhf files as they were when its dists/stable (2026-09-12) and dists/stable-security
	# (2026-10-29) InRelease files were signed). That architecture then gets an apt of its own in
	# the root (APT_CONFIG=/etc/apt/gpiolat-ARCH.conf: its sources, lists and architecture
	# only), from those suites, taken only when each of their signed Release files names this
	# release (Codename); signatures checked as always, Valid-Until not (host/rootfs.sh).
	# The other name is the mirror's suite whose Release file's Codename is this release's
	# (trixie: stable; testing: forky), found by reading the candidates' InRelease (only to pick
	# one: what apt then fetches from it is checked as above) and kept in that apt's sources.
	if [ -n "$q" ] && ! ls "$lists"/*_dists_"${suite}"_main_binary-"${deb}"_Packages* >/dev/null 2>&1; then
		# the release's codename as its own (signed) Release file says (testing: forky)
		want=$(sed -n 's/^Codename: //p' "$lists"/*_dists_"${suite}"_InRelease 2>/dev/null |
			head -n 1)
		want=${want:-$suite}
		alias=$(sed -n 's/^deb \[arch=[^]]*\] [^ ]* \([^ ]*\) main$/\1/p' \
			"$root/etc/apt/gpiolat-$deb.list" 2>/dev/null | head -n 1)
		if [ -z "$alias" ]; then
			m=$(sed -n "s/^deb \([^ ]*\) $suite main\$/\1/p" "$root/etc/apt/sources.list")
			for a in "$want" stable testing oldstable unstable; do
				[ "$a" != "$suite" ] || continue
				c=$(curl -fsS --max-time 60 "$m/dists/$a/InRelease" 2>/dev/null |
					sed -n 's/^Codename: //p' | head -n 1)
				if [ "$c" = "$want" ]; then
					alias=$a
					break
				fi
			done
		fi
	fi
	if [ -n "$q" ] && [ -n "$alias" ] &&
		! ls "$lists"/*_dists_"${suite}"_main_binary-"${deb}"_Packages* >/dev/null 2>&1; then
		conf=/etc/apt/gpiolat-$deb.conf
		main=$(sed -n "s/^deb \([^ ]*\) $suite main\$/\1/p" "$root/etc/apt/sources.list")
		sec=$(sed -n "s/^deb \([^ ]*\) $suite-security main\$/\1/p" "$root/etc/apt/sources.list")
		{
			echo "deb [arch=$deb] $main $alias main"
			[ -z "$sec" ] || echo "deb [arch=$deb] $sec $alias-security main"
		} >"$root/etc/apt/gpiolat-$deb.list"
		printf '%s\n' "// vm/kernel.sh: $suite's $deb index under the release's other name" \
			"Dir::Etc::SourceList \"/etc/apt/gpiolat-$deb.list\";" \
			"Dir::Etc::SourceParts \"/etc/apt/gpiolat-$deb.list.d\";" \
			"Dir::State::Lists \"/var/lib/apt/lists-$deb\";" \
			'Dir::Cache::pkgcache "";' 'Dir::Cache::srcpkgcache "";' \
			"APT::Architectures { \"$deb\"; };" >"$root$conf"
		mkdir -p "$root/etc/apt/gpiolat-$deb.list.d" "$alists/partial"
		if [ -z "$(find "$alists" -maxdepth 1 -name '*_InRelease' -mmin -1440 2>/dev/null)" ]; then
			rootapt_update env APT_CONFIG="$conf" || true
		fi
		named=yes
		for f in "$alists"/*_InRelease; do
			[ -f "$f" ] || continue
			case $(sed -n 's/^Codename: //p' "$f" | head -n 1) in
			"$want" | "$want"-security) ;;
			*) named= ;;
			esac
		done
		if [ -n "$named" ] &&
			ls "$alists"/*_dists_"${alias}"*_main_binary-"${deb}"_Packages* >/dev/null 2>&1; then
			aptenv="env APT_CONFIG=$conf"
		elif [ -z "$named" ]; then
			echo "vm/kernel.sh: the mirror's $alias is no longer Debian $suite: not used" >&2
			# (looked for again next time)
			rm -f "$root/etc/apt/gpiolat-$deb.list"
		fi
	fi
	if [ -n "$q" ] && [ -z "$aptenv" ] &&
		! ls "$lists"/*_dists_"${suite}"_main_binary-"${deb}"_Packages* >/dev/null 2>&1; then
		if [ "${KERNEL_UNVERIFIED:-0}" != 1 ]; then
			echo "vm/kernel.sh: $suite's $deb index on the mirror does not match its signed" \
				"Release file${alias:+, nor $alias's} (apt-get update in $root says which):" \
				"no $kernel for $arch" \
				"(KERNEL_UNVERIFIED=1 takes that index unverified)" >&2
			exit 1
		fi
		unverified=$root.unverified-$deb.Packages
	fi
fi
inroot() { sh "$proj/host/inroot.sh" "$root" "$@"; }
# shellcheck disable=SC2086
inapt() { inroot $aptenv "$@"; }

# show PKG[=VERSION]: apt-cache show's paragraph (the host's apt, the root's, or the unverified
# index); fetch PKG...: download PKG's newest version into the current folder (inside DIR)
show() {
	if [ -n "$unverified" ]; then
		p=${1%%=*}
		awk -v p="${p%%:*}" -v v="$(case $1 in *=*) echo "${1#*=}" ;; esac)" '
			/^Package: / { ok = ($2 == p) } /^Version: / { ok = ok && (v == "" || $2 == v) }
			/^$/ { if (ok) { print buf; exit } buf = ""; next } { buf = buf $0 "\n" }' \
			"$unverified"
	elif [ -n "$root" ]; then
		inapt apt-cache show "$1" 2>/dev/null
	else
		# shellcheck disable=SC2086
		apt-cache $aptc show "$1" 2>/dev/null
	fi
}
fetch() {
	if [ -n "$unverified" ]; then
		mirror=$(sed -n 's/^deb \([^ ]*\) .*/\1/p' "$root/etc/apt/sources.list" | head -n 1)
		for p in "$@"; do
			p=${p%%:*}
			f=$(show "$p" | sed -n 's/^Filename: //p' | head -n 1)
			sum=$(show "$p" | sed -n 's/^SHA256: //p' | head -n 1)
			[ -n "$f" ] || { echo "vm/kernel.sh: $p is not in $unverified" >&2; return 1; }
			curl -fsS -o "$(basename "$f")" "$mirror/$f" || return 1
			echo "$sum  $(basename "$f")" | sha256sum -c --quiet - || return 1
		done
	else
		# by the root's apt or the host's; the files out/cache/deb (when that folder exists)
		# or else the content cache's deb/ has taken from there, by name and SHA256
		# (host/apt.sh cache-in), and what was fetched kept there
		_apt="apt-get $aptc"
		[ -z "$root" ] || _apt="inapt apt-get"
		[ ! -d "$debcache" ] || $_apt download --print-uris "$@" 2>/dev/null |
			sh "$proj/host/apt.sh" cache-in "$debcache"
		$_apt download -qq "$@" || return 1
		[ ! -d "$debcache" ] || sh "$proj/host/apt.sh" cache-out "$debcache"
	fi
}
debcache=$proj/out/cache/deb
# else the content cache's (host/cache.sh) when it is on: deb/, each file by the name and SHA256
# apt gives (out/cache/deb first: a tree that has one shares it, tests/host/test_debian13_targets)
if [ ! -d "$debcache" ] && c=$(sh "$proj/host/cache.sh" dir); then
	debcache=$c/deb
	mkdir -p "$debcache"
fi
if [ -n "$unverified" ]; then
	m=$(sed -n 's/^deb \([^ ]*\) .*/\1/p' "$root/etc/apt/sources.list" | head -n 1)
	if [ -z "$(find "$unverified" -mmin -1440 2>/dev/null)" ]; then
		curl -fsS "$m/dists/$suite/main/binary-$deb/Packages.xz" | xz -dc >"$unverified.tmp"
		mv "$unverified.tmp" "$unverified"
	fi
	echo "vm/kernel.sh: KERNEL_UNVERIFIED=1: $suite's $deb index taken from $m as it is" \
		"(it does not match the signed Release file)" >&2
fi

# versions: the metapackage's versions apt knows, newest first; dep VERSION: its image package
versions() {
	if [ -n "$unverified" ]; then
		show "$meta" | sed -n 's/^Version: //p'
	elif [ -n "$root" ]; then
		inapt apt-cache madison "$meta$q" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
			awk '!seen[$0]++'
	else
		# shellcheck disable=SC2086
		apt-cache $aptc madison "$meta$q" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
			awk '!seen[$0]++'
	fi
}
dep() {
	show "$meta$q=$1" | sed -n 's/^Depends: .*\(linux-image-[0-9][^ ,]*\).*$/\1/p' | head -n 1
}
vers=$(versions)
if [ -z "$vers" ] && [ -z "$root" ]; then
	# a machine whose package lists were never fetched
	hostapt_update
	vers=$(versions)
fi
if [ -z "$vers" ]; then
	echo "vm/kernel.sh: cannot resolve $meta$q${suite:+ in Debian $suite} (run 'apt-get update' first?)" >&2
	exit 1
fi

# what: the release's index as printed with a testing kernel's version
what=
if [ -n "$unverified" ]; then
	what=" (Debian $suite, its $deb index unverified)"
elif [ -n "$aptenv" ]; then
	what=" (Debian $suite, its $deb index signed as$(for f in "$alists"/*_InRelease; do
		printf ' %s (%s, dated %s)' "$(sed -n 's/^Suite: //p' "$f" | head -n 1)" \
			"$(sed -n 's/^Codename: //p' "$f" | head -n 1)" "$(sed -n 's/^Date: //p' "$f" | head -n 1)"
	done))"
elif [ -n "$suite" ]; then
	f=$(ls "$root"/var/lib/apt/lists/*_dists_"${suite}"_InRelease 2>/dev/null | head -n 1)
	[ -z "$f" ] || what=" (Debian $suite: $(sed -n 's/^Codename: //p' "$f" | head -n 1), index dated $(sed -n 's/^Date: //p' "$f" | head -n 1))"
fi

# An ARM target of another release runs a root of its own architecture (out/roots/RELEASE-ARCH,
# made by vm/userspace.sh) when the release packages its user space for that architecture, as
# apt says: the talk's tools (bpftrace, ply, libgpiod 2's gpiod), the RT tools, strace and
# python3; else the busybox initramfs stays its root. Decided with every new kernel, and for a
# kernel fetched before this was asked (no DIR/userspace nor DIR/initramfs-root).
armuserspace() {
	rm -f "$dir/userspace" "$dir/initramfs-root"
	lack=
	for p in bpftrace ply gpiod rt-tests rtla strace python3; do
		v=$(show "$p$q" | sed -n 's/^Version: //p' | head -n 1)
		if [ -z "$v" ] || { [ "$p" = gpiod ] && dpkg --compare-versions "$v" lt 2; }; then
			lack="$lack $p${v:+ $v}"
		fi
	done
	if [ -z "$lack" ]; then
		echo "$proj/out/roots/$suite-$deb" >"$dir/userspace"
	else
		echo "  KERNEL  $kernel $arch: the busybox initramfs (Debian $suite's $deb lacks:$lack)" >&2
		echo "$lack" >"$dir/initramfs-root"
	fi
}

# pvh_image: x86_64: the kernel also uncompressed (DIR/vmlinux: its bzImage's payload, where the
# boot protocol's header says, decompressed by the tool its magic names: xz or zstd, Debian's),
# for qemu's PVH entry where the kernel has one (the ELF note XEN_ELFNOTE_PHYS32_ENTRY, 0x12:
# CONFIG_PVH), probed here, never by version; vm/run boots it in place of the bzImage: under TCG
# the bzImage's own decompression took about 4 s of the host's time of each boot's 11 (std,
# icount, 2026-11-29: 11.0 -> 7.0 s wall, 9.9 -> 6.0 s of CPU, `vm/run cat /proc/uptime`). A
# kernel without one boots its bzImage as before (DIR/vmlinux.none says why, once).
pvh_image() {
	[ "$arch" = x86_64 ] && [ ! -f "$dir/vmlinux" ] && [ ! -f "$dir/vmlinux.none" ] || return 0
	_f=$dir/vmlinuz
	_why=
	# setup_sects (0x1f1), payload_offset and payload_length (0x248, 0x24c: protocol 2.08)
	_sects=$(od -An -tu1 -j497 -N1 "$_f" | tr -d ' ')
	# shellcheck disable=SC2046
	set -- $(od -An --endian=little -tu4 -j584 -N8 "$_f")
	if [ -n "$_sects" ] && [ $# = 2 ] && [ "$2" -gt 4 ]; then
		_at=$(((_sects + 1) * 512 + $1))
		case $(od -An -tx1 -j"$_at" -N4 "$_f" | tr -d ' \n') in
		fd377a58) _dc="xz -dcq --single-stream" ;;
		28b52ffd) _dc="zstd -dcq" ;;
		*) _dc= _why="a payload neither xz nor zstd" ;;
		esac
		# (without the 4 bytes of its size the kernel's build appends)
		# shellcheck disable=SC2086
		[ -n "$_why" ] || tail -c +$((_at + 1)) "$_f" | head -c $(($2 - 4)) |
			$_dc >"$dir/vmlinux.new" 2>/dev/null || _why="its payload did not decompress"
	else
		_why="no payload in its boot header"
	fi
	if [ -z "$_why" ] && ! readelf -n "$dir/vmlinux.new" 2>/dev/null |
		grep -q '0x00000012\|PHYS32_ENTRY'; then
		_why="no PVH entry (XEN_ELFNOTE_PHYS32_ENTRY) in the kernel"
	fi
	if [ -z "$_why" ]; then
		mv "$dir/vmlinux.new" "$dir/vmlinux"
	else
		rm -f "$dir/vmlinux.new"
		echo "$_why" >"$dir/vmlinux.none"
		echo "  KERNEL  $release: $_why: its bzImage boots, decompressing itself" >&2
	fi
}

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tried=
for v in $vers; do
	pkg=$(dep "$v")
	[ -n "$pkg" ] || continue
	release=${pkg#linux-image-}
	if [ -f "$dir/release" ] && [ "$(cat "$dir/release")" = "$release" ] &&
		[ -f "$dir/build" ] && [ -d "$(cat "$dir/build")/" ]; then
		[ "$suite" != testing ] || echo "  KERNEL  $kernel: $release$what" >&2
		if [ -n "$suite" ] && [ -n "$q" ] && [ ! -f "$dir/userspace" ] &&
			[ ! -f "$dir/initramfs-root" ]; then
			armuserspace
		fi
		pvh_image
		exit 0
	fi
	# the packages the image is split into (testing: linux-base-, linux-binary-, linux-modules-
	# RELEASE), each named after the release
	parts=$(show "$pkg$q=$v" | sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n' |
		sed -n "s/^ *\(linux-[a-z]*-$(echo "$release" | sed 's/[.]/\\./g')\)\( .*\)*$/\1/p")
	rm -rf "$dir/deb"
	mkdir -p "$dir/deb"
	# apt-get download drops privileges to _apt: give it a directory it may write
	chmod 777 "$dir/deb"
	set --
	for p in $pkg $parts; do
		set -- "$@" "$p$q"
	done
	if (cd "$dir/deb" && fetch "$@" 2>../download.log) &&
		ls "$dir"/deb/"$pkg"_*.deb >/dev/null 2>&1; then
		break
	fi
	echo "vm/kernel.sh: $pkg$q ($meta $v) cannot be downloaded:" \
		"$(grep -v 'unsandboxed' "$dir/download.log" | head -n 1)" >&2
	tried="$tried $pkg"
	pkg=
done
if [ -z "$pkg" ]; then
	echo "vm/kernel.sh: no version of $meta$q could be downloaded (tried:$tried)" >&2
	exit 1
fi
[ -z "$tried" ] || echo "vm/kernel.sh: took $pkg$q instead (the newest one apt could fetch)" >&2
headers=linux-headers-$release

echo "  KERNEL  $pkg$q (emulated target, $kernel, $arch)$what"
rm -f "$dir/buildroot" "$dir/cc" "$dir/aptconf" "$dir/userspace" "$dir/initramfs-root"
if [ -z "$q" ] && [ -z "$root" ]; then
	if [ ! -d "/usr/src/$headers" ]; then
		DEBIAN_FRONTEND=noninteractive hostapt install -y -qq --no-install-recommends \
			"$headers" >/dev/null
	fi
	build=/lib/modules/$release/build
else
	# A foreign architecture's headers package depends on that architecture's gcc, which apt
	# would install in place of the host's: its files are extracted into DIR/headers instead
	# (with the -common package it includes), and run the host's linux-kbuild (the same
	# series; Multi-Arch: foreign), with the cross compiler (the top Makefile's
	# CROSS_COMPILE). Another release's headers likewise, with its kbuild in its root.
	hdeps=$(show "$headers$q" | sed -n 's/^Depends: //p' | head -n 1 | tr ',' '\n')
	common=$(echo "$hdeps" | sed -n 's/^ *\(linux-headers-[^ ]*-common[^ ]*\).*/\1/p')
	(cd "$dir/deb" && fetch "$headers$q" $common 2>../download.log) || {
		echo "vm/kernel.sh: cannot download $headers$q $common:" \
			"$(grep -v 'unsandboxed' "$dir/download.log" | head -n 1)" >&2
		exit 1
	}
	rm -rf "$dir/headers"
	for d in "$dir"/deb/linux-headers-*.deb; do
		dpkg-deb -x "$d" "$dir/headers"
	done
	# kbuild's "scripts -> ../../lib/linux-kbuild-6.1/scripts" and "tools": the host's, or
	# the root's (the same path inside it)
	find "$dir/headers" -type l -lname '../../lib/linux-kbuild-*' | while read -r l; do
		ln -sfn "/usr/lib/$(readlink "$l" | sed 's|^\.\./\.\./lib/||')" "$l"
	done
	# "include /usr/src/linux-headers-...-common/Makefile": the extracted one
	# and "KBUILD_OUTPUT=/usr/src/linux-headers-..." (6.12 on): the extracted ones
	sed -i -e "s|^include /usr/src/|include $dir/headers/usr/src/|" \
		-e "s|^KBUILD_OUTPUT=/usr/src/|KBUILD_OUTPUT=$dir/headers/usr/src/|" \
		"$dir/headers/usr/src/$headers/Makefile"
	build=$dir/headers/usr/src/$headers
	# the kbuild the headers name (Debian 12: linux-kbuild-6.1, one for the series; Debian 13:
	# one per upstream version, linux-kbuild-6.12.57+deb13), as apt says
	kbuild=$(echo "$hdeps" | sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p' | head -n 1)
	if [ -z "$root" ] && [ -n "$kbuild" ] &&
		[ "$(dpkg-query -W -f='${db:Status-Status}' "$kbuild" 2>/dev/null)" != installed ]; then
		# the host's (Multi-Arch: foreign: the host's architecture runs it)
		DEBIAN_FRONTEND=noninteractive hostapt install -y -qq --no-install-recommends \
			"$kbuild" >/dev/null || {
			echo "vm/kernel.sh: cannot install $kbuild (the headers' kbuild) on this machine" >&2
			exit 1
		}
	fi
	if [ -n "$root" ]; then
		# that release's kbuild and the compiler its kernel was built with (gcc-N-for-host:
		# gcc-N, or gcc-N-TRIPLET for a foreign architecture), in its root
		gcc=$(echo "$hdeps" | sed -n 's/^ *\(gcc-[0-9]*\)-for-host.*/\1/p' | head -n 1)
		[ -n "$gcc" ] || gcc=gcc-$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9][0-9][0-9][0-9]$/\1/p' "$build/.config")
		case $deb in
		amd64) gccpkg=$gcc ;;
		armhf) gccpkg=$gcc-arm-linux-gnueabihf ;;
		arm64) gccpkg=$gcc-aarch64-linux-gnu ;;
		esac
		sh "$proj/host/rootfs.sh" "$suite" "$root" $kbuild "$gccpkg" >&2 || {
			echo "vm/kernel.sh: cannot install $kbuild $gccpkg in $root" >&2
			exit 1
		}
		echo "$root" >"$dir/buildroot"
		# host/btf.sh fetches the kernel's -dbg package with the same apt
		if [ -n "$aptenv" ]; then echo "$conf" >"$dir/aptconf"; else rm -f "$dir/aptconf"; fi
		echo "$gcc" >"$dir/cc"
	fi
fi
rm -rf "$dir/root"
mkdir -p "$dir/root"
images=
for d in "$dir"/deb/linux-*.deb; do
	case $d in */linux-headers-*) continue ;; esac
	dpkg-deb -x "$d" "$dir/root"
	images="$images $d"
done
# a merged-/usr kernel package (testing's): /lib as in a merged-/usr root, so that
# DIR/root/lib/modules/RELEASE is where it is for every kernel
[ -e "$dir/root/lib" ] || ln -s usr/lib "$dir/root/lib"
# depmod [inroot]: depmod's index of the kernel's modules (modules.dep and the others beside
# them), run on the host or in the release's root; taken from the content cache (host/cache.sh,
# kind depmod) when the same packages were indexed by the same depmod: a distribution kernel's
# thousands of compressed modules take about 5 s of CPU to index, on every target's build
depmod_index() {
	_m=$dir/root/lib/modules/$release
	# shellcheck disable=SC2086
	_k=$(echo "depmod -b $release: $("$@" depmod --version 2>/dev/null | head -n 1)" |
		sh "$proj/host/cache.sh" key $images 2>/dev/null) || _k=
	if [ -n "$_k" ] && sh "$proj/host/cache.sh" get depmod "$_k" "$dir/depmod" 2>/dev/null; then
		cp "$dir"/depmod/modules.* "$_m"/
		rm -rf "$dir/depmod"
		return 0
	fi
	"$@" depmod -b "$dir/root" "$release"
	[ -n "$_k" ] || return 0
	rm -rf "$dir/depmod"
	mkdir -p "$dir/depmod"
	cp "$_m"/modules.* "$dir/depmod"/
	sh "$proj/host/cache.sh" put depmod "$_k" "$dir/depmod" || true
	rm -rf "$dir/depmod"
}
if [ -n "$root" ]; then
	depmod_index inroot
	if [ -z "$q" ]; then
		# the x86_64 target binds the kernel's modules over /lib/modules/RELEASE of its
		# root (vm/init), which it mounts read-only: the (empty) folder must exist
		mkdir -p "/lib/modules/$release"
		# the release's kernel on the release's user space (vm/userspace.sh)
		mkdir -p "$root/lib/modules/$release"
		echo "$root" >"$dir/userspace"
	else
		armuserspace
	fi
else
	depmod_index
fi
rm -rf "$dir/deb"
rm -f "$dir/vmlinuz"
vmlinuz=$(cd "$dir/root" && ls boot/vmlinuz-"$release" lib/modules/"$release"/vmlinuz 2>/dev/null |
	head -n 1)
[ -n "$vmlinuz" ] || { echo "vm/kernel.sh: no vmlinuz in $pkg" >&2; exit 1; }
ln -s "root/$vmlinuz" "$dir/vmlinuz"
rm -f "$dir/vmlinux" "$dir/vmlinux.none"
pvh_image
echo "$pkg$q" >"$dir/package"
echo "$build" >"$dir/build"
echo "$arch" >"$dir/arch"
echo "$release" >"$dir/release"
