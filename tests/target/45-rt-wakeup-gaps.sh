#!/bin/sh
# Target: gpiolat --wakeup and --gaps (docs/rt.md). The wakeup histogram of the module's kthread
# counts one wakeup per sleep it did (batches: an msleep after each but the last, the idle wait
# after the last; on PREEMPT_RT also its waits on sleeping spinlocks), with tp_btf and raw_tp alike;
# for utoggle as a command at least one per usleep; a forced gap (a busy
# SCHED_FIFO 70 task on the toggler's CPU) is attributed to that task; bad input gets one
# error line, a non-zero exit, and leaves no program attached and the toggler idle.
# kernels: std rt arm-6.12 arm-6.12-rt
. "$(dirname "$0")/lib.sh"

GPIOLAT=${GPIOLAT:-./gpiolat}
out=$(mktemp)
err=$(mktemp)
hog=$(mktemp -d)/rthog
trap 'rm -f "$out" "$err" "$hog"; rmdir "$(dirname "$hog")"' EXIT

# jnum KEY: the first "KEY":N of the JSON in $out
jnum() {
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" "$out" | head -n 1
}
# jfirst KEY: the first one (sed's .* is greedy: the last match above)
jfirst() {
	sed -n "s/\"$1\":\([0-9]*\)/\n\1\n/p" "$out" | sed -n 2p
}
progs() {
	bpftool prog list 2>/dev/null | grep -c '^[0-9]*:'
}

# ---- the kthread: a wakeup per sleep, per batch ----------------------------------------------
if $GPIOLAT --wakeup --comm toggle --pulses 500 --json >"$out" 2>"$err"; then
	b=$(jnum batches)
	w=$(jfirst wakeups)
	s=$(jfirst sleeps)
	c=$(sed -n 's/.*"wakeup":{"count":\([0-9]*\).*/\1/p' "$out")
	echo "# kthread: batches $b, wakeups $w, sleeps $s, histogrammed $c"
	eq "kthread: 500 pulses of 5 are 100 batches" "$b" 100
	# burst mode: 99 msleep(1) and the idle wait, each a switch out and a wakeup 1 ms later.
	# On PREEMPT_RT the module's spinlocks sleep: a debugfs read racing with the toggler
	# (gpiolat polls 'enable') adds sleeps (106-109 seen), and a lock released before the
	# waiter got off its CPU is a wakeup without a wait (counted, not histogrammed)
	case $(uname -v) in
	*PREEMPT_RT*)
		check "kthread: wakeups cover the batches' sleeps ($c >= $b, RT)" [ "$c" -ge "$b" ]
		check "kthread: no more waits than wakeups ($c <= $w)" [ "$c" -le "$w" ]
		check "kthread: no more waits than sleeps ($c <= $s)" [ "$c" -le "$s" ]
		;;
	*)
		eq "kthread: one wakeup per batch's sleep" "$c" "$b"
		eq "kthread: every wakeup histogrammed" "$w" "$c"
		eq "kthread: one wakeup per sleep" "$s" "$c"
		;;
	esac
else
	notok "gpiolat --wakeup --comm toggle: $(head -n 1 "$err")"
fi

# ---- the fallback: raw tracepoints give the same counts ----------------------------------------
if $GPIOLAT --wakeup --raw-tp --comm toggle --pulses 100 --json >"$out" 2>"$err"; then
	check "raw_tp: the hook used" grep -q '"hook":"raw_tp"' "$out"
	c=$(sed -n 's/.*"wakeup":{"count":\([0-9]*\).*/\1/p' "$out")
	check "raw_tp: the 20 batches' sleeps histogrammed ($c)" [ "${c:-0}" -ge 20 ]
	check "raw_tp: no more than the wakeups ($c <= $(jfirst wakeups))" [ "${c:-0}" -le "$(jfirst wakeups)" ]
else
	notok "gpiolat --wakeup --raw-tp: $(head -n 1 "$err")"
fi

# ---- utoggle as the command: 20 batches, 19 usleeps ------------------------------------------
if $GPIOLAT --wakeup --json -- "$UTOGGLE" -l 1 -b 5 -i 1000 -c 100 -p 60 >"$out" 2>"$err"; then
	c=$(sed -n 's/.*"wakeup":{"count":\([0-9]*\).*/\1/p' "$out")
	eq "utoggle: exit status" "$(jnum command_exit)" 0
	check "utoggle: at least its 19 usleeps histogrammed ($c)" [ "${c:-0}" -ge 19 ]
	check "utoggle: its summary went to stderr, not into the JSON" grep -q "^pulses: 100 " "$err"
else
	notok "gpiolat --wakeup -- utoggle: $(head -n 1 "$err")"
fi

