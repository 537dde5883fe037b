"""Opening files that someone else may have planted: the one reader of regular files (opened
once, judged by ``fstat`` of what was opened, read up to a bound) and the one opener of lock
files (``O_NOFOLLOW``, a regular file with one link, owned by this user, in a folder that no
other user can write, or a sticky one)."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from ampenv.util import bounded
from ampenv.util.bounded import kind

PathLike = Union[str, Path]


class Unsafe(OSError):
    """A file or folder that could have been written by someone this process must not trust."""


# -- who could have written it ----------------------------------------------------------------
def writable_by_others(st: os.stat_result, euid: int) -> Optional[str]:
    """Why a file or folder could have been written by a user other than ``euid`` (or root),
    or None."""
    mode = stat.filemode(st.st_mode)
    if st.st_uid not in (0, euid):
        return f"is owned by uid {st.st_uid}"
    if st.st_mode & stat.S_IWOTH:
        return f"is writable by every user (mode {mode})"
    if st.st_mode & stat.S_IWGRP and st.st_gid != 0:
        return f"is writable by group {st.st_gid} (mode {mode})"
    return None


def folders_above_reason(path: PathLike, euid: int) -> Optional[str]:
    """Why another user could have replaced ``path`` (a real path, links resolved) through one
    of the folders above it, or None. A sticky folder (``/tmp``) is safe for an entry owned by
    root or ``euid``: others can neither rename nor remove it."""
    here = Path(os.path.abspath(path))
    child_uid: Optional[int] = None
    with contextlib.suppress(OSError):
        child_uid = os.lstat(here).st_uid
    for folder in here.parents:
        try:
            st = os.stat(folder)
        except OSError as exc:
            return f"cannot stat {folder}: {exc.strerror}"
        problem = writable_by_others(st, euid)
        if problem and st.st_uid in (0, euid) and st.st_mode & stat.S_ISVTX:
            problem = None if child_uid in (0, euid) else problem
        if problem:
            return f"the folder {folder} {problem}"
        child_uid = st.st_uid
    return None


# -- the one reader -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Opened:
    data: bytes
    stat: os.stat_result
    path: str  # what was opened, links resolved (from /proc/self/fd)


def read_regular(path: PathLike, limit: int, *, follow: bool = True) -> Opened:
    """Open ``path`` once (non-blocking: a FIFO cannot hang the reader), insist that what was
    opened is a regular file, and read at most ``limit`` bytes (more is an error, not a silent
    cut). The stat and real path are those of the open file: judge them, not the name."""
    try:
        fd = bounded.open_fd(path, follow=follow)
    except bounded.NotRegular as exc:
        raise Unsafe(exc.errno, f"{path} is {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise Unsafe(errno.EFBIG, f"{path} is larger than {limit} bytes")
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            real = os.path.realpath(path)
        return Opened(b"".join(chunks), st, real)
    finally:
        os.close(fd)


def read_trusted(path: PathLike, limit: int, euid: Optional[int] = None) -> Opened:
    """:func:`read_regular`, refusing (as root) a file that another user could have written or
    replaced: owned by another user, writable by others, or below a folder they can write."""
    euid = os.geteuid() if euid is None else euid
    opened = read_regular(path, limit)
    if euid == 0:
        problem = writable_by_others(opened.stat, euid)
        if problem:
            raise Unsafe(errno.EPERM, f"{opened.path} {problem}")
        problem = folders_above_reason(opened.path, euid)
        if problem:
            raise Unsafe(errno.EPERM, f"{opened.path}: {problem}")
    return opened


# -- the one opener of lock files ---------------------------------------------------------------
def open_lock(path: PathLike) -> int:
    """Open (or create) a lock file, read-write, never following a link and never opening
    anything but a regular file with a single link, owned by this user, in a folder no other
    user can write (or a sticky one). Raises OSError (``Unsafe`` for a planted file)."""
    path = Path(path)
    euid = os.geteuid()
    path.parent.mkdir(parents=True, exist_ok=True)
    folder = os.stat(path.parent)
    problem = writable_by_others(folder, euid)
    if problem and not (folder.st_mode & stat.S_ISVTX and folder.st_uid in (0, euid)):
        raise Unsafe(errno.EPERM, f"the folder {path.parent} {problem}")
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
    for _ in range(3):
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o644)
            os.fchmod(fd, 0o644)
            return fd
        except FileExistsError:
            pass
        try:
            before = os.lstat(path)
        except FileNotFoundError:
            continue
        _judge_lock(path, before, euid)  # before opening: opening a device can act
        try:
            fd = os.open(path, flags)
        except FileNotFoundError:
            continue
        try:
            st = os.fstat(fd)
            if (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
                raise Unsafe(errno.EPERM, f"{path} was swapped while being opened")
            _judge_lock(path, st, euid)
            return fd
        except BaseException:
            os.close(fd)
            raise
    raise OSError(errno.EAGAIN, f"cannot open the lock file {path}")


def _judge_lock(path: Path, st: os.stat_result, euid: int) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise Unsafe(errno.EISDIR, "Is a directory: a lock file must be a regular file")
    if not stat.S_ISREG(st.st_mode):
        raise Unsafe(errno.EPERM, f"{path} is {kind(st.st_mode)}: a lock must be a regular file")
    if st.st_nlink != 1:
        raise Unsafe(errno.EPERM, f"{path} has {st.st_nlink} hard links: not a lock of ours")
    if st.st_uid != euid:
        raise Unsafe(errno.EPERM, f"{path} is owned by uid {st.st_uid}, not by this user")
