"""The object without CO-RE (docs/btf.md) needs no kernel BTF, and is the same object otherwise.

libbpf loads the kernel's BTF for an object with CO-RE relocations; gpiolat_nobtf.bpf.o, the one
for a kernel without BTF, must have none (its .BTF.ext's core_relo_len is 0), while the CO-RE
object has them (so the check would see them). Its programs and maps must be the CO-RE object's,
so that one skeleton opens either: compared by their ELF section and symbol names.
"""
import os
import struct
import subprocess

from conftest import ROOT, make

BUILD = os.path.join(ROOT, "out", "build")


def sections(path):
    """{name: bytes} of an ELF64 little-endian relocatable object"""
    d = open(path, "rb").read()
    assert d[:4] == b"\x7fELF" and d[4] == 2 and d[5] == 1, path
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    strtab = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        name = d[strtab + h[0]:d.index(b"\0", strtab + h[0])].decode()
        out[name] = d[h[4]:h[4] + h[5]] if h[1] != 8 else b""  # SHT_NOBITS: no bytes
    return out


def core_relo_len(path):
    ext = sections(path)[".BTF.ext"]
    magic, _, _, hdr_len = struct.unpack_from("<HBBI", ext, 0)
    assert magic == 0xEB9F
    if hdr_len < 32:
        return 0  # no CO-RE part in the header at all
    return struct.unpack_from("<I", ext, 28)[0]


def names(path):
    """the programs' sections and the global symbols: programs, maps, globals (llvm-nm -g)"""
    r = subprocess.run(["llvm-nm", "-g", path], capture_output=True, text=True, check=True)
    syms = sorted(line.split()[-2:] for line in r.stdout.splitlines())
    progs = sorted(s for s in sections(path) if s.startswith(("tp/", "kprobe/", "kretprobe/",
                                                             "fentry/", "?tp", "?kprobe",
                                                             "?kretprobe")))
    return syms, progs


def test_nobtf_object_has_no_core_relocation():
    make("out/build/gpiolat.skel.h")
    make("out/build/gpiolat_nobtf.skel.h")
    core = os.path.join(BUILD, "gpiolat.bpf.o")
    nobtf = os.path.join(BUILD, "gpiolat_nobtf.bpf.o")
    assert core_relo_len(core) > 0, "the CO-RE object shows its relocations"
    assert core_relo_len(nobtf) == 0, "gpiolat_nobtf.bpf.o has CO-RE relocations"
    assert names(core) == names(nobtf), "the two objects differ in programs or maps"
