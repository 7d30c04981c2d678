"""host/report_html.py's line on the last make bpf-histograms (study.json, written by
host/bpf-histograms.sh): its mode, each part's wall time beside the load average, the sizes,
the RT part's own clock, and the icount caveat where it holds."""
import json
import subprocess
import sys

from test_report_html import SCRIPT, build

STUDY = {"target": "emulated", "arch": "arm", "kernel": "std", "timing": "icount",
         "rt_arch": "x86_64", "rt_timing": "real", "wall_s": 287, "load_start": [1.5, 1.25, 1.0],
         "load_end": [2.0, 1.5, 1.25],
         "sizes": {"pulses": 5000, "overhead_args": "--reps 3", "path_args": "-r 3",
                   "bench_args": "--passes 1", "syscall_args": "--rounds 3",
                   "rt_kernels": "std rt"},
         "parts": [{"part": "syscall-cost", "wall_s": 21, "load_before": [1.5, 1.25, 1.0],
                    "load_after": [1.75, 1.25, 1.0]},
                   {"part": "rt", "wall_s": 93, "load_before": [1.75, 1.25, 1.0],
                    "load_after": [2.0, 1.5, 1.25]}]}


def test_the_study_line_names_mode_parts_wall_times_and_load(tmp_path):
    page = build(tmp_path).read_text()
    assert "id=study" not in page  # no study.json: no line
    res = tmp_path / "results"
    (res / "study.json").write_text(json.dumps(STUDY))
    r = subprocess.run([sys.executable, SCRIPT, str(res)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    page = (res / "report.html").read_text()
    note = page[page.index("<p class=note id=study>"):]
    note = note[:note.index("</p>")]
    assert "TIMING=icount" in note and "emulated arm target" in note
    assert "287 s of wall time, load average 1.5 1.25 1.0 before and 2.0 1.5 1.25 after" in note
    assert "syscall-cost 21 s (load 1.5 1.25 1.0 before, 1.75 1.25 1.0 after)" in note
    assert "rt 93 s" in note and "std rt (x86_64, real time)" in note
    assert "make rt-report" in note
    # icount: the caveat says what its nanosecond is, and that rt is in real time
    assert "a nanosecond is one guest instruction" in page
    (res / "study.json").write_text(json.dumps(dict(STUDY, timing="real")))
    subprocess.run([sys.executable, SCRIPT, str(res)], check=True, capture_output=True,
                   timeout=60)
    page = (res / "report.html").read_text()
    assert "TIMING=real" in page and "one guest instruction" not in page
    # the RT part in the study's clock (study.json's rt_timing, the main command's default):
    # the line says its clock, and the caveat excepts no section
    (res / "study.json").write_text(json.dumps(dict(STUDY, rt_timing="icount")))
    subprocess.run([sys.executable, SCRIPT, str(res)], check=True, capture_output=True,
                   timeout=60)
    page = (res / "report.html").read_text()
    assert "std rt (x86_64, TIMING=icount)" in page
    assert "TIMING=icount: in every emulated section, under TIMING=icount" in page
    assert "which runs in real time" not in page
    # a study.json from before rt_timing: the RT part ran in the study's clock
    old = {k: v for k, v in STUDY.items() if k != "rt_timing"}
    (res / "study.json").write_text(json.dumps(old))
    subprocess.run([sys.executable, SCRIPT, str(res)], check=True, capture_output=True,
                   timeout=60)
    page = (res / "report.html").read_text()
    assert "std rt (x86_64, TIMING=icount)" in page
    assert "TIMING=icount: in every emulated section, under" in page
    # the study in real time, the RT part under icount: the caveat for that section alone
    (res / "study.json").write_text(json.dumps(dict(STUDY, timing="real", rt_timing="icount")))
    subprocess.run([sys.executable, SCRIPT, str(res)], check=True, capture_output=True,
                   timeout=60)
    page = (res / "report.html").read_text()
    assert "TIMING=icount: in the standard vs PREEMPT_RT section (the others in real time)" \
        in page
