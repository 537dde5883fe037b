"""Quick-profile speed: `ampenv doctor --profile quick` against `python -m torch.utils.collect_env`.

Both commands run as whole processes, alternating, N times each; the medians are compared in
the same run so machine noise hits both alike. Usage: python benchmarks/bench_quick.py [-n 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

AMPENV = [sys.executable, "-m", "ampenv", "doctor", "--profile", "quick", "--format", "json"]
COLLECT_ENV = [sys.executable, "-m", "torch.utils.collect_env"]


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def imports_of_cli() -> list[str]:
    code = "import sys, ampenv.cli; print([m for m in ('torch', 'numpy') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    return json.loads(out.replace("'", '"'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=7, help="runs of each command")
    args = parser.parse_args()
    env_note = f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    wall(AMPENV), wall(COLLECT_ENV)  # warm the page cache for both
    ours, theirs = [], []
    for _ in range(args.n):
        ours.append(wall(AMPENV))
        theirs.append(wall(COLLECT_ENV))
    m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
    result = {
        "machine": env_note,
        "runs": args.n,
        "ampenv_quick_median_s": round(m_ours, 3),
        "ampenv_quick_min_max_s": [round(min(ours), 3), round(max(ours), 3)],
        "collect_env_median_s": round(m_theirs, 3),
        "speedup_vs_collect_env": round(m_theirs / m_ours, 1),
        "ampenv_cli_imports": imports_of_cli(),
    }
    print(json.dumps(result, indent=2))
    ok = m_ours < 0.5 and m_theirs / m_ours >= 5 and not result["ampenv_cli_imports"]
    print("targets (median < 0.5 s, >= 5x collect_env, no torch/numpy):", "met" if ok else "MISSED")


if __name__ == "__main__":
    main()
