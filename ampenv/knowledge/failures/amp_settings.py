"""What mixed precision's own checks say of a setting that turns it off: autocast asked for a
dtype its device does not compute in, which it refuses with a warning and runs in full
precision (the job goes on, neither faster nor smaller: a note alone, a cause beside a
failure)."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="autocast-dtype-disabled",
        mode="dtype",
        component="torch",
        # torch/amp/autocast_mode.py: a fast dtype outside the device's list turns autocast off
        patterns=(
            r"In \w{1,20} autocast, but the target dtype is not supported\. Disabling autocast",
        ),
        codes=(),
        meaning="autocast was asked for a dtype its device does not compute in (the warning's "
        "next row lists the ones it takes: float16 and bfloat16 on NPU and CUDA, bfloat16 only "
        "on the CPU before torch 2.x): it turned itself off, and the region runs in full "
        "precision",
        causes=(
            "code that passes dtype=torch.float32 to autocast to mean 'no mixed precision "
            "here' (autocast(enabled=False) is that)",
            "a dtype chosen for another device, or for another torch release (float16 on an "
            "older torch's CPU autocast)",
        ),
        fix="give autocast a dtype the warning's next row lists (torch.autocast(<device>, "
        "dtype=torch.bfloat16) on NPU, CUDA and CPU alike); where a region must run in fp32, "
        "use autocast(enabled=False) and cast its inputs with .float()",
        confirm=None,
        sources=(
            Source(
                "pytorch/pytorch torch/amp/autocast_mode.py (autocast.__init__: the supported "
                "dtypes of each device); captured here from torch 2.13 on the CPU",
                "official",
            ),
            Source(
                "an OpenI 910B porting note of an Anima LoRA toolkit (the public file index's id "
                "67133166042): fp32 asked of NPU autocast",
                "report",
            ),
        ),
        hints=("not support",),
        # a warning the run goes on from (IPEX's int8 calibration prints it and works): the
        # cause beside a failure, a note alone
        notice=True,
    ),
)
