#!/bin/sh
# Host side: the main job, `make bpf-histograms`.
#
# On a machine without GPIO (or with TARGET=emulated) it builds everything, boots the emulated
# target and runs study/histograms.sh there. On a board with GPIO it runs natively: the toggle
# module is built for the running kernel and loaded to drive the line named by CHIP (a gpiochip
# label) and LINE (its offset), e.g. `make bpf-histograms CHIP=gpio-96-127 LINE=6`.
# Then host/report.py writes out/results/histograms.{json,txt,csv} and the PNG plots. The rest
# of the study follows, each part in its own run (never while another is measuring): the
# overhead matrix (host/overhead-report.sh: out/results/overhead.*) and the GPIO path
# (gpiolat --path --json: out/results/gpio-path.json); make report then writes the one page,
# out/results/report.html (host/report_html.py).
# Environment: TARGET (emulated|native; default: native when this machine has a gpiochip),
# KERNEL (std|rt|6.12|6.12-rt, emulated target), PULSES, LINEAR_NS (passed to the study),
# STUDIES (default "histograms overhead path": the parts to run; the page shows the others as
# not run), OVERHEAD_ARGS (e.g. --quick), PATH_ARGS (e.g. "-r 5"), and vm/run's ARCH and TIMING
# (real|icount: the emulated target's clock, docs/timing.md), which reach every vm/run below.
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

STUDIES=${STUDIES:-histograms overhead path}
for s in $STUDIES; do
	case $s in
	histograms | overhead | path) ;;
	*)
		echo "bpf-histograms: STUDIES: '$s' is not one of histograms, overhead, path" >&2
		exit 2
		;;
	esac
done
want() { case " $STUDIES " in *" $1 "*) return 0 ;; esac; return 1; }
start=$(date +%s)

# the GPIO path, after the histograms and the matrix: gpiolat --path --json into RESULTS
gpio_path() {
	echo "  RUN     gpiolat --path ${PATH_ARGS:-}" >&2
	_rc=0
	case $TARGET in
	emulated)
		# the module toggling back to back (its kernel phases: big batches, no sleeps between)
		# shellcheck disable=SC2086
		KERNEL=${KERNEL:-std} VM_NOMAKE=1 VM_TIMEOUT=900 \
			TOGGLE_ARGS="mode=continuous burst=1000" vm/run ./gpiolat --path --json \
			${PATH_ARGS:-} </dev/null >"$results/gpio-path.json.tmp" || _rc=$?
		;;
	native)
		# shellcheck disable=SC2086
		./gpiolat --path --json ${PATH_ARGS:-} >"$results/gpio-path.json.tmp" || _rc=$?
		;;
	esac
	if [ $_rc != 0 ]; then
		rm -f "$results/gpio-path.json.tmp"
		echo "bpf-histograms: gpiolat --path failed (exit status $_rc)" >&2
		return 1
	fi
	mv "$results/gpio-path.json.tmp" "$results/gpio-path.json"
	echo "bpf-histograms: $results/gpio-path.json" >&2
}

mkdir -p "$results"
if ! want histograms; then
	want overhead && OVERHEAD_NOREPORT=1 sh host/overhead-report.sh
	want path && { [ "$TARGET" = native ] || make -s all target KERNEL="${KERNEL:-std}"; } &&
		gpio_path
	make -s report
	exit 0
fi

# only this study's files: make overhead-report writes beside them
rm -rf "$raw" "$results"/histograms.* "$results"/gpiolat-*.png "$results"/bpftrace-*.png
mkdir -p "$raw"
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
	# the matrix and the path need the module on the board's line too
	if want overhead; then
		OVERHEAD_NOREPORT=1 TARGET=native sh host/overhead-report.sh || exit $?
	fi
	if want path; then
		gpio_path || exit $?
	fi
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
if [ "$TARGET" = emulated ]; then
	want overhead && OVERHEAD_NOREPORT=1 sh host/overhead-report.sh
	want path && gpio_path
fi
# the one page: every study whose results are in out/results
make -s report
echo "bpf-histograms: the whole study in $(($(date +%s) - start)) s" \
	"($TARGET${TIMING:+, TIMING=$TIMING})"
