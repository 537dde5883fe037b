"""Device work in a child Python process, so a hang or a crash in torch / torch_npu / a driver
becomes a result instead of taking the doctor down.

The child is ``python -m <module> [args]``. It reports by printing one line
``AMPENV_RESULT <json>`` on stdout (use :func:`emit` in the child); everything else it prints is
kept as raw text for diagnosis.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, Optional

from ampenv.probe import proc
from ampenv.probe.proc import CommandResult

MARKER = "AMPENV_RESULT "
STAGE = "AMPENV_STAGE "  # "AMPENV_STAGE <step> <total> <what>" on stderr: how far the child is
Progress = Callable[..., None]  # CheckContext.progress: (text, done, total)


def emit(payload: dict[str, Any]) -> None:
    """Child side: hand the result to the parent."""
    sys.stdout.write(MARKER + json.dumps(payload, default=str) + "\n")
    sys.stdout.flush()


def stage(step: int, total: int, what: str) -> None:
    """Child side: say which step of ``total`` begins (the parent shows it as progress)."""
    sys.stderr.write(f"{STAGE}{step} {total} {what}\n")
    sys.stderr.flush()


def stage_reader(progress: Progress) -> Callable[[str], None]:
    """Parent side: a stderr line handler that passes the child's stages to ``progress``."""

    def on_line(line: str) -> None:
        if line.startswith(STAGE):
            step, total, what = [*line[len(STAGE) :].split(" ", 2), "", ""][:3]
            if step.isdigit() and total.isdigit():
                progress(f"{what} ({step}/{total})", int(step) - 1, int(total))

    return on_line


def parse_payload(stdout: str) -> Optional[dict[str, Any]]:
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARKER):
            try:
                return json.loads(line[len(MARKER) :])
            except ValueError:
                return None
    return None


def run_module(
    module: str,
    args: list[str],
    timeout: float,
    *,
    env: Optional[dict[str, str]] = None,
    python: Optional[str] = None,
    on_stderr_line: Optional[Callable[[str], None]] = None,
    progress: Optional[Progress] = None,
) -> tuple[CommandResult, Optional[dict[str, Any]]]:
    """Run ``python -m module args`` with a hard timeout; return the command and its payload.
    ``progress`` hears the child's stages (:func:`stage`)."""
    argv = [python or sys.executable, "-m", module, *args]
    if progress is not None and on_stderr_line is None:
        on_stderr_line = stage_reader(progress)
    result = proc.run(argv, timeout, env=env, on_stderr_line=on_stderr_line)
    return result, parse_payload(result.stdout)


def tail(text: str, lines: int = 12) -> list[str]:
    """The last lines of a child's output, for a report's details."""
    kept = [line for line in text.strip().splitlines() if not line.startswith(STAGE)]
    return [line for line in kept[-lines:] if line.strip()]
