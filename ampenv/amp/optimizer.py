"""The amp training step on a patched optimizer.

amp.initialize gives the optimizer `backward(loss)`, and wraps `step` and `zero_grad`:

    optimizer.backward(loss)   # scale, backprop, (O2) move grads to fp32 masters, unscale, update
    optimizer.step()           # skipped if the grads overflowed

One unscale per step, when the last backward of the step returns (apex's rule): earlier
micro-steps of a gradient-accumulation window pass `delay_unscale=True`. Under master weights the
low-precision grads are added into the fp32 master grads after every backward, so accumulation
happens in fp32.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Callable

import torch

from .scaler import LossScaler

_READY, _SCALED, _UNSCALED = "ready", "scaled", "unscaled"


class _Stash:
    """The amp state of one optimizer."""

    def __init__(
        self,
        scaler: LossScaler,
        masters: dict[torch.nn.Parameter, torch.nn.Parameter],
        step: Callable,
        zero_grad: Callable,
    ) -> None:
        self.scaler = scaler
        self.masters = masters  # model param -> its fp32 master (O2)
        self.step = step
        self.zero_grad = zero_grad
        self.stage = _READY
        self.found_inf: torch.Tensor | None = None


def _stash(optimizer: torch.optim.Optimizer) -> _Stash:
    stash = getattr(optimizer, "_amp_stash", None)
    if stash is None:
        raise RuntimeError("this optimizer has not been through amp.initialize(model, optimizer)")
    return stash


def master_params(optimizer: torch.optim.Optimizer) -> Iterator[torch.nn.Parameter]:
    """The parameters the optimizer updates: the fp32 masters under O2, else the model's."""
    for group in optimizer.param_groups:
        yield from group["params"]


def _grads(optimizer: torch.optim.Optimizer) -> list[torch.Tensor]:
    return [p.grad for p in master_params(optimizer) if p.grad is not None]


def _begin(optimizers: Sequence[torch.optim.Optimizer], loss: torch.Tensor) -> torch.Tensor:
    stashes = [_stash(opt) for opt in optimizers]
    if any(s.stage == _UNSCALED for s in stashes):
        raise RuntimeError(
            "backward was called again before optimizer.step(): the grads are already unscaled. "
            "For gradient accumulation pass delay_unscale=True to all but the last micro-step."
        )
    return stashes[0].scaler.scale_loss(loss)


def _end(optimizers: Sequence[torch.optim.Optimizer], delay_unscale: bool) -> None:
    stashes = [_stash(opt) for opt in optimizers]
    for stash in stashes:
        stash.stage = _SCALED
        for model_p, master_p in stash.masters.items():
            if model_p.grad is None:
                continue
            if master_p.grad is None:
                master_p.grad = model_p.grad.float()
            else:
                master_p.grad.add_(model_p.grad)
            model_p.grad = None
    if delay_unscale:
        return
    scaler = stashes[0].scaler
    found = [scaler.unscale_(_grads(opt)) for opt in optimizers]
    found_inf = None if found[0] is None else functools.reduce(torch.maximum, found)
    scaler.update(found_inf)
    for stash in stashes:
        stash.found_inf = found_inf
        stash.stage = _UNSCALED


def _as_list(optimizers: Any) -> list[torch.optim.Optimizer]:
    return list(optimizers) if isinstance(optimizers, (list, tuple)) else [optimizers]


@contextmanager
def scale_loss(
    loss: torch.Tensor, optimizers: Any, delay_unscale: bool = False
) -> Iterator[torch.Tensor]:
    """apex's form of the step: `with amp.scale_loss(loss, opt) as scaled: scaled.backward()`."""
    optimizers = _as_list(optimizers)
    scaled = _begin(optimizers, loss)
    yield scaled
    _end(optimizers, delay_unscale)


def _backward(
    self: torch.optim.Optimizer,
    loss: torch.Tensor,
    delay_unscale: bool = False,
    **backward_kwargs: Any,
) -> None:
    """Scale the loss, backprop, then (unless delay_unscale) unscale and update the scaler."""
    _begin([self], loss).backward(**backward_kwargs)
    _end([self], delay_unscale)


def _step(self: torch.optim.Optimizer, closure: Callable | None = None) -> Any:
    if closure is not None:
        raise NotImplementedError("amp does not support optimizer.step(closure)")
    stash = _stash(self)
    if stash.stage == _SCALED:
        raise RuntimeError(
            "the grads are still scaled: the last micro-step must call "
            "optimizer.backward(loss) without delay_unscale=True"
        )
    if stash.stage == _READY and stash.masters:
        raise RuntimeError(
            "with master weights the grads reach the optimizer only through "
            "optimizer.backward(loss) or amp.scale_loss(loss, optimizer)"
        )
    skip = stash.stage == _UNSCALED and stash.scaler.should_skip(stash.found_inf)
    stash.stage = _READY
    if skip:  # params and optimizer state stay exactly as they were
        return None
    result = stash.step()
    with torch.no_grad():
        for model_p, master_p in stash.masters.items():
            model_p.copy_(master_p)
    return result


def _zero_grad(self: torch.optim.Optimizer, set_to_none: bool = True) -> None:
    stash = _stash(self)
    stash.zero_grad(set_to_none=set_to_none)
    for model_p in stash.masters:
        model_p.grad = None
    stash.stage = _READY


def patch_optimizer(
    optimizer: torch.optim.Optimizer,
    scaler: LossScaler,
    masters: dict[torch.nn.Parameter, torch.nn.Parameter],
) -> None:
    """Give `optimizer` amp's backward/step/zero_grad, updating `masters` for the model params."""
    if hasattr(optimizer, "_amp_stash"):
        raise ValueError("this optimizer already went through amp.initialize")
    owned = {p for group in optimizer.param_groups for p in group["params"]}
    mine = {model_p: master_p for model_p, master_p in masters.items() if model_p in owned}
    for group in optimizer.param_groups:
        group["params"] = [mine.get(p, p) for p in group["params"]]
    for model_p, master_p in mine.items():
        if model_p in optimizer.state:
            optimizer.state[master_p] = optimizer.state.pop(model_p)
    optimizer._amp_stash = _Stash(scaler, mine, optimizer.step, optimizer.zero_grad)
    # Bound methods, so that LR schedulers can wrap step as they wrap any optimizer's.
    optimizer.backward = types.MethodType(_backward, optimizer)
    optimizer.step = types.MethodType(_step, optimizer)
    optimizer.zero_grad = types.MethodType(_zero_grad, optimizer)
