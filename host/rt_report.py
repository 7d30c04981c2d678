#!/usr/bin/env python3
"""Host side: the standard vs PREEMPT_RT report (`make rt-report`, docs/rt.md).

    host/rt_report.py RAWDIR OUTDIR KERNEL...

RAWDIR/rt-KERNEL/ holds what study/rt.sh measured on each kernel. Writes OUTDIR/rt.json (every
figure, per kernel), rt.csv (one row a figure: gnuplot and spreadsheets read it), rt.txt (the
kernels side by side, the references beside) and rt.png (wakeup p99 and max, log scale).
Reference figures come only from data/*.csv, each printed beside a figure of the same kind.
"""
import csv
import io
import json
import os
import re
import sys

import results  # host/results.py: the files' model, the caveat, gnuplot, the loader's rule

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
PHASES = ("idle", "loaded")
TASKS = ("kthread", "utoggle")


def read_json(path, kind):
    """study/rt.sh's file of kind (host/results.py checks it); None when it did not write it"""
    return results.load(path, kind)


def unavailable(d, name):
    try:
        return (results.read_text(os.path.join(d, name + ".unavailable")).splitlines()
                or [""])[0].strip()
    except OSError:
        return None


def kv(path):
    out = {}
    try:
        for line in results.read_text(path).splitlines():
            if "=" in line and not line.startswith("Linux"):
                k, v = line.split("=", 1)
                out[k] = v
    except OSError:
        pass
    return out


def baseline(name):
    """rows of a data/ CSV: {method: row dict}"""
    rows = {}
    with open(os.path.join(DATA, name)) as f:
        lines = [l for l in f if not l.startswith("#")]
    for r in csv.reader(lines):
        if len(r) >= 8:
            rows[(r[0], r[1])] = {"value": float(r[2]), "unit": r[3], "sd": r[4],
                                  "kernel": r[5], "against": r[6], "note": r[7],
                                  "source": "data/" + name}
    return rows


def cyclictest(path):
    """cyclictest -q -h N output: count, min, avg, max (us), p99 from its histogram"""
    try:
        text = results.read_text(path)
    except OSError:
        return None
    hist, meta = [], {}
    for line in text.splitlines():
        m = re.match(r"^(\d+) (\d+)$", line)
        if m:
            hist.append((int(m.group(1)), int(m.group(2))))
            continue
        m = re.match(r"^# (Total|Min Latencies|Avg Latencies|Max Latencies|Histogram Overflows):"
                     r" *(\d+)", line)
        if m:
            meta[m.group(1)] = int(m.group(2))
    n = meta.get("Total", 0)
    out = {"count": n, "min_us": meta.get("Min Latencies"), "avg_us": meta.get("Avg Latencies"),
           "max_us": meta.get("Max Latencies"), "overflows": meta.get("Histogram Overflows", 0)}
    # p99: the first bucket (1 us wide) where the count reaches 99 %; overflows count above all
    cum, p99 = 0, None
    for us, c in hist:
        cum += c
        if n and cum >= 0.99 * n:
            p99 = us
            break
    out["p99_us"] = p99 if p99 is not None else (out["max_us"] if n else None)
    return out


def timerlat(path):
    """rtla timerlat hist: the summary rows (count, min, avg, max) of CPU 0, IRQ and thread"""
    try:
        text = results.read_text(path)
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(count|min|avg|max):\s+(\d+)\s+(\d+)", line)
        if m:
            out[m.group(1)] = {"irq_us": int(m.group(2)), "thread_us": int(m.group(3))}
    return out or None


def wakeup_fig(doc):
    if not doc or not doc.get("tasks"):
        return None
    t = doc["tasks"][0]
    w = t["wakeup"]
    return {"comm": t["comm"], "wakeups": t["wakeups"], "sleeps": t["sleeps"],
            "preemptions": t["preemptions"], "count": w["count"], "min_ns": w["min_ns"],
            "mean_ns": w["mean_ns"], "p50_ns": w["p50_ns"], "p99_ns": w["p99_ns"],
            "max_ns": w["max_ns"], "batches": (doc["run"].get("toggle") or {}).get("batches"),
            "duration_ns": doc["run"].get("duration_ns"),
            "hook": doc["run"]["hook"], "buckets": w["buckets"]}


