"""The one catalogue of Ascend failure knowledge, as data with sources, and its matcher.

``CATALOGUE`` holds every known failure; ``scan_lines`` / ``Scanner`` find them in logs;
``explain`` answers an error code, a failure id or a pasted log line; ``nearest`` suggests the
known codes closest to an unknown one.
"""

from __future__ import annotations

import re
import unicodedata

from ampenv.knowledge.failures import cann_messages, code_tables, codes, faultdiag, ge_status, plog
from ampenv.knowledge.failures.catalogue import BY_ID, CATALOGUE
from ampenv.knowledge.failures.findings import Hit, leading
from ampenv.knowledge.failures.lines import ANSI
from ampenv.knowledge.failures.match import Scanner, scan_lines
from ampenv.knowledge.failures.model import MODES, WEIGHTS, Failure, Source

__all__ = [
    "BY_ID",
    "CATALOGUE",
    "MODES",
    "WEIGHTS",
    "Failure",
    "Hit",
    "Scanner",
    "Source",
    "explain",
    "faultdiag",
    "leading",
    "nearest",
    "scan_lines",
]

_E_CODE = re.compile(r"(?a)(?<![A-Za-z0-9])E[A-Z0-9]\d{4}(?![0-9])")
_CODE = re.compile(
    rf"(?a)^(?:[EW][A-Z0-9]\d{{4}}|ERR\d{{5}}|-?\d{{4,6}}|{ge_status.STATUS}|0x[0-9a-f]{{1,8}})$",
    re.IGNORECASE,
)


# What `explain` reads: a code, an id or a few pasted lines (a whole log is `doctor --log`'s)
QUERY_CHARS = 1 << 16
NEAREST_CHARS = 120  # the longest query neighbours are looked for (difflib: quadratic)


def read_query(query: str) -> str:
    """``query`` as typed or pasted, read as a log's text is: full-width forms are the ASCII
    ones ("５０７０３５"), and a zero-width or direction mark (Unicode's format characters)
    is no part of a code."""
    text = unicodedata.normalize("NFKC", query)
    return "".join(c for c in text if unicodedata.category(c) != "Cf").strip()


def _norm(code: str) -> str:
    code = code.strip()
    return code.lower() if code.lower().startswith("0x") else code.upper()


def explain(query: str) -> list[Failure]:
    """The failures a query names: a failure id, an error code ("EI0006", "507035", "-8020",
    "0x25", "ACL_ERROR_RT_AICORE_EXCEPTION"), or pasted log text (one or more lines), most
    specific first."""
    q = read_query(query)
    if q in BY_ID:
        return [BY_ID[q]]
    # an id a scan reported for a decoded code, or a Fault-Diag rule's own id
    decoded = codes.by_id(q) or ge_status.by_id(q) or plog.by_id(q) or faultdiag.by_id(q)
    if decoded is not None:
        return [decoded]
    if _CODE.match(q):
        return _by_code(q)
    # an ACL code by its name (ACL_ERROR_RT_AICORE_EXCEPTION): a log is read by the number
    # printed with it, the name alone being in too much that is no failure (code, docs, tests)
    if q in code_tables.ACL_BY_NAME:
        return _by_code(code_tables.ACL_BY_NAME[q])
    # a pasted line is asked about: a logger's INFO mark on it does not make its code a mention
    asked = {"heed_levels": False, "tell_recoveries": True}
    found = [hit.failure for hit in scan_lines(q.split("\n"), "query", **asked)]
    if found:
        return found
    # and it is an error's line, as its asker says: a message the scan reads only on a line
    # with an error's mark ("malloc size must be greater than zero", for one pass less over
    # every log) is read with one
    marked = [f"error: {line}" for line in q.split("\n")]
    found = [hit.failure for hit in scan_lines(marked, "query", **asked)]
    if found:
        return found
    # a line with no error word for the scanner to find it by: an E-code's message without its
    # code, or what Fault-Diag's rules read
    found = cann_messages.pasted(q) or faultdiag.pasted(q)
    if found:
        return found
    # A pasted fragment without the words a log line carries ("EI0006 at step 3"): the known
    # error codes it names (E-codes only: bare numbers in free text are too often something else).
    plain = ANSI.sub(b"", q.encode("utf-8", "surrogatepass")).decode("utf-8", "replace")
    tokens = dict.fromkeys(_E_CODE.findall(plain))  # each code looked up once
    return list(dict.fromkeys(f for token in tokens for f in _by_code(token)))


def _by_code(code: str) -> list[Failure]:
    wanted = _norm(code)
    found = [f for f in CATALOGUE if wanted in {_norm(c) for c in f.codes}]
    if not found:  # no entry of its own: its family's table may still know it
        decoded = codes.lookup(wanted) or ge_status.decode(wanted)
        found = [decoded] if decoded is not None else []
    return sorted(found, key=lambda f: f.rank)


def nearest(query: str, n: int = 5) -> list[str]:
    """Known codes and ids closest to ``query`` (for an unknown code: its neighbours; a text
    longer than any code or id has none)."""
    q = read_query(query)
    q = _norm(q) if _CODE.match(q) else q
    if len(q) > NEAREST_CHARS:
        return []
    codes = sorted({_norm(c) for f in CATALOGUE for c in f.codes} | set(ge_status.known()))
    if q.lstrip("-").isdigit():
        # a number's neighbours are of its size: leading zeros ("0507035") add none
        q = ("-" if q.startswith("-") else "") + (q.lstrip("-").lstrip("0") or "0")
        same_kind = [c for c in codes if c.lstrip("-").isdigit() and len(c) == len(q)]
        ranked = sorted(same_kind, key=lambda c: (-_prefix(c, q), abs(int(c) - int(q))))
        return ranked[:n]
    import difflib  # `ampenv explain` only

    return difflib.get_close_matches(q, codes + sorted(BY_ID), n=n, cutoff=0.4)


def _prefix(a: str, b: str) -> int:
    size = 0
    for x, y in zip(a, b):
        if x != y:
            break
        size += 1
    return size
