"""Debian 13 ("trixie") as a build host: gpiolat builds and its target-free host tests pass there.

A Debian 13 root made with debootstrap (host/rootfs.sh, cached in out/roots/trixie: made once)
gets a clean copy of the committed tree (git archive DEBIAN13_REV, default HEAD: not the work
tree, not out/), runs `sh host/deps.sh --build` (the build subset of the one installer: no
emulator, browser or cross compilers), then, inside the root (host/inroot.sh):
- `make loader togglers` and the test helpers (clang 19, libbpf 1.5, bpftool 7.5, libtracefs
  1.8, libgpiod 2.2: every warning an error), utoggle built on libgpiod 2's line requests;
- the host tests that need no target and no browser (ROOT_TESTS), on the host's kernel: the
  loader built against Debian 13's libraries loads and fails cleanly as on Debian 12;
- the toggle module builds without a warning against Debian 13's own kernel headers
  (linux-headers-amd64, 6.12) with its gcc 14, and kmod/Kbuild's compile test picks the setters
  the headers declare (checked here by reading driver.h);
- every ply/*.bt compiles under Debian 13's bpftrace (0.23): this host has no kprobes and no
  GPIO, so only the compile to BPF is checked here (bpftrace --emit-elf: no probe attached), and
  a script on gpio:gpio_value only parses (its tracepoint's format comes from the kernel).
host/inroot.sh's mounts must not outlive it on any exit path (success, failure, a signal).
Needs root and Debian's mirror; the root's log is out/tests/debian13.log. DEBIAN13_ROOTFS=DIR
uses another root (a tree whose deps.sh has no --build installs everything into it).
"""
import glob
import gzip
import os
import re
import shutil
import signal
import subprocess
import time

import pytest
from conftest import host_kernel_lock

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOTFS = os.environ.get("DEBIAN13_ROOTFS", os.path.join(ROOT, "out", "roots", "trixie"))
SRC = "/build/gpiolat"  # the clean copy, inside the root
LOG = os.path.join(ROOT, "out", "tests", "debian13%s.log" % (
    "" if "DEBIAN13_ROOTFS" not in os.environ else "-" + os.path.basename(ROOTFS.rstrip("/"))))
REV = os.environ.get("DEBIAN13_REV", "HEAD")
# the host tests of the build alone: no target (test_kernels, test_vm_run), no browser
# (test_report_html)
ROOT_TESTS = ["test_loader_hist.py", "test_loader_units.py", "test_loader_cli.py",
              "test_install.py", "test_benchstat.py", "test_report.py", "test_rt_report.py"]

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("debootstrap") or not shutil.which("unshare"),
    reason="needs root, debootstrap and unshare (sh host/deps.sh)")


class RootShell:
    """commands on this machine and in a Debian root's clean copy (SRC inside ROOTFS, through
    host/inroot.sh), each with its output and seconds appended to the log LOG (also
    test_debian13_targets.py's)"""

    def __init__(self, rootfs, src, log_path):
        self.rootfs, self.src, self.log_path = rootfs, src, log_path

    def log(self, text):
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        with open(self.log_path, "a") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def run(self, args, timeout, **kw):
        """run ARGS, its output into the log; the CompletedProcess"""
        start = time.monotonic()
        r = subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)
        self.log("$ %s\n%s%s(exit %d, %.0f s)" % (" ".join(args), r.stdout, r.stderr,
                                                  r.returncode, time.monotonic() - start))
        return r

    def inroot(self, script, timeout):
        """SCRIPT by sh in the root's clean copy"""
        return self.run(["sh", os.path.join(ROOT, "host", "inroot.sh"), self.rootfs, "sh",
                         "-c", "cd %s && %s" % (self.src, script)], timeout)


_shell = RootShell(ROOTFS, SRC, LOG)
log, run = _shell.log, _shell.run


def inroot(script, timeout=1200):
    return _shell.inroot(script, timeout)


