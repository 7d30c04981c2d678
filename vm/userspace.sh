#!/bin/sh
# Host side: the user space of an x86_64 target that runs another Debian release's root
# (vm/kernel.sh writes KERNELDIR/userspace, naming that root: Debian 13's 6.12 targets run
# out/roots/trixie, testing's out/roots/testing). Usage: vm/userspace.sh KERNELDIR
#
# In that root (host/inroot.sh): what the target runs is installed (sh host/deps.sh --target:
# the build's packages with bpftrace, the libgpiod tools, rt-tests, rtla, stress-ng, and ply
# where the release packages it), then gpiolat, utoggle, mmtoggle and toggle.sh are built
# there, with that release's compiler and libraries (clang 19, libbpf 1.5, bpftool 7.5,
# libgpiod 2), into out/ROOTNAME/bin;
# KERNELDIR/bindir names that folder, which the target binds over out/bin (vm/init). Prints the
# user space. A target without KERNELDIR/userspace (the host's root) only loses a stale
# KERNELDIR/bindir. Cheap when all is current: a dpkg-query and a make that finds nothing to do.
set -eu

kdir=${1:?usage: vm/userspace.sh KERNELDIR}
here=$(cd "$(dirname "$0")" && pwd)
proj=$(dirname "$here")
if [ ! -f "$kdir/userspace" ]; then
	rm -f "$kdir/bindir"
	exit 0
fi
root=$(cat "$kdir/userspace")
name=$(basename "$root")
out=out/$name
inroot() { sh "$proj/host/inroot.sh" "$root" "$@"; }

cd "$proj"
inroot sh host/deps.sh --target >&2 || {
	echo "vm/userspace.sh: installing the target's packages in $root failed" >&2
	exit 1
}
# host/deps.sh ran (the Makefile's stamp for the build inside the root: make does not run the
# full installer there)
mkdir -p "$out" && touch "$out/.deps"
bin=$out/bin
inroot make -s OUT="$out" "$bin/gpiolat" "$bin/utoggle" "$bin/mmtoggle" "$bin/toggle.sh" >&2 || {
	echo "vm/userspace.sh: building gpiolat and the togglers in $root failed" >&2
	exit 1
}
echo "$proj/$bin" >"$kdir/bindir.new"
mv "$kdir/bindir.new" "$kdir/bindir"
os=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' "$root/etc/os-release")
ver() {
	v=$(chroot "$root" dpkg-query -W -f='${db:Status-Status} ${Version}' "$1" 2>/dev/null |
		sed -n 's/^installed //p' | sed 's/^[0-9]*://; s/-[^-]*$//')
	echo "${v:-none}"
}
echo "  USERSPC $os ($root): bpftrace $(ver bpftrace), ply $(ver ply), libgpiod $(ver gpiod)," \
	"libbpf $(ver libbpf-dev), clang $(ver clang)" >&2
