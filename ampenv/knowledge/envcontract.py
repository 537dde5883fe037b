"""The cluster's contract: the ``[env]`` table of ampenv.toml.

Each key names a variable; its value says what the cluster expects of it::

    [env]
    HCCL_OP_LEVEL = "2"                                   # must equal (and so must be set)
    HCCL_CONNECT_TIMEOUT = { min = 600, max = 7200, default = "1200" }
    NPU_FUZZY_COMPILE_BLACKLIST = { forbid = ["Conv2D", "MatMul", "BatchMatMul"] }
    TASK_QUEUE_ENABLE = { one_of = ["1", "2"] }
    RANK_TABLE_FILE = { required = true }
    HCCL_IF_IP = { multi_node = true }                    # required on multi-node jobs only

``default`` is what ``ampenv env --export`` prints for an unset variable. An unset variable that
the contract does not require is judged by the value CANN then uses (its documented default):
``HCCL_CONNECT_TIMEOUT = { min = 600 }`` fails when the variable is unset, since CANN waits 120 s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ampenv.core.model import Finding, Status
from ampenv.core.settings import ConfigError, refuse_nul
from ampenv.knowledge import envrules
from ampenv.knowledge.envrules import number_text
from ampenv.util.redact import looks_secret, redact

KEYS = ("equals", "one_of", "min", "max", "forbid", "required", "multi_node", "default")
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NUMBER = re.compile(envrules.NUMBER)


@dataclass(frozen=True)
class Term:
    """What the contract asks of one variable."""

    name: str
    equals: Optional[str] = None
    one_of: tuple[str, ...] = ()
    min: Optional[float] = None
    max: Optional[float] = None
    forbid: tuple[str, ...] = ()
    required: bool = False
    multi_node: bool = False
    default: Optional[str] = None

    def required_on(self, multi_node: bool) -> bool:
        return self.required or (self.multi_node and multi_node)

    def violations(self, value: str) -> list[str]:
        """What in a value breaks the contract, each completing "NAME=value ..."."""
        broken = []
        if self.equals is not None and value != self.equals:
            broken.append(f"differs from the cluster's contract, which requires {self._show()}")
        if self.one_of and value not in self.one_of:
            broken.append(f"is not one the contract allows ({', '.join(self.one_of)})")
        if self.min is not None or self.max is not None:
            if not NUMBER.fullmatch(value):
                broken.append(f"is not a number, but the contract sets a range {self._range()}")
            elif self.min is not None and float(value) < self.min:
                broken.append(f"is below the contract's minimum {number_text(self.min)}")
            elif self.max is not None and float(value) > self.max:
                broken.append(f"is above the contract's maximum {number_text(self.max)}")
        held = envrules.tokens(value)
        bad = [t for t in self.forbid if t.lower() in held]
        if bad:
            broken.append(f"holds {', '.join(bad)}, which the contract forbids")
        return broken

    def unset_breaks(self) -> list[str]:
        """The violations of the value CANN uses when the variable is unset (its default)."""
        rule = envrules.RULES.get(self.name)
        return self.violations(rule.default) if rule and rule.default is not None else []

    def fix(self, current: Optional[str]) -> Optional[str]:
        """A value that meets the contract, as close to the current one as can be said:
        the contract's default or value, the current value without forbidden items or clamped
        into range, else the first allowed value (None when nothing can be named)."""
        rule = envrules.RULES.get(self.name)
        candidates = [self.default, self.equals]
        for start in (current, rule.default if rule else None):
            if start is not None:
                candidates += [self._without_forbidden(start), self._clamped(start)]
        candidates += list(self.one_of)
        candidates += [number_text(x) for x in (self.min, self.max) if x is not None]
        return next((c for c in candidates if c and not self.violations(c)), None)

    def constraints(self) -> str:
        """What a set value must be, in words (empty: anything)."""
        parts = []
        if self.equals is not None:
            parts.append(f"= {redact(self.name, self.equals)}")
        if self.one_of:
            parts.append(f"one of {', '.join(self.one_of)}")
        if self.min is not None or self.max is not None:
            parts.append(f"in {self._range()}")
        if self.forbid:
            parts.append(f"without {', '.join(self.forbid)}")
        return "; ".join(parts)

    def describe(self) -> str:
        parts = [self.constraints()] if self.constraints() else []
        if self.required:
            parts.append("required")
        elif self.multi_node:
            parts.append("required on multi-node jobs")
        return "; ".join(parts)

    def _show(self) -> str:
        return envrules.shown(self.name, self.equals or "")

    def _range(self) -> str:
        lo = number_text(self.min) if self.min is not None else "-inf"
        hi = number_text(self.max) if self.max is not None else "inf"
        return f"[{lo}, {hi}]"

    def _without_forbidden(self, value: str) -> Optional[str]:
        gone = {t.lower() for t in self.forbid}
        return ",".join(t for t in value.split(",") if t.strip().lower() not in gone) or None

    def _clamped(self, value: str) -> Optional[str]:
        if not NUMBER.fullmatch(value):
            return None
        x = float(value)
        if self.min is not None:
            x = max(x, self.min)
        if self.max is not None:
            x = min(x, self.max)
        return number_text(x)


# -- [env] in ampenv.toml ---------------------------------------------------------------------


def _scalar(name: str, key: str, value: Any, path: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ConfigError(
            path,
            f"env.{name}",
            f'{key} must be a string or a number, got {value!r} (quote it: "1", "true")',
        )
    refuse_nul(value, path, f"env.{name}")
    return number_text(value) if isinstance(value, (int, float)) else value


def _term(name: str, spec: Any, path: str) -> Term:
    key = f"env.{name}"
    if not VARIABLE_NAME.fullmatch(name):
        raise ConfigError(path, key, "is not an environment variable name (letters, digits, _)")
    fields = dict(spec) if isinstance(spec, dict) else {"equals": spec}
    unknown = [k for k in fields if k not in KEYS]
    if unknown:
        raise ConfigError(path, key, f"unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    if not fields:
        raise ConfigError(path, key, f"is empty: give a value, or a table of {', '.join(KEYS)}")
    for flag in ("required", "multi_node"):
        if not isinstance(fields.get(flag, False), bool):
            raise ConfigError(path, key, f"{flag} must be true or false")
    for bound in ("min", "max"):
        value = fields.get(bound)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise ConfigError(path, key, f"{bound} must be a number, got {value!r}")
    lists = {}
    for listed in ("one_of", "forbid"):
        items = fields.get(listed, [])
        if not isinstance(items, list) or (not items and listed in fields):
            raise ConfigError(path, key, f"{listed} must be a non-empty list")
        lists[listed] = tuple(_scalar(name, listed, v, path) for v in items)
    equals = _scalar(name, "value", fields["equals"], path) if "equals" in fields else None
    if equals is not None and ({"one_of", "min", "max"} & set(fields)):
        raise ConfigError(path, key, "a required value cannot be combined with one_of, min or max")
    term = Term(
        name,
        equals=equals,
        one_of=lists["one_of"],
        min=fields.get("min"),
        max=fields.get("max"),
        forbid=lists["forbid"],
        required=fields.get("required", equals is not None),
        multi_node=fields.get("multi_node", False),
        default=_scalar(name, "default", fields["default"], path) if "default" in fields else None,
    )
    if term.min is not None and term.max is not None and term.min > term.max:
        raise ConfigError(
            path,
            key,
            f"min {number_text(term.min)} is above max {number_text(term.max)}",
        )
    _check_values(term, path)
    return term


def _check_values(term: Term, path: str) -> None:
    """The values the contract names must meet the contract itself and be valid for CANN."""
    rule = envrules.RULES.get(term.name)
    named = [("default", term.default), ("value", term.equals)]
    named += [("one_of item", v) for v in term.one_of]
    for label, value in named:
        if value is None:
            continue
        shown = redact(term.name, value)
        broken = term.violations(value)
        if broken:
            raise ConfigError(path, f"env.{term.name}", f"{label} {shown!r} {broken[0]}")
        if rule and rule.confirmed and rule.read_by != envrules.READ_BY_NOBODY:
            fails = [
                p for p in rule.check.problems(value, envrules.Node()) if p.status is Status.FAIL
            ]
            if fails:
                raise ConfigError(path, f"env.{term.name}", f"{label} {shown!r} {fails[0].what}")


def validate(table: Any, path: str) -> dict[str, Term]:
    """``[env]`` of ampenv.toml -> one Term per variable; ConfigError names the bad entry."""
    if not isinstance(table, dict):
        raise ConfigError(path, "env", "must be a table of VARIABLE = value or { ... }")
    return {name: _term(name, spec, path) for name, spec in table.items()}


# -- multi-node jobs --------------------------------------------------------------------------

# Variables that count the job's nodes, and pairs (ranks in the job, ranks on this node).
NODE_COUNTS = ("SLURM_NNODES", "SLURM_JOB_NUM_NODES", "GROUP_WORLD_SIZE", "PET_NNODES", "NNODES")
RANK_COUNTS = (
    ("WORLD_SIZE", "LOCAL_WORLD_SIZE"),  # torchrun
    ("OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE"),  # Open MPI
)


@dataclass(frozen=True)
class JobShape:
    multi_node: bool
    reason: str


def _count(value: Optional[str]) -> Optional[int]:
    """A count; torchrun's elastic ``min:max`` counts as its max."""
    last = (value or "").rsplit(":", 1)[-1].strip()
    return int(last) if last.isdigit() else None


