"""dist.allreduce: the rank pattern and busbw, joining torchrun/srun, visible devices, the verdict
on recorded worker results, and (slow) real gloo runs: 2 and 4 ranks, a rank that dies, one that
hangs, a peer that never comes, and two torchrun "nodes" joined over loopback."""

from __future__ import annotations

import copy
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
from conftest import FIXTURES, clean_env, run_ampenv
from hypothesis import given, settings
from hypothesis import strategies as st

from ampenv.active.collective import BACKENDS, bus_bandwidth, launch
from ampenv.checks import CheckContext, Context, Status
from ampenv.core import config as config_mod
from ampenv.core.registry import builtin_dir
from ampenv.probe import Probe
from ampenv.probe.distenv import job_rank, visible_devices

DIST = FIXTURES / "dist"
RECORDED = json.loads((DIST / "gloo_2rank_cpu_payloads.json").read_text())


def _load_dist_checks():
    spec = importlib.util.spec_from_file_location(
        "dist_checks_under_test", builtin_dir() / "dist.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECKS = _load_dist_checks()


# -- the arithmetic ----------------------------------------------------------------------------
def test_busbw_is_algbw_times_the_nccl_tests_factor():
    assert bus_bandwidth(10.0, 2) == pytest.approx(10.0)  # 2(n-1)/n = 1
    assert bus_bandwidth(10.0, 4) == pytest.approx(15.0)
    assert bus_bandwidth(10.0, 8) == pytest.approx(17.5)


@settings(deadline=None)  # the first example imports torch
@given(world=st.integers(1, 70), elements=st.integers(1, 40))
def test_expected_sum_is_the_sum_of_every_ranks_pattern(world, elements):
    from ampenv.active.collective.worker import PERIOD, expected_sum

    brute = [sum((i + r) % PERIOD + 1 for r in range(world)) for i in range(elements)]
    assert expected_sum(elements, world).tolist() == brute


@pytest.mark.parametrize(("dtype", "world"), [("bfloat16", 64), ("float16", 512)])
def test_pattern_sums_stay_exact_in_low_precision_up_to_the_stated_world(dtype, world):
    import torch

    from ampenv.active.collective.worker import DTYPES, PERIOD, expected_sum

    index = torch.arange(1027)
    total = torch.zeros(1027, dtype=DTYPES[dtype])
    for r in range(world):  # a ring adds one rank at a time, rounding to the dtype each step
        total += ((index + r) % PERIOD + 1).to(DTYPES[dtype])
    assert PERIOD * world <= 2 / torch.finfo(DTYPES[dtype]).eps
    assert torch.equal(total.double(), expected_sum(1027, world))


@pytest.fixture
def one_rank_group(tmp_path):
    """A real gloo group of one rank, in this process."""
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{tmp_path}/store", rank=0, world_size=1)
    yield dist
    dist.destroy_process_group()


@pytest.mark.parametrize("bad", [7.0, float("nan")])
def test_a_corrupted_sum_is_counted_wrong_nan_included(one_rank_group, monkeypatch, bad):
    import torch

    from ampenv.active.collective import worker

    row = worker.check_allreduce("float32", 1027, torch.device("cpu"), 0, 1, worker.Stages())
    assert row["wrong"] == 0
    real = one_rank_group.all_reduce

    def corrupting(tensor, *args, **kwargs):  # a link that flips one value on purpose
        real(tensor, *args, **kwargs)
        tensor[5] = bad

    monkeypatch.setattr(worker.dist, "all_reduce", corrupting)
    row = worker.check_allreduce("bfloat16", 1027, torch.device("cpu"), 0, 1, worker.Stages())
    assert row["wrong"] == 1 and row["first_wrong"]["index"] == 5


# -- where this process stands -----------------------------------------------------------------
def test_torchrun_variables_make_this_process_a_rank():
    env = {"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "MASTER_ADDR": "10.0.0.1"}
    found = job_rank({**env, "MASTER_PORT": "29400"})
    assert (found.launcher, found.rank, found.world_size, found.local_rank) == ("torchrun", 3, 8, 1)
    assert found.env["MASTER_ADDR"] == "10.0.0.1" and found.env["MASTER_PORT"] == "29400"
    # torchrun's agent serves the store at its MASTER_ADDR: config does not move it.
    assert job_rank({**env, "MASTER_PORT": "29400"}, "elsewhere", 1).master_addr == "10.0.0.1"


def test_srun_variables_give_rank_and_the_launch_node_as_master():
    env = {
        "SLURM_PROCID": "5",
        "SLURM_NTASKS": "16",
        "SLURM_LOCALID": "5",
        "SLURM_LAUNCH_NODE_IPADDR": "10.0.0.7",
        "SLURM_JOB_ID": "123456",
    }
    found = job_rank(env)
    assert (found.launcher, found.rank, found.world_size, found.local_rank) == ("srun", 5, 16, 5)
    assert found.master_addr == "10.0.0.7"
    assert found.master_port == 20000 + 123456 % 20000  # each job its own port
    assert job_rank(env, master_addr="node001", master_port=29555).env["MASTER_ADDR"] == "node001"
    with pytest.raises(ValueError, match="master_addr"):
        job_rank({k: v for k, v in env.items() if k != "SLURM_LAUNCH_NODE_IPADDR"})


def test_no_launcher_or_a_world_of_one_means_a_local_run():
    assert job_rank({"PATH": "/usr/bin"}) is None
    assert job_rank({"RANK": "0", "WORLD_SIZE": "1", "MASTER_ADDR": "localhost"}) is None


@pytest.mark.parametrize(
    "env",
    [
        {"RANK": "x", "WORLD_SIZE": "2", "MASTER_ADDR": "h"},
        {"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h"},
        {"SLURM_PROCID": "0", "SLURM_NTASKS": "-4", "SLURM_LOCALID": "0", "MASTER_ADDR": "h"},
    ],
)
def test_unreadable_launcher_variables_are_an_error_not_a_guess(env):
    with pytest.raises(ValueError):
        job_rank(env)


@pytest.mark.parametrize(
    ("kind", "env", "count"),
    [
        ("npu", {}, 4),
        ("npu", {"ASCEND_RT_VISIBLE_DEVICES": "0,1"}, 2),
        ("npu", {"ASCEND_RT_VISIBLE_DEVICES": "1, 2,3"}, 1),  # stops at the space
        ("npu", {"ASCEND_RT_VISIBLE_DEVICES": "1,3,8"}, 2),  # 8 is no device here
        ("npu", {"ASCEND_RT_VISIBLE_DEVICES": "2,1"}, 1),  # ascending only
        ("cuda", {}, 2),
        ("cuda", {"CUDA_VISIBLE_DEVICES": "GPU-8f3e,1"}, 2),
        ("cuda", {"CUDA_VISIBLE_DEVICES": "-1"}, 0),
    ],
)
def test_visible_devices_read_as_the_runtimes_read_them(sysroot, kind, env, count):
    for name in ["davinci0", "davinci1", "davinci2", "davinci3", "davinci_manager"]:
        (sysroot / "dev").mkdir(exist_ok=True)
        (sysroot / "dev" / name).touch()
    for name in ["nvidia0", "nvidia1", "nvidiactl"]:
        (sysroot / "dev" / name).touch()
    assert visible_devices(Probe(str(sysroot), env), kind)[0] == count


# -- why a failure looks like a connect problem ------------------------------------------------
def _plan(backend: str = "gloo", world: int = 2) -> launch.Plan:
    kind = {backend: device for device, backend in BACKENDS.items()}[backend]
    return launch.plan(kind, backend, world, [])


@pytest.mark.parametrize("line", (DIST / "hccl_connect_timeout_lines.txt").read_text().splitlines())
def test_an_hccl_connect_timeout_points_to_hccl_connect_timeout_and_the_network(line):
    hint = launch.network_hint(_plan("hccl"), "allreduce float32 x1", line, local_rank=3)
    assert "HCCL_CONNECT_TIMEOUT" in hint and "env.hccl" in hint and "hccn_tool -i 3" in hint
    assert launch.network_hint(_plan("gloo"), "allreduce float32 x1", line, 3) is None


def test_an_hccl_failure_that_is_no_connect_timeout_gets_no_network_hint():
    other = "RuntimeError: allreduce: result differs from the expected sum at element 12"
    assert launch.network_hint(_plan("hccl"), "allreduce float32 x1", other, 3) is None


def test_an_hccl_hang_while_connecting_points_to_hccl_connect_timeout_too():
    hint = launch.network_hint(_plan("hccl"), "connect", "", local_rank=0)
    assert "HCCL_CONNECT_TIMEOUT" in hint and 'checks."dist.allreduce"] timeout' in hint
    assert "NCCL_SOCKET_IFNAME" in launch.network_hint(_plan("nccl"), "connect", "", 0)


def test_a_rank_stuck_at_the_rendezvous_points_to_the_address_and_the_other_ranks():
    plan = _plan("gloo", world=4)
    hint = launch.network_hint(plan, "rendezvous", "", 0)
    assert f"127.0.0.1:{plan.master_port}" in hint and "all 4 ranks" in hint
    assert launch.network_hint(plan, "allreduce float32 x1", "", 0) is None


# -- the verdict, on what real workers reported ------------------------------------------------
def _recorded_launch(payloads=RECORDED) -> launch.Launch:
    return launch.Launch(_plan(), runs=[], failures=[], payloads=payloads, elapsed_s=1.0)


def _slowest_peak(payloads) -> float:
    sizes = {row["bytes"] for p in payloads for row in p["bandwidth"]}
    per_size = [
        min(row["busbw_gbps"] for p in payloads for row in p["bandwidth"] if row["bytes"] == s)
        for s in sizes
    ]
    return max(per_size)


def test_recorded_gloo_run_passes_with_bandwidth_per_size_and_peak():
    result = CHECKS.verdict(_recorded_launch(), {})
    assert result.status is Status.PASS, result
    assert "over 2 rank(s) (cpu)" in result.summary
    assert "float32, float16, bfloat16" in result.summary
    assert result.metrics["busbw_gbps_peak"] == _slowest_peak(RECORDED)
    assert {"busbw_gbps_65536", "algbw_gbps_4194304"} <= set(result.metrics)
    assert [r["rank"] for r in result.facts["ranks"]] == [0, 1]
    assert any("no busbw threshold for cpu" in d for d in result.details)


def test_one_rank_checks_the_backend_but_judges_no_link():
    one = json.loads((DIST / "gloo_1rank_cpu_payloads.json").read_text())
    result = CHECKS.verdict(launch.Launch(_plan(world=1), [], [], one, 1.0), {"*": 1e9})
    assert result.status is Status.PASS  # no threshold applies: no link was crossed
    assert not [m for m in result.metrics if "bw_gbps" in m]  # a no-op timed is no bandwidth
    assert "bandwidth not measured on one rank" in result.summary
    assert any("under torchrun or srun to measure bandwidth" in d for d in result.details)
    assert all(" us" in d and "GB/s" not in d for d in result.details if d.endswith(" us"))


def test_busbw_below_the_chips_threshold_fails_and_says_how_to_lower_it():
    peak = _slowest_peak(RECORDED)
    failed = CHECKS.verdict(_recorded_launch(), {"CPU": peak * 2})  # chip names ignore case
    assert failed.status is Status.FAIL and "below" in failed.summary
    assert "min_busbw_gbps" in failed.remedy
    assert CHECKS.verdict(_recorded_launch(), {"*": peak / 2}).status is Status.PASS
    other_chip = CHECKS.verdict(_recorded_launch(), {"Ascend910B3": peak * 2})
    assert other_chip.status is Status.PASS


def test_a_wrong_sum_on_one_rank_fails_naming_that_rank():
    payloads = copy.deepcopy(RECORDED)
    gathered = payloads[0]["ranks"][1]["correctness"][-1]
    gathered.update(wrong=3, first_wrong={"index": 17, "got": 9.0, "want": 6.0})
    result = CHECKS.verdict(_recorded_launch(payloads), {})
    assert result.status is Status.FAIL
    assert "rank 1 (cpu on" in result.summary and "3 wrong values" in result.summary


# -- settings and preconditions, in-process ------------------------------------------------------
def _run_check(probe: Probe, device: str = "cpu", **settings):
    spec = CHECKS.allreduce
    config = config_mod.parse("", "<defaults>")
    ctx = Context(config=config, probe=probe, profile="certify", device=device)
    merged = {**config.settings_for(spec), **settings}
    return spec(CheckContext(ctx, spec, merged, time.monotonic() + merged["timeout"]))


def test_skips_saying_so_when_torch_is_not_installed(sysroot, monkeypatch):
    probe = Probe(str(sysroot), clean_env())
    monkeypatch.setattr(probe, "distribution_version", {"psutil": "5.9"}.get)
    result = _run_check(probe)
    assert result.status is Status.SKIP and "torch is not installed" in result.summary


def test_skips_when_every_npu_is_hidden(sysroot, monkeypatch):
    (sysroot / "dev").mkdir()
    (sysroot / "dev" / "davinci0").touch()
    probe = Probe(str(sysroot), clean_env(ASCEND_RT_VISIBLE_DEVICES=""))
    monkeypatch.setattr(probe, "distribution_version", {"torch": "2.1", "torch_npu": "2.1"}.get)
    result = _run_check(probe, device="npu")
    assert result.status is Status.SKIP
    assert result.summary == "no visible npu device (ASCEND_RT_VISIBLE_DEVICES=)"


def test_skips_saying_so_when_torch_npu_is_missing_on_an_npu_node(sysroot, monkeypatch):
    probe = Probe(str(sysroot), clean_env())
    monkeypatch.setattr(probe, "distribution_version", {"torch": "2.1"}.get)
    result = _run_check(probe, device="npu")
    assert result.status is Status.SKIP and "torch_npu is not installed" in result.summary


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"processes": 1}, "processes must be at least 2"),
        ({"dtypes": ["float8"]}, "unknown float8"),
        ({"dtypes": ["auto", "float32"]}, "unknown auto"),  # auto stands alone
        ({"iters": 0}, "iters must be at least 1"),
        ({"sizes": [0]}, "positive byte counts"),
        ({"min_busbw_gbps": {"cpu": "fast"}}, "must be a number"),
    ],
)
def test_settings_that_cannot_run_are_an_error_naming_the_key(sysroot, settings, says):
    result = _run_check(Probe(str(sysroot), clean_env()), **settings)
    assert result.status is Status.ERROR and says in result.summary


