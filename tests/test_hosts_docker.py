"""Issue 18, items 15 and 16. Reproduced first: docker/slurm-prolog.sh exited 127 (a drained
node) unless ampenv sat at /opt/ampenv/bin/ampenv; the HEALTHCHECK passed ampenv's exit codes
2 and 3 to Docker, which reserves 2, and allowed a single retry."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

DOCKER = REPO / "docker"
CANDIDATES = ("/opt/ampenv/bin/ampenv", "/usr/local/bin/ampenv", "/usr/bin/ampenv")


def _bin(tmp_path: Path) -> Path:
    """A PATH folder with a fake logger (the real one would write to this machine's syslog)."""
    folder = tmp_path / "bin"
    folder.mkdir(exist_ok=True)
    logger = folder / "logger"
    logger.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path / "syslog"}"\n')
    logger.chmod(0o755)
    return folder


def _prolog(env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["/bin/bash", str(DOCKER / "slurm-prolog.sh")],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_prolog_without_ampenv_logs_and_exits_0(tmp_path):
    if any(Path(c).exists() for c in CANDIDATES):
        pytest.skip("ampenv is installed at a place the prolog looks")
    folder = _bin(tmp_path)
    ran = _prolog({"PATH": f"{folder}:/usr/bin:/bin", "SLURM_JOB_ID": "1"})
    assert ran.returncode == 0, ran
    assert "ampenv: not installed" in ran.stderr
    assert "ampenv-prolog" in (tmp_path / "syslog").read_text()


def test_the_prolog_finds_ampenv_on_path(tmp_path):
    folder = _bin(tmp_path)
    wrapper = folder / "ampenv"
    wrapper.write_text('#!/bin/sh\necho "called with $*"\nexit 0\n')
    wrapper.chmod(0o755)
    ran = _prolog({"PATH": f"{folder}:/usr/bin:/bin"})
    assert (ran.returncode, ran.stdout) == (0, "called with hook slurm\n"), ran


def test_an_ampenv_variable_that_is_not_executable_falls_back(tmp_path):
    folder = _bin(tmp_path)
    wrapper = folder / "ampenv"
    wrapper.write_text('#!/bin/sh\necho found\n')
    wrapper.chmod(0o755)
    ran = _prolog({"PATH": f"{folder}:/usr/bin:/bin", "AMPENV": str(tmp_path / "nope")})
    assert (ran.returncode, ran.stdout) == (0, "found\n"), ran


def _healthcheck(dockerfile: Path) -> tuple[str, list[str]]:
    text = dockerfile.read_text()
    m = re.search(r"^HEALTHCHECK (.*?)\\\n\s+CMD (\[.*\])$", text, re.M)
    assert m, "no HEALTHCHECK in exec form"
    return m.group(1), json.loads(m.group(2))


@pytest.mark.parametrize("name", ["Dockerfile", "Dockerfile.cpu"])
@pytest.mark.parametrize("ampenv_exit, docker_sees", [(0, 0), (1, 1), (2, 1), (3, 1)])
def test_the_healthcheck_gives_docker_0_or_1(tmp_path, name, ampenv_exit, docker_sees):
    options, argv = _healthcheck(DOCKER / name)
    assert "--retries" not in options  # Docker's default: 3
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "ampenv"
    fake.write_text(f"#!/bin/sh\necho 'ampenv: message'\nexit {ampenv_exit}\n")
    fake.chmod(0o755)
    ran = subprocess.run(argv, env={"PATH": f"{folder}:/usr/bin:/bin"}, capture_output=True,
                         text=True, timeout=30)  # fmt: skip
    assert ran.returncode == docker_sees
    assert "doctor" in " ".join(argv)


def test_scripts_are_valid_bash_and_executable():
    for script in ("slurm-prolog.sh", "slurm-taskprolog.sh"):
        subprocess.run(["bash", "-n", str(DOCKER / script)], check=True, timeout=10)
        assert (DOCKER / script).stat().st_mode & 0o111


def test_the_task_prolog_exports_contract_defaults_and_prints_the_verdict(tmp_path):
    folder = _bin(tmp_path)
    wrapper = folder / "ampenv"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ampenv "$@"\n')
    wrapper.chmod(0o755)
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text('[env]\nHCCL_CONNECT_TIMEOUT = { min = 600, max = 7200, default = "1200" }\n')
    root = tmp_path / "root"
    root.mkdir()
    env = {"PATH": f"{folder}:/usr/bin:/bin", "AMPENV_CONFIG": str(cfg),
           "AMPENV_SYSROOT": str(root), "PYTHONPATH": str(REPO), "HOME": str(tmp_path)}  # fmt: skip
    ran = subprocess.run(["/bin/bash", str(DOCKER / "slurm-taskprolog.sh")], env=env,
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert ran.returncode == 0, ran
    lines = ran.stdout.splitlines()
    assert "export HCCL_CONNECT_TIMEOUT=1200" in lines, ran.stdout
    assert any(line.startswith("print ") for line in lines), ran.stdout
