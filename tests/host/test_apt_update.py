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
its packages from the good suite after naming the index it went without. About 10 s.

A root's suites (host/apt.sh suites: host/rootfs.sh writes its sources.list from them, and the
content cache's apt that resolves its key, host/rootcache.sh, reads the same lines), on a local
mirror signed by a key of the test's own (gpg): -updates and -security are taken by what the
mirror has (a Release file signed by the keyring's key, naming the release's Codename with the
suffix), never by the release's name, and one left out is said with why (absent, signed by
another key, another Codename); the root's key is resolved on those suites with -updates
mid-sync (its index gone without, named). About 10 s. The roots' and the kernels' apt steps
(host/rootfs.sh, vm/kernel.sh) under a suite mid-sync, in a real root:
test_debian13_targets.py. And the host's apt with a parsed cache of its own where its
configuration keeps none (host/apt.sh cacheopts): the same answers from it.
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


def write_suite(d, name, codename, packages, lie=0, label=None):
    """D (a dists/NAME folder) with PACKAGES ({arch: text}) and a Release file naming CODENAME
    (and LABEL, when given); LIE: bytes added to each size the Release file names (a mirror
    mid-sync)"""
    sums = []
    for arch, text in packages.items():
        rel = "main/binary-%s/Packages" % arch
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
        b = text.encode()
        sums.append(" %s %d %s" % (hashlib.sha256(b).hexdigest(), len(b) + lie, rel))
    (d / "Release").write_text(
        "%sSuite: %s\nCodename: %s\nArchitectures: %s\nComponents: main\n"
        "Date: Thu, 26 Nov 2026 00:00:00 UTC\nSHA256:\n%s\n"
        % ("Label: %s\n" % label if label else "", name, codename, " ".join(packages),
           "\n".join(sums)))


def suite(tmp, name, packages, lie=0):
    """dists/NAME in the unsigned mirror ("repo"), its Codename NAME"""
    write_suite(tmp / "repo/dists" / name, name, name, packages, lie)


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


def counted_apt(tmp_path, env):
    """ENV with apt-get behind a shim that records each call's first argument (apt.sh's
    updates counted exactly), and the file it records them in"""
    shim = tmp_path / "shim"
    shim.mkdir()
    calls = tmp_path / "apt-calls"
    (shim / "apt-get").write_text('#!/bin/sh\necho "$*" >>%s\nexec /usr/bin/apt-get "$@"\n' % calls)
    (shim / "apt-get").chmod(0o755)
    return dict(env, PATH="%s:%s" % (shim, env["PATH"])), calls


def updates(calls):
    return [c for c in calls.read_text().splitlines() if c.endswith("update -qq")]


def test_update_mid_sync_alone_is_not_tried_again(apt, tmp_path):
    """a suite mid-sync is gone without at the first try (a second one, APT_RETRY_S later,
    would find the mirror still syncing); an unreachable source is tried again"""
    env, calls = counted_apt(tmp_path, apt())
    env["APT_RETRY_S"] = "600"
    r = run(["sh", "host/apt.sh", "update", "test apt"], env)
    assert r.returncode == 0, r.stderr
    assert "/dists/sync/main/binary-armhf/" in r.stderr, r.stderr
    assert len(updates(calls)) == 1, calls.read_text()
    with open(tmp_path / "etc/sources.list", "a") as f:
        f.write("deb [trusted=yes] http://127.0.0.1:9/debian gone main\n")
    calls.unlink()
    env["APT_RETRY_S"] = "0"
    r = run(["sh", "host/apt.sh", "update", "test apt"], env)
    assert r.returncode == 0, r.stderr
    assert "http://127.0.0.1:9/debian/dists/gone/" in r.stderr, r.stderr
    assert len(updates(calls)) == 2, calls.read_text()


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


# ---- a root's suites (host/apt.sh suites, host/rootfs.sh, host/rootcache.sh) -----------------
# A local mirror signed with a key of the test's own (gpg, in a GNUPGHOME of its own): "rel"
# (Codename rel), "rel-updates" (Codename rel-updates, its indexes mid-sync: its signed Release
# file names other sizes than its Packages files have) and, on the "security mirror",
# "rel-security" as each test makes it (absent, signed by another key, another Codename).

def gpg(home, *args, **kw):
    """gpg in HOME; the agent it starts is stopped after it (none left running by the tests)"""
    try:
        return subprocess.run(["gpg", "--homedir", str(home), "--batch", "--pinentry-mode",
                               "loopback", "--passphrase", ""] + list(args), check=True,
                              capture_output=True, **kw)
    finally:
        subprocess.run(["gpgconf", "--homedir", str(home), "--kill", "all"],
                       capture_output=True)


