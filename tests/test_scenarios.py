"""Every known failure is a planted scenario (issue 9).

Each folder of ``tests/scenarios/`` with a ``scenario.toml`` is one broken node; adding a
scenario means adding a folder, never code. A manifest extends a base layer
(``tests/scenarios/_bases/<name>/node.toml``, e.g. ``base = "healthy-910b"``) and says:

- ``title``, ``source`` (the public issue, doc or recorded capture it comes from), ``profile``
  (default quick), ``args`` (more ``doctor`` options), ``xfail`` (a known gap: a strict xfail
  that flips loudly once the check is fixed), ``marks`` (pytest marks), ``python`` (the name of a
  fixture giving the interpreter, e.g. ``torchnpu_python``: the real torch_npu wheel's venv);
- ``[env]`` variables, ``unset_env``, and ``sourced``: planted ``set_env.sh`` files whose
  ``export`` lines are evaluated in order, as ``source`` would;
- ``[files."<system path>"]``: ``fixture`` (below tests/fixtures), ``file`` (beside the
  manifest), ``text``, ``link`` or ``dir``, with optional ``lines = [first, last]`` and
  ``replace`` edits made in the open, and ``age_days``; ``devices``: character device nodes
  (links to /dev/null); ``remove``: system paths (globs) the layer takes out of its base;
  ``config``: the ampenv.toml of the node;
- ``[tools.<name>]``: a fake tool on PATH (tests/fakebin.py); ``replay."<args>"`` gives a
  ``fixture`` (with ``replace``) or ``stdout``/``stderr``/``exit_code``/``hang``; ``false``
  removes a tool of the base;
- ``[packages]``: distributions planted on PYTHONPATH as ``*.dist-info/METADATA``: a version,
  ``{ version, requires }``, ``{ metadata = <fixture> }``, or ``false`` to remove one;
- ``[expect]``: ``check``, ``status``, and keywords the ``remedy`` (and ``summary``) must hold.

``{arch}`` (this host's ``uname -m``) and ``{root}`` (the sysroot) are expanded in paths, values
and edits. The recorded CANN captures are aarch64 toolkits; the node plants them for this host's
architecture (an edit in the open), since cann.toolkit rightly fails a foreign one.
"""

from __future__ import annotations

import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest
from conftest import FIXTURES, clean_env
from fakebin import Reply, fake_tool, path_with

# The fixture of the real torch_npu wheel's venv, for scenarios with python = "torchnpu_python".
from test_torch_npu_real import torchnpu_python  # noqa: F401

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SCENARIOS = Path(__file__).parent / "scenarios"
BASES = SCENARIOS / "_bases"
CONFIG = "/etc/ampenv/ampenv.toml"
# The checks a healthy node must pass without a word: Ascend, environment and cache.
QUIET_FAMILIES = ("npu", "cann", "python", "env", "cache")
CHILD_TIMEOUT = 60
ARCH = {"arm64": "aarch64", "amd64": "x86_64"}.get(platform.machine().lower(), platform.machine())


# -- manifests -----------------------------------------------------------------------------------
# What a manifest may say: a misspelt key (`remedies`, `age`) must not be ignored silently.
KEYS = {
    "manifest": {
        "title", "source", "base", "profile", "args", "xfail", "marks", "python", "env",
        "unset_env", "sourced", "files", "devices", "remove", "config", "tools", "packages",
        "expect",
    },
    "expect": {"check", "status", "remedy", "summary"},
    "file": {"fixture", "file", "text", "link", "dir", "lines", "replace", "age_days"},
    "reply": {"fixture", "lines", "replace", "stdout", "stderr", "exit_code", "hang"},
}  # fmt: skip


