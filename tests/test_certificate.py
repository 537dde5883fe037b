"""The node certificate: `ampenv certify` end to end on this CPU, `certificate verify` and its
reasons (edited, torch changed, expired, missing, unreadable), the fingerprint of a planted NPU
node, path resolution and the atomic write."""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import platform
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, clean_env, run_ampenv

from ampenv.checks import Status
from ampenv.core.config import parse
from ampenv.core.session import Options, diagnose
from ampenv.integrations import certificate as cert
from ampenv.probe import Probe
from ampenv.probe.fingerprint import fingerprint

VERSIONS = FIXTURES / "version-files"
TOOLKIT = "/usr/local/Ascend/ascend-toolkit"


def _rewrite(path: Path, change, reseal: bool) -> None:
    body = json.loads(path.read_text())
    change(body)
    if reseal:
        body["digest"] = cert.digest(body)
    path.write_text(json.dumps(body))


def _verify(path: Path, *extra: str):
    return run_ampenv("certificate", "verify", "--certificate", str(path), *extra)


# -- end to end, with the CPU defaults ------------------------------------------------------------
@pytest.fixture(scope="module")
def certified(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    path = home / "state" / "certificate.json"
    # The certificate's mechanics, not this machine's load: on a CPU with native bf16 the AMP
    # speedup is judged (>= 1.5x), and other sessions' tests on a shared machine can halve it.
    # That judgement is tested on planted timings (test_smoke.py, test_expectations.py).
    config = home / "ampenv.toml"
    config.write_text('[checks."smoke.resnet50"]\nmin_speedup = 0.0\nmin_mem_reduction = -1.0\n')
    ran = run_ampenv(
        "certify",
        "-c",
        str(config),
        "--certificate",
        str(path),
        "-f",
        "json",
        env=clean_env(HOME=str(home)),
        timeout=300,
    )
    return ran, path


@pytest.mark.slow
def test_certify_passes_on_this_cpu_and_writes_the_certificate(certified):
    ran, path = certified
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.json["status"] in ("pass", "warn") and ran.json["profile"] == "certify"
    assert ran.check("smoke.resnet50")["status"] == "pass"
    assert f"certificate written to {path}" in ran.stderr
    body = cert.load(str(path))
    assert body["fingerprint"]["torch"] == Probe().distribution_version("torch")
    assert body["smoke"]["metrics"]["amp_loss_last"] < body["smoke"]["metrics"]["amp_loss_first"]
    assert not list(path.parent.glob(".certificate-*"))  # the temp file was renamed


@pytest.mark.slow
def test_verify_accepts_the_fresh_certificate(certified):
    verified = _verify(certified[1])
    assert verified.returncode == 0, verified.stdout
    assert verified.stdout.startswith("valid: ")


@pytest.mark.slow
def test_verify_refuses_a_certificate_for_another_torch(certified, tmp_path):
    other = tmp_path / "certificate.json"
    other.write_text(certified[1].read_text())
    _rewrite(other, lambda b: b["fingerprint"].update(torch="2.1.0"), reseal=True)
    verified = _verify(other)
    assert verified.returncode == 1
    now = Probe().distribution_version("torch")
    assert verified.stdout.strip() == (
        f"ampenv: certificate fingerprint changed: torch: 2.1.0 → {now}"
    )


@pytest.mark.slow
def test_verify_refuses_a_certificate_edited_by_hand(certified, tmp_path):
    edited = tmp_path / "certificate.json"
    edited.write_text(certified[1].read_text())
    _rewrite(edited, lambda b: b.update(expires_at="2999-01-01T00:00:00Z"), reseal=False)
    verified = _verify(edited)
    assert verified.returncode == 1
    assert (
        verified.stdout.strip() == f"ampenv: certificate edited: {edited} does not match its digest"
    )


# -- fast: a certificate issued from a real quick run ----------------------------------------------
@pytest.fixture(scope="module")
def quick_report():
    return diagnose(Options(profile="quick", config_path=os.devnull))


@pytest.fixture
def issued(quick_report, tmp_path):
    path = tmp_path / "certificate.json"
    cert.write(str(path), cert.issue(quick_report, Probe(), max_age_hours=24))
    return path


def test_a_fresh_certificate_verifies(issued):
    verdict = cert.verify(str(issued), Probe(), max_age_hours=24)
    assert verdict.ok, verdict.reason


def test_a_key_given_twice_is_refused(issued):
    # the digest binds the parsed certificate (the last value); a reader keeping the first
    # value would see "fail" where verify saw "pass"
    text = issued.read_text()
    assert '"status": "pass"' in text
    issued.write_text(text.replace('"status": "pass"', '"status": "fail", "status": "pass"', 1))
    verdict = cert.verify(str(issued), Probe(), max_age_hours=24)
    assert not verdict.ok and "the key 'status' is given twice" in verdict.reason


def test_verify_imports_no_torch(issued):
    ran = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ampenv", "certificate", "verify"],
        env=clean_env(AMPENV_CERTIFICATE=str(issued)),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    imported = {ln.rsplit("|", 1)[1].strip() for ln in ran.stderr.splitlines() if "|" in ln}
    assert "ampenv.integrations.certificate" in imported
    assert not {m for m in imported if m == "torch" or m.startswith("torch.")}


def test_expired_certificate_is_refused(issued):
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=25)
    verdict = cert.verify(str(issued), Probe(), max_age_hours=24, now=later)
    assert not verdict.ok and verdict.reason.startswith("expired at ")


