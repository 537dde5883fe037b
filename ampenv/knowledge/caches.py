"""The known cache and log places of a training node, and when an entry in them is stale.

Places (``PLACES``, one row each): the CANN operator compile caches (ACL_OP_COMPILER_CACHE_DIR,
ASCEND_CACHE_PATH/kernel_cache, ~/atc_data, ./kernel_meta), the CANN logs
(ASCEND_PROCESS_LOG_PATH, ASCEND_WORK_PATH/log, ~/ascend/log), torch's caches (extensions,
inductor, torchair); the site adds its own with ``[cache] roots``.

Which CANN built a compile cache: no CANN document names a version marker inside these folders,
so ampenv judges each top-level entry by two rules of its own:

1. an entry whose newest file predates the installation of the installed toolkit (the mtime of
   its ascend_toolkit_install.info) was built by an earlier CANN (ascend-facts.md §9.6 draws
   this inference; no source confirms it);
2. ampenv's marker ``.ampenv-cann``, written into each compile cache it cleans, records the CANN
   version installed at that moment and when: it names the version that built the older
   entries, and stands in for rule 1 when the install time cannot be read.

Logs and ``[cache] roots`` entries are stale once untouched for ``stale_after_days``. torch's
caches are measured only (their staleness is torch's business) and are removed only by --all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ampenv.util.formats import utc_iso

MARKER = ".ampenv-cann"
DAY = 86400.0


@dataclass(frozen=True)
class Toolkit:
    """The installed CANN toolkit, as rule 1 reads it."""

    version: str
    info: str  # ascend_toolkit_install.info, as a system path
    installed_at: Optional[float]  # its mtime: when this CANN was installed


@dataclass(frozen=True)
class Marker:
    """ampenv's marker in a compile cache (rule 2)."""

    version: str  # the CANN installed when ampenv last cleaned this cache
    cleaned_at: float


@dataclass(frozen=True)
class PlaceSpec:
    label: str
    kind: str  # compile | log | torch | site
    var: Optional[str] = None  # the variable naming the folder
    sub: str = ""  # the place, below the variable's folder
    default: Optional[str] = None  # when the variable is unset: {home}, {cwd}, {user}


PLACES = (
    PlaceSpec("ACL_OP_COMPILER_CACHE_DIR", "compile", var="ACL_OP_COMPILER_CACHE_DIR"),
    PlaceSpec("ASCEND_CACHE_PATH/kernel_cache", "compile", "ASCEND_CACHE_PATH", "kernel_cache"),
    PlaceSpec("~/atc_data", "compile", default="{home}/atc_data"),
    PlaceSpec("./kernel_meta", "compile", default="{cwd}/kernel_meta"),
    PlaceSpec("ASCEND_PROCESS_LOG_PATH", "log", var="ASCEND_PROCESS_LOG_PATH"),
    # ASCEND_WORK_PATH replaces $HOME/ascend as the log root (log priority rule); that its logs
    # go to ./log below it is inferred from the atrace layout, not documented.
    PlaceSpec("ASCEND_WORK_PATH/log", "log", var="ASCEND_WORK_PATH", sub="log"),
    PlaceSpec("~/ascend/log", "log", default="{home}/ascend/log"),
    PlaceSpec(
        "torch extensions",
        "torch",
        "TORCH_EXTENSIONS_DIR",
        default="{home}/.cache/torch_extensions",
    ),
    PlaceSpec(
        "inductor cache", "torch", "TORCHINDUCTOR_CACHE_DIR", default="/tmp/torchinductor_{user}"
    ),
    PlaceSpec("TORCHAIR_CACHE_HOME", "torch", var="TORCHAIR_CACHE_HOME"),
)


def stale_reason(
    kind: str,
    newest: float,
    marker: Optional[Marker],
    toolkit: Optional[Toolkit],
    cfg: dict[str, Any],
    now: float,
) -> Optional[str]:
    """Why an entry of a place of ``kind`` whose newest file is from ``newest`` is stale, or
    None (``marker``: the place's, if any)."""
    if kind == "compile":
        return _built_by_other_cann(newest, marker, toolkit)
    if kind in ("log", "site"):
        days = float(cfg.get("stale_after_days", 30.0))
        if newest < now - days * DAY:
            return f"untouched for more than {days:g} days"
    return None


def _built_by_other_cann(
    newest: float, marker: Optional[Marker], toolkit: Optional[Toolkit]
) -> Optional[str]:
    if toolkit is None:
        return None
    other = marker.version if marker and marker.version != toolkit.version else None
    if toolkit.installed_at is not None:
        if newest >= toolkit.installed_at:
            return None
        day = utc_iso(toolkit.installed_at)[:10]  # type: ignore[index]
        by = f", by CANN {other} (ampenv's marker)" if other else ""
        return f"built before CANN {toolkit.version} was installed on {day}{by}"
    if other:
        return f"built by CANN {other} (ampenv's marker); CANN {toolkit.version} is installed"
    return None
