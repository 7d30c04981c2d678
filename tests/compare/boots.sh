#!/bin/sh
# Sourced by the tests of tests/compare/ (host side): the boots of the kernels they compare.
# boots NAME CMD...: boots every kernel of $kernels (ARCH=arm, TIMING=icount, built) at the same
# time, each running CMD with the kernel's output folder $out/arm-KERNEL as its last argument
# (its log in $out/arm-KERNEL.log), waits for all, then says per kernel "ok - NAME: arm-KERNEL:
# CMD exits 0 (N s)" or "not ok" with the log's last lines; returns 1 when one failed.
# In parallel: under icount a guest's figures are its instructions, the same whatever else runs on
# the host (docs/timing.md), so two boots at once measure what two in turn would, in less wall
# time on two cores. VM_TIMEOUT: each boot's (default 900 s).
boots() {
	_name=$1
	shift
	for _k in $kernels; do
		(
			_s=$(date +%s)
			KERNEL=$_k ARCH=arm TIMING=icount VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-900} \
				vm/run "$@" "$out/arm-$_k" </dev/null >"$out/arm-$_k.log" 2>&1
			echo "$? $(($(date +%s) - _s))" >"$out/arm-$_k.rc"
		) &
	done
	wait
	_fail=0
	for _k in $kernels; do
		read -r _rc _secs <"$out/arm-$_k.rc"
		if [ "$_rc" = 0 ]; then
			echo "ok - $_name: arm-$_k: $* exits 0 ($_secs s, the boots in parallel)"
		else
			echo "not ok - $_name: arm-$_k: $* exits $_rc ($out/arm-$_k.log)"
			grep -v '^\[' "$out/arm-$_k.log" | tail -n 5 | sed -e 's/^/# /'
			_fail=1
		fi
	done
	return $_fail
}

# study_sh: a script for sh -c that runs the study (sh STUDY DIR: "$1" "$2") with the toggle
# module's mode before it in DIR/module-before and its enable and mode after it in
# DIR/module-after (tests/compare/rt_counts.py judges them); its status the study's
# shellcheck disable=SC2016
study_sh='mkdir -p "$2" && cat /sys/module/toggle/parameters/mode >"$2/module-before" &&
	sh "$1" "$2"; rc=$?; cat /sys/kernel/debug/toggle/enable /sys/module/toggle/parameters/mode \
	>"$2/module-after"; exit $rc'
