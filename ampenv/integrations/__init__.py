"""Cluster hooks: ``ampenv hook slurm`` (Prolog / HealthCheckProgram) and ``ampenv hook npd``
(node-problem-detector custom plugin). Each follows its host's own conventions for exit
codes, output and time, and never outlives its budget."""

from __future__ import annotations

import time

import psutil


def process_start() -> float:
    """This process's start on the monotonic clock: a hook's budget is counted from there,
    since the scheduler's clock started when it spawned us, interpreter start included."""
    age = max(0.0, time.time() - psutil.Process().create_time())
    return time.monotonic() - age
