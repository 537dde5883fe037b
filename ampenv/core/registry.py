"""Discovery of checks: one door for built-ins, site folders and installed packages.

Sources, in order: the built-in ``checks/`` folder (shipped inside the wheel as
``ampenv/builtin_checks``), ``/etc/ampenv/checks.d``, each folder of ``$AMPENV_CHECKS_PATH``,
then the entry point group ``ampenv.checks``. A file that cannot be loaded, a duplicate id, or
(as root) a plugin that others could have written becomes a :class:`LoadProblem`, reported as
an ``error`` result; it never stops the other checks.
"""

from __future__ import annotations

import contextlib
import errno
import importlib.util
import os
import re
import stat
import sys
import threading
import time
import traceback
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Optional

from ampenv.core.plugin import CheckSpec
from ampenv.util import files

SITE_DIR = "/etc/ampenv/checks.d"
ENTRY_POINT_GROUP = "ampenv.checks"
# Imports have no deadline of their own: a plugin that loops at import would hang every
# command. Each site plugin gets LOAD_TIMEOUT seconds, all of them together LOAD_BUDGET.
LOAD_TIMEOUT = 5.0
LOAD_BUDGET = 8.0
# Display order of the families; unknown families follow, in discovery order.
FAMILY_ORDER = ("host", "npu", "cann", "python", "amp", "env", "cache", "logs", "smoke", "dist")


@dataclass
class LoadProblem:
    id: str
    source: str
    summary: str
    details: list[str] = field(default_factory=list)


@dataclass
class Registry:
    checks: dict[str, CheckSpec] = field(default_factory=dict)
    problems: list[LoadProblem] = field(default_factory=list)

    def add(self, spec: CheckSpec) -> None:
        if spec.id in self.checks:
            first = self.checks[spec.id].source
            self.problems.append(
                LoadProblem(
                    f"plugin.duplicate.{spec.id}",
                    spec.source,
                    f"duplicate check id {spec.id!r}: defined in {first} and in {spec.source};"
                    " the second is ignored",
                )
            )
            return
        self.checks[spec.id] = spec

    def ordered(self) -> list[CheckSpec]:
        index = {f: i for i, f in enumerate(FAMILY_ORDER)}
        specs = list(self.checks.values())
        return sorted(specs, key=lambda s: (index.get(s.family, len(FAMILY_ORDER)), specs.index(s)))


def builtin_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    shipped = package / "builtin_checks"
    return shipped if shipped.is_dir() else package.parent / "checks"


def unsafe_reason(path: Path, euid: int) -> Optional[str]:
    """Why root must not load this plugin file or folder, or None when it is safe."""
    try:
        st = path.stat()
    except OSError as exc:
        return f"cannot stat {path}: {exc.strerror}"
    if st.st_mode & stat.S_IWOTH:
        return f"{path} is writable by every user (mode {stat.filemode(st.st_mode)})"
    if st.st_mode & stat.S_IWGRP and st.st_gid != 0:
        return f"{path} is writable by group {st.st_gid} (mode {stat.filemode(st.st_mode)})"
    if st.st_uid != euid:
        return f"{path} is owned by uid {st.st_uid}, not by root"
    return None


def _module_specs(module: ModuleType | Any) -> list[CheckSpec]:
    if isinstance(module, CheckSpec):
        return [module]
    if isinstance(module, (list, tuple)):
        return [m for m in module if isinstance(m, CheckSpec)]
    return [v for v in vars(module).values() if isinstance(v, CheckSpec)]


def _error_line(exc: BaseException, file: Path) -> str:
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f"{file}:{exc.lineno}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(file)]
    return f"{file}:{frames[-1].lineno}" if frames else str(file)


class LoadTimeout(Exception):
    """A plugin's import did not finish within its time."""


