#!/bin/sh
# timing: icount
# gpiolat's saved state is trusted only in a /run/gpiolat of root's with mode 0700: a state file
# anybody could have made (/tmp/gpiolat, a /run/gpiolat of another user's, a link, a file of
# another user's, a toggle.ko of another user's) never makes it reload the toggle module.
# gpiolat --cleanup replays killed runs' undo journals, and leaves what none names (a gpiolat_sc
# or gpiolat_mb made by hand); the next --syscall-cost replays a killed one's at its start.
# --only with a name of no method is a usage error; SIGHUP puts everything back.
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/91-overhead
mkdir -p $tmp
S=/run/gpiolat

# the module as loaded now: its parameters and the number of its line (new on every load)
kmod_state() {
	echo "mode=$(cat /sys/module/toggle/parameters/mode) gpio=$(toggle_gpio)"
}
k0=$(kmod_state)
mode0=$(cat /sys/module/toggle/parameters/mode)
# a state file that would reload the module, as an attacker would write it
other=printk
[ "$mode0" = printk ] && other=continuous
evil_params() {
	printf '%s\nmode=%s\n' "$1" "$other" >"$2"
}

rm -rf $S /tmp/gpiolat
mkdir /tmp/gpiolat
chmod 0777 /tmp/gpiolat
evil_params "$KMOD" /tmp/gpiolat/toggle_params
./gpiolat --overhead --quick --only control >$tmp/run.out 2>&1
eq "a pre-made /tmp/gpiolat/toggle_params: the run exits 0" "$?" 0
eq "... and the module is not reloaded from it" "$(kmod_state)" "$k0"
./gpiolat --cleanup >$tmp/cleanup.out 2>&1
eq "... nor by gpiolat --cleanup (exit 0)" "$?" 0
eq "... the module as loaded" "$(kmod_state)" "$k0"
check "... and the file is left alone (not ours)" test -f /tmp/gpiolat/toggle_params
rm -rf /tmp/gpiolat

# refused STATE-DIR-SETUP WHAT: the run and --cleanup refuse (exit 1, say why), nothing reloaded
refused() {
	./gpiolat --overhead --quick --only control >$tmp/run.out 2>&1
	eq "$1: the run exits 1" "$?" 1
	check "$1: the run says why ($(head -n 1 $tmp/run.out))" grep -q "$2" $tmp/run.out
	eq "$1: the module is not reloaded" "$(kmod_state)" "$k0"
	./gpiolat --cleanup >$tmp/cleanup.out 2>&1
	eq "$1: gpiolat --cleanup exits 1" "$?" 1
	check "$1: --cleanup says why ($(head -n 1 $tmp/cleanup.out))" grep -q "$2" \
		$tmp/cleanup.out
	eq "$1: the module is still not reloaded" "$(kmod_state)" "$k0"
}

mkdir -m 0700 $S
evil_params "$KMOD" $S/toggle_params
chown 65534 $S
refused "a /run/gpiolat of uid 65534" "not a directory of root's with mode 0700"
chown 0 $S
chmod 0755 $S
refused "a /run/gpiolat of mode 0755" "not a directory of root's with mode 0700"
rm -rf $S

mkdir -m 0700 /tmp/gpiolat-link
evil_params "$KMOD" /tmp/gpiolat-link/toggle_params
ln -s /tmp/gpiolat-link $S
refused "/run/gpiolat a link" "(a link,"
rm -f $S
rm -rf /tmp/gpiolat-link

mkdir -m 0700 $S
evil_params "$KMOD" $S/toggle_params
chown 65534 $S/toggle_params
refused "a toggle_params of uid 65534" "not a regular file of root's"
rm -f $S/toggle_params

evil_params "$KMOD" $tmp/params
ln -s $tmp/params $S/toggle_params
refused "toggle_params a link" "toggle_params not used"
rm -f $S/toggle_params

mkdir -p /tmp/evil
cp "$KMOD" /tmp/evil/toggle.ko
# a directory above it that another user may write: the file could be swapped after the save
chmod 0777 /tmp/evil
evil_params /tmp/evil/toggle.ko $S/toggle_params
refused "a saved toggle.ko in a directory anybody may write" \
	"/tmp/evil is not a directory of root's that only root can write"
