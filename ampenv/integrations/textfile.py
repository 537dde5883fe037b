"""node_exporter's textfile collector: ``<dir>/ampenv.prom``, replaced atomically.

The collector may read the folder at any moment, so the file is replaced atomically, from a
temp file whose name it ignores (not ``*.prom``).
"""

from __future__ import annotations

import errno
from pathlib import Path

from ampenv.util.atomic import write_text

FILENAME = "ampenv.prom"


def write_textfile(directory: Path, text: str, name: str = FILENAME) -> Path:
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(directory))
    directory.mkdir(exist_ok=True)  # the folder itself, not a tree a typo would make
    target = directory / name
    write_text(target, text)  # 0644: mkstemp's 0600 would hide it from a non-root node_exporter
    return target