def key(tmp, name):
    """a signing key in TMP/gpg-NAME; its public keyring file"""
    home = tmp / ("gpg-" + name)
    home.mkdir(mode=0o700)
    gpg(home, "--quick-gen-key", "gpiolat test %s <%s@localhost>" % (name, name), "ed25519",
        "sign", "never")
    ring = tmp / ("%s.gpg" % name)
    ring.write_bytes(gpg(home, "--export").stdout)
    return home, ring


def signed_suite(tmp, repo, name, codename, packages, home, lie=0, label=None):
    """dists/NAME in REPO (Codename CODENAME, Label LABEL), its InRelease signed by HOME's key"""
    d = tmp / repo / "dists" / name
    write_suite(d, name, codename, packages, lie, label)
    gpg(home, "--clearsign", "-o", str(d / "InRelease"), str(d / "Release"))


@pytest.fixture
def mirror(tmp_path):
    """the signed mirror ("repo") and security mirror ("security"); SECURITY: how rel-security
    is there ("absent", "other-key", "other-codename", "good")"""
    if not shutil.which("gpg"):
        pytest.skip("needs gpg (host/deps.sh)")

    def make(security):
        home, ring = key(tmp_path, "archive")
        make_ = deb(tmp_path, "make", NATIVE)
        pkgs = {NATIVE: deb(tmp_path, "apt", NATIVE) + make_}
        signed_suite(tmp_path, "repo", "rel", "rel", pkgs, home)
        newer = {NATIVE: make_.replace("Version: 1.0", "Version: 1.1")}
        signed_suite(tmp_path, "repo", "rel-updates", "rel-updates", newer, home, lie=7)
        (tmp_path / "security").mkdir()
        if security == "other-key":
            other, _ = key(tmp_path, "other")
            signed_suite(tmp_path, "security", "rel-security", "rel-security", pkgs, other)
        elif security == "other-codename":
            signed_suite(tmp_path, "security", "rel-security", "rel2-security", pkgs, home)
        elif security == "good":
            signed_suite(tmp_path, "security", "rel-security", "rel-security", pkgs, home)
        return ("file:%s/repo" % tmp_path, "file:%s/security" % tmp_path, str(ring))
    return make


def suites(main, security, ring, release="rel"):
    return run(["sh", "host/apt.sh", "suites", release, main, security, ring, "test root"],
               dict(os.environ, APT_RETRY_S="0"))


@pytest.mark.parametrize("security,why", [
    ("absent", "does not have a Release file"),
    ("other-key", "InRelease' is not signed"),
    ("other-codename", "its Release file's Codename is rel2-security, not rel-security"),
    ("good", None)])
def test_root_suites_are_what_the_mirror_has(mirror, security, why):
    """the suites by their signed Release files: -updates taken (its indexes mid-sync do not
    matter here: its Release file is there and signed), -security only when it is there, signed
    by the keyring's key and named the release's; a suite left out is said with why"""
    main, sec, ring = mirror(security)
    r = suites(main, sec, ring)
    assert r.returncode == 0, r.stderr
    want = ["deb %s rel main" % main, "deb %s rel-updates main" % main]
    if why is None:
        want.append("deb %s rel-security main" % sec)
        assert "left out" not in r.stderr, r.stderr
        assert "test root: suites rel rel-updates rel-security " in r.stderr, r.stderr
    else:
        left = [ln for ln in r.stderr.splitlines() if "left out" in ln]
        assert len(left) == 1 and "test root: suite rel-security left out (" in left[0], r.stderr
        assert why in left[0], r.stderr
        assert "test root: suites rel rel-updates (" in r.stderr, r.stderr
    assert r.stdout.splitlines() == want


def test_root_suites_of_a_release_without_signed_release_file(mirror):
    """the release itself not verified (another keyring): no line, one error line, status 1;
    a release the mirror has not (whatever its name): status 2"""
    main, sec, ring = mirror("good")
    other = os.path.join(os.path.dirname(ring), "none.gpg")
    with open(other, "wb"):
        pass
    r = suites(main, sec, other)
    assert r.returncode == 1 and r.stdout == "", r.stdout + r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(
        "host/apt.sh: %s has no release 'rel' whose Release file %s verifies (" % (main, other)), \
        r.stderr
    assert "InRelease' is not signed" in r.stderr, r.stderr
    for name in ("trixie", "rel2"):
        r = suites(main, sec, ring, release=name)
        assert r.returncode == 2 and r.stdout == "", r.stdout + r.stderr
        assert r.stderr.count("\n") == 1 and "does not have a Release file" in r.stderr, r.stderr


