"""host.*: the machine under the training job: CPUs, memory, disk and shared memory."""

from __future__ import annotations

import re

from ampenv.checks import CheckContext, Finding, Result, Setting, Status, check, combine
from ampenv.probe import caches

GIB = 1 << 30
# Thresholds that suit a training node; a CPU-only machine (laptop, CI) is held to less.
DEFAULTS = {
    "accelerator": {"min_cpus": 16, "min_mem_gb": 64.0, "min_disk_gb": 50.0, "min_shm_gb": 8.0},
    "cpu": {"min_cpus": 2, "min_mem_gb": 4.0, "min_disk_gb": 2.0, "min_shm_gb": 0.25},
}


def _shm_size(ctx: CheckContext) -> int | None:
    """The /dev/shm size: the tmpfs `size=` in /proc/mounts, else statvfs."""
    mounts = ctx.probe.read_text("/proc/mounts") or ""
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[1] == "/dev/shm":
            m = re.search(r"(?:^|,)size=(\d+)([kmg]?)", fields[3])
            if m:
                return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": GIB}[m.group(2)]
    usage = ctx.probe.disk_usage("/dev/shm")
    return usage["total"] if usage else None


def _disk_roots(ctx: CheckContext) -> list[str]:
    """The cache and log places `ampenv clean` knows (one list: ampenv.knowledge.caches), then
    /tmp, where the inductor cache and most scratch land."""
    roots = ctx.config.section("cache").get("roots") or []
    places = [p for p in caches.resolve_places(ctx.probe, list(roots)) if not p.refused]
    # A filesystem is named by the first root seen on it: one that exists says more.
    places.sort(key=lambda p: not p.path.is_dir())
    return [*(p.root for p in places), "/tmp"]


@check(
    "host.resources",
    title="Host resources",
    timeout=3,
    why="Too few CPUs starve the data loader; too little memory, disk or /dev/shm kills "
    "jobs hours in, when logs, caches or DataLoader workers fill them.",
    remedies=(
        "docker run --shm-size=16g (or mount a larger tmpfs on /dev/shm)",
        "free disk under the cache and log roots (ampenv clean)",
        "schedule the job on a node with more memory or CPUs",
    ),
    settings={
        "min_cpus": Setting(int, None, "fewest CPUs (default 16 on NPU/CUDA, 2 on CPU)", ge=0),
        "min_mem_gb": Setting(float, None, "least available memory in GiB (64 / 4)", ge=0),
        "min_disk_gb": Setting(float, None, "least free disk under cache/log roots (50 / 2)", ge=0),
        "min_shm_gb": Setting(float, None, "smallest /dev/shm in GiB (8 / 0.25)", ge=0),
    },
)
def host_resources(ctx: CheckContext) -> Result:
    """CPU count, available memory, free disk under the cache and log roots, /dev/shm size."""
    kind = "cpu" if ctx.backend == "cpu" else "accelerator"
    limits = {
        k: ctx.settings.get(k) if ctx.settings.get(k) is not None else v
        for k, v in DEFAULTS[kind].items()
    }
    host = ctx.probe.host()
    findings: list[Finding] = []
    facts: dict = dict(host)

    cpus = host["cpu_count"]
    if cpus < limits["min_cpus"]:
        findings.append(
            Finding(
                Status.WARN,
                f"{cpus} CPUs, fewer than {limits['min_cpus']}",
                "run on a node with more CPUs, or lower num_workers of the "
                "DataLoader to the CPU count",
            )
        )
    else:
        findings.append(Finding(Status.PASS, f"{cpus} CPUs"))

    avail_gb = host["mem_available_bytes"] / GIB
    if avail_gb < limits["min_mem_gb"]:
        findings.append(
            Finding(
                Status.WARN,
                f"{avail_gb:.1f} GiB memory available, below {limits['min_mem_gb']:g}",
                "stop what holds memory (`ps aux --sort=-rss | head`) or use a larger node",
            )
        )
    else:
        findings.append(Finding(Status.PASS, f"{avail_gb:.1f} GiB memory available"))

    seen: set[int] = set()
    disks = {}
    for root in _disk_roots(ctx):
        usage = ctx.probe.disk_usage(root)
        if usage is None or usage["dev"] in seen:
            continue
        seen.add(usage["dev"])
        free_gb = usage["free"] / GIB
        disks[root] = round(free_gb, 2)
        if free_gb < limits["min_disk_gb"]:
            findings.append(
                Finding(
                    Status.FAIL if free_gb < 1 else Status.WARN,
                    f"{free_gb:.1f} GiB free under {root}, below {limits['min_disk_gb']:g}",
                    f"free space under {root}: `ampenv clean --yes` removes "
                    "stale caches and old logs",
                )
            )
    facts["disk_free_gb"] = disks

    shm = _shm_size(ctx)
    if shm is None:
        findings.append(
            Finding(
                Status.PASS, "/dev/shm not found; DataLoader workers will use file-backed sharing"
            )
        )
    else:
        shm_gb = shm / GIB
        facts["shm_gb"] = round(shm_gb, 3)
        if shm_gb < limits["min_shm_gb"]:
            findings.append(
                Finding(
                    Status.WARN,
                    f"/dev/shm is {shm_gb * 1024:.0f} MiB, below "
                    f"{limits['min_shm_gb']:g} GiB: DataLoader workers will "
                    "crash with 'bus error'",
                    "docker run --shm-size=16g ... (Kubernetes: mount an "
                    "emptyDir with medium: Memory at /dev/shm)",
                )
            )
        else:
            findings.append(Finding(Status.PASS, f"/dev/shm {shm_gb:.1f} GiB"))

    summary = f"{cpus} CPUs, {avail_gb:.1f} GiB available, " + (
        f"/dev/shm {shm / GIB:.1f} GiB" if shm else "no /dev/shm"
    )
    return combine(findings, summary, facts=facts)
