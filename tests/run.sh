#!/bin/sh
# Host side: run gpiolat's tests (tests/README). Usage: tests/run.sh [--list] [host|target|all]
#   host:   pytest tests/host (unit tests, and the loader on the host kernel)
#   target: every tests/target/*.sh inside the emulated target, one boot each (KERNEL=std),
#           then on each other target (rt, 6.12, 6.12-rt: x86_64 kernels; arm, arm64: std for
#           that architecture) the ones whose "# kernels: ..." line names it (e.g. "# kernels:
#           std rt 6.12"; a test without that line runs on std only); std is the host
#           release's kernel (Debian 12: 6.1; Debian 13: 6.12), said first (vm/std.sh);
#           a "# timing: icount" line runs that test with TIMING=icount (docs/timing.md).
#           TEST_TARGETS: the targets after std, "ci" (default: ci_targets below), "all"
#           (every target vm/kernel.sh knows), or a list of names (target_env)
#   T=NAME: one test by name: a target test (30-gpiolat-counts, its file name or path, or a
#           prefix that names one file, as 30) on the target of KERNEL and ARCH (default std,
#           x86_64), or host tests (test_loader_hist, its file name or path, FILE::TEST, or a
#           pytest -k expression). A T that names no test: one line on stderr, exit status 2.
#   --list: print what would run, one line each ("TARGET FILE" or a pytest node id), run nothing
# Without T, the boots and host tests run in the schedule of tests/schedule.sh (tests/README):
# the icount boots in two lanes beside the builds, then the serial host tests with the free ones
# beside them, then the alone ones, then the real-time boots one at a time (TEST_LANES,
# TEST_TIMING).
# Closes with one line "N passed, N failed, N skipped" (checks, over both parts).
set -u
cd "$(dirname "$0")/.."
list=
if [ "${1:-}" = --list ]; then
	list=1
	shift
fi
what=${1:-all}
T=${T:-}
case $what in
all | host | target) ;;
*)
	echo "tests/run.sh: unknown part '$what' (host, target or all)" >&2
	exit 2
	;;
esac
passed=0
failed=0
skipped=0
log=out/tests

count() {
	# count FILE: add the ok / not ok / skip lines of a TAP-like log
	p=$(grep -c '^ok - ' "$1")
	f=$(grep -c '^not ok - ' "$1")
	s=$(grep -c '^skip - ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

# target_env NAME: the KERNEL and ARCH of a target name (std, rt, 6.12, 6.12-rt, testing,
# testing-rt: x86_64; arm, arm64: that architecture's std, the host release's kernel; ARCH-KERNEL, e.g.
# arm-6.12-rt, arm64-testing: that architecture's KERNEL, vm/kernel.sh)
target_env() {
	case $1 in
	arm | arm64) echo "KERNEL=std ARCH=$1" ;;
	arm-* | arm64-*) echo "KERNEL=${1#*-} ARCH=${1%%-*}" ;;
	*) echo "KERNEL=$1 ARCH=x86_64" ;;
	esac
}

# target_name KERNEL ARCH: the target name of a KERNEL and ARCH (target_env's inverse)
target_name() {
	case $2 in
	x86_64) echo "$1" ;;
	*) if [ "$1" = std ]; then echo "$2"; else echo "$2-$1"; fi ;;
	esac
}

bad_t() {
	echo "tests/run.sh: T=$T: $1" >&2
	exit 2
}

