"""Installed Python distributions, from metadata only: nothing is imported.

Versions of torch and torch_npu, a ``pip check`` of the environment (Requires-Dist with their
markers and the extras other distributions ask for), and the shared libraries a distribution's
extension modules need, read from their ELF headers.
"""

from __future__ import annotations

import csv
import functools
import os
import re
import sys
from collections import deque
from dataclasses import dataclass, field
from importlib import metadata
from typing import TYPE_CHECKING, Optional

from ampenv.probe.distinfo import canonical as canonicalize_name

# packaging.requirements (and the markers, tags and specifiers it pulls in) costs ~35 ms to
# import: it is imported where a requirement is parsed, not here. ampenv.probe.elf likewise
# where torch_npu's libraries are resolved.
if TYPE_CHECKING:
    from packaging.requirements import Requirement

    from ampenv.probe import Probe, elf

LD_CACHE = "/etc/ld.so.cache"


@dataclass
class Dist:
    name: str  # canonical: torch-npu
    version: str
    requires: list[str]
    raw: Optional[metadata.Distribution]  # None: known from a bundle's recorded list only

    @property
    def root(self) -> str:
        """The folder it is installed into (site-packages)."""
        return os.path.normpath(str(self.raw.locate_file(""))) if self.raw else ""

    @property
    def entry_point_groups(self) -> set[str]:
        return {ep.group for ep in self.raw.entry_points} if self.raw else set()

    @functools.cached_property
    def shared_objects(self) -> list[str]:
        """Paths of the ELF shared objects its RECORD lists. RECORD is scanned as text: torch's
        has 15000 lines, and ``Distribution.files`` takes half a second over them."""
        if self.raw is None:
            return []
        record = self.raw.read_text("RECORD")
        if record is None:  # not a wheel install: use whatever file list it has
            names = [str(f) for f in self.raw.files or ()]
        else:
            names = [
                next(csv.reader([line]))[0] if line.startswith('"') else line.split(",", 1)[0]
                for line in record.splitlines()
                if ".so" in line
            ]
        base = str(self.raw.locate_file(""))
        return [
            os.path.normpath(os.path.join(base, name))
            for name in names
            if name.endswith(".so") or ".so." in os.path.basename(name)
        ]


