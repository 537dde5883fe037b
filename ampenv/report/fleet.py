"""Text rendering of ``ampenv fleet``: one block per group of comparable nodes, then the
certificates that could not be read. Renderer only: the judging is in integrations/fleet.py."""

from __future__ import annotations

from typing import Any

MARKS = {"ok": "[✓]", "alone": "[-]", "outlier": "[✗]", "invalid": "[?]", "superseded": "[-]"}


def _safe(text: Any) -> str:
    """Host names and reasons come from files anyone may have written: no control characters."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


def _key(key: dict[str, Any]) -> str:
    layout = ", channels_last" if key.get("channels_last") else ""
    return (
        f"{key.get('backend')} · {key.get('device')} · {key.get('amp_dtype')} "
        f"{key.get('opt_level')} · {key.get('image_size')} px x {key.get('batch_size')}{layout}"
        f" · ampenv {key.get('ampenv_version')}"
    )


def render(fleet: dict[str, Any]) -> str:
    """``fleet``: the ``ampenv.fleet/1`` JSON document."""
    nodes, groups = fleet["nodes"], fleet["groups"]
    lines = [
        f"ampenv fleet · {len(nodes)} certificate(s) · {len(groups)} group(s) · rule: "
        f"{fleet['rule']['text']}"
    ]
    width = max((len(_safe(n["host"])) for n in nodes), default=4)
    for index, g in enumerate(groups):
        what = "AMP" if g["figure"] == "amp_img_per_s" else "FP32 (AMP not recommended here)"
        lines += [
            "",
            f"group {index + 1}: {_safe(_key(g['key']))}",
            f"  {g['nodes']} node(s), {what} median {g['median_img_per_s']:.3g} img/s, "
            f"MAD {g['mad']:.3g}; each node against the median of its peers",
        ]
        members = [n for n in nodes if n["group"] == index]
        for n in sorted(members, key=lambda n: (n["img_per_s"] or 0.0, n["host"])):
            threads = n["figures"].get("threads")
            extra = f", {threads} thread(s)" if threads else ""
            lines.append(
                f"  {MARKS[n['status']]} {_safe(n['host']):<{width}}  "
                f"{n['img_per_s']:8.3g} img/s  {n['ratio_to_median']:.2f}x peers{extra}"
                + (f"  {n['status']}: {_safe(n['reason'])}" if n["status"] != "ok" else "")
            )
    aside = {"superseded": "older certificates, not judged:", "invalid": "not read:"}
    for status, title in aside.items():
        these = [n for n in nodes if n["status"] == status]
        if these:
            lines += ["", title]
            lines += [f"  {MARKS[status]} {_safe(n['path'])}: {_safe(n['reason'])}" for n in these]
    judged = sum(n["status"] not in aside for n in nodes)
    outliers = fleet["outliers"]
    verdict = (
        f"OUTLIER: {outliers} of {judged} node(s) below their group"
        if outliers
        else f"NO OUTLIER among {judged} node(s)"
    )
    if outliers:
        verdict += " → drain or inspect it (clocks, power cap, other jobs, driver), then certify"
    lines += ["", f"{verdict} (exit {fleet['exit_code']})"]
    return "\n".join(lines) + "\n"
