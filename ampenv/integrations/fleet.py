"""The fleet: certificates of many nodes read side by side, and the nodes whose AMP throughput
falls below comparable peers flagged.

Each node runs ``ampenv certify --certificate certs/$(hostname).json``; ``ampenv fleet certs/``
reads them all. Nodes are comparable when they trained the same thing on the same kind of
device: backend, device model, AMP dtype and opt level, image size, batch, channels_last and
ampenv version (the group key). Within a group of at least ``min_group`` nodes a node is an
*outlier* when its AMP images/s lies below the median of its peers (the group without it) by
more than both ``mad_k`` robust standard deviations (1.4826 x their median absolute deviation)
and ``min_gap`` of that median:

- median and MAD, not mean and standard deviation: one node at half speed in a group of four
  moves a mean by 12%; and against its peers, the slow node does not widen the spread it is
  measured with;
- the relative gap keeps a tight, healthy group from flagging a node 2% off (MAD near 0). 10%:
  SuperBench flags a 5% degradation against a baseline measured under controlled conditions;
  certify's smoke run is seconds long, on nodes that may share CPUs, so twice that margin.
  DLRover's straggler (twice the median step time, i.e. half the throughput) is the far end: a
  chip 30% slow from throttling or a bad HBM stack must be caught, so the gap stays well below
  50%;
- with fewer than 3 nodes nothing says which one is slow: they are reported ``alone``.

The figure compared is the AMP images/s, except on a device class where AMP is not recommended
(a CPU without native bf16): nodes there train in FP32, and the emulated AMP figure does not even
follow the CPUs a node has (measured on a 2-core AVX2 EPYC: 0.64 AMP img/s with one thread, 0.61
and 0.69 with two, against 5.7 and 8.3-9.9 FP32 img/s), so their FP32 images/s is compared.

Torch-free and deterministic: certificates are read in sorted path order and every figure is a
pure function of them.
"""

from __future__ import annotations

import json
import os
import statistics
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Optional

from ampenv import __version__
from ampenv.integrations import certificate as cert_mod
from ampenv.util.formats import parse_utc

SCHEMA = "ampenv.fleet/1"
BASELINE_SCHEMA = "ampenv.fleet-baseline/1"
# How far a certificate's issue time may run ahead of this clock (nodes' clocks differ a little)
CLOCK_SKEW_S = 300.0
MAD_SIGMA = 1.4826  # MAD x this estimates the standard deviation of a normal sample
KEY_FIELDS = (
    "backend",
    "device",
    "amp_dtype",
    "opt_level",
    "image_size",
    "batch_size",
    "channels_last",
    "ampenv_version",
)


class FleetError(Exception):
    """A usage error: a path that does not exist, no certificate at all, a bad baseline."""


@dataclass(frozen=True)
class Rule:
    min_gap: float = 0.10
    mad_k: float = 3.5  # Iglewicz and Hoaglin's cut-off for the modified z-score
    min_group: int = 3

    def describe(self) -> str:
        return (
            f"below the median of its peers by more than {self.min_gap:.0%} and "
            f"{self.mad_k:g} x {MAD_SIGMA} x their MAD; groups of {self.min_group}+ nodes"
        )


AMP, FP32 = "amp_img_per_s", "fp32_img_per_s"


@dataclass
class Node:
    host: str
    path: str
    status: str  # ok | outlier | alone | invalid | superseded
    amp_img_per_s: Optional[float] = None
    ratio_to_median: Optional[float] = None  # of the compared figure
    # The figure compared: amp_img_per_s, or fp32_img_per_s where AMP is not recommended.
    figure: str = AMP
    img_per_s: Optional[float] = None  # its value
    reason: str = ""
    group: Optional[int] = None  # index in Fleet.groups
    key: Optional[dict[str, Any]] = None
    figures: dict[str, Any] = field(default_factory=dict)
    peer_median_img_per_s: Optional[float] = None  # the median of the group without this node
    threshold_img_per_s: Optional[float] = None  # below it this node is an outlier
    issued_at: str = ""  # of its certificate: a node's newest is the one judged

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("key")
        return out


