"""The host tests' shared fixtures: what a test needs built or allowed before it runs.

    test_hist       out/build/test-hist, made (the loader's printing and statistics functions)
    test_overhead   out/build/test-overhead, made (--overhead's statistics and method table)
    gpiolat_root    ./gpiolat (or $GPIOLAT) as root: skipped when it is not built or not root

A test module takes one for every test with pytestmark = pytest.mark.usefixtures("NAME"), or as
an argument (the fixture's value is the program's path).
"""
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))


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


# tests/run.sh runs the host tests in parallel with pytest-xdist (--dist loadgroup) where it is
# installed: each file's tests stay in one worker (its module fixtures run once), and the files
# that boot a target, run make or a build, or time this host's own work share one group, run
# one after another (two boots or builds at once would race for out/ and the two cores)
SERIAL = {
    "test_bpf_histograms.py", "test_compare.py", "test_deb.py", "test_debian13.py",
    "test_foreign_root.py", "test_graph_measuring.py", "test_include_graph.py",
    "test_install.py", "test_kernels.py", "test_loader_cli.py", "test_loader_writes.py",
    "test_make_test_by_name.py", "test_man_page.py", "test_pl061_observer.py",
    "test_pl061_trace.py", "test_report_html.py", "test_results.py", "test_syscall_cost.py",
    "test_trust_check.py", "test_trust_observer.py", "test_vm_run.py", "test_run_sh.py",
}


# make test's schedule (tests/run.sh, tests/README) runs the host tests in two parts, by
# GPIOLAT_HOST_PART: "free" (the files outside SERIAL: pure functions, reports and checks of
# files; nothing there boots, builds or reads a clock it compares) beside the deterministic
# boots, whose figures do not depend on this host's load, and "serial" (SERIAL, one after
# another) alone; unset: every test, as make test-host and T= run them
PART = os.environ.get("GPIOLAT_HOST_PART", "")


# tryfirst: before pytest-xdist's own hook, which reads the xdist_group marks into the node ids
# (run after it, as it did until 2026-11-26, the marks came too late and every file went to
# either worker: the serial group was not one worker's)
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    if PART in ("free", "serial"):
        keep, drop = [], []
        for item in items:
            serial = os.path.basename(item.nodeid.split("::")[0]) in SERIAL
            (keep if serial == (PART == "serial") else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        f = os.path.basename(item.nodeid.split("::")[0])
        item.add_marker(pytest.mark.xdist_group("serial" if f in SERIAL else f))
