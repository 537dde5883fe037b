"""The parent side of the import probe (:mod:`ampenv.active.import_probe` runs in the child):
what `import torch, torch_npu` did, in the terms of the failure catalogue and of this node."""

from __future__ import annotations

import re
from typing import Any, Optional

from ampenv.active.child import run_module, tail
from ampenv.core.model import Finding, Status
from ampenv.core.plugin import CheckContext
from ampenv.knowledge import failures, pairing
from ampenv.knowledge.pairing import AUTOLOAD_OFF
from ampenv.probe import cann, devnodes, npusmi, packages
from ampenv.probe.proc import Outcome

CHILD = "ampenv.active.import_probe"
# torch_npu's warning when it and CANN do not pair: its versions give the pin to install.
CANN_MISMATCH = r"CANN package version (\S+) and PyTorch version (\S+) do not match"


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
    """The import's failure, named by the one catalogue; the fix is this node's own where the
    node knows better than the catalogue's general one (the set_env.sh line it found, the
    torch_npu pin that pairs with its torch)."""
    hits = failures.scan_lines(error, "import")
    if not hits:
        first = error[0] if error else "unknown error"
        return Finding(
            Status.FAIL,
            f"importing torch / torch_npu fails: {first}",
            'run `python -c "import torch, torch_npu"` to see the whole traceback',
        )
    hit = failures.leading(hits)
    known = hit.failure
    if known.mode == "cann-env" or known.id == "torch-backend-autoload":
        what = (
            f"{hit.match.split(':')[0]} cannot be opened"
            if "cannot open" in hit.match
            else hit.match
        )
        return Finding(
            Status.FAIL,
            f"CANN runtime not on the library path: importing torch_npu fails ({what})",
            f"{cann.set_env_line(found)}; for CPU-only use of this environment: {AUTOLOAD_OFF}",
        )
    fix = fix_torch if known.id == "torch-npu-undefined-symbol" else known.fix
    return Finding(
        Status.FAIL,
        f"importing torch_npu fails ({known.id}): {known.meaning} [{hit.match[:80]}]",
        fix,
    )


def judge_import(
    ctx: CheckContext,
    npu: Optional[packages.Dist],
    found: cann.Discovery,
    fix_torch: str,
    facts: dict[str, Any],
    cpu_only: bool,
) -> list[Finding]:
    """The full profile's import of torch (and torch_npu) in a child, judged: a hang, a crash,
    a known failure named by the catalogue, torch_npu's version warning, the devices torch
    sees against npu-smi."""
    timeout = ctx.timeout_left(float(ctx.settings["import_timeout"]))
    with_npu = npu is not None and not cpu_only
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
        pin = pairing.torch_npu_pin(payload["torch_version"], cann_version)
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
