#!/bin/sh
# Host side: `make matrix-armhf`, the talk's whole overhead matrix on its board class: Debian
# 13's armhf 6.12, standard and PREEMPT_RT (ARM KERNEL=6.12 and 6.12-rt, on Debian 13's armhf
# root: ply, bpftrace, libgpiod 2, strace), each booted in turn in TIMING=icount (the
# deterministic clock, docs/timing.md), study/matrix.sh there (every method of gpiolat
# --overhead, MATRIX_ARGS, default --quick; the user space's versions as measured there), then
# host/matrix.py side by side beside the talk with Spearman's rho per kernel:
# out/results/matrix.{json,txt}, and the page (make report) gets its section.
# Environment: MATRIX_KERNELS (default "6.12 6.12-rt"), MATRIX_ARGS, VM_TIMEOUT.
. "$(dirname "$0")/study-env.sh"
set --
for k in ${MATRIX_KERNELS:-6.12 6.12-rt}; do
	echo "matrix-armhf: kernel $k (arm, TIMING=icount)" >&2
	make -s all target KERNEL="$k" ARCH=arm
	rm -rf "$raw/matrix-arm-$k"
	# shellcheck disable=SC2086
	KERNEL=$k ARCH=arm TIMING=icount VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-2400} vm/run \
		sh study/matrix.sh "$raw/matrix-arm-$k" ${MATRIX_ARGS:---quick} </dev/null
	set -- "$@" "arm-$k=$raw/matrix-arm-$k"
done
python3 host/matrix.py "$results" icount "$@"
echo "matrix-armhf: $results/matrix.{json,txt} in $(($(date +%s) - start)) s" >&2
make -s report
