"""host/compare.py: two runs side by side, the difference, its interval and verdict, like with
like; on small hand-made documents and on two real runs (tests/host/data/compare/: gpiolat
--overhead --quick --json on x86_64 Debian 12's 6.1 and Debian testing's 7.2, TIMING=icount)."""
import copy
import glob
import json
import math
import os
import random
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host"))
import benchstat  # noqa: E402
import compare  # noqa: E402

SCRIPT = os.path.join(ROOT, "host", "compare.py")
REAL = os.path.join(ROOT, "tests", "host", "data", "compare")


def target(kernel="6.1.0-56-amd64", timing="icount", machine="x86_64", emulated=True):
    return {"kernel": kernel, "version": "#1 SMP", "machine": machine,
            "userspace": "Debian GNU/Linux 12 (bookworm)", "emulated": emulated, "timing": timing}


def row(method, mean, se, df, against="untraced", n=3):
    return {"method": method, "group": "x", "measured": True, "against": against,
            "overhead_ns": mean, "ci95_ns": None if se is None else benchstat.t95(df) * se,
            "se_ns": se, "df": df, "sd_ns": 0.0, "repetitions": n,
            "differences_ns": [mean] * n}


def doc(rows, **t):
    return {"tool": "gpiolat --overhead", "format": 1, "bpf_jit": "on: JIT", "target": target(**t),
            "emulated": True, "clock": "ktime_get_ns", "resolution_ns": 1,
            "pulses_per_phase": 50, "repetitions": 3, "untraced_ns_per_set": 1000.0,
            "noise_floor_sd_ns": 0.0, "noise_floor_phases": 12, "warmup_batches": 2,
            "phase_statistic": "median", "duration_s": 10.0, "linear_fits": {},
            "methods": rows}


def one(a, b):
    res = compare.compare("overhead", a, b)
    assert len(res["rows"]) == 1, res
    return res, res["rows"][0]


def test_welch_by_hand():
    # se 10 (df 4) and 20 (df 6): var 500, df = 500^2 / (10^4 / 4 + 20^4 / 6) = 8.57 -> 8
    se, df = benchstat.welch(10.0, 4, 20.0, 6)
    assert se == pytest.approx(math.sqrt(500)) and df == 8
    # one exact side: the other's degrees of freedom
    assert benchstat.welch(0.0, 2, 3.0, 5) == (3.0, 5)
    assert benchstat.welch(0.0, 2, 0.0, 2) == (0.0, None)


def test_difference_interval_and_verdict():
    res, r = one(doc([row("event", 1000.0, 10.0, 4)]), doc([row("event", 1100.0, 20.0, 6)]))
    half = 2.307 * math.sqrt(500)  # t95(8), 2.306 rounded up as in benchstat.T95
    assert r["difference_ns"] == pytest.approx(100.0)
    assert r["ci95_low_ns"] == pytest.approx(100 - half) and r["df"] == 8
    assert r["ci95_high_ns"] == pytest.approx(100 + half)
    assert r["verdict"] == "higher" and not r["exact"] and res["like_with_like"]
    _, r = one(doc([row("event", 1000.0, 10.0, 4)]), doc([row("event", 1040.0, 20.0, 6)]))
    assert r["verdict"] == "~"  # 40 < 51.6: the interval holds 0
    _, r = one(doc([row("event", 1000.0, 10.0, 4)]), doc([row("event", 900.0, 20.0, 6)]))
    assert r["verdict"] == "lower"


def test_icount_exact_difference():
    """both standard errors 0: the difference is exact, its interval the point itself"""
    _, r = one(doc([row("event", 1000.0, 0.0, 2)]), doc([row("event", 1012.5, 0.0, 2)]))
    assert r["exact"] and r["verdict"] == "higher" and r["df"] is None
    assert r["ci95_low_ns"] == r["ci95_high_ns"] == r["difference_ns"] == 12.5
    _, r = one(doc([row("event", 1000.0, 0.0, 2)]), doc([row("event", 1000.0, 0.0, 2)]))
    assert r["exact"] and r["verdict"] == "same"
    # one side with spread: Welch's interval with that side's degrees of freedom
    _, r = one(doc([row("event", 1000.0, 0.0, 2)]), doc([row("event", 1001.0, 0.5, 3)]))
    assert not r["exact"] and r["df"] == 3 and r["verdict"] == "~"


