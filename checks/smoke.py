"""smoke.*: a short ResNet50 training, FP32 then AMP, proves that device, driver, CANN, torch,
torch_npu and the bundled AMP work together, and how much AMP gains on this node."""

from __future__ import annotations

from ampenv.checks import CheckContext, Result, Setting, check
from ampenv.probe import chips


def _dtype_refused(ctx: CheckContext, setting_key: str) -> Result | None:
    """A dtype setting this node's chip does not compute in fails before any training: on a
    910A a bfloat16 run would only die at its first operator (EZ1001 DT_BFLOAT16)."""
    dtype = ctx.settings.get("dtype")
    if ctx.backend != "npu" or dtype is None:
        return None
    chip, _, source = chips.of_node(ctx.probe, ctx.config.check_settings, ctx.timeout_left(10))
    if chips.computes_in(chip, dtype) is not False:
        return None
    usable = chips.LOW_PRECISION[chips.family(chip)]
    return Result.fail(
        f"dtype {dtype} asked in {setting_key}, but the {chips.family(chip)} chip ({chip}, from "
        f"{source}) computes in {' and '.join(usable)} only",
        remedy=f'dtype = "{usable[0]}" in {setting_key}, or remove the dtype line (the chip\'s '
        "default is used)",
        facts={"dtype": dtype, "chip": chip, "chip_source": source},
    )


@check(
    "smoke.resnet50",
    title="ResNet50 AMP smoke training",
    profile="certify",
    needs=("python.stack",),
    # Not beside device work of other checks: the timings would measure both.
    after=("amp.support", "dist.allreduce"),
    timeout=600,
    why="Every piece can pass on its own while training still fails or crawls: a real model "
    "trained under AMP next to an FP32 baseline shows that the loss falls, stays finite and "
    "close to FP32, and that AMP brings the speed and memory it should.",
    remedies=(
        "ampenv doctor --only amp.support -v (which op or dtype is wrong)",
        'dtype = "bfloat16" or opt_level = "O1" in [checks."smoke.resnet50"]',
        'dtype = "float16" in [checks."smoke.resnet50"] (a chip without bf16, as the 910A)',
        "stop other jobs on the device (npu-smi info / nvidia-smi) and certify again",
    ),
    settings={
        "opt_level": Setting(str, None, "AMP opt level (default O2 on NPU/CUDA, O1 on CPU)"),
        "dtype": Setting(str, None, "float16 or bfloat16 (default: the chip's; CPU bfloat16)"),
        "image_size": Setting(
            int, None, "image side in pixels (224 on NPU/CUDA, 64 on CPU)", ge=32
        ),
        "batch_size": Setting(int, None, "images per step (64 on NPU/CUDA, 2 on CPU)", ge=2),
        "steps": Setting(int, None, "training steps per run, warm-up included (30 / 3)", ge=1),
        "warmup": Setting(int, None, "first steps left out of the timing (5 / 1)", ge=0),
        "threads": Setting(int, 0, "CPU threads per run (0: half the CPUs)", ge=0),
        "min_loss_drop": Setting(float, 0.3, "share by which the AMP loss must fall", ge=0, le=1),
        "loss_tolerance": Setting(
            float, 0.15, "largest |AMP - FP32| final loss, as a share of the initial loss", ge=0
        ),
        "min_speedup": Setting(
            float, None, "expected AMP speedup (1.8 on NPU/CUDA; CPU: none)", ge=0
        ),
        "min_mem_reduction": Setting(
            float, None, "expected peak memory saving (0.4 on NPU/CUDA; CPU: none)", le=1
        ),
    },
)
def smoke_resnet50(ctx: CheckContext) -> Result:
    """A seeded ResNet50 memorises a fixed synthetic batch, first in FP32, then under the
    bundled AMP (amp.initialize, amp.autocast, the dynamic loss scaler), each run in its own
    child process. AMP must keep the loss finite, make it fall, stay close to FP32 and not
    overflow on every step; its speedup and memory saving are compared with what the device
    should give."""
    # Imported here: loading the registry (every quick run) must not pay for certify's modules.
    from ampenv.active.smoke import parent as runner
    from ampenv.active.smoke import verdict

    if ctx.probe.distribution_version("torch") is None:
        return Result.skip("torch is not installed: nothing to train with")
    try:
        plan = runner.plan(ctx.backend, ctx.settings, ctx.probe.host()["cpu_count"])
        thresholds = verdict.Thresholds.of(ctx.backend, ctx.settings)
    except ValueError as exc:
        return Result.error(f"{verdict.SETTING_KEY}: {exc}")
    refused = _dtype_refused(ctx, verdict.SETTING_KEY)
    if refused is not None:
        return refused
    progress = runner.StepProgress(ctx.progress, plan.batch_size)
    try:
        outcome = runner.smoke(plan, thresholds, ctx.timeout_left, ctx.probe.env, progress)
    except runner.SmokeError as exc:
        return Result.error(exc.summary, details=exc.details)
    facts = runner.facts(plan, outcome)
    return verdict.judge(outcome.metrics, outcome.amp.payload, facts, thresholds)
