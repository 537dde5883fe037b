"""The reading side of support bundles: :class:`BundleProbe` answers every primitive a check
asks from what ``ampenv collect`` recorded (see ampenv/integrations/collect.py and
docs/bundle.md), and runs nothing. Extraction refuses anything but regular files and folders,
within limits: a bundle may come from anyone.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import posixpath
import tarfile
import tempfile
import zlib
from pathlib import Path
from typing import IO, Any, Optional

from ampenv.probe import ASCEND_TOOL_DIRS, Probe
from ampenv.probe.proc import CommandResult, Outcome
from ampenv.util import bounded
from ampenv.util.jsonshape import (
    Shape,
    described,
    integer,
    list_of,
    number,
    object_of,
    or_null,
    quantity,
    text,
)

FORMAT = "ampenv.integrations.collect/1"
MAX_MEMBERS = 20_000
MAX_MEMBER_BYTES = 64 << 20
MAX_TOTAL_BYTES = 512 << 20
MAX_BUNDLE_BYTES = 256 << 20  # compressed; collect writes a few hundred KiB
_BLOCK = 512
GZIP_MAGIC = b"\x1f\x8b"


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


# What tarfile expands beyond its bytes, read before any member: a long name, a pax record (a
# GNU sparse map in one: 64 MiB of it once took 3 GB), an old GNU sparse member's extension
# blocks; collect writes short names and no sparse member
MAX_RECORD_BYTES = 64 << 10
_RECORDS = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, tarfile.XHDTYPE)
_RECORDS += (tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)


class _Checked(tarfile.TarInfo):
    """A header, refused before tarfile acts on it where it would expand."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _RECORDS and self.size > MAX_RECORD_BYTES:
            raise BundleError(f"a tar record of {self.size} bytes; refused")
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise BundleError(f"bundle member {self.name!r} is a sparse file; refused")
        return super()._proc_member(tarfile_)  # type: ignore[misc]


class _Bounded:
    """The tar stream as tarfile reads it (``r:``: it seeks to each header), within the
    limits: tarfile reads a GNU long name or a pax record whole, before any member limit
    applies (zeros compress 1000:1: a 1 MiB bundle once asked for 1 GB), so no single read may
    be larger than a member may be, and no read or seek may go past what all members may
    take."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    @staticmethod
    def _within(at: int) -> int:
        if at > MAX_TOTAL_BYTES + MAX_MEMBER_BYTES:
            raise BundleError("its members exceed the size limits; refused")
        return at

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0 or size > MAX_MEMBER_BYTES + _BLOCK:
            raise BundleError(f"a tar record of {size} bytes; refused")
        data = self._stream.read(size)
        self._within(self._stream.tell())
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self._within(self._stream.seek(offset, whence))

    def tell(self) -> int:
        return self._stream.tell()


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _gzipped(head: bytes) -> bool:
    """Whether a bundle's first bytes are a gzip stream (what collect writes) or a plain tar.
    Nothing else is tried: ``r:*`` would try xz first, which reads a file of zeros as stream
    padding for as long as it lasts (2 GB: minutes)."""
    if head[:2] == GZIP_MAGIC:
        return True
    if len(head) >= 262 and head[257:262] == b"ustar":
        return False
    raise BundleError("cannot be unpacked: neither a gzip stream nor a tar file")


def extract(bundle: Path, dest: Path) -> None:
    """Unpack regular files and folders only, with limits on count and size. The bundle is
    opened as a regular file only (a FIFO or /dev/zero is refused, never waited on)."""
    try:
        with bounded.open_regular(bundle) as raw:
            size = os.fstat(raw.fileno()).st_size
            if size > MAX_BUNDLE_BYTES:
                raise BundleError(
                    f"is {size >> 20} MiB, more than a bundle's {MAX_BUNDLE_BYTES >> 20} MiB; "
                    "refused"
                )
            gzipped = _gzipped(raw.read(_BLOCK))
            raw.seek(0)
            with contextlib.ExitStack() as stack:
                stream = stack.enter_context(gzip.GzipFile(fileobj=raw)) if gzipped else raw
                bound = _Bounded(stream)
                tar = stack.enter_context(tarfile.open(fileobj=bound, mode="r:", tarinfo=_Checked))  # type: ignore[call-overload]
                _unpack(tar, dest)
    except BundleError as exc:
        raise BundleError(f"{bundle}: {exc}") from None
    except (EOFError, zlib.error, gzip.BadGzipFile, tarfile.TarError) as exc:
        raise BundleError(f"{bundle}: cannot be unpacked: {_one_line(exc)}") from None
    except OSError as exc:
        raise BundleError(f"{bundle}: cannot be read: {exc.strerror or _one_line(exc)}") from None


def _not_json(constant: str) -> Any:
    """NaN and Infinity are not JSON; Python's parser accepts them, a bundle may not."""
    raise ValueError(f"{constant} is not a JSON number")


