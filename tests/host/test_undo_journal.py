"""One undo: a gpiolat run SIGKILLed right after it took each kind of thing this host lets
--syscall-cost take (a tracefs instance with events enabled, a uprobe event, a child process:
the worker, strace, bpftrace) leaves a journal /run/gpiolat/undo-PID that names the thing and no
mode, and gpiolat --cleanup replays it to the exact state before the run: tracefs (instances, their
enabled events, probe and synthetic events), the processes, the state directory. The next run
does the same at its start. (The target's kinds, the module and the top-level tracer, and every
mode's kill: tests/target/93-overhead-kill-every-row.sh.)"""
import os
import re
import signal
import subprocess
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
GPIOLAT = os.environ.get("GPIOLAT", os.path.join(ROOT, "gpiolat"))
TRACEFS = "/sys/kernel/tracing"
STATE = "/run/gpiolat"
MODES = {"overhead", "syscall-cost", "syscall-hist", "path", "wakeup", "gaps", "histogram",
         "cleanup", "self-test", "empty-raw-tp"}
KINDS = {"w", "i", "e", "k", "t", "c"}

pytestmark = pytest.mark.usefixtures("gpiolat_root")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def comms():
    """the processes that a run of ours may leave: our worker (named gpiolat) and tools"""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and read(f"/proc/{pid}/comm").strip() in (
                "gpiolat", "strace", "bpftrace"):
            st = read(f"/proc/{pid}/stat")
            if st and st[st.rindex(")") + 2] != "Z":
                out.append(read(f"/proc/{pid}/comm").strip())
    return sorted(out)


def snapshot():
    """what a run may change here, as text"""
    s = ["instances " + " ".join(sorted(os.listdir(TRACEFS + "/instances")))]
    for i in sorted(os.listdir(TRACEFS + "/instances")):
        s.append(f"{i}: " + read(f"{TRACEFS}/instances/{i}/set_event"))
    for f in ("uprobe_events", "kprobe_events", "synthetic_events", "set_event",
              "current_tracer"):
        s.append(f + ": " + read(os.path.join(TRACEFS, f)))
    s.append("processes " + " ".join(comms()))
    s.append("state " + " ".join(sorted(os.listdir(STATE))) if os.path.isdir(STATE) else "")
    return "\n".join(s)


def journals():
    if not os.path.isdir(STATE):
        return {}
    return {n: read(os.path.join(STATE, n)) for n in os.listdir(STATE) if n.startswith("undo")}


def wait_for(pred, proc, timeout=120):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def in_instance():
    return read(TRACEFS + "/instances/gpiolat_sc/set_event").strip() != ""


def uprobe():
    return "gpiolat_sc/" in read(TRACEFS + "/uprobe_events")


def tool(name):
    return lambda: name in comms()


# method, what shows it took its thing, the kinds of step its journal must hold then
CASES = [
    ("syscall-events", in_instance, {"i", "c"}),
    ("uprobe-event", uprobe, {"i", "e", "c"}),
    ("strace", tool("strace"), {"i", "c"}),
    ("bpftrace", tool("bpftrace"), {"i", "c"}),
]


def killed_run(method, taken):
    """a --syscall-cost run of METHOD, SIGKILLed once TAKEN(); the journal it left"""
    if method in ("strace", "bpftrace") and not any(
            os.access(os.path.join(d, method), os.X_OK)
            for d in os.environ.get("PATH", "/usr/bin").split(":")):
        pytest.skip(f"no {method} here")
    p = subprocess.Popen([GPIOLAT, "--syscall-cost", "-m", method, "--rounds", "100"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    seen = wait_for(taken, p)
    p.send_signal(signal.SIGKILL)
    out = p.communicate(timeout=60)[0]
    if not seen and ("not available" in out or "cannot" in out):
        pytest.skip(f"{method} does not run here: {out.strip()[-200:]}")
    assert seen, out
    return p.pid, journals()


def check_journal(pid, js, kinds):
    name = f"undo-{pid}"
    assert name in js, js
    head, *steps = js[name].strip().split("\n")
    assert re.fullmatch(rf"gpiolat undo journal, pid {pid} start \d+", head), head
    got = {s.split(" ")[0] for s in steps}
    assert got <= KINDS and kinds <= got, (kinds, steps)
    words = {w for s in steps for w in re.split(r"[ /]", s)}
    assert not words & MODES, steps  # the steps say what to put back, not who took it


@pytest.mark.parametrize("method,taken,kinds", CASES, ids=[c[0] for c in CASES])
def test_killed_run_cleanup_puts_back(method, taken, kinds):
    before = snapshot()
    pid, js = killed_run(method, taken)
    check_journal(pid, js, kinds)
    assert snapshot() != before  # the kill left the thing behind: the check below means something
    r = subprocess.run([GPIOLAT, "--cleanup"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "removed the leftovers" in r.stdout, r.stdout
    for _ in range(50):  # a killed tool's last moment
        if snapshot() == before:
            break
        time.sleep(0.1)
    assert snapshot() == before
    r = subprocess.run([GPIOLAT, "--cleanup"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "nothing to clean up" in r.stdout, (r.stdout, r.stderr)


def test_killed_run_next_run_puts_back():
    before = snapshot()
    pid, js = killed_run("uprobe-event", uprobe)
    check_journal(pid, js, {"i", "e", "c"})
    r = subprocess.run([GPIOLAT, "--syscall-cost", "-m", "control", "--rounds", "2",
                        "--batches", "3", "--batch", "20"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "removed the leftovers of an earlier run" in r.stderr, r.stderr
    assert snapshot() == before


def test_a_running_gpiolat_journal_is_left_to_it():
    """--cleanup while another gpiolat runs: its journal is not replayed (exit 1, says whose);
    that run still puts everything back itself"""
    before = snapshot()
    p = subprocess.Popen([GPIOLAT, "--syscall-cost", "-m", "syscall-events", "--rounds", "10"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert wait_for(in_instance, p), p.communicate()
    r = subprocess.run([GPIOLAT, "--cleanup"], capture_output=True, text=True, timeout=120)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    assert r.returncode == 1 and f"pid {p.pid}" in r.stderr, (r.stdout, r.stderr)
    assert snapshot() == before
