"""The amp training step on a patched optimizer.

amp.initialize gives the optimizer `backward(loss)`, and wraps `step` and `zero_grad`:

    optimizer.backward(loss)   # scale, backprop, unscale this backward's grads, note overflow
    optimizer.step()           # the scaler updates; skipped if any backward since the last step
                               # overflowed

Gradient accumulation needs no flag, as with torch.amp.GradScaler: every backward before a step
uses the same scale, any overflow in the window skips the step, and the scale moves once, at the
step. Each backward's own grads are unscaled when it returns and added to the grads already there,
so after any backward the grads are true gradients (apex's promise: clipping between backward and
step sees unscaled grads). With power-of-two scales that sum equals GradScaler's unscale-the-sum
bit for bit. `delay_unscale=True` leaves the grads scaled until the next backward without it, or
the step. Under master weights the low-precision grads are added into the fp32 master grads, so
accumulation happens in fp32.
"""

from __future__ import annotations

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
        scalers: tuple[LossScaler, ...],
        masters: dict[torch.nn.Parameter, torch.nn.Parameter],
        step: Callable,
        zero_grad: Callable,
        optimizer: torch.optim.Optimizer,
    ) -> None:
        self.scalers = scalers  # one per loss id, shared by every optimizer of the initialize
        self.masters = masters  # model param -> its fp32 master (O2)
        self._master_set = set(masters.values())
        self._optimizer = optimizer
        self.step = step
        self.zero_grad = zero_grad
        self.stage = _READY
        self.pending: LossScaler | None = None  # whose scaled grads wait (delay_unscale)
        self.held: dict[torch.nn.Parameter, torch.Tensor] = {}  # unscaled grads set aside
        self.scaled: dict[torch.nn.Parameter, torch.Tensor] = {}  # master -> fp32 scaled grad
        self.used: set[LossScaler] = set()  # scalers of the backward passes since the step
        self.found_inf: torch.Tensor | None = None


    @property
    def own(self) -> list[torch.nn.Parameter]:
        """The optimizer's params that are their own masters (all of them, but O2's casts)."""
        groups = self._optimizer.param_groups  # read each time: load_state_dict replaces them
        return [p for group in groups for p in group["params"] if p not in self._master_set]


def _stash(optimizer: torch.optim.Optimizer) -> _Stash:
    stash = getattr(optimizer, "_amp_stash", None)
    if stash is None:
        raise RuntimeError("this optimizer has not been through amp.initialize(model, optimizer)")
    return stash


def master_params(optimizer: torch.optim.Optimizer) -> Iterator[torch.nn.Parameter]:
    """The parameters the optimizer updates: the fp32 masters under O2, else the model's."""
    for group in optimizer.param_groups:
        yield from group["params"]


def _scaler(stash: _Stash, loss_id: int) -> LossScaler:
    if not 0 <= loss_id < len(stash.scalers):
        raise ValueError(
            f"loss_id {loss_id} is out of range: amp.initialize(..., num_losses="
            f"{len(stash.scalers)}) gives loss ids 0 to {len(stash.scalers) - 1}"
        )
    return stash.scalers[loss_id]


def _begin(
    optimizers: Sequence[torch.optim.Optimizer], loss: torch.Tensor, loss_id: int
) -> torch.Tensor:
    stashes = [_stash(opt) for opt in optimizers]
    scaler = _scaler(stashes[0], loss_id)
    for stash in stashes:
        if stash.pending is not None and stash.pending is not scaler:
            raise RuntimeError(
                "a backward with delay_unscale=True left grads scaled by another loss_id's "
                "scaler: finish it with a backward of the same loss_id first"
            )
        if stash.pending is None:  # set the unscaled grads aside; this backward adds its own
            for p in stash.own:
                if p.grad is not None:
                    stash.held[p] = p.grad
                    p.grad = None
    return scaler.scale_loss(loss)


def _take_model_grads(stash: _Stash) -> None:
    """Under master weights: move the model's low-precision grads, still scaled, into fp32."""
    for model_p, master_p in stash.masters.items():
        if model_p.grad is not None:
            grad = model_p.grad.float()
            model_p.grad = None
            known = stash.scaled.get(master_p)
            stash.scaled[master_p] = grad if known is None else known.add_(grad)


