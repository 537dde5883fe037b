"""Issue 17, items 2 to 5: the one remover works relative to opened folders, never crosses a
mount point, judges "home" by device and inode and age at removal; the user name cannot build
a path. After every test the sentinel tree is byte-identical. Bind mounts are made in a private
mount namespace (``unshare -m``), skipped where mounting is not permitted."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cachenode import HOME, age, at, digest, node_env, plant_files, plant_sentinel, plant_toolkit
from test_cache_safety import ATC, OLD

from ampenv.probe import Probe
from ampenv.probe.caches import resolve_places
from ampenv.repair import clean
from ampenv.util import saferm

ROOTS_CFG = {"roots": ["/data/shared/cache"], "stale_after_days": 7}


@pytest.fixture
def node(tmp_path: Path) -> Iterator[Path]:
    """A planted node whose sentinel tree must be byte-identical after every test here."""
    root = tmp_path / "root"
    plant_toolkit(root, installed_days_ago=1)
    sentinel = plant_sentinel(root)
    (tmp_path / "work").mkdir()
    before = digest(sentinel)
    yield root
    assert digest(sentinel) == before


def _probe(node: Path, **env: str) -> Probe:
    return Probe(sysroot=str(node), env={**node_env(node), **env})


def _plant_victim(node: Path) -> Path:
    """What a swapped root would point at: entries named like the cache's, which must stay."""
    victim = plant_files(
        node,
        "/data/victim",
        {f"e{i}/data.bin": f"victim {i}\n".encode() for i in range(6)},
        days=90,
    )
    return victim


# -- item 2: a root swapped for a link while clean runs ----------------------------------------
def test_a_root_swapped_for_a_link_mid_clean_deletes_nothing_there(node: Path) -> None:
    cache = plant_files(
        node, "/data/shared/cache", {f"e{i}/data.bin": b"x" * 10 for i in range(6)}, days=30
    )
    victim = _plant_victim(node)
    before = digest(victim)
    sentinel = digest(at(node, "/data/sentinel"))

    def swap(item: clean.Item) -> None:  # after the first removal: root renamed, link planted
        if not cache.is_symlink():
            cache.rename(cache.with_name("cache.old"))
            cache.symlink_to(victim)

    result = clean.clean(_probe(node), ROOTS_CFG, dry_run=False, progress=swap)

    assert len(result.removed) == 1
    assert len(result.failed) == 5
    assert all("replaced" in f.reason or "symbolic" in f.reason for f in result.failed), result
    assert digest(victim) == before
    assert digest(at(node, "/data/sentinel")) == sentinel


def test_a_folder_swapped_below_the_root_is_not_followed(node: Path) -> None:
    logs = plant_files(
        node,
        f"{HOME}/ascend/log/debug",
        {f"d{i}/plog-{i}.log": b"old\n" for i in range(4)},
        days=40,
    )
    victim = _plant_victim(node)
    before = digest(victim)

    swapped: list[str] = []

    def swap(item: clean.Item) -> None:  # every folder not yet cleaned becomes a link
        if swapped:
            return
        for i in range(4):
            sub = logs / f"d{i}"
            if sub.exists() and sub != item.path.parent:
                shutil.rmtree(sub)
                sub.symlink_to(victim / f"e{i}")
                (victim / f"e{i}" / f"plog-{i}.log").write_bytes(b"victim's\n")
                swapped.append(f"e{i}/plog-{i}.log")

    result = clean.clean(_probe(node), {}, dry_run=False, progress=swap)

    assert len(result.removed) == 1 and len(result.failed) == 3, result.failed
    assert all("no longer a folder" in f.reason for f in result.failed), result.failed
    after = digest(victim)
    for name in swapped:
        assert after.pop(name).startswith("file")
    assert after == before


def test_a_swapping_thread_never_reaches_the_target(node: Path) -> None:
    """A race, as the red team ran it: a thread swaps the root and a link back and forth
    while clean removes; whatever interleaving happens, the target stays byte-identical."""
    files = {f"e{i:02d}/k.o": b"y" * 4096 for i in range(40)}
    cache = plant_files(node, "/data/shared/cache", files, days=30)
    victim = plant_files(node, "/data/victim", {n: b"victim\n" for n in files}, days=90)
    before = digest(victim)
    stop = threading.Event()
    spare = cache.with_name("cache.real")

    def swapper() -> None:
        while not stop.is_set():
            try:
                cache.rename(spare)
                cache.symlink_to(victim)
                time.sleep(0.0005)
                cache.unlink()
                spare.rename(cache)
            except OSError:
                pass

    thread = threading.Thread(target=swapper)
    thread.start()
    try:
        for _ in range(3):
            with contextlib.suppress(OSError):
                clean.clean(_probe(node), ROOTS_CFG, dry_run=False)
    finally:
        stop.set()
        thread.join()
    assert digest(victim) == before


