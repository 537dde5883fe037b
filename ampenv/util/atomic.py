"""The one writer of output files. Readers (a Slurm prolog verifying the certificate,
node_exporter reading its textfile folder, a script reading --output) see the old file or the
new one, never half of one, and a failed write leaves the old file as it was.

What is at the target decides what happens, and nothing but a regular file is ever replaced:

- nothing: the new file is linked into place, which fails rather than replace anything that
  appeared meanwhile;
- a regular file: replaced (an unnamed file in its folder, named only to be renamed over it),
  only if it is still the file first seen when the rename comes; with ``keep``, refused;
- a character device or a FIFO (``/dev/null``, a named pipe): written through, never replaced;
  a FIFO without a reader is refused rather than waited for, and one whose reader stops
  taking what is written is given up on after STALL_S;
- a symbolic link: followed only when the link is root's or this user's and leads to a
  character device or a FIFO (``/dev/stdout``); any other link is refused, never replaced and
  never written through (a planted link would aim root's write anywhere);
- anything else (a folder, a block device, a socket): refused.

Every step works in the target's folder opened once: a folder swapped for another while the
content is written changes nothing of where the temp file goes and what is renamed.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import select
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Optional, Union

from ampenv.util import stdio
from ampenv.util.bounded import kind

_FDS = "/proc/self/fd"
STALL_S = 60.0  # a reader that takes nothing written for this long has stopped reading
_CHUNK = 1 << 20


class UnsafeTarget(OSError):
    """The output path holds something the writer will not replace or write through."""

    def __init__(self, path: Union[str, Path], why: str, code: int = errno.EPERM) -> None:
        super().__init__(code, f"{path} {why}; nothing was written")


def _streamable(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


class _Through(io.RawIOBase):
    """A character device or FIFO, written without blocking: every write waits at most STALL_S
    for its reader to take something, none while a SIGTERM unwinds, and closing writes nothing
    (an exit never waits on a reader that stopped)."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd, self._path = fd, path

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data) -> int:  # type: ignore[no-untyped-def]
        view = memoryview(data).cast("B")
        done = 0
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        while done < len(view):
            try:
                done += os.write(self._fd, view[done : done + _CHUNK])
            except BlockingIOError:
                if stdio.terminating():  # what is left to flush while a SIGTERM unwinds
                    raise stdio.Terminated(stdio.EXIT_SIGTERM) from None
                if not poller.poll(STALL_S * 1000):
                    raise OSError(
                        errno.ETIMEDOUT,
                        f"{self._path} took nothing written for {STALL_S:g} s: its reader "
                        "stopped reading",
                    ) from None
        return done

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


def _open_through(folder: int, path: Path, follow: bool) -> BinaryIO:
    """Open a character device or FIFO for writing, without creating or truncating anything
    and without waiting for a FIFO's reader."""
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path.name, flags, dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise UnsafeTarget(path, "is a FIFO that nobody reads", errno.ENXIO) from None
        raise
    try:
        st = os.fstat(fd)
        if not _streamable(st.st_mode):  # swapped since it was looked at
            raise UnsafeTarget(path, f"became {kind(st.st_mode)} while being opened")
        return _Through(fd, path)  # type: ignore[return-value]
    except BaseException:
        os.close(fd)
        raise


def _link_target_ok(folder: int, name: str, lst: os.stat_result) -> bool:
    """A link the writer follows: root's or this user's, to a character device or FIFO."""
    if lst.st_uid not in (0, os.geteuid()):
        return False
    try:
        return _streamable(os.stat(name, dir_fd=folder).st_mode)
    except OSError:
        return False


