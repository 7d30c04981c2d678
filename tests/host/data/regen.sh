#!/bin/sh
# Host side: regenerate the report fixtures that come from a real run of the current loader
# (never written by hand): study/histograms.sh with 200 pulses in the emulated x86_64 target
# (about 1 min), its raw files into tests/host/data/report/raw/ and host/report.py's
# histograms.json from them, as make bpf-histograms does; gpiolat --overhead --json --quick
# (about 5 min under emulation), through host/overhead.py as make overhead-report does, into
# tests/host/data/report/overhead.json; gpiolat --wakeup, --path and --gaps (the module
# reloaded mode=continuous, as study/rt.sh does) into tests/host/data/loader/, read by
# tests/host/test_results.py; the outside observer as make bpf-histograms runs it (the ARM
# target's PL061 traced by qemu, real time, about 30 s: host/bpf-histograms.sh part_observer)
# into tests/host/data/report/observer.json; then make-fixtures.py, which derives rt.json's
# overhead subset and bench-gpio.json from it; then regen-compare.sh (two --overhead runs,
# 6.1 and testing's newest in TIMING=icount, into tests/host/data/compare/); then make
# matrix-armhf's matrix.json (Debian 13's armhf 6.12, standard and RT, icount).
# Usage: sh tests/host/data/regen.sh
# Environment: KERNEL (default std), OVERHEAD_ARGS (default "--quick").
set -eu
cd "$(dirname "$0")/../../.."
data=tests/host/data/report
tmp=$(mktemp -d)
# the target writes its raw files into the project (shared over 9p), not into the host's /tmp
rawtmp=out/regen-raw
trap 'rm -rf "$tmp" "$rawtmp"' EXIT
make -s all target KERNEL="${KERNEL:-std}" ARCH=x86_64
rm -rf "$rawtmp"
mkdir -p "$rawtmp"
KERNEL=${KERNEL:-std} ARCH=x86_64 VM_NOMAKE=1 VM_TIMEOUT=1800 \
	vm/run env PULSES=200 sh study/histograms.sh "$rawtmp" </dev/null
rm -f "$data"/raw/gpiolat-* "$data"/raw/bpftrace-*
cp "$rawtmp"/* "$data/raw/"
python3 host/report.py "$data/raw" "$tmp/histograms" >/dev/null
cp "$tmp/histograms/histograms.json" "$data/histograms.json"
rm -rf "$rawtmp"/*
# shellcheck disable=SC2016
KERNEL=${KERNEL:-std} ARCH=x86_64 VM_NOMAKE=1 VM_TIMEOUT=1800 vm/run sh -c '
	o=$1
	./gpiolat --wakeup --comm toggle --pulses 200 --json >"$o/wakeup.json" || exit 1
	./gpiolat --path --json -r 2 >"$o/gpio-path.json" || exit 1
	params=
	for p in burst nlines line prio; do
		v=$(cat /sys/module/toggle/parameters/$p 2>/dev/null) || continue
		params="$params $p=$v"
	done
	rmmod toggle && insmod "$GPIOLAT_KMOD" $params mode=continuous || exit 1
	./gpiolat --gaps --threshold 100us --pulses 2000 --json >"$o/gaps.json"' sh "$rawtmp" </dev/null
cp "$rawtmp"/wakeup.json "$rawtmp"/gpio-path.json "$rawtmp"/gaps.json tests/host/data/loader/
# shellcheck disable=SC2086
KERNEL=${KERNEL:-std} ARCH=x86_64 VM_NOMAKE=1 VM_TIMEOUT=1800 \
	vm/run ./gpiolat --overhead --json ${OVERHEAD_ARGS:---quick} </dev/null >"$tmp/raw.json"
python3 host/overhead.py "$tmp/raw.json" "$tmp/results" >/dev/null
cp "$tmp/results/overhead.json" "$data/overhead.json"
make -s all target KERNEL=std ARCH=arm
TIMING=real ARCH=arm KERNEL=std VM_NOMAKE=1 TOGGLE_ARGS="chip=9030000.pl061 line=0" \
	VM_TRACE="$PWD/$rawtmp/pl061.trace" vm/run ./gpiolat --overhead --json --reps 5 \
	--only bpf-gpiolat-tracepoint,bpf-empty-tracepoint,bpf-gpiolat-kprobe </dev/null \
	>"$tmp/observer-overhead.json"
python3 host/pl061_trace.py "$rawtmp/pl061.trace" --overhead "$tmp/observer-overhead.json" \
	--json >"$data/observer.json"
PYTHONDONTWRITEBYTECODE=1 python3 "$data/make-fixtures.py"
# two runs compared (host/compare.py): 6.1 and testing's newest, x86_64, TIMING=icount
sh tests/host/data/regen-compare.sh
# the talk's matrix on armhf 6.12, standard and RT (make matrix-armhf: two boots, icount)
sh host/matrix-armhf.sh
cp out/results/matrix.json "$data/matrix.json"
echo "regen: $data/overhead.json from $(git describe --always --dirty 2>/dev/null || echo '?')," \
	"and the fixtures derived from it"