# ---- the module's own gaps: 100 pulses in 20 batches, an msleep(1) between two batches -------
# (each at least 1 ms, ten times --gaps' 100 us threshold: 19 gaps caused by sleep at least)
if $GPIOLAT --gaps --pulses 100 --json >"$out" 2>"$err"; then
	sleepline=$(sed 's/{"cause"/\n{"cause"/g' "$out" | grep '^{"cause":"sleep"')
	echo "# $sleepline"
	n=$(echo "$sleepline" | sed -n 's/.*"gaps":\([0-9]*\).*/\1/p')
	check "gaps: the 19 msleeps between 20 batches are gaps caused by sleep (${n:-0})" \
		[ "${n:-0}" -ge 19 ]
else
	notok "gpiolat --gaps --pulses 100: $(head -n 1 "$err")"
fi

# ---- a forced gap: a SCHED_FIFO 70 busy task on the toggler's CPU ----------------------------
# (chrt and taskset: not in Debian 12's ARM targets' busybox, by design: host_tool says so there)
if host_tool chrt && host_tool taskset; then
	toggle_load mode=continuous
	tid=
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = toggle ] && tid=${p#/proc/}
	done
	ln -s "$(command -v sh)" "$hog"
	echo 1 >$D/enable
	if taskset -p 1 "$tid" >/dev/null &&
		$GPIOLAT --gaps --threshold 1ms --json -- chrt -f 70 taskset -c 0 "$hog" -c \
			'i=0; while [ $i -lt 3 ]; do j=0; while [ $j -lt 2000 ]; do j=$((j+1)); done;
			 sleep 0.1; i=$((i+1)); done' >"$out" 2>"$err"; then
		echo 0 >$D/enable
		hogline=$(sed 's/{"cause"/\n{"cause"/g' "$out" | grep '^{"cause":"task","what":"rthog"')
		echo "# $hogline"
		n=$(echo "$hogline" | sed -n 's/.*"gaps":\([0-9]*\).*/\1/p')
		t=$(echo "$hogline" | sed -n 's/.*"total_ns":\([0-9]*\).*/\1/p')
		check "gaps: the busy task is a cause (${n:-0} gaps)" [ "${n:-0}" -ge 1 ]
		check "gaps: with at least 1 ms (${t:-0} ns)" [ "${t:-0}" -ge 1000000 ]
		eq "gaps: the toggler is the kthread" "$(jnum toggler_tid)" "$tid"
	else
		echo 0 >$D/enable
		notok "gpiolat --gaps with a busy task: $(head -n 1 "$err")"
	fi
	toggle_load
fi

# ---- bad input: one line, non-zero, nothing left ---------------------------------------------
# (the programs counted by bpftool: on the ARM targets there is none, by design, and the checks
# that need it are said not to run there)
bpftool=
host_tool bpftool && bpftool=1
before=$(progs)
if [ -n "$bpftool" ]; then
	# the count sees gpiolat's programs while they are attached (else "no program left" is empty):
	# waited for (at most 60 s, while the run lives), not slept for; a run that never attaches fails
	$GPIOLAT --wakeup --comm toggle -d 120 >/dev/null 2>&1 &
	gpid=$!
	i=0
	while [ "$(progs)" -le "$before" ] && [ $i -lt 600 ] && kill -0 $gpid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	check "bpftool sees the programs of a running gpiolat --wakeup ($(progs) > $before)" \
		[ "$(progs)" -gt "$before" ]
	kill -INT $gpid 2>/dev/null
	wait $gpid
	eq "gpiolat --wakeup ended by SIGINT: exit status" $? 0
	# the kernel lets a program go in deferred work once its last reference is dropped (a link's
	# RCU callback, a workqueue: bpf_link_free, __bpf_prog_put), not when the process's last fd
	# closes: on arm-6.12 under icount three were still listed right after the wait. Waited for,
	# at most 10 s (a grace period takes milliseconds), not slept for; a program that stays fails
	i=0
	while [ "$(progs)" -gt "$before" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	eq "its programs gone with it" "$(progs)" "$before"
fi
# bad NAME WANT_STATUS ARGS...: one stderr line, the exit status, no program left, module idle
bad() {
	_name=$1
	_want=$2
	shift 2
	$GPIOLAT "$@" >"$out" 2>"$err"
	_rc=$?
	eq "$_name: exit status" "$_rc" "$_want"
	eq "$_name: one error line" "$(wc -l <"$err" | tr -d ' ')" 1
	[ -z "$bpftool" ] || eq "$_name: no program left" "$(progs)" "$before"
	eq "$_name: the toggler idle" "$(cat $D/enable)" 0
}
bad "no such thread" 1 --wakeup --pid 999999 -d 1
bad "no such task name" 1 --wakeup --comm nosuchtask -d 1
bad "no task at all" 2 --wakeup -d 1
bad "bad threshold" 2 --gaps --threshold 0
bad "no such command" 1 --wakeup -- /nonexistent/prog
bad "no such line" 1 --gaps -l nosuchchip:0 -d 1
bad "pulses and a command" 2 --gaps --pulses 10 -- true
done_testing
