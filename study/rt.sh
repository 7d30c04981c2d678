#!/bin/sh
# Target side (POSIX sh): the measurements behind `make rt-report` on one kernel, run as root on
# the target (the emulated one, or a board). Usage: study/rt.sh OUTDIR
#
# With the toggle module loaded (burst mode) and idle:
#   kernel.txt          uname, preemption model, tracers, RT throttling settings
#   overhead.json       gpiolat --overhead --json over $OVERHEAD_ONLY (a subset of the matrix)
#   wakeup-kthread-{idle,loaded}.json   gpiolat --wakeup on the module's kthread, --pulses
#   wakeup-utoggle-{idle,loaded}.json   gpiolat --wakeup -- utoggle (SCHED_FIFO 60, usleep)
#   cyclictest-{idle,loaded}.txt        cyclictest -m -p 80 -t 1 (the ADI page's), its histogram
#   timerlat-{idle,loaded}.txt          rtla timerlat hist, or timerlat.unavailable (why)
#   gaps-{idle,loaded}.json             gpiolat --gaps, the module reloaded mode=continuous
# "loaded": $LOAD runs meanwhile (default hackbench, from rt-tests; also "ls", the ADI page's
# five looping `ls -lR`, and "stress-ng"); load.txt names it. A measurement that cannot run
# here leaves NAME.unavailable with the reason. The module is put back as found at the end.
#
# Environment: LOAD (hackbench|ls|stress-ng), PULSES (wakeup, default 2000), GAP_PULSES
# (default 20000), LOOPS (cyclictest loops, default 1000), INTERVAL (cyclictest's -i in us,
# default 10000, the ADI page's), SECONDS_EACH (utoggle and timerlat, default 10),
# OVERHEAD_ONLY (default control,event,bpf-gpiolat-tracepoint), RT_PARTS (default "overhead
# latency": the overhead subset, and the wakeup, cyclictest, timerlat and gaps parts; one of them
# alone for a boot that runs only it: host/rt-report.sh's x86_64 guests under icount, which poll
# when idle for the latencies and halt for the overhead rows), RT_RAMROOT (1: the study in a
# root in RAM, below; the default under icount), UTOGGLE_TIME (utoggle's wakeup phase in s or
# ms, gpiolat's -d syntax, e.g. 200ms: shorter than SECONDS_EACH, which rtla's -d takes in whole
# seconds, allows; default SECONDS_EACH seconds).
# In the deterministic mode (GPIOLAT_TIMING=icount, set by vm/run: one guest instruction is
# 1 ns) the defaults find the long non-preemptible paths in seconds of guest time: cyclictest
# -l 3000 -i 1000 and utoggle and timerlat 3 s (a loaded second is about 10^9 instructions to
# emulate; an idle one costs no wall time). settings.txt says what ran.
set -u
cd "$(dirname "$0")/.."

dest=${1:?usage: study/rt.sh OUTDIR}
timing=${GPIOLAT_TIMING:-}
if [ "$timing" = icount ]; then
	loops=${LOOPS:-3000}
	interval=${INTERVAL:-1000}
	secs=${SECONDS_EACH:-3}
else
	loops=${LOOPS:-1000}
	interval=${INTERVAL:-10000}
	secs=${SECONDS_EACH:-10}
fi
utime=${UTOGGLE_TIME:-${secs}s}
pulses=${PULSES:-2000}
gap_pulses=${GAP_PULSES:-20000}
load=${LOAD:-hackbench}
only=${OVERHEAD_ONLY:-control,event,bpf-gpiolat-tracepoint}
parts=${RT_PARTS:-overhead latency}
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
command -v setsid >/dev/null || die "no setsid (util-linux): the load runs in process groups of its own"
case $load in
hackbench | ls | stress-ng) ;;
*) die "LOAD must be hackbench, ls or stress-ng, not '$load'" ;;
esac
for v in "$pulses" "$gap_pulses" "$loops" "$interval" "$secs"; do
	case $v in
	'' | *[!0-9]* | 0)
		die "PULSES, GAP_PULSES, LOOPS, INTERVAL, SECONDS_EACH: a positive integer, not '$v'"
		;;
	esac
