#!/usr/bin/env python3
"""Host side: turn `gpiolat --overhead --json` into the overhead report.

    host/overhead.py RAW.json OUTDIR [real|icount]

The third argument is the emulated target's clock as vm/run ran it (TIMING, docs/timing.md):
with icount, the caveat says what its nanosecond is, as the page's does.

Writes OUTDIR/overhead.json (the raw document, plus the host's notes), overhead.csv (one row
per method, #-commented header: gnuplot reads it as it is), overhead.txt (the table) and
overhead.png (a bar chart of the measured overheads with their 95 % CI, the talk's figure
beside each where it has one).

A reference figure stands beside a row only where the loader's one rule (loader/core/baseline.c,
baseline_beside: the same kind of method against the same reference) says so: the talk's when
its "same_reference" is true, the user's "yours" as the loader wrote it. Each row's % is of its
own reference (percent_of names it).
"""
import json
import math
import os
import sys

import results  # host/results.py: the file's check, the caveat, gnuplot, the loader's rule
from results import talk_beside  # noqa: F401 (host/report_html.py and tests use it from here)


def fmt(v, spec=".1f"):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else format(v, spec)


def table(d, timing=None):
    out = []
    out.append("gpiolat --overhead: what each tracing method adds to one GPIO set")
    if d["emulated"]:
        out.append(results.caveat(timing))
    out.append(f"clock: {d['clock']} (resolution {d['resolution_ns']} ns)")
    out.append(f"phases of {d['pulses_per_phase']} pulses, {d['repetitions']} repetitions, "
               f"{d['warmup_batches']} warm-up batches dropped per phase; phase statistic: "
               f"{d['phase_statistic']}; 95 % CI: of the mean as sampled (neighbouring repetitions share a reference phase)")
    out.append(f"untraced: {fmt(d['untraced_ns_per_set'])} ns per set; noise floor: sd "
               f"{fmt(d['noise_floor_sd_ns'])} ns over {d['noise_floor_phases']} untraced phases")
    if d.get("user_untraced_ns_per_set") is not None:
        out.append(f"untraced ioctl toggler (utoggle): {fmt(d['user_untraced_ns_per_set'])} ns per set, "
                   f"sd {fmt(d['user_noise_floor_sd_ns'])} ns over {d['user_untraced_phases']} phases "
                   "(the user rows' reference)")
    if d.get("user_baseline"):
        out.append(f"yours: --baseline {d['user_baseline']}")
    if d.get("user_baseline_left_out"):
        out.append("yours left out (a figure stands beside a row only when measured against "
                   f"the same reference): {d['user_baseline_left_out']}")
    out.append(f"run time: {d['duration_s']:.0f} s")
    out.append("")
    out.append(f"{'method':<26} {'against':<22} {'overhead_ns':>11} {'ci95_ns':>9} "
               f"{'%ref':>7} {'reps':>4} {'batches':>7}  talk_ns (row)")
    for r in d["methods"]:
        if not r["measured"]:
            out.append(f"{r['method']:<26} {results.why_not(r)}")
            continue
        t = talk_beside(r)
        talk = results.talk_words(t, lambda v: fmt(v, ".0f")) if t else "-"
        y = r.get("yours")
        if y:
            talk += f"  yours: {y['overhead_ns']:.0f} ({y['row']}, against {y['against'] or '-'})"
        out.append(f"{r['method']:<26} {r['against']:<22} {fmt(r['overhead_ns']):>11} "
                   f"{fmt(r['ci95_ns']):>9} {fmt(r.get('percent_of_reference'), '.0f'):>6}% "
                   f"{r['repetitions']:>4} {r['batches']:>7}  {talk}")
    tr = results.talk_rank(d)
    out.append(results.rank_words(tr))
    if tr["rows"]:
        out.append("  talk's order (least first): " + ", ".join(
            f"{r['method']} {fmt(r['talk_ns'], '.0f')} (ours {fmt(r['ours_ns'], '.0f')}, "
            f"rank {r['rank']:g})" for r in tr["rows"]))
    out.append("")
    out.append("linear cost model (least squares over k = 1..10):")
    for s, f in d["linear_fits"].items():
        if "slope_ns" in f:
            out.append(f"  {s}: {f['slope_ns']:.1f} ns per additional one, R^2 {fmt(f.get('r2'), '.3f')} "
                       f"({f['points']} points); talk {fmt(f.get('talk_slope_ns'), '.0f')} ns "
                       f"({f['talk_row']})")
        else:
            out.append(f"  {s}: too few points ({f['points']})")
    out.append("")
    out.append("trust (BPF): the traced ns per set of each method phase by two clocks, the "
               "module's batches and the program's own periods; agree when |program - module| "
               "<= reference / burst + t(99.9 %) sd / sqrt(phases), too-noisy when that limit "
               "is half the module's figure or more (docs/overhead.md); run "
               "time and histogram shown, not judged")
    for r in d["methods"]:
        t = r.get("trust")
        if not r["measured"] or not t:
            continue
        # files from before the verdict (2026-11-24) have only the disagree flag
        v = t.get("verdict") or ("DISAGREE" if t.get("disagree") else "agree")
        c = t.get("clocks")
        if c and v == "not judged":
            fig = (f"({t.get('not_judged', '')}): module {fmt(c['module_ns_per_set'])} (sd "
                   f"{fmt(c['module_sd_ns'])}, {c['module_batches']} batches)")
        elif c:
            scaled = c.get("program_clock_scale", 1)
            fig = (f"module {fmt(c['module_ns_per_set'])} (sd {fmt(c['module_sd_ns'])}, "
                   f"{c['module_batches']} batches), program {fmt(c['program_ns_per_set'])} "
                   f"(sd {fmt(c['program_sd_ns'])}, {c['program_periods']} periods), "
                   f"{c['phases']} phases: {c['difference_ns']:+.1f} "
                   f"(sd {fmt(c['difference_sd_ns'])}), limit {fmt(c['limit_ns'])}"
                   + (f" [program's clock scaled x{scaled:g} ON PURPOSE]" if scaled != 1 else ""))
        else:
            fig = t.get("not_judged") or t.get("disagree_why") or ""
        run = t.get("run_time_ns_per_run")
        out.append(f"  {r['method']:<24} {v:<10} {fig}"
                   + (f" | run {fmt(run)}" if run is not None else "")
                   + (f" | hist p50 {fmt(t['hist_minus_untraced_ns'])}"
                      if t.get("hist_minus_untraced_ns") is not None else ""))
    return "\n".join(out) + "\n"


