"""The shape of one known failure: how it shows in a log, what it means, what fixes it, and
where that knowledge comes from."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any, Callable, Optional

# The failure modes a node validator tells apart.
MODES = (
    "cann-env",  # CANN / NNAL environment not sourced or not installed
    "torch-pairing",  # torch and torch_npu built for each other or not
    "cann-pairing",  # torch_npu against CANN, NNAL/ATB and the kernels package
    "container-devices",  # devices reachable (containers, dcmi, busy devices)
    "device-memory",  # device memory
    "core-exception",  # AI Core / vector core / AI CPU exceptions, timeouts, inner errors
    "hccl",  # collective communication
    "dtype",  # dtypes the chip lacks
    "visible-devices",  # ASCEND_RT_VISIBLE_DEVICES and device ids
    "driver",  # driver, firmware, HDK
    "compile-cache",  # operator compile and its caches
    "allocator",  # PYTORCH_NPU_ALLOC_CONF and the caching allocator
)
WEIGHTS = ("official", "maintainer", "report")
# Ranks: a root cause sorts before the class it belongs to, and both before a generic follow-up
# code (EZ9999 "inner error") that only says "look at the lines around me".
SPECIFIC, CLASS, GENERIC = 0, 1, 2

# A numeric runtime code in the contexts CANN and torch_npu print it in ("error code is 507035",
# "runtime result = 507035", "failed: 507035", "failed, return: 507035", "ErrCode=107001", the
# ACL samples' "errorCode = 507033"), never the same digits in a pid "(507033,python)", a thread
# id "]507033", a step counter or a longer number.
STRONG_CONTEXT = (
    r"(?:\berror ?code(?: is ?:?|:| ?=)|failed, error code|runtime result =|errcode="
    r"|failed ?:|failed, return: ?|failed with code|\bret is|with error"
    # an ACL call's own "aclInit error code 107001" (only there: "returned error code N" was
    # never read, and CANN's runtime sample prints it for the failure it makes on purpose)
    r"|\bacl\w{2,60} error code (?=\d)"
    # the ACL wrappers' "(Calling Function = aclrtSynchronizeStream, Code = 507014, ...)";
    # onnxruntime's CANN provider: "CANN failure 100002: ACL_ERROR_REPEAT_INITIALIZE"
    r"|Calling Function = \w{1,80}, Code =|\bCANN failure"
    # CANN's operator log ("[NNOP][CheckReduction][4027227] errno[161002] OpName:[...] ..."),
    # and the aclnn samples' check every caller copies ("aclnnXxx failed. ERROR: 161002")
    r"|\berrno\[(?=\d)|\bfailed\. ERROR: ?(?=\d))"
)
# "result = 200000 samples", "ret: 200000 KB": a counter, unless the line is an error's line.
# pyACL's "acl.rt.set_device failed ret_int=507033" too, and a C program's "rc="
WEAK_CONTEXT = (
    r"(?:result =|\bret(?:code|_int)?\s?[=:]|\bret(?= \d)|\bret\[(?=\d)"
    r"|\brc\s?=)"  # C's "rc": "rtStreamSynchronize failed: rc=507035"
)
# an error's line: its words, or glog's ERROR or FATAL record ("E0419 16:59:47.826516 19842
# transport.cpp:487] Register mem ret:207000.", Mooncake's and Paddle's C++ logs; glog 0.7
# writes the year too: "E20260106 06:43:02.123456")
_ERROR_LINE = r"error|fail|(?-i:\b[EF](?:\d{4}){1,2} \d\d:\d\d:\d\d\.\d{6} )"
CODE_CONTEXT = (
    rf"(?:{STRONG_CONTEXT}|^(?=[^\n]{{0,2000}}?(?:{_ERROR_LINE}))[^\n]{{0,2000}}?{WEAK_CONTEXT})"
)


# A number a unit or a counted noun follows is a count, not a code: "import failed: 100000 rows
# rejected", "failed. ERROR: 200000 records skipped", "upload failed: 507035 bytes left". No code
# of the corpus is followed by a word but "at" ("failed : 507033 at file ...") or a code's title.
# (in lower case and plural, as a count's noun is written: "Task execute failed", "device 0 is
# busy", "task 12 of stream 3" after a code are no count)
_COUNTED = re.compile(
    r"\s?(?:rows|records|bytes|[kKmMgGtT]i?B|items|samples|files|lines|entries|tokens|steps"
    r"|iterations|times|seconds|secs|ms|elements|param(?:eter)?s|images|words|char(?:acter)?s"
    r"|messages|requests|packets|blocks|pages|objects|keys|tasks|jobs|errors|warnings|tests"
    r"|cases|ranks|nodes|devices|cards|processes|workers|threads|retries|attempts)\b",
    re.ASCII,
)
# Where a numeric code ends: no digit after it; the count after it is looked for once a pattern
# matched (in every code pattern, the alternation above took 60 ms of compiling per process).
CODE_END = r"(?!\d)(?#no count)"


def counted(m: re.Match[str]) -> bool:
    """Whether the code ``m`` read (its group "code", else where it ends) is a count."""
    end = m.end("code") if "code" in m.re.groupindex else m.end()
    return _COUNTED.match(m.string, end) is not None


# The words every CODE_CONTEXT holds: an entry with a code() pattern lists them as hints, so
# the prefilter never hides "runtime result = 507033", "ErrCode=107001" or "ret is 507033".
CODE_HINTS = ("error", "fail", "result", "ret", "errcode", "errno")


def code_hints(*hints: str) -> tuple[str, ...]:
    """An entry's own hints and the words of the contexts its code() patterns match in."""
    return tuple(dict.fromkeys((*hints, *CODE_HINTS)))


