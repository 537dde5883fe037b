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
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Optional, Union

from ampenv.util.bounded import kind


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
    """A file to write ``path``'s new content to. For a regular file or nothing: a temp file
    beside ``path`` (a name that starts with a dot and ends in ``.tmp``, which collectors
    ignore), flushed to disk, given ``mode`` and put in place when the block ends, removed when
    it raises. For a character device or FIFO: the device itself. Anything else raises
    :class:`UnsafeTarget` before the block runs."""
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
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
        _put_in_place(tmp, path, first)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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
