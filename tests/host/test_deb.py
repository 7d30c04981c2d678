"""The Debian packages (make deb) as a user installs them, in Debian 13, with the module by DKMS.

`make deb DEB_ARCHS=amd64` builds gpiolat_VERSION_amd64.deb and gpiolat-toggle-dkms_VERSION_all.deb
(host/deb.sh, in out/roots/trixie-deb; lintian without an error). Then, in out/roots/trixie (the
root the x86_64 6.12 target boots), with the target kernel's headers installed there
(linux-headers-RELEASE, RELEASE from out/target/x86_64-6.12/release):
- `apt install ./gpiolat_*.deb ./gpiolat-toggle-dkms_*.deb` installs them and their Depends from
  Debian 13's archive, and DKMS builds toggle.ko for RELEASE (its make.log: no warning, the
  module's compile tests of the headers said which GPIO API they found);
- the installed gpiolat says the version of debian/changelog;
- the target boots that root (vm/run, TOGGLE=0 VM_MODULES=root) and runs
  tests/target/deb-installed.sh: modprobe loads DKMS's module, the installed gpiolat passes
  --self-test, counts every pulse with 0 lost and measures quick overhead rows from
  /usr/share/gpiolat;
- `apt purge` leaves no file of the two packages, DKMS no module (dkms status, the module's file,
  /usr/src, /var/lib/dkms), and every path the install added is gone but dkms's own (the
  dependency apt pulled in, left installed as apt does).
The target runs in real time (TIMING=real): it checks that each step works, not its figures, and
under icount (sleep=off) the guest's clock jumps ahead while it waits for the host, so a slow 9p
read of bpftrace's libraries on a loaded host ran out gpiolat's 120 s wait for bpftrace's attach
in guest time (seen once in two runs at a load of 13, the whole run 63 s of wall time).
Needs root, debootstrap and the 6.12 target (make target KERNEL=6.12, which make test builds);
the log is out/tests/deb.log with the seconds each step took.
"""
import glob
import os
import re
import shutil
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOTFS = os.path.join(ROOT, "out", "roots", "trixie")
KDIR = os.path.join(ROOT, "out", "target", "x86_64-6.12")
DEBS = os.path.join(ROOT, "out", "deb")
LOG = os.path.join(ROOT, "out", "tests", "deb.log")
PRUNE = ("/proc", "/sys", "/dev", "/run", "/tmp", "/work", "/var/cache", "/var/log", "/root")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("debootstrap") or
    not os.path.exists(os.path.join(KDIR, "initramfs.cpio.gz")) or
    not os.path.exists(os.path.join(KDIR, "userspace")),
    reason="needs root, debootstrap and the x86_64 6.12 target (make target KERNEL=6.12)")


def log(text):
    os.makedirs(os.path.dirname(LOG), exist_ok=True)
    with open(LOG, "a") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def run(args, timeout, env=None):
    start = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                       stdin=subprocess.DEVNULL, env=dict(os.environ, **(env or {})))
    took = time.monotonic() - start
    log("$ %s\n%s%s(exit %d, %.1f s)" % (" ".join(args), r.stdout, r.stderr, r.returncode, took))
    r.took = took
    return r


def inroot(script, timeout=1200):
    return run(["sh", os.path.join(ROOT, "host", "inroot.sh"), ROOTFS, "env",
                "DEBIAN_FRONTEND=noninteractive", "sh", "-c", script], timeout)


def packages():
    """the root's installed packages, by dpkg's name (with :ARCH where dpkg writes one)"""
    r = inroot("dpkg-query -W -f '${db:Status-Status} ${binary:Package}\\n'")
    assert r.returncode == 0, r.stderr
    return {ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("installed ")}


def files():
    """every path of the root, but the mounts and the caches and logs apt and dpkg keep"""
    out = set()
    for d, dirs, fs in os.walk(ROOTFS):
        rel = "/" + os.path.relpath(d, ROOTFS).lstrip(".")
        if any(rel == p or rel.startswith(p + "/") for p in PRUNE):
            dirs[:] = []
            continue
        for f in dirs + fs:
            out.add(os.path.join(rel, f))
    return out


