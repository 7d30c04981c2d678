"""Host side: the one model of every results file (docs/output-format.md, docs/host.md).

Every report, plot and page reads its JSON through load() or parse() here: the loader's
documents (gpiolat --json, --overhead --json, --syscall-cost --json, --syscall-hist --json,
--path --json, --wakeup/--gaps --json) and the host's own (histograms.json of host/report.py,
rt.json of host/rt_report.py, bench-gpio.json of host/bench_gpio.py, matrix.json of host/matrix.py, study.json of
host/bpf-histograms.sh). Each kind names the keys its readers rely on; a file without them is
refused with one line (BadResults: "PATH: not a KIND file: ..."), never a traceback in the
middle of a page.

Here too, once for every writer: the emulation caveat (caveat()), the one way to call gnuplot
(gnuplot()), the loader's rule for a reference figure beside a row (talk_beside(),
baseline_ref()) and the overhead rows of any loader version (methods()).
"""
import errno
import json
import os
import stat
import subprocess
import sys
import tempfile


class BadResults(Exception):
    """a results file that is not what its writer writes: the caller prints it in one line"""


NUM = (int, float)
# kind: (what writes it, {key: type} of the document, the list of items, {key: type} of each)
# A type of None: the key must be there, any value (null included).
KINDS = {
    "histogram": ("gpiolat --json", {"method": str, "hook": str, "lines": list},
                  "lines", {"gpio": int, "count": int, "unmatched": int, "rising": int,
                            "log2": list}),
    "overhead": ("gpiolat --overhead --json",
                 {"pulses_per_phase": int, "repetitions": int, "untraced_ns_per_set": NUM,
                  "noise_floor_sd_ns": NUM, "noise_floor_phases": int, "emulated": bool,
                  "clock": str, "resolution_ns": NUM, "warmup_batches": int,
                  "phase_statistic": str, "duration_s": NUM, "linear_fits": dict,
                  "methods": list},
                 "methods", {"method": str, "measured": bool}),
    "bench-gpio": ("host/bench_gpio.py",
                   {"pulses_per_phase": int, "repetitions": int, "untraced_ns_per_set": NUM,
                    "noise_floor_sd_ns": NUM, "noise_floor_phases": int, "methods": list},
                   "methods", {"method": str, "measured": bool}),
    "syscall-cost": ("gpiolat --syscall-cost --json",
                     {"rounds": int, "untraced_ns_per_syscall": dict, "methods": list},
                     "methods", {"name": str, "available": bool}),
    "syscall-hist": ("gpiolat --syscall-hist --json",
                     {"hook": str, "start": str, "count": int, "since_start_ns": int,
                      "peak_rss_kib": int, "log2": list},
                     "log2", {"low_ns": int, "high_ns": None, "count": int}),
    "path": ("gpiolat --path --json", {"rows": list, "differences": list},
             "rows", {"variable": str, "available": bool}),
    "wakeup": ("gpiolat --wakeup --json", {"run": dict, "tasks": list},
               "tasks", {"comm": str, "wakeups": int, "sleeps": int, "preemptions": int,
                         "wakeup": dict}),
    "gaps": ("gpiolat --gaps --json",
             {"gaps": dict, "sets": int, "threshold_ns": int, "gaps_over": int,
              "gaps_over_ns": int, "causes": list},
             "causes", {"cause": str, "what": str, "gaps": int, "total_ns": int}),
    "histograms": ("host/report.py", {"target": dict, "histograms": list, "unavailable": list},
                   "histograms", {"name": str, "tool": str, "line": dict, "log2": list,
                                  "summary": dict}),
    "rt": ("host/rt_report.py", {"emulated": bool, "kernels": list},
           "kernels", {"kernel": str, "info": dict}),
    "observer": ("host/pl061_trace.py --overhead",
                 {"clock": str, "line": int, "pulses": int, "pulses_per_phase": int,
                  "rows": list},
                 "rows", {"method": str, "observer_ns_per_set": NUM, "observer_phases_ns": list,
                          "module_ns_per_set": NUM, "program_ns_per_set": None,
                          "observer_vs_module": dict, "observer_vs_program": dict,
                          "verdict_in_guest": None}),
    "matrix": ("host/matrix.py", {"emulated": bool, "targets": list, "rows": list},
               "rows", {"method": str, "targets": dict}),
    "study": ("host/bpf-histograms.sh", {"target": str, "parts": list},
              "parts", {"part": str, "wall_s": NUM}),
}


