"""A 1 GB training log through `logs.errors`: wall time and peak memory of the whole
`ampenv doctor --only logs.errors --log FILE` process, for a plain log and its gzip, against the
same command on a 1 MB log (the fixed cost). The log is typical text (INFO step lines, a
warning now and then) with real failure lines at its end, where a dying job writes them; a
fourth log ends with a failure no entry knows (a traceback, told in its own words), a fifth
with an error its program reported and stopped at, no crash (told in its own words too).

Usage: python benchmarks/bench_logs.py [-n 3] [--size-mb 1024] [--dir /tmp]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LINE = (
    "[INFO] 2026-12-03 10:{m:02d}:{s:02d} rank{r} step {i} loss 2.{i:04d} lr 1.0e-04 "
    "grad_norm 0.{i:03d} tokens/s 10{r}23 mem 51234 MiB\n"
)
FAILURE = (
    "[rank3]: EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out. "
    "Reason: Remote Rank did not send the data in time.\n"
    "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 3; 60.00 GiB total "
    "capacity; 57.10 GiB already allocated)\n"
)


UNKNOWN = (
    "Traceback (most recent call last):\n"
    '  File "/usr/local/lib/python3.11/site-packages/mindspeed_mm/train.py", line 88, in main\n'
    "    assert args.tp_size <= config.num_key_value_heads\n"
    "RuntimeError: tp_size exceeds num_key_value_heads\n"
)

LOGGED = (
    "[Toolkit] [20260612-10:00:05] [ERROR] Toolkit package install failed, the disk space of "
    "/usr/local is not enough.\n[Toolkit] [20260612-10:00:05] [INFO] End time: 10:00:05\n"
)


def write_log(path: Path, size: int, failure: str = FAILURE) -> None:
    block = "".join(LINE.format(m=i % 60, s=i % 60, r=i % 8, i=i) for i in range(20000)).encode()
    with open(path, "wb") as fh:
        while fh.tell() + len(block) < size:
            fh.write(block)
        fh.write(failure.encode())


# A parent of its own per run: its RUSAGE_CHILDREN peak is that one run's.
MEASURE = (
    "import json, resource, subprocess, sys, time; t = time.perf_counter(); "
    "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "print(json.dumps([time.perf_counter() - t, "
    "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, p.stdout]))"
)


def run(log: Path) -> tuple[float, float, list[str]]:
    """Wall seconds, peak RSS (MiB) of the ampenv process, and the failure ids it named."""
    argv = [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "logs.errors",
            "--log", str(log), "-f", "json"]  # fmt: skip
    out = subprocess.run([sys.executable, "-c", MEASURE, *argv], capture_output=True, text=True)
    wall, peak, stdout = json.loads(out.stdout)
    check = json.loads(stdout)["checks"][0]
    ids = [h["id"] for h in check["facts"].get("hits", [])]
    ids += [f"told: {u['line']}" for u in check["facts"].get("unexplained", [])]
    return wall, peak, ids


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--size-mb", type=int, default=1024)
    ap.add_argument("--dir", default=tempfile.gettempdir())
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        small, big, packed = Path(tmp, "small.log"), Path(tmp, "big.log"), Path(tmp, "big.log.gz")
        unknown, logged = Path(tmp, "unknown.log"), Path(tmp, "logged.log")
        write_log(small, 1 << 20)
        write_log(big, args.size_mb << 20)
        write_log(unknown, args.size_mb << 20, UNKNOWN)
        write_log(logged, args.size_mb << 20, LOGGED)
        with open(big, "rb") as src, gzip.open(packed, "wb", compresslevel=1) as dst:
            while chunk := src.read(1 << 24):
                dst.write(chunk)
        cases = {
            "1 MB log": small,
            f"{args.size_mb} MB log": big,
            f"{args.size_mb} MB .gz": packed,
            f"{args.size_mb} MB unknown": unknown,
            f"{args.size_mb} MB logged": logged,
        }
        results: dict[str, list[tuple[float, float, list[str]]]] = {k: [] for k in cases}
        for _ in range(args.n):  # alternating, so machine noise hits all alike
            for name, path in cases.items():
                results[name].append(run(path))
        print(f"{os.cpu_count()} CPUs; median of {args.n} runs each, whole processes")
        for name, runs in results.items():
            walls = [r[0] for r in runs]
            print(
                f"{name:>14}: {statistics.median(walls):6.2f} s (min {min(walls):.2f}, max "
                f"{max(walls):.2f}), peak RSS <= {max(r[1] for r in runs):.0f} MiB, named "
                f"{', '.join(runs[-1][2]) or 'nothing'}"
            )


if __name__ == "__main__":
    main()
