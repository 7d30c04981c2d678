#!/bin/sh
# depth: the toggle_chain_1..10 functions are separate symbols, each can be kprobed, and a set
# enters the chain at toggle_chain_(11 - depth).
# kernels: std rt
# timing: icount
. "$(dirname "$0")/lib.sh"

toggle_load
eq "depth is 10 after load" "$(cat $D/depth)" 10
# (one pass over kallsyms, its names each counted once: a grep of its hundred thousand lines a
# name took 1.5 s of the host's time under emulation with busybox's grep, run-list.sh's)
n=$(awk '$2 == "t" && $3 ~ /^toggle_chain_([1-9]|10)$/ && $4 == "[toggle]" && !($3 in seen) {
	seen[$3] = 1
	n++
} END { print n + 0 }' /proc/kallsyms)
eq "toggle_chain_1..10 in /proc/kallsyms" $n 10
check "depth 11 is refused" sh -c "! echo 11 2>/dev/null >$D/depth"

# kprobe events exist wherever the kernel's configuration has them (the one excuse)
miss=$(kconfig_missing kprobe)
if [ -n "$miss" ]; then
	skip "kprobes on toggle_chain_*: the kernel has no $miss ($(kconfig_file))"
	done_testing
fi
check "kprobe events: $T/kprobe_events is writable" test -w $T/kprobe_events
# hits DEPTH: "chain_1 chain_5 chain_10" kprobe hits for 20 pulses at this depth
hits() {
	echo "$1" >$D/depth
	before=$(awk '{ printf "%s ", $2 }' $T/kprobe_profile)
	pulses 20
	awk -v b="$before" 'BEGIN { split(b, h) } { printf "%s%d", s, $2 - h[NR]; s = " " }' \
		$T/kprobe_profile
}
for i in 1 5 10; do
	echo "p:gpiolat_test/chain_$i toggle_chain_$i" >>$T/kprobe_events
done
check "kprobes on toggle_chain_1, _5, _10" test -d $T/events/gpiolat_test/chain_10
echo 1 >$T/events/gpiolat_test/enable
eq "depth 10: every set goes through chain_1, _5 and _10" "$(hits 10)" "40 40 40"
eq "depth 6: chain_5 and _10" "$(hits 6)" "0 40 40"
eq "depth 1: chain_10 only" "$(hits 1)" "0 0 40"
eq "depth 0: none" "$(hits 0)" "0 0 0"
echo 0 >$T/events/gpiolat_test/enable
for i in 1 5 10; do
	echo "-:gpiolat_test/chain_$i" >>$T/kprobe_events
done
check "kprobes removed" test ! -d $T/events/gpiolat_test
tr_clear

toggle_load
done_testing
