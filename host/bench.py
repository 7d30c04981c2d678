#!/usr/bin/env python3
"""make bench: what gpiolat itself costs, measured natively on this machine, in one run.

Usage: host/bench.py GPIOLAT (a statically linked build: make STATIC=1)

Per syscall, BPF run-time stats OFF (gpiolat --syscall-cost, whose figures would otherwise all
carry the stats' two clock reads per program run): gpiolat's syscall-latency histogram against
an empty BPF program on the same hook and the same two tracepoints (the floor), against the
bpftrace script that builds the same histogram (ply/syscall-hist.bt), and ply's when ply is on
PATH; its parts (programs of their own) for the breakdown. Ratios of the ns added per syscall
with 95 % intervals (host/benchstat.py: Fieller, counting the reference runs that consecutive
rounds share) against the project's speed targets (docs/bench.md). Then, in runs of their own with --bpf-stats, the
BPF run time per program run (stats on: said where printed). The loader: start to first
histogram and peak RSS (the default hook, raw_tp, tp_btf), binary size. Figures, never
pass/fail (exit status 1 only when a measurement could not be made).
"""
import os
import platform
import shutil
import subprocess
import sys
import time

import results  # host/results.py: the loader's documents checked
from benchstat import ci95, fmt_ratio, mean_var

MIB = 1024 * 1024
TARGETS = {
    "added_vs_empty": 1.5,
    "added_vs_floor": 1.1,
    "added_vs_tools": 0.4,
    "static_mib": 2.0,
    "rss_mib": 8.0,
    "first_hist_s": 0.5,
}


def verdict(value, target):
    return "met" if value <= target else "NOT met"


def run_loader(gpiolat, *args):
    """start to first output line (s), the output"""
    t0 = time.monotonic()
    p = subprocess.Popen([gpiolat, *args], stdout=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    t1 = time.monotonic()
    rest = p.stdout.read()
    _, status, _ = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"bench: {gpiolat} {' '.join(args)} failed (status {p.returncode})")
    return t1 - t0, None, first + rest


METHODS = ["bpf-empty-raw-tp", "bpf-empty-tp-btf", "bpf-hist-clock", "bpf-hist-start",
           "bpf-hist", "bpf-hist-tp-btf", "bpf-hist-naive", "bpftrace"]
LABELS = {
    "bpf-empty-raw-tp": "empty program, raw_tp",
    "bpf-empty-tp-btf": "empty program, tp_btf",
    "bpf-hist-clock": "  part: the clock reads only",
    "bpf-hist-start": "  part: clock reads + start kept",
    "bpf-hist": "gpiolat histogram (default)",
    "bpf-hist-tp-btf": "gpiolat histogram on tp_btf",
    "bpf-hist-naive": "histogram, start kept as bpftrace keeps it",
    "bpftrace": "bpftrace ply/syscall-hist.bt",
}


def syscall_cost(gpiolat, script, rounds, stats):
    args = ["--syscall-cost", "--json", "--rounds", str(rounds), "--batches", "20",
            "--bpftrace-script", script] + (["--bpf-stats"] if stats else [])
    for m in METHODS:
        args += ["-m", m]
    _, _, out = run_loader(gpiolat, *args)
    try:
        doc = results.parse(out, "syscall-cost", "gpiolat --syscall-cost --json")
    except results.BadResults as e:
        sys.exit(f"bench: {e}")
    return doc, {m["name"]: m for m in doc["methods"]}


