"""Drop-in plugins load through the same door as built-ins; bad ones never break the run."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from conftest import clean_env, run_ampenv

from ampenv.core.registry import discover

GOOD = """
from ampenv.checks import Result, check

@check("site.scratch", title="Site scratch space")
def scratch(ctx):
    '''The site's scratch file system is mounted.'''
    return Result.ok("scratch mounted")
"""


def plugin_dir(tmp_path: Path, **files: str) -> Path:
    folder = tmp_path / "checks.d"
    folder.mkdir(mode=0o755)
    for name, text in files.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    return folder


def doctor(folder: Path, *args: str):
    env = clean_env(AMPENV_CHECKS_PATH=str(folder))
    return run_ampenv("doctor", "--profile", "quick", "--format", "json", *args, env=env)


def test_a_drop_in_check_runs_beside_the_built_ins(tmp_path):
    ran = doctor(plugin_dir(tmp_path, scratch=GOOD))
    assert ran.returncode == 0, ran.stderr
    assert ran.check("site.scratch")["status"] == "pass"
    assert ran.check("host.resources")["status"] in ("pass", "warn")


def test_a_drop_in_with_a_syntax_error_is_an_error_naming_file_and_line(tmp_path):
    folder = plugin_dir(tmp_path, broken="x = 1\ndef oops(:\n", scratch=GOOD)
    ran = doctor(folder)
    r = ran.check("plugin.broken")
    assert r["status"] == "error"
    assert f"{folder / 'broken.py'}:2" in r["summary"]
    assert ran.check("site.scratch")["status"] == "pass"
    assert ran.returncode == 3  # could not judge: an error and no failure


def test_a_drop_in_that_raises_on_import_names_the_line(tmp_path):
    folder = plugin_dir(tmp_path, raiser="import os\n\nraise ImportError('no scratch lib')\n")
    r = doctor(folder).check("plugin.raiser")
    assert r["status"] == "error"
    assert f"{folder / 'raiser.py'}:3" in r["summary"] and "no scratch lib" in r["summary"]


@pytest.mark.parametrize("code", ["0", "'bye'"])
def test_a_drop_in_that_calls_sys_exit_on_import_does_not_end_ampenv(tmp_path, code):
    folder = plugin_dir(tmp_path, quitter=f"import sys\n\nsys.exit({code})\n", scratch=GOOD)
    ran = doctor(folder)
    assert ran.returncode == 3, ran.stdout + ran.stderr
    r = ran.check("plugin.quitter")
    assert r["status"] == "error" and f"{folder / 'quitter.py'}:3" in r["summary"]
    assert "SystemExit" in r["summary"]
    assert ran.check("site.scratch")["status"] == "pass"


def test_a_plugin_folder_that_is_not_there_is_an_error_not_a_silent_pass(tmp_path):
    ran = doctor(tmp_path / "checks.d-typo")
    assert ran.returncode == 3
    r = ran.check("plugin.checks.d-typo")
    assert r["status"] == "error" and "is not a folder" in r["summary"]


PRINTS = """
from ampenv.checks import Result, check
print("loading")

@check("site.noisy", title="Noisy", profile="quick")
def noisy(ctx):
    print("judging")
    return Result("fail", "noisy", remedy="hush", metrics={"n": float("nan"), "ok": 1.5})
