"""amp.support: the judgement on a recorded child payload (replayed, or broken on purpose), and a
real run on this CPU with the CPU flags read from a planted /proc/cpuinfo."""

from __future__ import annotations

import copy
import json
import shutil
import time

import pytest
from conftest import FIXTURES, clean_env, run_ampenv

from ampenv.active import child
from ampenv.checks import CheckContext, Context, Status
from ampenv.core.config import parse
from ampenv.core.registry import discover
from ampenv.probe import Probe
from ampenv.probe.proc import CommandResult, Outcome

PAYLOAD = json.loads((FIXTURES / "smoke" / "amp_child_cpu_avx2.json").read_text())
CPUINFO = FIXTURES / "smoke" / "cpuinfo_amd_epyc_2cpu_avx2.txt"


def _judge(monkeypatch, payload, device="cpu", outcome=Outcome.OK):
    """Run the check with the child replaced by a replay of `payload`."""
    seen = {}

    def replay(module, args, timeout, **kw):
        seen["args"] = args
        return CommandResult(["python", "-m", module, *args], outcome, timeout_s=timeout), payload

    monkeypatch.setattr(child, "run_module", replay)
    config = parse("", "<defaults>")
    spec = discover({}).checks["amp.support"]
    shared = Context(config, Probe(), profile="full", device=device)
    ctx = CheckContext(shared, spec, config.settings_for(spec), time.monotonic() + 30)
    return spec(ctx), seen.get("args")


def test_recorded_cpu_payload_passes_and_says_bf16_is_emulated(monkeypatch):
    result, args = _judge(monkeypatch, PAYLOAD)
    assert result.status is Status.PASS
    assert result.summary == "cpu: bfloat16 by default (emulated); autocast and loss scaler work"
    assert "--cpu-flags" in args


def test_a_scaler_that_misses_the_inf_fails(monkeypatch):
    broken = copy.deepcopy(PAYLOAD)
    probe = broken["functional"]
    probe.update(overflow_detected=False, step_skipped=False, scaler_ok=False, ok=False)
    probe["scale_after"] = probe["scale_before"]
    result, _ = _judge(monkeypatch, broken)
    assert result.status is Status.FAIL
    assert result.summary.startswith(
        "the loss scaler failed: the injected inf was not detected (inf/NaN in the grads), "
        "the step was not skipped"
    )
    assert "python.stack" in result.remedy


def test_autocast_in_the_wrong_dtype_fails(monkeypatch):
    broken = copy.deepcopy(PAYLOAD)
    broken["functional"].update(matmul_dtype="float32", autocast_ok=False, ok=False)
    result, _ = _judge(monkeypatch, broken)
    assert result.status is Status.FAIL
    assert "matmul in float32 (expected bfloat16)" in result.summary


def test_an_exception_in_the_functional_probe_fails(monkeypatch):
    crashed = {"stage": "functional", "error": ["RuntimeError: bad dtype"]}
    result, _ = _judge(monkeypatch, crashed)
    assert result.status is Status.FAIL
    assert result.summary == "AMP failed on the cpu device: RuntimeError: bad dtype"


def test_a_child_that_hangs_is_an_error(monkeypatch):
    result, _ = _judge(monkeypatch, None, outcome=Outcome.TIMEOUT)
    assert result.status is Status.ERROR
    assert "did not answer" in result.summary


@pytest.mark.parametrize(("capability", "status"), [("6.1", Status.WARN), ("7.5", Status.PASS)])
def test_cuda_without_native_low_precision_warns(monkeypatch, capability, status):
    pytest.importorskip("torch")
    from ampenv import amp

    payload = copy.deepcopy(PAYLOAD)
    payload["dtypes"] = amp.supported_dtypes("cuda", capability)  # the AMP's own table
    payload["dtypes"]["chip"] = capability
    result, args = _judge(monkeypatch, payload, device="cuda")
    assert "--cpu-flags" not in args
    assert result.status is status, result.summary
    if status is Status.WARN:
        assert "float16 is emulated on this cuda device" in result.summary
        assert "FP32" in result.remedy


@pytest.mark.slow
def test_real_probe_reads_the_cpu_flags_through_the_sysroot(sysroot):
    (sysroot / "proc").mkdir()
    shutil.copy(CPUINFO, sysroot / "proc" / "cpuinfo")
    ran = run_ampenv(
        "doctor", "--only", "amp.support", "-f", "json", env=clean_env(AMPENV_SYSROOT=str(sysroot))
    )
    amp_check = ran.check("amp.support")
    assert amp_check["status"] == "pass", amp_check
    assert amp_check["facts"]["default_dtype"] == "bfloat16"
    bf16 = amp_check["facts"]["dtypes"]["bfloat16"]
    assert bf16["native"] is False and "no avx512_bf16" in bf16["reason"]
    assert amp_check["facts"]["functional"]["ok"] is True
