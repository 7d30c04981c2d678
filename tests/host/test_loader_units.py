"""--overhead's pure parts (loader/modes/overhead/ov_stats.c, ov_baseline.c, ov_methods.c), through
out/build/test-overhead: a row's statistics, the series fit, --baseline
parsing, --only matching and the lookup of a method by name. The expected figures are computed
here independently (Python's statistics module, the tabulated Student's t)."""
import json
import os
import statistics
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "host"))
import gpio_hooks  # noqa: E402  host/gpio_hooks.py: the loader's table of GPIO hooks
TEST_OV = os.path.join(ROOT, "out", "build", "test-overhead")


pytestmark = pytest.mark.usefixtures("test_overhead")


def run(*args, rc=0):
    r = subprocess.run([TEST_OV, *map(str, args)], capture_output=True, text=True)
    assert r.returncode == rc, r.stdout + r.stderr
    return r.stdout


def fields(line):
    w = line.split()
    return {w[i]: float(w[i + 1]) for i in range(0, len(w) - 1, 2)}


# two-sided 95 % and 99.9 % quantiles of Student's t (df 1..12), as tabulated
T95 = [None, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179]
T999 = [None, 636.619, 31.599, 12.924, 8.610, 6.869, 5.959, 5.408, 5.041, 4.781, 4.587, 4.437,
        4.318]


def test_row_stats_mean_sd_ci_median_lowest():
    # phases as measured: reference, method, reference, ..., reference
    refs = [1000.0, 1010.0, 995.0, 1003.0, 998.0, 1006.0]
    meth = [1110.0, 1105.0, 1120.0, 1101.0, 1115.0]
    d = [t - (refs[i] + refs[i + 1]) / 2 for i, t in enumerate(meth)]
    phases = [x for i, t in enumerate(meth) for x in (refs[i], t)] + [refs[-1]]
    f = fields(run("stats", *phases))
    n = len(meth)
    assert f["mean"] == pytest.approx(statistics.mean(d))
    assert f["sd"] == pytest.approx(statistics.stdev(d))
    # the mean as sampled: mean(method) - sum w_j ref_j, w = 1/2n at the ends, 1/n between;
    # var = s_m^2 / n + s_ref^2 (n - 1/2) / n^2, Welch-Satterthwaite df rounded down
    vt = statistics.variance(meth) / n
    vb = statistics.variance(refs) * (n - 0.5) / n ** 2
    df = int((vt + vb) ** 2 / (vt ** 2 / (n - 1) + vb ** 2 / n))
    se = (vt + vb) ** 0.5
    assert f["ci"] == pytest.approx(T95[df] * se, rel=1e-3)
    assert f["ci999"] == pytest.approx(T999[df] * se, rel=1e-3)
    assert f["med"] == pytest.approx(statistics.median(d))
    assert f["low"] == min(d)


def test_row_stats_one_repetition_has_no_interval():
    f = run("stats", 1000, 1100, 1010).split()
    assert f[f.index("ci") + 1] in ("nan", "-nan")


def coverage(reps, sd_ref, sd_method, seed):
    return fields(run("coverage", 40000, reps, sd_ref, sd_method, seed))


@pytest.mark.parametrize("reps,sd_ref,sd_method", [(5, 30, 30), (8, 30, 30), (5, 50, 10),
                                                   (8, 10, 50)])
def test_interval_covers_what_it_claims(reps, sd_ref, sd_method):
    """40000 synthetic alternations (normal noise, true overhead 100 ns; a fixed seed): the 95 %
    interval covers the truth about 95 % of the time, and the control's 99.9 % check fails
    about 1 run in 1000 (bounds fixed before the first run: 0.94-0.975, at most 0.0025)."""
    c = coverage(reps, sd_ref, sd_method, 1)
    assert 0.94 <= c["cover95"] <= 0.975, c
    assert c["fail999"] <= 0.0025, c


