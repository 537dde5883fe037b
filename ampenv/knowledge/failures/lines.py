"""How one line of a log reads: whether its logger marked it as no error, what the program
printed before a JSON string, a page or a typist changed it, the lines of a screen's
hard-wrapped copy, and the bounded pieces of a long line that the scan keeps."""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Optional
from unicodedata import east_asian_width

# What a relay writes before each line it passes on, nested a few deep: a quote's "> " (an
# issue, a mail), a host or rank name (srun -l's "3: ", pdsh's and DeepSpeed's "node-1: "),
# mpirun's "[1,0]<stderr>:", docker compose's "svc-1  | ", a container runtime's CRI record
# ("<RFC 3339 time> stderr F "), syslog's and journald's "[<PRI>]Dec  5 02:13:20 [host]
# prog[pid]: " (or an RFC 3339 time), a listing's line number ("cat -n"). A name is never an
# exception's ("RuntimeError: "), a code's ("EE9999: ") or a level ("ERROR    | " is loguru's
# level column; "error-1  | " is a service). (Bounded runs, no leading space run: unbounded
# ones backtracked through a line of 16K quote marks at every level check.)
_NOT_ERROR = (
    r"(?![\w.-]{0,64}(?:ERROR|Error|Exception|Warning|WARN|FATAL|CRITICAL)\b"
    r"|(?i:error|warn(?:ing)?|fatal|critical)(?![\w-])|E[0-9A-Z]\d{4}\b|ERR\d{5}\b)"
)
_QUOTES = r"(?:>[ \t]?){0,8}"
_TIME = (
    r"(?:[A-Z][a-z]{2}\s[\s\d]\d\s\d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT[\d:.]{8,20}(?:Z|[+-]\d\d:?\d\d))"
)
RELAY = (
    rf"{_QUOTES}(?:(?:{_NOT_ERROR}[\w.-]{{1,64}}(?::\s|\s+\|\s)"
    r"|\[\d{1,5},\d{1,5}\]<std(?:out|err)>:"
    rf"|{_TIME}\s(?:stdout|stderr)\s[FP]\s"
    rf"|(?:<\d{{1,3}}>)?{_TIME}\s(?:[\w.-]{{1,64}}\s)?[\w./@-]{{1,64}}(?:\[\d{{1,10}}\])?:\s"
    rf"| {{0,8}}\d{{1,7}}[\t ]){_QUOTES}){{0,3}}"
)


# A line a logger marked with a level, at its start, after a process or rank prefix ("[INFO]
# GE(...)", "(Worker pid=1) INFO 12-23 ...", "[rank0]: DEBUG ..."), or a JSON record's own
# "level". INFO/DEBUG make a code on the line a mention (WARNING is no such mark: warnings
# report codes), unless an error mark stands before the code ("INFO rank0: [ERROR] ...", a
# launcher's INFO line that relays a child's "RuntimeError: EZ1001").
def _level_grammar(upper: str, lower: str, glog: str, apt: str) -> re.Pattern[str]:
    return re.compile(
        RELAY +
        # a timestamp first ("2024-05-01 12:00:00,123 - INFO - ", loguru's "... | INFO | ",
        # Go's and mlflow's "2024/05/01 12:00:00 INFO ", a time of day alone)
        r"\s*(?:(?:(?:\d{4}[-/]\d\d[-/]\d\d|\d\d/\d\d/\d{4})[ T][\d:.,]{5,15}"
        r"|\d\d:\d\d:\d\d(?:[.,]\d{1,6})?)\S{0,6}\s*(?:[-|]\s*)?)?"
        # a logger's name ("- root - INFO - ", "- mindformers[trainer.py:100] - INFO - "), not
        # a level or an exception's name ("ERROR - [INFO] ..." is an error's line)
        r"(?:(?![\w.]{0,80}(?:ERROR|Error|Exception|FATAL|CRITICAL|WARN))[\w.\[\]:/-]{1,80}\s-\s)?"
        # a process, rank or thread prefix; MindIE writes four bracketed fields before its level
        r"(?:(?:\([^)\n]{0,80}\)|\[[^\]\n]{0,60}\]:?)\s*){0,5}"
        # the level: "[INFO]", "[ INFO ]", "[info]", "[INFO|trainer.py:1]", "(INFO)", "INFO ",
        # Python's default "INFO:root:", "INFO |", winston's "info: ", a tab-separated "info";
        # glog's "I0501 " (or with its year), tornado's "[I 2025-01-01 ..."; logfmt's
        # "level=info" after a few fields; apt's "N: " (a notice) and "W: "
        rf"(?:\[ ?(?i:{lower}) ?[\]|]|\((?i:{lower})\)\s|(?:{upper})[\s:|]|(?:{lower})(?::\s|\t)"
        rf"|{apt}: (?=\S)"
        rf"|{glog}(?:\d{{4}}){{1,2}} \d\d:\d\d|\[{glog} \d{{4}}-\d\d-\d\d"
        r"|(?:[\w.]{1,32}=(?:\"[^\"\n]{0,64}\"|\S{0,64})\s+){0,4}level=\"?"
        rf"(?i:{lower})\b)"
    )