def test_remove_refuses_a_root_that_is_no_longer_the_scanned_folder(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    (root / "a").mkdir(parents=True)
    st = root.stat()
    ident = (st.st_dev, st.st_ino)
    other = tmp_path / "other"
    (other / "a").mkdir(parents=True)
    (other / "a" / "keep").write_text("k")
    root.rename(tmp_path / "cache.old")
    other.rename(root)  # a real folder in its place: same name, another inode
    with pytest.raises(saferm.RemovalRefused, match="replaced"):
        saferm.remove(root / "a", root, root_id=ident)
    assert (root / "a" / "keep").read_text() == "k"


# -- item 3: bind mounts (same filesystem) and homes by device and inode ------------------------
def _in_mount_namespace(script: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        pytest.skip("needs unshare and root to make a bind mount")
    probe = subprocess.run(["unshare", "-m", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a mount namespace: {probe.stderr.decode()}")
    argv = ["unshare", "-m", "sh", "-ec", f"mount --make-rprivate / 2>/dev/null || true; {script}"]
    ran = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    if "mount:" in ran.stderr and "permission denied" in ran.stderr.lower():
        pytest.skip(f"mounting is not permitted here: {ran.stderr}")
    return ran


def test_a_bind_mount_inside_a_cache_entry_is_not_crossed(node: Path) -> None:
    top = plant_files(node, ATC, OLD, days=30)
    mnt = top / "op_old" / "mnt"
    mnt.mkdir()
    age(top / "op_old", 30)
    sentinel_dir = at(node, "/data/sentinel")
    sentinel = digest(sentinel_dir)
    env = node_env(node)
    cmd = f"{sys.executable} -m ampenv clean --yes -f json"
    script = f"mount --bind '{sentinel_dir}' '{mnt}'; {cmd}"
    ran = _in_mount_namespace(script, env, node.parent / "work")
    assert digest(sentinel_dir) == sentinel, ran.stdout
    assert ran.returncode == 1, ran.stderr
    assert "mount point" in ran.stdout
    assert (top / "op_old" / "Add_1.o").exists()


def test_a_root_that_is_a_bind_mount_of_a_home_is_refused(node: Path) -> None:
    home = plant_files(node, HOME, {"thesis/ch1.tex": b"precious\n"}, days=400)
    before = digest(home)
    scratch = at(node, "/scratch/cache")
    scratch.mkdir(parents=True)
    env = node_env(node, ACL_OP_COMPILER_CACHE_DIR="/scratch/cache")
    cmd = f"{sys.executable} -m ampenv clean --yes --all -f json"
    ran = _in_mount_namespace(f"mount --bind '{home}' '{scratch}'; {cmd}", env, node.parent)
    assert digest(home) == before, ran.stdout
    assert "same folder as /home/u, a home directory" in ran.stdout, ran.stdout


def test_remove_refuses_to_cross_a_bind_mount(tmp_path: Path) -> None:
    """The remover itself (not only the plan) stops at a mount point."""
    root = tmp_path / "cache"
    (root / "e" / "mnt").mkdir(parents=True)
    (root / "e" / "f").write_text("x")
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "data").write_text("precious")
    code = "\n".join(
        [
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent.parent)!r})",
            "from pathlib import Path",
            "from ampenv.util import saferm",
            "try:",
            f"    saferm.remove(Path({str(root / 'e')!r}), Path({str(root)!r}))",
            "except OSError as e:",
            "    print('REFUSED', e)",
        ]
    )
    script = f"mount --bind '{keep}' '{root / 'e' / 'mnt'}'; {sys.executable} -c \"$CODE\""
    ran = _in_mount_namespace(script, dict(os.environ, CODE=code), tmp_path)
    assert "REFUSED" in ran.stdout and "mount point" in ran.stdout, (ran.stdout, ran.stderr)
    assert (keep / "data").read_text() == "precious"
    assert (root / "e" / "f").exists()  # nothing of the entry went: surveyed before removal


def test_homes_come_from_the_user_database(node: Path, monkeypatch) -> None:
    """A home only LDAP/sssd knows (not in /etc/passwd) is still a home."""
    import pwd

    ldap_home = plant_files(node, "/data/ldap/bob", {"work.txt": b"bob's\n"}, days=400)
    before = digest(ldap_home)
    real = pwd.getpwall()
    bob = pwd.struct_passwd(("bob", "x", 5000, 5000, "", "/data/ldap/bob", "/bin/sh"))
    monkeypatch.setattr(pwd, "getpwall", lambda: [*real, bob])
    cfg = {"roots": ["/data/ldap"]}
    result = clean.clean(_probe(node), cfg, dry_run=False, everything=True)
    assert result.removed == []
    assert any("/data/ldap/bob" in r.reason for r in result.plan.refused), result.plan.refused
    assert digest(ldap_home) == before