chmod 0755 /tmp/evil
chown 65534 /tmp/evil
evil_params /tmp/evil/toggle.ko $S/toggle_params
refused "a saved toggle.ko in a directory of uid 65534" \
	"/tmp/evil is not a directory of root's that only root can write"
chown 0 /tmp/evil
chown 65534 /tmp/evil/toggle.ko
evil_params /tmp/evil/toggle.ko $S/toggle_params
refused "a saved toggle.ko of uid 65534" "not a regular file of root's that only root can write"
chown 0 /tmp/evil/toggle.ko
mv /tmp/evil/toggle.ko /tmp/evil/other.ko
evil_params /tmp/evil/other.ko $S/toggle_params
refused "a saved module not named toggle.ko" "not an absolute path to a toggle.ko"
rm -rf $S /tmp/evil

# what no undo journal names is not ours, whatever its name: --cleanup leaves it (what a killed
# run leaves is in its journal: tests/target/93-*.sh, tests/host/test_undo_journal.py)
mkdir $T/instances/gpiolat_sc $T/instances/gpiolat_mb
echo 'p:gpiolat_mb/bench toggle_bench_fn' >>$T/kprobe_events
./gpiolat --cleanup >$tmp/cleanup.out 2>&1
eq "gpiolat --cleanup with no journal exits 0" "$?" 0
check "... says nothing to clean up" grep -q 'nothing to clean up' $tmp/cleanup.out
check "... the instances and the kprobe event no journal names are left alone" \
	sh -c "test -d $T/instances/gpiolat_sc && test -d $T/instances/gpiolat_mb &&
	grep -q gpiolat_mb/ $T/kprobe_events"
rmdir $T/instances/gpiolat_sc $T/instances/gpiolat_mb
echo '-:gpiolat_mb/bench' >>$T/kprobe_events

# --syscall-cost killed while its kprobe event is in: the next run replays its journal first (a
# leftover kprobe event no longer makes its method "not available"), and leaves nothing
./gpiolat --syscall-cost -m kprobe-event --rounds 100 >$tmp/killed.out 2>&1 &
pid=$!
i=0
while ! grep -q gpiolat_sc/ $T/kprobe_events && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -9 $pid
wait $pid 2>/dev/null
check "a killed --syscall-cost left its kprobe event" grep -q gpiolat_sc/ $T/kprobe_events
./gpiolat --syscall-cost --json -m kprobe-event --rounds 2 --batches 3 --batch 10 \
	>$tmp/sc.json 2>$tmp/sc.err
eq "--syscall-cost after a killed run's leftovers exits 0" "$?" 0
check "... says it removed them" grep -q 'removed the leftovers' $tmp/sc.err
if command -v python3 >/dev/null; then
	eq "... kprobe-event measured" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["methods"] if m["name"] == "kprobe-event"][0]
print(m["available"] or m["reason"])' $tmp/sc.json)" True
fi
check "... no instance gpiolat_sc left" test ! -d $T/instances/gpiolat_sc
check "... no gpiolat_sc probe event left" sh -c "! grep -q gpiolat_sc/ $T/kprobe_events"
check "... no journal left" sh -c "! ls $S/undo* 2>/dev/null"

for only in typo 'event,typo' 'nosuch*'; do
	./gpiolat --overhead --only "$only" >$tmp/bad.out 2>$tmp/bad.err
	eq "--only '$only': exit status 2" "$?" 2
	eq "--only '$only': one line ($(cat $tmp/bad.err))" "$(wc -l <$tmp/bad.err)" 1
done

# SIGHUP (a closed terminal) while function_graph is on at the top level: put back
./gpiolat --overhead --quick --only function_graph >$tmp/hup.out 2>&1 &
pid=$!
i=0
while [ "$(cat $T/current_tracer)" != function_graph ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -HUP $pid
wait $pid
eq "SIGHUP mid-run: exit status 1" "$?" 1
check "SIGHUP mid-run: says interrupted" grep -q interrupted $tmp/hup.out
eq "SIGHUP mid-run: current_tracer back" "$(cat $T/current_tracer)" nop
eq "the module as loaded at the end" "$(kmod_state)" "$k0"
rm -rf $S
done_testing
