#!/bin/sh
# kernels: std 6.12 6.12-rt testing testing-rt arm arm64 arm-6.12 arm-6.12-rt arm64-6.12 arm64-6.12-rt arm-testing arm64-testing arm64-testing-rt
# timing: icount
# A smoke run of the whole chain on one kernel (tests/run.sh runs it on each kernel named
# above; the full suite runs on std): the target booted, the toggle module is loaded and its
# chip is there, each hook this kernel's configuration has gives a histogram of exactly PULSES
# pulses with nothing lost (a hook it lacks must fail to attach), --self-test passes, a quick
# overhead of a few rows measures, and no BPF program, link or pin is left behind.
# Needs no Python (a board, an ARM target): it reads gpiolat's text output.
. "$(dirname "$0")/lib.sh"
GPIOLAT=$PROJ/out/bin/gpiolat
PULSES=${PULSES:-500}

ok "booted: Linux $(uname -r) $(uname -m)$(uname -v | grep -o ' PREEMPT_RT')"
# the user space this target runs (the host's root, Debian 13's for the 6.12 targets, on ARM of
# their architecture: vm/userspace.sh, or the initramfs's busybox on Debian 12's ARM targets),
# and the tools of it the tests use
us=$(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release 2>/dev/null || true)
command -v bpftrace >/dev/null && us="$us, $(bpftrace --version 2>/dev/null)"
command -v gpioset >/dev/null &&
	us="$us, $(gpioset --version 2>/dev/null | sed -n '1s/^gpioset (libgpiod) /libgpiod /p')"
command -v ply >/dev/null &&
	us="$us, ply $(dpkg-query -W -f='${Version}' ply 2>/dev/null || ply --version 2>&1 | head -n 1)"
echo "# user space: ${us:-the initramfs (busybox)}"
# An emulated ARM target on a Debian root has it because apt said its release packages all of
# these for its architecture (vm/kernel.sh): each must be there and run
if [ "$(uname -m)" != x86_64 ] && [ "${GPIOLAT_TARGET:-}" = emulated ] &&
	[ -e /var/lib/dpkg/status ]; then
	for c in "bpftrace --version" "ply --version" "gpioinfo --version" "cyclictest --help" \
		"rtla --help" "chrt --version" "strace -V" "python3 -V"; do
		check "$c runs in this target's Debian root" sh -c "$c >/dev/null 2>&1"
	done
fi

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

# ---- one histogram per hook, exactly PULSES pulses, 0 lost
# Every hook whose kernel options this kernel has (tests/target/kconfig-needs, checked against
# the kernel's own configuration: kconfig_file) must work; one it lacks is excused by that
# check alone, and must then fail to attach (else the check is not exact: not ok)
kf=$(kconfig_file)
check "the kernel's configuration is found (${kf:-none}): the one excuse for a missing hook" \
	test -n "$kf"
# the hooks from the loader's table (gpiolat --list --json), not a list of this test's
hooks=$(GPIOLAT_EXE=$GPIOLAT gpio_hooks)
check "gpiolat --list --json names the hooks ($(echo ${hooks:-none}))" test -n "$hooks"
for h in $hooks; do
	miss=$(kconfig_missing "bpf-gpiolat-$h")
	if [ -z "$miss" ]; then
		gpiolat_pulses "$h" "$gpio" "$PULSES" --$h -l "$gpio"
		continue
	fi
	"$GPIOLAT" --$h -l "$gpio" --pulses 10 >$out 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		notok "$h: attached although the kernel lacks $miss (the configuration check is wrong)"
	else
		skip "$h: the kernel has no $miss ($kf); gpiolat says: $(head -n 1 $out)"
	fi
done

# ---- a quick overhead of a few rows: each row measured (a figure with a confidence interval)
rows=event,kprobe,bpf-gpiolat-tracepoint
"$GPIOLAT" --overhead --quick --only "$rows" >$out 2>&1
rc=$?
comment $out
eq "gpiolat --overhead --quick --only $rows exit status" $rc 0
for r in $(echo $rows | tr , ' '); do
	miss=$(kconfig_missing "$r")
	if [ -n "$miss" ]; then
		skip "overhead row $r: the kernel has no $miss ($kf)"
		continue
	fi
	# its table row: "event  untraced  1681.0  260.2  116%  3  56  1190 ns (...)"
	check "overhead row $r measured" grep -qE "^$r +[a-z-]+ +-?[0-9.]+ +[0-9.]+ " $out
done
check "tracefs left clean: no kprobe events" test ! -s $T/kprobe_events

# ---- BPF left as found: the programs and links (by type, tag and, where bpftool is, name),
# pins in bpffs, before a run, while it runs (the check sees them: it can fail) and after
bpf_state >$out.before
"$GPIOLAT" -l "$gpio" -d 120 >$out.run 2>&1 &
pid=$!
# readiness: the run's "Tracing ..." line, printed once its programs are attached, and two pulses
# since (lib.sh; at most 60 s), not a sleep. Its programs are held open earlier, from their load
# on, through an untraced phase (0.5 s) before the attach: seen then, they have no link yet (as
# 1 of 3 snapshots taken at the first program seen found on armhf 7.2, where bpf_state is quick)
check "gpiolat -d 120 attached (its 'Tracing' line)" gpiolat_ready $out.run
bpf_state >$out.during
check "a running gpiolat's programs are seen ($(grep -c '^gpiolat prog ' $out.during) held open)" \
	grep -q '^gpiolat prog ' $out.during
check "a running gpiolat's links are seen" grep -q '^gpiolat link ' $out.during
kill -INT $pid 2>/dev/null
wait $pid
eq "gpiolat -d 120 ended by SIGINT: exit status" $? 0
bpf_state >$out.after
if cmp -s $out.before $out.after; then
	ok "BPF as found after the runs: no program, link or pin left"
else
	notok "BPF changed by the runs"
	diff $out.before $out.after | sed -e 's/^/# /' | head -n 20
fi
rm -f $out $out.before $out.during $out.after $out.run
done_testing
