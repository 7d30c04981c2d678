#!/usr/bin/env python3
"""Host side: turn the raw results of study/histograms.sh into the bpf-histograms report.

    host/report.py RAWDIR OUTDIR

Reads RAWDIR/gpiolat-METHOD.json (gpiolat --json, docs/output-format.md), RAWDIR/bpftrace-*.json
(bpftrace -f json) and RAWDIR/ply-*.txt (ply's print of its maps) with their .edges files, and
the .unavailable reasons; writes
OUTDIR/histograms.json, histograms.txt, histograms.csv and one PNG per histogram (gnuplot).
"""
import datetime
import json
import os
import re
import sys

import results  # host/results.py: the files' model, the caveat, gnuplot


def bpftrace_histograms(text):
    """The hist() maps of bpftrace -f json output: {map name: {key: [(low, high, count)]}}.

    bpftrace prints a hist bucket as {"min": a, "max": b, "count": n} with b inclusive; a
    keyless map is a list, a keyed one an object of lists. Buckets become [low, high)."""
    maps = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        if rec.get("type") != "hist":
            continue
        for name, data in rec["data"].items():
            keyed = data if isinstance(data, dict) else {"": data}
            out = {}
            for key, buckets in keyed.items():
                rows = []
                for b in buckets:
                    if "min" not in b or "max" not in b:
                        raise ValueError(f"{name}[{key}]: a bucket without bounds: {b}")
                    rows.append((b["min"], b["max"] + 1, b["count"]))
                out[key] = rows
            maps[name] = out
    return maps


PLY_UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "M": 60e9, "H": 3600e9, "k": 1e3}
PLY_BUCKET = re.compile(r"\t\[\s*([0-9.]+)\s*([a-zA-Z]*)\s*,[^\])]*[\])]\s+([0-9]+)\b")


def ply_low(number, unit):
    """The low bound of one ply quantize() row as printed ("1.02us", "512", "4k"), in ns."""
    if unit and unit not in PLY_UNITS:
        raise ValueError(f"a bucket bound in an unknown unit: {number}{unit}")
    return float(number) * PLY_UNITS.get(unit, 1)


def ply_histograms(text):
    """The quantize() maps of ply's print (ply 2.4 libply.c ply_map_print, aggregation.c
    quantize_fprint): {map name: {key: [(low, high, count)]}}.

    ply prints "@name:", then per key "{ KEY }: " and one row a non-empty log2 bucket
    ("\t[ 1.02us,  2.04us]\t       5 ┤██  │"). Bucket i holds [2^i, 2^(i+1)) (bucket 0:
    [0, 2)); ply rounds the bounds it prints (time in 3 digits), so i is the log2 of the printed
    low bound, rounded. A "< 0" row (a negative difference) is kept as [-1, 0)."""
    import math
    maps, name, key = {}, None, None
    for ln in text.splitlines():
        if re.fullmatch(r"@?[A-Za-z_][A-Za-z0-9_]*:", ln):
            name, key = ln[:-1], None
            maps[name] = {}
        elif name and ln and not ln.startswith("\t") and ln.rstrip().endswith(":"):
            # "{ 512 }: ", "{ 18384518600449724672 }: " (a struct of one field)
            key = ln.rstrip()[:-1].strip().strip("{}").strip()
            maps[name][key] = []
        elif name and key is not None and ln.startswith("\t"):
            m = PLY_BUCKET.match(ln)
            if m:
                low = ply_low(m.group(1), m.group(2))
                i = round(math.log2(low)) if low >= 1 else 0
                lo, hi = (2 ** i, 2 ** (i + 1)) if i else (0, 2)
                maps[name][key].append((lo, hi, int(m.group(3))))
            elif re.match(r"\t\s*< 0\s+([0-9]+)", ln):
                count = int(re.match(r"\t\s*< 0\s+([0-9]+)", ln).group(1))
                maps[name][key].insert(0, (-1, 0, count))
            elif ln.strip() != "...":
                raise ValueError(f"a line of {name}[{key}] that is no bucket: {ln.strip()!r}")
    return {n: {k: b for k, b in keyed.items() if b} for n, keyed in maps.items()}


def quantile(buckets, p):
    """The p-quantile estimated from [low, high) buckets, interpolating inside a bucket."""
    total = sum(c for _, _, c in buckets)
    if total == 0:
        return None
    rank = p * total
    seen = 0
    for low, high, count in buckets:
        if count and seen + count >= rank:
            return low + (high - low) * (rank - seen) / count
        seen += count
    return buckets[-1][1]


