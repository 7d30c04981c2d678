"""Host side: host/pl061_trace.py --overhead, the outside observer beside the BPF trust check
(docs/overhead.md, "Trust"): a synthetic qemu trace of one `gpiolat --overhead --json` run (3
warm-up phases, then each measured row's reference and method phases), both ways: an observer
that sees the module's per-set times agrees, one whose clock runs 1.5 times fast does not."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "host", "pl061_trace.py")
PATH = "/machine/unattached/device[9]"
P, BURST, REPS = 20, 5, 3


def trace_and_json(tmp_path, per_set_us, scale=1.0, extra=0):
    """per_set_us: [untraced, traced] us per set (traced: one figure, or one a method
    phase); a row bpf-gpiolat-tracepoint (with trust
    figures) and bpf-empty-tracepoint (without), REPS repetitions each; the observer's clock
    scaled by SCALE; EXTRA more pulses at the end (a run the JSON does not describe)"""
    t, lines = 5_000_000.0, []

    def phase(us):
        nonlocal t
        for _ in range(P // BURST):
            for _ in range(BURST):
                for lv in (1, 0):
                    s, u = divmod(int(round(t)), 1_000_000)
                    lines.append(f"9@{s}.{u:06d}:pl061_set_output {PATH} setting output 0 to {lv}")
                    t += us * scale
            t += 1000
        t += 50_000
    for _ in range(3):
        phase(per_set_us[0])
    traced = per_set_us[1] if isinstance(per_set_us[1], list) else [per_set_us[1]] * REPS
    for _row in range(2):
        phase(per_set_us[0])
        for i in range(REPS):
            phase(traced[i])
            phase(per_set_us[0])
    for _ in range(extra):
        phase(per_set_us[0])
    tr = tmp_path / "trace"
    tr.write_text("\n".join(lines) + "\n")
    ns = 1000 * traced[0]
    clocks = {"burst": BURST, "phase_numbers": [0, 1, 2], "module_phases_ns": [ns + 3] * 3,
              "program_phases_ns": [ns - 2, ns - 1, ns - 3], "module_ns_per_set": ns + 3,
              "program_ns_per_set": ns - 2}
    row = {"measured": True, "repetitions": REPS, "reference_ns_per_set": 1000 * per_set_us[0]}
    d = {"pulses_per_phase": P, "methods": [
        dict(row, method="bpf-gpiolat-tracepoint", trust={"verdict": "agree", "clocks": clocks}),
        dict(row, method="bpf-empty-tracepoint", trust={"verdict": "not judged", "clocks": dict(
            clocks, program_phases_ns=[None] * 3, program_ns_per_set=None)}),
        {"method": "bpf-gpiolat-fentry", "measured": False, "not_available": "no"}]}
    js = tmp_path / "ov.json"
    js.write_text(json.dumps(d))
    return str(tr), str(js)


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), timeout=60)


def test_observer_that_sees_the_same_agrees(tmp_path):
    tr, js = trace_and_json(tmp_path, [2, 7])
    r = run(tr, "--overhead", js, "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    assert [x["method"] for x in res["rows"]] == ["bpf-gpiolat-tracepoint", "bpf-empty-tracepoint"]
    # the empty program: the observer beside the module alone
    e = res["rows"][1]
    assert e["observer_vs_module"]["verdict"] == "agree"
    assert e["observer_vs_program"] == {"verdict": "not judged", "phases": 0}
    x = res["rows"][0]
    # 7 us a set, every edge 7 us apart: 7000 ns per set in each method phase
    assert x["observer_phases_ns"] == [7000.0] * 3
    assert x["observer_vs_module"]["verdict"] == "agree"
    assert x["observer_vs_module"]["difference_ns"] == -3.0
    assert x["observer_vs_module"]["allowance_ns"] == 2000 / BURST
    assert x["observer_vs_program"]["verdict"] == "agree"
    text = run(tr, "--overhead", js).stdout
    assert "bpf-gpiolat-tracepoint" in text and "observer - module: agree" in text
    assert "emulated" in text


def test_observer_with_a_broken_clock_disagrees(tmp_path):
    tr, js = trace_and_json(tmp_path, [2, 7], scale=1.5)
    res = json.loads(run(tr, "--overhead", js, "--json").stdout)
    x = res["rows"][0]
    assert x["observer_phases_ns"] == [10500.0] * 3
    assert x["observer_vs_module"]["verdict"] == "DISAGREE"
    assert x["observer_vs_program"]["verdict"] == "DISAGREE"


def test_a_noisy_observer_is_too_noisy(tmp_path):
    # the method phases at 7, 12 and 2 us per set outside, the module's 7 in each: the mean
    # difference is 0, within a limit of 400 + 31.6 x 5000 / sqrt(3) ns, above half of 7000
    tr, js = trace_and_json(tmp_path, [2, [7, 12, 2]])
    x = json.loads(run(tr, "--overhead", js, "--json").stdout)["rows"][0]
    assert x["observer_phases_ns"] == [7000.0, 12000.0, 2000.0]
    assert x["observer_vs_module"]["verdict"] == "too-noisy", x


def test_a_trace_of_another_run_is_refused(tmp_path):
    tr, js = trace_and_json(tmp_path, [2, 7], extra=1)
    r = run(tr, "--overhead", js)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("pl061_trace: ") and "made 340" in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1
    r = run(tr, "--overhead", js, "--pulses", "20")
    assert r.returncode == 2
