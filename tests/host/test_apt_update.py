"""A suite caught mid-sync never fails a package step whose packages the other indexes provide.

The apt of each test is its own (APT_CONFIG: its sources, lists, cache and an empty dpkg status
in a temporary folder; the host's sources, lists and dpkg state are read by nothing here and
left as they were), with
two local repositories (file: URIs, no network, [trusted=yes]: no signature to simulate):
- "good": the packages, one of them Architecture: all as Debian 13's linux-libc-dev is;
- "sync": a suite whose Release file names other sizes than its Packages files have, as a
  mirror mid-sync serves them (apt: "Hash Sum mismatch" here, "File has unexpected size ...
  Mirror sync in progress?" over http: both "Failed to fetch" lines).
host/apt.sh update goes on and names the index it went without; host/sysroot.sh (a real step:
it updates the lists when apt knows none of its packages yet, picks PKG:armhf or PKG by what apt
says, downloads and extracts) builds its sysroot from the good suite; a package that no index
provides fails it with one line naming the package; host/deps.sh --build, on a machine that is a
folder (dpkg's root and database the test's own: DPKG_ROOT, DPKG_ADMINDIR), installs every one of
its packages from the good suite after naming the index it went without. About 10 s. The roots'
and the kernels' apt steps (host/rootfs.sh, vm/kernel.sh) under a suite mid-sync:
test_debian13_targets.py.
"""
import hashlib
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# host/sysroot.sh's packages (its pkgs list): all in "good", linux-libc-dev as Architecture: all
SYSROOT_PKGS = ["libbpf-dev", "libelf-dev", "zlib1g-dev", "libtracefs-dev", "libtraceevent-dev",
                "libjson-c-dev", "libgpiod-dev", "linux-libc-dev", "busybox-static"]

NATIVE = subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                        text=True).stdout.strip() if shutil.which("dpkg") else ""

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("apt-get") or not shutil.which("dpkg-deb"),
    reason="needs root, apt-get and dpkg-deb (a Debian host)")


def deb(tmp, name, arch):
    """a small .deb NAME_1.0_ARCH.deb (one file, /usr/share/doc/NAME/probe) in TMP/repo/pool"""
    src = tmp / "src" / name
    (src / "DEBIAN").mkdir(parents=True)
    (src / "usr/share/doc" / name).mkdir(parents=True)
    (src / "usr/share/doc" / name / "probe").write_text(name + "\n")
    (src / "DEBIAN/control").write_text(
        "Package: %s\nVersion: 1.0\nArchitecture: %s\nMulti-Arch: %s\nMaintainer: gpiolat "
        "<gpiolat@localhost>\nDescription: test package\n"
        % (name, arch, "foreign" if arch == "all" else "same"))
    pool = tmp / "repo/pool"
    pool.mkdir(parents=True, exist_ok=True)
    out = pool / ("%s_1.0_%s.deb" % (name, arch))
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-b", str(src), str(out)],
                   check=True, capture_output=True)
    data = out.read_bytes()
    return ("Package: %s\nVersion: 1.0\nArchitecture: %s\nMulti-Arch: %s\nMaintainer: gpiolat "
            "<gpiolat@localhost>\nFilename: pool/%s\nSize: %d\nSHA256: %s\n"
            "Description: test package\n\n"
            % (name, arch, "foreign" if arch == "all" else "same", out.name, len(data),
               hashlib.sha256(data).hexdigest()))


def suite(tmp, name, packages, lie=0):
    """dists/NAME with PACKAGES ({arch: text}) and a Release file; LIE: bytes added to each
    size the Release file names (a mirror mid-sync)"""
    d = tmp / "repo/dists" / name
    sums = []
    for arch, text in packages.items():
        rel = "main/binary-%s/Packages" % arch
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
        b = text.encode()
        sums.append(" %s %d %s" % (hashlib.sha256(b).hexdigest(), len(b) + lie, rel))
    (d / "Release").write_text(
        "Suite: %s\nCodename: %s\nArchitectures: %s\nComponents: main\n"
        "Date: Thu, 26 Nov 2026 00:00:00 UTC\nSHA256:\n%s\n"
        % (name, name, " ".join(packages), "\n".join(sums)))


