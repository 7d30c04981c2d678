"""The content cache of built targets (host/cache.sh, host/rootcache.sh; docs/cache.md).

Each test has a cache of its own (GPIOLAT_CACHE in a temporary folder): the user's is read by
nothing here. What is checked, with small folders in place of the roots (a root's build is
minutes; the whole path is measured in docs/cache.md):
- the key changes when a script's bytes, an input line, a package asked, a resolved version or
  the architecture changes, and only then (host/rootcache.sh's key with its apt resolution
  replaced by fixed lines: apt's own resolution needs the network);
- an entry cut short (no manifest: a writer killed before its rename), a corrupt one (its
  archive changed) or one whose archive is missing is never used, and a corrupt one is removed;
- a folder taken from the cache is a copy: changing it changes nothing in the cache;
- two writers of one key and readers at the same time: every read is whole and is one of the
  two folders, and the entry left verifies;
- GPIOLAT_CACHE= (empty) is off, and so is a machine without zstd (a put says why): nothing
  read or written; GPIOLAT_CACHE_MAX bounds the disk,
  the least recently used entries going first;
- a root's listing (DIR/.rootfs-cached) ignores what others add to a clean root (apt lists, the
  empty lib/modules/RELEASE folders, /tmp, etc/apt/gpiolat-*) and sees any other change.
About 5 s.
"""
import os
import shutil
import subprocess
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CACHE_SH = os.path.join(ROOT, "host", "cache.sh")

pytestmark = pytest.mark.skipif(not shutil.which("zstd") or not shutil.which("flock"),
                                reason="needs zstd and flock (host/deps.sh)")


def cache(env, *args, stdin=None, check=False):
    r = subprocess.run(["sh", CACHE_SH] + list(args), env=env, input=stdin,
                       capture_output=True, text=True, timeout=120)
    if check:
        assert r.returncode == 0, r.stderr
    return r


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ, GPIOLAT_CACHE=str(tmp_path / "cache"))
    e.pop("GPIOLAT_CACHE_MAX", None)
    return e


def tree(path, text, size=0):
    os.makedirs(path / "etc", exist_ok=True)
    (path / "etc" / "f").write_text(text)
    (path / "big").write_bytes(os.urandom(size))
    os.symlink("etc/f", path / "link")
    os.chmod(path / "etc" / "f", 0o640)
    return path


def test_key_follows_files_and_inputs(env, tmp_path):
    a = tmp_path / "script.sh"
    a.write_text("echo 1\n")
    k1 = cache(env, "key", str(a), stdin="arch armhf\n", check=True).stdout.strip()
    assert len(k1) == 32
    assert cache(env, "key", str(a), stdin="arch armhf\n").stdout.strip() == k1
    assert cache(env, "key", str(a), stdin="arch arm64\n").stdout.strip() != k1
    a.write_text("echo 2\n")
    assert cache(env, "key", str(a), stdin="arch armhf\n").stdout.strip() != k1
    assert cache(env, "key", str(tmp_path / "nonexistent"), stdin="").returncode == 2


ROOTKEY = r'''
set -eu
here=$1 dir=$2 release=$3 rarch=$4 archs=$5
main=http://deb.example/debian security=http://deb.example/debian-security
script=$here/rootfs.sh
. "$here/rootcache.sh"
# apt's resolution replaced: the versions it would give, as this test says; the root's suites
# (host/rootfs.sh's root_sources: the mirror's, probed) as this test says
rc_resolve() { printf '%s\n' "$RESOLVED"; }
root_sources() { sources=$(printf '%s\n' "$SOURCES"); }
shift 5
rc_keyof "$@"
echo "$rc_key"
'''


