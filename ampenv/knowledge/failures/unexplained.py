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
    DEATH_TAIL,
    ERROR_MARK,
    EXCERPT,
    WINDOW,
    below_error,
    death_tail,
    quote,
    starts_record,
)

# An exception's line: its name (dotted, "torch.OutOfMemoryError", Ray's "RayTaskError(
# ValueError)") and its message, after the start of the line or a relay's prefix ("[rank0]: ",
# "(EngineCore pid=1) ERROR ... [core.py:1] ", "  | " of an exception group): the name begins
# after a space or a prefix's closing mark, never after a quote (source quoting the message).
_NAME_END = re.compile(
    # (a message may open on the row below: "RuntimeError:" alone, multiprocessing's)
    r"(?:Error|Exception|Exit|Interrupt|Failure|Fault|ExceptionGroup)"
    r"(?=(?:\([\w.]{1,80}\))?:(?: |\r?\n|\r?\Z))"
)
_NAME = re.compile(r"(?<![\w.'\"])[A-Za-z_][\w.]{0,120}$")
_PREFIX_END = " \t\r])|:>"
_CODE_BEFORE = re.compile(r"\b(?:except|raise|import|class|def|return) $")
_BARE = frozenset(("Exit", "Interrupt", "Failure", "Fault"))
# Names that wrap a failure told above them, and messages that point there.
_WRAPPERS = frozenset(
    (
        "ChildFailedError",
        "CalledProcessError",
        "EngineDeadError",
        "SystemExit",
        "RayTaskError",
        "ExceptionGroup",  # its sub-exceptions, printed below it, say what failed
        "BaseExceptionGroup",
    )
)
_POINTS_ABOVE = re.compile(
    r"(?i)\bsee (?:the )?(?:root cause|(?:error|stack ?trace|traceback|logs?) above|above)"
    r"|\broot cause above|\bfor (?:the )?root cause\b|\bsee stack trace\b|\bsee above\b"
)
_HANDLING = "During handling of the above exception"
_CLEAN_EXIT = re.compile(r"SystemExit: (?:0|None)?\s*$")  # an exit that reports success
_DIGITS = re.compile(r"\d+")  # what ranks' copies of one failure differ by (a device, a rank)
# What Python prints above a traceback it reports and goes on from (a __del__ at exit, a .pth
# file site.py could not run, an exit hook, a thread of its own)
_GONE_ON = re.compile(
    r"Exception ignored in|Error processing line \d+ of |Error in atexit\._run_exitfuncs"
    r"|Exception in thread "
)
_TRACEBACK = "Traceback (most recent call last)"
# The end of a process that raised nothing: a signal, a fatal error, a failed check (a
# launcher's, a scheduler's or a logger's word for it says less: the lines above it say what)
_FATAL = re.compile(
    r"(?m)Segmentation fault|core dumped|^[ \t]*Killed\b|terminate called after throwing"
    r"|Fatal Python error|\bCheck failed:|Assertion `[^\n]{0,300}' failed\b|\bfatal error:"
    # a signal handler's own report ("SIGABRT Signal (Abort Signal from abort) catched")
    r"|^[^\n]{0,80}?\bSIG(?:ABRT|SEGV|BUS|ILL|FPE)\b(?! ?=)"
    r"|\bpanicked at\b|killed due to memory pressure|\bzsh: (?:segmentation fault|killed|abort)"
    r"|\[\d{1,3}\]\s{1,8}\d{1,9}\s{1,4}(?:segmentation fault|killed|abort|bus error)\b"
)
_WHAT = re.compile(r"\n\s{0,8}what\(\):\s+([^\n]{1,400})")  # a C++ exception's message
# A run that went on after its last error logged this many records of its own below it (a
# progress bar's each redraw, a training step's line, a request served, an INFO record; not a
# traceback's rows, a warning, or a process ending: a launcher killing or reaping its children,
# a server shutting down), or pytest's summary of a session nothing failed in: the error was not
# its end. A launcher's report of a failed child ends a run, whatever follows.
WENT_ON = 10
ROWS_AFTER = 2000  # rows read back from a text's end
RECORDS_READ = 4000  # and records (a progress bar's redraws) in them
_PYTEST_PASSED = re.compile(
    r"^(?:=+ )?(?!.*\b(?:failed|errors?)\b)\d+ (?:passed|xfailed)\b.* in [\d.]+s"
)
_ENDING = re.compile(
    r"(?i)\bkill(?:ing|ed|s)?\b|\bterminat|\bshut(?:ting)? ?down\b|\bexit|\bsignal\b"
    r"|\bsig[a-z]{2,4}\b|\babort|\bleak|\bclean ?up\b|\bwarn"
)
_WORD = re.compile(r"[A-Za-z]{2}")
_RELAYED_ROW = re.compile(r"\[[^\]\n]{1,40}\]:|\([^)\n]{1,60}\) ")  # "[default0]:", "(pid=1) "
# a native backtrace's frame: gdb's "#3  0x00007f... in abort ()", a handler's "[#3] 0x1e7c0: f"
_NATIVE_FRAME = re.compile(r"\s*\[?#\d{1,4}\]?\s+(?:0x[0-9a-fA-F]{1,16}\b|[\w:~<>]{1,200}\s?\()")
_PROGRESS = re.compile(r"\d+it/s\]|\d+s/it\]|\|\s*\d+/\d+ \[")  # a progress bar's row
# What a message asks of its reader: a request anywhere ("please ...", "try ...", "you should
# ..."), or a sentence that opens with an action ("... not supported. Use bfloat16 instead.",
# "Install the accelerate package ..."), to its sentence's end (a stop in "nn.Module" or a URL
# ends none). Weaker verbs open a request only after the first sentence ("Run task for graph
# ... error" says what happened); a verb used as a noun ("Set of ranks") opens none.
_NOUN = r"(?!\s+(?:of|failed|error)\b)"
_ADVICE = re.compile(
    r"(?i)(?:\b(?:please(?!\s+note)|try|consider|make sure|ensure|it is recommended|we recommend"
    r"|suggest(?:ion)?|you (?:may|might|can|could|should|must|need)(?!')(?!\s+have\b))\b"
    r"|(?:^|(?<=[.;!?:]\s))(?:(?:re)?install|upgrade|downgrade|set|unset|export|use|pass|specify"
    r"|increase|reduce|lower|enable|disable|rebuild|recompile|check ?out)\b"
    + _NOUN
    + r"|(?<=[.;!?]\s)(?:update|remove|run|check|add|switch|decrease)\b"
    + _NOUN
    + r")(?:[^.;!?\n]|[.;!?](?=\S)){3,240}"
)
# a traceback's frame in an installed package: the package is the first folder below it
_PACKAGE = re.compile(r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_][\w.-]{0,80}?)(?:\.py)?[/\\\"]")
_FRAME = re.compile(r'File "([^"\n]{1,400})"')
_ROW = re.compile(r"[^\r\n]+")
_STDLIB = re.compile(r"[/\\]lib[/\\]python[\d.]*[/\\]|\\Lib\\(?!site-packages)")
SHOWN = 300  # characters of the failure's line told
TRIES = 4  # names tried in one line
MESSAGE_ROWS = 3  # rows below an exception's line read as its message's
_NOT_MESSAGE = ("File ", "Traceback", "During handling", "The above exception")
# a row that goes on with a message opens with a word, a quote or a bracket of its own; not with
# a program's name and a colon ("make: ***"), pytest's "E   ", a fence, a list's dash, a prefix
_MESSAGE_ROW = re.compile(r"""(?![\w.-]{1,40}: |E(?:\s|$))[\w'"({]""")
# nor a logger's record (glog's "E0601 10:00:00"), a shell's prompt, a progress bar, a crash
_NOT_ROW = re.compile(r"^[IWEF]\d{4} \d|[\w.-]+@[\w.-]+:\S*[#$] ")
EXCEPTIONS_TAIL = 1 << 17  # characters of a text's end searched for its exceptions
LINES = 256  # lines of it read at most


