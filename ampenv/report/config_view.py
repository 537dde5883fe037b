"""`ampenv config show`: the configuration in effect, each value with where it came from."""

from __future__ import annotations

import json
from typing import Any

from ampenv.core.config import Entry, toml_value


def render(file: str, how: str, entries: list[Entry], fmt: str = "text") -> str:
    if fmt == "json":
        values = [{"key": e.key, "value": e.value, "source": e.source} for e in entries]
        body = {"schema": "ampenv.config/1", "file": file, "found_by": how, "values": values}
        return json.dumps(body, indent=2, default=str) + "\n"
    lines = [f"# ampenv.toml in effect: {file} ({how})", "# key = value  # source"]
    shown = [(e.key, _shown(e.value), e.source) for e in entries]
    width = min(56, max((len(k) + len(v) + 3 for k, v, _ in shown), default=0))
    lines += [f"{f'{k} = {v}':<{width}}  # {s}" for k, v, s in shown]
    return "\n".join(lines) + "\n"


def _shown(value: Any) -> str:
    return "(unset)" if value is None else toml_value(value)