def csv(d, timing=None):
    lines = ["# gpiolat --overhead" + ("; " + results.caveat(timing) if d["emulated"] else ""),
             f"# clock: {d['clock']}",
             "# method group against overhead_ns ci95_ns percent reps batches talk_ns talk_row"]
    for r in d["methods"]:
        if not r["measured"]:
            lines.append(f"# {r['method']}: {results.why_not(r)}")
            continue
        # the plot's talk column is on its per-set axis: a row beside the talk per pulse has none
        t = results.talk_per_set(r) or {}
        lines.append(" ".join(str(x) for x in (
            r["method"], r["group"], r["against"], fmt(r["overhead_ns"]), fmt(r["ci95_ns"]),
            fmt(r.get("percent_of_reference")), r["repetitions"], r["batches"],
            fmt(t.get("overhead_ns"), ".0f") if t else "NaN", t.get("row", "-"))))
    return "\n".join(lines).replace(" - ", " NaN ") + "\n"


def plot(csv_path, png, emulated):
    title = ("gpiolat --overhead: ns added per GPIO set"
             + (f" ({results.TITLE})" if emulated else ""))
    script = f"""
set terminal pngcairo size 1400,700
set output '{png}'
set title "{title}"
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.6 border -1
set xtics rotate by -60 font ",8"
set ylabel "ns per set"
set key top left
set datafile missing "NaN"
plot '{csv_path}' using 4:5:xtic(1) title "in-system (95 % CI)", \\
     '' using 9:(0) title "talk (oscilloscope, BBB)"
"""
    return results.gnuplot(script, png, "overhead.py")


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["real"], ["icount"]):
        print("usage: host/overhead.py RAW.json OUTDIR [real|icount]", file=sys.stderr)
        sys.exit(2)
    timing = sys.argv[3] if len(sys.argv) == 4 else None
    try:
        d = results.load(sys.argv[1], "overhead", missing_ok=False)
    except results.BadResults as e:
        sys.exit(f"overhead.py: {e}")
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if d["emulated"]:
        d["caveat"] = results.caveat(timing)
        d["timing"] = timing
    d["talk_rank"] = results.talk_rank(d)
    results.write_text(os.path.join(out, "overhead.json"), json.dumps(d, indent=1))
    text = table(d, timing)
    results.write_text(os.path.join(out, "overhead.txt"), text)
    results.write_text(os.path.join(out, "overhead.csv"), csv(d, timing))
    plot(os.path.join(out, "overhead.csv"), os.path.join(out, "overhead.png"), d["emulated"])
    sys.stdout.write(text)


if __name__ == "__main__":
    sys.exit(results.run_main("overhead.py", main))
