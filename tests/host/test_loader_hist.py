"""The loader's histogram printing, CSV and JSON (loader/core/hist.c), through out/build/test-hist.

test-hist builds one line's histogram from pulse widths given on stdin, with the plain bucket
definitions, and prints it with the loader's functions.
"""
import json
import os
import re
import statistics
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_HIST = os.path.join(ROOT, "out", "build", "test-hist")


pytestmark = pytest.mark.usefixtures("test_hist")


def hist(mode, samples, *args):
    r = subprocess.run([TEST_HIST, mode, *map(str, args)], input="".join(
        f"{s}\n" for s in samples), capture_output=True, text=True, check=True)
    return r.stdout


ROW = re.compile(r"^\s+\[(\S+), (\S+)\)\s+: (\d+)\s+\|(\**)\s*\|$")


def rows(text):
    return [(lo, hi, int(c), len(bar)) for lo, hi, c, bar in
            (m.groups() for m in map(ROW.match, text.splitlines()) if m)]


def test_log2_rows_power_of_two_bounds():
    out = hist("text", [1500, 3000, 3100, 5000])
    assert rows(out) == [("1024", "2048", 1, 20), ("2048", "4096", 2, 40),
                         ("4096", "8192", 1, 20)]


def test_empty_rows_outside_the_data_are_dropped():
    out = hist("text", [3000, 70000])
    r = rows(out)
    assert r[0][:2] == ("2048", "4096") and r[-1][:2] == ("65536", "131072")
    # empty rows between the first and the last are kept, like ply and bpftrace
    assert [x[2] for x in r] == [1, 0, 0, 0, 0, 1]


def test_zero_and_one_ns():
    r = rows(hist("text", [0, 1, 1]))
    assert r == [("0", "1", 1, 20), ("1", "2", 2, 40)]


def test_summary_line_has_units_and_exact_min_mean_max():
    out = hist("text", [1000, 2000, 3000, "unmatched 2"])
    s = [l for l in out.splitlines() if "count" in l and "pulses" in l][0]
    assert "count 3 pulses" in s
    assert "min 1000 ns" in s and "max 3000 ns" in s and "mean 2000 ns" in s
    assert "unmatched 2 falling edges" in s
    for p in ("p50", "p90", "p99"):
        assert re.search(p + r" [0-9.]+ ns", s)


def test_microseconds():
    out = hist("text", [1500, 3000], 0, "us")
    assert ("1.024", "2.048", 1, 40) in rows(out)
    assert "min 1.500 us" in out and "max 3.000 us" in out


def test_linear_buckets_and_overflow():
    out = hist("text", [50, 150, 150, 9999, 10000, 123456], 100)
    lin = out.split("linear buckets")[1]
    r = rows(lin)
    assert r[0] == ("0", "100", 1, 20)
    assert r[1] == ("100", "200", 2, 40)
    assert ("9900", "10000", 1, 20) in r
    assert r[-1][:3] == ("10000", "inf", 2)   # overflow: counted, not dropped
    assert sum(x[2] for x in r) == 6


def test_json_values():
    o = json.loads(hist("json", [1500, 3000, 3100, 250000, "unmatched 1"], 1000))
    assert o["gpio"] == 1016 and o["chip"] == "toggle-vchip" and o["offset"] == 0
    assert o["count"] == 4 and o["unmatched"] == 1
    assert o["min_ns"] == 1500 and o["max_ns"] == 250000 and o["sum_ns"] == 257600
    assert o["mean_ns"] == pytest.approx(64400)
    assert o["log2"] == [
        {"low_ns": 1024, "high_ns": 2048, "count": 1},
        {"low_ns": 2048, "high_ns": 4096, "count": 2},
        {"low_ns": 131072, "high_ns": 262144, "count": 1},
    ]
    lin = o["linear"]
    assert lin["width_ns"] == 1000
    assert lin["buckets"] == [{"low_ns": 1000, "high_ns": 2000, "count": 1},
                              {"low_ns": 3000, "high_ns": 4000, "count": 2}]
    assert lin["overflow_low_ns"] == 100000 and lin["overflow"] == 1
    assert sum(b["count"] for b in lin["buckets"]) + lin["overflow"] == o["count"]
    # quantiles: inside the bucket that holds them, within min and max
    assert 3000 <= o["p50_ns"] < 4000
    assert o["min_ns"] <= o["p50_ns"] <= o["p90_ns"] <= o["p99_ns"] <= o["max_ns"]