@dataclass
class Group:
    key: dict[str, Any]
    nodes: int
    figure: str  # amp_img_per_s or fp32_img_per_s
    median_img_per_s: float  # of all its nodes
    mad: float


@dataclass
class Fleet:
    rule: Rule
    groups: list[Group]
    nodes: list[Node]

    @property
    def outliers(self) -> list[Node]:
        return [n for n in self.nodes if n.status == "outlier"]

    @property
    def exit_code(self) -> int:
        return 1 if self.outliers else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "ampenv_version": __version__,
            "rule": {**asdict(self.rule), "text": self.rule.describe()},
            "groups": [asdict(g) for g in self.groups],
            "nodes": [n.to_json() for n in self.nodes],
            "outliers": len(self.outliers),
            "exit_code": self.exit_code,
        }


def certificate_paths(paths: list[str]) -> list[Path]:
    """Files as given; folders: their ``*.json`` files (not recursive). Sorted, no repeats."""
    if not paths:
        raise FleetError("name at least one certificate file or folder")
    found: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found.update(q for q in p.glob("*.json") if q.is_file())
        elif p.exists():
            found.add(p)
        else:
            raise FleetError(f"{raw}: no such file or folder")
    if not found:
        raise FleetError(f"no certificate (*.json) in {', '.join(paths)}")
    return sorted(found, key=lambda q: str(q))


def _device(body: dict[str, Any], facts: dict[str, Any]) -> str:
    model = facts.get("device_model")
    if isinstance(model, str) and model:
        return model
    devices = (body.get("fingerprint") or {}).get("devices") or []  # certificates before 0.2
    return "; ".join(str(d) for d in devices) or str(body.get("backend"))


def group_key(backend: str, facts: dict[str, Any], version: str, device: str) -> dict[str, Any]:
    return {
        "backend": backend,
        "device": device,
        "amp_dtype": facts.get("amp_dtype"),
        "opt_level": facts.get("opt_level"),
        "image_size": facts.get("image_size"),
        "batch_size": facts.get("batch_size"),
        "channels_last": bool(facts.get("channels_last", False)),
        "ampenv_version": version,
    }


def _figures(facts: dict[str, Any], metrics: dict[str, Any]) -> dict[str, Any]:
    wanted = ("fp32_img_per_s", "amp_img_per_s", "tf32_img_per_s", "amp_speedup", "mem_reduction")
    out = {k: metrics.get(k) for k in wanted if k in metrics}
    out.update({k: facts.get(k) for k in ("threads", "device_class") if k in facts})
    if isinstance(out.get("device_class"), dict):
        out["device_class"] = out["device_class"].get("id")
    return out


def read_node(path: Path) -> Node:
    """One certificate as a fleet node; anything unusable is an ``invalid`` node, never an
    exception."""
    try:
        body = cert_mod.load(str(path))
    except cert_mod.CertificateError as exc:
        return Node(host="?", path=str(path), status="invalid", reason=str(exc))
    host = body["node"]
    if parse_utc(body["issued_at"]).timestamp() > time.time() + CLOCK_SKEW_S:
        # judged as the node's newest, it would set every real later one aside
        why = f"issued in the future ({body['issued_at']}): a clock ahead, or a forged date"
        return Node(host, str(path), "invalid", reason=why)
    smoke = body.get("smoke")
    if not smoke:
        return Node(host, str(path), "invalid", reason="no smoke training in this certificate")
    facts = smoke.get("facts") if isinstance(smoke.get("facts"), dict) else {}
    metrics = smoke["metrics"]
    figure = compared_figure(facts)
    rate, amp = metrics.get(figure), metrics.get(AMP)
    if not _positive(rate):
        return Node(host, str(path), "invalid", reason=f"no {figure} in this certificate")
    key = group_key(body["backend"], facts, body["ampenv_version"], _device(body, facts))
    return Node(
        host,
        str(path),
        "ok",
        float(amp) if _positive(amp) else None,
        figure=figure,
        img_per_s=float(rate),
        key={**key, "figure": figure},
        figures=_figures(facts, metrics),
        issued_at=body["issued_at"],
    )


