"""Renderers and exit codes: the contracts scripts and hooks rely on."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest
from conftest import clean_env, run_ampenv

SCHEMA = json.loads(
    (Path(__file__).parent.parent / "ampenv" / "report" / "report.schema.json").read_text()
)

PLUGINS = {
    "warns": """
from ampenv.checks import Result, check

@check("site.warns", title="Warns")
def warns(ctx):
    return Result.warn("scratch is 91% full", remedy="rm -rf /scratch/old")
""",
    "fails": """
from ampenv.checks import Result, check

@check("site.fails", title="Fails")
def fails(ctx):
    return Result.fail("no scratch", remedy="mount /scratch", details=["mount table empty"])
""",
    "errors": """
from ampenv.checks import check

@check("site.errors", title="Errors")
def errors(ctx):
    raise OSError("cannot look")
""",
}


def site(tmp_path: Path, *names: str) -> dict[str, str]:
    folder = tmp_path / "site"
    folder.mkdir()
    for n in names:
        (folder / f"{n}.py").write_text(textwrap.dedent(PLUGINS[n]))
    return clean_env(AMPENV_CHECKS_PATH=str(folder))


def test_json_output_validates_against_the_shipped_schema(tmp_path):
    ran = run_ampenv("doctor", "-p", "quick", "-f", "json", env=site(tmp_path, "warns", "fails"))
    jsonschema.validate(ran.json, SCHEMA)
    assert ran.json["status"] == "fail" and ran.json["exit_code"] == 1 == ran.returncode


def test_the_schema_rejects_a_warning_without_remedy(tmp_path):
    report = run_ampenv("doctor", "-p", "quick", "-f", "json", env=site(tmp_path, "warns")).json
    next(c for c in report["checks"] if c["id"] == "site.warns")["remedy"] = None
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, SCHEMA)


@pytest.mark.parametrize(
    ("plugins", "args", "code"),
    [
        ((), (), 0),
        (("warns",), (), 0),
        (("warns",), ("--strict",), 1),
        (("fails", "errors"), (), 1),
        (("errors",), (), 3),
    ],
)
def test_exit_codes(tmp_path, plugins, args, code):
    ran = run_ampenv("doctor", "-p", "quick", *args, env=site(tmp_path, *plugins))
    assert ran.returncode == code, ran.stdout + ran.stderr


@pytest.mark.parametrize("flag", ["--only", "--skip"])
def test_a_check_id_nobody_has_is_a_usage_error_not_a_healthy_node(tmp_path, flag):
    ran = run_ampenv("doctor", "-p", "quick", flag, "npu.devcies", env=site(tmp_path, "fails"))
    assert ran.returncode == 2, ran.stdout + ran.stderr
    assert f"{flag} npu.devcies: no check or family" in ran.stderr
    assert "npu.devices" in ran.stderr  # the known ids, to spot the typo
    assert ran.stdout == ""


def test_text_report_marks_and_remedies_without_colour(tmp_path):
    ran = run_ampenv("doctor", "-p", "quick", env=site(tmp_path, "warns", "fails", "errors"))
    out = ran.stdout
    assert "[!] Warns (site.warns): scratch is 91% full" in out
    assert "    → rm -rf /scratch/old" in out
    assert "[✗] Fails (site.fails): no scratch" in out and "    • mount table empty" in out
    assert "[?] Errors (site.errors)" in out
    assert "\033[" not in out  # not a TTY, and NO_COLOR set
    assert out.rstrip().splitlines()[-1].startswith("UNHEALTHY")


def test_verbose_adds_facts_and_timings():
    out = run_ampenv("doctor", "-p", "quick", "-v", "--only", "host").stdout
    assert "cpu_count = " in out and " s)" in out


def test_junit_and_output_file(tmp_path):
    target = tmp_path / "report.xml"
    ran = run_ampenv(
        "doctor", "-p", "quick", "-f", "junit", "-o", str(target), env=site(tmp_path, "fails")
    )
    assert ran.stdout == ""
    suite = ET.fromstring(target.read_text())
    assert suite.get("failures") == "1"
    case = next(c for c in suite if c.get("name") == "site.fails")
    assert case.find("failure").get("message") == "no scratch"
    assert "remedy: mount /scratch" in case.find("failure").text


def test_an_output_that_cannot_be_written_is_a_usage_error_and_leaves_no_temp(tmp_path):
    ran = run_ampenv("doctor", "-p", "quick", "-o", str(tmp_path / "missing" / "r.json"))
    assert ran.returncode == 2 and "cannot write" in ran.stderr and "Traceback" not in ran.stderr
    folder = tmp_path / "r.json"  # a folder: the temp file is written, the rename fails
    (folder / "kept").mkdir(parents=True)
    ran = run_ampenv("doctor", "-p", "quick", "-o", str(folder))
    assert ran.returncode == 2 and "cannot write" in ran.stderr, ran.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temp file left
    assert [p.name for p in folder.iterdir()] == ["kept"]


def test_unknown_format_is_a_usage_error():
    ran = run_ampenv("doctor", "-f", "yaml")
    assert ran.returncode == 2 and "unknown format" in ran.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("doctor", "-p", "quick"),
        ("env",),
        ("config", "init"),
        ("certificate", "verify"),  # was exit 1, a certificate judged over nothing
        ("certificate", "show"),
        ("hook", "npd"),
    ],
)
def test_a_sysroot_that_is_not_a_folder_is_a_usage_error(tmp_path, command):
    ran = run_ampenv(*command, env=clean_env(AMPENV_SYSROOT=str(tmp_path / "typo")))
    # NPD reads its stdout, 80 bytes at most: the variable named first, the rest cut
    npd = command == ("hook", "npd")
    said = ran.stdout if npd else ran.stderr
    assert ran.returncode == 2 and "$AMPENV_SYSROOT" in said, said
    assert npd or "is not a folder" in said, said
    assert "Traceback" not in ran.stderr


def test_a_format_from_the_ampenv_formats_entry_point_group(tmp_path, sysroot):
    """A package adds an output format as flake8 adds formatters: an entry point names it."""
    site = tmp_path / "site"
    (site / "fancyfmt-1.0.dist-info").mkdir(parents=True)
    (site / "fancyfmt-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fancyfmt\nVersion: 1.0\n"
    )
    (site / "fancyfmt-1.0.dist-info" / "entry_points.txt").write_text(
        "[ampenv.formats]\nfancy = fancyfmt:render\ntext = fancyfmt:render\n"
    )
    (site / "fancyfmt.py").write_text(
        "def render(report, **options):\n"
        "    return f'FANCY {report.status.value} {len(report.checks)} checks'\n"
    )
    env = clean_env(PYTHONPATH=str(site), AMPENV_SYSROOT=str(sysroot))
    fancy = run_ampenv("doctor", "-p", "quick", "--only", "host", "-f", "fancy", env=env)
    assert fancy.stdout.startswith("FANCY pass 1 checks"), fancy.stderr
    builtin = run_ampenv("doctor", "-p", "quick", "--only", "host", "-f", "text", env=env)
    assert "FANCY" not in builtin.stdout  # a plugin never replaces a built-in format
    unknown = run_ampenv("doctor", "-p", "quick", "-f", "nope", env=env)
    assert unknown.returncode == 2
    assert "text, json, junit, prometheus, npd, fancy" in unknown.stderr
