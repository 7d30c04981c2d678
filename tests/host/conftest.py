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
