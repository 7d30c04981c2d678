"""The loader's file graph (no include cycle, no upward arrow, no hidden state), for
the whole loader, and the togglers (toggler/: no include cycle, no hidden state).

A file A points at a file B when A includes B's header (loader/X/B.h beside loader/X/B.c), or
when A's object uses a symbol B's object defines (nm: what a header declares, wherever it is
declared). A file also points at the folder of every loader header it includes (a header with
no .c of its own, like modes/overhead/overhead_int.h, still says which folder A leans on). Mutable state
at file scope (or static in a function) is an object in .data or .bss (objdump -t); const data
is in .rodata or .data.rel.ro.

The folders are layers, and arrows only go down: main.c -> modes/<mode>/ -> providers/ -> core/;
a mode never points at another mode's folder; core/ never at providers/ or modes/.

Every mode measures through providers: no object of loader/modes/ calls a BPF object (libbpf's
bpf_object__*, bpf_program__*, bpf_map__*, bpf_link__*, the map and program syscalls, a
skeleton's open, load, attach: they call bpf_object__*_skeleton) or libtracefs (tracefs_*,
tep_*), and no source of it names a file under tracefs. And core/ knows no mode: no code of
it (comments aside) names a mode's flag (the ones main.c's table tests, read from each mode's
*_wanted()) or a kernel object a mode names (its #define'd "gpiolat_..." instance or group).

    python3 tests/host/test_include_graph.py      prints every file's arrows and mutable data,
                                                  then each violation; exits 1 on any

(after `make loader`: it reads the objects in out/build/loader/).
"""
import functools
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
# the file-scope mutable variables the whole loader may keep, and why:
ALLOWED = {
    # the one run of the process (core/run.c), for the two callbacks that get no argument to find
    # it by: the signal handler (it only sets the_run->stop) and libbpf's print callback
    "run": {"the_run"},
    # argp prints --version from this variable, found by its name; glibc's argp.h declares it
    # `const char *argp_program_version` (not a const pointer), so a definition must match that;
    # the program's, beside the shared options
    "cli": {"argp_program_version"},
}
TOGGLER = os.path.join(ROOT, "toggler")
TOGGLER_OBJS = os.path.join(ROOT, "out", "build", "toggler")
# the togglers' file-scope mutable variables, and why: utoggle's stop flag, which its signal
# handler sets (a handler gets no argument to find the run by) and the run reads by pointer
TOGGLER_ALLOWED = {"utoggle": {"stop"}}


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


def folder(name):
    """the layer folder of a file: "main", "core", "providers" or "modes/MODE" """
    d = os.path.dirname(where()[name]) if name in where() else name
    return d or "main"


def rank(fold):
    """main 3, a mode 2, providers 1, core 0; None for what is not the loader's (bpf/, common/)"""
    if fold == "main":
        return 3
    if fold.startswith("modes/"):
        return 2
    return {"providers": 1, "core": 0}.get(fold)


def upward(src, dst):
    """does an arrow from folder SRC to folder DST go up, or sideways between two modes?"""
    if rank(src) is None or rank(dst) is None or src == dst:
        return False
    if src.startswith("modes/") and dst.startswith("modes/"):
        return True
    return rank(dst) > rank(src)


def syscall_mode(name):
    return name.startswith("sc_") or name == "syscall_cost"


def histogram_mode(name):
    return name.startswith("histo") or name == "selftest"


@functools.lru_cache(maxsize=None)  # the objects are built once, by the fixture, before any read
def symbols(name):
    """(defined, undefined, mutable data) symbols of loader/NAME.c's object"""
    return object_symbols(os.path.join(OBJS, where()[name] + ".o"))


def object_symbols(obj):
    """(defined, undefined, mutable data) symbols of the object OBJ"""
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
    by_path = {p: n for n, p in where().items()}
    syms = {n: symbols(n) for n in names}
    owner = {}
    for n in names:
        for s in syms[n][0]:
            owner[s] = n
    arrows = {}
    for n in names:
        with open(os.path.join(LOADER, where()[n] + ".c")) as f:
            text = f.read()
        to = {by_path[h] for h in INCLUDE.findall(text) if h in by_path}
        to |= {owner[s] for s in syms[n][1] if s in owner}
        arrows[n] = to - {n}
    return arrows, {n: syms[n][2] for n in names}


def header_folders(name):
    """the folders of the loader headers NAME's file includes (core, providers, modes/MODE)"""
    with open(os.path.join(LOADER, where()[name] + ".c")) as f:
        text = f.read()
    return {os.path.dirname(h) for h in INCLUDE.findall(text)
            if os.path.exists(os.path.join(LOADER, h + ".h")) and os.path.dirname(h)}


def violations(arrows, data, keep=lambda n: True):
    """the broken rules among the files keep() takes: ["upward: a -> b (core -> modes/x)", ...]"""
    out = []
    for n in sorted(arrows):
        if not keep(n):
            continue
        for m in sorted(arrows[n]):
            if upward(folder(n), folder(m)):
                out.append("upward: %s -> %s (%s -> %s)" % (n, m, folder(n), folder(m)))
        for h in sorted(header_folders(n)):
            if upward(folder(n), h):
                out.append("upward: %s includes a header of %s (%s)" % (n, h, folder(n)))
        hidden = data[n] - ALLOWED.get(n, set())
        if hidden:
            out.append("hidden state: %s: %s" % (n, " ".join(sorted(hidden))))
    groups = cycles(arrows, keep)
    out += ["cycle: " + " <-> ".join(c) for c in groups]
    return out


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


