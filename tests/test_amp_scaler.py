"""The loss scalers: torch.amp.GradScaler's trajectory, apex's clamps, state, saturation mode."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ampenv import amp
from ampenv.amp import scaler as scaler_module
from ampenv.amp.scaler import update_scale_fallback

INF = float("inf")
steps = st.lists(st.booleans(), max_size=40)
intervals = st.integers(1, 5)
# Factors exact in fp32, where the kernel's double product and an fp32 product round alike.
growths = st.floats(1.0, 8.0, exclude_min=True, width=32)
backoffs = st.floats(0.0, 1.0, exclude_min=True, exclude_max=True, width=32)
init_scales = st.floats(2.0**-20, 2.0**100, width=32)


def gradscaler_trajectory(
    overflows: list[bool], init: float, growth: float, backoff: float, interval: int
) -> list[float]:
    """torch.amp.GradScaler's scale after each step, driven through its public API."""
    gs = torch.amp.GradScaler("cpu", init, growth, backoff, interval)
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([param], lr=0.0)
    scales = []
    for overflow in overflows:
        opt.zero_grad()
        gs.scale(param.sum() + 1.0).backward()
        if overflow:
            param.grad.fill_(INF)
        gs.step(opt)
        gs.update()
        scales.append(gs.get_scale())
    return scales


@settings(max_examples=60, deadline=None)
@given(steps, init_scales, growths, backoffs, intervals, st.booleans())
def test_dynamic_scaler_follows_gradscaler(
    overflows: list[bool],
    init: float,
    growth: float,
    backoff: float,
    interval: int,
    as_tensor: bool,
) -> None:
    ours = amp.DynamicLossScaler(init, growth, backoff, interval)
    trajectory = []
    for overflow in overflows:
        ours.update(torch.tensor(overflow) if as_tensor else overflow)
        trajectory.append(float(ours.scale))
    assert trajectory == gradscaler_trajectory(overflows, init, growth, backoff, interval)


@settings(max_examples=60, deadline=None)
@given(steps, init_scales, growths, backoffs, intervals)
def test_fallback_update_equals_the_kernel(
    overflows: list[bool], init: float, growth: float, backoff: float, interval: int
) -> None:
    kernel = (torch.tensor(init), torch.tensor(0, dtype=torch.int32))
    fallback = (torch.tensor(init), torch.tensor(0, dtype=torch.int32))
    for overflow in overflows:
        found = torch.tensor(float(overflow))
        torch._amp_update_scale_(*kernel, found, growth, backoff, interval)
        update_scale_fallback(*fallback, found, growth, backoff, interval)
        assert (float(fallback[0]), int(fallback[1])) == (float(kernel[0]), int(kernel[1]))


def test_backend_without_the_kernel_uses_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(*_: object) -> None:
        raise NotImplementedError("Could not run 'aten::_amp_update_scale_'")

    monkeypatch.setattr(torch, "_amp_update_scale_", missing)
    monkeypatch.setattr(scaler_module, "_NO_FUSED_UPDATE", set())
    ours = amp.DynamicLossScaler(8.0, growth_interval=2)
    for overflow in (False, False, True, False):
        ours.update(overflow)
    assert float(ours.scale) == 8.0
    assert sorted(scaler_module._NO_FUSED_UPDATE) == ["cpu"]


def apex_trajectory(
    overflows: list[bool], init: float, interval: int, lo: float | None, hi: float | None
) -> list[float]:
    """apex.amp.scaler.LossScaler.update_scale, transcribed."""
    scale = min(hi, init) if hi is not None else init
    unskipped, scales = 0, []
    for overflow in overflows:
        if overflow:
            scale = max(lo, scale / 2.0) if lo is not None else scale / 2.0
            unskipped = 0
        else:
            unskipped += 1
        if unskipped == interval:
            scale = min(hi, scale * 2.0) if hi is not None else scale * 2.0
            unskipped = 0
        scales.append(scale)
    return scales


@settings(max_examples=60, deadline=None)
@given(steps, st.integers(0, 30), intervals, st.integers(-4, 4), st.integers(0, 6))
def test_min_and_max_clamp_as_apex(
    overflows: list[bool], above_min: int, interval: int, lo_exp: int, span: int
) -> None:
    lo, hi, init = 2.0**lo_exp, 2.0 ** (lo_exp + span), 2.0 ** (lo_exp + above_min)
    ours = amp.DynamicLossScaler(init, growth_interval=interval, min_scale=lo, max_scale=hi)
    trajectory = []
    for overflow in overflows:
        ours.update(overflow)
        trajectory.append(float(ours.scale))
    assert trajectory == apex_trajectory(overflows, init, interval, lo, hi)