# -- item 4: USER builds no path --------------------------------------------------------------
@pytest.mark.parametrize(
    ("user", "folder"),
    [
        ("x/../../data/s", "/tmp/torchinductor_x_.._.._data_s"),
        ("../..", "/tmp/torchinductor_.._.."),
        ('a\\b:c*d?e"f<g>h|i', "/tmp/torchinductor_a_b_c_d_e_f_g_h_i"),
        ("plain", "/tmp/torchinductor_plain"),
    ],
)
def test_the_user_name_is_sanitised_as_torch_does(node: Path, user: str, folder: str) -> None:
    places = resolve_places(_probe(node, USER=user), [])
    [inductor] = [p for p in places if p.label == "inductor cache"]
    assert inductor.root == folder


def test_a_hostile_user_name_removes_nothing_outside(node: Path) -> None:
    plant_files(node, "/data/s", {"old/data.bin": b"keep"}, days=400)
    before = digest(at(node, "/data"))
    result = clean.clean(_probe(node, USER="x/../../data/s"), {}, dry_run=False, everything=True)
    assert all(not str(i.path).startswith(str(at(node, "/data"))) for i in result.removed)
    assert digest(at(node, "/data")) == before


# -- item 5: age judged at removal ------------------------------------------------------------
def test_an_entry_that_turns_fresh_after_the_scan_is_kept(node: Path) -> None:
    cache = plant_files(
        node, "/data/shared/cache", {f"e{i}/data.bin": b"z" * 10 for i in range(3)}, days=30
    )

    def touch(item: clean.Item) -> None:  # a job writes into e2 after the plan
        (cache / "e2" / "data.bin").write_bytes(b"fresh")

    result = clean.clean(_probe(node), ROOTS_CFG, dry_run=False, progress=touch)

    assert [i.path.name for i in result.removed] == ["e0", "e1"]
    assert [Path(f.path).name for f in result.failed] == ["e2"]
    assert "fresh" in result.failed[0].reason
    assert (cache / "e2" / "data.bin").read_bytes() == b"fresh"


def test_a_fresh_file_appearing_in_a_stale_compile_entry_is_kept(node: Path) -> None:
    top = plant_files(node, ATC, {**OLD, "op_two/k.o": b"k"}, days=30)

    def build(item: clean.Item) -> None:
        if item.path.name == "op_old":
            (top / "op_two" / "new.o").write_bytes(b"built by the new CANN")

    result = clean.clean(_probe(node), {}, dry_run=False, progress=build)
    assert [i.path.name for i in result.removed] == ["op_old"]
    assert (top / "op_two" / "new.o").exists() and (top / "op_two" / "k.o").exists()


def test_a_fresh_log_is_kept_when_it_turns_fresh(node: Path) -> None:
    top = plant_files(
        node, f"{HOME}/ascend/log/debug/plog", {"a.log": b"1", "b.log": b"2"}, days=40
    )

    def write(item: clean.Item) -> None:  # a job appends to the log not yet removed
        other = top / ("b.log" if item.path.name == "a.log" else "a.log")
        if other.exists():
            with open(other, "ab") as fh:
                fh.write(b"new line\n")

    result = clean.clean(_probe(node), {}, dry_run=False, progress=write)
    [gone] = result.removed
    kept = top / ("b.log" if gone.path.name == "a.log" else "a.log")
    assert kept.read_bytes().endswith(b"new line\n")
    assert [Path(f.path).name for f in result.failed] == [kept.name]


def test_all_still_removes_regardless_of_age(node: Path) -> None:
    cache = plant_files(node, "/data/shared/cache", {"e0/f": b"1", "e1/f": b"2"}, days=0)
    age(cache / "e0", 0)
    result = clean.clean(_probe(node), ROOTS_CFG, dry_run=False, everything=True)
    assert sorted(i.path.name for i in result.removed) == ["e0", "e1"]


# -- what no cache and no log is: FIFOs, sockets, device nodes (a live one keeps an old mtime) --
def _specials(folder: Path) -> list[Path]:
    made = [folder / "fifo", folder / "live.sock"]
    os.mkfifo(made[0])
    import socket

    with contextlib.closing(socket.socket(socket.AF_UNIX)) as sock:
        sock.bind(str(made[1]))
    if os.geteuid() == 0:
        made.append(folder / "cdev")
        os.mknod(made[-1], 0o600 | 0o020000, os.makedev(1, 3))  # a copy of /dev/null's
    when = time.time() - 90 * 86400
    for path in made:
        os.utime(path, (when, when), follow_symlinks=False)
    return made


