"""ampenv hook slurm, with a fake ``scontrol`` on PATH that records its argv (one JSON list per
call) and replays a real ``scontrol show node`` capture, and a fake ``npu-smi`` that hangs.

Failing checks come from a drop-in plugin (``AMPENV_CHECKS_PATH``), the way a site adds its own.
"""

from __future__ import annotations

import fcntl
import json
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Optional

import psutil
import pytest
from conftest import FIXTURES, clean_env, run_ampenv
from fakebin import calls, fake_tool, path_with

from ampenv.core.model import Report
from ampenv.integrations import certificate
from ampenv.integrations.slurm import opted_out, parse_show_node
from ampenv.probe import Probe

IDLE = FIXTURES / "slurm" / "show_node_idle_20.11.9.txt"
ADMIN_DRAINED = FIXTURES / "slurm" / "show_node_down_drain_21.08.3.txt"
NODE = "node-7"
FAILURE = "NPU 3 reports Alarm"
PLUGIN = f"""\
from ampenv.checks import Result, check

@check("site.rule", title="A site rule")
def site_rule(ctx):
    return Result.fail({FAILURE!r}, remedy="drain the node and reset NPU 3")
"""
SCONTROL = """\
import json, sys
with open({log!r}, "a") as fh:
    fh.write(json.dumps(sys.argv[1:]) + "\\n")
if sys.argv[1:3] == ["show", "node"]:
    sys.stdout.write(open({show!r}).read())
"""


