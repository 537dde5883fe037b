"""python.stack: versions from metadata, the torch_npu <-> torch <-> CANN match, pip-check
conflicts, the libraries torch_npu's extension modules need, and the import probe.

Fake distributions are ``*.dist-info`` folders in a temporary site folder (on the child's
PYTHONPATH for CLI runs, or scanned with the real environment in-process). Their metadata
follows the real torch_npu 2.13.0 wheel (``Requires-Dist: torch==2.13.0.*``, a
``[torch.backends]`` entry point). Extension modules are built by the real linker. Fake torch
packages for the import probe only break (hang, raise the error text recorded from the real
wheel, or report devices missing): none pretends to be a working NPU.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Optional

import psutil
import pytest
from conftest import clean_env, run_ampenv
from fakebin import fake_tool, path_with
from judge import judge, load_checks, load_module
from test_cann import INFO_81, LEGACY, plant_legacy

from ampenv.active.import_verdict import CHILD as IMPORT_PROBE
from ampenv.checks import Status
from ampenv.knowledge import compat
from ampenv.probe import (
    GPU_NAMES_TIMEOUT,
    Backend,
    Probe,
    cann,
    detect_backend,
    packages,
)

CHECKS = load_module("python.py")
CHECK = CHECKS.python_stack
GCC = shutil.which("gcc") or shutil.which("cc")
AUTOLOAD_ENTRY = "[torch.backends]\ntorch_npu = torch_npu:_autoload\n"  # as in the real wheel

# The chain the real torch-npu==2.13.0 wheel raises on `import torch` without CANN (recorded
# from tests/test_torch_npu_real.py's environment; replayed by a fake torch below).
REAL_CHAIN = (
    "Failed to load the backend extension: torch_npu. You can disable extension auto-loading "
    "with TORCH_DEVICE_BACKEND_AUTOLOAD=0.",
    "libhccl.so: cannot open shared object file: No such file or directory",
)


def dist_info(
    site: Path,
    name: str,
    version: str,
    requires: tuple[str, ...] = (),
    files: tuple[str, ...] = (),
    entry_points: str = "",
) -> Path:
    folder = site / f"{name.replace('-', '_')}-{version}.dist-info"
    folder.mkdir(parents=True)
    lines = ["Metadata-Version: 2.4", f"Name: {name}", f"Version: {version}"]
    lines += [f"Requires-Dist: {r}" for r in requires]
    (folder / "METADATA").write_text(
        "\n".join(lines) + "\n\nlong description\nName: not-a-header\n"
    )
    if files:
        (folder / "RECORD").write_text("".join(f"{f},,\n" for f in files))
    if entry_points:
        (folder / "entry_points.txt").write_text(entry_points)
    return folder


def torch_npu_dist(site: Path, version: str = "2.13.0", files: tuple[str, ...] = ()) -> Path:
    minor = ".".join(version.split(".")[:3])
    return dist_info(
        site, "torch_npu", version, (f"torch=={minor}.*", "numpy", "pyyaml"), files, AUTOLOAD_ENTRY
    )


def probe_with(
    site: Path, sysroot: Optional[Path] = None, alone: bool = False, **env: str
) -> Probe:
    """A probe that sees ``site`` first, then (unless ``alone``) this interpreter's packages."""
    probe = Probe(sysroot=str(sysroot) if sysroot else None, env=clean_env(**env))
    path = [str(site)] + ([] if alone else sys.path)
    probe.fact("python.dists", lambda: packages.scan(path))
    return probe


@pytest.fixture
def site(tmp_path: Path) -> Path:
    folder = tmp_path / "site"
    folder.mkdir()
    return folder


# -- versions ----------------------------------------------------------------------------------