def test_root_suites_main_only(mirror):
    """--main-only: the release's line alone, its Release file checked, nothing left out said"""
    main, sec, ring = mirror("good")
    r = run(["sh", "host/apt.sh", "suites", "--main-only", "rel", main, sec, ring, "test root"],
            dict(os.environ, APT_RETRY_S="0"))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["deb %s rel main" % main]
    assert "left out" not in r.stderr and "test root: suites rel (" in r.stderr, r.stderr


ROOTRESOLVE = r'''
set -eu
here=$1 dir=$2 ring=$3 main=$4 security=$5
release=rel rarch= archs= script=$here/rootfs.sh sources=
. "$here/rootcache.sh"
# host/rootfs.sh's root_sources (the probe), the lines signed by the test's key for this apt
root_sources() {
	[ -n "$sources" ] || sources=$(sh "$here/apt.sh" suites rel "$main" "$security" "$ring" "$dir" |
		sed "s|^deb |deb [signed-by=$ring] |")
}
rc_keyof make
echo "key $rc_key"
'''


def test_root_key_resolves_on_the_root_suites_with_one_mid_sync(mirror, tmp_path):
    """the content cache's apt (host/rootcache.sh) reads the root's own lines (one writer: the
    suites above), goes without rel-updates' index (mid-sync: named) and resolves make from
    rel; the key's inputs name the suites"""
    main, sec, ring = mirror("absent")
    (tmp_path / "root").mkdir()
    env = dict(os.environ, APT_RETRY_S="0", GPIOLAT_CACHE=str(tmp_path / "cache"))
    r = run(["sh", "-c", ROOTRESOLVE, "rr", os.path.join(ROOT, "host"), str(tmp_path / "root"),
             ring, main, sec], env)
    assert r.returncode == 0, r.stderr
    assert re.search(r"^key [0-9a-f]{32}$", r.stdout, re.M), r.stdout + r.stderr
    gone = [ln for ln in r.stderr.splitlines() if "went without" in ln]
    assert any("/repo/dists/rel-updates/main/binary-%s/Packages" % NATIVE in ln for ln in gone), \
        r.stderr
    assert not any("/dists/rel/" in ln for ln in gone), r.stderr
    inputs = (tmp_path / "root.cache-inputs").read_text().splitlines()
    assert "suites rel rel-updates" in inputs
    assert "resolved make 1.0 %s" % NATIVE in inputs, inputs
    a = tmp_path / "cache" / "apt" / ("rel-%s@rel+rel-updates" % NATIVE)
    assert (a / "sources.list").read_text().splitlines() == [
        "deb [signed-by=%s] %s rel main" % (ring, main),
        "deb [signed-by=%s] %s rel-updates main" % (ring, main)]


# ---- the host's apt with a parsed cache of its own (host/apt.sh cacheopts) ------------------
def test_cacheopts_gives_the_same_answers_from_the_trees_cache(tmp_path):
    """host/apt.sh cacheopts: where the host's apt keeps no parsed cache of its indexes
    (Dir::Cache::pkgcache "": Debian's container images), the options of one in the tree's
    out/apt-host, with which apt answers as it does without, and again from that cache once made;
    where it keeps one, nothing; under another apt (APT_CONFIG), nothing"""
    env = {k: v for k, v in os.environ.items() if k != "APT_CONFIG"}
    r = run(["sh", "host/apt.sh", "cacheopts"], env)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    own = run(["apt-config", "shell", "p", "Dir::Cache::pkgcache"], env).stdout.strip()
    if own in ("", "p=''"):
        d = os.path.join(ROOT, "out", "apt-host")
        assert r.stdout.split() == ["-o", "Dir::Cache::pkgcache=%s/pkgcache.bin" % d,
                                    "-o", "Dir::Cache::srcpkgcache=%s/srcpkgcache.bin" % d]
        ask = ["policy", "dpkg", "apt", "bash"]
        plain = run(["apt-cache"] + ask, env)
        assert plain.returncode == 0 and "Candidate:" in plain.stdout, plain.stderr
        for _ in range(2):
            cached = run(["apt-cache"] + r.stdout.split() + ask, env)
            assert cached.returncode == 0, cached.stderr
            assert cached.stdout == plain.stdout
            assert os.path.getsize(os.path.join(d, "pkgcache.bin")) > 0
    else:
        assert r.stdout == ""
    (tmp_path / "apt.conf").write_text('Dir::Cache "%s";\n' % tmp_path)
    r = run(["sh", "host/apt.sh", "cacheopts"], dict(env, APT_CONFIG=str(tmp_path / "apt.conf")))
    assert r.returncode == 0 and r.stdout == "", r.stdout + r.stderr