done
echo "$utime" | grep -Eqx '[1-9][0-9]*m?s' ||
	die "UTOGGLE_TIME: a positive number of s or ms (200ms, 1s), not '$utime'"
# part NAME: RT_PARTS names it
part() {
	case " $parts " in *" $1 "*) return 0 ;; esac
	return 1
}
# (an empty RT_PARTS is the default, as every setting here)
for p in $parts; do
	case $p in
	overhead | latency) ;;
	*) die "RT_PARTS: overhead, latency or both, not '$parts'" ;;
	esac
done
command -v "${load%% *}" >/dev/null || die "the load '$load' is not installed (host/deps.sh)"
mkdir -p "$dest" || die "cannot create $dest"
rm -f "$dest"/*.json "$dest"/*.txt "$dest"/*.unavailable "$dest"/*.err

# Under icount the whole study runs in a root in RAM (RT_RAMROOT=1, the default there; 0 to
# run it in place): a root of its own in /tmp (a tmpfs) holding only what it runs (sh, the
# tools below, gpiolat, utoggle, gpiolat's BTF, toggle.ko, this script) and their shared
# libraries (as ldd finds them), with /proc, /sys and /dev bound in, entered with chroot.
# The emulated target's root and the project folder are 9p mounts, whose every request (a
# program's exec, a library's open, even from the page cache) completes at a moment of the
# host's clock, not the guest's: with such a wait inside a phase, its figures change from
# boot to boot. In the RAM root no 9p request is made from the first measurement to the last;
# the results are copied out to OUTDIR at the end.
ramroot=${RT_RAMROOT:-0}
[ "$timing" != icount ] || ramroot=${RT_RAMROOT:-1}
if [ "$ramroot" = 1 ] && [ -z "${RT_IN_RAMROOT:-}" ]; then
	ram=$(mktemp -d /tmp/rt-root.XXXXXX) || die "cannot create a folder in /tmp"
	unbind() {
		for m in dev sys proc; do
			umount -R "$ram/$m" 2>/dev/null
		done
		rm -rf "$ram"
	}
	trap unbind EXIT
	# put FILE [AS]: FILE (links followed) into the RAM root at AS (default: its own path)
	put() {
		mkdir -p "$ram$(dirname "${2:-$1}")" && cp -L "$1" "$ram${2:-$1}" ||
			die "cannot copy $1 into the RAM root"
	}
	# the usr-merge links (/bin -> usr/bin ...) as the root has them
	for l in bin sbin lib lib32 lib64; do
		[ -L /$l ] || continue
		t=$(readlink /$l)
		mkdir -p "$ram/${t#/}" && cp -P /$l "$ram/$l" || die "cannot make /$l in the RAM root"
	done
	# /run: gpiolat's undo journal (root's, never world-writable)
	mkdir -p "$ram/run" "$ram/tmp" "$ram/proc" "$ram/sys" "$ram/dev" "$ram/study" "$ram/out/bin" \
		"$ram/result" "$ram/usr/bin" "$ram/usr/sbin" "$ram/usr/lib"
	progs=
	for t in sh env cat cp rm mkdir mktemp head sed grep sleep uname nproc id insmod rmmod dirname chrt setsid \
		cyclictest hackbench rtla stress-ng ls; do
		p=$(command -v $t) || continue
		case $p in /*) ;; *) continue ;; esac
		put "$p"
		progs="$progs $p"
	done
	put "$gpiolat" /gpiolat
	put "$utoggle" /out/bin/utoggle
	[ ! -f "out/bin/$(uname -r).btf" ] || put "out/bin/$(uname -r).btf" "/out/bin/$(uname -r).btf"
	[ -z "$kmod" ] || [ ! -f "$kmod" ] || put "$kmod" /toggle.ko
	put study/rt.sh /study/rt.sh
	# every program's libraries and its loader, as ldd lists them
	for p in $progs "$gpiolat" "$utoggle"; do
		ldd "$p" 2>/dev/null | sed -n -e 's/.*=> \(\/[^ ]*\).*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p'
	done | sort -u >"$ram/libs" || die "cannot list the programs' libraries"
	while read -r l; do
		[ -e "$ram$l" ] || put "$l"
	done <"$ram/libs"
	rm -f "$ram/libs"
	# RT_RAMROOT_EXPORT=DIR: the root copied to DIR, nothing measured (host/ramroot.sh packs it
	# into the initramfs of a boot that runs the study with no 9p mounted: vm/run VM_RAMROOT)
	if [ -n "${RT_RAMROOT_EXPORT:-}" ]; then
		mkdir -p "$RT_RAMROOT_EXPORT" && cp -a "$ram/." "$RT_RAMROOT_EXPORT/" ||
			die "cannot copy the RAM root to $RT_RAMROOT_EXPORT"
		exit 0
	fi
	for m in proc sys dev; do
		mount --rbind /$m "$ram/$m" || die "cannot bind /$m into the RAM root"
	done
	say "in a root in RAM ($ram: $(du -sm "$ram" 2>/dev/null | cut -f1) MB; no 9p I/O inside)"
	RT_IN_RAMROOT=1 GPIOLAT_KMOD=${kmod:+/toggle.ko} chroot "$ram" /bin/sh /study/rt.sh /result
	rc=$?
	for f in "$ram"/result/*; do
		[ -e "$f" ] && cp "$f" "$dest/"
	done
	exit $rc
fi
# every file is written in /tmp (a tmpfs on the emulated target) and moved to OUTDIR when no
# load runs: OUTDIR is the project folder there, over 9p, and its I/O completes at a moment of
# the host's clock, not the guest's (under icount a phase's figures then no longer repeat)
out=$(mktemp -d /tmp/rt.XXXXXX) || die "cannot create a folder in /tmp"
flush() {
	for f in "$out"/*; do
		[ -e "$f" ] || continue
		cp "$f" "$dest/" && rm -f "$f"
	done
}

{
	uname -a
	echo "release=$(uname -r)"
	echo "machine=$(uname -m)"
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
	# how the CPU idles: idle=poll (it spins, never halts) when the command line says so
	# (host/rt-report.sh's x86_64 guests under icount), else the kernel's default
	idle=default
	for w in $(cat /proc/cmdline); do
		case $w in idle=*) idle=${w#idle=} ;; esac
	done
	echo "idle=$idle"
	echo "emulated=${GPIOLAT_TARGET:-}"
	echo "timing=$timing"
} >"$out/kernel.txt"
{
	echo "load=$load"
	echo "pulses=$pulses"
	echo "gap_pulses=$gap_pulses"
	echo "cyclictest=-m -p 80 -t 1 -l $loops -i $interval"
	echo "seconds_each=$secs"
	echo "utoggle_time=$utime"
	echo "overhead_only=$only"
	echo "parts=$parts"
} >"$out/settings.txt"

# the load: a loop per worker, each in a process group of its own (setsid): the loop, the
# command under way and its children (hackbench's workers outlive their parent; an ls -lR of a
# big tree over 9p, emulated, takes minutes) end with one signal to the group
load_groups=
# load_procs: how many processes the load's groups hold now (one cat and one sed over /proc:
# each process's group is the fifth field of its stat)
load_procs() {
	cat /proc/[0-9]*/stat 2>/dev/null |
		sed -n 's/^[0-9][0-9]* (.*) [A-Za-z] [0-9][0-9]* \([0-9][0-9]*\) .*/\1/p' |
		grep -cx $(for g in $load_groups; do printf ' -e %s' "$g"; done)
}
# A phase is measured once the load runs: every process it starts (each loop's shell and its
# command; hackbench's parent and its 20 workers) in its group, looked for every 10 ms, with the
# study's shell at SCHED_FIFO 1 while it looks (where chrt is: at SCHED_OTHER under hackbench
# it gets a 21st of the one CPU, and each look would cost it a guest second), at most 3 s. A
# fixed wait of 1 s did that before (2026-11-29): under icount a loaded guest second costs an
# armhf qemu 11 to 12 s of the host's time, and every loaded phase began with one.
load_start() {
	# N loops of CMD, WANT processes in all once they run
	case $load in
	# one long run, never a new one inside a phase: starting a program reads it over 9p
	hackbench) n=1 want=22 cmd="hackbench -g 2 -f 5 -l 1000000000" ;;
	ls) n=5 want=10 cmd="ls -lR /usr" ;;
	stress-ng) n=5 want=20 cmd="stress-ng --cpu 1 --io 1 --timeout 5s --quiet" ;;
	esac
	i=0
	while [ $i -lt $n ]; do
		setsid sh -c "while :; do $cmd >/dev/null 2>&1; done" &
		load_groups="$load_groups $!"
		i=$((i + 1))
	done
	[ -z "$tool_fifo" ] || chrt -f -p 1 $$ >/dev/null 2>&1
	i=0
	while [ "$(load_procs)" -lt $want ] && [ $i -lt 300 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	[ -z "$tool_fifo" ] || chrt -o -p 0 $$ >/dev/null 2>&1
	[ $i -lt 300 ] ||
		echo "the load had $(load_procs) of its $want processes after 3 s (measured then)" >>"$out/load.txt"
}
load_stop() {
	for g in $load_groups; do
		kill -TERM -"$g" 2>/dev/null
	done
	for g in $load_groups; do
		wait "$g"
	done
	load_groups=
}
bin=$out.bin
trap 'load_stop; flush; rm -rf "$out" "$bin"' EXIT

