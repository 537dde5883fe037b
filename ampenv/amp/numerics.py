"""Debug helpers of the article's section 4: NaN/Inf counts, per-layer ranges, compare_outputs.

Each collects its statistics on the device and reads them back once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import torch

from .device import dtype_name


def tensors_with_paths(obj: Any, path: str = "out") -> Iterator[tuple[str, torch.Tensor]]:
    """The tensors in a nested output (tuples, lists, dicts), each with its path."""
    if isinstance(obj, torch.Tensor):
        yield path, obj
    elif isinstance(obj, Mapping):
        for key, value in obj.items():
            yield from tensors_with_paths(value, f"{path}[{key!r}]")
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            yield from tensors_with_paths(value, f"{path}[{i}]")


@dataclass(frozen=True)
class NonFinite:
    nan: int
    inf: int

    @property
    def total(self) -> int:
        return self.nan + self.inf


def _nan_inf(tensor: torch.Tensor) -> torch.Tensor:
    return torch.stack([tensor.isnan().sum(), tensor.isinf().sum()])


def nonfinite_counts(outputs: Any) -> NonFinite:
    """NaN and Inf counts over every floating tensor in `outputs` (any nesting)."""
    counts = [_nan_inf(t.detach()) for _, t in tensors_with_paths(outputs) if t.is_floating_point()]
    if not counts:
        return NonFinite(0, 0)
    nan, inf = torch.stack(counts).sum(0).tolist()
    return NonFinite(nan, inf)


def grad_nonfinite_counts(
    params: torch.nn.Module | Iterable[torch.nn.Parameter],
) -> dict[str, NonFinite]:
    """NaN/Inf counts of the gradients that have any, by parameter name (or index)."""
    named = (
        params.named_parameters()
        if isinstance(params, torch.nn.Module)
        else ((f"param[{i}]", p) for i, p in enumerate(params))
    )
    grads = [(name, p.grad.detach()) for name, p in named if p.grad is not None]
    if not grads:
        return {}
    counts = torch.stack([_nan_inf(g).to(grads[0][1].device) for _, g in grads]).tolist()
    return {name: NonFinite(nan, inf) for (name, _), (nan, inf) in zip(grads, counts) if nan + inf}


@dataclass(frozen=True)
class LayerRange:
    """One layer's outputs: max |x| and the share of values fp16/bf16 would lose.

    Underflow: a nonzero value that casts to zero; overflow: a finite value that casts to inf.
    """

    name: str
    kind: str
    dtype: str
    numel: int
    max_abs: float
    fp16_underflow: float
    fp16_overflow: float
    bf16_underflow: float
    bf16_overflow: float


def _range_stats(tensors: list[torch.Tensor]) -> torch.Tensor:
    x = torch.cat([t.detach().reshape(-1).float() for t in tensors])
    finite, nonzero = torch.isfinite(x), x != 0
    stats = [x.abs().max() if x.numel() else x.new_zeros(())]
    for dtype in (torch.float16, torch.bfloat16):
        y = x.to(dtype)
        stats.append((nonzero & (y == 0)).sum() / max(x.numel(), 1))
        stats.append((finite & ~torch.isfinite(y)).sum() / max(x.numel(), 1))
    return torch.stack([s.float() for s in stats])


def layer_ranges(model: torch.nn.Module, *args: Any, **kwargs: Any) -> list[LayerRange]:
    """Run `model(*args, **kwargs)` without grad and report each leaf layer's output range.

    Call it inside amp.autocast to see the mixed-precision run, outside for the fp32 one.
    """
    seen: list[tuple[str, torch.nn.Module, list[torch.Tensor], torch.Tensor]] = []

    def hook_for(name: str) -> Any:
        def hook(module: torch.nn.Module, _args: Any, output: Any) -> None:
            tensors = [t for _, t in tensors_with_paths(output) if t.is_floating_point()]
            if tensors:
                seen.append((name, module, tensors, _range_stats(tensors)))

        return hook

    leaves = [(n, m) for n, m in model.named_modules() if not any(m.children())]
    handles = [m.register_forward_hook(hook_for(n)) for n, m in leaves]
    try:
        with torch.no_grad():
            model(*args, **kwargs)
    finally:
        for handle in handles:
            handle.remove()
    if not seen:
        return []
    rows = torch.stack([stats.to(seen[0][3].device) for *_, stats in seen]).tolist()
    return [
        LayerRange(
            name or "<model>",
            type(module).__name__,
            dtype_name(tensors[0].dtype),
            sum(t.numel() for t in tensors),
            *row,
        )
        for (name, module, tensors, _), row in zip(seen, rows)
    ]


@dataclass(frozen=True)
class Offender:
    path: str
    index: tuple[int, ...]
    ref: float
    out: float
    abs_err: float
    rel_err: float


@dataclass(frozen=True)
class Comparison:
    ok: bool
    total: int
    mismatched: int
    max_abs_err: float
    max_rel_err: float
    worst: list[Offender]


def _unravel(flat: int, shape: torch.Size) -> tuple[int, ...]:
    index = []
    for size in reversed(shape):
        flat, i = divmod(flat, size)
        index.append(i)
    return tuple(reversed(index))


def compare_outputs(
    ref: Any, out: Any, rtol: float = 1.6e-2, atol: float = 1e-5, top_k: int = 10
) -> Comparison:
    """Compare an AMP output with its fp32 reference, element by element, as torch.isclose does.

    The defaults are torch.testing's bf16 tolerances. `worst` lists up to `top_k` elements
    furthest outside `atol + rtol * |ref|` (NaN where the reference is finite counts as worst).
    """
    refs, outs = list(tensors_with_paths(ref)), list(tensors_with_paths(out))
    if [p for p, _ in refs] != [p for p, _ in outs]:
        raise ValueError(
            f"ref and out differ in structure: {[p for p, _ in refs]} vs {[p for p, _ in outs]}"
        )
    total = mismatched = 0
    max_abs = max_rel = 0.0
    candidates: list[tuple[float, Offender]] = []
    for (path, r), (_, o) in zip(refs, outs):
        if r.shape != o.shape:
            raise ValueError(
                f"{path}: shape {tuple(o.shape)} differs from the reference's {tuple(r.shape)}"
            )
        r, o = (t.detach().to("cpu", torch.float64) for t in (r, o))
        bad = ~torch.isclose(o, r, rtol=rtol, atol=atol, equal_nan=True)
        same = (o == r) | (o.isnan() & r.isnan())  # inf == inf too: no error, as isclose says
        err = torch.where(same, 0.0, (o - r).abs())
        rel = torch.where(same, 0.0, err / r.abs())
        total += r.numel()
        mismatched += int(bad.sum())
        if r.numel():
            max_abs = max(max_abs, float(err.nan_to_num(nan=float("inf")).max()))
            max_rel = max(max_rel, float(rel.nan_to_num(nan=float("inf")).max()))
        score = torch.where(bad, (err / (atol + rtol * r.abs())).nan_to_num(nan=float("inf")), 0)
        top = score.reshape(-1).topk(min(top_k, score.numel()))
        for value, flat in zip(top.values.tolist(), top.indices.tolist()):
            if value > 0:
                index = _unravel(flat, r.shape)
                candidates.append(
                    (
                        value,
                        Offender(
                            path,
                            index,
                            float(r[index]),
                            float(o[index]),
                            float(err[index]),
                            float(rel[index]),
                        ),
                    )
                )
    worst = [offender for _, offender in sorted(candidates, key=lambda c: -c[0])[:top_k]]
    return Comparison(mismatched == 0, total, mismatched, max_abs, max_rel, worst)
