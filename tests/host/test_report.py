"""Host side: host/report.py, the bpf-histograms report (parsing, summaries, files)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "host"))
import report  # noqa: E402
import results  # noqa: E402

# the shape bpftrace 0.17 prints with -f json: a keyed hist and a keyless one
BPFTRACE = "\n".join([
    '{"type": "attached_probes", "data": {"probes": 1}}',
    '',
    '{"type": "hist", "data": {"@delta_ns": {"1016": [{"min": 1024, "max": 2047, "count": 6},'
    ' {"min": 2048, "max": 4095, "count": 0}, {"min": 4096, "max": 8191, "count": 4}],'
    ' "-64744237005831680": [{"min": 8, "max": 15, "count": 1}]}}}',
    '{"type": "hist", "data": {"@all": [{"min": 0, "max": 0, "count": 2}]}}',
])


def test_bpftrace_buckets_become_half_open():
    maps = report.bpftrace_histograms(BPFTRACE)
    assert maps["@delta_ns"]["1016"] == [(1024, 2048, 6), (2048, 4096, 0), (4096, 8192, 4)]
    assert maps["@all"][""] == [(0, 1, 2)]


def test_bucket_bounds_are_required():
    with pytest.raises(ValueError):
        report.bpftrace_histograms('{"type": "hist", "data": {"@x": [{"max": 3, "count": 1}]}}')


def test_quantiles_interpolate_inside_a_bucket():
    b = [(0, 100, 50), (100, 200, 50)]
    assert report.quantile(b, 0.5) == 100
    assert report.quantile(b, 0.25) == 50
    assert report.quantile(b, 0.75) == 150
    assert report.quantile([(0, 1, 0)], 0.5) is None


def test_bucket_summary_counts_every_bucket():
    s = report.bucket_summary([(1024, 2048, 6), (2048, 4096, 0), (4096, 8192, 4)])
    assert s["count"] == 10
    assert s["min_ns_at_least"] == 1024 and s["max_ns_below"] == 8192
    assert s["mean_ns"] == pytest.approx((1536 * 6 + 6144 * 4) / 10)
    assert s["estimated_from_buckets"]


def test_dense_log2_puts_empty_buckets_back():
    assert report.dense_log2([(1024, 2048, 3), (8192, 16384, 1)]) == [
        (1024, 2048, 3), (2048, 4096, 0), (4096, 8192, 0), (8192, 16384, 1)]


def test_bpftrace_records_count_loss_and_show_pointer_keys_in_hex():
    recs = report.from_bpftrace(BPFTRACE, "bpftrace-delta", "ply/delta.bt", "tracepoint", 12)
    by_key = {r["line"]["key"]: r for r in recs}
    assert by_key["1016"]["pulses_lost"] == 2
    assert "0xff19fb75a0038200" in by_key


def test_pointer_keys_are_labelled_by_the_toggled_line_never_by_address():
    text = ('{"type": "hist", "data": {"@delta_ns": {"-58274621571584": '
            '[{"min": 1024, "max": 2047, "count": 12}], "-58274621570000": '
            '[{"min": 1024, "max": 2047, "count": 3}]}}}')
    toggled = {"gpio": 1016, "chip": "toggle-vchip", "offset": 0}
    recs = report.from_bpftrace(text, "bpftrace-dt-kprobe", "ply/dt-kprobe.bt", "kprobe", 12,
                                toggled)
    labels = sorted(r["line"]["label"] for r in recs)
    assert labels == ["desc-2", "toggle-vchip-0"]
    # the toggled descriptor is the one whose count is that of the pulses issued
    assert [r["summary"]["count"] for r in recs if r["line"]["label"] == "toggle-vchip-0"] == [12]
    # without the toggled line, no descriptor is given its name
    recs = report.from_bpftrace(text, "bpftrace-dt-kprobe", "ply/dt-kprobe.bt", "kprobe", 12)
    assert sorted(r["line"]["label"] for r in recs) == ["desc-1", "desc-2"]


# Debian's ply 2.4.0 in the x86_64 6.12 target (Debian 13's root), ply/dt-kprobe.ply over 200
# pulses of the toggle module, as tests/target/55-ply-scripts.sh printed it
PLY = (
    "\n@delta:\n{ 18384518600449724672 }: \n"
    "\t[1.02us, 2.04us]\t     115 ┤██████████████████▍             │\n"
    "\t[2.04us, 4.09us]\t      40 ┤██████▍                         │\n"
    "\t[4.09us, 8.19us]\t       1 ┤▏                               │\n"
    "\t[8.19us, 16.3us]\t       2 ┤▍                               │\n"
    "\t[16.3us, 32.7us]\t      11 ┤█▊                              │\n"
    "\t[32.7us, 65.5us]\t      28 ┤████▌                           │\n"
    "\t...\n"
    "\t[ 131us,  262us]\t       1 ┤▏                               │\n"
    "\t[ 262us,  524us]\t       1 ┤▏                               │\n"
    "\t...\n"
    "\t[2.09ms, 4.19ms]\t       1 ┤▏                               │\n\n")


def test_ply_buckets_are_read_back_to_their_log2_bounds():
    maps = report.ply_histograms(PLY)
    b = maps["@delta"]["18384518600449724672"]
    assert b[0] == (1024, 2048, 115) and b[1] == (2048, 4096, 40)
    assert b[-1] == (2 ** 21, 2 ** 22, 1)
    assert sum(c for _, _, c in b) == 200
    # plain integers ("[   0,    1]", "[ 512,  1023]", "[  1k,   2k)") and a "< 0" row
    m = report.ply_histograms("@x:\n{ 3 }: \n\t         < 0\t       2 ┤█ │\n"
                              "\t[   0,    1]\t       1 ┤█ │\n\t[ 512, 1023]\t       4 ┤█ │\n"
                              "\t[  1k,   2k)\t       5 ┤█ │\n")
    assert m["@x"]["3"] == [(-1, 0, 2), (0, 2, 1), (512, 1024, 4), (1024, 2048, 5)]


def test_ply_records_name_the_descriptor_as_bpftrace_does():
    toggled = {"gpio": 512, "chip": "toggle-vchip", "offset": 0}
    recs = report.from_bpftrace(PLY, "ply-dt-kprobe", "ply/dt-kprobe.ply", "kprobe", 200,
                                toggled, "ply")
    assert [r["tool"] for r in recs] == ["ply"]
    assert recs[0]["line"]["key"] == hex(18384518600449724672)
    assert recs[0]["line"]["label"] == "toggle-vchip-0"
    assert recs[0]["pulses_lost"] == 0 and recs[0]["summary"]["count"] == 200


def test_a_ply_line_that_is_no_bucket_is_an_error():
    with pytest.raises(ValueError):
        report.ply_histograms("@x:\n{ 3 }: \n\tsomething else\n")


def gpiolat_doc(method, count):
    return {
        "tool": "gpiolat", "format": 1, "method": method, "hook": f"x/{method}", "emulated": True,
        "lines": [{"gpio": 1016, "chip": "toggle-vchip", "offset": 0, "events": 2 * count,
                   "rising": count, "falling": count, "count": count, "unmatched": 0,
                   "min_ns": 1500, "max_ns": 3000, "mean_ns": 1800.0, "p50_ns": 1700.0,
                   "p90_ns": 2500.0, "p99_ns": 2900.0,
                   "log2": [{"low_ns": 1024, "high_ns": 2048, "count": count - 1},
                            {"low_ns": 2048, "high_ns": 4096, "count": 1}],
                   "linear": None}],
        "toggle": {"gpio": 1016, "rising": count, "falling": count, "events_lost": 0},
        "overhead": {"program": {"name": "gpiolat_tp", "run_cnt": 2 * count,
                                 "mean_ns_per_run": 400.0},
                     "shift": {"shift_ns_per_set": 500.0,
                               "traced": {"batches": 10, "mean_ns_per_set": 1500.0,
                                          "sd_ns_per_set": 20.0},
                               "untraced": {"batches": 10, "mean_ns_per_set": 1000.0,
                                            "sd_ns_per_set": 10.0}},
                     "reference": [{"method": "event", "kind": "overhead", "value_ns": 1190.0,
                                    "note": "gpio:gpio_value enabled"}]},
    }


def test_report_files_from_a_raw_folder(tmp_path):
    raw = tmp_path / "raw"
    raw.mkdir()
    (raw / "gpiolat-tracepoint.json").write_text(json.dumps(gpiolat_doc("tracepoint", 100)))
    (raw / "gpiolat-fentry.unavailable").write_text("gpiolat: no BPF trampolines here\n")
    (raw / "bpftrace-delta.json").write_text(BPFTRACE)
    (raw / "bpftrace-delta.edges").write_text("0 0 12 12\n")
    (raw / "uname.txt").write_text("Linux target 6.1.0\n")
    (raw / "toggle-line.txt").write_text("gpio=1016 chip=toggle-vchip line=0\n")
    out = tmp_path / "results"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "report.py"), str(raw),
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "histograms.json").read_text())
    assert doc["target"]["emulated"] is True and doc["caveat"] == results.caveat()
    names = sorted((h["name"], h["line"].get("gpio", h["line"].get("key")))
                   for h in doc["histograms"])
    assert ("gpiolat-tracepoint", 1016) in names and ("bpftrace-delta", "1016") in names
    assert doc["unavailable"] == [{"name": "gpiolat-fentry",
                                   "reason": "gpiolat: no BPF trampolines here"}]
    text = (out / "histograms.txt").read_text()
    assert "NOTE: EMULATED timings" in text and "not hardware nanoseconds" in text
    assert "pulse-width shift: 500.0 ns per set" in text
    assert "not available: gpiolat: no BPF trampolines here" in text
    csv = (out / "histograms.csv").read_text().splitlines()
    assert "1024 2048 99" in csv
    # one PNG per histogram, each a real PNG, named after line labels, never kernel addresses
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert "gpiolat-tracepoint-toggle-vchip-0.png" in pngs and len(pngs) == len(doc["histograms"])
    assert "bpftrace-delta-toggle-vchip-0.png" in pngs
    assert not [p for p in pngs if "0x" in p or "ff" in p], pngs
    assert (out / "gpiolat-tracepoint-toggle-vchip-0.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert doc["target"]["timing"] is None
    # the clock host/bpf-histograms.sh ran the target in: kept, and the caveat says what an
    # icount nanosecond is; anything else in its file is one error line
    (raw / "timing.txt").write_text("icount\n")
    subprocess.run([sys.executable, os.path.join(ROOT, "host", "report.py"), str(raw), str(out)],
                   check=True, capture_output=True, text=True)
    doc = json.loads((out / "histograms.json").read_text())
    assert doc["target"]["timing"] == "icount" and doc["caveat"] == results.caveat("icount")
    assert "one guest instruction" in (out / "histograms.txt").read_text()
    (raw / "timing.txt").write_text("fast\n")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "report.py"), str(raw),
                        str(out)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "timing.txt" in r.stderr


def test_no_raw_results_is_one_clear_error(tmp_path):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "report.py"),
                        str(tmp_path / "none"), str(tmp_path / "out")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "no raw results" in r.stderr


def test_talk_overhead_figures_only_where_the_loader_put_them_beside():
    """The loader's one rule (loader/core/baseline.c): a talk figure stands beside the shift only
    where the loader marked it "beside"; the links of a chain along "against" (what a loader
    before the rule wrote: the ply histogram on top of the event, summed) never do. The
    talk's untraced pulse stays, as context."""
    doc = gpiolat_doc("tracepoint", 100)
    pulse = {"method": "tracing-configured-rt", "kind": "pulse", "value_ns": 168.42,
             "note": "the talk's reference"}
    doc["overhead"]["reference"] = [
        {"method": "event", "kind": "overhead", "value_ns": 1190.0, "against":
         "tracing-configured-rt", "note": "gpio:gpio_value enabled"},
        {"method": "bpf-ply-tracepoint", "kind": "overhead", "value_ns": 3490.0,
         "against": "event", "note": "ply delta.ply histogram on top of the event"}, pulse]
    doc["overhead"]["reference_total"] = {"method": "bpf-ply-tracepoint", "value_ns": 4680.0,
                                          "against": "tracing-configured-rt"}
    text = "\n".join(report.text_block(report.from_gpiolat(doc, "gpiolat-tracepoint")[0]))
    assert "1190" not in text and "3490" not in text and "4680" not in text, text
    assert "tracing-configured-rt pulse" in text
    doc["overhead"]["reference"][1]["beside"] = True
    text = "\n".join(report.text_block(report.from_gpiolat(doc, "gpiolat-tracepoint")[0]))
    assert "bpf-ply-tracepoint overhead" in text and "1190" not in text


