"""Host side: tests/run.sh's own verdict (its pass/fail count over pytest's exit status)."""
import os
import re
import shutil
import signal
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def outer_env(**extra):
    # this run's environment for the copy of tests/run.sh, without the T that selected this file
    # (make test-host T=test_run_sh exports it: the copy would look for a test of that name) and
    # the schedule's choices a caller may have exported (TEST_TIMING=real make test ran only
    # the fakes' real-time boots: three tests here failed on their counts)
    drop = {"T", "TEST_TIMING", "TEST_TARGETS", "TEST_LANES"}
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


def reap(root):
    """end every process left in ROOT (a fake boot's hang test spins on after the runner has
    stopped its boot: the fake vm/run is no qemu that takes it along): none outlives the test"""
    root = os.path.realpath(root)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cwd = os.readlink("/proc/%s/cwd" % pid)
        except OSError:
            continue
        if cwd == root or cwd.startswith(root + "/"):
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def run_sh(tmp_path, part, **env):
    """the copy of tests/run.sh in TMP_PATH on PART with ENV (no T), every process it left
    ended after it"""
    e = outer_env(**env)
    try:
        return subprocess.run(["sh", str(tmp_path / "tests" / "run.sh"), part], env=e,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=120)
    finally:
        reap(tmp_path)


def run_host(tmp_path, files):
    # a copy of tests/run.sh in a tree whose tests/host holds only FILES
    (tmp_path / "tests" / "host").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "tests", "run.sh"), tmp_path / "tests" / "run.sh")
    for name, text in files.items():
        (tmp_path / "tests" / "host" / name).write_text(text)
    env = outer_env(PYTHONDONTWRITEBYTECODE="1")
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


# A fake target for tests/run.sh's target part: vm/run runs the command here (as the target
# would, in the project's root), vm/std.sh says nothing, and lib.sh's mode_snapshot (the state a
# test must leave as found) is the file out/state.
FAKE = {
    "vm/run": "#!/bin/sh\n# fake: the command on this machine, not in a target\n\"$@\"\nexit $?\n",
    "vm/std.sh": "echo '  STD     fake'\n",
    "tests/target/lib.sh": "mode_snapshot() { cat out/state 2>/dev/null; }\n",
    "tests/target/10-pass.sh": "echo 'ok - one'\n",
    "tests/target/11-fail.sh": "echo 'not ok - two'\nexit 1\n",
    # stopped by the host's clock (VM_TIMEOUT=3): its boot ends, a new one runs the rest
    "tests/target/12-hang.sh": "echo 'ok - before the hang'\nsleep 10\n",
    "tests/target/13-changes.sh": "echo 'ok - three'\necho changed >out/state\n",
    "tests/target/14-silent.sh": "exit 3\n",
    "tests/target/15-own.sh": "# boot: own\necho \"ok - in a boot of its own\"\n",
}


def run_target(tmp_path):
    for name, text in FAKE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "vm" / "run").chmod(0o755)
    for f in ("tests/run.sh", "tests/schedule.sh", "tests/target/run-list.sh"):
        shutil.copy(os.path.join(ROOT, f), tmp_path / f)
    return run_sh(tmp_path, "target", TEST_TARGETS="std", VM_TIMEOUT="3")


def test_one_boot_runs_the_list_and_a_hang_costs_one_test(tmp_path):
    r = run_target(tmp_path)
    out = r.stdout.splitlines()
    logs = tmp_path / "out" / "tests"
    assert r.returncode != 0
    assert out[-1] == "4 passed, 4 failed, 0 skipped", r.stdout
    # the boot of its own first, then one boot for the rest, a second after the hang
    boots = [l for l in out if l.startswith("== target (std): one boot")]
    assert boots == ["== target (std): one boot (real) for 1 test(s)",
                     "== target (std): one boot (real) for 5 test(s)",
                     "== target (std): one boot (real) for 2 test(s)"], r.stdout
    # each test's lines kept in its own log, as before
    assert (logs / "std-10-pass.log").read_text() == "ok - one\n"
    assert "not ok - two" in (logs / "std-11-fail.log").read_text()
    hang = (logs / "std-12-hang.log").read_text()
    assert "ok - before the hang" in hang
    assert "not ok - 12-hang finished within 3 s" in hang
    # the tests after the hang ran; a test that changed the state fails, the next one not
    assert "not ok - 13-changes leaves the target as it found it" in \
        (logs / "std-13-changes.log").read_text()
    assert "not ok - 14-silent exited with status 3" in out
    assert (logs / "std-15-own.log").read_text() == "ok - in a boot of its own\n"


