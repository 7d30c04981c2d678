#!/bin/sh
# Host side: the main job, `make bpf-histograms`: every part of the study, each at a size chosen
# for about 5 minutes on a 2-core machine (docs/bench.md "The whole study"), then the one page,
# out/results/report.html (make report: host/report_html.py), with no section left "Not run".
#
# The parts (STUDIES, in this order; each in a run of its own; one that reads the host's clock
# never while another runs, the emulated parts in TIMING=icount two at a time: the schedule below):
#   syscall-cost  gpiolat --syscall-cost --json natively on this host (SYSCALL_ARGS)
#   histograms    study/histograms.sh in the target: the pulse-width histograms of every hook
#                 and tool (PULSES per method), host/report.py: histograms.{json,txt,csv}, PNGs
#   overhead      the overhead matrix, host/overhead-report.sh (OVERHEAD_ARGS): overhead.*
#   path          gpiolat --path --json (PATH_ARGS): gpio-path.json
#   bench-gpio    gpiolat's own GPIO programs against the empty program and the tools,
#                 host/bench_gpio.py (BENCH_ARGS): bench-gpio.json (emulated target only)
#   observer      the outside observer (docs/timing.md): gpiolat --overhead --json
#                 (OBSERVER_ARGS) on the ARM target's PL061 line, seen from qemu: in the study's
#                 TIMING=icount (the default) the plugin vm/pl061-observer.c stamps every data
#                 register write with the executed instruction count (VM_OBSERVE; exact, in the
#                 guest's ns); in TIMING=real qemu's trace stamps every edge with the host's
#                 clock (VM_TRACE; 1 us, noisy); host/pl061_trace.py: observer.json (emulated
#                 target only)
#   rt            standard vs PREEMPT_RT, host/rt-report.sh (RT_KERNELS, RT_PULSES,
#                 RT_GAP_PULSES, RT_LOOPS, RT_SECONDS): rt.{json,csv,txt,png}; under icount
#                 its boots are jobs of the lanes (rt:latency:KERNEL, rt:overhead:KERNEL in
#                 study.json), the part itself their merge and the page
# The sizes below are the main command's; the bigger runs are the parts by name (make
# overhead-report, make rt-report, make bench-gpio, docs/getting-started.md, "The study, bigger").
#
# On a machine without GPIO (or with TARGET=emulated) the target parts boot the emulated
# target; on a board with GPIO they run natively: the toggle module is built for the running
# kernel and loaded to drive the line named by CHIP (a gpiochip label) and LINE (its offset),
# e.g. `make bpf-histograms CHIP=gpio-96-127 LINE=6`.
# Environment: TARGET (emulated|native; default: native when this machine has a gpiochip),
# KERNEL (the emulated target's kernel, default 6.12: Debian 13's 6.12 on Debian 13's user space,
# whose release packages ply, so that the page has the talk's tool measured; std for Debian
# 12's 6.1 on the host's root; docs/study-target.md), LINEAR_NS (the histograms' bucket width), the
# sizes above, and vm/run's ARCH and TIMING (the emulated target's clock, docs/timing.md:
# icount, the default here: instruction-counted, deterministic, idle costs no wall time; real:
# the guest's clock follows the host's, vm/run's own default), which reach every vm/run; the rt
# part's too (RT_TIMING=real for it alone: then its tails are the emulator's and the host's,
# docs/rt.md; under icount a latency is the instructions run before the woken thread, what
# preemption models differ in), on RT_ARCH (default: this machine's architecture, whose Debian
# 12 kernels have a PREEMPT_RT flavour; RT_KERNELS may name another's as ARCH-KERNEL).
# Each part's wall time and the load average around it: out/results/study.json (on the page).
set -eu
cd "$(dirname "$0")/.."
results=out/results
raw=$results/raw
host_arch=$(uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')

if [ -z "${TARGET:-}" ]; then
	TARGET=emulated
	if ls /sys/bus/gpio/devices/gpiochip* >/dev/null 2>&1; then
		TARGET=native
	fi
fi
case $TARGET in
emulated | native) ;;
*)
	echo "bpf-histograms: TARGET must be emulated or native, not '$TARGET'" >&2
	exit 2
	;;