def _within(load: Callable[[], Any], timeout: Optional[float], what: str) -> Any:
    """``load()`` in a daemon thread, waited for ``timeout`` seconds (None: inline, for the
    built-ins). A plugin that loops at import is left spinning in its thread and reported;
    the run goes on without it."""
    if timeout is None:
        with contextlib.redirect_stdout(sys.stderr):  # stdout carries the report only
            return load()
    box: dict[str, Any] = {}

    def target() -> None:
        try:  # no redirect_stdout here: it swaps a global this thread may never swap back
            box["value"] = load()
        except BaseException as exc:  # SystemExit too: reported by the caller
            box["error"] = exc

    thread = threading.Thread(target=target, name=f"load {what}", daemon=True)
    thread.start()
    thread.join(max(0.0, timeout))
    if thread.is_alive():
        raise LoadTimeout(
            f"did not finish loading within {timeout:.1f} s (it is left unloaded; a plugin "
            "should import heavy modules inside its check, not at import)"
        )
    if "error" in box:
        raise box["error"]
    return box.get("value")


MAX_PLUGIN_BYTES = 4 << 20


def _load_builtin(registry: Registry, file: Path, label: str) -> None:
    """A built-in check: an ordinary import (the package's own bytecode cache serves it)."""
    spec = importlib.util.spec_from_file_location(_module_name(file), file)

    def run(module: ModuleType) -> None:
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {file}")
        spec.loader.exec_module(module)

    module = importlib.util.module_from_spec(spec) if spec else ModuleType(_module_name(file))
    _exec(registry, file, label, module, run)


def _load_source(
    registry: Registry, file: Path, label: str, euid: int, guard: bool, timeout: float
) -> None:
    """A site's plugin: opened once, judged by what was opened (its ``fstat`` and, as root,
    every folder above its real path), and run from the very bytes judged. Never from
    bytecode: a ``__pycache__`` that another user wrote would run their code as root."""
    try:
        opened = (
            files.read_trusted(file, MAX_PLUGIN_BYTES, euid)
            if guard
            else files.read_regular(file, MAX_PLUGIN_BYTES)
        )
    except files.Unsafe as exc:
        if guard and exc.errno == errno.EPERM:
            registry.problems.append(
                LoadProblem(
                    _problem_id(file.stem),
                    str(file),
                    f"refused plugin file as root: {exc.strerror}",
                    details=[f"fix: chown root:root {file} && chmod go-w {file}"],
                )
            )
            return
        _failed(registry, file, exc)
        return
    except OSError as exc:
        _failed(registry, file, exc)
        return
    module = ModuleType(_module_name(file))
    module.__file__ = str(file)

    def run(module: ModuleType) -> None:
        code = compile(opened.data, str(file), "exec", dont_inherit=True)
        exec(code, module.__dict__)

    _exec(registry, file, label, module, run, timeout)


def _module_name(file: Path) -> str:
    # Unique per path; crc32 rather than a hashlib digest, which costs ~5 ms to import.
    return f"ampenv_plugin_{zlib.crc32(str(file).encode()):08x}_{file.stem}"


def _failed(registry: Registry, file: Path, exc: BaseException, label: str = "") -> None:
    where = _error_line(exc, file)
    registry.problems.append(
        LoadProblem(
            _problem_id(file.stem),
            label or str(file),
            f"plugin {where} failed to load: {type(exc).__name__}: {exc}",
            details=traceback.format_exception_only(type(exc), exc),
        )
    )


def _exec(
    registry: Registry,
    file: Path,
    label: str,
    module: ModuleType,
    run: Any,
    timeout: Optional[float] = None,
) -> None:
    """Run a plugin's module code (within ``timeout`` for a site's plugin; see _within) and
    register its checks; a failure of any kind is a load problem, never the end of ampenv."""
    try:
        _within(lambda: run(module), timeout, str(file))
    except LoadTimeout as exc:
        registry.problems.append(LoadProblem(_problem_id(file.stem), label, f"plugin {file} {exc}"))
        return
    except (Exception, SystemExit) as exc:  # sys.exit() in a plugin must not end ampenv
        _failed(registry, file, exc, label)
        return
    for check_spec in _module_specs(module):
        check_spec.source = label
        registry.add(check_spec)