def test_clean_leaves_fifos_sockets_and_device_nodes_of_logs_and_caches(node: Path) -> None:
    logs = plant_files(node, f"{HOME}/ascend/log/debug/plog", {"a.log": b"1"}, days=40)
    cache = plant_files(node, "/data/shared/cache", {"e0/f": b"1", "e1/f": b"2"}, days=30)
    specials = _specials(logs) + _specials(cache) + _specials(cache / "e1")
    age(cache / "e1", 30)
    result = clean.clean(_probe(node), ROOTS_CFG, dry_run=False, logs=True)
    assert sorted(i.path.name for i in result.removed) == ["a.log", "e0"]
    assert all(os.path.lexists(p) for p in specials)
    # the entry holding them is kept whole, and says why
    [(path, why)] = [(f.path, f.reason) for f in result.failed]
    assert Path(path).name == "e1" and "no cache's or log's: kept" in why
    assert (cache / "e1" / "f").read_bytes() == b"2"


def test_the_remover_refuses_a_fifo_named_directly(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    root.mkdir()
    os.mkfifo(root / "fifo")
    with pytest.raises(saferm.RemovalRefused, match="is a FIFO"):
        saferm.remove(root / "fifo", root)
    assert (root / "fifo").is_fifo()


def test_a_log_folder_holding_caches_removes_only_its_logs(node: Path) -> None:
    work = plant_files(
        node,
        "/work",
        {"plain.log": b"l", "ext/myop/myop.so": b"so", "cc/k/kern.o": b"o"},
        days=40,
    )
    env = {
        "ASCEND_PROCESS_LOG_PATH": "/work",
        "TORCH_EXTENSIONS_DIR": "/work/ext",
        "ACL_OP_COMPILER_CACHE_DIR": "/work/cc",
    }
    result = clean.clean(_probe(node, **env), {"stale_after_days": 7}, dry_run=False, logs=True)
    by_name = {i.path.name: i for i in result.removed}
    assert sorted(by_name) == ["k", "plain.log"]
    assert (work / "ext/myop/myop.so").exists()  # torch's caches go with --all only
    # the compile cache's entry goes by its own rule (built by another CANN), not as a log
    assert by_name["k"].place != by_name["plain.log"].place
    assert "CANN" in by_name["k"].reason


def test_a_cache_named_through_a_link_in_a_log_folder_is_no_log(node: Path) -> None:
    # the cache place is refused (a link is not followed), and its folder is not a log either
    work = plant_files(node, "/work", {"plain.log": b"l", "real_ext/op/op.so": b"so"}, days=40)
    (work / "ext_link").symlink_to("real_ext")
    env = {"ASCEND_PROCESS_LOG_PATH": "/work", "TORCHINDUCTOR_CACHE_DIR": "/work/ext_link"}
    result = clean.clean(_probe(node, **env), {"stale_after_days": 7}, dry_run=False, logs=True)
    assert [i.path.name for i in result.removed] == ["plain.log"]
    assert (work / "real_ext/op/op.so").exists() and (work / "ext_link").is_symlink()


def test_a_cache_named_through_an_absolute_link_of_the_sysroot_is_no_log(node: Path) -> None:
    # the link means the node's /logs/ext, the sysroot's folder, not the host's
    logs = plant_files(node, "/logs", {"plain.log": b"l", "ext/keep.so": b"so"}, days=40)
    (at(node, "/c2")).symlink_to("/logs/ext")
    env = {"ASCEND_PROCESS_LOG_PATH": "/logs", "TORCH_EXTENSIONS_DIR": "/c2"}
    result = clean.clean(_probe(node, **env), {"stale_after_days": 7}, dry_run=False, logs=True)
    assert [i.path.name for i in result.removed] == ["plain.log"]
    assert (logs / "ext/keep.so").exists()


def test_a_refused_place_named_inside_a_cache_root_keeps_its_link(node: Path, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.bin").write_text("k")
    cache = plant_files(node, "/data/shared/cache", {"stale/x.bin": b"x"}, days=40)
    (cache / "air").symlink_to(outside)
    env = {"TORCHAIR_CACHE_HOME": "/data/shared/cache/air"}
    result = clean.clean(_probe(node, **env), ROOTS_CFG, dry_run=False, everything=True)
    assert [i.path.name for i in result.removed] == ["stale"]
    assert (cache / "air").is_symlink() and (outside / "keep.bin").exists()
