"""Issue 18, item 19: a bundle records the device nodes (type, mode, owner, numbers), so a
container started without --device is diagnosed offline as live. Reproduced first: offline
`npu.device_nodes` said skip where the live run said fail."""

from __future__ import annotations

import json
import tarfile

from conftest import FIXTURES, clean_env, run_ampenv
from fakebin import fake_tool, path_with

IDLE_910B2 = FIXTURES / "npu-smi" / "910b2_8dev_idle_23.0.7.txt"


def _container_without_devices(tmp_path):
    root = tmp_path / "root"
    (root / "dev").mkdir(parents=True)
    (root / ".dockerenv").write_text("")
    (root / "dev" / "davinci_manager").symlink_to("/dev/null")
    fake_tool(tmp_path / "bin", "npu-smi", {"info": IDLE_910B2})
    return clean_env(PATH=path_with(tmp_path / "bin"), AMPENV_SYSROOT=str(root))


def _device_nodes(ran) -> dict:
    return ran.check("npu.device_nodes")


def test_a_container_without_devices_fails_offline_as_live(tmp_path):
    env = _container_without_devices(tmp_path)
    live = run_ampenv("doctor", "-p", "quick", "--only", "npu", "-f", "json", env=env)
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    offline = run_ampenv("doctor", "--bundle", str(bundle), "-p", "quick", "--only", "npu",
                         "-f", "json", env=clean_env())  # fmt: skip
    want, got = _device_nodes(live), _device_nodes(offline)
    assert want["status"] == "fail", want
    assert (got["status"], got["summary"], got["details"]) == (
        want["status"], want["summary"], want["details"]
    )
    assert "--device=/dev/davinci0" in got["remedy"]


def test_the_bundle_records_type_mode_owner_and_numbers(tmp_path):
    env = _container_without_devices(tmp_path)
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    with tarfile.open(bundle) as tar:
        facts = json.loads(tar.extractfile("facts.json").read())
    nodes = facts["nodes"]
    assert nodes["/dev/davinci0"] is None  # missing, and recorded as missing
    manager = nodes["/dev/davinci_manager"]
    assert manager["type"] == "char" and (manager["major"], manager["minor"]) == (1, 3)
    assert {"mode", "uid", "gid", "group"} <= set(manager)
    assert isinstance(facts["identity"]["uid"], int)
