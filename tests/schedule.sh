#!/bin/sh
# Host side: make test's schedule, sourced by tests/run.sh (its variables and functions: log,
# what, targets, passed/failed/skipped, marked, timing_of, in_tier, compare_targets, run_boot,
# run_compare, run_host, target_env): run_schedule runs every boot of the tier and, for make test, the host
# tests, in the order tests/README gives.

# weight KEY: a boot's expected seconds, to start the longest first: this tree's last run's
# (out/tests/durations), else a quiet clean clone's make test's (2026-11-28, commit b187587: its
# "seconds per boot", its build included) plus what moved to icount after it (80: std about 92
# s); a boot it did not list, 60
weight() {
	_w=$(sed -n "s|^$1 \([0-9][0-9]*\)\$|\1|p" $log/durations 2>/dev/null | tail -n 1)
	if [ -z "$_w" ]; then
		case $1 in
		std/icount) _w=$((487 + 92)) ;;
		compare/rt-det) _w=295 ;;
		compare/rt-armhf) _w=290 ;;
		arm-6.12/icount) _w=269 ;;
		arm/icount) _w=255 ;;
		testing/icount) _w=183 ;;
		6.12/icount) _w=168 ;;
		compare/matrix-armhf) _w=126 ;;
		testing-rt/icount) _w=101 ;;
		arm-6.12-rt/icount) _w=95 ;;
		rt/icount) _w=92 ;;
		6.12-rt/icount) _w=88 ;;
		arm64/icount) _w=83 ;;
		*) _w=60 ;;
		esac
	fi
	echo "$_w"
}

# plan: the boots of this run, one line each, "TIMING WEIGHT KEY TARGET TEST..." (a target's
# tests of one timing mode in one boot, a "# boot: own" test in one of its own) or "TIMING
# WEIGHT KEY compare FILE" (tests/compare/: once, when every target its "# targets:" line names
# is in the tier; its "# timing:" line says its mode)
plan() {
	_done=
	for kernel in std $targets; do
		case " $_done " in *" $kernel "*) continue ;; esac
		_done="$_done $kernel"
		tests=$(marked "$kernel")
		[ -n "$tests" ] || continue
		for timing in $(for t in $tests; do timing_of "$t"; done | awk '!seen[$0]++'); do
			shared=
			for t in $tests; do
				[ "$(timing_of "$t")" = "$timing" ] || continue
				if [ "$(sed -n 's/^# boot: *//p' "$t" | head -n 1)" = own ]; then
					key=$kernel/$timing/$(basename "$t" .sh)
					echo "$timing $(weight "$key") $key $kernel $t"
				else
					shared="$shared $t"
				fi
			done
			[ -z "$shared" ] || echo "$timing $(weight "$kernel/$timing") $kernel/$timing $kernel$shared"
		done
	done
	for c in $(tier_compares); do
		key=compare/$(basename "$c" .sh)
		echo "$(timing_of "$c") $(weight "$key") $key compare $c"
	done
}

# build TARGET: make its loader, kernel, module and root (one make at a time: build.lock, a
# bounded wait), its messages shown; a target that failed to build fails once. std: made by make
# test before tests/run.sh (KERNEL=std), as before the schedule
build() {
	[ "$1" != std ] || return 0
	[ ! -f "$log/build-$1.failed" ] || return 1
	# made in this run already: not asked again (a make that finds it made still waits its turn
	# for the lock behind another target's build: a lane waited minutes so)
	[ ! -f "$log/build-$1.made" ] || return 0
	_b0=$(date +%s)
	# (and not made again when another made it while this one waited for the lock)
	# shellcheck disable=SC2046
	if ! flock -w "${TEST_BUILD_WAIT:-3600}" $log/build.lock \
		sh -c '[ ! -f "$0" ] || exit 0; nice make -s all target "$@" && : >"$0"' "$log/build-$1.made" \
		$(target_env "$1") >>"$log/build-$1.log" 2>&1; then
		cat "$log/build-$1.log"
		: >"$log/build-$1.failed"
		echo "not ok - building the $1 target"
		failed=$((failed + 1))
		return 1
	fi
	# its seconds, the wait for the build lock included
	echo "$1 $(($(date +%s) - _b0))" >>$log/builds.new
	if [ -s "$log/build-$1.log" ] && [ ! -f "$log/build-$1.shown" ]; then
		cat "$log/build-$1.log"
		: >"$log/build-$1.shown"
	fi
}