def gaps_fig(doc):
    if not doc:
        return None
    g = doc["gaps"]
    return {"sets": doc["sets"], "threshold_ns": doc["threshold_ns"], "count": g["count"],
            "p50_ns": g["p50_ns"], "p99_ns": g["p99_ns"], "max_ns": g["max_ns"],
            "over": doc["gaps_over"], "over_ns": doc["gaps_over_ns"],
            "causes": doc["causes"]}


def collect(raw, kernel, d=None):
    d = d or os.path.join(raw, "rt-" + kernel)
    k = {"kernel": kernel, "dir": d, "info": kv(os.path.join(d, "kernel.txt")),
         "settings": kv(os.path.join(d, "settings.txt"))}
    try:
        k["load"] = results.read_text(os.path.join(d, "load.txt")).strip()
    except OSError:
        k["load"] = None
    k["overhead"] = read_json(os.path.join(d, "overhead.json"), "overhead")
    k["overhead_unavailable"] = unavailable(d, "overhead")
    # the idle loop of the boot that measured the overhead rows when they had one of their own
    # (host/rt-report.sh: a polling x86_64 guest's, halting), else none
    try:
        k["overhead_idle"] = results.read_text(os.path.join(d, "overhead-idle.txt")).strip() or None
    except OSError:
        k["overhead_idle"] = None
    for t in TASKS:
        for p in PHASES:
            n = "wakeup-%s-%s" % (t, p)
            k[n] = wakeup_fig(read_json(os.path.join(d, n + ".json"), "wakeup"))
            k[n + "-unavailable"] = unavailable(d, n)
    for p in PHASES:
        k["cyclictest-" + p] = cyclictest(os.path.join(d, "cyclictest-%s.txt" % p))
        k["cyclictest-%s-unavailable" % p] = unavailable(d, "cyclictest-" + p)
        k["timerlat-" + p] = timerlat(os.path.join(d, "timerlat-%s.txt" % p))
        k["timerlat-%s-unavailable" % p] = unavailable(d, "timerlat-" + p)
        k["gaps-" + p] = gaps_fig(read_json(os.path.join(d, "gaps-%s.json" % p), "gaps"))
        k["gaps-%s-unavailable" % p] = unavailable(d, "gaps-" + p)
    return k


def repeat_dirs(raw, kernel):
    """the repeats of a kernel's run (host/rt-report.sh RT_RUNS=N): rt-KERNEL.run2/, .run3/..."""
    out, n = [], 2
    while os.path.isdir(os.path.join(raw, "rt-%s.run%d" % (kernel, n))):
        out.append(os.path.join(raw, "rt-%s.run%d" % (kernel, n)))
        n += 1
    return out


def tails(k):
    """[(figure, {metric: value} or None)]: the tails a run is judged by, run against run"""
    out = []
    for t in TASKS:
        for p in PHASES:
            w = k["wakeup-%s-%s" % (t, p)]
            out.append(("wakeup %s %s" % (t, p), w and {
                "count": w["count"], "p99_ns": w["p99_ns"], "max_ns": w["max_ns"]}))
    for p in PHASES:
        c = k["cyclictest-" + p]
        out.append(("cyclictest " + p, c and c["count"] and {
            "count": c["count"], "p99_us": c["p99_us"], "max_us": c["max_us"]} or None))
    for p in PHASES:
        t = k["timerlat-" + p]
        out.append(("timerlat " + p, t and "max" in t and {
            "count": t["count"]["thread_us"], "thread_max_us": t["max"]["thread_us"],
            "irq_max_us": t["max"]["irq_us"]} or None))
    for p in PHASES:
        g = k["gaps-" + p]
        out.append(("gaps " + p, g and {"count": g["count"], "over": g["over"],
                                        "p99_ns": g["p99_ns"], "max_ns": g["max_ns"]}))
    return out


