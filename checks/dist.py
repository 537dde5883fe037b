"""dist.*: the collective path between devices (and nodes), as nccl-tests and hccl_test check it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from ampenv.active.collective import BACKENDS
from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine

if TYPE_CHECKING:
    from ampenv.active.collective import launch as dist_launch

DTYPES = ("float32", "float16", "bfloat16")
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30
# The bandwidth sweep: small on a CPU, up to where an interconnect reaches its peak otherwise.
DEFAULT_SIZES = {"cpu": [64 * KIB, 1 * MIB, 4 * MIB], "device": [1 * MIB, 16 * MIB, 256 * MIB, GIB]}
# Seconds kept back from the timeout to kill the workers and write the verdict.
REPORT_MARGIN = 1.0
# How to look at a rank's device after it hung or died, per backend.
INSPECT = {
    "npu": "inspect NPU {i}: `npu-smi info -t health -i {i}` and its log under ~/ascend/log",
    "cuda": "inspect GPU {i}: `nvidia-smi -q -i {i}`; rerun with NCCL_DEBUG=INFO",
    "cpu": "look for OOM kills or stopped processes (`dmesg | tail`, `ps -eo pid,stat,cmd`)",
}
RERUN = "then `ampenv doctor --only dist.allreduce -v` to see every rank's output"


def _human(nbytes: int) -> str:
    for unit, size in (("GiB", GIB), ("MiB", MIB), ("KiB", KIB)):
        if nbytes >= size and nbytes % size == 0:
            return f"{nbytes // size} {unit}"
    return f"{nbytes} B"


def _threshold(table: dict[str, Any], chip: str) -> Optional[float]:
    """The configured least busbw for this chip (case-insensitive), else for ``*``."""
    by_name = {str(k).lower(): v for k, v in table.items()}
    value = by_name.get(chip.lower(), by_name.get("*"))
    return float(value) if value is not None else None


def _invalid(settings: dict[str, Any]) -> Optional[str]:
    """Why the settings cannot run (the config layer checks only their types)."""
    if settings["processes"] < 2:
        return "processes must be at least 2: all-reduce needs two ranks"
    if settings["sizes"] is not None and not all(
        isinstance(s, int) and s > 0 for s in settings["sizes"]
    ):
        return "sizes must be positive byte counts"
    if settings["iters"] < 1 or settings["warmup"] < 0:
        return "iters must be at least 1 and warmup at least 0"
    dtypes = settings["dtypes"]
    unknown = [d for d in dtypes if d not in DTYPES] if dtypes != ["auto"] else []
    if unknown or not dtypes:
        known = ", ".join(DTYPES)
        return f"dtypes: unknown {', '.join(map(str, unknown))} (use {known}, or auto alone)"
    bad = [k for k, v in settings["min_busbw_gbps"].items() if not isinstance(v, (int, float))]
    if bad:
        return f"min_busbw_gbps: the value for {bad[0]!r} must be a number of GB/s"
    if settings["mode"] not in ("auto", "local"):
        return f"mode must be auto or local, not {settings['mode']!r}"
    return None


def _collective_view(launch: dist_launch.Launch) -> list[dict[str, Any]]:
    """Every rank's result as rank 0 gathered it, else the results this process holds."""
    for payload in launch.payloads:
        if payload.get("ranks"):
            return payload["ranks"]
    return launch.payloads


def _facts(launch: dist_launch.Launch, view: list[dict[str, Any]]) -> dict[str, Any]:
    plan = launch.plan
    keys = ("host", "device", "chip", "pid")
    ranks = {p["rank"]: {"rank": p["rank"], **{k: p.get(k) for k in keys}} for p in view}
    for run in launch.runs:  # ranks that never reported: what the launcher knows
        blank = {"rank": run.rank, "host": None, "device": run.device, "chip": None}
        ranks.setdefault(run.rank, {**blank, "pid": run.spawned.pid})
    return {
        "backend": plan.backend,
        "world_size": plan.world_size,
        "mode": plan.mode,
        "master": f"{plan.master_addr}:{plan.master_port}",
        "run_id": plan.run_id,
        "ranks": [ranks[r] for r in sorted(ranks)],
        "dtypes": list(dict.fromkeys(row["dtype"] for p in view for row in p["correctness"])),
        "sizes": sorted({row["bytes"] for p in view for row in p["bandwidth"]}),
    }


def _failure_finding(launch: dist_launch.Launch, failure: dist_launch.Failure) -> Finding:
    kind = launch.plan.device_kind
    index = failure.device.partition(":")[2]  # "npu:3" -> "3"; "cpu" -> ""
    # A connect problem is about the path between ranks, not the rank's own device.
    first = failure.network or INSPECT[kind].format(i=index)
    remedy = f"{first}; {RERUN}"
    status = Status.ERROR if failure.kind == "missing" else Status.FAIL
    return Finding(status, failure.message, remedy)


