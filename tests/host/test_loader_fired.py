"""--overhead's fired check (loader/modes/overhead/ov_fired.c, docs/overhead.md "Fired"), through
out/build/test-overhead: a row whose own count of its method covers fewer sets than its phases
ran prints no figure, "not measured: fired on k of n sets" with the phases that fell short, in
the text and the JSON; a row that fired on every set keeps its figure and says so; the test-only
GPIOLAT_WITHHOLD list; and the host's wording of such a row (host/results.py why_not)."""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROJ = os.path.dirname(os.path.dirname(HERE))
TEST_OV = os.path.join(PROJ, "out", "build", "test-overhead")
sys.path.insert(0, os.path.join(PROJ, "host"))
import results  # noqa: E402  host/results.py

pytestmark = pytest.mark.usefixtures("test_overhead")


def run(*args):
    r = subprocess.run([TEST_OV, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def row_line(text, name):
    return [ln for ln in text.splitlines() if ln.startswith(name + " ")]


def test_every_set_fired_keeps_the_figure_and_says_so():
    out = run("fired", "text", "kprobe", "100:100", "100:100", "100:100")
    (ln,) = row_line(out, "kprobe")
    assert "500.0" in ln and "not measured" not in ln
    assert "kprobe" in out.split("fired (")[1] and "fired on 300 of 300 sets" in out
    d = json.loads(run("fired", "json", "kprobe", "100:100", "100:100", "100:100"))
    (r,) = d["methods"]
    assert r["measured"] is True and r["overhead_ns"] == 500
    assert r["fired"] == {"counted": True, "by": "the test's count", "sets": 300,
                          "fired_sets": 300,
                          "phases": [{"sets": 100, "fired_sets": 100}] * 3}


def test_a_short_phase_prints_no_figure():
    # the 6.12 case: bpftrace's kprobe in for part of each phase
    out = run("fired", "text", "bpftrace-dt-kprobe", "100:30", "100:100", "100:20")
    (ln,) = row_line(out, "bpftrace-dt-kprobe")
    assert ln.split(None, 1)[1].startswith("not measured: fired on 150 of 300 sets")
    assert "phase 1 (30 of 100)" in ln and "3 (20 of 100)" in ln and " 2 (" not in ln
    assert "500" not in ln and "ns" not in ln.split("(")[0]
    d = json.loads(run("fired", "json", "bpftrace-dt-kprobe", "100:30", "100:100", "100:20"))
    (r,) = d["methods"]
    assert r["measured"] is False and "overhead_ns" not in r and "not_available" not in r
    assert r["not_measured"].startswith("fired on 150 of 300 sets")
    assert r["fired"]["fired_sets"] == 150 and r["fired"]["sets"] == 300
    # the host says it the same way (text report, CSV, page)
    assert results.why_not(r).startswith("not measured: fired on 150 of 300 sets")


def test_one_set_short_is_enough():
    d = json.loads(run("fired", "json", "event", "100:100", "100:99"))
    assert d["methods"][0]["measured"] is False


def test_no_count_keeps_the_figure_and_says_why():
    d = json.loads(run("fired", "json", "user-ioctl-strace", "-"))
    (r,) = d["methods"]
    assert r["measured"] is True
    assert r["fired"] == {"counted": False, "why": "the test's row keeps no count"}


def test_no_count_under_icount_is_held_to_the_sd_bound():
    """TIMING=icount: a row without a count keeps its figure only when its repetitions repeat
    (sd <= 10 ns + 5 % of |mean|: 35 ns at the test row's 500 ns); in real time it keeps it"""
    d = json.loads(run("fired", "json", "user-ioctl-strace", "-", "icount-sd=11.8"))
    assert d["methods"][0]["measured"] is True
    d = json.loads(run("fired", "json", "user-ioctl-strace", "-", "icount-sd=36"))
    (r,) = d["methods"]
    assert r["measured"] is False and "overhead_ns" not in r
    assert "sd 36.0 ns is above 35.0 ns under TIMING=icount" in r["not_measured"]
    d = json.loads(run("fired", "json", "user-ioctl-strace", "-"))
    assert d["methods"][0]["measured"] is True


def test_not_available_is_still_said_as_such():
    assert results.why_not({"method": "ply-delta", "measured": False,
                            "not_available": "ply is not installed"}) == \
        "not available: ply is not installed"


@pytest.mark.parametrize("lst,name,rep,want", [
    ("bpftrace-dt-kprobe:2", "bpftrace-dt-kprobe", 2, "yes"),
    ("bpftrace-dt-kprobe:2", "bpftrace-dt-kprobe", 1, "no"),
    ("event:1,kprobe:3", "kprobe", 3, "yes"),
    ("event:1,kprobe:3", "kprobe", 1, "no"),
    ("event:1", "event-filter", 1, "no"),  # a name, not a prefix
    ("event-filter:1", "event", 1, "no"),
    ("kprobe:12", "kprobe", 1, "no"),
    ("kprobe:1x", "kprobe", 1, "no"),
    ("", "kprobe", 1, "no"),
])
def test_withheld_list(lst, name, rep, want):
    assert run("withheld", lst, name, rep).strip() == want