# find_target T: the one target test T names (30-gpiolat-counts, 30-gpiolat-counts.sh,
# tests/target/30-gpiolat-counts.sh, or a prefix of exactly one test's name, as 30)
find_target() {
	n=${1#tests/target/}
	n=${n%.sh}
	case $n in
	"" | *[!A-Za-z0-9._-]*) return 1 ;;
	esac
	found=
	for f in tests/target/[0-9]*.sh; do
		case ${f#tests/target/} in
		"$n.sh")
			echo "$f"
			return 0
			;;
		"$n"*) found="$found $f" ;;
		esac
	done
	# shellcheck disable=SC2086
	set -- $found
	if [ $# -gt 1 ]; then
		# a prefix of several names is no name
		bad_t "names $# target tests:$found"
	fi
	[ $# -eq 1 ] && echo "$1"
}

# host_collect ARGS...: the pytest node ids ARGS select in tests/host (none: status 1)
host_collect() {
	# pytest lists what it collected also when it then refuses a -k expression (status 4)
	out=$(PYTHONDONTWRITEBYTECODE=1 python3 -m pytest --collect-only -q -p no:cacheprovider \
		"$@" 2>&1) || return 1
	echo "$out" | grep '::'
}

# find_host T: host_sel (a file of tests/host, FILE::TEST) or host_k (a pytest -k expression)
find_host() {
	host_sel=
	host_k=
	file=${1%%::*}
	node=${1#"$file"}
	for f in "$file" "$file.py" "tests/host/$file" "tests/host/$file.py"; do
		case $f in
		tests/host/test_*.py) [ -f "$f" ] && host_sel=$f$node && break ;;
		esac
	done
	if [ -n "$host_sel" ]; then
		host_collect "$host_sel" >/dev/null
	else
		host_k=$1
		host_collect tests/host -k "$1" >/dev/null
	fi
}

# T: one test by name, of the part asked for (all: a target test, else a host one)
t_target=
if [ -n "$T" ] && [ "$what" != host ]; then
	# status 2: a prefix of several names (find_target said so)
	t_target=$(find_target "$T")
	[ $? -eq 2 ] && exit 2
fi
if [ -n "$T" ]; then
	if [ -n "$t_target" ]; then
		what=target
	elif [ "$what" != target ] && find_host "$T"; then
		what=host
	elif [ "$what" = target ]; then
		bad_t "no target test of that name (tests/target/[0-9]*.sh: a name as 30-gpiolat-counts, or a prefix of one name)"
	elif [ "$what" = host ]; then
		bad_t "no host test of that name (tests/host/test_*.py, FILE::TEST, or a pytest -k expression that selects one)"
	else
		bad_t "no test of that name (a target test as 30-gpiolat-counts, a host test file as test_loader_hist, or a pytest -k expression)"
	fi
fi

# run_host NAME PART ARGS...: pytest ARGS into $log/NAME.log, shown when it ends, its counts
# added; PART: every selected test (""), or tests/host/conftest.py's part of them ("free": the
# files that neither boot, write a Debian root nor time this host, beside the serial part;
# "serial": those that boot or write a root, two workers; "alone": those that time this host)
run_host() {
	hname=$1
	part=$2
	shift 2
	# in parallel where pytest-xdist is installed (host/deps.sh): HOST_JOBS workers (default 2,
	# this machine's cores; 1: one after another), a file's tests in one worker, the files that
	# write a Debian root one after another, and those that load gpiolat's programs into this
	# host's kernel (tests/host/conftest.py's groups)
	# (the python3 first on PATH, else Debian's /usr/bin/python3 when only that one has
	# pytest-xdist, as where a pyenv python3 without it comes first); the alone part runs in one
	# worker. make test's free part runs in 4 workers unless HOST_JOBS says: its tests wait
	# more than they compute (91 s of CPU in 71 s of wall with 2 workers, 52 s with 4, quiet,
	# 2026-11-29); beside the lanes it started when the builds were done and ended their phase
	# (46 s after the last boot on a clean clone that day): now it runs beside the serial
	# part, whose two workers leave a core mostly idle (tests/schedule.sh)
	jobs=${HOST_JOBS:-2}
	# and niced: beside the serial part it takes the cores that part leaves idle, not its
	# critical path's (test_deb's armhf half: 217 s on a clean clone with the free part at the
	# lanes' end, 247 s with it beside at the same priority, 2026-11-29)
	nicep=
	[ "$part" != free ] || { jobs=${HOST_JOBS:-4}; nicep="nice -n 10"; }
	par=
	py=python3
	if [ "$part" != alone ] && [ "$jobs" -gt 1 ]; then
		if ! python3 -c 'import xdist' 2>/dev/null &&
			/usr/bin/python3 -c 'import xdist, pytest' 2>/dev/null; then
			py=/usr/bin/python3
		fi
		$py -c 'import xdist' 2>/dev/null && par="-n $jobs --dist loadgroup"
	fi
	# the serial part's slowest steps named in the log (where its minutes go, run by run)
	[ "$part" != serial ] || par="$par --durations=8 --durations-min=5"
	hstart=$(date +%s)
	# no caches outside out/
	# shellcheck disable=SC2086
	GPIOLAT_HOST_PART=$part PYTHONDONTWRITEBYTECODE=1 $nicep $py -m pytest -q -rs -p no:cacheprovider \
		$par "$@" >$log/$hname.log 2>&1
	rc=$?
	echo "== host tests${part:+ ($part part)} (pytest $*)"
	echo "   (${nicep:+$nicep }$py -m pytest${par:+ $par})"
	cat $log/$hname.log
	# pytest's summary: "3 passed, 1 skipped in 0.2s"
	summary=$(tail -n 1 $log/$hname.log)
	p=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
	f=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p; s/^\([0-9][0-9]*\) failed.*/\1/p' | head -n 1)
	s=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p; s/^\([0-9][0-9]*\) skipped.*/\1/p' | head -n 1)
	e=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) error.*/\1/p; s/^\([0-9][0-9]*\) error.*/\1/p' | head -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${e:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ $rc -eq 5 ] && [ -n "$part" ] && echo "$summary" | grep -q ' deselected'; then
		# a part with no file of its kind (every test collected went to the other part)
		:
	elif [ $rc -eq 5 ]; then
		# pytest's 5: no test collected (a wrong path, a broken import hook): not a pass
		echo "not ok - pytest collected no host test"
		failed=$((failed + 1))
	elif [ $rc -ne 0 ] && [ -z "$f$e" ]; then
		failed=$((failed + 1))
	fi
	echo "   ($(($(date +%s) - hstart)) s)"
}

