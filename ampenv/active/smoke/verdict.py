"""Metrics and verdict of the smoke training: pure functions of the two runs' payloads.

No torch here: the parent process (the doctor) computes everything from the JSON the children
emitted. Metric names are the contract of design.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Optional

from ampenv.core.model import Finding, Result, Status, combine
from ampenv.knowledge import expectations

SETTING_KEY = '[checks."smoke.resnet50"]'
DIAGNOSE = "ampenv doctor --only amp.support -v"


@dataclass(frozen=True)
class Thresholds:
    min_loss_drop: float  # share by which the AMP loss must fall over the run
    loss_tolerance: float  # |amp_last - fp32_last| / fp32_first
    min_speedup: Optional[float]  # None: not judged
    min_mem_reduction: Optional[float]
    device_class: Optional[expectations.DeviceClass] = None

    @property
    def judged(self) -> bool:
        """Whether AMP's worth (speed, memory) is judged at all on this node."""
        return self.min_speedup is not None or self.min_mem_reduction is not None

    @classmethod
    def of(
        cls,
        backend: str,
        settings: dict[str, Any],
        device_class: Optional[expectations.DeviceClass] = None,
    ) -> Thresholds:
        """The class's expectations, a site's settings over them. On a class where AMP is not
        recommended nothing is judged unless the site sets a threshold itself."""
        klass = device_class or expectations.classify(backend)

        def pick(name: str) -> Optional[float]:
            value = settings.get(name)
            return getattr(klass, name) if value is None else float(value)

        return cls(
            float(settings["min_loss_drop"]),
            float(settings["loss_tolerance"]),
            pick("min_speedup"),
            pick("min_mem_reduction"),
            klass,
        )


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x)


def logits_max_rel_err(fp32: list, amp: list) -> Optional[float]:
    """max |amp - fp32| over max |fp32|: the error relative to the logits' own scale (an
    element-wise ratio explodes on logits near zero). None when the shapes differ; inf when AMP
    produced a non-finite logit."""
    flat32 = [float(v) for row in fp32 for v in row]
    flat_amp = [float(v) for row in amp for v in row]
    if len(flat32) != len(flat_amp) or not flat32:
        return None
    if not all(math.isfinite(v) for v in flat_amp):
        return math.inf
    scale = max(abs(v) for v in flat32) or 1.0
    return max(abs(a - f) for a, f in zip(flat_amp, flat32)) / scale


def measure(fp32: dict[str, Any], amp: dict[str, Any], logits_err: Optional[float]) -> dict:
    """design.md's smoke metrics (non-finite values included; the caller keeps them apart)."""
    f_loss, a_loss = fp32["losses"], amp["losses"]
    metrics: dict[str, Any] = {
        "fp32_img_per_s": fp32.get("img_per_s"),
        "amp_img_per_s": amp.get("img_per_s"),
        "fp32_peak_mem_mb": fp32["peak_mem_mb"],
        "amp_peak_mem_mb": amp["peak_mem_mb"],
        "fp32_loss_first": f_loss[0],
        "fp32_loss_last": f_loss[-1],
        "amp_loss_first": a_loss[0],
        "amp_loss_last": a_loss[-1],
        "overflow_steps": amp.get("overflow_steps"),
        "final_loss_scale": amp.get("final_loss_scale"),
        "logits_max_rel_err": logits_err,
        "amp_coverage": (amp.get("coverage") or {}).get("share"),
    }
    if _finite(metrics["fp32_img_per_s"]) and _finite(metrics["amp_img_per_s"]):
        metrics["amp_speedup"] = metrics["amp_img_per_s"] / metrics["fp32_img_per_s"]
    # Training memory (peak over the resting model) where both runs report it: on CPU the whole
    # process's RSS would hide AMP's saving under what torch and the FP32 model hold alike.
    # On NPU/CUDA the allocator's peak, as design.md states.
    f_train, a_train = fp32.get("train_mem_mb"), amp.get("train_mem_mb")
    if f_train is not None and a_train is not None:
        metrics["fp32_train_mem_mb"], metrics["amp_train_mem_mb"] = f_train, a_train
    on_cpu = fp32.get("peak_mem_source", "").startswith("peak RSS")
    if on_cpu and f_train:
        metrics["mem_reduction"] = 1.0 - a_train / f_train
    elif fp32["peak_mem_mb"]:
        metrics["mem_reduction"] = 1.0 - amp["peak_mem_mb"] / fp32["peak_mem_mb"]
    if f_loss[0]:
        metrics["loss_rel_diff"] = abs(a_loss[-1] - f_loss[-1]) / abs(f_loss[0])
    return metrics


def tf32_metrics(tf32: dict[str, Any], amp: dict[str, Any]) -> dict[str, Any]:
    """FP32 with TF32 (CUDA) or HF32 (NPU) allowed: the baseline NVIDIA's A100 tables use."""
    out: dict[str, Any] = {"tf32_img_per_s": tf32.get("img_per_s")}
    if _finite(out["tf32_img_per_s"]) and _finite(amp.get("img_per_s")):
        out["amp_speedup_vs_tf32"] = amp["img_per_s"] / out["tf32_img_per_s"]
    return out


