"""The error a text ends on where no process shows dying: an installer's, a build's, a tool's or
a service's own report of what failed, printed as its last words (``[ERROR] Kernel package
depends on toolkit ...``, ``pip3: command not found``). No entry knows it; its words are told,
as a run's end is (:mod:`.unexplained`), never a record its program handled and went on from."""

from __future__ import annotations

import re
from typing import Optional

from ampenv.knowledge.failures.lines import (
    DEATH_TAIL,
    ERROR_MARK,
    below_error,
    death_tail,
    plain,
)
from ampenv.knowledge.failures.unexplained import Unexplained, advice, shown

LAST_RECORDS = 3  # the worded records at a text's end read: what a program said last
ROWS_READ = 2000  # rows read back from the end to find them (past a sea of blank rows)
ROW_READ = 8192  # characters of a row read (a flood's megabyte-long row is cut)

# Words that report a failure, beside the error marks (error, fail, exception, fatal): the
# shell's, the loader's, the system's, a program's "cannot", "can't", "does not exist" (weaker
# words, "not supported", "not found", "invalid", "could not", say as much in a healthy run's
# notices, apt's "invoke-rc.d: could not determine current runlevel" in every image: they are
# no report alone)
_FAILED = re.compile(
    r"(?i)command not found|no such file or directory|cannot open shared object|permission denied"
    r"|\bundefined symbol\b|\bout of memory\b|\bsegfault|\bpanic:|\btimed out\b"
    r"|\btime ?out\b(?!\s*[=:(]|_)|\bconnection refused\b|\b(?:cannot|can ?not|can't|unable to)\b"
    r"|\b(?:do(?:es)?n't|not) exist\b"
    r"|\brequires? [^\n]{1,80}?(?:or (?:higher|later|above|newer)|at least|>=)"
    r"|\bor (?:higher|later|above|newer) (?:is|are) required\b"
    # a library the build or the loader looked for ("libascendfaiss.so not found"; ldd's
    # "=> not found" lists what is missing, a report of its own), CMake's find_package
    r"|(?<!=> )\b\w[\w.+-]*\.so(?:\.\d+)* not found\b|(?-i:\bCould NOT find\b)"
    r"|错误|失败|报错|异常|^E: "  # apt's error prefix
)
# A record that reports what its program handled: a warning, a hedge ("may indicate an
# error"), a count of none ("0 errors", "0 tests failed", "Error Information : NA", "Error
# Count : 0") or a metric ("error ratio: 0.0001", "max_abs_error=2.4e-07", "top-1 error
# 23.87%", "mean absolute error: 0.034"); or a line a logger marked INFO in a format the level
# grammar does not read (logrus' "INFO[...]", logfmt after a syslog prefix)
_ZERO = (
    r"\s*(?:\([^)\n]{0,20}\))?\s*[:=?]\s*"
    r"(?:0(?:\.0+)?(?![\w.])|(?:none|n/?a|no|false|null)\s*[,;|]?\s*$|-\s*$)"
)
_MENTION = re.compile(
    r"(?i)\bwarn(?:ing)?s?\b|\wWarning\b|\[W\]|\bexpected failures?\b"
    r"|\b(?:may|might|can|could)\s(?:\w+\s){0,2}(?:errors?|fail|indicate|cause|yield|lead)"
    r"|\b(?:no|0|zero|without|none)\s+(?:\w+\s+)?(?:errors?|failures?|failed)\b"
    r"|\b(?:errors?|fail\w*)[\s-]+(?:count\s+0\b|none\b|free\b)"
    # a count of none: a noun's ("Error Count : 0", "Invalid: 0.000", "error count(>0.1):
    # 0/20000", "Error Information : NA"), a verb's with what it counts ("Failed Tests: 0");
    # not an id or a code that is 0 ("failed on rank: 0", "ret=0x7020016")
    r"|\b(?:errors?|failures?|invalid)(?:[\s_-]*(?:count|number|num|cnt|information|info"
    r"|code|total|sum))?"
    + _ZERO
    + r"|\bfail\w*[\s_-]*(?:count|number|num|cnt|total|tests?|cases?)\b"
    + _ZERO
    + r"|\bfail\w*=0(?![\w.])"  # a field of its own: "fail=0", "failed=0"
    # a metric: "error ratio: 0.0001", "max_abs_error=2.4e-07", "top-1 error 23.87%", "mean
    # absolute error: 0.034", "error: 0.0231"
    + r"|_errors?\s*[:=]\s*[\d.]|\berrors?\s+(?:ratio|rate)\b|\berrors?\W{0,3}\d[\d.]*\s?%"
    r"|\berrors?\s*[:=]\s*\d*\.\d+(?:e-?\d+)?\s*\S{0,4}\s*$"
    r"|\b(?:top-?\d+|mean|absolute|squared|relative|abs|rel|max|min|avg|average|median|train"
    r"|training|val|validation|test|eval|reconstruction|reprojection|prediction|approximation"
    r"|quantization|rounding|rms|l1|l2)\s(?:\w+\s)?errors?\b"
    r"|\b(?:INFO|DEBU|DEBUG|TRAC)\[\d|\blevel=\"?(?:info|debug|trace)\b"
    r"|\bjob control turned off\b"  # a shell started without a terminal: sh's notice
    # xauth at an ssh login's first X11 forwarding: it creates the file it did not find
    r"|\bxauth:\s+file \S+ does not exist\b"
)
# What says a run went on from an error: its own record ("failed to load X, falling back to
# Y", "failed, try again") or a record below it ("retrying in 5 s"); not what the error asks
# of its reader ("please ... and try again"), nor a negation ("cannot continue")
_WENT_ON = re.compile(
    r"(?i)\bfall(?:ing|s)?\s?back\b|\bfallback\b|\bwill (?:retry|try|use)\b"
    r"|\b(?<!please )(?<!and )(?<!then )(?<!to )(?:retry(?:ing)?\b(?! after)|try(?:ing)? again\b)"
    r"|\bskipp(?:ed|ing)\b|\bignor(?:e|ed|ing)\b"
    r"|\b(?<!not )(?<!cannot )(?<!can't )(?<!unable to )continu(?:e|es|ing)\b"
    r"|, (?:using|returning|defaulting to)\b"
    # what it goes on to do, as a clause of its own ("does not exist. Creating...", "[x]
    # Creating now"; not an error's "error creating overlay mount")
    r"|(?:^|[.,;:\]]\s*)(?:creating|installing it)\b"
)
# A record that only says when or how long a run ended (an installer's "[INFO] End time:",
# bash's time): below an error it neither reports nor says the run went on
_EPILOGUE = re.compile(
    r"(?i)\bend(?:ed)? (?:time|at)\b|\belapsed\b|\btime (?:cost|taken|used)\b|\btotal time\b"
    r"|\btook \d|\brun time\b|^(?:real|user|sys)\s+\d+m[\d.]+s$"
)
# A row that quotes rather than reports: a table's (a cell of its own: "0/1   Error   0"), a
# list's item, a FAQ's question or answer, a comment, a literal or a call in source
# ("print('...')"), markdown's inline code, a command after "$ " (a prompt's row: _PROMPT)
_QUOTED = re.compile(
    r"""\s*(?:[|#>*"'`]|\(\s*['"]|//|- |\$ |(?:Q|A|问|答)\d{0,3}[:：.] )"""
    r"""|.*`|.*\|\s*$|.*\w\(\s*f?['"]|.*\S {2,}(?:Error|Failed|ERROR|FAILED) {2,}\S"""
)
_FAIL = re.compile(r"(?i)\bfail")
_WORDED = re.compile(r"[^\W\d_]{2}")  # a row with words: not a blank, a rule, a bar's glyphs
# a shell's prompt: bare, the session's end; with a command typed, the user went on
_PROMPT = re.compile(r"(?:\([\w.-]+\)\s*)?[\w.-]+@[\w.-]+:[^\s#$]*\s?[#$](\s*$|\s+\S)")
_RULE = re.compile(r"\s*([-=*#~_.])\1{3,}\s*")  # a rule's run within a row: "TASK [x] ****"
# a record that says its run went on: a progress bar's, a step's, a success
_PROGRESS = re.compile(
    r"\d+it/s\]|\d+s/it\]|\|\s*\d+/\d+ \[|\d{1,3}%\|"
    r"|(?i:\b(?:step|epoch|iter(?:ation)?|batch)\b\W{0,3}\d|\bloss\b\W{0,3}\d|\bsuccess"
    r"|\bpassed\b|\bcompleted?\b|\bfinished\b|\bdone\b)"
)


