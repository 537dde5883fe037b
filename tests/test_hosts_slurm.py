"""Issue 18, item 14: the Slurm Prolog runs in slurmd's environment (SLURM_* only), so
`hook slurm` judges the node, never the job's variables. Reproduced first: with the README's
own [env] contract, `hook slurm` exited 1 on a healthy node ("HCCL_OP_LEVEL is unset")."""

from __future__ import annotations

from pathlib import Path

from conftest import clean_env, run_ampenv

README_CONTRACT = """
[env]
HCCL_OP_LEVEL = "2"
HCCL_CONNECT_TIMEOUT = { min = 600, max = 7200, default = "1200" }
NPU_FUZZY_COMPILE_BLACKLIST = { forbid = ["Conv2D", "MatMul", "BatchMatMul"] }
TASK_QUEUE_ENABLE = { one_of = ["1", "2"] }
HCCL_IF_IP = { multi_node = true }

[hook]
certificate = false
"""


def _slurmd_env(tmp_path: Path) -> dict[str, str]:
    """What slurmd gives a Prolog: PATH and SLURM_* only (plus the test's sysroot)."""
    root = tmp_path / "root"
    root.mkdir()
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(README_CONTRACT)
    env = clean_env(
        AMPENV_SYSROOT=str(root),
        AMPENV_CONFIG=str(cfg),
        SLURM_JOB_ID="42",
        SLURM_JOB_USER="alice",
        SLURMD_NODENAME="n1",
        SLURM_JOB_NODELIST="n[1-2]",
        SLURM_JOB_NUM_NODES="2",
        TMPDIR=str(tmp_path),
    )
    return env


def test_hook_slurm_with_an_env_contract_passes_a_healthy_node(tmp_path):
    ran = run_ampenv("hook", "slurm", env=_slurmd_env(tmp_path))
    assert ran.returncode == 0, (ran.stdout, ran.stderr)
    assert ran.stdout == ""


def test_the_same_contract_is_judged_where_the_job_runs(tmp_path):
    """`ampenv run` (the job's environment) still judges the contract: a forbidden op in
    the job's variables stops it fail-closed."""
    env = _slurmd_env(tmp_path)
    env["NPU_FUZZY_COMPILE_BLACKLIST"] = "Conv2D"
    marker = tmp_path / "started"
    ran = run_ampenv("run", "--", "touch", str(marker), env=env)
    assert ran.returncode == 1, ran
    assert not marker.exists()
    assert "Conv2D" in ran.stderr


def test_the_task_prolog_snippet_exists_and_runs_env_in_the_jobs_environment():
    snippet = Path(__file__).resolve().parent.parent / "docker" / "slurm-taskprolog.sh"
    text = snippet.read_text()
    assert "ampenv" in text and "env" in text
