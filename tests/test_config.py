"""ampenv.toml: lookup order, validation naming file and key, and the baseline writer."""

from __future__ import annotations

import os

import pytest
from conftest import clean_env, run_ampenv
from hypothesis import given
from hypothesis import strategies as st

from ampenv.checks import Setting
from ampenv.core import config, settings


def test_lookup_order(tmp_path, sysroot):
    site = sysroot / "etc/ampenv/ampenv.toml"
    site.parent.mkdir(parents=True)
    site.write_text("")
    assert config.find(None, {}, str(sysroot)) == str(site)
    assert config.find(None, {"AMPENV_CONFIG": "/env.toml"}, str(sysroot)) == "/env.toml"
    assert config.find("/cli.toml", {"AMPENV_CONFIG": "/env.toml"}, str(sysroot)) == "/cli.toml"
    assert config.find(None, {}, str(tmp_path / "empty")) is None


def test_invalid_toml_is_exit_2_naming_the_file(tmp_path):
    bad = tmp_path / "ampenv.toml"
    bad.write_text("[checks\nskip = 1\n")
    ran = run_ampenv("doctor", "-p", "quick", "--config", str(bad))
    assert ran.returncode == 2
    assert str(bad) in ran.stderr and "not valid TOML" in ran.stderr
    assert ran.stdout == ""


def test_an_unknown_key_is_exit_2_naming_the_key(tmp_path):
    bad = tmp_path / "ampenv.toml"
    bad.write_text('[checks."host.resources"]\nmin_cpu = 4\n')
    ran = run_ampenv("doctor", "-p", "quick", env=clean_env(AMPENV_CONFIG=str(bad)))
    assert ran.returncode == 2
    assert f'{bad}: checks."host.resources".min_cpu: unknown key' in ran.stderr


def test_a_wrong_type_names_the_key(tmp_path):
    bad = tmp_path / "ampenv.toml"
    bad.write_text('[hook]\ndrain = "yes"\n')
    ran = run_ampenv("doctor", "-p", "quick", "--config", str(bad))
    assert ran.returncode == 2 and "hook.drain: must be bool" in ran.stderr


def test_a_missing_config_file_is_a_usage_error(tmp_path):
    ran = run_ampenv("doctor", "--config", str(tmp_path / "nope.toml"))
    assert ran.returncode == 2 and "cannot be read" in ran.stderr


def test_per_check_settings_change_the_verdict(tmp_path):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text('[checks."host.resources"]\nmin_cpus = 100000\n')
    ran = run_ampenv("doctor", "-p", "quick", "-f", "json", "--only", "host", "--config", str(cfg))
    r = ran.check("host.resources")
    assert r["status"] == "warn" and "fewer than 100000" in r["summary"] and r["remedy"]


def test_config_init_writes_a_baseline_that_loads_back(tmp_path):
    out = tmp_path / "baseline.toml"
    ran = run_ampenv("config", "init", "-o", str(out))
    assert ran.returncode == 0, ran.stderr
    text = out.read_text()
    assert '[checks."host.resources"]' in text and "# min_cpus" in text
    again = run_ampenv("doctor", "-p", "quick", "--only", "host", "--config", str(out))
    assert again.returncode == 0, again.stderr


def test_config_init_never_replaces_a_config_without_force(tmp_path):
    out = tmp_path / "ampenv.toml"
    out.write_text("# the site's own\n")
    ran = run_ampenv("config", "init", "-o", str(out))
    assert ran.returncode == 2 and "exists" in ran.stderr and "--force" in ran.stderr
    assert out.read_text() == "# the site's own\n"
    assert run_ampenv("config", "init", "-o", str(out), "--force").returncode == 0
    assert out.read_text().startswith("# ampenv.toml baseline")