def fig_text(f):
    """one figure of tails() as text: 'p99 X / max Y us (n=N)' and the like"""
    if f is None:
        return "none"
    if "thread_max_us" in f:
        return "thread max %d / irq max %d us (n=%d)" % (f["thread_max_us"], f["irq_max_us"],
                                                        f["count"])
    if "p99_us" in f:
        return "p99 %s / max %s us (n=%d)" % (f["p99_us"], f["max_us"], f["count"])
    extra = ", %d over the threshold" % f["over"] if "over" in f else ""
    return "p99 %s / max %s us (n=%d%s)" % (us(f["p99_ns"]), us(f["max_ns"]), f["count"], extra)


def repeat(k, reps):
    """run 1 against each repeat: {"runs": N, "figures": M, "differ": [[figure, run, run 1's,
    that run's]]}; a figure measured in one run and not in the other differs too"""
    first = tails(k)
    differ = []
    for i, r in enumerate(reps):
        for (name, a), (_, b) in zip(first, tails(r)):
            if a != b:
                differ.append([name, i + 2, fig_text(a), fig_text(b)])
    return {"runs": 1 + len(reps), "figures": sum(1 for _, f in first if f),
            "differ": differ, "repeats": [dict(tails(r)) for r in reps]}


def timing(ks):
    """the targets' clock: "icount" or "real" when every kernel says the same, else None"""
    t = {k["info"].get("timing") or "" for k in ks}
    return t.pop() if len(t) == 1 and t != {""} else None


def arch(k):
    """the kernel's machine as the target's uname -m says it (or its name's ARCH- prefix)"""
    m = k["info"].get("machine")
    if m:
        return "arm" if m.startswith("armv") else m.replace("aarch64", "arm64")
    n = k["kernel"]
    return n.split("-")[0] if n.split("-")[0] in ("arm", "arm64", "x86_64") else "this machine's"


def us(ns):
    return "-" if ns is None else "%.1f" % (ns / 1e3)


def is_rt(k):
    return k["info"].get("preempt", "").startswith("PREEMPT_RT")


def talk_row(talk, method, kind, rt):
    """the talk's row for this kernel flavour: 'X' is 6.1.26, 'X-rt' or an -rt8 row is RT"""
    for name in ((method + "-rt", method) if rt else (method,)):
        r = talk.get((name, kind))
        if r and r["kernel"].endswith("-rt8") == rt:
            return r
    return None


def like_reference(ours, talks):
    """our row's reference phases against the talk's row's, by the loader's mapping
    (loader/core/baseline.c baseline_ref, host/results.py): untraced and mode=continuous are the
    talk's tracing-configured pulse, the untraced ioctl toggler its user-ioctl; another
    method only the same method"""
    return results.same_reference(ours, talks)


def preemption(k):
    """PREEMPT_RT, PREEMPT, or PREEMPT_DYNAMIC with the model in force, "(voluntary)" """
    p = k["info"].get("preempt", "-")
    m = re.search(r"\((\w+)\)", p)
    return p.split(" ")[0] + (" (%s)" % m.group(1) if m else "")


