"""Reading logs for the failure catalogue: recent plogs in every layout, the tail of each
file only, named logs whatever their age (plain, gzip, stdin), nothing but regular files, and
one aggregated hit per failure across files."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cachenode import age
from conftest import FIXTURES, REPO
from conftest import logs_errors as _logs_errors

from ampenv.probe import Probe, tail
from ampenv.probe import logs as logscan

LOGS = FIXTURES / "logs"
EI0006 = next(
    line
    for line in (LOGS / "vllm-ascend-486_hccl_EI0006.txt").read_text().splitlines()
    if "EI0006" in line
)


# The strings ascend-facts.md quotes, one per line, and the failure each must show.
QUOTED = [
    {"device-setup-failed"},
    {"device-memory-held"},
    {"device-setup-failed"},
    {"aicore-timeout", "inner-error-EZ9999"},
    {"vector-core-fault"},
    {"aicore-exception"},
    {"dtype-bf16-unsupported"},
    {"dcmi-device-in-use"},
]


def _ids(text: str) -> set[str]:
    from ampenv.knowledge.failures import scan_lines

    return {h.id for h in scan_lines(text.splitlines(), "q")}


def test_every_string_the_reference_quotes_shows_its_failure() -> None:
    lines = (LOGS / "ascend-facts_section6_quoted.txt").read_text().splitlines()
    assert len(lines) == len(QUOTED)
    for line, expected in zip(lines, QUOTED):
        assert _ids(line) == expected, line


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
    # (an ERROR line of the runtime is still one: the module's finding, with no code)
    assert _ids(line) - {"plog-runtime"} == set()


def _plant_plog(root: Path, rel: str, text: str, days: float = 0.0) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    age(path, days)
    return path


def _logs_errors_of(log: Path) -> dict:
    """logs.errors' result (JSON) for the file ``log``, named as a user names it."""
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "logs.errors",
         "--log", str(log), "-f", "json"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    return next(c for c in json.loads(ran.stdout)["checks"] if c["id"] == "logs.errors")


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
    assert [h.texts for h in scan.hits] == [("/log/plog/plog-2_1.log",)]


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

    assert [(h.id, h.first) for h in scan.hits] == [("npu-out-of-memory", f"{named}:1")]
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


def test_reading_stops_when_the_time_budget_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logscan, "BUDGET_S", -1.0)
    _plant_plog(tmp_path, "log/plog/plog-1_1.log", (LOGS / "touchnet-100_npu_oom.txt").read_text())
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), ["/log"], [])
    assert (scan.unread, scan.files, scan.hits) == (1, [], [])


def test_one_hit_per_failure_across_files_with_first_and_last(tmp_path: Path) -> None:
    line = EI0006
    older = _plant_plog(tmp_path, "a.log", f"ok\n{line}\n", days=2)
    newer = _plant_plog(tmp_path, "b.log", f"{line}\nok\n{line}\n", days=1)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(older), str(newer)])
    (hit,) = scan.hits
    assert (hit.id, hit.count, hit.first, hit.last) == (
        "hccl-socket-timeout",
        3,
        f"{older}:2",
        f"{newer}:3",
    )
    assert scan.newest(hit) == pytest.approx(newer.stat().st_mtime)


def test_a_gzip_log_is_read_to_its_end(tmp_path: Path) -> None:
    line = (LOGS / "touchnet-100_npu_oom.txt").read_text()
    path = tmp_path / "job.log.gz"
    path.write_bytes(gzip.compress(("[INFO] step ok\n" * 50000 + line).encode()))
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [h.id for h in scan.hits] == ["npu-out-of-memory"]
    bad = tmp_path / "broken.gz"
    bad.write_bytes(gzip.compress(b"x")[:10] + b"not deflate at all" * 100)
    broken = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(bad)])
    assert [p for p, _ in broken.unreadable] == [str(bad)]


def test_a_gzip_log_cut_short_is_read_up_to_the_cut_and_says_so(tmp_path: Path) -> None:
    line = (LOGS / "touchnet-100_npu_oom.txt").read_text()
    whole = gzip.compress((line + "[INFO] step ok\n" * 200000).encode())
    path = tmp_path / "copied-while-written.log.gz"
    path.write_bytes(whole[: len(whole) // 2])
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [h.id for h in scan.hits] == ["npu-out-of-memory"]
    assert [p for p, _ in scan.damaged] == [str(path)] and not scan.unreadable
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "--only", "logs", "--log", str(path),
         "-f", "json"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert "the gzip stream breaks before its end" in ran.stdout, ran.stdout + ran.stderr
    # two members (zcat reads both) and the zeros a tape or a copy may pad with are whole
    padded = tmp_path / "two-members.gz"
    padded.write_bytes(gzip.compress(b"[INFO] a\n") + whole + b"\0" * 4096)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(padded)])
    assert [h.id for h in scan.hits] == ["npu-out-of-memory"] and not scan.damaged


