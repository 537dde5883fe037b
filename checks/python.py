"""python.*: the Python stack: torch, torch_npu, their match with each other and with CANN,
the environment's dependency conflicts, the CANN libraries torch_npu needs, and (full profile)
whether they really import."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Any, Optional

from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine
from ampenv.knowledge import compat
from ampenv.probe import cann, devnodes, npusmi, packages
from ampenv.probe.distinfo import canonical as canonicalize_name
from ampenv.probe.proc import Outcome

# packaging.requirements costs ~35 ms to import: it is imported where a requirement is parsed.
if TYPE_CHECKING:
    from packaging.requirements import Requirement

TORCH, TORCH_NPU = "torch", "torch-npu"
AUTOLOAD_OFF = "export TORCH_DEVICE_BACKEND_AUTOLOAD=0"
AUTOLOAD_GROUP = "torch.backends"  # entry points torch >= 2.5 imports on `import torch`
CHILD = "ampenv.active.import_probe"

# What a failed import prints (full profile only): patterns, compiled by re on first use.
MISSING_LIB = r"(\S+\.so(?:\.[\w.]+)?): cannot open shared object file"
BACKEND_LOAD = "Failed to load the backend extension: torch_npu"
UNDEFINED_SYMBOL = r"undefined symbol: (\S+)"
CANN_MISMATCH = r"CANN package version (\S+) and PyTorch version (\S+) do not match"
NO_RUNTIME = r"ASCEND_(?:RUNTIME|COMPILER)_PATH : (\S+) does not exist"
TWO_ACCELERATORS = r"Two accelerators cannot be used at the same time in PyTorch: npu and (\w+)"


# -- versions --------------------------------------------------------------------------------


def _minor(version: str) -> Optional[tuple[int, int]]:
    from packaging.version import InvalidVersion, Version

    try:
        release = Version(version).release
    except InvalidVersion:
        return None
    return (*release, 0)[:2]


def _torch_requirement(npu: packages.Dist) -> Requirement:
    """What torch_npu asks of torch: its own Requires-Dist when it has one (2.13.0 declares
    torch==2.13.0.*), else the rule that torch_npu X.Y.Z needs torch X.Y.*."""
    from packaging.requirements import InvalidRequirement, Requirement

    for line in npu.requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) == TORCH and req.specifier and req.marker is None:
            return req
    minor = _minor(npu.version)
    return Requirement(f"torch=={minor[0]}.{minor[1]}.*" if minor else "torch")


def _torch_npu_pin(torch_version: str, cann_version: Optional[str]) -> str:
    """The torch-npu requirement for this torch: the table's row for this CANN, else any
    build of the same torch release."""
    from packaging.version import InvalidVersion, Version

    listed = compat.torch_npu_for(torch_version, cann_version) if cann_version else None
    if listed:
        return f"torch-npu=={listed}"
    try:
        release = ".".join(str(n) for n in Version(torch_version).release)
    except InvalidVersion:
        return "torch-npu"
    return f"torch-npu=={release}.*"


def _pair_for(cann_version: Optional[str]) -> str:
    """The exact install line of the newest torch / torch_npu pair listed for this CANN."""
    row = next(
        (r for r in compat.RELEASES if cann_version and compat.same_cann(r.cann, cann_version)),
        None,
    )
    if row is None:
        return "pip install torch torch-npu, the pair the Ascend/pytorch README lists for your CANN"
    return f'pip install "torch=={row.torch}" "torch-npu=={row.torch_npu}"'


def _versions(
    ctx: CheckContext,
    torch: Optional[packages.Dist],
    npu: Optional[packages.Dist],
    cann_version: Optional[str],
) -> list[Finding]:
    if torch is None and npu is None:
        if ctx.backend == "npu":
            return [
                Finding(
                    Status.FAIL,
                    "neither torch nor torch_npu is installed",
                    _pair_for(cann_version),
                )
            ]
        return [
            Finding(
                Status.WARN,
                "torch is not installed: the AMP probe and the smoke training need it",
                "pip install torch",
            )
        ]
    if npu is None:
        if ctx.backend != "npu":
            return [Finding(Status.PASS, f"torch {torch.version}")]
        pin = _torch_npu_pin(torch.version, cann_version)
        return [
            Finding(
                Status.FAIL,
                f"torch {torch.version} is installed without torch_npu on an NPU node",
                f'pip install "{pin}"',
            )
        ]
    need = _torch_requirement(npu)
    if torch is None:
        return [
            Finding(
                Status.FAIL,
                f"torch_npu {npu.version} is installed, torch is not",
                f'pip install "{need}"',
            )
        ]
    matches = need.specifier.contains(torch.version, prereleases=True) and _minor(
        torch.version
    ) == _minor(npu.version)
    if not matches:
        keep_torch = _torch_npu_pin(torch.version, cann_version)
        return [
            Finding(
                Status.FAIL,
                f"torch_npu {npu.version} needs {need}, but torch {torch.version} is installed",
                f'pip install "{need}" (or, to keep torch {torch.version}: '
                f'pip install "{keep_torch}")',
            )
        ]
    return [Finding(Status.PASS, f"torch {torch.version} with torch_npu {npu.version}")]


def _cann_match(npu: packages.Dist, torch: Optional[packages.Dist], cann_version: str) -> Finding:
    listed = compat.cann_for(npu.version)
    if not listed:
        return Finding(
            Status.SKIP,
            f"torch_npu {npu.version} is not in the compatibility table: not judged against "
            f"CANN {cann_version}",
        )
    if any(compat.same_cann(c, cann_version) for c in listed):
        return Finding(Status.PASS, f"torch_npu {npu.version} is built for CANN {cann_version}")
    fit = compat.torch_npu_for(torch.version, cann_version) if torch else None
    remedy = (
        f'pip install "torch-npu=={fit}"'
        if fit
        else f"install CANN {listed[0]}, the release torch_npu {npu.version} is built for"
    )
    return Finding(
        Status.WARN,
        f"torch_npu {npu.version} is built for CANN {', '.join(listed)}; this node has CANN "
        f"{cann_version}",
        remedy,
    )


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


# -- full profile: import in a child -----------------------------------------------------------


def _expected_npus(ctx: CheckContext) -> Optional[tuple[int, str]]:
    """How many NPUs torch should see, and who says so (npu-smi, else /dev/davinci*), after
    ASCEND_RT_VISIBLE_DEVICES."""
    tool = npusmi.locate(ctx.probe)
    count, source = None, ""
    if tool:
        info = npusmi.info(ctx.probe, tool, ctx.timeout_left(_npusmi_timeout(ctx)))
        if info.table:
            count, source = len(info.table.chips), "npu-smi lists"
    if count is None:
        nodes = devnodes.davinci_numbers(ctx.probe)
        if not nodes:
            return None
        count, source = len(nodes), "/dev has davinci nodes for"
    visible = ctx.probe.env.get("ASCEND_RT_VISIBLE_DEVICES")
    if visible is not None:
        ids, _ = devnodes.parse_id_list(visible)
        count = len([i for i in ids if i < count])
        source += " (after ASCEND_RT_VISIBLE_DEVICES)"
    return count, source


def _npusmi_timeout(ctx: CheckContext) -> float:
    """npu.devices' timeout (its default is 10 s): both checks share one npu-smi run."""
    return float(ctx.config.check_settings.get("npu.devices", {}).get("timeout", 10.0))


