"""The one subprocess helper tells failures apart and leaves nothing running."""

from __future__ import annotations

import sys
import time

import psutil
import pytest

from ampenv.probe import proc
from ampenv.probe.proc import Outcome


def test_ok_and_output():
    r = proc.run([sys.executable, "-c", "print('hi')"], 10)
    assert r.outcome is Outcome.OK and r.stdout == "hi\n" and r.returncode == 0


def test_missing_tool():
    r = proc.run(["/nonexistent/npu-smi", "info"], 5)
    assert r.outcome is Outcome.MISSING
    assert "could not be run" in r.describe()


def test_non_zero_exit():
    r = proc.run([sys.executable, "-c", "import sys; sys.exit(4)"], 10)
    assert r.outcome is Outcome.EXIT and r.returncode == 4


def test_killed_by_a_signal():
    r = proc.run([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), 9)"], 10)
    assert r.outcome is Outcome.SIGNAL and "SIGKILL" in r.describe()


def test_a_timeout_kills_the_whole_group_and_a_setsid_grandchild(tmp_path):
    pidfile = tmp_path / "pids"
    script = f"""
import os, subprocess, sys, time
a = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
b = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
open({str(pidfile)!r}, "w").write(f"{{a.pid}} {{b.pid}}")
time.sleep(60)
"""
    r = proc.run([sys.executable, "-c", script], 1.5)
    assert r.outcome is Outcome.TIMEOUT
    assert "did not answer in 1.5 s" in r.describe()
    pids = [int(p) for p in pidfile.read_text().split()]
    time.sleep(0.2)
    alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"]
    assert alive == []


def test_argv_must_be_a_list():
    with pytest.raises(TypeError):
        proc.run("npu-smi info", 5)  # type: ignore[arg-type]


def test_stderr_lines_stream_to_a_callback():
    seen = []
    proc.run(
        [
            sys.executable,
            "-c",
            "import sys; print('a', file=sys.stderr); print('b', file=sys.stderr)",
        ],
        10,
        on_stderr_line=seen.append,
    )
    assert seen == ["a", "b"]
