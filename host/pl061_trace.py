#!/usr/bin/env python3
"""The emulated oscilloscope: a GPIO line's transitions as qemu saw them, outside the guest.

    python3 host/pl061_trace.py TRACE [--line N] [--pulses N] [--gpiolat FILE] [--json]
    python3 host/pl061_trace.py TRACE --overhead OVERHEAD.json [--line N] [--json]

TRACE is what `VM_TRACE=TRACE vm/run ...` left on an ARM target: qemu's log trace backend with
`-msg timestamp=on`, one line per output change of the virt machine's PL061,
    PID@SECONDS.MICROSECONDS:pl061_set_output PATH setting output LINE to LEVEL
stamped by qemu's vCPU thread with the host's gettimeofday() (1 us resolution: the only
backend Debian's qemu 7.2 has is "log"). Under TIMING=real the host's clock is what the guest's
clock follows, so these are the emulated line's times; under TIMING=icount they are not (qemu
runs the instructions as fast as it can and the guest's clock counts instructions): there this
tool refuses nothing, but its times are the host's work, not the guest's (docs/timing.md).

From the transitions of LINE: the pulse widths (rise to fall), the batches (edges closer than
a gap threshold: 20 x the median edge-to-edge time), and, given the traced phase's pulse count
(gpiolat --pulses N issues exactly N pulses while attached, between two untraced phases), that
phase found as the run of batches with N pulses between the two widest gaps; the per-set time of
each batch ((last edge - first edge) / (edges - 1)) and the shift per set, traced - untraced,
with its standard error from the batches. --gpiolat FILE sets gpiolat's own figures for the same
run (its text output) beside them.

--overhead FILE: the trace of one `gpiolat --overhead --json` run (FILE its output): every
phase of the run is exactly pulses_per_phase pulses (3 warm-up phases, then for each measured
row its reference and method phases alternated, 2 x repetitions + 1), so the k-th group of that
many pulses is the k-th phase. For each BPF row with the trust check's figures it gives the
traced ns per set of each method phase seen from outside (each batch's first edge to its last,
over 2 x burst - 1 set-to-set intervals), beside the module's and the program's figures for the
same phases, and judges observer against module by the loader's rule: agree when |mean
difference| <= reference / burst + t(99.9 %, phases - 1) sd / sqrt(phases), too-noisy when
that limit is half the module's figure or more (docs/overhead.md).

With --overhead, TRACE may instead be what `VM_OBSERVE=TRACE vm/run ...` left (TIMING=icount):
the exact observer, qemu's plugin vm/pl061-observer.c ("# pl061-observer:" header; "INSNS
OFFSET" a data register write, "INSNS clk" a read of the guest's clock, INSNS the executed
guest instructions, 1 ns each at icount shift 0). Then the observer's figure is the program's
span (fall to fall inside a batch, / 2 a set), judged against the program between the
program's own clock reads at the same falls (allowance: one 16 ns guest clock tick a batch,
16 / (2 (burst - 1)) ns a set) and against the module by the loader's reference / burst, and
the module's fixed part c is counted (docs/timing.md, "The exact observer").
"""
import argparse
import bisect
import json
import math
import re
import os
import statistics
import sys

import results  # host/results.py: the --overhead file checked

# Student's t from the target tests' criteria (exact, by bisection): one function, no table here
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "target"))
from criteria import t_quantile  # noqa: E402

LINE_RE = re.compile(r"^\d+@(\d+)\.(\d{6}):pl061_set_output \S+ setting output (\d+) to (\d+)")
GPIOLAT_SHIFT = re.compile(r"pulse-width shift ([+-][\d.]+) ns per set \(standard error "
                           r"([\d.]+) ns\): traced ([\d.]+) ns per set .*untraced ([\d.]+) ns")
GPIOLAT_HIST = re.compile(r"count (\d+) pulses, min ([\d.]+) ns, mean ([\d.]+) ns, p50 ([\d.]+) "
                          r"ns.*max ([\d.]+) ns")


def edges(path, line):
    """[(t_ns, level)] of LINE, in the order qemu logged them, repeated levels dropped"""
    out = []
    with results.open_text(path) as f:
        for raw in f:
            m = LINE_RE.match(raw)
            if not m or int(m.group(3)) != line:
                continue
            t = int(m.group(1)) * 1_000_000_000 + int(m.group(2)) * 1000
            lv = int(m.group(4))
            if out and out[-1][1] == lv:
                continue
            out.append((t, lv))
    return out


