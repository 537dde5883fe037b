"""The vocabulary of the environment rules: a handful of generic validators (:class:`OneOf`,
:class:`Range`, :class:`Matches`, :class:`Parsed`, :class:`ListOf`, :class:`Options`,
:class:`Path`), the conditions that make a range chip-dependent (:class:`Variant`), suspicious
values and conflicts (:class:`Caveat`), and :class:`Rule`, one per variable. The rules
themselves are in :mod:`.table`; :mod:`.judge` applies them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol, Union

from ampenv.core.model import Status
from ampenv.probe.chips import UNKNOWN

INTEGER = r"[+-]?[0-9]+"
NUMBER = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"


@dataclass(frozen=True)
class Node:
    """What a rule may depend on besides the value: the other variables, the chip family
    (:data:`UNKNOWN` on a CPU machine or a container build), the device count, and a way to
    ask whether a path exists (through the probe, so planted nodes and bundles work)."""

    env: Mapping[str, str] = field(default_factory=dict)
    chip: str = UNKNOWN
    device_count: Optional[int] = None
    path_exists: Optional[Callable[[str], bool]] = None


@dataclass(frozen=True)
class Problem:
    """What a validator found. ``what`` completes "NAME=value ..."; ``subject`` names the part
    of the value it is about (None: the whole value); ``fix`` is a value that would be right;
    ``remedy`` replaces the export/unset line when a value cannot say it (may use {name})."""

    status: Status
    what: str
    fix: Optional[str] = None
    subject: Optional[str] = None
    remedy: Optional[str] = None


class Validator(Protocol):
    def problems(self, value: str, node: Node) -> list[Problem]: ...

    def describe(self) -> str: ...


def _accepts(check: Validator, value: str, node: Node) -> bool:
    return not any(p.status is Status.FAIL for p in check.problems(value, node))


def number_text(x: float) -> str:
    """600 rather than 600.0."""
    return str(int(x)) if float(x).is_integer() else str(x)


# -- the generic validators -------------------------------------------------------------------


@dataclass(frozen=True)
class OneOf:
    values: tuple[str, ...]

    def problems(self, value: str, node: Node) -> list[Problem]:
        if value in self.values:
            return []
        return [Problem(Status.FAIL, f"is not valid (valid: {self.describe()})")]

    def describe(self) -> str:
        return ", ".join(self.values)


def one_of(*values: str) -> OneOf:
    return OneOf(values)


@dataclass(frozen=True)
class Range:
    """A number in [lo, hi] (open ends optional). With ``step``, CANN rounds the value down
    to a multiple of it, never below one step."""

    lo: Optional[float] = None
    hi: Optional[float] = None
    integer: bool = True
    lo_open: bool = False
    hi_open: bool = False
    step: Optional[int] = None
    unit: str = ""

    def problems(self, value: str, node: Node) -> list[Problem]:
        # [0-9], not \d: CANN parses ASCII digits only, and \d takes '٣٠٠' too.
        pattern = INTEGER if self.integer else NUMBER
        if not re.fullmatch(pattern, value):
            kind = "an integer" if self.integer else "a number"
            return [Problem(Status.FAIL, f"is not {kind} (valid: {self.describe()})")]
        x = int(value) if self.integer and len(value) < 40 else float(value)  # int() caps digits
        if not math.isfinite(x):
            return [Problem(Status.FAIL, f"is out of range (valid: {self.describe()})")]
        below = self.lo is not None and (x <= self.lo if self.lo_open else x < self.lo)
        above = self.hi is not None and (x >= self.hi if self.hi_open else x > self.hi)
        if below or above:
            edge = self.lo if below else self.hi
            open_edge = self.lo_open if below else self.hi_open
            fix = None if open_edge or edge is None else number_text(edge)
            return [Problem(Status.FAIL, f"is out of range (valid: {self.describe()})", fix)]
        if self.step and x % self.step:
            used = max(self.step, int(x) - int(x) % self.step)
            return [
                Problem(
                    Status.WARN,
                    f"is not a multiple of {self.step}: CANN uses {used}{self.unit} instead",
                    str(used),
                )
            ]
        return []

    def describe(self) -> str:
        unit = self.unit
        if self.lo is not None and self.hi is not None:
            left, right = "(" if self.lo_open else "[", ")" if self.hi_open else "]"
            text = f"{left}{number_text(self.lo)}, {number_text(self.hi)}{right}{unit}"
        elif self.lo is not None:
            text = f"{'>' if self.lo_open else '>='} {number_text(self.lo)}{unit}"
        elif self.hi is not None:
            text = f"{'<' if self.hi_open else '<='} {number_text(self.hi)}{unit}"
        else:
            text = "any integer" if self.integer else "any number"
        return text + (f", in steps of {self.step}" if self.step else "")


@dataclass(frozen=True)
class Matches:
    """Syntax by regular expression (the whole value must match)."""

    regex: str
    shape: str

    def problems(self, value: str, node: Node) -> list[Problem]:
        if re.fullmatch(self.regex, value):
            return []
        return [Problem(Status.FAIL, f"is not {self.shape}")]

    def describe(self) -> str:
        return self.shape


@dataclass(frozen=True)
class Parsed:
    """Syntax by a parser that raises ValueError."""

    parser: Callable[[str], object]
    shape: str

    def problems(self, value: str, node: Node) -> list[Problem]:
        try:
            self.parser(value)
        except ValueError:
            return [Problem(Status.FAIL, f"is not {self.shape}")]
        return []

    def describe(self) -> str:
        return self.shape


@dataclass(frozen=True)
class ListOf:
    """A separated list of items. ``ascending``: integers in strictly ascending order.
    ``device_ids``: every id below the node's device count. ``stops_at_invalid``: the reader
    drops everything from the first bad item on (said in the message)."""

    item: Validator
    sep: str = ","
    ascending: bool = False
    device_ids: bool = False
    stops_at_invalid: bool = False

    def problems(self, value: str, node: Node) -> list[Problem]:
        items = value.split(self.sep)
        problems: list[Problem] = []
        good: list[str] = []
        for item in items:
            found = (
                [Problem(Status.FAIL, "is an empty item")]
                if not item
                else self.item.problems(item, node)
            )
            bad = [p for p in found if p.status is Status.FAIL]
            for p in found:
                what = p.what
                if p.status is Status.FAIL and self.stops_at_invalid and not problems:
                    used = self.sep.join(good) or "nothing"
                    what += f"; parsing stops there, so only {used} is used"
                problems.append(Problem(p.status, what, subject=p.subject or repr(item)))
            if bad:
                cleaned = item.strip()
                if cleaned and not self.item.problems(cleaned, node):
                    good.append(cleaned)
            else:
                good.append(item)
        if self.ascending and not any(p.status is Status.FAIL for p in problems):
            ids = [int(i) for i in good]
            if ids != sorted(set(ids)):
                problems.append(Problem(Status.FAIL, "is not in strictly ascending order"))
        if self.device_ids and node.device_count is not None:
            missing = [i for i in good if i.isdigit() and int(i) >= node.device_count]
            if missing:
                n = node.device_count
                problems.append(
                    Problem(
                        Status.FAIL,
                        f"names {', '.join(missing)}, but this node has {n} device"
                        f"{'s' if n != 1 else ''} (ids 0..{n - 1})",
                    )
                )
                good = [i for i in good if i not in missing]
        if not problems:
            return []
        if self.ascending:
            good = [str(i) for i in sorted({int(i) for i in good})]
        fix = self.sep.join(good) or None
        return [Problem(p.status, p.what, fix, p.subject, p.remedy) for p in problems]

    def describe(self) -> str:
        order = ", ascending" if self.ascending else ""
        return f"a '{self.sep}'-separated list of {self.item.describe()}{order}"


@dataclass(frozen=True)
class Options:
    """``key<kv>value`` items separated by ``sep`` (PYTORCH_NPU_ALLOC_CONF, HCCL_ALGO). An
    item without ``kv`` is judged by ``bare`` when given. An unknown key reports ``unknown``."""

    keys: Mapping[str, Validator]
    sep: str = ","
    kv: str = ":"
    unknown: Status = Status.FAIL
    bare: Optional[Validator] = None

    def problems(self, value: str, node: Node) -> list[Problem]:
        problems: list[Problem] = []
        kept: list[str] = []
        for item in value.split(self.sep):
            found, repaired = self._item(item, node)
            problems += found
            if repaired is not None:
                kept.append(repaired)
        if not problems:
            return []
        fix = self.sep.join(kept) or None
        return [Problem(p.status, p.what, fix, p.subject, p.remedy) for p in problems]

    def _item(self, item: str, node: Node) -> tuple[list[Problem], Optional[str]]:
        """The item's problems, and what of it to keep in a fixed value (None: drop it)."""
        if self.kv not in item:
            if self.bare is None:
                what = f"is not key{self.kv}value"
                return [Problem(Status.FAIL, what, subject=repr(item))], None
            return self._nested(self.bare, item, "", node)
        key, val = item.split(self.kv, 1)
        check = self.keys.get(key)
        if check is None:
            known = ", ".join(self.keys)
            what = f"is not an option ampenv knows (known: {known})"
            return [Problem(self.unknown, what, subject=repr(key))], None
        return self._nested(check, val, f"{key}{self.kv}", node)

    @staticmethod
    def _nested(
        check: Validator, value: str, prefix: str, node: Node
    ) -> tuple[list[Problem], Optional[str]]:
        raw = check.problems(value, node)
        found = [Problem(p.status, p.what, subject=prefix + (p.subject or value)) for p in raw]
        if not any(p.status is Status.FAIL for p in raw):
            return found, prefix + value
        fixes = [p.fix for p in raw if p.fix is not None]
        return found, prefix + fixes[0] if fixes else None

    def describe(self) -> str:
        return f"'{self.sep}'-separated key{self.kv}value items ({', '.join(self.keys)})"


