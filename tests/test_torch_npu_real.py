"""python.stack against the REAL torch-npu==2.13.0 wheel beside torch==2.13.0, with no CANN.

The environment is a separate venv (never the project's own), built once and reused while its
marker file matches: under ``$AMPENV_TEST_CACHE`` or ``~/.cache/ampenv-test``. ampenv runs in it
from this checkout (PYTHONPATH), with its declared dependencies installed there. When the
package registry cannot be reached the tests skip, saying why.

Measured on the 2-core CI machine: building the venv takes about 2.5 minutes (torch comes from
the local wheel folder; torch-npu is a 44 MB download that brings numpy and pyyaml); a reuse
takes well under a second.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, Ran, clean_env

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

pytestmark = pytest.mark.torchnpu

PINS = ("torch==2.13.0", "torch-npu==2.13.0")
INSTALL_TIMEOUT = 1500
# What torch_npu's own modules (torch_npu/_C, lib/*.so) need from CANN, per `readelf -d`.
CANN_AT_IMPORT = {
    "libhccl.so", "libascendcl.so", "libacl_op_compiler.so", "libge_runner.so", "libgraph.so",
    "libacl_tdt_channel.so",
}  # fmt: skip
# ... and what only torchair and the ATB plugin need (NNAL's libatb.so among them).
CANN_ON_DEMAND = {"libfmk_parser.so", "libascend_protobuf.so", "libatb.so"}


def _cache_root() -> Path:
    return Path(os.environ.get("AMPENV_TEST_CACHE") or Path.home() / ".cache" / "ampenv-test")


def _wanted() -> dict:
    deps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    return {"pins": list(PINS), "deps": deps, "python": sys.version.split()[0]}


def _build(venv: Path, wanted: dict) -> str:
    """Create the venv and install into it; returns pip's output tail on failure, else ""."""
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install"]
    ran = subprocess.run(
        [*pip, "--disable-pip-version-check", *wanted["pins"], *wanted["deps"]],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
    )
    if ran.returncode != 0:
        return ran.stdout + ran.stderr
    (venv / "ampenv-test-ready.json").write_text(json.dumps(wanted))
    return ""


# What pip prints when it cannot reach the index: only then is a failed install not ours.
UNREACHABLE = re.compile(
    r"NewConnectionError|Failed to establish a new connection|Temporary failure in name "
    r"resolution|Name or service not known|Max retries exceeded|ReadTimeoutError|Network is "
    r"unreachable|Connection refused"
)


@pytest.fixture(scope="session")
def torchnpu_python() -> Path:
    """The python of a venv with the real torch + torch_npu wheels; built once, then reused."""
    wanted = _wanted()
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    venv = _cache_root() / f"venv-torchnpu-2.13.0-{tag}"
    venv.parent.mkdir(parents=True, exist_ok=True)
    with open(venv.parent / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs must not build it at once
        marker = venv / "ampenv-test-ready.json"
        if not (marker.exists() and json.loads(marker.read_text()) == wanted):
            try:
                failure = _build(venv, wanted)
            except subprocess.TimeoutExpired:
                pytest.skip(f"pip did not finish in {INSTALL_TIMEOUT} s (a slow registry)")
            tail = "\n".join(failure.strip().splitlines()[-6:])
            if failure and UNREACHABLE.search(failure):
                pytest.skip(f"the registry is unreachable: {tail}")
            if failure:  # a conflict between the pins and ampenv's dependencies is a finding
                pytest.fail(f"cannot install {' '.join(PINS)} beside ampenv's dependencies: {tail}")
    return venv / "bin" / "python"


def doctor(python: Path, profile: str, *extra: str, **env: str) -> Ran:
    p = subprocess.run(
        [str(python), *extra, "-m", "ampenv", "doctor", "--only", "python.stack",
         "--profile", profile, "--format", "json"],
        env=clean_env(PYTHONPATH=str(REPO), **env),
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    return Ran(p.returncode, p.stdout, p.stderr)


def assert_cann_diagnosis(check: dict) -> None:
    assert check["status"] == "fail"
    assert set(check["facts"]["libraries_missing"]) == CANN_AT_IMPORT
    assert set(check["facts"]["libraries_missing_on_demand"]) == CANN_ON_DEMAND
    assert check["summary"].startswith("CANN runtime not on the library path: torch_npu needs ")
    for lib in CANN_AT_IMPORT:
        assert lib in check["summary"]
    assert "`import torch` fails too: torch autoloads torch_npu." in check["summary"]
    # No toolkit on this machine: the remedy installs one, then sources its set_env.sh.
    assert check["remedy"] == (
        "install the CANN toolkit (Ascend-cann-toolkit), then source its set_env.sh; "
        "for CPU-only use of this environment: export TORCH_DEVICE_BACKEND_AUTOLOAD=0"
    )
    assert (check["facts"]["torch"], check["facts"]["torch_npu"]) == ("2.13.0+cpu", "2.13.0")


def test_full_profile_fails_naming_the_missing_cann_libraries(torchnpu_python: Path):
    ran = doctor(torchnpu_python, "full")
    assert ran.returncode == 1, ran.stderr
    check = ran.check("python.stack")
    assert_cann_diagnosis(check)
    assert check["facts"]["import"]["stage"] == "torch"  # `import torch` itself failed
    assert check["facts"]["import"]["error"] == [
        "RuntimeError: Failed to load the backend extension: torch_npu. You can disable "
        "extension auto-loading with TORCH_DEVICE_BACKEND_AUTOLOAD=0.",
        "ImportError: libhccl.so: cannot open shared object file: No such file or directory",
    ]
    assert (
        "fail: CANN runtime not on the library path: importing torch_npu fails (libhccl.so "
        "cannot be opened)" in check["details"]
    )


def test_quick_profile_gives_the_same_diagnosis_without_importing_torch(torchnpu_python: Path):
    ran = doctor(torchnpu_python, "quick", "-X", "importtime")
    assert ran.returncode == 1, ran.stderr
    check = ran.check("python.stack")
    assert_cann_diagnosis(check)
    assert "import" not in check["facts"]  # no child ran
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)$", ran.stderr, re.M))
    assert "ampenv.cli" in {m.strip() for m in imported}  # -X importtime did report
    assert not {m for m in imported if m.split(".")[0] in ("torch", "torch_npu", "numpy")}


def test_autoload_off_makes_it_a_warning_and_torch_imports(torchnpu_python: Path):
    ran = doctor(torchnpu_python, "full", TORCH_DEVICE_BACKEND_AUTOLOAD="0")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    check = ran.check("python.stack")
    assert check["status"] == "warn"
    assert "torch works only because TORCH_DEVICE_BACKEND_AUTOLOAD=0" in check["summary"]
    assert check["facts"]["import"]["torch_version"] == "2.13.0+cpu"
    assert "torch_npu_version" not in check["facts"]["import"]  # not imported, on purpose
