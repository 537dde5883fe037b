"""The known cache and log places, what is stale in them, the cache.stale verdict, and the
`ampenv clean` command line."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cachenode import HOME, TOOLKIT_INFO, at, node_env, plant_files, plant_toolkit
from conftest import FIXTURES, run_ampenv

from ampenv.knowledge import caches as rules
from ampenv.probe import Probe
from ampenv.probe import caches as cache
from ampenv.repair import clean
from ampenv.util import formats

ATC = f"{HOME}/atc_data"
OLD = {"op_old/Add_1.o": b"\x7fELF" * 64, "op_old/Add_1.json": b"{}"}  # 258 bytes
CFG = {"roots": [], "stale_after_days": 30.0}


def _probe(root: Path, **env: str) -> Probe:
    return Probe(sysroot=str(root), env={"HOME": HOME, "USER": "u", **env})


def _places(root: Path, **env: str) -> dict[str, str]:
    return {p.label: p.root for p in cache.resolve_places(_probe(root, **env), [])}


def test_places_follow_the_variables_and_their_defaults(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert _places(tmp_path) == {
        "~/atc_data": f"{HOME}/atc_data",
        "./kernel_meta": f"{tmp_path}/kernel_meta",
        "~/ascend/log": f"{HOME}/ascend/log",
        "torch extensions": f"{HOME}/.cache/torch_extensions",
        "inductor cache": "/tmp/torchinductor_u",
    }
    named = _places(
        tmp_path,
        ACL_OP_COMPILER_CACHE_DIR="/data/acl",
        ASCEND_CACHE_PATH="cache",  # relative: below the working directory
        ASCEND_PROCESS_LOG_PATH="/data/plog",
        ASCEND_WORK_PATH="/data/work",
        TORCH_EXTENSIONS_DIR="/data/ext",
        TORCHINDUCTOR_CACHE_DIR="/data/inductor",
        TORCHAIR_CACHE_HOME="/data/torchair",
    )
    assert named == {
        "ACL_OP_COMPILER_CACHE_DIR": "/data/acl",
        "ASCEND_CACHE_PATH/kernel_cache": f"{tmp_path}/cache/kernel_cache",
        "~/atc_data": f"{HOME}/atc_data",
        "./kernel_meta": f"{tmp_path}/kernel_meta",
        "ASCEND_PROCESS_LOG_PATH": "/data/plog",
        "ASCEND_WORK_PATH/log": "/data/work/log",
        "~/ascend/log": f"{HOME}/ascend/log",
        "torch extensions": "/data/ext",
        "inductor cache": "/data/inductor",
        "TORCHAIR_CACHE_HOME": "/data/torchair",
    }


def test_a_compile_cache_entry_older_than_the_installed_cann_is_stale(tmp_path: Path) -> None:
    info = plant_toolkit(tmp_path, installed_days_ago=1)
    plant_files(tmp_path, ATC, OLD, days=30)
    plant_files(tmp_path, ATC, {"op_new/Mul.o": b"new"}, days=0)

    inv = cache.inventory(_probe(tmp_path), CFG)

    assert inv.toolkit == cache.Toolkit("8.5.0", TOOLKIT_INFO, info.stat().st_mtime)
    [atc] = [p for p in inv.places if p.label == "~/atc_data"]
    day = formats.utc_iso_or_none(info.stat().st_mtime)[:10]
    stale = {e.path.name: e.stale for e in atc.entries}
    assert stale == {"op_old": f"built before CANN 8.5.0 was installed on {day}", "op_new": None}
    assert atc.to_fact()["stale_bytes"] == 258


def test_ampenvs_marker_names_the_version_and_stands_in_for_the_install_time() -> None:
    marker = cache.Marker("8.0.0", 0.0)
    installed = cache.Toolkit("8.5.0", TOOLKIT_INFO, 1000.0)
    unknown = cache.Toolkit("8.5.0", TOOLKIT_INFO, None)
    built = rules._built_by_other_cann
    assert built(10.0, marker, installed) == (
        "built before CANN 8.5.0 was installed on 1970-01-01, by CANN 8.0.0 (ampenv's marker)"
    )
    assert built(2000.0, marker, installed) is None  # built after the install
    assert built(10.0, marker, unknown) == (
        "built by CANN 8.0.0 (ampenv's marker); CANN 8.5.0 is installed"
    )
    assert built(10.0, cache.Marker("8.5.0", 0.0), unknown) is None
    assert built(10.0, marker, None) is None  # no toolkit: nothing to compare with


def test_logs_and_site_roots_go_stale_with_age_torch_caches_only_with_all(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    plant_files(tmp_path, f"{HOME}/ascend/log/debug/plog", {"plog-1_1.log": b"old\n"}, days=40)
    plant_files(tmp_path, f"{HOME}/ascend/log/debug/plog", {"plog-2_1.log": b"new\n"}, days=1)
    plant_files(tmp_path, f"{HOME}/.cache/torch_extensions", {"py310_cpu/ext.so": b"so"}, 400)
    plant_files(tmp_path, "/scratch/cache", {"a/x": b"1", "b/y": b"2"}, days=12)
    plant_files(tmp_path, "/scratch/cache", {"c/z": b"3"}, days=2)
    cfg = {"roots": ["/scratch/cache"], "stale_after_days": 10.0}
    probe = _probe(tmp_path)

    default = {i.path.name: i.reason for i in clean.make_plan(probe, cfg).items}
    every = {i.path.name for i in clean.make_plan(probe, cfg, everything=True).items}
    caches_only = {i.path.name for i in clean.make_plan(probe, cfg, logs=False).items}

    old = "untouched for more than 10 days"
    assert default == {"plog-1_1.log": old, "a": old, "b": old}
    assert every == {"plog-1_1.log", "plog-2_1.log", "py310_cpu", "a", "b", "c"}
    assert caches_only == {"a", "b"}


def test_a_place_inside_another_is_cleaned_as_itself(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    plant_files(tmp_path, ATC, OLD, days=30)
    plant_files(tmp_path, f"{ATC}/kernel_cache", {"k/1.o": b"1"}, days=30)
    probe = _probe(tmp_path, ASCEND_CACHE_PATH=ATC)  # kernel_cache lies inside ~/atc_data

    plan = clean.make_plan(probe, CFG, everything=True)

    assert sorted(str(i.path.relative_to(tmp_path)) for i in plan.items) == [
        "home/u/atc_data/kernel_cache/k",
        "home/u/atc_data/op_old",
    ]
    assert plan.refused == []


def test_a_scan_out_of_time_judges_nothing_it_did_not_finish(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    plant_files(tmp_path, ATC, OLD, days=30)
    inv = cache.inventory(_probe(tmp_path), CFG, budget=1e-9)
    [atc] = [p for p in inv.places if p.label == "~/atc_data"]
    assert not inv.complete
    assert [(e.complete, e.stale) for e in atc.entries] == [(False, None)]


def test_a_bundle_is_never_cleaned(tmp_path: Path) -> None:
    probe = _probe(tmp_path)
    probe.offline = True
    with pytest.raises(clean.CleanRefused, match="read-only"):
        clean.clean(probe, CFG, dry_run=False)


# -- the check through the real CLI -------------------------------------------------------------
def _check(root: Path, **env: str) -> dict:
    ran = run_ampenv(
        "doctor", "--only", "cache.stale", "-f", "json", env=node_env(root, **env), cwd=root
    )
    assert ran.returncode in (0, 1), ran.stderr
    return ran.check("cache.stale")


def test_the_check_passes_on_caches_built_by_the_installed_cann(tmp_path: Path) -> None:
    plant_toolkit(tmp_path, installed_days_ago=10)
    plant_files(tmp_path, ATC, OLD, days=1)
    check = _check(tmp_path)
    assert check["status"] == "pass"
    assert check["summary"] == (
        "no cache built by another CANN than 8.5.0 (258 B in caches); "
        "no open compile failure in 0 recent log(s)"
    )
    assert check["facts"]["toolkit"]["version"] == "8.5.0"
    assert check["facts"]["disk_free_bytes"]
    [atc] = [p for p in check["facts"]["places"] if p["place"] == "~/atc_data"]
    assert (atc["bytes"], atc["files"], atc["stale_entries"]) == (258, 2, 0)


def test_without_a_toolkit_staleness_is_not_judged(tmp_path: Path) -> None:
    plant_files(tmp_path, ATC, OLD, days=300)
    check = _check(tmp_path)
    assert check["status"] == "skip"
    assert check["summary"].startswith("no CANN toolkit: staleness not judged (258 B in caches)")


def test_the_check_names_the_stale_cache_and_the_command_that_clears_it(tmp_path: Path) -> None:
    plant_toolkit(tmp_path, installed_days_ago=1)
    plant_files(tmp_path, ATC, OLD, days=30)
    check = _check(tmp_path)
    assert check["status"] == "warn"
    assert check["summary"].startswith(f"~/atc_data ({ATC}): 1 entry (258 B) built before CANN")
    assert check["remedy"].startswith("clear the stale caches: `ampenv clean --yes`")


# -- `ampenv clean` -----------------------------------------------------------------------------
def _clean(root: Path, *args: str):
    return run_ampenv("clean", *args, env=node_env(root), cwd=root)


def test_clean_without_a_tty_is_a_dry_run_and_says_so(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    top = plant_files(tmp_path, ATC, OLD, days=30)

    dry = _clean(tmp_path)
    assert dry.returncode == 0
    lines = dry.stdout.splitlines()
    assert lines[0] == "ampenv clean: dry run (no TTY and no --yes): nothing was removed"
    assert lines[1] == "would remove 1 item, 258 B:"
    assert lines[2].split()[:4] == ["258", "B", str(top / "op_old"), "(~/atc_data:"]
    assert lines[-1] == "run `ampenv clean --yes` to remove them"
    assert (top / "op_old/Add_1.o").exists()

    explicit = _clean(tmp_path, "--dry-run")
    assert explicit.stdout.splitlines()[0] == "ampenv clean: dry run: nothing was removed"
    assert (top / "op_old/Add_1.o").exists()

    done = _clean(tmp_path, "--yes")
    assert done.returncode == 0
    assert done.stdout.splitlines()[1] == "removed 1 item, freed 258 B:"
    assert not (top / "op_old").exists()


def test_clean_on_a_tty_is_a_dry_run_by_default(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    top = plant_files(tmp_path, ATC, OLD, days=30)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ampenv", "clean"],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=node_env(tmp_path),
        cwd=tmp_path,
    )
    os.close(slave)
    out = b""
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=60)
    os.close(master)
    text = out.decode().replace("\r\n", "\n")
    assert text.startswith("ampenv clean: dry run (the default): nothing was removed\n")
    assert "would remove 1 item, 258 B:" in text
    assert (top / "op_old/Add_1.o").exists()


def test_clean_json_and_contradicting_flags(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    plant_files(tmp_path, ATC, OLD, days=30)
    ran = _clean(tmp_path, "--format", "json")
    doc = ran.json
    assert (doc["schema"], doc["dry_run"], doc["planned_bytes"], doc["freed_bytes"]) == (
        "ampenv.clean/1",
        True,
        258,
        0,
    )
    both = _clean(tmp_path, "--yes", "--dry-run")
    assert both.returncode == 2
    assert "contradict" in both.stderr
    assert at(tmp_path, f"{ATC}/op_old/Add_1.o").exists()


def test_doctor_scans_the_logs_named_with_log(tmp_path: Path) -> None:
    plant_toolkit(tmp_path)
    job = tmp_path / "job.out"
    job.write_bytes((FIXTURES / "logs/touchnet-100_npu_oom.txt").read_bytes())
    env = node_env(tmp_path)
    args = ("doctor", "--only", "logs.errors", "-f", "json", "--log", str(job))
    check = run_ampenv(*args, env=env, cwd=tmp_path).check("logs.errors")
    assert check["status"] == "warn"
    assert check["summary"].startswith("npu-out-of-memory: ")
    assert f"once, {job}:1" in check["summary"]
    assert "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True" in check["remedy"]
    # a --log that is not there is a typo: it must not scan nothing and pass
    gone = run_ampenv(*args, "--log", str(tmp_path / "gone.log"), env=env, cwd=tmp_path)
    assert gone.returncode == 2
    assert f"--log {tmp_path / 'gone.log'}: No such file or directory" in gone.stderr
    # nor is a name the system refuses (too long): a usage error, no traceback
    long = run_ampenv(*args, "--log", "a" * 5000, env=env, cwd=tmp_path)
    assert long.returncode == 2 and "File name too long" in long.stderr
    assert "Traceback" not in long.stderr
