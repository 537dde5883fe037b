"""ampenv fleet: certificates of many nodes compared, slow nodes flagged by median and MAD with
a minimum gap; invalid files reported, folders read, exit codes, determinism, the baseline that
certify compares a node with."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import run_ampenv

from ampenv import __version__
from ampenv.integrations import certificate as cert_mod
from ampenv.integrations import fleet
from ampenv.report.fleet import render

FACTS = {
    "device": "cpu",
    "device_model": "AMD EPYC (2 CPUs)",
    "amp_dtype": "bfloat16",
    "opt_level": "O1",
    "image_size": 64,
    "batch_size": 2,
    "steps": 3,
    "channels_last": False,
    "threads": 2,
}


def make_cert(host: str, amp: float, version: str = __version__, **facts) -> dict:
    body = {
        "schema": cert_mod.SCHEMA,
        "ampenv_version": version,
        "node": host,
        "backend": "cpu",
        "issued_at": "2026-12-03T10:00:00Z",
        "expires_at": "2026-12-10T10:00:00Z",
        "status": "pass",
        "checks": {"smoke.resnet50": "pass"},
        "fingerprint": {"node": host, "devices": ["2x AMD EPYC"]},
        "smoke": {
            "summary": "ok",
            "metrics": {"fp32_img_per_s": amp * 2, "amp_img_per_s": amp, "amp_speedup": 0.5},
            "facts": {**FACTS, **facts},
        },
    }
    body["digest"] = cert_mod.digest(body)
    return body


def write_certs(folder: Path, rates: dict[str, float], **facts) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for host, rate in rates.items():
        (folder / f"{host}.json").write_text(json.dumps(make_cert(host, rate, **facts)))
    return folder


FOUR = {"node-a": 10.0, "node-b": 10.4, "node-c": 9.8, "node-d": 5.1}


def test_the_half_speed_node_is_the_only_outlier(tmp_path):
    result = fleet.read([str(write_certs(tmp_path / "certs", FOUR))])
    status = {n.host: n.status for n in result.nodes}
    assert status == {"node-a": "ok", "node-b": "ok", "node-c": "ok", "node-d": "outlier"}
    assert result.exit_code == 1 and len(result.groups) == 1
    slow = next(n for n in result.nodes if n.host == "node-d")
    assert slow.ratio_to_median == pytest.approx(5.1 / 10.0)  # the median of its 3 peers
    assert slow.peer_median_img_per_s == pytest.approx(10.0)
    assert "below the median 10 of its 3 peers" in slow.reason and "certify it again" in slow.reason


def test_a_slow_node_s_own_older_certificates_do_not_vote_it_healthy(tmp_path):
    certs = write_certs(tmp_path / "certs", FOUR)
    for day in ("01", "02", "03"):  # yesterday's and older, all of node-d
        old = make_cert("node-d", 5.0)
        old["issued_at"] = f"2026-12-{day}T09:00:00Z"
        old["digest"] = cert_mod.digest(old)
        (certs / f"node-d-{day}.json").write_text(json.dumps(old))
    result = fleet.read([str(certs)])
    judged = {n.path.rsplit("/", 1)[1]: n.status for n in result.nodes}
    assert judged["node-d.json"] == "outlier" and result.exit_code == 1
    assert [judged[f"node-d-{d}.json"] for d in ("01", "02", "03")] == ["superseded"] * 3
    text = render(result.to_json())
    assert "OUTLIER: 1 of 4 node(s)" in text and "older certificates, not judged:" in text


@pytest.mark.parametrize("name", ["NODE-D", "node-d\u200b", "ｎode-d "])
def test_a_node_s_name_written_another_way_is_the_same_node(tmp_path, name):
    certs = write_certs(tmp_path / "certs", FOUR)
    for i in range(3):  # its copies under another spelling of its name, each a day older
        old = make_cert(name, 5.0)
        old["issued_at"] = f"2026-12-0{i + 1}T09:00:00Z"
        old["digest"] = cert_mod.digest(old)
        (certs / f"copy-{i}.json").write_text(json.dumps(old))
    result = fleet.read([str(certs)])
    assert result.exit_code == 1 and [n.host for n in result.outliers] == ["node-d"]
    assert sum(n.status == "superseded" for n in result.nodes) == 3


def test_nodes_named_by_address_or_rack_stay_apart(tmp_path):
    # a domain makes another node: kubeadm's and CCE's nodes are named by their IP address
    rates = {f"192.168.0.{i}": 10.0 + i / 10 for i in range(11, 16)}
    rates["192.168.0.16"] = 5.0
    result = fleet.read([str(write_certs(tmp_path / "certs", rates))])
    assert [n.host for n in result.outliers] == ["192.168.0.16"]
    assert not any(n.status == "superseded" for n in result.nodes)


def test_a_certificate_issued_in_the_future_is_not_read(tmp_path):
    certs = write_certs(tmp_path / "certs", FOUR)
    ahead = make_cert("node-d", 10.0)
    ahead["issued_at"], ahead["expires_at"] = "2999-01-01T00:00:00Z", "2999-01-08T00:00:00Z"
    ahead["digest"] = cert_mod.digest(ahead)
    (certs / "node-d-ahead.json").write_text(json.dumps(ahead))
    result = fleet.read([str(certs)])
    judged = {n.path.rsplit("/", 1)[1]: n for n in result.nodes}
    assert judged["node-d-ahead.json"].status == "invalid"
    assert "issued in the future" in judged["node-d-ahead.json"].reason
    assert judged["node-d.json"].status == "outlier" and result.exit_code == 1


def test_a_node_a_few_percent_off_in_a_tight_group_is_not_flagged(tmp_path):
    rates = {"a": 10.0, "b": 10.0, "c": 10.0, "d": 9.3}  # MAD 0: the 10% gap decides
    result = fleet.read([str(write_certs(tmp_path, rates))])
    assert result.exit_code == 0 and {n.status for n in result.nodes} == {"ok"}
    rates["d"] = 8.9
    assert fleet.read([str(write_certs(tmp_path, rates))]).exit_code == 1


def test_a_noisy_group_needs_more_than_the_gap(tmp_path):
    rates = {"a": 10.0, "b": 14.0, "c": 6.0, "d": 12.0, "e": 8.0}  # median 10, MAD 2
    result = fleet.read([str(write_certs(tmp_path, rates))])
    assert result.exit_code == 0  # 6.0 is within 3.5 robust sigmas of the median


def test_same_input_same_verdict_whatever_the_order(tmp_path):
    folder = write_certs(tmp_path / "certs", {**FOUR, "node-e": 9.9, "node-f": 10.1})
    files = sorted(str(p) for p in folder.glob("*.json"))
    first = fleet.read(files).to_json()
    for seed in range(5):
        random.Random(seed).shuffle(files)
        assert fleet.read(files).to_json() == first
    assert fleet.read([str(folder)]).to_json() == first


def test_incomparable_nodes_are_grouped_apart_and_a_lone_node_is_alone(tmp_path):
    write_certs(tmp_path, {"a": 10.0, "b": 10.0, "c": 10.0})
    (tmp_path / "big.json").write_text(json.dumps(make_cert("big", 3.0, image_size=224)))
    (tmp_path / "old.json").write_text(json.dumps(make_cert("old", 3.0, version="0.0.1")))
    result = fleet.read([str(tmp_path)])
    status = {n.host: n.status for n in result.nodes}
    assert status == {"a": "ok", "b": "ok", "c": "ok", "big": "alone", "old": "alone"}
    assert len(result.groups) == 3 and result.exit_code == 0
    two = fleet.read([str(write_certs(tmp_path / "two", {"x": 10.0, "y": 2.0}))])
    assert {n.status for n in two.nodes} == {"alone"}  # two nodes cannot say which is slow


def test_invalid_certificates_are_reported_not_fatal(tmp_path):
    folder = write_certs(tmp_path, FOUR)
    (folder / "junk.json").write_text("{not json")
    edited = make_cert("edited", 10.0)
    edited["smoke"]["metrics"]["amp_img_per_s"] = 99.0
    (folder / "edited.json").write_text(json.dumps(edited))
    no_smoke = make_cert("nosmoke", 1.0)
    no_smoke["smoke"] = None
    no_smoke["digest"] = cert_mod.digest(no_smoke)
    (folder / "nosmoke.json").write_text(json.dumps(no_smoke))
    result = fleet.read([str(folder)])
    invalid = {Path(n.path).name: n.reason for n in result.nodes if n.status == "invalid"}
    assert set(invalid) == {"junk.json", "edited.json", "nosmoke.json"}
    assert "not JSON" in invalid["junk.json"] and "digest" in invalid["edited.json"]
    assert [n.host for n in result.outliers] == ["node-d"]
    text = render(result.to_json())
    assert "not read:" in text and "junk.json" in text and "OUTLIER: 1" in text


def test_usage_errors():
    with pytest.raises(fleet.FleetError):
        fleet.certificate_paths([])
    with pytest.raises(fleet.FleetError):
        fleet.certificate_paths(["/nonexistent/certs"])


def test_old_certificates_group_by_their_fingerprint_devices(tmp_path):
    old = make_cert("old", 5.0)
    del old["smoke"]["facts"]["device_model"], old["smoke"]["facts"]["channels_last"]
    old["digest"] = cert_mod.digest(old)
    (tmp_path / "old.json").write_text(json.dumps(old))
    node = fleet.read_node(tmp_path / "old.json")
    assert node.status == "ok" and node.key["device"] == "2x AMD EPYC"
    assert node.key["channels_last"] is False


def test_cli_exit_codes_json_and_baseline(tmp_path):
    folder = write_certs(tmp_path / "certs", FOUR)
    ran = run_ampenv("fleet", str(folder), "--format", "json")
    assert ran.returncode == 1, ran.stderr
    doc = ran.json
    assert doc["schema"] == "ampenv.fleet/1"
    assert [n["host"] for n in doc["nodes"] if n["status"] == "outlier"] == ["node-d"]
    for n in doc["nodes"]:
        assert set(n) >= {"host", "status", "amp_img_per_s", "ratio_to_median", "reason"}
    text = run_ampenv("fleet", str(folder))
    assert text.returncode == 1 and "[✗] node-d" in text.stdout
    (folder / "node-d.json").unlink()
    base = tmp_path / "baseline.json"
    ok = run_ampenv("fleet", str(folder), "--baseline-out", str(base))
    assert ok.returncode == 0 and "NO OUTLIER" in ok.stdout
    assert run_ampenv("fleet", str(tmp_path / "missing")).returncode == 2
    assert run_ampenv("fleet", str(folder), "--format", "xml").returncode == 2
    assert run_ampenv("fleet", str(folder), "--min-gap", "2").returncode == 2
    loaded = fleet.load_baseline(str(base))
    assert loaded["groups"][0]["median_img_per_s"] == pytest.approx(10.0)


def test_baseline_comparison_fails_a_node_short_of_its_group(tmp_path):
    result = fleet.read([str(write_certs(tmp_path, FOUR))])
    base = fleet.baseline(result)
    assert base["groups"][0]["median_img_per_s"] == pytest.approx(10.0)  # outlier left out
    metrics = {"amp_img_per_s": 8.5}
    short = fleet.compare_to_baseline("cpu", FACTS, metrics, base, 0.10)
    assert not short.ok and "15% below the fleet baseline" in short.message
    assert fleet.compare_to_baseline("cpu", FACTS, {"amp_img_per_s": 9.5}, base, 0.10).ok
    other = fleet.compare_to_baseline("cpu", {**FACTS, "image_size": 224}, metrics, base, 0.1)
    assert other.ok and "not compared" in other.message
    (tmp_path / "bad.json").write_text('{"schema": "nope"}')
    with pytest.raises(fleet.FleetError):
        fleet.load_baseline(str(tmp_path / "bad.json"))


def test_certify_fails_a_node_short_of_the_baseline(tmp_path, monkeypatch):
    """[certificate] baseline: the smoke check compares this node with its group's figure."""
    import copy
    import time

    from conftest import FIXTURES

    from ampenv.active.smoke import parent as runner
    from ampenv.active.smoke import verdict
    from ampenv.checks import CheckContext, Context, Status
    from ampenv.core.config import parse
    from ampenv.core.registry import discover
    from ampenv.probe import Probe

    runs = json.loads((FIXTURES / "smoke" / "cpu_default_runs.json").read_text())
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    cpuinfo = (FIXTURES / "smoke" / "cpuinfo_amd_epyc_2cpu_avx2.txt").read_text()
    (root / "proc" / "cpuinfo").write_text(cpuinfo)

    def replay(plan, thresholds, timeout_left, env, on_line=None):
        fp32, amp = copy.deepcopy(runs["fp32"]), copy.deepcopy(runs["amp"])
        metrics = verdict.measure(fp32, amp, 0.01)
        return runner.Outcome(runner.Run(fp32, []), runner.Run(amp, []), metrics, [0.15])

    monkeypatch.setattr(runner, "smoke", replay)
    # This planted CPU has no native bf16: AMP is not recommended, its FP32 figure is compared.
    measured = runs["fp32"]["img_per_s"]
    folder = tmp_path / "certs"
    folder.mkdir()
    for host in ("a", "b", "c"):
        body = make_cert(host, 0.1, threads=1, amp_recommended=False)
        body["smoke"]["metrics"]["fp32_img_per_s"] = measured * 1.5
        body["digest"] = cert_mod.digest(body)
        (folder / f"{host}.json").write_text(json.dumps(body))
    base = tmp_path / "baseline.json"
    fleet.write_baseline(str(base), fleet.read([str(folder)]))

    def run_check(text: str):
        config = parse(text, "ampenv.toml")
        spec = discover({}).checks["smoke.resnet50"]
        shared = Context(config, Probe(sysroot=str(root)), profile="certify", device="cpu")
        ctx = CheckContext(shared, spec, config.settings_for(spec), time.monotonic() + 30)
        return spec(ctx)

    slow = run_check(f'[certificate]\nbaseline = "{base}"\n')
    assert slow.status is Status.FAIL, slow.summary
    assert "FP32" in slow.summary and "below the fleet baseline" in slow.summary
    assert slow.remedy
    fine = run_check(f'[certificate]\nbaseline = "{base}"\nbaseline_max_shortfall = 0.5\n')
    assert fine.status is Status.PASS and fine.facts["baseline"]["compared"]
    missing = run_check(f'[certificate]\nbaseline = "{tmp_path}/nope.json"\n')
    assert missing.status is Status.ERROR and "no such file" in missing.summary


def test_where_amp_is_not_recommended_fp32_throughput_is_compared(tmp_path):
    """An emulated-bf16 CPU trains in FP32, and its AMP figure does not follow its cores."""
    rates = {"a": 9.9, "b": 8.3, "c": 9.5, "one-thread": 5.7}
    folder = tmp_path / "certs"
    folder.mkdir()
    for host, fp32 in rates.items():
        body = make_cert(host, 0.63, amp_recommended=False)
        body["smoke"]["metrics"]["fp32_img_per_s"] = fp32
        body["digest"] = cert_mod.digest(body)
        (folder / f"{host}.json").write_text(json.dumps(body))
    result = fleet.read([str(folder)])
    assert [n.host for n in result.outliers] == ["one-thread"]
    assert result.groups[0].figure == "fp32_img_per_s"
    slow = result.outliers[0]
    assert slow.amp_img_per_s == pytest.approx(0.63) and slow.img_per_s == pytest.approx(5.7)
    assert slow.reason.startswith("FP32 5.7 img/s")
    assert "FP32 (AMP not recommended here) median" in render(result.to_json())
