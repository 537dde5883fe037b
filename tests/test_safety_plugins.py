"""Issue 17, items 6 and 7: as root, no code runs that root did not vouch for. A plugin runs
from the very bytes that were judged (opened once, ``fstat`` of the open file and every folder
above its real path), never from bytecode another user could have written."""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from pathlib import Path

import pytest
from test_plugins import GOOD, plugin_dir

from ampenv.core.registry import Registry, _load_folder, discover

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to plant others' files")

OTHER = 4242


def _evil(marker: Path, pad_to: int = 0) -> str:
    body = (
        f"open({str(marker)!r}, 'a').write('ran as uid %d\\n' % __import__('os').geteuid())\n"
        "from ampenv.checks import Result, check\n"
        "@check('site.scratch', title='Site scratch space')\n"
        "def scratch(ctx):\n    return Result.ok('evil')\n"
    )
    return body + "#" * max(0, pad_to - len(body) - 1) + "\n" if pad_to else body


def test_bytecode_owned_by_another_user_is_never_run(tmp_path: Path) -> None:
    """The red team's case: the source passes the ownership check, the ``__pycache__`` beside
    it is another user's, and its code is what Python would run."""
    folder = plugin_dir(tmp_path, scratch=GOOD)
    source = folder / "scratch.py"
    marker = tmp_path / "pwned"
    st = source.stat()
    evil = _evil(marker)
    code = compile(evil, str(source), "exec")
    pyc = Path(importlib.util.cache_from_source(str(source)))
    pyc.parent.mkdir()
    data = importlib._bootstrap_external._code_to_timestamp_pyc(  # type: ignore[attr-defined]
        code, int(st.st_mtime), st.st_size
    )
    pyc.write_bytes(data)
    os.chown(pyc.parent, OTHER, OTHER)
    os.chown(pyc, OTHER, OTHER)

    registry = discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=0)

    assert not marker.exists()
    assert "site.scratch" in registry.checks
    assert registry.problems == []


def test_loading_a_plugin_writes_no_bytecode(tmp_path: Path) -> None:
    folder = plugin_dir(tmp_path, scratch=GOOD)
    discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=0)
    assert not (folder / "__pycache__").exists()


def _drop_folder(tmp_path: Path, mode: int) -> Path:
    drop = tmp_path / "drop"
    drop.mkdir()
    drop.chmod(mode)
    return drop


def test_a_plugin_linked_into_a_folder_others_can_write_is_refused(tmp_path: Path) -> None:
    drop = _drop_folder(tmp_path, 0o777)
    (drop / "real.py").write_text(GOOD)  # root's file, but in a folder anyone can swap it in
    folder = plugin_dir(tmp_path)
    (folder / "scratch.py").symlink_to(drop / "real.py")

    registry = discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=0)

    assert "site.scratch" not in registry.checks
    [problem] = registry.problems
    assert "refused plugin file as root" in problem.summary
    assert f"the folder {drop} is writable by every user" in problem.summary


def test_a_plugin_swapped_between_check_and_open_never_runs_the_other_code(
    tmp_path: Path,
) -> None:
    """A thread swaps the link's target between root's file and another user's, in a sticky
    folder (as in /tmp, where the swap is the other user's to make with their own file): 400
    loads, and the other user's code runs in none of them (before the fix, some did)."""
    drop = _drop_folder(tmp_path, 0o1777)
    marker = tmp_path / "pwned"
    good, evil = drop / "good.py", drop / "evil.py"
    target = drop / "real.py"
    folder = plugin_dir(tmp_path)
    (folder / "scratch.py").symlink_to(target)
    stop = threading.Event()

    def swapper() -> None:
        flip = False
        while not stop.is_set():
            src = evil if flip else good
            src.write_text(_evil(marker) if flip else GOOD)
            os.chown(src, OTHER if flip else 0, OTHER if flip else 0)
            os.replace(src, target)
            flip = not flip

    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    outcomes = {"loaded": 0, "refused": 0, "other": 0}
    try:
        for _ in range(400):
            registry = Registry()
            _load_folder(registry, folder, 0)
            if "site.scratch" in registry.checks:
                outcomes["loaded"] += 1
            elif any("refused" in p.summary for p in registry.problems):
                outcomes["refused"] += 1
            else:
                outcomes["other"] += 1
    finally:
        stop.set()
        thread.join()
    assert not marker.exists(), marker.read_text()
    assert outcomes["loaded"] + outcomes["refused"] + outcomes["other"] == 400


def test_a_plugin_owned_by_another_user_through_a_root_link_is_refused(tmp_path: Path) -> None:
    """The judge is the opened file, not the name: root's link to another user's file."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    marker = tmp_path / "pwned"
    (elsewhere / "real.py").write_text(_evil(marker))
    os.chown(elsewhere / "real.py", OTHER, OTHER)
    folder = plugin_dir(tmp_path)
    (folder / "scratch.py").symlink_to(elsewhere / "real.py")

    registry = discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=0)

    assert not marker.exists()
    [problem] = registry.problems
    assert f"owned by uid {OTHER}" in problem.summary


def test_a_plugin_that_is_a_fifo_is_an_error_not_a_hang(tmp_path: Path) -> None:
    folder = plugin_dir(tmp_path)
    os.mkfifo(folder / "scratch.py")
    registry = discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=0)
    [problem] = registry.problems
    assert "FIFO" in problem.summary


def test_a_non_root_run_also_loads_from_source(tmp_path: Path) -> None:
    folder = plugin_dir(tmp_path, scratch=GOOD)
    registry = discover({"AMPENV_CHECKS_PATH": str(folder)}, sysroot=str(tmp_path), euid=1000)
    assert "site.scratch" in registry.checks
    assert sys.modules.get("scratch") is None
