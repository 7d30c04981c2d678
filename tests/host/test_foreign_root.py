"""The ARM targets' own Debian roots: host/binfmt.sh, host/rootfs.sh --arch,
host/deps.sh --root.

Bad input gets one error line and exit status 2, before anything is made or registered. Where a
foreign root was made already (out/roots/trixie-armhf, trixie-arm64: make target ARCH=arm
KERNEL=6.12), host/binfmt.sh's probe runs that root's /bin/true under qemu-user, and the root
holds what vm/userspace.sh installed there (its dpkg says armhf or arm64, bpftrace and ply).
"""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*cmd):
    return subprocess.run(list(cmd), cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("cmd", [
    ["sh", "host/binfmt.sh", "sparc"],
    ["sh", "host/binfmt.sh"],
    ["sh", "host/rootfs.sh", "--arch", "sparc", "trixie", "/nonexistent/root"],
    ["sh", "host/rootfs.sh", "--arch"],
    ["sh", "host/deps.sh", "--roots"],
])
def test_bad_input_is_one_line_and_status_2(cmd):
    r = run(*cmd)
    assert r.returncode == 2, r
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not os.path.exists("/nonexistent/root")


@pytest.mark.parametrize("name,deb", [("trixie-armhf", "armhf"), ("trixie-arm64", "arm64")])
def test_a_made_foreign_root_runs_under_qemu_user(name, deb):
    root = os.path.join(ROOT, "out", "roots", name)
    if os.geteuid() != 0 or not os.path.exists(os.path.join(root, ".rootfs-done")):
        pytest.skip(f"no {root} (make target ARCH=... KERNEL=6.12 makes it) or not root")
    r = run("sh", "host/binfmt.sh", deb, root)
    assert r.returncode == 0, r.stderr
    r = run("chroot", root, "dpkg", "--print-architecture")
    assert r.stdout.strip() == deb, r
    if not os.path.exists(os.path.join(root, "usr", "bin", "bpftrace")):
        pytest.skip(f"{root}'s packages are not installed yet (vm/userspace.sh)")
    for tool in ("bpftrace", "sbin/ply", "gpioinfo", "cyclictest", "python3", "strace"):
        path = tool if "/" in tool else "bin/" + tool
        assert os.path.exists(os.path.join(root, "usr", path)), tool