def summary(xs):
    if not xs:
        return {"count": 0}
    s = sorted(xs)
    return {"count": len(s), "min_ns": s[0], "p50_ns": statistics.median(s),
            "mean_ns": round(statistics.fmean(s), 1), "max_ns": s[-1],
            "sd_ns": round(statistics.stdev(s), 1) if len(s) > 1 else 0.0}


def pulses(ev):
    """[(rise_ns, fall_ns)]: every rise with the fall after it"""
    return [(r[0], f[0]) for r, f in zip(ev, ev[1:]) if r[1] == 1 and f[1] == 0]


def traced_window(ps, n):
    """(i, before, after, inside): the first of n consecutive pulses whose gaps on both sides
    (the attach before gpiolat's traced phase, the detach after it) have the widest minimum,
    those two gaps and the widest gap inside the n pulses; or None when no n pulses have a
    pulse on both sides"""
    gaps = [b[0] - a[1] for a, b in zip(ps, ps[1:])]  # gaps[k]: pulse k's fall to k+1's rise
    best = None
    for i in range(1, len(ps) - n):
        score = min(gaps[i - 1], gaps[i + n - 1])
        if best is None or score > best[0]:
            best = (score, i)
    if best is None:
        return None
    i = best[1]
    return i, gaps[i - 1], gaps[i + n - 1], max(gaps[i:i + n - 1], default=0)


def phase(segments, burst):
    """segments: runs of pulses, each cut into batches of `burst` pulses from its start"""
    sets, widths, nb = [], [], 0
    for ps in segments:
        widths += [f - r for r, f in ps]
        for k in range(0, len(ps) - burst + 1, burst):
            b = ps[k:k + burst]
            # edges: 2 x burst, so 2 x burst - 1 set-to-set intervals
            sets.append((b[-1][1] - b[0][0]) / (2 * burst - 1))
            nb += 1
    out = {"batches": nb, "pulse_width": summary(widths), "_sets": sets}
    if sets:
        out.update(ns_per_set_mean=round(statistics.fmean(sets), 1),
                   ns_per_set_median=round(statistics.median(sets), 1),
                   ns_per_set_sd=round(statistics.stdev(sets), 1) if len(sets) > 1 else None)
    return out


def analyse(path, line, n, burst):
    ev = edges(path, line)
    ps = pulses(ev)
    if len(ps) < 2:
        raise ValueError(f"{path}: {len(ps)} pulses on PL061 line {line} (want 2 or more)")
    res = {"tool": "host/pl061_trace.py", "clock": "host gettimeofday, 1 us, qemu's vCPU thread",
           "line": line, "edges": len(ev), "burst": burst, "all": phase([ps], burst)}
    if n:
        w = traced_window(ps, n)
        if w is None:
            raise ValueError(f"{path}: no run of exactly {n} pulses with pulses on both sides "
                             f"({len(ps)} pulses)")
        i = w[0]
        # the phase boundary is trustworthy when its gaps are wider than any inside the phase
        res["traced_gaps_ns"] = {"before": w[1], "after": w[2], "widest_inside": w[3]}
        tr, un = phase([ps[i:i + n]], burst), phase([ps[:i], ps[i + n:]], burst)
        res["traced"], res["untraced"] = tr, un
        if len(tr["_sets"]) > 1 and len(un["_sets"]) > 1:
            se = math.sqrt(statistics.variance(tr["_sets"]) / len(tr["_sets"])
                           + statistics.variance(un["_sets"]) / len(un["_sets"]))
            res["shift_ns_per_set"] = round(tr["ns_per_set_mean"] - un["ns_per_set_mean"], 1)
            res["shift_se_ns"] = round(se, 1)
            res["shift_of_medians_ns"] = round(tr["ns_per_set_median"]
                                               - un["ns_per_set_median"], 1)
    for k in ("all", "traced", "untraced"):
        if k in res:
            res[k].pop("_sets")
    return res


WARMUP_PHASES = 3  # loader/modes/overhead/overhead_int.h: the untraced phases --overhead runs first and drops


def trusted_rows(rows, ps, P):
    """(row, its method phases' pulses, its trust clocks, its burst) of every measured row with a
    trust check, in the run's order: after the warm-up phases, each row's phases are reference,
    method, reference, ..., reference, P pulses each"""
    k = WARMUP_PHASES
    for r in rows:
        reps = r["repetitions"]
        method = [ps[(k + 2 * i + 1) * P:(k + 2 * i + 2) * P] for i in range(reps)]
        k += 2 * reps + 1
        c = (r.get("trust") or {}).get("clocks")
        if c:
            yield r, method, c, round(c["burst"])