# gpiolat and utoggle run from /tmp too (with gpiolat's BTF, which it looks for beside itself):
# the project folder is mounted without a cache, so their pages would be read over 9p while
# they run. Then every program of the study runs once, briefly, before anything is measured,
# so that its pages come from the page cache (the root is mounted with one) and not over 9p
# in the middle of a measurement.
mkdir "$bin" && cp -L "$gpiolat" "$utoggle" "$bin/" || die "cannot copy gpiolat and utoggle to $bin"
[ ! -f "out/bin/$(uname -r).btf" ] || cp "out/bin/$(uname -r).btf" "$bin/" ||
	die "cannot copy gpiolat's BTF to $bin"
gpiolat=$bin/gpiolat
utoggle=$bin/utoggle
# rtla's own thread (its set-up parses every trace event's format with libtraceevent, then it
# reads the samples from the trace buffer) runs at SCHED_FIFO 1, above the load and below every
# measured thread (timerlat's at FIFO 95, its default), with its auto-analysis off (--no-aa,
# where this rtla has it: it enables more events for rtla to read). At SCHED_OTHER under
# hackbench it got a 21st of the one CPU: on armhf under icount its set-up alone took more
# than 8 guest seconds loaded (2026-11-26, 6.12-rt), and the study more than 2400 s of wall time.
# Its priority decides only when its reading runs, not what the timerlat thread measures.
# cyclictest's main thread likewise (its measuring thread is FIFO 80, -p): it prints the 100000
# lines of its histogram (-h) at the end, while the load still runs; at SCHED_OTHER that took
# more than 130 s of wall time for a 0.1 s run (armhf 6.12, -l 100, host load 15).
tool_fifo=
! command -v chrt >/dev/null || tool_fifo="chrt -f 1"
rtla_fifo=$tool_fifo
rtla_noaa=
if command -v rtla >/dev/null; then
	! rtla timerlat hist --help 2>&1 | grep -q -- --no-aa || rtla_noaa=--no-aa
