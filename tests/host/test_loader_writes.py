"""gpiolat never loses its results silently and never waits on a file argument.

Every write of results is checked (loader/core/cli.c, cli_output_done): stdout on /dev/full, or
closed, is one line on stderr and a non-zero exit, never exit 0 with nothing written. Every
file argument of every mode (--btf, --baseline, --kmod, --bpftrace-script: the argp tables of
loader/) that is not a regular file is refused in one line, status 2, at once (loader/core/
files.c): a FIFO without a writer would have held the run forever, so each run is bounded by a
timeout and a regression fails instead of hanging.

On this host as root (conftest.py's gpiolat_root): --syscall-cost and --self-test run here.
"""
import os
import subprocess

import pytest

from test_loader_cli import GPIOLAT, one_line_error

pytestmark = pytest.mark.usefixtures("gpiolat_root")

# a refused argument is said before anything is loaded: well under a second here; 20 s is a
# hang, not a slow machine
TIMEOUT = 20

# every file argument of every mode, with the mode's flag ([] is the default histogram mode)
FILE_ARGS = [
    ([], "--btf"),
    (["--overhead"], "--btf"),
    (["--overhead"], "--baseline"),
    (["--overhead"], "--kmod"),
    (["--path"], "--kmod"),
    (["--wakeup"], "--btf"),
    (["--gaps"], "--btf"),
    (["--syscall-cost"], "--bpftrace-script"),
    (["--syscall-hist"], "--bpftrace-script"),
]


def run(args, stdout=subprocess.PIPE):
    return subprocess.run([GPIOLAT, *args], stdout=stdout, stderr=subprocess.PIPE, text=True,
                          timeout=TIMEOUT)


@pytest.mark.parametrize("mode,opt", FILE_ARGS, ids=lambda v: " ".join(v) if isinstance(v, list)
                         else v)
def test_fifo_file_argument_is_refused_at_once(tmp_path, mode, opt):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    one_line_error(run([*mode, opt, str(fifo)]), 2, opt, f"{fifo} is a FIFO",
                   "not a regular file")


@pytest.mark.parametrize("mode,opt", FILE_ARGS, ids=lambda v: " ".join(v) if isinstance(v, list)
                         else v)
def test_directory_file_argument_is_refused(tmp_path, mode, opt):
    one_line_error(run([*mode, opt, str(tmp_path)]), 2, opt, f"{tmp_path} is a directory")


@pytest.mark.parametrize("mode,opt", [([], "--btf"), (["--overhead"], "--baseline")])
def test_device_file_argument_is_refused(mode, opt):
    one_line_error(run([*mode, opt, "/dev/null"]), 2, opt,
                   "/dev/null is a character device")


def test_missing_file_argument_says_why(tmp_path):
    one_line_error(run(["--btf", str(tmp_path / "none")]), 2, "--btf", "No such file")


def stderr_line(r):
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("gpiolat: "), lines[0]
    return lines[0]


def test_syscall_cost_json_to_dev_full_fails():
    # the whole JSON document is written at the end, into a device that takes nothing
    with open("/dev/full", "w") as full:
        r = run(["--syscall-cost", "--rounds", "1", "--json"], stdout=full)
    assert r.returncode == 1, r.stderr
    assert stderr_line(r) == ("gpiolat: writing the results to stdout failed: "
                              "No space left on device")


def test_syscall_cost_text_to_dev_full_fails():
    with open("/dev/full", "w") as full:
        r = run(["--syscall-cost", "--rounds", "1"], stdout=full)
    assert r.returncode == 1, r.stderr
    assert stderr_line(r) == ("gpiolat: writing the results to stdout failed: "
                              "No space left on device")


def test_syscall_cost_closed_stdout_is_refused():
    # with fd 1 closed, the first file opened would have become stdout and got the results
    r = subprocess.run(f"exec {GPIOLAT} --syscall-cost --rounds 1 --json >&-", shell=True,
                       capture_output=True, text=True, timeout=TIMEOUT * 6)
    assert r.returncode == 1, r.stderr
    assert "stdout is closed" in stderr_line(r)


def test_help_to_dev_full_fails():
    with open("/dev/full", "w") as full:
        r = run(["--help"], stdout=full)
    assert r.returncode == 1
    # results_out.h's one line, with the first failed write's why (test_results_out.py: every
    # size and way of flushing)
    assert stderr_line(r) == ("gpiolat: writing the results to stdout failed: "
                              "No space left on device")


def test_closed_stderr_is_not_reused():
    # stderr closed: /dev/null takes its place, and the run is what it is with it open
    ref = run(["--self-test"])
    r = subprocess.run(f"exec {GPIOLAT} --self-test 2>&-", shell=True, capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == ref.returncode
    assert r.stdout == ref.stdout


def test_results_written_in_full_still_exit_0(tmp_path):
    out = tmp_path / "out.json"
    with open(out, "w") as f:
        r = run(["--help"], stdout=f)
    assert r.returncode == 0, r.stderr
    assert "--btf" in out.read_text()


@pytest.mark.parametrize("prog,args", [("utoggle", ["-c", "5"]), ("mmtoggle", ["x", "1", "5"])])
def test_toggler_closed_stdout_is_refused(prog, args):
    # the togglers print their results on stdout: with fd 1 closed, the chip or /dev/mem opened
    # next would have become fd 1; refused before anything is opened (no GPIO chip needed)
    path = os.path.join(os.path.dirname(os.path.realpath(GPIOLAT)), prog)
    if not os.access(path, os.X_OK):
        pytest.skip(f"{path} is not built (make togglers)")
    r = subprocess.run(f"exec {path} {' '.join(args)} >&-", shell=True, capture_output=True,
                       text=True, timeout=TIMEOUT)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [f"{prog}: stdout is closed: the results would be lost"]
