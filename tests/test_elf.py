"""The pure-Python ELF and ld.so.cache readers, checked against the system's own tools.

Oracles: ``readelf -d`` for DT_NEEDED / RPATH / RUNPATH / SONAME of real shared objects (torch's
extension module and system libraries), and ``ldconfig -p`` for ld caches that ``ldconfig``
itself writes in each of its three formats. Libraries with chosen needs are built by the real
linker (gcc), so resolution is tested on what a linker really emits.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampenv.probe import elf

READELF = shutil.which("readelf")
GCC = shutil.which("gcc") or shutil.which("cc")
LDCONFIG = shutil.which("ldconfig") or next(
    (p for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig") if os.path.exists(p)), None
)


def system_libraries() -> list[str]:
    """torch's extension module (located, not imported) and a few system libraries."""
    torch_dir = Path(importlib.util.find_spec("torch").origin).parent
    libs = [str(p) for p in [*torch_dir.glob("_C*.so"), *torch_dir.glob("lib/libtorch_python.so")]]
    for name in ("libstdc++.so.6", "libz.so.1", "libm.so.6"):
        for d in ("/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64"):
            if os.path.exists(os.path.join(d, name)):
                libs.append(os.path.join(d, name))
                break
    return libs


def readelf_dynamic(path: str) -> dict[str, list[str]]:
    out = subprocess.run([READELF, "-d", path], capture_output=True, text=True, check=True).stdout
    found: dict[str, list[str]] = {"NEEDED": [], "RPATH": [], "RUNPATH": [], "SONAME": []}
    for tag, value in re.findall(r"\((NEEDED|RPATH|RUNPATH|SONAME)\)\s+[^\[]*\[([^\]]*)\]", out):
        found[tag].extend(value.split(":") if tag in ("RPATH", "RUNPATH") else [value])
    return found


@pytest.mark.skipif(READELF is None, reason="readelf (binutils) is not installed")
@pytest.mark.parametrize("path", system_libraries(), ids=os.path.basename)
def test_dynamic_section_matches_readelf(path: str):
    info = elf.read_elf(path)
    want = readelf_dynamic(path)
    assert info.needed == want["NEEDED"]
    assert info.rpath == [p for p in want["RPATH"] if p]
    assert info.runpath == [p for p in want["RUNPATH"] if p]
    assert ([info.soname] if info.soname else []) == want["SONAME"]
    assert info.bits == 64


def test_not_an_elf_file_raises_elf_error(tmp_path: Path):
    text = tmp_path / "libfake.so"
    text.write_text("INPUT(-lc)\n")  # a linker script, as some libc.so files are
    with pytest.raises(elf.ElfError, match="not an ELF file"):
        elf.read_elf(str(text))
    with pytest.raises(elf.ElfError, match="cannot read"):
        elf.read_elf(str(tmp_path / "absent.so"))


# -- the ld cache --------------------------------------------------------------------------------


def ldconfig_listing(cache: Path) -> set[tuple[str, str]]:
    out = subprocess.run(
        [LDCONFIG, "-p", "-C", str(cache)], capture_output=True, text=True, check=True
    ).stdout
    return set(re.findall(r"^\s+(\S+) \([^)]*\) => (\S+)$", out, re.M))


@pytest.mark.skipif(LDCONFIG is None, reason="ldconfig is not installed")
@pytest.mark.parametrize("fmt", ["new", "old", "compat"])
def test_ld_cache_formats_written_by_ldconfig_parse_like_ldconfig_reads_them(
    tmp_path: Path, fmt: str
):
    libdir = tmp_path / "lib"
    libdir.mkdir()
    (tmp_path / "ld.so.conf").write_text(f"{libdir}\n")
    cache = tmp_path / f"ld.so.cache.{fmt}"
    subprocess.run(
        [LDCONFIG, "-c", fmt, "-C", str(cache), "-f", str(tmp_path / "ld.so.conf")],
        capture_output=True,
        check=True,
    )
    data = cache.read_bytes()
    entries = elf.parse_ld_cache(data)
    assert {(e.soname, e.path) for e in entries} == ldconfig_listing(cache)
    assert data.startswith(elf.NEW_MAGIC if fmt == "new" else elf.OLD_MAGIC)


@pytest.mark.skipif(LDCONFIG is None, reason="ldconfig is not installed")
def test_this_systems_ld_cache_parses_like_ldconfig_p():
    cache = Path("/etc/ld.so.cache")
    if not cache.exists():
        pytest.skip("no /etc/ld.so.cache on this system")
    entries = elf.parse_ld_cache(cache.read_bytes())
    assert {(e.soname, e.path) for e in entries} == ldconfig_listing(cache)


# -- resolution, on libraries the real linker built ----------------------------------------------


