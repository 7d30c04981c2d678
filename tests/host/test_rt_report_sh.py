"""host/rt-report.sh (make rt-report): which targets it boots, how often, in which clock, where
each run's results go, in a copy of the project whose tools are stubs that log their call
(vm/run, make, host/rt_report.py): seconds, no target booted. The figures of a real run are in
docs/rt.md, "In instructions"."""
import os
import shutil
import signal
import subprocess
import time

import pytest

from test_bpf_histograms import HOST_ARCH, ROOT, stub


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    (p / "host").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "host", "rt-report.sh"), p / "host")
    # the study drivers' shared opening, sourced by rt-report.sh
    shutil.copy(os.path.join(ROOT, "host", "study-env.sh"), p / "host")
    # under icount: the study's root as the initramfs (host/ramroot.sh), its results to
    # VM_RAMROOT_OUT
    # each boot says its command line's addition; with MEET=DIR a boot waits (5 s at most) for
    # every kernel of MEET_ALL to have started, and says whether it met them
    stub(p / "vm" / "run", "vm/run", '[ -z "${VM_RAMROOT:-}" ] || '
         'echo "ramroot $VM_RAMROOT $VM_RAMROOT_OUT" >>"$STUB_LOG"\n'
         'echo "append $ARCH-$KERNEL [${VM_APPEND:-}]" >>"$STUB_LOG"\n'
         'if [ -n "${MEET:-}" ]; then\n'
         '  : >"$MEET/$KERNEL"; i=0; met=met\n'
         '  for k in $MEET_ALL; do\n'
         '    while [ ! -e "$MEET/$k" ]; do\n'
         '      i=$((i + 1)); [ $i -lt 50 ] || { met=alone; break; }; sleep 0.1\n'
         '    done\n'
         '  done\n'
         '  echo "meet $KERNEL $met" >>"$STUB_LOG"\n'
         'fi\n')
    stub(p / "host" / "ramroot.sh", "ramroot.sh", 'echo "/cache/$2-$1.cpio.gz"\n')
    stub(p / "host" / "rt_report.py.sh", "rt_report.py")
    (p / "host" / "rt_report.py").write_text(
        "import os, subprocess, sys\n"
        "sys.exit(subprocess.call(['sh', os.path.join(os.path.dirname(__file__), "
        "'rt_report.py.sh')] + sys.argv[1:]))\n")
    stub(tmp_path / "bin" / "make", "make")
    # what std is on this host (vm/std.sh asks apt): said, not logged
    (p / "vm" / "std.sh").write_text("echo 'std: (stub)' >&2\n")
    return p


def environ(proj, **env):
    """rt-report.sh's environment: the stubs first on PATH, their log emptied, ENV added;
    (environment, log)"""
    log = proj.parent / "log"
    log.write_text("")
    e = {k: v for k, v in os.environ.items()
         if k not in ("TIMING", "ARCH", "KERNEL", "TARGET", "RT_KERNELS", "RT_RUNS", "RT_JOBS",
                      "RT_IDLE_POLL", "RT_STEP", "VM_APPEND", "MAKEFLAGS", "MFLAGS")}
    e.update(PATH=f"{proj.parent / 'bin'}:{os.environ['PATH']}", STUB_LOG=str(log))
    e.update(env)
    return e, log


