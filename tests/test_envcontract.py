"""The cluster's contract ([env] in ampenv.toml): parsing, judging, multi-node jobs, and
`ampenv env --export`, whose lines, once eval'd, make the env checks pass."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import REPO, clean_env, run_ampenv

from ampenv.checks import Status
from ampenv.core.settings import ConfigError
from ampenv.knowledge.envcontract import JobShape, Term, export_lines, job_shape, judge, validate

SINGLE = JobShape(False, "test: single node")
MULTI = JobShape(True, "test: SLURM_NNODES=2")


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("2", Term("V", equals="2", required=True)),
        (2, Term("V", equals="2", required=True)),
        ({"min": 600, "max": 7200}, Term("V", min=600, max=7200)),
        ({"forbid": ["Conv2D"]}, Term("V", forbid=("Conv2D",))),
        ({"one_of": ["1", 2]}, Term("V", one_of=("1", "2"))),
        ({"required": True}, Term("V", required=True)),
        ({"multi_node": True}, Term("V", multi_node=True)),
        ({"equals": "a", "required": False}, Term("V", equals="a")),
        ({"min": 1, "default": 1200}, Term("V", min=1, default="1200")),
    ],
)
def test_valid_entries(spec, expected):
    assert validate({"V": spec}, "site.toml") == {"V": expected}


@pytest.mark.parametrize(
    "name, spec, message",
    [
        ("V", True, 'value must be a string or a number, got True (quote it: "1", "true")'),
        ("V", ["a"], "value must be a string or a number"),
        ("V", {}, "is empty: give a value, or a table of equals, one_of"),
        ("V", {"minimum": 1}, "unknown key 'minimum' (known: equals, one_of, min, max"),
        ("V", {"min": "600"}, "min must be a number, got '600'"),
        ("V", {"min": 10, "max": 1}, "min 10 is above max 1"),
        ("V", {"forbid": "Conv2D"}, "forbid must be a non-empty list"),
        ("V", {"one_of": []}, "one_of must be a non-empty list"),
        ("V", {"required": "yes"}, "required must be true or false"),
        ("V", {"equals": "1", "min": 0}, "cannot be combined with one_of, min or max"),
        ("V", {"min": 600, "default": "60"}, "default '60' is below the contract's minimum 600"),
        ("V", {"forbid": ["MatMul"], "default": "MatMul"}, "default 'MatMul' holds MatMul"),
        ("TASK_QUEUE_ENABLE", "5", "value '5' is not valid (valid: 0, 1, 2)"),
        ("HCCL_CONNECT_TIMEOUT", {"default": "60"}, "default '60' is out of range"),
        ("1BAD", "x", "is not an environment variable name"),
    ],
)
def test_invalid_entries_name_the_file_and_the_variable(name, spec, message):
    with pytest.raises(ConfigError) as err:
        validate({name: spec}, "site.toml")
    assert (err.value.path, err.value.key) == ("site.toml", f"env.{name}")
    assert message in err.value.message


@pytest.mark.parametrize("command", [("doctor", "-p", "quick"), ("env", "--export")])
def test_a_bad_contract_is_a_usage_error(tmp_path, command):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text('[env]\nHCCL_CONNECT_TIMEOUT = { min = "600" }\n')
    ran = run_ampenv(*command, "--config", str(cfg))
    assert ran.returncode == 2 and ran.stdout == ""
    assert f"{cfg}: env.HCCL_CONNECT_TIMEOUT: min must be a number" in ran.stderr


@pytest.mark.parametrize(
    "env, multi, reason",
    [
        ({}, False, "no Slurm, torchrun or MPI job variables"),
        ({"SLURM_NNODES": "4"}, True, "SLURM_NNODES=4"),
        ({"SLURM_NNODES": "1"}, False, "SLURM_NNODES=1"),
        ({"SLURM_JOB_NUM_NODES": "2"}, True, "SLURM_JOB_NUM_NODES=2"),
        ({"WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "8"}, True, "WORLD_SIZE=16, LOCAL_WORLD_SIZE=8"),
        ({"WORLD_SIZE": "8", "LOCAL_WORLD_SIZE": "8"}, False, "WORLD_SIZE=8, LOCAL_WORLD_SIZE=8"),
        ({"WORLD_SIZE": "16"}, False, "no Slurm"),  # no local size: cannot tell
        ({"GROUP_WORLD_SIZE": "2"}, True, "GROUP_WORLD_SIZE=2"),
        ({"PET_NNODES": "1:4"}, True, "PET_NNODES=1:4"),
        ({"OMPI_COMM_WORLD_SIZE": "32", "OMPI_COMM_WORLD_LOCAL_SIZE": "8"}, True, "OMPI"),
        ({"SLURM_NNODES": "1", "WORLD_SIZE": "16", "LOCAL_WORLD_SIZE": "8"}, True, "WORLD_SIZE"),
        ({"SLURM_NNODES": "x"}, False, "no Slurm"),
    ],
)
def test_job_shape(env, multi, reason):
    shape = job_shape(env)
    assert shape.multi_node is multi and reason in shape.reason


P, F = Status.PASS, Status.FAIL


@pytest.mark.parametrize(
    "spec, value, shape, status, message, remedy",
    [
        # a plain value must be equal, and so set; CANN does not read HCCL_OP_LEVEL (said)
        ("2", "2", SINGLE, P, "HCCL_OP_LEVEL=2 meets the contract (= 2; required)", None),
        (
            "2", "1", SINGLE, F,
            "HCCL_OP_LEVEL=1 differs from the cluster's contract, which requires HCCL_OP_LEVEL=2"
            " (CANN does not read HCCL_OP_LEVEL: only this contract gives it meaning)",
            "export HCCL_OP_LEVEL=2",
        ),
        (
            "2", None, SINGLE, F, "HCCL_OP_LEVEL is unset, but the cluster's contract requires it",
            "export HCCL_OP_LEVEL=2",
        ),
    ],
)  # fmt: skip
def test_hccl_op_level_is_judged_by_the_contract(spec, value, shape, status, message, remedy):
    terms = validate({"HCCL_OP_LEVEL": spec}, "site.toml")
    env = {} if value is None else {"HCCL_OP_LEVEL": value}
    (found,) = judge(terms, env, shape, "site.toml")
    assert found.status is status and message in found.message
    assert found.remedy == remedy


@pytest.mark.parametrize(
    "name, spec, value, shape, status, message, remedy",
    [
        # ranges; an unset variable is judged by the default CANN then uses
        (
            "HCCL_CONNECT_TIMEOUT",
            {"min": 600},
            "1200",
            SINGLE,
            P,
            "meets the contract (in [600, inf])",
            None,
        ),
        (
            "HCCL_CONNECT_TIMEOUT",
            {"min": 600},
            "300",
            SINGLE,
            F,
            "=300 is below the contract's minimum 600",
            "export HCCL_CONNECT_TIMEOUT=600",
        ),
        (
            "HCCL_CONNECT_TIMEOUT",
            {"max": 1800},
            "3600",
            SINGLE,
            F,
            "is above the contract's maximum 1800",
            "export HCCL_CONNECT_TIMEOUT=1800",
        ),
        (
            "HCCL_CONNECT_TIMEOUT",
            {"min": 600, "default": "1200"},
            "300",
            SINGLE,
            F,
            "below",
            "export HCCL_CONNECT_TIMEOUT=1200",
        ),
        (
            "HCCL_CONNECT_TIMEOUT",
            {"min": 600},
            "ten",
            SINGLE,
            F,
            "is not a number, but the contract sets a range [600, inf]",
            "export HCCL_CONNECT_TIMEOUT=600",
        ),
        (
            "HCCL_CONNECT_TIMEOUT",
            {"min": 600},
            None,
            SINGLE,
            F,
            "unset, so CANN uses its default 120, which is below the contract's minimum 600",
            "export HCCL_CONNECT_TIMEOUT=600",
        ),
        (
            "HCCL_CONNECT_TIMEOUT",
            {"max": 600},
            None,
            SINGLE,
            P,
            "is unset, which the contract allows",
            None,
        ),
        # one_of
        (
            "TASK_QUEUE_ENABLE",
            {"one_of": ["1", "2"]},
            "2",
            SINGLE,
            P,
            "meets the contract (one of 1, 2)",
            None,
        ),
        (
            "TASK_QUEUE_ENABLE",
            {"one_of": ["1", "2"]},
            "0",
            SINGLE,
            F,
            "=0 is not one the contract allows (1, 2)",
            "export TASK_QUEUE_ENABLE=1",
        ),
        # forbidden tokens
        (
            "NPU_FUZZY_COMPILE_BLACKLIST",
            {"forbid": ["Conv2D", "MatMul"]},
            "Tril,SoftmaxV2",
            SINGLE,
            P,
            "meets the contract (without Conv2D, MatMul)",
            None,
        ),
        (
            "NPU_FUZZY_COMPILE_BLACKLIST",
            {"forbid": ["Conv2D", "MatMul"]},
            "Tril,matmul,Conv2D",
            SINGLE,
            F,
            "holds Conv2D, MatMul, which the contract forbids",
            "export NPU_FUZZY_COMPILE_BLACKLIST=Tril",
        ),
        (
            "NPU_FUZZY_COMPILE_BLACKLIST",
            {"forbid": ["Conv2D"]},
            "Conv2D",
            SINGLE,
            F,
            "holds Conv2D",
            "unset NPU_FUZZY_COMPILE_BLACKLIST",
        ),
        (
            "NPU_FUZZY_COMPILE_BLACKLIST",
            {"forbid": ["Conv2D"]},
            None,
            SINGLE,
            P,
            "unset, which the contract allows",
            None,
        ),
        # required, with and without a value to give
        (
            "RANK_TABLE_FILE",
            {"required": True},
            "/etc/hccl.json",
            SINGLE,
            P,
            "meets the contract (required)",
            None,
        ),
        (
            "RANK_TABLE_FILE",
            {"required": True},
            None,
            SINGLE,
            F,
            "RANK_TABLE_FILE is unset, but the cluster's contract requires it",
            'names none: add default = "..." to [env] RANK_TABLE_FILE',
        ),
        # required on multi-node jobs only
        (
            "HCCL_IF_IP",
            {"multi_node": True},
            None,
            SINGLE,
            P,
            "required on multi-node jobs only; this job is single-node",
            None,
        ),
        (
            "HCCL_IF_IP",
            {"multi_node": True},
            None,
            MULTI,
            F,
            "requires it on multi-node jobs (test: SLURM_NNODES=2)",
            "export HCCL_IF_IP=<value>",
        ),
        (
            "HCCL_IF_IP",
            {"multi_node": True, "default": "10.0.0.1"},
            None,
            MULTI,
            F,
            "requires it on multi-node jobs",
            "export HCCL_IF_IP=10.0.0.1",
        ),
        (
            "HCCL_IF_IP",
            {"multi_node": True},
            "10.0.0.1",
            MULTI,
            P,
            "meets the contract (required on multi-node jobs)",
            None,
        ),
        # a variable no rule knows
        (
            "MY_SITE_FLAG",
            "on",
            "off",
            SINGLE,
            F,
            "=off differs from the cluster's contract, which requires MY_SITE_FLAG=on",
            "export MY_SITE_FLAG=on",
        ),
        # secrets: neither value is shown, in the message or the remedy
        (
            "WANDB_API_KEY",
            "k-expected",
            "k-live",
            SINGLE,
            F,
            "differs from the cluster's contract, which requires WANDB_API_KEY='<redacted>'",
            "export WANDB_API_KEY=... (the value [env] WANDB_API_KEY",
        ),
    ],
)
def test_judge(name, spec, value, shape, status, message, remedy):
    terms = validate({name: spec}, "site.toml")
    env = {} if value is None else {name: value}
    (found,) = judge(terms, env, shape, "site.toml")
    assert found.status is status, found.message
    assert message in found.message
    if remedy is None:
        assert found.remedy is None
    else:
        assert remedy in found.remedy


CONTRACT = {
    "HCCL_OP_LEVEL": "2",
    "HCCL_CONNECT_TIMEOUT": {"min": 600, "max": 7200, "default": "1200"},
    "HCCL_EXEC_TIMEOUT": {"min": 300},
    "NPU_FUZZY_COMPILE_BLACKLIST": {"forbid": ["Conv2D", "MatMul", "BatchMatMul"]},
    "TASK_QUEUE_ENABLE": {"one_of": ["1", "2"]},
    "HCCL_IF_IP": {"multi_node": True},
}


@pytest.mark.parametrize(
    "env, shape, lines, unmet",
    [
        (
            {},
            SINGLE,
            ["export HCCL_OP_LEVEL=2", "export HCCL_CONNECT_TIMEOUT=1200"],
            [],
        ),
        (
            {"HCCL_OP_LEVEL": "2", "HCCL_CONNECT_TIMEOUT": "3600", "TASK_QUEUE_ENABLE": "2"},
            SINGLE,
            [
                "export HCCL_OP_LEVEL=2",
                "export HCCL_CONNECT_TIMEOUT=3600",
                "export TASK_QUEUE_ENABLE=2",
            ],
            [],
        ),
        (
            {
                "HCCL_OP_LEVEL": "3",
                "HCCL_CONNECT_TIMEOUT": "60",
                "HCCL_EXEC_TIMEOUT": "100",
                "NPU_FUZZY_COMPILE_BLACKLIST": "MatMul,Conv2D",
                "TASK_QUEUE_ENABLE": "0",
            },
            SINGLE,
            [
                "export HCCL_OP_LEVEL=2",
                "export HCCL_CONNECT_TIMEOUT=1200",
                "export HCCL_EXEC_TIMEOUT=300",
                "unset NPU_FUZZY_COMPILE_BLACKLIST",
                "export TASK_QUEUE_ENABLE=1",
            ],
            [],
        ),
        (
            {},
            MULTI,
            ["export HCCL_OP_LEVEL=2", "export HCCL_CONNECT_TIMEOUT=1200"],
            ["HCCL_IF_IP: required by the contract, which names no value for it"],
        ),
    ],
)
def test_export_lines(env, shape, lines, unmet):
    assert export_lines(validate(CONTRACT, "site.toml"), env, shape) == (lines, unmet)


def _bash(script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120, cwd=REPO
    )


def test_eval_of_the_export_satisfies_the_contract(tmp_path):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(
        "[env]\n"
        'HCCL_OP_LEVEL = "2"\n'
        'HCCL_CONNECT_TIMEOUT = { min = 600, max = 7200, default = "1200" }\n'
        'NPU_FUZZY_COMPILE_BLACKLIST = { forbid = ["Conv2D", "MatMul"] }\n'
        "SITE_LAUNCH_FLAGS = { default = \"--tag 'a b' $HOME;x\" }\n"
    )
    env = clean_env(
        AMPENV_CONFIG=str(cfg), HCCL_OP_LEVEL="1", NPU_FUZZY_COMPILE_BLACKLIST="Tril,Conv2D"
    )
    before = run_ampenv("doctor", "-p", "quick", "--only", "env", "-f", "json", env=env)
    assert before.returncode == 1
    ampenv = f"{sys.executable} -m ampenv"
    ran = _bash(
        f'set -e; out="$({ampenv} env --export)"; eval "$out"; '
        f'printf "%s\\n" "$SITE_LAUNCH_FLAGS"; {ampenv} doctor -p quick --only env.hccl -f json',
        env,
    )
    assert ran.returncode == 0, ran.stderr
    flags, report = ran.stdout.split("\n", 1)
    assert flags == "--tag 'a b' $HOME;x"  # quoted for the shell: nothing expanded or split
    assert '"status": "pass"' in report and "meets the contract" in report


def test_export_exits_1_and_says_what_it_cannot_satisfy(tmp_path):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text('[env]\nHCCL_IF_IP = { multi_node = true }\nHCCL_OP_LEVEL = "2"\n')
    env = clean_env(AMPENV_CONFIG=str(cfg), SLURM_NNODES="2")
    ran = run_ampenv("env", "--export", env=env)
    assert ran.returncode == 1
    assert ran.stdout.splitlines()[1:] == [
        "export HCCL_OP_LEVEL=2",
        "# unmet: HCCL_IF_IP: required by the contract, which names no value for it",
    ]
    assert ran.stdout.startswith(f"# ampenv env --export: [env] of {cfg}; multi-node job")
    assert "ampenv: unmet: HCCL_IF_IP" in ran.stderr


def test_a_secret_contract_shows_neither_value():
    terms = validate({"WANDB_API_KEY": "k-expected"}, "site.toml")
    for env in ({"WANDB_API_KEY": "k-live"}, {}):
        (found,) = judge(terms, env, SINGLE, "site.toml")
        shown = found.message + found.remedy
        assert found.status is F and "k-live" not in shown and "k-expected" not in shown
