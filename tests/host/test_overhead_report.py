"""host/overhead-report.sh (make overhead-report, the main command's overhead part): the limit
it gives vm/run, in a copy of the project whose vm/run, make and host/overhead.py are stubs that
log their call: seconds, no target booted.

vm/run's limit is on the host's clock, while the part's work is the guest's: on a loaded machine
the part takes many times its CPU time. In a fresh Debian 13 root (load 14 to 19, the run at
nice 5) the part was stopped twice at the old fixed 900 s after 123 s of CPU; the default is
3000 s (bench-gpio's), and VM_TIMEOUT in the environment sets it.
"""
import os
import shutil
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

STUB = """#!/bin/sh
echo "$0 $* | VM_TIMEOUT=${VM_TIMEOUT:-} KERNEL=${KERNEL:-}" >>"$STUB_LOG"
"""


def make_proj(tmp_path):
    p = tmp_path / "proj"
    (p / "host").mkdir(parents=True)
    (p / "vm").mkdir()
    shutil.copy(os.path.join(ROOT, "host", "overhead-report.sh"), p / "host")
    (p / "vm" / "run").write_text(STUB + 'echo "{}"\n')
    (p / "host" / "overhead.py").write_text("")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "make").write_text(STUB)
    for f in (p / "vm" / "run", bin_ / "make"):
        f.chmod(0o755)
    return p


def run(tmp_path, **env):
    p = make_proj(tmp_path)
    log = tmp_path / "log"
    log.write_text("")
    e = {k: v for k, v in os.environ.items()
         if k not in ("VM_TIMEOUT", "KERNEL", "STUDY_BUILT", "OVERHEAD_ARGS", "MAKEFLAGS")}
    e.update(PATH=f"{tmp_path / 'bin'}:{os.environ['PATH']}", STUB_LOG=str(log),
             TARGET="emulated", OVERHEAD_NOREPORT="1")
    e.update(env)
    r = subprocess.run(["sh", str(p / "host" / "overhead-report.sh")], env=e,
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    return [ln for ln in log.read_text().splitlines() if ln.startswith("vm/run ")]


def test_the_default_limit_is_3000_s(tmp_path):
    (call,) = run(tmp_path)
    assert "./gpiolat --overhead --json" in call and "VM_TIMEOUT=3000 " in call, call


def test_vm_timeout_in_the_environment_sets_the_limit(tmp_path):
    (call,) = run(tmp_path, VM_TIMEOUT="5400")
    assert "VM_TIMEOUT=5400 " in call, call
