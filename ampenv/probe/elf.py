"""What shared libraries an ELF file needs, and whether the dynamic loader would find them.

Pure Python, no ``ldd`` (which runs the loader, and on a broken node can hang or execute code)
and no import of the extension module. Reads only the ELF and program headers and the dynamic
segment, so even a 1 GB ``libtorch_npu.so`` costs a few small reads.

Resolution follows ld.so(8): DT_RPATH (when there is no DT_RUNPATH), ``LD_LIBRARY_PATH``,
DT_RUNPATH, the ld cache (``/etc/ld.so.cache``, old and new formats), then the default
directories; ``$ORIGIN`` is expanded. Libraries already loaded by an earlier import (torch's own,
when torch_npu is imported after torch) count as found by their name.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field
from typing import BinaryIO, Optional

from ampenv.util import bounded

PT_LOAD, PT_DYNAMIC = 1, 2
DT_NULL, DT_NEEDED, DT_STRTAB, DT_STRSZ, DT_SONAME, DT_RPATH, DT_RUNPATH = 0, 1, 5, 10, 14, 15, 29
EM_386, EM_X86_64, EM_AARCH64 = 3, 62, 183
MAX_DYNAMIC_BYTES = 1 << 20  # a real dynamic segment is a few KB; more means a corrupt file
MAX_STRING_BYTES = 64 << 10  # one DT_NEEDED, DT_SONAME or DT_RUNPATH string (a long RUNPATH)

DEFAULT_DIRS = {
    64: ("/lib64", "/usr/lib64", "/lib", "/usr/lib"),
    32: ("/lib", "/usr/lib"),
}


class ElfError(ValueError):
    """The file is not an ELF shared object this reader understands."""


@dataclass
class ElfInfo:
    path: str
    bits: int  # 32 or 64
    machine: int  # e_machine
    needed: list[str] = field(default_factory=list)
    soname: Optional[str] = None
    rpath: list[str] = field(default_factory=list)
    runpath: list[str] = field(default_factory=list)


def _read(fh: BinaryIO, offset: int, size: int) -> bytes:
    try:
        fh.seek(offset)
    except (ValueError, OverflowError) as exc:  # a mangled 64-bit offset
        raise ElfError(f"offset {offset} out of range") from exc
    data = fh.read(size)
    if len(data) != size:
        raise ElfError(f"truncated: wanted {size} bytes at offset {offset}")
    return data


def read_elf(path: str) -> ElfInfo:
    """DT_NEEDED, DT_SONAME, DT_RPATH and DT_RUNPATH of one ELF file. Raises ElfError."""
    try:
        with bounded.open_regular(path) as fh:  # a FIFO named like a library never blocks
            return _parse(fh, path)
    except OSError as exc:
        raise ElfError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except struct.error as exc:
        raise ElfError(f"{path}: malformed ELF ({exc})") from exc


def _parse(fh: BinaryIO, path: str) -> ElfInfo:
    ident = fh.read(16)
    if ident[:4] != b"\x7fELF":
        raise ElfError(f"{path} is not an ELF file")
    if len(ident) < 16:
        raise ElfError(f"{path}: truncated ELF header")
    bits = {1: 32, 2: 64}.get(ident[4])
    endian = {1: "<", 2: ">"}.get(ident[5])
    if bits is None or endian is None:
        raise ElfError(f"{path}: unknown ELF class {ident[4]} or data encoding {ident[5]}")
    if bits == 64:
        header = struct.unpack(endian + "HHIQQQIHHHHHH", _read(fh, 16, 48))
        phdr_fmt, dyn_fmt = endian + "IIQQQQQQ", endian + "qQ"
    else:
        header = struct.unpack(endian + "HHIIIIIHHHHHH", _read(fh, 16, 36))
        phdr_fmt, dyn_fmt = endian + "IIIIIIII", endian + "iI"
    machine, phoff, phentsize, phnum = header[1], header[4], header[8], header[9]
    if phnum == 0 or phentsize < struct.calcsize(phdr_fmt):
        raise ElfError(f"{path}: no program headers")

    loads: list[tuple[int, int, int]] = []  # vaddr, filesz, offset
    dynamic: Optional[tuple[int, int]] = None  # offset, size
    for i in range(phnum):
        raw = _read(fh, phoff + i * phentsize, struct.calcsize(phdr_fmt))
        if bits == 64:
            p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz, _memsz, _align = struct.unpack(
                phdr_fmt, raw
            )
        else:
            p_type, p_offset, p_vaddr, _paddr, p_filesz, _memsz, _flags, _align = struct.unpack(
                phdr_fmt, raw
            )
        if p_type == PT_LOAD:
            loads.append((p_vaddr, p_filesz, p_offset))
        elif p_type == PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    info = ElfInfo(path=path, bits=bits, machine=machine)
    if dynamic is None:
        return info  # statically linked: needs nothing
    if dynamic[1] > MAX_DYNAMIC_BYTES:
        raise ElfError(f"{path}: dynamic segment of {dynamic[1]} bytes")

    entries: list[tuple[int, int]] = []
    raw = _read(fh, dynamic[0], dynamic[1])
    step = struct.calcsize(dyn_fmt)
    for pos in range(0, len(raw) - step + 1, step):
        tag, val = struct.unpack_from(dyn_fmt, raw, pos)
        if tag == DT_NULL:
            break
        entries.append((tag, val))
    strtab = next((v for t, v in entries if t == DT_STRTAB), None)
    strsz = next((v for t, v in entries if t == DT_STRSZ), None)
    if strtab is None or strsz is None:
        raise ElfError(f"{path}: dynamic segment without a usable string table")
    # DT_STRTAB is a virtual address: map it to a file offset through the PT_LOAD segments.
    seg = next((s for s in loads if s[0] <= strtab < s[0] + s[1]), None)
    if seg is None:
        raise ElfError(f"{path}: string table address {strtab:#x} is outside every segment")
    # The table holds every dynamic symbol's name (libtorch_cpu.so: 4.9 MiB), and only a few
    # strings are wanted: each is read where it lies, at most MAX_STRING_BYTES, never the table.
    base, size = strtab - seg[0] + seg[2], min(strsz, seg[0] + seg[1] - strtab)

    def string(offset: int) -> str:
        if offset >= size:
            raise ElfError(f"{path}: string offset {offset} beyond the string table")
        try:
            fh.seek(base + offset)
        except (ValueError, OverflowError) as exc:
            raise ElfError(f"{path}: string offset {offset} out of range") from exc
        raw = fh.read(min(MAX_STRING_BYTES, size - offset))
        end = raw.find(b"\0")
        if end < 0 and len(raw) == MAX_STRING_BYTES:
            raise ElfError(f"{path}: string at offset {offset} longer than {MAX_STRING_BYTES}")
        return raw[: end if end >= 0 else len(raw)].decode("utf-8", "replace")

    for tag, val in entries:
        if tag == DT_NEEDED:
            info.needed.append(string(val))
        elif tag == DT_SONAME:
            info.soname = string(val)
        elif tag == DT_RPATH:
            info.rpath.extend(p for p in string(val).split(":") if p)
        elif tag == DT_RUNPATH:
            info.runpath.extend(p for p in string(val).split(":") if p)
    return info


# -- the ld cache ------------------------------------------------------------------------------

OLD_MAGIC = b"ld.so-1.7.0"
NEW_MAGIC = b"glibc-ld.so.cache1.1"
FLAG_TYPE_MASK, FLAG_ELF_LIBC6 = 0x00FF, 0x0003
FLAG_ARCH_MASK = 0xFF00
# The arch bits glibc's ldconfig writes for each machine (sysdeps/generic/ldconfig.h).
ARCH_FLAGS = {(EM_X86_64, 64): 0x0300, (EM_AARCH64, 64): 0x0A00, (EM_386, 32): 0x0000}


@dataclass
class CacheEntry:
    soname: str
    path: str
    flags: int

    def suits(self, machine: int, bits: int) -> bool:
        """Whether the loader of a ``machine``/``bits`` object would take this entry."""
        if self.flags & FLAG_TYPE_MASK != FLAG_ELF_LIBC6:
            return False
        arch = ARCH_FLAGS.get((machine, bits))
        return arch is None or self.flags & FLAG_ARCH_MASK == arch


def _cstring(data: bytes, offset: int) -> str:
    if not 0 <= offset < len(data):
        raise ElfError(f"ld cache string offset {offset} out of range")
    end = data.find(b"\0", offset)
    return data[offset : end if end >= 0 else len(data)].decode("utf-8", "replace")


def parse_ld_cache(data: bytes) -> list[CacheEntry]:
    """Entries of an ld.so.cache image: the new format, or the old one (alone or followed by
    the new one, the "compat" layout). Raises ElfError for anything else."""
    if data.startswith(NEW_MAGIC):
        return _parse_new(data, 0)
    if not data.startswith(OLD_MAGIC):
        raise ElfError("not an ld.so.cache file")
    try:
        (nlibs,) = struct.unpack_from("<I", data, 12)
    except struct.error as exc:
        raise ElfError("truncated ld.so.cache") from exc
    entries_end = 16 + nlibs * 12
    if entries_end > len(data):
        raise ElfError(f"ld.so.cache claims {nlibs} entries, more than the file holds")
    new_start = (entries_end + 7) & ~7  # the new table follows, 8-byte aligned
    if data[new_start : new_start + len(NEW_MAGIC)] == NEW_MAGIC:
        return _parse_new(data, new_start)
    # Old format alone: string offsets count from the end of the entry table.
    strings = data[entries_end:]
    return [
        CacheEntry(_cstring(strings, key), _cstring(strings, value), flags)
        for flags, key, value in struct.iter_unpack("<iII", data[16:entries_end])
    ]


def _parse_new(data: bytes, start: int) -> list[CacheEntry]:
    try:
        nlibs, _len_strings = struct.unpack_from("<II", data, start + 20)
    except struct.error as exc:
        raise ElfError("truncated ld.so.cache") from exc
    first = start + 48  # magic+version (20), nlibs, len_strings, flags+pad, ext offset, unused[3]
    end = first + nlibs * 24
    if end > len(data):
        raise ElfError(f"ld.so.cache claims {nlibs} entries, more than the file holds")
    # New format: string offsets count from the start of the new header.
    strings = data[start:]
    return [
        CacheEntry(_cstring(strings, key), _cstring(strings, value), flags)
        for flags, key, value, _osv, _hwcap in struct.iter_unpack("<iIIIQ", data[first:end])
    ]


# -- resolution --------------------------------------------------------------------------------


@dataclass
class Need:
    """One DT_NEEDED entry of one file, and where (or whether) the loader finds it."""

    name: str
    by: str  # the file that needs it
    found: Optional[str]  # a path, "loaded" for a preloaded library, or None


@dataclass
class LoaderView:
    """What the dynamic loader would see: LD_LIBRARY_PATH, the ld cache, preloaded names.

    Paths of the files being resolved are real paths. System directories (LD_LIBRARY_PATH,
    absolute RPATH entries, the cache, the defaults) are seen through ``sysroot``, so a planted
    node resolves against its own /usr/local/Ascend."""

    ld_library_path: list[str]
    cache: list[CacheEntry]
    preloaded: set[str] = field(default_factory=set)
    sysroot: str = ""

    def find(self, name: str, elf: ElfInfo) -> Optional[str]:
        """The real path the loader would open for ``name``, "loaded", or None."""
        if name in self.preloaded:
            return "loaded"
        if "/" in name:
            return self._file(self.sysroot + name)
        origin = os.path.dirname(elf.path)
        rpath = [] if elf.runpath else elf.rpath
        dirs = [
            *self._dirs(rpath, origin),
            *(self.sysroot + d for d in self.ld_library_path),
            *self._dirs(elf.runpath, origin),
        ]
        for d in dirs:
            found = self._file(os.path.join(d, name))
            if found:
                return found
        for entry in self.cache:
            if entry.soname == name and entry.suits(elf.machine, elf.bits):
                found = self._file(self.sysroot + entry.path)
                if found:
                    return found
        for d in DEFAULT_DIRS[elf.bits]:
            found = self._file(os.path.join(self.sysroot + d, name))
            if found:
                return found
        return None

    def _dirs(self, entries: list[str], origin: str) -> list[str]:
        """$ORIGIN entries are relative to the (real) file; other absolute ones are system
        paths."""
        out = []
        for d in entries:
            if "$ORIGIN" in d or "${ORIGIN}" in d:
                out.append(d.replace("${ORIGIN}", origin).replace("$ORIGIN", origin))
            elif d.startswith("/"):
                out.append(self.sysroot + d)
        return out

    @staticmethod
    def _file(path: str) -> Optional[str]:
        return path if os.path.isfile(path) else None

    def system_path(self, real: str) -> str:
        """A real path as the node sees it (without the sysroot prefix), for reports."""
        if self.sysroot and real.startswith(self.sysroot + "/"):
            return real[len(self.sysroot) :]
        return real


def closure(roots: list[str], view: LoaderView) -> tuple[list[Need], list[str]]:
    """Every library ``roots`` load, transitively, as the loader would resolve them.

    Returns the needs (one per file and DT_NEEDED entry) and the files that could not be read.
    Like ld.so, a name loaded once satisfies every later need of the same name."""
    needs: list[Need] = []
    unreadable: list[str] = []
    loaded: dict[str, Optional[str]] = {}
    queue = list(roots)
    seen = {os.path.realpath(r) for r in roots}
    while queue:
        path = queue.pop(0)
        try:
            elf = read_elf(path)
        except ElfError as exc:
            unreadable.append(str(exc))
            continue
        for name in elf.needed:
            if name not in loaded:
                loaded[name] = view.find(name, elf)
            found = loaded[name]
            needs.append(Need(name, path, found))
            if found and found != "loaded" and os.path.realpath(found) not in seen:
                seen.add(os.path.realpath(found))
                queue.append(found)
    return needs, unreadable