def bucket_summary(buckets):
    """count, mean, p50/p90/p99 and min/max bounds from buckets alone (no raw samples)."""
    nonzero = [b for b in buckets if b[2]]
    count = sum(c for _, _, c in buckets)
    if not count:
        return {"count": 0}
    mean = sum((lo + hi) / 2 * c for lo, hi, c in nonzero) / count
    return {
        "count": count,
        "min_ns_at_least": nonzero[0][0],
        "max_ns_below": nonzero[-1][1],
        "mean_ns": round(mean, 1),
        "p50_ns": round(quantile(buckets, 0.50), 1),
        "p90_ns": round(quantile(buckets, 0.90), 1),
        "p99_ns": round(quantile(buckets, 0.99), 1),
        "estimated_from_buckets": True,
    }


def toggled_line(raw):
    """The toggle module's line from RAWDIR/toggle-line.txt (its debugfs `gpio` file:
    "gpio=N chip=LABEL line=OFFSET"), or None."""
    path = os.path.join(raw, "toggle-line.txt")
    if not os.path.exists(path):
        return None
    fields = dict(w.split("=", 1) for w in results.read_text(path).split() if "=" in w)
    if not {"gpio", "chip", "line"} <= fields.keys():
        return None
    return {"gpio": int(fields["gpio"]), "chip": fields["chip"], "offset": int(fields["line"])}


def line_label(chip, offset, gpio):
    """A line's name for files and legends: CHIP-OFFSET (toggle-vchip-0), else gpioN."""
    if chip is not None and offset is not None:
        return re.sub(r"[^A-Za-z0-9_.-]", "_", f"{chip}-{offset}")
    return f"gpio{gpio}"


def label_bpftrace(recs, toggled):
    """Labels for one bpftrace map's records. A key that is a GPIO number is named like a
    gpiolat line; a descriptor pointer (dt-kprobe's arg0) never names a file: the descriptor
    whose count is nearest the pulses issued is the toggled line's, the others desc-1, desc-2..."""
    ptrs = [r for r in recs if r["line"]["key"].startswith("0x")]
    for r in recs:
        if r in ptrs:
            continue
        key = r["line"]["key"]
        if toggled and key == str(toggled["gpio"]):
            r["line"]["label"] = line_label(toggled["chip"], toggled["offset"], key)
        else:
            r["line"]["label"] = f"gpio{key}" if key.isdigit() else f"key{recs.index(r) + 1}"
    issued = recs[0]["pulses_issued"] if recs else None
    ptrs.sort(key=lambda r: (abs(r["summary"]["count"] - issued) if issued is not None else 0,
                             -r["summary"]["count"]))
    used = {r["line"]["label"] for r in recs if "label" in r["line"]}
    for i, r in enumerate(ptrs):
        mine = line_label(toggled["chip"], toggled["offset"], toggled["gpio"]) if toggled else None
        if i == 0 and mine and mine not in used and (issued is not None or len(ptrs) == 1):
            r["line"]["label"] = mine
        else:
            r["line"]["label"] = f"desc-{i + 1}"
    # one file per record: a label met twice (two maps of one script) gets the map's name
    seen = set()
    for r in recs:
        if r["line"]["label"] in seen:
            r["line"]["label"] += "-" + r["map"].lstrip("@")
        seen.add(r["line"]["label"])
    return recs


def from_gpiolat(doc, name):
    """One histogram record per line of a gpiolat --json document."""
    recs = []
    for ln in doc["lines"]:
        summary = {k: ln.get(k) for k in ("count", "min_ns", "max_ns", "mean_ns", "p50_ns",
                                         "p90_ns", "p99_ns")}
        toggle = doc.get("toggle") or {}
        recs.append({
            "name": name,
            "tool": "gpiolat",
            "method": doc["method"],
            "hook": doc["hook"],
            "line": {"gpio": ln["gpio"], "chip": ln.get("chip"), "offset": ln.get("offset"),
                     "label": line_label(ln.get("chip"), ln.get("offset"), ln["gpio"])},
            "unit": "ns",
            "log2": [[b["low_ns"], b["high_ns"], b["count"]] for b in ln["log2"]],
            "linear": ln.get("linear"),
            "summary": summary,
            "unmatched": ln["unmatched"],
            "rising": ln["rising"],
            "pulses_issued": toggle.get("rising"),
            # one unit for every tool: pulses issued and not histogrammed; gpiolat's own
            # count of sets it did not see beside it, named as such
            "pulses_lost": None if toggle.get("rising") is None
            else toggle["rising"] - summary["count"],
            "sets_lost": toggle.get("events_lost"),
            "overhead": doc.get("overhead"),
        })
        if "fine" in ln:
            # the kernel's fine (log-linear, <= 1/32 wide) buckets, from a loader that has them
            recs[-1]["buckets"] = [[b["low_ns"], b["high_ns"], b["count"]] for b in ln["fine"]]
    return recs


