#!/bin/sh
# Target side (POSIX sh): the measurements behind `make rt-report` on one kernel, run as root on
# the target (the emulated one, or a board). Usage: study/rt.sh OUTDIR
#
# With the toggle module loaded (burst mode) and idle:
#   kernel.txt          uname, preemption model, tracers, RT throttling settings
#   overhead.json       gpiolat --overhead --json over $OVERHEAD_ONLY (a subset of the matrix)
#   wakeup-kthread-{idle,loaded}.json   gpiolat --wakeup on the module's kthread, --pulses
#   wakeup-utoggle-{idle,loaded}.json   gpiolat --wakeup -- utoggle (SCHED_FIFO 60, usleep)
#   cyclictest-{idle,loaded}.txt        cyclictest with the ADI page's options, and its histogram
#   timerlat-{idle,loaded}.txt          rtla timerlat hist, or timerlat.unavailable (why)
#   gaps-{idle,loaded}.json             gpiolat --gaps, the module reloaded mode=continuous
# "loaded": $LOAD runs meanwhile (default hackbench, from rt-tests; also "ls", the ADI page's
# five looping `ls -lR`, and "stress-ng"); load.txt names it. A measurement that cannot run
# here leaves NAME.unavailable with the reason. The module is put back as found at the end.
#
# Environment: LOAD (hackbench|ls|stress-ng), PULSES (wakeup, default 2000), GAP_PULSES
# (default 20000), LOOPS (cyclictest loops at 10 ms, default 1000), SECONDS_EACH (utoggle and
# timerlat, default 10), OVERHEAD_ONLY (default control,event,bpf-gpiolat-tracepoint).
set -u
cd "$(dirname "$0")/.."

out=${1:?usage: study/rt.sh OUTDIR}
pulses=${PULSES:-2000}
gap_pulses=${GAP_PULSES:-20000}
loops=${LOOPS:-1000}
secs=${SECONDS_EACH:-10}
load=${LOAD:-hackbench}
only=${OVERHEAD_ONLY:-control,event,bpf-gpiolat-tracepoint}
D=/sys/kernel/debug/toggle
T=/sys/kernel/tracing
gpiolat=./gpiolat
utoggle=out/bin/utoggle
kmod=${GPIOLAT_KMOD:-}

die() {
	echo "study/rt.sh: $*" >&2
	exit 1
}
say() {
	echo "  RUN     $*" >&2
}