def test_overhead_table_under_the_loaders_rule():
    """host/overhead.py: the talk's figure only where the loader says same_reference (a file
    from before the rule, with its sum_of chains, has none beside); % of the row's own
    reference"""
    import overhead  # host/overhead.py
    row = {"measured": True, "group": "bpf", "against": "untraced", "overhead_ns": 900.0,
           "ci95_ns": 10.0, "percent_of_reference": 90.0, "percent_of": "untraced",
           "repetitions": 5, "batches": 50}
    d = {"emulated": True, "clock": "mono", "resolution_ns": 1, "pulses_per_phase": 100,
         "repetitions": 5, "warmup_batches": 2, "phase_statistic": "median",
         "untraced_ns_per_set": 1000.0, "noise_floor_sd_ns": 5.0, "noise_floor_phases": 6,
         "duration_s": 10, "linear_fits": {}, "user_baseline": "b.csv",
         "user_baseline_left_out": "kprobe (against nothing; our kprobe against event)",
         "methods": [
             dict(row, method="bpf-gpiolat-tracepoint",
                  talk={"row": "bpf-ply-tracepoint", "overhead_ns": 3490.0, "against": "event",
                        "same_reference": False}),
             dict(row, method="bpftrace-delta",
                  talk={"row": "bpf-ply-tracepoint", "sum_of": "bpf-ply-tracepoint + event",
                        "overhead_ns": 4680.0, "against": "tracing-configured-rt"}),
             dict(row, method="event", group="tracefs", percent_of_reference=119.0,
                  talk={"row": "event", "overhead_ns": 1190.0,
                        "against": "tracing-configured-rt", "same_reference": True})]}
    lines = overhead.table(d).splitlines()
    row_of = {l.split()[0]: l for l in lines if l.split() and l.split()[0] in
              ("bpf-gpiolat-tracepoint", "bpftrace-delta", "event")}
    assert row_of["bpf-gpiolat-tracepoint"].endswith("  -")
    assert row_of["bpftrace-delta"].endswith("  -") and "4680" not in overhead.table(d)
    assert row_of["event"].endswith("1190 (event, against tracing-configured-rt)")
    assert " 119% " in row_of["event"] and " 90% " in row_of["bpftrace-delta"]
    assert any(l.startswith("yours left out") and "kprobe (against nothing" in l for l in lines)
    c = overhead.csv(d)
    assert "3490" not in c and "4680" not in c and " 1190 event" in c, c


