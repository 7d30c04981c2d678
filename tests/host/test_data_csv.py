"""The reference CSVs of data/ and their readers (needs out/build/test-hist: made here).

Every data row has the columns its "# a,b,..." header names, parsed with RFC 4180 quoting
(Python's csv); only the last column (the note) may be quoted or hold a comma, so that a reader
splitting at commas (the target's awk: study/microbench.sh) is exact on every other column; the
loader's own parser (loader/core/baseline.c, which every embedded CSV and --baseline go through)
splits every row as Python's csv does; and the markers file's kprobe row is the difference of
the two rows it names.
"""
import csv
import glob
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FILES = sorted(glob.glob(os.path.join(ROOT, "data", "*.csv")))

pytestmark = pytest.mark.usefixtures("test_hist")


def read(path):
    """(header columns, [raw data lines], [parsed rows])"""
    lines = open(path, newline="").read().splitlines()
    header = [l for l in lines if l.startswith("#")][-1].lstrip("# ").split(",")
    data = [l for l in lines if l and not l.startswith("#")]
    return header, data, list(csv.reader(data))


def test_there_are_reference_files():
    assert len(FILES) >= 5, FILES


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_rows_have_the_header_columns_and_only_the_note_is_quoted(path):
    header, data, rows = read(path)
    assert len(header) >= 4 and data, header
    for line, row in zip(data, rows):
        assert len(row) == len(header), f"{os.path.basename(path)}: {line}"
        plain = line.split(",", len(header) - 1)[:-1]
        assert plain == row[:-1], f"{os.path.basename(path)}: a column before the last is quoted"
        assert not any('"' in f for f in plain), line
    # the figure column parses as a number on every row
    col = 1 if header[1] == "rate" else 2
    for row in rows:
        float(row[col])


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_the_loader_splits_rows_as_csv_does(test_hist, path):
    _, _, rows = read(path)
    out = subprocess.run([test_hist, "csvrows", path], capture_output=True, text=True,
                         timeout=30, check=True).stdout.splitlines()
    assert [l.split("\t") for l in out] == [(r + [""] * 8)[:8] for r in rows]


def test_the_loader_parses_quotes_commas_and_doubled_quotes(test_hist, tmp_path):
    p = tmp_path / "q.csv"
    p.write_text('# a,b\nm,k,1,ns,,,,"one, two ""three"""\n"x,y",k,2\n')
    out = subprocess.run([test_hist, "csvrows", str(p)], capture_output=True, text=True,
                         timeout=30, check=True).stdout.splitlines()
    assert out == ["m\tk\t1\tns\t\t\t\tone, two \"three\"", "x,y\tk\t2\t\t\t\t\t"]


def test_markers_kprobe_row_is_the_difference_of_the_rows_it_names():
    _, _, rows = read(os.path.join(ROOT, "data", "baseline-lttng-markers.csv"))
    by = {r[0]: r for r in rows}
    k = by["kprobe"]
    assert k[6] in by, k
    assert abs(float(by["marker-kprobe"][2]) - float(by[k[6]][2]) - float(k[2])) < 0.005
