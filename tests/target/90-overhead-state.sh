#!/bin/sh
# gpiolat --overhead leaves tracefs (and BPF) as found: after SIGINT mid-run, and after SIGKILL
# mid-run followed by gpiolat --cleanup or by the next run (after a whole run of every kind of
# row: 80-overhead-matrix.sh, on its quick matrix).
# timing: icount
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

# same WHAT: the snapshot equals the one before, else show the difference
same() {
	overhead_snapshot >$tmp/after
	as_before $tmp/before $tmp/after "$1: tracefs and BPF as found" "$1: tracefs or BPF changed"
}
# on_now WHAT: is the run at that point? graph: the function_graph row is set up (the top
# level's set_graph_function names gpiod_set_value for the whole row; the tracer itself is on
# only in the row's traced phases, a few ms each, which a poll every 0.1 s misses);
# uprobe: the uprobe events on utoggle are there (utoggle runs); printk: the module reloaded in
# its printk mode (in the row's method phases only); midrun stops the run in the row's first
# method phase for both
on_now() {
	case $1 in
	graph) grep -q '^gpiod_set_value' $T/set_graph_function ;;
	uprobe) grep -q gpiolat_utoggle $T/uprobe_events ;;
	printk) [ "$(cat /sys/module/toggle/parameters/mode 2>/dev/null)" != "$mode0" ] ;;
	esac
}
# midrun SIGNAL [WHAT]: start a run, wait until WHAT (default graph) is on (at most 300 s, while
# the run lives), signal it; not ok when it never came on (the run is signalled all the same).
# The run's rows start at WHAT's row (rows run in the table's order: --overhead --list) and go
# on past it, so the signal lands in a run with rows still to come; rows before WHAT's would
# only add their time (they are over and undone when it comes on): in real time function_graph
# and bpftrace-delta took 43 s and 33 s of a 106 s wait for the uprobe row (2026-11-27, std)
midrun() {
	case ${2:-graph} in
	graph) _rows='function_graph,trace_printk,bpftrace-delta,user-ioctl-uprobe,user-ioctl-strace' ;;
	printk) _rows='trace_printk,bpftrace-delta,user-ioctl-uprobe,user-ioctl-strace' ;;
	uprobe) _rows='user-ioctl-uprobe,user-ioctl-strace' ;;
	*)
		notok "midrun: no such row to wait for: '$2'"
		return
		;;
	esac
	if [ "${2:-graph}" != graph ]; then
		# the reload lasts a method phase, a few ms under icount, and the uprobe row a few
		# tenths of a second (a poll saw its uprobe and the check after it no more, once,
		# when the row's switches no longer cleared a buffer): the run stops itself in the
		# row's first method phase (GPIOLAT_STOP_IN, lib.sh stop_in), is signalled, and goes
		# on (SIGCONT) to take it
		GPIOLAT_STOP_IN=${_rows%%,*}:1 ./gpiolat --overhead --quick --only "$_rows" \
			>$tmp/run.out 2>&1 &
		pid=$!
		stop_in $pid 300
	else
		./gpiolat --overhead --quick --only "$_rows" >$tmp/run.out 2>&1 &
		pid=$!
		i=0
		while ! on_now "${2:-graph}" && [ $i -lt 3000 ] && kill -0 $pid 2>/dev/null; do
			sleep 0.1
			i=$((i + 1))
		done
	fi
	check "SIG$1 mid-run: ${2:-graph} came on before the signal" on_now "${2:-graph}"
	kill -"$1" $pid
	kill -CONT $pid 2>/dev/null
	wait $pid
	rc=$?
	while [ -e $D/enable ] && [ "$(cat $D/enable)" != 0 ]; do
		sleep 0.1
	done
	# utoggle and strace go with it (PR_SET_PDEATHSIG): give them a moment
	i=0
	while ps -e -o comm= | grep -E -q -x 'utoggle|strace' && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

tmp=$PROJ/out/tests/90-overhead
mkdir -p $tmp
mode0=$(cat /sys/module/toggle/parameters/mode)
overhead_snapshot >$tmp/before

midrun INT
check "SIGINT mid-run: exit status 1 ($rc), says interrupted" \
	sh -c "[ $rc = 1 ] && grep -q 'interrupted' $tmp/run.out"
same "after SIGINT mid-run"

midrun KILL
eq "SIGKILL mid-run: the run died of it (status 137)" "$rc" 137
overhead_snapshot >$tmp/killed
check "SIGKILL mid-run leaves something behind (the test is meaningful)" \
	differ $tmp/before $tmp/killed
./gpiolat --cleanup >$tmp/cleanup.out 2>&1
eq "gpiolat --cleanup exits 0" "$?" 0
check "gpiolat --cleanup says it removed leftovers" grep -q 'removed the leftovers' $tmp/cleanup.out
same "after SIGKILL mid-run and gpiolat --cleanup"

midrun INT uprobe
check "SIGINT with utoggle running: exit status 1 ($rc), says interrupted" \
	sh -c "[ $rc = 1 ] && grep -q 'interrupted' $tmp/run.out"
same "after SIGINT mid-run, utoggle running"

midrun INT printk
eq "SIGINT in the trace_printk row: exit status 1" "$rc" 1
same "after SIGINT mid-run in the trace_printk row (the module back as loaded)"

# SIGKILL in the trace_printk row and with utoggle running, then --cleanup: test 93 (every row)
midrun KILL
eq "SIGKILL mid-run: the run died of it (status 137)" "$rc" 137
./gpiolat --overhead --quick --only control >$tmp/next.out 2>&1
eq "the next run after a SIGKILL exits 0" "$?" 0
check "the next run says it removed the leftovers" grep -q 'removed the leftovers' $tmp/next.out
same "after SIGKILL mid-run and the next run"

./gpiolat --overhead --reps 1 >/dev/null 2>$tmp/bad.err
eq "bad input: exit status 2" "$?" 2
eq "bad input: one line" "$(wc -l <$tmp/bad.err)" 1
same "after bad input"
done_testing