def from_bpftrace(text, name, script, method, pulses_issued, toggled=None, tool="bpftrace"):
    maps = bpftrace_histograms(text) if tool == "bpftrace" else ply_histograms(text)
    recs = []
    for mapname, keyed in maps.items():
        for key, buckets in keyed.items():
            s = bucket_summary(buckets)
            if re.fullmatch(r"-[0-9]+", key):
                # bpftrace prints a u64 key (a kernel pointer: arg0) as a signed number
                key = hex(int(key) & (2**64 - 1))
            elif tool == "ply" and re.fullmatch(r"[0-9]{10,}", key):
                # ply prints it unsigned: the same pointer
                key = hex(int(key))
            recs.append({
                "name": name,
                "tool": tool,
                "script": script,
                "method": method,
                "map": mapname,
                "line": {"key": key},
                "unit": "ns",
                "log2": [list(b) for b in buckets],
                "linear": None,
                "summary": s,
                "pulses_issued": pulses_issued,
                "pulses_lost": None if pulses_issued is None else pulses_issued - s["count"],
            })
    return label_bpftrace(recs, toggled)


def fmt_ns(ns, micro="us", digits=2):
    """ns in ns, us (micro: its symbol) or ms; "-" for no figure"""
    if ns is None or ns != ns:
        return "-"
    if abs(ns) >= 10000000:
        return f"{ns / 1000000:.2f} ms"
    if abs(ns) >= 10000:
        return f"{ns / 1000:.{digits}f} {micro}"
    return f"{ns:.0f} ns"


def text_block(rec):
    """ply/bpftrace-like rows: [low, high) count |bar|, and the summary with units."""
    out = []
    line = rec["line"]
    where = (f"gpio {line['gpio']} ({line.get('chip')}:{line.get('offset')})" if "gpio" in line
             else f"key {line['key']} ({line.get('label')})")
    tool = rec["tool"] + (f" {rec['script']}" if rec.get("script") else f" --{rec['method']}")
    out.append(f"== {rec['name']}: {tool}, {where}")
    rows = dense_log2(rec["log2"])
    while rows and not rows[-1][2]:
        rows.pop()
    top = max((c for _, _, c in rows), default=0)
    for lo, hi, c in rows:
        bar = "#" * (round(40 * c / top) if top else 0)
        out.append(f"[{fmt_ns(lo):>10}, {fmt_ns(hi):>10}) {c:>9} |{bar:<40}|")
    s = rec["summary"]
    if s.get("count"):
        est = " (bucket estimates)" if s.get("estimated_from_buckets") else ""
        lo = s.get("min_ns", s.get("min_ns_at_least"))
        hi = s.get("max_ns", s.get("max_ns_below"))
        out.append(f"pulse width{est}: count {s['count']}, min {fmt_ns(lo)}, "
                   f"mean {fmt_ns(s['mean_ns'])}, p50 {fmt_ns(s['p50_ns'])}, "
                   f"p90 {fmt_ns(s['p90_ns'])}, p99 {fmt_ns(s['p99_ns'])}, max {fmt_ns(hi)}")
    else:
        out.append("pulse width: no pairs")
    extra = []
    if "unmatched" in rec:
        extra.append(f"unmatched {rec['unmatched']}")
    if rec.get("pulses_issued") is not None:
        extra.append(f"pulses issued {rec['pulses_issued']}")
    if rec.get("pulses_lost") is not None:
        extra.append(f"pulses lost {rec['pulses_lost']}")
    if rec.get("sets_lost") is not None:
        extra.append(f"sets lost {rec['sets_lost']}")
    if rec.get("events_lost") is not None:
        extra.append(f"events lost ({rec['tool']}'s count) {rec['events_lost']}")
    if extra:
        out.append(", ".join(extra))
    ov = rec.get("overhead")
    if ov:
        p = ov.get("program") or {}
        if p.get("run_cnt"):
            out.append(f"BPF program {p['name']}: {p['mean_ns_per_run']:.1f} ns per run "
                       f"(mean over {p['run_cnt']} runs, BPF run-time statistics)")
        sh = ov.get("shift") or {}
        if sh.get("shift_ns_per_set") is not None:
            t, u = sh["traced"], sh["untraced"]
            out.append(f"pulse-width shift: {sh['shift_ns_per_set']:.1f} ns per set "
                       f"(traced {t['mean_ns_per_set']:.1f} ns sd {t['sd_ns_per_set']:.1f}, "
                       f"n={t['batches']} batches; untraced {u['mean_ns_per_set']:.1f} ns "
                       f"sd {u['sd_ns_per_set']:.1f}, n={u['batches']} batches)")
        # the talk's untraced pulse as context; an overhead figure only where the loader's one
        # rule (loader/core/baseline.c: same kind of method, same reference) put it beside the
        # shift ("beside"); never the links of a chain along "against" (older files have them)
        for r in ov.get("reference") or []:
            if r.get("kind") == "overhead" and r.get("beside") is not True:
                continue
            against = f", against {r['against']}" if r.get("against") else ""
            out.append(f"talk (BeagleBone Black, oscilloscope): {r['method']} {r['kind']} "
                       f"{fmt_ns(r['value_ns'])} ({r['note']}{against})")
    return out


