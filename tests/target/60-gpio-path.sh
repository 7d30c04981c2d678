#!/bin/sh
# Target: the GPIO path (docs/gpio-path.md). Each toggler issues exactly the sets asked for (the
# module's edge counters, or a hist trigger on gpio:gpio_value); the raw toggler bypasses gpiolib
# (no events); gpiolat --path runs every toggler that exists here (all but mmap on the virtual
# chip, which says why), the ordering raw <= subsys < ioctl, sysfs < sh, bash holds (medians of
# the repetitions: steps of 5x and more), libgpiod is not faster than the ioctl it
# wraps (a one-sided test at 1e-4: the two differ by less than the noise here), the differences add up to the totals, the cross-check ran, the system is left as found,
# and bad input is one error line and a non-zero exit. The talk's t_libgpiod < t_sysfs is
# printed, not judged: it does not hold on the emulated x86 target in real time. The orderings
# at tight criteria, t_libgpiod < t_sysfs among them, are judged in the deterministic mode by
# 22-icount-invariants.sh (ARCH=arm, TIMING=icount); this test keeps what real time adds: the
# exact set counts, every toggler of the x86 target (bash, the host's tools), bad input.
. "$(dirname "$0")/lib.sh"

N=2000
SHN=200
GPIOLAT=$PROJ/out/bin/gpiolat
MMTOGGLE=$PROJ/out/bin/mmtoggle
TSH=$PROJ/out/bin/toggle.sh
out=$(mktemp)
err=$(mktemp)
trap 'gv_count_stop; echo 0 >$D/raw 2>/dev/null; rm -f "$out" "$err"' EXIT

for f in "$GPIOLAT" "$MMTOGGLE" "$TSH"; do
	[ -x "$f" ] || notok "built: $f is missing (make)"
done
# big batches, back to back: a kernel phase's timing is not ktime_get_ns() every 10 sets
toggle_load mode=continuous burst=1000 || notok "toggle.ko loads with mode=continuous burst=1000"
kg=$(toggle_gpio)
ug=$(($(vchip_base) + 1))
before=$(gv_state)

# ---- exact set counts -------------------------------------------------------------------------
echo 1 >$D/raw
eq "raw: the module's raw target is the virtual chip's floor" \
	"$(cut -d: -f1 $D/raw_target)" "vchip line=0"
gv_count_start "$kg"
e0=$(edges)
pulses $N
e1=$(edges)
eq "raw: $N pulses move the edge counters by $N each" \
	"$(($(echo "$e1" | cut -d' ' -f1) - $(echo "$e0" | cut -d' ' -f1))) $(($(echo "$e1" | cut -d' ' -f2) - $(echo "$e0" | cut -d' ' -f2)))" "$N $N"
eq "raw: no gpio:gpio_value set events (gpiolib bypassed)" "$(gv_count 1) $(gv_count 0)" "0 0"
gv_count_stop
echo 0 >$D/raw
gv_count_start "$kg"
pulses $N
eq "subsys: $N pulses are $N sets to 1 and $N to 0 in gpio:gpio_value" \
	"$(gv_count 1) $(gv_count 0)" "$N $N"
gv_count_stop

for shell in sh bash; do
	command -v $shell >/dev/null || { notok "$shell is on PATH"; continue; }
	gv_count_start "$ug"
	$shell "$TSH" "$ug" $SHN >"$out" 2>"$err"
	rc=$?
	eq "$shell toggle.sh prints its one 'loop' line" "$(cat "$out")" loop
	# the request (direction out, low) is one more set to 0
	eq "$shell toggle.sh: exit 0, $SHN sets to 1, $SHN + 1 (the request) to 0" \
		"$rc $(gv_count 1) $(gv_count 0)" "0 $SHN $((SHN + 1))"
	gv_count_stop
done
eq "toggle.sh leaves the line unexported" "$(test -e /sys/class/gpio/gpio$ug && echo exported)" ""

# ---- mmap on a chip without registers; bad input ---------------------------------------------
"$MMTOGGLE" toggle-vchip 1 100 >"$out" 2>"$err"
eq "mmtoggle on toggle-vchip: exit 2, one line, 'not available'" \
	"$? $(wc -l <"$err") $(grep -c '^mmtoggle: not available: .*has no registers' "$err")" "2 1 1"
for bad in "--only frob" "--only mmap" "--reps 1" "--frob"; do
	# shellcheck disable=SC2086
	"$GPIOLAT" --path $bad >"$out" 2>"$err"
	rc=$?
	check "gpiolat --path $bad: non-zero exit, one error line, nothing on stdout" \
		test $rc -ne 0 -a "$(wc -l <"$err")" = 1 -a ! -s "$out"
	sed 's/^/# /' "$err"
done
eq "bad input leaves the module idle, raw off, depth 10" \
	"$(cat $D/enable) $(cat $D/raw) $(cat $D/depth)" "0 0 10"