# What a page, a JSON string or an input method may write otherwise: any punctuation (HTML
# entities, escapes, full-width forms such as "（" and "：").
_RESHAPED = re.compile(r"[^a-z0-9_ ]")

# Every numeric code is six digits: a line without a run of six holds none, and the patterns
# built on CODE_CONTEXT (the costly ones, with its look-ahead) need not be tried on it.
SIX_DIGITS = re.compile(r"\d{6}")


def _parser():  # type: ignore[no-untyped-def]
    """The regex parser re itself uses: re._parser on 3.11+, sre_parse before."""
    try:
        import re._parser as parser  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - Python 3.9/3.10
        import sre_parse as parser  # type: ignore[no-redef]
    return parser


@cache
def _tree(pattern: str) -> Optional[list]:
    """The parser's tree of ``pattern``, None where the parser refuses it (parsed once: the
    prefilter's keys and each pattern's required text read the same tree)."""
    try:
        return list(_parser().parse(pattern, re.IGNORECASE | re.ASCII))
    except Exception:
        return None


def _runs(seq: list) -> Iterator[tuple[str, object, object]]:
    """The items of a parsed sequence, runs of plain characters joined (lowercase): ("", op,
    arg) for an item, (text, None, None) for a run."""
    literal, run = _parser().LITERAL, []
    for op, arg in [*seq, (None, None)]:
        if op is literal:
            run.append(chr(arg))
            continue
        if run:
            yield "".join(run).lower(), None, None
            run = []
        if op is not None:
            yield "", op, arg


def required_text(pattern: str) -> str:
    """The longest run of plain characters every match of ``pattern`` holds (lowercase), in its
    sequence or in a group of it (a family's "(?-i:\bERR(?P<code>...) ...)"): a line without it
    cannot match, so the regex is not run there. "" where the pattern has none."""
    group = _parser().SUBPATTERN

    def runs(seq: list) -> Iterator[str]:
        for text, op, arg in _runs(seq):
            yield text
            if op is group:
                yield from runs(arg[-1])  # type: ignore[index]

    return max(runs(_tree(pattern) or []), key=len, default="")


