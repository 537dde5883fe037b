"""amp.initialize: apex's opt levels O0-O3 on npu, cuda and cpu."""

from __future__ import annotations

import functools
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
from torch.nn.modules.batchnorm import _BatchNorm

from . import policy, state
from .autocast import LOW, cast_tensors, region
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
    # As apex: inputs in the model's dtype.
    model.register_forward_pre_hook(
        lambda _m, args, kwargs: cast_tensors((args, kwargs), (torch.float32,), dtype),
        with_kwargs=True,
    )


def _patch_forward(model: torch.nn.Module, amp_state: state.AmpState) -> None:
    """Run the model's forward in its own autocast region, as apex's O1 patched torch for the
    whole program: apex code computes `model(x)` without a `with` block. The region follows this
    call's settings, so a later amp.initialize does not change them."""
    forward = model.forward
    device_type = amp_state.device.device.type

    @functools.wraps(forward)
    def autocast_forward(*args: Any, **kwargs: Any) -> Any:
        with region(
            device_type, amp_state.dtype, True, user_preferred=amp_state.user_cast_preferred
        ):
            return forward(*args, **kwargs)

    model.forward = autocast_forward


def _cast_outputs(model: torch.nn.Module, dtype: torch.dtype) -> None:
    # As apex: outputs back in fp32 (or cast_model_outputs) for a loss computed outside autocast.
    model.register_forward_hook(lambda _m, _args, out: cast_tensors(out, LOW, dtype))


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


@dataclass(frozen=True)
class ScalerSettings:
    """The dynamic scaler's knobs: apex's min/max, Ascend apex's init, factors and window."""

    min_loss_scale: float | None = None
    max_loss_scale: float | None = 2.0**24
    init_scale: float = 2.0**16
    growth_factor: float = 2.0
    backoff_factor: float = 0.5
    window: int = 2000


def _make_scaler(props: policy.Properties, knobs: ScalerSettings, device: AmpDevice) -> LossScaler:
    if props.loss_scale == "dynamic":
        return DynamicLossScaler(
            init_scale=knobs.init_scale,
            growth_factor=knobs.growth_factor,
            backoff_factor=knobs.backoff_factor,
            growth_interval=knobs.window,
            min_scale=knobs.min_loss_scale,
            max_scale=knobs.max_loss_scale,
            device=device,
        )
    return StaticLossScaler(float(props.loss_scale), device)


# Ascend apex keywords that only tune its fused NPU kernels and DDP: numerics do not depend on
# them. A flat-buffer unscale (combine_grad) measured no faster than the per-tensor foreach
# kernel on CPU (the same memory traffic), so none of them is implemented.
WITHOUT_EFFECT = ("combine_grad", "combine_ddp", "ddp_replica_count", "check_combined_tensors")
_noticed: set[str] = set()


def _notice_without_effect(name: str, value: Any) -> None:
    if name in _noticed:
        return
    _noticed.add(name)
    sys.stderr.write(
        f"ampenv.amp: {name}={value!r} accepted without effect (it tunes Ascend apex's fused "
        "kernels; ampenv's numerics are the same without it)\n"
    )


def _check_fresh(models: list[torch.nn.Module], optimizers: list[torch.optim.Optimizer]) -> None:
    for model in models:
        if getattr(model, "_amp_initialized", False):
            raise ValueError("this model already went through amp.initialize")
    for opt in optimizers:
        if hasattr(opt, "_amp_stash"):
            raise ValueError("this optimizer already went through amp.initialize")


def _warn_if_second(previous: state.AmpState | None) -> None:
    if previous is not None and previous.alive():
        warnings.warn(
            "amp.initialize was already called in this process and its models or optimizers "
            "are still in use; apex supports one call per process. They keep their own settings "
            "and loss scalers; amp.state_dict(), amp.loss_scaler() and a bare amp.autocast() now "
            "follow this call. Pass every model and optimizer to one amp.initialize call.",
            UserWarning,
            stacklevel=3,
        )


