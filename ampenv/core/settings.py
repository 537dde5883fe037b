"""Settings and their validation: one :class:`Setting` per key of ampenv.toml (and per check
setting), :func:`validate_settings` for a table, and :class:`ConfigError`, the usage error that
names the file and the key."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from ampenv.util.formats import printable
from ampenv.util.jsonshape import integer, number


@dataclass(frozen=True)
class Setting:
    """A per-check setting, read from ``[checks."<id>"]`` in ampenv.toml."""

    type: type
    default: Any
    help: str
    # A fact key of the check's own result: `ampenv config init` writes the value it sees on
    # this node as the expectation (device count, chip name, ...).
    capture: Optional[str] = None
    # Bounds of a number (int or float), checked when ampenv.toml is read; nan and inf are
    # always refused. gt: more than; ge: at least; le: at most.
    gt: Optional[float] = None
    ge: Optional[float] = None
    le: Optional[float] = None
    choices: tuple[str, ...] = ()  # the values a string may take, when they are few
    item: Optional[type] = None  # the type of every element of a list


# The longest time ampenv waits on anything: a week. Much more overflows the waits (a queue or
# lock timeout past ~292 years raises OverflowError), and no health check needs it.
MAX_SECONDS = 7 * 86400
# A number of seconds for a timeout or a deadline: nan would never expire, 0 or less at once.
SECONDS = Setting(float, None, "seconds", gt=0, le=MAX_SECONDS)


class ConfigError(Exception):
    def __init__(self, path: str, key: str, message: str) -> None:
        self.path, self.key, self.message = path, key, message
        # (the path and key as a terminal shows them: a key may hold a newline, an escape)
        where = f"{printable(path)}: {printable(key)}" if key else printable(path)
        super().__init__(f"{where}: {message}")


def refuse_nul(values: Any, path: str, key: str) -> None:
    """No path, name, command or environment value the OS takes can hold a NUL (os calls raise
    ValueError on one): refused where the config is read, with its key."""
    for value in values if isinstance(values, list) else [values]:
        if isinstance(value, str) and "\0" in value:
            raise ConfigError(path, key, "holds a NUL character; refused")


def _type_ok(value: Any, expected: type) -> bool:
    if expected is float:
        return number(value)
    if expected is int:
        return integer(value)
    return isinstance(value, expected)


def out_of_range(value: Any, setting: Setting) -> Optional[str]:
    """What is wrong with a value against the setting's bounds or choices, or None."""
    if setting.choices and value not in setting.choices:
        return f"must be one of {', '.join(setting.choices)}, got {value!r}"
    if setting.type not in (int, float):
        return None
    if not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    if setting.gt is not None and not value > setting.gt:
        return f"must be more than {setting.gt:g}, got {value!r}"
    if setting.ge is not None and not value >= setting.ge:
        return f"must be at least {setting.ge:g}, got {value!r}"
    if setting.le is not None and not value <= setting.le:
        return f"must be at most {setting.le:g}, got {value!r}"
    return None


def validate_settings(
    table: Any, schema: dict[str, Setting], path: str, prefix: str
) -> dict[str, Any]:
    """Check a table against a schema; return it merged over the defaults."""
    if not isinstance(table, dict):
        raise ConfigError(path, prefix, "must be a table")
    values = {name: s.default for name, s in schema.items()}
    for key, value in table.items():
        if key not in schema:
            known = ", ".join(sorted(schema)) or "none"
            raise ConfigError(path, f"{prefix}.{key}", f"unknown key (known keys: {known})")
        expected = schema[key].type
        if not _type_ok(value, expected):
            raise ConfigError(
                path, f"{prefix}.{key}", f"must be {expected.__name__}, got {value!r}"
            )
        item = schema[key].item
        if item is not None and not all(_type_ok(v, item) for v in value):
            bad = next(v for v in value if not _type_ok(v, item))
            raise ConfigError(
                path, f"{prefix}.{key}", f"must be a list of {item.__name__}, holds {bad!r}"
            )
        refuse_nul(value, path, f"{prefix}.{key}")
        problem = out_of_range(value, schema[key])
        if problem:
            raise ConfigError(path, f"{prefix}.{key}", problem)
        values[key] = value
    return values
