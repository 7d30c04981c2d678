"""Host side: host/rt_report.py, the standard vs PREEMPT_RT report (parsing, references, files)."""
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "host"))
import rt_report  # noqa: E402


def hist(count, p99, mx):
    return {"count": count, "min_ns": 1000, "mean_ns": 2000.0, "p50_ns": 1500.0,
            "p90_ns": 1800.0, "p99_ns": p99, "max_ns": mx, "buckets": [[1024, 1152, count]]}


def wakeup_doc(p99, mx, batches=None):
    return {"run": {"hook": "tp_btf", "toggle": {"batches": batches} if batches else None},
            "tasks": [{"comm": "toggle", "wakeups": 10, "sleeps": 10, "preemptions": 0,
                       "wakeup": hist(10, p99, mx)}]}


def make_kernel(raw, name, preempt, load, timerlat, emulated="emulated", info="",
                settings=None):
    d = raw / ("rt-" + name)
    d.mkdir(parents=True)
    # as study/rt.sh writes it: emulated=emulated in the emulated target, empty on a board
    (d / "kernel.txt").write_text("Linux x\nrelease=6.1.0-%s\npreempt=%s\nemulated=%s\n%s"
                                  % (name, preempt, emulated, info))
    if settings:
        (d / "settings.txt").write_text(settings)
    (d / "load.txt").write_text(load + "\n")
    for t in ("kthread", "utoggle"):
        for i, p in enumerate(("idle", "loaded")):
            doc = wakeup_doc(50000.0 * (i + 1), 90000 * (i + 1), 10 if t == "kthread" else None)
            (d / ("wakeup-%s-%s.json" % (t, p))).write_text(json.dumps(doc))
    # 100 cycles: 98 at 5 us, 1 at 7 us, 1 overflow (max 900 us): p99 is 7 us
    cyc = ["# Histogram"] + ["%06d %06d" % (us, {5: 98, 7: 1}.get(us, 0)) for us in range(10)]
    cyc += ["# Total: 000000100", "# Min Latencies: 00005", "# Avg Latencies: 00014",
            "# Max Latencies: 00900", "# Histogram Overflows: 00001"]
    for p in ("idle", "loaded"):
        (d / ("cyclictest-%s.txt" % p)).write_text("\n".join(cyc) + "\n")
        if timerlat:
            (d / ("timerlat-%s.txt" % p)).write_text(
                "count:     2725      2725\nmin:          7        78\n"
                "avg:       2738      3254\nmax:      41965     42263\n")
        else:
            (d / ("timerlat-%s.unavailable" % p)).write_text(
                "not available: this kernel has no timerlat tracer\n")
        gaps = {"sets": 100, "threshold_ns": 100000, "gaps_over": 2, "gaps_over_ns": 400000,
                "gaps": hist(99, 3000.0, 300000),
                "causes": [{"cause": "rest", "what": "", "gaps": 2, "total_ns": 300000,
                            "max_ns": 200000},
                           {"cause": "task", "what": "hackbench", "gaps": 1,
                            "total_ns": 100000, "max_ns": 100000}]}
        (d / ("gaps-%s.json" % p)).write_text(json.dumps(gaps))
    (d / "overhead.unavailable").write_text("gpiolat: no toggle module\n")


