"""Where this process stands in a distributed job, and how many devices it may use.

A process started by torchrun carries RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT
(the env:// contract); one started by srun carries SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID,
and the rendezvous address comes from config, MASTER_ADDR, or the node srun was launched from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ampenv.probe import Probe

DEFAULT_PORT = 29500
# Unset, each Slurm job gets its own port (20000-39999), so two jobs sharing a node do not meet.
SLURM_PORT_BASE, SLURM_PORT_SPAN = 20000, 20000


@dataclass(frozen=True)
class JobRank:
    """This process's rank in a job someone else launched."""

    launcher: str  # torchrun | srun
    rank: int
    world_size: int
    local_rank: int
    master_addr: str
    master_port: int

    @property
    def env(self) -> dict[str, str]:
        """The env:// variables a torch.distributed worker reads."""
        return {
            "RANK": str(self.rank),
            "WORLD_SIZE": str(self.world_size),
            "LOCAL_RANK": str(self.local_rank),
            "MASTER_ADDR": self.master_addr,
            "MASTER_PORT": str(self.master_port),
        }


def _int(env: dict[str, str], name: str) -> int:
    value = env.get(name, "")
    if not value.strip().isdigit():
        raise ValueError(f"{name}={value!r} is not a non-negative integer")
    return int(value)


def job_rank(
    env: dict[str, str], master_addr: Optional[str] = None, master_port: Optional[int] = None
) -> Optional[JobRank]:
    """The rank torchrun or srun gave this process, or None when it runs on its own (or alone:
    a world of one has no peer to test). Under srun, ``master_addr``/``master_port`` (from
    config) win over the environment; torchrun's own are kept, as its agent serves the store
    there. Raises ValueError for variables that cannot be read."""
    if all(env.get(k) for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR")):
        found = JobRank(
            "torchrun",
            _int(env, "RANK"),
            _int(env, "WORLD_SIZE"),
            _int(env, "LOCAL_RANK") if env.get("LOCAL_RANK") else 0,
            env["MASTER_ADDR"],
            _int(env, "MASTER_PORT") if env.get("MASTER_PORT") else DEFAULT_PORT,
        )
    elif all(env.get(k) for k in ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID")):
        addr = master_addr or env.get("MASTER_ADDR") or env.get("SLURM_LAUNCH_NODE_IPADDR")
        if not addr:
            raise ValueError(
                "launched by srun, but no rendezvous address: SLURM_LAUNCH_NODE_IPADDR and "
                'MASTER_ADDR are unset; set master_addr in [checks."dist.allreduce"]'
            )
        if master_port:
            port = master_port
        elif env.get("MASTER_PORT"):
            port = _int(env, "MASTER_PORT")
        else:
            job = _int(env, "SLURM_JOB_ID") if env.get("SLURM_JOB_ID") else 0
            port = SLURM_PORT_BASE + job % SLURM_PORT_SPAN
        found = JobRank(
            "srun",
            _int(env, "SLURM_PROCID"),
            _int(env, "SLURM_NTASKS"),
            _int(env, "SLURM_LOCALID"),
            addr,
            port,
        )
    else:
        return None
    if found.rank >= found.world_size:
        raise ValueError(f"rank {found.rank} is outside a world of {found.world_size}")
    return found if found.world_size > 1 else None


def _ascend_ids(value: str, devices: Optional[int]) -> list[int]:
    """ASCEND_RT_VISIBLE_DEVICES as the runtime reads it: up to the first item that is not a
    number, not ascending, or (when the count is known) not a device."""
    ids: list[int] = []
    for item in value.split(","):
        if not re.fullmatch(r"\d+", item):
            break
        n = int(item)
        if (ids and n <= ids[-1]) or (devices is not None and n >= devices):
            break
        ids.append(n)
    return ids


def _cuda_ids(value: str, devices: Optional[int]) -> list[str]:
    """CUDA_VISIBLE_DEVICES as CUDA reads it: indices or GPU-/MIG- UUIDs, up to the first item
    that is neither (``-1`` hides every device)."""
    ids: list[str] = []
    for item in value.split(","):
        item = item.strip()
        index = re.fullmatch(r"\d+", item) and (devices is None or int(item) < devices)
        if not (index or item.startswith(("GPU-", "MIG-"))):
            break
        ids.append(item)
    return ids


_VISIBLE = {
    "npu": ("/dev/davinci", "ASCEND_RT_VISIBLE_DEVICES", _ascend_ids),
    "cuda": ("/dev/nvidia", "CUDA_VISIBLE_DEVICES", _cuda_ids),
}


def visible_devices(probe: Probe, kind: str) -> tuple[int, str]:
    """How many npu or cuda devices this process may use, and how that is known."""
    node, variable, parse = _VISIBLE[kind]
    nodes = len(probe.glob(node + "[0-9]*"))
    value = probe.env.get(variable)
    if value is not None:
        return len(parse(value, nodes or None)), f"{variable}={value}"
    return nodes, f"{nodes} {node}N nodes"