def side_by_side(ks, talk, adi, notes):
    """[(section, label, [cell per kernel], reference text)]; notes: the reasons of n/a cells"""
    rows = []

    def na(why):
        why = re.sub(r"^not available: *", "", why or "no result")
        if why not in notes:
            notes.append(why)
        return "not available [%d]" % (notes.index(why) + 1)

    def add(section, label, cells, ref=""):
        rows.append((section, label, cells, ref))

    add("kernel", "release", [k["info"].get("release", "-") for k in ks])
    add("kernel", "preemption", [preemption(k) for k in ks])
    # idle=poll: the x86_64 guests under icount (host/rt-report.sh RT_IDLE_POLL); older runs: "-"
    add("kernel", "idle loop", [k["info"].get("idle", "-") +
                                ("; overhead rows: %s, a boot of their own" % k["overhead_idle"]
                                 if k.get("overhead_idle") else "") for k in ks])
    add("kernel", "load (\"loaded\")", [k["load"] or "-" for k in ks])
    # overhead subset: per kernel, the talk's figure of the same kind and kernel flavour
    names = []
    for k in ks:
        for m in (k["overhead"] or {}).get("methods", []):
            if m["method"] not in names:
                names.append(m["method"])
    cells, refs = [], []
    for k in ks:
        o = k["overhead"]
        cells.append("%.0f ns (sd %.0f, %d phases)" % (o["untraced_ns_per_set"],
                                                       o["noise_floor_sd_ns"],
                                                       o["noise_floor_phases"])
                     if o else na(k["overhead_unavailable"]))
        r = talk_row(talk, "tracing-configured", "pulse", is_rt(k))
        refs.append("%s: %.2f ns (sd %s)" % (r["kernel"], r["value"], r["sd"]) if r else "")
    add("overhead", "untraced set", cells, "; ".join(x for x in refs if x) +
        " (talk, pulse width, tracing configured, off)")
    for name in names:
        cells, refs = [], []
        for k in ks:
            ms = {m["method"]: m for m in (k["overhead"] or {}).get("methods", [])}
            m = ms.get(name)
            if not m or not m.get("measured"):
                cells.append(na(m.get("why") if m else "not in this selection"))
            else:
                cells.append("%+.0f ns ±%.0f (n=%d)" % (m["overhead_ns"], m["ci95_ns"],
                                                         m["repetitions"]))
            tr = (m or {}).get("talk") or {}
            # a row beside the talk per pulse (it fires once a pulse) is not per set: none here
            tr = tr if tr.get("ours_per", "set") == "set" else {}
            r = talk_row(talk, tr.get("row", ""), "overhead", is_rt(k)) if tr else None
            if r and like_reference(m["against"], r["against"]):
                refs.append("%s: %.0f ns" % (r["kernel"], r["value"]))
        add("overhead", name + " (95% CI)", cells, "; ".join(refs) + (" (talk)" if refs else ""))
    for t in TASKS:
        for p in PHASES:
            n = "wakeup-%s-%s" % (t, p)
            cells = []
            for k in ks:
                f = k[n]
                cells.append("p99 %s / max %s us (n=%d)" % (us(f["p99_ns"]), us(f["max_ns"]),
                                                           f["count"])
                             if f else na(k[n + "-unavailable"]))
            add("wakeup", "%s %s" % (t, p), cells)
    for p in PHASES:
        cells = []
        for k in ks:
            c = k["cyclictest-" + p]
            cells.append("p99 %s / max %s us (n=%d, avg %s)" % (c["p99_us"], c["max_us"],
                                                                c["count"], c["avg_us"])
                         if c and c["count"] else
                         na(k["cyclictest-%s-unavailable" % p]))
        ref = ""
        if p == "loaded" and all((k["load"] or "").startswith("5 x 'ls") for k in ks):
            ref = "ADI (Blackfin, 2.6.32, 5 x ls -lR): avg %d / max %d us" % (
                adi[("cyclictest-ls-avg", "wakeup")]["value"],
                adi[("cyclictest-ls-max", "wakeup")]["value"])
        add("cyclictest", "%s %s" % (cyclictest_options(ks), p), cells, ref)
    for p in PHASES:
        cells = []
        for k in ks:
            t = k["timerlat-" + p]
            cells.append("thread max %d / irq max %d us (n=%d)" % (
                t["max"]["thread_us"], t["max"]["irq_us"], t["count"]["thread_us"])
                         if t and "max" in t else
                         na((k["timerlat-%s-unavailable" % p]) or "no output"))
        add("timerlat", "rtla timerlat hist " + p, cells)
    for p in PHASES:
        cells, causes = [], []
        for k in ks:
            g = k["gaps-" + p]
            if not g:
                cells.append(na(k["gaps-%s-unavailable" % p]))
                causes.append("-")
                continue
            cells.append("p99 %s / max %s us; %d over %s us (%.1f ms)" % (
                us(g["p99_ns"]), us(g["max_ns"]), g["over"], us(g["threshold_ns"]),
                g["over_ns"] / 1e6))
            causes.append(", ".join("%s%s %d x %.1f ms" % (
                c["cause"], (" " + c["what"]) if c["what"] else "", c["gaps"],
                c["total_ns"] / 1e6) for c in g["causes"][:4]))
        add("gaps", "continuous " + p, cells)
        add("gaps", "  top causes " + p, causes)
    if any(k.get("repeat") for k in ks):
        cells = []
        for k in ks:
            r = k.get("repeat")
            if not r:
                cells.append("one run")
            elif not r["differ"]:
                cells.append("%d runs, the same %d figures" % (r["runs"], r["figures"]))
            else:
                cells.append("%d runs: %d of %d figures differ: %s" % (
                    r["runs"], len({d[0] for d in r["differ"]}), r["figures"],
                    "; ".join("%s %s, run %d %s" % (d[0], d[2], d[1], d[3])
                              for d in r["differ"])))
        add("repeat", "run to run (each run its own boot)", cells)
    return rows