def holds_one(pattern: str, words: tuple[str, ...]) -> bool:
    """Whether every match of ``pattern`` holds one of ``words`` (lowercase) in its plain text:
    in a run of its own, in a group, in every branch of an alternation, in a repeat taken at
    least once. False where that cannot be read."""

    p = _parser()

    def every(seq: list) -> bool:
        for text, op, arg in _runs(seq):
            if (
                (text and any(w in text for w in words))
                or (op is p.SUBPATTERN and every(arg[-1]))  # type: ignore[index]
                or (op is p.BRANCH and all(every(b) for b in arg[1]))  # type: ignore[index]
                or (
                    op in (p.MAX_REPEAT, p.MIN_REPEAT)
                    and arg[0] >= 1  # type: ignore[index]
                    and every(arg[2])  # type: ignore[index]
                )
            ):
                return True
        return False

    tree = _tree(pattern)
    return tree is not None and every(tree)


def code(number: str) -> str:
    """A pattern for a numeric code (a regex fragment such as ``50703[45]``) in its contexts."""
    return rf"{CODE_CONTEXT}\s?{number}{CODE_END}"


@dataclass(frozen=True)
class Source:
    ref: str  # URL, or repository + path + commit
    weight: str  # official | maintainer | report

    def __post_init__(self) -> None:
        if self.weight not in WEIGHTS:
            raise ValueError(f"unknown source weight {self.weight!r}")


# The project's notes on the Ascend stack, with the sources each section read.
FACTS = "shared/reference/ascend-facts.md"
# Huawei's one-case knowledge base (symptom, root cause, fix a page), as the public file index
# holds it: its pages are cited by their index ids.
KB = "Huawei's one-case knowledge base in the public file index"


def hicann_page(
    page: str, commit: str = "0eadb61a993b384a333d3a93ddf2a83b6daba48f", note: str = ""
) -> Source:
    """A page of CANN's own troubleshooting guide (hicann/docs), which several component files
    cite: an official source."""
    where = f"hicann/docs docs/zh/troubleshooting/{page}@{commit}"
    return Source(f"{where} ({note})" if note else where, "official")


@dataclass(frozen=True)
class TextFacts:
    """Facts the whole text shows that decide a match: ``read`` gathers them from the text being
    read, once per text, however many lines match (a batch of lines fed one by one that more
    may follow is no whole text: not read, None); ``judge`` decides one match with them."""

    read: Callable[[bytes], Any]
    judge: Callable[[re.Match[str], Any], bool]


