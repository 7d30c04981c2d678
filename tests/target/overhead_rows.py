# Target tests' check of a whole `gpiolat --overhead --json` matrix (tests/target/80-*.sh on
# std, tests/compare/matrix-armhf.sh on Debian 13's armhf 6.12 standard and PREEMPT_RT), run on
# the target that measured it (its kernel's configuration and its root's apt decide what may be
# "not available"). Usage: overhead_rows.py MATRIX.json ROWS
# ROWS: the rows a run without --only has (gpiolat --overhead --list, its parts left out). Prints
# one check line each (rows.py) and exits non-zero when one failed: one row per method; every
# method measured with a figure and a CI, or not available for a reason rows.py verifies on its
# own; every measured row with a count of its method fired on every set of each of its phases
# (a counted phase a repetition: 86-overhead-fired.sh's check, which leaves its counted rows to
# this one in a boot that runs both); the talk's figure beside a row only with the row's
# reference, never a sum; the untraced-vs-untraced control 0 within its 99.9 % CI; the report
# says it is emulated and names its clock.
import json, math, sys
from rows import line, not_available, fired_line, done
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
rows = d["methods"]
line(len(rows) == want, f"one row per method ({len(rows)} of {want})")
for r in rows:
    if r["measured"]:
        good = all(isinstance(r.get(k), (int, float)) for k in ("overhead_ns", "ci95_ns")) \
            and r["repetitions"] >= 3 and r["batches"] > 0
        line(good, f"{r['method']}: measured, {r['overhead_ns']:.0f} +- {r['ci95_ns']:.0f} ns "
             f"over {r['repetitions']} reps, {r['batches']} batches")
    else:
        not_available(r)
# every measured row proves its method fired on every set of its phases (docs/overhead.md
# "Fired"): a count, not a timing, so exact in real time too
for r in rows:
    f = r.get("fired") or {}
    if r["measured"] and f.get("counted"):
        fired_line(r)
    elif r["measured"]:
        print(f"# {r['method']}: no count ({f.get('why')})")
# a talk figure beside a row only with the same reference (the talk's untraced pulse is our
# untraced toggler, its user-ioctl our untraced ioctl toggler; docs/overhead.md); never a sum
# along "against": the ply histogram, measured on top of the event, stands beside no BPF row
same = {"untraced": "tracing-configured-rt", "mode=continuous": "tracing-configured-rt",
        "untraced ioctl toggler": "user-ioctl"}
for r in rows:
    t = r.get("talk")
    if t:
        line(t["same_reference"] == (t["against"] == same.get(r["against"], r["against"]))
             and "sum_of" not in t,
             f"{r['method']}: the talk's {t['row']} (against {t['against']}) beside it only with "
             f"the row's reference ({r['against']}): same_reference {t['same_reference']}")
for r in rows:
    if r["method"] in ("bpf-gpiolat-tracepoint", "bpftrace-delta", "ply-delta") and r["measured"]:
        t = r.get("talk") or {}
        line(t.get("same_reference") is False and t.get("overhead_ns") == 3490,
             f"{r['method']}: the talk's ply histogram (against the event) not beside it ({t})")
c = [r for r in rows if r["method"] == "control"][0]
# the 99.9 % CI: with the 95 % one, correct code failed 1 run in 20 by construction
line(abs(c["overhead_ns"]) <= c["ci999_ns"],
     f"control (untraced vs untraced) is 0 within its 99.9 % CI: {c['overhead_ns']:.1f} +- "
     f"{c['ci999_ns']:.1f} ns (95 %: +- {c['ci95_ns']:.1f} ns)")
line(d["emulated"] is True, "the report says the timings are emulated")
line(d["resolution_ns"] > 0 and "CLOCK_MONOTONIC" in d["clock"], f"clock named: {d['clock']}")
line(d["noise_floor_phases"] > 0 and d["noise_floor_sd_ns"] is not None,
     f"noise floor: sd {d['noise_floor_sd_ns']:.1f} ns over {d['noise_floor_phases']} untraced phases")
done()
