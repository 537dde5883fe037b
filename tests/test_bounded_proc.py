"""Issue 18, items 4 and 5: a command's output is capped (then it is killed: "too much
output"), and the whole tree a command started dies with it, even a descendant that called
setsid and whose parent exited. Reproduced first: `yes` as npu-smi grew ampenv without limit;
`(setsid sleep &)` outlived the doctor."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
from conftest import clean_env

from ampenv.probe import proc


def _dead(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _wait_dead(pid: int, within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if _dead(pid):
            return True
        time.sleep(0.05)
    return _dead(pid)


def test_a_flooding_command_is_killed_at_the_cap():
    started = time.monotonic()
    result = proc.run(["yes"], 60)
    assert result.outcome is proc.Outcome.TOO_MUCH_OUTPUT
    assert len(result.stdout) <= proc.MAX_OUTPUT_BYTES
    assert time.monotonic() - started < 20
    assert "too much output" in result.describe()


def test_output_without_newlines_is_capped_too():
    result = proc.run(["cat", "/dev/zero"], 60)
    assert result.outcome is proc.Outcome.TOO_MUCH_OUTPUT
    assert len(result.stdout) <= proc.MAX_OUTPUT_BYTES


def test_normal_output_is_whole_and_lines_reach_the_callback():
    lines: list[str] = []
    script = "import sys\nfor i in range(3): print(i, file=sys.stderr)\nprint('é' * 5)"
    result = proc.run([sys.executable, "-c", script], 30, on_stderr_line=lines.append)
    assert result.ok
    assert result.stdout == "ééééé\n"
    assert lines == ["0", "1", "2"]


def test_a_setsid_descendant_whose_parent_exited_dies_with_the_command(tmp_path: Path):
    pidfile = tmp_path / "pid"
    script = f"(setsid sleep 300 & echo $! > {pidfile}); sleep 300"
    result = proc.run(["sh", "-c", script], 1.0)
    assert result.outcome is proc.Outcome.TIMEOUT
    pid = int(pidfile.read_text())
    assert _wait_dead(pid), f"setsid'd descendant {pid} outlived the command"


def test_a_setsid_daemon_left_by_a_tool_does_not_outlive_the_doctor(tmp_path: Path):
    """A fake npu-smi that starts a setsid'd daemon and exits: once `ampenv doctor`
    returns, the daemon is gone."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pidfile = tmp_path / "daemon.pid"
    smi = bin_dir / "npu-smi"
    smi.write_text(f"#!/bin/sh\n(setsid sleep 300 & echo $! > {pidfile})\nexit 1\n")
    smi.chmod(0o755)
    env = clean_env(PATH=f"{bin_dir}:{os.environ['PATH']}")
    subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "npu.devices"],
        env=env,
        capture_output=True,
        timeout=120,
    )
    pid = int(pidfile.read_text())
    assert _wait_dead(pid), f"daemon {pid} of npu-smi outlived the doctor"


MEASURE = """
import resource, subprocess, sys, json, time
t = time.monotonic()
p = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(json.dumps({"rc": p.returncode, "out": p.stdout, "seconds": time.monotonic() - t,
                  "maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def test_a_doctor_whose_npu_smi_floods_stays_small_and_bounded(tmp_path: Path):
    """Must show: peak memory under 300 MiB, a named result, bounded time."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    smi = bin_dir / "npu-smi"
    smi.write_text("#!/bin/sh\nexec yes 'NPU 0 910B2 OK 0000:C1:00.0 93.5 45 0 / 0 3386 / 65536'\n")
    smi.chmod(0o755)
    env = clean_env(PATH=f"{bin_dir}:{os.environ['PATH']}")
    argv = [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "-f", "json"]
    measured = subprocess.run(
        [sys.executable, "-c", MEASURE, *argv, "--only", "npu.devices"],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    got = json.loads(measured.stdout)
    report = json.loads(got["out"])
    check = next(c for c in report["checks"] if c["id"] == "npu.devices")
    assert "too much output" in json.dumps(check), check
    assert got["maxrss_kib"] < 300 * 1024, got["maxrss_kib"]
    assert got["seconds"] < 60
