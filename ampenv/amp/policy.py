"""The opt levels (apex's table) and the op policy applied inside amp.autocast."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Union

import torch
import torch.nn.functional as F

LossScale = Union[float, str]


@dataclass(frozen=True)
class Properties:
    """One opt level, with the user's overrides applied.

    The columns are apex's (`cast_model` stands for cast_model_type=<low precision>), plus
    `autocast`: whether amp.autocast casts ops. apex patched functions only at O1; here O2 also
    runs under autocast so that its fp32 op policy (softmax, layer_norm, ...) holds for a model
    whose weights are already low precision.
    """

    opt_level: str
    cast_model: bool
    autocast: bool
    keep_batchnorm_fp32: bool | None
    master_weights: bool
    loss_scale: LossScale  # "dynamic" or a number
    enabled: bool = True


OPT_LEVELS: dict[str, Properties] = {
    "O0": Properties(
        "O0",
        cast_model=False,
        autocast=False,
        keep_batchnorm_fp32=None,
        master_weights=False,
        loss_scale=1.0,
    ),
    "O1": Properties(
        "O1",
        cast_model=False,
        autocast=True,
        keep_batchnorm_fp32=None,
        master_weights=False,
        loss_scale="dynamic",
    ),
    "O2": Properties(
        "O2",
        cast_model=True,
        autocast=True,
        keep_batchnorm_fp32=True,
        master_weights=True,
        loss_scale="dynamic",
    ),
    "O3": Properties(
        "O3",
        cast_model=True,
        autocast=False,
        keep_batchnorm_fp32=False,
        master_weights=False,
        loss_scale=1.0,
    ),
}

DISABLED = replace(OPT_LEVELS["O0"], enabled=False)


def _parse_loss_scale(value: Any) -> LossScale:
    if value == "dynamic":
        return "dynamic"
    try:
        scale = float(value)  # apex accepts numbers and numeric strings ("128.0")
    except (TypeError, ValueError):
        raise ValueError(f"loss_scale must be 'dynamic' or a number, not {value!r}") from None
    if not scale > 0 or scale == float("inf"):
        raise ValueError(f"loss_scale must be a positive finite number, not {value!r}")
    return scale


def _parse_bool(name: str, value: Any) -> bool | None:
    parsed = {"True": True, "False": False}.get(value, value) if isinstance(value, str) else value
    if parsed not in (True, False, None):
        raise ValueError(f"{name} must be True, False, None, 'True' or 'False', not {value!r}")
    return parsed


def _parse_cast_model_type(opt_level: str, value: Any) -> torch.dtype | bool | None:
    """None (the level's), False / torch.float32 (no cast) or a low-precision dtype."""
    if value is None or value is False:
        return value
    if value is torch.float32:
        return False
    if value not in (torch.float16, torch.bfloat16):
        raise ValueError(
            f"cast_model_type must be None, False, torch.float32, torch.float16 or "
            f"torch.bfloat16, not {value!r}"
        )
    if opt_level == "O1":
        # As apex: O1 keeps fp32 weights; a low cast_model_type there would be ignored silently.
        raise ValueError(
            f"cast_model_type={value} contradicts opt_level O1, which keeps the model in fp32: "
            "use opt_level O2 or O3 to cast the model"
        )
    return value


def resolve(
    opt_level: str,
    loss_scale: Any = None,
    keep_batchnorm_fp32: Any = None,
    master_weights: Any = None,
    cast_model_type: Any = None,
    patch_torch_functions: Any = None,
) -> Properties:
    """The level's properties; an argument that is not None overrides the level's value.

    A low-precision `cast_model_type` only says "cast the model"; which dtype is amp.initialize's
    choice (it checks that the two agree).
    """
    if opt_level not in OPT_LEVELS:
        raise ValueError(
            f"unknown opt_level {opt_level!r}: valid levels are 'O0', 'O1', 'O2' and 'O3' "
            "(the prefix is the letter O, not the digit zero)"
        )
    props = OPT_LEVELS[opt_level]
    keep_bn = _parse_bool("keep_batchnorm_fp32", keep_batchnorm_fp32)
    masters = _parse_bool("master_weights", master_weights)
    patch = _parse_bool("patch_torch_functions", patch_torch_functions)
    cast = _parse_cast_model_type(opt_level, cast_model_type)
    if opt_level == "O1" and (keep_bn is not None or masters is not None):
        # As apex: O1 keeps the model fp32, so these settings would silently do nothing.
        raise ValueError(
            "O1 keeps the model in fp32: keep_batchnorm_fp32 and master_weights "
            "apply to O2 and O3 only; leave them None"
        )
    overrides: dict[str, Any] = {
        "keep_batchnorm_fp32": keep_bn,
        "master_weights": masters,
        "autocast": patch,
        "cast_model": None if cast is None else cast is not False,
    }
    if loss_scale is not None:
        overrides["loss_scale"] = _parse_loss_scale(loss_scale)
    return replace(props, **{k: v for k, v in overrides.items() if v is not None})


@dataclass(frozen=True)
class Rule:
    """Run `owner.name` inside amp.autocast in fp32 ("float"), in the autocast dtype ("half"),
    or in the widest floating dtype among its tensor arguments ("promote")."""

    kind: str
    reason: str


def _existing(owner: Any, names: tuple[str, ...]) -> list[tuple[Any, str]]:
    return [(owner, name) for name in names if hasattr(owner, name)]


# Kept fp32 on every device. torch's CPU autocast leaves softmax, log_softmax and layer_norm in
# low precision (its CUDA list does not). The losses are listed so that a loss is the fp32 loss
# of its inputs everywhere: on CUDA (torch 2.11, H200) autocast's cross_entropy of fp16/bf16
# logits is not (5e-4 / 3e-3 off over 64 x 1000 logits; benchmarks/bench_amp_step.py shows it).
FP32_FUNCTIONS: list[tuple[Any, str]] = [
    *_existing(
        F,
        (
            "softmax",
            "log_softmax",
            "softmin",
            "layer_norm",
            "group_norm",
            "normalize",
            "cosine_similarity",
            "cross_entropy",
            "nll_loss",
            "kl_div",
            "mse_loss",
            "l1_loss",
            "smooth_l1_loss",
            "huber_loss",
            "binary_cross_entropy_with_logits",
            "poisson_nll_loss",
            "gaussian_nll_loss",
            "cosine_embedding_loss",
            "hinge_embedding_loss",
            "margin_ranking_loss",
            "multilabel_margin_loss",
            "multilabel_soft_margin_loss",
            "multi_margin_loss",
            "soft_margin_loss",
            "triplet_margin_loss",
            "ctc_loss",
        ),
    ),
    *_existing(torch, ("softmax", "log_softmax", "layer_norm", "group_norm", "logsumexp")),
    *_existing(torch.Tensor, ("softmax", "log_softmax", "logsumexp")),
]

# The article's name for the list: (module, function name) pairs kept fp32 inside amp.autocast.
FP32_ONLY: tuple[tuple[Any, str], ...] = tuple(FP32_FUNCTIONS)

# The "attention in fp32" rule: scores, softmax and the weighted sum in fp32.
ATTENTION_FUNCTIONS: list[tuple[Any, str]] = _existing(
    F, ("scaled_dot_product_attention", "multi_head_attention_forward")
)

_registry: dict[tuple[Any, str], Rule] = {}


def _label(owner: Any, name: str) -> str:
    return f"{getattr(owner, '__name__', owner)}.{name}"


def _register(module: Any, name: str, kind: str) -> None:
    if not hasattr(module, name):
        raise ValueError(f"No function named {name} in module {module}.")
    _registry[(module, name)] = Rule(kind, f"registered {kind} function {_label(module, name)}")


def register_float_function(module: Any, name: str) -> None:
    """Run `module.name` in fp32 inside amp.autocast (only there)."""
    _register(module, name, "float")


def register_half_function(module: Any, name: str) -> None:
    """Run `module.name` in the low-precision dtype inside amp.autocast (only there)."""
    _register(module, name, "half")


def register_promote_function(module: Any, name: str) -> None:
    """Run `module.name` in the widest floating dtype of its tensor arguments inside
    amp.autocast (fp32 if any is fp32), as apex's promote lists and torch's promote ops do."""
    _register(module, name, "promote")


def clear_registrations() -> None:
    """Forget every register_float_function / register_half_function / register_promote_function."""
    _registry.clear()


_BUILTIN = {key: Rule("float", f"ampenv fp32 policy: {_label(*key)}") for key in FP32_FUNCTIONS}
_ATTENTION = {
    key: Rule("float", f"attention in fp32: {_label(*key)}") for key in ATTENTION_FUNCTIONS
}


def rules(attention_fp32: bool, user_preferred: bool = True) -> dict[tuple[Any, str], Rule]:
    """The casts amp.autocast applies: the built-in lists and the user's registrations, the
    registrations winning where both name a function unless `user_preferred` is False (Ascend
    apex's user_cast_preferred)."""
    builtin = {**_BUILTIN, **(_ATTENTION if attention_fp32 else {})}
    return {**builtin, **_registry} if user_preferred else {**_registry, **builtin}
