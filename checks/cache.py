"""cache.*: compile caches built by another CANN, the known cache and log places, and the
compile failures in recent logs whose fix is clearing those caches (from the scan that
logs.errors reads too)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine
from ampenv.knowledge.failures import BY_ID
from ampenv.probe import caches
from ampenv.probe import logs as logscan
from ampenv.probe.caches import Inventory, Place
from ampenv.util.formats import count, human_bytes, utc_iso_or_none

FIX = BY_ID["op-compile-failed"].fix
OFFLINE = (
    "offline bundle: a bundle holds no caches, so their sizes and staleness are judged on the "
    "live node only (the collect run's report.json has that verdict); its plog tails are judged"
)


def _refusal_remedy(place: Place) -> str:
    if place.source == "[cache] roots":
        return f"remove {place.root} from [cache] roots in ampenv.toml"
    var, sep, _ = place.source.partition("=")
    if sep:
        return f"point {var} at a folder of its own, e.g. export {var}=$HOME/.cache/{var.lower()}"
    return f"name the folder {place.root} points to in [cache] roots of ampenv.toml"


def _place_findings(inv: Inventory) -> Iterator[Finding]:
    for place in inv.places:
        where = f"{place.label} ({place.root})"
        if place.refused:
            yield Finding(
                Status.WARN,
                f"{place.label}: {place.refused}; ampenv will not clean it",
                _refusal_remedy(place),
            )
        elif place.stale:
            size = human_bytes(sum(e.bytes for e in place.stale))
            yield Finding(
                Status.WARN if place.kind == "compile" else Status.PASS,
                f"{where}: {count(len(place.stale), 'entry', 'entries')} ({size}) "
                f"{place.stale[0].stale}",
                FIX,
            )
        elif place.exists:
            newest = max((e.newest for e in place.entries), default=None)
            files = count(sum(e.files for e in place.entries), "file")
            when = f", newest {utc_iso_or_none(newest)}" if newest else ""
            yield Finding(Status.PASS, f"{where}: {human_bytes(place.bytes)} in {files}{when}")


def _log_findings(logs: logscan.LogScan, inv: Inventory) -> Iterator[Finding]:
    """The failures whose fix is clearing the compile caches, against what was cleaned since;
    every other failure in the logs is logs.errors' to judge."""
    cleaned = inv.last_cleaned
    nothing_stale = inv.walked and not any(p.stale for p in inv.places if p.kind == "compile")
    for hit in logs.hits:
        failure = hit.failure
        if not failure.clears_cache:
            continue
        where = f"{failure.id} ×{hit.count}, {hit.first}"
        if cleaned and logs.newest(hit) < cleaned:
            yield Finding(
                Status.PASS,
                f"resolved: {where}, logged before ampenv cleaned on {utc_iso_or_none(cleaned)}",
            )
            continue
        remedy = failure.fix
        if nothing_stale:
            remedy += (
                "; no cache is stale against the installed CANN: "
                "`ampenv clean --all --yes` clears every cache"
            )
        yield Finding(Status.WARN, f"{where}: {failure.meaning.split(';')[0]}", remedy)


def _facts(inv: Inventory, logs: logscan.LogScan) -> dict[str, Any]:
    kit = inv.toolkit
    return {
        "toolkit": kit
        and {
            "version": kit.version,
            "info": kit.info,
            "installed_at": utc_iso_or_none(kit.installed_at),
        },
        "places": [p.to_fact() for p in inv.places],
        "disk_free_bytes": inv.disk_free,
        "logs_scanned": logs.files,
        "log_hits": [
            {"id": h.id, "first": h.first, "count": h.count, "line": h.line}
            for h in logs.hits
            if h.failure.clears_cache
        ],
    }


@check(
    "cache.stale",
    title="Caches and logs",
    timeout=30,
    why="An operator compile cache built by another CANN version feeds stale kernels to the "
    "new one; a compile failure in recent logs says they did.",
    remedies=(
        FIX,
        "point a variable that names /, a home or a system folder at a folder of its own",
        "after a compile failure in the logs: clear the caches (`ampenv clean --yes`)",
    ),
    settings={
        "scan_seconds": Setting(
            float,
            0.5,
            "time the size scan may take; entries it misses are not judged",
            gt=0,
            le=7 * 86400,
        ),
    },
)
def cache_stale(ctx: CheckContext) -> Result:
    """Size, age and builder of every known cache and log place; compile caches built before the
    installed CANN (stale); places that must never be cleaned; the free disk; and the
    compile failures in recent plogs and --log files whose fix is clearing the caches."""
    cfg = ctx.config.section("cache")
    inv = caches.inventory(ctx.probe, cfg, budget=ctx.settings["scan_seconds"])
    logs = logscan.scan(
        ctx.probe,
        [p.root for p in inv.places if p.kind == "log"],
        list(ctx.logs),
        tail_mb=cfg["log_tail_mb"],
        max_age_days=cfg["log_max_age_days"],
    )
    findings = [*_place_findings(inv), *_log_findings(logs, inv)]
    details = [f"free disk: {human_bytes(b)} under {root}" for root, b in inv.disk_free.items()]
    if logs.unread:
        details.append(
            f"{logs.unread} log(s) left unread: the scan stops after {logscan.BUDGET_S:g} s"
        )
    if not inv.complete:
        details.append(
            f"the size scan stopped after {ctx.settings['scan_seconds']:g} s: entries it did not "
            'finish are not judged (raise [checks."cache.stale"] scan_seconds)'
        )
    total = human_bytes(sum(p.bytes for p in inv.places if p.kind != "log"))
    scanned = f"no open compile failure in {len(logs.files)} recent log(s)"
    kw: dict[str, Any] = {
        "facts": _facts(inv, logs),
        "metrics": {
            "cache_bytes": float(sum(p.bytes for p in inv.places if p.kind != "log")),
            "stale_bytes": float(sum(e.bytes for p in inv.places for e in p.stale)),
            "log_hits": float(sum(h.failure.clears_cache for h in logs.hits)),
        },
    }
    if not inv.walked:
        details.insert(0, OFFLINE)
        if all(f.status is Status.PASS for f in findings):
            summary = f"offline bundle: caches not judged; {scanned}"
            return Result.skip(summary, details=[f.message for f in findings] + details, **kw)
    if inv.toolkit is None:
        details.insert(0, "no CANN toolkit found: compile caches cannot be judged stale")
        if all(f.status is Status.PASS for f in findings):
            summary = f"no CANN toolkit: staleness not judged ({total} in caches); {scanned}"
            return Result.skip(summary, details=[f.message for f in findings] + details, **kw)
    else:
        installed = utc_iso_or_none(inv.toolkit.installed_at) or "at an unknown time"
        details.insert(0, f"CANN {inv.toolkit.version} installed {installed} ({inv.toolkit.info})")
    version = inv.toolkit.version if inv.toolkit else "?"
    ok = f"no cache built by another CANN than {version} ({total} in caches); {scanned}"
    return combine(findings, ok, details=details, **kw)


@cache_stale.fix
def clear_stale_caches(ctx: CheckContext, result: Result) -> str:
    """Remove exactly the stale caches (not logs, not torch's caches), safely."""
    from ampenv.repair import clean  # --fix only: the checks themselves only look

    try:
        done = clean.clean(
            ctx.probe,
            ctx.config.section("cache"),
            dry_run=False,
            logs=False,
            wait=ctx.timeout_left(5.0),
        )
    except clean.CleanRefused as exc:
        return f"nothing removed: {exc}"
    return clean.describe(done)
