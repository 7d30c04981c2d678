#!/bin/sh
# One undo: a run SIGKILLed once it has taken each kind of thing leaves its journal
# /run/gpiolat/undo-PID with a step of that kind (w: a debugfs file of the module, i: a tracefs
# instance, e: a kprobe or synthetic event, k: the module reloaded, t: a top-level tracer file,
# c: a child process), steps that name no mode (the replay knows no mode's names: what to put
# back, never who took it), and gpiolat --cleanup replays it to the state before the run
# (mode_snapshot: tracefs, the module and its settings, BPF, processes, the state directory).
# Test 93 kills every mode at every row; this one reads the journal each kill leaves.
# kernels: std
# timing: icount
# A row's run stops itself in its first method phase with its things taken (GPIOLAT_STOP_IN):
# polled, a phase of a few ms under icount was missed ("never showed" in 2 of 3 runs for a user
# row at a bound of 1200 polls, once for trace_printk).
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/94-undo-journal
mkdir -p $tmp
S=/run/gpiolat

# rd, running, ended: lib.sh
mode0=$(cat /sys/module/toggle/parameters/mode)
# taken CASE: the case's thing is taken now
taken() {
	case $1 in
	kprobe) grep -q '^p:gpiolat/' $T/kprobe_events 2>/dev/null ;;
	event-synthetic) grep -q gpiolat_pulse $T/synthetic_events 2>/dev/null ;;
	function_graph) rd $T/current_tracer && [ "$_v" = function_graph ] ;;
	trace_printk) rd /sys/module/toggle/parameters/mode && [ "$_v" != "$mode0" ] ;;
	user-ioctl-syscall-events) running utoggle ;;
	histogram) rd $D/enable && [ "$_v" = 1 ] ;;
	esac
}
# the kinds of step each case's journal holds then
kinds() {
	case $1 in
	kprobe | event-synthetic) echo i e ;;
	function_graph) echo i t ;;
	trace_printk) echo i k ;;
	user-ioctl-syscall-events) echo i c ;;
	histogram) echo w ;;
	esac
}
cmd() {
	case $1 in
	histogram) echo --pulses 5000000 ;;
	*) echo --overhead --only "$1" --reps 2 --pulses 300 ;;
	esac
}

./gpiolat --cleanup >/dev/null 2>&1
mode_snapshot >$tmp/before
for c in ${CASES:-kprobe event-synthetic function_graph trace_printk user-ioctl-syscall-events histogram}; do
	# word splitting of cmd's options is meant; a row's run stops itself in its first method
	# phase (lib.sh stop_in, at most 600 s of uptime), the histogram's is polled every 0.1 s
	# (its module toggles from its start to its end) for up to 600 s; either until it ends (a
	# zombie until waited for). Seen before the kill: a child goes with the run
	# (PR_SET_PDEATHSIG), its journal stays
	seen=
	if [ $c = histogram ]; then
		# shellcheck disable=SC2046
		./gpiolat $(cmd $c) >$tmp/run.out 2>&1 &
		pid=$!
		read -r up _ </proc/uptime
		end=$((${up%.*} + 600))
		while ! ended $pid && read -r up _ </proc/uptime && [ ${up%.*} -le $end ]; do
			taken $c && seen=1 && break
			sleep 0.1
		done
	else
		# shellcheck disable=SC2046
		GPIOLAT_STOP_IN=$c:1 ./gpiolat $(cmd $c) >$tmp/run.out 2>&1 &
		pid=$!
		stop_in $pid 600 && taken $c && seen=1
	fi
	state=$(ended $pid && echo 'had ended' || echo 'still ran')
	kill -9 $pid
	wait $pid 2>/dev/null
	if [ -z "$seen" ]; then
		notok "$c: its thing never showed (the run $state)"
		tail -n 5 $tmp/run.out | sed -e 's/^/# /'
		./gpiolat --cleanup >/dev/null 2>&1
		continue
	fi
	j=$S/undo-$pid
	cp $j $tmp/journal.$c 2>/dev/null
	check "$c: the killed run left its journal undo-$pid" test -f $tmp/journal.$c
	check "$c: its header names its pid and start time ($(head -n 1 $tmp/journal.$c))" \
		grep -q -x "gpiolat undo journal, pid $pid start [0-9]*" $tmp/journal.$c
	sed -e 1d $tmp/journal.$c >$tmp/steps
	check "$c: every step is of a known kind ($(cut -c 1 $tmp/steps | sort -u | tr -d '\n'))" \
		sh -c "! grep -q -v -E '^([wietc] .+|k)\$' $tmp/steps"
	for k in $(kinds $c); do
		check "$c: a step of kind $k" grep -q -E "^$k( |\$)" $tmp/steps
	done
	check "$c: no step names a mode" sh -c "! tr ' /' '\n\n' <$tmp/steps |
		grep -q -x -E 'overhead|syscall-cost|syscall-hist|path|wakeup|gaps|histogram|cleanup'"
	./gpiolat --cleanup >$tmp/cleanup.out 2>&1
	eq "$c: gpiolat --cleanup exits 0 ($(tail -n 1 $tmp/cleanup.out))" "$?" 0
	check "$c: ... says it removed the leftovers" grep -q 'removed the leftovers' $tmp/cleanup.out
	# a burst of the module ends; a killed tool's last moment
	i=0
	while { [ "$(cat $D/enable)" = 1 ] || running utoggle; } && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mode_snapshot >$tmp/after
	as_before $tmp/before $tmp/after "$c: as before the run" "$c: not as before the run"
done
done_testing
