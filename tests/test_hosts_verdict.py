"""Issue 18, items 3 and 10: a hostile plugin cannot hang ampenv, cannot make a run that
ended without a verdict read as healthy, and cannot write into the report's stdout.
Reproduced first: a plugin looping at import hung `ampenv checks`; `os._exit(0)` in a check
made `hook npd` exit 0 with no message; `os.write(1, ...)` corrupted `-f json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import clean_env, run_ampenv

EXIT_NOW = """
import os
from ampenv.checks import Result, check

@check("site.exits", title="exits")
def exits(ctx):
    os._exit(0)
"""

WRITES_FD1 = """
import os, subprocess
from ampenv.checks import Result, check

@check("site.noisy", title="noisy")
def noisy(ctx):
    os.write(1, b"garbage on fd 1 " * 20 + b"\\n")
    subprocess.run(["echo", "a child's garbage too"])
    return Result.ok("fine")
"""

LOOPS = """
while True:
    pass
"""

NAN_TIMEOUT = """
from ampenv.checks import Result, check

@check("site.nan", title="nan", timeout=float("nan"))
def nan(ctx):
    return Result.ok("fine")
"""


def _plugins(tmp_path: Path, **files: str) -> dict[str, str]:
    folder = tmp_path / "plugins"
    folder.mkdir()
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text)
    return clean_env(AMPENV_CHECKS_PATH=str(folder), AMPENV_SYSROOT=str(_root(tmp_path)))


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    return root


def test_os_exit_in_a_check_is_unknown_for_npd(tmp_path):
    ran = run_ampenv("hook", "npd", env=_plugins(tmp_path, exits=EXIT_NOW))
    assert ran.returncode == 2, ran
    assert ran.stdout.startswith("ampenv: could not judge"), ran.stdout
    assert len(ran.stdout.encode()) <= 81


def test_os_exit_in_a_check_could_not_judge_for_slurm(tmp_path):
    env = _plugins(tmp_path, exits=EXIT_NOW)
    env["TMPDIR"] = str(tmp_path)  # the hook's lock
    ran = run_ampenv("hook", "slurm", env=env)
    assert ran.returncode == 3, ran
    assert "could not judge" in ran.stdout


def test_os_exit_in_a_check_stops_run_fail_closed(tmp_path):
    marker = tmp_path / "started"
    ran = run_ampenv("run", "--", "touch", str(marker), env=_plugins(tmp_path, exits=EXIT_NOW))
    assert ran.returncode == 3, ran
    assert not marker.exists()
    assert "could not judge" in ran.stderr


def test_os_exit_in_a_check_lets_warn_only_start_the_job(tmp_path):
    marker = tmp_path / "started"
    ran = run_ampenv(
        "run",
        "--policy",
        "warn-only",
        "--",
        "touch",
        str(marker),
        env=_plugins(tmp_path, exits=EXIT_NOW),
    )
    assert ran.returncode == 0, ran
    assert marker.exists()


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_os_exit_in_a_check_could_not_judge_for_doctor(tmp_path, fmt):
    # doctor judged in its own process once, and exited 0 with no report at all
    env = _plugins(tmp_path, exits=EXIT_NOW)
    ran = run_ampenv("doctor", "-p", "quick", "--only", "site", "-f", fmt, env=env)
    assert ran.returncode == 3, ran
    assert "ampenv: could not judge: the check run ended (exit 0) without a verdict" in ran.stderr


FORKS = """
import os, time
from ampenv.checks import Result, check

@check("site.forks", title="forks")
def forks(ctx):
    if os.fork() == 0:  # a child left behind, holding every descriptor it was given
        time.sleep(60)
        os._exit(0)
    return Result.ok("fine")
