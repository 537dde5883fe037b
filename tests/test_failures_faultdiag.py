"""Fault-Diag's knowledge graph as a family of the catalogue (knowledge/failures/faultdiag.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tool_module import load_tool

from ampenv.knowledge.failures import MODES, Scanner, explain, faultdiag, scan_lines

LOGS = Path(__file__).parent / "fixtures" / "logs"
TABLE = json.loads(faultdiag.TABLE_FILE.read_text(encoding="utf-8"))
LISTS = [(rid, tuple(kws)) for rid, rule in TABLE["rules"].items() for kws in rule["match"]]


def test_the_table_names_its_source_and_why_each_rule_is_left_out() -> None:
    assert TABLE["source"] == faultdiag.SOURCE
    assert all(why.strip() for why in TABLE["left_out"].values())
    assert not set(TABLE["left_out"]) & set(TABLE["rules"])
    assert len(TABLE["rules"]) > 980


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
    (recorded,) = explain("AISW_CANN_ACL_02")  # "Error logs and ERR MSG are recorded. ..."
    assert recorded.fix == faultdiag.NO_FIX


def test_every_rule_has_a_mode_and_the_modes_read_sensibly() -> None:
    modes = {rid: faultdiag.mode_of(rid, rule) for rid, rule in TABLE["rules"].items()}
    assert set(modes.values()) <= set(MODES)
    assert modes["AISW_CANN_ERRMSG_Custom_04"] == "hccl"  # get socket timeout
    assert modes["0x80E01801"] == "driver"  # HBM multi-bit ECC
    assert modes["AISW_MindSpore_Ascend_Backend_41"] == "device-memory"
    assert modes["AISW_CANN_HCCL_027"] == "hccl"  # its module, though its id's words run on
    # whole words only: "roce" is not in "process", "version" not in "conversion"
    assert modes["AISW_CANN_OS_003"] != "hccl"


def test_the_importer_writes_the_table_it_reads(tmp_path: Path) -> None:
    # tools/faultdiag_import.py from a minimal knowledge graph: kept texts, left-out reasons
    tool = load_tool("faultdiag_import")
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
                "regex": {"in": [["a b", "c d e f g h i j"], ["e f g h i j k l m"]]},
            },
            "R2": {"attribute": {}, "regex": {"regex": "x[0-9]"}},
            "AISW_PyTorch_Train_16": {"attribute": {}, "regex": {"in": ["w"]}},
            # shapes Fault-Diag never writes: each left out as malformed, the rest kept
            "M1": {"attribute": {}, "regex": {"in": ["a", ["b"]]}},
            "M2": {"attribute": {}, "regex": {"in": [[1, 2]]}},
            "M3": {"attribute": {"suggestion_en": "1. do it"}, "regex": {"in": ["x y"]}},
            "M4": {"attribute": None, "regex": {"in": "abc"}},
            "M5": "not a rule",
            "M6": {"attribute": {"cause_en": 3}, "regex": {"in": ["x y"]}},
            # a few plain words read as one fault: dropped, the rule left out with them
            "P1": {"attribute": {}, "regex": {"in": [["alloc", "failed"]]}},
        }
    }
    src, out = tmp_path / "kg.json", tmp_path / "faultdiag.json"
    src.write_text(json.dumps(kg), encoding="utf-8")
    tool.OUT = out
    tool.main(str(src), "0" * 40)
    table = json.loads(out.read_text(encoding="utf-8"))
    assert table["rules"]["R1"]["match"] == [["a b", "c d e f g h i j"], ["e f g h i j k l m"]]
    assert len(table["rules"]["R1"]["description"]) <= tool.TEXT
    assert set(table["rules"]) == {"R1"}
    assert set(table["left_out"]) == {
        "R2",
        "AISW_PyTorch_Train_16",
        "P1",
        *(f"M{i}" for i in range(1, 7)),
    }
    assert "plain words" in table["left_out"]["P1"]
    assert all(table["left_out"][f"M{i}"].startswith("malformed") for i in range(1, 7))
    assert "0" * 40 in table["source"]


@pytest.mark.parametrize("text", ["", "[]", '{"knowledge-repository": []}', "{"])
def test_the_importer_stops_on_what_is_not_a_knowledge_graph(text: str, tmp_path: Path) -> None:
    tool = load_tool("faultdiag_import")
    src, out = tmp_path / "kg.json", tmp_path / "faultdiag.json"
    src.write_text(text, encoding="utf-8")
    tool.OUT = out
    with pytest.raises(SystemExit) as stop:
        tool.main(str(src), "0" * 40)
    assert str(src) in str(stop.value) and not out.exists()


def test_explain_takes_a_rule_id_in_any_case() -> None:
    for query in ("0x80e01801", "fault-diag-aisw_cann_hccl_027", "FAULT-DIAG-AISW_CANN_HCCL_027"):
        (failure,) = explain(query)
        assert failure.family == "fault-diag", query


@pytest.mark.parametrize(
    "line",
    [
        # a framework's rule needs its framework in the text (the red team's cases)
        "ZeroDivisionError: division by zero",  # MindSpore's data pipeline, only there
        "AttributeError: 'NoneType' object has no attribute 'shape'",  # MindSpore's compiler
        "RuntimeError: Worker failed with error 'No such file or directory'",  # Mooncake's
        "OSError: [Errno 98] Address already in use",  # PyTorch's init_process_group
        "torch 2.1.0\nOSError: [Errno 98] Address already in use",  # a pip list is not torch_npu
        # MindIE's EPLB rule (its id names no framework: its log does)
        "multiprocessing.context.AuthenticationError: digest received was wrong",
        # a short keyword stands whole: "yr" is not in "pyrsistent"
        "vllm 0.6.0\nModuleNotFoundError: No module named 'pyrsistent'",
        # a few plain words name no one fault in a text of unknown origin
        "[ERROR] reading /data/ckpt/shard3.bin: I/O error",
        "ERROR: alloc failed",
        # rules left out: words every program prints, read as one program's fault
        "Out of memory: Killed process 4321 (python3) total-vm:1000kB",
        "Out of memory: Kill process 1234 (python) score 900",
        "PrintTaskErrorMsg: Task run failed, stream_id=59, sqe_type=0(ffts), errType=0x1",
        # a JSON record marked info, with no error mark before the rule's words
        '{"level":"info","msg":"mindspore: Sync stream failed, retrying"}',
    ],
)
def test_a_rule_stays_out_of_a_text_not_its_own(line: str) -> None:
    hits = scan_lines(line.split("\n"), "log")
    assert [h.id for h in hits if h.failure.family == "fault-diag"] == []


def test_a_framework_named_in_the_text_lets_its_rules_read() -> None:
    lines = [
        "[INFO] mindspore/dataset/engine/datasets.py: start",
        "ZeroDivisionError: division by zero",
    ]
    assert [h.id for h in scan_lines(lines, "log")] == ["fault-diag-AISW_MindSpore_MindData_12"]


def test_a_device_event_is_a_fault_of_its_own_not_a_follow_up() -> None:
    hits = scan_lines(
        [
            "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total)",
            "[ERROR] DRV(1,x):2024-05-01-10:00:00.000.000 report fault event_id=0x80e01801",
        ],
        "log",
    )
    by_id = {h.id: h for h in hits}
    ecc = by_id["fault-diag-0x80E01801"]
    assert ecc.failure.mode == "driver" and not ecc.also  # a warning with its own fix


def test_a_curated_follow_up_keeps_its_line() -> None:
    # EE9999's follow-up is the catalogue's own reading: Fault-Diag does not add one
    line = "EE9999 rtEventQueryStatus execution failed, reason=aicore timeout"
    assert all(h.failure.family != "fault-diag" for h in scan_lines([line], "log"))


@pytest.mark.parametrize(
    "damage",
    ["", "{", '{"rules": []}', '{"source": "x"}', '{"rules": {"R": {"match": [[1]]}}}'],
)
def test_a_damaged_table_turns_the_family_off_and_nothing_else(
    damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = tmp_path / "faultdiag.json"
    table.write_text(damage, encoding="utf-8")
    monkeypatch.setattr(faultdiag, "TABLE_FILE", table)
    for cached in (faultdiag._table, faultdiag._index, faultdiag._by_folded_id):
        cached.cache_clear()
    faultdiag.rule_failure.cache_clear()
    try:
        assert faultdiag.problem() == ""  # not read yet: nothing asked for it
        assert faultdiag.rule_failure("AISW_CANN_HCCL_027") is None
        assert "cannot be read" in faultdiag.problem()
        line = "[ERROR] HCCP(1,python):2024 ra hdc message process failed ret(-67)"
        assert all(h.failure.family != "fault-diag" for h in scan_lines([line], "plog"))
        assert explain("EI0006")[0].id == "hccl-socket-timeout"
        assert explain("AISW_CANN_HCCL_027") == []
    finally:
        for cached in (faultdiag._table, faultdiag._index, faultdiag._by_folded_id):
            cached.cache_clear()
        faultdiag.rule_failure.cache_clear()


@pytest.mark.parametrize(
    ("query", "rule"),
    [
        ("Event id=0x80e01801", "0x80E01801"),
        ("[ERROR] RUNTIME(1,python): Device lost heartbeat", "AISW_CANN_Runtime_055"),
    ],
)
def test_explain_reads_a_pasted_line_with_no_error_word(query: str, rule: str) -> None:
    assert [f.id for f in explain(query)] == [f"fault-diag-{rule}"]


def test_explain_names_a_recovered_event_as_over() -> None:
    from ampenv.report.explain import failures

    event = (
        "[WARN] switch subscribe got fault:deviceswitch.SwitchFaultEvent{EventType:0x4, "
        'AssembledFaultCode:"[0x00f103b0,155907,na,na]", Assertion:0x?, EventSerialNum:0}'
    )
    (over,) = explain(event.replace("?", "0"))
    (now,) = explain(event.replace("?", "1"))
    assert over.id == now.id == "fault-diag-Comp_Switch_L1_01" and over.ends and not now.ends
    assert "recovery" in failures([over]) and "recovery" not in failures([now])
    # the device plugin's Kubernetes event of the same kind, and a log's lone recovery: nothing
    k8s = (
        "kube-system 8s Normal Recovery pod/ascend-device-plugin-daemonset-910-dlpmv device "
        "fault, nodeName:k8smaster, assertion:Recovery, cardID:2, deviceID:0, faultCodes:80E18402,"
        " faultLevelName:SeparateNPU"
    )
    (ended,) = explain(k8s)
    assert ended.id == "fault-diag-0x80E18402" and ended.ends
    assert scan_lines([k8s, event.replace("?", "0")], "log") == []
    # told as over, then seen again: the fault, as it now stands
    (again,) = explain(f"{k8s}\n{k8s.replace('Recovery', 'Occur')}")
    assert again.id == ended.id and not again.ends


def test_a_framework_s_own_code_names_it_and_a_look_alike_does_not() -> None:
    rule = next(r for r in faultdiag._table()[0] if r.startswith("AISW_MindIE_"))
    assert faultdiag.names(b"[ERROR] [MIE03E400008] [HttpServer] timeout", rule)
    assert not faultdiag.names(b"loading ./data/MIE034_CT/ and MIE05E04", rule)
    assert faultdiag.names(b"MindIE server", rule) and faultdiag.names(b"x", "0x80E01801")


def test_explain_keeps_a_framework_rule_to_its_framework() -> None:
    assert explain("ZeroDivisionError: division by zero") == []


def test_the_logs_check_says_when_the_rules_were_not_read(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    import ampenv

    log = tmp_path / "job.log"
    log.write_text(
        "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB\n"
        "[ERROR] HCCP(1,python):2024 ra hdc message process failed ret(-67)\n",  # asks the rules
        encoding="utf-8",
    )
    # a copy of the package whose table is damaged, run as a user would
    package = tmp_path / "pkg"
    shutil.copytree(Path(ampenv.__file__).parent, package / "ampenv")
    shutil.copytree(Path(ampenv.__file__).parent.parent / "checks", package / "checks")
    (package / "ampenv/knowledge/failures/faultdiag.json").write_text("{", encoding="utf-8")
    env = {"PYTHONPATH": str(package), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    argv = [sys.executable, "-m", "ampenv", "doctor", "-v", "--only", "logs.errors"]
    out = subprocess.run(
        [*argv, "--log", str(log)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=120,
    ).stdout
    assert "npu-out-of-memory" in out and "Fault-Diag's rules were not read" in out


def test_a_framework_named_anywhere_in_its_own_text_whatever_was_read_before() -> None:
    error = b"[rank1]: RuntimeError: trying to initialize the default process group twice!\n"
    named = b'  File "/site-packages/torch_npu/distributed/rendezvous.py", line 3\n'
    for order in (("a", "b"), ("b", "a")):
        scanner = Scanner()
        texts = {"a": error, "b": named + error}  # a names no framework, b names torch_npu
        for name in order:
            scanner.feed_bytes(texts[name], name)
        hits = [h for h in scanner.hits() if h.failure.family == "fault-diag"]
        assert [(h.id, h.texts) for h in hits] == [("fault-diag-AISW_PyTorch_Init_04", ("b",))]
    # named a MiB and more before the line (a scan with a deadline reads it a piece at a time)
    big = b"[WARNING] ME(1,python): mindspore/context.py:1\n" + b"epoch: 1 step: 9, loss\n" * 60000
    scanner = Scanner()
    scanner.feed_bytes(big + b"ZeroDivisionError: division by zero\n", "big", deadline=1e18)
    assert [h.id for h in scanner.hits()] == ["fault-diag-AISW_MindSpore_MindData_12"]


def test_a_text_is_searched_for_a_framework_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # a long log of lines a gated rule reads, with the framework named nowhere: one search of
    # the whole text, not one per line
    import ampenv.knowledge.failures.match as match

    calls = []
    monkeypatch.setattr(match, "names", lambda text, rule: calls.append(rule) or False)
    line = b"[rank1]: RuntimeError: trying to initialize the default process group twice! %d\n"
    scanner = Scanner()
    scanner.feed_bytes(b"".join(line % i for i in range(2000)), "x")
    assert scanner.hits() == [] and len(calls) == 1
