"""Removal that can only hurt a cache: the cache safety rules of design.md, in one place.

- A folder is accepted as a cache root only if it is not ``/``, a home directory, a system
  directory (or inside one), and does not contain any of them.
- Removal works relative to folders opened from the root down with ``O_NOFOLLOW|O_DIRECTORY``,
  each checked by device and inode against what was looked at, and never crosses a mount point
  (the mount of each opened folder, bind mounts included); a link is unlinked, never followed.
- The age of an entry is judged again at removal: one that turned fresh is kept.
- Nothing is removed below a root that a live process holds open (an open file, its working
  directory, or a mapped library).
- Only regular files, links and folders of them go: a FIFO, a socket or a device node is no
  cache's and no log's (a live one keeps an old mtime), and a tree holding one is kept whole.
- An exclusive ``flock`` on one lock file keeps two cleaners apart; the lock is opened by
  :func:`ampenv.util.files.open_lock` (no link followed, a regular file of ours, in a folder
  only we can write).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ampenv.util import files
from ampenv.util.bounded import kind

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


# -- removal relative to opened folders ---------------------------------------------------------
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
Judge = Callable[[float], bool]  # given an mtime: is the entry still stale?


class RemovalRefused(OSError):
    """Removal stopped before it could hurt: a swapped folder, a mount point, a fresh entry."""


def mount_id(fd: int) -> Optional[int]:
    """The mount an open file lives on (``mnt_id`` of /proc/self/fdinfo), or None."""
    try:
        with open(f"/proc/self/fdinfo/{fd}", encoding="ascii", errors="replace") as fh:
            for line in fh.read(4096).splitlines():
                if line.startswith("mnt_id:"):
                    return int(line.split(":", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def mount_points() -> set[str]:
    """Every mount point of this mount namespace (bind mounts included)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as fh:
            lines = fh.read(4 << 20).splitlines()
    except OSError:
        return set()
    return {_unescape(f[4]) for f in (line.split(" ") for line in lines) if len(f) > 4}


def removable_kind(mode: int) -> bool:
    """What a cache's entry or a log can be: a regular file, a link or a folder. A FIFO, a
    socket or a device node is a live program's, whatever its mtime."""
    return stat.S_ISREG(mode) or stat.S_ISLNK(mode) or stat.S_ISDIR(mode)


def _removable(st: os.stat_result, shown: str) -> None:
    """Refuse what no cache or log is (see removable_kind)."""
    if not removable_kind(st.st_mode):
        raise RemovalRefused(
            errno.EPERM, f"{shown} is {kind(st.st_mode)}, no cache's or log's: kept"
        )


@dataclass
class _Tree:
    dev: int
    mnt: Optional[int]
    where: str  # the root, for messages

    def open_dir(self, parent: int, name: str, shown: str) -> int:
        """Open a folder below ``parent`` without following a link, and only if it is the
        folder just looked at, on the root's filesystem and mount."""
        lst = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if not stat.S_ISDIR(lst.st_mode):
            raise RemovalRefused(errno.ENOTDIR, f"{shown} is no longer a folder")
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != (lst.st_dev, lst.st_ino):
                raise RemovalRefused(errno.EPERM, f"{shown} was swapped while being opened")
            if st.st_dev != self.dev:
                raise RemovalRefused(errno.EXDEV, f"{shown} is on another filesystem")
            if self.mnt is not None and mount_id(fd) != self.mnt:
                raise RemovalRefused(errno.EXDEV, f"{shown} is a mount point")
            return fd
        except BaseException:
            os.close(fd)
            raise

    def survey(self, fd: int, shown: str, judge: Optional[Judge]) -> None:
        """Walk a whole tree before anything of it goes: every folder opened as above, every
        mtime judged (the entry must still be stale now)."""
        for name in os.listdir(fd):
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            _removable(st, f"{shown}/{name}")
            if judge is not None and not judge(st.st_mtime):
                raise RemovalRefused(errno.EBUSY, f"{shown}/{name} is fresh now: kept")
            if stat.S_ISDIR(st.st_mode):
                child = self.open_dir(fd, name, f"{shown}/{name}")
                try:
                    self.survey(child, f"{shown}/{name}", judge)
                finally:
                    os.close(child)

    def empty(self, fd: int, shown: str, judge: Optional[Judge]) -> None:
        for name in os.listdir(fd):
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                child = self.open_dir(fd, name, f"{shown}/{name}")
                try:
                    self.empty(child, f"{shown}/{name}", judge)
                finally:
                    os.close(child)
                os.rmdir(name, dir_fd=fd)
            else:
                _removable(st, f"{shown}/{name}")  # swapped in since the survey
                if judge is not None and not judge(st.st_mtime):
                    raise RemovalRefused(errno.EBUSY, f"{shown}/{name} is fresh now: kept")
                os.unlink(name, dir_fd=fd)  # a link goes itself, never its target


def open_root(root: Path, root_id: Optional[tuple[int, int]] = None) -> int:
    """The root folder, opened without following a link; when ``root_id`` (device, inode) is
    given, only if it is still that folder."""
    try:
        fd = os.open(root, DIR_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(root):
            msg = f"{root} is now a symbolic link: not followed"
            raise RemovalRefused(errno.ELOOP, msg) from None
        raise
    st = os.fstat(fd)
    if root_id is not None and (st.st_dev, st.st_ino) != tuple(root_id):
        os.close(fd)
        raise RemovalRefused(errno.EPERM, f"{root} was replaced since it was looked at")
    return fd


def remove(
    path: Path,
    root: Path,
    *,
    root_id: Optional[tuple[int, int]] = None,
    judge: Optional[Judge] = None,
) -> None:
    """Remove one entry strictly below ``root``, relative to folders opened from the root down
    (``O_NOFOLLOW|O_DIRECTORY``, each checked by device, inode and mount), never following a
    link nor crossing a mount point. ``judge`` is asked of every mtime at removal time; an
    entry that turned fresh is kept. Raises OSError (RemovalRefused when it refused)."""
    rel = os.path.relpath(os.path.normpath(path), os.path.normpath(root))
    parts = Path(rel).parts
    if rel == "." or not parts or ".." in parts or os.path.isabs(rel):
        raise RemovalRefused(errno.EPERM, f"{path} is not strictly below {root}")
    fds = [open_root(root, root_id)]
    try:
        st = os.fstat(fds[0])
        tree = _Tree(st.st_dev, mount_id(fds[0]), str(root))
        shown = str(root)
        for name in parts[:-1]:
            shown = f"{shown}/{name}"
            fds.append(tree.open_dir(fds[-1], name, shown))
        parent, name, shown = fds[-1], parts[-1], str(path)
        lst = os.stat(name, dir_fd=parent, follow_symlinks=False)
        _removable(lst, shown)
        if judge is not None and not judge(lst.st_mtime):
            raise RemovalRefused(errno.EBUSY, f"{shown} is fresh now: kept")
        if not stat.S_ISDIR(lst.st_mode):
            os.unlink(name, dir_fd=parent)
            return
        fds.append(tree.open_dir(parent, name, shown))
        tree.survey(fds[-1], shown, judge)  # nothing goes unless all of it may
        tree.empty(fds[-1], shown, judge)
        os.rmdir(name, dir_fd=parent)
    finally:
        for fd in fds:
            os.close(fd)


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


@contextlib.contextmanager
def exclusive(path: Path, wait: float) -> Iterator[None]:
    """Hold the cleaners' lock; wait up to ``wait`` seconds, then raise CleanerBusy."""
    fd = files.open_lock(path)  # a planted link, FIFO, device or folder: OSError
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
