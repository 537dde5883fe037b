"""Loss scalers whose state lives on the device.

`DynamicLossScaler` runs torch's own `_amp_update_scale_` kernel (or the same arithmetic in tensor
ops where a backend lacks it), so its scale follows `torch.amp.GradScaler` exactly, with apex's
optional floor and cap on top. Nothing here reads the device except `should_skip` (the one host
sync of a step), `state_dict` and the `overflow_steps` property.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Union

import torch

from .device import DeviceLike, as_amp_device

Overflow = Union[bool, torch.Tensor]

_NO_FUSED_UPDATE: set[str] = set()  # device types whose backend lacks _amp_update_scale_


def update_scale_fallback(
    scale: torch.Tensor,
    tracker: torch.Tensor,
    found_inf: torch.Tensor,
    growth_factor: float,
    backoff_factor: float,
    growth_interval: int,
) -> None:
    """`torch._amp_update_scale_` in plain tensor ops, without a sync.

    Equal to the kernel whenever the factors are exact in fp32 (2.0, 0.5, ...): the kernel
    multiplies in double, which for fp32 operands rounds the same way as one fp32 multiply.
    """
    overflow = found_inf != 0
    successful = tracker + 1
    grow = ~overflow & (successful == growth_interval)
    grown = scale * growth_factor
    kept_or_grown = torch.where(grow & torch.isfinite(grown), grown, scale)
    scale.copy_(torch.where(overflow, scale * backoff_factor, kept_or_grown))
    tracker.copy_(torch.where(overflow | grow, torch.zeros_like(tracker), successful))


def _update_scale(
    scale: torch.Tensor,
    tracker: torch.Tensor,
    found_inf: torch.Tensor,
    growth_factor: float,
    backoff_factor: float,
    growth_interval: int,
) -> None:
    args = (scale, tracker, found_inf, growth_factor, backoff_factor, growth_interval)
    if scale.device.type not in _NO_FUSED_UPDATE:
        try:
            torch._amp_update_scale_(*args)
            return
        except NotImplementedError:  # e.g. older torch_npu builds
            _NO_FUSED_UPDATE.add(scale.device.type)
    update_scale_fallback(*args)


class LossScaler:
    """The shared part: the scale tensor, scaling, unscaling with overflow detection."""

    dynamic = False

    def __init__(self, init_scale: float, device: DeviceLike = "cpu") -> None:
        self.device = as_amp_device(device)
        place = {"dtype": torch.float32, "device": self.device.device}
        self._scale = torch.full((), float(init_scale), **place)
        self._overflows = torch.zeros((), **place)
        self._pending = False  # a scaled backward whose grads are not unscaled yet
        self._window_open = False  # backward passes recorded since the last update
        self._window_found: torch.Tensor | None = None

    @property
    def scale(self) -> torch.Tensor:
        """The current scale, a 0-dim float32 tensor on the device (`float()` it to read)."""
        return self._scale

    @property
    def overflow_steps(self) -> int:
        """How many updates reported an overflow (reads the device)."""
        return int(self._overflows.item())

    def scale_loss(self, loss: torch.Tensor) -> torch.Tensor:
        # In saturation mode the hardware flag collects overflows from here to unscale_; micro-steps
        # of an accumulation window must not clear what the earlier ones raised.
        if self.device.saturation_mode and not self._pending:
            self.device.clear_overflow_flag()
        self._pending = True
        return loss.float() * self._scale

    def unscale_(self, grads: Iterable[torch.Tensor]) -> torch.Tensor | None:
        """Divide `grads` by the scale in place; return found_inf (1.0 if any was inf or NaN)."""
        self._pending = False
        if self.device.saturation_mode:
            found_inf = self.device.overflow_flag().float().clone()  # read before unscaling
        else:
            found_inf = torch.zeros((), dtype=torch.float32, device=self.device.device)
        inv_scale = self._scale.double().reciprocal().float()  # as GradScaler computes it
        by_dtype: dict[torch.dtype, list[torch.Tensor]] = defaultdict(list)
        for grad in grads:
            by_dtype[grad.dtype].append(grad)
        for group in by_dtype.values():
            torch._amp_foreach_non_finite_check_and_unscale_(group, found_inf, inv_scale)
        return found_inf

    def _as_found(self, has_overflow: Overflow) -> torch.Tensor:
        if isinstance(has_overflow, torch.Tensor):
            return has_overflow.to(self.device.device, torch.float32, non_blocking=True).reshape(())
        return torch.full((), float(has_overflow), dtype=torch.float32, device=self.device.device)

    def update(self, has_overflow: Overflow | None) -> None:
        """Record the step's overflow (a bool or a tensor; None: not checked)."""
        if has_overflow is not None:
            self._overflows.add_(self._as_found(has_overflow) != 0)

    def record(self, found_inf: torch.Tensor | None) -> None:
        """Note one unscaled backward pass; the scale moves once per step, in `close_window`."""
        self._window_open = True
        if found_inf is not None:
            window = self._window_found
            self._window_found = found_inf if window is None else torch.maximum(window, found_inf)

    def close_window(self) -> None:
        """Update the scale from every backward since the last update (a no-op if none)."""
        if self._window_open:
            self.update(self._window_found)
            self._window_open, self._window_found = False, None

    def should_skip(self, found_inf: torch.Tensor | None) -> bool:
        return False

    def _unskipped(self) -> int:
        return 0

    def state_dict(self) -> dict:
        """ampenv's keys, plus apex's (`loss_scale`, `unskipped`) so that apex can read it."""
        scale = float(self._scale)
        return {
            "scale": scale,
            "overflow_steps": self.overflow_steps,
            "loss_scale": scale,
            "unskipped": self._unskipped(),
        }

    def load_state_dict(self, state: dict) -> None:
        """Load ampenv's state_dict or apex's ({"loss_scale": ..., "unskipped": ...})."""
        if "scale" not in state:
            self._load_apex(state)
            return
        self._scale.fill_(state["scale"])
        self._overflows.fill_(state["overflow_steps"])

    def _load_apex(self, state: dict) -> None:
        self._scale.fill_(float(state["loss_scale"]))


