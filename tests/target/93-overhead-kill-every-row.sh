#!/bin/sh
# SIGKILL in the middle of every --overhead row that changes tracefs or the toggle module (an
# event, its filter, trigger, hist and synthetic event, kprobes, the module's events, the
# function tracers, the trace_printk reload, the user-space rows' syscall events, uprobes and
# trace_marker): the run stops itself in its row's first method phase with the row's change in
# place (GPIOLAT_STOP_IN: a phase lasts a few ms under icount, which a poll can miss in every
# phase of a run), the test sees the change there (on_now) and kills it, then gpiolat --cleanup
# must leave
# tracefs, the module, BPF and the processes exactly as they were before the run.
# Then the same for every other mode that changes the system (mode_on: --path in its kernel
# rows and in its cross-check's instance, --wakeup, --gaps, --syscall-cost's instance and probe,
# the histogram mode driving the module): their undo is on disk (loader/core/undo.c),
# and the comparison also covers the module's debugfs settings and the state directory.
# timing: icount
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/93-overhead-kill-every-row
mkdir -p $tmp

# The polls below read with the shell's own read (no process per look): under emulation a
# cat | grep pipeline took about 1 s a look, and a row's own phase can be shorter than that
# (a 0.1 s user-space phase was missed in all 40 of a run's phases once, CI 2026-11-23).
# any_line PRED FILE...: some line of some FILE satisfies PRED LINE
any_line() {
	_p=$1
	shift
	for _f in "$@"; do
		[ -r "$_f" ] || continue
		while IFS= read -r _l; do
			$_p "$_l" && return 0
		done <"$_f"
	done
	return 1
}
not_nop() { [ "$1" != nop ]; }
# left BEFORE AFTER SKIP: the first 3 lines AFTER has and BEFORE has not ("# left: > LINE"), but
# comments and the lines that match the basic regular expression SKIP (one diff, one sed)
left() {
	diff "$1" "$2" | sed -n -e '/^> #/d' -e "\\%$3%d" -e '/^>/{s/^/# left: /;p;}' | head -n 3
}
not_comment() { case $1 in '#'*) return 1 ;; esac; }
any() { :; }
tracing_line() { case $1 in 'Tracing '*) return 0 ;; esac; return 1; }
sc_probe() { case $1 in *gpiolat_sc*) return 0 ;; esac; return 1; }
# rd, running, ended: lib.sh
# on_now ROW: the row's own change is in place (its readiness): the trace_printk reload has the
# module in another mode, the function tracers are on, the trigger rows' triggers are in, the
# trace_marker row's toggler runs, the uprobe row's uprobe and uretprobe are defined (for its
# whole run: its events are enabled in its own short phases only); every other row has an event
# enabled (top level or in an instance; set_event lists them)
on_now() {
	case $1 in
	trace_printk)
		read -r _m </sys/module/toggle/parameters/mode
		[ "$_m" != "$mode0" ]
		;;
	function | function_graph) any_line not_nop $T/current_tracer $T/instances/*/current_tracer ;;
	event-trigger | event-hist | event-synthetic)
		any_line not_comment $T/events/gpio/gpio_value/trigger \
			$T/instances/*/events/gpio/gpio_value/trigger
		;;
	user-ioctl-trace-marker) running utoggle ;;
	user-ioctl-uprobe) any_line any $T/uprobe_events ;;
	*) any_line any $T/set_event $T/instances/*/set_event ;;
	esac
}

mode0=$(cat /sys/module/toggle/parameters/mode)
overhead_state >$tmp/state0
overhead_snapshot >$tmp/before
# the rows, from the loader's table (gpiolat --overhead --list --json, one method a line): each
# whose change outlives gpiolat ("lasting": tracefs, the module), of a series its largest k
lasting_rows() {
	./gpiolat --overhead --list --json | awk '
/"lasting": true/ {
	match($0, /"name": "[^"]*"/)
	n = substr($0, RSTART + 9, RLENGTH - 10)
	s = ""
	if (match($0, /"series": "[^"]*"/))
		s = substr($0, RSTART + 11, RLENGTH - 12)
	match($0, /"k": [0-9]+/)
	k = substr($0, RSTART + 5, RLENGTH - 5) + 0
	if (s == "") {
		row[++nr] = n
		next
	}
	if (!(s in top)) {
		row[++nr] = ""
		ser[nr] = s
	}
	if (!(s in top) || k > kmax[s]) {
		kmax[s] = k
		top[s] = n
	}
}
END {
	for (i = 1; i <= nr; i++)
		print (row[i] != "" ? row[i] : top[ser[i]])
}'
}
rows=${ROWS:-$(lasting_rows)}
# ours: a line of the kernel's kprobes/list on a function the rows probe (the GPIO set, the
# module's chain)
ours() {
	case $1 in
	*gpiod_set_value* | *toggle_chain_*) return 0 ;;
	esac
	return 1
}
# the rows that register kprobes, by the loader's table (" NAME NAME ... ")
kp_rows=" $(./gpiolat --overhead --list --json | awk '/"kprobes": true/ {
	match($0, /"name": "[^"]*"/); printf "%s ", substr($0, RSTART + 9, RLENGTH - 10) }')"
check "gpiolat --overhead --list --json names the rows that change the system ($(echo $rows))" \
	test -n "$rows"
# gave_up WHAT: "not ok - WHAT had ended)" or "... still ran after 120 s)" for the run $_pid,
# its last lines, and the run killed and cleaned up
gave_up() {
	notok "$1 $(ended $_pid && echo 'had ended' || echo 'still ran after 120 s'))"
	grep -v '^$' $tmp/run.out | tail -n 12 | sed -e 's/^/# /'
	kill -9 $_pid
	wait $_pid 2>/dev/null
	./gpiolat --cleanup >/dev/null 2>&1
}
# kill_in ROW: a run of ROW alone that stops itself in ROW's first method phase, its change in
# place (lib.sh stop_in; at most 120 s of uptime: the row's set-up and one reference phase come
# first); the change seen there (on_now), then SIGKILL: 0 with the run's exit status in $rc, 1
# (a "not ok", the run killed and cleaned up) when it never stopped there
kill_in() {
	GPIOLAT_STOP_IN=$1:1 ./gpiolat --overhead --only "$1" --reps 2 --pulses 300 \
		>$tmp/run.out 2>&1 &
	_pid=$!
	if ! stop_in $_pid 120; then
		gave_up "$1: the run never stopped in its phase (it"
		return 1
	fi
	check "$1: its change in place where the run stopped" on_now "$1"
	# a kprobe of the row's registered there, and the kprobe optimizer's watch made (its
	# instance), exactly where the loader's table marks the row (--list --json's "kprobes"):
	# the loader waits for the optimizer only around those rows' switches
	case $kp_rows in
	*" $1 "*) _kp=yes ;;
	*) _kp=no ;;
	esac
	_kl=no
	any_line ours /sys/kernel/debug/kprobes/list && _kl=yes
	_ki=no
	[ -d $T/instances/gpiolat_kopt ] && _ki=yes
	eq "$1: a kprobe registered where it stopped (kprobes/list) iff the table marks it" "$_kl" "$_kp"
	eq "$1: the kprobe optimizer's watch made (gpiolat_kopt) iff the table marks it" "$_ki" "$_kp"
	kill -9 $_pid
	wait $_pid
	rc=$?
	return 0
}
# kill_when_on NAME PRED CMD...: CMD in the background, SIGKILLed at once when PRED NAME holds
# (polled every 0.1 s for up to 120 s of uptime or until the run ends: a mode's change lasts as
# long as its run); 0 with the run's exit status in $rc, or a "not ok", the run
# ended and cleaned up, and 1 when the change never showed
# now: $_now, whole seconds since boot (no process)
now() {
	read -r _u _ </proc/uptime
	_now=${_u%.*}
}
kill_when_on() {
	_name=$1
	_pred=$2
	shift 2
	# (no earlier run's lines: mode_on reads the histogram's "Tracing" line there)
	rm -f $tmp/run.out
	"$@" >$tmp/run.out 2>&1 &
	_pid=$!
	now
	_end=$((_now + 120))
	while now && [ $_now -le $_end ]; do
		if $_pred "$_name"; then
			kill -9 $_pid
			wait $_pid
			rc=$?
			return 0
		fi
		# a run that has ended cannot show its change any more
		ended $_pid && break
		sleep 0.1
	done
	gave_up "$_name: its change never showed (the run"
	return 1
}

for row in $rows; do
	kill_in "$row" || continue
	eq "$row: killed while its change was in place (status 137)" "$rc" 137
	# a killed run's children go with it (PR_SET_PDEATHSIG); a burst of the module ends
	i=0
	while { running utoggle || running strace || { rd $D/enable && [ "$_v" = 1 ]; }; } &&
		[ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	overhead_state >$tmp/killed
	check "$row: the kill left the row's change behind (the check below means something)" \
		differ $tmp/state0 $tmp/killed
	left $tmp/state0 $tmp/killed '^> == instance'
	./gpiolat --cleanup >$tmp/cleanup.out 2>&1
	eq "$row: gpiolat --cleanup exits 0 ($(tail -n 1 $tmp/cleanup.out))" "$?" 0
	overhead_snapshot >$tmp/after
	as_before $tmp/before $tmp/after \
		"$row: tracefs, the module, BPF and processes as before the run" \
		"$row: not as before the run"
done

# mode_on MODE: the mode's change is in place (its readiness): --path's kernel rows have the
# module toggling at depth 0 (after its reload with mode=continuous burst=1000; phases of 2000000
# pulses, long enough to be seen by this loop under emulation), its cross-check
# has its instance and the module toggling; --wakeup and --gaps start the module once attached;
# the histogram mode printed its "Tracing" line and the module toggles; --syscall-cost's methods
# have their instance's events or their probe event in place
mode_on() {
	case $1 in
	path) rd $D/enable && [ "$_v" = 1 ] && rd $D/depth && [ "$_v" = 0 ] ;;
	path-xc) [ -d $T/instances/gpiolat_path ] && rd $D/enable && [ "$_v" = 1 ] ;;
	wakeup | gaps) rd $D/enable && [ "$_v" = 1 ] ;;
	histogram) any_line tracing_line $tmp/run.out && rd $D/enable && [ "$_v" = 1 ] ;;
	sc-events) any_line any $T/instances/gpiolat_sc/set_event ;;
	sc-kprobe) any_line sc_probe $T/kprobe_events ;;
	esac
}
mode_cmd() {
	case $1 in
	path) echo --path -r 3 -p 2000000 ;;
	path-xc) echo --path -r 2 -p 200000 --only subsys ;;
	wakeup) echo --wakeup --comm toggle --pulses 5000000 ;;
	gaps) echo --gaps --pulses 5000000 ;;
	histogram) echo --pulses 5000000 ;;
	sc-events) echo --syscall-cost -m syscall-events --rounds 100 ;;
	sc-kprobe) echo --syscall-cost -m kprobe-event --rounds 100 ;;
	esac
}
# the module as the target loads it (vm/run: burst mode): --path reloads it, and must put it back
./gpiolat --cleanup >/dev/null 2>&1
mode_snapshot >$tmp/before
# (--syscall-cost's strace and bpftrace children leave nothing: they die with it, PDEATHSIG)
modes=${MODES:-"path path-xc wakeup gaps histogram sc-events sc-kprobe"}
for m in $modes; do
	# word splitting of mode_cmd's options is meant
	# shellcheck disable=SC2046
	kill_when_on "$m" mode_on ./gpiolat $(mode_cmd $m) || continue
	eq "$m: gpiolat $(mode_cmd $m) killed while its change was in place (status 137)" "$rc" 137
	# a killed run's children go with it (PR_SET_PDEATHSIG)
	i=0
	while { running utoggle || running strace || running toggle.sh; } && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mode_snapshot >$tmp/killed
	check "$m: the kill left the mode's change behind (the check below means something)" \
		differ $tmp/before $tmp/killed
	left $tmp/before $tmp/killed '^> =='
	./gpiolat --cleanup >$tmp/cleanup.out 2>&1
	eq "$m: gpiolat --cleanup exits 0 ($(tail -n 1 $tmp/cleanup.out))" "$?" 0
	mode_snapshot >$tmp/after
	as_before $tmp/before $tmp/after \
		"$m: tracefs, the module and its settings, BPF, processes as before the run" \
		"$m: not as before the run"
done
done_testing
