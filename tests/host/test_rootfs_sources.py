"""host/rootfs.sh decides by what apt and the mirror say, never by a release's name.

A machine of the test's own: its apt (APT_CONFIG: sources, lists, cache in a temporary folder;
the host's are read by nothing here) reads three local repositories (file: URIs, no network)
signed by a key of the test's own (gpg; ROOTFS_KEYRING), as host/rootfs.sh's mirrors are
found on a host:
- "decoy": a suite named bookworm (Codename bookworm, Label Decoy): a name the old lookup took
  the host's mirror by;
- "repo": "rel" and "rel-updates" (Label Debian), names on no list;
- "security": "rel-security" (Label Debian-Security).
debootstrap is a script of the test's that records its arguments and fails (making a real root
takes minutes and the network: the roots themselves are made and checked by test_debian13*.py,
test_foreign_root.py, test_deb.py); the content cache is off (GPIOLAT_CACHE=).

Checked: the main and security mirrors are the sites whose Release files say Label Debian and
Debian-Security (not the site with a release's name); a release the mirror has is taken whatever
its name ("rel"), one it has not is refused in one line with exit 2 whatever its name
("bookworm", which the old list knew), nothing written; a root made by an older rootfs.sh (no
DIR/.rootfs-sources) whose sources.list is not what the mirror's suites give now is made anew
and said, one whose lines are is kept and marked (clean for the cache as before), and a root
made with the other kind of sources (--main-only or not) is made anew. About 10 s.
"""
import os
import shutil
import subprocess
import time

import pytest

from test_apt_update import NATIVE, deb, key, signed_suite

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST = os.path.join(ROOT, "host")

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("apt-get") or not shutil.which("dpkg-deb")
    or not shutil.which("gpg") or not shutil.which("unshare"),
    reason="needs root, apt-get, dpkg-deb, gpg and unshare (a Debian host: host/deps.sh)")

FAKE_DEBOOTSTRAP = """#!/bin/sh
printf '%s\\n' "$@" >"$(dirname "$0")/../debootstrap.args"
echo "E: the test's debootstrap: no root made here"
exit 1
"""


@pytest.fixture
def machine(tmp_path):
    """the test's machine: its apt over the three repositories, updated; the environment that
    runs host/rootfs.sh there"""
    home, ring = key(tmp_path, "archive")
    pkgs = {NATIVE: deb(tmp_path, "apt", NATIVE)}
    signed_suite(tmp_path, "decoy", "bookworm", "bookworm", pkgs, home, label="Decoy")
    signed_suite(tmp_path, "repo", "rel", "rel", pkgs, home, label="Debian")
    signed_suite(tmp_path, "repo", "rel-updates", "rel-updates", pkgs, home, label="Debian")
    signed_suite(tmp_path, "security", "rel-security", "rel-security", pkgs, home,
                 label="Debian-Security")
    other, _ = key(tmp_path, "other")
    signed_suite(tmp_path, "repo", "rel2", "rel2", pkgs, other, label="Debian")
    etc = tmp_path / "etc"
    (etc / "parts").mkdir(parents=True)
    (etc / "sources.list").write_text("".join(
        "deb [signed-by=%s] file:%s/%s %s main\n" % (ring, tmp_path, repo, suite)
        for repo, suite in (("decoy", "bookworm"), ("repo", "rel"), ("repo", "rel-updates"),
                            ("security", "rel-security"))))
    for d in ("lists/partial", "cache/archives/partial"):
        (tmp_path / d).mkdir(parents=True)
    conf = tmp_path / "apt.conf"
    conf.write_text(
        'Dir::Etc::SourceList "%s/sources.list"; Dir::Etc::SourceParts "%s/parts";\n'
        'Dir::State::Lists "%s/lists"; Dir::Cache "%s/cache"; Dir::State::status "/dev/null";\n'
        'Acquire::Languages "none"; APT::Sandbox::User "root";\n' % (etc, etc, tmp_path, tmp_path))
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "debootstrap").write_text(FAKE_DEBOOTSTRAP)
    (bindir / "debootstrap").chmod(0o755)
    env = dict(os.environ, APT_CONFIG=str(conf), APT_RETRY_S="0", GPIOLAT_CACHE="",
               ROOTFS_KEYRING=str(ring), PATH="%s:%s" % (bindir, os.environ["PATH"]))
    for k in ("ROOTFS_MIRROR", "ROOTFS_SECURITY_MIRROR"):
        env.pop(k, None)
    r = subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and "E:" not in r.stderr, r.stderr
    return env


