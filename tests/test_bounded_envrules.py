"""Issue 18, item 7: a variable's value is data, never a format string. Reproduced first:
ASCEND_PROCESS_LOG_PATH='rel{x}' raised KeyError in the env rules (so `ampenv run` refused
the job), and a value holding {name} gave a wrong remedy."""

from __future__ import annotations

import shlex

import pytest
from conftest import clean_env, run_ampenv

from ampenv.knowledge import envrules
from ampenv.knowledge.envrules.judge import fill
from ampenv.knowledge.envrules.vocabulary import SET_OPTION_FIX, Node


@pytest.mark.parametrize("value", ["rel{x}", "rel{name}", "{value}/x", "a{0}b", "{", "}{"])
def test_a_relative_path_with_braces_gets_its_exact_remedy(value):
    rule = envrules.RULES["ASCEND_PROCESS_LOG_PATH"]
    findings = envrules.judge(rule, value, Node(env={}))
    remedy = next(f.remedy for f in findings if f.remedy)
    assert remedy == f'export ASCEND_PROCESS_LOG_PATH="$(realpath {shlex.quote(value)})"'


def test_set_option_fix_keeps_its_braces_and_the_value_as_is():
    line = fill(SET_OPTION_FIX, name="ACL_OP_COMPILER_CACHE_MODE", value="{name}")
    assert 'torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "{name}"})' in line


def test_the_cli_judges_a_value_with_braces(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    env = clean_env(AMPENV_SYSROOT=str(root), ASCEND_PROCESS_LOG_PATH="rel{x}")
    ran = run_ampenv("doctor", "-p", "quick", "--only", "env", "-f", "json", env=env)
    check = ran.check("env.npu")
    assert check["status"] == "warn", check
    assert "realpath 'rel{x}'" in check["remedy"]
    marker = tmp_path / "started"
    ran = run_ampenv("run", "--", "touch", str(marker), env=env)
    assert ran.returncode == 0, ran
    assert marker.exists()
