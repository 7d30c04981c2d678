#!/usr/bin/env python3
"""Host side: the talk's whole overhead matrix on several targets side by side (the talk's board
class: Debian 13's armhf 6.12, standard and PREEMPT_RT), beside the talk's figures.

    host/matrix.py OUTDIR [real|icount] LABEL=DIR [LABEL=DIR...]

Each DIR is what study/matrix.sh wrote on that target: target.txt (its kernel and user space as
measured there: the Debian release, ply's, bpftrace's, libgpiod's and strace's versions as the
tools print them and as dpkg has them) and overhead.json (gpiolat --overhead --json). Writes
OUTDIR/matrix.json and OUTDIR/matrix.txt (printed too): one line a method, each target's figure
(ns per set, 95 % CI, and whether its method was proved to fire on every set) or why none, and
the talk's figure only where the loader's rule puts it beside the row (results.talk_beside: the
same kind of method against the same reference); per target Spearman's rho of its rows beside
the talk against the talk's order (results.talk_rank).

A row that is not measured on a target prints no figure there (its why: not available, or not
measured because it did not fire on every set).
"""
import json
import os
import sys

import results


def read_target(d):
    """{key: value} of DIR/target.txt"""
    info = {}
    for ln in results.read_text(os.path.join(d, "target.txt")).splitlines():
        if "=" in ln:
            k, v = ln.split("=", 1)
            info[k.strip()] = v.strip()
    return info


def fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def fired_words(r):
    """how the row proves its method fired on every set it measured"""
    f = r.get("fired") or {}
    if f.get("counted"):
        return f"fired {f['fired_sets']}/{f['sets']}"
    return "uncounted"


def userspace_words(info):
    """a target's user space in one line, as measured there"""
    def tool(name):
        said, deb = " ".join(info.get(name, "").split()), info.get(name + "_deb", "")
        if not said and not deb:
            return f"{name}: none"
        return f"{name}: {said or '-'}" + (f" (dpkg {deb})" if deb else "")
    return "; ".join([f"Debian {info.get('debian_version') or '-'}"
                      + (f" ({info['os']})" if info.get("os") else "")]
                     + [tool(t) for t in ("ply", "bpftrace", "libgpiod", "strace")])


def build(targets):
    """the matrix document of targets [(label, info, overhead doc)]"""
    names = []
    for _, _, d in targets:
        for r in results.methods(d):
            if r["method"] not in names:
                names.append(r["method"])
    rows = []
    for m in names:
        row = {"method": m, "against": None, "talk": None, "targets": {}}
        for label, _, d in targets:
            r = next((x for x in results.methods(d) if x["method"] == m), None)
            if r is None:
                row["targets"][label] = {"measured": False, "why": "no such row"}
                continue
            if not r["measured"]:
                row["targets"][label] = {"measured": False, "why": results.why_not(r)}
                continue
            row["against"] = row["against"] or r["against"]
            t = results.talk_beside(r)
            cell = {"measured": True, "overhead_ns": r["overhead_ns"], "ci95_ns": r["ci95_ns"],
                    "repetitions": r["repetitions"], "fired": fired_words(r)}
            if t and t.get("ours_per") == "pulse":
                cell["per_pulse_ns"], cell["per_pulse_ci95_ns"] = t["ours_ns"], t["ours_ci95_ns"]
            if t:
                row["talk"] = {k: t[k] for k in ("row", "overhead_ns", "against")}
                row["talk"]["per"] = t.get("ours_per", "set")
            row["targets"][label] = cell
        rows.append(row)
    tdocs = []
    for label, info, d in targets:
        tdocs.append({"label": label, "info": info, "userspace": userspace_words(info),
                      "untraced_ns_per_set": d["untraced_ns_per_set"],
                      "noise_floor_sd_ns": d["noise_floor_sd_ns"],
                      "noise_floor_phases": d["noise_floor_phases"],
                      "user_untraced_ns_per_set": d.get("user_untraced_ns_per_set"),
                      "pulses_per_phase": d["pulses_per_phase"],
                      "repetitions": d["repetitions"], "duration_s": d["duration_s"],
                      "measured": sum(1 for r in results.methods(d) if r["measured"]),
                      "rows": len(results.methods(d)),
                      "talk_rank": results.talk_rank(d)})
    return {"tool": "host/matrix.py", "emulated": any(d["emulated"] for _, _, d in targets),
            "targets": tdocs, "rows": rows}


