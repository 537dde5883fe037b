"""The shape of JSON that may come from anyone (certificates, support bundles): small type
predicates, and a value described in a few words for the one-line error that names it."""

from __future__ import annotations

import math
from typing import Any, Callable

Check = Callable[[Any], bool]
# key -> (what it must be, in words; the predicate)
Shape = dict[str, tuple[str, Check]]


def described(value: Any) -> str:
    """A JSON value in a few words, on one line: a short scalar as itself, else its kind."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)[:40]
    if isinstance(value, str):
        return repr(value) if len(value) <= 40 else repr(value[:40]) + "..."
    return "a list" if isinstance(value, list) else "an object"


def text(v: Any) -> bool:
    return isinstance(v, str)


def integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def quantity(v: Any) -> bool:
    """A finite number that is not negative: a count, a size, a time (NaN compares false
    with everything, so a NaN CPU count would pass every minimum)."""
    return number(v) and math.isfinite(v) and v >= 0


def obj(v: Any) -> bool:
    return isinstance(v, dict)


def list_of(ok: Check) -> Check:
    return lambda v: isinstance(v, list) and all(map(ok, v))


def object_of(ok: Check) -> Check:
    return lambda v: isinstance(v, dict) and all(map(ok, v.values()))


def or_null(ok: Check) -> Check:
    return lambda v: v is None or ok(v)
