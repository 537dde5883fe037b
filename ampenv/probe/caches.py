"""The known cache and log places of a training node, what in them is stale, and cleaning.

Places (``PLACES``, one row each): the CANN operator compile caches (ACL_OP_COMPILER_CACHE_DIR,
ASCEND_CACHE_PATH/kernel_cache, ~/atc_data, ./kernel_meta), the CANN logs
(ASCEND_PROCESS_LOG_PATH, ASCEND_WORK_PATH/log, ~/ascend/log), torch's caches (extensions,
inductor, torchair) and the site's own ``[cache] roots``. Every path is seen through the probe,
so a sysroot plants a whole node.

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
Removal itself follows the rules in :mod:`ampenv.util.saferm`.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
import pwd
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ampenv.probe import Probe, cann
from ampenv.util import saferm

MARKER = ".ampenv-cann"
LOCK = "/tmp/ampenv-clean.lock"  # one per node (through the sysroot), shared by all users
DAY = 86400.0


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


def human_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover - the loop returns


def count(n: int, one: str, many: str = "") -> str:
    """``1 entry``, ``2 entries``, ``0 files``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def iso(ts: Optional[float]) -> Optional[str]:
    if ts is None:
        return None
    when = _dt.datetime.fromtimestamp(ts, _dt.timezone.utc)
    return when.isoformat(timespec="seconds").replace("+00:00", "Z")


# -- the installed toolkit ---------------------------------------------------------------------
@dataclass(frozen=True)
class Toolkit:
    version: str
    info: str  # ascend_toolkit_install.info, as a system path
    installed_at: Optional[float]  # its mtime: when this CANN was installed


def installed_toolkit(probe: Probe) -> Optional[Toolkit]:
    """The toolkit the environment uses (``ampenv.probe.cann``), with its install time."""
    found = cann.discover(probe).toolkit
    if found is None or not found.version or not found.info_path:
        return None
    return Toolkit(found.version, found.info_path, probe.mtime(found.info_path))


# -- ampenv's marker in a compile cache --------------------------------------------------------
@dataclass(frozen=True)
class Marker:
    version: str  # the CANN installed when ampenv last cleaned this cache
    cleaned_at: float


def read_marker(root: Path) -> Optional[Marker]:
    try:
        fd = os.open(root / MARKER, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, encoding="utf-8", errors="replace") as fh:
            fields = cann.parse_key_values(fh.read(4096))
        cleaned = _dt.datetime.fromisoformat(fields["cleaned_at"]).timestamp()
        return Marker(fields["version"], cleaned)
    except (OSError, KeyError, ValueError):
        return None


def write_marker(root: Path, version: str, when: float) -> None:
    stamp = _dt.datetime.fromtimestamp(when, _dt.timezone.utc).isoformat(timespec="microseconds")
    text = (
        "# written by `ampenv clean`: the CANN toolkit installed when this cache was last\n"
        f"# cleaned; entries built since were built by it\nversion={version}\ncleaned_at={stamp}\n"
    )
    tmp = root / f"{MARKER}.{os.getpid()}.tmp"
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, root / MARKER)  # replaces a planted link itself, never its target


# -- places and what is in them ----------------------------------------------------------------
@dataclass
class Entry:
    """One removable unit: a top-level child of a cache, or one log file."""

    path: Path
    bytes: int = 0
    files: int = 0
    newest: float = 0.0
    complete: bool = True  # False: the scan's time budget ran out inside it
    other_fs: Optional[str] = None  # a folder below it on another filesystem
    holds_root: Optional[str] = None  # another known place lies inside it
    stale: Optional[str] = None  # why it is stale


@dataclass
class Place:
    label: str
    kind: str
    root: str  # system path
    path: Path  # as seen through the sysroot
    source: str  # what named it: "VAR=value", "default" or "[cache] roots"
    refused: Optional[str] = None
    exists: bool = False
    entries: list[Entry] = field(default_factory=list)
    marker: Optional[Marker] = None

    @property
    def bytes(self) -> int:
        return sum(e.bytes for e in self.entries)

    @property
    def stale(self) -> list[Entry]:
        return [e for e in self.entries if e.stale]

    def to_fact(self) -> dict[str, Any]:
        newest = max((e.newest for e in self.entries), default=None)
        return {
            "place": self.label,
            "path": self.root,
            "kind": self.kind,
            "source": self.source,
            "exists": self.exists,
            "refused": self.refused,
            "bytes": self.bytes,
            "files": sum(e.files for e in self.entries),
            "newest": iso(newest),
            "complete": all(e.complete for e in self.entries),
            "built_by_marker": self.marker.version if self.marker else None,
            "stale_entries": len(self.stale),
            "stale_bytes": sum(e.bytes for e in self.stale),
        }


def _homes(probe: Probe) -> list[str]:
    """Every home directory: $HOME, root's, and those in /etc/passwd."""
    homes = [probe.env.get("HOME", ""), "/root"]
    for line in (probe.read_text("/etc/passwd") or "").splitlines():
        fields = line.split(":")
        if len(fields) >= 6:
            homes.append(fields[5])
    return [h for h in homes if h.startswith("/")]


