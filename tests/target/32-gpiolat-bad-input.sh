#!/bin/sh
# timing: icount
# Target: bad input gives one error line, a non-zero exit status and nothing left attached.
. "$(dirname "$0")/lib.sh"

GPIOLAT=${GPIOLAT:-./gpiolat}
err=$(mktemp)
trap 'rm -f "$err"' EXIT

ours_left() {
	bpftool prog show 2>/dev/null | grep -c 'gpiolat_'
}
# run ARGS...: gpiolat, in a mount namespace of its own after the sh commands of $SETUP if set
setup=
run() {
	if [ -n "$setup" ]; then
		unshare -m sh -c "$setup"' && exec "$0" "$@"' $GPIOLAT "$@"
	else
		$GPIOLAT "$@"
	fi
}
# bad "what" STATUS WORD ARGS...: exit status STATUS, one stderr line containing WORD
bad() {
	what=$1 want=$2 word=$3
	shift 3
	run "$@" >/dev/null 2>"$err"
	rc=$?
	n=$(wc -l <"$err")
	if [ "$rc" = "$want" ] && [ "$n" = 1 ] && grep -q -e "$word" "$err" &&
		[ "$(ours_left)" = 0 ]; then
		ok "$what: status $rc, one line: $(cat "$err")"
	else
		notok "$what: status $rc (want $want), $n lines: $(cat "$err")"
	fi
}

bad "unknown chip" 1 "no GPIO chip" -l nosuchchip:0 -d 1
bad "line beyond the chip" 1 "no line 99" -l toggle-vchip:99 -d 1
bad "unknown global number" 1 "no GPIO line 5 " -l 5 -d 1
bad "bad line syntax" 2 "bad line" -l toggle-vchip:x
bad "bad duration" 2 "bad duration" -d 2x
bad "unknown option" 2 "unknown option" --nosuch
bad "-i shorter than 100ms" 2 "too short" -i 1ms -d 1
bad "--pulses 0" 2 "bad pulse count" --pulses 0
bad "--untraced without --pulses" 2 "--untraced needs --pulses" --untraced 10 -d 1
bad "--linear beyond 42ms" 2 "bad linear bucket width" --linear 43ms -d 1
# 184467440737095517 * 100 wraps past 2^64 to below 2^32
bad "--linear so wide that WIDTH * 100 wraps" 2 "bad linear bucket width" \
	--linear 184467440737095517 -d 1
bad "not a BTF file" 1 "no usable BTF" --btf /etc/hostname -d 1
bad "a file with no BTF in it" 1 "no usable BTF" --btf "$GPIOLAT" -d 1
# --btf, for kernels without BTF: a minimal BTF of just the types gpiolat reads
obj=$(dirname "$0")/../../out/build/gpiolat.bpf.o
min=$(mktemp)
if [ -d "$D" ] && [ -f "$obj" ] &&
	bpftool gen min_core_btf /sys/kernel/btf/vmlinux "$min" "$obj" 2>/dev/null; then
	# the hooks --btf serves (the loader's table: those that need no kernel BTF to attach)
	for m in $(GPIOLAT_EXE=$GPIOLAT gpio_hooks needs_btf false); do
		if $GPIOLAT --$m --btf "$min" -l toggle-vchip:0 --pulses 20 --untraced 0 --csv \
			2>"$err" | grep -q '^# summary .* count=20 '; then
			ok "$m with --btf (bpftool gen min_core_btf: $(wc -c <"$min") bytes): 20 pulses"
		else
			notok "$m with --btf: $(cat "$err")"
		fi
	done
else
	skip "--btf with a minimal BTF: needs the toggle module and out/build/gpiolat.bpf.o"
fi
rm -f "$min"
if [ -d "$D" ]; then
	echo 1 >$D/enable
	bad "--pulses while the module toggles" 1 "already toggling" --pulses 10
	echo 0 >$D/enable
fi
# Results never lost: the modes that run only on a target (the toggle module's pulses, utoggle
# on its chip) with stdout on /dev/full or closed fail in one line that says why, and a FIFO
# where a file is expected is refused at once (each bounded by a timeout: a regression fails, it
# does not hang)
# out "what" STATUS WORD REDIRECT CMD...: CMD with stdout as REDIRECT says so
out() {
	what=$1 want=$2 word=$3 redir=$4
	shift 4
	eval 'timeout 120 "$@"' "$redir" '2>"$err"'
	rc=$?
	n=$(wc -l <"$err")
	if [ "$rc" = "$want" ] && [ "$n" = 1 ] && grep -q -e "$word" "$err" &&
		[ "$(ours_left)" = 0 ] && { [ ! -d "$D" ] || [ "$(cat $D/enable)" = 0 ]; }; then
		ok "$what: status $rc, one line: $(cat "$err")"
	else
		notok "$what: status $rc (want $want), $n lines: $(cat "$err")"
	fi
}
if [ -d "$D" ]; then
	out "gpiolat --pulses 20 >/dev/full" 1 \
		"writing the results to stdout failed: No space left on device" '>/dev/full' \
		$GPIOLAT -l toggle-vchip:0 --pulses 20 --untraced 0
	out "gpiolat --pulses 20 --json >/dev/full" 1 "No space left on device" '>/dev/full' \
		$GPIOLAT -l toggle-vchip:0 --pulses 20 --untraced 0 --json
	out "gpiolat --pulses 20 with stdout closed" 1 "stdout is closed" '>&-' \
		$GPIOLAT -l toggle-vchip:0 --pulses 20 --untraced 0
	eq "after them: no pulse limit left" "$(cat $D/pulses)" 0