def per_syscall(gpiolat, script):
    """the figures, stats off; the ratios; the breakdown"""
    doc, by = syscall_cost(gpiolat, script, 10, False)
    unt = doc["untraced_ns_per_syscall"]
    print(f"\nper syscall, BPF run-time stats {'ON' if doc.get('bpf_stats') else 'OFF'}: "
          f"worker on CPU {doc['cpu']}, {doc['rounds']} rounds x {doc['batches_per_run']} "
          f"batches of {doc['syscalls_per_batch']} syscalls per run; untraced syscall "
          f"{unt['mean_ns']:.1f} ns (sd {unt['sd_ns']:.1f} ns, {unt['batches']} batches)")
    print(f"  {'program (sys_enter + sys_exit)':70} {'ns added/syscall':>18} {'p50':>8} "
          f"{'p99':>8} {'rounds':>6}")
    rounds = {}
    for m in METHODS:
        r = by.get(m)
        if not r or not r["available"]:
            print(f"  {LABELS[m]:70} {(r or {}).get('reason', 'not run')}")
            continue
        a = r["added_ns_per_syscall"]
        rounds[m] = a["rounds_ns"]
        where = ""
        if r.get("hook"):
            where = f" [{r['hook']}" + (f", {r['start']}" if r.get("start") else "") + "]"
        print(f"  {LABELS[m] + where:70} {a['mean_ns']:8.1f} ± {ci95(a['rounds_ns']):6.1f} "
              f"{a['p50_ns']:8.1f} {a['p99_ns']:8.1f} {a['rounds']:6d}")
    print("  (ns added: mean over rounds ± 95 % CI, its variance counting the untraced run "
          "consecutive rounds share, Student t at half the degrees of freedom; p50/p99 of the "
          "batches)")
    ply = shutil.which("ply")
    print(f"  {'ply (the same histogram)':70} " +
          ("not measured: ply is on PATH but gpiolat --syscall-cost has no ply method yet"
           if ply else "not measured: ply is not on PATH"))

    hook = (by.get("bpf-hist") or {}).get("hook") or "?"
    floor = {"raw_tp": "bpf-empty-raw-tp", "tp_btf": "bpf-empty-tp-btf"}.get(hook)
    print("\nratios of the ns added per syscall (this run; 95 % Fieller intervals):")
    missed = False
    for other, tgt, label in ((floor, TARGETS["added_vs_empty"], f"empty programs ({hook})"),
                              ("bpftrace", TARGETS["added_vs_tools"], "bpftrace")):
        if "bpf-hist" in rounds and other in rounds:
            s, met = fmt_ratio(rounds["bpf-hist"], rounds[other], tgt)
            print(f"  histogram / {label:24}: {s}")
            missed |= met is False
    # the floor of a histogram of syscall times: the empty programs plus the two clock reads
    # a duration needs (the part that reads the clocks and keeps nothing)
    if hook == "raw_tp" and "bpf-hist" in rounds and "bpf-hist-clock" in rounds:
        s, met = fmt_ratio(rounds["bpf-hist"], rounds["bpf-hist-clock"],
                           TARGETS["added_vs_floor"])
        print(f"  histogram / {'its floor (clock reads)':24}: {s}")
        missed |= met is False
    print(f"  histogram / {'ply':24}: not measured (see above; target <= "
          f"{TARGETS['added_vs_tools']}x)")
    if "bpf-hist" in rounds and "bpf-hist-naive" in rounds:
        s, _ = fmt_ratio(rounds["bpf-hist"], rounds["bpf-hist-naive"])
        print(f"  histogram / {'update/delete (hash)':24}: {s}")

    parts = (floor, "bpf-hist-clock", "bpf-hist-start", "bpf-hist")
    if hook == "raw_tp" and all(p in rounds for p in parts):
        f, c, st, h = (mean_var(rounds[p])[0] for p in parts)
        print(f"\nwhere the histogram's ns added per syscall go ({hook}, stats off"
              f"{'; a target is missed' if missed else ''}; each part a program of its own, so "
              "each step carries the noise of two rows):")
        print(f"  {'the floor: two empty programs (the dispatch of sys_enter and sys_exit)':74} "
              f"{f:7.1f}")
        print(f"  {'+ one clock read per program (bpf_ktime_get_ns): irreducible':74} "
              f"{c - f:+7.1f}")
        print(f"  {'+ the start (per-CPU slot checked against the task; its switch program)':74} "
              f"{st - c:+7.1f}")
        print(f"  {'+ the histogram (per-CPU array, log2 slot, two adds)':74} {h - st:+7.1f}")
        print(f"  {'= gpiolat histogram':74} {h:7.1f}")
        print(f"  (the target 1.5x leaves {0.5 * f:.1f} ns over the floor; the two clock reads "
              f"alone take {c - f:.1f})")


