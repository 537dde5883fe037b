"""``--format json``: the ``ampenv.report/1`` schema (report.schema.json ships beside it)."""

from __future__ import annotations

import json
from typing import Any

from ampenv.core.model import Report


def render(report: Report, **_: Any) -> str:
    return json.dumps(report.to_dict(), indent=2, sort_keys=False, default=str) + "\n"
