"""Support bundles: collected on a planted node built from real captures, re-judged offline.

The node: the driver and firmware version.info of the Huawei docs, the CANN 8.0.0 install.info
of vllm-ascend#362 (arch edited in the open to this host's) with the reconstructed set_env.sh,
eight device nodes (links to /dev/null, a real character device), and a fake npu-smi that
replays the real 910B2 x8 capture.
"""

from __future__ import annotations

import gzip
import io
import json
import platform
import re
import tarfile
from pathlib import Path

import pytest
from conftest import FIXTURES, clean_env, run_ampenv
from fakebin import calls, fake_tool, path_with

from ampenv.core.runner import OFFLINE_ACTIVE
from ampenv.probe import bundle as bundle_mod
from ampenv.probe.bundle import BundleError, BundleProbe

VERSIONS = FIXTURES / "version-files"
IDLE_910B2 = FIXTURES / "npu-smi" / "910b2_8dev_idle_23.0.7.txt"
DRIVER_INFO = VERSIONS / "driver_version.info_24.1.rc1_doc.txt"
TOOLKIT = "/usr/local/Ascend/ascend-toolkit"
PLOGS = "/scratch/ascend/log/plog"
# Checks that judge what only the live node has: offline they skip and say why. Device nodes
# are recorded (type, mode, owner, numbers) since issue 18, and judged offline as live.
LIVE_ONLY: set[str] = set()


