"""The Debian packages (make deb) as a user installs them, in Debian 13, with the module by DKMS.

Once for x86_64 (amd64) and once for armhf (the BeagleBone class), each on its 6.12 target and
that target's Debian 13 root (out/roots/trixie; out/roots/trixie-armhf, of armhf, made by
host/rootfs.sh --arch armhf, where everything runs under qemu-user):
- `make deb DEB_ARCHS=ARCH` builds gpiolat_VERSION_ARCH.deb (armhf: cross-built) and
  gpiolat-toggle-dkms_VERSION_all.deb (host/deb.sh, in out/roots/trixie-deb; lintian without an
  error);
- with the target kernel's headers and dkms installed in the root (linux-headers-RELEASE,
  RELEASE from out/target/ARCH-6.12/release, and dkms, which gpiolat-toggle-dkms depends on;
  kept there, like the kernel), `apt install ./gpiolat_*_ARCH.deb ./gpiolat-toggle-dkms_*_all.deb`
  installs them and their Depends, and DKMS builds toggle.ko for RELEASE (its make.log: no
  warning, the module's compile tests of the headers said which GPIO API they found; the
  seconds DKMS's build took go to the log); the -dkms package's Depends name dkms (a board
  without dkms gets it from Debian 13's archive by that field: dpkg-deb -f);
- the installed gpiolat says the version of debian/changelog;
- the target boots that root (vm/run, TOGGLE=0 VM_MODULES=root) and runs
  tests/target/deb-installed.sh: modprobe loads DKMS's module, the installed gpiolat passes
  --self-test, counts every pulse with 0 lost and measures quick overhead rows from
  /usr/share/gpiolat (armmp has no BTF of its own: the kernel's BTF, made by host/btf.sh from its
  -dbg package, is given with --btf, as a board user with that kernel gives it);
- `apt purge` leaves no file of the two packages, DKMS no module (dkms status, the module's file,
  /usr/src, /var/lib/dkms), and every path the install added is gone but dkms's own (the
  dependency apt pulled in, left installed as apt does).
The install and the purge run each time; what does not depend on them is kept (the roots, the
headers and dkms, the build root of make deb); the headers and dkms are asked of host/rootfs.sh,
so a clean root with them comes from the content cache (dkms's own install, perl and dpkg-dev
with it, took about 45 s of the armhf half's apt install under qemu-user, 2026-11-29; a tree's
root kept it after the first run's purge already, as a user's apt does).
The target runs in real time (TIMING=real): it checks that each step works, not its figures, and
under icount (sleep=off) the guest's clock jumps ahead while it waits for the host, so a slow 9p
read of bpftrace's libraries on a loaded host ran out gpiolat's 120 s wait for bpftrace's attach
in guest time (seen once in two runs at a load of 13, the whole run 63 s of wall time).
Needs root, debootstrap and the 6.12 target of that architecture (make target KERNEL=6.12
[ARCH=arm], which make test builds before the host tests); the log is out/tests/deb-ARCH.log
with the seconds each step took.
"""
import fcntl
import glob
import os
import re
import shutil
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEBS = os.path.join(ROOT, "out", "deb")
# (and apt's indexes and its own state beside them: apt 3.0 makes /var/lib/apt/lists/auxfiles
# when a .deb file is named on its command line; a root from the content cache has not run apt
# before the install, as one whose headers apt installed had)
PRUNE = ("/proc", "/sys", "/dev", "/run", "/tmp", "/work", "/var/cache", "/var/log", "/root",
         "/var/lib/apt/lists")
# Debian's architecture -> the target's ARCH (vm/run)
TARGETS = {"amd64": "x86_64", "armhf": "arm"}


class Target:
    def __init__(self, deb):
        self.deb = deb
        self.arch = TARGETS[deb]
        self.kdir = os.path.join(ROOT, "out", "target", self.arch + "-6.12")
        self.log_path = os.path.join(ROOT, "out", "tests", "deb-%s.log" % deb)
        self.rootfs = None
        if os.path.exists(os.path.join(self.kdir, "userspace")):
            with open(os.path.join(self.kdir, "userspace")) as f:
                self.rootfs = f.read().strip()

    def log(self, text):
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        with open(self.log_path, "a") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def run(self, args, timeout, env=None):
        start = time.monotonic()
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                           stdin=subprocess.DEVNULL, env=dict(os.environ, **(env or {})))
        took = time.monotonic() - start
        self.log("$ %s\n%s%s(exit %d, %.1f s)" % (" ".join(args), r.stdout, r.stderr,
                                                  r.returncode, took))
        r.took = took
        return r

    def inroot(self, script, timeout=1800):
        return self.run(["sh", os.path.join(ROOT, "host", "inroot.sh"), self.rootfs, "env",
                         "DEBIAN_FRONTEND=noninteractive", "sh", "-c", script], timeout)

    def packages(self):
        """the root's installed packages, by dpkg's name (with :ARCH where dpkg writes one)"""
        r = self.inroot("dpkg-query -W -f '${db:Status-Status} ${binary:Package}\\n'")
        assert r.returncode == 0, r.stderr
        return {ln.split()[1] for ln in r.stdout.splitlines() if ln.startswith("installed ")}

    def files(self):
        """every path of the root, but the mounts and the caches and logs apt and dpkg keep"""
        out = set()
        for d, dirs, fs in os.walk(self.rootfs):
            rel = "/" + os.path.relpath(d, self.rootfs).lstrip(".")
            if any(rel == p or rel.startswith(p + "/") for p in PRUNE):
                dirs[:] = []
                continue
            for f in dirs + fs:
                out.add(os.path.join(rel, f))
        return out


