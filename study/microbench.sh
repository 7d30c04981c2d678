#!/bin/sh
# Target side: the toggle module's cycle micro-benchmark (the kernel-markers method), as root.
#
#   study/microbench.sh [--raw] [ITERATIONS [REPEATS]]     (make microbench runs it in the target)
#
# A loop with interrupts disabled (debugfs toggle/microbench) whose body is (a) nothing, (b) the
# module's toggle_bench tracepoint, off (a static key), (c) the same with an empty BPF raw_tp
# program attached (gpiolat --empty-raw-tp), (d) with the tracefs event on (in an instance of
# our own), (e0) a call of the noinline toggle_bench_fn(), (e) the same under a kprobe event.
# Each case runs REPEATS times (default 5) of ITERATIONS (default 100000); the table shows the
# median cycles (get_cycles) and ns per iteration, min and max, beside the Pentium 4 figures of
# the markers benchmark. --raw prints "CASE CYCLES NS" lines (medians) for tests.
# Everything it changes is put back on every way out (event, kprobe event, instance, gpiolat);
# what a SIGKILLed run left (instance and kprobe event gpiolat_mb) is removed at start.
set -eu

PROJ=$(cd "$(dirname "$0")/.." && pwd)
GPIOLAT=${GPIOLAT:-$PROJ/gpiolat}
T=/sys/kernel/tracing
D=/sys/kernel/debug/toggle
INST=$T/instances/gpiolat_mb
raw=0
if [ "${1:-}" = --raw ]; then
	raw=1
	shift
fi
iters=${1:-100000}
reps=${2:-5}
case $iters$reps in
'' | *[!0-9]*)
	echo "microbench: ITERATIONS and REPEATS are numbers" >&2
	exit 2
	;;
esac
# the module takes 1 to 100000000 iterations (TOGGLE_MB_MAX_ITERS) and refuses the rest
if ! awk -v n="$iters" 'BEGIN { exit !(n + 0 >= 1 && n + 0 <= 100000000) }'; then
	echo "microbench: ITERATIONS must be 1 to 100000000 (the toggle module's limit), not $iters" >&2
	exit 2
fi
if ! awk -v n="$reps" 'BEGIN { exit !(n + 0 >= 1 && n + 0 <= 1000) }'; then
	echo "microbench: REPEATS must be 1 to 1000, not $reps" >&2
	exit 2
fi

if [ ! -e $D/microbench ]; then
	echo "microbench: no $D/microbench: load the toggle module (insmod toggle.ko)" >&2
	exit 1
fi
[ -d $T/events ] || mount -t tracefs nodev $T

