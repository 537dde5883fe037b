"""GE's status numbers (1343225856 and up): what the graph engine returns where a stage fails.

GE prints them with its own words ("ErrorNo: 1343242270(Prepare Graph infershape failed)"), but
the programs on top of it often print the bare number: torchair's "Compile graph failed, error
code:1343225857", MindSpore's "return ret: 1343225860", OpenCV's "CANN graph check failed, ret
= 1343266818", Paddle Lite's "Unknown ATC error code(1343266818)". The number names the stage
that failed and GE's word for it; the cause is in the lines GE logged before it (an E-code, an
[ERROR] GE line), so the family's findings are follow-ups (rank GENERIC). The table is data
(ge_status_codes.json, written by tools/ge_status_import.py from GE's headers).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Optional

from ampenv.knowledge.failures.model import GENERIC, Failure, Source

TABLE_FILE = Path(__file__).with_name("ge_status_codes.json")
FAMILY = "ge-status-code"
STATUS = r"134\d{7}"  # 1343225856 (0x50100000) .. 1343266815 and the modules above
# Where a program prints one bare: after an "error code" or a "ret" (GE's own "ErrorNo:
# 1343242270(Prepare Graph infershape failed)" says its words already, and its plog line is the
# plog family's), a whole number no unit or word follows ("ret = 1343225857 ms" is a time)
CONTEXT = (
    r"(?:\berror code|\bret(?:urn ret)?|ATC error code)"
    rf"\s{{0,3}}(?:is\b|[=:(])\s{{0,3}}(?P<code>{STATUS})(?![\d.:x]|\s{{0,3}}[A-Za-z])"
)
# A memory stage's status is device memory's; every other stage builds or runs a graph
MEMORY = re.compile(r"MALLOC|MEMALLOC|MEM_ALLOC|ALLOC_\w*MEM|OUT_OF_MEMORY")


@functools.cache
def _table() -> tuple[dict[str, list[str]], tuple[Source, ...]]:
    data = json.loads(TABLE_FILE.read_text(encoding="utf-8"))
    return data["codes"], tuple(Source(s, "official") for s in data["sources"])


def known() -> list[str]:
    """Every status the table names (`ampenv explain` suggests the nearest of an unknown one)."""
    return list(_table()[0])


def decode(code: str) -> Optional[Failure]:
    """The status ``code`` (its number as text) GE's headers name; None for one they do not."""
    table, sources = _table()
    row = table.get(code)
    if row is None:
        return None
    name, module, words = row
    memory = bool(MEMORY.search(name))
    return Failure(
        id=f"ge-status-{code}",
        mode="device-memory" if memory else "compile-cache",
        component="GE",
        patterns=(),
        codes=(code,),
        meaning=f"{name}: {words.rstrip('.!')} (GE's status, its {module} module): the stage "
        "of the graph engine that failed",
        causes=("what GE logged before it (an E-code, an [ERROR] GE line) names the cause",),
        fix=(
            "free device memory or lower what the graph needs; " if memory else ""
        )
        + "read what GE logged before the status: the E-code with its Possible Cause and "
        "Solution, the [ERROR] GE lines (~/ascend/log/debug/plog; ASCEND_GLOBAL_LOG_LEVEL=3 "
        "and ASCEND_SLOG_PRINT_TO_STDOUT=1 print them); `ampenv explain` the E-code",
        confirm=None,
        sources=sources,
        hints=(),
        rank=GENERIC,
        family=FAMILY,
    )


def by_id(fid: str) -> Optional[Failure]:
    """The decoded status a scan reported as ``fid`` ("ge-status-1343242270")."""
    if not fid.startswith("ge-status-"):
        return None
    found = decode(fid[len("ge-status-") :])
    return found if found is not None and found.id == fid else None


FAMILY_ENTRY = Failure(
    id=FAMILY,
    mode="compile-cache",
    component="GE",
    patterns=(CONTEXT,),
    codes=(),
    meaning="a status number of GE (the graph engine): its name and words in GE's headers",
    causes=("the stage the number names; the cause in the lines before it",),
    fix="the lines GE logged before it: `ampenv explain NUMBER` names the stage",
    confirm=None,
    sources=(Source("ampenv/knowledge/failures/ge_status_codes.json (GE's headers)", "official"),),
    hints=("err", "ret"),
    rank=GENERIC,
    decode=lambda m: decode(m.group("code")),
)
