"""The plugin API: what a check is, what it returns, and what it is given.

A check is a plain function decorated with :func:`check`. It receives a :class:`CheckContext`
and returns a :class:`Result`. Checks judge facts; they never print, exit or raise past the
runner (the runner turns a raise or a hang into an ``error`` result anyway).
"""

from __future__ import annotations

import enum
import math
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
    from ampenv.core.config import Config
    from ampenv.probe import Probe

PROFILES = ("quick", "full", "certify")


class Status(str, enum.Enum):
    """Ordered for display: pass < skip < warn < fail < error."""

    PASS = "pass"
    SKIP = "skip"
    WARN = "warn"
    FAIL = "fail"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _RANK[self]


# As the report schema has it: a family, a dot, a name ("env.npu", "site.scratch").
ID_PATTERN = re.compile(r"[a-z0-9_]+(\.[A-Za-z0-9_.-]+)+")


def _finite_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


_RANK = {Status.PASS: 0, Status.SKIP: 1, Status.WARN: 2, Status.FAIL: 3, Status.ERROR: 4}


@dataclass
class Result:
    status: Status
    summary: str
    remedy: Optional[str] = None
    details: list[str] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # "fail" is accepted; "bad" raises: an error result
        odd = {k: v for k, v in self.metrics.items() if not _finite_number(v)}
        if odd:  # the JSON report holds finite numbers only; the rest is said, not lost
            self.metrics = {k: v for k, v in self.metrics.items() if k not in odd}
            self.details = [*self.details, f"metrics that are not finite numbers: {odd!r}"]
        if self.status in (Status.WARN, Status.FAIL) and not self.remedy:
            # A warning nobody can act on is noise: the API refuses it.
            raise ValueError(f"a {self.status.value} result needs a remedy: {self.summary!r}")

    @classmethod
    def ok(cls, summary: str, **kw: Any) -> Result:
        return cls(Status.PASS, summary, **kw)

    @classmethod
    def skip(cls, summary: str, **kw: Any) -> Result:
        return cls(Status.SKIP, summary, **kw)

    @classmethod
    def warn(cls, summary: str, *, remedy: str, **kw: Any) -> Result:
        return cls(Status.WARN, summary, remedy=remedy, **kw)

    @classmethod
    def fail(cls, summary: str, *, remedy: str, **kw: Any) -> Result:
        return cls(Status.FAIL, summary, remedy=remedy, **kw)

    @classmethod
    def error(cls, summary: str, **kw: Any) -> Result:
        return cls(Status.ERROR, summary, **kw)


@dataclass
class Finding:
    """One judged item inside a check; :func:`combine` folds many into one Result."""

    status: Status
    message: str
    remedy: Optional[str] = None


def combine(findings: list[Finding], ok_summary: str, **kw: Any) -> Result:
    """Fold findings into one Result: the worst status wins, every message becomes a detail,
    the worst finding is the summary and the remedies are joined in order, without repeats."""
    bad = [f for f in findings if f.status.rank > Status.SKIP.rank]
    if not bad:
        details = [f.message for f in findings]
        return Result(Status.PASS, ok_summary, details=details + kw.pop("details", []), **kw)
    worst = max(bad, key=lambda f: f.status.rank)
    remedies: list[str] = []
    for f in sorted(bad, key=lambda f: -f.status.rank):
        if f.remedy and f.remedy not in remedies:
            remedies.append(f.remedy)
    summary = worst.message
    if len(bad) > 1:
        summary += f" (+{len(bad) - 1} more)"
    details = [f"{f.status.value}: {f.message}" for f in bad] + kw.pop("details", [])
    return Result(worst.status, summary, remedy="; ".join(remedies) or None, details=details, **kw)


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


Fixer = Callable[["CheckContext", Result], str]


@dataclass
class CheckSpec:
    id: str
    title: str
    func: Callable[[CheckContext], Result]
    profile: str = "quick"
    needs: tuple[str, ...] = ()
    # Run after these checks when they are selected, whatever they report (needs also waits,
    # but skips this check when a need did not pass): for reusing their memoised facts.
    after: tuple[str, ...] = ()
    timeout: float = 5.0
    why: str = ""
    remedies: tuple[str, ...] = ()
    settings: dict[str, Setting] = field(default_factory=dict)
    source: str = "?"
    fixer: Optional[Fixer] = None

    @property
    def family(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def doc(self) -> str:
        return (self.func.__doc__ or "").strip()

    def fix(self, func: Fixer) -> Fixer:
        """Decorator: the repair ``ampenv doctor --fix`` may run after a warn or fail.
        It returns one line saying what it did, and the check then runs again."""
        self.fixer = func
        return func

    def __call__(self, ctx: CheckContext) -> Result:
        return self.func(ctx)


def check(
    id: str,
    *,
    title: str,
    profile: str = "quick",
    needs: tuple[str, ...] | list[str] = (),
    after: tuple[str, ...] | list[str] = (),
    timeout: float = 5.0,
    why: str = "",
    remedies: tuple[str, ...] | list[str] = (),
    settings: dict[str, Setting] | None = None,
) -> Callable[[Callable[[CheckContext], Result]], CheckSpec]:
    """Declare a check. The docstring says what it verifies; ``why`` says why it matters."""
    if not ID_PATTERN.fullmatch(id):
        raise ValueError(f"check id {id!r}: must be a family and a name, e.g. site.scratch")
    if profile not in PROFILES:
        raise ValueError(f"check {id}: profile must be one of {', '.join(PROFILES)}")

    def wrap(func: Callable[[CheckContext], Result]) -> CheckSpec:
        return CheckSpec(
            id=id,
            title=title,
            func=func,
            profile=profile,
            needs=tuple(needs),
            after=tuple(after),
            timeout=timeout,
            why=why,
            remedies=tuple(remedies),
            settings=dict(settings or {}),
        )

    return wrap


@dataclass
class Context:
    """What every check of one run shares: config, facts, backend, profile, deadline."""

    config: Config
    probe: Probe
    profile: str = "quick"
    deadline: float = float("inf")  # time.monotonic() value
    fix: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    def profile_at_least(self, profile: str) -> bool:
        return PROFILES.index(self.profile) >= PROFILES.index(profile)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def backend(self) -> str:
        """npu, cuda or cpu (``--device`` overrides detection)."""
        return self.options.get("device") or self.probe.backend().kind


@dataclass
class CheckContext:
    """The shared Context, seen by one check: adds that check's own settings."""

    shared: Context
    spec: CheckSpec
    settings: dict[str, Any]
    deadline: float = float("inf")  # time.monotonic() value: this check's own timeout

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shared, name)

    def timeout_left(self, wanted: float) -> float:
        """A subprocess timeout that still fits inside this check's and the run's budget."""
        left = min(self.deadline, self.shared.deadline) - time.monotonic()
        return max(0.1, min(wanted, left))
