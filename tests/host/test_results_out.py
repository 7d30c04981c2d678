"""Every failed write of a report keeps its reason (common/results_out.c, gpiolat's and the
togglers' stdout), wherever it failed.

out/build/test-results-out (loader/test/test-results-out.c, made here) writes a report through
results_out as gpiolat does: small (1000 bytes) or larger than stdout's buffer (70000, 200000
bytes: RESULTS_OUT_BUF is 64 KiB, so printf flushes inside), with nothing flushed before the
end, flushed every 2000 bytes and at the end (an interval's histograms), or flushed before a
fork (a worker, a command). Into /dev/full each is one line with the errno's reason and status
1, also where the last write that failed was a flush made on purpose; into a file, every byte
and status 0. gpiolat's own reports to /dev/full: test_loader_cli.py (its BPF programs load in this host's
kernel).
"""
import subprocess

import pytest

from conftest import make

SIZES = [1000, 70000, 200000]
MODES = ["end", "flush", "fork"]
LINE = "test-results-out: writing the results to stdout failed: No space left on device"


@pytest.fixture(scope="module")
def driver():
    return make("out/build/test-results-out")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES)
def test_a_report_into_dev_full_says_why(driver, size, mode):
    with open("/dev/full", "w") as full:
        r = subprocess.run([driver, str(size), mode], stdout=full, stderr=subprocess.PIPE,
                           text=True, timeout=30)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [LINE]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("size", SIZES)
def test_a_report_into_a_file_is_whole(driver, tmp_path, size, mode):
    out = tmp_path / "out"
    with open(out, "w") as f:
        r = subprocess.run([driver, str(size), mode], stdout=f, stderr=subprocess.PIPE,
                           text=True, timeout=30)
    assert (r.returncode, r.stderr) == (0, "")
    data = out.read_bytes()
    assert len(data) == size
    assert data.count(b"\n") == size // 100 and set(data) == {ord("x"), ord("\n")}
