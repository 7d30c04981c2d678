#!/bin/sh
# Host side: the main job, `make bpf-histograms`.
#
# On a machine without GPIO (or with TARGET=emulated) it builds everything, boots the emulated
# target and runs study/histograms.sh there. On a board with GPIO it runs natively: the toggle
# module is built for the running kernel and loaded to drive the line named by CHIP (a gpiochip
# label) and LINE (its offset), e.g. `make bpf-histograms CHIP=gpio-96-127 LINE=6`.
# Then host/report.py writes out/results/histograms.{json,txt,csv} and the PNG plots, and
# make report the page out/results/report.html (host/report_html.py).
# Environment: TARGET (emulated|native; default: native when this machine has a gpiochip),
# KERNEL (std|rt, emulated target), PULSES, LINEAR_NS (passed to the study).
set -eu
cd "$(dirname "$0")/.."
results=out/results
raw=$results/raw

if [ -z "${TARGET:-}" ]; then
	TARGET=emulated
	if ls /sys/bus/gpio/devices/gpiochip* >/dev/null 2>&1; then
		TARGET=native
	fi
fi

# only this study's files: make overhead-report writes beside them
rm -rf "$raw" "$results"/histograms.* "$results"/gpiolat-*.png "$results"/bpftrace-*.png
mkdir -p "$raw"
start=$(date +%s)
case $TARGET in
emulated)
	make -s all target KERNEL="${KERNEL:-std}"
	KERNEL=${KERNEL:-std} VM_NOMAKE=1 vm/run env PULSES="${PULSES:-}" \
		LINEAR_NS="${LINEAR_NS:-}" sh study/histograms.sh "$raw" </dev/null
	;;
native)
	if [ -z "${CHIP:-}" ] || [ -z "${LINE:-}" ]; then
		echo "bpf-histograms: this machine has GPIO: name the line to toggle, e.g." \
			"make bpf-histograms CHIP=LABEL LINE=OFFSET (or TARGET=emulated)" >&2
		exit 2
	fi
	if [ -d /sys/module/toggle ]; then
		echo "bpf-histograms: the toggle module is already loaded: rmmod toggle first" >&2
		exit 1
	fi
	make -s all KERNEL=native
	insmod out/target/native/toggle.ko chip="$CHIP" line="$LINE"
	trap 'rmmod toggle' EXIT
	rc=0
	# the study's -l: the toggled line as CHIP:OFFSET (a bare number would be a global one)
	LINE="$CHIP:$LINE" sh study/histograms.sh "$raw" || rc=$?
	[ $rc = 0 ] || exit $rc
	;;
*)
	echo "bpf-histograms: TARGET must be emulated or native, not '$TARGET'" >&2
	exit 2
	;;
esac
python3 host/report.py "$raw" "$results" >/dev/null
plots=$(ls "$results"/gpiolat-*.png "$results"/bpftrace-*.png 2>/dev/null | wc -l)
echo "bpf-histograms: $results/histograms.{json,txt,csv} and $plots plots" \
	"in $(($(date +%s) - start)) s"
# the one page: these histograms, and the overhead matrix when make overhead-report has run
make -s report
