"""The process's standard streams and signal dispositions, as the hosts need them.

- :func:`guard_stdout`: stdout carries the report only. Checks, plugins and their children run
  with fd 1 pointed at stderr (an ``os.write(1, ...)`` or a subprocess that inherits fd 1
  cannot corrupt ``-f json`` or push the NPD message past 80 bytes); ``sys.stdout`` writes to
  the saved stdout. Unencodable characters are escaped, never a traceback.
- :func:`restore_for_exec`: before ``ampenv run`` becomes the job, fd 1 is the job's again,
  and the signals Python ignores (SIGPIPE, SIGXFSZ) are back to their defaults, as a shell
  would give them.
- :func:`terminate_on_sigterm`: SIGTERM unwinds like an exit (``finally`` blocks run, a
  bundle's temporary tree is removed, children are killed) with exit code 143.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
import threading
from typing import Optional

_saved_stdout: Optional[int] = None
EXIT_SIGTERM = 128 + signal.SIGTERM


def guard_stdout() -> None:
    """Point fd 1 at stderr and ``sys.stdout`` at a copy of the original fd 1."""
    global _saved_stdout
    if _saved_stdout is not None:
        return
    try:
        saved = os.dup(1)
    except OSError:  # no fd 1 at all: nothing to guard
        return
    try:
        os.dup2(2, 1)
    except OSError:
        os.close(saved)
        return
    os.set_inheritable(saved, False)  # the checks' children must not write the report
    old = sys.stdout
    encoding = getattr(old, "encoding", None) or "utf-8"
    with_tty = os.isatty(saved)
    report = io.TextIOWrapper(
        io.FileIO(saved, "w", closefd=True),
        encoding=encoding,
        errors="backslashreplace",
        line_buffering=with_tty,
    )
    sys.stdout = MainThreadOnly(report)
    _saved_stdout = saved


class MainThreadOnly:
    """``sys.stdout`` while ampenv runs: the main thread (the CLI, writing the report) writes
    to the saved stdout; any other thread (a check, a plugin loading in its own thread) to
    stderr. ``contextlib.redirect_stdout`` would not do: it swaps a global, and a plugin
    left spinning in its thread would never swap it back."""

    def __init__(self, report: io.TextIOWrapper) -> None:
        self._report = report

    def _target(self):
        if threading.current_thread() is threading.main_thread():
            return self._report
        return sys.stderr

    def write(self, text: str) -> int:
        return self._target().write(text)

    def writelines(self, lines) -> None:
        self._target().writelines(lines)

    def flush(self) -> None:
        self._report.flush()
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.flush()

    def __getattr__(self, name: str):
        return getattr(self._target(), name)


def report_stream():
    """Where the report goes, from any thread: the saved stdout once guarded (the live printer
    draws from a thread of its own, which ``sys.stdout`` would send to stderr)."""
    out = sys.stdout
    return out._report if isinstance(out, MainThreadOnly) else out


def can_encode(text: str, stream=None) -> bool:
    """Whether ``stream`` (stdout by default) can print ``text`` as it is."""
    stream = sys.stdout if stream is None else stream
    try:
        text.encode(getattr(stream, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def restore_for_exec() -> None:
    """fd 1 back to the original stdout; default dispositions of the signals Python sets."""
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    if _saved_stdout is not None:
        os.dup2(_saved_stdout, 1)
    # Python ignores these two at start-up, and an ignored signal stays ignored across exec
    # (`yes | head -1` would print "Broken pipe"); handled ones (SIGINT, SIGTERM) are reset
    # by exec itself, and one the caller ignored (nohup) stays as the caller wanted.
    for name in ("SIGPIPE", "SIGXFSZ"):
        sig = getattr(signal, name, None)
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)


class Terminated(SystemExit):
    """Raised in the main thread on SIGTERM."""


_terminating = False


def terminating() -> bool:
    """Whether a SIGTERM is unwinding this process (a writer then waits on nobody)."""
    return _terminating


def _on_sigterm(signum: int, frame: object) -> None:
    global _terminating
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second TERM must not cut the cleanup
    _terminating = True
    raise Terminated(EXIT_SIGTERM)


def terminate_on_sigterm() -> None:
    signal.signal(signal.SIGTERM, _on_sigterm)
