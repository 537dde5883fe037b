"""ampenv.amp: apex-style mixed precision on Ascend NPU, CUDA and CPU.

    from ampenv import amp
    model, optimizer = amp.initialize(model, optimizer, opt_level="O2")
    with amp.autocast():
        loss = criterion(model(x), y)
    optimizer.backward(loss)          # scale, backprop, unscale, record overflow (repeatable)
    optimizer.step()                  # skipped on overflow; the scaler updates

apex code (`with amp.scale_loss(loss, optimizer, loss_id=0) as scaled: scaled.backward()`, no
autocast block) and Ascend apex code run unchanged: amp.initialize takes all their keywords.

Importing this package imports torch; `import ampenv` does not.
"""

from .autocast import autocast
from .coverage import CoverageReport, OpRow, coverage
from .device import AmpDevice, TorchDevice, supported_dtypes
from .initialize import initialize, load_state_dict, loss_scaler, state_dict
from .numerics import (
    Comparison,
    LayerRange,
    NonFinite,
    Offender,
    compare_outputs,
    grad_nonfinite_counts,
    layer_ranges,
    nonfinite_counts,
)
from .optimizer import master_params, scale_loss
from .policy import (
    FP32_ONLY,
    OPT_LEVELS,
    Properties,
    clear_registrations,
    register_float_function,
    register_half_function,
    register_promote_function,
)
from .scaler import DynamicLossScaler, LossScaler, StaticLossScaler
from .selftest import functional_probe

__all__ = [
    "FP32_ONLY",
    "OPT_LEVELS",
    "AmpDevice",
    "Comparison",
    "CoverageReport",
    "DynamicLossScaler",
    "LayerRange",
    "LossScaler",
    "NonFinite",
    "Offender",
    "OpRow",
    "Properties",
    "StaticLossScaler",
    "TorchDevice",
    "autocast",
    "clear_registrations",
    "compare_outputs",
    "coverage",
    "functional_probe",
    "grad_nonfinite_counts",
    "initialize",
    "layer_ranges",
    "load_state_dict",
    "loss_scaler",
    "master_params",
    "nonfinite_counts",
    "register_float_function",
    "register_half_function",
    "register_promote_function",
    "scale_loss",
    "state_dict",
    "supported_dtypes",
]
