"""One rank of the collective check, run as ``python -m ampenv.active.collective.worker``;
the only module of ``ampenv.active.collective`` that imports torch.

Its place comes from the env:// contract (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR,
MASTER_PORT), set by ampenv's launcher or by torchrun / srun. It checks that all-reduce sums
exactly for several dtypes and sizes, sweeps sizes for bandwidth, gathers every rank's result on
rank 0 and hands its own (plus, on rank 0, everyone's) to the parent with
:func:`ampenv.active.child.emit`. Before each step it writes a stage line to stderr, so whoever
watches can tell which rank stopped where.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import signal
import socket
import sys
import time
from typing import Any, Optional

import torch
import torch.distributed as dist

from ampenv.active.child import emit
from ampenv.active.collective import FAULT_ENV, RATE_MARKER, STAGE_MARKER, bus_bandwidth
from ampenv.probe import chips

# Element counts of the correctness pass: odd, so chunks split unevenly across ranks, from one
# element to ~4 MiB of fp32.
CHECK_ELEMENTS = (1, 3, 1027, 65539, 1048583)
DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}
# Rank r contributes ((i + r) % PERIOD) + 1 at index i: small integers, so the sum is exact in
# every dtype while PERIOD × world size stays below the dtype's largest exact integer.
PERIOD = 4


class Stages:
    """Announce each step on stderr before taking it: the last one a rank wrote is where it
    stopped."""

    def __init__(self) -> None:
        self.seq = 0
        self.label = "start"

    def __call__(self, label: str) -> None:
        self.seq += 1
        self.label = label
        sys.stderr.write(f"{STAGE_MARKER}{self.seq} {label}\n")
        sys.stderr.flush()


def open_device(backend: str, local_rank: int) -> tuple[torch.device, str]:
    """This rank's device and its chip name (bandwidth thresholds are per chip)."""
    if backend == "hccl":
        import torch_npu  # noqa: F401  (registers the npu device and the hccl backend)

        torch.npu.set_device(local_rank)
        return torch.device("npu", local_rank), torch.npu.get_device_name(local_rank)
    if backend == "nccl":
        torch.cuda.set_device(local_rank)
        return torch.device("cuda", local_rank), torch.cuda.get_device_name(local_rank)
    return torch.device("cpu"), "cpu"


