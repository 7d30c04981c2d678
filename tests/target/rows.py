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
    """The running kernel's configuration: /proc/config.gz, /boot, or the emulated target's
    kernel package in out/target/*/root/boot (the project share); {} when none is found."""
    release = platform.release()
    proj = os.environ.get("PROJ") or os.getcwd()
    paths = ["/boot/config-" + release]
    tdir = os.path.join(proj, "out", "target")
    if os.path.isdir(tdir):
        for k in sorted(os.listdir(tdir)):
            paths.append(os.path.join(tdir, k, "root", "boot", "config-" + release))
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


def independent_reason(method):
    """Why METHOD may be missing here, verified without asking gpiolat; None when it must run.
    The emulated targets have every kernel option the matrix needs, so there only the tools
    that are not packaged for Debian (ply) or not installed may be missing."""
    tools = {"ply-": "ply", "bpftrace-": "bpftrace", "user-ioctl-strace": "strace"}
    for prefix, tool in tools.items():
        if method.startswith(prefix) and shutil.which(tool) is None:
            return f"{tool} is not on PATH"
    options = [("fentry", "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"),
               ("kprobe", "CONFIG_KPROBE_EVENTS"), ("uprobe", "CONFIG_UPROBE_EVENTS"),
               ("function_graph", "CONFIG_FUNCTION_GRAPH_TRACER"),
               ("function", "CONFIG_FUNCTION_TRACER"), ("hist", "CONFIG_HIST_TRIGGERS"),
               ("synthetic", "CONFIG_SYNTH_EVENTS"), ("syscall", "CONFIG_FTRACE_SYSCALLS")]
    for word, option in options:
        if word in method and _lacks(option):
            return f"the kernel has no {option}"
    if "fentry" in method and platform.machine().startswith("arm") and \
            platform.machine() != "arm64":
        return "32-bit ARM has no BPF trampoline (fentry)"
    return None


def not_available(r):
    """The check line of a row that was not measured: ok only when its absence is verified
    independently; returns that reason (or None)."""
    why = r.get("not_available", "")
    ours = independent_reason(r["method"])
    line(ours is not None and len(why) > 10,
         f"{r['method']}: not available: {why}"
         + (f" (verified: {ours})" if ours else " (exists on this target: it must run)"))
    return ours


def done():
    sys.exit(bad)
