"""make install / make uninstall into a temporary DESTDIR, and the man page gpiolat(8).

The install must put the loader, utoggle, mmtoggle, the scripts users run (ply/, study/), data/, docs/
and gpiolat(8) under PREFIX; uninstall must take away exactly that (DESTDIR left with no file).
The man page must format without a groff warning and have its sections (every mode's options
against its --help: test_man_page.py).
"""
import glob
import os
import stat
import subprocess

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PREFIX = "/usr/local"
MAN = os.path.join(ROOT, "docs", "gpiolat.8")


def make(target, destdir):
    return subprocess.run(["make", "-s", "-C", ROOT, target, f"PREFIX={PREFIX}",
                           f"DESTDIR={destdir}"], capture_output=True, text=True, timeout=600)


def files_under(d):
    return sorted(os.path.relpath(os.path.join(p, f), d)
                  for p, _, fs in os.walk(d) for f in fs)


def expected():
    rel = lambda pattern: sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern)))
    share = PREFIX.lstrip("/") + "/share/gpiolat/"
    doc = PREFIX.lstrip("/") + "/share/doc/gpiolat/"
    out = [PREFIX.lstrip("/") + "/sbin/gpiolat", PREFIX.lstrip("/") + "/bin/utoggle",
           PREFIX.lstrip("/") + "/bin/mmtoggle", PREFIX.lstrip("/") + "/bin/toggle.sh",
           PREFIX.lstrip("/") + "/share/man/man8/gpiolat.8"]
    # the togglers' pages: utoggle(1), mmtoggle(1), toggle.sh(1)
    out += [PREFIX.lstrip("/") + "/share/man/man1/" + os.path.basename(p) for p in rel("docs/*.1")]
    # share/gpiolat/gpiolat: a link to sbin/gpiolat (study/ runs ./gpiolat of share/gpiolat)
    out += [share + "gpiolat"]
    out += [share + p for p in rel("ply/*.ply") + rel("ply/*.bt") + rel("study/*.sh")]
    out += [share + p for p in rel("data/*")]
    out += [doc + os.path.basename(p) for p in rel("docs/*") + ["README.md"]
            if p != "docs/gpiolat.8" and not p.endswith(".1")]
    return sorted(out)


def test_install_then_uninstall(tmp_path):
    dest = tmp_path / "root"
    r = make("install", dest)
    assert r.returncode == 0, r.stdout + r.stderr
    got = files_under(dest)
    assert got == expected()
    assert os.readlink(dest / PREFIX.lstrip("/") / "share/gpiolat/gpiolat") == \
        PREFIX + "/sbin/gpiolat"
    for exe in ("sbin/gpiolat", "bin/utoggle", "bin/mmtoggle", "share/gpiolat/study/histograms.sh"):
        mode = os.stat(dest / PREFIX.lstrip("/") / exe).st_mode
        assert mode & stat.S_IXUSR, exe
    # the installed binary is the built one, and runs
    v = subprocess.run([str(dest / PREFIX.lstrip("/") / "sbin/gpiolat"), "--version"],
                       capture_output=True, text=True, timeout=30)
    assert v.returncode == 0 and v.stdout.strip(), v.stderr
    with open(dest / PREFIX.lstrip("/") / "share/gpiolat/data/baseline-klinger-elce2023.csv",
              "rb") as a, open(os.path.join(ROOT, "data/baseline-klinger-elce2023.csv"), "rb") as b:
        assert a.read() == b.read()

    r = make("uninstall", dest)
    assert r.returncode == 0, r.stdout + r.stderr
    assert files_under(dest) == []
    # our own directories went too; the shared ones (sbin, share/man/man8) are left
    assert not (dest / PREFIX.lstrip("/") / "share/gpiolat").exists()
    assert not (dest / PREFIX.lstrip("/") / "share/doc/gpiolat").exists()


def test_man_page_formats_without_warnings():
    for page in [MAN] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.1"))):
        r = subprocess.run(["groff", "-man", "-ww", "-z", page], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0 and r.stderr == "", (page, r.stderr)
    # one page a toggler make install puts in bin
    assert sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "docs", "*.1"))) == \
        ["mmtoggle.1", "toggle.sh.1", "utoggle.1"]


def test_man_page_has_its_sections():
    # every mode's options, both ways: tests/host/test_man_page.py
    text = subprocess.run(["groff", "-man", "-Tascii", "-P-cbou", MAN], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    for section in ("EXIT STATUS", "FILES", "SEE ALSO", "emulat"):
        assert section in text, section
