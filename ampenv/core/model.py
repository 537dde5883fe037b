"""The model every part shares: a check's :class:`Result` (and the :class:`Finding`s it folds),
one :class:`CheckRun` per check of a run, and the :class:`Report` renderers turn into text, JSON,
JUnit, Prometheus or an NPD line. No scheduling here: that is the runner's.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from typing import Any, Optional

from ampenv import __version__
from ampenv.util.jsonshape import number

SCHEMA = "ampenv.report/1"


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


def _finite_number(value: Any) -> bool:
    return number(value) and math.isfinite(value)


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
    the worst finding is the summary and the remedies are joined in order, without repeats: a
    step two remedies share ("see who holds the device: ...") is said once."""
    bad = [f for f in findings if f.status.rank > Status.SKIP.rank]
    if not bad:
        details = [f.message for f in findings]
        return Result(Status.PASS, ok_summary, details=details + kw.pop("details", []), **kw)
    worst = max(bad, key=lambda f: f.status.rank)
    remedies: dict[str, None] = {}  # the steps, in order, each once
    for f in sorted(bad, key=lambda f: -f.status.rank):
        remedies.update(dict.fromkeys(s for s in (f.remedy or "").split("; ") if s))
    summary = worst.message
    if len(bad) > 1:
        summary += f" (+{len(bad) - 1} more)"
    details = [f"{f.status.value}: {f.message}" for f in bad] + kw.pop("details", [])
    return Result(worst.status, summary, remedy="; ".join(remedies) or None, details=details, **kw)


@dataclass
class CheckRun:
    """One check's result in a run: the Result the check returned, under its id and title."""

    id: str
    title: str
    result: Result
    duration_s: float = 0.0

    @property
    def status(self) -> Status:
        return self.result.status

    @property
    def summary(self) -> str:
        return self.result.summary

    @property
    def remedy(self) -> Optional[str]:
        return self.result.remedy

    @property
    def details(self) -> list[str]:
        return self.result.details

    @property
    def facts(self) -> dict[str, Any]:
        return self.result.facts

    @property
    def metrics(self) -> dict[str, float]:
        return self.result.metrics

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status.value,
            "summary": self.summary,
            "remedy": self.remedy,
            "details": self.details,
            "facts": self.facts,
            "metrics": self.metrics,
            "duration_s": round(self.duration_s, 4),
        }


def _hostname() -> str:
    import socket  # a report built by the runner names its host from the probe instead

    return socket.gethostname()


@dataclass
class Report:
    profile: str
    backend: str
    started_at: str
    duration_s: float
    checks: list[CheckRun]
    strict: bool = False
    host: str = field(default_factory=_hostname)

    @property
    def status(self) -> Status:
        judged = [c.status for c in self.checks if c.status is not Status.SKIP]
        return max(judged, key=lambda s: s.rank, default=Status.PASS)

    @property
    def exit_code(self) -> int:
        statuses = {c.status for c in self.checks}
        if Status.FAIL in statuses:
            return 1
        if Status.ERROR in statuses:
            return 3
        if self.strict and Status.WARN in statuses:
            return 1
        return 0

    def get(self, check_id: str) -> Optional[CheckRun]:
        return next((c for c in self.checks if c.id == check_id), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "ampenv_version": __version__,
            "host": self.host,
            "profile": self.profile,
            "backend": self.backend,
            "started_at": self.started_at,
            "duration_s": round(self.duration_s, 4),
            "status": self.status.value,
            "exit_code": self.exit_code,
            "checks": [c.to_dict() for c in self.checks],
        }
