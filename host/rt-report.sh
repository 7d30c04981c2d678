#!/bin/sh
# Host side: `make rt-report`. For each kernel of RT_KERNELS (default "std rt"; any target
# `make target KERNEL=...` knows, e.g. "std rt 6.12 6.12-rt", and another architecture's as
# ARCH-KERNEL, as tests/run.sh names them: "std rt arm-6.12 arm-6.12-rt" puts x86_64's and
# Debian 13's armhf kernels, the talk's board class, on one page), boots the emulated target
# (default ARCH: this machine's) and runs study/rt.sh in it (raw results in
# out/results/raw/rt-KERNEL/, rt-ARCH-KERNEL/ for another architecture), RT_RUNS times (default
# 1; run N in rt-NAME.runN/, each its own boot: host/rt_report.py shows whether they agree),
# then host/rt_report.py puts the kernels side by side: out/results/rt.{json,csv,txt,png}.
# TIMING (vm/run's): icount by default here, the deterministic clock (one guest instruction is
# 1 ns: a latency is the instructions run before the woken thread, what preemption models
# differ in; docs/rt.md); TIMING=real for the guest's clock following the host's (then the
# tails are the emulator's and the host's, docs/rt.md says how much). Under icount (RT_RAMROOT
# not 0) the study boots with its root in the initramfs (host/ramroot.sh makes it once per
# target, vm/run VM_RAMROOT): nothing from the host's clock reaches the guest before its last
# measurement, so two boots give the same figures (docs/rt.md). On a board
# (TARGET=native) it runs study/rt.sh natively, for the running kernel only.
# RT_JOBS (default 1): under icount, that many boots at a time (the runs of one kernel and of
# the next alike). RT_IDLE_POLL (default 1): under icount on x86_64 the guest idles by polling
# (`idle=poll` on its command line, kernel.txt says so), on both kernels alike: a halted x86_64
# guest lets qemu 7.2's clock warp race its main loop (docs/rt.md, "The x86_64 guests poll when
# idle"); 0 lets it halt. A polling guest emulates its idle seconds (about 31 s of the host's
# each), and the overhead rows' phases are mostly the module's msleep(1)s: so there the
# overhead subset runs in a boot of its own that halts when idle (RT_PARTS=overhead; the
# latencies' boot RT_PARTS=latency), its overhead.json put in the run's folder and its idle
# loop in overhead-idle.txt (docs/rt.md).
# RT_STEP (default all): the main command runs the boots as jobs of its schedule (emulated, each
# kernel's latencies' boot and overhead rows' boot a job, docs/bench.md "The whole study"): check
# (the settings only), latency (each kernel's boot of the latencies, or of the whole study where
# it is not split), overhead (the split runs' overhead boots), report (the merge and the page);
# all: the four in order.
# Environment: RT_KERNELS, RT_RUNS, RT_JOBS, RT_IDLE_POLL, RT_STEP, ARCH, TIMING, TARGET
# (emulated|native), VM_TIMEOUT, LOAD, and study/rt.sh's PULSES, GAP_PULSES, LOOPS, INTERVAL,
# SECONDS_EACH, UTOGGLE_TIME, OVERHEAD_ONLY, RT_RAMROOT.
. "$(dirname "$0")/study-env.sh"
kernels=${RT_KERNELS:-std rt}
runs=${RT_RUNS:-1}
jobs=${RT_JOBS:-1}
for v in "RT_RUNS $runs" "RT_JOBS $jobs"; do
	case ${v#* } in
	'' | *[!0-9]* | 0)
		echo "rt-report: ${v%% *} must be a positive integer, not '${v#* }'" >&2
		exit 2
		;;
	esac
done
case ${RT_IDLE_POLL:-1} in
0 | 1) ;;
*)
	echo "rt-report: RT_IDLE_POLL must be 0 or 1, not '$RT_IDLE_POLL'" >&2
	exit 2
	;;
esac
step=${RT_STEP:-all}
case $step in
all | check | latency | overhead | report) ;;
*)
	echo "rt-report: RT_STEP must be all, check, latency, overhead or report, not '$step'" >&2
	exit 2
	;;