@dataclass(frozen=True)
class Unexplained:
    """The line a run's text ended with that says what failed."""

    line: str  # from the exception's name on (a relay's prefix dropped), bounded
    first: int  # its line numbers in the text: the first and the last time it shows
    last: int
    count: int
    more: bool  # the count is a floor: lines like it lie above the part of the text read
    raiser: Optional[str]  # the installed package whose code raised it, where a frame shows
    advice: Optional[str]  # what its words ask of the reader
    died: bool = True  # a process shows dying; else its program reported it last and stopped


def shown(words: str) -> str:
    """``words`` as a told line: no control character, at most SHOWN characters."""
    return quote(words, SHOWN)


def advice(message: str) -> Optional[str]:
    """What ``message`` asks its reader to do, in its words: its first such sentence."""
    m = _ADVICE.search(message)
    # (out of a JSON string: its closing quote and brace are no part of it)
    return quote(m.group(), SHOWN).strip().rstrip(",:\"'}").strip() if m else None


def _exceptions(tail: str) -> tuple[list[tuple[int, str, bool]], bool]:
    """The last exception lines of ``tail`` (its last EXCEPTIONS_TAIL characters): (the line's
    offset, its words from the name on, whether it wraps a failure told above it), and whether
    more lie above the part read. A line is one exception's: its first few names are tried,
    each read within WINDOW characters; at most LINES * TRIES names are (a flood of them, or a
    line of a megabyte of them, costs no more)."""
    floor = max(0, len(tail) - EXCEPTIONS_TAIL)
    names = deque(_NAME_END.finditer(tail, floor), maxlen=LINES * TRIES + 1)
    more = floor > 0 or len(names) > LINES * TRIES
    found: list[tuple[int, str, bool]] = []
    line_start, tries, skip_to = -1, 0, -1
    for m in list(names)[-LINES * TRIES :]:
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
        if _CODE_BEFORE.search(tail, max(start, name.start() - 12), name.start()):
            continue  # source: "except ImportError:", "raise ValueError: ..."
        line = tail[start:end]
        at = name.start() - start
        if below_error(line, at):  # a record INFO, DEBUG or WARNING marks: handled, logged
            continue
        above = tail[max(0, start - 4096) : start]
        gone_on = list(_GONE_ON.finditer(above))
        if gone_on and above.count(_TRACEBACK, gone_on[-1].end()) <= 1:
            continue
        words = line[at:].split("\r", 1)[0].strip()  # a record a carriage return ends
        if bare == "SystemExit" and _CLEAN_EXIT.match(words):
            continue
        if words.endswith("|") and " | " in words:  # a row of a table (a FAQ's, a report's)
            continue
        wraps = bare in _WRAPPERS or _POINTS_ABOVE.search(words) is not None
        found.append((start, words, wraps))
        skip_to = end
    return found, more