def _reports(record: str) -> bool:
    """Whether ``record`` reports a failure its program did not handle: not a mention (a level
    below ERROR, a warning, a quote, a count of none), nor a failure it went on from."""
    m = ERROR_MARK.search(record) or _FAILED.search(record)
    return not (
        m is None
        or _QUOTED.match(record)
        or _MENTION.search(record)
        or _went_on(record)
        or below_error(record, m.start())
    )


def _went_on(record: str) -> bool:
    """Whether ``record`` says its run went on, and no failure of what it went on to do after
    saying so ("does not exist and creating it failed: permission denied" did not go on; the
    error an "Ignore import error ..." names is the one it went on from)."""
    went = _WENT_ON.search(record)
    return went is not None and not (
        _FAIL.search(record, went.end()) or _FAILED.search(record, went.end())
    )


def last_logged_error(data: bytes, first_line: int = 1) -> Optional[Unexplained]:
    """The error ``data`` (a text whose end shows no process that died, its first line
    numbered ``first_line``) ends on: its last LAST_RECORDS worded records below the last that
    says its run went on, told from the first that reports a failure to the end (a cascade's
    root is its first error, the lines after it say more: "token is incorrect", what to do).
    None where they report none. Bounded: ROWS_READ rows of the end, ROW_READ characters of
    each."""
    tail = death_tail(data)
    block: list[tuple[int, str, bool]] = []  # (offset, record, reports), from the end up
    end, rows = len(tail.rstrip()), 0  # (a sea of blank rows at the end: stepped over at once)
    while end > 0 and len(block) < LAST_RECORDS and rows < ROWS_READ:
        start = tail.rfind(b"\n", 0, end - 1) + 1 if end > 1 else 0
        row = tail[start:end].rstrip(b"\r\n")
        end, rows = start, rows + 1
        # a CR within a row, a bar's redraw: the record is the part after it, read from its
        # start (where a record's level and its error stand)
        raw = row[row.rfind(b"\r") + 1 :][:ROW_READ]
        record = plain(raw.decode("utf-8", "replace")).strip()
        prompt = _PROMPT.match(record)
        if not _WORDED.search(record) or (prompt and not prompt.group(1).strip()):
            continue
        if prompt:  # a command typed after the error: the session went on
            break
        reports = _reports(record)
        if not reports and _EPILOGUE.search(record):
            continue
        # a record of its own level (INFO, DEBUG, WARNING), a bar's, a step's, a retry's: its
        # run went on after anything above it
        if not reports and (
            below_error(record, len(record)) or _PROGRESS.search(record) or _went_on(record)
        ):
            break
        block.append((start, record, reports))
    block.reverse()
    first = next((i for i, (_, _, reports) in enumerate(block) if reports), None)
    if first is None:
        return None
    told = block[first:]
    # (a record printed again right below itself, a compiler's error for each of two passes,
    # is told once; blanks count as one)
    said = [_RULE.sub(" ", record).strip() for _, record, _ in told]
    blank = [" ".join(r.split()) for r in said]
    words = " ".join(r for i, r in enumerate(said) if i == 0 or blank[i] != blank[i - 1])
    # (lines before the part read: counted in the bytes, which colours removed do not change)
    above = first_line + data.count(b"\n", 0, max(0, len(data) - DEATH_TAIL))
    number, last = (above + tail.count(b"\n", 0, at) for at in (told[0][0], told[-1][0]))
    return Unexplained(shown(words), number, last, 1, False, None, advice(words), died=False)
