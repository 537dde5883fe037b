"""Issue 17, item 8: the Slurm hook's and the cleaners' locks never follow a link, never
truncate a hard-linked file, and a planted folder, FIFO or device is a clear error."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest
from cachenode import at, node_env, plant_toolkit
from conftest import run_ampenv

from ampenv.integrations import slurm
from ampenv.repair import clean
from ampenv.util import files, saferm

PRECIOUS = b"root:$6$precious:19000:0:99999:7:::\n"


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "shadow"
    victim.write_bytes(PRECIOUS)
    return victim


@pytest.mark.parametrize("opener", ["hook", "cleaner"])
def test_a_lock_that_is_a_symlink_is_refused_and_its_target_kept(tmp_path, opener) -> None:
    victim = _victim(tmp_path)
    lock = tmp_path / "locks" / "x.lock"
    lock.parent.mkdir()
    lock.symlink_to(victim)
    with pytest.raises((OSError, slurm.LockUnusable)):
        if opener == "hook":
            with slurm.single_flight(lock, until=time.monotonic() + 1):
                pass
        else:
            with saferm.exclusive(lock, wait=0):
                pass
    assert victim.read_bytes() == PRECIOUS and lock.is_symlink()


@pytest.mark.parametrize("opener", ["hook", "cleaner"])
def test_a_hard_linked_lock_is_not_truncated(tmp_path, opener) -> None:
    victim = _victim(tmp_path)
    lock = tmp_path / "x.lock"
    os.link(victim, lock)
    with pytest.raises((OSError, slurm.LockUnusable), match="hard links"):
        if opener == "hook":
            with slurm.single_flight(lock, until=time.monotonic() + 1):
                pass
        else:
            with saferm.exclusive(lock, wait=0):
                pass
    assert victim.read_bytes() == PRECIOUS


@pytest.mark.parametrize("planted", ["folder", "fifo", "device"])
def test_a_planted_lock_of_another_kind_is_a_clear_error(tmp_path, planted) -> None:
    lock = tmp_path / "x.lock"
    if planted == "folder":
        lock.mkdir()
    elif planted == "fifo":
        os.mkfifo(lock)
    else:
        try:
            os.mknod(lock, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except OSError as exc:
            pytest.skip(f"cannot make a device node: {exc}")
    start = time.monotonic()
    until = time.monotonic() + 1
    with pytest.raises(slurm.LockUnusable, match="lock"), slurm.single_flight(lock, until):
        pass
    with pytest.raises(files.Unsafe):
        files.open_lock(lock)
    assert time.monotonic() - start < 5  # a FIFO never hangs the opener


def test_the_hook_cli_reports_a_planted_fifo_lock_without_a_traceback(tmp_path) -> None:
    lock = tmp_path / "hook.lock"
    os.mkfifo(lock)
    config = tmp_path / "ampenv.toml"
    config.write_text(f'[hook]\nlock_file = "{lock}"\ncertificate = false\n')
    env = node_env(tmp_path / "root", AMPENV_CONFIG=str(config))
    (tmp_path / "root").mkdir()
    ran = run_ampenv("hook", "slurm", env=env, timeout=60)
    assert ran.returncode == 2, ran.stderr
    assert "Traceback" not in ran.stderr
    assert f"[hook] lock_file {lock}" in ran.stderr and "FIFO" in ran.stderr


def test_a_lock_of_another_user_is_refused_not_truncated(tmp_path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to plant another user's file")
    lock = tmp_path / "x.lock"
    lock.write_bytes(b"their data\n")
    os.chown(lock, 4242, 4242)
    with pytest.raises(files.Unsafe, match="owned by uid 4242"):
        files.open_lock(lock)
    assert lock.read_bytes() == b"their data\n"


def test_a_lock_in_a_folder_others_can_write_is_refused(tmp_path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o777)  # world-writable, not sticky
    with pytest.raises(files.Unsafe, match="writable by every user"):
        files.open_lock(folder / "x.lock")
    sticky = tmp_path / "sticky"
    sticky.mkdir()
    sticky.chmod(0o1777)  # like /tmp: a lock of ours there is safe
    os.close(files.open_lock(sticky / "x.lock"))


def test_the_cleaner_refuses_a_planted_lock_cleanly(tmp_path) -> None:
    node = tmp_path / "root"
    plant_toolkit(node)
    (tmp_path / "work").mkdir()
    lock = at(node, clean.LOCK)
    lock.parent.mkdir(parents=True, exist_ok=True)
    victim = _victim(tmp_path)
    lock.symlink_to(victim)
    ran = run_ampenv("clean", "--yes", env=node_env(node), cwd=tmp_path / "work")
    assert ran.returncode == 1, ran.stderr
    assert "Traceback" not in ran.stderr and "lock" in ran.stderr
    assert victim.read_bytes() == PRECIOUS


def test_root_keeps_its_locks_where_only_root_writes() -> None:
    assert clean.lock_name(0) == "/run/ampenv-clean.lock"
    assert clean.lock_name(1000) == "/tmp/ampenv-clean-1000.lock"
