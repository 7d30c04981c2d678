#!/bin/sh
# gpiolat --overhead: every row proves its method fired on every set of every phase it measured
# (docs/overhead.md "Fired"), in the deterministic mode, on std and on Debian 13's and testing's
# kernels with their own bpftrace (0.23 on 6.12: its kprobe came in after the phase had begun).
# One row of each way of counting: ring-buffer events, hist hits, the synthetic event's hits,
# kprobe_profile, uprobe_profile, the tracers' lines, gpiolat's histogram, bpftrace's and ply's
# own maps; and a row without a count (strace). Then a method made not to fire in one repetition (GPIOLAT_WITHHOLD) must print no
# figure: "not measured: fired on k of n sets".
# kernels: std 6.12 testing
# timing: icount
# Criteria, chosen before the run: a counted row fired on exactly the sets its phases ran (a
# count, not a timing: no false failure; a lost or late probe gives fewer); a row without a
# count: sd of its repetitions <= 10 ns + 5 % of |mean| (a method missing one phase of 2 gives
# an sd of 1.4 x its mean, one of 3 at least 0.58 x, so every row above 25 ns would fail it);
# the withheld rows: exactly 200 of 300 sets, phase 2 (or 3) short, no figure in the JSON or
# the text. False failures: the counts none (exact); the sd bound's, under 1 in 1000 a run:
# icount repeats a phase to the instruction but for an interrupt landing in it, strace's sd
# measured 0.2 to 11.8 ns (docs/overhead.md "Fired", std, 6.12, testing, 2026-11-26, 50-pulse
# phases) against a bound of about 1750 ns at its 34.9 us mean: 150 times the largest seen. The
# counted rows run at the least size the loader takes (2 repetitions of 20-pulse phases, as
# 90-overhead-state's run; the withheld runs keep --quick's 3): a count needs no size. strace's
# row keeps --quick (3 repetitions of 50-pulse phases), the size its bound was chosen at: at 2 x
# 20 (tried from 2026-11-28, chosen on one run each: sd 67.2, 0.8 and 7.4 ns on std, 6.12 and
# testing) a clean clone's testing boot failed it the same day (sd 2132.7 ns against 1721.8),
# and 12 runs in one testing boot, 6 of the loader before and 6 after that day's change to its
# kprobe optimizer watch, gave sd 0 to 28 ns in 10 and 1738.1 (before: above its bound of 1707.7)
# and 1630.5 (after) in the other two: one repetition about 2300 ns a set dearer, an event of
# about 90 us in one of its 40-set phases. Spread over a 100-set phase such an event is under 1 us
# a set: a 3-repetition sd of at most about 0.5 us, 3 times under the bound. 8 runs at --quick in
# one testing boot after that change: sd 0 to 12.2 ns.
. "$(dirname "$0")/lib.sh"
need_icount
need python3
cd "$PROJ" || exit 1

out=$PROJ/out/tests/${GPIOLAT_TEST_TARGET:+$GPIOLAT_TEST_TARGET-}86-overhead-fired
mkdir -p "$(dirname "$out")"
# (kprobe_profile and gpiolat's histogram are the withheld run's below; a row dearer to run
# under emulation, the BPF rows' BTF parsing above all, is left to 80-overhead-matrix's whole
# matrix, std's)
rows='event-hist,event-synthetic,function_graph,bpftrace-dt-kprobe,ply-dt-kprobe'
rows=$rows',user-ioctl-uprobe,user-ioctl-trace-marker'
# In a boot that also runs 80-overhead-matrix (std's), the counted rows are its: its whole matrix
# has each of them, and overhead_rows.py checks every counted row of it as here (fired on every
# set of each phase, a counted phase a repetition). Here then only the row without a count and
# the withheld runs: function_graph's repetitions and bpftrace's starts cost the most of this
# test under emulation (std, icount, one boot on a quiet host, 2026-11-28: the test 29.6 s of
# wall time; function_graph's row alone 18.9 s, bpftrace-dt-kprobe's 8.2 s)
case " ${GPIOLAT_TEST_BOOT:-} " in
*" 80-overhead-matrix "*)
	rows=
	echo "# the counted rows are 80-overhead-matrix's in this boot: only user-ioctl-strace here"
	;;
