"""host/gpio_path_plot.py: the --path PNG drawn through host/results.py (the one model, the one
gnuplot call, its caveat), from a real --path document (tests/host/data/loader/gpio-path.json,
written by tests/host/data/regen.sh); bad input: one line, exit 1; usage: exit 2."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "host", "gpio_path_plot.py")
DOC = os.path.join(ROOT, "tests", "host", "data", "loader", "gpio-path.json")
sys.path.insert(0, os.path.join(ROOT, "host"))
import gpio_path_plot  # noqa: E402
import results  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


def test_every_measured_toggler_is_a_bar_and_only_those():
    doc = results.load(DOC, "path", missing_ok=False)
    want = [r["variable"] for r in doc["rows"] if r["available"] and r["ns_per_set"] > 0]
    got = gpio_path_plot.bars(doc)
    assert [b[0] for b in got] == want and len(want) >= 2
    for name, v, ci in got:
        (r,) = [r for r in doc["rows"] if r["variable"] == name]
        assert (v, ci) == (r["ns_per_set"], r["ns_per_set_ci95"] or 0.0)


def test_the_title_carries_the_one_caveat_when_emulated():
    assert results.TITLE in gpio_path_plot.script("d", "p.png", True)
    assert "EMULATED" not in gpio_path_plot.script("d", "p.png", False)


@pytest.mark.skipif(subprocess.run(["sh", "-c", "command -v gnuplot"],
                                   capture_output=True).returncode != 0,
                    reason="gnuplot is not installed (host/deps.sh installs it)")
def test_a_png_from_a_real_path_document(tmp_path):
    png = tmp_path / "p.png"
    r = run(DOC, str(png))
    assert r.returncode == 0 and r.stdout.strip() == str(png), r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_bad_input_one_line_and_no_png(tmp_path):
    png = tmp_path / "p.png"
    other = tmp_path / "overhead.json"
    other.write_text(json.dumps({"methods": []}))
    none = tmp_path / "none.json"
    doc = json.load(open(DOC))
    for r in doc["rows"]:
        r["available"] = False
    none.write_text(json.dumps(doc))
    for f, why in ((tmp_path / "missing.json", "No such file"), (other, "not a path file"),
                   (none, "no measured toggler")):
        r = run(str(f), str(png))
        assert r.returncode == 1 and why in r.stderr and len(r.stderr.splitlines()) == 1, r
        assert not png.exists()
    r = run(DOC)
    assert r.returncode == 2 and r.stderr.startswith("usage:")
