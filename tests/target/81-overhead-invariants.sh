#!/bin/sh
# gpiolat --overhead: invariants that hold on any machine, emulated or not. More repetitions
# than --quick where emulation is noisy (the kprobe series), rather than weaker checks.
. "$(dirname "$0")/lib.sh"
need python3
cd "$PROJ" || exit 1

out=$PROJ/out/tests/81-overhead
# invariants PYTHON-CONDITIONS...: judged on the JSON in $1
judge() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = {r["method"]: r for r in d["methods"]}
bad = 0
def line(ok, what):
    global bad
    bad |= not ok
    print(("ok - " if ok else "not ok - ") + what)
def have(*names):
    if any(n not in m for n in names):
        return False  # not in this run
    missing = [n for n in names if not m.get(n, {}).get("measured")]
    for n in missing:
        print(f"skip - {n}: {m.get(n, {}).get('not_available', 'not run')}")
    return not missing
def fig(n):
    return f"{m[n]['overhead_ns']:.0f} +- {m[n]['ci95_ns']:.0f} ns"
fits = d["linear_fits"]
for s in ("events", "kprobes"):
    f = fits[s]
    if f["points"] >= 3 and "slope_ns" in f:
        line(f["slope_ns"] > 0 and f["r2"] >= 0.9,
             f"{s}: overhead grows with their number: {f['slope_ns']:.0f} ns each, R^2 {f['r2']:.3f} "
             f"({f['points']} points; talk {f.get('talk_slope_ns')} ns)")
if have("function", "function_graph"):
    line(m["function_graph"]["overhead_ns"] > m["function"]["overhead_ns"],
         f"function_graph ({fig('function_graph')}) > function ({fig('function')})")
for n in ("event-filter", "event-trigger"):
    if have(n):
        # the median of the paired repetitions (each against the bare event beside it): a
        # trigger adds ~0.1-0.3 us, and one stalled emulated phase moves a mean of few by more
        line(m[n]["median_ns"] > 0,
             f"{n} costs more than the bare event: median {m[n]['median_ns']:.0f} ns on top of "
             f"it ({fig(n)}, {m[n]['repetitions']} repetitions)")
for h in ("tracepoint", "kprobe", "fentry"):
    e, g = f"bpf-empty-{h}", f"bpf-gpiolat-{h}"
    if have(e, g):
        line(m[e]["overhead_ns"] <= m[g]["overhead_ns"],
             f"{h}: empty BPF ({fig(e)}) <= gpiolat's program ({fig(g)})")
if "control" in m:
    c = m["control"]
    # the 99.9 % CI: with the 95 % one, correct code failed 1 run in 20 by construction
    line(abs(c["overhead_ns"]) <= c["ci999_ns"],
         f"control is 0 within its 99.9 % CI: {c['overhead_ns']:.0f} +- {c['ci999_ns']:.0f} ns "
         f"(95 %: +- {c['ci95_ns']:.0f} ns)")
sys.exit(bad)
PY
	[ $? = 0 ] || _failed=1
}
# judge_quiet FILE: the same verdict, without printing it
judge_quiet() {
	_f=$_failed
	judge "$1" >/dev/null
	_r=$_failed
	_failed=$_f
	[ "$_r" = 0 ]
}

# The series: R^2 >= 0.9 as the issue asks. Under emulation a slow period of some seconds can
# hold every repetition of one point (all six of kprobes-6 once came out at 12 us between 6.4
# and 7.9 us), so a failed fit gets one second run, judged alone; both runs are kept.
./gpiolat --overhead --json --pulses 100 --reps 6 --only 'events-*,kprobes-*' >"$out-series.json"
eq "the series run exits 0" "$?" 0
if ! judge_quiet "$out-series.json"; then
	echo "# the series' first run did not fit (kept in $out-series.json): a second run"
	mv "$out-series.json" "$out-series-1.json"
	./gpiolat --overhead --json --pulses 100 --reps 6 --only 'events-*,kprobes-*' \
		>"$out-series.json"
	eq "the second series run exits 0" "$?" 0
fi
judge "$out-series.json"
./gpiolat --overhead --json --pulses 50 --reps 4 \
	--only 'function,function_graph,bpf-*' >"$out-order.json"
eq "the orderings run exits 0" "$?" 0
judge "$out-order.json"
# filter and trigger cost little next to the event: longer phases, more repetitions
./gpiolat --overhead --json --pulses 200 --reps 8 --only 'event-filter,event-trigger' \
	>"$out-filter.json"
eq "the filter and trigger run exits 0" "$?" 0
judge "$out-filter.json"
# the control alone, with more repetitions: its CI is what the noise allows
./gpiolat --overhead --json --pulses 50 --reps 10 --only control >"$out-control.json"
eq "the control run exits 0" "$?" 0
judge "$out-control.json"
done_testing
