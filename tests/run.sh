#!/bin/sh
# Host side: run gpiolat's tests. Usage: tests/run.sh [host|target]
#   host:   pytest tests/host (unit tests, and the loader on the host kernel)
#   target: every tests/target/*.sh inside the emulated target, one boot each (KERNEL=std),
#           then on each other target (rt, 6.12, 6.12-rt: x86_64 kernels; arm, arm64: Debian
#           12's 6.1 for that architecture) the ones whose "# kernels: ..." line names it
#           (e.g. "# kernels: std rt 6.12"; a test without that line runs on std only);
#           a "# timing: icount" line runs that test with TIMING=icount (docs/timing.md).
#           TEST_TARGETS: the targets after std, "ci" (default: ci_targets below), "all"
#           (every target vm/kernel.sh knows), or a list of names (target_env)
# Closes with one line "N passed, N failed, N skipped" (checks, over both parts).
set -u
cd "$(dirname "$0")/.."
what=${1:-all}
passed=0
failed=0
skipped=0
log=out/tests
mkdir -p $log

count() {
	# count FILE: add the ok / not ok / skip lines of a TAP-like log
	p=$(grep -c '^ok - ' "$1")
	f=$(grep -c '^not ok - ' "$1")
	s=$(grep -c '^skip - ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
}

if [ "$what" = all ] || [ "$what" = host ]; then
	echo "== host tests (pytest tests/host)"
	# no caches outside out/
	PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -rs -p no:cacheprovider tests/host \
		>$log/host.log 2>&1
	rc=$?
	cat $log/host.log
	# pytest's summary: "3 passed, 1 skipped in 0.2s"
	summary=$(tail -n 1 $log/host.log)
	p=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) passed.*/\1/p; s/^\([0-9][0-9]*\) passed.*/\1/p' | head -n 1)
	f=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p; s/^\([0-9][0-9]*\) failed.*/\1/p' | head -n 1)
	s=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) skipped.*/\1/p; s/^\([0-9][0-9]*\) skipped.*/\1/p' | head -n 1)
	e=$(echo "$summary" | sed -n 's/.* \([0-9][0-9]*\) error.*/\1/p; s/^\([0-9][0-9]*\) error.*/\1/p' | head -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0} + ${e:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ $rc -eq 5 ]; then
		# pytest's 5: no test collected (a wrong path, a broken import hook): not a pass
		echo "not ok - pytest collected no host test"
		failed=$((failed + 1))
	elif [ $rc -ne 0 ] && [ -z "$f$e" ]; then
		failed=$((failed + 1))
	fi
fi

# target_env NAME: the KERNEL and ARCH of a target name (std, rt, 6.12, 6.12-rt, testing,
# testing-rt: x86_64; arm, arm64: that architecture's Debian 12 kernel; ARCH-KERNEL, e.g.
# arm-6.12-rt, arm64-testing: that architecture's KERNEL, vm/kernel.sh)
target_env() {
	case $1 in
	arm | arm64) echo "KERNEL=std ARCH=$1" ;;
	arm-* | arm64-*) echo "KERNEL=${1#*-} ARCH=${1%%-*}" ;;
	*) echo "KERNEL=$1 ARCH=x86_64" ;;
	esac
}

run_target() {
	kernel=$1
	t=$2
	name=$(basename "$t" .sh)
	echo "== target ($kernel): $name"
	start=$(date +%s)
	# "# timing: icount": that test runs in the deterministic mode (docs/timing.md)
	timing=$(sed -n 's/^# timing: *//p' "$t" | head -n 1)
	# shellcheck disable=SC2046
	env $(target_env $kernel) TIMING=${timing:-${TIMING:-real}} VM_NOMAKE=1 \
		VM_TIMEOUT=${VM_TIMEOUT:-1200} vm/run sh "$t" \
		</dev/null >$log/$kernel-$name.log 2>&1
	rc=$?
	cat $log/$kernel-$name.log
	count $log/$kernel-$name.log
	if [ $rc -ne 0 ] && ! grep -q '^not ok - ' $log/$kernel-$name.log; then
		echo "not ok - $name exited with status $rc"
		failed=$((failed + 1))
	elif ! grep -q '^\(ok\|not ok\|skip\) - ' $log/$kernel-$name.log; then
		echo "not ok - $name checked nothing (no ok, not ok or skip line)"
		failed=$((failed + 1))
	fi
	echo "   ($(($(date +%s) - start)) s)"
}

# The targets after std. The CI tier (default) fits make test's 60 minutes on 2 cores (a clean
# clone: 34 minutes with the first six): Debian 12's x86_64 kernels, Debian 12's 6.1 on arm and
# arm64, Debian testing's newest x86_64 kernel and its RT flavour (the int-returning gpio_chip
# setters), and Debian 13's and testing's arm64 kernels. "all" adds the armhf kernels of Debian
# 13 and testing: an armmp one needs a 600 MB -dbg package for its BTF, and this machine's mirror
# serves a trixie armhf index that does not match its signed Release (vm/kernel.sh stops;
# KERNEL_UNVERIFIED=1 takes it unauthenticated, and says so): README.
ci_targets="rt 6.12 6.12-rt testing testing-rt arm arm64 arm64-6.12 arm64-6.12-rt arm64-testing \
arm64-testing-rt"
all_targets="rt 6.12 6.12-rt testing testing-rt arm arm64 arm-6.12 arm-6.12-rt arm64-6.12 \
arm64-6.12-rt arm-testing arm64-testing arm64-testing-rt"
case ${TEST_TARGETS:-ci} in
ci) targets=$ci_targets ;;
all) targets=$all_targets ;;
*) targets=$TEST_TARGETS ;;
esac

if [ "$what" = all ] || [ "$what" = target ]; then
	# marked: the tests whose "# kernels:" line names $1 (no such line: std only)
	marked() {
		for t in tests/target/[0-9]*.sh; do
			case " $(sed -n 's/^# kernels://p' "$t" | head -n 1) " in
			*" $1 "*) echo "$t" ;;
			"  ") [ "$1" = std ] && echo "$t" ;;
			esac
		done
	}
	for t in $(marked std); do
		run_target std "$t"
	done
	# the other targets (TEST_TARGETS, the CI tier by default; "all" for every target)
	for kernel in $targets; do
		tests=$(marked $kernel)
		[ -n "$tests" ] || continue
		# shellcheck disable=SC2046
		if ! make -s all target $(target_env $kernel); then
			echo "not ok - building the $kernel target"
			failed=$((failed + 1))
			continue
		fi
		for t in $tests; do
			run_target $kernel "$t"
		done
	done
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