def _record_grammar(lower: str, pino: str) -> re.Pattern[str]:
    # a JSON record's level by name, or pino's by number: its first level key (a nested
    # record's "level" does not speak for the record)
    return re.compile(
        r"\s*\{(?:(?!\"(?:level|levelname|severity|lvl)\")[^\n]){0,4000}"
        rf"\"(?:level|levelname|severity|lvl)\"\s?:\s?(?:\"(?i:{lower})\"|{pino}(?![\d.]))"
    )


QUIET_LEVEL = _level_grammar(
    "INFO|DEBUG|EVENT|TRACE|NOTICE", "info|debug|event|trace|notice", "I", "N"
)
QUIET_RECORD = _record_grammar("info|debug|trace", "[123]0")  # pino: 10, 20, 30
WARN_LEVEL = _level_grammar("WARN(?:ING)?", "warn(?:ing)?", "W", "W")
WARN_RECORD = _record_grammar("warn(?:ing)?", "40")
# How pasted and relayed text differs from what the program printed: full-width and curly
# punctuation (a title typed in a Chinese input method, a blog's typography), HTML entities (a
# page's source), quotes and characters escaped by a JSON or repr string.
_PLAIN = {0x2018: "'", 0x2019: "'", 0x201C: '"', 0x201D: '"'}
# spaces of other code points, an escape's or an entity's (plain_spaces reads the bytes before)
_PLAIN.update({c: " " for c in (0xA0, 0x3000, *range(0x2000, 0x200B), 0x202F)})
_PLAIN.update({c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)})
_WIDE_SEPARATOR = re.compile(r"([\uff1a\uff0c])\s*")  # its width is its space: "：" reads ": "
# an entity of bounded length: html.unescape of "&#" and 5000 digits raises ValueError
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Terminal colour and cursor sequences (CSI), as loggers that colour their output write them.
# and the charset selections tput writes ("\x1b(B", "\x1b)0"), and the commands a program sends
# the terminal (OSC: a window's title, a hyperlink's ends), which a told line must not carry
ANSI = re.compile(
    rb"\x1b(?:\[[0-9;?<=>]{0,32}[A-Za-z]|[()][A-Z0-9]|\][^\x07\x1b\n]{0,512}(?:\x07|\x1b\\))"
)
# The spaces a page or a typist puts where the program printed " ": a page's &nbsp; (copied
# as U+00A0), an input method's ideographic space, the typographic ones (U+2000-U+200A, U+202F),
# and each escaped by a JSON string or a page's source, which the hints' byte search sees as such.
# (a replace each: 64 MiB of U+00A0 took 9 s in a regex; thin spaces 11 s in one)
_SPACES = (b"\xc2\xa0", b"\xe3\x80\x80")
_TYPOGRAPHIC = tuple(chr(c).encode() for c in (*range(0x2000, 0x200B), 0x202F))  # b"\xe2\x80.."
_ESCAPED_SPACE = re.compile(rb"\\u(?:00[aA]0|3000|200[0-9aA]|202[fF])")
_ENTITY_SPACE = re.compile(
    rb"&(?:#(?:0{0,8}(?:160|12288|819[2-9]|820[0-2]|8239)"
    rb"|[xX]0{0,8}(?:[aA]0|3000|200[0-9aA]|202[fF]))"
    rb"|nbsp|ensp|emsp|emsp1[34]|thinsp|hairsp|numsp|puncsp|NonBreakingSpace|(?:Very)?ThinSpace);"
)


def uncoloured(data: bytes) -> bytes:
    """``data`` without the colour sequences a logger wrote (``\x1b[31mEI0006``): as a
    terminal showed it."""
    return ANSI.sub(b"", data) if b"\x1b" in data else data


