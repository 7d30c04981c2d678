#!/bin/sh
# SIGKILL in the middle of the event-synthetic row leaves our instance with two hist triggers on
# gpio_value (the second one feeding the synthetic event gpiolat_pulse), which keep the instance
# and the event busy. gpiolat --cleanup removes them in dependency order (the triggers, then the
# instance, then the event) and leaves tracefs as it was before the run; so does the next run.
# timing: icount
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/92-overhead-kill-synthetic
mkdir -p $tmp
state() {
	ls $T/instances
	cat $T/synthetic_events $T/events/gpio/gpio_value/trigger $T/events/gpio/gpio_value/enable
}
# killed "how": a run of the row killed while both its triggers are in. The row switches them off
# after each method phase, a few ms under icount, so the run stops itself in its first method
# phase (GPIOLAT_STOP_IN, lib.sh stop_in: at most 120 s of uptime), where they are in and stay
# while the test looks, and is killed there
killed() {
	GPIOLAT_STOP_IN=event-synthetic:1 ./gpiolat --overhead --only event-synthetic --reps 2 \
		>/dev/null 2>&1 &
	pid=$!
	trig=$T/instances/gpiolat/events/gpio/gpio_value/trigger
	check "$1: the run stopped in its method phase" stop_in $pid 120
	check "$1: the row's triggers were in when killed" grep -q onmatch $trig
	kill -9 $pid
	wait $pid 2>/dev/null
}
state >$tmp/before
killed "--cleanup"
./gpiolat --cleanup >$tmp/out 2>$tmp/err
eq "--cleanup after the kill exits 0 ($(cat $tmp/err))" "$?" 0
check "--cleanup says it removed leftovers" grep -q 'removed the leftovers' $tmp/out
state >$tmp/after
check "tracefs as before the run (instances, synthetic events, gpio_value)" \
	cmp -s $tmp/before $tmp/after
killed "the next run"
./gpiolat --overhead --quick --only control >$tmp/out 2>$tmp/err
eq "the next run after the kill exits 0 ($(tail -n 1 $tmp/err))" "$?" 0
state >$tmp/after
check "tracefs as before, after the next run" cmp -s $tmp/before $tmp/after
done_testing
