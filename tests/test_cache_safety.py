"""Every cache safety rule of design.md, each with its own test. After every one, a sentinel
tree outside the cache roots is byte-identical."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from cachenode import HOME, age, at, digest, node_env, plant_files, plant_sentinel, plant_toolkit
from conftest import run_ampenv

from ampenv.probe import Probe
from ampenv.repair import clean
from ampenv.util import saferm

ATC = f"{HOME}/atc_data"  # the default compile cache
OLD = {"op_old/Add_1.o": b"\x7fELF" * 64, "op_old/Add_1.json": b"{}"}


@pytest.fixture
def node(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    plant_toolkit(root, installed_days_ago=1)
    plant_sentinel(root)
    (tmp_path / "work").mkdir()
    return root


def _clean(root: Path, *args: str, **env: str):
    return run_ampenv(
        "clean", "-f", "json", *args, env=node_env(root, **env), cwd=root.parent / "work"
    )


def _everything(root: Path) -> dict[str, str]:
    """The whole planted node, except the cleaners' lock file."""
    lock = clean.LOCK.lstrip("/")
    return {k: v for k, v in digest(root).items() if not (k == lock or lock.startswith(k + "/"))}


# -- never /, a home directory or a system directory --------------------------------------------
REFUSED = [
    # variable, value, what is planted below it, the refusal
    ("ASCEND_CACHE_PATH", "/", "/kernel_cache", "ASCEND_CACHE_PATH=/: / is the filesystem root"),
    (
        "ASCEND_CACHE_PATH",
        HOME,
        f"{HOME}/kernel_cache",
        f"ASCEND_CACHE_PATH={HOME}: {HOME} is a home directory",
    ),
    (
        "ACL_OP_COMPILER_CACHE_DIR",
        HOME,
        f"{HOME}/thesis",
        f"ACL_OP_COMPILER_CACHE_DIR={HOME}: {HOME} is a home directory",
    ),
    (
        "ASCEND_PROCESS_LOG_PATH",
        "/etc",
        "/etc/ssh",
        "ASCEND_PROCESS_LOG_PATH=/etc: /etc is the system directory /etc",
    ),
    (
        "ACL_OP_COMPILER_CACHE_DIR",
        "/usr/local/Ascend",
        "/usr/local/Ascend/driver",
        "/usr/local/Ascend is inside the system directory /usr",
    ),
    ("TORCH_EXTENSIONS_DIR", "/home", "/home/v", "/home is a shared system folder"),
]


@pytest.mark.parametrize(("var", "value", "planted", "reason"), REFUSED)
def test_a_dangerous_root_is_refused(
    node: Path, var: str, value: str, planted: str, reason: str
) -> None:
    plant_files(node, planted, {"old.bin": b"precious\n"}, days=400)
    sentinel = digest(at(node, "/data/sentinel"))
    before = _everything(node)

    ran = _clean(node, "--yes", "--all", **{var: value})

    assert ran.returncode == 1, ran.stderr
    refused = ran.json["refused"]
    assert any(reason in r["reason"] for r in refused), refused
    assert ran.json["removed"] == []
    assert _everything(node) == before
    assert digest(at(node, "/data/sentinel")) == sentinel


def test_config_roots_are_held_to_the_same_rules(node: Path) -> None:
    config = node.parent / "ampenv.toml"
    config.write_text('[cache]\nroots = ["/", "/home/u", "relative/cache"]\n')
    plant_files(node, f"{HOME}/thesis", {"ch1.tex": b"keep"}, days=400)
    before = _everything(node)

    ran = _clean(node, "--yes", "--all", AMPENV_CONFIG=str(config))

    reasons = [r["reason"] for r in ran.json["refused"]]
    assert "[cache] roots: / is the filesystem root" in reasons
    assert "[cache] roots: /home/u is a home directory" in reasons
    assert "[cache] roots: relative/cache is not an absolute path" in reasons
    assert _everything(node) == before


