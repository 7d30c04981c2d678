#!/bin/sh
# timing: icount
# The histogram mode's pulse-width shift (loader/modes/histogram/histo_report.c) is figured as --overhead figures
# it: the traced phase against the mean of the untraced phases before and after it (alt_stat).
# Its batches are not independent samples of the shift, and one traced phase gives no interval:
# so no spread is printed (text: "no spread"; JSON: ci95_ns null), not a standard error from
# the batches (which --pulses 5, one batch, made zero). The shift is the alternation's:
# traced - (before + after) / 2 of the phases' own means, to 0.1 ns (the JSON's rounding).
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1
need python3

tmp=$PROJ/out/tests/35-gpiolat-shift-spread
mkdir -p $tmp
toggle_load
for n in 5 2000; do
	./gpiolat --pulses $n >$tmp/out.txt 2>&1
	eq "gpiolat --pulses $n: exit status" "$?" 0
	grep '^overhead: pulse-width shift' $tmp/out.txt | sed -e 's/^/# /'
	check "--pulses $n: the shift has no spread (one traced phase)" \
		grep -q '^overhead: pulse-width shift [-+0-9.]* ns per set (no spread: ' $tmp/out.txt
	check "--pulses $n: no standard error from the batches" \
		sh -c "! grep -q 'standard error' $tmp/out.txt"
	./gpiolat --pulses $n --json >$tmp/out.json 2>$tmp/err
	eq "gpiolat --pulses $n --json: exit status" "$?" 0
	python3 - "$tmp/out.json" >$tmp/checks 2>&1 <<'PY'
import json, sys

s = json.load(open(sys.argv[1]))["overhead"]["shift"]
b, a, t = s["untraced_before"], s["untraced_after"], s["traced"]
want = t["mean_ns_per_set"] - (b["mean_ns_per_set"] + a["mean_ns_per_set"]) / 2
print("ok" if s["ci95_ns"] is None else "not ok", "- ci95_ns is null (%s)" % s["ci95_ns"])
print("ok" if abs(s["shift_ns_per_set"] - want) <= 0.2 else "not ok",
      "- shift %s = traced - (before + after) / 2 = %.2f" % (s["shift_ns_per_set"], want))
print("ok" if b["batches"] >= 1 and a["batches"] >= 1 else "not ok",
      "- both untraced phases timed (%d, %d batches)" % (b["batches"], a["batches"]))
PY
	cat $tmp/checks
	grep -q '^not ok' $tmp/checks && _failed=1
	[ "$(grep -c '^ok' $tmp/checks)" = 3 ] || _failed=1
done
done_testing
