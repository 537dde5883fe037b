"""Whether a process that npu-smi lists as holding an NPU is still there, and where it lives.

psutil answers about the live process table only; a bundle read offline cannot say, and the
answer says so instead of guessing.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ampenv.probe import Probe


class Liveness(str, enum.Enum):
    ALIVE = "alive"
    ZOMBIE = "zombie"  # exited, not reaped: its NPU context is not released yet
    GONE = "gone"  # no such pid in our pid namespace
    UNCHECKED = "unchecked"  # offline: no live process table to ask


@dataclass
class PidState:
    liveness: Liveness
    name: Optional[str] = None
    ppid: Optional[int] = None
    # True when the process lives in another pid namespace (another container or the host).
    foreign: bool = False


def _pid_namespace(pid: object) -> Optional[str]:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def pid_state(probe: Probe, pid: int) -> PidState:
    """Liveness of ``pid``, looked up once per invocation."""
    if probe.offline:
        return PidState(Liveness.UNCHECKED)

    def look() -> PidState:
        import psutil  # ~20 ms to import: only where npu-smi lists processes

        try:
            proc = psutil.Process(pid)
            with proc.oneshot():
                status, name, ppid = proc.status(), proc.name(), proc.ppid()
        except psutil.NoSuchProcess:
            return PidState(Liveness.GONE)
        except psutil.Error:  # access denied: it exists, we may not look closer
            return PidState(Liveness.ALIVE)
        if status == psutil.STATUS_ZOMBIE:
            return PidState(Liveness.ZOMBIE, name, ppid)
        theirs, ours = _pid_namespace(pid), _pid_namespace("self")
        foreign = bool(theirs and ours and theirs != ours)
        return PidState(Liveness.ALIVE, name, ppid, foreign)

    return probe.fact(("pid", pid), look)
