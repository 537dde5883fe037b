"""The scripts under tools/ are not a package: a test loads one by its path."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType


def load_tool(name: str) -> ModuleType:
    path = Path(__file__).parent.parent / "tools" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool
