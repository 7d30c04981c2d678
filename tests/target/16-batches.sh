#!/bin/sh
# The batch timing ring (batches), its clock (clock), reset, and the gpio file.
# kernels: std rt testing arm64-testing
# timing: icount
. "$(dirname "$0")/lib.sh"

toggle_load
clock=$(cat $D/clock)
res=$(echo "$clock" | sed -n 's/^ktime_get_ns CLOCK_MONOTONIC resolution_ns=\([0-9][0-9]*\)$/\1/p')
check "clock parses: $clock" test -n "$res"
check "clock resolution is positive" test "${res:-0}" -gt 0

eq "no batches after load" "$(wc -l <$D/batches)" 0
pulses 50
eq "pulses 50, burst 5: 10 batches" "$(wc -l <$D/batches)" 10
eq "batches: seq 0..9, 5 pulses each" "$(awk '{ printf "%s:%s ", $1, $2 }' $D/batches)" \
	"0:5 1:5 2:5 3:5 4:5 5:5 6:5 7:5 8:5 9:5 "
eq "batches: every ns positive" "$(awk '$3 <= 0' $D/batches | wc -l)" 0
eq "batches: three fields a line" "$(awk 'NF != 3' $D/batches | wc -l)" 0
eq "reading does not consume" "$(wc -l <$D/batches)" 10
pulses 5
eq "seq goes on" "$(tail -n 1 $D/batches | cut -d ' ' -f 1,2)" "10 5"
echo 1 >$D/reset
eq "reset empties the ring" "$(wc -l <$D/batches)" 0
pulses 10
eq "seq restarts at 0 after reset" "$(awk '{ printf "%s ", $1 }' $D/batches)" "0 1 "
eq "edges agree with the batches' pulses" "$(edges)" \
	"$(awk '{ n += $2 } END { print n, n }' $D/batches)"
echo "# mean ns per set over $(wc -l <$D/batches) batches: $(batches_mean) (emulated)"

# the ring keeps the last 4096 batches, oldest first
toggle_load mode=continuous burst=1
pulses 4100
eq "4100 batches: the ring holds 4096" "$(wc -l <$D/batches)" 4096
eq "the oldest kept is seq 4" "$(head -n 1 $D/batches | cut -d ' ' -f 1)" 4
eq "the newest is seq 4099" "$(tail -n 1 $D/batches | cut -d ' ' -f 1)" 4099
eq "consecutive" "$(awk 'NR > 1 && $1 != prev + 1 { bad++ } { prev = $1 } END { print bad + 0 }' \
	$D/batches)" 0

# gpio: "gpio=N chip=LABEL line=OFFSET", as gpiolib sees it
g=$(toggle_gpio)
check "gpio parses: $(cat $D/gpio)" sh -c "grep -qE '^gpio=[0-9]+ chip=toggle-vchip line=0\$' $D/gpio"
# (debugfs names it gpio-N up to 6.12, by its offset on 7.2: toggle_dbg_line tells which)
l=$(toggle_dbg_line)
check "gpio $g is the module's line in gpiolib's debugfs ($l)" \
	sh -c "echo '$l' | grep -qE '^ *gpio-[0-9]+ +\\( *\\|toggle *\\) out'"

toggle_load
done_testing
