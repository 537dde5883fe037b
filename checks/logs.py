"""logs.errors: the known Ascend failures in recent plogs and in every ``--log`` file, each
named with its meaning, its fix, where it shows and how often, and set against the node's own
state where a check can confirm or refute it."""

from __future__ import annotations

import re
import shlex
from typing import Optional

from ampenv.checks import CheckContext, Finding, Result, Status, check, combine
from ampenv.knowledge.failures import CATALOGUE, Hit, faultdiag
from ampenv.knowledge.failures.codes import CONFIRMS
from ampenv.knowledge.failures.decoding import MAX_DECODED
from ampenv.knowledge.failures.unexplained import Unexplained
from ampenv.probe import caches, logs

# The catalogue's entries and the codes its tables decode name these checks to confirm a cause.
CONFIRMING = tuple(sorted({f.confirm for f in CATALOGUE if f.confirm} | CONFIRMS))


def _node_says(ctx: CheckContext, hit: Hit) -> Optional[str]:
    """What this node's own check of the cause says now, when it ran in this run: a failing
    check there supports the log's cause; a passing one says it is gone or was elsewhere."""
    confirm = hit.failure.confirm
    if confirm is None:
        return None
    result = ctx.result_of(confirm)
    if result is None:
        return f"check this node: `ampenv doctor --only {confirm}`"
    summary = result.summary if len(result.summary) <= 120 else result.summary[:117] + "..."
    if result.status is Status.PASS:
        return (
            f"on this node {confirm} passes now ({summary}): the cause is gone, or the log "
            "comes from another node"
        )
    return f"on this node {confirm} reports {result.status.value}: {summary}"


def _end_only(name: str) -> str:
    """How to hand over only the end of a log the scan could not finish."""
    if name == "stdin":
        return "pipe only its end: tail -c 16M LOG | ampenv doctor --log -"
    quoted = shlex.quote(name)
    end = f"zcat {quoted} | tail -c 16M" if name.endswith(".gz") else f"tail -c 16M {quoted}"
    return f"pass only its end: {end} | ampenv doctor --log -"


def _shown(codes: tuple[str, ...], hit: Hit) -> Optional[str]:
    """The first of ``codes`` the hit's line shows as a token of its own (an entry owning
    several is found by any of them, or by its message with none; 107001 in a pid 1070012 is
    not shown)."""
    for text in (hit.line, hit.match):  # the line as the log wrote it first
        at = {}
        for code in codes:
            m = re.search(rf"(?<![\w-]){re.escape(code)}(?!\w)", text)
            if m:
                at[code] = m.start()
        if at:
            return min(at, key=at.__getitem__)
    return None


def _finding(ctx: CheckContext, hit: Hit, tails: list[str], whole: bool) -> Finding:
    """``whole``: every log was read to its end (or its tail): only then does a notice with no
    failure beside it stay a note."""
    f = hit.failure
    shown = _shown(f.codes, hit)
    name = f"{shown} ({f.id})" if shown else f.id
    where = hit.first if hit.count == 1 else f"{hit.first} .. {hit.last}"
    times = "once" if hit.count == 1 else f"{hit.count} times"
    message = f"{name}: {f.meaning}; {times}, {where}"
    if f.fallback:  # a language's class of failure: its line names the API, the module
        message += f" ({hit.line.strip()})"
    if any(name in tails for name in hit.texts):
        message += " (lines counted from the start of the part read: the file's end)"
    if hit.also:
        message += f"; the specific cause logged near it: {', '.join(hit.also)}"
    if hit.reason:
        message += f"; the reason logged near it: {hit.reason}"
    node = _node_says(ctx, hit)
    if node:
        message += f"; {node}"
    if hit.note and whole:
        message += f"; a note, not a failure: the logs read show no failure (if one did: {f.fix})"
        return Finding(Status.PASS, message)
    # A generic follow-up code says "look at the lines around me": the specific hit says what.
    status = Status.PASS if hit.also else Status.WARN
    return Finding(status, message, None if hit.also else f.fix)


def _unexplained(told: list[tuple[str, Unexplained]], tails: list[str]) -> Finding:
    """Logs that end with one failure no entry knows (``told``: each log and its end, the same
    line): its own words, where, and what they ask. ``tails``: the logs read as their end."""
    name, end = told[0]
    where = f"{name}:{end.first}" + (f" .. {name}:{end.last}" if end.last != end.first else "")
    if name in tails:
        where += " (lines counted from the start of the part read: the file's end)"
    if end.count > 1 or end.more:
        times = "once" if end.count == 1 else f"{end.count} times"
        # (a long log's count is of the end that was read: its earlier lines may hold more)
        where += f" ({times} in the part read)" if end.more else f" ({times})"
    if len(told) > 1:
        where += f", and in {len(told) - 1} more log(s)"
    raised = f" (raised in {end.raiser}'s code)" if end.raiser else ""
    logs = "the logs end" if len(told) > 1 else "the log ends"
    # (a program that reported an error and stopped shows no crash: its report is its end)
    ending = "with a failure no entry knows" if end.died else "on an error no entry knows, no crash"
    message = f"{where}: {logs} {ending}: {end.line}{raised}"
    if end.advice:
        return Finding(
            Status.WARN,
            message,
            f"its own words ask: \"{end.advice}\" (the program's advice, not ampenv's: weigh it)",
        )
    owner = f"{end.raiser}'s issues" if end.raiser else "the issues of the program that printed it"
    above = "above it" if end.more else f"above {name}:{end.first}"
    remedy = f"read the lines {above} for the run's first error; search {owner} for these words"
    return Finding(Status.WARN, message, remedy)