"""


def test_a_process_a_check_leaves_behind_holds_no_reader_of_doctor(tmp_path):
    started = time.monotonic()
    ran = run_ampenv(
        "doctor", "-p", "quick", "--only", "site", "-f", "json",
        env=_plugins(tmp_path, forks=FORKS), timeout=50,
    )  # fmt: skip
    assert ran.returncode == 0 and json.loads(ran.stdout)["checks"][0]["status"] == "pass"
    assert time.monotonic() - started < 30  # the pipe's reader saw its end with doctor's


def test_writes_to_fd1_do_not_reach_the_json_report(tmp_path):
    env = _plugins(tmp_path, noisy=WRITES_FD1)
    ran = run_ampenv("doctor", "-p", "quick", "--only", "site", "-f", "json", env=env)
    report = json.loads(ran.stdout)  # parses: nothing else on stdout
    assert report["checks"][0]["status"] == "pass"
    assert "garbage on fd 1" in ran.stderr


def test_writes_to_fd1_keep_the_npd_message_one_short_line(tmp_path):
    ran = run_ampenv("hook", "npd", env=_plugins(tmp_path, noisy=WRITES_FD1))
    assert ran.stdout.count("\n") == 1, ran.stdout
    assert len(ran.stdout.encode()) <= 81


def test_a_plugin_that_loops_at_import_is_reported_not_waited_for(tmp_path):
    started = time.monotonic()
    ran = run_ampenv("checks", env=_plugins(tmp_path, loops=LOOPS), timeout=60)
    assert time.monotonic() - started < 30
    assert "did not finish loading" in ran.stdout, ran


def test_a_timeout_of_nan_is_refused_at_load(tmp_path):
    ran = run_ampenv(
        "doctor", "-p", "quick", "--only", "host", env=_plugins(tmp_path, nan=NAN_TIMEOUT)
    )
    assert ran.returncode == 3, ran
    assert "timeout must be a finite number" in ran.stdout


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 0, -1, "3"])
def test_check_declarations_refuse_unusable_timeouts(value):
    from ampenv.checks import check

    with pytest.raises(ValueError):
        check("site.x", title="x", timeout=value)


def test_the_runner_falls_back_when_a_spec_timeout_is_changed_to_nan():
    from ampenv.core.runner import _seconds

    assert _seconds(float("nan"), 3.0) == 3.0
    assert _seconds(float("inf"), float("nan")) == 5.0
    assert _seconds(2, 3.0) == 2.0


def test_fd1_guard_is_gone_for_the_job(tmp_path):
    """The job's stdout is the real stdout again (not stderr)."""
    env = clean_env(AMPENV_SYSROOT=str(_root(tmp_path)))
    ran = run_ampenv("run", "--", "echo", "from the job", env=env)
    assert ran.returncode == 0, ran
    assert ran.stdout == "from the job\n"
    assert os.environ.get("AMPENV_TREE") is None


def test_a_judge_that_outlives_its_limit_is_killed_before_it_acts(tmp_path):
    # the child once survived its kill (it leads no process group): a certify TERMed while
    # training went on to judge "not certified" and removed a good certificate
    from ampenv.integrations.guard import in_child

    acted = tmp_path / "acted"

    def slow() -> int:
        time.sleep(20)
        acted.write_text("the child went on")
        return 0

    answer, why = in_child(slow, timeout=0.5)
    assert answer is None and why == "the check run did not end within 0.5 s"
    assert not acted.exists()


def test_doctor_into_a_closed_pipe_ends_as_a_pipeline_expects(tmp_path):
    env = _plugins(tmp_path, noisy=WRITES_FD1)
    ran = subprocess.run(
        f'{sys.executable} -m ampenv doctor -p quick -v | head -c 1; echo "rc=${{PIPESTATUS[0]}}"',
        shell=True, env=env, capture_output=True, text=True, timeout=60,
        executable="/bin/bash",
    )  # fmt: skip
    assert "could not judge" not in ran.stderr
    assert ran.stdout.endswith("rc=141\n")  # 128 + SIGPIPE, as any program killed by it
