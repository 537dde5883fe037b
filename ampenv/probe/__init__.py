"""Facts about the node, gathered lazily and at most once per invocation.

Every read of the system goes through a :class:`Probe`: commands (through the one subprocess
helper, cached by argv), files (below the sysroot), the environment and installed packages.
That single door is what makes ``AMPENV_SYSROOT`` test nodes and offline bundles possible:
a bundle probe answers the same questions from recorded data.
"""

from __future__ import annotations

import glob as _glob
import os
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, TypeVar, Union

from ampenv.probe import proc
from ampenv.probe.proc import CommandResult
from ampenv.util import bounded

T = TypeVar("T")

# Ascend installs tools outside the usual PATH of a non-login shell.
ASCEND_TOOL_DIRS = ("/usr/local/bin", "/usr/local/sbin", "/usr/local/Ascend/driver/tools")


@dataclass
class Backend:
    kind: str  # npu | cuda | cpu
    reason: str
    device_names: list[str] = field(default_factory=list)
    count: int = 0  # device nodes (/dev/davinciN, /dev/nvidiaN); GPUs nvidia-smi lists


class Probe:
    """Live facts of this node (optionally seen through a sysroot prefix)."""

    offline = False

    def __init__(self, sysroot: Optional[str] = None, env: Optional[dict[str, str]] = None) -> None:
        self.sysroot = sysroot or ""
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        self._cache: dict[Any, Any] = {}
        self._locks: dict[Any, threading.Lock] = {}
        self._guard = threading.Lock()
        self.commands: list[CommandResult] = []  # every command run, for bundles
        self._globs: dict[str, list[str]] = {}  # last answer per pattern, for bundles

    # -- memoisation -------------------------------------------------------------------------
    def fact(self, key: Any, compute: Callable[[], T]) -> T:
        """Compute a fact once, even when several checks ask for it at the same moment."""
        with self._guard:
            if key in self._cache:
                return self._cache[key]
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            with self._guard:
                if key in self._cache:
                    return self._cache[key]
            value = compute()
            with self._guard:
                self._cache[key] = value
            return value

    # -- files -------------------------------------------------------------------------------
    def path(self, p: str) -> Path:
        """An absolute system path as seen through the sysroot."""
        return Path(self.sysroot + p) if self.sysroot else Path(p)

    def read_text(self, p: str, limit: int = 1 << 20) -> Optional[str]:
        """The file's text (first ``limit`` bytes), or None when it cannot be read."""

        def read() -> Optional[str]:
            try:  # a regular file only: a FIFO or a device must not block or read forever
                return bounded.read_head(self.path(p), limit).decode("utf-8", "replace")
            except OSError:
                return None

        return self.fact(("file", p), read)

    def read_tail(self, p: str, limit: int) -> Optional[str]:
        """The file's last ``limit`` bytes, from the first whole line (logs grow at the end),
        or None when it cannot be read."""

        def read() -> Optional[str]:
            try:
                return tail(self.path(p), limit)
            except OSError:
                return None

        return self.fact(("tail", p, limit), read)

    def mtime(self, p: str) -> Optional[float]:
        """The file's modification time, or None when it cannot be stat'ed."""

        def stat() -> Optional[float]:
            try:
                return os.stat(self.path(p)).st_mtime
            except OSError:
                return None

        return self.fact(("mtime", p), stat)

    def stat_node(self, p: str) -> Optional[dict[str, Any]]:
        """What a device node (or any path) is, symlinks followed as open(2) would: type
        (char, block, dir, file, fifo, socket), mode bits, owner, group and device numbers;
        None when it does not exist. A bundle records and replays it, so device nodes are
        judged offline as live."""

        def stat() -> Optional[dict[str, Any]]:
            try:
                st = os.stat(self.path(p))
            except OSError:
                return None
            return node_record(st)

        return self.fact(("node", p), stat)

    def identity(self) -> dict[str, Any]:
        """Who opens the device nodes: effective uid and every group (a bundle: the
        collector's)."""

        def who() -> dict[str, Any]:
            return {"uid": os.geteuid(), "groups": sorted({os.getegid(), *os.getgroups()})}

        return self.fact("identity", who)

    def glob(self, pattern: str) -> list[str]:
        """System paths (without the sysroot prefix) matching an absolute pattern."""
        prefix = self.sysroot
        hits = _glob.glob(prefix + pattern) if prefix else _glob.glob(pattern)
        found = sorted(h[len(prefix) :] if prefix else h for h in hits)
        # Not memoised (a --fix rerun must see what it removed); the last answer is recorded.
        with self._guard:
            self._globs[pattern] = found
        return found

    # -- commands ----------------------------------------------------------------------------
    def which(self, tool: str, extra_dirs: tuple[str, ...] = ASCEND_TOOL_DIRS) -> Optional[str]:
        """Find a tool on this environment's PATH, then in the usual Ascend places."""

        def find() -> Optional[str]:
            dirs = [d for d in self.env.get("PATH", "").split(os.pathsep) if d]
            candidates = [os.path.join(d, tool) for d in dirs]
            candidates += [str(self.path(os.path.join(d, tool))) for d in extra_dirs]
            for c in candidates:
                if os.path.isfile(c) and os.access(c, os.X_OK):
                    return c
            return None

        return self.fact(("which", tool, extra_dirs), find)

    def run(self, argv: list[str], timeout: float) -> CommandResult:
        """Run a command once per invocation; later callers get the same result."""

        def execute() -> CommandResult:
            result = proc.run(argv, timeout, env=self.env)
            with self._guard:
                self.commands.append(result)
            return result

        return self.fact(("run", tuple(argv)), execute)

    # -- host --------------------------------------------------------------------------------
    def hostname(self) -> str:
        """The node's name: ``$AMPENV_NODE`` where set (a pod's hostname is not its node: set
        it from the Kubernetes downward API's spec.nodeName), else the hostname."""
        return self.fact("hostname", lambda: self.env.get("AMPENV_NODE") or socket.gethostname())

    def host(self) -> dict[str, Any]:
        """CPU count and memory, as psutil gives them (a bundle replays what was recorded)."""

        def collect() -> dict[str, Any]:
            fast = _linux_host()
            if fast is not None:
                return fast
            import psutil

            vm = psutil.virtual_memory()
            return {
                "cpu_count": psutil.cpu_count() or 0,
                "mem_total_bytes": vm.total,
                "mem_available_bytes": vm.available,
            }

        return self.fact("host", collect)

    def disk_usage(self, p: str) -> Optional[dict[str, int]]:
        """Total and free bytes of the filesystem holding ``p`` (or its nearest existing
        parent), with the mount's device id so callers can fold paths on one filesystem."""

        def stat() -> Optional[dict[str, int]]:
            path = self.path(p)
            while not path.exists() and path != path.parent:
                path = path.parent
            try:
                st = os.statvfs(path)
                dev = os.stat(path).st_dev
            except OSError:
                return None
            return {
                "total": st.f_blocks * st.f_frsize,
                "free": st.f_bavail * st.f_frsize,
                "dev": dev,
            }

        return self.fact(("disk", p), stat)

    # -- python packages ---------------------------------------------------------------------
    def distributions(self) -> dict[str, str]:
        """Installed distributions, normalised name -> version, from metadata only."""

        def collect() -> dict[str, str]:
            from importlib import metadata

            from packaging.utils import canonicalize_name

            found: dict[str, str] = {}
            for dist in metadata.distributions():
                name = dist.metadata.get("Name")
                if name:
                    found.setdefault(canonicalize_name(name), dist.version)
            return found

        return self.fact("distributions", collect)

    def distribution_version(self, name: str) -> Optional[str]:
        """One distribution's version (None: not installed), from its dist-info folder on
        sys.path: ~1 ms where distributions() costs ~0.1 s and importlib.metadata as much to
        import (`certificate verify` runs in a prolog). A bundle answers from its record."""
        import sys

        from ampenv.probe import distinfo

        key = distinfo.canonical(name)
        if self.offline:
            return self.distributions().get(key)
        return self.fact(("distribution", key), lambda: distinfo.version(name, sys.path))

    # -- backend -----------------------------------------------------------------------------
    def backend(self) -> Backend:
        return self.fact("backend", lambda: detect_backend(self))

    # -- recording ---------------------------------------------------------------------------
    def recorded(self) -> dict[str, Any]:
        """Every primitive answer given so far, JSON-ready: what a support bundle stores
        (derived facts are left out: a bundle probe recomputes them from these)."""
        with self._guard:
            cache = dict(self._cache)
            globs = dict(self._globs)
        rec: dict[str, Any] = {"files": {}, "globs": globs, "which": [], "disk": {}, "mtimes": {}}
        tails = {}
        for key, value in cache.items():
            kind = key[0] if isinstance(key, tuple) else key
            if kind == "file":
                rec["files"][key[1]] = value
            elif kind == "tail":
                tails[key[1]] = value
            elif kind == "mtime":
                rec["mtimes"][key[1]] = value
            elif kind == "which":
                rec["which"].append({"tool": key[1], "extra_dirs": list(key[2]), "path": value})
            elif kind == "disk":
                rec["disk"][key[1]] = value
            elif kind == "node":
                rec.setdefault("nodes", {})[key[1]] = value
            elif kind in ("host", "hostname", "distributions", "identity"):
                rec[kind] = value
        for path, text in tails.items():  # a bundle keeps one text a path: the head wins
            rec["files"].setdefault(path, text)
        rec["commands"] = [c.to_dict() for c in self.commands]
        return rec


