"""The engine behind every command that judges the node: config, probe, registry, runner.

``diagnose`` is what ``ampenv doctor``, ``certify``, ``run`` and the hooks share; the CLI only
parses options and renders what comes back.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

from ampenv.core import config as config_mod
from ampenv.core.model import Report
from ampenv.core.plugin import PROFILES, Context
from ampenv.core.registry import Registry, discover
from ampenv.core.runner import DEFAULT_DEADLINES, make_report, run, select, unmatched
from ampenv.probe import Probe


@dataclass(frozen=True)
class Options:
    """What a command asks of a run; callees derive changed copies (dataclasses.replace)."""

    profile: str = "quick"
    only: list[str] = field(default_factory=list)
    skip: list[str] = field(default_factory=list)
    config_path: Optional[str] = None
    sysroot: Optional[str] = None
    device: Optional[str] = None
    bundle: Optional[str] = None
    deadline: Optional[float] = None
    strict: bool = False
    fix: bool = False
    logs: tuple[str, ...] = ()
    # Hears the run as it happens (runner.run's on_event), e.g. the live text report.
    observer: Optional[Callable[..., None]] = None


@dataclass
class Session:
    """What a command needs before it runs checks: config, probe, registry."""

    config: config_mod.Config
    probe: Probe
    registry: Registry


def sysroot_of(given: Optional[str], env: dict[str, str]) -> str:
    """The prefix of every system path read: --sysroot, else $AMPENV_SYSROOT (empty: none).
    Raises ConfigError (a usage error) where it names no folder: every path would read as
    missing, and the node be judged on nothing."""
    sysroot = given if given is not None else env.get("AMPENV_SYSROOT", "")
    if sysroot and not os.path.isdir(sysroot):
        raise config_mod.ConfigError(
            "--sysroot or $AMPENV_SYSROOT", "", f"{sysroot} is not a folder"
        )
    return sysroot


def open_session(opts: Options, env: Optional[dict[str, str]] = None) -> Session:
    """Load config and checks. Raises ConfigError (a usage error) for a bad config."""
    env = dict(os.environ if env is None else env)
    sysroot = sysroot_of(opts.sysroot, env)
    if opts.bundle:
        from ampenv.probe.bundle import BundleProbe

        probe: Probe = BundleProbe(opts.bundle)
    else:
        probe = Probe(sysroot=sysroot, env=env)
    cfg = config_mod.load(opts.config_path, env, sysroot)
    registry = discover(env, sysroot)
    cfg.validate_checks(registry.checks)
    return Session(cfg, probe, registry)


# Past its run's budget, a judging command is killed from outside (a check stuck in C code that
# holds the interpreter's lock outlives the runner's own deadline); rendering, --fix and the
# certificate get this much more.
HARD_GRACE_S = 30.0


def budget(opts: Options, runner_cfg: dict) -> float:
    """Seconds the checks of a run may take: --deadline, [runner] deadline, the profile's."""
    return opts.deadline or runner_cfg.get("deadline") or DEFAULT_DEADLINES[opts.profile]


def hard_limit(opts: Options) -> float:
    """Seconds a judging command may take in all, past which it is killed (see HARD_GRACE_S).
    A config that does not load counts as none here: the command itself reports it."""
    env = dict(os.environ)
    sysroot = opts.sysroot if opts.sysroot is not None else env.get("AMPENV_SYSROOT", "")
    try:
        runner_cfg = config_mod.load(opts.config_path, env, sysroot).section("runner")
        return budget(opts, runner_cfg) + HARD_GRACE_S
    except Exception:
        return max(DEFAULT_DEADLINES.values()) + HARD_GRACE_S


def diagnose(opts: Options, session: Optional[Session] = None) -> Report:
    if opts.profile not in PROFILES:
        raise ValueError(f"unknown profile {opts.profile!r}: use one of {', '.join(PROFILES)}")
    started, started_wall = time.monotonic(), time.time()
    session = session or open_session(opts)
    for flag, patterns in (("--only", opts.only), ("--skip", opts.skip)):
        unknown = unmatched(list(session.registry.checks), patterns)
        if unknown:
            known = ", ".join(sorted(session.registry.checks))
            raise ValueError(f"{flag} {', '.join(unknown)}: no check or family; known: {known}")
    picked = select(session.registry.ordered(), opts.profile, opts.only, opts.skip)
    if (opts.only or opts.skip) and not picked:
        asked = " ".join([*(f"--only {p}" for p in opts.only), *(f"--skip {p}" for p in opts.skip)])
        raise ValueError(f"{asked}: no check is left to run")
    runner_cfg = session.config.section("runner")
    ctx = Context(
        config=session.config,
        probe=session.probe,
        profile=opts.profile,
        deadline=started + budget(opts, runner_cfg),
        fix=opts.fix,
        device=opts.device,
        logs=opts.logs,
        observer=opts.observer,
    )
    if opts.observer is not None:  # the report's header, before any check is judged
        opts.observer(
            "begin", "", profile=ctx.profile, backend=ctx.backend, host=ctx.probe.hostname()
        )
    runs = run(
        ctx,
        session.registry,
        only=opts.only,
        skip=opts.skip,
        workers=int(runner_cfg.get("workers", 8)),
        on_event=opts.observer,
    )
    return make_report(ctx, runs, started, started_wall, opts.strict)
