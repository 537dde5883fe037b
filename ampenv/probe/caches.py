"""What is in the cache and log places of this node: each place the environment names, judged
against the removal rules, its top-level entries measured (size, files, newest mtime) within a
time budget, and each entry's staleness by the rules of :mod:`ampenv.knowledge.caches`.
Every path is seen through the probe, so a sysroot plants a whole node.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import math
import os
import pwd
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from ampenv.knowledge.caches import MARKER, PLACES, Marker, Toolkit, stale_reason
from ampenv.probe import Probe, cann
from ampenv.util import bounded, saferm
from ampenv.util.formats import utc_iso_or_none


# -- the installed toolkit ---------------------------------------------------------------------
def installed_toolkit(probe: Probe) -> Optional[Toolkit]:
    """The toolkit the environment uses (``ampenv.probe.cann``), with its install time."""
    found = cann.discover(probe).toolkit
    if found is None or not found.version or not found.info_path:
        return None
    return Toolkit(found.version, found.info_path, probe.mtime(found.info_path))


# -- ampenv's marker in a compile cache --------------------------------------------------------
def read_marker(root: Path) -> Optional[Marker]:
    try:
        raw = bounded.read_head(root / MARKER, 4096, follow=False)  # never a FIFO's wait
        fields = cann.parse_key_values(raw.decode("utf-8", "replace"))
        cleaned = _dt.datetime.fromisoformat(fields["cleaned_at"]).timestamp()
        return Marker(fields["version"], cleaned)
    except (OSError, KeyError, ValueError):
        return None


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
    id: Optional[tuple[int, int]] = None  # (device, inode) of the root folder when scanned

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
            "newest": utc_iso_or_none(newest),
            "complete": all(e.complete for e in self.entries),
            "built_by_marker": self.marker.version if self.marker else None,
            "stale_entries": len(self.stale),
            "stale_bytes": sum(e.bytes for e in self.stale),
        }


def _homes(probe: Probe) -> list[str]:
    """Every home directory: $HOME, root's, those in /etc/passwd and, on a live node, those of
    the user database (``pwd.getpwall``: LDAP and sssd users too, where it enumerates them)."""
    homes = [probe.env.get("HOME", ""), "/root"]
    for line in (probe.read_text("/etc/passwd") or "").splitlines():
        fields = line.split(":")
        if len(fields) >= 6:
            homes.append(fields[5])
    if not probe.offline:
        with contextlib.suppress(OSError):
            homes += [entry.pw_dir for entry in pwd.getpwall()]
    return list(dict.fromkeys(h for h in homes if h.startswith("/")))


# torch's own rule for the user name in /tmp/torchinductor_<user>
# (torch/_inductor/runtime/cache_dir_utils.py: re.sub(r'[\\/:*?"<>|]', "_", getuser()))
_UNSAFE_IN_USER = re.compile(r'[\\/:*?"<>|]')


def _user(env: dict[str, str]) -> str:
    """The user name as torch puts it in a path: ``/`` and the like become ``_``, so that no
    ``USER`` value can build a path outside the cache (``USER='x/../../data'``)."""
    name = env.get("USER") or env.get("LOGNAME")
    if not name:
        try:
            name = pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            name = str(os.getuid())
    return _UNSAFE_IN_USER.sub("_", name)


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
    guards = _Guards.of(probe, homes)
    for place, guard in found:
        real = os.path.realpath(place.path)
        if real in seen:
            continue
        seen.add(real)
        place.refused = _refusal(probe, place, guard, homes, guards)
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


def _refusal(
    probe: Probe, place: Place, guard: str, homes: list[str], guards: _Guards
) -> Optional[str]:
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
    same = guards.reason(place)
    return f"{place.source}: {same}" if same else None


def _identity(path: Path) -> Optional[tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def _ancestors(path: Path, top: Path) -> list[Path]:
    """``path`` and every folder above it, up to ``top`` (the sysroot, or /)."""
    out, here = [], Path(os.path.realpath(path))
    while True:
        out.append(here)
        if here == top or here.parent == here:
            return out
        here = here.parent


@dataclass
class _Guards:
    """The protected folders by device and inode, which a bind mount or a link cannot disguise:
    homes, shared and system folders, and every folder above a home."""

    top: Path
    protected: dict[tuple[int, int], tuple[str, str]]
    above_homes: dict[tuple[int, int], str]

    @classmethod
    def of(cls, probe: Probe, homes: list[str]) -> _Guards:
        top = Path(os.path.realpath(probe.sysroot or "/"))
        protected: dict[tuple[int, int], tuple[str, str]] = {}
        above: dict[tuple[int, int], str] = {}
        for what, folders in (  # the first name of a folder wins: system, shared, home
            ("a system directory", saferm.SYSTEM_DIRS),
            ("a shared system folder", saferm.SHARED_DIRS),
            ("a home directory", homes),
        ):
            for folder in folders:
                ident = _identity(probe.path(folder))
                if ident is not None:
                    protected.setdefault(ident, (folder, what))
        for home in homes:
            for parent in _ancestors(probe.path(home), top)[1:]:
                ident = _identity(parent)
                if ident is not None:
                    above.setdefault(ident, home)
        return cls(top, protected, above)

    def reason(self, place: Place) -> Optional[str]:
        chain = [_identity(p) for p in _ancestors(place.path, self.top)]
        mine = chain[0]
        if mine is None:
            return None
        if mine in self.protected:
            folder, what = self.protected[mine]
            return f"{place.root} is the same folder as {folder}, {what} (a bind mount or a link)"
        for ident in chain[1:]:
            folder, what = self.protected.get(ident, ("", ""))  # type: ignore[arg-type]
            if what == "a system directory":
                return f"{place.root} is inside {folder}, {what} (by device and inode)"
        if mine in self.above_homes:
            return f"{place.root} contains the home directory {self.above_homes[mine]}"
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


def _measure(path: Path, dev: int, budget: _Budget, mounts: set[str]) -> Entry:
    """Size and newest mtime of a file or tree, never following a link, leaving ``dev`` or
    entering a mount point (a bind mount keeps the device number: the mount table tells)."""
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
        if dst.st_dev != dev or os.path.realpath(dirpath) in mounts:
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


def _log_files(root: Path, dev: int, mounts: set[str], others: list[str]) -> list[Path]:
    """Every file (and link) below a log root, on the root's filesystem and mount, outside the
    other places below it (``others``: their paths and real paths; a cache in the log folder
    is judged by its own rule there, or left alone where it was refused)."""

    def theirs(path: str) -> bool:  # in another place, or a place named through it (a link)
        return any(saferm.within(path, o) or saferm.within(o, path) for o in others)

    files = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        try:
            real = os.path.realpath(dirpath)
            inner = dirpath != str(root) and (real in mounts or theirs(real) or theirs(dirpath))
            if os.lstat(dirpath).st_dev != dev or inner:
                dirnames.clear()
                continue
        except OSError:
            continue
        links = [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        dirnames[:] = [d for d in dirnames if d not in links]
        files += [
            Path(dirpath, n)
            for n in (*filenames, *links)
            if _removable(dirpath, n) and not theirs(os.path.join(dirpath, n))
        ]
    return files


def _removable(folder: Union[str, Path], name: str) -> bool:
    """Whether the remover would take ``name`` at all (saferm.removable_kind): listed only then."""
    try:
        return saferm.removable_kind(os.lstat(os.path.join(folder, name)).st_mode)
    except OSError:
        return False


def _scan_place(
    place: Place, others: list[str], budget: _Budget, mounts: set[str], known: list[str]
) -> None:
    try:
        st = os.lstat(place.path)
    except OSError:
        return
    place.exists = stat.S_ISDIR(st.st_mode)
    if not place.exists:
        return
    place.id = (st.st_dev, st.st_ino)
    if place.kind == "compile":
        place.marker = read_marker(place.path)
    if place.kind == "log":
        units = _log_files(place.path, st.st_dev, mounts, known)
    else:
        try:
            names = sorted(os.listdir(place.path))
        except OSError:
            return
        units = [
            place.path / n for n in names if not n.startswith(MARKER) and _removable(place.path, n)
        ]
    for unit in units:
        inner = next((o for o in others if saferm.within(o, os.path.realpath(unit))), None)
        # a place named through it, refused ones too (a link that is another place's name)
        inner = inner or next((o for o in known if saferm.within(o, os.path.normpath(unit))), None)
        if inner:
            place.entries.append(Entry(unit, holds_root=inner))
        elif budget.spent:
            place.entries.append(Entry(unit, complete=False))
        else:
            place.entries.append(_measure(unit, st.st_dev, budget, mounts))


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


def _reached(probe: Probe, place: Place) -> set[str]:
    """The ways a place's folder is reached: as named, through the host's links, and through
    the sysroot's (an absolute link inside it leads to the sysroot's folder)."""
    inside = probe.path(cann.resolve(probe, place.root))
    return {os.path.normpath(place.path), os.path.realpath(place.path), os.path.normpath(inside)}


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
    # every place's folder, refused ones too (a cache named through a link), however reached
    named = set().union(*(_reached(probe, p) for p in places))
    mounts = saferm.mount_points() if not probe.offline else set()
    for place in places:
        if place.refused or probe.offline:
            continue
        mine = os.path.realpath(place.path)
        others = [o for o in accepted if o != mine and saferm.within(o, mine)]
        own = {mine, os.path.normpath(place.path)}
        known = [o for o in named if o not in own and any(saferm.within(o, m) for m in own)]
        _scan_place(place, others, timer, mounts, known)
        # an entry the scan did not finish, or one that holds another place, is never judged
        for entry in place.entries:
            if entry.complete and not entry.holds_root:
                entry.stale = stale_reason(
                    place.kind, entry.newest, place.marker, toolkit, cfg, now
                )
    disk_free: dict[str, int] = {}
    devices: set[int] = set()
    for place in places:
        usage = probe.disk_usage(place.root) if not place.refused else None
        if usage and usage["dev"] not in devices:
            devices.add(usage["dev"])
            disk_free[place.root] = usage["free"]
    return Inventory(places, toolkit, disk_free, walked=not probe.offline)
