"""Forms a failure's line takes that a red team turned against the scan: CANN's title form of
an E-code, a traceback relayed as one string, the code a finding names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_ampenv

from ampenv.knowledge.failures import scan_lines
from ampenv.knowledge.failures.match import Scanner


def _ids(*lines: str) -> set[str]:
    return {h.id for h in scan_lines(list(lines), "log")}


@pytest.mark.parametrize(
    "line",
    [
        "Model(E12345) loaded successfully",  # a word, not a title of CANN's
        "row 12: =SUM(E10000)",
        "    status = Status(E19999)  # quoted source",
        "part no. Bracket_Part(E00001) in stock",  # a title's shape, a module CANN has not
        "foo(EX1234), bar(EY5678)",
        "alloc block (0x55AE01234) size 3",  # an address whose digits end in E0dddd
    ],
)
def test_bracketed_codes_that_are_no_cann_title_stay_silent(line: str) -> None:
    assert _ids(line) == set()


def test_cann_title_form_is_read_and_a_known_code_of_it_is_its_entry() -> None:
    assert "hccl-port-in-use" in _ids("Communication_Error_Bind_IP_Port(EI0020)")
    assert "cann-e39007" in _ids("Inner_Error_Device_Subprocess_Startup_Timeout(E39007)")
    # the title after the code, as notes copy it: a code of CANN's own table only
    assert _ids("EL0005 Resource_Busy") == {"cann-el0005"}
    assert _ids("E12345 Some_Thing happened") == set()
    assert _ids("EL0005 Resource busy now") == set()  # no title: words of a sentence


def _relayed(path: str) -> str:
    return (
        "Traceback (most recent call last):\\n"
        f'  File "{path}", line 9, in <module>\\n'
        "    import yaml\\n"
        "ModuleNotFoundError: No module named 'yaml'\\n"
    )


def test_a_relayed_traceback_is_read_with_its_own_frame_before_the_launchers() -> None:
    torch_npu = "/usr/lib/python3.10/site-packages/torch_npu/__init__.py"
    lines = [
        "Traceback (most recent call last):",
        '  File "/opt/launcher/run.py", line 40, in <module>',
        "    raise RuntimeError(child.stderr)",
        "RuntimeError: " + repr(_relayed(torch_npu).replace("\\n", "\n")),
    ]
    assert "torch-npu-python-deps" in _ids(*lines)


def test_each_relayed_traceback_is_read_with_the_frame_above_it() -> None:
    app, torch_npu = "/srv/app.py", "/usr/lib/python3.10/site-packages/torch_npu/npu/x.py"
    record = {"msg": _relayed(app).replace("\\n", "\n") + _relayed(torch_npu).replace("\\n", "\n")}
    assert "torch-npu-python-deps" in _ids(json.dumps(record))
    record = {"msg": _relayed(torch_npu).replace("\\n", "\n") + _relayed(app).replace("\\n", "\n")}
    assert "torch-npu-python-deps" in _ids(json.dumps(record))
    # a folder of the user's own named torch_npu is not torch_npu's package
    assert "torch-npu-python-deps" not in _ids(*_relayed("/home/me/torch_npu/t.py").split("\\n"))


def _summary(tmp_path: Path, line: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(line + "\n", encoding="utf-8")
    ran = run_ampenv("doctor", "--only", "logs.errors", "--log", str(log), "-f", "json")
    (check,) = [c for c in json.loads(ran.stdout)["checks"] if c["id"] == "logs.errors"]
    return check["summary"]


def test_a_finding_names_the_code_its_line_shows_as_a_token(tmp_path: Path) -> None:
    # 107001 inside a pid, 0x30 inside an address: not the codes the line shows
    assert _summary(tmp_path, "AssertionError: Invalid device id, pid 1070012").startswith(
        "invalid-device-id:"
    )
    line = "Failed to bind the IP port, see EI0019 and EJ0003 in the plog"
    assert _summary(tmp_path, line).startswith("EI0019 (hccl-port-in-use)")


def _event(code: str, level: str) -> str:
    # the device plugin's event as its documentation prints one (kubectl get events)
    return (
        "kube-system   8s   Warning   Occur   pod/ascend-device-plugin-daemonset-910-dlpmv   "
        f"device fault, nodeName:k8smaster, assertion:Occur, cardID:2, deviceID:0, "
        f"faultCodes:{code}, faultLevelName:{level}, alarmRaisedTime:2023-11-21 05:36:53"
    )


def test_a_device_fault_event_is_named_by_its_rule_and_its_level() -> None:
    (hit,) = scan_lines([_event("80E18402", "SeparateNPU")], "events")
    assert hit.id == "fault-diag-0x80E18402" and "isolated" in hit.failure.fix
    # a code Fault-Diag has no rule for: its level alone; an unknown level and code: nothing
    (hit,) = scan_lines([_event("A8028801", "RestartBusiness")], "events")
    assert hit.id == "device-fault-A8028801" and "run the job again" in hit.failure.fix
    assert scan_lines([_event("A8028801", "Whatever")], "events") == []


def test_a_fault_event_s_recovery_names_no_fault() -> None:
    # the device plugin's event of the fault's end, and a switch event as Fault-Diag's own test
    # log prints its occurrence (Assertion:0x1) and recovery (Assertion:0x0)
    recovery = _event("80E18402", "SeparateNPU").replace("Occur", "Recovery")
    switch = (
        "[WARN]     2024/01/10 03:30:38.643330 17      deviceswitch/ascend_switch.go:190    "
        "switch subscribe got fault:deviceswitch.SwitchFaultEvent{EventType:0x4, FaultID:0xf1ff09,"
        ' AssembledFaultCode:"[0x00f1ff09,155912,npu,na]", PeerPortDevice:0x1, PeerPortId:0x2, '
        "SwitchChipId:0x0, SwitchPortId:0x0, Severity:0x0, Assertion:0x?, EventSerialNum:0, "
        'NotifySerialNum:0, AlarmRaisedTime:0, AdditionalParam:"", AdditionalInfo:""}, '
        "faultCode:[0x00f1ff09,155912,npu,na]"
    )
    occurred, over = switch.replace("?", "1"), switch.replace("?", "0")
    assert scan_lines([recovery], "events") == [] and scan_lines([over], "plugin") == []
    assert [h.id for h in scan_lines([occurred], "plugin")] == ["fault-diag-Comp_Switch_L1_06"]
    # a recovery ends the fault read before it (Fault-Diag drops the event so), not after it
    assert scan_lines([occurred, "ok", over], "plugin") == []
    assert [h.id for h in scan_lines([over, occurred], "plugin")] == [
        "fault-diag-Comp_Switch_L1_06"
    ]
    (hit,) = scan_lines([occurred, over, occurred], "plugin")
    assert hit.count == 1 and hit.first == hit.last == "plugin:3"
    occur = _event("80E18402", "SeparateNPU")
    assert scan_lines([occur, recovery], "events") == []
    assert [h.id for h in scan_lines([recovery, occur], "events")] == ["fault-diag-0x80E18402"]
    # only at its own place: another card's recovery, or another text's, ends nothing here
    elsewhere = recovery.replace("cardID:2", "cardID:5")
    assert [h.id for h in scan_lines([occur, elsewhere], "events")] == ["fault-diag-0x80E18402"]
    scanner = Scanner()
    scanner.feed_lines([occur], "node-a.txt")
    scanner.feed_lines([recovery], "node-b.txt")
    assert [h.id for h in scanner.hits()] == ["fault-diag-0x80E18402"]


def test_cxx_of_another_torch_npu_or_standard_is_read_in_gcc_s_curly_quotes() -> None:
    lines = {
        "op.cpp:12:25: error: \u2018RunOpApiV2\u2019 is not a member of "
        "\u2018at_npu::native::OpCommand\u2019": "torch-npu-api-of-another-release",
        "utils.h:40:10: error: \u2018is_convertible_v\u2019 was not declared in this scope": (
            "cxx-standard-too-old"
        ),
        "AssertionError: tp-2d does not support ascend coc": "mindspeed-ascend-coc-refused",
    }
    for line, entry in lines.items():
        assert [h.id for h in scan_lines([line], "build.log")] == [entry], line
    # std's own members and another library's namespace are no torch_npu release's
    assert scan_lines(["error: 'foo' is not a member of 'mylib::ns'"], "build.log") == []


def test_no_kernel_to_make_a_tensor_on_privateuse1_is_no_operator_gap_of_torch_npu() -> None:
    line = "NotImplementedError: Could not run '{}' with arguments from the 'PrivateUse1' backend."
    # making or copying a tensor is what any backend registers first; c10d's is no operator's
    for op in ("aten::empty.memory_format", "aten::empty_like", "aten::_to_copy", "c10d::send"):
        assert scan_lines([line.format(op)], "t") == [], op
    for op in ("aten::_fft_r2c", "torchvision::nms", "aten::emptyish"):
        assert [h.id for h in scan_lines([line.format(op)], "t")] == ["npu-op-not-implemented"]


def test_the_places_a_fault_is_kept_at_stay_bounded_and_the_rest_never_recover() -> None:
    from ampenv.knowledge.failures.match import EVENT_PLACES

    occurs = [
        _event("80E18402", "SeparateNPU").replace("cardID:2", f"cardID:{i}")
        for i in range(EVENT_PLACES + 50)
    ]
    scanner = Scanner()
    scanner.feed_lines(occurs, "events")
    assert len(scanner._found["fault-diag-0x80E18402"].events) == EVENT_PLACES + 1
    scanner.feed_lines([line.replace("Occur", "Recovery") for line in occurs], "events")
    assert [h.id for h in scanner.hits()] == ["fault-diag-0x80E18402"]


def test_a_missing_distribution_is_read_with_the_versions_it_is_required_at() -> None:
    for requirement in ("protobuf", "prompt-toolkit<2.0.0,>=1.0.0", "supervisor==3.3.1"):
        line = (
            f"pkg_resources.DistributionNotFound: The '{requirement}' distribution was not found "
            "and is required by the application"
        )
        assert [h.id for h in scan_lines([line], "t")] == ["python-distribution-missing"]
