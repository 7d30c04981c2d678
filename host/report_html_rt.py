"""The page's standard vs PREEMPT_RT section (rt.json of `make rt-report`; host/report_html.py
draws the page, host/rt_report.py writes the file and decides what goes beside what).

The table is rt_report.side_by_side() itself, on the kernels as rt.json holds them: the same
rows as rt.txt, with the talk's and ADI's figures beside a kernel's figure only where
rt_report finds the same kind, kernel flavour and reference. The figure: each kernel's wakeup
latency p50, p99 and max per task, idle and loaded, on a log axis."""
import math
import os
import re

import compare
import rt_report

SECTIONS = {
    "kernel": "kernel",
    "overhead": "overhead subset (gpiolat --overhead --quick): ns per set; ns added per set, "
                "± 95 % CI, n = repetitions",
    "wakeup": "wakeup latency of the toggler (gpiolat --wakeup): p99 / max in µs, n = wakeups "
              "histogrammed",
    "cyclictest": "cyclictest (options in each row): p99 / max in µs (1 µs buckets), n = "
                  "cycles, avg in µs",
    "timerlat": "rtla timerlat hist -c 0: thread and irq max in µs, n = activations",
    "gaps": "gaps in continuous toggling (gpiolat --gaps): p99 / max in µs, gaps over the "
            "threshold and their total; top causes: gaps x total",
    "repeat": "run to run: each kernel run again, each run a boot of its own (RT_RUNS)",
}
KERNEL_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def micro(s):
    """rt_report's ASCII 'us' as the page writes it"""
    return re.sub(r"\bus\b", "µs", s)


def references(doc):
    refs = doc.get("references") or {}
    talk = os.path.basename(refs.get("talk") or "baseline-klinger-elce2023.csv")
    adi = os.path.basename(refs.get("adi") or "baseline-adi-cyclictest.csv")
    return rt_report.baseline(talk), rt_report.baseline(adi)


def table(ks, rows, notes, rh):
    out = ["<table><thead><tr><th></th>"]
    out += [f"<th>{rh.esc(k['kernel'])} <span class=note>({rh.esc(rt_report.preemption(k))})"
            "</span></th>" for k in ks]
    out.append("<th>reference (same kind and kernel flavour only)</th></tr></thead><tbody>")
    section = None
    for sec, label, cells, ref in rows:
        if sec != section:
            out.append(f"<tr><th colspan={len(ks) + 2}>{rh.esc(SECTIONS.get(sec, sec))}</th>"
                       "</tr>")
            section = sec
        out.append(f"<tr><td>{rh.esc(label.strip())}</td>")
        for c in cells:
            if c.startswith("not available"):
                out.append(f"<td class=na>{rh.esc(c)}</td>")
            elif sec in ("kernel",) or "causes" in label:
                out.append(f"<td>{rh.esc(micro(c))}</td>")
            else:
                out.append(f"<td class=num>{rh.esc(micro(c))}</td>")
        out.append(f"<td>{rh.esc(micro(ref)) if ref else '-'}</td></tr>")
    out.append("</tbody></table>")
    if notes:
        out.append("<p class=note>" + "; ".join(f"[{i + 1}] {rh.esc(n)}"
                                               for i, n in enumerate(notes)) + "</p>")
    return "".join(out)


def tails_table(ks, timing, rh):
    """the tails per kernel, standard beside PREEMPT_RT, one table per architecture, idle and
    loaded, with their counts and whether a second run (its own boot) gave the same figures"""
    figs = [n for n, _ in rt_report.tails(ks[0]) if not n.startswith("gaps")]
    archs = []
    for k in ks:
        if rt_report.arch(k) not in archs:
            archs.append(rt_report.arch(k))
    unit = ("µs of guest instructions (TIMING=icount: 1 ns = 1 instruction, not hardware time)"
            if timing == "icount" else "µs")
    out = [f"<p>The tails per kernel: p99 / max in {rh.esc(unit)}, n = wakeups histogrammed, "
           "cycles or activations; idle and under the load. The last column: each kernel run "
           "again in a boot of its own (<code>RT_RUNS=2</code>), figure by figure.</p>"]
    for a in archs:
        group = [k for k in ks if rt_report.arch(k) == a]
        out.append(f"<table><thead><tr><th>{rh.esc(a)}</th><th>preemption</th>")
        out += [f"<th>{rh.esc(n)}</th>" for n in figs]
        out.append("<th>run to run</th></tr></thead><tbody>")
        for k in group:
            t = dict(rt_report.tails(k))
            out.append(f"<tr><td>{rh.esc(k['kernel'])} <span class=note>"
                       f"({rh.esc(k['info'].get('release', '-'))})</span></td>"
                       f"<td>{rh.esc(rt_report.preemption(k))}</td>")
            for n in figs:
                f = t.get(n)
                out.append(f"<td class=num>{rh.esc(micro(rt_report.fig_text(f)))}</td>" if f
                           else "<td class=na>not available</td>")
            r = k.get("repeat")
            if not r:
                out.append("<td class=na>one run</td>")
            elif not r["differ"]:
                out.append(f"<td>{r['runs']} runs, the same {r['figures']} figures</td>")
            else:
                names = sorted({d[0] for d in r["differ"]} & set(figs))
                out.append(f"<td>{r['runs']} runs: {len({d[0] for d in r['differ']})} of "
                           f"{r['figures']} figures differ" + (
                               ": " + rh.esc("; ".join(
                                   f"{d[0]} run {d[1]}: {micro(d[3])}"
                                   for d in r["differ"] if d[0] in names))
                               if names else "") + "</td>")
            out.append("</tr>")
        out.append("</tbody></table>")
    return "".join(out)


