#!/bin/sh
# kernels: std 6.12 6.12-rt testing testing-rt arm-6.12 arm-6.12-rt arm64-6.12 arm64-6.12-rt arm-testing arm64-testing arm64-testing-rt
# timing: icount
# Target: every script of ply/ runs while a toggler runs and prints a log2 histogram whose
# total count is what was issued: delta and dt-kprobe see the module's pulses (debugfs
# "pulses"), ioctl sees the two GPIO_V2_LINE_SET_VALUES_IOCTL of each pulse of utoggle -c N;
# neither tool reports a lost event. The bpftrace twins (.bt) run where the root has bpftrace
# (host_tool), the .ply scripts where it has Debian's ply; a root whose apt has a candidate for
# ply but no ply fails (release_tool). Each run is bounded in time (tool_wait).
. "$(dirname "$0")/lib.sh"

N=200
# seconds a tool may take for one run: start-up (bpftrace 2 to 5 s, ply under 1 s under
# emulation), N pulses of the module (a few seconds) or 2N ioctls, and the print
LIMIT=180
tmp=$(mktemp -d)
trap 'echo 0 >$D/enable 2>/dev/null; rm -rf "$tmp"' EXIT

if [ ! -d $D ]; then
	notok "the toggle module is loaded ($D)"
	done_testing
fi
# The command the tracer starts once its probes are attached: note the time, then issue N
# pulses with the module and wait until they are done.
# Its last step creates "done" (tool_wait).
cat >"$tmp/pulses.sh" <<EOS
date +%s.%N >"$tmp/started"
. "$PROJ/tests/target/lib.sh"
pulses \$1
: >"$tmp/done"
EOS
cat >"$tmp/utoggle.sh" <<EOS
date +%s.%N >"$tmp/started"
"$UTOGGLE" -l 1 -c \$1
rc=\$?
: >"$tmp/done"
exit \$rc
EOS

# traced TOOL SCRIPT CMD WANT: run TOOL on SCRIPT with CMD ("pulses" or "utoggle") as the
# command it starts, and check that the histograms count WANT events and nothing was lost
traced() {
	_tool=$1
	_script=$PROJ/ply/$2
	_name=$2
	rm -f "$tmp/started" "$tmp/done"
	_t0=$(date +%s.%N)
	$_tool -c "/bin/sh $tmp/$3.sh $N" "$_script" >"$tmp/out" 2>"$tmp/err" &
	_pid=$!
	tool_wait $_pid "$tmp/done" $LIMIT
	wait $_pid
	_rc=$?
	_t1=$(date +%s.%N)
	if [ $_stopped = timeout ]; then
		notok "$_name: $_tool ends (within $LIMIT s, and a minute after its command): SIGKILL"
	else
		[ $_stopped = sigint ] &&
			echo "# $_name: $_tool still ran 10 s after its command ended: stopped with SIGINT"
		eq "$_name: $_tool exits with 0" $_rc 0
	fi
	if [ -s "$tmp/err" ]; then
		echo "# stderr of $_tool:"
		comment "$tmp/err"
	fi
	_total=$(hist_total "$tmp/out")
	eq "$_name: histogram total count = $4 ($3 $N)" "$_total" "$4"
	# ply prints "lost N events" (its perf buffer), bpftrace "Lost N events", both on stderr
	_lost=$(sed -n 's/.*[Ll]ost \([0-9][0-9]*\) events.*/\1/p' "$tmp/err" "$tmp/out" |
		awk '{ n += $1 } END { print n + 0 }')
	eq "$_name: $_tool lost no event" "$_lost" 0
	comment "$tmp/out"
	if [ -f "$tmp/started" ]; then
		awk -v t0="$_t0" -v t1="$_t1" -v s="$(cat "$tmp/started")" -v n="$_name" -v t="$_tool" \
			'BEGIN { printf "# %s: %s start-up (launch to probes attached) %.2f s, whole run %.2f s (emulated target)\n", n, t, s - t0, t1 - t0 }'

	fi
}

if host_tool bpftrace; then
	echo "# $(bpftrace --version)"
	traced bpftrace delta.bt pulses $N
	traced bpftrace dt-kprobe.bt pulses $N
	traced bpftrace ioctl.bt utoggle $((2 * N))
fi

if release_tool ply ply; then
	# Debian's ply -v prints no version of its own ("ply  (linux-version:...)"): the package's
	echo "# ply $(dpkg-query -W -f='${Version}' ply 2>/dev/null || echo "(no dpkg)"): $(ply -v)"
	traced ply delta.ply pulses $N
	traced ply dt-kprobe.ply pulses $N
	traced ply ioctl.ply utoggle $((2 * N))
fi
done_testing
