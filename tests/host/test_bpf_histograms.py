"""host/bpf-histograms.sh, the main command: which parts it runs, in which order, with what
settings, and what it leaves behind, in a copy of the project whose every tool is a stub that
logs its call (vm/run, make, the other host scripts, the loader): seconds, no target booted.

The page's ten sections come from seven files; the main command runs the seven parts that write
them, the RT part in the study's clock too (its boots jobs of the icount lanes; RT_TIMING=real:
alone, in real time) on this machine's architecture,
the outside observer on the ARM target in the study's clock (icount: qemu's plugin; real: its
trace),
the syscall cost natively with the host's loader, and says per part its wall time and the load
average (study.json). The whole run's figures are measured in docs/bench.md, not here.
"""
import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HOST_ARCH = subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout.strip()
HOST_ARCH = {"aarch64": "arm64"}.get(HOST_ARCH, HOST_ARCH)
PARTS = ["syscall-cost", "histograms", "overhead", "path", "bench-gpio", "observer", "rt"]

# every stub: one line "NAME ARGS | TIMING= ARCH= KERNEL= ..." in $STUB_LOG; FAIL_ON makes the
# stub whose line contains it exit 1
LOGGER = r"""#!/bin/sh
line="$STUB_NAME $* | TIMING=${TIMING:-} ARCH=${ARCH:-} KERNEL=${KERNEL:-} TARGET=${TARGET:-}"
line="$line TOGGLE_ARGS=${TOGGLE_ARGS:-} RT_KERNELS=${RT_KERNELS:-} PULSES=${PULSES:-}"
line="$line GAP_PULSES=${GAP_PULSES:-} LOOPS=${LOOPS:-} SECONDS_EACH=${SECONDS_EACH:-}"
line="$line OVERHEAD_ARGS=${OVERHEAD_ARGS:-} OVERHEAD_NOREPORT=${OVERHEAD_NOREPORT:-}"
line="$line RESULTS=${RESULTS:-} VM_TRACE=${VM_TRACE:-} VM_OBSERVE=${VM_OBSERVE:-}"
line="$line VM_TIMEOUT=${VM_TIMEOUT:-} RT_STEP=${RT_STEP:-} RT_JOBS=${RT_JOBS:-}"
echo "$line" >>"$STUB_LOG"
case "$line" in *"${FAIL_ON:-@@none@@}"*) exit 1 ;; esac
"""


def stub(path, name, body=""):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(LOGGER.replace("$STUB_NAME", name) + body)
    os.chmod(path, 0o755)


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / "host").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "host", "bpf-histograms.sh"), p / "host")
    stub(p / "vm" / "run", "vm/run", 'case "$*" in *--path* | *--overhead*) echo "{}" ;; esac\n')
    stub(p / "host" / "overhead-report.sh", "overhead-report.sh")
    stub(p / "host" / "rt-report.sh", "rt-report.sh")
    stub(p / "vm" / "std.sh", "vm/std.sh")
    # python3 host/X.py: python runs them, so stubs in Python that call the logger
    for name in ("report.py", "bench_gpio.py", "pl061_trace.py"):
        stub(p / "host" / f"{name}.sh", name)
        (p / "host" / name).write_text(
            "import os, subprocess, sys\n"
            f"sys.exit(subprocess.call(['sh', os.path.join(os.path.dirname(__file__), "
            f"'{name}.sh')] + sys.argv[1:]))\n")
    stub(p / "out" / "bin" / "gpiolat", "out/bin/gpiolat", 'echo "{}"\n')
    bin_ = tmp_path / "bin"
    stub(bin_ / "make", "make")
    stub(bin_ / "id", "id", "echo 0\n")
    stub(bin_ / "insmod", "insmod")
    stub(bin_ / "rmmod", "rmmod")
    return p


