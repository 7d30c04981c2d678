"""host/report_html.py: the one page of results, built from canned results in the studies' own
formats (tests/host/data/report: histograms.json by host/report.py from the raw files of a real
emulated study/histograms.sh PULSES=200, kept in raw/; overhead.json from a real emulated
make overhead-report OVERHEAD_ARGS=--quick; observer.json from a real emulated observer part
(the ARM target's PL061 traced by qemu, real time); all three made by tests/host/data/regen.sh; rt.json,
bench-gpio.json and syscall-cost.json made by tests/host/data/report/make-fixtures.py, which
says how), checked as text and in a real browser.

The browser part opens the page in headless Chromium: every figure must have a non-zero size
(the page's own check, in <body data-figures>) and no script error (data-errors). It skips only
when chromium is not installed (host/deps.sh installs it).
"""
import json
import os
import re
import statistics
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(os.path.dirname(__file__), "data", "report")
SCRIPT = os.path.join(ROOT, "host", "report_html.py")
sys.path.insert(0, os.path.join(ROOT, "host"))
import bench_gpio  # noqa: E402
import report  # noqa: E402
import report_html  # noqa: E402
import rt_report  # noqa: E402

CHROMIUM = shutil.which("chromium")


ALL = ("histograms.json", "overhead.json", "gpio-path.json", "raw", "rt.json", "bench-gpio.json",
       "observer.json", "syscall-cost.json")


