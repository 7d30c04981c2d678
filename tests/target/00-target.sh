#!/bin/sh
# kernels: std rt 6.12 6.12-rt
# timing: icount
# The emulated target (or a board) offers what gpiolat stands on.
. "$(dirname "$0")/lib.sh"

check "tracefs mounted at $T" test -f $T/trace
check "debugfs mounted at /sys/kernel/debug (ply looks for tracing there)" \
	test -d /sys/kernel/debug/tracing
check "bpffs mounted" sh -c 'grep -q " /sys/fs/bpf bpf " /proc/mounts'
check "the kernel has BTF" test -f /sys/kernel/btf/vmlinux
check "gpio:gpio_value exists" test -f $T/events/gpio/gpio_value/format
if [ -f $T/kprobe_events ]; then ok "kprobe_events present"; else notok "no kprobe_events"; fi
check "hist triggers configured" sh -c "grep -q hist $T/README"
check "function_graph tracer available" sh -c "grep -qw function_graph $T/available_tracers"
if [ "${GPIOLAT_TARGET:-}" = emulated ]; then
	check "target kernel modules available to modprobe" modprobe -n gpio-generic
	check "toggle module loaded at boot" test -d /sys/module/toggle
fi
if [ "$(uname -v | grep -c PREEMPT_RT)" = 1 ]; then
	eq "PREEMPT_RT kernel reports realtime" "$(cat /sys/kernel/realtime 2>/dev/null)" 1
fi
done_testing
