"""Issue 18, item 12: the ELF reader reads libtorch_cpu.so (a 4.9 MiB dynamic string table,
refused by the old 1 MiB cap) by reading only the strings it needs. Reproduced first: ElfError
"dynamic segment without a usable string table"."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from ampenv.probe import elf


def _libtorch_cpu() -> Path:
    torch = pytest.importorskip("torch")
    lib = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    if not lib.exists():
        pytest.skip("no libtorch_cpu.so in this torch")
    return lib


def test_libtorch_cpu_is_read():
    info = elf.read_elf(str(_libtorch_cpu()))
    assert info.soname == "libtorch_cpu.so"
    assert "libc10.so" in info.needed


def _elf_with_strtab(path: Path, strsz: int, needed_offset: int = 1) -> None:
    """A 64-bit little-endian ELF: one PT_LOAD over the whole file, a PT_DYNAMIC with
    DT_NEEDED, DT_STRTAB, DT_STRSZ; the string table holds "libx.so" at needed_offset."""
    ehdr_size, phdr_size = 64, 56
    dyn_off = ehdr_size + 2 * phdr_size
    dyn = struct.pack("<qQqQqQqQ", 1, needed_offset, 5, 0x1000, 10, strsz, 0, 0)
    str_off = 0x1000
    header = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header += struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, ehdr_size, 0, 0, 64, 56, 2, 0, 0, 0)
    total = str_off + strsz
    load = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, total, total, 0x1000)
    dynamic = struct.pack("<IIQQQQQQ", 2, 6, dyn_off, dyn_off, dyn_off, len(dyn), len(dyn), 8)
    with open(path, "wb") as fh:
        fh.write(header + load + dynamic + dyn)
        fh.seek(str_off + needed_offset)
        fh.write(b"libx.so\0")
        fh.truncate(total)


def test_a_large_string_table_is_not_read_whole(tmp_path):
    lib = tmp_path / "big.so"
    _elf_with_strtab(lib, 8 << 20, needed_offset=7 << 20)
    assert elf.read_elf(str(lib)).needed == ["libx.so"]


def test_a_fifo_named_like_a_library_is_refused_at_once(tmp_path):
    fifo = tmp_path / "libfifo.so"
    os.mkfifo(fifo)
    with pytest.raises(elf.ElfError, match="not a regular file"):
        elf.read_elf(str(fifo))
