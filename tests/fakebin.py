"""Fake command-line tools for tests: replay recorded real output, or break on purpose.

A fake is a small executable Python script written into a ``bin`` folder that the test puts on
``PATH`` (or plants under a sysroot, e.g. ``<root>/usr/local/bin/npu-smi``). It dispatches on its
arguments::

    fake_tool(bin_dir, "npu-smi", replay={
        "info": FIXTURES / "npu-smi/910b2_8dev_idle_23.0.7.txt",
        "info -t health -i 0 -c 0": Reply(hang=True),
    })
    fake_tool(bin_dir, "npu-smi", hang=True)            # every call hangs
    fake_tool(bin_dir, "npu-smi", stdout="garbage\\n")  # every call prints this
    fake_tool(bin_dir, "npu-smi", exit_code=1, stderr="dcmi model initialized failed ...")

Arguments with no recording and no catch-all behaviour exit 2 with a message on stderr, so a
test never passes on a call nobody recorded. Every call is appended to ``<name>.calls`` next to
the fake (one line of arguments per call), so a test can assert what was run.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional, Union

_SCRIPT = """\
import json, os, signal, sys, time
SPEC = json.loads({spec!r})
args = " ".join(sys.argv[1:])
with open(SPEC["calls"], "a") as fh:
    fh.write(args + "\\n")
reply = SPEC["replay"].get(args, SPEC["default"])
if reply is None:
    sys.stderr.write("fake {name}: no recording for arguments: " + args + "\\n")
    sys.exit(2)
if reply["fixture"]:
    with open(reply["fixture"], "rb") as fh:
        sys.stdout.buffer.write(fh.read())
sys.stdout.write(reply["stdout"])
sys.stderr.write(reply["stderr"])
sys.stdout.flush()
sys.stderr.flush()
if reply["hang"]:
    # Like a process stuck in the driver: deaf to polite signals, only SIGKILL ends it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        time.sleep(60)
sys.exit(reply["exit_code"])
"""


@dataclass(frozen=True)
class Reply:
    """What the fake does for one argument line."""

    fixture: Optional[str] = None  # a recorded output file, replayed byte for byte on stdout
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    hang: bool = False


Recording = Union[Reply, str, Path]


def _reply(recording: Recording) -> Reply:
    if isinstance(recording, Reply):
        return recording
    path = Path(recording)
    if not path.is_file():
        raise FileNotFoundError(f"fixture to replay not found: {path}")
    return Reply(fixture=str(path.resolve()))


def fake_tool(
    bin_dir: Union[str, Path],
    name: str,
    replay: Optional[dict[str, Recording]] = None,
    *,
    hang: bool = False,
    exit_code: Optional[int] = None,
    stdout: Optional[str] = None,
    stderr: str = "",
) -> Path:
    """Write an executable fake ``name`` into ``bin_dir`` and return its path.

    ``replay`` maps an argument line (``"info"``, ``"info -t health -i 0 -c 0"``) to a fixture
    path or a :class:`Reply`. ``hang``, ``exit_code``, ``stdout`` and ``stderr`` set what every
    other argument line gets; without them (and with ``replay``) other lines exit 2.
    """
    bin_dir = Path(bin_dir)
    bin_dir.mkdir(parents=True, exist_ok=True)
    catch_all = hang or exit_code is not None or stdout is not None or stderr or not replay
    default = (
        Reply(stdout=stdout or "", stderr=stderr, exit_code=exit_code or 0, hang=hang)
        if catch_all
        else None
    )
    path = bin_dir / name
    spec = {
        "calls": str(calls_file(path)),
        "replay": {args: asdict(_reply(rec)) for args, rec in (replay or {}).items()},
        "default": asdict(default) if default else None,
    }
    path.write_text(f"#!{sys.executable} -IS\n" + _SCRIPT.format(spec=json.dumps(spec), name=name))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def calls_file(tool: Path) -> Path:
    return tool.with_name(tool.name + ".calls")


def calls(tool: Path) -> list[str]:
    """The argument lines the fake was called with, in order."""
    f = calls_file(tool)
    return f.read_text().splitlines() if f.exists() else []


def path_with(bin_dir: Union[str, Path], base: Optional[str] = None) -> str:
    """A PATH with ``bin_dir`` first (then ``base``, by default this Python's own folder only,
    so no real tool of the machine running the tests is found by accident)."""
    rest = base if base is not None else os.path.dirname(sys.executable)
    return os.pathsep.join([str(bin_dir), rest])
