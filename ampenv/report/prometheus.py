"""``--format prometheus``: the text exposition format, for node_exporter's textfile collector.

Pure: everything comes from the report, plus what the CLI learnt elsewhere (``certified``,
from ``certificate verify``). No sample carries a timestamp (node_exporter rejects them);
the run's completion time is a gauge of its own.
"""

from __future__ import annotations

import math
import re
from typing import Optional

from ampenv.core.model import Report, Status
from ampenv.util.formats import parse_utc, printable

PREFIX = "ampenv_"


def escape_label(value: str) -> str:
    """A label value: the format's three escapes (backslash, newline, double quote), and every
    other character that is not printable as its visible escape with the backslash escaped
    (ESC reads back as the four characters ``\\x1b``): no value can end or garble a line."""
    out = []
    for ch in value:
        if ch in _LABEL_ESCAPES:
            out.append(_LABEL_ESCAPES[ch])
        elif not ch.isprintable():
            out.append("\\" + printable(ch))
        else:
            out.append(ch)
    return "".join(out)


_LABEL_ESCAPES = {"\\": "\\\\", "\n": "\\n", '"': '\\"'}


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def format_value(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def metric_name(raw: str) -> str:
    """A valid metric name from a free-form key (smoke metric names are snake_case already)."""
    name = re.sub(r"[^a-zA-Z0-9_]", "_", raw)
    return name if not name[:1].isdigit() else "_" + name


class _Family:
    def __init__(self, name: str, help_text: str) -> None:
        self.lines = [f"# HELP {name} {_escape_help(help_text)}", f"# TYPE {name} gauge"]
        self.name = name

    def sample(self, value: float, **labels: str) -> None:
        shown = ",".join(f'{k}="{escape_label(v)}"' for k, v in labels.items())
        series = f"{self.name}{{{shown}}}" if shown else self.name
        self.lines.append(f"{series} {format_value(value)}")


def _finished_at(report: Report) -> float:
    started = parse_utc(report.started_at)
    return started.timestamp() + report.duration_s


# Base units, as Prometheus names them (and promtool checks): the smoke run's own keys say
# img_per_s and MiB; the metric names say images_per_second and bytes. A contract: README.
UNIT_RENAMES = (("_img_per_s", "_images_per_second", 1.0), ("_mb", "_bytes", float(1 << 20)))
SMOKE_HELP = "the smoke run's {key} (smoke.resnet50 metrics in the README), last certify run"


def smoke_metric(key: str) -> tuple[str, float]:
    """The metric name of a smoke key and the factor to its base unit."""
    name = metric_name(key)
    for suffix, base, factor in UNIT_RENAMES:
        if name.endswith(suffix):
            return name[: -len(suffix)] + base, factor
    return name, 1.0


def _smoke_families(report: Report) -> list[_Family]:
    families: dict[str, _Family] = {}
    for c in report.checks:
        if c.id.split(".", 1)[0] != "smoke":
            continue
        for key, value in c.metrics.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            base, factor = smoke_metric(key)
            name = f"{PREFIX}smoke_{base}"
            fam = families.setdefault(name, _Family(name, SMOKE_HELP.format(key=key)))
            fam.sample(float(value) * factor, check=c.id)
    if families:
        last = _Family(
            f"{PREFIX}smoke_last_run_timestamp_seconds",
            "Unix time the last run with a smoke check (certify) finished.",
        )
        last.sample(_finished_at(report))
        return [*families.values(), last]
    return []


def _node_families(
    report: Report, certified: Optional[bool], certificate_expires: Optional[float]
) -> list[_Family]:
    status = _Family(
        f"{PREFIX}check_status",
        "1 for the status each check reported in the last run, 0 for the other statuses.",
    )
    duration = _Family(f"{PREFIX}check_duration_seconds", "Wall time each check took.")
    for c in report.checks:
        for s in Status:
            status.sample(1 if c.status is s else 0, check=c.id, status=s.value)
        duration.sample(c.duration_s, check=c.id)
    last = _Family(f"{PREFIX}last_run_timestamp_seconds", "Unix time the last run finished.")
    last.sample(_finished_at(report))
    healthy = _Family(
        f"{PREFIX}node_healthy",
        "1 when the last run's exit code was 0 (no check failed or errored), else 0.",
    )
    healthy.sample(1 if report.exit_code == 0 else 0)
    families = [status, duration, last, healthy]
    if certified is not None:
        cert = _Family(
            f"{PREFIX}certified",
            "1 when `ampenv certificate verify` accepted this node's certificate "
            "(fresh, fingerprint matches the node now), else 0.",
        )
        cert.sample(1 if certified else 0)
        families.append(cert)
    if certificate_expires is not None:
        expiry = _Family(
            f"{PREFIX}certificate_expiry_timestamp_seconds",
            "Unix time the node's certificate expires (alert on it minus time()).",
        )
        expiry.sample(certificate_expires)
        families.append(expiry)
    return families


def _text(families: list[_Family]) -> str:
    return "\n".join(line for fam in families for line in fam.lines) + "\n"


NODE_FILE = "ampenv.prom"
SMOKE_FILE = "ampenv_certify.prom"


def textfiles(
    report: Report,
    *,
    certified: Optional[bool] = None,
    certificate_expires: Optional[float] = None,
) -> dict[str, str]:
    """The textfile collector's files: ``ampenv.prom`` (the last run, any profile) and, from a
    run with smoke metrics, ``ampenv_certify.prom``: a later quick run replaces the first and
    leaves the certify metrics be. No family is in both (node_exporter refuses duplicates)."""
    files = {NODE_FILE: _text(_node_families(report, certified, certificate_expires))}
    smoke = _smoke_families(report)
    if smoke:
        files[SMOKE_FILE] = _text(smoke)
    return files


def render(
    report: Report,
    *,
    certified: Optional[bool] = None,
    certificate_expires: Optional[float] = None,
    **_: object,
) -> str:
    families = _node_families(report, certified, certificate_expires)
    return _text(families + _smoke_families(report))
