"""Renderers: the only place that turns a Report into text. Each module has ``render``."""

from __future__ import annotations

import importlib
from typing import Any

from ampenv.core.model import Report

# format name -> module in this package; each renders a Report to a string.
FORMATS = {
    "text": "text",
    "json": "json_report",
    "junit": "junit",
    "prometheus": "prometheus",
    "npd": "npd",
}


def render(report: Report, fmt: str, **options: Any) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    module = importlib.import_module(f"ampenv.report.{FORMATS[fmt]}")
    return module.render(report, **options)
