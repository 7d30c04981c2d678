#!/bin/sh
# Target: a falling edge with no stored start is counted unmatched, never histogrammed; a
# second rising edge keeps the first start; the tracepoint and the kprobe, attached together to
# the same pulses, put their mode in the same or an adjacent log2 bucket; SIGINT ends a run
# cleanly.
. "$(dirname "$0")/lib.sh"

GPIOLAT=${GPIOLAT:-./gpiolat}
out=$(mktemp)
kout=$(mktemp)
trap 'rm -f "$out" "$kout"' EXIT

sumfield() { # sumfield NAME FILE
	sed -n "s/^# summary .* $1=\([0-9]*\).*/\1/p" "$2" | head -n 1
}
ours_left() {
	bpftool prog show 2>/dev/null | grep -c 'gpiolat_'
}
# wait_attached PROG: until bpftool lists it (at most 10 s)
wait_attached() {
	i=0
	while [ $i -lt 100 ] && ! bpftool prog show 2>/dev/null | grep -q "$1"; do
		sleep 0.1
		i=$((i + 1))
	done
}
# mode FILE: the low bound of the log2 bucket with the most pulses
mode() {
	awk '/^# gpio=.*kind=log2/ { inblk = 1; next } /^# gpio=/ { inblk = 0 }
		inblk && /^[0-9]/ && $3 > max { max = $3; lo = $1 } END { print lo }' "$1"
}

if [ ! -d "$D" ] || ! command -v gpioset >/dev/null; then
	skip "unmatched: needs the toggle module and gpioset"
else
	# line 1 of the module's chip is free: set it high before gpiolat starts
	gpioset -m exit toggle-vchip 1=1
	$GPIOLAT -l toggle-vchip:1 --csv -d 30 >"$out" 2>&1 &
	pid=$!
	wait_attached gpiolat_tp
	gpioset -m exit toggle-vchip 1=0 # falling, no start: unmatched
	gpioset -m exit toggle-vchip 1=1 # a pulse
	gpioset -m exit toggle-vchip 1=1 # rising again: the first start is kept
	gpioset -m exit toggle-vchip 1=0
	kill -INT $pid
	wait $pid
	eq "SIGINT ends gpiolat with status 0" "$?" 0
	eq "the first falling edge is unmatched" "$(sumfield unmatched "$out")" 1
	eq "one pulse histogrammed" "$(sumfield count "$out")" 1
	eq "the second rising edge counted as rising again" "$(sumfield rising_again "$out")" 1
	eq "sets seen" "$(sumfield events "$out")" 4
	eq "no program of ours left loaded" "$(ours_left)" 0
fi

if [ ! -d "$D" ]; then
	skip "same-run mode: the toggle module is not loaded"
	done_testing
fi
# the kprobe in the background, the tracepoint driving the pulses: both see the same pulses
$GPIOLAT --kprobe -l toggle-vchip:0 --csv >"$kout" 2>&1 &
kpid=$!
wait_attached gpiolat_kprobe
$GPIOLAT -l toggle-vchip:0 --pulses 300 --untraced 0 --csv >"$out" 2>&1
eq "tracepoint run with --pulses 300" "$?" 0
kill -INT $kpid
wait $kpid
eq "kprobe run ended by SIGINT" "$?" 0
eq "tracepoint saw 300 pulses" "$(sumfield count "$out")" 300
eq "kprobe saw 300 pulses" "$(sumfield count "$kout")" 300
tm=$(mode "$out")
km=$(mode "$kout")
if [ -n "$tm" ] && [ -n "$km" ] && { [ "$tm" = "$km" ] || [ "$tm" = $((km * 2)) ] ||
	[ "$km" = $((tm * 2)) ]; }; then
	ok "tracepoint and kprobe modes in the same or adjacent log2 bucket ($tm ns, $km ns)"
else
	notok "tracepoint and kprobe modes apart: '$tm' ns vs '$km' ns"
fi
eq "no program of ours left loaded" "$(ours_left)" 0
done_testing
