"""Before/after for the quick profile: two source trees of ampenv, run alternately by the same
Python (each as ``PYTHONPATH=TREE python -m ampenv doctor --profile quick --format json``, so
both load the same way), N times each after a warm-up; medians of wall time and of CPU time
(user + system, which other load on a shared machine disturbs less than wall time).

Usage: git archive BASE | tar -x -C /tmp/before; git archive HEAD | tar -x -C /tmp/after;
python benchmarks/bench_quick_ab.py /tmp/before /tmp/after [-n 25]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ARGV = [sys.executable, "-m", "ampenv", "doctor", "--profile", "quick", "--format", "json"]


def once(tree: str) -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = tree
    start = time.perf_counter()
    # cwd=tree: `python -m` puts the working folder first on sys.path, before PYTHONPATH, so
    # run from a checkout both children would load that checkout.
    child = subprocess.Popen(
        ARGV, env=env, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("-n", type=int, default=25, help="runs of each tree")
    args = parser.parse_args()
    trees = {"before": args.before, "after": args.after}
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for tree in trees.values():
        once(tree)  # warm the page and bytecode caches
    for i in range(args.n):
        for name in sorted(trees, reverse=bool(i % 2)):  # alternate which goes first
            runs[name].append(once(trees[name]))
    result = {
        name: {
            "wall_median_s": round(statistics.median(w for w, _ in got), 3),
            "wall_min_s": round(min(w for w, _ in got), 3),
            "cpu_median_s": round(statistics.median(c for _, c in got), 3),
        }
        for name, got in runs.items()
    }
    b, a = result["before"]["wall_median_s"], result["after"]["wall_median_s"]
    result["after_over_before_wall"] = round(a / b, 3)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