def _type_ok(v, t):
    if t is None:
        return True
    if t is int or t == NUM:  # a bool is an int to Python, never to a reader of these files
        return isinstance(v, t) and not isinstance(v, bool)
    return isinstance(v, t)


def _tname(t):
    return {None: "any", int: "an integer", NUM: "a number", str: "a string", bool: "a boolean",
            list: "a list", dict: "an object"}[t]


def normalise(doc, kind):
    """older loaders' shapes as today's: --overhead's rows were "rows" before "methods" """
    if kind in ("overhead", "bench-gpio") and isinstance(doc, dict) and "methods" not in doc \
            and "rows" in doc:
        doc["methods"] = doc.pop("rows")
    return doc


def check(doc, kind, name, need=None):
    """doc if it has what KINDS says of kind, else BadResults naming name; need: the names of
    the document's keys this reader uses, when it uses fewer than every reader of the kind
    (the list of items is always needed)"""
    writer, keys, items, ikeys = KINDS[kind]
    if need is not None:
        keys = {k: t for k, t in keys.items() if k in need or k == items}
    bad = f"{name}: not a {kind} file ({writer})"
    if not isinstance(doc, dict):
        raise BadResults(f"{bad}: a {type(doc).__name__}, not an object")
    for k, t in keys.items():
        if k not in doc:
            raise BadResults(f"{bad}: no \"{k}\"")
        if not _type_ok(doc[k], t):
            raise BadResults(f"{bad}: \"{k}\" is not {_tname(t)}")
    for i, it in enumerate(doc[items]):
        if not isinstance(it, dict):
            raise BadResults(f"{bad}: {items}[{i}] is not an object")
        # a row that did not run names only why (its figures are absent): only its name needed
        need = ikeys if it.get("measured", it.get("available", True)) is not False else \
            {k: t for k, t in ikeys.items() if t is str}
        for k, t in need.items():
            if k not in it or not _type_ok(it[k], t):
                raise BadResults(f"{bad}: {items}[{i}] has no \"{k}\" ({_tname(t)})")
    return doc


def parse(text, kind, name, need=None):
    """the document of kind in text (JSON Lines of the histogram mode's -i: the totals)"""
    try:
        if kind == "histogram" and text.strip().count("\n"):
            docs = [json.loads(ln) for ln in text.splitlines() if ln.strip()]
            doc = next((d for d in reversed(docs) if isinstance(d, dict)
                        and d.get("interval") is None), docs[-1])
        else:
            doc = json.loads(text)
    except ValueError as e:
        raise BadResults(f"{name}: not valid JSON: {e}") from None
    return check(normalise(doc, kind), kind, name, need)


def load(path, kind, missing_ok=True, need=None):
    """the document of kind at path; None when there is no such file and missing_ok"""
    if missing_ok and not os.path.exists(path):
        return None
    try:
        text = read_text(path)
    except OSError as e:
        raise BadResults(f"{path}: {e.strerror}") from None
    return parse(text, kind, path, need)


# ---- files read and written: never waited on, never lost ------------------------------------
def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "of an unknown kind"


def _not_regular(path, mode):
    e = OSError(errno.EINVAL, f"{_kind(mode)}, not a regular file", path)
    return e