def run(tmp_path, load, emulated="emulated"):
    raw = tmp_path / "raw"
    make_kernel(raw, "std", "PREEMPT_DYNAMIC", load, False, emulated)
    make_kernel(raw, "rt", "PREEMPT_RT", load, True, emulated)
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "rt_report.py"), str(raw),
                        str(out), "std", "rt"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def test_cyclictest_p99_from_its_histogram(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("000005 000098\n000007 000001\n# Total: 000000100\n# Max Latencies: 00900\n"
                 "# Histogram Overflows: 00001\n")
    c = rt_report.cyclictest(str(f))
    assert c["count"] == 100 and c["p99_us"] == 7 and c["max_us"] == 900


def test_side_by_side_with_like_references(tmp_path):
    out = run(tmp_path, "hackbench -g 2 -f 5 -l 200, in a loop (rt-tests)")
    text = (out / "rt.txt").read_text()
    # the untraced pulse of each flavour beside its own kernel's column, nothing else
    assert "6.1.26: 167.30 ns" in text and "6.1.26-rt8: 168.42 ns" in text
    # timerlat: figures on RT, the reason on std, said once
    assert "thread max 42263 / irq max 41965 us (n=2725)" in text
    assert text.count("this kernel has no timerlat tracer") == 1
    assert "p99 7 / max 900 us (n=100, avg 14)" in text
    # the ADI figure only beside its own workload
    assert "ADI" not in text
    assert "EMULATED" in text
    doc = json.loads((out / "rt.json").read_text())
    assert [k["kernel"] for k in doc["kernels"]] == ["std", "rt"]
    # the fixture's two kernels have the same wakeup figures
    assert any("kthread loaded wakeup p99 / max: std 100.0 / 180.0 us, rt 100.0 / 180.0 us: "
               "RT's tail is the same here" in n for n in doc["findings"])
    rows = (out / "rt.csv").read_text().splitlines()
    assert "rt,wakeup,kthread,loaded,p99,100000.0,ns" in rows
    assert "std,gap-cause,task hackbench,idle,total,100000,ns" in rows


def test_adi_reference_beside_its_workload(tmp_path):
    out = run(tmp_path, "5 x 'ls -lR /usr' in loops (the ADI ftrace page's workload)")
    text = (out / "rt.txt").read_text()
    assert "ADI (Blackfin, 2.6.32, 5 x ls -lR): avg 137 / max 11137 us" in text


def test_no_results_is_an_error(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "rt_report.py"),
                        str(tmp_path), str(tmp_path / "o"), "std"], capture_output=True,
                       text=True)
    assert r.returncode == 1 and "no results" in r.stderr


def test_a_board_run_is_not_called_emulated(tmp_path):
    # study/rt.sh on a board leaves emulated= empty: no emulation caveat on real figures
    out = run(tmp_path, "hackbench -g 2 -f 5 -l 200, in a loop (rt-tests)", emulated="")
    d = json.loads((out / "rt.json").read_text())
    assert d["emulated"] is False and d["caveat"] is None
    assert "EMULATED" not in (out / "rt.txt").read_text()
    out = run(tmp_path / "e", "hackbench -g 2 -f 5 -l 200, in a loop (rt-tests)")
    assert json.loads((out / "rt.json").read_text())["emulated"] is True


def test_references_mapped_as_the_loader_maps_them():
    """loader/core/baseline.c baseline_ref, every reference the rows use: untraced and
    mode=continuous are the talk's tracing-configured pulse (either kernel's), the untraced
    ioctl toggler its user-ioctl; a method only itself"""
    like = rt_report.like_reference
    assert like("untraced", "tracing-configured-rt") and like("untraced", "tracing-configured")
    assert like("mode=continuous", "tracing-configured-rt")
    assert like("untraced ioctl toggler", "user-ioctl")
    assert like("event", "event")
    assert not like("untraced", "user-ioctl") and not like("untraced ioctl toggler", "event")
    assert not like("kprobe", "event") and not like("", "") and not like(None, "event")


def icount_kernels(raw, names=(("std", "PREEMPT_DYNAMIC", "x86_64"),
                               ("rt", "PREEMPT_RT", "x86_64"))):
    for name, preempt, machine in names:
        make_kernel(raw, name, preempt, "hackbench -g 2 -f 5 -l 200, in a loop (rt-tests)",
                    preempt == "PREEMPT_RT", info="timing=icount\nmachine=%s\n" % machine,
                    settings="load=hackbench\ncyclictest=-m -p 80 -t 1 -l 3000 -i 1000\n")