def _user(env: dict[str, str]) -> str:
    name = env.get("USER") or env.get("LOGNAME")
    if name:
        return name
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


def _absolute(value: str, cwd: str) -> str:
    return os.path.normpath(os.path.join(cwd, value))


def resolve_places(probe: Probe, roots: list[Any]) -> list[Place]:
    """The places this environment names, each judged against the safety rules."""
    env, cwd = probe.env, os.getcwd()
    fill = {"home": env.get("HOME", ""), "cwd": cwd, "user": _user(env)}
    found: list[tuple[Place, str]] = []  # with the folder its variable names
    for spec in PLACES:
        value = env.get(spec.var, "") if spec.var else ""
        if value:
            guard = _absolute(value, cwd)
            root, source = os.path.normpath(os.path.join(guard, spec.sub)), f"{spec.var}={value}"
        elif spec.default and not ("{home}" in spec.default and not fill["home"]):
            guard = root = os.path.normpath(spec.default.format(**fill))
            source = "default"
        else:
            continue
        found.append((Place(spec.label, spec.kind, root, probe.path(root), source), guard))
    for value in roots:
        root = os.path.normpath(str(value))
        place = Place(f"[cache] roots: {value}", "site", root, probe.path(root), "[cache] roots")
        found.append((place, root))

    homes, places, seen = _homes(probe), [], set()
    for place, guard in found:
        real = os.path.realpath(place.path)
        if real in seen:
            continue
        seen.add(real)
        place.refused = _refusal(probe, place, guard, homes)
        places.append(place)
    return places


def _resolved(probe: Probe, path: str) -> Optional[str]:
    """A system path with its links followed, or None when they lead out of the sysroot."""
    top = os.path.realpath(probe.sysroot) if probe.sysroot else "/"
    real = os.path.realpath(probe.path(path))
    if not saferm.within(real, top):
        return None
    rel = os.path.relpath(real, top)
    return "/" if rel == "." else "/" + rel


def _refusal(probe: Probe, place: Place, guard: str, homes: list[str]) -> Optional[str]:
    """Why ampenv will never clean below this place, or None. Both the folder the variable
    names and the place itself are judged, as written and with their links followed."""
    if not place.root.startswith("/"):
        return f"{place.source}: {place.root} is not an absolute path"
    for path in dict.fromkeys((guard, place.root)):
        resolved = _resolved(probe, path)
        if resolved is None:
            return f"{place.source}: {path} resolves to a folder outside the sysroot"
        for seen in dict.fromkeys((path, resolved)):
            reason = saferm.protected_reason(seen, homes)
            if reason:
                how = "" if seen == path else f"{path} resolves to {seen}, and "
                return f"{place.source}: {how}{reason}"
    if os.path.islink(place.path):
        return (
            f"{place.source}: {place.root} is a symbolic link; ampenv does not follow links "
            "(name the folder it points to in [cache] roots)"
        )
    return None


class _Budget:
    def __init__(self, seconds: Optional[float]) -> None:
        self.deadline = time.monotonic() + seconds if seconds else math.inf

    @property
    def spent(self) -> bool:
        return time.monotonic() >= self.deadline


def _measure_one(entry: Entry, st: os.stat_result) -> None:
    entry.files += 1
    entry.newest = max(entry.newest, st.st_mtime)
    if stat.S_ISREG(st.st_mode):
        entry.bytes += st.st_size


def _measure(path: Path, dev: int, budget: _Budget) -> Entry:
    """Size and newest mtime of a file or tree, never following a link or leaving ``dev``."""
    entry = Entry(path)
    try:
        st = os.lstat(path)
    except OSError:
        return entry
    if not stat.S_ISDIR(st.st_mode):
        _measure_one(entry, st)
        return entry
    for dirpath, dirnames, filenames in os.walk(path, followlinks=False):
        if budget.spent:
            entry.complete = False
            break
        try:
            dst = os.lstat(dirpath)
        except OSError:
            continue
        if dst.st_dev != dev:
            entry.other_fs = entry.other_fs or dirpath
            dirnames.clear()
            continue
        entry.newest = max(entry.newest, dst.st_mtime)
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if d not in links]
        for name in (*filenames, *links):
            try:
                _measure_one(entry, os.lstat(os.path.join(dirpath, name)))
            except OSError:
                continue
    return entry


def _log_files(root: Path, dev: int) -> list[Path]:
    """Every file (and link) below a log root, on the root's filesystem."""
    files = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        try:
            if os.lstat(dirpath).st_dev != dev:
                dirnames.clear()
                continue
        except OSError:
            continue
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if d not in links]
        files += [Path(dirpath, n) for n in (*filenames, *links)]
    return files