def _load_json(root: Path, name: str, default: Any = None) -> Any:
    try:
        raw = (root / name).read_bytes()
    except FileNotFoundError:
        if default is not None:
            return default
        raise BundleError(f"no {name}") from None
    except OSError as exc:
        raise BundleError(f"{name} cannot be read: {exc.strerror or exc}") from None
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_not_json)
    except UnicodeDecodeError as exc:
        raise BundleError(f"{name} is not UTF-8 text (byte {exc.start} is not valid)") from None
    except ValueError as exc:
        raise BundleError(f"{name} is not valid JSON: {exc}") from None
    except RecursionError:
        raise BundleError(f"{name} is not valid JSON: nested too deeply") from None


# -- the shape of each member, checked once where it is loaded: a bundle may come from anyone,
# and nothing later must meet a value of the wrong type (docs/bundle.md, Layout).
STRINGS = list_of(text)


def _which(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and text(v.get("tool"))
        and STRINGS(v.get("extra_dirs"))
        and or_null(text)(v.get("path"))
    )


def _host(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and all(map(quantity, v.values()))
        and (integer(v.get("cpu_count")) if "cpu_count" in v else True)
    )


NODE_TYPES = ("char", "block", "dir", "file", "fifo", "socket", "other")


def _node(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and v.get("type") in NODE_TYPES
        and all(integer(v.get(k)) and v[k] >= 0 for k in ("mode", "uid", "gid"))
        and text(v.get("group"))
    )


def _identity(v: Any) -> bool:
    return isinstance(v, dict) and integer(v.get("uid")) and list_of(integer)(v.get("groups"))


def _disk(v: Any) -> bool:
    return isinstance(v, dict) and all(integer(v.get(k)) for k in ("total", "free", "dev"))


# Each key is optional: absent, the probe answers as for a node that recorded nothing.
FACTS: Shape = {
    "globs": ("an object of lists of paths", object_of(STRINGS)),
    "which": ("a list of {tool, extra_dirs, path} objects", list_of(_which)),
    "host": ("an object of numbers, or null", or_null(_host)),  # finite, >= 0
    "hostname": ("a string or null", or_null(text)),
    "disk": ("an object of {total, free, dev} objects or nulls", object_of(or_null(_disk))),
    "mtimes": ("an object of finite numbers or nulls", object_of(or_null(quantity))),
    "distributions": ("an object of strings, or null", or_null(object_of(text))),
    "unreadable_files": ("a list of paths", STRINGS),
    "nodes": ("an object of {type, mode, uid, gid, group} objects or nulls",
              object_of(or_null(_node))),
    "identity": ("a {uid, groups} object, or null", or_null(_identity)),
}  # fmt: skip
MANIFEST: Shape = {
    "format": ("a string", text),
    "host": ("a string or null", or_null(text)),
}
_OUTCOMES = [o.value for o in Outcome]
COMMAND: Shape = {
    "argv": ("a list of strings", STRINGS),
    "outcome": ("one of " + ", ".join(_OUTCOMES), lambda v: text(v) and v in _OUTCOMES),
    "returncode": ("an integer or null", or_null(integer)),
    "stdout": ("a string", text),
    "stderr": ("a string", text),
    "duration_s": ("a number", number),
    "timeout_s": ("a number", number),
    "error": ("a string", text),
}


