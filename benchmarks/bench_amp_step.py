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
import statistics
import time
from typing import Callable

import torch
import torch.nn.functional as F

from ampenv import amp
from ampenv.active.smoke.resnet50 import resnet50

Step = Callable[[], float]


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
        return loss

    return step, model


def torch_step(
    model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, dtype: torch.dtype
) -> tuple[Step, torch.nn.Module]:
    opt = sgd(model)
    scaler = torch.amp.GradScaler(images.device.type)

    def step() -> float:
        opt.zero_grad()
        with torch.autocast(images.device.type, dtype=dtype):
            loss = F.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss

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
    arms = {
        "torch": torch_step(copy.deepcopy(model), images, labels, dtype),
        "ampenv": ampenv_step(model, images, labels, dtype),
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
            losses[name].append(float(loss))

    median = {name: statistics.median(t) for name, t in times.items()}
    ratio = median["ampenv"] / median["torch"]
    paired = statistics.median(a / t for a, t in zip(times["ampenv"], times["torch"]))
    fastest = min(times["ampenv"]) / min(times["torch"])
    same = all(
        torch.equal(a, b)
        for a, b in zip(arms["ampenv"][1].parameters(), arms["torch"][1].parameters())
    )
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
    print(f"  identical weights after training: {same}")


if __name__ == "__main__":
    main()