def open_text(path):
    """the regular file PATH open for reading text. A FIFO, device or directory is refused
    (OSError) without being opened: stat first, then the open with O_NONBLOCK and fstat again,
    so a FIFO put there in between is refused too, never waited on."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _not_regular(path, st.st_mode)
        os.set_blocking(fd, True)
        f = os.fdopen(fd, encoding="utf-8", errors="replace")
    except BaseException:
        os.close(fd)
        raise
    return f


def read_text(path):
    """the text of the regular file PATH (open_text: a FIFO is refused, never waited on)"""
    with open_text(path) as f:
        return f.read()


def check_output_path(path):
    """refuse (OSError) an output PATH that exists and is not a regular file: a FIFO would
    wait for a reader, a device would swallow the results"""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise _not_regular(path, st.st_mode)


def write_text(path, text):
    """TEXT written to PATH whole or not at all: an existing PATH that is not a regular file is
    refused (check_output_path); the text goes to a new file beside it (never a FIFO: created
    with O_EXCL), is flushed and closed with every error raised (OSError: a full disk), and
    only then renamed onto PATH"""
    check_output_path(path)
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".")
    try:
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(fd, 0o666 & ~mask)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _say_oserror(who, e):
    where = f"{e.filename}: " if e.filename else ""
    print(f"{who}: {where}{e.strerror or e}", file=sys.stderr)


def run_main(who, main, *args):
    """main(*args)'s exit status, with every write of the results checked: a closed stdout is
    refused before anything runs, stdout is flushed at the end, and a write that failed (a full
    disk, /dev/full, a reader gone, a FIFO refused) ends in one line and status 1, never a
    traceback or a silent exit 0"""
    if sys.stdout is None:
        # Python found fd 1 closed: print() would drop everything without a word
        print(f"{who}: stdout is closed: the results would be lost", file=sys.stderr)
        return 1
    try:
        rc = main(*args)
        sys.stdout.flush()
        return rc
    except OSError as e:
        _say_oserror(who, e)
        try:
            # the interpreter's own flush at exit must not fail again (a second message)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass
        return 1


def kind_of(doc):
    """the kind a loader's document says it is (tool and mode), or None"""
    tool, mode = doc.get("tool"), doc.get("mode")
    if tool == "gpiolat --overhead":
        return "bench-gpio" if "passes" in doc else "overhead"
    if tool == "gpiolat" and mode in ("syscall-cost", "syscall-hist", "path", "wakeup", "gaps"):
        return mode
    if tool == "gpiolat" and mode is None and "lines" in doc:
        return "histogram"
    if doc.get("report") == "bpf-histograms":
        return "histograms"
    if tool == "gpiolat rt-report":
        return "rt"
    if tool == "host/matrix.py":
        return "matrix"
    if tool == "host/pl061_trace.py --overhead":
        return "observer"
    return None


def methods(doc):
    """the --overhead rows of a document from any loader version"""
    return doc["methods" if "methods" in doc else "rows"]


def why_not(r):
    """an unmeasured --overhead row in words: "not measured: fired on k of n sets (...)" when
    its method ran but its own count fell short (no figure, docs/overhead.md "Fired"), else
    "not available: why" (the method cannot run here)"""
    if r.get("not_measured"):
        return "not measured: " + r["not_measured"]
    return "not available: " + str(r.get("not_available") or r.get("why") or "not measured")


# ---- the emulation caveat: one text, wherever an emulated figure is printed -----------------
CAVEAT = ("EMULATED timings (qemu TCG software emulation): these nanoseconds are not hardware "
          "nanoseconds; compare the rows with each other (orderings, ratios, slopes), not with "
          "a board's or the talk's oscilloscope figures")
ICOUNT = ("under TIMING=icount a nanosecond is one guest instruction (qemu -icount shift=0: no "
          "caches, memory latency or device timing; docs/timing.md), exactly repeatable, not a "
          "board's time")


# the same, short enough for a picture's title
TITLE = "EMULATED (qemu TCG): not hardware timings"


def caveat(timing=None):
    """the caveat; with timing "icount" it says what its nanosecond is"""
    return CAVEAT + ("; " + ICOUNT if timing == "icount" else "")


# ---- the one way to gnuplot -----------------------------------------------------------------
def gnuplot(script, png, who):
    """run gnuplot on script (which writes png); False with one line on stderr when it cannot
    (no gnuplot, an error): the text and JSON beside it stand without the picture. A png that
    is there and not a regular file is refused (OSError): gnuplot would wait on a FIFO"""
    check_output_path(png)
    try:
        p = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    except OSError as e:
        print(f"{who}: no {png}: gnuplot: {e.strerror}", file=sys.stderr)
        return False
    if p.returncode != 0 or not os.path.exists(png):
        why = (p.stderr.strip().splitlines() or [f"status {p.returncode}"])[-1]
        print(f"{who}: no {png}: gnuplot: {why}", file=sys.stderr)
        return False
    return True


# ---- reference figures: the loader's one rule (loader/core/baseline.c) ---------------------------
def baseline_ref(ours):
    """our reference's name in the talk's terms (loader/core/baseline.c, baseline_ref): our
    "untraced" and "mode=continuous" are its tracing-configured pulse, our untraced ioctl
    toggler its user-ioctl; any other reference is the same method by name"""
    if ours in ("untraced", "mode=continuous"):
        return "tracing-configured-rt"
    if ours == "untraced ioctl toggler":
        return "user-ioctl"
    return ours