def _unscale(stashes: Sequence[_Stash], scaler: LossScaler) -> None:
    """Unscale the grads of the backward passes since the last unscale; add the held ones."""
    fresh = [p.grad for s in stashes for p in s.own if p.grad is not None]
    for stash in stashes:
        _take_model_grads(stash)
    found_inf = scaler.unscale_([*fresh, *(g for s in stashes for g in s.scaled.values())])
    scaler.record(found_inf)
    for stash in stashes:
        for master_p, grad in stash.scaled.items():
            master_p.grad = grad if master_p.grad is None else master_p.grad.add_(grad)
        for p, held in stash.held.items():
            p.grad = held if p.grad is None else held.add_(p.grad)
        stash.scaled.clear()
        stash.held.clear()
        stash.pending = None
        stash.used.add(scaler)
        stash.stage = _UNSCALED
        if found_inf is not None:
            known = stash.found_inf
            stash.found_inf = found_inf if known is None else torch.maximum(known, found_inf)


def _end(optimizers: Sequence[torch.optim.Optimizer], loss_id: int, delay_unscale: bool) -> None:
    stashes = [_stash(opt) for opt in optimizers]
    scaler = _scaler(stashes[0], loss_id)
    if delay_unscale:
        for stash in stashes:
            _take_model_grads(stash)
            stash.pending, stash.stage = scaler, _SCALED
        return
    _unscale(stashes, scaler)


def _as_list(optimizers: Any) -> list[torch.optim.Optimizer]:
    return list(optimizers) if isinstance(optimizers, (list, tuple)) else [optimizers]


@contextmanager
def scale_loss(
    loss: torch.Tensor,
    optimizers: Any,
    loss_id: int = 0,
    model: torch.nn.Module | None = None,
    delay_unscale: bool = False,
    delay_overflow_check: bool = False,
) -> Iterator[torch.Tensor]:
    """apex's form of the step: `with amp.scale_loss(loss, opt) as scaled: scaled.backward()`.

    `loss_id` picks the loss's own scaler (amp.initialize(..., num_losses=N)). `model` and
    `delay_overflow_check` are apex's unused arguments (it ignored them too); the overflow check
    here never syncs the host before the step.
    """
    optimizers = _as_list(optimizers)
    scaled = _begin(optimizers, loss, loss_id)
    yield scaled
    _end(optimizers, loss_id, delay_unscale)


def _backward(
    self: torch.optim.Optimizer,
    loss: torch.Tensor,
    delay_unscale: bool = False,
    loss_id: int = 0,
    **backward_kwargs: Any,
) -> None:
    """Scale the loss, backprop, then (unless delay_unscale) unscale this backward's grads."""
    _begin([self], loss, loss_id).backward(**backward_kwargs)
    _end([self], loss_id, delay_unscale)


def _step(self: torch.optim.Optimizer, closure: Callable | None = None) -> Any:
    if closure is not None:
        raise NotImplementedError("amp does not support optimizer.step(closure)")
    stash = _stash(self)
    if stash.pending is not None:  # the last backward delayed its unscale: do it now
        _unscale([stash], stash.pending)
    if stash.stage == _READY and stash.masters:
        raise RuntimeError(
            "with master weights the grads reach the optimizer only through "
            "optimizer.backward(loss) or amp.scale_loss(loss, optimizer)"
        )
    for scaler in stash.used:  # once per step, whichever optimizer of the loss steps first
        scaler.close_window()
    skip = stash.found_inf is not None and stash.scalers[0].should_skip(stash.found_inf)
    stash.stage, stash.found_inf = _READY, None
    stash.used.clear()
    result = None if skip else stash.step()  # a skipped step changes no param and no state
    with torch.no_grad():
        for model_p, master_p in stash.masters.items():
            if not skip:
                model_p.copy_(master_p)
            master_p.grad = None  # consumed: model.zero_grad() cannot reach the masters
    return result


def _zero_grad(self: torch.optim.Optimizer, set_to_none: bool = True) -> None:
    stash = _stash(self)
    stash.zero_grad(set_to_none=set_to_none)
    for model_p in stash.masters:
        model_p.grad = None
    stash.held.clear()
    stash.scaled.clear()
    stash.stage, stash.pending, stash.found_inf = _READY, None, None
    stash.used.clear()


def patch_optimizer(
    optimizer: torch.optim.Optimizer,
    scalers: tuple[LossScaler, ...],
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
    optimizer._amp_stash = _Stash(
        scalers, mine, optimizer.step, optimizer.zero_grad, optimizer
    )
    # Bound methods, so that LR schedulers can wrap step as they wrap any optimizer's.
    optimizer.backward = types.MethodType(_backward, optimizer)
    optimizer.step = types.MethodType(_step, optimizer)
    optimizer.zero_grad = types.MethodType(_zero_grad, optimizer)
