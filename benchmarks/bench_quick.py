"""Quick-profile speed: `ampenv doctor --profile quick` against `python -m torch.utils.collect_env`,
and `ampenv certificate verify` (what a Slurm prolog runs before every job).

Both doctor commands run as whole processes, alternating, N times each; the medians are compared
in the same run so machine noise hits both alike. `certificate verify` is timed against a real,
valid certificate: one written for this node in a temporary folder with the API of
ampenv/integrations/certificate.py from a quick report (no certify run; verify reads and
judges it the same way). Usage: python benchmarks/bench_quick.py [-n 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

AMPENV = [sys.executable, "-m", "ampenv", "doctor", "--profile", "quick", "--format", "json"]
COLLECT_ENV = [sys.executable, "-m", "torch.utils.collect_env"]
VERIFY = [sys.executable, "-m", "ampenv", "certificate", "verify", "--certificate"]
# The children may write bytecode: an installed ampenv has its .pyc (pip compiles them at
# install), and with PYTHONDONTWRITEBYTECODE a checkout whose .pyc are stale would time the
# compiler on every run instead of ampenv. The warm-up runs write them.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=CHILD_ENV
    )
    return time.perf_counter() - start


def imports_of_cli() -> list[str]:
    code = "import sys, ampenv.cli; print([m for m in ('torch', 'numpy') if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    return json.loads(out.replace("'", '"'))


def write_certificate(path: str) -> None:
    """A valid certificate for this node, as `ampenv certify` writes it (from a quick report:
    verify checks the digest, the dates and the fingerprint, not which checks ran)."""
    from ampenv.core.session import Options, diagnose, open_session
    from ampenv.integrations import certificate

    opts = Options(profile="quick")
    session = open_session(opts)
    report = diagnose(opts, session)
    certificate.write(path, certificate.issue(report, session.probe, max_age_hours=24))
    ran = subprocess.run([*VERIFY, path], capture_output=True, text=True, env=CHILD_ENV)
    if ran.returncode != 0:
        sys.exit(f"the benchmark's certificate does not verify: {ran.stdout}{ran.stderr}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=7, help="runs of each command")
    args = parser.parse_args()
    env_note = f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}"
    with tempfile.TemporaryDirectory() as folder:
        cert = os.path.join(folder, "certificate.json")
        write_certificate(cert)
        verify = [*VERIFY, cert]
        wall(AMPENV), wall(COLLECT_ENV), wall(verify)  # warm the page and bytecode caches
        ours, theirs, verified = [], [], []
        for _ in range(args.n):
            ours.append(wall(AMPENV))
            theirs.append(wall(COLLECT_ENV))
            verified.append(wall(verify))
    m_ours, m_theirs = statistics.median(ours), statistics.median(theirs)
    m_verify = statistics.median(verified)
    result = {
        "machine": env_note,
        "runs": args.n,
        "ampenv_quick_median_s": round(m_ours, 3),
        "ampenv_quick_min_max_s": [round(min(ours), 3), round(max(ours), 3)],
        "collect_env_median_s": round(m_theirs, 3),
        "speedup_vs_collect_env": round(m_theirs / m_ours, 1),
        "certificate_verify_median_s": round(m_verify, 3),
        "certificate_verify_min_max_s": [round(min(verified), 3), round(max(verified), 3)],
        "ampenv_cli_imports": imports_of_cli(),
    }
    print(json.dumps(result, indent=2))
    ok = (
        m_ours < 0.5
        and m_theirs / m_ours >= 5
        and m_verify < 0.3
        and not result["ampenv_cli_imports"]
    )
    print(
        "targets (quick median < 0.5 s, >= 5x collect_env, verify median < 0.3 s, no torch/numpy):",
        "met" if ok else "MISSED",
    )


if __name__ == "__main__":
    main()