def report(tmp_path, *kernels):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "rt_report.py"),
                        str(tmp_path / "raw"), str(out)] + list(kernels), capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    return json.loads((out / "rt.json").read_text()), (out / "rt.txt").read_text()


def test_icount_says_what_its_microsecond_is_and_cyclictest_its_options(tmp_path):
    icount_kernels(tmp_path / "raw")
    doc, text = report(tmp_path, "std", "rt")
    assert doc["timing"] == "icount" and "one guest instruction" in doc["caveat"]
    assert "one guest instruction" in text
    assert "-m -p 80 -t 1 -l 3000 -i 1000 loaded" in text


def test_a_repeat_that_gives_the_same_figures_says_so(tmp_path):
    raw = tmp_path / "raw"
    icount_kernels(raw)
    shutil.copytree(raw / "rt-std", raw / "rt-std.run2")
    doc, text = report(tmp_path, "std", "rt")
    std, rt = doc["kernels"]
    # wakeup x 4, cyclictest x 2, gaps x 2 on std (no timerlat): 8 figures, all equal
    assert std["repeat"]["runs"] == 2 and std["repeat"]["figures"] == 8
    assert std["repeat"]["differ"] == [] and rt["repeat"] is None
    assert "2 runs, the same 8 figures" in text and "one run" in text


def test_a_repeat_that_differs_names_each_figure_and_both_values(tmp_path):
    raw = tmp_path / "raw"
    icount_kernels(raw)
    for n in (2, 3):
        shutil.copytree(raw / "rt-rt", raw / ("rt-rt.run%d" % n))
    # run 3's loaded cyclictest has a longer tail; its timerlat did not run at all
    f = raw / "rt-rt.run3" / "cyclictest-loaded.txt"
    f.write_text(f.read_text().replace("# Max Latencies: 00900", "# Max Latencies: 00901"))
    (raw / "rt-rt.run3" / "timerlat-idle.txt").unlink()
    doc, text = report(tmp_path, "std", "rt")
    r = doc["kernels"][1]["repeat"]
    assert r["runs"] == 3 and r["figures"] == 10
    assert r["differ"] == [["cyclictest loaded", 3, "p99 7 / max 900 us (n=100)",
                            "p99 7 / max 901 us (n=100)"],
                           ["timerlat idle", 3, "thread max 42263 / irq max 41965 us (n=2725)",
                            "none"]]
    assert "3 runs: 2 of 10 figures differ" in text
    assert any("rt, 3 runs (each its own boot): 2 of 10 figures differ from run to run "
               "(cyclictest loaded, timerlat idle)" in n for n in doc["findings"])


def test_standard_and_rt_compared_within_one_architecture_only(tmp_path):
    icount_kernels(tmp_path / "raw", (("std", "PREEMPT_DYNAMIC", "x86_64"),
                                      ("arm-6.12-rt", "PREEMPT_RT", "armv7l")))
    doc, _ = report(tmp_path, "std", "arm-6.12-rt")
    assert not any("RT's" in n for n in doc["findings"])
    assert [rt_report.arch(k) for k in doc["kernels"]] == ["x86_64", "arm"]


def test_a_utoggle_run_that_slept_far_less_than_it_asks_is_named(tmp_path):
    """utoggle sleeps usleep(1000) after each batch: 10 wakeups in 3 s is not its loop"""
    raw = tmp_path / "raw"
    icount_kernels(raw)
    for name, secs in (("std", 0.01), ("rt", 3)):
        f = raw / ("rt-" + name) / "wakeup-utoggle-idle.json"
        d = json.loads(f.read_text())
        d["run"]["duration_ns"] = int(secs * 1e9)
        f.write_text(json.dumps(d))
    doc, _ = report(tmp_path, "std", "rt")
    named = [n for n in doc["findings"] if "under half of one a ms" in n]
    assert len(named) == 1 and named[0].startswith("rt utoggle idle: 10 wakeups in 3.0 s")