def test_initial_scale_is_clamped() -> None:
    assert float(amp.DynamicLossScaler(2.0**30, max_scale=2.0**24).scale) == 2.0**24  # as apex
    assert float(amp.DynamicLossScaler(1.0, min_scale=8.0).scale) == 8.0


def test_growth_stops_short_of_inf() -> None:
    ours = amp.DynamicLossScaler(2.0**127, growth_interval=1)
    ours.update(False)
    assert float(ours.scale) == 2.0**127


def test_state_dict_resumes_identically() -> None:
    sequence = [False, True, False, False, False, True, False, False, False]
    ours = amp.DynamicLossScaler(2.0**10, growth_interval=3, min_scale=1.0)
    for overflow in sequence[:4]:
        ours.update(overflow)
    saved = ours.state_dict()
    resumed = amp.DynamicLossScaler()
    resumed.load_state_dict(saved)
    assert resumed.state_dict() == saved
    for overflow in sequence[4:]:
        ours.update(overflow)
        resumed.update(overflow)
        assert float(resumed.scale) == float(ours.scale)
    assert resumed.state_dict() == ours.state_dict()
    assert ours.overflow_steps == 2


def test_unscale_divides_and_detects_inf() -> None:
    ours = amp.DynamicLossScaler(4.0)
    grads = [torch.tensor([4.0, 8.0]), torch.tensor([2.0], dtype=torch.bfloat16)]
    assert float(ours.unscale_(grads)) == 0.0
    assert grads[0].tolist() == [1.0, 2.0] and grads[1].tolist() == [0.5]
    assert float(ours.unscale_([torch.tensor([1.0, float("nan")])])) == 1.0


def test_static_scaler_never_skips() -> None:
    static = amp.StaticLossScaler(128.0)
    grads = [torch.tensor([256.0, INF])]
    found = static.unscale_(grads)
    static.update(found)
    assert (float(found), static.should_skip(found), static.overflow_steps) == (1.0, False, 1)
    assert grads[0][0].item() == 2.0 and float(static.scale) == 128.0
    assert amp.StaticLossScaler(1.0).unscale_([torch.tensor([INF])]) is None  # apex: no check


def test_bad_factors_are_rejected() -> None:
    with pytest.raises(ValueError, match="growth_factor"):
        amp.DynamicLossScaler(growth_factor=1.0)
    with pytest.raises(ValueError, match="backoff_factor"):
        amp.DynamicLossScaler(backoff_factor=1.5)
    with pytest.raises(ValueError, match="min_scale"):
        amp.DynamicLossScaler(min_scale=4.0, max_scale=2.0)


@dataclass
class SaturatingDevice:
    """A 910A stand-in: fp16 overflow saturates, so only the hardware flag reports it."""

    device: torch.device = field(default_factory=lambda: torch.device("cpu"))
    chip: str = "Ascend910A"
    saturation_mode: bool = True
    flag: torch.Tensor = field(default_factory=lambda: torch.zeros(()))
    clears: int = 0

    def clear_overflow_flag(self) -> None:
        self.clears += 1
        self.flag.zero_()

    def overflow_flag(self) -> torch.Tensor:
        return self.flag


def test_saturation_mode_reads_the_overflow_flag() -> None:
    device = SaturatingDevice()
    ours = amp.DynamicLossScaler(device=device)
    ours.scale_loss(torch.tensor(1.0))
    ours.scale_loss(torch.tensor(1.0))  # a second micro-step keeps the window's flag
    assert device.clears == 1
    device.flag.fill_(1.0)  # the hardware saw an overflow; the grads look finite (saturated)
    assert float(ours.unscale_([torch.tensor([65504.0])])) == 1.0
    ours.scale_loss(torch.tensor(1.0))
    assert device.clears == 2 and float(ours.unscale_([torch.tensor([65504.0])])) == 0.0


def test_saturation_overflow_skips_the_step_and_halves_the_scale() -> None:
    device = SaturatingDevice()
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # O1 runs the forward in fp16: 2**16 times a gradient of 1 would overflow it for real.
    model, opt = amp.initialize(
        model, opt, dtype=torch.float16, device=device, dynamic_init_scale=2.0**10
    )
    before = [p.detach().clone() for p in model.parameters()]
    device.flag.fill_(1.0)  # stale: cleared when the backward starts
    opt.backward(model(torch.ones(2, 3)).sum())
    opt.step()
    assert not torch.equal(before[0], model.weight)
    applied = [p.detach().clone() for p in model.parameters()]
    out = model(torch.ones(2, 3)).sum()
    out.register_hook(lambda g: device.flag.fill_(1.0))  # raised during this backward
    opt.backward(out)
    opt.step()
    assert all(torch.equal(a, p) for a, p in zip(applied, model.parameters()))
    assert float(amp.loss_scaler().scale) == 2.0**9
