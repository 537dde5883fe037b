"""The human report, in the flutter-doctor manner: one line per check, then its remedy.

One formatter for both ways the report reaches a reader: :func:`render` (the whole report at
once: a pipe, ``--output``, ``ampenv env``) and the live printer of ``ampenv doctor`` on a
terminal (:mod:`ampenv.report.live`), which prints :func:`head` first, then each check's
:func:`block` as soon as it and every check above it are judged, then :func:`tail`. So the
report is the same bytes either way, and is written here once.

Every glyph lives in :data:`MARKS` (one dict, so an ASCII fallback swaps one table); every text
that comes from a check passes through :func:`_say` (one place for escaping).
"""

from __future__ import annotations

import json
import textwrap
from typing import Any, Optional

from ampenv.core.model import CheckRun, Report, Status
from ampenv.util.formats import printable

MARKS: dict[Any, str] = {
    Status.PASS: "[✓]",
    Status.SKIP: "[-]",
    Status.WARN: "[!]",
    Status.FAIL: "[✗]",
    Status.ERROR: "[?]",
    "detail": "•",
    "remedy": "→",
    "sep": "·",
    "spinner": "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏",  # the live printer's frames, one character each
    "bar": "━╺─",  # done, edge, to do: the live printer's progress bar
}
# For a terminal that cannot print UTF-8 (PYTHONIOENCODING=ascii): the same marks in ASCII.
ASCII = str.maketrans({"✓": "+", "✗": "x", "•": "*", "→": "->", "·": "|"})
COLOURS = {
    Status.PASS: "32",
    Status.SKIP: "2",
    Status.WARN: "33",
    Status.FAIL: "31",
    Status.ERROR: "35",
}
# Where each kind of line starts, and where its wrapped continuation lines start: under the
# text they continue, never at column 0.
CHECK_INDENT, DETAIL_INDENT, FACT_INDENT = 4, 6, 8


def _paint(text: str, status: Status, color: bool) -> str:
    return f"\033[{COLOURS[status]}m{text}\033[0m" if color else text


def _say(text: Any) -> str:
    """A check's own words (summary, detail, remedy, fact, host), as printed: escaped before
    colour is added, so a hostile host name or value cannot paint a line of its own."""
    return printable(str(text))


def _wrap(text: str, first: str, indent: int, width: Optional[int]) -> list[str]:
    """``first + text``, cut at spaces to ``width`` columns with the rest indented by
    ``indent``; a word longer than the line (a path, a command) is kept whole. No width (a
    pipe, a file): one line, as written."""
    line = first + text
    if not width or len(line) <= width:
        return [line]
    return textwrap.wrap(
        line,
        width=max(width, indent + 20),
        subsequent_indent=" " * indent,
        break_long_words=False,
        break_on_hyphens=False,
        drop_whitespace=True,
    ) or [line]


def _repeats_summary(detail: str, summary: str) -> bool:
    """A detail that only says the summary again (a combined result lists its worst finding as
    ``fail: <summary>``): the reader has just read it on the check's line."""
    said = summary.rsplit(" (+", 1)[0] if summary.endswith(" more)") else summary
    _, _, rest = detail.partition(": ")
    return detail in (summary, said) or (detail.split(":", 1)[0] in set(Status) and rest == said)


def head(profile: str, backend: str, host: str) -> str:
    sep = MARKS["sep"]
    fields = (f"profile {_say(profile)}", f"backend {_say(backend)}", _say(host))
    return f" {sep} ".join(("ampenv doctor", *fields))


def block(
    c: CheckRun, *, verbose: bool = False, color: bool = False, width: Optional[int] = None
) -> list[str]:
    """A check's lines: mark, title, id and summary; details when it did not pass (all of them
    with ``verbose``), its remedy, and with ``verbose`` its facts and metrics."""
    timing = f"  ({c.duration_s:.2f} s)" if verbose else ""
    summary = _say(c.summary)
    mark = MARKS[c.status]
    first = _wrap(
        f"{_say(c.title)} ({_say(c.id)}): {summary}{timing}", f"{mark} ", CHECK_INDENT, width
    )
    lines = [_paint(mark, c.status, color) + first[0][len(mark) :], *first[1:]]
    if verbose or c.status not in (Status.PASS, Status.SKIP):
        for d in c.details:
            if not _repeats_summary(_say(d), summary):
                lines += _wrap(_say(d), f"    {MARKS['detail']} ", DETAIL_INDENT, width)
    if c.remedy and c.status is not Status.PASS:
        lines += _wrap(_say(c.remedy), f"    {MARKS['remedy']} ", DETAIL_INDENT, width)
    if verbose:
        for key, value in {**c.facts, **c.metrics}.items():
            shown = value if isinstance(value, (str, int, float)) else json.dumps(value)
            lines += _wrap(_say(shown), f"      {key} = ", FACT_INDENT, width)
    return lines


def tail(report: Report, *, color: bool = False, **_: Any) -> list[str]:
    """What follows the checks: the verdict (and what a renderer adds below it, such as the
    smoke run's loss chart). The live printer prints it once every check is in."""
    counts = {s: sum(1 for c in report.checks if c.status is s) for s in Status}
    parts = [f"{n} {s.value}" for s, n in counts.items() if n]
    verdict = {0: "healthy", 1: "unhealthy", 3: "could not judge"}[report.exit_code]
    return [
        "",
        f"{_paint(verdict.upper(), report.status, color)}: {', '.join(parts)} "
        f"in {report.duration_s:.2f} s (exit {report.exit_code})",
    ]


def render(
    report: Report,
    *,
    verbose: bool = False,
    color: bool = False,
    width: Optional[int] = None,
    ascii: bool = False,
    **_: Any,
) -> str:
    lines = [head(report.profile, report.backend, report.host)]
    for c in report.checks:
        lines += block(c, verbose=verbose, color=color, width=width)
    lines += tail(report, color=color, width=width)
    text = "\n".join(lines) + "\n"
    return text.translate(ASCII) if ascii else text
