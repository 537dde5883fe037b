"""amp.coverage: how much of one training step amp.autocast runs in low precision, on any device.

ampenv's answer to msprof's FP16 efficiency: a dispatch mode sees every aten op of a forward, loss
and backward, counts the matmul/conv FLOPs (torch's own FLOP formulas) by the dtype they ran in,
and says for each op left in fp32 why.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.flop_counter import flop_registry

from .autocast import LOW, autocast, current_frame
from .device import TorchDevice, choose_dtype, dtype_name


@dataclass
class OpRow:
    """The calls of one aten op in one phase ("forward", "loss", "backward") and one dtype."""

    op: str
    phase: str
    dtype: str
    calls: int
    flops: int
    reason: str | None  # why it ran in fp32; None when it ran in low precision


@dataclass
class CoverageReport:
    device_type: str
    dtype: str
    low_precision_flop_share: float  # of the matmul/conv FLOPs
    low_precision_flops: int
    total_flops: int
    rows: list[OpRow]

    def fp32_rows(self) -> list[OpRow]:
        return [row for row in self.rows if row.reason is not None]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


class _Recorder(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.phase = "forward"
        self.rows: dict[tuple[str, str, str, str | None], OpRow] = {}

    def _reason(self) -> str:
        frame = current_frame()
        if frame is not None and frame.reason:
            return frame.reason
        if self.phase == "backward":
            return "backward of an op that ran in fp32"
        if frame is None or not frame.active:
            return "autocast off"
        return "fp32 inputs: on torch's autocast fp32 list, or fed by an fp32 op"

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if func.is_view:
            return out
        # The dtype an op ran in shows in what it produced (a cast: its target); inputs otherwise.
        dtype = next(
            (
                t.dtype
                for t in tree_leaves((out, args, kwargs))
                if isinstance(t, torch.Tensor) and t.is_floating_point()
            ),
            None,
        )
        if dtype is None:
            return out
        packet = func._overloadpacket
        flop_formula = flop_registry.get(packet)
        flops = flop_formula(*args, **kwargs, out_val=out) if flop_formula else 0
        reason = None if dtype in LOW else self._reason()
        key = (str(packet), self.phase, dtype_name(dtype), reason)
        row = self.rows.setdefault(key, OpRow(*key[:3], calls=0, flops=0, reason=reason))
        row.calls += 1
        row.flops += flops
        return out


def _sum_of_outputs(output: Any) -> torch.Tensor:
    floats = [
        t for t in tree_leaves(output) if isinstance(t, torch.Tensor) and t.is_floating_point()
    ]
    return torch.stack([t.float().sum() for t in floats]).sum()


def coverage(
    model: torch.nn.Module,
    inputs: Any,
    loss_fn: Callable[[Any], torch.Tensor] | None = None,
    *,
    device_type: str | None = None,
    dtype: torch.dtype | None = None,
    attention_fp32: bool = False,
) -> CoverageReport:
    """Run one forward, loss and backward of `model` under amp.autocast and report precision.

    `inputs`: a tensor or a tuple of positional arguments; `loss_fn(output)` defaults to the sum
    of the outputs. The device is the model's unless given. Parameter grads and buffers (BatchNorm
    statistics) are left as they were.
    """
    params = [p for p in model.parameters() if p.requires_grad]
    if device_type is None:
        device_type = params[0].device.type if params else "cpu"
    dtype = choose_dtype(TorchDevice.of(device_type), dtype)
    args = inputs if isinstance(inputs, tuple) else (inputs,)
    buffers = [(b, b.detach().clone()) for b in model.buffers()]
    recorder = _Recorder()
    try:
        with recorder:
            with autocast(device_type=device_type, dtype=dtype, attention_fp32=attention_fp32):
                output = model(*args)
                recorder.phase = "loss"
                loss = loss_fn(output) if loss_fn is not None else _sum_of_outputs(output)
            recorder.phase = "backward"
            if params and loss.requires_grad:
                torch.autograd.grad(loss, params, allow_unused=True)  # leaves .grad alone
    finally:
        with torch.no_grad():
            for buffer, saved in buffers:
                buffer.copy_(saved)
    rows = list(recorder.rows.values())
    total = sum(row.flops for row in rows)
    low = sum(row.flops for row in rows if row.reason is None)
    share = low / total if total else 0.0
    return CoverageReport(device_type, dtype_name(dtype), share, low, total, rows)
