"""Child side of the amp.support check: ``python -m ampenv.active.amp_selftest --device KIND``.

Opens the device, asks the bundled AMP which low-precision dtypes it supports (from the chip,
the CUDA compute capability, or the CPU flags the parent read and passed in), then runs
``amp.functional_probe`` there: a tiny model under amp.autocast, and an injected inf gradient
that the scaler must catch. Runs only in a child: torch never loads into the doctor.
"""

from __future__ import annotations

import argparse
from typing import Any, Optional

from ampenv.active.child import emit, stage
from ampenv.active.import_probe import describe

DEVICES = {"cpu": "cpu", "cuda": "cuda:0", "npu": "npu:0"}


def probe(kind: str, cpu_flags: Optional[list[str]]) -> dict[str, Any]:
    out: dict[str, Any] = {"stage": "dtypes"}
    stage(1, 2, f"open {kind}, import torch")
    try:
        if kind == "npu":
            import torch_npu  # noqa: F401  (registers the npu device with torch)
        from ampenv import amp

        chip = amp.TorchDevice.of(DEVICES[kind]).chip
        out["dtypes"] = amp.supported_dtypes(kind, chip, cpu_flags)
        out["stage"] = "functional"
        stage(2, 2, "autocast and loss-scaler probe")
        out["functional"] = amp.functional_probe(DEVICES[kind])
    except Exception as exc:
        out["error"] = describe(exc)
        return out
    out["stage"] = "done"
    return out


def main(argv: Optional[list[str]] = None) -> None:
    p = argparse.ArgumentParser(prog="python -m ampenv.active.amp_selftest")
    p.add_argument("--device", choices=sorted(DEVICES), required=True)
    p.add_argument("--cpu-flags", default=None, help="comma-separated /proc/cpuinfo flags")
    args = p.parse_args(argv)
    flags = args.cpu_flags.split(",") if args.cpu_flags is not None else None
    emit(probe(args.device, flags))


if __name__ == "__main__":
    main()