def test_overhead_mode_parts_point_only_downward(loader_graph):
    """the mode's top file (overhead.c, which main.c calls) is above its parts: none points up
    at it, by its header or by a symbol of it (their shared context is overhead_int.h's, at the bottom)"""
    arrows, _ = loader_graph
    assert [n for n in arrows if "overhead" in arrows[n]] == ["main"]


def test_syscall_mode_parts_point_only_downward(loader_graph):
    """the mode's entry (syscall_cost.c, which main.c calls) is above its parts: none points
    up at it, by its header or by a symbol of it"""
    arrows, _ = loader_graph
    up = sorted(n for n in arrows if n.startswith("sc_") and "syscall_cost" in arrows[n])
    assert up == []
    assert [n for n in arrows if "syscall_cost" in arrows[n]] == ["main"]


def test_no_hidden_state_in_the_syscall_mode(loader_graph):
    _, data = loader_graph
    assert {n: sorted(d) for n, d in data.items() if syscall_mode(n) and d} == {}


# every mode's run is a struct mode_ops driven by run_mode() (core/run.h)
RUN_MODES = ("modes/histogram", "modes/overhead", "modes/path", "modes/rt", "modes/syscall")


def test_modes_run_through_run_mode_and_never_exit(loader_graph):
    """each of these modes has a file that calls run_mode(), and none of its files calls exit():
    a parser says --help or a bad usage by what it returns, and every way out of the run passes
    the mode's undo step (a forked child's _exit() is another symbol)"""
    files = {f: [n for n in sources() if folder(n) == f] for f in RUN_MODES}
    assert all(files.values())
    undefined = {n: symbols(n)[1] for f in RUN_MODES for n in files[f]}
    assert [f for f in RUN_MODES if not any("run_mode" in undefined[n] for n in files[f])] == []
    assert sorted(n for n, u in undefined.items() if "exit" in u) == []


def test_the_histogram_parser_only_parses(loader_graph):
    """histo_opts.c reads the command line and nothing else: the BTF file for CO-RE
    is looked for in the prepare step (histo.c calls btf_find), so the parser points only at
    the command line's helpers and the hooks' table (its options); files.c among them: a file argument's kind (a FIFO, a directory
    is refused as it is parsed, in the usage line), never its content"""
    arrows, _ = loader_graph
    # gpio_hooks: the hooks' table, each hook's option (data only)
    assert sorted(arrows["histo_opts"]) == ["cli", "files", "gpio_hooks", "parse", "run"]


# what a mode may not call itself (nm: the symbols its object leaves undefined), and why each:
# the providers (and core) hold every BPF object and every tracefs file
BPF_OR_TRACEFS = re.compile(
    r"^(bpf_object__|bpf_program__|bpf_map__|bpf_link__"  # libbpf's objects, a skeleton's calls
    r"|bpf_map_|bpf_prog_|bpf_obj_|bpf_link_"  # the syscalls on a map, program, link by fd
    r"|tracefs_|tep_)")  # libtracefs, and libtraceevent behind it
# a file under tracefs named in a mode's source: a write (or read) by hand
TRACEFS_FILE = re.compile(r'"[^"\n]*(?:/sys/kernel/(?:debug/)?tracing|instances/|events/|'
                          r'trace_marker|trace_clock|available_events|kprobe_events|'
                          r'uprobe_events|dynamic_events|current_tracer|set_ftrace_)[^"\n]*"')
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def mode_files():
    return [n for n in sources() if folder(n).startswith("modes/")]


def mode_calls(name):
    """the BPF-object and tracefs symbols NAME's object calls"""
    return sorted(u for u in symbols(name)[1] if BPF_OR_TRACEFS.match(u))


def code(path):
    """a C file without its comments"""
    with open(path) as f:
        return COMMENT.sub(" ", f.read())


def mode_names():
    """every mode's names: the flags its *_wanted() (named by main.c's table) looks for, and
    the names it gives its kernel objects (#define NAME "gpiolat_...")"""
    with open(os.path.join(LOADER, "main.c")) as f:
        table = f.read().split("modes[] = {", 1)[1].split("};", 1)[0]
    wanted = re.findall(r"\{\s*\"[^\"]*\",\s*(\w+_wanted),", COMMENT.sub(" ", table))
    names = set()
    for d, _, files in os.walk(os.path.join(LOADER, "modes")):
        for f in files:
            text = code(os.path.join(d, f))
            for w in wanted:
                m = re.search(r"\bbool\s+%s\s*\([^)]*\)\s*\{(.*?)\n\}" % w, text, re.S)
                if m:
                    names |= {v for v in LITERAL.findall(m.group(1)) if v.startswith("--") and len(v) > 2}
            names |= set(re.findall(r'^\s*#\s*define\s+\w+\s+"(gpiolat_\w+)"', text, re.M))
    return wanted, names