def cyclictest_options(ks):
    """cyclictest's options as study/rt.sh ran them (settings.txt), when every kernel ran the
    same; the ADI page's, which it ran before settings.txt existed, when none says"""
    o = {(k.get("settings") or {}).get("cyclictest", "-p 80 -t 1 -i 10000") for k in ks}
    return o.pop() if len(o) == 1 else "-p 80 -t 1 (options per kernel: settings.txt)"


def findings(ks):
    """what the emulated target shows, in figures: only statements computed here"""
    out = []
    by = {("rt" if is_rt(k) else "std") + ":" + k["kernel"]: k for k in ks}
    std = [k for k in ks if not is_rt(k)]
    rt = [k for k in ks if is_rt(k)]
    for a in std:
        for b in rt:
            if arch(a) != arch(b):
                continue
            for t in TASKS:
                for p in PHASES:
                    fa, fb = a["wakeup-%s-%s" % (t, p)], b["wakeup-%s-%s" % (t, p)]
                    if fa and fb:
                        out.append("%s %s wakeup p99 / max: %s %s / %s us, %s %s / %s us: "
                                   "RT's tail is %s here" % (
                                       t, p, a["kernel"], us(fa["p99_ns"]), us(fa["max_ns"]),
                                       b["kernel"], us(fb["p99_ns"]), us(fb["max_ns"]),
                                       shorter(fa["max_ns"], fb["max_ns"])))
            for p in PHASES:
                ca, cb = a["cyclictest-" + p], b["cyclictest-" + p]
                if ca and cb and ca["count"] and cb["count"]:
                    out.append("cyclictest %s max: %s %s us, %s %s us: RT's is %s" % (
                        p, a["kernel"], ca["max_us"], b["kernel"], cb["max_us"],
                        shorter(ca["max_us"], cb["max_us"])))
    for k in ks:
        for p in PHASES:
            g = k["gaps-" + p]
            if g and g["over_ns"]:
                rest = sum(c["total_ns"] for c in g["causes"] if c["cause"] == "rest")
                out.append("%s gaps %s: %.0f %% of the time over the threshold is 'rest' "
                           "(no event on the toggler's CPU explains it: %s)" % (
                               k["kernel"], p, 100.0 * rest / g["over_ns"],
                               "under icount, the toggler's own instructions and interrupt "
                               "entry and exit" if k["info"].get("timing") == "icount" else
                               "under emulation, mostly qemu running the other vCPU or the "
                               "host running something else"))
        r = k.get("repeat")
        if r:
            out.append("%s, %d runs (each its own boot): %s" % (
                k["kernel"], r["runs"], "the same %d figures in every run" % r["figures"]
                if not r["differ"] else "%d of %d figures differ from run to run (%s)" % (
                    len({d[0] for d in r["differ"]}), r["figures"],
                    ", ".join(sorted({d[0] for d in r["differ"]})))))
        for p in PHASES:
            # utoggle sleeps usleep(1000) after each batch of 5 sets: about a wakeup a ms
            f = k["wakeup-utoggle-" + p]
            if f and f.get("duration_ns") and f["wakeups"] < f["duration_ns"] / 2e6:
                out.append("%s utoggle %s: %d wakeups in %.1f s, under half of one a ms (its "
                           "usleep(1000) after each batch): it ran or waited elsewhere most of "
                           "the time; its tail is not that of the same work" % (
                               k["kernel"], p, f["wakeups"], f["duration_ns"] / 1e9))
        for t in TASKS:
            f = k["wakeup-%s-idle" % t]
            if f and f["batches"] is not None:
                out.append("%s %s idle: %d wakeups histogrammed, %d sleeps, %d batches of "
                           "the module (msleep after all but the last; the idle wait after "
                           "the last)" % (k["kernel"], t, f["count"], f["sleeps"],
                                          f["batches"]))
    del by
    return out