def mounts_under(path):
    with open("/proc/self/mountinfo") as f:
        return [line for line in f if (" " + path + "/") in line or (" " + path + " ") in line]


@pytest.fixture(scope="module")
def trixie():
    """the root with a clean copy of REV and the build's packages; the seconds each step took"""
    if os.path.exists(LOG):
        os.unlink(LOG)
    took = {}
    start = time.monotonic()
    r = run(["sh", os.path.join(ROOT, "host", "rootfs.sh"), "trixie", ROOTFS], 1800)
    assert r.returncode == 0, r.stderr
    took["root"] = time.monotonic() - start
    src = ROOTFS + SRC
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    start = time.monotonic()
    tree = subprocess.run(["git", "-C", ROOT, "archive", REV], capture_output=True,
                          timeout=120, check=True).stdout
    subprocess.run(["tar", "-x", "-C", src], input=tree, timeout=120, check=True)
    # out/.deps says the packages are there: make would otherwise run deps.sh in full
    r = inroot("sh host/deps.sh --build && mkdir -p out && touch out/.deps", 1800)
    assert r.returncode == 0, r.stdout + r.stderr
    took["deps"] = time.monotonic() - start
    return took


@pytest.fixture(scope="module")
def built(trixie):
    start = time.monotonic()
    r = inroot("make -j2 loader togglers out/build/test-hist out/build/test-overhead")
    trixie["build"] = time.monotonic() - start
    log("# %s, %s: seconds %s" % (ROOTFS, REV, ", ".join("%s %.0f" % kv for kv in trixie.items())))
    return r


def test_host_build_on_debian13(built):
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    for f in ("out/bin/gpiolat", "out/bin/utoggle", "out/bin/mmtoggle"):
        assert os.access(os.path.join(ROOTFS + SRC, f), os.X_OK), f


def test_utoggle_uses_the_installed_libgpiod(built):
    """the libgpiod row is built for the libgpiod the root has (2.x on Debian 13)"""
    assert built.returncode == 0
    r = inroot("pkg-config --modversion libgpiod && nm -D out/bin/utoggle | grep ' gpiod_'")
    assert r.returncode == 0, r.stderr
    version, *syms = r.stdout.split("\n")
    assert int(version.split(".")[0]) >= 2, version
    want = {"gpiod_chip_request_lines", "gpiod_line_request_set_value",
            "gpiod_line_request_release"}
    assert want <= {s.split()[-1] for s in syms if s.strip()}, r.stdout


def test_host_tests_on_debian13(built):
    assert built.returncode == 0
    # test_loader_cli.py loads gpiolat's programs into this host's kernel and checks what is
    # left: not while a test of make test's free part, beside this serial one, does the same
    # (the run in the root, on its own copy of the tree, takes no lock of its own)
    with host_kernel_lock():
        r = inroot("PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -rs -p no:cacheprovider "
                   + " ".join("tests/host/" + t for t in ROOT_TESTS))
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert " passed" in r.stdout.splitlines()[-1] and "failed" not in r.stdout.splitlines()[-1]


def kernel_config(option):
    """OPTION's value in the running kernel's config ("y", "m", "" when not set); None: no config"""
    for path, opener in (("/proc/config.gz", gzip.open),
                         ("/boot/config-" + os.uname().release, open)):
        if os.path.exists(path):
            with opener(path, "rt") as f:
                for line in f:
                    if line.startswith(option + "="):
                        return line.strip().split("=", 1)[1]
            return ""
    return None


