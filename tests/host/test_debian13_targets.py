"""A Debian 13 machine builds every target of the CI tier and boots one per architecture, with a
suite of its mirror mid-sync.

The machine is a Debian 13 root (host/rootfs.sh trixie out/roots/trixie-host: debootstrap, made
once and kept), and what depends on the host's release really runs in it, on every run:
- the README's first step, `sh host/deps.sh` (every package: qemu, the cross compilers, clang),
  and the roots' apt step (host/rootfs.sh installing a package into that root);
- in a clean copy of the committed tree (git archive DEBIAN13_REV, default HEAD; its out/ new
  each run): the sysroots of Debian 13's armhf and arm64 packages (host/sysroot.sh), std's
  kernel from Debian 13's apt (vm/kernel.sh: std is Debian 13's 6.12 there), then `make all
  target` for every target of the CI tier (tests/run.sh's ci_targets, and std): the loader and
  togglers built by Debian 13's clang and gcc for each architecture, the observer plugin against
  Debian 13's qemu, every kernel's module, BTF by Debian 13's pahole;
- a boot of std on each architecture (x86_64, arm, arm64) by Debian 13's qemu, in TIMING=icount,
  running tests/target/05-kernel-smoke.sh (the target booted, the module's chip, a histogram of
  every hook, --self-test, a quick overhead).
What is the same whatever the host is comes from this tree's out/ by content: the targets' own
Debian roots (out/roots/trixie, testing, trixie-armhf: another release's user space, made by
debootstrap from that release's archive, shared through a link and their locks) and the
kernel packages apt downloads (out/cache/deb: host/apt.sh download takes a file from there only
when its name and SHA256 are the ones apt asks for).

The suite mid-sync: a local suite (file: URI inside the root) whose Release file names other
sizes than its Packages files have, as a mirror mid-sync serves them, is in the machine's
sources for the whole test. Each apt step is made to update its lists (the package it installs
removed first, or the lists emptied) and must name that suite's indexes as gone without and
succeed from the rest: the roots' (host/rootfs.sh), the packages' (host/deps.sh), the
sysroots' (host/sysroot.sh) and the kernels' (vm/kernel.sh).
Needs root, debootstrap and Debian's mirror; the log is out/tests/debian13-targets.log, with the
seconds of each step.
"""
import hashlib
import os
import re
import shutil
import subprocess
import time

import pytest

from test_debian13 import RootShell

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOTFS = os.environ.get("DEBIAN13_HOST", os.path.join(ROOT, "out", "roots", "trixie-host"))
SRC = "/build/gpiolat"  # the clean copy, inside the root
LOG = os.path.join(ROOT, "out", "tests", "debian13-targets.log")
REV = os.environ.get("DEBIAN13_REV", "HEAD")
SYNC = "/srv/gpiolat-mid-sync"  # the suite mid-sync, inside the root
GONE = "went without file:%s/dists/mid-sync/" % SYNC

pytestmark = [
    pytest.mark.skipif(
        os.geteuid() != 0 or not shutil.which("debootstrap") or not shutil.which("unshare"),
        reason="needs root, debootstrap and unshare (sh host/deps.sh)"),
    # 25 to 60 minutes on 2 cores (every target of the CI tier built a second time, on the
    # Debian 13 machine): the slow tier's, not the CI tier's (tests/README, "Tiers")
    pytest.mark.skipif(
        os.environ.get("TEST_TARGETS") != "all",
        reason="the slow tier's: TEST_TARGETS=all (25 to 60 minutes on 2 cores)"),
]


_shell = RootShell(ROOTFS, SRC, LOG)
log, run = _shell.log, _shell.run


def inroot(script, timeout=1800):
    return _shell.inroot(script, timeout)


def ci_targets():
    """tests/run.sh's CI tier, std first"""
    with open(os.path.join(ROOT, "tests", "run.sh")) as f:
        m = re.search(r'^ci_targets="([^"]*)"', f.read(), re.M)
    assert m, "tests/run.sh has no ci_targets"
    return ["std"] + m.group(1).split()


def target_env(name):
    """tests/run.sh's target_env: the make variables of a target's name"""
    if name in ("arm", "arm64"):
        return "KERNEL=std ARCH=" + name
    if name.startswith(("arm-", "arm64-")):
        arch, kernel = name.split("-", 1)
        return "KERNEL=%s ARCH=%s" % (kernel, arch)
    return "KERNEL=%s ARCH=x86_64" % name


