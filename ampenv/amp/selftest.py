"""functional_probe: does amp work on this device? For the amp.support check's child process."""

from __future__ import annotations

import torch

from .autocast import autocast
from .device import TorchDevice, choose_dtype, dtype_name
from .optimizer import patch_optimizer, scale_loss
from .scaler import DynamicLossScaler


def functional_probe(device: str) -> dict:
    """Run a tiny model under amp.autocast on `device` and push an inf gradient through a step.

    Expected: the matmul runs in the device's low-precision dtype, softmax in fp32 (the op
    policy); the scaler sees the inf, the step is skipped (parameters and optimizer state
    untouched) and the scale halves. Touches no global amp state. Returns a JSON-ready dict.
    """
    amp_device = TorchDevice.of(device)
    dtype = choose_dtype(amp_device)
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 8).to(amp_device.device)
    x = torch.randn(4, 8, device=amp_device.device)
    with autocast(device_type=amp_device.device.type, dtype=dtype):
        hidden = model(x)
        probs = torch.softmax(hidden, dim=-1)
    autocast_ok = hidden.dtype == dtype and probs.dtype == torch.float32

    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = DynamicLossScaler(device=amp_device)
    patch_optimizer(optimizer, (scaler,), {})
    before = [p.detach().clone() for p in model.parameters()]
    scale_before = float(scaler.scale)
    with scale_loss(model(x).float().pow(2).mean(), optimizer) as scaled:
        scaled.backward()
        with torch.no_grad():
            model.weight.grad[0, 0] = float("inf")
    overflow_detected = bool(optimizer._amp_stash.found_inf)
    optimizer.step()
    unchanged = all(torch.equal(b, p) for b, p in zip(before, model.parameters()))
    skipped = unchanged and not optimizer.state
    scale_after = float(scaler.scale)
    scaler_ok = overflow_detected and skipped and scale_after == scale_before / 2
    return {
        "device": str(amp_device.device),
        "chip": amp_device.chip,
        "saturation_mode": amp_device.saturation_mode,
        "dtype": dtype_name(dtype),
        "matmul_dtype": dtype_name(hidden.dtype),
        "softmax_dtype": dtype_name(probs.dtype),
        "autocast_ok": autocast_ok,
        "overflow_detected": overflow_detected,
        "step_skipped": skipped,
        "scale_before": scale_before,
        "scale_after": scale_after,
        "scaler_ok": scaler_ok,
        "ok": autocast_ok and scaler_ok,
    }