esac

# the emulated target's clock: instruction-counted unless asked otherwise (docs/bench.md "The
# default is TIMING=icount"); a board has its own clock
if [ "$TARGET" = emulated ]; then
	TIMING=${TIMING:-icount}
	case $TIMING in
	real | icount) ;;
	*)
		echo "bpf-histograms: TIMING must be real or icount, not '$TIMING'" >&2
		exit 2
		;;
	esac
	export TIMING
fi

PARTS="syscall-cost histograms overhead path bench-gpio observer rt"
STUDIES=${STUDIES:-$PARTS}
for s in $STUDIES; do
	case " $PARTS " in
	*" $s "*) ;;
	*)
		echo "bpf-histograms: STUDIES: '$s' is not one of $(echo "$PARTS" | sed 's/ /, /g')" >&2
		exit 2
		;;
	esac
done
want() { case " $STUDIES " in *" $1 "*) return 0 ;; esac; return 1; }

# the main command's sizes (measured in docs/bench.md "The whole study"; each part by name
# runs bigger: its own defaults)
pulses=${PULSES:-2000}
overhead_args=${OVERHEAD_ARGS:---quick}
path_args=${PATH_ARGS:--r 3 -p 5000 -s 200}
bench_args=${BENCH_ARGS:---passes 1 --reps 3 --pulses 50}
syscall_args=${SYSCALL_ARGS:---rounds 3}
observer_args=${OBSERVER_ARGS:---reps 5 --only \
bpf-gpiolat-tracepoint,bpf-empty-tracepoint,bpf-gpiolat-kprobe}
rt_kernels=${RT_KERNELS:-std rt}
# the emulated target of the histograms, overhead, path and bench-gpio parts (the observer and
# rt parts name their own): docs/study-target.md says why 6.12
KERNEL=${KERNEL:-6.12}
export KERNEL
rt_arch=${RT_ARCH:-$host_arch}
# the RT part's clock; under icount on the emulated target its boots are jobs of the lanes
# (rt_split: each kernel's latencies' boot first, its overhead rows' boot after the other parts,
# then the merge and the page alone; docs/bench.md "The whole study")
case ${RT_TIMING:-} in
'' | real | icount) ;;
*)
	echo "bpf-histograms: RT_TIMING must be real or icount, not '$RT_TIMING'" >&2
	exit 2
	;;
esac
rt_timing=${RT_TIMING:-${TIMING:-}}
rt_split=
[ "$TARGET" != emulated ] || [ "$rt_timing" != icount ] || ! want rt || rt_split=1

# rt_report STEP KERNELS [JOBS]: host/rt-report.sh's STEP (RT_STEP) on KERNELS, JOBS boots at a
# time (default RT_JOBS, 2; a job of the lanes is one boot), at the main command's sizes, in the
# study's clock (icount by default: the instructions before a wakeup; RT_TIMING=real the
# host's, docs/rt.md)
rt_report() {
	env TIMING="$rt_timing" TARGET="$TARGET" ARCH="$rt_arch" RT_STEP="$1" RT_KERNELS="$2" \
		RT_JOBS="${3:-${RT_JOBS:-2}}" \
		PULSES="${RT_PULSES:-200}" GAP_PULSES="${RT_GAP_PULSES:-2000}" \
		LOOPS="${RT_LOOPS:-100}" SECONDS_EACH="${RT_SECONDS:-1}" sh host/rt-report.sh
}

# the RT part's settings (RT_KERNELS, RT_TIMING, ...) said wrong before anything runs
! want rt || rt_report check "$rt_kernels"

