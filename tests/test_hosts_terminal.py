"""Issue 18, items 9 and 11. Reproduced first: PYTHONIOENCODING=ascii made `ampenv doctor` a
UnicodeEncodeError traceback; a job started by `ampenv run` inherited ignored SIGPIPE and
SIGXFSZ (`yes | head -1` printed "Broken pipe")."""

from __future__ import annotations

import pytest
from conftest import clean_env, run_ampenv


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_terminal_without_utf8_gets_ascii_marks(tmp_path, encoding):
    root = tmp_path / "root"
    root.mkdir()
    env = clean_env(PYTHONIOENCODING=encoding, AMPENV_SYSROOT=str(root))
    ran = run_ampenv("doctor", "-p", "quick", "--only", "host", env=env)
    assert ran.returncode == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    assert "[+] Host resources" in ran.stdout
    ran.stdout.encode("ascii")


def _ignored(status: str) -> int:
    line = next(x for x in status.splitlines() if x.startswith("SigIgn:"))
    return int(line.split()[1], 16)


def test_the_job_gets_default_sigpipe_and_sigxfsz(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    env = clean_env(AMPENV_SYSROOT=str(root))
    ran = run_ampenv("run", "--", "cat", "/proc/self/status", env=env)
    assert ran.returncode == 0, ran.stderr
    mask = _ignored(ran.stdout)
    assert not mask & (1 << (13 - 1)), "SIGPIPE ignored"
    assert not mask & (1 << (25 - 1)), "SIGXFSZ ignored"
    ran = run_ampenv("run", "--", "sh", "-c", "yes | head -1", env=env)
    assert ran.stdout == "y\n"
    assert "Broken pipe" not in ran.stderr
