"""amp.initialize: apex's opt levels O0-O3 on npu, cuda and cpu."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch
from torch.nn.modules.batchnorm import _BatchNorm

from . import policy, state
from .autocast import LOW, cast_tensors
from .device import AmpDevice, TorchDevice, choose_dtype
from .optimizer import patch_optimizer
from .scaler import DynamicLossScaler, LossScaler, StaticLossScaler

Masters = dict[torch.nn.Parameter, torch.nn.Parameter]


def _listify(obj: Any, kind: type, what: str) -> list:
    items = list(obj) if isinstance(obj, (list, tuple)) else [obj]
    for item in items:
        if not isinstance(item, kind):
            raise TypeError(
                f"{what} must be a {kind.__module__}.{kind.__qualname__} or a list of "
                f"them, not {type(item).__name__}"
            )
    return items


def _optimizer_params(optimizers: list[torch.optim.Optimizer]) -> list[torch.nn.Parameter]:
    return [p for opt in optimizers for group in opt.param_groups for p in group["params"]]


def _check_fp32(models: list[torch.nn.Module]) -> None:
    for model in models:
        tensors = [*model.named_parameters(), *model.named_buffers()]
        for name, tensor in tensors:
            if tensor.is_floating_point() and tensor.dtype != torch.float32:
                raise ValueError(
                    f"amp.initialize expects an fp32 model, but {name!r} is {tensor.dtype}: leave "
                    "the model in fp32 (no .half() or .bfloat16()); the opt level casts it"
                )


def _device_of(
    models: list[torch.nn.Module], optimizers: list[torch.optim.Optimizer]
) -> torch.device:
    devices = {p.device for model in models for p in model.parameters()}
    if len(devices) != 1:
        found = ", ".join(sorted(map(str, devices))) or "no parameters"
        raise ValueError(f"amp needs the model's parameters on one device; found {found}")
    (device,) = devices
    strays = {p.device for p in _optimizer_params(optimizers)} - devices
    if strays:
        raise ValueError(
            f"the model is on {device} but the optimizer holds parameters on "
            f"{', '.join(sorted(map(str, strays)))}: build the optimizer from the model's "
            "parameters after moving the model to its device"
        )
    return device


def _castable_modules(
    model: torch.nn.Module, keep_batchnorm_fp32: bool | None
) -> Iterator[torch.nn.Module]:
    for module in model.modules():
        if not (keep_batchnorm_fp32 and isinstance(module, _BatchNorm) and module.affine):
            yield module


def _cast_model(
    model: torch.nn.Module, dtype: torch.dtype, keep_batchnorm_fp32: bool | None
) -> None:
    # param.data is replaced, not the Parameter: the optimizer keeps referring to the same objects.
    for module in list(_castable_modules(model, keep_batchnorm_fp32)):
        for param in module.parameters(recurse=False):
            if param.is_floating_point():
                param.data = param.data.to(dtype)
        for name, buffer in module.named_buffers(recurse=False):
            if buffer.is_floating_point():
                setattr(module, name, buffer.to(dtype))
    # As apex: inputs in the model's dtype, outputs back in fp32 for the loss.
    model.register_forward_pre_hook(
        lambda _m, args, kwargs: cast_tensors((args, kwargs), (torch.float32,), dtype),
        with_kwargs=True,
    )
    model.register_forward_hook(lambda _m, _args, out: cast_tensors(out, LOW, torch.float32))


def _attach_masters(model: torch.nn.Module, masters: Masters) -> None:
    """model.state_dict() gives the fp32 masters; model.load_state_dict() sets them.

    So an O2 checkpoint holds the exact weights, and loading one after amp.initialize (apex's
    order) resumes from them rather than from their low-precision copies.
    """

    def mastered(module: torch.nn.Module) -> Iterator[tuple[str, torch.nn.Parameter]]:
        for name, param in module.named_parameters(remove_duplicate=False):
            if param in masters:
                yield name, masters[param]

    def save(module: torch.nn.Module, state_dict: dict, prefix: str, _meta: Any) -> None:
        for name, master in mastered(module):
            state_dict[prefix + name] = master.detach()

    def load(module: torch.nn.Module, state_dict: dict, prefix: str, *_: Any) -> None:
        with torch.no_grad():
            for name, master in mastered(module):
                if prefix + name in state_dict:
                    master.copy_(state_dict[prefix + name])

    # The private registrations exist in every torch >= 2.1 (the public ones came later).
    model._register_state_dict_hook(save)
    model._register_load_state_dict_pre_hook(load, with_module=True)


def _make_scaler(
    props: policy.Properties,
    min_loss_scale: float | None,
    max_loss_scale: float | None,
    device: AmpDevice,
) -> LossScaler:
    if props.loss_scale == "dynamic":
        return DynamicLossScaler(min_scale=min_loss_scale, max_scale=max_loss_scale, device=device)
    return StaticLossScaler(float(props.loss_scale), device)


def initialize(
    model: Any,
    optimizer: Any = None,
    opt_level: str = "O1",
    loss_scale: float | str | None = None,
    keep_batchnorm_fp32: bool | str | None = None,
    master_weights: bool | None = None,
    min_loss_scale: float | None = None,
    max_loss_scale: float | None = 2.0**24,
    enabled: bool = True,
    dtype: torch.dtype | None = None,
    *,
    device: AmpDevice | None = None,
) -> Any:
    """Prepare model(s) and optimizer(s) for mixed precision at `opt_level` (apex's O0-O3).

    Returns what it was given, as apex does: `model`, or `model, optimizer`; lists stay lists.
    `dtype` overrides the device's low-precision dtype (bf16 on CPU, fp16 on CUDA and Ascend);
    `device` replaces the device found from the model (tests pass a fake one).
    `enabled=False` leaves the model alone and makes the optimizer's amp step a plain fp32 one.
    """
    models = _listify(model, torch.nn.Module, "model")
    optimizers = (
        [] if optimizer is None else _listify(optimizer, torch.optim.Optimizer, "optimizer")
    )
    if not enabled:
        first = next((p.device for m in models for p in m.parameters()), torch.device("cpu"))
        props, amp_device = policy.DISABLED, device or TorchDevice(first)
        low = choose_dtype(amp_device)
    else:
        props = policy.resolve(opt_level, loss_scale, keep_batchnorm_fp32, master_weights)
        _check_fp32(models)
        found = _device_of(models, optimizers)
        amp_device = device or TorchDevice.of(found)
        low = choose_dtype(amp_device, dtype)
    masters: Masters = {}
    if props.cast_model:
        owned = set(_optimizer_params(optimizers))
        for m in models:
            if props.master_weights:
                mine = {
                    p: torch.nn.Parameter(p.detach().clone(), requires_grad=p.requires_grad)
                    for module in _castable_modules(m, props.keep_batchnorm_fp32)
                    for p in module.parameters(recurse=False)
                    if p in owned and p.is_floating_point()
                }
                _attach_masters(m, mine)
                masters.update(mine)
            _cast_model(m, low, props.keep_batchnorm_fp32)
    scaler = _make_scaler(props, min_loss_scale, max_loss_scale, amp_device)
    for opt in optimizers:
        patch_optimizer(opt, scaler, masters)
    state.set_current(state.AmpState(props, amp_device, low, scaler))
    return model if optimizer is None else (model, optimizer)


def _current() -> state.AmpState:
    amp_state = state.current()
    if amp_state is None:
        raise RuntimeError("call amp.initialize(...) first")
    return amp_state


def loss_scaler() -> LossScaler:
    """The loss scaler that amp.initialize made (`float(amp.loss_scaler().scale)`)."""
    return _current().scaler


def state_dict() -> dict:
    """apex's amp.state_dict(): the loss scaler's state, to save with model and optimizer."""
    return {"loss_scaler0": loss_scaler().state_dict()}


def load_state_dict(state_dict: dict) -> None:
    loss_scaler().load_state_dict(state_dict["loss_scaler0"])
