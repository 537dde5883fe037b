"""What ampenv knows about NPUs in trouble and what to do about it: npu-smi health words,
who may hold a chip's memory (a live job, a job in another container, a zombie, a context whose
process is gone) with the command each calls for, and the docker flags and driver packages a
missing device node or driver mount needs. Sources: ascend-facts.md §1 (npu-smi, health,
reset), §2 (device nodes, container flags)."""

from __future__ import annotations

from typing import Callable, Optional

from ampenv.core.model import Status
from ampenv.probe import devnodes, driver
from ampenv.probe.npusmi import Holder
from ampenv.probe.pids import Liveness, PidState

DRIVER_MOUNT = f"-v {driver.DRIVER_DIR}:{driver.DRIVER_DIR}:ro"
DRIVER_PACKAGE = "Ascend-hdk-<chip>-npu-driver_<version>_linux-<arch>.run --full"
HUNG_REMEDY = (
    "look for driver errors: `dmesg -T | grep -i -E 'davinci|drv|hdc' | tail -20`; drain the "
    "node from the scheduler, stop its jobs and reboot it (a hung driver rarely recovers); "
    'raise [checks."npu.devices"] timeout only if npu-smi is merely slow here'
)
HEALTH_STATUS = {
    "ok": Status.PASS,
    "warning": Status.WARN,
    "alarm": Status.FAIL,
    "critical": Status.FAIL,
    "unknown": Status.FAIL,
}


def health_remedy(npu: object, chip: object, status: Status) -> str:
    """What to do about a chip whose health is not OK: watch a warning, drain and reset an
    alarm."""
    query = f"npu-smi info -t health -i {npu} -c {chip}"
    if status is Status.WARN:
        return f"watch it with `{query}`; drain the node if the alarm stays or grows"
    return (
        f"see `{query}` and `dmesg -T | grep -i davinci`; drain the node, then reset the "
        f"chip as root with no job on it (`npu-smi set -t reset -i {npu} -c {chip}`) or reboot"
    )


def same_program(listed: Optional[str], running: Optional[str]) -> bool:
    """npu-smi may shorten names (``python`` for ``python3.10``): a prefix is the same."""
    if not listed or not running:
        return True
    a, b = listed.lower(), running.lower()
    return a.startswith(b) or b.startswith(a)


def holder_kind(holder: Holder, state: PidState, container: Optional[str]) -> str:
    if state.liveness is Liveness.UNCHECKED:
        return "unchecked"
    if state.liveness is Liveness.ZOMBIE:
        return "zombie"
    if state.liveness is Liveness.GONE:
        return "elsewhere" if container else "stale"
    if not same_program(holder.name, state.name):
        return "stale"  # the pid was reused: the holder itself is gone
    return "elsewhere" if state.foreign else "running"


def _pids(holders: list[tuple[Holder, PidState]]) -> str:
    return " ".join(str(h.pid) for h, _ in holders)


def _resets(holders: list[tuple[Holder, PidState]]) -> str:
    chips = sorted({(h.npu, h.chip) for h, _ in holders}, key=str)
    return "; ".join(f"`npu-smi set -t reset -i {n} -c {c}`" for n, c in chips)


# kind -> (message for one holder, for several, remedy built from the holders of that kind)
HOLDER_KINDS: dict[str, tuple[str, str, Callable[[list[tuple[Holder, PidState]]], str]]] = {
    "running": (
        "process holds NPU memory",
        "processes hold NPU memory",
        lambda hs: (
            f"stop them before training (`kill {_pids(hs)}`), or choose free NPUs "
            "with ASCEND_RT_VISIBLE_DEVICES"
        ),
    ),
    "elsewhere": (
        "process in another container (or on the host) holds NPU memory",
        "processes in other containers (or on the host) hold NPU memory",
        lambda hs: (
            f"on the host, find and stop that job (`ps -o pid,stat,cmd -p {_pids(hs)}`, "
            "`docker ps`), or give this container other NPUs"
        ),
    ),
    "zombie": (
        "stale NPU context: its process is a zombie that its parent has not reaped",
        "stale NPU contexts: their processes are zombies that their parents have not reaped",
        lambda hs: (
            "make the parents reap them (`kill "
            + " ".join(str(s.ppid) for _, s in hs)
            + f"`); if the NPU memory stays held, reset the chips as root: {_resets(hs)}, or reboot"
        ),
    ),
    "stale": (
        "stale NPU context: its process no longer exists",
        "stale NPU contexts: their processes no longer exist",
        lambda hs: f"reset the chips as root with no job on them: {_resets(hs)}, or reboot",
    ),
    "unchecked": (
        "process holds NPU memory; whether it still runs cannot be checked offline",
        "processes hold NPU memory; whether they still run cannot be checked offline",
        lambda hs: (
            f"on the node: `ps -o pid,stat,cmd -p {_pids(hs)}`; stop them before "
            "training, or choose free NPUs with ASCEND_RT_VISIBLE_DEVICES"
        ),
    ),
}


def describe_holder(holder: Holder, state: PidState) -> str:
    text = f"pid {holder.pid} ({holder.name}) on NPU {holder.npu} chip {holder.chip}"
    if holder.memory_mb is not None:
        text += f", {holder.memory_mb} MB"
    if holder.container_pid not in (None, holder.pid):
        text += f", pid {holder.container_pid} in its container"
    if state.liveness is Liveness.ZOMBIE:
        text += f", parent {state.ppid}"
    elif state.name and not same_program(holder.name, state.name):
        text += f", pid now belongs to {state.name!r}"
    return text


def node_remedy(container: Optional[str], ids: list[int]) -> str:
    if container:
        return "start the container with: docker run " + " ".join(devnodes.docker_run_flags(ids))
    return (
        "the driver did not create the device nodes: check "
        f"`dmesg -T | grep -i -E 'davinci|drv'`, reinstall the driver ({DRIVER_PACKAGE}) "
        "and reboot"
    )
