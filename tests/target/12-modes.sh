#!/bin/sh
# The toggler's modes: burst (bursts of `burst` pulses, msleep(1) between), continuous (back to
# back) and printk (a trace_printk() before each set); exact pulse counts in each.
# kernels: std rt
# timing: icount
. "$(dirname "$0")/lib.sh"

tr_buffer 2048
for m in burst continuous printk; do
	toggle_load mode=$m
	eq "mode=$m: the parameter" "$(cat /sys/module/toggle/parameters/mode)" $m
	pulses 200
	eq "mode=$m: 200 pulses" "$(edges)" "200 200"
	eq "mode=$m: 40 batches of 5" "$(awk '$2 == 5' $D/batches | wc -l)" 40
	echo 1 >$D/enable
	sleep 0.3
	echo 0 >$D/enable
	set -- $(edges)
	check "mode=$m: enable=1 toggles until enable=0 ($1 pulses)" test "$1" -gt 200
	eq "mode=$m: stopped after a whole pulse" "$2" "$1"
	eq "mode=$m: the line is low" "$(line_state)" lo
done

# printk: one "gpio-toggle" line before each set, in the trace buffer
tr_clear
pulses 100
n=$(tr_count 'gpio-toggle$')
eq "mode=printk: trace_printk lines in the trace, one a set" "$n" 200
eq "mode=printk: the ring buffer lost none" "$(tr_lost)" 0

# the other modes print nothing
toggle_load mode=continuous
tr_clear
pulses 100
eq "mode=continuous: no trace_printk lines" "$(tr_count 'gpio-toggle$')" 0

# burst size: a pulses run ends with a shorter batch
toggle_load burst=7
pulses 20
eq "burst=7, pulses 20: batches of 7 7 6" "$(awk '{ printf "%s%s", s, $2; s = " " }' $D/batches)" \
	"7 7 6"
eq "burst=7, pulses 20: edges" "$(edges)" "20 20"

toggle_load
tr_cleanup
done_testing
