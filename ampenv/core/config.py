"""ampenv.toml: lookup, validation and defaults.

Found by ``--config``, then ``$AMPENV_CONFIG``, then ``/etc/ampenv/ampenv.toml``; no file means
defaults. Every error names the file and the key, and is a usage error (exit 2).
"""

from __future__ import annotations

import importlib
import math
import os
import sys
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Optional

from ampenv.core.plugin import PROFILES, Setting

if TYPE_CHECKING:
    from ampenv.core.plugin import CheckSpec

DEFAULT_PATH = "/etc/ampenv/ampenv.toml"

# The longest time ampenv waits on anything: a week. Much more overflows the waits (a queue or
# lock timeout past ~292 years raises OverflowError), and no health check needs it.
MAX_SECONDS = 7 * 86400
# A number of seconds for a timeout or a deadline: nan would never expire, 0 or less at once.
SECONDS = Setting(float, None, "seconds", gt=0, le=MAX_SECONDS)
POLICIES = ("fail-closed", "warn-only")  # of `ampenv run`

# Sections whose keys are simple settings. A section validated by its own module names it as
# "module:function" (called with the table and the file path; raises ConfigError).
SECTIONS: dict[str, dict[str, Setting] | str] = {
    "checks": {},  # handled by validate_checks once the registry is loaded
    "env": "ampenv.knowledge.envcontract:validate",
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
        "roots": Setting(list, [], "extra cache folders ampenv may clean"),
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


class ConfigError(Exception):
    def __init__(self, path: str, key: str, message: str) -> None:
        self.path, self.key, self.message = path, key, message
        where = f"{path}: {key}" if key else path
        super().__init__(f"{where}: {message}")


def _type_ok(value: Any, expected: type) -> bool:
    if expected is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if expected is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, expected)


def out_of_range(value: Any, setting: Setting) -> Optional[str]:
    """What is wrong with a value against the setting's bounds or choices, or None."""
    if setting.choices and value not in setting.choices:
        return f"must be one of {', '.join(setting.choices)}, got {value!r}"
    if setting.type not in (int, float):
        return None
    if not math.isfinite(value):
        return f"must be a finite number, got {value!r}"
    if setting.gt is not None and not value > setting.gt:
        return f"must be more than {setting.gt:g}, got {value!r}"
    if setting.ge is not None and not value >= setting.ge:
        return f"must be at least {setting.ge:g}, got {value!r}"
    if setting.le is not None and not value <= setting.le:
        return f"must be at most {setting.le:g}, got {value!r}"
    return None


def validate_settings(
    table: Any, schema: dict[str, Setting], path: str, prefix: str
) -> dict[str, Any]:
    """Check a table against a schema; return it merged over the defaults."""
    if not isinstance(table, dict):
        raise ConfigError(path, prefix, "must be a table")
    values = {name: s.default for name, s in schema.items()}
    for key, value in table.items():
        if key not in schema:
            known = ", ".join(sorted(schema)) or "none"
            raise ConfigError(path, f"{prefix}.{key}", f"unknown key (known keys: {known})")
        expected = schema[key].type
        if not _type_ok(value, expected):
            raise ConfigError(
                path, f"{prefix}.{key}", f"must be {expected.__name__}, got {value!r}"
            )
        problem = out_of_range(value, schema[key])
        if problem:
            raise ConfigError(path, f"{prefix}.{key}", problem)
        values[key] = value
    return values


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


def _custom_validator(ref: str) -> Callable[[Any, str], dict[str, Any]]:
    module, func = ref.split(":")
    return getattr(importlib.import_module(module), func)


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


def parse(text: str, path: str) -> Config:
    data = _loads(text, path)
    config = Config(path=path, data=data)
    for name, table in data.items():
        schema = SECTIONS.get(name)
        if schema is None:
            raise ConfigError(path, name, f"unknown section (known: {', '.join(SECTIONS)})")
        if isinstance(schema, str):
            config.sections[name] = _custom_validator(schema)(table, path)
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
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        raise ConfigError(path, "", f"cannot be read: {exc.strerror}") from None
    return parse(text, path)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):  # an inline table; keys quoted, as chip names hold spaces
        pairs = (f"{_toml_value(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{" + ", ".join(pairs) + "}"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


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
                lines.append(f"{name} = {_toml_value(captured)}  # captured: {s.help}")
            elif s.default is None:
                lines.append(f"# {name} =   # {s.help}")
            else:
                lines.append(f"# {name} = {_toml_value(s.default)}  # {s.help}")
    for name, schema in SECTIONS.items():
        if isinstance(schema, dict) and schema:
            lines += ["", f"[{name}]"]
            for key, s in schema.items():
                shown = "" if s.default is None else _toml_value(s.default)
                lines.append(f"# {key} = {shown}  # {s.help}")
    return "\n".join(lines) + "\n"
