"""The npu-smi parsers against every copied real capture, and against mangled versions of them."""

from __future__ import annotations

import json
import re

import pytest
from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ampenv.knowledge.failures import scan_lines
from ampenv.probe.npusmi import parse_fields, parse_health, parse_info

SMI = FIXTURES / "npu-smi"
TABLES = sorted(p.name for p in SMI.glob("*.txt") if not p.name.startswith(("board", "health")))


def table(name: str):
    return parse_info((SMI / name).read_text())


def column(chips, key):
    return [getattr(c, key) for c in chips]


def test_910b2_eight_idle_chips_with_five_digit_hbm_pairs():
    t = table("910b2_8dev_idle_23.0.7.txt")
    assert (t.tool_version, t.driver_version) == ("23.0.7", "23.0.7")
    assert column(t.chips, "npu") == list(range(8))
    assert set(column(t.chips, "chip")) == {0}
    assert set(column(t.chips, "name")) == {"910B2"}
    assert set(column(t.chips, "health")) == {"OK"}
    assert column(t.chips, "phy_id") == [None] * 8  # this layout has no Phy-ID column
    # `29954/ 65536`: the used value touches the slash when it has five digits
    assert column(t.chips, "hbm_used_mb") == [29954, 29951, 29950, 29951, 3347, 3350, 3347, 3347]
    assert set(column(t.chips, "hbm_total_mb")) == {65536}
    assert set(column(t.chips, "memory_used_mb")) == {0}
    assert set(column(t.chips, "memory_total_mb")) == {0}
    assert column(t.chips, "power_w") == [96.5, 98.7, 94.2, 91.5, 96.6, 96.0, 97.5, 93.8]
    assert column(t.chips, "temp_c") == [36, 37, 35, 38, 36, 39, 35, 37]
    assert column(t.chips, "bus_id")[:2] == ["0000:C1:00.0", "0000:01:00.0"]
    assert t.processes == []


def test_910a_tool_version_differs_from_driver_and_eight_processes():
    t = table("910a_8dev_8procs_23.0.rc3_doc.txt")
    assert (t.tool_version, t.driver_version) == ("23.0.rc3", "23.0.rc2.3")
    assert len(t.chips) == 8
    assert set(column(t.chips, "name")) == {"xxx"}  # redacted in the documentation
    assert set(column(t.chips, "health")) == {"OK"}
    assert column(t.chips, "memory_used_mb") == [4565, 4483, 4437, 3845, 4296, 3758, 4581, 4690]
    assert column(t.chips, "memory_total_mb") == [15137] * 3 + [15039] + [15137] * 3 + [15039]
    assert column(t.chips, "hbm_used_mb") == [30710] * 3 + [30709] * 3 + [30710] * 2
    assert set(column(t.chips, "hbm_total_mb")) == {32768}
    assert [p.to_fact() for p in t.processes[:2]] == [
        {"npu": 0, "chip": 0, "pid": 139667, "name": "python", "memory_mb": 30780},
        {"npu": 1, "chip": 0, "pid": 139577, "name": "python", "memory_mb": 30782},
    ]
    assert column(t.processes, "npu") == list(range(8))
    assert column(t.processes, "pid") == [
        139667,
        139577,
        139446,
        139372,
        139258,
        139163,
        139126,
        139090,
    ]


def test_a3_two_chips_per_npu_with_phy_id_and_a_process_on_the_second_chip():
    t = table("a3_ascend910_2npu4chip_procs_25.2.0.txt")
    assert t.driver_version == "25.2.0"
    assert [(c.npu, c.chip, c.phy_id) for c in t.chips] == [
        (0, 0, 0),
        (0, 1, 1),
        (1, 0, 2),
        (1, 1, 3),
    ]
    assert set(column(t.chips, "name")) == {"Ascend910"}
    assert set(column(t.chips, "health")) == {"OK"}
    assert column(t.chips, "power_w") == [162.8, None, 167.1, None]  # `-` on the second chip
    assert column(t.chips, "hbm_used_mb") == [3133, 2876, 3116, 10568]
    assert set(column(t.chips, "hbm_total_mb")) == {65536}
    assert column(t.chips, "bus_id") == [
        "0000:9C:00.0",
        "0000:9E:00.0",
        "0000:37:00.0",
        "0000:39:00.0",
    ]
    assert [p.to_fact() for p in t.processes] == [
        {"npu": 1, "chip": 1, "pid": 990711, "name": "python", "memory_mb": 7746}
    ]


def test_310b4_has_no_hbm_column_and_bus_id_na():
    t = table("310b4_orangepi_23.0.rc3.txt")
    assert t.driver_version == "23.0.rc3"
    [chip] = t.chips
    assert chip.to_fact() == {
        "npu": 0,
        "chip": 0,
        "phy_id": 0,  # the `Device` column
        "name": "310B4",
        "health": "OK",
        "bus_id": None,  # NA
        "power_w": 7.2,
        "temp_c": 37,
        "aicore_pct": 0,
        "memory_used_mb": 1797,
        "memory_total_mb": 3513,
        "hbm_used_mb": None,
        "hbm_total_mb": None,
    }
    assert t.processes == []


def test_26x_wide_layout():
    t = table("910b4_1dev_idle_26.0.rc1_newformat.txt")
    assert (t.tool_version, t.driver_version) == ("26.0.rc1", "26.0.rc1")
    [chip] = t.chips
    assert (chip.name, chip.health, chip.power_w, chip.temp_c) == ("910B4", "OK", 82.6, 32)
    assert (chip.hbm_used_mb, chip.hbm_total_mb) == (2871, 32768)
    assert (chip.memory_used_mb, chip.memory_total_mb) == (0, 0)
    assert t.processes == []


