#!/bin/sh
# The toggler and gpio:gpio_value: the event fires while the toggler runs and is silent while it
# is off, and the module's edge counters equal the set events the tracer recorded.
# kernels: std rt
# timing: icount
. "$(dirname "$0")/lib.sh"

toggle_load
gpio=$(toggle_gpio)
tr_buffer 2048
tr_event gpio/gpio_value "gpio == $gpio && get == 0"

# on, then off
tr_clear
echo 1 >$D/enable
eq "enable reads 1 while toggling" "$(cat $D/enable)" 1
sleep 0.5
echo 0 >$D/enable
on=$(tr_count "gpio_value: $gpio set")
check "gpio_value fires while toggling ($on events)" test "$on" -gt 0
eq "enable reads 0 after enable=0" "$(cat $D/enable)" 0
eq "the line is low after enable=0" "$(line_state)" lo
set -- $(edges)
eq "stopped after a whole pulse: rising = falling" "$1" "$2"
tr_clear
sleep 0.5
eq "gpio_value is silent while off" "$(tr_count "gpio_value: $gpio set")" 0
eq "edges do not move while off" "$(edges)" "$1 $2"

# exactly N pulses: edges = set events, none lost
echo x >$D/reset
eq "reset zeroes edges" "$(edges)" "0 0"
tr_clear
pulses 1000
eq "pulses reads 0 when done" "$(cat $D/pulses)" 0
eq "edges after 1000 pulses" "$(edges)" "1000 1000"
rising=$(tr_count "gpio_value: $gpio set 1\$")
falling=$(tr_count "gpio_value: $gpio set 0\$")
eq "set events seen equal the module's edges" "$rising $falling" "$(edges)"
eq "the ring buffer lost no event" "$(tr_lost)" 0
eq "the ring buffer holds only these events" "$(tr_stat entries)" $((rising + falling))

# pulses while running: N more, counted from the next batch
echo x >$D/reset
tr_clear
echo 1 >$D/enable
sleep 0.2
echo 50 >$D/pulses
while [ "$(cat $D/enable)" != 0 ]; do
	sleep 0.1
done
set -- $(edges)
check "pulses=50 written while running: it stops by itself ($1 pulses)" test "$1" -ge 50
eq "edges still equal set events" "$(tr_count "gpio_value: $gpio set 1\$") \
$(tr_count "gpio_value: $gpio set 0\$")" "$(edges)"

# enable=0 ends a limited run: nothing of it is left for the next enable=1
echo 100000 >$D/pulses
echo 1 >$D/enable
sleep 0.3
echo 0 >$D/enable
eq "enable=0 during a pulses run: pulses reads 0 (the rest dropped)" "$(cat $D/pulses)" 0
echo 20 >$D/pulses
echo 0 >$D/enable
eq "enable=0 drops a count not yet started" "$(cat $D/pulses)" 0
echo x >$D/reset
echo 1 >$D/enable
sleep 0.5
eq "enable=1 after an interrupted run: still toggling (unlimited)" "$(cat $D/enable)" 1
echo 0 >$D/enable
set -- $(edges)
check "enable=1 after an interrupted run toggled until enable=0 ($1 pulses, more than 20)" \
	test "$1" -gt 20

# pulses=0 clears the limit: unlimited
echo 50 >$D/pulses
eq "pulses reads the count written" "$(cat $D/pulses)" 50
check "pulses=0 is accepted" sh -c "echo 0 >$D/pulses"
eq "pulses=0: pulses reads 0" "$(cat $D/pulses)" 0
echo x >$D/reset
echo 1 >$D/enable
sleep 0.5
eq "pulses=0 then enable=1: still toggling (unlimited)" "$(cat $D/enable)" 1
echo 0 >$D/enable
set -- $(edges)
check "pulses=0 then enable=1: more than the 50 written before ($1 pulses)" test "$1" -gt 50
echo 100000 >$D/pulses
echo 1 >$D/enable
sleep 0.3
echo 0 >$D/pulses
sleep 0.3
eq "pulses=0 during a pulses run: pulses reads 0" "$(cat $D/pulses)" 0
eq "pulses=0 during a pulses run: still toggling" "$(cat $D/enable)" 1
echo 0 >$D/enable
check "pulses=x (not a number): refused" sh -c "! echo x 2>/dev/null >$D/pulses"

# reset is refused while toggling
echo 1 >$D/enable
check "reset while toggling: EBUSY" sh -c "! echo x 2>/dev/null >$D/reset"
echo 0 >$D/enable
check "reset when idle" sh -c "echo x >$D/reset"

tr_cleanup
done_testing
