#!/usr/bin/env python3
"""Host side: two runs of one study side by side, row by row, with the difference and its
interval (what benchstat does for Go benchmarks, for gpiolat's files).

    host/compare.py [--json] A.json B.json      # or: make compare A=A.json B=B.json

A and B are two files of one kind: `gpiolat --overhead --json` (or host/overhead.py's
overhead.json), host/bench_gpio.py's bench-gpio.json, or `gpiolat --syscall-cost --json`.
Every row both runs measured is printed with A's and B's figure, B - A, the difference's 95 %
interval and whether it excludes 0 (docs/compare.md):

- the interval comes from the same estimate as the rows' own intervals: each row's standard
  error and degrees of freedom as the writer computed them (the loader's se_ns and df: the
  mean of repetitions that share their reference phases, loader/core/hist.c alt_se; for
  bench-gpio's pooled passes host/benchstat.py's mean_var and dof), combined for two
  independent runs by Welch's t (benchstat.welch). When both rows' standard errors are 0 (the
  instruction-counted clock, TIMING=icount, repeats every phase exactly) the difference is
  exact: the interval is the point itself, and any difference other than 0 is one;
- like with like: a row whose reference (against) differs between the runs gets no
  difference and no verdict; nor does any row when the two runs' clocks differ (TIMING=icount
  against real time, emulated against a board: an icount nanosecond is one guest
  instruction). Targets that differ (kernel, architecture, user space, JIT) are said in the
  header: that is usually what is compared.

Exit status: 0 when the rows were compared, 1 when a file cannot be read, is not such a file,
the two are of different kinds or have no measured row in common, 2 on a usage error (one
line each).
"""
import argparse
import json
import math
import signal
import sys

import results  # host/results.py: the files' model, the caveat
from benchstat import dof, mean_var, t95, welch

COMPARED = ("overhead", "bench-gpio", "syscall-cost")
UNIT = {"overhead": "ns per GPIO set", "bench-gpio": "ns per GPIO set",
        "syscall-cost": "ns per syscall"}


class Usage(argparse.ArgumentParser):
    def error(self, message):
        print(f"compare: {message} (usage: host/compare.py [--json] A.json B.json)",
              file=sys.stderr)
        sys.exit(2)


def read(path):
    """(kind, document) of path; BadResults when it is not a file compare reads"""
    try:
        with results.open_text(path) as f:
            text = f.read()
    except OSError as e:
        raise results.BadResults(f"{path}: {e.strerror}") from None
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise results.BadResults(f"{path}: not valid JSON: {e}") from None
    kind = results.kind_of(doc) if isinstance(doc, dict) else None
    if kind not in COMPARED:
        raise results.BadResults(f"{path}: " + (f"a file of kind {kind}" if kind else
                                                "not a gpiolat results file") +
                                 f": compare reads the kinds {', '.join(COMPARED)}")
    return kind, results.parse(text, kind, path)


def target(kind, doc):
    """what was measured where: {kernel, machine, userspace, emulated, timing, bpf_jit}, a value
    None where the file does not say (a file of a gpiolat without "target")"""
    t = doc.get("target") if isinstance(doc.get("target"), dict) else {}
    out = {k: t.get(k) for k in ("kernel", "machine", "userspace", "timing")}
    out["emulated"] = t.get("emulated", doc.get("emulated"))
    if kind == "syscall-cost":  # its document said kernel and machine before "target" existed
        out["kernel"] = out["kernel"] or doc.get("kernel")
        out["machine"] = out["machine"] or doc.get("machine")
    if out["timing"] is None and out["emulated"] is False:
        out["timing"] = "real"  # a board's or the host's own clock
    out["bpf_jit"] = (doc.get("bpf_jit") or "").split(":")[0] or None
    return out


def rows(kind, doc):
    """{name: row} of every row, in the file's order: {measured, why, against, mean, ci95, se,
    df, n}; se None where the file gives no estimate to combine"""
    out = {}
    if kind == "syscall-cost":
        for r in doc["methods"]:
            a = r.get("added_ns_per_syscall") if r["available"] else None
            if not a or a.get("mean_ns") is None:
                out[r["name"]] = {"measured": False, "why": r.get("reason") or "not measured"}
                continue
            out[r["name"]] = {"measured": True, "against": "untraced", "mean": a["mean_ns"],
                              "ci95": a.get("ci95_ns"), "se": a.get("se_ns"),
                              "df": a.get("df"), "n": a.get("rounds")}
        return out
    for r in results.methods(doc):
        if not r["measured"]:
            out[r["method"]] = {"measured": False, "why": r.get("not_available", "not measured")}
            continue
        row = {"measured": True, "against": r.get("against"), "mean": r.get("overhead_ns"),
               "ci95": r.get("ci95_ns"), "se": r.get("se_ns"), "df": r.get("df"),
               "n": r.get("repetitions")}
        if kind == "bench-gpio":
            # the passes' repetitions pooled: the estimate bench_gpio.py prints (benchstat.py)
            d = r.get("differences_ns") or []
            m, v = mean_var(d)
            row.update(mean=m, n=len(d), se=None if math.isnan(v) else math.sqrt(v),
                       df=dof(len(d)))
            row["ci95"] = None if row["se"] is None else t95(row["df"]) * row["se"]
        out[r["method"]] = row
    return out


