"""Host side: host/pl061_trace.py, the emulated oscilloscope (qemu's PL061 trace -> pulses)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "host", "pl061_trace.py")
PATH = "/machine/unattached/device[9]"


def run(*args):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), timeout=60)


def write_trace(path, phases):
    """phases: [(batches, pulses a batch, high us, low us)]; 1 ms rest between batches, 50 ms
    between phases; line 1 toggles too (ignored with --line 0), plus a line of another event"""
    t = 5_000_000.0  # us
    lines = ["123@5.000000:pl061_update something else"]
    for nb, np_, hi, lo in phases:
        for _ in range(nb):
            for _ in range(np_):
                for lv, d in ((1, hi), (0, lo)):
                    s, us = divmod(int(round(t)), 1_000_000)
                    lines.append(f"123@{s}.{us:06d}:pl061_set_output {PATH} setting output 0 to {lv}")
                    lines.append(f"123@{s}.{us:06d}:pl061_set_output {PATH} setting output 1 to {lv}")
                    t += d
            t += 1000
        t += 50_000
    path.write_text("\n".join(lines) + "\n")


def test_pulses_phases_and_shift(tmp_path):
    tr = tmp_path / "trace"
    # untraced 3 us high + 3 us low, traced 5 + 5 (2 us per set more), untraced again
    write_trace(tr, [(4, 10, 3, 3), (5, 10, 5, 5), (4, 10, 3, 3)])
    r = run(str(tr), "--pulses", "50", "--burst", "10", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["edges"] == 2 * 130
    assert d["all"]["batches"] == 13
    assert d["traced"]["batches"] == 5
    assert d["untraced"]["batches"] == 8
    assert d["traced"]["pulse_width"]["count"] == 50
    assert d["traced"]["pulse_width"]["min_ns"] == d["traced"]["pulse_width"]["max_ns"] == 5000
    assert d["untraced"]["pulse_width"]["count"] == 80
    assert d["untraced"]["ns_per_set_mean"] == d["untraced"]["ns_per_set_median"] == 3000.0
    assert d["shift_ns_per_set"] == d["shift_of_medians_ns"] == 2000.0
    assert d["shift_se_ns"] == 0.0


def test_text_sets_gpiolat_beside(tmp_path):
    tr = tmp_path / "trace"
    write_trace(tr, [(2, 5, 3, 3), (2, 5, 4, 4), (2, 5, 3, 3)])
    g = tmp_path / "gpiolat.txt"
    g.write_text("gpio 512 (x): count 10 pulses, min 1200 ns, mean 1200 ns, p50 1200 ns, "
                 "p90 1200 ns, p99 1200 ns, max 1200 ns; unmatched 0\n"
                 "overhead: pulse-width shift +1475.6 ns per set (standard error 0.0 ns): traced "
                 "1641.5 ns per set (sd 0.4 ns), untraced 165.9 ns per set (sd 0.7 ns)\n")
    r = run(str(tr), "--pulses", "10", "--gpiolat", str(g))  # batches of 5, the default
    assert r.returncode == 0, r.stderr
    assert "shift: +1000.0 ns per set" in r.stdout
    assert "gpiolat in the guest" in r.stdout and "+1475.6 ns per set" in r.stdout
    assert "emulated" in r.stdout


def test_bad_input_one_line_nonzero(tmp_path):
    r = run(str(tmp_path / "missing"))
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    tr = tmp_path / "trace"
    write_trace(tr, [(2, 5, 3, 3)])
    r = run(str(tr), "--pulses", "9")
    assert r.returncode == 1 and "exactly 9 pulses" in r.stderr  # 10 pulses: none on both sides
    r = run(str(tr), "--burst", "0")
    assert r.returncode == 2
    r = run(str(tr), "--line", "-1")
    assert r.returncode == 2
    empty = tmp_path / "empty"
    empty.write_text("")
    r = run(str(empty))
    assert r.returncode == 1 and "0 pulses" in r.stderr
