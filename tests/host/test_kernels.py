"""Host side: the target kernels (vm/kernel.sh) and what the project builds for each of them.

- the toggle module builds without a single warning against each target kernel's headers (6.1
  has gpiochip_find(); 6.12 has gpio_device_find() instead and -Wmissing-prototypes on), and
  kmod/Kbuild's compile test picks the chip lookup the headers declare;
- vm/modorder.sh orders modules by modules.dep, and the initramfs vm/initramfs.sh builds for
  each kernel loads every module after all that its modules.dep says it needs (6.1 and 6.12
  differ: on 6.12 9pnet needs netfs).
A kernel whose target was not made (make target KERNEL=...) is skipped; make test makes them all.
"""
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNELS = ["std", "rt", "6.12", "6.12-rt"]


def kdir(kernel):
    return os.path.join(ROOT, "out", "target", "x86_64-" + kernel)


def release(kernel):
    path = os.path.join(kdir(kernel), "release")
    if not os.path.exists(path):
        pytest.skip(f"no {kernel} target: run 'make target KERNEL={kernel}' first")
    with open(path) as f:
        return f.read().strip()


def modorder(moddir, *names):
    r = subprocess.run(["sh", os.path.join(ROOT, "vm", "modorder.sh"), moddir, *names],
                       capture_output=True, text=True, check=True)
    return r.stdout.split(), r.stderr


def modname(path):
    return re.sub(r"\.ko(\.[a-z]+)?$", "", os.path.basename(path)).replace("-", "_")


def read_dep(moddir):
    deps = {}
    with open(os.path.join(moddir, "modules.dep")) as f:
        for line in f:
            mod, _, rest = line.partition(":")
            deps[modname(mod)] = [modname(d) for d in rest.split()]
    return deps


# ---- vm/modorder.sh on made-up modules.dep files: orders that only the file gives ----------

def write_moddir(tmp_path, dep, builtin=""):
    (tmp_path / "modules.dep").write_text(dep)
    (tmp_path / "modules.builtin").write_text(builtin)
    return str(tmp_path)


def test_modorder_puts_each_module_after_what_it_needs(tmp_path):
    # 6.12's shape: 9pnet needs netfs; virtio is built in
    moddir = write_moddir(tmp_path, "kernel/fs/9p/9p.ko.xz: kernel/net/9p/9pnet.ko.xz "
                          "kernel/fs/netfs/netfs.ko.xz\n"
                          "kernel/net/9p/9pnet.ko.xz: kernel/fs/netfs/netfs.ko.xz\n"
                          "kernel/fs/netfs/netfs.ko.xz:\n"
                          "kernel/net/9p/9pnet_virtio.ko.xz: kernel/net/9p/9pnet.ko.xz "
                          "kernel/fs/netfs/netfs.ko.xz\n",
                          "kernel/drivers/virtio/virtio.ko\nkernel/drivers/virtio/virtio_pci.ko\n")
    out, err = modorder(moddir, "virtio_pci", "9pnet_virtio", "9p")
    assert out == ["kernel/fs/netfs/netfs.ko.xz", "kernel/net/9p/9pnet.ko.xz",
                   "kernel/net/9p/9pnet_virtio.ko.xz", "kernel/fs/9p/9p.ko.xz"]
    assert err == ""  # virtio_pci is built in: left out without a word


def test_modorder_follows_a_different_kernel_differently(tmp_path):
    # 6.1's shape: 9pnet needs nothing, 9p needs fscache which needs netfs; '-' and '_' alike
    moddir = write_moddir(tmp_path, "kernel/fs/9p/9p.ko: kernel/net/9p/9pnet.ko "
                          "kernel/fs/fscache/fscache.ko kernel/fs/netfs/netfs.ko\n"
                          "kernel/net/9p/9pnet.ko:\n"
                          "kernel/fs/fscache/fscache.ko: kernel/fs/netfs/netfs.ko\n"
                          "kernel/fs/netfs/netfs.ko:\n"
                          "kernel/drivers/virtio/virtio-ring.ko:\n")
    out, _ = modorder(moddir, "9pnet", "9p", "virtio_ring")
    assert out == ["kernel/net/9p/9pnet.ko", "kernel/fs/netfs/netfs.ko",
                   "kernel/fs/fscache/fscache.ko", "kernel/fs/9p/9p.ko",
                   "kernel/drivers/virtio/virtio-ring.ko"]


