"""What amp.initialize decided, for amp.autocast and amp.state_dict (apex keeps it global too)."""

from __future__ import annotations

import gc
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

    from .device import AmpDevice
    from .policy import Properties
    from .scaler import LossScaler


@dataclass(frozen=True)
class AmpState:
    properties: Properties
    device: AmpDevice
    dtype: torch.dtype
    scalers: tuple[LossScaler, ...]  # one per loss (num_losses)
    user_cast_preferred: bool = True
    # The models and optimizers this call prepared, held weakly: a later initialize only matters
    # to them while they live.
    owned: tuple[weakref.ref, ...] = field(default=(), compare=False)

    @property
    def scaler(self) -> LossScaler:
        return self.scalers[0]

    def alive(self) -> bool:
        if not any(ref() is not None for ref in self.owned):
            return False
        gc.collect()  # an optimizer holds its own patched methods: a cycle refcounts can't free
        return any(ref() is not None for ref in self.owned)


def weak(objects: list[Any]) -> tuple[weakref.ref, ...]:
    return tuple(weakref.ref(obj) for obj in objects)


_current: AmpState | None = None


def current() -> AmpState | None:
    return _current


def set_current(amp_state: AmpState) -> None:
    global _current
    _current = amp_state
