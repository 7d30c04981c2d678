#!/bin/sh
# kernels: arm
# timing: icount
# The BPF trust check (docs/overhead.md, "Trust"), both ways, in the deterministic mode
# (TIMING=icount on ARCH=arm: 1 instruction = 1 ns, no host noise; docs/timing.md).
# The check compares one quantity, the traced ns per set of each method phase, from two clocks:
# the module's batches and the program's own fall-to-fall periods. It agrees when |program -
# module| <= reference / burst + t(99.9 %, phases - 1) sd / sqrt(phases). Criteria, fixed before
# the first run of this test:
# - the clocks as they are: gpiolat's row on every hook of the loader's table (gpiolat --list
#   --json) measured (or excused by the kernel's configuration, tests/target/kconfig-needs:
#   fentry on 32-bit ARM, tp_btf without DEBUG_INFO_BTF) says "agree", with every
#   period inside the module's batches counted (no phase left out). Under icount the difference
#   is the module's fixed part c / (2 burst) (its two clock reads: a fixed instruction count)
#   plus a timer tick now and then, against an allowance of reference / burst (33 ns for a
#   166 ns untraced set): a false failure needs c above two whole untraced sets, which no tick
#   does (a tick in a 20-batch phase moves it by a few ns; docs/timing.md). The loader's own
#   false-alarm rate for normal noise is 1 in 1000 a row or less (tests/host/test_trust_check.py).
# - one clock broken on purpose: GPIOLAT_TRUST_SCALE=1.5 reads the program's periods 1.5 times
#   too long. The tracepoint row must then say "DISAGREE": its difference is 0.5 x the traced
#   set (above 0.5 x the reference, itself at least 0.5 x 166 ns) minus c / (2 burst) (at most
#   the allowance), so above the allowance whatever c is, and the noise term is near 0 here.
# - the empty program (no clock of its own) is "not judged", never "agree".
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1
need_icount
out=/tmp/trust.$$
trap 'rm -f $out.*' EXIT
# gpiolat's row on each hook of the loader's table (gpiolat --list --json), and one empty program
hooks=$(GPIOLAT_EXE=./gpiolat gpio_hooks)
check "gpiolat --list --json names the hooks ($(echo $hooks))" test -n "$hooks"
grows=$(for h in $hooks; do printf 'bpf-gpiolat-%s ' $h; done)
rows=$(echo $grows | tr ' ' ,),bpf-empty-tracepoint

# verdict FILE ROW: the trust line's word (agree, DISAGREE, not judged), "-" when none
verdict() {
	awk -v r="$2" '
		/^trust \(BPF\)/ { t = 1; next }
		t && $1 == r { v = $2; if (v == "not") v = "not judged"; print v; found = 1; exit }
		END { if (!found) print "-" }' "$1"
}
# measured FILE ROW: 0 when the matrix row was measured (not "not available")
measured() {
	awk -v r="$2" '$1 == r && $2 != "not" { f = 1 } END { exit !f }' "$1"
}

# ---- the clocks as they are
./gpiolat --overhead --reps 3 --only "$rows" >$out.a 2>$out.ae
rc=$?
eq "gpiolat --overhead --only '$rows' exit status" $rc 0
[ $rc = 0 ] || cat $out.ae
sed -n '/^trust (BPF)/,$p' $out.a | sed 's/^/# /'
for r in $grows; do
	if ! measured $out.a $r; then
		miss=$(kconfig_missing $r)
		if [ -n "$miss" ]; then
			skip "$r: not available, and the kernel lacks $miss"
		else
			notok "$r measured: $(grep "^$r " $out.a)"
		fi
		continue
	fi
	eq "$r: the module's clock and the program's agree" "$(verdict $out.a $r)" agree
	# every period inside the batches counted: no phase left out, 3 compared
	grep "^  $r " $out.a | grep -q ' 3 phases;' &&
		ok "$r: 3 method phases compared" || notok "$r: 3 method phases compared"
done
eq "bpf-empty-tracepoint (no clock of its own) is not judged" \
	"$(verdict $out.a bpf-empty-tracepoint)" "not judged"

# ---- the program's clock broken on purpose
GPIOLAT_TRUST_SCALE=1.5 ./gpiolat --overhead --reps 3 --only bpf-gpiolat-tracepoint \
	>$out.b 2>$out.be
rc=$?
eq "GPIOLAT_TRUST_SCALE=1.5 gpiolat --overhead exit status" $rc 0
[ $rc = 0 ] || cat $out.be
sed -n '/^trust (BPF)/,$p' $out.b | sed 's/^/# /'
eq "the program's clock scaled x1.5: the check says so" \
	"$(verdict $out.b bpf-gpiolat-tracepoint)" DISAGREE
grep -q 'scaled x1.5 ON PURPOSE' $out.b &&
	ok "the report says the clock was scaled on purpose" ||
	notok "the report says the clock was scaled on purpose"
done_testing
