#!/usr/bin/env python3
"""Host side: one self-contained page of every study's results, `make report`.

    host/report_html.py RESULTSDIR [OUT.html]      (default RESULTSDIR/report.html)

Reads what the studies wrote into RESULTSDIR (docs/output-format.md, docs/overhead.md):
histograms.json (make bpf-histograms), overhead.json (make overhead-report), raw/self-test.txt,
gpio-path.json, bench-gpio.json and syscall-cost.json (host/report_html_sections.py), rt.json
(host/report_html_rt.py), every file through host/results.py, and names the studies whose
results are absent (a malformed file: one error line, exit status 1). Writes one HTML page with inline SVG figures
drawn here (no script, style sheet or font from elsewhere): readable offline. A small inline
script marks <body> with data-figures (each figure has a non-zero size) and data-errors (what
window.onerror saw), for tests/host/test_report_html.py.
"""
import datetime
import html
import math
import os
import sys

import report  # host/report.py: the histograms' text report
import results  # host/results.py: every file read and checked, the caveat, the loader's rule
import report_html_rt  # host/report_html_rt.py: standard vs PREEMPT_RT (rt.json)
import report_html_matrix  # host/report_html_matrix.py: the talk's matrix on armhf (matrix.json)
import report_html_sections  # host/report_html_sections.py: the GPIO path, bench-gpio, syscall cost

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22"]
# the studies drawn after the self-test: file, its kind (host/results.py), section (each says
# "not run" when it is None, but for the talk's matrix on armhf: there only when measured)
OTHER_STUDIES = [
    ("rt.json", "rt", report_html_rt.rt_section),
    ("matrix.json", "matrix", report_html_matrix.matrix_section),
    ("bench-gpio.json", "bench-gpio", report_html_sections.bench_gpio_section),
    ("observer.json", "observer", report_html_sections.observer_section),
    ("syscall-cost.json", "syscall-cost", report_html_sections.syscall_cost_section),
]
BadResults = results.BadResults


def esc(s):
    return html.escape(str(s), quote=True)


def fmt_ns(ns):
    return report.fmt_ns(ns, "µs", 1)


def fmt_tick(ns):
    """A round axis value: 1 µs, 20 µs, 1 ms"""
    for unit, div in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= div:
            return f"{ns / div:g} {unit}"
    return f"{ns:g} ns"


def label_of(h):
    """histograms.json's line label (older files have none: chip-offset, gpio or key)"""
    ln = h["line"]
    if ln.get("label"):
        return ln["label"]
    if ln.get("chip") is not None:
        return f"{ln['chip']}-{ln.get('offset')}"
    if "gpio" in ln:
        return f"gpio{ln['gpio']}"
    key = str(ln.get("key", ""))
    return f"gpio{key}" if key.isdigit() else "a descriptor"


def load(path, kind):
    """the results file of kind at path (host/results.py checks it), None when absent"""
    return results.load(path, kind)


def talk_cell(row):
    """the talk's figure where the loader's one rule (loader/core/baseline.c, baseline_beside: the
    same kind of method against the same reference) lets it stand beside the row
    (results.talk_beside); otherwise why not. A file from before the rule carries no verdict
    (and may carry sums along "against"): no figure stands."""
    t = row.get("talk")
    if not t:
        return "-"
    if results.talk_beside(row) and t.get("ours_per") == "pulse":
        return (f"{fmt_ns(t['overhead_ns'])} per pulse+ <span class=note>(talk's "
                f"{esc(t['row'])}, against {esc(t.get('against'))}; it fires once a pulse: "
                f"ours per pulse {fmt_ns(t['ours_ns'])} ± {fmt_ns(t.get('ours_ci95_ns'))}, "
                "not on the per-set chart)</span>")
    if results.talk_beside(row):
        return (f"{fmt_ns(t['overhead_ns'])} <span class=note>(talk's {esc(t['row'])}, against "
                f"{esc(t.get('against'))})</span>")
    if "same_reference" not in t:
        return ("none <span class=note>(the file has no verdict of the loader's rule on the "
                f"talk's {esc(t['row'])}: written before it)</span>")
    ref = (f"is against {esc(t['against'])}" if t.get("against") else "names no reference: "
           "a per-additional figure")
    return f"different reference <span class=note>(the talk's {esc(t['row'])} {ref})</span>"