def run(proj, **env):
    log = proj.parent / "log"
    log.write_text("")
    e = {k: v for k, v in os.environ.items()
         if k not in ("TIMING", "ARCH", "KERNEL", "TARGET", "STUDIES", "PULSES", "RT_KERNELS",
                      "MAKEFLAGS", "MFLAGS", "OVERHEAD_ARGS", "VM_TIMEOUT")}
    e.update(PATH=f"{proj.parent / 'bin'}:{os.environ['PATH']}", STUB_LOG=str(log),
             TARGET="emulated")
    e.update(env)
    r = subprocess.run(["sh", str(proj / "host" / "bpf-histograms.sh")], env=e,
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    return r, [ln for ln in log.read_text().splitlines() if not ln.startswith("id ")]


def calls(lines, name):
    return [ln for ln in lines if ln.startswith(name + " ")]


def field(line, key):
    return line.split(f" {key}=", 1)[1].split(" ")[0]


def part_of(line):
    """which part a logged call belongs to"""
    for key, part in (("--syscall-cost", "syscall-cost"), ("study/histograms.sh", "histograms"),
                      ("overhead-report.sh", "overhead"), ("--path", "path"),
                      ("bench_gpio.py", "bench-gpio"), ("./gpiolat --overhead", "observer"),
                      ("pl061_trace.py", "observer"), ("rt-report.sh", "rt")):
        if key in line.split(" | ")[0]:
            return part
    return None


def rt_steps(lines):
    return [(field(ln, "RT_STEP"), ln.split(" RT_KERNELS=", 1)[1].split(" PULSES=")[0])
            for ln in calls(lines, "rt-report.sh")]


def test_the_default_runs_every_part_of_the_page_in_order(proj):
    r, lines = run(proj)
    assert r.returncode == 0, r.stderr
    # the RT part's settings checked before anything (its usage errors first), then what std
    # is, on the target's architecture and the observer's ARM
    assert part_of(lines[0]) == "rt" and field(lines[0], "RT_STEP") == "check", lines
    assert lines[1].split(" | ")[0] == "vm/std.sh %s%s" % (
        HOST_ARCH, "" if HOST_ARCH == "arm" else " arm"), lines
    order = []
    for ln in lines[1:]:
        p = part_of(ln)
        if p and p not in order:
            order.append(p)
    # syscall-cost first, alone (the host's clock); the icount parts two at a time after it, in
    # any order, the RT part's boots among them (each kernel's latencies and overhead rows a job
    # of its own, one boot at a time), its merge and page last, alone
    assert order[0] == PARTS[0] and sorted(order) == sorted(PARTS), lines
    steps = rt_steps(lines)
    assert steps[0] == ("check", "std rt") and steps[-1] == ("report", "std rt"), steps
    assert sorted(steps[1:-1]) == [("latency", "rt"), ("latency", "std"), ("overhead", "rt"),
                                   ("overhead", "std")], steps
    assert all(field(ln, "RT_JOBS") == "1" for ln in calls(lines, "rt-report.sh")
               if field(ln, "RT_STEP") in ("latency", "overhead")), lines
    last = [ln for ln in lines if part_of(ln)][-1]
    assert part_of(last) == "rt" and field(last, "RT_STEP") == "report", lines
    assert "bpf-histograms: rt:latency:std started (lane" in r.stderr
    # the page last, once, after every part
    assert lines[-1].startswith("make -s report"), lines
    assert len([ln for ln in lines if ln.startswith("make -s report")]) == 1
    res = proj / "out" / "results"
    for f in ("syscall-cost.json", "gpio-path.json", "bench-gpio.txt"):
        assert (res / f).read_text() == "{}\n" if f.endswith("json") else (res / f).exists()
    assert not list(res.glob("*.tmp"))
    doc = json.loads((res / "study.json").read_text())
    assert [p["part"] for p in doc["parts"]] == PARTS + [
        "rt:latency:rt", "rt:latency:std", "rt:overhead:rt", "rt:overhead:std"]
    assert doc["rt_timing"] == "icount"
    for p in doc["parts"]:
        assert p["wall_s"] >= 0 and len(p["load_before"]) == 3 and len(p["load_after"]) == 3
    # the emulated target's default clock: icount (docs/bench.md), for the RT part too (the
    # instructions run before a woken thread; docs/rt.md); the observer's plugin counts in
    # icount too
    assert doc["timing"] == "icount" and doc["target"] == "emulated" and len(doc["load_end"]) == 3
    for ln in calls(lines, "vm/run") + calls(lines, "overhead-report.sh") + \
            calls(lines, "bench_gpio.py"):
        assert field(ln, "TIMING") == "icount", ln
    for rt in calls(lines, "rt-report.sh"):
        assert field(rt, "TIMING") == "icount", rt
    for part in PARTS:
        assert f"bpf-histograms: {part} in " in r.stderr and "load average" in r.stderr
    assert "the whole study in" in r.stdout and "load average" in r.stdout


def test_each_part_at_the_main_commands_size(proj):
    r, lines = run(proj)
    assert r.returncode == 0, r.stderr
    (hist,) = [ln for ln in lines if part_of(ln) == "histograms"]
    assert "PULSES=2000 " in hist.split(" | ")[0]
    (ov,) = calls(lines, "overhead-report.sh")
    assert field(ov, "OVERHEAD_ARGS") == "--quick" and field(ov, "OVERHEAD_NOREPORT") == "1"
    for rt in calls(lines, "rt-report.sh"):
        assert (field(rt, "PULSES"), field(rt, "LOOPS")) == ("200", "100"), rt
    (sc,) = calls(lines, "out/bin/gpiolat")
    assert "--syscall-cost --json --rounds 3" in sc
    # and the user's own sizes win
    r, lines = run(proj, PULSES="200", RT_KERNELS="std", RT_PULSES="100",
                   OVERHEAD_ARGS="--reps 9", SYSCALL_ARGS="--rounds 2")
    assert r.returncode == 0, r.stderr
    (hist,) = [ln for ln in lines if part_of(ln) == "histograms"]
    assert "PULSES=200 " in hist.split(" | ")[0]
    assert sorted(rt_steps(lines)) == [("check", "std"), ("latency", "std"),
                                       ("overhead", "std"), ("report", "std")]
    assert {field(rt, "PULSES") for rt in calls(lines, "rt-report.sh")} == {"100"}
    assert field(calls(lines, "overhead-report.sh")[0], "OVERHEAD_ARGS") == "--reps"
    assert "--rounds 2" in calls(lines, "out/bin/gpiolat")[0]
    # the user's sizes go into study.json as written, quotes and backslashes too
    args = '--only "event" \\x'
    r, lines = run(proj, OVERHEAD_ARGS=args)
    assert r.returncode == 0, r.stderr
    doc = json.loads((proj / "out" / "results" / "study.json").read_text())
    assert doc["sizes"]["overhead_args"] == args


def test_the_path_parts_limit_is_900_s_unless_the_user_sets_vm_timeout(proj):
    # vm/run's limit is the host's clock: on a loaded machine the user raises it (the overhead
    # part's own default is host/overhead-report.sh's: tests/host/test_overhead_report.py)
    r, lines = run(proj)
    assert r.returncode == 0, r.stderr
    (path,) = [ln for ln in calls(lines, "vm/run") if part_of(ln) == "path"]
    assert field(path, "VM_TIMEOUT") == "900", path
    r, lines = run(proj, VM_TIMEOUT="4000")
    assert r.returncode == 0, r.stderr
    (path,) = [ln for ln in calls(lines, "vm/run") if part_of(ln) == "path"]
    assert field(path, "VM_TIMEOUT") == "4000", path
    (ov,) = calls(lines, "overhead-report.sh")
    assert field(ov, "VM_TIMEOUT") == "4000", ov


def test_icount_reaches_the_target_parts_and_rt_but_not_the_host(proj):
    r, lines = run(proj, TIMING="icount", ARCH="arm")
    assert r.returncode == 0, r.stderr
    for ln in calls(lines, "vm/run") + calls(lines, "overhead-report.sh") + \
            calls(lines, "bench_gpio.py"):
        assert field(ln, "TIMING") == "icount", ln
        if part_of(ln) != "observer":
            assert field(ln, "ARCH") == "arm", ln
    # the rt part on its own RT_ARCH, in the study's clock: the instructions before a wakeup
    for rt in calls(lines, "rt-report.sh"):
        assert (field(rt, "TIMING"), field(rt, "ARCH")) == ("icount", HOST_ARCH), rt
    # the host's loader for the native syscall cost
    assert any(ln.startswith(f"make -s loader ARCH={HOST_ARCH} ") for ln in lines), lines
    doc = json.loads((proj / "out" / "results" / "study.json").read_text())
    assert (doc["timing"], doc["arch"], doc["rt_arch"]) == ("icount", "arm", HOST_ARCH)


def test_rt_timing_real_puts_the_rt_part_alone_in_real_time(proj):
    r, lines = run(proj, RT_TIMING="real")
    assert r.returncode == 0, r.stderr
    # the whole part in one run, last, after every icount part (the host's clock: alone)
    assert rt_steps(lines) == [("check", "std rt"), ("all", "std rt")], lines
    for rt in calls(lines, "rt-report.sh"):
        assert field(rt, "TIMING") == "real" and field(rt, "RT_JOBS") == "2", rt
    assert part_of([ln for ln in lines if part_of(ln)][-1]) == "rt", lines
    for ln in calls(lines, "vm/run") + calls(lines, "overhead-report.sh"):
        assert field(ln, "TIMING") == "icount", ln
    doc = json.loads((proj / "out" / "results" / "study.json").read_text())
    assert [p["part"] for p in doc["parts"]] == PARTS and doc["rt_timing"] == "real"
    # a bad RT setting said before anything runs, as rt-report.sh says it
    r, lines = run(proj, FAIL_ON="RT_STEP=check")
    assert r.returncode != 0 and len(lines) == 1 and part_of(lines[0]) == "rt", lines
    # and RT_TIMING's own value by its name
    r, lines = run(proj, RT_TIMING="fast")
    assert r.returncode == 2 and lines == [], lines
    assert r.stderr.count("\n") == 1 and "RT_TIMING must be real or icount" in r.stderr, r.stderr


def test_timing_real_still_selects_real_time_and_a_bad_timing_is_a_usage_error(proj):
    r, lines = run(proj, TIMING="real")
    assert r.returncode == 0, r.stderr
    for ln in calls(lines, "vm/run") + calls(lines, "overhead-report.sh") + \
            calls(lines, "bench_gpio.py") + calls(lines, "rt-report.sh"):
        assert field(ln, "TIMING") == "real", ln
    doc = json.loads((proj / "out" / "results" / "study.json").read_text())
    assert doc["timing"] == "real"
    assert "TIMING=real" in r.stdout
    r, lines = run(proj, TIMING="fast")
    assert r.returncode == 2 and lines == [], lines
    assert r.stderr.count("\n") == 1 and "TIMING must be real or icount" in r.stderr, r.stderr


def test_studies_picks_parts_and_rejects_unknown_ones(proj):
    r, lines = run(proj, STUDIES="rt syscall-cost")
    assert r.returncode == 0, r.stderr
    assert {part_of(ln) for ln in lines} - {None} == {"rt", "syscall-cost"}
    doc = json.loads((proj / "out" / "results" / "study.json").read_text())
    assert [p["part"] for p in doc["parts"]] == [
        "syscall-cost", "rt", "rt:latency:rt", "rt:latency:std", "rt:overhead:rt",
        "rt:overhead:std"]
    r, lines = run(proj, STUDIES="histograms bogus")
    assert r.returncode == 2 and lines == []
    assert r.stderr.count("\n") == 1 and "'bogus' is not one of" in r.stderr, r.stderr
    r, lines = run(proj, TARGET="board")
    assert r.returncode == 2 and lines == [] and r.stderr.count("\n") == 1, r.stderr


def test_a_failing_part_stops_the_study_and_leaves_no_partial_file(proj):
    res = proj / "out" / "results"
    r, lines = run(proj, FAIL_ON="./gpiolat --path")
    assert r.returncode != 0
    assert "gpiolat --path" in r.stderr and "failed" in r.stderr
    assert not (res / "gpio-path.json").exists() and not list(res.glob("*.tmp"))
    # nothing started after it but what the other lane took off the queue before path failed
    # (the RT part's overhead boots come after path), no merge of the RT part, and no page
    # claims a whole study
    seen = [part_of(ln) for ln in lines if part_of(ln)]
    assert "path" in seen, lines
    assert set(seen) <= {"syscall-cost", "overhead", "histograms", "bench-gpio", "observer",
                         "path", "rt"}, lines
    assert {s for s, _ in rt_steps(lines)} <= {"check", "latency", "overhead"}, lines
    assert len([s for s, _ in rt_steps(lines) if s == "overhead"]) <= 1, lines
    assert not (res / "study.json").exists()


def test_the_observer_in_the_studys_clock(proj):
    """the outside observer runs in the study's TIMING on the ARM target (whatever the study's
    ARCH), the module on the PL061's line 0: in icount (the default) qemu's plugin counts the
    guest's instructions up to each data register write (VM_OBSERVE, exact), in real time
    qemu's trace stamps the edges with the host's clock (VM_TRACE, the option); the file in the
    project folder by an absolute path (qemu's cwd is not ours), and pl061_trace.py reads it
    with that run's JSON"""
    for timing, var, other in (("icount", "VM_OBSERVE", "VM_TRACE"),
                               ("real", "VM_TRACE", "VM_OBSERVE")):
        r, lines = run(proj, TIMING=timing, STUDIES="observer")
        assert r.returncode == 0, r.stderr
        (vm,) = calls(lines, "vm/run")
        res = proj / "out" / "results"
        assert "./gpiolat --overhead --json --reps 5 --only bpf-gpiolat-tracepoint," in vm
        assert (field(vm, "TIMING"), field(vm, "ARCH"), field(vm, "KERNEL")) == \
            (timing, "arm", "std"), vm
        assert field(vm, "TOGGLE_ARGS") == "chip=9030000.pl061"
        assert field(vm, var) == str(res / "observer.trace")
        assert field(vm, other) == "", vm
        (tr,) = calls(lines, "pl061_trace.py")
        assert tr.split(" | ")[0].split()[1:] == [
            "out/results/observer.trace", "--overhead", "out/results/observer.overhead.json",
            "--json"], tr
        assert any(ln.startswith("make -s all target ARCH=arm KERNEL=std ") for ln in lines)
        assert (res / "observer.json").exists() and not list(res.glob("*.tmp"))
    # on a board there is no qemu to trace it: said, and nothing run
    r, lines = run(proj, TARGET="native", STUDIES="observer", CHIP="c", LINE="1")
    assert "not on a board" in r.stderr and not calls(lines, "vm/run"), r.stderr


def test_on_a_board_the_rt_part_runs_whole_in_its_own_clock(proj):
    # a board's RT part is one rt-report run, natively, in the board's clock whatever TIMING or
    # RT_TIMING the shell has; study.json says real time
    r, lines = run(proj, TARGET="native", STUDIES="rt", CHIP="c", LINE="1", RT_TIMING="icount")
    assert r.returncode == 0, r.stderr
    assert rt_steps(lines) == [("check", "std rt"), ("all", "std rt")], lines
    assert not calls(lines, "vm/run"), lines
    doc = json.loads((proj / "out" / "results" / "study.json").read_text())
    assert [p["part"] for p in doc["parts"]] == ["rt"] and doc["rt_timing"] == "real", doc


def test_the_target_parts_run_on_debian_13s_6_12_unless_told(proj):
    """the main page's emulated target is Debian 13's 6.12 on Debian 13's user space, whose
    release packages ply (docs/study-target.md); KERNEL picks another; the observer keeps ARM's
    std and the rt part its RT_KERNELS"""
    studies = "histograms overhead path bench-gpio observer rt"
    for given, want in ((None, "6.12"), ("std", "std"), ("testing", "testing")):
        env = {"STUDIES": studies} | ({"KERNEL": given} if given else {})
        r, lines = run(proj, **env)
        assert r.returncode == 0, r.stderr
        target = [ln for ln in lines if part_of(ln) in ("histograms", "overhead", "path",
                                                         "bench-gpio")]
        assert {part_of(ln) for ln in target} == {"histograms", "overhead", "path",
                                                  "bench-gpio"}, lines
        for ln in target:
            assert field(ln, "KERNEL") == want, ln
        assert any(ln.startswith(f"make -s all target KERNEL={want} ") for ln in lines), lines
        for ln in lines:
            if part_of(ln) == "observer" and ln.startswith("vm/run "):
                assert field(ln, "KERNEL") == "std", ln
        doc = json.loads((proj / "out" / "results" / "study.json").read_text())
        assert doc["kernel"] == want
