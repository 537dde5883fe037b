"""ampenv.toml: lookup, validation and defaults.

Found by ``--config``, then ``$AMPENV_CONFIG``, then ``/etc/ampenv/ampenv.toml``; no file means
defaults. Every error names the file and the key, and is a usage error (exit 2).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from ampenv.core.plugin import PROFILES
from ampenv.core.settings import (
    MAX_SECONDS,
    SECONDS,
    ConfigError,
    Setting,
    validate_settings,
)
from ampenv.util import bounded

if TYPE_CHECKING:
    from ampenv.core.plugin import CheckSpec

DEFAULT_PATH = "/etc/ampenv/ampenv.toml"
MAX_BYTES = 1 << 20  # a site's config is a few KiB

POLICIES = ("fail-closed", "warn-only")  # of `ampenv run`

# Sections whose keys are simple settings, or the function that validates a section of its own
# shape (called with the table and the file path; raises ConfigError).
SectionValidator = Callable[[Any, str], dict[str, Any]]


def _env_contract(table: Any, path: str) -> dict[str, Any]:
    # The rules of 48 variables load only for a config that states a contract.
    from ampenv.knowledge import envcontract

    return envcontract.validate(table, path)


SECTIONS: dict[str, dict[str, Setting] | SectionValidator] = {
    "checks": {},  # handled by validate_checks once the registry is loaded
    "env": _env_contract,
    "certificate": {
        "path": Setting(str, None, "where `ampenv certify` writes the certificate"),
        "max_age_hours": Setting(  # at most 10 years
            float, 168.0, "a certificate older than this is stale", gt=0, le=10 * 365 * 24
        ),
        "baseline": Setting(
            str,
            None,
            "group figures from `ampenv fleet --baseline-out`: certify fails a node "
            "short of its group's AMP img/s",
        ),
        "baseline_max_shortfall": Setting(
            float, 0.10, "share below the baseline's median a node may fall", ge=0, le=1
        ),
    },
    "run": {
        "policy": Setting(
            str,
            "fail-closed",
            "fail-closed or warn-only, for `ampenv run`",
            choices=POLICIES,
        ),
        "profile": Setting(
            str, "quick", "the profile `ampenv run` checks before the job", choices=PROFILES
        ),
    },
    "hook": {
        # At least 2 s: the hook keeps 1.8 s for its report and the lock, the checks get the rest.
        "timeout": Setting(
            float, 10.0, "seconds the Slurm hook may take in all", ge=2, le=MAX_SECONDS
        ),
        "drain": Setting(bool, False, "let `ampenv hook slurm` drain an unhealthy node"),
        "certificate": Setting(bool, True, "the Slurm hook also runs `certificate verify`"),
        "lock_file": Setting(str, None, "single-flight lock (default /run/ampenv-hook.lock)"),
    },
    "cache": {
        "roots": Setting(list, [], "extra cache folders ampenv may clean", item=str),
        "stale_after_days": Setting(
            float, 30.0, "logs and [cache] roots entries untouched this long are stale", gt=0
        ),
        "log_max_age_days": Setting(float, 7.0, "scan only plogs written in the last N days", gt=0),
        "log_tail_mb": Setting(float, 4.0, "read only the last N MiB of each log", gt=0, le=1024),
    },
    "runner": {
        "deadline": Setting(
            float,
            0.0,
            "global deadline in seconds (0: the profile's default)",
            ge=0,
            le=MAX_SECONDS,
        ),
        "workers": Setting(int, 8, "checks run at once", ge=1),
    },
}


@dataclass
class Config:
    path: Optional[str] = None
    data: dict[str, Any] = field(default_factory=dict)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    check_settings: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.path or "<defaults>"

    def section(self, name: str) -> dict[str, Any]:
        """A validated section merged over its defaults (raw table for custom sections)."""
        return self.sections.get(name, {})

    def skipped(self) -> list[str]:
        return list(self.data.get("checks", {}).get("skip", []))

    def settings_for(self, spec: CheckSpec) -> dict[str, Any]:
        merged = {name: s.default for name, s in spec.settings.items()}
        merged["timeout"] = spec.timeout
        merged.update(self.check_settings.get(spec.id, {}))
        return merged

    def validate_checks(self, specs: dict[str, CheckSpec]) -> None:
        """Validate ``[checks]`` against the loaded checks' own settings."""
        table = self.data.get("checks", {})
        if not isinstance(table, dict):
            raise ConfigError(self.label, "checks", "must be a table")
        for key, value in table.items():
            if key == "skip":
                if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
                    raise ConfigError(self.label, "checks.skip", "must be a list of check ids")
                continue
            spec = specs.get(key)
            if spec is None:
                raise ConfigError(self.label, f'checks."{key}"', "no check has this id")
            schema = {
                "timeout": replace(SECONDS, default=spec.timeout),
                "skip": Setting(bool, False, "never run it"),
                **spec.settings,
            }
            values = validate_settings(value, schema, self.label, f'checks."{key}"')
            self.check_settings[key] = {k: values[k] for k in value}


def _loads(text: str, path: str) -> dict[str, Any]:
    if not text:
        return {}  # no file (the defaults): not worth importing the TOML parser for
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.9/3.10 only
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(path, "", f"not valid TOML: {exc}") from None
    except RecursionError:  # a config is a few tables deep; thousands is an attack or a bug
        raise ConfigError(path, "", "not valid TOML: nested too deeply") from None


