"""--overhead's BPF trust check (loader/modes/overhead/ov_stats.c ov_trust_check, docs/overhead.md "Trust"),
through out/build/test-overhead: both ways. One quantity, the traced ns per set of each method
phase, from the module's batches and from the program's own periods; agreement when
|mean(program - module)| <= reference / burst + t(99.9 %, phases - 1) sd / sqrt(phases). The
expected limits are computed here independently (the tabulated Student's t)."""
import json
import os
import statistics
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_OV = os.path.join(ROOT, "out", "build", "test-overhead")
# two-sided 99.9 % quantiles of Student's t, df 1..4, as tabulated
T999 = [None, 636.619, 31.599, 12.924, 8.610]


@pytest.fixture(scope="module", autouse=True)
def built():
    r = subprocess.run(["make", "-s", "-C", ROOT, "out/build/test-overhead"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def run(*args, env=None):
    r = subprocess.run([TEST_OV, *map(str, args)], capture_output=True, text=True,
                       env={**os.environ, **(env or {})})
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def limit(ref, burst, pairs):
    d = [p - m for m, p in pairs]
    return ref / burst + T999[len(d) - 1] * statistics.stdev(d) / len(d) ** 0.5, \
        statistics.fmean(d)


# the ARM icount run of tests/target/21-trust-icount.sh (2026-11-24): tracepoint row, reference
# 166 ns per set, burst 5, three method phases: the module's fixed part shows as -9.2 ns
ICOUNT = [(1999.4, 1990.2), (1999.7, 1990.6), (1999.4, 1990.3)]


def phases(pairs):
    return [f"{m}:{p}" for m, p in pairs]


def test_clocks_that_agree_pass():
    out = run("trust", "verdict", 166, 5, *phases(ICOUNT))
    lim, d = limit(166, 5, ICOUNT)
    assert out.startswith("agree ")
    assert f"program - module {d:+.1f} ns per set" in out
    assert f"limit {lim:.1f} ns" in out


def test_one_clock_broken_fails():
    # the program's clock read 1.5 times too long (what GPIOLAT_TRUST_SCALE=1.5 does)
    broken = [(m, 1.5 * p) for m, p in ICOUNT]
    assert run("trust", "verdict", 166, 5, *phases(broken)).startswith("DISAGREE ")
    # the smallest break it sees here: the allowance (33.2 ns) minus the fixed part's -9.2 ns
    # and the noise term (about 1 ns): 2 % of a 2000 ns set (+30.7 ns) is not seen, 5 % is
    broken = [(m, 1.02 * p) for m, p in ICOUNT]
    assert run("trust", "verdict", 166, 5, *phases(broken)).startswith("agree ")
    broken = [(m, 1.05 * p) for m, p in ICOUNT]
    assert run("trust", "verdict", 166, 5, *phases(broken)).startswith("DISAGREE ")


def test_the_limit_is_the_allowance_plus_the_noise():
    # noisy phases that differ by 60 ns on average: within 200 / 5 + 31.6 x sd / sqrt(3)
    pairs = [(2000, 2060), (2000, 2050), (2000, 2070)]
    lim, d = limit(200, 5, pairs)
    assert d == pytest.approx(60) and lim > 60
    assert run("trust", "verdict", 200, 5, *phases(pairs)).startswith("agree ")
    # the same mean difference with no noise: above the 40 ns allowance
    pairs = [(2000, 2060)] * 3
    assert run("trust", "verdict", 200, 5, *phases(pairs)).startswith("DISAGREE ")
    # the allowance scales with the reference: 400 / 5 = 80 ns
    assert run("trust", "verdict", 400, 5, *phases(pairs)).startswith("agree ")


def test_agreement_only_where_a_clock_off_by_half_would_show():
    # the x86_64 real-time run (2026-11-24): the module's batches 4.3-7.6 us per set, the
    # program's periods 1.4-3.0 us: apart by more than the noise
    x86 = [(7557.85, 2982.12), (4346.05, 1383.88), (4413.6, 1419.75), (4957.5, 1730.69),
           (4941.45, 1680.38)]
    assert run("trust", "verdict", 1176, 5, *phases(x86)).startswith("DISAGREE ")
    # within the limit, but the limit (200 + 31.6 x 268 / sqrt(3) = 5097 ns) is above half the
    # module's 2000 ns: agreement is not shown
    pairs = [(2000, 2100), (2000, 1990), (2000, 2500)]
    assert run("trust", "verdict", 1000, 5, *phases(pairs)).startswith("too-noisy ")
    t = json.loads(run("trust", "json", 1000, 5, *phases(pairs)))["methods"][0]["trust"]
    assert t["verdict"] == "too-noisy" and t["disagree"] is False and "clocks" in t


def test_one_clock_or_one_phase_is_not_judged():
    assert run("trust", "verdict", 200, 5).startswith(
        "not judged one clock only: the program keeps no periods of its own")
    assert run("trust", "verdict", 200, 5, "2000:2000").startswith("not judged 1 phases")
    # the empty programs: the module's phases, no program clock; its figures still in the JSON
    out = run("trust", "verdict", 200, 5, "2000:nan", "2002:nan")
    assert out.startswith("not judged one clock only"), out
    t = json.loads(run("trust", "json", 200, 5, "2000:nan", "2002:nan"))["methods"][0]["trust"]
    assert t["verdict"] == "not judged" and t["clocks"]["module_ns_per_set"] == 2001
    assert t["clocks"]["program_phases_ns"] == [None, None]
    assert t["clocks"]["program_ns_per_set"] is None
    sys.path.insert(0, os.path.join(ROOT, "host"))
    import overhead  # host/overhead.py
    d = json.loads(run("trust", "json", 200, 5, "2000:nan", "2002:nan"))
    line = [l for l in overhead.table(d).splitlines() if l.startswith("  bpf-gpiolat-tracepoint ")]
    assert line == ["  bpf-gpiolat-tracepoint   not judged (one clock only: the program keeps no "
                    "periods of its own): module 2001.0 (sd 1.4, 40 batches)"], line


def test_false_alarm_rate_is_at_most_one_in_a_thousand():
    # noise only, the program's clock off by the module's fixed part up to the whole allowance
    # (40 ns here): the rate of DISAGREE, 200000 rows each
    for reps, off, seed in ((3, 0, 1), (3, 40, 2), (5, -40, 3), (2, 40, 4)):
        w = run("trust-sim", 200000, reps, 10, off, seed).split()
        assert w[0] == "false_alarm" and float(w[1]) <= 0.001, (reps, off, w)
    # and it sees a clock that is off by more: 150 ns with sd 10 over 5 phases, against a limit
    # of 40 + 8.61 x 10 sqrt(2) / sqrt(5) = 94 ns at the true sd (the sample sd, 4 degrees of
    # freedom, makes it wider in some rows: 0.4 % of them here)
    w = run("trust-sim", 20000, 5, 10, 150, 5).split()
    assert float(w[1]) > 0.99


def test_json_and_text_carry_the_verdict():
    d = json.loads(run("trust", "json", 166, 5, *phases(ICOUNT)))
    t = d["methods"][0]["trust"]
    assert t["verdict"] == "agree" and t["disagree"] is False and "disagree_why" not in t
    c = t["clocks"]
    assert c["quantity"] == "traced ns per set" and c["phases"] == 3
    assert c["module_phases_ns"] == [m for m, _ in ICOUNT]
    assert c["program_phases_ns"] == [p for _, p in ICOUNT]
    assert c["allowance_ns"] == pytest.approx(166 / 5)
    assert c["program_clock_scale"] == 1
    broken = [(m, 2 * p) for m, p in ICOUNT]
    t = json.loads(run("trust", "json", 166, 5, *phases(broken)))["methods"][0]["trust"]
    assert t["verdict"] == "DISAGREE" and t["disagree"] is True
    assert t["disagree_why"].startswith("program - module +")
    t = json.loads(run("trust", "json", 166, 5))["methods"][0]["trust"]
    assert t["verdict"] == "not judged" and t["disagree"] is False and "clocks" not in t
    text = run("trust", "text", 166, 5, *phases(broken))
    assert "bpf-gpiolat-tracepoint   DISAGREE   traced ns per set: module" in text


def test_host_table_shows_the_verdict_and_reads_older_files():
    """host/overhead.py's trust section: the loader's verdict and both clocks' figures; a file
    from before the verdict (only "disagree") still reads"""
    sys.path.insert(0, os.path.join(ROOT, "host"))
    import overhead  # host/overhead.py
    broken = [(m, 1.5 * p) for m, p in ICOUNT]
    for pairs, word in ((ICOUNT, "agree"), (broken, "DISAGREE")):
        d = json.loads(run("trust", "json", 166, 5, *phases(pairs)))
        line = [l for l in overhead.table(d).splitlines()
                if l.startswith("  bpf-gpiolat-tracepoint ")]
        assert len(line) == 1 and line[0].split()[1] == word, line
        assert "module 1999.5 (sd 0.2, 60 batches)" in line[0]
    old = json.load(open(os.path.join(ROOT, "tests", "host", "data", "report", "overhead.json")))
    rows = [l for l in overhead.table(old).splitlines()
            if l.startswith("  bpf-gpiolat-tracepoint ")]
    assert rows and rows[-1].split()[1] in ("agree", "DISAGREE"), rows