def csv_block(rec):
    line = rec["line"]
    where = line.get("gpio", line.get("key"))
    out = [f"# {rec['name']} method={rec['method']} line={where} kind=log2 unit=ns",
           "# low_ns high_ns count"]
    out += [f"{lo} {hi} {c}" for lo, hi, c in rec["log2"]]
    lin = rec.get("linear")
    if lin:
        out += ["", "", f"# {rec['name']} method={rec['method']} line={where} "
                f"kind=linear width_ns={lin['width_ns']} overflow={lin['overflow']} unit=ns",
                "# low_ns high_ns count"]
        out += [f"{b['low_ns']} {b['high_ns']} {b['count']}" for b in lin["buckets"]]
    return out


def dense_log2(buckets):
    """Log2 buckets with the empty ones between put back (gpiolat's JSON leaves them out)."""
    out = []
    for lo, hi, c in buckets:
        while out and out[-1][1] < lo:
            plo, phi = out[-1][1], out[-1][1] * 2
            out.append((plo, phi, 0))
        out.append((lo, hi, c))
    return out


def plot(rec, path, emulated):
    """A PNG of one histogram: log2 buckets as bars, count on a log scale."""
    rows = dense_log2(rec["log2"])
    while rows and not rows[-1][2]:
        rows.pop()
    while rows and not rows[0][2]:
        rows.pop(0)
    if not rows:
        return False
    data = path + ".dat"
    results.write_text(data, "".join(f'"{fmt_ns(lo)}" {c}\n' for lo, hi, c in rows))
    s = rec["summary"]
    title = (f"{rec['name']}: pulse width, n={s.get('count')}, p50 {fmt_ns(s.get('p50_ns'))}, "
             f"p99 {fmt_ns(s.get('p99_ns'))}")
    if emulated:
        title += "\\n" + results.TITLE
    script = f"""
set terminal pngcairo size 900,500 noenhanced
set output '{path}'
set title "{title}"
set style fill solid 0.6
set boxwidth 0.8
set logscale y
set yrange [0.8:*]
set xlabel 'pulse width, log2 bucket lower bound'
set ylabel 'pulses'
set xtics rotate by -45
plot '{data}' using 0:2:xticlabels(1) with boxes notitle
"""
    ok = results.gnuplot(script, path, "report.py")
    os.unlink(data)
    return ok


def main(argv):
    try:
        return run(argv)
    except results.BadResults as e:
        print(f"report.py: {e}", file=sys.stderr)
        return 1


