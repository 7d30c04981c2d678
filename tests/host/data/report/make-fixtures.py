#!/usr/bin/env python3
"""Writes the report page's fixtures of the three studies beside the GPIO path, each through its
own writer where there is one on the host (tests/host/test_report_html.py reads them):

- rt.json: host/rt_report.py (the code path of tests/host/test_rt_report.py) on SYNTHETIC raw
  results of two kernels, with the figures of docs/rt.md's table (one emulated make
  rt-report) so that the page looks like a real one; the RT kernel's overhead subset is
  overhead.json's (a real emulated gpiolat --overhead run) control, event and
  bpf-gpiolat-tracepoint rows, the standard kernel's is "not available".
- bench-gpio.json: host/bench_gpio.py's pooled() of overhead.json's rows of make bench-gpio,
  as one pass (real emulated repetitions; no clocksource: that run did not read it).
- syscall-cost.json: no writer runs here (gpiolat --syscall-cost needs the built loader and
  root, and attaches to the host kernel), so it is written in the shape of loader/modes/syscall/sc_report.c's
  sc_print_json, key for key, with the figures of docs/bench.md's "after" run where it prints
  them (mean, 95 % CI, p50, p99, rounds, untraced) and plausible synthetic ones where it does
  not (ci999, sd, p90, rounds_ns, traced mean). test_report_html.py checks the keys against
  sc_report.c.

    python3 tests/host/data/report/make-fixtures.py     # rewrites the three files
    sh tests/host/data/regen.sh     # first overhead.json from a real run of the loader, then this
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host"))
import bench_gpio  # noqa: E402

# docs/rt.md's table, µs: (p50, p99, max, n) per task and phase
WAKEUP = {
    "std": {("kthread", "idle"): (47, 131, 216, 400), ("kthread", "loaded"): (68, 7864, 68667, 400),
            ("utoggle", "idle"): (43, 1119, 3957, 6933),
            ("utoggle", "loaded"): (90, 6156, 46247, 1981)},
    "rt": {("kthread", "idle"): (100, 1125, 4792, 426),
           ("kthread", "loaded"): (2168, 10972, 44481, 461),
           ("utoggle", "idle"): (31, 867, 3709, 4810),
           ("utoggle", "loaded"): (103, 6517, 99384, 1542)},
}
# cyclictest (avg, p99, max, n) and timerlat (thread avg, thread max, irq max, n), µs
CYCLICTEST = {"std": {"idle": (751, 9648, 89012, 1000), "loaded": (3422, 35547, 117130, 999)},
              "rt": {"idle": (764, 7051, 51000, 1000), "loaded": (4056, 32911, 289049, 996)}}
TIMERLAT = {"rt": {"idle": (561, 123323, 122950, 7653), "loaded": (3141, 182826, 182448, 2754)}}
# gaps: p99 µs, max µs, gaps over 100 µs, ms over, top causes (cause, what, gaps, ms)
GAPS = {
    "std": {"idle": (1.7, 5677, 43, 47.4, [("rest", "", 43, 41.8), ("timer-irq", "", 24, 2.8),
                                           ("sleep", "", 10, 1.5),
                                           ("task", "swapper/0", 4, 0.8)]),
            "loaded": (1.7, 8605, 40, 80.7, [("sleep", "", 20, 53.4), ("rest", "", 40, 24.2),
                                             ("task", "hackbench", 18, 2.5),
                                             ("timer-irq", "", 4, 0.3)])},
    "rt": {"idle": (2.2, 228869, 35, 251.8, [("rest", "", 35, 238.2), ("sleep", "", 19, 10.6),
                                             ("task", "swapper/1", 12, 1.3),
                                             ("timer-irq", "", 9, 0.4)]),
           "loaded": (4.7, 38853, 61, 173.2, [("rest", "", 61, 89.7), ("sleep", "", 18, 64.7),
                                              ("task", "hackbench", 14, 14.9),
                                              ("timer-irq", "", 13, 1.2)])},
}
KERNELS = {"std": ("6.1.0-56-amd64", "PREEMPT_DYNAMIC none (voluntary) full"),
           "rt": ("6.1.0-56-rt-amd64", "PREEMPT_RT")}


def hist(p50, p99, mx, n):
    return {"count": n, "min_ns": int(p50 * 400), "mean_ns": p50 * 1000 * 1.6,
            "p50_ns": p50 * 1000.0, "p90_ns": (p50 + p99) * 500.0, "p99_ns": p99 * 1000.0,
            "max_ns": mx * 1000, "buckets": [[1 << 10, 1 << 11, n]]}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def raw_kernel(raw, name, overhead):
    d = os.path.join(raw, "rt-" + name)
    release, preempt = KERNELS[name]
    write(os.path.join(d, "kernel.txt"), f"Linux target {release}\nrelease={release}\n"
          f"preempt={preempt}\nemulated=emulated\n")
    write(os.path.join(d, "load.txt"), "hackbench -g 2 -f 5 -l 200, in a loop (rt-tests)\n")
    for (task, phase), (p50, p99, mx, n) in WAKEUP[name].items():
        doc = {"run": {"hook": "tp_btf", "toggle": {"batches": 40} if task == "kthread" else None},
               "tasks": [{"comm": "toggle" if task == "kthread" else "utoggle", "wakeups": n,
                          "sleeps": n, "preemptions": 0, "wakeup": hist(p50, p99, mx, n)}]}
        write(os.path.join(d, f"wakeup-{task}-{phase}.json"), json.dumps(doc))
    for phase, (avg, p99, mx, n) in CYCLICTEST[name].items():
        below = math.ceil(0.99 * n) - 1  # the p99 bucket is the one reaching 99 %
        lines = ["# Histogram", "%06d %06d" % (avg // 2, below), "%06d %06d" % (p99, 1)]
        lines += ["# Total: %09d" % n, "# Min Latencies: %05d" % (avg // 4),
                  "# Avg Latencies: %05d" % avg, "# Max Latencies: %05d" % mx,
                  "# Histogram Overflows: %05d" % (n - below - 1)]
        write(os.path.join(d, f"cyclictest-{phase}.txt"), "\n".join(lines) + "\n")
        if name in TIMERLAT:
            tavg, tmax, imax, tn = TIMERLAT[name][phase]
            write(os.path.join(d, f"timerlat-{phase}.txt"),
                  f"count:  {tn}  {tn}\nmin:  3  9\navg:  {tavg // 2}  {tavg}\n"
                  f"max:  {imax}  {tmax}\n")
        else:
            write(os.path.join(d, f"timerlat-{phase}.unavailable"),
                  "not available: this kernel has no timerlat tracer\n")
        p99g, mxg, over, over_ms, causes = GAPS[name][phase]
        gaps = {"sets": 40000, "threshold_ns": 100000, "gaps_over": over,
                "gaps_over_ns": int(over_ms * 1e6), "gaps": hist(1.2, p99g, mxg, 39999),
                "causes": [{"cause": c, "what": w, "gaps": g, "total_ns": int(ms * 1e6),
                            "max_ns": int(ms * 1e6 / g)} for c, w, g, ms in causes]}
        write(os.path.join(d, f"gaps-{phase}.json"), json.dumps(gaps))
    if overhead:
        write(os.path.join(d, "overhead.json"), json.dumps(overhead))
    else:
        write(os.path.join(d, "overhead.unavailable"),
              "not available: the overhead subset did not run on this kernel (fixture)\n")


def rt_json(ov):
    subset = dict(ov, methods=[m for m in ov["methods"]
                               if m["method"] in ("control", "event", "bpf-gpiolat-tracepoint")])
    subset.pop("linear_fits", None)
    with tempfile.TemporaryDirectory() as tmp:
        raw_kernel(os.path.join(tmp, "raw"), "std", None)
        raw_kernel(os.path.join(tmp, "raw"), "rt", subset)
        # relative paths: the JSON names out/results/raw/rt-K as make rt-report would
        os.makedirs(os.path.join(tmp, "out", "results"))
        os.rename(os.path.join(tmp, "raw"), os.path.join(tmp, "out", "results", "raw"))
        r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "rt_report.py"),
                            "out/results/raw", "out/results", "std", "rt"], cwd=tmp,
                           capture_output=True, text=True,
                           env=dict(os.environ, PATH="/nonexistent"))  # no gnuplot: no PNG
        if r.returncode != 0:
            sys.exit(r.stderr)
        with open(os.path.join(tmp, "out", "results", "rt.json")) as f:
            return f.read()


def bench_gpio_json(ov):
    doc = dict(ov, methods=[m for m in ov["methods"] if m["method"] in bench_gpio.ROWS])
    doc.pop("linear_fits", None)
    return json.dumps(bench_gpio.pooled([doc]))


def data_ref(name, method, kind):
    """a reference row of data/NAME as the loader's JSON gives it (CSV quoting honoured)"""
    with open(os.path.join(HERE, "..", "..", "..", "..", "data", name)) as f:
        for r in csv.reader(line for line in f if not line.startswith("#")):
            if r[:2] == [method, kind]:
                return {"method": method, "kind": kind, "value": float(r[2]), "note": r[7]}
    raise KeyError(method)


