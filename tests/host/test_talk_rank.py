"""Host side: the talk's order (host/results.py talk_rank: Spearman's rho over the rows beside
the talk) and the side-by-side matrix of host/matrix.py: ranks with ties, rho against values
worked by hand, only the rows the loader's rule puts beside the talk, ours per pulse where the
talk's is, and no figure for a row that is not measured."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "host"))
import matrix  # noqa: E402
import results  # noqa: E402


def test_ranks_share_the_mean_rank_of_ties():
    assert results.ranks([3, 1, 2, 2]) == [4.0, 1.0, 2.5, 2.5]


def test_spearman_by_hand():
    assert results.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert results.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    # ranks (1, 2.5, 2.5, 4) and (1, 3, 2, 4): 4.5 / sqrt(4.5 * 5)
    assert abs(results.spearman([1, 2, 2, 4], [1, 3, 2, 4]) - 4.5 / (4.5 * 5) ** 0.5) < 1e-12
    # d = (0, 0, 1, -1, 0): 1 - 6 * 2 / (5 * 24) without ties
    assert abs(results.spearman([1, 2, 3, 4, 5], [1, 2, 4, 3, 5]) - 0.9) < 1e-12
    assert results.spearman([1, 2], [1, 2]) is None
    assert results.spearman([1, 1, 1], [1, 2, 3]) is None


def row(m, ns, talk=None, same=True, per="set", measured=True, against="untraced"):
    r = {"method": m, "measured": measured, "against": against, "repetitions": 3}
    if not measured:
        r["not_available"] = "the kernel has no CONFIG_X"
        return r
    r.update(overhead_ns=ns, ci95_ns=0.0, fired={"counted": True, "fired_sets": 300,
                                                 "sets": 300})
    if talk is not None:
        r["talk"] = {"row": m, "overhead_ns": talk, "against": "tracing-configured-rt",
                     "same_reference": same}
        if per == "pulse":
            r["talk"].update(ours_per="pulse", ours_ns=2 * ns, ours_ci95_ns=0.0)
    return r


def doc(rows, untraced=200.0):
    return {"tool": "gpiolat --overhead", "methods": rows, "pulses_per_phase": 50,
            "repetitions": 3, "untraced_ns_per_set": untraced, "noise_floor_sd_ns": 0.0,
            "noise_floor_phases": 9, "emulated": True, "clock": "ktime_get_ns CLOCK_MONOTONIC",
            "resolution_ns": 1, "warmup_batches": 2, "phase_statistic": "median",
            "duration_s": 10.0, "linear_fits": {}}


def test_talk_rank_takes_only_rows_beside_the_talk_and_per_pulse_where_the_talks_is():
    d = doc([row("event", 600, 1190), row("kprobe", 800, 2790),
             row("bpf-gpiolat-tracepoint", 5000, 3490, same=False),  # another reference
             row("user-ioctl-uprobe", 350, 14410, per="pulse"),      # ours per pulse 700
             row("function", None, 3210, measured=False)])
    tr = results.talk_rank(d)
    assert tr["n"] == 3
    assert [r["method"] for r in tr["rows"]] == ["event", "kprobe", "user-ioctl-uprobe"]
    assert [r["ours_ns"] for r in tr["rows"]] == [600, 800, 700]
    # ours per set the uprobe's 350 would rank first; per pulse (700): ranks (1, 3, 2) against
    # the talk's (1, 2, 3), d = (0, 1, -1): 1 - 6 * 2 / (3 * 8)
    assert [r["rank"] for r in tr["rows"]] == [1, 3, 2]
    assert abs(tr["rho"] - 0.5) < 1e-12


def test_matrix_side_by_side(tmp_path):
    std = doc([row("event", 600, 1190), row("event-hist", 500, 3410, against="event"),
               row("kprobe", 800, 2790, against="event"),
               row("bpftrace-delta", 1500, 3490, same=False),
               row("bpf-gpiolat-fentry", None, measured=False)])
    rt = doc([row("event", 700, 1190), row("event-hist", 520, 3410, against="event"),
              row("kprobe", 900, 2790, against="event"),
              row("bpftrace-delta", 1600, 3490, same=False),
              row("bpf-gpiolat-fentry", None, measured=False)], untraced=230.0)
    dirs = []
    for name, d in (("std", std), ("rt", rt)):
        p = tmp_path / name
        p.mkdir()
        (p / "overhead.json").write_text(json.dumps(d))
        (p / "target.txt").write_text(f"release=6.12-{name}\npreempt=none\ndebian_version=13.8\n"
                                      "ply=ply 2.4.0\nply_deb=2.4.0-1\n")
        dirs.append(f"arm-6.12{'-rt' if name == 'rt' else ''}={p}")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "matrix.py"),
                        str(tmp_path / "out"), "icount", *dirs], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = results.load(str(tmp_path / "out" / "matrix.json"), "matrix")
    rows = {x["method"]: x for x in m["rows"]}
    assert rows["event"]["talk"]["overhead_ns"] == 1190
    assert rows["bpftrace-delta"]["talk"] is None
    f = rows["bpf-gpiolat-fentry"]["targets"]
    assert not f["arm-6.12"]["measured"] and "CONFIG_X" in f["arm-6.12-rt"]["why"]
    assert [t["talk_rank"]["n"] for t in m["targets"]] == [3, 3]
    # ours (2, 1, 3) against the talk's (1, 3, 2): rho -0.5, on both
    assert [t["talk_rank"]["rho"] for t in m["targets"]] == [-0.5, -0.5]
    assert "Spearman's rho against the talk's order: -0.500 over the 3 rows" in r.stdout
    assert "ply: ply 2.4.0 (dpkg 2.4.0-1)" in r.stdout and "EMULATED" in r.stdout
    assert "bpf-gpiolat-fentry on arm-6.12: not available: the kernel has no CONFIG_X" in r.stdout
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("bpftrace-delta"))
    assert line.rstrip().endswith("-")  # no talk figure beside it


def test_matrix_usage():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "matrix.py"), "out"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
