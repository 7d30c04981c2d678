"""The page's sections of the studies beside the overhead matrix (host/report_html.py draws the
page): the GPIO path (gpiolat --path --json, docs/gpio-path.md). Same helpers, same rules: the
emulation caveat beside the numbers, reference figures only from the JSON (which takes them
from data/), "not run" with the reason when a file is missing."""
import csv
import math
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def post_rates(ref):
    """data/'s file that the JSON names: toggler -> rate in kHz, as written there"""
    path = os.path.join(ROOT, ref or "")
    if not ref or not os.path.isfile(path):
        return {}
    with open(path) as f:
        rows = csv.reader(line for line in f if not line.startswith("#"))
        return {r[0]: r[1] for r in rows if len(r) >= 3 and r[2] == "kHz"}


def path_figure(rows, rh):
    """ns per set of each toggler, horizontal bars on a log axis, 95 % interval whiskers"""
    rows = [r for r in rows if r.get("available") and (r.get("ns_per_set") or 0) > 0]
    if not rows:
        return None
    lo = min(max(r["ns_per_set"] - (r.get("ns_per_set_ci95") or 0), r["ns_per_set"] / 10)
             for r in rows)
    hi = max(r["ns_per_set"] + (r.get("ns_per_set_ci95") or 0) for r in rows)
    lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
    W, L, R, T, bh = 1000, 110, 30, 20, 24
    H = T + bh * len(rows) + 50
    pw = W - L - R
    X = lambda v: L + (math.log10(max(v, lo)) - math.log10(lo)) / \
        (math.log10(hi) - math.log10(lo)) * pw
    body = []
    d = lo
    while d <= hi:
        body.append(rh.line(X(d), T - 5, X(d), T + bh * len(rows), "#ddd"))
        body.append(rh.text(X(d), T + bh * len(rows) + 16, rh.fmt_tick(d), "middle", 11))
        d *= 10
    for i, r in enumerate(rows):
        y = T + i * bh
        v, ci = r["ns_per_set"], r.get("ns_per_set_ci95") or 0
        body.append(rh.text(L - 8, y + bh * 0.7, r["variable"], "end", 12))
        body.append(f'<rect x="{L}" y="{y + 4}" width="{max(X(v) - L, 1):.1f}" '
                    f'height="{bh - 8}" fill="#6baed6"><title>{rh.esc(r["variable"])}: '
                    f'{rh.fmt_ns(v)} ± {rh.fmt_ns(ci)}</title></rect>')
        body.append(rh.line(X(v - ci), y + bh / 2, X(v + ci), y + bh / 2, "#08306b", 1.5))
    body.append(rh.text(L + pw / 2, H - 12, "ns per set (log scale; bar: mean over the "
                        "repetitions, whiskers: 95 % interval)", "middle"))
    return rh.svg(W, H, body, "the GPIO path: ns per set of each toggler")


def path_section(gp, rh):
    title = "The GPIO path: from a register write to a shell script"
    if gp is None:
        return rh.not_run("gpio-path", title, "no gpio-path.json in the results (vm/run "
                          "./gpiolat --path --json > out/results/gpio-path.json).")
    out = [f"<section id=gpio-path><h2>{rh.esc(title)}</h2>",
           rh.caveat_box(gp.get("emulated")),
           f"<p>The talk's 'Measuring gpio latencies' tables, filled in on chip "
           f"{rh.esc(gp.get('chip'))}: each toggler in turn with tracing off, "
           f"{gp.get('repetitions')} independent repetitions, mean and 95 % interval; rate = "
           f"1 / (2 x ns per set). Beside: the BeagleBone post's logic-analyser rates "
           f"({rh.esc(gp.get('reference'))}), a board's hardware figures, not comparable with "
           "emulated ones.</p>",
           "<table><tr><th>variable</th><th>toggler</th><th>ns per set</th><th>95 % CI</th>"
           "<th>rate kHz</th><th>post kHz</th><th>n</th></tr>"]
    post = post_rates(gp.get("reference"))
    for r in gp.get("rows", []):
        if not r.get("available"):
            out.append(f"<tr class=na><td>{rh.esc(r['variable'])}</td><td colspan=6>not "
                       f"available: {rh.esc(r.get('why') or r.get('toggler'))}</td></tr>")
            continue
        rate = post.get(r["variable"][2:])
        out.append(f"<tr><td>{rh.esc(r['variable'])}</td><td>{rh.esc(r['toggler'])}</td>"
                   f"<td class=num>{rh.fmt_ns(r['ns_per_set'])}</td>"
                   f"<td class=num>± {rh.fmt_ns(r.get('ns_per_set_ci95'))}</td>"
                   f"<td class=num>{r['rate_khz']:.2f} ± {r.get('rate_khz_ci95') or 0:.2f}</td>"
                   f"<td class=num>{rate or '-'}</td>"
                   f"<td class=num>{r.get('n')}</td></tr>")
    out.append("</table><table><tr><th>difference</th><th>what it is</th><th>ns per set</th>"
               "</tr>")
    for d in gp.get("differences", []):
        v = d.get("ns_per_set")
        out.append(f"<tr><td>{rh.esc(d['difference'])}</td><td>{rh.esc(d['what'])}</td>"
                   f"<td class=num>{'a row is missing' if v is None else rh.fmt_ns(v)}"
                   f"{'' if v is None else ' ± ' + rh.fmt_ns(d.get('ns_per_set_ci95'))}"
                   "</td></tr>")
    out.append("</table>")
    fig = path_figure(gp.get("rows", []), rh)
    if fig:
        out.append(f"<figure>{fig}<figcaption>Each toggler's ns per set on one line (log "
                   "scale).</figcaption></figure>")
    out.append("</section>")
    return "".join(out)
