"""`ampenv doctor --fix` on a planted node: a plog with the work-queue error and a kernel cache
built by another CANN. The fix removes exactly the stale cache, and the rerun passes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from cachenode import HOME, at, digest, node_env, plant_files, plant_sentinel, plant_toolkit
from conftest import FIXTURES, run_ampenv

CACHE = "/home/u/cache"  # ASCEND_CACHE_PATH: the kernel cache is its kernel_cache folder
KERNELS = f"{CACHE}/kernel_cache"
PLOG = f"{HOME}/ascend/log/debug/plog/plog-4242_20250601101500123.log"
OLD_PLOG = f"{HOME}/ascend/log/debug/plog/plog-1717_20250101101500123.log"


def _doctor(root: Path, cwd: Path, *extra: str):
    env = node_env(root, ASCEND_CACHE_PATH=CACHE)
    return run_ampenv("doctor", "--only", "cache.stale", "-f", "json", *extra, env=env, cwd=cwd)


@pytest.fixture
def node(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    plant_toolkit(root, installed_days_ago=1)
    # Built by CANN 8.0.0, per ampenv's marker from an earlier cleaning, a month before 8.5.0.
    plant_files(root, KERNELS, {"op_old/Add_1.o": b"\x7fELF" * 256, "op_old/Add_1.json": b"{}"}, 30)
    marker = at(root, KERNELS) / ".ampenv-cann"
    marker.write_text("version=8.0.0\ncleaned_at=2025-01-02T00:00:00+00:00\n")
    # Built after 8.5.0 was installed: current.
    plant_files(root, KERNELS, {"op_new/Mul_7.o": b"\x7fELF" * 64})
    # The job's plog: the seed article's work-queue error, among real plog lines.
    log_lines = (FIXTURES / "logs/plog_aicore_args_troubleshooting_doc.txt").read_bytes()
    log_lines += (FIXTURES / "logs/svn_E155009_wc_db_work_queue.txt").read_bytes()
    plant_files(root, os.path.dirname(PLOG), {os.path.basename(PLOG): log_lines}, days=1 / 24)
    # An old plog (stale for `ampenv clean`, but not a cache: --fix keeps it).
    old = (FIXTURES / "logs/vllm-ascend-4972_aicore_timeout.txt").read_bytes()
    plant_files(root, os.path.dirname(OLD_PLOG), {os.path.basename(OLD_PLOG): old}, days=40)
    plant_sentinel(root)
    (tmp_path / "work").mkdir()
    return root


def test_fix_removes_exactly_the_stale_cache_and_the_rerun_passes(node: Path) -> None:
    work = node.parent / "work"
    sentinel_before = digest(at(node, "/data/sentinel"))
    logs_before = digest(at(node, f"{HOME}/ascend/log"))
    fresh_before = digest(at(node, f"{KERNELS}/op_new"))

    before = _doctor(node, work)
    check = before.check("cache.stale")
    assert before.returncode == 0, before.stderr
    assert check["status"] == "warn"
    assert "built before CANN 8.5.0 was installed" in check["summary"]
    assert "by CANN 8.0.0 (ampenv's marker)" in check["summary"]
    assert [h["id"] for h in check["facts"]["log_hits"]] == ["wc-db-work-queue"]
    assert "ampenv clean --yes" in check["remedy"]

    fixed = _doctor(node, work, "--fix")
    check = fixed.check("cache.stale")
    assert fixed.returncode == 0, fixed.stderr
    assert check["status"] == "pass", check
    size = 4 * 256 + 2
    assert (
        check["details"][0] == f"--fix: removed 1 stale cache entry, freed {size} bytes (1.0 KiB)"
    )
    assert any(d.startswith("resolved: wc-db-work-queue") for d in check["details"])

    kernels = at(node, KERNELS)
    assert sorted(p.name for p in kernels.iterdir()) == [".ampenv-cann", "op_new"]
    assert "version=8.5.0" in (kernels / ".ampenv-cann").read_text()
    assert digest(at(node, f"{KERNELS}/op_new")) == fresh_before
    assert digest(at(node, f"{HOME}/ascend/log")) == logs_before
    assert digest(at(node, "/data/sentinel")) == sentinel_before

    rerun = _doctor(node, work)
    assert rerun.returncode == 0
    assert rerun.check("cache.stale")["status"] == "pass"
    assert rerun.json["status"] == "pass"


def test_an_error_logged_after_the_cleaning_is_not_resolved_by_it(node: Path) -> None:
    work = node.parent / "work"
    assert _doctor(node, work, "--fix").check("cache.stale")["status"] == "pass"
    later = time.time() + 60
    os.utime(at(node, PLOG), (later, later))  # the job failed again after the cleaning

    check = _doctor(node, work, "--fix").check("cache.stale")
    assert check["status"] == "warn"
    assert check["details"][0] == "--fix: nothing stale to remove"
    assert check["summary"].startswith("wc-db-work-queue ×1, ")
    assert "`ampenv clean --all --yes` clears every cache" in check["remedy"]


def test_fix_leaves_a_cache_held_open_by_a_live_process(node: Path) -> None:
    work = node.parent / "work"
    held = at(node, f"{KERNELS}/op_old/Add_1.o")
    holder = subprocess.Popen(
        [sys.executable, "-c", f"f = open({str(held)!r}); import time; time.sleep(60)"]
    )
    try:
        deadline = time.time() + 10
        while time.time() < deadline and not _holds(holder.pid, held):
            time.sleep(0.05)
        check = _doctor(node, work, "--fix").check("cache.stale")
    finally:
        holder.kill()
        holder.wait()
    assert check["status"] == "warn"
    assert check["details"][0].startswith("--fix: removed 0 stale cache entries, freed 0 bytes")
    assert f"is in use: pid {holder.pid}" in check["details"][0]
    assert held.exists()


def _holds(pid: int, path: Path) -> bool:
    try:
        return any(f.path == str(path) for f in psutil.Process(pid).open_files())
    except psutil.Error:
        return False
