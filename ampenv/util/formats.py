"""One way to write each thing people read: a UTC time, a size in bytes, a count of things,
and text that reaches a terminal or an XML file with nothing in it that could act there."""

from __future__ import annotations

import datetime as _dt
import functools
import re
from typing import Optional


def utc_iso(ts: float, timespec: str = "seconds") -> str:
    """A POSIX time as RFC 3339 UTC with a ``Z``: ``2026-12-03T12:50:39Z``."""
    when = _dt.datetime.fromtimestamp(ts, _dt.timezone.utc)
    return when.isoformat(timespec=timespec).replace("+00:00", "Z")


def utc_iso_or_none(ts: Optional[float]) -> Optional[str]:
    return None if ts is None else utc_iso(ts)


def parse_utc(text: str) -> _dt.datetime:
    """A time with its UTC offset (``Z`` or ``+hh:mm``), in UTC; ValueError for anything else.
    A time without an offset is refused, not guessed: a naive time cannot be compared with an
    aware one."""
    when = _dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if when.utcoffset() is None:
        raise ValueError(f"{text!r} has no UTC offset")
    try:
        return when.astimezone(_dt.timezone.utc)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00: before year 1 in UTC
        raise ValueError(f"{text!r} is out of range") from None


def human_bytes(n: float) -> str:
    """``512 B``, ``1.5 KiB``, ``3.2 GiB``."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover - the loop returns


def count(n: int, one: str, many: str = "") -> str:
    """``1 entry``, ``2 entries``, ``0 files``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def printable(text: str) -> str:
    """``text`` safe for a terminal: every character that is not printable (escape codes, a
    carriage return that would overwrite the line, a newline inside one field, bidi controls)
    written as its Python escape (``\\x1b``, ``\\r``, ``\\u202e``)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in text)


def printable_lines(text: str) -> str:
    """Each line of ``text`` made :func:`printable`; the line breaks themselves kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _escaped(ch: str) -> str:
    return ch.encode("unicode_escape", "backslashreplace").decode("ascii")


@functools.cache
def _xml_forbidden() -> re.Pattern[str]:
    # Compiled on first use: the character class spans all of Unicode (~9 ms to compile), and
    # only the JUnit renderer needs it.
    return re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """``text`` with every character XML 1.0 forbids (C0 controls but tab, CR and LF; lone
    surrogates; U+FFFE and U+FFFF) written as a visible escape instead."""
    return _xml_forbidden().sub(lambda m: _escaped(m.group()), text)
