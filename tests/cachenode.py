"""A planted node for the cache tests: a CANN toolkit, caches and logs of chosen ages, and a
sentinel tree outside every cache root whose bytes must never change."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

from conftest import FIXTURES, clean_env

HOME = "/home/u"
DAY = 86400.0
# The doc example's own path (CANN 8.5 layout): /usr/local/Ascend/cann-8.5.0/aarch64-linux
TOOLKIT_INFO = "/usr/local/Ascend/cann-8.5.0/aarch64-linux/ascend_toolkit_install.info"
TOOLKIT_FIXTURE = FIXTURES / "version-files/ascend_toolkit_install.info_8.5.0_aarch64_doc.txt"


def at(root: Path, system_path: str) -> Path:
    """A system path of the planted node."""
    return root / system_path.lstrip("/")


def age(path: Path, days: float) -> None:
    """Set the mtime of ``path`` and everything below it (never through a link) to ``days`` ago."""
    when = time.time() - days * DAY
    if path.is_dir() and not path.is_symlink():
        for dirpath, dirnames, filenames in os.walk(path, topdown=False):
            for name in filenames + dirnames:
                os.utime(os.path.join(dirpath, name), (when, when), follow_symlinks=False)
    os.utime(path, (when, when), follow_symlinks=False)


def plant_files(root: Path, folder: str, files: dict[str, bytes], days: float = 0.0) -> Path:
    """Files below a system folder of the node, all ``days`` old; returns the folder."""
    top = at(root, folder)
    for name, data in files.items():
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for name in files:
        age(top / name.split("/")[0], days)
    return top


def plant_toolkit(root: Path, installed_days_ago: float = 1.0) -> Path:
    info = at(root, TOOLKIT_INFO)
    info.parent.mkdir(parents=True, exist_ok=True)
    info.write_bytes(TOOLKIT_FIXTURE.read_bytes())
    age(info, installed_days_ago)
    return info


def plant_sentinel(root: Path) -> Path:
    """Data outside every cache root: files, a folder, a link, all old enough to look stale."""
    top = plant_files(
        root,
        "/data/sentinel",
        {"weights.bin": os.urandom(4096), "nested/notes.txt": b"keep me\n"},
        days=90,
    )
    (top / "link-to-notes").symlink_to("nested/notes.txt")
    return top


def digest(top: Path) -> dict[str, str]:
    """Every entry below ``top`` (not following links): type, mode, and content or target."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        for name in sorted(dirnames + filenames):
            path = Path(dirpath, name)
            st = path.lstat()
            rel = str(path.relative_to(top))
            if path.is_symlink():
                out[rel] = f"link {os.readlink(path)}"
            elif path.is_file():
                out[rel] = f"file {st.st_mode:o} {hashlib.sha256(path.read_bytes()).hexdigest()}"
            else:
                out[rel] = f"dir {st.st_mode:o}"
    return out


def node_env(root: Path, **extra: str) -> dict[str, str]:
    """The environment of a CLI run on the planted node."""
    return clean_env(AMPENV_SYSROOT=str(root), HOME=HOME, USER="u", **extra)
