"""The collective check: all-reduce correctness and bandwidth across ranks, as nccl-tests and
hccl_test measure it, on torch.distributed (hccl on NPU, nccl on CUDA, gloo on CPU).

``launch`` starts one ``python -m ampenv.active.collective.worker`` per device (or, under
torchrun or srun, one for this process's own rank) and watches them; the worker is the only
module here that imports torch. The two talk through the child protocol of
:mod:`ampenv.active.child` (the result on stdout) and stage lines on stderr, which tell the
launcher how far each rank got.
"""

from __future__ import annotations

# The worker writes "AMPENV_DIST_STAGE <seq> <label>" to stderr before each step.
STAGE_MARKER = "AMPENV_DIST_STAGE "
RATE_MARKER = "AMPENV_DIST_RATE "  # "<bytes> <busbw GB/s>" after each bandwidth measurement
# Test seam, read only by the worker: "hang:R" or "die:R" plants that fault on rank R.
FAULT_ENV = "AMPENV_DIST_FAULT"

BACKENDS = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}


def bus_bandwidth(algbw: float, world_size: int) -> float:
    """nccl-tests' all-reduce bus bandwidth: algbw × 2(n−1)/n, the traffic each link carries,
    so figures compare across world sizes (and with the hardware's link speed)."""
    return algbw * 2 * (world_size - 1) / world_size
