"""One way to write each thing people read: a UTC time, a size in bytes, a count of things."""

from __future__ import annotations

import datetime as _dt
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
