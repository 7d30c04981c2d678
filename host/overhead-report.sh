#!/bin/sh
# Host side: `make overhead-report`. On a machine without GPIO (or with TARGET=emulated) it runs
# `gpiolat --overhead --json` in the emulated target; on a board (TARGET=native) it runs it
# natively, with the toggle module already loaded on the board's line. Then host/overhead.py
# writes out/results/overhead.{json,csv,txt} and overhead.png, then make report the page
# out/results/report.html.
# Environment: TARGET (emulated|native), VM_TIMEOUT (vm/run's limit in host seconds, default
# 3000), KERNEL (default 6.12, the main page's target, whose
# user space has ply: docs/study-target.md; std, rt, 6.12-rt, testing...), OVERHEAD_ARGS (e.g. "--quick"), and
# vm/run's ARCH and TIMING (real|icount, docs/timing.md), which reach vm/run as they are.
set -eu
cd "$(dirname "$0")/.."
results=out/results
mkdir -p "$results/raw"
raw=$results/raw/overhead.json

if [ -z "${TARGET:-}" ]; then
	TARGET=emulated
	if ls /sys/bus/gpio/devices/gpiochip* >/dev/null 2>&1; then
		TARGET=native
	fi
fi
start=$(date +%s)
case $TARGET in
emulated)
	# the main command built every target first (STUDY_BUILT): no second check of it
	[ -n "${STUDY_BUILT:-}" ] || make -s all target KERNEL="${KERNEL:-6.12}"
	# the limit is the host's clock, the work the guest's: under load a part takes many times its
	# CPU (a Debian 13 root, load 14 to 19, nice 5: 123 s of CPU in 900 s); VM_TIMEOUT raises it
	# shellcheck disable=SC2086
	KERNEL=${KERNEL:-6.12} VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-3000} vm/run \
		./gpiolat --overhead --json ${OVERHEAD_ARGS:-} </dev/null >"$raw"
	;;
native)
	make -s all KERNEL=native
	# shellcheck disable=SC2086
	./gpiolat --overhead --json ${OVERHEAD_ARGS:-} >"$raw"
	;;
*)
	echo "overhead-report: TARGET must be emulated or native, not '$TARGET'" >&2
	exit 2
	;;
esac
# the emulated target's clock (vm/run's TIMING, real by default): the caveat says what its ns is
python3 host/overhead.py "$raw" "$results" $([ "$TARGET" = emulated ] && echo "${TIMING:-real}")
echo "overhead-report: $results/overhead.{json,csv,txt,png} in $(($(date +%s) - start)) s" \
	"($TARGET${TIMING:+, TIMING=$TIMING})"
# make bpf-histograms builds the page once, at its end
[ -n "${OVERHEAD_NOREPORT:-}" ] || make -s report
