"""Write ampenv's copy of Fault-Diag's knowledge graph (ampenv/knowledge/failures/faultdiag.json).

Fault-Diag (Ascend/mind-cluster, component/ascend-faultdiag, Apache-2.0) ships the fault
knowledge Huawei's own diagnosis tool matches logs against: per fault, the keywords that show it
in a log and its cause, description and suggestion in Chinese and English. The copy keeps the
English texts and the keyword rules ("in": keywords found in order on one line; a list of such
lists: any of them), nothing else. A rule of another shape is left out with why; an input that
is not a knowledge graph at all stops the tool with a message, writing nothing.

    KG=component/ascend-faultdiag/src/ascend_fd/configuration/kg-config.json
    git -C MIND_CLUSTER show COMMIT:$KG > kg.json
    python tools/faultdiag_import.py kg.json COMMIT
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from ampenv.util import atomic

OUT = Path(__file__).resolve().parent.parent / "ampenv/knowledge/failures/faultdiag.json"
PATH = "component/ascend-faultdiag/src/ascend_fd/configuration/kg-config.json"
TEXT = 300  # characters kept of a description or a suggestion line
SUGGESTIONS = 6  # suggestion lines kept
# Rules left out, each with why: a line healthy runs print is not a fault, and words that mean
# one thing in the log Fault-Diag reads them in mean another in a training log.
LEFT_OUT = {
    "AISW_PyTorch_Train_16": "torch_npu's CPU-fallback warning: healthy training prints it "
    "(LLaMA-Factory's `llamafactory-cli env`, tests/fixtures/logs/ascend/heldout6_neg_04_*)",
    "AISW_MindSpore_lite_13": "its keywords are a success line ('Execute model success'): "
    "Fault-Diag reads it only next to other faults",
    "Comp_OS_Kernel_Mem_08": "'Out of memory' is the kernel's OOM killer in the OS log; in a "
    "training log the same words are device memory's (ampenv's own entries read those)",
    "AISW_Framework_Custom_01": "'out of memory' in any case or wording, read as 'a "
    "memory-related fault pattern' whose description is a log format: the kernel's OOM "
    "killer and the device's allocators are ampenv's own entries",
    "AISW_CANN_CCE_009": "reads the kernel's OOM killer ('Out of memory: Kill process') as a "
    "full disk",
    "AISW_CANN_Runtime_063": "'AICORE Kernel task happen error' stands on every AI Core task "
    "error whatever its retCode (0x26 is an exception, not the timeout the rule names); "
    "ampenv's aicore entries read the retCode",
    "AISW_CANN_STARS_004": "'PrintTaskErrorMsg: Task run failed' is CANN's line for every "
    "task exception, not a stuck post-processing",
    "AISW_CANN_STARS_005": "'PrintTaskErrorMsg: Task run failed' is CANN's line for every "
    "task exception, not a chip that failed to initialise",
    "Comp_OS_Service_Container_05": "Docker's INFO 'failed to exit within 10 seconds of signal "
    "15 - using the force' (and exit status 137) is every `docker stop` of a program that does "
    "not handle SIGTERM; a moby maintainer: 'Those errors in itself do not indicate there's a "
    "bug' (https://github.com/moby/moby/issues/18758)",
}
# Logs whose rules read words every program prints as that program's own faults.
LEFT_OUT_LOGS = {
    "CANN_Amct": "the model compression tool's own log: its rules read generic words ('does "
    "not support', 'is not found in graph') as faults of its quantization configuration",
}


# A keyword list that is a few plain words ("alloc failed", "I/O error", "ctx is NULL") reads
# as one program's fault in Fault-Diag's own logs, and as anything in a text of unknown origin:
# under this many characters, with no code, identifier or field in it, it is dropped.
PLAIN_WORDS = 16
_SPECIFIC = re.compile(r"[\d_\[\]=(){}<>\\]|[a-z][A-Z]")


def _plain(keywords: list[str]) -> bool:
    return len(" ".join(keywords)) < PLAIN_WORDS and not any(_SPECIFIC.search(k) for k in keywords)


class NotAGraph(Exception):
    """The input is not Fault-Diag's knowledge graph."""


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT else text[: TEXT - 3].rstrip() + "..."


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _groups(regex: dict) -> list[list[str]]:
    """The keyword lists of a rule: its "in" and each "opt"'s "in" (a list of strings, or a
    list of such lists). ValueError for any other shape."""
    out = []
    opts = regex.get("opt") or []
    if not isinstance(opts, list) or not all(isinstance(o, dict) for o in opts):
        raise ValueError('"opt" is not a list of objects')
    for conf in (regex, *opts):
        ins = conf.get("in") or []
        if _strings(ins):
            ins = [ins]
        if not isinstance(ins, list) or not all(_strings(group) for group in ins):
            raise ValueError('"in" is neither a list of strings nor a list of such lists')
        out += [[k for k in group if k] for group in ins]
    return [group for group in out if group]


