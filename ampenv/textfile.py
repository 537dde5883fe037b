"""node_exporter's textfile collector: ``<dir>/ampenv.prom``, replaced atomically.

The collector may read the folder at any moment, so the file is written under a name it
ignores (not ``*.prom``) in the same folder, then renamed over the old one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

FILENAME = "ampenv.prom"


def write_textfile(directory: Path, text: str, name: str = FILENAME) -> Path:
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from a non-root node_exporter
        target = directory / name
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
