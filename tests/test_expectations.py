"""Device classes and what AMP must bring on each (knowledge/expectations.py), the smoke verdict
per class on recorded real runs, the check classifying a planted /proc/cpuinfo, and the loss
chart."""

from __future__ import annotations

import copy
import json
import math
import time

import pytest
from conftest import FIXTURES

from ampenv.active.smoke import parent as runner
from ampenv.active.smoke import verdict
from ampenv.checks import CheckContext, Context, Status
from ampenv.core.config import parse
from ampenv.core.registry import discover
from ampenv.knowledge import expectations as ex
from ampenv.probe import Probe, cpuinfo
from ampenv.report import chart

RUNS = json.loads((FIXTURES / "smoke" / "cpu_default_runs.json").read_text())
AVX2_CPUINFO = (FIXTURES / "smoke" / "cpuinfo_amd_epyc_2cpu_avx2.txt").read_text()
DEFAULTS = {"min_loss_drop": 0.3, "loss_tolerance": 0.15}


def _with_flag(text: str, flag: str) -> str:
    return "\n".join(
        line + f" {flag}" if line.startswith("flags") else line for line in text.splitlines()
    )


# -- classes -------------------------------------------------------------------------------
def test_cpu_class_follows_the_bf16_flags():
    avx2 = cpuinfo.parse(AVX2_CPUINFO)
    assert ex.classify_cpu(avx2.flags) is ex.CPU_EMULATED
    for flag in ("avx512_bf16", "amx_bf16"):
        assert ex.classify_cpu(cpuinfo.parse(_with_flag(AVX2_CPUINFO, flag)).flags) is ex.CPU_NATIVE
    assert ex.classify_cpu(frozenset({"fp", "asimd", "bf16"})) is ex.CPU_NATIVE  # aarch64
    assert ex.classify_cpu(None) is ex.CPU_EMULATED  # unreadable: reported, not promised


def test_accelerator_classes():
    assert ex.classify("cuda", "8.0") is ex.CUDA_TENSOR_CORES
    assert ex.classify("cuda", "7.0") is ex.CUDA_TENSOR_CORES
    assert ex.classify("cuda", "6.1") is ex.CUDA_NO_TENSOR_CORES
    assert ex.classify("cuda", None) is ex.CUDA_UNKNOWN
    assert ex.classify("npu", "Ascend910A").id == "npu-910a"
    assert ex.classify("npu", "Ascend910B3").id == "npu-910b"
    assert ex.classify("npu", "Ascend910_9391").id == "npu-a3"
    assert ex.classify("npu", "mystery").id == "npu-unknown"
    assert ex.NPU_CLASSES["910A"].dtypes == ("float16",)
    with pytest.raises(ValueError):
        ex.classify("tpu")


def test_every_class_has_sizes_why_and_sourced_expectations():
    for klass in ex.CLASSES:
        assert klass.why and set(klass.sizes) >= {"image_size", "batch_size", "steps", "warmup"}
        assert klass.sizes["warmup"] < klass.sizes["steps"]
        if klass.judged:
            assert klass.min_speedup and klass.min_mem_reduction and klass.sources
        else:
            assert klass.min_speedup is None and "not recommended" in klass.why
    assert ex.CPU_NATIVE.min_speedup == 1.5 and ex.CPU_NATIVE.min_mem_reduction == 0.25
    assert ex.CPU_NATIVE.sizes["channels_last"] and not ex.CPU_EMULATED.sizes["channels_last"]
    assert ex.by_id("cpu-native-bf16") is ex.CPU_NATIVE


