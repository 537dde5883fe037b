"""amp.initialize's opt levels, overrides, return values, dtype choice and errors."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
import torch

from ampenv import amp
from ampenv.amp.device import choose_dtype
from ampenv.amp.policy import resolve


def _mlp() -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(4, 8), torch.nn.BatchNorm1d(8), torch.nn.Linear(8, 2)
    )


@dataclass
class FakeDevice:
    """An AmpDevice of any type and chip; only the chip and type matter for the dtype choice."""

    device: object
    chip: str | None = None
    saturation_mode: bool = False

    def clear_overflow_flag(self) -> None:
        raise AssertionError("not in saturation mode")

    def overflow_flag(self) -> torch.Tensor:
        raise AssertionError("not in saturation mode")


def fake(device_type: str, chip: str | None = None) -> FakeDevice:
    return FakeDevice(SimpleNamespace(type=device_type, index=None), chip)


# apex's columns (cast to low precision, keep_batchnorm_fp32, master_weights, loss_scale), then
# ampenv's: whether amp.autocast casts ops (apex patched functions at O1 only).
APEX_TABLE = {
    "O0": (False, None, False, 1.0, False),
    "O1": (False, None, False, "dynamic", True),
    "O2": (True, True, True, "dynamic", True),
    "O3": (True, False, False, 1.0, False),
}


@pytest.mark.parametrize("level", sorted(APEX_TABLE))
def test_levels_follow_apex_table(level: str) -> None:
    props = amp.OPT_LEVELS[level]
    row = (
        props.cast_model,
        props.keep_batchnorm_fp32,
        props.master_weights,
        props.loss_scale,
        props.autocast,
    )
    assert row == APEX_TABLE[level]
    assert resolve(level) == props  # no override: the level as it is


def test_overrides_accept_apex_string_forms() -> None:
    props = resolve("O2", loss_scale="128", keep_batchnorm_fp32="False", master_weights=False)
    assert (props.loss_scale, props.keep_batchnorm_fp32, props.master_weights) == (
        128.0,
        False,
        False,
    )
    assert resolve("O3", loss_scale="dynamic").loss_scale == "dynamic"
    assert resolve("O2", keep_batchnorm_fp32="True").keep_batchnorm_fp32 is True


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"opt_level": "O4"}, "'O0', 'O1', 'O2' and 'O3'"),
        ({"opt_level": "01"}, "letter O, not the digit zero"),
        ({"opt_level": "O2", "loss_scale": "auto"}, "'dynamic' or a number"),
        ({"opt_level": "O2", "loss_scale": -1}, "positive"),
        ({"opt_level": "O2", "keep_batchnorm_fp32": "yes"}, "keep_batchnorm_fp32"),
        ({"opt_level": "O1", "master_weights": True}, "O1 keeps the model in fp32"),
    ],
)
def test_bad_settings_are_clear_errors(kwargs: dict, message: str) -> None:
    model = _mlp()
    with pytest.raises(ValueError, match=message):
        amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), **kwargs)


def test_non_fp32_model_is_an_error_naming_the_parameter() -> None:
    model = _mlp().half()
    with pytest.raises(ValueError, match=r"'0.weight' is torch.float16"):
        amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1))


def test_model_and_optimizer_on_different_devices_is_an_error() -> None:
    model = _mlp()
    elsewhere = torch.nn.Linear(4, 8, device="meta")
    with pytest.raises(
        ValueError, match="model is on cpu but the optimizer holds parameters on meta"
    ):
        amp.initialize(model, torch.optim.SGD(elsewhere.parameters(), lr=0.1))


def test_wrong_types_are_type_errors() -> None:
    with pytest.raises(TypeError, match=r"optimizer must be a torch\.optim"):
        amp.initialize(_mlp(), "sgd")
    with pytest.raises(TypeError, match=r"model must be a torch\.nn"):
        amp.initialize("resnet")


def test_returns_mirror_the_inputs() -> None:
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    assert amp.initialize(model, opt) == (model, opt)
    alone = _mlp()
    assert amp.initialize(alone, opt_level="O2") is alone
    models = [_mlp(), _mlp()]
    opts = [torch.optim.SGD(m.parameters(), lr=0.1) for m in models]
    got_models, got_opts = amp.initialize(models, opts, opt_level="O2")
    assert got_models is models and got_opts is opts
    assert all(m[0].weight.dtype == torch.bfloat16 for m in models)


def test_initialize_twice_on_one_optimizer_is_an_error() -> None:
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    amp.initialize(model, opt)
    with pytest.raises(ValueError, match=r"already went through amp\.initialize"):
        amp.initialize(model, opt)


def test_disabled_leaves_the_model_alone_and_steps_in_fp32() -> None:
    model = _mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    before = model[0].weight.detach().clone()
    assert amp.initialize(model, opt, opt_level="O2", enabled=False) == (model, opt)
    assert model[0].weight.dtype == torch.float32
    with amp.autocast():
        out = model(torch.randn(3, 4))
    assert out.dtype == torch.float32
    opt.backward(out.sum())
    opt.step()
    assert not torch.equal(before, model[0].weight)


def test_cpu_defaults_to_bf16_and_dtype_overrides() -> None:
    model = _mlp()
    amp.initialize(model, torch.optim.SGD(model.parameters(), lr=0.1), opt_level="O2")
    assert (model[0].weight.dtype, model[1].weight.dtype) == (torch.bfloat16, torch.float32)
    model = _mlp()
    amp.initialize(
        model, torch.optim.SGD(model.parameters(), lr=0.1), opt_level="O3", dtype=torch.float16
    )
    assert (model[0].weight.dtype, model[1].weight.dtype) == (torch.float16, torch.float16)


@pytest.mark.parametrize(
    ("device", "default", "bf16_allowed"),
    [
        (fake("cpu"), torch.bfloat16, True),
        (fake("cuda", "9.0"), torch.float16, True),
        (fake("npu", "Ascend910A"), torch.float16, False),
        (fake("npu", "910ProB"), torch.float16, False),
        (fake("npu", "Ascend910B3"), torch.float16, True),
        (fake("npu", "Ascend910_9391"), torch.float16, True),
    ],
)
def test_dtype_choice_per_device(
    device: FakeDevice, default: torch.dtype, bf16_allowed: bool
) -> None:
    assert choose_dtype(device) == default
    assert choose_dtype(device, torch.float16) == torch.float16
    if bf16_allowed:
        assert choose_dtype(device, torch.bfloat16) == torch.bfloat16
    else:
        with pytest.raises(ValueError, match=r"910A .* has no bf16"):
            choose_dtype(device, torch.bfloat16)


def test_bf16_on_910a_fails_initialize() -> None:
    model = _mlp()
    with pytest.raises(ValueError, match="bfloat16 is not available"):
        amp.initialize(
            model,
            torch.optim.SGD(model.parameters(), lr=0.1),
            dtype=torch.bfloat16,
            device=fake("npu", "Ascend910A"),
        )


def test_fp32_is_not_a_low_precision_dtype() -> None:
    with pytest.raises(ValueError, match=r"float16 or torch\.bfloat16"):
        choose_dtype(fake("cpu"), torch.float32)


def test_supported_dtypes_explains_cpu_flags() -> None:
    native = amp.supported_dtypes("cpu", cpu_flags=["avx2", "avx512_bf16"])
    assert native["default"] == "bfloat16"
    assert native["dtypes"]["bfloat16"] == {
        "supported": True,
        "native": True,
        "reason": "native bf16 (avx512_bf16)",
        "recommended": True,
    }
    assert native["dtypes"]["float16"]["native"] is False
    assert "20x slower" in native["dtypes"]["float16"]["reason"]
    emulated = amp.supported_dtypes("cpu", cpu_flags=["avx2"])["dtypes"]["bfloat16"]
    assert (emulated["native"], emulated["recommended"]) == (False, False)
    assert amp.supported_dtypes("cpu")["dtypes"]["bfloat16"]["native"] is None


def test_supported_dtypes_for_accelerators() -> None:
    volta = amp.supported_dtypes("cuda", "7.0")["dtypes"]
    assert (volta["float16"]["native"], volta["bfloat16"]["native"]) == (True, False)
    assert amp.supported_dtypes("cuda", "8.0")["dtypes"]["bfloat16"]["native"] is True
    a2 = amp.supported_dtypes("npu", "Ascend910B3")
    assert a2["default"] == "float16" and a2["dtypes"]["bfloat16"]["supported"] is True
    assert amp.supported_dtypes("npu", "Ascend910A")["dtypes"]["bfloat16"]["supported"] is False
    assert amp.supported_dtypes("npu", "mystery")["dtypes"]["bfloat16"]["supported"] is None
    with pytest.raises(ValueError, match="cpu, cuda and npu"):
        amp.supported_dtypes("mps")


def test_importing_ampenv_does_not_import_torch() -> None:
    code = "import sys, ampenv; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
