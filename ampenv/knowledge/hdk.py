"""The Ascend HDK (driver and firmware) releases each CANN release is paired with, as Ascend's
install guide and CANN's release notes state them. A driver older than every HDK paired with
the installed CANN may lack what that CANN's runtime calls (ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
207000); a newer one is not judged here (the driver's own compatibility lists decide that)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ampenv.probe.driver import driver_key

GUIDE = (
    "Ascend/docs _static/package_info.js@36ae37d3834de5b9a0449a28e0f442f2bea3593f (the "
    "install guide's driver for each CANN release and chip: 910b, 310p)"
)
NOTES = "hicann/release-management {}@68ef36b7dbee7c104d3214af96dad5390661a0eb (版本配套)"
MINDFORMERS = (
    "mindspore-lab/mindformers mindformers/VERSION_MAP.json"
    "@48524f6b5b37cc29cf01deadedf663568a63e1cd (run_check's preferred driver for each CANN "
    "release)"
)


@dataclass(frozen=True)
class Pairing:
    cann: str
    drivers: tuple[str, ...]  # the HDK driver versions paired with it, for any chip
    source: str

    @property
    def oldest(self) -> str:
        return min(self.drivers, key=lambda v: driver_key(v) or ())


PAIRINGS = (
    Pairing("6.0.RC1", ("6.0.rc1.2",), GUIDE),
    Pairing("6.3.RC1", ("23.0.rc1",), GUIDE),
    Pairing("6.3.RC2", ("23.0.rc2",), GUIDE),
    Pairing("7.0.RC1", ("23.0.rc3",), GUIDE),
    Pairing("7.0.0", ("23.0.3", "23.0.1"), GUIDE),  # 910b, 310p
    Pairing("7.0.1", ("23.0.3", "23.0.1"), GUIDE),
    Pairing("8.0.RC1", ("24.1.rc1",), GUIDE),
    # the two sources pair some releases differently: a driver either names is paired
    Pairing("8.0.RC2", ("24.1.rc1", "24.1.rc2"), f"{GUIDE}; {MINDFORMERS}"),
    Pairing("8.0.RC3", ("24.1.rc2", "24.1.rc3"), f"{GUIDE}; {MINDFORMERS}"),
    Pairing("8.0.0", ("24.1.rc2", "24.1.0"), f"{GUIDE}; {MINDFORMERS}"),
    Pairing("8.1.RC1", ("24.1.rc2", "25.0.rc1"), f"{GUIDE}; {MINDFORMERS}"),
    Pairing("8.2.RC1", ("25.0.rc1", "25.2.0"), f"{GUIDE}; {MINDFORMERS}"),
    Pairing("8.3.RC1", ("25.3.rc1",), MINDFORMERS),
    Pairing("8.5.0-beta.1", ("25.5.1",), NOTES.format("8.5.0-beta.1/release-notes.md")),
    # the notes name HDK 25.5.1 and link the download page of 25.5.0
    Pairing(
        "8.5.0", ("25.5.1", "25.5.0"), f"{NOTES.format('8.5.0/release-notes.md')}; {MINDFORMERS}"
    ),
    Pairing("8.5.2", ("26.0.rc1", "25.5.2", "25.5.1"), NOTES.format("9.0.0/release-notes.md")),
    Pairing("9.0.0-beta.1", ("25.5.1",), NOTES.format("9.0.0-beta.1/release-notes.md")),
    Pairing("9.0.0-beta.2", ("25.5.1",), NOTES.format("9.0.0-beta.2/release-notes.md")),
    Pairing("9.0.0", ("26.0.rc1", "25.5.2", "25.5.1"), NOTES.format("9.0.0/release-notes.md")),
)
_BY_CANN = {p.cann.lower(): p for p in PAIRINGS}


def paired(cann_version: Optional[str]) -> Optional[Pairing]:
    """The pairing of exactly this CANN release (an alpha or a patch of it may differ)."""
    return _BY_CANN.get((cann_version or "").strip().lower())
