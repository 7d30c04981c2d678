"""The study's counts (study/rt.sh, docs/rt.md), judged on the host on what a target's run of it
wrote: every figure it reports measured, idle and under its load, with the counts its sizes fix.
Usage: rt_counts.py NAME DIR PULSES LOOPS UTOGGLE_MS (the sizes the run was given; DIR also holds
module-before and module-after: the toggle module's mode before the study, its enable and
mode after). Prints "ok - NAME: ..." or "not ok - NAME: ..." a check; exits 0.
Every criterion is exact, a count the study fixes, so none fails a correct run (no latency is
judged: under icount the tails do not repeat from boot to boot, docs/rt.md "In instructions"):
- kernel.txt and settings.txt say what ran: TIMING=icount, cyclictest -m -p 80 -t 1 -l LOOPS
  -i 1000, the hackbench load, utoggle's phase;
- gpiolat --wakeup on the module's kthread, idle and loaded: PULSES pulses in batches of 5 are
  PULSES / 5 batches; on a standard kernel exactly one wakeup histogrammed per batch (its msleep,
  the last batch's idle wait), on PREEMPT_RT (kernel.txt's preempt=) at least that many (its
  sleeping spinlocks add some: test 45);
- gpiolat --wakeup --pid on a running utoggle (usleep(1000) a batch of 5): at least one wakeup
  histogrammed per 2 ms of its phase (a batch is under 1 ms of instructions; measured at 1 s:
  986-987 idle and 986-1008 loaded on x86_64; 7 when utoggle's start-up fell inside the window,
  which the study now keeps out: it measures a utoggle already in its loop);
- cyclictest, idle and loaded: its LOOPS cycles counted, none past its histogram;
- rtla timerlat hist, idle and loaded, where the kernel has the timerlat tracer (kernel.txt's
  tracers=): activations counted; where it has none, the study says so;
- gpiolat --gaps, idle and loaded: a gap histogram with a count;
- the module left as found: idle, in its mode.
"""
import json
import os
import re
import sys

name, d = sys.argv[1], sys.argv[2]
pulses, loops, utoggle_ms = (int(x) for x in sys.argv[3:6])


def check(what, cond, detail=""):
    detail = f" ({detail})" if detail != "" else ""
    print(f"{'ok' if cond else 'not ok'} - {name}: {what}{detail}")


def read(f):
    try:
        with open(os.path.join(d, f)) as fh:
            return fh.read()
    except OSError:
        return None


def kv(f):
    return dict(ln.split("=", 1) for ln in (read(f) or "").splitlines() if "=" in ln)


def unavailable(base):
    return (read(base + ".unavailable") or "no file").strip()


kernel, settings = kv("kernel.txt"), kv("settings.txt")
rt = kernel.get("preempt", "") == "PREEMPT_RT"
check("kernel.txt: timing=icount", kernel.get("timing") == "icount", kernel.get("timing"))
want = f"-m -p 80 -t 1 -l {loops} -i 1000"
check(f"settings.txt: cyclictest {want}", settings.get("cyclictest") == want,
      settings.get("cyclictest"))
check("settings.txt: the hackbench load", settings.get("load") == "hackbench", settings.get("load"))
check(f"settings.txt: utoggle's phase {utoggle_ms}ms", settings.get("utoggle_time") ==
      f"{utoggle_ms}ms", settings.get("utoggle_time"))
batches = pulses // 5
for p in ("idle", "loaded"):
    w = read(f"wakeup-kthread-{p}.json")
    if w is None:
        check(f"kthread {p}: measured", False, unavailable(f"wakeup-kthread-{p}"))
    else:
        w = json.loads(w)
        b = ((w.get("run") or {}).get("toggle") or {}).get("batches")
        c = sum(t["wakeup"]["count"] for t in w.get("tasks", []))
        check(f"kthread {p}: {pulses} pulses of 5 are {batches} batches", b == batches, b)
        if rt:
            check(f"kthread {p}: a wakeup histogrammed per batch at least (PREEMPT_RT)",
                  c >= batches, c)
        else:
            check(f"kthread {p}: one wakeup histogrammed per batch", c == batches, c)
    w = read(f"wakeup-utoggle-{p}.json")
    if w is None:
        check(f"utoggle {p}: measured", False, unavailable(f"wakeup-utoggle-{p}"))
    else:
        c = sum(t["wakeup"]["count"] for t in json.loads(w).get("tasks", []))
        check(f"utoggle {p}: at least {utoggle_ms // 2} wakeups histogrammed in {utoggle_ms} ms",
              c >= utoggle_ms // 2, c)
    t = read(f"cyclictest-{p}.txt")
    if t is None:
        check(f"cyclictest {p}: measured", False, unavailable(f"cyclictest-{p}"))
    else:
        n = re.search(r"^# Total: *(\d+)", t, re.M)
        o = re.search(r"^# Histogram Overflows: *(\d+)", t, re.M)
        check(f"cyclictest {p}: its {loops} cycles counted", n and int(n.group(1)) == loops,
              n and int(n.group(1)))
        check(f"cyclictest {p}: none past its histogram", o and int(o.group(1)) == 0,
              o and int(o.group(1)))
    if "timerlat" in kernel.get("tracers", "").split():
        t = read(f"timerlat-{p}.txt") or ""
        n = re.search(r"^count: *\d+ +(\d+)", t, re.M)
        check(f"rtla timerlat {p}: activations counted (the kernel has timerlat)",
              n and int(n.group(1)) > 0, n.group(1) if n else unavailable(f"timerlat-{p}"))
    else:
        check(f"rtla timerlat {p}: the study says this kernel has no timerlat tracer",
              "no timerlat tracer" in unavailable(f"timerlat-{p}"), unavailable(f"timerlat-{p}"))
    g = read(f"gaps-{p}.json")
    if g is None:
        check(f"gaps {p}: measured", False, unavailable(f"gaps-{p}"))
    else:
        c = (json.loads(g).get("gaps") or {}).get("count") or 0
        check(f"gaps {p}: a gap histogram with a count", c > 0, c)
before = (read("module-before") or "").split()
after = (read("module-after") or "").split()
check("the module left idle, in its mode", len(before) == 1 and after == ["0"] + before,
      f"before: mode {' '.join(before) or '?'}; after: enable and mode {' '.join(after) or '?'}")
