"""The histogram mode's counters as printed (loader/core/hist.c through out/build/test-hist).

start_lost (a start that could not be stored) cannot happen: the start is a plain array slot of
the line (bpf/gpiolat.bpf.c never counts it). The text output must not claim a count of it; the
JSON keeps the field, as 0, for the output format's sake (docs/output-format.md).
"""
import json
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TEST_HIST = os.path.join(ROOT, "out", "build", "test-hist")


pytestmark = pytest.mark.usefixtures("test_hist")


def hist(mode, lines):
    return subprocess.run([TEST_HIST, mode], input="".join(f"{s}\n" for s in lines),
                          capture_output=True, text=True, check=True).stdout


def test_rising_again_printed_without_a_start_lost_count():
    out = hist("text", [1500, 3000, "rising_again 2"])
    assert "2 rising edges while already high (first kept)" in out
    assert "lost" not in out


def test_no_counter_line_when_nothing_to_say():
    out = hist("text", [1500, 3000])
    assert "rising edges while already high" not in out


def test_json_keeps_start_lost_as_zero():
    out = json.loads(hist("json", [1500, "rising_again 1"]))
    assert out["start_lost"] == 0
    assert out["rising_again"] == 1

