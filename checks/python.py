"""python.*: the Python stack: torch, torch_npu, their match with each other and with CANN,
the environment's dependency conflicts, the CANN libraries torch_npu needs, and (full profile)
whether they really import."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine
from ampenv.knowledge import pairing
from ampenv.knowledge.pairing import AUTOLOAD_OFF, TORCH, TORCH_NPU
from ampenv.probe import cann, packages

# packaging.requirements costs ~35 ms to import: it is imported where a requirement is parsed.
if TYPE_CHECKING:
    pass

AUTOLOAD_GROUP = "torch.backends"  # entry points torch >= 2.5 imports on `import torch`


def _conflicts(dists: dict[str, packages.Dist]) -> list[Finding]:
    findings = []
    for c in packages.conflicts(dists):
        if c.by == TORCH_NPU and c.name == TORCH:
            continue  # judged above, with the exact fix
        findings.append(Finding(Status.WARN, c.describe(), c.fix))
    return findings


# -- the CANN libraries torch_npu needs --------------------------------------------------------


def _providers(names: list[str], found: cann.Discovery) -> list[str]:
    """The set_env.sh lines that put these libraries on the path (toolkit, or NNAL for ATB)."""
    lines: list[str] = []
    for name in names:
        package = cann.LIBRARY_PACKAGES.get(name)
        line = f"source {package[1]}" if package else cann.set_env_line(found)
        if line not in lines:
            lines.append(line)
    return lines


def _cpu_only(ctx: CheckContext) -> bool:
    """An environment with torch_npu used for CPU work on purpose: autoload is off, no NPU."""
    return ctx.probe.env.get("TORCH_DEVICE_BACKEND_AUTOLOAD") == "0" and ctx.backend != "npu"


def _libraries(
    ctx: CheckContext, npu: packages.Dist, found: cann.Discovery, facts: dict[str, Any]
) -> list[Finding]:
    needs = packages.library_needs(ctx.probe, TORCH_NPU, after=(TORCH,))
    if needs is None:
        return []
    if not needs.modules:
        return [
            Finding(
                Status.SKIP,
                "torch_npu's RECORD lists no extension module: the libraries it needs are not "
                "checked",
            )
        ]
    missing = packages.LibraryNeeds.missing(needs.at_import)
    later = {
        k: v for k, v in packages.LibraryNeeds.missing(needs.on_demand).items() if k not in missing
    }
    facts["libraries_missing"] = list(missing)
    facts["libraries_missing_on_demand"] = list(later)
    findings: list[Finding] = []
    if needs.unreadable:
        findings.append(Finding(Status.SKIP, f"could not read: {'; '.join(needs.unreadable[:3])}"))
    if later:
        findings.append(
            Finding(
                Status.SKIP,
                "loaded on demand (torchair, ATB operators), not on the library path: "
                + ", ".join(later)
                + f" ({'; '.join(_providers(list(later), found))})",
            )
        )
    if not missing:
        found_count = len({n.name for n in needs.at_import})
        findings.append(
            Finding(Status.PASS, f"the {found_count} libraries torch_npu loads are all found")
        )
        return findings

    names = ", ".join(missing)
    where = ""
    if found.toolkit:
        in_toolkit = [
            m for m in missing if ctx.probe.path(f"{found.toolkit.home}/lib64/{m}").is_file()
        ]
        if in_toolkit:
            where = f"; {', '.join(in_toolkit)} in {found.toolkit.home}/lib64"
    remedy = "; ".join(_providers(list(missing), found))
    if _cpu_only(ctx):
        return [
            *findings,
            Finding(
                Status.WARN,
                f"torch_npu cannot be imported (needs {names}, not on the library path); torch "
                "works only because TORCH_DEVICE_BACKEND_AUTOLOAD=0",
                f"pip uninstall torch-npu (a CPU-only environment), or {remedy}",
            ),
        ]
    autoload = AUTOLOAD_GROUP in npu.entry_point_groups
    also = " `import torch` fails too: torch autoloads torch_npu." if autoload else ""
    return [
        *findings,
        Finding(
            Status.FAIL,
            f"CANN runtime not on the library path: torch_npu needs {names}{where}.{also}",
            f"{remedy}; for CPU-only use of this environment: {AUTOLOAD_OFF}",
        ),
    ]


# -- the check ---------------------------------------------------------------------------------

OFFLINE = (
    "offline bundle: dependency conflicts, torch_npu's libraries and the import are judged on "
    "the live node only"
)


def _summary(facts: dict[str, Any]) -> str:
    parts = [("torch", facts["torch"]), ("torch_npu", facts["torch_npu"]), ("CANN", facts["cann"])]
    return ", ".join(f"{label} {version}" for label, version in parts if version) or "no torch"


@check(
    "python.stack",
    title="Python stack: torch, torch_npu, CANN",
    timeout=90,
    why="A torch_npu built for another torch or CANN, a dependency conflict, or CANN libraries "
    "missing from the library path make `import torch` itself fail, often with an error that "
    "names neither cause.",
    remedies=(
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
        'pip install "torch==X.Y.*" "torch-npu==X.Y.Z"',
        "export TORCH_DEVICE_BACKEND_AUTOLOAD=0 (CPU-only use of an environment with torch_npu)",
    ),
    settings={
        "import_timeout": Setting(
            float,
            60.0,
            "seconds the full profile's `import torch, torch_npu` child may take",
            gt=0,
            le=7 * 86400,
        ),
    },
)
def python_stack(ctx: CheckContext) -> Result:
    """torch and torch_npu versions from metadata (no import) and their match with each other
    and with CANN; dependency conflicts as pip check sees them; the libraries torch_npu's
    extension modules need, found or not. Full profile: imports both in a child process."""
    dists = packages.installed(ctx.probe)
    torch, npu = dists.get(TORCH), dists.get(TORCH_NPU)
    found = cann.discover(ctx.probe)
    cann_version = found.toolkit.version if found.toolkit else None
    facts: dict[str, Any] = {
        "torch": torch.version if torch else None,
        "torch_npu": npu.version if npu else None,
        "cann": cann_version,
    }
    findings = pairing.versions(ctx.backend, torch, npu, cann_version)
    if npu and cann_version:
        findings.append(pairing.cann_match(npu, torch, cann_version))
    if ctx.probe.offline:
        findings.append(Finding(Status.SKIP, OFFLINE))
        return combine(findings, _summary(facts), facts=facts)
    facts.update(python=sys.version.split()[0], executable=sys.executable)
    findings += _conflicts(dists)
    if npu:
        findings += _libraries(ctx, npu, found, facts)
    if ctx.profile_at_least("full") and (torch or npu):
        fix_torch = (
            f'pip install "{pairing.torch_requirement(npu)}"' if npu else "pip install torch"
        )
        from ampenv.active import import_verdict  # the full profile's child: not at load

        findings += import_verdict.judge_import(ctx, npu, found, fix_torch, facts, _cpu_only(ctx))
    return combine(findings, _summary(facts), facts=facts)