def judge(ref, burst, pairs):
    """the loader's rule (loader/modes/overhead/ov_stats.c ov_trust_check) over pairs (a, b): b - a
    per phase, with its allowance ref / burst (judge_exact: the limit with the loader's two-sided
    99.9 % Student t, student_t999 in loader/core/hist.c; too noisy when a clock off by half
    would pass)"""
    return judge_exact(ref / burst, pairs)


def overhead(path, line, ov_json):
    """the outside observer beside every BPF row's trust figures of one --overhead run"""
    d = results.load(ov_json, "overhead", missing_ok=False, need=("pulses_per_phase",))
    P = d["pulses_per_phase"]
    ps = pulses(edges(path, line))
    rows = [r for r in d["methods"] if r.get("measured")]
    want = P * (WARMUP_PHASES + sum(2 * r["repetitions"] + 1 for r in rows))
    if len(ps) != want:
        raise ValueError(f"{path}: {len(ps)} pulses on PL061 line {line}, and the run of "
                         f"{ov_json} made {want} ({P} a phase; a row that failed half-way, "
                         f"or another toggler, breaks the phases)")
    out = {"tool": "host/pl061_trace.py --overhead",
           "clock": "host gettimeofday, 1 us, qemu's vCPU thread (TIMING=real only)",
           "line": line, "pulses": len(ps), "pulses_per_phase": P, "rows": []}
    for r, method, c, burst in trusted_rows(rows, ps, P):
        obs = []
        for ph in method:
            sets = [(b[-1][1] - b[0][0]) / (2 * burst - 1)
                    for b in (ph[j:j + burst] for j in range(0, P - burst + 1, burst))]
            obs.append(statistics.fmean(sets))
        idx = c["phase_numbers"]
        mod = dict(zip(idx, c["module_phases_ns"]))
        # null: the program keeps no clock of its own (the empty programs, the parts)
        prog = {i: v for i, v in zip(idx, c["program_phases_ns"]) if v is not None}
        ref = r["reference_ns_per_set"]
        row = {"method": r["method"], "verdict_in_guest": r["trust"].get("verdict"),
               "observer_phases_ns": [round(x, 1) for x in obs],
               "observer_ns_per_set": round(statistics.fmean(obs), 1),
               "observer_sd_ns": round(statistics.stdev(obs), 1) if len(obs) > 1 else None,
               "module_ns_per_set": c["module_ns_per_set"],
               "program_ns_per_set": c["program_ns_per_set"],
               "observer_vs_module": judge(ref, burst, [(mod[i], obs[i]) for i in idx]),
               "observer_vs_program": judge(ref, burst, [(prog[i], obs[i]) for i in prog])}
        out["rows"].append(row)
    return out


# ---- the exact observer: vm/pl061-observer.c, qemu's plugin (TIMING=icount) ------------------
PLUGIN_HEAD = "# pl061-observer:"
PLUGIN_END = re.compile(r"^# end: (\d+) writes, (\d+) clock reads, (\d+) instructions$")
PLUGIN_CLK = re.compile(r"^(\d+) clk$")
PLUGIN_LINE = re.compile(r"^(\d+) 0x([0-9a-f]+)$")
# the ARM target's clocks under qemu: the generic timer counts at 62.5 MHz (qemu's GTIMER_SCALE,
# 16 ns a tick; the guest's dmesg: "arch_timer: cp15 timer(s) running at 62.50MHz"), so every
# clock read of the guest is floored to 16 ns of virtual time (= 16 instructions at shift 0)
GUEST_TICK_NS = 16