# -- numbers: bounds and finiteness ------------------------------------------------------------
# Each value was accepted once, and hung the runner, removed fresh files, crashed on an overflow
# or changed a verdict. Every one is now a usage error naming the file and the key. The command
# is one that reads the key: sections are read by every command, [checks] by those that load the
# checks.
DOCTOR = ("doctor", "-p", "quick", "--only", "host")
BAD_NUMBERS = [
    ("runner", "workers", "0", "must be at least 1, got 0", DOCTOR),
    ("runner", "workers", "-3", "must be at least 1, got -3", DOCTOR),
    ("runner", "deadline", "-5", "must be at least 0, got -5", DOCTOR),
    ("runner", "deadline", "nan", "must be a finite number, got nan", DOCTOR),
    ("runner", "deadline", "1e12", "must be at most 604800", DOCTOR),
    ("cache", "stale_after_days", "-1", "must be more than 0, got -1", ("clean", "--yes")),
    ("cache", "stale_after_days", "0", "must be more than 0, got 0", ("clean", "--yes")),
    ("cache", "log_max_age_days", "-1", "must be more than 0, got -1", DOCTOR),
    ("cache", "log_tail_mb", "inf", "must be a finite number, got inf", DOCTOR),
    ("cache", "log_tail_mb", "0", "must be more than 0, got 0", DOCTOR),
    ("cache", "log_tail_mb", "2048", "must be at most 1024, got 2048", DOCTOR),
    ("hook", "timeout", "-1", "must be at least 2, got -1", ("hook", "slurm")),
    ("hook", "timeout", "0.001", "must be at least 2, got 0.001", ("hook", "slurm")),
    ("hook", "timeout", "nan", "must be a finite number, got nan", ("hook", "slurm")),
    ("certificate", "max_age_hours", "nan", "must be a finite number", ("certificate", "verify")),
    ("certificate", "max_age_hours", "inf", "must be a finite number", ("certificate", "verify")),
    ("certificate", "max_age_hours", "1e12", "must be at most 87600", ("certificate", "verify")),
    ("certificate", "max_age_hours", "0", "must be more than 0, got 0", ("certificate", "verify")),
    ('checks."npu.devices"', "timeout", "nan", "must be a finite number, got nan", DOCTOR),
    ('checks."npu.devices"', "timeout", "0", "must be more than 0, got 0", DOCTOR),
    ('checks."npu.devices"', "timeout", "-inf", "must be a finite number, got -inf", DOCTOR),
    ('checks."npu.devices"', "expected_count", "-1", "must be at least 0, got -1", DOCTOR),
    ('checks."host.resources"', "min_cpus", "-5", "must be at least 0, got -5", DOCTOR),
    ('checks."host.resources"', "min_mem_gb", "nan", "must be a finite number", DOCTOR),
    ('checks."cache.stale"', "scan_seconds", "0", "must be more than 0, got 0", DOCTOR),
    ('checks."python.stack"', "import_timeout", "-1", "must be more than 0", DOCTOR),
    ('checks."dist.allreduce"', "master_port", "70000", "must be at most 65535", DOCTOR),
    ('checks."smoke.resnet50"', "batch_size", "1", "must be at least 2, got 1", DOCTOR),
]


@pytest.mark.parametrize(
    ("section", "key", "value", "says", "command"),
    BAD_NUMBERS,
    ids=[f"{s}.{k}={v}" for s, k, v, _, _ in BAD_NUMBERS],
)
def test_a_number_out_of_range_is_exit_2_naming_the_file_and_key(
    tmp_path, section, key, value, says, command
):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(f"[{section}]\n{key} = {value}\n")
    ran = run_ampenv(*command, "--config", str(cfg))
    assert ran.returncode == 2, ran.stderr
    assert f"{cfg}: {section}.{key}: {says}" in ran.stderr
    assert ran.stderr.count("\n") == 1  # one line, no traceback


def test_fresh_files_survive_a_negative_stale_after_days(tmp_path):
    root = tmp_path / "site-cache"
    root.mkdir()
    (root / "fresh.bin").write_text("written just now")
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(f"[cache]\nroots = [{str(root)!r}]\nstale_after_days = -1\n")
    ran = run_ampenv("clean", "--yes", "--config", str(cfg))
    assert ran.returncode == 2 and "cache.stale_after_days" in ran.stderr
    assert (root / "fresh.bin").exists()


# The bounds themselves are allowed: each of these loads and runs (exit 0 or 1, never 2).
GOOD_NUMBERS = [
    ("runner", "workers", "1", DOCTOR),
    ("runner", "deadline", "0", DOCTOR),  # 0: the profile's default
    ("runner", "deadline", "604800", DOCTOR),
    ("cache", "log_tail_mb", "1024", DOCTOR),
    ("cache", "stale_after_days", "0.5", ("clean",)),
    ("hook", "timeout", "2", DOCTOR),
    ("certificate", "max_age_hours", "87600", ("certificate", "verify")),
    ("certificate", "max_age_hours", "0.01", ("certificate", "verify")),
    ('checks."host.resources"', "min_cpus", "0", DOCTOR),
    ('checks."host.resources"', "min_mem_gb", "0", DOCTOR),
    ('checks."npu.devices"', "timeout", "0.5", DOCTOR),
    ('checks."npu.devices"', "expected_count", "0", DOCTOR),
    ('checks."smoke.resnet50"', "threads", "0", DOCTOR),
]


@pytest.mark.parametrize(
    ("section", "key", "value", "command"),
    GOOD_NUMBERS,
    ids=[f"{s}.{k}={v}" for s, k, v, _ in GOOD_NUMBERS],
)
def test_a_number_on_its_bound_is_accepted(tmp_path, section, key, value, command):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(f"[{section}]\n{key} = {value}\n")
    ran = run_ampenv(*command, "--config", str(cfg))
    assert ran.returncode in (0, 1), ran.stderr
    assert f"{section}.{key}" not in ran.stderr


