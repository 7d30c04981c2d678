"""The study's root in RAM (host/ramroot.sh, host/cpio.py, vm/run VM_RAMROOT), without a boot.

host/cpio.py packs a folder whole or not at all: a folder it cannot list (os.walk alone skips
it), a file it cannot read, stop it with one line naming the path, status 1 and no archive. The
folder is made unreadable for real: the tests run as root, whom permission bits do not stop,
so cpio.py runs without the two capabilities that let root past them (setpriv, util-linux).

host/ramroot.sh records the target an archive is for (ramroot/.gpiolat-target), and vm/run
refuses another target's archive (or one that records none) in one line, status 125 (its
refusals before a boot), before anything is made or started: in a copy of the project on a
target of stub files, whose qemu is a stub that logs its call and plays a guest that ran the
command.
"""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import one_line

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPIO = os.path.join(ROOT, "host", "cpio.py")
# root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: mode bits hold for it
NO_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] \
    if os.geteuid() == 0 else []
RELEASE = "6.1.0-56-amd64"


def cpio(*args, prefix=()):
    return subprocess.run([*prefix, sys.executable, CPIO, *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def tree(top):
    (top / "a" / "b").mkdir(parents=True)
    (top / "a" / "b" / "f").write_text("f\n")
    (top / "c").mkdir()
    (top / "c" / "g").write_text("g\n")
    return top


# ---- host/cpio.py ----------------------------------------------------------------------------
def test_an_unreadable_folder_stops_the_archive(tmp_path):
    top = tree(tmp_path / "tree")
    os.chmod(top / "a", 0)
    try:
        # the check is real: where cpio.py runs, the folder cannot be listed
        probe = subprocess.run([*NO_DAC, "ls", str(top / "a")], capture_output=True, text=True)
        if probe.returncode == 0 or "Permission denied" not in probe.stderr:
            # (setpriv could not drop root's two capabilities here, as in some containers)
            pytest.skip("the folder stays readable to root here: " + probe.stderr.strip())
        out = tmp_path / "out.cpio.gz"
        one_line(cpio(out, "ramroot", top, prefix=NO_DAC), 1, f"{top / 'a'}: Permission denied")
        assert sorted(os.listdir(tmp_path)) == ["tree"]  # no archive, no .tmp
    finally:
        os.chmod(top / "a", 0o755)


def test_an_unreadable_file_stops_the_archive(tmp_path):
    top = tree(tmp_path / "tree")
    os.chmod(top / "c" / "g", 0)
    one_line(cpio(tmp_path / "out.cpio.gz", "ramroot", top, prefix=NO_DAC), 1,
             f"{top / 'c' / 'g'}: Permission denied")
    assert sorted(os.listdir(tmp_path)) == ["tree"]


def test_a_fifo_stops_the_archive(tmp_path):
    top = tree(tmp_path / "tree")
    os.mkfifo(top / "c" / "p")
    one_line(cpio(tmp_path / "out.cpio.gz", "ramroot", top), 1,
             f"{top / 'c' / 'p'}: neither file, folder nor link")
    assert sorted(os.listdir(tmp_path)) == ["tree"]


def test_a_readable_tree_is_whole_and_its_members_read_back(tmp_path):
    top = tree(tmp_path / "tree")
    out = tmp_path / "out.cpio.gz"
    r = cpio(out, "ramroot", top, prefix=NO_DAC)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    listed = subprocess.run(f"gzip -dc '{out}' | cpio -t --quiet", shell=True,
                            capture_output=True, text=True, check=True).stdout.split()
    assert listed == ["ramroot", "ramroot/a", "ramroot/c", "ramroot/a/b", "ramroot/a/b/f",
                      "ramroot/c/g"]
    r = cpio("--member", out, "ramroot/a/b/f")
    assert (r.returncode, r.stdout, r.stderr) == (0, "f\n", "")
    r = cpio("--member", out, "ramroot/none")
    assert (r.returncode, r.stdout, r.stderr) == (3, "", "")
    one_line(cpio("--member", top / "c" / "g", "x"), 2, "Not a gzipped file")


def test_a_corrupt_archive_is_one_line_not_a_traceback(tmp_path):
    top = tree(tmp_path / "tree")
    out = tmp_path / "out.cpio.gz"
    assert cpio(out, "ramroot", top).returncode == 0
    data = bytearray(out.read_bytes())
    # the deflate stream's first bytes (after gzip's 10-byte header) flipped
    for i in range(12, 30):
        data[i] ^= 0xFF
    out.write_bytes(bytes(data))
    line = one_line(cpio("--member", out, "ramroot/a/b/f"), 2, f"host/cpio.py: {out}: ")
    assert "Traceback" not in line


# ---- vm/run VM_RAMROOT: the archive's target -------------------------------------------------
# qemu as a guest that ran the command: status 0 in the run folder it shares (tag "run")
QEMU = r"""#!/bin/sh
echo "qemu $*" >>"$QEMU_LOG"
for a in "$@"; do
	case $a in *id=run,path=*) run=${a#*id=run,path=}; run=${run%%,*} ;; esac
done
echo 0 >"$run/status"
"""


@pytest.fixture
def proj(tmp_path):
    """a copy of vm/run, host/cpio.py and host/ramroot.sh over a built x86_64-std of stub files"""
    p = tmp_path / "proj"
    for f in ("vm/run", "host/cpio.py", "host/ramroot.sh"):
        os.makedirs(p / os.path.dirname(f), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), p / f)
    kdir = p / "out" / "target" / "x86_64-std"
    kdir.mkdir(parents=True)
    (kdir / "release").write_text(RELEASE + "\n")
    for f in ("vmlinuz", "initramfs.cpio.gz", "toggle.ko"):
        (kdir / f).write_bytes(b"stub\n")
    b = tmp_path / "bin"
    b.mkdir()
    (b / "qemu-system-x86_64").write_text(QEMU)
    os.chmod(b / "qemu-system-x86_64", 0o755)
    return p


def vm_run(proj, ramroot, **env):
    log = proj.parent / "qemu.log"
    e = {k: v for k, v in os.environ.items() if not k.startswith(("VM_", "TIMING"))}
    e.update(PATH=f"{proj.parent / 'bin'}:{os.environ['PATH']}", QEMU_LOG=str(log),
             KERNEL="std", ARCH="x86_64", VM_NOMAKE="1", TOGGLE="0", VM_RAMROOT=str(ramroot),
             VM_RAMROOT_OUT=str(proj.parent / "result"))
    e.update(env)
    r = subprocess.run([str(proj / "vm" / "run"), "true"], cwd=proj, env=e, capture_output=True,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    return r, log.read_text() if log.exists() else ""


def archive(tmp_path, target):
    """a root archive recording TARGET (None: records none), as host/ramroot.sh packs it"""
    top = tmp_path / "root"
    shutil.rmtree(top, ignore_errors=True)
    tree(top)
    if target is not None:
        (top / ".gpiolat-target").write_text(target + "\n")
    out = tmp_path / "root.cpio.gz"
    assert cpio(out, "ramroot", top).returncode == 0
    return out


def refused(proj, ram, *words):
    r, qemu = vm_run(proj, ram)
    line = one_line(r, 125, f"VM_RAMROOT '{ram}'", *words)
    assert qemu == ""
    # nothing made: no run folder, no VM_RAMROOT_OUT
    assert not (proj / "out" / "vm").exists()
    assert not (proj.parent / "result").exists()
    return line


def test_another_architectures_root_is_refused(proj, tmp_path):
    ram = archive(tmp_path, "arm-std 6.1.0-50-armmp")
    refused(proj, ram, "arm-std 6.1.0-50-armmp", f"x86_64-std {RELEASE}")


def test_another_kernels_root_is_refused(proj, tmp_path):
    ram = archive(tmp_path, "x86_64-rt 6.1.0-56-rt-amd64")
    refused(proj, ram, "x86_64-rt 6.1.0-56-rt-amd64", f"x86_64-std {RELEASE}")


def test_the_root_of_the_targets_older_kernel_is_refused(proj, tmp_path):
    # the same target rebuilt on Debian's next kernel: the archive's toggle.ko is the old one's
    ram = archive(tmp_path, "x86_64-std 6.1.0-55-amd64")
    refused(proj, ram, "x86_64-std 6.1.0-55-amd64", f"x86_64-std {RELEASE}")


def test_a_root_that_records_no_target_is_refused(proj, tmp_path):
    refused(proj, archive(tmp_path, None), "records no target", "host/ramroot.sh std x86_64")


def test_a_file_that_is_no_archive_is_refused(proj, tmp_path):
    ram = tmp_path / "root.cpio.gz"
    ram.write_text("not gzip\n")
    r, qemu = vm_run(proj, ram)
    one_line(r, 125, f"host/cpio.py: {ram}: Not a gzipped file")
    assert qemu == "" and not (proj / "out" / "vm").exists()


@pytest.mark.skipif(os.uname().machine != "x86_64",
                    reason="host/ramroot.sh copies the host's root for the host's architecture")
def test_ramroot_sh_records_its_target_and_vm_run_boots_it(proj, tmp_path):
    # the target's boot that exports the study's root (study/rt.sh RT_RAMROOT_EXPORT=DIR) is a
    # stub that makes DIR; the real vm/run is put back for the boot with the archive
    real = proj / "vm" / "run.real"
    os.rename(proj / "vm" / "run", real)
    (proj / "vm" / "run").write_text('#!/bin/sh\nfor a in "$@"; do\n\tcase $a in '
                                     'RT_RAMROOT_EXPORT=*) d=${a#*=} ;; esac\ndone\n'
                                     'mkdir -p "$d/study" && echo rt >"$d/study/rt.sh"\n')
    os.chmod(proj / "vm" / "run", 0o755)
    r = subprocess.run(["sh", "host/ramroot.sh", "std", "x86_64"], cwd=proj, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ram = r.stdout.strip()
    assert os.path.basename(ram).startswith("x86_64-std-")
    r = cpio("--member", ram, "ramroot/.gpiolat-target")
    assert r.stdout == f"x86_64-std {RELEASE}\n", r.stderr
    os.replace(real, proj / "vm" / "run")
    r, qemu = vm_run(proj, ram)
    assert r.returncode == 0, r.stderr
    assert qemu.startswith("qemu ")
    assert sorted(os.listdir(proj / "out" / "vm")) == []  # the run folder, removed
