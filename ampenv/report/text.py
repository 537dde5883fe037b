"""The human report, in the flutter-doctor manner: one line per check, then its remedy."""

from __future__ import annotations

import json
from typing import Any

from ampenv.core.model import Report, Status

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


# For a terminal that cannot print UTF-8 (LC_ALL=POSIX, PYTHONIOENCODING=ascii).
ASCII = str.maketrans({"✓": "+", "✗": "x", "•": "*", "→": "->", "·": "|"})


def render(
    report: Report, *, verbose: bool = False, color: bool = False, ascii: bool = False, **_: Any
) -> str:
    lines = [f"ampenv doctor · profile {report.profile} · backend {report.backend} · {report.host}"]
    for c in report.checks:
        timing = f"  ({c.duration_s:.2f} s)" if verbose else ""
        mark = _paint(MARKS[c.status], c.status, color)
        lines.append(f"{mark} {c.title} ({c.id}): {c.summary}{timing}")
        show_details = verbose or c.status not in (Status.PASS, Status.SKIP)
        if show_details:
            lines += [f"    • {d}" for d in c.details]
        if c.remedy and c.status is not Status.PASS:
            lines.append(f"    → {c.remedy}")
        if verbose:
            for key, value in {**c.facts, **c.metrics}.items():
                shown = value if isinstance(value, (str, int, float)) else json.dumps(value)
                lines.append(f"      {key} = {shown}")
    counts = {s: sum(1 for c in report.checks if c.status is s) for s in Status}
    parts = [f"{n} {s.value}" for s, n in counts.items() if n]
    verdict = {0: "healthy", 1: "unhealthy", 3: "could not judge"}[report.exit_code]
    lines.append("")
    lines.append(
        f"{_paint(verdict.upper(), report.status, color)}: {', '.join(parts)} "
        f"in {report.duration_s:.2f} s (exit {report.exit_code})"
    )
    text = "\n".join(lines) + "\n"
    return text.translate(ASCII) if ascii else text