@dataclass(frozen=True)
class Failure:
    id: str
    mode: str
    component: str
    patterns: tuple[str, ...]  # one line each, bounded
    codes: tuple[str, ...]  # the error codes it covers ("EI0006", "507035", "-8020")
    meaning: str
    causes: tuple[str, ...]  # most likely first
    fix: str  # a command or a concrete action
    confirm: Optional[str]  # the ampenv check that confirms or refutes it on a live node
    sources: tuple[Source, ...]
    # lowercase: the words that make a line this failure's, a prefilter too (a code on a line
    # without one is a mention; see keys for the messages read whole)
    hints: tuple[str, ...]
    rank: int = SPECIFIC
    clears_cache: bool = False  # the fix is clearing compile caches
    # A family of codes (knowledge/failures/codes.py): each match becomes the failure of the code
    # it captured, or nothing where the catalogue has an entry of its own for that code.
    decode: Optional[Callable[[re.Match[str]], Optional[Failure]]] = None
    # A bytes regex (case kept) that finds the family's lines where no fixed word does.
    anchor: Optional[str] = None
    family: Optional[str] = None  # a decoded code: the id of the family that decoded it
    # Indented lines after the matching line its patterns may read too (CANN prints an E-code's
    # "Possible Cause:" and "Solution:" there).
    following: int = 0
    # The two lines above the matching line, a Python traceback's last frame, its patterns may
    # read too, after the line's own: the file that imported or raised (".../tbe/tvm/target.py").
    frame: bool = False
    # Its codes mean more than it does (EZ1001 is any invalid parameter, not only a dtype): a
    # code alone names the code's table row, not this entry. Otherwise the entry owns its codes,
    # and a code in a wording its patterns do not know is still this entry.
    narrower: bool = False
    # The figures a match captured decide whether the line is this failure (an out-of-memory
    # line whose figures say where the memory went); None: every match is.
    judge: Optional[Callable[[re.Match[str]], bool]] = None
    # What the rest of the text says decides (the versions a pasted environment shows elsewhere
    # in it); None: the line alone decides.
    context: Optional[TextFacts] = None
    # What it reads names a cause only beside a failure (a version pairing a pasted environment
    # shows, a fallback torch_npu warns of and goes on from, a shutdown's side effect): where
    # the texts read show no failure (no other entry's, no process that died at a text's end)
    # it is a note, never a finding (healthy runs print it too).
    notice: bool = False
    # Its words are a language's, which other entries read more closely (Python's "module 'X'
    # has no attribute" for torch_npu, triton or numpy): it reads a line only where no other
    # entry, nor a Fault-Diag rule, reads it.
    fallback: bool = False
    # A fault event's recovery (a decoded line's, never a catalogue entry's): it ends the finding
    # of its id read before it in the text, as Fault-Diag drops an event that recovered.
    ends: bool = False
    # A decoded code's own message as its line gave it (not its table's, not CANN's bare
    # "Inner Error"): for a follow-up code, the reason the lines around a failure state.
    said: str = ""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"{self.id}: unknown mode {self.mode!r}")
        if self.notice and self.clears_cache:
            raise ValueError(f"{self.id}: a note alone never clears caches")
        if self.patterns and not (self.hints or self.anchor):
            raise ValueError(f"{self.id}: a pattern needs hints or an anchor")
        if any(h != h.lower() or not h.isascii() for h in self.hints):
            raise ValueError(f"{self.id}: hints must be lowercase ASCII")

    @cached_property
    def keys(self) -> tuple[str, ...]:
        """What the prefilter looks for: the hints, and for each pattern that is a message (its
        fixed text is words) a match of which may hold none of them, that text: "Torch not
        compiled with CUDA enabled" pasted without its "AssertionError:". A code or a token
        alone ("EI0006", "[Create][DestLink]") stays a mention unless its line holds a hint:
        the hints are the words that make a line an error's. A family's anchor finds its own."""
        if self.anchor:
            return self.hints
        texts = (required_text(p) for p in self.patterns if not holds_one(p, self.hints))
        # the key is looked for in the text as pasted: its longest piece of letters, digits
        # and spaces (": " may be "：", "(" "（", "'" "’" or "&#39;")
        pieces = (max(_RESHAPED.split(t), key=len).strip() for t in texts)
        return tuple(dict.fromkeys((*self.hints, *(t for t in pieces if " " in t))))

    @cached_property
    def regexes(self) -> tuple[re.Pattern[str], ...]:
        # ASCII: \d and \w and case folding stay ASCII (no surprises from U+0130 and kin).
        return tuple(re.compile(p, re.IGNORECASE | re.ASCII) for p in self.patterns)

    @cached_property
    def _tried(self) -> tuple[tuple[re.Pattern[str], bool, str, bool], ...]:
        """Each regex, whether it reads a numeric code in CODE_CONTEXT, the text every match of
        it holds, and whether a count after its code makes a match none (CODE_END)."""
        return tuple(
            (r, CODE_CONTEXT in p, required_text(p), CODE_END in p)
            for p, r in zip(self.patterns, self.regexes)
        )

    def search(
        self, line: str, digits: bool = True, lowered: Optional[str] = None
    ) -> Optional[re.Match[str]]:
        """The first match of the patterns in ``line``. A scanner that knows more says so:
        ``digits=False``, the line holds no run of six digits (the numeric-code patterns are
        skipped); ``lowered``, the line in lower case (a pattern whose required text is not in
        it is skipped)."""
        for regex, coded, required, ends in self._tried:
            if (coded and not digits) or (lowered is not None and required not in lowered):
                continue
            m = regex.search(line)
            while m is not None and ends and counted(m):  # a count: a code further on?
                m = regex.search(line, m.end())
            if m:
                return m
        return None


def judged(judge: Callable[[re.Match[str]], bool], m: re.Match[str]) -> bool:
    """Whether an entry's ``judge`` holds ``m`` to be its failure. A judge that fails reads
    the line as not its failure: one entry's bug must not lose the other findings of the scan."""
    try:
        return judge(m)
    except Exception:  # any bug of one entry's judge
        return False
