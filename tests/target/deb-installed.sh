#!/bin/sh
# The packages as installed, on a booted Debian 13: run by tests/host/test_deb.py (not by
# tests/run.sh on its own: its name has no number), in the x86_64 6.12 target booted on
# out/roots/trixie after apt installed gpiolat_*_amd64.deb and gpiolat-toggle-dkms_*_all.deb
# there and DKMS built toggle.ko for this kernel (vm/run with TOGGLE=0, VM_MODULES=root: no
# module loaded at boot, the root's own /lib/modules). modprobe loads DKMS's module; the
# installed gpiolat (/usr/sbin) passes --self-test, counts every pulse of a histogram with 0
# lost, and measures quick overhead rows from /usr/share/gpiolat (the installed ply/ scripts,
# the installed utoggle found on PATH); modprobe -r unloads it.
. "$(dirname "$0")/lib.sh"
G=/usr/sbin/gpiolat
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

"$G" --self-test >$out 2>&1
rc=$?
comment $out
eq "installed gpiolat --self-test exit status" $rc 0

gpio=$(toggle_gpio)
GPIOLAT_EXE=$G gpiolat_pulses "installed gpiolat" "$gpio" "$PULSES" -l "$gpio"

# from the installed share folder: ply/delta.bt (bpftrace), utoggle on PATH (the uprobe row)
rows=event,bpf-gpiolat-tracepoint,bpftrace-delta,user-ioctl-uprobe
(cd /usr/share/gpiolat && "$G" --overhead --quick --only "$rows") >$out 2>&1
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