def test_26x_process_table_extra_column_maps_by_header():
    """The 26.x capture stops at "No running processes"; this appends one process row in the
    width of its own header (values written here, not captured) to show the mapping."""
    text = (SMI / "910b4_1dev_idle_26.0.rc1_newformat.txt").read_text()
    row = "| 0       0                 | 4242          | python3            | 2048                  | 77                      |\n"  # noqa: E501
    [holder] = parse_info(text + row).processes
    assert (holder.npu, holder.chip, holder.pid, holder.name) == (0, 0, 4242, "python3")
    assert (holder.memory_mb, holder.container_pid) == (2048, 77)


def test_unseen_column_and_wider_cells_change_nothing():
    """An extra column in the header (and its values), and every cell padded wider."""
    text = (SMI / "910b2_8dev_idle_23.0.7.txt").read_text()
    widened = text.replace("Hugepages-Usage(page)", "Hugepages-Usage(page)  Fan(RPM)")
    widened = re.sub(r"(\| \d+\s+910B2 .*?/ 0)(\s+\|)", r"\1   5500\2", widened)
    widened = widened.replace("|", "    |")
    assert widened.count("5500") == 8
    assert parse_info(widened) == parse_info(text)


def test_every_copied_table_parses():
    assert len(TABLES) == 5
    for name in TABLES:
        t = table(name)
        assert t.chips and t.driver_version, name
        assert all(c.health == "OK" for c in t.chips), name


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("health_c0_ok_doc.txt", ("OK", None, None)),
        ("health_c0_ok_doc_200IA2.txt", ("OK", None, None)),
        ("health_all_chips_doc_200IA2.txt", ("OK", None, None)),
        (
            "health_c0_warning_SYNTHETIC_fixture.txt",
            ("Warning", "80E01801", "node type=SOC, sensor type=Temperature"),
        ),
    ],
)
def test_health_pages(name, expected):
    detail = parse_health((SMI / name).read_text())
    assert (detail.status, detail.error_code, detail.error_info) == expected


def test_board_pages_give_versions():
    b = parse_fields((SMI / "board_910b_IT21HMDC_Bin5_25.5.1.txt").read_text())
    assert (b["Software Version"], b["Firmware Version"], b["Compatibility"]) == (
        "25.5.1",
        "7.8.0.6.201",
        "OK",
    )
    assert b["PCIe Bus Info"] == "0000:C1:00.0"  # values keep their own colons
    a = parse_fields((SMI / "board_910a_23.0.5_doc.txt").read_text())
    assert (a["Firmware Version"], a["PCI Device ID"]) == ("7.1.0.7.220", "0xD801")


def test_npu_smi_errors_are_read_by_the_one_catalogue():
    said = "dcmi model initialized failed, because the device is used. ret is -8020\n"
    (known,) = scan_lines(said.splitlines(), "npu-smi")
    assert known.id == "dcmi-device-in-use" and "another container" in known.failure.meaning
    other = scan_lines(
        ["DrvMngGetConsoleLogLevel failed. dcmi module initialize failed. ret is -8005"], "x"
    )
    assert [h.id for h in other] == ["dcmi-init-failed"]
    assert scan_lines(["everything is fine"], "x") == []


# -- mangled real outputs ------------------------------------------------------------------------
ALL_TEXTS = [p.read_text() for p in sorted(SMI.glob("*.txt"))]
NOISE = st.text(alphabet=st.sampled_from("|+-=/ .:0123456789NAOKxX\t\n²٣é"), max_size=12)


@st.composite
def mangled(draw) -> str:
    text = draw(st.sampled_from(ALL_TEXTS))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["cut", "insert", "replace", "drop_line", "dup_line", "trunc"]))
        lines = text.splitlines(keepends=True)
        i = draw(st.integers(0, max(0, len(text) - 1)))
        j = draw(st.integers(i, min(len(text), i + 40)))
        if op == "cut":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(NOISE) + text[i:]
        elif op == "replace":
            text = text[:i] + draw(NOISE) + text[j:]
        elif op == "trunc":
            text = text[:i]
        elif lines:
            k = draw(st.integers(0, len(lines) - 1))
            lines[k : k + 1] = [] if op == "drop_line" else [lines[k], lines[k]]
            text = "".join(lines)
    return text


def test_a_blank_header_cell_leaves_its_column_unread():
    text = (
        "| NPU   Name                |        | Power(W)    Temp(C)      |\n"
        "| Chip                      | Bus-Id        | AICore(%)         |\n"
        "+===========================+===============+===================+\n"
        "| 0     910B2               | OK            | 96.5        36    |\n"
        "| 0                         | 0000:C1:00.0  | 0                 |\n"
    )
    (chip,) = parse_info(text).chips
    assert (chip.npu, chip.name, chip.health, chip.bus_id) == (0, "910B2", None, "0000:C1:00.0")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mangled())
def test_mangled_outputs_never_raise(text):
    t = parse_info(text)
    # Whatever survives must still be valid JSON facts (no NaN, no odd types).
    json.dumps([c.to_fact() for c in t.chips] + [p.to_fact() for p in t.processes], allow_nan=False)
    parse_fields(text)
    parse_health(text)
    scan_lines(text.splitlines(), "npu-smi")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_arbitrary_text_never_raises(text):
    parse_info(text)
    parse_health(text)
