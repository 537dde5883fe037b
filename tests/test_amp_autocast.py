"""amp.autocast: the fp32 op policy on CPU, registrations, and that all of it is undone outside."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import torch
import torch.nn.functional as F

from ampenv import amp
from ampenv.amp import state

BF16 = torch.bfloat16


@pytest.fixture(autouse=True)
def _no_registrations() -> Iterator[None]:
    yield
    amp.clear_registrations()


def cpu_autocast(**kwargs: object) -> object:
    return amp.autocast(device_type="cpu", **kwargs)


def test_torch_cpu_autocast_leaves_softmax_low_but_amp_keeps_it_fp32() -> None:
    x = torch.randn(4, 8)
    linear, norm = torch.nn.Linear(8, 8), torch.nn.LayerNorm(8)
    with torch.autocast("cpu", dtype=BF16):
        assert torch.softmax(linear(x), -1).dtype == BF16  # the gap the policy closes
    with cpu_autocast():
        h = linear(x)
        assert h.dtype == BF16
        for out in (
            F.softmax(h, -1),
            torch.softmax(h, -1),
            h.softmax(-1),
            h.log_softmax(-1),
            torch.nn.Softmax(-1)(h),
            norm(h),
            F.cross_entropy(h, torch.tensor([0] * 4)),
        ):
            assert out.dtype == torch.float32


def test_patches_are_gone_after_exit() -> None:
    originals = (F.softmax, torch.softmax, torch.Tensor.__dict__.get("softmax"))
    with cpu_autocast():
        assert F.softmax is not originals[0]
        assert "softmax" in torch.Tensor.__dict__
    assert (F.softmax, torch.softmax, torch.Tensor.__dict__.get("softmax")) == originals
    assert torch.randn(2, 3, dtype=BF16).softmax(-1).dtype == BF16


def test_register_float_function_acts_inside_amp_autocast_only() -> None:
    a, b = torch.randn(3, 3), torch.randn(3, 3)
    original = torch.mm
    amp.register_float_function(torch, "mm")
    with cpu_autocast():
        assert torch.mm(a, b).dtype == torch.float32
        assert torch.mm(a.to(BF16), b.to(BF16)).dtype == torch.float32
    with torch.autocast("cpu", dtype=BF16):
        assert torch.mm(a, b).dtype == BF16  # plain torch.autocast is untouched
    assert torch.mm is original
    assert torch.mm(a.to(BF16), b.to(BF16)).dtype == BF16


def test_register_half_function() -> None:
    x = torch.randn(5)
    with cpu_autocast():
        assert torch.exp(x).dtype == torch.float32  # on no autocast list: follows its input
    amp.register_half_function(torch, "exp")
    with cpu_autocast():
        assert torch.exp(x).dtype == BF16
    assert torch.exp(x).dtype == torch.float32


def test_registration_overrides_the_builtin_policy() -> None:
    amp.register_half_function(F, "softmax")
    with cpu_autocast():
        assert F.softmax(torch.randn(2, 3), -1).dtype == BF16
        assert torch.softmax(torch.randn(2, 3), -1).dtype == torch.float32


def test_register_missing_function_is_apex_error() -> None:
    with pytest.raises(ValueError, match="No function named nonesuch in module"):
        amp.register_float_function(torch, "nonesuch")


def test_attention_in_fp32_is_an_option() -> None:
    q = k = v = torch.randn(1, 2, 4, 8)
    with cpu_autocast():
        assert F.scaled_dot_product_attention(q, k, v).dtype == BF16
    with cpu_autocast(attention_fp32=True):
        assert F.scaled_dot_product_attention(q, k, v).dtype == torch.float32
        mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
        x = torch.randn(1, 4, 8)
        assert mha(x, x, x)[0].dtype == torch.float32


def test_nested_disabled_region_is_plain_fp32() -> None:
    linear, h = torch.nn.Linear(4, 4), torch.randn(2, 4, dtype=BF16)
    with cpu_autocast():
        with amp.autocast(False, device_type="cpu"):
            assert linear(torch.randn(2, 4)).dtype == torch.float32
            assert F.softmax(h, -1).dtype == BF16  # the policy is off too
        assert F.softmax(h, -1).dtype == torch.float32


def test_other_threads_see_the_original_functions() -> None:
    inside, done = threading.Event(), threading.Event()
    seen: list[torch.dtype] = []

    def other() -> None:
        inside.wait()
        seen.append(F.softmax(torch.randn(2, 3, dtype=BF16), -1).dtype)
        done.set()

    thread = threading.Thread(target=other)
    thread.start()
    with cpu_autocast():
        inside.set()
        done.wait(10)
    thread.join()
    assert seen == [BF16]


@pytest.mark.parametrize(
    ("level", "expected"),
    [("O0", torch.float32), ("O1", BF16), ("O2", BF16), ("O3", torch.float32)],
)
def test_autocast_follows_the_level(level: str, expected: torch.dtype) -> None:
    model = torch.nn.Linear(4, 4)
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), opt_level=level)
    x = torch.randn(2, 4)
    with amp.autocast():
        assert torch.nn.functional.linear(x, model.weight.float()).dtype == expected
        # O3 is pure low precision: no fp32 policy, softmax follows its input.
        assert F.softmax(x.to(BF16), -1).dtype == (BF16 if level in ("O0", "O3") else torch.float32)


def test_autocast_without_initialize_needs_a_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(state, "_current", None)
    with pytest.raises(RuntimeError, match="call it first, or pass device_type"), amp.autocast():
        pass
