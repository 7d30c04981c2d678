"""Host side: host/results.py, the one model of every results file: each JSON the loader and
the host's writers made for tests/host/data is read by its kind; a malformed one is refused in
one line; one caveat text and one gnuplot call for every writer."""
import copy
import glob
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "host", "data")
sys.path.insert(0, os.path.join(ROOT, "host"))
import results  # noqa: E402

# every results file in tests/host/data by the kind its writer makes (a new file must be named
# here); bpftrace's own -f json output is bpftrace's, read by host/report.py
BY_NAME = {"histograms.json": "histograms", "overhead.json": "overhead",
           "gpio-path.json": "path", "rt.json": "rt", "bench-gpio.json": "bench-gpio",
           "syscall-cost.json": "syscall-cost", "syscall-hist.json": "syscall-hist",
           "wakeup.json": "wakeup", "gaps.json": "gaps", "observer.json": "observer",
           "matrix.json": "matrix", "study.json": "study"}


def kind_for(path):
    name = os.path.basename(path)
    if name.startswith("gpiolat-"):
        return "histogram"
    if name.startswith("bpftrace-"):
        return None
    if name.startswith("overhead-"):  # tests/host/data/compare/: two runs' gpiolat --overhead
        return "overhead"
    return BY_NAME[name]


FILES = sorted(p for p in glob.glob(os.path.join(DATA, "**", "*.json"), recursive=True)
               if kind_for(p) is not None)


def test_the_test_data_holds_a_file_of_every_kind():
    kinds = {kind_for(p) for p in FILES}
    # study.json: host/bpf-histograms.sh's, made by its writer in test_bpf_histograms.py
    assert kinds >= set(results.KINDS) - {"study"}, set(results.KINDS) - kinds


@pytest.mark.parametrize("path", FILES, ids=lambda p: os.path.relpath(p, DATA))
def test_every_results_file_is_read_by_its_kind(path):
    kind = kind_for(path)
    doc = results.load(path, kind)
    items = doc[results.KINDS[kind][2]]
    assert isinstance(items, list) and items, path
    # a document that names itself (tool, mode) names the same kind
    assert results.kind_of(doc) in (None, kind)


def one_of(kind):
    return next(p for p in FILES if kind_for(p) == kind)


def refused(doc, kind, *words):
    with pytest.raises(results.BadResults) as e:
        results.check(doc, kind, "x.json")
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("x.json: not a " + kind), msg
    for w in words:
        assert w in msg, msg


@pytest.mark.parametrize("kind", sorted(set(results.KINDS) - {"study"}))
def test_a_file_without_what_its_readers_use_is_refused_in_one_line(kind):
    with open(one_of(kind)) as f:
        doc = results.normalise(json.load(f), kind)
    _, keys, items, ikeys = results.KINDS[kind]
    for k in keys:  # each key the readers use, taken away in turn
        bad = copy.deepcopy(doc)
        del bad[k]
        refused(bad, kind, f'no "{k}"')
    bad = copy.deepcopy(doc)
    bad[items] = "x"
    refused(bad, kind, f'"{items}" is not a list')
    # an item without a key its readers use (the first item that ran, so every key is needed)
    i = next(i for i, it in enumerate(doc[items])
             if it.get("measured", it.get("available", True)) is not False)
    k = next(iter(ikeys))
    bad = copy.deepcopy(doc)
    del bad[items][i][k]
    refused(bad, kind, f'{items}[{i}] has no "{k}"')
    refused([doc], kind, "not an object")


def test_wrong_types_and_bad_json_are_refused(tmp_path):
    with open(one_of("overhead")) as f:
        doc = json.load(f)
    refused(dict(doc, repetitions=True), "overhead", '"repetitions" is not an integer')
    refused(dict(doc, untraced_ns_per_set="1.5"), "overhead", "is not a number")
    p = tmp_path / "overhead.json"
    p.write_text(json.dumps(doc)[:-20])
    with pytest.raises(results.BadResults, match=r"overhead.json: not valid JSON"):
        results.load(str(p), "overhead")
    assert results.load(str(tmp_path / "none.json"), "overhead") is None
    with pytest.raises(results.BadResults, match="none.json"):
        results.load(str(tmp_path / "none.json"), "overhead", missing_ok=False)


def test_older_overhead_rows_read_as_todays():
    with open(one_of("overhead")) as f:
        doc = json.load(f)
    old = dict(doc, rows=doc.pop("methods"))
    assert results.parse(json.dumps(old), "overhead", "old.json")["methods"] == old["rows"]


def test_histogram_json_lines_give_the_totals():
    with open(one_of("histogram")) as f:
        totals = json.load(f)
    interval = dict(totals, interval=1, start_ns=0, end_ns=10)
    text = json.dumps(interval) + "\n" + json.dumps(totals) + "\n"
    assert results.parse(text, "histogram", "h.json")["interval"] is None