def _chosen(tail: str, found: list[tuple[int, str, bool]]) -> tuple[int, str, str]:
    """The exception that says what failed (its offset, its words, the words it was raised
    while handling): the last one that wraps nothing (a library's own "raise ValueError(
    <what to do>)" in an except block says more than the KeyError it caught, a cleanup's error
    less: both are told), the last wrapper where all wrap."""
    told = [i for i, (_, _, wraps) in enumerate(found) if not wraps]
    i = told[-1] if told else len(found) - 1
    at, words, _ = found[i]
    handled = ""
    if i > 0 and not found[i - 1][2] and _HANDLING in tail[found[i - 1][0] : at]:
        handled = found[i - 1][1]
    return at, words, handled


def _message_row(row: str) -> bool:
    """Whether ``row`` (below an exception's line) goes on with its message."""
    return (
        _MESSAGE_ROW.match(row) is not None
        and not starts_record(row)
        and not row.startswith(_NOT_MESSAGE)
        and _NOT_ROW.search(row) is None
        and _FATAL.search(row) is None
        and _PROGRESS.search(row) is None
    )


def _rest(tail: str, at: int, prefix: str = "") -> str:
    """The rows below the exception's line at ``at`` that go on with its message (a message of
    several lines: vLLM's checks, a tuple's parts, transformers' paragraphs), up to
    MESSAGE_ROWS: to a second blank row, a record of its own, a traceback's, or another
    program's (a prompt, a crash, a bar). A relay's ``prefix`` before the exception's name
    ("[default0]:") stands before each of its rows too."""
    rows: list[str] = []
    start, blank = tail.find("\n", at) + 1, False
    while 0 < start < len(tail) and len(rows) < MESSAGE_ROWS:
        end = tail.find("\n", start)
        end = len(tail) if end < 0 else end
        row = tail[start : min(end, start + WINDOW)]
        start = end + 1
        if prefix:
            if not row.startswith(prefix):
                break
            row = row[len(prefix) :]
        if not row.strip() and not blank:  # one blank row between a message's paragraphs
            blank = True
            continue
        if "\r" in row.rstrip("\r") or not _message_row(row.strip()):
            break
        rows.append(row.strip())
    return " ".join(rows)


