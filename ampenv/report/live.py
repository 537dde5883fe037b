"""The text report as it happens: each check's lines as soon as it and every check above it are
judged, a spinner with the elapsed time (and the check's own progress) for the check the next
line waits for, then the verdict.

The lines are :mod:`ampenv.report.text`'s own (``head``, ``block``, ``tail``), so what a live run
prints is the report ``render`` gives, byte for byte, once the animation is taken away. Without a
terminal (a pipe, ``TERM=dumb``) there is no animation: the same lines, each flushed when it
is ready. With ``lines=False`` only the transient status line is drawn (``--format json`` on a
terminal: the report itself goes to stdout at the end, the status line to stderr).

Drawn by hand (one status line below the printed ones, rewritten in place with ``\\r`` and
``ESC[K``): no import beyond the standard library, so a run that draws pays nothing for it.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import IO, Any, Callable, Optional

from ampenv.core.model import CheckRun, Report
from ampenv.report import text
from ampenv.util.stdio import can_encode

FRAME_S = 0.1  # the spinner's tick
COLOR_CHOICES = ("auto", "always", "never")


@dataclass(frozen=True)
class Terminal:
    """How one output stream is written to: colour, animation (cursor movement), width."""

    color: bool
    animate: bool
    width: Optional[int]  # None: do not wrap (a pipe, a file)
    ascii: bool = False  # the stream cannot print the marks (PYTHONIOENCODING=ascii)


def terminal(
    stream: IO[str], color: str = "auto", env: Optional[dict[str, str]] = None
) -> Terminal:
    """The conventions, in order: ``--color always|never`` wins; then ``NO_COLOR`` (non-empty:
    no colour), ``FORCE_COLOR`` (non-empty: colour even on a pipe), ``TERM=dumb`` (no colour);
    else colour on a terminal. Animation and wrapping need a terminal that is not ``dumb``;
    ``COLUMNS`` overrides the width the terminal reports."""
    env = os.environ if env is None else env
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream
        tty = False
    dumb = env.get("TERM", "") == "dumb"
    if color == "always":
        painted = True
    elif color == "never" or env.get("NO_COLOR"):
        painted = False
    elif env.get("FORCE_COLOR"):
        painted = True
    else:
        painted = tty and not dumb
    # A stream that names no encoding (a StringIO) takes any text.
    ascii = getattr(stream, "encoding", None) is not None and not can_encode("✓✗•→·", stream)
    return Terminal(
        painted, tty and not dumb and not ascii, _width(stream, env) if tty else None, ascii
    )


def _width(stream: IO[str], env: dict[str, str]) -> Optional[int]:
    columns = env.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return os.get_terminal_size(stream.fileno()).columns or None
    except (OSError, ValueError, AttributeError):
        return None


@dataclass
class _Running:
    title: str
    started: float
    text: str = ""
    done: Optional[float] = None
    total: Optional[float] = None


class Live:
    """The observer of a run (``Options.observer``): call :meth:`close` with the report."""

    def __init__(
        self,
        stream: IO[str],
        term: Terminal,
        *,
        verbose: bool = False,
        lines: bool = True,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream, self.term, self.verbose, self.lines = stream, term, verbose, lines
        self.clock = clock
        self.order: list[str] = []
        self.judged: dict[str, CheckRun] = {}
        self.running: dict[str, _Running] = {}
        self.shown = 0  # checks whose lines are out
        self.status = ""  # the status line now on screen ("" when none)
        self.frame = 0
        self.lock = threading.RLock()
        self.stop = threading.Event()
        self.ticker: Optional[threading.Thread] = None

    # -- the observer ---------------------------------------------------------------------

    def __call__(self, kind: str, check_id: str, **data: Any) -> None:
        with self.lock:
            if kind == "begin" and self.lines:
                self._print([text.head(data["profile"], data["backend"], data["host"])])
            elif kind == "plan":
                self.order = list(data["ids"])
                if self.term.animate and self.ticker is None:
                    self.ticker = threading.Thread(target=self._tick, name="live", daemon=True)
                    self.ticker.start()
            elif kind == "start":
                self.running[check_id] = _Running(data.get("title", check_id), self.clock())
            elif kind == "progress" and check_id in self.running:
                r = self.running[check_id]
                r.text, r.done, r.total = data.get("text", ""), data.get("done"), data.get("total")
            elif kind == "finish":
                self.running.pop(check_id, None)
                self.judged[check_id] = data["run"]
                self._flush()
            self._draw()

    def close(self, report: Optional[Report] = None) -> None:
        """Stop the spinner, print what is left and, given the report, its tail (the verdict)."""
        self.stop.set()
        if self.ticker is not None:
            self.ticker.join(1.0)
        with self.lock:
            self._clear()
            if report is not None and self.lines:
                for run in report.checks[self.shown :]:  # none, unless a run was cut short
                    self.judged.setdefault(run.id, run)
                self.order = self.order or [c.id for c in report.checks]
                self._flush()
                self._print(text.tail(report, color=self.term.color, width=self.term.width))

    # -- drawing --------------------------------------------------------------------------

    def _flush(self) -> None:
        """Print every judged check whose checks above are all judged."""
        while self.shown < len(self.order) and self.order[self.shown] in self.judged:
            run = self.judged[self.order[self.shown]]
            self.shown += 1
            if self.lines:
                t = self.term
                self._print(text.block(run, verbose=self.verbose, color=t.color, width=t.width))

    def _print(self, lines: list[str]) -> None:
        self._clear()
        out = "".join(line + "\n" for line in lines)
        self.stream.write(out.translate(text.ASCII) if self.term.ascii else out)
        self.stream.flush()

    def _clear(self) -> None:
        if self.status:
            self.stream.write("\r\033[K")
            self.status = ""

    def _tick(self) -> None:
        while not self.stop.wait(FRAME_S):
            with self.lock:
                self.frame += 1
                self._draw()

    def _draw(self) -> None:
        if not self.term.animate or self.stop.is_set():
            return
        line = self.status_line()
        if line == self.status:
            return
        self.stream.write("\r" + line + "\033[K")
        self.stream.flush()
        self.status = line

    def status_line(self) -> str:
        """The check the next line waits for: spinner, title, id, elapsed time, progress."""
        waiting = self.order[self.shown] if self.shown < len(self.order) else None
        r = self.running.get(waiting or "")
        if r is None:  # it has not started yet: say what is running
            if not self.running:
                return ""
            waiting, r = next(iter(self.running.items()))
        frames = text.MARKS["spinner"]
        parts = [f"{self.clock() - r.started:.1f} s"]
        if r.total and r.done is not None:
            parts.append(_bar(r.done, r.total))
        if r.text:
            parts.append(r.text)
        others = len(self.running) - 1
        if others > 0:
            parts.append(f"+{others} running")
        width = (self.term.width or 80) - 1  # never the last column: that would wrap the line
        sep = f" {text.MARKS['sep']} "
        spin = frames[self.frame % len(frames)]
        line = sep.join([f"{spin} {r.title} ({waiting})", *parts])
        if len(line) > width:  # the progress matters more than the id
            line = sep.join([f"{spin} {r.title}", *parts])
        return line if len(line) <= width else line[: width - 1] + "…"


def _bar(done: float, total: float, size: int = 12) -> str:
    full, edge, todo = text.MARKS["bar"]
    filled = max(0, min(size, round(size * done / total)))
    return full * filled + (edge if filled < size else "") + todo * (size - filled - 1)