BAD_OPTIONS = [
    (("doctor", "-p", "quick", "--deadline", "-1"), "--deadline: must be more than 0"),
    (("doctor", "-p", "quick", "--deadline", "0"), "--deadline: must be more than 0"),
    (("doctor", "-p", "quick", "--deadline", "nan"), "--deadline: must be a finite number"),
    (("doctor", "-p", "quick", "--deadline", "inf"), "--deadline: must be a finite number"),
    (("certify", "--deadline", "nan"), "--deadline: must be a finite number"),
    (("certify", "--deadline", "-1"), "--deadline: must be more than 0"),
    (("hook", "npd", "--timeout", "0"), "--timeout: must be more than 0"),
    (("hook", "npd", "--timeout", "-1"), "--timeout: must be more than 0"),
    (("hook", "npd", "--timeout", "nan"), "--timeout: must be a finite number"),
    (("hook", "npd", "--timeout", "1e12"), "--timeout: must be at most 604800"),
]


@pytest.mark.parametrize(("args", "says"), BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_a_bad_deadline_or_timeout_option_is_a_one_line_usage_error(args, says):
    ran = run_ampenv(*args, "--config", os.devnull)
    assert ran.returncode == 2
    assert ran.stderr.startswith(f"ampenv: {says}") and ran.stderr.count("\n") == 1
    assert ran.stdout == ""


def test_a_positive_deadline_option_is_accepted():
    ran = run_ampenv("doctor", "-p", "quick", "--only", "host", "--deadline", "30")
    assert ran.returncode in (0, 1), ran.stderr


def _numbers(schema: dict[str, Setting]) -> dict[str, Setting]:
    return {k: s for k, s in schema.items() if s.type in (int, float)}


def test_every_built_in_number_has_a_default_within_its_bounds():
    from ampenv.core.registry import discover

    schemas = {name: s for name, s in config.SECTIONS.items() if isinstance(s, dict)}
    specs = discover(clean_env()).checks
    assert "npu.devices" in specs
    schemas.update({f'checks."{i}"': spec.settings for i, spec in specs.items()})
    for where, schema in schemas.items():
        for key, setting in _numbers(schema).items():
            if setting.default is not None:
                problem = settings.out_of_range(setting.default, setting)
                assert problem is None, f"{where}.{key}: {problem}"


def test_every_timeout_and_deadline_setting_has_a_lower_bound():
    """A timeout with no floor is the bug this guards against: nan, 0 or -1 hang or time out."""
    from ampenv.core.registry import discover

    schemas = {name: s for name, s in config.SECTIONS.items() if isinstance(s, dict)}
    schemas.update({i: spec.settings for i, spec in discover(clean_env()).checks.items()})
    for where, schema in schemas.items():
        for key, setting in _numbers(schema).items():
            if any(w in key for w in ("timeout", "deadline", "seconds", "days", "hours", "mb")):
                assert setting.gt is not None or setting.ge is not None, f"{where}.{key}"


@pytest.mark.parametrize(
    ("table", "key"),
    [('[run]\npolicy = "maybe"\n', "run.policy"), ('[run]\nprofile = "x"\n', "run.profile")],
)
def test_a_word_that_is_not_one_of_the_choices_is_refused(tmp_path, table, key):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(table)
    ran = run_ampenv("doctor", "-p", "quick", "--config", str(cfg))
    assert ran.returncode == 2 and f"{cfg}: {key}: must be one of" in ran.stderr


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ('[cache]\nroots = ["/data/\\u0000x"]\n', "cache.roots"),
        ('[hook]\nlock_file = "/run/a\\u0000.lock"\n', "hook.lock_file"),
        ('[env]\nHCCL_IF_IP = "10.0.0.1\\u0000"\n', "env.HCCL_IF_IP"),
        (
            '[env.ASCEND_RT_VISIBLE_DEVICES]\none_of = ["0", "1\\u0000"]\n',
            "env.ASCEND_RT_VISIBLE_DEVICES",
        ),
    ],
)
def test_a_nul_in_a_string_setting_is_refused_with_its_key(tmp_path, table, key):
    # `clean` once died on it ("embedded null byte") after `config show` had accepted it
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text(table)
    ran = run_ampenv("config", "show", "--config", str(cfg))
    assert ran.returncode == 2 and "holds a NUL character; refused" in ran.stderr
    assert f"{cfg}: {key}" in ran.stderr


@given(st.text(max_size=40))
def test_a_value_is_shown_on_one_line_and_reads_back_as_it_was(value: str) -> None:
    # `config show` and `config init` write values as TOML strings: a newline, an escape
    # sequence, a C1 control, a direction mark inside one is escaped, never printed raw; a
    # lone surrogate (a non-UTF-8 byte of the environment) reads back as U+FFFD
    shown = config.toml_value(value)
    assert shown.isprintable()
    unpaired = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in value)
    assert config._loads(f"x = {shown}", "shown")["x"] == unpaired


def test_a_key_s_control_characters_are_escaped_in_the_error(tmp_path) -> None:
    # a key is the user's text: its newline must not split the error line
    cfg = tmp_path / "k.toml"
    cfg.write_text('["x\\ny\\u001b[31m"]\nz = 1\n')
    ran = run_ampenv("config", "show", "-c", str(cfg))
    assert ran.returncode == 2
    assert "x\\ny\\x1b[31m: unknown section" in ran.stderr and "\x1b" not in ran.stderr
