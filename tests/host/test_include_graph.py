"""The loader's file graph (issue 20: no include cycle, no upward arrow, no hidden state), checked
for the files cleaned so far: the --syscall-cost mode (loader/sc_*.c under its entry
loader/modes/syscall/syscall_cost.c) and the histogram mode (loader/histo*.c, loader/modes/histogram/selftest.c).

A file A points at a file B when A includes B's header (loader/B.h beside loader/B.c), or when
A's object uses a symbol B's object defines (nm: what a header declares, wherever it is
declared). Mutable state at file scope (or static in a function) is an object in .data or
.bss (objdump -t); const data is in .rodata or .data.rel.ro.

    python3 tests/host/test_include_graph.py      prints the arrows among the checked files
"""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LOADER = os.path.join(ROOT, "loader")
OBJS = os.path.join(ROOT, "out", "build", "loader")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)\.h"', re.M)
# objdump -t: "0000000000000000 l     O .bss\t0000000000000004 exiting"
DATA = re.compile(r"^\S+ .{6}O (\.data(?!\.rel\.ro)\S*|\.bss\S*)\s+\S+ (\S+)$", re.M)
# the one file-scope mutable variable left in the --syscall-cost mode: its signal handler's flag
# (a handler gets no argument to find a context by; it sets this, the run reads it by pointer)
SIGNAL_FLAG = {"syscall_cost": {"stop_requested"}}


def where():
    """{name: its path below loader/ without .c} for every loader/**/NAME.c (names are unique)"""
    out = {}
    for d, _, files in os.walk(LOADER):
        rel = os.path.relpath(d, LOADER)
        if rel == "test":
            continue
        for f in files:
            if f.endswith(".c"):
                out[f[:-2]] = os.path.normpath(os.path.join(rel, f[:-2]))
    return out


def sources():
    return sorted(where())


def syscall_mode(name):
    return name.startswith("sc_") or name == "syscall_cost"


def histogram_mode(name):
    return name.startswith("histo") or name == "selftest"


def symbols(name):
    """(defined, undefined, mutable data) symbols of loader/NAME.c's object"""
    obj = os.path.join(OBJS, where()[name] + ".o")
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined, data = set(), set(), set()
    for line in out.splitlines():
        sym, kind = line.split()[:2]
        if kind == "U":
            undefined.add(sym)
        elif kind.isupper():
            defined.add(sym)
    # objects in .data or .bss (not .data.rel.ro: const data holding pointers)
    out = subprocess.run(["objdump", "-t", obj], capture_output=True, text=True,
                         check=True).stdout
    for m in DATA.finditer(out):
        data.add(m.group(2))
    return defined, undefined, data


def graph():
    """{file: set of files it points at}, and {file: its mutable data symbols}"""
    names = sources()
    syms = {n: symbols(n) for n in names}
    owner = {}
    for n in names:
        for s in syms[n][0]:
            owner[s] = n
    arrows = {}
    for n in names:
        with open(os.path.join(LOADER, where()[n] + ".c")) as f:
            text = f.read()
        to = {os.path.basename(h) for h in INCLUDE.findall(text)} & set(names)
        to |= {owner[s] for s in syms[n][1] if s in owner}
        arrows[n] = to - {n}
    return arrows, {n: syms[n][2] for n in names}


def cycles(arrows, keep):
    """the strongly connected groups of more than one file among the files keep() takes"""
    nodes = [n for n in arrows if keep(n)]
    index, low, stack, on, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(arrows[v]):
            if not keep(w):
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for n in nodes:
        if n not in index:
            visit(n)
    return groups


@pytest.fixture(scope="module")
def loader_graph():
    r = subprocess.run(["make", "-s", "-C", ROOT, "loader"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return graph()


def test_the_cycle_finder_finds_a_cycle_and_only_one():
    arrows = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(arrows, lambda n: True) == [["a", "b", "c"]]
    assert cycles(arrows, lambda n: n != "c") == []


def test_no_cycle_in_the_syscall_mode(loader_graph):
    arrows, _ = loader_graph
    assert cycles(arrows, syscall_mode) == []


def test_no_cycle_between_the_histogram_mode_and_its_self_test(loader_graph):
    arrows, _ = loader_graph
    assert cycles(arrows, histogram_mode) == []


def test_syscall_mode_parts_point_only_downward(loader_graph):
    """the mode's entry (syscall_cost.c, which main.c calls) is above its parts: none points
    up at it, by its header or by a symbol of it"""
    arrows, _ = loader_graph
    up = sorted(n for n in arrows if n.startswith("sc_") and "syscall_cost" in arrows[n])
    assert up == []
    assert [n for n in arrows if "syscall_cost" in arrows[n]] == ["main"]


def test_no_hidden_state_in_the_syscall_mode(loader_graph):
    _, data = loader_graph
    hidden = {n: sorted(d - SIGNAL_FLAG.get(n, set())) for n, d in data.items()
              if syscall_mode(n)}
    assert {n: d for n, d in hidden.items() if d} == {}


if __name__ == "__main__":
    arrows, data = graph()
    for n in sorted(arrows):
        if syscall_mode(n) or histogram_mode(n):
            print("%s -> %s" % (n, " ".join(sorted(arrows[n])) or "-"))
            if data[n]:
                print("%s   mutable: %s" % (" " * len(n), " ".join(sorted(data[n]))))
    bad = cycles(arrows, syscall_mode) + cycles(arrows, histogram_mode)
    for c in bad:
        print("cycle: " + " <-> ".join(c))
    sys.exit(1 if bad else 0)