def run_report(tmp_path, files):
    raw = tmp_path / "raw"
    raw.mkdir()
    for name, text in files.items():
        (raw / name).write_text(text)
    out = tmp_path / "results"
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "report.py"), str(raw),
                        str(out)], capture_output=True, text=True)
    return r, out


def test_a_bpftrace_method_with_no_histogram_is_said_not_dropped(tmp_path):
    """bpftrace ran and printed no hist map (killed before its END, or no event): the report
    names it with why, as it does a method that could not run"""
    r, out = run_report(tmp_path, {
        "gpiolat-tracepoint.json": json.dumps(gpiolat_doc("tracepoint", 100)),
        "bpftrace-delta.json": '{"type": "attached_probes", "data": {"probes": 1}}\n',
        "bpftrace-delta.edges": "0 0 12 12\n"})
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "histograms.json").read_text())
    assert [u["name"] for u in doc["unavailable"]] == ["bpftrace-delta"]
    assert "printed no histogram" in doc["unavailable"][0]["reason"]
    assert "== bpftrace-delta: not available: bpftrace printed no histogram" in \
        (out / "histograms.txt").read_text()


def test_plys_histograms_are_read_from_its_raw_files(tmp_path):
    """study/histograms.sh's ply files: ply-SCRIPT.txt (ply's print), .edges (the module's
    counters around the pulses), .lost (ply's "lost N events" lines) and .unavailable"""
    r, out = run_report(tmp_path, {
        "gpiolat-tracepoint.json": json.dumps(gpiolat_doc("tracepoint", 100)),
        "ply-dt-kprobe.txt": PLY, "ply-dt-kprobe.edges": "10 10 210 210\n",
        "ply-dt-kprobe.lost": "warning: lost 3 events\n",
        "ply-delta.unavailable": "ply is not installed (...)\n",
        "toggle-line.txt": "gpio=512 chip=toggle-vchip line=0\n"})
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "histograms.json").read_text())
    (p,) = [h for h in doc["histograms"] if h["tool"] == "ply"]
    assert p["name"] == "ply-dt-kprobe" and p["script"] == "ply/dt-kprobe.ply"
    assert p["method"] == "kprobe" and p["line"]["label"] == "toggle-vchip-0"
    assert (p["pulses_issued"], p["pulses_lost"], p["events_lost"]) == (200, 0, 3)
    assert doc["unavailable"] == [{"name": "ply-delta", "reason": "ply is not installed (...)"}]
    text = (out / "histograms.txt").read_text()
    assert "== ply-dt-kprobe: ply ply/dt-kprobe.ply" in text and "events lost (ply's count) 3" \
        in text
    # bpftrace's records carry no events_lost: nothing of it was read
    assert all("events_lost" not in h for h in doc["histograms"] if h["tool"] != "ply")