def shorter(a, b):
    return "shorter" if b < a else "the same" if b == a else "not shorter"


def caveat(ks):
    """the one caveat (host/results.py), with what a nanosecond is under icount"""
    return results.caveat(timing(ks))


def emulated(ks):
    """study/rt.sh writes emulated=emulated on the emulated target, nothing on a board"""
    return any(k["info"].get("emulated") == "emulated" for k in ks)


def write_csv(path, ks):
    with io.StringIO() as f:
        f.write("# gpiolat rt-report: one figure a row; %s\n" % (
            caveat(ks) if emulated(ks) else "measured on the board itself (not emulated)"))
        f.write("# kernel,section,what,phase,metric,value,unit\n")
        for k in ks:
            for t in TASKS:
                for p in PHASES:
                    w = k["wakeup-%s-%s" % (t, p)]
                    for m in ("count", "p50_ns", "p99_ns", "max_ns", "mean_ns"):
                        if w and w[m] is not None:
                            f.write("%s,wakeup,%s,%s,%s,%s,%s\n" % (
                                k["kernel"], t, p, m.replace("_ns", ""), w[m],
                                "" if m == "count" else "ns"))
            for p in PHASES:
                c = k["cyclictest-" + p]
                for m in ("count", "min_us", "avg_us", "p99_us", "max_us", "overflows"):
                    if c and c.get(m) is not None:
                        f.write("%s,cyclictest,main,%s,%s,%s,%s\n" % (
                            k["kernel"], p, m.replace("_us", ""), c[m],
                            "us" if m.endswith("_us") else ""))
                g = k["gaps-" + p]
                if g:
                    for m in ("count", "p99_ns", "max_ns", "over", "over_ns"):
                        f.write("%s,gaps,all,%s,%s,%s,%s\n" % (
                            k["kernel"], p, m.replace("_ns", ""), g[m],
                            "ns" if m.endswith("_ns") else ""))
                    for c in g["causes"]:
                        f.write("%s,gap-cause,%s %s,%s,total,%d,ns\n" % (
                            k["kernel"], c["cause"], c["what"].replace(",", " "), p,
                            c["total_ns"]))
        results.write_text(path, f.getvalue())


