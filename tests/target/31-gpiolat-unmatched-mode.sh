#!/bin/sh
# kernels: std 6.12 testing
# timing: icount
# Target: a falling edge with no stored start is counted unmatched, never histogrammed; a
# second rising edge keeps the first start; the tracepoint, the kprobe and the bpftrace twins
# (ply/delta.bt, ply/dt-kprobe.bt), attached together to the same pulses, put their mode in the
# same or an adjacent log2 bucket; SIGINT ends a run cleanly.
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
# wait_attached PROG: until bpftool lists it (at most 600 polls, 60 s of uptime: under icount
# gpiolat's start-up reads its binary over 9p while the guest's clock runs on, as 05's
# gpiolat_ready's 60 s)
wait_attached() {
	i=0
	while [ $i -lt 600 ] && ! bpftool prog show 2>/dev/null | grep -q "$1"; do
		sleep 0.1
		i=$((i + 1))
	done
}
# mode FILE: the low bound of the log2 bucket with the most pulses
mode() {
	awk '/^# gpio=.*kind=log2/ { inblk = 1; next } /^# gpio=/ { inblk = 0 }
		inblk && /^[0-9]/ && $3 > max { max = $3; lo = $1 } END { print lo }' "$1"
}

if [ ! -d "$D" ]; then
	notok "unmatched: the toggle module is loaded"
elif host_tool gpioset; then
	# line 1 of the module's chip is free: set it high before gpiolat starts
	dev=$(vchip_dev)
	gpio_set "$dev" 1=1
	$GPIOLAT -l toggle-vchip:1 --csv -d 30 >"$out" 2>&1 &
	pid=$!
	wait_attached gpiolat_tp
	gpio_set "$dev" 1=0 # falling, no start: unmatched
	gpio_set "$dev" 1=1 # a pulse
	gpio_set "$dev" 1=1 # rising again: the first start is kept
	gpio_set "$dev" 1=0
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
	notok "same-run mode: the toggle module is loaded"
	done_testing
fi
# adjacent A B: two log2 bucket bounds are the same or neighbours
adjacent() {
	[ -n "$1" ] && [ -n "$2" ] && { [ "$1" = "$2" ] || [ "$1" = $(($2 * 2)) ] ||
		[ "$2" = $(($1 * 2)) ]; }
}
# bt_mode FILE: the low bound (ns) of the fullest bucket of a bpftrace hist ("[2K, 4K) 460 |@@|")
bt_mode() {
	awk '/^\[/ { lo = $1; sub(/^\[/, "", lo); sub(/,$/, "", lo); n = $3 + 0
		m = 1; if (lo ~ /K$/) m = 1024; if (lo ~ /M$/) m = 1048576; sub(/[KM]$/, "", lo)
		if (n > max) { max = n; mode = lo * m } } END { print mode }' "$1"
}
# bt_total FILE: the pulses a bpftrace hist counted
bt_total() {
	awk '/^\[/ { s += $3 } END { print s + 0 }' "$1"
}
# bt_start SCRIPT OUT: bpftrace in the background; returns when its probes are attached (as the
# kernel lists them: bt_attached), not ok when they never were
bt_start() {
	bpftrace "$1" >"$2" 2>"$2.err" &
	_pid=$!
	_n=$(bt_probes "$1")
	check "bpftrace $1: its $_n kernel probe(s) attached" bt_attached $_pid "$_n"
}

# the kprobe and the bpftrace twins in the background (--no-toggle: they only watch), the
# tracepoint driving the pulses: all of them see the same pulses
$GPIOLAT --kprobe --no-toggle -l toggle-vchip:0 --csv >"$kout" 2>&1 &
kpid=$!
wait_attached gpiolat_kprobe
bt=
if host_tool bpftrace; then
	bt_start ply/delta.bt "$out.bt-tp"
	btp=$_pid
	bt_start ply/dt-kprobe.bt "$out.bt-kp"
	bkp=$_pid
	bt=1
fi
$GPIOLAT -l toggle-vchip:0 --pulses 300 --untraced 0 --csv >"$out" 2>&1
eq "tracepoint run with --pulses 300" "$?" 0
kill -INT $kpid
wait $kpid
eq "kprobe run ended by SIGINT" "$?" 0
eq "tracepoint saw 300 pulses" "$(sumfield count "$out")" 300
eq "kprobe saw 300 pulses" "$(sumfield count "$kout")" 300
tm=$(mode "$out")
km=$(mode "$kout")
if adjacent "$tm" "$km"; then
	ok "tracepoint and kprobe modes in the same or adjacent log2 bucket ($tm ns, $km ns)"
else
	notok "tracepoint and kprobe modes apart: '$tm' ns vs '$km' ns"
fi
if [ -n "$bt" ]; then
	kill -INT $btp $bkp
	wait $btp $bkp
	eq "delta.bt saw 300 pulses" "$(bt_total "$out.bt-tp")" 300
	eq "dt-kprobe.bt saw 300 pulses" "$(bt_total "$out.bt-kp")" 300
	m1=$(bt_mode "$out.bt-tp")
	m2=$(bt_mode "$out.bt-kp")
	if adjacent "$tm" "$m1"; then
		ok "delta.bt's mode next to gpiolat's tracepoint mode ($m1 ns, $tm ns)"
	else
		notok "delta.bt's mode apart from gpiolat's tracepoint mode: '$m1' ns vs '$tm' ns"
	fi
	if adjacent "$km" "$m2"; then
		ok "dt-kprobe.bt's mode next to gpiolat's kprobe mode ($m2 ns, $km ns)"
	else
		notok "dt-kprobe.bt's mode apart from gpiolat's kprobe mode: '$m2' ns vs '$km' ns"
	fi
	rm -f "$out".bt-*
fi
eq "no program of ours left loaded" "$(ours_left)" 0
done_testing
