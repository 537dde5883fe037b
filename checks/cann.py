"""cann.*: the CANN toolkit: found, its version and architecture, and set_env.sh sourced."""

from __future__ import annotations

from ampenv.checks import CheckContext, Finding, Result, Status, check, combine
from ampenv.knowledge import compat
from ampenv.probe import cann


def _sourced(ctx: CheckContext, found: cann.Discovery, toolkit: cann.Toolkit) -> Finding:
    state = cann.sourced_state(ctx.probe, toolkit)
    line = cann.set_env_line(found)
    if state.elsewhere:
        others = ", ".join(f"{k}={v}" for k, v in state.elsewhere.items())
        return Finding(
            Status.FAIL,
            f"the environment mixes CANN installs: {others}, but the toolkit in use is "
            f"{toolkit.home}",
            f"start a fresh shell and run only `{line}`",
        )
    if state.missing:
        return Finding(
            Status.FAIL,
            f"set_env.sh has not been sourced: {', '.join(state.missing)} missing",
            line,
        )
    return Finding(Status.PASS, f"set_env.sh sourced for {toolkit.home}")


def _release_wanted(ctx: CheckContext) -> str:
    """The CANN release to install: the one the installed torch_npu is built for, when the
    compatibility table lists it."""
    torch_npu = ctx.probe.distribution_version("torch-npu")
    releases = compat.cann_for(torch_npu) if torch_npu else []
    if releases:
        return f"{' or '.join(releases)} (the release torch_npu {torch_npu} is built for)"
    return "(the release your torch_npu is built for: see the Ascend/pytorch README)"


@check(
    "cann.toolkit",
    title="CANN toolkit",
    timeout=3,
    why="torch_npu loads CANN's libraries (libascendcl, libhccl, ...) and operator packages from "
    "the toolkit that set_env.sh puts on the paths; a missing, foreign-architecture or "
    "half-sourced toolkit makes every NPU job fail at import or at its first operator.",
    remedies=(
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
        "install Ascend-cann-toolkit for this architecture",
    ),
)
def cann_toolkit(ctx: CheckContext) -> Result:
    """Finds the toolkit (ASCEND_HOME_PATH, ASCEND_TOOLKIT_HOME, ascend-toolkit/latest,
    cann-*), reads ascend_toolkit_install.info, and checks that set_env.sh was sourced for it."""
    found = cann.discover(ctx.probe)
    facts = {"looked": found.looked, "set_env": found.set_env}
    toolkit = found.toolkit
    if toolkit is None:
        if ctx.backend != "npu":
            return Result.skip(
                f"no Ascend NPU on this node (backend {ctx.backend}) and no CANN toolkit",
                details=found.looked,
                facts=facts,
            )
        return Result.fail(
            "no CANN toolkit found",
            remedy=f"install Ascend-cann-toolkit {_release_wanted(ctx)}, "
            "then source its set_env.sh",
            details=found.looked,
            facts=facts,
        )
    facts.update(
        home=toolkit.home,
        real_home=toolkit.real_home,
        found_by=toolkit.found_by,
        version=toolkit.version,
        innerversion=toolkit.info.get("innerversion"),
        arch=toolkit.arch,
        compatible_version=toolkit.compatible,
        info_file=toolkit.info_path,
    )
    findings: list[Finding] = []
    env_home = any(ctx.probe.env.get(v) for v in cann.ENV_HOMES)
    if env_home and toolkit.found_by not in cann.ENV_HOMES:
        findings.append(
            Finding(
                Status.FAIL,
                f"{found.looked[0]}; the toolkit found instead is {toolkit.home}",
                f"unset the stale variable, then `{cann.set_env_line(found)}`",
            )
        )
    if not toolkit.version:
        findings.append(
            Finding(
                Status.WARN,
                f"{toolkit.info_path} has no version= line",
                f"reinstall the toolkit: ./Ascend-cann-toolkit_<version>_linux-"
                f"{cann.machine(ctx.probe)}.run --install",
            )
        )
    host = cann.machine(ctx.probe)
    if toolkit.arch and toolkit.arch != host:
        findings.append(
            Finding(
                Status.FAIL,
                f"the toolkit at {toolkit.home} is built for {toolkit.arch}; this host is {host}",
                f"install the {host} toolkit: Ascend-cann-toolkit_{toolkit.version}_linux-"
                f"{host}.run --install",
            )
        )
    findings.append(_sourced(ctx, found, toolkit))
    summary = f"CANN {toolkit.version} ({toolkit.arch}) at {toolkit.home}"
    return combine(findings, summary, facts=facts)