def test_plan_takes_the_class_sizes_and_settings_override():
    none = dict.fromkeys(("opt_level", "dtype", "image_size", "batch_size", "steps", "warmup"))
    native = runner.plan("cpu", {**none, "threads": 0}, 2, ex.CPU_NATIVE.sizes)
    assert (native.image_size, native.batch_size, native.channels_last) == (224, 8, True)
    assert native.warmup == 2 and native.steps - native.warmup >= 5  # median, min and max
    emulated = runner.plan("cpu", {**none, "threads": 0}, 2, ex.CPU_EMULATED.sizes)
    assert (emulated.image_size, emulated.channels_last, emulated.tf32) == (64, False, False)
    mine = runner.plan("cpu", {**none, "threads": 3, "channels_last": False}, 2, native_sizes())
    assert (mine.threads, mine.channels_last) == (3, False)
    cuda = runner.plan("cuda", {**none, "threads": 0}, 8, ex.CUDA_TENSOR_CORES.sizes)
    assert cuda.tf32 and cuda.opt_level == "O2" and "--channels-last" in cuda.args("fp32", "x")
    npu = runner.plan("npu", {**none, "threads": 0}, 8, ex.NPU_CLASSES["910B"].sizes)
    assert not npu.channels_last and npu.image_size == 224


def native_sizes():
    return ex.CPU_NATIVE.sizes


# -- the verdict per class, on the recorded real runs (AMP at ~0.15x FP32 on AVX2) ----------
def _judge(klass, settings=None, **amp_changes):
    fp32, amp = copy.deepcopy(RUNS["fp32"]), copy.deepcopy(RUNS["amp"])
    amp.update(amp_changes)
    metrics = verdict.measure(fp32, amp, 0.01)
    facts = {**RUNS["plan"], "amp_dtype": "bfloat16", "peak_mem_source": "peak RSS of the child"}
    t = verdict.Thresholds.of("cpu", {**DEFAULTS, **(settings or {})}, klass)
    return verdict.judge(metrics, amp, facts, t, [metrics["amp_speedup"], 0.2])


def test_emulated_cpu_says_amp_is_not_recommended_and_judges_correctness_only():
    result = _judge(ex.CPU_EMULATED)
    assert result.status is Status.PASS  # FP32 and AMP train correctly
    assert result.summary.startswith("AMP is not recommended on this CPU")
    assert "bf16 is emulated" in result.summary
    assert "not judged" in result.summary
    skip = [d for d in result.details if d.startswith("AMP's speed and memory not judged")]
    assert skip, result.details  # a skip with why, never a pass on AMP's worth
    assert result.facts["amp_judged"] is False and result.facts["amp_recommended"] is False
    assert result.facts["device_class"]["id"] == "cpu-emulated-bf16"


def test_native_cpu_judges_amp_and_fails_a_slow_one_with_both_measurements():
    result = _judge(ex.CPU_NATIVE)
    assert result.status is Status.FAIL
    assert "below the expected 1.5x for CPU with native bf16 (measured 2x:" in result.summary
    assert result.remedy and "certify again" in result.remedy
    assert result.facts["amp_judged"] is True


def test_native_cpu_passes_when_amp_is_fast_and_lean():
    fast = {"img_per_s": RUNS["fp32"]["img_per_s"] * 2.0}
    fp32_train = 500.0
    fp32, amp = copy.deepcopy(RUNS["fp32"]), copy.deepcopy(RUNS["amp"])
    fp32["train_mem_mb"], amp["train_mem_mb"] = fp32_train, fp32_train * 0.6
    amp.update(fast)
    metrics = verdict.measure(fp32, amp, 0.01)
    assert metrics["mem_reduction"] == pytest.approx(0.4)  # training memory, not the RSS
    facts = {**RUNS["plan"], "amp_dtype": "bfloat16", "peak_mem_source": "peak RSS of the child"}
    t = verdict.Thresholds.of("cpu", DEFAULTS, ex.CPU_NATIVE)
    result = verdict.judge(metrics, amp, facts, t, [2.0])
    assert result.status is Status.PASS, result.summary
    assert "expected ≥ 1.5x" in result.summary and "expected ≥ 25%" in result.summary
    assert any(
        d.startswith("training memory (peak RSS over the resting model)") for d in result.details
    )