fi
echo "tools=${tool_fifo:-at the shell's policy} (cyclictest's and rtla's own threads)" >>"$out/settings.txt"
echo "timerlat=$rtla_fifo rtla timerlat hist -d ${secs}s -c 0 -E 20000 $rtla_noaa" >>"$out/settings.txt"
vline=1
say "every program once, briefly (its pages cached before the measurements)"
$gpiolat --wakeup -d 100ms --json -- $utoggle -l $vline -b 5 -i 1000 -p 60 >/dev/null 2>&1
! command -v cyclictest >/dev/null || cyclictest -m -p 80 -t 1 -l 10 -i 1000 -q >/dev/null 2>&1
! grep -qw timerlat $T/available_tracers || ! command -v rtla >/dev/null ||
	$rtla_fifo rtla timerlat hist -d 1s -c 0 $rtla_noaa >/dev/null 2>&1
[ "$load" != hackbench ] || hackbench -g 2 -f 5 -l 10 >/dev/null 2>&1
case $load in
hackbench) echo "hackbench -g 2 -f 5, one long run (rt-tests)" ;;
ls) echo "5 x 'ls -lR /usr' in loops (the ADI ftrace page's workload)${RT_IN_RAMROOT:+; in the RAM root its /usr holds only the study's programs and libraries}" ;;
stress-ng) echo "stress-ng --cpu 1 --io 1, in a loop" ;;
esac >"$out/load.txt"

