"""``--format npd``: node-problem-detector's custom plugin message, at most 80 bytes.

NPD keeps at most ``max_output_length`` (80) bytes of a plugin's stdout as the condition
message; a message cut inside a UTF-8 sequence would show as garbage, so it is cut on a
character boundary here, newline included.
"""

from __future__ import annotations

from ampenv.core.model import Report
from ampenv.report.brief import headline

MAX_BYTES = 80
ELLIPSIS = "..."


def truncate_utf8(text: str, limit: int) -> str:
    """The longest prefix of ``text`` that fits ``limit`` bytes, marked when it was cut."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    cut = data[: max(0, limit - len(ELLIPSIS))]
    # Dropping an incomplete trailing sequence keeps whole characters only.
    return cut.decode("utf-8", "ignore") + ELLIPSIS


def message(report: Report) -> str:
    return truncate_utf8("ampenv: " + headline(report), MAX_BYTES - 1)


def render(report: Report, **_: object) -> str:
    return message(report) + "\n"