def run(proj, **env):
    e, log = environ(proj, **env)
    r = subprocess.run(["sh", str(proj / "host" / "rt-report.sh")], env=e, capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    return r, log.read_text().splitlines()


def field(line, name):
    return line.split(" | ", 1)[1].split(name + "=", 1)[1].split(" ")[0]


def test_two_architectures_each_kernel_twice_in_icount(proj):
    raw = proj / "out" / "results" / "raw"
    (raw / "rt-std.run3").mkdir(parents=True)  # an earlier, longer series: not this run's
    r, lines = run(proj, RT_KERNELS="std rt arm-6.12 arm-6.12-rt", RT_RUNS="2", RT_JOBS="2")
    assert r.returncode == 0, r.stderr
    boots = [ln for ln in lines if ln.startswith("vm/run ")]
    rams = [ln.split() for ln in lines if ln.startswith("ramroot ")]
    made = [ln.split(" | ")[0] for ln in lines if ln.startswith("ramroot.sh ")]
    want, names, wram, split = [], [], [], []
    for k, a in (("std", HOST_ARCH), ("rt", HOST_ARCH), ("6.12", "arm"), ("6.12-rt", "arm")):
        name = k if a == HOST_ARCH else f"{a}-{k}"
        names.append(name)
        # an x86_64 guest polls when idle under icount: its study's latencies in that boot,
        # its overhead rows in a halting boot of their own after every kernel's first boots
        part = "latency" if a == "x86_64" else ""
        for d in (f"rt-{name}", f"rt-{name}.run2"):
            want.append((k, a, "icount", part))
            wram.append((f"/cache/{a}-{k}.cpio.gz", f"{proj}/out/results/raw/{d}"))
            if part:
                split.append(((k, a, "icount", "overhead"),
                              (f"/cache/{a}-{k}.cpio.gz", f"{proj}/out/results/raw/{d}.overhead")))
    want += [w for w, _ in split]
    wram += [m for _, m in split]
    # a kernel's two boots run at once (RT_JOBS=2): their lines come in the order the scheduler
    # gave them, each kernel's pair before the next kernel's (every boot waited for)
    def pairs(seq):
        return [sorted(seq[i:i + 2]) for i in range(0, len(seq), 2)]

    def parts(b):
        args = b.split(" | ")[0]
        return args.split("RT_PARTS=", 1)[1].split(" ")[0] if "RT_PARTS=" in args else ""

    got = [(field(b, "KERNEL"), field(b, "ARCH"), field(b, "TIMING"), parts(b)) for b in boots]
    assert pairs(got) == pairs(want)
    # the study from the root in RAM, its results copied out to each run's folder
    assert all(b.split(" | ")[0].endswith("sh /study/rt.sh /result") for b in boots), boots
    assert pairs([(r[1], r[2]) for r in rams]) == pairs(wram)
    # the root made (or found) once per kernel, before its boots
    assert len(made) == 4
    (rep,) = [ln for ln in lines if ln.startswith("rt_report.py ")]
    assert rep.split(" | ")[0] == "rt_report.py out/results/raw out/results " + " ".join(names)
    assert not (raw / "rt-std.run3").exists()
    # the overhead boots' folders merged into their runs' (the stub wrote nothing in them)
    assert not [p.name for p in raw.iterdir() if p.name.endswith(".overhead")]


def test_split_runs_overhead_rows_merged_with_the_idle_loop_that_measured_them(proj):
    # a stub boot that writes what the study would: kernel.txt with its idle loop, and
    # overhead.json from the overhead boot only
    stub(proj / "vm" / "run", "vm/run",
         'mkdir -p "$VM_RAMROOT_OUT"\n'
         'case "$*" in *RT_PARTS=overhead*) echo "{}" >"$VM_RAMROOT_OUT/overhead.json" ;; esac\n'
         'case "$VM_APPEND" in *idle=poll*) i=poll ;; *) i=default ;; esac\n'
         'echo "idle=$i" >"$VM_RAMROOT_OUT/kernel.txt"\n')
    r, lines = run(proj, RT_KERNELS="std")
    assert r.returncode == 0, r.stderr
    d = proj / "out" / "results" / "raw" / "rt-std"
    assert (d / "kernel.txt").read_text() == "idle=poll\n"
    assert (d / "overhead.json").read_text() == "{}\n"
    assert (d / "overhead-idle.txt").read_text() == "default\n"
    assert not (d.parent / "rt-std.overhead").exists()
    assert "the overhead rows of rt-std in a boot of their own" in r.stderr


def test_the_main_commands_steps_each_boot_only_their_own(proj):
    # the main command runs each kernel's latencies and overhead rows as jobs of its schedule
    # (RT_STEP), then the merge and the page once: the same boots as one run, in three calls
    stub(proj / "vm" / "run", "vm/run",
         'mkdir -p "$VM_RAMROOT_OUT"\n'
         'case "$*" in *RT_PARTS=overhead*) echo "{}" >"$VM_RAMROOT_OUT/overhead.json" ;; esac\n'
         'case "$VM_APPEND" in *idle=poll*) i=poll ;; *) i=default ;; esac\n'
         'echo "idle=$i" >"$VM_RAMROOT_OUT/kernel.txt"\n')
    raw = proj / "out" / "results" / "raw"
    kernels = "x86_64-std arm-6.12"
    r, lines = run(proj, RT_KERNELS=kernels, RT_STEP="check")
    assert r.returncode == 0 and lines == [], (r.stderr, lines)
    r, lines = run(proj, RT_KERNELS=kernels, RT_STEP="latency")
    assert r.returncode == 0, r.stderr
    boots = [ln.split(" | ")[0] for ln in lines if ln.startswith("vm/run ")]
    assert len(boots) == 2 and "RT_PARTS=latency" in boots[0] and "RT_PARTS" not in boots[1], boots
    assert not [ln for ln in lines if ln.startswith(("rt_report.py", "make -s report"))], lines
    r, lines = run(proj, RT_KERNELS=kernels, RT_STEP="overhead")
    assert r.returncode == 0, r.stderr
    boots = [ln.split(" | ")[0] for ln in lines if ln.startswith("vm/run ")]
    # the ARM guest halts when idle: its one boot had its overhead rows; its root not asked
    assert len(boots) == 1 and "RT_PARTS=overhead" in boots[0], boots
    assert [ln.split(" | ")[0] for ln in lines if ln.startswith("ramroot.sh ")] == \
        [f"ramroot.sh std {HOST_ARCH}"], lines
    assert (raw / "rt-std.overhead" / "overhead.json").exists()
    assert not (raw / "rt-std" / "overhead.json").exists()
    r, lines = run(proj, RT_KERNELS=kernels, RT_STEP="report")
    assert r.returncode == 0, r.stderr
    assert not [ln for ln in lines if ln.startswith(("vm/run ", "ramroot"))], lines
    assert (raw / "rt-std" / "overhead.json").read_text() == "{}\n"
    assert (raw / "rt-std" / "overhead-idle.txt").read_text() == "default\n"
    assert not (raw / "rt-std.overhead").exists()
    (rep,) = [ln for ln in lines if ln.startswith("rt_report.py ")]
    assert rep.split(" | ")[0] == "rt_report.py out/results/raw out/results std arm-6.12", rep
    r, lines = run(proj, RT_STEP="some")
    assert r.returncode == 2 and lines == [], lines
    assert r.stderr.count("\n") == 1 and "RT_STEP must be" in r.stderr, r.stderr


def test_timing_real_is_an_option_and_bad_settings_are_usage_errors(proj):
    r, lines = run(proj, RT_KERNELS="std", TIMING="real")
    assert r.returncode == 0, r.stderr
    assert [field(ln, "TIMING") for ln in lines if ln.startswith("vm/run ")] == ["real"]
    # in real time the study runs over 9p as before: no root in RAM as the initramfs
    (boot,) = [ln.split(" | ")[0] for ln in lines if ln.startswith("vm/run ")]
    assert boot.endswith("sh study/rt.sh out/results/raw/rt-std"), boot
    assert not [ln for ln in lines if ln.startswith(("ramroot", "ramroot.sh"))]
    for env, msg in (({"RT_RUNS": "0"}, "RT_RUNS must be a positive integer"),
                     ({"RT_JOBS": "x"}, "RT_JOBS must be a positive integer"),
                     ({"RT_IDLE_POLL": "yes"}, "RT_IDLE_POLL must be 0 or 1"),
                     ({"TIMING": "fast"}, "TIMING must be real or icount")):
        r, lines = run(proj, **env)
        assert r.returncode == 2 and lines == [], lines
        assert r.stderr.count("\n") == 1 and msg in r.stderr, r.stderr


def appends(lines):
    return sorted(ln.split(" ", 2)[1:] for ln in lines if ln.startswith("append "))


def test_x86_64_guests_poll_when_idle_under_icount_only(proj):
    # under icount an x86_64 guest that halts lets qemu 7.2's clock warp race its main loop
    # (docs/rt.md): both x86_64 kernels poll, the ARM ones halt as before, the user's own
    # VM_APPEND kept; a polling kernel's overhead rows in a halting boot of their own
    r, lines = run(proj, RT_KERNELS="x86_64-std x86_64-rt arm-6.12", VM_APPEND="quiet")
    assert r.returncode == 0, r.stderr
    assert appends(lines) == [["arm-6.12", "[quiet]"],
                              ["x86_64-rt", "[quiet idle=poll]"], ["x86_64-rt", "[quiet]"],
                              ["x86_64-std", "[quiet idle=poll]"], ["x86_64-std", "[quiet]"]]
    assert "idle=poll" in r.stderr
    r, lines = run(proj, RT_KERNELS="x86_64-std", RT_IDLE_POLL="0")
    assert r.returncode == 0, r.stderr
    assert appends(lines) == [["x86_64-std", "[]"]]
    # in real time the guest's idle is not the question (its clock is the host's)
    r, lines = run(proj, RT_KERNELS="x86_64-std", TIMING="real")
    assert r.returncode == 0, r.stderr
    assert appends(lines) == [["x86_64-std", "[]"]]


def test_jobs_run_one_kernels_boot_beside_the_next_kernels(proj, tmp_path):
    # RT_JOBS=2, one run each: std's and rt's boots at the same time (each waits for the other)
    meet = tmp_path / "meet"
    meet.mkdir()
    # (RT_IDLE_POLL=0: one boot a kernel; a polling kernel's overhead boots come after every
    # kernel's first, test_two_architectures_each_kernel_twice_in_icount)
    r, lines = run(proj, RT_KERNELS="std rt", RT_JOBS="2", MEET=str(meet), MEET_ALL="std rt",
                   RT_IDLE_POLL="0")
    assert r.returncode == 0, r.stderr
    assert sorted(ln for ln in lines if ln.startswith("meet ")) == ["meet rt met", "meet std met"]
    # one at a time (the default): the first boot waits alone, the second finds both started
    for f in meet.iterdir():
        f.unlink()
    r, lines = run(proj, RT_KERNELS="std rt", MEET=str(meet), MEET_ALL="std rt", RT_IDLE_POLL="0")
    assert r.returncode == 0, r.stderr
    assert [ln for ln in lines if ln.startswith("meet ")] == ["meet std alone", "meet rt met"]
    # polling (the default on x86_64): the latencies' boots side by side, then the overhead ones
    for f in meet.iterdir():
        f.unlink()
    r, lines = run(proj, RT_KERNELS="std rt", RT_JOBS="2", MEET=str(meet), MEET_ALL="std rt")
    assert r.returncode == 0, r.stderr
    assert sorted(ln for ln in lines if ln.startswith("meet ")) == ["meet rt met"] * 2 + \
        ["meet std met"] * 2


def test_a_failed_boot_is_said_after_every_boot_ended(proj, tmp_path):
    # rt's boot fails at once while std's is still running: the failure said after std's ended,
    # with the run's folder, exit 1, and no report made (std's boot lets go of rt-report's
    # output first: else the test's own wait for the end of that output would wait for it)
    stub(proj / "vm" / "run", "vm/run", 'case $KERNEL in rt) exit 1 ;; esac\n'
         'exec >/dev/null 2>&1; sleep 1; echo "std ended" >>"$STUB_LOG"\n')
    r, lines = run(proj, RT_KERNELS="std rt", RT_JOBS="2")
    assert r.returncode == 1
    assert "rt-report: a boot of rt-rt failed" in r.stderr, r.stderr
    assert "std ended" in lines
    assert not [ln for ln in lines if ln.startswith("rt_report.py ")]


def test_a_kernel_named_twice_is_a_usage_error_before_any_boot(proj):
    # on this host "std" and "HOST_ARCH-std" are one kernel, one run folder
    r, lines = run(proj, RT_KERNELS=f"std {HOST_ARCH}-std")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "RT_KERNELS names std twice" in r.stderr, r.stderr
    assert not [ln for ln in lines if ln.startswith(("vm/run", "make", "ramroot"))], lines


def test_stopped_it_stops_its_boots(proj):
    # SIGTERM while two boots run (RT_JOBS=2): both boots stopped, none writes after, exit 130
    stub(proj / "vm" / "run", "vm/run",
         'exec >/dev/null 2>&1; sleep 3; echo "ended $KERNEL" >>"$STUB_LOG"\n')
    e, log = environ(proj, RT_KERNELS="std rt", RT_JOBS="2")
    p = subprocess.Popen(["sh", str(proj / "host" / "rt-report.sh")], env=e,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    t = time.monotonic()
    while log.read_text().count("vm/run ") < 2 and time.monotonic() - t < 20:
        time.sleep(0.05)
    assert log.read_text().count("vm/run ") == 2, log.read_text()
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=20) == 130
    time.sleep(4)
    assert "ended" not in log.read_text(), log.read_text()