esac
if [ -n "$rows" ]; then
	./gpiolat --overhead --reps 2 --pulses 20 --json --only "$rows" >"$out.json" 2>"$out.err"
	eq "gpiolat --overhead --only (one row of each count) exits 0" "$?" 0
	comment "$out.err"
fi
# the row without a count at the size its bound was chosen at (above)
./gpiolat --overhead --quick --json --only user-ioctl-strace >"$out-strace.json" 2>"$out-strace.err"
eq "gpiolat --overhead --quick --only user-ioctl-strace exits 0" "$?" 0
comment "$out-strace.err"
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 - "$out.json" "$rows" \
	"$out-strace.json" user-ioctl-strace <<'PY'
import json, math, sys
from rows import line, not_available, fired_line, done
for path, rows in zip(sys.argv[1::2], sys.argv[2::2]):
    if not rows:
        continue
    d = json.load(open(path))
    m = {r["method"]: r for r in d["methods"]}
    want = rows.split(",")
    line(sorted(m) == sorted(want), f"the rows asked for: {', '.join(m)}")
    for n in want:
        r = m.get(n)
        if not r:
            continue
        if not r.get("measured"):
            not_available(r)  # a row that did not fire has no such excuse: not ok
            continue
        f = r.get("fired", {})
        if f.get("counted"):
            fired_line(r, f", {r['overhead_ns']:.1f} ns per set")
        else:
            sd = r["sd_ns"] if r["sd_ns"] is not None else 0.0
            bound = 10 + 0.05 * abs(r["overhead_ns"])
            line(sd <= bound, f"{n}: no count ({f.get('why')}): repetitions "
                 f"{[round(x, 1) for x in r['differences_ns']]}, sd {sd:.1f} ns <= {bound:.1f}")
done()
PY
[ $? = 0 ] || _failed=1
# the method withheld in one repetition: its count says so, and no figure is printed
GPIOLAT_WITHHOLD=kprobe:2,bpf-gpiolat-tracepoint:3 ./gpiolat --overhead --quick --json \
	--only kprobe,bpf-gpiolat-tracepoint >"$out-withheld.json" 2>"$out-withheld.err"
eq "GPIOLAT_WITHHOLD: gpiolat --overhead exits 0" "$?" 0
PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$PROJ/tests/target python3 - "$out-withheld.json" <<'PY'
import json, sys
from rows import line, done
d = json.load(open(sys.argv[1]))
m = {r["method"]: r for r in d["methods"]}
for n, short in (("kprobe", 2), ("bpf-gpiolat-tracepoint", 3)):
    r = m.get(n, {})
    f = r.get("fired", {})
    line(r.get("measured") is False and "overhead_ns" not in r and "not_available" not in r
         and r.get("not_measured", "").startswith("fired on 200 of 300 sets")
         and f"phase {short} (0 of 100)" in r.get("not_measured", ""),
         f"{n} withheld in repetition {short}: not measured: {r.get('not_measured')}")
done()
PY
[ $? = 0 ] || _failed=1
GPIOLAT_WITHHOLD=kprobe:2 ./gpiolat --overhead --quick --only kprobe >"$out-withheld.txt" 2>&1
check "the text: 'kprobe  not measured: fired on 200 of 300 sets', no figure" \
	grep -E -q '^kprobe +not measured: fired on 200 of 300 sets \([^0-9]*phase 2 \(0 of 100\)\)$' \
	"$out-withheld.txt"
comment "$out-withheld.txt"
eq "nothing left on: no gpiolat kprobe event" "$(grep -c gpiolat $T/kprobe_events)" 0
done_testing
