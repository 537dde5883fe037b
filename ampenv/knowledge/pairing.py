"""Whether torch, torch_npu and CANN pair: torch_npu X.Y needs torch X.Y (its own
Requires-Dist where it has one), and each torch_npu is built for the CANN releases of the
compatibility table (:mod:`ampenv.knowledge.compat`). Each verdict carries the exact pip line."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from ampenv.core.model import Finding, Status
from ampenv.knowledge import compat
from ampenv.probe import packages
from ampenv.probe.distinfo import canonical as canonicalize_name

# packaging.requirements costs ~35 ms to import: it is imported where a requirement is parsed.
if TYPE_CHECKING:
    from packaging.requirements import Requirement

TORCH, TORCH_NPU = "torch", "torch-npu"
# How an environment with torch_npu is used for CPU work: torch >= 2.5 then skips its autoload.
AUTOLOAD_OFF = "export TORCH_DEVICE_BACKEND_AUTOLOAD=0"


def minor_of(version: str) -> Optional[tuple[int, int]]:
    from packaging.version import InvalidVersion, Version

    try:
        release = Version(version).release
    except InvalidVersion:
        return None
    return (*release, 0)[:2]


def torch_requirement(npu: packages.Dist) -> Requirement:
    """What torch_npu asks of torch: its own Requires-Dist when it has one (2.13.0 declares
    torch==2.13.0.*), else the rule that torch_npu X.Y.Z needs torch X.Y.*."""
    from packaging.requirements import InvalidRequirement, Requirement

    for line in npu.requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) == TORCH and req.specifier and req.marker is None:
            return req
    release = minor_of(npu.version)
    return Requirement(f"torch=={release[0]}.{release[1]}.*" if release else "torch")


def torch_npu_pin(torch_version: str, cann_version: Optional[str]) -> str:
    """The torch-npu requirement for this torch: the table's row for this CANN, else any
    build of the same torch release."""
    from packaging.version import InvalidVersion, Version

    listed = compat.torch_npu_for(torch_version, cann_version) if cann_version else None
    if listed:
        return f"torch-npu=={listed}"
    try:
        release = ".".join(str(n) for n in Version(torch_version).release)
    except InvalidVersion:
        return "torch-npu"
    return f"torch-npu=={release}.*"


def pair_for(cann_version: Optional[str]) -> str:
    """The exact install line of the newest torch / torch_npu pair listed for this CANN."""
    row = next(
        (r for r in compat.RELEASES if cann_version and compat.same_cann(r.cann, cann_version)),
        None,
    )
    if row is None:
        return "pip install torch torch-npu, the pair the Ascend/pytorch README lists for your CANN"
    return f'pip install "torch=={row.torch}" "torch-npu=={row.torch_npu}"'


def versions(
    backend: str,
    torch: Optional[packages.Dist],
    npu: Optional[packages.Dist],
    cann_version: Optional[str],
) -> list[Finding]:
    if torch is None and npu is None:
        if backend == "npu":
            return [
                Finding(
                    Status.FAIL,
                    "neither torch nor torch_npu is installed",
                    pair_for(cann_version),
                )
            ]
        return [
            Finding(
                Status.WARN,
                "torch is not installed: the AMP probe and the smoke training need it",
                "pip install torch",
            )
        ]
    if npu is None:
        if backend != "npu":
            return [Finding(Status.PASS, f"torch {torch.version}")]
        pin = torch_npu_pin(torch.version, cann_version)
        return [
            Finding(
                Status.FAIL,
                f"torch {torch.version} is installed without torch_npu on an NPU node",
                f'pip install "{pin}"',
            )
        ]
    need = torch_requirement(npu)
    if torch is None:
        return [
            Finding(
                Status.FAIL,
                f"torch_npu {npu.version} is installed, torch is not",
                f'pip install "{need}"',
            )
        ]
    matches = need.specifier.contains(torch.version, prereleases=True) and minor_of(
        torch.version
    ) == minor_of(npu.version)
    if not matches:
        keep_torch = torch_npu_pin(torch.version, cann_version)
        return [
            Finding(
                Status.FAIL,
                f"torch_npu {npu.version} needs {need}, but torch {torch.version} is installed",
                f'pip install "{need}" (or, to keep torch {torch.version}: '
                f'pip install "{keep_torch}")',
            )
        ]
    return [Finding(Status.PASS, f"torch {torch.version} with torch_npu {npu.version}")]


def cann_match(npu: packages.Dist, torch: Optional[packages.Dist], cann_version: str) -> Finding:
    listed = compat.cann_for(npu.version)
    if not listed:
        return Finding(
            Status.SKIP,
            f"torch_npu {npu.version} is not in the compatibility table: not judged against "
            f"CANN {cann_version}",
        )
    if any(compat.same_cann(c, cann_version) for c in listed):
        return Finding(Status.PASS, f"torch_npu {npu.version} is built for CANN {cann_version}")
    fit = compat.torch_npu_for(torch.version, cann_version) if torch else None
    remedy = (
        f'pip install "torch-npu=={fit}"'
        if fit
        else f"install CANN {listed[0]}, the release torch_npu {npu.version} is built for"
    )
    return Finding(
        Status.WARN,
        f"torch_npu {npu.version} is built for CANN {', '.join(listed)}; this node has CANN "
        f"{cann_version}",
        remedy,
    )
