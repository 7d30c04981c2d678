"""gpiolat on the build host: bad input and missing kernel features fail cleanly.

The host kernel has BTF and tracepoints but no GPIO subsystem, no kprobes and no modules, so
every method must fail with one line naming what is missing, a non-zero exit status, and no
BPF program of ours left behind.
"""
import os
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))
OUR_PROGS = ("gpiolat_tp", "gpiolat_kprobe", "gpiolat_fentry")


def run(*args):
    return subprocess.run([GPIOLAT, *args], capture_output=True, text=True, timeout=60)


def our_programs():
    """names of our BPF programs still loaded ([] when bpftool cannot tell)"""
    try:
        out = subprocess.run(["bpftool", "prog", "show"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [p for p in OUR_PROGS if p in out]


def one_line_error(r, status, *words):
    lines = r.stderr.splitlines()
    assert r.returncode == status, r.stderr
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("gpiolat: "), lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    assert r.stdout == ""
    assert our_programs() == []


pytestmark = pytest.mark.usefixtures("gpiolat_root")


def host_has(path):
    return os.path.exists(path)


@pytest.mark.parametrize("args,words", [
    (["--frobnicate"], ["unknown option", "--frobnicate"]),
    (["-d", "5x"], ["bad duration", "5x"]),
    (["-d", "0"], ["bad duration"]),
    (["-d", "-1s"], ["bad duration"]),
    # added to the monotonic clock: a sum that wrapped would end the run at once
    (["-d", "18446744073709551615ns"], ["bad duration", "at most a year"]),
    (["-d", "525601m"], ["bad duration", "at most a year"]),
    (["-i", "18446744073709551615ns"], ["bad interval", "at most a year"]),
    (["-i", "fast"], ["bad interval"]),
    (["--linear", "0"], ["bad linear bucket width"]),
    (["--linear", "1m"], ["bad linear bucket width"]),
    (["-l", "chip:"], ["bad line"]),
    (["-l", ":3"], ["bad line"]),
    (["-l", "chip:x"], ["bad line"]),
    (["--pulses", "0"], ["bad pulse count"]),
    (["--pulses", "12abc"], ["bad pulse count"]),
    (["stray"], ["unexpected argument", "stray"]),
    (["-i", "2s", "-d", "1s"], ["interval is longer than the duration"]),
    # every bad number is a usage error, an offset past INT_MAX too
    (["-l", "99999999999999999999"], ["bad line", "99999999999999999999"]),
    (["-l", "toggle-vchip:99999999999999999999"], ["bad line"]),
    (["-l", "2147483648"], ["bad line"]),
    # strtol would skip leading white space and take '+'
    (["-d", " 5"], ["bad duration", "' 5'"]),
    (["-d", "\t5s"], ["bad duration"]),
    (["--pulses", " 5"], ["bad pulse count"]),
    (["--pulses", "+5"], ["bad pulse count"]),
    # one hook per run
    (["--kprobe", "--fentry"], ["--kprobe and --fentry exclude each other"]),
    (["--fentry", "--tracepoint", "-d", "1"], ["--fentry and --tracepoint exclude each other"]),
    (["--overhead", "--kmod", "/tmp"], ["--kmod: /tmp is a directory, not a regular file"]),
    (["--overhead", "--only", "bpf-gpiolat-tp-*"], ["'bpf-gpiolat-tp-*' selects no method"]),
    (["--overhead", "--only", ","], ["selects no method"]),
    (["--overhead", "--baseline", "/tmp"], ["--baseline: /tmp is a directory"]),
    # options end at "--": what follows is the command's, never a mode's flag
    (["--wakeup", "-d", "0", "--", "x", "--overhead"], ["--wakeup: bad duration"]),
    (["--wakeup", "-d", "0", "--", "x", "--cleanup"], ["--wakeup: bad duration"]),
    (["-d", "0", "--", "--path"], ["bad duration", "(see gpiolat --help)"]),
    # --path's bad usage is a usage error like every mode's (it exited 64 before)
    (["--path", "--bogus"], ["--path", "'--bogus'"]),
    (["--path", "-r", "x"], ["--path", "--reps"]),
])
def test_usage_errors(args, words):
    one_line_error(run(*args), 2, *words)


@pytest.mark.parametrize("mode", ["--wakeup", "--gaps", "--syscall-hist"])
def test_every_mode_bounds_its_duration(mode):
    # every mode adds -d to the monotonic clock: a sum that wrapped would end the run at once
    one_line_error(run(mode, "-d", "525601m"), 2, "bad duration", "at most a year")


def test_missing_argument():
    one_line_error(run("-d"), 2, "missing argument")


def test_help_lists_methods_and_exit_codes():
    r = run("--help")
    assert r.returncode == 0
    for w in ("--tracepoint", "--kprobe", "--fentry", "--line", "--duration", "--interval",
              "--linear", "--json", "--csv", "--btf", "--self-test", "--pulses", "EXIT STATUS"):
        assert w in r.stdout


@pytest.mark.skipif(host_has("/sys/bus/gpio/devices"), reason="this host has GPIO chips")
@pytest.mark.parametrize("spec", ["5", "toggle-vchip:0", "gpiochip0:1"])
def test_unknown_line(spec):
    one_line_error(run("-l", spec), 1, "no GPIO", spec)


@pytest.mark.skipif(host_has("/sys/kernel/tracing/events/gpio"), reason="this host has GPIO")
def test_no_gpio_tracepoint():
    one_line_error(run("-d", "1"), 1, "gpio:gpio_value", "not")


@pytest.mark.skipif(host_has("/sys/bus/event_source/devices/kprobe"),
                    reason="this host has kprobes")
def test_no_kprobes():
    one_line_error(run("--kprobe", "-d", "1"), 1, "kprobes are not supported", "CONFIG_KPROBES")


def test_no_gpiod_set_value_for_fentry():
    if "gpiod_set_value" in open("/proc/kallsyms").read():
        pytest.skip("this host has gpiod_set_value")
    one_line_error(run("--fentry", "-d", "1"), 1, "gpiod_set_value is not in this kernel",
                   "fentry")


def test_bad_btf_file(tmp_path):
    bad = tmp_path / "vmlinux.btf"
    bad.write_bytes(b"not btf")
    one_line_error(run("--btf", str(bad), "-d", "1"), 1, "BTF", str(bad))


def test_self_test_reports_each_facility():
    r = run("--self-test")
    for w in ("privileges", "BTF", "BPF JIT", "tracepoint", "kprobe", "fentry",
              "BPF run-time stats", "toggle module", "timings"):
        assert w in r.stdout
    default_ok = "default method (tracepoint) can run here" in r.stdout
    assert (r.returncode == 0) == default_ok
    if not host_has("/sys/kernel/tracing/events/gpio"):
        assert r.returncode == 1
        assert "cannot run here" in r.stdout
    assert our_programs() == []


@pytest.mark.skipif(host_has("/sys/kernel/tracing/events/gpio"), reason="this host has GPIO")
def test_no_gpio_tracepoint_for_tp_btf():
    """the BTF-typed tracepoint checks the tracepoint first, in one line, and leaves nothing"""
    one_line_error(run("--tp_btf", "-d", "1"), 1, "tp_btf: not available",
                   "gpio:gpio_value is not in this kernel")


# A report that cannot be written says why (common/results_out.c; every way a write fails, with
# no BPF: test_results_out.py): --syscall-hist's report ends in a flush of its own, and with -i
# its histograms go out interval by interval: the reason is the first failed write's either way
@pytest.mark.parametrize("args", [["-d", "300ms"], ["-d", "300ms", "-i", "10ms", "--json"]],
                         ids=" ".join)
def test_a_report_into_dev_full_says_why(args):
    with open("/dev/full", "w") as full:
        r = subprocess.run([GPIOLAT, "--syscall-hist", *args], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [
        "gpiolat: writing the results to stdout failed: No space left on device"]
    assert our_programs() == []