def _sweep(view: list[dict[str, Any]]) -> list[dict[str, float]]:
    """Per size, the slowest rank's figures: a collective is as fast as its slowest member."""
    by_size: dict[int, dict[str, float]] = {}
    for payload in view:
        for row in payload["bandwidth"]:
            kept = by_size.get(row["bytes"])
            if kept is None or row["busbw_gbps"] < kept["busbw_gbps"]:
                by_size[row["bytes"]] = row
    return [by_size[size] for size in sorted(by_size)]


def _wrong_sums(view: list[dict[str, Any]], kind: str) -> list[Finding]:
    findings = []
    for payload in view:
        where = f"rank {payload['rank']} ({payload.get('device')} on {payload.get('host')})"
        inspect = INSPECT[kind].format(i=payload.get("local_rank", 0))
        for row in payload["correctness"]:
            if row["wrong"]:
                first = row["first_wrong"]
                findings.append(
                    Finding(
                        Status.FAIL,
                        f"all-reduce of {row['elements']} {row['dtype']} gave {row['wrong']} "
                        f"wrong values on {where}: [{first['index']}] = {first['got']:g}, "
                        f"want {first['want']:g}",
                        f"the collective path corrupts data: drain the node; {inspect}",
                    )
                )
    return findings


def _bandwidth(
    view: list[dict[str, Any]], world_size: int
) -> tuple[dict[str, float], list[str], int]:
    """Metrics per size and at the peak, a line per size as nccl-tests prints them, and the
    size of the peak. One rank crosses no link (NCCL's one-rank all-reduce returns at once:
    1 GiB "moved" at 78 TB/s on an H200), so there the lines give the time alone, and no
    bandwidth is reported."""
    sweep = _sweep(view)
    metrics = {"rendezvous_s": max(p.get("rendezvous_s", 0.0) for p in view)}
    lines = []
    for row in sweep:
        line = f"{_human(row['bytes']):>8}: {row['time_us']:10.1f} us"
        if world_size > 1:
            metrics[f"busbw_gbps_{row['bytes']}"] = row["busbw_gbps"]
            metrics[f"algbw_gbps_{row['bytes']}"] = row["algbw_gbps"]
            line += f"  algbw {row['algbw_gbps']:8.3f} GB/s  busbw {row['busbw_gbps']:8.3f} GB/s"
        lines.append(line)
    if world_size > 1:
        metrics["busbw_gbps_peak"] = max(r["busbw_gbps"] for r in sweep)
        metrics["algbw_gbps_peak"] = max(r["algbw_gbps"] for r in sweep)
    return metrics, lines, max(sweep, key=lambda r: r["busbw_gbps"])["bytes"]


def _below_threshold(peak: float, chip: str, floor: float) -> Finding:
    return Finding(
        Status.FAIL,
        f"peak busbw {peak:.2f} GB/s is below {floor:g} GB/s for {chip}",
        "check the links between the devices (npu: `hccn_tool -i <dev> -link -g`, "
        "`ampenv doctor --only env.hccl`; cuda: `nvidia-smi topo -m`) and that nothing "
        'else runs on them; or lower min_busbw_gbps for this chip in [checks."dist.allreduce"]',
    )


def verdict(launch: dist_launch.Launch, thresholds: dict[str, Any]) -> Result:
    plan = launch.plan
    view = _collective_view(launch)
    facts = _facts(launch, view)
    if launch.failures:
        findings = [_failure_finding(launch, f) for f in launch.failures]
        details = [f"rank {f.rank}: {line}" for f in launch.failures for line in f.output]
        details.append(f"every worker's process tree was killed after {launch.elapsed_s:.1f} s")
        return combine(findings, "", facts=facts, details=details)

    findings = _wrong_sums(view, plan.device_kind)
    metrics, details, peak_size = _bandwidth(view, plan.world_size)
    chip = str(view[0].get("chip") or plan.device_kind)
    floor = _threshold(thresholds, chip)
    if plan.world_size == 1:
        details.append(
            "one rank crosses no link: run it across devices or nodes under torchrun or srun "
            "to measure bandwidth"
        )
        measured = "bandwidth not measured on one rank"
    else:
        peak = metrics["busbw_gbps_peak"]
        measured = f"peak busbw {peak:.2f} GB/s at {_human(peak_size)}"
        if floor is None:
            details.append(
                f'no busbw threshold for {chip}: set min_busbw_gbps = {{ "{chip}" = N }}'
            )
        elif peak < floor:
            findings.append(_below_threshold(peak, chip, floor))
    devices = sorted({str(p.get("device")) for p in view})
    sizes = len({r["elements"] for r in view[0]["correctness"]})
    summary = (
        f"{plan.backend} all-reduce over {plan.world_size} rank(s) ({', '.join(devices)}): "
        f"correct for {', '.join(facts['dtypes'])} at {sizes} sizes; {measured}"
    )
    if plan.job and plan.job.rank != 0:
        summary += f" (rank {plan.job.rank}; rank 0 at {plan.master_addr} judges all ranks)"
    return combine(findings, summary, facts=facts, metrics=metrics, details=details)


