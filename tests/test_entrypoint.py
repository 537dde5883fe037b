"""ampenv run -- CMD: the container entrypoint, tested as docker would use it (no docker here).

The planted node holds a CANN toolkit made of real captures: the 8.0.0 install.info (its arch
edited in the open to this host's, so the toolkit is one this host could use) and the
reconstructed set_env.sh exports, which the entrypoint sources in a child bash.
"""

from __future__ import annotations

import os
import platform
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, clean_env, run_ampenv

from ampenv.integrations.entrypoint import parse_env0, source_env

VERSIONS = FIXTURES / "version-files"
TOOLKIT = "/usr/local/Ascend/ascend-toolkit"
PRINT_ENV = "import os, sys; print(os.environ.get(sys.argv[1], '<unset>'))"
SHOW_ENV = "import os; [print(n, '=', repr(os.environ.get(n))) for n in os.environ['SHOW'].split()]"
FAILING_PLUGIN = """\
from ampenv.checks import Result, check

@check("site.gate", title="Site gate")
def site_gate(ctx):
    return Result.fail("NPU 3 reports Alarm", remedy="drain the node and reset NPU 3")
"""


def plant_toolkit(root: Path, extra_exports: str = "") -> None:
    arch = platform.machine()
    info = VERSIONS / "ascend_toolkit_install.info_8.0.0_aarch64_vllm-ascend-362.txt"
    home = root / TOOLKIT.lstrip("/") / "8.0.0"
    (home / f"{arch}-linux").mkdir(parents=True)
    (home / "opp").mkdir()
    (home / f"{arch}-linux" / "ascend_toolkit_install.info").write_text(
        info.read_text().replace("aarch64", arch)
    )
    (home.parent / "latest").symlink_to("8.0.0")
    set_env = VERSIONS / "set_env.sh_toolkit_exports_reconstructed.txt"
    (home.parent / "set_env.sh").write_text(set_env.read_text() + extra_exports)


def job(*argv: str) -> list[str]:
    return ["run", "--", sys.executable, *argv]


def test_the_job_sees_the_cann_environment_and_the_contract_defaults(tmp_path, sysroot):
    plant_toolkit(sysroot, "export AMPENV_TWO_LINES='first\nsecond'\n")
    config = tmp_path / "ampenv.toml"
    config.write_text('[env]\nHCCL_CONNECT_TIMEOUT = { min = 600, default = "1200" }\n')
    env = clean_env(AMPENV_SYSROOT=str(sysroot), AMPENV_CONFIG=str(config))
    env["SHOW"] = "ASCEND_HOME_PATH ASCEND_OPP_PATH HCCL_CONNECT_TIMEOUT AMPENV_TWO_LINES"
    ran = run_ampenv(*job("-c", SHOW_ENV), env=env)
    assert ran.returncode == 0, ran.stderr
    # stdout is the job's alone; ampenv reported on stderr.
    assert ran.stdout.splitlines() == [
        f"ASCEND_HOME_PATH = '{TOOLKIT}/latest'",
        f"ASCEND_OPP_PATH = '{TOOLKIT}/latest/opp'",
        "HCCL_CONNECT_TIMEOUT = '1200'",
        "AMPENV_TWO_LINES = 'first\\nsecond'",
    ]
    assert f"ampenv: sourced {sysroot}{TOOLKIT}/set_env.sh" in ran.stderr
    assert "HCCL_CONNECT_TIMEOUT" in ran.stderr


def test_an_environment_already_prepared_is_not_sourced_again(sysroot):
    plant_toolkit(sysroot, "export AMPENV_SOURCED=yes\n")
    env = clean_env(AMPENV_SYSROOT=str(sysroot))
    first = run_ampenv(*job("-c", PRINT_ENV, "AMPENV_SOURCED"), env=env)
    assert first.stdout.strip() == "yes", first.stderr
    # The same environment set_env.sh produced, minus the marker: nothing to source.
    prepared = clean_env(AMPENV_SYSROOT=str(sysroot))
    prepared.update(
        ASCEND_TOOLKIT_HOME=f"{TOOLKIT}/latest",
        ASCEND_HOME_PATH=f"{TOOLKIT}/latest",
        ASCEND_AICPU_PATH=f"{TOOLKIT}/latest",
        ASCEND_OPP_PATH=f"{TOOLKIT}/latest/opp",
        TOOLCHAIN_HOME=f"{TOOLKIT}/latest/toolkit",
        LD_LIBRARY_PATH=f"{TOOLKIT}/latest/lib64",
        PYTHONPATH=f"{TOOLKIT}/latest/python/site-packages",
        PATH=f"{TOOLKIT}/latest/bin:{prepared['PATH']}",
    )
    again = run_ampenv(*job("-c", PRINT_ENV, "AMPENV_SOURCED"), env=prepared)
    assert again.stdout.strip() == "<unset>", again.stderr
    assert "environment already set" in again.stderr