def _translate(error: list[str], found: cann.Discovery, fix_torch: str) -> Finding:
    text = "\n".join(error)
    first = error[0] if error else "unknown error"
    lib = re.search(MISSING_LIB, text)
    if lib or BACKEND_LOAD in text:
        what = f"{lib.group(1)} cannot be opened" if lib else "the backend extension failed"
        return Finding(
            Status.FAIL,
            f"CANN runtime not on the library path: importing torch_npu fails ({what})",
            f"{cann.set_env_line(found)}; for CPU-only use of this environment: {AUTOLOAD_OFF}",
        )
    symbol = re.search(UNDEFINED_SYMBOL, text)
    if symbol:
        return Finding(
            Status.FAIL,
            f"torch_npu was built for another torch (undefined symbol {symbol.group(1)[:60]})",
            fix_torch,
        )
    runtime = re.search(NO_RUNTIME, text)
    if runtime:
        return Finding(
            Status.FAIL,
            f"CANN package missing: {runtime.group(1)} does not exist",
            f"install the CANN toolkit there, then {cann.set_env_line(found)}",
        )
    other = re.search(TWO_ACCELERATORS, text)
    if other:
        return Finding(
            Status.FAIL,
            f"torch is a {other.group(1)} build: torch_npu needs the CPU build of torch",
            f"pip install torch --index-url https://download.pytorch.org/whl/cpu (or, to use "
            f"{other.group(1)}: {AUTOLOAD_OFF})",
        )
    return Finding(
        Status.FAIL,
        f"importing torch / torch_npu fails: {first}",
        'run `python -c "import torch, torch_npu"` to see the whole traceback',
    )


