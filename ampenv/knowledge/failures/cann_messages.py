"""CANN's error messages read without their code.

CANN prints an E-code's message from a format its error table holds ("Device %s is occupied by
multiple containers."); a log shows it behind the code ("EL0020: [PID: 7] ..."), but a pasted
excerpt, a traceback cut below its code, or a documentation example shows the message alone.
Such a line is the code's: each format that only one code prints, with enough fixed words to be
told from other text, is read as that code. The scanner asks for a line nothing else explains.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Optional

from ampenv.knowledge.failures.codes import e_code
from ampenv.knowledge.failures.e_codes import E_PAGES_SOURCE, ERROR_CODE_JSON, cann_e_formats
from ampenv.knowledge.failures.model import GENERIC, Failure, Source

FAMILY = "cann-message"
# printf's conversions in a format: each stands for a value of the log's
_PLACEHOLDER = re.compile(r"%(?:[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t|L)?[sdiuxXfgcp])")
_LETTERS = re.compile(r"[a-z]{4,}")
_WORD = re.compile(r"[a-z]+")
VALUE = 200  # characters a placeholder stands for at most: a value, a path, a reason
# A format is read alone only with this much fixed text, in this many words: "Failed: %s" or
# "Reason[%s]" names no code.
FIXED_CHARS = 24
FIXED_WORDS = 4


@dataclass(frozen=True)
class Format:
    """A format's message as a reader of lines: its fixed pieces in order, each a value of at
    most VALUE characters from the one before (a value per placeholder between them). Read
    piece by piece, the nearest next piece each time: no backtracking, so a line crafted of a
    format's small pieces ("], [" over and over) costs its length, not its length to the power
    of its placeholders, as a regex of lazy values did."""

    code: str
    pieces: tuple[re.Pattern[str], ...]
    gaps: tuple[int, ...]  # the most characters between a piece and the one before it
    fixed: int  # characters of fixed text: the more, the more specific
    words: frozenset[str]  # the words of its fixed text: a line lacking one is not its

    def search(self, line: str) -> Optional[tuple[int, int]]:
        """The span of the message in ``line``, from its first fixed piece to its last."""
        first, rest = self.pieces[0], tuple(zip(self.pieces[1:], self.gaps[1:]))
        for m in first.finditer(line):
            at = m.end()
            for piece, gap in rest:
                nxt = piece.search(line, at, at + gap + len(piece.pattern))
                if nxt is None or nxt.start() - at > gap:
                    break
                at = nxt.end()
            else:
                return m.start(), at
        return None


def reader(code: str, fmt: str) -> Optional[Format]:
    """The reader of a format's message: its fixed text as written (runs of spaces as any
    spaces, its final stop optional). None for a format with too little fixed text to name
    its code."""
    parts = _PLACEHOLDER.split(" ".join(fmt.split()).rstrip("."))
    fixed = "".join(parts)
    if len(fixed.replace(" ", "")) < FIXED_CHARS or len(_WORD.findall(fixed.lower())) < FIXED_WORDS:
        return None
    pieces, gaps, values = [], [], 0
    for part in parts:
        if not part.strip():  # placeholders side by side, or a format that begins with one
            values += 1
            continue
        escaped = r"\s+".join(map(re.escape, part.split(" ")))
        pieces.append(re.compile(escaped, re.IGNORECASE | re.ASCII))
        gaps.append(VALUE * max(values, 1 if pieces[:-1] else 0))
        values = 1
    words = frozenset(_WORD.findall(" ".join(parts).lower()))  # no word across a value
    return Format(code, tuple(pieces), tuple(gaps), len(fixed), words)


@functools.lru_cache(maxsize=1)
def formats() -> dict[str, tuple[str, ...]]:
    """Each user-class code's formats, from CANN's table and its reference pages; a format two
    codes print (the tables reuse "Value [%s] for parameter [%s] is invalid") is neither's."""
    printed: dict[str, set[str]] = {}
    for code, fmts in cann_e_formats().items():
        for fmt in fmts:
            printed.setdefault(" ".join(fmt.split()).rstrip("."), set()).add(code)
    by_code: dict[str, list[str]] = {}
    for fmt, owners in printed.items():
        (code,) = owners if len(owners) == 1 else ("",)
        # an internal code's message is a follow-up's ("Inner error"); a W-code's, a warning's
        if code and code[2] != "9" and code[0] != "W":
            by_code.setdefault(code, []).append(fmt)
    return {code: tuple(fmts) for code, fmts in sorted(by_code.items())}


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, tuple[Format, ...]]:
    """The readable formats by the rarest long word of their fixed text (a line is looked up
    by its own words, not tried with every format)."""
    readable = [
        (found, _LETTERS.findall(" ".join(_PLACEHOLDER.split(fmt)).lower()))
        for code, fmts in formats().items()
        for fmt in fmts
        if (found := reader(code, fmt)) is not None
    ]
    count: dict[str, int] = {}
    for _, words in readable:
        for w in set(words):
            count[w] = count.get(w, 0) + 1
    index: dict[str, list[Format]] = {}
    for found, words in readable:
        if words:
            index.setdefault(min(words, key=lambda w: (count[w], -len(w))), []).append(found)
    return {w: tuple(found) for w, found in index.items()}


def read(line: str) -> Optional[tuple[str, int, int]]:
    """The code whose message ``line`` shows and the message's span; where several formats
    read it, the one with the most fixed text (a parameter named, not a placeholder), then the
    longest span. None where none does."""
    index, best, rank = _index(), None, (0, 0)
    words = set(_WORD.findall(line.lower()))
    for word in words:
        for fmt in index.get(word, ()):
            span = fmt.search(line) if fmt.words <= words else None
            if span and (fmt.fixed, span[1] - span[0]) > rank:
                best, rank = (fmt.code, *span), (fmt.fixed, span[1] - span[0])
    return best


def failure(code: str, message: str) -> Optional[Failure]:
    """The code's failure, read from its message (``message``: from where it starts): the
    code's own, the way it was read named by its family."""
    found = e_code(code, message)
    return None if found is None else replace(found, family=FAMILY)


def pasted(text: str) -> list[Failure]:
    """The codes a pasted text's lines print the messages of, for `ampenv explain` (a line
    with no error word the scanner would find it by)."""
    found: dict[str, Failure] = {}
    for line in text.split("\n"):
        got = read(line)
        if got is not None:
            decoded = failure(got[0], line[got[1] :])
            if decoded is not None:
                found.setdefault(decoded.id, decoded)
    return list(found.values())


# The scanner asks this entry for a line nothing else explains (as it asks Fault-Diag's).
CANN_MESSAGES = Failure(
    id=FAMILY,
    mode="core-exception",
    component="cann",
    patterns=(),
    codes=(),
    meaning="a line that is the message CANN's error table prints for one E-code, read without "
    "its code (a pasted excerpt, a traceback cut below the code, a documentation example)",
    causes=("the code's (each finding names its code, with its table row and reference page)",),
    fix="the code's fix (each finding carries its own): `ampenv explain CODE`",
    confirm=None,
    sources=(Source(ERROR_CODE_JSON, "official"), Source(E_PAGES_SOURCE, "official")),
    hints=(),
    rank=GENERIC,
)