def plugin_sets(path, line):
    """([insns] of every write the guest made to LINE through the PL061's data window (offset
    mask << 2, mask holding the line), [insns] of every read of the guest's clock), from the
    plugin's file; the file must be whole (its end line written at qemu's exit)"""
    sets, clk, end, n = [], [], None, 0
    with results.open_text(path) as f:
        if not f.readline().startswith(PLUGIN_HEAD):
            raise ValueError(f"{path}: not a pl061-observer file (no '{PLUGIN_HEAD}' line)")
        for raw in f:
            raw = raw.rstrip("\n")
            m = PLUGIN_LINE.match(raw)
            if m:
                n += 1
                if (int(m.group(2), 16) >> 2) & (1 << line):
                    sets.append(int(m.group(1)))
                continue
            m = PLUGIN_CLK.match(raw)
            if m:
                clk.append(int(m.group(1)))
                continue
            m = PLUGIN_END.match(raw)
            if not m:
                raise ValueError(f"{path}: bad line '{raw[:60]}'")
            end = (int(m.group(1)), int(m.group(2)))
    if end is None:
        raise ValueError(f"{path}: no end line (qemu did not exit normally: a cut-off run)")
    if end != (n, len(clk)):
        raise ValueError(f"{path}: {n} writes and {len(clk)} clock reads, and its end line "
                         f"says {end[0]} and {end[1]}")
    return sets, clk


def read_before(clk, t, after):
    """the last clock read before the write at t, which must come after `after` (the write
    before it): the program's read at this edge"""
    i = bisect.bisect_left(clk, t) - 1
    if i < 0 or clk[i] <= after:
        raise ValueError(f"no clock read between the writes at {after} and {t} instructions "
                         f"(the program's read at that edge not seen)")
    return clk[i]


def is_plugin_file(path):
    with results.open_text(path) as f:
        return f.readline().startswith(PLUGIN_HEAD)


def judge_exact(allow, pairs):
    """over pairs (a, b), b - a per phase: agree when |mean d| <= allow + t(99.9 %, n - 1) sd /
    sqrt(n); too-noisy when that limit is half the guest's figure (a clock off by half would
    pass); the exact observer's allowance is fixed, judge()'s the loader's"""
    d = [b - a for a, b in pairs]
    if len(d) < 2:
        return {"verdict": "not judged", "phases": len(d)}
    sd = statistics.stdev(d)
    lim = allow + t_quantile(0.9995, len(d) - 1) * sd / math.sqrt(len(d))
    mean = statistics.fmean(d)
    big = statistics.fmean(a for a, _ in pairs) / 2
    v = "DISAGREE" if abs(mean) > lim else "too-noisy" if lim >= big else "agree"
    return {"verdict": v, "phases": len(d),
            "difference_ns": round(mean, 1), "difference_sd_ns": round(sd, 1),
            "allowance_ns": round(allow, 1), "limit_ns": round(lim, 1)}


