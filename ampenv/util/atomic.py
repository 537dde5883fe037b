"""Files replaced atomically: readers (a Slurm prolog verifying the certificate, node_exporter
reading its textfile folder, a script reading --output) see the old file or the new one, never
half of one, and a failed write leaves the old file as it was."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Union


@contextlib.contextmanager
def replacing(path: Union[str, Path], mode: int = 0o644) -> Iterator[BinaryIO]:
    """A temp file beside ``path`` (a name that starts with a dot and ends in ``.tmp``, which
    collectors ignore); when the block ends it is flushed to disk, given ``mode`` and renamed
    over ``path``; when the block raises it is removed."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text(path: Union[str, Path], text: str, mode: int = 0o644) -> None:
    with replacing(path, mode) as fh:
        fh.write(text.encode("utf-8"))