def split_finite(metrics: dict[str, Any]) -> tuple[dict[str, float], dict[str, str]]:
    """Report metrics must be finite numbers (JSON has no NaN); the rest are kept as text."""
    finite = {k: float(v) for k, v in metrics.items() if _finite(v)}
    other = {k: str(v) for k, v in metrics.items() if v is not None and not _finite(v)}
    return finite, other


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _loss_findings(m: dict[str, Any], amp: dict[str, Any], t: Thresholds) -> list[Finding]:
    losses = amp["losses"]
    steps = len(losses)
    out: list[Finding] = []
    bad = next((i for i, v in enumerate(losses) if not math.isfinite(v)), None)
    if bad is not None:
        out.append(
            Finding(
                Status.FAIL,
                f"AMP loss is {losses[bad]} from step {bad + 1} of {steps} "
                f"(FP32 ends at {m['fp32_loss_last']:.3g})",
                f"find the layer that overflows: {DIAGNOSE}; then try dtype = "
                f'"bfloat16" or opt_level = "O1" in {SETTING_KEY}',
            )
        )
    overflows = m["overflow_steps"]
    if overflows is not None and overflows >= steps:
        out.append(
            Finding(
                Status.FAIL,
                f"every AMP step overflowed ({overflows} of {steps}): no step was taken, the "
                f"loss scale ended at {m['final_loss_scale']:g}",
                f"gradients are inf/NaN at every scale: {DIAGNOSE}, and check the CANN/driver "
                "versions (python.stack, npu.driver)",
            )
        )
    if bad is None:
        drop = 1.0 - m["amp_loss_last"] / m["amp_loss_first"] if m["amp_loss_first"] else 0.0
        if drop < t.min_loss_drop:
            out.append(
                Finding(
                    Status.FAIL,
                    f"AMP loss did not fall: {m['amp_loss_first']:.3g} → {m['amp_loss_last']:.3g} "
                    f"({_pct(drop)}, at least {_pct(t.min_loss_drop)} expected)",
                    f"{DIAGNOSE}; if the device trains in FP32 but not in AMP, "
                    "report it with `ampenv collect -o node.tar.gz`",
                )
            )
        diff = m.get("loss_rel_diff")
        if diff is not None and diff > t.loss_tolerance:
            out.append(
                Finding(
                    Status.FAIL,
                    f"AMP departs from FP32: final loss {m['amp_loss_last']:.3g} vs "
                    f"{m['fp32_loss_last']:.3g} ({_pct(diff)} of the initial loss, "
                    f"tolerance {_pct(t.loss_tolerance)})",
                    f"{DIAGNOSE}; or raise loss_tolerance in {SETTING_KEY} if this "
                    "chip is known to differ",
                )
            )
    return out


def _performance_findings(
    m: dict[str, Any], t: Thresholds, attempts: Optional[list[float]] = None
) -> list[Finding]:
    """Judged classes: AMP slower than expected fails (after a second measurement), and so
    does too little memory saved. Elsewhere each figure is a skip that says why."""
    out: list[Finding] = []
    speedup, reduction = m.get("amp_speedup"), m.get("mem_reduction")
    klass = t.device_class
    if not t.judged:
        why = klass.why if klass else "no expectation for this device"
        out.append(Finding(Status.SKIP, f"AMP's speed and memory not judged: {why}"))
        return out
    if speedup is not None and t.min_speedup is not None and speedup < t.min_speedup:
        tries = ", ".join(f"{s:.2f}x" for s in attempts or [speedup])
        out.append(
            Finding(
                Status.FAIL,
                f"AMP speedup {speedup:.2f}x is below the expected {t.min_speedup:g}x for "
                f"{klass.title if klass else 'this device'} (measured {len(attempts or [1])}x: "
                f"{tries})",
                "stop other work on the node (top; npu-smi info / nvidia-smi) and certify again; "
                "check the clocks and power cap (a throttled chip), the opt level (O2) and dtype; "
                f"or set min_speedup in {SETTING_KEY} if this device is known to gain less",
            )
        )
    elif t.min_speedup is None:
        out.append(Finding(Status.SKIP, "AMP's speed not judged (min_speedup unset)"))
    low_mem = t.min_mem_reduction is not None and reduction is not None
    if low_mem and reduction < t.min_mem_reduction:
        out.append(
            Finding(
                Status.FAIL,
                f"AMP saves {_pct(reduction)} of training memory, below the expected "
                f"{_pct(t.min_mem_reduction)}",
                'use opt_level = "O2" (low-precision activations and weights), or set '
                f"min_mem_reduction in {SETTING_KEY} if this device is known to save less",
            )
        )
    return out


def needs_remeasure(metrics: dict[str, Any], amp: dict[str, Any], t: Thresholds) -> bool:
    """A speedup below threshold is measured once more, unless the run fails anyway."""
    speedup = metrics.get("amp_speedup")
    low = t.min_speedup is not None and speedup is not None and speedup < t.min_speedup
    return low and not _loss_findings(metrics, amp, t)