@pytest.fixture
def apt(tmp_path):
    """the test's own apt: its environment (APT_CONFIG), over "good" and "sync" (mid-sync);
    "good" has every sysroot package but MISSING (set by the test before the first update)"""
    def make(missing=(), good=None, arch="armhf"):
        """GOOD: the packages of "good" instead of the sysroot's, of architecture ARCH"""
        if good is None:
            text = "".join(deb(tmp_path, p, "all" if p == "linux-libc-dev" else "armhf")
                           for p in SYSROOT_PKGS if p not in missing)
        else:
            text = "".join(deb(tmp_path, p, arch) for p in good)
        indexes = {"amd64": "", "armhf": ""}
        indexes[arch] = text
        suite(tmp_path, "good", indexes)
        suite(tmp_path, "sync", dict(indexes, **{arch: deb(tmp_path, "other", arch)}), lie=7)
        etc = tmp_path / "etc"
        (etc / "sources.list.d").mkdir(parents=True)
        (etc / "sources.list").write_text(
            "deb [trusted=yes] file:%s/repo good main\n"
            "deb [trusted=yes] file:%s/repo sync main\n" % (tmp_path, tmp_path))
        for d in ("lists/partial", "cache/archives/partial"):
            (tmp_path / d).mkdir(parents=True)
        conf = tmp_path / "apt.conf"
        conf.write_text(
            'Dir::Etc::SourceList "%s/sources.list";\n'
            'Dir::Etc::SourceParts "%s/sources.list.d";\n'
            'Dir::State::Lists "%s/lists";\nDir::Cache "%s/cache";\n'
            'Dir::State::status "%s/status";\n'
            'APT::Architecture "%s";\n'
            'APT::Architectures { "%s"; };\nAPT::Sandbox::User "root";\n'
            'Acquire::Retries "0";\n'
            % (etc, etc, tmp_path, tmp_path, tmp_path, NATIVE, '"; "'.join(indexes)))
        (tmp_path / "status").write_text("")
        # (the content cache the test's own: host/sysroot.sh stores what it extracted)
        env = dict(os.environ, APT_CONFIG=str(conf), APT_RETRY_S="0",
                   GPIOLAT_CACHE=str(tmp_path / "cache"))
        return env
    return make


def run(args, env, cwd=ROOT):
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)


def host_lists():
    """the host's apt lists: names and times (unchanged by these tests)"""
    d = "/var/lib/apt/lists"
    return sorted((f, os.stat(os.path.join(d, f)).st_mtime_ns) for f in os.listdir(d))


def test_update_goes_without_the_suite_mid_sync(apt, tmp_path):
    env = apt()
    # and a source that cannot be reached (apt exits 0 then, with a warning)
    with open(tmp_path / "etc/sources.list", "a") as f:
        f.write("deb [trusted=yes] http://127.0.0.1:9/debian gone main\n")
    before = host_lists()
    r = run(["sh", "host/apt.sh", "update", "test apt"], env)
    assert r.returncode == 0, r.stderr
    gone = [ln for ln in r.stderr.splitlines() if "went without" in ln]
    # the mid-sync suite's armhf index named (its amd64 one too), the good suite's never
    assert any("/repo/dists/sync/main/binary-armhf/Packages" in ln and "(test apt:" in ln
               for ln in gone), r.stderr
    assert any("http://127.0.0.1:9/debian/dists/gone/" in ln for ln in gone), r.stderr
    assert not any("/dists/good/" in ln for ln in r.stderr.splitlines()), r.stderr
    # what the good suite has: PKG:armhf, and PKG alone for an Architecture: all package
    r = run(["sh", "host/apt.sh", "pick", "armhf", "libbpf-dev", "linux-libc-dev"], env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["libbpf-dev:armhf=1.0", "linux-libc-dev=1.0"]
    # and apt downloads them
    dl = tmp_path / "dl"
    dl.mkdir()
    r = run(["apt-get", "download", "-qq"] + r.stdout.split(), env, cwd=dl)
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(dl)) == ["libbpf-dev_1.0_armhf.deb", "linux-libc-dev_1.0_all.deb"]
    assert host_lists() == before