def job_shape(env: Mapping[str, str]) -> JobShape:
    """Whether this runs in a job that spans several nodes, and which variable says so."""
    seen = []
    for name in NODE_COUNTS:
        n = _count(env.get(name))
        if n is not None:
            seen.append((n > 1, f"{name}={env[name]}"))
    for total, local in RANK_COUNTS:
        t, here = _count(env.get(total)), _count(env.get(local))
        if t is not None and here is not None:
            seen.append((t > here, f"{total}={t}, {local}={here}"))
    multi = [reason for is_multi, reason in seen if is_multi]
    if multi:
        return JobShape(True, multi[0])
    if seen:
        return JobShape(False, seen[0][1])
    return JobShape(False, "no Slurm, torchrun or MPI job variables")


# -- judging and exporting --------------------------------------------------------------------


def _set_line(term: Term, value: Optional[str], source: str) -> str:
    if value is None:
        return (
            f"export {term.name}=<value> (the contract in {source} names none: "
            f'add default = "..." to [env] {term.name})'
        )
    if looks_secret(term.name):
        return f"export {term.name}=... (the value [env] {term.name} in {source} gives)"
    return envrules.export_line(term.name, value)


def judge(
    terms: Mapping[str, Term], env: Mapping[str, str], shape: JobShape, source: str
) -> list[Finding]:
    """One finding per variable of the contract: whether this environment meets it."""
    findings = []
    for name, term in terms.items():
        found = _judge_term(term, env.get(name), shape, source)
        rule = envrules.RULES.get(name)
        if rule and rule.read_by == envrules.READ_BY_NOBODY:
            found.message += f" (CANN does not read {name}: only this contract gives it meaning)"
        findings.append(found)
    return findings