# what KERNEL=std is on this host (its release's kernel: vm/std.sh), for the target and for the
# observer's ARM target
if [ "$TARGET" = emulated ]; then
	# shellcheck disable=SC2046
	sh vm/std.sh $(echo "${ARCH:-$host_arch} $(want observer && echo arm) $(want rt &&
		echo "${RT_ARCH:-$host_arch}")" | tr ' ' '\n' | awk 'NF && !seen[$0]++')
	export STD_SAID=1
fi

# run_to FILE CMD...: CMD's stdout to FILE (FILE.tmp until it succeeded)
run_to() {
	_f=$1
	shift
	_rc=0
	"$@" >"$_f.tmp" || _rc=$?
	if [ $_rc != 0 ]; then
		rm -f "$_f.tmp"
		echo "bpf-histograms: $1 ... failed (exit status $_rc)" >&2
		return $_rc
	fi
	mv "$_f.tmp" "$_f"
}

if want syscall-cost && [ "$(id -u)" != 0 ]; then
	echo "bpf-histograms: the native syscall cost needs root (sudo make bpf-histograms, or" \
		"STUDIES without syscall-cost)" >&2
	exit 2
fi
if [ "$TARGET" = native ]; then
	if [ -z "${CHIP:-}" ] || [ -z "${LINE:-}" ]; then
		echo "bpf-histograms: this machine has GPIO: name the line to toggle, e.g." \
			"make bpf-histograms CHIP=LABEL LINE=OFFSET (or TARGET=emulated)" >&2
		exit 2
	fi
	if [ -d /sys/module/toggle ]; then
		echo "bpf-histograms: the toggle module is already loaded: rmmod toggle first" >&2
		exit 1
	fi
fi

# ---- the parts ----------------------------------------------------------------------------
part_syscall_cost() {
	# natively on this host (the host's loader, whatever ARCH the target has)
	make -s loader ARCH="$host_arch"
	run_to "$results/syscall-cost.json" out/bin/gpiolat --syscall-cost --json $syscall_args
}

# the histograms part's files of an earlier run, removed before any part starts (the overhead
# part writes into $raw beside it, at the same time in TIMING=icount)
clean_histograms() {
	rm -rf "$raw" "$results"/histograms.* "$results"/gpiolat-*.png "$results"/bpftrace-*.png \
		"$results"/ply-*.png
	mkdir -p "$raw"
}

part_histograms() {
	if [ "$TARGET" = emulated ]; then
		env KERNEL="$KERNEL" VM_NOMAKE=1 vm/run env PULSES="$pulses" \
			LINEAR_NS="${LINEAR_NS:-}" sh study/histograms.sh "$raw" </dev/null
		# the clock these widths were counted in: the page explains icount's one-bar histograms
		echo "$TIMING" >"$raw/timing.txt"
	else
		# the study's -l: the toggled line as CHIP:OFFSET (a bare number would be a global one)
		env LINE="$CHIP:$LINE" PULSES="$pulses" LINEAR_NS="${LINEAR_NS:-}" \
			sh study/histograms.sh "$raw"
	fi
	python3 host/report.py "$raw" "$results" >/dev/null
	echo "bpf-histograms: $results/histograms.{json,txt,csv} and $(ls "$results"/gpiolat-*.png \
		"$results"/bpftrace-*.png "$results"/ply-*.png 2>/dev/null | wc -l) plots" >&2
}

part_overhead() {
	env OVERHEAD_NOREPORT=1 OVERHEAD_ARGS="$overhead_args" TARGET="$TARGET" \
		sh host/overhead-report.sh
}