def build(out: Path, *args: str) -> None:
    subprocess.run([GCC, "-shared", "-fPIC", "-o", str(out), *args], check=True)


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> Path:
    """top_rpath.so needs libdep.so (in ./sub, found through $ORIGIN/sub) and libgone.so
    (linked, then deleted); top_runpath.so is the same, linked with RUNPATH."""
    if GCC is None:
        pytest.skip("no C compiler to build test libraries")
    root = tmp_path_factory.mktemp("linked")
    src = root / "f.c"
    src.write_text("int f(void) { return 1; }\n")
    (root / "sub").mkdir()
    build(root / "sub" / "libdep.so", str(src), "-Wl,-soname,libdep.so")
    build(root / "libgone.so", str(src), "-Wl,-soname,libgone.so")
    # --no-as-needed: f.c uses nothing from them, and most distributions link --as-needed.
    for name, tags in (
        ("top_rpath.so", "--disable-new-dtags"),
        ("top_runpath.so", "--enable-new-dtags"),
    ):
        build(
            root / name, str(src), f"-Wl,--no-as-needed,{tags},-rpath,$ORIGIN/sub",
            f"-L{root / 'sub'}", f"-L{root}", "-ldep", "-lgone",
        )  # fmt: skip
    (root / "libgone.so").unlink()
    return root


def test_linker_output_reads_back(linked: Path):
    rpath = elf.read_elf(str(linked / "top_rpath.so"))
    runpath = elf.read_elf(str(linked / "top_runpath.so"))
    assert rpath.needed[:2] == runpath.needed[:2] == ["libdep.so", "libgone.so"]
    assert (rpath.rpath, rpath.runpath) == (["$ORIGIN/sub"], [])
    assert (runpath.rpath, runpath.runpath) == ([], ["$ORIGIN/sub"])


@pytest.mark.parametrize("top", ["top_rpath.so", "top_runpath.so"])
def test_closure_finds_origin_libraries_and_names_the_missing_one(linked: Path, top: str):
    cache = elf.parse_ld_cache(Path("/etc/ld.so.cache").read_bytes())
    needs, unreadable = elf.closure([str(linked / top)], elf.LoaderView([], cache))
    found = {n.name: n.found for n in needs if n.by == str(linked / top)}
    assert found["libdep.so"] == str(linked / "sub" / "libdep.so")
    assert found["libgone.so"] is None
    assert found["libc.so.6"]  # from the ld cache
    assert unreadable == []
    assert {n.name for n in needs if n.found is None} == {"libgone.so"}


def test_ld_library_path_and_preloaded_names_resolve(linked: Path, tmp_path: Path):
    (tmp_path / "libgone.so").write_bytes((linked / "sub" / "libdep.so").read_bytes())
    top = elf.read_elf(str(linked / "top_rpath.so"))
    assert elf.LoaderView([str(tmp_path)], []).find("libgone.so", top) == str(
        tmp_path / "libgone.so"
    )
    assert elf.LoaderView([], [], preloaded={"libgone.so"}).find("libgone.so", top) == "loaded"


def test_sysroot_prefixes_system_directories_but_not_origin(linked: Path, tmp_path: Path):
    root = tmp_path / "node"
    libdir = root / "usr/local/Ascend/lib64"
    libdir.mkdir(parents=True)
    (libdir / "libgone.so").write_bytes((linked / "sub" / "libdep.so").read_bytes())
    view = elf.LoaderView(["/usr/local/Ascend/lib64"], [], sysroot=str(root))
    top = elf.read_elf(str(linked / "top_rpath.so"))
    found = view.find("libgone.so", top)
    assert found == str(libdir / "libgone.so")
    assert view.system_path(found) == "/usr/local/Ascend/lib64/libgone.so"
    assert view.find("libdep.so", top) == str(linked / "sub" / "libdep.so")


# -- mangled input never escapes as anything but ElfError ----------------------------------------

SMALL_LIBS = ("/lib/x86_64-linux-gnu/libdl.so.2", "/lib/aarch64-linux-gnu/libdl.so.2")
SMALL_LIB = next((p for p in SMALL_LIBS if os.path.exists(p)), None)


@pytest.mark.skipif(SMALL_LIB is None, reason="no small system library to mangle")
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_mangled_elf_never_raises_anything_else(tmp_path: Path, data):
    blob = bytearray(Path(SMALL_LIB).read_bytes()[:16384])
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, 256 if data.draw(st.booleans()) else len(blob) - 1))
        blob[pos] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(16, len(blob)))
    path = tmp_path / "mangled.so"
    path.write_bytes(bytes(blob[:cut]))
    try:
        info = elf.read_elf(str(path))
    except elf.ElfError:
        return
    assert all(isinstance(n, str) for n in info.needed)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mangled_ld_cache_never_raises_anything_else(data):
    real = Path("/etc/ld.so.cache")
    blob = bytearray(real.read_bytes()[:4096] if real.exists() else elf.NEW_MAGIC + bytes(64))
    for _ in range(data.draw(st.integers(1, 8))):
        pos = data.draw(st.integers(0, min(len(blob) - 1, 200)))
        blob[pos] = data.draw(st.integers(0, 255))
    try:
        entries = elf.parse_ld_cache(bytes(blob[: data.draw(st.integers(0, len(blob)))]))
    except elf.ElfError:
        return
    assert all(isinstance(e.soname, str) for e in entries)
