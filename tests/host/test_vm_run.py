"""Host side: vm/run, the one command that runs anything inside the emulated target."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL = os.path.join(ROOT, "out", "target", "x86_64-std")


def vm_run(*args, env=None, cwd=ROOT):
    e = dict(os.environ, VM_NOMAKE="1", VM_TIMEOUT="300", TOGGLE="0")
    e.update(env or {})
    return subprocess.run([os.path.join(ROOT, "vm", "run"), *args], cwd=cwd, env=e,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=400)


pytestmark = pytest.mark.skipif(not os.path.exists(os.path.join(KERNEL, "initramfs.cpio.gz")),
                                reason="no emulated target: run 'make target' first")


def test_status_stdout_stderr_and_cwd_come_back_separately():
    r = vm_run("sh", "-c", "pwd; uname -r; echo to-stderr >&2; exit 7",
               cwd=os.path.join(ROOT, "tests"))
    assert r.returncode == 7
    out = r.stdout.splitlines()
    assert out[0] == os.path.join(ROOT, "tests")
    with open(os.path.join(KERNEL, "release")) as f:
        assert out[1] == f.read().strip()
    assert "to-stderr" in r.stderr
    assert "to-stderr" not in r.stdout
    # a failing command shows the target's last kernel messages on stderr
    assert "the target's last kernel messages" in r.stderr


def test_arguments_keep_their_quoting():
    r = vm_run("printf", "<%s>\n", "a b", "it's", "$HOME", "")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["<a b>", "<it's>", "<$HOME>", "<>"]


def test_project_is_writable_and_host_root_is_read_only(tmp_path_factory):
    out = os.path.join(ROOT, "out", "tests")
    os.makedirs(out, exist_ok=True)
    marker = os.path.join(out, "vm-write-check")
    if os.path.exists(marker):
        os.unlink(marker)
    r = vm_run("sh", "-c", f"echo written >{marker} && ! touch /usr/gpiolat-ro-check 2>/dev/null")
    assert r.returncode == 0, r.stderr
    with open(marker) as f:
        assert f.read() == "written\n"
    os.unlink(marker)
    assert not os.path.exists("/usr/gpiolat-ro-check")


def test_missing_command_reports_status_127():
    r = vm_run("no-such-command-gpiolat")
    assert r.returncode == 127


@pytest.mark.parametrize("arch", ["x86_64", "arm"])
def test_a_project_below_tmp_is_reachable(tmp_path, arch):
    # CI clones into a fresh folder that may lie below /tmp, which the target mounts as tmpfs:
    # the project must still appear at its own path (here: reached through a link in /tmp).
    # On ARM the initramfs is the root and its /tmp a tmpfs too: its mount point for the project
    # must be made after that tmpfs, not hidden by it (the ARM boot takes 5-10 s).
    tdir = os.path.join(ROOT, "out", "target", f"{arch}-std")
    if not os.path.exists(os.path.join(tdir, "initramfs.cpio.gz")):
        pytest.skip(f"no {arch} target: run 'make target ARCH={arch}' first")
    if arch != "x86_64" and not os.path.exists(os.path.join(ROOT, "out", arch, "bin", "gpiolat")):
        pytest.skip(f"no {arch} binaries: run 'make ARCH={arch}' first")
    link = tmp_path / "gpiolat-clone"
    link.symlink_to(ROOT)
    e = dict(os.environ, VM_NOMAKE="1", VM_TIMEOUT="300", TOGGLE="0", PWD=str(link),
             ARCH=arch, KERNEL="std")
    r = subprocess.run(["sh", "-c", f'cd "{link}" && vm/run sh -c "pwd; test -f vm/run && echo found"'],
                       env=e, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=400)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [str(link), "found"]


def test_timing_and_trace_bad_values_refused_before_boot(tmp_path):
    for env, what in (({"TIMING": "fast"}, "TIMING must be real or icount"),
                      ({"TIMING": "icount", "VM_ICOUNT_SHIFT": "x"}, "VM_ICOUNT_SHIFT"),
                      ({"VM_TRACE": str(tmp_path / "a,b")}, "VM_TRACE"),
                      ({"VM_TRACE": str(tmp_path / "a b")}, "VM_TRACE"),
                      ({"VM_TRACE": str(tmp_path / "no" / "dir")}, "cannot write VM_TRACE"),
                      ({"VM_OBSERVE": str(tmp_path / "a,b")}, "VM_OBSERVE"),
                      # the plugin watches the virt machine's PL061: the ARM targets only
                      ({"VM_OBSERVE": str(tmp_path / "obs")}, "ARCH=arm or arm64")):
        r = vm_run("true", env=env)
        assert r.returncode == 125, (env, r.stderr)
        assert what in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_timing_reaches_the_target():
    r = vm_run("sh", "-c", 'echo "$GPIOLAT_TIMING"')
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "real"