# what KERNEL=std is on this host (its release's kernel: vm/std.sh), before any target test
if [ -z "$list" ] && { [ "$what" = all ] || [ "$what" = target ]; }; then
	sh vm/std.sh
fi

if [ "$what" = all ] || [ "$what" = host ]; then
	# what T selects: a file or node (host_sel), a -k expression, or every host test
	if [ -n "$T" ] && [ -n "$host_sel" ]; then
		set -- "$host_sel"
	elif [ -n "$T" ]; then
		set -- tests/host -k "$host_k"
	else
		set -- tests/host
	fi
	if [ -n "$list" ]; then
		host_collect "$@"
	elif [ -n "$T" ] || [ "$what" = host ]; then
		mkdir -p $log
		run_host host "" "$@"
	fi
	# make test (all, no T): the host tests go into the schedule below, after the deterministic
	# boots: the serial part with the free part beside it, then the alone part
fi

# timing_of TEST: its "# timing:" line (real or icount: docs/timing.md), else $TIMING, else real
timing_of() {
	_m=$(sed -n 's/^# timing: *//p' "$1" | head -n 1)
	echo "${_m:-${TIMING:-real}}"
}

# run_target TARGET TEST...: the tests on one target, in one boot for each timing mode (the
# target's init runs the list: tests/target/run-list.sh); a test whose "# boot: own" line asks
# for a fresh target gets a boot of its own
run_target() {
	kernel=$1
	shift
	if [ -n "$list" ]; then
		for t; do echo "$kernel $t"; done
		return
	fi
	mkdir -p $log
	for timing in $(for t; do timing_of "$t"; done | awk '!seen[$0]++'); do
		shared=
		for t; do
			[ "$(timing_of "$t")" = "$timing" ] || continue
			if [ "$(sed -n 's/^# boot: *//p' "$t" | head -n 1)" = own ]; then
				run_boot "$kernel" "$timing" "$t"
			else
				shared="$shared $t"
			fi
		done
		# shellcheck disable=SC2086
		[ -z "$shared" ] || run_boot "$kernel" "$timing" $shared
	done
}