@pytest.mark.parametrize("script,args,name", [
    ("overhead.py", ["RAW", "OUT"], "RAW"),
    ("pl061_trace.py", ["TRACE", "--overhead", "RAW"], "RAW"),
    ("bench_gpio.py", ["--from", "RAW"], "RAW"),
])
def test_each_reader_refuses_a_malformed_file_in_one_line(tmp_path, script, args, name):
    raw = tmp_path / "raw.json"
    raw.write_text('{"tool": "gpiolat --overhead", "methods": []}')
    trace = tmp_path / "trace"
    trace.write_text("")
    argv = [str(raw) if a == "RAW" else str(trace) if a == "TRACE" else
            str(tmp_path / "out") if a == "OUT" else a for a in args]
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", script)] + argv,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert len(r.stderr.splitlines()) == 1 and str(raw) in r.stderr, r.stderr
    assert "not a overhead file" in r.stderr or "not a bench-gpio file" in r.stderr


def sources():
    out = {}
    for p in glob.glob(os.path.join(ROOT, "host", "*.py")):
        with open(p) as f:
            out[os.path.basename(p)] = f.read()
    return out


def test_one_caveat_text_and_one_gnuplot_call():
    src = sources()
    # gnuplot is run in one place; every PNG goes through results.gnuplot
    assert [n for n, s in src.items() if re.search(r"""\[\s*["']gnuplot["']""", s)] == \
        ["results.py"]
    # no writer keeps a caveat of its own (the old texts, and any "not real-hardware")
    for n, s in src.items():
        if n == "results.py":
            continue
        for old in ("real-hardware", "TIMINGS ARE EMULATED", "2 vCPUs run by one host thread",
                    "EMULATION_CAVEAT"):
            assert old not in s, (n, old)
    assert "EMULATED" in results.caveat() and "not hardware" in results.caveat()
    assert "one guest instruction" in results.caveat("icount")
    assert "one guest instruction" not in results.caveat("real")


def test_a_failed_plot_is_one_line_and_no_picture(tmp_path, capsys):
    png = str(tmp_path / "x.png")
    assert not results.gnuplot("this is not gnuplot\n", png, "test")
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith(f"test: no {png}: gnuplot")
    assert results.gnuplot(f"set terminal pngcairo; set output '{png}'; plot x\n", png, "test")
    with open(png, "rb") as f:
        assert f.read(4) == b"\x89PNG"


def test_a_reader_that_uses_fewer_keys_needs_only_those():
    with open(one_of("overhead")) as f:
        doc = json.load(f)
    small = {"pulses_per_phase": doc["pulses_per_phase"], "methods": doc["methods"]}
    assert results.check(small, "overhead", "x.json", need=("pulses_per_phase",)) is small
    refused(small, "overhead", 'no "repetitions"')
    with pytest.raises(results.BadResults, match='no "methods"'):
        results.check({"pulses_per_phase": 5}, "overhead", "x.json", need=("pulses_per_phase",))


def test_a_row_beside_the_talk_per_pulse_is_not_on_the_per_set_axis():
    # user-ioctl-uprobe fires once a pulse: the loader puts ours per pulse beside the talk's
    # pulse+ figure (talk.ours_per "pulse"); a per-set chart draws no talk mark for it
    per_pulse = {"method": "user-ioctl-uprobe", "overhead_ns": 1860.0,
                 "talk": {"row": "user-ioctl-uprobe", "overhead_ns": 14410.0,
                          "against": "user-ioctl", "same_reference": True, "ours_per": "pulse",
                          "ours_ns": 3720.0, "ours_ci95_ns": 2.0}}
    per_set = {"method": "event", "overhead_ns": 600.0,
               "talk": {"row": "event", "overhead_ns": 1190.0, "against": "tracing-configured-rt",
                        "same_reference": True, "ours_per": "set", "ours_ns": 600.0}}
    old = {"method": "event", "overhead_ns": 600.0,
           "talk": {"row": "event", "overhead_ns": 1190.0, "against": "tracing-configured-rt",
                    "same_reference": True}}
    assert results.talk_beside(per_pulse) is per_pulse["talk"]
    assert results.talk_per_set(per_pulse) is None
    assert results.talk_per_set(per_set) is per_set["talk"]
    assert results.talk_per_set(old) is old["talk"]
    f = lambda v: f"{v:.0f}"
    assert results.talk_words(per_pulse["talk"], f) == (
        "14410 per pulse+ (user-ioctl-uprobe, against user-ioctl); ours per pulse 3720 ± 2")
    assert results.talk_words(per_set["talk"], f) == "1190 (event, against tracing-configured-rt)"
    import report_html  # noqa: E402
    cell = report_html.talk_cell(per_pulse)
    assert "per pulse+" in cell and "ours per pulse" in cell and "not on the per-set chart" in cell