def mid_sync_suite():
    """the suite mid-sync in the root: Release names 7 bytes more than each Packages file has"""
    d = ROOTFS + SYNC + "/dists/mid-sync"
    shutil.rmtree(ROOTFS + SYNC, ignore_errors=True)
    sums = []
    for arch in ("amd64", "armhf", "arm64"):
        rel = "main/binary-%s/Packages" % arch
        os.makedirs(os.path.dirname(os.path.join(d, rel)))
        text = ("Package: gpiolat-mid-sync\nVersion: 1.0\nArchitecture: %s\nMaintainer: gpiolat "
                "<gpiolat@localhost>\nFilename: pool/none.deb\nSize: 1\nSHA256: %s\n"
                "Description: never downloaded\n\n" % (arch, "0" * 64)).encode()
        with open(os.path.join(d, rel), "wb") as f:
            f.write(text)
        sums.append(" %s %d %s" % (hashlib.sha256(text).hexdigest(), len(text) + 7, rel))
    with open(os.path.join(d, "Release"), "w") as f:
        f.write("Suite: mid-sync\nCodename: mid-sync\nArchitectures: amd64 armhf arm64\n"
                "Components: main\nDate: Thu, 26 Nov 2026 00:00:00 UTC\nSHA256:\n%s\n"
                % "\n".join(sums))
    with open(ROOTFS + "/etc/apt/sources.list.d/gpiolat-mid-sync.list", "w") as f:
        f.write("deb [trusted=yes] file:%s mid-sync main\n" % SYNC)


def empty_lists():
    """the root's apt lists gone: the next apt step must update them"""
    lists = ROOTFS + "/var/lib/apt/lists"
    for f in os.listdir(lists):
        p = os.path.join(lists, f)
        if os.path.isfile(p) and f != "lock":
            os.unlink(p)


@pytest.fixture(scope="module")
def machine():
    """the Debian 13 machine with the suite mid-sync, the packages of the README's first step
    and a clean copy of REV; the apt steps' output; the seconds of each step"""
    if os.path.exists(LOG):
        os.unlink(LOG)
    took, out = {}, {}
    t = time.monotonic()
    r = run(["sh", os.path.join(ROOT, "host", "rootfs.sh"), "trixie", ROOTFS], 3600)
    assert r.returncode == 0, r.stderr
    took["root"] = time.monotonic() - t
    mid_sync_suite()
    # the roots' step: rootfs.sh installs ply (removed first) from the indexes that downloaded
    t = time.monotonic()
    r = run(["sh", os.path.join(ROOT, "host", "inroot.sh"), ROOTFS, "sh", "-c",
             "dpkg --purge ply gpiod >/dev/null 2>&1; ! dpkg-query -W ply gpiod 2>/dev/null | "
             r"grep -q '[^[:space:]]\s\+[^[:space:]]'"], 300)
    assert r.returncode == 0, "ply, gpiod not removed: " + r.stdout + r.stderr
    r = run(["sh", os.path.join(ROOT, "host", "rootfs.sh"), "trixie", ROOTFS, "ply"], 1800)
    out["roots"] = r
    took["roots"] = time.monotonic() - t
    # the clean copy; the targets' roots from this tree's out/roots (their locks with them), the
    # kernel packages from its out/cache/deb
    src = ROOTFS + SRC
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    tree = subprocess.run(["git", "-C", ROOT, "archive", REV], capture_output=True,
                          timeout=120, check=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=tree, timeout=120, check=True)
    os.makedirs(os.path.join(ROOT, "out", "roots"), exist_ok=True)
    os.makedirs(os.path.join(ROOT, "out", "cache", "deb"), exist_ok=True)
    os.makedirs(src + "/out/cache")
    os.makedirs(src + "/out/roots")
    cache = os.path.join(ROOT, "out", "roots")
    for name in sorted(os.listdir(cache)):
        path = os.path.join(cache, name)
        if not os.path.exists(os.path.join(path, ".rootfs-done")) or path == ROOTFS:
            continue
        if "-" in name:
            # a root of a foreign architecture (trixie-armhf) is the sysroot of a build inside
            # another root, which sees only the clean copy: a copy of it
            subprocess.run(["cp", "-a", "--reflink=auto", path, src + "/out/roots/"],
                           check=True, timeout=1200)
        else:
            os.symlink(path, src + "/out/roots/" + name)
            os.symlink(path + ".lock", src + "/out/roots/" + name + ".lock")
    os.symlink(os.path.join(ROOT, "out", "cache", "deb"), src + "/out/cache/deb")
    # the packages' step: the README's first command (gpiod removed above: it installs)
    t = time.monotonic()
    out["deps"] = inroot("sh host/deps.sh && touch out/.deps", 3600)
    took["deps"] = time.monotonic() - t
    return {"took": took, "out": out}


