"""The quick profile stays quick: what only the full or certify profile needs is imported when
it is used, not when the checks are loaded (benchmarks/bench_quick.py times the whole command)."""

from __future__ import annotations

import json
import subprocess
import sys

import psutil
import pytest
from conftest import clean_env

from ampenv.probe import Probe, _linux_host

# Modules that loading every check (and judging a CPU node) must not import: torch-side and
# certify-only code, the clean command's process scan, and ~35 ms of packaging that only a
# parsed requirement needs.
NOT_AT_LOAD = (
    "ampenv.active.collective.launch",
    "ampenv.active.smoke.parent",
    "ampenv.active.smoke.verdict",
    "ampenv.probe.cpuinfo",
    "ampenv.probe.elf",
    "packaging.requirements",
    "psutil",
    "tomllib",
    "hashlib",
    "torch",
    "numpy",
)
NOT_IN_QUICK_RUN = (
    "ampenv.active.collective.launch",
    "ampenv.active.smoke.parent",
    "ampenv.probe.elf",
    "torch",
)


def _imported_after(step: str) -> list[str]:
    code = (
        "import os, sys\n"
        "from ampenv.core.session import Options, diagnose, open_session\n"
        "opts = Options(profile='quick', config_path=os.devnull)\n"
        "session = open_session(opts)\n"
        f"{step}\n"
        f"print([m for m in {NOT_AT_LOAD!r} if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=clean_env(), capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.replace("'", '"'))


def test_loading_the_checks_imports_nothing_a_later_profile_needs():
    assert _imported_after("pass") == []


def test_a_quick_run_imports_no_full_or_certify_module():
    imported = _imported_after("diagnose(opts, session)")
    assert not set(imported) & set(NOT_IN_QUICK_RUN)


def test_host_facts_read_without_psutil_are_what_psutil_says():
    fast = _linux_host()
    if sys.platform != "linux":
        pytest.skip("the fast path reads Linux's /proc/meminfo")
    assert fast is not None, "the fast path gave up on this Linux machine"
    memory = psutil.virtual_memory()
    assert fast["cpu_count"] == psutil.cpu_count()
    assert fast["mem_total_bytes"] == memory.total
    # Available memory moves between the two reads: equal within 64 MiB.
    assert abs(fast["mem_available_bytes"] - memory.available) < 64 << 20
    assert set(Probe().host()) == set(fast)