def test_different_references_get_no_verdict():
    res, r = one(doc([row("kprobe", 500.0, 1.0, 4, against="event")]),
                 doc([row("kprobe", 900.0, 1.0, 4, against="untraced")]))
    assert r["verdict"] is None and r["difference_ns"] is None
    assert "different references" in r["why_no_verdict"]
    assert "none: different references" in compare.text(res, "a", "b")


def test_different_clocks_are_not_like_with_like():
    res = compare.compare("overhead", doc([row("event", 1000.0, 0.0, 2)]),
                          doc([row("event", 1500.0, 30.0, 2)], timing="real"))
    assert not res["like_with_like"]
    assert [d["what"] for d in res["differs"]] == ["clock (TIMING)"]
    r = res["rows"][0]
    assert r["verdict"] is None and r["difference_ns"] is None
    assert "NOT LIKE WITH LIKE" in compare.text(res, "a", "b")
    # emulated against a board: the same
    res = compare.compare("overhead", doc([row("event", 1000.0, 0.0, 2)]),
                          doc([row("event", 1500.0, 30.0, 2)], timing=None, emulated=False))
    assert not res["like_with_like"] and res["rows"][0]["verdict"] is None


def test_targets_that_differ_are_said_and_compared():
    res, r = one(doc([row("event", 1000.0, 0.0, 2)]),
                 doc([row("event", 900.0, 0.0, 2)], kernel="7.2.0-1-amd64"))
    assert res["differs"] == [{"what": "kernel", "a": "6.1.0-56-amd64", "b": "7.2.0-1-amd64"}]
    assert res["like_with_like"] and r["verdict"] == "lower"
    assert "the runs differ in: kernel (6.1.0-56-amd64 vs 7.2.0-1-amd64)" in \
        compare.text(res, "a", "b")


def test_rows_in_one_run_only_and_unmeasured():
    a = doc([row("event", 1.0, 0.0, 2), row("function", 2.0, 0.0, 2),
             {"method": "ply-delta", "measured": False, "not_available": "no ply"}])
    b = doc([row("event", 1.0, 0.0, 2), row("kprobe", 3.0, 0.0, 2, against="event"),
             {"method": "ply-delta", "measured": False, "not_available": "no ply"}])
    res = compare.compare("overhead", a, b)
    assert [r["method"] for r in res["rows"]] == ["event"]
    assert res["only_in_a"] == ["function"] and res["only_in_b"] == ["kprobe"]
    assert res["not_measured"] == [{"method": "ply-delta", "a": "no ply", "b": "no ply"}]


def test_a_file_without_standard_errors_gets_no_interval():
    old = row("event", 1000.0, 10.0, 4)
    del old["se_ns"], old["df"]
    _, r = one(doc([old]), doc([row("event", 1100.0, 20.0, 6)]))
    assert r["difference_ns"] == 100.0 and r["verdict"] is None
    assert "no standard error" in r["why_no_verdict"]


def test_bench_gpio_uses_its_pooled_estimate():
    """bench-gpio's rows: the interval from benchstat's mean_var of the pooled repetitions"""
    def bg(diffs):
        d = doc([dict(row("bpf-gpiolat-tracepoint", 0.0, 99.0, 1), differences_ns=diffs)])
        d["passes"] = 2
        return d
    xa, xb = [100.0, 104.0, 98.0, 101.0, 99.0, 103.0], [120.0, 118.0, 125.0, 121.0, 119.0, 122.0]
    r = compare.compare("bench-gpio", bg(xa), bg(xb))["rows"][0]
    (ma, va), (mb, vb) = benchstat.mean_var(xa), benchstat.mean_var(xb)
    se, df = benchstat.welch(math.sqrt(va), benchstat.dof(6), math.sqrt(vb), benchstat.dof(6))
    assert r["difference_ns"] == pytest.approx(mb - ma)
    assert r["ci95_high_ns"] - r["difference_ns"] == pytest.approx(benchstat.t95(df) * se)


