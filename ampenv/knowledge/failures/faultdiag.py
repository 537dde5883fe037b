"""Huawei's own fault knowledge, Fault-Diag's knowledge graph, read as one more family.

Fault-Diag (Ascend/mind-cluster's ascend-faultdiag) diagnoses a cluster's logs with about a
thousand rules: keywords that show a fault when they stand in order on one line, with the
fault's cause, description and suggestion. ampenv keeps their English texts and keyword rules in
``faultdiag.json`` (tools/faultdiag_import.py writes it) and reads a line with them where
nothing else in the catalogue explains it: a line a curated entry or a code's table explains is
theirs; a line only CANN's plog module names (a follow-up) is Fault-Diag's to say more of.

The rules are looked up by one word each, not searched for one by one: a rule's rarest word that
stands inside one of its keywords (between non-word characters there) is a whole word of any
line that holds the keyword, so a line's words find the rules it may show. A code at a keyword's
edge (``event_id=0x80e18402``) may be that word, and a rule whose keywords hold neither
(``FileNotFoundError``) is found by a word at an edge: the line must then hold it whole (not
``0x80e184021``).

Fault-Diag knows which log a rule reads; ampenv reads any text. So a rule of a framework's own
(MindSpore's, MindIE's, vLLM's, Mooncake's, PyTorch's) reads a line only in a text that names
that framework (``GATES``): "ZeroDivisionError" is a MindSpore data pipeline's fault only where
MindSpore runs. A rule of the device's, the node's or the network's own logs (an ECC event, a
link down) is a fault of its own; a rule of the job's logs (CANN's plog, a training log) is a
follow-up, as a plog module's reading is: next to a known failure it is context, alone it is
the finding. The mode of failure is read from the rule's class, component and words
(``mode_of``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Optional

from ampenv.knowledge.failures.model import CLASS, GENERIC, Failure, Source

FAMILY = "fault-diag"
TABLE_FILE = Path(__file__).with_name("faultdiag.json")
# faultdiag.json's own "source" (a test holds them equal): the family names it without reading
# the table, which is read only when a line is.
SOURCE = (
    "Ascend/mind-cluster component/ascend-faultdiag/src/ascend_fd/configuration/kg-config.json"
    "@22bb3d987bc0208c3eb7395e222b661276133c58 (Apache-2.0)"
)
_WORD = re.compile(r"\w+", re.ASCII)
_CODE = re.compile(r"\d")
# The logs of the job itself: their rules read what the job printed, most often a symptom of a
# cause the catalogue's own entries name (a follow-up). Other logs are the device's, the node's,
# the network's: their events are faults of their own.
JOB_LOGS = frozenset(
    {"", "CANN_Plog", "CANN_Plog | OS", "TrainLog", "MindIE", "PyMotor_vLLM_Log", "MindIO"}
)
# The hardware's event logs: the device's OS and history, the host driver's, the board's
# management controller (as NodeD relays it), the switches' (LCNE).
EVENT_LOGS = frozenset(
    {
        "NPU_OS",
        "NPU_Host",
        "NPU_Device",
        "NPU_History",
        "NodeDLog | BMCLogDumpLog",
        "BMCLogDumpLog",
        "DL_DevicePlugin | LCNELog",
        "LCNE_LOG",
    }
)
# A framework's own rules read a line only in a text that names the framework: by the rule's
# id, its log or its component, the name as the framework writes it (its case variants count).
# PyTorch's are torch_npu's: "torch" stands in every pip list and CUDA traceback.
GATES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(marks), name)
    for marks, name in (
        (r"MOONCAKE", "Mooncake"),
        (r"^AISW_VLLM|\blog=PyMotor_vLLM_Log\b|\bcomponent=VLLM", "vLLM"),
        (r"^AISW_MindSpore_", "MindSpore"),
        (r"^AISW_MindIE_|\blog=MindIE\b|\bcomponent=MINDIE\b", "MindIE"),
        (r"^AISW_MindIO_|\blog=MindIO\b", "MindIO"),
        (r"^AISW_PyTorch_", "torch_npu"),
    )
)
# A framework's codes name it too: MindIE's are "MIE", a module of two digits, a level, six
# hex digits (MindIE's log reference: MIE04E120407, MIE05E040000), a whole word.
CODES = {"MindIE": re.compile(rb"(?<![0-9A-Za-z])MIE\d{2}[A-Z][0-9A-F]{6}(?![0-9A-Za-z])")}
# The mode a rule's class and component name, then its words (whole words: "roce" is not in
# "process"), first match wins: an ECC error of the HBM is the hardware's, not memory running out.
MODE_BY_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (mode, re.compile(words, re.IGNORECASE))
    for mode, words in (
        ("driver", r"^class=hardware\b|\b(?:ecc|pcie|bmc|firmware|heartbeat|drv)\b"),
        ("hccl", r"^class=network\b|\bhccl|\bhccp\b|\broce\b|\blcne\b|\bsocket\b|\brank ?table"),
        ("device-memory", r"\bout of memory\b|\boom\b|\binsufficient (?:device )?memory\b"),
        ("compile-cache", r"\bcompil(?:e|ed|ing|ation)\b(?! error\b)|\btbe\b|\bkernel_meta\b"),
        ("dtype", r"\bdtype\b|\bdata type\b"),
        ("visible-devices", r"\bset_device\b|\bdevice id\b|\bvisible devices?\b"),
        ("container-devices", r"\bcontainer|\bdocker\b|\bdevice.?plugin\b|\bvolcano\b"),
        ("cann-pairing", r"\bversions?\b(?! of)|\bmismatch"),
        ("cann-env", r"\binstall(?:ed|ation)?\b|\bpackage\b|\benvironment variables?\b"),
    )
)
# A suggestion that only sends the reader elsewhere, or only records, is no fix of its own.
_ELSEWHERE = re.compile(
    r"^\W*\d*\W*(?:contact|collect|locate|obtain|record|no operation|check the (?:log|fault)"
    r"|if the (?:fault|problem|issue)|error logs? and)",
    re.IGNORECASE,
)
NO_FIX = (
    "Fault-Diag gives no action beyond its support channel: keep the plog and device logs "
    "(`msnpureport` collects the device's) with this line for Huawei support"
)


@cache
def _table() -> tuple[dict[str, dict], str]:
    """The rules, and why there are none where the table cannot be read (a damaged install
    turns the family off; the rest of the catalogue keeps working)."""
    try:
        data = json.loads(TABLE_FILE.read_text(encoding="utf-8"))
        rules = data["rules"]
        if not isinstance(rules, dict) or not all(_sound(rule) for rule in rules.values()):
            raise ValueError("a rule is not of the shape tools/faultdiag_import.py writes")
    except (OSError, ValueError, KeyError, TypeError) as why:
        return {}, f"{TABLE_FILE.name} cannot be read ({type(why).__name__}: {why})"
    return rules, ""


def _sound(rule: object) -> bool:
    return (
        isinstance(rule, dict)
        and all(isinstance(rule.get(k), str) for k in ("component", "module", "log", "cause"))
        and all(isinstance(rule.get(k, ""), str) for k in ("class", "description"))
        and isinstance(rule.get("suggestion"), list)
        and all(isinstance(s, str) for s in rule["suggestion"])
        and isinstance(rule.get("match"), list)
        and all(
            isinstance(kws, list) and kws and all(isinstance(k, str) and k for k in kws)
            for kws in rule["match"]
        )
    )


def problem() -> str:
    """Why Fault-Diag's rules were off, "" where they were read or never needed (the table is
    read only when a line asks for it)."""
    return _table()[1] if _table.cache_info().currsize else ""


def _words(keyword: str, inside: bool) -> list[str]:
    """The words of ``keyword``: with ``inside``, those with a non-word character (of the
    keyword) on both sides, which any line that holds the keyword holds whole."""
    return [
        m.group()
        for m in _WORD.finditer(keyword)
        if not inside or (m.start() > 0 and m.end() < len(keyword))
    ]


@cache
def _index() -> tuple[dict[str, tuple[tuple[str, tuple[str, ...]], ...]], int]:
    """Each rule's keyword lists under the rarest of their words, and how many lists have one (a
    list of punctuation only would have none and never be read)."""
    lists = [(rid, tuple(kws)) for rid, rule in _table()[0].items() for kws in rule["match"]]
    # a word inside a keyword, or a code at its edge ("Event id=0x80e01801": the code, not
    # "id", which 189 rules share); else any word at an edge
    candidates = [
        [w for kw in kws for w in _words(kw, False) if w in _words(kw, True) or _CODE.search(w)]
        or [w for kw in kws for w in _words(kw, False)]
        for _, kws in lists
    ]
    count = Counter(w for words in candidates for w in set(words))
    index: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for rule, words in zip(lists, candidates):
        if words:
            index.setdefault(min(words, key=lambda w: (count[w], -len(w))), []).append(rule)
    return {w: tuple(rules) for w, rules in index.items()}, sum(map(len, index.values()))


SHORT = 4  # a keyword of this many word characters at most must stand whole ("yr", "abs")


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


def _find(line: str, keyword: str, start: int) -> int:
    """Where ``keyword`` stands in ``line`` from ``start``: a substring, as Fault-Diag reads
    it, but a short word whole ("yr" is not in "pyrsistent")."""
    at = line.find(keyword, start)
    if len(keyword) > SHORT or not _WORD.fullmatch(keyword):
        return at
    end = len(keyword)
    while at >= 0 and (
        (at and _is_word(line[at - 1])) or (at + end < len(line) and _is_word(line[at + end]))
    ):
        at = line.find(keyword, at + 1)
    return at


def _in_order(keywords: tuple[str, ...], line: str) -> Optional[tuple[int, int]]:
    """Where ``keywords`` stand in ``line`` one after another (Fault-Diag's reading), or None."""
    first, at = -1, 0
    for kw in keywords:
        at = _find(line, kw, at)
        if at < 0:
            return None
        first = at if first < 0 else first
        at += len(kw)
    return first, at


def read(line: str) -> list[tuple[str, int, int]]:
    """The rules ``line`` shows, each as its id and the span from its first keyword to the end
    of its last: the most specific first (the most keyword text), one span per rule."""
    index, _ = _index()
    found: dict[str, tuple[int, int, int]] = {}
    for word in set(_WORD.findall(line)):
        for rule_id, keywords in index.get(word, ()):
            span = _in_order(keywords, line)
            size = sum(map(len, keywords))
            if span is not None and size > found.get(rule_id, (0,))[0]:
                found[rule_id] = (size, *span)
    ranked = sorted(found.items(), key=lambda item: (-item[1][0], item[1][1], item[0]))
    return [(rule_id, start, end) for rule_id, (_, start, end) in ranked]


def pasted(text: str) -> list[Failure]:
    """The rules a pasted text shows, line by line (the most specific of each line), for a
    text the scanner reads nothing in: a line with no error word ("Event id=0x80e01801",
    "Device lost heartbeat") is still asked about. A framework's rule needs its name there; a
    line that reports the event's recovery names its fault as ended."""
    whole, found = text.encode("utf-8", "surrogatepass"), {}
    for line in text.split("\n"):
        for rule_id, _, _ in read(line):
            failure = rule_failure(rule_id)
            if failure is not None and names(whole, rule_id):
                over = recovered(line)
                found.setdefault(failure.id, replace(failure, ends=True) if over else failure)
                break
    return list(found.values())


@cache
def _framework(rule_id: str) -> str:
    """The framework whose own rule ``rule_id`` is, "" for none."""
    rule = _table()[0].get(rule_id, {})
    said = f"{rule_id} log={rule.get('log', '')} component={rule.get('component', '')}"
    return next((name for marks, name in GATES if marks.search(said)), "")


@cache
def gate(rule_id: str) -> tuple[bytes, ...]:
    """The spellings of the name a text must hold for the rule to read its lines (the name as
    written, lower case, upper case); () for a rule of no framework's own."""
    name = _framework(rule_id)
    if not name:
        return ()
    return tuple(dict.fromkeys(n.encode() for n in (name, name.lower(), name.upper())))


def names(text: bytes, rule_id: str) -> bool:
    """Whether ``text`` names the framework whose rule ``rule_id`` is (always, for a rule of
    no framework's own): by a spelling of its name, or by a code of its own (``CODES``)."""
    spellings = gate(rule_id)
    if not spellings or any(s in text for s in spellings):
        return True
    codes = CODES.get(_framework(rule_id))
    return codes is not None and codes.search(text) is not None


def mode_of(rule_id: str, rule: dict) -> str:
    said = (  # the id's parts as words ("AISW CANN HCCL 027")
        f"class={rule.get('class', '')} {rule_id.replace('_', ' ')} {rule['component']} "
        f"{rule['module']} {rule['cause']}"
    )
    return next((mode for mode, words in MODE_BY_WORDS if words.search(said)), "core-exception")


def _fix(suggestions: list[str]) -> str:
    steps = [re.sub(r"^\s*\d+\.\s*", "", s) for s in suggestions]
    if not steps or all(_ELSEWHERE.match(s) for s in suggestions):
        return NO_FIX
    return " ".join(steps)


@cache
def _by_folded_id() -> dict[str, str]:
    return {rule_id.lower(): rule_id for rule_id in _table()[0]}


@cache
def rule_failure(rule_id: str) -> Optional[Failure]:
    """The finding of one Fault-Diag rule, None for an id the table does not hold."""
    rule = _table()[0].get(rule_id)
    if rule is None:
        return None
    cause = rule["cause"] or rule_id
    description = rule.get("description", "")
    return Failure(
        id=f"{FAMILY}-{rule_id}",
        mode=mode_of(rule_id, rule),
        component=(rule["component"] or "fault-diag").lower(),
        patterns=(),
        codes=(),
        meaning=f"{cause} (Fault-Diag {rule_id}"
        + (f", read in its {rule['log']} logs)" if rule["log"] else ")")
        + (f": {description}" if description and description != cause else ""),
        causes=(cause,),
        fix=_fix(rule["suggestion"]),
        confirm=None,
        sources=(Source(SOURCE, "official"),),
        hints=(),
        rank=GENERIC if rule["log"] in JOB_LOGS else CLASS,
        family=FAMILY,
    )


# A fault event that states its own end: the device plugin's assertion (Recovery, Occur, Once;
# 0, 1, 2 as numbers) and Fault-Diag's own reading of it (its device_plugin_parser drops an
# event at "Assertion: 0" or "Assertion:0x0"). The fault the code names is over there.
RECOVERED = re.compile(r"\bassertion\s?[:=]\s?(?:recovery\b|(?:0x)?0\b)", re.IGNORECASE)


def recovered(line: str) -> bool:
    """Whether ``line`` reports a fault event's recovery (``RECOVERED``), not its occurrence."""
    return RECOVERED.search(line) is not None


# Where an event happened, in the fields the device plugin's events name it by (its Kubernetes
# event: nodeName, cardID, deviceID; its logs: logicID; a switch's: the chip and the ports): a
# recovery ends the fault of the same place only.
_PLACE = re.compile(
    r"\b(nodeName|cardID|deviceID|logicID|SwitchChipId|SwitchPortId|PeerPortDevice|PeerPortId)"
    r"\s?[:=]\s?([\w.-]{1,253})",
    re.IGNORECASE,
)


def event_place(line: str) -> str:
    """The place ``line``'s event names: its fields by name, a number in any base as one
    ("0x2" is 2), "" for none."""
    fields = {k.lower(): _number(v) for k, v in _PLACE.findall(line)}
    return " ".join(f"{k}={v}" for k, v in sorted(fields.items()))


def _number(value: str) -> str:
    try:
        return str(int(value, 0))
    except ValueError:
        return value.lower()


def event_log(rule_id: str) -> bool:
    """Whether the rule reads an event log of the hardware's own (``EVENT_LOGS``): there each
    record is a fault event whatever its level (NodeD's "[INFO] get fault event", the device's
    "[EVENT] IMP"), and the rule was written against those records. A program's own log
    (Docker's, Volcano's, the OS's) marks what it goes on from as INFO: there the level counts."""
    rule = _table()[0].get(rule_id)
    return rule is not None and rule["log"] in EVENT_LOGS


def by_id(fid: str) -> Optional[Failure]:
    """A rule's finding by the id a scan reported (``fault-diag-AISW_CANN_HCCL_027``) or by
    Fault-Diag's own id, in any case (``0x80e01801``), for `ampenv explain`."""
    folded = fid.strip().lower()
    if folded.startswith(FAMILY + "-"):
        folded = folded[len(FAMILY) + 1 :]
    rule_id = _by_folded_id().get(folded)
    return rule_failure(rule_id) if rule_id else None


FAULT_DIAG = Failure(
    id=FAMILY,
    mode="core-exception",
    component="fault-diag",
    patterns=(),
    codes=(),
    meaning="a line one of Fault-Diag's rules reads (Huawei's fault knowledge for Ascend "
    "clusters: CANN, the driver and device, HCCL and the network, PyTorch, MindSpore, MindIE, "
    "vLLM-Ascend) that nothing else in the catalogue explains",
    causes=("the fault the rule names (each rule's finding carries its cause and suggestion)",),
    fix="the rule's suggestion (each finding carries its own)",
    confirm=None,
    sources=(Source(SOURCE, "official"),),
    hints=(),
    rank=GENERIC,
)
