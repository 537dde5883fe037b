"""A small text chart of the smoke training: the FP32 and AMP loss per step, and the loss scale.

What ``ampenv certify`` draws on a terminal, under the report. Renderer only, torch-free.
"""

from __future__ import annotations

import math
from typing import Any, Optional

FP32, AMP = "o", "*"


def _finite(values: list[Any]) -> list[Optional[float]]:
    out: list[Optional[float]] = []
    for v in values:
        ok = isinstance(v, (int, float)) and math.isfinite(v)
        out.append(float(v) if ok else None)
    return out


def _scale_label(scale: Optional[float]) -> str:
    if scale is None or scale <= 0:
        return "?"
    exp = math.log2(scale)
    return f"{exp:.0f}" if exp == int(exp) else f"{exp:.1f}"


def render(
    fp32_losses: list[Any],
    amp_losses: list[Any],
    loss_scales: Optional[list[Any]] = None,
    height: int = 8,
    max_steps: int = 40,
) -> str:
    """The chart as text lines; empty when there is nothing to draw. Non-finite losses are
    left out of the curve and named below it."""
    f32, amp = _finite(fp32_losses)[:max_steps], _finite(amp_losses)[:max_steps]
    steps = max(len(f32), len(amp))
    values = [v for v in f32 + amp if v is not None]
    if not steps or not values:
        return ""
    top, bottom = max(values), min(values)
    span = (top - bottom) or 1.0
    cell = 3
    grid = [[" "] * (steps * cell) for _ in range(height)]

    def row_of(v: float) -> int:
        return round((top - v) / span * (height - 1))

    for offset, (series, mark) in enumerate(((f32, FP32), (amp, AMP))):
        for i, v in enumerate(series):
            if v is not None:  # side by side in the step's cell: neither hides the other
                grid[row_of(v)][i * cell + offset] = mark
    label_width = max(len(f"{top:.3g}"), len(f"{bottom:.3g}"), 5)
    lines = ["loss per step (o fp32, * amp)"]
    for r, cells in enumerate(grid):
        label = f"{top:.3g}" if r == 0 else f"{bottom:.3g}" if r == height - 1 else ""
        lines.append(f"{label:>{label_width}} ┤{''.join(cells).rstrip()}")
    lines.append(" " * label_width + " └" + "─" * (steps * cell))
    lines.append(" " * label_width + "  " + "".join(f"{i + 1:<{cell}}" for i in range(steps)))
    scales = _finite(list(loss_scales or []))[:max_steps]
    if scales:
        lines.append(
            f"{'scale':>{label_width}}  "
            + "".join(f"{_scale_label(s):<{cell}}" for s in scales)
            + "  (log2 of the AMP loss scale after each step)"
        )
    bad = [i + 1 for i, v in enumerate(amp) if v is None]
    if bad:
        lines.append(f"AMP loss not finite at step(s) {', '.join(map(str, bad))}")
    return "\n".join(lines) + "\n"


def of_facts(facts: dict[str, Any]) -> str:
    """The chart from smoke.resnet50's facts (fp32_losses, amp_losses, amp_loss_scales)."""
    return render(
        list(facts.get("fp32_losses") or []),
        list(facts.get("amp_losses") or []),
        list(facts.get("amp_loss_scales") or []),
    )


def of_report(report: Any) -> str:
    """The chart of a report's smoke.resnet50 run; empty when it did not train."""
    smoke = report.get("smoke.resnet50")
    return of_facts(smoke.facts) if smoke is not None and smoke.facts else ""
