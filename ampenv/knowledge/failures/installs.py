"""What each package installs, so a library the loader cannot open or a Python module an import
cannot find names the package to install or the environment to source, whichever program
printed the line (``ImportError: libqos_manager.so: cannot open shared object file`` from
torch_npu, npu-smi, a MindSpore or Paddle plugin; ``No module named 'te'`` from any import).

The names are data (installs.json, from the packages' own file lists and metadata). A name no
package there lists (a system library, a program's own module) is not decoded: the line alone
does not say whose it is.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

from ampenv.knowledge.failures.lines import frame_in_line
from ampenv.knowledge.failures.model import CLASS, Failure, Source

TABLE_FILE = Path(__file__).with_name("installs.json")
# A module CANN's te/tbe require is CANN's to miss only where CANN is the importer: its EC0010
# line, or a traceback whose last frame is a file of CANN's Python packages (the toolkit's
# python/site-packages, or te/tbe installed into the job's Python); scipy or tornado missing
# elsewhere is the program's. A folder merely named "ascend" or "tbe" is not CANN's.
# (CANN's messages name the module or the exception next: "Failed to import Python module
# [ModuleNotFoundError: ...]" (EC0010), "... module te.platform. Reason: ..." (E40020); other
# programs print the same words with a colon)
CANN_LINE = re.compile(r"EC0010|Import_Python_Module|Failed to import Python module [\[\w]", re.I)
CANN_FRAME = re.compile(
    r'\nFile "[^"\n]{0,300}?(?:/ascend-toolkit/|/cann(?:-[\w.]{1,20})?/[^"\n]{0,120}?'
    r"/site-packages/|/site-packages/(?:tbe|te|te_fusion)/)"
)


# A module torch_npu requires is torch_npu's to miss where a file of torch_npu imported it
TORCH_NPU_FRAME = re.compile(r'\nFile "[^"\n]{0,300}?(?:-packages|\.\.\.)/torch_npu/')


def _frame(m: re.Match[str]) -> tuple[str, str]:
    # the scanner reads a line with the frame above it, after a line break; a JSON record or a
    # repr holds its frame in the line
    line, _, frame = m.string.partition("\n")
    return line, "\n" + frame if frame else frame_in_line(line, m.start())


def _torch_npu_imports(m: re.Match[str]) -> bool:
    return TORCH_NPU_FRAME.search(_frame(m)[1]) is not None


def _cann_imports(m: re.Match[str]) -> bool:
    line, frame = _frame(m)
    return CANN_LINE.search(line) is not None or CANN_FRAME.search(frame) is not None


# a Python warning: the program went on (torchvision's "UserWarning: Failed to load image
# Python extension: 'libc10.so: cannot open ...'", an optional extension it does without)
_WARNING = re.compile(r"\w{0,40}Warning: ")


def _python_loads(m: re.Match[str]) -> bool:
    # torch's libraries are loaded by `import torch`; a program's "error while loading shared
    # libraries" is its own loader path's (MindIE's daemon: its set_env.sh, nnal-not-sourced)
    line = m.string[m.string.rfind("\n", 0, m.start()) + 1 : m.start()]
    return "while loading shared libraries" not in m.string and not _WARNING.search(line)


# Each package: its entry, and what the line must also show for the name to be its (None:
# nothing), in the order a name listed twice is read: the driver before CANN's toolkit
# (libc_sec, libmmpa, libqos_manager: the driver's copy is the one a device program such as
# DCMI loads, and its fix names the loader's path for both), CANN before NNAL.
Owner = tuple[str, Optional[Callable[[re.Match[str]], bool]]]
LIBRARY_OWNERS: tuple[tuple[str, Owner], ...] = (
    ("driver", ("driver-not-mounted", None)),
    ("cann", ("cann-not-sourced", None)),
    ("nnal", ("nnal-not-sourced", None)),
    ("torch", ("torch-libs-not-loaded", _python_loads)),
    ("torch_npu", ("torch-libs-not-loaded", _python_loads)),
)
MODULE_OWNERS: tuple[tuple[str, Owner], ...] = (
    ("cann", ("cann-python-missing", None)),
    ("cann-requires", ("init-env-failed", _cann_imports)),
    ("torch_npu-requires", ("torch-npu-python-deps", _torch_npu_imports)),
    ("python-build", ("python-built-incomplete", None)),
)
LIBRARY = (
    r"(?<![\w.+-])(?P<code>lib[\w+-]{1,60}?)\.so(?:\.[\d.]{1,20})?: cannot open shared object",
    # a program's own words for the loader's failure (npu-smi, ascend-dmi, DCMI bindings)
    r"Failed to load (?:the )?(?P<code>lib[\w+-]{1,60}?)\.so(?:\.[\d.]{1,20})? dynamic library",
    # a build looking for it (ATB's: "libtbe_adapter.so does not exist")
    r"(?<![\w.+-])(?P<code>lib[\w+-]{1,60}?)\.so(?:\.[\d.]{1,20})? does not exist",
)
# the top-level package of the module named ("No module named 'tbe.common.utils'": tbe)
# (its quote escaped where a repr or a JSON record carries the line, or double where a page
# retyped it)
MODULE = (r"No module named \\?['\"]?(?P<code>[A-Za-z_]\w{0,60})(?![\w])",)


def _table() -> dict:
    return json.loads(TABLE_FILE.read_text(encoding="utf-8"))


def _sources(section: dict) -> tuple[Source, ...]:
    return tuple(Source(ref, "official") for ref in section["sources"])


def _family(
    fid: str,
    what: str,
    patterns: tuple[str, ...],
    hints: tuple[str, ...],
    owners: dict[str, Owner],
    named: dict[str, Failure],
    sources: tuple[Source, ...],
    frame: bool = False,
) -> Failure:
    entries = dict.fromkeys(entry for entry, _ in owners.values())
    decoded = {e: replace(named[e], family=fid) for e in entries}

    def decode(m: re.Match[str]) -> Optional[Failure]:
        entry, context = owners.get(m.group("code"), (None, None))
        if entry is None or (context is not None and not context(m)):
            return None
        return decoded[entry]

    return Failure(
        id=fid,
        mode="cann-env",
        component="loader",
        patterns=patterns,
        codes=(),
        meaning=f"a {what}, of a package that installs it ({len(owners)} names): that package's "
        "failure",
        causes=("the package's environment not sourced, or the package not installed",),
        fix="the fix of the package's failure: "
        + ", ".join(f"`ampenv explain {e}`" for e in entries),
        confirm=None,
        sources=sources,
        hints=hints,
        rank=CLASS,
        frame=frame,
        decode=decode,
    )


def families(named: dict[str, Failure]) -> tuple[Failure, ...]:
    """The families over ``named`` (the catalogue's entries by id): a listed name decodes to its
    package's entry, found through the family."""
    data = _table()

    def owners(section: str, order: tuple[tuple[str, Owner], ...]) -> dict[str, Owner]:
        found: dict[str, Owner] = {}
        for package, entry in order:
            for name in data[section]["packages"][package]:
                found.setdefault(name, entry)
        return found

    return (
        _family(
            "shared-library",
            "shared library the loader cannot open",
            LIBRARY,
            ("cannot", "fail"),
            owners("libraries", LIBRARY_OWNERS),
            named,
            _sources(data["libraries"]),
        ),
        _family(
            "python-module",
            "Python module an import cannot find",
            MODULE,
            ("no module named",),
            owners("python", MODULE_OWNERS),
            named,
            _sources(data["python"]),
            frame=True,  # the file that imported it
        ),
    )