gp=
kprobe=0
tmp=$(mktemp -d)
cleanup() {
	if [ -n "$gp" ]; then
		kill -INT "$gp" 2>/dev/null || true
		wait "$gp" 2>/dev/null || true
		gp=
	fi
	if [ -d $INST ]; then
		echo 0 >$INST/events/enable 2>/dev/null || true
		rmdir $INST 2>/dev/null || true
	fi
	if [ $kprobe = 1 ]; then
		echo '-:gpiolat_mb/bench' >>$T/kprobe_events 2>/dev/null || true
		kprobe=0
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# a killed run's instance and kprobe event (ours: no gpiolat journal names them): with them
# left, mkdir fails and case (e) is never measured again
if [ -d $INST ]; then
	echo 0 >$INST/events/enable 2>/dev/null || true
	rmdir $INST
	echo "microbench: removed the instance gpiolat_mb of an earlier run" >&2
fi
if grep -q '^[pr]:gpiolat_mb/bench ' $T/kprobe_events 2>/dev/null; then
	echo '-:gpiolat_mb/bench' >>$T/kprobe_events
	echo "microbench: removed the kprobe event gpiolat_mb/bench of an earlier run" >&2
fi

# measure CASE: "median_cycles min_cycles max_cycles median_ns" over the repeats
measure() {
	# one discarded warm-up run: caches, branch predictors, and under emulation the
	# translation of the loop's code (which would otherwise land in the first case measured)
	echo "$1 $iters" >$D/microbench
	_i=0
	while [ $_i -lt "$reps" ]; do
		echo "$1 $iters" >$D/microbench
		cat $D/microbench
		_i=$((_i + 1))
	done | sed -n 's/.*cycles_per_iter=\([0-9.]*\) ns_per_iter=\([0-9.]*\).*/\1 \2/p' |
		sort -n | awk '{ c[NR] = $1; n[NR] = $2 }
		END {
			if (!NR) { print "- - - -"; exit }
			m = int((NR + 1) / 2)
			# the ns of the median-cycles run
			printf "%s %s %s %s\n", c[m], c[1], c[NR], n[m]
		}'
}

results=$tmp/results
: >"$results"
row() {
	# row KEY CASE: measure and keep "KEY median min max ns"
	echo "$1 $(measure "$2")" >>"$results"
}

row a empty
row b tracepoint

"$GPIOLAT" --empty-raw-tp toggle_bench -d 10m >$tmp/gpiolat.out 2>&1 &
gp=$!
i=0
while ! grep -q '^attached' $tmp/gpiolat.out && [ $i -lt 300 ]; do
	kill -0 $gp 2>/dev/null || break
	sleep 0.1
	i=$((i + 1))
done
if grep -q '^attached' $tmp/gpiolat.out; then
	row c tracepoint
else
	echo "c - - - -" >>"$results"
	echo "microbench: (c) not measured: $(head -n 1 $tmp/gpiolat.out)" >&2
fi
kill -INT $gp 2>/dev/null || true
wait $gp 2>/dev/null || true
gp=

mkdir $INST
echo 1 >$INST/events/toggle/toggle_bench/enable
row d tracepoint
echo 0 >$INST/events/toggle/toggle_bench/enable

row e0 function
if echo 'p:gpiolat_mb/bench toggle_bench_fn' >>$T/kprobe_events 2>/dev/null; then
	kprobe=1
	echo 1 >$INST/events/gpiolat_mb/bench/enable
	row e function
	echo 0 >$INST/events/gpiolat_mb/bench/enable
	echo '-:gpiolat_mb/bench' >>$T/kprobe_events
	kprobe=0
else
	echo "e - - - -" >>"$results"
	echo "microbench: (e) not measured: cannot create a kprobe event on toggle_bench_fn" >&2
fi
rmdir $INST

if [ $raw = 1 ]; then
	awk '{ print $1, $2, $5 }' "$results"
	exit 0
fi

# the Pentium 4 figures beside each case come from data/ (with their source), never from here
ref=$PROJ/data/baseline-lttng-markers.csv
if [ ! -r "$ref" ]; then
	echo "microbench: cannot read the reference figures $ref" >&2
	exit 1
fi
awk -v iters="$iters" -v reps="$reps" -v emu="${GPIOLAT_TARGET:-}" -F, '
BEGIN {
	label["a"] = "(a) empty loop"
	label["b"] = "(b) tracepoint, off (static key)"
	label["c"] = "(c) tracepoint + empty BPF raw_tp"
	label["d"] = "(d) tracepoint + tracefs event on"
	label["e0"] = "(e0) noinline function, no probe"
	label["e"] = "(e) noinline function + kprobe event"
	# the case each reference row stands beside (data/baseline-lttng-markers.csv, method column)
	ref["empty-loop"] = "a"
	ref["marker-disabled"] = "b"
	ref["marker-empty-probe"] = "c"
	ref["marker-kprobe"] = "e"
	split("a b c d e0 e", cases, " ")
	for (i in cases)
		p4[cases[i]] = "-"
}
# first file: the reference figures (method,kind,value,unit,sd,kernel,against,note)
FNR == NR {
	if ($0 ~ /^#/ || NF < 4)
		next
	if ($1 in ref)
		p4[ref[$1]] = $3 " (" $1 ")"
	if ($1 == "marker-empty-probe")
		probe = $3
	if ($1 == "kprobe")
		kprobe = $3 " " $4 " more than " $7
	kernel = $6
	next
}
FNR == 1 {
	printf "toggle module micro-benchmark: %d iterations per run, interrupts off in chunks of 1000, %d runs per case\n", iters, reps
	printf "%-38s %12s %21s %10s   %s\n", "case", "cycles/iter", "(min - max)", "ns/iter", "P4 3 GHz, " kernel " (cycles/loop)"
}
{
	split($0, f, " ")
	printf "%-38s %12s %21s %10s   %s\n", label[f[1]], f[2], "(" f[3] " - " f[4] ")", f[5], p4[f[1]]
}
END {
	print "cycles: get_cycles(), medians over the runs; ns: ktime_get_ns() of the run with the median cycles."
	print "P4 figures: Linux Kernel Markers micro-benchmarks (" ref_file "): a marker with an empty probe " probe " cycles, a kprobe " kprobe "."
	if (emu == "emulated")
		print "note: EMULATED (qemu TCG): the cycle counter and every instruction are emulated; compare the cases with each other (their order), not with the P4 cycles."
}' ref_file="data/$(basename "$ref")" "$ref" "$results"
