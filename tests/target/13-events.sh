#!/bin/sh
# The module's trace events: toggle_ev0..9 and toggle_batch exist under tracefs with their
# fields, and fire only when enabled, each on every set.
# kernels: std rt
# timing: icount
. "$(dirname "$0")/lib.sh"

toggle_load
gpio=$(toggle_gpio)
for i in 0 1 2 3 4 5 6 7 8 9; do
	f=$T/events/toggle/toggle_ev$i/format
	if grep -q 'field:u32 gpio;' $f && grep -q 'field:u32 value;' $f; then
		ok "toggle_ev$i: u32 gpio, u32 value"
	else
		notok "toggle_ev$i: u32 gpio, u32 value: $(grep 'field:' $f | tail -n 2 | tr -s '\t\n' '  ')"
	fi
done
f=$T/events/toggle/toggle_batch/format
check "toggle_batch: u64 seq, u32 pulses, u64 ns" sh -c "grep -q 'field:u64 seq;' $f &&
	grep -q 'field:u32 pulses;' $f && grep -q 'field:u64 ns;' $f"

tr_buffer 2048
tr_clear
pulses 100
eq "all disabled: no toggle event" "$(tr_count 'toggle_(ev[0-9]|batch):')" 0

# ev0 and ev3 only
tr_event toggle/toggle_ev0
tr_event toggle/toggle_ev3
tr_clear
pulses 100
for i in 0 1 2 3 4 5 6 7 8 9; do
	want=0
	[ $i = 0 ] || [ $i = 3 ] && want=200
	eq "ev0 and ev3 enabled: toggle_ev$i" "$(tr_count "toggle_ev$i: gpio=$gpio value=[01]\$")" $want
done
eq "toggle_ev0: value=1 on the rising sets" "$(tr_count 'toggle_ev0: .* value=1$')" 100
eq "no event lost" "$(tr_lost)" 0
tr_event_off toggle/toggle_ev0
tr_event_off toggle/toggle_ev3

# toggle_batch: one per batch, after it
tr_event toggle/toggle_batch
tr_clear
pulses 100
eq "toggle_batch: 20 batches of 5" "$(tr_count 'toggle_batch: seq=[0-9]+ pulses=5 ns=[1-9][0-9]*$')" 20
eq "toggle_batch: seq as in batches" \
	"$(sed -n 's/.*toggle_batch: seq=\([0-9]*\) pulses=\([0-9]*\) ns=\([0-9]*\)$/\1 \2 \3/p' $T/trace |
		tail -n 20 | tr '\n' ' ')" "$(tail -n 20 $D/batches | tr '\n' ' ')"
tr_event_off toggle/toggle_batch

tr_clear
pulses 100
eq "disabled again: no toggle event" "$(tr_count 'toggle_(ev[0-9]|batch):')" 0

tr_cleanup
done_testing