def synchronize(device: torch.device) -> None:
    """Wait for queued device work: collectives on npu and cuda return before they finish."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "npu":
        torch.npu.synchronize(device)


def resolve_dtypes(requested: list[str], device: torch.device, chip: str) -> list[str]:
    """``auto``: fp32, fp16 and bf16, leaving bf16 out on NPUs not known to have it (910A)."""
    if requested != ["auto"]:
        return requested
    names = ["float32", "float16", "bfloat16"]
    if device.type == "npu" and not chips.computes_in(chip, "bfloat16"):
        names.remove("bfloat16")
    return names


def expected_sum(elements: int, world_size: int) -> torch.Tensor:
    """The exact all-reduce result of the rank pattern, in float64 on the CPU."""
    index = torch.arange(elements, dtype=torch.int64)
    cycles, rest = divmod(world_size, PERIOD)
    # Any PERIOD consecutive ranks add 1 + 2 + ... + PERIOD at every index.
    total = torch.full((elements,), cycles * PERIOD * (PERIOD + 1) // 2, dtype=torch.int64)
    for r in range(rest):
        total += (index + r) % PERIOD + 1
    return total.to(torch.float64)


def check_allreduce(
    name: str, elements: int, device: torch.device, rank: int, world_size: int, stage: Stages
) -> dict[str, Any]:
    dtype = DTYPES[name]
    index = torch.arange(elements, dtype=torch.int64, device=device)
    tensor = ((index + rank) % PERIOD + 1).to(dtype)
    stage(f"allreduce {name} x{elements}")
    dist.all_reduce(tensor)
    synchronize(device)
    got = tensor.to("cpu", torch.float64)
    want = expected_sum(elements, world_size)
    eps = torch.finfo(dtype).eps
    # Exact while the sums fit the mantissa; beyond that, allow each addition one rounding.
    tolerance = 0.0 if PERIOD * world_size <= 2 / eps else eps * world_size
    wrong = ~((got - want).abs() <= tolerance * want)  # a NaN counts as wrong
    row: dict[str, Any] = {"dtype": name, "elements": elements, "wrong": int(wrong.sum())}
    if row["wrong"]:
        i = int(wrong.nonzero()[0])
        row["first_wrong"] = {"index": i, "got": float(got[i]), "want": float(want[i])}
    return row


def measure(
    nbytes: int, device: torch.device, world_size: int, iters: int, warmup: int, stage: Stages
) -> dict[str, Any]:
    """Time all-reduce of ``nbytes`` of fp32 the way nccl-tests does: a loop, one sync, the
    mean; algbw = bytes / time, busbw = algbw × 2(n−1)/n."""
    elements = max(1, nbytes // 4)
    tensor = torch.zeros(elements, dtype=torch.float32, device=device)  # zeros stay finite
    stage(f"bandwidth {elements * 4} B")
    for _ in range(warmup):
        dist.all_reduce(tensor)
    synchronize(device)
    start = time.perf_counter()
    for _ in range(iters):
        dist.all_reduce(tensor)
    synchronize(device)
    seconds = (time.perf_counter() - start) / iters
    algbw = elements * 4 / seconds / 1e9
    busbw = bus_bandwidth(algbw, world_size)
    sys.stderr.write(f"{RATE_MARKER}{elements * 4} {busbw:.4f}\n")  # for the live progress
    sys.stderr.flush()
    return {
        "bytes": elements * 4,
        "time_us": round(seconds * 1e6, 2),
        "algbw_gbps": round(algbw, 4),
        "busbw_gbps": round(busbw, 4),
    }


def gather_json(item: dict[str, Any], group: Optional[Any]) -> list[dict[str, Any]]:
    """Every rank's ``item`` on every rank, as JSON bytes in CPU tensors (all_gather_object
    needs numpy, which a training image may lack)."""
    data = torch.tensor(list(json.dumps(item).encode()), dtype=torch.uint8)
    world_size = dist.get_world_size()
    sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(world_size)]
    dist.all_gather(sizes, torch.tensor([data.numel()], dtype=torch.int64), group=group)
    longest = max(int(s) for s in sizes)
    padded = torch.zeros(longest, dtype=torch.uint8)
    padded[: data.numel()] = data
    buffers = [torch.zeros(longest, dtype=torch.uint8) for _ in range(world_size)]
    dist.all_gather(buffers, padded, group=group)
    return [json.loads(bytes(b[: int(s)].tolist())) for b, s in zip(buffers, sizes)]


def plant_fault(rank: int) -> None:
    """Test seam: ``AMPENV_DIST_FAULT=hang:R`` or ``die:R`` stops rank R right after it joined
    the group, as a wedged device or a crashed process would, leaving its peers waiting in the
    first collective. A hanging rank first starts a helper process, as device runtimes do, so
    that the launcher must take down the whole tree."""
    kind, _, target = os.environ.get(FAULT_ENV, "").partition(":")
    if target != str(rank):
        return
    if kind == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "hang":
        os.fork()
        while True:
            signal.pause()


def parse_args(argv: Optional[list[str]]) -> argparse.Namespace:
    def ints(text: str) -> list[int]:
        return [int(v) for v in text.split(",") if v]

    p = argparse.ArgumentParser(prog="python -m ampenv.active.collective.worker")
    p.add_argument("--backend", choices=("gloo", "nccl", "hccl"), required=True)
    p.add_argument("--sizes", type=ints, required=True, help="bandwidth sweep, bytes")
    p.add_argument("--dtypes", default="auto", help="comma list, or auto")
    p.add_argument("--iters", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--timeout", type=float, default=120.0, help="process group timeout, s")
    p.add_argument("--run-id", default="", help="names this run's processes")
    return p.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    stage = Stages()
    payload: dict[str, Any] = {
        "rank": rank,
        "world_size": world_size,
        "local_rank": local_rank,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "backend": args.backend,
        "torch": torch.__version__,
        "correctness": [],
        "bandwidth": [],
        "error": None,
    }
    try:
        stage("device")
        device, chip = open_device(args.backend, local_rank)
        payload.update(device=str(device), chip=chip)
        stage("rendezvous")
        started = time.monotonic()
        dist.init_process_group(
            args.backend,
            init_method="env://",
            rank=rank,
            world_size=world_size,
            timeout=datetime.timedelta(seconds=args.timeout),
        )
        # Results travel over gloo on the CPU whatever the device backend.
        group = dist.new_group(backend="gloo") if args.backend != "gloo" else None
        payload["rendezvous_s"] = round(time.monotonic() - started, 3)
        stage("joined")
        plant_fault(rank)
        # HCCL and NCCL connect the ranks lazily, in the first collective: give that its own
        # stage, so a hang there reads as a connect problem.
        stage("connect")
        dist.all_reduce(torch.ones(1, device=device))
        synchronize(device)
        dtypes = resolve_dtypes(args.dtypes.split(","), device, chip)
        for name in dtypes:
            for elements in CHECK_ELEMENTS:
                row = check_allreduce(name, elements, device, rank, world_size, stage)
                payload["correctness"].append(row)
        for nbytes in args.sizes:
            row = measure(nbytes, device, world_size, args.iters, args.warmup, stage)
            payload["bandwidth"].append(row)
        stage("gather")
        everyone = gather_json(payload, group)
        if rank == 0:
            payload["ranks"] = everyone
        stage("done")
        dist.destroy_process_group()
    except Exception as exc:  # reported, not raised: the parent judges
        payload["error"] = f"{type(exc).__name__}: {str(exc).strip()[:2000]}"
        payload["stage"] = stage.label
        emit(payload)
        return 1
    emit(payload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