def test_welch_interval_covers_95_percent():
    """the combination's coverage, two runs of the same true mean with unequal spreads and
    repetitions (se = sd / sqrt(n), df = n - 1): 20000 pairs, seeded. Expected 0.95; the
    estimate's sd is 0.0015, so 0.94..0.96 is 6.5 sd wide a side (a false failure far below 1
    in 1000, and none with the seed fixed)"""
    rnd = random.Random(26)
    hit, trials = 0, 20000
    for i in range(trials):
        na, nb, sa, sb = (3, 7, 1.0, 4.0) if i % 2 else (5, 5, 2.0, 2.0)
        xa = [rnd.gauss(0, sa) for _ in range(na)]
        xb = [rnd.gauss(0, sb) for _ in range(nb)]

        def mse(x):
            m = sum(x) / len(x)
            return m, math.sqrt(sum((v - m) ** 2 for v in x) / (len(x) - 1) / len(x))
        (ma, ea), (mb, eb) = mse(xa), mse(xb)
        se, df = benchstat.welch(ea, na - 1, eb, nb - 1)
        hit += abs(mb - ma) <= benchstat.t95(df) * se
    assert 0.94 <= hit / trials <= 0.96, hit / trials


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("args", [[], ["one.json"], ["--nope", "a", "b"], ["a", "b", "c"]])
def test_usage_errors_are_one_line_and_status_2(args):
    r = run(*args)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1, r


def test_bad_files_are_one_line_and_status_1(tmp_path):
    good = tmp_path / "a.json"
    good.write_text(json.dumps(doc([row("event", 1.0, 0.0, 2)])))
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    other = tmp_path / "sc.json"
    other.write_text(open(os.path.join(ROOT, "tests", "host", "data", "report",
                                       "syscall-cost.json")).read())
    rt = os.path.join(ROOT, "tests", "host", "data", "report", "rt.json")
    nothing = tmp_path / "n.json"
    nothing.write_text(json.dumps(doc([row("function", 1.0, 0.0, 2)])))
    malformed = tmp_path / "m.json"
    m = doc([row("event", 1.0, 0.0, 2)])
    del m["methods"][0]["measured"]
    malformed.write_text(json.dumps(m))
    for b, what in ((tmp_path / "none.json", "No such file"), (bad, "not valid JSON"),
                    (other, "of kind syscall-cost"), (rt, "a file of kind rt"),
                    (nothing, "no measured row in common"), (malformed, "has no \"measured\"")):
        r = run(good, b)
        assert r.returncode == 1 and r.stdout == "", (b, r)
        assert len(r.stderr.splitlines()) == 1 and what in r.stderr, (b, r.stderr)


def test_json_output(tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(doc([row("event", 1000.0, 0.0, 2)])))
    b.write_text(json.dumps(doc([row("event", 1010.0, 0.0, 2)], kernel="7.2.0-1-amd64")))
    r = run("--json", a, b)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["tool"] == "gpiolat compare" and out["unit"] == "ns per GPIO set"
    assert out["rows"][0]["difference_ns"] == 10.0 and out["rows"][0]["exact"]
    assert out["a"]["file"] == str(a) and "nanosecond is one guest instruction" in out["caveat"]


# ---- two real runs: x86_64, TIMING=icount, Debian 12's 6.1 against Debian testing's 7.2 ------
def real_pair():
    files = sorted(glob.glob(os.path.join(REAL, "overhead-x86_64-*-icount.json")),
                  key=lambda p: [int(x) for x in os.path.basename(p).split("-")[2].split(".")])
    assert len(files) == 2, files
    return files


