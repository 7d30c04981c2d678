"""Host side: the one excuse a target test accepts for a method that is "not available"
(tests/target/rows.py and lib.sh's kconfig_missing, both reading tests/target/kconfig-needs):
exact per method, the same in Python and in shell, and never a tool host/deps.sh installs on
x86_64."""
import fnmatch
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "target"))
import rows  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "host"))
import gpio_hooks  # noqa: E402  host/gpio_hooks.py: each GPIO hook's rows, from the loader's table

# every method of the --overhead matrix (loader/modes/overhead/ov_methods.c; the GPIO hooks' rows
# from the loader's table) and 05's hooks
METHODS = ["control", "event", "event-filter", "event-trigger", "event-hist", "event-synthetic",
           "kprobe", "function", "function_graph", "trace_printk", "bpf-gpiolat-tp-clock",
           "bpf-gpiolat-tp-slot", "bpf-gpiolat-tp-trust", "bpf-gpiolat-tp-linear", "bpf-gpiolat-tp-intervals",
           "bpftrace-delta", "bpftrace-dt-kprobe", "ply-delta",
           "ply-dt-kprobe", "ply-delta-event", "user-ioctl-syscall-events", "user-ioctl-uprobe",
           "user-ioctl-trace-marker", "user-ioctl-strace", "user-ioctl-syscall-hist"] + \
          [f"{s}-{k}" for s in ("events", "kprobes") for k in range(1, 11)] + \
          [r for h in gpio_hooks.HOOKS for r in h["rows"].values()]
ALL = sorted({o for m in METHODS for o in rows.kconfig_needs(m)})


def with_config(monkeypatch, lacking, machine="x86_64", tools=True):
    monkeypatch.setattr(rows, "_cfg", {o: "y" for o in ALL if o not in lacking}
                        | {"CONFIG_OTHER": "y"})
    monkeypatch.setattr(rows.platform, "machine", lambda: machine)
    monkeypatch.setattr(rows.shutil, "which", lambda t: f"/usr/bin/{t}" if tools else None)


def test_every_method_is_listed_and_the_full_config_excuses_none(monkeypatch):
    with_config(monkeypatch, set())
    listed = open(os.path.join(ROOT, "tests", "target", "kconfig-needs")).read()
    for m in METHODS:
        assert rows.independent_reason(m) is None, m
        # listed (or matched by a glob line): a method missing from the table would need nothing
        assert any(w and not w.startswith("#") and fnmatch.fnmatchcase(m, w)
                   for w in (ln.split()[0] if ln.split() else "" for ln in listed.splitlines())), m


def test_the_bpf_syscall_histogram_is_not_excused_by_tracefs_options(monkeypatch):
    # user-ioctl-syscall-hist is BPF on raw_syscalls: no syscall events, no hist triggers needed
    with_config(monkeypatch, {"CONFIG_FTRACE_SYSCALLS", "CONFIG_HIST_TRIGGERS",
                              "CONFIG_SYNTH_EVENTS"})
    assert rows.independent_reason("user-ioctl-syscall-hist") is None
    assert rows.independent_reason("event-hist") == "the kernel has no CONFIG_HIST_TRIGGERS"
    assert rows.independent_reason("user-ioctl-syscall-events") == \
        "the kernel has no CONFIG_FTRACE_SYSCALLS"
    with_config(monkeypatch, {"CONFIG_BPF_EVENTS"})
    assert "CONFIG_BPF_EVENTS" in rows.independent_reason("user-ioctl-syscall-hist")


def test_bpf_kprobes_need_bpf_events_and_tracefs_kprobes_do_not(monkeypatch):
    with_config(monkeypatch, {"CONFIG_BPF_EVENTS"})
    assert rows.independent_reason("kprobe") is None
    assert rows.independent_reason("kprobes-4") is None
    assert "CONFIG_BPF_EVENTS" in rows.independent_reason("bpf-gpiolat-kprobe")
    with_config(monkeypatch, {"CONFIG_KPROBES", "CONFIG_KPROBE_EVENTS"})
    for m in ("kprobe", "bpf-empty-kprobe", "bpftrace-dt-kprobe"):
        assert "CONFIG_KPROBE" in rows.independent_reason(m), m
    assert rows.independent_reason("bpf-gpiolat-tracepoint") is None


def test_fentry_is_excused_only_without_ftrace_direct_calls(monkeypatch):
    # arm64 6.1: no DYNAMIC_FTRACE_WITH_DIRECT_CALLS (register_fentry() returns -ENOTSUPP)
    with_config(monkeypatch, {"CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"}, machine="aarch64")
    assert "DIRECT_CALLS" in rows.independent_reason("bpf-gpiolat-fentry")
    with_config(monkeypatch, set(), machine="armv7l")
    assert rows.independent_reason("bpf-gpiolat-fentry") is None


def test_host_tools_are_never_an_excuse_on_x86_64(monkeypatch):
    with_config(monkeypatch, set(), tools=False)
    assert rows.independent_reason("bpftrace-delta") is None
    assert rows.independent_reason("user-ioctl-strace") is None
    with_config(monkeypatch, set(), machine="aarch64", tools=False)
    # a root without apt (Debian 12's ARM targets: the busybox initramfs)
    monkeypatch.setattr(rows, "apt_candidate", lambda p: None)
    assert rows.independent_reason("bpftrace-delta").startswith("not run on aarch64")
    assert "no apt" in rows.independent_reason("user-ioctl-strace")


