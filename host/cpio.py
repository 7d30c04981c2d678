#!/usr/bin/env python3
"""Host side: a folder as a gzip'd newc cpio archive (an initramfs part), byte for byte the same
from the same files (docs/rt.md, "A boot with nothing from the host's clock").

    host/cpio.py OUT.cpio.gz PREFIX DIR
    host/cpio.py --member ARCHIVE.cpio.gz NAME

Every file, link and folder below DIR goes into the archive below PREFIX (e.g. "ramroot"), in
sorted order, owned by root, with mtime 0 and inode numbers counted from 1: two archives of the
same files are the same bytes, so the kernel unpacks them with the same instructions. The gzip
stream has mtime 0 and no name and is padded with zeros to a multiple of 4 bytes: the kernel
unpacks concatenated archives (vm/run appends this one to the target's initramfs) and looks for
the next one at a 4-byte boundary, skipping zeros. A folder, file or link below DIR that cannot
be read stops it with one line naming it, and nothing is written (os.walk alone skips a folder it
cannot list: a root that boots without its files).

--member prints the member NAME of such an archive (vm/run reads the target host/ramroot.sh
recorded in its root): status 0, or 3 when the archive has no such member (nothing printed),
or 2 with one line when it is not a gzip'd newc archive or cannot be read. It reads the stream
only up to NAME (a name that sorts first among DIR's is in the first few hundred bytes).
"""
import gzip
import os
import stat
import sys


def entry(out, ino, name, mode, data, nlink=1):
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
    out.append(hdr.encode() + name_b)
    out.append(b"\0" * ((4 - (110 + len(name_b)) % 4) % 4))
    out.append(data)
    out.append(b"\0" * ((4 - len(data) % 4) % 4))


def fail(e):
    raise e


def walk(parts, ino, prefix, top):
    """Every entry below TOP into PARTS, inodes from INO: the next inode; OSError naming the
    path that could not be read."""
    # onerror: a folder that cannot be listed stops the archive (os.walk's default skips it)
    for root, dirs, files in os.walk(top, onerror=fail):
        dirs.sort()
        rel = os.path.relpath(root, top)
        for n in sorted(dirs + files):
            path = os.path.join(root, n)
            name = os.path.normpath(os.path.join(prefix, rel, n))
            st = os.lstat(path)
            perm = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                entry(parts, ino, name, stat.S_IFLNK | 0o777, os.readlink(path).encode())
            elif stat.S_ISDIR(st.st_mode):
                entry(parts, ino, name, stat.S_IFDIR | perm, b"", 2)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    entry(parts, ino, name, stat.S_IFREG | perm, f.read())
            else:
                raise OSError(0, "neither file, folder nor link", path)
            ino += 1
        # os.walk does not descend into links to folders
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
    return ino


def member(path, want):
    """The data of the member named WANT of the gzip'd newc archive PATH, or None; ValueError
    when it is not one."""
    with gzip.open(path, "rb") as f:
        while True:
            hdr = f.read(110)
            if len(hdr) != 110 or hdr[:6] != b"070701":
                raise ValueError("not a newc cpio archive")
            try:
                size, namesize = int(hdr[54:62], 16), int(hdr[94:102], 16)
            except ValueError:
                raise ValueError("not a newc cpio archive") from None
            name = f.read(namesize).rstrip(b"\0").decode(errors="replace")
            f.read((4 - (110 + namesize) % 4) % 4)
            if name == "TRAILER!!!":
                return None
            data = f.read(size)
            if len(data) != size:
                raise ValueError("cut short in " + name)
            if name == want:
                return data
            f.read((4 - size % 4) % 4)


def main(argv):
    if len(argv) == 4 and argv[1] == "--member":
        try:
            data = member(argv[2], argv[3])
        except Exception as e:
            # any reason it cannot be read (a corrupt gzip stream: zlib.error, a header's
            # sizes: MemoryError): one line, 2, never the 3 of "no such member"
            why = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
            print("host/cpio.py: %s: %s" % (argv[2], why or type(e).__name__), file=sys.stderr)
            return 2
        if data is None:
            return 3
        sys.stdout.buffer.write(data)
        return 0
    if len(argv) != 4:
        print("usage: host/cpio.py OUT.cpio.gz PREFIX DIR | --member ARCHIVE NAME",
              file=sys.stderr)
        return 2
    dest, prefix, top = argv[1], argv[2].strip("/"), argv[3]
    if not os.path.isdir(top):
        print("host/cpio.py: %s is not a folder" % top, file=sys.stderr)
        return 2
    parts = []
    ino = 1
    # the prefix's folders first
    p = ""
    for c in prefix.split("/") if prefix else []:
        p = p + "/" + c if p else c
        entry(parts, ino, p, stat.S_IFDIR | 0o755, b"", 2)
        ino += 1
    try:
        ino = walk(parts, ino, prefix, top)
    except OSError as e:
        # a folder os.walk cannot list, a file or link that cannot be read, a device: nothing
        # written (an archive without them would boot a root that lacks them)
        print("host/cpio.py: %s: %s" % (e.filename, e.strerror), file=sys.stderr)
        return 1
    entry(parts, 0, "TRAILER!!!", 0, b"")
    raw = b"".join(parts)
    z = gzip.compress(raw, compresslevel=6, mtime=0)
    z += b"\0" * ((4 - len(z) % 4) % 4)
    tmp = dest + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(z)
        os.replace(tmp, dest)
    except OSError as e:
        print("host/cpio.py: %s: %s" % (e.filename or tmp, e.strerror), file=sys.stderr)
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