def _stdlib(path: str) -> bool:
    """Whether ``path`` is Python's own library (POSIX: lib/python3.x/; Windows: Lib\\)."""
    return path.startswith("<") or _STDLIB.search(path) is not None


def _raiser(tail: str, at: int) -> Optional[str]:
    """The installed package whose code raised the error at ``at``: its traceback's innermost
    frame, past the standard library's; none where that frame is the program's own code."""
    start = tail.rfind(_TRACEBACK, max(0, at - 65536), at)
    for path in reversed(_FRAME.findall(tail, max(start, 0), at) if start >= 0 else ()):
        package = _PACKAGE.search(path + '"')
        if package:
            return package.group(1)
        if not _stdlib(path):
            return None
    return None


ABOVE_ROWS = 4  # rows read above a fatal record for the error its program reported first


def _errors_above(tail: str, at: int) -> Optional[str]:
    """The first of the error records right above the fatal record at ``at`` (a program's own
    report of why it aborts: "[ERROR] ... max buffer number in same queue position is 4",
    "error happened!", then the abort): the top of their block, ABOVE_ROWS rows at most."""
    top, end = None, at
    for _ in range(ABOVE_ROWS):
        if end <= 0:
            break
        start = tail.rfind("\n", 0, end - 1) + 1
        row = tail[start:end].strip()[:WINDOW]
        end = start
        mark = ERROR_MARK.search(row)
        if mark is None or below_error(row, mark.start()) or _FATAL.search(row):
            break
        top = row
    return top


def _fatal(tail: str) -> Optional[tuple[int, str]]:
    """The last record of ``tail`` that shows a process ended by a signal, a fatal error or a
    failed check: its offset and its words (a C++ exception's message, where it follows; the
    error its program reported right above it, first)."""
    found = deque(_FATAL.finditer(tail), maxlen=1)
    if not found:
        return None
    last = found[0]
    start = tail.rfind("\n", 0, last.start()) + 1
    end = tail.find("\n", last.end())
    end = len(tail) if end < 0 else end
    if _PROGRESS.search(tail, start, last.start()):  # a bar's row the crash was written on
        start = last.start()
    words = tail[start:end].strip()
    if last.group().startswith("Assertion `"):  # the condition first, then where (a long
        # C++ signature before it would push it past what is told)
        where = tail[start : last.start()].strip().rstrip(":").strip()
        words = f"{tail[last.start() : end].strip()} ({where})" if where else words
    what = _WHAT.match(tail, end)
    words = f"{words} {what.group(1).strip()}" if what else words
    above = _errors_above(tail, start)
    return start, f"{above} (then: {words})" if above else words