class StaticLossScaler(LossScaler):
    """A fixed scale (a numeric `loss_scale`): overflows are counted, never skipped."""

    def __init__(self, scale: float = 1.0, device: DeviceLike = "cpu") -> None:
        super().__init__(scale, device)
        self.value = float(scale)

    def scale_loss(self, loss: torch.Tensor) -> torch.Tensor:
        if self.value == 1.0:  # as apex: nothing to scale, unscale or check
            return loss.float()
        return super().scale_loss(loss)

    def unscale_(self, grads: Iterable[torch.Tensor]) -> torch.Tensor | None:
        return None if self.value == 1.0 else super().unscale_(grads)

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.value = float(self._scale)


class DynamicLossScaler(LossScaler):
    """Halve the scale on overflow, double it after `growth_interval` clean steps.

    Without `min_scale`/`max_scale` the scale follows `torch.amp.GradScaler` exactly; with them
    it is clamped as apex's LossScaler does (amp.initialize caps it at 2**24 by default), the
    initial scale included.
    """

    dynamic = True

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        min_scale: float | None = None,
        max_scale: float | None = None,
        *,
        device: DeviceLike = "cpu",
    ) -> None:
        if not growth_factor > 1.0:
            raise ValueError(f"growth_factor must be > 1, not {growth_factor}")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError(f"backoff_factor must be in (0, 1), not {backoff_factor}")
        if not (isinstance(growth_interval, int) and growth_interval >= 1):
            raise ValueError(f"growth_interval must be a positive integer, not {growth_interval}")
        if min_scale is not None and max_scale is not None and min_scale > max_scale:
            raise ValueError(f"min_scale {min_scale} is above max_scale {max_scale}")
        start = min(init_scale, max_scale) if max_scale is not None else init_scale
        super().__init__(max(start, min_scale) if min_scale is not None else start, device)
        self.growth_factor = float(growth_factor)
        self.backoff_factor = float(backoff_factor)
        self.growth_interval = growth_interval
        self.min_scale = min_scale
        self.max_scale = max_scale
        self._growth_tracker = torch.zeros((), dtype=torch.int32, device=self.device.device)

    def update(self, has_overflow: Overflow | None) -> None:
        """Back off after an overflow, grow after `growth_interval` clean steps; on the device."""
        if has_overflow is None:
            raise ValueError("a dynamic loss scaler needs the step's overflow (bool or tensor)")
        found = self._as_found(has_overflow)
        _update_scale(
            self._scale,
            self._growth_tracker,
            found,
            self.growth_factor,
            self.backoff_factor,
            self.growth_interval,
        )
        if self.min_scale is not None or self.max_scale is not None:
            self._scale.clamp_(self.min_scale, self.max_scale)
        super().update(found)

    def should_skip(self, found_inf: torch.Tensor | None) -> bool:
        return bool(found_inf)  # the step's one host sync

    def state_dict(self) -> dict:
        return {
            **super().state_dict(),
            "growth_factor": self.growth_factor,
            "backoff_factor": self.backoff_factor,
            "growth_interval": self.growth_interval,
            "min_scale": self.min_scale,
            "max_scale": self.max_scale,
            "_growth_tracker": int(self._growth_tracker),
        }

    def _unskipped(self) -> int:
        return int(self._growth_tracker)

    def _load_apex(self, state: dict) -> None:
        # apex's scaler: the scale and its count of clean steps since the last change (its
        # growth settings are amp.initialize arguments, not part of the checkpoint).
        super()._load_apex(state)
        self._growth_tracker.fill_(int(state["unskipped"]))

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        if "scale" not in state:
            return
        self.growth_factor = state["growth_factor"]
        self.backoff_factor = state["backoff_factor"]
        self.growth_interval = state["growth_interval"]
        self.min_scale = state["min_scale"]
        self.max_scale = state["max_scale"]
        self._growth_tracker.fill_(state["_growth_tracker"])
