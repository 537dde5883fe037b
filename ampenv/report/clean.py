"""What `ampenv clean` shows: the plan (dry run) or what went, and what was refused and why."""

from __future__ import annotations

import json

from ampenv.repair.clean import CleanResult, Item
from ampenv.util.formats import count, human_bytes, printable

SCHEMA = "ampenv.clean/1"
FORMATS = ("text", "json")


def _item_line(item: Item) -> str:
    return f"  {human_bytes(item.bytes):>10}  {item.path}  ({item.place}: {item.reason})"


def text(result: CleanResult, note: str) -> str:
    plan = result.plan
    lines = [f"ampenv clean: {note}"]
    if result.dry_run:
        lines.append(f"would remove {count(len(plan.items), 'item')}, {human_bytes(plan.bytes)}:")
        lines += [_item_line(i) for i in plan.items]
    else:
        removed = count(len(result.removed), "item")
        lines.append(f"removed {removed}, freed {human_bytes(result.freed)}:")
        lines += [_item_line(i) for i in result.removed]
    refused = plan.refused + result.failed
    if refused:
        lines.append(f"refused or failed ({len(refused)}), left untouched:")
        lines += [f"  {r.path}: {r.reason}" for r in refused]
    if plan.uninspected:
        lines.append(
            f"note: {count(plan.uninspected, 'process', 'processes')} could not be inspected "
            "for open files (permission denied)"
        )
    if result.dry_run and plan.items:
        lines.append("run `ampenv clean --yes` to remove them")
    return "\n".join(printable(line) for line in lines) + "\n"


def as_json(result: CleanResult, note: str) -> str:
    def item(i: Item) -> dict:
        return {"path": str(i.path), "place": i.place, "bytes": i.bytes, "reason": i.reason}

    doc = {
        "schema": SCHEMA,
        "dry_run": result.dry_run,
        "note": note,
        "planned": [item(i) for i in result.plan.items],
        "planned_bytes": result.plan.bytes,
        "removed": [item(i) for i in result.removed],
        "freed_bytes": result.freed,
        "refused": [{"path": r.path, "reason": r.reason} for r in result.plan.refused],
        "failed": [{"path": r.path, "reason": r.reason} for r in result.failed],
        "uninspected_processes": result.plan.uninspected,
        "exit_code": result.exit_code,
    }
    return json.dumps(doc, indent=2) + "\n"


def render(result: CleanResult, fmt: str, note: str) -> str:
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    return as_json(result, note) if fmt == "json" else text(result, note)