def wakeup_rows(ks):
    """(task, phase, kernel index, figures) of every wakeup histogram with a count"""
    rows = []
    for t in rt_report.TASKS:
        for p in rt_report.PHASES:
            for i, k in enumerate(ks):
                w = k.get(f"wakeup-{t}-{p}")
                if w and w.get("count") and w.get("max_ns"):
                    rows.append((t, p, i, w))
    return rows


def wakeup_figure(ks, rh):
    """per task and phase, a bar per kernel: p99 solid, p99 to max pale, p50 a tick; log µs"""
    rows = wakeup_rows(ks)
    if not rows:
        return None
    vals = [v for *_, w in rows for v in (w.get("p50_ns") or w["max_ns"], w["max_ns"])]
    lo = 10 ** math.floor(math.log10(max(min(vals), 1)))
    hi = 10 ** math.ceil(math.log10(max(vals)))
    if hi <= lo:
        hi = lo * 10
    W, L, R, T, bh, gap = 1000, 150, 250, 20, 18, 10
    groups = len({(t, p) for t, p, _, _ in rows})
    H = T + bh * len(rows) + gap * groups + 70
    pw = W - L - R
    X = lambda v: L + (math.log10(max(v, lo)) - math.log10(lo)) / \
        (math.log10(hi) - math.log10(lo)) * pw
    body = []
    bottom = H - 60
    d = lo
    while d <= hi:
        body.append(rh.line(X(d), T - 5, X(d), bottom, "#ddd"))
        body.append(rh.text(X(d), bottom + 16, rh.fmt_tick(d), "middle", 11))
        d *= 10
    y, last = T, None
    for t, p, i, w in rows:
        if (t, p) != last:
            if last is not None:
                body.append(rh.line(L - 140, y + gap / 2, L + pw, y + gap / 2, "#bbb"))
            y += gap
            body.append(rh.text(L - 8, y + bh * 0.7, f"{t} {p}", "end", 12,
                                'font-weight="bold"'))
            last = (t, p)
        c = KERNEL_COLOURS[i % len(KERNEL_COLOURS)]
        p50, p99, mx, n = w.get("p50_ns"), w["p99_ns"], w["max_ns"], w["count"]
        tip = (f"{ks[i]['kernel']} {t} {p}: p50 {rh.fmt_ns(p50)}, p99 {rh.fmt_ns(p99)}, "
               f"max {rh.fmt_ns(mx)}, n={n}")
        body.append(f'<rect x="{L}" y="{y + 3}" width="{max(X(mx) - L, 1):.1f}" '
                    f'height="{bh - 6}" fill="{c}" fill-opacity="0.25"><title>{rh.esc(tip)}'
                    "</title></rect>")
        body.append(f'<rect x="{L}" y="{y + 3}" width="{max(X(p99) - L, 1):.1f}" '
                    f'height="{bh - 6}" fill="{c}"><title>{rh.esc(tip)}</title></rect>')
        if p50:
            body.append(rh.line(X(p50), y + 1, X(p50), y + bh - 1, "#000", 2))
        body.append(rh.text(L + pw + 6, y + bh * 0.7, f"{ks[i]['kernel']}: p99 "
                            f"{rh.fmt_ns(p99)}, max {rh.fmt_ns(mx)}, n={n}", size=11))
        y += bh
    lx = L
    for i, k in enumerate(ks):
        c = KERNEL_COLOURS[i % len(KERNEL_COLOURS)]
        body.append(f'<rect x="{lx}" y="{bottom + 28}" width="14" height="10" fill="{c}"/>')
        body.append(rh.text(lx + 18, bottom + 37, f"{k['kernel']} "
                            f"({rt_report.preemption(k)})", size=11))
        lx += 240
    body.append(rh.text(L + pw / 2, H - 6, "wakeup latency (log scale): solid bar to p99, pale "
                        "to max, black tick p50", "middle", 12))
    return rh.svg(W, H, body, "wakeup latency of the toggler per kernel, idle and loaded")