part_path() {
	echo "  RUN     gpiolat --path $path_args" >&2
	if [ "$TARGET" = emulated ]; then
		# the module toggling back to back (its kernel phases: big batches, no sleeps between)
		# shellcheck disable=SC2086
		run_to "$results/gpio-path.json" env KERNEL="$KERNEL" VM_NOMAKE=1 \
			VM_TIMEOUT=${VM_TIMEOUT:-900} TOGGLE_ARGS="mode=continuous burst=1000" \
			vm/run ./gpiolat --path --json $path_args </dev/null
	else
		# shellcheck disable=SC2086
		run_to "$results/gpio-path.json" ./gpiolat --path --json $path_args
	fi
}

part_bench_gpio() {
	if [ "$TARGET" = native ]; then
		echo "bpf-histograms: bench-gpio boots the emulated target (host/bench_gpio.py):" \
			"not on a board" >&2
		return 0
	fi
	# shellcheck disable=SC2086
	run_to "$results/bench-gpio.txt" env KERNEL="$KERNEL" RESULTS="$results" \
		python3 host/bench_gpio.py $bench_args
}

part_observer() {
	if [ "$TARGET" = native ]; then
		echo "bpf-histograms: observer traces the emulated PL061 from qemu: not on a board" >&2
		return 0
	fi
	# icount: qemu's plugin counts the guest's instructions up to each PL061 data write
	# (VM_OBSERVE), the guest's ns exactly; real: qemu's trace stamps each edge with the host's
	# clock (VM_TRACE), the guest's clock only in real time, 1 us (docs/timing.md). Both files
	# by an absolute path in the project folder (qemu's cwd is not ours).
	# its target built before the parts (below)
	rm -f "$results"/observer.*
	otiming=$TIMING
	if [ "$TIMING" = icount ] && [ -f out/observer/unavailable ]; then
		# no plugin here (make said why once): the real-time observer, labelled as such
		echo "bpf-histograms: the exact observer is not available ($(cat out/observer/unavailable)):" \
			"the observer part runs in real time (TIMING=real, the host's clock)" >&2
		otiming=real
	fi
	if [ "$otiming" = icount ]; then
		set -- VM_OBSERVE="$PWD/$results/observer.trace"
	else
		set -- VM_TRACE="$PWD/$results/observer.trace"
	fi
	# shellcheck disable=SC2086
	run_to "$results/observer.overhead.json" env TIMING="$otiming" ARCH=arm KERNEL=std \
		VM_NOMAKE=1 TOGGLE_ARGS="chip=9030000.pl061 line=0" "$@" \
		vm/run ./gpiolat --overhead --json $observer_args </dev/null
	run_to "$results/observer.json" python3 host/pl061_trace.py "$results/observer.trace" \
		--overhead "$results/observer.overhead.json" --json
}

part_rt() {
	# split (under icount, below): the boots ran as jobs of the lanes, here the merge and the
	# page; else (RT_TIMING=real, a board) the whole part, alone: the host's clock
	if [ -n "$rt_split" ]; then
		rt_report report "$rt_kernels"
	else
		rt_report all "$rt_kernels"
	fi
}

# part_rt_job STEP KERNEL: one kernel's boot of the RT part's STEP (latency or overhead), a job
# of the lanes (under icount its figures are the same whatever else runs: docs/timing.md)
part_rt_job() {
	rt_report "$1" "$2" 1
}