def run(argv):
    if len(argv) != 3:
        print("usage: host/report.py RAWDIR OUTDIR", file=sys.stderr)
        return 2
    raw, outdir = argv[1], argv[2]
    if not os.path.isdir(raw):
        print(f"report.py: no raw results in {raw}", file=sys.stderr)
        return 1
    os.makedirs(outdir, exist_ok=True)
    recs, unavailable = [], []
    emulated = False
    toggled = toggled_line(raw)
    for fn in sorted(os.listdir(raw)):
        path = os.path.join(raw, fn)
        m = re.fullmatch(r"(gpiolat|bpftrace)-(.+)\.(json|unavailable)", fn) or \
            re.fullmatch(r"(ply)-(.+)\.(txt|unavailable)", fn)
        if not m:
            continue
        tool, what, kind = m.groups()
        name = f"{tool}-{what}"
        if kind == "unavailable":
            unavailable.append({"name": name, "reason": results.read_text(path).strip()})
            continue
        text = results.read_text(path)
        if tool == "gpiolat":
            doc = results.parse(text, "histogram", path)
            emulated = emulated or bool(doc.get("emulated"))
            recs += from_gpiolat(doc, name)
        else:
            issued = None
            edges = os.path.join(raw, f"{tool}-{what}.edges")
            if os.path.exists(edges):
                r0, _, r1, _ = (int(x) for x in results.read_text(edges).split())
                issued = r1 - r0
            method = "kprobe" if "kprobe" in what else "tracepoint"
            script = f"ply/{what}.bt" if tool == "bpftrace" else f"ply/{what}.ply"
            try:
                got = from_bpftrace(text, name, script, method, issued, toggled, tool)
            except ValueError as e:
                form = "bpftrace -f json" if tool == "bpftrace" else "ply's map"
                raise results.BadResults(f"{path}: not {form} output: {e}") from None
            lost = os.path.join(raw, f"{tool}-{what}.lost")
            for r in got if tool == "ply" else []:
                # ply's own count of events it lost (its perf buffer: "lost N events" on its
                # stderr, which study/histograms.sh keeps in .lost; no such line: 0)
                r["events_lost"] = 0
                if os.path.exists(lost):
                    with open(lost) as f:
                        r["events_lost"] = sum(int(n) for n in re.findall(
                            r"lost ([0-9]+) events", f.read(), re.I))
            if not got:
                # said, never dropped: the method ran and printed no histogram
                unavailable.append({"name": name, "reason": f"{tool} printed no histogram "
                                    f"({fn}: no histogram map with a bucket)"})
            recs += got
    if not recs:
        print(f"report.py: no histogram in {raw}", file=sys.stderr)
        return 1
    uname = ""
    if os.path.exists(os.path.join(raw, "uname.txt")):
        uname = results.read_text(os.path.join(raw, "uname.txt")).strip()
    # the emulated target's clock, as host/bpf-histograms.sh ran it (real or icount); none
    # natively or when the raw folder was made otherwise
    timing = None
    if emulated and os.path.exists(os.path.join(raw, "timing.txt")):
        timing = results.read_text(os.path.join(raw, "timing.txt")).strip()
        if timing not in ("real", "icount"):
            raise results.BadResults(f"{os.path.join(raw, 'timing.txt')}: '{timing[:40]}' is "
                                     "not real or icount")
    report = {
        "tool": "gpiolat",
        "report": "bpf-histograms",
        "format": 1,
        "generated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "target": {"uname": uname, "emulated": emulated, "timing": timing},
        "caveat": results.caveat(timing) if emulated else None,
        "histograms": recs,
        "unavailable": unavailable,
    }
    results.write_text(os.path.join(outdir, "histograms.json"), json.dumps(report, indent=1) + "\n")
    text = [f"gpiolat bpf-histograms, {report['generated']}", f"target: {uname}"]
    if emulated:
        text.append("NOTE: " + results.caveat(timing))
    for rec in recs:
        text += [""] + text_block(rec)
    for u in unavailable:
        text += ["", f"== {u['name']}: not available: {u['reason']}"]
    results.write_text(os.path.join(outdir, "histograms.txt"), "\n".join(text) + "\n")
    csv = [f"# gpiolat bpf-histograms, {report['generated']}, target: {uname}"]
    if emulated:
        csv.append("# " + results.caveat(timing))
    for rec in recs:
        csv += ["", ""] + csv_block(rec)
    results.write_text(os.path.join(outdir, "histograms.csv"), "\n".join(csv) + "\n")
    for rec in recs:
        # named after the line's label (toggle-vchip-0), never a kernel address
        plot(rec, os.path.join(outdir, f"{rec['name']}-{rec['line']['label']}.png"), emulated)
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(results.run_main("report.py", main, sys.argv))