# ---- gpiolat --path ---------------------------------------------------------------------------
"$GPIOLAT" --path --csv -r 5 -p $N -s $SHN >"$out" 2>"$err"
eq "gpiolat --path --csv exits with 0" $? 0
cat "$out" "$err" | sed 's/^/# /'
# median and mean of a toggler row (counted from the end: "what" is quoted and has commas);
# mean and 99.9 % half-width of a difference row
med() { awk -F, -v n="$1" '$1 == "toggler" && $2 == n { print $(NF - 1) }' "$out"; }
mean() { awk -F, -v n="$1" '$1 == "toggler" && $2 == n { print $(NF - 7) }' "$out"; }
dmean() { awk -F, -v n="$1" '$1 == "difference" && $2 == n { print $5 }' "$out"; }
d999() { awk -F, -v n="$1" '$1 == "difference" && $2 == n { print $NF }' "$out"; }
for v in t_raw t_subsys t_ioctl t_libgpiod t_sysfs t_sh t_bash; do
	check "$v was measured (5 repetitions)" [ -n "$(med $v)" ]
done
check "t_mmap is listed as not available, with why" \
	grep -q '^unavailable,t_mmap,".*no registers' "$out"
# lt A B STRICT: A < B (or <=)
lt() { awk -v a="$(med "$1")" -v b="$(med "$2")" -v s="$3" \
	'BEGIN { exit !(a != "" && b != "" && (s ? a + 0 < b + 0 : a + 0 <= b + 0)) }'; }
check "ordering: t_raw <= t_subsys" lt t_raw t_subsys 0
check "ordering: t_subsys < t_ioctl" lt t_subsys t_ioctl 1
# libgpiod is ioctl() plus a little user-space work: its known effect is a few ns to tens of
# ns, far below the emulated noise of the difference (-53 +- 1076 ns, 95 %, in a CI run), so
# 5 repetitions can show its sign only: libgpiod is not faster than the ioctl it wraps, a
# one-sided test at ALPHA_LIBGPIOD (tests/target/criteria.py, 1e-4): a correct toggler (true
# difference >= 0) fails at most 1 run in 10000 (tests/host/test_criteria_sim.py checks it)
d95() { awk -F, -v n="$1" '$1 == "difference" && $2 == n { print $6 }' "$out"; }
if host_tool python3; then
	check "t_libgpiod - t_ioctl is not below 0 (one-sided test, false failures 1 in 10000)" \
		env PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$PROJ/tests/target" python3 -c '
import sys
from criteria import ALPHA_LIBGPIOD, not_below_zero
m, h95, h999 = (float(x) for x in sys.argv[1:])
ok, up = not_below_zero(m, h95, h999, ALPHA_LIBGPIOD)
print(f"# one-sided {1 - ALPHA_LIBGPIOD:.2%} upper end {up:.1f} ns")
sys.exit(not ok)' "$(dmean 't_libgpiod - t_ioctl')" "$(d95 't_libgpiod - t_ioctl')" \
		"$(d999 't_libgpiod - t_ioctl')"
fi
echo "# t_libgpiod - t_ioctl: $(dmean 't_libgpiod - t_ioctl') ns, 99.9 % half-width $(d999 't_libgpiod - t_ioctl') ns"
# The talk's t_libgpiod < t_sysfs is not resolved on the emulated x86 target (Debian 6.1, TCG):
# sysfs C came out below libgpiod in 5 of 8 runs there (docs/gpio-path.md); printed, not judged.
echo "# medians: t_ioctl $(med t_ioctl), t_libgpiod $(med t_libgpiod), t_sysfs $(med t_sysfs) ns"
check "ordering: t_sysfs < t_sh" lt t_sysfs t_sh 1
check "ordering: t_sysfs < t_bash" lt t_sysfs t_bash 1
# the differences, as printed, add up to the totals (0.1 ns rounding of each)
sum=$(awk -v a="$(dmean 't_subsys - t_raw')" -v b="$(dmean 't_ioctl - t_subsys')" \
	-v c="$(dmean 't_sysfs - t_ioctl')" -v d="$(dmean 't_bash - t_sysfs')" \
	-v r="$(mean t_raw)" -v t="$(mean t_bash)" \
	'BEGIN { x = r + a + b + c + d - t; print (x < 0.5 && x > -0.5) ? "yes" : "no " x }')
eq "t_raw + the four differences = t_bash" "$sum" yes
sum=$(awk -v a="$(dmean 't_libgpiod - t_ioctl')" -v i="$(mean t_ioctl)" \
	-v l="$(mean t_libgpiod)" 'BEGIN { x = i + a - l; print (x < 0.2 && x > -0.2) ? "yes" : "no" }')
eq "t_ioctl + (t_libgpiod - t_ioctl) = t_libgpiod" "$sum" yes
eq "gpiolat --path leaves the module idle, raw off, depth 10" \
	"$(cat $D/enable) $(cat $D/raw) $(cat $D/depth)" "0 0 10"
eq "no tracefs instance left" "$(ls $T/instances | grep -c gpiolat_path)" 0

# ---- the cross-check (text output, once per toggler) -------------------------------------------
"$GPIOLAT" --path -r 2 -p $N -s $SHN >"$out" 2>"$err"
eq "gpiolat --path (text) exits with 0" $? 0
sed 's/^/# /' "$out"
for v in t_subsys t_ioctl t_libgpiod t_sysfs t_sh t_bash; do
	check "cross-check of $v ran" grep -q "^  $v *own clock .* own/events [0-9.]*$" "$out"
done
check "cross-check of t_raw says why not" grep -q '^  t_raw .*bypasses gpiolib' "$out"
eq "the gpio:gpio_value event is left as found" "$(gv_state)" "$before"
toggle_load
done_testing
