#!/bin/sh
# Host side: `make rt-report`. For each kernel of RT_KERNELS (default "std rt"; any target
# `make target KERNEL=...` knows, e.g. "std rt 6.12 6.12-rt"), boots the emulated target of ARCH
# (default: this machine's; ARCH=arm RT_KERNELS="6.12 6.12-rt": Debian 13's armmp and rt-armmp,
# the talk's board class) and runs study/rt.sh in it (raw results in out/results/raw/rt-KERNEL/,
# rt-ARCH-KERNEL/ for another architecture), then host/rt_report.py puts
# the kernels side by side: out/results/rt.{json,csv,txt,png}. On a board (TARGET=native) it
# runs study/rt.sh natively, for the running kernel only.
# Environment: RT_KERNELS, ARCH, TARGET (emulated|native), VM_TIMEOUT, LOAD, and study/rt.sh's PULSES,
# GAP_PULSES, LOOPS, SECONDS_EACH, OVERHEAD_ONLY.
set -eu
cd "$(dirname "$0")/.."
results=out/results
raw=$results/raw
mkdir -p "$raw"
start=$(date +%s)
kernels=${RT_KERNELS:-std rt}
if [ "${TARGET:-emulated}" = native ]; then
	make -s all KERNEL=native
	sh study/rt.sh "$raw/rt-native"
	kernels=native
else
	# the study's settings go into the target with it (vm/run passes no environment)
	set --
	for v in LOAD PULSES GAP_PULSES LOOPS SECONDS_EACH OVERHEAD_ONLY; do
		eval "val=\${$v:-}"
		[ -z "$val" ] || set -- "$@" "$v=$val"
	done
	# another architecture's kernels are named ARCH-KERNEL (rt-arm-6.12-rt/), as tests/run.sh does
	arch=${ARCH:-$(uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')}
	host=$(uname -m | sed -e 's/aarch64/arm64/' -e 's/armv7.*/arm/')
	# what std and rt are here (the host release's kernel), said first (unless the main command
	# said it already: STD_SAID)
	case " $kernels " in
	*" std "* | *" rt "*) [ -n "${STD_SAID:-}" ] || sh vm/std.sh "$arch" ;;
	esac
	names=
	for k in $kernels; do
		n=$k
		[ "$arch" = "$host" ] || n=$arch-$k
		names="$names $n"
		echo "rt-report: kernel $k ($arch)${1:+ ($*)}" >&2
		# the main command built every target first (STUDY_BUILT): no second check of it
		[ -n "${STUDY_BUILT:-}" ] || make -s all target KERNEL="$k" ARCH="$arch"
		KERNEL=$k ARCH=$arch VM_NOMAKE=1 VM_TIMEOUT=${VM_TIMEOUT:-1500} vm/run env "$@" \
			sh study/rt.sh "$raw/rt-$n" </dev/null
	done
	kernels=$names
fi
# shellcheck disable=SC2086
python3 host/rt_report.py "$raw" "$results" $kernels
echo "rt-report: $results/rt.{json,csv,txt,png} in $(($(date +%s) - start)) s" >&2
# the one page, with this study on it
make -s report
