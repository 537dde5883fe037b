"""Removal that can only hurt a cache: the cache safety rules of design.md, in one place.

- A folder is accepted as a cache root only if it is not ``/``, a home directory, a system
  directory (or inside one), and does not contain any of them.
- Symlinks are unlinked, never followed; a directory is removed with the fd-based
  ``shutil.rmtree`` that never follows a link, and only if it stays on its root's filesystem.
- Nothing is removed below a root that a live process holds open (an open file, its working
  directory, or a mapped library).
- An exclusive ``flock`` on one lock file keeps two cleaners apart.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import shutil
import stat
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    import psutil

# Never a root, nor anything inside them: the operating system and the Ascend install itself.
SYSTEM_DIRS = (
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
    "/proc", "/run", "/sbin", "/sys", "/usr", "/var",
)  # fmt: skip
# Never a root themselves (nor any folder above them), though caches may live below them.
SHARED_DIRS = ("/", "/home", "/root", "/tmp", "/mnt", "/media", "/opt", "/srv")


def within(path: str, folder: str) -> bool:
    """True when ``path`` is ``folder`` or below it (both normalised absolute paths)."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def protected_reason(path: str, homes: Iterable[str]) -> Optional[str]:
    """Why ``path`` may never be a cache root, or None. ``path`` is absolute and normalised."""
    for folder in SYSTEM_DIRS:
        if within(path, folder):
            where = "is" if path == folder else "is inside"
            return f"{path} {where} the system directory {folder}"
    homes = {os.path.normpath(h) for h in homes if h.startswith("/")}
    for folder in (*SHARED_DIRS, *sorted(homes)):
        if within(folder, path):
            if path == "/":
                return "/ is the filesystem root"
            what = "a home directory" if folder in homes else "a shared system folder"
            if path == folder:
                return f"{path} is {what}"
            return f"{path} contains {folder}, {what}"
    return None


def remove(path: Path, root: Path) -> None:
    """Remove one entry strictly below ``root`` without following any link. Raises OSError."""
    real_root = os.path.realpath(root)
    parent = os.path.realpath(path.parent)
    if not within(parent, real_root) or os.path.normpath(path) == os.path.normpath(root):
        raise OSError(errno.EPERM, f"{path} is no longer strictly below {root}")
    st = os.lstat(path)
    if stat.S_ISDIR(st.st_mode):
        if not shutil.rmtree.avoids_symlink_attacks:
            raise OSError(errno.ENOTSUP, "this platform's rmtree could follow a swapped link")
        shutil.rmtree(path)
    else:  # a file, or a link (to a file or a folder): the link itself goes, never its target
        os.unlink(path)


# -- processes that hold files open ------------------------------------------------------------
@dataclass(frozen=True)
class Holder:
    pid: int
    name: str
    path: str


def _mapped_files(pid: int) -> list[str]:
    """Files a process has mapped (shared libraries of torch extensions, for instance)."""
    try:
        with open(f"/proc/{pid}/maps", encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    paths = []
    for line in lines:
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith("/"):
            paths.append(fields[5].removesuffix(" (deleted)"))
    return paths


def _held_paths(proc: psutil.Process) -> list[str]:
    paths = [f.path for f in proc.open_files()]
    paths.append(proc.cwd())
    return paths + _mapped_files(proc.pid)


def find_holders(roots: list[str]) -> tuple[dict[str, list[Holder]], int]:
    """Live processes holding something under each root (real, resolved paths), and how many
    processes could not be inspected (other users' processes when not root)."""
    import psutil  # ~20 ms to import: only `ampenv clean` looks for holders, not the checks

    held: dict[str, list[Holder]] = {r: [] for r in roots}
    denied = 0
    me = os.getpid()
    for proc in psutil.process_iter(["pid", "name"]):
        if proc.pid == me:
            continue
        try:
            paths = _held_paths(proc)
        except psutil.AccessDenied:
            denied += 1
            continue
        except psutil.NoSuchProcess:  # gone, or a zombie: it holds nothing
            continue
        for root in roots:
            hit = next((p for p in paths if within(p, root)), None)
            if hit:
                held[root].append(Holder(proc.pid, proc.info.get("name") or "?", hit))
    return held, denied


# -- one cleaner at a time ----------------------------------------------------------------------
class CleanerBusy(Exception):
    """Another cleaner holds the lock."""


def _open_lock(path: Path) -> tuple[int, bool]:
    """Open (or create) the lock file without following a planted link: (fd, writable)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_NOFOLLOW | os.O_CLOEXEC
    for _ in range(3):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | flags, 0o644)
            os.fchmod(fd, 0o644)  # readable by other users, so that they can lock it too
            return fd, True
        except FileExistsError:
            pass
        try:
            return os.open(path, os.O_RDWR | flags), True
        except PermissionError:  # another user's lock file: a read-only fd can be locked too
            return os.open(path, os.O_RDONLY | flags), False
        except FileNotFoundError:
            continue  # removed between the two opens
    raise OSError(errno.EAGAIN, f"cannot open the lock file {path}")


@contextlib.contextmanager
def exclusive(path: Path, wait: float) -> Iterator[None]:
    """Hold the cleaners' lock; wait up to ``wait`` seconds, then raise CleanerBusy."""
    fd, writable = _open_lock(path)
    try:
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    owner = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
                    raise CleanerBusy(
                        f"another cleaner (pid {owner}) holds {path}; try again when it is done"
                    ) from None
                time.sleep(0.05)
        if writable:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
