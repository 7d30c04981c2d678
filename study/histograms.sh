#!/bin/sh
# Target side (POSIX sh): the measurements behind `make bpf-histograms`, run as root on the
# target (the emulated one, or a board). Usage: study/histograms.sh OUTDIR
#
# With the toggle module loaded, for each hook of gpiolat's table (`gpiolat --list --json`:
# tracepoint, kprobe, fentry, tp_btf; one it cannot use here leaves its reason) it runs `gpiolat --pulses N --json` (the toggler in the talk's burst mode, exactly N
# pulses, untraced phases before attach and after detach for the pulse-width shift), then each
# bpftrace twin of the talk's ply scripts over N more pulses, then each of the talk's ply
# scripts under ply where the target has it, over N more pulses. Raw results go to OUTDIR:
# gpiolat-METHOD.json or gpiolat-METHOD.unavailable (the reason), bpftrace-SCRIPT.json,
# ply-SCRIPT.txt (ply's own print of its maps), each tool's SCRIPT.edges (the module's edge
# counters before and after its pulses), and self-test.txt. host/report.py turns them into the
# report.
#
# Environment: PULSES (default 20000), LINEAR_NS (linear bucket width, default 100 ns, the
# talk's hist trigger), LINE (the toggled line for gpiolat -l; default: the module's line).
set -u
cd "$(dirname "$0")/.."

out=${1:?usage: study/histograms.sh OUTDIR}
pulses=${PULSES:-20000}
linear=${LINEAR_NS:-100}
D=/sys/kernel/debug/toggle
gpiolat=./gpiolat

