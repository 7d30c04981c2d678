"""The page's sections of the studies beside the overhead matrix (host/report_html.py draws the
page): the GPIO path (gpiolat --path --json, docs/gpio-path.md), the target's self-test, the
cost of gpiolat's own GPIO programs (bench-gpio.json of make bench-gpio, docs/bench.md) and the
native syscall cost (gpiolat --syscall-cost --json, docs/syscall-cost.md). Same helpers, same
rules: the emulation caveat beside the numbers, reference figures only from the JSON (which
takes them from data/), "not run" with the command when a file is missing."""
import csv
import math
import os

import results  # host/results.py: the one caveat, the overhead rows of any loader

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def rate_end(v):
    """an end of a rate's interval in kHz; none above: the ns interval reaches 0"""
    return "unbounded" if v is None else f"{v:.2f}"


def post_rates(ref):
    """data/'s file that the JSON names: toggler -> rate in kHz, as written there"""
    path = os.path.join(ROOT, ref or "")
    if not ref or not os.path.isfile(path):
        return {}
    rows = csv.reader(line for line in results.read_text(path).splitlines()
                      if not line.startswith("#"))
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
        return rh.not_run("gpio-path", title, "no gpio-path.json in the results (make "
                          "bpf-histograms writes it; STUDIES=path for that part alone).")
    out = [f"<section id=gpio-path><h2>{rh.esc(title)}</h2>",
           rh.caveat_box(gp.get("emulated")),
           f"<p>The talk's 'Measuring gpio latencies' tables, filled in on chip "
           f"{rh.esc(gp.get('chip'))}: each toggler in turn with tracing off, "
           f"{gp.get('repetitions')} independent repetitions, mean and 95 % interval; rate = "
           f"1 / (2 x mean ns per set), its interval from the ns interval's ends. Beside: the BeagleBone post's logic-analyser rates "
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
                   f"<td class=num>{r['rate_khz']:.2f} [{rate_end(r.get('rate_khz_lo95'))}, "
                   f"{rate_end(r.get('rate_khz_hi95'))}]</td>"
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


def self_test_section(resdir, rh):
    st = os.path.join(resdir, "raw", "self-test.txt")
    out = ["<section id=self-test><h2>Self-test of the target</h2>"]
    if os.path.exists(st):
        out.append(f"<pre>{rh.esc(results.read_text(st))}</pre>")
    else:
        out.append("<p class=notrun>Not run: no raw/self-test.txt (make bpf-histograms "
                   "writes it).</p>")
    out.append("</section>")
    return "".join(out)


# ---- make bench-gpio: gpiolat's GPIO programs against the empty program and the tools -------
def bench_gpio_rows(doc):
    """bench_gpio.ROWS in its order: (name, row, mean, 95 % CI, sd, differences) per row"""
    import bench_gpio
    from benchstat import ci95, mean_var

    rows = {r["method"]: r for r in results.methods(doc)}
    out = []
    for name in bench_gpio.ROWS:
        r = rows.get(name)
        if r is None:
            continue
        d = r.get("differences_ns") or []
        if not r.get("measured") or not d:
            out.append((name, r, None, None, None, d))
            continue
        m, _ = mean_var(d)
        ci = ci95(d)
        sd = math.sqrt(sum((x - m) ** 2 for x in d) / (len(d) - 1)) if len(d) > 1 else None
        out.append((name, r, m, None if math.isnan(ci) else ci, sd, d))
    return out


def bench_gpio_section(doc, rh):
    import bench_gpio
    from benchstat import fmt_ratio

    title = "Cost of gpiolat's own GPIO programs"
    if doc is None:
        return rh.not_run("bench-gpio", title, "no bench-gpio.json in the results (make "
                          "bpf-histograms writes it at a small size, STUDIES=bench-gpio for that "
                          "part alone; make bench-gpio the full size: one boot of the emulated "
                          "target).")
    rows = bench_gpio_rows(doc)
    stats = doc.get("bpf_stats")
    out = [f"<section id=bench-gpio><h2>{rh.esc(title)}</h2>", rh.caveat_box(doc.get("emulated")),
           f"<p>make bench-gpio (host/bench_gpio.py, docs/bench.md): the shift of the pulse "
           f"width per GPIO set that each program adds, {doc.get('passes', 1)} pass(es), "
           f"{doc.get('repetitions')} repetitions of each row in all, "
           f"{doc.get('pulses_per_phase')} pulses per phase; untraced set "
           f"{rh.fmt_ns(doc.get('untraced_ns_per_set'))} (noise floor sd "
           f"{rh.fmt_ns(doc.get('noise_floor_sd_ns'))} over {doc.get('noise_floor_phases')} "
           f"phases); clocksource {rh.esc(doc.get('clocksource') or 'not recorded')}; BPF "
           f"run-time stats {'on (every shift includes their clock reads)' if stats else 'off'}"
           ". 95 % CI: host/benchstat.py (the reference phase consecutive repetitions share "
           "counted).</p>",
           "<table><thead><tr><th>row</th><th>program</th><th>shift per set</th><th>95 % CI"
           "</th><th>sd of the repetitions</th><th>min .. max</th><th>n (repetitions)</th>"
           "</tr></thead><tbody>"]
    for name, r, m, ci, sd, d in rows:
        if m is None:
            why = (r or {}).get("not_measured") or (r or {}).get("not_available") or \
                (r or {}).get("why") or "not measured"
            out.append(f"<tr class=na><td>{rh.esc(name)}</td><td>"
                       f"{rh.esc(bench_gpio.LABELS[name].strip())}</td><td colspan=5>not "
                       f"measured: {rh.esc(why)}</td></tr>")
            continue
        out.append(f"<tr><td>{rh.esc(name)}</td><td>{rh.esc(bench_gpio.LABELS[name].strip())}"
                   f"</td><td class=num>{m:.1f} ns</td>"
                   f"<td class=num>{'-' if ci is None else f'± {ci:.1f} ns'}</td>"
                   f"<td class=num>{'-' if sd is None else f'{sd:.1f} ns'}</td>"
                   f"<td class=num>{min(d):.1f} .. {max(d):.1f} ns</td>"
                   f"<td class=num>{len(d)}</td></tr>")
    out.append("</tbody></table>")
    diffs = {name: d for name, _, m, _, _, d in rows if m is not None}
    ratios = []
    for hook in bench_gpio.HOOKS:
        g, e = bench_gpio.ROW[hook]["gpiolat"], bench_gpio.ROW[hook]["empty"]
        if g in diffs and e in diffs:
            target = bench_gpio.TARGETS["vs_empty"] if hook == "tracepoint" else None
            ratios.append((f"gpiolat / empty program, {hook}", fmt_ratio(diffs[g], diffs[e],
                                                                         target)[0]))
    for tool in ("bpftrace-delta", "ply-delta"):
        g = "bpf-gpiolat-tracepoint"
        if g in diffs and tool in diffs:
            ratios.append((f"gpiolat tracepoint / {tool}",
                           fmt_ratio(diffs[g], diffs[tool], bench_gpio.TARGETS["vs_tools"])[0]))
    if ratios:
        out.append("<table><thead><tr><th>ratio of the shifts</th><th>ratio [95 % Fieller "
                   f"interval] (target: at most {bench_gpio.TARGETS['vs_tools']}x)</th></tr>"
                   "</thead><tbody>"
                   + "".join(f"<tr><td>{rh.esc(a)}</td><td class=num>{rh.esc(b)}</td></tr>"
                             for a, b in ratios) + "</tbody></table>")
    fig = rh.overhead_figure([{"method": name, "measured": True, "against": "untraced",
                               "overhead_ns": m, "ci95_ns": ci}
                              for name, _, m, ci, _, _ in rows if m is not None],
                             "ns added per GPIO set (bar: mean over the repetitions; whiskers: "
                             "95 % CI)")
    if fig:
        out.append(f"<figure>{fig}<figcaption>The shift per GPIO set of each program, "
                   f"n = {max(len(d) for d in diffs.values())} repetitions a row (the table "
                   "gives each row's)."
                   f"{' Emulated timings.' if doc.get('emulated') else ''}</figcaption></figure>")
    out.append("</section>")
    return "".join(out)


# ---- host/pl061_trace.py --overhead --json: the outside observer, the emulated oscilloscope --
def observer_section(doc, rh):
    from pl061_trace import judgement
    exact = doc is not None and doc.get("observer") == "exact"
    title = ("The outside observer: qemu counts the guest's instructions up to each PL061 write "
             "(exact, TIMING=icount)" if exact or doc is None else
             "The outside observer: qemu's trace of the PL061 line, host clock (TIMING=real)")
    if doc is None:
        return rh.not_run("observer", title, "no observer.json in the results (make "
                          "bpf-histograms writes it, STUDIES=observer for that part alone: one "
                          "boot of the emulated ARM target; TIMING=real for qemu's trace).")
    if exact:
        how = (f"<p>The talk timed the GPIO line with an oscilloscope, a clock outside the system "
               f"it measured. Here qemu is that clock: its plugin vm/pl061-observer.c counts every "
               f"guest instruction and stamps each write to the emulated PL061's data register "
               f"(line {doc['line']}) and each read of the guest's clock with the count, outside "
               f"the guest and adding nothing to it; in TIMING=icount one instruction is one ns of "
               f"the guest's clock, so the stamps are exact in the guest's unit. One gpiolat "
               f"--overhead run on that line ({doc['pulses']} pulses, {doc['pulses_per_phase']} a "
               "phase) is seen from three clocks: the observer (fall-to-fall periods inside each "
               "batch, half a period a set), the toggle module's batch clock and gpiolat's "
               "program's own periods (in the guest). Observer - program compares the same span "
               "(the observer's count between the program's own clock reads at the same falls), "
               "allowed one tick of the guest's clock (16 ns, ARM generic timer under qemu) a "
               "batch: 2 ns a set at burst 5; observer - module the loader's allowance for the "
               "module's fixed part (reference / burst), which the observer counts. Criterion and "
               "derivation: docs/timing.md, \"The exact observer\". Real time (qemu's trace, "
               "the host's 1 us clock) is the option: TIMING=real.</p>")
    else:
        how = (f"<p>The talk timed the GPIO line with an oscilloscope, a clock outside the system "
               f"it measured. Here qemu is that clock: it logs every change of the emulated "
               f"PL061's output (line {doc['line']}), outside the guest, with {rh.esc(doc['clock'])}. One "
               f"gpiolat --overhead run on that line ({doc['pulses']} pulses, "
               f"{doc['pulses_per_phase']} a phase) is seen from three clocks: the observer (each "
               "batch's first register write to its last), the toggle module's batch clock and "
               "gpiolat's program's own periods (in the guest). Traced ns per set of each BPF "
               "row's method phases; each pair compared by the loader's trust rule (99.9 % "
               "interval of the mean difference plus the allowance for what a clock provably "
               "excludes, docs/overhead.md \"Trust\"). This is the real-time option "
               "(TIMING=real): the observer's clock is the host's and carries the host's noise "
               "(docs/timing.md); a too-noisy verdict says the noise, not the clocks, decides. In "
               "real time the clocks do not span the same work: the module's batch clock "
               "includes each batch's first pulse after its rest, which qemu runs far slower than "
               "the rest, the program's periods exclude it, and the observer, from the first "
               "register write, sits between (docs/overhead.md, \"Trust\"); a DISAGREE here is "
               "that emulation cost. The exact observer is the default, in TIMING=icount.</p>")
    extra = ("<th>observer between the program's reads</th><th>module's fixed part c, counted"
             "</th>" if exact else "")
    out = [f"<section id=observer><h2>{rh.esc(title)}</h2>", rh.caveat_box(True), how,
           "<table><thead><tr><th>row</th><th>observer ns per set (sd, phases)</th><th>module"
           "</th><th>program</th><th>observer - module</th><th>observer - program</th>"
           f"<th>in the guest</th>{extra}</tr></thead><tbody>"]
    for r in doc["rows"]:
        prog = r["program_ns_per_set"]
        sd = r.get("observer_sd_ns")
        more = ""
        if exact:
            at = r.get("observer_at_reads_ns_per_set")
            more = (f"<td class=num>{'-' if at is None else f'{at:.1f} ns'}</td>"
                    f"<td class=num>{r['module_fixed_part_ns']:.1f} ns a batch</td>")
        out.append(f"<tr><td>{rh.esc(r['method'])}</td><td class=num>"
                   f"{r['observer_ns_per_set']:.1f} ns ({'-' if sd is None else sd}, "
                   f"{len(r['observer_phases_ns'])})</td><td class=num>"
                   f"{r['module_ns_per_set']:.1f} ns</td><td class=num>"
                   f"{'-' if prog is None else f'{prog:.1f} ns'}</td>"
                   f"<td>{rh.esc(judgement(r['observer_vs_module']))}</td>"
                   f"<td>{rh.esc(judgement(r['observer_vs_program']))}</td>"
                   f"<td>{rh.esc(r['verdict_in_guest'] or '-')}</td>{more}</tr>")
    out.append("</tbody></table></section>")
    return "".join(out)


# ---- gpiolat --syscall-cost --json: what each method adds to one syscall, natively ----------
def ns1(v):
    return "-" if v is None else f"{v:.1f} ns"


def syscall_cost_section(doc, rh):
    title = "Syscall cost (native)"
    if doc is None:
        return rh.not_run("syscall-cost", title, "no syscall-cost.json in the results (make "
                          "bpf-histograms writes it, STUDIES=syscall-cost for that part alone; "
                          "or sudo ./gpiolat --syscall-cost --json > "
                          "out/results/syscall-cost.json).")
    u = doc.get("untraced_ns_per_syscall") or {}
    refs = {(r["method"], r["kind"]): r for r in doc.get("reference") or [] if r}
    nb = refs.get(("untraced", "syscall"))
    nb_text = f"; the notebook's: {nb['value']:.0f} ns" if nb else ""
    out = [f"<section id=syscall-cost><h2>{rh.esc(title)}</h2>",
           rh.caveat_box(doc.get("emulated")),
           f"<p>gpiolat --syscall-cost (docs/syscall-cost.md) on {rh.esc(doc.get('kernel'))} "
           f"{rh.esc(doc.get('machine'))}, worker on CPU {doc.get('cpu')}: "
           f"{doc.get('rounds')} rounds of (untraced run, traced run), "
           f"{doc.get('batches_per_run')} batches of {doc.get('syscalls_per_batch')} syscalls "
           f"per run. Untraced syscall: mean {ns1(u.get('mean_ns'))}, sd {ns1(u.get('sd_ns'))}, "
           f"min {ns1(u.get('min_ns'))} ({u.get('batches')} batches)"
           f"{nb_text}"
           f". BPF run-time stats {'on' if doc.get('bpf_stats') else 'off'}; BPF JIT "
           f"{rh.esc(doc.get('bpf_jit'))}. Mean: of the per-round differences, with its 95 % "
           "CI; p50/p90/p99: of the per-batch differences. The tracepoint-cost notebook's "
           "figure (i7-3537U, perf record, means only) is beside its own method, against the "
           "same untraced syscall.</p>",
           "<table><thead><tr><th>method</th><th>what</th><th>ns added per syscall</th>"
           "<th>95 % CI</th><th>p50</th><th>p90</th><th>p99</th><th>n (rounds, batches)</th>"
           "<th>BPF ns per run (runs)</th><th>notebook</th></tr></thead><tbody>"]
    bars = []
    for m in doc["methods"]:
        a = m.get("added_ns_per_syscall")
        if not m.get("available") or not a:
            out.append(f"<tr class=na><td>{rh.esc(m['name'])}</td><td>{rh.esc(m.get('what'))}"
                       f"</td><td colspan=8>{rh.esc(m.get('reason') or 'not run')}</td></tr>")
            continue
        hook = ", ".join(x for x in (m.get("hook"), m.get("start")) if x)
        b = m.get("bpf") or {}
        bpf = (f"{b['mean_ns_per_run']:.1f} ns ({b.get('run_cnt')})"
               if b.get("mean_ns_per_run") is not None else "-")
        ref = m.get("reference")
        out.append(f"<tr><td>{rh.esc(m['name'])}</td><td>{rh.esc(m.get('what'))}"
                   f"{' <span class=note>(' + rh.esc(hook) + ')</span>' if hook else ''}</td>"
                   f"<td class=num>{ns1(a.get('mean_ns'))}</td>"
                   f"<td class=num>± {ns1(a.get('ci95_ns'))}</td>"
                   + "".join(f"<td class=num>{ns1(a.get(k))}</td>"
                             for k in ("p50_ns", "p90_ns", "p99_ns"))
                   + f"<td class=num>{a.get('rounds')}, {a.get('batches')}</td>"
                   f"<td class=num>{bpf}</td>"
                   f"<td class=num>{'-' if not ref else '+' + format(ref['value'], '.0f') + ' ns'}"
                   "</td></tr>")
        bars.append({"method": m["name"], "measured": True, "against": "untraced",
                     "overhead_ns": a.get("mean_ns"), "ci95_ns": a.get("ci95_ns")})
    out.append("</tbody></table>")
    fig = rh.overhead_figure(bars, "ns added per syscall (bar: mean over the rounds; whiskers: "
                             "95 % CI)")
    if fig:
        out.append(f"<figure>{fig}<figcaption>ns added to one syscall by each method "
                   f"({doc.get('rounds')} rounds each; the table gives each row's rounds and "
                   "batches).</figcaption></figure>")
    out.append("</section>")
    return "".join(out)


# ---- study.json of make bpf-histograms: what ran, how big, in how long, at what load --------
def study_note(doc, rh):
    """The page's line on the last make bpf-histograms (host/bpf-histograms.sh writes
    study.json): its mode, each part's wall time beside the load average, and the sizes."""
    if doc is None:
        return ""
    timing = doc.get("timing") or "real"
    emulated = doc.get("target") == "emulated"
    where = (f"the emulated {rh.esc(doc.get('arch'))} target, kernel {rh.esc(doc.get('kernel'))}, "
             f"TIMING={rh.esc(timing)}" if emulated else "this board, natively")
    parts = ", ".join(
        f"{rh.esc(p['part'])} {p['wall_s']} s (load {' '.join(str(x) for x in p['load_before'])}"
        f" before, {' '.join(str(x) for x in p['load_after'])} after)"
        for p in doc.get("parts") or [])
    sz = doc.get("sizes") or {}
    # the RT part's own clock (RT_TIMING); a study.json written before it says ran the part in
    # the study's TIMING, as a board runs it in its own clock
    rt_timing = doc.get("rt_timing") or (timing if emulated else "real")
    rt_clock = "real time" if rt_timing == "real" else f"TIMING={rh.esc(rt_timing)}"
    out = [f"<p class=note id=study>The last <code>make bpf-histograms</code> (study.json): "
           f"{where}; the whole study in {doc.get('wall_s')} s of wall time, load average "
           f"{' '.join(str(x) for x in doc.get('load_start') or [])} before and "
           f"{' '.join(str(x) for x in doc.get('load_end') or [])} after (1, 5, 15 min; the "
           f"machine's, whoever ran it). Parts: {parts or 'none'}. Sizes: {sz.get('pulses')} "
           f"pulses a histogram; overhead <code>{rh.esc(sz.get('overhead_args'))}</code>; path "
           f"<code>{rh.esc(sz.get('path_args'))}</code>; bench-gpio <code>"
           f"{rh.esc(sz.get('bench_args'))}</code>; syscall cost <code>"
           f"{rh.esc(sz.get('syscall_args'))}</code>; standard vs PREEMPT_RT on "
           f"{rh.esc(sz.get('rt_kernels'))} ({rh.esc(doc.get('rt_arch'))}, {rt_clock}). Each "
           "part runs bigger by name (make overhead-report, make rt-report, make bench-gpio; "
           "docs/getting-started.md).</p>"]
    if emulated and "icount" in (timing, rt_timing):
        # the one caveat's icount clause (host/results.py), and where it holds
        if timing == rt_timing:
            where = "in every emulated section"
        elif timing == "icount":
            where = ("in every emulated section but standard vs PREEMPT_RT (which runs in real "
                     "time)")
        else:
            where = "in the standard vs PREEMPT_RT section (the others in real time)"
        out.append(f"<p class=caveat>TIMING=icount: {where}, {rh.esc(results.ICOUNT)}.</p>")
    return "".join(out)
