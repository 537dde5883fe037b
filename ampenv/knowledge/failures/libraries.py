"""Shared libraries by the package that installs them: a library the loader cannot open names
the package to install or the environment to source, whichever program printed the line
(``ImportError: libqos_manager.so: cannot open shared object file`` from torch_npu, the same
from npu-smi, a MindSpore or Paddle plugin, an ``ldd`` run).

The names are data (libraries.json, from the packages' own file lists). A library no package
there lists (a system library, a framework's own) is not decoded: the loader's line alone does
not say whose it is.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Optional

from ampenv.knowledge.failures.model import CLASS, Failure, Source

FAMILY = "shared-library"
TABLE_FILE = Path(__file__).with_name("libraries.json")
# The entry a package's missing library is, in the order a name listed twice is read: CANN's
# toolkit before the driver (set_env.sh puts the toolkit's copy of a library both ship on the
# loader's path), the driver before NNAL.
OWNERS = (
    ("cann", "cann-not-sourced"),
    ("driver", "driver-not-mounted"),
    ("nnal", "nnal-not-sourced"),
)
PATTERN = r"(?<![\w.+-])(?P<code>lib[\w+-]{1,60}?)\.so(?:\.[\d.]{1,20})?: cannot open shared object"


def _owners() -> tuple[tuple[str, ...], dict[str, str]]:
    """Where the table comes from, and each library's entry id."""
    data = json.loads(TABLE_FILE.read_text(encoding="utf-8"))
    owner: dict[str, str] = {}
    for package, entry in OWNERS:
        for name in data["packages"][package]:
            owner.setdefault(name, entry)
    return tuple(data["sources"]), owner


def family(named: dict[str, Failure]) -> Failure:
    """The family over ``named`` (the catalogue's entries by id): a listed library decodes to
    its package's entry, found through this family."""
    sources, owner = _owners()
    decoded = {
        entry: replace(named[entry], family=FAMILY) for entry in dict.fromkeys(owner.values())
    }

    def decode(m: re.Match[str]) -> Optional[Failure]:
        entry = owner.get(m.group("code"))
        return None if entry is None else decoded[entry]

    return Failure(
        id=FAMILY,
        mode="cann-env",
        component="loader",
        patterns=(PATTERN,),
        codes=(),
        meaning=f"a shared library the loader cannot open, of a package that installs it "
        f"({len(owner)} libraries of CANN, the driver and NNAL/ATB): that package's failure",
        causes=("the package's environment not sourced, or the package not installed",),
        fix="the fix of the package's failure: `ampenv explain cann-not-sourced` (CANN), "
        "`driver-not-mounted` (the driver), `nnal-not-sourced` (NNAL/ATB)",
        confirm=None,
        sources=tuple(Source(ref, "official") for ref in sources),
        hints=("cannot",),
        rank=CLASS,
        decode=decode,
    )