@dataclass(frozen=True)
class Path:
    """A directory or file path. ``chars``: the characters the reader accepts.
    ``must_exist``: a missing path warns, with ``missing_fix`` as the remedy."""

    chars: Optional[str] = None
    chars_shape: str = ""
    must_exist: bool = False
    missing_fix: str = "unset {name}"

    def problems(self, value: str, node: Node) -> list[Problem]:
        if not value:
            return [Problem(Status.FAIL, "is empty")]
        if self.chars:
            bad = sorted(set(re.sub(self.chars, "", value)))
            if bad:
                held = ", ".join(repr(c) for c in bad)
                what = f"holds {held}, which CANN does not accept ({self.chars_shape})"
                return [Problem(Status.FAIL, what)]
        if not value.startswith("/"):
            return [
                Problem(
                    Status.WARN,
                    "is a relative path: each process resolves it against its own working "
                    "directory",
                    remedy='export {name}="$(realpath {qvalue})"',  # filled in one pass
                )
            ]
        if self.must_exist and node.path_exists is not None and not node.path_exists(value):
            return [Problem(Status.WARN, "does not exist on this node", remedy=self.missing_fix)]
        return []

    def describe(self) -> str:
        return "an absolute path" + (f" ({self.chars_shape})" if self.chars else "")