def compared(ks, rh):
    """the first two kernels' overhead subsets compared row by row (host/compare.py): B - A,
    its 95 % interval and verdict, like with like; "" when either has none"""
    if len(ks) < 2 or not ks[0].get("overhead") or not ks[1].get("overhead"):
        return ""
    a, b = ks[0], ks[1]
    res = compare.compare("overhead", a["overhead"], b["overhead"])
    if not res["rows"]:
        return ""
    out = [f"<p>The overhead subset compared, A = {rh.esc(a['kernel'])}, B = "
           f"{rh.esc(b['kernel'])} (host/compare.py, docs/compare.md): B - A in ns per set, "
           "its 95 % interval by Welch's t from each row's own standard error, higher or lower "
           "when the interval excludes 0, ~ when it holds 0; an exact difference (both rows "
           "repeat exactly, TIMING=icount) is its own interval."]
    if res["differs"]:
        out.append(" The runs differ in: " + rh.esc("; ".join(
            f"{d['what']} ({d['a']} vs {d['b']})" for d in res["differs"])) + ".")
    if not res["like_with_like"]:
        out.append(" <b>Not like with like</b>: the two runs' clocks differ; no difference "
                   "is given.")
    out.append("</p><table><thead><tr><th>method</th><th>against</th><th>A</th><th>B</th>"
               "<th>B - A</th><th>95 % interval</th><th>verdict</th></tr></thead><tbody>")
    for r in res["rows"]:
        against, d, iv, verdict = compare.cells(r)
        out.append(f"<tr><td>{rh.esc(r['method'])}</td><td>{rh.esc(against)}</td>"
                   f"<td class=num>{compare.f1(r['a']['mean'])} ± {compare.f1(r['a']['ci95'])}"
                   f"</td><td class=num>{compare.f1(r['b']['mean'])} ± "
                   f"{compare.f1(r['b']['ci95'])}</td><td class=num>{d}</td>"
                   f"<td class=num>{rh.esc(iv)}</td><td>{rh.esc(verdict)}</td></tr>")
    out.append("</tbody></table>")
    return "".join(out)


def rt_section(doc, rh):
    title = "Standard vs PREEMPT_RT kernel"
    if doc is None:
        return rh.not_run("rt", title, "no rt.json in the results (make bpf-histograms writes "
                          "it at a small size, STUDIES=rt for that part alone; make rt-report "
                          "the full size: each kernel of RT_KERNELS booted in turn).")
    ks = doc["kernels"]
    if not ks:
        return rh.not_run("rt", title, "rt.json names no kernel (make rt-report).")
    talk, adi = references(doc)
    notes = []
    rows = rt_report.side_by_side(ks, talk, adi, notes)
    emulated = doc.get("emulated")
    timing = doc.get("timing")
    out = [f"<section id=rt><h2>{rh.esc(title)}</h2>", rh.caveat_box(emulated, timing),
           tails_table(ks, timing, rh),
           f"<p>{len(ks)} kernels side by side ({rh.esc(', '.join(k['kernel'] for k in ks))}), "
           "each measured by study/rt.sh, idle and under the load named below. Beside a "
           "kernel's figure, a reference only where it is of the same kind and kernel flavour: "
           "the talk's untraced pulse of 6.1.26 beside the standard kernel, of 6.1.26-rt8 "
           "beside the RT one, its method overheads (measured on -rt8) beside the RT column "
           "only, ADI's cyclictest figures only when the load is its own (docs/rt.md).</p>",
           table(ks, rows, notes, rh), compared(ks, rh)]
    fig = wakeup_figure(ks, rh)
    if fig:
        cav = f" {rh.esc(doc.get('caveat'))}." if emulated and doc.get("caveat") else ""
        out.append(f"<figure>{fig}<figcaption>Wakeup latency of the toggle module's kernel "
                   "thread and of the user-space toggler, per kernel, idle and loaded "
                   f"(gpiolat --wakeup; n: wakeups histogrammed).{cav}</figcaption></figure>")
    if doc.get("findings"):
        out.append("<p>What these runs show (computed by rt_report.py from the figures above):"
                   "</p><ul>" + "".join(f"<li>{rh.esc(micro(f))}</li>"
                                        for f in doc["findings"]) + "</ul>")
    out.append("</section>")
    return "".join(out)
