"""Support bundles: ``ampenv collect -o node.tar.gz`` on a broken node, then
``ampenv doctor --bundle node.tar.gz`` anywhere.

Collecting runs the quick profile with a live probe, which keeps every primitive answer it
gave (files read, globs, tools found, commands and their output, host, disks, packages).
The bundle stores those answers; :class:`BundleProbe` gives them back, so every static check
judges the recorded node exactly as it judged the live one. Active checks skip offline
(the runner sees ``probe.offline``). The format is documented in docs/bundle.md; the
reading side is ampenv/probe/bundle.py.
"""

from __future__ import annotations

import dataclasses
import io
import json
import posixpath
import tarfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Optional

from ampenv import __version__
from ampenv.core.model import Report
from ampenv.core.session import Options, diagnose, open_session
from ampenv.probe import Probe
from ampenv.probe.bundle import FORMAT
from ampenv.util.atomic import replacing
from ampenv.util.formats import utc_iso
from ampenv.util.redact import bundle_env, scrub, scrub_data

# Read for support even when no check asked: the OS, the kernel, the Ascend install records.
EXTRA_FILES = (
    "/etc/os-release",
    "/proc/version",
    "/etc/ascend_install.info",
    "/usr/local/Ascend/driver/version.info",
    "/usr/local/Ascend/firmware/version.info",
)


def _homes_only(passwd: str) -> str:
    """/etc/passwd as the cache inventory reads it, home directories only: a bundle goes to
    support and must not list the node's user names and GECOS fields."""
    rows = (line.split(":") for line in passwd.splitlines())
    return "".join(f"-:x:0:0::{r[5]}:\n" for r in rows if len(r) >= 6)


# What of a recorded file a bundle keeps, where not all of it is ampenv's business.
REDUCED = {"/etc/passwd": _homes_only}


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, default=str) + "\n").encode()


def bundle_members(probe: Probe, report: Report, contract: Iterable[str] = ()) -> dict[str, bytes]:
    """Member name -> content, for everything the probe recorded and the report: the values of
    the variables the diagnosis needs (the allowlist, every variable CANN's rules know, the
    site's contract), every other value masked, and every text scrubbed of credentials."""
    from ampenv.knowledge import envrules

    needed = [*envrules.RULES, *contract]
    rec = probe.recorded()
    members = {
        "manifest.json": _json(
            {
                "format": FORMAT,
                "ampenv_version": __version__,
                "host": rec.get("hostname"),
                "created_at": utc_iso(time.time()),
                "profile": report.profile,
                "backend": report.backend,
                "sysroot": probe.sysroot,
            }
        ),
        "report.json": _json(scrub_data(report.to_dict())),
        "env.json": _json(bundle_env(probe.env, extra=needed)),
    }
    unreadable = sorted(p for p, text in rec["files"].items() if text is None)
    keys = ("globs", "which", "host", "hostname", "disk", "mtimes", "identity")
    facts = {k: rec.get(k) for k in keys}
    facts["nodes"] = rec.get("nodes", {})  # present, even empty: this bundle records nodes
    facts["distributions"] = rec.get("distributions", {})
    facts["unreadable_files"] = unreadable
    members["facts.json"] = _json(scrub_data(facts))
    for i, command in enumerate(rec["commands"]):
        members[f"commands/{i:03d}.json"] = _json(scrub_data(command))
    for path, text in rec["files"].items():
        if text is not None:
            reduce = REDUCED.get(posixpath.normpath(path))
            text = reduce(text) if reduce else text
            members["files/" + posixpath.normpath(path).lstrip("/")] = scrub(text).encode()
    return members


class NotWritten(OSError):
    """The bundle could not be written: its path, its folder, the disk (what was read of the
    node is no part of it)."""


def write_bundle(path: Path, members: dict[str, bytes], keep: bool = False) -> None:
    """A tar.gz written atomically (temp file + rename), regular files only; ``keep``: a file
    at ``path`` (one that appeared meanwhile too) is kept, the bundle refused."""
    now = time.time()
    # 0600: a bundle holds the node's commands, files and environment, for support's eyes only
    try:
        with (
            replacing(path, mode=0o600, keep=keep) as raw,
            tarfile.open(fileobj=raw, mode="w:gz") as tar,
        ):
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size, info.mtime, info.mode = len(data), now, 0o644
                tar.addfile(info, io.BytesIO(data))
    except OSError as exc:
        raise NotWritten(f"cannot write {path}: {exc.strerror or exc}") from exc


def collect(
    opts: Options, output: Path, env: Optional[dict[str, str]] = None, keep: bool = False
) -> Report:
    """Run the quick profile on this node and write what it saw to ``output`` (``keep``: never
    over a file there)."""
    session = open_session(opts, env)
    report = diagnose(dataclasses.replace(opts, profile="quick"), session)
    probe = session.probe
    for extra in EXTRA_FILES:
        probe.read_text(extra)
    probe.host()
    probe.hostname()
    probe.identity()
    probe.distributions()
    contract = list(session.config.section("env") or {})
    write_bundle(output, bundle_members(probe, report, contract), keep)
    return report