def test_mismatched_torch_npu_fails_naming_both_versions_and_the_fix(site: Path):
    dist_info(site, "torch_npu", "2.5.1", ("numpy",))  # no torch pin: the X.Y.* rule holds
    dist_info(site, "numpy", "2.4.0")
    ran = run_ampenv(
        "doctor", "--only", "python.stack", "--profile", "quick", "--format", "json",
        env=clean_env(PYTHONPATH=str(site)),
    )  # fmt: skip
    assert ran.returncode == 1, ran.stderr
    check = ran.check("python.stack")
    torch_version = metadata.version("torch")
    assert check["status"] == "fail"
    assert check["summary"].startswith(
        f"torch_npu 2.5.1 needs torch==2.5.*, but torch {torch_version} is installed"
    )
    assert check["remedy"].startswith(
        f'pip install "torch==2.5.*" (or, to keep torch {torch_version}: '
        'pip install "torch-npu==2.13.0.*")'
    )
    assert check["facts"]["torch_npu"] == "2.5.1"


def test_torch_npu_pin_from_its_own_metadata(site: Path):
    torch_npu_dist(site, "2.13.0")
    dist_info(site, "torch", "2.12.1")  # shadows the real torch, first on the path
    result = judge(CHECK, probe_with(site))
    assert result.status is Status.FAIL
    assert result.summary.startswith(
        "torch_npu 2.13.0 needs torch==2.13.0.*, but torch 2.12.1 is installed"
    )
    assert result.remedy.startswith('pip install "torch==2.13.0.*" (or, to keep torch 2.12.1')


def test_matching_pair_passes_and_says_what_it_could_not_check(site: Path):
    torch_npu_dist(site, "2.13.0")
    dist_info(site, "pyyaml", "6.0.4")
    dist_info(site, "numpy", "2.4.0")
    result = judge(CHECK, probe_with(site))
    assert result.status is Status.PASS, result.details
    assert result.summary.startswith("torch 2.13.0")
    assert any("RECORD lists no extension module" in d for d in result.details)


def test_no_torch_warns_on_cpu_and_fails_with_the_pair_for_cann_on_npu(site: Path, sysroot: Path):
    cpu = judge(CHECK, probe_with(site, alone=True))
    assert (cpu.status, cpu.remedy) == (Status.WARN, "pip install torch")
    plant_legacy(sysroot)
    npu = judge(CHECK, probe_with(site, sysroot, alone=True), device="npu")
    assert npu.status is Status.FAIL
    assert npu.summary == "neither torch nor torch_npu is installed"
    assert npu.remedy == 'pip install "torch==2.4.0" "torch-npu==2.4.0.post2"'  # CANN 8.0.0


# -- the CANN table ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("torch_npu", "cann"),
    [
        ("2.1.0.post10", ["8.0.0"]),
        ("2.5.1", ["8.1.RC1"]),
        ("2.5.1.dev20250218", ["8.1.RC1"]),  # real wheel versions from the reference [ISSUE]
        ("2.1.0.post8.dev20241009", ["8.0.RC3"]),
        ("2.5.1.post2+gitd7a85f8", []),  # no 2.5.1.post2 row
        ("2.13.0", []),
        ("garbage", []),
    ],
)
def test_cann_for_real_version_strings(torch_npu: str, cann: list[str]):
    assert compat.cann_for(torch_npu) == cann


def test_table_rows_are_consistent():
    for row in compat.RELEASES:
        assert compat.release_key(row.torch_npu) is not None, row
        assert row.torch_npu.startswith(row.torch), row  # torch_npu X.Y.Z[.postN] for torch X.Y.Z
        assert row.branch.startswith(f"v{row.torch}-"), row
    assert compat.torch_npu_for("2.4.0", "8.0.rc3") == "2.4.0"
    assert compat.torch_npu_for("2.4.0", "8.0.0") == "2.4.0.post2"
    assert compat.torch_npu_for("2.4.0") == "2.4.0.post4"  # the newest CANN first


def test_torch_npu_built_for_another_cann_warns_with_the_matching_build(site: Path, sysroot: Path):
    plant_legacy(sysroot, "8.1.RC1", INFO_81)
    dist_info(site, "torch", "2.1.0")
    torch_npu_dist(site, "2.1.0.post10")
    dist_info(site, "numpy", "2.4.0")
    dist_info(site, "pyyaml", "6.0.4")
    result = judge(CHECK, probe_with(site, sysroot, alone=True))
    assert result.status is Status.WARN, result.details
    assert (
        result.summary
        == "torch_npu 2.1.0.post10 is built for CANN 8.0.0; this node has CANN 8.1.RC1"
    )
    assert result.remedy == 'pip install "torch-npu==2.1.0.post12"'


