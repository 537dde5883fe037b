"""GE's status numbers: the table built from GE's headers, decoding them in logs and in
`ampenv explain`."""

from __future__ import annotations

import re

from tool_module import load_tool

from ampenv.knowledge.failures import explain, ge_status, nearest, scan_lines

statuses = load_tool("ge_status_import").statuses

# Lines of GE's header as published (hicann/ge ge_inner_error_codes.h), whose comments give the
# number each macro makes: the import's arithmetic is held to GE's own.
HEADER = """
GE_ERRORNO_COMMON(MEMALLOC_FAILED, 0, "Failed to allocate memory!");  // 1343225856
GE_ERRORNO_CLIENT(GE_CLI_SESS_ADD_GRAPH_FAILED, 6,
                  "Session AddGraph Failed converting protobuf GraphProto.");    // 1343229958
GE_ERRORNO_GRAPH(GE_GRAPH_INFERSHAPE_FAILED, 30, "Prepare Graph infershape failed");  // 1343242270
GE_ERRORNO_OPS(GE_OPS_ENGINE_IS_NOT_REGISTERED, 8, "Engine is not registered.");  // 1343250440
GE_ERRORNO_EXTERNAL(END_OF_SEQUENCE, "End of sequence!");             // 1343225863
"""


def test_import_computes_the_numbers_ge_comments_give() -> None:
    found = statuses(HEADER)
    expected = {m.group(1) for m in re.finditer(r"// (\d+)", HEADER)} - {"1343225863"}
    assert set(found) == expected  # a macro without a value (EXTERNAL) is left out
    assert found["1343229958"][0] == "GE_CLI_SESS_ADD_GRAPH_FAILED"  # a macro over two lines


def test_table_decodes_the_statuses_logs_print() -> None:
    for code, name in (
        ("1343225857", "PARAM_INVALID"),  # from the older header only
        ("1343225860", "INTERNAL_ERROR"),
        ("1343266818", "GE_GENERATOR_GRAPH_MANAGER_ADD_GRAPH_FAILED"),
    ):
        found = ge_status.decode(code)
        assert found is not None and found.meaning.startswith(name)
        assert found.rank == ge_status.GENERIC and found.family == ge_status.FAMILY
    memory = ge_status.decode("1343225856")  # MEMALLOC_FAILED
    assert memory is not None and memory.mode == "device-memory"
    assert ge_status.decode("1343225999") is None


def _ids(*lines: str) -> set[str]:
    return {h.id for h in scan_lines(list(lines), "log")}


def test_bare_status_is_decoded_where_a_program_prints_it() -> None:
    assert "ge-status-1343225857" in _ids(
        "[Compile][Graph]Compile graph failed, error code:1343225857, session_id:0, graph_id:0."
    )
    assert "ge-status-1343266818" in _ids(
        "[ERROR:0@5.412] global net_cann.cpp:291 compileCannGraph CANN graph check failed, "
        "ret = 1343266818"
    )


def test_ge_own_words_a_number_no_table_names_and_info_lines_stay_as_they_are() -> None:
    ge_line = (
        "[ERROR] GE(11393,atc.bin):2021-04-01-21:34:22.057.937 [infershape_pass.cc:41]11393 "
        "Run: ErrorNo: 1343242270(Prepare Graph infershape failed) [COMP][PRE_OPT]"
    )
    assert not any(i.startswith("ge-status-") for i in _ids(ge_line))
    assert _ids("error code: 1343225999") == set()
    info = "[INFO] GE(1,python):2024-01-01-00:00:00.000.000 [g.cc:1]1 Run: ret = 1343225857"
    assert _ids(info) == set()


def test_explain_takes_a_status_and_suggests_near_ones() -> None:
    (found,) = explain("1343242270")
    assert found.id == "ge-status-1343242270"
    assert explain(found.id)[0].id == found.id
    assert explain("1343225999") == []
    assert "1343225957" in nearest("1343225999")
