"""smoke.resnet50: the metrics and verdict on recorded real runs, and real runs on this CPU
(a short smoke, broken AMP, a hung and a killed child)."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from pathlib import Path

import psutil
import pytest
from conftest import FIXTURES, Ran, clean_env

from ampenv.active.smoke import parent as runner
from ampenv.active.smoke import verdict
from ampenv.checks import Status

RUNS = json.loads((FIXTURES / "smoke" / "cpu_default_runs.json").read_text())
CONTRACT_METRICS = {
    "fp32_img_per_s",
    "amp_img_per_s",
    "amp_speedup",
    "fp32_peak_mem_mb",
    "amp_peak_mem_mb",
    "mem_reduction",
    "amp_loss_first",
    "amp_loss_last",
    "fp32_loss_last",
    "loss_rel_diff",
    "overflow_steps",
    "final_loss_scale",
}
CONTRACT_FACTS = {"device", "amp_dtype", "opt_level", "image_size", "batch_size", "steps"}
DEFAULT_SETTINGS = {"min_loss_drop": 0.3, "loss_tolerance": 0.15}


def _recorded(**amp_changes) -> tuple[dict, dict, dict]:
    fp32, amp = copy.deepcopy(RUNS["fp32"]), copy.deepcopy(RUNS["amp"])
    amp.update(amp_changes)
    err = verdict.logits_max_rel_err(RUNS["fp32_logits"], RUNS["amp_logits"])
    return fp32, amp, verdict.measure(fp32, amp, err)


def _judge(backend: str = "cpu", settings: dict | None = None, **amp_changes):
    _, amp, metrics = _recorded(**amp_changes)
    facts = {**RUNS["plan"], "amp_dtype": amp["amp_dtype"], "peak_mem_source": "peak RSS"}
    thresholds = verdict.Thresholds.of(backend, {**DEFAULT_SETTINGS, **(settings or {})})
    return verdict.judge(metrics, amp, facts, thresholds)


# -- metrics and verdict on the recorded real CPU runs --------------------------------------
def test_metrics_follow_their_definitions():
    fp32, amp, m = _recorded()
    assert set(m) >= CONTRACT_METRICS
    assert m["amp_speedup"] == pytest.approx(amp["img_per_s"] / fp32["img_per_s"])
    assert m["mem_reduction"] == pytest.approx(1 - amp["peak_mem_mb"] / fp32["peak_mem_mb"])
    diff = abs(amp["losses"][-1] - fp32["losses"][-1]) / fp32["losses"][0]
    assert m["loss_rel_diff"] == pytest.approx(diff)
    assert 0 < m["amp_coverage"] <= 1


def test_recorded_cpu_runs_pass_with_figures_side_by_side():
    result = _judge()
    assert result.status is Status.PASS, result.summary
    assert "not judged on CPU without native bf16" in result.summary
    assert any(d.startswith("throughput: fp32") for d in result.details)
    assert set(result.metrics) >= CONTRACT_METRICS


def test_non_finite_amp_loss_fails_and_keeps_json_valid():
    losses = RUNS["amp"]["losses"][:1] + [math.nan] * (len(RUNS["amp"]["losses"]) - 1)
    result = _judge(losses=losses)
    assert result.status is Status.FAIL
    assert result.summary.startswith("AMP loss is nan from step 2")
    json.dumps(result.metrics, allow_nan=False)  # the report stays valid JSON
    assert result.facts["non_finite_metrics"]["amp_loss_last"] == "nan"


def test_every_step_overflowed_fails():
    steps = len(RUNS["amp"]["losses"])
    result = _judge(overflow_steps=steps, final_loss_scale=2.0**127)
    assert result.status is Status.FAIL
    assert f"every AMP step overflowed ({steps} of {steps})" in result.summary


def test_loss_that_does_not_fall_fails():
    first = RUNS["amp"]["losses"][0]
    result = _judge(losses=[first] * len(RUNS["amp"]["losses"]))
    assert result.status is Status.FAIL
    assert "AMP loss did not fall" in result.summary


def test_departure_from_fp32_beyond_tolerance_fails():
    result = _judge(settings={"loss_tolerance": 0.0001})
    assert result.status is Status.FAIL
    assert result.summary.startswith("AMP departs from FP32")


def test_npu_expectations_fail_and_show_expected():
    result = _judge("npu")  # this CPU's speedup judged by the article's NPU figures
    assert result.status is Status.FAIL
    assert "below the expected 1.8x for Ascend chip not recognised (measured" in result.summary
    assert "expected ≥ 1.8x" in " ".join(result.details)
    assert result.remedy


def test_logits_error_is_relative_to_their_scale():
    logits = RUNS["fp32_logits"]
    assert verdict.logits_max_rel_err(logits, logits) == 0.0
    assert verdict.logits_max_rel_err(logits, [[math.nan] * len(r) for r in logits]) == math.inf
    assert verdict.logits_max_rel_err(logits, logits[:1]) is None


def test_low_speedup_is_measured_once_more(monkeypatch):
    calls = []

    def replay(plan, timeout_left, env, on_line):
        fp32, amp, metrics = _recorded()
        calls.append(metrics["amp_speedup"])
        return runner.Run(fp32, []), runner.Run(amp, []), metrics

    monkeypatch.setattr(runner, "_measure_pair", replay)
    plan = runner.Plan(**RUNS["plan"])
    expected = verdict.Thresholds.of("cpu", {**DEFAULT_SETTINGS, "min_speedup": 100.0})
    outcome = runner.smoke(plan, expected, lambda s: s, {})
    assert len(calls) == 2 and outcome.speedups == calls
    calls.clear()
    runner.smoke(plan, verdict.Thresholds.of("cpu", DEFAULT_SETTINGS), lambda s: s, {})
    assert len(calls) == 1  # informational on CPU: nothing to re-measure


# -- plan and progress ---------------------------------------------------------------------
def test_plan_defaults_per_device_and_settings_override():
    none = dict.fromkeys(("opt_level", "dtype", "image_size", "batch_size", "steps", "warmup"))
    cpu = runner.plan("cpu", {**none, "threads": 0}, cpu_count=2)
    assert (cpu.opt_level, cpu.dtype) == ("O1", "bfloat16")
    assert cpu.threads == runner.usable_cpus(2)  # every CPU the process may use
    npu = runner.plan("npu", {**none, "threads": 0}, cpu_count=192)
    assert (npu.image_size, npu.opt_level, npu.dtype, npu.threads) == (224, "O2", None, 0)
    mine = runner.plan("cuda", {**none, "threads": 0, "image_size": 96, "dtype": "bfloat16"}, 8)
    assert (mine.image_size, mine.dtype) == (96, "bfloat16")
    for bad in ({"opt_level": "O4"}, {"dtype": "fp8"}, {"steps": 2, "warmup": 2}):
        with pytest.raises(ValueError):
            runner.plan("cpu", {**none, "threads": 0, **bad}, 2)


def test_progress_reports_steps_loss_and_images_per_second_of_progress_lines_only():
    said, now = [], iter([10.0, 12.0, 13.0, 20.0])
    progress = runner.StepProgress(lambda *a: said.append(a), batch_size=4, clock=lambda: next(now))
    progress("some torch warning")
    for line in ("amp 1 3 2.5", "amp 2 3 1.2345", "amp 3 3 0.9", "amp 1 3 2.4"):
        progress(f"{runner.PROGRESS} {line}")
    assert said[0] == ("amp step 1/3 · loss 2.5", 1, 3)  # the first step is not timed
    assert said[1] == ("amp step 2/3 · loss 1.2345 · 2.0 img/s", 2, 3)
    assert said[2] == ("amp step 3/3 · loss 0.9 · 2.7 img/s", 3, 3)
    assert said[3] == ("amp step 1/3 · loss 2.4", 1, 3)  # a remeasure starts over


# -- real runs on this CPU -----------------------------------------------------------------
def _config(tmp_path: Path, **settings) -> str:
    lines = ['[checks."smoke.resnet50"]'] + [f"{k} = {v!r}" for k, v in settings.items()]
    path = tmp_path / "ampenv.toml"
    path.write_text("\n".join(lines).replace("'", '"') + "\n")
    return str(path)


SMOKE_ONLY = ["doctor", "--only", "smoke.resnet50", "--format", "json"]


def _start(config: str, **env: str) -> subprocess.Popen:
    """`ampenv doctor --only smoke.resnet50` in a child; several may run at once."""
    return subprocess.Popen(
        [sys.executable, "-m", "ampenv", *SMOKE_ONLY, "--config", config],
        env=clean_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(p: subprocess.Popen, timeout: float = 240) -> dict:
    out, err = p.communicate(timeout=timeout)
    return Ran(p.returncode, out, err).check("smoke.resnet50")


# Short and small whatever this CPU's class; AMP's worth is not what these tests judge.
SHORT = {
    "steps": 2,
    "warmup": 1,
    "image_size": 64,
    "batch_size": 2,
    "min_speedup": 0.0,
    "min_mem_reduction": -1.0,
}


@pytest.mark.slow
def test_real_short_smoke_on_cpu_passes_with_the_contract(tmp_path):
    p = _start(_config(tmp_path, **SHORT))
    out, err = p.communicate(timeout=240)
    ran = Ran(p.returncode, out, err)
    smoke = ran.check("smoke.resnet50")  # stdout is the JSON report alone: no progress there
    assert smoke["status"] == "pass", smoke
    assert ran.returncode == 0
    assert set(smoke["metrics"]) >= CONTRACT_METRICS
    assert set(smoke["facts"]) >= CONTRACT_FACTS
    assert smoke["facts"]["amp_dtype"] == "bfloat16" and smoke["facts"]["opt_level"] == "O1"
    if smoke["facts"]["amp_recommended"]:  # a CPU with native bf16
        assert smoke["metrics"]["amp_coverage"] > 0.9  # conv/matmul FLOPs in bf16
    else:  # emulated bf16: no coverage step (one more slow bf16 step for nothing)
        assert "amp_coverage" not in smoke["metrics"]
        assert smoke["summary"].startswith("AMP is not recommended on this CPU")
    assert smoke["metrics"]["amp_loss_last"] < smoke["metrics"]["amp_loss_first"]
    assert smoke["facts"]["threads"] >= 1 and smoke["facts"]["fp32_math"] == "ieee"
    assert smoke["facts"]["fp32_step_ms"]["n"] == 1  # 2 steps, 1 warm-up


@pytest.mark.slow
def test_broken_amp_fails_with_a_clear_summary(tmp_path):
    config = _config(tmp_path, **SHORT)
    # Both broken runs at once: each uses one core.
    overflow = _start(config, AMPENV_SMOKE_FAULT="overflow")
    nan = _start(config, AMPENV_SMOKE_FAULT="nan")
    overflowed, poisoned = _finish(overflow), _finish(nan)
    assert overflow.returncode == 1 and nan.returncode == 1
    assert overflowed["status"] == "fail"
    assert overflowed["summary"].startswith("every AMP step overflowed (2 of 2)")
    assert overflowed["remedy"]
    assert poisoned["status"] == "fail"
    assert poisoned["summary"].startswith("AMP loss is nan from step 1 of 2")


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
def test_hung_child_is_an_error_within_its_timeout_and_leaves_no_process(tmp_path):
    config = _config(tmp_path, timeout=20)
    smoke = _finish(_start(config, AMPENV_SMOKE_FAULT="hang"), timeout=60)
    assert smoke["status"] == "error"
    assert "the fp32 run failed" in smoke["summary"] and "was killed" in smoke["summary"]
    assert smoke["duration_s"] < 21
    line = next(d for d in smoke["details"] if d.startswith("fault injection: hanging"))
    assert _gone(int(line.rsplit(" ", 1)[1]))


@pytest.mark.slow
def test_killed_child_is_an_error(tmp_path):
    smoke = _finish(_start(_config(tmp_path), AMPENV_SMOKE_FAULT="kill"), timeout=60)
    assert smoke["status"] == "error"
    assert smoke["summary"].endswith("was killed by SIGKILL")


def test_cpu_children_wait_passively_unless_the_node_says_otherwise():
    none = dict.fromkeys(("opt_level", "dtype", "image_size", "batch_size", "steps", "warmup"))
    cpu = runner.plan("cpu", {**none, "threads": 0}, 2)
    assert runner.child_env(cpu, {"PATH": "/bin"})["OMP_WAIT_POLICY"] == "PASSIVE"
    assert runner.child_env(cpu, {"OMP_WAIT_POLICY": "ACTIVE"})["OMP_WAIT_POLICY"] == "ACTIVE"
    npu = runner.plan("npu", {**none, "threads": 0}, 8)
    assert "OMP_WAIT_POLICY" not in runner.child_env(npu, {})
