"""Host side: the exact outside observer (vm/pl061-observer.c, qemu's plugin; docs/timing.md).

host/pl061_trace.py --overhead on the plugin's file (every PL061 data write with the guest's
executed instruction count, ns under TIMING=icount): synthetic files of one `gpiolat --overhead
--json` run, judged with the criterion stated before the first real run (observer - program
within one guest clock tick over 2 (burst - 1) sets, 2 ns at burst 5; observer - module within
the loader's reference / burst); a program clock off by 3 ns a set or scaled x1.5 disagrees.
Then, when the ARM target is built, one real run on it in icount (one boot, about a minute)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "host", "pl061_trace.py")
P, BURST, REPS = 20, 5, 3
HIGH, LOW, GAP, C = 1500, 900, 40_000, 300  # instructions: rise to fall, fall to rise, rest, c
# the program's clock read before each write; EXCESS more at every fall of a batch but the first
READ, EXCESS = 100, 80
REF = 2000  # the reference's ns per set (allowance vs the module: REF / BURST = 400)


def files(tmp_path, prog_off=0.0, prog_scale=1.0, extra=0, end=True, timing="icount",
          setup=2, reads=True):
    """the plugin's file and the run's JSON: rows bpf-gpiolat-tracepoint (with its program's
    clock) and bpf-empty-tracepoint (module only), REPS repetitions each; the program's figures
    the exact fall-to-fall ns per set, PROG_OFF added, x PROG_SCALE; the module's that plus
    C / (2 BURST); EXTRA more phases the JSON does not describe"""
    n, lines = 1000, ["# pl061-observer: qemu arm, plugin API 1, PL061 at 0x9030000, clock: "
                      "executed guest instructions"]
    writes = 0

    def w(off):
        nonlocal writes
        writes += 1
        lines.append(f"{n} 0x{off:03x}")
    for _ in range(setup):
        w(0x004)
        n += 50
    w(0x008)  # line 1: another line's write, not the observed one's

    def clk(before):
        if not reads:
            return
        lines.append(f"{n - before} clk")
        clocks.append(1)
    clocks = []

    def phase():
        nonlocal n
        for _ in range(P // BURST):
            for k in range(BURST):
                clk(READ)
                w(0x004)
                n += HIGH
                clk(READ + (EXCESS if k else 0))
                w(0x004)
                n += LOW
            n += GAP
    for _ in range(3 + 2 * (2 * REPS + 1) + extra):
        phase()
    if end:
        lines.append(f"# end: {writes} writes, {len(clocks)} clock reads, {n} instructions")
    tr = tmp_path / "observer.trace"
    tr.write_text("\n".join(lines) + "\n")
    per = (HIGH + LOW) / 2
    # the program's periods between its reads: the last fall's read EXCESS earlier
    prog = (per - EXCESS / (2 * (BURST - 1)) + prog_off) * prog_scale
    clocks = {"burst": BURST, "phase_numbers": [0, 1, 2], "module_phases_ns": [per + C / 10] * 3,
              "program_phases_ns": [prog] * 3, "module_ns_per_set": per + C / 10,
              "program_ns_per_set": prog}
    row = {"measured": True, "repetitions": REPS, "reference_ns_per_set": REF}
    d = {"timing": timing, "pulses_per_phase": P, "methods": [
        dict(row, method="bpf-gpiolat-tracepoint", trust={"verdict": "agree", "clocks": clocks}),
        dict(row, method="bpf-empty-tracepoint", trust={"verdict": "not judged", "clocks": dict(
            clocks, program_phases_ns=[None] * 3, program_ns_per_set=None)})]}
    js = tmp_path / "ov.json"
    js.write_text(json.dumps(d))
    return str(tr), str(js)


def run(*args, env=None):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **(env or {})),
                          timeout=600)


def test_three_clocks_agree_and_c_is_counted(tmp_path):
    tr, js = files(tmp_path, prog_off=1.5)
    r = run(tr, "--overhead", js, "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["observer"] == "exact" and "instructions" in res["clock"]
    assert res["setup_writes"] == 2 and res["pulses"] == P * 17
    x, e = res["rows"]
    # fall to fall inside a batch: HIGH + LOW instructions, half of it a set
    assert x["observer_phases_ns"] == [1200.0] * 3
    assert x["observer_span_ns_per_set"] == round((5 * HIGH + 4 * LOW) / 9, 1)
    assert x["module_fixed_part_ns"] == C
    assert x["observer_at_reads_phases_ns"] == [1190.0] * 3
    assert x["read_to_write_excess_insns"] == EXCESS
    assert x["observer_vs_program"]["allowance_ns"] == 2.0  # 16 ns / (2 x 4)
    assert x["observer_vs_program"]["verdict"] == "agree"
    assert x["observer_vs_program"]["difference_ns"] == -1.5
    assert x["observer_vs_module"]["allowance_ns"] == REF / BURST
    assert x["observer_vs_module"]["verdict"] == "agree"
    assert e["observer_vs_program"] == {"verdict": "not judged", "phases": 0}
    assert e["observer_vs_module"]["verdict"] == "agree"
    text = run(tr, "--overhead", js).stdout
    assert "executed guest instructions" in text and "emulated" in text


def test_a_mistimed_program_disagrees(tmp_path):
    # 3 ns a set off: beyond the 2 ns the clock's tick allows
    tr, js = files(tmp_path, prog_off=3)
    x = json.loads(run(tr, "--overhead", js, "--json").stdout)["rows"][0]
    assert x["observer_vs_program"]["verdict"] == "DISAGREE"
    assert x["observer_vs_module"]["verdict"] == "agree"
    # the loader's GPIOLAT_TRUST_SCALE=1.5: the program's periods 1.5 times too long
    tr, js = files(tmp_path, prog_scale=1.5)
    x = json.loads(run(tr, "--overhead", js, "--json").stdout)["rows"][0]
    assert x["observer_vs_program"]["verdict"] == "DISAGREE"
    assert x["observer_vs_program"]["difference_ns"] == -595.0
    assert x["observer_vs_module"]["verdict"] == "agree"


@pytest.mark.parametrize("kw,msg", [({"extra": 1}, "made 680 sets"),
                                    ({"end": False}, "no end line"),
                                    ({"timing": "real"}, "only under TIMING=icount"),
                                    ({"setup": 1}, "made 680 sets"),
                                    ({"reads": False}, "no clock read between")])
def test_another_runs_file_is_refused_in_one_line(tmp_path, kw, msg):
    tr, js = files(tmp_path, **kw)
    r = run(tr, "--overhead", js)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("pl061_trace: ") and msg in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1


def test_no_plugin_support_is_not_available_in_one_line(tmp_path):
    """vm/observer.sh (make observer, part of make all) where qemu has no plugin support: one
    line "OBSERVER not available: why", exit 0 (make goes on), why kept, no plugin left"""
    fake = tmp_path / "bin"
    fake.mkdir()
    q = fake / "qemu-system-arm"
    q.write_text("#!/bin/sh\necho 'usage: qemu-system-arm [options] [disk_image]'\n"
                 "echo '-icount [shift=N|auto]'\n")
    q.chmod(0o755)
    out = tmp_path / "out"
    (out / "observer").mkdir(parents=True)
    (out / "observer" / "pl061-observer.so").write_text("stale")
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    r = subprocess.run(["sh", "vm/observer.sh", str(out)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout == ("  OBSERVER not available: this qemu-system-arm has no plugin support"
                        " (its -help has no -plugin)\n")
    # (vm/observer.sh's lock, .lock, one make at a time, stays)
    assert sorted(x for x in os.listdir(out / "observer") if x != ".lock") == ["unavailable"]
    assert not (out / "qemu-plugin-h").exists()


ARM = os.path.join(ROOT, "out", "target", "arm-std")
ARM_BIN = os.path.join(ROOT, "out", "arm", "bin", "gpiolat")
PLUGIN = os.path.join(ROOT, "out", "observer", "pl061-observer.so")
UNAVAILABLE = os.path.join(ROOT, "out", "observer", "unavailable")


def qemu_has_plugins():
    """independent of the build: the installed qemu-system-arm's -help names -plugin"""
    try:
        r = subprocess.run(["qemu-system-arm", "-help"], capture_output=True, text=True,
                           timeout=60)
    except FileNotFoundError:
        return False
    return any(x.startswith("-plugin ") for x in r.stdout.splitlines())


