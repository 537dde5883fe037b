"""--format prometheus and --textfile-dir, read back with prometheus_client's own parser."""

from __future__ import annotations

import datetime as dt

import pytest
from conftest import clean_env, run_ampenv
from prometheus_client.parser import text_string_to_metric_families

from ampenv.checks import Result, Status
from ampenv.core.model import CheckRun, Report
from ampenv.integrations import certificate
from ampenv.probe import Probe
from ampenv.report import render

SMOKE_METRICS = {"amp_img_per_s": 41.5, "amp_speedup": 1.92, "overflow_steps": 0}


def _report(*runs: CheckRun) -> Report:
    return Report("certify", "cpu", "2026-01-02T03:04:05Z", 12.5, list(runs), host="node-7")


def _families(text: str) -> dict:
    return {f.name: f for f in text_string_to_metric_families(text)}


def _value(families: dict, name: str, **labels: str) -> float:
    matches = [s.value for s in families[name].samples if s.labels == labels]
    assert len(matches) == 1, (name, labels, families[name].samples)
    return matches[0]


def test_every_series_parses_with_the_right_values():
    report = _report(
        CheckRun("host.resources", "Host", Result(Status.PASS, "ok"), 0.25),
        CheckRun("env.hccl", "HCCL", Result(Status.WARN, "low", remedy="export X=1"), 0.5),
        CheckRun("smoke.resnet50", "Smoke", Result(Status.PASS, "fast", metrics=SMOKE_METRICS)),
    )
    fams = _families(render(report, "prometheus", certified=True))

    for check, status in (("host.resources", "pass"), ("env.hccl", "warn")):
        one_hot = {s.value: _value(fams, "ampenv_check_status", check=check, status=s.value)
                   for s in Status}  # fmt: skip
        assert one_hot == {s.value: float(s.value == status) for s in Status}
    assert _value(fams, "ampenv_check_duration_seconds", check="env.hccl") == 0.5
    finished = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc).timestamp() + 12.5
    assert _value(fams, "ampenv_last_run_timestamp_seconds") == finished
    assert _value(fams, "ampenv_node_healthy") == 1  # a warning leaves the node healthy
    assert _value(fams, "ampenv_certified") == 1
    assert _value(fams, "ampenv_smoke_amp_speedup", check="smoke.resnet50") == 1.92
    assert _value(fams, "ampenv_smoke_overflow_steps", check="smoke.resnet50") == 0
    assert all(f.type == "gauge" and f.documentation for f in fams.values())


def test_a_failed_check_makes_the_node_unhealthy_and_certified_is_left_out_when_unknown():
    report = _report(
        CheckRun("npu.devices", "NPU", Result(Status.FAIL, "alarm", remedy="reset it"))
    )
    fams = _families(render(report, "prometheus"))
    assert _value(fams, "ampenv_node_healthy") == 0
    assert "ampenv_certified" not in fams  # not verified: no claim either way


@pytest.mark.parametrize("odd", ['site."quoted"', "back\\slash", "new\nline"])
def test_label_values_are_escaped(odd):
    report = _report(CheckRun(odd, "odd plugin id", Result(Status.ERROR, "crashed")))
    fams = _families(render(report, "prometheus"))
    assert _value(fams, "ampenv_check_status", check=odd, status="error") == 1


def test_doctor_writes_the_textfile_atomically(tmp_path):
    textdir = tmp_path / "textfile"
    env = clean_env(AMPENV_CERTIFICATE=str(tmp_path / "no-certificate.json"))
    ran = run_ampenv(
        "doctor", "--profile", "quick", "--format", "prometheus",
        "--textfile-dir", str(textdir), env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    written = (textdir / "ampenv.prom").read_text()
    assert [p.name for p in textdir.iterdir()] == ["ampenv.prom"]  # no temp file left behind
    assert written.endswith("\n")
    fams = _families(written)
    assert _value(fams, "ampenv_check_status", check="host.resources", status="pass") == 1
    assert _value(fams, "ampenv_certified") == 0  # `certificate verify` refuses: none here
    stdout_fams = _families(ran.stdout)
    assert set(stdout_fams) == set(fams)


def test_a_textfile_dir_that_cannot_be_written_is_said_after_the_report(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    ran = run_ampenv("doctor", "--profile", "quick", "--textfile-dir", str(blocker / "x"))
    assert ran.returncode == 2 and f"--textfile-dir {blocker / 'x'}" in ran.stderr
    assert "Traceback" not in ran.stderr
    assert "HEALTHY" in ran.stdout  # the report is out before the textfile is tried


def test_certified_is_what_certificate_verify_says(tmp_path):
    path = tmp_path / "certificate.json"
    env = clean_env(AMPENV_CERTIFICATE=str(path))
    report = Report("certify", "cpu", "2026-01-02T03:04:05Z", 1.0, [])
    certificate.write(str(path), certificate.issue(report, Probe(env=env), 24.0))
    ran = run_ampenv("doctor", "--profile", "quick", "--format", "prometheus", env=env)
    assert _value(_families(ran.stdout), "ampenv_certified") == 1, ran.stderr