def test_sysroot_built_from_the_indexes_that_downloaded(apt, tmp_path):
    env = apt()
    sysroot = tmp_path / "sysroot"
    r = run(["sh", "host/sysroot.sh", "arm", str(sysroot)], env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "went without" in r.stderr and "/dists/sync/main/binary-armhf/" in r.stderr, r.stderr
    for p in SYSROOT_PKGS:
        assert (sysroot / "usr/share/doc" / p / "probe").read_text() == p + "\n"
    assert "linux-libc-dev=1.0" in (sysroot / ".done").read_text().split()
    # a second run with the same versions does nothing
    r = run(["sh", "host/sysroot.sh", "arm", str(sysroot)], env)
    assert r.returncode == 0 and r.stdout == "" and "SYSROOT" not in r.stderr, r.stderr


def test_a_package_no_index_has_fails_in_one_line(apt, tmp_path):
    env = apt(missing=("busybox-static",))
    r = run(["sh", "host/sysroot.sh", "arm", str(tmp_path / "sysroot")], env)
    assert r.returncode == 1
    errors = [ln for ln in r.stderr.splitlines() if "went without" not in ln]
    assert errors == ["host/apt.sh: apt knows no busybox-static for armhf"], r.stderr
    assert not (tmp_path / "sysroot").exists()


def test_a_broken_sources_entry_fails_the_update(apt, tmp_path):
    env = apt()
    with open(tmp_path / "etc/sources.list", "a") as f:
        f.write("deb [trusted=yes\n")
    r = run(["sh", "host/apt.sh", "update"], env)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(
        "host/apt.sh: apt-get update failed (this machine's apt): "), r.stderr


# host/deps.sh --build's packages (its build list), every one in "good" as a package of the
# machine's own architecture
def deps_build_pkgs():
    with open(os.path.join(ROOT, "host", "deps.sh")) as f:
        text = f.read()
    m = re.search(r'^build="([^"]*)"', text, re.M)
    assert m, "host/deps.sh has no build list"
    return m.group(1).split()


def test_deps_installs_from_the_indexes_that_downloaded(apt, tmp_path):
    """host/deps.sh --build on a machine that has none of its packages: its update goes without
    the suite mid-sync (named), and every package is installed from the good suite. The
    machine is a folder: dpkg's root and database are the test's own (DPKG_ROOT,
    DPKG_ADMINDIR), the host's dpkg state is read by nothing here and left as it was"""
    native = NATIVE
    pkgs = deps_build_pkgs()
    env = apt(good=pkgs, arch=native)
    root = tmp_path / "root"
    adm = root / "var/lib/dpkg"
    for d in ("info", "updates", "triggers"):
        (adm / d).mkdir(parents=True)
    for f in ("status", "available"):
        (adm / f).write_text("")
    conf = tmp_path / "apt.conf"
    with open(conf, "a") as f:
        f.write('Dir::State::status "%s/status";\nDPkg::Options { "--root=%s"; '
                '"--admindir=%s"; "--force-not-root"; };\n' % (adm, root, adm))
    env = dict(env, DPKG_ROOT=str(root), DPKG_ADMINDIR=str(adm))
    before = host_lists()
    with open("/var/lib/dpkg/status", "rb") as f:
        status = f.read()
    r = run(["sh", "host/deps.sh", "--build"], env)
    assert r.returncode == 0, r.stdout + r.stderr
    gone = [ln for ln in r.stderr.splitlines() if "went without" in ln]
    assert any("/repo/dists/sync/main/binary-%s/Packages" % native in ln for ln in gone), r.stderr
    assert not any("/dists/good/" in ln for ln in r.stderr.splitlines()), r.stderr
    assert "DEPS    installing: " + " ".join(pkgs) in r.stdout, r.stdout
    for p in pkgs:
        assert (root / "usr/share/doc" / p / "probe").read_text() == p + "\n", p
    # a second run finds everything there: no update, nothing installed
    r = run(["sh", "host/deps.sh", "--build"], env)
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stdout + r.stderr
    assert host_lists() == before
    with open("/var/lib/dpkg/status", "rb") as f:
        assert f.read() == status