def test_modorder_says_when_a_module_is_nowhere(tmp_path):
    moddir = write_moddir(tmp_path, "kernel/net/9p/9pnet.ko:\n")
    out, err = modorder(moddir, "9pnet", "no_such_module")
    assert out == ["kernel/net/9p/9pnet.ko"]
    assert "no_such_module is neither in modules.dep nor built in" in err


# ---- the initramfs of each target kernel -----------------------------------------------------

@pytest.mark.parametrize("kernel", KERNELS)
def test_initramfs_loads_modules_in_modules_dep_order(kernel, tmp_path):
    rel = release(kernel)
    moddir = os.path.join(kdir(kernel), "root", "lib", "modules", rel)
    out = tmp_path / "initramfs.cpio.gz"
    subprocess.run(["sh", os.path.join(ROOT, "vm", "initramfs.sh"), kdir(kernel), str(out)],
                   check=True)
    listing = subprocess.run(f"gzip -dc {out} | cpio -t --quiet", shell=True, check=True,
                             capture_output=True, text=True).stdout.split()
    # vm/init loads /modules/*.ko in the order of their names ("01-netfs.ko", ...)
    loaded = [re.sub(r"^\d+_", "", modname(p)) for p in sorted(listing)
              if p.startswith("modules/") and p.endswith(".ko")]
    deps = read_dep(moddir)
    builtin = set()
    with open(os.path.join(moddir, "modules.builtin")) as f:
        builtin = {modname(line.strip()) for line in f}
    for need in ("9p", "9pnet_virtio", "virtio_console", "virtio_pci"):
        assert need in loaded or need in builtin, f"{need} neither loaded nor built in"
    for i, m in enumerate(loaded):
        missing = [d for d in deps[m] if d not in loaded[:i]]
        assert not missing, f"{kernel}: {m} is loaded before {missing} ({loaded})"


# ---- the toggle module against each target kernel's headers ----------------------------------

@pytest.mark.parametrize("kernel", KERNELS)
def test_module_builds_without_warnings(kernel, tmp_path):
    release(kernel)
    with open(os.path.join(kdir(kernel), "build")) as f:
        build = f.read().strip()
    # the module is built as the Makefile builds it: another release's kernel (Debian 13's
    # 6.12) in a root of that release, with its compiler (vm/kernel.sh: DIR/buildroot, DIR/cc)
    make = ["make"]
    buildroot = os.path.join(kdir(kernel), "buildroot")
    if os.path.exists(buildroot):
        with open(buildroot) as f, open(os.path.join(kdir(kernel), "cc")) as g:
            make = ["sh", os.path.join(ROOT, "host", "inroot.sh"), f.read().strip(), "make",
                    "CC=" + g.read().strip()]
        tmp_path = tmp_path.__class__(os.path.join(kdir(kernel), "kmod-test"))
        shutil.rmtree(tmp_path, ignore_errors=True)  # the root sees the project, not /tmp
    src = tmp_path / "kmod"
    shutil.copytree(os.path.join(ROOT, "kmod"), src)
    r = subprocess.run(make + ["-C", build, f"M={src}", "modules"], capture_output=True,
                       text=True)
    log = r.stdout + r.stderr
    assert r.returncode == 0, log
    assert not re.search(r"warning", log, re.I), log
    assert (src / "toggle.ko").exists()
    # the compile test picked what the headers declare (Debian's build folder's Makefile
    # includes the source tree's: "include /usr/src/linux-headers-...-common/Makefile")
    with open(os.path.join(build, "Makefile")) as f:
        srctree = re.search(r"^include (\S+)/Makefile", f.read(), re.M).group(1)
    with open(os.path.join(srctree, "include", "linux", "gpio", "driver.h")) as f:
        has_gdev_find = "gpio_device_find(" in f.read()
    want = "gpio_device_find()" if has_gdev_find else "gpiochip_find()"
    assert f"toggle: chip lookup by {want}" in log