def _import(
    ctx: CheckContext,
    npu: Optional[packages.Dist],
    found: cann.Discovery,
    fix_torch: str,
    facts: dict[str, Any],
) -> list[Finding]:
    from ampenv.active.child import run_module, tail  # the full profile's child: not at load

    timeout = ctx.timeout_left(float(ctx.settings["import_timeout"]))
    with_npu = npu is not None and not _cpu_only(ctx)
    args = [] if with_npu else ["--skip-npu"]
    ran, payload = run_module(CHILD, args, timeout, env=ctx.probe.env, progress=ctx.progress)
    what = "import torch, torch_npu" if with_npu else "import torch"
    if ran.outcome is Outcome.TIMEOUT:
        return [
            Finding(
                Status.FAIL,
                f"`{what}` did not finish in {ran.timeout_s:g} s",
                "the driver may be hung: `npu-smi info`, `dmesg -T | tail`; raise "
                '[checks."python.stack"] import_timeout only if imports are merely slow here',
            )
        ]
    if payload is None:
        return [
            Finding(
                Status.FAIL,
                f"`{what}` in a child process: {ran.describe()}, with no result",
                'run `python -c "import torch, torch_npu"` to see what happens',
            ),
            *[Finding(Status.SKIP, line) for line in tail(ran.stdout + ran.stderr, 6)],
        ]
    facts["import"] = payload
    findings: list[Finding] = []
    warned = re.search(CANN_MISMATCH, ran.stdout + ran.stderr)
    if warned and payload.get("torch_version"):
        cann_version, npu_version = warned.groups()
        pin = _torch_npu_pin(payload["torch_version"], cann_version)
        findings.append(
            Finding(
                Status.WARN,
                f"torch_npu warns: CANN {cann_version} and torch_npu {npu_version} do not match",
                f'pip install "{pin}"',
            )
        )
    if payload.get("error"):
        return [*findings, _translate(payload["error"], found, fix_torch)]
    findings.append(Finding(Status.PASS, f"`{what}` works in {ran.duration_s:.1f} s"))
    findings += _devices(ctx, payload)
    return findings


def _devices(ctx: CheckContext, payload: dict[str, Any]) -> list[Finding]:
    if ctx.backend == "cuda" and not payload.get("cuda_available"):
        return [
            Finding(
                Status.FAIL,
                f"torch {payload.get('torch_version')} cannot use the GPUs of this node",
                "install a CUDA build of torch that matches the driver (`nvidia-smi` shows its "
                "CUDA version): pip install torch --index-url https://download.pytorch.org/whl/cu<XY>",
            )
        ]
    if "npu_available" not in payload:
        return []
    expected = _expected_npus(ctx)
    available, count = payload["npu_available"], payload.get("npu_count", 0)
    if expected is None or expected[0] == 0:
        return [Finding(Status.PASS, f"torch_npu imports; torch sees {count} NPUs")]
    want, source = expected
    if not available:
        return [
            Finding(
                Status.FAIL,
                f"torch.npu.is_available() is False, although {source} {want} NPUs",
                "check `npu-smi info` and the driver (npu.* checks); in a container pass "
                "--device /dev/davinciN, /dev/davinci_manager, /dev/devmm_svm, /dev/hisi_hdc and "
                "mount /usr/local/Ascend/driver",
            )
        ]
    if count != want:
        return [
            Finding(
                Status.FAIL,
                f"torch sees {count} NPUs, but {source} {want}",
                "make ASCEND_RT_VISIBLE_DEVICES list only present devices, in ascending order, "
                "and pass every /dev/davinciN to the container",
            )
        ]
    return [Finding(Status.PASS, f"torch sees {count} NPUs, as {source.split(' (')[0]} {want}")]


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
    findings = _versions(ctx, torch, npu, cann_version)
    if npu and cann_version:
        findings.append(_cann_match(npu, torch, cann_version))
    if ctx.probe.offline:
        findings.append(Finding(Status.SKIP, OFFLINE))
        return combine(findings, _summary(facts), facts=facts)
    facts.update(python=sys.version.split()[0], executable=sys.executable)
    findings += _conflicts(dists)
    if npu:
        findings += _libraries(ctx, npu, found, facts)
    if ctx.profile_at_least("full") and (torch or npu):
        fix_torch = f'pip install "{_torch_requirement(npu)}"' if npu else "pip install torch"
        findings += _import(ctx, npu, found, fix_torch, facts)
    return combine(findings, _summary(facts), facts=facts)