die() {
	echo "study/histograms.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root"
[ -x "$gpiolat" ] || die "no ./gpiolat: run make first"
[ -d $D ] || die "the toggle module is not loaded ($D missing)"
[ "$(cat $D/enable)" = 0 ] || die "the toggler is already running"
mkdir -p "$out" || die "cannot create $out"
rm -f "$out"/gpiolat-* "$out"/bpftrace-* "$out"/ply-*

line=${LINE:-$(sed -n 's/.*gpio=\([0-9]*\).*/\1/p' $D/gpio)}
uname -a >"$out/uname.txt"
# the toggled line ("gpio=N chip=LABEL line=OFFSET"): host/report.py names files after it
cat $D/gpio >"$out/toggle-line.txt"
$gpiolat --self-test >"$out/self-test.txt" 2>&1

# the hooks from the loader's table (gpiolat --list --json: one hook a line)
hooks=$($gpiolat --list --json | sed -n 's/^ *{"name": "\([^"]*\)".*/\1/p')
[ -n "$hooks" ] || die "gpiolat --list --json names no hook"
for m in $hooks; do
	echo "  RUN     gpiolat --$m --pulses $pulses" >&2
	if $gpiolat --$m -l "$line" --pulses "$pulses" --linear "$linear" --json \
		>"$out/gpiolat-$m.json" 2>"$out/gpiolat-$m.err"; then
		rm -f "$out/gpiolat-$m.err"
	else
		# the first line gpiolat printed says why (e.g. no kprobes in this kernel)
		head -n 1 "$out/gpiolat-$m.err" >"$out/gpiolat-$m.unavailable"
		rm -f "$out/gpiolat-$m.json" "$out/gpiolat-$m.err"
		echo "          not available: $(cat "$out/gpiolat-$m.unavailable")" >&2
	fi
done

# attached PID N: bpftrace PID has N probes attached, as the kernel lists them (bpftool perf:
# the BPF programs on its perf events); without bpftool (a board), its open perf events
attached() {
	if command -v bpftool >/dev/null; then
		n=$(bpftool perf show 2>/dev/null | grep -c "^pid $1 ")
	else
		n=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event')
	fi
	[ "$n" -ge "$2" ]
}
# wait_attached SCRIPT PID: until bpftrace's kernel probes (SCRIPT's "tracepoint:..." and
# "kprobe:..." lines; BEGIN and END run in bpftrace itself) are attached (at most 60 s, while it
# lives). Its "attached_probes" message comes before it attaches them: toggling right after it
# lost the first burst (4995 of 5000 pulses seen); this waits for the state itself.
wait_attached() {
	i=0
	n=$(grep -c -E '^(tracepoint|kprobe|kretprobe|uprobe|uretprobe|rawtracepoint):' "$1")
	while ! attached "$2" "$n"; do
		kill -0 "$2" 2>/dev/null || return 1
		i=$((i + 1))
		[ $i -le 600 ] || return 1
		sleep 0.1
	done
}

# stop_bpftrace PID: SIGINT (bpftrace prints its maps and exits), again every 5 s while it lives:
# a SIGINT that came a few seconds after its probes were attached (2000 pulses, emulated) was
# once not acted on and the study waited for ever; after 60 s SIGKILL, and a failure
stop_bpftrace() {
	i=0
	while kill -INT "$1" 2>/dev/null; do
		j=0
		while [ $j -lt 50 ] && kill -0 "$1" 2>/dev/null; do
			sleep 0.1
			j=$((j + 1))
		done
		kill -0 "$1" 2>/dev/null || break
		i=$((i + 1))
		if [ $i -ge 12 ]; then
			kill -KILL "$1" 2>/dev/null
			wait "$1"
			return 1
		fi
	done
	wait "$1"
	return 0
}

for s in delta dt-kprobe; do
	echo "  RUN     bpftrace ply/$s.bt, $pulses pulses" >&2
	if ! command -v bpftrace >/dev/null; then
		echo "bpftrace is not installed" >"$out/bpftrace-$s.unavailable"
		continue
	fi
	bpftrace -f json "ply/$s.bt" >"$out/bpftrace-$s.json" 2>"$out/bpftrace-$s.err" &
	pid=$!
	if ! wait_attached "ply/$s.bt" $pid; then
		kill -INT $pid 2>/dev/null
		wait $pid
		{ grep -v RLIMIT_MEMLOCK "$out/bpftrace-$s.err" | head -n 1 | grep . ||
			echo "its probes were not attached within 60 s"; } >"$out/bpftrace-$s.unavailable"
		rm -f "$out/bpftrace-$s.json"
		echo "          not available: $(cat "$out/bpftrace-$s.unavailable")" >&2
		continue
	fi
	# the probes listed are not yet the probes firing: toggling at once, 2000 pulses (emulated)
	# gave bpftrace no histogram at all, 10 s later it saw 1295 of them, 15 s after its start
	# every one. So until bpftrace waits in its event loop (its main thread asleep in a poll:
	# /proc/PID/wchan), at most 60 s, and 1 s more (idle: free in icount)
	i=0
	while ! grep -q poll "/proc/$pid/wchan" 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
	before=$(cat $D/edges)
	echo "$pulses" >$D/pulses
	echo 1 >$D/enable
	while [ "$(cat $D/enable)" != 0 ]; do
		sleep 0.1
	done
	after=$(cat $D/edges)
	if ! stop_bpftrace $pid; then
		echo "bpftrace did not exit within 60 s of SIGINT" >"$out/bpftrace-$s.unavailable"
		rm -f "$out/bpftrace-$s.json" "$out/bpftrace-$s.err"
		echo "          not available: $(cat "$out/bpftrace-$s.unavailable")" >&2
		continue
	fi
	if ! grep -q '"type": *"hist"' "$out/bpftrace-$s.json"; then
		echo "bpftrace printed no histogram of the $pulses pulses (edges $before -> $after)" \
			>"$out/bpftrace-$s.unavailable"
		rm -f "$out/bpftrace-$s.json" "$out/bpftrace-$s.err"
		echo "          not available: $(cat "$out/bpftrace-$s.unavailable")" >&2
		continue
	fi
	echo "$before $after" >"$out/bpftrace-$s.edges"
	rm -f "$out/bpftrace-$s.err"
done

# ply -c CMD starts CMD once its probes are attached and enabled, and prints its maps when CMD
# exits (ply 2.4's ply.c: the command waits on a pipe until ply_start() has run; SIGCHLD ends
# the loop): no readiness to wait for. CMD notes the module's edge counters around its pulses.
# Each run is bounded (stop_ply); a ply that had to be killed counts as not available, with
# the reason.
# stop_ply PID DONE: wait until ply's command is done (it writes DONE last; at most 600 s),
# then 10 s for ply to exit by itself; then SIGINT (ply prints its maps), again every 5 s: ply
# 2.4 waits for the command's SIGCHLD in a bare pause() when its script has no printf, and once
# in 14 runs under icount it did not return from it. Status 0: it exited; 1: after SIGINT
# (said in ply-SCRIPT.sigint); 2: SIGKILL after a minute, or no DONE within 600 s.
stop_ply() {
	i=0
	while kill -0 "$1" 2>/dev/null && [ ! -e "$2" ] && [ $i -lt 6000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	i=0
	while [ -e "$2" ] && kill -0 "$1" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 "$1" 2>/dev/null || return 0
	j=0
	while [ -e "$2" ] && [ $j -lt 12 ] && kill -INT "$1" 2>/dev/null; do
		i=0
		while kill -0 "$1" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -0 "$1" 2>/dev/null || return 1
		j=$((j + 1))
	done
	kill -KILL "$1" 2>/dev/null
	return 2
}
# the command: PULSES pulses of the module, the edge counters before and after them into FILE
plycmd=$(mktemp)
trap 'rm -f "$plycmd"' EXIT
cat >"$plycmd" <<EOF
before=\$(cat $D/edges)
echo "\$1" >$D/pulses
echo 1 >$D/enable
while [ "\$(cat $D/enable)" != 0 ]; do sleep 0.1; done
echo "\$before \$(cat $D/edges)" >"\$2"
EOF
for s in delta dt-kprobe; do
	echo "  RUN     ply ply/$s.ply, $pulses pulses" >&2
	if ! command -v ply >/dev/null; then
		echo "ply is not installed (the target's release does not package it, or it is not" \
			"installed: host/deps.sh --target)" >"$out/ply-$s.unavailable"
		echo "          not available: $(cat "$out/ply-$s.unavailable")" >&2
		continue
	fi
	rm -f "$out/ply-$s.edges"
	ply -c "sh $plycmd $pulses $out/ply-$s.edges" "ply/$s.ply" >"$out/ply-$s.txt" \
		2>"$out/ply-$s.err" &
	pid=$!
	stop_ply $pid "$out/ply-$s.edges"
	stopped=$?
	wait $pid
	rc=$?
	echo 0 >$D/enable
	why=
	if [ $stopped = 2 ]; then
		why="ply did not end (600 s, or a minute of SIGINT after its command ended): SIGKILL"
	elif [ $rc != 0 ]; then
		why="ply exited with status $rc: $(grep . "$out/ply-$s.err" | head -n 1)"
	elif [ ! -s "$out/ply-$s.edges" ]; then
		why="ply's command did not issue the $pulses pulses: $(head -n 1 "$out/ply-$s.err")"
	elif ! grep -q '^	\[' "$out/ply-$s.txt"; then
		why="ply printed no histogram of the $pulses pulses (edges $(cat "$out/ply-$s.edges"))"
	fi
	if [ -n "$why" ]; then
		echo "$why" >"$out/ply-$s.unavailable"
		rm -f "$out/ply-$s.txt" "$out/ply-$s.edges" "$out/ply-$s.err"
		echo "          not available: $why" >&2
		continue
	fi
	[ $stopped = 1 ] && echo "ply still ran 10 s after its command ended: stopped with SIGINT" \
		>"$out/ply-$s.sigint"
	# ply reports lost events of its perf buffer on stderr ("lost N events"): kept for the report
	grep -i 'lost [0-9]* events' "$out/ply-$s.err" >"$out/ply-$s.lost" || rm -f "$out/ply-$s.lost"
	rm -f "$out/ply-$s.err"
done
exit 0