else
	notok "gpiolat's writes: the toggle module is not loaded"
fi
if [ -x "$UTOGGLE" ]; then
	out "utoggle -c 10 >/dev/full" 1 \
		"writing the results to stdout failed: No space left on device" '>/dev/full' \
		"$UTOGGLE" -l 1 -i 0 -c 10
	out "utoggle -c 10 with stdout closed" 1 "stdout is closed" '>&-' "$UTOGGLE" -l 1 -i 0 -c 10
	fifo=$(mktemp -u)
	mkfifo "$fifo"
	out "utoggle -M FIFO" 1 "is not a regular file" '>/dev/null' \
		"$UTOGGLE" -l 1 -i 0 -c 10 -M"$fifo"
	out "gpiolat --path --kmod FIFO" 2 "is a FIFO" '>/dev/null' $GPIOLAT --path --kmod "$fifo"
	out "gpiolat --overhead --baseline FIFO" 2 "is a FIFO" '>/dev/null' \
		$GPIOLAT --overhead --baseline "$fifo"
	rm -f "$fifo"
else
	notok "utoggle's writes: no $UTOGGLE"
fi

# A kernel without the tracepoint, kprobes or gpiod_set_value, made here without another
# kernel: each case runs in a mount namespace of its own (unshare -m: private mounts, gone with
# it) where what gpiolat probes is hidden: an empty folder over the event's tracefs folder or over
# tracefs, a /proc/kallsyms without gpiod_set_value and a kernel BTF without GPIO types (bpftool gen
# min_core_btf for the empty program's object: none of the GPIO types). The checks are the ones a
# kernel without CONFIG_GPIOLIB or CONFIG_KPROBES fails.
# hidden "what" STATUS WORD SETUP ARGS...: bad() with SETUP (sh) run first in the namespace
hidden() {
	setup=$4
	_h1=$1 _h2=$2 _h3=$3
	shift 4
	bad "$_h1" "$_h2" "$_h3" "$@"
	setup=
}
empty=$(mktemp -d)
syms=$(mktemp)
nogpio=$(mktemp)
grep -v ' gpiod_set_value$' /proc/kallsyms >"$syms"
eobj=$(dirname "$0")/../../out/build/empty.bpf.o
if command -v unshare >/dev/null 2>&1 && [ -f "$eobj" ] &&
	bpftool gen min_core_btf /sys/kernel/btf/vmlinux "$nogpio" "$eobj" 2>/dev/null; then
	hidden "no gpio:gpio_value in tracefs" 1 "gpio:gpio_value is not available" \
		"mount --bind $empty $T/events/gpio" -d 1
	hidden "no gpio:gpio_value in the BTF" 1 "gpio:gpio_value is not in this kernel" \
		true --btf "$nogpio" -d 1
	hidden "no kprobes (neither the PMU nor kprobe_events)" 1 "kprobes are not supported" \
		"mount --bind $empty /sys/bus/event_source/devices/kprobe &&
		 mount --bind $empty $T" --kprobe -d 1
	# (gpiolat looks in the kernel's BTF first, in kallsyms where the BTF does not name it)
	hidden "kprobe: no gpiod_set_value in kallsyms or the kernel's BTF" 1 \
		"gpiod_set_value is not in this kernel" \
		"mount --bind $syms /proc/kallsyms && mount --bind $nogpio /sys/kernel/btf/vmlinux" \
		--kprobe -d 1
	hidden "fentry: no gpiod_set_value in the kernel's BTF" 1 \
		"gpiod_set_value is not in this kernel (not in its BTF" \
		"mount --bind $nogpio /sys/kernel/btf/vmlinux" --fentry -d 1
	check "the namespaces' mounts are gone with them" \
		sh -c "! grep -q -e ' $T/events/gpio ' -e ' /proc/kallsyms ' /proc/self/mounts"
else
	notok "missing tracepoint/kprobes/function: needs unshare, bpftool and $eobj"
fi
rm -rf "$empty" "$syms" "$nogpio"
done_testing