def test_the_exit_code_is_the_jobs():
    ran = run_ampenv(*job("-c", "import sys; sys.exit(42)"), env=clean_env())
    assert ran.returncode == 42, ran.stderr


def test_a_missing_command_exits_127():
    ran = run_ampenv("run", "--", "no-such-training-script-xyz", env=clean_env())
    assert ran.returncode == 127
    assert "command not found" in ran.stderr


def test_an_empty_command_is_a_usage_error_before_any_check():
    ran = run_ampenv("run", "--", "", "--epochs", "3", env=clean_env())
    assert ran.returncode == 2 and "the command is empty" in ran.stderr
    assert "Traceback" not in ran.stderr and "healthy" not in ran.stderr  # nothing ran


def test_sigterm_to_the_entrypoint_pid_reaches_the_job(tmp_path):
    ready, marker = tmp_path / "ready", tmp_path / "got-sigterm"
    trap = textwrap.dedent(f"""
        import os, signal, sys, time
        def on_term(signum, frame):
            open({str(marker)!r}, "w").write(str(os.getpid()))
            sys.exit(143)
        signal.signal(signal.SIGTERM, on_term)
        open({str(ready)!r}, "w").write(str(os.getpid()))
        time.sleep(60)
    """)
    entry = subprocess.Popen(
        [sys.executable, "-m", "ampenv", *job("-c", trap)],
        env=clean_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not ready.exists() and entry.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), entry.communicate(timeout=5)
        time.sleep(0.1)  # the handler is installed before the ready file is written
        assert int(ready.read_text()) == entry.pid  # exec: the job IS the entrypoint's pid
        os.kill(entry.pid, signal.SIGTERM)
        assert entry.wait(timeout=20) == 143
    finally:
        if entry.poll() is None:
            entry.kill()
    assert int(marker.read_text()) == entry.pid


@pytest.fixture
def failing_node(tmp_path) -> dict[str, str]:
    plugins = tmp_path / "checks.d"
    plugins.mkdir()
    (plugins / "gate.py").write_text(FAILING_PLUGIN)
    return clean_env(AMPENV_CHECKS_PATH=str(plugins))


def test_fail_closed_does_not_start_the_job(tmp_path, failing_node):
    started = tmp_path / "job-started"
    ran = run_ampenv(*job("-c", f"open({str(started)!r}, 'w')"), env=failing_node)
    assert ran.returncode == 1
    assert not started.exists()
    assert ran.stdout == ""
    assert "ampenv: fail site.gate: NPU 3 reports Alarm" in ran.stderr
    assert "drain the node and reset NPU 3" in ran.stderr
    assert "fail-closed: not starting" in ran.stderr


def test_warn_only_reports_then_starts_the_job(tmp_path, failing_node):
    started = tmp_path / "job-started"
    code = f"open({str(started)!r}, 'w'); raise SystemExit(5)"
    ran = run_ampenv("run", "--policy", "warn-only", "--", sys.executable, "-c", code,
                     env=failing_node)  # fmt: skip
    assert ran.returncode == 5
    assert started.exists()
    assert "ampenv: fail site.gate: NPU 3 reports Alarm" in ran.stderr


def test_the_policy_comes_from_the_config(tmp_path, failing_node):
    config = tmp_path / "ampenv.toml"
    config.write_text('[run]\npolicy = "warn-only"\n')
    failing_node["AMPENV_CONFIG"] = str(config)
    ran = run_ampenv(*job("-c", "raise SystemExit(3)"), env=failing_node)
    assert ran.returncode == 3  # the job ran and its code came through


def test_an_unknown_policy_is_a_usage_error():
    ran = run_ampenv("run", "--policy", "sometimes", "--", "true", env=clean_env())
    assert ran.returncode == 2
    assert "'sometimes' is not one of 'fail-closed', 'warn-only'" in ran.stderr


def test_env0_parsing_keeps_newlines_and_equals_in_values():
    text = "A=1\0B=x=y\0C=first\nsecond\0\0"
    assert parse_env0(text) == {"A": "1", "B": "x=y", "C": "first\nsecond"}


def test_a_set_env_that_cannot_be_passed_on_says_why(tmp_path):
    # one value over the kernel's limit for a variable: env cannot be run with it
    script = tmp_path / "set_env.sh"
    script.write_text(f"export HUGE={'x' * 200_000}\n")
    prepared = source_env(str(script), clean_env())
    assert prepared.env.get("HUGE") is None
    assert "could not source" in prepared.notes[0]
    assert "Argument list too long" in prepared.notes[0]