# ---- the schedule, each part timed ---------------------------------------------------------
# A part that reads the host's clock runs alone: syscall-cost (natively), rt in RT_TIMING=real,
# and every emulated part when TIMING=real. In TIMING=icount an emulated part's figures are
# counted instructions, the same whatever else the host runs (docs/timing.md): those parts run
# two at a time, in two lanes (each qemu is one TCG thread: one CPU each on a 2-core machine),
# their output kept per part and printed when it ends; the RT part's boots too, each kernel's
# two a job of the lanes (rt_split), its merge and page alone at the end. Every target a part
# boots is built first (two makes of one build folder never at once), so that the makes inside
# the parts find nothing to do. A part runs as a job of its own so that set -e holds in it
# (dash, Debian's sh).
mkdir -p "$results"
rm -f "$results/study.json"
log=$results/.study-parts
: >"$log"
load() { cut -d' ' -f1-3 /proc/loadavg; }
# call_part NAME: the part's function (rt:STEP:KERNEL: one boot of the RT part, part_rt_job)
call_part() {
	case $1 in
	rt:*:*)
		_s=${1#rt:}
		part_rt_job "${_s%%:*}" "${_s#*:}"
		;;
	*) "part_$(echo "$1" | tr - _)" ;;
	esac
}
# run_part NAME [LANE]: the part, timed, its line in $log
run_part() {
	t0=$(date +%s)
	l0=$(load)
	if [ -n "${2:-}" ]; then
		echo "bpf-histograms: $1 started (lane $2)" >&2
		_rc=0
		# in a job of its own: set -e holds inside it (it would not in a tested command)
		call_part "$1" >"$results/.part-$1.log" 2>&1 &
		wait $! || _rc=$?
		cat "$results/.part-$1.log" >&2
		rm -f "$results/.part-$1.log"
		[ $_rc = 0 ] || {
			echo "bpf-histograms: $1 failed (exit status $_rc)" >&2
			return $_rc
		}
	else
		call_part "$1"
	fi
	t1=$(date +%s)
	echo "bpf-histograms: $1 in $((t1 - t0)) s (load average $l0 before, $(load) after)" >&2
	echo "$1 $((t1 - t0)) $l0 $(load)" >>"$log"
}
! want histograms || clean_histograms
start=$(date +%s)
load_start=$(load)
if [ "$TARGET" = emulated ]; then
	# the targets of one architecture one after another (they share its build of gpiolat), the
	# observer's ARM target beside them (its own build folder; its kernel's download and BTF
	# overlap the others')
	build() {
		make -s all target KERNEL="$KERNEL"
		if want rt; then
			for k in $rt_kernels; do
				make -s all target KERNEL="$k" ARCH="$rt_arch"
			done
		fi
	}
	if want observer && [ "${ARCH:-$host_arch}" != arm ] && [ "$rt_arch" != arm ]; then
		# each a job of its own (set -e holds in it)
		make -s all target ARCH=arm KERNEL=std &
		pidb=$!
		build &
		pida=$!
		rca=0 rcb=0
		wait $pida || rca=$?
		wait $pidb || rcb=$?
		[ $rca = 0 ] || exit $rca
		[ $rcb = 0 ] || exit $rcb
	else
		build
		! want observer || make -s all target ARCH=arm KERNEL=std
	fi
	# the parts' own scripts check their targets no second time (each check asks apt: seconds)
	export STUDY_BUILT=1
else
	make -s all KERNEL=native
	insmod out/target/native/toggle.ko chip="$CHIP" line="$LINE"
	trap 'rmmod toggle' EXIT
fi
# the parts two at a time: a queue, each lane taking the next part when its last one ended,
# longest first (the RT part's latencies' boots, then overhead, histograms, bench-gpio,
# observer, path, the RT part's overhead boots: docs/bench.md "The whole study"), so that the
# lanes end together whatever the load makes of each part's length
queue= alone=
for p in overhead histograms bench-gpio observer path; do
	want "$p" || continue
	if [ "$TARGET" = emulated ] && [ "$TIMING" = icount ]; then
		queue="$queue $p"
	fi
done
# the RT part split: its kernels' latencies' boots (a polling guest's, the longest jobs) first,
# their overhead rows' boots last; the merge and the page (part rt) alone after the lanes
if [ -n "$rt_split" ]; then
	lat= ovh=
	for k in $rt_kernels; do
		lat="$lat rt:latency:$k"
		ovh="$ovh rt:overhead:$k"
	done
	queue="$lat $queue $ovh"
fi
for p in $PARTS; do
	want "$p" || continue
	case " $queue " in *" $p "*) continue ;; esac
	alone="$alone $p"