def test_a_lower_max_age_in_config_makes_a_certificate_stale(issued):
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)
    assert cert.verify(str(issued), Probe(), max_age_hours=24, now=later).ok
    assert not cert.verify(str(issued), Probe(), max_age_hours=1, now=later).ok


def test_missing_and_unreadable_certificates_are_refused(tmp_path):
    missing = _verify(tmp_path / "none.json")
    assert missing.returncode == 1 and "certificate missing: no certificate at" in missing.stdout
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    unreadable = _verify(garbage)
    assert unreadable.returncode == 1
    assert "certificate unreadable:" in unreadable.stdout and "not JSON" in unreadable.stdout


def _resealed(change):
    def write(path: Path) -> None:
        _rewrite(path, change, reseal=True)

    return write


def _raw(data: bytes):
    return lambda path: path.write_bytes(data)


# A certificate may come from anyone: each of these is refused with one line naming what is
# wrong, by verify, show, the Slurm hook and the Prometheus export alike, never a traceback.
MALFORMED = {
    "issued_at without offset": (
        _resealed(lambda b: b.update(issued_at="2026-12-03T08:33:29")),
        "is malformed: 'issued_at' is '2026-12-03T08:33:29', expected a time with its UTC offset",
    ),
    "expires_at without offset": (
        _resealed(lambda b: b.update(expires_at="2026-12-03T08:33:29")),
        "is malformed: 'expires_at' is '2026-12-03T08:33:29', expected a time with its UTC offset",
    ),
    "expires_at a number": (
        _resealed(lambda b: b.update(expires_at=12345)),
        "is malformed: 'expires_at' is 12345, expected a time",
    ),
    "issued_at before year 1 in UTC": (
        _resealed(lambda b: b.update(issued_at="0001-01-01T00:00:00+01:00")),
        "is malformed: 'issued_at' is '0001-01-01T00:00:00+01:00', expected a time",
    ),
    "fingerprint a list": (
        _resealed(lambda b: b.update(fingerprint=["torch"])),
        "is malformed: 'fingerprint' is a list, expected an object",
    ),
    "fingerprint a string": (
        _resealed(lambda b: b.update(fingerprint="torch")),
        "is malformed: 'fingerprint' is 'torch', expected an object",
    ),
    "fingerprint null": (
        _resealed(lambda b: b.update(fingerprint=None)),
        "is malformed: 'fingerprint' is null, expected an object",
    ),
    "no node": (_resealed(lambda b: b.pop("node")), "is malformed: 'node' is missing"),
    "backend a number": (
        _resealed(lambda b: b.update(backend=1)),
        "is malformed: 'backend' is 1, expected a string",
    ),
    "smoke a list": (
        _resealed(lambda b: b.update(smoke=[1])),
        "is malformed: 'smoke' is a list, expected an object or null",
    ),
    "smoke metrics a list": (
        _resealed(lambda b: b.update(smoke={"summary": "ok", "metrics": [1]})),
        "is malformed: 'smoke.metrics' is a list, expected an object",
    ),
    "nested too deeply": (_raw(b"[" * 100_000), "is not JSON (nested too deeply)"),
    "not UTF-8": (_raw(b'{"node": "caf\xe9"}'), "is not UTF-8 text (byte 13 is not valid)"),
}


