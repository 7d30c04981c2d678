#!/usr/bin/env python3
"""make bench-gpio: what gpiolat's GPIO programs cost per GPIO set, beside the empty program on
the same hook, ply and bpftrace, in one run in the emulated target (timings EMULATED).

Usage: host/bench_gpio.py [--passes P] [--reps N] [--pulses N] [--path DIR] [--bpf-stats]
                          [--rows ROW,...] [--jit] [--from FILE.json]

One boot of the target (vm/run; KERNEL=std|rt), in it P passes of `gpiolat --overhead --json`
over all the rows (N repetitions of each row per pass: the rows interleave pass by pass, so a
drift of the emulation over the run spreads over every row instead of biasing the last ones;
a row's repetitions are pooled over the passes), BPF run-time stats off (every shift without
their clock reads), rows: gpiolat's program on each hook of the loader's table
(loader/providers/gpio_hooks.h, read through host/gpio_hooks.py), the empty program and the
floor on each hook (bpf/empty_gpio.bpf.c), bpftrace's ply/delta.bt, ply's ply/delta.ply (when
ply is on the target's PATH), and the tracepoint program's parts (the clock read alone; the clock read and the line's slot, no histogram). Each row: mean shift of the
pulse width per GPIO set over its repetitions (a repetition: the row's phase minus the mean of
the untraced phases around it), with a 95 % interval that counts the reference phases shared by
consecutive repetitions (host/benchstat.py). Ratios with Fieller intervals; the project's speed
targets (docs/bench.md); where one is missed, the breakdown. The pooled run is saved in
out/results/bench-gpio.json; --from prints such a file, or a saved --overhead JSON, the same way
(e.g. the figures from before). Figures, never pass/fail: exit status 1 only when the run could
not be made.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import gpio_hooks  # host/gpio_hooks.py: the loader's table of hooks
import results  # host/results.py: every document checked, the caveat
from benchstat import ci95, dof, fmt_ratio, mean_var, t95

# the hooks and their rows: the loader's table (loader/providers/gpio_hooks.h, host/gpio_hooks.py)
HOOKS = gpio_hooks.NAMES
ROW = {h["name"]: h["rows"] for h in gpio_hooks.HOOKS}
# gpiolat's program with no feature on each hook (as `gpiolat -l LINE` loads it), its floor
PLAIN = {h: ROW[h]["plain"] for h in HOOKS}
# each feature alone on the tracepoint program: its own cost is its row minus the plain one
FEATURES = [("bpf-gpiolat-tp-trust", "trust check's periods (--overhead: period_max)"),
            ("bpf-gpiolat-tp-linear", "linear buckets (--linear)"),
            ("bpf-gpiolat-tp-intervals", "interval halves (-i)"),
            ("bpf-gpiolat-tracepoint", "--overhead's own: trust and linear")]
ROWS = [r for h in HOOKS for r in (ROW[h]["gpiolat"], ROW[h]["empty"])] + \
    ["bpftrace-delta", "ply-delta", "bpf-gpiolat-tp-clock", "bpf-gpiolat-tp-slot"] + \
    [ROW[h]["floor"] for h in HOOKS] + [PLAIN[h] for h in HOOKS] + \
    [f for f, _ in FEATURES[:-1]]
FLOOR_TARGET = 1.1
LABELS = {
    "bpftrace-delta": "bpftrace ply/delta.bt (tracepoint)",
    "ply-delta": "ply ply/delta.ply (tracepoint)",
    "bpf-gpiolat-tp-clock": "  part: tracepoint, the clock read only",
    "bpf-gpiolat-tp-slot": "  part: tracepoint, clock read + the line's slot",
    "bpf-gpiolat-tp-trust": "gpiolat, tracepoint + trust periods",
    "bpf-gpiolat-tp-linear": "gpiolat, tracepoint + linear buckets",
    "bpf-gpiolat-tp-intervals": "gpiolat, tracepoint + interval halves",
}
for _h in gpio_hooks.HOOKS:
    LABELS[_h["rows"]["gpiolat"]] = f"gpiolat, {_h['label']}"
    LABELS[_h["rows"]["empty"]] = f"empty program, {_h['name']}"
    LABELS[_h["rows"]["floor"]] = f"floor: empty + one clock read, {_h['name']}"
    LABELS[_h["rows"]["plain"]] = f"gpiolat, no feature, {_h['name']}"
TARGETS = {"vs_empty": 1.5, "vs_tools": 0.5}


SEP = "=== gpiolat bench-gpio pass ==="


def run_target(passes, reps, pulses, path, stats, rows, jit):
    """the passes' JSON documents, from one boot"""
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    one = (f"./gpiolat --overhead --json --only {','.join(rows)} --reps {reps} "
           f"--pulses {pulses}{' --bpf-stats' if stats else ''}")
    script = (f"{'PATH=' + path + ':$PATH; ' if path else ''}"
              f"cat /sys/devices/system/clocksource/clocksource0/current_clocksource; "
              f"for i in $(seq {passes}); do echo '{SEP}'; {one} || exit 1; done")
    if jit:
        # the BPF JIT on for the run (Debian's armmp kernels have it off), then as it was
        knob = "/proc/sys/net/core/bpf_jit_enable"
        script = (f"old=$(cat {knob}) && echo 1 >{knob} || exit 1; ({script}); rc=$?; "
                  f"echo $old >{knob}; exit $rc")
    env = dict(os.environ, VM_NOMAKE="1", VM_TIMEOUT=os.environ.get("VM_TIMEOUT", "3000"))
    p = subprocess.run([os.path.join(root, "vm", "run"), "sh", "-c", script], cwd=root,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.stderr.write(p.stderr[-2000:])
        sys.exit(f"bench-gpio: the run in the target failed (status {p.returncode})")
    head, *docs = p.stdout.split(SEP + "\n")
    try:
        return head.strip(), [results.parse(d, "overhead", f"the target's pass {i + 1}")
                              for i, d in enumerate(docs)]
    except results.BadResults as e:
        sys.exit(f"bench-gpio: {e}")


def pooled(docs):
    """one document: the first pass's header, each row's repetitions over every pass"""
    doc = dict(docs[0])
    key = "methods" if "methods" in doc else "rows"
    rows = {}
    for d in docs:
        for r in results.methods(d):
            m = rows.setdefault(r["method"], dict(r, differences_ns=[]))
            if r.get("measured"):
                m["differences_ns"] = m["differences_ns"] + r["differences_ns"]
            else:
                m["measured"] = False
                for k in ("not_measured", "not_available", "fired"):
                    if k in r:
                        m[k] = r[k]
    doc[key] = list(rows.values())
    doc["repetitions"] = sum(d["repetitions"] for d in docs)
    doc["passes"] = len(docs)
    return doc


def floor_table(doc, diffs):
    """per hook: gpiolat's program with no feature against its floor, and each feature's cost"""
    icount = doc.get("timing") == "icount"
    unit = "ns (icount: guest instructions)" if icount else "ns"
    print(f"\ngpiolat's programs against their floor (the empty program on the same hook plus one "
          f"clock read), per set, {unit}:")
    print(f"  {'hook':11} {'floor':>8} {'gpiolat':>8} {'ratio':>7}  target <= {FLOOR_TARGET}x")
    for h in HOOKS:
        f, g = ROW[h]["floor"], PLAIN[h]
        if f not in diffs or g not in diffs:
            print(f"  {h:11} not measured in this run")
            continue
        fm, gm = mean_var(diffs[f])[0], mean_var(diffs[g])[0]
        ratio = gm / fm if fm > 0 else math.nan
        s, _ = fmt_ratio(diffs[g], diffs[f], FLOOR_TARGET)
        print(f"  {h:11} {fm:8.1f} {gm:8.1f} {ratio:6.2f}x  {s}")
    base = PLAIN["tracepoint"]
    if base in diffs:
        bm = mean_var(diffs[base])[0]
        print(f"  each feature's own cost when on (tracepoint: the program with it minus the "
              f"program with none, {bm:.1f}):")
        for row, label in FEATURES:
            if row in diffs:
                print(f"    {label:48} {mean_var(diffs[row])[0] - bm:+8.1f}")
            else:
                print(f"    {label:48} not measured in this run")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=4)
    ap.add_argument("--reps", type=int, default=4, help="repetitions of each row per pass")
    ap.add_argument("--pulses", type=int, default=100)
    ap.add_argument("--path", help="a folder put first on the target's PATH (e.g. ply's)")
    ap.add_argument("--bpf-stats", action="store_true",
                    help="BPF run-time stats on (to compare with a loader that always had them)")
    ap.add_argument("--from", dest="src", help="a saved gpiolat --overhead --json output")
    ap.add_argument("--rows", help="a comma-separated subset of the rows (default: all)")
    ap.add_argument("--jit", action="store_true",
                    help="the BPF JIT on for the run where the kernel has it off (then as it was)")
    a = ap.parse_args()
    clock = None
    if a.src:
        try:
            # a saved --overhead JSON or bench-gpio.json: the same rows
            doc = results.load(a.src, "bench-gpio", missing_ok=False)
        except results.BadResults as e:
            sys.exit(f"bench-gpio: {e}")
        clock = doc.get("clocksource")
    else:
        rows = a.rows.split(",") if a.rows else ROWS
        bad = [r for r in rows if r not in ROWS]
        if bad:
            ap.error(f"--rows: not a row of bench-gpio: {','.join(bad)}")
        clock, docs = run_target(a.passes, a.reps, a.pulses, a.path, a.bpf_stats, rows, a.jit)
        doc = pooled(docs)
        doc["clocksource"] = clock
        doc["timing"] = os.environ.get("TIMING") or "real"
        # the pooled run, for --from: the same figures printed again, or with other statistics
        root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
        # the Makefile's RESULTS (make bench-gpio passes it), else out/results
        resdir = os.environ.get("RESULTS") or os.path.join(root, "out", "results")
        os.makedirs(resdir, exist_ok=True)
        results.write_text(os.path.join(resdir, "bench-gpio.json"), json.dumps(doc))

    stats = doc.get("bpf_stats")
    stats_note = ("OFF (no shift below includes their clock reads)" if stats is False else
                  "ON for the whole run (every shift below includes their two clock reads "
                  "per program run)" + ("" if stats else "; a loader from before --bpf-stats"))
    print(f"make bench-gpio: gpiolat's GPIO programs per GPIO set, one run "
          f"{'(from ' + a.src + ') ' if a.src else ''}in the "
          f"{'EMULATED target' if doc.get('emulated') else 'target'}")
    if doc.get("emulated"):
        print(f"  {results.caveat()}")
    if doc.get("bpf_jit"):
        print(f"  the BPF JIT: {doc['bpf_jit']}")
    if clock:
        print(f"  the target's clocksource: {clock} (every bpf_ktime_get_ns reads it"
              f"{'; hpet is an emulated MMIO read under TCG, dear here, cheap on hardware' if clock == 'hpet' else ''})")
    print(f"  {doc.get('passes', 1)} pass(es), {doc['repetitions']} repetitions of each row in "
          f"all x {doc['pulses_per_phase']} pulses per phase; "
          f"untraced set {doc['untraced_ns_per_set']:.1f} ns (noise floor: sd "
          f"{doc['noise_floor_sd_ns']:.1f} ns over {doc['noise_floor_phases']} untraced phases of the first pass); "
          f"BPF run-time stats {stats_note}")
    rows = {r["method"]: r for r in results.methods(doc)}
    diffs = {}
    print(f"\n  {'row':48} {'shift ns/set':>12} {'95 % CI':>9} {'reps':>5}")
    for name in ROWS:
        r = rows.get(name)
        if not r:
            continue
        if not r.get("measured"):
            print(f"  {LABELS[name]:48} not measured: "
                  f"{r.get('not_measured') or r.get('not_available') or r.get('why')}")
            continue
        d = r["differences_ns"]
        diffs[name] = d
        m, _ = mean_var(d)
        run = (r.get("trust") or {}).get("run_time_ns_per_run")
        print(f"  {LABELS[name]:48} {m:12.1f} {'±' + format(ci95(d), '.1f'):>9} {len(d):5d}"
              + (f"   BPF run time {run:.1f} ns/run (stats on; last pass)" if run else ""))
    print("  (shift: the pulse width's change per set, traced phase minus the mean of the "
          "untraced phases around it; 95 % CI: its variance counts the reference phase "
          "consecutive repetitions share, Student t at half the degrees of freedom: "
          "host/benchstat.py)")

    print("\nratios (this run; 95 % Fieller intervals of two independent rows):")
    missed = False
    for hook in HOOKS:
        g, e = ROW[hook]["gpiolat"], ROW[hook]["empty"]
        if g in diffs and e in diffs:
            s, met = fmt_ratio(diffs[g], diffs[e], TARGETS["vs_empty"] if hook == "tracepoint"
                               else None)
            print(f"  gpiolat / empty program, {hook:10}: {s}")
            missed |= met is False
    for tool in ("bpftrace-delta", "ply-delta"):
        g = "bpf-gpiolat-tracepoint"
        if g in diffs and tool in diffs:
            s, met = fmt_ratio(diffs[g], diffs[tool], TARGETS["vs_tools"])
            print(f"  gpiolat tracepoint / {tool:15}: {s}")
            missed |= met is False
        elif g in diffs:
            t = rows.get(tool) or {}
            why = t.get("not_measured") or t.get("not_available") or "not in this run"
            print(f"  gpiolat tracepoint / {tool:15}: not measured ({why})")

    floor_table(doc, diffs)

    parts = ["bpf-empty-tracepoint", "bpf-gpiolat-tp-clock", "bpf-gpiolat-tp-slot",
             "bpf-gpiolat-tracepoint"]
    if all(p in diffs for p in parts):
        mv = [mean_var(diffs[p]) for p in parts]
        t = t95(dof(min(len(diffs[p]) for p in parts)))
        print(f"\nwhere the tracepoint program's shift goes"
              f"{' (a target is missed)' if missed else ''}; each part is a program of its own, "
              "so each step is the difference of two independent rows, ± its 95 % CI:")
        steps = ["the floor: an empty program on the tracepoint (the hook dispatch)",
                 "+ the get filter and one clock read (bpf_ktime_get_ns): irreducible",
                 "+ the line slot (array lookup by GPIO number, the start kept)",
                 "+ the histogram (per-CPU array lookup, log2 and linear slots, counters)"]
        for i, label in enumerate(steps):
            m, v = mv[i][0] - (mv[i - 1][0] if i else 0), mv[i][1] + (mv[i - 1][1] if i else 0)
            print(f"  {label:72} {m:+8.1f} ± {t * math.sqrt(v):6.1f}")
        f, c, h = mv[0][0], mv[1][0], mv[3][0]
        print(f"  {'= gpiolat tracepoint program':72} {h:8.1f}")
        print(f"  (the target 1.5x leaves {0.5 * f:.1f} ns per set over the empty program's "
              f"{f:.1f}; the clock read alone takes {c - f:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(results.run_main("bench-gpio", main))