done
qfile=$results/.study-queue
echo $queue | tr ' ' '\n' >"$qfile"
# next_part: the queue's first part, taken off it (one lane at a time); none: status 1
next_part() {
	flock "$qfile.lock" sh -c 'p=$(head -n 1 "$1") && [ -n "$p" ] && sed -i 1d "$1" && echo "$p"' \
		next "$qfile"
}
for p in $alone; do
	[ "$p" = syscall-cost ] || continue
	run_part "$p"
done
if [ -n "$queue" ]; then
	# a part that failed empties the queue: the other lane starts nothing more
	( while p=$(next_part); do run_part "$p" 1 || { _rc=$?; : >"$qfile"; exit $_rc; }; done ) &
	pid1=$!
	( while p=$(next_part); do run_part "$p" 2 || { _rc=$?; : >"$qfile"; exit $_rc; }; done ) &
	pid2=$!
	rc1=0 rc2=0
	wait $pid1 || rc1=$?
	wait $pid2 || rc2=$?
	rm -f "$qfile" "$qfile.lock"
	[ $rc1 = 0 ] || exit $rc1
	[ $rc2 = 0 ] || exit $rc2
fi
for p in $alone; do
	[ "$p" != syscall-cost ] || continue
	run_part "$p"
done
end=$(date +%s)
# what ran, how big, in how long, at what load: the page says it (host/report_html.py); the
# sizes are the user's strings, so json.dumps writes them
env TARGET="$TARGET" ARCH="${ARCH:-$host_arch}" KERNEL="$KERNEL" TIMING="${TIMING:-real}" \
	RT_ARCH="$rt_arch" RT_TIMING="$(if [ "$TARGET" = emulated ]; then echo "${rt_timing:-real}"
	else echo real; fi)" WALL_S=$((end - start)) \
	LOAD_START="$load_start" LOAD_END="$(load)" \
	PULSES="$pulses" OVERHEAD_ARGS="$overhead_args" PATH_ARGS="$path_args" \
	BENCH_ARGS="$bench_args" SYSCALL_ARGS="$syscall_args" RT_KERNELS="$rt_kernels" \
	OBSERVER_ARGS="$observer_args" \
	python3 -c '
import json, os, sys
e = os.environ
load = lambda s: [float(x) for x in s.split()]
parts = []
for ln in open(sys.argv[1]):
    name, secs, *avg = ln.split()
    parts.append({"part": name, "wall_s": int(secs), "load_before": load(" ".join(avg[:3])),
                  "load_after": load(" ".join(avg[3:]))})
# in the order of PARTS (two parts at a time end in any order), the boots of the RT part
# (rt:STEP:KERNEL) after its merge
order = sys.argv[2].split()
parts.sort(key=lambda p: (order.index(p["part"].split(":")[0]), p["part"]))
json.dump({"target": e["TARGET"], "arch": e["ARCH"], "kernel": e["KERNEL"],
           "timing": e["TIMING"], "rt_arch": e["RT_ARCH"],
           "rt_timing": e["RT_TIMING"], "wall_s": int(e["WALL_S"]),
           "load_start": load(e["LOAD_START"]), "load_end": load(e["LOAD_END"]),
           "sizes": {"pulses": int(e["PULSES"]), "overhead_args": e["OVERHEAD_ARGS"],
                     "path_args": e["PATH_ARGS"], "bench_args": e["BENCH_ARGS"],
                     "syscall_args": e["SYSCALL_ARGS"], "rt_kernels": e["RT_KERNELS"],
                     "observer_args": e["OBSERVER_ARGS"]},
           "parts": parts}, sys.stdout)
print()
' "$log" "$PARTS" >"$results/study.json"
rm -f "$log"
# the one page: every study whose results are in out/results
make -s report
echo "bpf-histograms: the whole study in $((end - start)) s ($TARGET${TIMING:+, TIMING=$TIMING}," \
	"load average $load_start before, $(load) after)"
