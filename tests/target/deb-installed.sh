#!/bin/sh
# boot: own
# The packages as installed, on a booted Debian 13: run by tests/host/test_deb.py (not by
# tests/run.sh on its own: its name has no number; it needs a boot of its own, on a root where
# apt has just installed the packages), in the 6.12 target of x86_64 or armhf booted on its
# Debian 13 root (out/roots/trixie, out/roots/trixie-armhf) after apt installed
# gpiolat_*_ARCH.deb and gpiolat-toggle-dkms_*_all.deb there and DKMS built toggle.ko for this
# kernel (vm/run with TOGGLE=0, VM_MODULES=root: no module loaded at boot, the root's own
# /lib/modules). modprobe loads DKMS's module; the installed gpiolat (/usr/sbin) passes
# --self-test, counts every pulse of a histogram with 0 lost, and measures quick overhead rows
# from /usr/share/gpiolat (the installed ply/ scripts, the installed utoggle found on PATH);
# modprobe -r unloads it.
# Usage: sh tests/target/deb-installed.sh [BTF]
#   BTF: the kernel's BTF, for a kernel without /sys/kernel/btf/vmlinux (Debian's armmp has no
#   CONFIG_DEBUG_INFO_BTF): given to every gpiolat run with --btf, as a board user with such a
#   kernel does (the packages ship no BTF: it is the kernel's, made from its -dbg package)
. "$(dirname "$0")/lib.sh"
G=/usr/sbin/gpiolat
BTF=
if [ -n "${1:-}" ]; then
	BTF="--btf $1"
	check "the kernel's BTF given: $1" test -s "$1"
elif [ ! -f /sys/kernel/btf/vmlinux ]; then
	notok "the kernel has no /sys/kernel/btf/vmlinux and no BTF was given"
	done_testing
fi
PULSES=${PULSES:-2000}
out=/tmp/deb.$$

ok "booted: Linux $(uname -r), $(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release)"
check "no toggle module at boot (TOGGLE=0)" test ! -d /sys/module/toggle
m=$(modinfo -n toggle 2>&1)
case $m in
/lib/modules/$(uname -r)/updates/dkms/toggle.ko*) ok "toggle is DKMS's module: $m" ;;
*) notok "modinfo -n toggle: '$m' (want /lib/modules/$(uname -r)/updates/dkms/toggle.ko*)" ;;
esac
check "modprobe toggle" modprobe toggle
check "toggle loaded, its chip toggle-vchip registered" grep -q 'chip=toggle-vchip' $D/gpio
v=$(modinfo -F vermagic toggle | cut -d' ' -f1)
eq "the module's vermagic" "$v" "$(uname -r)"

"$G" --self-test $BTF >$out 2>&1
rc=$?
comment $out
eq "installed gpiolat --self-test exit status" $rc 0

gpio=$(toggle_gpio)
GPIOLAT_EXE=$G gpiolat_pulses "installed gpiolat" "$gpio" "$PULSES" -l "$gpio" $BTF

# from the installed share folder: ply/delta.bt (bpftrace), utoggle on PATH (the uprobe row)
rows=event,bpf-gpiolat-tracepoint,bpftrace-delta,user-ioctl-uprobe
(cd /usr/share/gpiolat && "$G" --overhead --quick --only "$rows" $BTF) >$out 2>&1
rc=$?
comment $out
eq "installed gpiolat --overhead --quick --only $rows exit status" $rc 0
for r in $(echo $rows | tr , ' '); do
	# its table row: "event  untraced  1681.0  260.2  116%  3  56  1190 ns (...)", a user row's
	# reference in words: "user-ioctl-uprobe  untraced ioctl toggler  2145.5  0.0  195% ..."
	check "overhead row $r measured" grep -qE "^$r +[a-z][a-z -]* +-?[0-9.]+ +[0-9.]+ " $out
done

check "modprobe -r toggle" modprobe -r toggle
check "toggle unloaded" test ! -d /sys/module/toggle
rm -f $out
done_testing
