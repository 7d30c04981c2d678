#!/usr/bin/env python3
"""The emulated oscilloscope: a GPIO line's transitions as qemu saw them, outside the guest.

    python3 host/pl061_trace.py TRACE [--line N] [--pulses N] [--gpiolat FILE] [--json]

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
"""
import argparse
import json
import math
import re
import statistics
import sys

LINE_RE = re.compile(r"^\d+@(\d+)\.(\d{6}):pl061_set_output \S+ setting output (\d+) to (\d+)")
GPIOLAT_SHIFT = re.compile(r"pulse-width shift ([+-][\d.]+) ns per set \(standard error "
                           r"([\d.]+) ns\): traced ([\d.]+) ns per set .*untraced ([\d.]+) ns")
GPIOLAT_HIST = re.compile(r"count (\d+) pulses, min (\d+) ns, mean (\d+) ns, p50 (\d+) ns.*"
                          r"max (\d+) ns")


def edges(path, line):
    """[(t_ns, level)] of LINE, in the order qemu logged them, repeated levels dropped"""
    out = []
    with open(path) as f:
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


def batches(ev):
    """split the edges at gaps wider than 20 x the median edge-to-edge time"""
    d = [b[0] - a[0] for a, b in zip(ev, ev[1:])]
    gap = 20 * statistics.median(d)
    out, cur = [], [ev[0]]
    for e, dt in zip(ev[1:], d):
        if dt > gap:
            out.append(cur)
            cur = []
        cur.append(e)
    out.append(cur)
    return out, gap


def pulses_of(batch):
    return [f[0] - r[0] for r, f in zip(batch, batch[1:]) if r[1] == 1 and f[1] == 0]


def per_set(batch):
    return (batch[-1][0] - batch[0][0]) / (len(batch) - 1) if len(batch) > 1 else None


def traced_range(bs, n):
    """(i, j): batches i..j hold exactly n pulses and sit between the widest gaps; or None"""
    counts = [len(pulses_of(b)) for b in bs]
    best = None
    for i in range(len(bs)):
        s = 0
        for j in range(i, len(bs)):
            s += counts[j]
            if s > n:
                break
            if s == n:
                before = bs[i][0][0] - bs[i - 1][-1][0] if i > 0 else 0
                after = bs[j + 1][0][0] - bs[j][-1][0] if j + 1 < len(bs) else 0
                score = min(before, after)
                if best is None or score > best[0]:
                    best = (score, i, j)
    return best[1:] if best else None


def phase(bs):
    sets = [p for p in (per_set(b) for b in bs) if p is not None]
    widths = [w for b in bs for w in pulses_of(b)]
    return {"batches": len(bs), "pulse_width": summary(widths),
            "ns_per_set": round(statistics.fmean(sets), 1) if sets else None,
            "ns_per_set_sd": round(statistics.stdev(sets), 1) if len(sets) > 1 else None,
            "_sets": sets}


def analyse(path, line, n):
    ev = edges(path, line)
    if len(ev) < 4:
        raise ValueError(f"{path}: {len(ev)} transitions of PL061 line {line} (want 4 or more)")
    bs, gap = batches(ev)
    res = {"tool": "host/pl061_trace.py", "clock": "host gettimeofday, 1 us, qemu's vCPU thread",
           "line": line, "edges": len(ev), "batch_gap_ns": gap, "batches": len(bs),
           "all": phase(bs)}
    if n:
        r = traced_range(bs, n)
        if r is None:
            raise ValueError(f"{path}: no run of batches with exactly {n} pulses")
        i, j = r
        tr, un = phase(bs[i:j + 1]), phase(bs[:i] + bs[j + 1:])
        res["traced"], res["untraced"] = tr, un
        if len(tr["_sets"]) > 1 and len(un["_sets"]) > 1:
            se = math.sqrt(statistics.variance(tr["_sets"]) / len(tr["_sets"])
                           + statistics.variance(un["_sets"]) / len(un["_sets"]))
            res["shift_ns_per_set"] = round(tr["ns_per_set"] - un["ns_per_set"], 1)
            res["shift_se_ns"] = round(se, 1)
    for k in ("all", "traced", "untraced"):
        if k in res:
            res[k].pop("_sets")
    return res


def gpiolat_figures(path):
    text = open(path).read()
    out = {}
    m = GPIOLAT_SHIFT.search(text)
    if m:
        out.update(shift_ns_per_set=float(m.group(1)), shift_se_ns=float(m.group(2)),
                   traced_ns_per_set=float(m.group(3)), untraced_ns_per_set=float(m.group(4)))
    m = GPIOLAT_HIST.search(text)
    if m:
        out["pulse_width"] = dict(zip(("count", "min_ns", "mean_ns", "p50_ns", "max_ns"),
                                      map(int, m.groups())))
    return out


def text(res):
    w = res["all"]["pulse_width"]
    lines = [f"qemu's PL061 line {res['line']} (outside the guest; host clock, 1 us; emulated): "
             f"{res['edges']} edges in {res['batches']} batches (gap > {res['batch_gap_ns']:.0f} ns)",
             f"  all pulses: count {w['count']}, min {w['min_ns']} ns, p50 {w['p50_ns']:.0f} ns, "
             f"mean {w['mean_ns']} ns, max {w['max_ns']} ns, sd {w['sd_ns']} ns"]
    for k in ("untraced", "traced"):
        if k in res:
            p, w = res[k], res[k]["pulse_width"]
            lines.append(f"  {k}: {p['batches']} batches, {p['ns_per_set']} ns per set "
                         f"(sd {p['ns_per_set_sd']} ns over batches); pulses: count {w['count']}, "
                         f"p50 {w.get('p50_ns', 0):.0f} ns, mean {w.get('mean_ns')} ns")
    if "shift_ns_per_set" in res:
        lines.append(f"  shift: {res['shift_ns_per_set']:+.1f} ns per set "
                     f"(standard error {res['shift_se_ns']} ns)")
    g = res.get("gpiolat")
    if g:
        lines.append(f"gpiolat in the guest (its clocks, the same run): shift "
                     f"{g.get('shift_ns_per_set', float('nan')):+.1f} ns per set (standard error "
                     f"{g.get('shift_se_ns')} ns), untraced {g.get('untraced_ns_per_set')} ns per "
                     f"set; pulse width {g.get('pulse_width')}")
    lines.append("note: emulated (qemu) timings, not real hardware")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--line", type=int, default=0)
    ap.add_argument("--pulses", type=int, default=0, help="the traced phase's pulse count")
    ap.add_argument("--gpiolat", help="gpiolat's text output of the same run")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.line < 0 or a.pulses < 0:
        ap.error("--line and --pulses take 0 or more")
    try:
        res = analyse(a.trace, a.line, a.pulses)
        if a.gpiolat:
            res["gpiolat"] = gpiolat_figures(a.gpiolat)
    except (OSError, ValueError) as e:
        print(f"pl061_trace: {e}", file=sys.stderr)
        return 1
    print(json.dumps(res, indent=1) if a.json else text(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
