#!/bin/sh
# kernels: std 6.12 6.12-rt testing testing-rt arm arm64 arm-6.12 arm-6.12-rt arm64-6.12-rt arm-testing arm64-testing arm64-testing-rt
# A smoke run of the whole chain on one kernel (tests/run.sh runs it on each kernel named
# above; the full suite runs on std): the target booted, the toggle module is loaded and its
# chip is there, each hook this kernel has gives a histogram of exactly PULSES pulses with
# nothing lost, --self-test passes, and a quick overhead of a few rows measures.
# Needs no Python (a board, an ARM target): it reads gpiolat's text output.
. "$(dirname "$0")/lib.sh"
GPIOLAT=$PROJ/out/bin/gpiolat
PULSES=${PULSES:-500}

ok "booted: Linux $(uname -r) $(uname -m)$(uname -v | grep -o ' PREEMPT_RT')"

# ---- the module and its chip
check "toggle module loaded" test -d /sys/module/toggle
chip=$(sed -n 's/^gpio=[0-9]* chip=\([^ ]*\) .*/\1/p' $D/gpio)
gpio=$(toggle_gpio)
found=
for c in /sys/class/gpio/gpiochip*; do
	[ "$(cat "$c/label" 2>/dev/null)" = "$chip" ] || continue
	base=$(cat "$c/base")
	ngpio=$(cat "$c/ngpio")
	line=$(sed -n 's/.* line=\([0-9]*\)$/\1/p' $D/gpio)
	[ "$gpio" -eq $((base + line)) ] && [ "$line" -lt "$ngpio" ] && found=$c
done
if [ -n "$found" ]; then
	ok "chip $chip appears in gpiolib ($found, gpio $gpio)"
else
	notok "chip '$chip' of the module ($(cat $D/gpio)) is not in /sys/class/gpio"
fi
case $(ls /dev/gpiochip* 2>/dev/null) in
'') notok "no /dev/gpiochip* (the chardev uAPI)" ;;
*) ok "chardev uAPI: $(ls /dev/gpiochip* | tr '\n' ' ')" ;;
esac

# ---- --self-test
out=/tmp/smoke.$$
"$GPIOLAT" --self-test >$out 2>&1
rc=$?
comment $out
eq "gpiolat --self-test exit status" $rc 0

# the JIT changes every cost: --self-test says whether programs run JIT-compiled or interpreted
jit=$(cat /proc/sys/net/core/bpf_jit_enable 2>/dev/null)
case $jit in
0) want="off: programs run interpreted" ;;
'') want="unknown" ;;
*) want="on" ;;
esac
check "--self-test: BPF JIT $want (bpf_jit_enable=${jit:-none})" \
	grep -q "^ *info *BPF JIT *$want" $out

# ---- one histogram per hook the kernel has, exactly PULSES pulses, 0 lost
# hooks: the tracepoint always; kprobes where kprobe_events is; fentry on x86_64, where every
# Debian kernel has BPF trampolines; elsewhere (32-bit ARM has none, arm64 6.1 cannot attach
# one to a kernel function) where --self-test says it attaches, else skipped with its reason
hooks=tracepoint
[ -f $T/kprobe_events ] && hooks="$hooks kprobe"
fentry=$(sed -n 's/^ *\([a-z]*\) *fentry  *\(.*\)$/\1: \2/p' $out)
if [ "$(uname -m)" = x86_64 ] || [ "${fentry%%:*}" = ok ]; then
	hooks="$hooks fentry"
else
	skip "fentry on $(uname -m): --self-test says ${fentry:-nothing}"
fi
for h in $hooks; do
	gpiolat_pulses "$h" "$gpio" "$PULSES" --$h -l "$gpio"
done

# ---- a quick overhead of a few rows: each row measured (a figure with a confidence interval)
rows=event,kprobe,bpf-gpiolat-tracepoint
"$GPIOLAT" --overhead --quick --only "$rows" >$out 2>&1
rc=$?
comment $out
eq "gpiolat --overhead --quick --only $rows exit status" $rc 0
for r in $(echo $rows | tr , ' '); do
	# its table row: "event  untraced  1681.0  260.2  116%  3  56  1190 ns (...)"
	check "overhead row $r measured" grep -qE "^$r +[a-z-]+ +-?[0-9.]+ +[0-9.]+ " $out
done
rm -f $out
check "tracefs left clean: no kprobe events" test ! -s $T/kprobe_events
check "no BPF program of gpiolat left" sh -c "! ls /sys/fs/bpf | grep -q gpiolat"
done_testing