# utoggle_ready PID: true once PID has slept 20 times (in its usleep loop: its start-up, which
# opens its libraries over 9p, is over), false when it ended first. A wait of shell builtins
# only: an external sleep is a program read over 9p, and an idle CPU lets the guest's clock
# jump ahead while the host answers (utoggle then lost most of a 1 s phase to its start-up)
utoggle_ready() {
	_i=0
	while [ -r /proc/$1/status ] && [ $_i -lt 1000000 ]; do
		while read -r _k _v; do
			[ "$_k" = voluntary_ctxt_switches: ] && [ "$_v" -ge 20 ] && return 0
		done </proc/$1/status 2>/dev/null
		_i=$((_i + 1))
	done
	return 1
}

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

if part overhead; then
	say "gpiolat --overhead --only $only"
	run overhead.json $gpiolat --overhead --quick --only "$only" --json
fi
# a boot of the overhead rows alone: nothing more
part latency || {
	flush
	exit 0
}

for phase in idle loaded; do
	[ $phase = loaded ] && load_start
	say "gpiolat --wakeup: the kthread, $pulses pulses ($phase)"
	run wakeup-kthread-$phase.json $gpiolat --wakeup --comm toggle --pulses "$pulses" --json
	say "gpiolat --wakeup: utoggle, $utime ($phase)"
	# started first, measured once in its loop (--pid): its start-up is not in the phase
	$utoggle -l $vline -b 5 -i 1000 -p 60 >/dev/null 2>&1 &
	upid=$!
	if utoggle_ready $upid; then
		run wakeup-utoggle-$phase.json $gpiolat --wakeup --pid $upid -d "$utime" --json
	else
		echo "utoggle did not reach its loop (20 sleeps)" >"$out/wakeup-utoggle-$phase.unavailable"
	fi
	kill $upid 2>/dev/null
	wait $upid 2>/dev/null
	say "cyclictest -m -p 80 -t 1 -l $loops -i $interval ($phase)"
	if command -v cyclictest >/dev/null; then
		run cyclictest-$phase.txt $tool_fifo cyclictest -m -p 80 -t 1 -l "$loops" -i "$interval" \
			-q -h 100000
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
		run timerlat-$phase.txt $rtla_fifo rtla timerlat hist -d "${secs}s" -c 0 -E 20000 $rtla_noaa
	fi
	[ $phase = loaded ] && load_stop
	flush
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
		flush
	done
	rmmod toggle
	# shellcheck disable=SC2086
	insmod "$kmod" $params || die "cannot put the toggle module back ($params)"
fi
exit 0