def plot(outdir, ks):
    dat = os.path.join(outdir, "rt-wakeup.dat")
    labels = []
    with io.StringIO() as f:
        f.write("# label p99_us max_us (gpiolat --wakeup%s)\n" % (
            "; " + caveat(ks) if emulated(ks) else ""))
        for k in ks:
            for t in TASKS:
                for p in PHASES:
                    w = k["wakeup-%s-%s" % (t, p)]
                    if w and w["count"]:
                        lab = "%s %s %s" % (k["kernel"], t, p)
                        labels.append(lab)
                        f.write('"%s" %.3f %.3f\n' % (lab, w["p99_ns"] / 1e3,
                                                      w["max_ns"] / 1e3))
        results.write_text(dat, f.getvalue())
    if not labels:
        return
    png = os.path.join(outdir, "rt.png")
    gp = ("set terminal pngcairo size 1100,600 noenhanced; set output '%s';"
          "set title 'Wakeup latency of the toggler%s';"
          "set style data histograms; set style fill solid 0.8 border -1; set logscale y;"
          "set ylabel 'us (log)'; set xtics rotate by -30; set key top left;"
          "plot '%s' using 2:xtic(1) title 'p99', '' using 3 title 'max'"
          % (png, " (%s)" % results.TITLE if emulated(ks) else "", dat))
    results.gnuplot(gp, png, "rt-report")


def main(argv):
    if len(argv) < 4:
        print("usage: host/rt_report.py RAWDIR OUTDIR KERNEL...", file=sys.stderr)
        return 2
    raw, outdir, kernels = argv[1], argv[2], argv[3:]
    talk = baseline("baseline-klinger-elce2023.csv")
    adi = baseline("baseline-adi-cyclictest.csv")
    try:
        ks = [collect(raw, k) for k in kernels if os.path.isdir(os.path.join(raw, "rt-" + k))]
        for k in ks:
            reps = [collect(raw, k["kernel"], d) for d in repeat_dirs(raw, k["kernel"])]
            k["repeat"] = repeat(k, reps) if reps else None
    except results.BadResults as e:
        print("rt-report: %s" % e, file=sys.stderr)
        return 1
    if not ks:
        print("rt-report: no results in %s/rt-{%s}" % (raw, ",".join(kernels)),
              file=sys.stderr)
        return 1
    na_notes = []
    rows = side_by_side(ks, talk, adi, na_notes)
    notes = findings(ks)
    os.makedirs(outdir, exist_ok=True)
    emu = emulated(ks)
    results.write_text(os.path.join(outdir, "rt.json"), json.dumps(
        {"tool": "gpiolat rt-report", "format": 1, "emulated": emu,
         "caveat": caveat(ks) if emu else None, "timing": timing(ks), "kernels": ks, "findings": notes,
         "references": {"talk": "data/baseline-klinger-elce2023.csv",
                        "adi": "data/baseline-adi-cyclictest.csv"}}, indent=1))
    write_csv(os.path.join(outdir, "rt.csv"), ks)
    w = max(len(r[1]) for r in rows) + 2
    cw = max(max(len(c) for c in r[2]) for r in rows) + 2
    lines = ["gpiolat rt-report: standard vs PREEMPT_RT, side by side",
             caveat(ks) if emu else "Measured on the board itself (not emulated).", "Inside what they measure, and so named: the gap histogram holds the cost of "
             "gpiolat's program on each set; the wakeup latency, that of its sched_switch and "
             "sched_wakeup programs. Overhead rows: --quick (3 repetitions of 50-pulse "
             "phases), nothing else attached.", "", "%-*s" % (w, "") + "".join("%-*s" % (cw, k["kernel"]) for k in ks)
             + "reference"]
    section = None
    for sec, label, cells, ref in rows:
        if sec != section:
            lines.append("-- " + sec)
            section = sec
        lines.append("%-*s" % (w, label) + "".join("%-*s" % (cw, c) for c in cells) + ref)
    lines += ["[%d] %s" % (i + 1, n) for i, n in enumerate(na_notes)]
    lines += ["", "What the emulated target shows (figures above; docs/rt.md says what it "
              "cannot):"] + ["- " + n for n in notes]
    text = "\n".join(lines) + "\n"
    results.write_text(os.path.join(outdir, "rt.txt"), text)
    sys.stdout.write(text)
    plot(outdir, ks)
    return 0


if __name__ == "__main__":
    sys.exit(results.run_main("rt-report", main, sys.argv))
