#!/bin/sh
# Target: bad input gives one error line, a non-zero exit status and nothing left attached.
. "$(dirname "$0")/lib.sh"

GPIOLAT=${GPIOLAT:-./gpiolat}
err=$(mktemp)
trap 'rm -f "$err"' EXIT

ours_left() {
	bpftool prog show 2>/dev/null | grep -c 'gpiolat_'
}
# bad "what" STATUS WORD ARGS...: exit status STATUS, one stderr line containing WORD
bad() {
	what=$1 want=$2 word=$3
	shift 3
	$GPIOLAT "$@" >/dev/null 2>"$err"
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
	for m in tracepoint kprobe; do
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
# a missing tracepoint or function cannot be made here: tests/host covers those (the host
# kernel has neither GPIO nor kprobes)
skip "missing tracepoint/function: covered on the host (tests/host/test_loader_cli.py)"
done_testing
