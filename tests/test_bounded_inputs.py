"""Issue 18, items 2, 6, 8, 13 and 18: hostile inputs end in bounded time with a named result.
Reproduced first: a FIFO as -c, as the certificate or as --bundle blocked; /dev/zero read
without end; a 2 GB sparse bundle took minutes; nested TOML was a traceback and exit 1;
`[cache] roots = [1, 2]` passed; `clean --wait inf` waited forever; SIGTERM during extraction
left the temporary tree; a junk bundle was a five-line tarfile dump; NaN host facts passed."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from conftest import clean_env, run_ampenv

from ampenv.probe import Probe
from ampenv.util import bounded

QUICK = 20.0  # seconds: every hostile input here ends well within it


def _fifo(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    os.mkfifo(path)
    return path


def _timed(*args: str, env=None):
    started = time.monotonic()
    ran = run_ampenv(*args, env=env or clean_env(), timeout=60)
    return ran, time.monotonic() - started


# -- the reader ---------------------------------------------------------------------------
def test_the_reader_refuses_a_fifo_at_once(tmp_path):
    fifo = _fifo(tmp_path, "plog-1.log")
    with pytest.raises(bounded.NotRegular, match="FIFO"):
        bounded.read_tail(fifo, 1 << 20)


def test_the_reader_refuses_devices_and_folders(tmp_path):
    with pytest.raises(bounded.NotRegular, match="character device"):
        bounded.read_bytes("/dev/zero", 10)
    with pytest.raises(bounded.NotRegular, match="folder"):
        bounded.read_head(tmp_path, 10)


def test_the_reader_bounds_and_tails(tmp_path):
    f = tmp_path / "log"
    f.write_bytes(b"first\nsecond\nthird\n")
    assert bounded.read_tail(f, 10) == b"third\n"
    assert bounded.read_head(f, 5) == b"first"
    with pytest.raises(bounded.TooLarge):
        bounded.read_bytes(f, 5)
    link = tmp_path / "link"
    link.symlink_to(f)
    with pytest.raises(bounded.NotRegular, match="symlink"):
        bounded.read_head(link, 5, follow=False)
    assert bounded.read_head(link, 5) == b"first"


def test_probe_reads_of_a_fifo_plog_return_at_once(tmp_path):
    fifo = _fifo(tmp_path, "plog-4242_20250101000000000.log")
    probe = Probe(sysroot=str(tmp_path))
    started = time.monotonic()
    assert probe.read_tail("/" + fifo.name, 1 << 20) is None
    assert probe.read_text("/" + fifo.name) is None
    assert time.monotonic() - started < 1


def test_a_fifo_cache_marker_is_no_marker(tmp_path):
    from ampenv.knowledge.caches import MARKER
    from ampenv.probe.caches import read_marker

    os.mkfifo(tmp_path / MARKER)
    assert read_marker(tmp_path) is None


# -- config -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_config_that_is_not_a_file_is_a_usage_error(tmp_path, kind):
    path = str(_fifo(tmp_path, "ampenv.toml")) if kind == "fifo" else "/dev/zero"
    ran, took = _timed("doctor", "-p", "quick", "--only", "host", "-c", path)
    assert ran.returncode == 2, ran
    assert "not a regular file" in ran.stderr
    assert took < QUICK


EMPTY = "an empty path names no file"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("doctor", "--log", ""), EMPTY),  # was read as ".", "a folder"
        (("doctor", "-o", ""), EMPTY),  # was "cannot write ."
        (("doctor", "--bundle", ""), EMPTY),  # was the live node judged
        (("doctor", "--sysroot", ""), EMPTY),  # was the real root read
        (("doctor", "-c", ""), EMPTY),  # was the default config used
        (("doctor", "--textfile-dir", ""), EMPTY),
        (("collect", "-o", ""), EMPTY),
        (("config", "init", "-o", ""), EMPTY),
        (("fleet", ".", "--baseline-out", ""), EMPTY),  # was no file and no word
        (("fleet", ""), EMPTY),  # was the current folder's certificates judged
        (("certificate", "verify", "--certificate", ""), EMPTY),  # was the default one
        (("doctor", "-o="), "begins with '='"),  # `-o=$OUT` unset: was a file named "="
        (("doctor", "-o", "   "), EMPTY),  # was a file named "   "
    ],
)
def test_an_empty_path_is_a_usage_error(tmp_path, args, said):
    # an unset variable's "$BUNDLE" names nothing: not the current folder, not the live node
    ran = run_ampenv(*args, cwd=tmp_path)
    assert ran.returncode == 2, ran
    assert said in ran.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_deeply_nested_config_is_a_usage_error(tmp_path):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text("[env]\nX = " + "[" * 5000 + "]" * 5000 + "\n")
    ran = run_ampenv("doctor", "-p", "quick", "--only", "host", "-c", str(cfg))
    assert ran.returncode == 2, ran
    assert "nested too deeply" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_cache_roots_must_be_strings(tmp_path):
    cfg = tmp_path / "ampenv.toml"
    cfg.write_text("[cache]\nroots = [1, 2]\n")
    ran = run_ampenv("doctor", "-p", "quick", "--only", "host", "-c", str(cfg))
    assert ran.returncode == 2, ran
    assert "cache.roots: must be a list of str" in ran.stderr


# -- certificate ----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_certificate_that_is_not_a_file_is_refused_at_once(tmp_path, kind):
    path = str(_fifo(tmp_path, "cert.json")) if kind == "fifo" else "/dev/zero"
    ran, took = _timed("certificate", "verify", "--certificate", path)
    assert ran.returncode == 1, ran
    assert "not a regular file" in ran.stdout
    assert took < QUICK


# -- bundles ------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["fifo", "zero", "sparse"])
def test_a_bundle_that_is_not_a_bundle_ends_at_once_in_one_line(tmp_path, kind):
    if kind == "fifo":
        path = str(_fifo(tmp_path, "node.tar.gz"))
    elif kind == "zero":
        path = "/dev/zero"
    else:
        sparse = tmp_path / "node.tar.gz"
        with open(sparse, "wb") as fh:
            fh.truncate(2 << 30)  # 2 GB of holes: no disk used
        path = str(sparse)
    ran, took = _timed("doctor", "--bundle", path)
    assert ran.returncode == 2, ran
    assert ran.stderr.count("\n") == 1, ran.stderr
    assert took < QUICK


def test_a_junk_bundle_is_one_line(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"\x1f\x8b" + b"not really gzip" * 10)
    ran = run_ampenv("doctor", "--bundle", str(junk))
    assert ran.returncode == 2
    assert ran.stderr.count("\n") == 1, ran.stderr
    assert ran.stderr.startswith(f"ampenv: {junk}: cannot be unpacked")


def _bundle(path: Path, facts: dict) -> Path:
    members = {
        "manifest.json": {"format": "ampenv.integrations.collect/1", "host": "n1"},
        "facts.json": facts,
        "env.json": {},
    }
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            raw = json.dumps(data).encode()
            info = tarfile.TarInfo(name)
            info.size = len(raw)
            tar.addfile(info, io.BytesIO(raw))
        info = tarfile.TarInfo("files")
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
    return path


@pytest.mark.parametrize(
    "host",
    [
        {"cpu_count": float("nan"), "mem_total_bytes": 1 << 40, "mem_available_bytes": 1 << 40},
        {"cpu_count": 64, "mem_total_bytes": float("inf"), "mem_available_bytes": 1 << 40},
        {"cpu_count": 64, "mem_total_bytes": 1 << 40, "mem_available_bytes": -1},
        {"cpu_count": 1.5, "mem_total_bytes": 1 << 40, "mem_available_bytes": 1 << 40},
    ],
)
def test_forged_host_facts_are_refused(tmp_path, host):
    bundle = _bundle(tmp_path / "forged.tar.gz", {"host": host})
    ran = run_ampenv("doctor", "--bundle", str(bundle), "-p", "quick", "--only", "host")
    assert ran.returncode == 2, ran
    assert "facts.json" in ran.stderr


SIGTERM_DURING_EXTRACTION = """
import os, signal, sys, time
from ampenv.probe import bundle
from ampenv.util import stdio
stdio.terminate_on_sigterm()
def slow(tar, dest):
    (dest / "partly").write_text("x")
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(30)
bundle._unpack = slow
bundle.BundleProbe(sys.argv[1])
"""


def test_sigterm_during_extraction_leaves_no_temporary_tree(tmp_path):
    bundle = _bundle(tmp_path / "node.tar.gz", {})
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    ran = subprocess.run(
        [sys.executable, "-c", SIGTERM_DURING_EXTRACTION, str(bundle)],
        env=clean_env(TMPDIR=str(scratch)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 128 + signal.SIGTERM, ran.stderr
    assert list(scratch.iterdir()) == []


# -- clean ----------------------------------------------------------------------------------
@pytest.mark.parametrize("wait", ["inf", "nan", "-1"])
def test_clean_wait_must_be_finite(wait):
    ran = run_ampenv("clean", "--wait", wait)
    assert ran.returncode == 2, ran
    assert "--wait" in ran.stderr
