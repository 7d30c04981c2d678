"""tests/compare/rt_counts.py: the study's counts, judged on the host (rt-det, rt-armhf). On
folders written as study/rt.sh writes them (the counts of rt-det's boot, 2026-11-28: x86_64 std,
no timerlat; and a PREEMPT_RT kernel with timerlat, as rt-armhf's arm-6.12-rt): a correct run is
all ok, and each count or file a wrong run would give fails its check alone."""
import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "tests", "compare", "rt_counts.py")


def wakeup(count, batches=None):
    toggle = None if batches is None else {"pulses": batches * 5, "batches": batches}
    return {"tool": "gpiolat", "mode": "wakeup", "run": {"toggle": toggle},
            "tasks": [{"comm": "x", "wakeup": {"count": count}}]}


def study(d, rt=False, kthread=4, utoggle=198, total=20, overflows=0, gaps=199, after="0\nburst"):
    os.makedirs(d, exist_ok=True)

    def put(name, text):
        with open(os.path.join(d, name), "w") as f:
            f.write(text if isinstance(text, str) else json.dumps(text))

    tracers = "timerlat osnoise function nop" if rt else "blk mmiotrace function_graph function nop"
    put("kernel.txt", f"release=x\npreempt={'PREEMPT_RT' if rt else 'PREEMPT_DYNAMIC'}\n"
        f"tracers={tracers}\ntiming=icount\n")
    put("settings.txt", "load=hackbench\npulses=20\ncyclictest=-m -p 80 -t 1 -l 20 -i 1000\n"
        "seconds_each=1\nutoggle_time=200ms\n")
    for p in ("idle", "loaded"):
        put(f"wakeup-kthread-{p}.json", wakeup(kthread, 4))
        put(f"wakeup-utoggle-{p}.json", wakeup(utoggle))
        put(f"cyclictest-{p}.txt", f"# Histogram\n000000 000020\n# Total: {total:09d}\n"
            f"# Histogram Overflows: {overflows:05d}\n")
        if rt:
            put(f"timerlat-{p}.txt", "Index   IRQ-000   Thr-000   Usr-000\n"
                "count:      999       999       999 \n")
        else:
            put(f"timerlat-{p}.unavailable", "this kernel has no timerlat tracer "
                "(available_tracers: blk mmiotrace function_graph function nop)\n")
        put(f"gaps-{p}.json", {"gaps": {"count": gaps}})
    put("module-before", "burst\n")
    put("module-after", after + "\n")


def judge(d):
    r = subprocess.run(["python3", SCRIPT, "t", d, "20", "20", "200"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines and all(ln.startswith(("ok - t: ", "not ok - t: ")) for ln in lines), r.stdout
    return [ln for ln in lines if ln.startswith("not ok")], len(lines)


@pytest.mark.parametrize("rt", [False, True])
def test_a_correct_run_is_all_ok(tmp_path, rt):
    study(str(tmp_path), rt=rt)
    bad, n = judge(str(tmp_path))
    assert bad == [] and n == 19


@pytest.mark.parametrize("kw,what", [
    ({"kthread": 5}, "kthread idle: one wakeup histogrammed per batch"),
    ({"kthread": 3}, "kthread idle: one wakeup histogrammed per batch"),
    ({"utoggle": 99}, "utoggle idle: at least 100 wakeups histogrammed in 200 ms"),
    ({"total": 19}, "cyclictest idle: its 20 cycles counted"),
    ({"overflows": 1}, "cyclictest idle: none past its histogram"),
    ({"gaps": 0}, "gaps idle: a gap histogram with a count"),
    ({"after": "1\nburst"}, "the module left idle, in its mode"),
    ({"after": "0\ncontinuous"}, "the module left idle, in its mode"),
])
def test_a_wrong_count_fails_its_check(tmp_path, kw, what):
    study(str(tmp_path), **kw)
    bad, _ = judge(str(tmp_path))
    assert any(ln.startswith("not ok - t: " + what) for ln in bad), bad


def test_preempt_rt_may_histogram_more_kthread_wakeups(tmp_path):
    study(str(tmp_path), rt=True, kthread=6)
    assert judge(str(tmp_path))[0] == []
    study(str(tmp_path), rt=True, kthread=3)
    assert any("kthread idle: a wakeup histogrammed per batch at least" in ln
               for ln in judge(str(tmp_path))[0])


@pytest.mark.parametrize("name", ["wakeup-kthread-loaded.json", "cyclictest-idle.txt",
                                  "gaps-loaded.json", "module-after"])
def test_a_missing_file_fails(tmp_path, name):
    study(str(tmp_path))
    os.remove(os.path.join(str(tmp_path), name))
    assert judge(str(tmp_path))[0]


def test_timerlat_where_the_kernel_has_it_must_count(tmp_path):
    study(str(tmp_path), rt=True)
    with open(os.path.join(str(tmp_path), "timerlat-loaded.txt"), "w") as f:
        f.write("count:      0       0       0 \n")
    assert any("rtla timerlat loaded: activations counted" in ln for ln in judge(str(tmp_path))[0])