@pytest.mark.parametrize("machine", ["armv7l", "aarch64"])
def test_arm_tools_are_excused_only_where_apt_has_no_candidate(monkeypatch, machine):
    # Debian 13's armhf and arm64 roots have bpftrace and strace: missing there, the row fails
    with_config(monkeypatch, set(), machine=machine, tools=False)
    monkeypatch.setattr(rows, "apt_candidate", lambda p: {"bpftrace": "0.23.2-1",
                                                          "strace": "6.13"}.get(p, ""))
    for m in ("bpftrace-delta", "bpftrace-dt-kprobe", "user-ioctl-strace"):
        assert rows.independent_reason(m) is None, m
    monkeypatch.setattr(rows, "apt_candidate", lambda p: "")
    assert "no candidate" in rows.independent_reason("bpftrace-delta")


@pytest.mark.parametrize("machine", ["x86_64", "armv7l", "aarch64"])
def test_ply_is_excused_only_where_apt_has_no_candidate(monkeypatch, machine):
    with_config(monkeypatch, set(), machine=machine, tools=False)
    # Debian 13 and testing package ply: a root whose apt has it must have ply, on any machine
    monkeypatch.setattr(rows, "apt_candidate", lambda p: "2.4.0-1")
    assert rows.independent_reason("ply-delta") is None
    assert rows.independent_reason("ply-dt-kprobe") is None
    # Debian 12 does not package it
    monkeypatch.setattr(rows, "apt_candidate", lambda p: "")
    assert "does not package it" in rows.independent_reason("ply-delta")
    # a root without apt (busybox initramfs)
    monkeypatch.setattr(rows, "apt_candidate", lambda p: None)
    assert "no apt" in rows.independent_reason("ply-delta")
    # where ply is on PATH it must run
    with_config(monkeypatch, set(), machine=machine, tools=True)
    assert rows.independent_reason("ply-delta") is None


def test_apt_candidate_reads_this_roots_apt():
    # this host (Debian 12 or 13): the answer is apt-cache's own
    out = subprocess.run(["apt-cache", "policy", "ply"], capture_output=True, text=True).stdout
    want = [ln.split(":", 1)[1].strip() for ln in out.splitlines()
            if ln.strip().startswith("Candidate:")]
    want = "" if not want or want[0] == "(none)" else want[0]
    assert rows.apt_candidate("ply") == want


def test_no_configuration_found_excuses_nothing(monkeypatch):
    monkeypatch.setattr(rows, "_cfg", {})
    assert rows.independent_reason("bpf-gpiolat-kprobe") is None


@pytest.mark.parametrize("lacking", [set(), {"CONFIG_KPROBE_EVENTS"}, {"CONFIG_BPF_EVENTS"},
                                     {"CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
                                      "CONFIG_FTRACE_SYSCALLS", "CONFIG_HIST_TRIGGERS"}])
def test_the_shell_check_agrees_with_python(tmp_path, monkeypatch, lacking):
    cfg = tmp_path / "config"
    cfg.write_text("".join(f"{o}=y\n" for o in ALL if o not in lacking) +
                   "".join(f"# {o} is not set\n" for o in sorted(lacking)))
    script = (f'. "{ROOT}/tests/target/lib.sh"; PROJ="{ROOT}"; '
              f'kconfig_file() {{ echo "{cfg}"; }}; '
              'for m in "$@"; do echo "$m:$(kconfig_missing "$m")"; done')
    r = subprocess.run(["sh", "-c", script, "sh", *METHODS], capture_output=True, text=True,
                       check=True)
    got = dict(ln.split(":", 1) for ln in r.stdout.splitlines())
    monkeypatch.setattr(rows, "_cfg", {o: "y" for o in ALL if o not in lacking})
    for m in METHODS:
        want = [o for o in rows.kconfig_needs(m) if rows._lacks(o)]
        assert got[m].split() == want, m


@pytest.mark.parametrize("tracer,done,want", [
    # exits once its command is done
    ("sleep 0.3", True, "exit"),
    # still in its pause() after its command: SIGINT ends it (a handler of its own, as ply's
    # sigaction(): a background job of sh starts with SIGINT ignored, which sh's trap cannot undo)
    ("python3 -c 'import signal, time; signal.signal(signal.SIGINT, lambda *a: exit(0)); "
     "time.sleep(60)'", True, "sigint"),
    # its command never ends: the limit (1 s here), then SIGKILL
    ("while :; do sleep 0.1; done", False, "timeout"),
])
def test_tool_wait_ends_every_tracer(tmp_path, tracer, done, want):
    """lib.sh's tool_wait: test 55's bound on a tracer run with -c"""
    flag = tmp_path / "done"
    if done:
        flag.write_text("")
    script = (f'. "{ROOT}/tests/target/lib.sh"; {tracer} & p=$!; '
              f'tool_wait $p "{flag}" 1; wait $p; echo "$_stopped $?"')
    r = subprocess.run(["sh", "-c", script], capture_output=True, text=True, timeout=120)
    stopped, status = r.stdout.split()
    assert stopped == want, r.stdout + r.stderr
    assert status == {"exit": "0", "sigint": "0", "timeout": "137"}[want]
