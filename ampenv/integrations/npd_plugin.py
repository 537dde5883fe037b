"""``ampenv hook npd``: a node-problem-detector custom plugin.

The protocol: exit 0 OK, 1 NonOK, 2 Unknown, and at most 80 bytes on stdout, which NPD shows
as the condition's message. NPD kills a plugin at its ``timeout`` (5 s by default) and reports
Unknown, so the quick profile runs under a deadline a little inside that.
"""

from __future__ import annotations

import dataclasses
import time

from ampenv.core.runner import REPORT_GRACE
from ampenv.core.session import Options, diagnose
from ampenv.core.settings import ConfigError
from ampenv.probe import proc
from ampenv.report.npd import MAX_BYTES, message, truncate_utf8
from ampenv.util.clock import process_start
from ampenv.util.formats import printable

OK, NON_OK, UNKNOWN = 0, 1, 2
# Report exit codes (0 healthy, 1 unhealthy, 3 could not judge) to NPD's three.
NPD_CODES = {0: OK, 1: NON_OK}
DEFAULT_TIMEOUT = 4.0  # under NPD's default plugin timeout of 5 s


def unknown(why: str) -> str:
    """NPD's message for a run that ended without a verdict."""
    return truncate_utf8(f"ampenv: could not judge: {why}", MAX_BYTES - 1)


def run_plugin(opts: Options, timeout: float = DEFAULT_TIMEOUT) -> tuple[int, str]:
    """The exit code and the message (no newline) for NPD."""
    deadline = max(0.2, process_start() + timeout - time.monotonic() - REPORT_GRACE)
    opts = dataclasses.replace(opts, profile="quick", deadline=deadline)
    try:
        report = diagnose(opts)
    except ConfigError as exc:  # the key first: a long config path would push it out
        where = f"config {printable(exc.key)}" if exc.key else printable(exc.path)
        return UNKNOWN, truncate_utf8(f"ampenv: {where}: {exc.message}", MAX_BYTES - 1)
    except ValueError as exc:
        return UNKNOWN, truncate_utf8(f"ampenv: {exc}", MAX_BYTES - 1)
    finally:
        proc.kill_children()
    return NPD_CODES.get(report.exit_code, UNKNOWN), message(report)