def plain_spaces(data: bytes) -> bytes:
    """``data`` with spaces of other code points as plain ones, escaped or not, which the hint
    words and messages, written with plain spaces, find."""
    if b"\\u" in data:
        for space in (b"\\u00a0", b"\\u3000"):  # (the common ones: a replace is 2x a regex)
            data = data.replace(space, b" ")
        if b"\\u20" in data or b"\\u00A0" in data:
            data = _ESCAPED_SPACE.sub(b" ", data)
    if b"&" in data:
        data = data.replace(b"&nbsp;", b" ")
        if b"&#" in data or b"sp;" in data or b"Space;" in data:
            data = _ENTITY_SPACE.sub(b" ", data)
    if data.isascii():  # (first: byte searches of every piece cost a tenth of the scan)
        return data
    for space in _SPACES + _TYPOGRAPHIC if b"\xe2\x80" in data else _SPACES:
        if space in data:
            data = data.replace(space, b" ")
    return data


# an escaped backslash is one (JSON's "C:\\\\temp" is C:\\temp, no tab); \t: a traceback's indent
_ESCAPED = re.compile(r"\\(?:(['\"/t\\])|u([0-9a-fA-F]{4}))")
# (an identifier or a file name is no mark: GE's "[INFO] ... [error_manager.cc:512]
# ParseJsonFile:add error_code EI0002 success" lists the codes it knows)
ERROR_MARK = re.compile(
    r"\berrors?(?!\w|\.\w)|\bfail|Error\b(?!\.\w)|Exception\b|\bTraceback\b|\bfatal\b|\bcritical\b",
    re.IGNORECASE,
)
WINDOW = 8192  # bytes of a long line kept either side of a hint
EXCERPT = 200
MIN_WRAP = 60  # the narrowest screen that wraps, and the most rows of one line
MAX_ROWS = 32
# what a terminal acts on in a log's words: C0 controls (BEL, BS, ESC: an OSC title or link the
# colours' stripping left, an escape a JSON string held), DEL and C1 controls
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANSI_TEXT = re.compile(ANSI.pattern.decode())  # (the colours a JSON string's escapes held)
# the end of a JSON record's string inside a line: an escaped break closing it (Docker's
# json-file: {"log":"...\\n","stream":...}), a key after it, the record's closing brace
_STRING_END = re.compile(r'(?:\\[nrt])+"|"\s*,\s*"[\w.@-]{1,40}"\s*:|"\s*\}\s*$')


def quote(words: str, limit: int) -> str:
    """A log's ``words`` as a finding quotes them: out of the JSON record's string they stand
    in, no control character, at most ``limit`` characters (cut with "...")."""
    end = _STRING_END.search(words)
    # (not where an object opens before it: the words are a record or hold one, not its string)
    words = words[: end.start()] if end and "{" not in words[: end.start()] else words
    words = _CONTROL.sub("", _ANSI_TEXT.sub("", words).replace("\t", " ")).strip()
    return words if len(words) <= limit else words[: limit - 3] + "..."


def line_at(data: bytes, at: int) -> tuple[int, int]:
    """The start and end of the line (LF-ended) holding offset ``at``."""
    start = data.rfind(b"\n", 0, at) + 1
    end = data.find(b"\n", at)
    return start, len(data) if end < 0 else end


# CANN's advice under an E-code, which a copy (or CANN 8.5's titled form) leaves unindented:
# the label, one space, its text (kubectl's "Reason:       Evicted" pads its fields).
_ADVICE = re.compile(rb"(?:Possible Cause|Reason|Solution): \S")


def continued(data: bytes, end: int, lines: int) -> str:
    """Up to ``lines`` indented lines (or lines of CANN's advice) after the line that ends at
    ``end``, each bounded, with their line breaks: a message printed over several lines."""
    out = []
    while len(out) < lines and (
        data[end + 1 : end + 2] in (b" ", b"\t") or _ADVICE.match(data, end + 1) is not None
    ):
        nxt = data.find(b"\n", end + 1)
        nxt = len(data) if nxt < 0 else nxt
        part = data[end + 1 : min(nxt, end + 1 + WINDOW)].rstrip(b"\r")
        out.append(part.decode("utf-8", "replace"))
        end = nxt
    return "".join("\n" + line for line in out)


_FRAME_FILE = re.compile(r'File "([^"\n]{1,400})", line \d')
_RANK_PREFIX = re.compile(r"\s*(?:\[[^\]\n]{1,40}\]:|\([^)\n]{1,60}\))")


