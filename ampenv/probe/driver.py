"""Ascend driver and firmware version files, and the version arithmetic to compare them.

``/usr/local/Ascend/driver/version.info`` (``Version=24.1.rc1``, ``Innerversion=...``,
``compatible_version_fw=[7.0.0,7.2.99]``) and ``/usr/local/Ascend/firmware/version.info``
(``Version=7.1.0.11.220``, ``package_version=...``, ``compatible_version_drv=[...]``) are plain
``key=value`` files. Keys are kept lower-cased, since the files mix ``Version`` and ``version``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ampenv.probe import Probe

DRIVER_DIR = "/usr/local/Ascend/driver"
DRIVER_INFO = f"{DRIVER_DIR}/version.info"
FIRMWARE_INFO = "/usr/local/Ascend/firmware/version.info"

_RANGE = re.compile(r"\[\s*([^\],\s]+)\s*,\s*([^\]\s]+)\s*\]")


def parse_version_info(text: str) -> dict[str, str]:
    """``key=value`` lines, keys lower-cased; blank lines and comments are ignored."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.lstrip().startswith("#"):
            values.setdefault(key.strip().lower(), value.strip())
    return values


def parse_ranges(text: str) -> list[tuple[str, str]]:
    """``[7.0.0,7.2.99],[7.3.0,7.3.99]`` -> [("7.0.0", "7.2.99"), ("7.3.0", "7.3.99")]."""
    return _RANGE.findall(text or "")


def numeric_key(version: str) -> Optional[tuple[int, ...]]:
    """``7.1.0.11.220`` -> (7, 1, 0, 11, 220); None when a part is not a number."""
    parts = version.strip().split(".")
    if not all(p.isascii() and p.isdigit() for p in parts):
        return None
    return tuple(int(p) for p in parts)


def in_ranges(version: str, ranges: list[tuple[str, str]]) -> Optional[bool]:
    """Whether a firmware version lies in one of the ranges. A bound constrains as many
    leading parts as it has (``7.2.99`` bounds ``7.2.50.1.220``). None: cannot compare."""
    have = numeric_key(version)
    if have is None or not ranges:
        return None
    for low, high in ranges:
        lo, hi = numeric_key(low), numeric_key(high)
        if lo is None or hi is None:
            return None
        if lo <= have[: len(lo)] and have[: len(hi)] <= hi:
            return True
    return False


def driver_key(version: str) -> Optional[tuple[int, ...]]:
    """Order of HDK driver versions: ``23.0.rc3`` < ``23.0.rc3.1`` < ``23.0.0`` < ``24.1.rc1``.
    A release candidate sorts before the release of the same X.Y. None: not a driver version."""
    m = re.fullmatch(r"(\d+)\.(\d+)\.(rc)?(\d+)((?:\.b?\d+)*)", version.strip(), re.I | re.A)
    if not m:
        return None
    major, minor, rc, number, rest = m.groups()
    extra = tuple(int(p.lstrip("bB")) for p in rest.split(".") if p)
    return (int(major), int(minor), 0 if rc else 1, int(number), *extra)


@dataclass
class DriverFiles:
    """What the driver and firmware version files say (None: file missing or key absent)."""

    driver: Optional[dict[str, str]]
    firmware: Optional[dict[str, str]]
    fw_ranges: list[tuple[str, str]] = field(default_factory=list)

    @property
    def driver_version(self) -> Optional[str]:
        return (self.driver or {}).get("version")

    @property
    def firmware_version(self) -> Optional[str]:
        return (self.firmware or {}).get("version")


def read(probe: Probe) -> DriverFiles:
    """Read both version files once, through the probe (sysroot and bundles apply)."""

    def collect() -> DriverFiles:
        drv_text = probe.read_text(DRIVER_INFO)
        fw_text = probe.read_text(FIRMWARE_INFO)
        driver = parse_version_info(drv_text) if drv_text is not None else None
        firmware = parse_version_info(fw_text) if fw_text is not None else None
        ranges = parse_ranges((driver or {}).get("compatible_version_fw", ""))
        return DriverFiles(driver, firmware, ranges)

    return probe.fact(("ascend", "driver-files"), collect)
