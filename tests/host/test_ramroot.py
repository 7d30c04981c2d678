"""The study's root in RAM (host/cpio.py), without a boot.

host/cpio.py packs a folder whole or not at all: a folder it cannot list (os.walk alone skips
it), a file it cannot read, stop it with one line naming the path, status 1 and no archive. The
folder is made unreadable for real: the tests run as root, whom permission bits do not stop,
so cpio.py runs without the two capabilities that let root past them (setpriv, util-linux).
"""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPIO = os.path.join(ROOT, "host", "cpio.py")
# root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: mode bits hold for it
NO_DAC = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] \
    if os.geteuid() == 0 else []


def cpio(*args, prefix=()):
    return subprocess.run([*prefix, sys.executable, CPIO, *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def one_line(r, status, *words):
    lines = r.stderr.splitlines()
    assert r.returncode == status, r.stderr
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


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
        probe = subprocess.run([*NO_DAC, "ls", str(top / "a")], capture_output=True)
        assert probe.returncode != 0, "the folder is readable: the test proves nothing"
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


def test_a_readable_tree_is_whole(tmp_path):
    top = tree(tmp_path / "tree")
    out = tmp_path / "out.cpio.gz"
    r = cpio(out, "ramroot", top, prefix=NO_DAC)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    listed = subprocess.run(f"gzip -dc '{out}' | cpio -t --quiet", shell=True,
                            capture_output=True, text=True, check=True).stdout.split()
    assert listed == ["ramroot", "ramroot/a", "ramroot/c", "ramroot/a/b", "ramroot/a/b/f",
                      "ramroot/c/g"]