def test_naive_interval_undercovers_shared_references():
    """Student's t over the differences (the rows' interval before): the repetitions share
    their reference phases, and it covers less than it claims."""
    c = coverage(5, 50, 10, 1)
    assert c["naive_cover95"] < 0.9, c
    assert c["naive_fail999"] > 0.003, c
    c = coverage(8, 30, 30, 1)
    assert c["naive_cover95"] < 0.935 < c["cover95"], c


def test_series_fit_exact_line():
    f = fields(run("fit", "1:150", "2:200", "3:250", "4:300", "5:350"))
    assert f["slope"] == pytest.approx(50.0)
    assert f["r2"] == pytest.approx(1.0)
    assert f["points"] == 5


def test_series_fit_least_squares_against_python():
    pts = [(1, 1100.0), (2, 2350.0), (3, 3200.0), (4, 4700.0), (5, 5300.0), (6, 6900.0)]
    slope, intercept = statistics.linear_regression([k for k, _ in pts], [y for _, y in pts])
    r = statistics.correlation([k for k, _ in pts], [y for _, y in pts])
    f = fields(run("fit", *(f"{k}:{y}" for k, y in pts)))
    assert f["slope"] == pytest.approx(slope)
    assert f["r2"] == pytest.approx(r * r)


def test_series_fit_needs_three_points():
    assert run("fit", "1:10", "2:20").split() == ["none", "2"]


# the BPF trust check: tests/host/test_trust_check.py


def write(tmp_path, text):
    p = tmp_path / "b.csv"
    p.write_text(text)
    return str(p)


def test_baseline_good_file_with_comments_and_crlf(tmp_path):
    p = write(tmp_path, "# mine\r\nevent,overhead,1200,ns,30,6.1,untraced,scope\r\n"
                        "control,overhead,0,ns,,6.1,untraced,\r\n")
    assert run("baseline", p).strip() == f"ok {p}"


@pytest.mark.parametrize("row,err", [
    ("event,overhead,1200,ns,30,6.1,untraced", "want 8 columns"),
    ("Event,overhead,1200,ns,30,6.1,untraced,x", "bad method 'Event'"),
    ("event,width,1200,ns,30,6.1,untraced,x", "bad kind 'width'"),
    ("event,overhead,fast,ns,30,6.1,untraced,x", "bad value 'fast'"),
    ("event,overhead,-1,ns,30,6.1,untraced,x", "bad value '-1'"),
    ("event,overhead,1200,us,30,6.1,untraced,x", "bad unit 'us'"),
    ("event,overhead,1200,ns,-3,6.1,untraced,x", "bad sd '-3'"),
])
def test_baseline_bad_rows_name_file_and_line(tmp_path, row, err):
    p = write(tmp_path, "# header\n" + row + "\n")
    out = run("baseline", p, rc=1)
    assert out.startswith(f"{p}:2: {err}")


def test_baseline_no_rows(tmp_path):
    p = write(tmp_path, "# only a comment\n\n")
    assert run("baseline", p, rc=1).strip() == f"{p}: no rows (only comments or empty)"


def test_only_prefix_and_names():
    sel = run("only", "events-*,kprobe").split()
    assert sel == ["kprobe"] + [f"events-{k}" for k in range(1, 11)]
    assert run("only", "event").split() == ["event"]
    # a part (gpiolat's tracepoint program's cost breakdown) only by its whole name
    assert run("only", "bpf-gpiolat-*").split() == [h["rows"]["gpiolat"]
                                                    for h in gpio_hooks.HOOKS]
    assert run("only", "bpf-gpiolat-tp-slot").split() == ["bpf-gpiolat-tp-slot"]


