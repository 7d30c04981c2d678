#!/bin/sh
# rmmod while the toggler runs, in every mode (also with events on and mid-way through a pulses
# run): the module goes, its chip with it, and the kernel log has no warning, oops or BUG (the
# trace_printk() NOTICE banner printed at each load is not a warning).
# kernels: std rt 6.12
# timing: icount
. "$(dirname "$0")/lib.sh"

dmesg_mark
# toggling: until the module's edge counters move (at most 60 s, not a sleep); 1 if never
toggling() {
	_e0=$(awk '{ print $1 + $2 }' $D/edges)
	_i=0
	while [ "$(awk '{ print $1 + $2 }' $D/edges)" -le "$_e0" ]; do
		[ $_i -lt 600 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}
for m in burst continuous printk; do
	toggle_load mode=$m
	echo 1 >$D/enable
	check "mode=$m: toggling" toggling
	check "mode=$m: rmmod while toggling" rmmod toggle
	check "mode=$m: /sys/module/toggle is gone" test ! -e /sys/module/toggle
	check "mode=$m: toggle-vchip is gone" sh -c '! gpiodetect | grep -q toggle-vchip'
done

# with the module's events and gpio:gpio_value on, and a pulses run under way
toggle_load mode=continuous burst=1000
tr_event toggle/toggle_ev5
tr_event toggle/toggle_batch
tr_event gpio/gpio_value
echo 1000000 >$D/pulses
echo 1 >$D/enable
check "a pulses run under way" toggling
check "rmmod during a pulses run with events on" rmmod toggle
tr_cleanup

# a line that user space holds pins the module
toggle_load
dev=$(vchip_dev)
# held: gpiolib names gpioset as line 1's consumer, an output (lib.sh's gpio_line, 1.6 or 2.x)
held() {
	[ "$(gpio_line "$dev" 1)" = "gpioset output" ]
}
# gpioset holding line 1 until it is killed (1.6: --mode=signal; 2.x: its default)
if gpiod_v2; then gpioset -c "$dev" 1=1 & else gpioset --mode=signal "$dev" 1=1 & fi
gpid=$!
# until it is held (at most 60 s, while gpioset lives), not a sleep
i=0
while ! held && [ $i -lt 600 ] && kill -0 $gpid 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
check "gpioset holds line 1" held
check "rmmod refused while user space holds a line" sh -c '! rmmod toggle 2>/dev/null'
kill $gpid
wait $gpid
check "rmmod once the line is released" rmmod toggle

eq "no warning, oops or BUG in the kernel log" "$(dmesg_bad)" ""
check "the trace_printk NOTICE banner was printed (and not taken for a warning)" \
	sh -c 'dmesg | grep -q "trace_printk() being used"'
toggle_load
done_testing