def overhead_exact(path, line, ov_json):
    """the exact observer beside every BPF row's trust figures of one --overhead run in icount:
    the program's quantity (fall-to-fall periods inside batches, / 2 a set) counted from outside
    in executed instructions (ns at shift 0), and the module's fixed part c counted"""
    d = results.load(ov_json, "overhead", missing_ok=False, need=("pulses_per_phase",))
    if d.get("timing") not in (None, "icount"):
        raise ValueError(f"{ov_json}: timing {d.get('timing')}: the plugin's instructions are "
                         f"the guest's ns only under TIMING=icount")
    P = d["pulses_per_phase"]
    sets, clk = plugin_sets(path, line)
    rows = [r for r in d["methods"] if r.get("measured")]
    want = 2 * P * (WARMUP_PHASES + sum(2 * r["repetitions"] + 1 for r in rows))
    # before the run: the module's gpiod_get(GPIOD_OUT_LOW), gpio-pl061's direction_output
    # writes the data twice (before and after setting the direction); every set after it is a
    # toggle set of the run, rise then fall
    head = len(sets) - want
    if head not in (0, 2):
        raise ValueError(f"{path}: {len(sets)} writes to PL061 line {line}, and the run of "
                         f"{ov_json} made {want} sets (+ 2 at set-up; a row that failed "
                         f"half-way, or another writer, breaks the phases)")
    sets = sets[head:]
    ps = list(zip(sets[0::2], sets[1::2]))
    out = {"tool": "host/pl061_trace.py --overhead",
           "clock": "qemu plugin vm/pl061-observer.c: executed guest instructions, 1 ns each "
                    "(TIMING=icount, shift 0)",
           "observer": "exact", "line": line, "pulses": len(ps), "pulses_per_phase": P,
           "setup_writes": head, "guest_tick_ns": GUEST_TICK_NS, "rows": []}
    for r, method, c, burst in trusted_rows(rows, ps, P):
        # null: the program keeps no clock of its own (the empty programs)
        has_clock = any(v is not None for v in c["program_phases_ns"])
        obs, span, at_reads, delta = [], [], [], []
        for ph in method:
            tot, rtot, n, sp = 0, 0, 0, []
            for j in range(0, P - burst + 1, burst):
                b = ph[j:j + burst]
                # fall to fall inside the batch: burst - 1 periods, as the program keeps them
                tot += b[-1][1] - b[0][1]
                n += burst - 1
                sp.append((b[-1][1] - b[0][0]) / (2 * burst - 1))
                if has_clock:
                    # the same periods between the program's clock reads at those falls
                    r0 = read_before(clk, b[0][1], b[0][0])
                    r1 = read_before(clk, b[-1][1], b[-1][0])
                    rtot += r1 - r0
                    delta.append((b[-1][1] - r1) - (b[0][1] - r0))
            obs.append(tot / (2 * n))
            at_reads.append(rtot / (2 * n) if has_clock else None)
            span.append(statistics.fmean(sp))
        idx = c["phase_numbers"]
        mod = dict(zip(idx, c["module_phases_ns"]))
        prog = {i: v for i, v in zip(idx, c["program_phases_ns"]) if v is not None}
        ref = r["reference_ns_per_set"]
        # the module's batch is burst periods and its fixed part c: module = P/2 + c / (2 burst)
        cs = [2 * burst * (mod[i] - obs[i]) for i in idx]
        row = {"method": r["method"], "verdict_in_guest": r["trust"].get("verdict"),
               "observer_phases_ns": [round(x, 1) for x in obs],
               "observer_ns_per_set": round(statistics.fmean(obs), 1),
               "observer_sd_ns": round(statistics.stdev(obs), 1) if len(obs) > 1 else None,
               "observer_span_ns_per_set": round(statistics.fmean(span), 1),
               # the program's span counted from outside: between its clock reads at the same
               # falls; and what the last fall of a batch runs between its read and its write
               # more than the first (instructions, a batch's mean)
               "observer_at_reads_phases_ns": [None if x is None else round(x, 1)
                                               for x in at_reads],
               "observer_at_reads_ns_per_set": round(statistics.fmean(at_reads), 1)
               if has_clock else None,
               "read_to_write_excess_insns": round(statistics.fmean(delta), 1) if delta else None,
               "module_fixed_part_ns": round(statistics.fmean(cs), 1),
               "module_ns_per_set": c["module_ns_per_set"],
               "program_ns_per_set": c["program_ns_per_set"],
               # the loader's rule: |c| <= 2 x reference, so |module - P/2| <= reference / burst
               "observer_vs_module": judge_exact(ref / burst, [(mod[i], obs[i]) for i in idx]),
               # the same span: each batch's sum differs by the floor of two clock reads (less
               # than a tick) and the instructions between the program's read and the register
               # write, equal at the first and last fall of a batch (the same code)
               "observer_vs_program": judge_exact(GUEST_TICK_NS / (2 * (burst - 1)),
                                                  [(prog[i], at_reads[i]) for i in prog])}
        out["rows"].append(row)
    return out


def judgement(j):
    """one comparison of two clocks (judge()) in words: its verdict, the mean difference, its sd
    and the limit it was held to; the text output and the page's observer section say it so"""
    if j["verdict"] == "not judged":
        return f"not judged ({j['phases']} phases)"
    return (f"{j['verdict']}: {j['difference_ns']:+.1f} ns (sd {j['difference_sd_ns']}, "
            f"{j['phases']} phases; limit {j['limit_ns']} ns)")


def overhead_text(res):
    lines = [f"qemu's PL061 line {res['line']} (outside the guest; {res['clock']}; emulated): "
             f"{res['pulses']} pulses, {res['pulses_per_phase']} a phase; traced ns per set of "
             f"each BPF row's method phases"]
    for r in res["rows"]:
        a, b = judgement(r["observer_vs_module"]), judgement(r["observer_vs_program"])
        lines.append(f"  {r['method']:<24} observer {r['observer_ns_per_set']} (sd "
                     f"{r['observer_sd_ns']}, {len(r['observer_phases_ns'])} phases), module "
                     f"{r['module_ns_per_set']:.1f}, program {r['program_ns_per_set'] or '-'} | "
                     f"observer - module: {a} | observer - program: {b} | in the "
                     f"guest: {r['verdict_in_guest']}")
        if r.get("observer_at_reads_ns_per_set") is not None:
            lines.append(f"  {'':<24} observer between the program's clock reads "
                         f"{r['observer_at_reads_ns_per_set']} ns per set; the module's fixed "
                         f"part c {r['module_fixed_part_ns']} ns a batch; the last fall runs "
                         f"{r['read_to_write_excess_insns']} instructions more than the first "
                         f"between the program's read and the write")
    lines.append("note: emulated (qemu) timings, not real hardware")
    return "\n".join(lines)