# timer PID LIMIT NAME FILE: a bounded wait: when LIMIT is up write NAME and how it was bounded
# ("NAME: within ...") to FILE and stop the boot PID (vm/run; its child, the timeout running
# qemu, passes the signal on to qemu); run_boot ends it (TERM) when what it bounds ended first.
# TIMING=real: LIMIT s of the host's clock (a sleep, no polling). TIMING=icount: LIMIT s of the
# CPU time the boot's processes use (qemu's: the guest's progress, which a loaded host slows in
# wall time but not in CPU time; read every 5 s), and the host's clock bounds it too: stopped
# after VM_STALL s (default 300) in which they used less than 1 s of CPU (a qemu that stopped),
# or after LIMIT x VM_ICOUNT_WALL s (default 8)
timer() {
	trap 'kill ${_t:-} 2>/dev/null; exit 0' TERM
	if [ "$timing" != icount ]; then
		sleep "$2" &
		_t=$!
		wait $_t
		echo "$3: within $2 s (VM_TIMEOUT, the host's clock)" >"$4"
		pkill -TERM -P "$1"
		return
	fi
	_hz=$(getconf CLK_TCK)
	_stall=${VM_STALL:-300}
	_every=5
	[ "$_stall" -ge 5 ] || _every=$_stall
	_wall=$(($2 * ${VM_ICOUNT_WALL:-8}))
	_c0=$(ticks "$1")
	_w0=$(date +%s)
	_cl=$_c0
	_wl=$_w0
	while :; do
		sleep $_every &
		_t=$!
		wait $_t
		_c=$(ticks "$1")
		_w=$(date +%s)
		if [ $((_c - _c0)) -ge $(($2 * _hz)) ]; then
			_why="$2 s of qemu's CPU time (VM_TIMEOUT; icount: the guest's progress)"
		elif [ $((_w - _w0)) -ge $_wall ]; then
			_why="$_wall s of the host's clock (icount: VM_TIMEOUT x VM_ICOUNT_WALL)"
		elif [ $((_c - _cl)) -ge "$_hz" ]; then
			_cl=$_c
			_wl=$_w
			continue
		elif [ $((_w - _wl)) -ge "$_stall" ]; then
			_why="$_stall s of the host's clock, qemu using less than 1 s of CPU (VM_STALL)"
		else
			continue
		fi
		break
	done
	echo "$3: within $_why" >"$4"
	pkill -TERM -P "$1"
}

# tree PID: PID and every process it started, and theirs
tree() {
	echo "$1"
	for _c in $(pgrep -P "$1"); do tree "$_c"; done
}

# ticks PID: the CPU time (clock ticks, user and system) that PID and its processes used so far
# (with that of their children that ended)
ticks() {
	for _p in $(tree "$1"); do cat /proc/"$_p"/stat 2>/dev/null; done |
		awk '{ sub(/.*\) /, ""); s += $12 + $13 + $14 + $15 } END { print s + 0 }'
}

# stop_timer: end the running timer (run_boot's $tm)
stop_timer() {
	[ -n "$tm" ] || return 0
	kill $tm 2>/dev/null
	wait $tm 2>/dev/null
	tm=
}

