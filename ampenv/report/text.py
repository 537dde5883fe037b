"""The human report, in the flutter-doctor manner: one line per check, then its remedy."""

from __future__ import annotations

import json
from typing import Any

from ampenv.core.model import Report, Status
from ampenv.util.formats import printable as _p

MARKS = {
    Status.PASS: "[✓]",
    Status.SKIP: "[-]",
    Status.WARN: "[!]",
    Status.FAIL: "[✗]",
    Status.ERROR: "[?]",
}
COLOURS = {
    Status.PASS: "32",
    Status.SKIP: "2",
    Status.WARN: "33",
    Status.FAIL: "31",
    Status.ERROR: "35",
}


def _paint(text: str, status: Status, color: bool) -> str:
    return f"\033[{COLOURS[status]}m{text}\033[0m" if color else text


def render(report: Report, *, verbose: bool = False, color: bool = False, **_: Any) -> str:
    # Every field is escaped before colour is added: a hostile host name, summary or value
    # cannot paint a line of its own (a bundle's host may hold escape codes).
    lines = [
        f"ampenv doctor · profile {_p(report.profile)} · backend {_p(report.backend)} · "
        f"{_p(report.host)}"
    ]
    for c in report.checks:
        timing = f"  ({c.duration_s:.2f} s)" if verbose else ""
        mark = _paint(MARKS[c.status], c.status, color)
        lines.append(f"{mark} {_p(c.title)} ({_p(c.id)}): {_p(c.summary)}{timing}")
        show_details = verbose or c.status not in (Status.PASS, Status.SKIP)
        if show_details:
            lines += [f"    • {_p(d)}" for d in c.details]
        if c.remedy and c.status is not Status.PASS:
            lines.append(f"    → {_p(c.remedy)}")
        if verbose:
            for key, value in {**c.facts, **c.metrics}.items():
                shown = value if isinstance(value, (str, int, float)) else json.dumps(value)
                lines.append(f"      {_p(str(key))} = {_p(str(shown))}")
    counts = {s: sum(1 for c in report.checks if c.status is s) for s in Status}
    parts = [f"{n} {s.value}" for s, n in counts.items() if n]
    verdict = {0: "healthy", 1: "unhealthy", 3: "could not judge"}[report.exit_code]
    lines.append("")
    lines.append(
        f"{_paint(verdict.upper(), report.status, color)}: {', '.join(parts)} "
        f"in {report.duration_s:.2f} s (exit {report.exit_code})"
    )
    return "\n".join(lines) + "\n"
