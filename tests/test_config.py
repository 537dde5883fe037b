"""ampenv.toml: lookup order, validation naming file and key, and the baseline writer."""

from __future__ import annotations

from conftest import clean_env, run_ampenv

from ampenv import config


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