def core_mentions(names):
    """{core file: the mode names its code (string literals, identifiers) holds}"""
    out = {}
    core = os.path.join(LOADER, "core")
    for f in sorted(os.listdir(core)):
        if not f.endswith((".c", ".h")):
            continue
        text = code(os.path.join(core, f))
        hit = sorted(n for n in names
                     if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(n), text))
        if hit:
            out[f] = hit
    return out


def test_the_mode_checks_see_what_they_look_for():
    """the patterns catch what they are for (so that an empty finding means something)"""
    assert BPF_OR_TRACEFS.match("bpf_object__open_skeleton")
    assert BPF_OR_TRACEFS.match("bpf_map_lookup_elem") and BPF_OR_TRACEFS.match("tracefs_put_tracing_file")
    assert not BPF_OR_TRACEFS.match("bpf_enable_stats") and not BPF_OR_TRACEFS.match("probe_read")
    assert TRACEFS_FILE.search('snprintf(p, n, "%s/instances/" INST, dir)')
    assert TRACEFS_FILE.search('sys_write_str("/sys/kernel/tracing/events/gpio/enable", "1")')
    assert not TRACEFS_FILE.search('printf("tracing off\\n")')
    assert code("/dev/null") == ""


def test_modes_measure_only_through_providers(loader_graph):
    """no mode's object calls a BPF object or libtracefs: the providers do"""
    files = mode_files()
    assert len(files) > 20 and {folder(n) for n in files} >= set(RUN_MODES)
    assert {n: mode_calls(n) for n in files if mode_calls(n)} == {}


def test_modes_name_no_tracefs_file():
    """no mode's source names a file under tracefs (a write by hand)"""
    found = {}
    for d, _, files in os.walk(os.path.join(LOADER, "modes")):
        for f in sorted(files):
            hits = TRACEFS_FILE.findall(code(os.path.join(d, f)))
            if hits:
                found[f] = hits
    assert found == {}


def test_core_names_no_mode():
    """core/ holds no mode's name: its flags (from main.c's table of modes) and the names it
    gives its kernel objects"""
    wanted, names = mode_names()
    # every mode with a flag is found, each with at least one
    assert len(wanted) >= 6
    assert {"--overhead", "--path", "--wakeup", "--gaps", "--cleanup", "--syscall-cost"} <= names
    assert {"gpiolat_sc", "gpiolat_path"} <= names
    assert core_mentions(names) == {}


def test_folders_and_layers():
    assert upward("core", "providers") and upward("core", "modes/path")
    assert upward("providers", "modes/overhead") and upward("modes/path", "modes/rt")
    assert upward("modes/rt", "main")
    assert not upward("main", "modes/rt") and not upward("modes/rt", "providers")
    assert not upward("providers", "core") and not upward("core", "core")


def test_no_cycle_anywhere(loader_graph):
    arrows, _ = loader_graph
    assert cycles(arrows, lambda n: True) == []


def test_no_upward_arrow_anywhere(loader_graph):
    arrows, data = loader_graph
    assert [v for v in violations(arrows, data) if v.startswith("upward")] == []


def test_no_hidden_state_anywhere(loader_graph):
    arrows, data = loader_graph
    assert [v for v in violations(arrows, data) if v.startswith("hidden")] == []


def toggler_graph():
    """toggler/'s {file: files it points at} (its headers, the symbols it uses) and mutable data"""
    names = sorted(f[:-2] for f in os.listdir(TOGGLER) if f.endswith(".c"))
    syms = {n: object_symbols(os.path.join(TOGGLER_OBJS, n + ".o")) for n in names}
    owner = {s: n for n in names for s in syms[n][0]}
    arrows = {}
    for n in names:
        with open(os.path.join(TOGGLER, n + ".c")) as f:
            to = {h for h in INCLUDE.findall(f.read()) if h in names}
        arrows[n] = (to | {owner[s] for s in syms[n][1] if s in owner}) - {n}
    return arrows, {n: syms[n][2] for n in names}


def test_toggler_has_no_cycle_and_no_hidden_state():
    r = subprocess.run(["make", "-s", "-C", ROOT, "togglers"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    arrows, data = toggler_graph()
    assert "utoggle_gpio" in arrows["utoggle_run"]  # the graph sees the arrows it checks
    assert cycles(arrows, lambda n: True) == []
    assert {n: d - TOGGLER_ALLOWED.get(n, set()) for n, d in data.items()
            if d - TOGGLER_ALLOWED.get(n, set())} == {}


if __name__ == "__main__":
    arrows, data = graph()
    for n in sorted(arrows, key=lambda n: (-(rank(folder(n)) or 0), folder(n), n)):
        print("%-28s -> %s" % (where()[n], " ".join(sorted(arrows[n])) or "-"))
        if data[n]:
            print("%-28s    mutable: %s" % ("", " ".join(sorted(data[n]))))
    bad = violations(arrows, data)
    for v in bad:
        print(v)
    sys.exit(1 if bad else 0)