"""


def test_what_a_plugin_prints_and_returns_cannot_break_the_json_report(tmp_path):
    ran = doctor(plugin_dir(tmp_path, noisy=PRINTS), "--only", "site")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    r = ran.check("site.noisy")  # stdout parsed as JSON: the prints went to stderr
    assert "loading" in ran.stderr and "judging" in ran.stderr
    assert r["status"] == "fail"  # a plain "fail" is taken as Status.FAIL
    assert r["metrics"] == {"ok": 1.5} and "not finite numbers" in " ".join(r["details"])


@pytest.mark.parametrize(
    ("result", "why"),
    [("Result('bad', 'x')", "ValueError"), ("Result.ok('x', metrics={'s': 'fast'})", None)],
)
def test_a_result_of_the_wrong_shape_is_caught(tmp_path, result, why):
    plugin = f"from ampenv.checks import Result, check\n\n@check('site.odd', title='Odd')\n" \
             f"def odd(ctx):\n    return {result}\n"  # fmt: skip
    r = doctor(plugin_dir(tmp_path, odd=plugin), "--only", "site").check("site.odd")
    if why:
        assert r["status"] == "error" and why in r["summary"]
    else:
        assert r["status"] == "pass" and r["metrics"] == {}


@pytest.mark.parametrize("bad_id", ["", "nodot", 'site."q"', "site.new\\nline"])
def test_an_id_that_is_no_family_and_name_is_refused_at_load(tmp_path, bad_id):
    plugin = f"from ampenv.checks import Result, check\n\n@check({bad_id!r}, title='x')\n" \
             "def odd(ctx):\n    return Result.ok('x')\n"  # fmt: skip
    r = doctor(plugin_dir(tmp_path, badid=plugin)).check("plugin.badid")
    assert r["status"] == "error" and "must be a family and a name" in r["summary"]


def test_a_duplicate_id_is_an_error_naming_both_sources(tmp_path):
    dup = GOOD.replace("site.scratch", "host.resources")
    folder = plugin_dir(tmp_path, dup=dup)
    ran = doctor(folder)
    r = ran.check("plugin.duplicate.host.resources")
    assert r["status"] == "error"
    assert "builtin:host.py" in r["summary"] and str(folder / "dup.py") in r["summary"]
    assert ran.returncode == 3


def test_root_refuses_a_world_writable_plugin_folder(tmp_path):
    folder = plugin_dir(tmp_path, scratch=GOOD)
    folder.chmod(0o777)
    registry = discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=0)
    assert "site.scratch" not in registry.checks
    (problem,) = registry.problems
    assert "refused plugin folder as root" in problem.summary
    assert "writable by every user" in problem.summary


def test_root_refuses_a_plugin_file_owned_by_another_user(tmp_path):
    folder = plugin_dir(tmp_path, scratch=GOOD)
    if os.geteuid() == 0:
        os.chown(folder / "scratch.py", 1234, 1234)
        os.chown(folder, 0, 0)
    registry = discover(
        {"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=os.geteuid() or 0
    )
    if os.geteuid() != 0:
        pytest.skip("needs root to give the file away")
    (problem,) = registry.problems
    assert "owned by uid 1234" in problem.summary
    assert "site.scratch" not in registry.checks


@pytest.mark.skipif(os.geteuid() != 0, reason="the CLI refuses only when it runs as root")
def test_the_cli_as_root_reports_the_refusal_and_still_runs_the_rest(tmp_path):
    folder = plugin_dir(tmp_path, scratch=GOOD)
    folder.chmod(0o777)
    ran = doctor(folder)
    assert ran.check("plugin.checks.d")["status"] == "error"
    assert ran.check("host.resources")["status"] in ("pass", "warn")
    assert ran.returncode == 3


def test_checks_lists_id_title_profile_and_source(tmp_path):
    folder = plugin_dir(tmp_path, scratch=GOOD)
    ran = run_ampenv("checks", env=clean_env(AMPENV_CHECKS_PATH=str(folder)))
    line = next(ln for ln in ran.stdout.splitlines() if ln.startswith("site.scratch"))
    assert "quick" in line and "Site scratch space" in line and str(folder / "scratch.py") in line


def test_explain_prints_what_why_and_remedies():
    ran = run_ampenv("explain", "host.resources")
    assert ran.returncode == 0
    assert "What it verifies:" in ran.stdout and "Why it matters:" in ran.stdout
    assert "--shm-size" in ran.stdout
    assert run_ampenv("explain", "no.such").returncode == 2
