"""The CANN toolkit: where it is, what version and architecture, and whether its set_env.sh
has been sourced into this environment.

Discovery order: ``ASCEND_HOME_PATH``, ``ASCEND_TOOLKIT_HOME``, then
``/usr/local/Ascend/ascend-toolkit/latest`` (CANN <= 8.3), then ``/usr/local/Ascend/cann-*`` and
``/usr/local/Ascend/cann`` (CANN 8.5 and later), newest first. A toolkit home is a folder with
``<arch>-linux/ascend_toolkit_install.info``.
"""

from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ampenv.probe import Probe

ENV_HOMES = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
LEGACY_HOME = "/usr/local/Ascend/ascend-toolkit/latest"
CANN_HOMES = ("/usr/local/Ascend/cann-*", "/usr/local/Ascend/cann")
INFO_GLOB = "/*-linux/ascend_toolkit_install.info"
NNAL_SET_ENV = "/usr/local/Ascend/nnal/atb/set_env.sh"

# What the toolkit's set_env.sh exports (CANN 8.x; see tests/fixtures/version-files/
# set_env.sh_toolkit_exports_reconstructed.txt): variables set to a folder of the home ...
SET_ENV_VARS = {
    "ASCEND_TOOLKIT_HOME": "",
    "ASCEND_HOME_PATH": "",
    "ASCEND_AICPU_PATH": "",
    "ASCEND_OPP_PATH": "opp",
    "TOOLCHAIN_HOME": "toolkit",
}
# ... and search paths it prepends a folder of the home to.
SET_ENV_PATHS = {
    "LD_LIBRARY_PATH": "lib64",
    "PYTHONPATH": "python/site-packages",
    "PATH": "bin",
}
# Libraries torch_npu may need that come from another package than the toolkit.
LIBRARY_PACKAGES = {"libatb.so": ("NNAL (ATB)", NNAL_SET_ENV)}

# `uname -m` spelling of the arch field.
ARCH_ALIASES = {"arm64": "aarch64", "amd64": "x86_64"}


@dataclass
class Toolkit:
    home: str  # as found (may be a symlink such as .../latest)
    found_by: str  # the variable or place that led to it
    info_path: Optional[str] = None
    info: dict[str, str] = field(default_factory=dict)
    real_home: str = ""

    @property
    def version(self) -> Optional[str]:
        return self.info.get("version")

    @property
    def arch(self) -> Optional[str]:
        return self.info.get("arch")

    @property
    def compatible(self) -> list[str]:
        return re.findall(r"\[([^\]]+)\]", self.info.get("compatible_version", ""))


@dataclass
class Discovery:
    toolkit: Optional[Toolkit]
    looked: list[str]  # every place tried, in order, with why it was passed over
    set_env: Optional[str] = None  # the set_env.sh to source for this toolkit


def parse_key_values(text: str) -> dict[str, str]:
    """``key=value`` lines (Ascend's version and install info files)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() and not key.lstrip().startswith("#"):
            out[key.strip()] = value.strip()
    return out


def machine(probe: Probe) -> str:
    """This host's architecture, as ascend_toolkit_install.info spells it."""
    m = probe.fact("machine", platform.machine)
    return ARCH_ALIASES.get(m.lower(), m.lower())


def resolve(probe: Probe, p: str, hops: int = 40) -> str:
    """A system path with its symlinks followed inside the sysroot (``latest -> 8.0.0``)."""
    parts = [x for x in os.path.normpath(p).split("/") if x]
    done = ""
    while parts and hops > 0:
        step = f"{done}/{parts.pop(0)}"
        real = probe.path(step)
        if os.path.islink(real):
            hops -= 1
            target = os.readlink(real)
            base = "" if target.startswith("/") else done
            parts = [x for x in os.path.normpath(f"{base}/{target}").split("/") if x] + parts
            done = ""
        else:
            done = step
    return os.path.normpath(done or "/")


