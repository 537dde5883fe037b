"""/proc/cpuinfo: the CPU model, how many logical CPUs it lists, and the feature flags.

x86 lists ``flags`` and ``model name``; aarch64 lists ``Features`` (``bf16`` among them) and
often no model name, only ``CPU implementer``/``CPU part`` codes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ampenv.probe import Probe

CPUINFO = "/proc/cpuinfo"


@dataclass(frozen=True)
class CpuInfo:
    model: Optional[str]
    count: int  # "processor" entries
    flags: frozenset[str]


def parse(text: str) -> CpuInfo:
    model: Optional[str] = None
    arm_ids: dict[str, str] = {}  # "cpu implementer" and "cpu part" of the first core
    count = 0
    flags: set[str] = set()
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "processor":
            count += 1
        elif key in ("model name", "hardware") and model is None:
            model = value
        elif key in ("cpu implementer", "cpu part"):
            arm_ids.setdefault(key, value)
        elif key in ("flags", "features") and not flags:
            flags = set(value.split())
    if model is None and arm_ids:
        model = ", ".join(f"{k} {v}" for k, v in arm_ids.items())
    return CpuInfo(model, count, frozenset(flags))


def read(probe: Probe) -> Optional[CpuInfo]:
    """This node's /proc/cpuinfo (through the probe, so sysroots and bundles apply)."""
    text = probe.read_text(CPUINFO)
    return parse(text) if text else None
