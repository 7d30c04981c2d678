#!/bin/sh
# rmmod while the toggler runs, in every mode (also with events on and mid-way through a pulses
# run): the module goes, its chip with it, and the kernel log has no warning, oops or BUG (the
# trace_printk() NOTICE banner printed at each load is not a warning).
# kernels: std rt
. "$(dirname "$0")/lib.sh"

dmesg_mark
for m in burst continuous printk; do
	toggle_load mode=$m
	echo 1 >$D/enable
	sleep 0.3
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
sleep 0.3
check "rmmod during a pulses run with events on" rmmod toggle
tr_cleanup

# a line that user space holds pins the module
toggle_load
dev=$(vchip_dev)
gpioset --mode=time --sec=3 "$dev" 1=1 &
sleep 1
check "rmmod refused while user space holds a line" sh -c '! rmmod toggle 2>/dev/null'
wait
check "rmmod once the line is released" rmmod toggle

eq "no warning, oops or BUG in the kernel log" "$(dmesg_bad)" ""
check "the trace_printk NOTICE banner was printed (and not taken for a warning)" \
	sh -c 'dmesg | grep -q "trace_printk() being used"'
toggle_load
done_testing
