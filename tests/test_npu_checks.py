"""npu.devices, npu.driver and npu.device_nodes on planted nodes with fake npu-smi tools.

A fake npu-smi replays a recorded real capture, or breaks on purpose (hangs, garbage, exit 1).
Where a test needs a state no capture shows (a chip in alarm, holders with pids of processes
this test controls), it edits the real capture in the open, in the test itself.

Device nodes: a planted sysroot cannot hold real character devices without root, so the
"missing" and "not a character device" branches use plain files, the character-device branch
uses symlinks to real character devices (/dev/null, usable by all; a root-only one for the
permission branch, judged for a non-root identity), and the mode/owner arithmetic is tested
directly in :func:`ampenv.probe.devnodes.permits`.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import psutil
import pytest
from conftest import FIXTURES, clean_env, run_ampenv
from fakebin import Reply, calls, fake_tool, path_with
from test_cann import CANN_850, INFO_800, LEGACY, plant_legacy, plant_toolkit

from ampenv.checks import CheckContext, Context, Result, Status
from ampenv.core import config as config_mod
from ampenv.core.registry import builtin_dir
from ampenv.knowledge import hdk
from ampenv.knowledge import npu as npu_knowledge
from ampenv.probe import Probe, devnodes, driver
from ampenv.probe.npusmi import Holder
from ampenv.probe.pids import Liveness, PidState

SMI = FIXTURES / "npu-smi"
VERSIONS = FIXTURES / "version-files"
IDLE_910B2 = SMI / "910b2_8dev_idle_23.0.7.txt"
DEVICE_KEYS = {
    "npu", "chip", "phy_id", "name", "health", "bus_id", "power_w", "temp_c", "aicore_pct",
    "memory_used_mb", "memory_total_mb", "hbm_used_mb", "hbm_total_mb",
}  # fmt: skip


def _load_npu_checks():
    spec = importlib.util.spec_from_file_location("npu_checks_under_test", builtin_dir() / "npu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


NPU = _load_npu_checks()
CHECKS = {s.id: s for s in (NPU.npu_devices, NPU.npu_driver, NPU.npu_device_nodes)}


@dataclass
class Node:
    """A planted node: a sysroot, a bin folder on PATH, and one probe shared by its checks."""

    root: Path
    bin: Path
    env: dict[str, str] = field(default_factory=dict)
    offline: bool = False
    _probe: Optional[Probe] = None

    def smi(self, replay=None, **behaviour) -> Path:
        return fake_tool(self.bin, "npu-smi", replay, **behaviour)

    def plant(self, path: str, text: str = "") -> Path:
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        return target

    def link(self, path: str, to: str) -> None:
        target = self.root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(to)

    def devices(self, count: int, to: str = "/dev/null") -> None:
        """/dev/davinci0..count-1 and the management nodes, as links to a real char device."""
        for name in [f"davinci{i}" for i in range(count)]:
            self.link(f"/dev/{name}", to)
        for shared in devnodes.SHARED_NODES:
            self.link(shared, to)

    def driver_files(self) -> None:
        self.plant(
            driver.DRIVER_INFO, (VERSIONS / "driver_version.info_24.1.rc1_doc.txt").read_text()
        )
        self.plant(
            driver.FIRMWARE_INFO,
            (VERSIONS / "firmware_version.info_7.1.0.11.220_doc.txt").read_text(),
        )

    @property
    def probe(self) -> Probe:
        if self._probe is None:
            env = clean_env(PATH=path_with(self.bin), **self.env)
            self._probe = Probe(sysroot=str(self.root), env=env)
            self._probe.offline = self.offline
        return self._probe

    def judge(self, check_id: str, **settings) -> Result:
        spec = CHECKS[check_id]
        config = config_mod.parse("", "<defaults>")
        ctx = Context(config=config, probe=self.probe)
        merged = {**config.settings_for(spec), **settings}
        return spec(CheckContext(ctx, spec, merged, time.monotonic() + merged["timeout"]))


@pytest.fixture
def node(sysroot: Path, tmp_path: Path) -> Node:
    return Node(sysroot, tmp_path / "bin")


def replay_text(tmp_path: Path, text: str) -> Path:
    """An edited capture, written where a fake can replay it."""
    path = tmp_path / "edited-npu-smi-info.txt"
    path.write_text(text)
    return path


def leftover(tool: Path) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        if str(tool) in " ".join(p.info["cmdline"] or []):
            found.append(p)
    return found


# -- no NPU --------------------------------------------------------------------------------------
def test_every_npu_check_skips_without_npu_smi_or_davinci(node: Node):
    for check_id in CHECKS:
        result = node.judge(check_id)
        assert (result.status, result.summary) == (Status.SKIP, "no Ascend NPU on this node")


def test_npu_smi_in_usr_local_sbin_of_the_sysroot_is_found(node: Node):
    fake_tool(node.root / "usr/local/sbin", "npu-smi", {"info": IDLE_910B2})
    node.devices(8)
    assert node.judge("npu.devices").status is Status.PASS


# -- npu.devices ---------------------------------------------------------------------------------
def test_idle_910b2_passes_with_the_design_facts(node: Node):
    smi = node.smi({"info": IDLE_910B2})
    result = node.judge("npu.devices")
    assert result.status is Status.PASS, result.summary
    assert result.summary == "8 x 910B2 healthy and idle (npu-smi 23.0.7, driver 23.0.7)"
    facts = result.facts
    assert (facts["npu_smi_version"], facts["driver_version"]) == ("23.0.7", "23.0.7")
    assert all(set(d) == DEVICE_KEYS for d in facts["devices"])
    assert [d["hbm_used_mb"] for d in facts["devices"]][4:] == [3347, 3350, 3347, 3347]
    assert facts["processes"] == []
    assert (facts["device_count"], facts["chip_name"]) == (8, "910B2")
    assert calls(smi) == ["info"]  # healthy chips need no health query


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("Warning", Status.WARN),
        ("Alarm", Status.FAIL),
        ("Critical", Status.FAIL),
        ("UNKNOWN", Status.FAIL),
    ],
)
def test_non_ok_chip_is_judged_with_its_health_page(node: Node, tmp_path: Path, word, status):
    text = IDLE_910B2.read_text().replace(
        "| 3     910B2               | OK    ", f"| 3     910B2               | {word:<6}"
    )
    assert word in text
    # The page is the synthetic parser fixture (its code and text are not from a device).
    health_page = SMI / "health_c0_warning_SYNTHETIC_fixture.txt"
    smi = node.smi({"info": replay_text(tmp_path, text), "info -t health -i 3 -c 0": health_page})
    result = node.judge("npu.devices")
    assert result.status is status
    assert result.summary.startswith(f"NPU 3 chip 0 (910B2) health {word}: error 80E01801")
    assert "npu-smi info -t health -i 3 -c 0" in result.remedy
    assert calls(smi) == ["info", "info -t health -i 3 -c 0"]


def test_count_and_chip_name_from_config(node: Node):
    node.smi({"info": IDLE_910B2})
    result = node.judge("npu.devices", expected_count=16, expected_chip="910B4")
    assert result.status is Status.FAIL
    assert "fail: 8 NPU chips found, 16 expected" in result.details
    assert "fail: chip 910B2 found, 910B4 expected" in result.details
    assert "expected_count" in result.remedy
    ok = node.judge("npu.devices", expected_count=8, expected_chip="Ascend910B2")
    assert ok.status is Status.PASS


@pytest.mark.slow
def test_config_init_captures_count_and_chip(node: Node):
    node.smi({"info": IDLE_910B2})
    ran = run_ampenv(
        "config", "init", env=clean_env(PATH=path_with(node.bin), AMPENV_SYSROOT=str(node.root))
    )
    assert ran.returncode == 0, ran.stderr
    assert "expected_count = 8  # captured" in ran.stdout
    assert 'expected_chip = "910B2"  # captured' in ran.stdout


@pytest.fixture
def holders(tmp_path: Path):
    """Real processes in three states: running, zombie (exited, not reaped) and gone."""
    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    zombie = subprocess.Popen([sys.executable, "-c", ""])
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    deadline = time.monotonic() + 10
    while psutil.Process(zombie.pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "child did not exit"
        time.sleep(0.02)
    yield running.pid, zombie.pid, gone.pid
    running.kill()
    running.wait()
    zombie.wait()


def table_with_pids(tmp_path: Path, running: int, zombie: int, gone: int) -> Path:
    """The 910A capture (8 `python` holders) with its pids swapped for ones this test owns."""
    text = (SMI / "910a_8dev_8procs_23.0.rc3_doc.txt").read_text()
    pids = ["139667", "139577", "139446", "139372", "139258", "139163", "139126", "139090"]
    for old, new in zip(pids, [running, zombie] + [gone] * 6):
        text = text.replace(f"| {old}        ", f"| {new:<6}        ")
    return replay_text(tmp_path, text)


def test_holders_named_by_liveness(node: Node, tmp_path: Path, holders):
    running, zombie, gone = holders
    node.smi({"info": table_with_pids(tmp_path, running, zombie, gone)})
    result = node.judge("npu.devices")
    assert result.status is Status.WARN
    details = "\n".join(result.details)
    assert (
        f"1 process holds NPU memory: pid {running} (python) on NPU 0 chip 0, 30780 MB" in details
    )
    assert "1 stale NPU context: its process is a zombie that its parent has not reaped" in details
    assert f"pid {zombie} (python) on NPU 1 chip 0, 30782 MB, parent {os.getpid()}" in details
    assert "6 stale NPU contexts: their processes no longer exist" in details
    assert f"`kill {running}`" in result.remedy
    assert f"`kill {os.getpid()}`" in result.remedy
    assert "`npu-smi set -t reset -i 7 -c 0`" in result.remedy
    assert [p["pid"] for p in result.facts["processes"]] == [running, zombie] + [gone] * 6


def test_holder_invisible_from_a_container_is_named_as_elsewhere(
    node: Node, tmp_path: Path, holders
):
    running, zombie, gone = holders
    node.plant("/.dockerenv")
    node.smi({"info": table_with_pids(tmp_path, running, zombie, gone)})
    details = "\n".join(node.judge("npu.devices").details)
    assert "6 processes in other containers (or on the host) hold NPU memory" in details
    assert "no longer exist" not in details


def test_offline_bundle_says_liveness_was_not_checked(node: Node, tmp_path: Path):
    node.offline = True
    node.smi({"info": SMI / "a3_ascend910_2npu4chip_procs_25.2.0.txt"})
    result = node.judge("npu.devices")
    assert result.status is Status.WARN
    assert result.summary == (
        "1 process holds NPU memory; whether it still runs cannot be checked offline: "
        "pid 990711 (python) on NPU 1 chip 1, 7746 MB"
    )


@pytest.mark.parametrize(
    ("state", "kind"),
    [
        (PidState(Liveness.ALIVE, "python", 1, foreign=True), "elsewhere"),  # other pid namespace
        (PidState(Liveness.ALIVE, "sshd", 1), "stale"),  # the pid was reused
        (PidState(Liveness.ALIVE, "python3.10", 1), "running"),  # npu-smi shortens names
    ],
)
def test_holder_kind(state, kind):
    assert npu_knowledge.holder_kind(Holder(pid=5, name="python"), state, None) == kind


def test_garbage_output_is_an_error_with_the_raw_lines(node: Node):
    node.smi(stdout="\x00\x01 ?? segfault-ish noise\n| not | a | table |\n")
    result = node.judge("npu.devices")
    assert result.status is Status.ERROR
    assert result.summary == "npu-smi printed a table ampenv cannot read"
    assert result.details[1:] == [
        "npu-smi printed:",
        "\x00\x01 ?? segfault-ish noise",
        "| not | a | table |",
    ]


def test_8020_is_an_error_with_its_meaning(node: Node):
    said = "dcmi model initialized failed, because the device is used. ret is -8020\n"
    node.smi(stdout=said, exit_code=1)
    result = node.judge("npu.devices")
    assert result.status is Status.ERROR
    assert "another container holds the device" in result.summary
    assert said.strip() in result.details
    assert "--device=/dev/davinciN" in result.remedy


def test_exit_1_without_output(node: Node):
    node.smi(exit_code=1)
    result = node.judge("npu.devices")
    assert result.status is Status.ERROR
    assert result.summary.endswith("info` exited with code 1")
    assert "npu-smi printed nothing" in result.details


def test_hung_npu_smi_fails_in_time_and_is_killed(node: Node):
    smi = node.smi(hang=True)
    start = time.monotonic()
    result = node.judge("npu.devices", timeout=1.0)
    elapsed = time.monotonic() - start
    assert result.status is Status.FAIL
    assert result.summary == "npu-smi did not answer in 1 s: the driver may be hung"
    assert "reboot" in result.remedy
    assert elapsed < 2.5
    assert leftover(smi) == []


def test_npu_smi_missing_but_davinci_present_warns(node: Node):
    node.devices(2)
    result = node.judge("npu.devices")
    assert result.status is Status.WARN
    assert result.summary.startswith("npu-smi not found, although 2 /dev/davinci* nodes exist")
    assert "/usr/local/bin/npu-smi" in result.remedy


# -- npu.driver ----------------------------------------------------------------------------------
def test_driver_and_firmware_files_in_range_pass(node: Node):
    node.devices(1)
    node.driver_files()
    result = node.judge("npu.driver")
    assert result.status is Status.PASS, result.details
    assert result.summary == "driver 24.1.rc1, firmware 7.1.0.11.220 within the driver's range"
    assert result.facts["compatible_version_fw"] == [["7.0.0", "7.2.99"]]
    assert result.facts["firmware_source"] == driver.FIRMWARE_INFO
    assert result.facts["driver_innerversion"] == "V100R001C15SPC006B220"


def test_firmware_from_board_page_outside_the_range_fails(node: Node):
    node.plant(driver.DRIVER_INFO, (VERSIONS / "driver_version.info_24.1.rc1_doc.txt").read_text())
    node.smi(
        {"info": IDLE_910B2, "info -t board -i 0": SMI / "board_910b_IT21HMDC_Bin5_25.5.1.txt"}
    )
    result = node.judge("npu.driver")
    assert result.status is Status.FAIL
    assert result.summary.startswith(
        "firmware 7.8.0.6.201 is outside the range driver 24.1.rc1 accepts: [7.0.0, 7.2.99]"
    )
    assert result.facts["firmware_source"] == "npu-smi info -t board -i 0"
    # the table header (23.0.7) is not the installed driver (24.1.rc1) either
    assert any("npu-smi reports driver 23.0.7 but" in d for d in result.details)


def test_loaded_driver_differs_from_version_info_warns(node: Node):
    node.driver_files()
    node.smi({"info": IDLE_910B2})
    result = node.judge("npu.driver")
    assert result.status is Status.WARN
    assert "upgraded without a reboot, or this container mounts another driver" in result.summary
    assert "reboot" in result.remedy


@pytest.mark.parametrize(
    ("container", "remedy"),
    [
        (False, "install the Ascend driver"),
        (True, "-v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro"),
    ],
)
def test_missing_driver_fails(node: Node, container, remedy):
    node.devices(1)
    if container:
        node.plant("/run/.containerenv")
    result = node.judge("npu.driver")
    assert result.status is Status.FAIL
    assert remedy in result.remedy


def test_minimum_driver_version(node: Node):
    node.devices(1)
    node.driver_files()
    old = node.judge("npu.driver", min_version="25.0.rc1")
    assert old.status is Status.FAIL
    assert old.summary == "driver 24.1.rc1 is older than the minimum 25.0.rc1"
    assert node.judge("npu.driver", min_version="23.0.0").status is Status.PASS


def test_driver_older_than_every_hdk_paired_with_the_installed_cann_warns(node: Node):
    node.devices(1)
    node.driver_files()  # 24.1.rc1
    plant_toolkit(
        node.root, CANN_850, VERSIONS / "ascend_toolkit_install.info_8.5.0_aarch64_doc.txt"
    )
    result = node.judge("npu.driver")
    assert result.status is Status.WARN
    assert result.summary == (
        "driver 24.1.rc1 is older than every HDK paired with CANN 8.5.0 (25.5.1, 25.5.0): "
        "runtime calls of this CANN may fail (207000, feature not supported)"
    )
    assert "install Ascend HDK 25.5.0 or later" in result.remedy
    assert result.facts["hdk_paired"]["source"].startswith("hicann/release-management 8.5.0/")


def _driver_under_cann(node: Node, tmp_path: Path, version: str) -> Result:
    """npu.driver on driver 24.1.rc1 under CANN ``version`` (the 8.0.0 install.info, edited)."""
    node.devices(1)
    node.driver_files()
    info = tmp_path / "install.info"
    info.write_text(INFO_800.read_text().replace("version=8.0.0", f"version={version}"))
    plant_legacy(node.root, version, info)
    assert (node.root / LEGACY.lstrip("/") / "latest").is_symlink()
    return node.judge("npu.driver")


def test_driver_at_the_hdk_paired_with_the_installed_cann_passes(node: Node, tmp_path: Path):
    # CANN 8.0.RC2, which the install guide pairs with driver 24.1.rc1
    result = _driver_under_cann(node, tmp_path, "8.0.RC2")
    assert result.status is Status.PASS, result.details
    assert "driver 24.1.rc1 is at least HDK 24.1.rc1, paired with CANN 8.0.RC2" in result.details


def test_a_cann_release_no_source_pairs_is_not_judged(node: Node, tmp_path: Path):
    result = _driver_under_cann(node, tmp_path, "8.0.RC2.alpha003")
    assert result.status is Status.PASS
    assert result.facts["hdk_paired"] is None
    assert not [d for d in result.details if "paired" in d]


def test_every_hdk_pairing_reads_as_driver_versions_with_a_source():
    for pairing in hdk.PAIRINGS:
        assert pairing.drivers and pairing.source
        assert all(driver.driver_key(v) for v in pairing.drivers), pairing
        assert hdk.paired(pairing.cann.upper()) is pairing


def test_version_arithmetic():
    order = ["23.0.rc2.3", "23.0.rc3", "23.0.0", "24.1.rc1", "24.1.RC2", "24.1.0", "25.6.rc1.b218"]
    keys = [driver.driver_key(v) for v in order]
    assert keys == sorted(keys)
    assert driver.driver_key("garbage") is None
    ranges = driver.parse_ranges("[7.0.0,7.2.99]")
    assert driver.in_ranges("7.2.50.1.220", ranges) is True
    assert driver.in_ranges("7.3.0.1.220", ranges) is False
    assert driver.in_ranges("6.9.9", ranges) is False
    assert driver.in_ranges("7.x", ranges) is None


# -- npu.device_nodes ----------------------------------------------------------------------------
def test_char_device_nodes_matching_npu_smi_pass(node: Node):
    node.devices(8)
    node.smi({"info": IDLE_910B2})
    result = node.judge("npu.device_nodes")
    assert result.status is Status.PASS, result.details
    assert result.facts["davinci"] == list(range(8))
    assert "8 /dev/davinciN nodes for 8 chips" in result.details


def test_plain_files_are_not_character_devices(node: Node):
    for path in ["/dev/davinci0", *devnodes.SHARED_NODES]:
        node.plant(path)
    result = node.judge("npu.device_nodes")
    assert result.status is Status.FAIL
    assert "fail: /dev/davinci0 is not a character device (-rw-r--r--)" in result.details


def test_missing_nodes_in_a_container_name_the_docker_flags(node: Node):
    node.plant("/.dockerenv")
    node.plant(f"{driver.DRIVER_DIR}/version.info")
    node.link("/dev/davinci0", "/dev/null")
    result = node.judge("npu.device_nodes")
    assert result.status is Status.FAIL
    assert "fail: /dev/hisi_hdc is missing" in result.details
    assert result.remedy == "start the container with: docker run " + " ".join(
        devnodes.docker_run_flags([0])
    )


def test_container_without_driver_mount_fails(node: Node):
    node.plant("/.dockerenv")
    node.devices(1)
    result = node.judge("npu.device_nodes")
    assert result.status is Status.FAIL
    assert (
        result.summary
        == "this container (/.dockerenv) has no driver mount at /usr/local/Ascend/driver"
    )
    assert "-v /usr/local/Ascend/driver:/usr/local/Ascend/driver:ro" in result.remedy


@pytest.mark.parametrize(("container", "status"), [(False, Status.FAIL), (True, Status.WARN)])
def test_fewer_nodes_than_chips(node: Node, container, status):
    if container:
        node.plant("/.dockerenv")
        node.plant(f"{driver.DRIVER_DIR}/version.info")
    node.devices(2)
    node.smi({"info": IDLE_910B2})
    result = node.judge("npu.device_nodes")
    assert result.status is status
    assert result.summary.startswith("npu-smi lists 8 chips but /dev has 2 davinciN nodes")


def test_visible_device_variables_beyond_the_nodes_fail(node: Node):
    node.env = {"ASCEND_VISIBLE_DEVICES": "0-2", "ASCEND_RT_VISIBLE_DEVICES": "0,3"}
    node.devices(2)
    result = node.judge("npu.device_nodes")
    assert result.status is Status.FAIL
    details = "\n".join(result.details)
    assert (
        "ASCEND_VISIBLE_DEVICES=0-2 names NPU 2, but no /dev/davinci node for it is here" in details
    )
    assert "ASCEND_RT_VISIBLE_DEVICES=0,3 names device 3, but only 2 devices are here" in details
    assert "export ASCEND_RT_VISIBLE_DEVICES=0" in result.remedy


def _root_only_char_device() -> Optional[str]:
    for path in ("/dev/fuse", "/dev/console", "/dev/kmsg", "/dev/mem", "/dev/kvm"):
        try:
            st = os.stat(path)
        except OSError:
            continue
        if stat.S_ISCHR(st.st_mode) and st.st_uid == 0 and not st.st_mode & stat.S_IWOTH:
            return path
    return None


def test_node_not_usable_by_the_user_names_the_group(node: Node, monkeypatch):
    device = _root_only_char_device()
    if device is None:
        pytest.skip("no root-only character device on this machine to link to")
    monkeypatch.setattr(
        devnodes, "current_identity", lambda: devnodes.Identity(12345, frozenset({12345}))
    )
    node.devices(1)
    (node.root / "dev/davinci0").unlink()
    node.link("/dev/davinci0", device)
    result = node.judge("npu.device_nodes")
    assert result.status is Status.FAIL
    assert result.summary.startswith("/dev/davinci0 is not readable and writable by this user (c")
    assert "usermod -aG root $USER" in result.remedy


def test_permission_bits():
    me = devnodes.Identity(1000, frozenset({1000, 1001}))
    crw_rw = stat.S_IFCHR | 0o660
    assert devnodes.permits(crw_rw, 0, 1001, me)  # via a group we are in
    assert not devnodes.permits(crw_rw, 0, 0, me)
    assert devnodes.permits(stat.S_IFCHR | 0o600, 1000, 0, me)  # our own
    assert not devnodes.permits(stat.S_IFCHR | 0o640, 0, 1001, me)  # group may only read
    assert devnodes.permits(stat.S_IFCHR | 0o600, 0, 0, devnodes.Identity(0, frozenset()))


def test_offline_skips_device_nodes(node: Node):
    node.offline = True
    node.devices(1)
    result = node.judge("npu.device_nodes")
    assert (result.status, result.summary) == (
        Status.SKIP,
        "this bundle recorded no device nodes (an older ampenv collected it)",
    )


def test_docker_run_flags():
    assert devnodes.docker_run_flags(2) == [
        "--device=/dev/davinci0",
        "--device=/dev/davinci1",
        "--device=/dev/davinci_manager",
        "--device=/dev/devmm_svm",
        "--device=/dev/hisi_hdc",
        "-v", "/usr/local/Ascend/driver:/usr/local/Ascend/driver:ro",
        "-v", "/usr/local/dcmi:/usr/local/dcmi:ro",
        "-v", "/usr/local/bin/npu-smi:/usr/local/bin/npu-smi:ro",
        "-v", "/etc/ascend_install.info:/etc/ascend_install.info:ro",
    ]  # fmt: skip
    assert devnodes.docker_run_flags([3, 1])[:2] == [
        "--device=/dev/davinci1",
        "--device=/dev/davinci3",
    ]


# -- the whole doctor, with a hung npu-smi -------------------------------------------------------
@pytest.mark.slow
def test_doctor_with_hung_npu_smi_returns_in_time_and_leaves_nothing(node: Node, tmp_path: Path):
    smi = node.smi(hang=True)
    config = tmp_path / "ampenv.toml"
    config.write_text('[checks."npu.devices"]\ntimeout = 2\n')
    env = clean_env(PATH=path_with(node.bin), AMPENV_SYSROOT=str(node.root))
    start = time.monotonic()
    # The quick profile (what hooks run): in the full one, python.stack imports torch in a
    # child for ~4 s on this machine, concurrently, which would measure torch, not npu-smi.
    ran = run_ampenv(
        "doctor", "--profile", "quick", "--config", str(config), "--format", "json",
        env=env, timeout=60,
    )  # fmt: skip
    elapsed = time.monotonic() - start
    assert ran.returncode == 1, ran.stderr
    devices = ran.check("npu.devices")
    assert devices["status"] == "fail"
    assert devices["summary"] == "npu-smi did not answer in 2 s: the driver may be hung"
    assert elapsed < 2 + 2, f"doctor took {elapsed:.1f} s"
    assert leftover(smi) == []
    # npu.driver and npu.device_nodes ran after it, judged on their own, and reused its
    # (timed-out) npu-smi run instead of waiting on a second one.
    assert ran.check("npu.driver")["status"] == "fail"
    assert ran.check("npu.device_nodes")["status"] == "fail"
    assert calls(smi) == ["info"]


def test_fake_tool_refuses_unrecorded_arguments(node: Node):
    from ampenv.probe.proc import run

    smi = node.smi({"info": IDLE_910B2, "info -t health -i 0 -c 0": Reply(exit_code=3)})
    assert run([str(smi), "info"], 10).stdout == IDLE_910B2.read_text()
    assert run([str(smi), "info", "-t", "health", "-i", "0", "-c", "0"], 10).returncode == 3
    other = run([str(smi), "info", "-t", "board", "-i", "0"], 10)
    assert other.returncode == 2
    assert "no recording for arguments: info -t board -i 0" in other.stderr
    assert calls(smi) == ["info", "info -t health -i 0 -c 0", "info -t board -i 0"]