# -- real gloo runs (slow: every rank imports torch) ---------------------------------------------
SMALL = 'sizes = [65536, 1048576]\niters = 5\ndtypes = ["float32", "bfloat16"]\n'


def _config(tmp_path: Path, extra: str) -> str:
    path = tmp_path / "ampenv.toml"
    path.write_text(f'[checks."dist.allreduce"]\n{SMALL}{extra}')
    return str(path)


def _doctor(config: str, env: dict[str, str], timeout: float = 120) -> dict:
    ran = run_ampenv(
        "doctor", "--only", "dist.allreduce", "--format", "json", "-c", config, env=env,
        timeout=timeout,
    )  # fmt: skip
    assert ran.returncode in (0, 1), ran.stderr
    return ran.check("dist.allreduce")


def _leftovers(run_id: str) -> list[str]:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        cmdline = " ".join(p.info["cmdline"] or [])
        if "ampenv.active.collective.worker" in cmdline and run_id in cmdline:
            found.append(cmdline)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("processes", [2, 4])
def test_gloo_ranks_on_cpu_sum_correctly_and_report_bandwidth(tmp_path, processes):
    check = _doctor(_config(tmp_path, f"processes = {processes}\n"), clean_env())
    assert check["status"] == "pass", check
    facts, metrics = check["facts"], check["metrics"]
    assert facts["backend"] == "gloo" and facts["mode"] == "local"
    assert facts["world_size"] == processes
    assert [(r["rank"], r["device"]) for r in facts["ranks"]] == [
        (r, "cpu") for r in range(processes)
    ]
    assert facts["dtypes"] == ["float32", "bfloat16"] and facts["sizes"] == [65536, 1048576]
    for size in facts["sizes"]:
        algbw, busbw = metrics[f"algbw_gbps_{size}"], metrics[f"busbw_gbps_{size}"]
        assert algbw > 0
        assert busbw == pytest.approx(bus_bandwidth(algbw, processes), rel=1e-3, abs=2e-4)
    assert metrics["busbw_gbps_peak"] == max(metrics[f"busbw_gbps_{s}"] for s in facts["sizes"])