# Two lanes of deterministic boots (tests/README, the schedule): std's and rt's icount boots run
# at the same time, each a block printed when it ends; the real-time boots after them, alone.
LANES = {
    "vm/run": FAKE["vm/run"],
    "vm/std.sh": FAKE["vm/std.sh"],
    # (each target's make recorded: one a run, whoever asks for it)
    "Makefile": "all:\n\t@true\ntarget:\n\t@echo $(KERNEL) >>out/makes\n",
    "tests/target/lib.sh": FAKE["tests/target/lib.sh"],
    # each lane's first test says it started and waits (bounded) for the other lane's: both
    # pass only when the two boots run at once
    "tests/target/20-meet.sh": "# kernels: std rt\n# timing: icount\n"
    "t=$GPIOLAT_TEST_TARGET; : >out/met-$t; o=std; [ $t = std ] && o=rt\n"
    "i=0; while [ ! -f out/met-$o ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done\n"
    "[ -f out/met-$o ] && echo \"ok - $t beside $o\" || echo \"not ok - $t beside $o\"\n",
    "tests/target/21-fail.sh": "# kernels: rt\n# timing: icount\necho 'not ok - in a lane'\nexit 1\n",
    # a hang that keeps the CPU busy, stopped by its CPU time (icount: VM_TIMEOUT=3 s of the
    # boot's CPU time, or 3 x 8 s of the host's clock on a loaded host): costs its boot only, not
    # the other lane's
    "tests/target/22-hang.sh": "# kernels: std\n# timing: icount\necho 'ok - before'\n"
    "while :; do :; done\n",
    # (and spins until its shell has used 1.5 s of CPU, whatever the host's load: its boot's CPU)
    "tests/target/23-after.sh": "# kernels: std\n# timing: icount\necho 'ok - after the hang'\n"
    "while :; do i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done; times >out/t.23\n"
    "read -r u _ <out/t.23; case $u in 0m0.* | 0m1.[0-4]*) ;; *) break ;; esac; done\n",
    "tests/target/30-real.sh": "# kernels: std rt\n"
    # (one boot's fifo: its own)
    "[ $(ls out/tests/*.fifo | wc -l) = 1 ] && echo 'ok - alone' || echo 'not ok - a boot beside'\n",
}


def run_lanes(tmp_path, drop=(), part="target"):
    for name, text in LANES.items():
        if name in drop:
            continue
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "vm" / "run").chmod(0o755)
    (tmp_path / "out").mkdir(exist_ok=True)
    for f in ("tests/run.sh", "tests/schedule.sh", "tests/target/run-list.sh"):
        shutil.copy(os.path.join(ROOT, f), tmp_path / f)
    return run_sh(tmp_path, part, TEST_TARGETS="std rt", VM_TIMEOUT="3",
                  PYTHONDONTWRITEBYTECODE="1")


def test_two_lanes_count_each_test_and_a_hang_costs_its_boot_only(tmp_path):
    r = run_lanes(tmp_path)
    out = r.stdout.splitlines()
    logs = tmp_path / "out" / "tests"
    assert r.returncode == 1, r.stdout + r.stderr
    # 20 twice, 22's first line, 23, 30 twice; 21 and the hang fail
    assert out[-1] == "6 passed, 2 failed, 0 skipped", r.stdout
    assert "ok - std beside rt" in out and "ok - rt beside std" in out, r.stdout
    assert "not ok - in a lane" in out
    hang = (logs / "std-22-hang.log").read_text()
    assert "not ok - 22-hang finished within 3 s of qemu's CPU time" in hang or \
        "not ok - 22-hang finished within 24 s of the host's clock" in hang, hang
    assert (logs / "std-23-after.log").read_text() == "ok - after the hang\n"
    # each boot's block whole: a lane's lines are not cut by the other's
    blocks = [i for i, l in enumerate(out) if l.startswith("== lane ")]
    assert len(blocks) == 4, r.stdout
    # the real-time boots after the lanes, one at a time
    real = [i for i, l in enumerate(out) if l.endswith("one boot (real) for 1 test(s)")]
    assert len(real) == 2 and min(real) > max(blocks), r.stdout
    assert out.count("ok - alone") == 2, r.stdout


