"""Issue 17, item 10: a bundle keeps the values of an allowlist of names the diagnosis needs and
masks every other value; credentials in URLs and ``key=value`` secrets in collected text are
scrubbed, in ``files/``, ``commands/`` and ``report.json`` alike."""

from __future__ import annotations

import tarfile

import pytest
from conftest import run_ampenv
from test_bundle import PLOGS, plant, planted  # noqa: F401  (planted is a fixture)

from ampenv.util.redact import REDACTED, bundle_env, redact, scrub

PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)
# The red team's leaks: name -> (value, what must not appear)
LEAKS = {
    "GITHUB_PAT": ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", "ghp_16C7e42F"),
    "DB_PASS": ("hunter2-db", "hunter2-db"),
    "SSHPASS": ("sshpass-value-77", "sshpass-value-77"),
    "DOCKER_AUTH_CONFIG": ('{"auths":{"r.io":{"auth":"dXNlcjpwYXNz"}}}', "dXNlcjpwYXNz"),
    "SESSION_COOKIE": ("sid=abcdef0123456789", "abcdef0123456789"),
    "AUTH_HEADER": ("Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig", "eyJhbGciOiJIUzI1NiJ9"),
    "ALERT_HOOK": ("https://hooks.slack.com/services/T0/B0/XXXXsecretXXXX", "XXXXsecretXXXX"),
    "DEPLOY_ID_RSA": (PRIVATE_KEY, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"),
    "HTTP_PROXY": ("http://user:p@ss:word@proxy:3128", "p@ss:word"),
}
# Held out: kinds the red team did not name, the same rules must hold.
HELD_OUT = {
    "MY_APP_SETTING": ("opaque-value-123", "opaque-value-123"),
    "SLURM_JWT": ("eyJsecret.jwt.value", "eyJsecret.jwt.value"),
    "https_proxy": ("alice:s3cr3t@proxy:8080", "s3cr3t"),
    "ASCEND_CUSTOM_URL": ("https://bob:pw%40x@mirror.local/x", "pw%40x"),
    "PIP_INDEX_URL": ("https://__token__:pypi-AgEIcHlwaS5vcmc@pypi.org/simple", "pypi-AgEI"),
    "NETRC_LIKE": ("machine h login u password pw123", "pw123"),
}
KEPT = {
    "HCCL_CONNECT_TIMEOUT": "1200",
    "ASCEND_RT_VISIBLE_DEVICES": "0,1",
    "SLURM_JOB_ID": "4242",
    "PATH": "/usr/bin:/bin",
    "LD_LIBRARY_PATH": "/usr/local/Ascend/driver/lib64",
    "TORCH_NPU_ALLOC": "x",
}


@pytest.mark.parametrize("leaks", [LEAKS, HELD_OUT], ids=["red-team", "held-out"])
def test_bundle_env_masks_everything_off_the_allowlist(leaks) -> None:
    env = {name: value for name, (value, _) in leaks.items()} | KEPT
    out = bundle_env(env)
    dumped = repr(out)
    for name, (_, secret) in leaks.items():
        assert secret not in dumped, name
        assert name in out  # the name stays: support sees what was set
    for name, value in KEPT.items():
        assert out[name] == value


def test_allowlisted_names_that_look_secret_are_masked() -> None:
    out = bundle_env({"ASCEND_TOKEN": "t0ken-value", "SLURM_AUTH_KEY": "k3y"})
    assert out == {"ASCEND_TOKEN": REDACTED, "SLURM_AUTH_KEY": REDACTED}


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("[ERROR] connect db password=hunter2 failed", "hunter2"),
        ("passwd: correct-horse", "correct-horse"),
        ('{"password": "j$on-pw", "user": "u"}', "j$on-pw"),
        ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", "wJalrXUtnFEMI"),
        ("GET https://u:p@ss:w0rd@host/x", "p@ss:w0rd"),
        ("curl -H 'Authorization: Bearer abcdefghijklmnop'", "abcdefghijklmnop"),
        ("authorization=Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA"),
        ("api_key: 'AKIA123456789'", "AKIA123456789"),
        (PRIVATE_KEY, "b3BlbnNzaC1rZXktdjEAAAAA"),
        ("token=abc123&next=1", "abc123"),
    ],
)
def test_scrub_text(text: str, secret: str) -> None:
    assert secret not in scrub(text)


@pytest.mark.parametrize(
    "text",
    [
        "EL0004: HCCL_CONNECT_TIMEOUT=120 is too low",
        "tokenizer loaded: 32000 entries",
        "Basic blocks allocated: 1024",
        "passed: 12, failed: 0",
        "ERROR 507014 aicore timeout, see https://www.hiascend.com/doc",
    ],
)
def test_scrub_leaves_diagnosis_alone(text: str) -> None:
    assert scrub(text) == text


def test_report_redaction_masks_the_rest_of_a_url_password() -> None:
    assert "word" not in redact("HTTPS_PROXY", "http://user:p@ss:word@proxy:3128")
    assert redact("HTTPS_PROXY", "http://proxy:3128") == "http://proxy:3128"


def test_a_collected_bundle_holds_none_of_the_secrets(planted, sysroot, tmp_path) -> None:  # noqa: F811
    env, _ = planted
    for name, (value, _) in {**LEAKS, **HELD_OUT}.items():
        env[name] = value
    plant(sysroot, f"{PLOGS}/plog-77_20250101000000000.log",
          "[ERROR] RUNTIME(77): db password=plog-hunter2 url https://u:plog:pw@h/x\n")  # fmt: skip
    bundle = tmp_path / "node.tar.gz"
    ran = run_ampenv("collect", "-o", str(bundle), env=env)
    assert ran.returncode == 0, ran.stderr
    with tarfile.open(bundle) as tar:
        contents = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    assert any(n.startswith("files/") and n.endswith("plog-77_20250101000000000.log")
               for n in contents)  # fmt: skip
    secrets = [s for _, s in {**LEAKS, **HELD_OUT}.values()] + ["plog-hunter2", "plog:pw"]
    for name, data in contents.items():
        for secret in secrets:
            assert secret.encode() not in data, (name, secret)
    assert b'"HCCL_CONNECT_TIMEOUT": "1200"' in contents["env.json"]


def test_offline_verdict_still_sees_the_needed_variables(planted, tmp_path) -> None:  # noqa: F811
    env, _ = planted
    bundle = tmp_path / "node.tar.gz"
    assert run_ampenv("collect", "-o", str(bundle), env=env).returncode == 0
    offline = run_ampenv("doctor", "--bundle", str(bundle), "--profile", "quick", "-f", "json")
    hccl = offline.check("env.hccl")
    assert "redacted" not in hccl["summary"]


def test_the_red_team_names_are_masked_in_reports_too() -> None:
    for name in ("GITHUB_PAT", "DB_PASS", "SSHPASS", "DOCKER_AUTH_CONFIG", "SESSION_COOKIE",
                 "AUTH_HEADER", "DEPLOY_ID_RSA"):  # fmt: skip
        assert redact(name, "value") == REDACTED, name