def _against(measured: str, expected: Optional[float], fmt: str, device: str) -> str:
    """A measured figure with what was expected of it, side by side."""
    if expected is None:
        return f"{measured} (not judged on {device})"
    return f"{measured} (expected ≥ {fmt.format(expected)})"


def _speedup(m: dict[str, Any]) -> str:
    return f"speedup {m['amp_speedup']:.2f}x" if "amp_speedup" in m else "speedup n/a"


def _memory(m: dict[str, Any]) -> str:
    return f"memory saved {_pct(m['mem_reduction'])}" if "mem_reduction" in m else "memory n/a"


def _times(facts: dict[str, Any], mode: str) -> str:
    t = facts.get(f"{mode}_step_ms")
    if not t:
        return ""
    return f" (step {t['median']:.0f} ms median, {t['min']:.0f}-{t['max']:.0f} over {t['n']})"


def _memory_line(m: dict[str, Any], facts: dict[str, Any], t: Thresholds, where: str) -> str:
    judged = _against(_memory(m), t.min_mem_reduction, "{:.0%}", where)
    peaks = f"fp32 {m['fp32_peak_mem_mb']:.0f} MiB, amp {m['amp_peak_mem_mb']:.0f} MiB"
    if "fp32_train_mem_mb" in m and str(facts.get("peak_mem_source", "")).startswith("peak RSS"):
        return (
            f"training memory (peak RSS over the resting model): fp32 "
            f"{m['fp32_train_mem_mb']:.0f} MiB, amp {m['amp_train_mem_mb']:.0f} MiB, {judged}; "
            f"whole process {peaks}"
        )
    return f"peak memory ({facts['peak_mem_source']}): {peaks}, {judged}"


def side_by_side(m: dict[str, Any], facts: dict[str, Any], t: Thresholds) -> list[str]:
    """Measured against expected, one line per figure, for the report's details."""
    steps = facts["steps"]
    where = t.device_class.title if t.device_class else facts["device"]
    diff = m.get("loss_rel_diff")
    lines = [
        f"device class: {where}" + (f" ({t.device_class.why})" if t.device_class else ""),
        f"throughput: fp32 {m['fp32_img_per_s']:.3g} img/s{_times(facts, 'fp32')}, "
        f"amp {m['amp_img_per_s']:.3g} img/s{_times(facts, 'amp')}, "
        + _against(_speedup(m), t.min_speedup, "{:g}x", where),
        _memory_line(m, facts, t, where),
        f"loss over {steps} steps: fp32 {m['fp32_loss_first']:.3g} → {m['fp32_loss_last']:.3g}, "
        f"amp {m['amp_loss_first']:.3g} → {m['amp_loss_last']:.3g} (must fall ≥ "
        f"{_pct(t.min_loss_drop)}); AMP - FP32 {_pct(diff) if _finite(diff) else 'n/a'} of "
        f"the initial loss (tolerance {_pct(t.loss_tolerance)})",
        f"overflow steps: {m['overflow_steps']} of {steps}; final loss scale "
        f"{m['final_loss_scale']:g}",
    ]
    if _finite(m.get("tf32_img_per_s")):
        mode = "HF32" if facts["device"] == "npu" else "TF32"
        lines.append(
            f"FP32 with {mode} allowed: {m['tf32_img_per_s']:.3g} img/s; AMP "
            f"{m.get('amp_speedup_vs_tf32', 0):.2f}x of it (the FP32 baseline above has it off)"
        )
    if _finite(m["amp_coverage"]):
        lines.append(
            f"coverage: {_pct(m['amp_coverage'])} of conv/matmul FLOPs in {facts['amp_dtype']}"
        )
    if m["logits_max_rel_err"] is not None:
        lines.append(f"first-step logits: max error {m['logits_max_rel_err']:.2g} of their scale")
    return lines


def judge(
    metrics: dict[str, Any],
    amp: dict[str, Any],
    facts: dict[str, Any],
    t: Thresholds,
    attempts: Optional[list[float]] = None,
) -> Result:
    findings = _loss_findings(metrics, amp, t) + _performance_findings(metrics, t, attempts)
    finite, other = split_finite(metrics)
    klass = t.device_class
    facts = {
        **facts,
        "device_class": klass.to_facts() if klass else None,
        "amp_judged": t.judged,
        "amp_recommended": klass.judged if klass else None,
    }
    if other:
        facts["non_finite_metrics"] = other
    device = facts["device"]
    where = klass.title if klass else device
    head = "" if klass is None or klass.judged else f"{klass.why}. "
    summary = head + (
        f"{facts['opt_level']} {facts['amp_dtype']} on {device}: loss "
        f"{metrics['amp_loss_first']:.3g} → {metrics['amp_loss_last']:.3g} "
        f"(fp32 {metrics['fp32_loss_last']:.3g}), "
        f"{metrics['overflow_steps']}/{facts['steps']} overflow steps; "
        + _against(_speedup(metrics), t.min_speedup, "{:g}x", where)
        + ", "
        + _against(_memory(metrics), t.min_mem_reduction, "{:.0%}", where)
    )
    return combine(
        findings,
        summary,
        details=side_by_side(metrics, facts, t),
        facts=facts,
        metrics=finite,
    )