def _positive(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0


def compared_figure(facts: dict[str, Any]) -> str:
    """FP32 images/s where the certificate says AMP is not recommended, else AMP's."""
    return FP32 if facts.get("amp_recommended") is False else AMP


def _canon(key: dict[str, Any]) -> str:
    return json.dumps(key, sort_keys=True)


def _limit(rates: list[float], rule: Rule) -> tuple[float, float]:
    """The median of ``rates`` and the figure below which a node is an outlier against them."""
    median = statistics.median(rates)
    mad = statistics.median(abs(r - median) for r in rates)
    return median, median - max(rule.mad_k * MAD_SIGMA * mad, rule.min_gap * median)


def node_key(host: str) -> str:
    """One node however its name is written: case, spaces and invisible or full-width
    characters do not make another node ("NODE-D", "node-d\u200b"). Its domain does: nodes
    named by address (192.168.0.11, .12) or by rack (gpu01.rack1, gpu01.rack2) are others."""
    folded = unicodedata.normalize("NFKC", host).casefold()
    return "".join(c for c in folded if unicodedata.category(c) not in ("Cf", "Zs", "Cc"))


def _supersede(nodes: list[Node]) -> None:
    """One vote per node: of several certificates of one node (yesterday's, a copy, a second
    folder, its name written another way), the newest is judged (of equal ones, the first
    path) and the others are set aside, so that a slow node's own copies never make the
    median it is measured against."""
    newest: dict[str, Node] = {}
    for n in sorted(nodes, key=lambda n: n.path):
        if n.status == "invalid":
            continue
        kept = newest.get(node_key(n.host))
        if kept is None or parse_utc(n.issued_at) > parse_utc(kept.issued_at):
            newest[node_key(n.host)] = n
    for n in nodes:
        kept = newest.get(node_key(n.host))
        if n.status != "invalid" and kept is not None and kept is not n:
            n.status = "superseded"
            n.reason = f"another certificate of {kept.host}, no newer than {kept.path}, is judged"


def judge(nodes: list[Node], rule: Rule = Rule()) -> Fleet:
    """Group the valid nodes and flag the slow ones (see the module's docstring). Each node is
    judged against its peers (the group without it): a slow node does not widen the spread it
    is measured with."""
    _supersede(nodes)
    by_key: dict[str, list[Node]] = {}
    for n in nodes:
        if n.status not in ("invalid", "superseded"):
            by_key.setdefault(_canon(n.key or {}), []).append(n)
    groups: list[Group] = []
    for index, canon in enumerate(sorted(by_key)):
        members = by_key[canon]
        rates = [n.img_per_s or 0.0 for n in members]
        median = statistics.median(rates)
        mad = statistics.median(abs(r - median) for r in rates)
        judged = len(members) >= rule.min_group
        key = json.loads(canon)
        figure = key.pop("figure", AMP)
        what = "AMP" if figure == AMP else "FP32"
        groups.append(Group(key, len(members), figure, median, mad))
        for i, n in enumerate(members):
            n.group = index
            rate = n.img_per_s or 0.0
            if not judged:
                n.ratio_to_median = rate / median if median else None
                n.status = "alone"
                n.reason = (
                    f"{len(members)} comparable node(s): at least {rule.min_group} are needed "
                    "to tell a slow one"
                )
                continue
            peers, limit = _limit(rates[:i] + rates[i + 1 :], rule)
            n.ratio_to_median = rate / peers if peers else None
            n.peer_median_img_per_s, n.threshold_img_per_s = peers, limit
            if rate < limit:
                n.status = "outlier"
                n.reason = (
                    f"{what} {rate:.3g} img/s is {1 - rate / peers:.0%} below the median "
                    f"{peers:.3g} of its {len(members) - 1} peers (flagged below {limit:.3g}): "
                    "check clocks, power cap, other jobs and the driver on this node, then "
                    "certify it again"
                )
            else:
                n.status, n.reason = "ok", f"within its peers (flagged below {limit:.3g})"
    return Fleet(rule, groups, nodes)


def read(paths: list[str], rule: Rule = Rule()) -> Fleet:
    """Certificates at ``paths`` (files or folders), judged. Raises FleetError on usage
    errors only."""
    return judge([read_node(p) for p in certificate_paths(paths)], rule)


# -- baseline: the group figures a later certify compares one node with ----------------------
def baseline(fleet: Fleet) -> dict[str, Any]:
    """Per group, the median of the compared figure over its nodes that are not outliers."""
    groups = []
    for index, g in enumerate(fleet.groups):
        good = [
            n.img_per_s or 0.0
            for n in fleet.nodes
            if n.group == index and n.status in ("ok", "alone")
        ]
        if good:
            median = statistics.median(good)
            groups.append(
                {"key": g.key, "figure": g.figure, "median_img_per_s": median, "nodes": len(good)}
            )
    return {"schema": BASELINE_SCHEMA, "ampenv_version": __version__, "groups": groups}


def write_baseline(path: str, fleet: Fleet) -> None:
    from ampenv.util.atomic import write_text

    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_text(path, json.dumps(baseline(fleet), indent=2, sort_keys=True) + "\n")


def load_baseline(path: str) -> dict[str, Any]:
    try:
        with open(path, "rb") as fh:
            raw = fh.read(cert_mod.MAX_BYTES + 1)
        body = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise FleetError(
            f"{path}: no such file (write it with `ampenv fleet --baseline-out`)"
        ) from None
    except OSError as exc:
        raise FleetError(f"{path}: {exc.strerror}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise FleetError(f"{path}: not JSON ({exc})") from None
    ok = isinstance(body, dict) and body.get("schema") == BASELINE_SCHEMA
    if not ok or not isinstance(body.get("groups"), list):
        raise FleetError(f"{path}: not an {BASELINE_SCHEMA} file")
    for g in body["groups"]:
        ok = isinstance(g, dict) and isinstance(g.get("key"), dict)
        if not ok or g.get("figure") not in (AMP, FP32) or not _positive(g.get("median_img_per_s")):
            raise FleetError(f"{path}: a group without a key, a figure or a positive median")
    return body


@dataclass
class Comparison:
    ok: bool
    message: str
    facts: dict[str, Any]


def compare_to_baseline(
    backend: str,
    facts: dict[str, Any],
    metrics: dict[str, Any],
    base: dict[str, Any],
    max_shortfall: float,
) -> Comparison:
    """This node's images/s (AMP's, or FP32's where AMP is not recommended) against its
    group's figure in ``base``."""
    key = group_key(backend, facts, __version__, str(facts.get("device_model") or backend))
    figure = compared_figure(facts)
    rate = metrics.get(figure)
    group = next(
        (g for g in base["groups"] if _canon(g["key"]) == _canon(key) and g["figure"] == figure),
        None,
    )
    what = "AMP" if figure == AMP else "FP32"
    if group is None or not _positive(rate):
        return Comparison(
            True,
            "baseline: no figures for this node's group (not compared)",
            {"group": key, "compared": False},
        )
    median = float(group["median_img_per_s"])
    ratio = rate / median
    facts_out = {
        "group": key,
        "compared": True,
        "figure": figure,
        "median_img_per_s": median,
        "ratio": ratio,
        "max_shortfall": max_shortfall,
    }
    if ratio < 1 - max_shortfall:
        return Comparison(
            False,
            f"{what} {rate:.3g} img/s is {1 - ratio:.0%} below the fleet baseline {median:.3g} "
            f"img/s of its group (at most {max_shortfall:.0%} allowed)",
            facts_out,
        )
    return Comparison(
        True,
        f"baseline: {what} {rate:.3g} img/s is {ratio:.2f}x the group's {median:.3g} img/s",
        facts_out,
    )