@pytest.mark.slow
def test_a_rank_that_dies_is_named_at_once_and_nothing_is_left(tmp_path):
    check = _doctor(_config(tmp_path, "timeout = 90\n"), clean_env(AMPENV_DIST_FAULT="die:1"))
    assert check["status"] == "fail"
    assert check["summary"].startswith("rank 1 (cpu, pid ")
    # named as dead, not as "made no progress": the launcher did not wait for the timeout
    assert "died at 'joined': killed by SIGKILL" in check["summary"]
    assert "dmesg" in check["remedy"]
    assert _leftovers(check["facts"]["run_id"]) == []


@pytest.mark.slow
def test_a_rank_that_hangs_is_named_within_the_timeout_and_its_tree_is_killed(tmp_path):
    timeout = 20
    check = _doctor(
        _config(tmp_path, f"timeout = {timeout}\n"), clean_env(AMPENV_DIST_FAULT="hang:1")
    )
    assert check["status"] == "fail"
    assert check["summary"].startswith("rank 1 (cpu, pid ")
    assert "made no progress past 'joined'" in check["summary"]
    assert "rank(s) 0 waited in 'connect'" in check["summary"]
    assert check["duration_s"] <= timeout
    # The hanging rank had started a helper process of its own: it went too.
    assert _leftovers(check["facts"]["run_id"]) == []