def test_bpftrace_scripts_compile_on_debian13(trixie):
    """ply/*.bt compile to BPF under the root's bpftrace (no probe attached: --emit-elf). A
    script on the gpio:gpio_value tracepoint cannot be compiled on a kernel without GPIOLIB
    (bpftrace needs the tracepoint's format from the kernel): there, exactly that must be its
    one error (the parse before it passed: a syntax error is reported first)"""
    scripts = sorted(f for f in os.listdir(os.path.join(ROOTFS + SRC, "ply")) if f.endswith(".bt"))
    assert scripts
    version = inroot("bpftrace --version").stdout.strip()
    no_gpio = kernel_config("CONFIG_GPIOLIB") == ""
    compiled = 0
    for s in scripts:
        r = inroot("rm -f /tmp/{0}.o && bpftrace --emit-elf /tmp/{0}.o ply/{0} && test -s /tmp/{0}.o"
                   .format(s), 300)
        with open(os.path.join(ROOTFS + SRC, "ply", s)) as f:
            gpio_tp = "tracepoint:gpio:" in f.read()
        if r.returncode != 0 and no_gpio and gpio_tp:
            errors = [l for l in r.stderr.splitlines() if "ERROR" in l]
            assert len(errors) == 1 and "tracepoint not found: gpio:" in errors[0], r.stderr
            log("# %s: parsed; not compiled (this kernel has no GPIOLIB)" % s)
            continue
        assert r.returncode == 0, "%s, %s: %s" % (version, s, r.stderr[-2000:])
        compiled += 1
    log("# %s: %d of %d ply/*.bt compiled" % (version, compiled, len(scripts)))
    assert compiled >= 1


def test_module_builds_on_debian13_headers(trixie):
    r = run(["sh", os.path.join(ROOT, "host", "rootfs.sh"), "trixie", ROOTFS,
             "linux-headers-amd64"], 1800)
    assert r.returncode == 0, r.stderr
    heads = sorted(glob.glob(ROOTFS + "/usr/src/linux-headers-*-amd64"))
    assert heads
    head = heads[-1][len(ROOTFS):]
    # the setters the headers declare, read from driver.h (the common half of Debian's headers)
    with open(ROOTFS + head.replace("-amd64", "-common") + "/include/linux/gpio/driver.h") as f:
        driver = f.read()
    if re.search(r"int\s+\(\*set\)\(", driver):
        want = "set() returning int"
    elif re.search(r"int\s+\(\*set_rv\)\(", driver):
        want = "set_rv() returning int"
    else:
        want = "set() returning void"
    r = inroot("rm -rf /tmp/kmod && mkdir /tmp/kmod && cp kmod/*.c kmod/*.h kmod/Kbuild /tmp/kmod/"
               " && make -C %s M=/tmp/kmod modules 2>&1 && test -s /tmp/kmod/toggle.ko" % head)
    assert r.returncode == 0, r.stdout[-3000:]
    assert "warning" not in r.stdout.lower(), r.stdout[-3000:]
    assert "the virtual chip's setters: %s" % want in r.stdout, r.stdout[-3000:]


@pytest.mark.parametrize("how", ["exit 0", "exit 3", "SIGTERM", "SIGKILL"])
def test_inroot_leaves_no_mount(trixie, how):
    inroot_sh = os.path.join(ROOT, "host", "inroot.sh")
    if how.startswith("exit"):
        r = subprocess.run(["sh", inroot_sh, ROOTFS, "sh", "-c",
                            "test -d /proc/self && test -c /dev/null && test -d /sys/kernel && "
                            "test -f %s/Makefile && %s" % (ROOT, how)], timeout=60)
        assert r.returncode == int(how.split()[1])
    else:
        p = subprocess.Popen(["sh", inroot_sh, ROOTFS, "sh", "-c", "sleep 60 & wait"])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and p.poll() is None:
            time.sleep(0.2)
            # the inner sh is up when its sleep is
            if subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True).stdout:
                break
        left = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True,
                              text=True).stdout.split()
        p.send_signal(getattr(signal, how))
        assert p.wait(timeout=30) != 0
        for pid in left:  # the sleep, orphaned: its namespace is not the host's
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
    assert mounts_under(ROOTFS) == []
