#!/bin/sh
# Target: gpiolat on a kernel whose BTF it cannot find (Raspberry Pi OS's: no
# CONFIG_DEBUG_INFO_BTF, no BTF file): the kernel's BTF hidden from it (an empty
# tmpfs over /sys/kernel/btf; /dev/null over every file libbpf or gpiolat would take instead; the
# binary run from a folder with no RELEASE.btf beside it), no --btf. It says so in one line, and
# loads its object without CO-RE: the hooks that attach without the kernel's BTF (the loader's
# table, gpiolat --list --json: needs_btf false; the tracepoint and the kprobe, whose gpio_desc
# is learnt in the pre-phase) lose no set of the toggle module's pulses; the others (fentry,
# tp_btf) say in one line that they need the kernel's BTF; --overhead measures the gpiolat rows
# of the first and says the same of the others'. What it hid is shown again at the end (a
# trap), so the rest of the boot sees the kernel as it was.
# kernels: std arm
# timing: icount
# Criteria, chosen before the run: counts, not timings (exact: no false failure): for N pulses,
# pairs == N, sets seen == 2N, events lost 0, as 30-gpiolat-counts asks with the kernel's BTF;
# the overhead rows: a figure in ns per set for the tracepoint and the kprobe rows (each row
# prints one only when its method fired on every set of every phase: docs/overhead.md "Fired").
. "$(dirname "$0")/lib.sh"

GPIOLAT=${GPIOLAT:-./gpiolat}
N=300
tmp=$(mktemp -d)
out=$tmp/out
hidden=

# hide PATH: an empty tmpfs over a folder, /dev/null over a file
hide() {
	if [ -d "$1" ]; then
		mount -t tmpfs -o ro,size=4k nobtf "$1" || return 1
	else
		mount -o bind /dev/null "$1" || return 1
	fi
	hidden="$1 $hidden"
}
unhide() {
	for h in $hidden; do
		umount "$h" || notok "$h shown again (umount)"
	done
	hidden=
	rm -rf "$tmp"
}
trap 'unhide' EXIT
trap 'exit 1' INT TERM

if [ ! -d "$D" ]; then
	skip "gpiolat without BTF: the toggle module is not loaded"
	done_testing
fi
# the hooks, from the loader's table (before anything is hidden)
nobtf=$(GPIOLAT_EXE=$GPIOLAT gpio_hooks needs_btf false)
btf=$(GPIOLAT_EXE=$GPIOLAT gpio_hooks needs_btf true)
desc=$(GPIOLAT_EXE=$GPIOLAT gpio_hooks needs_gpio_desc true)
check "gpiolat --list --json names the hooks without and with BTF ($(echo $nobtf) / $(echo $btf))" \
	test -n "$nobtf"
r=$(uname -r)
# /sys/kernel/btf (the kernel's own), then libbpf's other places for a vmlinux with BTF
# (btf__load_vmlinux_btf) and gpiolat's own (core/btf_find.h) but the one beside the binary
for f in /sys/kernel/btf /boot/vmlinux-$r /lib/modules/$r/vmlinux-$r /lib/modules/$r/build/vmlinux \
	/usr/lib/modules/$r/kernel/vmlinux /usr/lib/debug/boot/vmlinux-$r \
	/usr/lib/debug/boot/vmlinux-$r.debug /usr/lib/debug/lib/modules/$r/vmlinux \
	/lib/modules/$r/vmlinux.btf; do
	[ -e "$f" ] || continue
	hide "$f" || { notok "hiding $f"; done_testing; }
done
check "no kernel BTF to be read (/sys/kernel/btf/vmlinux)" test ! -r /sys/kernel/btf/vmlinux
cp "$GPIOLAT" "$tmp/gpiolat" || { notok "copying $GPIOLAT"; done_testing; }
G=$tmp/gpiolat

$G --self-test >"$out" 2>&1
eq "gpiolat --self-test without BTF exits 0" "$?" 0
check "--self-test: BTF none, the programs without CO-RE" \
	grep -q "BTF  *none (no /sys/kernel/btf/vmlinux, no --btf)" "$out"
for m in $nobtf; do
	check "--self-test: $m loads and attaches" grep -q "^  ok  *$m " "$out"
done

sumfield() {
	sed -n "s/^# summary .* $1=\([0-9]*\).*/\1/p" "$out" | head -n 1
}
for m in $nobtf; do
	if ! $G --$m -l toggle-vchip:0 --pulses $N --untraced 0 --csv >"$out" 2>&1; then
		notok "$m without BTF: gpiolat --pulses $N ran: $(grep gpiolat: "$out" | tail -n 1)"
		continue
	fi
	check "$m: one line says there is no BTF" \
		grep -q '^gpiolat: no BTF (no /sys/kernel/btf/vmlinux, no --btf): ' "$out"
	eq "$m without BTF: pairs" "$(sumfield count)" $N
	eq "$m without BTF: sets seen" "$(sumfield events)" $((2 * N))
	check "$m without BTF: events lost 0" grep -q "sets seen: events lost 0$" "$out"
	case " $(echo $desc) " in
	*" $m "*)
		check "$m: the pre-phase named, its pairs learnt" \
			grep -q '^gpiolat: pre-phase (not measured): the gpio_desc of [1-9]' "$out"
		;;
	esac
done

need_btf="not available: needs the kernel's BTF (no /sys/kernel/btf/vmlinux, no --btf)"
for m in $btf; do
	$G --$m -l toggle-vchip:0 --pulses 10 >"$out" 2>&1
	eq "$m without BTF: exits 1" "$?" 1
	check "$m: one line, not available: needs the kernel's BTF" \
		grep -qx "gpiolat: $m: $need_btf" "$out"
done

rows=$(for m in $nobtf; do printf 'bpf-gpiolat-%s,' $m; done)
rows=${rows%,}
brows=$(for m in $btf; do printf ',bpf-gpiolat-%s' $m; done)
$G --overhead --quick --only $rows$brows >"$out" 2>&1
eq "gpiolat --overhead --only $rows$brows without BTF exits 0" "$?" 0
check "--overhead's figures are ns per set" grep -q "(ns per set)$" "$out"
# a row: NAME, its reference, its figure (ns per set), sd, ...; else "not measured: why"
for row in $(echo $rows | tr , ' '); do
	l=$(grep "^$row " "$out" | head -n 1)
	fig=$(echo "$l" | awk '{ print $3 }')
	case "$l:$fig" in
	*"not "*) notok "$row without BTF: $l" ;;
	*:[0-9]*.[0-9]) ok "$row without BTF measured: $fig ns per set ($(echo "$l" | tr -s ' '))" ;;
	*) notok "$row without BTF: no figure ($l)" ;;
	esac
done
for m in $btf; do
	eq "bpf-gpiolat-$m without BTF" "$(grep "^bpf-gpiolat-$m " "$out" | tr -s ' ')" \
		"bpf-gpiolat-$m $need_btf"
done
unhide
check "the kernel's BTF shown again" sh -c \
	"[ ! -d /sys/kernel/btf ] || [ -r /sys/kernel/btf/vmlinux ]"
done_testing