def test_a_line_a_progress_bar_rewrote_with_carriage_returns_is_read_from_its_last_cr() -> None:
    from ampenv.knowledge.failures import Scanner

    bar = b"".join(b" %d%%|##   | %d/100\r" % (i, i) for i in range(100))
    scanner = Scanner()
    scanner.feed_bytes(bar + EI0006.encode() + b"\r\n", "train.log")
    [hit] = scanner.hits()
    assert hit.id == "hccl-socket-timeout" and hit.line == EI0006.strip()


def test_a_fifo_or_a_device_named_as_a_log_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "plog.log"
    os.mkfifo(fifo)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(fifo), "/dev/zero"])
    assert [(path, why) for path, why in scan.unreadable] == [
        (str(fifo), "a FIFO, not a regular file"),
        ("/dev/zero", "a character device, not a regular file"),
    ]


def test_a_log_with_any_unicode_or_bytes_is_text(tmp_path: Path) -> None:
    line = EI0006
    path = tmp_path / "odd.log"
    dotted = "İ".encode()
    path.write_bytes(dotted * 1000 + b"\xff\xfe\n" + line.encode() + b"\n\x00" + dotted)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [(h.id, h.first) for h in scan.hits] == [("hccl-socket-timeout", f"{path}:2")]


def test_stdin_is_a_log_too() -> None:
    line = (LOGS / "vllm-ascend-486_hccl_EI0006.txt").read_text()
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "logs", "--log", "-",
         "-f", "json"],
        input=line, capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert '"hccl-socket-timeout"' in ran.stdout, ran.stderr


def test_a_gzip_piped_to_stdin_is_unzipped() -> None:
    line = (LOGS / "vllm-ascend-486_hccl_EI0006.txt").read_bytes()
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "--only", "logs", "--log", "-", "-f", "json"],
        input=gzip.compress(line), capture_output=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert b'"hccl-socket-timeout"' in ran.stdout, ran.stderr


def test_a_gzip_with_a_bad_checksum_keeps_all_its_text_and_says_so(tmp_path: Path) -> None:
    text = "[INFO] step ok\n" * 200000 + (LOGS / "touchnet-100_npu_oom.txt").read_text()
    damaged = bytearray(gzip.compress(text.encode()))
    damaged[-8] ^= 0xFF  # the CRC: every byte of text inflates, the check fails at the end
    path = tmp_path / "job.log.gz"
    path.write_bytes(bytes(damaged))
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [h.id for h in scan.hits] == ["npu-out-of-memory"]
    assert [why for _, why in scan.damaged] == [
        "its checksum does not match: the text read may be damaged"
    ]


def test_a_tail_cut_inside_a_progress_bar_starts_at_its_next_cr(tmp_path: Path) -> None:
    path = tmp_path / "train.log"
    bar = b"\r 50%|#####| 5/10 [00:01<00:01]"
    path.write_bytes(b"start\n" + bar * ((70 << 20) // len(bar)) + b"\r" + EI0006.encode() + b"\n")
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [h.id for h in scan.hits] == ["hccl-socket-timeout"] and scan.tails == [str(path)]


def test_only_the_end_of_a_long_named_log_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logscan, "NAMED_TAIL_MB", 1.0)
    error = (LOGS / "svn_E155009_wc_db_work_queue.txt").read_text()
    filler = "[INFO] nothing to see here, step 507035 done\n" * 40000
    path = _plant_plog(tmp_path, "train.log", error + filler + error)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    (hit,) = scan.hits
    assert hit.count == 1 and scan.tails == [str(path)]


def test_a_log_of_decoded_codes_is_judged_not_crashed() -> None:
    # A code decoded from its table names a check to confirm it; logs.errors must run after
    # every such check (reading a result it did not order itself after is a crash).
    text = (LOGS / "ascend" / "heldout3_verl_ej0001_hccp_init.txt").read_text(encoding="utf-8")
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "logs", "--log", "-",
         "-f", "json"],
        input=text, capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert '"hccl-result-7"' in ran.stdout and '"error"' not in ran.stdout


def test_every_check_a_failure_names_is_one_logs_errors_runs_after() -> None:
    from ampenv.core.registry import discover
    from ampenv.knowledge.failures import CATALOGUE
    from ampenv.knowledge.failures.codes import CONFIRMS

    named = {f.confirm for f in CATALOGUE if f.confirm} | CONFIRMS
    checks = discover(env={}).checks
    assert named <= set(checks["logs.errors"].after)
    assert named <= set(checks)