def test_fine_buckets_exact_below_64_ns_then_at_most_1_in_32():
    samples = [0, 1, 63, 64, 65, 541, 856, 1000, 123456, 16777215, 16777216, 10**12]
    o = json.loads(hist("json", samples))
    fine = o["fine"]
    assert sum(b["count"] for b in fine) == len(samples)
    for v in samples[:-2]:
        b = [b for b in fine if b["low_ns"] <= v < b["high_ns"]]
        assert len(b) == 1, (v, fine)
        width = b[0]["high_ns"] - b[0]["low_ns"]
        assert width == (1 if v < 64 else 1 << (v.bit_length() - 6))
        assert width <= max(1, b[0]["low_ns"] / 32)
    assert fine[-1] == {"low_ns": 16777216, "high_ns": None, "count": 2}
    # tracepoint and kprobe pulses under icount (541, 856 ns): one log2 slot, two fine buckets
    o = json.loads(hist("json", [541, 856]))
    assert len(o["log2"]) == 1
    assert [(b["low_ns"], b["high_ns"]) for b in o["fine"]] == [(528, 544), (848, 864)]


def test_log2_slots_summed_from_the_fine_buckets_as_the_map_reader_does():
    """the BPF side counts log2 slots below 2^24 ns in the fine buckets only: hist_sum_cpus
    gives back the same log2 as counting every slot"""
    samples = [0, 1, 2, 63, 64, 541, 856, 1023, 1024, 99999, 16777215, 16777216, 10**12]
    full, fromfine = json.loads(hist("json", samples)), json.loads(hist("mapjson", samples))
    assert fromfine["log2"] == full["log2"] and fromfine["fine"] == full["fine"]
    assert sum(b["count"] for b in fromfine["log2"]) == len(samples)
    assert fromfine["min_ns"] == 0 and fromfine["max_ns"] == 10**12
    for k in ("count", "events", "rising", "falling", "unmatched", "rising_again", "sum_ns",
              "mean_ns"):
        assert fromfine[k] == full[k], k


def test_counts_made_from_the_map_as_the_bpf_side_keeps_it():
    """the BPF side keeps no events, rising, falling or pairs, and min as ~min: hist_sum_cpus
    counts them from the buckets, unmatched and rising_again"""
    samples = [541, 856, 3, "unmatched 2", "rising_again 3"]
    full, frommap = json.loads(hist("json", samples)), json.loads(hist("mapjson", samples))
    for k in ("count", "events", "rising", "falling", "unmatched", "rising_again", "min_ns",
              "max_ns", "sum_ns"):
        assert frommap[k] == full[k], k
    assert frommap["count"] == 3 and frommap["events"] == 2 * 3 + 2 + 3
    assert frommap["min_ns"] == 3


def test_json_without_pulses():
    o = json.loads(hist("json", ["unmatched 3"]))
    assert o["count"] == 0 and o["unmatched"] == 3
    assert o["min_ns"] is None and o["mean_ns"] is None and o["p50_ns"] is None
    assert o["log2"] == [] and o["linear"] is None and o["fine"] == []


def test_csv_is_gnuplot_blocks():
    out = hist("csv", [1500, 3000, 150000], 1000)
    blocks = [b for b in out.split("\n\n\n") if b.strip()]
    assert len(blocks) == 3
    data = [[l for l in b.splitlines() if l and not l.startswith("#")] for b in blocks]
    log2 = [tuple(map(int, l.split())) for l in data[0]]
    assert (1024, 2048, 1) in log2 and (2048, 4096, 1) in log2 and (131072, 262144, 1) in log2
    lin = [tuple(map(int, l.split())) for l in data[1]]
    assert len(lin) == 100 and lin[1] == (1000, 2000, 1) and lin[3] == (3000, 4000, 1)
    assert "# overflow low_ns=100000 count=1" in blocks[1]
    # the fine block last (the others keep their gnuplot index), first to last non-empty
    fine = [tuple(map(int, l.split())) for l in data[2]]
    assert "kind=fine" in blocks[2] and "# overflow low_ns=16777216 count=0" in blocks[2]
    assert fine[0] == (1472, 1504, 1) and fine[-1] == (147456, 151552, 1)
    assert sum(c for _, _, c in fine) == 3
    assert all(a[1] == b[0] for a, b in zip(fine, fine[1:]))
    summary = out.splitlines()[0]
    assert summary.startswith("# summary gpio=1016 ")
    assert "count=3" in summary and "min_ns=1500" in summary and "max_ns=150000" in summary