def test_protected_reasons() -> None:
    assert saferm.protected_reason("/data", ["/data/sentinel"]) == (
        "/data contains /data/sentinel, a home directory"
    )
    assert saferm.protected_reason("/data/cache", ["/data/sentinel"]) is None
    assert saferm.protected_reason("/home/u/atc_data", ["/home/u"]) is None
    assert saferm.protected_reason("/tmp/torchinductor_u", []) is None
    assert saferm.protected_reason("/tmp", []) == "/tmp is a shared system folder"
    assert saferm.protected_reason("/var/cache/x", []) == (
        "/var/cache/x is inside the system directory /var"
    )


def test_a_variable_that_reaches_a_home_through_a_link_is_refused(node: Path) -> None:
    plant_files(node, f"{HOME}/kernel_cache", {"mine.o": b"keep"}, days=400)
    link = at(node, "/data/cache")
    link.symlink_to(at(node, HOME))  # /data/cache -> /home/u
    before = _everything(node)

    ran = _clean(node, "--yes", "--all", ASCEND_CACHE_PATH="/data/cache")

    assert ran.returncode == 1
    reasons = [r["reason"] for r in ran.json["refused"]]
    assert any(
        f"/data/cache resolves to {HOME}, and {HOME} is a home directory" in r for r in reasons
    )
    assert _everything(node) == before


def test_the_check_warns_about_a_dangerous_root(node: Path) -> None:
    env = node_env(node, ASCEND_CACHE_PATH="/")
    ran = run_ampenv("doctor", "--only", "cache.stale", "-f", "json", env=env, cwd=node.parent)
    check = ran.check("cache.stale")
    assert check["status"] == "warn"
    assert check["summary"].startswith("ASCEND_CACHE_PATH/kernel_cache: ASCEND_CACHE_PATH=/: /")
    assert "will not clean it" in check["summary"]
    assert "export ASCEND_CACHE_PATH=$HOME/.cache/ascend_cache_path" in check["remedy"]


# -- symlinks are removed as links, never followed ----------------------------------------------
def test_links_inside_a_cache_are_removed_as_links_and_targets_untouched(node: Path) -> None:
    target = at(node, "/data/sentinel")
    top = plant_files(node, ATC, OLD)
    (top / "op_old/escape").symlink_to(target)  # a link to a folder outside, inside an entry
    (top / "linked_dir").symlink_to(target)  # an entry that is itself such a link
    (top / "linked_file").symlink_to(target / "weights.bin")
    for name in ("op_old", "linked_dir", "linked_file"):
        age(top / name, 30)
    sentinel = digest(target)

    ran = _clean(node, "--yes")

    assert ran.returncode == 0, ran.stdout
    removed = sorted(Path(i["path"]).name for i in ran.json["removed"])
    assert removed == ["linked_dir", "linked_file", "op_old"]
    assert sorted(p.name for p in top.iterdir()) == [".ampenv-cann"]  # the root itself stays
    assert digest(target) == sentinel


# -- a cache that a live process holds is refused -----------------------------------------------
@pytest.mark.parametrize("hold", ["open file", "working directory"])
def test_a_cache_held_by_a_live_process_is_refused(node: Path, hold: str) -> None:
    top = plant_files(node, ATC, OLD, days=30)
    inside = top / "op_old"
    code = (
        f"f = open({str(inside / 'Add_1.o')!r})"
        if hold == "open file"
        else f"import os; os.chdir({str(inside)!r})"
    )
    holder = subprocess.Popen([sys.executable, "-c", f"{code}; import time; time.sleep(60)"])
    sentinel = digest(at(node, "/data/sentinel"))
    try:
        _wait_until_held(holder.pid, str(inside))
        ran = _clean(node, "--yes")
    finally:
        holder.kill()
        holder.wait()

    assert ran.returncode == 1
    assert ran.json["removed"] == []
    [refusal] = ran.json["refused"]
    assert f"is in use: pid {holder.pid} (python" in refusal["reason"]
    assert (inside / "Add_1.o").exists()
    assert digest(at(node, "/data/sentinel")) == sentinel


