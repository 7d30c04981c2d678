"""A root kept in the content cache is stored again after packages and a foreign architecture are
added to it, and a second root asking the same is then taken from the cache (host/rootfs.sh with
host/rootcache.sh).

The roots are small folders standing in for Debian roots (a root's build is minutes): the
commands host/rootfs.sh runs inside one (dpkg --print-foreign-architectures, --add-architecture,
dpkg-query, dpkg-divert: through `chroot`) answer from files in it (a `chroot` of the test's own
first on PATH), and host/inroot.sh (in a copy of host/) records `apt-get install` instead of
running apt there. The content cache's key is host/rootcache.sh's own, resolved by this machine's
apt over a local mirror signed with a key of the test's own (test_apt_update's `mirror`). Checked:
- a clean root asked for a package it lacks and a foreign architecture (`-a armhf`, as
  vm/kernel.sh asks the Debian 13 root of the ARM targets) is still clean when the cache is
  asked for it: after the install it is stored ("stored in the cache"; a root changed before
  that question was never stored again, so every clean clone installed its packages anew);
- a second root, as the first was before, asked the same, comes from the cache under that key,
  with the package and the architecture, and nothing is installed in it;
- the key of a root asked for a foreign architecture alone is resolved on the root's own
  architecture's indexes: with a suite whose armhf index is mid-sync (apt then takes none of
  that suite's indexes, the native ones too) and a package only that suite has (as
  trixie-security's linux-kbuild), the root is still stored (it was "not cached").
About 5 s.
"""
import os
import re
import shutil
import subprocess

import pytest

from test_apt_update import NATIVE, deb, gpg, mirror, write_suite  # noqa: F401 (a fixture)
from test_cache import FP

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or not shutil.which("apt-get") or not shutil.which("zstd")
    or not os.path.exists("/usr/share/debootstrap/scripts/sid"),
    reason="needs root, apt-get, zstd and debootstrap's scripts (host/deps.sh)")

# chroot DIR CMD...: the few dpkg questions host/rootfs.sh asks a root, from DIR's files
CHROOT = r'''#!/bin/sh
d=$1
shift
case $1 in
dpkg-divert) echo "local diversion of /usr/sbin/update-initramfs" ;;
dpkg-query) eval "p=\${$#}"; ! grep -qx "$p" "$d/var/lib/dpkg/installed" || printf installed ;;
dpkg)
	case $2 in
	--print-foreign-architectures) cat "$d/var/lib/dpkg/arch" 2>/dev/null || true ;;
	--add-architecture) echo "$3" >>"$d/var/lib/dpkg/arch" ;;
	*) exit 1 ;;
	esac
	;;
*) exit 1 ;;
esac
'''
# inroot.sh DIR CMD...: apt's update a no-op, its install recorded in DIR
INROOT = r'''#!/bin/sh
d=$1
shift
case "$1 $2" in
"sh "*) exit 0 ;;
"apt-get install") shift 4; for p; do echo "$p" >>"$d/var/lib/dpkg/installed"; done ;;
*) exit 1 ;;
esac
'''


def roots(tmp_path, main, sec, ring, security=False):
    """rootfs(ROOT, PKG..., arch=ARCH) of a copy of host/ whose inroot.sh and chroot answer from
    ROOT's files; made_root(PATH): a root made and clean (its sources the mirror's rel, and its
    rel-security when SECURITY)"""
    here = tmp_path / "host"
    shutil.copytree(os.path.join(ROOT, "host"), here)
    (here / "inroot.sh").write_text(INROOT)
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "chroot").write_text(CHROOT)
    (shim / "chroot").chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (shim, os.environ["PATH"]), APT_RETRY_S="0",
               GPIOLAT_CACHE=str(tmp_path / "cache"), ROOTFS_MIRROR=main,
               ROOTFS_SECURITY_MIRROR=sec, ROOTFS_KEYRING=ring)
    env.pop("GPIOLAT_CACHE_MAX", None)

    def rootfs(root, *pkgs, arch=None):
        opts = ["-a", arch] if arch else []
        r = subprocess.run(["sh", str(here / "rootfs.sh")] + opts + ["rel", str(root)] + list(pkgs),
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stdout + r.stderr
        return r.stdout + r.stderr

    def made_root(path):
        """a root made and clean: done, its sources the mirror's, its listing recorded"""
        for d in ("etc/apt/apt.conf.d", "var/lib/dpkg", "usr/bin"):
            os.makedirs(path / d)
        (path / "usr/bin/tool").write_text("x")
        (path / "var/lib/dpkg/installed").write_text("")
        (path / "etc/apt/sources.list").write_text(
            "deb [signed-by=%s] %s rel main\n" % (ring, main)
            + ("deb [signed-by=%s] %s rel-security main\n" % (ring, sec) if security else ""))
        (path / ".rootfs-sources").write_text("suites\n")
        (path / ".rootfs-done").write_text("rel %s\n" % main)
        rootfs(path)  # (its apt configuration written, as on every call)
        r = subprocess.run(["sh", "-c", FP, "fp", str(here), str(path)], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        (path / ".rootfs-cached").write_text(r.stdout)
        return path

    return rootfs, made_root


def test_root_with_a_foreign_architecture_added_is_stored_and_taken(mirror, tmp_path):  # noqa: F811
    rootfs, made_root = roots(tmp_path, *mirror("good"))
    first, second = made_root(tmp_path / "r1"), made_root(tmp_path / "r2")
    out = rootfs(first, "make", arch="armhf")
    assert "installing make" in out, out
    stored = re.findall(r"stored in the cache \(roots/([0-9a-f]{32})\)", out)
    assert len(stored) == 1, out
    assert (first / "var/lib/dpkg/arch").read_text().split() == ["armhf"]

    out = rootfs(second, "make", arch="armhf")
    assert "from the cache (roots/%s)" % stored[0] in out, out
    assert "installing" not in out, out
    assert (second / "var/lib/dpkg/installed").read_text().split() == ["make"]
    assert (second / "var/lib/dpkg/arch").read_text().split() == ["armhf"]
    # and asked again, nothing to do
    out = rootfs(second, "make", arch="armhf")
    assert "installing" not in out and "from the cache" not in out, out


def test_root_key_of_a_foreign_architecture_alone_reads_native_indexes(mirror, tmp_path):  # noqa: F811
    main, sec, ring = mirror("absent")
    # rel-security: kbuild in its native index (only there), its armhf index mid-sync (its
    # Release file names another size), signed by the mirror's key
    d = tmp_path / "security" / "dists" / "rel-security"
    write_suite(d, "rel-security", "rel-security",
                {NATIVE: deb(tmp_path, "kbuild", NATIVE), "armhf": deb(tmp_path, "other", "armhf")})
    rel = (d / "Release").read_text().splitlines()
    for i, ln in enumerate(rel):
        if ln.endswith(" main/binary-armhf/Packages"):
            h, n, f = ln.split()
            rel[i] = " %s %d %s" % (h, int(n) + 7, f)
    (d / "Release").write_text("\n".join(rel) + "\n")
    gpg(tmp_path / "gpg-archive", "--clearsign", "-o", str(d / "InRelease"), str(d / "Release"))
    rootfs, made_root = roots(tmp_path, main, sec, ring, security=True)
    root = made_root(tmp_path / "r1")
    out = rootfs(root, "make", "kbuild", arch="armhf")
    assert "not cached" not in out, out
    assert "installing make kbuild" in out, out
    assert re.search(r"stored in the cache \(roots/[0-9a-f]{32}\)", out), out