def rootkey(env, here, tmp_path, *pkgs, release="trixie", rarch="", archs="", resolved=None,
            sources="deb http://deb.example/debian trixie main"):
    e = dict(env, RESOLVED=resolved or "libc6 2.41-12 amd64\nmake 4.4.1-2 amd64", SOURCES=sources)
    r = subprocess.run(["sh", "-c", ROOTKEY, "rootkey", str(here), str(tmp_path / "root"),
                        release, rarch, archs] + list(pkgs), env=e, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_root_key_follows_what_makes_the_root(env, tmp_path):
    here = tmp_path / "host"
    shutil.copytree(os.path.join(ROOT, "host"), here)
    (tmp_path / "root").mkdir()
    k = rootkey(env, here, tmp_path, "make")
    assert rootkey(env, here, tmp_path, "make") == k
    # a package asked, a version apt resolves, the root's architectures, the release
    assert rootkey(env, here, tmp_path, "make", "gcc") != k
    assert rootkey(env, here, tmp_path, "make",
                   resolved="libc6 2.41-12+deb13u1 amd64\nmake 4.4.1-2 amd64") != k
    assert rootkey(env, here, tmp_path, "make", archs="armhf") != k
    assert rootkey(env, here, tmp_path, "make", rarch="armhf") != k
    assert rootkey(env, here, tmp_path, "make", release="testing") != k
    # the root's suites (the mirror's: host/apt.sh suites)
    assert rootkey(env, here, tmp_path, "make", sources="deb http://deb.example/debian trixie "
                   "main\ndeb http://deb.example/debian trixie-updates main") != k
    # the bytes of each script that makes it
    for f in ["rootfs.sh", "apt.sh", "inroot.sh", "binfmt.sh", "rootcache.sh"]:
        with open(here / f, "a") as fh:
            fh.write("\n")
        k2 = rootkey(env, here, tmp_path, "make")
        assert k2 != k, f
        k = k2
    # what was asked of the root before counts too (DIR/.rootfs-asked)
    (tmp_path / "root" / ".rootfs-asked").write_text("pkg gcc\n")
    assert rootkey(env, here, tmp_path, "make") == rootkey(env, here, tmp_path, "make", "gcc")


def test_get_put_copy(env, tmp_path):
    src = tree(tmp_path / "src", "one", 1000)
    assert cache(env, "get", "roots", "k1", str(tmp_path / "d")).returncode == 1
    assert not (tmp_path / "d").exists()
    cache(env, "put", "roots", "k1", str(src), check=True)
    cache(env, "get", "roots", "k1", str(tmp_path / "d"), check=True)
    d = tmp_path / "d"
    assert (d / "etc" / "f").read_text() == "one"
    assert os.readlink(d / "link") == "etc/f"
    assert (os.stat(d / "etc" / "f").st_mode & 0o777) == 0o640
    assert (d / "big").read_bytes() == (src / "big").read_bytes()
    # a copy: a build that changes it in place changes nothing in the cache
    assert os.stat(d / "etc" / "f").st_nlink == 1
    (d / "etc" / "f").write_text("changed")
    cache(env, "get", "roots", "k1", str(tmp_path / "d2"), check=True)
    assert (tmp_path / "d2" / "etc" / "f").read_text() == "one"
    # never over something there
    assert cache(env, "get", "roots", "k1", str(d)).returncode == 2
    info = cache(env, "info", check=True).stdout
    assert "roots/k1" in info and "total" in info


def test_partial_or_corrupt_entry_is_not_used(env, tmp_path):
    c = tmp_path / "cache"
    src = tree(tmp_path / "src", "one", 100000)
    cache(env, "put", "roots", "k1", str(src), check=True)
    e = c / "roots" / "k1"
    # a writer killed before its manifest: the entry is not there
    (e / "manifest").rename(e / "manifest.gone")
    assert cache(env, "get", "roots", "k1", str(tmp_path / "d")).returncode == 1
    assert not (tmp_path / "d").exists() and not (tmp_path / "d.part").exists()
    (e / "manifest.gone").rename(e / "manifest")
    # an archive cut short: never extracted, removed
    data = (e / "data.tar.zst").read_bytes()
    (e / "data.tar.zst").write_bytes(data[:len(data) // 2])
    r = cache(env, "get", "roots", "k1", str(tmp_path / "d"))
    assert r.returncode == 1 and "corrupt" in r.stderr
    assert not (tmp_path / "d").exists() and not (tmp_path / "d.part").exists()
    assert not e.exists()
    # one byte changed, same size
    cache(env, "put", "roots", "k1", str(src), check=True)
    b = bytearray((e / "data.tar.zst").read_bytes())
    b[len(b) // 2] ^= 1
    (e / "data.tar.zst").write_bytes(bytes(b))
    assert cache(env, "get", "roots", "k1", str(tmp_path / "d")).returncode == 1
    assert not (tmp_path / "d").exists()
    # a writer's unfinished entry in tmp/ is nobody's entry
    assert not any(p.name == "k1" for p in (c / "roots").iterdir())


def test_concurrent_writers_and_readers(env, tmp_path):
    a = tree(tmp_path / "a", "from a", 3 << 20)
    b = tree(tmp_path / "b", "from b", 3 << 20)
    procs = [subprocess.Popen(["sh", CACHE_SH, "put", "roots", "k", str(s)], env=env,
                              stderr=subprocess.PIPE, text=True) for s in (a, b)]
    got = []
    deadline = time.time() + 60
    n = 0
    while any(p.poll() is None for p in procs) and time.time() < deadline:
        d = tmp_path / ("r%d" % n)
        n += 1
        if cache(env, "get", "roots", "k", str(d)).returncode == 0:
            got.append(d)
        else:
            assert not d.exists()
    for p in procs:
        assert p.wait(60) == 0, p.stderr.read()
    for i in range(2):
        d = tmp_path / ("after%d" % i)
        cache(env, "get", "roots", "k", str(d), check=True)
        got.append(d)
    for d in got:
        text = (d / "etc" / "f").read_text()
        assert text in ("from a", "from b")
        src = a if text == "from a" else b
        assert (d / "big").read_bytes() == (src / "big").read_bytes()
    # one entry, no writer's leftovers
    assert os.listdir(tmp_path / "cache" / "roots") == ["k"]
    assert os.listdir(tmp_path / "cache" / "tmp") == []


def test_off_and_bound(env, tmp_path):
    src = tree(tmp_path / "src", "one", 200000)
    off = dict(env, GPIOLAT_CACHE="")
    assert cache(off, "dir").returncode == 1
    cache(off, "put", "roots", "k1", str(src), check=True)
    assert cache(off, "get", "roots", "k1", str(tmp_path / "d")).returncode == 1
    assert not (tmp_path / "cache").exists()
    # the bound: three entries of about 200 kB under 500 kB: the least recently used goes
    bound = dict(env, GPIOLAT_CACHE_MAX="500K")
    for k in ("k1", "k2"):
        cache(bound, "put", "roots", k, str(src), check=True)
        time.sleep(1.1)
    cache(bound, "get", "roots", "k1", str(tmp_path / "d"), check=True)  # k1 used last
    time.sleep(1.1)
    r = cache(bound, "put", "roots", "k3", str(src), check=True)
    assert "evicted roots/k2" in r.stderr
    assert sorted(os.listdir(tmp_path / "cache" / "roots")) == ["k1", "k3"]
    assert cache(dict(env, GPIOLAT_CACHE_MAX="lots"), "put", "roots", "k4",
                 str(src)).returncode == 2
    cache(env, "clean", check=True)
    assert os.listdir(tmp_path / "cache") == [".lock"]


def test_off_without_zstd(env, tmp_path):
    """a machine without zstd (a fresh Debian 13 minbase, before host/deps.sh): the cache is
    off, a put says why in one line and succeeds (the step goes on without it)"""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for d in ("/usr/local/bin", "/usr/bin", "/bin"):
        for n in os.listdir(d) if os.path.isdir(d) else ():
            if n != "zstd" and not (bin_ / n).exists():
                os.symlink(os.path.join(d, n), bin_ / n)
    e = dict(env, PATH=str(bin_))
    src = tree(tmp_path / "src", "one")
    assert cache(e, "dir").returncode == 1
    r = cache(e, "put", "roots", "k1", str(src), check=True)
    assert r.stderr == "host/cache.sh: the cache is off: no zstd (sh host/deps.sh installs it)\n"
    assert cache(e, "get", "roots", "k1", str(tmp_path / "d")).returncode == 1
    assert not (tmp_path / "cache").exists()


FP = r'''
set -eu
here=$1 dir=$2
. "$here/rootcache.sh"
rc_fp
'''


def test_root_listing_sees_changes_but_not_others_additions(tmp_path):
    root = tmp_path / "root"
    for d in ["etc/apt", "var/lib/apt/lists", "tmp", "usr/bin", "usr/lib"]:
        os.makedirs(root / d)
    os.symlink("usr/lib", root / "lib")
    (root / "usr/bin/tool").write_text("x")

    def fp():
        r = subprocess.run(["sh", "-c", FP, "fp", os.path.join(ROOT, "host"), str(root)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    f = fp()
    (root / "var/lib/apt/lists/x_InRelease").write_text("new index")
    os.makedirs(root / "usr/lib/modules/6.12.57+deb13-amd64")  # modules/ itself new too
    (root / "tmp/cc1.s").write_text("")
    (root / "etc/apt/gpiolat-armhf.list").write_text("deb x")
    (root / ".rootfs-cached").write_text("x")
    os.makedirs(root / ROOT.lstrip("/"))  # the project's mount point (host/inroot.sh)
    assert fp() == f
    (root / "usr/bin/tool").write_text("y")
    assert fp() != f
    f = fp()
    (root / "usr/bin/new").write_text("")
    assert fp() != f
    f = fp()
    os.chmod(root / "usr/bin/new", 0o755)
    assert fp() != f
