"""ResNet50 training step: ampenv.amp (O1) against plain torch.autocast + torch.amp.GradScaler.

Both arms train the same model (one init, copied), on the same batch, with the same optimizer
settings; their steps alternate (ABBA order), so drift in a shared, noisy machine hits both alike.
The figure of merit is median(ampenv step) / median(torch step); the target is <= 1.03.

    .venv/bin/python benchmarks/bench_amp_step.py            # CPU, bf16, 64 px, batch 8
    .venv/bin/python benchmarks/bench_amp_step.py --device cuda --steps 50 --size 224

CPUs without avx512_bf16/AMX (oneDNN without bf16) run bf16 convolutions through slow fallback
kernels: ~27 s per step at 64 px on a 2-core AVX2 machine. There use e.g.
`--size 32 --batch 2 --threads 1`; the ratio, not the step time, is the figure.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time
import warnings
from typing import Callable

# cuBLAS reads this when it makes its first handle: set before any CUDA work, it lets the
# parity phase below ask for deterministic kernels. It does not change the timed steps' speed.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

import torch
import torch.nn.functional as F

from ampenv import amp
from ampenv.active.smoke.resnet50 import resnet50

Step = Callable[[], float]
Arm = Callable[
    [torch.nn.Module, torch.Tensor, torch.Tensor, torch.dtype], "tuple[Step, torch.nn.Module]"
]


def sgd(model: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)


def ampenv_step(
    model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, dtype: torch.dtype
) -> tuple[Step, torch.nn.Module]:
    opt = sgd(model)
    model, opt = amp.initialize(model, opt, opt_level="O1", dtype=dtype)

    def step() -> float:
        opt.zero_grad()
        with amp.autocast():
            loss = F.cross_entropy(model(images), labels)
        opt.backward(loss)
        opt.step()
        return loss.item()

    return step, model


def torch_step(
    model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, dtype: torch.dtype
) -> tuple[Step, torch.nn.Module]:
    """The step as torch's AMP recipe writes it: the loss inside autocast."""
    opt = sgd(model)
    scaler = torch.amp.GradScaler(images.device.type)

    def step() -> float:
        opt.zero_grad()
        with torch.autocast(images.device.type, dtype=dtype):
            loss = F.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss.item()

    return step, model


def torch_step_fp32_loss(
    model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, dtype: torch.dtype
) -> tuple[Step, torch.nn.Module]:
    """torch.autocast with the loss taken in fp32 outside it: what ampenv's policy does. On CUDA
    (torch 2.11, H200) autocast's cross_entropy of low-precision logits differs from the fp32
    loss of the same logits (by 5e-4 in fp16, 3e-3 in bf16, over 64 x 1000 logits); on CPU the
    two are equal."""
    opt = sgd(model)
    scaler = torch.amp.GradScaler(images.device.type)

    def step() -> float:
        opt.zero_grad()
        with torch.autocast(images.device.type, dtype=dtype):
            logits = model(images)
        loss = F.cross_entropy(logits.float(), labels)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss.item()

    return step, model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument(
        "--dtype",
        choices=["bfloat16", "float16"],
        default=None,
        help="default: the device's (bf16 on CPU, fp16 on CUDA and Ascend)",
    )
    parser.add_argument("--size", type=int, default=64, help="image side in pixels")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps per arm")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per arm")
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument(
        "--parity-steps", type=int, default=3, help="deterministic steps compared afterwards"
    )
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    device = torch.device(args.device)
    dtype = (
        getattr(torch, args.dtype)
        if args.dtype
        else getattr(torch, amp.supported_dtypes(device.type)["default"])
    )
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    torch.manual_seed(0)
    images = torch.randn(args.batch, 3, args.size, args.size, device=device)
    labels = torch.randint(0, 1000, (args.batch,), device=device)
    model = resnet50(num_classes=1000, seed=0).to(device)
    builders: dict[str, Arm] = {"torch": torch_step, "ampenv": ampenv_step}
    arms = {
        name: build(copy.deepcopy(model), images, labels, dtype) for name, build in builders.items()
    }
    times: dict[str, list[float]] = {name: [] for name in arms}
    losses: dict[str, list[float]] = {name: [] for name in arms}
    for i in range(args.warmup + args.steps):
        order = list(arms) if i % 2 == 0 else list(reversed(arms))  # ABBA
        for name in order:
            sync()
            start = time.perf_counter()
            loss = arms[name][0]()
            sync()
            if i >= args.warmup:
                times[name].append(time.perf_counter() - start)
            losses[name].append(loss)

    median = {name: statistics.median(t) for name, t in times.items()}
    ratio = median["ampenv"] / median["torch"]
    paired = statistics.median(a / t for a, t in zip(times["ampenv"], times["torch"]))
    fastest = min(times["ampenv"]) / min(times["torch"])
    print(
        f"ResNet50 training step, {device.type}, O1 {str(dtype).removeprefix('torch.')}, "
        f"{args.size} px, batch {args.batch}, {args.steps} timed steps per arm "
        f"(torch threads {torch.get_num_threads()})"
    )
    for name in arms:
        t = times[name]
        print(
            f"  {name:7s} median {median[name] * 1e3:8.1f} ms   "
            f"min {min(t) * 1e3:8.1f} ms   max {max(t) * 1e3:8.1f} ms   "
            f"loss {losses[name][0]:.4f} -> {losses[name][-1]:.4f}"
        )
    print(
        f"  ratio ampenv/torch: {ratio:.3f} (median of paired ratios {paired:.3f}, "
        f"of the fastest steps {fastest:.3f}); "
        f"target <= 1.03: {'met' if ratio <= 1.03 else 'NOT met'}"
    )
    n = args.parity_steps
    print(f"  weights after {n} deterministic steps from one init, ampenv against")
    recipe = parity(ampenv_step, torch_step, model, images, labels, dtype, n)
    print(f"    torch's recipe (loss inside autocast): {recipe}")
    fp32_loss = parity(ampenv_step, torch_step_fp32_loss, model, images, labels, dtype, n)
    print(f"    torch.autocast, loss in fp32 outside it: {fp32_loss}")


def parity(
    mine: Arm,
    theirs: Arm,
    model: torch.nn.Module,
    images: torch.Tensor,
    labels: torch.Tensor,
    dtype: torch.dtype,
    steps: int,
) -> str:
    """Both arms trained `steps` steps from one init with deterministic kernels: the same weights
    show the two compute the same. The timed steps cannot show it on a GPU, where cuDNN and
    cuBLAS may pick other kernels, and atomics other orders, on every call."""
    trained = []
    benchmark = torch.backends.cudnn.benchmark
    torch.backends.cudnn.benchmark = False
    torch.use_deterministic_algorithms(True)
    try:
        with warnings.catch_warnings():
            # A second amp.initialize in one process is what this needs; apex warns of it.
            warnings.filterwarnings("ignore", "amp.initialize was already called")
            for build in (mine, theirs):
                step, trained_model = build(copy.deepcopy(model), images, labels, dtype)
                for _ in range(steps):
                    step()
                trained.append(trained_model)
    finally:
        torch.use_deterministic_algorithms(False)
        torch.backends.cudnn.benchmark = benchmark
    pairs = list(zip(trained[0].parameters(), trained[1].parameters()))
    same = all(torch.equal(a, b) for a, b in pairs)
    worst = max(float((a - b).detach().abs().max()) for a, b in pairs)
    return f"{'identical' if same else 'different'} (largest difference {worst:.3g})"


if __name__ == "__main__":
    main()