def node_record(st: os.stat_result) -> dict[str, Any]:
    import grp
    import stat as _stat

    kinds = (
        (_stat.S_ISCHR, "char"),
        (_stat.S_ISBLK, "block"),
        (_stat.S_ISDIR, "dir"),
        (_stat.S_ISREG, "file"),
        (_stat.S_ISFIFO, "fifo"),
        (_stat.S_ISSOCK, "socket"),
    )
    kind = next((name for test, name in kinds if test(st.st_mode)), "other")
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    record = {
        "type": kind,
        "mode": _stat.S_IMODE(st.st_mode),
        "uid": st.st_uid,
        "gid": st.st_gid,
        "group": group,
    }
    if kind in ("char", "block"):
        record["major"], record["minor"] = os.major(st.st_rdev), os.minor(st.st_rdev)
    return record


def tail(path: Union[str, Path], limit: int) -> str:
    """The last ``limit`` bytes of a regular file, from the first whole line (a FIFO or a
    device raises :class:`ampenv.util.bounded.NotRegular`, an OSError)."""
    return bounded.read_tail(path, limit).decode("utf-8", "replace")


def _linux_host() -> Optional[dict[str, Any]]:
    """What psutil.cpu_count() and psutil.virtual_memory() answer on Linux, read where they
    read it (sysconf, /proc/meminfo), without importing psutil: its ~20 ms would be a tenth of
    the quick profile. None where psutil's own fallbacks are needed (not Linux, no
    MemAvailable before kernel 3.14, odd values)."""
    try:
        cpus = os.sysconf("SC_NPROCESSORS_ONLN")
        with open("/proc/meminfo", "rb") as fh:
            mem = {f[0]: int(f[1]) * 1024 for f in (line.split() for line in fh) if len(f) > 1}
    except (OSError, ValueError):
        return None
    total, available = mem.get(b"MemTotal:"), mem.get(b"MemAvailable:")
    if cpus < 1 or total is None or not available or available > total:
        return None
    return {"cpu_count": cpus, "mem_total_bytes": total, "mem_available_bytes": available}


