"""Time as the hosts count it."""

from __future__ import annotations

import time


def process_start() -> float:
    """This process's start on the monotonic clock: a hook's budget is counted from there,
    since the scheduler's clock started when it spawned us, interpreter start included."""
    import psutil  # ~15 ms: only the hooks count their budget from the process's start

    age = max(0.0, time.time() - psutil.Process().create_time())
    return time.monotonic() - age