def test_a_log_file_held_open_is_kept_while_other_old_logs_go(node: Path) -> None:
    plog = f"{HOME}/ascend/log/debug/plog"
    top = plant_files(node, plog, {"plog-1_1.log": b"old\n", "plog-2_1.log": b"old\n"}, 40)
    held = top / "plog-2_1.log"
    holder = subprocess.Popen(
        [sys.executable, "-c", f"f = open({str(held)!r}, 'a'); import time; time.sleep(60)"]
    )
    try:
        _wait_until_held(holder.pid, str(held))
        ran = _clean(node, "--yes")
    finally:
        holder.kill()
        holder.wait()

    assert ran.returncode == 1
    assert [Path(i["path"]).name for i in ran.json["removed"]] == ["plog-1_1.log"]
    [refusal] = ran.json["refused"]
    assert refusal["reason"].startswith(f"{held} is in use: pid {holder.pid}")
    assert held.exists()


def _wait_until_held(pid: int, folder: str) -> None:
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            proc = psutil.Process(pid)
            paths = [f.path for f in proc.open_files()] + [proc.cwd()]
        except psutil.Error:
            paths = []
        if any(saferm.within(p, folder) for p in paths):
            return
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} never held {folder}")


# -- a lock keeps two cleaners apart ------------------------------------------------------------
def _lock(node: Path) -> Path:
    return at(node, clean.LOCK)


def test_a_second_cleaner_gives_up_while_the_first_holds_the_lock(node: Path) -> None:
    top = plant_files(node, ATC, OLD, days=30)
    sentinel = digest(at(node, "/data/sentinel"))
    with saferm.exclusive(_lock(node), wait=0):
        ran = run_ampenv(
            "clean", "--yes", "--wait", "0.2", env=node_env(node), cwd=node.parent / "work"
        )
    assert ran.returncode == 3  # could not clean now: nothing said of the node's health
    assert "another cleaner (pid " in ran.stderr
    assert (top / "op_old/Add_1.o").exists()
    assert digest(at(node, "/data/sentinel")) == sentinel


def test_a_waiting_cleaner_starts_only_when_the_first_is_done(node: Path) -> None:
    top = plant_files(node, ATC, OLD, days=30)
    argv = [sys.executable, "-m", "ampenv", "clean", "--yes", "--wait", "30", "-f", "json"]
    with saferm.exclusive(_lock(node), wait=0):
        waiting = subprocess.Popen(argv, env=node_env(node), stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        assert waiting.poll() is None  # still waiting for the lock
        assert (top / "op_old/Add_1.o").exists()
    out, _ = waiting.communicate(timeout=60)
    assert waiting.returncode == 0
    assert not (top / "op_old").exists()
    assert '"freed_bytes": 258' in out


def test_two_cleaners_at_once_do_not_interleave(node: Path) -> None:
    plant_files(node, ATC, {f"op_{i}/k.o": b"x" * 100 for i in range(4)}, days=30)
    probe_env = node_env(node)
    events: list[tuple[str, str]] = []
    results: dict[str, clean.CleanResult] = {}

    def run(name: str) -> None:
        def progress(item: clean.Item) -> None:
            events.append((name, item.path.name))
            if name == "first" and len(events) == 1:
                second.start()  # the second cleaner starts while the first is mid-way
                time.sleep(0.5)

        probe = Probe(sysroot=str(node), env=probe_env)
        results[name] = clean.clean(probe, {}, dry_run=False, wait=30, progress=progress)

    second = threading.Thread(target=run, args=("second",))
    run("first")
    second.join(timeout=60)

    assert [who for who, _ in events] == ["first"] * 4
    assert results["first"].freed == 400
    assert results["second"].plan.items == []  # it planned only after the first had finished
    assert results["second"].failed == []
