"""Bounded reads of regular files: the one way ampenv reads a path a user, a config or a log
folder names.

A FIFO named like a plog, ``/dev/zero`` given as ``--config``, a socket as the certificate:
each would block on open or read without end. Every function here opens with ``O_NONBLOCK``
(so opening a FIFO never waits for a writer), then ``fstat``s the descriptor and refuses
anything but a regular file, and never reads more than it was told to.

``follow=False`` adds ``O_NOFOLLOW``: for files found by globbing a log folder, where a
symlink is not something ampenv was asked to read. User-named paths (``--config``, the
certificate, ``--bundle``) follow symlinks, as Kubernetes ConfigMaps are symlinks.

The log scan (logs.errors, on ampenv/knowledge/failures) reads plogs through :func:`read_tail`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Optional, Union

PathLike = Union[str, Path]


class NotRegular(OSError):
    """The path is not a regular file (a FIFO, a device, a socket, a folder)."""


class TooLarge(OSError):
    """The file holds more than the caller allowed."""


def kind(mode: int) -> str:
    """What a file of this mode is, in words: "a FIFO", "a folder", ..."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def not_regular(path: PathLike) -> Optional[str]:
    """Why ``path`` is no regular file to read, in words; None where it is one."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:  # a name too long, a loop of links, no such file
        return exc.strerror or str(exc)
    return None if stat.S_ISREG(mode) else f"{kind(mode)}, not a regular file"


def open_fd(path: PathLike, *, follow: bool = True) -> int:
    """A read-only descriptor of a regular file. Raises NotRegular (an OSError whose
    ``strerror`` says what the path is) or the OSError of open."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise NotRegular(errno.ELOOP, "a symlink, not followed", str(path)) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(errno.EINVAL, f"{kind(mode)}, not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def open_regular(path: PathLike, *, follow: bool = True) -> Iterator[BinaryIO]:
    """A binary file object of a regular file (see :func:`open_fd`)."""
    with os.fdopen(open_fd(path, follow=follow), "rb") as fh:
        yield fh


def read_bytes(path: PathLike, limit: int, *, follow: bool = True) -> bytes:
    """The whole file, at most ``limit`` bytes; TooLarge when it holds more."""
    with open_regular(path, follow=follow) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data


def read_head(path: PathLike, limit: int, *, follow: bool = True) -> bytes:
    """The first ``limit`` bytes (fewer when the file is shorter)."""
    with open_regular(path, follow=follow) as fh:
        return fh.read(limit)


def read_tail(
    path: PathLike, limit: int, *, follow: bool = True, whole_lines: bool = True
) -> bytes:
    """The last ``limit`` bytes; with ``whole_lines``, from the first whole line when the
    file was cut (logs grow at the end). A file that grows meanwhile is still read at most
    ``limit`` bytes."""
    with open_regular(path, follow=follow) as fh:
        size = os.fstat(fh.fileno()).st_size
        start = max(0, size - limit)
        fh.seek(start)
        data = fh.read(limit)
    if start and whole_lines:
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    return data


def read_text(path: PathLike, limit: int, *, follow: bool = True) -> str:
    """:func:`read_bytes` decoded as UTF-8 (strict: UnicodeDecodeError for other bytes)."""
    return read_bytes(path, limit, follow=follow).decode("utf-8")
