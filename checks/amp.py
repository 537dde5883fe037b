"""amp.*: which low-precision dtypes this device supports, and whether the bundled AMP works on
it (autocast dtypes, overflow detection, step skipping, loss scale back-off)."""

from __future__ import annotations

from typing import Any

from ampenv.active import child
from ampenv.checks import CheckContext, Finding, Result, Status, check, combine

MODULE = "ampenv.active.amp_selftest"
NATIVE = {True: "native", False: "emulated", None: "native or not: unknown"}
STACK_HINT = "ampenv doctor --only python.stack -v (torch and torch_npu must match CANN)"


def _dtype_findings(kind: str, table: dict[str, Any]) -> list[Finding]:
    rows: dict[str, dict[str, Any]] = table["dtypes"]
    default = table["default"]
    findings = []
    for name, row in rows.items():
        findings.append(Finding(Status.PASS, f"{name}: {row['reason']}"))
    chosen = rows[default]
    native = [name for name, row in rows.items() if row["native"]]
    # On a CPU the speed of AMP is informational (design.md): a developer machine is not judged.
    if chosen["native"] is False and kind != "cpu":
        if native:
            remedy = f"train with amp.initialize(..., dtype=torch.{native[0]})"
        else:
            remedy = "train in FP32 (opt_level O0) here, or use a device with native fp16/bf16"
        findings.append(
            Finding(
                Status.WARN,
                f"AMP's default {default} is emulated on this {kind} device: "
                "it will not be faster than FP32",
                remedy,
            )
        )
    return findings


def _functional_findings(probe: dict[str, Any]) -> list[Finding]:
    dtype = probe["dtype"]
    findings = []
    if probe["autocast_ok"]:
        findings.append(
            Finding(
                Status.PASS,
                f"amp.autocast: matmul in {probe['matmul_dtype']}, softmax in "
                f"{probe['softmax_dtype']}",
            )
        )
    else:
        findings.append(
            Finding(
                Status.FAIL,
                f"amp.autocast ran matmul in {probe['matmul_dtype']} (expected {dtype}) and "
                f"softmax in {probe['softmax_dtype']} (expected float32)",
                STACK_HINT,
            )
        )
    scale = f"loss scale {probe['scale_before']:g} → {probe['scale_after']:g}"
    if probe["scaler_ok"]:
        findings.append(Finding(Status.PASS, f"an inf gradient skipped the step, {scale}"))
        return findings
    missed = []
    if not probe["overflow_detected"]:
        how = "the overflow flag" if probe["saturation_mode"] else "inf/NaN in the grads"
        missed.append(f"the injected inf was not detected ({how})")
    if not probe["step_skipped"]:
        missed.append("the step was not skipped")
    if probe["scale_after"] != probe["scale_before"] / 2:
        missed.append(f"{scale}, expected halving")
    remedy = STACK_HINT
    if probe["saturation_mode"]:
        remedy += "; saturation mode needs torch_npu's npu_get_float_status: update torch_npu"
    findings.append(Finding(Status.FAIL, "the loss scaler failed: " + ", ".join(missed), remedy))
    return findings


@check(
    "amp.support",
    title="AMP dtypes and functional probe",
    profile="full",
    needs=("python.stack",),
    timeout=90,
    why="AMP picks its low-precision dtype from the device: fp16 only on Ascend 910A, fp16 or "
    "bf16 on 910B/A3 and on CUDA from sm_80, bf16 on CPU, where it is emulated without "
    "avx512_bf16/amx_bf16. A dtype the device emulates is slower than FP32, and an autocast "
    "or loss scaler that does not work on the device trains to NaN or not at all.",
    remedies=(
        "train with amp.initialize(..., dtype=torch.float16) or torch.bfloat16, whichever "
        "the device runs natively",
        STACK_HINT,
    ),
)
def amp_support(ctx: CheckContext) -> Result:
    """Which low-precision dtypes the device supports, natively or emulated (from the Ascend
    chip, the CUDA compute capability or the CPU flags), and a functional probe in a child: a
    tiny model under amp.autocast gives the expected dtypes, and an injected inf gradient makes
    the scaler skip the step and halve the scale."""
    kind = ctx.backend
    if ctx.probe.distribution_version("torch") is None:
        return Result.skip("torch is not installed: AMP needs it")
    from ampenv.probe import cpuinfo  # full profile only: not at load time

    args = ["--device", kind]
    info = cpuinfo.read(ctx.probe) if kind == "cpu" else None
    if info is not None:
        args += ["--cpu-flags", ",".join(sorted(info.flags))]
    ran, payload = child.run_module(
        MODULE, args, ctx.timeout_left(float("inf")), env=ctx.probe.env, progress=ctx.progress
    )
    if payload is None:
        return Result.error(
            f"the AMP probe gave no result: {ran.describe()}", details=child.tail(ran.stderr)
        )
    if "error" in payload:
        what = " ← ".join(payload["error"])
        if payload["stage"] == "dtypes":
            return Result.error(f"could not open the {kind} device for AMP: {what}")
        return Result.fail(f"AMP failed on the {kind} device: {what}", remedy=STACK_HINT)
    table, probe = payload["dtypes"], payload["functional"]
    facts = {
        "device": probe["device"],
        "chip": table["chip"],
        "default_dtype": table["default"],
        "dtypes": table["dtypes"],
        "saturation_mode": probe["saturation_mode"],
        "functional": probe,
    }
    how = NATIVE[table["dtypes"][table["default"]]["native"]]
    chip = f" {table['chip']}" if table["chip"] else ""
    summary = f"{kind}{chip}: {table['default']} by default ({how}); autocast and loss scaler work"
    findings = _dtype_findings(kind, table) + _functional_findings(probe)
    return combine(findings, summary, facts=facts)