def last_frame(rows: Iterable[str], prefix: str = "") -> str:
    """The file of the Python traceback's last frame in ``rows`` (the lines above an error,
    nearest first), past the code and caret lines printed under it and importlib's own frames,
    as '\\nFile "PATH"'; "" where the rows just above are no traceback's. A row without the
    error's rank or process ``prefix`` is another process's, interleaved."""
    others = 0
    for row in islice(rows, 8):
        found = _FRAME_FILE.search(row) if row.startswith(prefix) else None
        if found is None:
            others += 1
            if others > 2:  # more than a code line and its carets: not a traceback's
                break
        elif found.group(1).startswith("<frozen") or "/importlib/" in found.group(1):
            others = 0  # the import machinery's frames: the importer is above them
        else:
            return f'\nFile "{found.group(1)}"'
    return ""


def frame_in_line(line: str, at: int) -> str:
    """The last frame (``last_frame``) before offset ``at`` of ``line`` whose breaks are escaped
    or carriage returns (a JSON record, a repr, a CR-ended file)."""
    return last_frame(reversed(_RECORD_BREAK.split(line[:at])[:-1]))


def frame_above(data: bytes, start: int) -> str:
    """The last frame (``last_frame``) in the lines above the line that starts at ``start``,
    each read within a window's bytes back, as the program printed it (``plain``)."""
    if data.rfind(b"File ", max(0, start - 8 * 512), start) < 0:  # no frame near: no reading
        return ""
    rank = _RANK_PREFIX.match(data[start : start + 128].decode("utf-8", "replace"))

    def rows(start: int) -> Iterator[str]:
        while start > 0:
            lo = max(0, start - 1 - WINDOW)
            prev = data.rfind(b"\n", lo, start - 1) + 1
            yield plain(data[max(prev, lo) : start - 1].decode("utf-8", "replace"))
            if prev == 0 and lo > 0:  # a line longer than the window: read at its end only
                return
            start = prev

    return last_frame(rows(start), rank.group() if rank else "")


def said(word: str, line: str) -> bool:
    """Whether ``word`` stands on ``line`` as a word of its own, not inside an identifier or a
    file name (GE's "error_code" and "error_manager.cc" on an INFO line say no error)."""
    return re.search(rf"(?<!\w){re.escape(word)}(?!_|\.\w)", line, re.IGNORECASE) is not None


# Where the record holding a code starts, in a line that holds several (a launcher's repr of a
# whole log, its breaks escaped), and what stands before a record's message: a JSON logger's
# keys ('{"ts": 1, "msg": "[INFO] ...'), a repr's quote.
_RECORD_BREAK = re.compile(r"\r|\\r\\n|\\n")
_MESSAGE_START = re.compile(r"""\s*(?:\{[^\n]{0,400}?"(?:msg|message|log)"\s?:\s?"|[bu]?['"])""")
_LEVEL_KEY = re.compile(r'"(?:level|levelname|severity)"\s?:')  # a record's own level decides
# A row that begins a record of its own: its level, a timestamp, an E-code, an exception's name.
# (after prefixes of ranks, hosts, processes: "[rank3]: EE8888: ...", "node-17: EE1001: ...",
# "(EngineCore_DP0 pid=123) EE1001", "10.0.0.5: [rank0]:", mpirun's "[1,0]<stderr>:")
_RECORD_START = re.compile(
    r"\s*(?:(?:\[[^\]\n]{0,80}\]|\([^)\n]{0,80}\)|<\w{1,10}>):?\s*|[\w.-]{1,40}:\s"
    r"|[\w.-]{1,40} \| ){0,4}"
    r"(?:\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|EVENT|TRACE|FATAL|CRITICAL)\b|E[0-9A-Z]\d{4}\b"
    r"|ERR\d{5}\b|\d{4}[-/]\d\d[-/]\d\d|\d\d/\d\d/\d{4}|\[PID|Traceback\b"
    r"|[\w.]{0,80}(?:Error|Exception)\b)"
)


def starts_record(row: str) -> bool:
    """Whether ``row`` begins a record of its own rather than continuing the row above."""
    return _RECORD_START.match(row) is not None or QUIET_LEVEL.match(row) is not None


def _record_start(line: str, at: int) -> int:
    """Where the record of ``line`` that holds offset ``at`` begins: after the last escaped
    break before it, or at the line's start."""
    start = 0
    for m in _RECORD_BREAK.finditer(line, 0, at):
        start = m.end()
    return start


