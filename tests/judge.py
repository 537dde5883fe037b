"""Run one built-in check in-process against a probe, as the runner would (no CLI, no child)."""

from __future__ import annotations

import importlib.util
import time
from types import ModuleType
from typing import Optional

from ampenv.checks import CheckContext, CheckSpec, Context, Result
from ampenv.core import config as config_mod
from ampenv.core.registry import builtin_dir
from ampenv.probe import Probe


def load_module(family_file: str) -> ModuleType:
    """A file of the built-in checks/ folder, loaded as the registry loads it."""
    path = builtin_dir() / family_file
    spec = importlib.util.spec_from_file_location(f"under_test_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_checks(family_file: str) -> dict[str, CheckSpec]:
    """The checks a file of the built-in checks/ folder declares, by id."""
    module = load_module(family_file)
    return {v.id: v for v in vars(module).values() if isinstance(v, CheckSpec)}


def judge(
    spec: CheckSpec,
    probe: Probe,
    profile: str = "quick",
    device: Optional[str] = None,
    **settings,
) -> Result:
    config = config_mod.parse("", "<defaults>")
    ctx = Context(config=config, probe=probe, profile=profile, device=device)
    merged = {**config.settings_for(spec), **settings}
    return spec(CheckContext(ctx, spec, merged, time.monotonic() + merged["timeout"]))