GPU_NAMES_TIMEOUT = 2.0  # nvidia-smi answers in well under a second on a healthy node


def detect_backend(probe: Probe) -> Backend:
    """npu when npu-smi or /dev/davinci* is present, cuda when nvidia-smi or /dev/nvidia0 is,
    else cpu, with the device count from the device nodes. Nothing is imported; the one
    command is nvidia-smi's name query on CUDA nodes (NPU names come from npu.devices, whose
    npu-smi run may take seconds)."""
    smi = probe.which("npu-smi")
    davinci = probe.glob("/dev/davinci[0-9]*")
    if smi or davinci:
        why = f"npu-smi at {smi}" if smi else f"{len(davinci)} /dev/davinci* nodes"
        return Backend("npu", why, count=len(davinci))
    nvsmi = probe.which("nvidia-smi", extra_dirs=())
    nvidia = probe.glob("/dev/nvidia[0-9]*")
    if not (nvsmi or nvidia):
        return Backend("cpu", "no npu-smi, /dev/davinci*, nvidia-smi or /dev/nvidia*")
    if not nvsmi:
        return Backend("cuda", f"{len(nvidia)} /dev/nvidia* nodes", count=len(nvidia))
    query = probe.run([nvsmi, "--query-gpu=name", "--format=csv,noheader"], GPU_NAMES_TIMEOUT)
    names = [n.strip() for n in query.stdout.splitlines() if n.strip()] if query.ok else []
    why = f"nvidia-smi at {nvsmi}" + ("" if query.ok else f" ({query.describe()})")
    return Backend("cuda", why, names, len(names) if query.ok else len(nvidia))
