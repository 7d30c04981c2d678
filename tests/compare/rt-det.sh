#!/bin/sh
# targets: std
# timing: icount
# Host side: the RT study is deterministic under icount. Two boots of the x86_64 std target,
# each running a small study (study/rt.sh, idle and under hackbench) with its root in the
# initramfs (host/ramroot.sh, vm/run VM_RAMROOT: nothing from the host's clock reaches the guest
# before its last measurement, docs/rt.md "A boot with nothing from the host's clock") and the
# guest polling when idle (idle=poll, as host/rt-report.sh boots x86_64 under icount,
# RT_IDLE_POLL: a halted x86_64 guest lets qemu 7.2's clock warp race its main loop, docs/rt.md
# "The x86_64 guests poll when idle"), at the same time, must give the same figures to the
# nanosecond: every file the study wrote (its JSON
# with every percentile, count and bucket, cyclictest's histogram, the settings) and the guest
# kernel's log (every line's timestamp) the same bytes in both. The study's latency parts
# (RT_PARTS=latency), as host/rt-report.sh boots a polling guest: its overhead rows go to a
# halting boot of their own there, whose phases repeat as any icount run's (the module's batch
# times, instructions; before 2026-11-28 this pair ran the control row polling, about 35 s of
# each boot's CPU).
# Criterion: exact equality. If the boots are deterministic no run can fail it (false-failure
# rate 0 by construction); a failure means something from the host's clock reached the guest
# (the first differing file and lines are printed), or the study ran differently. Needs the
# std target built (make all target KERNEL=std); out/tests/rt-det/.
# Cost, 2026-11-27 on the 2-core host: with idle=poll the guest's idle seconds are emulated, no
# longer skipped: 326 s of qemu CPU for the pair and the root's making (one more boot, once per
# study script), 817 s of wall time at a load of 7-8 (32 ok, 0 not ok); before idle=poll 67 s for
# the pair at load 2-5. The study at its least that runs every part (20 wakeups, 100 gap pulses,
# 20 cyclictest loops: exact equality does not depend on the size): on a quiet host (2026-11-28)
# 164 s and 322 s of CPU for the pair, against 176 s and 346 s at 100, 500 and 100; the rest is
# the fixed cost of each part (its programs' loads, the module's reloads) and the idle guest
# seconds polled (the overhead phases' batch gaps, utoggle's phase, rtla's 1 s). utoggle's phase
# at 200 ms (UTOGGLE_TIME; its 1 s, idle and loaded, was polled): 133 s and 265 s of CPU, against
# about 168 s and 335 s the same day (203 s and 370 s, one boot of them making the study's root).
# The latency parts alone (RT_PARTS=latency, 2026-11-28, quiet host, the root made): 71 s and
# 138 s of CPU.
# With the load's readiness (its processes all running) in place of the fixed second before each
# loaded phase, and its groups stopped by one signal (study/rt.sh, 2026-11-29, quiet host, the
# root made): 44 s and 87 s of CPU; 73 s and 118 s with the root's making.
set -u
cd "$(dirname "$0")/../.."
out=out/tests/rt-det
rm -rf $out
mkdir -p $out
ok() { echo "ok - rt-det: $*"; }
notok() { echo "not ok - rt-det: $*"; }
start=$(date +%s)
if ! cpio=$(sh host/ramroot.sh std x86_64 2>$out/ramroot.log); then
	notok "host/ramroot.sh std x86_64 made the study's root ($out/ramroot.log)"
	tail -n 5 $out/ramroot.log | sed -e 's/^/# /'
	exit 0
fi
. tests/compare/boots.sh
# the study's sizes (rt_counts.py judges the counts they fix)
pulses=20 loops=20 utoggle_ms=200
for i in 1 2; do
	(
		KERNEL=std ARCH=x86_64 TIMING=icount VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-900} \
			VM_RAMROOT=$cpio VM_RAMROOT_OUT=$PWD/$out/boot$i VM_APPEND=idle=poll \
			vm/run env RT_IN_RAMROOT=1 \
			PULSES=$pulses GAP_PULSES=100 LOOPS=$loops INTERVAL=1000 SECONDS_EACH=1 \
			UTOGGLE_TIME=${utoggle_ms}ms \
			RT_PARTS=latency LOAD=hackbench sh -c "$study_sh" sh /study/rt.sh /result \
			</dev/null >$out/boot$i.log 2>&1
		echo $? >$out/boot$i.rc
	) &
done
wait
fail=0
for i in 1 2; do
	rc=$(cat $out/boot$i.rc)
	if [ "$rc" = 0 ]; then
		ok "boot $i: the small study exits 0"
	else
		notok "boot $i: the small study exits $rc ($out/boot$i.log)"
		grep -v '^\[' $out/boot$i.log | tail -n 5 | sed -e 's/^/# /'
		fail=1
	fi
done
[ $fail = 0 ] || exit 0
# what the study must have written (an empty folder would compare equal)
for f in kernel.txt settings.txt wakeup-kthread-idle.json wakeup-kthread-loaded.json \
	wakeup-utoggle-idle.json wakeup-utoggle-loaded.json cyclictest-idle.txt cyclictest-loaded.txt \
	gaps-idle.json gaps-loaded.json dmesg.log; do
	if [ -s $out/boot1/$f ] && [ -s $out/boot2/$f ]; then
		ok "both boots wrote $f"
	else
		notok "both boots wrote $f"
		fail=1
	fi
done
grep -qx "parts=latency" $out/boot1/settings.txt && ok "settings.txt: the latency parts alone" ||
	notok "settings.txt: the latency parts alone ($(grep '^parts=' $out/boot1/settings.txt))"
for v in timing=icount idle=poll; do
	grep -qx "$v" $out/boot1/kernel.txt && ok "kernel.txt: $v" || notok "kernel.txt: $v"
done
n=0
for f in $out/boot1/*; do
	b=$(basename "$f")
	n=$((n + 1))
	if cmp -s "$f" "$out/boot2/$b"; then
		ok "$b: the same bytes in both boots"
	else
		notok "$b: the same bytes in both boots"
		diff "$f" "$out/boot2/$b" 2>&1 | head -n 6 | cut -c1-200 | sed -e 's/^/# /'
	fi
done
[ "$(find $out/boot2 -type f | wc -l)" = $n ] && ok "the same files in both boots ($n)" ||
	notok "the same files in both boots (boot 1: $n, boot 2: $(find $out/boot2 -type f | wc -l))"
# and what the study measured, with the counts its sizes fix (the boots wrote the same bytes)
python3 tests/compare/rt_counts.py rt-det $out/boot1 $pulses $loops $utoggle_ms
echo "# rt-det: $(($(date +%s) - start)) s"