def _why_not(regex: dict) -> str:
    if regex.get("regex"):
        return (
            f"a regular expression ({regex['regex']}), not imported (CANN's E-codes and "
            "torch_npu's ERR codes are ampenv's own code families)"
        )
    if regex.get("opt"):
        return 'keywords over a window of lines ("all"): ampenv reads one line at a time'
    return "no rule of its own: Fault-Diag infers it from the faults it links to"


def _text(attr: dict, key: str) -> str:
    value = attr.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f'"{key}" is not a string')
    return value


def _rule(entry: Any) -> dict:
    """One rule's kept fields. ValueError where its shape is not Fault-Diag's."""
    if not isinstance(entry, dict):
        raise ValueError("the rule is not an object")
    attr, regex = entry.get("attribute") or {}, entry.get("regex") or {}
    if not isinstance(attr, dict) or not isinstance(regex, dict):
        raise ValueError('"attribute" or "regex" is not an object')
    suggestion = attr.get("suggestion_en") or []
    if not _strings(suggestion):
        raise ValueError('"suggestion_en" is not a list of strings')
    log = entry.get("source_file") or ""
    if not isinstance(log, str):
        raise ValueError('"source_file" is not a string')
    return {
        "class": _text(attr, "class"),
        "component": _text(attr, "component"),
        "module": _text(attr, "module"),
        "log": log,
        "cause": _cut(_text(attr, "cause_en")),
        "description": _cut(_text(attr, "description_en")),
        "suggestion": [_cut(s) for s in suggestion if s.strip()][:SUGGESTIONS],
        "match": _groups(regex),
    }


def convert(kg: Any, commit: str) -> dict:
    """The table ampenv reads, from a parsed kg-config.json."""
    repository = kg.get("knowledge-repository") if isinstance(kg, dict) else None
    if not isinstance(repository, dict):
        raise NotAGraph('no "knowledge-repository" object: not a Fault-Diag kg-config.json')
    rules, left_out = {}, {k: why for k, why in LEFT_OUT.items() if k in repository}
    for rule_id, entry in sorted(repository.items()):
        if rule_id in LEFT_OUT:
            continue
        try:
            rule = _rule(entry)
        except ValueError as why:
            left_out[rule_id] = f"malformed: {why}"
            continue
        plain = [kws for kws in rule["match"] if _plain(kws)]
        rule["match"] = [kws for kws in rule["match"] if not _plain(kws)]
        if rule["log"] in LEFT_OUT_LOGS:
            left_out[rule_id] = LEFT_OUT_LOGS[rule["log"]]
        elif plain and not rule["match"]:
            left_out[rule_id] = (
                f"its keywords are a few plain words ({' ... '.join(plain[0])}): in a text of "
                "unknown origin they name no one fault"
            )
        elif not rule["match"]:
            left_out[rule_id] = _why_not(entry.get("regex") or {})
        else:
            rules[rule_id] = rule
    return {
        "source": f"Ascend/mind-cluster {PATH}@{commit} (Apache-2.0)",
        "note": "Fault-Diag's knowledge graph: English texts (cut at 300 characters, six "
        "suggestion lines) and keyword rules (a list of plain words under 16 characters "
        "dropped); written by tools/faultdiag_import.py",
        "left_out": left_out,
        "rules": rules,
    }


def main(kg_file: str, commit: str) -> None:
    try:
        table = convert(json.loads(Path(kg_file).read_text(encoding="utf-8")), commit)
    except (OSError, ValueError, NotAGraph) as why:  # JSONDecodeError is a ValueError
        sys.exit(f"{kg_file}: {why}")
    # the project's one writer: whole or not at all, never over what is not a regular file
    atomic.write_text(OUT, json.dumps(table, ensure_ascii=False, indent=0) + "\n")
    print(f"{len(table['rules'])} rules, {len(table['left_out'])} left out -> {OUT}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
