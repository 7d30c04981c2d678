"""One undo: a gpiolat run SIGKILLed right after it took each kind of thing this host lets
--syscall-cost take (a tracefs instance with events enabled, a uprobe event, a child process:
the worker, strace, bpftrace) leaves a journal /run/gpiolat/undo-PID that names the thing and no
mode, and gpiolat --cleanup replays it to the exact state before the run: tracefs (instances, their
enabled events, probe and synthetic events), the state directory, and none of the run's
children (the journal's, by pid and start time) left running. The next run
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


def stat(pid):
    """(state, ppid, start time) of process PID, or None"""
    st = read(f"/proc/{pid}/stat")
    if not st:
        return None
    f = st[st.rindex(")") + 2:].split()
    return f[0], int(f[1]), int(f[19])


def runs(pid, start):
    """does the process PID that started at START run (not a zombie)?"""
    s = stat(pid)
    return bool(s) and s[2] == start and s[0] != "Z"


def snapshot():
    """what a run may change here, as text"""
    s = ["instances " + " ".join(sorted(os.listdir(TRACEFS + "/instances")))]
    for i in sorted(os.listdir(TRACEFS + "/instances")):
        s.append(f"{i}: " + read(f"{TRACEFS}/instances/{i}/set_event"))
    for f in ("uprobe_events", "kprobe_events", "synthetic_events", "set_event",
              "current_tracer"):
        s.append(f + ": " + read(os.path.join(TRACEFS, f)))
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
    """a child NAME of the run's (its pid in RUN[0])"""
    def pred():
        return any(read(f"/proc/{p}/comm").strip() == name and (stat(p) or (0, 0))[1] == RUN[0]
                   for p in os.listdir("/proc") if p.isdigit())
    return pred


RUN = [0]  # the pid of the run the predicates look at


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
    RUN[0] = p.pid
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
    return [(int(s.split()[1]), int(s.split()[2])) for s in steps if s.startswith("c ")]


@pytest.mark.parametrize("method,taken,kinds", CASES, ids=[c[0] for c in CASES])
def test_killed_run_cleanup_puts_back(method, taken, kinds):
    before = snapshot()
    pid, js = killed_run(method, taken)
    children = check_journal(pid, js, kinds)
    assert snapshot() != before  # the kill left the thing behind: the check below means something
    r = subprocess.run([GPIOLAT, "--cleanup"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "removed the leftovers" in r.stdout, r.stdout
    for _ in range(50):  # a killed tool's last moment
        if snapshot() == before:
            break
        time.sleep(0.1)
    assert snapshot() == before
    assert not [c for c in children if runs(*c)], children
    r = subprocess.run([GPIOLAT, "--cleanup"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "nothing to clean up" in r.stdout, (r.stdout, r.stderr)


def test_killed_run_next_run_puts_back():
    before = snapshot()
    pid, js = killed_run("uprobe-event", uprobe)
    children = check_journal(pid, js, {"i", "e", "c"})
    r = subprocess.run([GPIOLAT, "--syscall-cost", "-m", "control", "--rounds", "2",
                        "--batches", "3", "--batch", "20"], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "removed the leftovers of an earlier run" in r.stderr, r.stderr
    assert snapshot() == before
    assert not [c for c in children if runs(*c)], children


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


def test_uretprobe_step():
    """a journal's uprobe and uretprobe (the user-ioctl-uprobe row's pair) both go: libtracefs
    lists a uretprobe twice (as a kretprobe too) and its get by name then finds none (test 93
    left the uretprobe once); the journal is one of a run that is gone"""
    if not os.path.exists(TRACEFS + "/uprobe_events"):
        pytest.skip("no uprobe events here")
    before = snapshot()
    for line in ("p:gpiolat/gpiolat_utoggle /bin/true:0x1000",
                 "r:gpiolat/gpiolat_utoggle_ret /bin/true:0x1000"):
        fd = os.open(TRACEFS + "/uprobe_events", os.O_WRONLY | os.O_APPEND)
        os.write(fd, (line + "\n").encode())  # one definition a write
        os.close(fd)
    os.makedirs(STATE, mode=0o700, exist_ok=True)
    dead = subprocess.Popen(["true"])
    dead.wait()
    fd = os.open(os.path.join(STATE, f"undo-{dead.pid}"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, f"gpiolat undo journal, pid {dead.pid} start 1\n"
             "e gpiolat gpiolat_utoggle\ne gpiolat gpiolat_utoggle_ret\n".encode())
    os.close(fd)
    r = subprocess.run([GPIOLAT, "--cleanup"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "removed the leftovers" in r.stdout, (r.stdout, r.stderr)
    assert snapshot() == before