def record(line: str, at: int) -> str:
    """The record of ``line`` that holds offset ``at``: the line, or the piece of it between
    two escaped breaks."""
    end = _RECORD_BREAK.search(line, at)
    return line[_record_start(line, at) : end.start() if end else len(line)]


def _level_end(
    line: str, code_at: int, level: re.Pattern[str], leveled: re.Pattern[str]
) -> Optional[int]:
    """Where the level mark of the record holding ``code_at`` ends, if ``level`` (or, for a JSON
    record, ``leveled``) marks it; for a JSON record its start (its level may come last)."""
    start = _record_start(line, code_at)
    mark = level.match(line, start)
    if (
        mark is None
        and (message := _MESSAGE_START.match(line, start)) is not None
        and not ("{" in message.group() and _LEVEL_KEY.search(line, start))
    ):
        mark = level.match(line, message.end())
    if mark is not None:
        return mark.end()
    return start if leveled.match(line, start) is not None else None


def quiet(line: str, code_at: int, before: str = "") -> bool:
    """Whether a logger marked the record of ``line`` that holds ``code_at`` as no error, its
    code (or message) there a mention: an error mark between the level and the code (in a
    JSON record: anywhere before the code, its level may come last) says otherwise.
    ``before``: the rows of the same line a terminal wrapped above this one."""
    if before:
        line, code_at = before + line, code_at + len(before)
    end = _level_end(line, code_at, QUIET_LEVEL, QUIET_RECORD)
    return end is not None and not ERROR_MARK.search(line, end, code_at)


def below_error(line: str, at: int) -> bool:
    """Whether the record of ``line`` holding ``at`` is marked INFO, DEBUG or WARNING, whatever
    it says after the mark: a failure its program handled and logged to carry on."""
    return any(
        _level_end(line, at, level, leveled) is not None
        for level, leveled in ((QUIET_LEVEL, QUIET_RECORD), (WARN_LEVEL, WARN_RECORD))
    )


def in_error_record(m: re.Match[str]) -> bool:
    """An entry's judge: its match stands in a record no INFO, DEBUG or WARNING mark makes a
    failure its program handled (a probe the runtime logs and carries on after, a warning)."""
    return not below_error(m.string, m.start())


def _unescaped(m: re.Match[str]) -> str:
    if m.group(1):
        return "\t" if m.group(1) == "t" else m.group(1)
    point = int(m.group(2), 16)
    return m.group(0) if 0xD800 <= point <= 0xDFFF else chr(point)  # a surrogate stays escaped


def plain(line: str) -> str:
    """``line`` as the program printed it, before a JSON string, a page or a typist changed
    its punctuation."""
    if "\\" in line:
        line = _ESCAPED.sub(_unescaped, line)
    if "&" in line and ";" in line:
        line = _ENTITY.sub(lambda m: html.unescape(m.group(0)), line)
    if not line.isascii():
        line = _WIDE_SEPARATOR.sub(r"\1 ", line).translate(_PLAIN)
    return line


def screen_lines(data: bytes) -> Iterator[tuple[int, int, list[bytes]]]:
    """The lines of a terminal's hard-wrapped copy in ``data``: each as the index of its first
    row, the offset where its last row ends, and its rows. What a person copied off a screen
    is cut at the screen's width: no line is longer, at least two different lines reach it,
    and a few rows at that width end in a shorter one (rows that never do are a table's)."""
    if b"\n" not in data:
        return
    lines = [line.rstrip(b"\r") for line in data.split(b"\n")]
    columns = [len(line) if line.isascii() else _columns(line) for line in lines]
    width = max(columns)
    if width < MIN_WRAP or len({x for x, n in zip(lines[:-1], columns) if n == width}) < 2:
        return
    run, end = 0, -1  # the rows at the width before this line; where this line ends
    for i, line in enumerate(lines):
        end = data.find(b"\n", end + 1)
        if columns[i] == width:
            run += 1
            continue
        if 0 < run <= MAX_ROWS and line.strip():
            yield i - run, len(data) if end < 0 else end, lines[i - run : i + 1]
        run = 0


