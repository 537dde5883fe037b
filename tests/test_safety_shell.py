"""Issue 17, item 9: every line of ``ampenv env --export`` is safe for ``eval`` in bash, dash
and zsh, whatever the environment and the config hold. Hostile values are generated; each
shell evals the output (as a whole and line by line) in a scratch folder, and nothing runs."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import clean_env, run_ampenv

from ampenv.knowledge.envcontract import export_script, shell_comment, validate

SHELLS = ["bash", "dash", "zsh"]
PIECES = [
    "\n", "\r", "\x1b[2J", "\t", "'", '"', "\\", "`", "$", "$(", ")", ";", "&", "|", "#", "!",
    "{", "}", "*", "?", "~", "%", " ", "\u2028", "é", "\x7f", "touch pwned", "$(touch pwned)",
    "`touch pwned`", "'; touch pwned; '", '"; touch pwned; "', "\ntouch pwned\n", "${IFS}",
]  # fmt: skip


def _hostile(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 8)))


def _eval(shell: str, script: str, cwd: Path, per_line: bool) -> subprocess.CompletedProcess:
    path = shutil.which(shell)
    if path is None:
        pytest.skip(f"{shell} is not installed")
    (cwd / "out.sh").write_text(script)
    if per_line:
        body = 'while IFS= read -r line; do eval "$line"; done < out.sh\n'
    else:
        body = 'eval "$(cat out.sh)"\n'
    body += 'env > env.txt\n'
    return subprocess.run([path, "-c", body], cwd=cwd, capture_output=True, text=True, timeout=30,
                          env={"PATH": os.environ["PATH"]})  # fmt: skip


def _contract(values: list[str]) -> dict:
    table = {"AMPENV_T0": {"default": "plain"}}
    for i, value in enumerate(values):
        table[f"AMPENV_T{i + 1}"] = {"default": value}
    return validate(table, "ampenv.toml")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("seed", range(6))
def test_generated_hostile_values_never_run(tmp_path: Path, shell: str, seed: int) -> None:
    rng = random.Random(seed)
    env = {
        "SLURM_NNODES": _hostile(rng),
        "WORLD_SIZE": _hostile(rng),
        "LOCAL_WORLD_SIZE": _hostile(rng),
        "AMPENV_T1": _hostile(rng),  # set already, meets the contract: kept
    }
    terms = _contract([_hostile(rng) for _ in range(4)])
    source = f"/etc/ampenv/{_hostile(rng)}.toml"
    script, _ = export_script(terms, env, source)
    for per_line in (False, True):
        ran = _eval(shell, script, tmp_path, per_line)
        assert ran.returncode == 0, (ran.stderr, script)
        assert not (tmp_path / "pwned").exists(), script
        assert ran.stderr == "", (ran.stderr, script)
    exported = (tmp_path / "env.txt").read_text()
    assert "AMPENV_T0=plain" in exported


def test_the_red_team_case_a_newline_in_slurm_nnodes(tmp_path: Path) -> None:
    env = {"SLURM_NNODES": "2\ntouch pwned"}
    script, _ = export_script(_contract([]), env, "/etc/ampenv/ampenv.toml")
    assert all(line.startswith(("#", "export ", "unset ")) for line in script.splitlines())
    for shell in ("bash", "dash"):
        _eval(shell, script, tmp_path, per_line=False)
        assert not (tmp_path / "pwned").exists()


def test_a_config_path_with_a_newline_through_the_cli(tmp_path: Path) -> None:
    folder = tmp_path / "conf\ntouch pwned\n"
    folder.mkdir()
    config = folder / "ampenv.toml"
    config.write_text('[env]\nHCCL_CONNECT_TIMEOUT = { default = "1200", min = 600 }\n')
    ran = run_ampenv("env", "--export", "--config", str(config), env=clean_env())
    assert ran.returncode == 0, ran.stderr
    lines = ran.stdout.splitlines()
    assert all(line.startswith(("#", "export ")) for line in lines), lines
    assert "export HCCL_CONNECT_TIMEOUT=1200" in lines
    _eval("bash", ran.stdout, tmp_path, per_line=True)
    assert not (tmp_path / "pwned").exists()


def test_a_value_with_a_control_character_is_not_exported_but_named(tmp_path: Path) -> None:
    script, unmet = export_script(_contract(["a\nb"]), {}, "x.toml")
    assert "AMPENV_T1" not in [ln.split("=")[0][7:] for ln in script.splitlines()]
    assert any(u.startswith("AMPENV_T1: its value holds a control character") for u in unmet)


def test_values_without_control_characters_round_trip(tmp_path: Path) -> None:
    values = ["a b", "it's", '"q"', "$(x)", "`y`", "\\", "é ü", "!#;&|*?~%{}"]
    script, unmet = export_script(_contract(values), {}, "x.toml")
    assert unmet == []
    for shell in ("bash", "dash"):
        _eval(shell, script, tmp_path, per_line=True)
        env = dict(
            line.split("=", 1) for line in (tmp_path / "env.txt").read_text().splitlines()
            if line.startswith("AMPENV_T")
        )
        assert [env[f"AMPENV_T{i + 1}"] for i in range(len(values))] == values


def test_shell_comment_escapes_what_is_not_printable() -> None:
    assert shell_comment("a\nb\r\x1b\x00c") == "# a\\nb\\r\\x1b\\x00c"
    assert "\n" not in shell_comment("x" + "\n" * 3)