def _checked(name: str, data: Any, shape: Shape, required: tuple[str, ...] = ()) -> Any:
    """``data`` when it is an object whose keys have the types ``shape`` gives (those in
    ``required`` present); else BundleError naming the member and the key."""
    if not isinstance(data, dict):
        raise BundleError(f"{name} is {described(data)}, expected an object")
    for key in required:
        if key not in data:
            raise BundleError(f"{name} has no {key!r}")
    for key, (expected, ok) in shape.items():
        if key in data and not ok(data[key]):
            raise BundleError(f"{name}: {key!r} is {described(data[key])}, expected {expected}")
    return data


def _command(name: str, data: Any) -> CommandResult:
    return CommandResult.from_dict(_checked(name, data, COMMAND, required=("argv", "outcome")))


class BundleProbe(Probe):
    """A probe that answers every primitive from a bundle and runs nothing."""

    offline = True

    def __init__(self, bundle: str) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="ampenv-bundle-")
        root = Path(self._tmp.name)
        try:
            extract(Path(bundle), root)  # its errors name the bundle
            try:
                self._load(root)
            except BundleError as exc:
                raise BundleError(f"{bundle}: {exc}") from None
        except BaseException:  # also SystemExit from SIGTERM: leave no temporary tree
            self._tmp.cleanup()
            raise

    def _load(self, root: Path) -> None:
        """Every member a primitive answers from, each checked for its shape once, here."""
        self.manifest = _checked("manifest.json", _load_json(root, "manifest.json"), MANIFEST)
        if self.manifest.get("format") != FORMAT:
            raise BundleError(f"format {self.manifest.get('format')!r}, not {FORMAT}")
        if not (root / "files").is_dir():
            if (root / "files").exists():
                raise BundleError("files is not a folder")
            (root / "files").mkdir()
        env = _load_json(root, "env.json", {})
        keys = env if isinstance(env, dict) else ()
        _checked("env.json", env, {key: ("a string", text) for key in keys})
        super().__init__(sysroot=str(root / "files"), env=env)
        self.facts = _checked("facts.json", _load_json(root, "facts.json"), FACTS)
        _checked("report.json", _load_json(root, "report.json", {}), {})
        names = sorted(c.name for c in (root / "commands").glob("*.json"))
        self.commands = [_command(f"commands/{n}", _load_json(root, f"commands/{n}"))
                         for n in names]  # fmt: skip
        self._replies = {tuple(c.argv): c for c in self.commands}
        self._unreadable = set(self.facts.get("unreadable_files", []))

    def path(self, p: str) -> Path:
        # normpath folds "/.." at the root, so no system path leaves the bundle's files.
        return Path(self.sysroot + posixpath.normpath("/" + p))

    def readtext(self, p: str, limit: int = 1 << 20) -> Optional[str]:
        return None if p in self._unreadable else super().readtext(p, limit)

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

    @property
    def records_nodes(self) -> bool:
        """Whether the collector recorded device nodes (older bundles did not)."""
        return "nodes" in self.facts

    def stat_node(self, p: str) -> Optional[dict[str, Any]]:
        return self.facts.get("nodes", {}).get(posixpath.normpath(p))

    def identity(self) -> dict[str, Any]:
        return self.facts.get("identity") or {"uid": 0, "groups": []}

    def distributions(self) -> dict[str, str]:
        return dict(self.facts.get("distributions") or {})