# -- pip check -----------------------------------------------------------------------------------


def conflicting_site(site: Path) -> None:
    dist_info(
        site,
        "alpha",
        "1.0",
        ("beta>=2", "gamma", 'zeta; python_version < "3"', 'eps; extra == "x"'),
    )
    dist_info(site, "beta", "1.0")
    dist_info(site, "Delta_Pkg", "1.0", ("alpha[x]", "beta==1.0rc1; extra == 'never'"))
    dist_info(site, "pre", "1.0", ("beta>=1.0.dev0",))


def test_conflicts_agree_with_pip_check(site: Path):
    conflicting_site(site)
    ran = subprocess.run(
        [sys.executable, "-m", "pip", "check"],
        env=clean_env(PYTHONPATH=str(site), PIP_DISABLE_PIP_VERSION_CHECK="1"),
        capture_output=True,
        text=True,
    )
    pip_says = set(
        re.findall(r"^(\S+) \S+ (?:requires|has requirement) ([A-Za-z0-9_.-]+)", ran.stdout, re.M)
    )
    ours = packages.conflicts(packages.scan([str(site), *sys.path]))
    base = {(c.by, c.name) for c in ours if "[" not in c.by_label}
    assert base == {
        (packages.canonicalize_name(a), packages.canonicalize_name(b)) for a, b in pip_says
    }
    mine = {"alpha", "beta", "delta-pkg", "pre"}  # the rest is this environment's own
    assert {c for c in base if c[0] in mine} == {("alpha", "beta"), ("alpha", "gamma")}


def test_extras_asked_for_by_another_distribution_are_checked(site: Path):
    conflicting_site(site)
    ours = packages.conflicts(packages.scan([str(site)]))
    extra = [c for c in ours if "[" in c.by_label]
    assert [c.describe() for c in extra] == ["alpha[x]==1.0 requires eps, which is not installed"]
    assert extra[0].fix == 'pip install "eps"'


LINES = (
    'eps; extra == "x"',
    "eps ; extra=='X'",
    'eps; extra == "x_y"',
    'eps; extra == "never"',
    'eps; extra == "x" and python_version >= "3"',
    'eps; (extra == "x")',
    'eps; "x" == extra',
    'eps; extra != "x"',
    'eps>=1; python_version >= "3"',
    "eps",
    'eps @ https://example.com/e.whl;extra=="x"',
    'eps @ https://example.com/e.whl ; extra == "x"',
    "eps[a]; extra == ''",
)


@pytest.mark.parametrize("extra", ["", "x", "X", "x-y", "x.y", "other"])
def test_lines_left_unparsed_are_those_packaging_says_do_not_apply(extra: str):
    from packaging.requirements import Requirement

    for line in LINES:
        if packages._for_another_extra(line, extra):
            assert not packages._applies(Requirement(line), extra), (line, extra)


def test_an_extra_named_in_another_spelling_is_still_checked(site: Path):
    dist_info(site, "alpha", "1.0", ('eps; extra == "X_Y"',))
    dist_info(site, "delta", "1.0", ("alpha[x.y]",))
    ours = packages.conflicts(packages.scan([str(site)]))
    assert [c.describe() for c in ours] == ["alpha[x-y]==1.0 requires eps, which is not installed"]


def test_conflicts_become_warnings_with_the_install_line(site: Path):
    conflicting_site(site)
    result = judge(CHECK, probe_with(site))
    assert result.status is Status.WARN
    assert "alpha==1.0 requires beta>=2, but 1.0 is installed" in result.details[0]
    assert 'pip install "beta>=2"' in result.remedy


# -- the libraries torch_npu needs ---------------------------------------------------------------