# An exception raised without a message: its name alone on the row below its last frame's
# source (a bare `assert` fails as "AssertionError" and nothing more). Each row may carry a
# relay's prefix, the same on every row: a rank's ("[rank1]: ") or a worker's ("(pid=1) "),
# an exception group's ("    | "), or both.
_BARE_RAISED = re.compile(
    r"^(?P<relay>(?:\[[^\]\n]{1,40}\]: ?|\([^)\n]{1,60}\) )?(?:[ \t]{0,40}\| )?)"
    r'(?P<indent>[ \t]*)File "(?P<file>[^"\n]{1,400})", line (?P<line>\d{1,7})[^\n]{0,200}\n'
    # its source, indented below it (a frame without source, a .pyc's, has none); Python 3.13
    # prints each row of a statement that spans several (and "...<2 lines>..." for those it
    # leaves out), 3.11 carets under the call that raised
    r"(?P<source>(?:(?P=relay)(?P=indent)[ \t]+(?!File )\S[^\n]{0,400}\n){1,24})"
    r"(?P=relay)[ \t]*(?P<name>[A-Za-z_][\w.]{0,120}(?:Error|Exception|Interrupt))[ \t]*\r?$",
    re.M,
)
_CARETS = re.compile(r"[ \t]*[~^]+[ \t]*")


def _bare(tail: str) -> Optional[tuple[int, str]]:
    """The last exception of ``tail`` raised without a message: its offset, and its name told
    with the source that raised it (the condition a bare assert checked)."""
    found = deque(_BARE_RAISED.finditer(tail), maxlen=1)
    if not found:
        return None
    m = found[0]
    relay = len(m.group("relay"))
    rows = (row[relay:].strip() for row in m.group("source").splitlines())
    source = " ".join(row for row in rows if not _CARETS.fullmatch(row))
    where = f"{m.group('file')}, line {m.group('line')}"
    return m.start("name"), f"{m.group('name')} at `{source}` ({where})"


def _cut(tail: str) -> Optional[tuple[int, str]]:
    """A traceback below every exception line, cut before its own (the job killed while it
    printed): its offset and its last frame, told for it."""
    at = tail.rfind(_TRACEBACK)
    if at < 0:
        return None
    start = tail.rfind("\n", 0, at) + 1
    # its error is the first row below it, not a frame's, no deeper than its frames (whatever
    # the error's name; a paste may indent them all)
    deepest = None
    for m in _ROW.finditer(tail, tail.find("\n", at) + 1 or len(tail)):
        row = m.group()
        depth = len(row) - len(row.lstrip())
        if row.lstrip().startswith("File "):
            deepest = depth if deepest is None else deepest
        elif row.strip() and (deepest is None or depth <= deepest):
            return None
    if deepest is None:  # no frame on a row of its own: a paste that joined it all in one line
        return None
    frames = re.findall(r'File "[^"\n]{1,400}", line \d{1,7}, in [^\n]{1,200}', tail[at:])
    frame = f": its last frame {frames[-1]}" if frames else ""
    return start, f"a traceback cut before its error{frame}"


