"""Child side of the torch / torch_npu import probe: ``python -m ampenv.active.import_probe``.

Imports torch, then torch_npu when it is installed, and emits what happened: versions,
``torch.npu.is_available()`` and the device count, CUDA devices, or the exception text of the
stage that failed (with its causes, since torch wraps torch_npu's ImportError in a
RuntimeError). ``--skip-npu`` imports torch alone. Runs only in a child: a crash or hang
here cannot take the doctor down.
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

from ampenv.active.child import emit, stage

MAX_CHAIN = 5


def describe(exc: BaseException) -> list[str]:
    """The exception and its causes, outermost first, one ``Type: message`` each."""
    chain: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(chain) < MAX_CHAIN:
        seen.add(id(current))
        chain.append(f"{type(current).__name__}: {current}".strip())
        current = current.__cause__ or current.__context__
    return chain


def probe(import_npu: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"stage": "torch"}
    steps = 3 if import_npu and importlib.util.find_spec("torch_npu") is not None else 1
    stage(1, steps, "import torch")
    try:
        import torch
    except BaseException as exc:  # SystemExit and friends from a broken extension, too
        out["error"] = describe(exc)
        return out
    out["torch_version"] = torch.__version__
    try:
        out["cuda_available"] = bool(torch.cuda.is_available())
        count = torch.cuda.device_count() if out["cuda_available"] else 0
        out["cuda_devices"] = [torch.cuda.get_device_name(i) for i in range(count)]
    except Exception as exc:
        out["cuda_error"] = describe(exc)
    if not import_npu or importlib.util.find_spec("torch_npu") is None:
        out["stage"] = "done"
        return out

    out["stage"] = "torch_npu"
    stage(2, steps, "import torch_npu")
    try:
        import torch_npu
    except BaseException as exc:
        out["error"] = describe(exc)
        return out
    out["torch_npu_version"] = getattr(torch_npu, "__version__", None)
    out["stage"] = "npu"
    stage(3, steps, "count NPUs")
    try:
        out["npu_available"] = bool(torch.npu.is_available())
        out["npu_count"] = int(torch.npu.device_count())
    except BaseException as exc:
        out["error"] = describe(exc)
        return out
    out["stage"] = "done"
    return out


if __name__ == "__main__":
    # --skip-npu: a CPU-only use of an environment with torch_npu (autoload switched off).
    emit(probe(import_npu="--skip-npu" not in sys.argv[1:]))