def parse(text: str, path: str) -> Config:
    data = _loads(text, path)
    try:
        return _parse(data, path)
    except RecursionError:  # a value nested too deeply for a validator
        raise ConfigError(path, "", "nested too deeply") from None


def _parse(data: dict[str, Any], path: str) -> Config:
    config = Config(path=path, data=data)
    for name, table in data.items():
        schema = SECTIONS.get(name)
        if schema is None:
            raise ConfigError(path, name, f"unknown section (known: {', '.join(SECTIONS)})")
        if callable(schema):
            config.sections[name] = schema(table, path)
        elif schema:
            config.sections[name] = validate_settings(table, schema, path, name)
    for name, schema in SECTIONS.items():
        if isinstance(schema, dict) and schema and name not in config.sections:
            config.sections[name] = {k: s.default for k, s in schema.items()}
    return config


def find(explicit: Optional[str], env: dict[str, str], sysroot: str = "") -> Optional[str]:
    if explicit:
        return explicit
    if env.get("AMPENV_CONFIG"):
        return env["AMPENV_CONFIG"]
    default = sysroot + DEFAULT_PATH
    return default if os.path.exists(default) else None


def load(explicit: Optional[str], env: dict[str, str], sysroot: str = "") -> Config:
    path = find(explicit, env, sysroot)
    if path is None:
        config = parse("", "<defaults>")
        config.path = None
        return config
    if path == os.devnull:  # `config init`: no config on purpose
        return parse("", path)
    try:
        text = bounded.read_text(path, MAX_BYTES)
    except bounded.TooLarge:
        raise ConfigError(path, "", f"larger than {MAX_BYTES >> 10} KiB: not a config") from None
    except OSError as exc:  # NotRegular: a FIFO or /dev/zero must not block or read forever
        raise ConfigError(path, "", f"cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(path, "", f"not UTF-8 text (byte {exc.start} is not valid)") from None
    return parse(text, path)


def found_by(explicit: Optional[str], env: dict[str, str], path: Optional[str]) -> str:
    """How the file in use was found (the order ``find`` tries)."""
    if explicit:
        return "named by --config"
    if env.get("AMPENV_CONFIG"):
        return "named by $AMPENV_CONFIG"
    return "the default path" if path else f"no file: {DEFAULT_PATH} is absent"


@dataclass(frozen=True)
class Entry:
    """One effective setting: its key as ampenv.toml spells it, its value, where it came from."""

    key: str
    value: Any
    source: str


def effective(config: Config, specs: list[CheckSpec]) -> list[Entry]:
    """Every setting in effect, each from the file or a default (`ampenv config show`)."""
    here = config.label
    data = config.data
    skip = data.get("checks", {}).get("skip")
    entries = [Entry("checks.skip", skip or [], here if skip is not None else "default")]
    for spec in specs:
        mine = config.check_settings.get(spec.id, {})
        merged = config.settings_for(spec)
        for name in ["timeout", *(n for n in merged if n != "timeout")]:
            source = here if name in mine else f"default ({spec.source})"
            entries.append(Entry(f'checks."{spec.id}".{name}', merged[name], source))
    for name, raw in data.get("env", {}).items():
        entries.append(Entry(f"env.{name}", raw, here))
    for section, schema in SECTIONS.items():
        if isinstance(schema, dict) and schema:
            given = data.get(section, {})
            for key in schema:
                source = here if key in given else "default"
                entries.append(Entry(f"{section}.{key}", config.section(section).get(key), source))
    return entries


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):  # an inline table; keys quoted, as chip names hold spaces
        pairs = (f"{toml_value(str(k))} = {toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    return '"' + "".join(_ESCAPED.get(c) or _control(c) for c in str(value)) + '"'


# A TOML basic string's escapes: a value shows on one line and reads back as it was
_ESCAPED = {
    "\\": "\\\\",
    '"': '\\"',
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _control(c: str) -> str:
    """A character as a TOML string shows it: what is not printable (controls, C1, line and
    paragraph separators, direction marks) by its code; a lone surrogate (a non-UTF-8 byte of
    the environment) as U+FFFD, which TOML can hold."""
    if c.isprintable():
        return c
    code = 0xFFFD if 0xD800 <= ord(c) <= 0xDFFF else ord(c)
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def baseline(report: Any, specs: list[CheckSpec]) -> str:
    """A commented ampenv.toml: every setting with its default, and the values this node
    shows for settings that capture a fact (the nhc-genconf idea)."""
    lines = [
        f"# ampenv.toml baseline captured on {report.host} at {report.started_at}",
        f"# (backend {report.backend}). Review, then install as {DEFAULT_PATH}.",
        "",
        "[checks]",
        "skip = []                    # ids or family prefixes never to run",
    ]
    for spec in specs:
        run = report.get(spec.id)
        facts = run.facts if run else {}
        lines += ["", f'[checks."{spec.id}"]  # {spec.title}', f"# timeout = {spec.timeout:g}"]
        for name, s in spec.settings.items():
            captured = facts.get(s.capture) if s.capture else None
            if captured is not None:
                lines.append(f"{name} = {toml_value(captured)}  # captured: {s.help}")
            elif s.default is None:
                lines.append(f"# {name} =   # {s.help}")
            else:
                lines.append(f"# {name} = {toml_value(s.default)}  # {s.help}")
    for name, schema in SECTIONS.items():
        if isinstance(schema, dict) and schema:
            lines += ["", f"[{name}]"]
            for key, s in schema.items():
                shown = "" if s.default is None else toml_value(s.default)
                lines.append(f"# {key} = {shown}  # {s.help}")
    return "\n".join(lines) + "\n"
