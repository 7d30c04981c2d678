#!/bin/sh
# timing: icount
# gpiolat --overhead reads the toggle module's state instead of assuming it: a mode other than
# burst, or a depth other than 10 when a kprobes row is asked for, is refused in one line (exit
# 1, nothing touched); the trace_printk row's reloads keep the module's depth, and its
# parameters and depth are as before after the run.
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1

tmp=$PROJ/out/tests/84-overhead-module-state
mkdir -p $tmp
# refused "what" WORD ARGS...: exit 1, one stderr line containing WORD, no instance made
refused() {
	what=$1 word=$2
	shift 2
	ls $T/instances >$tmp/inst.before
	./gpiolat --overhead --quick "$@" >$tmp/out 2>$tmp/err
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <$tmp/err)" = 1 ] && grep -q -- "$word" $tmp/err &&
		ls $T/instances | cmp -s - $tmp/inst.before; then
		ok "$what: exit 1, one line: $(cat $tmp/err)"
	else
		notok "$what: exit $rc, stderr: $(cat $tmp/err)"
	fi
}

echo 4 >$D/depth
refused "depth 4 with the kprobes series" "depth 10, and it is 4" --only 'kprobes-*'
refused "depth 4 with one kprobes row" "echo 10 >" --only kprobes-3
# a row that does not use the chain runs at any depth
./gpiolat --overhead --quick --only control --json >$tmp/control.json 2>$tmp/err
eq "depth 4, the control row alone: exit 0 ($(cat $tmp/err))" "$?" 0

# the trace_printk row reloads the module twice per repetition: its depth stays 4
if [ -n "$KMOD" ]; then
	params_before=$(grep -H . /sys/module/toggle/parameters/* | sort)
	./gpiolat --overhead --quick --only trace_printk --kmod "$KMOD" >$tmp/printk 2>$tmp/err
	eq "the trace_printk row exits 0 ($(tail -n 1 $tmp/err))" "$?" 0
	eq "depth kept across its reloads" "$(cat $D/depth)" 4
	eq "the module's parameters as before" "$(grep -H . /sys/module/toggle/parameters/* | sort)" \
		"$params_before"
else
	notok "the trace_printk row: no toggle.ko given (GPIOLAT_KMOD)"
fi
echo 10 >$D/depth

toggle_load mode=continuous
refused "mode=continuous" "mode=continuous (load it with mode=burst)" --only event
toggle_load
eq "the module is back in burst mode" "$(cat /sys/module/toggle/parameters/mode)" burst
done_testing