def in_order(methods):
    """The rows as the table and the chart show them: the 1..10 events and kprobes series
    last, each in order of k (their fit has a figure of its own)"""
    return sorted(methods, key=lambda r: (bool(r.get("series")), r.get("series") or "",
                                          r.get("k") or 0))


# ---- SVG ------------------------------------------------------------------------------------
def svg(w, h, body, label):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
            f'viewBox="0 0 {w} {h}" role="img" aria-label="{esc(label)}">'
            f'<rect width="{w}" height="{h}" fill="#fff"/>{"".join(body)}</svg>')


def text(x, y, s, anchor="start", size=12, extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-family="sans-serif" {extra}>{esc(s)}</text>')


def line(x1, y1, x2, y2, colour="#000", width=1, dash=None):
    d = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{colour}" '
            f'stroke-width="{width}"{d}/>')


def nice_ticks(lo, hi, n=6):
    """Round tick values between lo and hi (linear axis)."""
    span = hi - lo or 1
    step = 10 ** math.floor(math.log10(span / n))
    for m in (1, 2, 5, 10):
        if span / (step * m) <= n:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def plot_buckets(h):
    """The finest buckets a histogram has: gpiolat's fine ones (at most 1/32 of their low bound
    wide) where present, else log2; the unbounded last bucket drawn to the largest pulse (or one
    power of two on)."""
    buckets = [list(b) for b in (h.get("buckets") or h["log2"]) if b[2]]
    for b in buckets:
        if b[1] is None:
            b[1] = max((h.get("summary") or {}).get("max_ns") or 0, 2 * max(b[0], 1))
    return buckets


