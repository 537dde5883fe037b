"""Parent side of the smoke training: plan the two runs, run each in its own child process
(``python -m ampenv.active.smoke.train``) with a timeout, and collect what they report.

Torch-free: the doctor never imports torch; a hung or crashed child becomes a
:class:`SmokeError`, and its whole process group is killed by the subprocess helper.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ampenv.active import child
from ampenv.active.smoke import verdict
from ampenv.knowledge import expectations

MODULE = "ampenv.active.smoke.train"
PROGRESS = (
    "AMPENV_PROGRESS"  # the child's progress lines on stderr: "<marker> mode step total loss"
)

# The runs' shape comes from the device class (ampenv.knowledge.expectations: sizes with the
# reasons for them); the opt level and dtype per backend.
OPT_LEVEL = {"cpu": "O1", "cuda": "O2", "npu": "O2"}
DEFAULT_DTYPE = {"cpu": "bfloat16", "cuda": None, "npu": None}  # None: amp's choice for the chip
OPT_LEVELS = ("O0", "O1", "O2", "O3")
SHAPE = ("image_size", "batch_size", "steps", "warmup", "channels_last")


@dataclass(frozen=True)
class Plan:
    device: str
    image_size: int
    batch_size: int
    steps: int
    warmup: int
    opt_level: str
    dtype: Optional[str]
    threads: int  # CPU threads per child; 0: torch's default
    channels_last: bool = False
    tf32: bool = False  # also measure FP32 with TF32/HF32 allowed (CUDA, NPU)
    coverage: bool = True  # one more AMP step under amp.coverage (costly where bf16 is emulated)

    def args(self, mode: str, logits_out: Path) -> list[str]:
        argv = [
            *("--mode", mode, "--device", self.device),
            *("--image-size", str(self.image_size), "--batch-size", str(self.batch_size)),
            *("--steps", str(self.steps), "--warmup", str(self.warmup)),
            *("--opt-level", self.opt_level, "--threads", str(self.threads)),
            *("--logits-out", str(logits_out)),
        ]
        argv += ["--channels-last"] if self.channels_last else []
        argv += [] if self.coverage else ["--no-coverage"]
        return argv + (["--dtype", self.dtype] if self.dtype else [])


def usable_cpus(fallback: int) -> int:
    """The CPUs this process may run on (taskset, cgroup cpusets), else ``fallback``."""
    try:
        return len(os.sched_getaffinity(0)) or fallback
    except (AttributeError, OSError):  # not Linux
        return fallback


def plan(
    backend: str,
    settings: dict[str, Any],
    cpu_count: int,
    sizes: Optional[dict[str, Any]] = None,
) -> Plan:
    """The runs' shape: settings where given, else the device class's ``sizes``. Raises
    ValueError."""
    sizes = sizes or expectations.classify(backend).sizes
    chosen = {k: sizes.get(k, False) if settings.get(k) is None else settings[k] for k in SHAPE}
    opt_level = settings.get("opt_level") or OPT_LEVEL[backend]
    dtype = settings.get("dtype") or DEFAULT_DTYPE[backend]
    # On CPU every CPU the process may use: the smoke runs after the other device checks, alone,
    # and its figures go into the certificate for the fleet to compare (threads recorded).
    threads = settings.get("threads") or (usable_cpus(cpu_count) if backend == "cpu" else 0)
    tf32 = backend != "cpu" and bool(settings.get("measure_tf32", True))
    coverage = bool(sizes.get("coverage", True))
    result = Plan(
        backend,
        opt_level=opt_level,
        dtype=dtype,
        threads=threads,
        tf32=tf32,
        coverage=coverage,
        **chosen,
    )
    if result.opt_level not in OPT_LEVELS:
        raise ValueError(
            f"opt_level must be one of {', '.join(OPT_LEVELS)}, not {result.opt_level!r}"
        )
    if dtype not in (None, "float16", "bfloat16"):
        raise ValueError(f'dtype must be "float16" or "bfloat16", not {dtype!r}')
    if not 0 <= result.warmup < result.steps:
        raise ValueError(f"warmup ({result.warmup}) must be below steps ({result.steps})")
    if result.batch_size < 2 or result.image_size < 32:
        raise ValueError("batch_size must be at least 2 and image_size at least 32 (BatchNorm)")
    return result


class SmokeError(Exception):
    """A run that gave no usable result: hung, killed, crashed or failed inside."""

    def __init__(self, summary: str, details: list[str]) -> None:
        super().__init__(summary)
        self.summary, self.details = summary, details


@dataclass
class Run:
    payload: dict[str, Any]
    logits: list


@dataclass
class Outcome:
    fp32: Run
    amp: Run
    metrics: dict[str, Any]
    speedups: list[float]  # one per measurement (a second one when the first was low)
    tf32: Optional[Run] = None


class StepProgress:
    """Turns the children's progress lines into the check's progress (CheckContext.progress):
    which run, its step, the loss, and the images per second since the run's first step (the
    first one, with its compilation and warm-up, is not counted)."""

    def __init__(
        self,
        report: Callable[..., None],
        batch_size: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.report, self.batch_size, self.clock = report, batch_size, clock
        self.first: dict[str, tuple[float, int]] = {}  # run -> (time, step) of its first line

    def __call__(self, line: str) -> None:
        parts = line.split()
        if len(parts) != 5 or parts[0] != PROGRESS:
            return
        mode, step, total, loss = parts[1], int(parts[2]), int(parts[3]), parts[4]
        now = self.clock()
        at, first = self.first.get(mode, (now, step))
        if step <= first:  # a new run of this mode (a remeasure starts over)
            at, first = now, step
        self.first[mode] = (at, first)
        text = f"{mode} step {step}/{total} · loss {loss}"
        if step > first and now > at:
            text += f" · {(step - first) * self.batch_size / (now - at):.1f} img/s"
        self.report(text, step, total)


def _stderr_tail(text: str) -> list[str]:
    return child.tail("\n".join(ln for ln in text.splitlines() if not ln.startswith(PROGRESS)))


def child_env(plan: Plan, env: dict[str, str]) -> dict[str, str]:
    """On CPU, OpenMP threads that sleep at a barrier instead of spinning (unless the node sets
    OMP_WAIT_POLICY itself). Measured on a shared 2-core EPYC, ResNet50 at 64 px, batch 2, two
    threads, while other processes ran: 0.8-1.1 s per FP32 step passive, 1.5-13 s spinning (the
    default); one thread 0.7-1.0 s. A spinning thread burns the slice its preempted sibling
    needs, so the figure would measure the neighbours more than the node."""
    if plan.device != "cpu" or "OMP_WAIT_POLICY" in env:
        return env
    return {**env, "OMP_WAIT_POLICY": "PASSIVE"}


def run_child(
    plan: Plan,
    mode: str,
    timeout: float,
    env: dict[str, str],
    workdir: Path,
    on_line: Optional[Callable[[str], None]] = None,
) -> Run:
    """One training run in its own process. Raises SmokeError when it gives no result."""
    logits_out = workdir / f"logits-{mode}.json"
    env = child_env(plan, env)
    result, payload = child.run_module(
        MODULE, plan.args(mode, logits_out), timeout, env=env, on_stderr_line=on_line
    )
    tail = _stderr_tail(result.stderr)
    if not result.ok:
        raise SmokeError(f"the {mode} run failed: {result.describe()}", tail)
    if payload is None:
        raise SmokeError(f"the {mode} run ended without a result", tail)
    if "error" in payload:
        raise SmokeError(f"the {mode} run failed: {payload['error']}", tail)
    try:
        logits = json.loads(logits_out.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SmokeError(f"the {mode} run left no readable logits: {exc}", tail) from None
    return Run(payload, logits)


def _measure_pair(
    plan: Plan,
    timeout_left: Callable[[float], float],
    env: dict[str, str],
    on_line: Optional[Callable[[str], None]],
) -> tuple[Run, Run, dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="ampenv-smoke-") as tmp:
        fp32 = run_child(plan, "fp32", timeout_left(float("inf")), env, Path(tmp), on_line)
        amp = run_child(plan, "amp", timeout_left(float("inf")), env, Path(tmp), on_line)
    err = verdict.logits_max_rel_err(fp32.logits, amp.logits)
    return fp32, amp, verdict.measure(fp32.payload, amp.payload, err)


def smoke(
    plan: Plan,
    thresholds: verdict.Thresholds,
    timeout_left: Callable[[float], float],
    env: dict[str, str],
    on_line: Optional[Callable[[str], None]] = None,
) -> Outcome:
    """FP32 then AMP, each in its own child; both again when the speedup is below threshold
    (a throughput figure is noisy, so one low reading does not count); the faster pair counts."""
    fp32, amp, metrics = _measure_pair(plan, timeout_left, env, on_line)
    speedups = [metrics.get("amp_speedup")]
    if verdict.needs_remeasure(metrics, amp.payload, thresholds):
        again = _measure_pair(plan, timeout_left, env, on_line)
        speedups.append(again[2].get("amp_speedup"))
        if (speedups[-1] or 0.0) > (speedups[0] or 0.0):
            fp32, amp, metrics = again
    tf32 = None
    if plan.tf32:  # cheap on an accelerator: one more short run, FP32 with TF32/HF32 on
        with tempfile.TemporaryDirectory(prefix="ampenv-smoke-") as tmp:
            tf32 = run_child(plan, "tf32", timeout_left(float("inf")), env, Path(tmp), on_line)
        metrics.update(verdict.tf32_metrics(tf32.payload, amp.payload))
    return Outcome(fp32, amp, metrics, [s for s in speedups if s is not None], tf32)


def _step_ms(payload: dict[str, Any]) -> Optional[dict[str, float]]:
    times = payload.get("step_times_s") or []
    if not times:
        return None
    ms = sorted(t * 1000 for t in times)
    return {"median": statistics.median(ms), "min": ms[0], "max": ms[-1], "n": len(ms)}


def facts(plan: Plan, outcome: Outcome) -> dict[str, Any]:
    """The run's facts for the report: design.md's names first, then what helps diagnosis."""
    amp, fp32 = outcome.amp.payload, outcome.fp32.payload
    shown = asdict(plan)
    dtype = shown.pop("dtype")
    shown.pop("tf32")
    shown.pop("coverage")
    return {
        **shown,
        "threads": amp.get("threads", plan.threads),
        "amp_dtype": amp.get("amp_dtype", dtype),
        "device_name": amp.get("device_name"),
        "chip": amp.get("chip"),
        "fp32_math": fp32.get("fp32_math", "ieee"),
        "omp_wait_policy": fp32.get("omp_wait_policy"),
        "peak_mem_source": amp.get("peak_mem_source"),
        "fp32_step_ms": _step_ms(fp32),
        "amp_step_ms": _step_ms(amp),
        "tf32_step_ms": _step_ms(outcome.tf32.payload) if outcome.tf32 else None,
        "fp32_losses": fp32["losses"],
        "amp_losses": amp["losses"],
        "amp_loss_scales": amp.get("loss_scales", []),
        "speedup_attempts": outcome.speedups,
        "coverage_fp32_ops": (amp.get("coverage") or {}).get("fp32_ops", []),
        "coverage_error": (amp.get("coverage") or {}).get("error"),
    }
