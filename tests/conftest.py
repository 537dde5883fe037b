"""Shared test helpers: run the real CLI in a child process, against a planted node."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
REPO = Path(__file__).resolve().parent.parent


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> dict:
        return json.loads(self.stdout)

    def check(self, check_id: str) -> dict:
        return next(c for c in self.json["checks"] if c["id"] == check_id)


def clean_env(**extra: str) -> dict[str, str]:
    """A minimal environment: no Ascend, HCCL or ampenv variables leak in from the host."""
    keep = ("PATH", "HOME", "LANG", "TMPDIR", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env["NO_COLOR"] = "1"
    env.update(extra)
    return env


def run_ampenv(
    *args: str, env: Optional[dict[str, str]] = None, timeout: float = 120, cwd=None
) -> Ran:
    p = subprocess.run(
        [sys.executable, "-m", "ampenv", *args],
        env=clean_env() if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    return Ran(p.returncode, p.stdout, p.stderr)


def logs_errors(text: str) -> dict:
    """logs.errors' result (JSON) for ``text`` piped on stdin, as a user pipes a log."""
    ran = subprocess.run(
        [sys.executable, "-m", "ampenv", "doctor", "-p", "quick", "--only", "logs.errors",
         "--log", "-", "-f", "json"],
        input=text, capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    return next(c for c in json.loads(ran.stdout)["checks"] if c["id"] == "logs.errors")


@pytest.fixture
def sysroot(tmp_path: Path) -> Path:
    """An empty planted node: AMPENV_SYSROOT points here."""
    root = tmp_path / "root"
    root.mkdir()
    return root


@pytest.fixture(scope="module")
def one_torch_thread():
    """Tiny models on a shared 2-core machine: a second OpenMP thread only adds contention."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