@pytest.mark.parametrize("method,kind,value", [
    ("event", "overhead", "1190"),
    ("bpf-ply-tracepoint", "overhead", "3490"),
    ("kprobe", "overhead", "2790"),
    ("tracing-configured-rt", "pulse", "168.42"),
])
def test_embedded_baseline(method, kind, value):
    out = subprocess.run([TEST_HIST, "baseline", method, kind], capture_output=True, text=True,
                         check=True).stdout
    assert out.split()[0] == value


# --path's tables (loader/modes/path/path_out.c) through test-hist path: two-sided 95 % t, df 1..4,
# exact quantiles rounded up (loader/core/hist.c)
T95_PATH = [None, 12.707, 4.303, 3.183, 2.777]


def path(fmt, rows):
    return subprocess.run([TEST_HIST, "path", fmt], input="".join(
        f"{var} {' '.join(map(str, ns))}\n" for var, ns in rows.items()), capture_output=True,
        text=True, check=True).stdout


def test_path_rate_follows_from_the_mean_ns():
    """the rate is 1 / (2 x mean ns per set), not the mean of per-repetition rates (biased up:
    here 1000 and 3000 ns would give 333.3 kHz, the mean's rate is 250 kHz), and its interval
    is the ns interval's ends mapped through the same function"""
    ns = {"t_ioctl": [1000, 3000, 2000, 2400, 1600], "t_raw": [17, 18, 16, 17.5]}
    o = json.loads(path("json", ns))
    r = {x["variable"]: x for x in o["rows"]}["t_ioctl"]
    assert r["rate_khz"] == pytest.approx(250.0)
    assert r["rate_khz_lo95"] < 250 < r["rate_khz_hi95"] and "rate_khz_ci95" not in r
    assert r["ns_per_set_reps"] == ns["t_ioctl"]  # every figure recomputable from the JSON
    lines = [l.split(",") for l in path("csv", ns).splitlines() if l.startswith("toggler,")]
    assert path("csv", ns).splitlines()[1].split(",")[6:9] == ["rate_khz", "rate_khz_lo95",
                                                                "rate_khz_hi95"]
    for w in lines:
        x = ns[w[1]]
        m, h = statistics.mean(x), T95_PATH[len(x) - 1] * statistics.stdev(x) / len(x) ** 0.5
        assert float(w[4]) == pytest.approx(m, abs=0.05)
        assert float(w[5]) == pytest.approx(h, abs=0.05)
        assert float(w[6]) == pytest.approx(1e6 / (2 * m), rel=1e-5)
        assert float(w[7]) == pytest.approx(1e6 / (2 * (m + h)), rel=1e-5)
        assert float(w[8]) == pytest.approx(1e6 / (2 * (m - h)), rel=1e-5)
    text = [l for l in path("text", ns).splitlines() if l.startswith("t_ioctl")][0]
    assert re.search(r"± \S+\s+250\.00 \[\S+, \S+\]", text), text


def test_path_rate_interval_unbounded_when_the_ns_interval_reaches_0():
    ns = {"t_bash": [1000000, 2000000, 800000]}
    w = [l.split(",") for l in path("csv", ns).splitlines() if l.startswith("toggler,")][0]
    assert float(w[6]) == pytest.approx(1e6 / (2 * statistics.mean(ns["t_bash"])), rel=1e-5)
    assert float(w[7]) > 0 and w[8] == ""
    r = json.loads(path("json", ns))["rows"][-1]
    assert r["variable"] == "t_bash" and r["rate_khz_hi95"] is None
    assert "unbounded]" in path("text", ns)