def test_lanes_that_pass_exit_0_with_the_summary(tmp_path):
    r = run_lanes(tmp_path, drop=("tests/target/21-fail.sh", "tests/target/22-hang.sh"))
    out = r.stdout.splitlines()
    assert r.returncode == 0, r.stdout + r.stderr
    assert out[-1] == "5 passed, 0 failed, 0 skipped", r.stdout
    # the log says when each lane's boot started and ended, and each boot's seconds
    starts = r"== lane [12]: std/icount starts at \+\d+ s \(2 test\(s\), about \d+ s\)"
    done = r"== lane [12]: rt/icount done at \+\d+ s \(\d+ s\)"
    assert any(re.fullmatch(starts, l) for l in out), r.stdout
    assert any(re.fullmatch(done, l) for l in out), r.stdout
    per = out.index("== seconds per boot, this run (with its build):")
    rows = [l.split() for l in out[per + 1:per + 5] if l.startswith("   ")]
    assert sorted(k for k, _, _ in rows) == ["rt/icount", "rt/real", "std/icount", "std/real"], \
        r.stdout
    secs = [int(n) for _, n, _ in rows]
    assert secs == sorted(secs, reverse=True), r.stdout  # longest first
    # each boot's CPU (its processes' user + system time): std's 23 used 1.5 s of CPU,
    # rt's tests waited; the schedule's total has them all
    c = out.index("== CPU seconds per boot, this run (user + system of its qemus, build and tools):")
    cpu = {l.split()[0]: int(l.split()[1]) for l in out[c + 1:c + 5] if l.startswith("   ")}
    assert sorted(cpu) == ["rt/icount", "rt/real", "std/icount", "std/real"], r.stdout
    assert cpu["std/icount"] >= 1 and cpu["rt/icount"] < cpu["std/icount"], r.stdout
    total = re.fullmatch(r"== schedule: \d+ s: .*; (\d+) s of CPU", out[-2])
    assert total and int(total.group(1)) >= cpu["std/icount"], r.stdout
    assert any(re.fullmatch(r"== the builds done at \+\d+ s \(\d+ s of CPU\)", l) for l in out), \
        r.stdout
    # and each target's build once (std is the host's: no build), its longest call
    b = out.index("== seconds per target build, this run (the wait for the build lock included):")
    assert re.fullmatch(r"   rt +\d+ s", out[b + 1]) and not out[b + 2].startswith("   "), r.stdout
    # made once, though its lane's boot, its real-time boot and the builder each ask for it
    assert (tmp_path / "out" / "makes").read_text() == "rt\n"


def test_make_test_runs_each_host_test_once_in_its_part(tmp_path):
    # make test (part all): SERIAL's host tests after the lanes, the free ones beside them
    # (their block shown after the serial part's), then the alone ones; each test counted once
    (tmp_path / "tests" / "host").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "tests", "host", "conftest.py"), tmp_path / "tests" / "host")
    (tmp_path / "tests" / "host" / "test_free.py").write_text("def test_a():\n    pass\n")
    # a name in conftest.py's SERIAL
    (tmp_path / "tests" / "host" / "test_vm_run.py").write_text("def test_b():\n    pass\n")
    r = run_lanes(tmp_path, drop=("tests/target/21-fail.sh", "tests/target/22-hang.sh"),
                  part="all")
    out = r.stdout.splitlines()
    assert r.returncode == 0, r.stdout + r.stderr
    assert out[-1] == "7 passed, 0 failed, 0 skipped", r.stdout
    free = out.index("== host tests (free part) (pytest tests/host)")
    serial = out.index("== host tests (serial part) (pytest tests/host)")
    lanes_done = max(i for i, l in enumerate(out) if l.startswith("== lane "))
    real = min(i for i, l in enumerate(out) if l.endswith("one boot (real) for 1 test(s)"))
    assert serial > lanes_done and free > serial and real > free, r.stdout
    assert any(re.fullmatch(r"== the builds done at \+\d+ s \(\d+ s of CPU\)", l)
               for l in out), r.stdout
