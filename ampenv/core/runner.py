"""The runner: selection, dependencies, concurrency, per-check timeouts and the global deadline.

Each check runs in a daemon thread. A check that raises becomes an ``error``; one that overruns
its timeout is reported as an ``error`` naming the time it ran, and the run goes on without it
(its subprocesses carry their own timeouts, so nothing outlives the doctor for long).
Results are reported in registry order, whatever order they finished in.

An observer (``on_event``) hears the run as it happens, from the runner's own thread:
``plan`` (the ids in report order), ``start`` (a check's thread began), ``finish`` (its
CheckRun, in whatever order checks end); checks add ``progress`` from their own threads
(:meth:`CheckContext.progress`). Putting them back in report order is the listener's business
(:mod:`ampenv.report.live`).
"""

from __future__ import annotations

import contextlib
import math
import queue
import sys
import threading
import time
import traceback
from typing import Callable, Optional

from ampenv.core.model import CheckRun, Report, Result, Status
from ampenv.core.plugin import PROFILES, CheckContext, CheckSpec, Context
from ampenv.core.registry import Registry
from ampenv.util.formats import utc_iso

DEFAULT_DEADLINES = {"quick": 30.0, "full": 120.0, "certify": 900.0}
# A check whose commands honour ctx.timeout_left() reports its own verdict ("npu-smi did not
# answer in 10 s") a moment after its timeout; only past this grace does the runner cut it off.
REPORT_GRACE = 1.0
OFFLINE_ACTIVE = "active check: it runs device work on the live node, which a bundle cannot replay"


def matches(check_id: str, patterns: list[str]) -> bool:
    """An id matches itself and every family prefix of it (``env`` or ``env.``)."""
    for p in patterns:
        p = p.rstrip(".")
        if check_id == p or check_id.startswith(p + "."):
            return True
    return False


def unmatched(ids: list[str], patterns: list[str]) -> list[str]:
    """The patterns no check id matches: a typo in ``--only`` must not run nothing and call
    the node healthy."""
    return [p for p in patterns if not any(matches(i, [p]) for i in ids)]


def select(
    specs: list[CheckSpec], profile: str, only: list[str], skip: list[str]
) -> list[CheckSpec]:
    """``--only`` picks checks whatever their profile; otherwise the profile decides."""
    level = PROFILES.index(profile)
    chosen = []
    for spec in specs:
        if only:
            if not matches(spec.id, only):
                continue
        elif PROFILES.index(spec.profile) > level:
            continue
        if matches(spec.id, skip):
            continue
        chosen.append(spec)
    return chosen


def _seconds(value: object, fallback: float) -> float:
    """A timeout the runner can wait for: a finite number above 0 (a spec changed after it
    was declared, or a nan, falls back; nan compares false and would never expire)."""
    for candidate in (value, fallback):
        try:
            seconds = float(candidate)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if math.isfinite(seconds) and seconds > 0:
            return seconds
    return 5.0


def _execute(cctx: CheckContext, spec: CheckSpec) -> Result:
    result = spec.func(cctx)
    if not isinstance(result, Result):
        return Result.error(
            f"check {spec.id} returned {type(result).__name__}, not a Result",
            details=["a check must return ampenv.checks.Result"],
        )
    if cctx.shared.fix and spec.fixer and result.status in (Status.WARN, Status.FAIL):
        done = spec.fixer(cctx, result)
        result = spec.func(cctx)
        result.details.insert(0, f"--fix: {done}")
    return result


def _crash(spec: CheckSpec, exc: BaseException, elapsed: float) -> Result:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return Result.error(
        f"check {spec.id} crashed after {elapsed:.2f} s: {type(exc).__name__}: {exc}",
        details=[line.rstrip() for line in "".join(tb[-3:]).splitlines()],
    )


def run(
    ctx: Context,
    registry: Registry,
    *,
    only: list[str] = (),  # type: ignore[assignment]
    skip: list[str] = (),  # type: ignore[assignment]
    workers: int = 8,
    on_event: Optional[Callable[..., None]] = None,
) -> list[CheckRun]:
    """Run the selected checks and return one CheckRun per check (and per load problem).
    Whatever a check prints goes to stderr: stdout carries the report only."""
    with contextlib.redirect_stdout(sys.stderr):
        return _run(ctx, registry, only, skip, workers, on_event or _nobody)


def _nobody(kind: str, check_id: str, **data: object) -> None:
    pass


