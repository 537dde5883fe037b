"""Support bundles: ``ampenv collect -o node.tar.gz`` on a broken node, then
``ampenv doctor --bundle node.tar.gz`` anywhere.

Collecting runs the quick profile with a live probe, which keeps every primitive answer it
gave (files read, globs, tools found, commands and their output, host, disks, packages).
The bundle stores those answers; :class:`BundleProbe` gives them back, so every static check
judges the recorded node exactly as it judged the live one. Active checks skip offline
(the runner sees ``probe.offline``). The format is documented in docs/bundle.md.
"""

from __future__ import annotations

import datetime as _dt
import io
import json
import os
import posixpath
import tarfile
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any, Optional

from ampenv import __version__
from ampenv.doctor import Options, diagnose, open_session
from ampenv.probe import ASCEND_TOOL_DIRS, Probe
from ampenv.probe.proc import CommandResult, Outcome
from ampenv.redact import redact_env
from ampenv.runner import Report

FORMAT = "ampenv.bundle/1"
# Read for support even when no check asked: the OS, the kernel, the Ascend install records.
EXTRA_FILES = (
    "/etc/os-release",
    "/proc/version",
    "/etc/ascend_install.info",
    "/usr/local/Ascend/driver/version.info",
    "/usr/local/Ascend/firmware/version.info",
)
# Limits on what a bundle may unpack to: it may come from anyone.
MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 64 << 20
MAX_TOTAL_BYTES = 512 << 20


class BundleError(ValueError):
    """A bundle that cannot be read or is refused (a usage error for the CLI)."""


# -- writing ------------------------------------------------------------------------------------
def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, default=str) + "\n").encode()


def bundle_members(probe: Probe, report: Report) -> dict[str, bytes]:
    """Member name -> content, for everything the probe recorded and the report."""
    rec = probe.recorded()
    members = {
        "manifest.json": _json(
            {
                "format": FORMAT,
                "ampenv_version": __version__,
                "host": rec.get("hostname"),
                "created_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "profile": report.profile,
                "backend": report.backend,
                "sysroot": probe.sysroot,
            }
        ),
        "report.json": _json(report.to_dict()),
        "env.json": _json(redact_env(probe.env)),
    }
    unreadable = sorted(p for p, text in rec["files"].items() if text is None)
    facts = {k: rec.get(k) for k in ("globs", "which", "host", "hostname", "disk")}
    facts["distributions"] = rec.get("distributions", {})
    facts["unreadable_files"] = unreadable
    members["facts.json"] = _json(facts)
    for i, command in enumerate(rec["commands"]):
        members[f"commands/{i:03d}.json"] = _json(command)
    for path, text in rec["files"].items():
        if text is not None:
            members["files/" + posixpath.normpath(path).lstrip("/")] = text.encode()
    return members


def write_bundle(path: Path, members: dict[str, bytes]) -> None:
    """A tar.gz written atomically (temp file + rename), regular files only."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
    now = time.time()
    try:
        with os.fdopen(fd, "wb") as raw, tarfile.open(fileobj=raw, mode="w:gz") as tar:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(data), now, 0o644
                tar.addfile(info, io.BytesIO(data))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def collect(opts: Options, output: Path, env: Optional[dict[str, str]] = None) -> Report:
    """Run the quick profile on this node and write what it saw to ``output``."""
    session = open_session(opts, env)
    opts.profile = "quick"
    report = diagnose(opts, session)
    probe = session.probe
    for extra in EXTRA_FILES:
        probe.read_text(extra)
    probe.host()
    probe.hostname()
    probe.distributions()
    write_bundle(output, bundle_members(probe, report))
    return report


# -- reading ------------------------------------------------------------------------------------
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
