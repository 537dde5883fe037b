"""One installed distribution's version, read the cheap way: its ``*.dist-info`` (or
``*.egg-info``) folder on ``sys.path`` and the ``Version:`` header of its metadata.

``importlib.metadata`` gives the same answer but costs ~0.1 s just to import (email, zipfile,
csv): too much for ``certificate verify``, which a Slurm prolog runs before every job.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Optional

METADATA_FILES = {".dist-info": "METADATA", ".egg-info": "PKG-INFO"}


def canonical(name: str) -> str:
    """PEP 503 normalisation: ``Torch_NPU`` and ``torch-npu`` are one distribution."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _header_version(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    return None  # the body starts: no Version header
                key, _, value = line.partition(":")
                if key == "Version":
                    return value.strip()
    except OSError:
        return None
    return None


def version(name: str, paths: Iterable[str]) -> Optional[str]:
    """The version of the first distribution called ``name`` along ``paths`` (as
    importlib.metadata finds it: first path entry wins), or None."""
    want = canonical(name)
    for entry in paths:
        try:
            folders = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for folder in folders:
            stem, suffix = os.path.splitext(folder)
            if suffix not in METADATA_FILES or canonical(stem.split("-", 1)[0]) != want:
                continue
            found = _header_version(os.path.join(entry, folder, METADATA_FILES[suffix]))
            if found:
                return found
    return None
