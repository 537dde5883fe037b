"""Issue 18, item 17: Prometheus metric names in base units, HELP lines that point somewhere
real, the certify metrics in a file of their own, the certificate's expiry as a timestamp.
Reproduced first: `promtool check metrics` refused ampenv_smoke_amp_img_per_s and
ampenv_smoke_fp32_peak_mem_mb; HELP said "see design.md"; a quick run's textfile replaced the
smoke metrics."""

from __future__ import annotations

import datetime as dt
import shutil
import subprocess

import pytest
from conftest import clean_env, run_ampenv
from prometheus_client.parser import text_string_to_metric_families

from ampenv.checks import Result, Status
from ampenv.core.model import CheckRun, Report
from ampenv.integrations import certificate
from ampenv.probe import Probe
from ampenv.report import prometheus

SMOKE = {
    "fp32_img_per_s": 20.0,
    "amp_img_per_s": 41.5,
    "amp_speedup": 2.075,
    "fp32_peak_mem_mb": 1000.0,
    "amp_peak_mem_mb": 600.0,
    "mem_reduction": 0.4,
    "amp_loss_first": 7.0,
    "amp_loss_last": 6.0,
    "fp32_loss_last": 6.01,
    "loss_rel_diff": 0.002,
    "overflow_steps": 0,
    "final_loss_scale": 65536.0,
}


def _certify_report() -> Report:
    runs = [
        CheckRun("host.resources", "Host", Result(Status.PASS, "ok"), 0.25),
        CheckRun("smoke.resnet50", "Smoke", Result(Status.PASS, "fast", metrics=SMOKE), 30.0),
    ]
    return Report("certify", "cpu", "2026-01-02T03:04:05Z", 40.0, runs, host="node-7")


def _samples(text: str) -> dict[str, float]:
    return {
        s.name: s.value
        for fam in text_string_to_metric_families(text)
        for s in fam.samples
        if s.labels.get("status") in (None, "pass")
    }


def test_names_are_in_base_units_and_values_converted():
    got = _samples(prometheus.render(_certify_report(), certified=True))
    assert got["ampenv_smoke_amp_images_per_second"] == 41.5
    assert got["ampenv_smoke_fp32_images_per_second"] == 20.0
    assert got["ampenv_smoke_amp_peak_mem_bytes"] == 600.0 * 2**20
    assert got["ampenv_smoke_fp32_peak_mem_bytes"] == 1000.0 * 2**20
    for name in got:
        assert not name.endswith(("_mb", "_per_s")) and "_img_" not in name, name


def test_help_lines_point_to_nothing_missing():
    text = prometheus.render(_certify_report(), certified=True, certificate_expires=1.0)
    helps = [line for line in text.splitlines() if line.startswith("# HELP")]
    assert helps and not any("design.md" in line for line in helps)


@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool not installed")
def test_promtool_accepts_every_file():
    report = _certify_report()
    texts = [prometheus.render(report, certified=True, certificate_expires=1.8e9)]
    texts += prometheus.textfiles(report, certified=False, certificate_expires=1.8e9).values()
    for text in texts:
        ran = subprocess.run(["promtool", "check", "metrics"], input=text, text=True,
                             capture_output=True, timeout=30)  # fmt: skip
        assert ran.returncode == 0, ran.stdout + ran.stderr


def test_certify_metrics_have_their_own_file_and_no_family_is_in_two():
    files = prometheus.textfiles(_certify_report(), certified=True)
    assert set(files) == {"ampenv.prom", "ampenv_certify.prom"}
    node, smoke = (
        {f.name for f in text_string_to_metric_families(files[n])}
        for n in ("ampenv.prom", "ampenv_certify.prom")
    )
    assert not node & smoke
    assert "ampenv_smoke_amp_images_per_second" in smoke
    assert "ampenv_smoke_last_run_timestamp_seconds" in smoke


def test_a_quick_run_leaves_the_certify_file_be(tmp_path):
    textdir = tmp_path / "textfile"
    textdir.mkdir()
    certify_file = textdir / "ampenv_certify.prom"
    certify_file.write_text(prometheus.textfiles(_certify_report())["ampenv_certify.prom"])
    before = certify_file.read_text()
    env = clean_env(AMPENV_CERTIFICATE=str(tmp_path / "none.json"))
    ran = run_ampenv("doctor", "-p", "quick", "--textfile-dir", str(textdir), env=env)
    assert ran.returncode == 0, ran.stderr
    assert certify_file.read_text() == before
    assert (textdir / "ampenv.prom").exists()


def test_the_certificate_expiry_is_a_timestamp_metric(tmp_path):
    path = tmp_path / "certificate.json"
    env = clean_env(AMPENV_CERTIFICATE=str(path))
    report = Report("certify", "cpu", "2026-01-02T03:04:05Z", 1.0, [])
    cert = certificate.issue(report, Probe(env=env), 24.0)
    certificate.write(str(path), cert)
    ran = run_ampenv("doctor", "--profile", "quick", "--format", "prometheus", env=env)
    got = _samples(ran.stdout)
    expires = dt.datetime.fromisoformat(cert["expires_at"].replace("Z", "+00:00")).timestamp()
    assert got["ampenv_certificate_expiry_timestamp_seconds"] == expires
    assert got["ampenv_certified"] == 1
