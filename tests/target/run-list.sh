#!/bin/sh
# Target side: run a list of target tests in one boot (tests/run.sh starts it through vm/run:
# one boot per target and timing mode, not one per test; tests/README).
#
#   sh tests/target/run-list.sh TARGET LOGDIR TEST...
#
# Each TEST (a tests/target/NN-name.sh) runs as it would alone (sh TEST, in the project's root,
# stdin /dev/null); its stdout and stderr go to LOGDIR/TARGET-NAME.log, the project's folder
# written over 9p (the host reads it there), and a test that exits non-zero gets the kernel's
# last messages appended, as vm/run shows them for one command. This script's stdout carries
# only the lines tests/run.sh reads, as each test starts and ends (the host's clock times them
# and stops a test that outlives its limit):
#   @@gpiolat-test start NAME
#   @@gpiolat-test end NAME STATUS
# A test must leave the target as it found it (the project's promise): after each test the
# state the tests' own snapshot covers (lib.sh's mode_snapshot: tracefs's tracers, events, probes
# and instances, the toggle module's parameters and debugfs settings, BPF programs and links,
# gpiolat's and its tools' processes, the undo folder) is compared with the one before it, and a
# difference is a "not ok" line in that test's log (the next test is compared with the new state).
# GPIOLAT_TEST_TARGET: TARGET, for a test that keeps files in the project's out/tests (two
# targets' boots may run at once: tests/README).
# GPIOLAT_TEST_BOOT: the names of this boot's tests (NN-name, space-separated), for a test that
# leaves a check to another one of the same boot (86 leaves its counted rows to 80).
cd "$(dirname "$0")/../.." || exit 125
target=$1
logdir=$2
export GPIOLAT_TEST_TARGET="$target"
shift 2
GPIOLAT_TEST_BOOT=
for t in "$@"; do
	GPIOLAT_TEST_BOOT="$GPIOLAT_TEST_BOOT${GPIOLAT_TEST_BOOT:+ }$(basename "$t" .sh)"
done
export GPIOLAT_TEST_BOOT
snapdir=$(mktemp -d /tmp/run-list.XXXXXX) || exit 125

# The text tools the tests run, as applets of the initramfs's static busybox (vm/init puts it at
# /run/gpiolat-busybox in a root over 9p; the ARM initramfs targets run busybox alone already),
# first on the tests' PATH. Under emulation a process's start is most of what a test costs: a
# dynamically linked tool of the root (its loader, its libraries' relocations) took 30 to 37 ms
# of the host's time, a busybox applet 6 ms, and std's deterministic tests start about 4600
# processes (measured 2026-11-28, std, TIMING=icount: 346 s of the host's time, 271 s with these
# applets, every test's ok lines the same). Only what the tests call and busybox does alike: not
# ls (bpf_state reads ls -l's lines), date, ps, stat, find or timeout (options that differ).
# gpiolat and the tools it measures (strace, bpftrace, ply, the togglers) are the root's own.
if [ -x /run/gpiolat-busybox ]; then
	mkdir "$snapdir/bin" || exit 125
	for a in cat grep egrep fgrep sed awk head tail sort cut tr wc cmp diff sleep basename \
		dirname mkdir rm rmdir mv cp xargs expr seq tee touch uniq od readlink mktemp env \
		chmod ln sync uname; do
		ln -s /run/gpiolat-busybox "$snapdir/bin/$a" || exit 125
	done
	PATH=$snapdir/bin:$PATH
	export PATH
fi

# snapshot FILE: the state a test must leave as found (the trace buffer's own lines are a test's
# output, not a setting: left out)
snapshot() {
	(. tests/target/lib.sh && SNAPSHOT_NO_TRACE=1 mode_snapshot) >"$1" 2>&1
}

snapshot "$snapdir/before"
for t in "$@"; do
	name=$(basename "$t" .sh)
	tlog=$logdir/$target-$name.log
	echo "@@gpiolat-test start $name"
	sh "$t" </dev/null >"$tlog" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		{
			echo "run-list: $name: exit status $rc; the target's last kernel messages:"
			dmesg | tail -n 25
		} >>"$tlog" 2>&1
	fi
	snapshot "$snapdir/after"
	if ! cmp -s "$snapdir/before" "$snapdir/after"; then
		{
			echo "not ok - $name leaves the target as it found it (the state the next test in this boot starts from)"
			diff "$snapdir/before" "$snapdir/after" | sed -e 's/^/# /' | head -n 20
		} >>"$tlog" 2>&1
		[ $rc -ne 0 ] || rc=1
	fi
	mv "$snapdir/after" "$snapdir/before"
	sync
	echo "@@gpiolat-test end $name $rc"
done
rm -rf "$snapdir"