# an item is accepted exactly when it selects a method: one matcher for both (a prefix of
# parts only was accepted, then selected nothing)
@pytest.mark.parametrize("lst,bad", [("typo", "typo"), ("event,typo", "typo"),
                                     ("nosuch*", "nosuch*"), (",", ","),
                                     ("bpf-gpiolat-tp-*", "bpf-gpiolat-tp-*"),
                                     ("event,bpf-gpiolat-tp-*", "bpf-gpiolat-tp-*")])
def test_only_unknown_item(lst, bad):
    assert run("only", lst, rc=1).strip() == f"bad {bad}"


def test_lookup_named_fields():
    assert run("lookup", "trace_printk").split() == ["trace_printk", "tracefs",
                                                     "mode=continuous", "trace_printk"]
    assert run("lookup", "event-filter").split() == ["event-filter", "tracefs", "event",
                                                     "event-filter"]
    assert run("lookup", "bpf-empty-fentry").split() == ["bpf-empty-fentry", "bpf", "untraced",
                                                         "-"]
    assert run("lookup", "user-ioctl-strace").split()[:2] == ["user-ioctl-strace", "user"]
    assert "untraced ioctl toggler" in run("lookup", "user-ioctl-strace")
    assert run("lookup", "control").split() == ["control", "control", "untraced", "-"]
    run("lookup", "nope", rc=1)


def test_new_row_appended():
    """bpf-empty-fexit (an empty BPF fexit program on gpiod_set_value, provider bpf.c) is a BPF
    row against the untraced toggler, after every row that was there before it"""
    assert run("lookup", "bpf-empty-fexit").split() == ["bpf-empty-fexit", "bpf", "untraced",
                                                        "-"]
    assert run("only", "bpf-empty-*").split() == [h["rows"]["empty"] for h in gpio_hooks.HOOKS
                                                  ] + ["bpf-empty-fexit"]
    assert run("only", "user-ioctl-syscall-hist,bpf-empty-fexit").split() == [
        "user-ioctl-syscall-hist", "bpf-empty-fexit"]