def per_run(gpiolat, script):
    """BPF run time per program run: a run of its own, stats on"""
    _, by = syscall_cost(gpiolat, script, 3, True)
    print("\nBPF run time per program run (a run of its own with --bpf-stats: stats ON, "
          "each figure includes the stats' own two clock reads):")
    for m in METHODS:
        b = (by.get(m) or {}).get("bpf") or {}
        if b.get("mean_ns_per_run") is not None:
            print(f"  {LABELS[m]:70} {b['mean_ns_per_run']:8.1f} ns/run ({b['run_cnt']} runs)")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: host/bench.py GPIOLAT")
    gpiolat = sys.argv[1]
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    script = os.path.join(root, "ply", "syscall-hist.bt")

    print(f"make bench: gpiolat's own cost on {platform.node()} ({platform.system()} "
          f"{platform.release()} {platform.machine()}, {os.cpu_count()} CPUs); one run, "
          "figures not pass/fail")
    per_syscall(gpiolat, script)
    per_run(gpiolat, script)

    # ---- the loader ------------------------------------------------------------------------
    size = os.path.getsize(gpiolat)
    syms = subprocess.run(["readelf", "-S", "-W", gpiolat], capture_output=True,
                          text=True).stdout
    debug = ".debug_info" in syms
    print(f"\nloader ({gpiolat}, statically linked, as make STATIC=1 builds it to ship):")
    print(f"  binary size: {size / MIB:.2f} MiB ({size} bytes; "
          f"{'with debug info' if debug else 'stripped at link'}; "
          f"{'with' if '.symtab' in syms else 'no'} symbol table) (target <= "
          f"{TARGETS['static_mib']} MiB: {verdict(size / MIB, TARGETS['static_mib'])})")
    btf_mib = os.path.getsize("/sys/kernel/btf/vmlinux") / MIB
    for hook in (None, "raw_tp", "tp_btf"):
        firsts, rsss, since, where = [], [], [], ""
        for _ in range(5):
            first, _, out = run_loader(gpiolat, "--syscall-hist", "--json", "-d", "100ms",
                                       *(["--hook", hook] if hook else []))
            try:
                h = results.parse(out.splitlines()[0] if out else "", "syscall-hist",
                                  "gpiolat --syscall-hist --json")
            except results.BadResults as e:
                sys.exit(f"bench: {e}")
            firsts.append(first)
            # VmHWM, reported by the loader: wait4's ru_maxrss would include the python
            # process it was forked from
            rsss.append(h["peak_rss_kib"])
            since.append(h["since_start_ns"] / 1e9)
            where = f"{h['hook']}, {h['start']}"
        firsts.sort()
        name = f"--hook {hook}" if hook else "default"
        print(f"  --syscall-hist -d 100ms, {name} [{where}] (5 runs): first histogram "
              f"{firsts[2]:.3f} s after exec (median; min {firsts[0]:.3f}, max {firsts[-1]:.3f};"
              f" the loader's own clock {sorted(since)[2]:.3f} s; includes the 0.1 s traced) "
              f"(target <= {TARGETS['first_hist_s']} s: "
              f"{verdict(firsts[2], TARGETS['first_hist_s'])}); peak RSS "
              f"{max(rsss) / 1024:.1f} MiB (max; min {min(rsss) / 1024:.1f}) (target <= "
              f"{TARGETS['rss_mib']} MiB: {verdict(max(rsss) / 1024, TARGETS['rss_mib'])})")
    print(f"  (tp_btf attaches by BTF name: libbpf parses the kernel's whole BTF, {btf_mib:.1f} "
          "MiB here, which is most of its RSS; raw_tp needs no vmlinux BTF in libbpf)")

if __name__ == "__main__":
    sys.exit(results.run_main("bench.py", main))