def test_real_runs_6_1_against_7_2_icount():
    a, b = real_pair()
    r = run("--json", a, b)
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    ta, tb = res["a"]["target"], res["b"]["target"]
    # what the files say of themselves: one clock, one architecture, two kernels
    assert ta["timing"] == tb["timing"] == "icount" and ta["emulated"] and tb["emulated"]
    assert ta["machine"] == tb["machine"] == "x86_64"
    assert ta["kernel"].startswith("6.1.") and not tb["kernel"].startswith("6.1.")
    assert res["like_with_like"] and "kernel" in [d["what"] for d in res["differs"]]
    assert "clock (TIMING)" not in [d["what"] for d in res["differs"]]
    # every row both measured is compared; each figure as the files give it
    ra = {m["method"]: m for m in json.load(open(a))["methods"] if m["measured"]}
    rb = {m["method"]: m for m in json.load(open(b))["methods"] if m["measured"]}
    assert {x["method"] for x in res["rows"]} == set(ra) & set(rb)
    assert len(res["rows"]) >= 30
    for r in list(ra.values()) + list(rb.values()):
        # what each interval is made of, as the loader wrote it: ci95_ns = t95(df) se_ns
        assert r["ci95_ns"] == pytest.approx(benchstat.t95(r["df"]) * r["se_ns"], rel=1e-4,
                                             abs=1e-9), r
    for x in res["rows"]:
        m = x["method"]
        assert x["a"]["mean"] == ra[m]["overhead_ns"] and x["b"]["mean"] == rb[m]["overhead_ns"]
        if ra[m]["against"] != rb[m]["against"]:
            assert x["verdict"] is None
            continue
        assert x["verdict"] is not None, x
        assert x["difference_ns"] == pytest.approx(rb[m]["overhead_ns"] - ra[m]["overhead_ns"])
        assert x["ci95_low_ns"] <= x["difference_ns"] <= x["ci95_high_ns"]
        assert x["exact"] == (ra[m]["se_ns"] == 0 and rb[m]["se_ns"] == 0)
        if x["verdict"] in ("higher", "lower"):
            assert (x["ci95_low_ns"] > 0) == (x["verdict"] == "higher")
            assert (x["ci95_high_ns"] < 0) == (x["verdict"] == "lower")
    # the instruction-counted clock: most rows repeat exactly in both runs
    assert sum(x["exact"] for x in res["rows"]) >= len(res["rows"]) // 2
    t = run(a, b)
    assert t.returncode == 0 and "TIMING=icount" in t.stdout and "(exact)" in t.stdout


def test_real_run_against_itself_changes_nothing():
    a, _ = real_pair()
    res = compare.compare("overhead", json.load(open(a)), copy.deepcopy(json.load(open(a))))
    assert res["rows"] and not res["differs"]
    for x in res["rows"]:
        assert x["difference_ns"] == 0 and x["verdict"] in ("same", "~"), x


def test_the_page_shows_the_first_two_kernels_compared(tmp_path):
    """rt.json's first two kernels with an overhead subset: the page's RT section adds the
    comparison, row by row as compare.compare() makes it (here the two real icount runs as the
    two kernels' subsets)"""
    a, b = real_pair()
    with open(os.path.join(ROOT, "tests", "host", "data", "report", "rt.json")) as f:
        rt = json.load(f)
    rt["kernels"][0]["overhead"] = json.load(open(a))
    rt["kernels"][1]["overhead"] = json.load(open(b))
    rt["kernels"][0]["kernel"], rt["kernels"][1]["kernel"] = "std", "testing"
    res = tmp_path / "results"
    res.mkdir()
    (res / "rt.json").write_text(json.dumps(rt))
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "report_html.py"), str(res)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    page = (res / "report.html").read_text()
    sec = page[page.index("<section id=rt>"):]
    sec = sec[:sec.index("</section>")]
    assert "The overhead subset compared, A = std, B = testing" in sec
    assert "The runs differ in: kernel (6.1." in sec
    want = compare.compare("overhead", rt["kernels"][0]["overhead"],
                           rt["kernels"][1]["overhead"])
    for x in want["rows"]:
        _, d, iv, verdict = compare.cells(x)
        assert (f"<tr><td>{x['method']}</td>") in sec, x["method"]
        cells = sec[sec.index(f"<tr><td>{x['method']}</td>"):]
        cells = cells[:cells.index("</tr>")]
        assert f"<td class=num>{d}</td>" in cells and verdict in cells, (cells, d, verdict)
