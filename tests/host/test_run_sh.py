"""Host side: tests/run.sh's own verdict (its pass/fail count over pytest's exit status)."""
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_host(tmp_path, files):
    # a copy of tests/run.sh in a tree whose tests/host holds only FILES
    (tmp_path / "tests" / "host").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "tests", "run.sh"), tmp_path / "tests" / "run.sh")
    for name, text in files.items():
        (tmp_path / "tests" / "host" / name).write_text(text)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(["sh", str(tmp_path / "tests" / "run.sh"), "host"], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def test_no_host_test_collected_is_a_failure(tmp_path):
    # pytest exits 5 when it collects nothing: the run must not count that as a pass
    r = run_host(tmp_path, {"test_empty.py": "# no test here\n"})
    assert r.returncode != 0, r.stdout
    assert "not ok - pytest collected no host test" in r.stdout
    assert r.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped"


def test_passing_and_failing_host_tests_are_counted(tmp_path):
    ok = run_host(tmp_path / "a", {"test_one.py": "def test_one():\n    assert 1 + 1 == 2\n"})
    assert ok.returncode == 0, ok.stdout
    assert ok.stdout.splitlines()[-1] == "1 passed, 0 failed, 0 skipped"
    bad = run_host(tmp_path / "b", {"test_one.py": "def test_one():\n    assert 1 + 1 == 3\n"})
    assert bad.returncode != 0
    assert bad.stdout.splitlines()[-1] == "0 passed, 1 failed, 0 skipped"
