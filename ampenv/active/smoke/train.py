"""Child side of the smoke training: ``python -m ampenv.active.smoke.train --mode fp32|amp ...``.

One run per process, so that on CPU the peak RSS of the process is the peak of that run alone.
Both runs build the same seeded ResNet50 and train it on the same fixed, seeded batch (which it
can memorise, so the loss must fall). The result goes to the parent through
:func:`ampenv.active.child.emit`; the first step's logits go to ``--logits-out`` for the parent
to compare; progress lines go to stderr.

``AMPENV_SMOKE_FAULT`` breaks a run on purpose (tests, and proving a site's alerting works):
``overflow`` pins the AMP loss scale so high that every step overflows, ``nan`` makes the AMP
model produce NaN, ``hang`` sleeps forever, ``kill`` dies by SIGKILL.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import sys
import time
from typing import Any, Callable, Optional

import torch
import torch.nn.functional as F

from ampenv.active.child import emit
from ampenv.active.smoke.parent import PROGRESS
from ampenv.active.smoke.resnet50 import resnet50

FAULT_ENV = "AMPENV_SMOKE_FAULT"
# fp32: true FP32 (TF32 off on CUDA, HF32 off on NPU); tf32: FP32 with TF32/HF32 allowed (the
# figure NVIDIA's tables compare AMP with on A100); amp: the bundled AMP.
MODES = ("fp32", "tf32", "amp")
NUM_CLASSES = 10
SEED = 0
LR = 3e-4  # Adam at this rate memorises the batch smoothly: the loss falls from the first steps
# A floor on the dynamic loss scale that makes loss * scale overflow fp32 on every step.
OVERFLOW_SCALE_FLOOR = 2.0**127


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m ampenv.active.smoke.train")
    p.add_argument("--mode", choices=MODES, required=True)
    p.add_argument("--device", choices=("cpu", "cuda", "npu"), required=True)
    p.add_argument("--image-size", type=int, required=True)
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--steps", type=int, required=True, help="training steps, warm-up included")
    p.add_argument("--warmup", type=int, required=True, help="first steps left out of timing")
    p.add_argument("--opt-level", default="O1")
    p.add_argument("--dtype", choices=("float16", "bfloat16"), default=None)
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--channels-last", action="store_true", help="NHWC model and images")
    p.add_argument("--no-coverage", action="store_true", help="skip the AMP coverage step")
    p.add_argument("--logits-out", required=True)
    return p.parse_args(argv)


def open_device(kind: str) -> torch.device:
    if kind == "npu":
        import torch_npu  # noqa: F401  (registers the npu device with torch)

        torch.npu.set_device(0)
        return torch.device("npu:0")
    if kind == "cuda":
        torch.backends.cudnn.benchmark = True  # autotuning happens during the warm-up steps
        return torch.device("cuda:0")
    return torch.device("cpu")


def set_fp32_math(device: torch.device, mode: str) -> str:
    """TF32 (CUDA) or HF32 (NPU) off except in the tf32 mode; what was used, for the facts.
    AMP runs with them off too: its FP32 parts are then true FP32."""
    allow = mode == "tf32"
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = allow
        torch.backends.cudnn.allow_tf32 = allow
        return "tf32" if allow else "ieee"
    if device.type == "npu":
        for part in ("matmul", "conv"):  # torch_npu: torch.npu.{matmul,conv}.allow_hf32
            holder = getattr(torch.npu, part, None)
            if holder is not None and hasattr(holder, "allow_hf32"):
                holder.allow_hf32 = allow
        return "hf32" if allow else "ieee"
    return "ieee"


def resting_memory_mb(device: torch.device) -> float:
    """What the process holds before the first step: the model, optimizer and batch. On a
    device the allocator's figure (its peak is reset here); on CPU the RSS."""
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        return torch.cuda.memory_allocated(device) / 2**20
    if device.type == "npu":
        torch.npu.reset_peak_memory_stats(device)
        return torch.npu.memory_allocated(device) / 2**20
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "npu":
        torch.npu.synchronize(device)


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "npu":
        return torch.npu.get_device_name(device.index or 0)
    return f"cpu ({torch.get_num_threads()} threads)"


def peak_memory_mb(device: torch.device) -> tuple[float, str]:
    """The run's peak: allocator peak on a device, the process's peak RSS on CPU."""
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20, "max_memory_allocated"
    if device.type == "npu":
        return torch.npu.max_memory_allocated(device) / 2**20, "max_memory_allocated"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "peak RSS of the child"


def synthetic_batch(size: int, batch: int, device: torch.device) -> tuple[torch.Tensor, ...]:
    """The same images and labels on every device: drawn from a seeded CPU generator."""
    gen = torch.Generator().manual_seed(SEED)
    images = torch.randn(batch, 3, size, size, generator=gen)
    labels = torch.arange(batch) % NUM_CLASSES
    return images.to(device), labels.to(device)


def inject_fault(fault: Optional[str]) -> None:
    """The faults that need no model: the process hangs or dies."""
    if fault == "hang":
        sys.stderr.write(f"fault injection: hanging, pid {os.getpid()}\n")
        sys.stderr.flush()
        while True:
            time.sleep(60)
    if fault == "kill":
        os.kill(os.getpid(), signal.SIGKILL)