# run_boot TARGET TIMING TEST...: boot TARGET once (TIMING real or icount) and run the TESTs
# there in order, each judged as its end comes back; when the boot ends early, the test it was
# running fails (its log gets vm/run's messages) and a new boot runs the ones after it; a boot
# that never started a test fails them all. Each test, and the boot before the first, is limited
# to VM_TIMEOUT s (default 1200; the host's clock, under icount qemu's CPU time: timer): one hang
# costs one test (a new boot runs the tests after it).
run_boot() {
	kernel=$1
	timing=$2
	shift 2
	limit=${VM_TIMEOUT:-1200}
	# (two lanes never run one boot: its first test names it)
	boot=$log/$kernel-boot-$timing-$(basename "$1" .sh)
	tm=
	while [ $# -gt 0 ]; do
		for t; do rm -f "$log/$kernel-$(basename "$t" .sh).log"; done
		rm -f $boot.fifo $boot.killed
		mkfifo $boot.fifo || exit 1
		echo "== target ($kernel): one boot ($timing) for $# test(s)"
		bstart=$(date +%s)
		started=
		# shellcheck disable=SC2046
		env $(target_env "$kernel") TIMING="$timing" VM_NOMAKE=1 \
			VM_TIMEOUT=$((limit * $# + 600)) vm/run sh tests/target/run-list.sh "$kernel" \
			"$PWD/$log" "$@" </dev/null >$boot.fifo 2>$boot.err &
		vm=$!
		timer $vm "$limit" "(the boot)" $boot.killed &
		tm=$!
		while IFS= read -r l; do
			case $l in
			"@@gpiolat-test start "*)
				name=${l#@@gpiolat-test start }
				start=$(date +%s)
				[ -n "$started" ] || echo "   (boot: $((start - bstart)) s)"
				started=1
				stop_timer
				timer $vm "$limit" "$name" $boot.killed &
				tm=$!
				echo "== target ($kernel): $name"
				;;
			"@@gpiolat-test end "*)
				stop_timer
				l=${l#@@gpiolat-test end }
				name=${l% *}
				judge "${l##* }" "$log/$kernel-$name.log"
				[ "$(basename "$1" .sh)" = "$name" ] && shift
				# what follows a test (the next one's start, the target's shutdown) is bounded too
				timer $vm "$limit" "(after $name)" $boot.killed &
				tm=$!
				;;
			*) echo "$l" ;;
			esac
		done <$boot.fifo
		wait $vm
		rc=$?
		stop_timer
		rm -f $boot.fifo
		[ $# -gt 0 ] || break
		if [ -z "$started" ]; then
			# no test started: the boot failed; every test of the list fails with its messages
			for t; do
				name=$(basename "$t" .sh)
				start=$(date +%s)
				echo "== target ($kernel): $name"
				cp $boot.err "$log/$kernel-$name.log"
				[ ! -f $boot.killed ] || echo "not ok - $name: its boot started no test" \
					"$(sed 's/^[^:]*: //' $boot.killed): stopped" >>"$log/$kernel-$name.log"
				judge $rc "$log/$kernel-$name.log"
			done
			break
		fi
		# the boot ended inside the test it was running ($1): that test fails, the rest go on
		name=$(basename "$1" .sh)
		if [ -f $boot.killed ]; then
			echo "not ok - $name finished $(sed 's/^[^:]*: //' $boot.killed): stopped" \
				>>"$log/$kernel-$name.log"
			rc=124
		fi
		cat $boot.err >>"$log/$kernel-$name.log"
		judge $rc "$log/$kernel-$name.log"
		shift
	done
	rm -f $boot.killed $boot.err
}

# judge RC LOG: show a test's LOG, count its lines, and fail a test that exited RC != 0 without
# a "not ok" or that checked nothing ($name, $start: the test's name and start time)
judge() {
	cat "$2"
	count "$2"
	if [ "$1" -ne 0 ] && ! grep -q '^not ok - ' "$2"; then
		echo "not ok - $name exited with status $1"
		failed=$((failed + 1))
	elif ! grep -q '^\(ok\|not ok\|skip\) - ' "$2"; then
		echo "not ok - $name checked nothing (no ok, not ok or skip line)"
		failed=$((failed + 1))
	fi
	echo "   ($(($(date +%s) - start)) s)"
}

# in_tier NAME: the target NAME is in this run's tier (std is in every tier: the boots start there)
in_tier() {
	case " std $targets " in *" $1 "*) return 0 ;; esac
	return 1
}

# compare_targets FILE: the targets a comparison (tests/compare/) names on its "# targets:" line
compare_targets() {
	sed -n 's/^# targets: *//p' "$1" | head -n 1
}

# tier_compares: each comparison (tests/compare/) whose "# targets:" are all in the tier
tier_compares() {
	for _c in tests/compare/*.sh; do
		_need=$(compare_targets "$_c")
		[ -n "$_need" ] || continue
		for _k in $_need; do in_tier "$_k" || continue 2; done
		echo "$_c"
	done
}

# run_compare FILE: a host-side test that boots more than one target and compares them
# (tests/compare/), run once after the targets it needs were built and tested
run_compare() {
	name=$(basename "$1" .sh)
	if [ -n "$list" ]; then
		echo "compare $1"
		return
	fi
	echo "== compare: $name"
	start=$(date +%s)
	sh "$1" </dev/null >$log/compare-$name.log 2>&1
	judge $? $log/compare-$name.log
}

# The targets after std. The CI tier (default) fits make test's 60 minutes on 2 cores (a clean
# clone: 34 minutes with the first six, 45 with eleven; on a Debian 12 host): the host
# release's x86_64 kernel's RT (std, rt, arm and arm64 are the host release's kernels: Debian
# 12's 6.1 on Debian 12, 13's 6.12 on 13; vm/std.sh prints which at the start),
# Debian 13's x86_64 6.12 and its RT on Debian 13's user space (tests 31, 50 and 55 on 6.12 too,
# for bpftrace 0.23 and libgpiod 2: about 2.5 minutes; 55 and 87 wherever the root has Debian's
# ply: 55 on 6.12, 6.12-rt, testing and testing-rt, 87 on 6.12 and testing), the host release's
# kernel on arm and arm64,
# Debian testing's newest x86_64 kernel and its RT flavour (the int-returning gpio_chip
# setters; test 16 on testing and arm64-testing: debugfs names lines by offset there), Debian
# 13's armhf kernels, standard and PREEMPT_RT, on Debian 13's armhf root (the talk's board class;
# their index: vm/kernel.sh; the root: vm/userspace.sh, 2.5 minutes to make at a load of 2-3;
# test 45's --wakeup and --gaps there too).
# "all" adds testing's armhf kernel (about 4 minutes more: its 600 MB -dbg package for the BTF)
# and Debian 13's and testing's arm64 kernels: each runs its release's arm64 root, made under
# qemu-user (Debian 13's took 5 minutes at a load of 2-3, 29 at 8-12; testing's is not yet
# measured): with them the tier would not fit 60 minutes.
ci_targets="rt 6.12 6.12-rt testing testing-rt arm arm64 arm-6.12 arm-6.12-rt"
all_targets="rt 6.12 6.12-rt testing testing-rt arm arm64 arm-6.12 arm-6.12-rt arm64-6.12 \
arm64-6.12-rt arm-testing arm64-testing arm64-testing-rt"
case ${TEST_TARGETS:-ci} in
ci) targets=$ci_targets ;;
all) targets=$all_targets ;;
*) targets=$TEST_TARGETS ;;
esac

# marked: the tests whose "# kernels:" line names $1 (no such line: std only)
marked() {
	for t in tests/target/[0-9]*.sh; do
		case " $(sed -n 's/^# kernels://p' "$t" | head -n 1) " in
		*" $1 "*) echo "$t" ;;
		"  ") [ "$1" = std ] && echo "$t" ;;
		esac
	done
}

if [ -n "$t_target" ]; then
	# one target test, on the target of KERNEL and ARCH (make test builds it first), also
	# where its "# kernels:" line does not name that target (asked for by name)
	kernel=$(target_name "${KERNEL:-std}" "${ARCH:-x86_64}")
	if [ -z "$list" ] && ! marked "$kernel" | grep -qx "$t_target"; then
		echo "# $t_target: its \"# kernels:\" line does not name $kernel: run as asked"
	fi
	run_target "$kernel" "$t_target"
elif [ -n "$list" ] && { [ "$what" = all ] || [ "$what" = target ]; }; then
	# what runs, target by target (the schedule below runs the same boots in its own order)
	_listed=
	for kernel in std $targets; do
		case " $_listed " in *" $kernel "*) continue ;; esac
		_listed="$_listed $kernel"
		# shellcheck disable=SC2046
		run_target "$kernel" $(marked "$kernel")
	done
	# the comparisons the tier has, as the schedule runs them
	for c in $(tier_compares); do
		run_compare "$c"
	done
elif [ "$what" = all ] || [ "$what" = target ]; then
	# the deterministic boots in lanes, the host tests' parts, then the real-time boots alone
	. tests/schedule.sh
	run_schedule
fi

[ -n "$list" ] && exit 0
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