def alternatives_of(rootfs, added, theirs):
    """the paths update-alternatives made for a kept package (xz-utils' lzma and its slaves:
    /etc/alternatives/NAME, the links to it, dpkg's record /var/lib/dpkg/alternatives/NAME),
    which dpkg -L does not list: every added record one of whose alternatives is the package's"""
    out = set()
    for rec in (p for p in added if p.startswith("/var/lib/dpkg/alternatives/")):
        with open(os.path.join(rootfs, rec.lstrip("/"))) as f:
            ln = f.read().split("\n")
        # mode, master link, (slave name, slave link)..., "", (path, priority, slave paths)...
        end = ln.index("", 2)
        slaves = list(zip(ln[2:end:2], ln[3:end:2]))
        paths = ln[end + 1::2 + len(slaves)]
        if not any(p in theirs for p in paths if p):
            continue
        name = os.path.basename(rec)
        out |= {rec, ln[1], "/etc/alternatives/" + name}
        for sname, slink in slaves:
            out |= {slink, "/etc/alternatives/" + sname}
    return out


def built(t):
    return (t.rootfs is not None and os.path.exists(os.path.join(t.kdir, "initramfs.cpio.gz"))
            and os.path.exists(os.path.join(t.kdir, "release")))


@pytest.mark.parametrize("deb", sorted(TARGETS))
def test_packages_install_build_the_module_run_and_purge(deb):
    t = Target(deb)
    if os.geteuid() != 0 or not shutil.which("debootstrap") or not built(t):
        pytest.skip("needs root, debootstrap and the %s 6.12 target (make target KERNEL=6.12"
                    " ARCH=%s)" % (t.arch, t.arch))
    if os.path.exists(t.log_path):
        os.unlink(t.log_path)
    with open(os.path.join(ROOT, "debian", "changelog")) as f:
        version = re.match(r"gpiolat \(([^)]+)\)", f.readline()).group(1)
    with open(os.path.join(t.kdir, "release")) as f:
        release = f.read().strip()

    # the target kernel's headers and dkms, installed by apt as a user installs them and kept,
    # like the kernel: asked of host/rootfs.sh, so that a clean root with them comes from the
    # content cache (docs/cache.md; a clean clone's root has none, and apt took 58 s on armhf
    # for the headers); before make deb, while the other worker's make may hold its lock
    with open(os.path.join(t.rootfs, ".rootfs-done")) as f:
        made = f.read().split()
    r = t.run(["sh", os.path.join(ROOT, "host", "rootfs.sh")]
              + (["--arch", made[2]] if len(made) > 2 else [])
              + [made[0], t.rootfs, "linux-headers-%s" % release, "dkms"], 1800)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]

    # The two architectures run in two workers at once (tests/host/conftest.py: each writes
    # only its own root), but make deb writes out/deb and its build root for both: one make at
    # a time, and this test's packages copied out of out/deb before the other's make replaces
    # them (the copies are what apt installs)
    own = os.path.join(ROOT, "out", "tests", "deb-%s-packages" % deb)
    shutil.rmtree(own, ignore_errors=True)
    os.makedirs(own)
    with open(os.path.join(ROOT, "out", "tests", "deb.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        r = t.run(["make", "-s", "deb", "DEB_ARCHS=" + deb], 3600)
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        names = ["gpiolat_%s_%s.deb" % (version, deb), "gpiolat-toggle-dkms_%s_all.deb" % version]
        for n in names:
            assert os.path.exists(os.path.join(DEBS, n)), n
            shutil.copy(os.path.join(DEBS, n), own)
        with open(os.path.join(DEBS, "lintian-%s.txt" % deb)) as f:
            assert not [ln for ln in f if ln.startswith("E: ")]
    debs = [os.path.relpath(os.path.join(own, n), ROOT) for n in names]
    # the module's package pulls dkms in where a board has none (the root here has it, above)
    dep = t.run(["dpkg-deb", "-f", os.path.join(own, names[1]), "Depends"], 60)
    assert dep.returncode == 0, dep.stderr
    assert "dkms" in [d.split()[0] for a in dep.stdout.split(",") for d in a.split("|")], dep.stdout

    machine = t.inroot("uname -m").stdout.strip()
    before = t.files()
    pkgs_before = t.packages()
    installed = False
    ours = []
    try:
        r = t.inroot("cd %s && apt-get install -y ./%s ./%s" % (ROOT, debs[0], debs[1]))
        installed = r.returncode == 0
        assert installed, r.stdout[-3000:] + r.stderr[-2000:]
        t.log("# apt install with DKMS's build for %s: %.1f s" % (release, r.took))
        assert "Building initial module gpiolat-toggle/%s for %s" % (version, release) in r.stdout
        st = t.inroot("dkms status gpiolat-toggle")
        assert "gpiolat-toggle/%s, %s, %s: installed" % (version, release, machine) in st.stdout
        ko = glob.glob(os.path.join(t.rootfs, "lib/modules", release, "updates/dkms/toggle.ko*"))
        assert len(ko) == 1, ko
        mk = glob.glob(os.path.join(t.rootfs, "var/lib/dkms/gpiolat-toggle", version, release,
                                    "*/log/make.log"))
        assert len(mk) == 1, mk
        with open(mk[0]) as f:
            makelog = f.read()
        t.log("# DKMS's make.log:\n" + makelog)
        took = re.search(r"^# elapsed time: (\d+):(\d\d):(\d\d)$", makelog, re.M)
        assert took, "no elapsed time in DKMS's make.log"
        h, m, sec = (int(x) for x in took.groups())
        t.log("# DKMS's build of toggle.ko in the %s root: %d s (make.log's elapsed time)"
              % (deb, h * 3600 + m * 60 + sec))
        assert "toggle: chip lookup by" in makelog
        assert not re.search(r"warning", makelog, re.I), makelog
        v = t.inroot("gpiolat --version")
        assert v.returncode == 0 and v.stdout.strip() == "gpiolat " + version, v.stdout + v.stderr
        ours = t.inroot("dpkg -L gpiolat gpiolat-toggle-dkms").stdout.split()
        ours = [p for p in ours if not os.path.isdir(os.path.join(t.rootfs, p.lstrip("/")))]
        assert "/usr/sbin/gpiolat" in ours and "/usr/share/gpiolat/ply/delta.bt" in ours

        # the target boots that root: DKMS's module, the installed gpiolat; a kernel without
        # BTF of its own (armmp) gets its whole BTF (host/btf.sh: pahole on its -dbg package)
        cmd = [os.path.join(ROOT, "vm", "run"), "sh", "tests/target/deb-installed.sh"]
        btf = os.path.join(t.kdir, "vmlinux.btf")
        if os.path.exists(os.path.join(t.kdir, "vmlinux.min.btf")):
            assert os.path.getsize(btf) > 0, btf
            cmd.append(btf)
        r = t.run(cmd, 1800, env={"KERNEL": "6.12", "ARCH": t.arch, "TOGGLE": "0",
                                  "VM_MODULES": "root", "TIMING": "real", "VM_NOMAKE": "1",
                                  "VM_TIMEOUT": "1500"})
        t.log("# the target test: %.1f s" % r.took)
        assert r.returncode == 0 and "not ok" not in r.stdout, r.stdout[-4000:] + r.stderr[-2000:]
        assert re.search(r"^ok - toggle is DKMS's module", r.stdout, re.M), r.stdout
    finally:
        if installed or t.inroot("dpkg -s gpiolat-toggle-dkms").returncode == 0:
            p = t.inroot("apt-get purge -y gpiolat gpiolat-toggle-dkms")
            t.log("# apt purge: %.1f s" % p.took)
            assert p.returncode == 0, p.stderr[-2000:]
    left = [p for p in ours if os.path.lexists(os.path.join(t.rootfs, p.lstrip("/")))]
    assert left == [], left
    st = t.inroot("dkms status")
    assert "gpiolat-toggle" not in st.stdout
    assert glob.glob(os.path.join(t.rootfs, "lib/modules/*/updates/dkms/toggle.ko*")) == []
    assert not os.path.exists(os.path.join(t.rootfs, "var/lib/dkms/gpiolat-toggle"))
    assert not glob.glob(os.path.join(t.rootfs, "usr/src/gpiolat-toggle-*"))
    # what the install added and the purge did not take: only the packages apt installed with
    # ours and keeps (dkms and, in a fresh root, what dkms depends on: dpkg-dev, perl, patch,
    # ...: apt removes them with autoremove, not with our purge), their files and dpkg's record
    # of them, and dkms's state (/var/lib/dkms, the MOK key it made to sign modules)
    kept = sorted(t.packages() - pkgs_before)
    assert "gpiolat" not in kept and "gpiolat-toggle-dkms" not in kept, kept
    theirs = set(t.inroot("dpkg -L %s" % " ".join(kept)).stdout.split()) if kept else set()
    info = tuple("/var/lib/dpkg/info/%s." % k for k in kept)
    added = t.files() - before
    alts = alternatives_of(t.rootfs, added, theirs)
    added = sorted(p for p in added if p not in theirs and p not in alts
                   and not p.startswith(("/var/lib/dkms",) + info))
    assert added == [], (kept, added)
