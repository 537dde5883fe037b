"""The numerics tools and amp.coverage, on CPU."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F

from ampenv import amp

INF, NAN = float("inf"), float("nan")


@pytest.fixture(autouse=True)
def _no_registrations() -> None:
    yield
    amp.clear_registrations()


def test_nonfinite_counts_in_nested_outputs() -> None:
    out = {
        "logits": torch.tensor([1.0, NAN, INF]),
        "aux": (torch.tensor([-INF, NAN, NAN]),),
        "ids": torch.tensor([1, 2]),
    }
    counts = amp.nonfinite_counts(out)
    assert (counts.nan, counts.inf, counts.total) == (3, 2, 5)
    assert amp.nonfinite_counts(torch.ones(3)).total == 0


def test_grad_nonfinite_counts_name_the_parameters() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
    model(torch.ones(1, 2)).sum().backward()
    model[1].weight.grad[0, 0] = NAN
    model[0].bias.grad[:] = INF
    assert amp.grad_nonfinite_counts(model) == {
        "0.bias": amp.NonFinite(0, 2),
        "1.weight": amp.NonFinite(1, 0),
    }
    assert amp.grad_nonfinite_counts(model.parameters())["param[1]"].inf == 2


class Scale(torch.nn.Module):
    def __init__(self, factor: float) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.factor


def test_layer_ranges_find_values_fp16_would_lose() -> None:
    model = torch.nn.Sequential(Scale(1e-8), Scale(1e13))  # 1e-8 and 1e5 for inputs of 1
    x = torch.tensor([1.0, 1.0, 1.0, 0.0])
    tiny, big = amp.layer_ranges(model, x)
    assert (tiny.name, tiny.kind, tiny.dtype, tiny.numel) == ("0", "Scale", "float32", 4)
    # 1e-8 is below fp16's smallest subnormal (6e-8/2) but a normal bf16 number.
    assert (tiny.fp16_underflow, tiny.bf16_underflow, tiny.fp16_overflow) == (0.75, 0.0, 0.0)
    assert tiny.max_abs == pytest.approx(1e-8)
    assert (big.fp16_overflow, big.bf16_overflow, big.fp16_underflow) == (0.75, 0.0, 0.0)
    assert not model[0]._forward_hooks  # the hooks are gone


def test_layer_ranges_inside_autocast_report_the_run_dtype() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    with amp.autocast(device_type="cpu"):
        ranges = amp.layer_ranges(model, torch.randn(2, 4))
    assert [r.dtype for r in ranges] == ["bfloat16", "bfloat16"]


def test_compare_outputs_ranks_the_worst_offenders() -> None:
    ref = {"a": torch.tensor([1.0, 2.0, 3.0]), "b": torch.tensor([[0.0, 10.0]])}
    out = {"a": torch.tensor([1.0, 2.5, 3.001]), "b": torch.tensor([[NAN, 10.0]])}
    result = amp.compare_outputs(ref, out, rtol=1e-3, atol=1e-5)
    assert (result.ok, result.total, result.mismatched) == (False, 5, 2)
    assert [(o.path, o.index) for o in result.worst] == [("out['b']", (0, 0)), ("out['a']", (1,))]
    assert (result.worst[1].abs_err, result.worst[1].rel_err) == (0.5, 0.25)
    assert result.max_abs_err == INF  # the NaN


def test_compare_outputs_accepts_matching_outputs() -> None:
    x = torch.tensor([1.0, INF, NAN])
    result = amp.compare_outputs((x,), (x.clone(),))
    assert (result.ok, result.mismatched, result.max_abs_err, result.worst) == (True, 0, 0.0, [])


def test_compare_outputs_rejects_other_structures() -> None:
    with pytest.raises(ValueError, match="structure"):
        amp.compare_outputs((torch.ones(1),), (torch.ones(1), torch.ones(1)))
    with pytest.raises(ValueError, match=r"shape \(2,\) differs"):
        amp.compare_outputs(torch.ones(1), torch.ones(2))


class Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        return torch.softmax(h @ h.transpose(-1, -2), dim=-1) @ h


def test_coverage_counts_low_precision_flops_and_explains_fp32() -> None:
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 32)
    report = amp.coverage(model, torch.randn(4, 16))
    # Forward addmm and the weight-grad mm: 2 * (2 * 4 * 16 * 32), all in bf16.
    assert (report.total_flops, report.low_precision_flop_share) == (8192, 1.0)
    assert report.dtype == "bfloat16" and model.weight.grad is None
    json.dumps(report.to_dict())

    report = amp.coverage(Attention(), torch.randn(2, 4, 8))
    assert report.low_precision_flop_share == 1.0
    softmax = [r for r in report.fp32_rows() if r.op == "aten._softmax"]
    assert softmax and softmax[0].reason == "ampenv fp32 policy: torch.softmax"


def test_coverage_sees_a_registered_float_function() -> None:
    amp.register_float_function(F, "linear")
    report = amp.coverage(torch.nn.Linear(16, 32), torch.randn(4, 16))
    assert report.low_precision_flop_share == 0.0
    assert {r.reason for r in report.rows if r.flops} == {
        "registered float function torch.nn.functional.linear",
        "backward of an op that ran in fp32",
    }


def test_coverage_leaves_batchnorm_statistics_alone() -> None:
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4))
    before = model[1].running_mean.clone()
    report = amp.coverage(model, torch.randn(2, 3, 8, 8))
    assert torch.equal(model[1].running_mean, before)
    conv = [r for r in report.rows if r.op == "aten.convolution"]
    assert conv[0].dtype == "bfloat16" and conv[0].flops == 2 * 2 * 4 * 36 * 27


def test_functional_probe_on_cpu() -> None:
    result = amp.functional_probe("cpu")
    json.dumps(result)
    assert result["ok"] is True
    assert (result["matmul_dtype"], result["softmax_dtype"]) == ("bfloat16", "float32")
    assert (result["scale_before"], result["scale_after"]) == (65536.0, 32768.0)
    assert result["step_skipped"] and result["overflow_detected"]
