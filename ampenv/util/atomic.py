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

import array
import contextlib
import errno
import fcntl
import io
import os
import secrets
import select
import signal
import stat
import termios
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Optional, Union

from ampenv.util import stdio
from ampenv.util.bounded import kind

_FDS = "/proc/self/fd"
_HELD = (signal.SIGTERM, signal.SIGINT)
_NEW = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC  # made here, or refused
STALL_S = 60.0  # a reader that takes nothing written for this long has stopped reading
_CHUNK = 1 << 20


class UnsafeTarget(OSError):
    """The output path holds something the writer will not replace or write through."""

    def __init__(self, path: Union[str, Path], why: str, code: int = errno.EPERM) -> None:
        super().__init__(code, f"{path} {why}; nothing was written")


def _streamable(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


class _Through(io.RawIOBase):
    """A character device or FIFO, written without blocking: a write waits while its reader
    takes what is queued, at most STALL_S without a byte taken (a pipe says it has room only
    once a page is free: the bytes still queued tell a slow reader from one that stopped),
    none while a SIGTERM unwinds; after a stall it fails at once, and closing writes nothing
    (an exit never waits on a reader that stopped)."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd, self._path = fd, path
        self._stalled = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def write(self, data) -> int:  # type: ignore[no-untyped-def]
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            if self._stalled:
                raise self._stall()
            try:
                done += os.write(self._fd, view[done : done + _CHUNK])
            except BlockingIOError:
                if stdio.terminating():  # what is left to flush while a SIGTERM unwinds
                    raise stdio.Terminated(stdio.EXIT_SIGTERM) from None
                self._wait()
        return done

    def _wait(self) -> None:
        """Until there is room, or STALL_S pass with no byte taken (then it is stalled)."""
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        queued, since = self._queued(), time.monotonic()
        while not poller.poll(min(1.0, STALL_S) * 1000):
            now = self._queued()
            if queued is not None and now is not None and now < queued:  # a slow reader
                queued, since = now, time.monotonic()
            elif time.monotonic() - since >= STALL_S:
                self._stalled = True
                raise self._stall()

    def _queued(self) -> Optional[int]:
        """The bytes written and not yet read (a pipe's); None where the device says none."""
        count = array.array("i", [0])
        try:
            fcntl.ioctl(self._fd, termios.FIONREAD, count)
        except OSError:
            return None
        return count[0]

    def _stall(self) -> OSError:
        return OSError(
            errno.ETIMEDOUT,
            f"{self._path} took nothing written for {STALL_S:g} s: its reader stopped reading",
        )

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
    tmp: Optional[str] = None  # a name the content has beside the target, while it has one
    if fd is None:
        fd, tmp = _temp(folder, path.name)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
            with _signals_held():
                tmp = _put_in_place(folder, fh.fileno(), tmp, path, first)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
        raise


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGTERM and SIGINT held while the content is named and put in place: the exit they
    bring comes once it is in place or gone, never between (a temp name left behind). Held at
    Python's level (a signal mask is a thread's, and another thread may take the signal):
    recorded, then raised again to the handler it had. Only the main thread sets handlers, and
    a handler set outside Python (getsignal says None) could not be put back: not held then."""
    if threading.current_thread() is not threading.main_thread() or any(
        signal.getsignal(sig) is None for sig in _HELD
    ):
        yield
        return
    pending: list[int] = []
    before = {sig: signal.signal(sig, lambda n, _: pending.append(n)) for sig in _HELD}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        for sig in pending:
            signal.raise_signal(sig)


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


def _temp_name(name: str) -> str:
    """A temp name beside ``name``: a dot first and ``.tmp`` last, which collectors ignore."""
    return f".{name}.{secrets.token_hex(6)}.tmp"


def _temp(folder: int, name: str) -> tuple[int, str]:
    """A new temp file beside ``name``, and its name."""
    while True:
        tmp = _temp_name(name)
        try:
            return os.open(tmp, _NEW, 0o600, dir_fd=folder), tmp
        except FileExistsError:
            continue


def _linked(folder: int, fd: int, name: str) -> bool:
    """Give the unnamed file ``fd`` the name ``name`` in ``folder`` (FileExistsError where
    something has it); False where it cannot be linked (/proc's link not followed in a
    sandbox, a filesystem without hard links)."""
    try:
        # (a folder's fd makes os.link call linkat, which follows /proc's link)
        os.link(f"{_FDS}/{fd}", name, dst_dir_fd=folder, follow_symlinks=True)
    except FileExistsError:
        raise
    except OSError:
        return False
    return True


def _named(folder: int, fd: int, name: str) -> str:
    """A temp name beside ``name`` for the content of ``fd``: the unnamed file itself, or a
    copy of it."""
    while True:
        tmp = _temp_name(name)
        try:
            if _linked(folder, fd, tmp):
                return tmp
        except FileExistsError:
            continue
        copy, tmp = _temp(folder, name)
        _fill(folder, copy, fd, tmp)
        return tmp


def _fill(folder: int, copy: int, fd: int, name: str) -> None:
    """Write into ``copy`` (the new file ``name``) what ``fd`` holds, flushed to disk; the new
    file is removed where that fails."""
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
        os.unlink(name, dir_fd=folder)
        raise
    finally:
        os.close(copy)


def _put_in_place(
    folder: int, fd: int, tmp: Optional[str], path: Path, first: Optional[os.stat_result]
) -> Optional[str]:
    """Put the content of ``fd`` (named ``tmp`` beside the target, or unnamed) at ``path``;
    the temp name still there after it (None: none is)."""
    name = path.name
    now = _look(folder, name)
    if first is None:
        if now is not None:
            raise UnsafeTarget(path, f"appeared ({kind(now.st_mode)}) while being written")
        try:  # a link fails with EEXIST: never over what appeared meanwhile
            linked = _linked(folder, fd, name) if tmp is None else _hard_link(folder, tmp, name)
            if not linked:  # no hard links here: the file made anew, only where none is
                copy = os.open(name, _NEW, 0o600, dir_fd=folder)
                _fill(folder, copy, fd, name)
        except FileExistsError:
            raise UnsafeTarget(path, "appeared while being written") from None
        if tmp is not None:
            os.unlink(tmp, dir_fd=folder)
        return None
    same = now is not None and (now.st_dev, now.st_ino) == (first.st_dev, first.st_ino)
    if not (same and stat.S_ISREG(now.st_mode)):  # type: ignore[union-attr]
        raise UnsafeTarget(path, "was replaced by something else while being written")
    named = _named(folder, fd, name) if tmp is None else tmp
    try:
        os.replace(named, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        if named != tmp:  # (the caller removes its own)
            os.unlink(named, dir_fd=folder)
        raise
    return None


def _hard_link(folder: int, tmp: str, name: str) -> bool:
    """Link the temp file ``tmp`` as ``name`` (FileExistsError where something has it); False
    on a filesystem without hard links."""
    try:
        os.link(tmp, name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        return False
    return True


def write_bytes(path: Union[str, Path], data: bytes, mode: int = 0o644, keep: bool = False) -> None:
    with replacing(path, mode, keep) as fh:
        fh.write(data)


def write_text(path: Union[str, Path], text: str, mode: int = 0o644, keep: bool = False) -> None:
    write_bytes(path, text.encode("utf-8"), mode, keep)
