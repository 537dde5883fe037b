"""cann.toolkit on planted nodes: real ascend_toolkit_install.info captures, and environments
built by evaluating the export lines of the reconstructed set_env.sh fixture (never by hand).

The captures are aarch64 toolkits. Where a test needs an aarch64 host it says so through the
probe's own door for that fact (``probe.fact("machine", ...)``), as a bundle from such a host
would; the architecture-mismatch test uses this host's real architecture.
"""

from __future__ import annotations

import platform
import re
from pathlib import Path
from typing import Optional

import pytest
from conftest import FIXTURES, clean_env, run_ampenv
from judge import judge, load_checks

from ampenv.checks import Status
from ampenv.probe import Probe, cann

VERSIONS = FIXTURES / "version-files"
INFO_800 = VERSIONS / "ascend_toolkit_install.info_8.0.0_aarch64_vllm-ascend-362.txt"
INFO_81 = VERSIONS / "ascend_toolkit_install.info_8.1.RC1_aarch64_vllm-ascend-1047.txt"
INFO_850 = VERSIONS / "ascend_toolkit_install.info_8.5.0_aarch64_doc.txt"
SET_ENV = VERSIONS / "set_env.sh_toolkit_exports_reconstructed.txt"
LEGACY = "/usr/local/Ascend/ascend-toolkit"
CANN_850 = "/usr/local/Ascend/cann-8.5.0"
CHECK = load_checks("cann.py")["cann.toolkit"]


def plant_toolkit(root: Path, home: str, info: Path, arch: str = "aarch64") -> None:
    """A toolkit home with its install.info, and set_env.sh where its layout keeps it."""
    target = root / home.lstrip("/") / f"{arch}-linux" / "ascend_toolkit_install.info"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(info.read_text())
    set_env = root / (LEGACY if home.startswith(LEGACY) else home).lstrip("/") / "set_env.sh"
    set_env.write_text(SET_ENV.read_text())


def plant_legacy(root: Path, version: str = "8.0.0", info: Path = INFO_800) -> None:
    """CANN <= 8.3: ascend-toolkit/<version>, with latest -> <version> (a relative link)."""
    plant_toolkit(root, f"{LEGACY}/{version}", info)
    (root / LEGACY.lstrip("/") / "latest").symlink_to(version)


def sourced(home: str, arch: str = "aarch64", base: Optional[dict] = None) -> dict[str, str]:
    """The environment after `source set_env.sh`: the fixture's export lines evaluated, with
    ASCEND_TOOLKIT_HOME (its first export) set to ``home``."""
    env = dict(base or {"PATH": "/usr/bin:/bin"})
    for line in SET_ENV.read_text().splitlines():
        m = re.fullmatch(r"export (\w+)=(.*)", line.strip())
        if not m:
            continue
        name, value = m.groups()
        if name == "ASCEND_TOOLKIT_HOME":
            value = home
        value = value.replace("$(arch)", arch)
        value = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda v: env.get(v[1] or v[2], ""), value)
        env[name] = value
    return env


def probe_for(root: Path, env: dict[str, str], machine: Optional[str] = "aarch64") -> Probe:
    probe = Probe(sysroot=str(root), env=clean_env(**env))
    if machine:
        probe.fact("machine", lambda: machine)  # the host these captures come from
    return probe


@pytest.mark.parametrize(
    ("fixture", "version", "inner", "compatible", "path"),
    [
        (INFO_800, "8.0.0", "V100R001C20SPC001B251", 5, f"{LEGACY}/8.0.0/aarch64-linux"),
        (INFO_81, "8.1.RC1", "V100R001C21SPC001B238", 5, f"{LEGACY}/8.1.RC1/aarch64-linux"),
        (INFO_850, "8.5.0", "V100R001C25SPC001B212", 6, f"{CANN_850}/aarch64-linux"),
    ],
)  # fmt: skip
def test_install_info_captures_parse_to_their_values(fixture, version, inner, compatible, path):
    info = cann.parse_key_values(fixture.read_text())
    assert (info["version"], info["innerversion"], info["arch"]) == (version, inner, "aarch64")
    assert info["path"] == path
    assert len(cann.Toolkit("/x", "test", info=info).compatible) == compatible
    assert cann.Toolkit("/x", "test", info=info).compatible[0] == "V100R001C15"


def test_the_variables_checked_are_those_the_set_env_fixture_exports():
    exported = set(re.findall(r"^export (\w+)=", SET_ENV.read_text(), re.M))
    assert exported == set(cann.SET_ENV_VARS) | set(cann.SET_ENV_PATHS)


def test_sourced_legacy_toolkit_passes(sysroot: Path):
    plant_legacy(sysroot)
    result = judge(CHECK, probe_for(sysroot, sourced(f"{LEGACY}/latest")))
    assert result.status is Status.PASS, result.details
    assert result.summary == f"CANN 8.0.0 (aarch64) at {LEGACY}/latest"
    assert result.facts["real_home"] == f"{LEGACY}/8.0.0"
    assert result.facts["found_by"] == "ASCEND_HOME_PATH"
    assert result.facts["innerversion"] == "V100R001C20SPC001B251"


def test_sourced_through_the_versioned_path_is_the_same_install_as_latest(sysroot: Path):
    plant_legacy(sysroot)
    env = sourced(f"{LEGACY}/8.0.0")
    env["ASCEND_HOME_PATH"] = f"{LEGACY}/latest"  # found there; everything else says 8.0.0
    result = judge(CHECK, probe_for(sysroot, env))
    assert result.status is Status.PASS, result.details