def test_a_scan_that_runs_out_of_time_says_which_log_it_did_not_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ampenv.knowledge.failures import match

    class Late:  # the scanner's clock only: the read itself is in time
        @staticmethod
        def monotonic() -> float:
            return float("inf")

    monkeypatch.setattr(match, "time", Late)
    # its first and last pieces are read whatever the time; the failure between them is not
    healthy = "step 1 loss 0.5\n" * (3 * match.PIECE // 16)
    text = healthy + (LOGS / "vllm-ascend-486_hccl_EI0006.txt").read_text() + healthy
    path = _plant_plog(tmp_path, "train.log", text)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert scan.hits == [] and scan.skipped == [str(path)] and not scan.stopped


def test_a_stream_read_until_the_deadline_is_still_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a gzip member, then gigabytes of zero padding (a sparse file): reading it to its end
    # would take the whole budget, and the failure it holds must still be found
    path = tmp_path / "padded.log.gz"
    path.write_bytes(gzip.compress(EI0006.encode() + b"\n"))
    with open(path, "r+b") as fh:
        fh.truncate(64 << 30)
    monkeypatch.setattr(logscan, "BUDGET_S", 1.0)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [h.id for h in scan.hits] == ["hccl-socket-timeout"]
    assert scan.stopped == [str(path)] and not scan.damaged


def test_a_pipe_that_stays_open_is_read_until_the_deadline_and_what_came_is_scanned(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `kubectl logs -f | ampenv doctor --log -`: the pipe never ends
    read_end, write_end = os.pipe()
    os.write(write_end, EI0006.encode() + b"\n")

    class Stdin:
        @staticmethod
        def fileno() -> int:
            return read_end

    monkeypatch.setattr(sys, "stdin", Stdin())
    monkeypatch.setattr(logscan, "BUDGET_S", 1.0)
    try:
        began = time.monotonic()
        scan = logscan.scan(Probe(sysroot="/nonexistent", env={}), [], ["-"])
        assert time.monotonic() - began < 5
    finally:
        os.close(write_end)
        os.close(read_end)
    assert [h.id for h in scan.hits] == ["hccl-socket-timeout"] and scan.stopped == ["stdin"]


def test_a_gzip_of_many_small_members_is_read_to_its_end(tmp_path: Path) -> None:
    # a log appended in gzip mode: a member per write
    path = tmp_path / "appended.log.gz"
    path.write_bytes(gzip.compress(b"step ok\n", mtime=0) * 100000 + gzip.compress(EI0006.encode()))
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(path)])
    assert [h.id for h in scan.hits] == ["hccl-socket-timeout"] and not scan.stopped


def test_a_notice_alone_is_a_note_and_beside_a_failure_a_finding() -> None:
    # torch_npu's fallback warning: a healthy run prints it (the red team's LLaMA-Factory log)
    warned = "[W AclInterface.cpp:181] Warning: 0Failed to find function aclrtCreateEventExWithFlag"
    alone = _logs_errors(f"step 1 loss 2.3\n{warned} (function operator())\nstep 2 loss 2.1\n")
    assert alone["status"] == "pass" and alone["remedy"] is None
    assert [(h["id"], h["note"]) for h in alone["facts"]["hits"]] == [("cann-older-fallback", True)]
    assert any("a note, not a failure" in d for d in alone["details"])
    failing = _logs_errors(f"{warned}\nEL0004: Failed to allocate memory.\n")
    assert failing["status"] == "warn"
    notes = {h["id"]: h["note"] for h in failing["facts"]["hits"]}
    assert notes["cann-older-fallback"] is False and "torch_npu release" in failing["remedy"]


def test_a_notice_in_a_log_not_read_to_its_end_is_no_note(tmp_path: Path) -> None:
    # a gzip cut short: what came after the cut may hold the failure
    tbe = b"[ERROR] TBE Subprocess[task_distribute] raise error[], main process disappeared!\n"
    whole = gzip.compress(tbe + os.urandom(1 << 16).hex().encode())
    log = tmp_path / "cut.log.gz"
    log.write_bytes(whole[: len(whole) // 2])
    check = _logs_errors_of(log)
    assert [(h["id"], h["note"]) for h in check["facts"]["hits"]] == [
        ("compile-main-process-gone", False)
    ]
    assert check["status"] == "warn" and "main process" in check["summary"]


@pytest.mark.parametrize("shape", ["bom", "le", "tail at an odd byte", "gzip"])
def test_a_log_a_windows_shell_wrote_in_utf16_is_read(tmp_path: Path, shape: str) -> None:
    # PowerShell's ">" writes UTF-16 with its BOM; a copy without one, or a tail of one that
    # starts at an odd byte, holds the same ASCII
    text = (LOGS / "vllm-ascend-486_hccl_EI0006.txt").read_text()
    data = {
        "bom": text.encode("utf-16"),
        "le": text.encode("utf-16-le"),
        "tail at an odd byte": text.encode("utf-16-le")[1:],
        "gzip": gzip.compress(text.encode("utf-16")),
    }[shape]
    log = tmp_path / "train.log"
    log.write_bytes(data)
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(log)])
    assert "hccl-socket-timeout" in [h.id for h in scan.hits]