def rootfs(env, *args):
    return subprocess.run(["sh", os.path.join(HOST, "rootfs.sh")] + list(args), env=env,
                          cwd=ROOT, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def debootstrapped(tmp_path):
    """the arguments the test's debootstrap was called with (once at most), or None"""
    f = tmp_path / "debootstrap.args"
    if not f.exists():
        return None
    args = f.read_text().splitlines()
    f.unlink()
    return args


def test_mirrors_by_label_release_by_the_mirror(machine, tmp_path):
    """"rel" is on no list of names: the mirror has it, so it is made from the site whose Release
    files say Label Debian, with the -updates and -security (Label Debian-Security) there"""
    d = tmp_path / "roots" / "rel"
    r = rootfs(machine, "rel", str(d))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "debootstrap rel failed: E: the test's debootstrap: no root made here" in r.stderr
    args = debootstrapped(tmp_path)
    assert args is not None and args[-4:-1] == ["rel", str(d), "file:%s/repo" % tmp_path], args
    assert "--keyring=%s" % machine["ROOTFS_KEYRING"] in args, args
    assert "%s: suites rel rel-updates rel-security (" % d in r.stderr, r.stderr
    assert "from file:%s/repo (" % tmp_path in r.stdout, r.stdout


@pytest.mark.parametrize("release,status,why", [
    ("bookworm", 2, "does not have a Release file"),
    ("rel2", 1, "is not signed"),
    ("bad/name", 2, None),
    ("Trixie", 2, None)])
def test_a_release_the_mirror_has_not_is_refused(machine, tmp_path, release, status, why):
    """one line, its status, nothing written, no debootstrap; a name the old list knew
    (bookworm: only the decoy site has it) is no exception"""
    d = tmp_path / "roots" / "r"
    r = rootfs(machine, release, str(d))
    assert r.returncode == status, r.stdout + r.stderr
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.stdout + r.stderr
    if why:
        assert r.stderr.startswith("host/apt.sh: file:%s/repo has no release '%s'"
                                   % (tmp_path, release)) and why in r.stderr, r.stderr
    else:
        assert r.stderr == "host/rootfs.sh: '%s' is not a Debian suite's or codename's name\n" \
            % release, r.stderr
    assert not (tmp_path / "roots").exists()
    assert debootstrapped(tmp_path) is None


def made_root(tmp_path, lines, kind=None):
    """a root as host/rootfs.sh leaves it made: its release, sources.list (LINES), no package
    to install; dpkg-divert (the host's, with its libraries) is all that runs in it, and finds
    update-initramfs diverted"""
    d = tmp_path / "roots" / "rel"
    for p in ("etc/apt/apt.conf.d", "usr/bin", "usr/sbin", "var/lib/dpkg"):
        (d / p).mkdir(parents=True)
    (d / "etc/apt/sources.list").write_text("".join(ln + "\n" for ln in lines))
    shutil.copy("/usr/bin/dpkg-divert", d / "usr/bin")
    ldd = subprocess.run(["ldd", "/usr/bin/dpkg-divert"], capture_output=True, text=True).stdout
    for lib in (w for w in ldd.split() if w.startswith("/")):
        (d / lib.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(lib, d / lib.lstrip("/"))
    (d / "var/lib/dpkg/diversions").write_text(
        "/usr/sbin/update-initramfs\n/usr/sbin/update-initramfs.distrib\n:\n")
    (d / "old-root").write_text("made before\n")
    if kind:
        (d / ".rootfs-sources").write_text(kind + "\n")
    (d / ".rootfs-done").write_text("rel file:%s/repo\n" % tmp_path)
    return d


def fp(d):
    """the root's listing, hashed, as host/rootcache.sh keeps it (DIR/.rootfs-cached)"""
    return subprocess.run(["sh", "-c", 'here=$1 dir=$2; . "$here/rootcache.sh"; rc_fp', "fp",
                           HOST, str(d)], capture_output=True, text=True, check=True).stdout


def gone(d):
    """D's old root removed (behind, niced): at most 30 s"""
    for _ in range(300):
        if not any(p.name.startswith(d.name + ".old.") for p in d.parent.iterdir()):
            return True
        time.sleep(0.1)
    return False


def test_an_older_root_with_the_mirrors_suites_is_kept(machine, tmp_path):
    repo, sec = "file:%s/repo" % tmp_path, "file:%s/security" % tmp_path
    d = made_root(tmp_path, ["deb %s rel main" % repo, "deb %s rel-updates main" % repo,
                             "deb %s rel-security main" % sec], "suites")
    # (what this rootfs.sh writes in every made root there, then the mark an older one lacks
    # taken away, the root clean for the cache)
    r = rootfs(machine, "rel", str(d))
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
    (d / ".rootfs-sources").unlink()
    (d / ".rootfs-cached").write_text(fp(d))
    r = rootfs(machine, "rel", str(d))
    assert r.returncode == 0, r.stdout + r.stderr
    assert ("ROOTFS  %s: made by an older host/rootfs.sh, its suites (rel rel-updates "
            "rel-security) the mirror's now: kept" % d) in r.stdout, r.stdout
    assert debootstrapped(tmp_path) is None
    assert (d / "old-root").exists() and (d / ".rootfs-sources").read_text() == "suites\n"
    # clean for the cache as it was (its listing, with the mark, kept)
    assert (d / ".rootfs-cached").read_text() == fp(d)
    # a second call: nothing to say
    r = rootfs(machine, "rel", str(d))
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr


@pytest.mark.parametrize("kind,args,said", [
    (None, ["rel"], "made by an older host/rootfs.sh, its suites (rel) are not the mirror's now"
     " (rel rel-updates rel-security): made anew"),
    ("suites", ["--main-only", "rel"], "its sources were chosen as suites, this call asks"
     " main-only: made anew")])
def test_a_root_with_other_sources_is_made_anew(machine, tmp_path, kind, args, said):
    """an older root's lines (the old rootfs.sh gave a release not on its list its main suite
    alone), or another kind of sources than asked: made anew, said, the old root removed"""
    d = made_root(tmp_path, ["deb file:%s/repo rel main" % tmp_path], kind)
    r = rootfs(machine, *(args + [str(d)]))
    assert "ROOTFS  %s: %s" % (d, said) in r.stdout, r.stdout + r.stderr
    # (made anew: the test's debootstrap, from the Label Debian site, fails it)
    assert r.returncode == 1 and "debootstrap rel failed" in r.stderr, r.stdout + r.stderr
    args = debootstrapped(tmp_path)
    assert args is not None and args[-4:-1] == ["rel", str(d), "file:%s/repo" % tmp_path], args
    assert gone(d) and not (d / "old-root").exists()