class Node:
    """A node for the hook: a bin folder (fake scontrol) on PATH, a config, an environment."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.bin = tmp / "bin"
        self.bin.mkdir()
        self.scontrol_log = tmp / "scontrol.argv"
        self.show = tmp / "show-node.txt"
        self.lock = tmp / "hook.lock"
        self.verdict = tmp / "hook.lock.verdict"
        script = self.bin / "scontrol"
        script.write_text(
            f"#!{sys.executable} -IS\n"
            + SCONTROL.format(log=str(self.scontrol_log), show=str(self.show))
        )
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
        self.env = clean_env(PATH=path_with(self.bin), SLURMD_NODENAME=NODE)
        self.shows(IDLE.read_text())
        self.configure()

    def shows(self, text: str) -> None:
        self.show.write_text(text)

    def configure(self, **hook: object) -> None:
        values = {"certificate": False, "lock_file": str(self.lock), **hook}
        lines = ["[hook]"] + [f"{k} = {json.dumps(v)}" for k, v in values.items()]
        (self.tmp / "ampenv.toml").write_text("\n".join(lines) + "\n")
        self.env["AMPENV_CONFIG"] = str(self.tmp / "ampenv.toml")

    def failing(self) -> None:
        plugins = self.tmp / "checks.d"
        plugins.mkdir()
        (plugins / "site.py").write_text(PLUGIN)
        self.env["AMPENV_CHECKS_PATH"] = str(plugins)

    def scontrol_calls(self) -> list[list[str]]:
        if not self.scontrol_log.exists():
            return []
        return [json.loads(line) for line in self.scontrol_log.read_text().splitlines()]

    def hook(self):
        return run_ampenv("hook", "slurm", env=self.env)


@pytest.fixture
def node(tmp_path) -> Node:
    return Node(tmp_path)


def drained_by_ampenv(capture: str, reason: str) -> str:
    """The idle capture as Slurm shows a node ampenv drained (edited here, in the open)."""
    text = capture.replace("State=IDLE ", "State=IDLE+DRAIN ")
    return text.replace(
        "   Comment=(null)", f"   Reason={reason} [root@2026-01-02T03:04:05]\n   Comment=(null)"
    )


def test_a_failure_prints_one_line_and_exits_non_zero_without_draining_by_default(node):
    node.failing()
    ran = node.hook()
    assert ran.returncode == 1
    assert ran.stdout == f"ampenv: site.rule: {FAILURE}\n"
    assert node.scontrol_calls() == []  # [hook] drain is off unless the config asks


def test_drain_sets_the_reason_as_one_argument(node):
    node.failing()
    node.configure(drain=True)
    ran = node.hook()
    assert ran.returncode == 1
    assert node.scontrol_calls() == [
        ["show", "node", NODE],
        ["update", f"NodeName={NODE}", "State=DRAIN", f"Reason=ampenv: site.rule: {FAILURE}"],
    ]
    assert f"ampenv: drained {NODE}" in ran.stderr


def test_an_admins_reason_is_left_untouched(node):
    node.failing()
    node.configure(drain=True)
    node.shows(ADMIN_DRAINED.read_text())
    ran = node.hook()
    assert ran.returncode == 1
    assert node.scontrol_calls() == [["show", "node", NODE]]  # read, never updated
    assert "its reason is an admin's: Not responding [slurm@2021-10-19T12:56:19]" in ran.stderr


def test_a_node_ampenv_drained_is_resumed_once_healthy(node):
    node.configure(drain=True)
    node.shows(drained_by_ampenv(IDLE.read_text(), f"ampenv: site.rule: {FAILURE}"))
    ran = node.hook()
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert node.scontrol_calls()[-1] == ["update", f"NodeName={NODE}", "State=RESUME"]


def test_a_healthy_node_drained_by_an_admin_stays_drained(node):
    node.configure(drain=True)
    node.shows(ADMIN_DRAINED.read_text())
    ran = node.hook()
    assert ran.returncode == 0
    assert node.scontrol_calls() == [["show", "node", NODE]]


def test_a_job_opts_out_with_slurm_job_extra(node):
    node.failing()
    node.configure(drain=True)
    node.env["SLURM_JOB_EXTRA"] = "team=vision,ampenv=off"
    ran = node.hook()
    assert ran.returncode == 0
    assert ran.stdout == ""
    assert node.scontrol_calls() == []
    assert "SLURM_JOB_EXTRA has ampenv=off" in ran.stderr


def test_a_hook_that_cannot_get_the_lock_in_time_steps_aside(node):
    node.failing()
    node.configure(drain=True, timeout=2)
    with open(node.lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("4242")
        held.flush()
        ran = node.hook()
    assert ran.returncode == 0  # a non-zero Prolog exit would drain the node for nothing
    assert f"another hook holds {node.lock} (pid 4242) and is still judging" in ran.stderr
    assert node.scontrol_calls() == []


def _released_after_start(node: Node, hooks: int, verdict: Optional[dict] = None) -> list:
    """Start hooks while the lock is held (as by a hook judging), then release it."""
    with open(node.lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        held.write("4242")
        held.flush()
        if verdict is not None:
            node.verdict.write_text(json.dumps(verdict))
        started = [
            subprocess.Popen([sys.executable, "-m", "ampenv", "hook", "slurm"], env=node.env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(hooks)
        ]  # fmt: skip
        time.sleep(1.0)  # every hook is waiting on the lock
    return [(p.wait(timeout=30), *p.communicate()) for p in started]


def test_hooks_that_start_together_share_one_verdict(node):
    node.failing()
    node.configure(drain=True)
    ran = _released_after_start(node, hooks=2)
    line = f"ampenv: site.rule: {FAILURE}\n"
    assert [(code, out) for code, out, _ in ran] == [(1, line), (1, line)], ran
    shared = [err for _, _, err in ran if "the verdict of pid" in err]
    assert len(shared) == 1, ran  # one judged, the other gave its verdict
    updates = [c for c in node.scontrol_calls() if c[0] == "update"]
    assert len(updates) == 1 and updates[0][2] == "State=DRAIN", node.scontrol_calls()


@pytest.mark.parametrize("planted", ["stale", "writable by others"])
def test_a_verdict_not_reached_for_this_hook_is_not_reused(node, planted):
    """A verdict from before the hook asked, or one anybody could have written, is ignored:
    the hook judges for itself (this node is healthy)."""
    at = time.time() - 60 if planted == "stale" else time.time() + 3600
    if planted == "writable by others":
        node.verdict.write_text("")
        node.verdict.chmod(0o666)
    ran = _released_after_start(node, hooks=1, verdict={"code": 1, "line": "x", "at": at})
    assert ran == [(0, "", ran[0][2])] and "the verdict of" not in ran[0][2], ran


def _npu_smi_processes(fake: Path) -> list[psutil.Process]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmdline: Optional[list[str]] = p.info["cmdline"]
        if cmdline and any(str(fake) == part for part in cmdline):
            found.append(p)
    return found


def test_a_hung_npu_smi_cannot_make_the_hook_overrun_its_time(node):
    budget = 4.0
    fake = fake_tool(node.bin, "npu-smi", hang=True)
    # A site check with a generous timeout of its own: only the hook's budget can stop it.
    plugins = node.tmp / "checks.d"
    plugins.mkdir()
    (plugins / "slow.py").write_text(
        textwrap.dedent("""\
            from ampenv.checks import Result, check

            @check("site.smi", title="npu-smi answers", timeout=60)
            def site_smi(ctx):
                r = ctx.probe.run(["npu-smi", "info"], timeout=ctx.timeout_left(60))
                return Result.ok("answered") if r.ok else Result.error(r.describe())
        """)
    )
    node.env["AMPENV_CHECKS_PATH"] = str(plugins)
    node.configure(drain=True, timeout=budget)
    start = time.monotonic()
    ran = node.hook()
    took = time.monotonic() - start
    assert took < budget, f"the hook took {took:.1f} s of {budget} s"
    assert ran.returncode != 0
    assert ran.stdout.startswith("ampenv: ") and ran.stdout.count("\n") == 1
    assert calls(fake), "npu-smi was never asked, so nothing hung"
    assert node.scontrol_calls()[-1][2] == "State=DRAIN"
    time.sleep(0.2)
    assert _npu_smi_processes(fake) == [], "a hung npu-smi outlived the hook"


def _certificate(node: Node) -> Path:
    """A certificate issued for this very node by the certificate module itself."""
    report = Report("certify", "cpu", "2026-01-02T03:04:05Z", 1.0, [])
    path = node.tmp / "certificate.json"
    certificate.write(str(path), certificate.issue(report, Probe(env=node.env), 24.0))
    node.env["AMPENV_CERTIFICATE"] = str(path)
    return path


def test_the_certificate_is_verified_when_the_config_asks(node):
    node.configure(certificate=True)
    node.env["AMPENV_CERTIFICATE"] = str(node.tmp / "none.json")
    missing = node.hook()
    assert missing.returncode == 1
    assert missing.stdout.startswith("ampenv: certificate: missing: no certificate at ")

    path = _certificate(node)
    assert node.hook().returncode == 0

    cert = json.loads(path.read_text())
    cert["expires_at"] = "2099-01-01T00:00:00Z"  # an edit by hand
    path.write_text(json.dumps(cert))
    edited = node.hook()
    assert (edited.returncode, edited.stdout) == (
        1, f"ampenv: certificate: edited: {path} does not match its digest\n"
    )  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "out"),
    [("ampenv=off", True), ("x=1, AMPENV=OFF", True), ("ampenv=on", False), ("", False),
     ("notampenv=off", False)],
)  # fmt: skip
def test_opt_out_parsing(extra, out):
    assert opted_out(extra) is out


def test_show_node_parsing_of_the_real_captures():
    down = parse_show_node(ADMIN_DRAINED.read_text())
    assert (down.state, down.reason, down.drained, down.ours) == (
        "DOWN+DRAIN", "Not responding [slurm@2021-10-19T12:56:19]", True, False
    )  # fmt: skip
    idle = parse_show_node(IDLE.read_text())
    assert (idle.state, idle.reason, idle.drained) == ("IDLE", None, False)
    assert parse_show_node("slurm_load_node error: Invalid node name specified") is None


def test_a_lock_file_that_cannot_hold_a_lock_is_a_config_error(node):
    node.configure(lock_file=str(node.tmp))  # a folder
    ran = node.hook()
    assert ran.returncode == 2 and f"[hook] lock_file {node.tmp}: Is a directory" in ran.stderr
    assert "Traceback" not in ran.stderr and node.scontrol_calls() == []
