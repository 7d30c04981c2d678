#!/bin/sh
# gpiolat -i: every interval's figures come from one consistent state of the per-CPU histograms
# (bpf/gpiolat.bpf.c writes one of two halves, the loader flips them and reads the old one at
# rest, loader/core/gpio_bpf.c). On a busy toggler (the module back to back, mode=continuous
# burst=1000) read every 100 ms for 20 s: in every interval of every line the log2 buckets sum
# to its pairs (count), the linear buckets too. A read
# that tears (pairs counted, its bucket not yet) breaks the first exactly; the criterion is
# exact, so it has no false failures.
. "$(dirname "$0")/lib.sh"
cd "$PROJ" || exit 1
need python3

tmp=$PROJ/out/tests/34-gpiolat-interval-snapshot
mkdir -p $tmp
toggle_load mode=continuous burst=1000
g=$(toggle_gpio)
./gpiolat -l "$g" -i 100ms -d 20s --linear 1us --json >$tmp/out.json 2>$tmp/err
eq "gpiolat -i 100ms -d 20s --json: exit status" "$?" 0
python3 - "$tmp/out.json" >$tmp/checks 2>&1 <<'PY'
import json, sys

docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ivs = [d for d in docs if d.get("interval") is not None]
total = [d for d in docs if d.get("interval") is None][-1]
bad, pairs = [], 0
for d in ivs:
    for ln in d["lines"]:
        lg = sum(b["count"] for b in ln["log2"])
        lin = ln.get("linear")
        li = sum(b["count"] for b in lin["buckets"]) + lin["overflow"] if lin else ln["count"]
        pairs += ln["count"]
        if lg != ln["count"] or li != ln["count"]:
            bad.append((d["interval"], ln["count"], lg, li))
tot = sum(ln["count"] for ln in total["lines"])
# a stall skips boundaries (the emulated target reads about 140 of 200): many reads all the same
print("ok" if len(ivs) >= 50 else "not ok",
      "- %d intervals read while the programs ran (at least 50)" % len(ivs))
print("ok" if pairs > 0 else "not ok", "- the intervals saw %d pairs" % pairs)
print("ok" if not bad else "not ok",
      "- every interval's log2 and linear buckets sum to its pairs (%d torn: %s)"
      % (len(bad), bad[:5]))
# the totals have the tail after the last interval's read besides
print("ok" if 0 < pairs <= tot else "not ok",
      "- the intervals' pairs are in the totals' (%d, %d)" % (pairs, tot))
PY
cat $tmp/checks
# the checks' own "not ok" lines fail the test (and a Python error, which prints no "ok")
grep -q '^not ok' $tmp/checks && _failed=1
[ "$(grep -c '^ok' $tmp/checks)" = 4 ] || _failed=1
toggle_load
done_testing
