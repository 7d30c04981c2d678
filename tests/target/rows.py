# Target tests' shared Python (imported by the heredocs of tests/target/8*.sh, with the
# project's tests/target on sys.path): the check lines, and the one rule for a method that
# reports "not available": allowed only for a reason this file verifies on its own.
import os
import platform
import shutil
import sys

bad = 0


def line(ok, what):
    global bad
    bad |= not ok
    print(("ok - " if ok else "not ok - ") + what)


def kernel_config():
    """The running kernel's configuration: /proc/config.gz, /boot, /lib/modules/RELEASE/config
    (a merged-/usr kernel package's place: Debian testing's), or the emulated target's kernel
    package in out/target/*/root/boot or root/usr/lib/modules/RELEASE (the project share); {}
    when none is found."""
    release = platform.release()
    proj = os.environ.get("PROJ") or os.getcwd()
    paths = ["/boot/config-" + release, os.path.join("/lib/modules", release, "config")]
    tdir = os.path.join(proj, "out", "target")
    if os.path.isdir(tdir):
        for k in sorted(os.listdir(tdir)):
            paths.append(os.path.join(tdir, k, "root", "boot", "config-" + release))
            paths.append(os.path.join(tdir, k, "root", "usr", "lib", "modules", release,
                                      "config"))
    text = None
    if os.path.exists("/proc/config.gz"):
        import gzip
        text = gzip.open("/proc/config.gz", "rt").read()
    for p in paths:
        if text is None and os.path.exists(p):
            text = open(p).read()
    cfg = {}
    for ln in (text or "").splitlines():
        if ln.startswith("CONFIG_") and "=" in ln:
            k, v = ln.split("=", 1)
            cfg[k] = v
    return cfg


_cfg = None


def _lacks(option):
    global _cfg
    if _cfg is None:
        _cfg = kernel_config()
    return bool(_cfg) and _cfg.get(option) not in ("y", "m")


def kconfig_needs(method):
    """The kernel options METHOD needs (tests/target/kconfig-needs, shared with lib.sh)."""
    import fnmatch
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "kconfig-needs")) as f:
        for ln in f:
            words = ln.split()
            if not words or words[0].startswith("#"):
                continue
            if fnmatch.fnmatchcase(method, words[0]):
                return words[1:]
    return []


# the tools host/deps.sh installs: on x86_64 the target's root is the host's, where they are
HOST_TOOLS = {"bpftrace-": "bpftrace", "user-ioctl-strace": "strace"}


def apt_candidate(package):
    """The version apt in this root would install of PACKAGE, "" when it has none, None when
    this root has no apt (the ARM targets' busybox initramfs): lib.sh's apt_candidate, its one
    implementation (which keeps the answer for the boot in the emulated target)."""
    import subprocess
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(["sh", "-c", '. "$0" && apt_candidate "$1"',
                        os.path.join(here, "lib.sh"), package],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def independent_reason(method):
    """Why METHOD may be missing here, verified without asking gpiolat; None when it must run.
    The one reason of the kernel: an option it needs (kconfig_needs) is not in the running
    kernel's configuration. Of the tools: ply, which host/deps.sh installs where the release
    packages it, must be there where this root's apt has a candidate for it (lib.sh's
    release_tool); bpftrace and strace, which host/deps.sh installs, must be there on x86_64
    (the host's root), and on ARM wherever the root's apt has a candidate for them (Debian 13's
    armhf and arm64 roots: vm/userspace.sh installs them); only a root without apt (the busybox
    initramfs of the Debian 12 ARM targets) or without a candidate excuses them."""
    if method.startswith("ply-") and shutil.which("ply") is None:
        cand = apt_candidate("ply")
        if cand is None:
            return "ply is not on PATH, and this root has no apt (not a Debian root)"
        if cand == "":
            return "ply is not on PATH, and this root's release does not package it " \
                "(apt has no candidate)"
    for prefix, tool in HOST_TOOLS.items():
        if method.startswith(prefix) and shutil.which(tool) is None and \
                platform.machine() != "x86_64":
            cand = apt_candidate(tool)
            if cand is None:
                return f"not run on {platform.machine()}: no {tool} in this target's root, " \
                    "which has no apt (not a Debian root: the busybox initramfs)"
            if cand == "":
                return f"not run on {platform.machine()}: no {tool} in this target's root, " \
                    f"whose release does not package it for {platform.machine()} (apt has " \
                    "no candidate)"
    missing = [o for o in kconfig_needs(method) if _lacks(o)]
    if missing:
        return "the kernel has no " + " ".join(missing)
    return None


def not_available(r):
    """The check line of a row that was not measured: ok only when its absence is verified
    independently; returns that reason (or None)."""
    if "not_measured" in r:
        # it ran and did not fire on every set: a failure wherever it runs
        line(False, f"{r['method']}: not measured: {r['not_measured']}")
        return None
    why = r.get("not_available", "")
    ours = independent_reason(r["method"])
    line(ours is not None and len(why) > 10,
         f"{r['method']}: not available: {why}"
         + (f" (verified: {ours})" if ours else " (exists on this target: it must run)"))
    return ours


def fired_line(r, extra=""):
    """The check line of a measured row with a count (docs/overhead.md "Fired"): its method fired
    on every set of each of its phases, a counted phase a repetition (overhead_rows.py's whole
    matrix, 86-overhead-fired.sh's rows)."""
    f = r["fired"]
    per = [p["fired_sets"] for p in f["phases"]]
    line(f["fired_sets"] == f["sets"] > 0 and len(per) == r["repetitions"]
         and all(p["fired_sets"] == p["sets"] for p in f["phases"]),
         f"{r['method']}: fired on {f['fired_sets']} of {f['sets']} sets ({f['by']}; per phase "
         f"{per}){extra}")


def done():
    sys.exit(bad)
