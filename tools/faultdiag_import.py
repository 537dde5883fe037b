"""Write ampenv's copy of Fault-Diag's knowledge graph (ampenv/knowledge/failures/faultdiag.json).

Fault-Diag (Ascend/mind-cluster, component/ascend-faultdiag, Apache-2.0) ships the fault
knowledge Huawei's own diagnosis tool matches logs against: per fault, the keywords that show it
in a log and its cause, description and suggestion in Chinese and English. The copy keeps the
English texts and the keyword rules ("in": keywords found in order on one line; a list of such
lists: any of them), nothing else.

    KG=component/ascend-faultdiag/src/ascend_fd/configuration/kg-config.json
    git -C MIND_CLUSTER show COMMIT:$KG > kg.json
    python tools/faultdiag_import.py kg.json COMMIT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

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
}
# Logs whose rules read words every program prints as that program's own faults.
LEFT_OUT_LOGS = {
    "CANN_Amct": "the model compression tool's own log: its rules read generic words ('does "
    "not support', 'is not found in graph') as faults of its quantization configuration",
}


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TEXT else text[: TEXT - 3].rstrip() + "..."


def _groups(regex: dict) -> list[list[str]]:
    """The keyword conjunctions of a rule: its "in" and each "opt"'s "in"."""
    out = []
    for conf in (regex, *(regex.get("opt") or [])):
        ins = conf.get("in") or []
        out += [ins] if ins and isinstance(ins[0], str) else [g for g in ins if g]
    return [[k for k in group if k] for group in out if any(group)]


def _why_not(regex: dict) -> str:
    if regex.get("regex"):
        return (
            f"a regular expression ({regex['regex']}), not imported (CANN's E-codes and "
            "torch_npu's ERR codes are ampenv's own code families)"
        )
    if regex.get("opt"):
        return 'keywords over a window of lines ("all"): ampenv reads one line at a time'
    return "no rule of its own: Fault-Diag infers it from the faults it links to"


def main(kg_file: str, commit: str) -> None:
    repository = json.loads(Path(kg_file).read_text(encoding="utf-8"))["knowledge-repository"]
    rules, left_out = {}, {k: why for k, why in LEFT_OUT.items() if k in repository}
    for rule_id, entry in sorted(repository.items()):
        match = _groups(entry.get("regex") or {})
        if rule_id in LEFT_OUT:
            continue
        if entry.get("source_file") in LEFT_OUT_LOGS:
            left_out[rule_id] = LEFT_OUT_LOGS[entry["source_file"]]
            continue
        if not match:
            left_out[rule_id] = _why_not(entry.get("regex") or {})
            continue
        attr = entry["attribute"]
        suggestion = [_cut(s) for s in attr.get("suggestion_en") or [] if s.strip()]
        rules[rule_id] = {
            "component": attr.get("component", ""),
            "module": attr.get("module", ""),
            "log": entry.get("source_file", ""),
            "cause": _cut(attr.get("cause_en", "")),
            "description": _cut(attr.get("description_en", "")),
            "suggestion": suggestion[:SUGGESTIONS],
            "match": match,
        }
    out = {
        "source": f"Ascend/mind-cluster {PATH}@{commit} (Apache-2.0)",
        "note": "Fault-Diag's knowledge graph: English texts (cut at 300 characters, six "
        "suggestion lines) and keyword rules; written by tools/faultdiag_import.py",
        "left_out": left_out,
        "rules": rules,
    }
    OUT.write_text(json.dumps(out, ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"{len(rules)} rules, {len(left_out)} left out -> {OUT}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
