"""The host tests' shared fixtures: what a test needs built or allowed before it runs.

    test_hist       out/build/test-hist, made (the loader's printing and statistics functions)
    test_overhead   out/build/test-overhead, made (--overhead's statistics and method table)
    gpiolat_root    ./gpiolat (or $GPIOLAT) as root: skipped when it is not built or not root

and two helpers to import: make(TARGET) and one_line(R, STATUS, WORDS...), a command's one
error line.

A test module takes one for every test with pytestmark = pytest.mark.usefixtures("NAME"), or as
an argument (the fixture's value is the program's path).
"""
import contextlib
import fcntl
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))


def one_line(r, status, *words):
    """R (a finished subprocess.run, text) exited STATUS with one line on stderr holding every
    one of WORDS; that line"""
    lines = r.stderr.splitlines()
    assert r.returncode == status, r.stderr
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def make(target):
    """make TARGET in the checkout (quietly); a failed build fails the test with its output"""
    r = subprocess.run(["make", "-s", "-C", ROOT, target], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return os.path.join(ROOT, target)


@pytest.fixture(scope="session")
def test_hist():
    return make("out/build/test-hist")


@pytest.fixture(scope="session")
def test_overhead():
    return make("out/build/test-overhead")


@pytest.fixture(scope="session")
def gpiolat_root():
    if not os.access(GPIOLAT, os.X_OK):
        pytest.skip("./gpiolat is not built (make loader)")
    if os.geteuid() != 0:
        pytest.skip("needs root, like gpiolat")
    return GPIOLAT


# Why a file cannot run anywhere, any time (tests/README, the schedule). make test runs the host
# tests in three parts (GPIOLAT_HOST_PART): "serial", after the deterministic boots, two
# workers; "free", beside it (every target and test helper is made by then, so a file's own make
# is a no-op there), four workers; "alone", after them, one worker, nothing else on the
# machine. Unset (make test-host, T=): every selected test, two workers. In every part a
# group's files run one after another in one worker, each other file in a worker of its own.
#
# SERIAL: file -> its xdist group; its part is "alone" for the group "alone", else "serial"
#   roots   write into a Debian root the 6.12 and testing targets boot (out/roots/trixie: apt,
#           DKMS, a build inside: test_deb, test_debian13) or build in one (test_kernels, by
#           host/inroot.sh): not beside those boots, nor beside each other (one apt at a time)
#   boot    boot a target with vm/run (real time, or the ARM observer in icount): not beside the
#           lanes' two boots (the host's two cores), but beside each other and the roots group
#   alone   time this host's own kernel (--syscall-cost's controls and comparisons), or run it
#           within a bound of the host's clock (test_loader_writes: --syscall-cost in 20 s): alone
# HOST_KERNEL: the files that load gpiolat's programs into this host's kernel and check what is
# left there (bpftool): one after another wherever they run (one group), else one file's check
# sees the other's programs; and in the free part each of their tests takes its turn with the
# serial part's one that does the same (test_debian13's run of test_loader_cli.py in a Debian 13
# root, on this kernel): host_kernel_turn
SERIAL = {
    "test_deb.py": "roots", "test_debian13.py": "roots", "test_kernels.py": "roots",
    "test_vm_run.py": "boot-vm-run", "test_pl061_observer.py": "boot-observer",
    "test_syscall_cost.py": "alone", "test_loader_writes.py": "alone",
}
HOST_KERNEL = {
    "test_loader_cli.py", "test_loader_writes.py", "test_syscall_clock_order.py",
    "test_syscall_cost.py", "test_undo_journal.py",
}
PART = os.environ.get("GPIOLAT_HOST_PART", "")


def file_of(nodeid):
    """the file name of a pytest node id (tests/host/test_x.py::test_y[p]: test_x.py)"""
    return os.path.basename(nodeid.split("::")[0])


def part_of(f):
    """the part of make test's schedule a test file runs in"""
    if f not in SERIAL:
        return "free"
    return "alone" if SERIAL[f] == "alone" else "serial"


# tryfirst: before pytest-xdist's own hook, which reads the xdist_group marks into the node ids
# (run after it, as it did until 2026-11-26, the marks came too late and every file went to
# either worker: the serial group was not one worker's)
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if PART in ("free", "serial", "alone"):
        keep, drop = [], []
        for item in items:
            f = file_of(item.nodeid)
            (keep if part_of(f) == PART else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        f = file_of(item.nodeid)
        group = "host-kernel" if f in HOST_KERNEL else SERIAL.get(f, f)
        # test_deb's armhf half writes only out/roots/trixie-armhf, which no other file of the
        # roots group writes: a group of its own, beside the rest (its make deb takes turns
        # with the amd64 half's: test_deb.py); measured 264 s of the serial part's 495, after
        # the amd64 half's 168 s in the one worker of the roots group
        if f == "test_deb.py" and "[armhf]" in item.nodeid:
            group = "roots-armhf"
        item.add_marker(pytest.mark.xdist_group(group))


@contextlib.contextmanager
def host_kernel_lock():
    """this host's kernel to one test of the parts that run at once (make test's free and serial
    parts: two pytest runs, a flock on out/tests/host-kernel.lock), while it loads gpiolat's
    programs and checks what is left there"""
    os.makedirs(os.path.join(ROOT, "out", "tests"), exist_ok=True)
    with open(os.path.join(ROOT, "out", "tests", "host-kernel.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(autouse=True)
def host_kernel_turn(request):
    """in make test's free part (beside the serial part), a HOST_KERNEL file's test holds
    host_kernel_lock"""
    if PART != "free" or file_of(request.node.nodeid) not in HOST_KERNEL:
        yield
        return
    with host_kernel_lock():
        yield