[ "$(id -u)" = 0 ] || die "must run as root"
[ -x "$gpiolat" ] && [ -x "$utoggle" ] || die "no ./gpiolat or $utoggle: run make first"
[ -d $D ] || die "the toggle module is not loaded ($D missing)"
[ "$(cat $D/enable)" = 0 ] || die "the toggler is already running"
case $load in
hackbench | ls | stress-ng) ;;
*) die "LOAD must be hackbench, ls or stress-ng, not '$load'" ;;
esac
command -v "${load%% *}" >/dev/null || die "the load '$load' is not installed (host/deps.sh)"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/*.json "$out"/*.txt "$out"/*.unavailable "$out"/*.err

{
	uname -a
	echo "release=$(uname -r)"
	case $(uname -v) in
	*PREEMPT_RT*) echo "preempt=PREEMPT_RT" ;;
	*PREEMPT_DYNAMIC*) echo "preempt=PREEMPT_DYNAMIC $(cat /sys/kernel/debug/sched/preempt 2>/dev/null)" ;;
	*PREEMPT*) echo "preempt=PREEMPT" ;;
	*) echo "preempt=none" ;;
	esac
	echo "tracers=$(cat $T/available_tracers)"
	echo "sched_rt_runtime_us=$(cat /proc/sys/kernel/sched_rt_runtime_us)"
	echo "sched_rt_period_us=$(cat /proc/sys/kernel/sched_rt_period_us)"
	echo "cpus=$(nproc)"
	echo "emulated=${GPIOLAT_TARGET:-}"
} >"$out/kernel.txt"

# the load: a loop per worker that ends when $stop appears
stop=$out/.stop-load
load_pids=
load_start() {
	rm -f "$stop"
	case $load in
	hackbench) n=1 ;;
	*) n=5 ;;
	esac
	i=0
	while [ $i -lt $n ]; do
		case $load in
		hackbench) cmd="hackbench -g 2 -f 5 -l 200" ;;
		ls) cmd="ls -lR /usr" ;;
		stress-ng) cmd="stress-ng --cpu 1 --io 1 --timeout 5s --quiet" ;;
		esac
		(while [ ! -e "$stop" ]; do $cmd >/dev/null 2>&1; done) &
		load_pids="$load_pids $!"
		i=$((i + 1))
	done
	sleep 1
}
load_stop() {
	: >"$stop"
	# the command under way ends now: an ls -lR of a big tree (over 9p, emulated) takes minutes
	for p in $load_pids; do
		pkill -P "$p" 2>/dev/null
	done
	for p in $load_pids; do
		wait "$p"
	done
	load_pids=
	rm -f "$stop"
}
trap 'load_stop' EXIT
case $load in
hackbench) echo "hackbench -g 2 -f 5 -l 200, in a loop (rt-tests)" ;;
ls) echo "5 x 'ls -lR /usr' in loops (the ADI ftrace page's workload)" ;;
stress-ng) echo "stress-ng --cpu 1 --io 1, in a loop" ;;
esac >"$out/load.txt"

# run NAME CMD...: CMD's stdout to NAME, or NAME.unavailable with its first error line
run() {
	_n=$1
	shift
	if "$@" >"$out/$_n" 2>"$out/$_n.err"; then
		rm -f "$out/$_n.err"
	else
		head -n 1 "$out/$_n.err" >"$out/${_n%.*}.unavailable"
		rm -f "$out/$_n" "$out/$_n.err"
		echo "          failed: $(cat "$out/${_n%.*}.unavailable")" >&2
	fi
}

say "gpiolat --overhead --only $only"
run overhead.json $gpiolat --overhead --quick --only "$only" --json

vline=1
for phase in idle loaded; do
	[ $phase = loaded ] && load_start
	say "gpiolat --wakeup: the kthread, $pulses pulses ($phase)"
	run wakeup-kthread-$phase.json $gpiolat --wakeup --comm toggle --pulses "$pulses" --json
	say "gpiolat --wakeup: utoggle, $secs s ($phase)"
	run wakeup-utoggle-$phase.json $gpiolat --wakeup -d "$secs" --json -- \
		$utoggle -l $vline -b 5 -i 1000 -p 60
	say "cyclictest -p 80 -t 1 -l $loops -i 10000 ($phase)"
	if command -v cyclictest >/dev/null; then
		run cyclictest-$phase.txt cyclictest -p 80 -t 1 -l "$loops" -i 10000 -q \
			-h 100000
	else
		echo "cyclictest is not installed (rt-tests)" >"$out/cyclictest-$phase.unavailable"
	fi
	say "rtla timerlat hist, $secs s ($phase)"
	if ! grep -qw timerlat $T/available_tracers; then
		echo "this kernel has no timerlat tracer (available_tracers:" \
			"$(cat $T/available_tracers))" >"$out/timerlat-$phase.unavailable"
	elif ! command -v rtla >/dev/null; then
		echo "rtla is not installed" >"$out/timerlat-$phase.unavailable"
	else
		run timerlat-$phase.txt rtla timerlat hist -d "${secs}s" -c 0 -E 20000
	fi
	[ $phase = loaded ] && load_stop
done

# gaps: the module in continuous mode, then put back as found
params=
for p in mode burst nlines line prio; do
	v=$(cat /sys/module/toggle/parameters/$p 2>/dev/null) || continue
	params="$params $p=$v"
done
if [ -z "$kmod" ] || [ ! -f "$kmod" ]; then
	echo "no toggle.ko to reload with mode=continuous (GPIOLAT_KMOD)" \
		>"$out/gaps-idle.unavailable"
else
	rmmod toggle || die "cannot unload the toggle module"
	# shellcheck disable=SC2086
	insmod "$kmod" $(echo $params | sed 's/mode=[a-z]*//') mode=continuous ||
		die "cannot load the toggle module with mode=continuous"
	for phase in idle loaded; do
		[ $phase = loaded ] && load_start
		say "gpiolat --gaps, $gap_pulses pulses, continuous ($phase)"
		run gaps-$phase.json $gpiolat --gaps --threshold 100us --pulses "$gap_pulses" --json
		[ $phase = loaded ] && load_stop
	done
	rmmod toggle
	# shellcheck disable=SC2086
	insmod "$kmod" $params || die "cannot put the toggle module back ($params)"
fi
exit 0