@pytest.mark.skipif(not (os.path.exists(os.path.join(ARM, "initramfs.cpio.gz"))
                         and os.path.exists(ARM_BIN)
                         and (os.path.exists(PLUGIN) or os.path.exists(UNAVAILABLE))),
                    reason="no ARM target, ARM gpiolat or plugin: make all target ARCH=arm")
def test_on_the_arm_target_in_icount():
    """the observer on the ARM target (TIMING=icount, the module on the PL061's line 0), gpiolat
    --overhead's tracepoint and kprobe rows, 5 method phases of 50 pulses each (one boot, about
    a minute): the three clocks agree by the criterion (docs/timing.md; the program's clock
    deliberately mis-timed, GPIOLAT_TRUST_SCALE=1.5, disagrees: measured there, and above on
    synthetic files); no plugin: skipped only where qemu has no plugin support"""
    if not os.path.exists(PLUGIN):
        with open(UNAVAILABLE) as f:
            why = f.read().strip()
        if qemu_has_plugins():
            pytest.fail(f"qemu-system-arm has plugins but the observer was not built: {why}")
        pytest.skip(f"observer not available: {why}")
    out = os.path.join(ROOT, "out", "tests", "observer")
    os.makedirs(out, exist_ok=True)
    tr, js = os.path.join(out, "observer.trace"), os.path.join(out, "overhead.json")
    env = dict(os.environ, TIMING="icount", ARCH="arm", KERNEL="std", VM_NOMAKE="1",
               TOGGLE_ARGS="chip=9030000.pl061 line=0", VM_OBSERVE=tr, VM_TIMEOUT="300")
    with open(js, "w") as f:
        r = subprocess.run([os.path.join(ROOT, "vm", "run"), "./gpiolat", "--overhead", "--json",
                            "--reps", "5", "--pulses", "50", "--only",
                            "bpf-gpiolat-tracepoint,bpf-gpiolat-kprobe"], cwd=ROOT, env=env,
                           stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.PIPE, text=True,
                           # vm/run bounds it: 300 s of qemu's CPU time (icount), or 300 x 8 s
                           # of the host's clock; 400 s of the host's clock ran out at load 14
                           timeout=300 * 8 + 60)
    assert r.returncode == 0, r.stderr[-2000:]
    r = run(tr, "--overhead", js, "--json")
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]
    assert [x["method"] for x in rows] == ["bpf-gpiolat-tracepoint", "bpf-gpiolat-kprobe"]
    for x in rows:
        assert x["observer_vs_module"]["verdict"] == "agree", x
        assert x["observer_vs_program"]["verdict"] == "agree", x
        assert x["verdict_in_guest"] == "agree", x
