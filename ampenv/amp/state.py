"""What amp.initialize decided, for amp.autocast and amp.state_dict (apex keeps it global too)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

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
    scaler: LossScaler


_current: AmpState | None = None


def current() -> AmpState | None:
    return _current


def set_current(amp_state: AmpState) -> None:
    global _current
    _current = amp_state
