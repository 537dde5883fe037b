"""ampenv hook npd: node-problem-detector's plugin protocol (0 OK, 1 NonOK, 2 Unknown, <= 80
bytes on stdout), on this CPU machine and with drop-in checks that fail or crash on purpose."""

from __future__ import annotations

import textwrap

from conftest import clean_env, run_ampenv
from hypothesis import given
from hypothesis import strategies as st

from ampenv.report.npd import truncate_utf8

PLUGIN = """\
from ampenv.checks import Result, check

@check("site.rule", title="A site rule")
def site_rule(ctx):
    {body}
"""


def _hook(tmp_path, body=None, config=None):
    env = clean_env()
    if body:
        plugins = tmp_path / "checks.d"
        plugins.mkdir()
        (plugins / "site.py").write_text(PLUGIN.format(body=body))
        env["AMPENV_CHECKS_PATH"] = str(plugins)
    if config is not None:
        (tmp_path / "ampenv.toml").write_text(textwrap.dedent(config))
        env["AMPENV_CONFIG"] = str(tmp_path / "ampenv.toml")
    return run_ampenv("hook", "npd", env=env)


def _message(ran) -> str:
    raw = ran.stdout.encode()
    assert len(raw) <= 80, raw
    raw.decode("utf-8")  # whole characters only
    return ran.stdout


def test_a_healthy_cpu_node_is_ok(tmp_path):
    ran = _hook(tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert _message(ran).startswith("ampenv: healthy")


def test_a_failed_check_is_nonok_and_its_long_multibyte_message_is_cut_safely(tmp_path):
    ran = _hook(tmp_path, 'return Result.fail("κόσμε " * 40, remedy="replace the node")')
    assert ran.returncode == 1
    message = _message(ran)
    assert message.startswith("ampenv: site.rule: κόσμε")
    assert message.rstrip("\n").endswith("...")


def test_a_crashed_check_is_unknown(tmp_path):
    ran = _hook(tmp_path, 'raise RuntimeError("driver library missing")')
    assert ran.returncode == 2
    assert "site.rule" in _message(ran)


def test_a_bad_config_is_unknown_not_a_crash(tmp_path):
    ran = _hook(tmp_path, config="[hook]\ntimeout = 'soon'\n")
    assert ran.returncode == 2
    assert "hook.timeout" in _message(ran)


@given(st.text(), st.integers(min_value=3, max_value=100))
def test_truncation_keeps_whole_characters_within_the_limit(text, limit):
    cut = truncate_utf8(text, limit)
    assert len(cut.encode()) <= limit
    assert cut == text or (cut.endswith("...") and text.startswith(cut[:-3]))


def test_a_value_with_a_newline_still_gives_one_line():
    env = clean_env(HCCL_CONNECT_TIMEOUT="600\nEVIL")
    ran = run_ampenv("hook", "npd", env=env)
    assert ran.returncode == 1
    assert ran.stdout.count("\n") == 1 and "'600 EVIL'" in ran.stdout