def _run(
    ctx: Context,
    registry: Registry,
    only: list[str],
    skip: list[str],
    workers: int,
    on_event: Callable[..., None],
) -> list[CheckRun]:
    ordered = registry.ordered()
    selected = select(ordered, ctx.profile, list(only), list(skip))
    problem_ids = [p.id for p in registry.problems]
    on_event("plan", "", ids=[s.id for s in selected] + problem_ids)
    selected_ids = {s.id for s in selected}
    config_skip = ctx.config.skipped()
    done: dict[str, CheckRun] = {}
    finished: queue.Queue = queue.Queue()
    running: dict[str, tuple[CheckSpec, float, float]] = {}  # id -> spec, start, deadline
    pending = list(selected)

    def worker(spec: CheckSpec, cctx: CheckContext, start: float) -> None:
        try:
            result = _execute(cctx, spec)
        except BaseException as exc:  # a check must never take the doctor down
            result = _crash(spec, exc, time.monotonic() - start)
        finished.put((spec.id, result, time.monotonic() - start))

    def settle(spec: CheckSpec, result: Result, duration: float = 0.0) -> None:
        done[spec.id] = CheckRun(spec.id, spec.title, result, duration)
        on_event("finish", spec.id, run=done[spec.id])

    while pending or running:
        for spec in list(pending):
            if len(running) >= workers:
                break
            deps = [n for n in spec.needs if n in selected_ids]
            if any(d not in done for d in (*deps, *spec.after) if d in selected_ids):
                continue
            pending.remove(spec)
            settings = ctx.config.settings_for(spec)
            blocked = [
                d for d in deps if done[d].status in (Status.FAIL, Status.ERROR, Status.SKIP)
            ]
            if matches(spec.id, config_skip) or settings.get("skip"):
                settle(spec, Result.skip(f"skipped by {ctx.config.label}"))
            elif ctx.probe.offline and spec.profile != "quick":
                # Active checks do device work in children on the live node; offline they
                # would judge the machine reading the bundle instead. This holds whatever
                # their dependencies say, so it is said first.
                settle(spec, Result.skip(OFFLINE_ACTIVE))
            elif blocked:
                d = done[blocked[0]]
                verb = "was skipped" if d.status is Status.SKIP else f"reported {d.status.value}"
                settle(spec, Result.skip(f"needs {d.id}, which {verb}: {d.summary}"))
            elif ctx.remaining() <= 0:
                settle(spec, Result.error("not started: the run's global deadline had passed"))
            else:
                start = time.monotonic()
                deadline = min(start + _seconds(settings["timeout"], spec.timeout), ctx.deadline)
                before = {
                    d: done[d].result for d in (*spec.needs, *spec.after) if d in done
                }
                cctx = CheckContext(ctx, spec, settings, deadline, before)
                on_event("start", spec.id, title=spec.title)
                threading.Thread(
                    target=worker, args=(spec, cctx, start), name=spec.id, daemon=True
                ).start()
                running[spec.id] = (spec, start, deadline + REPORT_GRACE)
        if not running:
            if pending and not any(
                all(n in done or n not in selected_ids for n in (*s.needs, *s.after))
                for s in pending
            ):
                for spec in pending:  # only a dependency cycle can leave us here
                    settle(spec, Result.error(f"dependency cycle: {spec.id} needs {spec.needs}"))
                pending.clear()
            continue
        wait = max(0.0, min(d for _, _, d in running.values()) - time.monotonic())
        try:
            check_id, result, duration = finished.get(timeout=wait)
        except queue.Empty:
            now = time.monotonic()
            for check_id, (spec, start, deadline) in list(running.items()):
                if now >= deadline:
                    del running[check_id]
                    elapsed = now - start
                    why = (
                        "the run's global deadline"
                        if deadline - REPORT_GRACE >= ctx.deadline
                        else f"its timeout of {ctx.config.settings_for(spec)['timeout']:g} s"
                    )
                    settle(
                        spec,
                        Result.error(
                            f"check {spec.id} timed out after {elapsed:.1f} s ({why})",
                            details=[f'raise it with [checks."{spec.id}"] timeout = N'],
                        ),
                        elapsed,
                    )
            continue
        if check_id in running:  # else: it finished after we gave up on it
            spec = running.pop(check_id)[0]
            settle(spec, result, duration)

    runs = [done[s.id] for s in selected]
    for problem in registry.problems:
        runs.append(
            CheckRun(
                problem.id,
                f"plugin {problem.source}",
                Result.error(problem.summary, details=problem.details),
            )
        )
        on_event("finish", problem.id, run=runs[-1])
    return runs


def make_report(
    ctx: Context, runs: list[CheckRun], started: float, started_wall: float, strict: bool
) -> Report:
    return Report(
        profile=ctx.profile,
        backend=ctx.backend,
        started_at=utc_iso(started_wall),
        duration_s=time.monotonic() - started,
        checks=runs,
        strict=strict,
        host=ctx.probe.hostname(),
    )