def _refused(registry: Registry, path: Path, euid: int) -> bool:
    """As root, record and refuse a plugin file or folder that others could have written."""
    reason = unsafe_reason(path, euid)
    if reason:
        kind = "folder" if path.is_dir() else "file"
        registry.problems.append(
            LoadProblem(
                _problem_id(path.name if kind == "folder" else path.stem),
                str(path),
                f"refused plugin {kind} as root: {reason}",
                details=[f"fix: chown root:root {path} && chmod go-w {path}"],
            )
        )
    return reason is not None


def _problem_id(name: str) -> str:
    """The id of a plugin's load problem, valid as a check id whatever the file is called."""
    return "plugin." + (re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "_")


def _load_folder(
    registry: Registry,
    folder: Path,
    euid: int,
    builtin: bool = False,
    named: bool = False,
    until: Optional[float] = None,
) -> None:
    """``named``: the folder was asked for by name ($AMPENV_CHECKS_PATH), so its absence is a
    problem (a typo would leave the site's checks unrun and call the node healthy)."""
    if not folder.is_dir():
        if named:
            registry.problems.append(
                LoadProblem(
                    _problem_id(folder.name),
                    str(folder),
                    f"plugin folder {folder} (from $AMPENV_CHECKS_PATH) is not a folder",
                    details=["fix the path in $AMPENV_CHECKS_PATH, or remove it"],
                )
            )
        return
    guard = euid == 0 and not builtin  # the built-ins ship inside the installed package
    if guard and _refused(registry, folder, euid):
        return
    for file in sorted(p for p in folder.glob("*.py") if not p.name.startswith("_")):
        if builtin:
            _load_builtin(registry, file, f"builtin:{file.name}")
        else:
            _load_source(registry, file, str(file), euid, guard, _left(until))


def _left(until: Optional[float]) -> float:
    """Seconds a plugin may take to load: LOAD_TIMEOUT, within what is left of the budget."""
    if until is None:
        return LOAD_TIMEOUT
    return max(0.0, min(LOAD_TIMEOUT, until - time.monotonic()))


def _load_entry_points(registry: Registry, until: Optional[float] = None) -> None:
    from importlib.metadata import entry_points

    try:
        eps = entry_points(group=ENTRY_POINT_GROUP)
    except TypeError:  # Python 3.9: entry_points() takes no group
        eps = entry_points().get(ENTRY_POINT_GROUP, [])
    for ep in eps:
        label = f"entry point {ep.name} ({ep.value})"
        try:
            loaded = _within(ep.load, _left(until), label)
        except LoadTimeout as exc:
            registry.problems.append(LoadProblem(_problem_id(ep.name), label, f"{label} {exc}"))
            continue
        except (Exception, SystemExit) as exc:
            registry.problems.append(
                LoadProblem(_problem_id(ep.name), label, f"{label} failed to load: {exc!r}")
            )
            continue
        for check_spec in _module_specs(loaded):
            check_spec.source = label
            registry.add(check_spec)


def named_folders(env: dict[str, str]) -> list[Path]:
    return [Path(p) for p in env.get("AMPENV_CHECKS_PATH", "").split(":") if p]


def discover(env: dict[str, str], sysroot: str = "", euid: Optional[int] = None) -> Registry:
    euid = os.geteuid() if euid is None else euid
    registry = Registry()
    _load_folder(registry, builtin_dir(), euid, builtin=True)
    until = time.monotonic() + LOAD_BUDGET
    _load_folder(registry, Path(sysroot + SITE_DIR), euid, until=until)
    for folder in named_folders(env):
        _load_folder(registry, folder, euid, named=True, until=until)
    _load_entry_points(registry, until)
    return registry
