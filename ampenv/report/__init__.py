"""Renderers: the only place that turns a Report into text. Each format module has ``render``.

Built-in formats load lazily (the quick path imports only the one it prints); a package adds a
format with an entry point in the group ``ampenv.formats`` (``name = "module:render"``), as
flake8 loads formatters. A built-in name always wins.
"""

from __future__ import annotations

from typing import Any, Callable

from ampenv.core.model import Report

ENTRY_POINT_GROUP = "ampenv.formats"
Renderer = Callable[..., str]


def _text() -> Renderer:
    from ampenv.report import text

    return text.render


def _json() -> Renderer:
    from ampenv.report import json_report

    return json_report.render


def _junit() -> Renderer:
    from ampenv.report import junit

    return junit.render


def _prometheus() -> Renderer:
    from ampenv.report import prometheus

    return prometheus.render


def _npd() -> Renderer:
    from ampenv.report import npd

    return npd.render


BUILTIN: dict[str, Callable[[], Renderer]] = {
    "text": _text,
    "json": _json,
    "junit": _junit,
    "prometheus": _prometheus,
    "npd": _npd,
}


def _plugins() -> dict[str, Any]:
    from importlib.metadata import entry_points

    found = entry_points(group=ENTRY_POINT_GROUP)
    return {ep.name: ep for ep in found if ep.name not in BUILTIN}


def names() -> list[str]:
    """Every format this installation can render: the built-in ones, then the plugins'."""
    return [*BUILTIN, *sorted(_plugins())]


def renderer(fmt: str) -> Renderer:
    """The render function of a format; ValueError naming the known ones for any other."""
    if fmt in BUILTIN:
        return BUILTIN[fmt]()
    plugin = _plugins().get(fmt)
    if plugin is None:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(names())}")
    return plugin.load()


def render(report: Report, fmt: str, **options: Any) -> str:
    return renderer(fmt)(report, **options)