esac
if [ "${TARGET:-emulated}" = native ]; then
	[ "$step" = check ] && exit 0
	make -s all KERNEL=native
	sh study/rt.sh "$raw/rt-native"
	kernels=native
else
	TIMING=${TIMING:-icount}
	case $TIMING in
	real | icount) ;;
	*)
		echo "rt-report: TIMING must be real or icount, not '$TIMING'" >&2
		exit 2
		;;
	esac
	export TIMING
	# the study's settings go into the target with it (vm/run passes no environment)
	set --
	for v in LOAD PULSES GAP_PULSES LOOPS INTERVAL SECONDS_EACH UTOGGLE_TIME OVERHEAD_ONLY \
		RT_RAMROOT; do
		eval "val=\${$v:-}"
		[ -z "$val" ] || set -- "$@" "$v=$val"
	done
	# another architecture's kernels are named ARCH-KERNEL (rt-arm-6.12-rt/), as tests/run.sh does
	host=$(uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')
	arch=${ARCH:-$host}
	names=
	# the boots under way (RT_JOBS at a time): "pid:run folder" each; stopped with the script
	pids=
	trap 'for p in $pids; do kill "${p%%:*}" 2>/dev/null; done; wait; exit 130' INT TERM
	# every boot waited for, then a failure said: none left writing into out/results/raw after
	# this script ends
	wait_boots() {
		bad=
		for p in $pids; do
			wait "${p%%:*}" || bad="$bad ${p#*:}"
		done
		pids=
		[ -z "$bad" ] || {
			echo "rt-report: a boot of$bad failed" >&2
			exit 1
		}
	}
	# target K: its architecture a, kernel k and run folder's name n (ARCH-KERNEL names another
	# architecture's kernel)
	target() {
		a=$arch
		k=$1
		case $k in
		x86_64-* | arm-* | arm64-*)
			a=${k%%-*}
			k=${k#*-}
			;;
		esac
		n=$k
		[ "$a" = "$host" ] || n=$a-$k
	}
	# one run folder a name: the same kernel named twice would share it (said before any boot)
	for k in $kernels; do
		target "$k"
		case " $names " in
		*" $n "*)
			echo "rt-report: RT_KERNELS names $n twice" >&2
			exit 2
			;;
		esac
		names="$names $n"
	done
	[ "$step" != check ] || exit 0
	# what std and rt are here (the host release's kernel), said before anything but a usage
	# error (unless the main command said it already: STD_SAID)
	if [ "$step" != report ]; then
		case " $kernels " in
		*" std "* | *" rt "*) [ -n "${STD_SAID:-}" ] || sh vm/std.sh "$arch" ;;
		esac
	fi
	# ram_boot APPEND DIR ENV...: a boot of the study from its root in RAM ($ram, kernel $k of
	# $a), its results copied out to DIR; RT_JOBS boots at a time (under icount the figures do
	# not depend on the host's load: docs/timing.md)
	ram_boot() {
		_app=$1
		_dir=$2
		shift 2
		KERNEL=$k ARCH=$a VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-1500} VM_RAMROOT=$ram \
			VM_RAMROOT_OUT=$PWD/$_dir VM_APPEND="$_app" \
			vm/run env RT_IN_RAMROOT=1 "$@" sh /study/rt.sh /result </dev/null &
		pids="$pids $!:${_dir##*/}"
		[ $(($(echo $pids | wc -w))) -lt "$jobs" ] || wait_boots
	}
	# boots STEP ENV...: every kernel's runs' boots of STEP (latency: the latencies' boot where
	# the run is split, else the whole study's; overhead: a split run's overhead rows, in a boot
	# of their own). A run is split when the study's root is in RAM and the x86_64 guest polls
	# (RT_IDLE_POLL, above): it never halts, so qemu never warps its clock, and it emulates its
	# idle seconds; its overhead rows (mostly the module's msleep(1)s) boot halting, in
	# DIR.overhead, merged into DIR by the report step.
	# run_dir: d, the folder of run $r of the kernel named $n (rt-NAME/, rt-NAME.runR/)
	run_dir() {
		d=$raw/rt-$n
		[ "$r" = 1 ] || d=$d.run$r
	}
	rams=
	boots() {
		_step=$1
		shift
		for k in $kernels; do
			target "$k"
			# the main command built every target first (STUDY_BUILT): no second check of it; a
			# failed build after every boot under way ended
			[ -n "${STUDY_BUILT:-}" ] || make -s all target KERNEL="$k" ARCH="$a" || {
				wait_boots
				exit 1
			}
			poll=
			[ "$TIMING" != icount ] || [ "$a" != x86_64 ] || [ "${RT_IDLE_POLL:-1}" = 0 ] ||
				poll=idle=poll
			append="${VM_APPEND:-}${VM_APPEND:+${poll:+ }}$poll"
			# a kernel that does not poll has no overhead boot
			[ "$_step" != overhead ] || [ -n "$poll" ] || continue
			# its root in RAM: made (or found) once for both steps
			ram=$(printf '%s' "$rams" | sed -n "s|^$n ||p")
			if [ -z "$ram" ] && [ "$TIMING" = icount ] && [ "${RT_RAMROOT:-1}" != 0 ]; then
				ram=$(sh host/ramroot.sh "$k" "$a") || {
					wait_boots
					exit 1
				}
				rams="$rams$n $ram
"
			fi
			split=
			[ -z "$ram" ] || [ -z "$poll" ] || split=1
			r=1
			while [ $r -le "$runs" ]; do
				run_dir
				if [ "$_step" = overhead ]; then
					if [ -n "$split" ]; then
						echo "rt-report: kernel $k ($a): the overhead rows of ${d##*/} in a" \
							"boot of their own, halting when idle" >&2
						rm -rf "$d.overhead"
						ram_boot "${VM_APPEND:-}" "$d.overhead" RT_PARTS=overhead "$@"
					fi
					r=$((r + 1))
					continue
				fi
				echo "rt-report: kernel $k ($a, TIMING=$TIMING${poll:+, $poll}), run $r of" \
					"$runs${1:+ ($*)}" >&2
				# a run not split here has no overhead boot: an earlier one's is not its
				[ -n "$split" ] || rm -rf "$d.overhead"
				if [ -n "$split" ]; then
					rm -rf "$d"
					ram_boot "$append" "$d" RT_PARTS=latency "$@"
				elif [ -n "$ram" ]; then
					# the study's root as the initramfs, its results copied out after it
					rm -rf "$d"
					ram_boot "$append" "$d" "$@"
				else
					KERNEL=$k ARCH=$a VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-1500} \
						VM_APPEND="$append" vm/run env "$@" \
						sh study/rt.sh "$d" </dev/null
				fi
				r=$((r + 1))
			done
			# the repeats of an earlier, longer series are not this run's
			if [ "$_step" = latency ]; then
				while [ -d "$raw/rt-$n.run$r" ]; do
					rm -rf "$raw/rt-$n.run$r" "$raw/rt-$n.run$r.overhead"
					r=$((r + 1))
				done
			fi
		done
	}
	case $step in
	all | latency) boots latency "$@" ;;
	esac
	# the overhead boots after every kernel's latencies' (RT_JOBS=2: the kernels' long boots
	# side by side)
	case $step in
	all | overhead) boots overhead "$@" ;;
	esac
	wait_boots
	[ "$step" = all ] || [ "$step" = report ] || exit 0
	# each split run's overhead rows (or why they are not) into its folder, with the idle loop
	# of the boot that measured them
	for n in $names; do
		r=1
		while [ $r -le "$runs" ]; do
			run_dir
			r=$((r + 1))
			[ -d "$d.overhead" ] || continue
			mkdir -p "$d"
			for f in overhead.json overhead.unavailable; do
				[ ! -f "$d.overhead/$f" ] || mv "$d.overhead/$f" "$d/$f"
			done
			[ ! -f "$d.overhead/kernel.txt" ] ||
				sed -n 's/^idle=//p' "$d.overhead/kernel.txt" >"$d/overhead-idle.txt"
			rm -rf "$d.overhead"
		done
	done
	kernels=$names
fi
# shellcheck disable=SC2086
python3 host/rt_report.py "$raw" "$results" $kernels
echo "rt-report: $results/rt.{json,csv,txt,png} in $(($(date +%s) - start)) s" >&2
# the one page, with this study on it
make -s report
