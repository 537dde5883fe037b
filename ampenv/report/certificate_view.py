"""Text view of a node certificate, for ``ampenv certificate show``."""

from __future__ import annotations

from typing import Any, Optional

from ampenv.util.formats import printable


def _value(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return "none" if value is None else str(value)


def render(path: str, reason: str, cert: Optional[dict[str, Any]]) -> str:
    lines = [f"certificate {path}", f"  {reason}"]
    if cert is not None:
        lines += [
            f"  node {cert['node']} · backend {cert['backend']} · status {cert['status']} · "
            f"ampenv {cert['ampenv_version']}",
            f"  issued {cert['issued_at']} · expires {cert['expires_at']}",
            "  fingerprint:",
            *[f"    {k} = {_value(v)}" for k, v in cert["fingerprint"].items()],
        ]
        smoke = cert.get("smoke")
        if smoke:
            lines += [f"  smoke.resnet50: {smoke['summary']}"]
            lines += [f"    {k} = {_value(v)}" for k, v in smoke["metrics"].items()]
        lines.append(f"  digest {cert['digest']}")
    return "\n".join(printable(line) for line in lines) + "\n"