def plant(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


@pytest.fixture
def planted(sysroot: Path, tmp_path: Path) -> tuple[dict[str, str], Path]:
    """The node's environment (sysroot, fake npu-smi on PATH) and its npu-smi."""
    plant(sysroot, "/usr/local/Ascend/driver/version.info", DRIVER_INFO.read_text())
    firmware = VERSIONS / "firmware_version.info_7.1.0.11.220_doc.txt"
    plant(sysroot, "/usr/local/Ascend/firmware/version.info", firmware.read_text())
    arch = platform.machine()
    info = VERSIONS / "ascend_toolkit_install.info_8.0.0_aarch64_vllm-ascend-362.txt"
    plant(sysroot, f"{TOOLKIT}/8.0.0/{arch}-linux/ascend_toolkit_install.info",
          info.read_text().replace("aarch64", arch))  # fmt: skip
    (sysroot / TOOLKIT.lstrip("/") / "latest").symlink_to("8.0.0")
    set_env = VERSIONS / "set_env.sh_toolkit_exports_reconstructed.txt"
    plant(sysroot, f"{TOOLKIT}/set_env.sh", set_env.read_text())
    (sysroot / "dev").mkdir()
    for name in [f"davinci{i}" for i in range(8)] + ["davinci_manager", "devmm_svm", "hisi_hdc"]:
        (sysroot / "dev" / name).symlink_to("/dev/null")
    # a recent plog with a real EL0004 line: the bundle must carry it for the offline verdict
    quoted = (FIXTURES / "logs" / "ascend-facts_section6_quoted.txt").read_text().splitlines()
    plant(sysroot, f"{PLOGS}/plog-4242_20250101000000000.log", quoted[1] + "\n")
    smi = fake_tool(tmp_path / "bin", "npu-smi", {"info": IDLE_910B2})
    env = clean_env(
        PATH=path_with(tmp_path / "bin"),
        AMPENV_SYSROOT=str(sysroot),
        ASCEND_PROCESS_LOG_PATH=PLOGS.removesuffix("/plog"),
        HCCL_CONNECT_TIMEOUT="1200",
        HF_TOKEN="hf_secret_value_123",
    )
    return env, smi


def verdicts(report: dict) -> dict[str, tuple[str, str]]:
    return {c["id"]: (c["status"], c["summary"]) for c in report["checks"]}


def read_member(path: Path, name: str) -> bytes:
    with tarfile.open(path) as tar:
        return tar.extractfile(name).read()


def test_offline_verdict_equals_the_live_one(planted, tmp_path):
    env, smi = planted
    live = run_ampenv("doctor", "--profile", "quick", "--format", "json", env=env)
    assert live.json["backend"] == "npu", live.stderr
    bundle = tmp_path / "node.tar.gz"
    collected = run_ampenv("collect", "-o", str(bundle), env=env)
    assert collected.returncode == 0, collected.stderr
    recorded = json.loads(read_member(bundle, "report.json"))
    # The collect run is a live run of the same node: the same statuses as `doctor`.
    assert {k: v[0] for k, v in verdicts(recorded).items()} == {
        k: v[0] for k, v in verdicts(live.json).items()
    }

    asked = len(calls(smi))
    offline = run_ampenv("doctor", "--bundle", str(bundle), "--profile", "quick",
                         "--format", "json", env=clean_env())  # fmt: skip
    assert len(calls(smi)) == asked, "the offline run executed a command"
    assert offline.json["backend"] == "npu"
    assert offline.json["host"] == recorded["host"]
    got, want = verdicts(offline.json), verdicts(recorded)
    assert got.keys() == want.keys()
    differ = {k for k in want if got[k] != want[k]}
    # A bundle holds no caches: their verdict is the live run's (in report.json).
    assert differ - {"cache.stale"} == LIVE_ONLY, {k: (want[k], got[k]) for k in differ}
    for k in LIVE_ONLY:
        assert got[k][0] == "skip" and "live node" in got[k][1]
    assert got["cache.stale"][0] == "skip" and "offline bundle" in got["cache.stale"][1]
    assert got["logs.errors"][0] == "warn" and "EL0004" in got["logs.errors"][1]
    assert offline.returncode == recorded["exit_code"]


def test_the_bundle_holds_outputs_version_files_packages_and_a_redacted_environment(
    planted, tmp_path
):
    env, smi = planted
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    with tarfile.open(bundle) as tar:
        names = set(tar.getnames())
        assert all(m.isfile() for m in tar.getmembers())
    manifest = json.loads(read_member(bundle, "manifest.json"))
    assert manifest["format"] == "ampenv.integrations.collect/1"
    assert read_member(bundle, "files/usr/local/Ascend/driver/version.info").decode() == (
        DRIVER_INFO.read_text()
    )
    commands = [json.loads(read_member(bundle, n)) for n in sorted(names)
                if n.startswith("commands/")]  # fmt: skip
    smi_info = next(c for c in commands if c["argv"] == [str(smi), "info"])
    assert smi_info["stdout"] == IDLE_910B2.read_text()
    facts = json.loads(read_member(bundle, "facts.json"))
    assert "pytest" in facts["distributions"]
    assert facts["globs"]["/dev/davinci[0-9]*"][:2] == ["/dev/davinci0", "/dev/davinci1"]
    recorded_env = json.loads(read_member(bundle, "env.json"))
    assert recorded_env["HF_TOKEN"] == "<redacted>"
    assert recorded_env["HCCL_CONNECT_TIMEOUT"] == "1200"
    assert b"hf_secret_value_123" not in bundle.read_bytes()  # compressed, so check inside too
    assert all(b"hf_secret_value_123" not in read_member(bundle, n) for n in names)


def test_offline_caches_are_not_judged_from_an_empty_tree(planted, sysroot, tmp_path):
    """A bundle holds no caches: offline, cache.stale must not pass them as clean."""
    env, _ = planted
    for plog in (sysroot / PLOGS.lstrip("/")).iterdir():
        plog.unlink()  # no log hit either: nothing else to say
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    offline = run_ampenv("doctor", "--bundle", str(bundle), "--only", "cache.stale",
                         "--format", "json", env=clean_env())  # fmt: skip
    (stale,) = offline.json["checks"]
    assert stale["status"] == "skip", stale
    assert stale["summary"].startswith("offline bundle: caches not judged")
    assert any("judged on the live node only" in d for d in stale["details"])


def test_a_bundle_that_cannot_be_written_is_a_usage_error(planted, tmp_path):
    env, _ = planted
    ran = run_ampenv("collect", "-o", str(tmp_path / "missing" / "node.tar.gz"), env=env)
    assert ran.returncode == 2 and "cannot write" in ran.stderr and "Traceback" not in ran.stderr


def test_collect_never_replaces_a_file_without_force(planted, tmp_path):
    env, _ = planted
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    ran = run_ampenv("collect", "-o", str(target), env=env)
    assert ran.returncode == 2 and "--force" in ran.stderr and target.read_text() == "mine"
    assert run_ampenv("collect", "-o", str(target), "--force", env=env).returncode == 0
    assert tarfile.is_tarfile(target)


def test_the_bundle_keeps_only_the_home_directories_of_etc_passwd(planted, sysroot, tmp_path):
    env, _ = planted
    plant(sysroot, "/etc/passwd", "root:x:0:0:root:/root:/bin/bash\n"
          "alice:x:1000:1000:Alice Liddell,Room 7:/home/alice:/bin/zsh\n")  # fmt: skip
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    kept = read_member(bundle, "files/etc/passwd").decode()
    assert [line.split(":")[5] for line in kept.splitlines()] == ["/root", "/home/alice"]
    assert "alice" not in kept.replace("/home/alice", "") and "Liddell" not in kept


ACTIVE_PLUGIN = """\
from ampenv.checks import Result, check

@check("site.active", title="Device work", profile="full")
def site_active(ctx):
    return Result.fail("ran on the machine reading the bundle", remedy="never run offline")
"""


def test_active_checks_skip_offline_with_why(planted, tmp_path):
    env, _ = planted
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    plugins = tmp_path / "checks.d"
    plugins.mkdir()
    (plugins / "active.py").write_text(ACTIVE_PLUGIN)
    env = clean_env(AMPENV_CHECKS_PATH=str(plugins))
    offline = run_ampenv("doctor", "--bundle", str(bundle), "--profile", "certify",
                         "--format", "json", env=env)  # fmt: skip
    quick = set(verdicts(json.loads(read_member(bundle, "report.json"))))
    active = {c["id"]: (c["status"], c["summary"]) for c in offline.json["checks"]
              if c["id"] not in quick}  # fmt: skip
    assert "site.active" in active
    assert set(active.values()) == {("skip", OFFLINE_ACTIVE)}, active


def test_a_command_not_recorded_is_missing(planted, tmp_path):
    env, _ = planted
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    probe = BundleProbe(str(bundle))
    result = probe.run(["hccn_tool", "-i", "0", "-link", "-g"], timeout=5)
    assert (result.outcome.value, result.error) == ("missing", "not recorded in the bundle")
    assert probe.read_text("/../../../etc/passwd") is None  # no way out of the bundle


def _tar(path: Path, *members: tarfile.TarInfo, data: bytes = b"x") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for m in members:
            tar.addfile(m, io.BytesIO(data) if m.isfile() else None)
    return path


def _file(name: str, size: int = 1) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    return info


def _link(name: str, target: str, kind: bytes) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


@pytest.mark.parametrize(
    ("member", "why"),
    [
        (_file("../escape"), "unsafe path"),
        (_file("/etc/cron.d/evil"), "unsafe path"),
        (_file("files/../../escape"), "unsafe path"),
        (_link("files/etc/passwd", "/etc/passwd", tarfile.SYMTYPE), "not a regular file"),
        (_link("files/hard", "/etc/shadow", tarfile.LNKTYPE), "not a regular file"),
    ],
)
def test_unsafe_members_are_refused(tmp_path, member, why):
    bundle = _tar(tmp_path / "evil.tar.gz", member)
    with pytest.raises(BundleError, match=why):
        BundleProbe(str(bundle))
    assert not (tmp_path / "escape").exists()


def test_size_limits(tmp_path, monkeypatch):
    monkeypatch.setattr(bundle_mod, "MAX_MEMBER_BYTES", 4)
    bundle = _tar(tmp_path / "big.tar.gz", _file("files/big", 5), data=b"12345")
    with pytest.raises(BundleError, match="size limits"):
        BundleProbe(str(bundle))


@pytest.mark.parametrize(
    "kind",
    [
        tarfile.GNUTYPE_LONGNAME,
        tarfile.GNUTYPE_LONGLINK,
        tarfile.XHDTYPE,
        tarfile.XGLTYPE,
        tarfile.SOLARIS_XHDTYPE,
        tarfile.GNUTYPE_SPARSE,
    ],
)
def test_a_record_larger_than_a_member_may_be_is_refused_before_it_is_read(
    tmp_path, monkeypatch, kind
):
    # tarfile reads and expands these before any member limit applies (a 1 MiB bundle took
    # 1 GB, a 64 MiB GNU sparse map in a pax record 3 GB): each is refused by its header, and
    # tarfile's own reads are bounded besides (a walk of the headers beside tarfile was led
    # astray by what tarfile reads otherwise: Solaris' X, a pax size record, a folder's size)
    monkeypatch.setattr(bundle_mod, "MAX_MEMBER_BYTES", 1 << 20)
    header = tarfile.TarInfo("././@LongLink")
    header.type, header.size = kind, 8 << 20
    long_name = tarfile.TarInfo("files/x")
    long_name.size = 1
    bomb = tmp_path / "bomb.tar.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(header.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * (8 << 20))
        out.write(long_name.tobuf() + b"x" + b"\0" * 511 + b"\0" * 1024)
    with pytest.raises(BundleError, match="refused"):
        BundleProbe(str(bomb))


def test_a_file_that_is_not_a_bundle_is_a_usage_error(tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"not a tarball")
    ran = run_ampenv("doctor", "--bundle", str(junk), env=clean_env())
    assert ran.returncode == 2
    assert "not a readable bundle" in ran.stderr or "cannot be unpacked" in ran.stderr


def _respun(bundle: Path, out: Path, name: str, change) -> Path:
    """``bundle`` rebuilt with member ``name`` changed: ``change(bytes)`` gives the new content,
    or None to leave the member out."""
    with tarfile.open(bundle) as src, tarfile.open(out, "w:gz") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()
            if member.name == name:
                data = change(data)
                if data is None:
                    continue
            info = tarfile.TarInfo(member.name)
            info.size, info.mode = len(data), 0o644
            dst.addfile(info, io.BytesIO(data))
    return out


def _json_member(**update):
    return lambda data: json.dumps({**json.loads(data), **update}).encode()


def _without(key: str):
    return lambda data: json.dumps({k: v for k, v in json.loads(data).items() if k != key}).encode()


def _replaced(data: bytes):
    return lambda _: data


# A bundle may come from anyone: a member of the wrong shape is refused as a usage error naming
# the bundle and what is wrong, never a traceback.
SPOILED = {
    "manifest a list": (
        "manifest.json",
        _replaced(b"[1, 2]"),
        "manifest.json is a list, expected an object",
    ),
    "no manifest": ("manifest.json", lambda _: None, "no manifest.json"),
    "format a number": (
        "manifest.json",
        _json_member(format=1),
        "manifest.json: 'format' is 1, expected a string",
    ),
    "facts a list": ("facts.json", _replaced(b"[]"), "facts.json is a list, expected an object"),
    "facts of the wrong types": (
        "facts.json",
        _replaced(b'{"globs": 5, "which": "x", "host": [], "disk": 1}'),
        "facts.json: 'globs' is 5, expected an object of lists of paths",
    ),
    "which a string": (
        "facts.json",
        _json_member(which="x"),
        "facts.json: 'which' is 'x', expected a list of {tool, extra_dirs, path} objects",
    ),
    "host a list": (
        "facts.json",
        _json_member(host=[]),
        "facts.json: 'host' is a list, expected an object of numbers, or null",
    ),
    "disk a number": (
        "facts.json",
        _json_member(disk=1),
        "facts.json: 'disk' is 1, expected an object of {total, free, dev} objects",
    ),
    "facts nested too deeply": (
        "facts.json",
        _replaced(b"[" * 100_000),
        "facts.json is not valid JSON: nested too deeply",
    ),
    "env a list": (
        "env.json",
        _replaced(b"[1]"),
        "env.json is a list, expected an object",
    ),
    "env value a number": ("env.json", _json_member(PATH=1), "env.json: 'PATH' is 1"),
    "env not UTF-8": (
        "env.json",
        _replaced(b'{"A": "caf\xe9"}'),
        "env.json is not UTF-8 text (byte 10 is not valid)",
    ),
    "outcome weird": (
        "commands/000.json",
        _json_member(outcome="weird"),
        "commands/000.json: 'outcome' is 'weird', expected one of ok, missing, timeout, signal",
    ),
    "no argv": ("commands/000.json", _without("argv"), "commands/000.json has no 'argv'"),
    "command not JSON": (
        "commands/000.json",
        _replaced(b"{"),
        "commands/000.json is not valid JSON: ",
    ),
}


@pytest.mark.parametrize("case", SPOILED.values(), ids=SPOILED.keys())
def test_a_member_of_the_wrong_shape_is_a_usage_error_naming_the_bundle(planted, tmp_path, case):
    name, change, why = case
    env, _ = planted
    good = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(good), env=env).returncode == 0
    with tarfile.open(good) as tar:
        assert name in tar.getnames()
    bad = _respun(good, tmp_path / "spoiled.tar.gz", name, change)
    ran = run_ampenv("doctor", "--bundle", str(bad), env=clean_env())
    assert (ran.returncode, ran.stdout) == (2, "")
    assert ran.stderr.startswith(f"ampenv: {bad}: {why}") and ran.stderr.count("\n") == 1
    with pytest.raises(BundleError, match="^" + re.escape(f"{bad}: {why}")):
        BundleProbe(str(bad))


def test_a_rebuilt_bundle_with_nothing_changed_still_reads(planted, tmp_path):
    env, _ = planted
    good = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(good), env=env).returncode == 0
    same = _respun(good, tmp_path / "same.tar.gz", "facts.json", lambda data: data)
    ran = run_ampenv("doctor", "--bundle", str(same), "--format", "json", env=clean_env())
    assert ran.stderr == "" and ran.json["backend"] == "npu"