def _look(folder: int, name: str) -> Optional[os.stat_result]:
    try:
        return os.lstat(name, dir_fd=folder)
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def replacing(path: Union[str, Path], mode: int = 0o644, keep: bool = False) -> Iterator[BinaryIO]:
    """A file to write ``path``'s new content to. For a regular file or nothing: a file without
    a name in ``path``'s folder (else a temp file beside it), flushed to disk, given ``mode``,
    named beside ``path`` (a name that starts with a dot and ends in ``.tmp``, which collectors
    ignore) and put in place when the block ends, removed when it raises. For a character
    device or FIFO: the device itself. ``keep``: whatever stands at ``path``, or appears there
    before the new file is linked in, is kept (the new file is refused). Anything the writer
    will not write raises :class:`UnsafeTarget` before the block runs."""
    path = Path(path)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        first = _look(folder, path.name)
        if first is not None and keep:
            raise UnsafeTarget(path, f"exists ({kind(first.st_mode)})", errno.EEXIST)
        if first is not None and not stat.S_ISREG(first.st_mode):
            if _streamable(first.st_mode) or (
                stat.S_ISLNK(first.st_mode) and _link_target_ok(folder, path.name, first)
            ):
                follow = stat.S_ISLNK(first.st_mode)
                with _open_through(folder, path, follow) as fh:
                    yield fh
                return
            if stat.S_ISLNK(first.st_mode):
                raise UnsafeTarget(path, "is a symbolic link (name its target instead)")
            raise UnsafeTarget(path, f"is {kind(first.st_mode)}")
        with _written(folder, path, mode, first) as fh:
            yield fh
    finally:
        os.close(folder)


@contextlib.contextmanager
def _written(
    folder: int, path: Path, mode: int, first: Optional[os.stat_result]
) -> Iterator[BinaryIO]:
    """The new content of the regular file (or nothing) at ``path``, put in place at the end."""
    fd = _unnamed(folder)
    tmp: Optional[str] = None
    if fd is None:
        fd, tmp = _temp(folder, path.name)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
            if tmp is None:
                tmp = _named(folder, fh.fileno(), path.name)
        _put_in_place(folder, tmp, path, first)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
        raise


def _unnamed(folder: int) -> Optional[int]:
    """A file in ``folder`` without a name (O_TMPFILE) to write the content to: a process
    killed while it writes leaves nothing behind. None where the kernel, the filesystem or
    /proc offers none (a temp file with a name is used then)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir(_FDS):
        return None
    try:
        return os.open(".", flag | os.O_RDWR | os.O_CLOEXEC, 0o600, dir_fd=folder)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _temp(folder: int, name: str) -> tuple[int, str]:
    """A new temp file beside ``name``, and its name."""
    while True:
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            return os.open(tmp, flags, 0o600, dir_fd=folder), tmp
        except FileExistsError:
            continue


def _named(folder: int, fd: int, name: str) -> str:
    """Give the unnamed file ``fd`` a temp name beside ``name``, once written: the name lives
    only as long as the rename that follows takes."""
    while True:
        tmp = f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            # (a folder's fd makes os.link call linkat, which follows /proc's link)
            os.link(f"{_FDS}/{fd}", tmp, dst_dir_fd=folder, follow_symlinks=True)
        except FileExistsError:
            continue
        except OSError:  # /proc's link not followed (a sandbox): a named copy of it
            return _copy(folder, fd, name)
        return tmp


def _copy(folder: int, fd: int, name: str) -> str:
    """A temp file beside ``name`` holding what ``fd`` holds, flushed to disk."""
    copy, tmp = _temp(folder, name)
    try:
        os.fchmod(copy, stat.S_IMODE(os.fstat(fd).st_mode))
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                break
            while chunk:
                chunk = chunk[os.write(copy, chunk) :]
        os.fsync(copy)
    except BaseException:
        os.unlink(tmp, dir_fd=folder)
        raise
    finally:
        os.close(copy)
    return tmp


def _put_in_place(folder: int, tmp: str, path: Path, first: Optional[os.stat_result]) -> None:
    name = path.name
    now = _look(folder, name)
    if first is None:
        if now is not None:
            raise UnsafeTarget(path, f"appeared ({kind(now.st_mode)}) while being written")
        try:
            # fails with EEXIST: never replaces what appeared meanwhile
            os.link(tmp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
        except FileExistsError:
            raise UnsafeTarget(path, "appeared while being written") from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)  # no hard links here
        else:
            os.unlink(tmp, dir_fd=folder)
        return
    same = now is not None and (now.st_dev, now.st_ino) == (first.st_dev, first.st_ino)
    if not (same and stat.S_ISREG(now.st_mode)):  # type: ignore[union-attr]
        raise UnsafeTarget(path, "was replaced by something else while being written")
    os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)


def write_bytes(path: Union[str, Path], data: bytes, mode: int = 0o644, keep: bool = False) -> None:
    with replacing(path, mode, keep) as fh:
        fh.write(data)


def write_text(path: Union[str, Path], text: str, mode: int = 0o644, keep: bool = False) -> None:
    write_bytes(path, text.encode("utf-8"), mode, keep)
