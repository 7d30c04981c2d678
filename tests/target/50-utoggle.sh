#!/bin/sh
# kernels: std 6.12 testing
# timing: icount
# Target: out/bin/utoggle in each mode issues exactly the pulses asked for (gpio:gpio_value
# sets on its line, counted by a hist trigger), prints its timing summary, releases the line
# (and unexports it) on every exit path, and turns bad input into one error line.
. "$(dirname "$0")/lib.sh"

N=500
LINE=1
out=$(mktemp)
err=$(mktemp)
trap 'gv_count_stop; rm -f "$out" "$err"' EXIT

if [ ! -x "$UTOGGLE" ]; then
	notok "utoggle is built: $UTOGGLE is missing (make togglers)"
	done_testing
fi
base=$(vchip_base)
if [ -z "$base" ]; then
	notok "the module's chip toggle-vchip is in /sys/class/gpio"
	done_testing
fi
gpio=$((base + LINE))
before=$(gv_state)

# summary_ok: the summary names the clock and gives count, min, mean, max and sd in ns
summary_ok() {
	grep -q '^# clock: CLOCK_MONOTONIC, resolution [0-9][0-9]* ns' "$out" &&
		grep -q "^pulses: $1 ($(($1 * 2)) sets) in [0-9][0-9]* batches" "$out" &&
		grep -E -q '^ns per set: n [0-9]+, min [0-9.]+ ns, mean [0-9.]+ ns, max [0-9.]+ ns, sd [0-9.]+ ns$' "$out"
}

for mode in ioctl libgpiod sysfs; do
	gv_count_start $gpio
	"$UTOGGLE" -m $mode -l $LINE -c $N >"$out" 2>"$err"
	rc=$?
	rise=$(gv_count 1)
	fall=$(gv_count 0)
	gv_count_stop
	eq "$mode: utoggle -c $N exits with 0" $rc 0
	eq "$mode: rising edges (sets to 1) of gpio $gpio" "$rise" $N
	# requesting the line as an output sets it low once before the first pulse
	eq "$mode: falling edges (sets to 0): one per pulse and one when the line is requested" \
		"$fall" $((N + 1))
	check "$mode: timing summary (clock, count, min, mean, max, sd in ns)" summary_ok $N
	comment "$out"
	check "$mode: nothing on stderr" test ! -s "$err"
done
check "sysfs: gpio$gpio is unexported after the run" test ! -e /sys/class/gpio/gpio$gpio

# Stopped by a signal, by -d, under SCHED_FIFO: summary, exit 0, line free again.
for mode in ioctl sysfs; do
	gv_count_start $gpio
	"$UTOGGLE" -m $mode -l $LINE -C >"$out" 2>"$err" &
	pid=$!
	# its readiness: 20 sets of the line to 1 seen (a signal before the first batch ends
	# would leave no sample to summarise)
	check "$mode: utoggle -C is toggling before the signal" gv_wait_sets 1 20
	gv_count_stop
	kill -INT $pid
	wait $pid
	eq "$mode: SIGINT ends a run without a count with status 0" $? 0
	check "$mode: and prints the summary" grep -q '^ns per set: n ' "$out"
done
check "sysfs: gpio$gpio is unexported after SIGINT" test ! -e /sys/class/gpio/gpio$gpio
"$UTOGGLE" -m libgpiod -l $LINE -d 200ms -p 50 >"$out" 2>"$err"
eq "libgpiod: -d 200ms -p 50 (SCHED_FIFO) exits with 0" $? 0
"$UTOGGLE" -l $LINE -c 1 -i 0 >"$out" 2>"$err"
eq "libgpiod: the line is free again (ioctl mode can request it)" $? 0

# bad_input WHAT ARGS...: non-zero status, one line on stderr, nothing on stdout
bad_input() {
	_what=$1
	shift
	"$UTOGGLE" "$@" >"$out" 2>"$err"
	_rc=$?
	if [ $_rc -ne 0 ] && [ "$(wc -l <"$err")" -eq 1 ] && [ ! -s "$out" ]; then
		ok "$_what: status $_rc, '$(cat "$err")'"
	else
		notok "$_what: status $_rc, stdout '$(cat "$out")', stderr '$(cat "$err")'"
	fi
}
ngpio=$(vchip_ngpio)
bad_input "no such chip label" -g no-such-chip -c 1
bad_input "no such chip device" -g /dev/gpiochip99 -c 1
bad_input "line 0 is the module's (busy)" -l 0 -c 1
bad_input "sysfs: line 0 is busy" -m sysfs -l 0 -c 1
bad_input "line $ngpio is out of range" -l "$ngpio" -c 1
bad_input "count 0" -c 0
bad_input "count not a number" -c 12x
bad_input "count out of range" -c 99999999999999999999999
bad_input "negative line" -l -1 -c 1
bad_input "unknown mode" -m gpiod -c 1
check "sysfs: nothing left exported" test ! -e /sys/class/gpio/gpio$base

if [ "$(gv_state)" = "$before" ]; then
	ok "gpio:gpio_value enable, filter and trigger as found"
else
	notok "gpio:gpio_value enable, filter and trigger: '$(gv_state)', was '$before'"
fi
done_testing