def initialize(
    models: Any,
    optimizers: Any = None,
    enabled: bool = True,
    opt_level: str = "O1",
    cast_model_type: torch.dtype | bool | None = None,
    patch_torch_functions: bool | None = None,
    keep_batchnorm_fp32: bool | str | None = None,
    master_weights: bool | None = None,
    loss_scale: float | str | None = None,
    cast_model_outputs: torch.dtype | None = None,
    num_losses: int = 1,
    verbosity: int = 1,
    min_loss_scale: float | None = None,
    max_loss_scale: float | None = 2.0**24,
    dynamic_init_scale: float = 2.0**16,
    scale_growth_factor: float = 2.0,
    scale_backoff_factor: float = 0.5,
    scale_window: int = 2000,
    combine_grad: bool | None = None,
    combine_ddp: bool | None = None,
    ddp_replica_count: int | None = None,
    user_cast_preferred: bool | None = None,
    check_combined_tensors: bool | None = None,
    *,
    dtype: torch.dtype | None = None,
    device: AmpDevice | None = None,
) -> Any:
    """Prepare model(s) and optimizer(s) for mixed precision at `opt_level` (apex's O0-O3).

    The keywords are apex's and Ascend apex's, in their order and with their defaults
    (ddp_replica_count: Ascend's default is 4; it has no effect here). Returns what it was given,
    as apex does: `model`, or `model, optimizer`; lists stay lists. `dtype` overrides the device's
    low-precision dtype (bf16 on CPU, fp16 on CUDA and Ascend); `device` replaces the device found
    from the model (tests pass a fake one). `enabled=False` leaves the model alone and makes the
    optimizer's amp step a plain fp32 one. `verbosity` is accepted: ampenv never prints.
    """
    model_list = _listify(models, torch.nn.Module, "model")
    opt_list = (
        [] if optimizers is None else _listify(optimizers, torch.optim.Optimizer, "optimizer")
    )
    if not (isinstance(num_losses, int) and num_losses >= 1):
        raise ValueError(f"num_losses must be a positive integer, not {num_losses!r}")
    tuning = {
        "combine_grad": combine_grad,
        "combine_ddp": combine_ddp,
        "ddp_replica_count": ddp_replica_count,
        "check_combined_tensors": check_combined_tensors,
    }
    for name in WITHOUT_EFFECT:
        if tuning[name] not in (None, False):
            _notice_without_effect(name, tuning[name])
    _check_fresh(model_list, opt_list)
    if not enabled:
        first = next((p.device for m in model_list for p in m.parameters()), torch.device("cpu"))
        props, amp_device = policy.DISABLED, device or TorchDevice(first)
        low = choose_dtype(amp_device)
    else:
        props = policy.resolve(
            opt_level,
            loss_scale,
            keep_batchnorm_fp32,
            master_weights,
            cast_model_type,
            patch_torch_functions,
        )
        _check_fp32(model_list)
        found = _device_of(model_list, opt_list)
        amp_device = device or TorchDevice.of(found)
        low = choose_dtype(amp_device, _agreed_dtype(dtype, cast_model_type))
    if cast_model_outputs not in (None, torch.float32, *LOW):
        raise ValueError(f"cast_model_outputs must be a floating dtype, not {cast_model_outputs!r}")
    knobs = ScalerSettings(
        min_loss_scale,
        max_loss_scale,
        dynamic_init_scale,
        scale_growth_factor,
        scale_backoff_factor,
        scale_window,
    )
    scalers = tuple(_make_scaler(props, knobs, amp_device) for _ in range(num_losses))
    amp_state = state.AmpState(
        props,
        amp_device,
        low,
        scalers,
        user_cast_preferred is not False,
        state.weak([*model_list, *opt_list]),
    )
    masters: Masters = {}
    owned = set(_optimizer_params(opt_list))
    for m in model_list:
        m._amp_initialized = True
        if props.cast_model:
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
        if props.autocast:
            _patch_forward(m, amp_state)
        if props.cast_model or props.autocast:
            _cast_outputs(m, cast_model_outputs or torch.float32)
    for opt in opt_list:
        patch_optimizer(opt, scalers, masters)
    _warn_if_second(state.current())
    state.set_current(amp_state)
    return models if optimizers is None else (models, optimizers)


def _agreed_dtype(dtype: torch.dtype | None, cast_model_type: Any) -> torch.dtype | None:
    """`dtype` and a low-precision `cast_model_type` name the same thing; they must agree."""
    cast = cast_model_type if cast_model_type in LOW else None
    if dtype is not None and cast is not None and dtype != cast:
        raise ValueError(f"cast_model_type={cast} contradicts dtype={dtype}: give one of them")
    return dtype or cast


def _current() -> state.AmpState:
    amp_state = state.current()
    if amp_state is None:
        raise RuntimeError("call amp.initialize(...) first")
    return amp_state


def loss_scaler(loss_id: int = 0) -> LossScaler:
    """The loss scaler of `loss_id` that amp.initialize made (`float(amp.loss_scaler().scale)`)."""
    return _current().scalers[loss_id]


def state_dict() -> dict:
    """apex's amp.state_dict(): `{"loss_scaler<i>": ...}` per loss, to save with the model."""
    return {f"loss_scaler{i}": s.state_dict() for i, s in enumerate(_current().scalers)}


def load_state_dict(state_dict: dict) -> None:
    """Load amp.state_dict() as saved by ampenv or by apex (`loss_scale`, `unskipped`)."""
    scalers = _current().scalers
    names = {f"loss_scaler{i}" for i in range(len(scalers))}
    unknown = sorted(set(state_dict) - names)
    if unknown:
        raise ValueError(
            f"the checkpoint has {', '.join(unknown)} but amp.initialize made "
            f"{len(scalers)} loss scaler(s): pass num_losses as when it was saved"
        )
    for i, scaler in enumerate(scalers):
        if f"loss_scaler{i}" in state_dict:
            scaler.load_state_dict(state_dict[f"loss_scaler{i}"])
