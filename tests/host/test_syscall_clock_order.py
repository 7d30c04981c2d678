"""The syscall histogram's clock reads sit where its comments say.

sys_enter must read the clock last, sys_exit first: a map lookup or update after the start's
clock read (or before the end's) lands inside the syscall being measured. The programs are
checked as the kernel runs them: gpiolat --syscall-hist loads them (the per-CPU slot, and the LRU
hash fallback with GPIOLAT_SC_LRU=1), and the verifier's translation (bpftool prog dump
xlated), where the branches that the frozen rodata rules out are gone, is walked path by path:
on every path from entry to exit, no helper call follows the clock read in the enter program,
and none precedes it in the exit program.
"""
import json
import os
import re
import subprocess
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))
INSN = re.compile(r"^\s*(\d+): \(([0-9a-f]{2})\) (.*)$")


pytestmark = pytest.mark.usefixtures("gpiolat_root")


def parse(xlated):
    """{index: (opcode, text)} of one program's translated instructions"""
    prog = {}
    for line in xlated.splitlines():
        m = INSN.match(line)
        if m:
            prog[int(m.group(1))] = (m.group(2), m.group(3))
    return prog


def successors(prog, i):
    op, text = prog[i]
    nxt = min((j for j in prog if j > i), default=None)
    if op == "95":  # exit
        return []
    m = re.search(r"goto pc([+-]\d+)", text)
    if m:
        target = i + 1 + int(m.group(1))
        # an unconditional jump (BPF_JA, of either class) has one successor
        return [target] if op in ("05", "06") else [target, nxt]
    return [nxt]


def calls_around_clock(prog, clock_last):
    """the helper calls that break the rule on some path: after the clock read (clock_last),
    or before it (not clock_last); a path is walked with one bit of state"""
    bad = set()
    seen = set()
    stack = [(min(prog), False)]
    while stack:
        i, flag = stack.pop()
        if i is None or (i, flag) in seen:
            continue
        seen.add((i, flag))
        op, text = prog[i]
        if op == "85" and text.startswith("call "):
            clock = "ktime_get" in text
            if clock_last:
                # flag: the clock was read on this path
                if flag and not clock:
                    bad.add(text)
                flag = flag or clock
            else:
                # flag: another helper was called on this path
                if clock and flag:
                    bad.add(text)
                flag = flag or not clock
        for s in successors(prog, i):
            stack.append((s, flag))
    return bad


def our_programs():
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True, text=True,
                         timeout=30).stdout
    return {p["name"]: p["id"] for p in json.loads(out or "[]")
            if p.get("name", "").startswith(("sc_raw_", "sc_btf_", "sc_tp_"))}


@pytest.mark.parametrize("lru", ["0", "1"], ids=["per-cpu-slot", "lru-hash"])
def test_clock_last_on_enter_first_on_exit(lru):
    env = dict(os.environ, GPIOLAT_SC_LRU=lru)
    # an earlier run's programs (the other case's) go after it exits, not at once: this run's
    # are told from them only when none is left (bpftool here shows no owner pids)
    deadline = time.monotonic() + 30
    while our_programs() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not our_programs(), f"an earlier run's programs still loaded: {our_programs()}"
    p = subprocess.Popen([GPIOLAT, "--syscall-hist", "-d", "20s"], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        progs = {}
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and p.poll() is None:
            progs = our_programs()
            if any("enter" in n for n in progs) and any("exit" in n for n in progs):
                break
            time.sleep(0.2)
        assert progs, f"gpiolat --syscall-hist loaded no program within 15 s (exit {p.poll()})"
        checked = 0
        for name, pid in progs.items():
            if "clock" in name:
                continue  # the clock-only parts of make bench: one read, nothing else
            xl = subprocess.run(["bpftool", "prog", "dump", "xlated", "id", str(pid)],
                                capture_output=True, text=True, timeout=30).stdout
            prog = parse(xl)
            assert prog, f"no instructions in bpftool's dump of {name}"
            assert any("ktime_get" in t for _, t in prog.values()), f"{name} reads no clock"
            enter = "enter" in name
            bad = calls_around_clock(prog, clock_last=enter)
            where = "after the start's clock read" if enter else "before the end's clock read"
            assert not bad, f"{name} (GPIOLAT_SC_LRU={lru}): {sorted(bad)} {where}"
            checked += 1
        assert checked >= 2, f"checked {checked} programs of {sorted(progs)}"
    finally:
        p.terminate()
        p.wait(timeout=30)