def cdf_figure(hists):
    """Every histogram's CDF on one log time axis (gpiolat's fine buckets, else log2)."""
    curves = []
    for h in hists:
        buckets = plot_buckets(h)
        total = sum(b[2] for b in buckets)
        if not total:
            continue
        pts, seen = [(buckets[0][0] or 1, 0.0)], 0
        for lo, hi, c in buckets:
            pts.append((max(lo, 1), seen / total))
            seen += c
            pts.append((hi, seen / total))
        curves.append((h, pts, total))
    if not curves:
        return None
    x0 = min(p[0][0] for _, p, _ in curves)
    x1 = max(p[-1][0] for _, p, _ in curves)
    lx0, lx1 = math.floor(math.log10(x0)), math.ceil(math.log10(x1))
    W, H, L, R, T, B = 1000, 480, 60, 320, 20, 50
    pw, ph = W - L - R, H - T - B
    X = lambda v: L + (math.log10(max(v, 1)) - lx0) / (lx1 - lx0) * pw
    Y = lambda f: T + (1 - f) * ph
    body = [f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>']
    for e in range(lx0, lx1 + 1):
        body.append(line(X(10 ** e), T, X(10 ** e), T + ph, "#ddd"))
        body.append(text(X(10 ** e), T + ph + 16, fmt_tick(10 ** e), "middle"))
    for f in (0, 0.25, 0.5, 0.75, 0.9, 0.99):
        body.append(line(L, Y(f), L + pw, Y(f), "#eee" if f not in (0.5, 0.99) else "#ccc"))
        body.append(text(L - 6, Y(f) + 4, f"{f:g}", "end", 11))
    fine = any(h.get("buckets") for h, _, _ in curves)
    body.append(text(L + pw / 2, H - 8, "pulse width (log scale; "
                     + ("gpiolat: buckets ≤ 3.1 % wide, others log2)" if fine else "log2 buckets)"),
                     "middle"))
    body.append(text(14, T + ph / 2, "fraction of pulses ≤ width", "middle", 12,
                     f'transform="rotate(-90 14 {T + ph / 2})"'))
    for i, (h, pts, total) in enumerate(curves):
        c = COLOURS[i % len(COLOURS)]
        d = " ".join(f"{X(x):.1f},{Y(y):.1f}" for x, y in pts)
        # solid: gpiolat, dashed: bpftrace, dotted: ply
        pattern = {"gpiolat": None, "ply": "2 3"}.get(h["tool"], "6 3")
        dash = f' stroke-dasharray="{pattern}"' if pattern else ""
        body.append(f'<polyline points="{d}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
        ly = T + 14 + 18 * i
        body.append(line(L + pw + 12, ly - 4, L + pw + 36, ly - 4, c, 2, pattern))
        body.append(text(L + pw + 42, ly, f"{h['name']} ({label_of(h)}), "
                         f"n={total}", size=11))
    return svg(W, H, body, "CDF of the pulse widths of every hook and tool")


def overhead_figure(rows, axis=None):
    """Horizontal bars: each measured row's overhead with its 95 % CI, talk marks where the
    reference is the same. axis: the axis label, when not the overhead matrix's."""
    rows = [r for r in in_order(rows) if r.get("measured") and r.get("overhead_ns") is not None]
    if not rows:
        return None
    end = lambda r: r["overhead_ns"] + (r.get("ci95_ns") or 0)
    ends = sorted(end(r) for r in rows)
    # one row far above the others (strace: a millisecond) would flatten every other bar: the
    # axis is set by the others, that row's bar is cut and its figures are written on it
    cut_at = ends[-2] * 4 if len(ends) > 2 and ends[-1] > 4 * ends[-2] > 0 else math.inf
    kept = [r for r in rows if end(r) <= cut_at]
    lo = min(min(r["overhead_ns"] - (r.get("ci95_ns") or 0) for r in kept), 0)
    hi = max(end(r) for r in kept)
    for r in kept:
        t = results.talk_per_set(r)
        if t:
            hi = max(hi, t["overhead_ns"])
    if cut_at < math.inf:
        hi *= 1.15
    W, L, R, T, rh = 1000, 230, 30, 30, 20
    H = T + rh * len(rows) + 50
    pw = W - L - R
    X = lambda v: L + (v - lo) / (hi - lo or 1) * pw
    body = []
    for v in nice_ticks(lo, hi):
        body.append(line(X(v), T - 5, X(v), T + rh * len(rows), "#ddd"))
        body.append(text(X(v), T + rh * len(rows) + 16, fmt_tick(v), "middle", 11))
    body.append(line(X(0), T - 5, X(0), T + rh * len(rows), "#444"))
    for i, r in enumerate(rows):
        y = T + i * rh
        v, ci = r["overhead_ns"], r.get("ci95_ns") or 0
        body.append(text(L - 8, y + rh * 0.7, r["method"], "end", 11))
        cut = v > hi
        x0, x1 = sorted((X(0), X(min(v, hi))))

        body.append(f'<rect x="{x0:.1f}" y="{y + 3}" width="{max(x1 - x0, 1):.1f}" '
                    f'height="{rh - 6}" fill="#6baed6"><title>{esc(r["method"])}: '
                    f'{fmt_ns(v)} ± {fmt_ns(ci)}</title></rect>')
        t = results.talk_per_set(r)
        talk_here = t is not None
        if cut:
            note = f", talk {fmt_ns(t['overhead_ns'])}" if talk_here else ""
            body.append(text(X(hi) - 4, y + rh * 0.7, f"{fmt_ns(v)} ± {fmt_ns(ci)}{note} "
                             "(axis cut) →", "end", 11, 'fill="#fff" font-weight="bold"'))
        else:  # the whisker, cut where it leaves the axis (no cap there)
            a, b = max(v - ci, lo), min(v + ci, hi)
            body.append(line(X(a), y + rh / 2, X(b), y + rh / 2, "#08306b", 1.5))
            for e in (v - ci, v + ci):
                if lo <= e <= hi:
                    body.append(line(X(e), y + 5, X(e), y + rh - 5, "#08306b", 1.5))
            if (a, b) != (v - ci, v + ci):
                body.append(text(X(hi) - 4, y + rh * 0.7, f"{fmt_ns(v)} ± {fmt_ns(ci)} "
                                 "(interval cut)", "end", 11, 'fill="#08306b"'))
        if talk_here and t["overhead_ns"] <= hi:
            tx, cy = X(t["overhead_ns"]), y + rh / 2
            body.append(f'<path d="M{tx:.1f},{cy - 6:.1f} l6,6 l-6,6 l-6,-6 z" fill="#d62728">'
                        f'<title>talk: {fmt_ns(t["overhead_ns"])} ({esc(t["row"])})</title></path>')
    body.append(text(L + pw / 2, H - 12, axis or "ns added per GPIO set (bar: mean over "
                     "repetitions; whiskers: 95 % CI; red diamond: the talk, where the loader's "
                     "rule lets it stand)", "middle"))
    return svg(W, H, body, axis or "overhead of each tracing method per GPIO set")


def fit_figure(series, rows, fit):
    """(k, lowest ns) of one series, the least-squares line and the talk's slope."""
    pts = sorted((r["k"], r["lowest_ns"]) for r in rows
                 if r.get("measured") and r.get("series") == series and r.get("lowest_ns") is not None)
    if len(pts) < 2 or "slope_ns" not in fit:
        return None
    n = len(pts)
    mx, my = sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n
    slope = fit["slope_ns"]
    icpt = my - slope * mx  # the least-squares intercept for that slope
    talk = fit.get("talk_slope_ns")
    kmax = max(p[0] for p in pts)
    lines_y = [icpt + slope * k for k in (1, kmax)]
    if talk is not None:
        lines_y += [icpt + slope + talk * (kmax - 1)]
    ylo = min([p[1] for p in pts] + lines_y + [0])
    yhi = max([p[1] for p in pts] + lines_y)
    W, H, L, R, T, B = 490, 320, 70, 15, 30, 60
    pw, ph = W - L - R, H - T - B
    X = lambda k: L + (k - 0.5) / (kmax) * pw
    Y = lambda v: T + (1 - (v - ylo) / (yhi - ylo or 1)) * ph
    body = [f'<rect x="{L}" y="{T}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>',
            text(W / 2, 18, f"{series}: ns added per set against how many", "middle", 13)]
    for v in nice_ticks(ylo, yhi, 5):
        body.append(line(L, Y(v), L + pw, Y(v), "#eee"))
        body.append(text(L - 6, Y(v) + 4, fmt_tick(v), "end", 11))
    for k in range(1, kmax + 1):
        body.append(text(X(k), T + ph + 15, str(k), "middle", 11))
    body.append(text(L + pw / 2, T + ph + 32, f"k ({series} on)", "middle", 11))
    body.append(line(X(1), Y(icpt + slope), X(kmax), Y(icpt + slope * kmax), "#1f77b4", 2))
    if talk is not None:
        body.append(line(X(1), Y(icpt + slope), X(kmax), Y(icpt + slope + talk * (kmax - 1)),
                         "#d62728", 2, "6 4"))
    for k, v in pts:
        body.append(f'<circle cx="{X(k):.1f}" cy="{Y(v):.1f}" r="4" fill="#08306b"/>')
    body.append(line(L, H - 12, L + 20, H - 12, "#1f77b4", 2))
    body.append(text(L + 24, H - 8, f"fit {slope:.0f} ns per one (R² {fit.get('r2', 0):.2f})",
                     size=11))
    if talk is not None:
        body.append(line(L + 230, H - 12, L + 250, H - 12, "#d62728", 2, "6 4"))
        body.append(text(L + 254, H - 8, f"talk {talk:.0f} ns per one", size=11))
    return svg(W, H, body, f"cost per additional {series}")


# ---- sections -------------------------------------------------------------------------------
def not_run(sid, title, why):
    return f"<section id={sid}><h2>{esc(title)}</h2><p class=notrun>Not run: {esc(why)}</p></section>"


def caveat_box(emulated, timing=None):
    """The emulation caveat (host/results.py: the one text) beside each section's numbers;
    timing: the study's TIMING, when known (icount: what its nanosecond is)"""
    if not emulated:
        return ""
    return f"<p class=caveat>{esc(results.caveat(timing))}.</p>"


def summary_section(ov):
    if ov is None:
        return not_run("summary", "What each method costs here", "no overhead.json in the "
                       "results (make overhead-report writes it; it needs the emulated target "
                       "or a board with the toggle module).")
    out = ["<section id=summary><h2>What each method costs here</h2>"]
    out.append(caveat_box(ov.get("emulated")))
    out.append(f"<p>ns added to one GPIO set by each tracing method: the mean over "
               f"{ov.get('repetitions')} repetitions of phases of {ov.get('pulses_per_phase')} "
               f"pulses, with its 95 % confidence interval (of the mean as sampled: neighbouring repetitions share a reference phase); untraced set "
               f"{fmt_ns(ov.get('untraced_ns_per_set'))}, noise floor sd "
               f"{fmt_ns(ov.get('noise_floor_sd_ns'))} over {ov.get('noise_floor_phases')} "
               f"phases; clock {esc(ov.get('clock'))}. The talk's figure (BeagleBone Black, "
               "oscilloscope) stands beside a row only where the loader's one rule "
               "(loader/core/baseline.c) finds it measured the same kind of method against the "
               "same reference (its 'tracing configured but off' is our 'untraced' and "
               "'mode=continuous', its "
               "'user-ioctl' our untraced ioctl toggler); a figure against another reference "
               "stands beside none, and no figures are ever summed along their references.</p>")
    out.append(f"<p>{esc(results.rank_words(results.talk_rank(ov)))}.</p>")
    out.append("<table><thead><tr><th>method</th><th>against</th><th>ns per set</th>"
               "<th>95 % CI</th><th>% of its reference</th><th>count</th><th>talk (same "
               "reference)</th></tr></thead><tbody>")
    for r in in_order(ov["methods"]):
        if not r.get("measured"):
            out.append(f"<tr class=na><td>{esc(r['method'])}</td><td colspan=6>"
                       f"{esc(results.why_not(r))}</td></tr>")
            continue
        pct = r.get("percent_of_reference")
        out.append(f"<tr><td>{esc(r['method'])}</td><td>{esc(r['against'])}</td>"
                   f"<td class=num>{fmt_ns(r['overhead_ns'])}</td>"
                   f"<td class=num>± {fmt_ns(r.get('ci95_ns'))}</td>"
                   f"<td class=num>{'-' if pct is None else f'{pct:.0f} %'}</td>"
                   f"<td class=num>{r['repetitions']} reps, {r['batches']} batches</td>"
                   f"<td>{talk_cell(r)}</td></tr>")
    out.append("</tbody></table></section>")
    return "".join(out)


# why an icount histogram is one bar, in the histogram section when it is
ICOUNT_BARS = (
    "<p class=note id=icount-bars>These pulses were counted in TIMING=icount, where the "
    "guest's clock counts instructions. Every pulse executes the same instructions, so every "
    "pulse has the same instruction-counted width, and each method's histogram is one bar (its "
    "curve one step). The bar's position is the figure (the pulse with the method's runs in "
    "it), and so is the shift per set (what the method adds). The spread is zero, or a "
    "nanosecond, by construction: it is not a measurement of jitter. Jitter needs "
    "<code>TIMING=real make bpf-histograms</code> (the host's clock, with its noise) or "
    "hardware.</p>")


def histogram_section(hd):
    title = "Pulse widths: every hook and tool on the same pulses"
    if hd is None:
        return not_run("histograms", title, "no histograms.json in the results (make "
                       "bpf-histograms writes it).")
    out = [f"<section id=histograms><h2>{title}</h2>"]
    emulated = hd.get("target", {}).get("emulated")
    out.append(f"<p>Target: <code>{esc(hd.get('target', {}).get('uname'))}</code>; "
               f"generated {esc(hd.get('generated'))}.</p>")
    timing = hd.get("target", {}).get("timing")
    out.append(caveat_box(emulated, timing))
    if emulated and timing == "icount":
        out.append(ICOUNT_BARS)
    fig = cdf_figure(hd["histograms"])
    fine = any(h.get("buckets") for h in hd["histograms"])
    res = ("gpiolat's curves use its fine buckets (each at most 1/32, 3.1 %, of its low bound "
           "wide: two methods a few percent apart are two curves), bpftrace's and ply's their "
           "log2 buckets (a factor of two wide)." if fine else "Buckets are log2 for all, so curves compare at the same resolution.")
    if fig:
        out.append(f"<figure>{fig}<figcaption>Cumulative distribution of the pulse width "
                   "(set to 1 → set to 0, one run of the probe included) seen by each hook "
                   "and tool; solid: gpiolat, dashed: bpftrace (the talk's ply scripts' twins), "
                   f"dotted: ply (the talk's scripts, where the target has ply). {res}"
                   f"{' Emulated timings.' if emulated else ''}</figcaption></figure>")
    out.append("<table><thead><tr><th>histogram</th><th>line</th><th>count</th><th>p50</th>"
               "<th>p90</th><th>p99</th><th>mean</th><th>pulses lost</th><th>shift per set</th>"
               "</tr></thead><tbody>")
    for h in hd["histograms"]:
        s = h["summary"]
        est = "<sup>*</sup>" if s.get("estimated_from_buckets") else ""
        sh = ((h.get("overhead") or {}).get("shift") or {})
        shift = (f"{fmt_ns(sh['shift_ns_per_set'])} (traced {sh['traced']['batches']} / "
                 f"untraced {sh['untraced']['batches']} batches)"
                 if sh.get("shift_ns_per_set") is not None else "-")
        lost = h.get("pulses_lost")
        out.append(f"<tr><td>{esc(h['name'])}</td><td>{esc(label_of(h))}</td>"
                   f"<td class=num>{s.get('count')}</td>"
                   + "".join(f"<td class=num>{fmt_ns(s.get(k))}{est}</td>"
                             for k in ("p50_ns", "p90_ns", "p99_ns", "mean_ns"))
                   + f"<td class=num>{'-' if lost is None else lost}</td><td>{shift}</td></tr>")
    for u in hd.get("unavailable") or []:
        out.append(f"<tr class=na><td>{esc(u['name'])}</td><td colspan=8>not available: "
                   f"{esc(u['reason'])}</td></tr>")
    out.append("</tbody></table><p class=note>* estimated from the log2 buckets (bpftrace and ply "
               "give no raw figures). Lost: pulses issued minus pulses histogrammed. Shift: what "
               "gpiolat's probe added per set, traced batches against untraced ones.</p>"
               "</section>")
    return "".join(out)


def overhead_section(ov):
    if ov is None:
        return (not_run("overhead", "The overhead matrix", "no overhead.json (make "
                        "overhead-report).") + not_run("fits", "Cost of each additional event "
                                                      "and kprobe", "no overhead.json."))
    out = ["<section id=overhead><h2>The overhead matrix</h2>"]
    out.append(caveat_box(ov.get("emulated")))
    fig = overhead_figure(ov["methods"])
    if fig:
        out.append(f"<figure>{fig}<figcaption>Each measured method against its own reference "
                   "(the table above names it).</figcaption></figure>")
    out.append("</section><section id=fits><h2>Cost of each additional event and kprobe</h2>")
    out.append(caveat_box(ov.get("emulated")))
    figs = []
    for series, fit in (ov.get("linear_fits") or {}).items():
        f = fit_figure(series, ov["methods"], fit)
        if f:
            figs.append(f)
        else:
            figs.append(f"<p class=notrun>{esc(series)}: too few points to fit "
                        f"({fit.get('points')}).</p>")
    out.append("<figure><div class=row>" + "".join(figs) + "</div><figcaption>Each point is "
               "the lowest of its repetitions (a stall only adds time); the solid line is the "
               "least-squares fit over k = 1..10 (its slope from overhead.json); the dashed "
               "line has the talk's slope, drawn from the fit's k = 1 value."
               f"{' Emulated timings.' if ov.get('emulated') else ''}</figcaption></figure>"
               "</section>")
    return "".join(out)


def other_sections(resdir):
    out = [report_html_sections.self_test_section(resdir, sys.modules[__name__])]
    for fn, kind, section in OTHER_STUDIES:
        path = os.path.join(resdir, fn)
        doc = load(path, kind)
        try:
            out.append(section(doc, sys.modules[__name__]))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
            raise BadResults(f"{path}: unexpected content: {e!r}") from None
    return "".join(out)


STYLE = """body{font-family:sans-serif;max-width:1040px;margin:1em auto;color:#222}
table{border-collapse:collapse;margin:.5em 0;font-size:13px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}
td.num{text-align:right;white-space:nowrap}
tr.na td{color:#777}.note{color:#666;font-size:11px}.notrun{color:#a00}
.caveat{background:#fff3cd;border:1px solid #e0c060;padding:6px 10px}
figure{margin:1em 0}figcaption{font-size:12px;color:#444}.row{display:flex;gap:10px}
pre{background:#f6f6f6;padding:6px;font-size:12px;overflow:auto}"""

CHECK = """<script>
window.gpiolatErrors = [];
window.onerror = function (msg, src, line) {
	window.gpiolatErrors.push(msg + ' (' + line + ')');
	document.body && document.body.setAttribute('data-errors', window.gpiolatErrors.join('; '));
};
window.addEventListener('load', function () {
	var bad = [], figs = document.querySelectorAll('figure svg, figure img');
	figs.forEach(function (f, i) {
		var r = f.getBoundingClientRect();
		if (!(r.width > 0 && r.height > 0) || (f.tagName === 'IMG' && !f.naturalWidth))
			bad.push(i);
	});
	document.body.setAttribute('data-figures', bad.length ? 'empty: ' + bad.join(',') :
				   'ok ' + figs.length);
	document.body.setAttribute('data-errors', window.gpiolatErrors.join('; '));
});
</script>"""


def page(resdir):
    hd = load(os.path.join(resdir, "histograms.json"), "histograms")
    ov = load(os.path.join(resdir, "overhead.json"), "overhead")
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    emulated = bool((hd or {}).get("target", {}).get("emulated") or (ov or {}).get("emulated"))
    # the talk's matrix on armhf: a section only when measured (make matrix-armhf)
    matrix_link = ("<a href=#matrix>the talk's matrix on armhf</a>, "
                   if os.path.exists(os.path.join(resdir, "matrix.json")) else "")
    head = (f"<h1>gpiolat: how much is tracing, here?</h1><p>Report of {esc(resdir)}, "
            f"{now}. Sections: <a href=#summary>summary</a>, <a href=#histograms>pulse "
            "widths</a>, <a href=#overhead>overhead matrix</a>, <a href=#fits>per additional "
            "event/kprobe</a>, <a href=#gpio-path>GPIO path</a>, <a href=#self-test>self-test</a>, "
            "<a href=#rt>standard vs PREEMPT_RT</a>, " + matrix_link + "<a href=#bench-gpio>gpiolat's own "
            "programs</a>, <a href=#observer>the outside observer</a>, <a href=#syscall-cost>"
            "syscall cost</a>. Sources: histograms.json, overhead.json, gpio-path.json, "
            "rt.json, matrix.json, bench-gpio.json, observer.json, syscall-cost.json "
            "(docs/output-format.md, docs/overhead.md).</p>")
    gp = load(os.path.join(resdir, "gpio-path.json"), "path")
    study = load(os.path.join(resdir, "study.json"), "study")
    try:
        note = report_html_sections.study_note(study, sys.modules[__name__])
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise BadResults(f"{os.path.join(resdir, 'study.json')}: unexpected content: {e!r}") \
            from None
    body = (head + note + caveat_box(emulated) + summary_section(ov) + histogram_section(hd)
            + overhead_section(ov) + report_html_sections.path_section(gp, sys.modules[__name__])
            + other_sections(resdir))
    return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>gpiolat report"
            f"</title><style>{STYLE}</style>{CHECK}</head><body>{body}</body></html>\n")


def main(argv):
    if len(argv) not in (2, 3):
        print("usage: host/report_html.py RESULTSDIR [OUT.html]", file=sys.stderr)
        return 2
    resdir = argv[1]
    out = argv[2] if len(argv) == 3 else os.path.join(resdir, "report.html")
    studies = ("histograms.json", "overhead.json", "gpio-path.json", "rt.json",
               "bench-gpio.json", "observer.json", "syscall-cost.json")
    if not any(os.path.exists(os.path.join(resdir, f)) for f in studies):
        print(f"report_html.py: no study's results in {resdir} ({', '.join(studies)}): run "
              "make bpf-histograms first", file=sys.stderr)
        return 1
    try:
        doc = page(resdir)
    except BadResults as e:
        print(f"report_html.py: {e}", file=sys.stderr)
        return 1
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        print(f"report_html.py: {resdir}: unexpected content: {e!r}", file=sys.stderr)
        return 1
    results.write_text(out, doc)
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(results.run_main("report_html.py", main, sys.argv))