# seconds_list FILE: FILE's "KEY SECONDS" lines, a KEY's longest, longest first, one a line
seconds_list() {
	awk '!($1 in m) || $2 > m[$1] { m[$1] = $2 } END { for (k in m) print k, m[k] }' "$1" |
		sort -k2,2nr | awk '{ printf "   %-28s %5d s\n", $1, $2 }'
}

# cpu_now FILE: _cpu, the CPU seconds (user + system) of every process this shell waited for
# and of theirs, from the times builtin through FILE (a function runs in the caller's shell; in a
# pipe or $(...) times would count a subshell's children: none yet)
cpu_now() {
	times >"$1"
	_cpu=$(awk 'NR == 2 { split($1, u, "m"); split($2, y, "m")
		printf "%d\n", u[1] * 60 + u[2] + y[1] * 60 + y[2] }' "$1")
	rm -f "$1"
}

# run_item TIMING WEIGHT KEY TARGET TEST... (a line of plan): build what it needs, run it, and
# keep its seconds in out/tests/durations.new (KEY SECONDS) for the next run's order, and its CPU
# seconds (its qemus, builds and tools: in the lanes a boot's wall time is the share of the 2
# cores it got, its CPU what it cost) in out/tests/cpu.new
run_item() {
	itiming=$1
	ikey=$3
	shift 3
	istart=$(date +%s)
	itimes=$log/times.$(echo "$ikey" | tr / _)
	cpu_now "$itimes"
	icpu=$_cpu
	if [ "$1" = compare ]; then
		for k in $(compare_targets "$2"); do
			build "$k" || return 0
		done
		run_compare "$2"
	else
		build "$1" || return 0
		ik=$1
		shift
		run_boot "$ik" "$itiming" "$@"
	fi
	echo "$ikey $(($(date +%s) - istart))" >>$log/durations.new
	cpu_now "$itimes"
	echo "$ikey $((_cpu - icpu))" >>$log/cpu.new
}

# say FILE: print FILE whole, not between another's lines (the lanes and the builder print
# blocks at once: out.lock)
say() {
	flock -w 600 $log/out.lock cat "$1" || cat "$1"
}

# tally FILE WHAT: add the counts a background part left in FILE ("P F S"); none: it failed
tally() {
	if read -r _p _f _s <"$1" 2>/dev/null && [ -n "$_s" ]; then
		passed=$((passed + _p))
		failed=$((failed + _f))
		skipped=$((skipped + _s))
	else
		echo "not ok - $2 ended without its counts"
		failed=$((failed + 1))
	fi
}

# kill_tree PID: PID and everything it started (the lanes' boots on an interrupt)
kill_tree() {
	for _c in $(pgrep -P "$1"); do kill_tree "$_c"; done
	kill -TERM "$1" 2>/dev/null
}