def _judge_term(term: Term, value: Optional[str], shape: JobShape, source: str) -> Finding:
    if value is None:
        return _judge_unset(term, shape, source)
    shown = envrules.shown(term.name, value)
    broken = term.violations(value)
    if not broken:
        return Finding(Status.PASS, f"{shown} meets the contract ({term.describe()})")
    fix = term.fix(value)
    line = (
        _set_line(term, fix, source)
        if fix is not None or term.required_on(shape.multi_node)
        else f"unset {term.name}"
    )
    return Finding(Status.FAIL, f"{shown} {' and '.join(broken)}", line)


def _judge_unset(term: Term, shape: JobShape, source: str) -> Finding:
    name = term.name
    if term.required_on(shape.multi_node):
        why = f" on multi-node jobs ({shape.reason})" if not term.required else ""
        wanted = f" ({term.constraints()})" if term.constraints() else ""
        return Finding(
            Status.FAIL,
            f"{name} is unset, but the cluster's contract requires it{why}{wanted}",
            _set_line(term, term.fix(None), source),
        )
    broken = term.unset_breaks()
    if broken:
        return Finding(
            Status.FAIL,
            f"{name} is unset, so CANN uses its default {envrules.RULES[name].default}, which "
            f"{' and '.join(broken)}",
            _set_line(term, term.fix(None), source),
        )
    why = " (required on multi-node jobs only; this job is single-node)" if term.multi_node else ""
    return Finding(Status.PASS, f"{name} is unset, which the contract allows{why}")


