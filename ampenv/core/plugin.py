"""The plugin API: what a check is and what it is given.

A check is a plain function decorated with :func:`check`. It receives a :class:`CheckContext`
and returns a :class:`~ampenv.core.model.Result`. Checks judge facts; they never print, exit or
raise past the runner (the runner turns a raise or a hang into an ``error`` result anyway).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Optional

from ampenv.core.model import Result
from ampenv.core.settings import SECONDS, Setting, out_of_range
from ampenv.util.jsonshape import number

if TYPE_CHECKING:
    from ampenv.core.config import Config
    from ampenv.probe import Probe

PROFILES = ("quick", "full", "certify")

# As the report schema has it: a family, a dot, a name ("env.npu", "site.scratch").
ID_PATTERN = re.compile(r"[a-z0-9_]+(\.[A-Za-z0-9_.-]+)+")


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
    problem = out_of_range(timeout, SECONDS) if number(timeout) else "must be a number"
    if problem:  # nan would never time out, and would defeat the run's deadline
        raise ValueError(f"check {id}: timeout {problem}")

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


@dataclass(frozen=True)
class Context:
    """What every check of one run shares: config, facts, backend, profile, deadline, and the
    command's options (frozen: a check reads them, never changes them for the others)."""

    config: Config
    probe: Probe
    profile: str = "quick"
    deadline: float = float("inf")  # time.monotonic() value
    fix: bool = False  # `doctor --fix`: a check's fixer may repair after a warn or fail
    device: Optional[str] = None  # `--device`: overrides the detected backend
    logs: tuple[str, ...] = ()  # `--log FILE`s to scan, besides the recent plogs
    # Who is told what the run is doing (``runner.run``'s ``on_event``): long checks report
    # their progress through :meth:`CheckContext.progress`, never by drawing it themselves.
    observer: Optional[Callable[..., None]] = None

    def profile_at_least(self, profile: str) -> bool:
        return PROFILES.index(self.profile) >= PROFILES.index(profile)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    @property
    def backend(self) -> str:
        """npu, cuda or cpu (``--device`` overrides detection)."""
        return self.device or self.probe.backend().kind


@dataclass
class CheckContext:
    """The shared Context, seen by one check: adds that check's own settings, and the results
    of the checks it runs after (``needs`` and ``after``)."""

    shared: Context
    spec: CheckSpec
    settings: dict[str, Any]
    deadline: float = float("inf")  # time.monotonic() value: this check's own timeout
    before: Mapping[str, Result] = field(default_factory=dict)

    def result_of(self, check_id: str) -> Optional[Result]:
        """What a check named in ``needs`` or ``after`` reported in this run; None when it did
        not run (not selected, or skipped by the config)."""
        if check_id not in (*self.spec.needs, *self.spec.after):
            raise ValueError(f"{self.spec.id} reads {check_id}: name it in needs or after")
        return self.before.get(check_id)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.shared, name)

    def progress(
        self, text: str, done: Optional[float] = None, total: Optional[float] = None
    ) -> None:
        """Say how far long work has come (``"amp step 2/3 · 1.4 img/s"``, 2, 3): a terminal
        shows it beside the check's spinner; elsewhere it goes nowhere. Any thread may call it,
        and it never raises."""
        observer = self.shared.observer
        if observer is None:
            return
        with contextlib.suppress(Exception):  # decoration: it must never break the check
            observer("progress", self.spec.id, text=text, done=done, total=total)

    def timeout_left(self, wanted: float) -> float:
        """A subprocess timeout that still fits inside this check's and the run's budget."""
        left = min(self.deadline, self.shared.deadline) - time.monotonic()
        return max(0.1, min(wanted, left))
