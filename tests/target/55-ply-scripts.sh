#!/bin/sh
# kernels: std 6.12 testing
# Target: every script of ply/ runs while a toggler runs and prints a log2 histogram whose
# total count is what was issued: delta and dt-kprobe see the module's pulses (debugfs
# "pulses"), ioctl sees the two GPIO_V2_LINE_SET_VALUES_IOCTL of each pulse of utoggle -c N.
# The bpftrace twins (.bt) always run; the .ply scripts only when ply is on PATH.
. "$(dirname "$0")/lib.sh"

N=200
tmp=$(mktemp -d)
trap 'echo 0 >$D/enable 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -d $D ]; then
	notok "the toggle module is loaded ($D)"
	done_testing
fi
# The command the tracer starts once its probes are attached: note the time, then issue N
# pulses with the module and wait until they are done.
cat >"$tmp/pulses.sh" <<EOF
date +%s.%N >"$tmp/started"
. "$PROJ/tests/target/lib.sh"
pulses \$1
EOF
cat >"$tmp/utoggle.sh" <<EOF
date +%s.%N >"$tmp/started"
exec "$UTOGGLE" -l 1 -c \$1
EOF

# traced TOOL SCRIPT CMD WANT: run TOOL on SCRIPT with CMD ("pulses" or "utoggle") as the
# command it starts, and check that the histograms count WANT events
traced() {
	_tool=$1
	_script=$PROJ/ply/$2
	_name=$2
	rm -f "$tmp/started"
	_t0=$(date +%s.%N)
	$_tool -c "/bin/sh $tmp/$3.sh $N" "$_script" >"$tmp/out" 2>"$tmp/err"
	_rc=$?
	_t1=$(date +%s.%N)
	eq "$_name: $_tool exits with 0" $_rc 0
	if [ -s "$tmp/err" ]; then
		echo "# stderr of $_tool:"
		comment "$tmp/err"
	fi
	_total=$(hist_total "$tmp/out")
	eq "$_name: histogram total count = $4 ($3 $N)" "$_total" "$4"
	comment "$tmp/out"
	if [ -f "$tmp/started" ]; then
		awk -v t0="$_t0" -v t1="$_t1" -v s="$(cat "$tmp/started")" -v n="$_name" -v t="$_tool" \
			'BEGIN { printf "# %s: %s start-up (launch to probes attached) %.2f s, whole run %.2f s (emulated target)\n", n, t, s - t0, t1 - t0 }'

	fi
}

traced bpftrace delta.bt pulses $N
traced bpftrace dt-kprobe.bt pulses $N
traced bpftrace ioctl.bt utoggle $((2 * N))

if command -v ply >/dev/null; then
	traced ply delta.ply pulses $N
	traced ply dt-kprobe.ply pulses $N
	traced ply ioctl.ply utoggle $((2 * N))
else
	skip "delta.ply, dt-kprobe.ply, ioctl.ply: ply is not on PATH (it is not packaged)"
fi
done_testing
