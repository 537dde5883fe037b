"""What pip says of the environment it installs into: a package installed whose requirement the
environment does not meet (the install went on), an environment it refuses to install into at
all (a distribution's Python, PEP 668), an install it refuses to combine with the user's
configuration, and an Ascend package its indexes do not carry."""

from __future__ import annotations

from ampenv.knowledge.failures.model import Failure, Source

FAILURES = (
    Failure(
        id="pip-user-and-target",
        mode="cann-env",
        component="pip",
        # pip's refusal when an installer's --target meets a pip.conf's "user = true" (or
        # PIP_USER): CANN's toolkit installer installs its Python parts with --target
        patterns=(r"ERROR: Can not combine '--user' and '--target'",),
        codes=(),
        meaning="pip was given both --user and --target: an installer (CANN's toolkit "
        "installs its Python parts with --target) met a pip configuration that adds --user to "
        "every install, and pip refused, so the install did not finish",
        causes=("user = true in ~/.pip/pip.conf or ~/.config/pip/pip.conf, or PIP_USER set",),
        fix="set user = false in the pip configuration (`pip config list` shows where it is "
        "set) or unset PIP_USER, then run the install again",
        confirm=None,
        sources=(
            Source(
                "https://www.hiascend.com/llms-content/document/detail/canncommercial/"
                "canncommercial_900_softwareinst_instg_instg_0091_html.md (CANN 9.0.0 "
                "installation FAQ: the toolkit's install with user = true in pip.conf)",
                "official",
            ),
        ),
        hints=("error",),
    ),
    Failure(
        id="pip-requirement-conflict",
        mode="torch-pairing",
        component="pip",
        # pip's report after an install: before its 2020 resolver one "ERROR:" line per
        # conflict, since then a header above the conflicts (its next row names the first)
        patterns=(
            r"\bERROR:\s{0,2}\S{1,80} \S{1,40} has requirement [^,\n]{1,120}, but you'll have "
            r"[^\n]{1,120} which is incompatible",
            r"pip's dependency resolver does not currently take into account all the packages",
        ),
        following=1,
        codes=(),
        meaning="pip installed a package whose declared requirement the environment does not "
        "meet (the line names the package, what it requires and what is installed): pip "
        "installed it anyway, and it may fail on import or at run time",
        causes=(
            "a package (torchvision, torchaudio, a framework) built for another torch than the "
            "one installed, often after torch was pinned for torch_npu",
            "a vendor's build whose version pip cannot compare (Ascend's 1.5.0a0+<commit> torch "
            "for torchvision 0.6.0 asks 1.5.0): harmless where the two really pair",
        ),
        fix="install what the line says the package requires (pip install '<requirement>'), or "
        "the release of the package that pairs with what is installed (torchvision for the "
        "installed torch: pip install 'torchvision==<its pair>' --no-deps; never a torch that "
        "replaces the one torch_npu needs), or leave it where the two pair and only the version "
        "string differs; `pip check` lists what still conflicts",
        confirm="python.stack",
        sources=(
            Source(
                "pypa/pip src/pip/_internal/commands/install.py (the conflicts it warns of after "
                "an install: 'has requirement', then 'requires ... but you have ...' under the "
                "resolver's header)",
                "official",
            ),
            Source(
                "Ascend/pytorch docs/zh/PyTorch安装指南/PyTorch安装指南.md (its FAQ on torch "
                "1.5.0a0 and torchvision 0.6.0, 2022-01..2023-03): expected and harmless there",
                "official",
            ),
        ),
        hints=("error",),
        # the install went through and most jobs run: a cause only beside a failure
        notice=True,
    ),
    Failure(
        id="pip-externally-managed",
        mode="torch-pairing",
        component="pip",
        # pip refusing the system Python of a distribution that marks it externally managed
        # (Debian 12, Ubuntu 23.04 and newer: their python3 ships an EXTERNALLY-MANAGED file)
        patterns=(r"\berror: externally-managed-environment\b",),
        codes=(),
        meaning="pip refused to install into the operating system's own Python (PEP 668): the "
        "distribution manages its packages, so nothing was installed (torch, torch_npu and "
        "CANN's Python dependencies included)",
        causes=(
            "pip run with the system python3 of Ubuntu 23.04+ or Debian 12+ (a container "
            "image's default Python too), not a virtual environment or conda",
        ),
        fix="create a virtual environment and install there: python3 -m venv ~/npu-venv && . "
        "~/npu-venv/bin/activate && pip install ... (apt install python3-venv first where it "
        "is missing), or use conda; CANN's Python dependencies and torch_npu go into that same "
        "environment; --break-system-packages overrides the check at the risk of the OS's "
        "own Python tools",
        confirm="python.stack",
        sources=(
            Source(
                "PEP 668 (Marking Python base environments as externally managed) and pip "
                "src/pip/_internal/exceptions.py (ExternallyManagedEnvironment)",
                "official",
            ),
            Source("https://github.com/Comfy-Org/ComfyUI/issues/3554", "report"),
        ),
        hints=("error",),
    ),
    Failure(
        id="triton-ascend-not-on-index",
        mode="cann-pairing",
        component="pip",
        # pip's two lines for a pin no index it reads carries (vllm-ascend pins one)
        patterns=(
            r"\bERROR: (?:No matching distribution found for|Could not find a version that "
            r"satisfies the requirement) triton[-_]ascend\b",
        ),
        codes=(),
        meaning="pip found no triton-ascend of the version asked for on the indexes it reads: "
        "some releases (and the ones vllm-ascend pins) are published on Huawei Cloud's Ascend "
        "PyPI mirror only, not on pypi.org",
        causes=(
            "a triton-ascend release that only Ascend's mirror carries (3.2.1, 3.2.2), asked for "
            "from pypi.org or a mirror of it",
            "a version that exists nowhere, or none for this Python or architecture",
        ),
        fix="add Ascend's index: pip install triton-ascend==<version> --extra-index-url "
        "https://mirrors.huaweicloud.com/ascend/repos/pypi (or in the requirements file); "
        "`pip index versions triton-ascend` lists what an index carries; install the release "
        "the triton-ascend or vllm-ascend docs pair with this CANN",
        confirm="python.stack",
        sources=(
            Source("https://github.com/triton-lang/triton-ascend/issues/900", "maintainer"),
            Source("https://github.com/vllm-project/vllm-ascend/issues/16732", "report"),
        ),
        hints=("error",),
    ),
)