def talk_rows():
    """the talk's overhead rows and their "against" column, read here from data/"""
    rows = {}
    with open(os.path.join(ROOT, "data", "baseline-klinger-elce2023.csv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            w = line.rstrip("\n").split(",")
            if w[1] == "overhead":
                rows[w[0]] = (float(w[2]), w[6])
    return rows


# our references in the talk's words: the untraced module toggler (either mode) is its
# tracing-configured-rt, the untraced ioctl toggler its user-ioctl; a method's name is the same
TALK_NAME = {"untraced": "tracing-configured-rt", "mode=continuous": "tracing-configured-rt",
             "untraced ioctl toggler": "user-ioctl"}


@pytest.mark.parametrize("ours", ["untraced", "mode=continuous", "event",
                                  "untraced ioctl toggler"])
def test_talk_figure_beside_only_against_the_same_reference(ours):
    """The one rule (baseline_beside): a talk row stands beside a row of ours only when its
    "against" column names our reference; never a sum along "against" (the ply histogram was
    measured on top of the enabled event: no 4680 beside an untraced shift)."""
    for row, (value, against) in talk_rows().items():
        out = run("beside", row, ours).split()
        want = "beside" if against and against == TALK_NAME.get(ours, ours) else "not"
        assert out == [want, f"{value:.2f}", against or "-"], (row, ours, out)


def test_user_figure_beside_under_the_same_rule(tmp_path):
    p = write(tmp_path, "event,overhead,1200,ns,30,6.1,untraced,scope\n"
                        "kprobe,overhead,2000,ns,,6.1,untraced,on its own\n"
                        "bpf-gpiolat-tracepoint,overhead,900,ns,,6.1,event,\n"
                        "function,overhead,3000,ns,,6.1,,no reference\n")
    assert run("beside", "event", "untraced", p).split() == ["beside", "1200.00", "untraced"]
    assert run("beside", "kprobe", "event", p).split()[0] == "not"
    assert run("beside", "bpf-gpiolat-tracepoint", "untraced", p).split()[0] == "not"
    assert run("beside", "function", "untraced", p).split()[0] == "not"
    run("beside", "nope", "untraced", p, rc=1)


# rows as measured (NAME:MEAN:REF, REF the mean of the row's own reference phases; the
# burst-mode untraced mean is 1000 ns per set in test-overhead's report)
ROWS = ["event:1190:1000", "event-filter:300:2190", "kprobe:2800:2190",
        "bpf-gpiolat-tracepoint:900:1000", "bpftrace-delta:5000:1000", "ply-delta:4000:1000",
        "trace_printk:1000:500", "user-ioctl-strace:90000:2000"]


def report(fmt, *rows, baseline="-"):
    return run("report", fmt, baseline, *(rows or ROWS))


def test_report_talk_figures_only_where_the_rule_lets_them_stand():
    doc = json.loads(report("json"))
    m = {r["method"]: r for r in doc["methods"]}
    rows = talk_rows()
    for name in ("event", "event-filter", "kprobe", "trace_printk", "user-ioctl-strace"):
        t = m[name]["talk"]
        assert t["same_reference"] is True and t["overhead_ns"] == rows[t["row"]][0], name
    # the BPF and bpftrace rows: the talk's ply histogram is against the enabled event
    for name in ("bpf-gpiolat-tracepoint", "bpftrace-delta", "ply-delta"):
        t = m[name]["talk"]
        assert t == {"row": "bpf-ply-tracepoint", "overhead_ns": 3490.0, "against": "event",
                     "same_reference": False, "ours_per": "set",
                     "ours_ns": m[name]["overhead_ns"], "ours_ci95_ns": 1.0}, name
    text = report("text")
    assert "4680" not in text and "sum_of" not in json.dumps(doc)
    line = [l for l in text.splitlines() if l.startswith("bpftrace-delta ")][0]
    assert line.endswith("- (its bpf-ply-tracepoint is against event)"), line
    line = [l for l in text.splitlines() if l.startswith("kprobe ")][0]
    assert line.endswith("2790 ns (kprobe, against event)"), line


def test_report_per_pulse_and_falling_set_rows_beside_the_talk_only_as_it_measured():
    """the talk measured pulse+ (set to 1 to set to 0). user-ioctl-uprobe fires once a pulse
    (toggle_ioctl_v2_once): its figure beside the talk's is ours per pulse, 2 x per set, the one
    entry and one return the talk's pulse+ held. event-synthetic does its delta, synthetic event
    and hist at the set to 0 only (pulse+ holds that, ns per set the mean with the set to 1's
    saved time): beside nothing"""
    rows = ["user-ioctl-uprobe:1860:2000", "event-synthetic:3000:2190",
            "user-ioctl-syscall-events:900:2000"]
    doc = json.loads(report("json", *rows))
    m = {r["method"]: r for r in doc["methods"]}
    assert m["user-ioctl-uprobe"]["fires"] == "pulse"
    t = m["user-ioctl-uprobe"]["talk"]
    assert (t["row"], t["overhead_ns"], t["same_reference"]) == ("user-ioctl-uprobe", 14410.0,
                                                                  True)
    assert (t["ours_per"], t["ours_ns"], t["ours_ci95_ns"]) == ("pulse", 3720.0, 2.0)
    assert "talk" not in m["event-synthetic"]
    assert m["event-synthetic"]["fires"] == "set, more at the set to 0"
    t = m["user-ioctl-syscall-events"]["talk"]
    assert m["user-ioctl-syscall-events"]["fires"] == "set"
    assert (t["ours_per"], t["ours_ns"]) == ("set", 900.0)
    text = report("text", *rows).splitlines()
    line = [l for l in text if l.startswith("user-ioctl-uprobe ")][0]
    assert line.endswith("14410 ns per pulse+ (user-ioctl-uprobe, against user-ioctl); ours per "
                         "pulse 3720.0 +- 2.0"), line
    line = [l for l in text if l.startswith("event-synthetic ")][0]
    assert line.endswith(" -"), line


def test_report_percent_of_each_rows_own_reference():
    """every figure of a row against its one reference: trace_printk's reference is the
    module in mode=continuous (500 ns here), not the burst mode's untraced set (1000)"""
    doc = json.loads(report("json"))
    for r in doc["methods"]:
        ref = {x.split(":")[0]: float(x.split(":")[2]) for x in ROWS}[r["method"]]
        assert r["percent_of_reference"] == pytest.approx(100 * r["overhead_ns"] / ref)
        assert r["percent_of"] == r["against"]
    line = [l for l in report("text").splitlines() if l.startswith("trace_printk ")][0]
    assert line.split()[2:5] == ["1000.0", "1.0", "200%"], line


def test_report_user_rows_beside_or_left_out_with_why(tmp_path):
    p = write(tmp_path, "event,overhead,1200,ns,30,6.1,untraced,scope\n"
                        "event-filter,overhead,310,ns,,6.1,untraced,mine\n"
                        "kprobe,overhead,2000,ns,,6.1,,\n"
                        "nothing-here,overhead,5,ns,,6.1,untraced,\n"
                        "my-pulse,pulse,160,ns,,6.1,,\n")
    text = report("text", baseline=p)
    lines = text.splitlines()
    assert "yours: 1200 ns (event, against untraced)" in [l for l in lines
                                                          if l.startswith("event ")][0]
    for name in ("event-filter ", "kprobe "):
        assert "yours" not in [l for l in lines if l.startswith(name)][0], name
    left = [l for l in lines if l.startswith("yours left out")]
    assert len(left) == 1, text
    for why in ("event-filter (against untraced; our event-filter against event)",
                "kprobe (against nothing; our kprobe against event)",
                "nothing-here (no measured row of ours by that name)",
                "my-pulse (a pulse figure, not an overhead)"):
        assert why in left[0], left[0]
    doc = json.loads(report("json", baseline=p))
    assert doc["user_baseline_left_out"] == left[0].split(": ", 1)[1]
    assert [r["method"] for r in doc["methods"] if "yours" in r] == ["event"]


def test_baseline_row_on_the_first_line_keeps_its_against(tmp_path):
    # the row's reference was looked up after a newline: a first-line row lost it
    p = write(tmp_path, "event,overhead,1200,ns,30,6.1,untraced,scope\n"
                        "event-filter,overhead,300,ns,,6.1,event,\n")
    assert run("against", p, "event").split() == ["1200.0", "untraced"]
    assert run("against", p, "event-filter").split() == ["300.0", "event"]


def test_baseline_directory_is_refused():
    # a directory is no CSV: refused before it is read, never read as an empty file ("no rows")
    out = run("baseline", "/tmp", rc=1)
    assert out.strip() == "--baseline: /tmp is a directory, not a regular file"


def test_baseline_device_is_refused():
    # /dev/zero never ends: not a regular file, refused without a read
    out = run("baseline", "/dev/zero", rc=1)
    assert out.strip() == "--baseline: /dev/zero is a character device, not a regular file"


def test_baseline_fifo_is_refused_without_waiting(tmp_path):
    # a FIFO without a writer: opened, it would wait for one forever
    fifo = tmp_path / "scope.csv"
    os.mkfifo(fifo)
    r = subprocess.run([TEST_OV, "baseline", str(fifo)], capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stdout.strip() == f"--baseline: {fifo} is a FIFO, not a regular file"


def test_baseline_huge_file_is_refused(tmp_path):
    # a regular file past 1 MiB (sparse: nothing written) is read no further: one clear error
    big = tmp_path / "big.csv"
    with open(big, "wb") as f:
        f.truncate(2 * 1024 * 1024)
    out = run("baseline", big, rc=1)
    assert out.strip() == f"--baseline: cannot read {big}: File too large"
