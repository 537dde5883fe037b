"""The node fingerprint a certificate is bound to: what its verdict depends on.

Driver, firmware and CANN versions (version files), torch and torch_npu (package metadata),
the accelerators' names and count (sysfs / procfs), the node name and ampenv's version. Read
through the Probe, cheaply and without importing torch: ``certificate verify`` runs in a
Slurm prolog and must answer in well under a second.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Optional

from ampenv import __version__
from ampenv.probe import cann, cpuinfo, driver

if TYPE_CHECKING:
    from ampenv.probe import Probe

PCI_DEVICES = "/sys/bus/pci/devices"
HUAWEI, NVIDIA = "0x19e5", "0x10de"
ACCELERATOR_CLASS, DISPLAY_CLASS = "0x12", "0x03"  # PCI base classes of NPUs and GPUs
# PCI device ids of Ascend chips (ascend-facts.md); an unknown id is shown as it is.
ASCEND_PCI_NAMES = {"0xd801": "Ascend 910", "0xd802": "Ascend 910B", "0xd500": "Ascend 310P"}
NVIDIA_GPU_INFO = "/proc/driver/nvidia/gpus/*/information"
NVIDIA_VERSION = "/proc/driver/nvidia/version"

# The fields in the order a change is reported.
FIELDS = (
    "node",
    "backend",
    "devices",
    "device_count",
    "driver",
    "firmware",
    "cann",
    "torch",
    "torch_npu",
    "ampenv",
)


def _pci_ids(probe: Probe, vendor: str, base_class: str) -> list[str]:
    """Device ids of the PCI functions of one vendor and base class."""
    ids = []
    for vendor_file in probe.glob(f"{PCI_DEVICES}/*/vendor"):
        folder = vendor_file.rsplit("/", 1)[0]
        if (probe.read_text(vendor_file) or "").strip() != vendor:
            continue
        if (probe.read_text(f"{folder}/class") or "").strip().startswith(base_class):
            ids.append((probe.read_text(f"{folder}/device") or "?").strip())
    return ids


def _nvidia_models(probe: Probe) -> list[str]:
    models = []
    for info in probe.glob(NVIDIA_GPU_INFO):
        m = re.search(r"^Model:\s*(.+)$", probe.read_text(info) or "", re.M)
        models.append(m.group(1).strip() if m else "NVIDIA GPU")
    return models or [f"NVIDIA {i}" for i in _pci_ids(probe, NVIDIA, DISPLAY_CLASS)]


def nvidia_driver(probe: Probe) -> Optional[str]:
    m = re.search(r"Kernel Module\s+(\S+)", probe.read_text(NVIDIA_VERSION) or "")
    return m.group(1) if m else None


def devices(probe: Probe, backend: str) -> list[str]:
    """The names of the backend's devices, sorted (one entry per device)."""
    if backend == "npu":
        ids = _pci_ids(probe, HUAWEI, ACCELERATOR_CLASS)
        return sorted(ASCEND_PCI_NAMES.get(i, f"Huawei {i}") for i in ids)
    if backend == "cuda":
        return sorted(_nvidia_models(probe))
    info = cpuinfo.read(probe)
    return [info.model or "cpu"] * info.count if info else []


def fingerprint(probe: Probe, backend: str) -> dict[str, Any]:
    names = devices(probe, backend)
    found: dict[str, Any] = {
        "node": probe.hostname(),
        "backend": backend,
        # One entry per distinct name: "8x Ascend 910B" reads better than eight lines.
        "devices": sorted({f"{names.count(n)}x {n}" for n in names}),
        "device_count": len(names),
        "driver": None,
        "firmware": None,
        "cann": None,
        "torch": probe.distribution_version("torch"),
        "torch_npu": probe.distribution_version("torch_npu"),
        "ampenv": __version__,
    }
    if backend == "npu":
        files = driver.read(probe)
        toolkit = cann.discover(probe).toolkit
        found.update(
            driver=files.driver_version,
            firmware=files.firmware_version,
            cann=toolkit.version if toolkit else None,
        )
    elif backend == "cuda":
        found["driver"] = nvidia_driver(probe)
    return found


def changes(recorded: dict[str, Any], now: dict[str, Any]) -> list[str]:
    """What differs, one ``field: then → now`` each, in FIELDS order."""
    keys = [*FIELDS, *sorted((set(recorded) | set(now)) - set(FIELDS))]
    return [f"{k}: {recorded.get(k)} → {now.get(k)}" for k in keys if recorded.get(k) != now.get(k)]
