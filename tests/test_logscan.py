"""Known error signatures in logs: real captured text finds its signature, and reading is
bounded (the tail of each file, recent plogs only)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from cachenode import age
from conftest import FIXTURES

from ampenv.probe import Probe, tail
from ampenv.probe import logs as logscan

LOGS = FIXTURES / "logs"

# Each real capture and the signatures it must show, no more and no fewer.
CAPTURES = [
    ("plog_aicore_args_troubleshooting_doc.txt", set()),
    ("vllm-ascend-4972_aicore_timeout.txt", {"507014"}),
    ("vllm-ascend-486_hccl_EI0006.txt", {"EI0006"}),
    ("vllm-ascend-382_hccl_watchdog_timeout.txt", {"hccl-timeout"}),
    ("lmdeploy-3354_hccl_fftsplus_timeout.txt", {"hccl-timeout"}),
    ("llamafactory-5347_EE9999_hccl_fftsplus.txt", {"EE9999", "hccl-timeout"}),
    ("ascend-pytorch-48_EE1002_507046.txt", {"stream-sync-timeout"}),
    ("ascend-pytorch-7_EH9999_init_env.txt", {"init-env-failed"}),
    # "507018/507046/507901": the cascade does contain a stream-sync timeout code
    ("simpler-890_507899.txt", {"507899", "stream-sync-timeout"}),
    ("touchnet-100_npu_oom.txt", {"out-of-memory"}),
    ("svn_E155009_wc_db_work_queue.txt", {"wc-db-work-queue"}),
]


@pytest.mark.parametrize(("name", "expected"), CAPTURES)
def test_a_real_capture_shows_its_signatures(name: str, expected: set[str]) -> None:
    text = (LOGS / name).read_text()
    hits = logscan.match(text, name, 0.0)
    assert {h.signature.id for h in hits} == expected
    for hit in hits:  # the line shown is the one that matched, from the capture itself
        assert hit.line in text
        assert hit.signature.regex.search(hit.line)


# The strings ascend-facts.md quotes, one per line, with the signature each must show.
QUOTED = [
    {"507033"},
    {"EL0004"},
    {"507033"},
    {"EZ9999", "507014"},
    {"vector-core"},
    {"507015"},
    {"bf16-on-910a"},
    {"dcmi-device-used"},
]


def test_every_string_the_reference_quotes_shows_its_signature() -> None:
    lines = (LOGS / "ascend-facts_section6_quoted.txt").read_text().splitlines()
    assert len(lines) == len(QUOTED)
    for line, expected in zip(lines, QUOTED):
        assert {h.signature.id for h in logscan.match(line, "q", 0.0)} == expected, line


def test_a_line_naming_an_error_twice_is_one_event() -> None:
    quoted = (LOGS / "ascend-facts_section6_quoted.txt").read_text().splitlines()[1]
    assert "EL0004" in quoted and "Memory_Allocation_Failure" in quoted
    (hit,) = logscan.match(f"{quoted}\nother\n{quoted}\n", "x", 0.0)
    assert (hit.signature.id, hit.count, hit.line) == ("EL0004", 2, quoted)


@pytest.mark.parametrize(
    "line",
    [
        # the plog line format of the troubleshooting doc, with the code's digits as pid and
        # thread id: a code regex must not take them for an error code
        "[ERROR] RUNTIME(507033,python):2024-04-19-18:13:17.186.318 [task_info.cc:1678]507899 x",
        "device_id=0, task_id=5070330, hash=10612039229658031084",
    ],
)
def test_digits_of_a_pid_or_a_longer_number_are_not_an_error_code(line: str) -> None:
    assert logscan.match(line, "x", 0.0) == []


def test_the_table_is_complete() -> None:
    ids = [s.id for s in logscan.SIGNATURES]
    assert len(ids) == len(set(ids))
    for sig in logscan.SIGNATURES:
        assert sig.meaning and sig.remedy and sig.source, sig.id
        assert isinstance(sig.regex, re.Pattern)
    named = {"wc-db-work-queue", "EZ9999", "EE9999", "E39999", "EL0004", "507014", "507015"}
    named |= {"507033", "507899", "hccl-timeout", "out-of-memory"}
    assert named <= set(ids)
    clears = {s.id for s in logscan.SIGNATURES if s.clears_cache}
    assert clears == {"wc-db-work-queue", "op-compile-failed"}


def _plant_plog(root: Path, rel: str, text: str, days: float = 0.0) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    age(path, days)
    return path


def test_plogs_are_found_in_every_layout_and_only_recent_ones(tmp_path: Path) -> None:
    error = (LOGS / "vllm-ascend-4972_aicore_timeout.txt").read_text()
    log = tmp_path / "home/u/ascend/log"
    _plant_plog(log, "plog/plog-1_1.log", error)
    _plant_plog(log, "debug/plog/plog-2_1.log", error)
    _plant_plog(log, "run/plog/plog-3_1.log", error, days=30)  # too old
    _plant_plog(log, "debug/device-0/device-4_1.log", error)  # not a plog
    probe = Probe(sysroot=str(tmp_path), env={})

    found = logscan.recent_plogs(probe, ["/home/u/ascend/log"], 7.0, time.time())

    assert sorted(found) == [
        "/home/u/ascend/log/debug/plog/plog-2_1.log",
        "/home/u/ascend/log/plog/plog-1_1.log",
    ]


def test_only_the_tail_of_a_log_is_read(tmp_path: Path) -> None:
    error = (LOGS / "svn_E155009_wc_db_work_queue.txt").read_text()
    filler = "[INFO] GE(1,python):2025-01-01-00:00:00.000.000 nothing to see here\n" * 20000
    head = _plant_plog(tmp_path, "log/plog/plog-1_1.log", error + filler)
    _plant_plog(tmp_path, "log/plog/plog-2_1.log", filler + error)
    assert head.stat().st_size > 1 << 20
    probe = Probe(sysroot=str(tmp_path), env={})

    scan = logscan.scan(probe, ["/log"], [], tail_mb=1.0, max_age_days=7.0)

    # system paths, as the node names them (not the sysroot's)
    assert sorted(scan.files) == ["/log/plog/plog-1_1.log", "/log/plog/plog-2_1.log"]
    assert [h.path for h in scan.hits] == ["/log/plog/plog-2_1.log"]


def test_read_tail_starts_at_a_whole_line(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_text("first line\nsecond line\nthird\n")
    assert tail(str(path), 12) == "third\n"
    assert tail(str(path), 1000) == "first line\nsecond line\nthird\n"


def test_a_named_log_is_read_whatever_its_age_and_an_unreadable_one_is_reported(
    tmp_path: Path,
) -> None:
    named = _plant_plog(tmp_path, "job.out", (LOGS / "touchnet-100_npu_oom.txt").read_text(), 400)
    missing = tmp_path / "no-such.log"
    probe = Probe(sysroot=str(tmp_path), env={})

    scan = logscan.scan(probe, [], [str(named), str(missing)])

    assert [(h.signature.id, h.path) for h in scan.hits] == [("out-of-memory", str(named))]
    assert scan.unreadable == [(str(missing), os.strerror(2))]


def test_the_newest_plogs_are_read_first_and_their_number_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logscan, "MAX_FILES", 2)
    for i, days in enumerate((3, 1, 2)):
        _plant_plog(tmp_path, f"log/plog/plog-{i}_1.log", "x\n", days)
    probe = Probe(sysroot=str(tmp_path), env={})
    found = logscan.recent_plogs(probe, ["/log"], 7.0, time.time())
    assert found == ["/log/plog/plog-1_1.log", "/log/plog/plog-2_1.log"]


def test_every_match_lies_on_a_line_with_a_hint() -> None:
    """The hints only skip lines on which the regex could not match."""
    lines = [ln for f in sorted(LOGS.iterdir()) for ln in f.read_text().splitlines()]
    for sig in logscan.SIGNATURES:
        assert sig.hints and all(h == h.lower() for h in sig.hints), sig.id
        for line in lines:
            if sig.regex.search(line):
                assert any(h in line.lower() for h in sig.hints), (sig.id, line)


def test_reading_stops_when_the_time_budget_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logscan, "BUDGET_S", -1.0)
    _plant_plog(tmp_path, "log/plog/plog-1_1.log", (LOGS / "touchnet-100_npu_oom.txt").read_text())
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), ["/log"], [])
    assert (scan.unread, scan.files, scan.hits) == (1, [], [])
