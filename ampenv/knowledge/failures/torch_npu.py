"""torch_npu against torch, CANN, NNAL/ATB and the kernels package."""

from __future__ import annotations

from ampenv.knowledge.failures.model import CLASS, Failure, Source

PAIR_FIX = (
    'pip install "torch==X.Y.*" "torch-npu==<the release paired with that torch and the '
    'installed CANN>" (the Ascend/pytorch README table; `ampenv doctor --only python.stack` '
    "names it)"
)
TORCH_SYMBOLS = r"_ZN(?:3c10|2at|5torch|5caffe2|4c10d)"

FAILURES = (
    Failure(
        id="torch-npu-undefined-symbol",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(rf"libtorch_npu\.so: undefined symbol: {TORCH_SYMBOLS}\w{{0,400}}",),
        codes=(),
        meaning="torch_npu was built for another torch: a torch symbol it links against is "
        "missing from the installed torch",
        causes=("torch upgraded or downgraded without its paired torch_npu",),
        fix=PAIR_FIX,
        confirm="python.stack",
        sources=(
            Source("https://github.com/Ascend/pytorch/issues/35", "maintainer"),
            Source(
                "shared/reference/ascend-facts.md §3 (torch_npu X.Y needs torch X.Y)", "official"
            ),
        ),
        hints=("undefined symbol",),
    ),
    Failure(
        id="torch-backend-autoload",
        mode="torch-pairing",
        component="torch",
        patterns=(r"Failed to load the backend extension: torch_npu",),
        codes=(),
        meaning="torch >= 2.5 imports torch_npu on `import torch` and that import failed; the "
        "lines before it name the reason (a missing CANN library, an unpaired torch_npu)",
        causes=(
            "CANN environment not sourced",
            "torch_npu not paired with torch",
            "torch_npu installed in an environment meant for CPU or CUDA only",
        ),
        fix='python -c "import torch_npu" shows the cause; for CPU-only use of this environment: '
        "export TORCH_DEVICE_BACKEND_AUTOLOAD=0",
        confirm="python.stack",
        sources=(
            Source("pytorch/pytorch torch/__init__.py _import_device_backends", "official"),
            Source("https://github.com/flashserve/flash-linear-attention-npu/issues/2", "report"),
        ),
        hints=("fail",),
        rank=CLASS,
    ),
    Failure(
        id="torch-npu-unpaired-attr",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(r"module 'torch_npu(?:\.[\w.]{1,60})?' has no attribute '\w{1,80}'",),
        codes=(),
        meaning="code expects a torch_npu API this torch_npu lacks: the torch_npu release does "
        "not match torch (or the framework calling it)",
        causes=("a torch_npu older or newer than the one paired with torch",),
        fix=PAIR_FIX,
        confirm="python.stack",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/340", "maintainer"),
            Source("https://github.com/flashserve/flash-linear-attention-npu/issues/2", "report"),
        ),
        hints=("no attribute",),
    ),
    Failure(
        id="torch-npu-source-tree",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(r"No module named 'torch_npu\._C'",),
        codes=(),
        meaning="Python imported torch_npu from its source tree (the current directory), which "
        "has no built extension",
        causes=("python started inside the Ascend/pytorch checkout",),
        fix="cd to another directory and run python again",
        confirm="python.stack",
        sources=(Source("https://github.com/Ascend/pytorch/issues/24", "maintainer"),),
        hints=("no module named",),
    ),
    Failure(
        id="torch-npu-cann-symbol",
        mode="cann-pairing",
        component="torch_npu",
        patterns=(
            r"undefined symbol: (?:Msprof|aclnn|aclrt|aclop|Hccl|hccl)\w{0,200}",
            r"\baclnn\w{1,80} or \w{1,80} not in libopapi\.so",
        ),
        codes=(),
        meaning="torch_npu needs a CANN function the installed CANN lacks: torch_npu is newer "
        "(or older) than the CANN it runs on",
        causes=("CANN and torch_npu from different releases",),
        fix="install the torch_npu release paired with the installed CANN (Ascend/pytorch README "
        'table), e.g. pip install "torch-npu==2.7.1.post4" for CANN 9.0.0',
        confirm="python.stack",
        sources=(
            Source("https://github.com/triton-lang/triton-ascend/issues/328", "report"),
            Source("https://github.com/triton-lang/triton-ascend/pull/1099", "report"),
        ),
        hints=("undefined symbol", "libopapi"),
    ),
    Failure(
        id="torch-npu-atb-symbol",
        mode="cann-pairing",
        component="nnal",
        patterns=(r"undefined symbol: _ZN3(?:atb|Mki)\w{1,400}",),
        codes=(),
        meaning="torch_npu and NNAL/ATB (or ATB and CANN) come from different releases: an ATB "
        "symbol one expects is missing from the other",
        causes=("NNAL installed for another CANN or torch_npu release",),
        fix="install the NNAL (ATB) release that matches CANN and torch_npu, then source "
        "/usr/local/Ascend/nnal/atb/set_env.sh",
        confirm="cann.toolkit",
        sources=(
            Source("https://github.com/vllm-project/vllm-ascend/issues/117", "report"),
            Source("https://github.com/Ascend/pytorch/issues/99", "report"),
        ),
        hints=("undefined symbol",),
    ),
    Failure(
        id="cann-undefined-symbol",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"/(?:ascend-toolkit|cann[-\w.]{0,20})/\S{1,300}\.so: undefined symbol: \w{1,400}",
        ),
        codes=(),
        meaning="one CANN library misses a symbol of another: parts of two CANN versions are "
        "mixed in one install or on LD_LIBRARY_PATH",
        causes=(
            "an upgrade left old components behind, or two toolkits on LD_LIBRARY_PATH",
            "kernels/ops package from another CANN version",
        ),
        fix="reinstall the CANN toolkit and kernels of one version, and keep only its set_env.sh "
        "in the environment",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/Ascend/samples/issues/21", "report"),),
        hints=("undefined symbol",),
    ),
    Failure(
        id="kernels-missing",
        mode="cann-pairing",
        component="cann",
        patterns=(
            r"Cannot find bin(?:ary)? (?:of|for) op",
            r"binary_info_config\.json failed",
            r"check if the opp_kernel package is instal",
            r"\bopp[_ ]kernels?\b[^\n]{0,30}\bnot installed",
        ),
        codes=(),
        meaning="no precompiled kernel for the operator: the kernels (ops) package is missing, "
        "from another CANN version, or the dtype/shape is not supported",
        causes=(
            "Ascend-cann-kernels-<chip> (CANN >= 8.5: cann-<chip>-ops) not installed",
            "kernels package of another CANN version",
            "an input dtype the operator does not support",
        ),
        fix="install the kernels package of the same CANN version for this chip "
        "(Ascend-cann-kernels-<chip>_<version>.run --install), then source set_env.sh",
        confirm="cann.toolkit",
        sources=(
            Source(
                "Ascend/pytorch docs/zh/user_guide/troubleshooting/troubleshooting_cases/"
                "operator_called_error.md@9e73e708ab9350d203475609f36f8a43f6a0c2ab",
                "official",
            ),
            Source("https://github.com/vllm-project/vllm-ascend/issues/237", "report"),
            Source("https://github.com/Ascend/MindSpeed-LLM/issues/2", "report"),
        ),
        hints=("cannot", "fail", "not installed"),
    ),
    Failure(
        id="cann-version-mismatch",
        mode="cann-pairing",
        component="cann",
        patterns=(r"\bCANN\b[^\n]{0,40}\bversion mismatch\b",),
        codes=(),
        meaning="a framework or library was built against another CANN release than the one "
        "installed (it says so at start-up, before anything fails)",
        causes=(
            "the framework's build made for another CANN (Paddle-Lite built with 5.1.0 on 5.1.2)",
            "CANN upgraded or downgraded after the framework was installed",
        ),
        fix="install the framework build made for the installed CANN, or install the CANN "
        "release it was built against; `ampenv doctor --only cann.toolkit` shows the installed one",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/PaddlePaddle/Paddle-Lite/issues/10514", "report"),),
        hints=("mismatch",),
    ),
    Failure(
        id="opp-verify-failed",
        mode="cann-pairing",
        component="cann",
        patterns=(r"Failed to verify the OPP",),
        codes=("E30006",),
        meaning="the device rejected the operator package (OPP) at start-up, so the device "
        "could not be opened (507033 follows)",
        causes=(
            "OPP/kernels package from another CANN version than the toolkit",
            "OPP package not matching the driver (no source pins which)",
        ),
        fix="reinstall the toolkit and kernels of one CANN version matching the driver; "
        "`ampenv doctor --only cann.toolkit,npu.driver`",
        confirm="cann.toolkit",
        sources=(Source("https://github.com/vllm-project/vllm-ascend/issues/4284", "report"),),
        hints=("fail",),
    ),
    Failure(
        id="two-accelerators",
        mode="torch-pairing",
        component="torch_npu",
        patterns=(r"Two accelerators cannot be used at the same time(?: in PyTorch)?: \w{1,20}",),
        codes=(),
        meaning="torch_npu claims PyTorch's one accelerator slot at import and found it taken: "
        "by a CUDA (or other) build of torch ('npu and cuda'), or by torch_npu itself, registered "
        "twice ('npu and npu')",
        causes=(
            "torch is a CUDA build: torch_npu needs the CPU build of torch",
            "torch_npu imported twice: torch's backend autoload and an extension that loads "
            "libtorch_npu first",
        ),
        fix="'npu and cuda': reinstall the CPU build of the same torch "
        "(pip install torch==<version> --index-url https://download.pytorch.org/whl/cpu); "
        "'npu and npu': export TORCH_DEVICE_BACKEND_AUTOLOAD=0 and `import torch_npu` before "
        "the extension",
        confirm="python.stack",
        sources=(
            Source(
                "Ascend/pytorch torch_npu/__init__.py _check_device_conflict (message literal)",
                "official",
            ),
        ),
        hints=("cannot",),
    ),
)