def unknown_keys(data: dict[str, Any]) -> list[str]:
    bad = [k for k in data if k not in KEYS["manifest"]]
    bad += [f"expect.{k}" for k in data.get("expect", {}) if k not in KEYS["expect"]]
    for path, spec in data.get("files", {}).items():
        bad += [f"files.{path}.{k}" for k in spec if k not in KEYS["file"]]
    for name, tool in data.get("tools", {}).items():
        if tool is not False:
            bad += [f"tools.{name}.{k}" for k in tool if k != "replay"]
            for args, spec in tool.get("replay", {}).items():
                bad += [f"tools.{name}.replay.{args}.{k}" for k in spec if k not in KEYS["reply"]]
    return bad


def read_manifest(path: Path) -> dict[str, Any]:
    data = tomllib.loads(path.read_text())
    bad = unknown_keys(data)
    assert not bad, f"{path}: unknown keys {', '.join(bad)}"
    data["_dir"] = path.parent
    return data


def layers(manifest: dict[str, Any]) -> list[dict[str, Any]]:
    """The manifest's base chain, base first."""
    chain = [manifest]
    while chain[0].get("base"):
        chain.insert(0, read_manifest(BASES / chain[0]["base"] / "node.toml"))
    return chain


def merged(chain: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """A table merged over the layers (a later layer wins, key by key)."""
    out: dict[str, Any] = {}
    for layer in chain:
        out.update(layer.get(key, {}))
    return out


def last(chain: list[dict[str, Any]], key: str, default: Any = None) -> Any:
    return next((layer[key] for layer in reversed(chain) if key in layer), default)


def scenario_params() -> list[Any]:
    params = []
    for path in sorted(SCENARIOS.glob("*/scenario.toml")):
        manifest = read_manifest(path)
        marks = [getattr(pytest.mark, m) for m in manifest.get("marks", [])]
        if manifest.get("xfail"):
            marks.append(pytest.mark.xfail(strict=True, reason=manifest["xfail"]))
        params.append(pytest.param(manifest, id=path.parent.name, marks=marks))
    return params


# -- planting ------------------------------------------------------------------------------------
def expand(text: str, root: Path) -> str:
    return text.replace("{arch}", ARCH).replace("{root}", str(root))


def edited(spec: dict[str, Any], source: Path, root: Path) -> bytes:
    """A recorded file, cut to ``lines = [first, last]`` and with the ``replace`` edits, each
    of which must apply."""
    edits, lines = spec.get("replace", []), spec.get("lines")
    if not (edits or lines):
        return source.read_bytes()
    text = source.read_text()
    if lines:
        text = "".join(text.splitlines(keepends=True)[lines[0] - 1 : lines[1]])
    for old, new in edits:
        old, new = expand(old, root), expand(new, root)
        assert old in text, f"edit {old!r} does not apply to {source.name}"
        text = text.replace(old, new)
    return text.encode()


def at(root: Path, system_path: str) -> Path:
    return root / expand(system_path, root).lstrip("/")


def plant_file(root: Path, system_path: str, spec: dict[str, Any], layer_dir: Path) -> None:
    target = at(root, system_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    if "link" in spec:
        target.symlink_to(expand(spec["link"], root))
    elif spec.get("dir"):
        target.mkdir(exist_ok=True)
    elif "text" in spec:
        target.write_text(expand(spec["text"], root))
    else:
        source = FIXTURES / spec["fixture"] if "fixture" in spec else layer_dir / spec["file"]
        target.write_bytes(edited(spec, source, root))


def age(root: Path, system_path: str, days: float) -> None:
    """Set the mtime of a planted path and of its folders below the sysroot to ``days`` ago."""
    when = time.time() - days * 86400
    path = at(root, system_path)
    while path != root:
        os.utime(path, (when, when), follow_symlinks=False)
        path = path.parent


def remove(root: Path, pattern: str) -> None:
    hits = glob.glob(str(at(root, pattern)))
    assert hits, f"remove {pattern!r}: nothing planted there"
    for hit in hits:
        if os.path.isdir(hit) and not os.path.islink(hit):
            shutil.rmtree(hit)
        else:
            os.unlink(hit)


def plant_tree(chain: list[dict[str, Any]], root: Path) -> None:
    for layer in chain:
        for pattern in layer.get("remove", []):
            remove(root, pattern)
        for device in layer.get("devices", []):
            plant_file(root, device, {"link": "/dev/null"}, layer["_dir"])
        files = layer.get("files", {})
        for system_path, spec in files.items():
            plant_file(root, system_path, spec, layer["_dir"])
        # Oldest first, so a folder shared with a younger file ends up with the younger age.
        aged = sorted(
            ((s["age_days"], p) for p, s in files.items() if "age_days" in s), reverse=True
        )
        for days, system_path in aged:
            age(root, system_path, days)
    config = last(chain, "config")
    if config is not None:
        plant_file(root, CONFIG, {"text": config}, root)


def reply(spec: dict[str, Any], root: Path, scratch: Path) -> Reply:
    fixture = None
    if "fixture" in spec:
        source = FIXTURES / spec["fixture"]
        data = edited(spec, source, root)
        scratch.mkdir(exist_ok=True)
        fixture = scratch / f"{len(list(scratch.iterdir()))}-{source.name}"
        fixture.write_bytes(data)
    return Reply(
        fixture=str(fixture) if fixture else None,
        stdout=spec.get("stdout", ""),
        stderr=spec.get("stderr", ""),
        exit_code=spec.get("exit_code", 0),
        hang=spec.get("hang", False),
    )


def plant_tools(chain: list[dict[str, Any]], root: Path, bin_dir: Path) -> None:
    tools: dict[str, dict[str, Any]] = {}
    for layer in chain:
        for name, spec in layer.get("tools", {}).items():
            if spec is False:
                tools.pop(name, None)
            else:
                tools.setdefault(name, {}).update(spec.get("replay", {}))
    bin_dir.mkdir()
    scratch = bin_dir.parent / "replays"
    for name, replay in tools.items():
        fake_tool(bin_dir, name, {args: reply(r, root, scratch) for args, r in replay.items()})


def plant_packages(chain: list[dict[str, Any]], site: Path) -> None:
    """Each distribution as ``<name>-<version>.dist-info/METADATA`` (nothing to import)."""
    for name, spec in merged(chain, "packages").items():
        if spec is False:
            continue
        spec = {"version": spec} if isinstance(spec, str) else spec
        if "metadata" in spec:
            text = (FIXTURES / spec["metadata"]).read_text()
            version = re.search(r"^Version: (\S+)$", text, re.M).group(1)  # type: ignore[union-attr]
        else:
            version = spec["version"]
            headers = [f"Name: {name}", f"Version: {version}"]
            headers += [f"Requires-Dist: {r}" for r in spec.get("requires", [])]
            text = "Metadata-Version: 2.1\n" + "\n".join(headers) + "\n\n"
        folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
        folder.mkdir(parents=True)
        (folder / "METADATA").write_text(text)


def sourced(env: dict[str, str], script: Path) -> None:
    """``source script`` for its ``export NAME=value`` lines, ${VAR} and $(arch) expanded."""
    for line in script.read_text().splitlines():
        m = re.fullmatch(r"export (\w+)=(.*)", line.strip())
        if m:
            value = m.group(2).replace("$(arch)", ARCH)
            value = re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda v: env.get(v[1] or v[2], ""), value)
            env[m.group(1)] = value


@dataclass
class Planted:
    argv: list[str]
    env: dict[str, str]
    cwd: Path


def plant(manifest: dict[str, Any], tmp_path: Path, python: Optional[Path] = None) -> Planted:
    chain = layers(manifest)
    root, bin_dir, site, cwd = (tmp_path / d for d in ("root", "bin", "site", "cwd"))
    root.mkdir()
    cwd.mkdir()
    plant_tree(chain, root)
    plant_tools(chain, root, bin_dir)
    plant_packages(chain, site)
    env = clean_env(PATH=path_with(bin_dir))
    for script in last(chain, "sourced", []):
        sourced(env, at(root, script))
    env.update({k: expand(v, root) for k, v in merged(chain, "env").items()})
    for name in last(chain, "unset_env", []):
        env.pop(name, None)
    # Planted distributions first; ampenv itself from this checkout for a foreign interpreter.
    paths = [str(site)] + ([str(Path(__file__).parent.parent)] if python else [])
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH")] if p])
    env["AMPENV_SYSROOT"] = str(root)
    args = [expand(a, root) for a in last(chain, "args", [])]
    profile = last(chain, "profile", "quick")
    argv = [str(python or sys.executable), "-m", "ampenv", "doctor", "--profile", profile]
    return Planted([*argv, "--format", "json", *args], env, cwd)


def doctor(planted: Planted) -> dict[str, Any]:
    ran = subprocess.run(
        planted.argv,
        env=planted.env,
        cwd=planted.cwd,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert ran.stdout, f"no report (exit {ran.returncode}): {ran.stderr[-2000:]}"
    return json.loads(ran.stdout)


def describe(check: dict[str, Any]) -> str:
    lines = [f"{check['id']} {check['status']}: {check['summary']}", f"remedy: {check['remedy']}"]
    return "\n".join(lines + [f"  {d}" for d in check["details"]])


# -- the tests -----------------------------------------------------------------------------------
@pytest.mark.parametrize("manifest", scenario_params())
def test_scenario(manifest: dict[str, Any], tmp_path: Path, request: pytest.FixtureRequest):
    python = request.getfixturevalue(manifest["python"]) if manifest.get("python") else None
    report = doctor(plant(manifest, tmp_path, python))
    expect = manifest["expect"]
    checks = {c["id"]: c for c in report["checks"]}
    errors = [describe(c) for c in checks.values() if c["status"] == "error"]
    errors = [e for e in errors if not e.startswith(expect["check"] + " ")]
    assert not errors, "other checks crashed or could not judge:\n" + "\n".join(errors)
    got = checks[expect["check"]]
    assert got["status"] == expect["status"], describe(got)
    remedy, summary = got["remedy"] or "", got["summary"]
    assert [k for k in expect.get("remedy", []) if k not in remedy] == [], describe(got)
    assert [k for k in expect.get("summary", []) if k not in summary] == [], describe(got)


def test_every_scenario_names_its_source_and_expects_an_exact_fix():
    manifests = [p.values[0] for p in scenario_params()]
    assert len(manifests) >= 25
    for m in manifests:
        name = m["_dir"].name
        assert m.get("title") and m.get("source"), f"{name}: title and source are required"
        expect = m["expect"]
        assert expect["status"] in ("warn", "fail", "error"), f"{name}: not a failure"
        assert expect.get("remedy"), f"{name}: no remedy keyword to hold the check to"


def test_healthy_910b_passes_the_quick_profile_without_a_word(tmp_path: Path):
    base = {"base": "healthy-910b", "_dir": BASES}
    report = doctor(plant(base, tmp_path))
    assert report["backend"] == "npu"
    checks = {c["id"]: c for c in report["checks"]}
    loud = [
        describe(c)
        for c in checks.values()
        if c["id"].split(".")[0] in QUIET_FAMILIES and c["status"] in ("warn", "fail", "error")
    ]
    assert not loud, "\n".join(loud)
    # Judged, not skipped: each of them saw the planted node and passed it.
    quiet = [i for i in checks if i.split(".")[0] in QUIET_FAMILIES]
    assert {i: checks[i]["status"] for i in quiet} == dict.fromkeys(quiet, "pass")
    assert checks["npu.devices"]["facts"]["device_count"] == 8
    assert checks["python.stack"]["summary"] == "torch 2.4.0, torch_npu 2.4.0.post2, CANN 8.0.0"