def step(machine, name, script, timeout=3600):
    t = time.monotonic()
    r = inroot(script, timeout)
    machine["took"][name] = time.monotonic() - t
    machine["out"][name] = r
    return r


@pytest.fixture(scope="module")
def built(machine):
    """the sysroots' and the kernels' apt steps on emptied lists, then every target built"""
    assert machine["out"]["deps"].returncode == 0, machine["out"]["deps"].stderr[-3000:]
    empty_lists()
    step(machine, "sysroots", "sh host/sysroot.sh arm out/sysroot/arm && "
         "sh host/sysroot.sh arm64 out/sysroot/arm64")
    empty_lists()
    step(machine, "kernels", "sh vm/kernel.sh std x86_64 out/target/x86_64-std")
    for name in ci_targets():
        r = step(machine, "target " + name, "make -s -j2 all target " + target_env(name))
        if r.returncode != 0:
            break
    # a root made here that the cache lacks goes into it, for the next run
    made = src_roots = ROOTFS + SRC + "/out/roots"
    for name in sorted(os.listdir(src_roots)):
        path = os.path.join(made, name)
        keep = os.path.join(ROOT, "out", "roots", name)
        if (not os.path.islink(path) and os.path.exists(os.path.join(path, ".rootfs-done"))
                and not os.path.exists(keep)):
            os.rename(path, keep)
    log("# %s, %s: seconds %s" % (ROOTFS, REV, ", ".join(
        "%s %.0f" % kv for kv in machine["took"].items())))
    return machine


@pytest.mark.parametrize("stepname", ["roots", "deps", "sysroots", "kernels"])
def test_apt_step_goes_without_the_suite_mid_sync(built, stepname):
    r = built["out"][stepname]
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert GONE in r.stdout + r.stderr, r.stdout[-2000:] + r.stderr[-2000:]


@pytest.mark.parametrize("name", ci_targets())
def test_target_builds_on_debian13(built, name):
    r = built["out"].get("target " + name)
    assert r is not None, "not built: an earlier target failed"
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    env = dict(kv.split("=") for kv in target_env(name).split())
    tdir = "%s%s/out/target/%s-%s" % (ROOTFS, SRC, env["ARCH"], env["KERNEL"])
    for f in ("release", "toggle.ko", "initramfs.cpio.gz"):
        assert os.path.getsize(os.path.join(tdir, f)) > 0, f
    if env["ARCH"] != "x86_64":
        assert os.path.exists(os.path.join(tdir, "btf.stamp"))
    if name == "std":
        # std on a Debian 13 host is Debian 13's 6.12, and the run says so first
        with open(os.path.join(tdir, "release")) as f:
            assert f.read().startswith("6.12."), tdir


def test_observer_plugin_builds_on_debian13(built):
    r = built["out"]["target std"]
    assert r.returncode == 0
    so = ROOTFS + SRC + "/out/observer/pl061-observer.so"
    assert os.path.getsize(so) > 0, r.stdout[-2000:]


@pytest.mark.parametrize("arch", ["x86_64", "arm", "arm64"])
def test_std_boots_on_debian13(built, arch):
    name = "std" if arch == "x86_64" else arch
    assert built["out"]["target " + name].returncode == 0
    t = time.monotonic()
    r = inroot("sh vm/std.sh %s && VM_NOMAKE=1 KERNEL=std ARCH=%s TIMING=icount VM_TIMEOUT=900 "
               "vm/run sh tests/target/05-kernel-smoke.sh </dev/null" % (arch, arch), 1200)
    log("# boot %s: %.0f s" % (arch, time.monotonic() - t))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "KERNEL=std is its release's kernel" in r.stdout and "(trixie)" in r.stdout, r.stdout
    assert re.search(r"^ok - booted: Linux 6\.12\.", r.stdout, re.M), r.stdout[-4000:]
    assert not re.search(r"^not ok", r.stdout, re.M), r.stdout[-4000:]