def gpiolat_figures(path):
    text = results.read_text(path)
    out = {}
    m = GPIOLAT_SHIFT.search(text)
    if m:
        out.update(shift_ns_per_set=float(m.group(1)), shift_se_ns=float(m.group(2)),
                   traced_ns_per_set=float(m.group(3)), untraced_ns_per_set=float(m.group(4)))
    m = GPIOLAT_HIST.search(text)
    if m:
        out["pulse_width"] = dict(zip(("count", "min_ns", "mean_ns", "p50_ns", "max_ns"),
                                      map(float, m.groups())))
    return out


def text(res):
    def pw(w):
        if not w["count"]:
            return "no pulses"
        return (f"count {w['count']}, min {w['min_ns']} ns, p50 {w['p50_ns']:.0f} ns, "
                f"mean {w['mean_ns']} ns, max {w['max_ns']} ns")
    lines = [f"qemu's PL061 line {res['line']} (outside the guest; host clock, 1 us; emulated): "
             f"{res['edges']} edges; batches of {res['burst']} pulses",
             f"  all pulses: {pw(res['all']['pulse_width'])}"]
    for k in ("untraced", "traced"):
        if k in res:
            p = res[k]
            lines.append(f"  {k}: {p['batches']} batches, ns per set mean "
                         f"{p.get('ns_per_set_mean')} (sd {p.get('ns_per_set_sd')} over batches), "
                         f"median {p.get('ns_per_set_median')}; pulses: {pw(p['pulse_width'])}")
    if "traced_gaps_ns" in res:
        g = res["traced_gaps_ns"]
        lines.append(f"  traced phase found between gaps of {g['before']} and {g['after']} ns "
                     f"(widest inside it: {g['widest_inside']} ns"
                     f"{'' if min(g['before'], g['after']) > g['widest_inside'] else ': ambiguous'})")
    if "shift_ns_per_set" in res:
        lines.append(f"  shift: {res['shift_ns_per_set']:+.1f} ns per set (standard error "
                     f"{res['shift_se_ns']} ns; of the medians {res['shift_of_medians_ns']:+.1f})")
    g = res.get("gpiolat")
    if g:
        lines.append(f"gpiolat in the guest (its clocks, the same run): shift "
                     f"{g.get('shift_ns_per_set', float('nan')):+.1f} ns per set (standard error "
                     f"{g.get('shift_se_ns')} ns), traced {g.get('traced_ns_per_set')}, untraced "
                     f"{g.get('untraced_ns_per_set')} ns per set; pulse width "
                     f"{g.get('pulse_width')}")
    lines.append("note: emulated (qemu) timings, not real hardware")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--line", type=int, default=0)
    ap.add_argument("--pulses", type=int, default=0, help="the traced phase's pulse count")
    ap.add_argument("--gpiolat", help="gpiolat's text output of the same run")
    ap.add_argument("--burst", type=int, default=5,
                    help="pulses per batch (the module's burst parameter; default 5)")
    ap.add_argument("--overhead", metavar="FILE.json",
                    help="gpiolat --overhead --json's output of the traced run")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.line < 0 or a.pulses < 0 or a.burst < 1:
        ap.error("--line and --pulses take 0 or more, --burst 1 or more")
    if a.overhead and (a.pulses or a.gpiolat):
        ap.error("--overhead excludes --pulses and --gpiolat")
    if a.overhead:
        try:
            f = overhead_exact if is_plugin_file(a.trace) else overhead
            res = f(a.trace, a.line, a.overhead)
        except (OSError, ValueError, KeyError, results.BadResults) as e:
            print(f"pl061_trace: {e}", file=sys.stderr)
            return 1
        print(json.dumps(res, indent=1) if a.json else overhead_text(res))
        return 0
    try:
        res = analyse(a.trace, a.line, a.pulses, a.burst)
        if a.gpiolat:
            res["gpiolat"] = gpiolat_figures(a.gpiolat)
    except (OSError, ValueError) as e:
        print(f"pl061_trace: {e}", file=sys.stderr)
        return 1
    print(json.dumps(res, indent=1) if a.json else text(res))
    return 0


if __name__ == "__main__":
    sys.exit(results.run_main("pl061_trace", main))