@pytest.fixture(scope="module")
def extension(tmp_path_factory) -> Path:
    """torch_npu/_C.so needing libhccl.so and libtorch.so (the linker's own output), and a
    stub libhccl.so to plant where a toolkit keeps it."""
    if GCC is None:
        pytest.skip("no C compiler to build a test extension module")
    root = tmp_path_factory.mktemp("ext")
    src = root / "f.c"
    src.write_text("int f(void) { return 1; }\n")

    def link(out: str, *args: str) -> None:
        subprocess.run(
            [GCC, "-shared", "-fPIC", "-o", str(root / out), str(src), *args], check=True
        )

    for lib in ("hccl", "torch"):
        link(f"lib{lib}.so", f"-Wl,-soname,lib{lib}.so")
    link("_C.so", "-Wl,--no-as-needed", f"-L{root}", "-lhccl", "-ltorch")
    return root


def torch_npu_with_extension(site: Path, sysroot: Path, extension: Path) -> None:
    """The fake torch_npu on ``site``; the planted node gets this host's system libraries and
    ld cache (libc and friends resolve there, as on a real node)."""
    for system in ("etc/ld.so.cache", "lib", "lib64", "usr/lib", "usr/lib64"):
        if Path("/", system).exists():
            (sysroot / system).parent.mkdir(parents=True, exist_ok=True)
            (sysroot / system).symlink_to(Path("/", system))
    package = site / "torch_npu"
    package.mkdir()
    (package / "__init__.py").write_text("")
    shutil.copy(extension / "_C.so", package / "_C.so")
    torch_npu_dist(site, files=("torch_npu/__init__.py", "torch_npu/_C.so"))
    dist_info(site, "numpy", "2.4.0")
    dist_info(site, "pyyaml", "6.0.4")


def test_missing_cann_library_fails_with_the_set_env_line(
    site: Path, sysroot: Path, extension: Path
):
    torch_npu_with_extension(site, sysroot, extension)
    plant_legacy(sysroot)
    result = judge(CHECK, probe_with(site, sysroot))
    assert result.status is Status.FAIL
    assert result.summary.startswith(
        "CANN runtime not on the library path: torch_npu needs libhccl.so."
    )
    assert "`import torch` fails too: torch autoloads torch_npu" in result.summary
    assert result.remedy == (
        f"source {LEGACY}/set_env.sh; for CPU-only use of this environment: "
        "export TORCH_DEVICE_BACKEND_AUTOLOAD=0"
    )
    assert result.facts["libraries_missing"] == ["libhccl.so"]  # libtorch.so: torch loaded it


def test_library_in_the_toolkit_on_ld_library_path_is_found(
    site: Path, sysroot: Path, extension: Path
):
    torch_npu_with_extension(site, sysroot, extension)
    plant_legacy(sysroot)
    lib64 = sysroot / LEGACY.lstrip("/") / "8.0.0" / "lib64"
    lib64.mkdir()
    shutil.copy(extension / "libhccl.so", lib64 / "libhccl.so")
    missing = judge(CHECK, probe_with(site, sysroot))
    assert f"libhccl.so in {LEGACY}/latest/lib64" in missing.summary  # there, but not on the path
    found = judge(CHECK, probe_with(site, sysroot, LD_LIBRARY_PATH=f"{LEGACY}/latest/lib64"))
    assert found.status is Status.PASS, found.details
    assert found.facts["libraries_missing"] == []


def test_autoload_off_on_a_cpu_node_only_warns(site: Path, sysroot: Path, extension: Path):
    torch_npu_with_extension(site, sysroot, extension)
    result = judge(CHECK, probe_with(site, sysroot, TORCH_DEVICE_BACKEND_AUTOLOAD="0"))
    assert result.status is Status.WARN
    assert "torch works only because TORCH_DEVICE_BACKEND_AUTOLOAD=0" in result.summary
    assert result.remedy.startswith("pip uninstall torch-npu (a CPU-only environment), or install")


# -- the import probe (full profile), with fake torch packages that break on purpose -------------


