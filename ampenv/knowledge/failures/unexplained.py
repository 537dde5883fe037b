"""The failure a run ended with, in its own words, where no entry of the catalogue knows them:
the line that says what failed (an exception's message; else the record of a kill, a fatal
error, a launcher's failed child), where and how often it shows, whose code raised it, and
what its words ask the reader to do. A log that shows a process died is no healthy log, known
words or not."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Optional

from ampenv.knowledge.failures.lines import (
    EXCERPT,
    QUIET_LEVEL,
    WINDOW,
    below_error,
    death_tail,
    starts_record,
)

# An exception's line: its name (dotted, "torch.OutOfMemoryError", Ray's "RayTaskError(
# ValueError)") and its message, after the start of the line or a relay's prefix ("[rank0]: ",
# "(EngineCore pid=1) ERROR ... [core.py:1] ", "  | " of an exception group): the name begins
# after a space or a prefix's closing mark, never after a quote (source quoting the message).
_NAME_END = re.compile(
    r"(?:Error|Exception|Exit|Interrupt|Failure|Fault)(?=(?:\([\w.]{1,80}\))?: )"
)
_NAME = re.compile(r"(?<![\w.'\"])[A-Za-z_][\w.]{0,120}$")
_PREFIX_END = " \t\r])|:>"
_BARE = frozenset(("Exit", "Interrupt", "Failure", "Fault"))
# Names that wrap a failure told above them, and messages that point there.
_WRAPPERS = frozenset(
    ("ChildFailedError", "CalledProcessError", "EngineDeadError", "SystemExit", "RayTaskError")
)
_POINTS_ABOVE = re.compile(
    r"(?i)\bsee (?:the )?(?:root cause|(?:error|stack ?trace|traceback|logs?) above|above)"
    r"|\broot cause above|\bfor (?:the )?root cause\b|\bsee stack trace\b|\bsee above\b"
)
_HANDLING = "During handling of the above exception"
# What Python prints above a traceback it reports and goes on from (a __del__ at exit, a .pth
# file site.py could not run)
_GONE_ON = re.compile(r"Exception ignored in|Error processing line \d+ of ")
_TRACEBACK = "Traceback (most recent call last)"
# The end of a process that raised nothing: a signal, a fatal error, a failed check (a
# launcher's, a scheduler's or a logger's word for it says less: the lines above it say what)
_FATAL = re.compile(
    r"(?m)Segmentation fault|core dumped|^\s*Killed\b|terminate called after throwing"
    r"|Fatal Python error|\bCheck failed:|Assertion `[^\n]{0,300}' failed\.|\bfatal error:"
    r"|\bpanicked at\b|killed due to memory pressure"
)
_WHAT = re.compile(r"\n\s{0,8}what\(\):\s+([^\n]{1,400})")  # a C++ exception's message
# A run that went on after an error logged this many records of its own (INFO, DEBUG; a
# progress bar's rows) below it: the error was not its end.
WENT_ON = 20
ROWS_AFTER = 2000  # rows read below it for them
_PROGRESS = re.compile(r"\d+it/s\]|\d+s/it\]|\|\s*\d+/\d+ \[")
# What a message asks of its reader: a request anywhere ("please ...", "try ...", "you should
# ..."), or a sentence after the first that opens with an action ("... not supported. Use
# bfloat16 instead."; the first sentence says what happened: "Run task for graph ... error"), to
# its sentence's end (a stop in "nn.Module" or a URL ends none).
_ADVICE = re.compile(
    r"(?i)(?:\b(?:please|try|consider|make sure|ensure|you (?:may|might|can|could|should|must"
    r"|need)|it is recommended|we recommend|suggest(?:ion)?)\b"
    r"|(?<=[.;!?]\s)(?:(?:re)?install|upgrade|downgrade|update|set|unset|export|use|run|pass"
    r"|add|remove|check|increase|decrease|reduce|lower|enable|disable|specify|switch|rebuild"
    r"|recompile)\b)(?:[^.;!?\n]|[.;!?](?=\S)){3,240}"
)
# a traceback's frame in an installed package: the package is the first folder below it
_PACKAGE = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_][\w.-]{0,80}?)(?:\.py)?[/\\\"]")
_FRAME = re.compile(r'File "([^"\n]{1,400})"')
SHOWN = 300  # characters of the failure's line told
TRIES = 4  # names tried in one line
MESSAGE_ROWS = 3  # rows below an exception's line read as its message's
_NOT_MESSAGE = ("File ", "Traceback", "During handling", "The above exception")
# a row that goes on with a message opens with a word, a quote or a bracket of its own; not with
# a program's name and a colon ("make: ***"), pytest's "E   ", a fence, a list's dash, a prefix
_MESSAGE_ROW = re.compile(r"""(?![\w.-]{1,40}: |E(?:\s|$))[\w'"({]""")
EXCEPTIONS_TAIL = 1 << 17  # characters of a text's end searched for its exceptions
LINES = 256  # lines of it read at most


@dataclass(frozen=True)
class Unexplained:
    """The line a run's text ended with that says what failed."""

    line: str  # from the exception's name on (a relay's prefix dropped), bounded
    first: int  # its line numbers in the text: the first and the last time it shows
    last: int
    count: int
    raiser: Optional[str]  # the installed package whose code raised it, where a frame shows
    advice: Optional[str]  # what its words ask of the reader


def advice(message: str) -> Optional[str]:
    """What ``message`` asks its reader to do, in its words: its first such sentence."""
    m = _ADVICE.search(message)
    return m.group().strip().rstrip(",:") if m else None


def _exceptions(tail: str) -> list[tuple[int, str, bool]]:
    """The last exception lines of ``tail`` (its last EXCEPTIONS_TAIL characters): (the line's
    offset, its words from the name on, whether it wraps a failure told above it). A line is
    one exception's: its first few names are tried, each read within WINDOW characters; at
    most LINES lines are (a flood of names, or a line of a megabyte of them, costs no more)."""
    floor = max(0, len(tail) - EXCEPTIONS_TAIL)
    found: list[tuple[int, str, bool]] = []
    line_start, tries, skip_to = -1, 0, -1
    for m in deque(_NAME_END.finditer(tail, floor), maxlen=LINES * TRIES):
        if m.start() < skip_to:
            continue
        bound = max(floor, m.start() - WINDOW)
        start = tail.rfind("\n", bound, m.start()) + 1 or bound
        end = tail.find("\n", m.end(), m.end() + WINDOW)
        end = min(len(tail), m.end() + WINDOW) if end < 0 else end
        line_start, tries = start, (tries + 1 if start == line_start else 1)
        if tries >= TRIES:
            skip_to = end
        name = _NAME.search(tail, max(start, m.end() - 121), m.end())
        if name is None or (name.start() > start and tail[name.start() - 1] not in _PREFIX_END):
            continue
        bare = name.group().rsplit(".", 1)[-1]
        if bare in _BARE:  # "Exit: 1" is no exception's; "Error: ..." and "Exception: ..." are
            continue
        line = tail[start:end]
        at = name.start() - start
        if below_error(line, at):  # a record INFO, DEBUG or WARNING marks: handled, logged
            continue
        above = tail[max(0, start - 4096) : start]
        gone_on = list(_GONE_ON.finditer(above))
        if gone_on and above.count(_TRACEBACK, gone_on[-1].end()) <= 1:
            continue
        words = line[at:].split("\r", 1)[0].strip()  # a record a carriage return ends
        if words.endswith("|") and " | " in words:  # a row of a table (a FAQ's, a report's)
            continue
        wraps = bare in _WRAPPERS or _POINTS_ABOVE.search(words) is not None
        found.append((start, words, wraps))
        skip_to = end
    return found


def _chosen(tail: str, found: list[tuple[int, str, bool]]) -> tuple[int, str]:
    """The exception that says what failed: the last one that wraps nothing, or, where it was
    raised while handling the one before it, that one; the last wrapper where all wrap."""
    told = [i for i, (_, _, wraps) in enumerate(found) if not wraps]
    if not told:
        return found[-1][:2]
    i = told[-1]
    while i > 0 and not found[i - 1][2] and _HANDLING in tail[found[i - 1][0] : found[i][0]]:
        i -= 1
    return found[i][:2]


def _rest(tail: str, at: int) -> str:
    """The rows below the exception's line at ``at`` that go on with its message (a message of
    several lines: vLLM's checks, a tuple's parts), up to MESSAGE_ROWS: to a blank row, a
    record of its own or a traceback's."""
    rows: list[str] = []
    start = tail.find("\n", at) + 1
    while 0 < start < len(tail) and len(rows) < MESSAGE_ROWS:
        end = tail.find("\n", start)
        end = len(tail) if end < 0 else end
        row = tail[start : min(end, start + WINDOW)].strip()
        if not _MESSAGE_ROW.match(row) or starts_record(row) or row.startswith(_NOT_MESSAGE):
            break
        rows.append(row)
        start = end + 1
    return " ".join(rows)


def _raiser(tail: str, at: int) -> Optional[str]:
    """The installed package of the innermost frame in one (past the standard library's and
    the program's own) of the traceback that ends at ``at``."""
    start = tail.rfind(_TRACEBACK, max(0, at - 65536), at)
    for path in reversed(_FRAME.findall(tail, max(start, 0), at) if start >= 0 else ()):
        package = _PACKAGE.search(path + '"')
        if package:
            return package.group(1)
    return None


def _fatal(tail: str) -> Optional[tuple[int, str]]:
    """The last record of ``tail`` that shows a process ended by a signal, a fatal error or a
    failed check: its offset and its words (a C++ exception's message, where it follows)."""
    found = deque(_FATAL.finditer(tail), maxlen=1)
    if not found:
        return None
    last = found[0]
    start = tail.rfind("\n", 0, last.start()) + 1
    end = tail.find("\n", last.end())
    end = len(tail) if end < 0 else end
    words = tail[start:end].strip()
    what = _WHAT.match(tail, end)
    return start, f"{words} {what.group(1).strip()}" if what else words


def _went_on(tail: str, at: int) -> bool:
    """Whether the run logged WENT_ON records of its own in the rows below the line at ``at``."""
    rows, start = 0, tail.find("\n", at) + 1
    for _ in range(ROWS_AFTER):
        if not 0 < start < len(tail):
            return False
        end = tail.find("\n", start)
        end = len(tail) if end < 0 else end
        row = tail[start : min(end, start + WINDOW)]
        if QUIET_LEVEL.match(row) or _PROGRESS.search(row):
            rows += 1
            if rows >= WENT_ON:
                return True
        start = end + 1
    return False


def last_failure(data: bytes, first_line: int = 1) -> Optional[Unexplained]:
    """The failure ``data`` (a text, its first line numbered ``first_line``, whose end shows a
    process that died: ``Scanner.died``) ends with; None where no line of its end says it."""
    tail = death_tail(data)
    offset = first_line + data.count(b"\n", 0, len(data) - min(len(data), len(tail)))
    text = tail.decode("utf-8", "replace")
    found = _exceptions(text)
    if found:
        at, words = _chosen(text, found)
        same = [start for start, other, _ in found if other == words]
        raiser = _raiser(text, at)
        words = f"{words} {_rest(text, at)}".strip()
    else:
        fatal = _fatal(text)
        if fatal is None:
            return None
        at, words = fatal
        same, raiser = [at], None
    if _went_on(text, at):
        return None
    line = words if len(words) <= SHOWN else words[: SHOWN - 3] + "..."
    number = offset + text.count("\n", 0, same[0])
    last = number + text.count("\n", same[0], same[-1])
    return Unexplained(line, number, last, len(same), raiser, advice(words[: EXCERPT * 4]))