def test_not_sourced_fails_with_the_exact_source_line(sysroot: Path):
    plant_legacy(sysroot)
    result = judge(CHECK, probe_for(sysroot, {}))
    assert result.status is Status.FAIL
    assert result.summary.startswith("set_env.sh has not been sourced: ASCEND_TOOLKIT_HOME")
    assert result.remedy == f"source {LEGACY}/set_env.sh"
    assert result.facts["found_by"] == f"{LEGACY}/latest"


def test_two_installs_mixed_in_one_environment_fail(sysroot: Path):
    plant_legacy(sysroot)
    plant_toolkit(sysroot, f"{LEGACY}/8.1.RC1", INFO_81)
    env = sourced(f"{LEGACY}/latest")
    env["ASCEND_OPP_PATH"] = f"{LEGACY}/8.1.RC1/opp"  # a second set_env.sh, half applied
    result = judge(CHECK, probe_for(sysroot, env))
    assert result.status is Status.FAIL
    assert "mixes CANN installs: ASCEND_OPP_PATH=" in result.summary
    assert result.remedy == f"start a fresh shell and run only `source {LEGACY}/set_env.sh`"


def test_library_path_of_another_install_counts_as_missing(sysroot: Path):
    plant_legacy(sysroot)
    plant_toolkit(sysroot, f"{LEGACY}/8.1.RC1", INFO_81)
    env = sourced(f"{LEGACY}/latest")
    env["LD_LIBRARY_PATH"] = sourced(f"{LEGACY}/8.1.RC1")["LD_LIBRARY_PATH"]
    result = judge(CHECK, probe_for(sysroot, env))
    assert result.status is Status.FAIL
    assert f"LD_LIBRARY_PATH entry {LEGACY}/latest/lib64" in result.summary


def test_stale_ascend_home_path_is_named(sysroot: Path):
    plant_legacy(sysroot)
    env = sourced(f"{LEGACY}/latest")
    env["ASCEND_HOME_PATH"] = "/opt/gone/cann"
    result = judge(CHECK, probe_for(sysroot, env))
    assert result.status is Status.FAIL
    assert result.summary == (
        "the environment mixes CANN installs: ASCEND_HOME_PATH=/opt/gone/cann, but the toolkit "
        f"in use is {LEGACY}/latest"
    )
    assert result.facts["looked"][0] == "ASCEND_HOME_PATH=/opt/gone/cann: no such folder"
    assert result.facts["found_by"] == "ASCEND_TOOLKIT_HOME"


def test_both_home_variables_stale_fall_back_to_latest_and_fail(sysroot: Path):
    plant_legacy(sysroot)
    env = sourced(f"{LEGACY}/latest")
    env.update(ASCEND_HOME_PATH="/opt/gone/a", ASCEND_TOOLKIT_HOME="/opt/gone/b")
    result = judge(CHECK, probe_for(sysroot, env))
    assert result.status is Status.FAIL
    assert result.facts["found_by"] == f"{LEGACY}/latest"
    stale = "ASCEND_HOME_PATH=/opt/gone/a: no such folder"
    assert f"{stale}; the toolkit found instead is {LEGACY}/latest" in result.details[0]


def test_cann_85_layout_newest_first_and_its_own_set_env(sysroot: Path):
    plant_toolkit(sysroot, CANN_850, INFO_850)
    plant_toolkit(sysroot, "/usr/local/Ascend/cann-8.1.RC1", INFO_81)
    result = judge(CHECK, probe_for(sysroot, {}))
    assert result.facts["home"] == CANN_850
    assert result.facts["version"] == "8.5.0"
    assert result.remedy == "source /usr/local/Ascend/cann-8.5.0/set_env.sh"
    passed = judge(CHECK, probe_for(sysroot, sourced(CANN_850)))
    assert passed.status is Status.PASS, passed.details


def test_toolkit_for_another_architecture_fails_naming_both(sysroot: Path):
    host = cann.machine(Probe())
    other = "x86_64" if host == "aarch64" else "aarch64"
    plant_toolkit(sysroot, f"{LEGACY}/8.0.0", INFO_800, arch=other)
    (sysroot / LEGACY.lstrip("/") / "latest").symlink_to("8.0.0")
    info = sysroot / LEGACY.lstrip("/") / "8.0.0" / f"{other}-linux" / "ascend_toolkit_install.info"
    info.write_text(info.read_text().replace("aarch64", other))
    result = judge(CHECK, probe_for(sysroot, sourced(f"{LEGACY}/latest", arch=other), None))
    assert result.status is Status.FAIL
    assert (
        result.summary
        == f"the toolkit at {LEGACY}/latest is built for {other}; this host is {host}"
    )
    assert (
        result.remedy
        == f"install the {host} toolkit: Ascend-cann-toolkit_8.0.0_linux-{host}.run --install"
    )
    assert host == platform.machine().lower().replace("arm64", "aarch64")


def test_no_toolkit_skips_on_cpu_and_fails_on_an_npu_node(sysroot: Path):
    result = judge(CHECK, probe_for(sysroot, {}))
    assert result.status is Status.SKIP
    assert result.summary == "no Ascend NPU on this node (backend cpu) and no CANN toolkit"
    npu = judge(CHECK, probe_for(sysroot, {}), device="npu")
    assert npu.status is Status.FAIL
    assert npu.summary == "no CANN toolkit found"
    assert f"{LEGACY}/latest: no such folder" in npu.details


def test_cli_reports_the_toolkit_in_json(sysroot: Path):
    plant_legacy(sysroot)
    ran = run_ampenv(
        "doctor", "--only", "cann.toolkit", "--profile", "quick", "--format", "json",
        env=clean_env(AMPENV_SYSROOT=str(sysroot)),
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr
    check = ran.check("cann.toolkit")
    assert check["status"] == "fail"
    assert check["facts"]["version"] == "8.0.0"
    assert f"source {LEGACY}/set_env.sh" in check["remedy"]