def fake_torch(site: Path, body: str, npu: bool = True) -> None:
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text(body)
    if npu:
        (site / "torch_npu").mkdir()
        (site / "torch_npu" / "__init__.py").write_text('__version__ = "2.13.0"\n')
        torch_npu_dist(site)
        dist_info(site, "numpy", "2.4.0")
        dist_info(site, "pyyaml", "6.0.4")


DEVICES = """\
__version__ = "2.13.0"
class cuda:
    is_available = staticmethod(lambda: False)
class npu:
    is_available = staticmethod(lambda: {available})
    device_count = staticmethod(lambda: {count})
"""


def test_import_failure_recorded_from_the_real_wheel_is_translated(site: Path):
    fake_torch(
        site,
        f"try:\n    raise ImportError({REAL_CHAIN[1]!r})\n"
        f"except ImportError as err:\n    raise RuntimeError({REAL_CHAIN[0]!r}) from err\n",
    )
    result = judge(CHECK, probe_with(site, PYTHONPATH=str(site)), profile="full")
    assert result.status is Status.FAIL
    assert (
        "CANN runtime not on the library path: importing torch_npu fails (libhccl.so cannot be "
        "opened)" in result.details[-1] + result.summary
    )
    assert result.facts["import"]["error"] == [
        f"RuntimeError: {REAL_CHAIN[0]}",
        f"ImportError: {REAL_CHAIN[1]}",
    ]


def test_hanging_import_is_cut_at_its_timeout(site: Path):
    fake_torch(site, "import time\nwhile True:\n    time.sleep(1)\n")
    result = judge(
        CHECK, probe_with(site, PYTHONPATH=str(site)), profile="full", import_timeout=1.5
    )
    assert result.status is Status.FAIL
    assert result.summary == "`import torch, torch_npu` did not finish in 1.5 s"
    assert not [p for p in psutil.Process().children(recursive=True) if _runs_import_probe(p)]


def _runs_import_probe(p: psutil.Process) -> bool:
    # This process adopts orphans (a subreaper), so another test's exited orphan may linger
    # here as a zombie: it runs nothing and has no command line to read.
    try:
        return p.status() != psutil.STATUS_ZOMBIE and IMPORT_PROBE in p.cmdline()
    except psutil.Error:
        return False


def test_npu_not_available_although_devices_exist(site: Path, sysroot: Path):
    fake_torch(site, DEVICES.format(available=False, count=0))
    for i in range(8):
        (sysroot / "dev").mkdir(exist_ok=True)
        (sysroot / "dev" / f"davinci{i}").symlink_to("/dev/null")
    result = judge(CHECK, probe_with(site, sysroot, PYTHONPATH=str(site)), profile="full")
    assert result.status is Status.FAIL
    assert (
        "torch.npu.is_available() is False, although /dev has davinci nodes for 8 NPUs"
        in " ".join(result.details)
    )


def test_device_count_disagreeing_with_the_node_fails(site: Path, sysroot: Path):
    fake_torch(site, DEVICES.format(available=True, count=4))
    (sysroot / "dev").mkdir()
    for i in range(8):
        (sysroot / "dev" / f"davinci{i}").symlink_to("/dev/null")
    probe = probe_with(site, sysroot, PYTHONPATH=str(site))
    result = judge(CHECK, probe, profile="full")
    assert "torch sees 4 NPUs, but /dev has davinci nodes for 8" in " ".join(result.details)
    visible = probe_with(site, sysroot, PYTHONPATH=str(site), ASCEND_RT_VISIBLE_DEVICES="0,1,2,3")
    assert not any(
        "torch sees 4 NPUs, but" in d for d in judge(CHECK, visible, profile="full").details
    )


@pytest.mark.slow
def test_real_torch_imports_in_a_child_on_this_cpu_node():
    result = judge(CHECK, Probe(env=clean_env()), profile="full")
    imported = result.facts["import"]
    assert imported["torch_version"] == metadata.version("torch")
    assert imported["stage"] == "done"
    assert any(d.startswith("`import torch` works in") for d in result.details)


# -- backend detection ---------------------------------------------------------------------------

# nvidia-smi's real message when it cannot reach the driver (it exits 9).
NVSMI_NO_DRIVER = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n"
)


