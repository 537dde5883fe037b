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

A finding here is a follow-up, as a plog module's is: next to a known failure it is context,
alone it is the finding. Fault-Diag's mode of failure is not a field of its own; it is read
from the rule's id and cause (``MODE_BY_WORDS``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Optional

from ampenv.knowledge.failures.model import GENERIC, Failure, Source

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
# The mode a rule's id, component and cause name, first match wins (their order matters: an ECC
# error of the HBM is the hardware's, not memory running out).
MODE_BY_WORDS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (mode, re.compile(words, re.IGNORECASE))
    for mode, words in (
        ("driver", r"\becc\b|pcie|\bbmc\b|firmware|heartbeat|^0x|_drv_|^comp_os|hardware"),
        ("hccl", r"hccl|hccp|roce|network|switch|lcne|net_param|socket|rank ?table|link|notify"),
        ("device-memory", r"out of memory|memory-related|\boom\b|insufficient (device )?memory"),
        ("compile-cache", r"compil|\btbe\b|kernel_meta"),
        ("dtype", r"dtype|data type"),
        ("visible-devices", r"set_device|device id|visible"),
        ("container-devices", r"container|docker|device.?plugin|volcano|occupied"),
        ("cann-pairing", r"version|mismatch"),
        ("cann-env", r"install|package|environment variable|library|\.so\b"),
    )
)
# A suggestion that only sends the reader elsewhere is no fix of its own.
_ELSEWHERE = re.compile(
    r"^\W*\d*\W*(?:contact|collect|locate|obtain|check the (?:log|fault)|if the (?:fault|problem))",
    re.IGNORECASE,
)
NO_FIX = (
    "Fault-Diag gives no action beyond its support channel: keep the plog and device logs "
    "(`msnpureport` collects the device's) with this line for Huawei support"
)


@cache
def _table() -> tuple[str, dict[str, dict]]:
    data = json.loads(TABLE_FILE.read_text(encoding="utf-8"))
    return data["source"], data["rules"]


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
    lists = [(rid, tuple(kws)) for rid, rule in _table()[1].items() for kws in rule["match"]]
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


def _in_order(keywords: tuple[str, ...], line: str) -> Optional[tuple[int, int]]:
    """Where ``keywords`` stand in ``line`` one after another (Fault-Diag's reading), or None."""
    at = first = line.find(keywords[0])
    if at < 0:
        return None
    for kw in keywords:
        at = line.find(kw, at)
        if at < 0:
            return None
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


def mode_of(rule_id: str, rule: dict) -> str:
    said = f"{rule_id} {rule['component']} {rule['module']} {rule['cause']}"
    return next((mode for mode, words in MODE_BY_WORDS if words.search(said)), "core-exception")


def _fix(suggestions: list[str]) -> str:
    steps = [re.sub(r"^\s*\d+\.\s*", "", s) for s in suggestions]
    if not steps or all(_ELSEWHERE.match(s) for s in suggestions):
        return NO_FIX
    return " ".join(steps)


@cache
def rule_failure(rule_id: str) -> Optional[Failure]:
    """The finding of one Fault-Diag rule, None for an id the table does not hold."""
    rule = _table()[1].get(rule_id)
    if rule is None:
        return None
    cause = rule["cause"] or rule_id
    description = rule["description"]
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
        rank=GENERIC,
        family=FAMILY,
    )


def by_id(fid: str) -> Optional[Failure]:
    """A rule's finding by the id a scan reported (``fault-diag-AISW_CANN_HCCL_027``) or by
    Fault-Diag's own id, for `ampenv explain`."""
    return rule_failure(fid[len(FAMILY) + 1 :] if fid.startswith(FAMILY + "-") else fid)


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
