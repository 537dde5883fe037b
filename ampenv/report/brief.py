"""Short forms of a report for hooks and the entrypoint: one headline, or the problems only.

Cluster hooks show one line (`sinfo -R`, an NPD condition message); the container entrypoint
writes only what needs attention to stderr, since stdout belongs to the job.
"""

from __future__ import annotations

from typing import Optional

from ampenv.core.model import CheckRun, Report, Status
from ampenv.util.formats import printable, printable_lines

VERDICTS = {0: "healthy", 1: "unhealthy", 3: "could not judge"}


# What decides the exit code first: a failure (1) outweighs a check that could not judge (3).
DECIDING = (Status.FAIL, Status.ERROR, Status.WARN)


def worst(report: Report) -> Optional[CheckRun]:
    """The check that decides the verdict, the first of its status (skips never do)."""
    for status in DECIDING:
        found = next((c for c in report.checks if c.status is status), None)
        if found is not None:
            return found
    return None


def headline(report: Report) -> str:
    """`<check id>: <summary>` of the deciding check, or a healthy count, on one line (a
    summary may quote a value with a newline in it; a drain reason must stay one line)."""
    c = worst(report)
    if c is None:
        return f"healthy: {len(report.checks)} checks passed or skipped"
    return printable(" ".join(f"{c.id}: {c.summary}".split()))


def render(report: Report, **_: object) -> str:
    """Every check that needs attention, with its remedy, then the verdict."""
    lines = []
    for c in report.checks:
        if c.status in (Status.PASS, Status.SKIP):
            continue
        lines.append(f"ampenv: {c.status.value} {c.id}: {c.summary}")
        if c.remedy:
            lines.append(f"ampenv:   fix: {c.remedy}")
    verdict = VERDICTS.get(report.exit_code, "unhealthy")
    lines.append(
        f"ampenv: {verdict} ({len(report.checks)} checks, profile {report.profile}, "
        f"{report.duration_s:.2f} s)"
    )
    return printable_lines("\n".join(lines)) + "\n"