@pytest.mark.parametrize("name,text,what", [
    ("gpiolat-kprobe.json", "{not json", "not valid JSON"),
    ("gpiolat-kprobe.json", '{"tool": "gpiolat", "method": "kprobe", "hook": "k"}',
     'no "lines"'),
    ("bpftrace-delta.json", '{"type": "hist", "data": {"@x": [{"count": 1}]}}',
     "a bucket without bounds"),
])
def test_a_malformed_raw_file_is_one_error_line(tmp_path, name, text, what):
    r, _ = run_report(tmp_path, {name: text})
    assert r.returncode == 1
    assert len(r.stderr.splitlines()) == 1 and name in r.stderr and what in r.stderr, r.stderr


def test_the_histograms_fixture_is_what_report_py_makes_of_its_raw_files(tmp_path):
    """tests/host/data/report/histograms.json (the page's tests read it) is host/report.py's
    output on the raw files beside it, not a file of another shape"""
    data = os.path.join(ROOT, "tests", "host", "data", "report")
    r = subprocess.run([sys.executable, os.path.join(ROOT, "host", "report.py"),
                        os.path.join(data, "raw"), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    made = json.loads((tmp_path / "histograms.json").read_text())
    with open(os.path.join(data, "histograms.json")) as f:
        kept = json.load(f)
    for d in (made, kept):
        del d["generated"]
    assert made == kept
