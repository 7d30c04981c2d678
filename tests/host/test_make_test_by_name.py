"""make test T=NAME (tests/README): one test by name. What a T selects is checked with
tests/run.sh --list (no build, no boot); a T that names no test stops make with one line and
status 2, before anything is built."""
import glob
import os
import signal
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET_TESTS = sorted(f for f in os.listdir(os.path.join(ROOT, "tests", "target"))
                      if f[0].isdigit() and f.endswith(".sh"))


def listing(t, part="all", **env):
    e = dict(os.environ, T=t, PYTHONDONTWRITEBYTECODE="1", **env)
    for k in ("KERNEL", "ARCH"):
        if k not in env:
            e.pop(k, None)
    r = subprocess.run(["sh", "tests/run.sh", "--list", part], cwd=ROOT, env=e,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout.splitlines(), r.stderr.splitlines()


def make(*args):
    # in a session of its own: a make that does not stop (a T it runs instead of refusing)
    # is ended with everything it started
    p = subprocess.Popen(["make", "-s", *args], cwd=ROOT, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise
    return subprocess.CompletedProcess(p.args, p.returncode, out, err)


@pytest.mark.parametrize("t", ["30-gpiolat-counts", "30-gpiolat-counts.sh",
                               "tests/target/30-gpiolat-counts.sh", "30"],
                         ids=["name", "file", "path", "prefix"])
def test_a_target_test_by_name_is_that_test_alone(t):
    assert listing(t) == (0, ["std tests/target/30-gpiolat-counts.sh"], [])


@pytest.mark.parametrize("kernel, arch, name", [("6.12", "x86_64", "6.12"), ("std", "arm", "arm"),
                                                ("6.12-rt", "arm64", "arm64-6.12-rt")])
def test_a_target_test_runs_on_the_target_of_kernel_and_arch(kernel, arch, name):
    rc, out, err = listing("05-kernel-smoke", "target", KERNEL=kernel, ARCH=arch)
    assert (rc, out, err) == (0, [name + " tests/target/05-kernel-smoke.sh"], [])


@pytest.mark.parametrize("t", ["test_run_sh", "test_run_sh.py", "tests/host/test_run_sh.py"])
def test_a_host_test_file_by_name_is_its_tests_alone(t):
    rc, out, err = listing(t, "host")
    assert rc == 0 and err == []
    assert out == ["tests/host/test_run_sh.py::test_no_host_test_collected_is_a_failure",
                   "tests/host/test_run_sh.py::test_passing_and_failing_host_tests_are_counted",
                   "tests/host/test_run_sh.py::test_one_boot_runs_the_list_and_a_hang_costs_one_test",
                   "tests/host/test_run_sh.py::"
                   "test_two_lanes_count_each_test_and_a_hang_costs_its_boot_only",
                   "tests/host/test_run_sh.py::test_lanes_that_pass_exit_0_with_the_summary",
                   "tests/host/test_run_sh.py::test_make_test_runs_each_host_test_once_in_its_part"]


def test_a_host_test_by_node_id_or_k_expression():
    node = "tests/host/test_run_sh.py::test_no_host_test_collected_is_a_failure"
    assert listing(node, "host") == (0, [node], [])
    assert listing("test_no_host_test_collected", "host") == (0, [node], [])


def kernels(f):
    """the targets a test's "# kernels:" line names (none: std only)"""
    with open(os.path.join(ROOT, "tests", "target", f)) as fh:
        for line in fh:
            if line.startswith("# kernels:"):
                return line[len("# kernels:"):].split()
    return ["std"]


def test_without_t_the_tests_of_std_then_those_marked_for_the_next_target():
    rc, out, err = listing("", "target", TEST_TARGETS="rt")
    assert rc == 0 and err == []
    want = ["std tests/target/" + f for f in TARGET_TESTS if "std" in kernels(f)]
    want += ["rt tests/target/" + f for f in TARGET_TESTS if "rt" in kernels(f)]
    # then each comparison whose "# targets:" are all in the tier (std is in every tier)
    cdir = os.path.join(ROOT, "tests", "compare")
    for c in sorted(f for f in os.listdir(cdir) if f.endswith(".sh")):
        with open(os.path.join(cdir, c)) as fh:
            need = [ln[len("# targets:"):].split() for ln in fh if ln.startswith("# targets:")]
        if need and set(need[0]) <= {"std", "rt"}:
            want.append("compare tests/compare/" + c)
    assert "compare tests/compare/rt-det.sh" in want
    assert out == want and len(want) > len(TARGET_TESTS) > 20


@pytest.mark.parametrize("t, part, words", [
    ("no-such-test", "all", "no test of that name"),
    ("3", "all", "names %d target tests" % len(glob.glob(os.path.join(ROOT, "tests", "target", "3[0-9]-*.sh")))),
    ("30-gpiolat-counts", "host", "no host test of that name"),
    ("test_loader_hist", "target", "no target test of that name"),
    ("test_run_sh.py::no_such", "host", "no host test of that name"),
    ("a and (", "host", "no host test of that name"),
], ids=["unknown", "prefix-of-several", "target-for-host", "host-for-target", "unknown-node",
        "bad-k"])  # ids, not the Ts: a -k T must not select this very test
def test_a_bad_t_is_one_line_and_status_2(t, part, words):
    rc, out, err = listing(t, part)
    assert rc == 2 and out == []
    assert len(err) == 1 and err[0].startswith("tests/run.sh: T=%s: " % t) and words in err[0]


@pytest.mark.parametrize("goal", ["test", "test-host", "test-target"])
def test_make_stops_on_a_bad_t_with_one_line_before_building(goal):
    r = make(goal, "T=no-such-test")
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, r.stderr
    assert "tests/run.sh: T=no-such-test: no" in lines[0] and lines[0].endswith("Stop.")


def test_make_runs_only_the_named_test():
    # make -n: the recipe, not run; -o all -o target: the build before it neither run nor
    # printed (make -n still runs a recipe line that calls $(MAKE), as the kernel module's)
    r = make("-n", "-o", "all", "-o", "target", "test", "T=30-gpiolat-counts", "KERNEL=6.12",
             "ARCH=x86_64")
    assert r.returncode == 0, r.stderr
    assert "KERNEL=6.12 ARCH=x86_64 sh tests/run.sh" in r.stdout
    assert "for k in" not in r.stdout and "for a in arm arm64" not in r.stdout
