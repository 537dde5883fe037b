"""Fault-Diag's knowledge graph as a family of the catalogue (knowledge/failures/faultdiag.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ampenv.knowledge.failures import MODES, explain, faultdiag, scan_lines

LOGS = Path(__file__).parent / "fixtures" / "logs"
TABLE = json.loads(faultdiag.TABLE_FILE.read_text(encoding="utf-8"))
LISTS = [(rid, tuple(kws)) for rid, rule in TABLE["rules"].items() for kws in rule["match"]]


def test_the_table_names_its_source_and_why_each_rule_is_left_out() -> None:
    assert TABLE["source"] == faultdiag.SOURCE
    assert all(why.strip() for why in TABLE["left_out"].values())
    assert not set(TABLE["left_out"]) & set(TABLE["rules"])
    assert len(TABLE["rules"]) > 1000


def test_every_rule_is_found_by_its_own_keywords() -> None:
    _, indexed = faultdiag._index()
    assert indexed == len(LISTS)
    missed = [
        (rid, kws)
        for rid, kws in LISTS
        if rid not in {r for r, _, _ in faultdiag.read(" " + " ".join(kws) + " ")}
    ]
    assert missed == []


def _lines() -> list[str]:
    return [
        line
        for path in sorted(LOGS.rglob("*.txt"))
        for line in path.read_text(encoding="utf-8", errors="replace").split("\n")
    ]


def test_the_index_reads_what_fault_diag_reads_but_edge_words_whole() -> None:
    # Fault-Diag finds each keyword in order as a substring. The index finds a rule by one word:
    # one inside a keyword stands whole in any line that holds the keyword; a word at a
    # keyword's edge must stand whole too, which is the one difference ("alloc" of the UB's
    # "alloc ... failed" rule is not read in "rtMalloc failed").
    lines = _lines()
    assert len(lines) > 20000
    word = re.compile(r"\w+", re.ASCII)
    for line in lines:
        read = {rid for rid, _, _ in faultdiag.read(line)}
        words = set(word.findall(line))
        for rid, kws in LISTS:
            if faultdiag._in_order(kws, line) is None:
                assert rid not in read or any(
                    faultdiag._in_order(k, line) for r, k in LISTS if r == rid
                )
                continue
            if rid not in read:
                edges = {w for kw in kws for w in faultdiag._words(kw, False)}
                assert edges - words, (rid, kws, line)


def test_a_rule_reads_a_line_nothing_else_explains() -> None:
    line = (
        "[ERROR] HCCP(4321,python):2024-05-01-10:00:00.123.456 [ra_hdc.c:88]"
        "ra hdc message process failed ret(-67) phy_id(0)"
    )
    hits = scan_lines([line], "plog")
    assert [h.id for h in hits] == ["fault-diag-AISW_CANN_ERRMSG_Custom_06"]
    (hit,) = hits
    assert hit.failure.family == "fault-diag" and hit.failure.mode == "hccl"
    assert "hccn_tool" in hit.failure.fix and "DOWN" in hit.failure.meaning
    assert hit.failure.sources[0].weight == "official"


def test_a_line_the_catalogue_explains_is_not_read_again() -> None:
    # torch_npu's OOM line is npu-out-of-memory; Fault-Diag's "out of memory" rule stays out
    line = "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total)"
    assert [h.id for h in scan_lines([line], "log")] == ["npu-out-of-memory"]


def test_a_quiet_line_is_not_read() -> None:
    line = "[INFO] HCCP(4321,python): retry after ra hdc message process failed ret(-67)"
    assert scan_lines([line], "plog") == []
    assert [h.id for h in scan_lines([line], "q", heed_levels=False)] == [
        "fault-diag-AISW_CANN_ERRMSG_Custom_06"
    ]


def test_next_to_a_known_failure_a_rule_is_a_follow_up() -> None:
    # vllm-ascend's Ray worker (held-out set 3): the traceback's _npu_setDevice line is
    # Fault-Diag's "Failed to call torch.npu.set_device", after the 107001 that says why
    prefix = "(RayWorkerWrapper pid=120292) ERROR 02-26 15:54:06 worker_base.py:574] "
    hits = scan_lines(
        [
            prefix + "    torch_npu._C._npu_setDevice(device_id)",
            prefix + "RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts"
            ":217 NPU function error: c10_npu::SetDevice(device_id_), error code is 107001",
        ],
        "log",
    )
    assert [h.id for h in hits] == ["invalid-device-id", "fault-diag-AISW_PyTorch_Init_02"]
    assert hits[-1].also == ("invalid-device-id",)  # a follow-up: the specific cause is named


@pytest.mark.parametrize(
    ("query", "cause"),
    [
        ("fault-diag-AISW_CANN_HCCL_027", "HCCL"),
        ("AISW_CANN_ERRMSG_Custom_04", "Socket connection setup timeout"),
    ],
)
def test_explain_a_rule_by_its_id(query: str, cause: str) -> None:
    (failure,) = explain(query)
    assert cause in failure.meaning or cause in failure.causes[0]


def test_a_suggestion_that_only_sends_elsewhere_is_no_fix() -> None:
    (failure,) = explain("AISW_MindIE_MS_HttpServer_02")  # "1. Contact technical support."
    assert failure.fix == faultdiag.NO_FIX


def test_every_rule_has_a_mode_and_the_modes_read_sensibly() -> None:
    modes = {rid: faultdiag.mode_of(rid, rule) for rid, rule in TABLE["rules"].items()}
    assert set(modes.values()) <= set(MODES)
    assert modes["AISW_CANN_ERRMSG_Custom_04"] == "hccl"  # get socket timeout
    assert modes["0x80E01801"] == "driver"  # HBM multi-bit ECC
    assert modes["AISW_Framework_Custom_01"] == "device-memory"


def test_the_importer_writes_the_table_it_reads(tmp_path: Path) -> None:
    # tools/faultdiag_import.py from a minimal knowledge graph: kept texts, left-out reasons
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "faultdiag_import", Path(__file__).parent.parent / "tools" / "faultdiag_import.py"
    )
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    kg = {
        "knowledge-repository": {
            "R1": {
                "attribute": {
                    "cause_en": "c",
                    "description_en": "d " * 400,
                    "suggestion_en": ["1. do x"],
                    "component": "CANN",
                },
                "source_file": "TrainLog",
                "regex": {"in": [["a b", "c"], ["e f"]]},
            },
            "R2": {"attribute": {}, "regex": {"regex": "x[0-9]"}},
            "AISW_PyTorch_Train_16": {"attribute": {}, "regex": {"in": ["w"]}},
        }
    }
    src, out = tmp_path / "kg.json", tmp_path / "faultdiag.json"
    src.write_text(json.dumps(kg), encoding="utf-8")
    tool.OUT = out
    tool.main(str(src), "0" * 40)
    table = json.loads(out.read_text(encoding="utf-8"))
    assert table["rules"]["R1"]["match"] == [["a b", "c"], ["e f"]]
    assert len(table["rules"]["R1"]["description"]) <= tool.TEXT
    assert set(table["left_out"]) == {"R2", "AISW_PyTorch_Train_16"}
    assert "0" * 40 in table["source"]