def plant_nodes(sysroot: Path, name: str, count: int) -> None:
    (sysroot / "dev").mkdir(exist_ok=True)
    for i in range(count):
        (sysroot / "dev" / f"{name}{i}").symlink_to("/dev/null")


def backend_of(sysroot: Path, bin_dir: Path) -> Backend:
    return detect_backend(Probe(sysroot=str(sysroot), env=clean_env(PATH=path_with(bin_dir))))


def test_backend_cpu_npu_and_cuda_from_device_nodes(sysroot: Path, tmp_path: Path):
    assert backend_of(sysroot, tmp_path).kind == "cpu"
    plant_nodes(sysroot, "nvidia", 2)
    assert backend_of(sysroot, tmp_path) == Backend("cuda", "2 /dev/nvidia* nodes", [], 2)
    plant_nodes(sysroot, "davinci", 4)
    assert backend_of(sysroot, tmp_path) == Backend("npu", "4 /dev/davinci* nodes", [], 4)


def test_broken_nvidia_smi_still_gives_cuda_with_the_node_count(sysroot: Path, tmp_path: Path):
    plant_nodes(sysroot, "nvidia", 2)
    fake_tool(tmp_path, "nvidia-smi", exit_code=9, stdout=NVSMI_NO_DRIVER)
    backend = backend_of(sysroot, tmp_path)
    assert (backend.kind, backend.device_names, backend.count) == ("cuda", [], 2)
    assert backend.reason.endswith("--format=csv,noheader` exited with code 9)")


def test_hanging_nvidia_smi_is_cut_and_leaves_nothing(sysroot: Path, tmp_path: Path):
    tool = fake_tool(tmp_path, "nvidia-smi", hang=True)
    start = time.monotonic()
    backend = backend_of(sysroot, tmp_path)
    assert time.monotonic() - start < GPU_NAMES_TIMEOUT + 2
    assert (backend.kind, backend.device_names) == ("cuda", [])
    assert f"did not answer in {GPU_NAMES_TIMEOUT:g} s" in backend.reason
    assert not [
        p
        for p in psutil.process_iter(["cmdline"])
        if str(tool) in " ".join(p.info["cmdline"] or [])
    ]


def test_ascend_only_checks_skip_on_a_cuda_node_with_the_reason(sysroot: Path, tmp_path: Path):
    plant_nodes(sysroot, "nvidia", 1)
    probe = Probe(sysroot=str(sysroot), env=clean_env(PATH=path_with(tmp_path)))
    result = judge(load_checks("cann.py")["cann.toolkit"], probe)
    assert (result.status, result.summary) == (
        Status.SKIP,
        "no Ascend NPU on this node (backend cuda) and no CANN toolkit",
    )


# -- offline (a support bundle) ------------------------------------------------------------------


def bundle_probe(recorded: dict[str, str]) -> Probe:
    probe = Probe(env=clean_env())
    probe.offline = True
    probe.fact("distributions", lambda: recorded)  # what a bundle recorded
    return probe


def test_offline_judges_the_recorded_versions_and_runs_nothing():
    mismatch = judge(CHECK, bundle_probe({"torch": "2.5.1", "torch-npu": "2.13.0"}), "full")
    assert mismatch.status is Status.FAIL
    assert mismatch.summary == "torch_npu 2.13.0 needs torch==2.13.*, but torch 2.5.1 is installed"
    matched = judge(CHECK, bundle_probe({"torch": "2.13.0", "torch-npu": "2.13.0"}), "full")
    assert matched.status is Status.PASS
    assert CHECKS.OFFLINE in matched.details
    assert "import" not in matched.facts and "executable" not in matched.facts


def test_atb_comes_from_nnal_and_the_rest_from_the_toolkit(sysroot: Path):
    plant_legacy(sysroot)
    found = cann.discover(Probe(sysroot=str(sysroot), env=clean_env()))
    assert CHECKS._providers(["libatb.so", "libhccl.so", "libgraph.so"], found) == [
        "source /usr/local/Ascend/nnal/atb/set_env.sh",
        f"source {LEGACY}/set_env.sh",
    ]
