# Target side: helpers for the in-target tests (POSIX sh; sourced by tests/target/*.sh).
# Each test script runs inside the target (vm/run, or natively on a board as root) and prints
# one line a check: "ok - what", "not ok - what", "skip - what: why". Its exit status is
# 0 when every check passed or was skipped, 1 otherwise.

T=/sys/kernel/tracing
D=/sys/kernel/debug/toggle
KMOD=${GPIOLAT_KMOD:-}
_failed=0

ok() {
	echo "ok - $*"
}
notok() {
	echo "not ok - $*"
	_failed=1
}
skip() {
	echo "skip - $*"
}
# check "what" command...: ok when the command succeeds
check() {
	_what=$1
	shift
	if "$@"; then ok "$_what"; else notok "$_what"; fi
}
# eq "what" got want
eq() {
	if [ "$2" = "$3" ]; then ok "$1 ($2)"; else notok "$1: got '$2', want '$3'"; fi
}
done_testing() {
	exit $_failed
}

# toggle_load ARGS...: (re)load the toggle module with these parameters
toggle_load() {
	toggle_unload
	insmod "$KMOD" "$@"
}
toggle_unload() {
	if [ -d /sys/module/toggle ]; then
		rmmod toggle
	fi
}
# edges: "rising falling" from the module
edges() {
	cat $D/edges
}
# pulses N: issue exactly N pulses and wait until the toggler is idle again
pulses() {
	echo "$1" >$D/pulses
	echo 1 >$D/enable
	while [ "$(cat $D/enable)" != 0 ]; do
		sleep 0.1
	done
}