@check(
    "dist.allreduce",
    title="Collective all-reduce",
    profile="certify",
    timeout=120,
    why="Devices that each pass can still fail a job when the collective between them breaks: "
    "a bad HCCS/RoCE/NVLink link, a wrong network interface or a device that hangs in HCCL "
    "shows up only when ranks all-reduce together, as nccl-tests and hccl_test check it.",
    remedies=(
        "export HCCL_CONNECT_TIMEOUT=1200 when ranks start far apart",
        "check the links: hccn_tool -i <dev> -link -g; nvidia-smi topo -m",
        'lower min_busbw_gbps in [checks."dist.allreduce"] for a chip that is slower by design',
    ),
    settings={
        "processes": Setting(int, 2, "gloo ranks on a CPU machine", ge=2),
        "sizes": Setting(
            list, None, "bandwidth sweep in bytes (CPU 64 KiB-4 MiB, else 1 MiB-1 GiB)"
        ),
        "dtypes": Setting(list, ["auto"], "dtypes checked for exact sums (auto: fp32, fp16, bf16)"),
        "iters": Setting(int, 10, "timed all-reduces per size", ge=1),
        "warmup": Setting(int, 2, "untimed all-reduces per size", ge=0),
        "min_busbw_gbps": Setting(
            dict, {}, 'least peak busbw per chip, e.g. {"Ascend910B3" = 150}'
        ),
        "mode": Setting(str, "auto", "auto: join torchrun/srun when launched by one; local: never"),
        "master_addr": Setting(
            str, None, "rendezvous host under srun (else MASTER_ADDR, SLURM_LAUNCH_NODE_IPADDR)"
        ),
        "master_port": Setting(
            int,
            None,
            "rendezvous port under srun (else MASTER_PORT, 20000 + job id % 20000)",
            ge=1,
            le=65535,
        ),
    },
)
def allreduce(ctx: CheckContext) -> Result:
    """All-reduce gives exact sums for fp32/fp16/bf16 from 1 element to ~4 MiB across every
    device of the node (or every rank of a torchrun/srun job), and its bus bandwidth
    (algbw × 2(n−1)/n) over a size sweep meets the chip's threshold."""
    # Imported here, not at the top: a certify-only check must not slow down loading the
    # registry, which every quick run does.
    from ampenv.active.collective import launch as dist_launch
    from ampenv.probe.distenv import job_rank, visible_devices

    settings = ctx.settings
    problem = _invalid(settings)
    if problem:
        return Result.error(f'[checks."dist.allreduce"] {problem}')
    kind = ctx.backend
    if ctx.probe.distribution_version("torch") is None:
        return Result.skip("torch is not installed: the collective test runs torch.distributed")
    if kind == "npu" and ctx.probe.distribution_version("torch_npu") is None:
        return Result.skip("torch_npu is not installed: hccl needs it (see python.stack)")
    try:
        job = (
            job_rank(ctx.probe.env, settings["master_addr"], settings["master_port"])
            if settings["mode"] == "auto"
            else None
        )
    except ValueError as exc:
        return Result.error(f"cannot join the distributed job: {exc}")
    local, how = 0, ""
    if job is None and kind == "cpu":
        local, how = settings["processes"], "processes setting"
    elif job is None:
        local, how = visible_devices(ctx.probe, kind)
        if local == 0:
            return Result.skip(f"no visible {kind} device ({how})")
    sizes = settings["sizes"] or DEFAULT_SIZES["cpu" if kind == "cpu" else "device"]
    worker_args = [
        *("--backend", BACKENDS[kind], "--dtypes", ",".join(settings["dtypes"])),
        *("--sizes", ",".join(map(str, sizes))),
        *("--iters", str(settings["iters"]), "--warmup", str(settings["warmup"])),
    ]
    plan = dist_launch.plan(kind, BACKENDS[kind], local, worker_args, job)
    budget = max(1.0, ctx.timeout_left(float(settings["timeout"])) - REPORT_MARGIN)
    launch = dist_launch.execute(plan, budget, ctx.probe.env, on_progress=ctx.progress)
    result = verdict(launch, settings["min_busbw_gbps"])
    if job is None:
        result.details.append(f"{len(plan.local_ranks)} ranks from the {how}")
    return result
