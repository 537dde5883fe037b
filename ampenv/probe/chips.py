"""Ascend chip families from the names npu-smi and torch_npu give, the low-precision dtypes
each family computes in, and the chip of this node. Torch-free: the quick path uses it."""

from __future__ import annotations

import re
from typing import Any, Optional

from ampenv.probe import Probe, devnodes, npusmi

UNKNOWN = "unknown"

# ascend-facts.md §5: the 910A family computes in float16 only (no bf16: vllm-ascend#9294,
# EZ1001 "not implemented for DT_BFLOAT16"); Atlas A2 and A3 in both.
LOW_PRECISION = {
    "910A": ("float16",),
    "910B": ("float16", "bfloat16"),
    "A3": ("float16", "bfloat16"),
}


def family(name: Optional[str]) -> str:
    """910A, 910B (A2), A3, 310P, 310B or 950 for an npu-smi Name, a torch_npu device name or a
    SoC name, else :data:`UNKNOWN`.

    ascend-facts.md §1.1: 910A/910ProA/910ProB/910PremiumA are the first generation; A2 is
    910B1-B4 (910B2C, 910B4-1); A3 shows as ``Ascend910`` in npu-smi and 910_93xx as a SoC.
    A bare ``910B`` is first generation in CANN's SoC list but is used loosely for A2, so it
    stays unknown: a wrong family would give wrong advice."""
    n = (name or "").strip().upper().removeprefix("ASCEND")
    if n in ("910A", "910PROA", "910PROB", "910PREMIUMA"):
        return "910A"
    if re.fullmatch(r"910B\d.*", n):
        return "910B"
    if n == "910" or re.fullmatch(r"910_?93\d*.*|910C.*", n):
        return "A3"
    return next((f for f in ("310P", "310B", "950") if n.startswith(f)), UNKNOWN)


def computes_in(name: Optional[str], dtype: str) -> Optional[bool]:
    """Whether this chip trains in `dtype` ("float16" or "bfloat16"); None when not known."""
    dtypes = LOW_PRECISION.get(family(name))
    return None if dtypes is None else dtype in dtypes


def of_node(
    probe: Probe, settings: dict[str, Any], timeout: float
) -> tuple[Optional[str], Optional[int], str]:
    """This node's chip name, device count, and where the name came from: npu-smi, else
    ``expected_chip`` of ``[checks."npu.devices"]`` (`settings`: the config's check settings)."""
    tool = npusmi.locate(probe)
    smi = npusmi.info(probe, tool, timeout) if tool else None
    if smi and smi.table:
        names = [c.name for c in smi.table.chips if c.name]
        return (names[0] if names else None), len(smi.table.chips), "npu-smi"
    count = len(devnodes.davinci_numbers(probe)) or None
    expected = settings.get("npu.devices", {}).get("expected_chip")
    if expected:
        return expected, count, '[checks."npu.devices"] expected_chip'
    return None, count, ""