def test_the_tail_of_a_long_utf16_log_is_read_by_its_files_mark(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # mostly Chinese: its bytes hold few NULs, only the file's first two bytes say UTF-16
    monkeypatch.setattr(logscan, "NAMED_TAIL_MB", 1.0)
    text = "训练步骤完成，损失下降，一切正常。\n" * 60000 + "EI0006: Getting socket times out.\n"
    for stray in (b"", b"\n"):  # the tail read from an even offset, and (a stray byte) an odd one
        log = tmp_path / "train.log"
        log.write_bytes(text.encode("utf-16") + stray)
        assert (log.stat().st_size - (1 << 20)) % 2 == len(stray)
        scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(log)])
        assert "hccl-socket-timeout" in [h.id for h in scan.hits], stray


@pytest.mark.parametrize(
    "head",
    [b"\0" * 8192, bytes(b for i in range(4096) for b in (0, 0x80 + i % 120))],
    ids=["NULs", "fp16 bytes: NULs beside non-text"],
)
def test_a_binary_head_is_not_taken_for_utf16(tmp_path: Path, head: bytes) -> None:
    log = tmp_path / "mixed.log"
    log.write_bytes(head + b"\nEI0006: Getting socket times out.\n")
    scan = logscan.scan(Probe(sysroot=str(tmp_path), env={}), [], [str(log)])
    assert "hccl-socket-timeout" in [h.id for h in scan.hits]


def test_the_check_says_a_log_was_cut_in_its_middle_and_how_to_read_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judge import load_checks

    from ampenv.checks import CheckContext, Status
    from ampenv.core import config as config_mod
    from ampenv.core.plugin import Context
    from ampenv.knowledge.failures import match

    class Late:  # the scanner's clock only
        @staticmethod
        def monotonic() -> float:
            return float("inf")

    monkeypatch.setattr(match, "time", Late)
    healthy = "step 1 loss 0.5\n" * (3 * match.PIECE // 16)
    path = tmp_path / "train.log"
    path.write_text(healthy + healthy + EI0006 + "\n", encoding="utf-8")
    spec = load_checks("logs.py")["logs.errors"]
    config = config_mod.parse("", "<defaults>")
    ctx = Context(config=config, probe=Probe(sysroot=str(tmp_path), env={}), logs=(str(path),))
    settings = config.settings_for(spec)
    result = spec(CheckContext(ctx, spec, settings, time.monotonic() + settings["timeout"]))
    # the failure at its end is found, and the middle it did not read is said, with a remedy
    said = "\n".join([result.summary, *result.details, result.remedy or ""])
    assert result.status == Status.WARN and "hccl-socket-timeout" in said
    assert "ran out in its middle" in said and "tail -c 16M" in said


def test_a_plog_ending_on_an_error_no_entry_knows_is_no_end_but_a_named_log_is(
    tmp_path: Path,
) -> None:
    # a plog at its default level holds ERROR and EVENT records only: its last is an error
    # whether or not a job failed; a log the user names ends where its job did
    end = (
        "[ERROR] PROFILING(40123,python):2024-05-09-10:59:59.901.001 [prof.cpp:1302] can not stop\n"
    )
    _plant_plog(tmp_path, "log/plog/plog-1_1.log", end)
    named = _plant_plog(tmp_path, "train.log", end)
    probe = Probe(sysroot=str(tmp_path), env={})
    assert logscan.scan(probe, ["/log"], []).unexplained == []
    named_plog = _plant_plog(tmp_path, "copied/plog-2_1.log", end)  # a plog passed by name
    scan = logscan.scan(
        Probe(sysroot=str(tmp_path), env={}), ["/log"], [str(named), str(named_plog)]
    )
    assert [name for name, _ in scan.unexplained] == [str(named)]


def test_the_error_a_long_logs_end_is_told_with_its_lines_counted_in_the_part_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "train.log"
    row = b"step 1 loss 2.0\n"
    with path.open("wb") as out:  # past the 64 MiB of a named log read: its end only
        for _ in range(int(logscan.NAMED_TAIL_MB) + 1):
            out.write(row * ((1 << 20) // len(row)))
        out.write(b"ERROR: failed to mount /data\n")
    check = _logs_errors_of(path)
    assert check["status"] == "warn" and "ERROR: failed to mount /data" in check["summary"]
    assert "(lines counted from the start of the part read: the file's end)" in check["summary"]