def screen_lines_of(shown: bytes, data: bytes) -> list[tuple[int, int, list[bytes]]]:
    """``screen_lines`` of ``shown``, the text as the terminal showed it (an ideographic space
    two columns wide), with each line's end and rows in ``data``, the same lines with plain
    spaces (``plain_spaces``); and the ``message_lines`` of ``data`` off the screen's."""
    found = list(screen_lines(shown))
    if shown is not data and found:
        ends = [m.start() for m in re.finditer(rb"\n", data)]
        found = [
            (index, ends[last] if last < len(ends) else len(data), [plain_spaces(r) for r in rows])
            for index, _, rows in found
            for last in (index + len(rows) - 1,)
        ]
    on_screen = {index + n for index, _, rows in found for n in range(len(rows))}
    return found + [
        line
        for line in message_lines(data)
        if on_screen.isdisjoint(range(line[0], line[0] + len(line[2])))
    ]


# An exception's message wrapped by hand (an issue's paste, a commit message's 72 columns): a
# row flush left that opens with a word, a quote or a bracket and begins no record of its own
# continues the row above while that row was long and ended no sentence. (Python indents the
# rows of a message it prints over lines: a state_dict's missing keys.) A relay's prefix (a
# quote's "> ", srun's "3: ") stands before each row.
_RELAYED = re.compile(RELAY.encode())
_MESSAGE_HEAD = re.compile(
    # (a full-width colon: an input method's, typed into a title)
    rb"^" + RELAY.encode() + rb"(?:\[[^\]\n]{0,40}\]:? ?)?[\w.]{0,80}(?:Error|Exception)"
    rb"(?:: |\xef\xbc\x9a) ?\S",
    re.MULTILINE,
)
_GOES_ON = re.compile(r"[\w'\"(\[/]")
PROSE_WRAP = 40  # a row narrower than this (in columns) was not wrapped
PROSE_ROWS = 4
# the messages read so in one text: a person wraps a few; a flood of made-up ones stays bounded
PROSE_LINES = 256


def message_lines(data: bytes) -> Iterator[tuple[int, int, list[bytes]]]:
    """The exception messages wrapped by hand in ``data``, the last PROSE_LINES of them (a job
    fails at its log's end), as ``screen_lines`` gives a screen's lines: the first row whole,
    the rows after it without their relay's prefix, each row but the last with the space its
    wrap took."""
    found: deque[tuple[int, int, list[bytes]]] = deque(maxlen=PROSE_LINES)
    index, counted = 0, 0
    for m in _MESSAGE_HEAD.finditer(data):
        index += data.count(b"\n", counted, m.start())
        counted = m.start()
        end = _row_end(data, m.start())
        head = data[m.start() : end].rstrip(b"\r")
        relay = _RELAYED.match(head)
        prefix = relay.group() if relay else b""
        rows, said = [head], head[len(prefix) :]
        while end < len(data) and len(rows) < PROSE_ROWS:
            below = _behind(prefix, data[end + 1 : _row_end(data, end + 1)].rstrip(b"\r"))
            if below is None or not _goes_on(said, below):
                break
            rows.append(below)
            said, end = below, _row_end(data, end + 1)
        if len(rows) > 1:
            found.append((index, end, [row + b" " for row in rows[:-1]] + rows[-1:]))
    yield from found


def _row_end(data: bytes, start: int) -> int:
    end = data.find(b"\n", start)
    return len(data) if end < 0 else end


# cat -n's prefix: its number changes from row to row
_LINE_NUMBER = re.compile(rb" {0,8}\d{1,7}[\t ]")


def _behind(prefix: bytes, row: bytes) -> Optional[bytes]:
    """``row`` without the relay's ``prefix`` its message's first row had (a row under a
    head without one is read whole); None where another relay's prefix stands (rank 5's row
    under rank 3's head)."""
    if not prefix:
        return row
    if row.startswith(prefix):
        return row[len(prefix) :]
    numbered = _LINE_NUMBER.fullmatch(prefix) and _LINE_NUMBER.match(row)
    return row[numbered.end() :] if numbered else None


def _goes_on(row: bytes, below: bytes) -> bool:
    said = row.decode("utf-8", "replace").rstrip()
    shown = below.decode("utf-8", "replace")
    return (
        (len(said) if said.isascii() else _columns(row.rstrip())) >= PROSE_WRAP
        and said[-1] not in ".!?:\u3002\uff01\uff1f\uff1a"
        and _GOES_ON.match(shown) is not None
        and not starts_record(shown)
    )


def _columns(line: bytes) -> int:
    """The screen columns ``line`` fills: a wide (CJK) character takes two."""
    return sum(2 if east_asian_width(c) in "WF" else 1 for c in line.decode("utf-8", "replace"))