def _scan_place(place: Place, others: list[str], budget: _Budget) -> None:
    try:
        st = os.lstat(place.path)
    except OSError:
        return
    place.exists = stat.S_ISDIR(st.st_mode)
    if not place.exists:
        return
    if place.kind == "compile":
        place.marker = read_marker(place.path)
    if place.kind == "log":
        units = _log_files(place.path, st.st_dev)
    else:
        try:
            names = sorted(os.listdir(place.path))
        except OSError:
            return
        units = [place.path / n for n in names if not n.startswith(MARKER)]
    for unit in units:
        inner = next((o for o in others if saferm.within(o, os.path.realpath(unit))), None)
        if inner:
            place.entries.append(Entry(unit, holds_root=inner))
        elif budget.spent:
            place.entries.append(Entry(unit, complete=False))
        else:
            place.entries.append(_measure(unit, st.st_dev, budget))


def stale_reason(
    place: Place, entry: Entry, toolkit: Optional[Toolkit], cfg: dict[str, Any], now: float
) -> Optional[str]:
    """Why an entry is stale, or None; an entry the scan did not finish is never judged."""
    if not entry.complete or entry.holds_root:
        return None
    if place.kind == "compile":
        return _built_by_other_cann(entry.newest, place.marker, toolkit)
    if place.kind in ("log", "site"):
        days = float(cfg.get("stale_after_days", 30.0))
        if entry.newest < now - days * DAY:
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
        day = iso(toolkit.installed_at)[:10]  # type: ignore[index]
        by = f", by CANN {other} (ampenv's marker)" if other else ""
        return f"built before CANN {toolkit.version} was installed on {day}{by}"
    if other:
        return f"built by CANN {other} (ampenv's marker); CANN {toolkit.version} is installed"
    return None


@dataclass
class Inventory:
    places: list[Place]
    toolkit: Optional[Toolkit]
    disk_free: dict[str, int]  # one place root per filesystem -> free bytes
    walked: bool = True  # False offline: a support bundle holds no caches to measure

    @property
    def complete(self) -> bool:
        return all(e.complete for p in self.places for e in p.entries)

    @property
    def last_cleaned(self) -> Optional[float]:
        """When ampenv last cleaned a compile cache (the newest marker)."""
        return max((p.marker.cleaned_at for p in self.places if p.marker), default=None)


def inventory(
    probe: Probe,
    cfg: dict[str, Any],
    *,
    budget: Optional[float] = None,
    now: Optional[float] = None,
) -> Inventory:
    """Every place with its entries, sizes and staleness. Not memoised: ``--fix`` changes it
    and the check then looks again. ``budget`` bounds the walk (entries left unmeasured are
    marked incomplete and never judged)."""
    now = time.time() if now is None else now
    places = resolve_places(probe, list(cfg.get("roots") or []))
    toolkit = installed_toolkit(probe)
    timer = _Budget(budget)
    accepted = [os.path.realpath(p.path) for p in places if not p.refused]
    for place in places:
        if place.refused or probe.offline:
            continue
        mine = os.path.realpath(place.path)
        others = [o for o in accepted if o != mine and saferm.within(o, mine)]
        _scan_place(place, others, timer)
        for entry in place.entries:
            entry.stale = stale_reason(place, entry, toolkit, cfg, now)
    disk_free: dict[str, int] = {}
    devices: set[int] = set()
    for place in places:
        usage = probe.disk_usage(place.root) if not place.refused else None
        if usage and usage["dev"] not in devices:
            devices.add(usage["dev"])
            disk_free[place.root] = usage["free"]
    return Inventory(places, toolkit, disk_free, walked=not probe.offline)


# -- the cleaning plan and its execution -------------------------------------------------------
@dataclass
class Item:
    path: Path
    root: Path
    place: str
    bytes: int
    reason: str
    whole_root: bool = True  # a process holding anything below the root keeps this item


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
                why = f"crosses into another filesystem at {entry.other_fs}"
                plan.refused.append(Refusal(str(entry.path), why))
            else:
                item = Item(entry.path, place.path, place.label, entry.bytes, reason)
                # A running job reads any kernel of its cache, but writes only its own logs.
                item.whole_root = place.kind != "log"
                plan.items.append(item)
    _refuse_held(plan)
    return plan


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
    """Cleaning cannot start: another cleaner runs, or the probe reads a bundle."""


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
        raise CleanRefused("a support bundle is read-only: run `ampenv clean` on the node")
    if dry_run:
        return CleanResult(make_plan(probe, cfg, everything=everything, logs=logs), True)
    try:
        with saferm.exclusive(probe.path(LOCK), wait):
            plan = make_plan(probe, cfg, everything=everything, logs=logs)
            result = CleanResult(plan, False)
            for item in plan.items:
                try:
                    saferm.remove(item.path, item.root)
                except OSError as exc:
                    result.failed.append(Refusal(str(item.path), exc.strerror or str(exc)))
                    continue
                result.removed.append(item)
                if progress:
                    progress(item)
            _stamp(result)
    except saferm.CleanerBusy as exc:
        raise CleanRefused(str(exc)) from None
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
