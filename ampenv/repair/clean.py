"""Cleaning the caches and logs: the plan (exactly what would go, what is refused and why), the
cleaners' lock, removal through :mod:`ampenv.util.saferm`, and ampenv's marker written into
each compile cache it leaves clean."""

from __future__ import annotations

import datetime as _dt
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ampenv.knowledge.caches import MARKER, stale_reason
from ampenv.probe import Probe
from ampenv.probe.caches import Inventory, Place, inventory
from ampenv.util import atomic, files, saferm
from ampenv.util.formats import count, human_bytes


def lock_name(euid: int) -> str:
    """The cleaners' lock (through the sysroot): root's in /run, which only root can write;
    another user's in /tmp (sticky: nobody else can replace a file of theirs there)."""
    return "/run/ampenv-clean.lock" if euid == 0 else f"/tmp/ampenv-clean-{euid}.lock"


LOCK = lock_name(os.geteuid())


def write_marker(root: Path, version: str, when: float) -> None:
    stamp = _dt.datetime.fromtimestamp(when, _dt.timezone.utc).isoformat(timespec="microseconds")
    text = (
        "# written by `ampenv clean`: the CANN toolkit installed when this cache was last\n"
        f"# cleaned; entries built since were built by it\nversion={version}\ncleaned_at={stamp}\n"
    )
    atomic.write_text(root / MARKER, text)  # a planted link or device there is refused


@dataclass
class Item:
    path: Path
    root: Path
    place: str
    bytes: int
    reason: str
    whole_root: bool = True  # a process holding anything below the root keeps this item
    root_id: Optional[tuple[int, int]] = None  # (device, inode) of the root when scanned
    # Asked again of every mtime at removal: is the entry still stale? (None: --all)
    still_stale: Optional[Callable[[float], bool]] = None


@dataclass
class Refusal:
    path: str
    reason: str


@dataclass
class Plan:
    inventory: Inventory
    items: list[Item] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    uninspected: int = 0  # processes whose open files could not be seen

    @property
    def bytes(self) -> int:
        return sum(i.bytes for i in self.items)


def make_plan(
    probe: Probe,
    cfg: dict[str, Any],
    *,
    everything: bool = False,
    logs: bool = True,
    now: Optional[float] = None,
) -> Plan:
    """Exactly what a cleaning would remove, and what it refuses to touch and why."""
    plan = Plan(inventory(probe, cfg, now=now))
    seen: set[Path] = set()  # a log file below two nested log places goes once
    for place in plan.inventory.places:
        if place.refused:
            plan.refused.append(Refusal(place.root, place.refused))
            continue
        if (place.kind == "log" and not logs) or (place.kind == "torch" and not everything):
            continue
        for entry in place.entries:
            reason = "--all" if everything else entry.stale
            if not reason or entry.path in seen:
                continue
            seen.add(entry.path)
            if entry.holds_root:
                continue  # another place: its own entries are judged there, the root stays
            if entry.other_fs:
                why = f"crosses a mount point (a filesystem or bind mount) at {entry.other_fs}"
                plan.refused.append(Refusal(str(entry.path), why))
            else:
                item = Item(entry.path, place.path, place.label, entry.bytes, reason)
                item.root_id = place.id
                if not everything:
                    item.still_stale = _stale_at_removal(place, plan.inventory, cfg)
                # A running job reads any kernel of its cache, but writes only its own logs.
                item.whole_root = place.kind != "log"
                plan.items.append(item)
    _refuse_held(plan)
    return plan


def _stale_at_removal(place: Place, inv: Inventory, cfg: dict[str, Any]) -> Callable[[float], bool]:
    """The staleness rule of ``place``, judged when removal comes (with the clock then)."""

    def still_stale(mtime: float) -> bool:
        now = time.time()
        return stale_reason(place.kind, mtime, place.marker, inv.toolkit, cfg, now) is not None

    return still_stale