@pytest.mark.parametrize("case", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_certificate_is_refused_in_one_line_everywhere(issued, tmp_path, case):
    spoil, why = case
    spoil(issued)
    reason = f"unreadable: {issued} {why}"

    verified = _verify(issued)
    assert verified.returncode == 1, verified.stderr
    assert verified.stdout.startswith(f"ampenv: certificate {reason}")
    assert verified.stdout.count("\n") == 1 and verified.stderr == ""
    reason = verified.stdout.removeprefix("ampenv: certificate ").rstrip("\n")

    shown = run_ampenv("certificate", "show", "--certificate", str(issued))
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        1, f"certificate {issued}\n  {reason}\n", ""
    )  # fmt: skip
    as_json = run_ampenv("certificate", "show", "--certificate", str(issued), "-f", "json")
    assert (as_json.returncode, as_json.stderr) == (1, "") and reason in as_json.stdout

    config = tmp_path / "hook.toml"
    config.write_text(f'[hook]\ncertificate = true\nlock_file = "{tmp_path / "hook.lock"}"\n')
    env = clean_env(AMPENV_CONFIG=str(config), AMPENV_CERTIFICATE=str(issued))
    hooked = run_ampenv("hook", "slurm", env=env)
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (
        1, f"ampenv: certificate: {reason}\n", ""
    )  # fmt: skip

    exported = run_ampenv("doctor", "-p", "quick", "-f", "prometheus",
                          env=clean_env(AMPENV_CERTIFICATE=str(issued)))  # fmt: skip
    assert "Traceback" not in exported.stderr
    assert "ampenv_certified 0" in exported.stdout.splitlines()


def test_a_certificate_issued_past_year_9999_is_judged_not_overflowed(issued):
    times = {"issued_at": "9999-12-31T23:00:00Z", "expires_at": "2020-01-01T00:00:00Z"}
    _rewrite(issued, lambda b: b.update(times), reseal=True)
    verified = _verify(issued)
    assert (verified.returncode, verified.stdout, verified.stderr) == (
        1, "ampenv: certificate expired at 2020-01-01T00:00:00Z (issued 9999-12-31T23:00:00Z)\n", ""
    )  # fmt: skip


def test_a_time_with_an_offset_other_than_z_is_read_in_utc(issued):
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(hours=2)
    local = later.astimezone(dt.timezone(dt.timedelta(hours=5, minutes=30)))
    _rewrite(issued, lambda b: b.update(expires_at=local.isoformat()), reseal=True)
    assert cert.verify(str(issued), Probe(), max_age_hours=24).ok
    assert not cert.verify(str(issued), Probe(), max_age_hours=24, now=later).ok


def test_show_prints_the_certificate_and_its_verdict(issued):
    shown = run_ampenv("certificate", "show", "--certificate", str(issued))
    assert shown.returncode == 0
    assert shown.stdout.startswith(f"certificate {issued}\n  valid: ")
    assert "    torch = " in shown.stdout
    as_json = run_ampenv("certificate", "show", "--certificate", str(issued), "-f", "json")
    assert json.loads(as_json.stdout) == json.loads(issued.read_text())


def test_a_failed_certify_removes_the_old_certificate(quick_report, issued):
    failed = copy.deepcopy(quick_report)
    failed.checks[0].result.status = Status.FAIL
    settled = cert.settle(failed, Probe(), {"max_age_hours": 24}, str(issued))
    assert settled.note == f"not certified (exit 1): removed the old certificate {issued}"
    assert settled.exit_code == 1
    assert not issued.exists()


