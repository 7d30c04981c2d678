"""Every figure README.md and docs/*.md quote as measured names its source.

The convention (docs/bench.md, "Where a figure comes from"): a block of text (a paragraph, a list
item, a table, separated by blank lines) that says a figure was measured ("measured", "took")
and quotes a number with a unit names, in that block or in the first paragraph of its section
(the heading and the paragraph under it, which is how a run in docs/bench.md is introduced), one
of: a page that records the run (`docs/bench.md`, `timing.md`, ... with its section), a results
file (`out/results/...`, a `*.json`, `*.txt` or `*.csv` name), a test (`tests/...`), the run's
date (YYYY-MM-DD) or the tree it ran on (`commit 1234abc`). A table takes the paragraph before
it as its caption, and a paragraph the table after it.
"""
import glob
import os
import re

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PAGES = ["README.md"] + sorted(os.path.relpath(p, ROOT)
                               for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
FIGURE = re.compile(r"\b\d[\d,.]*\s?(ns|µs|us|ms|s|min|cycles|%|x|MB|KB|KiB|MiB|GiB|bytes)\b")
MEASURED = re.compile(r"\b(measured|took)\b", re.IGNORECASE)
SOURCE = re.compile(r"\b[\w./-]+\.md\b|out/results/|\b[\w.-]+\.(json|txt|csv)\b"
                    r"|\btests/(target|compare|host)/|\b20\d\d-\d\d-\d\d\b"
                    r"|\b(commit|commits|tree of|at) [0-9a-f]{7,40}\b")


def blocks(text):
    """(block, its context) for every block that is not a fenced code block"""
    parts = re.split(r"\n\s*\n", text)
    out, section = [], ""
    for i, p in enumerate(parts):
        lines = p.splitlines()
        if lines and lines[0].startswith("#"):
            # a heading starts a section: its context is the heading and the paragraph under it
            section = p if len(lines) > 1 else p + "\n" + (parts[i + 1] if i + 1 < len(parts)
                                                            else "")
        if p.lstrip().startswith("```"):
            continue
        ctx = [p, section]
        if p.lstrip().startswith("|") and i:
            ctx.append(parts[i - 1])
        if i + 1 < len(parts) and parts[i + 1].lstrip().startswith("|"):
            ctx.append(parts[i + 1])
        out.append((p, "\n".join(ctx)))
    return out


def unsourced(text):
    return [p for p, ctx in blocks(text)
            if MEASURED.search(p) and FIGURE.search(p) and not SOURCE.search(ctx)]


@pytest.mark.parametrize("page", PAGES)
def test_every_measured_figure_names_its_source(page):
    with open(os.path.join(ROOT, page)) as f:
        bad = unsourced(f.read())
    assert bad == [], f"{page}: measured figures without a source:\n" + "\n".join(
        b[:200].replace("\n", " ") for b in bad)


def test_the_check_sees_a_figure_without_a_source():
    assert unsourced("The loader measured 412 ns per set.\n")
    assert not unsourced("The loader measured 412 ns per set (docs/bench.md, \"Native\").\n")
    assert not unsourced("Measured on 2026-11-24: 412 ns per set.\n")
    assert not unsourced("## A run (tree of 1a2b3c4)\nIntro.\n\nIt took 12 s.\n")
    assert not unsourced("Measured on 2026-11-24:\n\n| row | measured |\n|---|---|\n| a | 2 ns |\n")
    assert unsourced("Measured:\n\n| row | measured |\n|---|---|\n| a | 2 ns |\n")
    assert unsourced("Measured 12 times, no unit: 3 and 4.\n") == []
    assert unsourced("```\nmeasured 12 ns\n```\n") == []


def test_the_readme_pictures_are_real_small_pngs():
    text = open(os.path.join(ROOT, "README.md")).read()
    pics = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert pics, "README.md shows no picture of the page"
    for pic in pics:
        with open(os.path.join(ROOT, pic), "rb") as f:
            data = f.read()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", pic
        assert 20000 < len(data) < 200 * 1024, (pic, len(data))