def _row_ends(tail: str, at: int) -> bool:
    """Whether ``tail``'s rows, read back from its end to the line at ``at``, show a run that
    went on after its last error (see WENT_ON)."""
    records, read, end = 0, 0, len(tail)
    for _ in range(ROWS_AFTER):
        start = tail.rfind("\n", 0, max(0, end - 1)) + 1
        if start <= at:
            break
        row = tail[start:end][:WINDOW]
        end = start
        if _PYTEST_PASSED.match(row.strip()):
            return True
        for record in reversed(row.split("\r")[-RECORDS_READ:]):
            read += 1
            if read > RECORDS_READ:  # a flood of redraws: what was read decides
                return records >= WENT_ON
            if ERROR_MARK.search(record) or _FATAL.search(record):
                return records >= WENT_ON
            relayed = _RELAYED_ROW.match(record)  # a rank's prefix: its row's indent is past it
            body = record[relayed.end() :] if relayed else record
            if (
                _WORD.search(record)
                and not body.startswith("    ")
                and not record.lstrip().startswith(("File ", _TRACEBACK))
                and _NATIVE_FRAME.match(body) is None
                and _ENDING.search(record) is None
            ):
                records += 1
        if records >= WENT_ON:
            return True
    return records >= WENT_ON


def _went_on(tail: str, at: int, wrapper: bool) -> bool:
    """Whether the run went on after its last error (``wrapper``: that error is a launcher's
    report of a failed child, which ends a run)."""
    return not wrapper and _row_ends(tail, at)


def last_failure(data: bytes, first_line: int = 1) -> Optional[Unexplained]:
    """The failure ``data`` (a text, its first line numbered ``first_line``, whose end shows a
    process that died: ``Scanner.died``) ends with; None where no line of its end says it, or
    the run went on after it."""
    tail = death_tail(data)
    # (lines before the part read: counted in the bytes, which colours removed do not change)
    offset = first_line + data.count(b"\n", 0, max(0, len(data) - DEATH_TAIL))
    text = tail.decode("utf-8", "replace")
    found, more = _exceptions(text)
    cut = _cut(text)
    bare = _bare(text)
    if bare is not None and found and found[-1][0] > bare[0]:
        bare = None  # an exception with words came after it
    fatal = _fatal(text)
    latest = max([cut[0] if cut else -1, bare[0] if bare else -1, *(f[0] for f in found[-1:])])
    crash = _FATAL.search(text, latest + 1) if fatal is not None and latest >= 0 else None
    if crash is not None and _row_ends(text[: text.rfind("\n", 0, crash.start()) + 1], latest):
        # the run went on after its last exception, then crashed (a segfault): the crash ended
        # it (right after the exception, "Aborted" is the exception's own end)
        cut = bare = None
        found = []
    raiser: Optional[str] = None
    asks: Optional[str] = None
    wrapper = False  # the last error is a launcher's report of a failed child: a run's end
    if cut is not None:
        (at, words), same, more, last_error = cut, [cut[0]], False, cut[0]
        raiser = _raiser(text, len(text))
    elif bare is not None:
        (at, words), same, last_error = bare, [bare[0]], bare[0]
        raiser = _raiser(text, at)
    elif found:
        at, words, handled = _chosen(text, found)
        like = _DIGITS.sub("#", words)
        same = [start for start, other, _ in found if _DIGITS.sub("#", other) == like]
        raiser = _raiser(text, at)
        message = words.split(": ", 1)[-1]
        named = text.find(words, at)  # where the name stands on its line, past a relay's prefix
        prefix = text[at:named].strip() if named >= 0 else ""
        rest = _rest(text, at, prefix)
        words = f"{words} {rest}".strip()
        asks = advice(f"{message} {rest}"[: EXCERPT * 4])
        if handled:  # told within the line's bound, the error's own words first
            while_ = f" (raised while handling {handled[:100]})"
            room = SHOWN - len(while_)
            words = (words if len(words) <= room else words[: room - 3] + "...") + while_
        last_error, wrapper = found[-1][0], found[-1][2]
    else:
        if fatal is None:
            return None
        at, words = fatal
        same, more, last_error = [at], False, at
        asks = advice(words[: EXCERPT * 4])
    if _went_on(text, max(last_error, at), wrapper):
        return None
    line = shown(words)
    number = offset + text.count("\n", 0, same[0])
    last = number + text.count("\n", same[0], same[-1])
    return Unexplained(line, number, last, len(same), more, raiser, asks)