def _candidates(probe: Probe) -> list[tuple[str, str]]:
    out = [(probe.env[v], v) for v in ENV_HOMES if probe.env.get(v)]
    out.append((LEGACY_HOME, LEGACY_HOME))
    cann = [h for pattern in CANN_HOMES for h in probe.glob(pattern) if probe.path(h).is_dir()]
    out += [(h, h) for h in sorted(cann, key=_version_key, reverse=True)]
    return out


def _version_key(path: str) -> tuple:
    nums = re.findall(r"\d+|[a-zA-Z]+", os.path.basename(path))
    return tuple((0, int(n), "") if n.isdigit() else (1, 0, n.lower()) for n in nums)


def _info_file(probe: Probe, home: str) -> Optional[str]:
    files = probe.glob(home.rstrip("/") + INFO_GLOB)
    mine = f"{home.rstrip('/')}/{machine(probe)}-linux/ascend_toolkit_install.info"
    return mine if mine in files else (files[0] if files else None)


def discover(probe: Probe) -> Discovery:
    """The toolkit this environment uses, memoised."""

    def find() -> Discovery:
        looked: list[str] = []
        for home, why in _candidates(probe):
            label = home if why == home else f"{why}={home}"
            if not probe.path(home).is_dir():
                looked.append(f"{label}: no such folder")
                continue
            info_path = _info_file(probe, home)
            if info_path is None:
                looked.append(f"{label}: no <arch>-linux/ascend_toolkit_install.info")
                continue
            info = parse_key_values(probe.read_text(info_path) or "")
            toolkit = Toolkit(home.rstrip("/") or "/", why, info_path, info, resolve(probe, home))
            looked.append(f"{label}: CANN {toolkit.version or '?'}")
            return Discovery(toolkit, looked, _set_env(probe, toolkit.home))
        return Discovery(None, looked)

    return probe.fact("cann.toolkit", find)


def _set_env(probe: Probe, home: str) -> Optional[str]:
    """The set_env.sh for this home: beside it (8.5 layout, or .../latest/set_env.sh) or in its
    parent (``/usr/local/Ascend/ascend-toolkit/set_env.sh``, the one the README names)."""
    parent = os.path.dirname(home)
    for candidate in (f"{parent}/set_env.sh", f"{home}/set_env.sh"):
        if probe.path(candidate).is_file():
            return candidate
    return None


def set_env_line(discovery: Discovery) -> str:
    """The exact line that prepares this environment for the toolkit."""
    if discovery.set_env:
        return f"source {discovery.set_env}"
    if discovery.toolkit:
        return f"source {os.path.dirname(discovery.toolkit.home)}/set_env.sh"
    return "install the CANN toolkit (Ascend-cann-toolkit), then source its set_env.sh"


@dataclass
class SourcedState:
    """How this environment's variables relate to the toolkit's set_env.sh."""

    missing: list[str] = field(default_factory=list)  # variables or path entries absent
    elsewhere: dict[str, str] = field(default_factory=dict)  # variable -> other install

    @property
    def sourced(self) -> bool:
        return not self.missing and not self.elsewhere


def sourced_state(probe: Probe, toolkit: Toolkit) -> SourcedState:
    """Whether set_env.sh's variables are present and point at this same install."""
    state = SourcedState()
    real_home = toolkit.real_home

    def under(value: str, sub: str) -> bool:
        want = os.path.normpath(os.path.join(real_home, sub)) if sub else real_home
        return resolve(probe, value) == want

    for var, sub in SET_ENV_VARS.items():
        value = probe.env.get(var, "")
        if not value:
            state.missing.append(var)
        elif not under(value, sub):
            state.elsewhere[var] = value
    for var, sub in SET_ENV_PATHS.items():
        entries = [e for e in probe.env.get(var, "").split(":") if e]
        if not any(under(e, sub) for e in entries):
            state.missing.append(f"{var} entry {toolkit.home}/{sub}")
    return state