def header_diffs(ta, tb):
    """[(what, A's, B's)] of the targets' differences; timing first when it differs"""
    names = [("timing", "clock (TIMING)"), ("emulated", "emulated"), ("kernel", "kernel"),
             ("machine", "architecture"), ("userspace", "user space"), ("bpf_jit", "BPF JIT")]
    return [(label, ta[k], tb[k]) for k, label in names
            if ta[k] is not None and tb[k] is not None and ta[k] != tb[k]]


def compare(kind, a, b):
    """the comparison of documents a and b of kind, as compare --json prints it"""
    ta, tb = target(kind, a), target(kind, b)
    diffs = header_diffs(ta, tb)
    unknown = [k for k in ("timing", "kernel", "machine") if ta[k] is None or tb[k] is None]
    # like with like: one clock in both runs, said by both
    clocks_differ = any(w in ("clock (TIMING)", "emulated") for w, _, _ in diffs)
    ra, rb = rows(kind, a), rows(kind, b)
    out_rows, only_a, only_b, unmeasured = [], [], [], []
    for name in list(ra) + [n for n in rb if n not in ra]:
        x, y = ra.get(name), rb.get(name)
        if x is None or y is None:
            (only_a if y is None else only_b).append(name)
            continue
        if not (x["measured"] and y["measured"]):
            unmeasured.append({"method": name,
                               "a": None if x["measured"] else x["why"],
                               "b": None if y["measured"] else y["why"]})
            continue
        out_rows.append(compare_row(name, x, y, clocks_differ))
    doc = {
        "tool": "gpiolat compare", "format": 1, "kind": kind, "unit": UNIT[kind],
        "a": {"target": ta}, "b": {"target": tb},
        "differs": [{"what": w, "a": x, "b": y} for w, x, y in diffs],
        "unknown": unknown,
        "like_with_like": not clocks_differ,
        "rows": out_rows, "only_in_a": only_a, "only_in_b": only_b, "not_measured": unmeasured,
    }
    for side, d in (("a", a), ("b", b)):
        doc[side].update({k: d.get(k) for k in ("repetitions", "pulses_per_phase",
                                                 "untraced_ns_per_set", "noise_floor_sd_ns",
                                                 "clock", "rounds") if k in d})
    timing = ta["timing"] if ta["timing"] == tb["timing"] else None
    doc["caveat"] = results.caveat(timing) if ta["emulated"] or tb["emulated"] else None
    return doc


def compare_row(name, x, y, clocks_differ):
    """one row both runs measured: B - A, its 95 % interval and the verdict, or why none"""
    r = {"method": name, "against_a": x["against"], "against_b": y["against"],
         "a": {k: x[k] for k in ("mean", "ci95", "se", "df", "n")},
         "b": {k: y[k] for k in ("mean", "ci95", "se", "df", "n")},
         "difference_ns": None, "ci95_low_ns": None, "ci95_high_ns": None, "df": None,
         "exact": False, "verdict": None, "why_no_verdict": None}
    if x["against"] != y["against"]:
        r["why_no_verdict"] = (f"different references: A against {x['against']}, "
                               f"B against {y['against']}")
        return r
    if x["mean"] is None or y["mean"] is None:
        r["why_no_verdict"] = "no figure in " + ("A" if x["mean"] is None else "B")
        return r
    d = y["mean"] - x["mean"]
    if clocks_differ:
        r["why_no_verdict"] = "the two runs' clocks differ"
        return r
    r["difference_ns"] = d
    if x["se"] is None or y["se"] is None or x["df"] is None or y["df"] is None:
        r["why_no_verdict"] = ("no interval: " + ("A" if x["se"] is None else "B") +
                               "'s file gives no standard error (se_ns, df) for this row")
        return r
    se, df = welch(x["se"], x["df"], y["se"], y["df"])
    half = 0.0 if df is None else t95(df) * se
    r.update(ci95_low_ns=d - half, ci95_high_ns=d + half, df=df, exact=df is None)
    r["verdict"] = ("higher" if d - half > 0 else "lower" if d + half < 0 else
                    "same" if r["exact"] else "~")
    return r


# ---- text -----------------------------------------------------------------------------------
def f1(v):
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.1f}"