def text(doc, timing=None):
    labels = [t["label"] for t in doc["targets"]]
    out = ["The talk's overhead matrix, side by side: " + ", ".join(
        f"{t['label']} ({t['info'].get('release', '-')}, preemption "
        f"{t['info'].get('preempt', '-')})" for t in doc["targets"])]
    if doc["emulated"]:
        out.append(results.caveat(timing))
    out.append("user space, as measured on each target:")
    for t in doc["targets"]:
        out.append(f"  {t['label']}: {t['userspace']}")
    for t in doc["targets"]:
        out.append(f"{t['label']}: untraced {fmt(t['untraced_ns_per_set'])} ns per set (sd "
                   f"{fmt(t['noise_floor_sd_ns'])} over {t['noise_floor_phases']} phases); "
                   f"untraced ioctl toggler {fmt(t['user_untraced_ns_per_set'])} ns per set; "
                   f"{t['measured']} of {t['rows']} rows measured; phases of "
                   f"{t['pulses_per_phase']} pulses, {t['repetitions']} repetitions, "
                   f"{t['duration_s']:.0f} s run time")
    out.append("the talk's figures: oscilloscope, BeagleBone Black, 6.1.26-rt8 (data/); one "
               "stands beside a row only when it measured the same kind of method against the "
               "same reference")
    out.append("")
    w = 30
    out.append(f"{'method':<26} {'against':<22} " + " ".join(f"{lb:>{w}}" for lb in labels)
               + "  talk_ns (row, against)")
    for row in doc["rows"]:
        cells = []
        for lb in labels:
            c = row["targets"][lb]
            if c["measured"]:
                cells.append(f"{fmt(c['overhead_ns'])} ± {fmt(c['ci95_ns'])} {c['fired']}"
                             .rjust(w))
            else:
                cells.append("no figure".rjust(w))
        t = row["talk"]
        if t and t["per"] == "pulse":
            talk = (f"{t['overhead_ns']:.0f} per pulse+ ({t['row']}, against {t['against']}); "
                    "ours per pulse " + ", ".join(
                        f"{fmt(row['targets'][lb].get('per_pulse_ns'))}" for lb in labels
                        if row["targets"][lb]["measured"]))
        elif t:
            talk = f"{t['overhead_ns']:.0f} ({t['row']}, against {t['against']})"
        else:
            talk = "-"
        out.append(f"{row['method']:<26} {row['against'] or '-':<22} " + " ".join(cells)
                   + f"  {talk}")
    why = [(row["method"], lb, row["targets"][lb]["why"]) for row in doc["rows"] for lb in labels
           if not row["targets"][lb]["measured"]]
    if why:
        out.append("")
        out.append("no figure:")
        for m, lb, w_ in why:
            out.append(f"  {m} on {lb}: {w_}")
    out.append("")
    for t in doc["targets"]:
        out.append(f"{t['label']}: " + results.rank_words(t["talk_rank"]))
        out.append("  talk's order (least first): " + ", ".join(
            f"{r['method']} {r['talk_ns']:.0f} (ours {r['ours_ns']:.0f}, rank {r['rank']:g})"
            for r in t["talk_rank"]["rows"]))
    return "\n".join(out) + "\n"


def main():
    args = sys.argv[1:]
    timing = None
    if len(args) >= 2 and args[1] in ("real", "icount"):
        timing = args.pop(1)
    if len(args) < 2 or any("=" not in a for a in args[1:]):
        print("usage: host/matrix.py OUTDIR [real|icount] LABEL=DIR [LABEL=DIR...]",
              file=sys.stderr)
        sys.exit(2)
    out = args[0]
    targets = []
    for a in args[1:]:
        label, d = a.split("=", 1)
        try:
            doc = results.load(os.path.join(d, "overhead.json"), "overhead", missing_ok=False)
            info = read_target(d)
        except results.BadResults as e:
            sys.exit(f"matrix.py: {e}")
        targets.append((label, info, doc))
    doc = build(targets)
    doc["timing"] = timing
    os.makedirs(out, exist_ok=True)
    results.write_text(os.path.join(out, "matrix.json"), json.dumps(doc, indent=1))
    t = text(doc, timing)
    results.write_text(os.path.join(out, "matrix.txt"), t)
    sys.stdout.write(t)


if __name__ == "__main__":
    sys.exit(results.run_main("matrix.py", main))