def _refuse_held(plan: Plan) -> None:
    """Move every item a live process holds into the refusals: for a cache, anything held
    below its root; for a log file, the file itself."""
    roots = sorted({os.path.realpath(i.root) for i in plan.items})
    if not roots:
        return
    held, plan.uninspected = saferm.find_holders(roots)
    kept = []
    for item in plan.items:
        holders = held.get(os.path.realpath(item.root), [])
        if not item.whole_root:
            mine = os.path.realpath(item.path)
            holders = [h for h in holders if saferm.within(h.path, mine)]
        if holders:
            h = holders[0]
            where = item.root if item.whole_root else item.path
            why = f"{where} is in use: pid {h.pid} ({h.name}) holds {h.path}"
            plan.refused.append(Refusal(str(item.path), why))
        else:
            kept.append(item)
    plan.items = kept


class CleanRefused(Exception):
    """Cleaning cannot start: another cleaner runs, its lock is no regular file, or the probe
    reads a bundle. Its exit code: 3 where it could not clean now (another cleaner: nothing
    said of the node's health), 1 where a person must look (a link or a device planted at the
    lock), 2 where it was asked of what it never cleans (a bundle)."""

    def __init__(self, why: str, exit_code: int = 3) -> None:
        super().__init__(why)
        self.exit_code = exit_code


@dataclass
class CleanResult:
    plan: Plan
    dry_run: bool
    removed: list[Item] = field(default_factory=list)
    failed: list[Refusal] = field(default_factory=list)

    @property
    def freed(self) -> int:
        return sum(i.bytes for i in self.removed)

    @property
    def exit_code(self) -> int:
        """0 when everything stale went (or would go); 1 when something needs a person."""
        return 1 if self.plan.refused or self.failed else 0


def clean(
    probe: Probe,
    cfg: dict[str, Any],
    *,
    dry_run: bool = True,
    everything: bool = False,
    logs: bool = True,
    wait: float = 10.0,
    progress: Optional[Callable[[Item], None]] = None,
) -> CleanResult:
    """Plan, and unless ``dry_run`` remove, holding the cleaners' lock throughout."""
    if probe.offline:
        raise CleanRefused("a support bundle is read-only: run `ampenv clean` on the node", 2)
    if dry_run:
        return CleanResult(make_plan(probe, cfg, everything=everything, logs=logs), True)
    try:
        with saferm.exclusive(probe.path(LOCK), wait):
            plan = make_plan(probe, cfg, everything=everything, logs=logs)
            result = CleanResult(plan, False)
            for item in plan.items:
                try:
                    saferm.remove(
                        item.path, item.root, root_id=item.root_id, judge=item.still_stale
                    )
                except OSError as exc:
                    result.failed.append(Refusal(str(item.path), exc.strerror or str(exc)))
                    continue
                result.removed.append(item)
                if progress:
                    progress(item)
            _stamp(result)
    except saferm.CleanerBusy as exc:
        raise CleanRefused(str(exc)) from None
    except files.Unsafe as exc:
        raise CleanRefused(f"the cleaners' lock: {exc.strerror}", 1) from None
    return result


def _stamp(result: CleanResult) -> None:
    """Mark each compile cache left holding only what the installed CANN built."""
    toolkit = result.plan.inventory.toolkit
    if toolkit is None:
        return
    left = [r.path for r in (*result.plan.refused, *result.failed)]
    now = time.time()
    for place in result.plan.inventory.places:
        if place.kind != "compile" or place.refused or not place.exists:
            continue
        if any(saferm.within(p, str(place.path)) for p in left):
            continue
        try:
            write_marker(place.path, toolkit.version, now)
        except OSError:
            continue  # a read-only cache keeps its entries' mtimes as the only evidence


def describe(result: CleanResult) -> str:
    """One line: what a cleaning did (the ``--fix`` line)."""
    n = len(result.removed)
    freed = result.freed
    line = f"removed {count(n, 'stale cache entry', 'stale cache entries')}, freed {freed} bytes"
    line += f" ({human_bytes(freed)})"
    if not result.plan.items and not result.plan.refused:
        line = "nothing stale to remove"
    kept = len(result.plan.refused) + len(result.failed)
    if kept:
        first = (result.plan.refused + result.failed)[0]
        line += f"; {kept} refused or failed, first: {first.path}: {first.reason}"
    return line
