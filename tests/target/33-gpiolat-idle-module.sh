#!/bin/sh
# kernels: std rt
# gpiolat without --pulses on an idle toggle module: the module toggles while gpiolat is attached
# and only then (exact edge counts, nothing lost), is idle again afterwards, also after SIGINT;
# --no-toggle only watches; a selection without the module's line leaves the module alone.
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1
out=$PROJ/out/tests/33-idle

eq "the module is idle at the start" "$(cat $D/enable)" 0
e0=$(edges)
./gpiolat --kprobe -d 2 >$out.txt 2>$out.err
eq "gpiolat --kprobe -d 2 exits 0" "$?" 0
check "it says the idle module toggles while attached" grep -q 'is idle: it toggles while gpiolat is attached' $out.txt
count=$(sed -n 's/.*: count \([0-9]*\) pulses.*/\1/p' $out.txt)
check "a histogram of pulses ($count)" test "${count:-0}" -gt 0
check "no event lost" grep -q 'events lost 0$' $out.txt
check "a pulse-width shift is measured" grep -q '^overhead: pulse-width shift +' $out.txt
eq "the module is idle again" "$(cat $D/enable)" 0

./gpiolat -d 1 --no-toggle >$out.txt 2>&1
eq "--no-toggle exits 0" "$?" 0
check "--no-toggle: no set seen" grep -q 'no sets of any line seen' $out.txt
eq "--no-toggle: the module stayed idle" "$(cat $D/enable)" 0

e1=$(edges)
./gpiolat -d 1 -l toggle-vchip:1 >$out.txt 2>&1
eq "another line selected: exits 0" "$?" 0
eq "another line selected: the module issued no edge" "$(edges)" "$e1"

rm -f $out.txt
./gpiolat -d 30 >$out.txt 2>&1 &
pid=$!
check "SIGINT: the run is attached and the module toggling before the signal" gpiolat_ready $out.txt
kill -INT $pid
wait $pid
eq "SIGINT: gpiolat exits 0" "$?" 0
eq "SIGINT: the module is idle again" "$(cat $D/enable)" 0
check "SIGINT: the histogram was still printed" grep -q ': count [1-9][0-9]* pulses' $out.txt
check "nothing of ours left attached" sh -c '! bpftool prog show 2>/dev/null | grep -q gpiolat_'

# -i: each interval stamped with its snapshots' times: contiguous, about as long as asked (a
# snapshot late by a poll period or a stall shortens the next interval, the schedule stays)
./gpiolat -i 300ms -d 2 >$out.txt 2>$out.err
eq "gpiolat -i 300ms -d 2 exits 0" "$?" 0
check "-i 300ms: intervals printed ($(grep -c '^--- interval' $out.txt))" \
	test "$(grep -c '^--- interval' $out.txt)" -ge 3
eq "-i 300ms: intervals contiguous, none shorter than 0.2 s" "$(awk '
	/^--- interval [0-9]+: / { a = $4; b = $7
		if (n++ && a != prev) bad++
		if (b - a < 0.2) bad++
		prev = b }
	END { print bad + 0 }' $out.txt)" 0
# the poll loop wakes every 20 ms: real snapshot times are off the 0.3 s schedule's grid
check "-i 300ms: the stamps are the snapshots' times, not the schedule's" test "$(awk '
	/^--- interval [0-9]+: / { if (int($7 * 1000 + 0.5) % 300) off++ }
	END { print off + 0 }' $out.txt)" -gt 0

# an interrupted --pulses run leaves no limit behind: the next idle-module run toggles unlimited
rm -f $out.txt
./gpiolat --pulses 100000 >$out.txt 2>$out.err &
pid=$!
check "--pulses 100000: attached and toggling before the signal" gpiolat_ready $out.txt
kill -INT $pid
wait $pid
eq "SIGINT during --pulses 100000: gpiolat exits 0" "$?" 0
eq "SIGINT during --pulses: the module is idle again" "$(cat $D/enable)" 0
eq "SIGINT during --pulses: pulses reads 0 (unlimited, nothing left over)" "$(cat $D/pulses)" 0
./gpiolat -d 2 >$out.txt 2>$out.err
eq "gpiolat -d 2 after the interrupted run exits 0" "$?" 0
count2=$(sed -n 's/.*: count \([0-9]*\) pulses.*/\1/p' $out.txt)
check "it toggled for the whole 2 s: $count2 pulses, more than half of the kprobe run's $count" \
	test "${count2:-0}" -gt $((${count:-0} / 2))
check "no event lost" grep -q 'events lost 0$' $out.txt
eq "the module is idle again" "$(cat $D/enable)" 0

# SIGINT in the untraced phase before attach: nothing attached, no results, status 0
./gpiolat --pulses 1000000 --untraced 1000000 >$out.txt 2>$out.err &
pid=$!
i=0
while [ "$(cat $D/enable)" != 1 ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
eq "the untraced phase before attach is under way" "$(cat $D/enable)" 1
kill -INT $pid
wait $pid
eq "SIGINT before attach: gpiolat exits 0" "$?" 0
eq "SIGINT before attach: no results printed" "$(wc -c <$out.txt)" 0
eq "SIGINT before attach: one line on stderr" "$(cat $out.err)" \
	"gpiolat: interrupted before attaching: nothing measured"
eq "SIGINT before attach: the module is idle again" "$(cat $D/enable)" 0
eq "SIGINT before attach: no pulse limit left" "$(cat $D/pulses)" 0
check "SIGINT before attach: nothing of ours left" \
	sh -c '! bpftool prog show 2>/dev/null | grep -q gpiolat_'

# a hangup (an ssh drop) ends the run like SIGINT
rm -f $out.txt
./gpiolat -d 30 >$out.txt 2>&1 &
pid=$!
check "SIGHUP: the run is attached and the module toggling before the signal" gpiolat_ready $out.txt
kill -HUP $pid
wait $pid
eq "SIGHUP: gpiolat exits 0" "$?" 0
eq "SIGHUP: the module is idle again" "$(cat $D/enable)" 0
check "SIGHUP: nothing of ours left attached" sh -c '! bpftool prog show 2>/dev/null | grep -q gpiolat_'

# the reader of the output goes away: the failed write ends the run (SIGPIPE is ignored)
t0=$(date +%s)
timeout 60 ./gpiolat -i 1s 2>$out.err | head -n 3 >$out.txt
t1=$(date +%s)
eq "gpiolat -i 1s | head -3: head got 3 lines" "$(wc -l <$out.txt)" 3
check "gpiolat -i 1s | head -3: gpiolat ended by itself ($((t1 - t0)) s, not the 60 s timeout)" \
	test $((t1 - t0)) -lt 50
eq "gpiolat -i 1s | head -3: the module is idle again" "$(cat $D/enable)" 0
check "gpiolat -i 1s | head -3: nothing of ours left attached" \
	sh -c '! bpftool prog show 2>/dev/null | grep -q gpiolat_'
echo "# edges before: $e0, after: $(edges)"
rm -f $out.txt $out.err
done_testing
