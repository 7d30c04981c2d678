"""host/report_html.py: the one page of results, built from canned results in the studies' own
formats (tests/host/data/report: trimmed from a real emulated make bpf-histograms PULSES=200 and
make overhead-report OVERHEAD_ARGS=--quick), checked as text and in a real browser.

The browser part opens the page in headless Chromium: every figure must have a non-zero size
(the page's own check, in <body data-figures>) and no script error (data-errors). It skips only
when chromium is not installed (host/deps.sh installs it).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(os.path.dirname(__file__), "data", "report")
SCRIPT = os.path.join(ROOT, "host", "report_html.py")
sys.path.insert(0, os.path.join(ROOT, "host"))
import report_html  # noqa: E402

CHROMIUM = shutil.which("chromium")


def build(tmp_path, files=("histograms.json", "overhead.json", "gpio-path.json", "raw")):
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
    # four kinds of figure: the CDFs, the overhead bars, a fit per series, the GPIO path
    assert page.count("<figure") == 4 and page.count("<svg") == 5
    # the emulation caveat beside the numbers: in the summary and the histogram sections
    for sid in ("summary", "histograms", "overhead", "fits"):
        sec = body[body.index(f"<section id={sid}>"):]
        sec = sec[:sec.index("</section>")]
        assert "not hardware nanoseconds" in sec, sid


def test_talk_figures_only_beside_the_same_reference(tmp_path):
    import json
    page = build(tmp_path).read_text()
    ov = json.load(open(os.path.join(DATA, "overhead.json")))
    rows = {r["method"]: r for r in ov["methods"] if r.get("measured")}
    seen_same = seen_diff = 0
    for name, r in rows.items():
        m = re.search(rf"<tr><td>{re.escape(name)}</td>.*?</tr>", page)
        assert m, name
        cell = m.group(0).split("<td>")[-1]
        t = r.get("talk")
        if not t:
            assert cell.startswith("-"), (name, cell)
        elif report_html.same_reference(r["against"], t["against"]):
            assert report_html.fmt_ns(t["overhead_ns"]) in cell and "different" not in cell
            seen_same += 1
        else:
            assert cell.startswith("different reference"), (name, cell)
            assert report_html.fmt_ns(t["overhead_ns"]) not in cell
            seen_diff += 1
    # the canned matrix has both kinds (e.g. event-filter against event; kprobes-k against
    # untraced where the talk's slope row has no reference)
    assert seen_same and seen_diff
    assert not report_html.same_reference("untraced", "event")
    assert report_html.same_reference("event", "event")


def test_studies_that_did_not_run_say_so(tmp_path):
    page = build(tmp_path, files=("histograms.json",)).read_text()
    for sid in ("summary", "overhead"):
        sec = page[page.index(f"<section id={sid}>"):]
        assert re.match(r"<section id=\w+><h2>[^<]*</h2><p class=notrun>Not run: no "
                        r"overhead.json", sec), sec[:200]
    assert "Not run: no rt.json" in page and "<figure" in page
    assert "Not run: no gpio-path.json" in page


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
    assert attrs.get("data-figures") == "ok 5", attrs
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
    assert attrs.get("data-figures", "").startswith("empty: 5"), attrs
    assert "no_such_function" in attrs.get("data-errors", ""), attrs