# run_schedule: the schedule (tests/README): what does not read the host's clock runs first, in
# parallel; then what does, alone.
run_schedule() {
	# The schedule (tests/README): what does not read the host's clock runs first, in parallel;
	# then what does, alone.
	#  1. two lanes run every deterministic boot (TIMING=icount: a guest instruction is 1 ns,
	#     whatever the host's load), the longest first, each building its target first; beside
	#     them one job builds every target (and the host tests' helpers)
	#  2. the serial part of the host tests (they boot or write a Debian root the boots use),
	#     two workers, and beside it the free part (tests/host/conftest.py: they neither boot,
	#     write a Debian root nor time this host), four workers: the serial part's two workers
	#     leave a core mostly idle (test_deb's halves wait on apt, DKMS under qemu-user and a
	#     real-time boot); then the alone part (they time this host), one worker
	#  3. the real-time boots (TIMING=real: their criteria were chosen against the noise of a
	#     machine doing nothing else), one at a time, nothing beside them
	lanes=${TEST_LANES:-2}
	case $lanes in
	[1-9]) ;;
	*)
		echo "tests/run.sh: TEST_LANES=$lanes: 1 to 9" >&2
		exit 2
		;;
	esac
	mkdir -p $log
	rm -f $log/lanes.queue $log/lanes.order $log/durations.new $log/cpu.new $log/builds.new $log/lane-*.counts $log/builder.counts \
		$log/host-free.counts $log/host-free.block \
		$log/build-*.log $log/build-*.failed $log/build-*.shown $log/build-*.made
	# TEST_TIMING=icount: the deterministic boots alone (real: the real-time ones alone)
	case ${TEST_TIMING:-} in
	icount | real) plan | awk -v m="$TEST_TIMING" '$1 == m' >$log/plan ;;
	"") plan >$log/plan ;;
	*)
		echo "tests/run.sh: TEST_TIMING=$TEST_TIMING: icount, real or unset (both)" >&2
		exit 2
		;;
	esac
	grep '^icount ' $log/plan | sort -k2,2nr -s >$log/lanes.queue
	# (the builder's order: the queue before the lanes take from it)
	cp $log/lanes.queue $log/lanes.order
	grep -v '^icount ' $log/plan >$log/real.queue
	: >$log/queue.lock
	: >$log/out.lock
	: >$log/build.lock
	t0=$(date +%s)
	beside=
	[ "$what" = target ] || beside=" beside the builds, then the serial and free host tests, then the alone ones"
	echo "== schedule: $(wc -l <$log/lanes.queue) deterministic boot(s) in $lanes lane(s)$beside," \
		"then $(wc -l <$log/real.queue) real-time boot(s) one at a time"
	pids=
	for N in $(seq "$lanes"); do
		(
			passed=0 failed=0 skipped=0
			while :; do
				item=$(flock -w 600 $log/queue.lock sh -c 'head -n 1 "$1"; sed -i 1d "$1"' \
					sh $log/lanes.queue) || break
				[ -n "$item" ] || break
				# shellcheck disable=SC2086
				set -- $item
				s0=$(date +%s)
				echo "== lane $N: $3 starts at +$((s0 - t0)) s ($(($# - 4)) test(s), about $2 s)" \
					>$log/lane-$N.start
				say $log/lane-$N.start
				# shellcheck disable=SC2086
				run_item $item >$log/lane-$N.block 2>&1
				s1=$(date +%s)
				echo "== lane $N: $3 done at +$((s1 - t0)) s ($((s1 - s0)) s)" >>$log/lane-$N.block
				say $log/lane-$N.block
			done
			echo "$passed $failed $skipped" >$log/lane-$N.counts
		) </dev/null &
		pids="$pids $!"
	done
	# beside them: every target's build in the order the lanes need them (their queue's, then
	# the real-time boots', which run last; a lane may have made one already: one make at a
	# time), then the host tests' helpers, so that the host tests' own makes find everything made
	(
		passed=0 failed=0 skipped=0
		{
			# and, for the host tests, the targets the serial part boots or builds against
			# in any tier (test_kernels: rt, 6.12, 6.12-rt; test_vm_run and
			# test_pl061_observer: arm, arm64; test_deb: 6.12 and arm-6.12)
			for k in $({
				for q in $log/lanes.order $log/real.queue; do
					while read -r _t _w _k k c _rest; do
						if [ "$k" = compare ]; then
							compare_targets "$c" | tr ' ' '\n'
						else
							echo "$k"
						fi
					done <$q
				done
				[ "$what" != all ] || echo rt 6.12 6.12-rt arm arm64 arm-6.12 | tr ' ' '\n'
			} | awk 'NF && !seen[$0]++'); do
				build "$k"
			done
			if [ "$what" = all ]; then
				flock -w "${TEST_BUILD_WAIT:-3600}" $log/build.lock \
					make -s out/build/test-hist out/build/test-overhead \
					out/build/test-results-out
			fi
		} >$log/builder.block 2>&1
		cpu_now $log/times.builder
		echo "== the builds done at +$(($(date +%s) - t0)) s" \
			"($_cpu s of CPU)" >>$log/builder.block
		say $log/builder.block
		echo "$passed $failed $skipped" >$log/builder.counts
	) </dev/null &
	pids="$pids $!"
	trap 'for p in $pids; do kill_tree $p; done; exit 130' INT TERM
	# shellcheck disable=SC2086
	wait $pids
	trap - INT TERM
	for N in $(seq "$lanes"); do
		tally $log/lane-$N.counts "lane $N"
	done
	tally $log/builder.counts "the builds beside the lanes"
	t1=$(date +%s)
	echo "== the deterministic lanes and what ran beside them: $((t1 - t0)) s"
	if [ "$what" = all ]; then
		# the free part in the background (niced: run_host), its block shown after the serial
		# part's (its tests that load gpiolat's programs into this host's kernel take turns
		# with the serial part's one: tests/host/conftest.py's host_kernel_turn)
		(
			passed=0 failed=0 skipped=0
			run_host host-free free tests/host >$log/host-free.block 2>&1
			echo "$passed $failed $skipped" >$log/host-free.counts
		) </dev/null &
		fpid=$!
		trap 'kill_tree $fpid; exit 130' INT TERM
		run_host host-serial serial tests/host
		wait $fpid
		trap - INT TERM
		cat $log/host-free.block
		tally $log/host-free.counts "the free host tests"
		run_host host-alone alone tests/host
	fi
	t2=$(date +%s)
	# (the queue on fd 3: nothing a boot or build runs reads it)
	while read -r item <&3; do
		# shellcheck disable=SC2086
		run_item $item
	done 3<$log/real.queue
	t3=$(date +%s)
	# this run's seconds over the last runs' (a part of the tier keeps the others' figures)
	if [ -f $log/durations.new ]; then
		# the log says where the time went: each boot's seconds, longest first (its build
		# included; a lane's boots ran two at a time, the real-time ones alone)
		echo "== seconds per boot, this run (with its build):"
		seconds_list $log/durations.new
		# and the CPU each cost (what a lane's boot got of the 2 cores is its wall time)
		if [ -f $log/cpu.new ]; then
			echo "== CPU seconds per boot, this run (user + system of its qemus, build and tools):"
			seconds_list $log/cpu.new
			rm -f $log/cpu.new
		fi
		# and each target's build: its longest call (the one that made it; the lock's wait in it)
		if [ -f $log/builds.new ]; then
			echo "== seconds per target build, this run (the wait for the build lock included):"
			seconds_list $log/builds.new
			rm -f $log/builds.new
		fi
		cat $log/durations $log/durations.new 2>/dev/null |
			awk '{ d[$1] = $2 } END { for (k in d) print k, d[k] }' | sort >$log/durations.tmp
		mv $log/durations.tmp $log/durations
		rm -f $log/durations.new
	fi
	# and the CPU of all of it: on 2 cores at most twice the wall time
	cpu_now $log/times.schedule
	echo "== schedule: $((t3 - t0)) s: deterministic lanes $((t1 - t0)) s, serial, free and alone host tests" \
		"$((t2 - t1)) s, real-time boots $((t3 - t2)) s; $_cpu s of CPU"
}
