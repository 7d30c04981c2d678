#!/bin/sh
# kernels: std
# timing: icount
# Target: the standard vs PREEMPT_RT study (study/rt.sh, docs/rt.md) in the deterministic mode,
# end to end at a small size: every figure it reports is measured, idle and under hackbench,
# with the counts it must have. Every criterion is exact (a count the study fixes), so it holds
# on every run: no latency value is judged here (under icount the tails do not repeat exactly
# from boot to boot, docs/rt.md "In instructions"; host/rt_report.py says which differ).
# - settings.txt and kernel.txt say what ran: TIMING=icount, cyclictest -m -p 80 -t 1 -l 300
#   -i 1000, the hackbench load;
# - gpiolat --wakeup on the module's kthread, idle and loaded: 200 pulses in batches of 5 are 40
#   batches; on a standard kernel exactly one wakeup histogrammed per batch (its msleep, the
#   last batch's idle wait), on PREEMPT_RT at least that many (its sleeping spinlocks add
#   some: test 45);
# - gpiolat --wakeup --pid on a running utoggle (1 s of guest time, usleep(1000) a batch): at least
#   one wakeup histogrammed per 2 ms (500: a batch is under 1 ms of instructions; measured 986-987
#   idle and 986-1008 loaded; 7 when utoggle's start-up fell inside the window);
# - cyclictest, idle and loaded: its 300 cycles counted, none past its histogram;
# - rtla timerlat hist, idle and loaded, where the kernel has the timerlat tracer (its
#   available_tracers, read here): activations counted; where it has none, the study says so;
# - gpiolat --gaps, idle and loaded: a gap histogram with a count;
# - the module is left as found: idle, burst mode.
# Runs on std (x86_64) only so far: not yet run on rt, arm-6.12 or arm-6.12-rt. Needs a boot in
# TIMING=icount of its own (its "# timing:" line). Wall time of the target part, 2026-11-26 on the
# 2-core host: 140 s at a load of about 4; 661 s and 557 s at a load of 15 (other helpers'
# builds: a loaded guest second is about 10^9 instructions to emulate, most of the wall time).
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1
need_icount
release_tool cyclictest rt-tests || done_testing
release_tool hackbench rt-tests || done_testing
out=/tmp/rt-icount.$$
trap 'rm -rf $out' EXIT
mode0=$(cat /sys/module/toggle/parameters/mode 2>/dev/null)

env PULSES=200 GAP_PULSES=1000 LOOPS=300 INTERVAL=1000 SECONDS_EACH=1 OVERHEAD_ONLY=control \
	LOAD=hackbench sh study/rt.sh $out >$out.log 2>&1
rc=$?
eq "study/rt.sh exit status" $rc 0
[ $rc = 0 ] || {
	sed -e 's/^/# /' $out.log | tail -n 5
	done_testing
}
check "kernel.txt: TIMING=icount" grep -qx "timing=icount" $out/kernel.txt
check "settings.txt: cyclictest -m -p 80 -t 1 -l 300 -i 1000" \
	grep -qx "cyclictest=-m -p 80 -t 1 -l 300 -i 1000" $out/settings.txt
check "settings.txt: the hackbench load" grep -qx "load=hackbench" $out/settings.txt

# num FILE KEY: the first "KEY":N of a JSON file
num() {
	sed -n "s/\"$2\":\([0-9]*\)/\n\1\n/p" "$1" | sed -n 2p
}
# hcount FILE: the count of the (first) histogram named "wakeup" or "gaps"
hcount() {
	sed -n "s/.*\"$2\":{\"count\":\([0-9]*\).*/\1/p" "$1"
}

for p in idle loaded; do
	f=$out/wakeup-kthread-$p.json
	if [ -f $f ]; then
		b=$(num $f batches)
		c=$(hcount $f wakeup)
		eq "kthread $p: 200 pulses of 5 are 40 batches" "$b" 40
		case $(uname -v) in
		*PREEMPT_RT*) check "kthread $p: a wakeup histogrammed per batch at least ($c >= 40, RT)" \
			[ "${c:-0}" -ge 40 ] ;;
		*) eq "kthread $p: one wakeup histogrammed per batch" "$c" 40 ;;
		esac
	else
		notok "kthread $p: measured ($(cat $out/wakeup-kthread-$p.unavailable 2>/dev/null))"
	fi
	f=$out/wakeup-utoggle-$p.json
	if [ -f $f ]; then
		c=$(hcount $f wakeup)
		check "utoggle $p: at least 500 wakeups histogrammed in 1 s ($c)" [ "${c:-0}" -ge 500 ]
	else
		notok "utoggle $p: measured ($(cat $out/wakeup-utoggle-$p.unavailable 2>/dev/null))"
	fi
	f=$out/cyclictest-$p.txt
	if [ -f $f ]; then
		n=$(sed -n 's/^# Total: *0*\([0-9][0-9]*\).*/\1/p' $f | head -n 1)
		o=$(sed -n 's/^# Histogram Overflows: *0*\([0-9]*\).*/\1/p' $f | head -n 1)
		eq "cyclictest $p: its 300 cycles counted" "$n" 300
		eq "cyclictest $p: none past its histogram" "${o:-0}" 0
	else
		notok "cyclictest $p: measured ($(cat $out/cyclictest-$p.unavailable 2>/dev/null))"
	fi
	if grep -qw timerlat $T/available_tracers; then
		if release_tool rtla rtla; then
			n=$(sed -n 's/^count: *\([0-9]*\) *\([0-9]*\).*/\2/p' $out/timerlat-$p.txt 2>/dev/null)
			check "rtla timerlat $p: activations counted (the kernel has timerlat: $n)" \
				[ "${n:-0}" -gt 0 ]
		fi
	else
		check "rtla timerlat $p: the study says this kernel has no timerlat tracer" \
			grep -q "no timerlat tracer" $out/timerlat-$p.unavailable
	fi
	f=$out/gaps-$p.json
	if [ -f $f ]; then
		c=$(hcount $f gaps)
		check "gaps $p: a gap histogram with a count ($c)" [ "${c:-0}" -gt 0 ]
	else
		notok "gaps $p: measured ($(cat $out/gaps-$p.unavailable 2>/dev/null))"
	fi
done
eq "the module left idle" "$(cat $D/enable)" 0
eq "the module left in its mode" "$(cat /sys/module/toggle/parameters/mode 2>/dev/null)" "$mode0"
done_testing