def cells(r):
    """a compared row's (against, B - A, interval, verdict) as text and page print them"""
    against = r["against_a"] if r["against_a"] == r["against_b"] else \
        f"{r['against_a']}|{r['against_b']}"
    d = r["difference_ns"]
    if r["verdict"] is None:
        iv, verdict = "-", f"none: {r['why_no_verdict']}"
    elif r["exact"]:
        iv, verdict = "exact", r["verdict"] + " (exact)"
    else:
        iv, verdict = f"[{f1(r['ci95_low_ns'])}, {f1(r['ci95_high_ns'])}]", r["verdict"]
    return against, ("-" if d is None else f"{d:+.1f}"), iv, verdict


def describe(t, side):
    what = [t["kernel"] or "kernel unknown", t["machine"] or "architecture unknown",
            t["userspace"] or "user space unknown"]
    clock = ("TIMING=" + t["timing"]) if t["emulated"] and t["timing"] else \
        "emulated, TIMING unknown" if t["emulated"] else \
        "hardware clock" if t["emulated"] is False else "clock unknown"
    jit = f"BPF JIT {t['bpf_jit']}" if t["bpf_jit"] else None
    return f"{side}: " + ", ".join(w for w in what + [clock, jit] if w)


def text(doc, name_a, name_b):
    out = [f"gpiolat compare ({doc['kind']}): A = {name_a}, B = {name_b}",
           describe(doc["a"]["target"], "A"), describe(doc["b"]["target"], "B")]
    for side in ("a", "b"):
        s = doc[side]
        if "untraced_ns_per_set" in s:
            out.append(f"{side.upper()}: untraced {f1(s['untraced_ns_per_set'])} ns per set "
                       f"(noise floor sd {f1(s.get('noise_floor_sd_ns'))} ns), "
                       f"{s.get('repetitions')} repetitions of {s.get('pulses_per_phase')}-pulse "
                       "phases")
        elif "rounds" in s:
            out.append(f"{side.upper()}: {s['rounds']} rounds")
    if doc["differs"]:
        out.append("the runs differ in: " + "; ".join(f"{d['what']} ({d['a']} vs {d['b']})"
                                                     for d in doc["differs"]))
    if doc["unknown"]:
        out.append("not said by both files (not checked): " + ", ".join(doc["unknown"]))
    if not doc["like_with_like"]:
        out.append("NOT LIKE WITH LIKE: the two runs' clocks differ (an icount nanosecond is one "
                   "guest instruction, a real one is time): figures side by side, no difference "
                   "and no verdict")
    if doc["caveat"]:
        out.append("NOTE: " + doc["caveat"])
    n = len(doc["rows"])
    out.append(f"B - A in {doc['unit']}; 95 % interval of the difference by Welch's t from each "
               "row's own standard error (the rows' ci95 is t x se); verdict: higher or lower "
               "when the interval excludes 0, ~ when it holds 0; an exact difference (both "
               "rows' standard error 0: an instruction-counted clock) has the point as its "
               f"interval. {n} rows compared: at 95 % about {n / 20:.1f} of them show a "
               "difference by chance when nothing changed (none when exact)")
    out.append("")
    out.append(f"{'method':<26} {'against':<22} {'A (±ci95)':>18} {'B (±ci95)':>18} "
               f"{'B - A':>9} {'95 % interval':>22}  verdict")
    for r in doc["rows"]:
        a, b = r["a"], r["b"]
        sa = f"{f1(a['mean'])} ±{f1(a['ci95'])}"
        sb = f"{f1(b['mean'])} ±{f1(b['ci95'])}"
        against, d, iv, verdict = cells(r)
        out.append(f"{r['method']:<26} {against:<22} {sa:>18} {sb:>18} {d:>9} {iv:>22}  "
                   f"{verdict}")
    for u in doc["not_measured"]:
        why = "; ".join(f"{s.upper()}: {u[s]}" for s in ("a", "b") if u[s])
        out.append(f"{u['method']:<26} not measured in both ({why})")
    if doc["only_in_a"]:
        out.append("only in A: " + ", ".join(doc["only_in_a"]))
    if doc["only_in_b"]:
        out.append("only in B: " + ", ".join(doc["only_in_b"]))
    return "\n".join(out)


def main(argv):
    p = Usage(prog="host/compare.py", add_help=True,
              description="two runs of one study side by side (docs/compare.md)")
    p.add_argument("--json", action="store_true", help="the comparison as one JSON document")
    p.add_argument("a", metavar="A.json")
    p.add_argument("b", metavar="B.json")
    args = p.parse_args(argv[1:])
    try:
        ka, a = read(args.a)
        kb, b = read(args.b)
    except results.BadResults as e:
        print(f"compare: {e}", file=sys.stderr)
        return 1
    if ka != kb:
        print(f"compare: {args.a} is of kind {ka}, {args.b} of kind {kb}: two kinds, nothing "
              "to compare", file=sys.stderr)
        return 1
    doc = compare(ka, a, b)
    if not doc["rows"]:
        print(f"compare: {args.a} and {args.b} have no measured row in common", file=sys.stderr)
        return 1
    doc["a"]["file"], doc["b"]["file"] = args.a, args.b
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        print(text(doc, args.a, args.b))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
