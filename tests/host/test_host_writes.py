"""The host's writers of results (host/*.py) never lose them silently and never wait on a file.

host/results.py holds the one way: read_text/open_text refuse a FIFO, device or directory
without opening it; write_text refuses an output path that is there and not a regular file and
writes whole or raises; run_main refuses a closed stdout, flushes it at the end and turns a
failed write into one line and status 1. Each script is run here on its checked-in inputs
(tests/host/data/report), each run bounded by a timeout so that a FIFO that blocks fails the
test instead of hanging it.
"""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import one_line

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPORT = os.path.join(ROOT, "tests", "host", "data", "report")
sys.path.insert(0, os.path.join(ROOT, "host"))
import results  # noqa: E402

TIMEOUT = 60


def script(name, *args, stdout=subprocess.PIPE, shell_redirect=""):
    cmd = [sys.executable, os.path.join(ROOT, "host", name), *map(str, args)]
    if shell_redirect:
        return subprocess.run(" ".join(f"'{c}'" for c in cmd) + " " + shell_redirect,
                              shell=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=TIMEOUT)
    return subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT)


# ---- the helpers -----------------------------------------------------------------------------
def test_read_text_refuses_a_fifo_without_waiting(tmp_path):
    fifo = tmp_path / "in.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as e:
        results.read_text(str(fifo))
    assert e.value.filename == str(fifo)
    assert e.value.strerror == "a FIFO, not a regular file"


def test_load_refuses_a_directory(tmp_path):
    with pytest.raises(results.BadResults, match="a directory, not a regular file"):
        results.load(str(tmp_path), "overhead", missing_ok=False)


def test_write_text_refuses_a_fifo_and_leaves_it(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="FIFO"):
        results.write_text(str(fifo), "{}")
    assert os.path.exists(fifo) and not os.path.isfile(fifo)
    assert sorted(os.listdir(tmp_path)) == ["out.json"]


def test_write_text_writes_whole_with_the_umask(tmp_path):
    p = tmp_path / "out.txt"
    p.write_text("old")
    mask = os.umask(0o022)
    try:
        results.write_text(str(p), "new\n")
    finally:
        os.umask(mask)
    assert p.read_text() == "new\n"
    assert oct(os.stat(p).st_mode & 0o777) == oct(0o644)
    assert sorted(os.listdir(tmp_path)) == ["out.txt"]


# ---- the scripts -----------------------------------------------------------------------------
def test_overhead_py_stdout_on_dev_full_fails(tmp_path):
    with open("/dev/full", "w") as full:
        r = script("overhead.py", os.path.join(REPORT, "overhead.json"), tmp_path, stdout=full)
    one_line(r, 1, "overhead.py: ", "No space left on device")


def test_overhead_py_closed_stdout_is_refused(tmp_path):
    r = script("overhead.py", os.path.join(REPORT, "overhead.json"), tmp_path,
               shell_redirect=">&-")
    one_line(r, 1, "overhead.py: stdout is closed")
    assert os.listdir(tmp_path) == []


def test_overhead_py_fifo_input_is_refused(tmp_path):
    fifo = tmp_path / "raw.json"
    os.mkfifo(fifo)
    r = script("overhead.py", fifo, tmp_path / "out")
    one_line(r, 1, str(fifo), "a FIFO, not a regular file")


def test_overhead_py_fifo_output_is_refused(tmp_path):
    os.mkfifo(tmp_path / "overhead.txt")
    r = script("overhead.py", os.path.join(REPORT, "overhead.json"), tmp_path)
    one_line(r, 1, "overhead.txt", "a FIFO, not a regular file")


def test_overhead_py_writes_in_full(tmp_path):
    r = script("overhead.py", os.path.join(REPORT, "overhead.json"), tmp_path)
    assert r.returncode == 0, r.stderr
    for f in ("overhead.json", "overhead.txt", "overhead.csv"):
        assert os.path.getsize(tmp_path / f) > 0
    assert (tmp_path / "overhead.txt").read_text() == r.stdout


def test_report_py_stdout_on_dev_full_fails(tmp_path):
    with open("/dev/full", "w") as full:
        r = script("report.py", os.path.join(REPORT, "raw"), tmp_path, stdout=full)
    one_line(r, 1, "report.py: ", "No space left on device")


def test_report_html_fifo_output_is_refused(tmp_path):
    res = tmp_path / "res"
    shutil.copytree(REPORT, res)
    os.mkfifo(tmp_path / "page.html")
    r = script("report_html.py", res, tmp_path / "page.html")
    one_line(r, 1, "page.html", "a FIFO, not a regular file")


def test_gpio_path_plot_fifo_png_is_refused(tmp_path):
    png = tmp_path / "path.png"
    os.mkfifo(png)
    r = script("gpio_path_plot.py", os.path.join(REPORT, "gpio-path.json"), png)
    one_line(r, 1, "path.png", "a FIFO, not a regular file")