@pytest.mark.parametrize("what", ["fifo", "folder", "link", "device"])
def test_a_failed_certify_leaves_what_is_no_certificate(quick_report, tmp_path, what):
    # `--certificate /dev/null` on a failing node once removed /dev/null itself
    target = tmp_path / "cert"
    if what == "fifo":
        os.mkfifo(target)
    elif what == "folder":
        target.mkdir()
    elif what == "link":
        (tmp_path / "victim").write_text("kept")
        target.symlink_to(tmp_path / "victim")
    elif os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    else:
        os.mknod(target, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    failed = copy.deepcopy(quick_report)
    failed.checks[0].result.status = Status.FAIL
    settled = cert.settle(failed, Probe(), {"max_age_hours": 24}, str(target))
    assert settled.exit_code == 1 and settled.note.endswith("no certificate: left as it is")
    assert os.path.lexists(target) and (what != "link" or (tmp_path / "victim").exists())


def test_a_healthy_run_without_smoke_training_is_not_certified(quick_report, issued):
    assert quick_report.exit_code == 0 and quick_report.get("smoke.resnet50") is None
    settled = cert.settle(quick_report, Probe(), {"max_age_hours": 24}, str(issued))
    assert settled.note.startswith("not certified, smoke.resnet50 not run: removed")
    assert settled.exit_code == 3
    assert not issued.exists()


def test_path_resolution_order(tmp_path):
    env = {"HOME": "/home/u", "AMPENV_CERTIFICATE": "/env/c.json"}
    section = {"path": "/cfg/c.json"}
    assert cert.resolve_path("/cli/c.json", env, section, euid=1000) == "/cli/c.json"
    assert cert.resolve_path(None, env, section, euid=1000) == "/env/c.json"
    del env["AMPENV_CERTIFICATE"]
    assert cert.resolve_path(None, env, section, euid=1000) == "/cfg/c.json"
    assert cert.resolve_path(None, env, {}, euid=0) == "/var/lib/ampenv/certificate.json"
    home = "/home/u/.local/state/ampenv/certificate.json"
    assert cert.resolve_path(None, env, {}, euid=1000) == home
    env["XDG_STATE_HOME"] = "/xdg"
    assert cert.resolve_path(None, env, {}, euid=1000) == "/xdg/ampenv/certificate.json"


# -- the fingerprint of a planted NPU node --------------------------------------------------------
def _plant(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


@pytest.fixture
def npu_node(sysroot: Path) -> Path:
    """Driver, firmware and CANN 8.0.0 version files from the captures (arch edited to this
    host's), and two PCI functions with the Ascend 910B ids of ascend-facts.md."""
    _plant(
        sysroot,
        "/usr/local/Ascend/driver/version.info",
        (VERSIONS / "driver_version.info_24.1.rc1_doc.txt").read_text(),
    )
    _plant(
        sysroot,
        "/usr/local/Ascend/firmware/version.info",
        (VERSIONS / "firmware_version.info_7.1.0.11.220_doc.txt").read_text(),
    )
    arch = platform.machine()
    info = (VERSIONS / "ascend_toolkit_install.info_8.0.0_aarch64_vllm-ascend-362.txt").read_text()
    _plant(
        sysroot,
        f"{TOOLKIT}/8.0.0/{arch}-linux/ascend_toolkit_install.info",
        info.replace("aarch64", arch),
    )
    (sysroot / TOOLKIT.lstrip("/") / "latest").symlink_to("8.0.0")
    for bus in ("0000:c1:00.0", "0000:c2:00.0"):
        for name, value in (("vendor", "0x19e5"), ("class", "0x120000"), ("device", "0xd802")):
            _plant(sysroot, f"/sys/bus/pci/devices/{bus}/{name}", value + "\n")
    _plant(sysroot, "/sys/bus/pci/devices/0000:03:00.0/vendor", "0x19e5\n")  # a Huawei NIC
    _plant(sysroot, "/sys/bus/pci/devices/0000:03:00.0/class", "0x020000\n")
    return sysroot


def test_npu_fingerprint_reads_versions_and_devices(npu_node):
    found = fingerprint(Probe(sysroot=str(npu_node)), "npu")
    assert found["driver"] == "24.1.rc1" and found["firmware"] == "7.1.0.11.220"
    assert found["cann"] == "8.0.0"
    assert found["devices"] == ["2x Ascend 910B"] and found["device_count"] == 2


def test_a_driver_upgrade_invalidates_the_certificate(npu_node, quick_report, tmp_path):
    path = tmp_path / "certificate.json"
    quick_report.backend = "npu"
    try:
        cert.write(str(path), cert.issue(quick_report, Probe(sysroot=str(npu_node)), 24))
    finally:
        quick_report.backend = "cpu"
    driver = npu_node / "usr/local/Ascend/driver/version.info"
    driver.write_text(driver.read_text().replace("Version=24.1.rc1", "Version=24.1.rc2"))
    config = parse("", "<defaults>")
    _, verdict = cert.verify_node(config, Probe(sysroot=str(npu_node)), str(path))
    assert not verdict.ok
    assert verdict.reason == "fingerprint changed: driver: 24.1.rc1 → 24.1.rc2"


def test_a_certificate_path_at_an_endless_file_is_refused_not_read_forever(tmp_path):
    """Issue 17: only a regular file is read (a FIFO or a device never is), and at most 1 MiB."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    ran = run_ampenv("certificate", "verify", "--certificate", str(fifo))
    assert ran.returncode == 1 and "is a FIFO, not a regular file" in ran.stdout
    big = tmp_path / "big.json"
    big.write_bytes(b" " * ((1 << 20) + 1))
    ran = run_ampenv("certificate", "verify", "--certificate", str(big))
    assert ran.returncode == 1 and "larger than 1024 KiB" in ran.stdout