def _progress(mode: str, step: int, total: int, loss: float) -> None:
    sys.stderr.write(f"{PROGRESS} {mode} {step} {total} {loss:.4f}\n")
    sys.stderr.flush()


def _initialize_amp(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    args: argparse.Namespace,
    fault: Optional[str],
) -> tuple[Any, dict[str, Any]]:
    """amp.initialize in place (model and optimizer stay the same objects); the amp module and
    what it chose."""
    from ampenv import amp

    chip = amp.TorchDevice.of(next(model.parameters()).device).chip
    dtype_name = args.dtype or amp.supported_dtypes(args.device, chip)["default"]
    dtype = getattr(torch, dtype_name)
    pinned = {"min_loss_scale": OVERFLOW_SCALE_FLOOR, "max_loss_scale": None}
    amp.initialize(
        model,
        optimizer,
        opt_level=args.opt_level,
        dtype=dtype,
        **(pinned if fault == "overflow" else {}),
    )
    if fault == "nan":  # a model that produces NaN, under AMP only
        model.fc.register_forward_hook(lambda _m, _i, out: out * float("nan"))

    return amp, {"amp_dtype": dtype_name, "opt_level": args.opt_level, "chip": chip}


def train(args: argparse.Namespace) -> dict[str, Any]:
    fault = os.environ.get(FAULT_ENV) or None
    inject_fault(fault)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    device = open_device(args.device)
    fp32_math = set_fp32_math(device, args.mode)
    model = resnet50(num_classes=NUM_CLASSES, seed=SEED).to(device)
    images, labels = synthetic_batch(args.image_size, args.batch_size, device)
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
        images = images.contiguous(memory_format=torch.channels_last)
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    out: dict[str, Any] = {
        "mode": args.mode,
        "device_name": device_name(device),
        "threads": torch.get_num_threads(),
        "fp32_math": fp32_math,
        "channels_last": bool(args.channels_last),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
    }

    amp = None
    backward: Callable[[torch.Tensor], None] = torch.Tensor.backward
    if args.mode == "amp":
        amp, info = _initialize_amp(model, optimizer, args, fault)
        out.update(info)
        backward = optimizer.backward

    def forward() -> tuple[torch.Tensor, torch.Tensor]:
        if amp is None:
            logits = model(images)
        else:
            with amp.autocast():
                logits = model(images)
        return logits, F.cross_entropy(logits.float(), labels)

    out["rest_mem_mb"] = resting_memory_mb(device)
    losses: list[float] = []
    scales: list[float] = []
    times: list[float] = []
    for step in range(args.steps):
        synchronize(device)
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        logits, loss = forward()
        backward(loss)
        optimizer.step()
        synchronize(device)
        elapsed = time.perf_counter() - start
        if step == 0:
            with open(args.logits_out, "w", encoding="utf-8") as fh:
                json.dump(logits.detach().float().cpu().tolist(), fh)
        if step >= args.warmup:
            times.append(elapsed)
        losses.append(float(loss.detach()))
        if amp is not None:
            scales.append(float(amp.loss_scaler().scale))
        _progress(args.mode, step + 1, args.steps, losses[-1])

    out["peak_mem_mb"], out["peak_mem_source"] = peak_memory_mb(device)  # before coverage
    # Training memory: what the steps added over the resting model (activations, gradients,
    # optimizer state, workspaces). The whole process's peak would hide it under the ~400 MB
    # that torch and the FP32 model hold in both runs alike.
    out["train_mem_mb"] = max(0.0, out["peak_mem_mb"] - out["rest_mem_mb"])
    out["losses"] = losses
    out["loss_scales"] = scales
    out["step_times_s"] = times
    out["img_per_s"] = args.batch_size / statistics.median(times) if times else None
    if amp is not None:
        scaler = amp.loss_scaler()
        out["overflow_steps"] = scaler.overflow_steps
        out["final_loss_scale"] = float(scaler.scale)
        if not args.no_coverage:
            dtype = getattr(torch, out["amp_dtype"])
            out["coverage"] = _coverage(amp, model, images, labels, dtype)
    return out


def _coverage(
    amp: Any, model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, dtype: Any
) -> dict[str, Any]:
    """amp.coverage of one step; a failure here is reported, not fatal to the run."""
    try:
        report = amp.coverage(
            model, images, lambda out: F.cross_entropy(out.float(), labels), dtype=dtype
        )
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    fp32 = sorted(report.fp32_rows(), key=lambda r: -r.flops)
    return {
        "share": report.low_precision_flop_share,
        "dtype": report.dtype,
        "fp32_ops": [f"{r.op} ({r.phase}): {r.reason}" for r in fp32[:5]],
    }


def main(argv: Optional[list[str]] = None) -> None:
    args = parse_args(argv)
    try:
        payload = train(args)
    except Exception as exc:  # an honest error for the parent, with the torch message
        payload = {"mode": args.mode, "error": f"{type(exc).__name__}: {exc}"}
    emit(payload)


if __name__ == "__main__":
    main()