@check(
    "logs.errors",
    title="Known failures in logs",
    profile="quick",
    after=CONFIRMING,
    timeout=25,
    why="A job that died left its cause in the plog or the training log; the same error text "
    "has the same fix on every node.",
    remedies=("the fix of each known failure: `ampenv explain CODE` shows it whole",),
)
def logs_errors(ctx: CheckContext) -> Result:
    """The known failures (ampenv.knowledge.failures: error codes and message texts with their
    sources) in the recent plogs and in every file named with --log (`-` for stdin, .gz too),
    read with a bounded tail; one finding per failure, with where it shows and how often."""
    cfg = ctx.config.section("cache")
    places = caches.resolve_places(ctx.probe, list(cfg.get("roots") or []))
    roots = [p.root for p in places if p.kind == "log"]
    scan = logs.scan(
        ctx.probe,
        roots,
        list(ctx.logs),
        tail_mb=cfg["log_tail_mb"],
        max_age_days=cfg["log_max_age_days"],
    )
    whole = not (
        scan.stopped
        or scan.skipped
        or scan.damaged
        or scan.unreadable
        or scan.undecoded
        or scan.unread
    )
    findings = [_finding(ctx, hit, scan.tails, whole) for hit in scan.hits]
    # the same failure ended several logs (a job's ranks, a node's runs): one finding
    same: dict[str, list[tuple[str, Unexplained]]] = {}
    for name, end in scan.unexplained:
        same.setdefault(end.line, []).append((name, end))
    findings += [_unexplained(told, scan.tails) for told in same.values()]
    findings += [
        Finding(Status.WARN, f"--log {path} cannot be read: {why}", "pass a readable file")
        for path, why in scan.unreadable
    ]
    findings += [
        Finding(
            Status.WARN,
            f"--log {path}: the gzip stream breaks before its end ({why}): what came before "
            "the break was read, a failure logged after it is missed",
            "the file was cut while it was written or copied: take it again once the job has "
            "ended, or pass the plain log",
        )
        for path, why in scan.damaged
    ]
    findings += [
        Finding(
            Status.WARN,
            f"{name}: read for {logs.BUDGET_S * (1 - logs.SCAN_SHARE):g} s of the scan's "
            f"{logs.BUDGET_S:g} s (the rest kept to scan what was read), it had not ended: a "
            "failure logged near its end may be missed",
            _end_only(name),
        )
        for name in scan.stopped
    ]
    findings += [
        Finding(
            Status.WARN,
            f"{name}: the scan's {logs.BUDGET_S:g} s ran out in its middle: its start and its "
            "last lines were read, a failure logged between them may be missed",
            _end_only(name),
        )
        for name in scan.skipped
    ]
    off = faultdiag.problem()
    if off:
        findings.append(
            Finding(
                Status.WARN,
                f"Fault-Diag's rules were not read: {off}; the rest of the catalogue was",
                "reinstall ampenv: its knowledge/failures/faultdiag.json is damaged",
            )
        )
    if scan.undecoded:
        findings.append(
            Finding(
                Status.WARN,
                f"{scan.undecoded} line(s) with an error code were not decoded: a scan decodes "
                f"{MAX_DECODED} distinct codes at most, and these logs name more",
                "`ampenv explain CODE` for a code you care about; or pass the part of the log "
                "around the failure: ampenv doctor --log part.log",
            )
        )
    details = []
    if scan.unread:
        details.append(
            f"{scan.unread} log(s) left unread: the scan stops after {logs.BUDGET_S:g} s"
        )
    facts = {
        "logs_scanned": scan.files,
        "hits": [
            {
                "id": h.id,
                "codes": list(h.failure.codes),
                "count": h.count,
                "first": h.first,
                "last": h.last,
                "line": h.line,
                "note": h.note and whole,
            }
            for h in scan.hits
        ],
        "unexplained": [
            {
                "log": name,
                "line": e.line,
                "first": e.first,
                "last": e.last,
                "count": e.count,
                "more": e.more,
                "raiser": e.raiser,
                "advice": e.advice,
                "died": e.died,
            }
            for name, e in scan.unexplained
        ],
    }
    failed = sum(not (h.note and whole) for h in scan.hits)
    metrics = {
        "log_hits": float(failed),
        "log_unexplained": float(len(scan.unexplained)),
        "logs_scanned": float(len(scan.files)),
    }
    ok = f"no known failure in {len(scan.files)} log(s)"
    if not scan.files and not scan.unreadable:
        return Result.skip("no recent plog and no --log file to read", facts=facts, metrics=metrics)
    return combine(findings, ok, details=details, facts=facts, metrics=metrics)