def window(data: bytes, start: int, end: int, at: int) -> bytes:
    """The bytes of the line ``start``..``end`` within WINDOW of ``at``; cut inside a long line
    at a word's edge, so no pattern reads half a word (``0x7E12345`` as E12345)."""
    lo, hi = max(start, at - WINDOW), min(end, at + WINDOW)
    if lo > start:
        lo = next((i + 1 for i in range(lo, min(hi, lo + 256)) if not _word(data[i])), lo)
    if hi < end:
        hi = next((i for i in range(hi, max(lo, hi - 256), -1) if not _word(data[i])), hi)
    return data[lo:hi]


def _word(byte: int) -> bool:
    return chr(byte).isalnum() or byte == 95  # "_"


def trim(line: str, start: int, end: int) -> str:
    line = line.strip()
    if len(line) <= EXCERPT:
        return line
    at = max(0, min(start, len(line)) - EXCERPT // 3)
    return line[at : at + EXCERPT]


# A line break inside one line: a CR (a progress bar rewrites its line, the error printed after
# it is a line of its own) or an escaped one (a JSON log's message, an exception's repr, a
# launcher relaying a traceback as one string).
BREAK = re.compile(rb"\r|\\r\\n|\\n")


def record_parts(
    window: bytes, keep: Callable[[bytes], bool], frame: Optional[str]
) -> list[tuple[bytes, str]]:
    """The parts of ``window`` between its BREAKs that ``keep`` keeps, each with the frame it is
    read with (``frame``: the line's; None: no frame is read): a traceback's in the parts just
    before it, where a repr or a JSON record carries one, before the line's. Linear: each part
    looks back a few parts only."""
    parts = BREAK.split(window)
    traced = frame is not None and b"File " in window  # no frame to look for: none looked for

    def above(i: int) -> str:
        if not traced:
            return frame or ""
        rows = (plain(p.decode("utf-8", "replace")) for p in reversed(parts[max(0, i - 8) : i]))
        return last_frame(rows) or frame or ""

    return [(part, above(i)) for i, part in enumerate(parts) if keep(part)]


_PADDED_LEVEL = re.compile(r" (?:INFO|WARN(?:ING)?|ERROR|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\b")


def rows_above(data: bytes, wrapped: list[tuple[int, int, list[bytes]]]) -> dict[int, str]:
    """For each row after the first of a line a terminal wrapped, the rows above it (as the
    program printed them): where its logger's level stands. Keyed by the row's offset."""
    above: dict[int, str] = {}
    for _, end, rows in wrapped:
        start = end
        for _ in rows:  # back to the first row's start
            start = data.rfind(b"\n", 0, start)
        shown = [plain(row.decode("utf-8", "replace")) for row in rows]
        record = shown[:1]
        for row in shown[1:]:
            start = data.find(b"\n", start + 1)
            # a row that begins a record of its own was joined to the rows above by mistake
            # (lines that merely filled the screen): their level is not its; one that opens
            # with one space is a wrap that fell on the space before a word (" Error: ..."),
            # unless a level follows it (a logger that pads its levels right: " INFO")
            if starts_record(row) and not (
                row[:1] == " " and row[1:2] != " " and _PADDED_LEVEL.match(row) is None
            ):
                record = [row]
                continue
            above[start + 1] = "".join(record)
            record.append(row)
    return above


# What a text shows of a process that died, in words no entry has to know: an exception and
# its traceback (or its frames, a logger's prefix before each), a fatal record, a signal (the
# shell's "Killed", a segfault, a bus error, an abort, a core dump), a launcher's or a
# scheduler's word for a child that failed (torchrun, DeepSpeed, msrun, mpirun, vLLM's engine,
# Ray, srun, Slurm, Kubernetes), a collective's watchdog, torch_npu's unknown ERR99999. (Not a
# logger's ERROR mark: TBE's notice is printed so.) A job dies at its log's end: that end is
# searched, one literal search per marker, and the record a marker stands in (its line's part
# between CRs and LFs) decides.
DEATH_TAIL = 1 << 19
_DEATH_MARKERS = (
    b"Traceback (most recent call last)",
    b'", line ',
    b"Error:",
    b"Exception:",
    b"Fatal Python error",
    b"FATAL",
    b"CRITICAL",
    b"Killed",
    b"Segmentation fault",
    b"Bus error",
    b"Aborted",
    b"core dumped",
    b"terminate called after throwing",
    b"ChildFailedError",
    b"exitcode",
    b"return code = ",
    b"exit with exception",
    b"died unexpectedly",
    b"exit code",
    b"CANCELLED AT",
    b"worker died",
    b"noticed that process rank",
    b"SIG",
    b"killed due to memory pressure",
    b"terminated with exception",
    b"ERR99999",
    b"death signal",
    b"non-zero exit code",
    b"[running]:",  # a Go program's panic (a device plugin, a container runtime)
    b"atal error:",  # "Fatal error:", and the Go runtime's "fatal error: ... deadlock!" at a
    # line's start
    b"Check failed",  # glog's fatal check
    b"' failed",  # a C assert: "Assertion `x' failed." (a page's copy may drop the stop)
    b"Exit Code:",  # kubectl describe
    b"exit status",  # Go's os/exec, a shell's
    b"Back-off restarting failed",
    b"] Error ",  # make: *** [Makefile:12: run] Error 1
    b"Error(",  # ray.exceptions.RayTaskError(RuntimeError):
    b"panicked at",  # Rust
    b"zsh: ",  # zsh's own words for a child's signal, lower case, or its job's line:
    b"segmentation fault",  # "[1]    11244 segmentation fault  python cli_demo.py"
    b"killed  ",  # "[1]    75076 killed     python main.py"
)
_DEATH = re.compile(
    r'Traceback \(most recent call last\)|\bFile "[^"]{1,400}", line \d{1,7}, in '
    r"|\b\w+(?:Error|Exception):|Fatal Python error|(?<![\w='\"])(?:FATAL|CRITICAL)(?![\w='\"])"
    r"|Killed\b(?!=)|Segmentation fault|\bBus error\b|\bAborted\s*$|core dumped"
    r"|terminate called after throwing|ChildFailedError|exitcode\s{0,16}:\s{0,4}-?[1-9]"
    r"|exits? with return code = -?[1-9]|exit with exception|died unexpectedly"
    r"|exit code:? -?[1-9]|CANCELLED AT|worker died|noticed that process rank"
    r"|\bSIG(?:SEGV|ABRT|BUS|ILL|FPE|KILL)\b|killed due to memory pressure"
    r"|terminated with exception|\bERR99999\b|death signal|non-zero exit code"
    r"|\bgoroutine \d{1,9} \[running\]:|\bFatal error:|^fatal error:|\bCheck failed:"
    r"|\bAssertion `[^\n]{0,300}' failed\b"
    r"|\bExit Code:\s{0,16}-?[1-9]|\bexit status -?[1-9]|Back-off restarting failed container"
    r"|\*\*\* \[[^\]\n]{1,200}\] Error [1-9]|\b\w{1,60}Error\(\w{1,60}(?:Error|Exception)\):"
    r"|\bpanicked at\b|\bzsh: (?:segmentation fault|killed|abort|bus error)\b"
    r"|\[\d{1,3}\]\s{1,8}\d{1,9}\s{1,4}(?:segmentation fault|killed|abort|bus error)\b"
)
# Python's words before the traceback of an exception it ignored (a __del__ at shutdown)
_IGNORED = b"Exception ignored in"


def death_tail(data: bytes) -> bytes:
    """The end of ``data`` where a process that died shows, uncoloured ("\x1b[31mRuntimeError
    \x1b[0m:" holds no marker until then) and its spaces plain; its lines as in ``data``."""
    return plain_spaces(uncoloured(data[-DEATH_TAIL:]))


def deaths(tail: bytes) -> Iterator[tuple[int, int]]:
    """The records of ``tail`` (a ``death_tail``), as (start, end), that show a process that
    died: a record an INFO/DEBUG mark makes a mention, and an exception Python ignored, are
    none. By marker, each marker's in order."""
    for marker in _DEATH_MARKERS:
        at = tail.find(marker)
        while at >= 0:
            floor, ceiling = max(0, at - WINDOW), min(len(tail), at + WINDOW)
            lo = max(tail.rfind(b"\n", floor, at), tail.rfind(b"\r", floor, at), floor - 1) + 1
            ends = (tail.find(b"\n", at, ceiling), tail.find(b"\r", at, ceiling))
            hi = min((i for i in ends if i >= 0), default=ceiling)
            part = tail[lo:hi].decode("utf-8", "replace")
            m = _DEATH.search(part)
            if m and not quiet(part, m.start()) and _IGNORED not in tail[max(0, lo - 4096) : lo]:
                yield lo, hi
            at = tail.find(marker, max(hi, at + 1))


def shows_failure(data: bytes) -> bool:
    """Whether the end of ``data`` shows a process that died (``deaths``)."""
    return next(deaths(death_tail(data)), None) is not None
