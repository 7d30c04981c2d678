"""host/overhead.py's caveat says what the run's nanosecond is, as the page does: with the
emulated target's TIMING (its third argument, from host/overhead-report.sh) overhead.txt,
overhead.csv and overhead.json carry results.caveat(timing); icount's clause only in icount."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host"))
import results  # noqa: E402

FIXTURE = os.path.join(ROOT, "tests", "host", "data", "report", "overhead.json")


def run(out, *timing):
    return subprocess.run([sys.executable, os.path.join(ROOT, "host", "overhead.py"), FIXTURE,
                           str(out), *timing], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("timing", ["icount", "real"])
def test_every_file_has_the_caveat_of_its_timing(tmp_path, timing):
    assert json.load(open(FIXTURE))["emulated"]
    r = run(tmp_path, timing)
    assert r.returncode == 0, r.stderr
    want = results.caveat(timing)
    txt = (tmp_path / "overhead.txt").read_text()
    csv = (tmp_path / "overhead.csv").read_text().splitlines()[0]
    doc = json.load(open(tmp_path / "overhead.json"))
    assert want in txt.splitlines()
    assert csv.endswith("; " + want)
    assert doc["caveat"] == want and doc["timing"] == timing
    assert (results.ICOUNT in txt) == (timing == "icount")


def test_a_bad_timing_is_a_usage_error(tmp_path):
    r = run(tmp_path, "fast")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "overhead.txt").exists()