# -- conditions -------------------------------------------------------------------------------

# A condition on another variable: a value (matched case-insensitively), ANY_VALUE (set to
# anything) or None (unset).
ANY_VALUE = "*"
EnvCondition = Mapping[str, Optional[str]]


def _holds(chips: Sequence[str], env: EnvCondition, node: Node) -> bool:
    if chips and node.chip not in chips:
        return False
    for other, wanted in env.items():
        current = node.env.get(other)
        if wanted is None:
            if current not in (None, ""):
                return False
        elif current is None or (wanted != ANY_VALUE and current.lower() != wanted.lower()):
            return False
    return True


def _label(chips: Sequence[str], env: EnvCondition) -> str:
    parts = [f"on {'/'.join(chips)}"] if chips else []
    for other, wanted in env.items():
        if wanted is None:
            parts.append(f"while {other} is unset")
        elif wanted == ANY_VALUE:
            parts.append(f"while {other} is set")
        else:
            parts.append(f"with {other}={wanted}")
    return " ".join(parts)


@dataclass(frozen=True)
class Variant:
    """A validator that replaces the rule's own where the chip or another variable says so
    (the first that holds wins)."""

    check: Validator
    chips: tuple[str, ...] = ()
    env: EnvCondition = field(default_factory=dict)


@dataclass(frozen=True)
class Caveat:
    """A valid value that is still suspicious, or a conflict with another variable.
    ``values``: the values it concerns (a tuple, or a validator that accepts them; None: any).
    ``why`` completes "NAME=value ..."; ``why`` and ``fix`` may use {name}, {value},
    {default} and {chip}."""

    why: str
    fix: str = "unset {name}"
    values: Union[tuple[str, ...], Validator, None] = None
    chips: tuple[str, ...] = ()
    env: EnvCondition = field(default_factory=dict)
    status: Status = Status.WARN

    def concerns(self, value: str, node: Node) -> bool:
        if not _holds(self.chips, self.env, node):
            return False
        if self.values is None:
            return True
        if isinstance(self.values, tuple):
            return value in self.values
        return _accepts(self.values, value, node)


# -- rules ------------------------------------------------------------------------------------

READ_BY_ENV = "env"  # CANN or torch_npu reads the variable
READ_BY_SET_OPTION = "set_option"  # torch_npu takes it only through torch.npu.set_option
READ_BY_NOBODY = "nobody"  # no component reads it: only the cluster's contract gives it meaning

SET_OPTION_FIX = (
    "unset {name}; in the training script call "
    'torch.npu.set_option({"{name}": "{value}"}) after import torch_npu'
)


@dataclass(frozen=True)
class Rule:
    name: str
    family: str  # npu | hccl
    check: Validator
    default: Optional[str]  # the literal value the reader uses when unset (None: none/varies)
    does: str
    source: str
    read_by: str = READ_BY_ENV
    variants: tuple[Variant, ...] = ()
    caveats: tuple[Caveat, ...] = ()
    forbid: tuple[str, ...] = ()  # tokens the value must not hold (a check setting can change)
    forbid_why: str = ""
    # False where the reference could not confirm the valid values: invalid then only warns.
    confirmed: bool = True

    def validator(self, node: Node) -> tuple[Validator, str]:
        """The validator that applies on this node, and why it differs from the rule's own."""
        for v in self.variants:
            if _holds(v.chips, v.env, node):
                return v.check, _label(v.chips, v.env)
        return self.check, ""


# Variables with these prefixes belong to a family even without a rule (typos, the contract).
FAMILY_PREFIXES = {
    "hccl": ("HCCL_", "P2P_HCCL_", "TORCH_HCCL_"),
    "npu": (
        "ASCEND_",
        "ACL_",
        "GE_",
        "NPU_",
        "INF_NAN_",
        "PYTORCH_NPU_",
        "TASK_QUEUE_",
        "TORCHAIR_",
        "COMBINED_",
    ),
}