def fixture(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def section(page, sid):
    sec = page[page.index(f"<section id={sid}>"):]
    return sec[:sec.index("</section>")]


def row_of(sec, first_cell):
    """the table row whose first cell is first_cell, as a list of its cells' text"""
    m = re.search(rf"<tr(?: class=na)?><td>{re.escape(first_cell)}</td>(.*?)</tr>", sec)
    assert m, first_cell
    return [first_cell] + re.findall(r"<td[^>]*>(.*?)</td>", m.group(1))


def build(tmp_path, files=ALL):
    res = tmp_path / "results"
    res.mkdir()
    for f in files:
        src = os.path.join(DATA, f)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, res / f)
    r = subprocess.run([sys.executable, SCRIPT, str(res)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return res / "report.html"


def test_page_opens_with_the_summary_and_is_self_contained(tmp_path):
    page = build(tmp_path).read_text()
    body = page[page.index("<body"):]
    # the answer first: the summary table comes before every figure
    assert body.index("id=summary") < body.index("<figure")
    # nothing fetched: no external script, style sheet, font or image
    assert not re.search(r'(src|href)=["\']?(https?:|//)', page)
    assert "@import" not in page and "url(" not in page
    # the CDFs, the overhead bars, a fit per series, the GPIO path, RT's wakeups, bench-gpio's
    # and the syscall cost's bars
    assert page.count("<figure") == 7 and page.count("<svg") == 8
    # every section in the table of contents, in the order of the page
    toc = re.findall(r"<a href=#([\w-]+)>", body)
    sids = re.findall(r"<section id=([\w-]+)>", body)
    assert toc == sids, (toc, sids)
    # the emulation caveat beside the numbers, in every section of emulated results
    for sid in ("summary", "histograms", "overhead", "fits", "gpio-path", "rt", "bench-gpio"):
        sec = body[body.index(f"<section id={sid}>"):]
        sec = sec[:sec.index("</section>")]
        assert "not hardware nanoseconds" in sec, sid


def talk_cells_checked(page, ov):
    """every measured row's talk cell under the loader's verdict (talk.same_reference, the one
    rule of loader/core/baseline.c): the figure beside exactly the rows it marks true; "different
    reference" and no figure where false; "none" and no figure where a file carries no verdict.
    Returns how many of each were seen."""
    rows = {r["method"]: r for r in ov["methods"] if r.get("measured")}
    seen_same = seen_diff = seen_none = 0
    for name, r in rows.items():
        m = re.search(rf"<tr><td>{re.escape(name)}</td>.*?</tr>", page)
        assert m, name
        cell = m.group(0).split("<td>")[-1]
        t = r.get("talk")
        if not t:
            assert cell.startswith("-"), (name, cell)
        elif t.get("same_reference") is True:
            assert cell.startswith(report_html.fmt_ns(t["overhead_ns"])), (name, cell)
            assert f"talk's {report_html.esc(t['row'])}, against" in cell, (name, cell)
            seen_same += 1
        elif t.get("same_reference") is False:
            assert cell.startswith("different reference"), (name, cell)
            assert report_html.fmt_ns(t["overhead_ns"]) not in cell
            seen_diff += 1
        else:
            assert cell.startswith("none"), (name, cell)
            assert report_html.fmt_ns(t["overhead_ns"]) not in cell
            seen_none += 1
    return seen_same, seen_diff, seen_none


def talk_marks(page):
    """the rows of the overhead figure with the talk's mark: a diamond, or the note on a cut
    bar"""
    sec = section(page, "overhead")
    return sec.count("<title>talk: ") + len(re.findall(r", talk [^<]*\(axis cut\)", sec))


CHAIN = re.compile(r"[\w-]+ \+ [\w-]+")  # a sum of the talk's rows: "bpf-ply-tracepoint + event"


def test_talk_figures_only_beside_the_same_reference(tmp_path):
    page = build(tmp_path).read_text()
    ov = fixture("overhead.json")
    # the fixture is the current loader's (tests/host/data/regen.sh): a verdict on every talk
    # figure, no chains
    talks = [r["talk"] for r in ov["methods"] if r.get("talk")]
    assert talks and all(isinstance(t.get("same_reference"), bool) for t in talks)
    assert not any("sum_of" in t for t in talks)
    seen_same, seen_diff, seen_none = talk_cells_checked(page, ov)
    # the real run has both: figures beside the same reference, and rows against another
    # (bpf-gpiolat-tracepoint: the talk's ply histogram is against its event, ours untraced)
    assert seen_same and seen_diff and not seen_none
    plotted = [r for r in ov["methods"] if r.get("measured") and r.get("overhead_ns") is not None
               and (r.get("talk") or {}).get("same_reference") is True]
    assert talk_marks(page) == len(plotted)
    # no chain sum anywhere on the page
    assert not CHAIN.search(page), CHAIN.search(page)
    # the page follows the verdict, not a rule of its own: one row marked false, another from
    # a file written before the rule (no verdict, a chain along "against") stand beside none
    same = [r for r in ov["methods"] if (r.get("talk") or {}).get("same_reference") is True]
    same[0]["talk"]["same_reference"] = False
    del same[1]["talk"]["same_reference"]
    same[1]["talk"]["sum_of"] = f"{same[1]['talk']['row']} + event"
    same[1]["talk"]["overhead_ns"] = 98765.0
    other = tmp_path / "other"
    other.mkdir()
    res = build(other)
    with open(res.parent / "overhead.json", "w") as f:
        json.dump(ov, f)
    r = subprocess.run([sys.executable, SCRIPT, str(res.parent)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    page2 = res.read_text()
    s2, d2, n2 = talk_cells_checked(page2, ov)
    assert (s2, d2, n2) == (seen_same - 2, seen_diff + 1, 1)
    assert not CHAIN.search(page2) and report_html.fmt_ns(98765.0) not in page2
    assert talk_marks(page2) == talk_marks(page) - sum(
        1 for r in same[:2] if r.get("measured") and r.get("overhead_ns") is not None)


def test_studies_that_did_not_run_say_so(tmp_path):
    page = build(tmp_path, files=("histograms.json",)).read_text()
    for sid in ("summary", "overhead"):
        sec = page[page.index(f"<section id={sid}>"):]
        assert re.match(r"<section id=\w+><h2>[^<]*</h2><p class=notrun>Not run: no "
                        r"overhead.json", sec), sec[:200]
    assert "<figure" in page
    assert "Not run: no gpio-path.json" in page
    # each names the command that writes its file
    for sid, cmd in (("rt", "make rt-report"), ("bench-gpio", "make bench-gpio"),
                     ("observer", "STUDIES=observer"),
                     ("syscall-cost", "gpiolat --syscall-cost --json")):
        sec = section(page, sid)
        assert f"<p class=notrun>Not run: no {sid}.json" in sec and cmd in sec, sec
        assert "<table" not in sec and "<figure" not in sec


def test_gpio_path_tables_and_the_posts_rates(tmp_path):
    """gpiolat --path's JSON: both of the talk's tables, the post's rate beside its row only,
    the rows that could not run with their reason, the caveat beside the numbers, one figure"""
    page = build(tmp_path).read_text()
    sec = page[page.index("<section id=gpio-path>"):]
    sec = sec[:sec.index("</section>")]
    for v in ("t_raw", "t_subsys", "t_ioctl", "t_libgpiod", "t_sysfs", "t_bash"):
        assert f"<td>{v}</td>" in sec, v
    for d in ("t_subsys - t_raw", "t_ioctl - t_subsys", "t_bash - t_sysfs"):
        assert f"<td>{d}</td>" in sec, d
    row = sec[sec.index("<td>t_sysfs</td>"):]
    assert "172.66" in row[:row.index("</tr>")]
    assert "not available: mmtoggle: not available: chip" in sec
    assert "class=caveat" in sec and sec.count("<figure>") == 1


def test_rt_side_by_side_as_rt_report_decides(tmp_path):
    """rt.json: the table is rt_report.side_by_side's rows (so the talk's and ADI's figures are
    beside a kernel only where rt_report finds the same reference), the caveat beside the
    numbers, one figure with each kernel's wakeup p99, max and count, the findings"""
    page = build(tmp_path).read_text()
    sec = section(page, "rt")
    doc = fixture("rt.json")
    ks = doc["kernels"]
    assert "class=caveat" in sec and sec.count("<figure>") == 1
    for k in ks:
        assert f"<th>{k['kernel']} <span class=note>" in sec
    talk = rt_report.baseline("baseline-klinger-elce2023.csv")
    adi = rt_report.baseline("baseline-adi-cyclictest.csv")
    notes = []
    rows = rt_report.side_by_side(ks, talk, adi, notes)
    for _, label, cells, ref in rows:
        got = row_of(sec, report_html.esc(label.strip()))
        want = [report_html.esc(label.strip())] + [
            report_html.esc(re.sub(r"\bus\b", "µs", c)) for c in cells] + [
            report_html.esc(re.sub(r"\bus\b", "µs", ref)) if ref else "-"]
        assert got == want, (got, want)
    # the fixture has each kind: RT's timerlat figure, std's reason, said once as a note
    assert "thread max 182826 / irq max 182448 µs (n=2754)" in sec
    assert sec.count("this kernel has no timerlat tracer") == 1
    # the talk's event overhead (measured on -rt8) beside the RT kernel's row only, and no ADI
    # figure: the load is not ADI's
    assert "6.1.26-rt8: 1190 ns (talk)" in "".join(row_of(sec, "event (95% CI)"))
    assert "ADI (Blackfin" not in sec
    fig = sec[sec.index("<figure>"):]
    for k in ks:
        for t in rt_report.TASKS:
            for p in rt_report.PHASES:
                w = k[f"wakeup-{t}-{p}"]
                assert (f"{k['kernel']}: p99 {report_html.fmt_ns(w['p99_ns'])}, max "
                        f"{report_html.fmt_ns(w['max_ns'])}, n={w['count']}") in fig
    for f in doc["findings"]:
        assert report_html.esc(re.sub(r"\bus\b", "µs", f)) in sec


def test_rt_adi_figure_beside_its_own_load_only(tmp_path):
    doc = fixture("rt.json")
    for k in doc["kernels"]:
        k["load"] = "5 x 'ls -lR /usr' in loops (the ADI ftrace page's workload)"
    res = tmp_path / "results"
    res.mkdir()
    shutil.copy(os.path.join(DATA, "histograms.json"), res)
    (res / "rt.json").write_text(json.dumps(doc))
    r = subprocess.run([sys.executable, SCRIPT, str(res)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    sec = section((res / "report.html").read_text(), "rt")
    assert row_of(sec, "-p 80 -t 1 -i 10000 loaded")[-1] == \
        "ADI (Blackfin, 2.6.32, 5 x ls -lR): avg 137 / max 11137 µs"
    assert row_of(sec, "-p 80 -t 1 -i 10000 idle")[-1] == "-"


def test_bench_gpio_rows_with_counts_spread_and_ratios(tmp_path):
    page = build(tmp_path).read_text()
    sec = section(page, "bench-gpio")
    doc = fixture("bench-gpio.json")
    assert "class=caveat" in sec and sec.count("<figure>") == 1
    measured = 0
    for r in doc["methods"]:
        cells = row_of(sec, r["method"])
        if not r.get("measured"):
            assert cells[-1].startswith("not measured: " + r["not_available"]), cells
            continue
        d = r["differences_ns"]
        # mean, interval, sd, range, count, each with its unit
        assert cells[2] == f"{statistics.mean(d):.1f} ns", cells
        assert re.fullmatch(r"± \d+\.\d ns", cells[3]), cells
        assert cells[4] == f"{statistics.stdev(d):.1f} ns", cells
        assert cells[5] == f"{min(d):.1f} .. {max(d):.1f} ns" and cells[6] == str(len(d))
        assert cells[1] == report_html.esc(bench_gpio.LABELS[r["method"]].strip())
        measured += 1
        # its bar in the chart
        assert f"<title>{r['method']}: " in sec
    assert measured == 7
    assert "gpiolat / empty program, tracepoint" in sec and "target &lt;= 1.5x" in sec


def test_syscall_cost_table(tmp_path):
    page = build(tmp_path).read_text()
    sec = section(page, "syscall-cost")
    doc = fixture("syscall-cost.json")
    # native figures: no emulation caveat
    assert "class=caveat" not in sec and sec.count("<figure>") == 1
    assert "mean 246.0 ns, sd 1316.5 ns, min 201.4 ns (1760 batches)" in sec
    for m in doc["methods"]:
        cells = row_of(sec, m["name"])
        a = m["added_ns_per_syscall"]
        if not m["available"]:
            assert cells[2] == report_html.esc(m["reason"]), cells
            continue
        assert cells[2:7] == [f"{a['mean_ns']:.1f} ns", f"± {a['ci95_ns']:.1f} ns",
                              f"{a['p50_ns']:.1f} ns", f"{a['p90_ns']:.1f} ns",
                              f"{a['p99_ns']:.1f} ns"], cells
        assert cells[7] == f"{a['rounds']}, {a['batches']}"
        # the notebook's figure beside its own method only
        ref = m["reference"]
        assert cells[9] == (f"+{ref['value']:.0f} ns" if ref else "-"), cells
    assert row_of(sec, "syscall-events")[9] == "+355 ns"


def test_syscall_cost_fixture_has_the_writers_keys():
    """the hand-made syscall-cost.json has every key loader/modes/syscall/sc_report.c's JSON writer adds"""
    with open(os.path.join(ROOT, "loader", "modes", "syscall", "sc_report.c")) as f:
        src = f.read()
    src = src[src.index("void sc_print_json"):]
    keys = {k for k in re.findall(r'json_object_object_add\(\s*\w+,\s*"(\w+)"', src)}
    doc = fixture("syscall-cost.json")
    m = next(m for m in doc["methods"] if m["bpf"])
    have = (set(doc) | set(doc["untraced_ns_per_syscall"]) | set(m)
            | set(m["added_ns_per_syscall"]) | set(m["bpf"]))
    assert keys - {"tool", "format", "bpf_jit", "mode"} <= have, keys - have
    assert len(keys) > 30


@pytest.mark.parametrize("name,content", [("rt.json", "{"), ("bench-gpio.json", "[1, 2]"),
                                          ("syscall-cost.json", '{"methods": 3}'),
                                          ("study.json", '{"parts": 3}')])
def test_malformed_study_is_one_clear_error(tmp_path, name, content):
    res = tmp_path / "results"
    res.mkdir()
    shutil.copy(os.path.join(DATA, "histograms.json"), res)
    (res / name).write_text(content)
    r = subprocess.run([sys.executable, SCRIPT, str(res)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and name in r.stderr, r.stderr
    assert not (res / "report.html").exists()


def test_no_results_is_one_clear_error(tmp_path):
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert len(r.stderr.splitlines()) == 1 and "make bpf-histograms" in r.stderr
    assert not (tmp_path / "report.html").exists()


def chromium(url, *args):
    profile = tempfile.mkdtemp(prefix="gpiolat-chromium-")
    try:
        return subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={profile}", "--window-size=1200,3000", *args,
             url], capture_output=True, text=True, timeout=180)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def body_attrs(html_path):
    r = chromium(f"file://{html_path}", "--dump-dom")
    m = re.search(r"<body([^>]*)>", r.stdout)
    assert m, r.stderr[-2000:]
    return dict(re.findall(r'(data-[\w-]+)="([^"]*)"', m.group(1)))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (sh host/deps.sh)")
def test_every_figure_renders_in_chromium_without_errors(tmp_path):
    html_path = build(tmp_path)
    shot = tmp_path / "report.png"
    r = chromium(f"file://{html_path}", f"--screenshot={shot}")
    assert r.returncode == 0, r.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20000
    attrs = body_attrs(html_path)
    assert attrs.get("data-figures") == "ok 8", attrs
    assert attrs.get("data-errors") == "", attrs
    # keep the screenshot where a person can look at it
    os.makedirs(os.path.join(ROOT, "out", "tests"), exist_ok=True)
    shutil.copy(shot, os.path.join(ROOT, "out", "tests", "report-html.png"))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (sh host/deps.sh)")
def test_the_in_page_check_sees_an_empty_figure_and_a_script_error(tmp_path):
    html_path = build(tmp_path)
    page = html_path.read_text().replace(
        "</body>", "<figure><svg width='0' height='0'></svg></figure>"
        "<script>no_such_function()</script></body>")
    html_path.write_text(page)
    attrs = body_attrs(html_path)
    assert attrs.get("data-figures", "").startswith("empty: 8"), attrs
    assert "no_such_function" in attrs.get("data-errors", ""), attrs


def test_one_study_alone_makes_a_page(tmp_path):
    # make rt-report (or bench-gpio) ends with make report: a page with that study, the others
    # said not run
    shutil.copy(os.path.join(DATA, "rt.json"), tmp_path / "rt.json")
    r = subprocess.run([sys.executable, SCRIPT, str(tmp_path)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    page = (tmp_path / "report.html").read_text()
    assert "PREEMPT_RT" in page and "Not run" in page


# study.json as host/bpf-histograms.sh writes it (tests/host/test_bpf_histograms.py runs the
# writer); the figures made up for the page's text
def test_the_main_commands_results_leave_no_section_not_run(tmp_path):
    """every file the main command writes: ten sections, none "Not run" """
    page = build(tmp_path).read_text()
    assert "Not run" not in page and "class=notrun" not in page
    assert len(re.findall(r"<section id=[\w-]+><h2>", page)) == 10


def test_icount_histograms_say_why_each_is_one_bar(tmp_path):
    """in TIMING=icount every pulse has the same instruction-counted width; the
    histogram section says so (position is the figure, zero spread is no jitter), in icount
    only"""
    def hist_section(timing):
        res = tmp_path / f"results-{timing}"
        res.mkdir()
        doc = fixture("histograms.json")
        doc["target"]["timing"] = timing
        (res / "histograms.json").write_text(json.dumps(doc))
        subprocess.run([sys.executable, SCRIPT, str(res)], check=True, capture_output=True,
                       timeout=60)
        return section((res / "report.html").read_text(), "histograms")

    sec = hist_section("icount")
    note = sec[sec.index("<p class=note id=icount-bars>"):]
    note = note[:note.index("</p>")]
    for words in ("Every pulse executes the same instructions",
                  "the same instruction-counted width", "one bar",
                  "The bar's position is the figure", "and so is the shift per set",
                  "by construction: it is not a measurement of jitter",
                  "Jitter needs <code>TIMING=real", "hardware"):
        assert words in note, words
    assert "a nanosecond is one guest instruction" in sec
    for timing in ("real", None):
        sec = hist_section(timing)
        assert "icount-bars" not in sec and "same instructions" not in sec
        assert "one guest instruction" not in sec


def test_the_outside_observer_beside_the_guests_clocks(tmp_path):
    """the emulated oscilloscope's section: every BPF row of observer.json (a real run) with the
    observer's, the module's and the program's ns per set, both comparisons' verdicts with their
    difference and limit, and the verdict in the guest; the caveat and the clock named"""
    doc = fixture("observer.json")
    sec = section(build(tmp_path).read_text(), "observer")
    assert "class=caveat" in sec and report_html.esc(doc["clock"]) in sec
    assert f"{doc['pulses']} pulses" in sec and "TIMING=real" in sec
    assert doc["rows"]
    for r in doc["rows"]:
        cells = row_of(sec, r["method"])
        assert cells[1].startswith(f"{r['observer_ns_per_set']:.1f} ns (") and \
            cells[1].endswith(f", {len(r['observer_phases_ns'])})"), cells
        assert cells[2] == f"{r['module_ns_per_set']:.1f} ns"
        prog = r["program_ns_per_set"]
        assert cells[3] == ("-" if prog is None else f"{prog:.1f} ns")
        for cell, j in ((cells[4], r["observer_vs_module"]), (cells[5], r["observer_vs_program"])):
            if j["verdict"] == "not judged":
                assert cell == f"not judged ({j['phases']} phases)"
            else:
                assert cell.startswith(f"{j['verdict']}: {j['difference_ns']:+.1f} ns") and \
                    f"limit {j['limit_ns']} ns" in cell, cell
        assert cells[6] == (r["verdict_in_guest"] or "-")


def test_the_exact_observer_by_default(tmp_path):
    """observer.json of the exact observer (qemu's plugin in TIMING=icount; exact/observer.json,
    a real run: host/pl061_trace.py on vm/pl061-observer.c's file): the section says so in its
    title, names the criterion and the real-time option, and sets the observer between the
    program's reads and the module's counted fixed part beside the three clocks"""
    doc = fixture("exact/observer.json")
    assert doc["observer"] == "exact"
    page = build(tmp_path, [f for f in ALL if f != "observer.json"])
    shutil.copy(os.path.join(DATA, "exact", "observer.json"), page.parent / "observer.json")
    r = subprocess.run([sys.executable, SCRIPT, str(page.parent)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    sec = section(page.read_text(), "observer")
    assert "exact, TIMING=icount" in sec and "class=caveat" in sec
    assert "2 ns a set at burst 5" in sec and "TIMING=real" in sec
    for x in doc["rows"]:
        cells = row_of(sec, x["method"])
        assert cells[1].startswith(f"{x['observer_ns_per_set']:.1f} ns (")
        at = x["observer_at_reads_ns_per_set"]
        assert cells[7] == ("-" if at is None else f"{at:.1f} ns")
        assert cells[8] == f"{x['module_fixed_part_ns']:.1f} ns a batch"
        for cell, j in ((cells[4], x["observer_vs_module"]), (cells[5], x["observer_vs_program"])):
            assert cell.startswith(j["verdict"]), cell


def test_the_pulse_width_plot_tells_the_three_tools_apart():
    """gpiolat solid, bpftrace dashed, ply dotted, each in its legend too"""
    def h(tool, name):
        return {"tool": tool, "name": name, "line": {"label": "toggle-vchip-0"},
                "log2": [[1024, 2048, 10]], "summary": {"count": 10}}
    fig = report_html.cdf_figure([h("gpiolat", "gpiolat-tracepoint"),
                                  h("bpftrace", "bpftrace-delta"), h("ply", "ply-delta")])
    lines = re.findall(r'<polyline [^>]*>', fig)
    assert len(lines) == 3
    assert "stroke-dasharray" not in lines[0]
    assert 'stroke-dasharray="6 3"' in lines[1] and 'stroke-dasharray="2 3"' in lines[2]
    assert fig.count('stroke-dasharray="2 3"') == 2 and "ply-delta (" in fig


def test_the_pulse_width_plot_separates_methods_in_one_log2_slot():
    """two real gpiolat --json runs in TIMING=icount (x86_64, Debian 12's kernel): the
    tracepoint's pulses are 541 ns, the kprobe's 856 ns, one log2 slot [512, 1024); the plot
    draws them from the fine buckets, as two steps where log2 alone draws one curve"""
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "report", "fine")
    recs = []
    for m in ("tracepoint", "kprobe"):
        with open(os.path.join(here, f"gpiolat-{m}.json")) as f:
            recs += report.from_gpiolat(json.load(f), f"gpiolat-{m}")
    tp, kp = recs
    assert tp["log2"] == kp["log2"] == [[512, 1024, 50]]
    assert tp["buckets"] == [[528, 544, 50]] and kp["buckets"] == [[848, 864, 50]]

    def steps(fig):
        """each curve's x where it rises (pixels), from its polyline"""
        out = []
        for pts in re.findall(r'<polyline points="([^"]*)"', fig):
            xy = [tuple(map(float, p.split(","))) for p in pts.split()]
            out.append([v for (x, y), (x2, y2) in zip(xy, xy[1:]) if y2 < y for v in (x, x2)])
        return out

    fine = steps(report_html.cdf_figure(recs))
    assert len(fine) == 2 and fine[0] and fine[1]
    # the tracepoint's step ends before the kprobe's begins: two curves, apart
    assert max(fine[0]) < min(fine[1]), fine
    assert "buckets ≤ 3.1 % wide" in report_html.cdf_figure(recs)
    # log2 alone (bpftrace, ply, an older loader): one curve over the other
    coarse = steps(report_html.cdf_figure([dict(r, buckets=None) for r in recs]))
    assert coarse[0] == coarse[1]


def test_the_talks_matrix_on_armhf_only_when_measured(tmp_path):
    """matrix.json (make matrix-armhf, from its real run): the section, in the table of contents,
    with both kernels side by side, their user space, Spearman's rho each, and the talk's figure
    beside exactly the rows matrix.json puts it; without the file no section and no link"""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    page = build(tmp_path / "a", ALL + ("matrix.json",)).read_text()
    body = page[page.index("<body"):]
    assert re.findall(r"<a href=#([\w-]+)>", body) == re.findall(r"<section id=([\w-]+)>", body)
    sec = section(page, "matrix")
    doc = fixture("matrix.json")
    assert "not hardware nanoseconds" in sec
    for t in doc["targets"]:
        assert f"<b>{t['label']}</b>" in sec and "ply" in sec and "bpftrace" in sec
        assert f"<b>{t['talk_rank']['rho']:+.3f}</b> over {t['talk_rank']['n']} rows" in sec
    for r in doc["rows"]:
        cells = row_of(sec, r["method"])
        assert (cells[-1] == "-") == (r["talk"] is None), cells
    # the main page's own matrix: its rho in the summary
    assert "Spearman&#x27;s rho against the talk&#x27;s order" in section(page, "summary")
    page = build(tmp_path / "b").read_text()
    assert "id=matrix" not in page and "href=#matrix" not in page