def test_packages_install_build_the_module_run_and_purge():
    if os.path.exists(LOG):
        os.unlink(LOG)
    with open(os.path.join(ROOT, "debian", "changelog")) as f:
        version = re.match(r"gpiolat \(([^)]+)\)", f.readline()).group(1)
    with open(os.path.join(KDIR, "release")) as f:
        release = f.read().strip()

    r = run(["make", "-s", "deb", "DEB_ARCHS=amd64"], 3600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    debs = ["out/deb/gpiolat_%s_amd64.deb" % version, "out/deb/gpiolat-toggle-dkms_%s_all.deb" % version]
    for d in debs:
        assert os.path.exists(os.path.join(ROOT, d)), d
    with open(os.path.join(DEBS, "lintian-amd64.txt")) as f:
        assert not [l for l in f if l.startswith("E: ")]

    # the target kernel's headers, as a user installs them (kept: the root's, like its kernel)
    r = inroot("apt-get install -y -qq linux-headers-%s" % release)
    assert r.returncode == 0, r.stderr[-2000:]
    before = files()
    pkgs_before = packages()
    installed = False
    try:
        r = inroot("cd %s && apt-get install -y ./%s ./%s" % (ROOT, debs[0], debs[1]))
        installed = r.returncode == 0
        assert installed, r.stdout[-3000:] + r.stderr[-2000:]
        log("# apt install with DKMS's build for %s: %.1f s" % (release, r.took))
        assert "Building initial module gpiolat-toggle/%s for %s" % (version, release) in r.stdout
        st = inroot("dkms status gpiolat-toggle")
        assert "gpiolat-toggle/%s, %s, x86_64: installed" % (version, release) in st.stdout
        ko = glob.glob(os.path.join(ROOTFS, "lib/modules", release, "updates/dkms/toggle.ko*"))
        assert len(ko) == 1, ko
        mk = glob.glob(os.path.join(ROOTFS, "var/lib/dkms/gpiolat-toggle", version, release,
                                    "*/log/make.log"))
        assert len(mk) == 1, mk
        with open(mk[0]) as f:
            makelog = f.read()
        assert "toggle: chip lookup by" in makelog
        assert not re.search(r"warning", makelog, re.I), makelog
        v = inroot("gpiolat --version")
        assert v.returncode == 0 and v.stdout.strip() == "gpiolat " + version, v.stdout + v.stderr
        ours = inroot("dpkg -L gpiolat gpiolat-toggle-dkms").stdout.split()
        ours = [p for p in ours if not os.path.isdir(os.path.join(ROOTFS, p.lstrip("/")))]
        assert "/usr/sbin/gpiolat" in ours and "/usr/share/gpiolat/ply/delta.bt" in ours

        # the target boots that root: DKMS's module, the installed gpiolat
        t = run([os.path.join(ROOT, "vm", "run"), "sh", "tests/target/deb-installed.sh"], 1800,
                env={"KERNEL": "6.12", "ARCH": "x86_64", "TOGGLE": "0", "VM_MODULES": "root",
                     "TIMING": "real", "VM_NOMAKE": "1", "VM_TIMEOUT": "1500"})
        log("# the target test: %.1f s" % t.took)
        assert t.returncode == 0 and "not ok" not in t.stdout, t.stdout[-4000:] + t.stderr[-2000:]
        assert re.search(r"^ok - toggle is DKMS's module", t.stdout, re.M), t.stdout
    finally:
        if installed or inroot("dpkg -s gpiolat-toggle-dkms").returncode == 0:
            p = inroot("apt-get purge -y gpiolat gpiolat-toggle-dkms")
            assert p.returncode == 0, p.stderr[-2000:]
    left = [p for p in ours if os.path.lexists(os.path.join(ROOTFS, p.lstrip("/")))]
    assert left == [], left
    st = inroot("dkms status")
    assert "gpiolat-toggle" not in st.stdout
    assert glob.glob(os.path.join(ROOTFS, "lib/modules/*/updates/dkms/toggle.ko*")) == []
    assert not os.path.exists(os.path.join(ROOTFS, "var/lib/dkms/gpiolat-toggle"))
    assert not glob.glob(os.path.join(ROOTFS, "usr/src/gpiolat-toggle-*"))
    # what the install added and the purge did not take: only the packages apt installed with
    # ours and keeps (dkms and, in a fresh root, what dkms depends on: dpkg-dev, perl, patch,
    # ...: apt removes them with autoremove, not with our purge), their files and dpkg's record
    # of them, and dkms's state (/var/lib/dkms, the MOK key it made to sign modules)
    kept = sorted(packages() - pkgs_before)
    assert "gpiolat" not in kept and "gpiolat-toggle-dkms" not in kept, kept
    theirs = set(inroot("dpkg -L %s" % " ".join(kept)).stdout.split()) if kept else set()
    info = tuple("/var/lib/dpkg/info/%s." % k for k in kept)
    added = sorted(p for p in files() - before
                   if p not in theirs and not p.startswith(("/var/lib/dkms",) + info))
    assert added == [], (kept, added)