def same_reference(ours, talks):
    """our row's reference is the talk's row's ("tracing-configured" of either kernel is the
    same pulse, tracing configured but off)"""
    a, b = baseline_ref(ours or ""), baseline_ref(talks or "")
    strip = lambda s: "tracing-configured" if s.startswith("tracing-configured") else s
    return bool(a) and strip(a) == strip(b)


def talk_beside(r):
    """the talk's figure for --overhead row r where the loader's rule lets it stand, else None
    (a file from before the rule, with its sums along "against", has no same_reference: none
    stands)"""
    t = r.get("talk")
    return t if t and t.get("same_reference") is True else None


def talk_per_set(r):
    """talk_beside(r) where ours stands beside it per set (a chart's axis is ns per set); None
    for a row beside it per pulse (a method that fires once a pulse: the talk's pulse+ held one
    of its pulses, ours is "ours_ns" per pulse), whose table cell says so"""
    t = talk_beside(r)
    return t if t and t.get("ours_per", "set") == "set" else None


def talk_words(t, fmt_ns):
    """the talk's figure T (talk_beside) in words, FMT_NS formatting a time: per pulse with
    ours per pulse beside it when the row fires once a pulse"""
    if t.get("ours_per") == "pulse":
        return (f"{fmt_ns(t['overhead_ns'])} per pulse+ ({t['row']}, against {t['against']}); "
                f"ours per pulse {fmt_ns(t['ours_ns'])} ± {fmt_ns(t.get('ours_ci95_ns'))}")
    return f"{fmt_ns(t['overhead_ns'])} ({t['row']}, against {t['against']})"


# ---- the talk's order: Spearman's rank correlation over the rows beside the talk -----------
def talk_pairs(doc):
    """[(method, ours_ns, talk_ns)] of every measured --overhead row with the talk's figure
    beside it (talk_beside: the same kind of method against the same reference), ours in the
    talk's unit: per set, or per pulse for a row beside it per pulse (talk_words)"""
    pairs = []
    for r in methods(doc):
        t = talk_beside(r) if r.get("measured") else None
        if not t or r.get("overhead_ns") is None:
            continue
        ours = t["ours_ns"] if t.get("ours_per") == "pulse" else r["overhead_ns"]
        pairs.append((r["method"], ours, t["overhead_ns"]))
    return pairs


def ranks(values):
    """1-based ranks of values, ascending; tied values share the mean of their ranks"""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs, ys):
    """Spearman's rho of paired xs, ys: Pearson's correlation of their ranks (ties: mean ranks);
    None for fewer than 3 pairs or when either side has one rank only"""
    if len(xs) != len(ys) or len(xs) < 3:
        return None
    a, b = ranks(xs), ranks(ys)
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    sab = sum((p - ma) * (q - mb) for p, q in zip(a, b))
    saa = sum((p - ma) ** 2 for p in a)
    sbb = sum((q - mb) ** 2 for q in b)
    if saa == 0 or sbb == 0:
        return None
    return sab / (saa * sbb) ** 0.5


def talk_rank(doc):
    """our rows beside the talk ranked against the talk's order: {"n", "rho" (None below 3
    rows), "rows": [{method, ours_ns, talk_ns, rank, talk_rank}] in the talk's order}"""
    p = talk_pairs(doc)
    ours, talks = [x[1] for x in p], [x[2] for x in p]
    ro, rt = ranks(ours), ranks(talks)
    rows = [{"method": m, "ours_ns": o, "talk_ns": t, "rank": a, "talk_rank": b}
            for (m, o, t), a, b in zip(p, ro, rt)]
    rows.sort(key=lambda r: (r["talk_rank"], r["method"]))
    return {"n": len(p), "rho": spearman(ours, talks), "rows": rows}


def rank_words(tr):
    """talk_rank(doc) in one line"""
    if tr["rho"] is None:
        return f"Spearman's rho against the talk's order: - ({tr['n']} rows beside the talk, 3 needed)"
    return (f"Spearman's rho against the talk's order: {tr['rho']:+.3f} over the {tr['n']} rows "
            "beside the talk (ours per set, or per pulse where the talk's is; rank 1 the least)")
