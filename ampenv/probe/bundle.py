"""The reading side of support bundles: :class:`BundleProbe` answers every primitive a check
asks from what ``ampenv collect`` recorded (see ampenv/bundle.py and docs/bundle.md), and runs
nothing. Extraction refuses anything but regular files and folders, within limits: a bundle may
come from anyone.
"""

from __future__ import annotations

import json
import os
import posixpath
import tarfile
import tempfile
import zlib
from pathlib import Path
from typing import Any, Optional

from ampenv.probe import ASCEND_TOOL_DIRS, Probe
from ampenv.probe.proc import CommandResult, Outcome

FORMAT = "ampenv.bundle/1"
MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 64 << 20
MAX_TOTAL_BYTES = 512 << 20


class BundleError(ValueError):
    """A bundle that cannot be read or is refused (a usage error for the CLI)."""


def _safe_name(name: str) -> str:
    """A member name as a relative path that stays inside the extraction folder."""
    norm = posixpath.normpath(name)
    if (
        not name
        or "\0" in name
        or name.startswith("/")
        or norm.startswith("..")
        or norm == "."
        or ".." in norm.split("/")
    ):
        raise BundleError(f"bundle member {name!r} has an unsafe path; refused")
    return norm


def _unpack(tar: tarfile.TarFile, dest: Path) -> None:
    total = 0
    for count, member in enumerate(tar, start=1):
        if count > MAX_MEMBERS:
            raise BundleError(f"more than {MAX_MEMBERS} members; refused")
        name = _safe_name(member.name)
        if member.isdir():
            (dest / name).mkdir(parents=True, exist_ok=True)
            continue
        if not member.isfile():  # links, devices and fifos could reach outside
            raise BundleError(f"bundle member {name!r} is not a regular file; refused")
        total += member.size
        if member.size > MAX_MEMBER_BYTES or total > MAX_TOTAL_BYTES:
            raise BundleError(f"bundle member {name!r} exceeds the size limits; refused")
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        source = tar.extractfile(member)
        data = source.read(MAX_MEMBER_BYTES + 1) if source else b""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(target, flags, 0o644), "wb") as out:
            out.write(data)


def extract(bundle: Path, dest: Path) -> None:
    """Unpack regular files and folders only, with limits on count and size."""
    try:
        with tarfile.open(bundle, "r:*") as tar:
            _unpack(tar, dest)
    except BundleError as exc:
        raise BundleError(f"{bundle}: {exc}") from None
    except (OSError, EOFError, zlib.error, tarfile.TarError) as exc:
        raise BundleError(f"{bundle}: cannot be unpacked: {exc}") from None


def _load_json(root: Path, name: str, default: Any = None) -> Any:
    try:
        return json.loads((root / name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        if default is not None:
            return default
        raise BundleError(f"the bundle has no {name}") from None
    except ValueError as exc:
        raise BundleError(f"the bundle's {name} is not valid JSON: {exc}") from None


class BundleProbe(Probe):
    """A probe that answers every primitive from a bundle and runs nothing."""

    offline = True

    def __init__(self, bundle: str) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ampenv-bundle-")
        root = Path(self._tmp.name)
        extract(Path(bundle), root)
        self.manifest = _load_json(root, "manifest.json")
        if self.manifest.get("format") != FORMAT:
            raise BundleError(f"{bundle}: format {self.manifest.get('format')!r}, not {FORMAT}")
        (root / "files").mkdir(exist_ok=True)
        super().__init__(sysroot=str(root / "files"), env=_load_json(root, "env.json", {}))
        self.facts = _load_json(root, "facts.json")
        self.last_report = _load_json(root, "report.json", {})
        names = sorted(c.name for c in (root / "commands").glob("*.json"))
        self.commands = [CommandResult.from_dict(_load_json(root, f"commands/{n}")) for n in names]
        self._replies = {tuple(c.argv): c for c in self.commands}
        self._unreadable = set(self.facts.get("unreadable_files", []))

    def path(self, p: str) -> Path:
        # normpath folds "/.." at the root, so no system path leaves the bundle's files.
        return Path(self.sysroot + posixpath.normpath("/" + p))

    def read_text(self, p: str, limit: int = 1 << 20) -> Optional[str]:
        return None if p in self._unreadable else super().read_text(p, limit)

    def mtime(self, p: str) -> Optional[float]:
        # The extracted member's own mtime is the extraction's: the recorded one is the node's.
        return self.facts.get("mtimes", {}).get(p)

    def glob(self, pattern: str) -> list[str]:
        recorded = self.facts.get("globs", {})
        return list(recorded[pattern]) if pattern in recorded else super().glob(pattern)

    def which(self, tool: str, extra_dirs: tuple[str, ...] = ASCEND_TOOL_DIRS) -> Optional[str]:
        found = [w for w in self.facts.get("which", []) if w["tool"] == tool]
        exact = [w for w in found if tuple(w["extra_dirs"]) == tuple(extra_dirs)]
        return (exact or found or [{"path": None}])[0]["path"]

    def run(self, argv: list[str], timeout: float) -> CommandResult:
        reply = self._replies.get(tuple(str(a) for a in argv))
        if reply is not None:
            return reply
        return CommandResult(
            list(argv), Outcome.MISSING, error="not recorded in the bundle", timeout_s=timeout
        )

    def hostname(self) -> str:
        return self.facts.get("hostname") or self.manifest.get("host") or "?"

    def host(self) -> dict[str, Any]:
        if not self.facts.get("host"):
            raise LookupError("the bundle recorded no host facts (CPU count, memory)")
        return dict(self.facts["host"])

    def disk_usage(self, p: str) -> Optional[dict[str, int]]:
        return self.facts.get("disk", {}).get(p)

    def distributions(self) -> dict[str, str]:
        return dict(self.facts.get("distributions") or {})
