"""The one writer of output files. Readers (a Slurm prolog verifying the certificate,
node_exporter reading its textfile folder, a script reading --output) see the old file or the
new one, never half of one, and a failed write leaves the old file as it was.

What is at the target decides what happens, and nothing but a regular file is ever replaced:

- nothing: the new file is linked into place, which fails rather than replace anything that
  appeared meanwhile;
- a regular file: replaced (temp file beside it, then rename), only if it is still the file
  first seen when the rename comes;
- a character device or a FIFO (``/dev/null``, a named pipe): written through, never replaced;
  a FIFO without a reader is refused rather than waited for;
- a symbolic link: followed only when the link is root's or this user's and leads to a
  character device or a FIFO (``/dev/stdout``); any other link is refused, never replaced and
  never written through (a planted link would aim root's write anywhere);
- anything else (a folder, a block device, a socket): refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Optional, Union

from ampenv.util.bounded import kind

_FDS = "/proc/self/fd"


class UnsafeTarget(OSError):
    """The output path holds something the writer will not replace or write through."""

    def __init__(self, path: Union[str, Path], why: str, code: int = errno.EPERM) -> None:
        super().__init__(code, f"{path} {why}; nothing was written")


def _streamable(mode: int) -> bool:
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _open_through(path: Path, follow: bool) -> BinaryIO:
    """Open a character device or FIFO for writing, without creating or truncating anything
    and without waiting for a FIFO's reader."""
    flags = os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    if not follow:
        flags |= os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise UnsafeTarget(path, "is a FIFO that nobody reads", errno.ENXIO) from None
        raise
    try:
        st = os.fstat(fd)
        if not _streamable(st.st_mode):  # swapped since it was looked at
            raise UnsafeTarget(path, f"became {kind(st.st_mode)} while being opened")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "wb")
    except BaseException:
        os.close(fd)
        raise


def _link_target_ok(path: Path, lst: os.stat_result) -> bool:
    """A link the writer follows: root's or this user's, to a character device or FIFO."""
    if lst.st_uid not in (0, os.geteuid()):
        return False
    try:
        return _streamable(os.stat(path).st_mode)
    except OSError:
        return False


def _look(path: Path) -> Optional[os.stat_result]:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def replacing(path: Union[str, Path], mode: int = 0o644) -> Iterator[BinaryIO]:
    """A file to write ``path``'s new content to. For a regular file or nothing: a file without
    a name in ``path``'s folder (else a temp file beside it), flushed to disk, given ``mode``,
    named beside ``path`` (a name that starts with a dot and ends in ``.tmp``, which collectors
    ignore) and put in place when the block ends, removed when it raises. For a character
    device or FIFO: the device itself. Anything else raises :class:`UnsafeTarget` before the
    block runs."""
    path = Path(path)
    first = _look(path)
    if first is not None and not stat.S_ISREG(first.st_mode):
        if _streamable(first.st_mode) or (
            stat.S_ISLNK(first.st_mode) and _link_target_ok(path, first)
        ):
            with _open_through(path, follow=stat.S_ISLNK(first.st_mode)) as fh:
                yield fh
                fh.flush()
            return
        if stat.S_ISLNK(first.st_mode):
            raise UnsafeTarget(path, "is a symbolic link (name its target instead)")
        raise UnsafeTarget(path, f"is {kind(first.st_mode)}")
    fd = _unnamed(path.parent)
    tmp: Optional[str] = None
    if fd is None:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
            if tmp is None:
                tmp = _named(fh.fileno(), path)
        _put_in_place(tmp, path, first)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def _unnamed(folder: Path) -> Optional[int]:
    """A file in ``folder`` without a name (O_TMPFILE) to write the content to: a process
    killed while it writes leaves nothing behind. None where the kernel, the filesystem or
    /proc offers none (a temp file with a name is used then)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir(_FDS):
        return None
    try:
        return os.open(folder, flag | os.O_RDWR | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
            return None
        raise


def _named(fd: int, path: Path) -> str:
    """Give the unnamed file ``fd`` a temp name beside ``path``, once written: the name lives
    only as long as the rename that follows takes."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        while True:
            name = f".{path.name}.{secrets.token_hex(6)}.tmp"
            try:
                # (a folder's fd makes os.link call linkat, which follows /proc's link)
                os.link(f"{_FDS}/{fd}", name, dst_dir_fd=folder, follow_symlinks=True)
            except FileExistsError:
                continue
            except OSError:  # /proc's link not followed (a sandbox): a named copy of it
                return _copy(fd, path)
            return str(path.parent / name)
    finally:
        os.close(folder)


def _copy(fd: int, path: Path) -> str:
    """A temp file beside ``path`` holding what ``fd`` holds, flushed to disk."""
    copy, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(copy, stat.S_IMODE(os.fstat(fd).st_mode))
        os.lseek(fd, 0, os.SEEK_SET)
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            while chunk:
                chunk = chunk[os.write(copy, chunk) :]
        os.fsync(copy)
    except BaseException:
        os.unlink(tmp)
        raise
    finally:
        os.close(copy)
    return tmp


def _put_in_place(tmp: str, path: Path, first: Optional[os.stat_result]) -> None:
    now = _look(path)
    if first is None:
        if now is not None:
            raise UnsafeTarget(path, f"appeared ({kind(now.st_mode)}) while being written")
        try:
            os.link(tmp, path)  # fails with EEXIST: never replaces what appeared meanwhile
        except FileExistsError:
            raise UnsafeTarget(path, "appeared while being written") from None
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                raise
            os.replace(tmp, path)  # a filesystem without hard links
        else:
            os.unlink(tmp)
        return
    same = now is not None and (now.st_dev, now.st_ino) == (first.st_dev, first.st_ino)
    if not (same and stat.S_ISREG(now.st_mode)):  # type: ignore[union-attr]
        raise UnsafeTarget(path, "was replaced by something else while being written")
    os.replace(tmp, path)


def write_bytes(path: Union[str, Path], data: bytes, mode: int = 0o644) -> None:
    with replacing(path, mode) as fh:
        fh.write(data)


def write_text(path: Union[str, Path], text: str, mode: int = 0o644) -> None:
    write_bytes(path, text.encode("utf-8"), mode)
