"""CANN's error messages read without their code, for a person who asks about one.

CANN prints an E-code's message from a format its error table holds ("Device %s is occupied by
multiple containers."); a log shows it behind the code ("EL0020: [PID: 7] ..."), but a pasted
excerpt or a documentation example may show the message alone. `ampenv explain` reads such a
line as the code whose format prints it. A log scan does not: the formats are everyday English
("Failed to open the JSON file: %s") that npm, argparse or the job's own code print too, and a
code's own line is what a log holds.

A format is read only where it names one code: with enough fixed words, and no other code's
format (an internal code's or a warning's included) reading its text or its page's examples.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from typing import Optional

from ampenv.knowledge.failures.codes import e_code
from ampenv.knowledge.failures.e_codes import cann_e_formats, cann_e_pages
from ampenv.knowledge.failures.model import Failure

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
# What a pasted text is read to: a message is one short line, and a paste of a whole log is
# the scan's to read (each line costs its length times the formats its words select).
LINE = 4096
LINES = 2000
FIRSTS = 4  # places a format's first piece is tried from in a line


@dataclass(frozen=True)
class Format:
    """A format's message as a reader of lines: its fixed pieces in order, each a value of at
    most VALUE characters from the one before (a value per placeholder between them). Read
    piece by piece, the nearest next piece each time: no backtracking, so a line crafted of a
    format's small pieces ("], [" over and over) costs its length, not its length to the power
    of its placeholders, as a regex of lazy values did. Case as CANN prints it; a piece that
    begins or ends with a letter or digit stands whole there ("invalid" is not "invalidated")."""

    code: str
    pieces: tuple[re.Pattern[str], ...]
    gaps: tuple[int, ...]  # the most characters between a piece and the one before it
    fixed: int  # characters of fixed text: the more, the more specific
    words: frozenset[str]  # the words of its fixed text: a line lacking one is not its

    def search(self, line: str) -> Optional[tuple[int, int]]:
        """The span of the message in ``line``, from its first fixed piece to its last."""
        first, rest = self.pieces[0], tuple(zip(self.pieces[1:], self.gaps[1:]))
        for n, m in enumerate(first.finditer(line)):
            if n == FIRSTS:
                return None
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
    kept = [(n, part) for n, part in enumerate(parts) if part.strip()]
    pieces, gaps, last = [], [], 0
    for i, (n, part) in enumerate(kept):
        text = r"\s+".join(map(re.escape, part.split()))
        # the format's first and last fixed text stand whole where a word begins or ends them
        if i == 0 and part.lstrip()[:1].isalnum():
            text = r"(?<![A-Za-z0-9])" + text
        if i == len(kept) - 1 and part.rstrip()[-1:].isalnum():
            text += r"(?![A-Za-z0-9])"
        pieces.append(re.compile(text, re.ASCII))
        gaps.append(VALUE * (n - last))  # a value per placeholder between the two pieces
        last = n
    words = frozenset(_WORD.findall(" ".join(parts).lower()))  # no word across a value
    return Format(code, tuple(pieces), tuple(gaps), len(fixed), words)


def _texts() -> dict[str, set[str]]:
    """What each code prints, as far as its table and page show: every format (a value for
    each placeholder) and every example, of every code, internal codes and warnings too."""
    printed: dict[str, set[str]] = {}
    for code, fmts in cann_e_formats().items():
        printed.setdefault(code, set()).update(_PLACEHOLDER.sub("x", f) for f in fmts)
    for code, page in cann_e_pages().items():
        printed.setdefault(code, set()).update(page["examples"])
    return printed


@functools.lru_cache(maxsize=1)
def _index() -> dict[str, tuple[Format, ...]]:
    """The formats that name one code, by the rarest long word of their fixed text (a line is
    looked up by its own words, not tried with every format). A format that reads what another
    code prints is dropped (EE1012's "%s failed. Value %s for %s is invalid" reads EH0009's
    example, "... Value v for parameter p is invalid")."""
    readers = [
        found
        for code, fmts in cann_e_formats().items()
        # an internal code's message is a follow-up's ("Inner error"); a W-code's, a warning's
        if code[2] != "9" and code[0] != "W"
        for fmt in fmts
        if (found := reader(code, fmt)) is not None
    ]
    printed = [
        (code, text, frozenset(_WORD.findall(text.lower())))
        for code, texts in _texts().items()
        for text in texts
    ]
    holding: dict[str, list[int]] = {}  # a word -> the texts that hold it
    for i, (_, _, words) in enumerate(printed):
        for w in words:
            holding.setdefault(w, []).append(i)

    def another_s(r: Format) -> bool:
        rarest = min(r.words, key=lambda w: len(holding.get(w, ())))
        return any(
            printed[i][0] != r.code and r.words <= printed[i][2] and r.search(printed[i][1])
            for i in holding.get(rarest, ())
        )

    kept = [r for r in readers if not another_s(r)]
    count: dict[str, int] = {}
    for r in kept:
        for w in r.words:
            count[w] = count.get(w, 0) + 1
    index: dict[str, list[Format]] = {}
    for r in kept:
        longest = [w for w in r.words if _LETTERS.fullmatch(w)] or list(r.words)
        index.setdefault(min(longest, key=lambda w: (count[w], -len(w))), []).append(r)
    return {w: tuple(found) for w, found in index.items()}


def read(line: str) -> Optional[tuple[str, int, int]]:
    """The code whose message ``line`` (its first LINE characters) shows, and the message's
    span; where several formats read it, the one with the most fixed text (a parameter named,
    not a placeholder), then the longest span. None where none does."""
    line = line[:LINE]
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
    """The codes a pasted text's lines (its first LINES) print the messages of, for `ampenv
    explain` (a line with no code, or no error word, the scanner would find it by)."""
    found: dict[str, Failure] = {}
    for line in text.split("\n", LINES)[:LINES]:
        got = read(line)
        if got is not None:
            decoded = failure(got[0], line[got[1] : LINE])
            if decoded is not None:
                found.setdefault(decoded.id, decoded)
    return list(found.values())
