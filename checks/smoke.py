"""smoke.*: a short ResNet50 training, FP32 then AMP, proves that device, driver, CANN, torch,
torch_npu and the bundled AMP work together, and how much AMP gains on this node."""

from __future__ import annotations

from dataclasses import replace

from ampenv.checks import CheckContext, Result, Setting, Status, check
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
        "a slow AMP on a judged device class: check clocks, power cap and driver; or set "
        'min_speedup / min_mem_reduction in [checks."smoke.resnet50"] for a device known to '
        "gain less",
        "short of the fleet baseline: compare with peers (`ampenv fleet certs/`), fix the node, "
        "certify again; refresh the baseline with `ampenv fleet certs/ --baseline-out FILE`",
    ),
    settings={
        "opt_level": Setting(str, None, "AMP opt level (default O2 on NPU/CUDA, O1 on CPU)"),
        "dtype": Setting(str, None, "float16 or bfloat16 (default: the chip's; CPU bfloat16)"),
        "image_size": Setting(
            int, None, "image side in pixels (NPU/CUDA 224; CPU: 224 native bf16, 64 else)", ge=32
        ),
        "batch_size": Setting(
            int, None, "images per step (NPU/CUDA 64; CPU: 8 native bf16, 2 else)", ge=2
        ),
        "steps": Setting(
            int, None, "training steps per run, warm-up included (30; CPU 7 / 3)", ge=1
        ),
        "warmup": Setting(int, None, "first steps left out of the timing (5; CPU 2 / 1)", ge=0),
        "channels_last": Setting(
            bool, None, "NHWC model and images (default: on for CPUs with native bf16)"
        ),
        "measure_tf32": Setting(
            bool, True, "NPU/CUDA: also time FP32 with TF32/HF32 allowed (one more short run)"
        ),
        "threads": Setting(int, 0, "CPU threads per run (0: every CPU the process may use)", ge=0),
        "min_loss_drop": Setting(float, 0.3, "share by which the AMP loss must fall", ge=0, le=1),
        "loss_tolerance": Setting(
            float, 0.15, "largest |AMP - FP32| final loss, as a share of the initial loss", ge=0
        ),
        "min_speedup": Setting(
            float,
            None,
            "expected AMP speedup (NPU/CUDA 1.8, CPU with native bf16 1.5; not judged where "
            "AMP is not recommended)",
            ge=0,
        ),
        "min_mem_reduction": Setting(
            float,
            None,
            "expected training memory saving (NPU/CUDA 0.4, CPU with native bf16 0.25)",
            le=1,
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
    from ampenv.knowledge import expectations

    if ctx.probe.distribution_version("torch") is None:
        return Result.skip("torch is not installed: nothing to train with")
    klass = _device_class(ctx)
    try:
        plan = runner.plan(ctx.backend, ctx.settings, ctx.probe.host()["cpu_count"], klass.sizes)
        thresholds = verdict.Thresholds.of(ctx.backend, ctx.settings, klass)
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
    facts["device_model"] = _device_model(ctx, facts)
    if ctx.backend != "cpu":  # the chip the child saw decides the class of an accelerator
        klass = expectations.classify(ctx.backend, facts.get("chip"))
        thresholds = verdict.Thresholds.of(ctx.backend, ctx.settings, klass)
    result = verdict.judge(
        outcome.metrics, outcome.amp.payload, facts, thresholds, outcome.speedups
    )
    return _against_baseline(ctx, result)


def _device_class(ctx: CheckContext):
    from ampenv.knowledge import expectations
    from ampenv.probe import cpuinfo

    if ctx.backend == "cpu":
        info = cpuinfo.read(ctx.probe)
        return expectations.classify_cpu(info.flags if info else None)
    return expectations.classify(ctx.backend)  # refined from the child's chip after the run


def _device_model(ctx: CheckContext, facts: dict) -> str:
    """What the fleet groups by: the CPU model and how many CPUs the node has, or the
    accelerator's name."""
    if ctx.backend == "cpu":
        from ampenv.probe import cpuinfo

        info = cpuinfo.read(ctx.probe)
        model = (info.model if info else None) or "cpu"
        return f"{model} ({info.count if info else ctx.probe.host()['cpu_count']} CPUs)"
    return str(facts.get("device_name") or ctx.backend)


def _against_baseline(ctx: CheckContext, result: Result) -> Result:
    """[certificate] baseline: a node short of its group's figure by more than the configured
    share fails (the figures `ampenv fleet --baseline-out` wrote)."""
    section = ctx.config.section("certificate")
    path = section.get("baseline")
    if not path or result.status not in (Status.PASS, Status.WARN):
        return result
    from ampenv.integrations import fleet

    try:
        baseline = fleet.load_baseline(path)
    except fleet.FleetError as exc:
        return Result.error(f"[certificate] baseline: {exc}", facts=result.facts)
    share = float(section["baseline_max_shortfall"])
    note = fleet.compare_to_baseline(ctx.backend, result.facts, result.metrics, baseline, share)
    facts = {**result.facts, "baseline": note.facts}
    if note.ok:
        return replace(result, details=[*result.details, note.message], facts=facts)
    return Result.fail(
        note.message,
        remedy="find what slows this node against its peers (clocks, power cap, other jobs, "
        "driver): compare `ampenv certificate show` with a good node's; certify again once "
        "fixed, or refresh the figures with `ampenv fleet certs/ --baseline-out FILE`",
        details=[*result.details],
        facts=facts,
        metrics=result.metrics,
    )