def _headers(dist: metadata.Distribution) -> tuple[dict[str, str], list[str]]:
    """Name, Version and Requires-Dist from the metadata's header block. Ten times faster than
    ``dist.metadata``, which parses the whole file, long description included."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    fields: dict[str, str] = {}
    requires: list[str] = []
    for line in text.split("\n"):
        if not line.strip():
            break  # the body (the long description) starts here
        key, _, value = line.partition(":")
        if key == "Requires-Dist":
            requires.append(value.strip())
        elif key in ("Name", "Version"):
            fields[key] = value.strip()
    return fields, requires


def _load(dist: metadata.Distribution) -> Optional[Dist]:
    fields, requires = _headers(dist)
    if not fields.get("Name") or not fields.get("Version"):
        return None
    if not requires and dist.read_text("METADATA") is None:
        requires = list(dist.requires or ())  # egg-info keeps them in requires.txt
    return Dist(canonicalize_name(fields["Name"]), fields["Version"], requires, dist)


def scan(path: Optional[list[str]] = None) -> dict[str, Dist]:
    """The distributions on ``path`` (default: sys.path), by canonical name; the first one on
    the path wins, as for import."""
    found: dict[str, Dist] = {}
    for raw in metadata.distributions(path=sys.path if path is None else path):
        d = _load(raw)
        if d is not None:
            found.setdefault(d.name, d)
    return found


def installed(probe: Probe) -> dict[str, Dist]:
    """The distributions this interpreter sees, memoised. Offline, a bundle's recorded names and
    versions (no requirements, no files)."""
    if probe.offline:
        recorded = probe.distributions().items()
        return {canonicalize_name(n): Dist(canonicalize_name(n), v, [], None) for n, v in recorded}
    return probe.fact("python.dists", scan)


# -- pip check ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    """One requirement of an installed distribution that the environment does not meet."""

    by: str  # canonical name of the distribution that requires it
    by_label: str  # name==version, with [extra] when an extra asked for it
    requirement: str  # as written, without its marker
    name: str  # canonical name of what is required
    installed: Optional[str]  # its installed version, None when missing

    def describe(self) -> str:
        if self.installed is None:
            return f"{self.by_label} requires {self.requirement}, which is not installed"
        return f"{self.by_label} requires {self.requirement}, but {self.installed} is installed"

    @property
    def fix(self) -> str:
        return f'pip install "{self.requirement}"'


def _applies(req: Requirement, extra: str) -> bool:
    from packaging.markers import UndefinedEnvironmentName

    if req.marker is None:
        return not extra  # an unmarked requirement belongs to the base set only
    try:
        return req.marker.evaluate({"extra": extra})
    except UndefinedEnvironmentName:
        return False


# A marker that is only ``extra == "name"``, as most Requires-Dist lines of a wheel are.
EXTRA_ONLY = r"""\s*extra\s*==\s*(['"])([^'"]*)\1\s*"""


def _for_another_extra(line: str, extra: str) -> bool:
    """True when the line's marker is only ``extra == "x"`` for an x other than ``extra``: the
    requirement cannot apply, so it need not be parsed (parsing every line was most of this
    check's time). Without a URL (``@``), the first ``;`` starts the marker; x is compared
    normalised, as packaging does (one that differs normalised differs raw, too)."""
    if "@" in line:
        return False
    _, sep, marker = line.partition(";")
    only = re.fullmatch(EXTRA_ONLY, marker) if sep else None
    return only is not None and canonicalize_name(only.group(2)) != canonicalize_name(extra)


def conflicts(dists: dict[str, Dist]) -> list[Conflict]:
    """What ``pip check`` reports: each requirement (base, and each extra some other installed
    distribution asks for) whose marker holds here and that is missing or of the wrong version.
    Pre-releases satisfy a specifier, as in pip check."""
    from packaging.requirements import InvalidRequirement, Requirement

    parsed: dict[str, Optional[Requirement]] = {}

    def parse(line: str) -> Optional[Requirement]:
        if line not in parsed:
            try:
                parsed[line] = Requirement(line)
            except InvalidRequirement:
                parsed[line] = None  # pip check skips what it cannot parse, too
        return parsed[line]

    found: list[Conflict] = []
    queue = deque((name, "") for name in dists)
    done: set[tuple[str, str]] = set(queue)
    while queue:
        name, extra = queue.popleft()
        d = dists[name]
        who = f"{name}[{extra}]=={d.version}" if extra else f"{name}=={d.version}"
        for line in d.requires:
            if _for_another_extra(line, extra):
                continue
            req = parse(line)
            if req is None or not _applies(req, extra):
                continue
            target = canonicalize_name(req.name)
            spec = str(req.specifier)
            requirement = req.name + (f"[{','.join(sorted(req.extras))}]" if req.extras else "")
            requirement += spec
            have = dists.get(target)
            if have is None:
                found.append(Conflict(name, who, requirement, target, None))
                continue
            if not _satisfies(have.version, req):
                found.append(Conflict(name, who, requirement, target, have.version))
            for wanted in req.extras:
                key = (target, canonicalize_name(wanted))
                if key not in done:
                    done.add(key)
                    queue.append(key)
    return found


def _satisfies(version: str, req: Requirement) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return req.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return req.specifier.contains(version, prereleases=True)


# -- the shared libraries a distribution needs -------------------------------------------------


@dataclass
class LibraryNeeds:
    """What the extension modules of one distribution need from the dynamic loader.

    ``at_import``: needs of the top-level extension modules (``torch_npu/_C*.so``) and what they
    load, which ``import torch_npu`` opens at once. ``on_demand``: needs only of deeper ones
    (torchair, plugins), opened when that feature is used."""

    modules: list[str] = field(default_factory=list)  # the top-level extension modules
    at_import: list[elf.Need] = field(default_factory=list)
    on_demand: list[elf.Need] = field(default_factory=list)
    unreadable: list[str] = field(default_factory=list)

    @staticmethod
    def missing(needs: list[elf.Need]) -> dict[str, list[str]]:
        """Each library not found, with the files that need it (basenames), in first-seen
        order."""
        out: dict[str, list[str]] = {}
        for n in needs:
            if n.found is None:
                who = out.setdefault(n.name, [])
                if os.path.basename(n.by) not in who:
                    who.append(os.path.basename(n.by))
        return out


def ld_cache(probe: Probe) -> list[elf.CacheEntry]:
    """The node's ld cache, empty when it is absent or unreadable (the loader then only has
    LD_LIBRARY_PATH and the default directories, and so do we)."""

    def read() -> list[elf.CacheEntry]:
        from ampenv.probe import elf

        try:
            with open(probe.path(LD_CACHE), "rb") as fh:
                return elf.parse_ld_cache(fh.read())
        except (OSError, elf.ElfError):
            return []

    return probe.fact("ld.cache", read)


def library_needs(probe: Probe, name: str, after: tuple[str, ...] = ()) -> Optional[LibraryNeeds]:
    """The libraries distribution ``name``'s extension modules need, resolved as the loader
    would in this environment. Libraries shipped by the distributions in ``after`` count as
    already loaded (torch_npu is imported after torch). None when ``name`` is not installed."""

    def compute() -> Optional[LibraryNeeds]:
        from ampenv.probe import elf

        dists = installed(probe)
        dist = dists.get(canonicalize_name(name))
        if dist is None:
            return None
        preloaded = {
            os.path.basename(f)
            for other in after
            if canonicalize_name(other) in dists
            for f in dists[canonicalize_name(other)].shared_objects
        }
        lib_path = [p for p in probe.env.get("LD_LIBRARY_PATH", "").split(":") if p]
        view = elf.LoaderView(lib_path, ld_cache(probe), preloaded, probe.sysroot)
        objects = [f for f in dist.shared_objects if os.path.isfile(f)]
        top = [f for f in objects if _is_top_level(f, dist)]
        at_import, bad = elf.closure(top, view)
        reached = {os.path.realpath(n.found) for n in at_import if n.found} | set(map(_real, top))
        rest = [f for f in objects if _real(f) not in reached]
        # What the import loaded stays loaded: torchair's modules find libtorch_npu.so so.
        loaded = {n.name for n in at_import if n.found}
        later = elf.LoaderView(lib_path, view.cache, preloaded | loaded, probe.sysroot)
        on_demand, bad2 = elf.closure(rest, later)
        return LibraryNeeds(top, at_import, on_demand, bad + bad2)

    return probe.fact(("python.libneeds", canonicalize_name(name), after), compute)


def _real(path: str) -> str:
    return os.path.realpath(path)


def _is_top_level(path: str, dist: Dist) -> bool:
    """An extension module directly inside a top-level package: what ``import pkg`` loads."""
    package = os.path.dirname(path)
    return os.path.dirname(package) == dist.root and os.path.isfile(
        os.path.join(package, "__init__.py")
    )