@pytest.mark.slow
def test_a_peer_that_never_comes_is_a_rendezvous_problem_under_srun(tmp_path):
    port = launch.free_port()  # nobody serves the rendezvous there
    env = clean_env(
        SLURM_PROCID="1",
        SLURM_NTASKS="2",
        SLURM_LOCALID="0",
        SLURM_LAUNCH_NODE_IPADDR="127.0.0.1",
        MASTER_PORT=str(port),
    )
    check = _doctor(_config(tmp_path, "timeout = 15\n"), env)
    assert check["status"] == "fail" and check["facts"]["mode"] == "srun"
    assert "rank 1 (cpu, pid" in check["summary"]
    assert "'rendezvous'" in check["summary"]
    assert f"rendezvous 127.0.0.1:{port}" in check["remedy"] and "all 2 ranks" in check["remedy"]


@pytest.mark.slow
def test_two_torchrun_nodes_join_over_loopback_and_rank_0_judges_both(tmp_path):
    torchrun = shutil.which("torchrun", path=os.path.dirname(sys.executable))
    assert torchrun, "torchrun comes with torch"
    config = _config(tmp_path, "timeout = 100\n")
    port = launch.free_port()
    nodes = []
    for node in (0, 1):
        argv = [
            torchrun, "--nnodes=2", f"--node-rank={node}", "--nproc-per-node=1",
            "--master-addr=127.0.0.1", f"--master-port={port}",
            "-m", "ampenv", "doctor", "--only", "dist.allreduce", "--format", "json",
            "-c", config, "-o", str(tmp_path / f"node{node}.json"),
        ]  # fmt: skip
        nodes.append(subprocess.Popen(argv, env=clean_env(), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.PIPE, text=True))  # fmt: skip
    for p in nodes:
        assert p.wait(timeout=150) == 0, p.stderr.read()
    reports = [json.loads((tmp_path / f"node{n}.json").read_text()) for n in (0, 1)]
    rank0, rank1 = (r["checks"][0] for r in reports)
    for check in (rank0, rank1):
        assert check["status"] == "pass", check
        assert check["facts"]["mode"] == "torchrun" and check["facts"]["world_size"] == 2
    assert [r["rank"] for r in rank0["facts"]["ranks"]] == [0, 1]  # gathered from node 1
    assert [r["rank"] for r in rank1["facts"]["ranks"]] == [1]
    assert "rank 0 at 127.0.0.1 judges all ranks" in rank1["summary"]
