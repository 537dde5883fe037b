"""The wheel ships the built-in checks inside ampenv, and the quick path stays light."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest
from conftest import REPO

BUILTIN = sorted(p.stem for p in (REPO / "checks").glob("*.py") if not p.name.startswith("_"))


def test_the_cli_and_the_quick_profile_import_neither_torch_nor_numpy():
    code = (
        "import sys, ampenv.cli\n"
        "from ampenv.core.session import Options, diagnose\n"
        "diagnose(Options(profile='quick'))\n"
        "print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@pytest.mark.slow
def test_a_non_editable_install_finds_every_builtin_check(tmp_path):
    wheel_dir = tmp_path / "wheel"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheel_dir), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheel_dir.glob("ampenv-*.whl")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    subprocess.run(
        [str(py), "-m", "pip", "install", "-q", str(wheel)],
        check=True,
        capture_output=True,
    )
    site = Path(
        subprocess.run(
            [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    assert not (site / "checks").exists()
    shipped = sorted(p.stem for p in (site / "ampenv" / "builtin_checks").glob("*.py"))
    assert shipped == BUILTIN
    listing = subprocess.run(
        [str(env_dir / "bin" / "ampenv"), "checks"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    ).stdout
    for stem in BUILTIN:
        assert f"builtin:{stem}.py" in listing
    assert (site / "ampenv" / "report" / "report.schema.json").is_file()
    tables = REPO / "ampenv" / "knowledge" / "failures"
    for table in sorted(p.name for p in tables.glob("*.json")):  # every table a module reads
        assert (site / "ampenv" / "knowledge" / "failures" / table).is_file()