def syscall_cost_json():
    def added(mean, ci, p50, p99, rounds=10, batches=200):
        rng = [mean + ci * (i - 4.5) / 4.5 for i in range(rounds)]
        return {"mean_ns": mean, "ci95_ns": ci, "ci999_ns": round(ci * 1.9, 1),
                "sd_rounds_ns": round(ci / 0.72, 1),
                "se_ns": round(ci / 2.262, 2), "df": rounds - 1,  # ci95 = t95(9) se
                "p50_ns": p50,
                "p90_ns": round((p50 + p99) / 3, 1), "p99_ns": p99, "rounds": rounds,
                "rounds_ns": [round(x, 1) for x in rng], "batches": batches,
                "traced_mean_ns": round(246.0 + mean, 1)}

    def m(name, what, add=None, reason=None, hook=None, start=None, progs=0, ref=None):
        return {"name": name, "what": what, "available": add is not None, "reason": reason,
                "hook": hook, "start": start, "added_ns_per_syscall": add,
                "bpf": ({"programs": progs, "stats": False, "run_cnt": 0, "run_time_ns": 0,
                         "mean_ns_per_run": None} if add and progs else None),
                "reference": ref}

    def ref(method, kind, value, note):
        return {"method": method, "kind": kind, "value": value, "note": note}

    nb = {"syscall-events": ref("syscall-events", "overhead", 355.0,
                                "syscalls:sys_enter_read and sys_enter_write recorded by perf "
                                "record (458 - 103 ns)"),
          "raw-syscalls-event": ref("raw-syscalls-event", "overhead", 351.0,
                                    "raw_syscalls:sys_enter recorded by perf record (454 - 103 "
                                    "ns)"),
          "kprobe-event": ref("kprobe-event", "overhead", 402.0,
                              "perf probe on sys_read and sys_write recorded by perf record "
                              "(505 - 103 ns)")}
    kp = ("not available: this kernel has no kprobes: no kprobe_events in tracefs and no kprobe "
          "PMU (CONFIG_KPROBES / CONFIG_KPROBE_EVENTS off)")
    methods = [
        m("control", "untraced vs untraced (must be 0 within its CI)", added(1.2, 9.8, 0.4, 210.3)),
        m("syscall-events", "tracefs: syscalls:sys_enter_{read,write,ioctl} enabled",
          added(301.4, 41.0, 288.0, 4410.2), ref=nb["syscall-events"]),
        m("raw-syscalls-event", "tracefs: raw_syscalls:sys_enter enabled",
          added(297.7, 38.2, 281.5, 3980.0), ref=nb["raw-syscalls-event"]),
        m("bpf-empty-raw-tp", "empty BPF program, raw_tp/sys_enter+sys_exit",
          added(65.3, 17.5, 60.0, 350.2), hook="raw_tp", progs=2),
        m("bpf-empty-tp-btf", "empty BPF program, tp_btf/sys_enter+sys_exit",
          added(55.7, 17.4, 49.3, 503.5), hook="tp_btf", progs=2),
        m("bpf-hist", "gpiolat's syscall-latency histogram (cheapest hook found)",
          added(158.5, 48.6, 180.6, 7190.1), hook="raw_tp", start="task storage", progs=2),
        m("kprobe-event", "tracefs kprobe events on the syscalls' kernel functions",
          reason=kp, ref=nb["kprobe-event"]),
        m("bpf-kprobe", "empty BPF kprobe on the syscalls' kernel functions", reason=kp),
        m("strace", "strace -p on the worker (output to /dev/null)",
          added(21480.2, 2210.4, 20811.0, 61022.9)),
        m("bpftrace", "bpftrace ply/syscall-hist.bt (the same histogram as bpf-hist)",
          added(485.9, 127.3, 507.4, 27424.8), hook="raw_tp", progs=2),
    ]
    doc = {"tool": "gpiolat", "mode": "syscall-cost", "format": 1,
           "bpf_jit": "on: programs run JIT-compiled (bpf_jit_enable=1)",
           "kernel": "6.18.44-fc-v669", "machine": "x86_64", "emulated": False, "cpu": 1,
           "rounds": 10, "bpf_stats": False, "batches_per_run": 20, "syscalls_per_batch": 600,
           "untraced_ns_per_syscall": {"batches": 1760, "mean_ns": 246.0, "sd_ns": 1316.5,
                                       "min_ns": 201.4, "max_ns": 40215.7},
           "methods": methods,
           "reference": [ref("untraced", "syscall", 103.0, "(0.173 s + 0.443 s) / 6e6 syscalls"),
                         nb["raw-syscalls-event"], nb["syscall-events"], nb["kprobe-event"],
                         data_ref("baseline-lttng-markers.csv", "marker-empty-probe", "cycles"),
                         data_ref("baseline-lttng-markers.csv", "kprobe", "cycles")]}
    return json.dumps(doc)


def main():
    with open(os.path.join(HERE, "overhead.json")) as f:
        ov = json.load(f)
    for name, text in (("rt.json", rt_json(ov)), ("bench-gpio.json", bench_gpio_json(ov)),
                       ("syscall-cost.json", syscall_cost_json())):
        write(os.path.join(HERE, name), text)
        print(os.path.join(HERE, name))


if __name__ == "__main__":
    main()