def needs_value_when_unset(term: Term, shape: JobShape) -> bool:
    """An unset variable needs a value when the contract requires it, names a default, or
    CANN's own default would break it."""
    return bool(term.required_on(shape.multi_node) or term.default or term.unset_breaks())


def unset_defaults(
    terms: Mapping[str, Term], env: Mapping[str, str], shape: JobShape
) -> dict[str, str]:
    """The contract's values for the unset variables that need one (the entrypoint applies
    these; a variable that is set is left for the env checks to judge)."""
    values = {}
    for name, term in terms.items():
        if name not in env and needs_value_when_unset(term, shape):
            value = term.fix(None)
            if value is not None:
                values[name] = value
    return values


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shell_comment(text: str) -> str:
    """``text`` as one ``#`` comment line: every character that is not printable (a newline
    above all, which would end the comment and start a command) is written as an escape."""
    shown = "".join(
        ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode()
        for ch in text
    )
    return f"# {shown}"


def unexportable(name: str, value: Optional[str]) -> Optional[str]:
    """Why ``export NAME='value'`` could not be one safe line for ``eval`` in bash, dash and
    zsh alike, or None. Single quotes hold anything but control characters (a newline splits
    the line) and bytes that are not UTF-8."""
    if not _NAME.fullmatch(name):
        return "is not a variable name"
    if value is None:
        return None
    if any(ord(ch) < 32 or ord(ch) == 127 or 0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        return "its value holds a control character or bytes that are not UTF-8: set it by hand"
    return None


def export_lines(
    terms: Mapping[str, Term], env: Mapping[str, str], shape: JobShape
) -> tuple[list[str], list[str]]:
    """Shell lines that make this environment meet the contract (values kept where they do
    already, defaults for unset variables), and what no line can satisfy. Every line is safe
    for ``eval`` whatever the environment and the config hold."""
    lines, unmet = [], []
    for name, term in terms.items():
        current = env.get(name)
        required = term.required_on(shape.multi_node)
        if current is not None and not term.violations(current):
            why = unexportable(name, current)
            if why:
                unmet.append(f"{name}: {why}")
            else:
                lines.append(envrules.export_line(name, current))
            continue
        if current is None and not needs_value_when_unset(term, shape):
            continue  # nothing to set: CANN's own default meets the contract
        fix = term.fix(current)
        if fix is None and required:
            unmet.append(f"{name}: required by the contract, which names no value for it")
        elif fix is not None or current is not None:
            why = unexportable(name, fix)
            if why:
                unmet.append(f"{name}: {why}")
            else:
                lines.append(envrules.export_line(name, fix))
    return lines, unmet


def export_script(
    terms: Mapping[str, Term], env: Mapping[str, str], source: str
) -> tuple[str, list[str]]:
    """``ampenv env --export``: a shell script for ``eval``, and what it cannot satisfy."""
    shape = job_shape(env)
    kind = "multi-node" if shape.multi_node else "single-node"
    lines, unmet = export_lines(terms, env, shape)
    header = shell_comment(f"ampenv env --export: [env] of {source}; {kind} job ({shape.reason})")
    notes = [shell_comment(f"unmet: {u}") for u in unmet]
    return "\n".join([header, *lines, *notes]) + "\n", unmet