def test_native_cpu_fails_too_little_memory_saved():
    fp32, amp = copy.deepcopy(RUNS["fp32"]), copy.deepcopy(RUNS["amp"])
    fp32["train_mem_mb"], amp["train_mem_mb"] = 500.0, 480.0
    amp["img_per_s"] = fp32["img_per_s"] * 2
    metrics = verdict.measure(fp32, amp, 0.01)
    facts = {**RUNS["plan"], "amp_dtype": "bfloat16", "peak_mem_source": "peak RSS of the child"}
    result = verdict.judge(
        metrics, amp, facts, verdict.Thresholds.of("cpu", DEFAULTS, ex.CPU_NATIVE)
    )
    assert result.status is Status.FAIL and "training memory" in result.summary
    assert result.remedy


def test_a_site_threshold_judges_even_an_emulated_cpu():
    result = _judge(ex.CPU_EMULATED, {"min_speedup": 1.1})
    assert result.status is Status.FAIL


# -- the check: a planted /proc/cpuinfo decides the class, before any child starts ----------
def _check_on(sysroot, monkeypatch, cpuinfo_text: str):
    (sysroot / "proc").mkdir()
    (sysroot / "proc" / "cpuinfo").write_text(cpuinfo_text)
    seen = {}

    def replay(plan, thresholds, timeout_left, env, on_line=None):
        seen["plan"], seen["thresholds"] = plan, thresholds
        fp32, amp = copy.deepcopy(RUNS["fp32"]), copy.deepcopy(RUNS["amp"])
        metrics = verdict.measure(fp32, amp, 0.01)
        return runner.Outcome(runner.Run(fp32, []), runner.Run(amp, []), metrics, [0.15])

    monkeypatch.setattr(runner, "smoke", replay)
    config = parse("", "<defaults>")
    spec = discover({}).checks["smoke.resnet50"]
    shared = Context(config, Probe(sysroot=str(sysroot)), profile="certify", device="cpu")
    ctx = CheckContext(shared, spec, config.settings_for(spec), time.monotonic() + 30)
    return spec(ctx), seen


def test_check_on_a_planted_avx2_cpu_says_amp_is_not_recommended(sysroot, monkeypatch):
    result, seen = _check_on(sysroot, monkeypatch, AVX2_CPUINFO)
    assert result.status is Status.PASS
    assert result.summary.startswith("AMP is not recommended on this CPU")
    assert seen["plan"].image_size == 64 and not seen["thresholds"].judged
    assert result.facts["device_model"] == "AMD EPYC (2 CPUs)"


def test_check_on_a_planted_bf16_cpu_judges_amp(sysroot, monkeypatch):
    result, seen = _check_on(sysroot, monkeypatch, _with_flag(AVX2_CPUINFO, "avx512_bf16"))
    assert seen["plan"].image_size == 224 and seen["plan"].channels_last
    assert seen["thresholds"].min_speedup == 1.5
    assert result.status is Status.FAIL  # the replayed AVX2 run is far below 1.5x


# -- the chart -------------------------------------------------------------------------------
def test_chart_draws_both_curves_and_the_loss_scale():
    text = chart.render([2.5, 1.0, 0.4], [2.4, 1.1, 0.5], [65536.0, 65536.0, 32768.0])
    lines = text.splitlines()
    assert lines[0].startswith("loss per step")
    assert "2.5" in lines[1] and "0.4" in lines[8]
    body = "\n".join(lines[1:9])
    assert body.count("o") == 3 and body.count("*") == 3
    assert "16" in lines[-1] and "15" in lines[-1] and "loss scale" in lines[-1]


def test_chart_keeps_non_finite_losses_out_of_the_curve():
    text = chart.render([2.0, 1.0], [2.0, math.nan], [])
    assert "AMP loss not finite at step(s) 2" in text
    assert chart.render([], []) == ""
